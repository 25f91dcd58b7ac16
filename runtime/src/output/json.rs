//! bpftrace's NDJSON output (`-f json`): one object per line, `{"type": …, "data": …}`.
//!
//! Follows bpftrace v0.20–v0.23 `JsonOutput` (`src/output.cpp`), byte for byte,
//! including its spacing (`{"type": "map", "data": {"@x": 5}}`):
//! - count, sum, min, max, plain values: `"type": "map"`; unkeyed `{"@x": 5}`, keyed
//!   `{"@x": {"k": 5, "k2": 7}}` where a key tuple is its components joined by `,`;
//! - avg and stats: `"type": "stats"`; avg `{"@x": 52}`, stats
//!   `{"@x": {"count": 2, "average": 52, "total": 105}}`;
//! - hist and lhist: `"type": "hist"`; a list of `{"min": a, "max": b, "count": c}` for
//!   the buckets from the first to the last nonzero one (inclusive bounds; the
//!   negative/below-`min` bucket has only `max`, the at-or-above-`max` bucket only
//!   `min`), `[]` when all are zero;
//! - entries in the same order as the text output;
//! - a map without entries prints nothing;
//! - ring maps (warptrace's, printed at exit in name order with the maps) →
//!   `{"type": "ring", "data": {"@trace": [[1234, 7], …]}}`, see [`ring`];
//! - `printf` → `{"type": "printf", "data": "…"}`, lost events →
//!   `{"type": "lost_events", "data": {"events": N}}`.
//!
//! Strings are escaped as bpftrace's `json_escape` does (`\"`, `\\`, `\n`, `\r`, `\t`,
//! other control characters as `\u00XX`), except that bytes above 0x7F are left alone
//! (bpftrace mangles them through a signed `char`) and key strings are escaped once
//! (bpftrace escapes string keys twice).

use super::hist::{lhist_bucket_count, lhist_json_bounds, log2_json_bounds, nonzero_range};
use super::text::key_text;
use super::{average, KeyPart, Kind, MapOutput, PrintArgs, RingOutput, Value};
use std::fmt::Write as _;

/// The record for `print(@m)` / `print(@m, top, div)`, ending in a newline; empty for a
/// map without entries.
pub fn map(map: &MapOutput, args: PrintArgs) -> String {
    if map.entries.is_empty() {
        return String::new();
    }
    let ty = match map.kind {
        Kind::Int | Kind::Count | Kind::Sum | Kind::Min | Kind::Max => "map",
        Kind::Avg | Kind::Stats => "stats",
        Kind::Hist | Kind::Lhist => "hist",
    };
    let keyed = map.keyed();
    let mut out = format!(
        r#"{{"type": "{ty}", "data": {{"{}": "#,
        escape(&format!("@{}", map.name))
    );
    if keyed {
        out.push('{');
    }
    for (i, (key, value)) in map.sorted(args).into_iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        if keyed {
            // Components joined by `,` (bpftrace `JsonOutput::tuple_to_str` for map keys).
            let _ = write!(out, "\"{}\": ", escape(&key_text(key, ",")));
        }
        value_json(&mut out, value, args.div);
    }
    if keyed {
        out.push('}');
    }
    out.push_str("}}\n");
    out
}

/// The records bpftrace prints when the program ends: every map, in name order.
pub fn exit(maps: &[MapOutput]) -> String {
    exit_with_rings(maps, &[])
}

/// [`exit`] with ring maps too: every map and ring in name order, a ring as [`ring`]
/// prints it (nothing for a ring without records).
pub fn exit_with_rings(maps: &[MapOutput], rings: &[RingOutput]) -> String {
    super::by_name(maps, rings, map, ring)
}

/// A ring's records in append order as one record:
/// `{"type": "ring", "data": {"@trace": [[1234, 7], [1235, 9]]}}`, a one-field record as
/// its value (`[7, 9]`), a kernel field as its name (a string). Empty for a ring without
/// records. (bpftrace has no rings; this is warptrace's listing.)
pub fn ring(ring: &RingOutput) -> String {
    if ring.records.is_empty() {
        return String::new();
    }
    // Field by field, numbers through `itoa`: a trace can have millions of records.
    let mut digits = itoa::Buffer::new();
    let mut field = |out: &mut String, f: &KeyPart| match f {
        KeyPart::Str(s) => {
            let _ = write!(out, "\"{}\"", escape(s));
        }
        KeyPart::Int(v) => out.push_str(digits.format(*v)),
        KeyPart::UInt(v) => out.push_str(digits.format(*v)),
    };
    let mut out = format!(
        r#"{{"type": "ring", "data": {{"{}": ["#,
        escape(&format!("@{}", ring.name))
    );
    for (i, record) in ring.records.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        match record.as_slice() {
            [one] => field(&mut out, one),
            fields => {
                out.push('[');
                for (j, f) in fields.iter().enumerate() {
                    if j > 0 {
                        out.push_str(", ");
                    }
                    field(&mut out, f);
                }
                out.push(']');
            }
        }
    }
    out.push_str("]}}\n");
    out
}

/// A `printf` record: the formatted text as a JSON string.
pub fn printf(text: &str) -> String {
    format!("{{\"type\": \"printf\", \"data\": \"{}\"}}\n", escape(text))
}

/// The record for events lost by the ring.
pub fn lost_events(lost: u64) -> String {
    format!("{{\"type\": \"lost_events\", \"data\": {{\"events\": {lost}}}}}\n")
}

/// The record bpftrace prints after attaching its probes.
pub fn attached_probes(probes: u64) -> String {
    format!("{{\"type\": \"attached_probes\", \"data\": {{\"probes\": {probes}}}}}\n")
}

/// `s` escaped for the inside of a JSON string (see the module documentation).
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if u32::from(c) <= 0x1f => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out
}

fn value_json(out: &mut String, value: &Value, div: u64) {
    let div = div.max(1);
    let _ = match value {
        Value::Int(n) | Value::Sum(n) | Value::Min(n) | Value::Max(n) => {
            write!(out, "{}", n.div(div))
        }
        Value::Count(c) => write!(out, "{}", c / div),
        Value::Avg { total, count } => write!(out, "{}", average(*total, *count).div(div)),
        Value::Stats { total, count } => write!(
            out,
            r#"{{"count": {count}, "average": {}, "total": {total}}}"#,
            average(*total, *count).div(div)
        ),
        Value::Hist(h) => {
            let buckets = h.buckets.iter().map(|&c| c / div).collect::<Vec<_>>();
            buckets_json(out, &h.buckets, &buckets, |i| log2_json_bounds(i, h.bits));
            Ok(())
        }
        Value::Lhist(l) => {
            let len = lhist_bucket_count(l.min, l.max, l.step).min(l.buckets.len());
            let counts = &l.buckets[..len];
            buckets_json(out, counts, counts, |i| {
                lhist_json_bounds(i, l.min, l.max, l.step)
            });
            Ok(())
        }
    };
}

/// `[{"min": …, "max": …, "count": …}, …]` over the nonzero range of `counts`, printing
/// `shown`.
fn buckets_json(
    out: &mut String,
    counts: &[u64],
    shown: &[u64],
    bounds: impl Fn(usize) -> (Option<i128>, Option<i128>),
) {
    out.push('[');
    if let Some((first, last)) = nonzero_range(counts) {
        for i in first..=last {
            if i > first {
                out.push_str(", ");
            }
            out.push('{');
            let (lo, hi) = bounds(i);
            if let Some(lo) = lo {
                let _ = write!(out, "\"min\": {lo}, ");
            }
            if let Some(hi) = hi {
                let _ = write!(out, "\"max\": {hi}, ");
            }
            let _ = write!(out, "\"count\": {}}}", shown.get(i).copied().unwrap_or(0));
        }
    }
    out.push(']');
}
