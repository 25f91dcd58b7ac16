//! What warptrace's back ends share, so that a caller — the runtime, the CLI, the tests —
//! handles a PTX module and an AMDGPU assembly file with one set of types.
//!
//! Each back end (`warptrace-codegen-ptx`, `warptrace-codegen-gcn`) parses its assembly,
//! matches attach points, lowers and splices snippets and runs the kernel rules; what it
//! reports is a [`KernelStatus`] per kernel, an [`Error`] when the module cannot be
//! instrumented at all, and a [`SiteListing`] per site for `warptrace -l`. Which back end
//! a value came from is a [`Target`]. [`attach`] decides which instructions are sites of
//! a probe, from the classes a back end puts them in. [`Prepared`] is what both do once
//! per module before they look at a kernel, and [`ProgramChecks`] what each adds to a
//! program's certificate. This crate depends on the IR and the
//! verifier only: it holds no ISA's knowledge.
#![deny(missing_docs)]

pub mod attach;
mod certify;
mod error;
mod prepare;
mod status;

pub use certify::ProgramChecks;
pub use error::{Error, Target};
pub use prepare::Prepared;
pub use status::{KernelStatus, SiteListing};
