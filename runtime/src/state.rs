//! What the runtime tracks: images (module/library → PTX), functions and kernels
//! (handle → owner and mangled name), their recorded attributes, per-kernel status,
//! counters and the host-side maps.

use crate::aggregate::Aggregator;
use crate::report::{
    CacheSummary, KernelReport, KernelState, Reason, Report, Summary, REPORT_FORMAT,
};
use std::collections::HashMap;
use std::ffi::c_int;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

/// A loaded image: a `CUmodule` or a `CUlibrary` handle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Owner {
    /// `CUmodule`.
    Module(usize),
    /// `CUlibrary`.
    Library(usize),
}

impl std::fmt::Display for Owner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Owner::Module(h) => write!(f, "module {h:#x}"),
            Owner::Library(h) => write!(f, "library {h:#x}"),
        }
    }
}

/// The PTX of an image, or why there is none.
pub type ImagePtx = Result<Arc<str>, (Reason, String)>;

/// A function or kernel handle's origin.
#[derive(Debug, Clone)]
pub struct FuncInfo {
    /// Its image.
    pub owner: Owner,
    /// Mangled name.
    pub name: Arc<str>,
    /// The `CUkernel` a `CUfunction` came from (`cuKernelGetFunction`).
    pub kernel: Option<usize>,
}

/// Attributes recorded on a handle, to mirror onto its instrumented copy.
#[derive(Debug, Clone, Default)]
pub struct Attrs {
    /// `cuFuncSetAttribute` / `cuKernelSetAttribute` values, last one per attribute.
    pub values: Vec<(c_int, c_int)>,
    /// `cuFuncSetCacheConfig`.
    pub cache: Option<c_int>,
}

impl Attrs {
    /// Records one attribute value.
    pub fn set(&mut self, attr: c_int, value: c_int) {
        match self.values.iter_mut().find(|(a, _)| *a == attr) {
            Some(slot) => slot.1 = value,
            None => self.values.push((attr, value)),
        }
    }
}

#[derive(Debug, Default)]
struct KernelRecord {
    status: Option<KernelState>,
    probed: u64,
    unprobed: u64,
    /// Probed kernel nodes in CUDA graphs, captured or added (each replay then counts in
    /// `probed`).
    captured: u64,
}

/// The tracking tables.
#[derive(Debug, Default)]
pub struct Tables {
    /// Image → PTX (only images with a selected kernel keep their text).
    pub images: HashMap<Owner, ImagePtx>,
    /// Function/kernel handle → origin.
    pub funcs: HashMap<usize, FuncInfo>,
    /// Handle → recorded attributes.
    pub attrs: HashMap<usize, Attrs>,
    /// `CUmodule`s that stand for a library's image (`cuLibraryGetModule`) → the library.
    pub library_modules: HashMap<usize, Owner>,
    kernels: HashMap<String, KernelRecord>,
    kernel_ids: HashMap<u64, String>,
    reasons: HashMap<Reason, u64>,
    /// What the on-disk module cache did.
    pub cache: CacheSummary,
    /// Modules and libraries the process loaded through the driver, selected or not.
    pub images_loaded: u64,
}

impl Tables {
    /// Attributes to mirror for a handle: those of the `CUkernel` it came from, then its own.
    pub fn attrs_for(&self, handle: usize) -> Attrs {
        let mut out = Attrs::default();
        let kernel = self.funcs.get(&handle).and_then(|f| f.kernel);
        for h in kernel.into_iter().chain([handle]) {
            if let Some(a) = self.attrs.get(&h) {
                for &(attr, v) in &a.values {
                    out.set(attr, v);
                }
                out.cache = a.cache.or(out.cache);
            }
        }
        out
    }

    /// The image a `CUmodule` handle stands for: its library's when it came from
    /// `cuLibraryGetModule`, else its own.
    pub fn module_owner(&self, module: usize) -> Owner {
        self.library_modules
            .get(&module)
            .copied()
            .unwrap_or(Owner::Module(module))
    }

    /// Forgets an unloaded image and its functions.
    pub fn forget(&mut self, owner: Owner) {
        self.images.remove(&owner);
        self.library_modules
            .retain(|&m, &mut o| o != owner && Owner::Module(m) != owner);
        let gone: Vec<usize> = self
            .funcs
            .iter()
            .filter(|(_, f)| f.owner == owner)
            .map(|(&h, _)| h)
            .collect();
        for h in gone {
            self.funcs.remove(&h);
            self.attrs.remove(&h);
        }
    }

    /// Sets a kernel's status once (the first outcome wins) and counts a kernel-level reason.
    pub fn kernel_status(&mut self, name: &str, status: KernelState) {
        let record = self.kernels.entry(name.to_string()).or_default();
        if record.status.is_some() {
            return;
        }
        if let KernelState::Skipped { reason, detail } = &status {
            *self.reasons.entry(*reason).or_insert(0) += 1;
            crate::config::verbose(format_args!(
                "{name}: skipped: {}{}{detail}",
                reason.describe(),
                if detail.is_empty() { "" } else { ": " }
            ));
        }
        record.status = Some(status);
    }

    /// Counts a reason on its own (a read-back that could not be enqueued).
    pub fn count(&mut self, reason: Reason) {
        *self.reasons.entry(reason).or_insert(0) += 1;
    }

    /// Remembers a kernel id's name.
    pub fn kernel_id(&mut self, id: u64, name: &str) {
        self.kernel_ids
            .entry(id)
            .or_insert_with(|| name.to_string());
    }

    /// Counts a probed launch captured into a CUDA graph (not a launch: each replay is).
    pub fn captured(&mut self, name: &str) {
        self.kernels.entry(name.to_string()).or_default().captured += 1;
    }

    /// Counts a launch of a selected kernel; `unprobed` carries the launch-level reason
    /// (if any) of a launch that ran the original.
    pub fn launch(&mut self, name: &str, probed: bool, reason: Option<Reason>) {
        let record = self.kernels.entry(name.to_string()).or_default();
        if probed {
            record.probed += 1;
        } else {
            record.unprobed += 1;
        }
        if let Some(r) = reason {
            *self.reasons.entry(r).or_insert(0) += 1;
            crate::config::verbose(format_args!("{name}: launch unprobed: {}", r.describe()));
        }
    }
}

static TABLES: OnceLock<Mutex<Tables>> = OnceLock::new();
static AGGREGATOR: OnceLock<Mutex<Aggregator>> = OnceLock::new();
/// Probed launches whose read-back has not been merged yet.
pub static IN_FLIGHT: AtomicU64 = AtomicU64::new(0);
/// Direct launches of kernels no probe selects (`Summary::launches_other`): an atomic, not
/// a table entry, for it is on the path of every such launch.
pub static OTHER_LAUNCHES: AtomicU64 = AtomicU64::new(0);

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The tracking tables, locked.
pub fn tables() -> MutexGuard<'static, Tables> {
    lock(TABLES.get_or_init(Default::default))
}

/// Sizes the host-side maps and bounds their records (`--max-records`).
pub fn init_maps(maps: usize, max_records: u64) {
    let _ = AGGREGATOR.set(Mutex::new(Aggregator::new(maps, max_records)));
}

/// The host-side maps, locked.
pub fn aggregator() -> MutexGuard<'static, Aggregator> {
    lock(AGGREGATOR.get_or_init(Default::default))
}

/// The runtime's state locks, held across a `fork` (`exits.rs`): taken in the parent
/// before it, so no other thread is inside them when the child's copy is made, and given
/// back on both sides after. Always taken in this order (no path holds one of them while
/// taking one before it).
#[allow(missing_debug_implementations)] // guards
pub(crate) struct Held {
    tables: MutexGuard<'static, Tables>,
    aggregator: MutexGuard<'static, Aggregator>,
    _resident: MutexGuard<'static, Option<crate::resident::Table>>,
}

/// Takes the locks of [`Held`].
pub(crate) fn hold() -> Held {
    Held {
        tables: tables(),
        aggregator: aggregator(),
        _resident: crate::resident::hold(),
    }
}

/// In a `fork` child, with the locks its parent held across the fork: forgets what the
/// parent counted and merged, which is the parent's to report (a child's report counted it
/// again). What the runtime knows about modules and functions stays: it describes the same
/// images. (The resident table empties itself in a new process: `resident.rs`.)
pub(crate) fn forget_inherited(mut held: Held) {
    let t = &mut held.tables;
    t.kernels.clear();
    t.reasons.clear();
    t.cache = CacheSummary::default();
    t.images_loaded = 0;
    let max_records = held.aggregator.max_records();
    *held.aggregator = Aggregator::new(0, max_records);
    IN_FLIGHT.store(0, Ordering::Release);
    OTHER_LAUNCHES.store(0, Ordering::Release);
}

/// Whether the tables and the host maps are unlocked right now (a fatal signal's handler
/// writes the report only then: the signal may have interrupted this very thread while it
/// held one).
pub fn locks_free() -> bool {
    free(TABLES.get()) && free(AGGREGATOR.get()) && crate::resident::unlocked()
}

/// Whether `m` (if initialized) is unlocked: a poisoned lock counts as free.
fn free<T>(m: Option<&Mutex<T>>) -> bool {
    m.is_none_or(|m| !matches!(m.try_lock(), Err(std::sync::TryLockError::WouldBlock)))
}

/// The report of this process so far. Launches still in flight count as lost.
pub fn report(program: &warptrace_ir::Program) -> Report {
    let (maps, max_records) = {
        let a = aggregator();
        (a.to_reports(program), a.max_records())
    };
    let t = tables();
    let mut summary = Summary {
        launches_lost: IN_FLIGHT.load(Ordering::Acquire) + crate::resident::lost(),
        launches_other: OTHER_LAUNCHES.load(Ordering::Relaxed),
        device_ns: crate::launch_probes::device_time().0,
        device_ns_probed: crate::launch_probes::device_time().1,
        ..Summary::default()
    };
    summary.reasons = t.reasons.iter().map(|(&r, &n)| (r, n)).collect();
    summary.cache = t.cache.clone();
    summary.images_loaded = t.images_loaded;
    summary.max_records = max_records;
    let mut kernel_status: Vec<KernelReport> = t
        .kernels
        .iter()
        .filter_map(|(name, k)| {
            let status = k.status.clone()?;
            match status {
                KernelState::Instrumented { .. } => summary.kernels_instrumented += 1,
                KernelState::Skipped { .. } => summary.kernels_skipped += 1,
            }
            Some(KernelReport {
                name: name.clone(),
                status,
                launches_probed: k.probed,
                launches_unprobed: k.unprobed,
            })
        })
        .collect();
    for k in t.kernels.values() {
        summary.launches_probed += k.probed;
        summary.launches_unprobed += k.unprobed;
        summary.graph_nodes += k.captured;
    }
    kernel_status.sort_by(|a, b| a.name.cmp(&b.name));
    Report {
        format: REPORT_FORMAT,
        pids: vec![std::process::id()],
        maps,
        // The kernels' names, and the string keys' texts (`KeyType::Str`).
        kernels: t
            .kernel_ids
            .iter()
            .map(|(&id, n)| (id, n.clone()))
            .chain(
                program
                    .strings
                    .iter()
                    .map(|s| (warptrace_ir::kernel_id(s), s.clone())),
            )
            .collect(),
        summary,
        kernel_status,
        processes: Vec::new(),
    }
}
