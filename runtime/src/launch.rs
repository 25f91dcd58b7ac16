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
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use warptrace_ir::{LaunchDims, MapLayout, Program};
use warptrace_verifier::{prove_launch, LaunchShape};

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
    /// Made with `cuLaunchCooperativeKernel(_ptsz)` (no `extra`).
    pub cooperative: bool,
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
        if self.cooperative {
            let f = if self.per_thread {
                d.cuLaunchCooperativeKernel_ptsz
            } else {
                d.cuLaunchCooperativeKernel
            };
            return match f {
                // SAFETY: as below; cooperative launches take no `extra` (always null here).
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
                    )
                },
                None => 500,
            };
        }
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

    /// The launch's grid and block dimensions, from its arguments or its config.
    fn shape(&self) -> LaunchShape {
        if self.config.is_null() {
            return LaunchShape {
                grid: self.grid,
                block: self.block,
            };
        }
        // SAFETY: config is the caller's valid CUlaunchConfig.
        let c = unsafe { &*self.config };
        LaunchShape {
            grid: [c.gridDimX, c.gridDimY, c.gridDimZ],
            block: [c.blockDimX, c.blockDimY, c.blockDimZ],
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
    if !cfg.launches.admit(&info.name) {
        state::tables().launch(&info.name, false, Some(Reason::NotSelected));
        // SAFETY: forwarding.
        return unsafe { l.original(d) };
    }
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
    dims: LaunchDims,
}

/// The process's instrumented launches so far: the `launch` builtin is this count at the
/// launch (1-based, in the order the host made them).
static LAUNCHES: AtomicU64 = AtomicU64::new(0);

/// Whether each (instrumented function, shape) passed `prove_launch`.
static PROVED: Mutex<Option<HashMap<(usize, LaunchShape), bool>>> = Mutex::new(None);

/// The (offset, value) words to write before a launch, the buffer's size, the launch's
/// dimensions.
type Header = (Vec<(u64, u64)>, u64, LaunchDims);

/// What the runtime writes into a zeroed buffer before a launch of `shape` of the
/// instrumented function `func`: (offset, value) words — each array's records offset, the
/// `launch` word when `reads_launch` — the buffer's size and the launch's dimensions.
/// `Err` when the verifier refutes the launch's array regions (they would not fit in
/// 64 bits); the launch then runs uninstrumented.
fn header(
    program: &Program,
    reads_launch: bool,
    func: usize,
    layout: &MapLayout,
    shape: LaunchShape,
) -> Result<Header, Reason> {
    let dims = LaunchDims {
        blocks: shape.grid.iter().map(|&g| u64::from(g)).product(),
        threads_per_block: shape.block.iter().fold(1u32, |a, &b| a.saturating_mul(b)),
    };
    let launch = layout.for_launch(dims);
    let mut words: Vec<(u64, u64)> = layout
        .regions
        .iter()
        .zip(&launch.array_offsets)
        .filter_map(|(r, o)| o.map(|o| (r.slots_offset, o)))
        .collect();
    if !words.is_empty() {
        let mut proved = PROVED.lock().unwrap_or_else(|p| p.into_inner());
        let ok = *proved
            .get_or_insert_with(HashMap::new)
            .entry((func, shape))
            .or_insert_with(|| {
                prove_launch(program, shape)
                    .iter()
                    .all(|o| o.verdict.is_proved())
            });
        if !ok {
            return Err(Reason::ArrayBounds);
        }
    }
    let n = LAUNCHES.fetch_add(1, Ordering::Relaxed) + 1;
    if reads_launch {
        words.push((layout.launch_offset, n));
    }
    Ok((words, launch.total_bytes, dims))
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
    let (words, bytes, dims) = header(
        cfg.program.program(),
        cfg.reads_launch,
        probed.func,
        &probed.layout,
        l.shape(),
    )
    .map_err(Some)?;
    let bytes = usize::try_from(bytes).map_err(|_| Some(Reason::MapAlloc))?;
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
    // SAFETY: host is a pinned buffer of `bytes` that nothing else uses until it is given
    // back; device a live allocation of `bytes`.
    let ok = ok && unsafe { write_words(d, &host, device, &words, stream) };
    if !ok {
        free_async(d, device, stream);
        host.give();
        return Err(Some(Reason::MapAlloc));
    }
    Ok(Plan {
        probed,
        device,
        host,
        dims,
    })
}

/// Writes `words` (offset, value) into the zeroed device buffer, each through its place
/// in the pinned host buffer (stream-ordered copies; the read-back overwrites them later).
///
/// # Safety
/// `host` and `device` span the whole buffer; every offset is below its size minus 8.
unsafe fn write_words(
    d: &Driver,
    host: &HostBuf,
    device: CUdeviceptr,
    words: &[(u64, u64)],
    stream: CUstream,
) -> bool {
    let Some(copy) = d.cuMemcpyHtoDAsync else {
        return words.is_empty();
    };
    words.iter().all(|&(offset, value)| {
        let Ok(at) = usize::try_from(offset) else {
            return false;
        };
        if at.checked_add(8).is_none_or(|end| end > host.len) {
            return false;
        }
        // SAFETY: `at + 8 <= len` inside the pinned buffer; unaligned-safe write.
        unsafe {
            let p = (host.ptr as *mut u8).add(at);
            std::ptr::write_unaligned(p.cast::<u64>(), value);
            copy(device + offset, p.cast::<c_void>(), 8, stream) == CUDA_SUCCESS
        }
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
    let bytes = plan.host.len;
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
        dims: plan.dims,
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
    dims: LaunchDims,
}

/// The host callback: decode and merge, return the buffer. Makes no CUDA calls.
unsafe extern "C" fn on_readback(user: *mut c_void) {
    let _ = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: user is the Box leaked in execute, handed to exactly one callback.
        let rb = unsafe { Box::from_raw(user.cast::<Readback>()) };
        // SAFETY: the stream-ordered copy into this buffer completed before this callback.
        let bytes = unsafe { std::slice::from_raw_parts(rb.host.ptr as *const u8, rb.host.len) };
        state::aggregator().merge_buffer(&rb.layout, rb.dims, bytes);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn program(src: &str) -> Program {
        warptrace_verifier::verify_program(&warptrace_lang::compile(src, "t.wt").expect("compiles"))
            .expect("verifies")
            .program()
            .clone()
    }

    #[test]
    fn the_header_places_each_array_and_numbers_the_launch() {
        let p = program(
            "map @t: array(per = thread, slots = 2);\n\
             map @w: array(per = warp, slots = 1);\n\
             kernel:entry { @t = (clock64, launch); }\n\
             warp kernel:exit { @w = (smid); @n[kernel] = count(); }",
        );
        let layout = MapLayout::new(&p.maps);
        let shape = LaunchShape {
            grid: [3, 2, 1],
            block: [64, 2, 1],
        };
        let (words, bytes, dims) =
            header(&p, instrument::reads_launch(&p), 1, &layout, shape).expect("proved");
        assert_eq!(dims.blocks, 6);
        assert_eq!(dims.threads_per_block, 128);
        let expected = layout.for_launch(dims);
        assert_eq!(bytes, expected.total_bytes);
        // 6 blocks × 128 threads × 2 slots × 24 bytes, then 6 × 4 warps × 1 × 16.
        assert_eq!(bytes, layout.total_bytes + 6 * 128 * 2 * 24 + 6 * 4 * 16);
        let arrays: Vec<(u64, u64)> = layout
            .regions
            .iter()
            .zip(&expected.array_offsets)
            .filter_map(|(r, o)| o.map(|o| (r.slots_offset, o)))
            .collect();
        assert_eq!(arrays.len(), 2);
        assert_eq!(words[..2], arrays[..]);
        let (at, n) = words[2];
        assert_eq!(at, layout.launch_offset);
        // Launches are numbered from 1 in the order they are made.
        let (again, ..) =
            header(&p, instrument::reads_launch(&p), 1, &layout, shape).expect("proved");
        assert!(n >= 1 && again[2].1 > n, "{n} then {}", again[2].1);
    }

    #[test]
    fn a_launch_whose_arrays_overflow_is_refused() {
        let p =
            program("map @t: array(per = thread, slots = 64);\nkernel:entry { @t = (clock64); }");
        let layout = MapLayout::new(&p.maps);
        let huge = LaunchShape {
            grid: [u32::MAX, 65535, 65535],
            block: [1024, 1, 1],
        };
        assert_eq!(
            header(&p, instrument::reads_launch(&p), 2, &layout, huge).map(|_| ()),
            Err(Reason::ArrayBounds)
        );
    }

    #[test]
    fn without_arrays_or_launch_nothing_is_written() {
        let p = program("kernel:entry { @n[kernel] = count(); }");
        let layout = MapLayout::new(&p.maps);
        let shape = LaunchShape {
            grid: [1, 1, 1],
            block: [32, 1, 1],
        };
        let (words, bytes, _) =
            header(&p, instrument::reads_launch(&p), 3, &layout, shape).expect("no arrays");
        assert!(words.is_empty());
        assert_eq!(bytes, layout.total_bytes);
    }
}
