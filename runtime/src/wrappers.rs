//! The wrappers of every hooked driver function, plus the `dlsym` and `cuGetProcAddress`
//! interposers. The preload library exports these under the driver's names; `dlsym` and
//! `cuGetProcAddress` hand out their addresses. Each forwards to the real function first
//! (or only, when no bundle is loaded); nothing here unwinds into C.
#![allow(non_snake_case)] // the driver's names
#![allow(clippy::missing_safety_doc)] // each has the safety contract of the driver function of the same name
#![allow(clippy::too_many_arguments)] // the driver's signatures

use crate::config::{self, active};
use crate::driver::{
    driver, real_dlsym, CuResult, Driver, CUDA_ERROR_NOT_INITIALIZED, CUDA_SUCCESS,
};
use crate::hooks::{Hook, HookTable, HOOKS};
use crate::image::{find_ptx, image_at, ImageError};
use crate::instrument;
use crate::launch::{launch, Launch};
use crate::report::Reason;
use crate::state::{self, FuncInfo, Owner};
use cudarc::driver::sys::{
    CUdevice, CUfunction, CUkernel, CUlaunchConfig, CUlibrary, CUmodule, CUstream,
};
use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, OnceLock};

/// `CUDA_ERROR_NOT_FOUND`: the loaded driver lacks the function.
const CUDA_ERROR_NOT_FOUND: CuResult = 500;

/// Runs `f`, swallowing a panic (then `None`).
fn guard<T>(f: impl FnOnce() -> T) -> Option<T> {
    catch_unwind(AssertUnwindSafe(f)).ok()
}

macro_rules! real {
    ($field:ident) => {
        match driver() {
            Some(d) => match d.$field {
                Some(f) => (d, f),
                None => return CUDA_ERROR_NOT_FOUND,
            },
            None => return CUDA_ERROR_NOT_INITIALIZED,
        }
    };
}

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
            Hook::LibraryLoadData => cuLibraryLoadData as *const () as usize,
            Hook::LibraryLoadFromFile => cuLibraryLoadFromFile as *const () as usize,
            Hook::LibraryGetKernel => cuLibraryGetKernel as *const () as usize,
            Hook::LibraryUnload => cuLibraryUnload as *const () as usize,
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

/// Compute capability (`major * 10 + minor`) of the current context's device, else device 0.
fn compute_capability(d: &Driver) -> Option<u32> {
    let get = d.cuDeviceGetAttribute?;
    let mut dev: CUdevice = 0;
    if let Some(ctx_dev) = d.cuCtxGetDevice {
        // SAFETY: out-pointer; on failure dev stays 0.
        if unsafe { ctx_dev(&mut dev) } != CUDA_SUCCESS {
            dev = 0;
        }
    }
    let (mut major, mut minor) = (0, 0);
    // SAFETY: out-pointers; 75/76 are CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR/MINOR.
    let ok = unsafe {
        get(&mut major, 75, dev) == CUDA_SUCCESS && get(&mut minor, 76, dev) == CUDA_SUCCESS
    };
    ok.then_some((major * 10 + minor) as u32)
}

/// Names of the `.entry` kernels of a PTX module.
fn entries(ptx: &str) -> impl Iterator<Item = &str> {
    ptx.split(".entry").skip(1).filter_map(|rest| {
        let name = rest
            .trim_start()
            .split(|c: char| c == '(' || c.is_whitespace())
            .next()?;
        (!name.is_empty()).then_some(name)
    })
}

/// Records the PTX of a freshly loaded image, when it has a selected kernel.
fn on_image(d: &Driver, owner: Owner, image: Option<&[u8]>) {
    let Some(cfg) = config::config() else { return };
    let found = match image {
        Some(bytes) => find_ptx(bytes, compute_capability(d)),
        None => Err(ImageError::NoPtx("unreadable image".into())),
    };
    let record = match found {
        Ok(ptx) => {
            if !entries(&ptx).any(|k| cfg.selector.selects(k)) {
                return;
            }
            Ok(Arc::<str>::from(ptx))
        }
        Err(ImageError::NoPtx(why)) => Err((Reason::NoPtx, why)),
    };
    config::verbose(format_args!(
        "{owner} loaded: {}",
        match &record {
            Ok(ptx) => format!("{} bytes of PTX", ptx.len()),
            Err((r, why)) => format!("{} {why}", r.describe()),
        }
    ));
    state::tables().images.insert(owner, record);
}

fn on_file(d: &Driver, owner: Owner, path: *const c_char) {
    if path.is_null() {
        return;
    }
    // SAFETY: the driver accepted path as a NUL-terminated file name.
    let path = unsafe { CStr::from_ptr(path) }
        .to_string_lossy()
        .into_owned();
    let bytes = std::fs::read(&path).ok();
    on_image(d, owner, bytes.as_deref());
}

fn on_function(handle: usize, owner: Owner, name: *const c_char, kernel: Option<usize>) {
    let Some(cfg) = config::config() else { return };
    if name.is_null() {
        return;
    }
    // SAFETY: the driver accepted name as a NUL-terminated kernel name.
    let name = unsafe { CStr::from_ptr(name) }.to_string_lossy();
    if cfg.selector.selects(&name) {
        state::tables().funcs.insert(
            handle,
            FuncInfo {
                owner,
                name: Arc::from(&*name),
                kernel,
            },
        );
    }
}

/// `cuModuleLoadData`.
pub unsafe extern "C" fn cuModuleLoadData(module: *mut CUmodule, image: *const c_void) -> CuResult {
    let (d, real) = real!(cuModuleLoadData);
    // SAFETY: forwarding.
    let rc = unsafe { real(module, image) };
    if rc == CUDA_SUCCESS && active() {
        // SAFETY: the driver accepted image; module was written.
        guard(|| {
            on_image(d, Owner::Module(unsafe { *module } as usize), unsafe {
                image_at(image.cast())
            })
        });
    }
    rc
}

/// `cuModuleLoadDataEx`.
pub unsafe extern "C" fn cuModuleLoadDataEx(
    module: *mut CUmodule,
    image: *const c_void,
    n: c_uint,
    options: *mut c_int,
    values: *mut *mut c_void,
) -> CuResult {
    let (d, real) = real!(cuModuleLoadDataEx);
    // SAFETY: forwarding.
    let rc = unsafe { real(module, image, n, options, values) };
    if rc == CUDA_SUCCESS && active() {
        // SAFETY: as in cuModuleLoadData.
        guard(|| {
            on_image(d, Owner::Module(unsafe { *module } as usize), unsafe {
                image_at(image.cast())
            })
        });
    }
    rc
}

/// `cuModuleLoad`.
pub unsafe extern "C" fn cuModuleLoad(module: *mut CUmodule, fname: *const c_char) -> CuResult {
    let (d, real) = real!(cuModuleLoad);
    // SAFETY: forwarding.
    let rc = unsafe { real(module, fname) };
    if rc == CUDA_SUCCESS && active() {
        // SAFETY: module was written.
        guard(|| on_file(d, Owner::Module(unsafe { *module } as usize), fname));
    }
    rc
}

/// `cuModuleUnload`.
pub unsafe extern "C" fn cuModuleUnload(module: CUmodule) -> CuResult {
    let (d, real) = real!(cuModuleUnload);
    // SAFETY: forwarding.
    let rc = unsafe { real(module) };
    if active() {
        guard(|| {
            state::tables().forget(Owner::Module(module as usize));
            instrument::forget(d, Owner::Module(module as usize));
        });
    }
    rc
}

/// `cuModuleGetFunction`.
pub unsafe extern "C" fn cuModuleGetFunction(
    func: *mut CUfunction,
    module: CUmodule,
    name: *const c_char,
) -> CuResult {
    let (_, real) = real!(cuModuleGetFunction);
    // SAFETY: forwarding.
    let rc = unsafe { real(func, module, name) };
    if rc == CUDA_SUCCESS && active() {
        // SAFETY: func was written.
        guard(|| {
            on_function(
                unsafe { *func } as usize,
                Owner::Module(module as usize),
                name,
                None,
            )
        });
    }
    rc
}

/// `cuLibraryLoadData`.
pub unsafe extern "C" fn cuLibraryLoadData(
    library: *mut CUlibrary,
    code: *const c_void,
    jit_options: *mut c_int,
    jit_values: *mut *mut c_void,
    n_jit: c_uint,
    lib_options: *mut c_int,
    lib_values: *mut *mut c_void,
    n_lib: c_uint,
) -> CuResult {
    let (d, real) = real!(cuLibraryLoadData);
    // SAFETY: forwarding.
    let rc = unsafe {
        real(
            library,
            code,
            jit_options,
            jit_values,
            n_jit,
            lib_options,
            lib_values,
            n_lib,
        )
    };
    if rc == CUDA_SUCCESS && active() {
        // SAFETY: the driver accepted code; library was written.
        guard(|| {
            on_image(d, Owner::Library(unsafe { *library } as usize), unsafe {
                image_at(code.cast())
            })
        });
    }
    rc
}

/// `cuLibraryLoadFromFile`.
pub unsafe extern "C" fn cuLibraryLoadFromFile(
    library: *mut CUlibrary,
    fname: *const c_char,
    jit_options: *mut c_int,
    jit_values: *mut *mut c_void,
    n_jit: c_uint,
    lib_options: *mut c_int,
    lib_values: *mut *mut c_void,
    n_lib: c_uint,
) -> CuResult {
    let (d, real) = real!(cuLibraryLoadFromFile);
    // SAFETY: forwarding.
    let rc = unsafe {
        real(
            library,
            fname,
            jit_options,
            jit_values,
            n_jit,
            lib_options,
            lib_values,
            n_lib,
        )
    };
    if rc == CUDA_SUCCESS && active() {
        // SAFETY: library was written.
        guard(|| on_file(d, Owner::Library(unsafe { *library } as usize), fname));
    }
    rc
}

/// `cuLibraryGetKernel`.
pub unsafe extern "C" fn cuLibraryGetKernel(
    kernel: *mut CUkernel,
    library: CUlibrary,
    name: *const c_char,
) -> CuResult {
    let (_, real) = real!(cuLibraryGetKernel);
    // SAFETY: forwarding.
    let rc = unsafe { real(kernel, library, name) };
    if rc == CUDA_SUCCESS && active() {
        // SAFETY: kernel was written.
        guard(|| {
            on_function(
                unsafe { *kernel } as usize,
                Owner::Library(library as usize),
                name,
                None,
            )
        });
    }
    rc
}

/// `cuLibraryUnload`.
pub unsafe extern "C" fn cuLibraryUnload(library: CUlibrary) -> CuResult {
    let (d, real) = real!(cuLibraryUnload);
    // SAFETY: forwarding.
    let rc = unsafe { real(library) };
    if active() {
        guard(|| {
            state::tables().forget(Owner::Library(library as usize));
            instrument::forget(d, Owner::Library(library as usize));
        });
    }
    rc
}

/// `cuKernelGetFunction`.
pub unsafe extern "C" fn cuKernelGetFunction(func: *mut CUfunction, kernel: CUkernel) -> CuResult {
    let (_, real) = real!(cuKernelGetFunction);
    // SAFETY: forwarding.
    let rc = unsafe { real(func, kernel) };
    if rc == CUDA_SUCCESS && active() {
        guard(|| {
            let mut t = state::tables();
            if let Some(info) = t.funcs.get(&(kernel as usize)).cloned() {
                let info = FuncInfo {
                    kernel: Some(kernel as usize),
                    ..info
                };
                // SAFETY: func was written.
                t.funcs.insert(unsafe { *func } as usize, info);
            }
        });
    }
    rc
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
    fn entry_names_are_found() {
        let ptx = ".version 8.7\n.visible .entry vector_add(\n.param .u64 a\n)\n{}\n.entry _Z5twicePf (\n)";
        assert_eq!(
            entries(ptx).collect::<Vec<_>>(),
            ["vector_add", "_Z5twicePf"]
        );
    }

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
