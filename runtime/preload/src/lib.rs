//! The `LD_PRELOAD` library: the driver, `dlsym` and `cuGetProcAddress` symbols, each a
//! thin call into `warptrace-runtime`, plus the constructor that starts it.
#![allow(non_snake_case)] // the driver's names
#![allow(clippy::missing_safety_doc)] // each export has the contract of the C function it replaces
#![allow(clippy::too_many_arguments)] // the driver's signatures

use cudarc::driver::sys::{
    CUdevice, CUfunction, CUkernel, CUlaunchConfig, CUlibrary, CUmodule, CUstream,
};
use std::ffi::{c_char, c_int, c_uint, c_void};
use std::sync::atomic::{AtomicUsize, Ordering};
use warptrace_runtime::exports as rt;

type CuResult = c_uint;

/// The runtime instruments kernels in the application's process: its allocations (many
/// small strings) go to mimalloc, not the application's malloc (docs/decisions/0006-mimalloc.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The C library's `dlsym`, read by the `dlsym` trampoline for `RTLD_NEXT` lookups.
static REAL_DLSYM: AtomicUsize = AtomicUsize::new(0);

extern "C" fn constructor() {
    REAL_DLSYM.store(rt::real_dlsym_address(), Ordering::Release);
    warptrace_runtime::init();
}

#[used]
#[unsafe(link_section = ".init_array")]
static INIT: extern "C" fn() = constructor;

/// `dlsym`. `RTLD_NEXT` is resolved by glibc relative to its caller's object, so those
/// lookups jump straight to the real `dlsym` with the caller's return address intact;
/// every other lookup goes through the runtime, which swaps hooked driver functions for
/// their wrappers.
#[cfg(target_arch = "x86_64")]
#[unsafe(naked)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dlsym(handle: *mut c_void, name: *const c_char) -> *mut c_void {
    core::arch::naked_asm!(
        "cmp rdi, -1",
        "jne 2f",
        "mov rax, qword ptr [rip + {real}]",
        "test rax, rax",
        "jz 2f",
        "jmp rax",
        "2:",
        "jmp {imp}",
        real = sym REAL_DLSYM,
        imp = sym dlsym_impl,
    )
}

#[cfg(target_arch = "x86_64")]
unsafe extern "C" fn dlsym_impl(handle: *mut c_void, name: *const c_char) -> *mut c_void {
    // SAFETY: dlsym's contract.
    unsafe { rt::dlsym(handle, name) }
}

/// `dlsym` (architectures without the `RTLD_NEXT` trampoline: `RTLD_NEXT` then resolves
/// relative to this library).
#[cfg(not(target_arch = "x86_64"))]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dlsym(handle: *mut c_void, name: *const c_char) -> *mut c_void {
    // SAFETY: dlsym's contract.
    unsafe { rt::dlsym(handle, name) }
}

macro_rules! export {
    ($( $name:ident ( $($arg:ident : $ty:ty),* ); )*) => {
        $(
            #[doc = concat!("`", stringify!($name), "`, interposed.")]
            #[unsafe(no_mangle)]
            pub unsafe extern "C" fn $name($($arg: $ty),*) -> CuResult {
                // SAFETY: the same contract as the driver function of this name.
                unsafe { rt::$name($($arg),*) }
            }
        )*
    };
}

export! {
    cuGetProcAddress(symbol: *const c_char, pfn: *mut *mut c_void, version: c_int, flags: u64);
    cuGetProcAddress_v2(symbol: *const c_char, pfn: *mut *mut c_void, version: c_int, flags: u64, status: *mut c_int);
    cuModuleLoadData(module: *mut CUmodule, image: *const c_void);
    cuModuleLoadDataEx(module: *mut CUmodule, image: *const c_void, n: c_uint, options: *mut c_int, values: *mut *mut c_void);
    cuModuleLoad(module: *mut CUmodule, fname: *const c_char);
    cuModuleUnload(module: CUmodule);
    cuModuleGetFunction(func: *mut CUfunction, module: CUmodule, name: *const c_char);
    cuModuleLoadFatBinary(module: *mut CUmodule, fat_cubin: *const c_void);
    cuModuleEnumerateFunctions(functions: *mut CUfunction, count: c_uint, module: CUmodule);
    cuLibraryLoadData(library: *mut CUlibrary, code: *const c_void, jo: *mut c_int, jv: *mut *mut c_void, nj: c_uint, lo: *mut c_int, lv: *mut *mut c_void, nl: c_uint);
    cuLibraryLoadFromFile(library: *mut CUlibrary, fname: *const c_char, jo: *mut c_int, jv: *mut *mut c_void, nj: c_uint, lo: *mut c_int, lv: *mut *mut c_void, nl: c_uint);
    cuLibraryGetKernel(kernel: *mut CUkernel, library: CUlibrary, name: *const c_char);
    cuLibraryUnload(library: CUlibrary);
    cuLibraryGetModule(module: *mut CUmodule, library: CUlibrary);
    cuLibraryEnumerateKernels(kernels: *mut CUkernel, count: c_uint, library: CUlibrary);
    cuKernelGetFunction(func: *mut CUfunction, kernel: CUkernel);
    cuFuncSetAttribute(func: CUfunction, attr: c_int, value: c_int);
    cuFuncSetCacheConfig(func: CUfunction, config: c_int);
    cuKernelSetAttribute(attr: c_int, value: c_int, kernel: CUkernel, dev: CUdevice);
    cuLaunchKernel(f: CUfunction, gx: c_uint, gy: c_uint, gz: c_uint, bx: c_uint, by: c_uint, bz: c_uint, shared: c_uint, stream: CUstream, params: *mut *mut c_void, extra: *mut *mut c_void);
    cuLaunchKernel_ptsz(f: CUfunction, gx: c_uint, gy: c_uint, gz: c_uint, bx: c_uint, by: c_uint, bz: c_uint, shared: c_uint, stream: CUstream, params: *mut *mut c_void, extra: *mut *mut c_void);
    cuLaunchKernelEx(config: *const CUlaunchConfig, f: CUfunction, params: *mut *mut c_void, extra: *mut *mut c_void);
    cuLaunchKernelEx_ptsz(config: *const CUlaunchConfig, f: CUfunction, params: *mut *mut c_void, extra: *mut *mut c_void);
    cuLaunchCooperativeKernel(f: CUfunction, gx: c_uint, gy: c_uint, gz: c_uint, bx: c_uint, by: c_uint, bz: c_uint, shared: c_uint, stream: CUstream, params: *mut *mut c_void);
    cuLaunchCooperativeKernel_ptsz(f: CUfunction, gx: c_uint, gy: c_uint, gz: c_uint, bx: c_uint, by: c_uint, bz: c_uint, shared: c_uint, stream: CUstream, params: *mut *mut c_void);
}
