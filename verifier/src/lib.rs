//! The warptrace verifier.
//!
//! Two levels: [`verify_program`] checks a probe program's IR before any code is
//! generated, and its [`VerifiedProgram`] is the only input code generators accept;
//! [`verify_kernel`] checks a spliced kernel against its original through the
//! target-neutral [`KernelModel`].
#![deny(missing_docs)]

mod model;

pub use model::{Access, Flow, Instr, Item, KernelModel, MemRef, Origin, Space};
