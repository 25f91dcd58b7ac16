//! The restoring division's counted loop (`alu::divide`, decision 0027) in the
//! translation validation (decision 0033). The one-lane model passes over the loop by its
//! summary — the remainder register becomes `urem(T, D)` and the quotient register
//! `udiv(T, D)` of the dividend `T` and divisor `D` the loop starts with — which three
//! proofs justify:
//!
//! 1. **The round** ([`prove_round`]): the loop's body as emitted, run by the lane model
//!    from any state, is the reference round — `r₁ = (rr << 1) | top(n)`, `c = r₁ ≥ D`,
//!    `rr' = c ? r₁ − D : r₁`, `n' = (n << 1) | c` — keeps `D`, and counts down by one.
//! 2. **The reference** ([`lemma`]): after `k` reference rounds from `rr = 0`, `n = n₀`,
//!    with `T_k` the top `k` bits of `n₀` (`n₀ >> (64 − k)`), `n = (n₀ << k) | Q`,
//!    `T_k = Q·D + R`, `0 ≤ R < D`, `R < 2^k`, `Q < 2^k` (`rr = R`). z3 proves the round
//!    keeps it: the arithmetic over the integers (the product `Q·D` is what bit-vector
//!    solving cannot take at 64 bits), the bit facts — `top(n)` is the next bit of `n₀`,
//!    `T_{k+1} = 2·T_k + top(n)`, the new `n` — over 64-bit vectors with `k` symbolic.
//!    That the vector operations of a round are the integer ones is argued: every value
//!    is below `2^64` by the invariant (`r₁ < 2^(k+1) ≤ 2^64`), so nothing wraps. At
//!    `k = W` (the rounds), `T = n₀ >> (64 − W)` and uniqueness of division (proved)
//!    gives `Q = T div D`, `R = T mod D`. The rounds are `W`: the kernel model accepts the
//!    loop only with its count set before the label and decremented once a round, and the
//!    lane model claims the count and `rr = 0` at the label.
//! 3. **The operation**: `udiv` and `urem` are uninterpreted functions, in the summary
//!    and in the IR's semantics, which states signed division and remainder by SMT-LIB's
//!    definition of `bvsdiv`/`bvsrem` (in terms of `bvudiv`/`bvurem` of the magnitudes;
//!    the tests check the restatement against z3's own at 8 and 10 bits). A proof for
//!    every `udiv` is one for the real one; bit-blasting two 64-bit dividers (z3's
//!    `bvsdiv` against the snippet's magnitudes) does not finish in minutes, this in
//!    milliseconds.

use super::{Lane, LABEL};
use crate::parse::Instruction;
use crate::proved::{once, Proofs};
use crate::tv_waterfall::code_text;
use std::sync::OnceLock;
use warptrace_ir::{BinOp, Width};
use z3::ast::{Ast, Bool, Int, BV};
use z3::{FuncDecl, SatResult, Sort};

/// A division loop: its registers (the remainder, the dividend-then-quotient and the
/// divisor pairs, the count) and rounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct DivLoop {
    pub rr: u32,
    pub n: u32,
    pub dv: u32,
    pub count: u32,
    pub rounds: u32,
}

/// The division loop whose label is `code[at]`: its registers and its body (after the
/// label, up to its `s_cbranch_scc1` back, not included); `None` for any other label.
pub(super) fn read(code: &[Instruction], at: usize) -> Option<(DivLoop, &[Instruction])> {
    let name = code.get(at)?.modifiers.first()?;
    let init = code.get(at.checked_sub(1)?)?;
    let len = code[at + 1..].iter().position(|x| {
        x.mnemonic == LABEL || x.mnemonic.starts_with("s_cbranch") || x.mnemonic == "s_branch"
    })?;
    let back = &code[at + 1 + len];
    if back.mnemonic != "s_cbranch_scc1" || back.operands.first()?.text != *name {
        return None;
    }
    let body = &code[at + 1..at + 1 + len];
    let reg = |x: &Instruction, i: usize| x.operands.get(i).and_then(|o| o.reg);
    let find = |m: &str| body.iter().find(|x| x.mnemonic == m);
    let count = reg(init, 0)?;
    let rounds = u32::try_from(init.operands.get(1)?.imm?).ok()?;
    let rr = reg(body.first().filter(|x| x.mnemonic == "v_lshlrev_b64")?, 0)?;
    let top = reg(find("v_lshrrev_b32_e32")?, 2)?;
    let dv = reg(find("v_cmp_ge_u64_e64")?, 2)?;
    // The round ends counting down and comparing the count with zero: the back branch
    // is taken `rounds − 1` times.
    let [.., dec, cmp] = body else {
        return None;
    };
    let imm = |x: &Instruction, i: usize| x.operands.get(i).and_then(|o| o.imm);
    let ok = init.mnemonic == "s_mov_b32"
        && dec.mnemonic == "s_sub_u32"
        && [reg(dec, 0), reg(dec, 1)] == [Some(count), Some(count)]
        && imm(dec, 2) == Some(1)
        && cmp.mnemonic == "s_cmp_lg_u32"
        && reg(cmp, 0) == Some(count)
        && imm(cmp, 1) == Some(0)
        && top.first > 0
        && dv.count == 2
        // Three distinct pairs.
        && [rr.first.abs_diff(top.first - 1), rr.first.abs_diff(dv.first), (top.first - 1).abs_diff(dv.first)]
            .iter()
            .all(|&d| d >= 2);
    ok.then_some((
        DivLoop {
            rr: rr.first,
            n: top.first - 1,
            dv: dv.first,
            count: count.first,
            rounds,
        },
        body,
    ))
}

/// `udiv` or `urem` of `bits`-bit vectors: an uninterpreted function (module docs).
fn quotient_fn(bits: u32, remainder: bool) -> FuncDecl {
    let bv = Sort::bitvector(bits);
    let name = if remainder { "urem" } else { "udiv" };
    FuncDecl::new(format!("{name}{bits}"), &[&bv, &bv], &bv)
}

fn apply(f: &FuncDecl, a: &BV, b: &BV) -> BV {
    f.apply(&[a, b]).as_bv().expect("a bit-vector function")
}

/// `op.width a, b` of the IR for a division or remainder, with `udiv`/`urem` the
/// functions of [`quotient_fn`]: the unsigned ones directly, the signed ones by SMT-LIB's
/// definition of `bvsdiv`/`bvsrem` (the magnitudes divided, the quotient negated when
/// the signs differ, the remainder given the dividend's sign).
pub(super) fn division_form(op: BinOp, width: Width, a: &BV, b: &BV) -> BV {
    let bits = if width == Width::W32 { 32 } else { 64 };
    let (a, b) = (a.extract(bits - 1, 0), b.extract(bits - 1, 0));
    let r = form_with(op, &a, &b, &|x, y, remainder| {
        apply(&quotient_fn(bits, remainder), x, y)
    });
    if bits == 64 {
        r
    } else {
        r.zero_ext(32)
    }
}

/// [`division_form`] at the width of `a` and `b`, with `unsigned(x, y, remainder)` the
/// unsigned quotient or remainder.
fn form_with(op: BinOp, a: &BV, b: &BV, unsigned: &dyn Fn(&BV, &BV, bool) -> BV) -> BV {
    let bits = a.get_size();
    let remainder = matches!(op, BinOp::RemU | BinOp::RemS);
    match op {
        BinOp::DivU | BinOp::RemU => unsigned(a, b, remainder),
        _ => {
            let neg = |x: &BV| x.extract(bits - 1, bits - 1).eq(BV::from_u64(1, 1));
            let (na, nb) = (neg(a), neg(b));
            let (ma, mb) = (na.ite(&a.bvneg(), a), nb.ite(&b.bvneg(), b));
            let m = unsigned(&ma, &mb, remainder);
            let negate = if remainder {
                na
            } else {
                Bool::or(&[Bool::and(&[&na, &nb.not()]), Bool::and(&[&na.not(), &nb])])
            };
            negate.ite(&m.bvneg(), &m)
        }
    }
}

fn pair(lane: &mut Lane, r: u32) -> BV {
    lane.vgpr(r + 1).concat(lane.vgpr(r))
}

/// Passes `lane` over the division loop `l` (`body` its round): the registers the round
/// writes hold anything, the count zero and `scc` clear (the loop has ended), and — when
/// the lane is in `exec` on this path — the remainder and quotient pairs the summary's
/// (module docs). What the summary needs at the label is pushed to `claims`.
pub(super) fn summary(
    lane: &mut Lane,
    l: &DivLoop,
    body: &[Instruction],
    claims: &mut Vec<(String, Bool)>,
) -> Result<(), String> {
    prove_round_cached(body, l)?;
    lemma_cached()?;
    let on = Bool::and(&[lane.in_exec(), lane.path.clone()]);
    let (rr0, n0, d) = (pair(lane, l.rr), pair(lane, l.n), pair(lane, l.dv));
    let zero = |bits: u32| BV::from_u64(0, bits);
    claims.push((
        "the division starts with its count".into(),
        lane.sgpr(l.count).eq(BV::from_u64(u64::from(l.rounds), 32)),
    ));
    claims.push((
        "the division's remainder starts at zero".into(),
        on.implies(rr0.eq(zero(64))),
    ));
    let (q, r) = match l.rounds {
        64 => (
            apply(&quotient_fn(64, false), &n0, &d),
            apply(&quotient_fn(64, true), &n0, &d),
        ),
        32 => {
            // A 32-bit dividend in the high word, a 32-bit divisor.
            claims.push((
                "a 32-bit division's dividend in the high word, its divisor in the low".into(),
                on.implies(Bool::and(&[
                    n0.extract(31, 0).eq(zero(32)),
                    d.extract(63, 32).eq(zero(32)),
                ])),
            ));
            let (t, d32) = (n0.extract(63, 32), d.extract(31, 0));
            (
                apply(&quotient_fn(32, false), &t, &d32).zero_ext(32),
                apply(&quotient_fn(32, true), &t, &d32).zero_ext(32),
            )
        }
        n => return Err(format!("a division loop of {n} rounds")),
    };
    let (old_rr, old_n) = (rr0, n0);
    // The halves of `vcc` a round writes (a carry: wave32 writes `vcc_lo` only), from a
    // symbolic run of it.
    let mut round = lane.clone();
    for x in body {
        round
            .step(x)
            .map_err(|e| format!("{e} (in the division's `{}`)", x.mnemonic))?;
    }
    let mut vcc = lane.vcc.clone();
    for half in 0..2 {
        let word = |v: &BV| v.extract(32 * half + 31, 32 * half).simplify();
        if word(&round.vcc) != word(&lane.vcc) {
            let fresh = BV::new_const(format!("div.vcc{half}"), 32);
            vcc = super::with_half(&vcc, half, fresh);
        }
    }
    for x in body {
        let Some(r) = x.operands.first().and_then(|o| o.reg) else {
            continue;
        };
        for w in 0..r.count {
            let i = r.first + w;
            let fresh = BV::new_const(format!("div.{:?}{i}", r.file), 32);
            match r.file {
                crate::reg::RegFile::Vgpr => {
                    lane.v.insert(i, fresh);
                }
                crate::reg::RegFile::Sgpr => {
                    lane.s.insert(i, fresh);
                }
                _ => {}
            }
        }
    }
    lane.vcc = vcc;
    lane.scc = Bool::from_bool(false);
    lane.s.insert(l.count, zero(32));
    let mut set = |at: u32, new: &BV, old: &BV| {
        let v = on.ite(new, old);
        lane.v.insert(at, v.extract(31, 0));
        lane.v.insert(at + 1, v.extract(63, 32));
    };
    set(l.rr, &r, &old_rr);
    set(l.n, &q, &old_n);
    Ok(())
}

/// Proves that `body`, run from any state of an active lane, is the reference round
/// (module docs, 1); `Err` with a counterexample or why not.
pub(super) fn prove_round(body: &[Instruction], l: &DivLoop) -> Result<(), String> {
    let mut lane = Lane::active();
    let (rr, n, d) = (
        pair(&mut lane, l.rr),
        pair(&mut lane, l.n),
        pair(&mut lane, l.dv),
    );
    let count = lane.sgpr(l.count);
    let exec = lane.exec.clone();
    for x in body {
        lane.step(x)
            .map_err(|e| format!("{e} (in the division's `{}`)", x.mnemonic))?;
    }
    let one = |bits: u32| BV::from_u64(1, bits);
    let r1 = rr.bvshl(one(64)).bvor(n.bvlshr(BV::from_u64(63, 64)));
    let c = r1.bvuge(&d);
    let goals = [
        (
            "the remainder",
            pair(&mut lane, l.rr).eq(c.ite(&r1.bvsub(&d), &r1)),
        ),
        (
            "the quotient bit",
            pair(&mut lane, l.n).eq(n.bvshl(one(64)).bvor(c.ite(&one(64), &BV::from_u64(0, 64)))),
        ),
        ("the divisor kept", pair(&mut lane, l.dv).eq(&d)),
        ("the count", lane.sgpr(l.count).eq(count.bvsub(one(32)))),
        ("exec kept", lane.exec.eq(&exec)),
    ];
    for (what, goal) in goals {
        let solver = warptrace_verifier::solver();
        solver.assert(goal.not());
        match warptrace_verifier::proof_cache::check(&solver) {
            SatResult::Unsat => {}
            SatResult::Sat => {
                return Err(format!(
                    "counterexample (a round of the division loop: {what})"
                ))
            }
            SatResult::Unknown => return Err(format!("unknown (a round of the division: {what})")),
        }
    }
    Ok(())
}

/// [`prove_round`], once per round text and registers in the process.
fn prove_round_cached(body: &[Instruction], l: &DivLoop) -> Result<(), String> {
    static PROVED: Proofs<(String, [u32; 5]), Result<(), String>> = Proofs::new();
    let key = (code_text(body), [l.rr, l.n, l.dv, l.count, l.rounds]);
    once(&PROVED, key, || prove_round(body, l))
}

/// Proves the reference rounds compute unsigned division (module docs, 2). `skip_borrow`
/// drops the subtraction from the step (a test's mutant: then it fails).
pub(super) fn lemma(skip_borrow: bool) -> Result<(), String> {
    let prove = |what: &str, hyps: &[Bool], goal: Bool| -> Result<(), String> {
        let solver = warptrace_verifier::solver();
        for h in hyps {
            solver.assert(h);
        }
        solver.assert(goal.not());
        match warptrace_verifier::proof_cache::check(&solver) {
            SatResult::Unsat => Ok(()),
            SatResult::Sat => Err(format!("the restoring division's {what} does not hold")),
            SatResult::Unknown => Err(format!("z3 gave up on the restoring division's {what}")),
        }
    };
    // The step, over the integers.
    let v = |n: &str| Int::new_const(n);
    let (t, q, r, d, p, b) = (v("T"), v("Q"), v("R"), v("D"), v("P"), v("b"));
    let k = |x: u64| Int::from_u64(x);
    let two = k(2);
    let top = Int::from_u64(1 << 63);
    let r1 = &two * &r + &b;
    let c = r1.ge(&d);
    let r2 = if skip_borrow {
        r1.clone()
    } else {
        c.ite(&(&r1 - &d), &r1)
    };
    let q2 = &two * &q + c.ite(&k(1), &k(0));
    let hyps = [
        d.ge(k(1)),
        r.ge(k(0)),
        r.lt(&d),
        r.lt(&p),
        p.ge(k(1)),
        p.le(&top),
        q.ge(k(0)),
        q.lt(&p),
        t.eq(&(&q * &d + &r)),
        Bool::or(&[b.eq(k(0)), b.eq(k(1))]),
    ];
    let p2 = &two * &p;
    let goal = Bool::and(&[
        (&two * &t + &b).eq(&(&q2 * &d + &r2)),
        r2.ge(k(0)),
        r2.lt(&d),
        r2.lt(&p2),
        q2.lt(&p2),
    ]);
    prove("invariant", &hyps, goal)?;
    // The end: the quotient and remainder are unique.
    let end = [
        d.ge(k(1)),
        r.ge(k(0)),
        r.lt(&d),
        q.ge(k(0)),
        t.eq(&(&q * &d + &r)),
    ];
    prove(
        "end",
        &end,
        Bool::and(&[q.eq(t.div(&d)), r.eq(t.modulo(&d))]),
    )?;
    // The bits, over 64-bit vectors with `k` rounds done.
    let bv = |n: &str| BV::new_const(n, 64);
    let (n0, qq, kk) = (bv("n0"), bv("q"), bv("k"));
    let c64 = |x: u64| BV::from_u64(x, 64);
    let mask = |s: &BV| c64(1).bvshl(s).bvsub(c64(1));
    let n = n0.bvshl(&kk).bvor(&qq);
    let bit = n0.bvlshr(c64(63).bvsub(&kk)).bvand(c64(1));
    let t_k = n0.bvlshr(c64(64).bvsub(&kk));
    let t_next = n0.bvlshr(c64(63).bvsub(&kk));
    let cb = BV::new_const("c", 1).zero_ext(63);
    let q_next = qq.bvshl(c64(1)).bvor(&cb);
    let k1 = kk.bvadd(c64(1));
    let hyps = [kk.bvult(c64(64)), qq.bvule(mask(&kk))];
    let goal = Bool::and(&[
        n.bvlshr(c64(63)).eq(&bit),
        t_next.eq(t_k.bvshl(c64(1)).bvor(&bit)),
        n.bvshl(c64(1)).bvor(&cb).eq(n0.bvshl(&k1).bvor(&q_next)),
        q_next.bvule(mask(&k1)),
    ]);
    prove("bits", &hyps, goal)
}

/// [`lemma`], once in the process.
fn lemma_cached() -> Result<(), String> {
    static PROVED: OnceLock<Result<(), String>> = OnceLock::new();
    PROVED.get_or_init(|| lemma(false)).clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The restatement of signed division and remainder is z3's own where `udiv` and
    /// `urem` are the real ones (8 and 10 bits, every input); the lemma holds and fails
    /// without the subtraction.
    #[test]
    fn the_signed_restatement_and_the_lemma_hold() {
        for bits in [8u32, 10] {
            let (a, b) = (BV::new_const("a", bits), BV::new_const("b", bits));
            for (op, real) in [
                (BinOp::DivS, a.bvsdiv(&b)),
                (BinOp::RemS, a.bvsrem(&b)),
                (BinOp::DivU, a.bvudiv(&b)),
                (BinOp::RemU, a.bvurem(&b)),
            ] {
                let ours = form_with(op, &a, &b, &|x, y, remainder| {
                    if remainder {
                        x.bvurem(y)
                    } else {
                        x.bvudiv(y)
                    }
                });
                // No resource limit: the check bit-blasts two dividers.
                let solver = z3::Solver::new();
                solver.assert(ours.eq(&real).not());
                assert_eq!(solver.check(), SatResult::Unsat, "{op:?} at {bits} bits");
            }
        }
        assert_eq!(lemma(false), Ok(()));
        assert!(lemma(true).is_err());
    }
}
