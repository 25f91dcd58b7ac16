//! Instrumentation on first launch: splice the module's PTX once per (context, image),
//! JIT it with the real `cuModuleLoadDataEx`, and cache the instrumented function of each
//! (context, handle) with its recorded attributes mirrored.

use crate::codegen::{self, KernelStatus};
use crate::config::{self, Config, Fault};
use crate::driver::{Driver, CUDA_SUCCESS};
use crate::report::{KernelState, Reason};
use crate::state::{self, Attrs, FuncInfo, Owner};
use cudarc::driver::sys::{CUcontext, CUfunction, CUmodule};
use std::collections::HashMap;
use std::ffi::{c_int, c_void, CString};
use std::sync::{Arc, Mutex, MutexGuard};
use warptrace_ir::MapLayout;

/// An instrumented function ready to launch.
#[derive(Debug)]
pub struct Probed {
    /// The instrumented `CUfunction`.
    pub func: usize,
    /// Parameter count of the original; the map pointer goes after them.
    pub params: u32,
    /// Layout of its map buffer.
    pub layout: Arc<MapLayout>,
}

type Failure = (Reason, String);

#[derive(Debug)]
struct Module {
    /// The instrumented `CUmodule` (0 when no kernel of the image needed one).
    handle: usize,
    layout: Arc<MapLayout>,
    kernels: HashMap<String, (u32, Result<u32, Failure>)>,
}

/// A handle's instrumented copy (or why it has none), with the image it belongs to.
type FuncEntry = (Owner, Result<Arc<Probed>, Reason>);

#[derive(Debug, Default)]
struct Cache {
    modules: HashMap<(usize, Owner), Result<Arc<Module>, Failure>>,
    funcs: HashMap<(usize, usize), FuncEntry>,
}

static CACHE: Mutex<Option<Cache>> = Mutex::new(None);

fn cache() -> MutexGuard<'static, Option<Cache>> {
    CACHE.lock().unwrap_or_else(|p| p.into_inner())
}

/// The current context (0 if none or on error).
pub fn current_context(d: &Driver) -> usize {
    let mut ctx: CUcontext = std::ptr::null_mut();
    if let Some(f) = d.cuCtxGetCurrent {
        // SAFETY: ctx is a valid out-pointer.
        unsafe { f(&mut ctx) };
    }
    ctx as usize
}

/// The instrumented function for `handle` in the current context, instrumenting and
/// loading its image on first use; the error is the kernel-level reason it runs as is.
pub fn probed(
    d: &Driver,
    cfg: &Config,
    handle: usize,
    info: &FuncInfo,
) -> Result<Arc<Probed>, Reason> {
    let ctx = current_context(d);
    let mut guard = cache();
    let cache = guard.get_or_insert_with(Cache::default);
    if let Some((_, r)) = cache.funcs.get(&(ctx, handle)) {
        return r.clone();
    }
    let module = cache
        .modules
        .entry((ctx, info.owner))
        .or_insert_with(|| build_module(d, cfg, info.owner))
        .clone();
    let result = module
        .and_then(|m| function(d, &m, handle, info))
        .map_err(|(reason, detail)| {
            state::tables().kernel_status(&info.name, KernelState::Skipped { reason, detail });
            reason
        });
    cache
        .funcs
        .insert((ctx, handle), (info.owner, result.clone()));
    result
}

fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or("").trim().to_string()
}

fn build_module(d: &Driver, cfg: &Config, owner: Owner) -> Result<Arc<Module>, Failure> {
    let ptx = match state::tables().images.get(&owner) {
        Some(Ok(ptx)) => ptx.clone(),
        Some(Err(e)) => return Err(e.clone()),
        None => return Err((Reason::NoPtx, "image not seen at load time".into())),
    };
    let out = codegen::instrument(&ptx, &cfg.program)
        .map_err(|e| (Reason::ParseError, first_line(&e.to_string())))?;
    let mut kernels = HashMap::new();
    let mut any = false;
    {
        let mut t = state::tables();
        for k in &out.kernels {
            t.kernel_id(k.id, &k.name);
            let status = match &k.status {
                KernelStatus::Instrumented { sites } => {
                    any = true;
                    Ok(*sites)
                }
                KernelStatus::NoSites => Err((Reason::NoSites, String::new())),
                KernelStatus::Rejected(e) => {
                    Err((Reason::VerifierRejection, first_line(&e.to_string())))
                }
                // The code generator cannot instrument it yet: the original runs.
                KernelStatus::Unsupported { what } => {
                    Err((Reason::Unsupported, format!("by the PTX back end: {what}")))
                }
            };
            kernels.insert(k.name.clone(), (k.params, status));
        }
    }
    let handle = if any { jit(d, cfg, &out.ptx)? } else { 0 };
    Ok(Arc::new(Module {
        handle,
        layout: Arc::new(out.layout),
        kernels,
    }))
}

/// `CU_JIT_INFO_LOG_BUFFER`, `…_SIZE_BYTES`, `CU_JIT_ERROR_LOG_BUFFER`, `…_SIZE_BYTES`.
const JIT_LOG_OPTIONS: [c_int; 4] = [3, 4, 5, 6];
const JIT_LOG_BYTES: usize = 4096;

fn jit(d: &Driver, cfg: &Config, ptx: &str) -> Result<usize, Failure> {
    let fail = |log: &str| {
        let head = first_line(log);
        config::warn(format_args!(
            "JIT of instrumented PTX failed: {head}; running the original"
        ));
        Err((Reason::JitError, head))
    };
    if cfg.fault == Some(Fault::Jit) {
        return fail("injected fault (WARPTRACE_FAULT=jit)");
    }
    let Some(load) = d.cuModuleLoadDataEx else {
        return fail("cuModuleLoadDataEx missing");
    };
    let Ok(text) = CString::new(ptx) else {
        return fail("instrumented PTX contains a NUL byte");
    };
    let mut info = vec![0u8; JIT_LOG_BYTES];
    let mut error = vec![0u8; JIT_LOG_BYTES];
    let mut options = JIT_LOG_OPTIONS;
    let mut values: [*mut c_void; 4] = [
        info.as_mut_ptr().cast(),
        JIT_LOG_BYTES as *mut c_void,
        error.as_mut_ptr().cast(),
        JIT_LOG_BYTES as *mut c_void,
    ];
    let mut module: CUmodule = std::ptr::null_mut();
    // SAFETY: text is NUL-terminated PTX; the option arrays have 4 entries and the log
    // buffers outlive the call.
    let rc = unsafe {
        load(
            &mut module,
            text.as_ptr().cast(),
            4,
            options.as_mut_ptr(),
            values.as_mut_ptr(),
        )
    };
    if rc != CUDA_SUCCESS {
        let n = error.iter().position(|&b| b == 0).unwrap_or(error.len());
        let log = String::from_utf8_lossy(&error[..n]);
        return fail(&format!(
            "CUresult {rc}: {}",
            if log.is_empty() { "(no log)" } else { &log }
        ));
    }
    config::verbose(format_args!(
        "instrumented module loaded ({} bytes of PTX)",
        ptx.len()
    ));
    Ok(module as usize)
}

fn function(
    d: &Driver,
    m: &Module,
    handle: usize,
    info: &FuncInfo,
) -> Result<Arc<Probed>, Failure> {
    let Some((params, status)) = m.kernels.get(&*info.name) else {
        return Err((
            Reason::ParseError,
            "kernel not found in its image's PTX".into(),
        ));
    };
    let sites = status.clone()?;
    let name = CString::new(&*info.name).map_err(|_| (Reason::ParseError, "bad name".into()))?;
    let mut func: CUfunction = std::ptr::null_mut();
    let rc = match d.cuModuleGetFunction {
        // SAFETY: m.handle is a loaded module, name NUL-terminated, func an out-pointer.
        Some(get) => unsafe { get(&mut func, m.handle as CUmodule, name.as_ptr()) },
        None => 500,
    };
    if rc != CUDA_SUCCESS {
        return Err((
            Reason::JitError,
            format!("instrumented function not found (CUresult {rc})"),
        ));
    }
    let attrs = state::tables().attrs_for(handle);
    mirror(d, func as usize, &attrs);
    state::tables().kernel_status(&info.name, KernelState::Instrumented { sites });
    config::verbose(format_args!("{}: instrumented, {sites} sites", info.name));
    Ok(Arc::new(Probed {
        func: func as usize,
        params: *params,
        layout: m.layout.clone(),
    }))
}

/// Applies recorded attributes to an instrumented function.
pub fn mirror(d: &Driver, func: usize, attrs: &Attrs) {
    for &(attr, value) in &attrs.values {
        if let Some(set) = d.cuFuncSetAttribute {
            // SAFETY: func is a live CUfunction; attr/value were accepted for the original.
            let rc = unsafe { set(func as CUfunction, attr, value) };
            if rc != CUDA_SUCCESS {
                config::verbose(format_args!(
                    "mirroring attribute {attr}={value} failed: {rc}"
                ));
            }
        }
    }
    if let (Some(cache), Some(set)) = (attrs.cache, d.cuFuncSetCacheConfig) {
        // SAFETY: as above.
        unsafe { set(func as CUfunction, cache) };
    }
}

/// Applies a new attribute of `handle` to its instrumented copies, if any exist.
pub fn attribute_changed(d: &Driver, handle: usize) {
    let copies: Vec<usize> = cache()
        .as_ref()
        .map(|c| {
            c.funcs
                .iter()
                .filter(|((_, h), _)| *h == handle)
                .filter_map(|(_, (_, r))| r.as_ref().ok().map(|p| p.func))
                .collect()
        })
        .unwrap_or_default();
    if copies.is_empty() {
        return;
    }
    let attrs = state::tables().attrs_for(handle);
    for f in copies {
        mirror(d, f, &attrs);
    }
}

/// Drops the instrumented modules of an unloaded image (unloading them).
pub fn forget(d: &Driver, owner: Owner) {
    let mut guard = cache();
    let Some(c) = guard.as_mut() else { return };
    c.funcs.retain(|_, (o, _)| *o != owner);
    let gone: Vec<_> = c
        .modules
        .keys()
        .filter(|(_, o)| *o == owner)
        .copied()
        .collect();
    for key in gone {
        if let Some(Ok(m)) = c.modules.remove(&key) {
            if let (true, Some(unload)) = (m.handle != 0, d.cuModuleUnload) {
                // SAFETY: the module was loaded by us and is no longer referenced.
                unsafe { unload(m.handle as CUmodule) };
            }
        }
    }
}

/// Whether a device probe of `program` reads the `launch` special.
pub(crate) fn reads_launch(program: &warptrace_ir::Program) -> bool {
    program.probes.iter().flat_map(|p| &p.insns).any(|i| {
        matches!(
            i,
            warptrace_ir::Insn::ReadSpecial {
                special: warptrace_ir::Special::Launch,
                ..
            }
        )
    })
}
