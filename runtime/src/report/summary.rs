//! The run summary printed on stderr: counters, per process when several launched
//! kernels, the module cache, drops and lost records (split by pid), and with `-v` every
//! kernel.

use super::{demangle, CacheSummary, KernelReport, KernelState, PidShare, ProcessReport};
use super::{Reason, Report, Summary};
use std::collections::BTreeMap;
use std::fmt::Write as _;

fn reason_list(reasons: &BTreeMap<Reason, u64>, kernel_level: bool) -> Vec<String> {
    reasons
        .iter()
        .filter(|(r, &n)| r.is_kernel_level() == kernel_level && n > 0)
        .map(|(r, n)| format!("{}: {n}", r.describe()))
        .collect()
}

/// The run summary, one line (`warptrace: 2 kernels instrumented, 1 skipped (no PTX: 1),
/// 40 launches probed, 0 unprobed`); when several traced processes selected or launched
/// kernels, the same counters for each of them (`warptrace:   pid 4242: 1 kernel
/// instrumented, …`) and how many others did nothing (launchers, shells); then a line
/// per map that lost records (`warptrace: @trace: 3 records lost (ring full, overwritten
/// or torn)`, split by pid when several processes lost some) or, failing that, dropped
/// updates, and one per map with records past `--max-records`; with `verbose`, a line per kernel (and per kernel of each process).
pub fn render_summary(report: &Report, verbose: bool) -> String {
    let mut line = format!("warptrace: {}\n", counts(&report.summary));
    let (active, idle): (Vec<&ProcessReport>, Vec<&ProcessReport>) =
        report.processes.iter().partition(|p| p.is_active());
    if active.len() > 1 {
        for p in &active {
            let _ = writeln!(line, "warptrace:   pid {}: {}", p.pid, counts(&p.summary));
        }
        if !idle.is_empty() {
            let _ = writeln!(
                line,
                "warptrace:   and {} other {} that launched no selected kernel",
                idle.len(),
                if idle.len() == 1 {
                    "process"
                } else {
                    "processes"
                }
            );
        }
    }
    let s = &report.summary;
    cache_lines(&mut line, &s.cache, verbose);
    for map in &report.maps {
        if map.lost > 0 {
            let _ = writeln!(
                line,
                "warptrace: @{}: {} records lost (ring full, overwritten or torn){}",
                map.name,
                map.lost,
                pid_split(&map.by_pid, |s| s.lost)
            );
        } else if map.drops > 0 {
            let _ = writeln!(
                line,
                "warptrace: @{}: {} updates dropped (map full){}",
                map.name,
                map.drops,
                pid_split(&map.by_pid, |s| s.drops)
            );
        }
        if map.over_limit > 0 {
            let _ = writeln!(
                line,
                "warptrace: @{}: {} records not kept: a process keeps a map's first \
                 {} (--max-records)",
                map.name, map.over_limit, report.summary.max_records
            );
        }
    }
    if verbose {
        kernel_lines(&mut line, &report.kernel_status, "");
        if active.len() > 1 {
            for p in &active {
                let _ = writeln!(line, "warptrace:   pid {}:", p.pid);
                kernel_lines(&mut line, &p.kernel_status, "  ");
            }
        }
    }
    line
}

/// ` [pid 10: 2, pid 11: 1]`: which processes a count came from, when several processes
/// reported the map (those with none are left out); empty for one.
fn pid_split(shares: &[PidShare], count: impl Fn(&PidShare) -> u64) -> String {
    if shares.len() < 2 {
        return String::new();
    }
    let parts: Vec<String> = shares
        .iter()
        .filter(|s| count(s) > 0)
        .map(|s| format!("pid {}: {}", s.pid, count(s)))
        .collect();
    format!(" [{}]", parts.join(", "))
}

/// A line per kernel with its state and launches (`-v`), indented by `indent`.
fn kernel_lines(out: &mut String, kernels: &[KernelReport], indent: &str) {
    for k in kernels {
        let state = match &k.status {
            KernelState::Instrumented { sites } => format!("instrumented, {sites} sites"),
            KernelState::Skipped { reason, detail } if detail.is_empty() => {
                format!("skipped: {}", reason.describe())
            }
            KernelState::Skipped { reason, detail } => {
                format!("skipped: {}: {detail}", reason.describe())
            }
        };
        let _ = writeln!(
            out,
            "warptrace:   {indent}{}: {state}; {} launches probed, {} unprobed",
            demangle(&k.name),
            k.launches_probed,
            k.launches_unprobed
        );
    }
}

/// The counters of the summary line: `2 kernels instrumented, 1 skipped (no PTX: 1), 40
/// launches probed, 0 unprobed`.
fn counts(s: &Summary) -> String {
    let plural = |n: u64, one: &str, many: &str| {
        if n == 1 {
            one.to_string()
        } else {
            many.to_string()
        }
    };
    let mut line = format!(
        "{} {} instrumented, {} skipped",
        s.kernels_instrumented,
        plural(s.kernels_instrumented, "kernel", "kernels"),
        s.kernels_skipped
    );
    let skipped = reason_list(&s.reasons, true);
    if !skipped.is_empty() {
        let _ = write!(line, " ({})", skipped.join(", "));
    }
    let _ = write!(
        line,
        ", {} {} probed",
        s.launches_probed,
        plural(s.launches_probed, "launch", "launches"),
    );
    if s.graph_nodes > 0 {
        let _ = write!(
            line,
            " (replays included, of {} probed kernel {} in CUDA graphs)",
            s.graph_nodes,
            plural(s.graph_nodes, "node", "nodes")
        );
    }
    let _ = write!(line, ", {} unprobed", s.launches_unprobed);
    let launch_reasons: u64 = s
        .reasons
        .iter()
        .filter(|(r, _)| !r.is_kernel_level())
        .map(|(_, n)| n)
        .sum();
    let mut unprobed = reason_list(&s.reasons, false);
    if s.launches_unprobed > launch_reasons && !unprobed.is_empty() {
        unprobed.insert(
            0,
            format!("skipped kernels: {}", s.launches_unprobed - launch_reasons),
        );
    }
    if !unprobed.is_empty() {
        let _ = write!(line, " ({})", unprobed.join(", "));
    }
    if s.launches_lost > 0 {
        let _ = write!(
            line,
            ", {} lost (results not read back before exit)",
            s.launches_lost
        );
    }
    if s.launches_other > 0 {
        let seen = s.launches_probed + s.launches_unprobed + s.launches_other;
        let _ = write!(
            line,
            "; reach: {:.1}% of {seen} launches ran probes ({} of kernels no probe selects)",
            100.0 * s.launches_probed as f64 / seen as f64,
            s.launches_other
        );
    }
    if s.device_ns > 0 {
        let _ = write!(
            line,
            "{} {:.1}% of {:.3} ms of device time",
            if s.launches_other > 0 {
                ","
            } else {
                "; reach:"
            },
            100.0 * s.device_ns_probed as f64 / s.device_ns as f64,
            s.device_ns as f64 / 1e6
        );
    }
    line
}

/// The cache line of the summary (`warptrace: module cache: 2 hits, 0 misses, 0 written,
/// 0 write failures; JIT 0.0 ms`), when anything was looked up, written or JIT-compiled;
/// with `verbose`, the explanation of each unusable entry and failed write.
fn cache_lines(out: &mut String, c: &CacheSummary, verbose: bool) {
    if c.is_empty() {
        return;
    }
    let plural = |n: u64, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let _ = writeln!(
        out,
        "warptrace: module cache: {}, {}, {} written, {}; JIT {:.1} ms",
        plural(c.hits, "hit", "hits"),
        plural(c.misses, "miss", "misses"),
        c.written,
        plural(c.write_failures, "write failure", "write failures"),
        c.jit_us as f64 / 1000.0
    );
    if verbose {
        for note in &c.notes {
            let _ = writeln!(out, "warptrace:   cache: {note}");
        }
    }
}
