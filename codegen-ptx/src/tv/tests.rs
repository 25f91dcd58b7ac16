//! Tests of translation validation: the IR terms against the reference interpreter, the
//! PTX semantics on concrete values, every obligation proved, and mutants refuted.

use super::obligations::{self, Obligation, LHIST_PARAMS};
use super::{check, ir, ptx, validate_insn, validate_probe, TvError, TvOutcome};
use warptrace_ir::interp::{alu, extend, Grid, Interpreter, SimKernel};
use warptrace_ir::{array_record_offset, array_rows, LaunchDims, Per, RecordOrigin};
use warptrace_ir::{
    hist_bucket, lhist_bucket, max_encode, min_encode, mix64, Aggregation, BinOp, ExtFrom, Insn,
    MapId, MapLayout, Operand, Program, Reg, Special, SpecialSource, Update, ValueKind, Width,
    WordOp,
};
use z3::ast::{Ast, BV};

/// Edge values and a deterministic pseudo-random spread.
fn samples(n: usize) -> Vec<u64> {
    let mut v: Vec<u64> = vec![
        0,
        1,
        2,
        3,
        31,
        32,
        33,
        63,
        64,
        65,
        0x7f,
        0x80,
        0xff,
        0x8000,
        0xffff,
        0x7fff_ffff,
        0x8000_0000,
        0xffff_ffff,
        0x1_0000_0000,
        i64::MAX as u64,
        i64::MIN as u64,
        u64::MAX,
        u64::MAX - 1,
        (-7i64) as u64,
    ];
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    while v.len() < n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        v.push(x);
        v.push(x >> (x % 64));
    }
    v
}

fn k(v: u64) -> BV {
    BV::from_u64(v, 64)
}

/// `term` with `pairs` substituted, simplified to a numeral.
fn eval(term: &BV, pairs: &[(BV, BV)]) -> Option<u64> {
    let p: Vec<(&BV, &BV)> = pairs.iter().map(|(a, b)| (a, b)).collect();
    term.substitute(&p).simplify().as_u64()
}

fn eval_bool(term: &z3::ast::Bool, pairs: &[(BV, BV)]) -> Option<bool> {
    let p: Vec<(&BV, &BV)> = pairs.iter().map(|(a, b)| (a, b)).collect();
    term.substitute(&p).simplify().as_bool()
}

// ---- the IR side against the interpreter -------------------------------------------

#[test]
fn alu_terms_agree_with_the_interpreter() {
    let (a, b) = (BV::new_const("a", 64), BV::new_const("b", 64));
    let edges = samples(24);
    let spread = samples(80);
    for op in BinOp::ALL {
        for width in [Width::W32, Width::W64] {
            let term = ir::bin(op, width, &a, &b);
            let defined = ir::defined(op, width, &b);
            let pairs = edges
                .iter()
                .flat_map(|&x| edges.iter().map(move |&y| (x, y)))
                .chain(
                    spread
                        .iter()
                        .zip(spread.iter().rev())
                        .map(|(&x, &y)| (x, y)),
                );
            for (x, y) in pairs {
                let at = [(a.clone(), k(x)), (b.clone(), k(y))];
                let oracle = alu(op, width, x, y);
                let ctx = format!("{} {width:?} {x:#x}, {y:#x}", op.mnemonic());
                assert_eq!(eval_bool(&defined, &at), Some(oracle.is_some()), "{ctx}");
                if let Some(v) = oracle {
                    assert_eq!(eval(&term, &at), Some(v), "{ctx}");
                }
            }
        }
    }
}

#[test]
fn ext_terms_agree_with_the_interpreter() {
    let a = BV::new_const("a", 64);
    for from in [ExtFrom::B8, ExtFrom::B16, ExtFrom::B32] {
        for signed in [false, true] {
            let term = ir::ext(&a, from, signed);
            for x in samples(200) {
                assert_eq!(
                    eval(&term, &[(a.clone(), k(x))]),
                    Some(extend(x, from, signed)),
                    "{from:?} signed={signed} {x:#x}"
                );
            }
        }
    }
}

#[test]
fn layout_terms_agree_with_the_ir_functions() {
    let x = BV::new_const("x", 64);
    let hist = ir::hist_bucket(&x);
    let encodings = [false, true].map(|s| (s, ir::min_encode(&x, s), ir::max_encode(&x, s)));
    let mix = ir::mix64(&x);
    let lhists: Vec<_> = LHIST_PARAMS
        .iter()
        .map(|&(lo, hi, st)| ((lo, hi, st), ir::lhist_bucket(&x, lo, hi, st)))
        .collect();
    let mut xs = samples(600);
    for &(lo, hi, _) in &LHIST_PARAMS {
        for v in [
            lo,
            hi,
            lo.wrapping_sub(1),
            hi.wrapping_sub(1),
            hi.wrapping_add(1),
        ] {
            xs.push(v as u64);
        }
    }
    for v in xs {
        let at = [(x.clone(), k(v))];
        assert_eq!(
            eval(&hist, &at),
            Some(u64::from(hist_bucket(v as i64, 0))),
            "hist {v:#x}"
        );
        for (s, min, max) in &encodings {
            assert_eq!(eval(min, &at), Some(min_encode(v, *s)), "min {v:#x}");
            assert_eq!(eval(max, &at), Some(max_encode(v, *s)), "max {v:#x}");
        }
        assert_eq!(eval(&mix, &at), Some(mix64(v)), "mix64 {v:#x}");
        for ((lo, hi, st), term) in &lhists {
            assert_eq!(
                eval(term, &at),
                Some(u64::from(lhist_bucket(v as i64, *lo, *hi, *st))),
                "lhist({lo}, {hi}, {st}) of {}",
                v as i64
            );
        }
    }
    let keys: Vec<BV> = (0..3).map(|i| BV::new_const(format!("k{i}"), 64)).collect();
    for n in 0..=3 {
        let tag = ir::tag(&keys[..n]);
        for w in samples(40).windows(3) {
            let at: Vec<(BV, BV)> = keys
                .iter()
                .zip(w)
                .map(|(c, &v)| (c.clone(), k(v)))
                .collect();
            assert_eq!(eval(&tag, &at), Some(MapLayout::tag(&w[..n])), "tag {w:?}");
        }
    }
}

#[test]
fn word_op_terms_agree_with_update_word_ops() {
    let x = BV::new_const("x", 64);
    let reg = Operand::Reg(Reg(0));
    let mut cases = vec![
        (Aggregation::Count, ValueKind::Count),
        (Aggregation::Sum(reg), ValueKind::Sum { signed: true }),
        (Aggregation::Avg(reg), ValueKind::Avg { signed: false }),
        (Aggregation::Stats(reg), ValueKind::Stats { signed: true }),
        (Aggregation::Hist(reg), ValueKind::Hist),
        (Aggregation::Assign(reg), ValueKind::Value { signed: false }),
    ];
    for signed in [false, true] {
        cases.push((Aggregation::Min(reg), ValueKind::Min { signed }));
        cases.push((Aggregation::Max(reg), ValueKind::Max { signed }));
    }
    for (min, max, step) in LHIST_PARAMS {
        cases.push((Aggregation::Lhist(reg), ValueKind::Lhist { min, max, step }));
    }
    for (agg, value) in cases {
        let ops = ir::word_ops(agg, Some(&x), &value).expect("fits");
        for v in samples(120) {
            let update = Update::new(agg, |_| Ok::<u64, ()>(v)).expect("evaluates");
            let oracle = update.word_ops(&value).expect("fits");
            let at = [(x.clone(), k(v))];
            let got: Vec<(usize, WordOp)> = ops
                .iter()
                .map(|(w, kind, val)| {
                    let w = eval(w, &at).expect("word") as usize;
                    let val = eval(val, &at).expect("value");
                    let op = match kind {
                        ir::WordKind::Add => WordOp::Add(val),
                        ir::WordKind::Max => WordOp::Max(val),
                        ir::WordKind::Exchange => WordOp::Exchange(val),
                    };
                    (w, op)
                })
                .collect();
            assert_eq!(got, oracle, "{agg:?} on {value:?} of {v:#x}");
        }
    }
}

/// The hardware inputs and the computed specials of every thread of a simulated launch,
/// recorded by the interpreter through a ring.
fn interpreter_specials(grid: Grid) -> Vec<Vec<u64>> {
    const READ: [&str; 18] = [
        "tid.x",
        "tid.y",
        "tid.z",
        "ntid.x",
        "ntid.y",
        "ntid.z",
        "ctaid.x",
        "ctaid.y",
        "ctaid.z",
        "nctaid.x",
        "nctaid.y",
        "nctaid.z",
        "lane",
        "activemask",
        "warp",
        "block",
        "thread",
        "active",
    ];
    let fields = vec!["u64"; READ.len()].join(", ");
    let mut text = format!(
        "map @r: ring(capacity = 65536, overflow = drop) -> record({fields})\nprobe 0: kernel:entry\n"
    );
    for (i, name) in READ.iter().enumerate() {
        text.push_str(&format!("  {i}: r{i} = sreg {name}\n"));
    }
    let regs: Vec<String> = (0..READ.len()).map(|i| format!("r{i}")).collect();
    text.push_str(&format!(
        "  {}: map.append @r, ({})\n  {}: exit\n",
        READ.len(),
        regs.join(", "),
        READ.len() + 1
    ));
    let program = Program::parse(&text).expect("parses");
    let store = Interpreter::new(&program)
        .run_kernel(&SimKernel::new("k", |_| vec![]), &grid)
        .expect("runs");
    let map = store.map(MapId(0)).expect("the ring");
    map.records.iter().map(|r| r.fields.clone()).collect()
}

#[test]
fn special_terms_agree_with_the_interpreter() {
    let imms = obligations::site_imms();
    let computed = [
        Special::Warp,
        Special::Block,
        Special::Thread,
        Special::Active,
    ];
    let terms: Vec<_> = computed
        .iter()
        .map(|&sp| ir::special(sp, &imms).expect("lowered"))
        .collect();
    let grids = [
        Grid {
            grid: [3, 2, 2],
            block: [5, 3, 2],
            warp_size: 32,
        },
        Grid {
            grid: [2, 1, 3],
            block: [33, 2, 1],
            warp_size: 32,
        },
        Grid::linear(3, 100),
    ];
    for grid in grids {
        let records = interpreter_specials(grid);
        assert_eq!(
            records.len() as u64,
            grid.blocks() * grid.threads_per_block()
        );
        for f in records {
            let names = [
                "%tid.x",
                "%tid.y",
                "%tid.z",
                "%ntid.x",
                "%ntid.y",
                "%ntid.z",
                "%ctaid.x",
                "%ctaid.y",
                "%ctaid.z",
                "%nctaid.x",
                "%nctaid.y",
                "%nctaid.z",
                "%laneid",
            ];
            let mut at: Vec<(BV, BV)> = names
                .iter()
                .zip(&f)
                .map(|(n, &v)| (ir::hw(n), BV::from_u64(v, 32)))
                .collect();
            at.push((ir::activemask(), BV::from_u64(f[13], 32)));
            for (i, (term, exact)) in terms.iter().enumerate() {
                assert_eq!(
                    eval(term, &at),
                    Some(f[14 + i]),
                    "{:?} at {f:?}",
                    computed[i]
                );
                for e in exact {
                    assert_eq!(eval_bool(e, &at), Some(true), "exact at {f:?}");
                }
            }
            // The hardware assumptions hold for what the interpreter simulates.
            let lanemask = (ir::hw("%lanemask_eq"), BV::from_u64(1 << f[12], 32));
            at.push(lanemask);
            let below = (ir::hw("%lanemask_lt"), BV::from_u64((1 << f[12]) - 1, 32));
            at.push(below);
            for a in ir::hw_assumptions() {
                assert_eq!(eval_bool(&a, &at), Some(true), "assumption at {f:?}");
            }
        }
    }
}

/// The record places of `map.save` (block, rows, row, and the index
/// `((block · rows + row) · slots + s) · slot_bytes`) against the interpreter: each
/// thread (warp leader) saves its hardware registers twice, and the decoded records'
/// origins give the interpreter's `(block, row, slot)`.
#[test]
fn array_terms_agree_with_the_layout_and_the_interpreter() {
    const READ: [&str; 12] = [
        "tid.x", "tid.y", "tid.z", "ntid.x", "ntid.y", "ntid.z", "ctaid.x", "ctaid.y", "ctaid.z",
        "nctaid.x", "nctaid.y", "nctaid.z",
    ];
    let fields = vec!["u64"; READ.len()].join(", ");
    let mut text = format!(
        "map @t: array(per = thread, slots = 3) -> record({fields})\n\
         map @w: array(per = warp, slots = 3) -> record({fields})\n\
         persistent %c\npersistent %d\n"
    );
    let regs: Vec<String> = (0..READ.len()).map(|i| format!("r{i}")).collect();
    let regs = regs.join(", ");
    for (probe, (warp, map, cursor)) in [("", "t", "c"), ("warp ", "w", "d")].iter().enumerate() {
        text.push_str(&format!("probe {probe}: {warp}kernel:entry\n"));
        for (i, name) in READ.iter().enumerate() {
            text.push_str(&format!("  {i}: r{i} = sreg {name}\n"));
        }
        let n = READ.len();
        text.push_str(&format!(
            "  {n}: map.save @{map}, %{cursor}, ({regs})\n  {}: map.save @{map}, %{cursor}, ({regs})\n  {}: exit\n",
            n + 1,
            n + 2
        ));
    }
    let program = Program::parse(&text).expect("parses");
    let layout = MapLayout::new(&program.maps);
    let names = [
        "%tid.x",
        "%tid.y",
        "%tid.z",
        "%ntid.x",
        "%ntid.y",
        "%ntid.z",
        "%ctaid.x",
        "%ctaid.y",
        "%ctaid.z",
        "%nctaid.x",
        "%nctaid.y",
        "%nctaid.z",
    ];
    let grids = [
        Grid {
            grid: [3, 2, 2],
            block: [5, 3, 2],
            warp_size: 32,
        },
        Grid {
            grid: [2, 1, 3],
            block: [33, 2, 1],
            warp_size: 32,
        },
        Grid::linear(3, 64),
        Grid::linear(2, 65),
    ];
    let s = BV::new_const("s", 64);
    for grid in grids {
        let store = Interpreter::new(&program)
            .run_kernel(&SimKernel::new("k", |_| vec![]), &grid)
            .expect("runs");
        let dims = LaunchDims {
            blocks: grid.blocks(),
            threads_per_block: grid.threads_per_block() as u32,
        };
        for (id, per) in [(0, Per::Thread), (1, Per::Warp)] {
            let region = &layout.regions[id];
            let place = ir::array_place(per);
            let index = ir::array_index(&place, 3, region.slot_bytes(), &s);
            let map = store.map(MapId(id as u32)).expect("the array");
            let rows = grid
                .threads_per_block()
                .div_ceil(if per == Per::Warp { 32 } else { 1 });
            assert_eq!(
                map.records.len() as u64,
                grid.blocks() * rows * 2,
                "{per:?} {grid:?}"
            );
            for record in &map.records {
                let RecordOrigin::Array {
                    block, row, slot, ..
                } = record.origin
                else {
                    panic!("not an array record");
                };
                let mut at: Vec<(BV, BV)> = names
                    .iter()
                    .zip(&record.fields)
                    .map(|(n, &v)| (ir::hw(n), BV::from_u64(v, 32)))
                    .collect();
                at.push((s.clone(), k(u64::from(slot))));
                let ctx = format!("{per:?} {grid:?} {:?}", record.origin);
                assert_eq!(eval(&place.block, &at), Some(block), "block {ctx}");
                assert_eq!(eval(&place.row, &at), Some(row), "row {ctx}");
                assert_eq!(
                    eval(&place.rows, &at),
                    Some(array_rows(per, dims.threads_per_block)),
                    "rows {ctx}"
                );
                assert_eq!(
                    eval(&index, &at),
                    array_record_offset(region, dims, block, row, slot),
                    "index {ctx}"
                );
                for e in &place.exact {
                    assert_eq!(eval_bool(e, &at), Some(true), "exact {ctx}");
                }
            }
        }
    }
}

#[test]
fn leader_term_is_the_lowest_active_lane() {
    let leader = ir::is_leader();
    for mask in samples(60)
        .into_iter()
        .map(|m| m as u32)
        .filter(|&m| m != 0)
    {
        for lane in (0..32).filter(|l| mask >> l & 1 == 1) {
            let at = [
                (ir::activemask(), BV::from_u64(u64::from(mask), 32)),
                (ir::hw("%laneid"), BV::from_u64(lane, 32)),
            ];
            assert_eq!(
                eval_bool(&leader, &at),
                Some(lane == u64::from(mask.trailing_zeros())),
                "mask {mask:#x} lane {lane}"
            );
        }
    }
}

// ---- the PTX semantics on concrete values --------------------------------------------

/// Runs `snippet` and evaluates register `reg` at the end with `inputs` bound.
fn run(snippet: &str, inputs: &[(&str, u64)], reg: &str) -> Option<u64> {
    let exec = ptx::run(snippet).expect("in the model");
    let v = exec.reg(reg)?.bv()?.clone();
    let at: Vec<(BV, BV)> = inputs
        .iter()
        .filter_map(|(n, x)| match ptx::input(n)? {
            ptx::Val::Bv(b) => {
                let w = b.get_size();
                Some((b, BV::from_u64(*x, w)))
            }
            ptx::Val::Pred(_) => None,
        })
        .collect();
    eval(&v, &at)
}

#[test]
fn shifts_clamp_at_the_width() {
    let shl = "shl.b32 %r3, %r1, %r2;";
    assert_eq!(
        run(shl, &[("%r1", 3), ("%r2", 31)], "%r3"),
        Some(0x8000_0000)
    );
    assert_eq!(run(shl, &[("%r1", 3), ("%r2", 32)], "%r3"), Some(0));
    assert_eq!(
        run(shl, &[("%r1", 3), ("%r2", 0xffff_ffff)], "%r3"),
        Some(0)
    );
    let sra = "shr.s64 %rd3, %rd1, %r2;";
    let neg = (-8i64) as u64;
    assert_eq!(
        run(sra, &[("%rd1", neg), ("%r2", 1)], "%rd3"),
        Some((-4i64) as u64)
    );
    assert_eq!(
        run(sra, &[("%rd1", neg), ("%r2", 100)], "%rd3"),
        Some(u64::MAX)
    );
    assert_eq!(
        run("shr.u64 %rd3, %rd1, 64;", &[("%rd1", neg)], "%rd3"),
        Some(0)
    );
    assert_eq!(
        run("shr.b16 %rs3, %rs1, 15;", &[("%rs1", 0x8000)], "%rs3"),
        Some(1)
    );
}

#[test]
fn division_is_unspecified_only_where_ptx_leaves_it() {
    let div = "div.s32 %r3, %r1, %r2;";
    let m7 = (-7i32) as u32 as u64;
    assert_eq!(
        run(div, &[("%r1", m7), ("%r2", 2)], "%r3"),
        Some((-3i32) as u32 as u64)
    );
    assert_eq!(run(div, &[("%r1", 7), ("%r2", 0)], "%r3"), None, "by zero");
    assert_eq!(
        run(div, &[("%r1", 0x8000_0000), ("%r2", 0xffff_ffff)], "%r3"),
        None
    );
    let rem = "rem.s32 %r3, %r1, %r2;";
    assert_eq!(
        run(rem, &[("%r1", m7), ("%r2", 2)], "%r3"),
        Some(0xffff_ffff)
    );
    assert_eq!(
        run(
            "rem.u64 %rd3, %rd1, %rd2;",
            &[("%rd1", 7), ("%rd2", 0)],
            "%rd3"
        ),
        None
    );
    assert_eq!(
        run("div.u64 %rd3, %rd1, 3;", &[("%rd1", 10)], "%rd3"),
        Some(3)
    );
}

/// A snippet, its inputs, the register read at the end and its expected value.
type Case = (
    &'static str,
    &'static [(&'static str, u64)],
    &'static str,
    u64,
);

#[test]
fn conversions_multiplications_and_bit_operations() {
    let cases: [Case; 16] = [
        (
            "cvt.s64.s32 %rd1, %r1;",
            &[("%r1", 0x8000_0000)],
            "%rd1",
            0xffff_ffff_8000_0000,
        ),
        (
            "cvt.u64.u32 %rd1, %r1;",
            &[("%r1", 0x8000_0000)],
            "%rd1",
            0x8000_0000,
        ),
        (
            "cvt.u32.u64 %r1, %rd1;",
            &[("%rd1", 0x1_2345_6789)],
            "%r1",
            0x2345_6789,
        ),
        (
            "cvt.u64.u16 %rd1, %rs1;",
            &[("%rs1", 0xffff)],
            "%rd1",
            0xffff,
        ),
        (
            "cvt.s16.s8 %rs2, %rs1;",
            &[("%rs1", 0x0180)],
            "%rs2",
            0xff80,
        ),
        (
            "mul.hi.u64 %rd3, %rd1, %rd2;",
            &[("%rd1", 1 << 63), ("%rd2", 4)],
            "%rd3",
            2,
        ),
        (
            "mul.hi.s32 %r3, %r1, %r2;",
            &[("%r1", 0xffff_ffff), ("%r2", 2)],
            "%r3",
            0xffff_ffff,
        ),
        (
            "mul.wide.s32 %rd3, %r1, %r2;",
            &[("%r1", 0xffff_ffff), ("%r2", 3)],
            "%rd3",
            (-3i64) as u64,
        ),
        (
            "mul.wide.u32 %rd3, %r1, %r2;",
            &[("%r1", 0xffff_ffff), ("%r2", 3)],
            "%rd3",
            0x2_ffff_fffd,
        ),
        (
            "mad.lo.s32 %r4, %r1, %r2, %r3;",
            &[("%r1", 3), ("%r2", 5), ("%r3", 7)],
            "%r4",
            22,
        ),
        (
            "bfe.s64 %rd2, %rd1, 0, 8;",
            &[("%rd1", 0x80)],
            "%rd2",
            (-128i64) as u64,
        ),
        ("bfe.u32 %r2, %r1, 4, 8;", &[("%r1", 0xabcd)], "%r2", 0xbc),
        ("clz.b64 %r1, %rd1;", &[("%rd1", 0)], "%r1", 64),
        ("clz.b32 %r2, %r1;", &[("%r1", 0x0001_0000)], "%r2", 15),
        ("popc.b32 %r2, %r1;", &[("%r1", 0xf0f0)], "%r2", 8),
        (
            "min.s64 %rd3, %rd1, %rd2;",
            &[("%rd1", u64::MAX), ("%rd2", 1)],
            "%rd3",
            u64::MAX,
        ),
    ];
    for (text, inputs, reg, want) in cases {
        assert_eq!(run(text, inputs, reg), Some(want), "{text}");
    }
}

#[test]
fn predicates_select_and_forward_branches_merge() {
    let select = "setp.lt.s32 %p1, %r1, %r2;\n\tselp.b32 %r3, 10, 20, %p1;";
    assert_eq!(
        run(select, &[("%r1", 0xffff_ffff), ("%r2", 0)], "%r3"),
        Some(10)
    );
    let select = "setp.lo.u32 %p1, %r1, %r2;\n\tselp.b32 %r3, 10, 20, %p1;";
    assert_eq!(
        run(select, &[("%r1", 0xffff_ffff), ("%r2", 0)], "%r3"),
        Some(20)
    );
    let guarded =
        "setp.eq.u32 %p1, %r1, 0;\n\t@%p1 add.s32 %r2, %r2, 1;\n\t@!%p1 sub.s32 %r2, %r2, 1;";
    assert_eq!(run(guarded, &[("%r1", 0), ("%r2", 5)], "%r2"), Some(6));
    assert_eq!(run(guarded, &[("%r1", 1), ("%r2", 5)], "%r2"), Some(4));
    let diamond = "setp.ne.u32 %p1, %r1, 0;\n\t@%p1 bra $T;\n\tmov.u32 %r2, 7;\n\tbra $E;\n$T:\n\tmov.u32 %r2, 9;\n$E:\n\tadd.s32 %r2, %r2, 1;";
    assert_eq!(run(diamond, &[("%r1", 0)], "%r2"), Some(8));
    assert_eq!(run(diamond, &[("%r1", 3)], "%r2"), Some(10));
}

#[test]
fn loads_are_effects_with_fresh_values() {
    let text = "ld.global.u64 %rd1, [%rd2+8];\n\tadd.s64 %rd3, %rd1, 1;\n\t@%p1 ld.global.u32 %r1, [%rd2];";
    let exec = ptx::run(text).expect("in the model");
    let ops: Vec<&str> = exec.effects.iter().map(|e| e.op.as_str()).collect();
    assert_eq!(ops, ["ld.global.u64", "ld.global.u32"]);
    let at = [(BV::new_const("%rd2", 64), k(0x100))];
    let addr = |i: usize| exec.effects[i].addr.as_ref().and_then(|a| eval(a, &at));
    assert_eq!((addr(0), addr(1)), (Some(0x108), Some(0x100)));
    let ld0 = BV::new_const("ld#0", 64);
    assert!(exec.effects[0].result.as_ref() == Some(&ld0));
    assert!(exec.effects[1].result.as_ref() == Some(&BV::new_const("ld#1", 32)));
    assert!(
        run(text, &[("%rd2", 0)], "%rd3").is_none(),
        "depends on memory"
    );
    let rd3 = exec.reg("%rd3").and_then(|v| v.bv().cloned()).expect("rd3");
    assert_eq!(eval(&rd3, &[(ld0, k(41))]), Some(42));
    // Predicated: the guard is the effect's, the register keeps its value otherwise.
    let p1 = z3::ast::Bool::new_const("%p1");
    assert_eq!(exec.effects[1].guard.simplify().to_string(), p1.to_string());
    assert_eq!(exec.effects[0].guard.simplify().as_bool(), Some(true));
    assert!(run(text, &[("%r1", 5)], "%r1").is_none(), "depends on %p1");
    let r1 = exec.reg("%r1").and_then(|v| v.bv().cloned()).expect("r1");
    let at = [
        (BV::new_const("ld#1", 32), BV::from_u64(7, 32)),
        (BV::new_const("%r1", 32), BV::from_u64(5, 32)),
    ];
    let with = |p: bool| {
        let p1 = (z3::ast::Bool::new_const("%p1"), z3::ast::Bool::from_bool(p));
        r1.substitute(&[(&p1.0, &p1.1)])
    };
    assert_eq!(eval(&with(true), &at), Some(7));
    assert_eq!(eval(&with(false), &at), Some(5));
}

#[test]
fn text_outside_the_model_is_rejected() {
    let bad = [
        ("$L:\n\tbra $L;", "backward branch"),
        ("bra $nowhere;", "branch out of the snippet"),
        (
            "add.s32 %r1, %rd1, %r2;",
            "64-bit register in a 32-bit operation",
        ),
        (
            "add.s32 %r1, %r1, 0x100000000;",
            "immediate wider than the type",
        ),
        ("brev.b32 %r1, %r2;", "instruction outside the subset"),
        ("selp.b32 %r1, 1, 0, !%p1;", "negated predicate operand"),
        ("add.sat.s32 %r1, %r1, 1;", "saturation"),
        ("setp.lt.b32 %p1, %r1, %r2;", "ordered comparison of bits"),
        ("mov.u32 %tid.x, 1;", "write to a special register"),
        ("ld.shared.u64 %rd1, [%rd2];", "a load from shared memory"),
        ("ld.global.v2.u64 {%rd1, %rd3}, [%rd2];", "a vector load"),
        (
            "ld.global.u64 %rd1, [%rd2], 1;",
            "a load with a value operand",
        ),
        (
            "ld.global.u64 %r1, [%rd2];",
            "a 64-bit load into a 32-bit register",
        ),
    ];
    for (text, why) in bad {
        assert!(ptx::run(text).is_err(), "{why}: `{text}` accepted");
    }
}

// ---- obligations ---------------------------------------------------------------------

fn obligation(name: &str) -> Obligation {
    obligations::all()
        .into_iter()
        .find(|o| o.name == name)
        .unwrap_or_else(|| panic!("no obligation `{name}`"))
}

fn emitted(name: &str) -> String {
    obligation(name).emit().expect("the back end lowers it")
}

#[test]
fn each_family_is_present_and_names_are_stable() {
    let names = super::obligation_names();
    for prefix in [
        "mov.", "bin.", "ext.", "sreg.", "persist.", "site.", "control.", "agg.", "hash.", "ring.",
        "array.",
    ] {
        assert!(names.iter().any(|n| n.starts_with(prefix)), "{prefix}");
    }
    for name in [
        "bin.div.u.w32.reg-reg",
        "bin.shl.w64.reg-imm.65",
        "bin.div.s.w64.imm-imm.-9223372036854775808.-1",
        "ext.sext.8.reg",
        "sreg.thread",
        "sreg.warp-leader",
        "agg.lhist.0.100.10.reg",
        "hash.k2.reg.cap4096",
        "ring.overwrite.cap1000.f3.mixed",
        "ring.drop.latched.cap1000.f3.mixed",
        "ring.flush",
        "sreg.launch",
        "array.warp.leader.slots3.f3.mixed",
        "array.thread.every.slots4294967295.f2.reg-imm",
        "array.warp.probe.warp.slots4096.f3.mixed",
    ] {
        assert!(names.iter().any(|n| n == name), "{name}");
    }
    // Specials: the back end lowers every one a device probe may read.
    for sp in Special::ALL
        .into_iter()
        .filter(|sp| sp.source() != SpecialSource::Host)
    {
        assert!(
            names.contains(&format!("sreg.{}", sp.name())),
            "{}",
            sp.name()
        );
    }
}

/// `(obligation, text to find in the emitted PTX, replacement)`: each mutant must be
/// refuted with a counterexample.
const MUTANTS: &[(&str, &str, &str)] = &[
    // Home slots: the load's tag test inverted (a slot with another tag would be added
    // to), or the load read from the wrong slot.
    (
        "hash.home.k1.imm.cap8",
        "ld.global.cg.u64 %__wt_t4, [%__wt_t2];\n\tsetp.eq.u64",
        "ld.global.cg.u64 %__wt_t4, [%__wt_t2];\n\tsetp.ne.u64",
    ),
    (
        "hash.home.k1.imm.cap8",
        "ld.global.cg.u64 %__wt_t4, [%__wt_t2]",
        "ld.global.cg.u64 %__wt_t4, [%__wt_t2+8]",
    ),
    // Warp-wide values: another sector size, the lane's own bit instead of the lower
    // lanes, another group count, a minimum, the groups left out, another unit.
    ("site.sectors.r64.off8", "%__wt_t0, 5;", "%__wt_t0, 4;"),
    ("site.sectors.r32.off-4", "%lanemask_lt", "%lanemask_eq"),
    ("site.wavefronts.b4", "%__wt_s2, 31;", "%__wt_s2, 15;"),
    ("site.wavefronts.b4", "redux.sync.max", "redux.sync.min"),
    (
        "site.wavefronts.b8",
        "and.b32 %__wt_s1, %__wt_s1, %__wt_s2;",
        "mov.b32 %__wt_s1, %__wt_s1;",
    ),
    ("site.wavefronts.b16", "%__wt_t0, 4;", "%__wt_t0, 2;"),
    // `run`: another width, the lane's offset added, the lane id of another register.
    ("site.run.b4", "%__wt_s1, 4;", "%__wt_s1, 8;"),
    ("site.run.r32.b16", "sub.s64 %__wt_t0", "add.s64 %__wt_t0"),
    (
        "site.run.b4",
        "mov.u32 %__wt_s1, %laneid",
        "mov.u32 %__wt_s1, %tid.x",
    ),
    (
        "bin.sub.w64.reg-reg",
        "sub.s64 %__wt_r2, %__wt_r0, %__wt_r1",
        "sub.s64 %__wt_r2, %__wt_r1, %__wt_r0",
    ),
    ("bin.shr.u.w64.reg-reg", "shr.u64", "shr.s64"),
    ("bin.shr.s.w32.reg-reg", "shr.s32", "shr.u32"),
    ("bin.lt.u.w64.reg-reg", "setp.lt.u64", "setp.lt.s64"),
    ("bin.ge.s.w32.reg-imm.-1", "setp.ge.s32", "setp.gt.s32"),
    // A missing truncation (the 32-bit operand read uninitialised) and a missing
    // widening (the result never written back).
    ("bin.add.w32.reg-reg", "cvt.u32.u64 %__wt_s0, %__wt_r0;", ""),
    ("bin.add.w32.reg-reg", "cvt.u64.u32 %__wt_r2, %__wt_s2;", ""),
    // Signed instead of zero extension of a 32-bit result.
    ("bin.sub.w32.reg-reg", "cvt.u64.u32", "cvt.s64.s32"),
    // The shift amount not masked: PTX clamps amounts >= 64, the IR takes them mod 64.
    ("bin.shl.w64.reg-reg", "and.b32 %__wt_s1, %__wt_s1, 63;", ""),
    (
        "bin.shr.s.w32.reg-reg",
        "and.b32 %__wt_s1, %__wt_s1, 31;",
        "",
    ),
    ("bin.shl.w32.reg-imm.33", "%__wt_s0, 1;", "%__wt_s0, 33;"),
    ("bin.mul.w64.reg-imm.-1", "mul.lo.s64", "mul.hi.s64"),
    ("bin.rem.u.w64.reg-reg", "rem.u64", "rem.s64"),
    ("bin.div.u.w32.imm-reg.4294967295", "div.u32", "div.s32"),
    (
        "bin.eq.w64.reg-imm.4294967296",
        "0x0000000100000000",
        "0x0000000000000000",
    ),
    ("ext.sext.8.reg", "bfe.s64", "bfe.u64"),
    ("ext.zext.32.reg", ", 32;", ", 31;"),
    ("mov.imm.-1", "0xFFFFFFFFFFFFFFFF", "0xFFFFFFFF"),
    ("persist.store.reg", "%__wt_x1", "%__wt_x0"),
    (
        "agg.hist.reg",
        "sub.u32 %__wt_s0, 65,",
        "sub.u32 %__wt_s0, 64,",
    ),
    ("agg.hist.reg", "setp.lt.s64", "setp.le.s64"),
    ("agg.lhist.0.100.10.reg", "setp.lt.s64", "setp.lt.u64"),
    // Signed division of x - min, which exceeds 2^63 over this range.
    (
        "agg.lhist.-9223372036854775808.9223372036854775807.3.reg",
        "div.u64",
        "div.s64",
    ),
    ("agg.min.s.reg", "not.b64 %__wt_t0, %__wt_t0;", ""),
    ("agg.max.s.reg", "0x8000000000000000", "0x0000000000000000"),
    (
        "agg.avg.reg",
        "[%__wt_t2+32], %__wt_r0",
        "[%__wt_t2+24], %__wt_r0",
    ),
    (
        "agg.assign.reg",
        "atom.global.exch.b64",
        "atom.global.add.u64",
    ),
    (
        "hash.k1.reg.cap4096",
        "0xBF58476D1CE4E5B9",
        "0xBF58476D1CE4E5B8",
    ),
    (
        "hash.k1.reg.cap4096",
        "and.b64 %__wt_t1, %__wt_t0, 4095",
        "and.b64 %__wt_t1, %__wt_t0, 2047",
    ),
    (
        "hash.k2.reg.cap8",
        "[%__wt_t2], 0, %__wt_t0",
        "[%__wt_t2], %__wt_t0, 0",
    ),
    (
        "hash.k1.reg.cap1000",
        "rem.u64 %__wt_t1, %__wt_t1, 1000",
        "rem.u64 %__wt_t1, %__wt_t0, 1000",
    ),
    (
        "hash.k2.reg.cap8",
        "[%__wt_t2+16], %__wt_r1",
        "[%__wt_t2+16], %__wt_r0",
    ),
    ("sreg.warp-leader", "neg.s32", "not.b32"),
    ("sreg.warp", "%__wt_s0, 5;", "%__wt_s0, 6;"),
    (
        "sreg.block",
        "mad.lo.u32 %__wt_s0, %__wt_s2, %__wt_s1, %__wt_s3",
        "mad.lo.u32 %__wt_s0, %__wt_s3, %__wt_s1, %__wt_s2",
    ),
    ("sreg.active", "popc.b32", "clz.b32"),
    ("sreg.clock64", "%clock64", "%globaltimer"),
    ("site.value.r32.e8", "0xFF", "0x1FF"),
    ("site.addr.r32.off-4", "cvt.u64.u32", "cvt.s64.s32"),
    ("control.jz", "setp.eq.u64", "setp.ne.u64"),
    ("control.guarded-site", "@!%p9 bra $__wt_1_end;", ""),
    ("ring.drop.cap1024.f1.reg", "setp.ge.u64", "setp.gt.u64"),
    (
        "ring.overwrite.cap1000.f3.mixed",
        "add.s64 %__wt_t4, %__wt_t0, 1",
        "add.s64 %__wt_t4, %__wt_t0, 0",
    ),
    ("ring.overwrite.cap1000.f3.mixed", "fence.acq_rel.gpu;", ""),
    // Latched drops: a latched thread that still appends, a drop not counted, the count
    // flushed whether or not there is one, or one too many.
    (
        "ring.drop.latched.cap1024.f3.mixed",
        "@%__wt_p0 bra $__wt_1_a0_dropped;",
        "",
    ),
    (
        "ring.drop.latched.cap1024.f1.reg",
        "add.u64 %__wt_d0, %__wt_d0, 1;",
        "",
    ),
    (
        "ring.drop.latched.cap0.f1.reg",
        "%__wt_d0, 1;",
        "%__wt_d0, 2;",
    ),
    ("ring.flush", "@%__wt_p0 red", "red"),
    ("ring.flush", "], %__wt_d0", "], 1"),
    // Warp-combined updates: the count of another (here unset) mask, a leader that is
    // not the lowest lane (none at all, every other lane), one added per group.
    (
        "warp.count.k1.reg.cap4096",
        "popc.b32 %__wt_s1, %__wt_s0",
        "popc.b32 %__wt_s1, %__wt_s2",
    ),
    ("warp.count.k1.reg.cap4096", "neg.s32", "not.b32"),
    (
        "warp.count.k0.cap4096",
        "setp.ne.u32 %__wt_p0, %__wt_s1, %__wt_s2",
        "setp.eq.u32 %__wt_p0, %__wt_s1, %__wt_s2",
    ),
    (
        "warp.count.k0.cap4096",
        "[%__wt_t2+8], %__wt_t8",
        "[%__wt_t2+8], 1",
    ),
    // A drop counted once per group, not once per lane.
    (
        "warp.count.k1.imm.cap1000",
        "[%__wt_base+0], %__wt_t8",
        "[%__wt_base+0], 1",
    ),
    // A uniform sum not multiplied by the lane count.
    (
        "warp.sum.uniform.reg",
        "mul.lo.u64 %__wt_t7, %__wt_t8, %__wt_r1",
        "mov.b64 %__wt_t7, %__wt_r1",
    ),
    // Limbs: recombined off by a shift, a limb one bit short, masks that disagree
    // ignored, the group's mask (count, leader) kept when they disagree.
    (
        "warp.sum.lanes.reg",
        "shl.b64 %__wt_t9, %__wt_t9, 44",
        "shl.b64 %__wt_t9, %__wt_t9, 43",
    ),
    (
        "warp.sum.lanes.reg",
        "and.b32 %__wt_s1, %__wt_s1, 4194303",
        "and.b32 %__wt_s1, %__wt_s1, 2097151",
    ),
    (
        "warp.avg.lanes.reg",
        "xor.b32 %__wt_s3, %__wt_s0, %__wt_s2",
        "xor.b32 %__wt_s3, %__wt_s2, %__wt_s2",
    ),
    (
        "warp.stats.lanes.reg",
        "@%__wt_p0 mov.u32 %__wt_s0, %lanemask_eq;",
        "",
    ),
    // Halves: the low halves of the lanes below the maximum (compared the other way,
    // selected the other way).
    (
        "warp.max.u.lanes.reg",
        "setp.eq.u32 %__wt_p0, %__wt_s1, %__wt_s4",
        "setp.ne.u32 %__wt_p0, %__wt_s1, %__wt_s4",
    ),
    (
        "warp.min.s.lanes.reg",
        "selp.b32 %__wt_s1, %__wt_s1, 0, %__wt_p0",
        "selp.b32 %__wt_s1, 0, %__wt_s1, %__wt_p0",
    ),
    // `sreg launch`: another word, and no load at all.
    ("sreg.launch", "[%__wt_base+288]", "[%__wt_base+280]"),
    (
        "sreg.launch",
        "ld.global.u64 %__wt_r0, [%__wt_base+288];",
        "mov.b64 %__wt_r0, 0;",
    ),
    ("sreg.launch.guarded-site", "@!%p9 bra $__wt_1_end;", ""),
    // `map.save`: rows of a per-warp array off by one (not rounded up, one too many), the
    // thread's row instead of its warp's, a per-thread row divided by 32.
    ARRAY_ROWS_TOO_FEW,
    (
        "array.warp.leader.slots3.f3.mixed",
        "add.u32 %__wt_s1, %__wt_s1, 31;",
        "",
    ),
    (
        "array.warp.leader.slots3.f3.mixed",
        "add.u32 %__wt_s1, %__wt_s1, 31;",
        "add.u32 %__wt_s1, %__wt_s1, 32;",
    ),
    (
        "array.warp.leader.slots3.f3.mixed",
        "shr.u32 %__wt_s0, %__wt_s0, 5;",
        "",
    ),
    (
        "array.thread.every.slots4096.f1.reg",
        "cvt.u64.u32 %__wt_t2, %__wt_s0;",
        "shr.u32 %__wt_s0, %__wt_s0, 5;\n\tcvt.u64.u32 %__wt_t2, %__wt_s0;",
    ),
    // The linear block in 32 bits (wraps for large grids), its terms swapped.
    (
        "array.thread.every.slots4096.f1.reg",
        "mul.wide.u32 %__wt_t0, %__wt_s2, %__wt_s1;",
        "mul.lo.u32 %__wt_s1, %__wt_s2, %__wt_s1;\n\tcvt.u64.u32 %__wt_t0, %__wt_s1;",
    ),
    (
        "array.warp.leader.slots3.f3.mixed",
        "mad.lo.u32 %__wt_s1, %__wt_s1, %__wt_s2, %__wt_s3;",
        "mad.lo.u32 %__wt_s1, %__wt_s3, %__wt_s2, %__wt_s1;",
    ),
    // Record size, the bound, a field at the wrong word, a field or `seq` not stored.
    (
        "array.warp.leader.slots3.f3.mixed",
        "mul.lo.u64 %__wt_t0, %__wt_t0, 32;",
        "mul.lo.u64 %__wt_t0, %__wt_t0, 24;",
    ),
    (
        "array.warp.leader.slots3.f3.mixed",
        "setp.ge.u64",
        "setp.gt.u64",
    ),
    (
        "array.warp.leader.slots3.f3.mixed",
        "[%__wt_t1+24], %__wt_r2",
        "[%__wt_t1+16], %__wt_r2",
    ),
    (
        "array.warp.leader.slots3.f3.mixed",
        "\tst.global.u64 [%__wt_t1+16], 7;\n",
        "",
    ),
    (
        "array.warp.leader.slots3.f3.mixed",
        "\tst.global.u64 [%__wt_t1], %__wt_t3;\n",
        "",
    ),
    // `seq` written before the fields, or as `s`.
    ARRAY_SEQ_FIRST,
    (
        "array.warp.leader.slots3.f3.mixed",
        "st.global.u64 [%__wt_t1], %__wt_t3;",
        "st.global.u64 [%__wt_t1], %__wt_t4;",
    ),
    // The cursor advanced on a drop too.
    ARRAY_CURSOR_ALWAYS,
    // The offset word ignored, or read from the `launch` word.
    (
        "array.warp.leader.slots3.f3.mixed",
        "add.s64 %__wt_t1, %__wt_base, %__wt_t2;",
        "mov.b64 %__wt_t1, %__wt_base;",
    ),
    (
        "array.thread.every.slots4096.f1.reg",
        "[%__wt_base+56]",
        "[%__wt_base+64]",
    ),
    // The taken check missing or inverted (per warp).
    (
        "array.warp.leader.slots3.f3.mixed",
        "\t@%__wt_p0 bra $__wt_1_a0_drop;\n\tst.global.u64 [%__wt_t1+8]",
        "\tst.global.u64 [%__wt_t1+8]",
    ),
    (
        "array.warp.leader.slots3.f3.mixed",
        "setp.ne.u64",
        "setp.eq.u64",
    ),
    // A non-writer that stores, or counts drops; another map's drop counter.
    (
        "array.warp.leader.slots3.f3.mixed",
        "\t@!%__wt_p1 bra $__wt_1_a0_done;\n\tmov.u32",
        "\tmov.u32",
    ),
    (
        "array.warp.leader.slots3.f3.mixed",
        "drop:\n\t@!%__wt_p1 bra $__wt_1_a0_done;\n",
        "drop:\n",
    ),
    (
        "array.thread.leader.slots1.f1.reg",
        "[%__wt_base+8]",
        "[%__wt_base+0]",
    ),
    // In a `warp` probe, the leader skip around the whole save: the other lanes' cursors
    // would not advance.
    (
        "array.warp.probe.warp.slots4096.f3.mixed",
        "\tsetp.ge.u64 %__wt_p0, %__wt_x3, 4096;",
        "\t@!%__wt_p1 bra $__wt_1_a0_done;\n\tsetp.ge.u64 %__wt_p0, %__wt_x3, 4096;",
    ),
];

/// A per-warp array's rows rounded up with `+ 30`: one too few when the block's threads
/// are one more than a multiple of 32.
const ARRAY_ROWS_TOO_FEW: (&str, &str, &str) = (
    "array.warp.every.slots1.f1.reg",
    "add.u32 %__wt_s1, %__wt_s1, 31;",
    "add.u32 %__wt_s1, %__wt_s1, 30;",
);

/// `seq = s + 1` stored before the fields.
const ARRAY_SEQ_FIRST: (&str, &str, &str) = (
    "array.warp.leader.slots3.f3.mixed",
    "\tst.global.u64 [%__wt_t1+8], %__wt_r0;\n\tst.global.u64 [%__wt_t1+16], 7;\n\tst.global.u64 [%__wt_t1+24], %__wt_r2;\n\tadd.s64 %__wt_t3, %__wt_t4, 1;\n\tst.global.u64 [%__wt_t1], %__wt_t3;\n",
    "\tadd.s64 %__wt_t3, %__wt_t4, 1;\n\tst.global.u64 [%__wt_t1], %__wt_t3;\n\tst.global.u64 [%__wt_t1+8], %__wt_r0;\n\tst.global.u64 [%__wt_t1+16], 7;\n\tst.global.u64 [%__wt_t1+24], %__wt_r2;\n",
);

/// The cursor advanced before the bound is checked: also on a drop.
const ARRAY_CURSOR_ALWAYS: (&str, &str, &str) = (
    "array.thread.leader.slots3.f2.reg-imm",
    "\tsetp.ge.u64 %__wt_p0, %__wt_x3, 3;\n\t@%__wt_p0 bra $__wt_1_a0_drop;\n\tmov.b64 %__wt_t4, %__wt_x3;\n\tadd.s64 %__wt_x3, %__wt_x3, 1;\n",
    "\tmov.b64 %__wt_t4, %__wt_x3;\n\tadd.s64 %__wt_x3, %__wt_x3, 1;\n\tsetp.ge.u64 %__wt_p0, %__wt_t4, 3;\n\t@%__wt_p0 bra $__wt_1_a0_drop;\n",
);

#[test]
fn mutants_are_refuted_with_a_counterexample() {
    for &(name, find, replace) in MUTANTS {
        let ob = obligation(name);
        let text = ob.emit().expect("emits");
        assert!(text.contains(find), "{name}: `{find}` not in\n{text}");
        let mutant = text.replacen(find, replace, 1);
        match check::check(&ob, &mutant) {
            TvOutcome::Refuted { counterexample } => {
                assert!(!counterexample.is_empty(), "{name}");
            }
            other => panic!("{name}: mutant `{find}` -> `{replace}` gave {other:?}\n{mutant}"),
        }
    }
}

#[test]
fn a_32_bit_sequence_does_not_implement_a_64_bit_operation() {
    for op in ["add", "mul", "shl", "div.u", "lt.s"] {
        let w64 = obligation(&format!("bin.{op}.w64.reg-reg"));
        let w32_text = emitted(&format!("bin.{op}.w32.reg-reg"));
        assert!(
            matches!(check::check(&w64, &w32_text), TvOutcome::Refuted { .. }),
            "{op}"
        );
    }
}

#[test]
fn ill_typed_or_unmodelled_text_is_invalid_not_proved() {
    let ob = obligation("bin.add.w64.reg-reg");
    let text = emitted("bin.add.w64.reg-reg").replace("add.s64", "add.s32");
    assert!(matches!(
        check::check(&ob, &text),
        TvOutcome::Invalid { .. }
    ));
    let text = format!(
        "{}\tld.shared.u64 %__wt_r2, [%__wt_r0];\n",
        emitted("bin.add.w64.reg-reg")
    );
    assert!(matches!(
        check::check(&ob, &text),
        TvOutcome::Invalid { .. }
    ));
    // A global load is modelled: in a pure body it is a memory operation too many.
    let text = format!(
        "{}\tld.global.u64 %__wt_r3, [%__wt_r0];\n",
        emitted("bin.add.w64.reg-reg")
    );
    assert!(matches!(
        check::check(&ob, &text),
        TvOutcome::Refuted { .. }
    ));
}

/// Regression: before translation validation, `div.s`/`rem.s` were lowered to a bare
/// `div.s64`/`rem.s64` (`.s32`), whose result PTX leaves unspecified for the most
/// negative value divided by -1; the IR defines it (wrapping). The back end now handles
/// a divisor of -1 without dividing.
#[test]
fn signed_division_by_minus_one_is_defined() {
    let cases = [
        ("bin.div.s.w64.reg-reg", "div.s64 %__wt_r2, %__wt_r0, %__wt_r1;\n"),
        ("bin.rem.s.w64.reg-reg", "rem.s64 %__wt_r2, %__wt_r0, %__wt_r1;\n"),
        (
            "bin.div.s.w32.reg-reg",
            "cvt.u32.u64 %__wt_s0, %__wt_r0;\ncvt.u32.u64 %__wt_s1, %__wt_r1;\ndiv.s32 %__wt_s2, %__wt_s0, %__wt_s1;\ncvt.u64.u32 %__wt_r2, %__wt_s2;\n",
        ),
        ("bin.div.s.w64.reg-imm.-1", "mov.b64 %__wt_t6, 0xFFFFFFFFFFFFFFFF;\ndiv.s64 %__wt_r2, %__wt_r0, %__wt_t6;\n"),
    ];
    for (name, old) in cases {
        let ob = obligation(name);
        match check::check(&ob, old) {
            TvOutcome::Refuted { counterexample } => {
                // The counterexample is the most negative value over -1.
                assert!(
                    counterexample.contains("80000000"),
                    "{name}: {counterexample}"
                );
            }
            other => panic!("{name}: the old lowering gave {other:?}"),
        }
        let now = ob.emit().expect("emits");
        assert!(
            !now.contains("div.s64 %__wt_r2, %__wt_r0, %__wt_t6"),
            "{now}"
        );
        assert_eq!(check::check(&ob, &now), TvOutcome::Proved, "{name}:\n{now}");
    }
}

#[test]
fn validate_insn_and_probe() {
    let insn = Insn::Bin {
        op: BinOp::RemS,
        width: Width::W32,
        dst: Reg(3),
        a: Operand::Reg(Reg(3)),
        b: Operand::Reg(Reg(4)),
    };
    let r = validate_insn(&insn).expect("in the subset");
    assert_eq!(r.outcome, TvOutcome::Proved, "{}", r.name);
    let body = vec![
        Insn::ReadSpecial {
            dst: Reg(0),
            special: Special::Thread,
        },
        Insn::Bin {
            op: BinOp::ShrU,
            width: Width::W64,
            dst: Reg(1),
            a: Operand::Reg(Reg(0)),
            b: Operand::Imm(5),
        },
        Insn::Branch {
            cond: Reg(1),
            if_zero: true,
            target: 4,
        },
        Insn::Ext {
            dst: Reg(1),
            src: Operand::Reg(Reg(0)),
            from: ExtFrom::B16,
            signed: true,
        },
        Insn::Exit,
    ];
    let r = validate_probe("probe", &body).expect("in the subset");
    assert_eq!(r.outcome, TvOutcome::Proved);
    let with_map = vec![
        Insn::MapUpdate {
            map: MapId(0),
            keys: vec![],
            agg: Aggregation::Count,
        },
        Insn::Exit,
    ];
    assert!(matches!(
        validate_probe("map", &with_map),
        Err(TvError::Subset(_))
    ));
}

#[test]
fn results_serialize() {
    let r = super::TvResult {
        name: "bin.add.w64.reg-reg".into(),
        outcome: TvOutcome::Refuted {
            counterexample: "r2 fails".into(),
        },
        micros: 12,
    };
    let json = serde_json_like(&r);
    assert!(json.contains("refuted"), "{json}");
}

/// A minimal serializer check without a JSON dependency: the derive produces the
/// `outcome` tag through `toml` (already a dependency).
fn serde_json_like(r: &super::TvResult) -> String {
    toml::to_string(r).unwrap_or_else(|e| e.to_string())
}

// ---- the warp model ------------------------------------------------------------------

#[test]
fn redux_sums_each_lane_s_own_value() {
    let text = emitted("warp.sum.lanes.reg");
    let exec = super::ptx::run_warp(&text).expect("in the warp model");
    let t7 = exec
        .reg("%__wt_t7")
        .and_then(|v| v.bv().cloned())
        .expect("t7");
    let warp = exec.warp.as_ref().expect("warp facts");
    assert_eq!(warp.masks.len(), 3, "one mask per reduction");
    let x = 0x1c65_72d2_58db_d2fbu64;
    // Every lane active and the masks agreeing; lane j holds x * (j + 1), lane 0 runs.
    let mut pairs: Vec<(BV, BV)> = warp
        .masks
        .iter()
        .map(|m| (m.clone(), BV::from_u64(0xFFFF_FFFF, 32)))
        .collect();
    let mut want = 0u64;
    for j in 0..32u64 {
        let v = x.wrapping_mul(j + 1);
        want = want.wrapping_add(v);
        pairs.push((BV::new_const(format!("%__wt_r1@{j}"), 64), k(v)));
    }
    pairs.push((BV::new_const("%__wt_r1", 64), k(x)));
    pairs.push((BV::new_const("%laneid", 32), BV::from_u64(0, 32)));
    let p: Vec<(&BV, &BV)> = pairs.iter().map(|(a, b)| (a, b)).collect();
    let mut sum = t7.substitute(&p);
    for (r, def) in warp.defs.iter().rev() {
        sum = sum.substitute(&[(r, &def.substitute(&p))]);
    }
    assert_eq!(sum.simplify().as_u64(), Some(want));
    // Masks that disagree: the lane's own value.
    let own = exec
        .reg("%__wt_t7")
        .and_then(|v| v.bv().cloned())
        .expect("t7");
    let mut disagree = pairs.clone();
    disagree[1].1 = BV::from_u64(0xFFFF_FFFE, 32);
    let p: Vec<(&BV, &BV)> = disagree.iter().map(|(a, b)| (a, b)).collect();
    let mut v = own.substitute(&p);
    for (r, def) in warp.defs.iter().rev() {
        v = v.substitute(&[(r, &def.substitute(&p))]);
    }
    assert_eq!(v.simplify().as_u64(), Some(x));
}

#[test]
fn warp_lemmas_are_proved() {
    let (sum, max) = super::ir::lemmas();
    assert!(sum.is_proved(), "{sum:?}");
    assert!(max.is_proved(), "{max:?}");
}

#[test]
fn outside_the_warp_model_a_collective_is_invalid() {
    let text = emitted("warp.sum.lanes.reg");
    assert!(matches!(
        super::ptx::run(&text),
        Err(super::ptx::SemError::Unsupported { .. })
    ));
}

#[test]
fn warp_access_values_are_proved() {
    let names: Vec<String> = super::obligation_names()
        .into_iter()
        .filter(|n| {
            ["site.sectors.", "site.wavefronts.", "site.run."]
                .iter()
                .any(|p| n.starts_with(p))
        })
        .collect();
    assert_eq!(names.len(), 11, "{names:?}");
    for name in &names {
        let ob = obligation(name);
        let text = ob.emit().expect("emits");
        let out = check::check(&ob, &text);
        assert!(out.is_proved(), "{name}: {out:?}\n{text}");
    }
}

#[test]
fn warp_access_terms_agree_with_the_ir_reference() {
    use warptrace_ir::SiteValue;
    let addrs: Vec<BV> = (0..32)
        .map(|j| BV::new_const(format!("a@{j}"), 64))
        .collect();
    let mask = BV::new_const("m", 32);
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for case in 0..48u64 {
        let bytes = [1u64, 2, 4, 8, 16][(case % 5) as usize];
        // Strided, clustered and random addresses, masks with and without holes.
        let stride = [0, 1, 2, 4, 8, 32, 33, 7][(case % 8) as usize] * bytes;
        let lanes: Vec<u64> = (0..32u64)
            .map(|j| match case % 3 {
                0 => 0x7000 + j * stride,
                1 => 0x7000 + (next() % 64) * bytes,
                _ => next() & !(bytes - 1),
            })
            .collect();
        let m = match case % 4 {
            0 => u32::MAX,
            1 => 1,
            _ => next() as u32 | 1 << (case % 32),
        };
        let mut pairs: Vec<(BV, BV)> = addrs
            .iter()
            .zip(&lanes)
            .map(|(a, &v)| (a.clone(), k(v)))
            .collect();
        pairs.push((mask.clone(), BV::from_u64(u64::from(m), 32)));
        let active = || (0..32).filter(|j| m >> j & 1 == 1).map(|j| lanes[j]);
        for (v, want) in [
            (SiteValue::Sectors, warptrace_ir::sectors(active())),
            (
                SiteValue::Wavefronts,
                warptrace_ir::wavefronts(bytes, active()),
            ),
        ] {
            let term = ir::warp_access(v, bytes, &mask, &addrs).expect("a warp-wide value");
            assert_eq!(
                eval(&term, &pairs),
                Some(want),
                "{v:?} case {case}: {lanes:x?} m {m:#x}"
            );
        }
        // `run`, per lane: every lane of the mask.
        let present: Vec<(u32, u64)> = (0..32u32)
            .filter(|j| m >> j & 1 == 1)
            .map(|j| (j, lanes[j as usize]))
            .collect();
        for &(j, _) in &present {
            let mut at = pairs.clone();
            at.push((ir::hw("%laneid"), BV::from_u64(u64::from(j), 32)));
            let term = ir::run(bytes, &mask, &addrs, &addrs[j as usize]);
            assert_eq!(
                eval(&term, &at),
                Some(warptrace_ir::run(bytes, &present, j)),
                "run of lane {j}, case {case}: {lanes:x?} m {m:#x}"
            );
        }
    }
}

#[test]
fn ring_appends_latched_or_not_and_the_flush_are_proved() {
    let rings: Vec<_> = super::obligations::all()
        .into_iter()
        .filter(|o| o.name.starts_with("ring."))
        .collect();
    assert!(rings
        .iter()
        .any(|o| o.name.starts_with("ring.drop.latched.")));
    for ob in rings {
        let text = ob.emit().expect("emits");
        match check::check(&ob, &text) {
            TvOutcome::Proved => {}
            other => panic!("{}: {other:?}\n{text}", ob.name),
        }
    }
}
