//! The byte layout of a launch's map buffer and the encodings of its value words — the
//! single definition that code generators write and the runtime reads back.
//!
//! ```text
//! offset 0              drops[maps.len()]     u64 each: updates/records lost
//! then, for each map m, in map order:
//!   hash                slots[capacity + 1]   each [tag, key_0 .. key_{k-1}, value_0 .. value_{v-1}]
//!   ring                cursor, records[capacity]           each [seq, field_0 .. field_{v-1}]
//!   array               base                  u64: byte offset of the map's records (per launch)
//! then                  launch                u64: the launch's sequence number
//! ---- total_bytes; `replicas` copies of all of the above (1 unless replicated); then,
//! per launch, for each array map:
//!   records[blocks][rows per block][slots]    each [seq, field_0 .. field_{v-1}]
//! ```
//!
//! A hash update computes `tag = hash(keys)` (see [`MapLayout::tag`]). A tag of 0 means
//! "empty", so the one key tuple whose tag is 0 lives in the extra slot at index
//! `capacity`, whose tag word is set to 1 once it is used. Every other tuple probes
//! `(tag + j) mod capacity` for `j < HASH_MAX_PROBES`: an `atom.cas(tag_word, 0, tag)`
//! that returns 0 claims the slot (the claimer stores the keys), one that returns `tag`
//! finds it; the value is then combined atomically. When every probe fails the map's
//! drop counter is incremented. For a single key the tag is a bijection of the key, so
//! distinct keys never share a slot; for a tuple it is a 64-bit hash of the components.
//!
//! Value encodings (all start from a zeroed buffer): [`min_encode`], [`max_encode`],
//! [`hist_bucket`], [`lhist_bucket`]; `docs/ir.md` has the full table.

use crate::{MapDecl, MapKind, Operand, Per};
use serde::{Deserialize, Serialize};

/// How many slots a hash update tries before it counts a drop. Probes are unrolled in
/// the generated code, so this bounds a probe's length.
pub const HASH_MAX_PROBES: u32 = 8;

/// The splitmix64 finalizer: a bijection on 64-bit values with `mix64(0) == 0`.
pub fn mix64(mut x: u64) -> u64 {
    x ^= x >> 30;
    x = x.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x ^= x >> 27;
    x = x.wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^= x >> 31;
    x
}

/// Where one map lives in the buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct MapRegion {
    /// Byte offset of this map's drop counter.
    pub drops_offset: u64,
    /// Byte offset of the map's fixed region: slot 0 (hash), the cursor word (ring; the
    /// records follow it), or the word holding the per-launch offset of its records (array).
    pub slots_offset: u64,
    /// Hash: slots that keys probe into (a power of two; one extra slot follows them).
    /// Ring: records. Array: slots per thread (warp).
    pub capacity: u32,
    /// Number of key words per slot (0 for rings and arrays).
    pub key_words: u32,
    /// Words of the value (hash) or of a record's fields (ring, array).
    #[serde(default = "one")]
    pub value_words: u32,
    /// The map's kind.
    #[serde(default = "default_kind")]
    pub kind: MapKind,
}

fn one() -> u32 {
    1
}

fn default_kind() -> MapKind {
    MapKind::Hash { capacity: 0 }
}

impl MapRegion {
    /// Bytes per slot (hash: tag, keys, value) or record (ring, array: seq, fields).
    pub fn slot_bytes(&self) -> u64 {
        8 * (1 + u64::from(self.key_words) + u64::from(self.value_words))
    }

    /// Byte offset of hash slot `i` (`i <= capacity`) or of ring record `i` (`i < capacity`).
    pub fn slot_offset(&self, i: u32) -> u64 {
        let records = match self.kind {
            MapKind::Ring { .. } => self.slots_offset + 8,
            _ => self.slots_offset,
        };
        records + u64::from(i) * self.slot_bytes()
    }

    /// Byte offset of the first value word within a hash slot (of the first field within
    /// a record).
    pub fn value_offset_in_slot(&self) -> u64 {
        8 * (1 + u64::from(self.key_words))
    }

    /// Bytes of this map's fixed region: a hash's slots (the extra slot included), a
    /// ring's cursor and records, an array's offset word.
    pub fn slots_bytes(&self) -> u64 {
        match self.kind {
            MapKind::Hash { .. } => (u64::from(self.capacity) + 1) * self.slot_bytes(),
            MapKind::Ring { .. } => 8 + u64::from(self.capacity) * self.slot_bytes(),
            MapKind::Array { .. } => 8,
        }
    }
}

/// The grid of one launch, for the per-launch array regions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LaunchDims {
    /// Blocks in the grid (`nctaid.x * nctaid.y * nctaid.z`).
    pub blocks: u64,
    /// Threads per block (`ntid.x * ntid.y * ntid.z`).
    pub threads_per_block: u32,
}

/// The layout of every map of a program in one device buffer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MapLayout {
    /// One region per map, indexed like [`Program::maps`](crate::Program::maps).
    pub regions: Vec<MapRegion>,
    /// Byte offset of the `launch` word, which the runtime writes before each launch.
    #[serde(default)]
    pub launch_offset: u64,
    /// Size of the fixed part of the buffer in bytes (array records excluded; see
    /// [`MapLayout::for_launch`]).
    pub total_bytes: u64,
    /// Copies of the fixed part, one after the other (1: none). A kernel whose maps all
    /// accumulate in home slots (decision 0014) updates copy `ctaid.x mod replicas`, so
    /// the warps of a grid do not all wait on one slot (decision 0019); the host merges
    /// the copies. Only layouts without arrays are replicated.
    #[serde(default = "one")]
    pub replicas: u32,
}

/// Where a launch's array records are: what the runtime writes into each array's offset
/// word, and the buffer size.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LaunchLayout {
    /// For each map (indexed like the program's), the byte offset of its array records;
    /// `None` for hash and ring maps.
    pub array_offsets: Vec<Option<u64>>,
    /// Size of the whole buffer of this launch in bytes.
    pub total_bytes: u64,
}

impl MapLayout {
    /// Lays out `maps` in order.
    pub fn new(maps: &[MapDecl]) -> MapLayout {
        let mut offset = 8 * maps.len() as u64;
        let regions = maps
            .iter()
            .enumerate()
            .map(|(i, m)| {
                let (capacity, key_words) = match m.kind {
                    MapKind::Hash { capacity } => (capacity, m.keys.len() as u32),
                    MapKind::Ring { capacity, .. } => (capacity, 0),
                    MapKind::Array { slots, .. } => (slots, 0),
                };
                let region = MapRegion {
                    drops_offset: 8 * i as u64,
                    slots_offset: offset,
                    capacity,
                    key_words,
                    value_words: m.value.words(),
                    kind: m.kind,
                };
                offset += region.slots_bytes();
                region
            })
            .collect();
        MapLayout {
            regions,
            launch_offset: offset,
            total_bytes: offset + 8,
            replicas: 1,
        }
    }

    /// This layout with `n` copies of its fixed part (`n >= 1`; a layout with arrays
    /// keeps one).
    pub fn replicated(&self, n: u32) -> MapLayout {
        let arrays = self
            .regions
            .iter()
            .any(|r| matches!(r.kind, MapKind::Array { .. }));
        MapLayout {
            replicas: if arrays { 1 } else { n.max(1) },
            ..self.clone()
        }
    }

    /// Bytes of every copy of the fixed part.
    pub fn replicated_bytes(&self) -> u64 {
        self.total_bytes
            .saturating_mul(u64::from(self.replicas.max(1)))
    }

    /// The array regions of a launch of `dims`, after the fixed part, in map order:
    /// `records[blocks][rows][slots]`, rows being threads or warps (32 threads) per block.
    pub fn for_launch(&self, dims: LaunchDims) -> LaunchLayout {
        let mut offset = self.replicated_bytes();
        let array_offsets = self
            .regions
            .iter()
            .map(|r| {
                let MapKind::Array { per, slots } = r.kind else {
                    return None;
                };
                let here = offset;
                let records = dims
                    .blocks
                    .saturating_mul(array_rows(per, dims.threads_per_block))
                    .saturating_mul(u64::from(slots));
                offset = offset.saturating_add(records.saturating_mul(r.slot_bytes()));
                Some(here)
            })
            .collect();
        LaunchLayout {
            array_offsets,
            total_bytes: offset,
        }
    }

    /// The byte ranges of a buffer of `len` bytes that hold everything but ring records:
    /// what a read-back copies first. Then [`MapLayout::used_ring_records`] of those
    /// bytes gives the ring records that may hold appends; the rest of a ring decodes to
    /// nothing whatever it holds ([`MapStore::decode_launch`](crate::MapStore::decode_launch)
    /// keeps only records whose `seq` is an append below the cursor, in its own slot).
    pub fn without_ring_records(&self, len: u64) -> Vec<std::ops::Range<u64>> {
        let mut out = Vec::new();
        let mut at = 0;
        for r in self.ring_records() {
            if r.start > at {
                out.push(at.min(len)..r.start.min(len));
            }
            at = at.max(r.end);
        }
        if len > at {
            out.push(at..len);
        }
        out.retain(|r| r.start < r.end);
        out
    }

    /// Every ring's records in every copy, in buffer order.
    fn ring_records(&self) -> Vec<std::ops::Range<u64>> {
        let mut out = Vec::new();
        for copy in 0..u64::from(self.replicas.max(1)) {
            let base = copy * self.total_bytes;
            for r in &self.regions {
                if let MapKind::Ring { .. } = r.kind {
                    let start = base + r.slot_offset(0);
                    out.push(start..start + u64::from(r.capacity) * r.slot_bytes());
                }
            }
        }
        out
    }

    /// The ring records of `buf` (whose cursors [`MapLayout::without_ring_records`] has
    /// read) that may hold appends: the first `min(cursor, capacity)` of each ring in
    /// each copy, all of a ring whose cursor passed its capacity.
    pub fn used_ring_records(&self, buf: &[u8]) -> Vec<std::ops::Range<u64>> {
        let word = |at: u64| -> u64 {
            usize::try_from(at)
                .ok()
                .and_then(|a| buf.get(a..a.checked_add(8)?))
                .and_then(|b| b.try_into().ok())
                .map_or(0, u64::from_le_bytes)
        };
        let mut out = Vec::new();
        for copy in 0..u64::from(self.replicas.max(1)) {
            let base = copy * self.total_bytes;
            for r in &self.regions {
                if let MapKind::Ring { .. } = r.kind {
                    let used = word(base + r.slots_offset).min(u64::from(r.capacity));
                    let start = base + r.slot_offset(0);
                    if used > 0 {
                        out.push(start..start + used * r.slot_bytes());
                    }
                }
            }
        }
        out
    }

    /// The tag of a key tuple: `h = 0; for k in keys { h = mix64(h ^ k) }`, with the
    /// tag of the empty tuple fixed at 1 (it always uses one ordinary slot).
    pub fn tag(keys: &[u64]) -> u64 {
        if keys.is_empty() {
            return 1;
        }
        keys.iter().fold(0, |h, &k| mix64(h ^ k))
    }

    /// The [`tag`](Self::tag) of a `map.update`'s key operands when they are all
    /// immediates (a code generator then emits it as a constant), else `None`.
    pub fn constant_tag(keys: &[Operand]) -> Option<u64> {
        let constants: Option<Vec<u64>> = keys
            .iter()
            .map(|k| match k {
                Operand::Imm(v) => Some(*v as u64),
                Operand::Reg(_) => None,
            })
            .collect();
        constants.map(|c| MapLayout::tag(&c))
    }
}

/// Rows of an array map per block: threads, or warps of 32 threads (rounded up).
pub fn array_rows(per: Per, threads_per_block: u32) -> u64 {
    match per {
        Per::Thread => u64::from(threads_per_block),
        Per::Warp => u64::from(threads_per_block).div_ceil(32),
    }
}

/// Byte offset of array record `(block, row, slot)` from the map's records.
pub fn array_record_offset(
    region: &MapRegion,
    dims: LaunchDims,
    block: u64,
    row: u64,
    slot: u32,
) -> Option<u64> {
    let MapKind::Array { per, slots } = region.kind else {
        return None;
    };
    let rows = array_rows(per, dims.threads_per_block);
    let index = block
        .checked_mul(rows)?
        .checked_add(row)?
        .checked_mul(u64::from(slots))?
        .checked_add(u64::from(slot))?;
    index.checked_mul(region.slot_bytes())
}

/// `2^63`: the bias that makes signed order unsigned order.
const SIGN_BIAS: u64 = 1 << 63;

fn bias(signed: bool) -> u64 {
    if signed {
        SIGN_BIAS
    } else {
        0
    }
}

/// The word a `max(x)` update maximises with a 64-bit unsigned atomic max: `x ^ bias`,
/// where `bias` is 2^63 for signed values (so signed order becomes unsigned order) and 0
/// otherwise. A zeroed word is the identity (the smallest value).
pub fn max_encode(x: u64, signed: bool) -> u64 {
    x ^ bias(signed)
}

/// Inverse of [`max_encode`].
pub fn max_decode(word: u64, signed: bool) -> u64 {
    word ^ bias(signed)
}

/// The word a `min(x)` update maximises with a 64-bit unsigned atomic max:
/// `!(x ^ bias)`, so the largest word is the smallest value. A zeroed word decodes to the
/// largest value, the identity of `min`.
pub fn min_encode(x: u64, signed: bool) -> u64 {
    !(x ^ bias(signed))
}

/// Inverse of [`min_encode`].
pub fn min_decode(word: u64, signed: bool) -> u64 {
    !word ^ bias(signed)
}

/// Counters of a `hist`: bpftrace's log2 buckets over signed 64-bit values.
pub const HIST_BUCKETS: u32 = 65;

/// The largest `k` of `hist(x, k)` (bpftrace's limit); larger values are clamped.
pub const MAX_HIST_BITS: u32 = 5;

/// The `hist(x, k)` bucket of `x`, as bpftrace's `log2` numbers them: 0 for negative
/// values; then each power of two split into `N = 2^k` buckets, the first `2N` holding
/// one value each (bucket `i` holds `i - 1`). For plain `hist(x)` (`k = 0`): 1 for 0, and
/// `2 + floor(log2 x)` for positive `x`, i.e. bucket `2 + j` holds `[2^j, 2^(j+1))`.
/// The one definition the device read-back, the interpreter and the printers share.
pub fn hist_bucket(x: i64, bits: u32) -> u32 {
    let k = bits.min(MAX_HIST_BITS);
    let Ok(v) = u64::try_from(x) else {
        return 0;
    };
    let n = 1u64 << k;
    if v < 2 * n {
        return (v + 1) as u32;
    }
    let log = 63 - v.leading_zeros(); // floor(log2 v) >= k + 1
    let shift = log - k;
    let sub = (v >> shift) - n; // which of the N sub-buckets
    (((shift + 1) << k) as u64 + sub + 1) as u32
}

/// The `lhist(min, max, step)` bucket of `x` (signed): 0 below `min`, `1 + (x - min) / step`
/// for `min <= x < max`, and the last bucket, `(max - min) / step + 1`, at or above `max`.
pub fn lhist_bucket(x: i64, min: i64, max: i64, step: i64) -> u32 {
    let buckets = crate::lhist_buckets(min, max, step);
    if x < min {
        0
    } else if x >= max || step <= 0 {
        buckets - 1
    } else {
        let i = (i128::from(x) - i128::from(min)) / i128::from(step);
        u32::try_from(1 + i).unwrap_or(buckets - 1).min(buckets - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{KeyType, ValueKind};

    #[test]
    fn constant_tags_are_the_tags_of_immediate_keys() {
        use crate::Reg;
        let imm = |v: i64| Operand::Imm(v);
        assert_eq!(
            MapLayout::constant_tag(&[imm(3), imm(-1)]),
            Some(MapLayout::tag(&[3, u64::MAX]))
        );
        assert_eq!(MapLayout::constant_tag(&[]), Some(1));
        assert_eq!(
            MapLayout::constant_tag(&[imm(3), Operand::Reg(Reg(0))]),
            None
        );
    }

    #[test]
    fn mix64_is_a_bijection_fixing_zero() {
        assert_eq!(mix64(0), 0);
        let mut seen = std::collections::HashSet::new();
        for x in 0..10_000u64 {
            assert!(seen.insert(mix64(x.wrapping_mul(0x9e37_79b9_7f4a_7c15))));
        }
    }

    #[test]
    fn regions_are_contiguous_after_drop_counters() {
        let map = |keys: usize| MapDecl {
            name: "m".into(),
            kind: MapKind::Hash { capacity: 16 },
            keys: vec![KeyType::Kernel; keys],
            value: ValueKind::Count,
        };
        let layout = MapLayout::new(&[map(1), map(2)]);
        assert_eq!(layout.regions[0].slots_offset, 16);
        assert_eq!(layout.regions[0].slot_bytes(), 24);
        assert_eq!(layout.regions[1].slots_offset, 16 + 17 * 24);
        assert_eq!(layout.launch_offset, 16 + 17 * 24 + 17 * 32);
        assert_eq!(layout.total_bytes, layout.launch_offset + 8);
        assert_eq!(layout.regions[1].drops_offset, 8);
    }

    #[test]
    fn min_max_encodings_order_like_the_values_and_zero_is_the_identity() {
        let signed = [i64::MIN, -5, -1, 0, 1, 7, i64::MAX];
        for w in signed.windows(2) {
            let (a, b) = (w[0] as u64, w[1] as u64);
            assert!(max_encode(a, true) < max_encode(b, true));
            assert!(min_encode(a, true) > min_encode(b, true));
            assert_eq!(max_decode(max_encode(a, true), true), a);
            assert_eq!(min_decode(min_encode(a, true), true), a);
        }
        assert!(min_encode(3, false) > min_encode(u64::MAX, false));
        assert_eq!(max_decode(0, true), i64::MIN as u64);
        assert_eq!(min_decode(0, true), i64::MAX as u64);
        assert_eq!(max_decode(0, false), 0);
        assert_eq!(min_decode(0, false), u64::MAX);
    }

    #[test]
    fn hist_buckets_are_bpftraces_log2() {
        assert_eq!(hist_bucket(-3, 0), 0);
        assert_eq!(hist_bucket(0, 0), 1);
        assert_eq!(hist_bucket(1, 0), 2);
        assert_eq!(hist_bucket(2, 0), 3);
        assert_eq!(hist_bucket(3, 0), 3);
        assert_eq!(hist_bucket(4, 0), 4);
        assert_eq!(hist_bucket(5, 0), 4);
        assert_eq!(hist_bucket(100, 0), 8);
        assert_eq!(hist_bucket(i64::MAX, 0), HIST_BUCKETS - 1);
    }

    #[test]
    fn lhist_has_below_linear_and_above_buckets() {
        assert_eq!(crate::lhist_buckets(0, 100, 10), 12);
        assert_eq!(lhist_bucket(-1, 0, 100, 10), 0);
        assert_eq!(lhist_bucket(0, 0, 100, 10), 1);
        assert_eq!(lhist_bucket(99, 0, 100, 10), 10);
        assert_eq!(lhist_bucket(100, 0, 100, 10), 11);
        assert_eq!(lhist_bucket(i64::MAX, i64::MIN, i64::MAX, 1), u32::MAX - 1);
    }

    #[test]
    fn rings_and_arrays_are_laid_out_per_launch() {
        let m = |kind, value| MapDecl {
            name: "m".into(),
            kind,
            keys: vec![],
            value,
        };
        let rec = ValueKind::Record(vec![KeyType::Int { signed: false }; 3]);
        let maps = [
            m(
                MapKind::Ring {
                    capacity: 4,
                    overflow: crate::Overflow::Drop,
                },
                rec.clone(),
            ),
            m(
                MapKind::Array {
                    per: Per::Warp,
                    slots: 2,
                },
                rec,
            ),
            m(MapKind::Hash { capacity: 2 }, ValueKind::Hist),
        ];
        let layout = MapLayout::new(&maps);
        let ring = layout.regions[0];
        assert_eq!(ring.slots_offset, 24);
        assert_eq!(ring.slot_bytes(), 32);
        assert_eq!(ring.slot_offset(1), 24 + 8 + 32);
        assert_eq!(layout.regions[1].slots_offset, 24 + 8 + 4 * 32);
        let hash = layout.regions[2];
        assert_eq!(hash.slots_offset, 24 + 8 + 4 * 32 + 8);
        assert_eq!(hash.slot_bytes(), 8 * (1 + u64::from(HIST_BUCKETS)));
        assert_eq!(
            layout.launch_offset,
            hash.slots_offset + 3 * hash.slot_bytes()
        );
        let dims = LaunchDims {
            blocks: 3,
            threads_per_block: 65,
        };
        let launch = layout.for_launch(dims);
        assert_eq!(
            launch.array_offsets,
            vec![None, Some(layout.total_bytes), None]
        );
        // 3 blocks × 3 warps × 2 slots of 32-byte records.
        assert_eq!(launch.total_bytes, layout.total_bytes + 3 * 3 * 2 * 32);
        let arr = layout.regions[1];
        assert_eq!(
            array_record_offset(&arr, dims, 2, 1, 1),
            Some((2 * 3 + 1) * 2 * 32 + 32)
        );
    }
}
