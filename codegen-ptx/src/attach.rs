//! Attach-point matching: which statements of a kernel each probe runs at.

use crate::parse::{Body, Function, Instruction, StmtKind};
use crate::PtxError;
use globset::{Glob, GlobMatcher};
use warptrace_ir::{AttachPoint, Granularity, MemOp, MemSpace, Position, Program};

/// One place a probe runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Site {
    /// Index of the probe in the program.
    pub probe: usize,
    /// Statement the snippet goes before; `None` for kernel entry (the entry point).
    pub stmt: Option<usize>,
}

/// Compiled kernel-name globs, one per probe.
#[derive(Debug)]
pub(crate) struct KernelFilter(Vec<Option<GlobMatcher>>);

impl KernelFilter {
    pub fn new(program: &Program) -> Result<KernelFilter, PtxError> {
        program
            .probes
            .iter()
            .map(|p| {
                p.attach
                    .kernel_glob
                    .as_ref()
                    .map(|g| {
                        Glob::new(g)
                            .map(|g| g.compile_matcher())
                            .map_err(|source| PtxError::Glob {
                                glob: g.clone(),
                                source,
                            })
                    })
                    .transpose()
            })
            .collect::<Result<_, _>>()
            .map(KernelFilter)
    }

    /// Whether probe `probe` applies to the kernel with this mangled name.
    pub fn matches(&self, probe: usize, kernel: &str) -> bool {
        match self.0.get(probe) {
            Some(Some(m)) => m.is_match(kernel),
            Some(None) => true,
            None => false,
        }
    }
}

/// Index of the first statement after the body's leading declarations and directives:
/// where the prologue and kernel-entry snippets go.
pub(crate) fn entry_point(body: &Body) -> usize {
    body.stmts
        .iter()
        .position(|s| !matches!(s.kind, StmtKind::Directive(_)))
        .unwrap_or(body.stmts.len())
}

/// The `mem:` classification of a memory instruction: `ld`/`ldu` load, `st` store,
/// `atom`/`red` atomic, in the global, shared, local or generic space. Parameter and
/// constant accesses and asynchronous copies are not `mem:` sites in this cut.
pub(crate) fn mem_site(i: &Instruction) -> Option<(MemSpace, MemOp)> {
    let op = match i.root() {
        "ld" | "ldu" => MemOp::Load,
        "st" => MemOp::Store,
        "atom" | "red" => MemOp::Atomic,
        _ => return None,
    };
    let mut space = MemSpace::Generic;
    for m in i.modifiers() {
        space = match m.split("::").next().unwrap_or(m) {
            "global" => MemSpace::Global,
            "shared" => MemSpace::Shared,
            "local" => MemSpace::Local,
            "param" | "const" => return None,
            _ => continue,
        };
        break;
    }
    Some((space, op))
}

/// The first thing a probe selecting kernel `name` uses that this back end does not
/// instrument yet: an attach point other than `kernel:*` and `mem:`, `after`, `warp`.
/// (Unsupported instructions are found when the probe is lowered.)
pub(crate) fn unsupported(program: &Program, filter: &KernelFilter, name: &str) -> Option<String> {
    program
        .probes
        .iter()
        .enumerate()
        .filter(|&(p, _)| filter.matches(p, name))
        .find_map(|(_, probe)| {
            let a = &probe.attach;
            let point_ok = matches!(
                a.point,
                AttachPoint::KernelEntry | AttachPoint::KernelExit | AttachPoint::Mem { .. }
            );
            if !point_ok {
                Some(format!("attach point {}", a.point))
            } else if a.position != Position::Before {
                Some(format!("`after` probes ({a})"))
            } else if a.granularity != Granularity::Thread {
                Some(format!("`warp` probes ({a})"))
            } else {
                None
            }
        })
}

fn point_matches(point: &AttachPoint, space: MemSpace, op: MemOp) -> bool {
    match point {
        &AttachPoint::Mem { space: s, op: o } => {
            (s == MemSpace::Any || s == space) && (o == MemOp::Any || o == op)
        }
        _ => false,
    }
}

/// Every site of every applicable probe in `f`, entry sites first, then in text order
/// (probes in program order at one statement).
pub(crate) fn find_sites(f: &Function, program: &Program, filter: &KernelFilter) -> Vec<Site> {
    let Some(body) = &f.body else {
        return Vec::new();
    };
    let probes: Vec<usize> = (0..program.probes.len())
        .filter(|&p| filter.matches(p, &f.name))
        .collect();
    let mut sites: Vec<Site> = probes
        .iter()
        .filter(|&&p| program.probes[p].attach.point == AttachPoint::KernelEntry)
        .map(|&p| Site {
            probe: p,
            stmt: None,
        })
        .collect();
    for (idx, stmt) in body.stmts.iter().enumerate() {
        let StmtKind::Instr(i) = &stmt.kind else {
            continue;
        };
        let is_exit = matches!(i.root(), "ret" | "exit");
        let mem = mem_site(i);
        for &p in &probes {
            let point = &program.probes[p].attach.point;
            let hit = match point {
                AttachPoint::KernelExit => is_exit,
                AttachPoint::Mem { .. } => mem.is_some_and(|(s, o)| point_matches(point, s, o)),
                // Not matched yet: `unsupported` reports them and the kernel is left alone.
                AttachPoint::KernelEntry
                | AttachPoint::TensorMma
                | AttachPoint::SyncBarrier
                | AttachPoint::Branch
                | AttachPoint::Loop(_)
                | AttachPoint::Line { .. }
                | AttachPoint::Opcode { .. } => false,
            };
            if hit {
                sites.push(Site {
                    probe: p,
                    stmt: Some(idx),
                });
            }
        }
    }
    sites
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse_instruction;

    fn site(t: &str) -> Option<(MemSpace, MemOp)> {
        mem_site(&parse_instruction(t).expect("parses"))
    }

    #[test]
    fn memory_sites_by_space_and_kind() {
        use MemOp::*;
        use MemSpace::*;
        assert_eq!(
            site("@%p1 ld.global.v4.b32 {%r1,%r2,%r3,%r4}, [%rd1];"),
            Some((Global, Load))
        );
        assert_eq!(site("ld.global.nc.f32 %f1, [%rd1];"), Some((Global, Load)));
        assert_eq!(site("st.global.b16 [%rd1], {%rs1};"), Some((Global, Store)));
        assert_eq!(
            site("atom.global.add.u32 %r1, [%rd1], 1;"),
            Some((Global, Atomic))
        );
        assert_eq!(
            site("red.global.add.f32 [%rd1], %f1;"),
            Some((Global, Atomic))
        );
        assert_eq!(site("ld.f32 %f1, [%rd1];"), Some((Generic, Load)));
        assert_eq!(site("st.shared.f32 [%r5], %f8;"), Some((Shared, Store)));
        assert_eq!(site("ld.shared::cta.b32 %r1, [%r5];"), Some((Shared, Load)));
        assert_eq!(site("ld.param.u64 %rd1, [p];"), None);
        assert_eq!(site("cp.async.cg.shared.global [%r1], [%rd1], 16;"), None);
        assert!(!point_matches(
            &AttachPoint::Mem {
                space: Global,
                op: MemOp::Any
            },
            Shared,
            Load
        ));
        assert!(point_matches(
            &AttachPoint::Mem {
                space: Global,
                op: MemOp::Any
            },
            Global,
            Atomic
        ));
    }
}
