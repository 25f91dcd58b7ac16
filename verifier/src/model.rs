//! The target-neutral view of a (spliced) kernel that every back end implements.
//!
//! The kernel-level checks only ever see this model: instructions in program order with
//! their register defs/uses, control flow, memory accesses and origin (kernel or an
//! inserted snippet). Back ends (PTX now, GCN later) build it from their own parse.

/// Who wrote an item: the original kernel or a probe snippet the instrumenter inserted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Origin {
    /// Part of the kernel as compiled.
    Kernel,
    /// Part of inserted snippet number `snippet` (numbered per kernel, from 0).
    Inserted {
        /// Snippet index within the kernel.
        snippet: u32,
    },
}

/// How control leaves an instruction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Flow {
    /// Falls through to the next instruction.
    Next,
    /// Jumps to a label (and, if `conditional`, may fall through).
    Branch {
        /// The label's name as written.
        target: String,
        /// Predicated/conditional: may also fall through.
        conditional: bool,
    },
    /// Leaves the kernel or function (`ret`, `exit`, `s_endpgm`).
    Exit,
    /// Calls a function.
    Call,
    /// Traps or breaks (`trap`, `brkpt`, `s_trap`).
    Trap,
    /// A block-level barrier (`bar.sync`, `barrier.sync`, `s_barrier`).
    Barrier,
    /// A warp collective (`shfl`, `vote`, `bar.warp.sync`, `match`, `redux`, …).
    WarpCollective,
}

/// A memory state space.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)] // the names are the PTX state spaces; GCN maps onto them
pub enum Space {
    Global,
    Shared,
    Local,
    Param,
    Const,
    /// Generic addressing: may alias global, shared or local.
    Generic,
}

/// The kind of a memory access.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum Access {
    Load,
    Store,
    /// Atomic read-modify-write or reduction.
    Atomic,
}

/// One memory access of an instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MemRef {
    /// State space accessed.
    pub space: Space,
    /// Kind of access.
    pub access: Access,
}

/// One instruction of the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instr {
    /// Who wrote it.
    pub origin: Origin,
    /// Registers written (vector operands expanded; predicates included).
    pub defs: Vec<String>,
    /// Registers read (guard predicate included).
    pub uses: Vec<String>,
    /// Control flow.
    pub flow: Flow,
    /// Memory accesses (a copy instruction may have two).
    pub mem: Vec<MemRef>,
    /// The instruction as written, for messages and the sequence comparison.
    pub text: String,
    /// 1-based line in the assembly text.
    pub line: u32,
}

/// An item of a kernel body in program order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    /// A label definition.
    Label {
        /// Its name.
        name: String,
        /// Who wrote it.
        origin: Origin,
    },
    /// An instruction.
    Instr(Instr),
}

/// A kernel as the verifier sees it. Implemented by each back end for its parsed
/// kernels, before and after splicing.
pub trait KernelModel {
    /// The kernel's (mangled) name.
    fn kernel_name(&self) -> &str;
    /// The body's labels and instructions in program order.
    fn items(&self) -> Vec<Item>;
    /// Registers declared in the body (e.g. PTX `.reg` declarations, `%r<4>` expanded
    /// to `%r0`..`%r3`) with who declared them.
    fn declared_registers(&self) -> Vec<(String, Origin)>;
}
