//! The verifier's [`KernelModel`] for a parsed PTX kernel.

use crate::insn::facts;
use crate::labels::{branch_targets, Scopes};
use crate::parse::{clean, Body, Function, Instruction, Name, Stmt, StmtKind};
use crate::MAP_PARAM;
use std::borrow::Cow;
use std::collections::HashSet;
use warptrace_verifier::parallel;
use warptrace_verifier::{
    Declaration, Flow, Instr, Item, KernelModel, Origin, Resource, ResourceKind,
};

/// A PTX kernel (or device function) as the verifier sees it: labels and instructions in
/// program order with their facts and origin, the registers declared in the body (with
/// their lines), the parameters by name and the map parameter if the instrumenter
/// appended one, and the declarations that size the launch (shared and local variables,
/// launch bounds of the header).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PtxKernelModel {
    name: String,
    items: Vec<Item>,
    declarations: Vec<Declaration>,
    map_param: Option<String>,
    params: Vec<(String, Origin)>,
    resources: Vec<Resource>,
}

/// Bodies of at least this many statements are modelled on two threads.
const PARALLEL_STMTS: usize = 1024;

/// Header directives that bound a launch's threads, clusters or registers.
const LAUNCH_BOUNDS: &[&str] = &[
    ".maxntid",
    ".reqntid",
    ".minnctapersm",
    ".maxnctapersm",
    ".maxnreg",
    ".reqnctapercluster",
    ".maxclusterrank",
    ".explicitcluster",
];

impl PtxKernelModel {
    /// Builds the model of `f`, whose spans index into `src`; `origin_of` maps a byte
    /// offset of `src` to who wrote the text there.
    pub(crate) fn build(
        src: &str,
        f: &Function,
        origin_of: &(dyn Fn(usize) -> Origin + Sync),
    ) -> PtxKernelModel {
        let mut declarations = Vec::new();
        let mut resources = header_resources(src, f, origin_of);
        let stmts = f.body.as_ref().map_or(&[][..], |b| &b.stmts[..]);
        for s in stmts {
            let StmtKind::Directive(d) = &s.kind else {
                continue;
            };
            let origin = origin_of(s.span.start);
            if let Some(d) = d {
                declarations.extend(d.items.iter().map(|n| Declaration {
                    name: n.base.clone(),
                    count: n.count,
                    origin,
                    line: s.line,
                }));
            } else if let Some(kind) = body_resource(&s.text) {
                resources.push(Resource {
                    kind,
                    text: s.text.clone(),
                    origin,
                    line: s.line,
                });
            }
        }
        // Registers declared without `%` (rare; call sequences of old compilers).
        let plain: HashSet<&str> = declarations
            .iter()
            .filter(|d| d.count.is_none())
            .map(|d| d.name.as_str())
            .filter(|n| !n.starts_with('%'))
            .collect();
        let is_reg = |name: &str| !plain.is_empty() && plain.contains(name);
        // Labels and branch targets as PTX scopes them (`labels.rs`).
        let scopes = f.body.as_ref().map(Scopes::of);
        let body = f.body.as_ref();
        let items_of = |first: usize, stmts: &[Stmt]| -> Vec<Item> {
            let mut items = Vec::with_capacity(stmts.len());
            for (n, s) in stmts.iter().enumerate() {
                let at = first + n;
                let origin = origin_of(s.span.start);
                match &s.kind {
                    StmtKind::Label(name) => items.push(Item::Label {
                        name: match &scopes {
                            Some(sc) if sc.ambiguous(name) => sc.model_name(name, at).into(),
                            _ => name.clone(),
                        },
                        origin,
                    }),
                    StmtKind::Instr(i) => {
                        let mut x = facts(i, &is_reg);
                        if let (Some(sc), Some(body)) = (&scopes, body) {
                            x.flow = resolved_flow(x.flow, i, at, sc, body);
                        }
                        implicit_state(i, &mut x.defs, &mut x.uses);
                        items.push(Item::Instr(Instr {
                            origin,
                            defs: x.defs,
                            uses: x.uses,
                            flow: x.flow,
                            mem: x.mem,
                            guard: x.guard,
                            compute: x.compute,
                            text: s.text.clone(),
                            line: s.line,
                        }));
                    }
                    StmtKind::Directive(_) | StmtKind::ScopeOpen | StmtKind::ScopeClose => {}
                }
            }
            items
        };
        // Each statement's item depends on that statement alone: a long body (a spliced
        // kernel) is read in two halves at once.
        let items = if stmts.len() >= PARALLEL_STMTS {
            let half = stmts.len() / 2;
            let (a, b) = stmts.split_at(half);
            let (mut first, second) = parallel::join(|| items_of(0, a), || items_of(half, b));
            first.extend(second);
            first
        } else {
            items_of(0, stmts)
        };
        let params: Vec<(String, Origin)> = f
            .params
            .iter()
            .map(|r| {
                let text = src.get(r.clone()).unwrap_or("");
                (param_name(&clean(text)).to_string(), origin_of(r.start))
            })
            .collect();
        let map_param = params
            .iter()
            .any(|(name, origin)| *origin != Origin::Kernel && name == MAP_PARAM)
            .then(|| MAP_PARAM.to_string());
        PtxKernelModel {
            name: f.name.clone(),
            items,
            declarations,
            map_param,
            params,
            resources,
        }
    }
}

/// State an instruction reads or writes without naming it, as the registers the model
/// calls [`CARRY`], [`STACK_POINTER`] and [`REGISTER_BUDGET`] (no PTX identifier has two
/// `%`), and a write of a vector register's component (`%v.y`) as a write of the vector
/// register too. The kernel rules then treat them as registers: inserted code may not
/// write one the kernel uses (`RegisterIsolation`), so a snippet between the kernel's
/// `add.cc` and `addc` cannot change its carry.
fn implicit_state(i: &Instruction, defs: &mut Vec<Name>, uses: &mut Vec<Name>) {
    let root = i.root();
    let sets_carry = i.modifiers().any(|m| m == "cc");
    if matches!(root, "addc" | "subc" | "madc") {
        uses.push(CARRY.into());
    }
    if sets_carry {
        defs.push(CARRY.into());
    }
    match root {
        "alloca" | "stackrestore" => {
            uses.push(STACK_POINTER.into());
            defs.push(STACK_POINTER.into());
        }
        "stacksave" => uses.push(STACK_POINTER.into()),
        "setmaxnreg" => {
            uses.push(REGISTER_BUDGET.into());
            defs.push(REGISTER_BUDGET.into());
        }
        _ => {}
    }
    let vectors: Vec<Name> = defs
        .iter()
        .filter_map(|d| {
            let (base, part) = d.rsplit_once('.')?;
            let component = matches!(part, "x" | "y" | "z" | "w" | "r" | "g" | "b" | "a");
            (component && base.starts_with('%')).then(|| Name::from(base))
        })
        .collect();
    defs.extend(vectors);
}

/// The carry flag `add.cc` writes and `addc` reads, as the model names it.
const CARRY: &str = "%%carry";
/// The stack pointer `alloca` and `stackrestore` move, as the model names it.
const STACK_POINTER: &str = "%%stack";
/// The warp's register budget `setmaxnreg` changes, as the model names it.
const REGISTER_BUDGET: &str = "%%maxnreg";

/// A branch's flow with its target resolved as ptxas resolves it: the innermost visible
/// label of the name (by its model name), and for `brx.idx` every label of its
/// `.branchtargets` table. A table that cannot be read keeps the branch to the table's
/// name, an unknown target for the control-flow graph.
fn resolved_flow(flow: Flow, i: &Instruction, at: usize, scopes: &Scopes, body: &Body) -> Flow {
    let Flow::Branch {
        target,
        conditional,
    } = flow
    else {
        return flow;
    };
    if i.root() == "brx" {
        let targets = scopes.resolve(&target, at).and_then(|table| {
            let names = branch_targets(body, table)?;
            names
                .iter()
                .map(|t| scopes.target(t, table).map(Name::from))
                .collect::<Option<Vec<_>>>()
        });
        return match targets {
            Some(targets) => Flow::Switch { targets },
            None => Flow::Branch {
                target,
                conditional,
            },
        };
    }
    let target = scopes.target(&target, at).map_or(target, Name::from);
    Flow::Branch {
        target,
        conditional,
    }
}

/// The name a parameter declaration declares (`.param .u64 .ptr .align 8 name`,
/// `.param .align 8 .b8 name[16]`).
fn param_name(decl: &str) -> &str {
    let last = decl.split_whitespace().last().unwrap_or("");
    last.split('[').next().unwrap_or(last)
}

/// The kind of resource a body directive declares, if it declares one.
fn body_resource(text: &str) -> Option<ResourceKind> {
    let mut words = text
        .split_whitespace()
        .filter(|w| !matches!(*w, ".extern" | ".weak" | ".visible" | ".common"));
    match words.next() {
        Some(w) if w.starts_with(".shared") => Some(ResourceKind::Shared),
        Some(".local") => Some(ResourceKind::Local),
        _ => None,
    }
}

/// The launch bounds between `f`'s parameter list and its body, each with its arguments.
fn header_resources(
    src: &str,
    f: &Function,
    origin_of: &(dyn Fn(usize) -> Origin + Sync),
) -> Vec<Resource> {
    let Some(body) = &f.body else {
        return Vec::new();
    };
    let after_params = f
        .params
        .last()
        .map(|r| r.end)
        .or(f.params_open)
        .unwrap_or(f.name_end);
    let start = src
        .get(after_params..body.open)
        .and_then(|t| t.find(')'))
        .map_or(after_params, |n| after_params + n + 1);
    let Some(header) = src.get(start..body.open) else {
        return Vec::new();
    };
    let line_of = |offset: usize| {
        let before = src.get(f.span.start..offset).unwrap_or("");
        f.line + before.matches('\n').count() as u32
    };
    let mut out = Vec::new();
    // Directive starts: a `.word` at the start of the header or after whitespace.
    let mut starts: Vec<usize> = header
        .char_indices()
        .filter(|&(i, c)| {
            c == '.' && (i == 0 || header[..i].ends_with(|p: char| p.is_whitespace()))
        })
        .map(|(i, _)| i)
        .filter(|&i| {
            let word = header[i..].split_whitespace().next().unwrap_or("");
            LAUNCH_BOUNDS.contains(&word)
        })
        .collect();
    starts.push(header.len());
    for w in starts.windows(2) {
        let text = clean(&header[w[0]..w[1]]);
        let offset = start + w[0];
        out.push(Resource {
            kind: ResourceKind::LaunchBound,
            text,
            origin: origin_of(offset),
            line: line_of(offset),
        });
    }
    out
}

impl KernelModel for PtxKernelModel {
    fn kernel_name(&self) -> &str {
        &self.name
    }

    fn items(&self) -> Vec<Item> {
        self.items.clone()
    }

    fn items_ref(&self) -> Cow<'_, [Item]> {
        Cow::Borrowed(&self.items)
    }

    fn declared_registers(&self) -> Vec<(String, Origin)> {
        // Ranges as written (`%r<4>`): `declarations` is what the checks read.
        self.declarations
            .iter()
            .map(|d| (d.text(), d.origin))
            .collect()
    }

    fn declarations(&self) -> Vec<Declaration> {
        self.declarations.clone()
    }

    fn declarations_ref(&self) -> std::borrow::Cow<'_, [Declaration]> {
        std::borrow::Cow::Borrowed(&self.declarations)
    }

    fn map_param(&self) -> Option<String> {
        self.map_param.clone()
    }

    fn params(&self) -> Vec<(String, Origin)> {
        self.params.clone()
    }

    fn resources(&self) -> Vec<Resource> {
        self.resources.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KERNEL: &str = ".visible .entry k(\n\t.param .u64 k_param_0,\n\t.param .u64 .ptr .global .align 8 __wt_maps\n)\n.maxntid 128, 1, 1\n.minnctapersm 2\n{\n\t.reg .b32 %r<2>;\n\t.shared .align 4 .b8 smem[64];\n\tmov.u32 %r1, 0;\n\tret;\n}\n";

    #[test]
    fn declarations_resources_and_the_map_parameter() {
        let m = crate::parse(KERNEL).expect("parses");
        let f = m.kernel("k").expect("kernel");
        let map_at = KERNEL.find("__wt_maps").expect("param");
        let model = PtxKernelModel::build(m.source(), f, &|o| {
            if (map_at - 40..map_at + 10).contains(&o) {
                Origin::Inserted { snippet: 0 }
            } else {
                Origin::Kernel
            }
        });
        assert_eq!(model.map_param(), Some(MAP_PARAM.to_string()));
        let d = model.declarations();
        assert_eq!(d.len(), 1);
        assert_eq!((d[0].text().as_str(), d[0].line), ("%r<2>", 8));
        assert!(d[0].declares("%r1") && !d[0].declares("%r2"));
        let r: Vec<(ResourceKind, &str, u32)> = model
            .resources
            .iter()
            .map(|r| (r.kind, r.text.as_str(), r.line))
            .collect();
        assert_eq!(
            r,
            [
                (ResourceKind::LaunchBound, ".maxntid 128, 1, 1", 5),
                (ResourceKind::LaunchBound, ".minnctapersm 2", 6),
                (ResourceKind::Shared, ".shared .align 4 .b8 smem[64];", 9),
            ]
        );
        // Every item of kernel origin: no map parameter.
        let original = PtxKernelModel::build(m.source(), f, &|_| Origin::Kernel);
        assert_eq!(original.map_param(), None);
    }
}
