//! The IR side of a warp-combined update: what the per-thread updates of a group of lanes
//! add up to, from `docs/ir.md`'s per-thread semantics.
//!
//! The lanes that run a `map.update` together are the group `m` (bit `j`: lane `j` runs
//! it). With keys that are the same in every lane, every lane's update goes to the same
//! slot (one tag, one probe sequence, slots are never freed on the device) or every one is
//! dropped, so the group's effect on the map is that of one update whose value words get
//! the lanes' combined operands: `count` adds the number of lanes, `sum` (and the sum word
//! of `avg`/`stats`) the lanes' sum modulo 2^64, `min`/`max` the largest encoded word,
//! `hist`/`lhist` of a value the same in every lane the number of lanes in its bucket,
//! `assign` of such a value the value; a drop counts one per lane. That step (adds
//! commute, `max` is idempotent, exchanging one value several times leaves it) is about
//! memory, which the obligations do not model; these terms state its result.
//!
//! The back end reduces per-lane values in 32-bit parts (`combine.rs`); two lemmas, proved
//! by induction over the lanes ([`lemmas`]), show the parts recombine to the IR's sum and
//! maximum, so the obligations compare the snippet against [`Group::sum_by_limbs`] and
//! [`Group::max_by_halves`].

use super::{hist_bucket, lhist_bucket, max_encode, min_encode, popcount64, word_ops, WordKind};
use crate::combine::LIMBS;
use crate::tv::prove::{prove, Goal};
use crate::tv::ptx::{has_lane, lane_name, LANES};
use crate::tv::TvOutcome;
use std::sync::OnceLock;
use warptrace_ir::{Aggregation, Operand, ValueKind};
use z3::ast::{Bool, BV};

fn k64(v: u64) -> BV {
    BV::from_u64(v, 64)
}

fn k32(v: u64) -> BV {
    BV::from_u64(v, 32)
}

/// One lane's step of the lanes' sum: `acc + (on ? x : 0)`.
fn add_step(acc: &BV, on: &Bool, x: &BV) -> BV {
    acc.bvadd(on.ite(x, &BV::from_u64(0, x.get_size())))
}

/// One lane's step of an unsigned maximum (start 0): `on && x > acc ? x : acc`.
fn max_step(acc: &BV, on: &Bool, x: &BV) -> BV {
    Bool::and(&[on, &x.bvugt(acc)]).ite(x, acc)
}

/// Limb `k` of a 64-bit value, zero-extended to 32 bits.
fn limb(x: &BV, k: usize) -> BV {
    let (pos, width) = LIMBS[k];
    x.extract(pos + width - 1, pos).zero_ext(32 - width)
}

/// `Σ_k 2^pos_k · limb sum_k`, modulo 2^64.
fn recombine(sums: &[BV]) -> BV {
    sums.iter().zip(LIMBS).fold(k64(0), |acc, (s, (pos, _))| {
        acc.bvadd(s.zero_ext(32).bvshl(k64(u64::from(pos))))
    })
}

fn hi(w: &BV) -> BV {
    w.extract(63, 32)
}

fn lo(w: &BV) -> BV {
    w.extract(31, 0)
}

/// One group of lanes running one update.
pub(crate) struct Group {
    /// The lanes: bit `j` for lane `j`.
    pub mask: BV,
    /// The aggregation's operand in the executing lane.
    pub own: Option<BV>,
    /// Each lane's operand (`LANES` of them).
    pub lanes: Vec<BV>,
    /// Whether the operand is the same in every lane.
    pub uniform: bool,
}

impl Group {
    /// The group `mask` running an update with operand `x`: lane `j`'s value of a register
    /// is `X@j` (with the fact that the executing lane's is `X`), unless `uniform` (the
    /// same in every lane: `x` itself).
    pub fn new(mask: BV, x: Option<&Operand>, uniform: bool) -> (Group, Vec<Bool>) {
        let own = x.map(crate::tv::check::operand);
        let mut facts = Vec::new();
        let lanes = (0..LANES)
            .map(|j| match (x, &own) {
                (Some(Operand::Reg(r)), Some(own)) if !uniform => {
                    let name = super::reg_name(*r);
                    let copy = BV::new_const(lane_name(&name, j), 64);
                    let here = super::hw("%laneid").eq(k32(u64::from(j)));
                    facts.push(here.implies(copy.eq(own)));
                    copy
                }
                (_, Some(own)) => own.clone(),
                _ => k64(0),
            })
            .collect();
        let group = Group {
            mask,
            own,
            lanes,
            uniform,
        };
        (group, facts)
    }

    fn on(&self, j: u32) -> Bool {
        has_lane(&self.mask, &k32(u64::from(j)))
    }

    /// Lane `j` in part `k`'s mask (`parts[k]`, else the group's).
    fn on_in(parts: &[BV], k: usize, mask: &BV, j: u32) -> Bool {
        has_lane(parts.get(k).unwrap_or(mask), &k32(u64::from(j)))
    }

    /// The number of lanes.
    pub fn count(&self) -> BV {
        popcount64(&self.mask)
    }

    /// The lanes' sum of the operand, modulo 2^64: for an operand the same in every lane,
    /// the lane count times it (`n` equal terms add up to `n · x` in any ring; bit-blasting
    /// cannot show that for a 64-bit `x`).
    pub fn sum(&self) -> BV {
        if let (true, Some(x)) = (self.uniform, &self.own) {
            return super::mul(x, &self.count());
        }
        (0..LANES).fold(k64(0), |acc, j| {
            add_step(&acc, &self.on(j), &self.lanes[j as usize])
        })
    }

    /// [`sum`](Self::sum) of per-lane values, as the 32-bit sums of their limbs
    /// recombined (equal by [`lemmas`]), limb `k` summed over the lanes of `parts[k]`:
    /// the group's mask as read for that part (equal to the group where the masks agree,
    /// the only case the result is used in).
    pub fn sum_by_limbs(&self, parts: &[BV]) -> BV {
        let sums: Vec<BV> = (0..LIMBS.len())
            .map(|k| {
                (0..LANES).fold(k32(0), |acc, j| {
                    let on = Self::on_in(parts, k, &self.mask, j);
                    add_step(&acc, &on, &limb(&self.lanes[j as usize], k))
                })
            })
            .collect();
        recombine(&sums)
    }

    /// The largest (unsigned) of `encode(operand)` over the lanes (0 for none).
    pub fn max_word(&self, encode: &dyn Fn(&BV) -> BV) -> BV {
        (0..LANES).fold(k64(0), |acc, j| {
            max_step(&acc, &self.on(j), &encode(&self.lanes[j as usize]))
        })
    }

    /// [`max_word`](Self::max_word) as `H:L`: `H` the largest high half, `L` the largest
    /// low half of the words whose high half is `H` (equal by [`lemmas`]); each over the
    /// lanes of its part's mask, as in [`sum_by_limbs`](Self::sum_by_limbs).
    pub fn max_by_halves(&self, encode: &dyn Fn(&BV) -> BV, parts: &[BV]) -> BV {
        let words: Vec<BV> = self.lanes.iter().map(encode).collect();
        let h = (0..LANES).fold(k32(0), |acc, j| {
            let on = Self::on_in(parts, 0, &self.mask, j);
            max_step(&acc, &on, &hi(&words[j as usize]))
        });
        let l = (0..LANES).fold(k32(0), |acc, j| {
            let w = &words[j as usize];
            let low = hi(w).eq(&h).ite(&lo(w), &k32(0));
            max_step(&acc, &Self::on_in(parts, 1, &self.mask, j), &low)
        });
        h.concat(&l)
    }

    /// Whether the executing lane is the group's lowest.
    pub fn is_lowest(&self) -> Bool {
        let lane = super::hw("%laneid");
        let below = k32(1).bvshl(&lane).bvsub(k32(1));
        self.mask.bvand(&below).eq(k32(0))
    }
}

/// The value-word operations of one update for the whole `group` (`Update::word_ops`
/// with the group's amounts); `by_parts`: per-lane sums and maxima in the 32-bit parts
/// the back end reduces, over those masks. `None` where the aggregation does not fit the
/// value.
pub(crate) fn group_words(
    agg: Aggregation,
    value: &ValueKind,
    group: &Group,
    by_parts: Option<&[BV]>,
) -> Option<Vec<(BV, WordKind, BV)>> {
    use warptrace_ir::{Aggregation as A, ValueKind as V};
    let x = group.own.as_ref();
    word_ops(agg, x, value)?;
    let n = group.count();
    let sum = || match by_parts {
        Some(parts) => group.sum_by_limbs(parts),
        None => group.sum(),
    };
    let max = |encode: &dyn Fn(&BV) -> BV| match by_parts {
        Some(parts) => group.max_by_halves(encode, parts),
        None => group.max_word(encode),
    };
    Some(match (agg, value, x) {
        (A::Count, V::Count, _) => vec![(k64(0), WordKind::Add, n)],
        (A::Sum(_), V::Sum { .. }, Some(_)) => vec![(k64(0), WordKind::Add, sum())],
        (A::Avg(_), V::Avg { .. }, Some(_)) | (A::Stats(_), V::Stats { .. }, Some(_)) => {
            vec![(k64(0), WordKind::Add, n), (k64(1), WordKind::Add, sum())]
        }
        (A::Min(_), &V::Min { signed }, Some(_)) => {
            vec![(k64(0), WordKind::Max, max(&|x| min_encode(x, signed)))]
        }
        (A::Max(_), &V::Max { signed }, Some(_)) => {
            vec![(k64(0), WordKind::Max, max(&|x| max_encode(x, signed)))]
        }
        // A value the same in every lane: one bucket, one stored value.
        (A::Hist(_), V::Hist, Some(x)) => vec![(hist_bucket(x), WordKind::Add, n)],
        (A::Lhist(_), &V::Lhist { min, max, step }, Some(x)) => {
            vec![(lhist_bucket(x, min, max, step), WordKind::Add, n)]
        }
        (A::Assign(_), V::Value { .. }, Some(x)) => vec![(k64(0), WordKind::Exchange, x.clone())],
        _ => return None,
    })
}

/// The limb sum: one lane's step of [`Group::sum`] and of each limb sum of
/// [`Group::sum_by_limbs`] (the same `add_step`s) keeps `P == recombine(A)` and `A_k <= i ·
/// (2^width_k - 1)` after lane `i`, for any `i < 32` — so no 32-bit limb sum wraps, and
/// after the 32 lanes (from `P = A = 0`) the two are equal.
fn sum_lemma() -> TvOutcome {
    let i = BV::new_const("lane", 32);
    let p = BV::new_const("P", 64);
    let a: Vec<BV> = (0..LIMBS.len())
        .map(|k| BV::new_const(format!("A{k}"), 32))
        .collect();
    let (x, on) = (BV::new_const("x", 64), Bool::new_const("on"));
    let bound = |k: usize, lanes: &BV| lanes.bvmul(k32((1 << LIMBS[k].1) - 1));
    let mut pre = vec![i.bvult(k32(u64::from(LANES))), p.eq(recombine(&a))];
    for (k, ak) in a.iter().enumerate() {
        pre.push(ak.bvule(bound(k, &i)));
    }
    let p2 = add_step(&p, &on, &x);
    let a2: Vec<BV> = a
        .iter()
        .enumerate()
        .map(|(k, ak)| add_step(ak, &on, &limb(&x, k)))
        .collect();
    let mut goals = vec![Goal::eq(
        "the sum is its limbs' sums recombined",
        &p2,
        &recombine(&a2),
        None,
    )];
    let next = i.bvadd(k32(1));
    for (k, ak) in a2.iter().enumerate() {
        goals.push(Goal::holds(
            format!("limb sum {k} stays below its bound"),
            ak.bvule(bound(k, &next)),
        ));
    }
    // The start: nothing added.
    goals.push(Goal::holds(
        "the empty sums agree",
        recombine(&[k32(0), k32(0), k32(0)]).eq(k64(0)),
    ));
    prove(&pre, &goals, &[])
}

/// The maximum by halves: with `H` at least every lane's high half, one lane's step of the
/// running maximum `W` (of 64-bit words), of the running maximum `G` of the high halves and
/// of `L`, the maximum of the low halves of the words whose high half is `H`, keeps
/// `hi(W) == G <= H`, `L == lo(W)` if `G == H` and `L == 0` otherwise, and `G` at least
/// every high half seen. From all zero (where it holds), after the 32 lanes `G` is the
/// largest high half; with `H = G` that gives `H:L == W`.
fn max_lemma() -> TvOutcome {
    let (w, g, l, h) = (
        BV::new_const("W", 64),
        BV::new_const("G", 32),
        BV::new_const("L", 32),
        BV::new_const("H", 32),
    );
    let (x, on) = (BV::new_const("x", 64), Bool::new_const("on"));
    let invariant = |w: &BV, g: &BV, l: &BV| {
        Bool::and(&[
            &hi(w).eq(g),
            &g.bvule(&h),
            &g.eq(&h).implies(l.eq(lo(w))),
            &g.eq(&h).not().implies(l.eq(k32(0))),
        ])
    };
    let pre = vec![invariant(&w, &g, &l), on.implies(hi(&x).bvule(&h))];
    let w2 = max_step(&w, &on, &x);
    let g2 = max_step(&g, &on, &hi(&x));
    let low = hi(&x).eq(&h).ite(&lo(&x), &k32(0));
    let l2 = max_step(&l, &on, &low);
    let goals = vec![
        Goal::holds("the invariant is kept", invariant(&w2, &g2, &l2)),
        Goal::holds(
            "the running maximum is at least every high half seen",
            Bool::and(&[&g2.bvuge(&g), &on.implies(g2.bvuge(hi(&x)))]),
        ),
        Goal::holds(
            "it holds at the start",
            invariant(&k64(0), &k32(0), &k32(0)),
        ),
    ];
    prove(&pre, &goals, &[])
}

/// The two lemmas, proved once per process: `(sum by limbs, max by halves)`.
pub(crate) fn lemmas() -> &'static (TvOutcome, TvOutcome) {
    static LEMMAS: OnceLock<(TvOutcome, TvOutcome)> = OnceLock::new();
    LEMMAS.get_or_init(|| (sum_lemma(), max_lemma()))
}
