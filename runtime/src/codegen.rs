//! The one integration point with `warptrace-codegen-ptx`: [`instrument`] splices a
//! module's PTX; its [`KernelStatus`] per kernel says what the launch path does, and
//! [`accumulates`] whether a kernel's launches may share a resident map buffer.

pub use warptrace_codegen_ptx::{accumulates, buffer_layout, instrument, replicas, KernelStatus};
