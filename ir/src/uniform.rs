//! Warp uniformity of a probe's registers at one site: which registers hold the same
//! value in every lane of a warp (on AMD GPUs a wave), so that a `map.update` whose keys
//! are all uniform can be combined within the warp — one update per group of lanes that
//! run it together, with the group's amounts ([`plan`]; the back ends' `combine`).
//!
//! A register is uniform when it is a compile-time constant here ([`crate::fold`]), or
//! when it has exactly **one** definition and that definition yields the same value in
//! every lane: an immediate, a uniform register, an ALU operation or extension of uniform
//! operands, a warp-uniform special ([`special_is_uniform`]) or a per-instruction site
//! operand (`bytes`, `opcode`). Since the IR verifier proves every use preceded by a
//! definition on every path, the single definition dominates each use, so every lane that
//! reaches a use read that definition's value; a register with several definitions may
//! hold different ones in lanes that took different paths (`if (tid.x & 1) { $k = 1 }
//! else { $k = 2 }`) and is uniform only if they all fold to one constant. Persistent
//! registers (`%x`) are per thread and never uniform. The analysis is a least fixed
//! point, so a cycle of registers proves nothing.

use crate::{Aggregation, Insn, Operand, Reg, SiteValue, Special};
use std::collections::{HashMap, HashSet};

/// Whether `sp` has the same value in every lane of a warp, wherever in the probe it is
/// read.
///
/// Uniform: the launch's and the block's coordinates and sizes (`ctaid`, `nctaid`,
/// `ntid`, `block`), `warp` (warps are formed from consecutive linear thread ids, so the
/// linear id divided by 32 is the warp's), `nsmid`, `launch`, and the per-kernel /
/// per-site immediates (`kernel`, `pc`, `file`, `line`).
///
/// Not uniform: the thread's place (`tid`, `lane`, `thread`); the active set (`activemask`,
/// `active`: lanes that run an update together may have read it while diverged, at
/// different times); the clocks (`clock`, `clock64`, `globaltimer`: read per lane, at
/// different times by lanes that diverged); and `smid` and `warpid`, which the PTX ISA
/// calls volatile — a warp may be moved to another SM or slot (preemption) between the
/// reads of lanes that had diverged.
pub fn special_is_uniform(sp: Special) -> bool {
    match sp {
        Special::Nsmid
        | Special::Warp
        | Special::NtidX
        | Special::NtidY
        | Special::NtidZ
        | Special::CtaidX
        | Special::CtaidY
        | Special::CtaidZ
        | Special::NctaidX
        | Special::NctaidY
        | Special::NctaidZ
        | Special::Block
        | Special::KernelId
        | Special::Launch
        | Special::Pc
        | Special::File
        | Special::Line => true,
        Special::Clock
        | Special::Clock64
        | Special::GlobalTimer
        | Special::Smid
        | Special::Warpid
        | Special::Lane
        | Special::TidX
        | Special::TidY
        | Special::TidZ
        | Special::Thread
        | Special::ActiveMask
        | Special::Active => false,
        // Never in a device probe (the verifier refuses them there).
        Special::Duration | Special::SharedBytes | Special::Stream => false,
    }
}

/// The warp-uniform registers of a probe body.
#[derive(Debug, Clone, Default)]
pub struct Uniform {
    regs: HashSet<Reg>,
}

impl Uniform {
    /// Analyses `insns` at a site; `known` are the registers with a compile-time value
    /// there ([`crate::fold::constants`]).
    pub fn analyse(insns: &[Insn], known: &HashMap<Reg, u64>) -> Self {
        Uniform::analyse_with(insns, known, special_is_uniform)
    }

    /// [`Uniform::analyse`] with the target's own rule for which specials read one value
    /// in every lane of a single definition — a back end whose snippet runs each
    /// instruction once for all the lanes that reach it (GCN) has more of them than
    /// [`special_is_uniform`], which also covers lanes that read at different times.
    pub fn analyse_with(
        insns: &[Insn],
        known: &HashMap<Reg, u64>,
        uniform_special: impl Fn(Special) -> bool,
    ) -> Self {
        let mut defs: HashMap<Reg, Vec<&Insn>> = HashMap::new();
        for i in insns {
            if let Some(d) = i.def() {
                defs.entry(d).or_default().push(i);
            }
        }
        let mut u = Uniform {
            regs: known.keys().copied().collect(),
        };
        loop {
            let mut changed = false;
            for (r, ds) in &defs {
                if u.regs.contains(r) {
                    continue;
                }
                if let [d] = ds.as_slice() {
                    if u.def_is_uniform(d, &uniform_special) {
                        u.regs.insert(*r);
                        changed = true;
                    }
                }
            }
            if !changed {
                return u;
            }
        }
    }

    fn def_is_uniform(&self, i: &Insn, uniform_special: &impl Fn(Special) -> bool) -> bool {
        match i {
            Insn::Mov { src, .. } | Insn::Ext { src, .. } => self.operand(src),
            Insn::Bin { a, b, .. } => self.operand(a) && self.operand(b),
            Insn::ReadSpecial { special, .. } => uniform_special(*special),
            // `bytes` and `opcode` are per instruction; `addr` and `value` per lane.
            Insn::ReadSite { value, .. } => matches!(value, SiteValue::Bytes | SiteValue::Opcode),
            _ => false,
        }
    }

    /// Whether `op` has the same value in every lane of a warp.
    pub fn operand(&self, op: &Operand) -> bool {
        match op {
            Operand::Imm(_) => true,
            Operand::Reg(r) => self.regs.contains(r),
        }
    }
}

/// The environment variable that turns warp combining off on both back ends (any value
/// but `0` or empty): every update is then one atomic per thread, to measure its effect.
pub const DISABLE_ENV: &str = "WARPTRACE_NO_WARP_COMBINE";

/// Whether [`DISABLE_ENV`] turns combining off in this process.
pub fn disabled_by_env() -> bool {
    std::env::var_os(DISABLE_ENV).is_some_and(|v| !v.is_empty() && v != "0")
}

/// How a warp-combined update forms the group's value operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Plan {
    /// `count`: the lane count only.
    Count,
    /// The operand is the same in every lane.
    Uniform,
    /// The operand differs per lane: `sum`, `avg`, `stats`, `min`, `max`, reduced across
    /// the lanes (a target without such a reduction keeps these per thread).
    Lanes,
}

/// Whether (and how) a `map.update` of `keys` combining `agg` may be combined within the
/// warp: every key uniform, and the operand uniform or one a reduction across lanes
/// gives (`hist`, `lhist` and `assign` of per-lane values stay per thread).
pub fn plan(agg: Aggregation, keys: &[Operand], uniform: &Uniform) -> Option<Plan> {
    if !keys.iter().all(|k| uniform.operand(k)) {
        return None;
    }
    let Some(x) = agg.operand() else {
        return Some(Plan::Count);
    };
    if uniform.operand(&x) {
        return Some(Plan::Uniform);
    }
    match agg {
        Aggregation::Sum(_)
        | Aggregation::Avg(_)
        | Aggregation::Stats(_)
        | Aggregation::Min(_)
        | Aggregation::Max(_) => Some(Plan::Lanes),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fold::{self, TestSite};
    use crate::{BinOp, PersistId, Width};

    fn sreg(dst: u16, special: Special) -> Insn {
        Insn::ReadSpecial {
            dst: Reg(dst),
            special,
        }
    }

    fn add(dst: u16, a: Operand, b: Operand) -> Insn {
        Insn::Bin {
            op: BinOp::Add,
            width: Width::W64,
            dst: Reg(dst),
            a,
            b,
        }
    }

    fn analyse(insns: &[Insn]) -> Uniform {
        let known = fold::constants(insns, &TestSite);
        Uniform::analyse(insns, &known)
    }

    #[test]
    fn uniform_specials_and_alu_on_them() {
        let r = |n| Operand::Reg(Reg(n));
        let insns = vec![
            sreg(0, Special::CtaidX),
            sreg(1, Special::Warp),
            add(2, r(0), r(1)),
            sreg(3, Special::TidX),
            add(4, r(2), r(3)),
            sreg(5, Special::KernelId),
            Insn::ReadSite {
                dst: Reg(6),
                value: SiteValue::Addr,
            },
            Insn::LoadPersist {
                dst: Reg(7),
                slot: PersistId(0),
            },
            sreg(8, Special::Smid),
            sreg(9, Special::Launch),
            Insn::Exit,
        ];
        let u = analyse(&insns);
        for (n, want) in [
            (0, true),
            (1, true),
            (2, true),
            (3, false),
            (4, false),
            (5, true),
            (6, false),
            (7, false),
            (8, false),
            (9, true),
        ] {
            assert_eq!(u.operand(&r(n)), want, "r{n}");
        }
        assert!(u.operand(&Operand::Imm(-1)));
    }

    #[test]
    fn a_target_may_count_more_specials_as_uniform() {
        let insns = [
            sreg(0, Special::Smid),
            sreg(1, Special::Clock64),
            Insn::Exit,
        ];
        let known = fold::constants(&insns, &TestSite);
        let r = |n| Operand::Reg(Reg(n));
        let ptx = Uniform::analyse(&insns, &known);
        assert!(!ptx.operand(&r(0)) && !ptx.operand(&r(1)));
        let gcn = Uniform::analyse_with(&insns, &known, |sp| sp != Special::TidX);
        assert!(gcn.operand(&r(0)) && gcn.operand(&r(1)));
    }

    #[test]
    fn plans_follow_the_keys_and_the_operand() {
        let r = |n| Operand::Reg(Reg(n));
        // r0 uniform (ctaid.x), r1 per lane (tid.x).
        let u = analyse(&[sreg(0, Special::CtaidX), sreg(1, Special::TidX), Insn::Exit]);
        let k = [r(0), Operand::Imm(3)];
        assert_eq!(plan(Aggregation::Count, &k, &u), Some(Plan::Count));
        assert_eq!(plan(Aggregation::Sum(r(0)), &k, &u), Some(Plan::Uniform));
        assert_eq!(plan(Aggregation::Hist(r(0)), &[], &u), Some(Plan::Uniform));
        for agg in [
            Aggregation::Sum(r(1)),
            Aggregation::Avg(r(1)),
            Aggregation::Stats(r(1)),
            Aggregation::Min(r(1)),
            Aggregation::Max(r(1)),
        ] {
            assert_eq!(plan(agg, &k, &u), Some(Plan::Lanes), "{agg:?}");
        }
        for agg in [
            Aggregation::Hist(r(1)),
            Aggregation::Lhist(r(1)),
            Aggregation::Assign(r(1)),
        ] {
            assert_eq!(plan(agg, &k, &u), None, "{agg:?}");
        }
        assert_eq!(plan(Aggregation::Count, &[r(0), r(1)], &u), None);
    }

    #[test]
    fn a_register_defined_on_two_paths_is_uniform_only_if_both_fold_alike() {
        let r = |n| Operand::Reg(Reg(n));
        // r1 = 1 on one path, 2 on the other: lanes that diverged disagree.
        let insns = vec![
            sreg(0, Special::TidX),
            Insn::Branch {
                cond: Reg(0),
                if_zero: true,
                target: 4,
            },
            Insn::Mov {
                dst: Reg(1),
                src: Operand::Imm(1),
            },
            Insn::Jump { target: 5 },
            Insn::Mov {
                dst: Reg(1),
                src: Operand::Imm(2),
            },
            // One definition, after the paths join.
            sreg(2, Special::CtaidX),
            Insn::Mov {
                dst: Reg(3),
                src: Operand::Imm(9),
            },
            Insn::Mov {
                dst: Reg(3),
                src: Operand::Imm(9),
            },
            Insn::Exit,
        ];
        let u = analyse(&insns);
        assert!(!u.operand(&r(1)));
        assert!(u.operand(&r(2)));
        assert!(u.operand(&r(3)), "both definitions fold to 9");
    }
}
