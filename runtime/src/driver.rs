//! The real CUDA driver: `dlsym` without recursion, `libcuda.so.1`, and a typed pointer
//! for every driver function the runtime wraps or calls.
//!
//! Nothing here goes through the interposed `dlsym`: the real one comes from `dlvsym`, and
//! every driver pointer from the real `dlsym` on the `libcuda.so.1` handle (whose lookup
//! scope is libcuda and its dependencies, never the preload library).

use crate::hooks::HOOKS;
use cudarc::driver::sys::{
    CUDA_KERNEL_NODE_PARAMS_v2, CUcontext, CUdevice, CUdeviceptr, CUevent, CUfunction, CUgraph,
    CUgraphExec, CUgraphNode, CUgraphNodeParams, CUkernel, CUlaunchConfig, CUlibrary, CUlinkState,
    CUmodule, CUstream, CUDA_GRAPH_INSTANTIATE_PARAMS,
};
use std::cell::Cell;
use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

/// A raw `CUresult`. Kept as an integer: a driver may return codes newer than any enum.
pub type CuResult = c_uint;
/// `CUDA_SUCCESS`.
pub const CUDA_SUCCESS: CuResult = 0;
/// `CUDA_ERROR_NOT_INITIALIZED`: returned by a plain export when libcuda cannot be found.
pub const CUDA_ERROR_NOT_INITIALIZED: CuResult = 3;

/// `void *dlsym(void *, const char *)`.
pub type DlsymFn = unsafe extern "C" fn(*mut c_void, *const c_char) -> *mut c_void;

static REAL_DLSYM: AtomicUsize = AtomicUsize::new(0);

/// The C library's own `dlsym`, found with `dlvsym` so that the lookup never reaches an
/// interposed `dlsym` (ours included).
pub fn real_dlsym() -> Option<DlsymFn> {
    let mut p = REAL_DLSYM.load(Ordering::Acquire);
    if p == 0 {
        for version in [c"GLIBC_2.34", c"GLIBC_2.2.5"] {
            // SAFETY: dlvsym with valid NUL-terminated strings; RTLD_NEXT relative to this
            // library finds the C library's definition.
            p = unsafe { libc::dlvsym(libc::RTLD_NEXT, c"dlsym".as_ptr(), version.as_ptr()) }
                as usize;
            if p != 0 {
                break;
            }
        }
        if p == 0 {
            return None;
        }
        REAL_DLSYM.store(p, Ordering::Release);
    }
    // SAFETY: p is the address of glibc's dlsym, whose signature is DlsymFn.
    Some(unsafe { std::mem::transmute::<usize, DlsymFn>(p) })
}

macro_rules! driver_fns {
    ($( $field:ident : $sym:literal => fn($($arg:ty),*); )*) => {
        /// Typed pointers to the real driver functions (`None` where this driver lacks one).
        #[allow(non_snake_case, missing_debug_implementations)] // fields named like the C functions
        pub struct Driver {
            /// The real address of every [`HOOKS`] entry, in table order (0 if absent).
            pub hooked: [usize; HOOKS.len()],
            $( #[doc = concat!("`", stringify!($field), "`.")]
               pub $field: Option<unsafe extern "C" fn($($arg),*) -> CuResult>, )*
        }

        impl Driver {
            pub(crate) fn resolve(handle: *mut c_void, dlsym: DlsymFn) -> Driver {
                let find = |name: &CStr| -> usize {
                    // SAFETY: handle is a live dlopen handle, name NUL-terminated.
                    unsafe { dlsym(handle, name.as_ptr()) as usize }
                };
                let mut hooked = [0usize; HOOKS.len()];
                for (slot, hook) in hooked.iter_mut().zip(HOOKS.iter()) {
                    *slot = find(hook.name);
                }
                Driver {
                    hooked,
                    $( $field: {
                        let p = find($sym);
                        // SAFETY: the symbol of that name in libcuda has this C signature
                        // (cuda.h, CUDA 13.0); 0 maps to None.
                        unsafe { std::mem::transmute::<usize, Option<unsafe extern "C" fn($($arg),*) -> CuResult>>(p) }
                    }, )*
                }
            }
        }
    };
}

driver_fns! {
    cuModuleLoadData: c"cuModuleLoadData" => fn(*mut CUmodule, *const c_void);
    cuModuleLoadDataEx: c"cuModuleLoadDataEx" => fn(*mut CUmodule, *const c_void, c_uint, *mut c_int, *mut *mut c_void);
    cuModuleLoad: c"cuModuleLoad" => fn(*mut CUmodule, *const c_char);
    cuModuleUnload: c"cuModuleUnload" => fn(CUmodule);
    cuModuleGetFunction: c"cuModuleGetFunction" => fn(*mut CUfunction, CUmodule, *const c_char);
    cuModuleLoadFatBinary: c"cuModuleLoadFatBinary" => fn(*mut CUmodule, *const c_void);
    cuModuleEnumerateFunctions: c"cuModuleEnumerateFunctions" => fn(*mut CUfunction, c_uint, CUmodule);
    cuLibraryLoadData: c"cuLibraryLoadData" => fn(*mut CUlibrary, *const c_void, *mut c_int, *mut *mut c_void, c_uint, *mut c_int, *mut *mut c_void, c_uint);
    cuLibraryLoadFromFile: c"cuLibraryLoadFromFile" => fn(*mut CUlibrary, *const c_char, *mut c_int, *mut *mut c_void, c_uint, *mut c_int, *mut *mut c_void, c_uint);
    cuLibraryGetKernel: c"cuLibraryGetKernel" => fn(*mut CUkernel, CUlibrary, *const c_char);
    cuLibraryUnload: c"cuLibraryUnload" => fn(CUlibrary);
    cuLibraryGetModule: c"cuLibraryGetModule" => fn(*mut CUmodule, CUlibrary);
    cuLibraryEnumerateKernels: c"cuLibraryEnumerateKernels" => fn(*mut CUkernel, c_uint, CUlibrary);
    cuFuncGetName: c"cuFuncGetName" => fn(*mut *const c_char, CUfunction);
    cuKernelGetName: c"cuKernelGetName" => fn(*mut *const c_char, CUkernel);
    cuKernelGetFunction: c"cuKernelGetFunction" => fn(*mut CUfunction, CUkernel);
    cuFuncSetAttribute: c"cuFuncSetAttribute" => fn(CUfunction, c_int, c_int);
    cuFuncGetAttribute: c"cuFuncGetAttribute" => fn(*mut c_int, c_int, CUfunction);
    cuFuncGetParamInfo: c"cuFuncGetParamInfo" => fn(CUfunction, usize, *mut usize, *mut usize);
    cuFuncSetCacheConfig: c"cuFuncSetCacheConfig" => fn(CUfunction, c_int);
    cuKernelSetAttribute: c"cuKernelSetAttribute" => fn(c_int, c_int, CUkernel, CUdevice);
    cuLaunchKernel: c"cuLaunchKernel" => fn(CUfunction, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint, CUstream, *mut *mut c_void, *mut *mut c_void);
    cuLaunchKernel_ptsz: c"cuLaunchKernel_ptsz" => fn(CUfunction, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint, CUstream, *mut *mut c_void, *mut *mut c_void);
    cuLaunchKernelEx: c"cuLaunchKernelEx" => fn(*const CUlaunchConfig, CUfunction, *mut *mut c_void, *mut *mut c_void);
    cuLaunchKernelEx_ptsz: c"cuLaunchKernelEx_ptsz" => fn(*const CUlaunchConfig, CUfunction, *mut *mut c_void, *mut *mut c_void);
    cuLaunchCooperativeKernel: c"cuLaunchCooperativeKernel" => fn(CUfunction, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint, CUstream, *mut *mut c_void);
    cuLaunchCooperativeKernel_ptsz: c"cuLaunchCooperativeKernel_ptsz" => fn(CUfunction, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint, CUstream, *mut *mut c_void);
    cuGetProcAddress: c"cuGetProcAddress" => fn(*const c_char, *mut *mut c_void, c_int, u64);
    cuGetProcAddress_v2: c"cuGetProcAddress_v2" => fn(*const c_char, *mut *mut c_void, c_int, u64, *mut c_int);
    cuMemsetD8Async: c"cuMemsetD8Async" => fn(CUdeviceptr, u8, usize, CUstream);
    cuMemsetD32Async: c"cuMemsetD32Async" => fn(CUdeviceptr, c_uint, usize, CUstream);
    cuMemcpyDtoHAsync: c"cuMemcpyDtoHAsync_v2" => fn(*mut c_void, CUdeviceptr, usize, CUstream);
    cuMemcpyHtoDAsync: c"cuMemcpyHtoDAsync_v2" => fn(CUdeviceptr, *const c_void, usize, CUstream);
    cuMemAlloc: c"cuMemAlloc_v2" => fn(*mut CUdeviceptr, usize);
    cuMemFree: c"cuMemFree_v2" => fn(CUdeviceptr);
    cuMemcpyDtoH: c"cuMemcpyDtoH_v2" => fn(*mut c_void, CUdeviceptr, usize);
    cuStreamSynchronize: c"cuStreamSynchronize" => fn(CUstream);
    cuStreamCreate: c"cuStreamCreate" => fn(*mut CUstream, c_uint);
    cuCtxSynchronize: c"cuCtxSynchronize" => fn();
    cuCtxDestroy: c"cuCtxDestroy_v2" => fn(CUcontext);
    cuDevicePrimaryCtxRelease: c"cuDevicePrimaryCtxRelease_v2" => fn(CUdevice);
    cuDevicePrimaryCtxReset: c"cuDevicePrimaryCtxReset_v2" => fn(CUdevice);
    cuMemHostRegister: c"cuMemHostRegister_v2" => fn(*mut c_void, usize, c_uint);
    cuMemHostUnregister: c"cuMemHostUnregister" => fn(*mut c_void);
    cuEventCreate: c"cuEventCreate" => fn(*mut CUevent, c_uint);
    cuEventDestroy: c"cuEventDestroy_v2" => fn(CUevent);
    cuEventRecord: c"cuEventRecord" => fn(CUevent, CUstream);
    cuEventSynchronize: c"cuEventSynchronize" => fn(CUevent);
    cuEventElapsedTime: c"cuEventElapsedTime" => fn(*mut f32, CUevent, CUevent);
    cuEventElapsedTime_v2: c"cuEventElapsedTime_v2" => fn(*mut f32, CUevent, CUevent);
    cuCtxSetCurrent: c"cuCtxSetCurrent" => fn(CUcontext);
    cuStreamIsCapturing: c"cuStreamIsCapturing" => fn(CUstream, *mut c_int);
    cuThreadExchangeStreamCaptureMode: c"cuThreadExchangeStreamCaptureMode" => fn(*mut c_int);
    cuLaunchHostFunc: c"cuLaunchHostFunc" => fn(CUstream, Option<unsafe extern "C" fn(*mut c_void)>, *mut c_void);
    cuCtxGetCurrent: c"cuCtxGetCurrent" => fn(*mut CUcontext);
    cuCtxGetDevice: c"cuCtxGetDevice" => fn(*mut CUdevice);
    cuDeviceTotalMem: c"cuDeviceTotalMem_v2" => fn(*mut usize, CUdevice);
    cuDeviceGetAttribute: c"cuDeviceGetAttribute" => fn(*mut c_int, c_int, CUdevice);
    cuDriverGetVersion: c"cuDriverGetVersion" => fn(*mut c_int);
    cuLinkCreate: c"cuLinkCreate_v2" => fn(c_uint, *mut c_int, *mut *mut c_void, *mut CUlinkState);
    cuLinkAddData: c"cuLinkAddData_v2" => fn(CUlinkState, c_int, *mut c_void, usize, *const c_char, c_uint, *mut c_int, *mut *mut c_void);
    cuLinkComplete: c"cuLinkComplete" => fn(CUlinkState, *mut *mut c_void, *mut usize);
    cuLinkDestroy: c"cuLinkDestroy" => fn(CUlinkState);
    cuStreamWaitEvent: c"cuStreamWaitEvent" => fn(CUstream, CUevent, c_uint);
    cuGraphAddKernelNode_v2: c"cuGraphAddKernelNode_v2" => fn(*mut CUgraphNode, CUgraph, *const CUgraphNode, usize, *const CUDA_KERNEL_NODE_PARAMS_v2);
    cuGraphKernelNodeSetParams_v2: c"cuGraphKernelNodeSetParams_v2" => fn(CUgraphNode, *const CUDA_KERNEL_NODE_PARAMS_v2);
    cuGraphExecKernelNodeSetParams_v2: c"cuGraphExecKernelNodeSetParams_v2" => fn(CUgraphExec, CUgraphNode, *const CUDA_KERNEL_NODE_PARAMS_v2);
    cuGraphAddNode: c"cuGraphAddNode" => fn(*mut CUgraphNode, CUgraph, *const CUgraphNode, usize, *mut CUgraphNodeParams);
    cuGraphAddNode_v2: c"cuGraphAddNode_v2" => fn(*mut CUgraphNode, CUgraph, *const CUgraphNode, *const c_void, usize, *mut CUgraphNodeParams);
    cuGraphNodeSetParams: c"cuGraphNodeSetParams" => fn(CUgraphNode, *mut CUgraphNodeParams);
    cuGraphExecNodeSetParams: c"cuGraphExecNodeSetParams" => fn(CUgraphExec, CUgraphNode, *mut CUgraphNodeParams);
    cuGraphInstantiateWithFlags: c"cuGraphInstantiateWithFlags" => fn(*mut CUgraphExec, CUgraph, u64);
    cuGraphInstantiateWithParams: c"cuGraphInstantiateWithParams" => fn(*mut CUgraphExec, CUgraph, *mut CUDA_GRAPH_INSTANTIATE_PARAMS);
    cuGraphInstantiateWithParams_ptsz: c"cuGraphInstantiateWithParams_ptsz" => fn(*mut CUgraphExec, CUgraph, *mut CUDA_GRAPH_INSTANTIATE_PARAMS);
    cuGraphExecUpdate_v2: c"cuGraphExecUpdate_v2" => fn(CUgraphExec, CUgraph, *mut c_void);
    cuGraphLaunch: c"cuGraphLaunch" => fn(CUgraphExec, CUstream);
    cuGraphLaunch_ptsz: c"cuGraphLaunch_ptsz" => fn(CUgraphExec, CUstream);
    cuGraphClone: c"cuGraphClone" => fn(*mut CUgraph, CUgraph);
    cuGraphNodeFindInClone: c"cuGraphNodeFindInClone" => fn(*mut CUgraphNode, CUgraphNode, CUgraph);
    cuGraphAddChildGraphNode: c"cuGraphAddChildGraphNode" => fn(*mut CUgraphNode, CUgraph, *const CUgraphNode, usize, CUgraph);
    cuGraphDestroyNode: c"cuGraphDestroyNode" => fn(CUgraphNode);
    cuGraphDestroy: c"cuGraphDestroy" => fn(CUgraph);
    cuGraphExecDestroy: c"cuGraphExecDestroy" => fn(CUgraphExec);
}

impl Driver {
    /// Compute capability (`major * 10 + minor`) of the current context's device, else
    /// of device 0; `None` when the driver cannot tell.
    pub fn compute_capability(&self) -> Option<u32> {
        let get = self.cuDeviceGetAttribute?;
        let mut dev: CUdevice = 0;
        if let Some(ctx_dev) = self.cuCtxGetDevice {
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

    /// The driver's CUDA version (`cuDriverGetVersion`, e.g. 13000), if it tells.
    pub fn version(&self) -> Option<u32> {
        let get = self.cuDriverGetVersion?;
        let mut v: c_int = 0;
        // SAFETY: out-pointer.
        let ok = unsafe { get(&mut v) } == CUDA_SUCCESS;
        ok.then_some(v as u32)
    }
}

// SAFETY: the struct holds only code addresses of a library that is never unloaded.
unsafe impl Send for Driver {}
// SAFETY: as above; the driver functions themselves are thread-safe.
unsafe impl Sync for Driver {}

static DRIVER: OnceLock<Option<Driver>> = OnceLock::new();

thread_local! {
    static RESOLVING: Cell<bool> = const { Cell::new(false) };
}

/// The real driver, resolved on first use. `None` when `libcuda.so.1` is absent, and also
/// on a re-entrant call from inside the resolution itself (libcuda's initializers may call
/// `dlsym`), which must then behave transparently.
pub fn driver() -> Option<&'static Driver> {
    if let Some(d) = DRIVER.get() {
        return d.as_ref();
    }
    if RESOLVING.with(Cell::get) {
        return None;
    }
    RESOLVING.with(|r| r.set(true));
    let d = DRIVER.get_or_init(resolve).as_ref();
    RESOLVING.with(|r| r.set(false));
    d
}

/// The real driver if it was resolved already (never loads `libcuda.so.1`: a process
/// that has not used CUDA is left without it).
pub fn resolved() -> Option<&'static Driver> {
    DRIVER.get().and_then(Option::as_ref)
}

fn resolve() -> Option<Driver> {
    let dlsym = real_dlsym()?;
    let name = c"libcuda.so.1";
    // SAFETY: plain dlopen calls with a NUL-terminated soname; the handle is never closed.
    let mut handle = unsafe { libc::dlopen(name.as_ptr(), libc::RTLD_NOW | libc::RTLD_NOLOAD) };
    if handle.is_null() {
        // SAFETY: as above.
        handle = unsafe { libc::dlopen(name.as_ptr(), libc::RTLD_NOW) };
    }
    if handle.is_null() {
        crate::config::verbose(format_args!("libcuda.so.1 not found; staying inert"));
        return None;
    }
    Some(Driver::resolve(handle, dlsym))
}
