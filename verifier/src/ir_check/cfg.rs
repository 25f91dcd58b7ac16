//! A probe's control-flow graph: one node per instruction, built with petgraph.
//!
//! Building it checks `JumpTarget` (every jump strictly forward and inside the probe)
//! and `MissingExit` (no reachable path runs past the last instruction). Only valid
//! edges enter the graph, so every edge goes from a lower to a higher index: the graph
//! is a DAG and index order is a topological order, which the dataflow relies on.

use super::ProbeReport;
use crate::IrRule;
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::Dfs;
use petgraph::Direction;
use warptrace_ir::Insn;

/// The CFG of one probe. Node `i` is instruction `i`.
#[derive(Debug)]
pub(super) struct ProbeCfg {
    graph: DiGraph<(), ()>,
    reachable: Vec<bool>,
}

impl ProbeCfg {
    /// Builds the CFG of `report`'s probe, reporting bad jumps and fall-through.
    pub(super) fn build(report: &mut ProbeReport<'_>) -> ProbeCfg {
        let insns = &report.probe.insns;
        let len = insns.len();
        let mut graph = DiGraph::with_capacity(len, len + len / 2);
        for _ in 0..len {
            graph.add_node(());
        }
        // The one instruction that can fall past the end, if it does.
        let mut falls_off = None;
        for (i, insn) in insns.iter().enumerate() {
            let (jump, falls_through) = match insn {
                Insn::Exit => (None, false),
                Insn::Jump { target } => (Some(*target), false),
                Insn::Branch { target, .. } => (Some(*target), true),
                Insn::Mov { .. }
                | Insn::Bin { .. }
                | Insn::Ext { .. }
                | Insn::ReadSpecial { .. }
                | Insn::ReadSite { .. }
                | Insn::LoadPersist { .. }
                | Insn::StorePersist { .. }
                | Insn::MapUpdate { .. }
                | Insn::ArraySave { .. }
                | Insn::RingAppend { .. }
                | Insn::Printf { .. }
                | Insn::Print { .. }
                | Insn::Clear { .. }
                | Insn::Zero { .. }
                | Insn::Delete { .. }
                | Insn::StopTracing => (None, true),
            };
            if let Some(target) = jump {
                let t = target as usize;
                if t <= i {
                    let what = if t == i {
                        "jumps to itself".to_string()
                    } else {
                        format!("jumps backwards to insn {t}")
                    };
                    let message = format!("{what}; jumps must go strictly forward");
                    report.error(Some(i), IrRule::JumpTarget, message);
                } else if t >= len {
                    let message = format!(
                        "jump target {t} is past the probe's last instruction ({})",
                        len - 1
                    );
                    report.error(Some(i), IrRule::JumpTarget, message);
                } else {
                    graph.add_edge(NodeIndex::new(i), NodeIndex::new(t), ());
                }
            }
            if falls_through {
                if i + 1 < len {
                    graph.add_edge(NodeIndex::new(i), NodeIndex::new(i + 1), ());
                } else {
                    falls_off = Some(i);
                }
            }
        }

        let mut reachable = vec![false; len];
        if len > 0 {
            let mut dfs = Dfs::new(&graph, NodeIndex::new(0));
            while let Some(node) = dfs.next(&graph) {
                reachable[node.index()] = true;
            }
        } else {
            report.error(
                None,
                IrRule::MissingExit,
                "probe has no instructions; every path must end with `exit`".to_string(),
            );
        }
        // Only a reachable instruction puts a path past the end.
        if let Some(i) = falls_off.filter(|&i| reachable[i]) {
            report.error(
                Some(i),
                IrRule::MissingExit,
                "control falls through past the last instruction; every path must end with `exit`"
                    .to_string(),
            );
        }
        ProbeCfg { graph, reachable }
    }

    /// Number of instructions.
    pub(super) fn len(&self) -> usize {
        self.reachable.len()
    }

    /// Whether some path from the probe's entry reaches instruction `i`.
    pub(super) fn is_reachable(&self, i: usize) -> bool {
        self.reachable.get(i).copied().unwrap_or(false)
    }

    /// The instructions with an edge to `i` (a branch to its own fall-through appears
    /// twice).
    pub(super) fn predecessors(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        self.graph
            .neighbors_directed(NodeIndex::new(i), Direction::Incoming)
            .map(|n| n.index())
    }
}
