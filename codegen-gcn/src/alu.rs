//! `Bin` (ALU operations at width 32 or 64) and `Ext` on VGPR pairs, per `docs/ir.md`'s
//! ALU semantics. Unsigned division and remainder by a power of two are a shift and a
//! mask (other divisions are not lowered yet); shifts take their amount modulo the width,
//! as the VALU shifts do with a register amount.

use crate::emit::{hi, lo, Emitter};
use crate::lower::{src, unsupported, Cx};
use crate::reg::Reg;
use crate::GcnError;
use warptrace_ir::{BinOp, ExtFrom, Operand, Width};

pub(crate) fn bin(
    cx: &Cx<'_>,
    e: &mut Emitter,
    op: BinOp,
    width: Width,
    d: Reg,
    a: &Operand,
    b: &Operand,
) -> Result<(), GcnError> {
    let r = cx.regs;
    if op.divides() {
        // Unsigned division and remainder by a power of two are a shift and a mask;
        // other divisions are not lowered yet.
        let pow2 = match b {
            Operand::Imm(v) if *v > 0 && (*v as u64).is_power_of_two() => Some(*v as u64),
            _ => None,
        };
        let (Some(p), BinOp::DivU | BinOp::RemU) = (pow2, op) else {
            return Err(unsupported(format!("{} on GCN", op.mnemonic())));
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

/// `d = sext.N s` / `zext.N s`.
pub(crate) fn ext(
    cx: &Cx<'_>,
    e: &mut Emitter,
    d: Reg,
    s: &Operand,
    from: ExtFrom,
    signed: bool,
) -> Result<(), GcnError> {
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
