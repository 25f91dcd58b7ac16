//! What `ptxas` really costs on a module: its CPU time and peak resident memory, from the
//! kernel's accounting of the child (`wait4`), for `warptrace instrument --assemble` and
//! the budget's measured test. The driver's JIT is `ptxas` in the process; assembling with
//! the same release for the same architecture measures what a first launch pays.

use super::Cost;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

/// Why a module could not be measured.
#[derive(Debug, thiserror::Error)]
pub enum MeasureError {
    /// `ptxas` could not be started, or its input written.
    #[error("cannot run {ptxas}: {source}")]
    Spawn {
        /// The `ptxas` run.
        ptxas: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// `ptxas` rejected the module.
    #[error("ptxas rejected the module: {0}")]
    Rejected(String),
    /// `ptxas` ran past the time limit and was stopped.
    #[error("ptxas ran past {0:?} and was stopped")]
    TimedOut(Duration),
}

impl MeasureError {
    fn spawn(ptxas: &Path, source: std::io::Error) -> MeasureError {
        MeasureError::Spawn {
            ptxas: ptxas.display().to_string(),
            source,
        }
    }
}

/// Assembles `ptx` for `arch` (`sm_90a`) with `ptxas` (output discarded), stopping it after
/// `limit`: its CPU time and peak memory, start-up included. With `entry`, only that
/// kernel (and what it calls) is compiled (`ptxas -e`); the whole module is still read.
pub fn measure(
    ptxas: &Path,
    arch: &str,
    ptx: &str,
    entry: Option<&str>,
    limit: Duration,
) -> Result<Cost, MeasureError> {
    let spawn = |source| MeasureError::spawn(ptxas, source);
    let dir = tempfile::tempdir().map_err(spawn)?;
    let input = dir.path().join("module.ptx");
    std::fs::write(&input, ptx).map_err(spawn)?;
    run(ptxas, arch, &input, entry, limit)
}

fn run(
    ptxas: &Path,
    arch: &str,
    input: &Path,
    entry: Option<&str>,
    limit: Duration,
) -> Result<Cost, MeasureError> {
    let spawn = |source| MeasureError::spawn(ptxas, source);
    let mut child = Command::new(ptxas)
        .arg(format!("-arch={arch}"))
        .args(entry.iter().flat_map(|e| ["-e", e]))
        .arg(input)
        .args(["-o", "/dev/null"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(spawn)?;
    let pid = child.id() as libc::pid_t;
    let stderr = child.stderr.take();
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        if let Some(mut s) = stderr {
            let _ = std::io::Read::read_to_string(&mut s, &mut text);
        }
        text
    });
    let start = std::time::Instant::now();
    // Peak memory from the child's own high-water mark, sampled while it runs: wait4's
    // ru_maxrss also counts the memory of this process, which the child was forked from.
    let mut peak_kb = 0u64;
    let (status, usage) = loop {
        peak_kb = peak_kb.max(high_water_kb(pid).unwrap_or(0));
        let mut status = 0;
        // SAFETY: an all-zero rusage is valid; the out-pointers live for the call.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: pid is our child, not yet reaped (only this loop reaps it).
        let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        if r == pid {
            break (status, usage);
        }
        if r < 0 {
            return Err(spawn(std::io::Error::last_os_error()));
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            // SAFETY: as above; reaps the killed child.
            unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
            return Err(MeasureError::TimedOut(limit));
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let text = reader.join().unwrap_or_default();
    if !(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0) {
        let first = text
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("no message");
        return Err(MeasureError::Rejected(first.to_owned()));
    }
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    Ok(Cost {
        seconds: secs(usage.ru_utime) + secs(usage.ru_stime),
        megabytes: peak_kb as f64 / 1024.0,
    })
}

/// `VmHWM` of a running process, in kilobytes (`None` once it has exited).
fn high_water_kb(pid: libc::pid_t) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
