//! The wrappers of every hooked HIP function. The preload library exports them under the
//! runtime's names; `dlsym` on the runtime's handle and `hipGetProcAddress` hand out
//! their addresses. Each forwards to the real function first (or only, without a bundle)
//! and never unwinds into C.
#![allow(non_snake_case)] // the runtime's names
#![allow(clippy::missing_safety_doc)] // each has the contract of the HIP function of the same name
#![allow(clippy::too_many_arguments)] // the runtime's signatures

use super::ffi::{
    Dim3, Handle, HipError, HIP_ERROR_NOT_FOUND, HIP_ERROR_NOT_INITIALIZED, HIP_SUCCESS,
};
use super::hooks::{HipHook, HipHookTable, HIP_HOOKS};
use super::image::{code_object_for, device_target, module_image};
use super::launch::{launch, Api, HipLaunch};
use super::state::{self, HipFunc, HipOwner};
use super::{hip, instrument, Hip};
use crate::config::{self, active};
use crate::report::Reason;
use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

/// Runs `f`, swallowing a panic.
fn guard(f: impl FnOnce()) {
    let _ = catch_unwind(AssertUnwindSafe(f));
}

/// The runtime and its real `$field`, or `$err` (nothing, for `void` functions) without
/// them.
macro_rules! real {
    ($field:ident) => {
        match hip() {
            Some(h) => match h.$field {
                Some(f) => (h, f),
                None => return,
            },
            None => return,
        }
    };
    ($field:ident, $err:expr) => {
        match hip() {
            Some(h) => match h.$field {
                Some(f) => (h, f),
                None => return $err,
            },
            None => return $err,
        }
    };
}

/// The address of each wrapper, in [`HIP_HOOKS`] order.
pub fn wrapper_addresses() -> [usize; HIP_HOOKS.len()] {
    let mut w = [0usize; HIP_HOOKS.len()];
    for h in &HIP_HOOKS {
        w[h.hook as usize] = match h.hook {
            HipHook::RegisterFatBinary => __hipRegisterFatBinary as *const () as usize,
            HipHook::RegisterFunction => __hipRegisterFunction as *const () as usize,
            HipHook::UnregisterFatBinary => __hipUnregisterFatBinary as *const () as usize,
            HipHook::ModuleLoadData => hipModuleLoadData as *const () as usize,
            HipHook::ModuleLoadDataEx => hipModuleLoadDataEx as *const () as usize,
            HipHook::ModuleUnload => hipModuleUnload as *const () as usize,
            HipHook::ModuleGetFunction => hipModuleGetFunction as *const () as usize,
            HipHook::ModuleLaunchKernel => hipModuleLaunchKernel as *const () as usize,
            HipHook::LaunchKernel => hipLaunchKernel as *const () as usize,
            HipHook::ExtLaunchKernel => hipExtLaunchKernel as *const () as usize,
            HipHook::GetProcAddress => hipGetProcAddress as *const () as usize,
        };
    }
    w
}

/// Real and wrapper addresses; name-only matching while the runtime cannot be resolved.
fn table() -> HipHookTable {
    HipHookTable {
        real: hip().map_or([0; HIP_HOOKS.len()], |h| h.hooked),
        wrappers: wrapper_addresses(),
    }
}

/// What a lookup of a HIP `name` that returned `ptr` should return (see
/// [`HipHookTable::map`]); `ptr` itself when no bundle is loaded.
pub fn map_lookup(name: &[u8], ptr: usize) -> usize {
    if ptr == 0 || !active() {
        return ptr;
    }
    catch_unwind(|| table().map(name, ptr)).unwrap_or(ptr)
}

fn on_function(handle: usize, owner: HipOwner, name: *const c_char) {
    let Some(cfg) = config::config() else { return };
    if name.is_null() || handle == 0 {
        return;
    }
    // SAFETY: the runtime accepted name as a NUL-terminated kernel name.
    let name = unsafe { CStr::from_ptr(name) }.to_string_lossy();
    if cfg.selector.selects(&name) {
        let name = Arc::from(&*name);
        state::tables()
            .funcs
            .insert(handle, HipFunc { owner, name });
    }
}

fn on_module(hip: &Hip, module: usize, image: *const c_void) {
    let Some(cfg) = config::config() else { return };
    let owner = HipOwner::Module(module);
    // SAFETY: the runtime accepted the image.
    let record = match (unsafe { module_image(image) }, device_target(hip)) {
        (Err(e), _) => Err((Reason::NoAssembly, e)),
        (_, None) => Err((Reason::NoAssembly, "no device target".into())),
        (Ok(bytes), Some(target)) => match code_object_for(bytes, &target) {
            Ok(ci) if !ci.info.kernels.iter().any(|k| cfg.selector.selects(k)) => return,
            other => other.map(Arc::new),
        },
    };
    config::verbose(format_args!(
        "{owner} loaded: {}",
        match &record {
            Ok(ci) => format!(
                "{} code object, kernels {:?}",
                ci.info.target, ci.info.kernels
            ),
            Err((r, why)) => format!("{} {why}", r.describe()),
        }
    ));
    state::tables().modules.insert(module, record);
}

/// `__hipRegisterFatBinary`: remembers the wrapper (read at the first launch).
pub unsafe extern "C" fn __hipRegisterFatBinary(data: *const c_void) -> *mut *mut c_void {
    let (_, real) = real!(register_fat_binary, std::ptr::null_mut());
    // SAFETY: forwarding.
    let handle = unsafe { real(data) };
    if !handle.is_null() && !data.is_null() && active() {
        guard(|| {
            state::tables()
                .fatbins
                .insert(handle as usize, data as usize);
        });
    }
    handle
}

/// `__hipRegisterFunction`: a host stub of a fatbinary's kernel.
pub unsafe extern "C" fn __hipRegisterFunction(
    modules: *mut *mut c_void,
    host: *const c_void,
    device_fn: *mut c_char,
    name: *const c_char,
    limit: c_uint,
    tid: *mut c_void,
    bid: *mut c_void,
    block: *mut c_void,
    grid: *mut c_void,
    wave_size: *mut c_int,
) {
    let (_, real) = real!(register_function);
    // SAFETY: forwarding.
    unsafe {
        real(
            modules, host, device_fn, name, limit, tid, bid, block, grid, wave_size,
        )
    };
    if active() {
        guard(|| on_function(host as usize, HipOwner::Fatbin(modules as usize), name));
    }
}

/// `__hipUnregisterFatBinary`.
pub unsafe extern "C" fn __hipUnregisterFatBinary(modules: *mut *mut c_void) {
    let (h, real) = real!(unregister_fat_binary);
    if active() {
        guard(|| {
            let owner = HipOwner::Fatbin(modules as usize);
            state::tables().forget(owner);
            instrument::forget(h, owner);
        });
    }
    // SAFETY: forwarding.
    unsafe { real(modules) }
}

/// `hipModuleLoadData`.
pub unsafe extern "C" fn hipModuleLoadData(module: *mut Handle, image: *const c_void) -> HipError {
    let (h, real) = real!(module_load_data, HIP_ERROR_NOT_INITIALIZED);
    // SAFETY: forwarding.
    let rc = unsafe { real(module, image) };
    if rc == HIP_SUCCESS && active() && !module.is_null() {
        // SAFETY: module was written.
        guard(|| on_module(h, unsafe { *module } as usize, image));
    }
    rc
}

/// `hipModuleLoadDataEx`.
pub unsafe extern "C" fn hipModuleLoadDataEx(
    module: *mut Handle,
    image: *const c_void,
    n: c_uint,
    options: *mut c_int,
    values: *mut *mut c_void,
) -> HipError {
    let (h, real) = real!(module_load_data_ex, HIP_ERROR_NOT_INITIALIZED);
    // SAFETY: forwarding.
    let rc = unsafe { real(module, image, n, options, values) };
    if rc == HIP_SUCCESS && active() && !module.is_null() {
        // SAFETY: module was written.
        guard(|| on_module(h, unsafe { *module } as usize, image));
    }
    rc
}

/// `hipModuleUnload`.
pub unsafe extern "C" fn hipModuleUnload(module: Handle) -> HipError {
    let (h, real) = real!(module_unload, HIP_ERROR_NOT_INITIALIZED);
    if active() {
        guard(|| {
            let owner = HipOwner::Module(module as usize);
            state::tables().forget(owner);
            instrument::forget(h, owner);
        });
    }
    // SAFETY: forwarding.
    unsafe { real(module) }
}

/// `hipModuleGetFunction`.
pub unsafe extern "C" fn hipModuleGetFunction(
    func: *mut Handle,
    module: Handle,
    name: *const c_char,
) -> HipError {
    let (_, real) = real!(module_get_function, HIP_ERROR_NOT_INITIALIZED);
    // SAFETY: forwarding.
    let rc = unsafe { real(func, module, name) };
    if rc == HIP_SUCCESS && active() && !func.is_null() {
        // SAFETY: func was written.
        let handle = unsafe { *func } as usize;
        guard(|| on_function(handle, HipOwner::Module(module as usize), name));
    }
    rc
}

/// `hipModuleLaunchKernel`.
pub unsafe extern "C" fn hipModuleLaunchKernel(
    f: Handle,
    gx: c_uint,
    gy: c_uint,
    gz: c_uint,
    bx: c_uint,
    by: c_uint,
    bz: c_uint,
    shared: c_uint,
    stream: Handle,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> HipError {
    let Some(h) = hip() else {
        return HIP_ERROR_NOT_INITIALIZED;
    };
    let l = HipLaunch {
        api: Api::Module,
        handle: f as usize,
        grid: Dim3 {
            x: gx,
            y: gy,
            z: gz,
        },
        block: Dim3 {
            x: bx,
            y: by,
            z: bz,
        },
        shared: shared as usize,
        stream,
        params,
        extra,
        events: (std::ptr::null_mut(), std::ptr::null_mut()),
        flags: 0,
    };
    // SAFETY: the application's launch.
    unsafe { launch(h, &l) }
}

/// `hipLaunchKernel` (and `<<<>>>`, whose host stub calls it).
pub unsafe extern "C" fn hipLaunchKernel(
    stub: *const c_void,
    grid: Dim3,
    block: Dim3,
    args: *mut *mut c_void,
    shared: usize,
    stream: Handle,
) -> HipError {
    let Some(h) = hip() else {
        return HIP_ERROR_NOT_INITIALIZED;
    };
    let l = HipLaunch {
        api: Api::Stub,
        handle: stub as usize,
        grid,
        block,
        shared,
        stream,
        params: args,
        extra: std::ptr::null_mut(),
        events: (std::ptr::null_mut(), std::ptr::null_mut()),
        flags: 0,
    };
    // SAFETY: the application's launch.
    unsafe { launch(h, &l) }
}

/// `hipExtLaunchKernel`.
pub unsafe extern "C" fn hipExtLaunchKernel(
    stub: *const c_void,
    grid: Dim3,
    block: Dim3,
    args: *mut *mut c_void,
    shared: usize,
    stream: Handle,
    start: Handle,
    stop: Handle,
    flags: c_int,
) -> HipError {
    let Some(h) = hip() else {
        return HIP_ERROR_NOT_INITIALIZED;
    };
    let l = HipLaunch {
        api: Api::ExtStub,
        handle: stub as usize,
        grid,
        block,
        shared,
        stream,
        params: args,
        extra: std::ptr::null_mut(),
        events: (start, stop),
        flags,
    };
    // SAFETY: the application's launch.
    unsafe { launch(h, &l) }
}

/// `hipGetProcAddress` (HIP 6.2+): the real answer, a hooked function's swapped for its
/// wrapper.
pub unsafe extern "C" fn hipGetProcAddress(
    symbol: *const c_char,
    pfn: *mut *mut c_void,
    version: c_int,
    flags: u64,
    status: *mut c_int,
) -> HipError {
    let (_, real) = real!(get_proc_address, HIP_ERROR_NOT_FOUND);
    // SAFETY: forwarding.
    let rc = unsafe { real(symbol, pfn, version, flags, status) };
    if rc == HIP_SUCCESS && !symbol.is_null() && !pfn.is_null() {
        // SAFETY: symbol NUL-terminated, pfn written by the runtime.
        let (name, p) = unsafe { (CStr::from_ptr(symbol).to_bytes(), *pfn as usize) };
        let mapped = map_lookup(name, p);
        // SAFETY: the caller's out-pointer.
        unsafe { *pfn = mapped as *mut c_void };
    }
    rc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapper_addresses_are_distinct() {
        let w = wrapper_addresses();
        let mut sorted = w.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), HIP_HOOKS.len());
        assert!(w.iter().all(|&a| a != 0));
    }
}
