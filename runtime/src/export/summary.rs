//! `summary.json` (the run's counters, per process too, every kernel's state and every
//! map's drops and lost records), `index.json` (the files written), and the counters
//! `-f json` prints as its `summary` record.

use super::tables::{Column, Table};
use super::{ChromeTrace, RunResults, TraceOptions};
use crate::report::{demangle, CacheSummary, KernelReport, KernelState, Reason, Report, Summary};
use serde::Serialize;
use std::collections::BTreeMap;
use warptrace_ir::{MapKind, ValueKind};

/// The run's counters, overall and per traced process: what `-f json` prints as its
/// `{"type": "summary", …}` record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RunCounts {
    /// The processes that reported, in increasing order.
    pub pids: Vec<u32>,
    /// Counters over every process.
    #[serde(flatten)]
    pub counts: Counts,
    /// Each process's counters, by pid.
    pub processes: Vec<ProcessCounts>,
}

/// The counters of a run or of one process.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Kernels instrumented.
    pub kernels_instrumented: u64,
    /// Selected kernels that ran uninstrumented.
    pub kernels_skipped: u64,
    /// Launches that ran with probes.
    pub launches_probed: u64,
    /// Launches of selected kernels that ran the original kernel.
    pub launches_unprobed: u64,
    /// Probed launches whose maps never came back before exit.
    pub launches_lost: u64,
    /// Why kernels were skipped and launches unprobed, with counts.
    pub reasons: BTreeMap<Reason, u64>,
}

impl From<&Summary> for Counts {
    fn from(s: &Summary) -> Counts {
        Counts {
            kernels_instrumented: s.kernels_instrumented,
            kernels_skipped: s.kernels_skipped,
            launches_probed: s.launches_probed,
            launches_unprobed: s.launches_unprobed,
            launches_lost: s.launches_lost,
            reasons: s.reasons.clone(),
        }
    }
}

/// One process's counters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProcessCounts {
    /// The process id.
    pub pid: u32,
    /// Its counters.
    #[serde(flatten)]
    pub counts: Counts,
}

/// The counters of `report`: overall, and per process (a single process's own report is
/// its one process).
pub fn run_counts(report: &Report) -> RunCounts {
    let processes = if report.processes.is_empty() {
        report
            .pids
            .iter()
            .map(|&pid| ProcessCounts {
                pid,
                counts: Counts::from(&report.summary),
            })
            .take(1)
            .collect()
    } else {
        report
            .processes
            .iter()
            .map(|p| ProcessCounts {
                pid: p.pid,
                counts: Counts::from(&p.summary),
            })
            .collect()
    };
    RunCounts {
        pids: report.pids.clone(),
        counts: Counts::from(&report.summary),
        processes,
    }
}

/// `summary.json`.
#[derive(Debug, Serialize)]
pub(crate) struct RunSummary<'a> {
    generator: String,
    #[serde(flatten)]
    counts: RunCounts,
    #[serde(skip_serializing_if = "CacheSummary::is_empty")]
    cache: &'a CacheSummary,
    kernels: Vec<KernelRow>,
    /// Per process: its kernels (its counters are in `processes`).
    process_kernels: Vec<ProcessKernels>,
    maps: Vec<MapRow>,
    trace: Option<TraceRow>,
}

#[derive(Debug, Serialize)]
struct KernelRow {
    name: String,
    mangled: String,
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    sites: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<Reason>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason_text: Option<&'static str>,
    #[serde(skip_serializing_if = "String::is_empty")]
    detail: String,
    launches_probed: u64,
    launches_unprobed: u64,
}

impl From<&KernelReport> for KernelRow {
    fn from(k: &KernelReport) -> KernelRow {
        let (status, sites, reason, detail) = match &k.status {
            KernelState::Instrumented { sites } => ("instrumented", Some(*sites), None, ""),
            KernelState::Skipped { reason, detail } => {
                ("skipped", None, Some(*reason), detail.as_str())
            }
        };
        KernelRow {
            name: demangle(&k.name),
            mangled: k.name.clone(),
            status,
            sites,
            reason,
            reason_text: reason.map(Reason::describe),
            detail: detail.to_string(),
            launches_probed: k.launches_probed,
            launches_unprobed: k.launches_unprobed,
        }
    }
}

#[derive(Debug, Serialize)]
struct ProcessKernels {
    pid: u32,
    kernels: Vec<KernelRow>,
}

#[derive(Debug, Serialize)]
struct MapRow {
    name: String,
    storage: &'static str,
    value: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<String>,
    /// Hash maps: keys in the table.
    #[serde(skip_serializing_if = "Option::is_none")]
    entries: Option<u64>,
    /// Rings and arrays: records in the table.
    #[serde(skip_serializing_if = "Option::is_none")]
    records: Option<u64>,
    drops: u64,
    lost: u64,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    by_pid: Vec<crate::report::PidShare>,
}

#[derive(Debug, Serialize)]
struct TraceRow {
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<String>,
    maps: Vec<String>,
    events: u64,
    skipped_records: u64,
    time_unit: String,
}

fn value_name(v: &ValueKind) -> &'static str {
    match v {
        ValueKind::Count => "count",
        ValueKind::Sum { .. } => "sum",
        ValueKind::Min { .. } => "min",
        ValueKind::Max { .. } => "max",
        ValueKind::Avg { .. } => "avg",
        ValueKind::Stats { .. } => "stats",
        ValueKind::Hist => "hist",
        ValueKind::Lhist { .. } => "lhist",
        ValueKind::Value { .. } => "value",
        ValueKind::Record(_) => "record",
        ValueKind::Printf { .. } => "printf",
    }
}

/// `summary.json` of `run`: `map_files` names each map's table, `trace_file` the trace
/// (when written).
pub(crate) fn run_summary<'a>(
    run: RunResults<'a>,
    map_files: &[(String, String)],
    trace_file: Option<&str>,
    trace: &ChromeTrace,
    options: TraceOptions,
) -> RunSummary<'a> {
    let report = run.report;
    let maps = run
        .program
        .maps
        .iter()
        .enumerate()
        .map(|(i, decl)| {
            let reported = report.maps.iter().find(|m| m.name == decl.name);
            let hash = matches!(decl.kind, MapKind::Hash { .. });
            let stored = run.store.maps.get(i);
            MapRow {
                name: format!("@{}", decl.name),
                storage: match decl.kind {
                    MapKind::Hash { .. } => "hash",
                    MapKind::Ring { .. } => "ring",
                    MapKind::Array { .. } => "array",
                },
                value: value_name(&decl.value),
                file: map_files
                    .iter()
                    .find(|(n, _)| *n == decl.name)
                    .map(|(_, f)| f.clone()),
                entries: hash.then(|| stored.map_or(0, |s| s.entries.len() as u64)),
                records: (!hash).then(|| reported.map_or(0, |m| m.records.len() as u64)),
                drops: reported.map_or(0, |m| m.drops),
                lost: reported.map_or(0, |m| m.lost),
                // Each process's share, where any process has one.
                by_pid: reported
                    .filter(|m| m.records.len() as u64 + m.drops + m.lost > 0)
                    .map(|m| m.by_pid.clone())
                    .unwrap_or_default(),
            }
        })
        .collect();
    let trace_row = (!trace.maps.is_empty()).then(|| TraceRow {
        file: trace_file.map(str::to_string),
        maps: trace.maps.iter().map(|m| format!("@{m}")).collect(),
        events: trace.len() as u64,
        skipped_records: trace.skipped,
        time_unit: options.time_unit(),
    });
    RunSummary {
        generator: format!("warptrace {}", env!("CARGO_PKG_VERSION")),
        counts: run_counts(report),
        cache: &report.summary.cache,
        kernels: report.kernel_status.iter().map(KernelRow::from).collect(),
        process_kernels: report
            .processes
            .iter()
            .map(|p| ProcessKernels {
                pid: p.pid,
                kernels: p.kernel_status.iter().map(KernelRow::from).collect(),
            })
            .collect(),
        maps,
        trace: trace_row,
    }
}

/// `index.json`: every file written, what it holds, and for tables their rows and columns.
#[derive(Debug, Serialize)]
pub(crate) struct Index {
    generator: String,
    files: Vec<IndexEntry>,
}

impl Index {
    pub(crate) fn new(files: Vec<IndexEntry>) -> Index {
        Index {
            generator: format!("warptrace {}", env!("CARGO_PKG_VERSION")),
            files,
        }
    }
}

/// One file of the index.
#[derive(Debug, Serialize)]
pub(crate) struct IndexEntry {
    /// The file's name in the directory.
    pub file: String,
    contents: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    rows: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    columns: Option<Vec<Column>>,
}

impl IndexEntry {
    pub(crate) fn table(file: &str, table: &Table) -> IndexEntry {
        IndexEntry {
            file: file.to_string(),
            contents: table.contents.clone(),
            rows: Some(table.rows.len() as u64),
            columns: Some(table.columns.clone()),
        }
    }

    pub(crate) fn trace(file: &str, trace: &ChromeTrace) -> IndexEntry {
        IndexEntry {
            file: file.to_string(),
            contents: format!(
                "Chrome/Perfetto trace (Trace Event Format) of the timing records of {}: \
                 pid = kernel / SM / CTA, tid = warp; times are {}",
                trace
                    .maps
                    .iter()
                    .map(|m| format!("@{m}"))
                    .collect::<Vec<_>>()
                    .join(", "),
                trace.time_unit()
            ),
            rows: Some(trace.len() as u64),
            columns: None,
        }
    }

    pub(crate) fn summary(file: &str) -> IndexEntry {
        IndexEntry {
            file: file.to_string(),
            contents: "the run's summary: processes (pids) and their counters, kernels \
                       instrumented or skipped and why, launches, every map's drops and lost \
                       records (per pid too), the trace"
                .to_string(),
            rows: None,
            columns: None,
        }
    }

    pub(crate) fn index(file: &str) -> IndexEntry {
        IndexEntry {
            file: file.to_string(),
            contents: "this list of files".to_string(),
            rows: None,
            columns: None,
        }
    }
}
