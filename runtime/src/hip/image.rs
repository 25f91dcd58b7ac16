//! What the HIP hook keeps of each image: the fatbinary a `__hipRegisterFatBinary` wrapper
//! points at (read lazily, at the first launch of one of its kernels, as the HIP runtime
//! itself does), or the code object a `hipModuleLoadData(Ex)` image holds for the device
//! (copied at load time: the caller may free the image afterwards); and the device's
//! target id.

use super::ffi::{Hip, GCN_ARCH_NAME_OFFSET_V5, HIP_SUCCESS};
use crate::report::Reason;
use std::collections::HashMap;
use std::ffi::{c_int, c_void};
use std::sync::{Arc, Mutex};
use warptrace_codegen_gcn::{
    bundle_extent, code_object_info, parse_bundle, parse_fatbin_wrapper, select, BundleExtent,
    CodeObjectInfo, TargetId, HIP_FATBIN_WRAPPER_SIZE,
};

/// Overrides the device's target id (`gfx90a:sramecc+:xnack-`) instead of asking the
/// HIP runtime.
pub const ENV_GCN_ARCH: &str = "WARPTRACE_GCN_ARCH";

/// Why an image has no usable code object: the reason and a detail.
pub type Failure = (Reason, String);

/// The code object of an image for the device.
#[derive(Debug)]
pub struct CodeImage {
    /// The ELF code object's bytes.
    pub bytes: Vec<u8>,
    /// Its target, version and kernels.
    pub info: CodeObjectInfo,
}

/// Reads the bundle at `ptr`, whose length only its own header tells.
///
/// # Safety
/// `ptr` points at an offload bundle (plain or `CCOB`) that stays mapped, as the HIP
/// runtime requires of what it is given.
unsafe fn bundle_at(ptr: *const u8) -> Result<&'static [u8], String> {
    let mut len = 32usize;
    for _ in 0..1024 {
        // SAFETY: every prefix length asked for lies within the bundle's header, which
        // the bundle's own fields bound (see bundle_extent).
        let prefix = unsafe { std::slice::from_raw_parts(ptr, len) };
        match bundle_extent(prefix).map_err(|e| e.to_string())? {
            BundleExtent::NeedPrefix(n) if n > len => len = n,
            BundleExtent::NeedPrefix(_) => return Err("inconsistent bundle header".into()),
            // SAFETY: the header says the bundle spans `n` bytes.
            BundleExtent::Bytes(n) => return Ok(unsafe { std::slice::from_raw_parts(ptr, n) }),
        }
    }
    Err("bundle header too long".into())
}

/// The bundle of a `__hipRegisterFatBinary` wrapper.
///
/// # Safety
/// `wrapper` is the argument the HIP runtime accepted.
pub unsafe fn fatbin_bundle(wrapper: *const c_void) -> Result<&'static [u8], String> {
    // SAFETY: the wrapper is 24 bytes (clang's __hip_fatbin_wrapper).
    let w = unsafe { std::slice::from_raw_parts(wrapper.cast::<u8>(), HIP_FATBIN_WRAPPER_SIZE) };
    let w = parse_fatbin_wrapper(w).map_err(|e| e.to_string())?;
    if w.bundle == 0 {
        return Err("null bundle pointer in the HIP fatbinary wrapper".into());
    }
    // SAFETY: the wrapper's pointer is the bundle clang placed in .hip_fatbin.
    unsafe { bundle_at(w.bundle as usize as *const u8) }
}

/// The bytes of a `hipModuleLoadData` image: an ELF code object (its extent from the ELF
/// header's section and program header tables) or an offload bundle.
///
/// # Safety
/// `image` is the pointer the HIP runtime accepted.
pub unsafe fn module_image(image: *const c_void) -> Result<&'static [u8], String> {
    let p = image.cast::<u8>();
    // SAFETY: every image the runtime accepts starts with at least 4 magic bytes.
    let magic = unsafe { std::slice::from_raw_parts(p, 4) };
    if magic != b"\x7fELF" {
        // SAFETY: not ELF: the runtime accepted it as a bundle.
        return unsafe { bundle_at(p) };
    }
    // SAFETY: an ELF64 header is 64 bytes.
    let h = unsafe { std::slice::from_raw_parts(p, 64) };
    let u64_at = |at: usize| u64::from_le_bytes(h[at..at + 8].try_into().unwrap_or([0; 8]));
    let u16_at = |at: usize| u64::from(u16::from_le_bytes([h[at], h[at + 1]]));
    let sections = u64_at(0x28) + u16_at(0x3a) * u16_at(0x3c);
    let segments = u64_at(0x20) + u16_at(0x36) * u16_at(0x38);
    let len = usize::try_from(sections.max(segments).max(64)).map_err(|e| e.to_string())?;
    // SAFETY: the header tables end the file in LLVM's code objects.
    Ok(unsafe { std::slice::from_raw_parts(p, len) })
}

/// The code object of `bytes` (ELF or bundle) that runs on `device`.
pub fn code_object_for(bytes: &[u8], device: &TargetId) -> Result<CodeImage, Failure> {
    let no_code = |why: String| (Reason::NoAssembly, why);
    let elf = if bytes.starts_with(b"\x7fELF") {
        bytes.to_vec()
    } else {
        let bundle = parse_bundle(bytes).map_err(|e| no_code(e.to_string()))?;
        let ids: Vec<&str> = bundle.code_objects().map(|e| e.id.as_str()).collect();
        select(&bundle, device)
            .ok_or_else(|| no_code(format!("no code object for {device} among {ids:?}")))?
            .data
            .clone()
    };
    let info = code_object_info(&elf).map_err(|e| no_code(e.to_string()))?;
    if !info.target.runs_on(device) {
        return Err(no_code(format!(
            "code object for {}, device is {device}",
            info.target
        )));
    }
    Ok(CodeImage { bytes: elf, info })
}

static TARGETS: Mutex<Option<HashMap<c_int, Option<TargetId>>>> = Mutex::new(None);

/// The current device's target id: `$WARPTRACE_GCN_ARCH`, else `gcnArchName` from
/// `hipGetDevicePropertiesR0600` (HIP 6) or `hipGetDeviceProperties` (HIP 5), cached per
/// device. `None` when the runtime cannot tell.
pub fn device_target(hip: &Hip) -> Option<TargetId> {
    if let Ok(v) = std::env::var(ENV_GCN_ARCH) {
        return TargetId::parse(&v).ok();
    }
    let mut device: c_int = 0;
    if let Some(get) = hip.get_device {
        // SAFETY: out-pointer; on failure the device stays 0.
        if unsafe { get(&mut device) } != HIP_SUCCESS {
            device = 0;
        }
    }
    let mut guard = TARGETS.lock().unwrap_or_else(|p| p.into_inner());
    guard
        .get_or_insert_with(HashMap::new)
        .entry(device)
        .or_insert_with(|| query_target(hip, device))
        .clone()
}

fn query_target(hip: &Hip, device: c_int) -> Option<TargetId> {
    // Larger than any hipDeviceProp_t (792 bytes in HIP 5.2, about 1.5 KiB in HIP 6).
    let mut props = vec![0u64; 1024];
    let (get, v5) = match (hip.get_device_properties_r0600, hip.get_device_properties) {
        (Some(f), _) => (f, false),
        (None, Some(f)) => (f, true),
        (None, None) => return None,
    };
    // SAFETY: props is 8 KiB, more than the struct the runtime writes.
    if unsafe { get(props.as_mut_ptr().cast(), device) } != HIP_SUCCESS {
        return None;
    }
    // SAFETY: reading the initialised u64 buffer as bytes.
    let bytes = unsafe { std::slice::from_raw_parts(props.as_ptr().cast::<u8>(), 8192) };
    let at = |offset: usize| -> Option<TargetId> {
        let s = bytes.get(offset..offset + 256)?;
        let end = s.iter().position(|&b| b == 0)?;
        TargetId::parse(std::str::from_utf8(&s[..end]).ok()?).ok()
    };
    if v5 {
        if let Some(t) = at(GCN_ARCH_NAME_OFFSET_V5) {
            return Some(t);
        }
    }
    // Another layout: the first NUL-terminated target id after the 256-byte `name`.
    (256..bytes.len() - 256)
        .filter(|&i| bytes[i - 1] == 0 && bytes[i..].starts_with(b"gfx"))
        .find_map(at)
}

/// An image's code object, shared by the instrumentation of its kernels.
pub type SharedImage = Result<Arc<CodeImage>, Failure>;
