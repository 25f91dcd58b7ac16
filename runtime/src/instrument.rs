//! Instrumentation on first launch: load the module's instrumented cubin from the on-disk
//! cache (`module_cache`), or splice its PTX and JIT it (`jit`), once per (context,
//! image); and cache the instrumented function of each (context, handle) with its
//! recorded attributes mirrored.

use crate::cache::CachedKernel;
use crate::codegen;
use crate::config::{self, Config};
use crate::driver::{Driver, CUDA_SUCCESS};
use crate::jit::{self, first_line, Jitted};
use crate::module_cache;
use crate::report::{KernelState, Reason};
use crate::state::{self, Attrs, FuncInfo, Owner};
use cudarc::driver::sys::{CUcontext, CUfunction, CUmodule};
use std::collections::HashMap;
use std::ffi::CString;
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
    /// Its launches may share one resident map buffer (`codegen::accumulates`).
    pub resident: bool,
    /// Its and the original's registers, local memory and block limit, when the driver
    /// gives them.
    pub resources: Option<crate::resources::Pair>,
}

use crate::probed::Failure;

/// An instrumented kernel's site count, whether its launches may share a resident map
/// buffer, and how many copies of its tables it updates (`codegen::replicas`).
type Accepted = (u32, bool, u32);

#[derive(Debug)]
struct Module {
    /// The instrumented `CUmodule` (0 when no kernel of the image needed one).
    handle: usize,
    layout: Arc<MapLayout>,
    /// By name: parameters, and the site count and whether launches may share a
    /// resident buffer, or why it is not instrumented.
    kernels: HashMap<String, (u32, Result<Accepted, Failure>)>,
}

/// Every image's instrumented module and every function's verdict, by context.
type Cache = crate::probed::Probed<usize, Owner, Module, Probed>;

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
    cache().get_or_insert_with(Cache::default).get(
        ctx,
        handle,
        info.owner,
        &info.name,
        || build_module(d, cfg, info.owner),
        |m| function(d, m, handle, info),
    )
}

fn build_module(d: &Driver, cfg: &Config, owner: Owner) -> Result<Arc<Module>, Failure> {
    let ptx = match state::tables().images.get(&owner) {
        Some(Ok(ptx)) => ptx.clone(),
        Some(Err(e)) => return Err(e.clone()),
        None => return Err((Reason::NoPtx, "image not seen at load time".into())),
    };
    let key = module_cache::key(d, cfg, &ptx);
    if let Some(hit) = key.and_then(|k| module_cache::lookup(d, cfg, owner, k)) {
        let layout = codegen::buffer_layout(cfg.program.program());
        return Ok(module(cfg, hit.module, layout, &hit.kernels));
    }
    let (out_ptx, out_layout, kernels) = match &cfg.raw {
        Some(toml) => raw_module(cfg.program.program(), &cfg.jit_budget, toml, &ptx)?,
        None => {
            let out = codegen::instrument_within(&ptx, &cfg.program, &cfg.jit_budget)
                .map_err(|e| (Reason::ParseError, first_line(&e.to_string())))?;
            let kernels: Vec<CachedKernel> = out
                .kernels
                .iter()
                .map(|k| {
                    let mut state = codegen::state(&k.status, warptrace_codegen::Target::Ptx);
                    // What a `mem:` probe that attaches nowhere may have been meant as.
                    if let (KernelState::Skipped { detail, .. }, Some(hint)) = (&mut state, &k.hint)
                    {
                        detail.clone_from(hint);
                    }
                    CachedKernel {
                        name: k.name.clone(),
                        id: k.id,
                        params: k.params,
                        state,
                    }
                })
                .collect();
            (out.ptx, out.layout, kernels)
        }
    };
    let any = kernels
        .iter()
        .any(|k| matches!(k.state, KernelState::Instrumented { .. }));
    let jitted = if any {
        let j = jit::jit(d, cfg, &out_ptx, key.is_some() && module_cache::writable());
        let micros = j.as_ref().map_or(0, |j| j.micros);
        state::tables().cache.jit_us += micros;
        Some(j?)
    } else {
        None
    };
    if let Some(key) = key {
        match &jitted {
            None => module_cache::store(cfg, key, &[], &kernels),
            Some(Jitted {
                cubin: Some(cubin), ..
            }) => module_cache::store(cfg, key, cubin, &kernels),
            // Loaded without the linker (this driver lacks it): nothing to cache.
            Some(_) => {}
        }
    }
    Ok(module(
        cfg,
        jitted.map_or(0, |j| j.module),
        out_layout,
        &kernels,
    ))
}

/// A module instrumented with the raw probe file `toml` (`Config::raw`) within `budget`:
/// its PTX, its map buffer's layout (`RawReport::layout`, which decodes with `program`, the
/// bundle's: its maps must be the file's) and each kernel's outcome.
fn raw_module(
    program: &warptrace_ir::Program,
    budget: &codegen::JitBudget,
    toml: &str,
    ptx: &str,
) -> Result<(String, MapLayout, Vec<CachedKernel>), Failure> {
    let failed = |e: &dyn std::fmt::Display| (Reason::ParseError, first_line(&e.to_string()));
    let out = codegen::instrument_raw_within(toml, ptx, budget).map_err(|e| failed(&e))?;
    if out.report.maps != program.maps {
        return Err((
            Reason::ParseError,
            "the raw probe file's maps are not the bundle's".into(),
        ));
    }
    let module = codegen::parse(ptx).map_err(|e| failed(&e))?;
    let kernels = out
        .report
        .kernels
        .iter()
        .map(|k| {
            let skipped = |reason, detail| KernelState::Skipped { reason, detail };
            let state = match &k.status {
                codegen::RawStatus::Accepted => KernelState::Instrumented { sites: k.sites },
                codegen::RawStatus::NoSites => skipped(Reason::NoSites, String::new()),
                codegen::RawStatus::OverBudget(why) => skipped(Reason::JitBudget, why.clone()),
                codegen::RawStatus::Rejected(r) => skipped(
                    Reason::VerifierRejection,
                    r.first().map_or_else(String::new, ToString::to_string),
                ),
            };
            CachedKernel {
                name: k.name.clone(),
                id: warptrace_ir::kernel_id(&k.name),
                params: module.kernel(&k.name).map_or(0, |f| f.params.len() as u32),
                state,
            }
        })
        .collect();
    Ok((out.ptx, out.report.layout, kernels))
}

/// The module record of a loaded (or cached) instrumented image.
fn module(cfg: &Config, handle: usize, layout: MapLayout, kernels: &[CachedKernel]) -> Arc<Module> {
    let program = cfg.program.program();
    let mut t = state::tables();
    let mut map = HashMap::new();
    for k in kernels {
        t.kernel_id(k.id, &k.name);
        let status = match &k.state {
            // A raw probe's maps are arrays, a buffer per launch, one copy.
            KernelState::Instrumented { sites } if cfg.raw.is_some() => Ok((*sites, false, 1)),
            KernelState::Instrumented { sites } => Ok((
                *sites,
                cfg.resident && codegen::accumulates(program, k.id),
                codegen::replicas(program, k.id),
            )),
            KernelState::Skipped { reason, detail } => Err((*reason, detail.clone())),
        };
        map.insert(k.name.clone(), (k.params, status));
    }
    Arc::new(Module {
        handle,
        layout: Arc::new(layout),
        kernels: map,
    })
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
    let (sites, resident, replicas) = status.clone()?;
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
    let resources = crate::resources::pair(d, handle, func as usize);
    let figures = resources.map_or_else(String::new, |p| format!("; {}", p.describe()));
    config::verbose(format_args!(
        "{}: instrumented, {sites} sites{figures}",
        info.name
    ));
    // The instrumented code offsets its map base to its block's copy of the tables: the
    // buffer holds them all, and each decodes on its own.
    let layout = if replicas > 1 {
        Arc::new(m.layout.replicated(replicas))
    } else {
        m.layout.clone()
    };
    Ok(Arc::new(Probed {
        func: func as usize,
        params: *params,
        layout,
        resident,
        resources,
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
        .map(|c| c.copies_of(handle).map(|p| p.func).collect())
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
    let gone = cache()
        .as_mut()
        .map(|c| c.forget(owner))
        .unwrap_or_default();
    for m in gone {
        if let (true, Some(unload)) = (m.handle != 0, d.cuModuleUnload) {
            // SAFETY: the module was loaded by us and is no longer referenced.
            unsafe { unload(m.handle as CUmodule) };
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

#[cfg(test)]
mod raw_tests {
    use super::*;

    fn corpus(name: &str) -> String {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus");
        std::fs::read_to_string(dir.join(name)).expect("corpus file")
    }

    #[test]
    fn a_raw_probe_file_instruments_a_module_as_the_launch_path_needs_it() {
        let toml = corpus("accept/raw/block_sched.toml");
        let ptx = corpus("ptx/nvcc_app.ptx");
        let report = warptrace_codegen_ptx::check_raw_probes(&toml, &ptx).expect("loads");
        let program = warptrace_ir::Program {
            maps: report.maps.clone(),
            ..Default::default()
        };
        let (out, layout, kernels) =
            raw_module(&program, &codegen::JitBudget::default(), &toml, &ptx).expect("instruments");
        assert!(out.contains(warptrace_codegen_ptx::MAP_PARAM));
        // The buffer decodes with the bundle's program, as a cache hit lays it out.
        assert_eq!(layout, report.layout);
        assert_eq!(layout, codegen::buffer_layout(&program));
        // Ids and parameter counts as the language path gives them for the same module.
        let lang = warptrace_verifier::verify_program(&warptrace_ir::Program::default())
            .expect("empty program verifies");
        let plain = codegen::instrument_within(&ptx, &lang, &codegen::JitBudget::default())
            .expect("instruments");
        assert_eq!(kernels.len(), plain.kernels.len());
        for (raw, plain) in kernels.iter().zip(&plain.kernels) {
            assert_eq!(
                (&raw.name, raw.id, raw.params),
                (&plain.name, plain.id, plain.params)
            );
            assert!(
                matches!(raw.state, KernelState::Instrumented { sites } if sites > 0),
                "{}: {:?}",
                raw.name,
                raw.state
            );
        }
        // Maps that are not the file's are refused rather than decoded wrongly.
        let other = warptrace_ir::Program::default();
        let (reason, _) = raw_module(&other, &codegen::JitBudget::default(), &toml, &ptx)
            .expect_err("maps differ");
        assert_eq!(reason, Reason::ParseError);
    }

    #[test]
    fn a_rejected_kernel_is_skipped_with_its_rejection() {
        let toml = corpus("reject/raw/21-st-global-kernel-pointer.toml");
        let ptx = corpus("ptx/triton_vector_add.ptx");
        let (_, _, kernels) = raw_module(
            &warptrace_ir::Program::default(),
            &codegen::JitBudget::default(),
            &toml,
            &ptx,
        )
        .expect("instruments");
        let KernelState::Skipped { reason, detail } = &kernels[0].state else {
            panic!("{:?}", kernels[0].state);
        };
        assert_eq!(*reason, Reason::VerifierRejection);
        assert!(detail.contains("MemorySafety"), "{detail}");
    }
}
