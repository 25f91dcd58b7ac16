//! Two-way parallelism for checking and instrumenting long kernels.
//!
//! The back ends split a spliced kernel's parse and model in two, and the kernel-level
//! checks run the control-flow graph comparison beside the other rules. Every split is
//! two-way: the second half runs on a scoped thread started for it. (A persistent pool was
//! measured too: its threads' wake-up latency made the instrument-and-verify time of a
//! large kernel less predictable, and it would leave idle threads in the profiled
//! application, where the preload library runs this code.)

use std::sync::Mutex;

/// Runs `a` on the calling thread and `b` on a new scoped thread, and returns both
/// results; both on the calling thread if no thread can be started. A panic in either is
/// resumed here.
pub fn join<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    // `b` waits here so that it survives a failed spawn (which drops its closure).
    let slot = Mutex::new(Some(b));
    let take = || slot.lock().unwrap_or_else(|p| p.into_inner()).take();
    std::thread::scope(|s| {
        let second = std::thread::Builder::new().spawn_scoped(s, || take().map(|b| b()));
        let ra = a();
        let rb = match second {
            Ok(handle) => handle
                .join()
                .unwrap_or_else(|p| std::panic::resume_unwind(p)),
            Err(_) => take().map(|b| b()),
        };
        match rb {
            Some(rb) => (ra, rb),
            // Exactly one of the two paths took `b`.
            None => unreachable!("the second half ran nowhere"),
        }
    })
}

/// [`join`] when `parallel`, else `a` then `b` on the calling thread: for work too small
/// to pay for starting a thread (tens of microseconds).
pub fn join_if<A, B, RA, RB>(parallel: bool, a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    if parallel {
        join(a, b)
    } else {
        (a(), b())
    }
}

/// Kernels with fewer items than this are checked on one thread (a thread start costs
/// about as much as checking a couple of hundred items).
pub const PARALLEL_ITEMS: usize = 512;

#[cfg(test)]
mod tests {
    #[test]
    fn both_halves_run_and_return_in_order() {
        let (a, b) = super::join(|| (0..1000u64).sum::<u64>(), || "b".repeat(3));
        assert_eq!((a, b.as_str()), (499500, "bbb"));
        let ((x, y), z) = super::join(|| super::join(|| 1, || 2), || 3);
        assert_eq!((x, y, z), (1, 2, 3));
    }
}
