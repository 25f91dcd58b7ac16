//! The launch path: decide, take a pooled map buffer and zero it on the launch's stream,
//! launch the instrumented function with the buffer as an extra parameter, copy the buffer
//! back into its registered host half and record its event; the drain thread waits for
//! the event and hands the buffer to the aggregator. Stream-ordered throughout: no device
//! synchronization, nothing on the stream waits for the host
//! (`docs/decisions/0011-event-drained-read-back.md`).

use crate::config::{self, Fault};
use crate::driver::{CuResult, Driver, CUDA_SUCCESS};
use crate::extra::Extended;
use crate::instrument::{self, Probed};
use crate::map_buf::{MapBuf, WAIT};
use crate::report::Reason;
use crate::state::{self, IN_FLIGHT};
use cudarc::driver::sys::{CUcontext, CUdeviceptr, CUevent, CUfunction, CUlaunchConfig, CUstream};
use std::collections::HashMap;
use std::ffi::{c_uint, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use warptrace_ir::{LaunchDims, MapLayout, Program};
use warptrace_verifier::{prove_launch, LaunchShape};

/// `CU_STREAM_PER_THREAD`.
const STREAM_PER_THREAD: usize = 2;

/// The stream stream-ordered calls use for `stream` named through a `_ptsz` entry point
/// (`per_thread`): the per-thread default stream in place of the null stream.
pub(crate) fn ordered(stream: CUstream, per_thread: bool) -> CUstream {
    if stream.is_null() && per_thread {
        STREAM_PER_THREAD as CUstream
    } else {
        stream
    }
}

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
        let stream = self.ordered_stream();
        TIMING.with_borrow_mut(|p| {
            if let Some(p) = p.as_mut() {
                crate::launch_probes::record_start(d, p, stream);
            }
        });
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
        ordered(self.stream, self.per_thread)
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

    /// Dynamic shared memory, from the arguments or the config.
    fn shared_bytes(&self) -> c_uint {
        if self.config.is_null() {
            return self.shared;
        }
        // SAFETY: config is the caller's valid CUlaunchConfig.
        unsafe { (*self.config).sharedMemBytes }
    }
}

/// Intercepts one launch: the `launch:*` host blocks around it (`launch_probes.rs`), the
/// probes in it.
///
/// # Safety
/// The arguments are those the application passed to the driver.
pub unsafe fn launch(d: &Driver, l: &Launch) -> CuResult {
    let Some(cfg) = config::config() else {
        // SAFETY: forwarding.
        return unsafe { l.original(d) };
    };
    if !crate::launch_probes::wanted(cfg) {
        // SAFETY: as the caller's contract.
        return unsafe { probed(d, cfg, l) };
    }
    let shape = l.shape();
    let stream = l.ordered_stream();
    let pending = catch_unwind(AssertUnwindSafe(|| {
        crate::launch_probes::before(
            d,
            cfg,
            l.func as usize,
            shape.grid,
            shape.block,
            l.shared_bytes(),
            stream,
        )
    }))
    .ok()
    .flatten();
    PROBED.set(false);
    TIMING.set(pending);
    // SAFETY: as the caller's contract.
    let rc = unsafe { probed(d, cfg, l) };
    if let Some(p) = TIMING.take() {
        let ran_probes = PROBED.get();
        let _ = catch_unwind(AssertUnwindSafe(|| {
            crate::launch_probes::after(d, p, stream, rc, ran_probes)
        }));
    }
    rc
}

thread_local! {
    /// Whether this thread's last launch ran the instrumented function (for the device
    /// time of the summary's reach, `launch_probes.rs`).
    static PROBED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// The launch being made on this thread, when `launch:end` blocks time it: its start
    /// is recorded in [`Launch::run`], right before the driver call.
    static TIMING: std::cell::RefCell<Option<crate::launch_probes::Pending>> =
        const { std::cell::RefCell::new(None) };
}

/// The launch itself: the instrumented function with its map buffer, or the original.
///
/// # Safety
/// As [`launch`]'s.
unsafe fn probed(d: &Driver, cfg: &'static config::Config, l: &Launch) -> CuResult {
    let info = state::tables().funcs.get(&(l.func as usize)).cloned();
    let Some(info) = info else {
        state::OTHER_LAUNCHES.fetch_add(1, Ordering::Relaxed);
        // SAFETY: forwarding.
        return unsafe { l.original(d) }; // not a selected kernel
    };
    // A captured launch is selected at each replay (`capture.rs`), not once here.
    let captured = crate::capture::status(d, l.ordered_stream());
    if captured != Ok(true) && !cfg.launches.admit(&info.name) {
        state::tables().launch(&info.name, false, Some(Reason::NotSelected));
        // SAFETY: forwarding.
        return unsafe { l.original(d) };
    }
    let plan = catch_unwind(AssertUnwindSafe(|| prepare(d, cfg, l, &info, captured)));
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
    buf: Buffer,
    dims: LaunchDims,
    /// The launch's arguments come through `extra`: them with room for the map pointer
    /// where the driver lays it out (`extra.rs`).
    extra: Option<Box<Extended>>,
}

/// A launch's map buffer: its own, read back after it, or the resident one its kernel's
/// launches share (`resident.rs`).
enum Buffer {
    Own(MapBuf),
    Resident {
        device: CUdeviceptr,
        ctx: usize,
    },
    /// The launch is being captured into a graph: the buffer is the graph's, the slot what
    /// its replays' host nodes share (`capture.rs`).
    Graph(MapBuf, &'static crate::capture::Slot),
}

/// The process's instrumented launches so far: the `launch` builtin is this count at the
/// launch (1-based, in the order the host made them).
static LAUNCHES: AtomicU64 = AtomicU64::new(0);

/// Whether each (instrumented function, shape) passed `prove_launch`.
static PROVED: Mutex<Option<HashMap<(usize, LaunchShape), bool>>> = Mutex::new(None);

/// The (offset, value) words to write before a launch, the buffer's size, the launch's
/// dimensions.
pub(crate) type Header = (Vec<(u64, u64)>, u64, LaunchDims);

/// What the runtime writes into a zeroed buffer before a launch of `shape` of the
/// instrumented function `func`: (offset, value) words — each array's records offset, the
/// `launch` word when `reads_launch` — the buffer's size and the launch's dimensions.
/// `Err` when the verifier refutes the launch's array regions (they would not fit in
/// 64 bits); the launch then runs uninstrumented. Shared by the CUDA and HIP launch paths
/// (the `launch` numbers count both).
pub(crate) fn header(
    program: &Program,
    reads_launch: bool,
    func: usize,
    layout: &MapLayout,
    shape: LaunchShape,
) -> Result<Header, Reason> {
    let mut header = regions(program, func, layout, shape)?;
    number(&mut header.0, layout, reads_launch);
    Ok(header)
}

/// [`header`] without the `launch` word: what is fixed for every launch of `shape` (a
/// graph's kernel node writes these at each replay, numbered then by [`number`]).
pub(crate) fn regions(
    program: &Program,
    func: usize,
    layout: &MapLayout,
    shape: LaunchShape,
) -> Result<Header, Reason> {
    let dims = LaunchDims {
        blocks: shape.grid.iter().map(|&g| u64::from(g)).product(),
        threads_per_block: shape.threads_per_block(),
    };
    let launch = layout.for_launch(dims);
    let words: Vec<(u64, u64)> = layout
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
    Ok((words, launch.total_bytes, dims))
}

/// Numbers one launch (the `launch` builtin) and, when the program reads it, adds its
/// word to `words` in every copy of the buffer's fixed part.
pub(crate) fn number(words: &mut Vec<(u64, u64)>, layout: &MapLayout, reads_launch: bool) {
    let n = next_launch();
    if reads_launch {
        words.extend(launch_words(layout).map(|offset| (offset, n)));
    }
}

/// The next launch's number (1-based, in the order the host makes them).
pub(crate) fn next_launch() -> u64 {
    LAUNCHES.fetch_add(1, Ordering::Relaxed) + 1
}

/// Where the `launch` word is: in every copy of the buffer's fixed part.
pub(crate) fn launch_words(layout: &MapLayout) -> impl Iterator<Item = u64> + '_ {
    (0..u64::from(layout.replicas.max(1)))
        .map(|copy| copy * layout.total_bytes + layout.launch_offset)
}

/// The instrumented form of the selected function `func` for a launch of `shape`, and its
/// header without the `launch` word ([`regions`]). `Err(None)`: a kernel-level reason,
/// already reported with the kernel's status.
pub(crate) fn instrumented(
    d: &Driver,
    cfg: &config::Config,
    func: usize,
    info: &state::FuncInfo,
    shape: LaunchShape,
) -> Result<(Arc<Probed>, Header), Option<Reason>> {
    let probed = instrument::probed(d, cfg, func, info).map_err(|_| None)?;
    crate::resources::admit(
        &info.name,
        probed.resources.as_ref(),
        shape.threads_per_block(),
    )
    .map_err(Some)?;
    let header =
        regions(cfg.program.program(), probed.func, &probed.layout, shape).map_err(Some)?;
    Ok((probed, header))
}

fn prepare(
    d: &Driver,
    cfg: &config::Config,
    l: &Launch,
    info: &state::FuncInfo,
    captured: Result<bool, ()>,
) -> Result<Plan, Option<Reason>> {
    let stream = l.ordered_stream();
    // An invalidated capture runs the original.
    let captured = captured.map_err(|()| Some(Reason::Capture))?;
    // Whether this stream or another thread's is capturing, the JIT and the allocations
    // below must not be refused by a global-mode capture, nor invalidate it.
    let _relaxed = crate::capture::Relaxed::new(d);
    let (probed, (mut words, bytes, dims)) =
        instrumented(d, cfg, l.func as usize, info, l.shape())?;
    let extra = if l.extra.is_null() {
        if probed.params > 0 && l.params.is_null() {
            return Err(Some(Reason::ExtraParams));
        }
        None
    } else {
        // SAFETY: the application's `extra`, as it handed it to the driver.
        Some(unsafe { extra_args(d, l, &probed) }.map_err(Some)?)
    };
    let bytes = usize::try_from(bytes).map_err(|_| Some(Reason::MapAlloc))?;
    if cfg.fault == Some(Fault::Alloc) {
        return Err(Some(Reason::MapAlloc));
    }
    let ctx = instrument::current_context(d);
    let budget = cfg.map_budget(d);
    if captured {
        // The graph's own buffer, zeroed and its header written by nodes of their own.
        let buf = MapBuf::take(d, ctx, bytes, true, budget, WAIT).map_err(Some)?;
        let ok = match d.cuMemsetD8Async {
            // SAFETY: a captured zeroing of the buffer's `bytes`.
            Some(memset) => unsafe { memset(buf.device, 0, bytes, stream) == CUDA_SUCCESS },
            None => false,
        };
        // SAFETY: the buffer spans `bytes`; words by value (the host half is the replays').
        let ok = ok && unsafe { write_words(d, &buf, &words, stream, true) };
        // The node that selects and numbers each replay, before the kernel.
        let slot = crate::capture::Slot::new(&info.name, &probed.layout, dims, &buf, cfg);
        // SAFETY: the buffer spans `bytes`; the stream is capturing.
        if !(ok && unsafe { crate::capture::replay_nodes(d, stream, &buf, slot) }) {
            // Not given back to the pool: captured nodes may name it.
            return Err(Some(Reason::Capture));
        }
        return Ok(Plan {
            probed,
            buf: Buffer::Graph(buf, slot),
            dims,
            extra,
        });
    }
    number(&mut words, &probed.layout, cfg.reads_launch);
    if probed.resident && words.is_empty() && cfg.fault.is_none() {
        let shared = crate::resident::buffer(
            d,
            ctx,
            probed.func,
            &info.name,
            &probed.layout,
            bytes,
            stream,
        );
        if let Some(device) = shared {
            return Ok(Plan {
                probed,
                buf: Buffer::Resident { device, ctx },
                dims,
                extra,
            });
        }
    }
    // A buffer with rings is read back by the drain thread, used records only: it needs no
    // pinned half of its own (`read_used`).
    let pinned = !deferred(d, &probed.layout);
    let buf = MapBuf::take(d, ctx, bytes, pinned, budget, WAIT).map_err(|r| {
        if r == Reason::MapMemory {
            config::verbose(format_args!(
                "{}: launch unprobed: its {bytes}-byte map buffer would pass --map-memory \
                 ({budget} bytes) while earlier launches' buffers are read back",
                info.name
            ));
        }
        Some(r)
    })?;
    let ok = match d.cuMemsetD8Async {
        // SAFETY: stream-ordered zeroing of the buffer's `bytes` on the launch's stream.
        Some(memset) => unsafe { memset(buf.device, 0, bytes, stream) == CUDA_SUCCESS },
        None => false,
    };
    // SAFETY: the buffer's pinned and device halves span `bytes`, and nothing else uses
    // them until it is given back.
    let ok = ok && unsafe { write_words(d, &buf, &words, stream, false) };
    if !ok {
        // Work on it may be queued: it is not reused (see `MapBuf`).
        return Err(Some(Reason::MapAlloc));
    }
    Ok(Plan {
        probed,
        buf: Buffer::Own(buf),
        dims,
        extra,
    })
}

/// `l`'s `extra` buffer with room for the instrumented function's map pointer where the
/// driver lays the function's parameters out.
///
/// # Safety
/// `l.extra` is the application's non-null `extra`.
unsafe fn extra_args(d: &Driver, l: &Launch, probed: &Probed) -> Result<Box<Extended>, Reason> {
    if !l.params.is_null() {
        return Err(Reason::ExtraParams); // both forms at once: the driver refuses it
    }
    // SAFETY: as the caller's contract.
    let args = unsafe { crate::extra::read(l.extra, crate::extra::CUDA_END) }?;
    let info = d.cuFuncGetParamInfo.ok_or(Reason::ExtraParams)?;
    let param = |i: u32| {
        let (mut offset, mut size) = (0usize, 0usize);
        // SAFETY: the instrumented function's handle, out-pointers.
        let rc = unsafe {
            info(
                probed.func as CUfunction,
                i as usize,
                &mut offset,
                &mut size,
            )
        };
        (rc == CUDA_SUCCESS).then_some((offset, size))
    };
    let (map_offset, map_size) = param(probed.params).ok_or(Reason::ExtraParams)?;
    if map_size != 8 {
        return Err(Reason::ExtraParams);
    }
    // The instrumented function declares the original's parameters first, unchanged.
    let args_end = match probed.params {
        0 => 0,
        n => param(n - 1)
            .map(|(o, s)| o + s)
            .ok_or(Reason::ExtraParams)?,
    };
    // SAFETY: `args` is the application's buffer of `args.size` bytes.
    unsafe { Extended::new(args, args_end, map_offset, 0, crate::extra::CUDA_END) }
}

/// Writes `words` (offset, value) into the zeroed device buffer, each through its place
/// in the pinned host buffer (stream-ordered copies; the read-back overwrites them later),
/// or, without a pinned half or `by_value`, as two 32-bit fills each.
///
/// # Safety
/// `buf`'s halves span the whole buffer; every offset is below its size minus 8.
pub(crate) unsafe fn write_words(
    d: &Driver,
    buf: &MapBuf,
    words: &[(u64, u64)],
    stream: CUstream,
    by_value: bool,
) -> bool {
    let (host, device) = (buf, buf.device);
    if buf.ptr == 0 || by_value {
        // No pinned half: each word as two 32-bit fills (little-endian halves).
        let Some(fill) = d.cuMemsetD32Async else {
            return words.is_empty();
        };
        return words.iter().all(|&(offset, value)| {
            offset.checked_add(8).is_some_and(|end| end <= buf.len as u64)
                // SAFETY: `offset + 8 <= len` inside the device buffer.
                && unsafe {
                    fill(device + offset, value as c_uint, 1, stream) == CUDA_SUCCESS
                        && fill(device + offset + 4, (value >> 32) as c_uint, 1, stream)
                            == CUDA_SUCCESS
                }
        });
    }
    let Some(copy) = d.cuMemcpyHtoDAsync else {
        return words.is_empty();
    };
    let send = |offset: u64, p: *const c_void| {
        // SAFETY: `offset + 8` is inside the device buffer, as inside the pinned one.
        unsafe { copy(device + offset, p, 8, stream) == CUDA_SUCCESS }
    };
    // SAFETY: the pinned half spans the buffer, which nothing else uses yet.
    unsafe { crate::staging::stage_words(host.ptr, host.len, words, send) }
}

unsafe fn execute(d: &Driver, l: &Launch, name: &str, mut plan: Plan) -> CuResult {
    let stream = l.ordered_stream();
    let n = plan.probed.params as usize;
    let mut device = match &plan.buf {
        Buffer::Own(buf) | Buffer::Graph(buf, _) => buf.device,
        Buffer::Resident { device, .. } => *device,
    };
    let rc = match plan.extra.take() {
        None => {
            let mut params: Vec<*mut c_void> = Vec::with_capacity(n + 1);
            for i in 0..n {
                // SAFETY: the caller's kernelParams has one entry per original parameter.
                params.push(unsafe { *l.params.add(i) });
            }
            params.push((&raw mut device).cast());
            // SAFETY: same launch, instrumented function, parameter array extended by the
            // map pointer.
            unsafe {
                l.run(
                    d,
                    plan.probed.func as CUfunction,
                    params.as_mut_ptr(),
                    std::ptr::null_mut(),
                )
            }
        }
        Some(mut e) => {
            e.set_map(device);
            // SAFETY: same launch, instrumented function, argument buffer extended by the
            // map pointer at the driver's offset; `e` outlives the call.
            unsafe {
                l.run(
                    d,
                    plan.probed.func as CUfunction,
                    std::ptr::null_mut(),
                    e.as_extra(),
                )
            }
        }
    };
    if rc != CUDA_SUCCESS {
        config::verbose(format_args!(
            "{name}: instrumented launch failed (CUresult {rc})"
        ));
        // Its zeroing may still be queued: the buffer is not reused (see `MapBuf`).
        let reason = if rc == crate::resources::CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES {
            Reason::Resources
        } else {
            Reason::LaunchError
        };
        state::tables().launch(name, false, Some(reason));
        // SAFETY: forwarding.
        return unsafe { l.original(d) };
    }
    let buf = match plan.buf {
        Buffer::Graph(buf, slot) => {
            // Counted at each replay, by the read-back's host node.
            // SAFETY: the graph's buffer; the stream is capturing.
            let ok = unsafe { crate::capture::read_back_nodes(d, stream, buf, slot, name) };
            if !ok {
                state::tables().launch(name, false, Some(Reason::Capture));
            }
            return rc;
        }
        Buffer::Own(buf) => {
            state::tables().launch(name, true, None);
            PROBED.set(true);
            buf
        }
        Buffer::Resident { ctx, .. } => {
            state::tables().launch(name, true, None);
            PROBED.set(true);
            // Read back with the kernel's other launches (`resident.rs`).
            crate::resident::launched(ctx, plan.probed.func);
            return rc;
        }
    };
    // A buffer with rings is copied back by the drain thread once the launch is done, the
    // used records only (`read_used`); any other is copied on the launch's stream.
    let by_drain = buf.ptr == 0;
    let copied = match (d.cuMemcpyDtoHAsync, d.cuEventRecord) {
        // SAFETY: both halves of the buffer span `len` bytes; its event belongs to this
        // context.
        (Some(copy), Some(record)) => unsafe {
            (by_drain || copy(buf.ptr as *mut c_void, buf.device, buf.len, stream) == CUDA_SUCCESS)
                && record(buf.event as CUevent, stream) == CUDA_SUCCESS
        },
        _ => false,
    };
    if !copied {
        // The launch may still be writing the device half: the buffer is not reused.
        state::tables().count(Reason::LaunchError);
        return rc;
    }
    IN_FLIGHT.fetch_add(1, Ordering::AcqRel);
    let readback = Readback {
        buf,
        layout: plan.probed.layout.clone(),
        dims: plan.dims,
        deferred: by_drain,
    };
    match drain() {
        Some(tx) => {
            HANDED.fetch_add(1, Ordering::AcqRel);
            if let Err(mpsc::SendError(rb)) = lock(&tx).send(readback) {
                settle_one(d, rb);
                MERGED.fetch_add(1, Ordering::AcqRel);
            }
        }
        // No drain thread: wait for this launch's copy here (a per-launch synchronization,
        // only when a thread cannot be started).
        None => settle_one(d, readback),
    }
    rc
}

/// A probed launch whose map buffer is being copied back: the copy is complete when the
/// buffer's event is.
struct Readback {
    buf: MapBuf,
    layout: Arc<MapLayout>,
    dims: LaunchDims,
    /// The event follows the launch, not a copy: [`read_used`] copies the buffer.
    deferred: bool,
}

/// Whether a buffer of `layout` is read back by [`read_used`]: it holds a ring, whose
/// unused records need not come back, and the driver has what that takes.
fn deferred(d: &Driver, layout: &MapLayout) -> bool {
    layout
        .regions
        .iter()
        .any(|r| matches!(r.kind, warptrace_ir::MapKind::Ring { .. }))
        && d.cuStreamCreate.is_some()
        && d.cuStreamSynchronize.is_some()
        && d.cuMemcpyDtoHAsync.is_some()
        && d.cuMemsetD32Async.is_some()
}

/// A non-blocking stream of the runtime's own in each context, for the drain thread's
/// copies: they neither wait for the application's streams nor hold them up.
fn private_stream(d: &Driver, ctx: usize) -> Option<CUstream> {
    static STREAMS: Mutex<Option<HashMap<(u32, usize), usize>>> = Mutex::new(None);
    let mut streams = lock(&STREAMS);
    let streams = streams.get_or_insert_with(HashMap::new);
    let key = (std::process::id(), ctx);
    if let Some(&s) = streams.get(&key) {
        return Some(s as CUstream);
    }
    let create = d.cuStreamCreate?;
    let mut s: CUstream = std::ptr::null_mut();
    // SAFETY: out-pointer; the context is current (`settle_one` made it so).
    // `CU_STREAM_NON_BLOCKING`: no implicit synchronization with the legacy stream.
    if unsafe { create(&mut s, 0x1) } != CUDA_SUCCESS {
        return None;
    }
    streams.insert(key, s as usize);
    Some(s)
}

/// Copies a finished launch's device buffer into `host` (resized to its length) in two
/// rounds on the private stream: everything but ring records (the cursors among it), then
/// the records below each cursor. A ring of 1M records that took a thousand appends costs
/// the copy of a thousand; the rest of `host` is left as it was, which decodes to nothing
/// (`MapLayout::without_ring_records`). False when a copy fails.
///
/// # Safety
/// The launch is complete (its event is), and the device buffer spans `len` bytes.
unsafe fn read_used(d: &Driver, rb: &Readback, host: &mut Vec<u8>) -> bool {
    let (Some(copy), Some(sync)) = (d.cuMemcpyDtoHAsync, d.cuStreamSynchronize) else {
        return false;
    };
    let Some(stream) = private_stream(d, rb.buf.ctx) else {
        return false;
    };
    host.resize(rb.buf.len, 0);
    let len = rb.buf.len as u64;
    let copy_all = |host: &mut Vec<u8>, ranges: &[std::ops::Range<u64>]| {
        ranges.iter().all(|r| {
            let end = r.end.min(len);
            if r.start >= end {
                return true;
            }
            // SAFETY: `start < end <= len`, inside the device buffer and `host`; a copy
            // into pageable memory completes before the stream's synchronization returns.
            unsafe {
                copy(
                    host.as_mut_ptr().add(r.start as usize).cast(),
                    rb.buf.device + r.start,
                    (end - r.start) as usize,
                    stream,
                ) == CUDA_SUCCESS
            }
        }) && unsafe { sync(stream) } == CUDA_SUCCESS
    };
    if !copy_all(host, &rb.layout.without_ring_records(len)) {
        return false;
    }
    let used = rb.layout.used_ring_records(host);
    copy_all(host, &used)
}

/// Waits for a read-back's event, then merges the buffer into the host maps and returns it
/// to the pool. If the wait fails (the context is gone) the launch stays in flight: it
/// is reported as lost, and its buffer is not reused.
fn settle_one(d: &Driver, rb: Readback) {
    let current = instrument::current_context(d);
    if current != rb.buf.ctx {
        if let Some(set) = d.cuCtxSetCurrent {
            // SAFETY: the context the buffer was allocated in (the event's context).
            unsafe { set(rb.buf.ctx as CUcontext) };
        }
    }
    let done = match d.cuEventSynchronize {
        // SAFETY: the buffer's live event, recorded after its copy.
        Some(sync) => unsafe { sync(rb.buf.event as CUevent) == CUDA_SUCCESS },
        None => false,
    };
    if !done {
        return;
    }
    // SAFETY: the launch is complete; the buffer's halves span `len`.
    thread_local! {
        /// The drain thread's copy of a deferred buffer, reused from launch to launch.
        static STAGING: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    let merge = |bytes: &[u8]| {
        let _ = catch_unwind(AssertUnwindSafe(|| {
            state::aggregator().merge_buffer(&rb.layout, rb.dims, bytes);
        }));
    };
    if rb.deferred {
        let read = STAGING.with_borrow_mut(|host| {
            // SAFETY: the launch is complete; the device buffer spans `len`.
            let ok = unsafe { read_used(d, &rb, host) };
            if ok {
                merge(host);
            }
            ok
        });
        if !read {
            // Not given back: a copy may still be running. The launch counts as lost.
            return;
        }
    } else {
        // SAFETY: the copy into the pinned half completed (its event did); the memory is
        // the process's own allocation, valid even if the context has gone since.
        merge(unsafe { std::slice::from_raw_parts(rb.buf.ptr as *const u8, rb.buf.len) });
    }
    rb.buf.give();
    IN_FLIGHT.fetch_sub(1, Ordering::AcqRel);
}

/// Read-backs handed to the drain thread, and those it has finished.
static HANDED: AtomicU64 = AtomicU64::new(0);
static MERGED: AtomicU64 = AtomicU64::new(0);

/// In a `fork` child: the parent's read-backs are the parent's (its drain thread did not
/// come across the fork), so the child's exit does not wait for them.
pub(crate) fn forget_inherited() {
    HANDED.store(0, Ordering::Release);
    MERGED.store(0, Ordering::Release);
}

/// The queue of the drain thread, which waits for each launch's read-back (an event after
/// its copy) and merges it off the application's streams: nothing but the copy and the
/// event is added to a stream, and no application thread waits. Started on first use in
/// each process (a forked child starts its own); `None` if it cannot start.
fn drain() -> Option<Arc<Mutex<mpsc::Sender<Readback>>>> {
    type Queue = (u32, Arc<Mutex<mpsc::Sender<Readback>>>);
    static DRAIN: Mutex<Option<Queue>> = Mutex::new(None);
    let pid = std::process::id();
    let mut slot = lock(&DRAIN);
    if let Some((owner, tx)) = slot.as_ref() {
        if *owner == pid {
            return Some(tx.clone());
        }
    }
    let driver = crate::driver::driver()?;
    let (tx, rx) = mpsc::channel::<Readback>();
    let spawned = std::thread::Builder::new()
        .name("warptrace-drain".into())
        .spawn(move || {
            // Its event waits must neither be refused by an application's global-mode
            // capture nor invalidate it (`capture.rs`).
            crate::capture::Relaxed::new(driver).for_good();
            for rb in rx {
                settle_one(driver, rb);
                MERGED.fetch_add(1, Ordering::AcqRel);
            }
        });
    let tx = Arc::new(Mutex::new(tx));
    spawned.ok()?;
    *slot = Some((pid, tx.clone()));
    // The CUDA runtime tears the primary context down from an exit handler of its own,
    // through private driver entry points no wrapper sees; read-backs still waiting on an
    // event in it are then lost. A handler registered now, after the CUDA libraries' (the
    // first read-back comes after their initialization), runs before theirs: it waits for
    // the delivered read-backs while the context is still there.
    static AT_EXIT: std::sync::Once = std::sync::Once::new();
    // SAFETY: registering a plain extern "C" fn with no arguments.
    AT_EXIT.call_once(|| unsafe {
        libc::atexit(settle_at_exit);
    });
    Some(tx)
}

/// Before the CUDA libraries' exit handlers: the delivered read-backs (as `at_exit` would,
/// when the context may already be gone).
extern "C" fn settle_at_exit() {
    let _ = catch_unwind(|| settle(std::time::Duration::from_secs(10)));
}

/// Waits, at most `limit`, until the drain thread has finished every read-back handed to
/// it (at exit; one whose wait fails counts as lost), and the `launch:end` blocks of the
/// launches timed so far have run.
pub fn settle(limit: std::time::Duration) {
    let start = std::time::Instant::now();
    crate::launch_probes::settle(limit);
    while MERGED.load(Ordering::Acquire) < HANDED.load(Ordering::Acquire) && start.elapsed() < limit
    {
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
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
