//! Which HIP runtime functions are wrapped, and the mapping from a real pointer (as
//! `dlsym` on the runtime's handle or `hipGetProcAddress` returned it) to its wrapper.

use std::ffi::CStr;

/// A wrapped HIP function; its value indexes [`HIP_HOOKS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)] // one variant per function of the same name
pub enum HipHook {
    RegisterFatBinary,
    RegisterFunction,
    UnregisterFatBinary,
    ModuleLoadData,
    ModuleLoadDataEx,
    ModuleUnload,
    ModuleGetFunction,
    ModuleLaunchKernel,
    LaunchKernel,
    ExtLaunchKernel,
    GetProcAddress,
}

/// One wrapped function: its exported name in `libamdhip64`.
#[derive(Debug)]
pub struct HipHookEntry {
    /// The variant.
    pub hook: HipHook,
    /// The exported symbol.
    pub name: &'static CStr,
}

/// Every wrapped function, in [`HipHook`] order.
pub const HIP_HOOKS: [HipHookEntry; 11] = {
    use HipHook::*;
    const fn e(hook: HipHook, name: &'static CStr) -> HipHookEntry {
        HipHookEntry { hook, name }
    }
    [
        e(RegisterFatBinary, c"__hipRegisterFatBinary"),
        e(RegisterFunction, c"__hipRegisterFunction"),
        e(UnregisterFatBinary, c"__hipUnregisterFatBinary"),
        e(ModuleLoadData, c"hipModuleLoadData"),
        e(ModuleLoadDataEx, c"hipModuleLoadDataEx"),
        e(ModuleUnload, c"hipModuleUnload"),
        e(ModuleGetFunction, c"hipModuleGetFunction"),
        e(ModuleLaunchKernel, c"hipModuleLaunchKernel"),
        e(LaunchKernel, c"hipLaunchKernel"),
        e(ExtLaunchKernel, c"hipExtLaunchKernel"),
        e(GetProcAddress, c"hipGetProcAddress"),
    ]
};

/// Real pointers and wrapper pointers side by side, indexed by [`HipHook`].
#[derive(Debug, Clone)]
pub struct HipHookTable {
    /// Address of each real function (0 where the runtime lacks it).
    pub real: [usize; HIP_HOOKS.len()],
    /// Address of each wrapper.
    pub wrappers: [usize; HIP_HOOKS.len()],
}

impl HipHookTable {
    /// What a lookup of `name` that returned `ptr` (`dlsym` on the HIP runtime's handle,
    /// or `hipGetProcAddress`) should return instead: the wrapper when `ptr` is a hooked
    /// real function (by identity) or `name` a hooked name, else `ptr`. Null stays null.
    pub fn map(&self, name: &[u8], ptr: usize) -> usize {
        if ptr == 0 {
            return 0;
        }
        let by_pointer = self.real.iter().position(|&r| r != 0 && r == ptr);
        let by_name = || HIP_HOOKS.iter().position(|h| h.name.to_bytes() == name);
        match by_pointer.or_else(by_name) {
            Some(i) => self.wrappers[i],
            None => ptr,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_order_matches_the_enum() {
        for (i, h) in HIP_HOOKS.iter().enumerate() {
            assert_eq!(h.hook as usize, i, "{:?}", h.name);
        }
    }

    #[test]
    fn lookups_map_by_identity_then_by_name() {
        let mut real = [0; HIP_HOOKS.len()];
        let mut wrappers = [0; HIP_HOOKS.len()];
        for i in 0..HIP_HOOKS.len() {
            real[i] = 0x1000 + i;
            wrappers[i] = 0x9000 + i;
        }
        real[HipHook::GetProcAddress as usize] = 0; // HIP < 6.2
        let t = HipHookTable { real, wrappers };
        let launch = HipHook::ModuleLaunchKernel as usize;
        // hipGetProcAddress answers with the real pointer under any name.
        assert_eq!(t.map(b"whatever", 0x1000 + launch), 0x9000 + launch);
        // dlsym found our own export first: by name.
        assert_eq!(
            t.map(b"hipExtLaunchKernel", 0x5555),
            0x9000 + HipHook::ExtLaunchKernel as usize
        );
        assert_eq!(
            t.map(b"hipGetProcAddress", 0x5555),
            0x9000 + HipHook::GetProcAddress as usize
        );
        // Not hooked, or null: unchanged.
        assert_eq!(t.map(b"hipMalloc", 0x7777), 0x7777);
        assert_eq!(t.map(b"hipModuleLaunchKernel", 0), 0);
        assert_eq!(t.map(b"hipDrvLaunchKernelEx", 0x7777), 0x7777);
    }
}
