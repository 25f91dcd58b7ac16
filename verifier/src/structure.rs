//! Control-flow structure shared by the back ends: basic blocks, natural loops (the
//! `loop:` attach points) and the single-entry single-exit region around a set of
//! statements (the `region:` points).
//!
//! A back end cuts its body into [`Block`]s joined by [`Edge`]s — statement indices are
//! its own — and answers [`Code`]'s questions about single statements; [`Loops::new`]
//! finds the natural loops, [`Loops::sites`] places loop points and [`region_sites`]
//! places a region's two ends. The back ends' block cutting is `codegen-ptx/src/loops.rs`
//! and `codegen-gcn/src/loops.rs` (which also decides where `exec` lets a region's ends
//! be placed on GCN: decisions 0023, 0028).
//!
//! **Loops.** Dominators come from `petgraph::algo::dominators::simple_fast` rooted at the
//! entry block (block 0). A back edge is an edge `u → h` whose target `h` dominates `u`;
//! the natural loop of header `h` is `h` plus every block that reaches one of its back
//! edges' sources without passing through `h` (all back edges to one header form one
//! loop). A cycle with more than one entry (an irreducible region) has no back edge and is
//! no loop; unreachable blocks are in no loop. The exits of a loop are its edges from a
//! block inside to a block outside; an edge that leaves several nested loops is an exit of
//! each of them. A header's snippet goes before the header block's first instruction; a
//! back edge's or an exit's where the edge is taken: before a branch (guarded by the
//! branch's condition when it has one), right after the block's last instruction for a
//! fall-through edge.
//!
//! **Regions.** The statements given (a source-line range's instructions, reachable from
//! the entry) are the region's *lines*.
//!
//! **Hoisted code.** A loop holds the region, rather than being part of it, when some
//! line instruction is in it but none of its back edges' instructions (the loop's own
//! control, which carries the loop statement's line) is. Line instructions outside the
//! innermost such loop (when they nest) are computations the compiler hoisted out of it —
//! loop-invariant parts of the lines — and are left out: the lines of a loop body time one
//! iteration, not the whole loop around the hoisted part.
//!
//! **The level.** Let `L` be the innermost natural loop holding every
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

use petgraph::algo::dominators::{simple_fast, Dominators};
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::Reversed;
use std::collections::BTreeSet;
use warptrace_ir::{LoopEdge, RegionEnd};

/// What the structure needs to know of a statement (an index into the back end's body).
pub trait Code {
    /// Whether the statement is an instruction that ends its block (a branch, an exit).
    fn ends_block(&self, s: usize) -> bool;
    /// Whether it leaves the function (`ret`, `exit`, `s_endpgm`, a trap), guarded or not.
    fn leaves(&self, s: usize) -> bool;
    /// Whether it is conditional (a predicated or conditional branch or exit): a snippet
    /// before it that takes its condition runs only when it transfers control.
    fn guarded(&self, s: usize) -> bool;
    /// How an error names it: its text and source line.
    fn describe(&self, s: usize) -> String;
}

/// A basic block: statements `start..end` of the body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// First statement (a label or an instruction).
    pub start: usize,
    /// One past the last statement.
    pub end: usize,
    /// The labels naming the block (statement indices).
    pub labels: Vec<usize>,
    /// The first instruction, if it has any (only a block at the end of the body has none).
    pub first_instr: Option<usize>,
    /// The last instruction, if it has any.
    pub last_instr: Option<usize>,
}

/// How control goes from one block to another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EdgeKind {
    /// The branch at this statement is taken.
    Taken(usize),
    /// Control falls through past the block's last statement, this one.
    FallThrough(usize),
    /// One of the targets of the `brx.idx` at this statement.
    Indexed(usize),
}

impl EdgeKind {
    /// The statement the edge leaves from (a branch, or a block's last statement).
    pub fn stmt(self) -> usize {
        match self {
            EdgeKind::Taken(s) | EdgeKind::FallThrough(s) | EdgeKind::Indexed(s) => s,
        }
    }
}

/// An edge between two blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Edge {
    /// Source block.
    pub from: usize,
    /// Target block.
    pub to: usize,
    /// How.
    pub kind: EdgeKind,
}

/// One natural loop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loop {
    /// The header block.
    pub header: usize,
    /// Every block of the loop (the header included).
    pub blocks: BTreeSet<usize>,
    /// The back edges (indices into [`Loops::edges`]), in text order of their source.
    pub backedges: Vec<usize>,
    /// The exit edges (indices into [`Loops::edges`]), in text order of their source.
    pub exits: Vec<usize>,
}

/// Where a loop snippet goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Anchor {
    /// Before this statement (an instruction).
    Before(usize),
    /// Right after this statement (an instruction), before anything that follows it.
    After(usize),
}

impl Anchor {
    /// The statement the snippet is anchored to.
    pub fn stmt(self) -> usize {
        match self {
            Anchor::Before(s) | Anchor::After(s) => s,
        }
    }
}

/// One place a loop probe runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoopSite {
    /// Which loop point.
    pub edge: LoopEdge,
    /// Where the snippet goes.
    pub anchor: Anchor,
    /// Whether the snippet is guarded by the predicate of the branch it precedes (it then
    /// runs only when the branch is taken).
    pub guarded: bool,
    /// The loop's header block.
    pub header: usize,
    /// The header block's first instruction (a statement index): the loop's place, whose
    /// `pc`, `file` and `line` every point of the loop reports.
    pub header_instr: Option<usize>,
}

/// The blocks, edges and natural loops of a body.
#[derive(Debug, Clone)]
pub struct Loops {
    /// Blocks in text order (block 0 is the entry block).
    pub blocks: Vec<Block>,
    /// Every edge.
    pub edges: Vec<Edge>,
    /// Natural loops, in text order of their headers.
    pub loops: Vec<Loop>,
}

impl Loops {
    /// The natural loops of the graph of `blocks` (block 0 is the entry) and `edges`.
    pub fn new(blocks: Vec<Block>, edges: Vec<Edge>) -> Loops {
        let loops = natural_loops(blocks.len(), &edges);
        Loops {
            blocks,
            edges,
            loops,
        }
    }

    /// Where the probes of loop point `edge` run, loop by loop in header order (for each
    /// loop its header, then its back edges or exits in text order). An error names an
    /// edge no snippet can be placed on (a back edge or exit of an indexed branch, PTX's `brx.idx`).
    pub fn sites(&self, edge: LoopEdge, code: &dyn Code) -> Result<Vec<LoopSite>, String> {
        let mut out = Vec::new();
        for l in &self.loops {
            let site = |anchor, guarded| LoopSite {
                edge,
                anchor,
                guarded,
                header: l.header,
                header_instr: self.blocks[l.header].first_instr,
            };
            match edge {
                LoopEdge::Header => {
                    // A header always has an instruction: it has a successor.
                    if let Some(first) = self.blocks[l.header].first_instr {
                        out.push(site(Anchor::Before(first), false));
                    }
                }
                LoopEdge::Backedge | LoopEdge::Exit => {
                    let list = if edge == LoopEdge::Backedge {
                        &l.backedges
                    } else {
                        &l.exits
                    };
                    for &e in list {
                        let (anchor, guarded) = match self.edges[e].kind {
                            EdgeKind::Taken(s) => (Anchor::Before(s), code.guarded(s)),
                            EdgeKind::FallThrough(s) => (Anchor::After(s), false),
                            EdgeKind::Indexed(s) => {
                                return Err(format!(
                                    "loop:{} at {}: a snippet before an indexed branch cannot \
                                     tell which target it takes",
                                    edge.name(),
                                    code.describe(s)
                                ))
                            }
                        };
                        out.push(site(anchor, guarded));
                    }
                }
            }
        }
        Ok(out)
    }
}

/// The natural loops of a graph of `n` blocks (block 0 the entry) with these edges.
fn natural_loops(n: usize, edges: &[Edge]) -> Vec<Loop> {
    if n == 0 {
        return Vec::new();
    }
    let mut g: DiGraph<(), ()> = DiGraph::with_capacity(n, edges.len());
    let nodes: Vec<NodeIndex> = (0..n).map(|_| g.add_node(())).collect();
    for e in edges {
        g.add_edge(nodes[e.from], nodes[e.to], ());
    }
    let dom = simple_fast(&g, nodes[0]);
    let dominates = |h: usize, u: usize| {
        dom.dominators(nodes[u])
            .is_some_and(|mut d| d.any(|x| x == nodes[h]))
    };
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    for e in edges {
        preds[e.to].push(e.from);
    }
    // Back edges grouped by header, headers in text order.
    let mut by_header: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
    for (k, e) in edges.iter().enumerate() {
        if dominates(e.to, e.from) {
            by_header.entry(e.to).or_default().push(k);
        }
    }
    let reachable = |b: usize| dom.dominators(nodes[b]).is_some();
    by_header
        .into_iter()
        .map(|(h, mut backedges)| {
            let mut blocks = BTreeSet::from([h]);
            let mut work: Vec<usize> = backedges.iter().map(|&k| edges[k].from).collect();
            while let Some(b) = work.pop() {
                if blocks.insert(b) {
                    work.extend(preds[b].iter().copied().filter(|&p| reachable(p)));
                }
            }
            let mut exits: Vec<usize> = (0..edges.len())
                .filter(|&k| blocks.contains(&edges[k].from) && !blocks.contains(&edges[k].to))
                .collect();
            backedges.sort_by_key(|&k| (edges[k].from, k));
            exits.sort_by_key(|&k| (edges[k].from, k));
            Loop {
                header: h,
                blocks,
                backedges,
                exits,
            }
        })
        .collect()
}

/// One place a region probe runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RegionSite {
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
/// in the code `code` whose blocks, edges and loops are `cfg`. Empty when no line instruction is
/// reachable; an error says why the region cannot be placed (an irreducible cycle, code
/// that never reaches an exit, an edge no snippet can single out).
pub fn region_sites(
    cfg: &Loops,
    code: &dyn Code,
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
    let mut holding: Vec<&Loop> = cfg
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
    let graph = LevelGraph::new(cfg, code, level, &reachable)?;
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
                Some(&s) if code.ends_block(s) => Anchor::Before(s),
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
                    for s in cfg.sites(edge, code)? {
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
                match blk.last_instr.filter(|&last| code.leaves(last)) {
                    Some(last) => out.push(exit(Anchor::Before(last), code.guarded(last))),
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
        code: &dyn Code,
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
            let leaves = blk.last_instr.is_some_and(|s| code.leaves(s));
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
