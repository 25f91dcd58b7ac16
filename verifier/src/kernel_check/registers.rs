//! `RegisterIsolation`: inserted code never writes a kernel register.
//!
//! The kernel's registers are those the original declares with kernel origin plus every
//! register a kernel instruction of the original reads or writes (a back end may not
//! model every declaration, e.g. implicitly declared ones). Inserted code may read them
//! (a `mem:` probe reads the access's address operand) but never write them: every def
//! of an inserted instruction — predicates and each element of a vector destination
//! included, as the model lists them — must lie outside the set, and no inserted
//! declaration may redeclare one (a redeclaration in a nested scope would shadow it).

use super::{snippet_of, Body, Violations};
use crate::{Item, KernelRule, Origin};
use std::collections::BTreeSet;

/// The registers of the original kernel.
pub(super) fn kernel_registers(original: &Body) -> BTreeSet<&str> {
    let declared = original
        .declared
        .iter()
        .filter(|(_, origin)| *origin == Origin::Kernel)
        .map(|(name, _)| name.as_str());
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
            out.push(
                KernelRule::RegisterIsolation,
                Some(snippet),
                x.line,
                &x.text,
                format!("inserted instruction writes kernel register `{reg}`"),
            );
        }
    }
    for (name, origin) in &spliced.declared {
        let Some(snippet) = snippet_of(*origin) else {
            continue;
        };
        if kernel.contains(name.as_str()) {
            let line = spliced.snippet_line(snippet);
            out.push(
                KernelRule::RegisterIsolation,
                Some(snippet),
                line,
                &format!("declaration of {name}"),
                format!(
                    "snippet {snippet} redeclares kernel register `{name}` (reported at the \
                     snippet's first instruction)"
                ),
            );
        }
    }
}
