//! What the verifier knows about the values of operands.
//!
//! Checks that depend on values (divisors now; map indices later) ask a [`ValueFacts`]
//! rather than inspecting operands themselves, so the value-range pass (intervals and
//! known bits over the CFG) replaces [`KnownNonZero`] without touching the checks.

use super::cfg::ProbeCfg;
use std::collections::HashSet;
use warptrace_ir::{BinOp, Insn, Operand, Reg, Width};

/// Facts about operand values at each instruction of one probe.
pub(super) trait ValueFacts {
    /// Whether `operand`, read by instruction `insn`, may be zero on some execution.
    fn may_be_zero(&self, insn: usize, operand: Operand) -> bool;

    /// A short note on what the facts can prove, appended to messages.
    fn describe(&self) -> &'static str;
}

/// Known-non-zero analysis: a forward dataflow over the probe's DAG that tracks which
/// registers certainly hold a non-zero value. A register is non-zero after
/// `mov` of a non-zero immediate or of a non-zero register, and after an `or` one of whose
/// operands is non-zero (at 32 bits only a non-zero immediate's low half counts); at a
/// join, only what holds on every incoming path survives. This is what `x | 1` and
/// `c ? 4 : 8` divisors need; intervals and known bits in general come with the full
/// verifier.
#[derive(Debug, Clone)]
pub(super) struct KnownNonZero {
    /// Registers known non-zero before each instruction.
    before: Vec<HashSet<Reg>>,
}

impl KnownNonZero {
    /// Runs the analysis; unreachable instructions know nothing.
    pub(super) fn compute(insns: &[Insn], cfg: &ProbeCfg) -> KnownNonZero {
        let mut before: Vec<HashSet<Reg>> = vec![HashSet::new(); insns.len()];
        let mut after: Vec<Option<HashSet<Reg>>> = vec![None; insns.len()];
        // Jumps go forward only, so index order visits predecessors first.
        for (i, insn) in insns.iter().enumerate() {
            if !cfg.is_reachable(i) {
                continue;
            }
            let mut preds = cfg.predecessors(i).filter_map(|p| after.get(p)?.as_ref());
            let mut state = match preds.next() {
                Some(first) => {
                    let mut s = first.clone();
                    for other in preds {
                        s.retain(|r| other.contains(r));
                    }
                    s
                }
                None => HashSet::new(),
            };
            before[i] = state.clone();
            if let Some(dst) = insn.def() {
                let non_zero = match insn {
                    Insn::Mov { src, .. } => known(&state, *src, Width::W64),
                    Insn::Bin {
                        op: BinOp::Or,
                        width,
                        a,
                        b,
                        ..
                    } => known(&state, *a, *width) || known(&state, *b, *width),
                    _ => false,
                };
                if non_zero {
                    state.insert(dst);
                } else {
                    state.remove(&dst);
                }
            }
            after[i] = Some(state);
        }
        KnownNonZero { before }
    }
}

/// Whether `operand` is certainly non-zero at `width`, given the non-zero registers.
fn known(state: &HashSet<Reg>, operand: Operand, width: Width) -> bool {
    match (operand, width) {
        (Operand::Imm(v), Width::W64) => v != 0,
        (Operand::Imm(v), Width::W32) => v as u32 != 0,
        (Operand::Reg(r), Width::W64) => state.contains(&r),
        // A non-zero 64-bit register may have a zero low half.
        (Operand::Reg(_), Width::W32) => false,
    }
}

impl ValueFacts for KnownNonZero {
    fn may_be_zero(&self, insn: usize, operand: Operand) -> bool {
        match self.before.get(insn) {
            Some(state) => !known(state, operand, Width::W64),
            None => true,
        }
    }

    fn describe(&self) -> &'static str {
        "the verifier proves a divisor non-zero when it is a non-zero constant, or `x | c` \
         with c non-zero, on every path"
    }
}
