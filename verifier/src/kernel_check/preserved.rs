//! `KernelPreserved`: the kernel's own items and registers are exactly the original's.
//!
//! The kernel-origin items of both models are compared in order, labels by name and
//! instructions by text, defs, uses, control flow and memory accesses (not by line:
//! splicing moves lines); a call's callee and arguments are `CallRewrite`'s (`calls.rs`). The first divergence is reported, at the spliced line, and
//! said to be a dropped, moved or changed item where that can be told. The registers
//! declared with kernel origin must be the same set; a missing declaration is reported
//! at line 0 (it has no line in the spliced kernel), an extra one at its own line.

use super::{describe, Body, Finding, Violations};
use crate::{Compute, Item, KernelRule, Origin};
use std::collections::BTreeMap;

pub(super) fn check(original: &Body<'_>, spliced: &Body<'_>, out: &mut Violations) {
    check_items(original, spliced, out);
    check_declarations(original, spliced, out);
}

/// The kernel-origin items of a body, with their index in it.
pub(super) fn kernel_items<'b>(body: &'b Body<'_>) -> Vec<(usize, &'b Item)> {
    body.items
        .iter()
        .enumerate()
        .filter(|(_, item)| origin(item) == Origin::Kernel)
        .collect()
}

fn origin(item: &Item) -> Origin {
    match item {
        Item::Label { origin, .. } => *origin,
        Item::Instr(x) => x.origin,
    }
}

/// Whether two kernel items are the same, lines aside. Two calls whose callee or
/// arguments differ count as the same here: whether that is an allowed redirection to an
/// instrumented clone is `CallRewrite`'s to decide (`calls.rs`).
pub(super) fn same(a: &Item, b: &Item) -> bool {
    match (a, b) {
        (Item::Label { name: x, .. }, Item::Label { name: y, .. }) => x == y,
        (Item::Instr(x), Item::Instr(y)) => {
            let (call_x, call_y) = (
                matches!(x.compute, Compute::Call(_)),
                matches!(y.compute, Compute::Call(_)),
            );
            ((x.text == y.text && x.compute == y.compute) || (call_x && call_y))
                && x.defs == y.defs
                && x.uses == y.uses
                && x.flow == y.flow
                && x.mem == y.mem
                && x.guard == y.guard
        }
        _ => false,
    }
}

fn text(item: &Item) -> String {
    match item {
        Item::Label { name, .. } => format!("{name}:"),
        Item::Instr(x) => x.text.clone(),
    }
}

fn check_items(original: &Body<'_>, spliced: &Body<'_>, out: &mut Violations) {
    let before = kernel_items(original);
    let after = kernel_items(spliced);
    let divergence = before
        .iter()
        .zip(&after)
        .position(|((_, a), (_, b))| !same(a, b));
    let k = match divergence {
        Some(k) => k,
        None if before.len() == after.len() => return,
        None => before.len().min(after.len()),
    };
    match (before.get(k), after.get(k)) {
        (Some((_, expected)), Some((pos, found))) => {
            let expected_later = after[k + 1..].iter().any(|(_, b)| same(expected, b));
            let found_later = before[k + 1..].iter().any(|(_, a)| same(a, found));
            let how = match (expected_later, found_later) {
                (true, true) => "moved",
                (true, false) => "displaced by an extra kernel item",
                (false, true) => "dropped",
                (false, false) => "changed",
            };
            out.push(Finding {
                rule: KernelRule::KernelPreserved,
                snippet: None,
                line: spliced.item_line(*pos),
                text: &text(found),
                message: format!(
                    "kernel item {} (original line {}) is {how}: the spliced kernel has {} in \
                     its place",
                    describe_original(expected),
                    original.item_line(before[k].0),
                    describe(found)
                ),
                corrupts: Some(text(expected)),
            });
        }
        (Some((index, expected)), None) => out.push(Finding {
            rule: KernelRule::KernelPreserved,
            snippet: None,
            line: spliced.item_line(spliced.items.len()),
            text: &text(expected),
            message: format!(
                "kernel item {} (original line {}) is missing from the end of the spliced kernel",
                describe_original(expected),
                original.item_line(*index)
            ),
            corrupts: Some(text(expected)),
        }),
        (None, Some((pos, extra))) => out.push(Finding {
            rule: KernelRule::KernelPreserved,
            snippet: None,
            line: spliced.item_line(*pos),
            text: &text(extra),
            message: format!(
                "{} is marked as kernel code but the original kernel ends before it",
                describe(extra)
            ),
            corrupts: Some(text(extra)),
        }),
        (None, None) => {}
    }
}

/// Like [`describe`], without the (original) line, which the message gives itself.
fn describe_original(item: &Item) -> String {
    match item {
        Item::Label { name, .. } => format!("label `{name}`"),
        Item::Instr(x) => format!("`{}`", x.text),
    }
}

/// The names and ranges a body declares with kernel origin, in order.
fn kernel_declared<'b>(body: &'b Body<'_>) -> impl Iterator<Item = (&'b str, Option<u32>)> {
    body.declared
        .iter()
        .filter(|d| d.origin == Origin::Kernel)
        .map(|d| (d.name.as_str(), d.count))
}

fn check_declarations(original: &Body<'_>, spliced: &Body<'_>, out: &mut Violations) {
    // The common case, checked without building the maps: the same names in order.
    if kernel_declared(original).eq(kernel_declared(spliced)) {
        return;
    }
    let declared = |body: &Body<'_>| -> BTreeMap<String, u32> {
        body.declared
            .iter()
            .filter(|d| d.origin == Origin::Kernel)
            .map(|d| (d.text(), d.line))
            .collect()
    };
    let before = declared(original);
    let after = declared(spliced);
    for name in before.keys().filter(|n| !after.contains_key(*n)) {
        out.push(Finding {
            rule: KernelRule::KernelPreserved,
            snippet: None,
            line: 0,
            text: &format!("declaration of {name}"),
            message: format!(
                "kernel register `{name}` (declared on original line {}) is no longer declared",
                before[name]
            ),
            corrupts: Some(name.clone()),
        });
    }
    for (name, line) in after.iter().filter(|(n, _)| !before.contains_key(*n)) {
        out.push(Finding {
            rule: KernelRule::KernelPreserved,
            snippet: None,
            line: *line,
            text: &format!("declaration of {name}"),
            message: format!(
                "`{name}` is declared with kernel origin but the original kernel does not declare \
                 it"
            ),
            corrupts: Some(name.clone()),
        });
    }
}
