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
//! else, and so does a write to a register that overlaps it (`KernelModel::parts`: GCN's
//! `s41` ends the pair `s[40:41]`). At a join the sets of every predecessor are intersected; the entry starts with
//! none. That is the instrumenter's own address computation: the prologue loads the
//! parameter once, snippets add map offsets to it. The bounds of those offsets are the
//! IR-level verifier's obligation (map indices in bounds), not this module's.
//!
//! [`KernelModel::map_param`]: crate::KernelModel::map_param

use super::cfg::{Cfg, Node};
use super::Body;
use crate::{Access, Addr, Compute, Instr, Item, Name, Origin, Space};
use foldhash::{HashMap, HashMapExt};
use petgraph::graph::NodeIndex;
use std::collections::VecDeque;

/// A set of candidate registers: the first 128 in place (a state per node of a spliced
/// kernel's graph, copied at every step: no allocation for the usual few dozen), the
/// rest in `more`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Bits {
    first: [u64; 2],
    more: Vec<u64>,
}

impl Bits {
    fn filled(n: usize, word: u64) -> Bits {
        Bits {
            first: [word; 2],
            more: vec![word; n.div_ceil(64).saturating_sub(2)],
        }
    }
    fn empty(n: usize) -> Bits {
        Bits::filled(n, 0)
    }
    fn full(n: usize) -> Bits {
        Bits::filled(n, u64::MAX)
    }
    fn word(&mut self, i: usize) -> &mut u64 {
        match i / 64 {
            w @ 0..=1 => &mut self.first[w],
            w => &mut self.more[w - 2],
        }
    }
    fn get(&self, i: usize) -> bool {
        let word = match i / 64 {
            w @ 0..=1 => self.first[w],
            w => self.more[w - 2],
        };
        word & (1 << (i % 64)) != 0
    }
    fn set(&mut self, i: usize, v: bool) {
        let word = self.word(i);
        if v {
            *word |= 1 << (i % 64);
        } else {
            *word &= !(1 << (i % 64));
        }
    }
    fn meet(&mut self, other: &Bits) {
        for (a, b) in self.first.iter_mut().zip(&other.first) {
            *a &= b;
        }
        for (a, b) in self.more.iter_mut().zip(&other.more) {
            *a &= b;
        }
    }
}

/// The map pointers known before each instruction.
#[derive(Debug)]
pub(super) struct Provenance {
    /// Candidate registers (those inserted code defines) and their bit.
    index: HashMap<Name, usize>,
    /// State before each node (by index); `None` for nodes no path from the entry
    /// reaches.
    before: Vec<Option<Bits>>,
}

impl Provenance {
    /// Runs the analysis on `body` over `cfg`.
    pub(super) fn of(body: &Body<'_>, cfg: &Cfg) -> Provenance {
        let mut index = HashMap::new();
        for item in body.items.iter() {
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
        let overlaps = Overlaps::of(body, &index);
        let map_param = body.map_param.as_deref();
        let instr = |node: NodeIndex| match cfg.graph[node] {
            Node::Instr(i) => match &body.items[i] {
                Item::Instr(x) => Some(x),
                Item::Label { .. } => None,
            },
            _ => None,
        };
        let nodes = cfg.graph.node_count();
        let mut after: Vec<Option<Bits>> = vec![None; nodes];
        let mut before: Vec<Option<Bits>> = vec![None; nodes];
        let mut work: VecDeque<NodeIndex> = VecDeque::from([cfg.entry]);
        let mut queued = vec![false; nodes];
        queued[cfg.entry.index()] = true;
        while let Some(node) = work.pop_front() {
            queued[node.index()] = false;
            let mut state = if node == cfg.entry {
                Bits::empty(n)
            } else {
                Bits::full(n)
            };
            let mut reached = node == cfg.entry;
            for p in cfg.preds(node) {
                if let Some(s) = &after[p.index()] {
                    state.meet(s);
                    reached = true;
                }
            }
            if !reached {
                continue;
            }
            let out = match instr(node) {
                Some(x) => {
                    let mut out = transfer(x, &state, &index, map_param);
                    kill_aliases(x, &mut out, &overlaps);
                    out
                }
                None => state.clone(),
            };
            before[node.index()] = Some(state);
            if after[node.index()].as_ref() != Some(&out) {
                after[node.index()] = Some(out);
                for s in cfg.graph.neighbors(node) {
                    if !std::mem::replace(&mut queued[s.index()], true) {
                        work.push_back(s);
                    }
                }
            }
        }
        Provenance { index, before }
    }

    /// Whether some path from the entry reaches `node`.
    pub(super) fn reaches(&self, node: NodeIndex) -> bool {
        self.before.get(node.index()).is_some_and(Option::is_some)
    }

    /// Whether `reg` holds a map pointer before the instruction at `node`. At an
    /// instruction no path from the entry reaches nothing does: dead inserted code never
    /// runs, but an access there is still refused rather than trusted to stay dead.
    pub(super) fn is_map_pointer(&self, node: NodeIndex, reg: &str) -> bool {
        match (self.before.get(node.index()), self.index.get(reg)) {
            (Some(Some(bits)), Some(&i)) => bits.get(i),
            _ => false,
        }
    }
}

/// For models with overlapping register names (GCN tuples): the candidates that share a
/// machine register with each machine register. Empty for PTX.
struct Overlaps<'b> {
    aliases: &'b super::aliases::Aliases,
    by_part: HashMap<&'b str, Vec<(&'b str, usize)>>,
}

impl<'b> Overlaps<'b> {
    fn of(body: &'b Body<'_>, index: &'b HashMap<Name, usize>) -> Overlaps<'b> {
        let mut by_part: HashMap<&str, Vec<(&str, usize)>> = HashMap::new();
        if !body.aliases.is_empty() {
            for (name, &i) in index {
                for p in body.aliases.parts(name) {
                    by_part.entry(p).or_default().push((name.as_str(), i));
                }
            }
        }
        Overlaps {
            aliases: &body.aliases,
            by_part,
        }
    }
}

/// A write to a register ends every other candidate that overlaps it (writing `s41`
/// changes the pair `s[40:41]`).
fn kill_aliases(x: &Instr, out: &mut Bits, overlaps: &Overlaps<'_>) {
    if overlaps.by_part.is_empty() {
        return;
    }
    for d in &x.defs {
        for p in overlaps.aliases.parts(d) {
            for &(name, i) in overlaps.by_part.get(p).map_or(&[][..], Vec::as_slice) {
                if name != d {
                    out.set(i, false);
                }
            }
        }
    }
}

/// The state after `x`.
fn transfer(
    x: &Instr,
    state: &Bits,
    index: &HashMap<Name, usize>,
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

#[cfg(test)]
mod tests {
    use super::Bits;

    #[test]
    fn bit_sets_past_the_words_in_place_keep_every_bit() {
        let n = 200;
        let mut a = Bits::empty(n);
        let mut b = Bits::full(n);
        for i in [0, 63, 64, 127, 128, 150, 199] {
            a.set(i, true);
            assert!(a.get(i), "{i}");
        }
        assert!(!a.get(1) && !a.get(129) && !a.get(198));
        b.set(150, false);
        b.set(64, false);
        b.meet(&a);
        let set: Vec<usize> = (0..n).filter(|&i| b.get(i)).collect();
        assert_eq!(set, [0, 63, 127, 128, 199]);
        a.set(199, false);
        assert!(!a.get(199) && a.get(150));
    }
}
