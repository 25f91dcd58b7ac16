//! Report merging and rendering, against golden text.

use crate::report::*;
use std::collections::BTreeMap;
use warptrace_ir::{kernel_id, KeyType, MapDecl, MapKind, Program, ValueKind};

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
            },
            MapReport {
                name: "bytes".into(),
                entries: vec![entry(&[], 4096 * scale)],
                drops: 0,
            },
            MapReport {
                name: "delta".into(),
                entries: vec![
                    entry(&[(-2i64) as u64, 7], (-5i64) as u64),
                    entry(&[3, 1], 9),
                    entry(&[1, 1], 9),
                ],
                drops: 2 * scale,
            },
            MapReport {
                name: "never".into(),
                entries: vec![],
                drops: 0,
            },
            MapReport {
                name: "low".into(),
                entries: vec![entry(&[pid.into()], (-3i64) as u64)],
                drops: 0,
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
         warptrace: @delta: 6 updates dropped (map full)\n"
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
}

#[test]
fn empty_report_renders_nothing() {
    assert_eq!(render_text(&program(), &Report::default()), "");
}
