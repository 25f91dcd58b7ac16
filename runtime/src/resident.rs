//! Resident map buffers (`docs/decisions/0014-resident-map-buffers.md`): one device
//! buffer per (context, instrumented function), zeroed once, passed to every launch of a
//! kernel whose maps accumulate across launches (`codegen::accumulates`), and read back
//! once, when its context is torn down or the process exits. Such a launch adds nothing to
//! its stream: no memset, no copy, no event.
//!
//! Read-back synchronizes the buffer's context, so it happens only where the application
//! gives the context up: in the wrappers of `cuCtxDestroy`, `cuDevicePrimaryCtxRelease`
//! and `cuDevicePrimaryCtxReset` (before forwarding), and in an `atexit` handler
//! registered when the first buffer is allocated. That is after the CUDA libraries
//! registered theirs, so it runs before they tear the driver down. Launches whose
//! buffer is never read back (a fatal signal, a driver error) are reported as lost.
//! A `fork` child inherits its parent's table but owns none of it.

use crate::config;
use crate::driver::{Driver, CUDA_SUCCESS};
use crate::state;
use cudarc::driver::sys::{CUcontext, CUdevice, CUdeviceptr, CUstream};
use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Once};
use warptrace_ir::MapLayout;

/// One resident buffer.
#[derive(Debug)]
struct Buffer {
    device: CUdeviceptr,
    len: usize,
    /// Device of its context (for `cuDevicePrimaryCtx*`).
    dev: CUdevice,
    layout: Arc<MapLayout>,
    /// Launches made with it.
    launches: u64,
    /// The instrumented kernel's name, for messages.
    name: String,
}

/// The buffers by (context, instrumented function), and the pid they belong to.
#[derive(Debug, Default)]
pub(crate) struct Table {
    pid: u32,
    buffers: HashMap<(usize, usize), Buffer>,
}

static TABLE: Mutex<Option<Table>> = Mutex::new(None);

/// Whether the table is unlocked right now (see `state::locks_free`).
pub(crate) fn unlocked() -> bool {
    !matches!(TABLE.try_lock(), Err(std::sync::TryLockError::WouldBlock))
}

/// The table, locked as it is (for `state::hold`, across a `fork`).
pub(crate) fn hold() -> MutexGuard<'static, Option<Table>> {
    TABLE.lock().unwrap_or_else(|p| p.into_inner())
}

/// The table of this process (emptied when inherited across `fork`).
fn table() -> MutexGuard<'static, Option<Table>> {
    let mut guard = TABLE.lock().unwrap_or_else(|p| p.into_inner());
    let pid = std::process::id();
    let t = guard.get_or_insert_with(|| Table {
        pid,
        buffers: HashMap::new(),
    });
    if t.pid != pid {
        // A fork child: the parent's buffers live in the parent's contexts.
        t.pid = pid;
        t.buffers.clear();
    }
    guard
}

/// The resident buffer of the instrumented function `func` (kernel `name`) in context
/// `ctx`, of `len` bytes for `layout`; allocated and zeroed on first use, with `stream`
/// synchronized once so that every later launch, on any stream, sees it zeroed. `None`
/// when that fails (the launch then takes a per-launch buffer).
pub(crate) fn buffer(
    d: &Driver,
    ctx: usize,
    func: usize,
    name: &str,
    layout: &Arc<MapLayout>,
    len: usize,
    stream: CUstream,
) -> Option<CUdeviceptr> {
    let mut guard = table();
    let t = guard.as_mut()?;
    if let Some(b) = t.buffers.get(&(ctx, func)) {
        return (b.len == len).then_some(b.device);
    }
    let (alloc, memset, sync, get_dev) = (
        d.cuMemAlloc?,
        d.cuMemsetD8Async?,
        d.cuStreamSynchronize?,
        d.cuCtxGetDevice?,
    );
    let mut device: CUdeviceptr = 0;
    let mut dev: CUdevice = 0;
    // SAFETY: out-pointers; the zeroing covers the allocation and completes before use.
    let ok = unsafe {
        alloc(&mut device, len) == CUDA_SUCCESS
            && memset(device, 0, len, stream) == CUDA_SUCCESS
            && sync(stream) == CUDA_SUCCESS
            && get_dev(&mut dev) == CUDA_SUCCESS
    };
    if !ok {
        return None;
    }
    static AT_EXIT: Once = Once::new();
    // SAFETY: registering a plain extern "C" fn with no arguments.
    AT_EXIT.call_once(|| unsafe {
        libc::atexit(flush_at_exit);
    });
    config::verbose(format_args!(
        "{name}: one resident map buffer ({len} B) for all its launches, read back at context \
         teardown or exit"
    ));
    t.buffers.insert(
        (ctx, func),
        Buffer {
            device,
            len,
            dev,
            layout: layout.clone(),
            launches: 0,
            name: name.to_string(),
        },
    );
    Some(device)
}

/// Counts a launch made with the resident buffer of (`ctx`, `func`).
pub(crate) fn launched(ctx: usize, func: usize) {
    if let Some(b) = table()
        .as_mut()
        .and_then(|t| t.buffers.get_mut(&(ctx, func)))
    {
        b.launches += 1;
    }
}

/// Launches made with resident buffers that could not be read back.
static LOST: AtomicU64 = AtomicU64::new(0);

/// Launches made with resident buffers that are not (or could not be) read back: lost if
/// the process ends now.
pub(crate) fn lost() -> u64 {
    let unread: u64 = table()
        .as_ref()
        .map_or(0, |t| t.buffers.values().map(|b| b.launches).sum());
    unread + LOST.load(Ordering::Acquire)
}

/// Reads back and merges every resident buffer whose (context, device) `which` selects,
/// and forgets it (a later launch in a context that lives on starts a fresh one). The
/// launches of a buffer that cannot be read are counted [`lost`], with a warning.
pub(crate) fn flush(d: &Driver, which: impl Fn(usize, CUdevice) -> bool) {
    let taken: Vec<((usize, usize), Buffer)> = {
        let mut guard = table();
        let Some(t) = guard.as_mut() else { return };
        let keys: Vec<(usize, usize)> = t
            .buffers
            .iter()
            .filter(|((ctx, _), b)| which(*ctx, b.dev))
            .map(|(k, _)| *k)
            .collect();
        keys.into_iter()
            .filter_map(|k| t.buffers.remove(&k).map(|b| (k, b)))
            .collect()
    };
    if taken.is_empty() {
        return;
    }
    let previous = crate::instrument::current_context(d);
    for ((ctx, _), b) in taken {
        if b.launches == 0 {
            continue;
        }
        match read(d, ctx, &b) {
            Some(bytes) => {
                // Detached or not (a detach reads the buffers back, `live.rs`).
                if let Some(cfg) = config::loaded() {
                    state::aggregator().merge_launch(
                        cfg.program.program(),
                        &b.layout,
                        None,
                        &bytes,
                    );
                }
                config::verbose(format_args!(
                    "{}: resident map buffer read back ({} launches)",
                    b.name, b.launches
                ));
            }
            None => {
                LOST.fetch_add(b.launches, Ordering::AcqRel);
                config::warn(format_args!(
                    "{}: the resident map buffer could not be read back; its {} launches are \
                     lost",
                    b.name, b.launches
                ));
            }
        }
    }
    if let Some(set) = d.cuCtxSetCurrent {
        // SAFETY: the context that was current before (or null).
        unsafe { set(previous as CUcontext) };
    }
}

/// Synchronizes `ctx` and copies `b` to the host.
fn read(d: &Driver, ctx: usize, b: &Buffer) -> Option<Vec<u8>> {
    let (set, sync, copy) = (d.cuCtxSetCurrent?, d.cuCtxSynchronize?, d.cuMemcpyDtoH?);
    let mut bytes = vec![0u8; b.len];
    // SAFETY: `ctx` is live (the caller is about to give it up, or the process is
    // exiting before the driver is torn down); the copy fits `bytes`.
    let ok = unsafe {
        set(ctx as CUcontext) == CUDA_SUCCESS
            && sync() == CUDA_SUCCESS
            && copy(bytes.as_mut_ptr().cast::<c_void>(), b.device, b.len) == CUDA_SUCCESS
    };
    ok.then_some(bytes)
}

/// Reads back every buffer of this process (at exit, while the driver is still up).
pub(crate) fn flush_all() {
    let _ = std::panic::catch_unwind(|| {
        if let Some(d) = crate::driver::driver() {
            flush(d, |_, _| true);
        }
    });
}

/// Before the CUDA libraries' own exit handlers.
extern "C" fn flush_at_exit() {
    flush_all();
}
