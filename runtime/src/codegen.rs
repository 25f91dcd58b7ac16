//! The one integration point with `warptrace-codegen-ptx`: [`instrument`] splices a
//! module's PTX; its [`KernelStatus`] per kernel says what the launch path does, and
//! [`accumulates`] whether a kernel's launches may share a resident map buffer;
//! [`instrument_raw`] splices a NEUTRINO raw probe file instead (`Config::raw`).

pub use warptrace_codegen_ptx::raw::RawStatus;
pub use warptrace_codegen_ptx::{
    accumulates, buffer_layout, instrument_raw_within, instrument_within, jit_cost::JitBudget,
    parse, replicas, KernelStatus,
};
