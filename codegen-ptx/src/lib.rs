//! The PTX back end of warptrace.
//!
//! [`instrument`] parses a module's PTX, finds each kernel's attach sites, lowers every
//! matching probe to a snippet in probe-private registers, splices the snippets, the map
//! parameter ([`MAP_PARAM`]) and a prologue into the kernel, and runs the kernel-level
//! verifier on the result. A kernel the verifier rejects is left unmodified (fail open).
//! See `README.md` for the conventions.
#![deny(missing_docs)]

mod aggregate;
mod array;
mod attach;
mod calls;
mod clones;
mod combine;
mod group;
mod hashmap;
mod insn;
pub mod jit_cost;
mod labels;
mod loops;
mod lower;
mod model;
mod parse;
pub mod raw;
mod regions;
pub mod resources;
mod ring;
mod site;
mod special;
mod splice;
pub mod tv;
mod warp_access;

pub use clones::FunctionClone;
pub use insn::{access_bytes, facts, Facts};
pub use model::PtxKernelModel;
pub use parse::{
    parse, AddrBase, Address, Body, Function, FunctionKind, Guard, Instruction, Module, Operand,
    RegDecl, RegItem, Stmt, StmtKind,
};
pub use raw::{
    check_raw_probes, instrument_raw, instrument_raw_within, load_probes, RawError, RawReport,
};
pub use splice::{splice_raw, splice_raw_with_map, RawSite, RawSnippet, RawSplice};

use warptrace_ir::{kernel_id, MapLayout};
use warptrace_verifier::VerifiedProgram;

/// Name of the parameter appended to every instrumented `.entry`: the map buffer's
/// address (`.param .u64 .ptr .global .align 8`). The runtime passes it as one extra
/// pointer after the kernel's own arguments.
pub const MAP_PARAM: &str = "__wt_maps";

pub use warptrace_codegen::{Error, KernelStatus, SiteListing, Target};

/// This back end, as its [`Error::Unsupported`] names it.
pub(crate) const TARGET: Target = Target::Ptx;

pub use hashmap::{
    accumulates, buffer_layout, replicas, ring_copies, MAX_REPLICAS, REPLICA_BYTES,
    RING_COPY_RECORDS,
};

/// What this back end adds to a program's certificate ([`warptrace_codegen::ProgramChecks`]):
/// the translation-validation proofs of every lowering ([`tv::translation_checks`]), which
/// do not depend on the program and run once a process.
pub fn program_checks() -> warptrace_codegen::ProgramChecks {
    static TRANSLATION: std::sync::OnceLock<Vec<warptrace_verifier::Check>> =
        std::sync::OnceLock::new();
    warptrace_codegen::ProgramChecks {
        checks: TRANSLATION.get_or_init(tv::translation_checks).clone(),
        ..Default::default()
    }
}

/// The result of [`instrument`].
#[derive(Debug, Clone)]
pub struct Instrumented {
    /// The module with every accepted kernel instrumented; other kernels byte-identical.
    pub ptx: String,
    /// One outcome per kernel (`.entry` with a body), in text order.
    pub kernels: Vec<KernelOutcome>,
    /// The map buffer's layout the snippets were generated for.
    pub layout: MapLayout,
}

/// What happened to one kernel.
#[derive(Debug, Clone)]
pub struct KernelOutcome {
    /// Mangled name.
    pub name: String,
    /// `warptrace_ir::kernel_id` of the name.
    pub id: u64,
    /// Number of parameters before instrumentation ([`MAP_PARAM`] comes after them).
    pub params: u32,
    /// Instrumented or why not.
    pub status: KernelStatus,
    /// The device functions instrumented for this kernel (their clones, which it calls
    /// instead); empty unless it is instrumented and reaches probe sites in `.func`s.
    pub functions: Vec<FunctionClone>,
    /// Its predicted JIT compile, plain and instrumented (`jit_cost`), when its snippets
    /// were planned.
    pub jit: Option<jit_cost::Estimate>,
    /// When instrumented: the snippets its own sites are lowered to, fewer than its sites
    /// where the sites of a straight-line piece are grouped (decision 0048); else 0.
    pub snippets: u32,
    /// When no probe attaches: what a `mem:` probe's point might have been meant as,
    /// with the sites it would have (`mem:global:load` on a kernel that loads only with
    /// `cp.async`).
    pub hint: Option<String>,
}

/// Instruments every kernel of `ptx` with `program`'s probes, whatever the result costs to
/// compile ([`jit_cost::JitBudget::OFF`]). What hands the result to a JIT — the runtime,
/// `warptrace instrument`, `warptrace verify` — calls [`instrument_within`] instead.
pub fn instrument(ptx: &str, program: &VerifiedProgram) -> Result<Instrumented, Error> {
    instrument_within(ptx, program, &jit_cost::JitBudget::OFF)
}

/// [`instrument`] within a JIT budget: a kernel whose instrumented form is predicted to
/// cost more than `budget` allows is left unchanged ([`KernelStatus::OverBudget`]).
pub fn instrument_within(
    ptx: &str,
    program: &VerifiedProgram,
    budget: &jit_cost::JitBudget,
) -> Result<Instrumented, Error> {
    // Rings spread over copies of the buffer: the code is generated for, and checked
    // against, the program with each copy's capacity (decision 0020).
    let prepared = warptrace_codegen::Prepared::new(program, TARGET)?;
    let (program, layout, filter) = (prepared.program(), &prepared.layout, &prepared.filter);
    let module = parse(ptx)?;
    let files = module.files();
    let graph = clones::CallGraph::new(&module);
    let cx = clones::Cx {
        module: &module,
        program,
        layout,
        graph: &graph,
        newlines: module
            .source()
            .match_indices('\n')
            .map(|(i, _)| i)
            .collect(),
        budget,
    };
    let mut accepted = Vec::new();
    let mut placed = clones::Placements::new(ptx.len());
    let mut kernels = Vec::new();
    let entries = module
        .functions()
        .iter()
        .filter(|f| f.kind == FunctionKind::Entry && f.body.is_some());
    for (ordinal, f) in entries.enumerate() {
        let sites = attach::find_sites(f, program, filter, files);
        let unsupported = attach::unsupported(program, filter, f, files);
        let mut functions = Vec::new();
        let mut jit = None;
        let mut snippets = 0;
        let mut hint = None;
        let callees = match unsupported {
            Some(what) => Err(what),
            None => clones::callees(&graph, f, program, filter, files),
        };
        let status = match callees {
            Err(what) => KernelStatus::Unsupported { what },
            Ok(callees) if sites.is_empty() && callees.is_empty() => {
                hint = (0..program.probes.len())
                    .filter(|&p| filter.matches(p, &f.name))
                    .find_map(|p| attach::near_miss(f, &program.probes[p].attach.point));
                KernelStatus::NoSites
            }
            Ok(callees) => {
                let mut bodies = std::iter::once(f).chain(callees.iter().map(|c| c.function));
                if let Some(g) = bodies.find(|g| module.names_with_prefix(g, lower::PREFIX)) {
                    return Err(Error::ReservedPrefix {
                        kernel: g.name.clone(),
                    });
                }
                let plan = clones::instrument_kernel(&cx, ordinal, f, &sites, &callees, &placed)?;
                for i in &plan.insertions {
                    placed.add(clones::Placed::of(i));
                }
                accepted.extend(plan.insertions);
                functions = plan.functions;
                jit = plan.estimate;
                snippets = plan.grouped;
                plan.status
            }
        };
        kernels.push(KernelOutcome {
            name: f.name.clone(),
            id: kernel_id(&f.name),
            params: f.params.len() as u32,
            status,
            functions,
            jit,
            snippets,
            hint,
        });
    }
    let (ptx, _) = splice::apply(ptx, &accepted);
    Ok(Instrumented {
        ptx,
        kernels,
        layout: prepared.layout,
    })
}

/// Every concrete site each probe of `program` attaches to in the `.entry` kernels of
/// `ptx`, in kernel then text order — the same matching [`instrument`] uses. Probes whose
/// attach point this back end does not match yet list no sites.
pub fn list_sites(ptx: &str, program: &warptrace_ir::Program) -> Result<Vec<SiteListing>, Error> {
    let module = parse(ptx)?;
    let filter = attach::KernelFilter::new(program)?;
    let files = module.files();
    let mut out = Vec::new();
    for f in module.functions() {
        let Some(body) = f.body.as_ref().filter(|_| f.kind == FunctionKind::Entry) else {
            continue;
        };
        let sites = attach::find_sites(f, program, &filter, files);
        let loops = sites
            .iter()
            .any(|s| matches!(s.place, attach::Place::Loop(_)))
            .then(|| loops::analyze(body).ok())
            .flatten();
        for site in sites {
            let line = site
                .stmt
                .and_then(|i| body.stmts.get(i))
                .map_or(f.line, |s| s.line);
            out.push(SiteListing {
                probe: site.probe,
                kernel: f.name.clone(),
                line,
                text: attach::describe(&site, body, loops.as_ref()),
            });
        }
    }
    Ok(out)
}

/// One site as a kernel's snippets are placed: before (or after) statement `stmt` of the
/// kernel's body (`None`: at its entry), running probe `probe`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlannedSite {
    /// Index of the probe in [`SitePlan::program`].
    pub probe: usize,
    /// Index of the statement in the kernel's [`Body::stmts`].
    pub stmt: Option<usize>,
    /// How many probe sites it stands for: 1, or more for a group.
    pub stands_for: u32,
}

/// Where [`instrument`] places the probes of one kernel: every site on its own, and as
/// lowered, with the sites of each straight-line piece whose probes only count in
/// persistent registers grouped into one (decision 0048). For running both forms through
/// the interpreter.
#[derive(Debug, Clone)]
pub struct SitePlan {
    /// The kernel's (mangled) name.
    pub kernel: String,
    /// The program the sites index: the one given, with a probe per group appended.
    pub program: warptrace_ir::Program,
    /// Every site on its own, in order.
    pub per_site: Vec<PlannedSite>,
    /// The sites as lowered, in order.
    pub grouped: Vec<PlannedSite>,
}

/// The [`SitePlan`] of each `.entry` kernel of `ptx` with a body, in text order.
pub fn site_plans(ptx: &str, program: &warptrace_ir::Program) -> Result<Vec<SitePlan>, Error> {
    let module = parse(ptx)?;
    let filter = attach::KernelFilter::new(program)?;
    let files = module.files();
    let planned = |s: &attach::Site| PlannedSite {
        probe: s.probe,
        stmt: s.stmt,
        stands_for: s.stands_for,
    };
    let mut out = Vec::new();
    for f in module.functions() {
        let Some(body) = f.body.as_ref().filter(|_| f.kind == FunctionKind::Entry) else {
            continue;
        };
        let sites = attach::find_sites(f, program, &filter, files);
        let grouped = group::sites(body, program, &sites);
        out.push(SitePlan {
            kernel: f.name.clone(),
            program: grouped.program.into_owned(),
            per_site: sites.iter().map(planned).collect(),
            grouped: grouped.sites.iter().map(planned).collect(),
        });
    }
    Ok(out)
}

/// For each probe of `program` that attaches nowhere in the `.entry` kernels of `ptx`
/// (in program order): the nearest widening of its point
/// (`warptrace_codegen::attach::widenings`) that attaches somewhere, with its sites there.
pub fn near_misses(
    ptx: &str,
    program: &warptrace_ir::Program,
) -> Result<Vec<(usize, warptrace_ir::AttachPoint, usize)>, Error> {
    let module = parse(ptx)?;
    let filter = attach::KernelFilter::new(program)?;
    let files = module.files();
    let entries: Vec<&Function> = module
        .functions()
        .iter()
        .filter(|f| f.kind == FunctionKind::Entry && f.body.is_some())
        .collect();
    let attached: std::collections::HashSet<usize> = entries
        .iter()
        .flat_map(|f| attach::find_sites(f, program, &filter, files))
        .map(|s| s.probe)
        .collect();
    let mut out = Vec::new();
    for (p, probe) in program.probes.iter().enumerate() {
        if attached.contains(&p) {
            continue;
        }
        let found = warptrace_codegen::attach::widenings(&probe.attach.point)
            .into_iter()
            .find_map(|near| {
                let n: usize = entries
                    .iter()
                    .filter(|f| filter.matches(p, &f.name))
                    .map(|f| attach::count_sites(f, &near))
                    .sum();
                (n > 0).then_some((p, near, n))
            });
        out.extend(found);
    }
    Ok(out)
}

impl Module {
    /// The verifier's model of kernel `name` as parsed (every item of kernel origin).
    pub fn kernel_model(&self, name: &str) -> Option<PtxKernelModel> {
        self.kernel(name).map(|f| {
            PtxKernelModel::build(self.source(), f, &|_| warptrace_verifier::Origin::Kernel)
        })
    }
}
