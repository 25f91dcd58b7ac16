//! Timing records as a Chrome/Perfetto trace: Trace Event Format complete events
//! (`"ph": "X"`) in the layout of Triton Proton's intra-kernel traces — one trace
//! process per kernel / SM / CTA, one thread per warp.
//!
//! A **timing record** is a record of an `array` map whose first two fields are integers:
//! `(start, elapsed, …)` in clock cycles, e.g. `@sched = (%t0, clock64 - %t0, smid)` in a
//! `warp` probe (`docs/language.md`). The record's place gives the CTA (its block) and the
//! warp (its row; a per-thread array's row is a thread). A third integer field is the SM
//! id; the first `kernel` field names the kernel (otherwise the map's name stands for it).
//! Rings are never traced: their records say nothing about where they were written.
//!
//! Processes and threads are numbered (1, 2, … in label order) and named by metadata
//! events (`process_name` `add(float*) SM 3 CTA 0`, `thread_name` `warp 2`), which every
//! version of chrome://tracing and Perfetto reads; Proton writes the labels as string ids
//! instead. Several traced processes prefix the label with `pid N`, a launch number other
//! than 0 (the program reads `launch`) adds `launch L`.
//!
//! Times: `clock64` counts cycles of each SM's own clock, so each traced process's records
//! are placed relative to the earliest start among them; without a clock rate
//! ([`TraceOptions::clock_mhz`]) one cycle is written as one nanosecond, so a viewer's "ns"
//! reads as cycles — the file's `otherData` says which. Overlapping records of one warp go
//! on separate lines (`warp 3 (line 1)`), as a viewer cannot nest partial overlaps.

use crate::output::KeyPart;
use crate::report::{key_part, MapReport, Origin, Report};
use serde::Serialize;
use std::collections::BTreeMap;
use warptrace_ir::{KeyType, MapDecl, MapKind, Per, Program, ValueKind};

/// How trace timestamps are converted.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct TraceOptions {
    /// The SM clock in MHz (cycles per microsecond), to write times in µs; `None` writes
    /// cycles (one cycle as one nanosecond).
    pub clock_mhz: Option<f64>,
}

impl TraceOptions {
    /// Cycles per microsecond of the trace's `ts`/`dur` (1000 without a clock rate).
    fn cycles_per_us(self) -> f64 {
        self.clock_mhz.filter(|f| *f > 0.0).unwrap_or(1000.0)
    }

    /// What the trace's times are, in words.
    pub fn time_unit(self) -> String {
        match self.clock_mhz {
            Some(mhz) => format!("microseconds, from clock cycles at {mhz} MHz"),
            None => "clock cycles, written as nanoseconds (1 ns = 1 cycle; no clock rate given)"
                .to_string(),
        }
    }
}

/// Whether `decl`'s records are timing records (module docs).
pub fn is_timing_map(decl: &MapDecl) -> bool {
    let ValueKind::Record(fields) = &decl.value else {
        return false;
    };
    matches!(decl.kind, MapKind::Array { .. })
        && matches!(
            fields.as_slice(),
            [KeyType::Int { .. }, KeyType::Int { .. }, ..]
        )
}

/// The timing records of a report as trace events.
#[derive(Debug, Clone, PartialEq)]
pub struct ChromeTrace {
    /// Process and thread names and sort orders (`"ph": "M"`).
    metadata: Vec<TraceEvent>,
    /// One complete event per timing record (`"ph": "X"`).
    events: Vec<TraceEvent>,
    /// Names of the timing maps (without `@`), in program order.
    pub maps: Vec<String>,
    /// Timing records not placed on the timeline: a negative `elapsed`. Counted, and said
    /// in the file's `otherData`.
    pub skipped: u64,
    options: TraceOptions,
}

/// One event of the Trace Event Format.
#[derive(Debug, Clone, PartialEq, Serialize)]
struct TraceEvent {
    name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    cat: Option<String>,
    ph: &'static str,
    pid: u32,
    tid: u32,
    ts: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    dur: Option<f64>,
    args: serde_json::Value,
}

/// What a complete event was made of: the record's place and its raw words.
#[derive(Debug, Clone, PartialEq, Serialize)]
struct EventArgs {
    #[serde(skip_serializing_if = "Option::is_none")]
    process: Option<u32>,
    launch: u64,
    block: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    warp: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    thread: Option<u64>,
    slot: u32,
    start_cycles: serde_json::Value,
    elapsed_cycles: serde_json::Value,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    fields: Vec<serde_json::Value>,
}

#[derive(Serialize)]
struct TraceFile<'a> {
    #[serde(rename = "displayTimeUnit")]
    display_time_unit: &'static str,
    #[serde(rename = "traceEvents")]
    trace_events: Vec<&'a TraceEvent>,
    #[serde(rename = "otherData")]
    other_data: OtherData,
}

#[derive(Serialize)]
struct OtherData {
    generator: String,
    time_unit: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    clock_mhz: Option<f64>,
    maps: Vec<String>,
    skipped_records: u64,
}

impl ChromeTrace {
    /// Number of complete events (one per timing record on the timeline).
    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// Whether there is no complete event.
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// What the trace's times are, in words ([`TraceOptions::time_unit`]).
    pub fn time_unit(&self) -> String {
        self.options.time_unit()
    }

    /// The trace in the Trace Event Format's JSON object form, one line:
    /// `{"displayTimeUnit": "ns", "traceEvents": [metadata…, events…], "otherData": {…}}`.
    pub fn to_json(&self) -> String {
        let file = TraceFile {
            display_time_unit: "ns",
            trace_events: self.metadata.iter().chain(&self.events).collect(),
            other_data: OtherData {
                generator: format!("warptrace {}", env!("CARGO_PKG_VERSION")),
                time_unit: self.options.time_unit(),
                clock_mhz: self.options.clock_mhz,
                maps: self.maps.iter().map(|m| format!("@{m}")).collect(),
                skipped_records: self.skipped,
            },
        };
        // Plain data (strings, integers, finite numbers): encoding cannot fail.
        let mut text = serde_json::to_string(&file).unwrap_or_default();
        text.push('\n');
        text
    }
}

/// A timing record, decoded.
struct Timed<'m> {
    map: &'m str,
    per_warp: bool,
    pid: Option<u32>,
    start: i128,
    elapsed: i128,
    kernel: Option<String>,
    smid: Option<KeyPart>,
    launch: u64,
    block: u64,
    row: u64,
    slot: u32,
    rest: Vec<serde_json::Value>,
    raw: [serde_json::Value; 2],
}

/// What a trace process stands for, in label order: traced process, kernel (or map),
/// launch, SM, CTA.
type ProcessKey = (Option<u32>, String, u64, Option<KeyPart>, u64);

impl Timed<'_> {
    fn process(&self) -> ProcessKey {
        let name = match &self.kernel {
            Some(k) => k.clone(),
            None => format!("@{}", self.map),
        };
        (self.pid, name, self.launch, self.smid.clone(), self.block)
    }
}

fn label((pid, name, launch, smid, block): &ProcessKey, several: bool) -> String {
    let mut s = String::new();
    if let (true, Some(pid)) = (several, pid) {
        s.push_str(&format!("pid {pid} "));
    }
    s.push_str(name);
    if *launch != 0 {
        s.push_str(&format!(" launch {launch}"));
    }
    if let Some(sm) = smid {
        s.push_str(&format!(" SM {sm}"));
    }
    s.push_str(&format!(" CTA {block}"));
    s
}

fn wide(k: &KeyPart) -> i128 {
    match k {
        KeyPart::Int(v) => i128::from(*v),
        KeyPart::UInt(v) => i128::from(*v),
        KeyPart::Str(_) => 0,
    }
}

fn json(k: KeyPart) -> serde_json::Value {
    match k {
        KeyPart::Int(v) => v.into(),
        KeyPart::UInt(v) => v.into(),
        KeyPart::Str(s) => s.as_ref().into(),
    }
}

/// The timing records of every timing map of `program` in `report` (module docs).
pub fn chrome_trace(program: &Program, report: &Report, options: TraceOptions) -> ChromeTrace {
    let mut trace = ChromeTrace {
        metadata: Vec::new(),
        events: Vec::new(),
        maps: Vec::new(),
        skipped: 0,
        options,
    };
    let fallback = match report.pids.as_slice() {
        [one] => Some(*one),
        _ => None,
    };
    let mut timed = Vec::new();
    for decl in program.maps.iter().filter(|d| is_timing_map(d)) {
        trace.maps.push(decl.name.clone());
        if let Some(map) = report.maps.iter().find(|m| m.name == decl.name) {
            trace.skipped += decode(decl, map, report, fallback, &mut timed);
        }
    }
    let several = report.pids.len() > 1;
    (trace.metadata, trace.events) = events(&timed, several, options);
    trace
}

/// Appends the map's records to `out` as [`Timed`]; returns how many were skipped
/// (negative `elapsed`).
fn decode<'m>(
    decl: &'m MapDecl,
    map: &MapReport,
    report: &Report,
    fallback: Option<u32>,
    out: &mut Vec<Timed<'m>>,
) -> u64 {
    let ValueKind::Record(types) = &decl.value else {
        return 0;
    };
    let per_warp = matches!(decl.kind, MapKind::Array { per: Per::Warp, .. });
    let mut skipped = 0;
    for (pid, record) in map.records_by_pid(fallback) {
        let Origin::Array {
            launch,
            block,
            row,
            slot,
        } = record.origin
        else {
            continue;
        };
        let mut fields = types.iter().enumerate().map(|(i, t)| {
            let word = record.fields.get(i).copied().unwrap_or(0);
            key_part(t, word, &report.kernels)
        });
        let (Some(start), Some(elapsed)) = (fields.next(), fields.next()) else {
            continue;
        };
        let rest: Vec<KeyPart> = fields.collect();
        if wide(&elapsed) < 0 {
            skipped += 1;
            continue;
        }
        let kernel = types
            .iter()
            .skip(2)
            .zip(&rest)
            .find(|(t, _)| **t == KeyType::Kernel)
            .map(|(_, f)| f.to_string());
        let smid = match types.get(2) {
            Some(KeyType::Int { .. }) => rest.first().cloned(),
            _ => None,
        };
        out.push(Timed {
            map: &decl.name,
            per_warp,
            pid,
            start: wide(&start),
            elapsed: wide(&elapsed),
            kernel,
            smid,
            launch,
            block,
            row,
            slot,
            rest: rest.into_iter().map(json).collect(),
            raw: [json(start), json(elapsed)],
        });
    }
    skipped
}

/// The metadata and complete events of the timing records: times relative to each
/// traced process's earliest start, a trace process per (process, kernel, launch, SM,
/// CTA), a trace thread per warp (thread) and line, lines first fit in start order.
fn events(
    timed: &[Timed<'_>],
    several: bool,
    options: TraceOptions,
) -> (Vec<TraceEvent>, Vec<TraceEvent>) {
    let mut first: BTreeMap<Option<u32>, i128> = BTreeMap::new();
    for t in timed {
        let e = first.entry(t.pid).or_insert(t.start);
        *e = (*e).min(t.start);
    }
    // Lines per (process, lane).
    let keys: Vec<(ProcessKey, (bool, u64))> = timed
        .iter()
        .map(|t| (t.process(), (t.per_warp, t.row)))
        .collect();
    let mut lanes: BTreeMap<&(ProcessKey, (bool, u64)), Vec<usize>> = BTreeMap::new();
    for (i, key) in keys.iter().enumerate() {
        lanes.entry(key).or_default().push(i);
    }
    let mut line = vec![0usize; timed.len()];
    for members in lanes.values_mut() {
        members.sort_by_key(|&i| (timed[i].start, i));
        let mut ends: Vec<i128> = Vec::new();
        for &i in members.iter() {
            let (start, end) = (timed[i].start, timed[i].start + timed[i].elapsed);
            match ends.iter().position(|&e| e <= start) {
                Some(l) => {
                    ends[l] = end;
                    line[i] = l;
                }
                None => {
                    line[i] = ends.len();
                    ends.push(end);
                }
            }
        }
    }
    // Numbers in label order, from 1 (0 is the idle process in Perfetto).
    let mut pids: BTreeMap<&ProcessKey, u32> = keys.iter().map(|(p, _)| (p, 0)).collect();
    for (n, v) in pids.values_mut().enumerate() {
        *v = n as u32 + 1;
    }
    let mut tids: BTreeMap<(&ProcessKey, (bool, u64), usize), u32> = keys
        .iter()
        .zip(&line)
        .map(|((p, lane), &l)| ((p, *lane, l), 0))
        .collect();
    for (n, v) in tids.values_mut().enumerate() {
        *v = n as u32 + 1;
    }
    let meta = |name: &str, pid: u32, tid: u32, args: serde_json::Value| TraceEvent {
        name: name.to_string(),
        cat: None,
        ph: "M",
        pid,
        tid,
        ts: 0.0,
        dur: None,
        args,
    };
    // The first thread of each process carries its process's metadata.
    let mut first_tid: BTreeMap<&ProcessKey, u32> = BTreeMap::new();
    for (&(key, _, _), &tid) in &tids {
        first_tid.entry(key).or_insert(tid);
    }
    let mut metadata = Vec::new();
    for (key, &pid) in &pids {
        let tid = first_tid.get(key).copied().unwrap_or(pid);
        let name = label(key, several);
        metadata.push(meta(
            "process_name",
            pid,
            tid,
            serde_json::json!({ "name": name }),
        ));
        metadata.push(meta(
            "process_sort_index",
            pid,
            tid,
            serde_json::json!({ "sort_index": pid }),
        ));
    }
    for (&(key, (per_warp, row), line), &tid) in &tids {
        let pid = pids.get(key).copied().unwrap_or(0);
        let lane = if per_warp { "warp" } else { "thread" };
        let name = match line {
            0 => format!("{lane} {row}"),
            l => format!("{lane} {row} (line {l})"),
        };
        metadata.push(meta(
            "thread_name",
            pid,
            tid,
            serde_json::json!({ "name": name }),
        ));
        metadata.push(meta(
            "thread_sort_index",
            pid,
            tid,
            serde_json::json!({ "sort_index": tid }),
        ));
    }
    let scale = options.cycles_per_us();
    let events = timed
        .iter()
        .zip(&keys)
        .zip(line)
        .map(|((t, (process, lane)), line)| {
            let origin = first.get(&t.pid).copied().unwrap_or(t.start);
            let args = EventArgs {
                process: t.pid,
                launch: t.launch,
                block: t.block,
                warp: t.per_warp.then_some(t.row),
                thread: (!t.per_warp).then_some(t.row),
                slot: t.slot,
                start_cycles: t.raw[0].clone(),
                elapsed_cycles: t.raw[1].clone(),
                fields: t.rest.clone(),
            };
            TraceEvent {
                name: format!("@{}", t.map),
                cat: Some(process.1.clone()),
                ph: "X",
                pid: pids.get(process).copied().unwrap_or(0),
                tid: tids.get(&(process, *lane, line)).copied().unwrap_or(0),
                ts: (t.start - origin) as f64 / scale,
                dur: Some(t.elapsed as f64 / scale),
                args: serde_json::to_value(args).unwrap_or_default(),
            }
        })
        .collect();
    (metadata, events)
}
