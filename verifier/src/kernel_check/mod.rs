//! Kernel-level checks of a spliced kernel against its original.
//!
//! The checks see only the target-neutral [`KernelModel`]; each rule lives in its own
//! module and pushes into one [`Violations`] list, so every violation of every rule is
//! reported. The list is ordered by line.
//!
//! | module | rule |
//! |---|---|
//! | `registers`, `restored` | `RegisterIsolation` (`restored`: saved and restored registers) |
//! | `control_flow` | `ControlFlow` (linear rules, located) |
//! | `cfg` | `ControlFlow` (the contracted control-flow graph equals the original's) |
//! | `memory`, `provenance` | `SharedMemory` (accesses), `MemorySafety` |
//! | `resources` | `SharedMemory` (shared sizes, launch bounds), `MemorySafety` (local) |
//! | `warp` | `WarpCollective` |
//! | `preserved` | `KernelPreserved` |
//! | `calls` | `CallRewrite` |

mod aliases;
mod calls;
mod cfg;
mod control_flow;
#[cfg(test)]
mod fixture;
mod memory;
mod preserved;
mod provenance;
mod registers;
mod resources;
mod restored;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_calls;
#[cfg(test)]
mod tests_flow;
mod warp;

use crate::{
    Declaration, Item, KernelModel, KernelRule, KernelViolation, Origin, Resource, Spliced,
};
use calls::Clones;
use std::borrow::Cow;

/// Checks `spliced` against `original`; returns every violation found.
pub(crate) fn check_kernel(
    original: &dyn KernelModel,
    spliced: &dyn KernelModel,
) -> Vec<KernelViolation> {
    check_body(original, spliced, &Clones::default())
}

/// Checks a kernel and the clones of device functions it calls (see
/// `crate::verify_kernel_with_callees`); every violation of every body.
pub(crate) fn check_with_callees(
    kernel: Spliced<'_>,
    callees: &[Spliced<'_>],
) -> Vec<KernelViolation> {
    let (clones, mut list) = calls::clone_table(callees);
    list.extend(check_body(kernel.original, kernel.spliced, &clones));
    for c in callees {
        list.extend(check_body(c.original, c.spliced, &clones));
    }
    list
}

/// Checks one body against its original; calls may be redirected to `clones`.
fn check_body(
    original: &dyn KernelModel,
    spliced: &dyn KernelModel,
    clones: &Clones,
) -> Vec<KernelViolation> {
    let original = Body::of(original);
    let spliced = Body::of(spliced);
    let mut out = Violations {
        kernel: spliced.name.clone(),
        list: Vec::new(),
    };
    let graph = cfg::Cfg::build(&spliced);
    // The graph comparison runs beside the other rules (it is the costliest, and they
    // are independent); its findings are kept only if theirs allow (below).
    let mut graph_out = Violations {
        kernel: spliced.name.clone(),
        list: Vec::new(),
    };
    let large = spliced.items.len() >= crate::parallel::PARALLEL_ITEMS;
    crate::parallel::join_if(
        large,
        || cfg::check(&original, &spliced, &graph, &mut graph_out),
        || {
            registers::check(&original, &spliced, &mut out);
            restored::check(&spliced, &graph, &mut out);
            control_flow::check(&spliced, &mut out);
            let call_setup = calls::check(&original, &spliced, clones, &mut out);
            memory::check(&spliced, &graph, &call_setup, &mut out);
            resources::check(&original, &spliced, &mut out);
            warp::check(&spliced, &mut out);
            preserved::check(&original, &spliced, &mut out);
        },
    );
    // The graph comparison re-proves what the linear control-flow rules and
    // `KernelPreserved` establish; when they found something it would only repeat it.
    let linear = out.list.iter().any(|v| {
        matches!(
            v.rule,
            KernelRule::ControlFlow | KernelRule::KernelPreserved | KernelRule::CallRewrite
        )
    });
    if !linear {
        out.list.extend(graph_out.list);
    }
    out.list.sort_by_key(|v| v.line);
    out.list
}

/// One model's contents, read once.
#[derive(Debug)]
pub(super) struct Body<'a> {
    name: String,
    items: Cow<'a, [Item]>,
    declared: Cow<'a, [Declaration]>,
    map_param: Option<String>,
    /// Other parameters inserted code may load (`KernelModel::readable_params`).
    readable_params: Vec<String>,
    resources: Vec<Resource>,
    /// The parts of overlapping register names (`KernelModel::parts`).
    aliases: aliases::Aliases,
    /// The parts of the registers inserted code may write if it restores them
    /// (`KernelModel::restorable`).
    restorable: Vec<String>,
}

impl<'a> Body<'a> {
    fn of(model: &'a dyn KernelModel) -> Body<'a> {
        let items = model.items_ref();
        let declared = model.declarations_ref();
        let restorable = model.restorable();
        let aliases = aliases::Aliases::of(
            model,
            &items,
            declared
                .iter()
                .map(|d| d.name.as_str())
                .chain(restorable.iter().map(String::as_str)),
        );
        let mut parts: Vec<String> = restorable
            .iter()
            .flat_map(|r| aliases.parts(r))
            .map(str::to_owned)
            .collect();
        parts.sort_unstable();
        parts.dedup();
        Body {
            name: model.kernel_name().to_string(),
            items,
            declared,
            map_param: model.map_param(),
            readable_params: model.readable_params(),
            resources: model.resources(),
            aliases,
            restorable: parts,
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

/// What an item is, for [`KernelViolation::corrupts`]: the label's name or the
/// instruction's text.
pub(super) fn subject(item: &Item) -> String {
    match item {
        Item::Label { name, .. } => name.to_string(),
        Item::Instr(x) => x.text.clone(),
    }
}

/// One violation before the kernel's name is attached.
#[derive(Debug)]
pub(super) struct Finding<'a> {
    pub rule: KernelRule,
    pub snippet: Option<u32>,
    pub line: u32,
    pub text: &'a str,
    pub message: String,
    pub corrupts: Option<String>,
}

/// The violations found so far for one kernel.
#[derive(Debug)]
pub(super) struct Violations {
    kernel: String,
    list: Vec<KernelViolation>,
}

impl Violations {
    /// Records one violation.
    pub(super) fn push(&mut self, f: Finding<'_>) {
        self.list.push(KernelViolation {
            rule: f.rule,
            kernel: self.kernel.clone(),
            snippet: f.snippet,
            line: f.line,
            text: f.text.to_string(),
            message: f.message,
            corrupts: f.corrupts,
        });
    }
}
