//! The warptrace verifier.
//!
//! Two levels: [`verify_program`] checks a probe program's IR before any code is
//! generated, and its [`VerifiedProgram`] is the only input code generators accept;
//! [`verify_kernel`] checks a spliced kernel against its original through the
//! target-neutral [`KernelModel`].
#![deny(missing_docs)]

mod cert;
mod cost;
mod formula;
mod ir_check;
mod kernel_check;
mod maps;
mod model;
pub mod named_proofs;
mod obligation;
pub mod parallel;
pub mod progress;
pub mod proof_cache;
mod proof_key;
pub mod semantics;
mod smt;
pub mod structure;

pub use cert::{program_hash, CertError, Certificate, Check, CERT_FORMAT};
pub use cost::{probe_costs, ProbeCost};
pub use maps::{prove_launch, LaunchShape};
pub use model::{
    declaration_text, declares_register, range_index, Access, Addr, CallSite, Compute, Declaration,
    Flow, Instr, Item, KernelModel, Mask, MemRef, Name, Origin, Resource, ResourceKind, Space,
};
pub use obligation::{Method, Obligation, Verdict};
pub use smt::{check_with_retry, solver, solver_at, RETRY_RLIMIT, SOLVER_RLIMIT};

use std::fmt;
use warptrace_ir::Program;

/// A program that passed [`verify_program`]. Code generators take only this type, so
/// unverified IR cannot reach PTX or GCN generation.
#[derive(Debug, Clone)]
pub struct VerifiedProgram {
    program: Program,
    obligations: Vec<Obligation>,
}

impl VerifiedProgram {
    /// The verified IR.
    pub fn program(&self) -> &Program {
        &self.program
    }

    /// The value obligations discharged on the way (divisors, map offsets), each with
    /// how it was proved and the solver time.
    pub fn obligations(&self) -> &[Obligation] {
        &self.obligations
    }

    /// This program with its rings spread over `n` copies
    /// ([`Program::with_ring_copies`]), verified again: the code a back end generates for
    /// it is checked against the program it runs.
    pub fn with_ring_copies(&self, n: u32) -> Result<VerifiedProgram, IrErrors> {
        verify_program(&self.program.with_ring_copies(n))
    }

    /// This program as the back ends generate code for it: its rings spread over the copies
    /// `warptrace_ir::placement::ring_copies` gives (decision 0020), verified again, or
    /// itself; the error names the copies the spread program failed the rules at.
    pub fn as_generated(&self) -> Result<std::borrow::Cow<'_, VerifiedProgram>, (u32, IrErrors)> {
        match warptrace_ir::placement::copies_to_spread(&self.program) {
            Some(n) => self
                .with_ring_copies(n)
                .map(std::borrow::Cow::Owned)
                .map_err(|e| (n, e)),
            None => Ok(std::borrow::Cow::Borrowed(self)),
        }
    }

    /// When the back ends spread this program's rings over copies
    /// (`warptrace_ir::placement::ring_copies`), the code is generated for the program with
    /// each copy's capacity: that program's IR checks, as one more check for a
    /// certificate, scoped to `back_end` (`"PTX"`, `"GCN"`); `None` when the rings are not
    /// spread.
    pub fn spread_rings_check(&self, back_end: &str) -> Option<Check> {
        let n = warptrace_ir::placement::copies_to_spread(&self.program)?;
        let start = std::time::Instant::now();
        let verdict = match self.with_ring_copies(n) {
            Ok(_) => Verdict::Proved,
            Err(e) => Verdict::Refuted {
                counterexample: e.to_string(),
            },
        };
        Some(Check {
            level: "ir".into(),
            name: format!("every IR rule with its rings spread over {n} copies"),
            scope: format!("program (as the {back_end} back end runs it)"),
            verdict,
            micros: start.elapsed().as_micros() as u64,
        })
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
    /// A map write may land outside its map's region, or array records of two threads
    /// may overlap (a z3 obligation was refuted or not proved).
    MapBounds,
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
    let (mut errors, mut obligations) = ir_check::check_program(program);
    if errors.is_empty() {
        // Map offsets need valid map ids and aggregations, which the checks above ensure.
        for ((probe, insn), o) in maps::obligations(program) {
            let why = match &o.verdict {
                Verdict::Proved => None,
                Verdict::Refuted { counterexample } => Some(format!("refuted: {counterexample}")),
                Verdict::Unknown { reason } => Some(format!("not proved: {reason}")),
            };
            if let Some(why) = why {
                let context = program
                    .probes
                    .get(probe)
                    .and_then(|p| Some((p, p.insns.get(insn)?)))
                    .map(|(p, x)| format!("{} | {insn}: {}", p.attach, program.insn_text(x)))
                    .unwrap_or_default();
                errors.push(IrError {
                    probe,
                    insn: Some(insn),
                    rule: IrRule::MapBounds,
                    message: format!("{}: {} ({why})", o.location, o.name),
                    context,
                });
            }
            obligations.push(o);
        }
    }
    if errors.is_empty() {
        Ok(VerifiedProgram {
            program: program.clone(),
            obligations,
        })
    } else {
        Err(IrErrors(errors))
    }
}

impl IrRule {
    /// Every IR rule, in the order a certificate lists them.
    pub const ALL: [IrRule; 9] = [
        IrRule::Budget,
        IrRule::JumpTarget,
        IrRule::MissingExit,
        IrRule::UseBeforeDef,
        IrRule::MapUsage,
        IrRule::SiteOperand,
        IrRule::HostOnly,
        IrRule::DivisorMayBeZero,
        IrRule::MapBounds,
    ];
}

/// The certificate of `program` for `target`, issued by warptrace `version`, from the
/// outcome of [`verify_program`] on it: every IR rule and value obligation, the probes'
/// static cost, and the caller's `extra` checks (kernel-level and translation-validation
/// results, which need a code generator). `verified` holds when everything does;
/// `total_micros` is the time recorded by the checks and obligations (a caller that
/// measures wall time may replace it).
pub fn certify(
    program: &Program,
    outcome: &Result<VerifiedProgram, IrErrors>,
    target: &str,
    version: &str,
    extra: Vec<Check>,
) -> Certificate {
    let (errors, obligations): (&[IrError], &[Obligation]) = match outcome {
        Ok(v) => (&[], &v.obligations),
        Err(e) => (&e.0, &[]),
    };
    let mut checks: Vec<Check> = IrRule::ALL
        .iter()
        .map(|rule| {
            let failures: Vec<String> = errors
                .iter()
                .filter(|e| e.rule == *rule)
                .map(|e| e.to_string())
                .collect();
            Check {
                level: "ir".into(),
                name: format!("{rule:?}"),
                scope: "program".into(),
                verdict: if failures.is_empty() {
                    Verdict::Proved
                } else {
                    Verdict::Refuted {
                        counterexample: failures.join("; "),
                    }
                },
                micros: 0,
            }
        })
        .collect();
    checks.extend(extra);
    let verified = checks.iter().all(|c| c.verdict.is_proved())
        && obligations.iter().all(|o| o.verdict.is_proved());
    let total_micros = checks.iter().map(|c| c.micros).sum::<u64>()
        + obligations.iter().map(|o| o.micros).sum::<u64>();
    Certificate {
        format: CERT_FORMAT.into(),
        warptrace_version: version.into(),
        probe_hash: program_hash(program),
        target: target.into(),
        verified,
        checks,
        obligations: obligations.to_vec(),
        costs: probe_costs(program),
        not_proved: Vec::new(),
        total_micros,
    }
}

/// The kernel-level rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KernelRule {
    /// Inserted code writes a register the kernel uses or declares.
    RegisterIsolation,
    /// Inserted code leaves its snippet, branches backwards, or exits, calls, traps or
    /// synchronizes the block; kernel code branches into a snippet; or the control-flow
    /// graph with snippets contracted is not the original's.
    ControlFlow,
    /// Inserted code touches shared memory, directly or through a generic address, or
    /// the kernel's shared/local sizes or launch bounds change.
    SharedMemory,
    /// Inserted code loads from anything but the map parameter and the map buffer, or
    /// stores or runs an atomic at an address not derived from the map parameter.
    MemorySafety,
    /// Inserted code runs a warp collective whose member mask is not provably the set of
    /// lanes active at it.
    WarpCollective,
    /// The kernel's own instructions and labels are not exactly the original's.
    KernelPreserved,
    /// A call is changed other than by redirecting it to the verified instrumented clone
    /// of its callee with the caller's map parameter as one extra, last argument; or a
    /// clone's parameters are not its original's followed by the map parameter.
    CallRewrite,
    /// An instruction comes sooner after the one it depends on than the hardware's wait
    /// states allow, where the original had no such hazard (GCN: the back end checks
    /// the spliced text by the hazard rules its snippets are padded by, decision 0030).
    WaitStates,
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
    /// The kernel register, label, instruction or memory the violation would corrupt,
    /// when there is one (`%r1`, `$L__BB0_2`, `shared memory`, …).
    pub corrupts: Option<String>,
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

/// Checks a spliced kernel against its original: register isolation, control flow
/// (linear rules and the contracted control-flow graph), shared memory (accesses and
/// sizes), memory safety (address provenance from the map parameter), warp collectives
/// and preservation of the kernel's own code. Returns every violation, ordered by line.
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

/// A spliced body and its original: a kernel, or the instrumented clone of a device
/// function (whose model is named after the clone, the original's after the function).
#[derive(Clone, Copy)]
pub struct Spliced<'a> {
    /// The body as compiled.
    pub original: &'a dyn KernelModel,
    /// The body as instrumented.
    pub spliced: &'a dyn KernelModel,
}

impl fmt::Debug for Spliced<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Spliced")
            .field("original", &self.original.kernel_name())
            .field("spliced", &self.spliced.kernel_name())
            .finish()
    }
}

/// [`verify_kernel`] for a kernel that calls instrumented clones of device functions:
/// checks the kernel and every clone in `callees` against its original with every rule,
/// and each call any of them redirects to a clone (`CallRewrite`): the callee may only
/// become a clone in `callees` of the original callee, with one extra, last argument
/// holding exactly the caller's map parameter; each clone's parameters must be its
/// original's followed by the map parameter. The clones are named by their models, so a
/// call can only be redirected to a body verified here, under the same assumption for
/// the calls it makes (recursion included): together, every body the launch can run is
/// checked. Returns every violation of every body.
pub fn verify_kernel_with_callees(
    kernel: Spliced<'_>,
    callees: &[Spliced<'_>],
) -> Result<(), KernelErrors> {
    let violations = kernel_check::check_with_callees(kernel, callees);
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
