//! `RegisterIsolation`: inserted code never writes a kernel register.
//!
//! The kernel's registers are those the original declares with kernel origin plus every
//! register a kernel instruction of the original reads or writes (a back end may not
//! model every declaration, e.g. implicitly declared ones). Inserted code may read them
//! (a `mem:` probe reads the access's address operand) but never write them: every def
//! of an inserted instruction — predicates and each element of a vector destination
//! included, as the model lists them — must lie outside the set, and no inserted
//! declaration may redeclare one (a redeclaration in a nested scope would shadow it).

use super::{snippet_of, Body, Finding, Violations};
use crate::{Item, KernelRule, Origin};
use std::collections::BTreeSet;

/// The registers of the original kernel.
pub(super) fn kernel_registers(original: &Body) -> BTreeSet<&str> {
    let declared = original
        .declared
        .iter()
        .filter(|d| d.origin == Origin::Kernel)
        .map(|d| d.name.as_str());
    let touched = original.items.iter().flat_map(|item| match item {
        Item::Instr(x) if x.origin == Origin::Kernel => {
            x.defs.iter().chain(&x.uses).map(String::as_str).collect()
        }
        _ => Vec::new(),
    });
    declared.chain(touched).collect()
}

pub(super) fn check(original: &Body, spliced: &Body, out: &mut Violations) {
    let kernel = kernel_registers(original);
    for item in &spliced.items {
        let Item::Instr(x) = item else { continue };
        let Some(snippet) = snippet_of(x.origin) else {
            continue;
        };
        let mut clobbered: Vec<&str> = x
            .defs
            .iter()
            .map(String::as_str)
            .filter(|d| kernel.contains(d))
            .collect();
        clobbered.sort_unstable();
        clobbered.dedup();
        for reg in clobbered {
            out.push(Finding {
                rule: KernelRule::RegisterIsolation,
                snippet: Some(snippet),
                line: x.line,
                text: &x.text,
                message: format!("inserted instruction writes kernel register `{reg}`"),
                corrupts: Some(reg.to_string()),
            });
        }
    }
    for d in &spliced.declared {
        let Some(snippet) = snippet_of(d.origin) else {
            continue;
        };
        if kernel.contains(d.name.as_str()) {
            let (line, at) = if d.line > 0 {
                (d.line, "")
            } else {
                (
                    spliced.snippet_line(snippet),
                    " (reported at the snippet's first instruction)",
                )
            };
            out.push(Finding {
                rule: KernelRule::RegisterIsolation,
                snippet: Some(snippet),
                line,
                text: &format!("declaration of {}", d.name),
                message: format!(
                    "snippet {snippet} redeclares kernel register `{}`{at}",
                    d.name
                ),
                corrupts: Some(d.name.clone()),
            });
        }
    }
}
