use super::{probe_count, HomeSlots, Probing};
use crate::fold::SiteConsts;
use crate::{kernel_id, MapLayout, Program, SiteValue, Special, HASH_MAX_PROBES};
use proptest::prelude::*;

fn decide(text: &str, kernel: &str) -> Vec<Probing> {
    let p = Program::parse(text).expect("IR parses");
    let layout = MapLayout::new(&p.maps);
    let home = HomeSlots::decide(&p, &layout, kernel_id(kernel));
    (0..p.maps.len() as u32).map(|m| home.probing(m)).collect()
}

/// `@k` by kernel, `@pc` by kernel and pc (a per-site key), `@clash` with two constant
/// keys on one slot, `@zero` with key 0 (tag 0, its own slot) and key 5, `@two` with keys
/// set on two paths of one probe, `@dyn` with one constant and one per-thread key.
const MAPS: &str = "map @k: hash(keys = 4096) [kernel] -> count
map @pc: hash(keys = 4096) [kernel, u64] -> count
map @clash: hash(keys = 1) [u64] -> count
map @zero: hash(keys = 2) [u64] -> count
map @two: hash(keys = 4096) [u64] -> count
map @dyn: hash(keys = 4096) [u64] -> count

probe 0: kernel:entry
  0: r0 = sreg kernel
  1: map.update @k[r0] count
  2: r1 = sreg pc
  3: map.update @pc[r0, r1] count
  4: map.update @clash[1] count
  5: map.update @zero[0] count
  6: map.update @zero[5] count
  7: map.update @dyn[7] count
  8: exit

probe 1: kernel:exit
  0: r0 = sreg kernel
  1: map.update @k[r0] count
  2: map.update @clash[2] count
  3: r2 = sreg tid.x
  4: map.update @dyn[r2] count
  5: r3 = mov 1
  6: jz r2, 8
  7: r3 = mov 2
  8: map.update @two[r3] count
  9: exit
";

#[test]
fn home_slots_need_constant_keys_on_distinct_home_slots() {
    use Probing::{Home, Linear};
    // @two: r3 is 1 or 2 depending on the path, so not a constant.
    assert_eq!(
        decide(MAPS, "kern"),
        vec![Home, Linear, Linear, Home, Linear, Linear]
    );
}

#[test]
fn only_a_constant_nonzero_tag_probes_once() {
    assert_eq!(probe_count(Probing::Home, Some(5)), 1);
    assert_eq!(probe_count(Probing::Home, Some(0)), HASH_MAX_PROBES);
    assert_eq!(probe_count(Probing::Home, None), HASH_MAX_PROBES);
    assert_eq!(probe_count(Probing::Linear, Some(5)), HASH_MAX_PROBES);
}

/// `MapLayout`'s insertion of `tag` with `probes` tries into `slots` (0 = empty): the
/// slot it lands in, `None` for a drop.
fn insert(slots: &mut [u64], tag: u64, probes: u32) -> Option<usize> {
    let cap = slots.len() as u64;
    (0..u64::from(probes)).find_map(|j| {
        let s = (tag.wrapping_add(j) % cap) as usize;
        match slots[s] {
            0 => {
                slots[s] = tag;
                Some(s)
            }
            t if t == tag => Some(s),
            _ => None,
        }
    })
}

proptest! {
    /// The argument of `HomeSlots`: tags with distinct home slots, inserted into a zeroed
    /// table in any order and multiplicity, land in the same slots with one probe as with
    /// `HASH_MAX_PROBES`, and never drop.
    #[test]
    fn home_slots_match_linear_probing(
        cap in 1u64..64,
        raw in proptest::collection::vec(1u64..u64::MAX, 1..12),
        order in proptest::collection::vec(0usize..1000, 1..200),
    ) {
        let mut tags: Vec<u64> = Vec::new();
        for t in raw {
            if tags.iter().all(|&u| u % cap != t % cap) {
                tags.push(t);
            }
        }
        let mut linear = vec![0u64; cap as usize];
        let mut home = vec![0u64; cap as usize];
        for i in order {
            let t = tags[i % tags.len()];
            let a = insert(&mut linear, t, HASH_MAX_PROBES);
            let b = insert(&mut home, t, 1);
            prop_assert!(a.is_some());
            prop_assert_eq!(a, b);
        }
        prop_assert_eq!(linear, home);
    }
}

/// The code generator's decision folds each site's `pc`, `file` and `line`: per-site keys
/// are home when their home slots differ, and only the sites given count.
#[test]
fn home_slots_at_sites_fold_the_sites_immediates() {
    use Probing::{Home, Linear};
    /// A site's `kernel`, `pc`, `file` and `line` (`None`: a site with no instruction).
    #[derive(Default)]
    struct SiteImms {
        kernel_id: u64,
        pc: Option<u32>,
        file: Option<u32>,
        line: Option<u32>,
    }
    impl SiteConsts for SiteImms {
        fn special(&self, sp: Special) -> Option<u64> {
            match sp {
                Special::KernelId => Some(self.kernel_id),
                Special::Pc => self.pc.map(u64::from),
                Special::File => self.file.map(u64::from),
                Special::Line => self.line.map(u64::from),
                _ => None,
            }
        }
        fn site(&self, _: SiteValue) -> Option<u64> {
            None
        }
    }
    let text = "map @pc: hash(keys = 4096) [kernel, u64] -> count
map @one: hash(keys = 1) [u64] -> count
map @dyn: hash(keys = 4096) [u64] -> count

probe 0: mem:global:load
  0: r0 = sreg kernel
  1: r1 = sreg pc
  2: map.update @pc[r0, r1] count
  3: r2 = sreg line
  4: map.update @one[r2] count
  5: exit

probe 1: kernel:exit
  0: r0 = sreg tid.x
  1: map.update @dyn[r0] count
  2: exit
";
    let p = Program::parse(text).expect("IR parses");
    let layout = MapLayout::new(&p.maps);
    let at = |pc: u32, line: u32| SiteImms {
        kernel_id: kernel_id("kern"),
        pc: Some(pc),
        file: Some(0),
        line: Some(line),
    };
    let probing = |sites: &[(usize, SiteImms)]| {
        let home = HomeSlots::decide_at(
            &p,
            &layout,
            sites.iter().map(|(i, s)| (*i, s as &dyn SiteConsts)),
        );
        (0..p.maps.len() as u32)
            .map(|m| home.probing(m))
            .collect::<Vec<_>>()
    };
    // Two loads on one line: @pc's two keys differ, @one has one key (line 7) twice.
    assert_eq!(
        probing(&[(0, at(3, 7)), (0, at(9, 7))]),
        vec![Home, Home, Home]
    );
    // Two lines share @one's single slot.
    assert_eq!(
        probing(&[(0, at(3, 7)), (0, at(9, 8))]),
        vec![Home, Linear, Home]
    );
    // The exit probe runs here too: @dyn's key is per thread.
    assert_eq!(
        probing(&[(0, at(3, 7)), (1, SiteImms::default())]),
        vec![Home, Home, Linear]
    );
    // The kernel-only decision (resident buffers) knows no site: @pc and @one probe
    // linearly; everything home there is home at sites.
    let home = HomeSlots::decide(&p, &layout, kernel_id("kern"));
    let kernel_only: Vec<_> = (0..3).map(|m| home.probing(m)).collect();
    assert_eq!(kernel_only, vec![Linear, Linear, Linear]);
}

/// Which programs' launches may share a resident buffer: per-kernel constant keys only.
#[test]
fn accumulating_needs_home_hash_maps_only() {
    let accumulates = |text: &str| {
        let p = Program::parse(text).expect("IR parses");
        super::accumulates(&p, kernel_id("kern"))
    };
    const MAPS: &str = "map @n: hash(keys = 4096) [kernel] -> count
map @unused: hash(keys = 8) [u64] -> count
";
    const BY_KERNEL: &str = "probe 0: kernel:entry
  0: r0 = sreg kernel
  1: map.update @n[r0] count
  2: exit
";
    assert!(accumulates(&format!("{MAPS}\n{BY_KERNEL}")));
    // Another map, a per-site key: its slots depend on where the probe fires.
    let by_pc = "map @pc: hash(keys = 4096) [u64] -> count\n";
    let pc_probe =
        "probe 1: kernel:exit\n  0: r0 = sreg pc\n  1: map.update @pc[r0] count\n  2: exit\n";
    assert!(!accumulates(&format!(
        "{MAPS}{by_pc}\n{BY_KERNEL}\n{pc_probe}"
    )));
    // A ring, even if never appended to.
    let ring = "map @r: ring(capacity = 16, overflow = drop) -> record(u64)\n";
    assert!(!accumulates(&format!("{MAPS}{ring}\n{BY_KERNEL}")));
    // The per-launch `launch` word.
    let launch = BY_KERNEL.replace("  2: exit", "  2: r1 = sreg launch\n  3: exit");
    assert!(!accumulates(&format!("{MAPS}\n{launch}")));
    // A host block run after each launch.
    let host = "host 0: launch:complete\n  0: exit\n";
    assert!(!accumulates(&format!("{MAPS}\n{host}\n{BY_KERNEL}")));
}

/// How many copies of its tables a resident kernel updates: as many as fit the budget,
/// a power of two up to `MAX_REPLICAS`; one for a kernel whose buffer is per launch.
#[test]
fn resident_kernels_spread_their_updates_over_table_copies() {
    let replicas = |text: &str| {
        let p = Program::parse(text).expect("IR parses");
        super::replicas(&p, kernel_id("kern"))
    };
    let program = |keys: u32| {
        format!(
            "map @n: hash(keys = {keys}) [kernel] -> count\n\nprobe 0: kernel:entry\n  0: r0 = sreg kernel\n  1: map.update @n[r0] count\n  2: exit\n"
        )
    };
    // 65 slots of 24 bytes: 32 copies fit easily.
    assert_eq!(replicas(&program(64)), super::MAX_REPLICAS);
    // 4097 slots: 98 KiB a copy, 4 MiB for 32 of them is too much; 16 fit.
    let one = MapLayout::new(&Program::parse(&program(4096)).expect("parses").maps).total_bytes;
    let n = replicas(&program(4096));
    assert!(
        n.is_power_of_two() && u64::from(n) * one <= super::REPLICA_BYTES,
        "{n}"
    );
    assert!(u64::from(2 * n) * one > super::REPLICA_BYTES, "{n}");
    // 1M slots: one copy.
    assert_eq!(replicas(&program(1 << 20)), 1);
    // Not resident (a per-launch `launch` read): one copy.
    let launch = program(64).replace("  2: exit", "  2: r1 = sreg launch\n  3: exit");
    assert_eq!(replicas(&launch), 1);
}

/// A program of rings only spreads them: the most copies up to `MAX_REPLICAS` that divide
/// every capacity and leave each copy `RING_COPY_RECORDS`; a spread program keeps its
/// count; rings beside a hash table keep one copy.
#[test]
fn programs_of_rings_spread_them_over_copies() {
    let rings = |caps: &[u32], extra: &str| {
        let mut text = String::new();
        for (i, c) in caps.iter().enumerate() {
            text += &format!("map @r{i}: ring(capacity = {c}, overflow = drop) -> record(u64)\n");
        }
        text += extra;
        Program::parse(&text).expect("IR parses")
    };
    let copies = |p: &Program| super::ring_copies(p);
    assert_eq!(copies(&rings(&[65536], "")), super::MAX_REPLICAS);
    assert_eq!(copies(&rings(&[65536, 4096], "")), 4);
    assert_eq!(copies(&rings(&[1024], "")), 1);
    assert_eq!(copies(&rings(&[3 * 1024], "")), 2, "3 is odd");
    assert_eq!(copies(&rings(&[1536], "")), 1, "768 a copy is too few");
    assert_eq!(copies(&rings(&[], "")), 1, "no maps");
    let mixed = rings(&[65536], "map @n: hash(keys = 64) [kernel] -> count\n");
    assert_eq!(copies(&mixed), 1);
    let spread = rings(&[65536], "").with_ring_copies(8);
    assert_eq!(copies(&spread), 8);
    assert_eq!(super::replicas(&spread, kernel_id("kern")), 8);
    assert_eq!(super::buffer_layout(&spread), MapLayout::new(&spread.maps));
    assert_eq!(
        super::buffer_layout(&rings(&[65536], "")).regions[0].capacity,
        65536 / super::MAX_REPLICAS
    );
}

/// Home in every kernel: maps whose updates all have one key tuple of `kernel` and
/// immediates (or no keys); not a per-site key, two tuples, or a key computed from
/// `kernel`.
#[test]
fn certain_home_maps_have_one_tuple_of_kernel_and_immediates() {
    let p = Program::parse(
        "map @k: hash(keys = 4096) [kernel, u64] -> count
map @none: hash(keys = 8) -> count
map @pc: hash(keys = 4096) [u64] -> count
map @two: hash(keys = 4096) [u64] -> count
map @sum: hash(keys = 4096) [u64] -> count

probe 0: kernel:entry
  0: r0 = sreg kernel
  1: map.update @k[r0, 3] count
  2: map.update @none count
  3: r1 = sreg pc
  4: map.update @pc[r1] count
  5: map.update @two[1] count
  6: r2 = add.64 r0, 1
  7: map.update @sum[r2] count
  8: exit

probe 1: kernel:exit
  0: r5 = sreg kernel
  1: map.update @k[r5, 3] count
  2: map.update @none count
  3: map.update @two[2] count
  4: exit
",
    )
    .expect("IR parses");
    let certain = HomeSlots::certain(&p);
    let probing: Vec<_> = (0..5).map(|m| certain.probing(m)).collect();
    use Probing::{Home, Linear};
    assert_eq!(probing, vec![Home, Home, Linear, Linear, Linear]);
    // Whatever the kernel and its sites, the decision agrees.
    let layout = MapLayout::new(&p.maps);
    for kernel in ["a", "kern", "_Z3fooPf"] {
        let home = HomeSlots::decide(&p, &layout, kernel_id(kernel));
        assert_eq!(home.probing(0), Home);
        assert_eq!(home.probing(1), Home);
    }
}
