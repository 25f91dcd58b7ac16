//! The launch path's use of the on-disk module cache ([`crate::cache`]): the key of an
//! image in the current context, a lookup that loads the cached cubin, the store after a
//! JIT, and the counters and explanations of the run summary.
//!
//! Every failure is a miss or a counted write failure, never an error of the launch: a
//! corrupt, truncated or foreign entry, or a cubin the driver refuses, sends the module
//! through instrumentation and the JIT as if there were no cache (and rewrites the
//! entry). The first failed write warns once and turns writing off for the process.

use crate::cache::{CacheError, CacheKey, CachedKernel, KeyInputs};
use crate::config::{self, Config, Fault};
use crate::driver::Driver;
use crate::jit;
use crate::state::{self, Owner};
use std::sync::atomic::{AtomicBool, Ordering};

/// Set by the first failed write: no more writes in this process.
static WRITES_OFF: AtomicBool = AtomicBool::new(false);

/// A module loaded from the cache.
#[derive(Debug)]
pub struct Hit {
    /// The loaded `CUmodule` (0 when no kernel of the image is instrumented).
    pub module: usize,
    /// Each kernel's outcome.
    pub kernels: Vec<CachedKernel>,
}

/// The cache key of `ptx` in the current context; `None` when there is no cache, or it is
/// bypassed (`WARPTRACE_FAULT=jit`: the forced failure must happen and be counted).
pub fn key(d: &Driver, cfg: &Config, ptx: &str) -> Option<CacheKey> {
    cfg.cache.as_ref()?;
    if cfg.fault == Some(Fault::Jit) {
        config::verbose(format_args!(
            "module cache bypassed ({}=jit)",
            config::ENV_FAULT
        ));
        return None;
    }
    Some(CacheKey::derive(&KeyInputs {
        ptx: ptx.as_bytes(),
        bundle: cfg.bundle_hash,
        // The version and the code generator's sources (`build.rs`).
        version: concat!(
            env!("CARGO_PKG_VERSION"),
            "+",
            env!("WARPTRACE_CODEGEN_HASH")
        ),
        arch: d.compute_capability(),
        driver: d.version(),
        codegen_env: &cfg.codegen_env,
    }))
}

/// The cached module of `key`, loaded; `None` (a counted miss) when there is no usable
/// entry.
pub fn lookup(d: &Driver, cfg: &Config, owner: Owner, key: CacheKey) -> Option<Hit> {
    let cache = cfg.cache.as_ref()?;
    let path = cache.path(key);
    let entry = match cache.load(key) {
        Ok(entry) => entry,
        Err(CacheError::NotFound) => {
            miss(owner, format!("no entry {}", path.display()), false);
            return None;
        }
        Err(e) => {
            miss(owner, format!("{}: {}", path.display(), chain(&e)), true);
            return None;
        }
    };
    let module = if entry.cubin().is_empty() {
        0
    } else {
        match jit::load_cubin(d, entry.cubin()) {
            Ok(m) => m,
            Err(rc) => {
                let why = format!("the driver refused its cubin (CUresult {rc})");
                miss(owner, format!("{}: {why}", path.display()), true);
                return None;
            }
        }
    };
    state::tables().cache.hits += 1;
    config::verbose(format_args!(
        "module cache hit: {owner}: {} bytes of cubin, {} kernels, from {}",
        entry.cubin().len(),
        entry.kernels.len(),
        path.display()
    ));
    Some(Hit {
        module,
        kernels: entry.kernels,
    })
}

fn miss(owner: Owner, why: String, unusable: bool) {
    config::verbose(format_args!("module cache miss: {owner}: {why}"));
    let mut t = state::tables();
    t.cache.misses += 1;
    if unusable {
        t.cache.note(format!("miss: {why}"));
    }
}

/// Whether entries are still written (no write has failed in this process).
pub fn writable() -> bool {
    !WRITES_OFF.load(Ordering::Relaxed)
}

/// Writes `key`'s entry; the first failure warns and turns writing off.
pub fn store(cfg: &Config, key: CacheKey, cubin: &[u8], kernels: &[CachedKernel]) {
    let Some(cache) = cfg.cache.as_ref() else {
        return;
    };
    if WRITES_OFF.load(Ordering::Relaxed) {
        return;
    }
    match cache.store(key, cubin, kernels) {
        Ok(path) => {
            state::tables().cache.written += 1;
            config::verbose(format_args!(
                "module cache: entry written to {}",
                path.display()
            ));
        }
        Err(e) => {
            let why = chain(&e);
            {
                let mut t = state::tables();
                t.cache.write_failures += 1;
                t.cache.note(format!("write failed: {why}"));
            }
            if !WRITES_OFF.swap(true, Ordering::Relaxed) {
                config::warn(format_args!(
                    "module cache in {} not writable ({why}); continuing without writing \
                     it (--no-cache turns it off, --cache-dir moves it)",
                    cache.dir().display()
                ));
            }
        }
    }
}

/// An error and its sources, `: `-separated.
fn chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        out.push_str(": ");
        out.push_str(&s.to_string());
        source = s.source();
    }
    out
}
