//! What the verifier knows about the values of operands.
//!
//! Checks that depend on values (divisors now; map indices later) ask a [`ValueFacts`]
//! rather than inspecting operands themselves, so the value-range pass (intervals and
//! known bits over the CFG) replaces [`ImmediatesOnly`] without touching the checks.

use warptrace_ir::Operand;

/// Facts about operand values at each instruction of one probe.
pub(super) trait ValueFacts {
    /// Whether `operand`, read by instruction `insn`, may be zero on some execution.
    fn may_be_zero(&self, insn: usize, operand: Operand) -> bool;

    /// A short note on what the facts can prove, appended to messages.
    fn describe(&self) -> &'static str;
}

/// The first cut: only immediates are known; any register may hold anything.
#[derive(Debug, Clone, Copy)]
pub(super) struct ImmediatesOnly;

impl ValueFacts for ImmediatesOnly {
    fn may_be_zero(&self, _insn: usize, operand: Operand) -> bool {
        match operand {
            Operand::Imm(value) => value == 0,
            Operand::Reg(_) => true,
        }
    }

    fn describe(&self) -> &'static str {
        "the verifier accepts only non-zero immediate divisors for now"
    }
}
