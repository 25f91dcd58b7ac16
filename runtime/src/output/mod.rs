//! Maps and events printed exactly as bpftrace prints them: text (`-f text`, the default)
//! and NDJSON (`-f json`).
//!
//! The model is target-neutral and independent of the IR: whoever aggregates (the host
//! interpreter, the device read-back) builds [`MapOutput`]s of typed [`Value`]s and hands
//! them to [`text`] or [`json`]. The bucket functions of [`hist`] are the ones the
//! aggregators must use, so that a value lands in the bucket whose label bpftrace prints.
//!
//! The formats follow bpftrace v0.20–v0.23 (`src/output.cpp`, `src/bpftrace.cpp`
//! `print_map*`, `src/main.cpp`), the releases with `hist(x, k)` and the
//! `count 2, average 52, total 105` form of `stats`; each function says which part it
//! follows. Sorting: every map is printed in ascending order of its value (hist and lhist
//! maps by their total count, avg and stats by their average); bpftrace uses an unstable
//! `std::sort`, so equal values come out in hash-table order there, here in key order.

use std::cmp::Ordering;

pub mod hist;
pub mod json;
pub mod printf;
pub mod text;

#[cfg(test)]
mod tests;

/// A signed or unsigned 64-bit integer, printed in decimal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Number {
    /// A signed value (`i64`, a signed `sum`).
    Signed(i64),
    /// An unsigned value (`u64`, an unsigned `sum`).
    Unsigned(u64),
}

impl From<i64> for Number {
    fn from(v: i64) -> Self {
        Number::Signed(v)
    }
}

impl From<u64> for Number {
    fn from(v: u64) -> Self {
        Number::Unsigned(v)
    }
}

impl Number {
    fn wide(self) -> i128 {
        match self {
            Number::Signed(v) => i128::from(v),
            Number::Unsigned(v) => i128::from(v),
        }
    }

    /// `self / div` as bpftrace divides for `print(@m, top, div)` (truncating).
    fn div(self, div: u64) -> Number {
        let div = div.max(1);
        match self {
            // C++ promotes the uint32 divisor to int64: signed, truncating division.
            Number::Signed(v) => {
                Number::Signed(v.wrapping_div(i64::try_from(div).unwrap_or(i64::MAX)))
            }
            Number::Unsigned(v) => Number::Unsigned(v / div),
        }
    }

    /// The bits reinterpreted as unsigned (bpftrace sorts min/max maps this way).
    fn as_unsigned(self) -> u64 {
        match self {
            Number::Signed(v) => v as u64,
            Number::Unsigned(v) => v,
        }
    }
}

impl std::fmt::Display for Number {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Number::Signed(v) => write!(f, "{v}"),
            Number::Unsigned(v) => write!(f, "{v}"),
        }
    }
}

/// One component of a map key.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum KeyPart {
    /// A signed integer key.
    Int(i64),
    /// An unsigned integer key.
    UInt(u64),
    /// A string key, printed as is (a kernel name, already demangled); shared, as every
    /// record of a trace names one of a few kernels.
    Str(std::sync::Arc<str>),
}

impl KeyPart {
    fn rank(&self) -> u8 {
        match self {
            KeyPart::Int(_) | KeyPart::UInt(_) => 0,
            KeyPart::Str(_) => 1,
        }
    }
}

impl Ord for KeyPart {
    /// Integers numerically (signed and unsigned compared by value), strings bytewise,
    /// integers before strings.
    fn cmp(&self, other: &Self) -> Ordering {
        let int = |k: &KeyPart| match k {
            KeyPart::Int(v) => i128::from(*v),
            KeyPart::UInt(v) => i128::from(*v),
            KeyPart::Str(_) => 0,
        };
        match (self, other) {
            (KeyPart::Str(a), KeyPart::Str(b)) => a.cmp(b),
            _ => self
                .rank()
                .cmp(&other.rank())
                .then_with(|| int(self).cmp(&int(other))),
        }
    }
}

impl PartialOrd for KeyPart {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl std::fmt::Display for KeyPart {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KeyPart::Int(v) => write!(f, "{v}"),
            KeyPart::UInt(v) => write!(f, "{v}"),
            KeyPart::Str(s) => f.write_str(s),
        }
    }
}

/// A `hist(x)` / `hist(x, bits)` value: counts per log2 bucket.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Hist {
    /// bpftrace's second `hist` argument `k` (0..=[`hist::MAX_HIST_BITS`]): each power of
    /// two is split into `2^k` buckets. 0 is plain `hist(x)`.
    pub bits: u32,
    /// Count per bucket index as [`hist::log2_bucket`] numbers them (index 0: negative
    /// values). Missing trailing buckets count as zero.
    pub buckets: Vec<u64>,
}

/// An `lhist(x, min, max, step)` value: counts per linear bucket.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Lhist {
    /// The `min` argument.
    pub min: i64,
    /// The `max` argument.
    pub max: i64,
    /// The `step` argument (positive).
    pub step: i64,
    /// Count per bucket index as [`hist::lhist_bucket`] numbers them: index 0 is below
    /// `min`, `1..=n` the `n = (max - min) / step` steps, `n + 1` is `max` and above.
    /// Missing trailing buckets count as zero; entries past `n + 1` are ignored.
    pub buckets: Vec<u64>,
}

/// An aggregated value of one key.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Value {
    /// A plain assigned integer (`@x = v`).
    Int(Number),
    /// `count()`.
    Count(u64),
    /// `sum(x)`.
    Sum(Number),
    /// `min(x)`.
    Min(Number),
    /// `max(x)`.
    Max(Number),
    /// `avg(x)`: printed as `total / count`.
    Avg {
        /// Sum of the values.
        total: Number,
        /// How many values.
        count: u64,
    },
    /// `stats(x)`: count, average and total.
    Stats {
        /// Sum of the values.
        total: Number,
        /// How many values.
        count: u64,
    },
    /// `hist(x)`.
    Hist(Hist),
    /// `lhist(x, min, max, step)`.
    Lhist(Lhist),
}

/// What a map holds, which decides its layout, its sort key and its JSON record type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// [`Value::Int`].
    Int,
    /// [`Value::Count`].
    Count,
    /// [`Value::Sum`].
    Sum,
    /// [`Value::Min`].
    Min,
    /// [`Value::Max`].
    Max,
    /// [`Value::Avg`].
    Avg,
    /// [`Value::Stats`].
    Stats,
    /// [`Value::Hist`].
    Hist,
    /// [`Value::Lhist`].
    Lhist,
}

impl Value {
    /// A histogram's buckets as tables list them: inclusive `(lo, hi)` (`None` where
    /// open) and the count, from the first non-empty bucket to the last, as bpftrace's
    /// JSON lists them; empty for any other value.
    pub(crate) fn bucket_rows(&self) -> Vec<(Option<i128>, Option<i128>, u64)> {
        let rows = |counts: &[u64], bounds: &dyn Fn(usize) -> (Option<i128>, Option<i128>)| {
            hist::nonzero_range(counts).map_or_else(Vec::new, |(first, last)| {
                (first..=last)
                    .map(|i| {
                        let (lo, hi) = bounds(i);
                        (lo, hi, counts[i])
                    })
                    .collect()
            })
        };
        match self {
            Value::Hist(h) => rows(&h.buckets, &|i| hist::log2_json_bounds(i, h.bits)),
            Value::Lhist(l) => rows(&l.buckets, &|i| {
                hist::lhist_json_bounds(i, l.min, l.max, l.step)
            }),
            _ => Vec::new(),
        }
    }

    /// The kind of this value.
    pub fn kind(&self) -> Kind {
        match self {
            Value::Int(_) => Kind::Int,
            Value::Count(_) => Kind::Count,
            Value::Sum(_) => Kind::Sum,
            Value::Min(_) => Kind::Min,
            Value::Max(_) => Kind::Max,
            Value::Avg { .. } => Kind::Avg,
            Value::Stats { .. } => Kind::Stats,
            Value::Hist(_) => Kind::Hist,
            Value::Lhist(_) => Kind::Lhist,
        }
    }
}

/// `total / count` as bpftrace's `stats_value` computes it (truncating; 0 when empty).
pub(crate) fn average(total: Number, count: u64) -> Number {
    if count == 0 {
        return match total {
            Number::Signed(_) => Number::Signed(0),
            Number::Unsigned(_) => Number::Unsigned(0),
        };
    }
    match total {
        Number::Signed(t) => {
            Number::Signed(t.wrapping_div(i64::try_from(count).unwrap_or(i64::MAX)))
        }
        Number::Unsigned(t) => Number::Unsigned(t / count),
    }
}

/// What a map is sorted by (bpftrace `BPFtrace::print_map`, `print_map_hist`).
fn sort_key(v: &Value) -> i128 {
    match v {
        Value::Int(n) | Value::Sum(n) => n.wide(),
        Value::Count(c) => i128::from(*c),
        // bpftrace compares min/max values as uint64_t even when they are signed.
        Value::Min(n) | Value::Max(n) => i128::from(n.as_unsigned()),
        Value::Avg { total, count } | Value::Stats { total, count } => {
            average(*total, *count).wide()
        }
        // print_map_hist: sum of all buckets.
        Value::Hist(h) => h.buckets.iter().map(|&c| i128::from(c)).sum(),
        Value::Lhist(l) => l.buckets.iter().map(|&c| i128::from(c)).sum(),
    }
}

/// One map's contents, as the printer sees them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MapOutput {
    /// Name without `@` (`""` for the anonymous map `@`).
    pub name: String,
    /// What every entry holds; decides the layout even when there are no entries.
    pub kind: Kind,
    /// Key tuple (empty for an unkeyed map) and value, in any order.
    pub entries: Vec<(Vec<KeyPart>, Value)>,
}

impl MapOutput {
    /// A map of `kind` with these entries.
    pub fn new(name: impl Into<String>, kind: Kind, entries: Vec<(Vec<KeyPart>, Value)>) -> Self {
        MapOutput {
            name: name.into(),
            kind,
            entries,
        }
    }

    /// An unkeyed map holding one value.
    pub fn scalar(name: impl Into<String>, value: Value) -> Self {
        MapOutput {
            name: name.into(),
            kind: value.kind(),
            entries: vec![(Vec::new(), value)],
        }
    }

    /// Whether the map has key tuples (decides `@x: v` versus `@x[k]: v`).
    fn keyed(&self) -> bool {
        self.entries.iter().any(|(k, _)| !k.is_empty()) || self.entries.len() > 1
    }

    /// The entries in print order, after `top`: ascending by value (ties by key); with
    /// `top > 0`, only the last `top` (the largest), as bpftrace's `print(@m, top)` keeps.
    fn sorted(&self, args: PrintArgs) -> Vec<&(Vec<KeyPart>, Value)> {
        let mut rows: Vec<&(Vec<KeyPart>, Value)> = self.entries.iter().collect();
        rows.sort_by(|a, b| {
            sort_key(&a.1)
                .cmp(&sort_key(&b.1))
                .then_with(|| a.0.cmp(&b.0))
        });
        // Output::map_stats_contents applies `top` to avg maps only, not to stats maps.
        let top_applies = self.kind != Kind::Stats;
        let top = usize::try_from(args.top).unwrap_or(usize::MAX);
        if top_applies && top > 0 && rows.len() > top {
            rows.drain(..rows.len() - top);
        }
        rows
    }
}

/// A ring map's records, as the printer sees them: printed at exit in append order,
/// one record per line (`@trace: (1234, 7)`), not sorted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RingOutput {
    /// Name without `@`.
    pub name: String,
    /// Each record's fields, in append order (a kernel field is its name).
    pub records: Vec<Vec<KeyPart>>,
}

impl RingOutput {
    /// A ring with these records.
    pub fn new(name: impl Into<String>, records: Vec<Vec<KeyPart>>) -> Self {
        RingOutput {
            name: name.into(),
            records,
        }
    }
}

/// The optional arguments of `print(@m, top, div)`; the default prints everything as is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PrintArgs {
    /// Print only the `top` largest entries (0: all).
    pub top: u64,
    /// Divide printed values by `div` (0 or 1: unchanged). As in bpftrace, hist counts
    /// are divided but their bars are not, lhist ignores it, and `stats` divides only
    /// the average.
    pub div: u64,
}

/// Every map and ring rendered by `map`/`ring`, concatenated in name order (bpftrace
/// keeps its maps in a `std::map` keyed by name) — what both exit printers share.
fn by_name(
    maps: &[MapOutput],
    rings: &[RingOutput],
    map: fn(&MapOutput, PrintArgs) -> String,
    ring: fn(&RingOutput) -> String,
) -> String {
    let mut sorted: Vec<(&str, String)> = maps
        .iter()
        .map(|m| (m.name.as_str(), map(m, PrintArgs::default())))
        .chain(rings.iter().map(|r| (r.name.as_str(), ring(r))))
        .collect();
    sorted.sort_by(|a, b| a.0.cmp(b.0));
    sorted.into_iter().map(|(_, text)| text).collect()
}
