//! Live results while the program runs (docs/live.md). A thread of the runtime's own:
//! - every `WARPTRACE_LIVE_MS` (when set: the CLI's `interval` blocks need it), writes this
//!   process's report so far to `$WARPTRACE_RESULTS/live/<pid>.json` — whole, then
//!   renamed into place, so the CLI never reads half a snapshot;
//! - watches for `$WARPTRACE_RESULTS/detach` (the CLI's `exit()`, or SIGINT to the CLI):
//!   then tracing stops for the rest of the process (every wrapper forwards, later launches
//!   run the original kernels), the read-backs already under way are waited for (bounded),
//!   the resident buffers are read back (synchronizing their contexts, from this thread),
//!   a last snapshot is written, then `live/<pid>.detached`, and the thread ends. A launch
//!   the application was making at that instant may be left out (it is in the report at
//!   exit, which the CLI no longer reads).
//!
//! A snapshot holds what the read-backs merged so far: launches in flight are not in it
//! yet (they are in the next). The CLI subtracts each process's previous snapshot, so a
//! snapshot carries running totals and nothing is merged twice.

use crate::config::{self, Config};
use crate::state;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How often the detach request is looked for when no snapshots are due sooner.
const POLL: Duration = Duration::from_millis(100);
/// How long a detach waits for read-backs under way.
const SETTLE: Duration = Duration::from_secs(2);

/// The file the CLI creates to stop tracing.
pub const DETACH_FILE: &str = "detach";
/// The directory of the snapshots, under the results directory.
pub const LIVE_DIR: &str = "live";

/// Starts the thread, when there is a results directory to write to.
pub(crate) fn start(cfg: &'static Config) {
    let Some(results) = cfg.results.clone() else {
        return;
    };
    let spawned = std::thread::Builder::new()
        .name("warptrace-live".into())
        .spawn(move || watch(cfg, &results));
    if let Err(e) = spawned {
        config::warn(format_args!(
            "no live results: cannot start a thread ({e}); results come at exit"
        ));
    }
}

fn watch(cfg: &'static Config, results: &Path) {
    let pid = std::process::id();
    let live = results.join(LIVE_DIR);
    let mut next = cfg.live.map(|p| Instant::now() + p);
    loop {
        let now = Instant::now();
        let wait = next.map_or(POLL, |t| t.saturating_duration_since(now).min(POLL));
        std::thread::sleep(wait);
        if results.join(DETACH_FILE).exists() {
            config::detach();
            crate::launch::settle(SETTLE);
            // A process that used CUDA: its resident buffers, read back from this thread,
            // whose synchronizations must not be refused by (or invalidate) a global capture.
            if let Some(d) = crate::driver::resolved() {
                crate::capture::Relaxed::new(d).for_good();
                crate::resident::flush(d, |_, _| true);
            }
            snapshot(cfg, &live, pid);
            let marker = live.join(format!("{pid}.detached"));
            if let Err(e) =
                std::fs::create_dir_all(&live).and_then(|()| std::fs::write(&marker, ""))
            {
                config::warn(format_args!("cannot write {}: {e}", marker.display()));
            }
            config::verbose(format_args!("detached: later launches run untraced"));
            return;
        }
        if let (Some(t), Some(period)) = (next, cfg.live) {
            if Instant::now() >= t {
                snapshot(cfg, &live, pid);
                next = Some(t + period);
            }
        }
    }
}

/// Writes this process's report so far as `dir/<pid>.json`, atomically.
fn snapshot(cfg: &Config, dir: &Path, pid: u32) {
    let written = std::panic::catch_unwind(|| {
        let report = state::report(cfg.program.program());
        let json = serde_json::to_string(&report).unwrap_or_default();
        let path = dir.join(format!("{pid}.json"));
        let tmp: PathBuf = dir.join(format!(".{pid}.json.tmp"));
        std::fs::create_dir_all(dir)
            .and_then(|()| std::fs::write(&tmp, json))
            .and_then(|()| std::fs::rename(&tmp, &path))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))
    });
    match written {
        Ok(Ok(())) => {}
        Ok(Err(e)) => config::warn(format_args!("{e}")),
        Err(_) => config::warn(format_args!("a live snapshot failed")),
    }
}
