//! The control-flow graph of a body (petgraph), and `ControlFlow` as graph equivalence:
//! with every run of inserted instructions contracted, the spliced kernel's graph is the
//! original's, instruction for instruction.
//!
//! Nodes are instructions plus three pseudo-nodes: `Exit` (`ret`, `exit`, `trap`),
//! `End` (falling off the end of the body) and `Unknown` (a branch whose target the body
//! does not define once; it may reach any label, so it gets an edge to every labelled
//! instruction). Edges are fall-through and branch edges; a guarded exit or trap also
//! falls through.
//!
//! Contraction: the successors of a kernel instruction are followed through inserted
//! instructions until they reach kernel instructions or pseudo-nodes; a cycle made of
//! inserted instructions only (found with Tarjan's strongly connected components) is a
//! `Loop` successor, which no original instruction has. The k-th kernel instruction of
//! the spliced body stands for the k-th of the original (`KernelPreserved` proves them
//! the same instructions in the same order); the two graphs are equivalent when every
//! kernel instruction has the same successor set under that correspondence and the
//! entry leads to the same first instruction. That is an isomorphism of the two graphs
//! fixed to the only correspondence that matters, and it is checked in linear time.
//!
//! The linear rules of `control_flow.rs` prove the same property from the order of
//! items; `check` runs only when they and `KernelPreserved` found nothing, so a
//! violation from here means the linear argument missed a case.

use super::{snippet_of, Body, Finding, Violations};
use crate::{Flow, Item, KernelRule, Origin};
use foldhash::{HashMap, HashMapExt};
use petgraph::algo::tarjan_scc;
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::Direction;
use std::collections::BTreeSet;

/// A node of the graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Node {
    /// The instruction at this item index of the body.
    Instr(usize),
    /// Leaves the kernel.
    Exit,
    /// Falls off the end of the body.
    End,
    /// An unresolved branch target.
    Unknown,
}

/// The control-flow graph of one body.
#[derive(Debug)]
pub(super) struct Cfg {
    pub graph: DiGraph<Node, ()>,
    /// The node of each item (labels have none).
    pub node_of: Vec<Option<NodeIndex>>,
    /// Where execution starts.
    pub entry: NodeIndex,
    exit: NodeIndex,
    end: NodeIndex,
    unknown: NodeIndex,
}

impl Cfg {
    /// Builds the graph of `body`.
    pub(super) fn build(body: &Body<'_>) -> Cfg {
        let mut graph = DiGraph::new();
        let exit = graph.add_node(Node::Exit);
        let end = graph.add_node(Node::End);
        let unknown = graph.add_node(Node::Unknown);
        let node_of: Vec<Option<NodeIndex>> = body
            .items
            .iter()
            .enumerate()
            .map(|(i, item)| match item {
                Item::Instr(_) => Some(graph.add_node(Node::Instr(i))),
                Item::Label { .. } => None,
            })
            .collect();
        // The node that runs next from item index `i` on (the instruction at or after
        // it, or the end of the body).
        let mut next_from = vec![end; body.items.len() + 1];
        for i in (0..body.items.len()).rev() {
            next_from[i] = node_of[i].unwrap_or(next_from[i + 1]);
        }
        let mut labels: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, item) in body.items.iter().enumerate() {
            if let Item::Label { name, .. } = item {
                labels.entry(name.as_str()).or_default().push(i);
            }
        }
        let target_node = |name: &str| match labels.get(name).map(Vec::as_slice) {
            Some([one]) => next_from[*one],
            _ => unknown,
        };
        for (i, item) in body.items.iter().enumerate() {
            let (Item::Instr(x), Some(n)) = (item, node_of[i]) else {
                continue;
            };
            let fall = next_from[i + 1];
            let mut succ = Vec::with_capacity(2);
            match &x.flow {
                Flow::Branch {
                    target,
                    conditional,
                } => {
                    succ.push(target_node(target));
                    if *conditional || x.guard.is_some() {
                        succ.push(fall);
                    }
                }
                Flow::Switch { targets } => {
                    succ.extend(targets.iter().map(|t| target_node(t)));
                    if x.guard.is_some() {
                        succ.push(fall);
                    }
                }
                Flow::Exit | Flow::Trap => {
                    succ.push(exit);
                    if x.guard.is_some() {
                        succ.push(fall);
                    }
                }
                Flow::Next | Flow::Call | Flow::Barrier | Flow::WarpCollective => succ.push(fall),
            }
            succ.dedup();
            for s in succ {
                graph.update_edge(n, s, ());
            }
        }
        let mut labelled: Vec<NodeIndex> =
            labels.values().flatten().map(|&i| next_from[i]).collect();
        labelled.sort_unstable();
        labelled.dedup();
        for n in labelled {
            graph.update_edge(unknown, n, ());
        }
        Cfg {
            graph,
            entry: next_from[0],
            node_of,
            exit,
            end,
            unknown,
        }
    }

    /// The predecessors of `n`.
    pub(super) fn preds(&self, n: NodeIndex) -> impl Iterator<Item = NodeIndex> + '_ {
        self.graph.neighbors_directed(n, Direction::Incoming)
    }
}

/// Where control goes after contraction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Target {
    /// The kernel instruction with this ordinal (its rank among kernel instructions).
    Kernel(usize),
    Exit,
    End,
    Unknown,
    /// A cycle of inserted instructions.
    Loop,
}

/// The contracted view of one body: ordinals of its kernel instructions and, for every
/// node, the targets it leads to.
struct Contracted<'a> {
    body: &'a Body<'a>,
    cfg: &'a Cfg,
    /// Ordinal of each kernel instruction node, by node index (a spliced kernel has
    /// thousands of nodes: indexed, not hashed).
    ordinal: Vec<Option<usize>>,
    /// Kernel instruction nodes in order.
    kernel: Vec<NodeIndex>,
    /// Targets reached through each inserted node, by node index.
    through: Vec<Option<BTreeSet<Target>>>,
}

impl<'a> Contracted<'a> {
    fn new(body: &'a Body<'a>, cfg: &'a Cfg) -> Contracted<'a> {
        let nodes = cfg.graph.node_count();
        let mut ordinal = vec![None; nodes];
        let mut kernel = Vec::new();
        for (i, item) in body.items.iter().enumerate() {
            if let (Item::Instr(x), Some(n)) = (item, cfg.node_of[i]) {
                if x.origin == Origin::Kernel {
                    ordinal[n.index()] = Some(kernel.len());
                    kernel.push(n);
                }
            }
        }
        let mut c = Contracted {
            body,
            cfg,
            ordinal,
            kernel,
            through: vec![None; nodes],
        };
        c.contract_inserted();
        c
    }

    fn is_inserted(&self, n: NodeIndex) -> bool {
        matches!(self.cfg.graph[n], Node::Instr(i) if self.origin(i) != Origin::Kernel)
    }

    fn origin(&self, item: usize) -> Origin {
        match &self.body.items[item] {
            Item::Instr(x) => x.origin,
            Item::Label { origin, .. } => *origin,
        }
    }

    /// A node that is not inserted, as a target.
    fn direct(&self, n: NodeIndex) -> Target {
        if n == self.cfg.exit {
            Target::Exit
        } else if n == self.cfg.end {
            Target::End
        } else if n == self.cfg.unknown {
            Target::Unknown
        } else {
            self.ordinal
                .get(n.index())
                .copied()
                .flatten()
                .map_or(Target::Unknown, Target::Kernel)
        }
    }

    /// Fills `through` for every inserted node, one strongly connected component of the
    /// inserted subgraph at a time, successors first.
    fn contract_inserted(&mut self) {
        // The inserted subgraph, copied out compactly: Tarjan over a filtered view of the
        // whole graph tested the filter at every neighbour of every node.
        let graph = &self.cfg.graph;
        let inserted: Vec<NodeIndex> = graph
            .node_indices()
            .filter(|&n| self.is_inserted(n))
            .collect();
        let mut compact = vec![None; graph.node_count()];
        for (k, &n) in inserted.iter().enumerate() {
            compact[n.index()] = Some(NodeIndex::new(k));
        }
        let mut sub: DiGraph<(), ()> = DiGraph::with_capacity(inserted.len(), inserted.len());
        for _ in &inserted {
            sub.add_node(());
        }
        for (k, &n) in inserted.iter().enumerate() {
            for m in graph.neighbors(n) {
                if let Some(c) = compact[m.index()] {
                    sub.add_edge(NodeIndex::new(k), c, ());
                }
            }
        }
        let sccs = tarjan_scc(&sub).into_iter().map(|scc| {
            scc.into_iter()
                .map(|k| inserted[k.index()])
                .collect::<Vec<_>>()
        });
        for scc in sccs {
            // Most inserted nodes (straight-line snippets) are components of their own.
            let members: BTreeSet<NodeIndex> = if scc.len() > 1 {
                scc.iter().copied().collect()
            } else {
                BTreeSet::new()
            };
            let mut targets = BTreeSet::new();
            let looped = scc.len() > 1
                || scc
                    .iter()
                    .any(|&n| self.cfg.graph.neighbors(n).any(|m| m == n));
            if looped {
                targets.insert(Target::Loop);
            }
            for &n in &scc {
                for m in self.cfg.graph.neighbors(n) {
                    if m == n || members.contains(&m) {
                        continue;
                    }
                    if self.is_inserted(m) {
                        if let Some(Some(t)) = self.through.get(m.index()) {
                            targets.extend(t.iter().copied());
                        }
                    } else {
                        targets.insert(self.direct(m));
                    }
                }
            }
            for n in scc {
                if let Some(slot) = self.through.get_mut(n.index()) {
                    *slot = Some(targets.clone());
                }
            }
        }
    }

    /// The targets `n` leads to.
    fn resolve(&self, n: NodeIndex) -> BTreeSet<Target> {
        if self.is_inserted(n) {
            self.through
                .get(n.index())
                .cloned()
                .flatten()
                .unwrap_or_default()
        } else {
            BTreeSet::from([self.direct(n)])
        }
    }

    /// The contracted successors of kernel instruction `n`.
    fn successors(&self, n: NodeIndex) -> BTreeSet<Target> {
        self.cfg
            .graph
            .neighbors(n)
            .flat_map(|m| self.resolve(m))
            .collect()
    }

    /// The first inserted successor of `n`, for locating the snippet at fault.
    fn inserted_successor(&self, n: NodeIndex) -> Option<u32> {
        self.cfg
            .graph
            .neighbors(n)
            .find(|&m| self.is_inserted(m))
            .and_then(|m| match self.cfg.graph[m] {
                Node::Instr(i) => snippet_of(self.origin(i)),
                _ => None,
            })
    }

    fn describe(&self, t: Target) -> String {
        match t {
            Target::Kernel(k) => match self.cfg.graph[self.kernel[k]] {
                Node::Instr(i) => match &self.body.items[i] {
                    Item::Instr(x) => format!("`{}` (line {})", x.text, x.line),
                    Item::Label { name, .. } => format!("label `{name}`"),
                },
                _ => "?".into(),
            },
            Target::Exit => "the kernel's exit".into(),
            Target::End => "the end of the body".into(),
            Target::Unknown => "an unresolved label".into(),
            Target::Loop => "a loop made of inserted instructions".into(),
        }
    }

    fn describe_all(&self, ts: &BTreeSet<Target>) -> String {
        if ts.is_empty() {
            return "nothing".into();
        }
        let v: Vec<String> = ts.iter().map(|&t| self.describe(t)).collect();
        v.join(", ")
    }

    fn text_of(&self, n: NodeIndex) -> (&str, u32) {
        match self.cfg.graph[n] {
            Node::Instr(i) => match &self.body.items[i] {
                Item::Instr(x) => (&x.text, x.line),
                Item::Label { .. } => ("", 0),
            },
            _ => ("", 0),
        }
    }
}

/// Compares the contracted graph of `spliced` with the graph of `original`.
pub(super) fn check(original: &Body<'_>, spliced: &Body<'_>, cfg: &Cfg, out: &mut Violations) {
    let original_cfg = Cfg::build(original);
    let before = Contracted::new(original, &original_cfg);
    let after = Contracted::new(spliced, cfg);
    if before.kernel.len() != after.kernel.len() {
        return; // `KernelPreserved`'s to report.
    }
    let entry_before = before.resolve(original_cfg.entry);
    let entry_after = after.resolve(cfg.entry);
    if entry_before != entry_after {
        let line = spliced.items.iter().find_map(|item| match item {
            Item::Instr(x) => Some(x.line),
            Item::Label { .. } => None,
        });
        let snippet = match cfg.graph[cfg.entry] {
            Node::Instr(i) => snippet_of(after.origin(i)),
            _ => None,
        };
        out.push(Finding {
            rule: KernelRule::ControlFlow,
            snippet,
            line: line.unwrap_or(0),
            text: "<entry>",
            message: format!(
                "with snippets contracted, the kernel starts at {}; the original starts at {}",
                after.describe_all(&entry_after),
                before.describe_all(&entry_before)
            ),
            corrupts: before
                .kernel
                .first()
                .map(|&n| before.text_of(n).0.to_string()),
        });
    }
    for (&nb, &na) in before.kernel.iter().zip(&after.kernel) {
        let want = before.successors(nb);
        let got = after.successors(na);
        if want == got {
            continue;
        }
        let (text, line) = after.text_of(na);
        out.push(Finding {
            rule: KernelRule::ControlFlow,
            snippet: after.inserted_successor(na),
            line,
            text,
            message: format!(
                "with snippets contracted, `{text}` leads to {}; in the original it leads to {}",
                after.describe_all(&got),
                before.describe_all(&want)
            ),
            corrupts: Some(text.to_string()),
        });
    }
}
