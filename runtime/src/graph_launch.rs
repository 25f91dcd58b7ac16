//! `cuGraphLaunch` of an executable holding probed kernel nodes (`graphs.rs`): on the
//! launch's stream, before the graph, each node's buffer is zeroed and its header written
//! (by value, numbered as this replay's launch); after it, each buffer is copied into its
//! pinned host half and one host function merges them all and counts each node a probed
//! launch. Stream-ordered, nothing synchronized; the graph itself is launched unchanged.
//!
//! Invariants:
//! - A buffer is written by one replay at a time. Replays of one executable are ordered by
//!   the driver, but our zeroing and copies are not part of the graph: each read-back
//!   records the buffer's event, and the next zeroing, on whatever stream, waits for it.
//! - Every launch of a node of a selected kernel is counted: probed when its read-back
//!   was enqueued, unprobed with its reason otherwise (nothing is counted when the driver
//!   refuses the graph launch itself, which then ran nothing).
//! - Launched into a capturing stream (a child graph of the capture), the zeroing, copies
//!   and host function are captured with it and run at each replay of the outer graph;
//!   events are then neither waited on nor recorded (the capture orders them).

use crate::driver::{CuResult, Driver, CUDA_SUCCESS};
use crate::graphs::{Node, Probe};
use crate::report::Reason;
use crate::{config, state};
use cudarc::driver::sys::{CUevent, CUstream};
use std::ffi::{c_int, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// Launches `exec` through `real` (`cuGraphLaunch` or its `_ptsz` form), reading back the
/// probed nodes' buffers around it.
///
/// # Safety
/// `exec` and `stream` are the application's arguments; `real` makes the driver call.
pub(crate) unsafe fn launch(
    d: &Driver,
    exec: usize,
    stream: CUstream,
    per_thread: bool,
    real: impl FnOnce() -> CuResult,
) -> CuResult {
    let (Some(cfg), Some(nodes)) = (config::config(), crate::graphs::exec_nodes(exec)) else {
        return real();
    };
    let stream = crate::launch::ordered(stream, per_thread);
    let before = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: the application's stream.
        let capturing = unsafe { capturing(d, stream) };
        let mut armed: Vec<Arc<Probe>> = Vec::new();
        let mut unprobed: Vec<(Arc<str>, Option<Reason>)> = Vec::new();
        for node in &nodes {
            match &**node {
                Node::Unprobed { name, reason } => unprobed.push((name.clone(), *reason)),
                Node::Probed(p) => {
                    // SAFETY: the node's buffer; the application's stream.
                    let ordered = capturing || unsafe { after_last_read_back(d, p, stream) };
                    if !cfg.launches.admit(&p.name) {
                        unprobed.push((p.name.clone(), Some(Reason::NotSelected)));
                    // SAFETY: as above.
                    } else if ordered && unsafe { arm(d, cfg.reads_launch, p, stream) } {
                        armed.push(p.clone());
                    } else {
                        unprobed.push((p.name.clone(), Some(Reason::LaunchError)));
                    }
                }
            }
        }
        (capturing, armed, unprobed)
    }));
    let rc = real();
    let Ok((capturing, armed, unprobed)) = before else {
        return rc;
    };
    if rc != CUDA_SUCCESS {
        return rc;
    }
    let _ = catch_unwind(AssertUnwindSafe(|| {
        let mut t = state::tables();
        for (name, reason) in &unprobed {
            t.launch(name, false, *reason);
        }
        drop(t);
        // SAFETY: the armed nodes' buffers; the stream the graph was launched on.
        unsafe { read_back(d, armed, stream, capturing) };
    }));
    rc
}

/// Whether `stream` is capturing (a launch on it becomes part of a graph).
unsafe fn capturing(d: &Driver, stream: CUstream) -> bool {
    let Some(is_capturing) = d.cuStreamIsCapturing else {
        return false;
    };
    let mut status: c_int = 0;
    // SAFETY: the application's stream; an out-pointer.
    let rc = unsafe { is_capturing(stream, &mut status) };
    rc == CUDA_SUCCESS && status != 0
}

/// Orders `stream` behind the last read-back of `p`'s buffer; `false` if it cannot.
unsafe fn after_last_read_back(d: &Driver, p: &Probe, stream: CUstream) -> bool {
    if !p.recorded.load(Ordering::Acquire) {
        return true;
    }
    match d.cuStreamWaitEvent {
        // SAFETY: the buffer's event, recorded in its context.
        Some(wait) => unsafe { wait(stream, p.buf.event as CUevent, 0) == CUDA_SUCCESS },
        None => false,
    }
}

/// Zeroes `p`'s buffer and writes its header, numbered as a launch.
unsafe fn arm(d: &Driver, reads_launch: bool, p: &Probe, stream: CUstream) -> bool {
    let Some(memset) = d.cuMemsetD8Async else {
        return false;
    };
    // SAFETY: the node's device buffer spans `len` bytes.
    if unsafe { memset(p.buf.device, 0, p.buf.len, stream) } != CUDA_SUCCESS {
        return false;
    }
    let mut words = p.words.clone();
    crate::launch::number(&mut words, &p.layout, reads_launch);
    // SAFETY: the words lie inside the buffer (its header); by value, since a capture
    // would keep a copy's source pointer and the host half is the read-backs'.
    unsafe { crate::launch::write_words(d, &p.buf, &words, stream, true) }
}

/// The nodes a host function merges after one replay.
struct Replay {
    probes: Vec<Arc<Probe>>,
    /// Called once (not captured): the host function frees it.
    once: bool,
}

/// Copies each armed buffer into its host half and enqueues the host function that merges
/// them; counts a launch unprobed for each whose read-back could not be enqueued.
unsafe fn read_back(d: &Driver, armed: Vec<Arc<Probe>>, stream: CUstream, capturing: bool) {
    if armed.is_empty() {
        return;
    }
    let (Some(copy), Some(host_func)) = (d.cuMemcpyDtoHAsync, d.cuLaunchHostFunc) else {
        return lost(&armed);
    };
    let (copied, failed): (Vec<_>, Vec<_>) = armed.into_iter().partition(|p| {
        // SAFETY: both halves span `len` bytes.
        unsafe { copy(p.buf.ptr as *mut c_void, p.buf.device, p.buf.len, stream) == CUDA_SUCCESS }
    });
    lost(&failed);
    if copied.is_empty() {
        return;
    }
    // The host function may run (and free the replay) before the call below returns.
    let events = if capturing {
        Vec::new()
    } else {
        copied.clone()
    };
    let replay = Box::into_raw(Box::new(Replay {
        probes: copied,
        once: !capturing,
    }));
    // SAFETY: `merged` takes the replay, which lives until it runs (or, captured, for good).
    if unsafe { host_func(stream, Some(merged), replay.cast()) } != CUDA_SUCCESS {
        // SAFETY: not enqueued: nothing else holds it.
        let replay = unsafe { Box::from_raw(replay) };
        return lost(&replay.probes);
    }
    if let Some(record) = d.cuEventRecord {
        for p in events {
            // SAFETY: the buffer's event, of the buffer's context.
            if unsafe { record(p.buf.event as CUevent, stream) } == CUDA_SUCCESS {
                p.recorded.store(true, Ordering::Release);
            }
        }
    }
}

fn lost(probes: &[Arc<Probe>]) {
    let mut t = state::tables();
    for p in probes {
        t.launch(&p.name, false, Some(Reason::LaunchError));
    }
}

/// The host function after a replay: the graph and the copies are done, so each host half
/// holds this replay's maps. Makes no CUDA call.
extern "C" fn merged(user: *mut c_void) {
    let _ = catch_unwind(|| {
        let replay = user as *mut Replay;
        // SAFETY: the `Replay` of `read_back`, alive until freed here.
        let r = unsafe { &*replay };
        for p in &r.probes {
            // SAFETY: the pinned host half, written by the copy before this function.
            unsafe {
                crate::capture::merge_replay(&p.name, &p.layout, p.dims, p.buf.ptr, p.buf.len)
            };
        }
        if r.once {
            // SAFETY: called once: nothing else holds it.
            drop(unsafe { Box::from_raw(replay) });
        }
    });
}
