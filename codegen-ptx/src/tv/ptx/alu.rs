//! The register-to-register instructions of the PTX semantics: their operand types,
//! widths and values, including PTX's clamped shifts, `bfe`'s bit-by-bit definition and
//! the unspecified results of division.

use super::{int_type, Class, Kind, Machine, Res, SemError, Val, ALU};
use crate::parse::Operand;
use z3::ast::{Ast, Bool, BV};

impl Machine {
    /// Register-to-register instructions: the destination and its new value.
    pub(super) fn alu(
        &mut self,
        root: &str,
        mods: &[&str],
        ops: &[Operand],
        text: &str,
    ) -> Res<(String, Val)> {
        let bad = |why: &str| SemError::Unsupported {
            text: text.to_owned(),
            why: why.to_owned(),
        };
        let arity = |n: usize| {
            if ops.len() == n {
                Ok(())
            } else {
                Err(bad(&format!("expects {n} operands")))
            }
        };
        let one = |ok: &dyn Fn(Kind) -> bool, widths: &[u32]| -> Res<(Kind, u32)> {
            match mods {
                [m] => int_type(m, widths)
                    .filter(|(k, _)| ok(*k))
                    .ok_or_else(|| bad("type")),
                _ => Err(bad("modifiers")),
            }
        };
        let any = |_: Kind| true;
        let su = |k: Kind| k != Kind::B;
        let b_only = |k: Kind| k == Kind::B;
        Ok(match root {
            "mov" => {
                arity(2)?;
                if mods == ["pred"] {
                    let d = self.dst(ops.first(), Class::Pred, text)?;
                    let a = self.src_pred(&ops[1], text)?;
                    return Ok((d, Val::Pred(a)));
                }
                let (_, w) = one(&any, ALU)?;
                let d = self.dst(ops.first(), Class::Bits(w), text)?;
                let a = match &ops[1] {
                    Operand::Symbol(s) if w == 64 => BV::new_const(s.as_str(), 64),
                    op => self.src(op, w, text)?,
                };
                (d, Val::Bv(a))
            }
            "add" | "sub" | "min" | "max" | "div" | "rem" => {
                arity(3)?;
                let (k, w) = one(&su, ALU)?;
                let d = self.dst(ops.first(), Class::Bits(w), text)?;
                let a = self.src(&ops[1], w, text)?;
                let b = self.src(&ops[2], w, text)?;
                let s = k == Kind::S;
                let v = match root {
                    "add" => crate::tv::ir::add(&a, &b),
                    "sub" => a.bvsub(&b),
                    "min" if s => a.bvslt(&b).ite(&a, &b),
                    "min" => a.bvult(&b).ite(&a, &b),
                    "max" if s => a.bvsgt(&b).ite(&a, &b),
                    "max" => a.bvugt(&b).ite(&a, &b),
                    _ => self.divide(root == "div", s, &a, &b, w),
                };
                (d, Val::Bv(v))
            }
            "mul" | "mad" => {
                let [mode, ty] = mods else {
                    return Err(bad("modifiers"));
                };
                let (k, w) = int_type(ty, ALU)
                    .filter(|(k, _)| *k != Kind::B)
                    .ok_or_else(|| bad("type"))?;
                arity(if root == "mad" { 4 } else { 3 })?;
                let wide = *mode == "wide";
                if !matches!(*mode, "lo" | "hi" | "wide") || (wide && w == 64) {
                    return Err(bad("mode"));
                }
                let dw = if wide { 2 * w } else { w };
                let d = self.dst(ops.first(), Class::Bits(dw), text)?;
                let a = self.src(&ops[1], w, text)?;
                let b = self.src(&ops[2], w, text)?;
                let ext = |x: &BV| {
                    if k == Kind::S {
                        x.sign_ext(w)
                    } else {
                        x.zero_ext(w)
                    }
                };
                // The low half of the product does not depend on the extension: the
                // `w`-bit product, which keeps the terms small.
                let mul = crate::tv::ir::mul;
                let mut v = match *mode {
                    "lo" => mul(&a, &b),
                    "hi" => mul(&ext(&a), &ext(&b)).extract(2 * w - 1, w),
                    _ => mul(&ext(&a), &ext(&b)),
                };
                if root == "mad" {
                    let c = self.src(&ops[3], dw, text)?;
                    v = crate::tv::ir::add(&v, &c);
                }
                (d, Val::Bv(v))
            }
            "and" | "or" | "xor" | "not" => {
                arity(if root == "not" { 2 } else { 3 })?;
                if mods == ["pred"] {
                    let d = self.dst(ops.first(), Class::Pred, text)?;
                    let a = self.src_pred(&ops[1], text)?;
                    let v = match root {
                        "not" => a.not(),
                        _ => {
                            let b = self.src_pred(&ops[2], text)?;
                            match root {
                                "and" => Bool::and(&[&a, &b]),
                                "or" => Bool::or(&[&a, &b]),
                                _ => a.xor(&b),
                            }
                        }
                    };
                    return Ok((d, Val::Pred(v)));
                }
                let (_, w) = one(&b_only, ALU)?;
                let d = self.dst(ops.first(), Class::Bits(w), text)?;
                let a = self.src(&ops[1], w, text)?;
                let v = match root {
                    "not" => a.bvnot(),
                    _ => {
                        let b = self.src(&ops[2], w, text)?;
                        match root {
                            "and" => a.bvand(&b),
                            "or" => a.bvor(&b),
                            _ => a.bvxor(&b),
                        }
                    }
                };
                (d, Val::Bv(v))
            }
            "neg" => {
                arity(2)?;
                let (_, w) = one(&|k| k == Kind::S, ALU)?;
                let d = self.dst(ops.first(), Class::Bits(w), text)?;
                let a = self.src(&ops[1], w, text)?;
                (d, Val::Bv(a.bvneg()))
            }
            "shl" | "shr" => {
                arity(3)?;
                let (k, w) = if root == "shl" {
                    one(&b_only, ALU)?
                } else {
                    one(&any, ALU)?
                };
                let d = self.dst(ops.first(), Class::Bits(w), text)?;
                let a = self.src(&ops[1], w, text)?;
                // The amount is always .u32; amounts >= the width are clamped to it.
                let n = self.src(&ops[2], 32, text)?;
                if let Some(c) = n.as_u64() {
                    // A constant amount: the clamp decided here, small terms.
                    let v = match (root, k, c >= u64::from(w)) {
                        ("shl", _, true) | (_, Kind::B | Kind::U, true) => BV::from_u64(0, w),
                        (_, Kind::S, true) => a.bvashr(BV::from_u64(u64::from(w - 1), w)),
                        ("shl", _, false) => a.bvshl(BV::from_u64(c, w)),
                        (_, Kind::S, false) => a.bvashr(BV::from_u64(c, w)),
                        _ => a.bvlshr(BV::from_u64(c, w)),
                    };
                    return Ok((d, Val::Bv(v)));
                }
                let big = n.bvuge(BV::from_u64(u64::from(w), 32));
                let n = if w > 32 {
                    n.zero_ext(w - 32)
                } else {
                    n.extract(w - 1, 0)
                };
                let v = match (root, k) {
                    ("shl", _) => big.ite(&BV::from_u64(0, w), &a.bvshl(&n)),
                    (_, Kind::S) => {
                        let sign = a.bvashr(BV::from_u64(u64::from(w - 1), w));
                        big.ite(&sign, &a.bvashr(&n))
                    }
                    _ => big.ite(&BV::from_u64(0, w), &a.bvlshr(&n)),
                };
                (d, Val::Bv(v))
            }
            "setp" => {
                arity(3)?;
                let [cmp, ty] = mods else {
                    return Err(bad(
                        "modifiers (a combining boolean operation is not covered)",
                    ));
                };
                let (k, w) = int_type(ty, ALU).ok_or_else(|| bad("type"))?;
                let d = self.dst(ops.first(), Class::Pred, text)?;
                let a = self.src(&ops[1], w, text)?;
                let b = self.src(&ops[2], w, text)?;
                let signed = k == Kind::S;
                let v = match (*cmp, signed) {
                    ("eq", _) => a.eq(&b),
                    ("ne", _) => a.eq(&b).not(),
                    _ if k == Kind::B => return Err(bad("ordered comparison of a .b type")),
                    ("lt", true) => a.bvslt(&b),
                    ("le", true) => a.bvsle(&b),
                    ("gt", true) => a.bvsgt(&b),
                    ("ge", true) => a.bvsge(&b),
                    ("lt" | "lo", false) => a.bvult(&b),
                    ("le" | "ls", false) => a.bvule(&b),
                    ("gt" | "hi", false) => a.bvugt(&b),
                    ("ge" | "hs", false) => a.bvuge(&b),
                    _ => return Err(bad("comparison")),
                };
                (d, Val::Pred(v))
            }
            "selp" => {
                arity(4)?;
                let (_, w) = one(&any, ALU)?;
                let d = self.dst(ops.first(), Class::Bits(w), text)?;
                let a = self.src(&ops[1], w, text)?;
                let b = self.src(&ops[2], w, text)?;
                let c = self.src_pred(&ops[3], text)?;
                (d, Val::Bv(c.ite(&a, &b)))
            }
            "cvt" => {
                arity(2)?;
                let widths = &[8, 16, 32, 64];
                let [dt, st] = mods else {
                    return Err(bad("modifiers (rounding and saturation are not covered)"));
                };
                let (dk, dw) = int_type(dt, widths)
                    .filter(|(k, _)| *k != Kind::B)
                    .ok_or_else(|| bad("destination type"))?;
                let (sk, sw) = int_type(st, widths)
                    .filter(|(k, _)| *k != Kind::B)
                    .ok_or_else(|| bad("source type"))?;
                let _ = dk;
                // Registers are at least 16 bits; 8-bit types live in 16-bit registers.
                let d = self.dst(ops.first(), Class::Bits(dw.max(16)), text)?;
                let a = self.src(&ops[1], sw.max(16), text)?;
                let a = if sw < 16 { a.extract(sw - 1, 0) } else { a };
                let v = if dw > sw {
                    if sk == Kind::S {
                        a.sign_ext(dw - sw)
                    } else {
                        a.zero_ext(dw - sw)
                    }
                } else if dw < sw {
                    a.extract(dw - 1, 0)
                } else {
                    a
                };
                let v = if dw < 16 {
                    // An 8-bit result in a 16-bit register: extended by its own type.
                    if dk == Kind::S {
                        v.sign_ext(16 - dw)
                    } else {
                        v.zero_ext(16 - dw)
                    }
                } else {
                    v
                };
                (d, Val::Bv(v))
            }
            "clz" | "popc" => {
                arity(2)?;
                let (_, w) = one(&b_only, &[32, 64])?;
                let d = self.dst(ops.first(), Class::Bits(32), text)?;
                let a = self.src(&ops[1], w, text)?;
                let v = if root == "clz" { clz(&a) } else { popc(&a) };
                (d, Val::Bv(v))
            }
            "bfe" => {
                arity(4)?;
                let (k, w) = one(&su, &[32, 64])?;
                let d = self.dst(ops.first(), Class::Bits(w), text)?;
                let a = self.src(&ops[1], w, text)?;
                let pos = self.src(&ops[2], 32, text)?.simplify().as_u64();
                let len = self.src(&ops[3], 32, text)?.simplify().as_u64();
                let (Some(pos), Some(len)) = (pos, len) else {
                    return Err(bad("bfe with a non-constant position or length"));
                };
                (d, Val::Bv(bfe(&a, w, pos, len, k == Kind::S)))
            }
            "activemask" => {
                arity(1)?;
                if mods != ["b32"] {
                    return Err(bad("type"));
                }
                let d = self.dst(ops.first(), Class::Bits(32), text)?;
                // The mask of the lanes active at the site: one value per snippet; in the
                // warp model, one per read.
                let mask = match &mut self.warp {
                    Some(w) => w.activemask(),
                    None => BV::new_const("activemask", 32),
                };
                (d, Val::Bv(mask))
            }
            "redux" if self.warp.is_some() => self.redux(mods, ops, text)?,
            "match" if self.warp.is_some() => self.match_any(mods, ops, text)?,
            "vote" if self.warp.is_some() => self.ballot(mods, ops, text)?,
            _ => return Err(bad("instruction not in the modelled subset")),
        })
    }

    /// `div`/`rem`: unspecified (fresh) on a zero divisor and, for signed types, on the
    /// most negative value divided by -1 (PTX does not define the overflow). Signed
    /// division truncates toward zero (see the README's assumptions).
    fn divide(&mut self, div: bool, signed: bool, a: &BV, b: &BV, w: u32) -> BV {
        let zero = b.eq(BV::from_u64(0, w));
        let defined = match (div, signed) {
            (true, false) => a.bvudiv(b),
            (false, false) => a.bvurem(b),
            (true, true) => a.bvsdiv(b),
            (false, true) => a.bvsrem(b),
        };
        let all_ones = if w == 64 { u64::MAX } else { (1 << w) - 1 };
        let constant = b.as_u64();
        let v = match (signed, constant) {
            (true, Some(c)) if c != all_ones => defined,
            (true, _) => {
                let min = BV::from_u64(1 << (w - 1), w);
                let overflow = Bool::and(&[a.eq(&min), b.eq(BV::from_u64(all_ones, w))]);
                let f = self.fresh(w);
                overflow.ite(&f, &defined)
            }
            (false, _) => defined,
        };
        match constant {
            Some(0) => self.fresh(w),
            Some(_) => v,
            None => {
                let f = self.fresh(w);
                zero.ite(&f, &v)
            }
        }
    }
}

/// Count of leading zeros of `a`, as a 32-bit value: a priority chain from the top bit.
fn clz(a: &BV) -> BV {
    let w = a.get_size();
    let mut v = BV::from_u64(u64::from(w), 32);
    for i in 0..w {
        // Bit i set and no higher bit set: clz = w - 1 - i. Scanning upwards, the
        // highest set bit wins.
        let bit = a.extract(i, i).eq(BV::from_u64(1, 1));
        v = bit.ite(&BV::from_u64(u64::from(w - 1 - i), 32), &v);
    }
    v
}

/// Population count of `a`, as a 32-bit value.
pub(crate) fn popc(a: &BV) -> BV {
    let w = a.get_size();
    let mut v = BV::from_u64(0, 32);
    for i in 0..w {
        v = v.bvadd(a.extract(i, i).zero_ext(31));
    }
    v
}

/// `bfe` with a constant position and length, per the PTX ISA's bit-by-bit definition.
fn bfe(a: &BV, w: u32, pos: u64, len: u64, signed: bool) -> BV {
    let msb = u64::from(w - 1);
    let (pos, len) = (pos & 0xff, len & 0xff);
    let sbit = if !signed || len == 0 {
        BV::from_u64(0, 1)
    } else {
        let i = (pos + len - 1).min(msb) as u32;
        a.extract(i, i)
    };
    let mut bits: Vec<BV> = Vec::with_capacity(w as usize);
    for i in 0..=msb {
        bits.push(if i < len && pos + i <= msb {
            let j = (pos + i) as u32;
            a.extract(j, j)
        } else {
            sbit.clone()
        });
    }
    // Concatenate from the most significant bit down.
    let mut it = bits.into_iter().rev();
    let first = it.next().unwrap_or_else(|| BV::from_u64(0, 1));
    it.fold(first, |acc, b| acc.concat(&b))
}

/// An integer immediate as PTX writes it (`17`, `-3`, `0x1F`, optional `U` suffix), as
/// a `bits`-bit value; `None` unless it fits (unsigned, or negative decimal in range).
pub(super) fn parse_imm(text: &str, bits: u32) -> Option<u64> {
    let t = text.trim().trim_end_matches(['U', 'u']);
    let (neg, digits) = match t.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let magnitude = match digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        Some(h) => u64::from_str_radix(h, 16).ok()?,
        None if !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()) => {
            digits.parse::<u64>().ok()?
        }
        None => return None,
    };
    let mask = if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    if neg {
        // -2^(bits-1) ..= -1
        if magnitude == 0 || magnitude > 1u64 << (bits - 1) {
            return (magnitude == 0).then_some(0);
        }
        Some(magnitude.wrapping_neg() & mask)
    } else {
        (magnitude <= mask).then_some(magnitude)
    }
}
