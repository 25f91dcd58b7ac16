//! Golden tests: maps rendered byte for byte as bpftrace v0.20–v0.23 prints them.
//!
//! Where each detail comes from (bpftrace sources):
//! - `@x:` header line of a hist map, no trailing space: `TextOutput::map_key_val`
//!   (`key` then `":\n"` for hist/lhist, `": "` otherwise);
//! - rows only from the first to the last nonzero bucket, inner empty ones printed:
//!   `Output::hist_prepare` (`min_index`/`max_index` of values `> 0`);
//! - labels `[4, 8)`, `[1M, 2M)`: `TextOutput::hist_index_label` with `k = 0`;
//! - `setw(16) left` label, `setw(8) right` count, ` |`, `setw(52) left` bar of `@`,
//!   `|`: `TextOutput::hist_to_str`; bar = `count / (float)max * 52` truncated;
//! - the blank line after a hist map: `TextOutput::map_hist` ends with `std::endl`, and
//!   every row already ends with one; between keys `map_elem_delim` prints `"\n"`;
//! - `print(@x)` prints the same text as the exit printing of that map
//!   (`AsyncAction::print` → `BPFtrace::print_map`); at exit `main.cpp` first prints
//!   `"\n\n"`, then `print_maps` walks `bytecode_.maps()`, a `std::map` keyed by name;
//! - count/sum maps end with one `std::endl` (no blank line), avg/stats with two
//!   (`TextOutput::map_stats`), as in bpftrace's runtime test `print_avg_map_args`
//!   (`EXPECT BEGIN\n@[c]: 3\n@[d]: 4\n\nEND`);
//! - JSON records and spacing: `JsonOutput::map`, `map_hist`, `map_stats`, `message`,
//!   `hist_to_str`, `lhist_to_str`, `key_value_pairs_to_str`.

use super::hist::{lhist_bucket, log2_bucket, log2_bucket_count};
use super::*;

fn hist(values: &[i64]) -> Hist {
    let mut buckets = vec![0; log2_bucket_count(0)];
    for &v in values {
        buckets[log2_bucket(v, 0)] += 1;
    }
    Hist { bits: 0, buckets }
}

fn lhist(values: &[i64], min: i64, max: i64, step: i64) -> Lhist {
    let mut buckets = vec![0; hist::lhist_bucket_count(min, max, step)];
    for &v in values {
        buckets[lhist_bucket(v, min, max, step)] += 1;
    }
    Lhist {
        min,
        max,
        step,
        buckets,
    }
}

fn print(map: &MapOutput) -> String {
    text::map(map, PrintArgs::default())
}

fn print_json(map: &MapOutput) -> String {
    json::map(map, PrintArgs::default())
}

/// The must-show case: `begin { @x = hist(5); @x = hist(100); print(@x); }`.
#[test]
fn must_show_hist_5_and_100() {
    let x = MapOutput::scalar("x", Value::Hist(hist(&[5, 100])));
    let expected = "\
@x:
[4, 8)                 1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[8, 16)                0 |                                                    |
[16, 32)               0 |                                                    |
[32, 64)               0 |                                                    |
[64, 128)              1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

";
    assert_eq!(print(&x), expected);
    // At exit bpftrace prints two newlines, then the map again.
    assert_eq!(
        text::exit(std::slice::from_ref(&x)),
        format!("\n\n{expected}")
    );
    assert_eq!(
        print_json(&x),
        "{\"type\": \"hist\", \"data\": {\"@x\": [\
         {\"min\": 4, \"max\": 7, \"count\": 1}, {\"min\": 8, \"max\": 15, \"count\": 0}, \
         {\"min\": 16, \"max\": 31, \"count\": 0}, {\"min\": 32, \"max\": 63, \"count\": 0}, \
         {\"min\": 64, \"max\": 127, \"count\": 1}]}}\n"
    );
}

/// bpftrace's own golden files `tests/runtime/outputs/hist.txt` (values -1, 2, 3, 4, 16
/// into `@`; the file predates the removal of the space after `@:`) and
/// `hist_2_values.txt` (`@ = hist(2); @ = hist(16)`).
#[test]
fn bpftrace_runtime_goldens() {
    let anon = MapOutput::scalar("", Value::Hist(hist(&[-1, 2, 3, 4, 16])));
    assert_eq!(
        print(&anon),
        "\
@:
(..., 0)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |
[0]                    0 |                                                    |
[1]                    0 |                                                    |
[2, 4)                 2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[4, 8)                 1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |
[8, 16)                0 |                                                    |
[16, 32)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |

"
    );
    let two = MapOutput::scalar("", Value::Hist(hist(&[2, 16])));
    assert_eq!(
        print(&two),
        "\
@:
[2, 4)                 1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[4, 8)                 0 |                                                    |
[8, 16)                0 |                                                    |
[16, 32)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

"
    );
    // tests/runtime/outputs/lhist.txt: lhist(x, 0, 10, 2) over -1, 2, 3, 6, 10.
    let lin = MapOutput::scalar("", Value::Lhist(lhist(&[-1, 2, 3, 6, 10], 0, 10, 2)));
    assert_eq!(
        print(&lin),
        "\
@:
(..., 0)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |
[0, 2)                 0 |                                                    |
[2, 4)                 2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[4, 6)                 0 |                                                    |
[6, 8)                 1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |
[8, 10)                0 |                                                    |
[10, ...)              1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |

"
    );
    // tests/runtime/outputs/hist.json (hist(2), hist(1024)), as one NDJSON line.
    let h = MapOutput::scalar("hist", Value::Hist(hist(&[2, 1024])));
    let line = print_json(&h);
    assert!(line.starts_with(
        "{\"type\": \"hist\", \"data\": {\"@hist\": [{\"min\": 2, \"max\": 3, \"count\": 1}, "
    ));
    assert!(line.ends_with(", {\"min\": 1024, \"max\": 2047, \"count\": 1}]}}\n"));
    assert_eq!(line.matches("\"count\"").count(), 10);
}

#[test]
fn hist_suffixes_and_keys() {
    // Keyed hists sort by their total count (print_map_hist), a blank line between keys.
    let m = MapOutput::new(
        "lat",
        Kind::Hist,
        vec![
            (
                vec![KeyPart::Str("b".into())],
                Value::Hist(hist(&[1, 2, 3, 3])),
            ),
            (
                vec![KeyPart::Str("a".into())],
                Value::Hist(hist(&[20_000, 1 << 20])),
            ),
        ],
    );
    assert_eq!(
        print(&m),
        "\
@lat[a]:
[16K, 32K)             1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[32K, 64K)             0 |                                                    |
[64K, 128K)            0 |                                                    |
[128K, 256K)           0 |                                                    |
[256K, 512K)           0 |                                                    |
[512K, 1M)             0 |                                                    |
[1M, 2M)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

@lat[b]:
[1]                    1 |@@@@@@@@@@@@@@@@@                                   |
[2, 4)                 3 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

"
    );
    assert_eq!(
        print_json(&m),
        "{\"type\": \"hist\", \"data\": {\"@lat\": {\"a\": [\
         {\"min\": 16384, \"max\": 32767, \"count\": 1}, \
         {\"min\": 32768, \"max\": 65535, \"count\": 0}, \
         {\"min\": 65536, \"max\": 131071, \"count\": 0}, \
         {\"min\": 131072, \"max\": 262143, \"count\": 0}, \
         {\"min\": 262144, \"max\": 524287, \"count\": 0}, \
         {\"min\": 524288, \"max\": 1048575, \"count\": 0}, \
         {\"min\": 1048576, \"max\": 2097151, \"count\": 1}], \
         \"b\": [{\"min\": 1, \"max\": 1, \"count\": 1}, {\"min\": 2, \"max\": 3, \"count\": 3}]}}}\n"
    );
}

#[test]
fn negative_and_zero_buckets_in_json() {
    let m = MapOutput::scalar("x", Value::Hist(hist(&[-3, 0])));
    assert_eq!(
        print_json(&m),
        "{\"type\": \"hist\", \"data\": {\"@x\": [{\"max\": -1, \"count\": 1}, \
         {\"min\": 0, \"max\": 0, \"count\": 1}]}}\n"
    );
    // All-zero buckets (after `zero(@x)`): a header with no rows, `[]` in JSON.
    let z = MapOutput::scalar("x", Value::Hist(Hist::default()));
    assert_eq!(print(&z), "@x:\n\n");
    assert_eq!(
        print_json(&z),
        "{\"type\": \"hist\", \"data\": {\"@x\": []}}\n"
    );
}

#[test]
fn lhist_below_and_above() {
    let m = MapOutput::scalar(
        "l",
        Value::Lhist(lhist(&[-5, 10, 15, 19, 20, 25, 150], 0, 30, 10)),
    );
    assert_eq!(
        print(&m),
        "\
@l:
(..., 0)               1 |@@@@@@@@@@@@@@@@@                                   |
[0, 10)                0 |                                                    |
[10, 20)               3 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[20, 30)               2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@                  |
[30, ...)              1 |@@@@@@@@@@@@@@@@@                                   |

"
    );
    assert_eq!(
        print_json(&m),
        "{\"type\": \"hist\", \"data\": {\"@l\": [{\"max\": -1, \"count\": 1}, \
         {\"min\": 0, \"max\": 9, \"count\": 0}, {\"min\": 10, \"max\": 19, \"count\": 3}, \
         {\"min\": 20, \"max\": 29, \"count\": 2}, {\"min\": 30, \"count\": 1}]}}\n"
    );
    // Leading and trailing empty buckets are trimmed, K labels for steps of 1024.
    let k = MapOutput::scalar("k", Value::Lhist(lhist(&[1500, 3000], 0, 8192, 1024)));
    assert_eq!(
        print(&k),
        "\
@k:
[1K, 2K)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[2K, 3K)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

"
    );
}

#[test]
fn stats_avg_min_max() {
    let total = Number::Unsigned(105);
    let s = MapOutput::scalar("x", Value::Stats { total, count: 2 });
    assert_eq!(print(&s), "@x: count 2, average 52, total 105\n\n");
    assert_eq!(
        print_json(&s),
        "{\"type\": \"stats\", \"data\": {\"@x\": {\"count\": 2, \"average\": 52, \"total\": 105}}}\n"
    );
    let a = MapOutput::scalar("x", Value::Avg { total, count: 2 });
    assert_eq!(print(&a), "@x: 52\n\n");
    assert_eq!(
        print_json(&a),
        "{\"type\": \"stats\", \"data\": {\"@x\": 52}}\n"
    );
    // Signed averages truncate toward zero, as C++ division does.
    let neg = Value::Avg {
        total: Number::Signed(-7),
        count: 2,
    };
    assert_eq!(print(&MapOutput::scalar("n", neg)), "@n: -3\n\n");

    let min = MapOutput::scalar("lo", Value::Min(Number::Signed(-4)));
    assert_eq!(print(&min), "@lo: -4\n");
    assert_eq!(
        print_json(&min),
        "{\"type\": \"map\", \"data\": {\"@lo\": -4}}\n"
    );
    let max = MapOutput::scalar("hi", Value::Max(Number::Unsigned(9)));
    assert_eq!(print(&max), "@hi: 9\n");

    // Keyed stats, sorted by average.
    let keyed = MapOutput::new(
        "s",
        Kind::Stats,
        vec![
            (
                vec![KeyPart::Str("slow".into())],
                Value::Stats {
                    total: Number::Unsigned(900),
                    count: 3,
                },
            ),
            (
                vec![KeyPart::Str("fast".into())],
                Value::Stats {
                    total: Number::Unsigned(10),
                    count: 5,
                },
            ),
        ],
    );
    assert_eq!(
        print(&keyed),
        "@s[fast]: count 5, average 2, total 10\n@s[slow]: count 3, average 300, total 900\n\n"
    );
    assert_eq!(
        print_json(&keyed),
        "{\"type\": \"stats\", \"data\": {\"@s\": {\"fast\": {\"count\": 5, \"average\": 2, \"total\": 10}, \
         \"slow\": {\"count\": 3, \"average\": 300, \"total\": 900}}}}\n"
    );
}

#[test]
fn keyed_maps_sort_by_value_then_key() {
    let key = |a: i64, b: u64| vec![KeyPart::Int(a), KeyPart::UInt(b)];
    let m = MapOutput::new(
        "d",
        Kind::Sum,
        vec![
            (key(3, 1), Value::Sum(Number::Signed(9))),
            (key(-2, 7), Value::Sum(Number::Signed(-5))),
            (key(1, 1), Value::Sum(Number::Signed(9))),
        ],
    );
    // Ascending by value; the tie (9, 9) in key order, which is one of the orders
    // bpftrace's unstable std::sort can produce.
    assert_eq!(print(&m), "@d[-2, 7]: -5\n@d[1, 1]: 9\n@d[3, 1]: 9\n");
    assert_eq!(
        print_json(&m),
        "{\"type\": \"map\", \"data\": {\"@d\": {\"-2,7\": -5, \"1,1\": 9, \"3,1\": 9}}}\n"
    );
    // print(@d, 2): the two largest; print(@d, 0, 3): values divided.
    let top = PrintArgs { top: 2, div: 0 };
    assert_eq!(text::map(&m, top), "@d[1, 1]: 9\n@d[3, 1]: 9\n");
    let div = PrintArgs { top: 0, div: 3 };
    assert_eq!(
        text::map(&m, div),
        "@d[-2, 7]: -1\n@d[1, 1]: 3\n@d[3, 1]: 3\n"
    );

    // bpftrace sorts min/max maps by the value's bits as uint64_t: negatives last.
    let mins = MapOutput::new(
        "m",
        Kind::Min,
        vec![
            (vec![KeyPart::Int(1)], Value::Min(Number::Signed(-1))),
            (vec![KeyPart::Int(2)], Value::Min(Number::Signed(5))),
        ],
    );
    assert_eq!(print(&mins), "@m[2]: 5\n@m[1]: -1\n");
}

#[test]
fn exit_prints_every_map_by_name() {
    let maps = [
        MapOutput::scalar("zeta", Value::Count(3)),
        MapOutput::new("empty", Kind::Count, vec![]),
        MapOutput::scalar(
            "avg",
            Value::Avg {
                total: Number::Unsigned(10),
                count: 4,
            },
        ),
        MapOutput::scalar("h", Value::Hist(hist(&[1]))),
    ];
    // An empty map still prints its trailing newline (TextOutput::map with no entries).
    assert_eq!(
        text::exit(&maps),
        "\n\n@avg: 2\n\n\n@h:\n[1]                    1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n\n@zeta: 3\n"
    );
    // JSON: no blank lines, empty maps print nothing.
    assert_eq!(
        json::exit(&maps),
        "{\"type\": \"stats\", \"data\": {\"@avg\": 2}}\n\
         {\"type\": \"hist\", \"data\": {\"@h\": [{\"min\": 1, \"max\": 1, \"count\": 1}]}}\n\
         {\"type\": \"map\", \"data\": {\"@zeta\": 3}}\n"
    );
}

#[test]
fn events() {
    assert_eq!(
        json::printf("a \"b\"\\\n\tc\u{1}"),
        "{\"type\": \"printf\", \"data\": \"a \\\"b\\\"\\\\\\n\\tc\\u0001\"}\n"
    );
    assert_eq!(
        json::lost_events(7),
        "{\"type\": \"lost_events\", \"data\": {\"events\": 7}}\n"
    );
    assert_eq!(
        json::attached_probes(2),
        "{\"type\": \"attached_probes\", \"data\": {\"probes\": 2}}\n"
    );
    assert_eq!(text::lost_events(7), "Lost 7 events\n");
    assert_eq!(text::attached_probes(1), "Attaching 1 probe...\n");
    // Every NDJSON line parses as JSON.
    for line in [json::printf("x\u{7}y"), json::lost_events(1)] {
        serde_json::from_str::<serde_json::Value>(&line).expect("valid JSON");
    }
}

#[test]
fn json_lines_are_valid_json() {
    let maps = [
        MapOutput::scalar("x", Value::Hist(hist(&[-1, 0, 1, 5, i64::MAX]))),
        MapOutput::new(
            "q\"uote",
            Kind::Count,
            vec![(
                vec![KeyPart::Str("a\"b".into()), KeyPart::Int(-1)],
                Value::Count(1),
            )],
        ),
        MapOutput::scalar("l", Value::Lhist(lhist(&[-1, 5, 99], 0, 10, 3))),
    ];
    for line in json::exit(&maps).lines() {
        serde_json::from_str::<serde_json::Value>(line).expect("valid JSON");
    }
    // The top bucket's bounds: [2^62, 2^63 - 1].
    assert!(json::exit(&maps).contains(&format!(
        "{{\"min\": {}, \"max\": {}, \"count\": 1}}",
        1u64 << 62,
        i64::MAX
    )));
}
