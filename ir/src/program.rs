//! A whole probe program: maps, thread-persistent registers, printf formats, `config`
//! values, host blocks and device probes.

use crate::{AttachSpec, FormatId, Insn, MapId, PersistId};
use serde::{Deserialize, Serialize};

/// A probe program: everything the verifier, the code generators, the runtime and the
/// interpreter need.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Program {
    /// Maps, indexed by [`MapId`].
    pub maps: Vec<MapDecl>,
    /// Device probes, in source order.
    pub probes: Vec<Probe>,
    /// Thread-persistent registers (`%x`), indexed by [`PersistId`].
    #[serde(default)]
    pub persistent: Vec<PersistDecl>,
    /// `printf` format strings, indexed by [`FormatId`]; they never go to the device.
    #[serde(default)]
    pub formats: Vec<String>,
    /// The string literals used as map keys (`@m["load"]`), in first-use order: a key
    /// holds [`kernel_id`](crate::kernel_id) of its string, which the host prints.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub strings: Vec<String>,
    /// `begin`, `end` and `launch:complete` blocks, in source order; run on the host.
    #[serde(default)]
    pub host: Vec<HostBlock>,
    /// The `config` block's values, in source order.
    #[serde(default)]
    pub config: Vec<ConfigEntry>,
}

impl Program {
    /// The declaration of a map.
    pub fn map(&self, id: MapId) -> Option<&MapDecl> {
        self.maps.get(id.0 as usize)
    }

    /// The declaration of a thread-persistent register.
    pub fn persist(&self, id: PersistId) -> Option<&PersistDecl> {
        self.persistent.get(id.0 as usize)
    }

    /// A `printf` format string.
    pub fn format(&self, id: FormatId) -> Option<&str> {
        self.formats.get(id.0 as usize).map(String::as_str)
    }

    /// The map `printf` appends to on the device: the first ring whose value is
    /// [`ValueKind::Printf`].
    pub fn printf_ring(&self) -> Option<MapId> {
        self.maps
            .iter()
            .position(|m| matches!(m.value, ValueKind::Printf { .. }))
            .map(|i| MapId(i as u32))
    }

    /// How many copies of its rings this program's map buffer holds (decision 0019): the
    /// value of its `ring_copies` config entry ([`Program::with_ring_copies`]); `None`
    /// when its rings were not spread.
    pub fn ring_copies(&self) -> Option<u32> {
        self.config
            .iter()
            .rev()
            .find(|c| c.key == RING_COPIES)
            .and_then(|c| match c.value {
                ConfigValue::Int(n) => u32::try_from(n).ok(),
                ConfigValue::Str(_) => None,
            })
    }

    /// This program with its records spread over `n` copies of its buffer (`n >= 2`,
    /// decision 0019): every ring holds `capacity / n` records (at least one), and the
    /// config entry `ring_copies = n` says so. A back end that offsets the map base to
    /// copy `ctaid.x mod n` generates code for this program; the host decodes the `n`
    /// copies and merges them. The result is a program of its own: it is verified again.
    pub fn with_ring_copies(&self, n: u32) -> Program {
        let mut p = self.clone();
        let n = n.max(1);
        for m in &mut p.maps {
            if let MapKind::Ring { capacity, .. } = &mut m.kind {
                *capacity = (*capacity / n).max(1);
            }
        }
        p.config.retain(|c| c.key != RING_COPIES);
        p.config.push(ConfigEntry {
            key: RING_COPIES.to_string(),
            value: ConfigValue::Int(i64::from(n)),
        });
        p
    }
}

/// The config key [`Program::with_ring_copies`] records its copies under.
pub const RING_COPIES: &str = "ring_copies";

/// A byte range in the probe's source text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Span {
    /// First byte.
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
}

/// One device probe: where it attaches and what it runs there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Probe {
    /// Where it attaches, before or after, per thread or per warp.
    pub attach: AttachSpec,
    /// Its body; ends with [`Insn::Exit`] on every path.
    pub insns: Vec<Insn>,
    /// Source span of each instruction (same length as `insns`), for diagnostics.
    pub spans: Vec<Option<Span>>,
}

/// A block run on the host by the interpreter.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostBlock {
    /// When it runs.
    pub event: HostEvent,
    /// Its body; ends with [`Insn::Exit`] on every path.
    pub insns: Vec<Insn>,
    /// Source span of each instruction (same length as `insns`).
    pub spans: Vec<Option<Span>>,
}

/// When a host block runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum HostEvent {
    /// `begin`: once, before the traced program starts.
    Begin,
    /// `end`: once, after it exits (or on `host.exit`).
    End,
    /// `launch:complete`: after each instrumented launch's maps have been read back.
    LaunchComplete,
    /// `launch:begin`: in the traced process, as each launch of any kernel is made.
    LaunchBegin,
    /// `launch:end`: in the traced process, once each launch of any kernel has finished
    /// (its `duration` known).
    LaunchEnd,
    /// `interval:us:N` (the language's `interval:s:N`, `ms`, `us`, `hz`): every `N`
    /// microseconds while the traced program runs, on the device results so far.
    Interval {
        /// The period in microseconds (at least 1).
        us: u64,
    },
}

impl std::fmt::Display for HostEvent {
    /// The name in the text form; the language's, but an interval's is always in µs.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HostEvent::Begin => f.write_str("begin"),
            HostEvent::End => f.write_str("end"),
            HostEvent::LaunchComplete => f.write_str("launch:complete"),
            HostEvent::LaunchBegin => f.write_str("launch:begin"),
            HostEvent::LaunchEnd => f.write_str("launch:end"),
            HostEvent::Interval { us } => write!(f, "interval:us:{us}"),
        }
    }
}

/// A thread-persistent register (`%x`): one 64-bit word per thread, zero at kernel entry,
/// shared by every probe of that thread.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PersistDecl {
    /// Name without the `%`.
    pub name: String,
}

/// One `config` value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConfigEntry {
    /// The key (an identifier).
    pub key: String,
    /// The value.
    pub value: ConfigValue,
}

/// A `config` value: an integer or a string.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ConfigValue {
    /// An integer (size suffixes are resolved by the language).
    Int(i64),
    /// A string.
    Str(String),
}

/// A map's declaration: its kind, key tuple and value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MapDecl {
    /// Name without the `@`.
    pub name: String,
    /// Storage kind and size.
    pub kind: MapKind,
    /// Type of each key component; empty for `@x = …` and for arrays and rings.
    pub keys: Vec<KeyType>,
    /// What the value slot (hash) or record (array, ring) holds.
    pub value: ValueKind,
}

/// Storage of a map on the device. Layouts in `docs/ir.md` and [`MapLayout`](crate::MapLayout).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum MapKind {
    /// `hash(keys = N)`: open addressing in global memory, updated with atomics.
    Hash {
        /// Number of slots; a power of two. A full table counts drops.
        capacity: u32,
    },
    /// `array(per = thread|warp, slots = N)`: `[block][thread or warp][slot]` records,
    /// race-free by layout, no atomics; exhausted slots count drops.
    Array {
        /// One row of slots per thread or per warp.
        per: Per,
        /// Records per thread (warp).
        slots: u32,
    },
    /// `ring(capacity = N, overflow = drop|overwrite)`: records appended at an atomic cursor.
    Ring {
        /// Number of records.
        capacity: u32,
        /// What an append to a full ring does.
        overflow: Overflow,
    },
}

/// Whose row an array record goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Per {
    /// One row per thread (index: linear thread index in the block).
    Thread,
    /// One row per warp (index: warp index in the block), written by its first active lane.
    Warp,
}

/// What appending to a full ring does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Overflow {
    /// Keep the oldest records: the append is counted as a drop.
    Drop,
    /// Keep the newest: the append overwrites the oldest record, which is counted as a drop.
    Overwrite,
}

/// How the host prints a key component or a record field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum KeyType {
    /// An integer, signed or not.
    Int {
        /// Printed as a signed value.
        signed: bool,
    },
    /// A kernel id, printed as the kernel's name.
    Kernel,
    /// A string literal: [`kernel_id`](crate::kernel_id) of one of
    /// [`Program::strings`], printed as the string.
    Str,
}

/// What a map's value slot aggregates (hash) or its records hold (array, ring).
/// Word counts and encodings: [`ValueKind::words`] and `docs/ir.md`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ValueKind {
    /// `count()`: one word, the count.
    Count,
    /// `sum(x)`: one word, the wrapping sum.
    Sum {
        /// Printed as a signed value.
        signed: bool,
    },
    /// `min(x)`: one word, `!(x ^ bias)` maximised (bias = 2^63 if signed, else 0).
    Min {
        /// Compared and printed as signed values.
        signed: bool,
    },
    /// `max(x)`: one word, `x ^ bias` maximised (bias = 2^63 if signed, else 0).
    Max {
        /// Compared and printed as signed values.
        signed: bool,
    },
    /// `avg(x)`: two words, `[count, sum]`.
    Avg {
        /// Summed and printed as signed values.
        signed: bool,
    },
    /// `stats(x)`: two words, `[count, sum]` (printed as count, average, total).
    Stats {
        /// Summed and printed as signed values.
        signed: bool,
    },
    /// `hist(x)`: [`HIST_BUCKETS`](crate::HIST_BUCKETS) counters, bpftrace's log2 buckets.
    Hist,
    /// `lhist(x, min, max, step)`: `(max - min) / step + 2` counters: below `min`,
    /// the linear buckets, at or above `max`.
    Lhist {
        /// Lower bound (inclusive) of the first linear bucket.
        min: i64,
        /// Upper bound (exclusive) of the last linear bucket; `(max - min) % step == 0`.
        max: i64,
        /// Bucket width, positive.
        step: i64,
    },
    /// `@m[k] = v`: one word, the last value stored (atomic exchange).
    Value {
        /// Printed as a signed value.
        signed: bool,
    },
    /// An array or ring record: one word per field.
    Record(Vec<KeyType>),
    /// The `printf` ring's records: a format id and `args` argument words (unused ones 0).
    Printf {
        /// Argument words per record: the most any format of the program takes.
        args: u32,
    },
}

impl ValueKind {
    /// Words of the value slot (hash) or record payload (array, ring; the sequence word
    /// not included).
    pub fn words(&self) -> u32 {
        match self {
            ValueKind::Count
            | ValueKind::Sum { .. }
            | ValueKind::Min { .. }
            | ValueKind::Max { .. }
            | ValueKind::Value { .. } => 1,
            ValueKind::Avg { .. } | ValueKind::Stats { .. } => 2,
            ValueKind::Hist => crate::HIST_BUCKETS,
            ValueKind::Lhist { min, max, step } => lhist_buckets(*min, *max, *step),
            ValueKind::Record(fields) => fields.len() as u32,
            ValueKind::Printf { args } => 1 + args,
        }
    }
}

/// Counters of an `lhist(min, max, step)`: one below, `(max - min) / step` linear, one
/// above. Ill-formed bounds (`step <= 0`, `max <= min`) give just the two outer buckets.
pub fn lhist_buckets(min: i64, max: i64, step: i64) -> u32 {
    if step <= 0 || max <= min {
        return 2;
    }
    let linear = (i128::from(max) - i128::from(min)) / i128::from(step);
    u32::try_from(linear + 2).unwrap_or(u32::MAX)
}
