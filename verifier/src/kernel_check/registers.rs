//! `RegisterIsolation`: inserted code never writes a kernel register.
//!
//! The kernel's registers are those the original declares with kernel origin plus every
//! register a kernel instruction of the original reads or writes (a back end may not
//! model every declaration, e.g. implicitly declared ones). Inserted code may read them
//! (a `mem:` probe reads the access's address operand) but never write them: every def
//! of an inserted instruction — predicates and each element of a vector destination
//! included, as the model lists them — must lie outside the set, and no inserted
//! declaration may redeclare one (a redeclaration in a nested scope would shadow it).
//! Names that overlap (`KernelModel::parts`, GCN's register tuples) are compared by the
//! machine registers they occupy; the registers the model lets inserted code save and
//! restore (`KernelModel::restorable`) are `restored.rs`'s to check.

use super::{snippet_of, Body, Finding, Violations};
use crate::{Item, KernelRule, Origin};
use foldhash::HashSet;

/// The registers of the original kernel (hashed: a long kernel names thousands, mostly
/// the same few again; sorting them all was a tenth of verifying a flash-attention
/// kernel).
pub(super) fn kernel_registers<'b>(original: &'b Body<'_>) -> HashSet<&'b str> {
    let mut set: HashSet<&str> = original
        .declared
        .iter()
        .filter(|d| d.origin == Origin::Kernel)
        .map(|d| d.name.as_str())
        .collect();
    for item in original.items.iter() {
        if let Item::Instr(x) = item {
            if x.origin == Origin::Kernel {
                set.extend(x.defs.iter().chain(&x.uses).map(crate::Name::as_str));
            }
        }
    }
    set
}

pub(super) fn check(original: &Body<'_>, spliced: &Body<'_>, out: &mut Violations) {
    let mut kernel = kernel_registers(original);
    if !original.aliases.is_empty() {
        // Overlapping names (GCN tuples) are compared by their machine registers.
        kernel = kernel
            .into_iter()
            .flat_map(|r| original.aliases.parts(r))
            .collect();
    }
    // Registers inserted code may write if it restores them: `restored.rs` proves that.
    let restorable = |r: &str| spliced.restorable.iter().any(|p| p == r);
    for item in spliced.items.iter() {
        let Item::Instr(x) = item else { continue };
        let Some(snippet) = snippet_of(x.origin) else {
            continue;
        };
        let mut clobbered: Vec<&str> = x
            .defs
            .iter()
            .flat_map(|d| spliced.aliases.parts(d))
            .filter(|d| kernel.contains(d) && !restorable(d))
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
    for d in spliced.declared.iter() {
        let Some(snippet) = snippet_of(d.origin) else {
            continue;
        };
        if spliced
            .aliases
            .parts(&d.name)
            .iter()
            .any(|p| kernel.contains(p))
        {
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
