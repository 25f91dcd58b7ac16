//! The HIP runtime hook: the AMD counterpart of the CUDA wrappers, with the same
//! fail-open and read-back design.
//!
//! - **Images**: `__hipRegisterFatBinary` (the fatbinary wrapper of a HIP host object:
//!   its offload bundle is read at the first launch of one of its kernels, and the code
//!   object for the device chosen by target id), `hipModuleLoadData(Ex)` (a code object
//!   or a bundle, copied at load).
//! - **Kernel handles**: `__hipRegisterFunction` (host stub → kernel name) and
//!   `hipModuleGetFunction`.
//! - **Launches**: `hipModuleLaunchKernel` (`kernelParams` or `extra`), `hipLaunchKernel`
//!   (`<<<>>>` too), `hipExtLaunchKernel`. The first launch of a selected kernel looks for
//!   the assembly its code object was built from (`source`), instruments it with
//!   `warptrace_codegen_gcn`, assembles it for the device and loads it with the real
//!   `hipModuleLoadData`; every probed launch then runs the instrumented function with the
//!   map buffer appended (`launch`). No assembly, or any failure: the original runs and
//!   the reason is counted.
//! - **Lookups**: `dlsym` on the runtime's handle (the preload library's interposer calls
//!   [`exports::map_lookup`] for `hip*` names) and `hipGetProcAddress` answer with the
//!   wrappers.
//!
//! The real functions come from the loaded `libamdhip64` (its handle, else `RTLD_NEXT`).
//! None of this has run against a real HIP runtime or an AMD GPU: see the README.

mod ffi;
mod hooks;
mod image;
mod instrument;
mod launch;
mod source;
mod state;
mod wrappers;

pub use image::ENV_GCN_ARCH;
pub use source::ENV_GCN_ASM_DIR;

use ffi::Hip;
use std::cell::Cell;
use std::sync::OnceLock;

static HIP: OnceLock<Hip> = OnceLock::new();

thread_local! {
    static RESOLVING: Cell<bool> = const { Cell::new(false) };
}

/// The real HIP runtime, resolved on first use once it is loaded (a failed resolution is
/// retried: the runtime may be `dlopen`ed later). `None` re-entrantly from inside the
/// resolution.
fn hip() -> Option<&'static Hip> {
    if let Some(h) = HIP.get() {
        return Some(h);
    }
    if RESOLVING.with(Cell::get) {
        return None;
    }
    RESOLVING.with(|r| r.set(true));
    let find = crate::driver::real_dlsym().and_then(ffi::lookup);
    let resolved = find.map(|find| HIP.get_or_init(|| Hip::resolve(&*find)));
    RESOLVING.with(|r| r.set(false));
    resolved
}

/// The interposers, to be exported under the HIP runtime's names by the preload library.
pub mod exports {
    pub use super::ffi::{Dim3, Handle, HipError};
    pub use super::wrappers::{
        __hipRegisterFatBinary, __hipRegisterFunction, __hipUnregisterFatBinary,
        hipExtLaunchKernel, hipGetProcAddress, hipLaunchKernel, hipModuleGetFunction,
        hipModuleLaunchKernel, hipModuleLoadData, hipModuleLoadDataEx, hipModuleUnload, map_lookup,
    };

    /// The HIP functions the preload library must export under their own names.
    pub fn hooked_names() -> impl Iterator<Item = &'static std::ffi::CStr> {
        super::hooks::HIP_HOOKS.iter().map(|h| h.name)
    }
}
