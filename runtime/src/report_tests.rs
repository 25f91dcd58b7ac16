//! Report merging and rendering, against golden text.

use crate::output::{json, text, Hist, KeyPart, Kind, Lhist, MapOutput, Number, RingOutput, Value};
use crate::report::*;
use std::collections::BTreeMap;
use warptrace_ir::{
    hist_bucket, kernel_id, max_encode, min_encode, KeyType, MapDecl, MapId, MapKind, MapStore,
    Overflow, Program, Record, RecordOrigin, Update, ValueKind,
};

fn program() -> Program {
    let decl = |name: &str, keys: Vec<KeyType>, value| MapDecl {
        name: name.into(),
        kind: MapKind::Hash { capacity: 64 },
        keys,
        value,
    };
    Program {
        maps: vec![
            decl("launches", vec![KeyType::Kernel], ValueKind::Count),
            decl("bytes", vec![], ValueKind::Sum { signed: false }),
            decl(
                "delta",
                vec![
                    KeyType::Int { signed: true },
                    KeyType::Int { signed: false },
                ],
                ValueKind::Sum { signed: true },
            ),
            decl("never", vec![], ValueKind::Count),
            decl(
                "low",
                vec![KeyType::Int { signed: false }],
                ValueKind::Min { signed: true },
            ),
        ],
        ..Program::default()
    }
}

fn entry(keys: &[u64], value: u64) -> MapEntry {
    MapEntry {
        keys: keys.to_vec(),
        value,
        words: vec![],
    }
}

fn process(pid: u32, scale: u64) -> Report {
    let twice = kernel_id("_Z5twicePf");
    let add = kernel_id("vector_add");
    let mut kernels = BTreeMap::new();
    kernels.insert(twice, "_Z5twicePf".to_string());
    kernels.insert(add, "vector_add".to_string());
    let mut reasons = BTreeMap::new();
    reasons.insert(Reason::NoPtx, 1);
    reasons.insert(Reason::Capture, scale);
    Report {
        format: REPORT_FORMAT,
        pids: vec![pid],
        maps: vec![
            MapReport {
                name: "launches".into(),
                entries: vec![
                    entry(&[twice], 4 * scale),
                    entry(&[add], 3 * scale),
                    entry(&[0xdead], 1),
                ],
                drops: 0,
                kind: None,
                ..MapReport::default()
            },
            MapReport {
                name: "bytes".into(),
                entries: vec![entry(&[], 4096 * scale)],
                drops: 0,
                kind: None,
                ..MapReport::default()
            },
            MapReport {
                name: "delta".into(),
                entries: vec![
                    entry(&[(-2i64) as u64, 7], (-5i64) as u64),
                    entry(&[3, 1], 9),
                    entry(&[1, 1], 9),
                ],
                drops: 2 * scale,
                kind: None,
                ..MapReport::default()
            },
            MapReport {
                name: "never".into(),
                entries: vec![],
                drops: 0,
                kind: None,
                ..MapReport::default()
            },
            MapReport {
                name: "low".into(),
                entries: vec![entry(&[pid.into()], (-3i64) as u64)],
                drops: 0,
                kind: Some(ValueKind::Min { signed: true }),
                ..MapReport::default()
            },
        ],
        kernels,
        summary: Summary {
            kernels_instrumented: 2,
            kernels_skipped: 1,
            launches_probed: 20 * scale,
            launches_unprobed: 1 + scale,
            launches_lost: 0,
            reasons,
            ..Summary::default()
        },
        kernel_status: vec![
            KernelReport {
                name: "_Z5twicePf".into(),
                status: KernelState::Instrumented { sites: 2 },
                launches_probed: 20 * scale,
                launches_unprobed: scale,
            },
            KernelReport {
                name: "sass_only".into(),
                status: KernelState::Skipped {
                    reason: Reason::NoPtx,
                    detail: "ELF without .nv_debug_ptx_txt".into(),
                },
                launches_probed: 0,
                launches_unprobed: 1,
            },
        ],
        processes: Vec::new(),
    }
}

#[test]
fn renders_bpftrace_text() {
    let text = render_text(&program(), &process(10, 1));
    // bpftrace's exit printing (src/main.cpp, BPFtrace::print_maps): two newlines, then
    // the maps in name order; a count/sum/min map ends with its last line (no blank line,
    // TextOutput::map), an empty map prints one newline.
    let expected = "

@bytes: 4096
@delta[-2, 7]: -5
@delta[1, 1]: 9
@delta[3, 1]: 9
@launches[0xdead]: 1
@launches[vector_add]: 3
@launches[twice(float*)]: 4
@low[10]: -3

";
    assert_eq!(text, expected);
}

#[test]
fn merges_processes() {
    let merged = Report::merge(vec![process(11, 2), process(10, 1)]);
    assert_eq!(merged.pids, [10, 11]);
    let text = render_text(&program(), &merged);
    let expected = "

@bytes: 12288
@delta[-2, 7]: -10
@delta[1, 1]: 18
@delta[3, 1]: 18
@launches[0xdead]: 2
@launches[vector_add]: 9
@launches[twice(float*)]: 12
@low[10]: -3
@low[11]: -3

";
    assert_eq!(text, expected);
    assert_eq!(merged.kernel_status.len(), 2);
    assert_eq!(merged.kernel_status[0].launches_probed, 60);
    assert_eq!(
        render_summary(&merged, false),
        "warptrace: 4 kernels instrumented, 2 skipped (no PTX: 2), 60 launches probed, 5 unprobed (skipped kernels: 2, graph capture: 3)\n\
         warptrace:   pid 10: 2 kernels instrumented, 1 skipped (no PTX: 1), 20 launches probed, 2 unprobed (skipped kernels: 1, graph capture: 1)\n\
         warptrace:   pid 11: 2 kernels instrumented, 1 skipped (no PTX: 1), 40 launches probed, 3 unprobed (skipped kernels: 1, graph capture: 2)\n\
         warptrace: @delta: 6 updates dropped (map full) [pid 10: 2, pid 11: 4]\n"
    );
    // JSON round trip, kernel ids as object keys.
    let json = serde_json::to_string(&merged).expect("json");
    assert_eq!(
        serde_json::from_str::<Report>(&json).expect("parse"),
        merged
    );
}

#[test]
fn summary_lines() {
    let r = process(10, 1);
    assert_eq!(
        render_summary(&r, true),
        "warptrace: 2 kernels instrumented, 1 skipped (no PTX: 1), 20 launches probed, 2 unprobed (skipped kernels: 1, graph capture: 1)\n\
         warptrace: @delta: 2 updates dropped (map full)\n\
         warptrace:   twice(float*): instrumented, 2 sites; 20 launches probed, 1 unprobed\n\
         warptrace:   sass_only: skipped: no PTX: ELF without .nv_debug_ptx_txt; 0 launches probed, 1 unprobed\n"
    );
    let mut clean = Report::default();
    clean.summary.kernels_instrumented = 2;
    clean.summary.launches_probed = 40;
    assert_eq!(
        render_summary(&clean, false),
        "warptrace: 2 kernels instrumented, 0 skipped, 40 launches probed, 0 unprobed\n"
    );
    clean.summary.launches_lost = 3;
    assert!(render_summary(&clean, false).contains(", 3 lost (results not read back before exit)"));
    clean.summary.launches_lost = 0;
    clean.summary.graph_nodes = 2;
    assert_eq!(
        render_summary(&clean, false),
        "warptrace: 2 kernels instrumented, 0 skipped, 40 launches probed (replays included, \
         of 2 probed kernel nodes in CUDA graphs), 0 unprobed\n"
    );
    // Launches of kernels no probe selects: the reach.
    clean.summary.graph_nodes = 0;
    clean.summary.launches_unprobed = 10;
    clean.summary.launches_other = 150;
    assert_eq!(
        render_summary(&clean, false),
        "warptrace: 2 kernels instrumented, 0 skipped, 40 launches probed, 10 unprobed; \
         reach: 20.0% of 200 launches ran probes (150 of kernels no probe selects)\n"
    );
    // With launch:end blocks, the device time too.
    clean.summary.device_ns = 8_000_000;
    clean.summary.device_ns_probed = 2_000_000;
    assert!(render_summary(&clean, false).ends_with(
        "ran probes (150 of kernels no probe selects), 25.0% of 8.000 ms of device time\n"
    ));
    clean.summary.device_ns = 0;
    clean.summary.device_ns_probed = 0;
    clean.summary.launches_unprobed = 0;
    clean.summary.launches_other = 0;
    clean.summary.graph_nodes = 2;
    // Merged across processes, and absent from a report without graphs.
    let merged = Report::merge(vec![clean.clone(), clean.clone()]);
    assert_eq!(merged.summary.graph_nodes, 4);
    let json = serde_json::to_string(&Report::default()).expect("json");
    assert!(!json.contains("graph_nodes"), "{json}");
}

#[test]
fn empty_report_renders_nothing() {
    assert_eq!(render_text(&program(), &Report::default()), "");
}

/// Every hash value kind, as a process's store holds it.
fn kinds_program() -> Program {
    let decl = |name: &str, keys: Vec<KeyType>, value| MapDecl {
        name: name.into(),
        kind: MapKind::Hash { capacity: 64 },
        keys,
        value,
    };
    let k = || vec![KeyType::Int { signed: false }];
    Program {
        maps: vec![
            decl("lo", k(), ValueKind::Min { signed: true }),
            decl("hi", k(), ValueKind::Max { signed: false }),
            decl("mean", k(), ValueKind::Avg { signed: true }),
            decl("st", vec![], ValueKind::Stats { signed: false }),
            decl("lat", vec![KeyType::Kernel], ValueKind::Hist),
            decl(
                "lin",
                vec![],
                ValueKind::Lhist {
                    min: 0,
                    max: 100,
                    step: 10,
                },
            ),
            decl("last", vec![], ValueKind::Value { signed: true }),
        ],
        ..Program::default()
    }
}

/// One process: its host store, filled by updates, reported as the runtime reports it.
fn kinds_process(pid: u32, values: &[i64]) -> Report {
    let p = kinds_program();
    let mut s = MapStore::new(&p);
    let k = kernel_id("gemm");
    for &v in values {
        let x = v as u64;
        let ok = [
            s.update(MapId(0), &[1], Update::Min(x)),
            s.update(MapId(1), &[1], Update::Max(x)),
            s.update(MapId(2), &[1], Update::Avg(x)),
            s.update(MapId(3), &[], Update::Stats(x)),
            s.update(MapId(4), &[k], Update::Hist(x)),
            s.update(MapId(5), &[], Update::Lhist(x)),
            s.update(MapId(6), &[], Update::Assign(x)),
        ];
        assert!(ok.iter().all(Result::is_ok));
    }
    let mut kernels = BTreeMap::new();
    kernels.insert(k, "gemm".to_string());
    Report {
        format: REPORT_FORMAT,
        pids: vec![pid],
        maps: store_reports(&p, &s),
        kernels,
        ..Report::default()
    }
}

#[test]
fn every_hash_kind_merges_and_prints() {
    let p = kinds_program();
    let merged = Report::merge(vec![
        kinds_process(1, &[5, 100, -2]),
        kinds_process(2, &[7, 64]),
    ]);
    let entry = |name: &str| {
        merged
            .maps
            .iter()
            .find(|m| m.name == name)
            .map(|m| m.entries.clone())
            .expect("map")
    };
    assert_eq!(entry("lo")[0].words, [min_encode((-2i64) as u64, true)]);
    assert_eq!(entry("lo")[0].value, (-2i64) as u64);
    assert_eq!(
        entry("hi")[0].value,
        (-2i64) as u64,
        "unsigned max of the bits"
    );
    assert_eq!(entry("hi")[0].words, [max_encode((-2i64) as u64, false)]);
    assert_eq!(entry("mean")[0].words, [5, 174]);
    assert_eq!(entry("last")[0].value, 64, "the later report's value");

    let outputs = map_outputs(&p, &merged);
    let mut hist = vec![0u64; 65];
    for x in [5i64, 100, -2, 7, 64] {
        hist[hist_bucket(x, 0) as usize] += 1;
    }
    let mut lin = vec![0u64; 12];
    for (b, n) in [(0, 1), (1, 2), (7, 1), (11, 1)] {
        lin[b] = n;
    }
    let one = |v: Value| vec![(vec![KeyPart::UInt(1)], v)];
    let expected = vec![
        MapOutput::new("lo", Kind::Min, one(Value::Min(Number::Signed(-2)))),
        MapOutput::new(
            "hi",
            Kind::Max,
            one(Value::Max(Number::Unsigned((-2i64) as u64))),
        ),
        MapOutput::new(
            "mean",
            Kind::Avg,
            one(Value::Avg {
                total: Number::Signed(174),
                count: 5,
            }),
        ),
        MapOutput::scalar(
            "st",
            Value::Stats {
                total: Number::Unsigned(174),
                count: 5,
            },
        ),
        MapOutput::new(
            "lat",
            Kind::Hist,
            vec![(
                vec![KeyPart::Str("gemm".into())],
                Value::Hist(Hist {
                    bits: 0,
                    buckets: hist,
                }),
            )],
        ),
        MapOutput::scalar(
            "lin",
            Value::Lhist(Lhist {
                min: 0,
                max: 100,
                step: 10,
                buckets: lin,
            }),
        ),
        MapOutput::scalar("last", Value::Int(Number::Signed(64))),
    ];
    assert_eq!(outputs, expected);
    // The same maps straight from a host store (what the CLI prints after host blocks).
    let mut store = MapStore::new(&p);
    assert!(store
        .update(MapId(4), &[kernel_id("gemm")], Update::Hist(5))
        .is_ok());
    let mut names = BTreeMap::new();
    names.insert(kernel_id("gemm"), "gemm".to_string());
    let printed = store_outputs(&p, &store, &names);
    assert_eq!(printed.len(), 7);
    assert!(text::exit(&printed[4..5]).contains("@lat[gemm]:"));
    // JSON round trip keeps words and kinds.
    let json = serde_json::to_string(&merged).expect("json");
    assert_eq!(
        serde_json::from_str::<Report>(&json).expect("parse"),
        merged
    );
}

/// A program with a hash map, a ring of `(u64, i64, kernel)` records and the printf ring.
fn rings_program() -> Program {
    Program {
        maps: vec![
            MapDecl {
                name: "n".into(),
                kind: MapKind::Hash { capacity: 64 },
                keys: vec![],
                value: ValueKind::Count,
            },
            MapDecl {
                name: "trace".into(),
                kind: MapKind::Ring {
                    capacity: 8,
                    overflow: Overflow::Drop,
                },
                keys: vec![],
                value: ValueKind::Record(vec![
                    KeyType::Int { signed: false },
                    KeyType::Int { signed: true },
                    KeyType::Kernel,
                ]),
            },
            MapDecl {
                name: "printf".into(),
                kind: MapKind::Ring {
                    capacity: 8,
                    overflow: Overflow::Drop,
                },
                keys: vec![],
                value: ValueKind::Printf { args: 2 },
            },
            MapDecl {
                name: "one".into(),
                kind: MapKind::Ring {
                    capacity: 8,
                    overflow: Overflow::Overwrite,
                },
                keys: vec![],
                value: ValueKind::Record(vec![KeyType::Int { signed: false }]),
            },
        ],
        formats: vec!["tid %d in %s\n".into(), "x=%x\n".into()],
        ..Program::default()
    }
}

fn ring_record(index: u64, fields: &[u64]) -> Record {
    Record {
        origin: RecordOrigin::Ring { launch: 0, index },
        fields: fields.to_vec(),
    }
}

/// One process's report of `rings_program`, as the runtime builds it from its store.
fn rings_process(pid: u32, base: u64, lost: u64) -> Report {
    let p = rings_program();
    let mut s = MapStore::new(&p);
    assert!(s.update(MapId(0), &[], Update::Count).is_ok());
    let k = kernel_id("_Z5twicePf");
    s.maps[1].records = vec![
        ring_record(0, &[base, (-7i64) as u64, k]),
        ring_record(1, &[base + 1, 3, 0x99]),
    ];
    s.maps[1].lost = lost;
    s.maps[1].drops = lost;
    s.maps[2].records = vec![ring_record(0, &[0, base, k]), ring_record(1, &[1, 255, 0])];
    let mut kernels = BTreeMap::new();
    kernels.insert(k, "_Z5twicePf".to_string());
    Report {
        format: REPORT_FORMAT,
        pids: vec![pid],
        maps: store_reports(&p, &s),
        kernels,
        ..Report::default()
    }
}

#[test]
fn records_round_trip_through_json() {
    let r = rings_process(7, 100, 3);
    let trace = &r.maps[1];
    assert_eq!(trace.lost, 3);
    assert_eq!(trace.drops, 3);
    assert_eq!(
        trace.records[0],
        MapRecord {
            origin: Origin::Ring {
                launch: 0,
                index: 0
            },
            fields: vec![100, (-7i64) as u64, kernel_id("_Z5twicePf")],
        }
    );
    let json = serde_json::to_string(&r).expect("json");
    assert!(json.contains(r#""records":[{"origin":{"ring":{"launch":0,"index":0}},"fields":[100,"#));
    assert!(json.contains(r#""lost":3"#));
    assert_eq!(serde_json::from_str::<Report>(&json).expect("parse"), r);
    // Additive: maps without records or lost write neither, and an older map entry
    // (no `records`, no `lost`) still parses.
    let n = serde_json::to_string(&r.maps[0]).expect("json");
    assert!(!n.contains("records") && !n.contains("lost"), "{n}");
    let old: MapReport =
        serde_json::from_str(r#"{"name": "t", "entries": [], "drops": 2}"#).expect("old");
    assert_eq!((old.records.len(), old.lost, old.drops), (0, 0, 2));
    // Array origins too.
    let a = MapRecord {
        origin: Origin::Array {
            launch: 1,
            block: 2,
            row: 3,
            slot: 4,
        },
        fields: vec![5],
    };
    let text = serde_json::to_string(&a).expect("json");
    assert_eq!(
        text,
        r#"{"origin":{"array":{"launch":1,"block":2,"row":3,"slot":4}},"fields":[5]}"#
    );
    assert_eq!(serde_json::from_str::<MapRecord>(&text).expect("parse"), a);
}

#[test]
fn merge_orders_records_by_pid_and_adds_lost() {
    let merged = Report::merge(vec![rings_process(20, 200, 1), rings_process(10, 100, 2)]);
    assert_eq!(merged.pids, [10, 20]);
    let trace = &merged.maps[1];
    let firsts: Vec<u64> = trace.records.iter().map(|r| r.fields[0]).collect();
    assert_eq!(
        firsts,
        [100, 101, 200, 201],
        "pid 10's records, then pid 20's"
    );
    assert_eq!(trace.lost, 3);
    assert_eq!(trace.drops, 3);
    assert_eq!(merged.maps[2].records.len(), 4);
    assert_eq!(merged.maps[0].entries[0].value, 2);
    assert_eq!(merged.maps[3].records, []);
    // A merge of merged reports keeps its records.
    let again = Report::merge(vec![merged.clone()]);
    assert_eq!(again.maps[1].records, trace.records);
    let json = serde_json::to_string(&merged).expect("json");
    assert_eq!(
        serde_json::from_str::<Report>(&json).expect("parse"),
        merged
    );
    assert_eq!(
        render_summary(&merged, false),
        "warptrace: 0 kernels instrumented, 0 skipped, 0 launches probed, 0 unprobed\n\
         warptrace: @trace: 3 records lost (ring full, overwritten or torn) [pid 10: 2, pid 20: 1]\n"
    );
}

/// Records past `--max-records` reach the report, add up over processes, survive the
/// round trip through a host store and get a summary line of their own.
#[test]
fn records_over_the_limit_are_reported_and_merged() {
    let p = rings_program();
    let process = |pid: u32, over: u64| {
        let mut r = rings_process(pid, 100, 0);
        let mut s = report_store(&p, &r);
        s.maps[1].over_limit = over;
        r.maps = store_reports(&p, &s);
        r.summary.max_records = 2;
        r
    };
    let one = process(10, 5);
    assert_eq!(one.maps[1].over_limit, 5);
    assert_eq!(report_store(&p, &one).maps[1].over_limit, 5);
    let json = serde_json::to_string(&one).expect("json");
    assert!(json.contains(r#""over_limit":5"#), "{json}");
    assert_eq!(serde_json::from_str::<Report>(&json).expect("parse"), one);
    let merged = Report::merge(vec![one, process(20, 7)]);
    assert_eq!((merged.maps[1].over_limit, merged.maps[1].lost), (12, 0));
    assert_eq!(merged.summary.max_records, 2);
    assert_eq!(
        render_summary(&merged, false),
        "warptrace: 0 kernels instrumented, 0 skipped, 0 launches probed, 0 unprobed\n\
         warptrace: @trace: 12 records not kept: a process keeps a map's first 2 \
         (--max-records)\n"
    );
}

#[test]
fn report_store_restores_records_and_lost() {
    let p = rings_program();
    let r = rings_process(7, 100, 3);
    let store = report_store(&p, &r);
    assert_eq!(
        store.maps[1].records,
        [
            ring_record(0, &[100, (-7i64) as u64, kernel_id("_Z5twicePf")]),
            ring_record(1, &[101, 3, 0x99]),
        ]
    );
    assert_eq!((store.maps[1].lost, store.maps[1].drops), (3, 3));
    let printf: Vec<(u64, Vec<u64>)> = store
        .printf_records(&p)
        .map(|(f, a)| (f, a.to_vec()))
        .collect();
    assert_eq!(
        printf,
        [(0, vec![100, kernel_id("_Z5twicePf")]), (1, vec![255, 0])]
    );
    // And back: the store reports the same maps.
    assert_eq!(store_reports(&p, &store), r.maps);
}

#[test]
fn renders_printf_and_ring_records() {
    let p = rings_program();
    let r = rings_process(7, 100, 3);
    let store = report_store(&p, &r);
    assert_eq!(
        printf_texts(&p, &store, &r.kernels),
        ["tid 100 in twice(float*)\n", "x=ff\n"]
    );
    let rings = ring_outputs(&p, &store, &r.kernels);
    assert_eq!(rings.len(), 2, "the printf ring is not listed");
    assert_eq!(
        rings[0],
        RingOutput::new(
            "trace",
            vec![
                vec![
                    KeyPart::UInt(100),
                    KeyPart::Int(-7),
                    KeyPart::Str("twice(float*)".into())
                ],
                vec![
                    KeyPart::UInt(101),
                    KeyPart::Int(3),
                    KeyPart::Str("0x99".into())
                ],
            ]
        )
    );
    assert_eq!(
        text::ring(&rings[0]),
        "@trace: (100, -7, twice(float*))\n@trace: (101, 3, 0x99)\n"
    );
    assert_eq!(
        json::ring(&rings[0]),
        "{\"type\": \"ring\", \"data\": {\"@trace\": [[100, -7, \"twice(float*)\"], [101, 3, \"0x99\"]]}}\n"
    );
    let one = RingOutput::new("one", vec![vec![KeyPart::UInt(4)], vec![KeyPart::UInt(5)]]);
    assert_eq!(text::ring(&one), "@one: 4\n@one: 5\n");
    assert_eq!(
        json::ring(&one),
        "{\"type\": \"ring\", \"data\": {\"@one\": [4, 5]}}\n"
    );
    assert_eq!(text::ring(&rings[1]), "", "an empty ring prints nothing");
    assert_eq!(json::ring(&rings[1]), "");
    serde_json::from_str::<serde_json::Value>(&json::ring(&rings[0])).expect("valid JSON");
    // At exit: maps and rings in name order.
    assert_eq!(
        render_text(&p, &r),
        "\n\n@n: 1\n@trace: (100, -7, twice(float*))\n@trace: (101, 3, 0x99)\n"
    );
    assert_eq!(
        json::exit_with_rings(&store_outputs(&p, &store, &r.kernels), &rings),
        "{\"type\": \"map\", \"data\": {\"@n\": 1}}\n\
         {\"type\": \"ring\", \"data\": {\"@trace\": [[100, -7, \"twice(float*)\"], [101, 3, \"0x99\"]]}}\n"
    );
    // The device's events, in text, as the CLI prints them (stderr when no CLI).
    assert_eq!(lost_records(&p, &store), [("trace".to_string(), 3)]);
    assert_eq!(
        render_events(&p, &r),
        "tid 100 in twice(float*)\nx=ff\nLost 3 events\n"
    );
    // A ring-only program without records prints nothing at exit.
    let mut quiet = rings_program();
    quiet.maps.remove(0);
    assert_eq!(render_text(&quiet, &Report::default()), "");
}
