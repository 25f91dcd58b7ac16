//! bpftrace's text output (`-f text`, the default).
//!
//! Follows bpftrace v0.20–v0.23 `TextOutput` (`src/output.cpp`):
//! - count, sum, min, max and plain values (`TextOutput::map`): one `@m: v` or
//!   `@m[k1, k2]: v` line per key, then nothing more: no blank line after the map;
//! - avg and stats (`TextOutput::map_stats`): the same lines (`@m: 52`,
//!   `@m: count 2, average 52, total 105`), then a blank line;
//! - hist and lhist (`TextOutput::map_hist`): per key a `@m:` / `@m[k]:` header line and
//!   the bucket rows, a blank line between keys and one after the map;
//! - a map without entries prints only its trailing newline(s), as bpftrace does.
//!
//! A bucket row is the range label left-aligned in 16 columns, the count right-aligned in
//! 8, then ` |`, a bar of `@` scaled so the largest bucket fills 52 columns (truncated,
//! computed in `float` as bpftrace does), padded to 52, and `|`. Rows run from the first
//! to the last nonzero bucket; empty buckets between them are printed.

use super::hist::{lhist_bucket_count, lhist_header, log2_header, nonzero_range};
use super::{average, Hist, KeyPart, Kind, Lhist, MapOutput, PrintArgs, RingOutput, Value};
use std::fmt::Write as _;

/// Width of the histogram bar (bpftrace's `max_width`).
const BAR_WIDTH: usize = 52;

/// What `print(@m)` / `print(@m, top, div)` prints for `map`; also what each map prints
/// at exit.
pub fn map(map: &MapOutput, args: PrintArgs) -> String {
    let mut out = String::new();
    let keyed = map.keyed();
    let rows = map.sorted(args);
    let block = matches!(map.kind, Kind::Hist | Kind::Lhist);
    for (i, (key, value)) in rows.into_iter().enumerate() {
        if i > 0 {
            out.push('\n'); // map_elem_delim
        }
        out.push('@');
        out.push_str(&map.name);
        if keyed {
            out.push('[');
            out.push_str(&key_text(key, ", "));
            out.push(']');
        }
        out.push_str(if block { ":\n" } else { ": " });
        value_text(&mut out, value, args.div);
    }
    // TextOutput::map and map_hist end with one endl, map_stats with two.
    match map.kind {
        Kind::Avg | Kind::Stats => out.push_str("\n\n"),
        _ => out.push('\n'),
    }
    out
}

/// What bpftrace prints when the program ends (`src/main.cpp` then
/// `BPFtrace::print_maps`): two newlines, then every map in name order (bpftrace keeps
/// its maps in a `std::map` keyed by name), each as [`map`] prints it.
pub fn exit(maps: &[MapOutput]) -> String {
    exit_with_rings(maps, &[])
}

/// [`exit`] with ring maps too: two newlines, then every map and ring in name order, a
/// ring as [`ring`] prints it (nothing for a ring without records).
pub fn exit_with_rings(maps: &[MapOutput], rings: &[RingOutput]) -> String {
    let mut out = String::from("\n\n");
    out.push_str(&super::by_name(maps, rings, map, ring));
    out
}

/// A ring's records in append order, one line each: `@trace: (1234, 7)`, or
/// `@trace: 7` for a one-field record; a kernel field is its name. Nothing for a ring
/// without records. (bpftrace has no rings; this is warptrace's listing.)
pub fn ring(ring: &RingOutput) -> String {
    // Written field by field (`itoa` for the numbers): a trace can have millions of
    // records, and `format!` per field was most of the exit time.
    let mut out = String::new();
    let mut digits = itoa::Buffer::new();
    let mut part = |out: &mut String, k: &KeyPart| match k {
        KeyPart::Int(v) => out.push_str(digits.format(*v)),
        KeyPart::UInt(v) => out.push_str(digits.format(*v)),
        KeyPart::Str(s) => out.push_str(s),
    };
    for record in &ring.records {
        out.push('@');
        out.push_str(&ring.name);
        out.push_str(": ");
        match record.as_slice() {
            [one] => part(&mut out, one),
            fields => {
                out.push('(');
                for (i, f) in fields.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    part(&mut out, f);
                }
                out.push(')');
            }
        }
        out.push('\n');
    }
    out
}

/// The line bpftrace prints when perf/ring-buffer events were lost.
pub fn lost_events(lost: u64) -> String {
    format!("Lost {lost} events\n")
}

/// The line bpftrace prints after attaching its probes.
pub fn attached_probes(probes: u64) -> String {
    if probes == 1 {
        format!("Attaching {probes} probe...\n")
    } else {
        format!("Attaching {probes} probes...\n")
    }
}

/// A key tuple's components joined by `sep` (`", "` between `[` and `]` in text).
pub(crate) fn key_text(key: &[KeyPart], sep: &str) -> String {
    let parts: Vec<String> = key.iter().map(ToString::to_string).collect();
    parts.join(sep)
}

fn value_text(out: &mut String, value: &Value, div: u64) {
    let div = div.max(1);
    let _ = match value {
        Value::Int(n) | Value::Sum(n) | Value::Min(n) | Value::Max(n) => {
            write!(out, "{}", n.div(div))
        }
        Value::Count(c) => write!(out, "{}", c / div),
        Value::Avg { total, count } => write!(out, "{}", average(*total, *count).div(div)),
        // Only the average is divided (Output::map_stats_contents).
        Value::Stats { total, count } => write!(
            out,
            "count {count}, average {}, total {total}",
            average(*total, *count).div(div)
        ),
        Value::Hist(h) => {
            hist_rows(out, h, div);
            Ok(())
        }
        Value::Lhist(l) => {
            lhist_rows(out, l);
            Ok(())
        }
    };
}

/// One bucket row (bpftrace's `setw(16) << left << header << setw(8) << right << count
/// << " |" << setw(52) << left << bar << "|"`).
fn row(out: &mut String, header: &str, shown: u64, count: u64, max: u64) {
    // `count / (float)max * 52`, truncated to int.
    let bar = if max == 0 {
        0
    } else {
        (count as f32 / max as f32 * BAR_WIDTH as f32) as usize
    };
    let bar = "@".repeat(bar);
    let _ = writeln!(out, "{header:<16}{shown:>8} |{bar:<BAR_WIDTH$}|");
}

/// `TextOutput::hist_to_str`: counts are divided by `div`, bars are not.
fn hist_rows(out: &mut String, h: &Hist, div: u64) {
    let Some((first, last)) = nonzero_range(&h.buckets) else {
        return;
    };
    let max = h.buckets.iter().copied().max().unwrap_or(0);
    for (i, &count) in h.buckets.iter().enumerate().take(last + 1).skip(first) {
        row(out, &log2_header(i, h.bits), count / div, count, max);
    }
}

/// `TextOutput::lhist_to_str`: buckets past the at-or-above-`max` one are ignored.
fn lhist_rows(out: &mut String, l: &Lhist) {
    let len = lhist_bucket_count(l.min, l.max, l.step).min(l.buckets.len());
    let counts = &l.buckets[..len];
    let Some((first, last)) = nonzero_range(counts) else {
        return;
    };
    let max = counts.iter().copied().max().unwrap_or(0);
    for (i, &count) in counts.iter().enumerate().take(last + 1).skip(first) {
        row(
            out,
            &lhist_header(i, l.min, l.max, l.step),
            count,
            count,
            max,
        );
    }
}
