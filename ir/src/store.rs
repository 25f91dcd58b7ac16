//! Host-side maps: what a launch's map buffer decodes to, how stores merge, and the host
//! operations (`print`'s data, `clear`, `zero`, `delete`, updates from host blocks).
//!
//! A [`MapStore`] holds, per map of a [`Program`], the hash entries (key words → the value
//! words exactly as the device layout defines them for the map's [`ValueKind`]: min/max
//! encoded, `[count, sum]` for avg/stats, one counter per hist/lhist bucket), the array and
//! ring records (the printf ring's records are `[format id, args…]`), the device's drop
//! counter and, for rings and arrays, the records the host rejected or never saw.
//!
//! [`MapStore::decode_launch`] is the one decoder of a device buffer: the runtime uses it
//! for the GPU's buffers and the interpreter for its simulated ones, so the oracle and the
//! device share it. Decoding never panics: a short or corrupt buffer decodes as far as it
//! is readable.

use crate::{
    array_record_offset, array_rows, hist_bucket, lhist_bucket, max_encode, min_encode,
    Aggregation, LaunchDims, MapId, MapKind, MapLayout, Operand, Overflow, Program, ValueKind,
};
use std::collections::BTreeMap;

/// Every map of a program on the host.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MapStore {
    /// One per map, indexed by [`MapId`].
    pub maps: Vec<StoredMap>,
}

/// One map's host-side contents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredMap {
    /// The map's storage kind (from its declaration).
    pub kind: MapKind,
    /// What its values / records hold (from its declaration).
    pub value: ValueKind,
    /// Hash maps: key words → value words (the device encoding, [`ValueKind::words`] long).
    pub entries: BTreeMap<Vec<u64>, Vec<u64>>,
    /// Ring and array maps: the accepted records, in append order (ring) or
    /// `(launch, block, row, slot)` order (array).
    pub records: Vec<Record>,
    /// The device's drop counter, summed over launches: hash updates that found no slot,
    /// ring appends refused by `overflow = drop`, array saves past the last slot.
    pub drops: u64,
    /// Rings and arrays: appends the host did not get (a ring's appends — `cursor`, or with
    /// `overflow = drop` the slots taken, `min(cursor, capacity)`, plus the drops — minus
    /// the records accepted: dropped, overwritten or torn; an array record whose `seq` is
    /// wrong). For a ring this includes the drops.
    pub lost: u64,
    /// Rings and arrays: records the host got but did not keep, because the map already
    /// held as many as it may ([`MapStore::decode_launch_within`]'s room; the runtime's
    /// `--max-records`). Not part of `lost`: the device lost nothing.
    pub over_limit: u64,
}

/// One ring or array record (also the runtime report's JSON form of it).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Record {
    /// Where it came from.
    pub origin: RecordOrigin,
    /// Its fields (printf ring: the format id, then the arguments).
    pub fields: Vec<u64>,
}

/// Where a record was found; in JSON `{"ring": {"launch": 0, "index": 3}}` or
/// `{"array": {"launch": 0, "block": 1, "row": 2, "slot": 0}}`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum RecordOrigin {
    /// A ring record.
    Ring {
        /// The buffer's `launch` word.
        launch: u64,
        /// The append's index `n` (its `seq` minus one).
        index: u64,
    },
    /// An array record.
    Array {
        /// The buffer's `launch` word.
        launch: u64,
        /// Linear block index.
        block: u64,
        /// Thread (or warp) index in the block.
        row: u64,
        /// Slot index.
        slot: u32,
    },
}

/// A hash-map update with its operand evaluated: what `map.update` does on the device and
/// in host blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Update {
    /// `count`.
    Count,
    /// `sum x`.
    Sum(u64),
    /// `min x`.
    Min(u64),
    /// `max x`.
    Max(u64),
    /// `avg x`.
    Avg(u64),
    /// `stats x`.
    Stats(u64),
    /// `hist x`.
    Hist(u64),
    /// `lhist x`.
    Lhist(u64),
    /// `assign x`.
    Assign(u64),
}

/// How one value word is combined on the device (one atomic per word).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WordOp {
    /// `red.add` (wrapping).
    Add(u64),
    /// `atom.max.u64`.
    Max(u64),
    /// `atom.exch`.
    Exchange(u64),
}

impl WordOp {
    /// The word after the operation.
    pub fn apply(self, word: u64) -> u64 {
        match self {
            WordOp::Add(x) => word.wrapping_add(x),
            WordOp::Max(x) => word.max(x),
            WordOp::Exchange(x) => x,
        }
    }
}

impl Update {
    /// `agg` with its operand evaluated by `eval`.
    pub fn new<E>(
        agg: Aggregation,
        eval: impl FnOnce(Operand) -> Result<u64, E>,
    ) -> Result<Update, E> {
        Ok(match agg {
            Aggregation::Count => Update::Count,
            Aggregation::Sum(o) => Update::Sum(eval(o)?),
            Aggregation::Min(o) => Update::Min(eval(o)?),
            Aggregation::Max(o) => Update::Max(eval(o)?),
            Aggregation::Avg(o) => Update::Avg(eval(o)?),
            Aggregation::Stats(o) => Update::Stats(eval(o)?),
            Aggregation::Hist(o) => Update::Hist(eval(o)?),
            Aggregation::Lhist(o) => Update::Lhist(eval(o)?),
            Aggregation::Assign(o) => Update::Assign(eval(o)?),
        })
    }

    /// The word operations this update performs on a slot of a map whose value is
    /// `value`, as `(word index, op)` — the one definition of the encodings of
    /// `docs/ir.md` that the host store and the interpreter's simulated device share.
    /// `None` when the update does not fit the value kind.
    pub fn word_ops(self, value: &ValueKind) -> Option<Vec<(usize, WordOp)>> {
        use ValueKind as V;
        Some(match (self, value) {
            (Update::Count, V::Count) => vec![(0, WordOp::Add(1))],
            (Update::Sum(x), V::Sum { .. }) => vec![(0, WordOp::Add(x))],
            (Update::Min(x), V::Min { signed }) => vec![(0, WordOp::Max(min_encode(x, *signed)))],
            (Update::Max(x), V::Max { signed }) => vec![(0, WordOp::Max(max_encode(x, *signed)))],
            (Update::Avg(x), V::Avg { .. }) | (Update::Stats(x), V::Stats { .. }) => {
                vec![(0, WordOp::Add(1)), (1, WordOp::Add(x))]
            }
            (Update::Hist(x), V::Hist) => vec![(hist_bucket(x as i64, 0) as usize, WordOp::Add(1))],
            (Update::Lhist(x), V::Lhist { min, max, step }) => {
                let b = lhist_bucket(x as i64, *min, *max, *step);
                vec![(b as usize, WordOp::Add(1))]
            }
            (Update::Assign(x), V::Value { .. }) => vec![(0, WordOp::Exchange(x))],
            _ => return None,
        })
    }
}

/// Why a host operation on a store failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    /// No map has this id.
    #[error("no map {0:?}")]
    UnknownMap(MapId),
    /// The operation needs a hash map.
    #[error("map {0:?} is not a hash map")]
    NotHash(MapId),
    /// The key tuple has the wrong number of components.
    #[error("map {map:?} takes {expected} keys, got {got}")]
    KeyArity {
        /// The map.
        map: MapId,
        /// Its key count.
        expected: usize,
        /// Keys given.
        got: usize,
    },
    /// The update does not fit the map's value kind.
    #[error("map {0:?}: the aggregation does not fit its value")]
    Aggregation(MapId),
}

fn word(buf: &[u8], offset: u64) -> Option<u64> {
    let at = usize::try_from(offset).ok()?;
    let bytes = buf.get(at..at.checked_add(8)?)?;
    Some(u64::from_le_bytes(bytes.try_into().ok()?))
}

fn words(buf: &[u8], offset: u64, n: u32) -> Option<Vec<u64>> {
    (0..u64::from(n))
        .map(|i| word(buf, offset.checked_add(8 * i)?))
        .collect()
}

/// Combines value words of two stores (or two slots) per the value kind: counters add,
/// min/max keep the larger encoded word, an assigned value is replaced by `from`.
fn merge_words(value: &ValueKind, into: &mut Vec<u64>, from: &[u64]) {
    if into.len() < from.len() {
        into.resize(from.len(), 0);
    }
    for (a, &b) in into.iter_mut().zip(from) {
        *a = match value {
            ValueKind::Min { .. } | ValueKind::Max { .. } => (*a).max(b),
            ValueKind::Value { .. } | ValueKind::Record(_) | ValueKind::Printf { .. } => b,
            _ => a.wrapping_add(b),
        };
    }
}

impl StoredMap {
    /// An empty map of this kind and value.
    pub fn new(kind: MapKind, value: ValueKind) -> StoredMap {
        StoredMap {
            kind,
            value,
            entries: BTreeMap::new(),
            records: Vec::new(),
            drops: 0,
            lost: 0,
            over_limit: 0,
        }
    }

    /// Merges `other` into `self` as [`MapStore::merge`] does, with `self`'s value kind.
    pub fn merge(&mut self, other: StoredMap) {
        for (k, v) in other.entries {
            self.insert(k, v);
        }
        self.records.extend(other.records);
        self.drops = self.drops.wrapping_add(other.drops);
        self.lost = self.lost.wrapping_add(other.lost);
        self.over_limit = self.over_limit.wrapping_add(other.over_limit);
    }

    /// Keeps the first `room` records, counting the rest in `over_limit`.
    fn keep_first(&mut self, room: u64) {
        let room = usize::try_from(room).unwrap_or(usize::MAX);
        if self.records.len() > room {
            self.over_limit = self
                .over_limit
                .wrapping_add((self.records.len() - room) as u64);
            self.records.truncate(room);
        }
    }

    fn insert(&mut self, keys: Vec<u64>, value: Vec<u64>) {
        match self.entries.get_mut(&keys) {
            Some(old) => merge_words(&self.value, old, &value),
            None => {
                self.entries.insert(keys, value);
            }
        }
    }
}

impl MapStore {
    /// An empty store for `program`'s maps.
    pub fn new(program: &Program) -> MapStore {
        MapStore {
            maps: program
                .maps
                .iter()
                .map(|m| StoredMap::new(m.kind, m.value.clone()))
                .collect(),
        }
    }

    /// One map.
    pub fn map(&self, id: MapId) -> Option<&StoredMap> {
        self.maps.get(id.0 as usize)
    }

    fn map_mut(&mut self, id: MapId) -> Result<&mut StoredMap, StoreError> {
        self.maps
            .get_mut(id.0 as usize)
            .ok_or(StoreError::UnknownMap(id))
    }

    /// Decodes one launch's buffer, laid out by `layout` for `program`. Hash maps: every
    /// slot with a non-zero tag (the extra slot included) gives its key and value words.
    /// Rings: the records whose `seq - 1 = n` is `≡ slot (mod capacity)` and, below the
    /// cursor, among the first `capacity` appends (`overflow = drop`) or the last
    /// `capacity` (`overwrite`); the other appends count as lost. Arrays (only with `dims`,
    /// which place their records): every record whose `seq` is `slot + 1`; a record with
    /// another non-zero `seq` counts as lost. Drop counters are taken as they are. What the
    /// buffer is too short for is not decoded; nothing here panics on a corrupt buffer.
    pub fn decode_launch(
        program: &Program,
        layout: &MapLayout,
        dims: Option<LaunchDims>,
        buf: &[u8],
    ) -> MapStore {
        MapStore::decode_launch_within(program, layout, dims, buf, &[])
    }

    /// [`MapStore::decode_launch`] keeping at most `room[m]` records of map `m` (a map
    /// past the end of `room` has no limit): a ring's first appends, an array's first
    /// records in (block, row, slot) order. The valid records past that are counted in
    /// [`StoredMap::over_limit`] and never built, so a launch of millions of records
    /// costs no more memory than the room it is given.
    pub fn decode_launch_within(
        program: &Program,
        layout: &MapLayout,
        dims: Option<LaunchDims>,
        buf: &[u8],
        room: &[u64],
    ) -> MapStore {
        let room_of = |m: usize| room.get(m).copied().unwrap_or(u64::MAX);
        if layout.replicas > 1 {
            // Each copy of the fixed part is a table of its own: decode and merge them.
            // Copy `c`'s `n`-th ring append becomes append `n * copies + c`, so records
            // are ordered by their place in their copy, then by copy.
            let one = layout.replicated(1);
            let copies = u64::from(layout.replicas);
            let size = usize::try_from(layout.total_bytes)
                .unwrap_or(usize::MAX)
                .max(1);
            let mut store = MapStore::new(program);
            for (c, copy) in (0u64..).zip(buf.chunks(size).take(layout.replicas as usize)) {
                let mut part = MapStore::decode_launch_within(program, &one, dims, copy, room);
                for r in part.maps.iter_mut().flat_map(|m| &mut m.records) {
                    if let RecordOrigin::Ring { index, .. } = &mut r.origin {
                        *index = index.saturating_mul(copies).saturating_add(c);
                    }
                }
                store.merge(part);
            }
            for (i, m) in store.maps.iter_mut().enumerate() {
                m.records.sort_by_key(|r| r.origin);
                m.keep_first(room_of(i));
            }
            return store;
        }
        let mut store = MapStore::new(program);
        let launch = word(buf, layout.launch_offset).unwrap_or(0);
        let arrays = dims.map(|d| (d, layout.for_launch(d)));
        for (m, (map, region)) in store.maps.iter_mut().zip(&layout.regions).enumerate() {
            map.drops = word(buf, region.drops_offset).unwrap_or(0);
            match region.kind {
                MapKind::Hash { .. } => {
                    for i in 0..=region.capacity {
                        let slot = region.slot_offset(i);
                        match word(buf, slot) {
                            Some(0) => continue,
                            Some(_) => {}
                            None => break,
                        }
                        let keys = words(buf, slot + 8, region.key_words);
                        let value = words(
                            buf,
                            slot + region.value_offset_in_slot(),
                            region.value_words,
                        );
                        let (Some(keys), Some(value)) = (keys, value) else {
                            break;
                        };
                        map.insert(keys, value);
                    }
                }
                MapKind::Ring { capacity, overflow } => {
                    let cursor = word(buf, region.slots_offset).unwrap_or(0);
                    let cap = u64::from(capacity);
                    // The appends that may still be in the ring: the first `capacity` ones
                    // when a full ring refuses (`drop`), the last `capacity` ones when it
                    // overwrites.
                    let (oldest, end) = match overflow {
                        Overflow::Drop => (0, cursor.min(cap)),
                        Overflow::Overwrite => (cursor.saturating_sub(cap), cursor),
                    };
                    let mut found = Vec::new();
                    // Slots at or past the cursor hold no append of this launch (the
                    // checks below would refuse them): they are not read.
                    let used = cursor.min(cap) as u32;
                    for i in 0..used {
                        let slot = region.slot_offset(i);
                        let Some(seq) = word(buf, slot) else { break };
                        let Some(n) = seq.checked_sub(1) else {
                            continue;
                        };
                        if n % cap != u64::from(i) || n < oldest || n >= end {
                            continue;
                        }
                        if let Some(fields) = words(buf, slot + 8, region.value_words) {
                            found.push(Record {
                                origin: RecordOrigin::Ring { launch, index: n },
                                fields,
                            });
                        }
                    }
                    found.sort_by_key(|r| r.origin);
                    // The appends made: with `drop`, the first `capacity` took slots and
                    // every later one is a drop — counted by the drop counter, not
                    // always by the cursor (a thread that has seen the ring full counts
                    // its later drops itself and adds them at its exit: decision 0024).
                    let appends = match overflow {
                        Overflow::Drop => cursor.min(cap).saturating_add(map.drops),
                        Overflow::Overwrite => cursor,
                    };
                    map.lost = appends.saturating_sub(found.len() as u64);
                    map.records = found;
                    map.keep_first(room_of(m));
                }
                MapKind::Array { per, slots } => {
                    let Some((dims, lay)) = &arrays else { continue };
                    let Some(Some(base)) = lay.array_offsets.get(m) else {
                        continue;
                    };
                    let rows = array_rows(per, dims.threads_per_block);
                    if rows == 0 || slots == 0 {
                        continue;
                    }
                    let room = room_of(m);
                    'blocks: for block in 0..dims.blocks {
                        for row in 0..rows {
                            for slot in 0..slots {
                                let Some(at) = array_record_offset(region, *dims, block, row, slot)
                                    .and_then(|o| o.checked_add(*base))
                                else {
                                    break 'blocks;
                                };
                                let Some(seq) = word(buf, at) else {
                                    break 'blocks;
                                };
                                if seq == 0 {
                                    continue;
                                }
                                let end = (at + 8)
                                    .checked_add(8 * u64::from(region.value_words))
                                    .and_then(|e| usize::try_from(e).ok());
                                let whole = end.is_some_and(|e| e <= buf.len());
                                if seq != u64::from(slot) + 1 || !whole {
                                    map.lost += 1;
                                } else if map.records.len() as u64 >= room {
                                    map.over_limit += 1;
                                } else if let Some(fields) = words(buf, at + 8, region.value_words)
                                {
                                    map.records.push(Record {
                                        origin: RecordOrigin::Array {
                                            launch,
                                            block,
                                            row,
                                            slot,
                                        },
                                        fields,
                                    });
                                }
                            }
                        }
                    }
                }
            }
        }
        store
    }

    /// Merges `other` (e.g. a later launch) into `self`: hash values combine per value
    /// kind (counters add word-wise, min/max keep the larger encoded word, an assigned
    /// value takes `other`'s), records append, drop and lost counts add.
    pub fn merge(&mut self, other: MapStore) {
        if self.maps.len() < other.maps.len() {
            let extra = other.maps[self.maps.len()..]
                .iter()
                .map(|m| StoredMap::new(m.kind, m.value.clone()));
            self.maps.extend(extra.collect::<Vec<_>>());
        }
        for (mine, theirs) in self.maps.iter_mut().zip(other.maps) {
            mine.merge(theirs);
        }
    }

    /// What `self`, a later snapshot of one process's device results, added since the
    /// `earlier` one (both running totals): counters, sums and histograms less the
    /// earlier words; a min, max or assigned value where it changed (the earlier one still
    /// standing says nothing about the values since, so the key is left out); records past
    /// the earlier ones; drop, lost and over-limit counts less the earlier. Merged into a
    /// store holding the earlier snapshot, it gives this one.
    pub fn since(&self, earlier: &MapStore) -> MapStore {
        let empty = |m: &StoredMap| StoredMap::new(m.kind, m.value.clone());
        let maps = self
            .maps
            .iter()
            .enumerate()
            .map(|(i, now)| {
                let before = earlier.maps.get(i);
                let Some(before) = before else {
                    return now.clone();
                };
                let mut out = empty(now);
                for (keys, words) in &now.entries {
                    let Some(old) = before.entries.get(keys) else {
                        out.entries.insert(keys.clone(), words.clone());
                        continue;
                    };
                    let added = match now.value {
                        ValueKind::Min { .. }
                        | ValueKind::Max { .. }
                        | ValueKind::Value { .. }
                        | ValueKind::Record(_)
                        | ValueKind::Printf { .. } => (words != old).then(|| words.clone()),
                        _ => {
                            let d: Vec<u64> = words
                                .iter()
                                .enumerate()
                                .map(|(j, &w)| w.wrapping_sub(old.get(j).copied().unwrap_or(0)))
                                .collect();
                            d.iter().any(|&w| w != 0).then_some(d)
                        }
                    };
                    if let Some(words) = added {
                        out.entries.insert(keys.clone(), words);
                    }
                }
                out.records = now
                    .records
                    .get(before.records.len()..)
                    .unwrap_or(&[])
                    .to_vec();
                out.drops = now.drops.saturating_sub(before.drops);
                out.lost = now.lost.saturating_sub(before.lost);
                out.over_limit = now.over_limit.saturating_sub(before.over_limit);
                out
            })
            .collect();
        MapStore { maps }
    }

    /// `clear(@m)`: removes every key (hash) or record (ring, array).
    pub fn clear(&mut self, map: MapId) -> Result<(), StoreError> {
        let m = self.map_mut(map)?;
        m.entries.clear();
        m.records.clear();
        Ok(())
    }

    /// `zero(@m)`: sets every value word to zero, keeping the keys. A zeroed min/max word
    /// is the encoding's identity (it decodes to the largest / smallest value).
    pub fn zero(&mut self, map: MapId) -> Result<(), StoreError> {
        let m = self.map_mut(map)?;
        for v in m.entries.values_mut() {
            v.iter_mut().for_each(|w| *w = 0);
        }
        Ok(())
    }

    /// `delete(@m[keys])`: removes one key tuple; deleting an absent key is no error.
    pub fn delete(&mut self, map: MapId, keys: &[u64]) -> Result<(), StoreError> {
        self.map_mut(map)?.entries.remove(keys);
        Ok(())
    }

    /// A hash-map update on the host (host blocks): the same word operations as the
    /// device's ([`Update::word_ops`]). Host maps have no capacity: nothing is dropped.
    pub fn update(&mut self, map: MapId, keys: &[u64], update: Update) -> Result<(), StoreError> {
        let m = self.map_mut(map)?;
        if !matches!(m.kind, MapKind::Hash { .. }) {
            return Err(StoreError::NotHash(map));
        }
        let ops = update
            .word_ops(&m.value)
            .ok_or(StoreError::Aggregation(map))?;
        let words = m.value.words() as usize;
        let slot = m
            .entries
            .entry(keys.to_vec())
            .or_insert_with(|| vec![0; words]);
        for (i, op) in ops {
            if let Some(w) = slot.get_mut(i) {
                *w = op.apply(*w);
            }
        }
        Ok(())
    }

    /// The printf ring's records as `(format id, arguments)`, in append order.
    pub fn printf_records<'a>(
        &'a self,
        program: &Program,
    ) -> impl Iterator<Item = (u64, &'a [u64])> + 'a {
        program
            .printf_ring()
            .and_then(|id| self.map(id))
            .into_iter()
            .flat_map(|m| &m.records)
            .filter_map(|r| r.fields.split_first().map(|(f, args)| (*f, args)))
    }
}
