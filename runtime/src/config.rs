//! The environment: `WARPTRACE_BUNDLE`, `WARPTRACE_RESULTS`, `WARPTRACE_VERBOSE`,
//! `WARPTRACE_FAULT`, `WARPTRACE_LAUNCH_SKIP`, `WARPTRACE_LAUNCH_COUNT`,
//! `WARPTRACE_SAMPLE`, `WARPTRACE_CACHE_DIR`, `WARPTRACE_NO_CACHE`,
//! `WARPTRACE_PER_LAUNCH_BUFFERS`, `WARPTRACE_RAW_PROBES`, `WARPTRACE_MAX_RECORDS`,
//! `WARPTRACE_MAP_MEMORY`, `WARPTRACE_LIVE_MS`; set once by [`init`]
//! from the preload library's constructor.

use crate::cache::{self, DiskCache};
use crate::codegen::JitBudget;
use crate::select::{KernelSelector, LaunchFilter};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;
use warptrace_ir::Bundle;
use warptrace_verifier::VerifiedProgram;

/// Path of the bundle JSON the CLI wrote; without it the library is transparent.
pub const ENV_BUNDLE: &str = "WARPTRACE_BUNDLE";
/// Directory that receives `<pid>.json`.
pub const ENV_RESULTS: &str = "WARPTRACE_RESULTS";
/// `1`: print every event to stderr.
pub const ENV_VERBOSE: &str = "WARPTRACE_VERBOSE";
/// `jit` or `alloc`: force that failure path (tests).
pub const ENV_FAULT: &str = "WARPTRACE_FAULT";
/// Launches of the selected kernels to pass over before probing (`--launch-skip`).
pub const ENV_LAUNCH_SKIP: &str = "WARPTRACE_LAUNCH_SKIP";
/// Launches to probe after the skipped ones (`--launch-count`; unset: all).
pub const ENV_LAUNCH_COUNT: &str = "WARPTRACE_LAUNCH_COUNT";
/// Probe every K-th launch of each kernel (`--sample`).
pub const ENV_SAMPLE: &str = "WARPTRACE_SAMPLE";
/// The on-disk module cache's directory (`--cache-dir`; default
/// `$XDG_CACHE_HOME/warptrace`, else `~/.cache/warptrace`).
pub const ENV_CACHE_DIR: &str = "WARPTRACE_CACHE_DIR";
/// `1`: no on-disk module cache (`--no-cache`).
pub const ENV_NO_CACHE: &str = "WARPTRACE_NO_CACHE";
/// `1`: the bundle's source is a NEUTRINO raw probe file (`docs/raw-probes.md`) and its
/// program declares only that file's maps: every kernel is instrumented with the file.
pub const ENV_RAW_PROBES: &str = "WARPTRACE_RAW_PROBES";
/// `1`: every probed launch gets its own zeroed map buffer, read back after it, even
/// where launches could share a resident one (`--per-launch-buffers`; decision 0014).
pub const ENV_PER_LAUNCH_BUFFERS: &str = "WARPTRACE_PER_LAUNCH_BUFFERS";
/// The most records a process keeps of each ring or array map (`--max-records`; unset:
/// [`DEFAULT_MAX_RECORDS`](crate::DEFAULT_MAX_RECORDS)).
pub const ENV_MAX_RECORDS: &str = "WARPTRACE_MAX_RECORDS";
/// Bytes of device memory (and as much pinned host memory) the map buffers of a
/// process's launches may hold at once (`--map-memory`; unset: an eighth of the device's
/// memory, see `map_buf::default_budget`).
pub const ENV_MAP_MEMORY: &str = "WARPTRACE_MAP_MEMORY";
/// How much more than the original an instrumented kernel's JIT compile may cost
/// (`--jit-budget`: a multiple, or `off`; unset: `JitBudget::default`). Part of every
/// module-cache key, so a kernel refused under one budget is instrumented under another.
pub const ENV_JIT_BUDGET: &str = "WARPTRACE_JIT_BUDGET";

/// Milliseconds between the snapshots of this process's results that the CLI's `interval`
/// blocks read while the program runs (`live.rs`); unset: no snapshots (a detach request
/// is still watched for). Implies per-launch buffers: a resident buffer's counts would
/// reach the host only at exit.
pub const ENV_LIVE_MS: &str = "WARPTRACE_LIVE_MS";

/// A failure path forced by [`ENV_FAULT`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// Every JIT of instrumented PTX fails.
    Jit,
    /// Every map allocation fails.
    Alloc,
}

/// What the runtime was started with.
#[derive(Debug)]
pub struct Config {
    /// Its program, verified.
    pub program: VerifiedProgram,
    /// Kernels the probes select.
    pub selector: KernelSelector,
    /// Where the report goes.
    pub results: Option<PathBuf>,
    /// A forced failure.
    pub fault: Option<Fault>,
    /// Which launches are probed.
    pub launches: LaunchFilter,
    /// Whether a probe reads `launch` (each launch then gets its sequence number written).
    pub reads_launch: bool,
    /// The on-disk module cache (`None`: disabled).
    pub cache: Option<DiskCache>,
    /// [`cache::bundle_hash`] of the bundle file, part of every cache key.
    pub bundle_hash: u128,
    /// [`cache::codegen_env`] of the environment, part of every cache key.
    pub codegen_env: String,
    /// Whether launches that may share a resident map buffer do (not
    /// [`ENV_PER_LAUNCH_BUFFERS`]).
    pub resident: bool,
    /// The raw probe file (TOML) every module is instrumented with, when
    /// [`ENV_RAW_PROBES`] is set; `program` then declares its maps and has no probes.
    pub raw: Option<String>,
    /// What the map buffers of launches may hold at once, in bytes ([`ENV_MAP_MEMORY`];
    /// `None`: the device's share, `map_buf::default_budget`).
    pub map_memory: Option<u64>,
    /// What an instrumented kernel may cost the JIT ([`ENV_JIT_BUDGET`]).
    pub jit_budget: JitBudget,
    /// The period of live snapshots ([`ENV_LIVE_MS`]).
    pub live: Option<std::time::Duration>,
}

static CONFIG: OnceLock<Config> = OnceLock::new();
static ACTIVE: AtomicBool = AtomicBool::new(false);
static VERBOSE: AtomicBool = AtomicBool::new(false);

/// Whether a bundle is loaded (the wrappers do nothing but forward otherwise).
#[inline]
pub fn active() -> bool {
    ACTIVE.load(Ordering::Relaxed)
}

impl Config {
    /// What the map buffers of a process's launches may hold at once on the current
    /// device: `--map-memory`, else the device's share (`map_buf::default_budget`).
    pub(crate) fn map_budget(&self, d: &crate::driver::Driver) -> u64 {
        self.map_memory
            .unwrap_or_else(|| crate::map_buf::default_budget(d))
    }
}

/// Stops tracing for the rest of the process (the CLI's `exit()` or SIGINT, `live.rs`):
/// every wrapper forwards from now on, as if no bundle were loaded.
pub(crate) fn detach() {
    ACTIVE.store(false, Ordering::Release);
}

/// The configuration [`init`] loaded, detached or not (for the report at exit).
pub(crate) fn loaded() -> Option<&'static Config> {
    CONFIG.get()
}

/// The configuration, once [`init`] loaded a bundle (and until [`detach`]).
pub fn config() -> Option<&'static Config> {
    if active() {
        CONFIG.get()
    } else {
        None
    }
}

/// Whether `WARPTRACE_VERBOSE=1`.
pub fn is_verbose() -> bool {
    VERBOSE.load(Ordering::Relaxed)
}

/// Prints `warptrace: …` to stderr when verbose.
pub fn verbose(args: std::fmt::Arguments<'_>) {
    if VERBOSE.load(Ordering::Relaxed) {
        eprintln!("warptrace: {args}");
    }
}

/// Prints `warptrace: …` to stderr always.
pub fn warn(args: std::fmt::Arguments<'_>) {
    eprintln!("warptrace: {args}");
}

/// The JIT budget [`ENV_JIT_BUDGET`] sets (`value`); a bad value is a warning and the
/// default.
fn jit_budget(value: Option<&str>) -> JitBudget {
    match value.map(JitBudget::parse) {
        None => JitBudget::default(),
        Some(Ok(b)) => b,
        Some(Err(e)) => {
            warn(format_args!(
                "{ENV_JIT_BUDGET}: {e}; the default budget applies"
            ));
            JitBudget::default()
        }
    }
}

/// Reads the environment and loads the bundle; returns whether the runtime is active.
/// Called once, from the preload library's constructor. A bad bundle is a warning and
/// leaves the program untraced.
pub fn init() -> bool {
    VERBOSE.store(
        std::env::var(ENV_VERBOSE).is_ok_and(|v| v == "1"),
        Ordering::Relaxed,
    );
    let Some(path) = std::env::var_os(ENV_BUNDLE) else {
        return false;
    };
    let loaded = std::fs::read_to_string(&path)
        .map_err(|e| e.to_string())
        .and_then(|text| {
            let bundle = Bundle::from_json(&text).map_err(|e| e.to_string())?;
            let program = warptrace_verifier::verify_program(&bundle.program)
                .map_err(|e| format!("probe program rejected: {e}"))?;
            Ok((program, cache::bundle_hash(text.as_bytes()), bundle.source))
        });
    let (program, bundle_hash, source) = match loaded {
        Ok(b) => b,
        Err(e) => {
            warn(format_args!(
                "cannot load bundle {}: {e}; tracing disabled",
                path.to_string_lossy()
            ));
            return false;
        }
    };
    let fault = match std::env::var(ENV_FAULT).as_deref() {
        Ok("jit") => Some(Fault::Jit),
        Ok("alloc") => Some(Fault::Alloc),
        _ => None,
    };
    let number = |name: &str| -> Option<u64> {
        let v = std::env::var(name).ok()?;
        let n = v.trim().parse().ok();
        if n.is_none() {
            warn(format_args!("{name}={v} is not a number; ignored"));
        }
        n
    };
    let launches = LaunchFilter::new(
        number(ENV_LAUNCH_SKIP).unwrap_or(0),
        number(ENV_LAUNCH_COUNT),
        number(ENV_SAMPLE).unwrap_or(1),
    );
    let raw = (std::env::var(ENV_RAW_PROBES).as_deref() == Ok("1")).then_some(source);
    let config = Config {
        selector: match raw {
            Some(_) => KernelSelector::every(),
            None => KernelSelector::new(program.program()),
        },
        results: std::env::var_os(ENV_RESULTS).map(PathBuf::from),
        fault,
        launches,
        reads_launch: crate::instrument::reads_launch(program.program()),
        program,
        cache: cache::cache_dir(|name| std::env::var_os(name)).map(DiskCache::new),
        bundle_hash,
        codegen_env: cache::codegen_env(std::env::vars_os()),
        resident: std::env::var(ENV_PER_LAUNCH_BUFFERS).as_deref() != Ok("1")
            && std::env::var_os(ENV_LIVE_MS).is_none(),
        raw,
        map_memory: number(ENV_MAP_MEMORY),
        jit_budget: jit_budget(std::env::var(ENV_JIT_BUDGET).ok().as_deref()),
        live: number(ENV_LIVE_MS)
            .filter(|&ms| ms > 0)
            .map(std::time::Duration::from_millis),
    };
    let max_records = number(ENV_MAX_RECORDS).unwrap_or(crate::aggregate::DEFAULT_MAX_RECORDS);
    crate::state::init_maps(config.program.program().maps.len(), max_records);
    if CONFIG.set(config).is_ok() {
        ACTIVE.store(true, Ordering::Release);
        verbose(format_args!(
            "bundle loaded from {}",
            path.to_string_lossy()
        ));
        if CONFIG.get().is_some_and(|c| c.raw.is_some()) {
            verbose(format_args!(
                "the bundle holds a raw probe file ({ENV_RAW_PROBES}): every kernel is \
                 instrumented with it"
            ));
        }
        match CONFIG.get().and_then(|c| c.cache.as_ref()) {
            Some(c) => verbose(format_args!("module cache in {}", c.dir().display())),
            None => verbose(format_args!(
                "no module cache ({ENV_NO_CACHE} set, or no $HOME)"
            )),
        }
    }
    active()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_jit_budget_comes_from_the_environment_or_is_the_default() {
        assert_eq!(jit_budget(None), JitBudget::default());
        assert_eq!(jit_budget(Some("off")), JitBudget::OFF);
        assert_eq!(jit_budget(Some("8")).factor, Some(8.0));
        // As `--jit-budget` spells it, so a value the CLI passes reads back the same.
        let b = JitBudget::parse("2.5").expect("parses");
        assert_eq!(jit_budget(Some(&b.as_arg())), b);
        assert_eq!(jit_budget(Some(&JitBudget::OFF.as_arg())), JitBudget::OFF);
        // A bad value is a warning and the default, never a refusal to trace.
        assert_eq!(jit_budget(Some("lots")), JitBudget::default());
    }
}
