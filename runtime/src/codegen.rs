//! The one integration point with `warptrace-codegen-ptx`: [`instrument`] splices a
//! module's PTX; its [`KernelStatus`] per kernel says what the launch path does.

pub use warptrace_codegen_ptx::{instrument, KernelStatus};
