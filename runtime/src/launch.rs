//! The launch path: decide, allocate a zeroed map buffer on the launch's stream, launch the
//! instrumented function with the buffer as an extra parameter, copy the buffer back into a
//! pinned host buffer and hand it to the aggregator from a host callback. Stream-ordered
//! throughout: no device synchronization.

use crate::config::{self, Fault};
use crate::driver::{CuResult, Driver, CUDA_SUCCESS};
use crate::instrument::{self, Probed};
use crate::report::Reason;
use crate::state::{self, IN_FLIGHT};
use cudarc::driver::sys::{CUdeviceptr, CUfunction, CUlaunchConfig, CUstream};
use std::collections::HashMap;
use std::ffi::{c_int, c_uint, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use warptrace_ir::MapLayout;

/// `CU_STREAM_PER_THREAD`.
const STREAM_PER_THREAD: usize = 2;

/// One intercepted launch, either form.
#[derive(Debug, Clone, Copy)]
pub struct Launch {
    /// The function (or kernel) handle.
    pub func: CUfunction,
    /// Grid dimensions (`cuLaunchKernel` only).
    pub grid: [c_uint; 3],
    /// Block dimensions (`cuLaunchKernel` only).
    pub block: [c_uint; 3],
    /// Dynamic shared memory (`cuLaunchKernel` only).
    pub shared: c_uint,
    /// The stream (for `cuLaunchKernelEx`, the config's).
    pub stream: CUstream,
    /// `kernelParams`.
    pub params: *mut *mut c_void,
    /// `extra`.
    pub extra: *mut *mut c_void,
    /// The launch config of `cuLaunchKernelEx`, null for `cuLaunchKernel`.
    pub config: *const CUlaunchConfig,
    /// Called through a `_ptsz` entry point.
    pub per_thread: bool,
}

impl Launch {
    /// Launches `func` with `params` the way this launch was made (same entry point,
    /// same config).
    unsafe fn run(
        &self,
        d: &Driver,
        func: CUfunction,
        params: *mut *mut c_void,
        extra: *mut *mut c_void,
    ) -> CuResult {
        let [gx, gy, gz] = self.grid;
        let [bx, by, bz] = self.block;
        if self.config.is_null() {
            let f = if self.per_thread {
                d.cuLaunchKernel_ptsz
            } else {
                d.cuLaunchKernel
            };
            match f {
                // SAFETY: the caller's own arguments, with a function of the same signature
                // plus (possibly) one trailing pointer parameter.
                Some(f) => unsafe {
                    f(
                        func,
                        gx,
                        gy,
                        gz,
                        bx,
                        by,
                        bz,
                        self.shared,
                        self.stream,
                        params,
                        extra,
                    )
                },
                None => 500,
            }
        } else {
            let f = if self.per_thread {
                d.cuLaunchKernelEx_ptsz
            } else {
                d.cuLaunchKernelEx
            };
            // SAFETY: config is the caller's valid CUlaunchConfig; copied so attributes and
            // dimensions stay exactly the caller's.
            let config = unsafe { *self.config };
            match f {
                // SAFETY: as above.
                Some(f) => unsafe { f(&config, func, params, extra) },
                None => 500,
            }
        }
    }

    /// The stream our own stream-ordered calls use: the per-thread default stream when a
    /// `_ptsz` launch names the null stream.
    fn ordered_stream(&self) -> CUstream {
        if self.stream.is_null() && self.per_thread {
            STREAM_PER_THREAD as CUstream
        } else {
            self.stream
        }
    }

    /// The original launch, untouched.
    unsafe fn original(&self, d: &Driver) -> CuResult {
        // SAFETY: exactly the caller's arguments.
        unsafe { self.run(d, self.func, self.params, self.extra) }
    }
}

/// Intercepts one launch.
///
/// # Safety
/// The arguments are those the application passed to the driver.
pub unsafe fn launch(d: &Driver, l: &Launch) -> CuResult {
    let Some(cfg) = config::config() else {
        // SAFETY: forwarding.
        return unsafe { l.original(d) };
    };
    let info = state::tables().funcs.get(&(l.func as usize)).cloned();
    let Some(info) = info else {
        // SAFETY: forwarding.
        return unsafe { l.original(d) }; // not a selected kernel
    };
    let plan = catch_unwind(AssertUnwindSafe(|| prepare(d, cfg, l, &info)));
    let plan = match plan {
        Ok(Ok(p)) => p,
        Ok(Err(reason)) => {
            let launch_level = reason.filter(|r| !r.is_kernel_level());
            state::tables().launch(&info.name, false, launch_level);
            // SAFETY: forwarding.
            return unsafe { l.original(d) };
        }
        Err(_) => {
            state::tables().launch(&info.name, false, Some(Reason::LaunchError));
            // SAFETY: forwarding.
            return unsafe { l.original(d) };
        }
    };
    // SAFETY: the plan's buffers are live; params extend the caller's.
    unsafe { execute(d, l, &info.name, plan) }
}

struct Plan {
    probed: Arc<Probed>,
    device: CUdeviceptr,
    host: HostBuf,
}

fn prepare(
    d: &Driver,
    cfg: &config::Config,
    l: &Launch,
    info: &state::FuncInfo,
) -> Result<Plan, Option<Reason>> {
    if !l.extra.is_null() {
        return Err(Some(Reason::ExtraParams));
    }
    let stream = l.ordered_stream();
    if let Some(is_capturing) = d.cuStreamIsCapturing {
        let mut status: c_int = 0;
        // SAFETY: the application's stream; status is an out-pointer.
        let rc = unsafe { is_capturing(stream, &mut status) };
        if rc != CUDA_SUCCESS || status != 0 {
            return Err(Some(Reason::Capture));
        }
    }
    let probed = instrument::probed(d, cfg, l.func as usize, info).map_err(|_| None)?;
    if probed.params > 0 && l.params.is_null() {
        return Err(Some(Reason::ExtraParams));
    }
    let bytes = probed.layout.total_bytes as usize;
    if cfg.fault == Some(Fault::Alloc) {
        return Err(Some(Reason::MapAlloc));
    }
    let host = HostBuf::take(d, bytes).ok_or(Some(Reason::MapAlloc))?;
    let mut device: CUdeviceptr = 0;
    let ok = match (d.cuMemAllocAsync, d.cuMemsetD8Async) {
        // SAFETY: stream-ordered allocation and zeroing of `bytes` on the launch's stream.
        (Some(alloc), Some(memset)) => unsafe {
            alloc(&mut device, bytes, stream) == CUDA_SUCCESS
                && memset(device, 0, bytes, stream) == CUDA_SUCCESS
        },
        _ => false,
    };
    if !ok {
        free_async(d, device, stream);
        host.give();
        return Err(Some(Reason::MapAlloc));
    }
    Ok(Plan {
        probed,
        device,
        host,
    })
}

fn free_async(d: &Driver, device: CUdeviceptr, stream: CUstream) {
    if device != 0 {
        if let Some(free) = d.cuMemFreeAsync {
            // SAFETY: device came from cuMemAllocAsync on this stream.
            unsafe { free(device, stream) };
        }
    }
}

unsafe fn execute(d: &Driver, l: &Launch, name: &str, plan: Plan) -> CuResult {
    let stream = l.ordered_stream();
    let n = plan.probed.params as usize;
    let mut device = plan.device;
    let mut params: Vec<*mut c_void> = Vec::with_capacity(n + 1);
    for i in 0..n {
        // SAFETY: the caller's kernelParams has one entry per original parameter.
        params.push(unsafe { *l.params.add(i) });
    }
    params.push((&raw mut device).cast());
    // SAFETY: same launch, instrumented function, parameter array extended by the map pointer.
    let rc = unsafe {
        l.run(
            d,
            plan.probed.func as CUfunction,
            params.as_mut_ptr(),
            std::ptr::null_mut(),
        )
    };
    if rc != CUDA_SUCCESS {
        config::verbose(format_args!(
            "{name}: instrumented launch failed (CUresult {rc})"
        ));
        free_async(d, plan.device, stream);
        plan.host.give();
        state::tables().launch(name, false, Some(Reason::LaunchError));
        // SAFETY: forwarding.
        return unsafe { l.original(d) };
    }
    state::tables().launch(name, true, None);
    let bytes = plan.probed.layout.total_bytes as usize;
    let copied = match d.cuMemcpyDtoHAsync {
        // SAFETY: host is a pinned buffer of `bytes`, device a live allocation of `bytes`.
        Some(copy) => unsafe {
            copy(plan.host.ptr as *mut c_void, plan.device, bytes, stream) == CUDA_SUCCESS
        },
        None => false,
    };
    free_async(d, plan.device, stream);
    if !copied {
        plan.host.give();
        state::tables().count(Reason::LaunchError);
        return rc;
    }
    let readback = Box::new(Readback {
        host: plan.host,
        layout: plan.probed.layout.clone(),
    });
    let user = Box::into_raw(readback);
    IN_FLIGHT.fetch_add(1, Ordering::AcqRel);
    let queued = match d.cuLaunchHostFunc {
        // SAFETY: on_readback takes ownership of `user` exactly once.
        Some(host_fn) => unsafe { host_fn(stream, Some(on_readback), user.cast()) == CUDA_SUCCESS },
        None => false,
    };
    if !queued {
        // The copy may still be writing into the buffer: leak it rather than reuse it.
        IN_FLIGHT.fetch_sub(1, Ordering::AcqRel);
        state::tables().count(Reason::LaunchError);
    }
    rc
}

struct Readback {
    host: HostBuf,
    layout: Arc<MapLayout>,
}

/// The host callback: decode and merge, return the buffer. Makes no CUDA calls.
unsafe extern "C" fn on_readback(user: *mut c_void) {
    let _ = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: user is the Box leaked in execute, handed to exactly one callback.
        let rb = unsafe { Box::from_raw(user.cast::<Readback>()) };
        // SAFETY: the stream-ordered copy into this buffer completed before this callback.
        let bytes = unsafe { std::slice::from_raw_parts(rb.host.ptr as *const u8, rb.host.len) };
        state::aggregator().merge_buffer(&rb.layout, bytes);
        rb.host.give();
        IN_FLIGHT.fetch_sub(1, Ordering::AcqRel);
    }));
}

/// A pinned host buffer from the pool.
#[derive(Debug)]
struct HostBuf {
    ptr: usize,
    len: usize,
}

/// Free pinned buffers by size. Never freed (`cuMemFreeHost` would synchronize); bounded by
/// the number of launches in flight at once.
static POOL: Mutex<Option<HashMap<usize, Vec<usize>>>> = Mutex::new(None);

impl HostBuf {
    fn take(d: &Driver, len: usize) -> Option<HostBuf> {
        let reused = POOL
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get_or_insert_with(HashMap::new)
            .get_mut(&len)
            .and_then(Vec::pop);
        if let Some(ptr) = reused {
            return Some(HostBuf { ptr, len });
        }
        let mut ptr: *mut c_void = std::ptr::null_mut();
        // SAFETY: ptr is an out-pointer; len > 0 for any program with maps.
        let rc = unsafe { d.cuMemAllocHost?(&mut ptr, len.max(8)) };
        (rc == CUDA_SUCCESS && !ptr.is_null()).then_some(HostBuf {
            ptr: ptr as usize,
            len,
        })
    }

    fn give(self) {
        POOL.lock()
            .unwrap_or_else(|p| p.into_inner())
            .get_or_insert_with(HashMap::new)
            .entry(self.len)
            .or_default()
            .push(self.ptr);
    }
}
