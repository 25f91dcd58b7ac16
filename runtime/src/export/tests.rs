//! Tables, summary, index and trace of hand-built reports: every value kind, records of
//! rings, per-warp and per-thread arrays and printf, drops and lost records, two pids.

use super::tables::{map_table, Table};
use super::*;
use crate::report::{render_summary, report_store, store_reports, Reason, Summary};
use std::collections::BTreeMap;
use warptrace_ir::{
    kernel_id, KeyType, MapDecl, MapId, MapKind, MapStore, Overflow, Per, Record, RecordOrigin,
    Update, ValueKind,
};

const U: KeyType = KeyType::Int { signed: false };
const I: KeyType = KeyType::Int { signed: true };
const K: KeyType = KeyType::Kernel;

fn hash(name: &str, keys: Vec<KeyType>, value: ValueKind) -> MapDecl {
    MapDecl {
        name: name.into(),
        kind: MapKind::Hash { capacity: 64 },
        keys,
        value,
    }
}

fn ring(name: &str, value: ValueKind) -> MapDecl {
    MapDecl {
        name: name.into(),
        kind: MapKind::Ring {
            capacity: 2,
            overflow: Overflow::Drop,
        },
        keys: vec![],
        value,
    }
}

fn array(name: &str, per: Per, fields: Vec<KeyType>) -> MapDecl {
    MapDecl {
        name: name.into(),
        kind: MapKind::Array { per, slots: 2 },
        keys: vec![],
        value: ValueKind::Record(fields),
    }
}

// Map ids of `program()`.
const CALLS: usize = 0;
const BYTES: usize = 1;
const LO: usize = 2;
const HI: usize = 3;
const LAST: usize = 4;
const MEAN: usize = 5;
const ST: usize = 6;
const LAT: usize = 7;
const LIN: usize = 8;
const EVENTS: usize = 9;
const SCHED: usize = 10;
const MARKS: usize = 11;
const PRINTF: usize = 12;

fn program() -> Program {
    Program {
        maps: vec![
            hash("calls", vec![K], ValueKind::Count),
            hash("bytes", vec![I, U], ValueKind::Sum { signed: true }),
            hash("lo", vec![], ValueKind::Min { signed: true }),
            hash("hi", vec![], ValueKind::Max { signed: false }),
            hash("last", vec![], ValueKind::Value { signed: true }),
            hash("mean", vec![U], ValueKind::Avg { signed: false }),
            hash("st", vec![], ValueKind::Stats { signed: true }),
            hash("lat", vec![], ValueKind::Hist),
            hash(
                "lin",
                vec![],
                ValueKind::Lhist {
                    min: 0,
                    max: 100,
                    step: 10,
                },
            ),
            ring("events", ValueKind::Record(vec![U, I, K])),
            // A timing map: (start, elapsed, smid, kernel), one row per warp.
            array("sched", Per::Warp, vec![U, I, U, K]),
            // Not a timing map: its first field is a kernel.
            array("marks", Per::Thread, vec![K, U]),
            ring("printf", ValueKind::Printf { args: 2 }),
        ],
        formats: vec!["say \"%s\", %d\n".into()],
        ..Program::default()
    }
}

pub(super) fn add() -> u64 {
    kernel_id("_Z3addPf")
}

pub(super) fn twice() -> u64 {
    kernel_id("_Z5twicePf")
}

fn ring_rec(index: u64, fields: &[u64]) -> Record {
    Record {
        origin: RecordOrigin::Ring { launch: 0, index },
        fields: fields.to_vec(),
    }
}

fn array_rec(launch: u64, block: u64, row: u64, slot: u32, fields: &[u64]) -> Record {
    Record {
        origin: RecordOrigin::Array {
            launch,
            block,
            row,
            slot,
        },
        fields: fields.to_vec(),
    }
}

fn report_of(pid: u32, store: &MapStore, summary: Summary) -> Report {
    let mut kernels = BTreeMap::new();
    kernels.insert(add(), "_Z3addPf".to_string());
    kernels.insert(twice(), "_Z5twicePf".to_string());
    Report {
        format: crate::REPORT_FORMAT,
        pids: vec![pid],
        maps: store_reports(&program(), store),
        kernels,
        summary,
        ..Report::default()
    }
}

/// Process 10: something in every map, drops in `@calls` and `@sched`, 3 lost `@events`.
fn process_10() -> Report {
    let p = program();
    let mut s = MapStore::new(&p);
    let up = |s: &mut MapStore, m: usize, keys: &[u64], u: Update| {
        s.update(MapId(m as u32), keys, u).expect("update");
    };
    for _ in 0..3 {
        up(&mut s, CALLS, &[add()], Update::Count);
    }
    up(&mut s, CALLS, &[twice()], Update::Count);
    up(
        &mut s,
        BYTES,
        &[(-2i64) as u64, 7],
        Update::Sum((-5i64) as u64),
    );
    up(&mut s, BYTES, &[3, 1], Update::Sum(9));
    up(&mut s, LO, &[], Update::Min((-3i64) as u64));
    up(&mut s, LO, &[], Update::Min(4));
    up(&mut s, HI, &[], Update::Max(5));
    up(&mut s, HI, &[], Update::Max(9));
    up(&mut s, LAST, &[], Update::Assign((-7i64) as u64));
    up(&mut s, MEAN, &[1], Update::Avg(10));
    up(&mut s, MEAN, &[1], Update::Avg(20));
    up(&mut s, ST, &[], Update::Stats((-4i64) as u64));
    up(&mut s, ST, &[], Update::Stats(10));
    for v in [0, 1, 5] {
        up(&mut s, LAT, &[], Update::Hist(v));
    }
    for v in [-1i64, 5, 15] {
        up(&mut s, LIN, &[], Update::Lhist(v as u64));
    }
    s.maps[CALLS].drops = 2;
    s.maps[EVENTS].records = vec![
        ring_rec(0, &[100, (-1i64) as u64, add()]),
        ring_rec(1, &[101, 2, 0xdead]),
    ];
    s.maps[EVENTS].lost = 3;
    s.maps[EVENTS].drops = 3;
    s.maps[SCHED].records = vec![
        array_rec(0, 0, 0, 0, &[1000, 50, 3, add()]),
        // Overlaps the first in the same warp: a second line.
        array_rec(0, 0, 0, 1, &[1020, 40, 3, add()]),
        array_rec(0, 1, 2, 0, &[1100, 10, 7, add()]),
        // Negative elapsed: in the table, not on the trace.
        array_rec(0, 1, 3, 0, &[1200, (-5i64) as u64, 7, add()]),
    ];
    s.maps[SCHED].drops = 1;
    s.maps[MARKS].records = vec![array_rec(0, 2, 33, 0, &[add(), 9])];
    s.maps[PRINTF].records = vec![ring_rec(0, &[0, add(), 42])];
    let summary = Summary {
        kernels_instrumented: 1,
        launches_probed: 3,
        ..Summary::default()
    };
    report_of(10, &s, summary)
}

/// Process 11: a little more in a few maps, one `@calls` drop, a record of launch 4.
fn process_11() -> Report {
    let p = program();
    let mut s = MapStore::new(&p);
    s.update(MapId(CALLS as u32), &[add()], Update::Count)
        .expect("update");
    s.update(MapId(LAT as u32), &[], Update::Hist(5))
        .expect("update");
    s.update(MapId(LO as u32), &[], Update::Min((-10i64) as u64))
        .expect("update");
    s.maps[CALLS].drops = 1;
    s.maps[EVENTS].records = vec![ring_rec(0, &[200, 5, twice()])];
    s.maps[SCHED].records = vec![array_rec(4, 0, 1, 0, &[5000, 30, 2, twice()])];
    let mut reasons = BTreeMap::new();
    reasons.insert(Reason::NoPtx, 1);
    let summary = Summary {
        kernels_instrumented: 1,
        kernels_skipped: 1,
        launches_probed: 1,
        launches_unprobed: 2,
        reasons,
        ..Summary::default()
    };
    report_of(11, &s, summary)
}

/// Both processes merged (given out of pid order), and the host store made of them.
pub(super) fn merged() -> (Program, Report, MapStore) {
    let p = program();
    let r = Report::merge(vec![process_11(), process_10()]);
    let s = report_store(&p, &r);
    (p, r, s)
}

fn table(p: &Program, r: &Report, s: &MapStore, map: usize) -> Table {
    let run = RunResults {
        program: p,
        report: r,
        store: s,
    };
    map_table(run, &p.maps[map]).expect("a table")
}

fn csv(p: &Program, r: &Report, s: &MapStore, map: usize) -> String {
    table(p, r, s, map).to_csv().expect("csv")
}

#[test]
fn hash_tables_have_key_then_value_columns_and_a_row_per_bucket() {
    let (p, r, s) = merged();
    let t = |m| csv(&p, &r, &s, m);
    assert_eq!(t(CALLS), "key0,count\nadd(float*),4\ntwice(float*),1\n");
    assert_eq!(t(BYTES), "key0,key1,sum\n-2,7,-5\n3,1,9\n");
    assert_eq!(t(LO), "min\n-10\n");
    assert_eq!(t(HI), "max\n9\n");
    assert_eq!(t(LAST), "value\n-7\n");
    assert_eq!(t(MEAN), "key0,count,sum,avg\n1,2,30,15\n");
    assert_eq!(t(ST), "count,sum,avg\n2,6,3\n");
    // 0, 1, 5 and 5: buckets [0], [1], [2, 3] (empty, inside the range), [4, 7].
    assert_eq!(t(LAT), "min,max,count\n0,0,1\n1,1,1\n2,3,0\n4,7,2\n");
    // -1, 5, 15: below min (open lower bound), [0, 9], [10, 19].
    assert_eq!(t(LIN), "min,max,count\n,-1,1\n0,9,1\n10,19,1\n");
    let columns = table(&p, &r, &s, BYTES).columns;
    let types: Vec<_> = columns.iter().map(|c| (c.name.as_str(), c.ty)).collect();
    use super::tables::ColumnType::{I64, U64};
    assert_eq!(types, [("key0", I64), ("key1", U64), ("sum", I64)]);
}

#[test]
fn hash_tables_show_host_updates_as_the_exit_printing_does() {
    let (p, r, mut s) = merged();
    // An `end` block's update lands in the host store, which the tables are made of.
    s.update(MapId(CALLS as u32), &[twice()], Update::Count)
        .expect("update");
    assert_eq!(
        csv(&p, &r, &s, CALLS),
        "key0,count\nadd(float*),4\ntwice(float*),2\n"
    );
}

#[test]
fn record_tables_give_each_records_pid_and_place() {
    let (p, r, s) = merged();
    assert_eq!(
        csv(&p, &r, &s, EVENTS),
        "pid,launch,index,field0,field1,field2\n\
         10,0,0,100,-1,add(float*)\n\
         10,0,1,101,2,0xdead\n\
         11,0,0,200,5,twice(float*)\n"
    );
    assert_eq!(
        csv(&p, &r, &s, SCHED),
        "pid,launch,block,warp,slot,field0,field1,field2,field3\n\
         10,0,0,0,0,1000,50,3,add(float*)\n\
         10,0,0,0,1,1020,40,3,add(float*)\n\
         10,0,1,2,0,1100,10,7,add(float*)\n\
         10,0,1,3,0,1200,-5,7,add(float*)\n\
         11,4,0,1,0,5000,30,2,twice(float*)\n"
    );
    assert_eq!(
        csv(&p, &r, &s, MARKS),
        "pid,launch,block,thread,slot,field0,field1\n10,0,2,33,0,add(float*),9\n"
    );
    // The formatted text is quoted by the csv crate (quotes doubled, newline kept).
    assert_eq!(
        csv(&p, &r, &s, PRINTF),
        format!(
            "pid,launch,index,text,arg0,arg1\n10,0,0,\"say \"\"add(float*)\"\", 42\n\",{},42\n",
            add()
        )
    );
    // A process's own report (no per-pid shares) attributes its records to its pid.
    let own = process_11();
    assert_eq!(
        csv(&p, &own, &report_store(&p, &own), EVENTS),
        "pid,launch,index,field0,field1,field2\n11,0,0,200,5,twice(float*)\n"
    );
}

#[test]
fn merging_keeps_what_each_pid_contributed() {
    let (_, r, _) = merged();
    assert_eq!(r.pids, [10, 11]);
    let pids: Vec<u32> = r.processes.iter().map(|p| p.pid).collect();
    assert_eq!(pids, [10, 11]);
    assert_eq!(r.processes[0].summary.launches_probed, 3);
    assert_eq!(r.processes[1].summary.kernels_skipped, 1);
    let events = &r.maps[EVENTS];
    let shares: Vec<(u32, u64, u64, u64)> = events
        .by_pid
        .iter()
        .map(|s| (s.pid, s.records, s.drops, s.lost))
        .collect();
    assert_eq!(shares, [(10, 2, 3, 3), (11, 1, 0, 0)]);
    let pids: Vec<Option<u32>> = events.records_by_pid(None).iter().map(|x| x.0).collect();
    assert_eq!(pids, [Some(10), Some(10), Some(11)]);
    // Merging the merged report again keeps the processes and the shares.
    let again = Report::merge(vec![r.clone()]);
    assert_eq!(again.processes, r.processes);
    assert_eq!(again.maps[EVENTS].by_pid, events.by_pid);
    // The summary names each process that launched kernels, counts those that did not
    // (a launcher, a shell), and splits drops and lost records by pid.
    let launcher = Report {
        pids: vec![9],
        ..Report::default()
    };
    let with_launcher = Report::merge(vec![r.clone(), launcher]);
    assert_eq!(with_launcher.pids, [9, 10, 11]);
    assert_eq!(
        render_summary(&with_launcher, false),
        "warptrace: 2 kernels instrumented, 1 skipped (no PTX: 1), 4 launches probed, 2 unprobed\n\
         warptrace:   pid 10: 1 kernel instrumented, 0 skipped, 3 launches probed, 0 unprobed\n\
         warptrace:   pid 11: 1 kernel instrumented, 1 skipped (no PTX: 1), 1 launch probed, 2 unprobed\n\
         warptrace:   and 1 other process that launched no selected kernel\n\
         warptrace: @calls: 3 updates dropped (map full) [pid 10: 2, pid 11: 1]\n\
         warptrace: @events: 3 records lost (ring full, overwritten or torn) [pid 10: 3]\n\
         warptrace: @sched: 1 updates dropped (map full) [pid 10: 1]\n"
    );
    // One process launching kernels (with or without idle ones): no per-pid lines.
    let one = Report::merge(vec![process_10(), Report::default()]);
    assert_eq!(one.processes.len(), 2);
    assert!(!render_summary(&one, false).contains("pid"));
    // The counters `-f json` prints.
    let counts = serde_json::to_value(run_counts(&r)).expect("json");
    assert_eq!(counts["pids"], serde_json::json!([10, 11]));
    assert_eq!(counts["launches_probed"], 4);
    assert_eq!(counts["processes"][1]["pid"], 11);
    assert_eq!(counts["processes"][1]["reasons"]["no_ptx"], 1);
}

/// The complete events of a trace as (process name, thread name, ts, dur), after checking
/// that every event has the keys the Trace Event Format needs and every complete event's
/// process and thread are named by metadata events.
fn lanes(json: &str) -> Vec<(String, String, f64, f64)> {
    let v: serde_json::Value = serde_json::from_str(json).expect("trace JSON");
    assert_eq!(v["displayTimeUnit"], "ns");
    let events = v["traceEvents"].as_array().expect("traceEvents");
    let mut processes = BTreeMap::new();
    let mut threads = BTreeMap::new();
    let mut out = Vec::new();
    for e in events {
        for key in ["pid", "tid"] {
            assert!(e[key].as_u64().is_some_and(|n| n > 0), "{key} in {e}");
        }
        assert!(e["name"].is_string(), "{e}");
        assert!(e["ts"].as_f64().is_some_and(|t| t >= 0.0), "{e}");
        let (pid, tid) = (e["pid"].to_string(), e["tid"].to_string());
        let name = e["args"]["name"].as_str().map(str::to_string);
        match (e["ph"].as_str(), e["name"].as_str()) {
            (Some("M"), Some("process_name")) => {
                processes.insert(pid, name.expect("name"));
            }
            (Some("M"), Some("thread_name")) => {
                threads.insert((pid, tid), name.expect("name"));
            }
            (Some("M"), _) => assert!(e["args"]["sort_index"].is_u64(), "{e}"),
            (Some("X"), _) => {
                let dur = e["dur"].as_f64().expect("dur");
                assert!(dur >= 0.0, "{e}");
                let ts = e["ts"].as_f64().unwrap_or(-1.0);
                out.push((pid, tid, ts, dur));
            }
            _ => panic!("unexpected event {e}"),
        }
    }
    out.into_iter()
        .map(|(pid, tid, ts, dur)| {
            let process = processes.get(&pid).cloned().expect("process named");
            let thread = threads.get(&(pid, tid)).cloned().expect("thread named");
            (process, thread, ts, dur)
        })
        .collect()
}

fn complete_events(json: &str) -> Vec<serde_json::Value> {
    let v: serde_json::Value = serde_json::from_str(json).expect("trace JSON");
    let events = v["traceEvents"].as_array().expect("traceEvents");
    events.iter().filter(|e| e["ph"] == "X").cloned().collect()
}

#[test]
fn trace_puts_timing_records_on_kernel_sm_cta_processes_and_warp_threads() {
    let (p, r, _) = merged();
    let trace = chrome_trace(&p, &r, TraceOptions::default());
    assert_eq!(
        trace.maps,
        ["sched"],
        "only the per-warp (start, elapsed) array"
    );
    assert_eq!(trace.skipped, 1, "the negative elapsed");
    let json = trace.to_json();
    let s = |x: &str| x.to_string();
    // Cycles written as ns (µs = cycles / 1000), relative to each process's first start.
    assert_eq!(
        lanes(&json),
        [
            (s("pid 10 add(float*) SM 3 CTA 0"), s("warp 0"), 0.0, 0.05),
            (
                s("pid 10 add(float*) SM 3 CTA 0"),
                s("warp 0 (line 1)"),
                0.02,
                0.04
            ),
            (s("pid 10 add(float*) SM 7 CTA 1"), s("warp 2"), 0.1, 0.01),
            (
                s("pid 11 twice(float*) launch 4 SM 2 CTA 0"),
                s("warp 1"),
                0.0,
                0.03
            ),
        ]
    );
    let events = complete_events(&json);
    assert_eq!(events[0]["name"], "@sched");
    assert_eq!(events[0]["cat"], "add(float*)");
    // Processes and threads are numbered in label order, from 1.
    let ids: Vec<(u64, u64)> = events
        .iter()
        .map(|e| {
            (
                e["pid"].as_u64().unwrap_or(0),
                e["tid"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(ids, [(1, 1), (1, 2), (2, 3), (3, 4)]);
    assert_eq!(events[1]["args"]["slot"], 1);
    assert_eq!(events[1]["args"]["warp"], 0);
    assert_eq!(events[1]["args"]["start_cycles"], 1020);
    assert_eq!(events[3]["args"]["process"], 11);
    assert_eq!(
        events[3]["args"]["fields"],
        serde_json::json!([2, "twice(float*)"])
    );
    let v: serde_json::Value = serde_json::from_str(&json).expect("json");
    assert_eq!(v["otherData"]["skipped_records"], 1);
    assert!(v["otherData"]["time_unit"]
        .as_str()
        .is_some_and(|u| u.starts_with("clock cycles")));

    // With a clock rate, microseconds; one process's trace has no pid prefix.
    let own = process_10();
    let mhz = TraceOptions {
        clock_mhz: Some(1500.0),
    };
    let got = lanes(&chrome_trace(&p, &own, mhz).to_json());
    assert_eq!(got[2].0, "add(float*) SM 7 CTA 1");
    assert_eq!((got[2].2, got[2].3), (100.0 / 1500.0, 10.0 / 1500.0));
}

#[test]
fn a_timing_record_without_smid_or_kernel_is_labelled_by_its_map() {
    let p = Program {
        maps: vec![array("t", Per::Thread, vec![U, U])],
        ..Program::default()
    };
    let mut s = MapStore::new(&p);
    s.maps[0].records = vec![array_rec(0, 5, 40, 0, &[7, 3])];
    let r = Report {
        pids: vec![3],
        maps: store_reports(&p, &s),
        ..Report::default()
    };
    assert_eq!(
        lanes(&chrome_trace(&p, &r, TraceOptions::default()).to_json()),
        [("@t CTA 5".to_string(), "thread 40".to_string(), 0.0, 0.003)]
    );
    // No timing map at all: an empty trace.
    let none = chrome_trace(&program_without_timing(), &r, TraceOptions::default());
    assert!(none.is_empty() && none.maps.is_empty());
}

fn program_without_timing() -> Program {
    Program {
        maps: vec![ring("r", ValueKind::Record(vec![U, U]))],
        ..Program::default()
    }
}

#[test]
fn output_dir_holds_every_table_the_summary_and_an_index() {
    let (p, r, s) = merged();
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("new/out");
    let run = RunResults {
        program: &p,
        report: &r,
        store: &s,
    };
    let names = write_output_dir(&out, run, TraceOptions::default()).expect("written");
    let want = [
        "calls.csv",
        "bytes.csv",
        "lo.csv",
        "hi.csv",
        "last.csv",
        "mean.csv",
        "st.csv",
        "lat.csv",
        "lin.csv",
        "events.csv",
        "sched.csv",
        "marks.csv",
        "printf.csv",
        "trace.json",
        "summary.json",
        "index.json",
    ];
    assert_eq!(names, want);
    let mut on_disk: Vec<String> = std::fs::read_dir(&out)
        .expect("dir")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .collect();
    on_disk.sort();
    let mut sorted = want.map(str::to_string).to_vec();
    sorted.sort();
    assert_eq!(on_disk, sorted);
    let read = |f: &str| std::fs::read_to_string(out.join(f)).expect("read");
    assert_eq!(read("sched.csv"), csv(&p, &r, &s, SCHED));
    assert_eq!(
        read("trace.json"),
        chrome_trace(&p, &r, TraceOptions::default()).to_json()
    );

    let summary: serde_json::Value = serde_json::from_str(&read("summary.json")).expect("json");
    assert_eq!(summary["pids"], serde_json::json!([10, 11]));
    assert_eq!(summary["kernels_instrumented"], 2);
    assert_eq!(summary["processes"][0]["pid"], 10);
    assert_eq!(summary["processes"][0]["launches_probed"], 3);
    let map = |name: &str| {
        summary["maps"]
            .as_array()
            .and_then(|m| m.iter().find(|m| m["name"] == name))
            .cloned()
            .unwrap_or_default()
    };
    assert_eq!(map("@calls")["entries"], 2);
    assert_eq!(map("@calls")["drops"], 3);
    assert_eq!(map("@calls")["file"], "calls.csv");
    assert_eq!(map("@events")["records"], 3);
    assert_eq!(map("@events")["lost"], 3);
    assert_eq!(map("@events")["by_pid"][0]["lost"], 3);
    assert_eq!(map("@events")["by_pid"][1]["pid"], 11);
    assert_eq!(map("@sched")["drops"], 1);
    assert_eq!(summary["trace"]["events"], 4);
    assert_eq!(summary["trace"]["skipped_records"], 1);
    assert_eq!(summary["trace"]["file"], "trace.json");

    let index: serde_json::Value = serde_json::from_str(&read("index.json")).expect("json");
    let files = index["files"].as_array().expect("files");
    let listed: Vec<&str> = files.iter().filter_map(|f| f["file"].as_str()).collect();
    assert_eq!(listed, want);
    assert_eq!(files[SCHED]["rows"], 5);
    assert_eq!(
        files[SCHED]["columns"][3],
        serde_json::json!({"name": "warp", "type": "u64"})
    );
    assert_eq!(files[CALLS]["columns"][0]["type"], "kernel");

    // Again into the same directory: fine, same files.
    let again = write_output_dir(&out, run, TraceOptions::default()).expect("rewritten");
    assert_eq!(again, want);
}

#[test]
fn no_timing_records_no_trace_file() {
    let p = program_without_timing();
    let r = Report::default();
    let s = MapStore::new(&p);
    let dir = tempfile::tempdir().expect("tempdir");
    let run = RunResults {
        program: &p,
        report: &r,
        store: &s,
    };
    let names = write_output_dir(dir.path(), run, TraceOptions::default()).expect("written");
    assert_eq!(names, ["r.csv", "summary.json", "index.json"]);
    let table = std::fs::read_to_string(dir.path().join("r.csv")).expect("read");
    assert_eq!(table, "pid,launch,index,field0,field1\n");
}

#[test]
fn a_file_is_not_an_output_directory() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("f");
    std::fs::write(&file, "x").expect("write");
    let err = prepare_output_dir(&file).expect_err("a file");
    assert!(matches!(err, ExportError::NotADirectory { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        format!("{} exists and is not a directory", file.display())
    );
    // Below a file: cannot be created.
    let err = prepare_output_dir(&file.join("sub")).expect_err("under a file");
    assert!(matches!(err, ExportError::CreateDir { .. }), "{err:?}");
    // A new nested directory is created.
    let nested = dir.path().join("a/b");
    prepare_output_dir(&nested).expect("created");
    assert!(nested.is_dir());
}

/// NEUTRINO's block scheduling as records, compiled by the language and run by the IR
/// interpreter (the GPU's oracle) over 3 blocks of 2 warps: every warp's record is a
/// timing record, on its block's process, in its warp's thread.
#[test]
fn block_sched_records_of_the_interpreter_become_a_trace() {
    use warptrace_ir::interp::{Event, Grid, Interpreter, SimConfig, SimKernel, SiteEvent};
    let source = "map @sched: array(per = warp, slots = 1); \
                  kernel:entry { %t0 = clock64; } \
                  warp kernel:exit { @sched = (%t0, clock64 - %t0, smid, kernel); }";
    let program = warptrace_lang::compile(source, "sched.wt").expect("compiles");
    assert!(is_timing_map(&program.maps[0]));
    let kernel = SimKernel::new("_Z3addPf", |_| {
        vec![
            Event::at(0, SiteEvent::Entry),
            Event::at(1, SiteEvent::Exit),
        ]
    });
    let config = SimConfig {
        nsmid: 2,
        launch: 7,
        ..SimConfig::default()
    };
    let store = Interpreter::new(&program)
        .with_config(config)
        .run_kernel(&kernel, &Grid::linear(3, 64))
        .expect("runs");
    let mut kernels = BTreeMap::new();
    kernels.insert(add(), "_Z3addPf".to_string());
    let report = Report {
        pids: vec![42],
        maps: store_reports(&program, &store),
        kernels,
        ..Report::default()
    };
    assert_eq!(report.maps[0].records.len(), 6);
    let trace = chrome_trace(&program, &report, TraceOptions::default());
    assert_eq!(trace.skipped, 0);
    let got = lanes(&trace.to_json());
    let names: Vec<(String, String)> = got.iter().map(|l| (l.0.clone(), l.1.clone())).collect();
    let mut want = Vec::new();
    for block in 0..3 {
        for warp in 0..2 {
            // The interpreter writes the buffer's `launch` word (the runtime does when the
            // program reads `launch`): its records carry launch 7.
            want.push((
                format!("add(float*) launch 7 SM {} CTA {block}", block % 2),
                format!("warp {warp}"),
            ));
        }
    }
    assert_eq!(names, want);
    // Each warp: entry at its first site, exit one site later (the interpreter's clock:
    // 100 cycles a site), so every record lasts about 100 cycles and starts at 0.
    for (_, _, ts, dur) in &got {
        assert_eq!(*ts, 0.0);
        assert!((0.09..0.11).contains(dur), "{dur}");
    }
}

#[test]
fn maps_keyed_by_kernel_alone_share_a_per_kernel_table() {
    let p = Program {
        maps: vec![
            hash("calls", vec![K], ValueKind::Count),
            hash("bytes", vec![K], ValueKind::Sum { signed: true }),
            // Not in the table: two keys, and a value of two numbers.
            hash("by_size", vec![K, U], ValueKind::Count),
            hash("mean", vec![K], ValueKind::Avg { signed: false }),
            hash("peak", vec![K], ValueKind::Max { signed: false }),
        ],
        ..Program::default()
    };
    let mut s = MapStore::new(&p);
    let mut up = |m: u32, keys: &[u64], u: Update| s.update(MapId(m), keys, u).expect("update");
    up(0, &[add()], Update::Count);
    up(0, &[add()], Update::Count);
    up(0, &[twice()], Update::Count);
    up(1, &[add()], Update::Sum(-5i64 as u64));
    up(2, &[add(), 4], Update::Count);
    up(3, &[twice()], Update::Avg(8));
    up(4, &[twice()], Update::Max(70));
    let mut r = report_of(10, &s, Summary::default());
    r.maps = store_reports(&p, &s);
    let run = RunResults {
        program: &p,
        report: &r,
        store: &s,
    };
    let t = super::tables::kernel_table(run).expect("three maps keyed by kernel alone");
    assert_eq!(
        t.to_csv().expect("csv"),
        "kernel,@calls,@bytes,@peak\nadd(float*),2,-5,\ntwice(float*),1,,70\n"
    );
    use super::tables::ColumnType::{Kernel, I64, U64};
    let types: Vec<_> = t.columns.iter().map(|c| c.ty).collect();
    assert_eq!(types, [Kernel, U64, I64, U64]);
    let dir = tempfile::tempdir().expect("tempdir");
    let names = write_output_dir(dir.path(), run, TraceOptions::default()).expect("written");
    assert!(names.contains(&"per-kernel.csv".to_string()), "{names:?}");
    let read = std::fs::read_to_string(dir.path().join("per-kernel.csv")).expect("read");
    assert_eq!(read, t.to_csv().expect("csv"));
    // One such map: its own table says it all.
    let one = Program {
        maps: vec![hash("calls", vec![K], ValueKind::Count)],
        ..Program::default()
    };
    let s1 = MapStore::new(&one);
    let run1 = RunResults {
        program: &one,
        report: &r,
        store: &s1,
    };
    assert!(super::tables::kernel_table(run1).is_none());
}
