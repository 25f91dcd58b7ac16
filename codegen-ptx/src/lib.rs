//! The PTX back end of warptrace.
//!
//! [`instrument`] parses a module's PTX, finds each kernel's attach sites, lowers every
//! matching probe to a snippet in probe-private registers, splices the snippets, the map
//! parameter ([`MAP_PARAM`]) and a prologue into the kernel, and runs the kernel-level
//! verifier on the result. A kernel the verifier rejects is left unmodified (fail open).
//! See `README.md` for the conventions.
#![deny(missing_docs)]

mod aggregate;
mod attach;
mod fold;
mod hashmap;
mod insn;
mod lower;
mod model;
mod parse;
pub mod raw;
mod ring;
mod site;
mod special;
mod splice;
pub mod tv;

pub use insn::{access_bytes, facts, Facts};
pub use model::PtxKernelModel;
pub use parse::{
    parse, AddrBase, Address, Body, Function, FunctionKind, Guard, Instruction, Module, Operand,
    RegDecl, Stmt, StmtKind,
};
pub use raw::{check_raw_probes, instrument_raw, load_probes, RawError, RawReport};
pub use splice::{splice_raw, splice_raw_with_map, RawSite, RawSnippet, RawSplice};

use warptrace_ir::{kernel_id, MapLayout};
use warptrace_verifier::{verify_kernel, KernelErrors, VerifiedProgram};

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
}

/// Instruments every kernel of `ptx` with `program`'s probes.
pub fn instrument(ptx: &str, program: &VerifiedProgram) -> Result<Instrumented, PtxError> {
    let program = program.program();
    let module = parse(ptx)?;
    let layout = MapLayout::new(&program.maps);
    let filter = attach::KernelFilter::new(program)?;
    let files = site::file_table(module.source());
    let mut accepted = Vec::new();
    let mut added = 0;
    let mut kernels = Vec::new();
    for f in module.functions() {
        if f.kind != FunctionKind::Entry || f.body.is_none() {
            continue;
        }
        let sites = attach::find_sites(f, program, &filter, &files);
        let unsupported = attach::unsupported(program, &filter, &f.name);
        let status = if let Some(what) = unsupported {
            KernelStatus::Unsupported { what }
        } else if sites.is_empty() {
            KernelStatus::NoSites
        } else {
            if module.function_text(f).contains(lower::PREFIX) {
                return Err(PtxError::ReservedPrefix {
                    kernel: f.name.clone(),
                });
            }
            match splice::plan_kernel(&module, f, program, &layout, &sites) {
                Err(PtxError::Unsupported { what }) => KernelStatus::Unsupported { what },
                Err(e) => return Err(e),
                Ok(ins) => {
                    let (original, spliced) =
                        splice::splice_function(&module, f, &ins, f.line + added)?;
                    match verify_kernel(&original, &spliced) {
                        Ok(()) => {
                            added += splice::added_lines(&ins);
                            accepted.extend(ins);
                            KernelStatus::Instrumented {
                                sites: sites.len() as u32,
                            }
                        }
                        Err(e) => KernelStatus::Rejected(e),
                    }
                }
            }
        };
        kernels.push(KernelOutcome {
            name: f.name.clone(),
            id: kernel_id(&f.name),
            params: f.params.len() as u32,
            status,
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
    /// `after` probes); the kernel's line for
    /// `kernel:entry`.
    pub line: u32,
    /// The instruction, or `<entry>` for `kernel:entry`.
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
    let files = site::file_table(module.source());
    let mut out = Vec::new();
    for f in module.functions() {
        let Some(body) = f.body.as_ref().filter(|_| f.kind == FunctionKind::Entry) else {
            continue;
        };
        for site in attach::find_sites(f, program, &filter, &files) {
            let (line, text) = match site.stmt.and_then(|i| body.stmts.get(i)) {
                Some(stmt) => (stmt.line, stmt.text.trim().to_string()),
                None => (f.line, "<entry>".to_string()),
            };
            out.push(SiteListing {
                probe: site.probe,
                kernel: f.name.clone(),
                line,
                text,
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
