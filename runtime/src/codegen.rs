//! The one integration point with `warptrace-codegen-ptx`: [`instrument`] splices a
//! module's PTX; its [`KernelStatus`] per kernel says what the launch path does, and
//! [`accumulates`] whether a kernel's launches may share a resident map buffer;
//! [`instrument_raw`] splices a NEUTRINO raw probe file instead (`Config::raw`).
//! [`state`] is what a launch does with a kernel, from either back end's verdict.

use crate::jit::first_line;
use crate::report::{KernelState, Reason};
pub use warptrace_codegen_ptx::raw::RawStatus;
pub use warptrace_codegen_ptx::{
    accumulates, buffer_layout, instrument_raw_within, instrument_within, jit_cost::JitBudget,
    parse, replicas, KernelStatus,
};

/// What the launch path does with a kernel, from `target`'s verdict on it: run it
/// instrumented, or run the original and count why.
pub(crate) fn state(status: &KernelStatus, target: warptrace_codegen::Target) -> KernelState {
    let skipped = |reason, detail| KernelState::Skipped { reason, detail };
    match status {
        KernelStatus::Instrumented { sites } => KernelState::Instrumented { sites: *sites },
        KernelStatus::NoSites => skipped(Reason::NoSites, String::new()),
        KernelStatus::Rejected(e) => skipped(Reason::VerifierRejection, first_line(&e.to_string())),
        // The code generator cannot instrument it yet: the original runs.
        KernelStatus::Unsupported { what } => skipped(
            Reason::Unsupported,
            format!("by the {target} back end: {what}"),
        ),
        KernelStatus::OverBudget { why } => skipped(Reason::JitBudget, why.clone()),
    }
}
