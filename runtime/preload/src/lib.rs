//! The `LD_PRELOAD` library: the CUDA driver, HIP runtime, `dlsym` and `cuGetProcAddress`
//! symbols, each a thin call into `warptrace-runtime`, plus the constructor that starts
//! it. One library serves both vendors (docs/decisions/0009-hip-code-objects.md): a
//! process calls only the exports of the runtime it links.
#![allow(non_snake_case)] // the driver's names
#![allow(clippy::missing_safety_doc)] // each export has the contract of the C function it replaces
#![allow(clippy::too_many_arguments)] // the driver's signatures

use cudarc::driver::sys::{
    CUDA_KERNEL_NODE_PARAMS_v2, CUcontext, CUdevice, CUfunction, CUgraph, CUgraphExec, CUgraphNode,
    CUgraphNodeParams, CUkernel, CUlaunchConfig, CUlibrary, CUmodule, CUstream,
    CUDA_GRAPH_INSTANTIATE_PARAMS,
};
use std::ffi::{c_char, c_int, c_uint, c_void};
use std::sync::atomic::{AtomicUsize, Ordering};
use warptrace_runtime::exports as rt;
use warptrace_runtime::hip_exports as hip;

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
    unsafe { lookup(handle, name) }
}

/// The runtime's `dlsym` (CUDA driver names), then the HIP hook's mapping of `hip*` and
/// `__hip*` names (Triton `dlsym`s `hipGetProcAddress` on `libamdhip64`'s handle).
unsafe fn lookup(handle: *mut c_void, name: *const c_char) -> *mut c_void {
    // SAFETY: dlsym's contract.
    let p = unsafe { rt::dlsym(handle, name) };
    if p.is_null() || name.is_null() {
        return p;
    }
    // SAFETY: dlsym's contract: name is NUL-terminated.
    let n = unsafe { std::ffi::CStr::from_ptr(name) }.to_bytes();
    if n.starts_with(b"hip") || n.starts_with(b"__hip") {
        return hip::map_lookup(n, p as usize) as *mut c_void;
    }
    p
}

/// `dlsym` (architectures without the `RTLD_NEXT` trampoline: `RTLD_NEXT` then resolves
/// relative to this library).
#[cfg(not(target_arch = "x86_64"))]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dlsym(handle: *mut c_void, name: *const c_char) -> *mut c_void {
    // SAFETY: dlsym's contract.
    unsafe { lookup(handle, name) }
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

/// `_exit` of the C library, interposed: writes this process's report (which `atexit`
/// would have, see `warptrace_runtime::exits`), then ends the process as `_exit` does.
#[unsafe(no_mangle)]
pub extern "C" fn _exit(status: c_int) -> ! {
    warptrace_runtime::exits::before_quick_exit();
    warptrace_runtime::exits::exit_group(status)
}

/// `_Exit` of the C library (the same as `_exit`), interposed likewise.
#[unsafe(no_mangle)]
pub extern "C" fn _Exit(status: c_int) -> ! {
    warptrace_runtime::exits::before_quick_exit();
    warptrace_runtime::exits::exit_group(status)
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
    cuCtxDestroy_v2(ctx: CUcontext);
    cuDevicePrimaryCtxRelease_v2(dev: CUdevice);
    cuDevicePrimaryCtxReset_v2(dev: CUdevice);
    cuGraphAddKernelNode_v2(node: *mut CUgraphNode, graph: CUgraph, deps: *const CUgraphNode, n: usize, params: *const CUDA_KERNEL_NODE_PARAMS_v2);
    cuGraphKernelNodeSetParams_v2(node: CUgraphNode, params: *const CUDA_KERNEL_NODE_PARAMS_v2);
    cuGraphExecKernelNodeSetParams_v2(exec: CUgraphExec, node: CUgraphNode, params: *const CUDA_KERNEL_NODE_PARAMS_v2);
    cuGraphAddNode(node: *mut CUgraphNode, graph: CUgraph, deps: *const CUgraphNode, n: usize, params: *mut CUgraphNodeParams);
    cuGraphAddNode_v2(node: *mut CUgraphNode, graph: CUgraph, deps: *const CUgraphNode, edges: *const c_void, n: usize, params: *mut CUgraphNodeParams);
    cuGraphNodeSetParams(node: CUgraphNode, params: *mut CUgraphNodeParams);
    cuGraphExecNodeSetParams(exec: CUgraphExec, node: CUgraphNode, params: *mut CUgraphNodeParams);
    cuGraphInstantiateWithFlags(exec: *mut CUgraphExec, graph: CUgraph, flags: u64);
    cuGraphInstantiateWithParams(exec: *mut CUgraphExec, graph: CUgraph, params: *mut CUDA_GRAPH_INSTANTIATE_PARAMS);
    cuGraphInstantiateWithParams_ptsz(exec: *mut CUgraphExec, graph: CUgraph, params: *mut CUDA_GRAPH_INSTANTIATE_PARAMS);
    cuGraphExecUpdate_v2(exec: CUgraphExec, graph: CUgraph, info: *mut c_void);
    cuGraphLaunch(exec: CUgraphExec, stream: CUstream);
    cuGraphLaunch_ptsz(exec: CUgraphExec, stream: CUstream);
    cuGraphClone(clone: *mut CUgraph, original: CUgraph);
    cuGraphAddChildGraphNode(node: *mut CUgraphNode, parent: CUgraph, deps: *const CUgraphNode, n: usize, child: CUgraph);
    cuGraphDestroyNode(node: CUgraphNode);
    cuGraphDestroy(graph: CUgraph);
    cuGraphExecDestroy(exec: CUgraphExec);
}

macro_rules! export_hip {
    ($( $name:ident ( $($arg:ident : $ty:ty),* ) $(-> $ret:ty)?; )*) => {
        $(
            #[doc = concat!("`", stringify!($name), "` of the HIP runtime, interposed.")]
            #[unsafe(no_mangle)]
            pub unsafe extern "C" fn $name($($arg: $ty),*) $(-> $ret)? {
                // SAFETY: the same contract as the HIP function of this name.
                unsafe { hip::$name($($arg),*) }
            }
        )*
    };
}

export_hip! {
    __hipRegisterFatBinary(data: *const c_void) -> *mut *mut c_void;
    __hipRegisterFunction(modules: *mut *mut c_void, host: *const c_void, device_fn: *mut c_char, name: *const c_char, limit: c_uint, tid: *mut c_void, bid: *mut c_void, block: *mut c_void, grid: *mut c_void, wave_size: *mut c_int);
    __hipUnregisterFatBinary(modules: *mut *mut c_void);
    hipModuleLoadData(module: *mut hip::Handle, image: *const c_void) -> hip::HipError;
    hipModuleLoadDataEx(module: *mut hip::Handle, image: *const c_void, n: c_uint, options: *mut c_int, values: *mut *mut c_void) -> hip::HipError;
    hipModuleUnload(module: hip::Handle) -> hip::HipError;
    hipModuleGetFunction(func: *mut hip::Handle, module: hip::Handle, name: *const c_char) -> hip::HipError;
    hipModuleLaunchKernel(f: hip::Handle, gx: c_uint, gy: c_uint, gz: c_uint, bx: c_uint, by: c_uint, bz: c_uint, shared: c_uint, stream: hip::Handle, params: *mut *mut c_void, extra: *mut *mut c_void) -> hip::HipError;
    hipLaunchKernel(stub: *const c_void, grid: hip::Dim3, block: hip::Dim3, args: *mut *mut c_void, shared: usize, stream: hip::Handle) -> hip::HipError;
    hipExtLaunchKernel(stub: *const c_void, grid: hip::Dim3, block: hip::Dim3, args: *mut *mut c_void, shared: usize, stream: hip::Handle, start: hip::Handle, stop: hip::Handle, flags: c_int) -> hip::HipError;
    hipGetProcAddress(symbol: *const c_char, pfn: *mut *mut c_void, version: c_int, flags: u64, status: *mut c_int) -> hip::HipError;
}
