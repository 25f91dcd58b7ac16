//! Which kernels the probes select: each probe's glob against the mangled name, the
//! demangled name and the demangled name without its parameter list.

use globset::{Glob, GlobSet, GlobSetBuilder};
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

#[cfg(test)]
mod tests {
    use super::*;
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
