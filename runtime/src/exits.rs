//! Reports of processes that end through `_exit`.
//!
//! `_exit` and `_Exit` skip `atexit` handlers. Python's `multiprocessing` ends every
//! child it forked with `os._exit`, and so do shells and many servers' workers: without
//! this, such a child's maps would be lost, uncounted. The preload library exports both
//! functions; they write the report as the exit handler would, then end the process with
//! `exit_group`, which is all `_exit` does.
//!
//! Only in a process whose runtime state is its own: the one the constructor ran in, or
//! a child of `fork` (recorded by a `pthread_atfork` handler, which runs in the child's
//! own copy of memory). The fork handlers also hold the runtime's state locks across the
//! fork and, in the child, forget what the parent counted: the child reports only what
//! it did itself, and none of its locks is left held by a thread it does not have. A `vfork` child (also `posix_spawn`'s, `system`'s) shares its
//! parent's memory and runs no fork handlers; it has a pid that is neither, so it exits
//! at once, as it must. As for fatal signals (`signals.rs`), the report is written only
//! when the runtime's locks can be taken (a fork child inherits a lock another thread of
//! its parent held, for good): otherwise the process ends without it.

use std::cell::RefCell;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

/// The pid of the process the constructor ran in.
static INIT_PID: AtomicU32 = AtomicU32::new(0);
/// The pid of this process if `fork` made it (set in the child by the fork handler).
static FORK_CHILD_PID: AtomicU32 = AtomicU32::new(0);

/// How long an exiting process waits for the runtime's locks and delivered read-backs.
const WAIT: Duration = Duration::from_secs(2);

/// Records this process as the runtime's own and registers the fork handler. Once, from
/// the constructor.
pub(crate) fn install() {
    INIT_PID.store(std::process::id(), Ordering::Release);
    // SAFETY: registering plain extern "C" fns with no arguments as the fork handlers.
    unsafe { libc::pthread_atfork(Some(before_fork), Some(in_fork_parent), Some(in_fork_child)) };
}

thread_local! {
    /// The state locks the forking thread holds across `fork` (`state::Held`).
    static HELD: RefCell<Option<crate::state::Held>> = const { RefCell::new(None) };
}

/// In the parent, before `fork`: takes the runtime's state locks, so that the child's copy
/// of them is not held by a thread the child does not have (the drain thread merging a
/// read-back), which would leave the child unable to report, or to exit without waiting.
extern "C" fn before_fork() {
    let _ = std::panic::catch_unwind(|| {
        HELD.with(|h| *h.borrow_mut() = Some(crate::state::hold()));
    });
}

extern "C" fn in_fork_parent() {
    let _ = std::panic::catch_unwind(|| HELD.with(|h| drop(h.borrow_mut().take())));
}

extern "C" fn in_fork_child() {
    FORK_CHILD_PID.store(std::process::id(), Ordering::Release);
    let _ = std::panic::catch_unwind(|| {
        // What the parent counted and has in flight is the parent's to report.
        if let Some(held) = HELD.with(|h| h.borrow_mut().take()) {
            crate::state::forget_inherited(held);
        }
        crate::launch::forget_inherited();
    });
}

/// Whether `fork` made this process (its state is its own copy of its parent's).
pub(crate) fn is_fork_child() -> bool {
    FORK_CHILD_PID.load(Ordering::Acquire) == std::process::id()
}

/// Whether this process's runtime state is its own (see the module docs).
fn owns_state(pid: u32) -> bool {
    pid != 0
        && (pid == INIT_PID.load(Ordering::Acquire)
            || pid == FORK_CHILD_PID.load(Ordering::Acquire))
}

/// Called by the exported `_exit` / `_Exit` before the process ends: writes the report
/// when this process owns its state and the runtime's locks are free.
pub fn before_quick_exit() {
    let _ = std::panic::catch_unwind(|| {
        if owns_state(std::process::id()) && crate::signals::locks_free_within(WAIT) {
            // `_exit` skips the `atexit` handler that reads resident buffers back.
            crate::resident::flush_all();
            crate::write_report(WAIT);
        }
    });
}

/// Ends the process with `status` as `_exit` does (`exit_group`: every thread, no
/// handlers, no flushing).
pub fn exit_group(status: libc::c_int) -> ! {
    loop {
        // SAFETY: exit_group takes the status and does not return.
        unsafe { libc::syscall(libc::SYS_exit_group, libc::c_long::from(status)) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_constructors_process_or_a_fork_child_owns_its_state() {
        INIT_PID.store(100, Ordering::Release);
        FORK_CHILD_PID.store(0, Ordering::Release);
        assert!(owns_state(100));
        assert!(!owns_state(101), "a vfork child: neither pid");
        assert!(!owns_state(0));
        FORK_CHILD_PID.store(101, Ordering::Release);
        assert!(owns_state(101));
        assert!(!owns_state(102));
    }
}
