//! The HIP launch path, the CUDA one's counterpart: decide, allocate and zero a map
//! buffer on the launch's stream (`hipMallocAsync` + `hipMemsetAsync`), launch the
//! instrumented function with the buffer's address appended to its arguments (one more
//! `kernelParams` entry, or the `extra` buffer extended to the map argument's offset),
//! copy the buffer back into a pinned host buffer (`hipMemcpyAsync`) and merge it from a
//! host function (`hipLaunchHostFunc`). Stream-ordered throughout; any failure runs the
//! original launch and is counted.

use super::ffi::{
    Dim3, Handle, Hip, HipError, HIP_ERROR_NOT_FOUND, HIP_SUCCESS, LAUNCH_PARAM_END,
    MEMCPY_DEVICE_TO_HOST, MEMCPY_HOST_TO_DEVICE,
};
use super::instrument::{self, Probed};
use super::state;
use crate::config::{self, Fault};
use crate::report::Reason;
use crate::state::IN_FLIGHT;
use std::ffi::{c_int, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use warptrace_ir::{LaunchDims, MapLayout};
use warptrace_verifier::LaunchShape;

mod buffers;
use buffers::HostBuf;

/// The entry point a launch came through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Api {
    /// `hipModuleLaunchKernel(hipFunction_t, …)`.
    Module,
    /// `hipLaunchKernel(host stub, …)` (also `<<<>>>`).
    Stub,
    /// `hipExtLaunchKernel(host stub, …, events, flags)`.
    ExtStub,
}

/// One intercepted launch.
#[derive(Debug, Clone, Copy)]
pub struct HipLaunch {
    /// Which entry point.
    pub api: Api,
    /// The `hipFunction_t` or the host stub.
    pub handle: usize,
    /// Grid (in blocks).
    pub grid: Dim3,
    /// Block.
    pub block: Dim3,
    /// Dynamic shared memory.
    pub shared: usize,
    /// The stream.
    pub stream: Handle,
    /// `kernelParams` / `args`.
    pub params: *mut *mut c_void,
    /// `extra` (`hipModuleLaunchKernel` only).
    pub extra: *mut *mut c_void,
    /// Start and stop events (`hipExtLaunchKernel`).
    pub events: (Handle, Handle),
    /// Flags (`hipExtLaunchKernel`).
    pub flags: c_int,
}

impl HipLaunch {
    /// The original launch, untouched.
    unsafe fn original(&self, hip: &Hip) -> HipError {
        let (g, b) = (self.grid, self.block);
        match self.api {
            // SAFETY (all three): exactly the caller's arguments.
            Api::Module => match hip.module_launch_kernel {
                Some(f) => unsafe {
                    f(
                        self.handle as Handle,
                        g.x,
                        g.y,
                        g.z,
                        b.x,
                        b.y,
                        b.z,
                        self.shared as u32,
                        self.stream,
                        self.params,
                        self.extra,
                    )
                },
                None => HIP_ERROR_NOT_FOUND,
            },
            Api::Stub => match hip.launch_kernel {
                Some(f) => unsafe {
                    f(
                        self.handle as *const c_void,
                        g,
                        b,
                        self.params,
                        self.shared,
                        self.stream,
                    )
                },
                None => HIP_ERROR_NOT_FOUND,
            },
            Api::ExtStub => match hip.ext_launch_kernel {
                Some(f) => unsafe {
                    f(
                        self.handle as *const c_void,
                        g,
                        b,
                        self.params,
                        self.shared,
                        self.stream,
                        self.events.0,
                        self.events.1,
                        self.flags,
                    )
                },
                None => HIP_ERROR_NOT_FOUND,
            },
        }
    }

    /// The same launch of the instrumented `func` with `params` or `extra`.
    unsafe fn instrumented(
        &self,
        hip: &Hip,
        func: usize,
        params: *mut *mut c_void,
        extra: *mut *mut c_void,
    ) -> HipError {
        let (g, b) = (self.grid, self.block);
        if self.api == Api::ExtStub {
            // hipExtLaunchKernel's events and flags: its module-API twin takes the global
            // work size (grid × block).
            return match hip.ext_module_launch_kernel {
                // SAFETY: a module function with the caller's configuration.
                Some(f) => unsafe {
                    f(
                        func as Handle,
                        g.x.saturating_mul(b.x),
                        g.y.saturating_mul(b.y),
                        g.z.saturating_mul(b.z),
                        b.x,
                        b.y,
                        b.z,
                        self.shared,
                        self.stream,
                        params,
                        extra,
                        self.events.0,
                        self.events.1,
                        self.flags as u32,
                    )
                },
                None => HIP_ERROR_NOT_FOUND,
            };
        }
        match hip.module_launch_kernel {
            // SAFETY: a module function with the caller's configuration.
            Some(f) => unsafe {
                f(
                    func as Handle,
                    g.x,
                    g.y,
                    g.z,
                    b.x,
                    b.y,
                    b.z,
                    self.shared as u32,
                    self.stream,
                    params,
                    extra,
                )
            },
            None => HIP_ERROR_NOT_FOUND,
        }
    }
}

/// Intercepts one launch.
///
/// # Safety
/// The arguments are those the application passed to the HIP runtime.
pub unsafe fn launch(hip: &Hip, l: &HipLaunch) -> HipError {
    let Some(cfg) = config::config() else {
        // SAFETY: forwarding.
        return unsafe { l.original(hip) };
    };
    let func = state::tables().funcs.get(&l.handle).cloned();
    let Some(func) = func else {
        crate::state::OTHER_LAUNCHES.fetch_add(1, Ordering::Relaxed);
        // SAFETY: forwarding: not a selected kernel.
        return unsafe { l.original(hip) };
    };
    let tables = crate::state::tables;
    if !cfg.launches.admit(&func.name) {
        tables().launch(&func.name, false, Some(Reason::NotSelected));
        // SAFETY: forwarding.
        return unsafe { l.original(hip) };
    }
    match catch_unwind(AssertUnwindSafe(|| prepare(hip, cfg, l, &func))) {
        // SAFETY: the plan's buffers are live; the arguments extend the caller's.
        Ok(Ok(plan)) => unsafe { execute(hip, l, &func.name, plan) },
        Ok(Err(reason)) => {
            tables().launch(&func.name, false, reason.filter(|r| !r.is_kernel_level()));
            // SAFETY: forwarding.
            unsafe { l.original(hip) }
        }
        Err(_) => {
            tables().launch(&func.name, false, Some(Reason::LaunchError));
            // SAFETY: forwarding.
            unsafe { l.original(hip) }
        }
    }
}

struct Plan {
    probed: Arc<Probed>,
    device: usize,
    host: HostBuf,
    dims: LaunchDims,
    /// The `extra` form's kernarg bytes (explicit arguments, zeros, the map pointer).
    kernarg: Option<Box<crate::extra::Extended>>,
}

fn prepare(
    hip: &Hip,
    cfg: &config::Config,
    l: &HipLaunch,
    func: &state::HipFunc,
) -> Result<Plan, Option<Reason>> {
    if let Some(is_capturing) = hip.stream_is_capturing {
        let mut status: c_int = 0;
        // SAFETY: the application's stream; status is an out-pointer.
        let rc = unsafe { is_capturing(l.stream, &mut status) };
        if rc != HIP_SUCCESS || status != 0 {
            return Err(Some(Reason::Capture));
        }
    }
    let probed = instrument::probed(hip, cfg, l.handle, func).map_err(|_| None)?;
    let kernarg = if l.params.is_null() && !l.extra.is_null() {
        // SAFETY: the caller's extra array.
        let args = unsafe { crate::extra::read(l.extra, LAUNCH_PARAM_END) }.map_err(Some)?;
        let at = usize::try_from(probed.map_offset).map_err(|_| Some(Reason::ExtraParams))?;
        // The metadata gives no end of the explicit arguments: the caller's whole buffer
        // counts as theirs, and must not reach past the map argument's offset.
        // SAFETY: the caller's buffer of `args.size` bytes; refused if it passes `at`.
        let e = unsafe { crate::extra::Extended::new(args, args.size, at, 0, LAUNCH_PARAM_END) };
        Some(e.map_err(Some)?)
    } else if probed.params > 0 && l.params.is_null() {
        return Err(Some(Reason::ExtraParams));
    } else {
        None
    };
    let shape = LaunchShape {
        grid: [l.grid.x, l.grid.y, l.grid.z],
        block: [l.block.x, l.block.y, l.block.z],
    };
    // The CUDA path's words, proof of the array regions for this shape, and numbering.
    let (words, bytes, dims) = crate::launch::header(
        cfg.program.program(),
        cfg.reads_launch,
        probed.func,
        &probed.layout,
        shape,
    )
    .map_err(Some)?;
    let bytes = usize::try_from(bytes).map_err(|_| Some(Reason::MapAlloc))?;
    if cfg.fault == Some(Fault::Alloc) {
        return Err(Some(Reason::MapAlloc));
    }
    let host = HostBuf::take(hip, bytes).ok_or(Some(Reason::MapAlloc))?;
    let mut device: *mut c_void = std::ptr::null_mut();
    let ok = match (hip.malloc_async, hip.memset_async) {
        // SAFETY: stream-ordered allocation and zeroing of `bytes` on the launch's stream.
        (Some(alloc), Some(memset)) => unsafe {
            alloc(&mut device, bytes.max(8), l.stream) == HIP_SUCCESS
                && memset(device, 0, bytes, l.stream) == HIP_SUCCESS
        },
        _ => false,
    };
    // SAFETY: host and device span `bytes`.
    let ok = ok && unsafe { write_words(hip, &host, device, &words, l.stream) };
    if !ok {
        free_async(hip, device as usize, l.stream);
        host.give();
        return Err(Some(Reason::MapAlloc));
    }
    Ok(Plan {
        probed,
        device: device as usize,
        host,
        dims,
        kernarg,
    })
}

/// Writes `words` (offset, value) into the device buffer through the pinned buffer.
///
/// # Safety
/// `host` and `device` span the whole buffer.
unsafe fn write_words(
    hip: &Hip,
    host: &HostBuf,
    device: *mut c_void,
    words: &[(u64, u64)],
    stream: Handle,
) -> bool {
    let Some(copy) = hip.memcpy_async else {
        return words.is_empty();
    };
    let send = |offset: u64, p: *const c_void| {
        // SAFETY: `offset + 8` is inside the device buffer, as inside the host one.
        unsafe {
            let dst = device.cast::<u8>().add(offset as usize).cast();
            copy(dst, p, 8, MEMCPY_HOST_TO_DEVICE, stream) == HIP_SUCCESS
        }
    };
    // SAFETY: `host` spans the buffer, which nothing else uses yet.
    unsafe { crate::staging::stage_words(host.ptr, host.len, words, send) }
}

fn free_async(hip: &Hip, device: usize, stream: Handle) {
    if let (true, Some(free)) = (device != 0, hip.free_async) {
        // SAFETY: device came from hipMallocAsync on this stream.
        unsafe { free(device as *mut c_void, stream) };
    }
}

unsafe fn execute(hip: &Hip, l: &HipLaunch, name: &str, mut plan: Plan) -> HipError {
    let mut device = plan.device;
    let rc = match plan.kernarg.as_mut() {
        Some(e) => {
            e.set_map(device as u64);
            // SAFETY: the instrumented function with the extended kernarg buffer.
            unsafe { l.instrumented(hip, plan.probed.func, std::ptr::null_mut(), e.as_extra()) }
        }
        None => {
            let n = plan.probed.params as usize;
            let mut params: Vec<*mut c_void> = Vec::with_capacity(n + 1);
            for i in 0..n {
                // SAFETY: the caller's kernelParams has one entry per explicit argument.
                params.push(unsafe { *l.params.add(i) });
            }
            params.push((&raw mut device).cast());
            // SAFETY: the instrumented function, the arguments extended by the map pointer.
            unsafe {
                l.instrumented(
                    hip,
                    plan.probed.func,
                    params.as_mut_ptr(),
                    std::ptr::null_mut(),
                )
            }
        }
    };
    if rc != HIP_SUCCESS {
        config::verbose(format_args!(
            "{name}: instrumented launch failed (error {rc})"
        ));
        free_async(hip, plan.device, l.stream);
        plan.host.give();
        crate::state::tables().launch(name, false, Some(Reason::LaunchError));
        // SAFETY: forwarding.
        return unsafe { l.original(hip) };
    }
    crate::state::tables().launch(name, true, None);
    let copied = match hip.memcpy_async {
        // SAFETY: host is a pinned buffer of `len`, device a live allocation of it.
        Some(copy) => unsafe {
            copy(
                plan.host.ptr as *mut c_void,
                plan.device as *const c_void,
                plan.host.len,
                MEMCPY_DEVICE_TO_HOST,
                l.stream,
            ) == HIP_SUCCESS
        },
        None => false,
    };
    free_async(hip, plan.device, l.stream);
    if !copied {
        plan.host.give();
        crate::state::tables().count(Reason::LaunchError);
        return rc;
    }
    let user = Box::into_raw(Box::new(Readback {
        host: plan.host,
        layout: plan.probed.layout.clone(),
        dims: plan.dims,
    }));
    IN_FLIGHT.fetch_add(1, Ordering::AcqRel);
    let queued = match hip.launch_host_func {
        // SAFETY: on_readback takes ownership of `user` exactly once.
        Some(f) => unsafe { f(l.stream, Some(on_readback), user.cast()) == HIP_SUCCESS },
        None => false,
    };
    if !queued {
        // The copy may still be writing into the buffer: leak it rather than reuse it.
        IN_FLIGHT.fetch_sub(1, Ordering::AcqRel);
        crate::state::tables().count(Reason::LaunchError);
    }
    rc
}

struct Readback {
    host: HostBuf,
    layout: Arc<MapLayout>,
    dims: LaunchDims,
}

/// The host function: decode and merge, return the buffer. Makes no HIP call.
unsafe extern "C" fn on_readback(user: *mut c_void) {
    let _ = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: user is the Box leaked in execute, handed to exactly one callback.
        let rb = unsafe { Box::from_raw(user.cast::<Readback>()) };
        // SAFETY: the stream-ordered copy into this buffer completed before this call.
        let bytes = unsafe { std::slice::from_raw_parts(rb.host.ptr as *const u8, rb.host.len) };
        crate::state::aggregator().merge_buffer(&rb.layout, rb.dims, bytes);
        rb.host.give();
        IN_FLIGHT.fetch_sub(1, Ordering::AcqRel);
    }));
}
