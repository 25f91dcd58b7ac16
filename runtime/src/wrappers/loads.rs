//! The wrappers that track images and handles: module and library loads (PTX, cubin,
//! fatbinary, file), unloads, and every way to get a function or kernel handle of an
//! image (`cuModuleGetFunction`, `cuLibraryGetKernel`, `cuKernelGetFunction`,
//! `cuLibraryGetModule`, `cuModuleEnumerateFunctions`, `cuLibraryEnumerateKernels`).

use super::guard;
use crate::config::{self, active};
use crate::driver::{CuResult, Driver, CUDA_SUCCESS};
use crate::image::{entries, find_ptx, image_at, triton_cache_dir, with_source_lines, ImageError};
use crate::instrument;
use crate::report::Reason;
use crate::state::{self, FuncInfo, Owner};
use cudarc::driver::sys::{CUfunction, CUkernel, CUlibrary, CUmodule};
use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::sync::Arc;

/// Records the PTX of a freshly loaded image, when it has a selected kernel.
fn on_image(d: &Driver, owner: Owner, image: Option<&[u8]>) {
    let Some(cfg) = config::config() else { return };
    state::tables().images_loaded += 1;
    let found = match image {
        Some(bytes) => find_ptx(bytes, d.compute_capability()),
        None => Err(ImageError::NoPtx("unreadable image".into())),
    };
    let record = match found {
        Ok(ptx) => {
            if !entries(&ptx).any(|k| cfg.selector.selects(k)) {
                return;
            }
            // A cubin's PTX comes without its `.loc` lines; Triton's cache may have them.
            let lined = image
                .zip(triton_cache_dir())
                .and_then(|(bytes, cache)| with_source_lines(bytes, &ptx, &cache));
            let ptx = match lined {
                Some((text, path)) => {
                    config::verbose(format_args!(
                        "{owner}: source lines from {}",
                        path.display()
                    ));
                    text
                }
                None => ptx,
            };
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
            let owner = state::tables().module_owner(module as usize);
            on_function(unsafe { *func } as usize, owner, name, None)
        });
    }
    rc
}

/// `cuModuleLoadFatBinary`: a fatbinary (or its `__fatBinC_Wrapper_t`), as
/// `cuModuleLoadData` takes it.
pub unsafe extern "C" fn cuModuleLoadFatBinary(
    module: *mut CUmodule,
    fat_cubin: *const c_void,
) -> CuResult {
    let (d, real) = real!(cuModuleLoadFatBinary);
    // SAFETY: forwarding.
    let rc = unsafe { real(module, fat_cubin) };
    if rc == CUDA_SUCCESS && active() {
        // SAFETY: the driver accepted the image; module was written.
        guard(|| {
            on_image(d, Owner::Module(unsafe { *module } as usize), unsafe {
                image_at(fat_cubin.cast())
            })
        });
    }
    rc
}

/// `cuModuleEnumerateFunctions`: each function is tracked under the name the driver
/// gives it (`cuFuncGetName`), as if `cuModuleGetFunction` had returned it.
pub unsafe extern "C" fn cuModuleEnumerateFunctions(
    functions: *mut CUfunction,
    count: c_uint,
    module: CUmodule,
) -> CuResult {
    let (d, real) = real!(cuModuleEnumerateFunctions);
    // SAFETY: forwarding.
    let rc = unsafe { real(functions, count, module) };
    if rc == CUDA_SUCCESS && active() && !functions.is_null() {
        guard(|| {
            let owner = state::tables().module_owner(module as usize);
            // SAFETY: the driver filled `count` handles.
            let handles = unsafe { std::slice::from_raw_parts(functions, count as usize) };
            for &f in handles {
                if let Some(name) = named(d.cuFuncGetName, f) {
                    on_function(f as usize, owner, name, None);
                }
            }
        });
    }
    rc
}

/// The driver's name of a handle (`cuFuncGetName` / `cuKernelGetName`).
fn named<H>(
    get: Option<unsafe extern "C" fn(*mut *const c_char, H) -> CuResult>,
    handle: H,
) -> Option<*const c_char> {
    let mut name: *const c_char = std::ptr::null();
    // SAFETY: handle is live (the driver just returned it); name is an out-pointer to a
    // string the driver owns for the handle's lifetime.
    let rc = unsafe { get?(&mut name, handle) };
    (rc == CUDA_SUCCESS && !name.is_null()).then_some(name)
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

/// `cuLibraryGetModule`: the library's module in the current context stands for the
/// library's image, so `cuModuleGetFunction` on it finds the library's PTX.
pub unsafe extern "C" fn cuLibraryGetModule(module: *mut CUmodule, library: CUlibrary) -> CuResult {
    let (_, real) = real!(cuLibraryGetModule);
    // SAFETY: forwarding.
    let rc = unsafe { real(module, library) };
    if rc == CUDA_SUCCESS && active() && !module.is_null() {
        // SAFETY: module was written.
        let m = unsafe { *module } as usize;
        guard(|| {
            state::tables()
                .library_modules
                .insert(m, Owner::Library(library as usize))
        });
    }
    rc
}

/// `cuLibraryEnumerateKernels`: each kernel is tracked under the name the driver gives
/// it (`cuKernelGetName`), as if `cuLibraryGetKernel` had returned it.
pub unsafe extern "C" fn cuLibraryEnumerateKernels(
    kernels: *mut CUkernel,
    count: c_uint,
    library: CUlibrary,
) -> CuResult {
    let (d, real) = real!(cuLibraryEnumerateKernels);
    // SAFETY: forwarding.
    let rc = unsafe { real(kernels, count, library) };
    if rc == CUDA_SUCCESS && active() && !kernels.is_null() {
        guard(|| {
            // SAFETY: the driver filled `count` handles.
            let handles = unsafe { std::slice::from_raw_parts(kernels, count as usize) };
            for &k in handles {
                if let Some(name) = named(d.cuKernelGetName, k) {
                    on_function(k as usize, Owner::Library(library as usize), name, None);
                }
            }
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
    fn a_library_module_stands_for_its_library() {
        let mut t = state::Tables::default();
        let (lib, module, plain) = (0x10, 0x20, 0x30);
        t.library_modules.insert(module, Owner::Library(lib));
        assert_eq!(t.module_owner(module), Owner::Library(lib));
        assert_eq!(t.module_owner(plain), Owner::Module(plain));
        // Unloading the library forgets its module too.
        t.forget(Owner::Library(lib));
        assert_eq!(t.module_owner(module), Owner::Module(module));
        // Unloading the module itself (an application error, but possible) forgets it.
        t.library_modules.insert(module, Owner::Library(lib));
        t.forget(Owner::Module(module));
        assert!(t.library_modules.is_empty());
    }
}
