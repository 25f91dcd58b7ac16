//! Maps are not lost when the profiled program dies of a signal.
//!
//! `atexit` handlers do not run when a process is killed by a signal (`SIGTERM` from a job
//! scheduler, `SIGINT` in a program that does not catch it, `SIGSEGV`, `abort()`). For
//! those signals the preload library installs a handler, once, from its constructor: it
//! writes the report as the exit handler would (what has been read back so far; launches
//! in flight count as lost), puts back the disposition it found, and raises the signal
//! again, so the process ends exactly as it would have. A program that installs its own
//! handler later replaces this one (Python's `SIGINT` handler, for one, turns `Ctrl-C`
//! into a normal exit, which writes the report anyway).
//!
//! Writing a report is not async-signal-safe (it allocates and takes locks). It is done
//! only when the runtime's locks are free, waited for at most [`LOCKS_WAIT`]; a crash inside
//! a locked section loses the report rather than hanging the process.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// The signals after which a process would otherwise end without its report.
const FATAL: [libc::c_int; 9] = [
    libc::SIGTERM,
    libc::SIGINT,
    libc::SIGHUP,
    libc::SIGQUIT,
    libc::SIGABRT,
    libc::SIGSEGV,
    libc::SIGBUS,
    libc::SIGFPE,
    libc::SIGILL,
];

/// How long the handler waits for the runtime's locks and delivered read-backs.
const LOCKS_WAIT: Duration = Duration::from_secs(2);

/// The dispositions found at installation, by signal number, restored before re-raising.
static PREVIOUS: Mutex<Vec<(libc::c_int, libc::sigaction)>> = Mutex::new(Vec::new());
static INSTALLED: AtomicBool = AtomicBool::new(false);

/// Installs the handler for every signal of [`FATAL`] whose disposition is the default
/// one (an ignored signal stays ignored; a handler the program set stays its own).
pub fn install() {
    if INSTALLED.swap(true, Ordering::AcqRel) {
        return;
    }
    let mut previous = lock(&PREVIOUS);
    for sig in FATAL {
        // SAFETY: zeroed sigaction structs are valid; `old` is an out-parameter.
        unsafe {
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(sig, std::ptr::null(), &mut old) != 0
                || old.sa_sigaction != libc::SIG_DFL
            {
                continue;
            }
            let mut new: libc::sigaction = std::mem::zeroed();
            new.sa_sigaction = on_fatal as *const () as libc::sighandler_t;
            new.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut new.sa_mask);
            if libc::sigaction(sig, &new, std::ptr::null_mut()) == 0 {
                previous.push((sig, old));
            }
        }
    }
}

extern "C" fn on_fatal(sig: libc::c_int) {
    if locks_free_within(LOCKS_WAIT) {
        crate::write_report(LOCKS_WAIT);
    }
    // Not `lock`: the signal may have come while this thread was installing.
    let old = PREVIOUS
        .try_lock()
        .ok()
        .and_then(|p| p.iter().find(|(s, _)| *s == sig).map(|(_, a)| *a));
    // SAFETY: restoring the disposition found at installation (the default one), then
    // raising the signal again so the process ends as it would have without us.
    unsafe {
        match old {
            Some(old) => libc::sigaction(sig, &old, std::ptr::null_mut()),
            None => {
                let mut dfl: libc::sigaction = std::mem::zeroed();
                dfl.sa_sigaction = libc::SIG_DFL;
                libc::sigaction(sig, &dfl, std::ptr::null_mut())
            }
        };
        libc::raise(sig);
    }
}

/// Whether the runtime's tables and maps can be locked within `wait` (they are not, for
/// good, when a signal interrupted this very thread inside them, or in a fork child whose
/// parent had another thread inside them).
pub(crate) fn locks_free_within(wait: Duration) -> bool {
    let start = std::time::Instant::now();
    while start.elapsed() < wait {
        if crate::state::locks_free() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    false
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}
