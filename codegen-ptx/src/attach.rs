//! Attach-point matching: which statements of a kernel each probe runs at. Whether an
//! instruction is a site of an instruction-level point is decided by
//! `warptrace_codegen::attach::is_site` from the classes this file puts a PTX instruction
//! in (`Classed`); the entry, loop and region points are placed here.

use crate::loops::{Anchor, Loops, PtxCode};
use crate::parse::{Body, Function, Instruction, StmtKind};
use crate::regions::RegionSite;
use crate::site::Loc;
use std::collections::HashMap;
use warptrace_codegen::attach::{is_site, Instr};
use warptrace_codegen::Target;
use warptrace_ir::{AttachPoint, LoopEdge, MemOp, MemSpace, Position, Program};
use warptrace_verifier::structure::LoopSite;

/// One place a probe runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Site {
    /// Index of the probe in the program.
    pub probe: usize,
    /// The instruction the snippet goes before (or after, for `after` probes and
    /// fall-through loop sites); `None` for kernel entry (the entry point).
    pub stmt: Option<usize>,
    /// A loop site: where exactly, and whether it takes a branch's guard.
    pub place: Place,
    /// How many probe sites its snippet stands for: 1, or the sites of a group
    /// (`group.rs`).
    pub stands_for: u32,
}

/// How a site's snippet relates to its statement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    /// The kernel's entry (`stmt` is `None`) or the instruction `stmt` itself: before it,
    /// or after it for `after` probes, guarded by its predicate.
    Instr,
    /// A `loop:` site anchored at `stmt` ([`crate::loops`]).
    Loop(LoopSite),
    /// A `region:` site anchored at `stmt` ([`crate::regions`]).
    Region(RegionSite),
}

impl Place {
    /// A loop or region site's anchor, whether it takes its statement's guard, and the
    /// statement whose `pc`, `file` and `line` it reports (its loop's header's first
    /// instruction, its region's place); `None` for an instruction site.
    pub fn anchored(&self) -> Option<(Anchor, bool, Option<usize>)> {
        match *self {
            Place::Instr => None,
            Place::Loop(l) => Some((l.anchor, l.guarded, l.header_instr)),
            Place::Region(r) => Some((r.anchor, r.guarded, Some(r.place))),
        }
    }
}

pub(crate) use warptrace_ir::KernelFilter;

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
/// asynchronous copies ([`async_copy`]), `async` accesses of the space of their global
/// end (shared for a shared::cta → shared::cluster copy). Parameter and constant
/// accesses, prefetches (`cp.async.bulk.prefetch*`, like `prefetch`) and the group and
/// barrier operations of copies (`cp.async.commit_group`/`wait_group`/`wait_all`,
/// `cp.async.bulk.commit_group`/`wait_group`, `cp.async.mbarrier.arrive`) are not `mem:`
/// sites.
pub(crate) fn mem_site(i: &Instruction) -> Option<(MemSpace, MemOp)> {
    let op = match i.root() {
        "ld" | "ldu" => MemOp::Load,
        "st" => MemOp::Store,
        "atom" | "red" => MemOp::Atomic,
        "cp" => return async_copy(i).map(|c| (c.space, MemOp::Async)),
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

/// The kinds of asynchronous copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CopyKind {
    /// `cp.async.{ca,cg}.shared{::cta}.global`: 4, 8 or 16 bytes per thread.
    PerThread,
    /// `cp.async.bulk.*` / `cp.reduce.async.bulk.*`: a contiguous run of `size` bytes.
    Bulk,
    /// `cp.async.bulk.tensor.*` / `cp.reduce.async.bulk.tensor.*` (TMA): a box of a tensor
    /// described by a tensor map; its size is in the map, not in the instruction.
    Tensor,
}

/// An asynchronous copy that is a `mem:` site.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct AsyncCopy {
    /// The space of its global end: global for global ↔ shared copies, shared for a
    /// shared::cta → shared::cluster copy.
    pub space: MemSpace,
    /// Which kind.
    pub kind: CopyKind,
    /// The operand `addr` reads: the global address (the source of a load into shared
    /// memory, the destination of a store or reduction into global memory), the source
    /// of a shared → shared::cluster copy; for a tensor copy the tensor-map operand
    /// `[map, {coordinates}]`, which is no address.
    pub addr: usize,
    /// The size operand (bytes), except for tensor copies.
    pub size: Option<usize>,
}

/// The asynchronous copy `i` is, if it is one: `cp.async.{ca,cg}.shared{::cta}.global`
/// (global → shared, per thread); `cp.async.bulk.DST.SRC` and `cp.reduce.async.bulk.DST.SRC`
/// with DST.SRC `shared::{cluster,cta}.global`, `global.shared::cta` or
/// `shared::cluster.shared::cta`; and their `.tensor.Nd` forms (TMA).
pub(crate) fn async_copy(i: &Instruction) -> Option<AsyncCopy> {
    if i.root() != "cp" {
        return None;
    }
    let mods: Vec<&str> = i.modifiers().collect();
    let rest = match mods.as_slice() {
        ["async", rest @ ..] => rest,
        ["reduce", "async", rest @ ..] if rest.first() == Some(&"bulk") => rest,
        _ => return None,
    };
    let space = |m: &str| match m.split("::").next().unwrap_or(m) {
        "global" => Some(MemSpace::Global),
        "shared" => Some(MemSpace::Shared),
        _ => None,
    };
    let copy = |space, kind, addr, size| {
        Some(AsyncCopy {
            space,
            kind,
            addr,
            size,
        })
    };
    match rest {
        ["ca" | "cg", dst, src, ..]
            if space(dst) == Some(MemSpace::Shared) && space(src) == Some(MemSpace::Global) =>
        {
            copy(MemSpace::Global, CopyKind::PerThread, 1, Some(2))
        }
        ["bulk", rest @ ..] => {
            let (kind, ends) = match rest {
                ["tensor", dim, ends @ ..] if dim.ends_with('d') => (CopyKind::Tensor, ends),
                _ => (CopyKind::Bulk, rest),
            };
            let [dst, src, ..] = ends else {
                return None;
            };
            let size = (kind == CopyKind::Bulk).then_some(2);
            match (space(dst)?, space(src)?) {
                (MemSpace::Shared, MemSpace::Global) => copy(MemSpace::Global, kind, 1, size),
                (MemSpace::Global, MemSpace::Shared) => copy(MemSpace::Global, kind, 0, size),
                (MemSpace::Shared, MemSpace::Shared) => copy(MemSpace::Shared, kind, 1, size),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The first thing a probe selecting kernel `f` uses that this back end cannot
/// instrument there: `after` on a `loop:` or `region:` point (it has no instruction), or
/// such a point whose sites cannot be placed (a branch target that is not a label in
/// scope, a `brx.idx` back edge or exit, a region in an irreducible cycle; `files` is the
/// module's `.file` table). (Unsupported instructions and positions are
/// found when the probe is lowered at a site.)
pub(crate) fn unsupported(
    program: &Program,
    filter: &KernelFilter,
    f: &Function,
    files: &HashMap<u32, String>,
) -> Option<String> {
    let (mut loops, mut locs) = (None, None);
    program
        .probes
        .iter()
        .enumerate()
        .filter(|&(p, _)| filter.matches(p, &f.name))
        .find_map(|(_, probe)| {
            let a = &probe.attach;
            if !matches!(a.point, AttachPoint::Loop(_) | AttachPoint::Region { .. }) {
                return None;
            }
            if a.position == Position::After {
                return Some(format!(
                    "`after` on attach point {} (it has no instruction)",
                    a.point
                ));
            }
            let body = f.body.as_ref()?;
            let loops = loops.get_or_insert_with(|| crate::loops::analyze(body));
            let l = match loops {
                Err(e) => return Some(format!("attach point {} in `{}`: {e}", a.point, f.name)),
                Ok(l) => l,
            };
            match &a.point {
                AttachPoint::Loop(edge) => l
                    .sites(*edge, &PtxCode(body))
                    .err()
                    .map(|e| format!("attach point {e}")),
                AttachPoint::Region { file, from, to, .. } => {
                    let locs = locs.get_or_insert_with(|| crate::site::positions(body, files).0);
                    let lines = crate::regions::line_instrs(body, locs, file, *from, *to);
                    crate::regions::sites(l, body, &lines)
                        .err()
                        .map(|e| format!("attach point {} in `{}`: {e}", a.point, f.name))
                }
                _ => None,
            }
        })
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

/// A PTX instruction in the classes attach points name (`warptrace_codegen::attach`).
struct Classed<'a> {
    i: &'a Instruction,
    mem: Option<(MemSpace, MemOp)>,
    loc: Option<&'a Loc>,
}

impl Instr for Classed<'_> {
    fn is_exit(&self) -> bool {
        matches!(self.i.root(), "ret" | "exit")
    }
    fn mem(&self) -> Option<(MemSpace, MemOp)> {
        self.mem
    }
    fn is_mma(&self) -> bool {
        is_mma(self.i)
    }
    fn is_barrier(&self) -> bool {
        is_barrier(self.i)
    }
    fn is_branch(&self) -> bool {
        is_conditional_branch(self.i)
    }
    fn opcode(&self) -> &str {
        &self.i.opcode
    }
    fn position(&self) -> Option<(&str, u32)> {
        self.loc.and_then(Loc::position)
    }
}

/// How many instructions of `f` are sites of the instruction-level `point`.
pub(crate) fn count_sites(f: &Function, point: &AttachPoint) -> usize {
    f.body
        .iter()
        .flat_map(|b| &b.stmts)
        .filter(|s| match &s.kind {
            StmtKind::Instr(i) => is_site(
                point,
                Target::Ptx,
                &Classed {
                    i,
                    mem: mem_site(i),
                    loc: None,
                },
            ),
            _ => false,
        })
        .count()
}

/// Why `point` (a `mem:` one) has no site in `f`, if one of its widenings
/// has some: the sentence [`warptrace_codegen::attach::near_miss`] makes.
pub(crate) fn near_miss(f: &Function, point: &AttachPoint) -> Option<String> {
    warptrace_codegen::attach::widenings(point)
        .iter()
        .find_map(|near| {
            let n = count_sites(f, near);
            (n > 0).then(|| warptrace_codegen::attach::near_miss(point, near, n))
        })
}

/// Every site of every applicable probe in `f`, entry sites first, then in text order of
/// the statement each is anchored to (probes in program order at one statement). `files`
/// is the module's `.file` table (for `line:` probes). Loop points whose sites cannot be
/// placed here ([`unsupported`] says why) get none.
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
            place: Place::Instr,
            stands_for: 1,
        })
        .collect();
    let wants_lines = probes.iter().any(|&p| {
        matches!(
            program.probes[p].attach.point,
            AttachPoint::Line { .. } | AttachPoint::Region { .. }
        )
    });
    let locs = if wants_lines {
        crate::site::positions(body, files).0
    } else {
        Vec::new()
    };
    // Loop and region sites per probe, by anchor statement.
    let anchored = anchored_sites(body, program, &probes, &locs);
    for (idx, stmt) in body.stmts.iter().enumerate() {
        let StmtKind::Instr(i) = &stmt.kind else {
            continue;
        };
        let class = Classed {
            i,
            mem: mem_site(i),
            loc: locs.get(idx).and_then(Option::as_ref),
        };
        for &p in &probes {
            let point = &program.probes[p].attach.point;
            if matches!(point, AttachPoint::Loop(_) | AttachPoint::Region { .. }) {
                sites.extend(
                    anchored
                        .iter()
                        .filter(|(q, place)| {
                            *q == p && place.anchored().map(|(a, _, _)| a.stmt()) == Some(idx)
                        })
                        .map(|&(_, place)| Site {
                            probe: p,
                            stmt: Some(idx),
                            place,
                            stands_for: 1,
                        }),
                );
            } else if is_site(point, Target::Ptx, &class) {
                sites.push(Site {
                    probe: p,
                    stmt: Some(idx),
                    place: Place::Instr,
                    stands_for: 1,
                });
            }
        }
    }
    sites
}

/// The loop and region sites of every `loop:` and `region:` probe among `probes`, as
/// (probe, place); none for a probe whose sites cannot be placed (see [`unsupported`]).
/// The body's blocks are cut once, and a region is computed once for its entry and exit
/// probes alike. `locs` are the body's source positions.
fn anchored_sites(
    body: &Body,
    program: &Program,
    probes: &[usize],
    locs: &[Option<crate::site::Loc>],
) -> Vec<(usize, Place)> {
    let mut cfg = None;
    let mut regions: HashMap<(&str, u32, u32), Vec<RegionSite>> = HashMap::new();
    let mut out = Vec::new();
    for &p in probes {
        let point = &program.probes[p].attach.point;
        if !matches!(point, AttachPoint::Loop(_) | AttachPoint::Region { .. }) {
            continue;
        }
        let Ok(cfg) = cfg.get_or_insert_with(|| crate::loops::analyze(body)) else {
            return Vec::new();
        };
        match point {
            AttachPoint::Loop(e) => out.extend(
                cfg.sites(*e, &PtxCode(body))
                    .unwrap_or_default()
                    .into_iter()
                    .map(|s| (p, Place::Loop(s))),
            ),
            AttachPoint::Region {
                end,
                file,
                from,
                to,
            } => {
                let sites = regions.entry((file, *from, *to)).or_insert_with(|| {
                    let lines = crate::regions::line_instrs(body, locs, file, *from, *to);
                    crate::regions::sites(cfg, body, &lines).unwrap_or_default()
                });
                out.extend(
                    sites
                        .iter()
                        .filter(|s| s.end == *end)
                        .map(|&s| (p, Place::Region(s))),
                );
            }
            _ => {}
        }
    }
    out
}

/// How `-l` describes a site: the statement's text, and for a loop site which loop point
/// of which loop (by its header's label) and where relative to the statement.
pub(crate) fn describe(site: &Site, body: &Body, loops: Option<&Loops>) -> String {
    let Some(stmt) = site.stmt.and_then(|i| body.stmts.get(i)) else {
        return "<entry>".into();
    };
    let text = stmt.text.trim();
    if let Place::Region(r) = site.place {
        let end = r.end.name();
        return match (r.anchor, r.guarded) {
            (Anchor::After(_), _) => format!("region {end}: after `{text}`"),
            (_, true) => format!("region {end}: `{text}` when it transfers control"),
            (_, false) => format!("region {end}: before `{text}`"),
        };
    }
    let Place::Loop(l) = site.place else {
        return text.to_string();
    };
    let header = loops.map_or_else(
        || "?".into(),
        |ls| crate::loops::block_name(ls, l.header, body),
    );
    let what = match l.edge {
        LoopEdge::Header => "header",
        LoopEdge::Backedge => "back edge",
        LoopEdge::Exit => "exit",
    };
    match (l.anchor, l.guarded) {
        (Anchor::After(_), _) => {
            format!("loop {header} {what}: after `{text}` (fall-through)")
        }
        (_, true) => format!("loop {header} {what}: `{text}` when taken"),
        (_, false) => format!("loop {header} {what}: before `{text}`"),
    }
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
            "cp.async.mbarrier.arrive.shared.b64 [%r1];",
            "cp.async.bulk.commit_group;",
            "cp.async.bulk.wait_group.read 0;",
            "cp.async.bulk.prefetch.L2.global [%rd20], 4096;",
            "cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%rd8, {%r17, %r2}];",
        ] {
            assert_eq!(site(t), None, "{t}");
        }
    }

    #[test]
    fn bulk_and_tensor_copies_are_async_sites_of_their_global_end() {
        use CopyKind::*;
        use MemSpace::*;
        let copy = |t: &str| async_copy(&parse_instruction(t).expect("parses"));
        let c = |space, kind, addr, size| {
            Some(AsyncCopy {
                space,
                kind,
                addr,
                size,
            })
        };
        let cases = [
            // global → shared: the source is the global end.
            (
                "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r15], [%rd10], %r19, [%r17];",
                c(Global, Bulk, 1, Some(2)),
            ),
            (
                "@%p1 cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes.L2::cache_hint [%r1], [%rd1], 256, [%r2], %rd9;",
                c(Global, Bulk, 1, Some(2)),
            ),
            // shared → global, and the reduction into global memory: the destination.
            (
                "cp.async.bulk.global.shared::cta.bulk_group [%rd16], [%r28], %r31;",
                c(Global, Bulk, 0, Some(2)),
            ),
            (
                "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%rd3], [%r28], %r31;",
                c(Global, Bulk, 0, Some(2)),
            ),
            // shared::cta → shared::cluster (distributed shared memory): the source.
            (
                "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%r13], [%r7], %r15, [%r16];",
                c(Shared, Bulk, 1, Some(2)),
            ),
            (
                "cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.add.u32 [%r1], [%r2], 64, [%r3];",
                c(Shared, Bulk, 1, Some(2)),
            ),
            // TMA: the tensor-map operand, no size operand.
            (
                "@%p2 cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r2], [%rd1, {%r3, %r4}], [%r1];",
                c(Global, Tensor, 1, None),
            ),
            (
                "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd10, {%r1, %r2}], [%r27];",
                c(Global, Tensor, 0, None),
            ),
            (
                "cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%rd11, {%r1, %r2}], [%r27];",
                c(Global, Tensor, 0, None),
            ),
            (
                "cp.async.cg.shared.global [%r1], [%rd1], 16;",
                c(Global, PerThread, 1, Some(2)),
            ),
        ];
        for (t, want) in cases {
            assert_eq!(copy(t), want, "{t}");
            assert_eq!(site(t), want.map(|c| (c.space, MemOp::Async)), "{t}");
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
    }
}
