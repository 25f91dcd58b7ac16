//! `ControlFlow`: splicing leaves the kernel's control flow as it was.
//!
//! The rules, all on the spliced body in program order:
//!
//! 1. No inserted instruction exits, calls, traps or synchronizes the block (warp
//!    collectives are `WarpCollective`'s, in `warp.rs`).
//! 2. An inserted branch targets a label defined exactly once, by the same snippet,
//!    after the branch, and every item between the branch and the label belongs to that
//!    snippet (the branch skips only snippet code, never kernel code or another snippet).
//! 3. A kernel branch targets a label defined by the kernel only; an inserted label may
//!    not reuse any other label's name (it would capture or shadow the kernel's).
//! 4. Every branch target is a label of the body.
//!
//! Why this linear check suffices (and is what contracting each snippet in the CFG would
//! check): by 1 and 2 every inserted instruction's successors are the next item or a
//! later item of the same contiguous run of snippet items, so every path that enters a
//! run leaves it at its end, into the next kernel item — the item that followed the
//! previous kernel item in the original, since `KernelPreserved` proves the kernel items
//! unchanged and in order. By 3 a kernel branch resolves to the same kernel label as in
//! the original, and labels keep their place among the kernel items, so after contracting
//! every run of inserted items each kernel instruction has exactly its original
//! successors. A run cannot be entered other than by falling into its first item, since
//! no kernel branch targets an inserted label. `cfg.rs` checks the same conclusion on
//! the graphs themselves.

use super::{describe, snippet_of, subject, Body, Finding, Violations};
use crate::{Flow, Item, KernelRule, Origin};
use foldhash::{HashMap, HashMapExt};

pub(super) fn check(spliced: &Body<'_>, out: &mut Violations) {
    let labels = label_definitions(spliced);
    check_inserted_labels(spliced, &labels, out);
    for (pos, item) in spliced.items.iter().enumerate() {
        let Item::Instr(x) = item else { continue };
        let snippet = snippet_of(x.origin);
        // The snippet at fault, the message and what it would corrupt.
        let violation = match (&x.flow, snippet) {
            (Flow::Next | Flow::WarpCollective, _) => None,
            (Flow::Branch { target, .. }, Some(s)) => {
                inserted_branch(spliced, &labels, pos, s, target).map(|(m, c)| (snippet, m, c))
            }
            (Flow::Branch { target, .. }, None) => {
                kernel_branch(&labels, target).map(|(s, m)| (s, m, Some(x.text.clone())))
            }
            (Flow::Switch { targets }, None) => targets
                .iter()
                .find_map(|t| kernel_branch(&labels, t))
                .map(|(s, m)| (s, m, Some(x.text.clone()))),
            (flow, Some(_)) => Some((snippet, forbidden_flow(flow), next_kernel(spliced, pos))),
            (_, None) => None,
        };
        if let Some((at_fault, message, corrupts)) = violation {
            out.push(Finding {
                rule: KernelRule::ControlFlow,
                snippet: at_fault,
                line: x.line,
                text: &x.text,
                message,
                corrupts,
            });
        }
    }
}

/// The first kernel instruction after item `pos`: the one inserted code at `pos` must
/// fall into.
fn next_kernel(body: &Body<'_>, pos: usize) -> Option<String> {
    body.items[pos + 1..].iter().find_map(|item| match item {
        Item::Instr(x) if x.origin == Origin::Kernel => Some(x.text.clone()),
        _ => None,
    })
}

/// Every definition of each label name: (item index, origin).
fn label_definitions<'b>(body: &'b Body<'_>) -> HashMap<&'b str, Vec<(usize, Origin)>> {
    let mut labels: HashMap<&str, Vec<(usize, Origin)>> = HashMap::new();
    for (pos, item) in body.items.iter().enumerate() {
        if let Item::Label { name, origin } = item {
            labels
                .entry(name.as_str())
                .or_default()
                .push((pos, *origin));
        }
    }
    labels
}

/// Rule 3, label side: an inserted label's name is defined only once.
fn check_inserted_labels(
    body: &Body<'_>,
    labels: &HashMap<&str, Vec<(usize, Origin)>>,
    out: &mut Violations,
) {
    for (pos, item) in body.items.iter().enumerate() {
        let Item::Label { name, origin } = item else {
            continue;
        };
        let Some(snippet) = snippet_of(*origin) else {
            continue;
        };
        let count = labels.get(name.as_str()).map_or(0, Vec::len);
        if count > 1 {
            let kernel_too = labels
                .get(name.as_str())
                .is_some_and(|defs| defs.iter().any(|(_, o)| *o == Origin::Kernel));
            let whose = if kernel_too {
                "a kernel label"
            } else {
                "another label"
            };
            out.push(Finding {
                rule: KernelRule::ControlFlow,
                snippet: Some(snippet),
                line: body.item_line(pos),
                text: &format!("{name}:"),
                message: format!(
                    "inserted label `{name}` reuses the name of {whose} ({count} definitions)"
                ),
                corrupts: Some(name.to_string()),
            });
        }
    }
}

/// Rule 1: the message for a forbidden kind of control flow.
fn forbidden_flow(flow: &Flow) -> String {
    let what = match flow {
        Flow::Exit => "leaves the kernel (return/exit)",
        Flow::Call => "calls a function",
        Flow::Trap => "traps",
        Flow::Barrier => "synchronizes the block at a barrier",
        Flow::Switch { .. } => "branches through a table",
        Flow::Next | Flow::Branch { .. } | Flow::WarpCollective => "changes control flow",
    };
    format!("inserted instruction {what}; probes may only fall through or branch forward within their snippet")
}

/// Rule 2 (and 4) for the branch at `pos` of snippet `snippet`: the message and the
/// kernel label or instruction at stake.
fn inserted_branch(
    body: &Body<'_>,
    labels: &HashMap<&str, Vec<(usize, Origin)>>,
    pos: usize,
    snippet: u32,
    target: &str,
) -> Option<(String, Option<String>)> {
    let defs = labels.get(target).map_or(&[][..], Vec::as_slice);
    let (label_pos, origin) = match defs {
        [] => {
            return Some((
                format!("branch target `{target}` is not a label of the kernel"),
                next_kernel(body, pos),
            ))
        }
        [one] => *one,
        _ => {
            return Some((
                format!(
                    "branch target `{target}` is defined {} times; its destination is ambiguous",
                    defs.len()
                ),
                Some(target.to_string()),
            ))
        }
    };
    match snippet_of(origin) {
        None => {
            return Some((
                format!("inserted branch leaves snippet {snippet} for kernel label `{target}`"),
                Some(target.to_string()),
            ))
        }
        Some(other) if other != snippet => {
            return Some((
                format!(
                    "inserted branch leaves snippet {snippet} for label `{target}` of snippet \
                     {other}"
                ),
                next_kernel(body, pos),
            ))
        }
        Some(_) => {}
    }
    if label_pos < pos {
        return Some((
            format!(
                "inserted branch goes backwards to `{target}`; snippet branches must go forward"
            ),
            next_kernel(body, pos),
        ));
    }
    let own = Origin::Inserted { snippet };
    let skipped = body.items[pos + 1..label_pos]
        .iter()
        .find(|item| match item {
            Item::Label { origin, .. } => *origin != own,
            Item::Instr(x) => x.origin != own,
        });
    skipped.map(|item| {
        (
            format!(
                "inserted branch to `{target}` jumps over {} outside snippet {snippet}",
                describe(item)
            ),
            Some(subject(item)),
        )
    })
}

/// Rules 3 and 4 for a kernel branch: the snippet at fault (the one defining the
/// target, if any) and the message. A target defined twice by the kernel alone is the
/// original's own ambiguity, left to the assembler.
fn kernel_branch(
    labels: &HashMap<&str, Vec<(usize, Origin)>>,
    target: &str,
) -> Option<(Option<u32>, String)> {
    let defs = labels.get(target).map_or(&[][..], Vec::as_slice);
    if defs.is_empty() {
        let message = format!("branch target `{target}` is not a label of the kernel");
        return Some((None, message));
    }
    let inserted = defs.iter().find_map(|(_, o)| snippet_of(*o))?;
    let message =
        format!("kernel branch targets `{target}`, a label defined by snippet {inserted}");
    Some((Some(inserted), message))
}
