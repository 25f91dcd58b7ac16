//! Host-side maps: decoding a launch's map buffer (per [`MapLayout`]) and merging it.

use crate::report::{MapEntry, MapReport};
use std::collections::HashMap;
use warptrace_ir::{MapKind, MapLayout, Program, ValueKind};

/// The merged contents of every map over all launches read back so far.
#[derive(Debug, Default)]
pub struct Aggregator {
    maps: Vec<HashMap<Vec<u64>, u64>>,
    drops: Vec<u64>,
}

fn word(buf: &[u8], offset: u64) -> Option<u64> {
    let at = usize::try_from(offset).ok()?;
    Some(u64::from_le_bytes(buf.get(at..at + 8)?.try_into().ok()?))
}

impl Aggregator {
    /// An empty aggregator for `maps` maps.
    pub fn new(maps: usize) -> Aggregator {
        Aggregator {
            maps: vec![HashMap::new(); maps],
            drops: vec![0; maps],
        }
    }

    /// Merges one launch's buffer: every slot with a non-zero tag (the extra slot at index
    /// `capacity` included) adds its value under its key tuple; drop counters add. Counts
    /// and sums both combine by (wrapping) addition. A buffer shorter than the layout is
    /// read as far as it goes. Only hash maps with one value word are decoded; the other
    /// kinds (arrays, rings, multi-word values) are not filled by the code generator yet.
    pub fn merge_buffer(&mut self, layout: &MapLayout, buf: &[u8]) {
        if self.maps.len() < layout.regions.len() {
            self.maps.resize_with(layout.regions.len(), HashMap::new);
            self.drops.resize(layout.regions.len(), 0);
        }
        for (m, region) in layout.regions.iter().enumerate() {
            if let Some(d) = word(buf, region.drops_offset) {
                self.drops[m] = self.drops[m].wrapping_add(d);
            }
            if !matches!(region.kind, MapKind::Hash { .. }) || region.value_words != 1 {
                continue;
            }
            let keys = region.key_words as u64;
            for i in 0..=region.capacity {
                let slot = region.slot_offset(i);
                match word(buf, slot) {
                    Some(0) => continue,
                    Some(_) => {}
                    None => break,
                }
                let key: Option<Vec<u64>> =
                    (0..keys).map(|k| word(buf, slot + 8 * (1 + k))).collect();
                let (Some(key), Some(value)) =
                    (key, word(buf, slot + region.value_offset_in_slot()))
                else {
                    break;
                };
                let v = self.maps[m].entry(key).or_insert(0);
                *v = v.wrapping_add(value);
            }
        }
    }

    /// The maps as report entries, named after `program`'s declarations, keys sorted.
    /// Only `count()` and `sum()` values are reported; the other value kinds have no
    /// entries yet (the code generator does not fill them).
    pub fn to_reports(&self, program: &Program) -> Vec<MapReport> {
        program
            .maps
            .iter()
            .enumerate()
            .map(|(m, decl)| {
                let decoded = matches!(decl.value, ValueKind::Count | ValueKind::Sum { .. });
                let mut entries: Vec<MapEntry> = self
                    .maps
                    .get(m)
                    .filter(|_| decoded)
                    .into_iter()
                    .flatten()
                    .map(|(k, &v)| MapEntry {
                        keys: k.clone(),
                        value: v,
                    })
                    .collect();
                entries.sort_by(|a, b| a.keys.cmp(&b.keys));
                MapReport {
                    name: decl.name.clone(),
                    entries,
                    drops: self.drops.get(m).copied().unwrap_or(0),
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use warptrace_ir::{KeyType, MapDecl, MapKind, ValueKind};

    fn program() -> Program {
        let decl = |name: &str, keys: usize, value| MapDecl {
            name: name.into(),
            kind: MapKind::Hash { capacity: 4 },
            keys: vec![KeyType::Int { signed: false }; keys],
            value,
        };
        Program {
            maps: vec![
                decl("count", 1, ValueKind::Count),
                decl("total", 0, ValueKind::Sum { signed: true }),
                decl("pairs", 2, ValueKind::Count),
            ],
            probes: vec![],
            ..Program::default()
        }
    }

    fn put(buf: &mut [u8], offset: u64, v: u64) {
        let at = offset as usize;
        buf[at..at + 8].copy_from_slice(&v.to_le_bytes());
    }

    fn slot(buf: &mut [u8], layout: &MapLayout, m: usize, i: u32, keys: &[u64], value: u64) {
        let r = layout.regions[m];
        let at = r.slot_offset(i);
        let tag = if i == r.capacity {
            1
        } else {
            MapLayout::tag(keys)
        };
        put(buf, at, tag);
        for (k, &key) in keys.iter().enumerate() {
            put(buf, at + 8 * (1 + k as u64), key);
        }
        put(buf, at + r.value_offset_in_slot(), value);
    }

    /// A buffer built by hand per the layout: ordinary slots, the extra slot (for the key
    /// whose tag is 0, i.e. key 0 of a one-key map) and drop counters.
    fn buffer(layout: &MapLayout) -> Vec<u8> {
        let mut buf = vec![0u8; layout.total_bytes as usize];
        slot(&mut buf, layout, 0, 1, &[7], 3);
        slot(&mut buf, layout, 0, 3, &[9], 1);
        slot(&mut buf, layout, 0, 4, &[0], 5); // the extra slot
        slot(&mut buf, layout, 1, 2, &[], (-4i64) as u64);
        slot(&mut buf, layout, 2, 0, &[1, 2], 10);
        put(&mut buf, layout.regions[2].drops_offset, 6);
        buf
    }

    #[test]
    fn decodes_slots_extra_slot_and_drops() {
        let p = program();
        let layout = MapLayout::new(&p.maps);
        assert_eq!(MapLayout::tag(&[0]), 0, "key 0 must be the extra-slot key");
        let mut agg = Aggregator::new(p.maps.len());
        agg.merge_buffer(&layout, &buffer(&layout));
        agg.merge_buffer(&layout, &buffer(&layout));
        let r = agg.to_reports(&p);
        let e = |keys: &[u64], value: u64| MapEntry {
            keys: keys.to_vec(),
            value,
        };
        assert_eq!(r[0].entries, vec![e(&[0], 10), e(&[7], 6), e(&[9], 2)]);
        assert_eq!(r[0].drops, 0);
        assert_eq!(r[1].entries, vec![e(&[], (-8i64) as u64)]);
        assert_eq!(r[2].entries, vec![e(&[1, 2], 20)]);
        assert_eq!(r[2].drops, 12);
    }

    #[test]
    fn short_buffers_do_not_panic() {
        let p = program();
        let layout = MapLayout::new(&p.maps);
        let full = buffer(&layout);
        let mut agg = Aggregator::new(3);
        for n in [0, 7, 30, 100, full.len() - 1] {
            agg.merge_buffer(&layout, &full[..n]);
        }
    }
}
