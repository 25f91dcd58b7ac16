//! Instrumentation on first launch: find the image's assembly, instrument it with
//! `warptrace_codegen_gcn::instrument`, assemble it for the device (long branches where
//! the snippets pushed a kernel branch out of reach) and load it with the
//! real `hipModuleLoadData`, once per (device, image); then look up the instrumented
//! function of each kernel handle once per (device, handle).

use super::ffi::{Handle, Hip, HIP_SUCCESS};
use super::image::Failure;
use super::source;
use super::state::{self, HipFunc, HipOwner};
use crate::config::{self, Config, Fault};
use crate::jit::first_line;
use crate::report::{KernelState, Reason};
use std::collections::HashMap;
use std::ffi::{c_int, CString};
use std::sync::{Arc, Mutex, MutexGuard};
use warptrace_codegen_gcn::{assemble_instrumented, Instrumented, KernelStatus, Target};
use warptrace_ir::MapLayout;

/// An instrumented function ready to launch.
#[derive(Debug)]
pub struct Probed {
    /// The instrumented `hipFunction_t`.
    pub func: usize,
    /// Explicit arguments of the original; the map pointer goes after them.
    pub params: u32,
    /// The map argument's offset in the instrumented kernel's kernarg segment.
    pub map_offset: u64,
    /// Layout of its map buffer.
    pub layout: Arc<MapLayout>,
}

/// A kernel of an instrumented module: (explicit arguments, map offset, sites, copies of
/// the module's layout its buffer holds).
type KernelEntry = Result<(u32, u64, u32, u32), Failure>;

#[derive(Debug)]
struct Module {
    /// The instrumented `hipModule_t` (0 when no kernel needed one).
    handle: usize,
    layout: Arc<MapLayout>,
    kernels: HashMap<String, KernelEntry>,
}

/// Every image's instrumented module and every function's verdict, by device.
type Cache = crate::probed::Probed<c_int, HipOwner, Module, Probed>;

static CACHE: Mutex<Option<Cache>> = Mutex::new(None);

fn cache() -> MutexGuard<'static, Option<Cache>> {
    CACHE.lock().unwrap_or_else(|p| p.into_inner())
}

/// The instrumented function for `handle` on the current device, instrumenting and
/// loading its image on first use; the error is the kernel-level reason it runs as is
/// (already counted).
pub fn probed(
    hip: &Hip,
    cfg: &Config,
    handle: usize,
    func: &HipFunc,
) -> Result<Arc<Probed>, Reason> {
    let device = state::current_device(hip);
    cache().get_or_insert_with(Cache::default).get(
        device,
        handle,
        func.owner,
        &func.name,
        || build_module(hip, cfg, func.owner),
        |m| function(hip, m, func),
    )
}

fn build_module(hip: &Hip, cfg: &Config, owner: HipOwner) -> Result<Arc<Module>, Failure> {
    let image = state::image(hip, owner)?;
    let asm = source::find(&source::Sources::from_env(), &image)
        .map_err(|why| (Reason::NoAssembly, why))?;
    config::verbose(format_args!(
        "{owner}: assembly from {}",
        asm.path.display()
    ));
    let parse_error = |e: &dyn std::fmt::Display| (Reason::ParseError, first_line(&e.to_string()));
    let out =
        warptrace_codegen_gcn::instrument(&asm.text, &cfg.program).map_err(|e| parse_error(&e))?;
    let instrumented = out
        .kernels
        .iter()
        .any(|k| matches!(k.status, KernelStatus::Instrumented { .. }));
    // Assembling may instrument again (long branches) and change kernels' outcomes.
    let (out, handle) = if instrumented {
        load(hip, cfg, &asm.text, out, &asm.target)?
    } else {
        (out, 0)
    };
    let mut kernels = HashMap::new();
    {
        let mut t = crate::state::tables();
        for k in &out.kernels {
            t.kernel_id(k.id, &k.name);
            let entry = match crate::codegen::state(&k.status, Target::Gcn) {
                // The back end says where the map argument went.
                KernelState::Instrumented { sites } => match k.map_arg {
                    Some(a) => Ok((a.explicit, a.offset, sites, k.copies)),
                    None => Err((Reason::ParseError, "no map argument".into())),
                },
                KernelState::Skipped { reason, detail } => Err((reason, detail)),
            };
            kernels.insert(k.name.clone(), entry);
        }
    }
    Ok(Arc::new(Module {
        handle,
        layout: Arc::new(out.layout),
        kernels,
    }))
}

/// Assembles `out`, the instrumenting of `asm`, (with long branches where the snippets
/// pushed a kernel branch out of reach: `assemble_instrumented`) and loads it with the
/// real `hipModuleLoadData`; the module as assembled and its handle.
fn load(
    hip: &Hip,
    cfg: &Config,
    asm: &str,
    out: Instrumented,
    target: &warptrace_codegen_gcn::TargetId,
) -> Result<(Instrumented, usize), Failure> {
    if cfg.fault == Some(Fault::Jit) {
        return Err((Reason::JitError, "forced by WARPTRACE_FAULT=jit".into()));
    }
    let started = std::time::Instant::now();
    let (out, code) = assemble_instrumented(asm, &cfg.program, out, target)
        .map_err(|e| (Reason::JitError, first_line(&e.to_string())))?;
    let code = code.shared;
    let mut module: Handle = std::ptr::null_mut();
    let rc = match hip.module_load_data {
        // SAFETY: code is a complete code object; module an out-pointer.
        Some(f) => unsafe { f(&mut module, code.as_ptr().cast()) },
        None => super::ffi::HIP_ERROR_NOT_FOUND,
    };
    crate::state::tables().cache.jit_us += started.elapsed().as_micros() as u64;
    if rc != HIP_SUCCESS {
        return Err((
            Reason::JitError,
            format!("hipModuleLoadData of the instrumented code object: error {rc}"),
        ));
    }
    Ok((out, module as usize))
}

fn function(hip: &Hip, m: &Module, func: &HipFunc) -> Result<Arc<Probed>, Failure> {
    let Some(entry) = m.kernels.get(&*func.name) else {
        return Err((
            Reason::ParseError,
            "kernel not found in its image's assembly".into(),
        ));
    };
    let (params, map_offset, sites, copies) = entry.clone()?;
    let name = CString::new(&*func.name).map_err(|_| (Reason::ParseError, "bad name".into()))?;
    let mut f: Handle = std::ptr::null_mut();
    let rc = match hip.module_get_function {
        // SAFETY: m.handle is a loaded module, name NUL-terminated, f an out-pointer.
        Some(get) => unsafe { get(&mut f, m.handle as Handle, name.as_ptr()) },
        None => super::ffi::HIP_ERROR_NOT_FOUND,
    };
    if rc != HIP_SUCCESS {
        return Err((
            Reason::JitError,
            format!("instrumented function not found (error {rc})"),
        ));
    }
    crate::state::tables().kernel_status(&func.name, KernelState::Instrumented { sites });
    config::verbose(format_args!("{}: instrumented, {sites} sites", func.name));
    Ok(Arc::new(Probed {
        func: f as usize,
        params,
        map_offset,
        // The kernel's blocks spread their updates over `copies` of the module's layout
        // (decisions 0019, 0020); the read-back decodes and merges each.
        layout: match copies {
            1 => m.layout.clone(),
            n => Arc::new(m.layout.replicated(n)),
        },
    }))
}

/// Drops the instrumented modules of an unloaded image (unloading them).
pub fn forget(hip: &Hip, owner: HipOwner) {
    let gone = cache()
        .as_mut()
        .map(|c| c.forget(owner))
        .unwrap_or_default();
    for m in gone {
        if let (true, Some(unload)) = (m.handle != 0, hip.module_unload) {
            // SAFETY: the module was loaded by us and is no longer referenced.
            unsafe { unload(m.handle as Handle) };
        }
    }
}
