//! The AMD GCN back end of warptrace.
//!
//! [`instrument`] parses a module's AMDGPU assembly (clang, llc, Triton), finds each
//! kernel's attach sites, lowers every matching probe to a snippet in registers allocated
//! above the kernel's own, splices the snippets, a prologue and the map argument (kernel
//! descriptor and metadata) into the kernel, and runs the kernel-level verifier on the
//! result. A kernel the verifier rejects, or that uses something the back end cannot
//! lower, is left unmodified (fail open). [`assemble`] turns a module into a code object
//! with `llvm-mc` and `ld.lld`; [`build`] does both, making the kernel branches the
//! snippets pushed out of reach long (decision 0032). See `README.md` and `docs/gcn.md`
//! for the conventions.
#![deny(missing_docs)]

mod alloc;
mod alu;
mod array;
mod attach;
mod bundle;
mod combine;
mod cost;
mod emit;
#[cfg(test)]
mod emu;
mod grid;
mod hashmap;
mod hazard;
mod insn;
mod long_branch;
mod loops;
mod lower;
mod metadata;
mod model;
mod parse;
mod plan;
mod proved;
mod reg;
mod ring;
mod special;
mod splice;
mod toolchain;
mod tv;
mod tv_waterfall;
mod verify;
mod warp_access;

pub use alloc::occupancy;
pub use bundle::{
    bundle_extent, code_object_info, code_object_text, parse_bundle, parse_fatbin_wrapper, select,
    BundleEntry, BundleError, BundleExtent, CodeObjectInfo, Feature, HipFatbinWrapper,
    OffloadBundle, TargetId, BUNDLE_MAGIC, COMPRESSED_MAGIC, HIP_FATBIN_MAGIC,
    HIP_FATBIN_WRAPPER_SIZE,
};
pub use combine::Combining;
pub use cost::{probe_costs, SnippetCost};
pub use hazard::{added_hazards, hazards, Hazard};
pub use insn::{facts, Facts, Isa, MemAccess};
pub use metadata::{MetaArg, MetaKernel, MetaKey, Metadata};
pub use model::{GcnKernelModel, MapArgLoad, RegisterCounts};
pub use parse::{parse, parse_int, Function, Instruction, Kernel, Module, Operand, Stmt, StmtKind};
pub use reg::{parse_reg, Reg, RegFile};
pub use toolchain::{assemble, assemble_for, llvm_tool, notes, CodeObject, ToolError};
pub use tv::{translation_checks, Translation};
pub use verify::verify_spliced;

use warptrace_ir::{kernel_id, MapLayout};
use warptrace_verifier::{Origin, VerifiedProgram};

/// Name of the argument appended to every instrumented kernel (metadata `.name` when the
/// kernel's arguments are named): the map buffer's address, a `global_buffer` of 8 bytes
/// at the end of the kernarg segment, after the hidden arguments (decision 0007).
pub const MAP_ARG: &str = "__wt_maps";

pub use warptrace_codegen::{Error, KernelStatus, SiteListing, Target};

/// This back end, as its [`Error::Unsupported`] names it.
pub(crate) const TARGET: Target = Target::Gcn;

/// What this back end adds to `program`'s certificate ([`warptrace_codegen::ProgramChecks`]):
/// the proofs of the operation forms it uses and the lowerings no proof covers
/// ([`translation_checks`]); for a program that passed the IR rules (`verified`), each
/// probe's snippet cost bound ([`probe_costs`]).
pub fn program_checks(
    program: &warptrace_ir::Program,
    verified: Option<&VerifiedProgram>,
) -> warptrace_codegen::ProgramChecks {
    let Translation { checks, not_proved } = translation_checks(program);
    warptrace_codegen::ProgramChecks {
        checks,
        not_proved,
        costs: verified.map(probe_costs),
    }
}

/// The result of [`instrument`].
#[derive(Debug, Clone)]
pub struct Instrumented {
    /// The module with every accepted kernel instrumented; other kernels byte-identical.
    pub asm: String,
    /// One outcome per kernel, in text order of their descriptors.
    pub kernels: Vec<KernelOutcome>,
    /// The map buffer's layout the snippets were generated for (the PTX back end's): one
    /// copy, its rings spread (`warptrace_ir::placement::buffer_layout`); a kernel's
    /// buffer holds [`KernelOutcome::copies`] of it.
    pub layout: MapLayout,
    /// Who wrote each line, and the input's line of each kernel line.
    lines: splice::Lines,
}

impl Instrumented {
    /// The line of the input that line `line` of [`Instrumented::asm`] is; `None` for a
    /// line the instrumenter wrote.
    pub fn source_line(&self, line: u32) -> Option<u32> {
        self.lines.source_line(line)
    }

    /// Who wrote line `line` of [`Instrumented::asm`].
    #[cfg(test)]
    pub(crate) fn origin(&self, line: u32) -> Origin {
        self.lines.origin(line)
    }
}

/// What happened to one kernel.
#[derive(Debug, Clone)]
pub struct KernelOutcome {
    /// The kernel's symbol.
    pub name: String,
    /// `warptrace_ir::kernel_id` of the name.
    pub id: u64,
    /// Instrumented or why not.
    pub status: KernelStatus,
    /// The register and occupancy cost, when instrumented.
    pub occupancy: Option<Occupancy>,
    /// Each snippet's longest path, in splice order, when instrumented.
    pub snippets: Vec<SnippetCost>,
    /// Kernel branches made long because the snippets pushed them out of reach
    /// (decision 0032), when instrumented.
    pub long_branches: u32,
    /// Copies of [`Instrumented::layout`] its launch's buffer holds: the kernel's
    /// blocks update copy `ctaid.x mod copies` (decisions 0019, 0020:
    /// `warptrace_ir::placement::replicas`); 1 when it keeps one, or is not instrumented.
    pub copies: u32,
    /// Where its launches pass the map buffer, when instrumented.
    pub map_arg: Option<MapArg>,
}

/// The map argument of an instrumented kernel ([`MAP_ARG`]), as its launches pass it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MapArg {
    /// The original's explicit (not hidden) arguments, which a launch's parameters give;
    /// the map pointer comes after them.
    pub explicit: u32,
    /// The map pointer's byte offset in the instrumented kernarg segment.
    pub offset: u64,
}

/// Registers and waves per SIMD before and after instrumentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Occupancy {
    /// `next_free_sgpr` (before, after).
    pub sgprs: (u32, u32),
    /// `next_free_vgpr` (architectural + AGPRs on gfx90a/gfx942; before, after).
    pub vgprs: (u32, u32),
    /// Waves per SIMD the register counts allow (before, after): at most 8 on gfx9
    /// (VGPRs and SGPRs), 20 on gfx10 and 16 on gfx11 (VGPRs).
    pub waves: (u32, u32),
}

/// How [`instrument_with`] instruments.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    /// The kernel branches (by 1-based line of the input) to rewrite as long branches,
    /// which reach any distance: those the snippets pushed past a 16-bit offset's reach
    /// (decision 0032; [`build`] finds them with the assembler).
    pub long_branches: std::collections::BTreeSet<u32>,
    /// Which hash updates are combined within the wave, and whether ring appends take
    /// their cursor once per wave (decision 0036).
    pub combining: Combining,
}

/// Instruments every kernel of `asm` with `program`'s probes.
pub fn instrument(asm: &str, program: &VerifiedProgram) -> Result<Instrumented, Error> {
    instrument_with(asm, program, &Options::default())
}

/// [`instrument`] with `options`.
pub fn instrument_with(
    asm: &str,
    program: &VerifiedProgram,
    options: &Options,
) -> Result<Instrumented, Error> {
    // Rings spread over copies of the buffer: the code is generated for the program with
    // each copy's capacity (decision 0020), verified again.
    let prepared = warptrace_codegen::Prepared::new(program, TARGET)?;
    let (program, layout, filter) = (prepared.program(), &prepared.layout, &prepared.filter);
    let module = parse(asm)?;
    let mut edits = Vec::new();
    let mut kernels = Vec::new();
    for k in &module.kernels {
        let planned = plan::plan_kernel(&module, k, program, layout, filter, options)?;
        edits.extend(planned.edits);
        kernels.push(KernelOutcome {
            name: k.name.clone(),
            id: kernel_id(&k.name),
            status: planned.status,
            occupancy: planned.occupancy,
            snippets: planned.costs,
            long_branches: planned.long_branches,
            copies: planned.copies,
            map_arg: planned.map_arg,
        });
    }
    let applied = splice::apply(asm, &edits);
    Ok(Instrumented {
        asm: applied.text,
        kernels,
        layout: prepared.layout,
        lines: applied.lines,
    })
}

/// Errors of [`build`].
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// Instrumenting failed.
    #[error(transparent)]
    Instrument(#[from] Error),
    /// Assembling or linking the instrumented module failed.
    #[error(transparent)]
    Tool(#[from] ToolError),
}

/// Instruments `asm` with `program`'s probes and assembles it into a code object for
/// `target`. The assembler names each kernel branch the snippets pushed past its 16-bit
/// offset's reach (±128 KiB); those are rewritten as long branches and the module
/// instrumented (and verified) again, until it assembles (decision 0032).
pub fn build(
    asm: &str,
    program: &VerifiedProgram,
    target: &TargetId,
) -> Result<(Instrumented, CodeObject), BuildError> {
    let out = instrument(asm, program)?;
    assemble_instrumented(asm, program, out, target)
}

/// The assembling half of [`build`]: `out` is [`instrument`]'s output for `asm` and
/// `program`. The kernels' outcomes are those of the returned [`Instrumented`] (a kernel
/// whose long branches the verifier rejected is left unmodified).
pub fn assemble_instrumented(
    asm: &str,
    program: &VerifiedProgram,
    mut out: Instrumented,
    target: &TargetId,
) -> Result<(Instrumented, CodeObject), BuildError> {
    let mut options = Options::default();
    loop {
        match assemble_for(&out.asm, target) {
            Ok(code) => return Ok((out, code)),
            Err(ToolError::BranchOutOfRange { stderr, lines }) => {
                let before = options.long_branches.len();
                options
                    .long_branches
                    .extend(lines.iter().filter_map(|&l| out.source_line(l)));
                // A branch no rewrite reaches (inserted code's own, or one relaxing
                // could not take): the error stands.
                if options.long_branches.len() == before {
                    return Err(ToolError::BranchOutOfRange { stderr, lines }.into());
                }
                out = instrument_with(asm, program, &options)?;
            }
            Err(e) => return Err(e.into()),
        }
    }
}

/// Whether [`instrument_as_loaded`] could assemble the instrumented module.
#[derive(Debug)]
pub enum Assembly {
    /// It assembled and linked into this code object (long branches made where needed).
    Built(CodeObject),
    /// The module names no `.amdgcn_target` to assemble for.
    NoTarget,
    /// Assembling failed (an LLVM tool not installed, a processor LLVM 19 does not know,
    /// a branch no rewrite reaches): the module is instrumented as [`instrument`] does,
    /// and a kernel whose branches the snippets push out of reach would not assemble.
    Failed(ToolError),
}

impl Assembly {
    /// Why the module was not assembled, in a line (the tool's first error line); `None`
    /// when it was or the file names no target.
    pub fn why_not(&self) -> Option<String> {
        match self {
            Assembly::Failed(e) => {
                let text = e.to_string();
                let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
                let first = lines.next().unwrap_or_default().to_owned();
                Some(match lines.next() {
                    Some(next) => format!("{first} {next}"),
                    None => first,
                })
            }
            Assembly::Built(_) | Assembly::NoTarget => None,
        }
    }
}

/// The module as the HIP hook would load it: [`build`] for the file's `.amdgcn_target`
/// when there is one, so kernel branches the snippets push out of reach are long
/// branches (verified) in the text too; otherwise, or when assembling fails (the LLVM
/// tools missing included), [`instrument`]'s output and why it was not assembled.
pub fn instrument_as_loaded(
    asm: &str,
    program: &VerifiedProgram,
) -> Result<(Instrumented, Assembly), BuildError> {
    let out = instrument(asm, program)?;
    let Some(target) = TargetId::of_assembly(asm) else {
        return Ok((out, Assembly::NoTarget));
    };
    match assemble_instrumented(asm, program, out.clone(), &target) {
        Ok((out, code)) => Ok((out, Assembly::Built(code))),
        Err(BuildError::Tool(e)) => Ok((out, Assembly::Failed(e))),
        Err(e) => Err(e),
    }
}

/// Every concrete site each probe of `program` attaches to in the kernels of `asm`, in
/// kernel then probe then text order — the matching [`instrument`] uses.
pub fn list_sites(asm: &str, program: &warptrace_ir::Program) -> Result<Vec<SiteListing>, Error> {
    let module = parse(asm)?;
    let filter = attach::KernelFilter::new(program)?;
    let mut out = Vec::new();
    for k in &module.kernels {
        let Some(isa) = model::isa_of(&module, &k.name) else {
            continue;
        };
        let (sites, _) = attach::find_sites(&module, k, &isa, program, &filter);
        for s in sites {
            let (line, text) = match s.stmt {
                Some(i) => (module.stmts[i].line, module.stmt_text(i).to_owned()),
                None => (module.stmts[k.body.start].line, "<entry>".to_owned()),
            };
            out.push(SiteListing {
                probe: s.probe,
                kernel: k.name.clone(),
                line,
                text,
            });
        }
    }
    Ok(out)
}

impl Module {
    /// The verifier's model of kernel `name` as parsed (every item of kernel origin, the
    /// registers its descriptor reserves).
    pub fn kernel_model(&self, name: &str) -> Option<GcnKernelModel> {
        let counts = RegisterCounts::of(self, name)?;
        GcnKernelModel::build(self, name, &|_| Origin::Kernel, counts, counts, None)
    }
}
