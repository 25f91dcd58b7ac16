//! warptrace's runtime: the logic of the CUDA interception library.
//!
//! `warptrace-preload` (the `LD_PRELOAD` cdylib) exports the functions of [`exports`]
//! under the driver's names and calls [`init`] from its constructor; the CLI links this
//! crate for [`Report`], [`Report::merge`], [`render_text`] and [`render_summary`] without
//! interposing on itself. See the README for the design.
#![deny(missing_docs)]

mod aggregate;
pub mod cache;
mod capture;
mod codegen;
mod config;
mod driver;
pub mod exits;
pub mod export;
mod extra;
mod fatbin;
mod graph_launch;
mod graphs;
mod hip;
mod hooks;
mod image;
mod instrument;
mod jit;
mod launch;
mod launch_probes;
pub(crate) mod live;
mod map_buf;
mod module_cache;
mod output;
mod probed;
mod report;
mod resident;
mod resources;
mod select;
mod signals;
mod staging;
mod state;
mod wrappers;

#[cfg(test)]
mod cache_tests;
#[cfg(test)]
mod image_tests;
#[cfg(test)]
mod report_tests;

pub use aggregate::DEFAULT_MAX_RECORDS;
pub use config::{
    ENV_BUNDLE, ENV_CACHE_DIR, ENV_FAULT, ENV_JIT_BUDGET, ENV_LAUNCH_COUNT, ENV_LAUNCH_SKIP,
    ENV_LIVE_MS, ENV_MAP_MEMORY, ENV_MAX_RECORDS, ENV_NO_CACHE, ENV_PER_LAUNCH_BUFFERS,
    ENV_RAW_PROBES, ENV_RESULTS, ENV_SAMPLE, ENV_VERBOSE,
};
pub use hip::{exports as hip_exports, ENV_GCN_ARCH, ENV_GCN_ASM_DIR};
pub use live::{DETACH_FILE, LIVE_DIR};
pub use map_buf::DEFAULT_MAP_MEMORY;
pub use output::{
    hist, json, printf, text, Hist, KeyPart, Kind, Lhist, MapOutput, Number, PrintArgs, RingOutput,
    Value,
};
pub use report::{
    demangle, lost_records, map_outputs, printf_text, printf_texts, render_events, render_summary,
    render_text, report_store, ring_output, ring_outputs, store_output, store_outputs,
    CacheSummary, KernelReport, KernelState, MapEntry, MapRecord, MapReport, Origin, PidShare,
    ProcessReport, Reason, Report, Summary, REPORT_FORMAT,
};

/// The interposers, to be exported under the driver's names by the preload library.
pub mod exports {
    pub use crate::wrappers::{
        cuCtxDestroy_v2, cuDevicePrimaryCtxRelease_v2, cuDevicePrimaryCtxReset_v2,
        cuFuncSetAttribute, cuFuncSetCacheConfig, cuGetProcAddress, cuGetProcAddress_v2,
        cuGraphAddChildGraphNode, cuGraphAddKernelNode_v2, cuGraphAddNode, cuGraphAddNode_v2,
        cuGraphClone, cuGraphDestroy, cuGraphDestroyNode, cuGraphExecDestroy,
        cuGraphExecKernelNodeSetParams_v2, cuGraphExecNodeSetParams, cuGraphExecUpdate_v2,
        cuGraphInstantiateWithFlags, cuGraphInstantiateWithParams,
        cuGraphInstantiateWithParams_ptsz, cuGraphKernelNodeSetParams_v2, cuGraphLaunch,
        cuGraphLaunch_ptsz, cuGraphNodeSetParams, cuKernelGetFunction, cuKernelSetAttribute,
        cuLaunchCooperativeKernel, cuLaunchCooperativeKernel_ptsz, cuLaunchKernel,
        cuLaunchKernelEx, cuLaunchKernelEx_ptsz, cuLaunchKernel_ptsz, cuLibraryEnumerateKernels,
        cuLibraryGetKernel, cuLibraryGetModule, cuLibraryLoadData, cuLibraryLoadFromFile,
        cuLibraryUnload, cuModuleEnumerateFunctions, cuModuleGetFunction, cuModuleLoad,
        cuModuleLoadData, cuModuleLoadDataEx, cuModuleLoadFatBinary, cuModuleUnload, dlsym,
    };

    /// The driver functions the preload library must export under their own names.
    pub fn hooked_names() -> impl Iterator<Item = &'static std::ffi::CStr> {
        crate::hooks::HOOKS.iter().map(|h| h.name)
    }

    /// The address of the C library's `dlsym` (0 if not found), for forwarding `RTLD_NEXT`.
    pub fn real_dlsym_address() -> usize {
        crate::driver::real_dlsym().map_or(0, |f| f as usize)
    }
}

/// Reads the environment and, when `WARPTRACE_BUNDLE` names a valid bundle, activates the
/// wrappers and registers the exit handler that writes the report. Call once, from a
/// constructor. Makes no CUDA call.
pub fn init() {
    let _ = std::panic::catch_unwind(|| {
        if config::init() {
            // SAFETY: registering a plain extern "C" fn with no arguments.
            unsafe { libc::atexit(at_exit) };
            signals::install();
            exits::install();
            if let Some(cfg) = config::loaded() {
                // A process started after the CLI detached is not traced at all.
                let detached = cfg
                    .results
                    .as_ref()
                    .is_some_and(|r| r.join(live::DETACH_FILE).exists());
                if detached {
                    config::detach();
                } else {
                    live::start(cfg);
                }
            }
        }
    });
}

/// At process exit: writes `$WARPTRACE_RESULTS/<pid>.json` (compact JSON: a ring's records
/// can be many) or, when no directory was given, prints to stderr what the CLI would
/// print (printf records, lost events, maps and rings, the summary). Makes no CUDA call:
/// the context may be gone; launches whose read-back has not arrived count as lost.
extern "C" fn at_exit() {
    use std::time::Duration;
    // A fork child inherits every lock as it was at the fork: one another thread of the
    // parent held then (the drain thread merging a read-back) is held for good, and
    // waiting for it would hang the child's exit. So the locks are waited for a bounded
    // time, shorter in a fork child, whose parent reports what it inherited.
    let wait = Duration::from_secs(if exits::is_fork_child() { 2 } else { 10 });
    if signals::locks_free_within(wait) {
        write_report(Duration::from_secs(10));
    } else {
        config::warn(format_args!(
            "pid {}: no report written: the runtime's state stayed locked (held by another \
             thread at a fork)",
            std::process::id()
        ));
    }
}

/// Writes this process's report once (at exit, or from a fatal signal's handler, whichever
/// comes first), after waiting at most `settle` for delivered read-backs to merge.
fn write_report(settle: std::time::Duration) {
    static WRITTEN: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if WRITTEN.swap(true, std::sync::atomic::Ordering::AcqRel) {
        return;
    }
    let _ = std::panic::catch_unwind(|| {
        // Detached or not: what came back before the detach is this process's report.
        let Some(cfg) = config::loaded() else { return };
        let program = cfg.program.program();
        launch::settle(settle);
        let report = state::report(program);
        match &cfg.results {
            Some(dir) => {
                let path = dir.join(format!("{}.json", std::process::id()));
                let written = std::fs::create_dir_all(dir).and_then(|()| {
                    let json = serde_json::to_string(&report).unwrap_or_default();
                    std::fs::write(&path, json)
                });
                match written {
                    Ok(()) => config::verbose(format_args!("report written to {}", path.display())),
                    Err(e) => config::warn(format_args!("cannot write {}: {e}", path.display())),
                }
            }
            // No CLI to hand the report to: print it here, as the CLI would.
            None => eprint!(
                "{}{}\n{}",
                render_events(program, &report),
                render_text(program, &report),
                render_summary(&report, config::is_verbose())
            ),
        }
    });
}
