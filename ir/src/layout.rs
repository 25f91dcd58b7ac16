//! The byte layout of a launch's map buffer — the single definition that code
//! generators write and the runtime reads back.
//!
//! ```text
//! offset 0                 drops[maps.len()]        u64 each: updates lost (table full)
//! then, for each map m:    slots[capacity + 1]      each `1 + keys + 1` u64 words:
//!                                                   [tag, key_0 .. key_{k-1}, value]
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

use crate::{MapDecl, MapKind};
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
    /// Byte offset of slot 0.
    pub slots_offset: u64,
    /// Slots that keys probe into (a power of two); one extra slot follows them.
    pub capacity: u32,
    /// Number of key words per slot.
    pub key_words: u32,
}

impl MapRegion {
    /// Bytes per slot: tag, keys, value.
    pub fn slot_bytes(&self) -> u64 {
        8 * (2 + u64::from(self.key_words))
    }

    /// Byte offset of slot `i` (`i <= capacity`).
    pub fn slot_offset(&self, i: u32) -> u64 {
        self.slots_offset + u64::from(i) * self.slot_bytes()
    }

    /// Byte offset of the value word within a slot.
    pub fn value_offset_in_slot(&self) -> u64 {
        8 * (1 + u64::from(self.key_words))
    }

    /// Bytes of this map's slots, the extra slot included.
    pub fn slots_bytes(&self) -> u64 {
        (u64::from(self.capacity) + 1) * self.slot_bytes()
    }
}

/// The layout of every map of a program in one device buffer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MapLayout {
    /// One region per map, indexed like [`Program::maps`](crate::Program::maps).
    pub regions: Vec<MapRegion>,
    /// Size of the whole buffer in bytes.
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
                let MapKind::Hash { capacity } = m.kind;
                let region = MapRegion {
                    drops_offset: 8 * i as u64,
                    slots_offset: offset,
                    capacity,
                    key_words: m.keys.len() as u32,
                };
                offset += region.slots_bytes();
                region
            })
            .collect();
        MapLayout {
            regions,
            total_bytes: offset,
        }
    }

    /// The tag of a key tuple: `h = 0; for k in keys { h = mix64(h ^ k) }`, with the
    /// tag of the empty tuple fixed at 1 (it always uses one ordinary slot).
    pub fn tag(keys: &[u64]) -> u64 {
        if keys.is_empty() {
            return 1;
        }
        keys.iter().fold(0, |h, &k| mix64(h ^ k))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{KeyType, ValueKind};

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
        assert_eq!(layout.total_bytes, 16 + 17 * 24 + 17 * 32);
        assert_eq!(layout.regions[1].drops_offset, 8);
    }
}
