//! Launches captured into a CUDA graph (stream capture): every replay of the graph is
//! probed and read back, without the application synchronizing.
//!
//! A launch on a capturing stream (global, thread-local or relaxed mode) is captured as
//! the nodes of a probed launch, in stream order: the map buffer zeroed, its fixed header
//! words written (32-bit memsets, whose values are part of the node), a host node
//! ([`replay_begins`]) that selects and numbers the replay, with copies of that number into
//! the buffer when the program reads `launch`, the instrumented kernel with the map pointer
//! appended, a copy of the buffer into its pinned host half, and a host node
//! ([`replayed`]) that merges that half into the host maps and counts a probed launch (or,
//! for a replay not selected, an unprobed one). So replays are launches: numbered,
//! selected and counted one by one, and the report has every selected replay's maps.
//!
//! The buffer belongs to the graph: never pooled, reused by another launch or freed (a
//! graph may be replayed until the process exits); it counts against `--map-memory`. A
//! graph executable's launches are ordered behind its earlier launches (the driver's
//! contract for `cuGraphLaunch`), so two replays never write it at once. Two executables
//! instantiated from one captured graph would share it: their maps stay memory-safe but
//! may interleave. (Kernel nodes added to a graph explicitly are `graphs.rs`'s.)
//!
//! While a capture in global mode is underway the driver refuses, and invalidates the
//! capture for, allocation, synchronization and module loading from any thread whose
//! capture mode is not relaxed. warptrace's own such calls on a launch path run with the
//! thread's mode exchanged to relaxed ([`Relaxed`]), as CUDA-aware allocators do; the
//! drain thread runs relaxed for good.

use crate::config::{self, Config};
use crate::driver::{CuResult, Driver, CUDA_SUCCESS};
use crate::map_buf::MapBuf;
use crate::state;
use cudarc::driver::sys::CUstream;
use std::ffi::{c_int, c_void};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use warptrace_ir::{LaunchDims, MapLayout};

/// `CU_STREAM_CAPTURE_MODE_RELAXED`.
const MODE_RELAXED: c_int = 2;
/// `CU_STREAM_CAPTURE_STATUS_ACTIVE`.
pub(crate) const STATUS_ACTIVE: c_int = 1;

/// This thread's stream-capture mode set to relaxed while it lives, then put back.
pub(crate) struct Relaxed<'a> {
    d: &'a Driver,
    old: Option<c_int>,
}

impl<'a> Relaxed<'a> {
    pub(crate) fn new(d: &'a Driver) -> Relaxed<'a> {
        let old = d.cuThreadExchangeStreamCaptureMode.and_then(|exchange| {
            let mut mode = MODE_RELAXED;
            // SAFETY: an in/out pointer to a mode.
            (unsafe { exchange(&mut mode) } == CUDA_SUCCESS).then_some(mode)
        });
        Relaxed { d, old }
    }

    /// Relaxed for the rest of this thread's life (the drain thread).
    pub(crate) fn for_good(self) {
        std::mem::forget(self);
    }
}

impl Drop for Relaxed<'_> {
    fn drop(&mut self) {
        if let (Some(mut mode), Some(exchange)) =
            (self.old, self.d.cuThreadExchangeStreamCaptureMode)
        {
            // SAFETY: an in/out pointer to the mode found at `new`.
            unsafe { exchange(&mut mode) };
        }
    }
}

/// Whether `stream` is capturing: `Ok(true)` while a capture is active, `Err` when it was
/// invalidated (the launch then runs the original).
pub(crate) fn status(d: &Driver, stream: CUstream) -> Result<bool, ()> {
    let Some(is_capturing) = d.cuStreamIsCapturing else {
        return Ok(false);
    };
    let mut status: c_int = 0;
    // SAFETY: the application's stream; status is an out-pointer.
    let rc = unsafe { is_capturing(stream, &mut status) };
    match (rc, status) {
        (CUDA_SUCCESS, 0) => Ok(false),
        (CUDA_SUCCESS, STATUS_ACTIVE) => Ok(true),
        _ => Err(()),
    }
}

/// What a captured launch's two host nodes share at each replay. Leaked: the graph may
/// call them until the process ends.
pub(crate) struct Slot {
    name: Arc<str>,
    layout: Arc<MapLayout>,
    dims: LaunchDims,
    host: usize,
    len: usize,
    /// Where the `launch` word goes when the program reads it (else empty).
    launch_words: Vec<u64>,
    /// This replay is selected (`--launch-skip`, `--launch-count`, `--sample`).
    selected: AtomicBool,
}

impl Slot {
    /// The slot of a launch captured with `buf`, leaked.
    pub(crate) fn new(
        name: &str,
        layout: &Arc<MapLayout>,
        dims: LaunchDims,
        buf: &MapBuf,
        cfg: &Config,
    ) -> &'static Slot {
        let launch_words = if cfg.reads_launch {
            crate::launch::launch_words(layout).collect()
        } else {
            Vec::new()
        };
        Box::leak(Box::new(Slot {
            name: name.into(),
            layout: layout.clone(),
            dims,
            host: buf.ptr,
            len: buf.len,
            launch_words,
            selected: AtomicBool::new(false),
        }))
    }
}

/// Captures, before the instrumented kernel's node on `stream`, the host node that selects
/// and numbers each replay ([`replay_begins`]) and, when the program reads `launch`, the
/// copies of that number from the buffer's host half into its device half. `false` if any
/// could not be captured.
///
/// # Safety
/// `buf`'s halves span `buf.len` bytes, the launch words inside; `stream` is capturing.
pub(crate) unsafe fn replay_nodes(
    d: &Driver,
    stream: CUstream,
    buf: &MapBuf,
    slot: &'static Slot,
) -> bool {
    let (Some(host_func), Some(copy)) = (d.cuLaunchHostFunc, d.cuMemcpyHtoDAsync) else {
        return false;
    };
    let user = (slot as *const Slot).cast_mut().cast();
    // SAFETY: `replay_begins` takes the leaked slot, which lives for the process.
    if unsafe { host_func(stream, Some(replay_begins), user) } != CUDA_SUCCESS {
        return false;
    }
    slot.launch_words.iter().all(|&offset| {
        // SAFETY: 8 bytes at `offset` inside both halves; a copy node reads the pinned
        // host half when it runs, after `replay_begins` wrote it.
        unsafe {
            copy(
                buf.device + offset,
                (buf.ptr as u64 + offset) as *const c_void,
                8,
                stream,
            ) == CUDA_SUCCESS
        }
    })
}

/// A captured launch's first host node, at each replay: decides whether this replay is
/// selected and numbers it, writing the number where the copies after it read it (the
/// host half is not in use: the last replay's read-back is done, in stream order). Makes
/// no CUDA call.
extern "C" fn replay_begins(user: *mut c_void) {
    let _ = std::panic::catch_unwind(|| {
        // SAFETY: `user` is the leaked `Slot` of `replay_nodes`.
        let slot = unsafe { &*(user as *const Slot) };
        let selected = config::config().is_some_and(|c| c.launches.admit(&slot.name));
        slot.selected.store(selected, Ordering::Release);
        let n = crate::launch::next_launch();
        for &offset in &slot.launch_words {
            if offset + 8 <= slot.len as u64 {
                // SAFETY: 8 bytes inside the pinned host half, which nothing else uses now.
                unsafe { ((slot.host as u64 + offset) as *mut u64).write_unaligned(n) };
            }
        }
    });
}

/// Captures, after the instrumented kernel's node on `stream`, the copy of `buf` into its
/// host half and the host node that merges it at every replay. `false` if either could
/// not be captured (the capture may then hold a kernel node whose maps never come back:
/// the launch is counted unprobed by the caller).
///
/// # Safety
/// `buf`'s halves span `buf.len` bytes; `stream` is capturing.
pub(crate) unsafe fn read_back_nodes(
    d: &Driver,
    stream: CUstream,
    buf: MapBuf,
    slot: &'static Slot,
    name: &str,
) -> bool {
    let (Some(copy), Some(host_func)) = (d.cuMemcpyDtoHAsync, d.cuLaunchHostFunc) else {
        return false;
    };
    // SAFETY: both halves span `len` bytes; the copy becomes a node of the graph.
    if unsafe { copy(buf.ptr as *mut c_void, buf.device, buf.len, stream) } != CUDA_SUCCESS {
        return false;
    }
    let user = (slot as *const Slot).cast_mut().cast();
    // SAFETY: `replayed` takes the leaked slot, which lives for the process.
    let rc: CuResult = unsafe { host_func(stream, Some(replayed), user) };
    if rc != CUDA_SUCCESS {
        return false;
    }
    state::tables().captured(name);
    // `buf` is never given back to the pool: it is the graph's from now on (module docs).
    true
}

/// A captured launch's last host node, at each replay: the kernel and the copy before it
/// in the graph are done, so the host half holds this replay's maps, merged if the replay
/// was selected. Makes no CUDA call.
extern "C" fn replayed(user: *mut c_void) {
    let _ = std::panic::catch_unwind(|| {
        // SAFETY: `user` is the leaked `Slot` of `replay_nodes`.
        let slot = unsafe { &*(user as *const Slot) };
        if !slot.selected.load(Ordering::Acquire) {
            state::tables().launch(&slot.name, false, Some(crate::report::Reason::NotSelected));
            return;
        }
        // SAFETY: the pinned host half of the graph's buffer, `len` bytes, written by the
        // copy node that precedes this one.
        unsafe { merge_replay(&slot.name, &slot.layout, slot.dims, slot.host, slot.len) };
    });
}

/// Merges one replay of a graph's probed kernel node, whose maps are in the host half at
/// `host` (`len` bytes), and counts it a probed launch (also `graph_launch.rs`'s).
///
/// # Safety
/// `host` spans `len` bytes that nothing writes meanwhile.
pub(crate) unsafe fn merge_replay(
    name: &str,
    layout: &MapLayout,
    dims: LaunchDims,
    host: usize,
    len: usize,
) {
    // SAFETY: as the caller's contract.
    let bytes = unsafe { std::slice::from_raw_parts(host as *const u8, len) };
    state::aggregator().merge_buffer(layout, dims, bytes);
    state::tables().launch(name, true, None);
}
