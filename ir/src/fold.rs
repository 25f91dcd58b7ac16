//! Compile-time constants of a probe's registers at one site, so that a hash update whose
//! keys are all known (e.g. `[kernel]`, `[kernel, pc]`) gets its tag folded — by either
//! back end, and by [`crate::placement`]'s decisions.
//!
//! A register is known to hold `c` when *every* instruction that defines it yields `c`
//! from immediates, per-kernel / per-site values (`kernel pc file line`, `site bytes
//! opcode`) and registers already known. Since the verifier proves every use is
//! preceded by a definition on every path, each use then reads `c`. Iterated to a fixed
//! point; registers with a definition that depends on an unknown value stay unknown.

use crate::interp::{alu, extend};
use crate::{Insn, Operand, Reg, SiteValue, Special};
use std::collections::HashMap;

/// What the site makes known: the value of a per-site special or site operand, if it is
/// an immediate here.
pub trait SiteConsts {
    /// The value of `sp` at this site, when it is a compile-time constant.
    fn special(&self, sp: Special) -> Option<u64>;
    /// The value of the site operand `v`, when it is a compile-time constant.
    fn site(&self, v: SiteValue) -> Option<u64>;
}

/// The registers of `insns` with a compile-time value at this site.
pub fn constants(insns: &[Insn], site: &dyn SiteConsts) -> HashMap<Reg, u64> {
    let mut defs: HashMap<Reg, Vec<&Insn>> = HashMap::new();
    for i in insns {
        if let Some(d) = i.def() {
            defs.entry(d).or_default().push(i);
        }
    }
    let mut known: HashMap<Reg, u64> = HashMap::new();
    loop {
        let mut changed = false;
        for (r, ds) in &defs {
            if known.contains_key(r) {
                continue;
            }
            let vals: Option<Vec<u64>> = ds.iter().map(|i| eval(i, &known, site)).collect();
            if let Some(vals) = vals {
                if let Some(&first) = vals.first() {
                    if vals.iter().all(|&v| v == first) {
                        known.insert(*r, first);
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            return known;
        }
    }
}

fn operand(o: &Operand, known: &HashMap<Reg, u64>) -> Option<u64> {
    match o {
        Operand::Imm(v) => Some(*v as u64),
        Operand::Reg(r) => known.get(r).copied(),
    }
}

fn eval(i: &Insn, known: &HashMap<Reg, u64>, site: &dyn SiteConsts) -> Option<u64> {
    match i {
        Insn::Mov { src, .. } => operand(src, known),
        Insn::Bin {
            op, width, a, b, ..
        } => alu(*op, *width, operand(a, known)?, operand(b, known)?),
        Insn::Ext {
            src, from, signed, ..
        } => Some(extend(operand(src, known)?, *from, *signed)),
        Insn::ReadSpecial { special, .. } => site.special(*special),
        Insn::ReadSite { value, .. } => site.site(*value),
        _ => None,
    }
}

/// `op` with a known register replaced by its value.
pub fn resolve(op: &Operand, known: &HashMap<Reg, u64>) -> Operand {
    match op {
        Operand::Reg(r) => known.get(r).map_or(*op, |&v| Operand::Imm(v as i64)),
        Operand::Imm(_) => *op,
    }
}

/// A site of the tests: kernel 7, an access of 4 bytes, nothing else known.
#[cfg(test)]
pub(crate) struct TestSite;

#[cfg(test)]
impl SiteConsts for TestSite {
    fn special(&self, sp: Special) -> Option<u64> {
        (sp == Special::KernelId).then_some(7)
    }
    fn site(&self, v: SiteValue) -> Option<u64> {
        (v == SiteValue::Bytes).then_some(4)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{BinOp, Width};

    #[test]
    fn folds_kernel_and_arithmetic_but_not_paths_that_disagree() {
        let insns = vec![
            Insn::ReadSpecial {
                dst: Reg(0),
                special: Special::KernelId,
            },
            Insn::Bin {
                op: BinOp::Add,
                width: Width::W64,
                dst: Reg(1),
                a: Operand::Reg(Reg(0)),
                b: Operand::Imm(1),
            },
            Insn::Mov {
                dst: Reg(2),
                src: Operand::Imm(1),
            },
            Insn::Mov {
                dst: Reg(2),
                src: Operand::Imm(2),
            },
            Insn::ReadSpecial {
                dst: Reg(3),
                special: Special::TidX,
            },
            Insn::Exit,
        ];
        let k = constants(&insns, &TestSite);
        assert_eq!(k.get(&Reg(0)), Some(&7));
        assert_eq!(k.get(&Reg(1)), Some(&8));
        assert_eq!(k.get(&Reg(2)), None);
        assert_eq!(k.get(&Reg(3)), None);
    }
}
