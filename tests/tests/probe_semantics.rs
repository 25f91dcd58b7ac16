//! Every shipped probe (`probes/*.wt`) run through the IR interpreter — the oracle the GPU
//! results are compared with (`docs/decisions/0003-interpreter-as-gpu-oracle.md`) — on
//! modelled kernels, its output compared with values derived by hand from the model: the
//! exact text `warptrace` prints (printf lines, then the maps and records at exit, then a
//! `Lost N events` line per map that lost records).
//!
//! The models give each thread the PTX instructions it executes, as `nvcc -arch=sm_90a`
//! would emit them. An instruction whose guard predicate is false in a lane has no event
//! in that lane, as a probe's snippet is skipped there on the GPU (every site is guarded by
//! its instruction's predicate). A `ret`/`exit` is its instruction (for `ptx:` probes)
//! followed by the kernel exit at the same `pc` (for `kernel:exit`), the order in which
//! the probes of one site run on the GPU. The interpreter's clocks are deterministic:
//! `clock64` = 100 × (sites the warp has run) + the index of the reading IR instruction.
//!
//! - `vec_add`: `c[i] = a[i] + b[i]` for `i < N`, 4 blocks of 256 threads, N = 1000: the
//!   last 24 threads (block 3, warp 7, lanes 8–31) leave early through `@%p1 exit`.
//! - `tile`: a tensor-core tile, 2 blocks of 64 threads, no divergence: a `cp.async` (16
//!   bytes a thread), two barriers, two `wmma.mma` a warp, one instruction of every other
//!   class, a global atomic (4 bytes a thread).
//! - `branchy`: 1 block of 64 threads with two guarded branches.
//! - `grid2d`: an empty kernel on a 3×2 grid of 16×16 blocks.
//! - `smem`: 1 block of 64 threads: strided, vector and broadcast shared-memory accesses
//!   and an uncoalesced global store.
//! - `nest`: 1 block of 64 threads, three nested loops (2 × 3 × 1 iterations).
//! - `break2`: 1 warp: an inner loop of 2 iterations left with its outer loop by one edge
//!   (the outer loop's exit first, as the PTX back end orders the loops of an edge).

use std::collections::BTreeMap;
use warptrace_ir::interp::{Event, Grid, Interpreter, SimConfig, SimKernel, SiteEvent, Thread};
use warptrace_ir::{kernel_id, Insn, LoopEdge, MapStore, MemOp, MemSpace, Program, Special};

/// `vec_add`'s problem size and block size.
const N: u64 = 1000;
const THREADS: u32 = 256;
/// Base addresses of `vec_add`'s arrays and `tile`'s buffers (any distinct values).
const A: u64 = 0x7f00_0000_0000;
const B: u64 = 0x7f10_0000_0000;
const C: u64 = 0x7f20_0000_0000;
const SRC: u64 = 0x7f30_0000_0000;
const COUNTER: u64 = 0x7f40_0000_0000;
/// The source file of `vec_add`'s `.loc` lines.
const FILE: &str = "vec_add.cu";

fn library_probe(name: &str) -> Program {
    let path = warptrace_tests::probes_dir().join(format!("{name}.wt"));
    let src = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
    warptrace_lang::compile(&src, &format!("probes/{name}.wt"))
        .unwrap_or_else(|e| panic!("probes/{name}.wt:\n{}", e.render()))
}

fn insn(pc: u32, opcode: &str) -> Event {
    Event::at(
        pc,
        SiteEvent::Insn {
            opcode: opcode.to_string(),
        },
    )
}

fn mem(pc: u32, space: MemSpace, op: MemOp, opcode: &str, addr: u64, bytes: u64) -> Event {
    Event::at(pc, SiteEvent::mem(space, op, opcode, addr, bytes))
}

/// A `ret` or `exit` at `pc`: the instruction, then the kernel's exit.
fn leave(ev: &mut Vec<Event>, pc: u32, opcode: &str) {
    ev.push(insn(pc, opcode));
    ev.push(Event::at(pc, SiteEvent::Exit));
}

/// The global index of `vec_add`'s thread `t`.
fn index(t: &Thread) -> u64 {
    u64::from(t.ctaid[0]) * u64::from(THREADS) + u64::from(t.tid[0])
}

/// `vec_add` (`c[i] = a[i] + b[i]`, `if (i >= n) return;` first). In-range threads run
/// 21 instructions (pc 0–8 and 10–21): 7 memory (4 `ld.param`, 2 loads, 1 store), 6
/// moves, 6 ALU, 1 compare, 1 `ret`; the others 10 (pc 0–9: 4 memory, 3 moves, 1 ALU, 1
/// compare, 1 `exit`).
fn vec_add(t: &Thread) -> Vec<Event> {
    use MemOp::{Load, Store};
    use MemSpace::Global;
    let i = index(t);
    let mut ev = vec![Event::at(0, SiteEvent::Entry)];
    for (pc, op) in [
        "ld.param.u64",
        "ld.param.u64",
        "ld.param.u64",
        "ld.param.u32",
        "mov.u32",
        "mov.u32",
        "mov.u32",
        "mad.lo.s32",
        "setp.ge.s32",
    ]
    .into_iter()
    .enumerate()
    {
        ev.push(insn(pc as u32, op).with_line(FILE, 3));
    }
    if i >= N {
        leave(&mut ev, 9, "exit"); // @%p1 exit
        return ev;
    }
    let line = |e: Event| e.with_line(FILE, 5);
    ev.extend([
        line(insn(10, "cvta.to.global.u64")),
        line(insn(11, "mul.wide.s32")),
        line(insn(12, "add.s64")),
        line(mem(13, Global, Load, "ld.global.f32", A + 4 * i, 4)),
        line(insn(14, "cvta.to.global.u64")),
        line(insn(15, "add.s64")),
        line(mem(16, Global, Load, "ld.global.f32", B + 4 * i, 4)),
        line(insn(17, "add.f32")),
        line(insn(18, "cvta.to.global.u64")),
        line(insn(19, "add.s64")),
        line(mem(20, Global, Store, "st.global.f32", C + 4 * i, 4)),
    ]);
    leave(&mut ev, 21, "ret");
    ev
}

/// `tile`: 16 instructions a thread, the same in every lane: 3 memory (`cp.async` of 16
/// bytes, `cp.async.wait_all`, a 4-byte global atomic), 4 tensor (2 `wmma.load`, 2
/// `wmma.mma`), 2 moves, 2 barriers, and one each of logic, SFU, warp-wide, ALU and
/// control (`ret`).
fn tile(t: &Thread) -> Vec<Event> {
    let mma = |pc: u32| {
        Event::at(
            pc,
            SiteEvent::Mma {
                opcode: "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32".into(),
            },
        )
    };
    let barrier = |pc: u32| {
        Event::at(
            pc,
            SiteEvent::Barrier {
                opcode: "bar.sync".into(),
            },
        )
    };
    let mut ev = vec![
        Event::at(0, SiteEvent::Entry),
        insn(0, "mov.u32"),
        insn(1, "shl.b32"),
        insn(2, "cvta.to.global.u64"),
        mem(
            3,
            MemSpace::Global,
            MemOp::Async,
            "cp.async.cg.shared.global",
            SRC + 16 * t.thread,
            16,
        ),
        insn(4, "cp.async.wait_all"),
        barrier(5),
        insn(6, "wmma.load.a.sync.aligned.row.m16n16k16.shared.f16"),
        insn(7, "wmma.load.b.sync.aligned.col.m16n16k16.shared.f16"),
        mma(8),
        mma(9),
        insn(10, "ex2.approx.ftz.f32"),
        insn(11, "shfl.sync.bfly.b32"),
        insn(12, "fma.rn.f32"),
        barrier(13),
        mem(
            14,
            MemSpace::Global,
            MemOp::Atomic,
            "atom.global.add.u32",
            COUNTER,
            4,
        ),
    ];
    leave(&mut ev, 15, "ret");
    ev
}

/// `branchy`: `@%p2 bra` taken where `tid >= 44`, then (the others) `@%p1 bra` taken
/// where `tid % 4 != 0`.
fn branchy(t: &Thread) -> Vec<Event> {
    let tid = t.tid[0];
    let bra = |pc: u32| {
        Event::at(
            pc,
            SiteEvent::Branch {
                opcode: "bra".into(),
            },
        )
    };
    let mut ev = vec![
        Event::at(0, SiteEvent::Entry),
        insn(0, "mov.u32"),
        insn(1, "and.b32"),
        insn(2, "setp.ne.s32"),
        insn(3, "setp.ge.u32"),
    ];
    if tid >= 44 {
        ev.push(bra(4));
    } else {
        if tid % 4 != 0 {
            ev.push(bra(5));
        } else {
            ev.push(insn(6, "add.s32"));
        }
        ev.push(insn(7, "add.s32"));
    }
    leave(&mut ev, 8, "ret");
    ev
}

/// `smem`'s shared array and output (any distinct values).
const SMEM: u64 = 0x400;
const OUT: u64 = 0x7f50_0000_0000;

/// `smem`: 1 block of 64 threads (2 warps). Each thread stores `s[tid]` (4 bytes), reads
/// `s[(2 * tid) % 64]` (stride 2: two words in each even bank), a 16-byte `float4` at
/// `16 * (tid % 32)` (8 lanes per 128-byte row) and `s[0]` (one word: a broadcast), then
/// stores `out[8 * tid]` (each lane in its own 32-byte sector).
fn smem(t: &Thread) -> Vec<Event> {
    use MemOp::{Load, Store};
    use MemSpace::{Global, Shared};
    let tid = u64::from(t.tid[0]);
    let mut ev = vec![
        Event::at(0, SiteEvent::Entry),
        mem(0, Shared, Store, "st.shared.f32", SMEM + 4 * tid, 4),
        Event::at(
            1,
            SiteEvent::Barrier {
                opcode: "bar.sync".into(),
            },
        ),
        mem(
            2,
            Shared,
            Load,
            "ld.shared.f32",
            SMEM + 4 * ((2 * tid) % 64),
            4,
        ),
        mem(
            3,
            Shared,
            Load,
            "ld.shared.v4.f32",
            SMEM + 16 * (tid % 32),
            16,
        ),
        mem(4, Shared, Load, "ld.shared.f32", SMEM, 4),
        mem(5, Global, Store, "st.global.f32", OUT + 32 * tid, 4),
    ];
    leave(&mut ev, 6, "ret");
    ev
}

/// `nest`'s loops: (header pc, source line, iterations). Every point of a loop (header,
/// exit) is at its header's `pc` and line.
const NEST: [(u32, u32, usize); 3] = [(1, 10, 2), (2, 12, 3), (3, 13, 1)];

/// `nest`: the three loops of [`NEST`], each inside the one before, one instruction at
/// the top of each loop body and one latch branch per iteration of the two outer loops.
fn nest(_: &Thread) -> Vec<Event> {
    fn level(ev: &mut Vec<Event>, depth: usize) {
        let Some(&(pc, line, iterations)) = NEST.get(depth) else {
            return;
        };
        for _ in 0..iterations {
            ev.push(Event::at(pc, SiteEvent::Loop(LoopEdge::Header)).with_line("nest.cu", line));
            ev.push(insn(pc, "add.s32").with_line("nest.cu", line));
            level(ev, depth + 1);
            if depth < 2 {
                ev.push(insn(10 + pc, "bra").with_line("nest.cu", line));
            }
        }
        ev.push(Event::at(pc, SiteEvent::Loop(LoopEdge::Exit)).with_line("nest.cu", line));
    }
    let mut ev = vec![Event::at(0, SiteEvent::Entry)];
    level(&mut ev, 0);
    leave(&mut ev, 20, "ret");
    ev
}

/// `break2`: the outer loop of [`NEST`] (one iteration) holding the inner one (two
/// iterations), both left by one edge: the outer loop's exit, then the inner's.
fn break2(_: &Thread) -> Vec<Event> {
    let at = |pc: u32, line: u32, site: SiteEvent| Event::at(pc, site).with_line("nest.cu", line);
    let mut ev = vec![
        Event::at(0, SiteEvent::Entry),
        at(1, 10, SiteEvent::Loop(LoopEdge::Header)),
        insn(1, "add.s32").with_line("nest.cu", 10),
        at(2, 12, SiteEvent::Loop(LoopEdge::Header)),
        insn(2, "add.s32").with_line("nest.cu", 12),
        at(2, 12, SiteEvent::Loop(LoopEdge::Header)),
        insn(2, "add.s32").with_line("nest.cu", 12),
        at(1, 10, SiteEvent::Loop(LoopEdge::Exit)),
        at(2, 12, SiteEvent::Loop(LoopEdge::Exit)),
    ];
    leave(&mut ev, 20, "ret");
    ev
}

/// The kernels and launches of one simulated program run, in launch order.
fn launches() -> Vec<(SimKernel<'static>, Grid)> {
    vec![
        (SimKernel::new("vec_add", vec_add), Grid::linear(4, THREADS)),
        (SimKernel::new("tile", tile), Grid::linear(2, 64)),
        (SimKernel::new("branchy", branchy), Grid::linear(1, 64)),
        (SimKernel::new("smem", smem), Grid::linear(1, 64)),
        (SimKernel::new("nest", nest), Grid::linear(1, 64)),
        (SimKernel::new("break2", break2), Grid::linear(1, 32)),
        (
            SimKernel::new("grid2d", |_: &Thread| Vec::new()),
            Grid {
                grid: [3, 2, 1],
                block: [16, 16, 1],
                warp_size: 32,
            },
        ),
    ]
}

/// What `warptrace` prints for `program` over `kernels` (of [`launches`]): the printf
/// lines, the maps and records at exit, then a `Lost N events` line per map that lost
/// records (stderr on the command line).
fn run(program: &Program, kernels: &[&str]) -> String {
    let mut store = MapStore::new(program);
    let mut names = BTreeMap::new();
    let selected = launches()
        .into_iter()
        .filter(|(k, _)| kernels.contains(&k.name.as_str()));
    for (launch, (kernel, grid)) in (1..).zip(selected) {
        let interpreter = Interpreter::new(program).with_config(SimConfig {
            launch,
            ..SimConfig::default()
        });
        let maps = interpreter
            .run_kernel(&kernel, &grid)
            .unwrap_or_else(|e| panic!("{}: {e}", kernel.name));
        store.merge(maps);
        names.insert(kernel_id(&kernel.name), kernel.name.clone());
    }
    let mut out: String = warptrace_runtime::printf_texts(program, &store, &names).concat();
    let maps = warptrace_runtime::store_outputs(program, &store, &names);
    let rings = warptrace_runtime::ring_outputs(program, &store, &names);
    if !maps.is_empty() || rings.iter().any(|r| !r.records.is_empty()) {
        out.push_str(&warptrace_runtime::text::exit_with_rings(&maps, &rings));
    }
    for (_, lost) in warptrace_runtime::lost_records(program, &store) {
        out.push_str(&warptrace_runtime::text::lost_events(lost));
    }
    out
}

/// A bpftrace histogram bar of `count` out of a largest bucket of `max`.
fn bar(count: u64, max: u64) -> String {
    let n = (count * 52 / max) as usize;
    format!("|{}{}|", "@".repeat(n), " ".repeat(52 - n))
}

/// One histogram bucket line as bpftrace prints it: label in 16 columns, count in 8.
fn bucket(label: &str, count: u64, max: u64) -> String {
    format!("{label:<16}{count:>8} {}\n", bar(count, max))
}

/// `(block, warp, lane)` of `vec_add`'s in-range threads, in the order the interpreter
/// runs them: block by block, warp by warp, lane by lane.
fn global_threads() -> impl Iterator<Item = (u64, u64, u64)> {
    (0..4u64).flat_map(|block| {
        (0..8u64).flat_map(move |warp| {
            (0..32u64)
                .map(move |lane| (block, warp, lane))
                .filter(|&(b, w, l)| b * 256 + w * 32 + l < N)
        })
    })
}

#[test]
fn blocks_counts_each_block_once() {
    let out = run(&library_probe("blocks"), &["vec_add", "tile", "grid2d"]);
    // Sorted by value, ascending: tile's 2 blocks, vec_add's 4, the 3x2 grid's 6.
    assert_eq!(
        out,
        "\n\n@blocks[tile]: 2\n@blocks[vec_add]: 4\n@blocks[grid2d]: 6\n"
    );
}

#[test]
fn gmem_bytes_sums_the_bytes_of_each_kind_of_access() {
    let out = run(
        &library_probe("gmem_bytes"),
        &["vec_add", "tile", "branchy"],
    );
    // vec_add: two 4-byte loads and one 4-byte store per in-range element; tile: 128
    // threads × a 16-byte cp.async and a 4-byte atomic; branchy touches no memory.
    let expect = format!(
        "\n\n@async[tile]: {}\n@atom[tile]: {}\n@ld[vec_add]: {}\n@st[vec_add]: {}\n",
        128 * 16,
        128 * 4,
        2 * 4 * N,
        4 * N
    );
    assert_eq!(out, expect);
}

#[test]
fn tensorop_count_counts_matrix_instructions_per_warp() {
    let out = run(&library_probe("tensorop_count"), &["vec_add", "tile"]);
    // tile: 4 warps × 2 wmma.mma (the wmma.loads are not `tensor:mma` sites).
    assert_eq!(out, "\n\n@mma[tile]: 8\n");
}

#[test]
fn block_sched_histograms_each_warp_exit_by_sm() {
    let out = run(&library_probe("block_sched"), &["vec_add"]);
    // smid = block % 132, so SMs 0-3 hold one block each. A full warp runs 22 sites
    // before its exit (entry, pc 0-8, pc 10-21): 2200 + the IR index of the exit
    // probe's clock read, in [2K, 4K). Block 3's warp 7 leaves in two groups (lanes 8-31
    // at pc 9, after lanes 0-7 have run to the end): two exits, both in [2K, 4K).
    let mut expect = String::from("\n\n");
    for sm in 0..4 {
        let n = if sm == 3 { 9 } else { 8 };
        expect.push_str(&format!("@sched[{sm}]:\n{}\n", bucket("[2K, 4K)", n, n)));
    }
    for sm in 0..3 {
        expect.push_str(&format!("@warps[{sm}]: 8\n"));
    }
    expect.push_str("@warps[3]: 9\n");
    assert_eq!(out, expect);
}

#[test]
fn warp_sched_writes_one_timing_record_per_warp() {
    let program = library_probe("warp_sched");
    let sched = program
        .maps
        .iter()
        .find(|m| m.name == "sched")
        .expect("@sched");
    assert!(
        warptrace_runtime::export::is_timing_map(sched),
        "--trace must draw @sched"
    );
    let out = run(&program, &["vec_add"]);
    // t0 = clock64 at site 0 (IR insn 0 of the entry probe) = 0; the exit probe reads
    // clock64 at IR insn 1 after 22 sites: elapsed 2201. Records in (block, warp) order;
    // block 3's warp 7 records its first exit group (lanes 0-7); lane 8's save at the
    // second exit finds the slot taken: one lost record.
    let mut expect = String::from("\n\n");
    for block in 0..4 {
        for _warp in 0..8 {
            expect.push_str(&format!("@sched: (0, 2201, {block}, vec_add)\n"));
        }
    }
    expect.push_str("Lost 1 events\n");
    assert_eq!(out, expect);
}

#[test]
fn barriers_counts_every_thread_at_every_barrier() {
    let out = run(&library_probe("barriers"), &["vec_add", "tile"]);
    // tile: 128 threads × 2 barriers; the first barrier is its 7th site (entry, pc 0-5):
    // 600 + the clock read's IR index, once per warp (4 warps), in [512, 1K).
    let expect = format!(
        "\n\n@bars[tile]: 256\n@to_first[tile]:\n{}\n",
        bucket("[512, 1K)", 4, 4)
    );
    assert_eq!(out, expect);
}

#[test]
fn uncoalesced_counts_sectors_per_warp_request() {
    let out = run(&library_probe("uncoalesced"), &["vec_add", "tile", "smem"]);
    // vec_add (line 5): 32 warp requests per access; a full warp's 32 consecutive floats
    // are 4 sectors, block 3's warp 7 (8 lanes, 32 aligned bytes) 1: 31 * 4 + 1 = 125.
    // smem: 2 requests of 32 lanes 32 bytes apart: 32 sectors each. tile's cp.async and
    // atomic are neither loads nor stores.
    let expect = "\n\n@ld_requests[vec_add, 5, 13]: 32\n@ld_requests[vec_add, 5, 16]: 32\n\
                  @ld_sectors[vec_add, 5, 13]: 125\n@ld_sectors[vec_add, 5, 16]: 125\n\
                  @st_requests[smem, 0, 5]: 2\n@st_requests[vec_add, 5, 20]: 32\n\
                  @st_sectors[smem, 0, 5]: 64\n@st_sectors[vec_add, 5, 20]: 125\n";
    assert_eq!(out, expect);
}

#[test]
fn bank_conflicts_counts_wavefronts_per_warp_request() {
    let out = run(&library_probe("bank_conflicts"), &["vec_add", "smem"]);
    // smem, 2 warps: the store s[tid] 1 wavefront a warp; s[2 tid % 64] 2 (bank 2k holds
    // words 2k and 2k + 32); the float4 load 4 (32 lanes x 16 bytes = 4 rows); s[0] 1.
    // vec_add has no shared access.
    let expect = "\n\n@ld_requests[smem, 0, 2]: 2\n@ld_requests[smem, 0, 3]: 2\n\
                  @ld_requests[smem, 0, 4]: 2\n\
                  @ld_wavefronts[smem, 0, 4]: 2\n@ld_wavefronts[smem, 0, 2]: 4\n\
                  @ld_wavefronts[smem, 0, 3]: 8\n\
                  @st_requests[smem, 0, 0]: 2\n@st_wavefronts[smem, 0, 0]: 2\n";
    assert_eq!(out, expect);
}

#[test]
fn features_tabulates_each_kernel() {
    let out = run(&library_probe("features"), &["vec_add", "tile", "smem"]);
    // vec_add: one add.f32 per in-range thread (1000 flops), 3 accesses x 32 coalesced
    // requests (4 sectors for 32 lanes' 128 bytes; 1 for the 8-lane warp's 32). tile: one
    // fma.rn.f32 per thread (2 x 128 flops), 2 wmma.mma and 2 bar.sync per warp (4
    // warps). smem: 1 barrier per warp (2), a store whose 32 lanes each have a sector
    // (scattered, 2 requests). Every thread's exit adds its counters, zero or not; one
    // launch each. No request is partial: @gmem_partial prints its empty line.
    let expect = "\n\n@barriers[smem]: 2\n@barriers[tile]: 8\n\
                  @flops_f16[smem]: 0\n@flops_f16[tile]: 0\n@flops_f16[vec_add]: 0\n\
                  @flops_f32[smem]: 0\n@flops_f32[tile]: 256\n@flops_f32[vec_add]: 1000\n\
                  @flops_f64[smem]: 0\n@flops_f64[tile]: 0\n@flops_f64[vec_add]: 0\n\
                  @gmem_coalesced[vec_add]: 96\n\n@gmem_scattered[smem]: 2\n\
                  @launches[smem]: 1\n@launches[tile]: 1\n@launches[vec_add]: 1\n\
                  @local_accesses[smem]: 0\n@local_accesses[tile]: 0\n@local_accesses[vec_add]: 0\n\
                  @mma_insts[smem]: 0\n@mma_insts[vec_add]: 0\n@mma_insts[tile]: 8\n";
    assert_eq!(out, expect);
}

#[test]
fn divergence_counts_the_lanes_that_take_each_branch() {
    let out = run(&library_probe("divergence"), &["vec_add", "branchy"]);
    // Warp 0: no lane takes `@%p2 bra`, 24 (tid % 4 != 0) take `@%p1 bra`. Warp 1: 20
    // take the first (tid 44-63), 9 of tid 32-43 the second.
    let mut expect = String::from("\n\n@active[branchy]:\n");
    for active in 9..=24u64 {
        let n = u64::from(matches!(active, 9 | 20 | 24));
        expect.push_str(&bucket(&format!("[{active}, {})", active + 1), n, 1));
    }
    expect.push('\n');
    assert_eq!(out, expect);
}

#[test]
fn dmat_records_each_run_of_a_warp_access() {
    let out = run(&library_probe("dmat"), &["vec_add", "tile"]);
    // One record per run (lanes `bytes` apart), by its lowest lane: (globaltimer, its
    // address, the run's lanes, bytes). vec_add's accesses are coalesced: one run a warp
    // at its loads (sites 13 and 16) and store (20); the interpreter's clock is 100 ×
    // site plus the reading instruction's index (7); the last warp holds lanes 0-7 only. tile: its cp.async (site 4, 16 bytes a
    // lane) is one run; its atomic (site 15) hits one address from every lane, 32 runs
    // of one lane.
    let mut expect = String::from("\n\n");
    let threads: Vec<(u64, u64, u64)> = global_threads().collect();
    for chunk in threads.chunk_by(|a, b| (a.0, a.1) == (b.0, b.1)) {
        let (block, warp, lane) = chunk[0];
        let first = block * 256 + warp * 32 + lane;
        let mask = chunk.iter().fold(0u64, |m, t| m | 1 << t.2);
        for (site, base) in [(13, A), (16, B), (20, C)] {
            let addr = base + 4 * first;
            expect.push_str(&format!("@dmat: ({}, {addr}, {mask}, 4)\n", 100 * site + 7));
        }
    }
    for warp in 0..4u64 {
        let all = u32::MAX;
        let addr = SRC + 16 * 32 * warp;
        expect.push_str(&format!("@dmat: (407, {addr}, {all}, 16)\n"));
        for lane in 0..32 {
            let one = 1u64 << lane;
            expect.push_str(&format!("@dmat: (1507, {COUNTER}, {one}, 4)\n"));
        }
    }
    assert_eq!(out.lines().count(), 2 + 3 * 32 + 33 * 4);
    assert_eq!(out, expect);
}

#[test]
fn memtrace_records_every_access_with_its_place_and_source_line() {
    let out = run(&library_probe("memtrace"), &["vec_add"]);
    // (clock64, globaltimer, smid, block, warp, lane, pc, file, line, addr, bytes,
    // kernel): the clocks are read by IR insns 0 and 1 at sites 13, 16, 20.
    let file = kernel_id(FILE);
    let mut expect = String::from("\n\n");
    let threads: Vec<(u64, u64, u64)> = global_threads().collect();
    for chunk in threads.chunk_by(|a, b| (a.0, a.1) == (b.0, b.1)) {
        for (pc, base) in [(13, A), (16, B), (20, C)] {
            for &(block, warp, lane) in chunk {
                let i = block * 256 + warp * 32 + lane;
                expect.push_str(&format!(
                    "@mem: ({}, {}, {block}, {block}, {warp}, {lane}, {pc}, {file}, 5, {}, 4, vec_add)\n",
                    100 * pc,
                    100 * pc + 1,
                    base + 4 * i
                ));
            }
        }
    }
    assert_eq!(out.lines().count(), 2 + 3 * N as usize);
    assert_eq!(out, expect);
}

#[test]
fn insn_mix_counts_warp_instructions_by_class() {
    let out = run(&library_probe("insn_mix"), &["vec_add", "tile", "branchy"]);
    // vec_add: 31 warps run the in-range path (21 instructions a thread: 7 memory, 6
    // moves, 6 ALU, 1 compare, 1 `ret`). Block 3's warp 7 runs pc 0-8 with 32 lanes (4
    // memory, 3 moves, 1 ALU, 1 compare), then pc 10-21 with lanes 0-7 (3 memory, 3
    // moves, 5 ALU, 1 `ret`) and the `exit` at pc 9 with lanes 8-31: 22 warp
    // instructions. Threads: 1000 × 21 + 24 × 10.
    let vec_add = [
        ("alu", 31 * 6 + 6),
        ("cmp", 31 + 1),
        ("ctrl", 31 + 2),
        ("insns", 31 * 21 + 22),
        ("lanes", 1000 * 21 + 24 * 10),
        ("logic", 0),
        ("mem", 31 * 7 + 7),
        ("move", 31 * 6 + 6),
        ("sfu", 0),
        ("sync", 0),
        ("tensor", 0),
        ("warpop", 0),
    ];
    // tile: 4 warps × (16 instructions: 5 memory (the 2 wmma.loads among them), 2
    // tensor, 2 moves, 2 sync, and one logic, SFU, warp-wide, ALU, control); 128
    // threads × 16.
    let tile = [
        ("alu", 4),
        ("cmp", 0),
        ("ctrl", 4),
        ("insns", 64),
        ("lanes", 128 * 16),
        ("logic", 4),
        ("mem", 20),
        ("move", 8),
        ("sfu", 4),
        ("sync", 8),
        ("tensor", 8),
        ("warpop", 4),
    ];
    // branchy (the interpreter runs a diverged warp's groups one after the other and
    // does not reconverge them: see docs/probes/insn_mix.md), warp 0: pc 0-3 with 32
    // lanes (move, logic, 2 compares); lanes 0, 4, ... 28 run pc 6, pc 7 (2 ALU) and
    // `ret`; the other 24 the `@%p1 bra`, pc 7 and `ret`: 10 warp instructions. Warp 1:
    // pc 0-3; tid 32, 36, 40 run pc 6, 7 and `ret`; 9 of tid 33-43 the `bra`, pc 7 and
    // `ret`; tid 44-63 the `@%p2 bra` and `ret`: 12. Threads: tid >= 44 run 6
    // instructions (pc 0-4, `ret`), the others 7.
    let lanes = (0..64u64)
        .map(|tid| if tid >= 44 { 6 } else { 7 })
        .sum::<u64>();
    let branchy = [
        ("alu", 3 + 3),
        ("cmp", 2 + 2),
        ("ctrl", 3 + 5),
        ("insns", 10 + 12),
        ("lanes", lanes),
        ("logic", 1 + 1),
        ("mem", 0),
        ("move", 1 + 1),
        ("sfu", 0),
        ("sync", 0),
        ("tensor", 0),
        ("warpop", 0),
    ];
    // Maps in name order, each kernel's entries sorted by value (ties by name).
    let mut expect = String::from("\n\n");
    for (i, (class, _)) in vec_add.iter().enumerate() {
        let mut entries = [
            ("branchy", branchy[i].1),
            ("tile", tile[i].1),
            ("vec_add", vec_add[i].1),
        ];
        entries.sort_by_key(|&(k, v)| (v, k));
        for (kernel, v) in entries {
            expect.push_str(&format!("@{class}[{kernel}]: {v}\n"));
        }
    }
    assert_eq!(out, expect);
}

/// The clock-reading IR instructions of probe `p`: its first and last (the span of the
/// probe that `loop_timing` measures as its own cost).
fn clock_span(program: &Program, p: usize) -> (u64, u64) {
    let reads: Vec<u64> = (0..)
        .zip(&program.probes[p].insns)
        .filter(|(_, i)| {
            matches!(
                i,
                Insn::ReadSpecial {
                    special: Special::Clock64,
                    ..
                }
            )
        })
        .map(|(n, _)| n)
        .collect();
    (reads[0], reads[reads.len() - 1])
}

#[test]
fn loop_timing_records_each_iteration_without_the_probes_cost() {
    let program = library_probe("loop_timing");
    let iters = program
        .maps
        .iter()
        .find(|m| m.name == "iters")
        .expect("@iters");
    assert!(
        warptrace_runtime::export::is_timing_map(iters),
        "--trace must draw @iters"
    );
    let out = run(&program, &["nest"]);
    // Each thread's events: entry; per outer iteration the outer header (event 1, 23),
    // `add`, three inner iterations of 6 events (inner header, `add`, the third loop's
    // header, `add` and exit, the latch), the inner exit, the outer latch; the outer exit
    // (event 45). The interpreter's clock is 100 per event; a firing's cost is the span
    // of its clock reads: h at a header, x at an exit. Replayed times are the clock less
    // the cost of every earlier firing, so an inner iteration is 600 − (2h + x) (its own
    // header, the third loop's header and exit), an outer one 2200 − (h + 3(2h + x) + x).
    let (h0, h1) = clock_span(&program, 0);
    let (x0, x1) = clock_span(&program, 1);
    let (h, x) = (h1 - h0, x1 - x0);
    let inner = 600 - (2 * h + x);
    let outer = 2200 - (h + 3 * (2 * h + x) + x);
    let mut expect = String::from("\n\n");
    // The third loop, entered inside two timed ones: counted, 6 headers a warp.
    expect.push_str("@deeper[nest, 3, 13]: 12\n");
    for _warp in 0..2 {
        for o in 0..2 {
            let start = 100 + h0 + o * outer;
            for i in 0..3 {
                // The inner loop starts 2 events after the outer header, less its cost.
                let s = start + 200 - h + i * inner;
                expect.push_str(&format!("@iters: ({s}, {inner}, 0, nest, 2, 12, 1)\n"));
            }
            // Written at the next outer header or the outer exit, after the inner ones.
            expect.push_str(&format!("@iters: ({start}, {outer}, 0, nest, 1, 10, 0)\n"));
        }
    }
    assert_eq!(out, expect);
}

#[test]
fn loop_cycles_sums_each_loop_instance_without_the_probes_cost() {
    let program = library_probe("loop_cycles");
    let out = run(&program, &["nest"]);
    // The events of loop_timing's test; only the costs of the firings differ. The inner
    // loop's instances (2 a warp) are its 3 iterations from header to header or exit,
    // each 600 − (2h + x); the outer loop's (1 a warp) its 2 iterations of
    // 2200 − (h + 3(2h + x) + x). Entries sorted by value.
    let (h0, h1) = clock_span(&program, 0);
    let (x0, x1) = clock_span(&program, 1);
    let (h, x) = (h1 - h0, x1 - x0);
    let inner = 3 * (600 - (2 * h + x));
    let outer = 2 * (2200 - (h + 3 * (2 * h + x) + x));
    let expect = format!(
        "\n\n@cycles[nest, 2, 12, 1]: count 4, average {inner}, total {}\n\
         @cycles[nest, 1, 10, 0]: count 2, average {outer}, total {}\n\n\
         @deeper[nest, 3, 13]: 12\n\
         @iterations[nest, 1, 10, 0]: count 2, average 2, total 4\n\
         @iterations[nest, 2, 12, 1]: count 4, average 3, total 12\n\n",
        4 * inner,
        2 * outer
    );
    assert_eq!(out, expect);
}

#[test]
fn an_edge_leaving_both_loops_ends_both_runs() {
    // break2's events: entry, outer header (event 1), `add`, inner header (3), `add`,
    // inner header (5), `add`, outer exit (7), inner exit (8). Replayed times are
    // 100 × event less the cost of the firings before: h at a header, x at an exit.
    let cycles = library_probe("loop_cycles");
    let (h, x) = (span(&cycles, 0), span(&cycles, 1));
    let outer = 600 - 3 * h; // events 1..7, three headers before the exit
    let inner = (200 - h) + (300 - h - x); // events 3..5, then 5..8 past the outer exit
    let mut by_value = [(inner, "2, 12, 1"), (outer, "1, 10, 0")];
    by_value.sort();
    let mut expect = String::from("\n\n");
    for (v, key) in by_value {
        expect.push_str(&format!(
            "@cycles[break2, {key}]: count 1, average {v}, total {v}\n"
        ));
    }
    // A blank line after a stats map, and the empty @deeper's own line (as bpftrace).
    expect.push_str(
        "\n\n@iterations[break2, 1, 10, 0]: count 1, average 1, total 1\n\
         @iterations[break2, 2, 12, 1]: count 1, average 2, total 2\n\n",
    );
    assert_eq!(run(&cycles, &["break2"]), expect);
    // loop_timing: the inner loop's first iteration, the outer one, the inner's last.
    let timing = library_probe("loop_timing");
    let (h, x) = (span(&timing, 0), span(&timing, 1));
    let expect = format!(
        "\n\n\n@iters: ({}, {}, 0, break2, 2, 12, 1)\n\
         @iters: (100, {}, 0, break2, 1, 10, 0)\n\
         @iters: ({}, {}, 0, break2, 2, 12, 1)\n",
        300 - h,
        200 - h,
        600 - 3 * h,
        500 - 2 * h,
        300 - h - x
    );
    assert_eq!(run(&timing, &["break2"]), expect);
}

/// The span of probe `p`'s clock reads (its measured cost in the interpreter).
fn span(program: &Program, p: usize) -> u64 {
    let (a, b) = clock_span(program, p);
    b - a
}

/// `kernel == "name"` and `kernel != "name"` select kernels by their symbol: blocks counted
/// for `tile` alone, and for every kernel but `tile`.
#[test]
fn kernel_names_compare_as_strings() {
    let compile = |src: &str| {
        warptrace_lang::compile(src, "stdin").unwrap_or_else(|e| panic!("{src}:\n{}", e.render()))
    };
    let first = "kernel:entry /tid.x == 0 && tid.y == 0 && tid.z == 0";
    let kernels = ["vec_add", "tile", "grid2d"];
    let only = compile(&format!(
        "{first} && kernel == \"tile\"/ {{ @b[kernel] = count(); }}"
    ));
    assert_eq!(run(&only, &kernels), "\n\n@b[tile]: 2\n");
    let others = compile(&format!(
        "{first} && \"tile\" != kernel/ {{ @b[kernel] = count(); }}"
    ));
    assert_eq!(
        run(&others, &kernels),
        "\n\n@b[vec_add]: 4\n@b[grid2d]: 6\n"
    );
}
