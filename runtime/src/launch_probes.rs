//! `launch:begin` and `launch:end` host blocks (docs/launch-probes.md): they run in the
//! traced process, in the IR interpreter, on the process's host maps, for every direct
//! launch of every kernel — instrumented or not, SASS-only ones included.
//!
//! - `launch:begin` runs on the launching thread, before the launch is made.
//! - `launch:end` needs the launch done. Two events (timing enabled, pooled per context)
//!   are recorded around it on its stream — the first right before the driver call, after
//!   the launch path's own work (a first launch's JIT) — and a thread of the runtime's own waits for the
//!   later one, reads the time between them (`duration`, ns), runs the blocks and gives the
//!   events back. Nothing on the application's stream waits for the host, and no thread of
//!   the application waits for the device.
//!
//! Fail open, counted: a launch on a capturing stream is not timed (an event recorded there
//! would become a node of the graph), nor one whose events cannot be had or recorded; its
//! `launch:end` blocks do not run, and it counts as `launch not timed`. A launch the driver
//! refuses runs no `launch:end` block (it ran nothing).

use crate::capture::Relaxed;
use crate::config::{self, Config};
use crate::driver::{Driver, CUDA_SUCCESS};
use crate::report::Reason;
use crate::state;
use cudarc::driver::sys::{CUevent, CUfunction, CUstream};
use std::collections::HashMap;
use std::ffi::{c_char, CStr};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, OnceLock};
use warptrace_ir::interp::{Interpreter, LaunchValues};
use warptrace_ir::{kernel_id, HostEvent};

/// A launch whose `launch:end` blocks wait for its events.
struct Timed {
    values: LaunchValues,
    /// The launch ran the instrumented function.
    probed: bool,
    ctx: usize,
    start: usize,
    end: usize,
}

/// Which of the blocks the program has, decided once.
fn blocks(cfg: &Config) -> (bool, bool) {
    static HAS: OnceLock<(bool, bool)> = OnceLock::new();
    *HAS.get_or_init(|| {
        let host = &cfg.program.program().host;
        let has = |e: HostEvent| host.iter().any(|b| b.event == e);
        (has(HostEvent::LaunchBegin), has(HostEvent::LaunchEnd))
    })
}

/// Whether the program has `launch:*` blocks (every launch then comes here).
pub(crate) fn wanted(cfg: &Config) -> bool {
    let (begin, end) = blocks(cfg);
    begin || end
}

fn interpreter(cfg: &'static Config) -> &'static Interpreter<'static> {
    static INTERP: OnceLock<Interpreter<'static>> = OnceLock::new();
    INTERP.get_or_init(|| Interpreter::new(cfg.program.program()))
}

/// Runs `event`'s blocks for `values` on the host maps; a fault is said once.
fn run(cfg: &'static Config, event: HostEvent, values: &LaunchValues) {
    let program = cfg.program.program();
    let result = state::aggregator().run_launch(interpreter(cfg), program, event, values);
    if let Err(e) = result {
        static SAID: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
        if !SAID.swap(true, std::sync::atomic::Ordering::Relaxed) {
            config::warn(format_args!("a `{event}` block faulted: {e}"));
        }
    }
}

/// A function's (or kernel's) name, for `kernel`: the selected kernels' is known; any other
/// is asked of the driver once.
fn name_of(d: &Driver, func: usize) -> Arc<str> {
    static NAMES: Mutex<Option<HashMap<usize, Arc<str>>>> = Mutex::new(None);
    if let Some(info) = state::tables().funcs.get(&func) {
        return info.name.clone();
    }
    let mut names = NAMES.lock().unwrap_or_else(|p| p.into_inner());
    let names = names.get_or_insert_with(HashMap::new);
    if let Some(n) = names.get(&func) {
        return n.clone();
    }
    let ask = |f: Option<unsafe extern "C" fn(*mut *const c_char, CUfunction) -> u32>| {
        let f = f?;
        let mut p: *const c_char = std::ptr::null();
        // SAFETY: the application's handle; an out-pointer to a driver-owned string.
        let ok = unsafe { f(&mut p, func as CUfunction) } == CUDA_SUCCESS && !p.is_null();
        // SAFETY: the driver's NUL-terminated name.
        ok.then(|| unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
    };
    // A CUkernel may stand for a CUfunction (CUDA 12's contract).
    let kernel_name = d.cuKernelGetName.map(|f| {
        // SAFETY: the same signature, a CUkernel handle in place of a CUfunction.
        unsafe {
            std::mem::transmute::<
                unsafe extern "C" fn(*mut *const c_char, cudarc::driver::sys::CUkernel) -> u32,
                unsafe extern "C" fn(*mut *const c_char, CUfunction) -> u32,
            >(f)
        }
    });
    let name: Arc<str> = ask(d.cuFuncGetName)
        .or_else(|| ask(kernel_name))
        .unwrap_or_else(|| format!("<function {func:#x}>"))
        .into();
    state::tables().kernel_id(kernel_id(&name), &name);
    names.insert(func, name.clone());
    name
}

/// Before a launch: runs `launch:begin` and, when there are `launch:end` blocks, records
/// the launch's start event. `None` when nothing waits for the launch's end.
pub(crate) fn before(
    d: &Driver,
    cfg: &'static Config,
    func: usize,
    grid: [u32; 3],
    block: [u32; 3],
    shared: u32,
    stream: CUstream,
) -> Option<Pending> {
    let (begin, end) = blocks(cfg);
    let name = name_of(d, func);
    let values = LaunchValues {
        kernel: kernel_id(&name),
        grid,
        block,
        shared: u64::from(shared),
        stream: stream as u64,
        duration: 0,
    };
    if begin {
        run(cfg, HostEvent::LaunchBegin, &values);
    }
    if !end {
        return None;
    }
    let timed = timing(d, values, stream);
    if timed.is_none() {
        state::tables().count(Reason::NotTimed);
    }
    timed.map(|t| Pending {
        timed: t,
        started: false,
    })
}

/// A launch [`before`] took events for; its start is recorded by [`record_start`] right
/// before the driver call, so that the host's work on the launch path (the JIT of the
/// instrumented module at a kernel's first launch, its map buffer) is not timed.
pub(crate) struct Pending {
    timed: Timed,
    started: bool,
}

/// Records `p`'s start on `stream`, once (a failed instrumented launch's relaunch of the
/// original is timed from the first attempt).
pub(crate) fn record_start(d: &Driver, p: &mut Pending, stream: CUstream) {
    if p.started {
        return;
    }
    p.started = d.cuEventRecord.is_some_and(|record| {
        // SAFETY: an event of the current context, the application's stream.
        unsafe { record(p.timed.start as CUevent, stream) == CUDA_SUCCESS }
    });
}

/// The events to time a launch on `stream` with; `None` when it cannot be timed.
fn timing(d: &Driver, values: LaunchValues, stream: CUstream) -> Option<Timed> {
    // Capturing, invalidated, or not known: not timed.
    if crate::capture::status(d, stream) != Ok(false) || d.cuEventRecord.is_none() {
        return None;
    }
    let ctx = crate::instrument::current_context(d);
    let (start, end) = events(d, ctx)?;
    Some(Timed {
        values,
        probed: false,
        ctx,
        start,
        end,
    })
}

/// After the launch: records its end event and hands it to the timing thread (`rc`: the
/// driver's result; a refused launch runs nothing and its events go back).
pub(crate) fn after(d: &Driver, pending: Pending, stream: CUstream, rc: u32, probed: bool) {
    let mut t = pending.timed;
    t.probed = probed;
    let recorded = rc == CUDA_SUCCESS
        && pending.started
        && d.cuEventRecord.is_some_and(|record| {
            // SAFETY: an event of the launch's context, the application's stream.
            unsafe { record(t.end as CUevent, stream) == CUDA_SUCCESS }
        });
    if !recorded {
        if rc == CUDA_SUCCESS {
            state::tables().count(Reason::NotTimed);
        }
        return give_back(t.ctx, (t.start, t.end));
    }
    PENDING.fetch_add(1, Ordering::AcqRel);
    match timer() {
        Some(tx) => {
            if let Err(mpsc::SendError(t)) = tx.lock().unwrap_or_else(|p| p.into_inner()).send(t) {
                finish(d, t);
            }
        }
        None => finish(d, t),
    }
}

/// Timed launches whose `launch:end` blocks have not run yet.
static PENDING: AtomicU64 = AtomicU64::new(0);
/// The device time of the timed launches, and of those that ran probes (ns): the summary's
/// reach in time.
static DEVICE_NS: AtomicU64 = AtomicU64::new(0);
static DEVICE_NS_PROBED: AtomicU64 = AtomicU64::new(0);

/// (device time of the launches timed, of those that ran probes), ns.
pub(crate) fn device_time() -> (u64, u64) {
    (
        DEVICE_NS.load(Ordering::Relaxed),
        DEVICE_NS_PROBED.load(Ordering::Relaxed),
    )
}

/// Waits at most `limit` for the `launch:end` blocks of the launches timed so far (before
/// a context is given up, and at exit).
pub(crate) fn settle(limit: std::time::Duration) {
    let deadline = std::time::Instant::now() + limit;
    while PENDING.load(Ordering::Acquire) > 0 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

/// Waits for a launch's end event, then runs `launch:end` with its duration.
fn finish(d: &Driver, t: Timed) {
    finish_one(d, t);
    PENDING.fetch_sub(1, Ordering::AcqRel);
}

fn finish_one(d: &Driver, t: Timed) {
    let Some(cfg) = config::loaded() else { return };
    let synced = d.cuEventSynchronize.is_some_and(|sync| {
        // SAFETY: an event recorded after the launch.
        unsafe { sync(t.end as CUevent) == CUDA_SUCCESS }
    });
    let mut ms: f32 = 0.0;
    let elapsed = synced
        && d.cuEventElapsedTime_v2
            .or(d.cuEventElapsedTime)
            .is_some_and(|f| {
                // SAFETY: both events recorded and complete; an out-pointer.
                unsafe { f(&mut ms, t.start as CUevent, t.end as CUevent) == CUDA_SUCCESS }
            });
    give_back(t.ctx, (t.start, t.end));
    if !elapsed {
        state::tables().count(Reason::NotTimed);
        return;
    }
    let mut values = t.values;
    values.duration = (f64::from(ms) * 1e6).round().max(0.0) as u64;
    DEVICE_NS.fetch_add(values.duration, Ordering::Relaxed);
    if t.probed {
        DEVICE_NS_PROBED.fetch_add(values.duration, Ordering::Relaxed);
    }
    run(cfg, HostEvent::LaunchEnd, &values);
}

type Pair = (usize, usize);

static POOL: Mutex<Option<HashMap<usize, Vec<Pair>>>> = Mutex::new(None);

/// A pair of timing events of context `ctx` (pooled).
fn events(d: &Driver, ctx: usize) -> Option<Pair> {
    if let Some(pair) = POOL
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get_or_insert_with(HashMap::new)
        .get_mut(&ctx)
        .and_then(Vec::pop)
    {
        return Some(pair);
    }
    let create = d.cuEventCreate?;
    let make = || {
        let mut e: CUevent = std::ptr::null_mut();
        // SAFETY: an out-pointer; flags 0: the default, timing enabled.
        (unsafe { create(&mut e, 0) } == CUDA_SUCCESS).then_some(e as usize)
    };
    Some((make()?, make()?))
}

/// Before a context is given up: its pooled events go with it (never reused in a context
/// made later at the same address). The pools of every context are dropped; the events of
/// the others are simply not reused.
pub(crate) fn forget_events() {
    *POOL.lock().unwrap_or_else(|p| p.into_inner()) = None;
}

fn give_back(ctx: usize, pair: Pair) {
    POOL.lock()
        .unwrap_or_else(|p| p.into_inner())
        .get_or_insert_with(HashMap::new)
        .entry(ctx)
        .or_default()
        .push(pair);
}

/// The timing thread's queue, started at the first timed launch.
fn timer() -> Option<&'static Mutex<mpsc::Sender<Timed>>> {
    static TX: OnceLock<Option<Mutex<mpsc::Sender<Timed>>>> = OnceLock::new();
    TX.get_or_init(|| {
        let (tx, rx) = mpsc::channel::<Timed>();
        std::thread::Builder::new()
            .name("warptrace-timing".into())
            .spawn(move || {
                let Some(d) = crate::driver::resolved() else {
                    return;
                };
                // Its synchronizations must not be refused by, or invalidate, a capture.
                Relaxed::new(d).for_good();
                for t in rx {
                    if let Some(set) = d.cuCtxSetCurrent {
                        // SAFETY: the context the events belong to.
                        unsafe { set(t.ctx as cudarc::driver::sys::CUcontext) };
                    }
                    finish(d, t);
                }
            })
            .ok()
            .map(|_| Mutex::new(tx))
    })
    .as_ref()
}
