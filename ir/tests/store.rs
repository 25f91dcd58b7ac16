//! `MapStore`: decoding hand-built device buffers of every map kind, merging, host ops.

use proptest::prelude::*;
use warptrace_ir::{
    array_record_offset, hist_bucket, lhist_bucket, max_decode, max_encode, min_decode, min_encode,
    LaunchDims, MapId, MapLayout, MapStore, Program, RecordOrigin, Update,
};

fn program(text: &str) -> Program {
    Program::parse(text).expect("program parses")
}

fn put(buf: &mut [u8], offset: u64, v: u64) {
    let at = offset as usize;
    buf[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

/// Writes a hash slot as the device would: tag (1 in the extra slot), keys, value words.
fn slot(buf: &mut [u8], layout: &MapLayout, m: usize, keys: &[u64], value: &[u64]) {
    let r = layout.regions[m];
    let tag = MapLayout::tag(keys);
    let (i, tag_word) = if tag == 0 {
        (r.capacity, 1)
    } else {
        ((tag % u64::from(r.capacity)) as u32, tag)
    };
    let at = r.slot_offset(i);
    put(buf, at, tag_word);
    for (k, &key) in keys.iter().enumerate() {
        put(buf, at + 8 * (1 + k as u64), key);
    }
    for (k, &w) in value.iter().enumerate() {
        put(buf, at + r.value_offset_in_slot() + 8 * k as u64, w);
    }
}

const HASHES: &str = "\
map @c: hash(keys = 16) [u64] -> count
map @s: hash(keys = 16) -> sum i64
map @lo: hash(keys = 16) -> min i64
map @hi: hash(keys = 16) -> max u64
map @avg: hash(keys = 16) [u64, u64] -> avg u64
map @st: hash(keys = 16) -> stats i64
map @h: hash(keys = 16) -> hist
map @l: hash(keys = 16) -> lhist(0, 100, 10)
map @v: hash(keys = 16) [u64] -> value u64
";

fn hash_buffer(p: &Program, layout: &MapLayout) -> Vec<u8> {
    let mut buf = vec![0u8; layout.total_bytes as usize];
    slot(&mut buf, layout, 0, &[7], &[3]);
    slot(&mut buf, layout, 0, &[0], &[5]); // tag 0: the extra slot
    slot(&mut buf, layout, 1, &[], &[(-4i64) as u64]);
    slot(
        &mut buf,
        layout,
        2,
        &[],
        &[min_encode((-9i64) as u64, true)],
    );
    slot(&mut buf, layout, 3, &[], &[max_encode(12, false)]);
    slot(&mut buf, layout, 4, &[1, 2], &[2, 30]);
    slot(&mut buf, layout, 5, &[], &[3, (-6i64) as u64]);
    let mut hist = vec![0; 65];
    hist[hist_bucket(100, 0) as usize] = 2;
    slot(&mut buf, layout, 6, &[], &hist);
    let mut lin = vec![0; p.maps[7].value.words() as usize];
    lin[lhist_bucket(55, 0, 100, 10) as usize] = 1;
    lin[lhist_bucket(-1, 0, 100, 10) as usize] = 4;
    slot(&mut buf, layout, 7, &[], &lin);
    slot(&mut buf, layout, 8, &[4], &[44]);
    put(&mut buf, layout.regions[0].drops_offset, 6);
    put(&mut buf, layout.launch_offset, 17);
    buf
}

#[test]
fn decodes_every_hash_kind() {
    let p = program(HASHES);
    let layout = MapLayout::new(&p.maps);
    let s = MapStore::decode_launch(&p, &layout, None, &hash_buffer(&p, &layout));
    let get = |m: u32, keys: &[u64]| s.map(MapId(m)).expect("ok").entries.get(keys).cloned();
    assert_eq!(get(0, &[7]), Some(vec![3]));
    assert_eq!(get(0, &[0]), Some(vec![5]));
    assert_eq!(s.maps[0].drops, 6);
    assert_eq!(get(1, &[]), Some(vec![(-4i64) as u64]));
    assert_eq!(min_decode(get(2, &[]).expect("ok")[0], true) as i64, -9);
    assert_eq!(max_decode(get(3, &[]).expect("ok")[0], false), 12);
    assert_eq!(get(4, &[1, 2]), Some(vec![2, 30]));
    assert_eq!(get(5, &[]), Some(vec![3, (-6i64) as u64]));
    assert_eq!(get(6, &[]).expect("ok")[8], 2);
    let lin = get(7, &[]).expect("ok");
    assert_eq!((lin.len(), lin[0], lin[6]), (12, 4, 1));
    assert_eq!(get(8, &[4]), Some(vec![44]));
}

#[test]
fn merge_follows_each_value_kind() {
    let p = program(HASHES);
    let layout = MapLayout::new(&p.maps);
    let buf = hash_buffer(&p, &layout);
    let mut a = MapStore::decode_launch(&p, &layout, None, &buf);
    let mut b = MapStore::new(&p);
    b.update(MapId(2), &[], Update::Min((-20i64) as u64))
        .expect("ok");
    b.update(MapId(3), &[], Update::Max(5)).expect("ok");
    b.update(MapId(8), &[4], Update::Assign(99)).expect("ok");
    b.update(MapId(6), &[], Update::Hist(100)).expect("ok");
    a.merge(MapStore::decode_launch(&p, &layout, None, &buf));
    a.merge(b);
    let get = |m: u32, keys: &[u64]| a.maps[m as usize].entries[keys].clone();
    assert_eq!(get(0, &[7]), vec![6]);
    assert_eq!(a.maps[0].drops, 12);
    assert_eq!(get(1, &[]), vec![(-8i64) as u64]);
    assert_eq!(
        min_decode(get(2, &[])[0], true) as i64,
        -20,
        "min of both stores"
    );
    assert_eq!(max_decode(get(3, &[])[0], false), 12, "max of both stores");
    assert_eq!(get(4, &[1, 2]), vec![4, 60]);
    assert_eq!(get(6, &[])[8], 5);
    assert_eq!(get(8, &[4]), vec![99], "the last writer wins");
    // Merging into an empty store is the identity; an empty store's min/max are identities.
    let mut e = MapStore::new(&p);
    e.merge(a.clone());
    assert_eq!(e, a);
}

#[test]
fn host_operations() {
    let p = program(HASHES);
    let mut s = MapStore::new(&p);
    for k in 0..3 {
        s.update(MapId(0), &[k], Update::Count).expect("ok");
    }
    s.update(MapId(5), &[], Update::Stats(10)).expect("ok");
    s.update(MapId(5), &[], Update::Stats(20)).expect("ok");
    s.update(MapId(7), &[], Update::Lhist(1000)).expect("ok");
    assert_eq!(s.maps[5].entries[&[][..]], vec![2, 30]);
    assert_eq!(s.maps[7].entries[&[][..]][11], 1);
    s.delete(MapId(0), &[1]).expect("ok");
    assert_eq!(s.maps[0].entries.len(), 2);
    s.zero(MapId(0)).expect("ok");
    assert_eq!(s.maps[0].entries[&[0][..]], vec![0]);
    s.clear(MapId(0)).expect("ok");
    assert!(s.maps[0].entries.is_empty());
    assert!(s.update(MapId(0), &[], Update::Sum(1)).is_err());
    assert!(s.update(MapId(40), &[], Update::Count).is_err());
    assert!(s.zero(MapId(40)).is_err());
}

const RECORDS: &str = "\
map @drop: ring(capacity = 4, overflow = drop) -> record(u64)
map @over: ring(capacity = 4, overflow = overwrite) -> record(u64, i64)
map @arr: array(per = warp, slots = 2) -> record(u64)
map @printf: ring(capacity = 4, overflow = drop) -> printf(2)
format 0: \"%d %d\\n\"
";

/// One launch of [`RECORDS`]: @drop 6 appends (4 kept), @over 6 (3 kept), @arr 2 valid
/// records and one with a wrong seq, @printf one.
fn records_launch() -> (Program, MapLayout, LaunchDims, Vec<u8>) {
    let p = program(RECORDS);
    let layout = MapLayout::new(&p.maps);
    let dims = LaunchDims {
        blocks: 2,
        threads_per_block: 64,
    };
    let launch = layout.for_launch(dims);
    let mut buf = vec![0u8; launch.total_bytes as usize];
    put(&mut buf, layout.launch_offset, 3);
    // @drop: 6 appends, 4 kept, 2 refused (counted by the device).
    let r = layout.regions[0];
    put(&mut buf, r.slots_offset, 6);
    put(&mut buf, r.drops_offset, 2);
    for n in 0..4 {
        put(&mut buf, r.slot_offset(n), u64::from(n) + 1);
        put(&mut buf, r.slot_offset(n) + 8, 100 + u64::from(n));
    }
    // @over: 6 appends; slots 0, 1 overwritten by appends 4, 5; slot 3 torn (stale seq).
    let r = layout.regions[1];
    put(&mut buf, r.slots_offset, 6);
    for (slot, n) in [(0, 4), (1, 5), (2, 2), (3, 42)] {
        put(&mut buf, r.slot_offset(slot), n + 1);
        put(&mut buf, r.slot_offset(slot) + 8, n);
    }
    // @arr: block 1, warp 1, slots 0 and 1; one record with a wrong seq.
    let a = layout.regions[2];
    let base = launch.array_offsets[2].expect("ok");
    for (block, row, slot, seq) in [(1, 1, 0, 1), (1, 1, 1, 2), (0, 0, 1, 1)] {
        let at = base + array_record_offset(&a, dims, block, row, slot).expect("ok");
        put(&mut buf, at, seq);
        put(&mut buf, at + 8, 10 * block + u64::from(slot));
    }
    // @printf: one record.
    let pr = layout.regions[3];
    put(&mut buf, pr.slots_offset, 1);
    put(&mut buf, pr.slot_offset(0), 1);
    put(&mut buf, pr.slot_offset(0) + 16, 7);

    (p, layout, dims, buf)
}

#[test]
fn decodes_rings_and_arrays() {
    let (p, layout, dims, buf) = records_launch();
    let s = MapStore::decode_launch(&p, &layout, Some(dims), &buf);
    let fields = |m: usize| -> Vec<Vec<u64>> {
        s.maps[m].records.iter().map(|r| r.fields.clone()).collect()
    };
    assert_eq!(fields(0), vec![vec![100], vec![101], vec![102], vec![103]]);
    assert_eq!((s.maps[0].drops, s.maps[0].lost), (2, 2));
    // The same appends when the thread that refused the 5th counted the 6th itself
    // (decision 0024): the cursor stops at 5, the drop counter is the same, so is `lost`.
    let mut latched = buf.clone();
    put(&mut latched, layout.regions[0].slots_offset, 5);
    let l = MapStore::decode_launch(&p, &layout, Some(dims), &latched);
    assert_eq!(l.maps[0].records, s.maps[0].records);
    assert_eq!((l.maps[0].drops, l.maps[0].lost), (2, 2));
    assert_eq!(fields(1), vec![vec![2, 0], vec![4, 0], vec![5, 0]]);
    assert_eq!(s.maps[1].lost, 3, "2 overwritten + 1 torn");
    assert_eq!(
        s.maps[1].records[1].origin,
        RecordOrigin::Ring {
            launch: 3,
            index: 4
        }
    );
    assert_eq!(fields(2), vec![vec![10], vec![11]]);
    assert_eq!(s.maps[2].lost, 1);
    assert_eq!(
        s.maps[2].records[1].origin,
        RecordOrigin::Array {
            launch: 3,
            block: 1,
            row: 1,
            slot: 1
        }
    );
    let printf: Vec<(u64, Vec<u64>)> = s.printf_records(&p).map(|(f, a)| (f, a.to_vec())).collect();
    assert_eq!(printf, vec![(0, vec![7, 0])]);
    // Without launch dimensions, arrays are not decoded.
    assert!(MapStore::decode_launch(&p, &layout, None, &buf).maps[2]
        .records
        .is_empty());
}

/// With room for fewer records than a launch holds, a ring keeps its first appends and an
/// array its first records in (block, row, slot) order; the rest are counted as over the
/// limit, apart from what the device lost; a map without room keeps none.
#[test]
fn records_past_the_room_are_counted_not_kept() {
    let (p, layout, dims, buf) = records_launch();
    let all = MapStore::decode_launch(&p, &layout, Some(dims), &buf);
    let s = MapStore::decode_launch_within(&p, &layout, Some(dims), &buf, &[3, 0, 1]);
    assert_eq!(s.maps[0].records, all.maps[0].records[..3]);
    assert_eq!(s.maps[0].over_limit, 1);
    assert!(s.maps[1].records.is_empty());
    assert_eq!(s.maps[1].over_limit, 3);
    assert_eq!(s.maps[2].records, all.maps[2].records[..1]);
    assert_eq!(s.maps[2].over_limit, 1);
    // What the device lost is the same; @printf, past the end of the room, is whole.
    for m in 0..3 {
        assert_eq!(
            (s.maps[m].lost, s.maps[m].drops),
            (all.maps[m].lost, all.maps[m].drops)
        );
    }
    assert_eq!(s.maps[3], all.maps[3]);
    // Merging adds the counts.
    let mut twice = s.clone();
    twice.merge(s);
    assert_eq!(twice.maps[1].over_limit, 6);
}

proptest! {
    /// A corrupt or short buffer never panics the decoder.
    #[test]
    fn garbage_buffers_decode_without_panicking(
        bytes in prop::collection::vec(any::<u8>(), 0..4096),
        blocks in 0u64..1 << 40,
        threads in 0u32..2048,
    ) {
        for text in [HASHES, RECORDS] {
            let p = program(text);
            let layout = MapLayout::new(&p.maps);
            let dims = LaunchDims { blocks, threads_per_block: threads };
            let mut s = MapStore::decode_launch(&p, &layout, Some(dims), &bytes);
            s.merge(MapStore::decode_launch(&p, &layout, None, &bytes));
        }
    }
}

#[test]
fn truncated_buffers_decode_what_they_hold() {
    let p = program(HASHES);
    let layout = MapLayout::new(&p.maps);
    let full = hash_buffer(&p, &layout);
    for n in [0, 7, 8, 100, full.len() / 2, full.len() - 1] {
        let _ = MapStore::decode_launch(&p, &layout, None, &full[..n]);
    }
    let s = MapStore::decode_launch(&p, &layout, None, &full[..full.len() / 2]);
    assert_eq!(s.maps[0].entries[&[7][..]], vec![3]);
}

/// A replicated layout's copies are tables of their own: decoded one by one and merged,
/// they give the table of both copies' updates (counters add, min/max keep the extreme,
/// drops add); a layout with an array keeps one copy.
#[test]
fn replicated_tables_decode_to_their_merge() {
    let p = program(HASHES);
    let one = MapLayout::new(&p.maps);
    let two = one.replicated(2);
    assert_eq!(two.replicated_bytes(), 2 * one.total_bytes);
    let copy = hash_buffer(&p, &one);
    let mut buf = copy.clone();
    buf.extend_from_slice(&copy);
    let got = MapStore::decode_launch(&p, &two, None, &buf);
    let mut want = MapStore::decode_launch(&p, &one, None, &copy);
    want.merge(MapStore::decode_launch(&p, &one, None, &copy));
    assert_eq!(got, want);
    // The count of key 7 doubled, the drops too.
    assert_eq!(got.maps[0].entries[&vec![7]], vec![6]);
    assert_eq!(got.maps[0].drops, 12);
    // A shorter buffer decodes the copies it holds.
    let first = MapStore::decode_launch(&p, &two, None, &copy);
    assert_eq!(first, MapStore::decode_launch(&p, &one, None, &copy));
    let arrays = program("map @a: array(per = thread, slots = 2) -> record(u64)\n");
    assert_eq!(MapLayout::new(&arrays.maps).replicated(8).replicas, 1);
}

/// A program spread over ring copies holds `capacity / n` records a copy, says so in its
/// config, and its copies decode to every record of every copy: copy `c`'s append `k` is
/// append `k * n + c`, in that order; drops and lost records add.
#[test]
fn spread_rings_decode_every_copy_in_order() {
    let p = program(
        "map @r: ring(capacity = 8, overflow = drop) -> record(u64)\n\
         map @o: ring(capacity = 8, overflow = overwrite) -> record(u64)\n",
    );
    assert_eq!(p.ring_copies(), None);
    let spread = p.with_ring_copies(2);
    assert_eq!(spread.ring_copies(), Some(2));
    assert_eq!(spread.with_ring_copies(4).ring_copies(), Some(4));
    let one = MapLayout::new(&spread.maps);
    assert_eq!((one.regions[0].capacity, one.regions[1].capacity), (4, 4));
    let two = one.replicated(2);
    let mut buf = vec![0u8; two.replicated_bytes() as usize];
    // Copy 0: 5 appends to @r (4 kept, 1 dropped); copy 1: 2 appends. @o: 1 append each.
    for (copy, appends) in [(0u64, 5u64), (1, 2)] {
        let at = copy * one.total_bytes;
        let r = one.regions[0];
        put(&mut buf, at + r.slots_offset, appends);
        put(&mut buf, at + r.drops_offset, appends.saturating_sub(4));
        for k in 0..appends.min(4) {
            put(&mut buf, at + r.slot_offset(k as u32), k + 1);
            put(&mut buf, at + r.slot_offset(k as u32) + 8, 10 * copy + k);
        }
        let o = one.regions[1];
        put(&mut buf, at + o.slots_offset, 1);
        put(&mut buf, at + o.slot_offset(0), 1);
        put(&mut buf, at + o.slot_offset(0) + 8, 100 + copy);
    }
    let s = MapStore::decode_launch(&p, &two, None, &buf);
    let r = &s.maps[0];
    let got: Vec<(u64, u64)> = r
        .records
        .iter()
        .map(|rec| match rec.origin {
            RecordOrigin::Ring { index, .. } => (index, rec.fields[0]),
            _ => panic!("a ring record"),
        })
        .collect();
    assert_eq!(got, [(0, 0), (1, 10), (2, 1), (3, 11), (4, 2), (6, 3)]);
    assert_eq!((r.drops, r.lost), (1, 1));
    let o: Vec<u64> = s.maps[1].records.iter().map(|r| r.fields[0]).collect();
    assert_eq!(o, [100, 101]);
}

/// A read-back that copies everything but ring records, then only the records below each
/// cursor, decodes to what the whole buffer does, whatever the uncopied bytes hold: here
/// a stale launch's records, each in its own slot with a plausible `seq`.
#[test]
fn ring_records_past_the_cursor_need_no_copy() {
    let p = program(
        "map @r: ring(capacity = 8, overflow = drop) -> record(u64)\n\
         map @o: ring(capacity = 4, overflow = overwrite) -> record(u64)\n\
         map @n: hash(keys = 4) [u64] -> count\n",
    );
    let layout = MapLayout::new(&p.maps).replicated(2);
    let len = layout.replicated_bytes();
    let mut device = vec![0u8; len as usize];
    let mut stale = vec![0u8; len as usize];
    for (copy, appends) in [(0u64, 3u64), (1, 6)] {
        let at = copy * layout.total_bytes;
        for (m, cap) in [(0usize, 8u64), (1, 4)] {
            let r = layout.regions[m];
            put(&mut device, at + r.slots_offset, appends);
            for k in 0..appends {
                let slot = at + r.slot_offset((k % cap) as u32);
                put(&mut device, slot, k + 1);
                put(&mut device, slot + 8, 1000 * copy + k);
            }
            for i in 0..cap {
                put(&mut stale, at + r.slot_offset(i as u32), i + 1);
                put(&mut stale, at + r.slot_offset(i as u32) + 8, 777);
            }
        }
        let h = layout.regions[2];
        put(
            &mut device,
            at + h.slot_offset(1),
            warptrace_ir::MapLayout::tag(&[5]),
        );
        put(&mut device, at + h.slot_offset(1) + 8, 5);
        put(&mut device, at + h.slot_offset(1) + 16, 2);
    }
    let mut host = stale;
    let copy = |host: &mut Vec<u8>, ranges: Vec<std::ops::Range<u64>>| {
        for r in ranges {
            let (a, b) = (r.start as usize, r.end as usize);
            host[a..b].copy_from_slice(&device[a..b]);
        }
    };
    let first = layout.without_ring_records(len);
    copy(&mut host, first);
    let used = layout.used_ring_records(&host);
    // @r: 3 and 6 records; @o: 3, then all 4 of an overwritten ring.
    let sizes: Vec<u64> = used.iter().map(|r| (r.end - r.start) / 16).collect();
    assert_eq!(sizes, [3, 3, 6, 4]);
    copy(&mut host, used);
    let want = MapStore::decode_launch(&p, &layout, None, &device);
    assert_eq!(MapStore::decode_launch(&p, &layout, None, &host), want);
    assert_eq!(want.maps[0].records.len(), 9);
    assert_eq!(want.maps[2].entries[&vec![5]], vec![4]);
}

/// A process's snapshots are running totals: what a later one added since an earlier one,
/// merged onto the earlier, gives the later (counters, sums, histograms; changed
/// min/max/assigned values); an unchanged min is left out, as nothing says what the values
/// since were.
#[test]
fn a_later_snapshot_less_an_earlier_one_is_what_came_since() {
    let p = program(HASHES);
    let mut earlier = MapStore::new(&p);
    let mut later = MapStore::new(&p);
    let both = |s: &mut MapStore, m: u32, keys: &[u64], u: Update| {
        s.update(MapId(m), keys, u).expect("update");
    };
    for s in [&mut earlier, &mut later] {
        both(s, 0, &[7], Update::Count);
        both(s, 1, &[], Update::Sum(10));
        both(s, 2, &[], Update::Min(5));
        both(s, 6, &[], Update::Hist(1000));
        both(s, 8, &[1], Update::Assign(4));
    }
    // Since: two more counts of key 7, one of a new key, a larger sum, a new hist
    // bucket, a new max, a changed assignment; the min did not move.
    both(&mut later, 0, &[7], Update::Count);
    both(&mut later, 0, &[7], Update::Count);
    both(&mut later, 0, &[9], Update::Count);
    both(&mut later, 1, &[], Update::Sum(32));
    both(&mut later, 2, &[], Update::Min(8));
    both(&mut later, 3, &[], Update::Max(77));
    both(&mut later, 6, &[], Update::Hist(3));
    both(&mut later, 8, &[1], Update::Assign(6));
    let since = later.since(&earlier);
    let words = |m: u32, keys: &[u64]| since.maps[m as usize].entries.get(keys).cloned();
    assert_eq!(words(0, &[7]), Some(vec![2]));
    assert_eq!(words(0, &[9]), Some(vec![1]));
    assert_eq!(words(1, &[]), Some(vec![32]));
    assert_eq!(words(2, &[]), None, "an unchanged min says nothing");
    assert_eq!(words(3, &[]), Some(vec![77]));
    assert_eq!(words(8, &[1]), Some(vec![6]));
    let hist = words(6, &[]).expect("hist");
    assert_eq!(hist.iter().sum::<u64>(), 1, "one new value: {hist:?}");
    let mut rebuilt = earlier.clone();
    rebuilt.merge(since);
    assert_eq!(rebuilt, later);
    // Nothing new: nothing.
    assert!(later
        .since(&later)
        .maps
        .iter()
        .all(|m| m.entries.is_empty()));
}
