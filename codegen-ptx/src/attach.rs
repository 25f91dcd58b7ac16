//! Attach-point matching: which statements of a kernel each probe runs at.

use crate::parse::{Body, Function, Instruction, StmtKind};
use crate::PtxError;
use globset::{Glob, GlobMatcher};
use std::collections::HashMap;
use warptrace_ir::{AttachPoint, Isa, MemOp, MemSpace, Program};

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
/// `atom`/`red` atomic, in the global, shared, local or generic space; and the
/// non-bulk asynchronous copy `cp.async.{ca,cg}.shared{::cta}.global…`, an `async`
/// access of its source space (global). Parameter and constant accesses, bulk/tensor
/// copies (`cp.async.bulk*`, TMA) and `cp.async.commit_group`/`wait_group`/`wait_all`
/// are not `mem:` sites in this cut.
pub(crate) fn mem_site(i: &Instruction) -> Option<(MemSpace, MemOp)> {
    let op = match i.root() {
        "ld" | "ldu" => MemOp::Load,
        "st" => MemOp::Store,
        "atom" | "red" => MemOp::Atomic,
        "cp" => return is_cp_async(i).then_some((MemSpace::Global, MemOp::Async)),
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

/// A non-bulk `cp.async.{ca,cg}.shared{::cta}.global[…]` copy (global → shared).
pub(crate) fn is_cp_async(i: &Instruction) -> bool {
    let mut m = i.modifiers();
    if i.root() != "cp" || m.next() != Some("async") {
        return false;
    }
    if !matches!(m.next(), Some("ca" | "cg")) {
        return false;
    }
    let dst = m.next().map(|d| d.split("::").next().unwrap_or(d));
    dst == Some("shared") && m.next() == Some("global")
}

/// The first thing a probe selecting kernel `name` uses that this back end does not
/// instrument yet: a `loop:` attach point. (Unsupported instructions and positions are
/// found when the probe is lowered at a site.)
pub(crate) fn unsupported(program: &Program, filter: &KernelFilter, name: &str) -> Option<String> {
    program
        .probes
        .iter()
        .enumerate()
        .filter(|&(p, _)| filter.matches(p, name))
        .find_map(|(_, probe)| {
            let a = &probe.attach;
            matches!(a.point, AttachPoint::Loop(_)).then(|| format!("attach point {}", a.point))
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

/// `tensor:mma`: `mma.*`, `wmma.mma.*`, `wgmma.mma_async.*`.
pub(crate) fn is_mma(i: &Instruction) -> bool {
    let first = i.modifiers().next().unwrap_or("");
    match i.root() {
        "mma" => true,
        "wmma" => first == "mma",
        "wgmma" => first == "mma_async",
        _ => false,
    }
}

/// `sync:barrier`: block/cluster barriers (`bar.sync`, `bar.arrive`, `bar.red`,
/// `barrier.sync`, `barrier.cluster.*`, …), not `bar.warp.sync` (a warp collective).
pub(crate) fn is_barrier(i: &Instruction) -> bool {
    matches!(i.root(), "bar" | "barrier") && i.modifiers().next() != Some("warp")
}

/// `branch`: a conditional (predicated) `bra`.
pub(crate) fn is_conditional_branch(i: &Instruction) -> bool {
    i.root() == "bra" && i.guard.is_some()
}

/// `*` and `?` glob matching, exactly as the interpreter matches `ptx:` opcode globs.
pub(crate) use warptrace_ir::interp::glob;

/// Every site of every applicable probe in `f`, entry sites first, then in text order
/// (probes in program order at one statement). `files` is the module's `.file` table
/// (for `line:` probes).
pub(crate) fn find_sites(
    f: &Function,
    program: &Program,
    filter: &KernelFilter,
    files: &HashMap<u32, String>,
) -> Vec<Site> {
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
    let wants_lines = probes
        .iter()
        .any(|&p| matches!(program.probes[p].attach.point, AttachPoint::Line { .. }));
    let locs = if wants_lines {
        crate::site::positions(body, files).0
    } else {
        Vec::new()
    };
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
                AttachPoint::TensorMma => is_mma(i),
                AttachPoint::SyncBarrier => is_barrier(i),
                AttachPoint::Branch => is_conditional_branch(i),
                AttachPoint::Line { file, from, to } => {
                    locs.get(idx).and_then(Option::as_ref).is_some_and(|l| {
                        l.path
                            .as_deref()
                            .is_some_and(|p| p.ends_with(file.as_str()))
                            && (*from..=*to).contains(&l.line)
                    })
                }
                AttachPoint::Opcode { isa, glob: g } => *isa == Isa::Ptx && glob(g, &i.opcode),
                // Entry sites are added above; loops are reported by `unsupported`.
                AttachPoint::KernelEntry | AttachPoint::Loop(_) => false,
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
    fn async_copies_are_global_async_sites() {
        use MemOp::*;
        use MemSpace::*;
        for t in [
            "cp.async.cg.shared.global [%r1], [%rd1], 16;",
            "cp.async.ca.shared.global [%r1+16], [%rd1+32], 4;",
            "@%p1 cp.async.cg.shared.global [%r1], [%rd1], 16, %r9;",
            "cp.async.ca.shared::cta.global.L2::128B [%r1], [%rd1], 8;",
            "cp.async.cg.shared.global.L2::cache_hint [%r1], [%rd1], 16, %rd7;",
            "cp.async.cg.shared.global.L2::cache_hint [%r1], [%rd1], 16, 8, %rd7;",
        ] {
            assert_eq!(site(t), Some((Global, Async)), "{t}");
        }
        for t in [
            "cp.async.commit_group;",
            "cp.async.wait_group 0;",
            "cp.async.wait_all;",
            "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1], 256, [%r2];",
            "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r2, %r3}], [%r4];",
            "cp.async.mbarrier.arrive.shared.b64 [%r1];",
        ] {
            assert_eq!(site(t), None, "{t}");
        }
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
        assert_eq!(site("ld.const.f32 %f1, [c];"), None);
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
            Async
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
