//! The per-process result file and its rendering: pure functions the CLI calls after the
//! traced program exits.

use crate::output::{text, KeyPart, Kind, MapOutput, Number, Value};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use warptrace_ir::{KeyType, Program, ValueKind};

/// Version of the report's JSON format.
pub const REPORT_FORMAT: u32 = 1;

/// Everything one traced process (or, after [`Report::merge`], several) produced.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Report {
    /// [`REPORT_FORMAT`].
    pub format: u32,
    /// The processes merged into this report.
    pub pids: Vec<u32>,
    /// One entry per map of the program, in program order.
    pub maps: Vec<MapReport>,
    /// Kernel id ([`warptrace_ir::kernel_id`]) → mangled name, for `kernel` keys.
    pub kernels: BTreeMap<u64, String>,
    /// Counters over the whole run.
    pub summary: Summary,
    /// What happened to each kernel a probe selected, by mangled name.
    pub kernel_status: Vec<KernelReport>,
}

/// One map's contents.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MapReport {
    /// Name without `@`.
    pub name: String,
    /// Every key tuple seen, with its aggregated value (raw 64-bit words).
    pub entries: Vec<MapEntry>,
    /// Updates lost because the table was full.
    pub drops: u64,
}

/// One key tuple and its value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MapEntry {
    /// Key words, one per key component.
    pub keys: Vec<u64>,
    /// The aggregated value (two's complement for signed sums).
    pub value: u64,
}

/// Why a kernel or a launch ran without probes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    /// The loaded image carries no PTX (e.g. SASS only).
    NoPtx,
    /// The probe uses an operation the PTX back end cannot lower yet.
    Unsupported,
    /// The code generator could not parse or instrument the PTX.
    ParseError,
    /// The kernel-level verifier rejected the spliced kernel.
    VerifierRejection,
    /// The kernel has no instruction the probes attach to.
    NoSites,
    /// The driver could not JIT the instrumented PTX.
    JitError,
    /// The map buffer (device or pinned host) could not be allocated.
    MapAlloc,
    /// The launch was being captured into a CUDA graph.
    Capture,
    /// The launch passed its parameters through `extra`.
    ExtraParams,
    /// The instrumented launch or its read-back could not be enqueued.
    LaunchError,
}

impl Reason {
    /// Whether the reason concerns a kernel as a whole (as opposed to one launch).
    pub fn is_kernel_level(self) -> bool {
        !matches!(
            self,
            Reason::MapAlloc | Reason::Capture | Reason::ExtraParams | Reason::LaunchError
        )
    }

    /// Short text for summaries.
    pub fn describe(self) -> &'static str {
        match self {
            Reason::NoPtx => "no PTX",
            Reason::Unsupported => "not supported yet",
            Reason::ParseError => "parse error",
            Reason::VerifierRejection => "verifier rejection",
            Reason::NoSites => "no sites",
            Reason::JitError => "JIT error",
            Reason::MapAlloc => "map allocation",
            Reason::Capture => "graph capture",
            Reason::ExtraParams => "extra params",
            Reason::LaunchError => "launch error",
        }
    }
}

/// Counters over a run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    /// Kernels launched with probes at least once… or ready to be.
    pub kernels_instrumented: u64,
    /// Selected kernels that run uninstrumented (a kernel-level [`Reason`]).
    pub kernels_skipped: u64,
    /// Launches that ran with probes.
    pub launches_probed: u64,
    /// Launches of selected kernels that ran the original kernel.
    pub launches_unprobed: u64,
    /// Probed launches whose maps never came back before exit.
    pub launches_lost: u64,
    /// How often each reason occurred: once per kernel for kernel-level reasons, once per
    /// launch for launch-level ones.
    pub reasons: BTreeMap<Reason, u64>,
}

/// What happened to one kernel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KernelReport {
    /// Mangled name.
    pub name: String,
    /// Instrumented or skipped.
    pub status: KernelState,
    /// Launches that ran with probes.
    pub launches_probed: u64,
    /// Launches that ran the original.
    pub launches_unprobed: u64,
}

/// A kernel's instrumentation state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KernelState {
    /// Spliced and loaded.
    Instrumented {
        /// Probe sites spliced.
        sites: u32,
    },
    /// Runs uninstrumented.
    Skipped {
        /// Why.
        reason: Reason,
        /// The first line of the underlying error.
        detail: String,
    },
}

impl Report {
    /// Combines the reports of several processes: values and counters add, names union.
    pub fn merge(reports: Vec<Report>) -> Report {
        let mut out = Report {
            format: REPORT_FORMAT,
            ..Report::default()
        };
        let mut maps: Vec<(String, HashMap<Vec<u64>, u64>, u64)> = Vec::new();
        let mut kernels: BTreeMap<String, KernelReport> = BTreeMap::new();
        for r in reports {
            out.pids.extend(r.pids);
            for m in r.maps {
                let i = match maps.iter().position(|(n, _, _)| *n == m.name) {
                    Some(i) => i,
                    None => {
                        maps.push((m.name.clone(), HashMap::new(), 0));
                        maps.len() - 1
                    }
                };
                let (_, entries, drops) = &mut maps[i];
                for e in m.entries {
                    let v = entries.entry(e.keys).or_insert(0);
                    *v = v.wrapping_add(e.value);
                }
                *drops += m.drops;
            }
            out.kernels.extend(r.kernels);
            let s = &mut out.summary;
            s.kernels_instrumented += r.summary.kernels_instrumented;
            s.kernels_skipped += r.summary.kernels_skipped;
            s.launches_probed += r.summary.launches_probed;
            s.launches_unprobed += r.summary.launches_unprobed;
            s.launches_lost += r.summary.launches_lost;
            for (reason, n) in r.summary.reasons {
                *s.reasons.entry(reason).or_insert(0) += n;
            }
            for k in r.kernel_status {
                match kernels.get_mut(&k.name) {
                    Some(prev) => {
                        prev.launches_probed += k.launches_probed;
                        prev.launches_unprobed += k.launches_unprobed;
                        if matches!(k.status, KernelState::Instrumented { .. }) {
                            prev.status = k.status;
                        }
                    }
                    None => {
                        kernels.insert(k.name.clone(), k);
                    }
                }
            }
        }
        out.pids.sort_unstable();
        out.maps = maps
            .into_iter()
            .map(|(name, entries, drops)| {
                let mut entries: Vec<MapEntry> = entries
                    .into_iter()
                    .map(|(keys, value)| MapEntry { keys, value })
                    .collect();
                entries.sort_by(|a, b| a.keys.cmp(&b.keys));
                MapReport {
                    name,
                    entries,
                    drops,
                }
            })
            .collect();
        out.kernel_status = kernels.into_values().collect();
        out
    }

    /// The name of a kernel id, demangled when possible; unknown ids print as hex.
    pub fn kernel_name(&self, id: u64) -> String {
        match self.kernels.get(&id) {
            Some(name) => demangle(name),
            None => format!("{id:#x}"),
        }
    }
}

/// A C++ name demangled (`_Z5twicePf` → `twice(float*)`), or the name itself.
pub fn demangle(name: &str) -> String {
    cpp_demangle::Symbol::new(name)
        .ok()
        .and_then(|s| s.demangle(&Default::default()).ok())
        .unwrap_or_else(|| name.to_string())
}

/// The maps of `report` that `program` declares, typed for the printers of
/// [`crate::text`] and [`crate::json`]: `kernel` keys become demangled names (unknown ids
/// print as hex), signed words are reinterpreted as `i64`, and a min/max word is taken
/// as the decoded value. Maps absent from the report (no process ran) are left out;
/// present but empty maps are kept, since bpftrace prints them too. Kinds whose value is
/// more than one word (avg, stats, hist, lhist) are left out until [`MapEntry`] carries
/// whole value slots.
pub fn map_outputs(program: &Program, report: &Report) -> Vec<MapOutput> {
    let mut out = Vec::new();
    for decl in &program.maps {
        let Some(map) = report.maps.iter().find(|m| m.name == decl.name) else {
            continue;
        };
        // Kinds a `MapEntry`'s one word cannot carry are left out (see above).
        let Some((kind, _)) = one_word(&decl.value, 0) else {
            continue;
        };
        let key = |t: &KeyType, k: u64| match t {
            KeyType::Int { signed: true } => KeyPart::Int(k as i64),
            KeyType::Int { signed: false } => KeyPart::UInt(k),
            KeyType::Kernel => KeyPart::Str(report.kernel_name(k)),
        };
        let entries = map
            .entries
            .iter()
            .filter_map(|e| {
                let keys = decl
                    .keys
                    .iter()
                    .zip(&e.keys)
                    .map(|(t, &k)| key(t, k))
                    .collect();
                let (_, value) = one_word(&decl.value, e.value)?;
                Some((keys, value))
            })
            .collect();
        out.push(MapOutput::new(decl.name.clone(), kind, entries));
    }
    out
}

/// A one-word map value typed for printing; `None` for the kinds whose value slot is
/// more than one word (avg, stats, hist, lhist), which a [`MapEntry`] does not carry
/// yet, and for array and ring records, which are not printed as maps.
fn one_word(kind: &ValueKind, word: u64) -> Option<(Kind, Value)> {
    let number = |signed: bool| {
        if signed {
            Number::Signed(word as i64)
        } else {
            Number::Unsigned(word)
        }
    };
    Some(match *kind {
        ValueKind::Count => (Kind::Count, Value::Count(word)),
        ValueKind::Sum { signed } => (Kind::Sum, Value::Sum(number(signed))),
        ValueKind::Min { signed } => (Kind::Min, Value::Min(number(signed))),
        ValueKind::Max { signed } => (Kind::Max, Value::Max(number(signed))),
        ValueKind::Value { signed } => (Kind::Int, Value::Int(number(signed))),
        ValueKind::Avg { .. }
        | ValueKind::Stats { .. }
        | ValueKind::Hist
        | ValueKind::Lhist { .. }
        | ValueKind::Record(_)
        | ValueKind::Printf { .. } => return None,
    })
}

/// The maps of `report` as bpftrace prints its maps when a program ends
/// ([`crate::text::exit`]: two newlines, then every map in name order, keyed entries
/// sorted by value). Empty when the report holds none of `program`'s maps (no process
/// reported). Drops are part of [`render_summary`], which goes to stderr.
pub fn render_text(program: &Program, report: &Report) -> String {
    let maps = map_outputs(program, report);
    if maps.is_empty() {
        return String::new();
    }
    text::exit(&maps)
}

fn reason_list(reasons: &BTreeMap<Reason, u64>, kernel_level: bool) -> Vec<String> {
    reasons
        .iter()
        .filter(|(r, &n)| r.is_kernel_level() == kernel_level && n > 0)
        .map(|(r, n)| format!("{}: {n}", r.describe()))
        .collect()
}

/// The run summary, one line (`warptrace: 2 kernels instrumented, 1 skipped (no PTX: 1),
/// 40 launches probed, 0 unprobed`); then a line per map that dropped updates; with
/// `verbose`, a line per kernel.
pub fn render_summary(report: &Report, verbose: bool) -> String {
    let s = &report.summary;
    let plural = |n: u64, one: &str, many: &str| {
        if n == 1 {
            one.to_string()
        } else {
            many.to_string()
        }
    };
    let mut line = format!(
        "warptrace: {} {} instrumented, {} skipped",
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
        ", {} {} probed, {} unprobed",
        s.launches_probed,
        plural(s.launches_probed, "launch", "launches"),
        s.launches_unprobed
    );
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
    line.push('\n');
    for map in report.maps.iter().filter(|m| m.drops > 0) {
        let _ = writeln!(
            line,
            "warptrace: @{}: {} updates dropped (map full)",
            map.name, map.drops
        );
    }
    if verbose {
        for k in &report.kernel_status {
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
                line,
                "warptrace:   {}: {state}; {} launches probed, {} unprobed",
                demangle(&k.name),
                k.launches_probed,
                k.launches_unprobed
            );
        }
    }
    line
}
