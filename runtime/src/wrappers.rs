//! The wrappers of every hooked driver function, plus the `dlsym` and `cuGetProcAddress`
//! interposers. The preload library exports these under the driver's names; `dlsym` and
//! `cuGetProcAddress` hand out their addresses. Each forwards to the real function first
//! (or only, when no bundle is loaded); nothing here unwinds into C.
#![allow(non_snake_case)] // the driver's names
#![allow(clippy::missing_safety_doc)] // each has the safety contract of the driver function of the same name
#![allow(clippy::too_many_arguments)] // the driver's signatures

use crate::config::active;
use crate::driver::{
    driver, real_dlsym, CuResult, Driver, CUDA_ERROR_NOT_INITIALIZED, CUDA_SUCCESS,
};
use crate::hooks::{Hook, HookTable, HOOKS};
use crate::instrument;
use crate::launch::{launch, Launch};
use crate::state;
use cudarc::driver::sys::{CUdevice, CUfunction, CUkernel, CUlaunchConfig, CUstream};
use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::OnceLock;

/// `CUDA_ERROR_NOT_FOUND`: the loaded driver lacks the function.
const CUDA_ERROR_NOT_FOUND: CuResult = 500;

/// Runs `f`, swallowing a panic (then `None`).
fn guard<T>(f: impl FnOnce() -> T) -> Option<T> {
    catch_unwind(AssertUnwindSafe(f)).ok()
}

/// The driver and its real `$field`, or the error a wrapper returns without them.
macro_rules! real {
    ($field:ident) => {
        match $crate::driver::driver() {
            Some(d) => match d.$field {
                Some(f) => (d, f),
                None => return $crate::wrappers::CUDA_ERROR_NOT_FOUND,
            },
            None => return $crate::driver::CUDA_ERROR_NOT_INITIALIZED,
        }
    };
}

mod contexts;
mod graphs;
mod loads;

pub use contexts::{cuCtxDestroy_v2, cuDevicePrimaryCtxRelease_v2, cuDevicePrimaryCtxReset_v2};
pub use graphs::{
    cuGraphAddChildGraphNode, cuGraphAddKernelNode_v2, cuGraphAddNode, cuGraphAddNode_v2,
    cuGraphClone, cuGraphDestroy, cuGraphDestroyNode, cuGraphExecDestroy,
    cuGraphExecKernelNodeSetParams_v2, cuGraphExecNodeSetParams, cuGraphExecUpdate_v2,
    cuGraphInstantiateWithFlags, cuGraphInstantiateWithParams, cuGraphInstantiateWithParams_ptsz,
    cuGraphKernelNodeSetParams_v2, cuGraphLaunch, cuGraphLaunch_ptsz, cuGraphNodeSetParams,
};

pub use loads::{
    cuKernelGetFunction, cuLibraryEnumerateKernels, cuLibraryGetKernel, cuLibraryGetModule,
    cuLibraryLoadData, cuLibraryLoadFromFile, cuLibraryUnload, cuModuleEnumerateFunctions,
    cuModuleGetFunction, cuModuleLoad, cuModuleLoadData, cuModuleLoadDataEx, cuModuleLoadFatBinary,
    cuModuleUnload,
};

/// The address of each wrapper, in [`HOOKS`] order.
pub fn wrapper_addresses() -> [usize; HOOKS.len()] {
    let mut w = [0usize; HOOKS.len()];
    for h in &HOOKS {
        w[h.hook as usize] = match h.hook {
            Hook::ModuleLoadData => cuModuleLoadData as *const () as usize,
            Hook::ModuleLoadDataEx => cuModuleLoadDataEx as *const () as usize,
            Hook::ModuleLoad => cuModuleLoad as *const () as usize,
            Hook::ModuleUnload => cuModuleUnload as *const () as usize,
            Hook::ModuleGetFunction => cuModuleGetFunction as *const () as usize,
            Hook::ModuleLoadFatBinary => cuModuleLoadFatBinary as *const () as usize,
            Hook::ModuleEnumerateFunctions => cuModuleEnumerateFunctions as *const () as usize,
            Hook::LibraryLoadData => cuLibraryLoadData as *const () as usize,
            Hook::LibraryLoadFromFile => cuLibraryLoadFromFile as *const () as usize,
            Hook::LibraryGetKernel => cuLibraryGetKernel as *const () as usize,
            Hook::LibraryUnload => cuLibraryUnload as *const () as usize,
            Hook::LibraryGetModule => cuLibraryGetModule as *const () as usize,
            Hook::LibraryEnumerateKernels => cuLibraryEnumerateKernels as *const () as usize,
            Hook::KernelGetFunction => cuKernelGetFunction as *const () as usize,
            Hook::FuncSetAttribute => cuFuncSetAttribute as *const () as usize,
            Hook::FuncSetCacheConfig => cuFuncSetCacheConfig as *const () as usize,
            Hook::KernelSetAttribute => cuKernelSetAttribute as *const () as usize,
            Hook::LaunchKernel => cuLaunchKernel as *const () as usize,
            Hook::LaunchKernelPtsz => cuLaunchKernel_ptsz as *const () as usize,
            Hook::LaunchKernelEx => cuLaunchKernelEx as *const () as usize,
            Hook::LaunchKernelExPtsz => cuLaunchKernelEx_ptsz as *const () as usize,
            Hook::LaunchCooperativeKernel => cuLaunchCooperativeKernel as *const () as usize,
            Hook::LaunchCooperativeKernelPtsz => {
                cuLaunchCooperativeKernel_ptsz as *const () as usize
            }
            Hook::GetProcAddress => cuGetProcAddress as *const () as usize,
            Hook::GetProcAddressV2 => cuGetProcAddress_v2 as *const () as usize,
            Hook::CtxDestroy => cuCtxDestroy_v2 as *const () as usize,
            Hook::DevicePrimaryCtxRelease => cuDevicePrimaryCtxRelease_v2 as *const () as usize,
            Hook::DevicePrimaryCtxReset => cuDevicePrimaryCtxReset_v2 as *const () as usize,
            Hook::GraphAddKernelNode => graphs::cuGraphAddKernelNode_v2 as *const () as usize,
            Hook::GraphKernelNodeSetParams => {
                graphs::cuGraphKernelNodeSetParams_v2 as *const () as usize
            }
            Hook::GraphExecKernelNodeSetParams => {
                graphs::cuGraphExecKernelNodeSetParams_v2 as *const () as usize
            }
            Hook::GraphAddNode => graphs::cuGraphAddNode as *const () as usize,
            Hook::GraphAddNodeV2 => graphs::cuGraphAddNode_v2 as *const () as usize,
            Hook::GraphNodeSetParams => graphs::cuGraphNodeSetParams as *const () as usize,
            Hook::GraphExecNodeSetParams => graphs::cuGraphExecNodeSetParams as *const () as usize,
            Hook::GraphInstantiateWithFlags => {
                graphs::cuGraphInstantiateWithFlags as *const () as usize
            }
            Hook::GraphInstantiateWithParams => {
                graphs::cuGraphInstantiateWithParams as *const () as usize
            }
            Hook::GraphInstantiateWithParamsPtsz => {
                graphs::cuGraphInstantiateWithParams_ptsz as *const () as usize
            }
            Hook::GraphExecUpdate => graphs::cuGraphExecUpdate_v2 as *const () as usize,
            Hook::GraphLaunch => graphs::cuGraphLaunch as *const () as usize,
            Hook::GraphLaunchPtsz => graphs::cuGraphLaunch_ptsz as *const () as usize,
            Hook::GraphClone => graphs::cuGraphClone as *const () as usize,
            Hook::GraphAddChildGraphNode => graphs::cuGraphAddChildGraphNode as *const () as usize,
            Hook::GraphDestroyNode => graphs::cuGraphDestroyNode as *const () as usize,
            Hook::GraphDestroy => graphs::cuGraphDestroy as *const () as usize,
            Hook::GraphExecDestroy => graphs::cuGraphExecDestroy as *const () as usize,
        };
    }
    w
}

static TABLE: OnceLock<HookTable> = OnceLock::new();

/// Real and wrapper addresses; name-only matching while the driver cannot be resolved.
fn table() -> HookTable {
    if let Some(t) = TABLE.get() {
        return t.clone();
    }
    let wrappers = wrapper_addresses();
    match driver() {
        Some(d) => TABLE
            .get_or_init(|| HookTable {
                real: d.hooked,
                wrappers,
            })
            .clone(),
        None => HookTable {
            real: [0; HOOKS.len()],
            wrappers,
        },
    }
}

/// `dlsym`: the real result, or the wrapper of a hooked driver function. (`RTLD_NEXT`
/// lookups must not come here: glibc resolves them relative to the caller, so the preload
/// library forwards those straight to the real `dlsym`.)
pub unsafe extern "C" fn dlsym(handle: *mut c_void, name: *const c_char) -> *mut c_void {
    let Some(real) = real_dlsym() else {
        return std::ptr::null_mut();
    };
    // SAFETY: the caller's arguments, forwarded.
    let p = unsafe { real(handle, name) };
    if p.is_null() || name.is_null() || !active() {
        return p;
    }
    // SAFETY: dlsym's contract: name is NUL-terminated.
    let n = unsafe { CStr::from_ptr(name) }.to_bytes();
    if !n.starts_with(b"cu") {
        return p;
    }
    guard(|| table().for_dlsym(n, p as usize) as *mut c_void).unwrap_or(p)
}

/// `cuGetProcAddress` (the CUDA 11 four-argument form).
pub unsafe extern "C" fn cuGetProcAddress(
    symbol: *const c_char,
    pfn: *mut *mut c_void,
    version: c_int,
    flags: u64,
) -> CuResult {
    let (_, real) = real!(cuGetProcAddress);
    // SAFETY: forwarding.
    let rc = unsafe { real(symbol, pfn, version, flags) };
    // SAFETY: on success pfn holds the driver's answer for symbol.
    unsafe { map_proc_address(rc, symbol, pfn, version, flags) };
    rc
}

/// `cuGetProcAddress_v2`.
pub unsafe extern "C" fn cuGetProcAddress_v2(
    symbol: *const c_char,
    pfn: *mut *mut c_void,
    version: c_int,
    flags: u64,
    status: *mut c_int,
) -> CuResult {
    let (_, real) = real!(cuGetProcAddress_v2);
    // SAFETY: forwarding.
    let rc = unsafe { real(symbol, pfn, version, flags, status) };
    // SAFETY: as in cuGetProcAddress.
    unsafe { map_proc_address(rc, symbol, pfn, version, flags) };
    rc
}

unsafe fn map_proc_address(
    rc: CuResult,
    symbol: *const c_char,
    pfn: *mut *mut c_void,
    version: c_int,
    flags: u64,
) {
    if rc != CUDA_SUCCESS || !active() || symbol.is_null() || pfn.is_null() {
        return;
    }
    guard(|| {
        // SAFETY: symbol NUL-terminated, pfn written by the driver.
        let (name, p) = unsafe { (CStr::from_ptr(symbol).to_bytes(), *pfn as usize) };
        let mapped = table().for_proc_address(name, p, version, flags);
        // SAFETY: pfn is the caller's out-pointer.
        unsafe { *pfn = mapped as *mut c_void };
    });
}

fn record_attr(d: &Driver, handle: usize, set: impl FnOnce(&mut state::Attrs)) {
    let known = {
        let mut t = state::tables();
        if !t.funcs.contains_key(&handle) {
            false
        } else {
            set(t.attrs.entry(handle).or_default());
            true
        }
    };
    if known {
        instrument::attribute_changed(d, handle);
    }
}

/// `cuFuncSetAttribute` (also accepts a `CUkernel` handle).
pub unsafe extern "C" fn cuFuncSetAttribute(
    func: CUfunction,
    attr: c_int,
    value: c_int,
) -> CuResult {
    let (d, real) = real!(cuFuncSetAttribute);
    // SAFETY: forwarding.
    let rc = unsafe { real(func, attr, value) };
    if rc == CUDA_SUCCESS && active() {
        guard(|| record_attr(d, func as usize, |a| a.set(attr, value)));
    }
    rc
}

/// `cuFuncSetCacheConfig`.
pub unsafe extern "C" fn cuFuncSetCacheConfig(func: CUfunction, config: c_int) -> CuResult {
    let (d, real) = real!(cuFuncSetCacheConfig);
    // SAFETY: forwarding.
    let rc = unsafe { real(func, config) };
    if rc == CUDA_SUCCESS && active() {
        guard(|| record_attr(d, func as usize, |a| a.cache = Some(config)));
    }
    rc
}

/// `cuKernelSetAttribute`.
pub unsafe extern "C" fn cuKernelSetAttribute(
    attr: c_int,
    value: c_int,
    kernel: CUkernel,
    dev: CUdevice,
) -> CuResult {
    let (d, real) = real!(cuKernelSetAttribute);
    // SAFETY: forwarding.
    let rc = unsafe { real(attr, value, kernel, dev) };
    if rc == CUDA_SUCCESS && active() {
        guard(|| record_attr(d, kernel as usize, |a| a.set(attr, value)));
    }
    rc
}

unsafe fn launch_kernel(
    (per_thread, cooperative): (bool, bool),
    f: CUfunction,
    gx: c_uint,
    gy: c_uint,
    gz: c_uint,
    bx: c_uint,
    by: c_uint,
    bz: c_uint,
    shared: c_uint,
    stream: CUstream,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> CuResult {
    let Some(d) = driver() else {
        return CUDA_ERROR_NOT_INITIALIZED;
    };
    let l = Launch {
        func: f,
        grid: [gx, gy, gz],
        block: [bx, by, bz],
        shared,
        stream,
        params,
        extra,
        config: std::ptr::null(),
        per_thread,
        cooperative,
    };
    // SAFETY: the application's launch.
    unsafe { launch(d, &l) }
}

unsafe fn launch_kernel_ex(
    per_thread: bool,
    config: *const CUlaunchConfig,
    f: CUfunction,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> CuResult {
    let Some(d) = driver() else {
        return CUDA_ERROR_NOT_INITIALIZED;
    };
    let stream = if config.is_null() {
        std::ptr::null_mut()
    } else {
        // SAFETY: the caller's config.
        unsafe { (*config).hStream }
    };
    let l = Launch {
        func: f,
        grid: [0; 3],
        block: [0; 3],
        shared: 0,
        stream,
        params,
        extra,
        config,
        per_thread,
        cooperative: false,
    };
    if config.is_null() {
        // A null config is the driver's error to report: forward it as is.
        let real = if per_thread {
            d.cuLaunchKernelEx_ptsz
        } else {
            d.cuLaunchKernelEx
        };
        return match real {
            // SAFETY: forwarding.
            Some(real) => unsafe { real(config, f, params, extra) },
            None => CUDA_ERROR_NOT_FOUND,
        };
    }
    // SAFETY: the application's launch.
    unsafe { launch(d, &l) }
}

/// `cuLaunchKernel`.
pub unsafe extern "C" fn cuLaunchKernel(
    f: CUfunction,
    gx: c_uint,
    gy: c_uint,
    gz: c_uint,
    bx: c_uint,
    by: c_uint,
    bz: c_uint,
    shared: c_uint,
    stream: CUstream,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> CuResult {
    // SAFETY: same contract.
    unsafe {
        launch_kernel(
            (false, false),
            f,
            gx,
            gy,
            gz,
            bx,
            by,
            bz,
            shared,
            stream,
            params,
            extra,
        )
    }
}

/// `cuLaunchKernel_ptsz`.
pub unsafe extern "C" fn cuLaunchKernel_ptsz(
    f: CUfunction,
    gx: c_uint,
    gy: c_uint,
    gz: c_uint,
    bx: c_uint,
    by: c_uint,
    bz: c_uint,
    shared: c_uint,
    stream: CUstream,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> CuResult {
    // SAFETY: same contract.
    unsafe {
        launch_kernel(
            (true, false),
            f,
            gx,
            gy,
            gz,
            bx,
            by,
            bz,
            shared,
            stream,
            params,
            extra,
        )
    }
}

/// `cuLaunchCooperativeKernel`.
pub unsafe extern "C" fn cuLaunchCooperativeKernel(
    f: CUfunction,
    gx: c_uint,
    gy: c_uint,
    gz: c_uint,
    bx: c_uint,
    by: c_uint,
    bz: c_uint,
    shared: c_uint,
    stream: CUstream,
    params: *mut *mut c_void,
) -> CuResult {
    // SAFETY: same contract as cuLaunchKernel without `extra`.
    unsafe {
        launch_kernel(
            (false, true),
            f,
            gx,
            gy,
            gz,
            bx,
            by,
            bz,
            shared,
            stream,
            params,
            std::ptr::null_mut(),
        )
    }
}

/// `cuLaunchCooperativeKernel_ptsz`.
pub unsafe extern "C" fn cuLaunchCooperativeKernel_ptsz(
    f: CUfunction,
    gx: c_uint,
    gy: c_uint,
    gz: c_uint,
    bx: c_uint,
    by: c_uint,
    bz: c_uint,
    shared: c_uint,
    stream: CUstream,
    params: *mut *mut c_void,
) -> CuResult {
    // SAFETY: as above.
    unsafe {
        launch_kernel(
            (true, true),
            f,
            gx,
            gy,
            gz,
            bx,
            by,
            bz,
            shared,
            stream,
            params,
            std::ptr::null_mut(),
        )
    }
}

/// `cuLaunchKernelEx`.
pub unsafe extern "C" fn cuLaunchKernelEx(
    config: *const CUlaunchConfig,
    f: CUfunction,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> CuResult {
    // SAFETY: same contract.
    unsafe { launch_kernel_ex(false, config, f, params, extra) }
}

/// `cuLaunchKernelEx_ptsz`.
pub unsafe extern "C" fn cuLaunchKernelEx_ptsz(
    config: *const CUlaunchConfig,
    f: CUfunction,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> CuResult {
    // SAFETY: same contract.
    unsafe { launch_kernel_ex(true, config, f, params, extra) }
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
        assert_eq!(sorted.len(), HOOKS.len());
        assert!(w.iter().all(|&a| a != 0));
    }
}
