//! Map-offset obligations: every word a device probe writes lies inside its own map's
//! region of the buffer, and array records of distinct threads never overlap.
//!
//! The offsets are the formulas of `ir::layout` (the one definition the code generators,
//! the interpreter and the runtime share), encoded here on 64-bit bit-vectors: a hash
//! slot `(tag + j) mod capacity` (or the extra slot) for every tag and probe `j`, the
//! value word an aggregation picks (`hist`/`lhist` buckets for every value), a ring record
//! for every cursor value, and an array record `(block, row, slot)` for every thread of
//! every grid the hardware allows (or of one launch). Translation validation
//! (`codegen-ptx`) proves that the emitted PTX computes these same formulas.

use crate::formula::{prove_inside, Cond, Expr};
use crate::obligation::{Method, Obligation, Verdict};
use crate::smt::{self, Outcome};
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};
use warptrace_ir::{
    Aggregation, Insn, MapDecl, MapKind, MapLayout, MapRegion, Overflow, Per, Program, ValueKind,
    HASH_MAX_PROBES,
};
use z3::ast::{Bool, Int};

/// One launch's shape: threads per block and blocks per grid, `[x, y, z]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LaunchShape {
    /// `blockDim`.
    pub block: [u32; 3],
    /// `gridDim`.
    pub grid: [u32; 3],
}

impl LaunchShape {
    /// Threads a block, saturating at `u32::MAX` (more than any GPU allows).
    pub fn threads_per_block(&self) -> u32 {
        self.block.iter().fold(1u32, |a, &b| a.saturating_mul(b))
    }
}

/// The maps device probes write, each with the distinct aggregations it receives and
/// its first write `(probe, insn)`.
fn written_maps(program: &Program) -> Vec<(usize, Vec<Aggregation>, (usize, usize))> {
    let mut used: Vec<(usize, Vec<Aggregation>, (usize, usize))> = Vec::new();
    let printf = program.printf_ring().map(|m| m.0 as usize);
    for (p, probe) in program.probes.iter().enumerate() {
        for (at, insn) in probe.insns.iter().enumerate() {
            let (m, agg) = match insn {
                Insn::MapUpdate { map, agg, .. } => (map.0 as usize, Some(*agg)),
                Insn::RingAppend { map, .. } | Insn::ArraySave { map, .. } => {
                    (map.0 as usize, None)
                }
                Insn::Printf { .. } => match printf {
                    Some(m) => (m, None),
                    None => continue,
                },
                _ => continue,
            };
            let i = match used.iter().position(|(x, _, _)| *x == m) {
                Some(i) => i,
                None => {
                    used.push((m, Vec::new(), (p, at)));
                    used.len() - 1
                }
            };
            if let Some(a) = agg {
                let aggs = &mut used[i].1;
                if !aggs.iter().any(|b| b.mnemonic() == a.mnemonic()) {
                    aggs.push(a);
                }
            }
        }
    }
    used.sort_by_key(|(m, _, _)| *m);
    used
}

/// The obligations for every launch the hardware allows: hash and ring offsets, array
/// offsets and disjointness, each with the first write `(probe, insn)` of its map. Call
/// with a checked program's maps (map ids valid).
pub(crate) fn obligations(program: &Program) -> Vec<((usize, usize), Obligation)> {
    let layout = MapLayout::new(&program.maps);
    let mut out = Vec::new();
    let mut located = Vec::new();
    for (m, aggs, site) in written_maps(program) {
        let start = out.len();
        let (Some(decl), Some(region)) = (program.maps.get(m), layout.regions.get(m)) else {
            continue;
        };
        let location = format!("map @{}", decl.name);
        let end = region.slots_offset + region.slots_bytes();
        if end > layout.total_bytes {
            out.push(Obligation {
                name: "region inside the buffer".into(),
                location: location.clone(),
                method: Method::Intervals,
                verdict: Verdict::Refuted {
                    counterexample: format!("region ends at {end}, buffer {}", layout.total_bytes),
                },
                micros: 0,
            });
        }
        match decl.kind {
            MapKind::Hash { .. } => {
                out.push(hash_slot(region, &location));
                for agg in &aggs {
                    out.push(value_word(decl, region, agg, &location));
                }
            }
            MapKind::Ring { overflow, .. } => out.push(ring_record(region, overflow, &location)),
            MapKind::Array { per, slots } => {
                out.extend(array_obligations(region, per, slots, &location));
            }
        }
        let mine: Vec<Obligation> = out.drain(start..).collect();
        located.extend(mine.into_iter().map(|o| (site, o)));
    }
    located
}

fn obligation(name: &str, location: &str, (outcome, micros): (Outcome, u64)) -> Obligation {
    located(
        name,
        location,
        (Method::Smt, Verdict::from(&outcome), micros),
    )
}

fn located(
    name: &str,
    location: &str,
    (method, verdict, micros): (Method, Verdict, u64),
) -> Obligation {
    Obligation {
        name: name.into(),
        location: location.into(),
        method,
        verdict,
        micros,
    }
}

/// Every hash slot a probe sequence touches lies in the map's region: slot
/// `(tag + j) mod capacity` for every tag and `j < HASH_MAX_PROBES`, or the extra slot
/// `capacity` for tag 0.
fn hash_slot(region: &MapRegion, location: &str) -> Obligation {
    let tag = || Expr::Var("tag", 0, u64::MAX);
    let j = Expr::Var("probe", 0, u64::from(HASH_MAX_PROBES) - 1);
    let cap = u64::from(region.capacity);
    let index = Expr::ite(
        Cond::Eq(tag(), Expr::K(0)),
        Expr::K(cap),
        tag().add(j).rem(cap.max(1)),
    );
    let offset = Expr::K(region.slots_offset).add(index.mul(Expr::K(region.slot_bytes())));
    let end = region.slots_offset + region.slots_bytes();
    let proof = prove_inside(&offset, region.slot_bytes(), region.slots_offset, end);
    located("hash slot inside the region", location, proof)
}

/// `hist_bucket(x)` (plain `hist`): 0 for negative x, 1 for 0, `2 + floor(log2 x)`.
pub(crate) fn hist_bucket(x: Expr) -> Expr {
    // floor(log2 x) for 0 < x < 2^63, as a chain over the highest set bit (x >= 2^63 is
    // negative and takes bucket 0 below).
    let mut log = Expr::K(0);
    for bit in 1..63u64 {
        log = Expr::ite(
            Cond::Uge(x.clone(), Expr::K(1u64 << bit)),
            Expr::K(bit),
            log,
        );
    }
    Expr::ite(
        Cond::Slt(x.clone(), Expr::K(0)),
        Expr::K(0),
        Expr::ite(Cond::Eq(x, Expr::K(0)), Expr::K(1), Expr::K(2).add(log)),
    )
}

/// `lhist_bucket(x, min, max, step)` as `ir::lhist_bucket` defines it.
pub(crate) fn lhist_bucket(x: Expr, min: i64, max: i64, step: i64) -> Expr {
    let last = u64::from(warptrace_ir::lhist_buckets(min, max, step)) - 1;
    let below = Cond::Slt(x.clone(), Expr::K(min as u64));
    if step <= 0 {
        return Expr::ite(below, Expr::K(0), Expr::K(last));
    }
    let above = Cond::Sge(x.clone(), Expr::K(max as u64));
    // min <= x < max: (x - min) is non-negative and below 2^64.
    let linear = || Expr::K(1).add(x.clone().sub(Expr::K(min as u64)).div(step as u64));
    let clamped = Expr::ite(Cond::Ugt(linear(), Expr::K(last)), Expr::K(last), linear());
    Expr::ite(below, Expr::K(0), Expr::ite(above, Expr::K(last), clamped))
}

/// The value word an aggregation writes lies inside the slot, for every value.
fn value_word(decl: &MapDecl, region: &MapRegion, agg: &Aggregation, location: &str) -> Obligation {
    let x = Expr::Var("value", 0, u64::MAX);
    let word = match (agg, &decl.value) {
        (Aggregation::Hist(_), ValueKind::Hist) => hist_bucket(x),
        (Aggregation::Lhist(_), &ValueKind::Lhist { min, max, step }) => {
            lhist_bucket(x, min, max, step)
        }
        // avg/stats write [count, sum].
        (Aggregation::Avg(_) | Aggregation::Stats(_), _) => Expr::Var("word", 0, 1),
        _ => Expr::K(0),
    };
    let first = region.value_offset_in_slot();
    let offset = Expr::K(first).add(word.mul(Expr::K(8)));
    let proof = prove_inside(&offset, 8, first, region.slot_bytes());
    located(
        &format!("{} word inside the slot", agg.mnemonic()),
        location,
        proof,
    )
}

/// Every ring record word (sequence word and fields) an append writes lies in the
/// region: record `n` for a cursor `n < capacity` (drop), `n mod capacity` (overwrite).
fn ring_record(region: &MapRegion, overflow: Overflow, location: &str) -> Obligation {
    let cap = u64::from(region.capacity);
    let index = match overflow {
        // The append writes only when the cursor is below the capacity.
        Overflow::Drop => Expr::Var("cursor", 0, cap.saturating_sub(1)),
        Overflow::Overwrite => Expr::Var("cursor", 0, u64::MAX).rem(cap.max(1)),
    };
    let word = Expr::Var("word", 0, u64::from(region.value_words));
    let offset = Expr::K(region.slot_offset(0))
        .add(index.mul(Expr::K(region.slot_bytes())))
        .add(word.mul(Expr::K(8)));
    let end = region.slots_offset + region.slots_bytes();
    let proof = prove_inside(&offset, 8, region.slot_offset(0), end);
    located("ring record inside the region", location, proof)
}

/// The array lemmas that hold for every map and launch (steps 1, 2 and 4 below), proved
/// once per process: each is a small nonlinear query of a few hundred milliseconds.
struct Lemmas {
    linear_index: Obligation,
    warp_row: Obligation,
    injective: Obligation,
}

fn lemmas() -> &'static Lemmas {
    static LEMMAS: OnceLock<Lemmas> = OnceLock::new();
    LEMMAS.get_or_init(|| {
        let v = |n: &str| Int::new_const(n);
        let zero = || Int::from_u64(0);
        let one = || Int::from_u64(1);
        let (a, aa, b, bb) = (v("a"), v("A"), v("b"), v("B"));
        let q = vec![
            a.ge(zero()),
            a.lt(&aa),
            b.ge(zero()),
            b.lt(&bb),
            Bool::and(&[(&a + &aa * &b).ge(zero()), (&a + &aa * &b).lt(&aa * &bb)]).not(),
        ];
        let linear_index = obligation(
            "linear thread and block indices below threads per block and blocks: a + A·b < A·B",
            "lemma",
            smt::refute_int(&q, &[&a, &aa, &b, &bb]),
        );
        let (x, tt) = (v("x"), v("T"));
        let k32 = || Int::from_u64(32);
        let q = vec![
            tt.ge(one()),
            x.ge(zero()),
            x.lt(&tt),
            x.div(k32()).ge((&tt + Int::from_u64(31)).div(k32())),
        ];
        let warp_row = obligation(
            "warp row below the warps per block: x < T implies x / 32 < ceil(T / 32)",
            "lemma",
            smt::refute_int(&q, &[&x, &tt]),
        );
        let (b1, r1, b2, r2, rows) = (v("B1"), v("r1"), v("B2"), v("r2"), v("R"));
        let q = vec![
            rows.ge(one()),
            b1.ge(zero()),
            b2.ge(zero()),
            r1.ge(zero()),
            r1.lt(&rows),
            r2.ge(zero()),
            r2.lt(&rows),
            Bool::and(&[b1.eq(&b2), r1.eq(&r2)]).not(),
            (&b1 * &rows + &r1).eq(&b2 * &rows + &r2),
        ];
        let injective = obligation(
            "distinct (block, row) pairs get distinct rows: (B, r) -> B·R + r injective for r < R",
            "lemma",
            smt::refute_int(&q, &[&b1, &r1, &b2, &r2]),
        );
        Lemmas {
            linear_index,
            warp_row,
            injective,
        }
    })
}

/// A lemma's obligation, located at this map.
fn at(lemma: &Obligation, location: &str) -> Obligation {
    Obligation {
        location: location.into(),
        ..lemma.clone()
    }
}

/// The array obligations, as a structured proof whose every step is one small z3 query
/// over integer atoms (one query over the whole offset formula with the grid's products
/// is beyond z3's nonlinear arithmetic in reasonable time; each step is milliseconds):
///
/// 1. `a + A·b < A·B` for `0 ≤ a < A`, `0 ≤ b < B`: applied twice, the linear thread
///    index `x + X·(y + Y·z)` is below the threads per block and the linear block index
///    below the blocks, for every position in every grid;
/// 2. (per warp) thread `x < T` lies in warp `x / 32 < ⌈T / 32⌉`;
/// 3. for any `B < blocks`, `r < rows`, `s < slots`, record `((B·rows + r)·slots + s)`
///    ends inside the region of `blocks·rows·slots` records, and every intermediate of
///    that computation lies in `[0, end]`, so with the region below 2^64 bytes (the
///    runtime allocates it) the 64-bit arithmetic is exact;
/// 4. `(B, r) ↦ B·rows + r` is injective for `r < rows`;
/// 5. records of distinct indices are disjoint.
///
/// 1–3 give "in bounds", 1, 2, 4 and 5 "distinct writers never overlap". The steps hold
/// for every positive number of rows and blocks, so they need no hardware limit; a
/// launch's shape only fixes `rows` and `blocks` in 3 and 4.
fn array_obligations(region: &MapRegion, per: Per, slots: u32, location: &str) -> Vec<Obligation> {
    let lemmas = lemmas();
    let mut out = vec![at(&lemmas.linear_index, location)];
    if per == Per::Warp {
        out.push(at(&lemmas.warp_row, location));
    }
    let (inside, disjoint) = record_steps(slots, region.slot_bytes());
    out.push(at(&inside, location));
    out.push(at(&lemmas.injective, location));
    out.push(at(&disjoint, location));
    out
}

/// Steps 3 and 5 by (slots, slot bytes).
type RecordCache = HashMap<(u32, u64), (Obligation, Obligation)>;

/// Steps 3 and 5 for records of `slots` slots of `sb` bytes (linear queries, cached).
fn record_steps(slots: u32, slot_bytes: u64) -> (Obligation, Obligation) {
    static CACHE: OnceLock<Mutex<RecordCache>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(hit) = cache
        .lock()
        .ok()
        .and_then(|c| c.get(&(slots, slot_bytes)).cloned())
    {
        return hit;
    }
    let zero = || Int::from_u64(0);
    let v = |n: &str| Int::new_const(n);
    let (rr, slot) = (v("r"), v("s"));
    let s = Int::from_u64(u64::from(slots));
    let sb = Int::from_u64(slot_bytes);
    let mut out = Vec::new();
    // Step 3, linear over atoms: P = B·rows (P >= 0) and M = blocks·rows·slots. By step
    // 1 (twice: i = r + rows·B < rows·blocks, then j = s + slots·i < M) the record index
    // j lies below M; the rest scales by constants.
    let (p, m) = (v("P"), v("M"));
    let steps = [
        p.clone(),
        &p + &rr,
        (&p + &rr) * &s,
        (&p + &rr) * &s + &slot,
        ((&p + &rr) * &s + &slot) * &sb,
        ((&p + &rr) * &s + &slot) * &sb + &sb,
    ];
    let mut chain = vec![steps[0].ge(zero())];
    for w in steps.windows(2) {
        chain.push(w[0].le(&w[1]));
    }
    chain.push(steps[5].le(&m * &sb));
    let q = vec![
        p.ge(zero()),
        rr.ge(zero()),
        slot.ge(zero()),
        slot.lt(&s),
        ((&p + &rr) * &s + &slot).lt(&m),
        Bool::and(&chain).not(),
    ];
    out.push(obligation(
        "array record inside the region, 64-bit offset exact",
        "records",
        smt::refute_int(&q, &[&p, &rr, &m]),
    ));

    let (i1, i2, s2) = (v("i"), v("i'"), v("s'"));
    let start = |i: &Int, sl: &Int| (i * &s + sl) * &sb;
    let q = vec![
        i1.ge(zero()),
        i2.ge(zero()),
        i1.eq(&i2).not(),
        slot.ge(zero()),
        slot.lt(&s),
        s2.ge(zero()),
        s2.lt(&s),
        start(&i1, &slot).lt(start(&i2, &s2) + &sb),
        start(&i2, &s2).lt(start(&i1, &slot) + &sb),
    ];
    out.push(obligation(
        "records of distinct rows disjoint",
        "records",
        smt::refute_int(&q, &[&i1, &i2]),
    ));
    let pair = (out.remove(0), out.remove(0));
    if let Ok(mut c) = cache.lock() {
        c.insert((slots, slot_bytes), pair.clone());
    }
    pair
}

/// Launch proofs by (program text, shape).
type LaunchCache = HashMap<(String, LaunchShape), Vec<Obligation>>;

/// The launch-time fast path: the array obligations for one launch's concrete shape.
/// The structured proof holds for every shape whose array regions fit in 64 bits, so
/// for a launch this is that size check (exact arithmetic, no solver) plus the cached
/// shape-independent steps; results are cached by (program, shape).
pub fn prove_launch(program: &Program, shape: LaunchShape) -> Vec<Obligation> {
    static CACHE: OnceLock<Mutex<LaunchCache>> = OnceLock::new();
    let key = (program.to_string(), shape);
    let cache = CACHE.get_or_init(Default::default);
    if let Some(hit) = cache.lock().ok().and_then(|c| c.get(&key).cloned()) {
        return hit;
    }
    let layout = MapLayout::new(&program.maps);
    let scope = format!(
        "launch of {}x{}x{} blocks of {}x{}x{} threads",
        shape.grid[0], shape.grid[1], shape.grid[2], shape.block[0], shape.block[1], shape.block[2]
    );
    let threads = shape.block.iter().map(|&d| u64::from(d)).product::<u64>();
    let blocks = shape.grid.iter().map(|&d| u64::from(d)).product::<u64>();
    let mut out = Vec::new();
    for (m, _, _) in written_maps(program) {
        let (Some(decl), Some(region)) = (program.maps.get(m), layout.regions.get(m)) else {
            continue;
        };
        let MapKind::Array { per, slots } = decl.kind else {
            continue;
        };
        let location = format!("map @{}", decl.name);
        let rows = warptrace_ir::array_rows(per, u32::try_from(threads).unwrap_or(u32::MAX));
        let size = blocks
            .checked_mul(rows)
            .and_then(|x| x.checked_mul(u64::from(slots)))
            .and_then(|x| x.checked_mul(region.slot_bytes()));
        out.push(Obligation {
            name: format!("array region fits in 64 bits ({scope})"),
            location: location.clone(),
            method: Method::Intervals,
            verdict: match size {
                Some(_) => Verdict::Proved,
                None => Verdict::Refuted {
                    counterexample: format!(
                        "{blocks} blocks x {rows} rows x {slots} slots overflow"
                    ),
                },
            },
            micros: 0,
        });
        out.extend(array_obligations(region, per, slots, &location));
    }
    if let Ok(mut c) = cache.lock() {
        c.insert(key, out.clone());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use z3::ast::Ast;

    fn eval(bv: &z3::ast::BV) -> u64 {
        bv.simplify().as_u64().expect("a constant")
    }

    #[test]
    fn bucket_encodings_match_the_layout() {
        let samples: Vec<i64> = (-5..70)
            .chain((0..64).flat_map(|k| {
                [
                    (1i64 << k).wrapping_sub(1),
                    1i64 << k,
                    (1i64 << k).wrapping_add(1),
                ]
            }))
            .chain([i64::MIN, i64::MAX, -1000, 1000])
            .collect();
        for &x in &samples {
            let got = eval(&hist_bucket(Expr::K(x as u64)).z3());
            assert_eq!(got, u64::from(warptrace_ir::hist_bucket(x, 0)), "hist {x}");
            for (min, max, step) in [
                (0, 100, 10),
                (-50, 50, 25),
                (0, 1, 1),
                (10, 10, 1),
                (0, 5, 0),
            ] {
                let got = eval(&lhist_bucket(Expr::K(x as u64), min, max, step).z3());
                let want = warptrace_ir::lhist_bucket(x, min, max, step);
                assert_eq!(got, u64::from(want), "lhist {x} {min} {max} {step}");
            }
        }
    }

    fn program(text: &str) -> Program {
        Program::parse(text).expect("parses")
    }

    #[test]
    fn every_map_kind_is_proved_in_bounds() {
        let p = program(
            "map @h: hash(keys = 16) [u64] -> hist\n\
             map @l: hash(keys = 4) [u64] -> lhist(0, 100, 10)\n\
             map @s: hash(keys = 1) -> stats u64\n\
             map @r: ring(capacity = 8, overflow = overwrite) -> record(u64, u64)\n\
             map @d: ring(capacity = 8, overflow = drop) -> record(u64)\n\
             map @a: array(per = thread, slots = 4) -> record(u64, u64)\n\
             map @w: array(per = warp, slots = 1) -> record(u64)\n\
             persistent %c\n\
             \n\
             probe 0: kernel:entry\n\
             \x20 0: r0 = sreg clock\n\
             \x20 1: map.update @h[r0] hist r0\n\
             \x20 2: map.update @l[r0] lhist r0\n\
             \x20 3: map.update @s stats r0\n\
             \x20 4: map.append @r, (r0, r0)\n\
             \x20 5: map.append @d, (r0)\n\
             \x20 6: map.save @a, %c, (r0, r0)\n\
             \x20 7: map.save @w, %c, (r0)\n\
             \x20 8: exit\n",
        );
        let obligations: Vec<Obligation> = obligations(&p).into_iter().map(|(_, o)| o).collect();
        for o in &obligations {
            eprintln!(
                "{:>8} us  {:?}  {}: {}",
                o.micros, o.method, o.location, o.name
            );
        }
        assert_eq!(obligations.len(), 17, "{obligations:#?}");
        for o in &obligations {
            assert!(o.verdict.is_proved(), "{o:?}");
        }
        let launch = prove_launch(
            &p,
            LaunchShape {
                block: [128, 2, 1],
                grid: [4096, 3, 1],
            },
        );
        assert_eq!(launch.len(), 11);
        assert!(launch.iter().all(|o| o.verdict.is_proved()), "{launch:#?}");
    }

    #[test]
    fn a_wrong_layout_formula_is_refuted() {
        // Sanity of the encoding: rows indexed without the block stride collide.
        let v = |n: &str| Int::new_const(n);
        let (b1, r1, b2, r2, rows) = (v("b1"), v("r1"), v("b2"), v("r2"), v("rows"));
        let zero = || Int::from_u64(0);
        let q = vec![
            b1.ge(zero()),
            b2.ge(zero()),
            r1.ge(zero()),
            r1.lt(&rows),
            r2.ge(zero()),
            r2.lt(&rows),
            Bool::and(&[b1.eq(&b2), r1.eq(&r2)]).not(),
            (&b1 + &r1).eq(&b2 + &r2),
        ];
        let (outcome, _) = smt::refute_int(&q, &[&b1, &r1]);
        assert!(matches!(outcome, Outcome::Counterexample(_)), "{outcome:?}");
    }
}
