//! Address provenance: which registers hold the map buffer's address (plus an offset) at
//! each instruction, on every path.
//!
//! A forward must-analysis over the spliced kernel's control-flow graph. A register is a
//! *map pointer* after an instruction when that instruction is inserted and
//!
//! - loads it, pointer-wide, from the map parameter ([`KernelModel::map_param`]);
//! - copies a map pointer into it ([`Compute::Copy`], e.g. `cvta.to.global`);
//! - adds to exactly one map pointer terms none of which is a map pointer
//!   ([`Compute::Add`]: `add`, `sub` of an offset, `mad` with the pointer as addend);
//!
//! and, for a guarded instruction, it already was one (lanes whose guard is false keep
//! the old value). Any other write — by a kernel instruction too — makes it something
//! else. At a join the sets of every predecessor are intersected; the entry starts with
//! none. That is the instrumenter's own address computation: the prologue loads the
//! parameter once, snippets add map offsets to it. The bounds of those offsets are the
//! IR-level verifier's obligation (map indices in bounds), not this module's.
//!
//! [`KernelModel::map_param`]: crate::KernelModel::map_param

use super::cfg::{Cfg, Node};
use super::Body;
use crate::{Access, Addr, Compute, Instr, Item, Origin, Space};
use petgraph::graph::NodeIndex;
use std::collections::{HashMap, VecDeque};

/// A set of candidate registers.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Bits(Vec<u64>);

impl Bits {
    fn empty(n: usize) -> Bits {
        Bits(vec![0; n.div_ceil(64)])
    }
    fn full(n: usize) -> Bits {
        Bits(vec![u64::MAX; n.div_ceil(64)])
    }
    fn get(&self, i: usize) -> bool {
        self.0[i / 64] & (1 << (i % 64)) != 0
    }
    fn set(&mut self, i: usize, v: bool) {
        if v {
            self.0[i / 64] |= 1 << (i % 64);
        } else {
            self.0[i / 64] &= !(1 << (i % 64));
        }
    }
    fn meet(&mut self, other: &Bits) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a &= b;
        }
    }
}

/// The map pointers known before each instruction.
#[derive(Debug)]
pub(super) struct Provenance {
    /// Candidate registers (those inserted code defines) and their bit.
    index: HashMap<String, usize>,
    /// State before each node; absent for nodes no path from the entry reaches.
    before: HashMap<NodeIndex, Bits>,
}

impl Provenance {
    /// Runs the analysis on `body` over `cfg`.
    pub(super) fn of(body: &Body, cfg: &Cfg) -> Provenance {
        let mut index = HashMap::new();
        for item in &body.items {
            if let Item::Instr(x) = item {
                if x.origin != Origin::Kernel {
                    for d in &x.defs {
                        let n = index.len();
                        index.entry(d.clone()).or_insert(n);
                    }
                }
            }
        }
        let n = index.len();
        let map_param = body.map_param.as_deref();
        let instr = |node: NodeIndex| match cfg.graph[node] {
            Node::Instr(i) => match &body.items[i] {
                Item::Instr(x) => Some(x),
                Item::Label { .. } => None,
            },
            _ => None,
        };
        let mut after: HashMap<NodeIndex, Bits> = HashMap::new();
        let mut before: HashMap<NodeIndex, Bits> = HashMap::new();
        let mut work: VecDeque<NodeIndex> = VecDeque::from([cfg.entry]);
        let mut queued: std::collections::HashSet<NodeIndex> = work.iter().copied().collect();
        while let Some(node) = work.pop_front() {
            queued.remove(&node);
            let mut state = if node == cfg.entry {
                Bits::empty(n)
            } else {
                Bits::full(n)
            };
            let mut reached = node == cfg.entry;
            for p in cfg.preds(node) {
                if let Some(s) = after.get(&p) {
                    state.meet(s);
                    reached = true;
                }
            }
            if !reached {
                continue;
            }
            let out = match instr(node) {
                Some(x) => transfer(x, &state, &index, map_param),
                None => state.clone(),
            };
            before.insert(node, state);
            if after.get(&node) != Some(&out) {
                after.insert(node, out);
                for s in cfg.graph.neighbors(node) {
                    if queued.insert(s) {
                        work.push_back(s);
                    }
                }
            }
        }
        Provenance { index, before }
    }

    /// Whether some path from the entry reaches `node`.
    pub(super) fn reaches(&self, node: NodeIndex) -> bool {
        self.before.contains_key(&node)
    }

    /// Whether `reg` holds a map pointer before the instruction at `node`. At an
    /// instruction no path from the entry reaches nothing does: dead inserted code never
    /// runs, but an access there is still refused rather than trusted to stay dead.
    pub(super) fn is_map_pointer(&self, node: NodeIndex, reg: &str) -> bool {
        match (self.before.get(&node), self.index.get(reg)) {
            (Some(bits), Some(&i)) => bits.get(i),
            _ => false,
        }
    }
}

/// The state after `x`.
fn transfer(
    x: &Instr,
    state: &Bits,
    index: &HashMap<String, usize>,
    map_param: Option<&str>,
) -> Bits {
    let mut out = state.clone();
    let is_ptr = |r: &str| index.get(r).is_some_and(|&i| state.get(i));
    let single = x.defs.len() == 1;
    let value = match (&x.compute, x.origin) {
        (_, Origin::Kernel) => false,
        (_, _) if !single => false,
        (Compute::LoadWord, _) => match (x.mem.as_slice(), map_param) {
            (
                [crate::MemRef {
                    space: Space::Param,
                    access: Access::Load,
                    addr: Addr::Symbol(sym),
                }],
                Some(param),
            ) => sym == param,
            _ => false,
        },
        (Compute::Copy(src), _) => is_ptr(src),
        (Compute::Add { addends, offsets }, _) => {
            addends.iter().filter(|r| is_ptr(r)).count() == 1 && !offsets.iter().any(|r| is_ptr(r))
        }
        _ => false,
    };
    for d in &x.defs {
        if let Some(&i) = index.get(d) {
            let keep = x.guard.is_none() || state.get(i);
            out.set(i, value && keep);
        }
    }
    out
}
