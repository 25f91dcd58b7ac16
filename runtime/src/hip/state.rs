//! What the HIP hook tracks: registered fatbinaries (handle → wrapper address), loaded
//! modules (handle → code object for the device), and kernel handles — host stubs of
//! `__hipRegisterFunction` and `hipFunction_t`s of `hipModuleGetFunction` — with their
//! image and name. Kernel status, launch counts, reasons and maps are the CUDA side's
//! (`crate::state`), so the report and the summary are the same.

use super::image::{code_object_for, device_target, fatbin_bundle, Failure, SharedImage};
use super::Hip;
use crate::report::Reason;
use std::collections::HashMap;
use std::ffi::c_int;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

/// An image: a registered fatbinary or a loaded module.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HipOwner {
    /// The handle `__hipRegisterFatBinary` returned.
    Fatbin(usize),
    /// A `hipModule_t`.
    Module(usize),
}

impl std::fmt::Display for HipOwner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HipOwner::Fatbin(h) => write!(f, "fatbinary {h:#x}"),
            HipOwner::Module(h) => write!(f, "module {h:#x}"),
        }
    }
}

/// A kernel handle's origin.
#[derive(Debug, Clone)]
pub struct HipFunc {
    /// Its image.
    pub owner: HipOwner,
    /// Mangled name.
    pub name: Arc<str>,
}

/// The tracking tables.
#[derive(Debug, Default)]
pub struct HipTables {
    /// Fatbinary handle → the address of its wrapper.
    pub fatbins: HashMap<usize, usize>,
    /// Fatbinary (handle, device) → its code object for that device, read on first use.
    pub fatbin_images: HashMap<(usize, c_int), SharedImage>,
    /// Module → its code object (only modules with a selected kernel).
    pub modules: HashMap<usize, SharedImage>,
    /// Host stub or `hipFunction_t` → origin (selected kernels only).
    pub funcs: HashMap<usize, HipFunc>,
}

impl HipTables {
    /// Forgets an image and its kernel handles.
    pub fn forget(&mut self, owner: HipOwner) {
        match owner {
            HipOwner::Fatbin(h) => {
                self.fatbins.remove(&h);
                self.fatbin_images.retain(|(f, _), _| *f != h);
            }
            HipOwner::Module(h) => {
                self.modules.remove(&h);
            }
        }
        self.funcs.retain(|_, f| f.owner != owner);
    }
}

static TABLES: OnceLock<Mutex<HipTables>> = OnceLock::new();

/// The HIP tables, locked.
pub fn tables() -> MutexGuard<'static, HipTables> {
    TABLES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner())
}

/// The current device (0 when the runtime cannot tell).
pub fn current_device(hip: &Hip) -> c_int {
    let mut device: c_int = 0;
    if let Some(get) = hip.get_device {
        // SAFETY: out-pointer.
        if unsafe { get(&mut device) } != super::ffi::HIP_SUCCESS {
            device = 0;
        }
    }
    device
}

/// The code object of `owner` for the current device: a module's as recorded at load,
/// a fatbinary's read from its bundle now (once per device).
pub fn image(hip: &Hip, owner: HipOwner) -> SharedImage {
    let missing = |what: &str| -> Failure { (Reason::NoAssembly, format!("{owner} {what}")) };
    match owner {
        HipOwner::Module(h) => tables()
            .modules
            .get(&h)
            .cloned()
            .unwrap_or_else(|| Err(missing("not seen at load time"))),
        HipOwner::Fatbin(h) => {
            let device = current_device(hip);
            if let Some(found) = tables().fatbin_images.get(&(h, device)) {
                return found.clone();
            }
            let wrapper = tables().fatbins.get(&h).copied();
            let result = match (wrapper, device_target(hip)) {
                (None, _) => Err(missing("not registered")),
                (_, None) => Err(missing(
                    "has no device target (hipGetDeviceProperties failed)",
                )),
                (Some(w), Some(target)) => {
                    // SAFETY: w is the wrapper the runtime accepted, registered until
                    // __hipUnregisterFatBinary (which forgets it).
                    let bundle = unsafe { fatbin_bundle(w as *const std::ffi::c_void) };
                    bundle
                        .map_err(|e| (Reason::NoAssembly, e))
                        .and_then(|b| code_object_for(b, &target))
                        .map(Arc::new)
                }
            };
            tables().fatbin_images.insert((h, device), result.clone());
            result
        }
    }
}
