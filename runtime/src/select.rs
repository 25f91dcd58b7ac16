//! Which kernels the probes select (each probe's glob against the mangled name, the
//! demangled name and the demangled name without its parameter list) and which of their
//! launches are probed (`--launch-skip`, `--launch-count`, `--sample`).

use globset::{Glob, GlobSet, GlobSetBuilder};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use warptrace_ir::Program;

/// The union of the probes' kernel globs.
#[derive(Debug, Clone)]
pub struct KernelSelector {
    all: bool,
    globs: GlobSet,
}

impl KernelSelector {
    /// The selector of `program`; a probe without a glob selects every kernel. A glob that
    /// does not compile selects nothing.
    pub fn new(program: &Program) -> KernelSelector {
        let mut all = false;
        let mut builder = GlobSetBuilder::new();
        for probe in &program.probes {
            match &probe.attach.kernel_glob {
                None => all = true,
                Some(g) => {
                    if let Ok(glob) = Glob::new(g) {
                        builder.add(glob);
                    }
                }
            }
        }
        KernelSelector {
            all,
            globs: builder.build().unwrap_or_else(|_| GlobSet::empty()),
        }
    }

    /// The selector of a raw probe file, whose positions apply to every kernel.
    pub fn every() -> KernelSelector {
        KernelSelector {
            all: true,
            globs: GlobSet::empty(),
        }
    }

    /// Whether a kernel of this mangled name is probed.
    pub fn selects(&self, mangled: &str) -> bool {
        if self.all {
            return true;
        }
        if self.globs.is_match(mangled) {
            return true;
        }
        let Ok(symbol) = cpp_demangle::Symbol::new(mangled) else {
            return false;
        };
        if let Ok(full) = symbol.demangle(&Default::default()) {
            if self.globs.is_match(&full) {
                return true;
            }
        }
        let bare = cpp_demangle::DemangleOptions::new().no_params();
        symbol
            .demangle(&bare)
            .is_ok_and(|name| self.globs.is_match(&name))
    }
}

/// Which launches of the selected kernels are probed, as Nsight Compute selects them:
/// `--sample K` keeps a kernel's launches 0, K, 2K, … (counted per kernel name); of those,
/// in launch order across kernels, `--launch-skip N` passes over the first N and
/// `--launch-count M` probes the M after them. The others run the original kernel and are
/// counted as unprobed ("not selected").
#[derive(Debug, Default)]
pub struct LaunchFilter {
    skip: u64,
    count: Option<u64>,
    sample: u64,
    /// Launches so far per kernel name.
    per_kernel: Mutex<HashMap<String, u64>>,
    /// Launches that passed the sampling so far.
    candidates: AtomicU64,
}

impl LaunchFilter {
    /// A filter; `sample` 0 or 1 keeps every launch.
    pub fn new(skip: u64, count: Option<u64>, sample: u64) -> LaunchFilter {
        LaunchFilter {
            skip,
            count,
            sample: sample.max(1),
            ..LaunchFilter::default()
        }
    }

    /// Whether the filter keeps every launch (nothing to count).
    pub fn is_all(&self) -> bool {
        self.skip == 0 && self.count.is_none() && self.sample == 1
    }

    /// Decides the next launch of `kernel` (call once per launch, in launch order).
    pub fn admit(&self, kernel: &str) -> bool {
        if self.is_all() {
            return true;
        }
        let k = {
            let mut per = self.per_kernel.lock().unwrap_or_else(|p| p.into_inner());
            let k = per.entry(kernel.to_string()).or_insert(0);
            let this = *k;
            *k += 1;
            this
        };
        if k % self.sample != 0 {
            return false;
        }
        let n = self.candidates.fetch_add(1, Ordering::Relaxed);
        n >= self.skip && self.count.is_none_or(|c| n - self.skip < c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launches_are_sampled_per_kernel_then_skipped_and_counted_across_kernels() {
        let all = LaunchFilter::new(0, None, 1);
        assert!((0..5).all(|_| all.admit("k")));
        // Every 2nd launch of each kernel; of those, skip 1 and keep 3.
        let f = LaunchFilter::new(1, Some(3), 2);
        let launches = ["a", "b", "a", "a", "b", "a", "b", "a", "a"];
        let kept: Vec<bool> = launches.iter().map(|k| f.admit(k)).collect();
        // a0 b0 a1 a2 b1 a3 b2 a4 a5: sampled a0 b0 a2 b2 a4 → candidates 0..5; skip a0,
        // keep b0 a2 b2, not a4.
        assert_eq!(
            kept,
            [false, true, false, true, false, false, true, false, false]
        );
        let first_two = LaunchFilter::new(0, Some(2), 1);
        let kept: Vec<bool> = (0..4).map(|_| first_two.admit("k")).collect();
        assert_eq!(kept, [true, true, false, false]);
    }

    use warptrace_ir::{AttachPoint, AttachSpec, Insn, Probe};

    fn program(globs: &[Option<&str>]) -> Program {
        Program {
            maps: vec![],
            probes: globs
                .iter()
                .map(|g| Probe {
                    attach: AttachSpec::new(AttachPoint::KernelEntry, g.map(str::to_string)),
                    insns: vec![Insn::Exit],
                    spans: vec![None],
                })
                .collect(),
            ..Program::default()
        }
    }

    #[test]
    fn globs_match_mangled_demangled_and_bare_names() {
        let s = KernelSelector::new(&program(&[Some("twice"), Some("vector_*")]));
        assert!(s.selects("_Z5twicePf"));
        assert!(s.selects("vector_add"));
        assert!(!s.selects("matmul"));
        assert!(!s.selects("_Z6twice2Pf"));
        let s = KernelSelector::new(&program(&[Some("twice(float*)")]));
        assert!(s.selects("_Z5twicePf"));
        let s = KernelSelector::new(&program(&[Some("_Z5tw*")]));
        assert!(s.selects("_Z5twicePf"));
        let s = KernelSelector::new(&program(&[Some("ns::k*")]));
        assert!(s.selects("_ZN2ns6kernelEv"));
    }

    #[test]
    fn no_glob_selects_everything_and_no_probe_nothing() {
        assert!(KernelSelector::new(&program(&[Some("x"), None])).selects("anything"));
        assert!(!KernelSelector::new(&program(&[])).selects("anything"));
    }
}
