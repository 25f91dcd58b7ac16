//! The warptrace verifier.
//!
//! Two levels: [`verify_program`] checks a probe program's IR before any code is
//! generated, and its [`VerifiedProgram`] is the only input code generators accept;
//! [`verify_kernel`] checks a spliced kernel against its original through the
//! target-neutral [`KernelModel`].
#![deny(missing_docs)]

mod ir_check;
mod kernel_check;
mod model;

pub use model::{Access, Flow, Instr, Item, KernelModel, MemRef, Origin, Space};

use std::fmt;
use warptrace_ir::Program;

/// A program that passed [`verify_program`]. Code generators take only this type, so
/// unverified IR cannot reach PTX or GCN generation.
#[derive(Debug, Clone)]
pub struct VerifiedProgram {
    program: Program,
}

impl VerifiedProgram {
    /// The verified IR.
    pub fn program(&self) -> &Program {
        &self.program
    }
}

/// The IR-level rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IrRule {
    /// A jump goes backwards, to itself or out of the probe.
    JumpTarget,
    /// A path runs off the end of the probe without `exit`.
    MissingExit,
    /// A register is read on some path before any write.
    UseBeforeDef,
    /// A map operation names an unknown map, the wrong number of keys or fields, an
    /// aggregation or operation its map's kind does not have, or an unknown persistent
    /// register or format.
    MapUsage,
    /// An operand read (`bytes`, `addr`, `value`, `opcode`) or a per-site value (`pc`,
    /// `file`, `line`) at an attach point that probes no instruction.
    SiteOperand,
    /// A host-only operation (`host.print`, `host.clear`, `host.zero`, `host.delete`,
    /// `host.exit`) in a device probe.
    HostOnly,
    /// A division or remainder whose divisor may be zero.
    DivisorMayBeZero,
    /// The probe exceeds the instruction budget.
    Budget,
}

/// One IR-level violation, located as `probe N (attach), insn I`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IrError {
    /// Index of the probe.
    pub probe: usize,
    /// Index of the offending instruction, if the error has one.
    pub insn: Option<usize>,
    /// The rule broken.
    pub rule: IrRule,
    /// What is wrong.
    pub message: String,
    /// The probe's attach spec and the instruction in text form.
    pub context: String,
}

impl fmt::Display for IrError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "probe {}", self.probe)?;
        if let Some(i) = self.insn {
            write!(f, ", insn {i}")?;
        }
        write!(f, ": {} ({:?}): {}", self.message, self.rule, self.context)
    }
}

/// Every IR-level violation found (the verifier accumulates rather than stopping at
/// the first).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct IrErrors(pub Vec<IrError>);

impl fmt::Display for IrErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_lines(f, &self.0)
    }
}

/// Checks a program's IR: jump targets, `exit` on every path, def-before-use, map
/// usage, site operands, divisors and the per-probe instruction budget. Returns every
/// violation, ordered by probe and instruction.
pub fn verify_program(program: &Program) -> Result<VerifiedProgram, IrErrors> {
    let errors = ir_check::check_program(program);
    if errors.is_empty() {
        Ok(VerifiedProgram {
            program: program.clone(),
        })
    } else {
        Err(IrErrors(errors))
    }
}

/// The kernel-level rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KernelRule {
    /// Inserted code writes a register the kernel uses or declares.
    RegisterIsolation,
    /// Inserted code leaves its snippet, branches backwards, or exits, calls, traps,
    /// synchronizes or runs a warp collective; or kernel code branches into a snippet.
    ControlFlow,
    /// Inserted code touches shared memory, directly or through a generic address.
    SharedMemory,
    /// Inserted code accesses memory other than its map buffer and parameter.
    MemorySafety,
    /// The kernel's own instructions and labels are not exactly the original's.
    KernelPreserved,
}

/// One kernel-level violation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelViolation {
    /// The rule broken.
    pub rule: KernelRule,
    /// The kernel.
    pub kernel: String,
    /// The snippet at fault, if any.
    pub snippet: Option<u32>,
    /// 1-based line of the offending instruction in the spliced text.
    pub line: u32,
    /// The offending instruction.
    pub text: String,
    /// What is wrong, naming the kernel register or instruction at stake.
    pub message: String,
}

impl fmt::Display for KernelViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "kernel {}", self.kernel)?;
        if let Some(s) = self.snippet {
            write!(f, ", snippet {s}")?;
        }
        write!(
            f,
            ", line {}: {:?}: {} (`{}`)",
            self.line, self.rule, self.message, self.text
        )
    }
}

/// Every kernel-level violation found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct KernelErrors(pub Vec<KernelViolation>);

impl fmt::Display for KernelErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_lines(f, &self.0)
    }
}

/// Checks a spliced kernel against its original: register isolation, control flow,
/// shared memory, memory safety (state spaces only in this first cut) and preservation
/// of the kernel's own code. Returns every violation, ordered by line.
pub fn verify_kernel(
    original: &dyn KernelModel,
    spliced: &dyn KernelModel,
) -> Result<(), KernelErrors> {
    let violations = kernel_check::check_kernel(original, spliced);
    if violations.is_empty() {
        Ok(())
    } else {
        Err(KernelErrors(violations))
    }
}

/// Writes one error per line (no trailing newline).
fn write_lines<E: fmt::Display>(f: &mut fmt::Formatter<'_>, errors: &[E]) -> fmt::Result {
    for (i, e) in errors.iter().enumerate() {
        if i > 0 {
            writeln!(f)?;
        }
        write!(f, "{e}")?;
    }
    Ok(())
}
