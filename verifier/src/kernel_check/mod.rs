//! Kernel-level checks of a spliced kernel against its original.
//!
//! The checks see only the target-neutral [`KernelModel`]; each rule lives in its own
//! module and pushes into one [`Violations`] list, so every violation of every rule is
//! reported. The list is ordered by line.

mod control_flow;
#[cfg(test)]
mod fixture;
mod memory;
mod preserved;
mod registers;
#[cfg(test)]
mod tests;

use crate::{Item, KernelModel, KernelRule, KernelViolation, Origin};

/// Checks `spliced` against `original`; returns every violation found.
pub(crate) fn check_kernel(
    original: &dyn KernelModel,
    spliced: &dyn KernelModel,
) -> Vec<KernelViolation> {
    let original = Body::of(original);
    let spliced = Body::of(spliced);
    let mut out = Violations {
        kernel: spliced.name.clone(),
        list: Vec::new(),
    };
    registers::check(&original, &spliced, &mut out);
    control_flow::check(&spliced, &mut out);
    memory::check(&spliced, &mut out);
    preserved::check(&original, &spliced, &mut out);
    out.list.sort_by_key(|v| v.line);
    out.list
}

/// One model's contents, read once.
#[derive(Debug)]
pub(super) struct Body {
    name: String,
    items: Vec<Item>,
    declared: Vec<(String, Origin)>,
}

impl Body {
    fn of(model: &dyn KernelModel) -> Body {
        Body {
            name: model.kernel_name().to_string(),
            items: model.items(),
            declared: model.declared_registers(),
        }
    }

    /// The line of item `index`. Labels carry no line in the model: a label is reported
    /// at the line of the next instruction (it stands at or just before it), or of the
    /// previous one at the end of the body; 0 in a body without instructions.
    pub(super) fn item_line(&self, index: usize) -> u32 {
        let line = |item: &Item| match item {
            Item::Instr(x) => Some(x.line),
            Item::Label { .. } => None,
        };
        let after = self.items.iter().skip(index).find_map(line);
        let before = || self.items.iter().take(index).rev().find_map(line);
        after.or_else(before).unwrap_or(0)
    }

    /// The line of the first instruction of `snippet`, or 0 if it has none.
    pub(super) fn snippet_line(&self, snippet: u32) -> u32 {
        self.items
            .iter()
            .find_map(|item| match item {
                Item::Instr(x) if x.origin == (Origin::Inserted { snippet }) => Some(x.line),
                _ => None,
            })
            .unwrap_or(0)
    }
}

/// The snippet an origin names, if inserted.
pub(super) fn snippet_of(origin: Origin) -> Option<u32> {
    match origin {
        Origin::Kernel => None,
        Origin::Inserted { snippet } => Some(snippet),
    }
}

/// A short description of an item for messages: `label `L`` or the instruction text.
pub(super) fn describe(item: &Item) -> String {
    match item {
        Item::Label { name, .. } => format!("label `{name}`"),
        Item::Instr(x) => format!("`{}` (line {})", x.text, x.line),
    }
}

/// The violations found so far for one kernel.
#[derive(Debug)]
pub(super) struct Violations {
    kernel: String,
    list: Vec<KernelViolation>,
}

impl Violations {
    /// Records one violation.
    pub(super) fn push(
        &mut self,
        rule: KernelRule,
        snippet: Option<u32>,
        line: u32,
        text: &str,
        message: String,
    ) {
        self.list.push(KernelViolation {
            rule,
            kernel: self.kernel.clone(),
            snippet,
            line,
            text: text.to_string(),
            message,
        });
    }
}
