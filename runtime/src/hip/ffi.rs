//! The HIP runtime's C interface, by hand: the few types and functions the hook uses.
//!
//! Not `hip-sys`/`hip-runtime-sys` (docs/decisions/0009-hip-code-objects.md): their build
//! script links `libamdhip64` into the crate (the preload library would then need ROCm on
//! every machine, NVIDIA ones included) and panics without a ROCm install, and their
//! bindings are of one HIP version (5.4). The hook needs a dozen signatures, all stable
//! since HIP 5.0 (`hipGetProcAddress`: 6.2), and resolves every function at run time.

use crate::driver::DlsymFn;
use std::ffi::{c_char, c_int, c_uint, c_void, CStr};

/// A raw `hipError_t`.
pub type HipError = c_int;
/// `hipSuccess`.
pub const HIP_SUCCESS: HipError = 0;
/// `hipErrorNotInitialized`: returned by an export when `libamdhip64` cannot be found.
pub const HIP_ERROR_NOT_INITIALIZED: HipError = 3;
/// `hipErrorNotFound`: the loaded runtime lacks the function.
pub const HIP_ERROR_NOT_FOUND: HipError = 500;

/// `hipStream_t`, `hipModule_t`, `hipFunction_t`, `hipEvent_t`: opaque handles.
pub type Handle = *mut c_void;

/// `dim3`, passed by value.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Dim3 {
    /// x.
    pub x: u32,
    /// y.
    pub y: u32,
    /// z.
    pub z: u32,
}

/// `HIP_LAUNCH_PARAM_END` (`HIP_LAUNCH_PARAM_BUFFER_POINTER` and `…_SIZE` are CUDA's:
/// `extra.rs`).
pub const LAUNCH_PARAM_END: usize = 3;
/// `hipMemcpyHostToDevice`.
pub const MEMCPY_HOST_TO_DEVICE: c_int = 1;
/// `hipMemcpyDeviceToHost`.
pub const MEMCPY_DEVICE_TO_HOST: c_int = 2;
/// `hipHostMallocDefault`.
pub const HOST_MALLOC_DEFAULT: c_uint = 0;
/// `offsetof(hipDeviceProp_t, gcnArchName)` in HIP 5.x (checked against the HIP 5.2
/// headers; the struct is 792 bytes there).
pub const GCN_ARCH_NAME_OFFSET_V5: usize = 396;

/// `hipHostFn_t`.
pub type HostFn = Option<unsafe extern "C" fn(*mut c_void)>;

macro_rules! hip_fns {
    ($( $field:ident : $sym:literal => fn($($arg:ty),*) $(-> $ret:ty)?; )*) => {
        /// Typed pointers to the real HIP runtime functions (`None` where it lacks one).
        #[allow(non_snake_case, missing_debug_implementations)] // named like the C functions
        pub struct Hip {
            /// The real address of every hooked function, in hook table order (0 if absent).
            pub hooked: [usize; super::hooks::HIP_HOOKS.len()],
            $( #[doc = concat!("`", $sym, "`.")]
               pub $field: Option<unsafe extern "C" fn($($arg),*) $(-> $ret)?>, )*
        }

        impl Hip {
            /// Resolves every function with `find` (0: absent).
            pub fn resolve(find: &dyn Fn(&CStr) -> usize) -> Hip {
                let mut hooked = [0usize; super::hooks::HIP_HOOKS.len()];
                for (slot, hook) in hooked.iter_mut().zip(super::hooks::HIP_HOOKS.iter()) {
                    *slot = find(hook.name);
                }
                Hip {
                    hooked,
                    $( $field: {
                        let p = find(&$crate::hip::ffi::cstr($sym));
                        // SAFETY: the symbol of that name in libamdhip64 has this C
                        // signature (hip_runtime_api.h, HIP 5.2 and 6.x); 0 maps to None.
                        unsafe { std::mem::transmute::<usize, Option<unsafe extern "C" fn($($arg),*) $(-> $ret)?>>(p) }
                    }, )*
                }
            }
        }
    };
}

/// `name` as a C string (the macro's literals carry no NUL).
pub fn cstr(name: &str) -> std::ffi::CString {
    std::ffi::CString::new(name).unwrap_or_default()
}

hip_fns! {
    register_fat_binary: "__hipRegisterFatBinary" => fn(*const c_void) -> *mut *mut c_void;
    register_function: "__hipRegisterFunction" => fn(*mut *mut c_void, *const c_void, *mut c_char, *const c_char, c_uint, *mut c_void, *mut c_void, *mut c_void, *mut c_void, *mut c_int);
    unregister_fat_binary: "__hipUnregisterFatBinary" => fn(*mut *mut c_void);
    module_load_data: "hipModuleLoadData" => fn(*mut Handle, *const c_void) -> HipError;
    module_load_data_ex: "hipModuleLoadDataEx" => fn(*mut Handle, *const c_void, c_uint, *mut c_int, *mut *mut c_void) -> HipError;
    module_unload: "hipModuleUnload" => fn(Handle) -> HipError;
    module_get_function: "hipModuleGetFunction" => fn(*mut Handle, Handle, *const c_char) -> HipError;
    module_launch_kernel: "hipModuleLaunchKernel" => fn(Handle, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint, Handle, *mut *mut c_void, *mut *mut c_void) -> HipError;
    ext_module_launch_kernel: "hipExtModuleLaunchKernel" => fn(Handle, u32, u32, u32, u32, u32, u32, usize, Handle, *mut *mut c_void, *mut *mut c_void, Handle, Handle, u32) -> HipError;
    launch_kernel: "hipLaunchKernel" => fn(*const c_void, Dim3, Dim3, *mut *mut c_void, usize, Handle) -> HipError;
    ext_launch_kernel: "hipExtLaunchKernel" => fn(*const c_void, Dim3, Dim3, *mut *mut c_void, usize, Handle, Handle, Handle, c_int) -> HipError;
    get_proc_address: "hipGetProcAddress" => fn(*const c_char, *mut *mut c_void, c_int, u64, *mut c_int) -> HipError;
    malloc_async: "hipMallocAsync" => fn(*mut *mut c_void, usize, Handle) -> HipError;
    memset_async: "hipMemsetAsync" => fn(*mut c_void, c_int, usize, Handle) -> HipError;
    memcpy_async: "hipMemcpyAsync" => fn(*mut c_void, *const c_void, usize, c_int, Handle) -> HipError;
    free_async: "hipFreeAsync" => fn(*mut c_void, Handle) -> HipError;
    host_malloc: "hipHostMalloc" => fn(*mut *mut c_void, usize, c_uint) -> HipError;
    launch_host_func: "hipLaunchHostFunc" => fn(Handle, HostFn, *mut c_void) -> HipError;
    stream_is_capturing: "hipStreamIsCapturing" => fn(Handle, *mut c_int) -> HipError;
    get_device: "hipGetDevice" => fn(*mut c_int) -> HipError;
    get_device_properties: "hipGetDeviceProperties" => fn(*mut c_void, c_int) -> HipError;
    get_device_properties_r0600: "hipGetDevicePropertiesR0600" => fn(*mut c_void, c_int) -> HipError;
}

// SAFETY: the struct holds only code addresses of a library that is never unloaded.
unsafe impl Send for Hip {}
// SAFETY: as above; the HIP runtime's functions are thread-safe.
unsafe impl Sync for Hip {}

/// Finds a symbol's address (0: absent).
pub type Finder = Box<dyn Fn(&CStr) -> usize>;

/// The sonames the HIP runtime goes by, newest first.
const SONAMES: [&CStr; 4] = [
    c"libamdhip64.so.7",
    c"libamdhip64.so.6",
    c"libamdhip64.so.5",
    c"libamdhip64.so",
];

/// A lookup function over the loaded HIP runtime: its `dlopen` handle when one of its
/// sonames is already loaded (found even when it was opened `RTLD_LOCAL`, as Python
/// extensions do), else `RTLD_NEXT` from this library. `None` when neither finds
/// `hipModuleLaunchKernel` (no HIP runtime in the process yet).
pub fn lookup(dlsym: DlsymFn) -> Option<Finder> {
    for name in SONAMES {
        // SAFETY: dlopen with RTLD_NOLOAD only returns a handle of an already loaded
        // object; the reference it takes is never dropped, so the handle stays valid.
        let h = unsafe { libc::dlopen(name.as_ptr(), libc::RTLD_NOW | libc::RTLD_NOLOAD) };
        if !h.is_null() {
            let h = h as usize;
            // SAFETY: h is a live handle, the names NUL-terminated.
            return Some(Box::new(move |s: &CStr| unsafe {
                dlsym(h as *mut c_void, s.as_ptr()) as usize
            }));
        }
    }
    let next = move |s: &CStr| -> usize {
        // SAFETY: RTLD_NEXT relative to this library (glibc reads the caller's address:
        // this code is in the preload library) finds the next definition in load order.
        unsafe { dlsym(libc::RTLD_NEXT, s.as_ptr()) as usize }
    };
    (next(c"hipModuleLaunchKernel") != 0).then(|| Box::new(next) as Finder)
}
