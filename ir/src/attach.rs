//! Where a device probe runs: attach points, their position and granularity.

use serde::{Deserialize, Serialize};
use std::fmt;

/// An attach point plus everything else that selects and shapes a probe's sites.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct AttachSpec {
    /// The kind of place the probe runs.
    pub point: AttachPoint,
    /// Glob (`*`, `?`) on the kernel's mangled or demangled name; `None` matches every kernel.
    pub kernel_glob: Option<String>,
    /// Before or after the probed instruction (`after …` in the language).
    #[serde(default)]
    pub position: Position,
    /// Every active thread runs the probe, or one update per warp (`warp …`).
    #[serde(default)]
    pub granularity: Granularity,
}

impl AttachSpec {
    /// A thread-level probe that runs before its site.
    pub fn new(point: AttachPoint, kernel_glob: Option<String>) -> AttachSpec {
        AttachSpec {
            point,
            kernel_glob,
            position: Position::Before,
            granularity: Granularity::Thread,
        }
    }
}

/// Whether an instruction probe runs before or after its instruction.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Position {
    /// Before the instruction (the default; the only position of `kernel:*` and `loop:*`).
    #[default]
    Before,
    /// After it: a load's destination holds the loaded value (`value`).
    After,
}

/// Who runs a probe's map updates and record appends.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Granularity {
    /// Every active thread (the default).
    #[default]
    Thread,
    /// Every active lane computes; each map update / record is done once per warp, by the
    /// first active lane.
    Warp,
}

/// The places a device probe can run (LANGUAGE.md's attach-point table).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum AttachPoint {
    /// `kernel:entry`: at kernel start, every thread.
    KernelEntry,
    /// `kernel:exit`: before every `ret`/`exit` (`s_endpgm`), predicated ones included.
    KernelExit,
    /// `mem:<space>:<op>`: at each matching memory instruction.
    Mem {
        /// State space.
        space: MemSpace,
        /// Kind of access.
        op: MemOp,
    },
    /// `tensor:mma`: at matrix instructions (`mma`, `wmma`, `wgmma`; `v_mfma*`, `v_wmma*`).
    TensorMma,
    /// `sync:barrier`: at block barriers (`bar.sync`, `barrier.sync`, `bar.arrive`; `s_barrier`).
    SyncBarrier,
    /// `branch`: at conditional branches.
    Branch,
    /// `loop:header|backedge|exit`: at natural loops of the kernel's CFG.
    Loop(LoopEdge),
    /// `line:<file>:<from>[-<to>]`: instructions whose `.loc` is in that range.
    Line {
        /// The source file, as the kernel's `.file` directive names it (suffix match).
        file: String,
        /// First line, inclusive.
        from: u32,
        /// Last line, inclusive (`from` for a single line).
        to: u32,
    },
    /// `region:entry|exit:<file>:<from>-<to>`: the smallest single-entry single-exit
    /// region of the kernel's CFG around the instructions whose `.loc` is in that range
    /// (`docs/language.md`, "Source-line regions").
    Region {
        /// Which end of the region.
        end: RegionEnd,
        /// The source file (suffix match, as for `line:`).
        file: String,
        /// First line, inclusive.
        from: u32,
        /// Last line, inclusive.
        to: u32,
    },
    /// `ptx:<glob>` / `gcn:<glob>`: raw opcode match on that ISA.
    Opcode {
        /// The ISA whose opcodes the glob matches.
        isa: Isa,
        /// Glob on the full opcode (`ld.global.v4.*`); contains no `:`.
        glob: String,
    },
}

impl AttachPoint {
    /// Whether the probe has a place in the kernel's code, so that it has `pc`, `file` and
    /// `line`: an instruction; a loop point, whose place is its loop header's first
    /// instruction (the same for the loop's header, back edges and exits: the loop's
    /// identity); or a region point, whose place is the instruction its entry snippet
    /// precedes (the same at both ends).
    pub fn has_location(&self) -> bool {
        self.has_instruction() || matches!(self, AttachPoint::Loop(_) | AttachPoint::Region { .. })
    }

    /// Whether the probe runs at an instruction of the kernel, so that it has a site
    /// (`pc`, `file`, `line`, `opcode`, and the operands its instruction has).
    pub fn has_instruction(&self) -> bool {
        !matches!(
            self,
            AttachPoint::KernelEntry
                | AttachPoint::KernelExit
                | AttachPoint::Loop(_)
                | AttachPoint::Region { .. }
        )
    }
}

/// The three places of a natural loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum LoopEdge {
    /// At the top of the header block: every entry into the loop and every iteration.
    Header,
    /// Each time a back edge is taken (before the latch's branch to the header, or at
    /// the end of a latch that falls through into it).
    Backedge,
    /// Each time an edge leaving the loop is taken, before control leaves it (once per
    /// loop the edge leaves). Leaving the kernel (`ret`/`exit`) is not a loop exit.
    Exit,
}

/// The two ends of a source-line region.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum RegionEnd {
    /// Where control enters the region (once per execution of it).
    Entry,
    /// Where control leaves it (once per execution, after its entry).
    Exit,
}

impl RegionEnd {
    /// The name in the attach point.
    pub fn name(self) -> &'static str {
        match self {
            RegionEnd::Entry => "entry",
            RegionEnd::Exit => "exit",
        }
    }
}

/// The instruction set of an `Opcode` attach point.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Isa {
    /// NVIDIA PTX.
    Ptx,
    /// AMD GCN / CDNA / RDNA assembly.
    Gcn,
}

/// Memory state spaces of `mem:` attach points.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[allow(missing_docs)] // the names are the PTX state spaces
pub enum MemSpace {
    Global,
    Shared,
    Local,
    Generic,
    Any,
}

impl MemSpace {
    /// Every space, in text-form order.
    pub const ALL: [MemSpace; 5] = [
        MemSpace::Global,
        MemSpace::Shared,
        MemSpace::Local,
        MemSpace::Generic,
        MemSpace::Any,
    ];

    /// The name in the attach point (`*` for any).
    pub fn name(self) -> &'static str {
        match self {
            MemSpace::Global => "global",
            MemSpace::Shared => "shared",
            MemSpace::Local => "local",
            MemSpace::Generic => "generic",
            MemSpace::Any => "*",
        }
    }
}

/// Memory operations of `mem:` attach points.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[allow(missing_docs)] // load, store, atomic/reduction, asynchronous copy, any
pub enum MemOp {
    Load,
    Store,
    Atomic,
    Async,
    Any,
}

impl MemOp {
    /// Every operation, in text-form order.
    pub const ALL: [MemOp; 5] = [
        MemOp::Load,
        MemOp::Store,
        MemOp::Atomic,
        MemOp::Async,
        MemOp::Any,
    ];

    /// The name in the attach point (`*` for any).
    pub fn name(self) -> &'static str {
        match self {
            MemOp::Load => "load",
            MemOp::Store => "store",
            MemOp::Atomic => "atomic",
            MemOp::Async => "async",
            MemOp::Any => "*",
        }
    }
}

impl LoopEdge {
    /// The name in the attach point.
    pub fn name(self) -> &'static str {
        match self {
            LoopEdge::Header => "header",
            LoopEdge::Backedge => "backedge",
            LoopEdge::Exit => "exit",
        }
    }
}

impl Isa {
    /// The prefix of the attach point.
    pub fn name(self) -> &'static str {
        match self {
            Isa::Ptx => "ptx",
            Isa::Gcn => "gcn",
        }
    }

    /// The name users read for the ISA and its back end: `PTX`, `GCN`.
    pub fn title(self) -> &'static str {
        match self {
            Isa::Ptx => "PTX",
            Isa::Gcn => "GCN",
        }
    }
}

/// [`Isa::title`].
impl std::fmt::Display for Isa {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.title())
    }
}

/// Whether a `line:` file name prints bare; any other is printed as a quoted string.
pub(crate) fn is_bare_file(file: &str) -> bool {
    !file.is_empty()
        && file
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_./-+".contains(c))
}

/// `FILE:FROM[-TO]` of `line:` and `region:` points (the file quoted unless bare).
fn write_lines(f: &mut fmt::Formatter<'_>, file: &str, from: u32, to: u32) -> fmt::Result {
    if is_bare_file(file) {
        write!(f, "{file}:{from}")?;
    } else {
        write!(f, "{file:?}:{from}")?;
    }
    if to != from {
        write!(f, "-{to}")?;
    }
    Ok(())
}

impl fmt::Display for AttachPoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AttachPoint::KernelEntry => write!(f, "kernel:entry"),
            AttachPoint::KernelExit => write!(f, "kernel:exit"),
            AttachPoint::Mem { space, op } => write!(f, "mem:{}:{}", space.name(), op.name()),
            AttachPoint::TensorMma => write!(f, "tensor:mma"),
            AttachPoint::SyncBarrier => write!(f, "sync:barrier"),
            AttachPoint::Branch => write!(f, "branch"),
            AttachPoint::Loop(edge) => write!(f, "loop:{}", edge.name()),
            AttachPoint::Line { file, from, to } => {
                write!(f, "line:")?;
                write_lines(f, file, *from, *to)
            }
            AttachPoint::Region {
                end,
                file,
                from,
                to,
            } => {
                write!(f, "region:{}:", end.name())?;
                write_lines(f, file, *from, *to)
            }
            AttachPoint::Opcode { isa, glob } => write!(f, "{}:{glob}", isa.name()),
        }
    }
}

impl fmt::Display for AttachSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.granularity == Granularity::Warp {
            write!(f, "warp ")?;
        }
        if self.position == Position::After {
            write!(f, "after ")?;
        }
        write!(f, "{}", self.point)?;
        if let Some(glob) = &self.kernel_glob {
            write!(f, ":{glob}")?;
        }
        Ok(())
    }
}

/// The kernels each probe of a program applies to: the probes' kernel-name globs,
/// compiled once (both back ends match every kernel of a module against them).
#[derive(Debug)]
pub struct KernelFilter(Vec<Option<globset::GlobMatcher>>);

/// A probe's kernel-name glob that does not compile.
#[derive(Debug, thiserror::Error)]
#[error("invalid kernel glob `{glob}`")]
pub struct GlobError {
    /// The glob as written.
    pub glob: String,
    /// Why it does not compile.
    #[source]
    pub source: globset::Error,
}

impl KernelFilter {
    /// Compiles the kernel globs of `program`'s probes.
    pub fn new(program: &crate::Program) -> Result<KernelFilter, GlobError> {
        program
            .probes
            .iter()
            .map(|p| {
                p.attach
                    .kernel_glob
                    .as_ref()
                    .map(|g| {
                        globset::Glob::new(g)
                            .map(|g| g.compile_matcher())
                            .map_err(|source| GlobError {
                                glob: g.clone(),
                                source,
                            })
                    })
                    .transpose()
            })
            .collect::<Result<_, _>>()
            .map(KernelFilter)
    }

    /// Whether probe `probe` applies to the kernel with this (mangled) name: a probe
    /// without a glob applies to every kernel, an unknown probe to none.
    pub fn matches(&self, probe: usize, kernel: &str) -> bool {
        match self.0.get(probe) {
            Some(Some(m)) => m.is_match(kernel),
            Some(None) => true,
            None => false,
        }
    }
}
