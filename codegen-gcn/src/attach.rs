//! Attach-point matching: which statements of a kernel each probe runs at. Whether an
//! instruction is a site of an instruction-level point is decided by
//! `warptrace_codegen::attach::is_site` (as for PTX) from the classes this file puts a
//! GCN instruction in (`Classed`, the table's second column); the entry, loop and region
//! points are placed here.
//!
//! | attach point | GCN sites |
//! |---|---|
//! | `kernel:entry` | the entry point (after the prologue) |
//! | `kernel:exit` | before every `s_endpgm` |
//! | `mem:SPACE:OP` | `global_*` (global), `flat_*` (generic), `ds_*` (shared), `scratch_*` and `buffer_*` through the private segment buffer (local), other `buffer_*` (global); loads, stores, atomics (LDS read-modify-writes included). Scalar loads (`s_load*`, the kernarg segment and uniform data) are no `mem:` sites; `gcn:s_load*` reaches them |
//! | `tensor:mma` | `v_mfma*`, `v_smfmac*`, `v_wmma*`, `v_swmmac*` |
//! | `sync:barrier` | `s_barrier` |
//! | `branch` | `s_cbranch_*` |
//! | `line:FILE:A-B` | instructions whose nearest preceding `.loc` is in the range, of a `.file` whose path ends with FILE |
//! | `gcn:GLOB` | the mnemonic (encoding suffix included, `v_add_u32_e32`) matches the glob |
//! | `loop:header`, `loop:backedge`, `loop:exit` | natural loops (`loops.rs`): the header block's first instruction; each back edge and exit at its branch, for the lanes that take it (a masked loop's latch: before its `s_andn2 exec, exec, X`) |
//! | `region:entry/exit:FILE:A-B` | the region around the instructions of those lines (`warptrace_verifier::structure::region_sites`, decision 0017), each end placed as a loop edge is: at a conditional branch for the lanes that take the edge (`loops.rs`) |

use crate::insn::{facts, Isa};
use crate::loops::{self, Lanes};
use crate::parse::{Instruction, Kernel, Module, StmtKind};
use std::collections::HashMap;
use warptrace_codegen::attach::{in_lines, is_site, Instr};
use warptrace_codegen::Target;
use warptrace_ir::{AttachPoint, MemOp, MemSpace, Program};
use warptrace_verifier::{Access, Space};

/// One place a probe runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Site {
    /// Index of the probe in the program.
    pub probe: usize,
    /// The statement the snippet goes before (after, for `after` probes); `None` for
    /// kernel entry.
    pub stmt: Option<usize>,
    /// A loop point's snippet on the fall-through path after `stmt`.
    pub after: bool,
    /// The lanes of `exec` a loop point's snippet runs for (`None`: all of them).
    pub lanes: Option<Lanes>,
    /// A loop point's header instruction, whose `pc`, `file` and `line` it reports.
    pub ident: Option<usize>,
}

impl Site {
    /// A site at a statement (or the entry), for the lanes in `exec`.
    fn at(probe: usize, stmt: Option<usize>) -> Site {
        Site {
            probe,
            stmt,
            after: false,
            lanes: None,
            ident: None,
        }
    }
}

pub(crate) use warptrace_ir::KernelFilter;

/// The `mem:` classification of a memory access.
pub(crate) fn mem_site(space: Space, access: Access) -> Option<(MemSpace, MemOp)> {
    let space = match space {
        Space::Global => MemSpace::Global,
        Space::Shared => MemSpace::Shared,
        Space::Local => MemSpace::Local,
        Space::Generic => MemSpace::Generic,
        Space::Param | Space::Const => return None,
    };
    let op = match access {
        Access::Load => MemOp::Load,
        Access::Store => MemOp::Store,
        Access::Atomic => MemOp::Atomic,
    };
    Some((space, op))
}

/// Whether a matrix instruction.
pub(crate) fn is_mma(m: &str) -> bool {
    ["v_mfma", "v_smfmac", "v_wmma", "v_swmmac"]
        .iter()
        .any(|p| m.starts_with(p))
}

/// A GCN instruction in the classes attach points name (`warptrace_codegen::attach`).
struct Classed<'a> {
    x: &'a Instruction,
    isa: &'a Isa,
    position: Option<(&'a str, u32)>,
}

impl Instr for Classed<'_> {
    fn is_exit(&self) -> bool {
        self.x.mnemonic.starts_with("s_endpgm")
    }
    fn mem(&self) -> Option<(MemSpace, MemOp)> {
        facts(self.x, self.isa)
            .mem
            .and_then(|a| mem_site(a.space, a.access))
    }
    fn is_mma(&self) -> bool {
        is_mma(&self.x.mnemonic)
    }
    fn is_barrier(&self) -> bool {
        self.x.mnemonic == "s_barrier"
    }
    fn is_branch(&self) -> bool {
        self.x.mnemonic.starts_with("s_cbranch")
    }
    fn opcode(&self) -> &str {
        &self.x.mnemonic
    }
    fn position(&self) -> Option<(&str, u32)> {
        self.position
    }
}

/// The `.file` table: number → path (directory and name joined).
pub(crate) fn file_table(module: &Module) -> HashMap<u32, String> {
    let mut files = HashMap::new();
    for s in &module.stmts {
        let StmtKind::Directive { name, args } = &s.kind else {
            continue;
        };
        if name != ".file" {
            continue;
        }
        let mut words = args.split_whitespace();
        let Some(n) = words.next().and_then(|w| w.parse::<u32>().ok()) else {
            continue;
        };
        let strings: Vec<&str> = args.split('"').skip(1).step_by(2).take(2).collect();
        let path = match strings.as_slice() {
            [dir, name] => format!("{dir}/{name}"),
            [name] => (*name).to_owned(),
            _ => continue,
        };
        files.insert(n, path);
    }
    files
}

/// The `(file number, line)` of the nearest `.loc` at or before each statement of the
/// body (None before the first).
pub(crate) fn locs(module: &Module, k: &Kernel) -> Vec<Option<(u32, u32)>> {
    let mut cur = None;
    k.body
        .clone()
        .map(|i| {
            if let StmtKind::Directive { name, args } = &module.stmts[i].kind {
                if name == ".loc" {
                    let mut w = args.split_whitespace();
                    if let (Some(f), Some(l)) = (
                        w.next().and_then(|x| x.parse().ok()),
                        w.next().and_then(|x| x.parse().ok()),
                    ) {
                        cur = Some((f, l));
                    }
                }
            }
            cur
        })
        .collect()
}

/// Adds probe `p`'s loop or region places to `sites`, or keeps why they cannot be placed
/// (the first reason of the kernel).
fn add_places(
    p: usize,
    placed: Result<Vec<loops::Place>, String>,
    sites: &mut Vec<Site>,
    unplaced: &mut Option<String>,
) {
    match placed {
        Ok(places) => sites.extend(places.into_iter().map(|pl| Site {
            probe: p,
            stmt: Some(pl.stmt),
            after: pl.after,
            lanes: pl.lanes,
            ident: Some(pl.ident),
        })),
        Err(why) => {
            unplaced.get_or_insert(why);
        }
    }
}

/// Every site of every probe of `program` in kernel `k`, in probe then text order, and
/// why a probe selecting the kernel cannot be placed in it (`region:` points, a loop edge
/// whose lanes are not known).
pub(crate) fn find_sites(
    module: &Module,
    k: &Kernel,
    isa: &Isa,
    program: &Program,
    filter: &KernelFilter,
) -> (Vec<Site>, Option<String>) {
    let files = file_table(module);
    let locs = locs(module, k);
    // The path and line of the `n`th statement of the body.
    let position =
        |n: usize| locs[n].and_then(|(f, l)| files.get(&f).map(|path| (path.as_str(), l)));
    let mut sites = Vec::new();
    let mut unplaced = None;
    let mut cfg = None;
    // Kernarg preloading's compatibility code (the kernel's first 256 bytes, which
    // hardware that preloads skips) runs, where it runs at all, before the entry point and
    // the prologue that loads the map argument: none of its instructions is a site or a
    // line of a region.
    let preload = k
        .field(".amdhsa_user_sgpr_kernarg_preload_length")
        .unwrap_or(0)
        > 0;
    let entry = crate::plan::entry_point(module, k, preload);
    let before_entry = |i: usize| {
        entry
            .as_ref()
            .is_ok_and(|&at| module.line_start(module.stmts[i].line) < at)
    };
    for (p, probe) in program.probes.iter().enumerate() {
        if !filter.matches(p, &k.name) {
            continue;
        }
        if matches!(probe.attach.point, AttachPoint::KernelEntry) {
            sites.push(Site::at(p, None));
            continue;
        }
        match probe.attach.point {
            AttachPoint::Loop(edge) => {
                let cfg = cfg.get_or_insert_with(|| loops::analyze(module, k, isa));
                let placed = cfg
                    .as_ref()
                    .map_err(Clone::clone)
                    .and_then(|l| loops::places(module, k, isa, l, edge));
                add_places(p, placed, &mut sites, &mut unplaced);
                continue;
            }
            AttachPoint::Region {
                end,
                ref file,
                from,
                to,
            } => {
                if let Err(e) = &entry {
                    unplaced.get_or_insert(e.to_string());
                    continue;
                }
                let lines: std::collections::BTreeSet<usize> = k
                    .body
                    .clone()
                    .enumerate()
                    .filter(|&(n, i)| {
                        module.instr(i).is_some()
                            && !before_entry(i)
                            && in_lines(position(n), file, from, to)
                    })
                    .map(|(_, i)| i)
                    .collect();
                let cfg = cfg.get_or_insert_with(|| loops::analyze(module, k, isa));
                let placed = cfg
                    .as_ref()
                    .map_err(Clone::clone)
                    .and_then(|l| loops::region_places(module, k, isa, l, &lines, end));
                add_places(p, placed, &mut sites, &mut unplaced);
                continue;
            }
            _ => {}
        }
        for (n, i) in k.body.clone().enumerate() {
            let Some(x) = module.instr(i).filter(|_| !before_entry(i)) else {
                continue;
            };
            let class = Classed {
                x,
                isa,
                position: position(n),
            };
            if is_site(&probe.attach.point, Target::Gcn, &class) {
                sites.push(Site::at(p, Some(i)));
            }
        }
    }
    (sites, unplaced)
}
