//! The interpreter over simulated launches and host blocks: `; run:`-style cases written
//! as IR text plus a simulated kernel, checked against the decoded map store.

use proptest::prelude::*;
use warptrace_ir::interp::{
    Body, Error, Event, Grid, HostEffect, Interpreter, LaunchValues, Schedule, SimConfig,
    SimKernel, SiteEvent, Trap, TrapKind,
};
use warptrace_ir::{
    hist_bucket, kernel_id, lhist_bucket, max_decode, min_decode, FormatId, HostEvent, MapId,
    MapStore, MemOp, MemSpace, Program, RegionEnd,
};

fn program(text: &str) -> Program {
    Program::parse(text).expect("program parses")
}

fn golden(name: &str) -> Program {
    let path = format!("{}/tests/golden/{name}", env!("CARGO_MANIFEST_DIR"));
    program(&std::fs::read_to_string(path).expect("golden file"))
}

fn mem(pc: u32, op: MemOp, addr: u64, stored: u64, loaded: u64) -> Event {
    let opcode = match op {
        MemOp::Load => "ld.global.f32",
        _ => "st.global.f32",
    };
    Event::at(
        pc,
        SiteEvent::Mem {
            space: MemSpace::Global,
            op,
            opcode: opcode.into(),
            addr,
            bytes: 4,
            stored,
            loaded,
        },
    )
    .with_line("vector_add.cu", 10 + pc)
}

/// `c[i] = a[i] + b[i]` for `i < n`: two loads (`a[i]` loads `i`, `b[i]` loads 1) and a
/// store (of `i + 1`); threads past `n` only enter and exit.
fn vector_add(n: u64) -> SimKernel<'static> {
    SimKernel::new("vector_add", move |t| {
        let i = t.thread;
        if i >= n {
            return vec![];
        }
        vec![
            mem(1, MemOp::Load, 0x1000 + 4 * i, 0, i),
            mem(2, MemOp::Load, 0x2000 + 4 * i, 0, 1),
            mem(3, MemOp::Store, 0x3000 + 4 * i, i + 1, 0),
        ]
    })
}

fn run(p: &Program, kernel: &SimKernel<'_>, grid: Grid) -> MapStore {
    Interpreter::new(p).run_kernel(kernel, &grid).expect("runs")
}

fn value(s: &MapStore, m: u32, keys: &[u64]) -> Vec<u64> {
    s.maps[m as usize]
        .entries
        .get(keys)
        .cloned()
        .unwrap_or_else(|| panic!("@{m}{keys:?} missing"))
}

#[test]
fn skeleton_over_vector_add() {
    let p = golden("skeleton.ir");
    let s = run(&p, &vector_add(1000), Grid::linear(4, 256));
    let k = kernel_id("vector_add");
    assert_eq!(value(&s, 0, &[k]), [4], "one count per block");
    assert_eq!(
        value(&s, 1, &[k]),
        [1000 * 2 * 4],
        "two 4-byte loads per i < n"
    );
    assert_eq!(s.maps[0].entries.len(), 1);
    // A kernel the glob does not select: blocks still count, loads do not.
    let other = SimKernel::new("scale", |_| vec![mem(1, MemOp::Load, 0, 0, 0)]);
    let s = run(&p, &other, Grid::linear(2, 32));
    assert_eq!(value(&s, 0, &[kernel_id("scale")]), [2]);
    assert!(s.maps[1].entries.is_empty());
}

#[test]
fn lockstep_masks_the_tail_and_warp_probes_update_once() {
    let p = program(
        "map @act: hash(keys = 64) [u64] -> count
map @lanes: hash(keys = 64) [u64] -> count
probe 0: warp mem:global:load
  0: r0 = sreg active
  1: map.update @act[r0] count
  2: exit
probe 1: mem:global:load
  0: r0 = sreg activemask
  1: map.update @lanes[r0] count
  2: exit
",
    );
    let s = run(&p, &vector_add(40), Grid::linear(1, 64));
    assert_eq!(value(&s, 0, &[32]), [2], "warp 0: two loads, once per warp");
    assert_eq!(value(&s, 0, &[8]), [2], "warp 1: 8 lanes below n");
    assert_eq!(
        value(&s, 1, &[0xffff_ffff]),
        [64],
        "per thread: 32 lanes × 2"
    );
    assert_eq!(value(&s, 1, &[0xff]), [16]);
}

#[test]
fn every_aggregation() {
    let p = program(
        "map @c: hash(keys = 64) -> count
map @s: hash(keys = 64) -> sum u64
map @lo: hash(keys = 64) -> min i64
map @hi: hash(keys = 64) -> max u64
map @avg: hash(keys = 64) -> avg u64
map @st: hash(keys = 64) -> stats i64
map @h: hash(keys = 64) -> hist
map @l: hash(keys = 64) -> lhist(0, 40, 10)
map @v: hash(keys = 64) [u64] -> value u64
probe 0: kernel:entry
  0: r0 = sreg thread
  1: r1 = sub.64 r0, 10
  2: map.update @c count
  3: map.update @s sum r0
  4: map.update @lo min r1
  5: map.update @hi max r0
  6: map.update @avg avg r0
  7: map.update @st stats r1
  8: map.update @h hist r0
  9: map.update @l lhist r0
  10: map.update @v[0] assign r0
  11: exit
",
    );
    let s = run(&p, &SimKernel::new("k", |_| vec![]), Grid::linear(2, 32));
    assert_eq!(value(&s, 0, &[]), [64]);
    assert_eq!(value(&s, 1, &[]), [2016]);
    assert_eq!(min_decode(value(&s, 2, &[])[0], true) as i64, -10);
    assert_eq!(max_decode(value(&s, 3, &[])[0], false), 63);
    assert_eq!(value(&s, 4, &[]), [64, 2016]);
    assert_eq!(value(&s, 5, &[]), [64, (2016 - 640) as u64]);
    let mut hist = vec![0u64; 65];
    for x in 0..64 {
        hist[hist_bucket(x, 0) as usize] += 1;
    }
    assert_eq!(value(&s, 6, &[]), hist);
    assert_eq!(&hist[..8], &[0, 1, 1, 2, 4, 8, 16, 32]);
    let lin = value(&s, 7, &[]);
    assert_eq!(lin, [0, 10, 10, 10, 10, 24]);
    assert_eq!(lhist_bucket(40, 0, 40, 10), 5);
    assert_eq!(value(&s, 8, &[0]), [63], "the last writer wins");
}

#[test]
fn a_full_hash_map_counts_drops() {
    let p = program(
        "map @m: hash(keys = 4) [u64] -> count
probe 0: kernel:entry
  0: r0 = sreg thread
  1: map.update @m[r0] count
  2: exit
",
    );
    let s = run(&p, &SimKernel::new("k", |_| vec![]), Grid::linear(1, 64));
    // Four slots and the extra slot (key 0, whose tag is 0); 59 updates find no slot.
    assert_eq!(s.maps[0].entries.len(), 5);
    assert!(s.maps[0].entries.contains_key(&[0][..]));
    assert_eq!(s.maps[0].drops, 59);
}

fn ring_program(overflow: &str) -> Program {
    program(&format!(
        "map @r: ring(capacity = 4, overflow = {overflow}) -> record(u64)
probe 0: kernel:entry
  0: r0 = sreg thread
  1: map.append @r, (r0)
  2: exit
"
    ))
}

#[test]
fn rings_drop_or_overwrite() {
    let k = SimKernel::new("k", |_| vec![]);
    let fields =
        |s: &MapStore| -> Vec<u64> { s.maps[0].records.iter().map(|r| r.fields[0]).collect() };
    let s = run(&ring_program("drop"), &k, Grid::linear(1, 10));
    assert_eq!(fields(&s), [0, 1, 2, 3]);
    assert_eq!((s.maps[0].drops, s.maps[0].lost), (6, 6));
    let s = run(&ring_program("overwrite"), &k, Grid::linear(1, 10));
    assert_eq!(fields(&s), [6, 7, 8, 9]);
    assert_eq!((s.maps[0].drops, s.maps[0].lost), (6, 6));
}

#[test]
fn per_warp_array_records() {
    let p = program(
        "map @sched: array(per = warp, slots = 1) -> record(u64, u64, u64)
persistent %c
probe 0: warp kernel:exit
  0: r0 = sreg warp
  1: r1 = sreg active
  2: r2 = sreg smid
  3: map.save @sched, %c, (r0, r1, r2)
  4: exit
probe 1: warp kernel:exit
  0: r0 = sreg lane
  1: map.save @sched, %c, (r0, r0, r0)
  2: exit
",
    );
    let interp = Interpreter::new(&p).with_config(SimConfig {
        nsmid: 2,
        ..SimConfig::default()
    });
    let s = interp
        .run_kernel(&SimKernel::new("k", |_| vec![]), &Grid::linear(3, 48))
        .expect("runs");
    let recs: Vec<Vec<u64>> = s.maps[0].records.iter().map(|r| r.fields.clone()).collect();
    assert_eq!(
        recs,
        [
            [0, 32, 0],
            [1, 16, 0],
            [0, 32, 1],
            [1, 16, 1],
            [0, 32, 0],
            [1, 16, 0]
        ]
    );
    assert_eq!(
        s.maps[0].drops, 6,
        "the second save finds the only slot used"
    );
}

#[test]
fn warp_and_thread_granularity() {
    let p = program(
        "map @t: hash(keys = 8) -> count
map @w: hash(keys = 8) -> count
map @lanes: hash(keys = 8) -> sum u64
probe 0: kernel:entry
  0: map.update @t count
  1: exit
probe 1: warp kernel:entry
  0: map.update @w count
  1: r0 = sreg lane
  2: map.update @lanes sum r0
  3: exit
",
    );
    let s = run(&p, &SimKernel::new("k", |_| vec![]), Grid::linear(2, 48));
    assert_eq!(value(&s, 0, &[]), [96]);
    assert_eq!(value(&s, 1, &[]), [4]);
    assert_eq!(
        value(&s, 2, &[]),
        [0],
        "only the first active lane (lane 0) updates"
    );
}

#[test]
fn after_reads_the_loaded_value_and_before_the_stored_one() {
    let p = program(
        "map @loaded: hash(keys = 8) -> sum u64
map @before: hash(keys = 8) -> sum u64
map @stored: hash(keys = 8) -> sum u64
probe 0: after mem:global:load
  0: r0 = site value
  1: map.update @loaded sum r0
  2: exit
probe 1: mem:global:load
  0: r0 = site value
  1: map.update @before sum r0
  2: exit
probe 2: mem:global:store
  0: r0 = site value
  1: map.update @stored sum r0
  2: exit
",
    );
    let s = run(&p, &vector_add(10), Grid::linear(1, 32));
    assert_eq!(value(&s, 0, &[]), [45 + 10]);
    assert_eq!(value(&s, 1, &[]), [0]);
    assert_eq!(value(&s, 2, &[]), [55]);
}

#[test]
fn persistent_registers_live_across_probes_and_clocks_are_deterministic() {
    let p = program(
        "map @per: hash(keys = 8) [u64] -> count
map @lat: hash(keys = 8) [u64] -> max u64
persistent %n
persistent %t0
probe 0: kernel:entry
  0: r0 = sreg clock64
  1: store %t0, r0
  2: exit
probe 1: mem:*:*
  0: r0 = load %n
  1: r1 = add.64 r0, 1
  2: store %n, r1
  3: exit
probe 2: kernel:exit
  0: r0 = load %n
  1: map.update @per[r0] count
  2: r1 = sreg clock64
  3: r2 = load %t0
  4: r3 = sub.64 r1, r2
  5: r4 = sreg warp
  6: map.update @lat[r4] max r3
  7: exit
",
    );
    let s = run(&p, &vector_add(40), Grid::linear(1, 64));
    assert_eq!(value(&s, 0, &[3]), [40]);
    assert_eq!(value(&s, 0, &[0]), [24]);
    // Warp 0: entry, 3 memory sites, exit (100 cycles per site, +2 for the reading insn).
    assert_eq!(max_decode(value(&s, 1, &[0])[0], false), 402);
    // Warp 1: lanes 32..40 run 3 sites, then all lanes exit together at the 5th site.
    assert_eq!(max_decode(value(&s, 1, &[1])[0], false), 402);
}

#[test]
fn division_by_zero_traps() {
    let p = program(
        "map @m: hash(keys = 8) -> sum u64
probe 0: kernel:entry
  0: r0 = sreg tid.x
  1: r1 = div.u.64 100, r0
  2: map.update @m sum r1
  3: exit
",
    );
    let err = Interpreter::new(&p)
        .run_kernel(&SimKernel::new("k", |_| vec![]), &Grid::linear(1, 4))
        .expect_err("fails");
    assert_eq!(
        err,
        Error::Trap(Trap {
            kind: TrapKind::DivisionByZero,
            body: Body::Probe(0),
            insn: 1,
            thread: Some(0),
        })
    );
}

#[test]
fn bad_programs_trap_rather_than_panic() {
    let cases = [
        ("probe 0: kernel:entry\n  0: r1 = add.64 r0, 1\n  1: exit\n", TrapKind::UndefinedRegister(warptrace_ir::Reg(0))),
        ("probe 0: kernel:entry\n  0: r0 = sreg pc\n  1: exit\n", TrapKind::NoSite),
        ("probe 0: kernel:entry\n  0: r0 = mov 1\n", TrapKind::MissingExit),
        ("map @m: hash(keys = 8) -> count\nprobe 0: kernel:entry\n  0: host.print @m\n  1: exit\n", TrapKind::HostOnly),
    ];
    for (text, kind) in cases {
        let p = program(text);
        let err = Interpreter::new(&p)
            .run_kernel(&SimKernel::new("k", |_| vec![]), &Grid::linear(1, 1))
            .expect_err("fails");
        match err {
            Error::Trap(t) => assert_eq!(t.kind, kind, "{text}"),
            e => panic!("{text}: {e}"),
        }
    }
}

#[test]
fn device_printf_fills_the_printf_ring() {
    let p = program(
        "map @printf: ring(capacity = 8, overflow = drop) -> printf(2)
format 0: \"%x\\n\"
probe 0: mem:global:store
  0: r0 = site addr
  1: printf 0, (r0)
  2: exit
",
    );
    let s = run(&p, &vector_add(3), Grid::linear(1, 32));
    let recs: Vec<(u64, Vec<u64>)> = s.printf_records(&p).map(|(f, a)| (f, a.to_vec())).collect();
    assert_eq!(
        recs,
        [
            (0, vec![0x3000, 0]),
            (0, vec![0x3004, 0]),
            (0, vec![0x3008, 0])
        ]
    );
}

#[test]
fn line_and_opcode_probes_match_their_sites() {
    let p = program(
        "map @m: hash(keys = 8) [u64] -> count
probe 0: line:vector_add.cu:11-12
  0: r0 = sreg line
  1: map.update @m[r0] count
  2: exit
probe 1: ptx:st.global.*
  0: r0 = sreg pc
  1: map.update @m[r0] count
  2: exit
",
    );
    let s = run(&p, &vector_add(5), Grid::linear(1, 8));
    assert_eq!(value(&s, 0, &[11]), [5]);
    assert_eq!(value(&s, 0, &[12]), [5]);
    assert_eq!(value(&s, 0, &[3]), [5]);
    assert_eq!(s.maps[0].entries.len(), 3);
}

#[test]
fn region_probes_fire_at_their_regions_ends_with_its_place() {
    // Threads run the region of kernel.cu:20-30 (placed at pc 7, line 20) twice, and a
    // region of other lines once: only the first fires the probes, `pc` and `line` are
    // the region's place at both ends.
    let p = program(
        "map @m: hash(keys = 8) [u64, u64, u64] -> count
probe 0: region:entry:kernel.cu:20-30
  0: r0 = sreg pc
  1: r1 = sreg line
  2: map.update @m[0, r0, r1] count
  3: exit
probe 1: region:exit:kernel.cu:20-30
  0: r0 = sreg pc
  1: r1 = sreg line
  2: map.update @m[1, r0, r1] count
  3: exit
",
    );
    let at = |end, from, to| Event {
        site: SiteEvent::Region {
            end,
            file: "/src/kernel.cu".into(),
            from,
            to,
        },
        pc: 7,
        file: Some("/src/kernel.cu".into()),
        line: 20,
        probes: None,
    };
    let k = SimKernel::new("k", move |_| {
        let mut v = Vec::new();
        for _ in 0..2 {
            v.push(at(RegionEnd::Entry, 20, 30));
            v.push(at(RegionEnd::Exit, 20, 30));
        }
        v.push(at(RegionEnd::Entry, 20, 31));
        v.push(at(RegionEnd::Exit, 20, 31));
        v
    });
    let s = run(&p, &k, Grid::linear(1, 4));
    assert_eq!(value(&s, 0, &[0, 7, 20]), [8]);
    assert_eq!(value(&s, 0, &[1, 7, 20]), [8]);
    assert_eq!(s.maps[0].entries.len(), 2);
    // The text form round-trips.
    assert!(p
        .to_string()
        .contains("probe 1: region:exit:kernel.cu:20-30\n"));
}

/// Runs `event`'s host blocks and collects their effects in order.
fn host_effects(
    interp: &Interpreter<'_>,
    event: HostEvent,
    store: &mut MapStore,
) -> Result<Vec<HostEffect>, Error> {
    let mut effects = Vec::new();
    interp.run_host(event, store, &mut |e, _| effects.push(e))?;
    Ok(effects)
}

#[test]
fn a_print_sees_the_store_of_its_moment() {
    // `print(@c); clear(@c);`: the store handed with the print still holds the entry.
    let p = program(
        "map @c: hash(keys = 64) [u64] -> value u64
host 0: begin
  0: map.update @c[1] assign 7
  1: host.print @c
  2: host.clear @c
  3: host.print @c
  4: exit
",
    );
    let mut seen = Vec::new();
    let mut store = MapStore::new(&p);
    Interpreter::new(&p)
        .run_host(HostEvent::Begin, &mut store, &mut |e, s| {
            seen.push((e, s.maps[0].entries.len()));
        })
        .expect("begin");
    let print = HostEffect::Print {
        map: MapId(0),
        top: 0,
        div: 0,
    };
    assert_eq!(seen, [(print.clone(), 1), (print, 0)]);
    assert!(store.maps[0].entries.is_empty());
}

#[test]
fn host_blocks_return_effects_and_change_the_store() {
    // `tests/golden/aggregations.ir`'s host blocks, with `@lat` unkeyed (there it has a
    // `kernel` key that its `begin` block does not give: a text-form golden, not verified).
    let p = program(
        "map @lat: hash(keys = 1024) -> hist
map @lin: hash(keys = 64) [u64] -> lhist(0, 100, 10)
map @lo: hash(keys = 64) -> min i64
map @hi: hash(keys = 64) -> max u64
map @mean: hash(keys = 64) [kernel, i64] -> avg u64
map @st: hash(keys = 64) -> stats i64
map @last: hash(keys = 64) [u64] -> value u64
host 0: begin
  0: map.update @lat hist 5
  1: map.update @lat hist 100
  2: host.print @lat
  3: exit
host 1: end
  0: host.delete @last[3]
  1: host.zero @st
  2: host.clear @lin
  3: host.exit
  4: exit
",
    );
    let interp = Interpreter::new(&p);
    let mut store = MapStore::new(&p);
    let effects = host_effects(&interp, HostEvent::Begin, &mut store).expect("begin");
    assert_eq!(
        effects,
        [HostEffect::Print {
            map: MapId(0),
            top: 0,
            div: 0,
        }]
    );
    let h = value(&store, 0, &[]);
    assert_eq!(
        (
            h[hist_bucket(5, 0) as usize],
            h[hist_bucket(100, 0) as usize]
        ),
        (1, 1)
    );
    // end: delete @last[3], zero @st, clear @lin, exit.
    store
        .update(MapId(6), &[3], warptrace_ir::Update::Assign(1))
        .expect("ok");
    store
        .update(MapId(6), &[4], warptrace_ir::Update::Assign(2))
        .expect("ok");
    store
        .update(MapId(5), &[], warptrace_ir::Update::Stats(9))
        .expect("ok");
    store
        .update(MapId(1), &[1], warptrace_ir::Update::Lhist(9))
        .expect("ok");
    let effects = host_effects(&interp, HostEvent::End, &mut store).expect("end");
    assert_eq!(effects, [HostEffect::Exit]);
    assert_eq!(store.maps[6].entries.keys().collect::<Vec<_>>(), [&vec![4]]);
    assert_eq!(value(&store, 5, &[]), [0, 0]);
    assert!(store.maps[1].entries.is_empty());

    let p = golden("events.ir");
    let effects = host_effects(
        &Interpreter::new(&p),
        HostEvent::LaunchComplete,
        &mut MapStore::default(),
    )
    .expect("launch:complete");
    assert_eq!(
        effects,
        [HostEffect::Printf {
            format: FormatId(1),
            args: vec![42]
        }]
    );

    let p = program("host 0: begin\n  0: r0 = sreg clock64\n  1: exit\n");
    let err = host_effects(
        &Interpreter::new(&p),
        HostEvent::Begin,
        &mut MapStore::default(),
    )
    .expect_err("fails");
    assert!(matches!(
        err,
        Error::Trap(Trap {
            kind: TrapKind::DeviceOnly,
            body: Body::Host(0),
            ..
        })
    ));
}

/// A random probe: an aggregation of one special value keyed by another, at one point.
#[derive(Debug, Clone)]
struct RandomProbe {
    agg: usize,
    key: usize,
    val: usize,
    point: usize,
    warp: bool,
}

const AGGS: [(&str, &str); 8] = [
    ("count", "count"),
    ("sum u64", "sum r1"),
    ("min i64", "min r1"),
    ("max u64", "max r1"),
    ("avg u64", "avg r1"),
    ("stats i64", "stats r1"),
    ("hist", "hist r1"),
    ("lhist(0, 64, 8)", "lhist r1"),
];
const SREGS: [&str; 9] = [
    "thread",
    "lane",
    "warp",
    "block",
    "smid",
    "active",
    "tid.x",
    "clock64",
    "activemask",
];
const POINTS: [&str; 5] = [
    "kernel:entry",
    "kernel:exit",
    "mem:global:load",
    "mem:*:*",
    "after mem:global:load",
];

fn random_program(probes: &[RandomProbe]) -> String {
    let mut text = String::new();
    for (i, p) in probes.iter().enumerate() {
        text += &format!("map @m{i}: hash(keys = 4096) [u64] -> {}\n", AGGS[p.agg].0);
    }
    text += "map @rows: array(per = thread, slots = 2) -> record(u64, u64)\npersistent %c\n";
    for (i, p) in probes.iter().enumerate() {
        let warp = if p.warp { "warp " } else { "" };
        text += &format!(
            "probe {i}: {warp}{}\n  0: r0 = sreg {}\n  1: r1 = sreg {}\n  2: map.update @m{i}[r0] {}\n  3: map.save @rows, %c, (r0, r1)\n  4: exit\n",
            POINTS[p.point], SREGS[p.key], SREGS[p.val], AGGS[p.agg].1
        );
    }
    text
}

fn random_probe() -> impl Strategy<Value = RandomProbe> {
    (
        0..AGGS.len(),
        0..SREGS.len(),
        0..SREGS.len(),
        0..POINTS.len(),
        any::<bool>(),
    )
        .prop_map(|(agg, key, val, point, warp)| RandomProbe {
            agg,
            key,
            val,
            point,
            warp,
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// With commutative aggregations (and race-free array rows), the decoded store does
    /// not depend on the order in which warps are scheduled.
    #[test]
    fn results_do_not_depend_on_warp_scheduling(
        probes in prop::collection::vec(random_probe(), 1..5),
        blocks in 1u32..4,
        threads in 1u32..100,
        seed in any::<u64>(),
        salt in any::<u64>(),
    ) {
        let p = program(&random_program(&probes));
        // Each thread runs a data-dependent number of loads and stores (divergence).
        let kernel = SimKernel::new("k", move |t| {
            let h = warptrace_ir::mix64(t.thread ^ salt);
            (0..h % 5)
                .map(|j| {
                    let op = if (h >> (8 + j)) & 1 == 0 { MemOp::Load } else { MemOp::Store };
                    mem(1 + j as u32, op, 0x100 * j + t.thread, j, h >> 40)
                })
                .collect()
        });
        let grid = Grid::linear(blocks, threads);
        let run = |schedule| {
            Interpreter::new(&p)
                .with_config(SimConfig { schedule, ..SimConfig::default() })
                .run_kernel(&kernel, &grid)
                .expect("runs")
        };
        let in_order = run(Schedule::InOrder);
        let shuffled = run(Schedule::Interleaved { seed });
        prop_assert_eq!(in_order, shuffled);
    }
}

/// `launch:*` blocks read the launch they run for; other host blocks cannot read a
/// launch's values, and a `launch:begin` block has no duration to read (0).
#[test]
fn launch_blocks_read_their_launch() {
    let p = program(
        "map @t: hash(keys = 64) [kernel, u64] -> sum u64
map @s: hash(keys = 64) [u64] -> max u64
host 0: launch:end
  0: r0 = sreg kernel
  1: r1 = sreg nctaid.x
  2: r2 = sreg duration
  3: map.update @t[r0, r1] sum r2
  4: exit
host 1: launch:begin
  0: r0 = sreg stream
  1: r1 = sreg shared
  2: r2 = sreg ntid.y
  3: r3 = add.64 r1, r2
  4: map.update @s[r0] max r3
  5: exit
host 2: begin
  0: r0 = sreg duration
  1: map.update @s[r0] max r0
  2: exit
",
    );
    let interp = Interpreter::new(&p);
    let mut store = MapStore::new(&p);
    let k = kernel_id("_Z4gemmv");
    let mut launch = LaunchValues {
        kernel: k,
        grid: [132, 1, 1],
        block: [256, 4, 1],
        shared: 4096,
        stream: 0x7000,
        duration: 0,
    };
    let none = &mut |_: HostEffect, _: &MapStore| {};
    interp
        .run_launch(HostEvent::LaunchBegin, &launch, &mut store, none)
        .expect("begin");
    for d in [1500, 2500] {
        launch.duration = d;
        interp
            .run_launch(HostEvent::LaunchEnd, &launch, &mut store, none)
            .expect("end");
    }
    assert_eq!(store.maps[0].entries.get(&vec![k, 132]), Some(&vec![4000]));
    assert_eq!(store.maps[1].entries.len(), 1);
    assert!(store.maps[1].entries.contains_key(&vec![0x7000]));
    // A `begin` block has no launch: reading one traps.
    let e = interp.run_host(HostEvent::Begin, &mut store, none);
    assert!(e.is_err(), "{e:?}");
}
