//! The target-neutral view of a (spliced) kernel that every back end implements.
//!
//! The kernel-level checks only ever see this model: instructions in program order with
//! their register defs/uses, control flow, memory accesses and origin (kernel or an
//! inserted snippet). Back ends (PTX now, GCN later) build it from their own parse.

/// A register, label or symbol name: held inline up to 24 bytes (every name PTX and GCN
/// kernels use), so that the thousands of names of a spliced kernel's model cost no
/// allocation.
pub type Name = compact_str::CompactString;

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
        target: Name,
        /// Predicated/conditional: may also fall through.
        conditional: bool,
    },
    /// An indexed branch to one of several labels (PTX `brx.idx` through a
    /// `.branchtargets` table); never falls through unless guarded.
    Switch {
        /// The labels' names, in table order.
        targets: Vec<Name>,
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

/// How a memory operand forms its address.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Addr {
    /// A register plus an immediate offset (`[%rd1+8]`).
    Reg(Name),
    /// A named variable or parameter plus an immediate offset (`[k_param_0]`).
    Symbol(Name),
    /// An absolute address (`[0x100]`).
    Absolute,
    /// Any other form (tensor copies' `[%rd1, {%r1, %r2}]`, …): the registers it names.
    Other(Vec<Name>),
    /// The back end does not decode this instruction's address (texture and surface
    /// accesses, implicit operands, unknown opcodes).
    Unknown,
    /// A base register plus index registers plus an immediate offset (GCN's
    /// `global_atomic_add_x2 v1, v[2:3], s[4:5] offset:8`: the 64-bit base `s[4:5]` plus
    /// the 32-bit lane offset `v1`). An address derived from the map parameter when the
    /// base is a map pointer and no index is one, as for [`Compute::Add`].
    Indexed {
        /// The base register.
        base: Name,
        /// The registers added to it.
        index: Vec<Name>,
    },
}

/// One memory access of an instruction.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MemRef {
    /// State space accessed.
    pub space: Space,
    /// Kind of access.
    pub access: Access,
    /// The address operand.
    pub addr: Addr,
}

/// The member mask of a warp collective.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Mask {
    /// A register operand.
    Reg(Name),
    /// An immediate operand.
    Imm(i64),
    /// No mask operand: the whole warp takes part (`wmma`, `mma`, `ldmatrix`, `.aligned`
    /// forms, the pre-`.sync` `shfl`/`vote`), or an operand the back end cannot read.
    Implicit,
}

/// What an instruction computes, as far as the kernel-level checks need it: address
/// provenance (is a register the map buffer's address plus an offset?) and warp masks
/// (does a register hold the active mask?). Back ends describe only pointer-width
/// (64-bit) arithmetic as [`Compute::Copy`] / [`Compute::Add`]; anything else is
/// [`Compute::Opaque`], whose results are never addresses.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub enum Compute {
    /// The defined registers hold new values (never an address the checks trust).
    #[default]
    Opaque,
    /// `dst = src`: a pointer-width move, or a conversion that keeps a global address
    /// (`cvta.to.global`).
    Copy(Name),
    /// `dst = Σ addends + f(offsets)`: pointer-width integer addition, subtraction or
    /// multiply-add. A register in `addends` is added as it is; one in `offsets` is
    /// subtracted or multiplied (so the result is an address only when exactly one
    /// addend is, and no offset is). Immediates are not listed.
    Add {
        /// Registers added unscaled.
        addends: Vec<Name>,
        /// Registers subtracted or scaled.
        offsets: Vec<Name>,
    },
    /// A pointer-width load of the instruction's one memory operand into its one def.
    LoadWord,
    /// `activemask`: the def holds the mask of the lanes active at this instruction.
    ActiveMask,
    /// A warp collective (shuffle, vote, match, reduction, warp barrier, matrix
    /// operation) over the lanes of its member mask.
    Collective(Mask),
    /// A call (`Flow::Call`) and its operands, so that a call redirected to an
    /// instrumented clone of its callee can be checked (`CallRewrite`). Boxed: calls are
    /// rare and every instruction carries a `Compute`.
    Call(Box<CallSite>),
}

/// The operands of a call, as a back end decodes them.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct CallSite {
    /// The callee's name; `None` for an indirect call (through a register).
    pub callee: Option<String>,
    /// The return parameters, in order.
    pub rets: Vec<String>,
    /// The argument parameters, in order.
    pub args: Vec<String>,
    /// Everything else the call is written with that decides what it does (opcode and
    /// modifiers such as `.uni`, an indirect call's prototype or target list), which a
    /// rewrite must keep.
    pub form: String,
}

/// One instruction of the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instr {
    /// Who wrote it.
    pub origin: Origin,
    /// Registers written (vector operands expanded; predicates included).
    pub defs: Vec<Name>,
    /// Registers read (guard predicate included).
    pub uses: Vec<Name>,
    /// Control flow.
    pub flow: Flow,
    /// Memory accesses (a copy instruction may have two).
    pub mem: Vec<MemRef>,
    /// The guard predicate, if the instruction is predicated (it is in `uses` too): its
    /// defs then keep their old value in lanes where the guard is false.
    pub guard: Option<Name>,
    /// What it computes, for address provenance and warp masks.
    pub compute: Compute,
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
        name: Name,
        /// Who wrote it.
        origin: Origin,
    },
    /// An instruction.
    Instr(Instr),
}

/// One register declaration, located: a name, or a range of `count` names `name0` ..
/// `name{count-1}` (PTX's `%r<4>`), kept as a range however large it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declaration {
    /// The register, or the range's base (`%r` of `%r<4>`).
    pub name: String,
    /// `Some(n)` for a range of `n` registers.
    pub count: Option<u32>,
    /// Who declared it.
    pub origin: Origin,
    /// 1-based line of the declaration; 0 when the back end does not know it.
    pub line: u32,
}

impl Declaration {
    /// Whether this declaration declares register `reg`.
    pub fn declares(&self, reg: &str) -> bool {
        declares_register(&self.name, self.count, reg)
    }

    /// The declaration as written: `%r<4>` or `%x`.
    pub fn text(&self) -> String {
        declaration_text(&self.name, self.count)
    }

    /// Whether this declaration and `other` declare a common register.
    pub fn overlaps(&self, other: &Declaration) -> bool {
        match (self.count, other.count) {
            (None, _) => other.declares(&self.name),
            (_, None) => self.declares(&other.name),
            // Both ranges start at index 0.
            (Some(a), Some(b)) => self.name == other.name && a > 0 && b > 0,
        }
    }
}

/// Whether the declaration of `name` (`count` registers `name0`…, or the one register
/// `name` when `None`) declares `reg`: a range as a range, never expanded.
pub fn declares_register(name: &str, count: Option<u32>, reg: &str) -> bool {
    match count {
        None => name == reg,
        Some(n) => reg
            .strip_prefix(name)
            .and_then(range_index)
            .is_some_and(|i| i < n),
    }
}

/// A declaration's item as written: `%r<4>` or `%x`.
pub fn declaration_text(name: &str, count: Option<u32>) -> String {
    match count {
        Some(n) => format!("{name}<{n}>"),
        None => name.to_string(),
    }
}

/// The index of a range register's suffix: decimal digits without a leading zero
/// (`%r01` is refused, not read as `%r1`: a raw probe's reader denies such names, see
/// `codegen-ptx/src/raw/deny.rs`).
pub fn range_index(suffix: &str) -> Option<u32> {
    let ok = !suffix.is_empty()
        && suffix.bytes().all(|c| c.is_ascii_digit())
        && (suffix == "0" || !suffix.starts_with('0'));
    if ok {
        suffix.parse().ok()
    } else {
        None
    }
}

/// A declaration or directive that sizes a launch's on-chip resources: a shared variable
/// (static, or `.extern` dynamic shared memory), a local variable, or a launch bound
/// (`.maxntid`, `.reqntid`, `.minnctapersm`, `.maxnreg`, cluster dimensions, …).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resource {
    /// What kind of resource it sizes.
    pub kind: ResourceKind,
    /// The declaration as written, whitespace collapsed, comments removed.
    pub text: String,
    /// Who wrote it.
    pub origin: Origin,
    /// 1-based line.
    pub line: u32,
}

/// The kinds of [`Resource`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ResourceKind {
    /// A shared-memory variable, static or dynamic (`.extern .shared`).
    Shared,
    /// A local-memory variable (per-thread stack).
    Local,
    /// A launch bound or register limit of the kernel's header.
    LaunchBound,
    /// A register the launch initializes (GCN: the user and system SGPRs), its text
    /// naming the register and what it holds. The kernel's must stay as they are; inserted
    /// code may have the launch initialize more after them (the instrumenter enables a
    /// workgroup id the kernel does not read): a register the kernel does not expect
    /// initialized, which its code writes before any read, so no value it computes can
    /// change.
    InitialRegister,
}

/// A kernel as the verifier sees it. Implemented by each back end for its parsed
/// kernels, before and after splicing.
pub trait KernelModel {
    /// The kernel's (mangled) name.
    fn kernel_name(&self) -> &str;
    /// The body's labels and instructions in program order.
    fn items(&self) -> Vec<Item>;
    /// [`KernelModel::items`], borrowed where the model stores them (the checks read a
    /// spliced kernel's thousands of items once; a copy would cost as much as reading).
    /// The default copies.
    fn items_ref(&self) -> std::borrow::Cow<'_, [Item]> {
        std::borrow::Cow::Owned(self.items())
    }
    /// Registers declared in the body (e.g. PTX `.reg` declarations, `%r<4>` expanded
    /// to `%r0`..`%r3`) with who declared them.
    fn declared_registers(&self) -> Vec<(String, Origin)>;
    /// [`KernelModel::declarations`], borrowed where the model stores them (a Triton
    /// kernel declares a thousand registers). The default copies.
    fn declarations_ref(&self) -> std::borrow::Cow<'_, [Declaration]> {
        std::borrow::Cow::Owned(self.declarations())
    }
    /// The same declarations with their lines. The default gives every one line 0.
    fn declarations(&self) -> Vec<Declaration> {
        self.declared_registers()
            .into_iter()
            .map(|(name, origin)| Declaration {
                name,
                count: None,
                origin,
                line: 0,
            })
            .collect()
    }
    /// The parameter the instrumenter appended to carry the map buffer's address, if
    /// the kernel has one: the only parameter inserted code may load, and the only
    /// source of an address inserted code may store through. The default is none.
    fn map_param(&self) -> Option<String> {
        None
    }
    /// The declarations and directives that size the launch's resources (shared and
    /// local variables, launch bounds), in text order. The default is none.
    fn resources(&self) -> Vec<Resource> {
        Vec::new()
    }
    /// The parameters of the kernel or function, in order, by name, with who declared
    /// them (the map parameter is inserted). Checked for the clones of device functions
    /// (`verify_kernel_with_callees`); the default is none.
    fn params(&self) -> Vec<(String, Origin)> {
        Vec::new()
    }
    /// For targets whose register names overlap (GCN: `s[4:5]` is `s4` and `s5`, `vcc`
    /// is `vcc_lo` and `vcc_hi`): the machine registers that `reg` occupies, or `None`
    /// when the name is one register of its own. Two names alias when their parts
    /// intersect; the checks compare registers by their parts. The default: no name
    /// overlaps another (PTX's virtual registers).
    fn parts(&self, reg: &str) -> Option<Vec<String>> {
        let _ = reg;
        None
    }
    /// Kernel registers that inserted code may write if it restores them before control
    /// reaches kernel code again (GCN: `scc`, `vcc_lo`, `vcc_hi`, `exec_lo`, `exec_hi`,
    /// `m0`, which every scalar ALU operation or lane-mask change touches): the kernel
    /// check proves that every path from such a write to a kernel instruction copies the
    /// value saved before the write back (`restored`). Only wave-wide (scalar) registers
    /// may be listed: a copy of them is not masked by the lanes' activity. The default
    /// is none.
    fn restorable(&self) -> Vec<String> {
        Vec::new()
    }
    /// Parameters besides [`KernelModel::map_param`] that inserted code may load (GCN:
    /// the code-object-v5 hidden arguments holding the grid's block counts and the block
    /// size, which a launch fills and no one writes): a load of one of them is no
    /// `MemorySafety` violation. Reading them gives inserted code no address; what it
    /// loads is not a map pointer. The default is none.
    fn readable_params(&self) -> Vec<String> {
        Vec::new()
    }
}
