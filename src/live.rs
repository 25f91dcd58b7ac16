//! Live results on the CLI's side (docs/live.md): the clock of the `interval` blocks, the
//! traced processes' snapshots merged into the host's maps as increments, and detaching —
//! `exit()` in an `interval` block, or SIGINT to warptrace — after which the program goes
//! on untraced and warptrace prints what it has.
//!
//! Each traced process's runtime writes running totals (`runtime/src/live.rs`); the host
//! merges, per process, what a snapshot added since that process's previous one
//! ([`MapStore::since`]), and at the end what its final report added since its last
//! snapshot. So a map holds every launch once, and `clear(@m)` in an `interval` block
//! makes the next print show what came since, as bpftrace's does.

use crate::host::Host;
use anyhow::{Context, Result};
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Child, ExitStatus};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use warptrace_ir::{HostEvent, MapStore, Program};
use warptrace_runtime::{report_store, Report, DETACH_FILE, LIVE_DIR};

/// How often the program's exit and SIGINT are looked for between ticks.
const POLL: Duration = Duration::from_millis(20);
/// How long a detach waits for the processes to confirm (their runtimes wait up to 2 s for
/// read-backs under way first).
const DETACH_WAIT: Duration = Duration::from_secs(5);
/// How long no new confirmation must come before the detach is taken as complete.
const DETACH_QUIET: Duration = Duration::from_millis(300);

/// The period of the runtime's snapshots: the shortest `interval` block's, in whole
/// milliseconds (at least 1); `None` without `interval` blocks.
pub fn snapshot_ms(program: &Program) -> Option<u64> {
    program
        .host
        .iter()
        .filter_map(|b| match b.event {
            HostEvent::Interval { us } => Some((us / 1000).max(1)),
            _ => None,
        })
        .min()
}

/// How a run ended.
#[derive(Debug)]
pub enum Ended {
    /// The program exited.
    Exited(ExitStatus),
    /// Tracing stopped while the program goes on: `why`, for the summary.
    Detached(&'static str),
    /// A run without a program (host blocks only) stopped: `exit()` or SIGINT.
    Stopped,
}

/// Ticks missed by more than this many periods are skipped rather than caught up.
const CATCH_UP: u32 = 10;

/// The `interval` blocks' schedule: each distinct period's next tick.
struct Clock {
    timers: Vec<(HostEvent, Duration, Instant)>,
}

impl Clock {
    fn new(program: &Program, start: Instant) -> Clock {
        let mut timers: Vec<(HostEvent, Duration, Instant)> = Vec::new();
        for b in &program.host {
            if let HostEvent::Interval { us } = b.event {
                if !timers.iter().any(|t| t.0 == b.event) {
                    let period = Duration::from_micros(us);
                    timers.push((b.event, period, start + period));
                }
            }
        }
        Clock { timers }
    }

    /// The earliest tick due by `now` (ties in program order), rescheduled: ticks run in
    /// the order of their schedule however late the loop is, so the blocks' order does not
    /// depend on the machine's load (a run far behind skips ahead instead).
    fn due(&mut self, now: Instant) -> Option<HostEvent> {
        let t = self
            .timers
            .iter_mut()
            .filter(|t| t.2 <= now)
            .min_by_key(|t| t.2)?;
        t.2 += t.1;
        if t.2 + t.1 * CATCH_UP < now {
            t.2 = now + t.1;
        }
        Some(t.0)
    }

    fn next(&self) -> Option<Instant> {
        self.timers.iter().map(|t| t.2).min()
    }
}

/// Watches a traced program (or a run of host blocks alone): runs the `interval` blocks
/// at their periods on the host's maps, and detaches on `exit()` or SIGINT.
pub struct Supervisor<'p> {
    program: &'p Program,
    /// Where the runtimes write (none without a program).
    results: Option<PathBuf>,
    /// Each process's last snapshot merged into the host, by report file name.
    seen: BTreeMap<OsString, MapStore>,
    interrupted: Arc<AtomicBool>,
}

impl<'p> Supervisor<'p> {
    /// After the program was spawned (a handler, unlike an ignored signal, is not inherited
    /// across its exec): SIGINT to warptrace from now on detaches instead of ending it.
    pub fn new(program: &'p Program, results: Option<&Path>) -> Result<Supervisor<'p>> {
        let interrupted = Arc::new(AtomicBool::new(false));
        signal_hook::flag::register(signal_hook::consts::SIGINT, interrupted.clone())
            .context("cannot watch for SIGINT")?;
        Ok(Supervisor {
            program,
            results: results.map(Path::to_path_buf),
            seen: BTreeMap::new(),
            interrupted,
        })
    }

    /// Until the program exits or tracing detaches; without a program, until `exit()` or
    /// SIGINT.
    pub fn watch(&mut self, mut child: Option<&mut Child>, host: &mut Host<'_>) -> Result<Ended> {
        let mut clock = Clock::new(self.program, Instant::now());
        loop {
            if let Some(c) = child.as_deref_mut() {
                if let Some(status) = c.try_wait().context("waiting for the traced program")? {
                    return Ok(Ended::Exited(status));
                }
            }
            if self.interrupted.load(Ordering::Relaxed) {
                return self.stop(child, "SIGINT");
            }
            if let Some(event) = clock.due(Instant::now()) {
                if let Some(results) = &self.results {
                    let dir = results.join(LIVE_DIR);
                    self.take(host, &dir)?;
                    host.print_device_events()?;
                }
                if host.run(event)? {
                    return self.stop(child, "exit()");
                }
                continue;
            }
            let wait = clock
                .next()
                .map_or(POLL, |n| n.saturating_duration_since(Instant::now()));
            std::thread::sleep(wait.min(POLL));
        }
    }

    fn stop(&mut self, child: Option<&mut Child>, why: &'static str) -> Result<Ended> {
        match child {
            Some(c) => self.detach(c, why),
            None => Ok(Ended::Stopped),
        }
    }

    /// Asks every traced process to stop tracing and waits (bounded) for them to confirm;
    /// the program's exit meanwhile ends it as an exit.
    fn detach(&mut self, child: &mut Child, why: &'static str) -> Result<Ended> {
        let Some(results) = self.results.clone() else {
            return Ok(Ended::Stopped);
        };
        let request = results.join(DETACH_FILE);
        std::fs::write(&request, why)
            .with_context(|| format!("cannot write {}", request.display()))?;
        let dir = results.join(LIVE_DIR);
        let deadline = Instant::now() + DETACH_WAIT;
        let (mut confirmed, mut since) = (0, Instant::now());
        loop {
            if let Some(status) = child.try_wait().context("waiting for the traced program")? {
                return Ok(Ended::Exited(status));
            }
            let n = count(&dir, "detached");
            if n != confirmed {
                (confirmed, since) = (n, Instant::now());
            }
            let now = Instant::now();
            if (confirmed > 0 && now - since >= DETACH_QUIET) || now >= deadline {
                if confirmed == 0 {
                    eprintln!(
                        "warptrace: warning: no traced process confirmed the detach within \
                         {} s: what they last wrote is shown",
                        DETACH_WAIT.as_secs()
                    );
                }
                return Ok(Ended::Detached(why));
            }
            std::thread::sleep(POLL);
        }
    }

    /// Merges into the host what each process's report in `dir` added since the last one
    /// of it merged; returns the reports merged (their summaries are running totals).
    pub fn take(&mut self, host: &mut Host<'_>, dir: &Path) -> Result<Report> {
        let mut reports = Vec::new();
        let Ok(entries) = std::fs::read_dir(dir) else {
            return Ok(Report::merge(reports));
        };
        for entry in entries {
            let path = entry?.path();
            let name = path.file_name().map(OsString::from).unwrap_or_default();
            let is_report = path.extension().is_some_and(|e| e == "json")
                && !name.to_string_lossy().starts_with('.');
            if !is_report {
                continue;
            }
            let text = std::fs::read_to_string(&path)?;
            let report: Report = serde_json::from_str(&text)
                .with_context(|| format!("malformed runtime report {}", path.display()))?;
            let store = report_store(self.program, &report);
            let added = match self.seen.get(&name) {
                Some(earlier) => store.since(earlier),
                None => store.clone(),
            };
            host.add_store(added, &report.kernels);
            self.seen.insert(name, store);
            reports.push(report);
        }
        Ok(Report::merge(reports))
    }
}

/// Files in `dir` with extension `ext`.
fn count(dir: &Path, ext: &str) -> usize {
    std::fs::read_dir(dir).map_or(0, |entries| {
        entries
            .filter_map(|e| e.ok())
            .filter(|e| e.path().extension().is_some_and(|x| x == ext))
            .count()
    })
}
