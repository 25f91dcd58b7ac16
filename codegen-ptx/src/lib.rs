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
use warptrace_verifier::{KernelErrors, VerifiedProgram};

/// Name of the parameter appended to every instrumented `.entry`: the map buffer's
/// address (`.param .u64 .ptr .global .align 8`). The runtime passes it as one extra
/// pointer after the kernel's own arguments.
pub const MAP_PARAM: &str = "__wt_maps";

/// Errors of the PTX back end.
#[derive(Debug, thiserror::Error)]
pub enum PtxError {
    /// The PTX text could not be parsed.
    #[error("line {line}: {message}")]
    Syntax {
        /// 1-based line.
        line: u32,
        /// What is wrong.
        message: String,
    },
    /// A kernel already uses the reserved prefix `__wt_` of probe registers and labels.
    #[error("kernel `{kernel}` already uses the reserved prefix `__wt_`")]
    ReservedPrefix {
        /// The kernel.
        kernel: String,
    },
    /// A probe's kernel glob is invalid.
    #[error("invalid kernel glob `{glob}`")]
    Glob {
        /// The glob.
        glob: String,
        /// Why.
        #[source]
        source: globset::Error,
    },
    /// A probe cannot be lowered at a site.
    #[error("kernel `{kernel}`, line {line}: {message}")]
    Lower {
        /// The kernel.
        kernel: String,
        /// 1-based line of the site.
        line: u32,
        /// What is wrong.
        message: String,
    },
    /// The probe program uses an IR operation, special value or attach point that this back
    /// end does not lower yet; the kernels it would instrument are left unmodified.
    #[error("not supported by the PTX back end yet: {what}")]
    Unsupported {
        /// What is not supported, in IR-text terms (`sreg globaltimer`, `map.save`, …).
        what: String,
    },
    /// No kernel of that name.
    #[error("no kernel named `{0}`")]
    NoSuchKernel(String),
    /// No statement starts on that line of the kernel.
    #[error("no statement starts on line {line}")]
    NoStatement {
        /// 1-based line.
        line: u32,
    },
}

impl From<warptrace_ir::GlobError> for PtxError {
    fn from(e: warptrace_ir::GlobError) -> PtxError {
        PtxError::Glob {
            glob: e.glob,
            source: e.source,
        }
    }
}

pub use hashmap::{
    accumulates, buffer_layout, replicas, ring_copies, spread_rings_check, MAX_REPLICAS,
    REPLICA_BYTES, RING_COPY_RECORDS,
};

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
}

/// Whether a kernel was instrumented.
#[derive(Debug, Clone)]
pub enum KernelStatus {
    /// Instrumented with `sites` probe snippets (one per probe per matching site).
    Instrumented {
        /// Number of snippets, the prologue not counted.
        sites: u32,
    },
    /// No probe matched; the kernel is unchanged.
    NoSites,
    /// The kernel-level verifier rejected the spliced kernel; it is unchanged.
    Rejected(KernelErrors),
    /// A probe that selects this kernel uses something the back end cannot lower yet
    /// ([`PtxError::Unsupported`]'s `what`); the kernel is unchanged.
    Unsupported {
        /// What is not supported.
        what: String,
    },
    /// The instrumented kernel's predicted JIT compile is over the budget
    /// ([`jit_cost::JitBudget`]); the kernel is unchanged.
    OverBudget {
        /// The prediction, plain and instrumented.
        estimate: jit_cost::Estimate,
        /// The budget it is over.
        budget: jit_cost::JitBudget,
    },
}

impl KernelStatus {
    /// Why an over-budget kernel is unchanged: the prediction and the budget (`None` for
    /// other statuses).
    pub fn over_budget(&self) -> Option<String> {
        match self {
            KernelStatus::OverBudget { estimate, budget } => {
                Some(jit_cost::refusal(estimate, budget))
            }
            _ => None,
        }
    }
}

/// Instruments every kernel of `ptx` with `program`'s probes, whatever the result costs to
/// compile ([`jit_cost::JitBudget::OFF`]). What hands the result to a JIT — the runtime,
/// `warptrace instrument`, `warptrace verify` — calls [`instrument_within`] instead.
pub fn instrument(ptx: &str, program: &VerifiedProgram) -> Result<Instrumented, PtxError> {
    instrument_within(ptx, program, &jit_cost::JitBudget::OFF)
}

/// [`instrument`] within a JIT budget: a kernel whose instrumented form is predicted to
/// cost more than `budget` allows is left unchanged ([`KernelStatus::OverBudget`]).
pub fn instrument_within(
    ptx: &str,
    program: &VerifiedProgram,
    budget: &jit_cost::JitBudget,
) -> Result<Instrumented, PtxError> {
    // Rings spread over copies of the buffer: the code is generated for, and checked
    // against, the program with each copy's capacity (decision 0020).
    let generated = program
        .as_generated()
        .map_err(|(n, e)| PtxError::Unsupported {
            what: format!("rings spread over {n} copies: {e}"),
        })?;
    let program = generated.program();
    let module = parse(ptx)?;
    let layout = MapLayout::new(&program.maps);
    let filter = attach::KernelFilter::new(program)?;
    let files = module.files();
    let graph = clones::CallGraph::new(&module);
    let cx = clones::Cx {
        module: &module,
        program,
        layout: &layout,
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
        let sites = attach::find_sites(f, program, &filter, files);
        let unsupported = attach::unsupported(program, &filter, f, files);
        let mut functions = Vec::new();
        let mut jit = None;
        let callees = match unsupported {
            Some(what) => Err(what),
            None => clones::callees(&graph, f, program, &filter, files),
        };
        let status = match callees {
            Err(what) => KernelStatus::Unsupported { what },
            Ok(callees) if sites.is_empty() && callees.is_empty() => KernelStatus::NoSites,
            Ok(callees) => {
                let mut bodies = std::iter::once(f).chain(callees.iter().map(|c| c.function));
                if let Some(g) = bodies.find(|g| module.names_with_prefix(g, lower::PREFIX)) {
                    return Err(PtxError::ReservedPrefix {
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
        });
    }
    let (ptx, _) = splice::apply(ptx, &accepted);
    Ok(Instrumented {
        ptx,
        kernels,
        layout,
    })
}

/// One place a probe attaches to, for `warptrace -l PROGRAM --ptx FILE`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SiteListing {
    /// Index of the probe in the program.
    pub probe: usize,
    /// The kernel's (mangled) name.
    pub kernel: String,
    /// 1-based line of the instruction the probe runs at (before it, or after it for
    /// `after` probes); the kernel's line for `kernel:entry`. A `loop:` site's line is
    /// that of the instruction its snippet goes before or after.
    pub line: u32,
    /// The instruction, or `<entry>` for `kernel:entry`; for a `loop:` site, which point
    /// of which loop and where (`loop $L__BB0_2 back edge: `@%p4 bra $L__BB0_2;` when
    /// taken`).
    pub text: String,
}

/// Every concrete site each probe of `program` attaches to in the `.entry` kernels of
/// `ptx`, in kernel then text order — the same matching [`instrument`] uses. Probes whose
/// attach point this back end does not match yet list no sites.
pub fn list_sites(
    ptx: &str,
    program: &warptrace_ir::Program,
) -> Result<Vec<SiteListing>, PtxError> {
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

impl Module {
    /// The verifier's model of kernel `name` as parsed (every item of kernel origin).
    pub fn kernel_model(&self, name: &str) -> Option<PtxKernelModel> {
        self.kernel(name).map(|f| {
            PtxKernelModel::build(self.source(), f, &|_| warptrace_verifier::Origin::Kernel)
        })
    }
}
