//! Natural loops of a kernel body and the places of the `loop:header`, `loop:backedge` and
//! `loop:exit` snippets.
//!
//! **Blocks.** The body (from the kernel's label) is cut into basic blocks: a label starts
//! a block unless the block it would end has no instruction yet; `s_branch`, every
//! `s_cbranch_*`, `s_endpgm`, `s_setpc` and traps end one. An `s_branch` has one successor,
//! an `s_cbranch_*` two (its target when taken, the next block when not), `s_endpgm`,
//! `s_setpc` and traps none. Loops come from `warptrace_verifier::structure`, shared with
//! the PTX back end.
//!
//! **Which lanes take an edge.** PTX's lanes take a branch each on their own; a wave takes
//! one, and LLVM lowers divergent control flow to uniform branches over an `exec` it
//! narrows. So an edge is placed by what its branch tests (decision 0018):
//!
//! | branch | the snippet of its taken edge / its fall-through edge runs for |
//! |---|---|
//! | `s_branch`, no branch | the lanes in `exec` |
//! | `s_cbranch_scc0/1`, `s_cbranch_vccz/nz` (a uniform condition) | taken: `exec` when the condition holds, no lane otherwise (`exec` is narrowed by `s_cselect` of the saved condition); fall-through: `exec` (after the branch the condition is known false) |
//! | `s_cbranch_execnz H` right after `s_andn2 exec, exec, X` (a masked loop's latch) | both before the `s_andn2`: taken (lanes going on) `exec & ~X`; fall-through (lanes leaving) `exec & X` |
//! | `s_cbranch_execz T` right after `s_andn2 exec, exec, X` | taken (leaving) `exec & X`; fall-through (going on) `exec & ~X` |
//! | another `s_cbranch_execnz` / `execz` | the edge taken with lanes: `exec` at the branch; the edge taken with none: unsupported |
//!
//! In a masked loop every lane leaves in the iteration its bit leaves `exec`, though the
//! wave goes on until the last does: a lane's exit snippet runs at that iteration's latch,
//! and at the CFG's exit edge, where `exec` is zero, nothing runs.

use crate::insn::{facts, Isa};
use crate::parse::{Kernel, Module, StmtKind};
use crate::reg::{Reg, RegFile};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use warptrace_ir::LoopEdge;
use warptrace_verifier::structure::{Anchor, Block, Code, Edge, EdgeKind, Loops};
use warptrace_verifier::Flow;

/// Which of the lanes in `exec` a snippet runs for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lanes {
    /// `exec & X`.
    Keep(Reg),
    /// `exec & ~X`.
    Drop(Reg),
    /// All of `exec` when `scc` is this value, none otherwise.
    Scc(bool),
    /// All of `exec` when `vcc == 0` is this value, none otherwise.
    VccZero(bool),
    /// `D & ~exec` right after `s_and_saveexec D, X` of an `if` that runs to `s_endpgm`
    /// ([`returning_if`]): the lanes it leaves out, which return there.
    Returned(Reg),
}

/// Where one loop snippet goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Place {
    /// The instruction the snippet is placed at.
    pub stmt: usize,
    /// After it (on its fall-through path) rather than before.
    pub after: bool,
    /// The lanes it runs for (`None`: `exec`).
    pub lanes: Option<Lanes>,
    /// The loop header's first instruction: the `pc`, `file` and `line` it reports.
    pub ident: usize,
}

struct GcnCode<'a> {
    module: &'a Module,
    isa: &'a Isa,
}

impl GcnCode<'_> {
    fn flow(&self, s: usize) -> Option<Flow> {
        self.module.instr(s).map(|x| facts(x, self.isa).flow)
    }
}

impl Code for GcnCode<'_> {
    fn ends_block(&self, s: usize) -> bool {
        matches!(
            self.flow(s),
            Some(Flow::Branch { .. } | Flow::Exit | Flow::Trap)
        )
    }

    fn leaves(&self, s: usize) -> bool {
        matches!(self.flow(s), Some(Flow::Exit | Flow::Trap))
    }

    fn guarded(&self, s: usize) -> bool {
        matches!(
            self.flow(s),
            Some(Flow::Branch {
                conditional: true,
                ..
            })
        )
    }

    fn describe(&self, s: usize) -> String {
        format!(
            "`{}` (line {})",
            self.module.stmt_text(s),
            self.module.stmts[s].line
        )
    }
}

/// The blocks, edges and natural loops of kernel `k`'s body. An error names a branch
/// whose target is not a label of the body.
pub(crate) fn analyze(module: &Module, k: &Kernel, isa: &Isa) -> Result<Loops, String> {
    let code = GcnCode { module, isa };
    let mut blocks: Vec<Block> = Vec::new();
    let mut cur: Option<Block> = None;
    for i in k.body.clone() {
        let stmt = &module.stmts[i];
        let is_label = matches!(stmt.kind, StmtKind::Label(_));
        if is_label && cur.as_ref().is_some_and(|b| b.first_instr.is_some()) {
            blocks.extend(cur.take());
        }
        let b = cur.get_or_insert_with(|| Block {
            start: i,
            end: i,
            labels: Vec::new(),
            first_instr: None,
            last_instr: None,
        });
        b.end = i + 1;
        match &stmt.kind {
            StmtKind::Label(_) => b.labels.push(i),
            StmtKind::Instr(_) => {
                b.first_instr.get_or_insert(i);
                b.last_instr = Some(i);
                if code.ends_block(i) {
                    blocks.extend(cur.take());
                }
            }
            StmtKind::Directive { .. } => {}
        }
    }
    blocks.extend(cur);
    let mut label_block: HashMap<&str, usize> = HashMap::new();
    for (n, b) in blocks.iter().enumerate() {
        for &l in &b.labels {
            if let StmtKind::Label(name) = &module.stmts[l].kind {
                label_block.entry(name.as_str()).or_insert(n);
            }
        }
    }
    let mut edges = Vec::new();
    for (n, b) in blocks.iter().enumerate() {
        let next = (n + 1 < blocks.len()).then_some(n + 1);
        let Some(last) = b.last_instr else {
            if let Some(to) = next {
                edges.push(Edge {
                    from: n,
                    to,
                    kind: EdgeKind::FallThrough(b.labels.last().copied().unwrap_or(b.start)),
                });
            }
            continue;
        };
        let falls = match code.flow(last) {
            Some(Flow::Branch {
                target,
                conditional,
            }) => {
                let to = *label_block.get(target.as_str()).ok_or_else(|| {
                    format!(
                        "branch target `{}` of {} is not a label of the kernel",
                        target.as_str(),
                        code.describe(last)
                    )
                })?;
                edges.push(Edge {
                    from: n,
                    to,
                    kind: EdgeKind::Taken(last),
                });
                conditional
            }
            Some(Flow::Exit | Flow::Trap) => false,
            _ => true,
        };
        if let (true, Some(to)) = (falls, next) {
            edges.push(Edge {
                from: n,
                to,
                kind: EdgeKind::FallThrough(last),
            });
        }
    }
    Ok(Loops::new(blocks, edges))
}

/// The places of loop point `edge`'s snippets in kernel `k`, loop by loop. An error says
/// why an edge cannot be placed.
pub(crate) fn places(
    module: &Module,
    k: &Kernel,
    isa: &Isa,
    loops: &Loops,
    edge: LoopEdge,
) -> Result<Vec<Place>, String> {
    let code = GcnCode { module, isa };
    let mut out = Vec::new();
    for site in loops.sites(edge, &code)? {
        let ident = site
            .header_instr
            .ok_or_else(|| "a loop header without instructions".to_string())?;
        let (stmt, taken) = match site.anchor {
            Anchor::Before(s) => (s, true),
            Anchor::After(s) => (s, false),
        };
        let branch = module
            .instr(stmt)
            .filter(|x| x.mnemonic.starts_with("s_cbranch_"));
        let place = match (edge, branch) {
            (LoopEdge::Header, _) | (_, None) => Place {
                stmt,
                after: !taken,
                lanes: None,
                ident,
            },
            (_, Some(x)) => {
                let cond = &x.mnemonic["s_cbranch_".len()..];
                branch_place(module, k, stmt, cond, taken, ident).map_err(|why| {
                    format!("loop:{} at {}: {why}", edge.name(), code.describe(stmt))
                })?
            }
        };
        out.push(place);
    }
    Ok(out)
}

/// The places of the `end` snippets of the source-line region of `lines` (statement
/// indices of the body's instructions on those lines) in kernel `k`: the region of
/// `warptrace_verifier::structure::region_sites` (decision 0017), each end placed as a
/// loop edge is — an edge at a conditional branch for the lanes that take it, so a
/// masked loop's exit runs for each lane in the iteration it leaves (decision 0018). Both
/// ends report the region's place. An error says why the region cannot be placed.
pub(crate) fn region_places(
    module: &Module,
    k: &Kernel,
    isa: &Isa,
    loops: &Loops,
    lines: &std::collections::BTreeSet<usize>,
    end: warptrace_ir::RegionEnd,
) -> Result<Vec<Place>, String> {
    let code = GcnCode { module, isa };
    let sites = warptrace_verifier::structure::region_sites(loops, &code, lines)?;
    let branch = |stmt: usize| {
        module
            .instr(stmt)
            .filter(|x| x.mnemonic.starts_with("s_cbranch_"))
            .map(|x| x.mnemonic["s_cbranch_".len()..].to_owned())
    };
    let mut placed = Vec::new();
    for s in sites {
        let ident = s.place;
        let stmt = s.anchor.stmt();
        let place = match (s.anchor, s.guarded, branch(stmt)) {
            // An edge: the branch's taken edge, or its fall-through after it.
            (Anchor::Before(_), true, Some(cond)) => {
                branch_place(module, k, stmt, &cond, true, ident)
            }
            (Anchor::After(_), _, Some(cond)) => branch_place(module, k, stmt, &cond, false, ident),
            (Anchor::Before(_), true, None) => Err("a guarded place that is no branch".into()),
            // Before a masked latch's branch for every lane: before its `s_andn2 exec`,
            // which takes the leaving lanes out of `exec`.
            (Anchor::Before(_), false, Some(cond)) if cond.starts_with("exec") => Ok(Place {
                stmt: masking(module, k, stmt).map_or(stmt, |(andn2, _)| andn2),
                after: false,
                lanes: None,
                ident,
            }),
            (anchor, _, _) => Ok(Place {
                stmt,
                after: matches!(anchor, Anchor::After(_)),
                lanes: None,
                ident,
            }),
        }
        .map_err(|why| format!("region:{} at {}: {why}", s.end.name(), code.describe(stmt)))?;
        placed.push(RegionPlace {
            end: s.end,
            place,
            site: stmt,
            taken: matches!(s.anchor, Anchor::Before(_)) && s.guarded,
        });
    }
    // The ends as placed; failing that, with the entries moved before the `if` they
    // follow (which then opens in the region), the exits before the join they follow
    // (of an `if` the region is inside), or both. The first reason is the one given.
    let mut first = None;
    let mut settled = None;
    for (entries, exits) in [(false, false), (true, false), (false, true), (true, true)] {
        let mut tried = placed.clone();
        match lanes_change(module, k, isa, loops, &mut tried, Moves { entries, exits }) {
            Ok(returned) => {
                settled = Some((tried, returned));
                break;
            }
            Err(why) => {
                first.get_or_insert(why);
            }
        }
    }
    let Some((settled, returned)) = settled else {
        return Err(format!("region: {}", first.unwrap_or_default()));
    };
    let ident = settled.first().map(|p| p.place.ident);
    let mut out: Vec<Place> = settled
        .into_iter()
        .filter(|p| p.end == end)
        .map(|p| p.place)
        .collect();
    // The lanes an `if` that runs to `s_endpgm` leaves out leave the region as it opens.
    if end == warptrace_ir::RegionEnd::Exit {
        for (stmt, Return { after, lanes }) in returned {
            out.push(Place {
                stmt,
                after,
                lanes: Some(lanes),
                ident: ident.unwrap_or(stmt),
            });
        }
        // In text order, as the sites are listed (stable: the edges of one latch keep
        // theirs).
        out.sort_by_key(|p| (p.stmt, p.after));
    }
    Ok(out)
}

/// Which ends [`lanes_change`] may move across the structurizer's `exec` writes.
#[derive(Debug, Clone, Copy)]
struct Moves {
    entries: bool,
    exits: bool,
}

/// One end of a region, placed.
#[derive(Debug, Clone, Copy)]
struct RegionPlace {
    end: warptrace_ir::RegionEnd,
    place: Place,
    /// The statement of the region's site (a branch for an edge).
    site: usize,
    /// The site is a branch's taken edge.
    taken: bool,
}

/// What an instruction of a region's code does to `exec` (decision 0028): the three
/// writes of the structurizer's `if` that keep the lanes of an `if` a part of those that
/// reached it, and give them all back at its join.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ExecWrite {
    /// `s_and_saveexec D, X`: saves `exec` in `D` and narrows it to `exec & X`.
    Open(Reg),
    /// `s_or exec, exec, D`: or-s the mask saved in `D` back in — the `if`'s join.
    Close(Reg),
    /// `s_and exec, exec, X`, `s_andn2 exec, exec, X`: narrows it (a masked latch); the
    /// `X` that `s_andn2` takes out.
    Narrow { removed: Option<Reg> },
    /// `s_andn2_saveexec D, E`: saves `exec` (the `then` lanes) in `D` and makes it
    /// `E & ~exec` — an `if`'s `else`, `E` holding the lanes left for it.
    Else { saved: Reg, lanes: Reg },
}

/// The lane-mask operation `x` is for a wave of `wave` lanes: its mnemonic without the
/// `_b64`/`_b32` of that width (`s_or`, `s_and_saveexec`, `s_mov`), `None` for another.
fn mask_op(x: &crate::parse::Instruction, wave: u32) -> Option<&str> {
    x.mnemonic.strip_suffix(&format!("_b{wave}"))
}

/// The lane mask operand `o` names for a wave of `wave` lanes: SGPRs or `vcc` of the
/// wave's width (not `exec`).
fn lane_mask(o: &crate::parse::Operand, wave: u32) -> Option<Reg> {
    o.reg.filter(|r| {
        matches!(r.file, RegFile::Sgpr | RegFile::Vcc) && r.count == Reg::exec(wave).count
    })
}

/// What instruction `x`, which writes `exec` of a `wave`-lane wave, does to it — `None`
/// when it is none of [`ExecWrite`]'s forms.
fn exec_write(x: &crate::parse::Instruction, wave: u32) -> Option<ExecWrite> {
    let exec = Reg::exec(wave);
    let op = mask_op(x, wave)?;
    let is_exec = |o: &crate::parse::Operand| o.reg == Some(exec);
    let mask = |o: &crate::parse::Operand| lane_mask(o, wave);
    match (op, &x.operands[..]) {
        ("s_and_saveexec", [d, _]) => mask(d).map(ExecWrite::Open),
        ("s_andn2_saveexec" | "s_and_not1_saveexec", [d, e]) => Some(ExecWrite::Else {
            saved: mask(d)?,
            lanes: mask(e)?,
        }),
        ("s_or", [d, a, b]) if is_exec(d) => {
            let saved = if is_exec(a) { b } else { a };
            (is_exec(a) || is_exec(b))
                .then(|| mask(saved))
                .flatten()
                .map(ExecWrite::Close)
        }
        ("s_and", [d, a, b]) if is_exec(d) && (is_exec(a) || is_exec(b)) => {
            Some(ExecWrite::Narrow { removed: None })
        }
        ("s_andn2" | "s_and_not1", [d, a, x]) if is_exec(d) && is_exec(a) => {
            Some(ExecWrite::Narrow { removed: x.reg })
        }
        _ => None,
    }
}

/// Where the lanes an `if` that runs to `s_endpgm` leaves out leave, and which they are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Return {
    /// Right after the `if`'s `exec` write (`s_and_saveexec D, X`: `D & ~exec`,
    /// [`Lanes::Returned`]) or right before it (`s_and exec, exec, X`: `exec & ~X`,
    /// [`Lanes::Drop`]).
    pub after: bool,
    /// The lanes.
    pub lanes: Lanes,
}

/// How the `exec` write at statement `i` of kernel `k` opens an `if` that runs to
/// `s_endpgm`, if it does: the next instruction is `s_cbranch_execz L` (no label between
/// them, so no other path joins there) and `L`'s first instruction is `s_endpgm`. The
/// lanes the `if` leaves out run nothing more: they return. clang lowers an early return
/// (`if (i >= n) return;`) and the guard of a kernel's last statements to
/// `s_and_saveexec D, X`, `D` the lanes before; and such a guard, where the `exec` it
/// saved would never be read (an `if` inside another that runs to `s_endpgm`), to
/// `s_and exec, exec, X`. The region's flow ([`region_flow`]) checks that no `exec` write
/// gives them back.
pub(crate) fn returning_if(module: &Module, k: &Kernel, i: usize, wave: u32) -> Option<Return> {
    let x = module.instr(i)?;
    let exec = Reg::exec(wave);
    let ret = match (exec_write(x, wave)?, &x.operands[..]) {
        (ExecWrite::Open(d), _) => Return {
            after: true,
            lanes: Lanes::Returned(d),
        },
        (ExecWrite::Narrow { removed: None }, [_, a, b]) => {
            let other = if a.reg == Some(exec) { b } else { a };
            Return {
                after: false,
                lanes: Lanes::Drop(lane_mask(other, wave)?),
            }
        }
        _ => return None,
    };
    let next = (i + 1..k.body.end)
        .find(|&j| !matches!(module.stmts[j].kind, StmtKind::Directive { .. }))?;
    let branch = module
        .instr(next)
        .filter(|x| x.mnemonic == "s_cbranch_execz")?;
    let target = branch.operands.first()?.text.as_str();
    let label = k
        .body
        .clone()
        .find(|&j| matches!(&module.stmts[j].kind, StmtKind::Label(l) if l == target))?;
    let first = (label + 1..k.body.end).find(|&j| module.instr(j).is_some())?;
    (module.instr(first)?.mnemonic == "s_endpgm").then_some(ret)
}

/// `s_xor D, exec, D` (either order): with `D` the mask an `if` saved, the lanes that
/// did not take it — its `else` lanes. The mask register, or `None`.
fn else_lanes(x: &crate::parse::Instruction, wave: u32) -> Option<Reg> {
    let exec = Reg::exec(wave);
    let [d, a, b] = &x.operands[..] else {
        return None;
    };
    let d = d.reg.filter(|r| *r != exec)?;
    let other = if a.reg == Some(exec) { b } else { a };
    (mask_op(x, wave) == Some("s_xor")
        && (a.reg == Some(exec) || b.reg == Some(exec))
        && other.reg == Some(d))
    .then_some(d)
}

/// What an open `if`'s mask register holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Holds {
    /// `exec` as it was when the `if` opened (its `then` runs; the join or-s it back).
    Saved,
    /// The lanes of its `else` (its `then` runs; `s_andn2_saveexec` switches to them).
    ElseLanes,
    /// The lanes that ran its `then` (its `else` runs; the join or-s them back).
    ThenLanes,
    /// A masked loop's break mask: the lanes that have left it (`s_or` of a compare's
    /// lanes each iteration, `s_andn2 exec` of it at the latch; the `s_or exec` after the
    /// loop gives them back). `exec` and it make up the lanes that entered the loop.
    Left,
}

/// An `if` open at a point of a region's code (decision 0028).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct OpenIf {
    /// Its `s_and_saveexec`.
    at: usize,
    /// Its mask register and what it holds.
    mask: Reg,
    holds: Holds,
    /// `exec` was all the lanes of the enclosing level when it opened.
    outer_whole: bool,
}

/// The lanes at a point of a region's code: the `if`s open there, outermost first, and
/// whether `exec` is all the lanes of the innermost level — the lanes that entered the
/// region, the `if`'s lanes as its `then` or `else` started — or may be fewer (after a
/// narrowing write).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Nest {
    open: Vec<OpenIf>,
    whole: bool,
    /// Mask registers known to be zero (`s_mov D, 0`): a loop's break mask as it starts.
    zero: BTreeSet<Reg>,
    /// An `if` or loop open on one of the paths that met here only (why `exec` may not be
    /// all the lanes).
    forgotten: Option<OpenIf>,
    /// Mask registers that hold lanes of `exec` since the innermost loop started (a
    /// vector compare's result): what a loop's break mask may take in.
    compared: BTreeSet<Reg>,
}

impl Nest {
    /// The lanes as the region is entered.
    fn entered() -> Nest {
        Nest {
            open: Vec::new(),
            whole: true,
            zero: BTreeSet::new(),
            forgotten: None,
            compared: BTreeSet::new(),
        }
    }

    /// The lanes of two paths that meet. The `if`s open on both stay open; one open on
    /// one path only is forgotten — `exec` is still a part of the lanes of the `if`s
    /// around it, but maybe not all of them, and its mask is no longer known (the
    /// first one forgotten is kept, to say why). `exec` is all the lanes only if it is on
    /// both paths.
    fn meet(&self, other: &Nest) -> Nest {
        let same = |a: &OpenIf, b: &OpenIf| (a.at, a.mask, a.holds) == (b.at, b.mask, b.holds);
        let common = self
            .open
            .iter()
            .zip(&other.open)
            .take_while(|(a, b)| same(a, b))
            .count();
        let forgotten = self.open.get(common).or(other.open.get(common)).copied();
        Nest {
            open: self
                .open
                .iter()
                .zip(&other.open)
                .take(common)
                .map(|(a, b)| OpenIf {
                    outer_whole: a.outer_whole && b.outer_whole,
                    ..*a
                })
                .collect(),
            whole: self.whole && other.whole && forgotten.is_none(),
            forgotten: self.forgotten.or(other.forgotten).or(forgotten),
            zero: self.zero.intersection(&other.zero).copied().collect(),
            compared: self
                .compared
                .intersection(&other.compared)
                .copied()
                .collect(),
        }
    }
}

/// Where a region's exits cut the flow of its code: before a statement (every lane
/// leaves there), a branch's taken edge, a statement's fall-through.
#[derive(Debug, Default)]
struct Cuts {
    before: HashSet<usize>,
    taken: HashSet<usize>,
    fall: HashSet<usize>,
}

impl Cuts {
    /// The cuts of the exits in `placed`.
    fn of(placed: &[RegionPlace]) -> Cuts {
        let mut cuts = Cuts::default();
        let (mut keep, mut drop) = (HashMap::new(), HashMap::new());
        for RegionPlace {
            end,
            place,
            site,
            taken,
        } in placed
        {
            if *end != warptrace_ir::RegionEnd::Exit {
                continue;
            }
            match place.lanes {
                None if place.after => cuts.fall.insert(place.stmt),
                // A branch's taken edge (the edge with lanes of an `exec` branch).
                None if *taken => cuts.taken.insert(*site),
                None => cuts.before.insert(place.stmt),
                Some(Lanes::Scc(_) | Lanes::VccZero(_)) => cuts.taken.insert(place.stmt),
                // A masked latch's edges, placed before its `s_andn2 exec`: the leaving
                // lanes' (the branch's fall-through), the staying lanes' (its taken edge).
                Some(Lanes::Keep(_)) => keep.insert(place.stmt, *site).is_none(),
                Some(Lanes::Drop(_)) => drop.insert(place.stmt, *site).is_none(),
                // Added once the flow is settled: the lanes it runs for leave the flow.
                Some(Lanes::Returned(_)) => false,
            };
        }
        for (andn2, branch) in &keep {
            if drop.contains_key(andn2) {
                cuts.before.insert(*andn2);
            } else {
                cuts.fall.insert(*branch);
            }
        }
        for (andn2, branch) in &drop {
            if !keep.contains_key(andn2) {
                cuts.taken.insert(*branch);
            }
        }
        cuts
    }
}

/// Why the region's code, from its entries to the exits in `placed`, may let lanes leave
/// it that did not enter, or enter without leaving (decision 0028).
enum Lost {
    /// The exit `placed[.0]` is inside the `if`s open there.
    ExitInside(usize, Vec<OpenIf>),
    /// Anything else, said.
    Why(String),
}

/// The reason an exit at statement `at` (`on_some_path`: on some path to it) cannot be
/// placed: it is inside the construct `o`.
fn exit_inside(module: &Module, at: usize, o: &OpenIf, on_some_path: bool) -> String {
    format!(
        "its exit at `{}` (line {}) is inside {}{}, which only some of the lanes that \
         entered run",
        module.stmt_text(at),
        module.stmts[at].line,
        opened(module, o),
        if on_some_path {
            " on some path to it"
        } else {
            ""
        }
    )
}

/// How an open `if` or masked loop is named in a reason: by the instruction that opens it.
fn opened(module: &Module, o: &OpenIf) -> String {
    let what = format!(
        "`{}` (line {})",
        module.stmt_text(o.at),
        module.stmts[o.at].line
    );
    match o.holds {
        Holds::Left => format!("the masked loop at {what}"),
        _ => format!("the `if` that {what} opens"),
    }
}

/// A masked loop of a kernel: where paths enter it (its header's labels and first
/// instruction), its statements, its break mask — every back edge a masked latch
/// (`s_andn2 exec, exec, B; s_cbranch_execnz H`) of the same `B`.
struct MaskedLoop {
    entry: std::ops::RangeInclusive<usize>,
    header: usize,
    stmts: Vec<std::ops::Range<usize>>,
    mask: Reg,
}

/// The masked loops of kernel `k`, whose blocks and loops are `loops`.
fn masked_loops(module: &Module, k: &Kernel, loops: &Loops) -> Vec<MaskedLoop> {
    let mut out = Vec::new();
    for l in &loops.loops {
        let masks: Vec<Option<Reg>> = l
            .backedges
            .iter()
            .map(|&e| match loops.edges[e].kind {
                EdgeKind::Taken(stmt) => module
                    .instr(stmt)
                    .filter(|x| x.mnemonic == "s_cbranch_execnz")
                    .and_then(|_| masking(module, k, stmt))
                    .map(|(_, mask)| mask),
                _ => None,
            })
            .collect();
        let Some(Some(mask)) = masks.first().copied() else {
            continue;
        };
        let header = &loops.blocks[l.header];
        if masks.iter().any(|m| *m != Some(mask)) {
            continue;
        }
        let Some(first) = header.first_instr else {
            continue;
        };
        out.push(MaskedLoop {
            entry: header.start..=first,
            header: first,
            stmts: l
                .blocks
                .iter()
                .map(|&b| loops.blocks[b].start..loops.blocks[b].end)
                .collect(),
            mask,
        });
    }
    out
}

/// Runs the region's code on its control-flow graph from each entry in `placed`, without
/// passing an exit, keeping the [`Nest`] before each statement reached: `s_and_saveexec`
/// opens an `if`, `s_xor` of its mask with `exec` makes the mask its `else` lanes,
/// `s_andn2_saveexec` of them switches to its `else` with `exec` all of them (if the
/// `then` gave back all its lanes), a path into a masked loop with its break mask cleared
/// opens it (the mask takes in only a compare's lanes, the latch takes them out of
/// `exec`), `s_or exec` of a mask that holds `exec` as it was, the `then` lanes or the
/// loop's leavers closes it (and those opened after it), any other narrowing write
/// narrows the innermost. Paths that meet keep what they share ([`Nest::meet`]), to a
/// fixed point. No other `exec` write, no other write of an open mask, no narrowing
/// outside every `if`, no end of the kernel; at every exit nothing open and `exec` all
/// the lanes that entered. An `if` that runs to `s_endpgm` ([`returning_if`]), reached
/// with nothing open and `exec` all the lanes, opens nothing: the lanes it leaves out
/// leave the region there (they return), and `exec` is all the lanes that remain. The
/// statements of those `if`s are returned, each with the exit the lanes it leaves out
/// need ([`Return`]).
fn region_flow(
    module: &Module,
    k: &Kernel,
    isa: &Isa,
    loops: &Loops,
    placed: &[RegionPlace],
) -> Result<BTreeMap<usize, Return>, Lost> {
    use warptrace_ir::RegionEnd;
    let masked = masked_loops(module, k, loops);
    let exec = Reg::exec(isa.wave);
    let what = |i: usize| format!("`{}` (line {})", module.stmt_text(i), module.stmts[i].line);
    let why = |text: String| Lost::Why(text);
    let cuts = Cuts::of(placed);
    let labels: HashMap<&str, usize> = k
        .body
        .clone()
        .filter_map(|i| match &module.stmts[i].kind {
            StmtKind::Label(l) => Some((l.as_str(), i)),
            _ => None,
        })
        .collect();
    let exit_at = |stmt: usize, after: bool| {
        placed.iter().position(|p| {
            let RegionPlace {
                end, place, taken, ..
            } = p;
            *end == RegionEnd::Exit
                && !taken
                && place.lanes.is_none()
                && place.stmt == stmt
                && place.after == after
        })
    };
    // An exit (at statement `i`, after it for `after`) reached with `nest`.
    let leave = |i: usize, after: bool, nest: &Nest| -> Result<(), Lost> {
        if let Some(first) = nest.open.first() {
            return Err(match exit_at(i, after) {
                Some(n) => Lost::ExitInside(n, nest.open.clone()),
                None => why(exit_inside(module, i, first, false)),
            });
        }
        if !nest.whole {
            return Err(why(match nest.forgotten {
                Some(o) => exit_inside(module, i, &o, true),
                None => format!(
                    "its exit at {} may run for fewer lanes than entered: an `else` or a \
                     masked loop before it narrows `exec` other than by its own mask, and its \
                     join gives back only what is left",
                    what(i)
                ),
            }));
        }
        Ok(())
    };
    // A path from statement `i` into a masked loop, from outside it, with its break mask
    // cleared: the loop is followed as an `if` whose mask holds the lanes that left.
    let enter = |i: usize, to: usize, mut nest: Nest| -> Nest {
        for l in &masked {
            let outside = !l.stmts.iter().any(|r| r.contains(&i));
            if l.entry.contains(&to) && outside && nest.zero.contains(&l.mask) {
                nest.open.push(OpenIf {
                    at: l.header,
                    mask: l.mask,
                    holds: Holds::Left,
                    outer_whole: nest.whole,
                });
                nest.whole = true;
                nest.compared.clear();
            }
        }
        nest
    };
    let mut before: HashMap<usize, Nest> = HashMap::new();
    let mut work: Vec<usize> = Vec::new();
    let mut returned = BTreeMap::new();
    // The lanes before statement `to`, arriving from `from` (`None`: an entry).
    let reach = |before: &mut HashMap<usize, Nest>,
                 work: &mut Vec<usize>,
                 to: usize,
                 nest: Nest,
                 from: Option<usize>| {
        if !k.body.contains(&to) {
            return Err(why(format!(
                "{} runs past the end of the kernel",
                from.map_or_else(|| "an entry".into(), what)
            )));
        }
        let met = match before.get(&to) {
            Some(seen) => seen.meet(&nest),
            None => nest,
        };
        if before.get(&to) != Some(&met) {
            before.insert(to, met);
            work.push(to);
        }
        Ok(())
    };
    for RegionPlace { end, place, .. } in placed {
        if *end != RegionEnd::Entry {
            continue;
        }
        let start = if place.after {
            place.stmt + 1
        } else {
            place.stmt
        };
        reach(&mut before, &mut work, start, Nest::entered(), None)?;
    }
    while let Some(i) = work.pop() {
        let mut nest = before[&i].clone();
        let Some(x) = module.instr(i) else {
            reach(
                &mut before,
                &mut work,
                i + 1,
                enter(i, i + 1, nest),
                Some(i),
            )?;
            continue;
        };
        if cuts.before.contains(&i) {
            leave(i, false, &nest)?;
            continue;
        }
        let f = facts(x, isa);
        let innermost = nest.open.last().copied();
        let changes = |i: usize| {
            why(format!(
                "the lanes change between its entry and its exits at {}",
                what(i)
            ))
        };
        // Writes that an `if` makes of its own mask.
        let mut own = None;
        match (else_lanes(x, isa.wave), exec_write(x, isa.wave), innermost) {
            (Some(d), _, Some(o)) if o.mask == d && o.holds == Holds::Saved && nest.whole => {
                let last = nest.open.len() - 1;
                nest.open[last].holds = Holds::ElseLanes;
                own = Some(d);
            }
            (_, Some(ExecWrite::Else { saved, lanes }), Some(o))
                if o.mask == lanes && o.holds == Holds::ElseLanes =>
            {
                if !nest.whole {
                    return Err(why(format!(
                        "the `then` of the `if` that {} opens narrows `exec` and does not \
                         give it back before its `else` at {}",
                        what(o.at),
                        what(i)
                    )));
                }
                let last = nest.open.len() - 1;
                nest.open[last].mask = saved;
                nest.open[last].holds = Holds::ThenLanes;
                own = Some(saved);
            }
            (_, _, Some(o)) if o.holds == Holds::Left => {
                // `s_or B, X, B`: the lanes of a compare (or of `exec`) leave the loop.
                let ors = mask_op(x, isa.wave) == Some("s_or");
                if let [d, a, b] = &x.operands[..] {
                    let other = if a.reg == Some(o.mask) { b } else { a };
                    let lanes = other
                        .reg
                        .is_some_and(|r| r == exec || nest.compared.contains(&r));
                    if ors && d.reg == Some(o.mask) && (a.reg == d.reg || b.reg == d.reg) && lanes {
                        own = Some(o.mask);
                    }
                }
            }
            _ => {}
        }
        if let Some(o) = nest
            .open
            .iter()
            .find(|o| Some(o.mask) != own && f.defs.iter().any(|d| d.overlaps(&o.mask)))
        {
            return Err(why(if o.holds == Holds::Left {
                format!(
                    "{} writes the break mask of the masked loop at {} other than by or-ing \
                     the lanes of a compare into it",
                    what(i),
                    what(o.at)
                )
            } else {
                format!(
                    "the `if` that {} opens has not rejoined its lanes before the exit: {} \
                     overwrites the mask it saved them in",
                    what(o.at),
                    what(i)
                )
            }));
        }
        if own.is_none() && f.defs.iter().any(|d| d.overlaps(&exec)) {
            let returning = returning_if(module, k, i, isa.wave);
            match exec_write(x, isa.wave) {
                // (A narrowing one inside an open `if` narrows it, as below.)
                Some(_) if returning.is_some_and(|r| r.after || nest.open.is_empty()) => {
                    // The lanes it leaves out must be all that leave: `exec` all the
                    // lanes, in no `if` or loop that could give them back.
                    let around = nest
                        .open
                        .last()
                        .or(nest.forgotten.as_ref().filter(|_| !nest.whole));
                    if let Some(o) = around {
                        return Err(why(format!(
                            "the `if` that {} opens, which runs to `s_endpgm`, is inside {}",
                            what(i),
                            opened(module, o)
                        )));
                    }
                    if !nest.whole {
                        return Err(changes(i));
                    }
                    returned.extend(returning.map(|r| (i, r)));
                }
                Some(ExecWrite::Open(mask)) => {
                    nest.open.push(OpenIf {
                        at: i,
                        mask,
                        holds: Holds::Saved,
                        outer_whole: nest.whole,
                    });
                    nest.whole = true;
                }
                Some(ExecWrite::Close(mask)) => {
                    let n = nest
                        .open
                        .iter()
                        .position(|o| o.mask == mask && o.holds != Holds::ElseLanes)
                        .ok_or_else(|| changes(i))?;
                    let o = nest.open[n];
                    // An `if` gives back `exec` as it was; an `else` what is left of its
                    // lanes with the `then`'s; a loop what is left with those that left.
                    let all_back =
                        o.holds == Holds::Saved || (n + 1 == nest.open.len() && nest.whole);
                    nest.open.truncate(n);
                    nest.whole = o.outer_whole && all_back;
                    if nest.whole {
                        nest.forgotten = None;
                    }
                }
                // A masked latch of the innermost loop keeps `exec` and its break mask
                // all the lanes that entered it.
                Some(ExecWrite::Narrow { removed })
                    if innermost
                        .is_some_and(|o| o.holds == Holds::Left && removed == Some(o.mask)) => {}
                Some(ExecWrite::Narrow { .. }) if !nest.open.is_empty() => nest.whole = false,
                _ => return Err(changes(i)),
            }
        }
        // What the masks hold after it.
        nest.zero.retain(|r| !f.defs.iter().any(|d| d.overlaps(r)));
        nest.compared
            .retain(|r| !f.defs.iter().any(|d| d.overlaps(r)));
        let dest = x.operands.first().and_then(|o| lane_mask(o, isa.wave));
        if mask_op(x, isa.wave) == Some("s_mov") && x.operands.get(1).and_then(|o| o.imm) == Some(0)
        {
            nest.zero.extend(dest);
        }
        if x.mnemonic.starts_with("v_cmp_") {
            nest.compared.extend(dest);
        }
        let (taken, falls) = match &f.flow {
            Flow::Branch {
                target,
                conditional,
            } => (Some(target.as_str()), *conditional),
            Flow::Exit | Flow::Trap => {
                return Err(why(format!(
                    "{} leaves the kernel without passing an exit",
                    what(i)
                )))
            }
            _ => (None, true),
        };
        if let Some(target) = taken {
            if cuts.taken.contains(&i) {
                if let Some(o) = nest.open.first() {
                    return Err(why(format!(
                        "its exit at {} (the branch's edge) is inside {}",
                        what(i),
                        opened(module, o)
                    )));
                }
                leave(i, false, &nest)?;
            } else {
                let t = *labels.get(target).ok_or_else(|| {
                    why(format!(
                        "{} branches to `{target}`, no label of the kernel",
                        what(i)
                    ))
                })?;
                reach(
                    &mut before,
                    &mut work,
                    t,
                    enter(i, t, nest.clone()),
                    Some(i),
                )?;
            }
        }
        if falls {
            if cuts.fall.contains(&i) {
                leave(i, true, &nest)?;
            } else {
                reach(
                    &mut before,
                    &mut work,
                    i + 1,
                    enter(i, i + 1, nest),
                    Some(i),
                )?;
            }
        }
    }
    Ok(returned)
}

/// Why the lanes a region's snippets run for (`exec` at each, narrowed at a latch) may not
/// be the lanes that enter and leave it — `None` when they are. On GCN the lanes at a
/// point are `exec`, so on the region's code — every path from an entry to an exit —
/// `exec` may change only inside `if`s, `else`s and masked loops that close there
/// (decision 0028). Then `exec` is the same at every end outside them, and no end may be
/// inside one (its lanes are some of those that entered); [`region_flow`] checks it. An exit
/// inside `if`s right before their joins is moved after them first (and, with `moves`,
/// an entry right after an `if` opens before it, an exit right after a join before it).
/// Every lane that
/// runs a line of the region has passed the entry in it (the entry dominates the region),
/// and leaves it once.
fn lanes_change(
    module: &Module,
    k: &Kernel,
    isa: &Isa,
    loops: &Loops,
    placed: &mut [RegionPlace],
    moves: Moves,
) -> Result<BTreeMap<usize, Return>, String> {
    use warptrace_ir::RegionEnd;
    // With `moves.entries`, an entry right after an `if`'s `s_and_saveexec` (and the
    // `s_xor` that makes its mask the `else` lanes) — the end of the block that opens it
    // — goes before it, where every lane that reached the `if` is in `exec`. With
    // `moves.exits`, an exit right after a join (`s_or exec`) goes before it, where the
    // lanes of the part of the `if` that the region is are. The structurizer's `exec`
    // writes are no line of the thread's program, whatever line they carry.
    for RegionPlace { end, place, .. } in placed.iter_mut() {
        if place.lanes.is_some() {
            continue;
        }
        match end {
            RegionEnd::Entry if moves.entries && !place.after => {
                while let Some(prev) = (k.body.start..place.stmt)
                    .rev()
                    .find(|&i| !matches!(module.stmts[i].kind, StmtKind::Directive { .. }))
                    .filter(|&i| {
                        // Not before an `if` that runs to `s_endpgm`: the lanes it leaves
                        // out never run the region's lines.
                        module.instr(i).is_some_and(|x| {
                            else_lanes(x, isa.wave).is_some()
                                || (matches!(exec_write(x, isa.wave), Some(ExecWrite::Open(_)))
                                    && returning_if(module, k, i, isa.wave).is_none())
                        })
                    })
                {
                    place.stmt = prev;
                }
            }
            RegionEnd::Exit if moves.exits && place.after => {
                let joins = module
                    .instr(place.stmt)
                    .is_some_and(|x| matches!(exec_write(x, isa.wave), Some(ExecWrite::Close(_))));
                if joins {
                    place.after = false;
                }
            }
            _ => {}
        }
    }
    // An exit inside `if`s right before their joins (`s_or exec` of their masks, where
    // the lanes they left out come back) goes after them: the same point of the
    // thread's program. Each move is checked again; an exit moves forward only.
    for _ in 0..placed.len() + 1 {
        let (n, mut open) = match region_flow(module, k, isa, loops, placed) {
            Ok(returned) => return Ok(returned),
            Err(Lost::Why(why)) => return Err(why),
            Err(Lost::ExitInside(n, open)) => (n, open),
        };
        let place = placed[n].place;
        let inside = exit_inside(module, place.stmt, &open[0], false);
        let mut i = place.stmt + usize::from(place.after);
        let mut moved = None;
        while !open.is_empty() && k.body.contains(&i) {
            let Some(x) = module.instr(i) else {
                i += 1;
                continue;
            };
            let Some(ExecWrite::Close(r)) = exec_write(x, isa.wave) else {
                break;
            };
            let Some(at) = open
                .iter()
                .position(|o| o.mask == r && o.holds != Holds::ElseLanes)
            else {
                break;
            };
            open.truncate(at);
            moved = Some(i);
            i += 1;
        }
        match moved.filter(|_| open.is_empty()) {
            Some(join) => {
                placed[n].place = Place {
                    stmt: join,
                    after: true,
                    ..place
                }
            }
            None => return Err(inside),
        }
    }
    Err("its exits do not settle".into())
}

/// The place of the edge of `s_cbranch_COND` at statement `stmt` that is its taken edge
/// (`taken`) or its fall-through.
fn branch_place(
    module: &Module,
    k: &Kernel,
    stmt: usize,
    cond: &str,
    taken: bool,
    ident: usize,
) -> Result<Place, String> {
    let at = |lanes| Place {
        stmt,
        after: !taken,
        lanes,
        ident,
    };
    let uniform = |set: bool, lanes: fn(bool) -> Lanes| {
        // After the branch the condition is known to be false.
        Ok(at(taken.then(|| lanes(set))))
    };
    match cond {
        "scc1" => uniform(true, Lanes::Scc),
        "scc0" => uniform(false, Lanes::Scc),
        "vccz" => uniform(true, Lanes::VccZero),
        "vccnz" => uniform(false, Lanes::VccZero),
        "execz" | "execnz" => {
            // Whether this edge is the one taken while lanes remain in `exec`.
            let with_lanes = (cond == "execnz") == taken;
            if let Some((andn2, x)) = masking(module, k, stmt) {
                return Ok(Place {
                    stmt: andn2,
                    after: false,
                    lanes: Some(if with_lanes {
                        Lanes::Drop(x)
                    } else {
                        Lanes::Keep(x)
                    }),
                    ident,
                });
            }
            if with_lanes {
                Ok(at(None))
            } else {
                Err(
                    "the edge is taken when `exec` is zero, after an `exec` update that is \
                     not `s_andn2 exec, exec, X` right before the branch: which lanes took it \
                     is not known"
                        .into(),
                )
            }
        }
        other => Err(format!("a branch on `{other}`")),
    }
}

/// The `s_andn2 exec, exec, X` (gfx11: `s_and_not1`) that is the last instruction before
/// the branch at `stmt` (directives aside), and `X`.
fn masking(module: &Module, k: &Kernel, stmt: usize) -> Option<(usize, Reg)> {
    let prev = (k.body.start..stmt)
        .rev()
        .find(|&i| !matches!(module.stmts[i].kind, StmtKind::Directive { .. }))?;
    let x = module.instr(prev)?;
    let op = x.mnemonic.as_str();
    if !matches!(
        op,
        "s_andn2_b64" | "s_andn2_b32" | "s_and_not1_b64" | "s_and_not1_b32"
    ) {
        return None;
    }
    let [d, a, b] = &x.operands[..] else {
        return None;
    };
    let exec = |o: &crate::parse::Operand| {
        o.reg
            .is_some_and(|r| r.file == RegFile::Exec && r.first == 0)
    };
    let mask = b
        .reg
        .filter(|r| matches!(r.file, RegFile::Sgpr | RegFile::Vcc))?;
    (exec(d) && exec(a)).then_some((prev, mask))
}
