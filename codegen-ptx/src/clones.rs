//! Device functions: probes in `.func` bodies, through clones made for each kernel.
//!
//! A `.func` cannot read its caller's parameters, and a module variable holding the map
//! base would race between concurrent launches, so the base is passed as an argument
//! (decision 0005). For each instrumented kernel `K` (ordinal `k` among the module's
//! kernels), every device function reachable from `K` by direct calls that has probe
//! sites for `K` — or calls such a function — gets a clone `__wt_<k>_<name>`: the
//! original's text with one last parameter `.param .b64 __wt_maps`, the usual prologue
//! and snippets, and its own calls to cloned functions redirected (`calls.rs`). `K`'s
//! calls to those functions are redirected the same way. The originals stay as they were
//! for every other caller (kernels left alone, indirect calls); clones are declared by
//! prototypes before the first function involved and defined right after their
//! originals, so recursion and forward calls assemble.
//!
//! A clone belongs to one kernel: inside it the probe globs, `kernel` (and everything
//! folded from it) are `K`'s; `pc`, `file`, `line` are the function's own. `kernel:entry`
//! and `kernel:exit` stay at the kernel's entry and exits (`ret` in a device function
//! returns to the caller). A probe with sites in a device function that uses persistent
//! registers makes `K` `Unsupported`. The kernel and its clones are verified together
//! (`verify_kernel_with_callees`); if any is rejected, `K` and its clones are left out.

use crate::attach::{self, KernelFilter, Site};
use crate::calls::{clone_name, direct_calls, redirect, CallStmt};
use crate::jit_cost::{predict, Cost, Estimate, JitBudget, Shape};
use crate::model::PtxKernelModel;
use crate::parse::{parse_at, Function, FunctionKind, Module};
use crate::splice::{self, apply, origin_at, Insertion, Owner};
use crate::{Error, KernelStatus};
use std::collections::{HashMap, HashSet};
use warptrace_ir::{AttachPoint, MapLayout, Program};
use warptrace_verifier::{verify_kernel_with_callees, Origin, Spliced};

/// A device function instrumented for a kernel: its clone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionClone {
    /// The device function's (mangled) name.
    pub name: String,
    /// The clone's name (`__wt_<kernel ordinal>_<name>`), which the kernel calls instead.
    pub clone: String,
    /// Probe snippets in the clone (0 for a function that only calls instrumented ones).
    pub sites: u32,
}

/// The direct calls between the module's bodies, to the device functions it defines.
#[derive(Debug)]
pub(crate) struct CallGraph<'m> {
    functions: HashMap<&'m str, &'m Function>,
    calls: HashMap<&'m str, Vec<CallStmt>>,
}

impl<'m> CallGraph<'m> {
    /// The graph of `module`; empty when it defines no device function.
    pub fn new(module: &'m Module) -> CallGraph<'m> {
        let functions: HashMap<&str, &Function> = module
            .functions()
            .iter()
            .filter(|f| f.kind == FunctionKind::Func && f.body.is_some())
            .map(|f| (f.name.as_str(), f))
            .collect();
        let mut calls = HashMap::new();
        if !functions.is_empty() {
            for f in module.functions().iter().filter(|f| f.body.is_some()) {
                let mut list = direct_calls(module.source(), f);
                list.retain(|c| functions.contains_key(c.callee.as_str()));
                if !list.is_empty() {
                    calls.insert(f.name.as_str(), list);
                }
            }
        }
        CallGraph { functions, calls }
    }

    fn calls_of(&self, f: &Function) -> &[CallStmt] {
        self.calls.get(f.name.as_str()).map_or(&[], Vec::as_slice)
    }

    /// The device functions reachable from `f` by direct calls, breadth first.
    fn reachable(&self, f: &Function) -> Vec<&'m Function> {
        let mut seen = HashSet::new();
        let mut out: Vec<&Function> = Vec::new();
        let mut next = 0;
        let mut visit = |calls: &[CallStmt], out: &mut Vec<&'m Function>| {
            for c in calls {
                if let Some(&g) = self.functions.get(c.callee.as_str()) {
                    if seen.insert(g.name.as_str()) {
                        out.push(g);
                    }
                }
            }
        };
        visit(self.calls_of(f), &mut out);
        while let Some(&g) = out.get(next) {
            next += 1;
            visit(self.calls_of(g), &mut out);
        }
        out
    }
}

/// A device function that kernel `K` needs a clone of, with its sites for `K`.
#[derive(Debug)]
pub(crate) struct Callee<'m> {
    pub function: &'m Function,
    pub sites: Vec<Site>,
}

/// The device functions kernel `k` calls clones of: those reachable from it with sites
/// of `k`'s probes (instruction points only), and those that call one; `Err` with what is
/// unsupported when a probe selecting `k` cannot be placed in one of them.
pub(crate) fn callees<'m>(
    graph: &CallGraph<'m>,
    k: &Function,
    program: &Program,
    filter: &KernelFilter,
    files: &HashMap<u32, String>,
) -> Result<Vec<Callee<'m>>, String> {
    let reach = graph.reachable(k);
    let mut found = Vec::with_capacity(reach.len());
    for g in reach {
        // The probes' kernel globs match the calling kernel: look at `g` under its name.
        let view = Function {
            name: k.name.clone(),
            ..g.clone()
        };
        if let Some(what) = attach::unsupported(program, filter, &view, files) {
            return Err(format!("{what} (in device function `{}`)", g.name));
        }
        let mut sites = attach::find_sites(&view, program, filter, files);
        sites.retain(|s| {
            !matches!(
                program.probes[s.probe].attach.point,
                AttachPoint::KernelEntry | AttachPoint::KernelExit
            )
        });
        found.push(Callee { function: g, sites });
    }
    // Functions with sites, then (to a fixed point) those calling a function kept.
    let mut kept: HashSet<&str> = found
        .iter()
        .filter(|c| !c.sites.is_empty())
        .map(|c| c.function.name.as_str())
        .collect();
    loop {
        let before = kept.len();
        for c in &found {
            if graph
                .calls_of(c.function)
                .iter()
                .any(|call| kept.contains(call.callee.as_str()))
            {
                kept.insert(c.function.name.as_str());
            }
        }
        if kept.len() == before {
            break;
        }
    }
    found.retain(|c| kept.contains(c.function.name.as_str()));
    Ok(found)
}

/// What [`instrument_kernel`] needs of the module and program.
#[derive(Debug)]
pub(crate) struct Cx<'a> {
    pub module: &'a Module,
    pub program: &'a Program,
    pub layout: &'a MapLayout,
    pub graph: &'a CallGraph<'a>,
    /// Offsets of the source's newlines.
    pub newlines: Vec<usize>,
    /// What each instrumented kernel may cost the JIT (`jit_cost.rs`).
    pub budget: &'a JitBudget,
}

impl Cx<'_> {
    /// 1-based line of `offset` in the source.
    fn line(&self, offset: usize) -> u32 {
        self.newlines.partition_point(|&n| n < offset) as u32 + 1
    }
}

/// Newlines in `text`.
fn newlines(text: &str) -> u32 {
    text.matches('\n').count() as u32
}

/// Where an insertion goes and how many lines it adds: what the line numbers of the
/// final text need, its newlines counted once (a module of thousands of kernels would
/// otherwise count every accepted insertion's again for each kernel).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Placed {
    pub offset: usize,
    pub order: u32,
    pub lines: u32,
}

impl Placed {
    pub(crate) fn of(i: &Insertion) -> Placed {
        Placed {
            offset: i.offset,
            order: i.order,
            lines: newlines(&i.text),
        }
    }
}

/// The lines the accepted insertions add before each place of the module: a Fenwick tree
/// over byte offsets, so that each kernel's line numbers cost a logarithm, not a pass over
/// every insertion of the kernels before it (a module of thousands of kernels).
#[derive(Debug)]
pub(crate) struct Placements {
    /// `tree[i]` sums the lines of a range of offsets ending at `i - 1`.
    tree: Vec<u32>,
    /// The insertions at each offset, by order: those at one offset are ordered.
    at: HashMap<usize, Vec<(u32, u32)>>,
}

impl Placements {
    /// None yet, in a module of `len` bytes.
    pub(crate) fn new(len: usize) -> Self {
        Placements {
            tree: vec![0; len + 2],
            at: HashMap::new(),
        }
    }

    /// The tree's index of `offset` (an insertion past the end counts at the end).
    fn index(&self, offset: usize) -> usize {
        offset.min(self.tree.len() - 2) + 1
    }

    pub(crate) fn add(&mut self, p: Placed) {
        let mut i = self.index(p.offset);
        while i < self.tree.len() {
            self.tree[i] += p.lines;
            i += i & i.wrapping_neg();
        }
        self.at
            .entry(p.offset)
            .or_default()
            .push((p.order, p.lines));
    }

    /// Lines inserted at offsets up to and including `offset`.
    fn through(&self, offset: usize) -> u32 {
        let mut i = self.index(offset);
        let mut sum = 0;
        while i > 0 {
            sum += self.tree[i];
            i -= i & i.wrapping_neg();
        }
        sum
    }

    /// Lines inserted before `(offset, order)`: at smaller offsets, or at `offset` with a
    /// smaller order.
    fn before(&self, offset: usize, order: u32) -> u32 {
        let below = offset.checked_sub(1).map_or(0, |o| self.through(o));
        let here = self.at.get(&offset).map_or(0, |v| {
            v.iter().filter(|(o, _)| *o < order).map(|(_, l)| l).sum()
        });
        below + here
    }
}

/// What became of one kernel: its status, the insertions to apply if it is
/// instrumented, and its clones.
#[derive(Debug)]
pub(crate) struct KernelPlan {
    pub status: KernelStatus,
    pub insertions: Vec<Insertion>,
    pub functions: Vec<FunctionClone>,
    /// The predicted compile, plain and instrumented, once the snippets were planned.
    pub estimate: Option<Estimate>,
    /// The kernel's own sites after grouping (`group.rs`): its snippets but the prologue.
    pub grouped: u32,
}

/// A clone planned for the kernel: its text and where it goes.
struct ClonePlan<'m> {
    original: &'m Function,
    name: String,
    sites: u32,
    text: String,
    ranges: Vec<(std::ops::Range<usize>, Origin)>,
    /// The clone's definition, inserted after the original's.
    emitted: Insertion,
    /// Bytes of `emitted.text` before the clone's `.func`.
    lead: usize,
}

/// Instruments kernel `k` (ordinal `ordinal`) with `sites` and clones of `callees`,
/// verifies the kernel and its clones together, and says what became of it. `accepted`
/// are where the insertions of the kernels accepted so far go and how many lines each
/// adds (for line numbers).
pub(crate) fn instrument_kernel(
    cx: &Cx<'_>,
    ordinal: usize,
    k: &Function,
    sites: &[Site],
    callees: &[Callee<'_>],
    accepted: &Placements,
) -> Result<KernelPlan, Error> {
    let src = cx.module.source();
    let names: HashMap<&str, String> = callees
        .iter()
        .map(|c| {
            let f = c.function.name.as_str();
            (f, clone_name(ordinal, f))
        })
        .collect();
    if let Some(taken) = cx
        .module
        .functions()
        .iter()
        .filter(|_| !names.is_empty())
        .find(|f| names.values().any(|n| *n == f.name))
    {
        return Err(Error::ReservedPrefix {
            kernel: taken.name.clone(),
        });
    }
    let unsupported = |what| KernelPlan {
        status: KernelStatus::Unsupported { what },
        insertions: Vec::new(),
        functions: Vec::new(),
        estimate: None,
        grouped: 0,
    };
    // One decision for the launch: the kernel's sites and its clones', whose snippets
    // all update the launch's buffer.
    let id = warptrace_ir::kernel_id(&k.name);
    let mut at_sites = splice::site_imms(cx.module, k, sites, id);
    for c in callees {
        at_sites.extend(splice::site_imms(cx.module, c.function, &c.sites, id));
    }
    let home = crate::hashmap::HomeSlots::decide_at(
        cx.program,
        cx.layout,
        at_sites
            .iter()
            .map(|(p, imms)| (*p, imms as &dyn warptrace_ir::fold::SiteConsts)),
    );
    let owner = Owner::Kernel;
    // The kernel's own sites in one snippet per straight-line piece where their probes
    // group (decision 0048); a clone's probes cannot keep persistent registers, so only
    // the kernel's are grouped.
    let grouped = match &k.body {
        Some(body) => crate::group::sites(body, cx.program, sites),
        None => crate::group::Grouped {
            program: std::borrow::Cow::Borrowed(cx.program),
            sites: sites.to_vec(),
        },
    };
    let snippets = grouped.sites.len() as u32;
    let mut kernel_ins = match plan(
        cx,
        &grouped.program,
        k,
        owner,
        &grouped.sites,
        &names,
        &home,
    ) {
        Err(Error::Unsupported { what, .. }) => return Ok(unsupported(what)),
        other => other?,
    };
    let mut clones = Vec::with_capacity(callees.len());
    for c in callees {
        let g = c.function;
        let name = names[g.name.as_str()].clone();
        let owner = Owner::Clone { kernel: &k.name };
        let mut ins = match plan(cx, cx.program, g, owner, &c.sites, &names, &home) {
            Err(Error::Unsupported { what, .. }) => return Ok(unsupported(what)),
            other => other?,
        };
        ins.push(Insertion {
            offset: g.name_end - g.name.len(),
            order: 0,
            text: name.strip_suffix(g.name.as_str()).unwrap_or("").to_string(),
            origin: Origin::Inserted { snippet: 0 },
        });
        let local: Vec<Insertion> = ins
            .into_iter()
            .map(|i| Insertion {
                offset: i.offset - g.span.start,
                ..i
            })
            .collect();
        let (text, ranges) = apply(cx.module.function_text(g), &local);
        #[cfg(test)]
        let (text, ranges) = tests::tamper(text, ranges);
        let lead = format!(
            "\n// warptrace: `{}` instrumented for kernel `{}` (map base as the last parameter)\n",
            g.name, k.name
        );
        clones.push(ClonePlan {
            original: g,
            name,
            sites: c.sites.len() as u32,
            emitted: Insertion {
                offset: g.span.end,
                order: ordinal as u32,
                text: format!("{lead}{text}"),
                origin: Origin::Inserted { snippet: 0 },
            },
            lead: lead.len(),
            text,
            ranges,
        });
    }
    // The JIT budget, before the spliced kernel is parsed and verified: a kernel over it
    // costs no more than its planning.
    let estimate = estimate(cx, k, &kernel_ins, &clones);
    if !cx.budget.admits(&estimate) {
        return Ok(KernelPlan {
            status: KernelStatus::OverBudget {
                why: crate::jit_cost::refusal(&estimate, cx.budget),
            },
            insertions: Vec::new(),
            functions: Vec::new(),
            estimate: Some(estimate),
            grouped: 0,
        });
    }
    let protos = prototypes(cx, ordinal, k, &clones)?;
    // Line numbers of the final text (as if this kernel is accepted).
    let own: Vec<Placed> = protos
        .iter()
        .map(Placed::of)
        .chain(clones.iter().map(|c| Placed::of(&c.emitted)))
        .collect();
    let kernel_line = cx.line(k.span.start)
        + accepted.through(k.span.start)
        + own
            .iter()
            .filter(|i| i.offset <= k.span.start)
            .map(|i| i.lines)
            .sum::<u32>();
    let (kernel_original, kernel_spliced) =
        splice::splice_function(cx.module, k, &kernel_ins, kernel_line)?;
    let mut models = Vec::with_capacity(clones.len());
    for c in &clones {
        let at = (c.emitted.offset, c.emitted.order);
        let line = cx.line(c.emitted.offset)
            + accepted.before(at.0, at.1)
            + own
                .iter()
                .copied()
                .chain(kernel_ins.iter().map(Placed::of))
                .filter(|i| (i.offset, i.order) < at)
                .map(|i| i.lines)
                .sum::<u32>()
            + newlines(&c.emitted.text[..c.lead]);
        let parsed = splice::parse_spliced(&c.text, &c.ranges, line)?;
        let g = parsed
            .functions()
            .first()
            .filter(|g| g.name == c.name)
            .ok_or_else(|| Error::Syntax {
                line,
                message: format!("the clone `{}` does not parse back", c.name),
            })?;
        let original = PtxKernelModel::build(src, c.original, &|_| Origin::Kernel);
        let spliced = PtxKernelModel::build(parsed.source(), g, &|o| origin_at(&c.ranges, o));
        models.push((original, spliced));
    }
    let units: Vec<Spliced<'_>> = models
        .iter()
        .map(|(original, spliced)| Spliced { original, spliced })
        .collect();
    let kernel = Spliced {
        original: &kernel_original,
        spliced: &kernel_spliced,
    };
    let status = match verify_kernel_with_callees(kernel, &units) {
        Err(e) => {
            return Ok(KernelPlan {
                status: KernelStatus::Rejected(e),
                insertions: Vec::new(),
                functions: Vec::new(),
                estimate: Some(estimate),
                grouped: 0,
            })
        }
        Ok(()) => KernelStatus::Instrumented {
            sites: (sites.len() + callees.iter().map(|c| c.sites.len()).sum::<usize>()) as u32,
        },
    };
    let functions = clones
        .iter()
        .map(|c| FunctionClone {
            name: c.original.name.clone(),
            clone: c.name.clone(),
            sites: c.sites,
        })
        .collect();
    kernel_ins.extend(protos);
    kernel_ins.extend(clones.into_iter().map(|c| c.emitted));
    Ok(KernelPlan {
        status,
        insertions: kernel_ins,
        functions,
        estimate: Some(estimate),
        grouped: snippets,
    })
}

/// The predicted compile of kernel `k`, plain and with `ins` and `clones`: the kernel's
/// own body with its snippets, plus every device function it reaches — the originals in
/// both (they stay in the module), the clones in the instrumented form only.
fn estimate(cx: &Cx<'_>, k: &Function, ins: &[Insertion], clones: &[ClonePlan<'_>]) -> Estimate {
    let kernel = Shape::of_text(cx.module.function_text(k));
    let snippets: Shape = ins.iter().map(|i| Shape::of_text(&i.text)).sum();
    let callees = clones
        .iter()
        .map(|c| predict(Shape::of_text(cx.module.function_text(c.original))))
        .fold(Cost::default(), |a, b| a + b);
    let cloned = clones
        .iter()
        .map(|c| predict(Shape::of_text(&c.text)))
        .fold(Cost::default(), |a, b| a + b);
    let own = Estimate::of(kernel, snippets);
    Estimate {
        plain: own.plain + callees,
        instrumented: own.instrumented + callees + cloned,
    }
}

/// The insertions instrumenting body `f` for `owner`: its sites, then its calls to the
/// functions in `clones` (original name → clone name) redirected, as the snippets after
/// the sites'.
fn plan(
    cx: &Cx<'_>,
    program: &Program,
    f: &Function,
    owner: Owner<'_>,
    sites: &[Site],
    clones: &HashMap<&str, String>,
    home: &crate::hashmap::HomeSlots,
) -> Result<Vec<Insertion>, Error> {
    let mut ins = splice::plan_body(cx.module, f, owner, program, cx.layout, sites, home)?;
    let body = f
        .body
        .as_ref()
        .ok_or_else(|| Error::NoSuchKernel(f.name.clone()))?;
    let mut snippet = sites.len() as u32;
    for call in cx.graph.calls_of(f) {
        let Some(clone) = clones.get(call.callee.as_str()) else {
            continue;
        };
        snippet += 1;
        let start = body.stmts[call.stmt].span.start;
        ins.extend(redirect(cx.module.source(), start, call, clone, snippet));
    }
    Ok(ins)
}

/// The prototypes of the kernel's clones, before the header of the first function among
/// the kernel and the clones' originals (every call of a clone comes after them).
fn prototypes(
    cx: &Cx<'_>,
    ordinal: usize,
    k: &Function,
    clones: &[ClonePlan<'_>],
) -> Result<Option<Insertion>, Error> {
    if clones.is_empty() {
        return Ok(None);
    }
    let src = cx.module.source();
    let first = clones
        .iter()
        .map(|c| c.original)
        .chain([k])
        .min_by_key(|f| f.span.start)
        .unwrap_or(k);
    let mut text = format!(
        "// warptrace: the device functions instrumented for kernel `{}`\n",
        k.name
    );
    for c in clones {
        let parsed = parse_at(&c.text, 1)?;
        let open = parsed
            .functions()
            .first()
            .and_then(|g| g.body.as_ref())
            .map_or(c.text.len(), |b| b.open);
        text.push_str(c.text[..open].trim_end());
        text.push_str(";\n");
    }
    let (offset, text) = splice::before_stmt(src, header_start(src, first), text);
    Ok(Some(Insertion {
        offset,
        order: ordinal as u32,
        text,
        origin: Origin::Inserted { snippet: 0 },
    }))
}

/// Where `f`'s declaration starts: its `.entry`/`.func` keyword, or the linkage
/// directives (`.visible`, `.weak`, `.extern`, `.common`) before it.
fn header_start(src: &str, f: &Function) -> usize {
    let mut start = f.span.start;
    loop {
        let before = src[..start].trim_end();
        let word_at = before
            .rfind(|c: char| c.is_whitespace())
            .map_or(0, |i| i + 1);
        let line = &before[before[..word_at].rfind('\n').map_or(0, |i| i + 1)..word_at];
        if !line.contains("//")
            && matches!(
                &before[word_at..],
                ".visible" | ".weak" | ".extern" | ".common"
            )
        {
            start = word_at;
        } else {
            return start;
        }
    }
}

#[cfg(test)]
mod tests;
