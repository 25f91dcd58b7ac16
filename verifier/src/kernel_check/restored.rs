//! `RegisterIsolation` for the registers inserted code may save and restore
//! ([`KernelModel::restorable`]: GCN's `scc`, `vcc`, `exec`, `m0`).
//!
//! A forward must-analysis over the spliced kernel's control-flow graph. At each point it
//! knows which restorable registers (by machine register, [`KernelModel::parts`]) inserted
//! code has written since the last kernel instruction (*clobbered*), and which registers
//! inserted code defined hold the value a restorable register had then (*saved copies*):
//!
//! - an unguarded inserted [`Compute::Copy`] of a restorable register that is not
//!   clobbered into one register `c` makes `c` a saved copy of it;
//! - an unguarded inserted copy of a saved copy back into the very register it saved
//!   restores that register (it is no longer clobbered);
//! - any other inserted write clobbers the restorable registers it overlaps and ends
//!   the saved copies it overlaps;
//! - a kernel instruction starts afresh (nothing clobbered, no copies: it may change
//!   the restorable registers itself).
//!
//! At a join the clobbered sets are united and the copies intersected. Every kernel
//! instruction must be reached with nothing clobbered: inserted code hands the
//! registers back exactly as it found them. A copy is a move of the whole value
//! (GCN's `s_mov_b64 s[90:91], exec`), or an encoding the back end declares a copy and
//! whose inverse restores it (`s_cselect_b32 s94, -1, 0` and `s_cmp_lg_u32 s94, 0` for
//! `scc`).
//!
//! [`KernelModel::restorable`]: crate::KernelModel::restorable
//! [`KernelModel::parts`]: crate::KernelModel::parts

use super::cfg::{Cfg, Node};
use super::{snippet_of, Body, Finding, Violations};
use crate::{Compute, Instr, Item, KernelRule, Name, Origin};
use petgraph::graph::NodeIndex;
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};

/// What inserted code has done to the restorable registers since the last kernel
/// instruction.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct State {
    /// Clobbered machine registers and the snippet that clobbered each (the first one).
    clobbered: BTreeMap<String, u32>,
    /// Saved copies: register → the restorable register whose value it holds.
    copies: BTreeMap<Name, Name>,
}

impl State {
    fn meet(&mut self, other: &State) {
        for (r, s) in &other.clobbered {
            self.clobbered.entry(r.clone()).or_insert(*s);
        }
        self.copies
            .retain(|c, saved| other.copies.get(c).is_some_and(|o| o == saved));
    }
}

pub(super) fn check(spliced: &Body<'_>, cfg: &Cfg, out: &mut Violations) {
    if spliced.restorable.is_empty() {
        return;
    }
    let instr = |node: NodeIndex| match cfg.graph[node] {
        Node::Instr(i) => match &spliced.items[i] {
            Item::Instr(x) => Some(x),
            Item::Label { .. } => None,
        },
        _ => None,
    };
    let mut after: HashMap<NodeIndex, State> = HashMap::new();
    let mut before: HashMap<NodeIndex, State> = HashMap::new();
    let mut work: VecDeque<NodeIndex> = VecDeque::from([cfg.entry]);
    let mut queued: HashSet<NodeIndex> = work.iter().copied().collect();
    while let Some(node) = work.pop_front() {
        queued.remove(&node);
        let mut state: Option<State> = (node == cfg.entry).then(State::default);
        for p in cfg.preds(node) {
            if let Some(s) = after.get(&p) {
                match &mut state {
                    Some(st) => st.meet(s),
                    None => state = Some(s.clone()),
                }
            }
        }
        let Some(state) = state else { continue };
        let next = match instr(node) {
            Some(x) => transfer(spliced, x, &state),
            None => state.clone(),
        };
        before.insert(node, state);
        if after.get(&node) != Some(&next) {
            after.insert(node, next);
            for s in cfg.graph.neighbors(node) {
                if queued.insert(s) {
                    work.push_back(s);
                }
            }
        }
    }
    for (i, item) in spliced.items.iter().enumerate() {
        let Item::Instr(x) = item else { continue };
        if x.origin != Origin::Kernel {
            continue;
        }
        let Some(state) = cfg.node_of[i].and_then(|n| before.get(&n)) else {
            continue;
        };
        for (reg, snippet) in &state.clobbered {
            out.push(Finding {
                rule: KernelRule::RegisterIsolation,
                snippet: Some(*snippet),
                line: x.line,
                text: &x.text,
                message: format!(
                    "kernel instruction runs with `{reg}` written by snippet {snippet} and not \
                     restored on some path"
                ),
                corrupts: Some(reg.clone()),
            });
        }
    }
}

/// The state after `x`.
fn transfer(body: &Body<'_>, x: &Instr, state: &State) -> State {
    let Some(snippet) = snippet_of(x.origin) else {
        return State::default();
    };
    let aliases = &body.aliases;
    let restorable = |r: &str| body.restorable.iter().any(|p| p == r);
    let mut next = state.clone();
    let kill_copies = |next: &mut State, d: &str| {
        next.copies.retain(|c, _| !aliases.alias(c, d));
    };
    if let (Compute::Copy(src), [d], None) = (&x.compute, x.defs.as_slice(), &x.guard) {
        if state.copies.get(src).is_some_and(|saved| saved == d) {
            kill_copies(&mut next, d);
            for p in aliases.parts(d) {
                next.clobbered.remove(p);
            }
            return next;
        }
        let src_parts = aliases.parts(src);
        if src_parts
            .iter()
            .all(|p| restorable(p) && !state.clobbered.contains_key(*p))
        {
            kill_copies(&mut next, d);
            clobber(&mut next, aliases.parts(d), &restorable, snippet);
            next.copies.insert(d.clone(), src.clone());
            return next;
        }
    }
    for d in &x.defs {
        kill_copies(&mut next, d);
        clobber(&mut next, aliases.parts(d), &restorable, snippet);
    }
    next
}

fn clobber(next: &mut State, parts: Vec<&str>, restorable: &dyn Fn(&str) -> bool, snippet: u32) {
    for p in parts.into_iter().filter(|p| restorable(p)) {
        next.clobbered.entry(p.to_owned()).or_insert(snippet);
    }
}
