//! What one firing of a probe executes: the longest path through its snippet as spliced
//! ([`measure`]), and the most any site of any target may cost ([`probe_costs`]).
//!
//! A snippet's branches are forward (a skip to its end: `hashmap.rs`, `array.rs`,
//! `warp_access.rs`) but for the back branches of its bounded loops (`model.rs`: a
//! division's counted loop, a waterfall), so the path that takes no forward branch runs
//! every instruction and is the longest; each instruction of a loop's round counts once
//! per round the loop may run (its count, or the wave's lanes for a waterfall).

use crate::alloc::Alloc;
use crate::emit::Target;
use crate::insn::{facts, Isa};
use crate::loops::Lanes;
use crate::lower::{
    hazard_frame, unpadded, unsupported, Cx, Field, GridFields, KernelRegs, Needs, SiteInfo, PREFIX,
};
use crate::model::bounded_loops;
use crate::parse::{parse, StmtKind};
use crate::Error;
use warptrace_ir::{AttachPoint, LoopEdge, MapLayout, Position};
use warptrace_verifier::{Access, Flow, Origin, ProbeCost, VerifiedProgram};

/// One snippet's longest path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SnippetCost {
    /// Index of the probe in the program.
    pub probe: usize,
    /// Instructions on the longest path.
    pub insns: u64,
    /// Atomics on that path.
    pub atomics: u64,
}

/// (instructions, atomics) on the longest path of snippet `text` for `isa`.
pub(crate) fn measure(text: &str, isa: &Isa) -> Result<(u64, u64), Error> {
    let m = parse(text)?;
    let loops = bounded_loops(
        &m,
        0..m.stmts.len(),
        &|_| Origin::Inserted { snippet: 1 },
        isa,
    );
    let (mut insns, mut atomics) = (0, 0);
    for (i, stmt) in m.stmts.iter().enumerate() {
        let StmtKind::Instr(x) = &stmt.kind else {
            continue;
        };
        let f = facts(x, isa);
        if let Flow::Branch { target, .. } = &f.flow {
            let backward = m.stmts[..=i]
                .iter()
                .any(|s| matches!(&s.kind, StmtKind::Label(l) if l.as_str() == target.as_str()));
            if backward && !loops.iter().any(|l| l.branch == i) {
                return Err(unsupported(format!(
                    "a snippet's back branch `{}` that is no bounded loop",
                    m.stmt_text(i)
                )));
            }
        }
        let rounds = loops
            .iter()
            .find(|l| l.label < i && i <= l.branch)
            .map_or(1, |l| l.rounds);
        insns += rounds;
        if f.mem.as_ref().is_some_and(|a| a.access == Access::Atomic) {
            atomics += rounds;
        }
    }
    Ok((insns, atomics))
}

/// The processors [`probe_costs`] lowers for, with their wave sizes: the gfx9 and gfx10+
/// mnemonic families, wave64 and wave32, packed and separate work-item ids, `sc0`/`sc1`
/// and `glc` (the lowering differs between them in these only).
const TARGETS: &[(&str, u32)] = &[
    ("gfx90a", 64),
    ("gfx942", 64),
    ("gfx1030", 32),
    ("gfx1100", 32),
];

/// The instructions [`probe_costs`] probes: each kind of access (load, store, returning
/// atomic; global with `saddr` or a 64-bit address, through a buffer descriptor with an
/// SGPR scalar offset, LDS), with an offset, and one that accesses no memory.
const SITES: &[&str] = &[
    "global_load_dword v3, v1, s[2:3] offset:16",
    "global_store_dword v1, v2, s[2:3] offset:16",
    "global_atomic_add_x2 v[4:5], v1, v[2:3], s[2:3] offset:16 glc",
    "global_load_dwordx4 v[4:7], v[0:1], off offset:16",
    "global_store_dwordx4 v[0:1], v[4:7], off offset:16",
    "global_atomic_add_x2 v[4:5], v[0:1], v[2:3], off offset:16 glc",
    "buffer_load_dword v3, v1, s[4:7], s2 offen offset:16",
    "buffer_store_dword v1, v1, s[4:7], s2 offen offset:16",
    "buffer_atomic_add_x2 v[4:5], v1, s[4:7], s2 offen offset:16 glc",
    "ds_read_b32 v3, v1 offset:16",
    "ds_write_b32 v1, v2 offset:16",
    "s_barrier",
];

/// The most device instructions and atomics one firing of each probe of `program` may
/// execute on GCN: the longest path ([`measure`]) of the snippet this back end makes for
/// the probe at each of [`SITES`] (and at a site with no instruction) on each of
/// [`TARGETS`] with each launch state that changes a snippet, the largest. A site's
/// cost depends only on its kind — a `kernel:exit`'s launch mask, a loop edge's lanes
/// (the costliest narrowing is taken), the access's form and width — and on the target
/// and the kernel's launch state, so these reference sites bound every real one; the
/// corpus tests check it (`tests/tests/gcn_cost.rs`). Keys are folded as at each site;
/// a map probes its home slot only where every kernel's would (`HomeSlots::certain`),
/// otherwise the eight slots a kernel whose keys collide tries. A probe this back end lowers at
/// none of them, which no kernel would run, keeps the target-independent estimate of
/// [`warptrace_verifier::probe_costs`].
pub fn probe_costs(program: &VerifiedProgram) -> Vec<ProbeCost> {
    let program = program.program();
    let layout = MapLayout::new(&program.maps);
    let sites: Vec<crate::parse::Module> = SITES.iter().filter_map(|t| parse(t).ok()).collect();
    let mut costs = warptrace_verifier::probe_costs(program);
    let mut lowered: Vec<Option<(u64, u64)>> = vec![None; program.probes.len()];
    // Most sites and launch states give a probe the same snippet: each text is padded
    // for its hazards and measured once (the padding depends on the text and the
    // processor: the kernel's registers lie below 16 in every reference).
    let mut measured: std::collections::HashMap<(String, &str), (u64, u64)> = Default::default();
    // The kernels' launch states that change a snippet: the work-item ids the hardware
    // gives (fewer: an array save checks the others' sizes; more: the linear index
    // takes them in), the workgroup ids enabled (an array save checks the others').
    let launches = (0..3).flat_map(|dims| [(dims, [true; 3]), (dims, [true, false, false])]);
    let configs = TARGETS
        .iter()
        .flat_map(|&t| launches.clone().map(move |l| (t, l)));
    // Home slots only where every kernel has them, whatever its sites.
    let home = warptrace_ir::placement::HomeSlots::certain(program);
    for ((processor, wave), (workitem_dims, ids)) in configs {
        let isa = Isa::new(processor, wave, None);
        let t = Target::of(processor, &isa);
        let mut alloc = Alloc::new(16, 16);
        let needs = Needs::of(&program.probes, workitem_dims, ids);
        let regs = KernelRegs::allocate(&mut alloc, program, needs, t);
        let mut field = || {
            Some(Field {
                reg: alloc.sgprs(1),
                shift: 16,
                bits: 16,
            })
        };
        let grid = GridFields {
            ntid: [field(), field(), field()],
            nctaid: [field(), field(), field()],
        };
        let cx = Cx {
            program,
            layout: &layout,
            t,
            regs: &regs,
            kernel_id: 1,
            workitem_dims,
            grid,
            packed_tid: t.packed_tid(processor),
            // Home slots only where every kernel has them; elsewhere a kernel whose keys
            // collide probes eight slots, the most.
            home: &home,
            // Combined updates as the program's analysis decides them, whatever the
            // environment says: a combined update is the longer snippet.
            combining: crate::Combining::Uniform,
        };
        for (p, probe) in program.probes.iter().enumerate() {
            let base = SiteInfo {
                pc: 1,
                file: 1,
                line: 1,
                located: true,
                after: probe.attach.position == Position::After,
                exit: probe.attach.point == AttachPoint::KernelExit,
                lanes: matches!(
                    probe.attach.point,
                    AttachPoint::Loop(LoopEdge::Exit | LoopEdge::Backedge)
                )
                .then_some(Lanes::VccZero(true)),
                ..SiteInfo::default()
            };
            let mut variants = vec![base.clone()];
            for m in &sites {
                if let Some(x) = m.instr(0) {
                    let mut site = base.clone();
                    site.instruction(x, &isa);
                    variants.push(site);
                }
            }
            let labels = format!(".L{PREFIX}cost_{p}");
            for site in &variants {
                let Ok(text) = unpadded(&cx, probe, site, &labels) else {
                    continue;
                };
                let key = (text, processor);
                let (insns, atomics) = match measured.get(&key) {
                    Some(&m) => m,
                    None => {
                        let padded = crate::hazard::pad(&key.0, &hazard_frame(&cx), t.gfx11);
                        let Ok(m) = padded.and_then(|p| measure(&p, &isa)) else {
                            continue;
                        };
                        measured.insert(key, m);
                        m
                    }
                };
                let best = lowered[p].get_or_insert((0, 0));
                *best = (best.0.max(insns), best.1.max(atomics));
            }
        }
    }
    for (c, l) in costs.iter_mut().zip(lowered) {
        if let Some((insns, atomics)) = l {
            c.device_insns = insns;
            c.atomics = atomics;
        }
    }
    costs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn isa(wave: u32) -> Isa {
        Isa::new(if wave == 64 { "gfx942" } else { "gfx1100" }, wave, None)
    }

    fn snippet_of(lines: &[&str]) -> String {
        lines.iter().map(|l| format!("{l}\n")).collect()
    }

    #[test]
    fn a_counted_loop_counts_each_of_its_rounds() {
        let text = snippet_of(&[
            "\ts_mov_b32 s10, 5",
            ".Lx:",
            "\tv_add_u32_e32 v1, 1, v1",
            "\tglobal_atomic_add v6, v7, s[16:17]",
            "\ts_sub_u32 s10, s10, 1",
            "\ts_cmp_lg_u32 s10, 0",
            "\ts_cbranch_scc1 .Lx",
            "\ts_nop 0",
        ]);
        assert_eq!(measure(&text, &isa(64)).ok(), Some((1 + 5 * 5 + 1, 5)));
    }

    #[test]
    fn a_waterfall_counts_a_round_per_lane_of_the_wave() {
        let round = |wave: u32| {
            let (mask, exec) = if wave == 64 {
                ("b64", "exec")
            } else {
                ("b32", "exec_lo")
            };
            let pair = |a: u32| {
                if wave == 64 {
                    format!("s[{a}:{}]", a + 1)
                } else {
                    format!("s{a}")
                }
            };
            snippet_of(&[
                "\ts_cbranch_execz .Ldone",
                ".Lw:",
                "\tv_readfirstlane_b32 s10, v4",
                "\tv_readfirstlane_b32 s11, v5",
                &format!("\tv_cmp_eq_u64_e64 {}, s[10:11], v[4:5]", pair(12)),
                &format!("\ts_mov_{mask} {}, {exec}", pair(14)),
                "\ts_add_u32 s18, s18, 1",
                &format!("\ts_andn2_{mask} {exec}, {}, {}", pair(14), pair(12)),
                "\ts_cbranch_execnz .Lw",
                ".Ldone:",
            ])
        };
        assert_eq!(measure(&round(64), &isa(64)).ok(), Some((1 + 64 * 7, 0)));
        assert_eq!(measure(&round(32), &isa(32)).ok(), Some((1 + 32 * 7, 0)));
    }

    #[test]
    fn forward_branches_are_not_taken_and_other_back_branches_are_refused() {
        let skip = snippet_of(&[
            "\ts_cbranch_scc1 .Ldone",
            "\tv_mov_b32_e32 v1, 0",
            "\tglobal_atomic_add v6, v7, s[16:17]",
            ".Ldone:",
            "\ts_nop 0",
        ]);
        assert_eq!(measure(&skip, &isa(64)).ok(), Some((4, 1)));
        let spin = snippet_of(&[".Lb:", "\tv_mov_b32_e32 v1, 0", "\ts_cbranch_scc1 .Lb"]);
        let err = measure(&spin, &isa(64)).map_err(|e| e.to_string());
        assert!(
            err.as_ref().is_err_and(|e| e.contains("no bounded loop")),
            "{err:?}"
        );
    }

    fn bound(probe: &str) -> ProbeCost {
        let program =
            warptrace_lang::compile(probe, "cost.wt").unwrap_or_else(|e| panic!("{}", e.render()));
        let verified = warptrace_verifier::verify_program(&program).expect("verifies");
        probe_costs(&verified).remove(0)
    }

    #[test]
    fn the_bound_runs_a_division_s_rounds_and_a_waterfall_s_lanes() {
        let by_four = bound("kernel:entry { @d[kernel] = sum((u64)tid.x / 4); }");
        let by_three = bound("kernel:entry { @d[kernel] = sum((u64)tid.x / 3); }");
        // 64 rounds of at least 14 instructions where a shift did.
        assert!(
            by_three.device_insns >= by_four.device_insns + 64 * 13,
            "{by_three:?} {by_four:?}"
        );
        let bytes = bound("mem:global:load { @s[kernel] = sum(bytes); }");
        let sectors = bound("mem:global:load { @s[kernel] = sum(sectors); }");
        // A wave64 waterfall: 64 rounds of at least 6.
        assert!(
            sectors.device_insns >= bytes.device_insns + 64 * 6,
            "{sectors:?} {bytes:?}"
        );
        assert_eq!(sectors.atomics, bytes.atomics);
    }
}
