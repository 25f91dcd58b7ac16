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
use crate::{Declaration, Item, KernelRule, Origin};
use foldhash::HashSet;

/// The registers of the original kernel: names in a hash set (a long kernel names
/// thousands, mostly the same few again; sorting them all was a tenth of verifying a
/// flash-attention kernel), declared ranges (`%r<N>`) kept as ranges.
pub(super) struct KernelRegisters<'b> {
    names: HashSet<&'b str>,
    ranges: Vec<&'b Declaration>,
}

impl KernelRegisters<'_> {
    /// Whether `reg` is one of the kernel's.
    pub(super) fn contains(&self, reg: &str) -> bool {
        self.names.contains(reg) || self.ranges.iter().any(|d| d.declares(reg))
    }

    /// Whether declaration `d` declares one of the kernel's registers.
    fn overlaps(&self, d: &Declaration) -> bool {
        match d.count {
            None => self.contains(&d.name),
            Some(_) => {
                self.names.iter().any(|n| d.declares(n))
                    || self.ranges.iter().any(|r| r.overlaps(d))
            }
        }
    }
}

pub(super) fn kernel_registers<'b>(original: &'b Body<'_>) -> KernelRegisters<'b> {
    let kernel = || {
        original
            .declared
            .iter()
            .filter(|d| d.origin == Origin::Kernel)
    };
    let mut names: HashSet<&str> = kernel()
        .filter(|d| d.count.is_none())
        .map(|d| d.name.as_str())
        .collect();
    for item in original.items.iter() {
        if let Item::Instr(x) = item {
            if x.origin == Origin::Kernel {
                names.extend(x.defs.iter().chain(&x.uses).map(crate::Name::as_str));
            }
        }
    }
    KernelRegisters {
        names,
        ranges: kernel().filter(|d| d.count.is_some()).collect(),
    }
}

pub(super) fn check(original: &Body<'_>, spliced: &Body<'_>, out: &mut Violations) {
    let mut kernel = kernel_registers(original);
    if !original.aliases.is_empty() {
        // Overlapping names (GCN tuples) are compared by their machine registers.
        kernel.names = kernel
            .names
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
        let clashes = match d.count {
            None => spliced
                .aliases
                .parts(&d.name)
                .iter()
                .any(|p| kernel.contains(p)),
            Some(_) => kernel.overlaps(d),
        };
        if clashes {
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
                text: &format!("declaration of {}", d.text()),
                message: format!(
                    "snippet {snippet} redeclares kernel register `{}`{at}",
                    d.text()
                ),
                corrupts: Some(d.text()),
            });
        }
    }
}
