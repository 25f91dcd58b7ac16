//! Host-side maps: every launch's buffer is decoded by [`MapStore::decode_launch`] (the
//! decoder the interpreter's oracle uses too) and merged into one process-wide store.

use crate::report::{store_reports, MapReport};
use warptrace_ir::interp::{HostEffect, Interpreter, LaunchValues};
use warptrace_ir::{
    HostEvent, LaunchDims, MapLayout, MapStore, Program, Record, RecordOrigin, ValueKind,
};

/// The merged contents of every map over all launches read back so far.
#[derive(Debug)]
pub struct Aggregator {
    store: MapStore,
    /// The most records each ring or array map keeps (`--max-records`): a long-running
    /// program's records cost bounded memory, and the ones past it are counted.
    max_records: u64,
}

/// `--max-records`' default: about 200 MB of a process's memory for a map of 8-field
/// records, kept once more in its report.
pub const DEFAULT_MAX_RECORDS: u64 = 1_000_000;

impl Default for Aggregator {
    fn default() -> Aggregator {
        Aggregator::new(0, DEFAULT_MAX_RECORDS)
    }
}

impl Aggregator {
    /// An empty aggregator keeping at most `max_records` records of each ring or array
    /// map; `maps` (the program's map count) only sizes it: each map's kind comes from
    /// the program at the first read-back.
    pub fn new(maps: usize, max_records: u64) -> Aggregator {
        Aggregator {
            store: MapStore {
                maps: Vec::with_capacity(maps),
            },
            max_records,
        }
    }

    /// The most records each ring or array map keeps.
    pub fn max_records(&self) -> u64 {
        self.max_records
    }

    /// Merges one launch's buffer, decoded with the program of the loaded bundle (no
    /// bundle, nothing to decode). See [`Aggregator::merge_launch`].
    pub fn merge_buffer(&mut self, layout: &MapLayout, dims: LaunchDims, buf: &[u8]) {
        if let Some(config) = crate::config::config() {
            self.merge_launch(config.program.program(), layout, Some(dims), buf);
        }
    }

    /// Merges one launch's buffer of `program`'s maps: hash values combine per value kind
    /// (counters add, min/max keep the extreme, an assigned value is the last launch's),
    /// drop counters add, ring records append, and array records (placed by `dims`, the
    /// launch's grid) append in (block, row, slot) order, each map's up to the aggregator's
    /// `max_records` (the rest counted, never decoded into records). A buffer shorter than
    /// the layout is read as far as it goes.
    pub fn merge_launch(
        &mut self,
        program: &Program,
        layout: &MapLayout,
        dims: Option<LaunchDims>,
        buf: &[u8],
    ) {
        let room: Vec<u64> = (0..program.maps.len())
            .map(|m| {
                let held = self.store.maps.get(m).map_or(0, |s| s.records.len() as u64);
                self.max_records.saturating_sub(held)
            })
            .collect();
        self.store.merge(MapStore::decode_launch_within(
            program, layout, dims, buf, &room,
        ));
    }

    /// Runs `program`'s `event` blocks (`launch:begin` or `launch:end`) for `launch` on the
    /// host maps; a `printf` appends a record to the printf ring, as a device `printf`
    /// would (up to `max_records`, the rest counted). The blocks cannot print, clear or
    /// stop (the language allows them neither).
    pub fn run_launch(
        &mut self,
        interp: &Interpreter<'_>,
        program: &Program,
        event: HostEvent,
        launch: &LaunchValues,
    ) -> Result<(), warptrace_ir::interp::Error> {
        let mut printed: Vec<(u32, Vec<u64>)> = Vec::new();
        interp.run_launch(event, launch, &mut self.store, &mut |effect, _| {
            if let HostEffect::Printf { format, args } = effect {
                printed.push((format.0, args));
            }
        })?;
        let Some(ring) = program.printf_ring() else {
            return Ok(());
        };
        let width = match program.map(ring).map(|m| &m.value) {
            Some(ValueKind::Printf { args }) => *args as usize,
            _ => return Ok(()),
        };
        let Some(map) = self.store.maps.get_mut(ring.0 as usize) else {
            return Ok(());
        };
        for (format, mut args) in printed {
            if map.records.len() as u64 >= self.max_records {
                map.over_limit += 1;
                continue;
            }
            args.resize(width, 0);
            let mut fields = vec![u64::from(format)];
            fields.extend(args);
            let index = map.records.len() as u64;
            map.records.push(Record {
                origin: RecordOrigin::Ring { launch: 0, index },
                fields,
            });
        }
        Ok(())
    }

    /// The maps as report entries, named after `program`'s declarations, keys sorted;
    /// ring records in read-back order, with the lost count.
    pub fn to_reports(&self, program: &Program) -> Vec<MapReport> {
        store_reports(program, &self.store)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::MapEntry;
    use warptrace_ir::{max_encode, min_encode, KeyType, MapDecl, MapKind, Overflow, ValueKind};

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
                decl("low", 0, ValueKind::Min { signed: true }),
                decl("high", 0, ValueKind::Max { signed: false }),
                decl("mean", 0, ValueKind::Avg { signed: false }),
            ],
            probes: vec![],
            ..Program::default()
        }
    }

    fn put(buf: &mut [u8], offset: u64, v: u64) {
        let at = offset as usize;
        buf[at..at + 8].copy_from_slice(&v.to_le_bytes());
    }

    fn slot(buf: &mut [u8], layout: &MapLayout, m: usize, i: u32, keys: &[u64], value: &[u64]) {
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
        for (k, &w) in value.iter().enumerate() {
            put(buf, at + r.value_offset_in_slot() + 8 * k as u64, w);
        }
    }

    /// A buffer built by hand per the layout: ordinary slots, the extra slot (for the key
    /// whose tag is 0, i.e. key 0 of a one-key map), multi-word values and drop counters.
    fn buffer(layout: &MapLayout, low: i64, high: u64) -> Vec<u8> {
        let mut buf = vec![0u8; layout.total_bytes as usize];
        slot(&mut buf, layout, 0, 1, &[7], &[3]);
        slot(&mut buf, layout, 0, 3, &[9], &[1]);
        slot(&mut buf, layout, 0, 4, &[0], &[5]); // the extra slot
        slot(&mut buf, layout, 1, 2, &[], &[(-4i64) as u64]);
        slot(&mut buf, layout, 2, 0, &[1, 2], &[10]);
        slot(&mut buf, layout, 3, 0, &[], &[min_encode(low as u64, true)]);
        slot(&mut buf, layout, 4, 0, &[], &[max_encode(high, false)]);
        slot(&mut buf, layout, 5, 0, &[], &[2, 10]);
        put(&mut buf, layout.regions[2].drops_offset, 6);
        buf
    }

    #[test]
    fn decodes_slots_extra_slot_and_drops() {
        let p = program();
        let layout = MapLayout::new(&p.maps);
        assert_eq!(MapLayout::tag(&[0]), 0, "key 0 must be the extra-slot key");
        let mut agg = Aggregator::new(p.maps.len(), DEFAULT_MAX_RECORDS);
        agg.merge_launch(&p, &layout, None, &buffer(&layout, -3, 8));
        agg.merge_launch(&p, &layout, None, &buffer(&layout, 5, 2));
        let r = agg.to_reports(&p);
        let e = |keys: &[u64], value: u64, words: &[u64]| MapEntry {
            keys: keys.to_vec(),
            value,
            words: words.to_vec(),
        };
        assert_eq!(
            r[0].entries,
            vec![e(&[0], 10, &[10]), e(&[7], 6, &[6]), e(&[9], 2, &[2])]
        );
        assert_eq!(r[0].drops, 0);
        assert_eq!(
            r[1].entries,
            vec![e(&[], (-8i64) as u64, &[(-8i64) as u64])]
        );
        assert_eq!(r[2].entries, vec![e(&[1, 2], 20, &[20])]);
        assert_eq!(r[2].drops, 12);
        let low = min_encode((-3i64) as u64, true);
        assert_eq!(r[3].entries, vec![e(&[], (-3i64) as u64, &[low])]);
        assert_eq!(r[4].entries, vec![e(&[], 8, &[8])]);
        assert_eq!(r[5].entries, vec![e(&[], 20, &[4, 20])]);
    }

    /// One ring `@trace` (capacity 4, `drop`) of `fields` unsigned fields.
    fn ring_program(fields: usize) -> Program {
        Program {
            maps: vec![MapDecl {
                name: "trace".into(),
                kind: MapKind::Ring {
                    capacity: 4,
                    overflow: Overflow::Drop,
                },
                keys: vec![],
                value: ValueKind::Record(vec![KeyType::Int { signed: false }; fields]),
            }],
            ..Program::default()
        }
    }

    /// A ring (capacity 4, `drop`) whose cursor says 6 appends: 4 records kept, 2 lost;
    /// two launches append their records in read-back order.
    #[test]
    fn ring_records_and_lost_reach_the_report() {
        let p = ring_program(2);
        let layout = MapLayout::new(&p.maps);
        let r = layout.regions[0];
        let launch = |first: u64| {
            let mut buf = vec![0u8; layout.total_bytes as usize];
            put(&mut buf, r.slots_offset, 6);
            put(&mut buf, r.drops_offset, 2);
            for i in 0..4u32 {
                let at = r.slot_offset(i);
                put(&mut buf, at, u64::from(i) + 1);
                put(&mut buf, at + 8, first + u64::from(i));
                put(&mut buf, at + 16, 7);
            }
            buf
        };
        let mut agg = Aggregator::new(1, DEFAULT_MAX_RECORDS);
        agg.merge_launch(&p, &layout, None, &launch(10));
        agg.merge_launch(&p, &layout, None, &launch(20));
        let report = &agg.to_reports(&p)[0];
        let firsts: Vec<u64> = report.records.iter().map(|r| r.fields[0]).collect();
        assert_eq!(firsts, [10, 11, 12, 13, 20, 21, 22, 23]);
        assert_eq!(report.records[5].fields, [21, 7]);
        assert_eq!(report.lost, 4);
        assert_eq!(report.drops, 4);
    }

    /// The ring above under a limit of 6 records: the first launch's 4 are kept, then 2
    /// of the second's, none of the third's; the rest are counted, apart from `lost`.
    #[test]
    fn records_stop_at_the_limit_and_the_rest_are_counted() {
        let p = ring_program(1);
        let layout = MapLayout::new(&p.maps);
        let r = layout.regions[0];
        let launch = |first: u64| {
            let mut buf = vec![0u8; layout.total_bytes as usize];
            put(&mut buf, r.slots_offset, 4);
            for i in 0..4u32 {
                put(&mut buf, r.slot_offset(i), u64::from(i) + 1);
                put(&mut buf, r.slot_offset(i) + 8, first + u64::from(i));
            }
            buf
        };
        let mut agg = Aggregator::new(1, 6);
        for first in [10, 20, 30] {
            agg.merge_launch(&p, &layout, None, &launch(first));
        }
        let report = &agg.to_reports(&p)[0];
        let firsts: Vec<u64> = report.records.iter().map(|r| r.fields[0]).collect();
        assert_eq!(firsts, [10, 11, 12, 13, 20, 21]);
        assert_eq!((report.over_limit, report.lost, report.drops), (6, 0, 0));
    }

    #[test]
    fn short_buffers_do_not_panic() {
        let p = program();
        let layout = MapLayout::new(&p.maps);
        let full = buffer(&layout, 1, 1);
        let mut agg = Aggregator::new(3, DEFAULT_MAX_RECORDS);
        for n in [0, 7, 30, 100, full.len() - 1] {
            agg.merge_launch(&p, &layout, None, &full[..n]);
        }
    }
}
