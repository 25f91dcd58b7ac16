//! Source-line regions, for the `region:entry` and `region:exit` attach points.
//!
//! **The lines.** The instructions of a body whose `.loc` is in `FILE:FROM-TO` (FILE a
//! suffix of the `.file` path, as for `line:`), in blocks reachable from the entry, are
//! the region's *lines*. Compiled code interleaves source lines, branches around them and
//! loops through them, so the lines alone are rarely a single-entry single-exit piece of
//! code; the region is the smallest one around them that a snippet at each end can time.
//!
//! **Hoisted code.** A loop holds the region, rather than being part of it, when some
//! line instruction is in it but none of its back edges' instructions (the loop's own
//! control, which carries the loop statement's line) is. Line instructions outside the
//! innermost such loop (when they nest) are computations the compiler hoisted out of it —
//! loop-invariant parts of the lines — and are left out: the lines of a loop body time one
//! iteration, not the whole loop around the hoisted part.
//!
//! **The level.** Let `L` be the innermost natural loop ([`crate::loops`]) holding every
//! block of the lines (the whole body if none does). One iteration of `L` — from its header
//! to a back edge or an exit — is a path through an acyclic graph: `L`'s blocks, with each
//! loop nested directly in `L` collapsed to one node, from the header to a sink that every
//! back edge, every exit edge and every instruction leaving the kernel goes to. (The whole
//! body is the same graph from the entry block, every `ret`/`exit` going to the sink.)
//!
//! **The ends.** In that graph, the entry node `d` is the nearest common dominator of the
//! lines' nodes and the exit node `p` their nearest common post-dominator; the set grows by
//! `d` and `p` until `d` dominates `p` and `p` post-dominates `d`. Every path through the
//! graph then passes `d` exactly when it passes `p`, `d` first: per iteration of `L`, the
//! region runs once or not at all, and each entry is followed by one exit. A collapsed loop
//! cannot be an end (a snippet there would run per iteration of it), so a loop node as `d`
//! is replaced by its immediate dominator, as `p` by its immediate post-dominator, and the
//! fixed point is sought again.
//!
//! **The sites.** The entry snippet goes before the first line instruction of block `d`, or
//! before `d`'s last instruction if it has none (the region starts as late in `d` as it
//! can). The exit snippet goes after the last line instruction of block `p` — before it if
//! it ends the block (a branch or an exit: a snippet after it would not run) — or before
//! `p`'s first instruction if `p` has none. When `p` is the sink, the region runs to the end
//! of `L`'s iteration: the exit snippets are at `L`'s back edges and exits (as the `loop:`
//! points place them) and before each instruction leaving the kernel in `L` (guarded when
//! the instruction is: the snippet runs when it leaves); at the body's level, before each
//! `ret`/`exit`. Both ends report the same place — `pc`, `file` and `line` of the
//! instruction the entry snippet precedes: the region's identity.

use crate::loops::{Anchor, Loops};
use crate::parse::{Body, StmtKind};
use crate::site::Loc;
use petgraph::algo::dominators::{simple_fast, Dominators};
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::Reversed;
use std::collections::BTreeSet;
use warptrace_ir::{LoopEdge, RegionEnd};

/// One place a region probe runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RegionSite {
    /// Which end of the region.
    pub end: RegionEnd,
    /// Where the snippet goes.
    pub anchor: Anchor,
    /// Whether the snippet takes the predicate of the instruction it precedes (a guarded
    /// branch or exit: it runs only when that instruction transfers control).
    pub guarded: bool,
    /// The instruction the entry snippet precedes (a statement index): the region's
    /// place, whose `pc`, `file` and `line` both ends report.
    pub place: usize,
}

/// A node of one level's acyclic graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Node {
    /// A block of the level's loop that is in no nested loop.
    Block(usize),
    /// A loop nested directly in the level's loop (an index into [`Loops::loops`]).
    Loop(usize),
    /// Where an iteration ends: back edges, exits, leaving the kernel.
    Sink,
}

/// The entry and exit sites of the region of `lines` (statement indices of instructions)
/// in `body`, whose blocks, edges and loops are `cfg`. Empty when no line instruction is
/// reachable; an error says why the region cannot be placed (an irreducible cycle, code
/// that never reaches an exit, an edge no snippet can single out).
pub(crate) fn sites(
    cfg: &Loops,
    body: &Body,
    lines: &BTreeSet<usize>,
) -> Result<Vec<RegionSite>, String> {
    let block_of = |stmt: usize| {
        cfg.blocks
            .iter()
            .position(|b| (b.start..b.end).contains(&stmt))
    };
    let reachable = reachable_blocks(cfg);
    let mut line_blocks: BTreeSet<usize> = lines
        .iter()
        .filter_map(|&s| block_of(s))
        .filter(|&b| reachable[b])
        .collect();
    if line_blocks.is_empty() {
        return Ok(Vec::new());
    }
    // Loops that hold the region rather than being part of it: some line block is in
    // them but no back edge's instruction is on the lines. Nested in one another, the
    // innermost one holds the region; line instructions outside it are what the compiler
    // hoisted out of it.
    let mut holding: Vec<&crate::loops::Loop> = cfg
        .loops
        .iter()
        .filter(|l| !l.blocks.is_disjoint(&line_blocks))
        .filter(|l| {
            !l.backedges
                .iter()
                .any(|&e| lines.contains(&cfg.edges[e].kind.stmt()))
        })
        .collect();
    holding.sort_by_key(|l| std::cmp::Reverse(l.blocks.len()));
    let nested = holding
        .windows(2)
        .all(|w| w[1].blocks.is_subset(&w[0].blocks));
    if let (true, Some(inner)) = (nested, holding.last()) {
        line_blocks.retain(|b| inner.blocks.contains(b));
    }
    // The innermost loop holding every line block.
    let level = cfg
        .loops
        .iter()
        .enumerate()
        .filter(|(_, l)| line_blocks.is_subset(&l.blocks))
        .min_by_key(|(_, l)| l.blocks.len())
        .map(|(i, _)| i);
    let graph = LevelGraph::new(cfg, body, level, &reachable)?;
    let (d, p) = graph.ends(line_blocks.iter().map(|&b| graph.node_of(b)).collect())?;
    let Node::Block(d) = d else {
        return Err("the region's entry is no block".into());
    };
    let in_lines = |b: usize| -> Vec<usize> {
        let blk = &cfg.blocks[b];
        lines
            .iter()
            .copied()
            .filter(|s| (blk.start..blk.end).contains(s))
            .collect()
    };
    let entry_block = &cfg.blocks[d];
    let place = match in_lines(d).first() {
        Some(&s) => s,
        None => entry_block
            .last_instr
            .ok_or("the region's entry block has no instruction")?,
    };
    let mut out = vec![RegionSite {
        end: RegionEnd::Entry,
        anchor: Anchor::Before(place),
        guarded: false,
        place,
    }];
    let exit = |anchor, guarded| RegionSite {
        end: RegionEnd::Exit,
        anchor,
        guarded,
        place,
    };
    match p {
        Node::Block(p) => {
            let blk = &cfg.blocks[p];
            let anchor = match in_lines(p).last() {
                Some(&s) if ends_block(body, s) => Anchor::Before(s),
                Some(&s) => Anchor::After(s),
                None => Anchor::Before(
                    blk.first_instr
                        .ok_or("the region's exit block has no instruction")?,
                ),
            };
            out.push(exit(anchor, false));
        }
        Node::Sink => {
            // The end of the level's iteration: its back edges and exits, and every
            // instruction leaving the kernel inside it.
            if let Some(l) = level {
                let header = cfg.loops[l].header;
                for edge in [LoopEdge::Backedge, LoopEdge::Exit] {
                    for s in cfg.sites(edge, body)? {
                        if s.header == header {
                            out.push(exit(s.anchor, s.guarded));
                        }
                    }
                }
            }
            for (b, blk) in cfg.blocks.iter().enumerate() {
                let inside = level.is_none_or(|l| cfg.loops[l].blocks.contains(&b));
                if !inside || !reachable[b] {
                    continue;
                }
                let leaves = blk.last_instr.filter(|&last| {
                    matches!(&body.stmts[last].kind, StmtKind::Instr(i) if crate::loops::leaves_kernel(i))
                });
                match leaves {
                    Some(last) => {
                        let guarded = matches!(&body.stmts[last].kind, StmtKind::Instr(i) if i.guard.is_some());
                        out.push(exit(Anchor::Before(last), guarded));
                    }
                    // Running off the end of the body: no instruction to end the region at.
                    None if !cfg.edges.iter().any(|e| e.from == b) => {
                        return Err("the region runs off the end of the body".into());
                    }
                    None => {}
                }
            }
        }
        Node::Loop(_) => return Err("the region's exit is no block".into()),
    }
    Ok(out)
}

/// The statement indices of the instructions of `body` whose source position is in
/// `file:from-to` (`locs` per statement, [`crate::site::positions`]).
pub(crate) fn line_instrs(
    body: &Body,
    locs: &[Option<Loc>],
    file: &str,
    from: u32,
    to: u32,
) -> BTreeSet<usize> {
    body.stmts
        .iter()
        .enumerate()
        .filter(|(i, s)| {
            matches!(s.kind, StmtKind::Instr(_))
                && locs.get(*i).and_then(Option::as_ref).is_some_and(|l| {
                    l.path.as_deref().is_some_and(|p| p.ends_with(file))
                        && (from..=to).contains(&l.line)
                })
        })
        .map(|(i, _)| i)
        .collect()
}

/// Whether statement `s` is an instruction that ends its block (a branch, `ret`, `exit`).
fn ends_block(body: &Body, s: usize) -> bool {
    matches!(&body.stmts[s].kind, StmtKind::Instr(i) if crate::loops::ends_block(i))
}

/// Which blocks the entry block reaches.
fn reachable_blocks(cfg: &Loops) -> Vec<bool> {
    let mut seen = vec![false; cfg.blocks.len()];
    let mut work = vec![0usize];
    while let Some(b) = work.pop() {
        if b < seen.len() && !seen[b] {
            seen[b] = true;
            work.extend(cfg.edges.iter().filter(|e| e.from == b).map(|e| e.to));
        }
    }
    seen
}

/// One level's acyclic graph, with dominators from its source and post-dominators from
/// its sink.
struct LevelGraph {
    nodes: Vec<Node>,
    /// The node of every block (`None`: not at this level).
    node_of_block: Vec<Option<usize>>,
    dom: Dominators<NodeIndex>,
    pdom: Dominators<NodeIndex>,
}

impl LevelGraph {
    fn new(
        cfg: &Loops,
        body: &Body,
        level: Option<usize>,
        reachable: &[bool],
    ) -> Result<LevelGraph, String> {
        let inside = |b: usize| level.is_none_or(|l| cfg.loops[l].blocks.contains(&b));
        // Loops nested directly in the level: inside it, in no other loop inside it.
        let nested: Vec<usize> = (0..cfg.loops.len())
            .filter(|&c| Some(c) != level && inside(cfg.loops[c].header))
            .filter(|&c| {
                !(0..cfg.loops.len()).any(|o| {
                    o != c
                        && Some(o) != level
                        && inside(cfg.loops[o].header)
                        && cfg.loops[c].blocks.is_subset(&cfg.loops[o].blocks)
                        && cfg.loops[o].blocks.len() > cfg.loops[c].blocks.len()
                })
            })
            .collect();
        let mut nodes = Vec::new();
        let mut node_of_block = vec![None; cfg.blocks.len()];
        for &c in &nested {
            nodes.push(Node::Loop(c));
            for &b in &cfg.loops[c].blocks {
                node_of_block[b] = Some(nodes.len() - 1);
            }
        }
        for b in 0..cfg.blocks.len() {
            if inside(b) && reachable[b] && node_of_block[b].is_none() {
                nodes.push(Node::Block(b));
                node_of_block[b] = Some(nodes.len() - 1);
            }
        }
        nodes.push(Node::Sink);
        let sink = nodes.len() - 1;
        let source = match level {
            Some(l) => node_of_block[cfg.loops[l].header],
            None => node_of_block[0],
        }
        .ok_or("the region's level has no entry")?;
        let mut g: DiGraph<(), ()> = DiGraph::new();
        let idx: Vec<NodeIndex> = nodes.iter().map(|_| g.add_node(())).collect();
        let header = level.map(|l| cfg.loops[l].header);
        for e in &cfg.edges {
            let Some(from) = node_of_block[e.from].filter(|_| reachable[e.from]) else {
                continue;
            };
            let to = if Some(e.to) == header || !inside(e.to) {
                sink
            } else {
                match node_of_block[e.to] {
                    Some(t) => t,
                    None => continue,
                }
            };
            if from != to {
                g.update_edge(idx[from], idx[to], ());
            }
        }
        // Leaving the kernel; a block with no successor at all (the body's end).
        for (b, blk) in cfg.blocks.iter().enumerate() {
            let Some(from) = node_of_block[b].filter(|_| reachable[b]) else {
                continue;
            };
            let leaves = blk.last_instr.is_some_and(|s| {
                matches!(&body.stmts[s].kind, StmtKind::Instr(i) if crate::loops::leaves_kernel(i))
            });
            if leaves || !cfg.edges.iter().any(|e| e.from == b) {
                g.update_edge(idx[from], idx[sink], ());
            }
        }
        if petgraph::algo::is_cyclic_directed(&g) {
            return Err("the region is in an irreducible cycle".into());
        }
        let dom = simple_fast(&g, idx[source]);
        let pdom = simple_fast(Reversed(&g), idx[sink]);
        Ok(LevelGraph {
            nodes,
            node_of_block,
            dom,
            pdom,
        })
    }

    fn node_of(&self, block: usize) -> usize {
        // Every reachable block inside the level has a node.
        self.node_of_block[block].unwrap_or(self.nodes.len() - 1)
    }

    /// The region's ends around `set` (node indices): the fixed point of the module doc.
    fn ends(&self, mut set: BTreeSet<usize>) -> Result<(Node, Node), String> {
        loop {
            let d = common(&self.dom, &set).ok_or("the lines have no common dominator")?;
            let p = common(&self.pdom, &set)
                .ok_or("the lines reach no exit (the code after them never ends)")?;
            let mut grown = set.clone();
            grown.extend([d, p]);
            if let Node::Loop(_) = self.nodes[d] {
                grown.insert(
                    self.dom
                        .immediate_dominator(NodeIndex::new(d))
                        .ok_or("the region starts at a loop at the top of its level")?
                        .index(),
                );
            }
            if let Node::Loop(_) = self.nodes[p] {
                grown.insert(
                    self.pdom
                        .immediate_dominator(NodeIndex::new(p))
                        .ok_or("the region ends at a loop at the end of its level")?
                        .index(),
                );
            }
            if grown == set {
                return Ok((self.nodes[d], self.nodes[p]));
            }
            set = grown;
        }
    }
}

/// The nearest node dominating every node of `set` under `dom`; `None` when one of them
/// is unreachable from the root.
fn common(dom: &Dominators<NodeIndex>, set: &BTreeSet<usize>) -> Option<usize> {
    let chains: Vec<Vec<usize>> = set
        .iter()
        .map(|&n| {
            dom.dominators(NodeIndex::new(n))
                .map(|c| c.map(NodeIndex::index).collect())
        })
        .collect::<Option<_>>()?;
    let (first, rest) = chains.split_first()?;
    first
        .iter()
        .copied()
        .find(|n| rest.iter().all(|c| c.contains(n)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse;

    /// A site as (end, anchor statement's text, after it?, guarded?).
    type Described = (RegionEnd, String, bool, bool);

    /// The sites of the region `a.cu:from-to` in a kernel whose body is `body` (`.loc 1 N`
    /// directives give lines), as (end, anchor text, after?, guarded), and the place's
    /// text.
    fn region(body: &str, from: u32, to: u32) -> Result<(Vec<Described>, String), String> {
        let src = format!(
            ".version 8.0\n.target sm_90\n.address_size 64\n.file 1 \"/src/a.cu\"\n\
             .visible .entry k()\n{{\n\t.reg .pred %p<4>;\n\t.reg .b32 %r<8>;\n{body}\n}}\n"
        );
        let m = parse(&src).expect("parses");
        let b = m.functions()[0].body.as_ref().expect("body");
        let files = crate::site::file_table(m.source());
        let locs = crate::site::positions(b, &files).0;
        let lines = line_instrs(b, &locs, "a.cu", from, to);
        let cfg = Loops::analyze(b).expect("analyzes");
        let sites = super::sites(&cfg, b, &lines)?;
        let place = sites
            .first()
            .map(|s| b.stmts[s.place].text.clone())
            .unwrap_or_default();
        let out = sites
            .into_iter()
            .map(|s| {
                (
                    s.end,
                    b.stmts[s.anchor.stmt()].text.clone(),
                    matches!(s.anchor, Anchor::After(_)),
                    s.guarded,
                )
            })
            .collect();
        Ok((out, place))
    }

    fn entry(t: &str) -> Described {
        (RegionEnd::Entry, t.to_owned(), false, false)
    }

    fn exit(t: &str, after: bool, guarded: bool) -> Described {
        (RegionEnd::Exit, t.to_owned(), after, guarded)
    }

    #[test]
    fn lines_in_one_block_are_timed_from_their_first_to_their_last_instruction() {
        let (sites, place) = region(
            concat!(
                "\t.loc 1 1 0\n\tmov.u32 %r1, 0;\n",
                "\t.loc 1 2 0\n\tadd.s32 %r1, %r1, 1;\n\tadd.s32 %r1, %r1, 2;\n",
                "\t.loc 1 3 0\n\tadd.s32 %r1, %r1, 3;\n",
                "\t.loc 1 4 0\n\tret;"
            ),
            2,
            3,
        )
        .expect("placeable");
        assert_eq!(
            sites,
            [
                entry("add.s32 %r1, %r1, 1;"),
                exit("add.s32 %r1, %r1, 3;", true, false)
            ]
        );
        assert_eq!(place, "add.s32 %r1, %r1, 1;");
        // No instruction on the lines: no sites.
        assert_eq!(
            region("\t.loc 1 1 0\n\tret;", 5, 9).map(|s| s.0.len()),
            Ok(0)
        );
    }

    /// A loop whose body is line 3 and whose control is line 2; line 3's address
    /// computation hoisted before the loop; line 4 after it.
    const LOOP: &str = concat!(
        "\t.loc 1 1 0\n\tmov.u32 %r1, 0;\n",
        "\t.loc 1 3 0\n\tshl.b32 %r2, %r1, 2;\n",
        "\t.loc 1 1 0\n\tmov.u32 %r3, 0;\n",
        "$L_head:\n",
        "\t.loc 1 3 0\n\tadd.s32 %r3, %r3, %r2;\n",
        "\t.loc 1 2 0\n\tadd.s32 %r1, %r1, 1;\n\tsetp.lt.s32 %p1, %r1, 8;\n\t@%p1 bra $L_head;\n",
        "\t.loc 1 4 0\n\tst.global.u32 [%r4], %r3;\n\tret;"
    );

    #[test]
    fn a_loop_body_is_one_iteration_and_its_hoisted_code_is_left_out() {
        let (sites, _) = region(LOOP, 3, 3).expect("placeable");
        assert_eq!(
            sites,
            [
                entry("add.s32 %r3, %r3, %r2;"),
                exit("add.s32 %r3, %r3, %r2;", true, false)
            ]
        );
    }

    #[test]
    fn a_loop_statement_is_the_whole_loop() {
        // Lines 2-3: the loop's control is on them, so the loop is part of the region,
        // and so is the hoisted instruction; it ends where the loop leads.
        let (sites, _) = region(LOOP, 2, 3).expect("placeable");
        assert_eq!(
            sites,
            [
                entry("shl.b32 %r2, %r1, 2;"),
                exit("st.global.u32 [%r4], %r3;", false, false)
            ]
        );
        // Lines 1-3 start at the body's first instruction; lines 2-4 end before `ret`.
        let (sites, _) = region(LOOP, 1, 3).expect("placeable");
        assert_eq!(sites[0], entry("mov.u32 %r1, 0;"));
        let (sites, _) = region(LOOP, 2, 4).expect("placeable");
        assert_eq!(sites[1], exit("ret;", false, false));
    }

    #[test]
    fn an_if_else_is_timed_from_the_branch_to_the_join() {
        let (sites, place) = region(
            concat!(
                "\t.loc 1 1 0\n\tsetp.eq.s32 %p1, %r1, 0;\n\t@%p1 bra $L_else;\n",
                "\t.loc 1 2 0\n\tadd.s32 %r2, %r2, 1;\n\tbra.uni $L_join;\n",
                "$L_else:\n",
                "\t.loc 1 4 0\n\tadd.s32 %r2, %r2, 2;\n",
                "$L_join:\n",
                "\t.loc 1 6 0\n\tst.global.u32 [%r4], %r2;\n\tret;"
            ),
            2,
            4,
        )
        .expect("placeable");
        // The branch block has no line instruction: the region starts before its branch;
        // the join has none: it ends before the join's first instruction.
        assert_eq!(
            sites,
            [
                entry("@%p1 bra $L_else;"),
                exit("st.global.u32 [%r4], %r2;", false, false)
            ]
        );
        assert_eq!(place, "@%p1 bra $L_else;");
    }

    #[test]
    fn a_break_ends_the_region_before_its_branch() {
        let (sites, _) = region(
            concat!(
                "\t.loc 1 1 0\n\tmov.u32 %r1, 0;\n",
                "$L_head:\n",
                "\t.loc 1 3 0\n\tadd.s32 %r3, %r3, 1;\n\tsetp.eq.s32 %p2, %r3, 5;\n\t@%p2 bra $L_out;\n",
                "\t.loc 1 2 0\n\tadd.s32 %r1, %r1, 1;\n\tsetp.lt.s32 %p1, %r1, 8;\n\t@%p1 bra $L_head;\n",
                "$L_out:\n",
                "\t.loc 1 4 0\n\tret;"
            ),
            3,
            3,
        )
        .expect("placeable");
        assert_eq!(
            sites,
            [
                entry("add.s32 %r3, %r3, 1;"),
                exit("@%p2 bra $L_out;", false, false),
            ]
        );
    }

    #[test]
    fn lines_running_to_the_end_of_an_iteration_end_at_each_way_out_of_it() {
        // Line 3 holds a `break` and the latch's increment; the latch's branch is line 2
        // (the loop holds the region): the region ends where the back edge is taken and
        // where either exit is.
        let (sites, _) = region(
            concat!(
                "\t.loc 1 1 0\n\tmov.u32 %r1, 0;\n",
                "$L_head:\n",
                "\t.loc 1 3 0\n\tadd.s32 %r3, %r3, 1;\n\tsetp.eq.s32 %p2, %r3, 5;\n\t@%p2 bra $L_out;\n",
                "\tadd.s32 %r1, %r1, 1;\n",
                "\t.loc 1 2 0\n\tsetp.lt.s32 %p1, %r1, 8;\n\t@%p1 bra $L_head;\n",
                "$L_out:\n",
                "\t.loc 1 4 0\n\tret;"
            ),
            3,
            3,
        )
        .expect("placeable");
        assert_eq!(
            sites,
            [
                entry("add.s32 %r3, %r3, 1;"),
                exit("@%p1 bra $L_head;", false, true),
                exit("@%p2 bra $L_out;", false, true),
                exit("@%p1 bra $L_head;", true, false),
            ]
        );
    }

    #[test]
    fn lines_ending_in_two_returns_end_before_each() {
        let (sites, _) = region(
            concat!(
                "\t.loc 1 1 0\n\tsetp.eq.s32 %p1, %r1, 0;\n",
                "\t.loc 1 2 0\n\t@%p1 bra $L_b;\n",
                "\t.loc 1 3 0\n\tst.global.u32 [%r4], %r2;\n\tret;\n",
                "$L_b:\n",
                "\t.loc 1 5 0\n\tst.global.u32 [%r4], %r3;\n\t@%p2 ret;\n",
                "\t.loc 1 7 0\n\tret;"
            ),
            2,
            5,
        )
        .expect("placeable");
        assert_eq!(
            sites,
            [
                entry("@%p1 bra $L_b;"),
                exit("ret;", false, false),
                exit("@%p2 ret;", false, true),
                exit("ret;", false, false),
            ]
        );
    }

    #[test]
    fn an_irreducible_cycle_is_not_placeable() {
        let e = region(
            concat!(
                "\t.loc 1 1 0\n\tsetp.eq.s32 %p1, %r1, 0;\n\t@%p1 bra $L_b;\n",
                "$L_a:\n",
                "\t.loc 1 2 0\n\tadd.s32 %r1, %r1, 1;\n",
                "$L_b:\n",
                "\t.loc 1 3 0\n\tadd.s32 %r2, %r2, 1;\n\tsetp.lt.s32 %p2, %r2, 8;\n\t@%p2 bra $L_a;\n",
                "\t.loc 1 4 0\n\tret;"
            ),
            2,
            3,
        );
        assert!(e.is_err_and(|e| e.contains("irreducible")));
    }

    /// A structured kernel body for the pairing property.
    #[derive(Debug, Clone)]
    enum S {
        /// An instruction on this line.
        I(u32),
        /// `if` on a branch of this line, then and else arms.
        If(u32, Vec<S>, Vec<S>),
        /// A loop: its body and the line of its latch branch.
        Loop(Vec<S>, u32),
        /// A guarded `break` out of the innermost loop (a guarded `ret` outside loops).
        Break(u32),
        /// A guarded `ret`.
        Ret(u32),
    }

    fn body_strategy() -> impl proptest::strategy::Strategy<Value = Vec<S>> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            4 => (1u32..9).prop_map(S::I),
            1 => (1u32..9).prop_map(S::Break),
            1 => (1u32..9).prop_map(S::Ret),
        ];
        let stmt = leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                (
                    1u32..9,
                    proptest::collection::vec(inner.clone(), 0..4),
                    proptest::collection::vec(inner.clone(), 0..3)
                )
                    .prop_map(|(l, t, e)| S::If(l, t, e)),
                (proptest::collection::vec(inner, 0..4), 1u32..9).prop_map(|(b, l)| S::Loop(b, l)),
            ]
        });
        proptest::collection::vec(stmt, 1..6)
    }

    fn emit(stmts: &[S], out: &mut String, labels: &mut u32, exit: Option<u32>) {
        for st in stmts {
            match st {
                S::I(l) => out.push_str(&format!("\t.loc 1 {l} 0\n\tadd.s32 %r1, %r1, 1;\n")),
                S::If(l, t, e) => {
                    let n = *labels;
                    *labels += 1;
                    out.push_str(&format!("\t.loc 1 {l} 0\n\t@%p1 bra $E{n};\n"));
                    emit(t, out, labels, exit);
                    out.push_str(&format!("\tbra.uni $J{n};\n$E{n}:\n"));
                    emit(e, out, labels, exit);
                    out.push_str(&format!("$J{n}:\n"));
                }
                S::Loop(b, l) => {
                    let n = *labels;
                    *labels += 1;
                    out.push_str(&format!("$H{n}:\n"));
                    emit(b, out, labels, Some(n));
                    out.push_str(&format!("\t.loc 1 {l} 0\n\t@%p2 bra $H{n};\n$O{n}:\n"));
                }
                S::Break(l) => match exit {
                    Some(n) => out.push_str(&format!("\t.loc 1 {l} 0\n\t@%p3 bra $O{n};\n")),
                    None => out.push_str(&format!("\t.loc 1 {l} 0\n\t@%p3 ret;\n")),
                },
                S::Ret(l) => out.push_str(&format!("\t.loc 1 {l} 0\n\t@%p4 ret;\n")),
            }
        }
    }

    /// Walks `body` from its entry with branch outcomes from `seed`, firing the region's
    /// snippets where they are placed; returns the entry/exit sequence and whether the
    /// walk reached a `ret` (not the step limit).
    fn walk(b: &Body, sites: &[RegionSite], mut seed: u64) -> (Vec<RegionEnd>, bool) {
        let labels: std::collections::HashMap<&str, usize> = b
            .stmts
            .iter()
            .enumerate()
            .filter_map(|(i, s)| match &s.kind {
                StmtKind::Label(n) => Some((n.as_str(), i)),
                _ => None,
            })
            .collect();
        let mut coin = |p: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % 100 < p
        };
        let mut events = Vec::new();
        let mut at = crate::attach::entry_point(b);
        for _ in 0..4000 {
            let Some(stmt) = b.stmts.get(at) else {
                return (events, true);
            };
            let StmtKind::Instr(i) = &stmt.kind else {
                at += 1;
                continue;
            };
            let guard_true = match &i.guard {
                None => true,
                // Back edges are taken more often than not, other branches half the time.
                Some(_)
                    if i.root() == "bra" && i.guard.as_ref().is_some_and(|g| &*g.reg == "%p2") =>
                {
                    coin(70)
                }
                Some(_) => coin(40),
            };
            let transfers = guard_true && matches!(i.root(), "bra" | "ret");
            for s in sites {
                if s.anchor == Anchor::Before(at) && (!s.guarded || transfers) {
                    events.push(s.end);
                }
            }
            if transfers && i.root() == "ret" {
                return (events, true);
            }
            if transfers {
                let Some(crate::parse::Operand::Symbol(t)) = i.operands.first() else {
                    panic!("branch without a label");
                };
                at = labels[t.as_str()];
                continue;
            }
            for s in sites {
                if s.anchor == Anchor::After(at) {
                    events.push(s.end);
                }
            }
            at += 1;
        }
        (events, false)
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]
        /// On every path, a region's entry and exit alternate, entry first, and a walk
        /// that ends at a `ret` has closed every region it entered.
        #[test]
        fn entries_and_exits_pair_up_on_every_path(
            body in body_strategy(),
            from in 1u32..9,
            len in 0u32..4,
            seeds in proptest::collection::vec(proptest::prelude::any::<u64>(), 8),
        ) {
            let mut text = String::from("\t.loc 1 9 0\n\tmov.u32 %r1, 0;\n");
            emit(&body, &mut text, &mut 0, None);
            text.push_str("\t.loc 1 9 0\n\tret;");
            let src = format!(
                ".version 8.0\n.target sm_90\n.address_size 64\n.file 1 \"/src/a.cu\"\n\
                 .visible .entry k()\n{{\n\t.reg .pred %p<5>;\n\t.reg .b32 %r<2>;\n{text}\n}}\n"
            );
            let m = crate::parse::parse(&src).expect("parses");
            let b = m.functions()[0].body.as_ref().expect("body");
            let files = crate::site::file_table(m.source());
            let locs = crate::site::positions(b, &files).0;
            let lines = line_instrs(b, &locs, "a.cu", from, from + len);
            let cfg = Loops::analyze(b).expect("analyzes");
            let Ok(sites) = super::sites(&cfg, b, &lines) else {
                // Structured bodies are reducible and every path ends: always placeable.
                panic!("not placeable:\n{text}");
            };
            for seed in seeds {
                let (events, ended) = walk(b, &sites, seed);
                for (k, e) in events.iter().enumerate() {
                    let want = if k % 2 == 0 { RegionEnd::Entry } else { RegionEnd::Exit };
                    proptest::prop_assert_eq!(*e, want, "event {} of {:?}\n{}", k, events, text);
                }
                if ended {
                    proptest::prop_assert!(events.len() % 2 == 0, "open at ret: {:?}\n{}", events, text);
                }
            }
        }
    }
}
