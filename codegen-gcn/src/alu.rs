//! `Bin` (ALU operations at width 32 or 64) and `Ext` on VGPR pairs, per `docs/ir.md`'s
//! ALU semantics. Unsigned division and remainder by a power of two are a shift and a
//! mask; other divisions are a restoring division, one quotient bit a round, in a counted
//! loop ([`divide`]). Shifts take their amount modulo the width, as the VALU shifts do
//! with a register amount.

use crate::emit::{hi, lo, Emitter};
use crate::lower::{src, unsupported, Cx};
use crate::reg::{Reg, RegFile};
use crate::Error;
use warptrace_ir::{BinOp, ExtFrom, Operand, Width};

/// The power of two an unsigned division or remainder divides by, if it is one (then a
/// shift or a mask).
pub(crate) fn power_of_two_divisor(op: BinOp, b: &Operand) -> Option<u64> {
    match (op, b) {
        (BinOp::DivU | BinOp::RemU, Operand::Imm(v)) if *v > 0 && (*v as u64).is_power_of_two() => {
            Some(*v as u64)
        }
        _ => None,
    }
}

/// `d = op.width a, b`; `label` names the loop of a division (unique in the kernel).
#[allow(clippy::too_many_arguments)]
pub(crate) fn bin(
    cx: &Cx<'_>,
    e: &mut Emitter,
    op: BinOp,
    width: Width,
    d: Reg,
    a: &Operand,
    b: &Operand,
    label: &str,
) -> Result<(), Error> {
    let r = cx.regs;
    if op.divides() {
        // Unsigned division and remainder by a power of two are a shift and a mask.
        let Some(p) = power_of_two_divisor(op, b) else {
            let av = src(cx, e, a, r.ta)?;
            let bv = src(cx, e, b, r.tb)?;
            divide(cx, e, op, width, d, av, bv, label);
            return Ok(());
        };
        let av = src(cx, e, a, r.ta)?;
        if op == BinOp::DivU && width == Width::W32 {
            // Of the low word only: a 64-bit shift would bring the high word's bits in.
            e.ins(format!(
                "v_lshrrev_b32_e64 {}, {}, {}",
                lo(d),
                p.trailing_zeros(),
                lo(av)
            ));
        } else if op == BinOp::DivU {
            e.shift64("v_lshrrev_b64", d, av, p.trailing_zeros());
        } else {
            e.imm64(r.tb, p - 1);
            e.bit64("and", d, av, r.tb);
        }
        if width == Width::W32 {
            e.ins(format!("v_mov_b32_e32 {}, 0", hi(d)));
        }
        return Ok(());
    }
    let shift = matches!(op, BinOp::Shl | BinOp::ShrU | BinOp::ShrS);
    let av = src(cx, e, a, r.ta)?;
    if shift {
        // The amount is taken modulo the width, as the VALU shifts do with a register
        // amount (the low 5 or 6 bits).
        let bits = if width == Width::W32 { 32 } else { 64 };
        let amount = match b {
            Operand::Imm(n) => ((*n as u64) % bits).to_string(),
            Operand::Reg(x) => lo(crate::lower::ir_reg(cx, x.0)?),
        };
        let (l, h) = (lo(d), hi(d));
        let (op32, op64) = match op {
            BinOp::Shl => ("v_lshlrev_b32_e64", "v_lshlrev_b64"),
            BinOp::ShrU => ("v_lshrrev_b32_e64", "v_lshrrev_b64"),
            _ => ("v_ashrrev_i32_e64", "v_ashrrev_i64"),
        };
        if width == Width::W32 {
            e.ins(format!("{op32} {l}, {amount}, {}", lo(av)));
            e.ins(format!("v_mov_b32_e32 {h}, 0"));
        } else {
            e.ins(format!("{op64} {}, {amount}, {}", d.name(), av.name()));
        }
        return Ok(());
    }
    let bv = src(cx, e, b, r.tb)?;
    match op {
        BinOp::Add => e.add64(d, av, bv),
        BinOp::Sub => e.sub64(d, av, bv),
        BinOp::Mul => e.mul64(d, av, bv, r.tc),
        BinOp::And => e.bit64("and", d, av, bv),
        BinOp::Or => e.bit64("or", d, av, bv),
        BinOp::Xor => e.bit64("xor", d, av, bv),
        cmp => {
            let (name, ty) = match (cmp, width) {
                (BinOp::Eq, _) => ("eq", "u"),
                (BinOp::Ne, _) => ("ne", "u"),
                (BinOp::LtU, _) => ("lt", "u"),
                (BinOp::LtS, _) => ("lt", "i"),
                (BinOp::LeU, _) => ("le", "u"),
                (BinOp::LeS, _) => ("le", "i"),
                (BinOp::GtU, _) => ("gt", "u"),
                (BinOp::GtS, _) => ("gt", "i"),
                (BinOp::GeU, _) => ("ge", "u"),
                (BinOp::GeS, _) => ("ge", "i"),
                _ => return Err(unsupported(op.mnemonic())),
            };
            let c = r.cmp_mask(cx.t).name();
            if width == Width::W32 {
                e.ins(format!(
                    "v_cmp_{name}_{ty}32_e64 {c}, {}, {}",
                    lo(av),
                    lo(bv)
                ));
            } else {
                e.ins(format!(
                    "v_cmp_{name}_{ty}64_e64 {c}, {}, {}",
                    av.name(),
                    bv.name()
                ));
            }
            e.ins(format!("v_cndmask_b32_e64 {}, 0, 1, {c}", lo(d)));
            e.ins(format!("v_mov_b32_e32 {}, 0", hi(d)));
            return Ok(());
        }
    }
    if width == Width::W32 {
        e.ins(format!("v_mov_b32_e32 {}, 0", hi(d)));
    }
    Ok(())
}

/// The rounds of a division: its width, one quotient bit each.
const DIVISION_ROUNDS: [u32; 2] = [32, 64];

/// `d = a op b` for `div.u`, `rem.u`, `div.s`, `rem.s` (`docs/ir.md`: unsigned, or
/// truncating toward zero with the remainder the dividend's sign; the most negative value
/// by −1 wraps). The divisor is not zero: the IR verifier proves it (`DivisorMayBeZero`).
///
/// The magnitudes `n` (dividend) and `dv` (divisor) are divided by restoring division:
/// each of `W` rounds shifts the remainder `rr` and `n` left as one `2W`-bit value (`n`'s
/// top bit enters `rr`) and, when `rr ≥ dv`, subtracts `dv` from `rr` and sets `n`'s low
/// bit — after the rounds `n` is the quotient and `rr` the remainder. A 32-bit dividend
/// starts in `n`'s high word, so that its 32 rounds leave the quotient in the low word.
/// The shifted remainder needs no bit beyond the width: after `k` rounds `rr` is the top
/// `k` bits of the dividend modulo `dv`, below `2^k`, so before the last shift it is below
/// `2^(W−1)`. The signed forms divide the magnitudes (`(x ^ s) − s` with `s` the sign
/// mask) and give the quotient the sign of `a ^ b`, the remainder `a`'s.
///
/// ```text
///     s_mov_b32 st, W               ; the rounds
/// L:  v_lshlrev_b64 rr, 1, rr
///     v_lshrrev_b32 t, 31, n.hi     ; n's top bit enters rr
///     v_or_b32 rr.lo, rr.lo, t
///     v_lshlrev_b64 n, 1, n
///     v_cmp_ge_u64 cmp, rr, dv
///     ...                           ; rr = cmp ? rr − dv : rr;  n.lo |= cmp
///     s_sub_u32 st, st, 1
///     s_cmp_lg_u32 st, 0
///     s_cbranch_scc1 L
/// ```
///
/// The loop is the counted loop the kernel model accepts (`model.rs`: a count set to an
/// immediate before the label, decremented once a round, written nowhere else): every
/// lane of `exec` runs the same rounds, so it neither diverges nor changes `exec`.
/// Registers: `n` and `rr` the `data` quad, `dv` the `one` pair, the subtraction and the
/// quotient bit in `tc`, the sign masks in `old`, the rounds in `st`; `vcc` (the snippet
/// saves it).
#[allow(clippy::too_many_arguments)]
fn divide(
    cx: &Cx<'_>,
    e: &mut Emitter,
    op: BinOp,
    width: Width,
    d: Reg,
    av: Reg,
    bv: Reg,
    label: &str,
) {
    let r = cx.regs;
    let pair = |first: u32| Reg::new(RegFile::Vgpr, first, 2);
    let (n, rr, dv, t) = (pair(r.data.first), pair(r.data.first + 2), r.one, r.tc);
    let (st, sign) = (r.st.name(), r.old);
    let signed = matches!(op, BinOp::DivS | BinOp::RemS);
    let w64 = width == Width::W64;
    // The sign masks of `a` (low word of `old`) and `b` (high word), from their top bits.
    if signed {
        let top = |x: Reg| if w64 { hi(x) } else { lo(x) };
        e.ins(format!("v_ashrrev_i32_e32 {}, 31, {}", lo(sign), top(av)));
        e.ins(format!("v_ashrrev_i32_e32 {}, 31, {}", hi(sign), top(bv)));
    }
    // The magnitudes: `n` from `a`, `dv` from `b` (32-bit: `n`'s high word, `dv`'s low).
    let magnitude = |e: &mut Emitter, to: Reg, x: Reg, s: &str, high: bool| {
        if w64 {
            if signed {
                e.ins(format!("v_xor_b32_e32 {}, {}, {s}", lo(to), lo(x)));
                e.ins(format!("v_xor_b32_e32 {}, {}, {s}", hi(to), hi(x)));
                let (l, h) = (lo(to), hi(to));
                e.sub64_words([&l, &h], [&l, &h], [s, s]);
            } else {
                e.mov64(to, x);
            }
        } else {
            let (word, other) = if high {
                (hi(to), lo(to))
            } else {
                (lo(to), hi(to))
            };
            if signed {
                e.ins(format!("v_xor_b32_e32 {word}, {}, {s}", lo(x)));
                e.sub32(&word, &word, s);
            } else {
                e.ins(format!("v_mov_b32_e32 {word}, {}", lo(x)));
            }
            e.ins(format!("v_mov_b32_e32 {other}, 0"));
        }
    };
    magnitude(e, n, av, &lo(sign), true);
    magnitude(e, dv, bv, &hi(sign), false);
    e.imm64(rr, 0);
    let rounds = DIVISION_ROUNDS[usize::from(w64)];
    e.ins(format!("s_mov_b32 {st}, {rounds}"));
    let l = format!("{label}_div");
    e.label(&l);
    let cmp = r.cmp_mask(cx.t).name();
    e.shift64("v_lshlrev_b64", rr, rr, 1);
    e.ins(format!("v_lshrrev_b32_e32 {}, 31, {}", lo(t), hi(n)));
    e.ins(format!("v_or_b32_e32 {}, {}, {}", lo(rr), lo(rr), lo(t)));
    e.shift64("v_lshlrev_b64", n, n, 1);
    e.ins(format!(
        "v_cmp_ge_u64_e64 {cmp}, {}, {}",
        rr.name(),
        dv.name()
    ));
    e.sub64(t, rr, dv);
    e.ins(format!(
        "v_cndmask_b32_e64 {}, {}, {}, {cmp}",
        lo(rr),
        lo(rr),
        lo(t)
    ));
    e.ins(format!(
        "v_cndmask_b32_e64 {}, {}, {}, {cmp}",
        hi(rr),
        hi(rr),
        hi(t)
    ));
    e.ins(format!("v_cndmask_b32_e64 {}, 0, 1, {cmp}", lo(t)));
    e.ins(format!("v_or_b32_e32 {}, {}, {}", lo(n), lo(n), lo(t)));
    e.ins(format!("s_sub_u32 {st}, {st}, 1"));
    e.ins(format!("s_cmp_lg_u32 {st}, 0"));
    e.ins(format!("s_cbranch_scc1 {l}"));
    // The result, with its sign: the quotient's is `a ^ b`'s, the remainder's `a`'s.
    let quotient = matches!(op, BinOp::DivU | BinOp::DivS);
    let x = if quotient { n } else { rr };
    if signed {
        if quotient {
            e.ins(format!(
                "v_xor_b32_e32 {}, {}, {}",
                lo(sign),
                lo(sign),
                hi(sign)
            ));
        }
        let s = lo(sign);
        e.ins(format!("v_xor_b32_e32 {}, {}, {s}", lo(x), lo(x)));
        if w64 {
            e.ins(format!("v_xor_b32_e32 {}, {}, {s}", hi(x), hi(x)));
            e.sub64_words([&lo(d), &hi(d)], [&lo(x), &hi(x)], [&s, &s]);
        } else {
            e.sub32(&lo(d), &lo(x), &s);
        }
    } else if w64 {
        e.mov64(d, x);
    } else {
        e.ins(format!("v_mov_b32_e32 {}, {}", lo(d), lo(x)));
    }
    if !w64 {
        e.ins(format!("v_mov_b32_e32 {}, 0", hi(d)));
    }
}

/// `d = sext.N s` / `zext.N s`.
pub(crate) fn ext(
    cx: &Cx<'_>,
    e: &mut Emitter,
    d: Reg,
    s: &Operand,
    from: ExtFrom,
    signed: bool,
) -> Result<(), Error> {
    let s = src(cx, e, s, cx.regs.ta)?;
    let (l, h) = (lo(d), hi(d));
    match (from, signed) {
        (ExtFrom::B32, _) => e.ins(format!("v_mov_b32_e32 {l}, {}", lo(s))),
        (f, false) => e.ins(format!("v_bfe_u32 {l}, {}, 0, {}", lo(s), f.bits())),
        (f, true) => e.ins(format!("v_bfe_i32 {l}, {}, 0, {}", lo(s), f.bits())),
    }
    if signed {
        e.ins(format!("v_ashrrev_i32_e32 {h}, 31, {l}"));
    } else {
        e.ins(format!("v_mov_b32_e32 {h}, 0"));
    }
    Ok(())
}
