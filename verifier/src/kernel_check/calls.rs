//! `CallRewrite`: a call may be redirected to the instrumented clone of its callee, and
//! nothing else about it may change.
//!
//! Device functions get probes through clones: the instrumenter copies each function
//! with probe sites (or calling one) under a new name, adds one last parameter, the map
//! parameter, and redirects the calls of the instrumented kernel (and of its clones) to
//! the clones. A kernel call of the spliced body, paired with the original's call at the
//! same place among the kernel items (the pairing `KernelPreserved` checks), may differ
//! from it only in callee and arguments, and only this way:
//!
//! 1. both calls have the same form (opcode and modifiers, an indirect call's prototype),
//!    return parameters, guard, defs, uses and memory accesses (`preserved.rs`), and the
//!    original is a direct call;
//! 2. the new callee is a clone of the original callee: a body verified together with
//!    this one (`crate::verify_kernel_with_callees`), named by its model;
//! 3. the arguments are the original's followed by one parameter `a` that is neither an
//!    argument nor a return parameter of the call, and that no kernel instruction of the
//!    original accesses or passes;
//! 4. the two items right before the call are inserted, unguarded, fall-through
//!    instructions: a pointer-wide load of the body's own map parameter into a register
//!    `r`, then a store of `r` — and nothing else — to `a`.
//!
//! So a clone's map parameter holds, when it starts, exactly the value its caller's map
//! parameter holds: by induction from the kernel, whose map parameter the runtime sets,
//! every clone's map pointer is the launch's map buffer, and what `provenance.rs` proves
//! of a clone's stores holds for the real buffer. The store of 4 is the only inserted
//! store to parameter space allowed; `memory.rs` leaves it to this rule.
//!
//! Each clone's parameters must be its original's (same names, in order) followed by the
//! map parameter, so the extra last argument is what the clone loads as its map base; a
//! clone must have a name of its own, and one name names one clone.

use super::preserved::{kernel_items, same};
use super::{snippet_of, Body, Finding, Violations};
use crate::{
    Access, Addr, CallSite, Compute, Flow, Item, KernelRule, KernelViolation, MemRef, Origin,
    Space, Spliced,
};
use std::collections::{HashMap, HashSet};

/// The instrumented clones calls may be redirected to: clone name → original name.
#[derive(Debug, Default)]
pub(super) struct Clones(HashMap<String, String>);

/// The clone table of `callees`, and the violations of their names and parameter lists.
pub(super) fn clone_table(callees: &[Spliced<'_>]) -> (Clones, Vec<KernelViolation>) {
    let mut table = HashMap::new();
    let mut list = Vec::new();
    for c in callees {
        let clone = c.spliced.kernel_name().to_string();
        let original = c.original.kernel_name().to_string();
        let mut violation = |message: String| {
            list.push(KernelViolation {
                rule: KernelRule::CallRewrite,
                kernel: clone.clone(),
                snippet: None,
                line: 0,
                text: format!("parameters of `{clone}`"),
                message,
                corrupts: Some(original.clone()),
            })
        };
        if clone == original {
            violation(format!(
                "the clone of `{original}` keeps the original's name; callers that pass no map \
                 argument would reach it"
            ));
            continue;
        }
        if let Some(message) = signature(c) {
            violation(message);
        }
        match table.get(&clone) {
            Some(other) => violation(format!(
                "`{clone}` names two clones (of `{other}` and of `{original}`)"
            )),
            None => {
                table.insert(clone, original);
            }
        }
    }
    (Clones(table), list)
}

/// Why a clone's parameters are not its original's followed by its map parameter.
fn signature(c: &Spliced<'_>) -> Option<String> {
    let before = c.original.params();
    let after = c.spliced.params();
    let Some(map) = c.spliced.map_param() else {
        return Some("the clone has no map parameter".into());
    };
    let own = after.len() == before.len() + 1
        && before
            .iter()
            .zip(&after)
            .all(|((a, _), (b, o))| a == b && *o == Origin::Kernel);
    let last = after
        .last()
        .is_some_and(|(name, o)| *name == map && *o != Origin::Kernel);
    (!(own && last)).then(|| {
        let names = |p: &[(String, Origin)]| {
            p.iter()
                .map(|(n, _)| n.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        format!(
            "the clone's parameters ({}) are not the original's ({}) followed by the map \
             parameter `{map}`",
            names(&after),
            names(&before)
        )
    })
}

/// Checks every redirected call of `spliced`; returns the item indices of the inserted
/// map-argument stores that stand right before one (they are this rule's, not
/// `MemorySafety`'s).
pub(super) fn check(
    original: &Body<'_>,
    spliced: &Body<'_>,
    clones: &Clones,
    out: &mut Violations,
) -> HashSet<usize> {
    let mut setup = HashSet::new();
    let before = kernel_items(original);
    let after = kernel_items(spliced);
    let mut kernel_params: Option<HashSet<&str>> = None;
    for ((_, a), (pos, b)) in before.iter().zip(&after) {
        if !same(a, b) {
            break; // `KernelPreserved` reports it; the pairing ends here
        }
        let (Item::Instr(x), Item::Instr(y)) = (a, b) else {
            continue;
        };
        let (Compute::Call(cx), Compute::Call(cy)) = (&x.compute, &y.compute) else {
            continue;
        };
        if x.text == y.text && cx == cy {
            continue;
        }
        let store = pos
            .checked_sub(1)
            .filter(|&p| is_param_store(&spliced.items[p]));
        setup.extend(store);
        let params = kernel_params.get_or_insert_with(|| params_named(original));
        if let Err(message) = redirect(cx, cy, spliced, *pos, clones, params) {
            let snippet = store.and_then(|p| match &spliced.items[p] {
                Item::Instr(s) => snippet_of(s.origin),
                Item::Label { .. } => None,
            });
            out.push(Finding {
                rule: KernelRule::CallRewrite,
                snippet,
                line: y.line,
                text: &y.text,
                message,
                corrupts: Some(x.text.clone()),
            });
        }
    }
    setup
}

/// An inserted instruction storing to parameter space.
fn is_param_store(item: &Item) -> bool {
    matches!(item, Item::Instr(x) if x.origin != Origin::Kernel
        && x.mem.iter().any(|m| (m.space, m.access) == (Space::Param, Access::Store)))
}

/// Every parameter the kernel's own instructions access or pass to a call.
fn params_named<'b>(body: &'b Body<'_>) -> HashSet<&'b str> {
    let mut names = HashSet::new();
    for item in body.items.iter() {
        let Item::Instr(x) = item else { continue };
        if x.origin != Origin::Kernel {
            continue;
        }
        for m in &x.mem {
            if let (Space::Param, Addr::Symbol(s)) = (m.space, &m.addr) {
                names.insert(s.as_str());
            }
        }
        if let Compute::Call(c) = &x.compute {
            names.extend(c.args.iter().chain(&c.rets).map(String::as_str));
        }
    }
    names
}

/// Whether the call `y` at item `pos` of `spliced` is a correct redirection of `x`.
fn redirect(
    x: &CallSite,
    y: &CallSite,
    spliced: &Body<'_>,
    pos: usize,
    clones: &Clones,
    kernel_params: &HashSet<&str>,
) -> Result<(), String> {
    if x.form != y.form || x.rets != y.rets {
        return Err(format!(
            "the call's form or return parameters changed (`{}` ({}) became `{}` ({}))",
            x.form,
            x.rets.join(", "),
            y.form,
            y.rets.join(", ")
        ));
    }
    let Some(callee) = &x.callee else {
        return Err("the original call is indirect; only direct calls are redirected".into());
    };
    let Some(new) = &y.callee else {
        return Err(format!("the call of `{callee}` became indirect"));
    };
    match clones.0.get(new) {
        _ if new == callee => {
            return Err(format!(
                "the arguments of the call of `{callee}` changed ({} became {})",
                x.args.join(", "),
                y.args.join(", ")
            ))
        }
        None => {
            return Err(format!(
                "the call of `{callee}` now calls `{new}`, which is not a verified clone of it"
            ))
        }
        Some(of) if of != callee => {
            return Err(format!(
                "the call of `{callee}` now calls `{new}`, the clone of `{of}`"
            ))
        }
        Some(_) => {}
    }
    let arg = match y.args.split_last() {
        Some((arg, first)) if first == x.args.as_slice() => arg,
        _ => {
            return Err(format!(
                "the arguments ({}) are not the original's ({}) followed by the map argument",
                y.args.join(", "),
                x.args.join(", ")
            ))
        }
    };
    if x.args.contains(arg) || x.rets.contains(arg) || kernel_params.contains(arg.as_str()) {
        return Err(format!(
            "the map argument `{arg}` is a parameter the kernel's own code uses"
        ));
    }
    let map = spliced.map_param.as_deref();
    let instr = |back: usize| match pos.checked_sub(back).map(|p| &spliced.items[p]) {
        Some(Item::Instr(i))
            if i.origin != Origin::Kernel && i.guard.is_none() && i.flow == Flow::Next =>
        {
            Some(i)
        }
        _ => None,
    };
    let store = instr(1).filter(|s| {
        s.defs.is_empty()
            && s.uses.len() == 1
            && s.mem
                == [MemRef {
                    space: Space::Param,
                    access: Access::Store,
                    addr: Addr::Symbol(arg.as_str().into()),
                }]
    });
    let Some(store) = store else {
        return Err(format!(
            "the item before the call is not an inserted, unguarded store of one register to \
             the map argument `{arg}`"
        ));
    };
    let value = &store.uses[0];
    let load = instr(2).filter(|l| {
        l.defs == [value.clone()]
            && l.compute == Compute::LoadWord
            && map.is_some_and(|map| {
                l.mem
                    == [MemRef {
                        space: Space::Param,
                        access: Access::Load,
                        addr: Addr::Symbol(map.into()),
                    }]
            })
    });
    if load.is_none() {
        return Err(format!(
            "`{value}`, stored to the map argument `{arg}`, is not loaded from the map \
             parameter `{}` right before (unguarded, inserted)",
            map.unwrap_or("(none)")
        ));
    }
    Ok(())
}
