//! What instrumenting did to each kernel, and where each probe attaches, as every back end
//! reports them.

use warptrace_verifier::KernelErrors;

/// Whether a kernel was instrumented. Every status but `Instrumented` leaves the kernel
/// byte-identical to the input (fail open): the program runs it unprobed and the run
/// counts it.
#[derive(Debug, Clone)]
pub enum KernelStatus {
    /// Instrumented with `sites` probe snippets (one per probe per matching site).
    Instrumented {
        /// Number of snippets, the prologue not counted.
        sites: u32,
    },
    /// No probe matched; the kernel is unchanged.
    NoSites,
    /// The kernel rules rejected the spliced kernel; it is unchanged.
    Rejected(KernelErrors),
    /// A probe that selects this kernel uses something the back end cannot lower yet
    /// ([`crate::Error::Unsupported`]'s `what`); the kernel is unchanged.
    Unsupported {
        /// What is not supported.
        what: String,
    },
    /// The instrumented kernel's predicted compile is over the caller's budget (PTX: the
    /// driver's JIT, `warptrace_codegen_ptx::jit_cost`); the kernel is unchanged.
    OverBudget {
        /// The prediction and the budget, in a sentence.
        why: String,
    },
}

impl KernelStatus {
    /// Why an over-budget kernel is unchanged: the prediction and the budget (`None` for
    /// other statuses).
    pub fn over_budget(&self) -> Option<String> {
        match self {
            KernelStatus::OverBudget { why } => Some(why.clone()),
            _ => None,
        }
    }

    /// Whether the kernel was instrumented.
    pub fn is_instrumented(&self) -> bool {
        matches!(self, KernelStatus::Instrumented { .. })
    }
}

/// One place a probe attaches to, for `warptrace -l PROGRAM --ptx FILE` (or `--gcn`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SiteListing {
    /// Index of the probe in the program.
    pub probe: usize,
    /// The kernel's (mangled) name.
    pub kernel: String,
    /// 1-based line of the instruction the probe runs at (before it, or after it for
    /// `after` probes); the kernel's line for `kernel:entry`. A `loop:` site's line is
    /// that of the instruction its snippet goes before or after.
    pub line: u32,
    /// The instruction, or `<entry>` for `kernel:entry`; for a `loop:` site, which point
    /// of which loop and where (`loop $L__BB0_2 back edge: `@%p4 bra $L__BB0_2;` when
    /// taken`).
    pub text: String,
}
