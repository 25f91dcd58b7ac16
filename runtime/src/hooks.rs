//! Which driver functions are wrapped, and the mapping from a real driver pointer (as
//! `dlsym` or `cuGetProcAddress` returned it) to its wrapper.

use std::ffi::CStr;

/// A wrapped driver function; its value indexes [`HOOKS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)] // one variant per driver function of the same name
pub enum Hook {
    ModuleLoadData,
    ModuleLoadDataEx,
    ModuleLoad,
    ModuleUnload,
    ModuleGetFunction,
    ModuleLoadFatBinary,
    ModuleEnumerateFunctions,
    LibraryLoadData,
    LibraryLoadFromFile,
    LibraryGetKernel,
    LibraryUnload,
    LibraryGetModule,
    LibraryEnumerateKernels,
    KernelGetFunction,
    FuncSetAttribute,
    FuncSetCacheConfig,
    KernelSetAttribute,
    LaunchKernel,
    LaunchKernelPtsz,
    LaunchKernelEx,
    LaunchKernelExPtsz,
    LaunchCooperativeKernel,
    LaunchCooperativeKernelPtsz,
    GetProcAddress,
    GetProcAddressV2,
    CtxDestroy,
    DevicePrimaryCtxRelease,
    DevicePrimaryCtxReset,
    GraphAddKernelNode,
    GraphKernelNodeSetParams,
    GraphExecKernelNodeSetParams,
    GraphAddNode,
    GraphAddNodeV2,
    GraphNodeSetParams,
    GraphExecNodeSetParams,
    GraphInstantiateWithFlags,
    GraphInstantiateWithParams,
    GraphInstantiateWithParamsPtsz,
    GraphExecUpdate,
    GraphLaunch,
    GraphLaunchPtsz,
    GraphClone,
    GraphAddChildGraphNode,
    GraphDestroyNode,
    GraphDestroy,
    GraphExecDestroy,
}

/// One wrapped function: its exported driver name.
#[derive(Debug)]
pub struct HookEntry {
    /// The variant.
    pub hook: Hook,
    /// The exported symbol in `libcuda.so.1`.
    pub name: &'static CStr,
}

/// Every wrapped function, in [`Hook`] order.
pub const HOOKS: [HookEntry; 46] = {
    use Hook::*;
    const fn e(hook: Hook, name: &'static CStr) -> HookEntry {
        HookEntry { hook, name }
    }
    [
        e(ModuleLoadData, c"cuModuleLoadData"),
        e(ModuleLoadDataEx, c"cuModuleLoadDataEx"),
        e(ModuleLoad, c"cuModuleLoad"),
        e(ModuleUnload, c"cuModuleUnload"),
        e(ModuleGetFunction, c"cuModuleGetFunction"),
        e(ModuleLoadFatBinary, c"cuModuleLoadFatBinary"),
        e(ModuleEnumerateFunctions, c"cuModuleEnumerateFunctions"),
        e(LibraryLoadData, c"cuLibraryLoadData"),
        e(LibraryLoadFromFile, c"cuLibraryLoadFromFile"),
        e(LibraryGetKernel, c"cuLibraryGetKernel"),
        e(LibraryUnload, c"cuLibraryUnload"),
        e(LibraryGetModule, c"cuLibraryGetModule"),
        e(LibraryEnumerateKernels, c"cuLibraryEnumerateKernels"),
        e(KernelGetFunction, c"cuKernelGetFunction"),
        e(FuncSetAttribute, c"cuFuncSetAttribute"),
        e(FuncSetCacheConfig, c"cuFuncSetCacheConfig"),
        e(KernelSetAttribute, c"cuKernelSetAttribute"),
        e(LaunchKernel, c"cuLaunchKernel"),
        e(LaunchKernelPtsz, c"cuLaunchKernel_ptsz"),
        e(LaunchKernelEx, c"cuLaunchKernelEx"),
        e(LaunchKernelExPtsz, c"cuLaunchKernelEx_ptsz"),
        e(LaunchCooperativeKernel, c"cuLaunchCooperativeKernel"),
        e(
            LaunchCooperativeKernelPtsz,
            c"cuLaunchCooperativeKernel_ptsz",
        ),
        e(GetProcAddress, c"cuGetProcAddress"),
        e(GetProcAddressV2, c"cuGetProcAddress_v2"),
        e(CtxDestroy, c"cuCtxDestroy_v2"),
        e(DevicePrimaryCtxRelease, c"cuDevicePrimaryCtxRelease_v2"),
        e(DevicePrimaryCtxReset, c"cuDevicePrimaryCtxReset_v2"),
        e(GraphAddKernelNode, c"cuGraphAddKernelNode_v2"),
        e(GraphKernelNodeSetParams, c"cuGraphKernelNodeSetParams_v2"),
        e(
            GraphExecKernelNodeSetParams,
            c"cuGraphExecKernelNodeSetParams_v2",
        ),
        e(GraphAddNode, c"cuGraphAddNode"),
        e(GraphAddNodeV2, c"cuGraphAddNode_v2"),
        e(GraphNodeSetParams, c"cuGraphNodeSetParams"),
        e(GraphExecNodeSetParams, c"cuGraphExecNodeSetParams"),
        e(GraphInstantiateWithFlags, c"cuGraphInstantiateWithFlags"),
        e(GraphInstantiateWithParams, c"cuGraphInstantiateWithParams"),
        e(
            GraphInstantiateWithParamsPtsz,
            c"cuGraphInstantiateWithParams_ptsz",
        ),
        e(GraphExecUpdate, c"cuGraphExecUpdate_v2"),
        e(GraphLaunch, c"cuGraphLaunch"),
        e(GraphLaunchPtsz, c"cuGraphLaunch_ptsz"),
        e(GraphClone, c"cuGraphClone"),
        e(GraphAddChildGraphNode, c"cuGraphAddChildGraphNode"),
        e(GraphDestroyNode, c"cuGraphDestroyNode"),
        e(GraphDestroy, c"cuGraphDestroy"),
        e(GraphExecDestroy, c"cuGraphExecDestroy"),
    ]
};

/// `CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM`.
pub const PROC_ADDRESS_PER_THREAD: u64 = 2;

/// Real pointers and wrapper pointers side by side, indexed by [`Hook`].
#[derive(Debug, Clone)]
pub struct HookTable {
    /// Address of each real driver function (0 where the driver lacks it).
    pub real: [usize; HOOKS.len()],
    /// Address of each wrapper.
    pub wrappers: [usize; HOOKS.len()],
}

impl HookTable {
    fn by_pointer(&self, ptr: usize) -> Option<usize> {
        self.real.iter().position(|&r| r != 0 && r == ptr)
    }

    fn by_name(name: &[u8]) -> Option<usize> {
        HOOKS.iter().position(|h| h.name.to_bytes() == name)
    }

    /// What a `dlsym(handle, name)` that returned `ptr` should return instead: the wrapper
    /// when `ptr` is a hooked real function (by identity) or `name` a hooked name, else `ptr`.
    pub fn for_dlsym(&self, name: &[u8], ptr: usize) -> usize {
        if ptr == 0 {
            return 0;
        }
        match self.by_pointer(ptr).or_else(|| Self::by_name(name)) {
            Some(i) => self.wrappers[i],
            None => ptr,
        }
    }

    /// What `cuGetProcAddress(symbol, …, cuda_version, flags)` that returned `ptr` should
    /// return instead. `symbol` is a base name; the per-thread-stream variant is chosen by
    /// `flags` and `cuGetProcAddress` itself by `cuda_version` when identity fails.
    pub fn for_proc_address(
        &self,
        symbol: &[u8],
        ptr: usize,
        cuda_version: i32,
        flags: u64,
    ) -> usize {
        if ptr == 0 {
            return 0;
        }
        if let Some(i) = self.by_pointer(ptr) {
            return self.wrappers[i];
        }
        let per_thread = flags & PROC_ADDRESS_PER_THREAD != 0;
        let hook = match symbol {
            b"cuLaunchKernel" if per_thread => Some(Hook::LaunchKernelPtsz as usize),
            b"cuLaunchKernelEx" if per_thread => Some(Hook::LaunchKernelExPtsz as usize),
            b"cuLaunchCooperativeKernel" if per_thread => {
                Some(Hook::LaunchCooperativeKernelPtsz as usize)
            }
            b"cuGetProcAddress" if cuda_version >= 12000 => Some(Hook::GetProcAddressV2 as usize),
            b"cuGraphLaunch" if per_thread => Some(Hook::GraphLaunchPtsz as usize),
            b"cuGraphInstantiateWithParams" if per_thread => {
                Some(Hook::GraphInstantiateWithParamsPtsz as usize)
            }
            // The CUDA 12 ABIs; older versions' entry points are not wrapped.
            b"cuGraphAddKernelNode" if cuda_version >= 12000 => {
                Some(Hook::GraphAddKernelNode as usize)
            }
            b"cuGraphKernelNodeSetParams" if cuda_version >= 12000 => {
                Some(Hook::GraphKernelNodeSetParams as usize)
            }
            b"cuGraphExecKernelNodeSetParams" if cuda_version >= 12000 => {
                Some(Hook::GraphExecKernelNodeSetParams as usize)
            }
            b"cuGraphExecUpdate" if cuda_version >= 12000 => Some(Hook::GraphExecUpdate as usize),
            // `_v2` (with edge data) from CUDA 12.3.
            b"cuGraphAddNode" if cuda_version >= 12030 => Some(Hook::GraphAddNodeV2 as usize),
            _ => Self::by_name(symbol),
        };
        match hook {
            Some(i) => self.wrappers[i],
            None => ptr,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> HookTable {
        let mut real = [0; HOOKS.len()];
        let mut wrappers = [0; HOOKS.len()];
        for i in 0..HOOKS.len() {
            real[i] = 0x1000 + i;
            wrappers[i] = 0x9000 + i;
        }
        real[Hook::KernelSetAttribute as usize] = 0; // absent from this driver
        HookTable { real, wrappers }
    }

    #[test]
    fn table_order_matches_the_enum() {
        for (i, h) in HOOKS.iter().enumerate() {
            assert_eq!(h.hook as usize, i, "{:?}", h.name);
        }
    }

    #[test]
    fn dlsym_maps_by_identity_then_by_name() {
        let t = table();
        let launch = Hook::LaunchKernel as usize;
        assert_eq!(t.for_dlsym(b"anything", 0x1000 + launch), 0x9000 + launch);
        // Unknown pointer, hooked name (e.g. our own export found first): wrapper.
        assert_eq!(
            t.for_dlsym(b"cuLaunchKernel_ptsz", 0x5555),
            0x9000 + Hook::LaunchKernelPtsz as usize
        );
        // Unhooked lookups pass through unchanged, null stays null.
        assert_eq!(t.for_dlsym(b"getpid", 0x7777), 0x7777);
        assert_eq!(t.for_dlsym(b"cuMemAlloc_v2", 0x7777), 0x7777);
        assert_eq!(t.for_dlsym(b"cuLaunchKernel", 0), 0);
        // A zero real entry never matches.
        assert_eq!(t.for_dlsym(b"x", 0), 0);
        // The loading entry points: fatbinaries, a library's module, enumerations.
        for hook in [
            Hook::ModuleLoadFatBinary,
            Hook::ModuleEnumerateFunctions,
            Hook::LibraryGetModule,
            Hook::LibraryEnumerateKernels,
        ] {
            let name = HOOKS[hook as usize].name.to_bytes();
            assert_eq!(
                t.for_dlsym(name, 0x5555),
                0x9000 + hook as usize,
                "{name:?}"
            );
            assert_eq!(
                t.for_dlsym(b"y", 0x1000 + hook as usize),
                0x9000 + hook as usize
            );
        }
        // Not hooked: a library's host-side unified function pointer.
        assert_eq!(t.for_dlsym(b"cuLibraryGetUnifiedFunction", 0x7777), 0x7777);
    }

    #[test]
    fn proc_address_maps_variants() {
        let t = table();
        let w = |h: Hook| 0x9000 + h as usize;
        let r = |h: Hook| 0x1000 + h as usize;
        // Identity wins over flags.
        assert_eq!(
            t.for_proc_address(b"cuLaunchKernel", r(Hook::LaunchKernelPtsz), 13000, 0),
            w(Hook::LaunchKernelPtsz)
        );
        // Unknown pointers: by name and flags.
        assert_eq!(
            t.for_proc_address(b"cuLaunchKernel", 0x5, 13000, PROC_ADDRESS_PER_THREAD),
            w(Hook::LaunchKernelPtsz)
        );
        assert_eq!(
            t.for_proc_address(b"cuLaunchKernel", 0x5, 13000, 1),
            w(Hook::LaunchKernel)
        );
        assert_eq!(
            t.for_proc_address(b"cuLaunchKernelEx", 0x5, 13000, PROC_ADDRESS_PER_THREAD),
            w(Hook::LaunchKernelExPtsz)
        );
        assert_eq!(
            t.for_proc_address(b"cuGetProcAddress", 0x5, 12000, 0),
            w(Hook::GetProcAddressV2)
        );
        assert_eq!(
            t.for_proc_address(b"cuGetProcAddress", 0x5, 11080, 0),
            w(Hook::GetProcAddress)
        );
        assert_eq!(
            t.for_proc_address(b"cuModuleLoadData", 0x5, 13000, 0),
            w(Hook::ModuleLoadData)
        );
        for (name, hook) in [
            (&b"cuModuleLoadFatBinary"[..], Hook::ModuleLoadFatBinary),
            (
                b"cuModuleEnumerateFunctions",
                Hook::ModuleEnumerateFunctions,
            ),
            (b"cuLibraryGetModule", Hook::LibraryGetModule),
            (b"cuLibraryEnumerateKernels", Hook::LibraryEnumerateKernels),
        ] {
            // By name, whatever the flags; by identity too.
            assert_eq!(
                t.for_proc_address(name, 0x5, 13000, PROC_ADDRESS_PER_THREAD),
                w(hook)
            );
            assert_eq!(t.for_proc_address(b"", r(hook), 12000, 0), w(hook));
        }
        // The graph API: per-thread launches, and the CUDA 12 ABIs by base name (an
        // older version's entry point, another ABI, passes through).
        assert_eq!(
            t.for_proc_address(b"cuGraphLaunch", 0x5, 13000, PROC_ADDRESS_PER_THREAD),
            w(Hook::GraphLaunchPtsz)
        );
        assert_eq!(
            t.for_proc_address(b"cuGraphLaunch", 0x5, 13000, 0),
            w(Hook::GraphLaunch)
        );
        assert_eq!(
            t.for_proc_address(b"cuGraphAddKernelNode", 0x5, 12000, 0),
            w(Hook::GraphAddKernelNode)
        );
        assert_eq!(
            t.for_proc_address(b"cuGraphAddKernelNode", 0x5, 11080, 0),
            0x5
        );
        assert_eq!(t.for_proc_address(b"cuGraphExecUpdate", 0x5, 11040, 0), 0x5);
        assert_eq!(
            t.for_proc_address(b"cuGraphInstantiateWithParams", 0x5, 12000, 2),
            w(Hook::GraphInstantiateWithParamsPtsz)
        );
        assert_eq!(
            t.for_proc_address(b"cuGraphAddNode", 0x5, 13000, 0),
            w(Hook::GraphAddNodeV2)
        );
        assert_eq!(
            t.for_proc_address(b"cuGraphAddNode", 0x5, 12020, 0),
            w(Hook::GraphAddNode)
        );
        assert_eq!(t.for_proc_address(b"cuMemAlloc", 0x5, 13000, 0), 0x5);
        assert_eq!(t.for_proc_address(b"cuLaunchKernel", 0, 13000, 0), 0);
    }
}
