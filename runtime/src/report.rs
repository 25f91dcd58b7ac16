//! The per-process result file and its rendering: pure functions the CLI calls after the
//! traced program exits.

use crate::output::{
    printf, text, Hist, KeyPart, Kind, Lhist, MapOutput, Number, RingOutput, Value,
};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use warptrace_ir::{
    max_decode, max_encode, min_decode, min_encode, KeyType, MapDecl, MapId, MapKind, MapStore,
    Program, Record, StoredMap, ValueKind,
};

mod summary;

pub use summary::render_summary;

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
    /// After [`Report::merge`]: each traced process's own counters and kernels, by pid
    /// (a process's own report leaves it empty: its `summary` is all there is).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub processes: Vec<ProcessReport>,
}

/// What one traced process contributed to a merged report.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProcessReport {
    /// The process id (a report without one: 0).
    pub pid: u32,
    /// Its counters.
    pub summary: Summary,
    /// What happened to each kernel it selected.
    pub kernel_status: Vec<KernelReport>,
}

impl ProcessReport {
    /// Whether the process selected any kernel (instrumented or not) or launched one.
    pub fn is_active(&self) -> bool {
        let s = &self.summary;
        !self.kernel_status.is_empty()
            || s.kernels_instrumented + s.kernels_skipped > 0
            || s.launches_probed + s.launches_unprobed + s.launches_lost > 0
    }
}

/// One process's share of a map in a merged report.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PidShare {
    /// The process id.
    pub pid: u32,
    /// Its records (rings and arrays), which follow those of the shares before it in
    /// [`MapReport::records`].
    pub records: u64,
    /// Its [`MapReport::drops`].
    pub drops: u64,
    /// Its [`MapReport::lost`].
    pub lost: u64,
}

/// One map's contents.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MapReport {
    /// Name without `@`.
    pub name: String,
    /// Every key tuple seen, with its aggregated value (raw 64-bit words).
    pub entries: Vec<MapEntry>,
    /// Updates lost because the table was full (rings: records lost, drops included).
    pub drops: u64,
    /// The map's value kind, which says how [`Report::merge`] combines entries; absent
    /// in older reports (their entries then add).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<ValueKind>,
    /// Ring and array maps: the records the host accepted, in append order (ring; the
    /// printf ring's fields are `[format id, args…]`) or `(launch, block, row, slot)`
    /// order (array). After [`Report::merge`]: by pid, then in each process's order.
    /// Absent in older reports and for maps without records.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub records: Vec<MapRecord>,
    /// Rings: appends the host did not get (dropped by a full ring, overwritten or torn;
    /// the ring's drops are part of it, and of [`MapReport::drops`] too); arrays: records
    /// whose `seq` was wrong (also counted in `drops`). Absent when 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub lost: u64,
    /// Rings and arrays: records read back but not kept, because the process's map
    /// already held `--max-records` of them (`StoredMap::over_limit`; not in `lost`
    /// or `drops`: nothing was lost on the device). Absent when 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub over_limit: u64,
    /// After [`Report::merge`]: each process's records, drops and lost, in the order of
    /// [`MapReport::records`] (by pid); empty in a process's own report.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub by_pid: Vec<PidShare>,
}

impl MapReport {
    /// Each record with the pid of the process that wrote it: from
    /// [`MapReport::by_pid`] when it accounts for every record, else `fallback` (a
    /// process's own report: its pid).
    pub fn records_by_pid(&self, fallback: Option<u32>) -> Vec<(Option<u32>, &MapRecord)> {
        let counted: u64 = self.by_pid.iter().map(|s| s.records).sum();
        if self.by_pid.is_empty() || counted != self.records.len() as u64 {
            return self.records.iter().map(|r| (fallback, r)).collect();
        }
        let pids = self.by_pid.iter().flat_map(|s| {
            std::iter::repeat_n(Some(s.pid), usize::try_from(s.records).unwrap_or(0))
        });
        pids.zip(&self.records).collect()
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// One ring or array record: the IR's own type, serialized as it is.
pub type MapRecord = Record;

/// Where a record was found.
pub use warptrace_ir::RecordOrigin as Origin;

/// One key tuple and its value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MapEntry {
    /// Key words, one per key component.
    pub keys: Vec<u64>,
    /// The value as one number: count, sum or assigned value; min/max decoded; the total
    /// of avg/stats; the number of values in a hist/lhist (two's complement when signed).
    pub value: u64,
    /// The whole value slot as the device encodes it (`docs/ir.md`: min/max encoded,
    /// `[count, sum]`, one counter per bucket). Empty in older reports, where `value` is
    /// all there is.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub words: Vec<u64>,
}

impl MapEntry {
    /// An entry of a map whose values are `kind`, from its value words.
    pub fn from_words(kind: &ValueKind, keys: Vec<u64>, words: Vec<u64>) -> MapEntry {
        MapEntry {
            keys,
            value: scalar(kind, &words),
            words,
        }
    }

    /// The value words; for an entry without them, `value` as the one word it stands for
    /// (min/max re-encoded).
    pub fn value_words(&self, kind: &ValueKind) -> Vec<u64> {
        if !self.words.is_empty() {
            return self.words.clone();
        }
        vec![match *kind {
            ValueKind::Min { signed } => min_encode(self.value, signed),
            ValueKind::Max { signed } => max_encode(self.value, signed),
            _ => self.value,
        }]
    }
}

/// [`MapEntry::value`] of value words.
fn scalar(kind: &ValueKind, words: &[u64]) -> u64 {
    let w = |i: usize| words.get(i).copied().unwrap_or(0);
    match *kind {
        ValueKind::Min { signed } => min_decode(w(0), signed),
        ValueKind::Max { signed } => max_decode(w(0), signed),
        ValueKind::Avg { .. } | ValueKind::Stats { .. } => w(1),
        ValueKind::Hist | ValueKind::Lhist { .. } => {
            words.iter().fold(0u64, |a, &b| a.wrapping_add(b))
        }
        _ => w(0),
    }
}

/// The report entries of every map of `program` in `store`, keys sorted; drops are the
/// device's drop counter (rings: every record lost, drops included); ring and array
/// records in the store's order, with their lost count.
pub(crate) fn store_reports(program: &Program, store: &MapStore) -> Vec<MapReport> {
    program
        .maps
        .iter()
        .enumerate()
        .map(|(m, decl)| {
            let map = store.maps.get(m);
            let entries = map
                .into_iter()
                .flat_map(|s| &s.entries)
                .map(|(k, w)| MapEntry::from_words(&decl.value, k.clone(), w.clone()))
                .collect();
            let drops = map.map_or(0, |s| match s.kind {
                MapKind::Ring { .. } => s.lost.max(s.drops),
                _ => s.drops.wrapping_add(s.lost),
            });
            MapReport {
                name: decl.name.clone(),
                entries,
                drops,
                kind: Some(decl.value.clone()),
                records: map.into_iter().flat_map(|s| &s.records).cloned().collect(),
                lost: map.map_or(0, |s| s.lost),
                over_limit: map.map_or(0, |s| s.over_limit),
                by_pid: Vec::new(),
            }
        })
        .collect()
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
    /// The launch's array regions do not fit in 64 bits (`prove_launch` refuted them).
    ArrayBounds,
    /// The launch is outside `--launch-skip`/`--launch-count`/`--sample`.
    NotSelected,
    /// An AMD kernel whose assembly could not be found (the HIP hook instruments GCN
    /// assembly, never a disassembled code object; docs/decisions/0009).
    NoAssembly,
    /// The launch's block is one the original takes and the instrumented form cannot
    /// (its registers or local memory; `warptrace_codegen_ptx::resources`).
    Resources,
    /// The launch's map buffer would have passed `--map-memory` (the buffers of earlier
    /// launches were still being read back; `map_buf.rs`).
    MapMemory,
    /// The instrumented kernel's predicted JIT compile is over `--jit-budget`
    /// (`warptrace_codegen_ptx::jit_cost`).
    JitBudget,
    /// A kernel node in a conditional node's body graph: added as the original, so its
    /// runs (as many as the condition makes) are neither probed nor counted; the node is.
    GraphBody,
    /// A probed kernel node of a graph instantiated for device-side launches: its host
    /// launches are read back, its device-side launches' maps are not; the node is counted.
    DeviceGraph,
    /// A launch whose `launch:end` blocks did not run: it was captured into a graph, or
    /// its timing events could not be had, recorded or read.
    NotTimed,
}

impl Reason {
    /// Whether the reason concerns a kernel as a whole (as opposed to one launch).
    pub fn is_kernel_level(self) -> bool {
        !matches!(
            self,
            Reason::MapAlloc
                | Reason::Capture
                | Reason::ExtraParams
                | Reason::LaunchError
                | Reason::ArrayBounds
                | Reason::NotSelected
                | Reason::Resources
                | Reason::MapMemory
                | Reason::GraphBody
                | Reason::DeviceGraph
                | Reason::NotTimed
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
            Reason::ArrayBounds => "array regions too large",
            Reason::NotSelected => "not selected (--launch-skip/--launch-count/--sample)",
            Reason::NoAssembly => "no assembly",
            Reason::Resources => "block too large for the instrumented form",
            Reason::MapMemory => "map memory (--map-memory) in use by earlier launches",
            Reason::JitBudget => "JIT compile over budget (--jit-budget)",
            Reason::GraphBody => "graph nodes in conditional bodies (their runs not counted)",
            Reason::DeviceGraph => {
                "graph nodes launchable from the device (those launches not read back)"
            }
            Reason::NotTimed => "launches not timed (their launch:end blocks did not run)",
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
    /// Probed kernel nodes of CUDA graphs: launches captured into a graph, and kernel nodes
    /// added to one with the graph API; each replay of such a node is a probed launch.
    /// Absent when 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub graph_nodes: u64,
    /// Launches of kernels no probe selects, made directly (`cuLaunchKernel*`): with the
    /// probed and unprobed ones, every launch the runtime saw, for the summary's reach.
    /// Absent when 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub launches_other: u64,
    /// Device time of the launches timed for `launch:end` blocks (ns), and of those among
    /// them that ran probes: the reach in time. Absent when 0 (no `launch:end`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub device_ns: u64,
    /// See [`Summary::device_ns`].
    #[serde(default, skip_serializing_if = "is_zero")]
    pub device_ns_probed: u64,
    /// How often each reason occurred: once per kernel for kernel-level reasons, once per
    /// launch for launch-level ones.
    pub reasons: BTreeMap<Reason, u64>,
    /// The on-disk module cache and the driver's JIT; absent in older reports and when
    /// nothing was instrumented.
    #[serde(default, skip_serializing_if = "CacheSummary::is_empty")]
    pub cache: CacheSummary,
    /// CUDA modules and libraries loaded (every image the driver was handed, whether or
    /// not a probe selected a kernel of it); 0 in a process that never used CUDA.
    #[serde(default)]
    pub images_loaded: u64,
    /// The most records a process keeps of each ring or array map (`--max-records`;
    /// 0 in older reports); the merged report's is the largest of its processes'.
    #[serde(default)]
    pub max_records: u64,
}

/// Most explanations a report keeps ([`CacheSummary::notes`]); the counters go on.
pub const CACHE_NOTES: usize = 32;

/// What the on-disk module cache did, one count per instrumented image.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheSummary {
    /// Modules loaded from the cache (no instrumentation, no JIT).
    pub hits: u64,
    /// Modules looked up and not found or not usable (instrumented and JIT-compiled).
    pub misses: u64,
    /// Entries written.
    pub written: u64,
    /// Entries that could not be written.
    pub write_failures: u64,
    /// Time in the driver's JIT of instrumented PTX, in microseconds.
    pub jit_us: u64,
    /// Why each unusable entry was a miss and each write failed (at most
    /// [`CACHE_NOTES`]); printed with `-v`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

impl CacheSummary {
    /// Whether nothing happened.
    pub fn is_empty(&self) -> bool {
        *self == CacheSummary::default()
    }

    /// Adds another process's counts and notes.
    pub fn add(&mut self, other: CacheSummary) {
        self.hits += other.hits;
        self.misses += other.misses;
        self.written += other.written;
        self.write_failures += other.write_failures;
        self.jit_us += other.jit_us;
        let room = CACHE_NOTES.saturating_sub(self.notes.len());
        self.notes.extend(other.notes.into_iter().take(room));
    }

    /// Keeps an explanation for `-v` (the first [`CACHE_NOTES`]).
    pub fn note(&mut self, text: String) {
        if self.notes.len() < CACHE_NOTES {
            self.notes.push(text);
        }
    }
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
    /// Combines the reports of several processes: values and counters add, names union;
    /// ring and array records are concatenated, ordered by pid (a report's smallest) and
    /// then in each report's order, and their lost counts add. What each process
    /// contributed is kept: its counters and kernels in [`Report::processes`], its
    /// records, drops and lost per map in [`MapReport::by_pid`] (a merged report's own
    /// are carried over).
    pub fn merge(reports: Vec<Report>) -> Report {
        let mut out = Report {
            format: REPORT_FORMAT,
            ..Report::default()
        };
        // Per map name: its entries, merged per the first report's kind of the map.
        let mut maps: Vec<(String, Option<ValueKind>, StoredMap)> = Vec::new();
        // Per map (same index): its records, each with the pid that orders it, and each
        // process's share, ordered the same way.
        let mut records: Vec<Vec<(u32, MapRecord)>> = Vec::new();
        let mut shares: Vec<Vec<(u32, PidShare)>> = Vec::new();
        let mut kernels: BTreeMap<String, KernelReport> = BTreeMap::new();
        for r in reports {
            let pid = r.pids.iter().copied().min().unwrap_or(0);
            if r.processes.is_empty() {
                out.processes.push(ProcessReport {
                    pid,
                    summary: r.summary.clone(),
                    kernel_status: r.kernel_status.clone(),
                });
            } else {
                out.processes.extend(r.processes);
            }
            out.pids.extend(r.pids);
            for m in r.maps {
                // Without a kind (an older report), values add, as sums do.
                let kind = m.kind.clone().unwrap_or(ValueKind::Sum { signed: false });
                let hash = MapKind::Hash { capacity: 0 };
                let i = match maps.iter().position(|(n, _, _)| *n == m.name) {
                    Some(i) => i,
                    None => {
                        let map = StoredMap::new(hash, kind.clone());
                        maps.push((m.name.clone(), m.kind.clone(), map));
                        records.push(Vec::new());
                        shares.push(Vec::new());
                        maps.len() - 1
                    }
                };
                let mut other = StoredMap::new(hash, kind.clone());
                other.drops = m.drops;
                other.lost = m.lost;
                other.over_limit = m.over_limit;
                if m.by_pid.is_empty() {
                    shares[i].push((
                        pid,
                        PidShare {
                            pid,
                            records: m.records.len() as u64,
                            drops: m.drops,
                            lost: m.lost,
                        },
                    ));
                } else {
                    shares[i].extend(m.by_pid.iter().map(|&s| (pid, s)));
                }
                records[i].extend(m.records.into_iter().map(|rec| (pid, rec)));
                for e in m.entries {
                    let words = e.value_words(&kind);
                    other.entries.insert(e.keys, words);
                }
                let (_, known, map) = &mut maps[i];
                if known.is_none() && m.kind.is_some() {
                    *known = m.kind;
                    map.value = kind;
                }
                map.merge(other);
            }
            out.kernels.extend(r.kernels);
            let s = &mut out.summary;
            s.kernels_instrumented += r.summary.kernels_instrumented;
            s.kernels_skipped += r.summary.kernels_skipped;
            s.launches_probed += r.summary.launches_probed;
            s.launches_unprobed += r.summary.launches_unprobed;
            s.launches_lost += r.summary.launches_lost;
            s.graph_nodes += r.summary.graph_nodes;
            s.launches_other += r.summary.launches_other;
            s.device_ns += r.summary.device_ns;
            s.device_ns_probed += r.summary.device_ns_probed;
            s.images_loaded += r.summary.images_loaded;
            s.max_records = s.max_records.max(r.summary.max_records);
            for (reason, n) in r.summary.reasons {
                *s.reasons.entry(reason).or_insert(0) += n;
            }
            s.cache.add(r.summary.cache);
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
        out.processes.sort_by_key(|p| p.pid);
        out.maps = maps
            .into_iter()
            .zip(records)
            .zip(shares)
            .map(|(((name, kind, map), mut records), mut shares)| MapReport {
                name,
                entries: map
                    .entries
                    .into_iter()
                    .map(|(keys, words)| MapEntry::from_words(&map.value, keys, words))
                    .collect(),
                drops: map.drops,
                kind,
                records: {
                    // Stable: each process's records keep their order.
                    records.sort_by_key(|(pid, _)| *pid);
                    records.into_iter().map(|(_, r)| r).collect()
                },
                lost: map.lost,
                over_limit: map.over_limit,
                by_pid: {
                    // The records' order: stable by the pid that ordered them.
                    shares.sort_by_key(|(pid, _)| *pid);
                    shares.into_iter().map(|(_, s)| s).collect()
                },
            })
            .collect();
        out.kernel_status = kernels.into_values().collect();
        out
    }

    /// The name of a kernel id, demangled when possible; unknown ids print as hex.
    pub fn kernel_name(&self, id: u64) -> String {
        kernel_name(&self.kernels, id)
    }
}

pub(crate) fn kernel_name(kernels: &BTreeMap<u64, String>, id: u64) -> String {
    match kernels.get(&id) {
        Some(name) => demangle(name),
        None => format!("{id:#x}"),
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
/// print as hex), signed words are reinterpreted as `i64`, min/max words are decoded,
/// avg/stats carry count and total, hist has its 65 log2 buckets, lhist its linear ones.
/// Maps absent from the report (no process ran) are left out; present but empty maps are
/// kept, since bpftrace prints them too. Array and ring maps are not printed as maps.
pub fn map_outputs(program: &Program, report: &Report) -> Vec<MapOutput> {
    program
        .maps
        .iter()
        .filter_map(|decl| {
            let map = report.maps.iter().find(|m| m.name == decl.name)?;
            let entries = map
                .entries
                .iter()
                .map(|e| (e.keys.clone(), e.value_words(&decl.value)));
            output(decl, entries, &report.kernels)
        })
        .collect()
}

/// Every printable (hash) map of a host-side store — the interpreter's, after host
/// blocks — typed for the printers as [`map_outputs`] types a report's; `kernels` names
/// kernel ids (mangled names, demangled here).
pub fn store_outputs(
    program: &Program,
    store: &MapStore,
    kernels: &BTreeMap<u64, String>,
) -> Vec<MapOutput> {
    (0..program.maps.len() as u32)
        .filter_map(|m| store_output(program, store, MapId(m), kernels))
        .collect()
}

/// One map of a host-side store, as [`store_outputs`] types it (for `print(@m)`); `None`
/// for an unknown map or one that is not printed as a map (array, ring).
pub fn store_output(
    program: &Program,
    store: &MapStore,
    map: MapId,
    kernels: &BTreeMap<u64, String>,
) -> Option<MapOutput> {
    let decl = program.map(map)?;
    let entries = store
        .map(map)
        .into_iter()
        .flat_map(|s| &s.entries)
        .map(|(k, w)| (k.clone(), w.clone()));
    output(decl, entries, kernels)
}

fn output(
    decl: &MapDecl,
    entries: impl Iterator<Item = (Vec<u64>, Vec<u64>)>,
    kernels: &BTreeMap<u64, String>,
) -> Option<MapOutput> {
    let kind = value_kind(&decl.value)?;
    let key = |t: &KeyType, k: u64| key_part(t, k, kernels);
    let entries = entries
        .filter_map(|(keys, words)| {
            let keys = decl
                .keys
                .iter()
                .zip(&keys)
                .map(|(t, &k)| key(t, k))
                .collect();
            Some((keys, value(&decl.value, &words)?))
        })
        .collect();
    Some(MapOutput::new(decl.name.clone(), kind, entries))
}

/// A key or record field word typed for printing: signed or unsigned integer, or a
/// kernel id's (demangled) name.
pub(crate) fn key_part(t: &KeyType, k: u64, kernels: &BTreeMap<u64, String>) -> KeyPart {
    match t {
        KeyType::Int { signed: true } => KeyPart::Int(k as i64),
        KeyType::Int { signed: false } => KeyPart::UInt(k),
        KeyType::Kernel => KeyPart::Str(kernel_name(kernels, k).into()),
        // A string key's text is among the names (`Program::strings`, added by whoever
        // builds the name table), never demangled.
        KeyType::Str => KeyPart::Str(
            kernels
                .get(&k)
                .cloned()
                .unwrap_or_else(|| format!("{k:#x}"))
                .into(),
        ),
    }
}

/// A ring's records typed for [`text::ring`] / [`crate::json::ring`]: each field per
/// the record's declared type, missing words as 0, extra words dropped. Each kernel id is
/// named (demangled) once per listing: a trace has millions of records and few kernels.
fn ring_records<'a>(
    fields: &[KeyType],
    records: impl Iterator<Item = &'a [u64]>,
    kernels: &BTreeMap<u64, String>,
) -> Vec<Vec<KeyPart>> {
    let mut names: std::collections::HashMap<u64, std::sync::Arc<str>> =
        std::collections::HashMap::new();
    records
        .map(|words| {
            fields
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    let k = words.get(i).copied().unwrap_or(0);
                    match t {
                        KeyType::Kernel => KeyPart::Str(
                            names
                                .entry(k)
                                .or_insert_with(|| kernel_name(kernels, k).into())
                                .clone(),
                        ),
                        _ => key_part(t, k, kernels),
                    }
                })
                .collect()
        })
        .collect()
}

/// Every ring and array of `program` other than the printf ring, with `store`'s records, for the exit listing ([`text::exit_with_rings`]); `kernels` names kernel ids
/// (mangled names, demangled here). Rings without records are included (they print
/// nothing).
pub fn ring_outputs(
    program: &Program,
    store: &MapStore,
    kernels: &BTreeMap<u64, String>,
) -> Vec<RingOutput> {
    (0..program.maps.len() as u32)
        .filter_map(|m| ring_output(program, store, MapId(m), kernels))
        .collect()
}

/// One ring or array of a host-side store, as [`ring_outputs`] types it (for
/// `print(@m)`): its records in the store's order (a ring's append order; an array's
/// launch by launch, each in (block, row, slot) order); `None` for an unknown map, a hash
/// map, or the printf ring.
pub fn ring_output(
    program: &Program,
    store: &MapStore,
    map: MapId,
    kernels: &BTreeMap<u64, String>,
) -> Option<RingOutput> {
    let decl = program.map(map)?;
    let (MapKind::Ring { .. } | MapKind::Array { .. }, ValueKind::Record(fields)) =
        (&decl.kind, &decl.value)
    else {
        return None;
    };
    let records = store
        .map(map)
        .into_iter()
        .flat_map(|s| &s.records)
        .map(|r| r.fields.as_slice());
    Some(RingOutput::new(
        decl.name.clone(),
        ring_records(fields, records, kernels),
    ))
}

/// The printf ring's records of `store`, each formatted with its format string
/// ([`printf::format`]; a `%s` argument that is a known kernel id prints as its demangled
/// name), in append order. An unknown format id formats as an empty string.
pub fn printf_texts(
    program: &Program,
    store: &MapStore,
    kernels: &BTreeMap<u64, String>,
) -> Vec<String> {
    store
        .printf_records(program)
        .map(|(format, args)| {
            let fmt = usize::try_from(format)
                .ok()
                .and_then(|f| program.formats.get(f))
                .map_or("", String::as_str);
            printf_text(fmt, args, kernels)
        })
        .collect()
}

/// `fmt` formatted with `args`, `%s` taking a kernel id's demangled name (an unknown id
/// prints as its decimal value) — the one formatting of device and host `printf`.
pub fn printf_text(fmt: &str, args: &[u64], kernels: &BTreeMap<u64, String>) -> String {
    printf::format(fmt, args, &|v| kernels.get(&v).map(|n| demangle(n)))
}

/// The rings (the printf ring included) and arrays of `program` that lost records in
/// `store` (ring: lost and dropped appends; array: saves dropped for want of a free slot
/// and stale records), with their names and lost counts, in program order — one bpftrace "lost events" line
/// ([`text::lost_events`]) each.
pub fn lost_records(program: &Program, store: &MapStore) -> Vec<(String, u64)> {
    program
        .maps
        .iter()
        .zip(&store.maps)
        .filter_map(|(decl, m)| {
            let lost = match decl.kind {
                // A ring's lost count already includes its drops.
                MapKind::Ring { .. } => m.lost,
                // An array's: saves with no slot left or a taken one, and stale records.
                MapKind::Array { .. } => m.lost.saturating_add(m.drops),
                MapKind::Hash { .. } => 0,
            };
            (lost > 0).then(|| (decl.name.clone(), lost))
        })
        .collect()
}

/// The printer's kind of a hash map's values; `None` for array and ring records.
fn value_kind(kind: &ValueKind) -> Option<Kind> {
    Some(match kind {
        ValueKind::Count => Kind::Count,
        ValueKind::Sum { .. } => Kind::Sum,
        ValueKind::Min { .. } => Kind::Min,
        ValueKind::Max { .. } => Kind::Max,
        ValueKind::Value { .. } => Kind::Int,
        ValueKind::Avg { .. } => Kind::Avg,
        ValueKind::Stats { .. } => Kind::Stats,
        ValueKind::Hist => Kind::Hist,
        ValueKind::Lhist { .. } => Kind::Lhist,
        ValueKind::Record(_) | ValueKind::Printf { .. } => return None,
    })
}

/// A hash map's value words typed for printing (missing words read as 0).
fn value(kind: &ValueKind, words: &[u64]) -> Option<Value> {
    let w = |i: usize| words.get(i).copied().unwrap_or(0);
    let number = |signed: bool, v: u64| {
        if signed {
            Number::Signed(v as i64)
        } else {
            Number::Unsigned(v)
        }
    };
    Some(match *kind {
        ValueKind::Count => Value::Count(w(0)),
        ValueKind::Sum { signed } => Value::Sum(number(signed, w(0))),
        ValueKind::Min { signed } => Value::Min(number(signed, min_decode(w(0), signed))),
        ValueKind::Max { signed } => Value::Max(number(signed, max_decode(w(0), signed))),
        ValueKind::Value { signed } => Value::Int(number(signed, w(0))),
        ValueKind::Avg { signed } => Value::Avg {
            total: number(signed, w(1)),
            count: w(0),
        },
        ValueKind::Stats { signed } => Value::Stats {
            total: number(signed, w(1)),
            count: w(0),
        },
        ValueKind::Hist => Value::Hist(Hist {
            bits: 0,
            buckets: words.to_vec(),
        }),
        ValueKind::Lhist { min, max, step } => Value::Lhist(Lhist {
            min,
            max,
            step,
            buckets: words.to_vec(),
        }),
        ValueKind::Record(_) | ValueKind::Printf { .. } => return None,
    })
}

/// The maps of `report` as bpftrace prints its maps when a program ends
/// ([`crate::text::exit`]: two newlines, then every map in name order, keyed entries
/// sorted by value). Empty when the report holds none of `program`'s maps (no process
/// reported). Drops are part of [`render_summary`], which goes to stderr. Rings other
/// than the printf ring are listed with the maps, in name order ([`text::ring`]).
pub fn render_text(program: &Program, report: &Report) -> String {
    let maps = map_outputs(program, report);
    let store = report_store(program, report);
    let rings = ring_outputs(program, &store, &report.kernels);
    if maps.is_empty() && rings.iter().all(|r| r.records.is_empty()) {
        return String::new();
    }
    text::exit_with_rings(&maps, &rings)
}

/// What the device's `printf` ring and lost records of `report` print, in text, as the
/// CLI prints them once the traced program has ended: each formatted `printf` record in
/// append order, then a `Lost N events` line per ring that lost records.
pub fn render_events(program: &Program, report: &Report) -> String {
    let store = report_store(program, report);
    let mut out: String = printf_texts(program, &store, &report.kernels).concat();
    for (_, lost) in lost_records(program, &store) {
        out.push_str(&text::lost_events(lost));
    }
    out
}

/// The maps of a device `report` as a host store for `program`, so host blocks (`end`)
/// and the final print see device results and host updates in one place: hash entries,
/// ring and array records (in the report's order) and lost counts. Maps the report does
/// not name stay empty; each map's drops carry over (an array's without its lost
/// records, which its report's drops include).
pub fn report_store(program: &Program, report: &Report) -> MapStore {
    let mut store = MapStore::new(program);
    for (decl, stored) in program.maps.iter().zip(store.maps.iter_mut()) {
        let Some(map) = report.maps.iter().find(|m| m.name == decl.name) else {
            continue;
        };
        stored.drops = match decl.kind {
            MapKind::Array { .. } => map.drops.saturating_sub(map.lost),
            _ => map.drops,
        };
        stored.lost = map.lost;
        stored.over_limit = map.over_limit;
        stored.records = map.records.clone();
        for e in &map.entries {
            stored
                .entries
                .insert(e.keys.clone(), e.value_words(&decl.value));
        }
    }
    store
}
