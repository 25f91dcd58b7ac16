//! Instructions, operands and the values they read.

use serde::{Deserialize, Serialize};

/// A virtual 64-bit register of a probe, `r0`, `r1`, …
///
/// Registers are local to one probe firing; a code generator maps each to a
/// probe-private machine register.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Reg(pub u16);

/// A source operand: a register or a 64-bit immediate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Operand {
    /// The value of a register.
    Reg(Reg),
    /// A constant; its bits are used as a 64-bit two's-complement value.
    Imm(i64),
}

/// The width an ALU operation is computed at. A 32-bit result is zero-extended to
/// 64 bits when written to its destination.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Width {
    /// 32-bit arithmetic.
    W32,
    /// 64-bit arithmetic.
    W64,
}

/// A binary ALU operation. Comparisons produce 0 or 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[allow(missing_docs)] // the names are the documentation; semantics in docs/ir.md
pub enum BinOp {
    Add,
    Sub,
    Mul,
    DivU,
    DivS,
    RemU,
    RemS,
    And,
    Or,
    Xor,
    Shl,
    ShrU,
    ShrS,
    Eq,
    Ne,
    LtU,
    LtS,
    LeU,
    LeS,
    GtU,
    GtS,
    GeU,
    GeS,
}

impl BinOp {
    /// Every operation, in text-form order.
    pub const ALL: [BinOp; 23] = [
        BinOp::Add,
        BinOp::Sub,
        BinOp::Mul,
        BinOp::DivU,
        BinOp::DivS,
        BinOp::RemU,
        BinOp::RemS,
        BinOp::And,
        BinOp::Or,
        BinOp::Xor,
        BinOp::Shl,
        BinOp::ShrU,
        BinOp::ShrS,
        BinOp::Eq,
        BinOp::Ne,
        BinOp::LtU,
        BinOp::LtS,
        BinOp::LeU,
        BinOp::LeS,
        BinOp::GtU,
        BinOp::GtS,
        BinOp::GeU,
        BinOp::GeS,
    ];

    /// The mnemonic in the text form (`add`, `div.u`, `lt.s`, …).
    pub fn mnemonic(self) -> &'static str {
        match self {
            BinOp::Add => "add",
            BinOp::Sub => "sub",
            BinOp::Mul => "mul",
            BinOp::DivU => "div.u",
            BinOp::DivS => "div.s",
            BinOp::RemU => "rem.u",
            BinOp::RemS => "rem.s",
            BinOp::And => "and",
            BinOp::Or => "or",
            BinOp::Xor => "xor",
            BinOp::Shl => "shl",
            BinOp::ShrU => "shr.u",
            BinOp::ShrS => "shr.s",
            BinOp::Eq => "eq",
            BinOp::Ne => "ne",
            BinOp::LtU => "lt.u",
            BinOp::LtS => "lt.s",
            BinOp::LeU => "le.u",
            BinOp::LeS => "le.s",
            BinOp::GtU => "gt.u",
            BinOp::GtS => "gt.s",
            BinOp::GeU => "ge.u",
            BinOp::GeS => "ge.s",
        }
    }

    /// Whether the operation divides by its second operand (and so may trap on zero).
    pub fn divides(self) -> bool {
        matches!(self, BinOp::DivU | BinOp::DivS | BinOp::RemU | BinOp::RemS)
    }

    /// Whether the result is a 0/1 truth value.
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinOp::Eq
                | BinOp::Ne
                | BinOp::LtU
                | BinOp::LtS
                | BinOp::LeU
                | BinOp::LeS
                | BinOp::GtU
                | BinOp::GtS
                | BinOp::GeU
                | BinOp::GeS
        )
    }
}

/// A special value a probe may read: a hardware register, a value computed from them, or
/// an immediate the code generator or the runtime supplies ([`Special::source`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Special {
    /// `clock`: the 32-bit SM cycle counter.
    Clock,
    /// `clock64`: the 64-bit SM cycle counter.
    Clock64,
    /// `globaltimer`: nanoseconds, global to the GPU.
    GlobalTimer,
    /// `smid`: the SM the thread runs on.
    Smid,
    /// `nsmid`: the number of SMs.
    Nsmid,
    /// `warpid`: the warp's slot on its SM (PTX `%warpid`; on AMD the wave's SIMD and
    /// wave slot in its CU, from `HW_REG_HW_ID`), below 128.
    Warpid,
    /// `warp`: the warp's index in its block (linear thread index in the block / 32).
    Warp,
    /// `lane`: the thread's lane in its warp.
    Lane,
    /// `tid.x`.
    TidX,
    /// `tid.y`.
    TidY,
    /// `tid.z`.
    TidZ,
    /// `ntid.x`.
    NtidX,
    /// `ntid.y`.
    NtidY,
    /// `ntid.z`.
    NtidZ,
    /// `ctaid.x`.
    CtaidX,
    /// `ctaid.y`.
    CtaidY,
    /// `ctaid.z`.
    CtaidZ,
    /// `nctaid.x`.
    NctaidX,
    /// `nctaid.y`.
    NctaidY,
    /// `nctaid.z`.
    NctaidZ,
    /// `thread`: linear global thread id, `block * threads_per_block + linear tid`.
    Thread,
    /// `block`: linear block id, `ctaid.x + nctaid.x * (ctaid.y + nctaid.y * ctaid.z)`.
    Block,
    /// `activemask`: the mask of active lanes, bit i for lane i (64 bits: a GCN wave64's
    /// `exec`; 32 lanes on NVIDIA).
    ActiveMask,
    /// `active`: the number of active lanes, `popc(activemask)`.
    Active,
    /// The kernel's id: a 64-bit hash of its (mangled) name, see [`kernel_id`](crate::kernel_id).
    /// A code generator materialises it as an immediate.
    KernelId,
    /// `launch`: the launch's sequence number in the process, written by the runtime into
    /// the map buffer's header before each launch.
    Launch,
    /// `pc`: the index of the probed instruction in the kernel (an immediate per site).
    Pc,
    /// `file`: [`kernel_id`](crate::kernel_id) of the site's `.loc` file path (an immediate per site; 0 without `.loc`).
    File,
    /// `line`: the site's `.loc` line (an immediate per site; 0 without `.loc`).
    Line,
    /// `duration`: a launch's time on the device in nanoseconds, from events around it
    /// (`launch:end` host blocks only).
    Duration,
    /// `shared`: a launch's dynamic shared memory in bytes (`launch:*` host blocks only).
    SharedBytes,
    /// `stream`: a launch's stream handle (`launch:*` host blocks only; 0 for the legacy
    /// default stream).
    Stream,
}

/// Where a special value comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SpecialSource {
    /// A hardware special register, read at the probe.
    Hardware,
    /// Computed at the probe from hardware registers.
    Computed,
    /// An immediate the code generator emits, one per kernel.
    KernelImmediate,
    /// An immediate the code generator emits, one per site; needs an instruction site.
    SiteImmediate,
    /// Written by the runtime before each launch, read from the map buffer.
    Runtime,
    /// Known to the runtime's host side only, at a launch (`launch:*` host blocks): never
    /// in a device probe.
    Host,
}

impl Special {
    /// Every special value, in text-form order.
    pub const ALL: [Special; 32] = [
        Special::Clock,
        Special::Clock64,
        Special::GlobalTimer,
        Special::Smid,
        Special::Nsmid,
        Special::Warpid,
        Special::Warp,
        Special::Lane,
        Special::TidX,
        Special::TidY,
        Special::TidZ,
        Special::NtidX,
        Special::NtidY,
        Special::NtidZ,
        Special::CtaidX,
        Special::CtaidY,
        Special::CtaidZ,
        Special::NctaidX,
        Special::NctaidY,
        Special::NctaidZ,
        Special::Thread,
        Special::Block,
        Special::ActiveMask,
        Special::Active,
        Special::KernelId,
        Special::Launch,
        Special::Pc,
        Special::File,
        Special::Line,
        Special::Duration,
        Special::SharedBytes,
        Special::Stream,
    ];

    /// The name in the text form; the same as the language's builtin.
    pub fn name(self) -> &'static str {
        match self {
            Special::Clock => "clock",
            Special::Clock64 => "clock64",
            Special::GlobalTimer => "globaltimer",
            Special::Smid => "smid",
            Special::Nsmid => "nsmid",
            Special::Warpid => "warpid",
            Special::Warp => "warp",
            Special::Lane => "lane",
            Special::TidX => "tid.x",
            Special::TidY => "tid.y",
            Special::TidZ => "tid.z",
            Special::NtidX => "ntid.x",
            Special::NtidY => "ntid.y",
            Special::NtidZ => "ntid.z",
            Special::CtaidX => "ctaid.x",
            Special::CtaidY => "ctaid.y",
            Special::CtaidZ => "ctaid.z",
            Special::NctaidX => "nctaid.x",
            Special::NctaidY => "nctaid.y",
            Special::NctaidZ => "nctaid.z",
            Special::Thread => "thread",
            Special::Block => "block",
            Special::ActiveMask => "activemask",
            Special::Active => "active",
            Special::KernelId => "kernel",
            Special::Launch => "launch",
            Special::Pc => "pc",
            Special::File => "file",
            Special::Line => "line",
            Special::Duration => "duration",
            Special::SharedBytes => "shared",
            Special::Stream => "stream",
        }
    }

    /// Where the value comes from (and so which part of the system supplies it).
    pub fn source(self) -> SpecialSource {
        match self {
            Special::Warp | Special::Thread | Special::Block | Special::Active => {
                SpecialSource::Computed
            }
            Special::KernelId => SpecialSource::KernelImmediate,
            Special::Pc | Special::File | Special::Line => SpecialSource::SiteImmediate,
            Special::Launch => SpecialSource::Runtime,
            Special::Duration | Special::SharedBytes | Special::Stream => SpecialSource::Host,
            _ => SpecialSource::Hardware,
        }
    }

    /// Significant bits of the value (it is zero-extended to 64).
    pub fn bits(self) -> u32 {
        match self {
            Special::Clock64
            | Special::GlobalTimer
            | Special::Thread
            | Special::KernelId
            | Special::Launch
            | Special::File
            | Special::ActiveMask
            | Special::Duration
            | Special::Stream => 64,
            _ => 32,
        }
    }
}

/// An operand of the instruction a probe is attached to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SiteValue {
    /// Bytes this thread accesses (a constant per instruction: width × vector length).
    Bytes,
    /// The effective address, immediate offset included.
    Addr,
    /// The stored value (before a store or atomic) or the loaded value (after a load or
    /// atomic): its first element, zero-extended to 64 bits.
    Value,
    /// The probed instruction's opcode: [`kernel_id`](crate::kernel_id) of its full mnemonic
    /// (`ld.global.v4.b32`), an immediate per site.
    Opcode,
    /// Distinct 32-byte sectors (`addr >> 5`) among the lanes of the warp that execute the
    /// access together ([`sectors`](crate::sectors)): 1 (every lane in one sector) to 32, 64
    /// in a 64-lane wave.
    Sectors,
    /// Shared-memory wavefronts of the warp's access ([`wavefronts`](crate::wavefronts)): the most distinct
    /// bank-wide units that fall in one bank group, 1 (no conflict) to 32, 64 in a 64-lane
    /// wave.
    Wavefronts,
    /// This lane's run ([`run`](crate::run)): the mask of the lanes executing the access
    /// together whose address is on this lane's line `addr + (lane' - lane) * bytes`.
    /// Per lane; the lowest lane of each run describes it: `(addr, run, bytes)`.
    Run,
}

impl SiteValue {
    /// Every site operand, in text-form order.
    pub const ALL: [SiteValue; 7] = [
        SiteValue::Bytes,
        SiteValue::Addr,
        SiteValue::Value,
        SiteValue::Opcode,
        SiteValue::Sectors,
        SiteValue::Wavefronts,
        SiteValue::Run,
    ];

    /// Computed over the lanes that execute the access together (`sectors`, `wavefronts`,
    /// `run`): a back end computes it with warp collectives before the probe body.
    pub fn is_warp_wide(self) -> bool {
        matches!(
            self,
            SiteValue::Sectors | SiteValue::Wavefronts | SiteValue::Run
        )
    }

    /// The name in the text form; the same as the language's builtin.
    pub fn name(self) -> &'static str {
        match self {
            SiteValue::Bytes => "bytes",
            SiteValue::Addr => "addr",
            SiteValue::Value => "value",
            SiteValue::Opcode => "opcode",
            SiteValue::Sectors => "sectors",
            SiteValue::Wavefronts => "wavefronts",
            SiteValue::Run => "run",
        }
    }
}

/// Index of a map in [`Program::maps`](crate::Program::maps).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct MapId(pub u32);

/// Index of a thread-persistent register in [`Program::persistent`](crate::Program::persistent).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct PersistId(pub u32);

/// Index of a format string in [`Program::formats`](crate::Program::formats).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct FormatId(pub u32);

/// How a hash-map update combines a value with the slot's. The map's
/// [`ValueKind`](crate::ValueKind) says how values are compared and where `lhist`'s
/// buckets are; the two must agree (`verifier`'s `MapUsage`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Aggregation {
    /// `count()`: add one.
    Count,
    /// `sum(x)`: add the operand (two's complement, wrapping).
    Sum(Operand),
    /// `min(x)`: atomic max of the min encoding.
    Min(Operand),
    /// `max(x)`: atomic max of the max encoding.
    Max(Operand),
    /// `avg(x)`: add one to word 0, `x` to word 1.
    Avg(Operand),
    /// `stats(x)`: add one to word 0, `x` to word 1.
    Stats(Operand),
    /// `hist(x)`: add one to `x`'s log2 bucket.
    Hist(Operand),
    /// `lhist(x, …)`: add one to `x`'s linear bucket.
    Lhist(Operand),
    /// `@m[k] = x`: store `x` (atomic exchange; the last writer wins).
    Assign(Operand),
}

impl Aggregation {
    /// The mnemonic in the text form.
    pub fn mnemonic(self) -> &'static str {
        match self {
            Aggregation::Count => "count",
            Aggregation::Sum(_) => "sum",
            Aggregation::Min(_) => "min",
            Aggregation::Max(_) => "max",
            Aggregation::Avg(_) => "avg",
            Aggregation::Stats(_) => "stats",
            Aggregation::Hist(_) => "hist",
            Aggregation::Lhist(_) => "lhist",
            Aggregation::Assign(_) => "assign",
        }
    }

    /// The value operand, if the aggregation takes one.
    pub fn operand(self) -> Option<Operand> {
        match self {
            Aggregation::Count => None,
            Aggregation::Sum(o)
            | Aggregation::Min(o)
            | Aggregation::Max(o)
            | Aggregation::Avg(o)
            | Aggregation::Stats(o)
            | Aggregation::Hist(o)
            | Aggregation::Lhist(o)
            | Aggregation::Assign(o) => Some(o),
        }
    }

    /// The same aggregation of `o` (`count` stays `count`).
    pub fn with_operand(self, o: Operand) -> Aggregation {
        match self {
            Aggregation::Count => Aggregation::Count,
            Aggregation::Sum(_) => Aggregation::Sum(o),
            Aggregation::Min(_) => Aggregation::Min(o),
            Aggregation::Max(_) => Aggregation::Max(o),
            Aggregation::Avg(_) => Aggregation::Avg(o),
            Aggregation::Stats(_) => Aggregation::Stats(o),
            Aggregation::Hist(_) => Aggregation::Hist(o),
            Aggregation::Lhist(_) => Aggregation::Lhist(o),
            Aggregation::Assign(_) => Aggregation::Assign(o),
        }
    }

    /// Whether this aggregation fits a map whose value is `value`.
    pub fn fits(self, value: &crate::ValueKind) -> bool {
        use crate::ValueKind as V;
        matches!(
            (self, value),
            (Aggregation::Count, V::Count)
                | (Aggregation::Sum(_), V::Sum { .. })
                | (Aggregation::Min(_), V::Min { .. })
                | (Aggregation::Max(_), V::Max { .. })
                | (Aggregation::Avg(_), V::Avg { .. })
                | (Aggregation::Stats(_), V::Stats { .. })
                | (Aggregation::Hist(_), V::Hist)
                | (Aggregation::Lhist(_), V::Lhist { .. })
                | (Aggregation::Assign(_), V::Value { .. })
        )
    }
}

/// Width of a sign or zero extension's source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ExtFrom {
    /// The low 8 bits.
    B8,
    /// The low 16 bits.
    B16,
    /// The low 32 bits.
    B32,
}

impl ExtFrom {
    /// The number of source bits.
    pub fn bits(self) -> u32 {
        match self {
            ExtFrom::B8 => 8,
            ExtFrom::B16 => 16,
            ExtFrom::B32 => 32,
        }
    }
}

/// One IR instruction. Jump targets are instruction indices within the probe and
/// must be greater than the jump's own index (control flow is a DAG).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Insn {
    /// `dst = mov src`
    Mov {
        /// Destination.
        dst: Reg,
        /// Source.
        src: Operand,
    },
    /// `dst = op.width a, b`
    Bin {
        /// The operation.
        op: BinOp,
        /// The width it is computed at.
        width: Width,
        /// Destination.
        dst: Reg,
        /// First operand.
        a: Operand,
        /// Second operand.
        b: Operand,
    },
    /// `dst = sext.N src` / `dst = zext.N src`: extend the low N bits of `src` to 64.
    Ext {
        /// Destination.
        dst: Reg,
        /// Source.
        src: Operand,
        /// How many low bits are kept.
        from: ExtFrom,
        /// Sign-extend (`sext`) rather than zero-extend (`zext`).
        signed: bool,
    },
    /// `dst = sreg name`: read a special value, zero-extended to 64 bits.
    ReadSpecial {
        /// Destination.
        dst: Reg,
        /// Which value.
        special: Special,
    },
    /// `dst = site name`: read an operand of the probed instruction.
    ReadSite {
        /// Destination.
        dst: Reg,
        /// Which operand.
        value: SiteValue,
    },
    /// `dst = load %x`: read a thread-persistent register.
    LoadPersist {
        /// Destination.
        dst: Reg,
        /// The register.
        slot: PersistId,
    },
    /// `store %x, src`: write a thread-persistent register.
    StorePersist {
        /// The register.
        slot: PersistId,
        /// The value.
        src: Operand,
    },
    /// `jz cond, target` (or `jnz`): jump forward if `cond` is zero (non-zero).
    Branch {
        /// The register tested.
        cond: Reg,
        /// Jump when the register is zero (`jz`) rather than non-zero (`jnz`).
        if_zero: bool,
        /// Index of the instruction jumped to.
        target: u32,
    },
    /// `ja target`: jump forward unconditionally.
    Jump {
        /// Index of the instruction jumped to.
        target: u32,
    },
    /// `map.update @m[k, …] agg`: combine a value into the slot of a key tuple (hash maps).
    MapUpdate {
        /// The map.
        map: MapId,
        /// The key tuple; empty for a map without keys.
        keys: Vec<Operand>,
        /// How the value is combined.
        agg: Aggregation,
    },
    /// `map.save @m, %cursor, (f, …)`: save a record in the thread's (warp's) next array
    /// slot, the slot index being the persistent register `cursor`, which is incremented;
    /// with no slot left the map's drop counter is incremented instead.
    ArraySave {
        /// The array map.
        map: MapId,
        /// The persistent register holding the next slot index.
        cursor: PersistId,
        /// One operand per record field.
        fields: Vec<Operand>,
    },
    /// `map.append @m, (f, …)`: append a record to a ring map.
    RingAppend {
        /// The ring map.
        map: MapId,
        /// One operand per record field.
        fields: Vec<Operand>,
    },
    /// `printf F, (a, …)`: on the device, append `(F, a, …)` to the printf ring
    /// ([`Program::printf_ring`](crate::Program::printf_ring)); on the host, print.
    Printf {
        /// The format string.
        format: FormatId,
        /// Its arguments.
        args: Vec<Operand>,
    },
    /// `host.print @m` (`host.print @m top 5 div 1000`): print a map (host blocks only);
    /// bpftrace's `print(@m, top, div)`.
    Print {
        /// The map.
        map: MapId,
        /// Only the `top` largest entries (0: all).
        #[serde(default, skip_serializing_if = "is_zero")]
        top: u64,
        /// Values divided by `div` (0 or 1: as they are).
        #[serde(default, skip_serializing_if = "is_zero")]
        div: u64,
    },
    /// `host.clear @m`: remove every key of a map (host blocks only).
    Clear {
        /// The map.
        map: MapId,
    },
    /// `host.zero @m`: set every value of a map to zero, keeping its keys (host blocks only).
    Zero {
        /// The map.
        map: MapId,
    },
    /// `host.delete @m[k, …]`: remove one key tuple (host blocks only).
    Delete {
        /// The map.
        map: MapId,
        /// The key tuple.
        keys: Vec<Operand>,
    },
    /// `host.exit`: stop tracing; `end` blocks run next (host blocks only).
    StopTracing,
    /// `exit`: end of this probe firing.
    Exit,
}

fn reg(o: &Operand) -> Option<Reg> {
    match o {
        Operand::Reg(r) => Some(*r),
        Operand::Imm(_) => None,
    }
}

impl Insn {
    /// Whether this instruction writes a map, an array or a ring (in a `warp` probe the
    /// back ends run these on the leader lane only).
    pub fn writes_maps(&self) -> bool {
        matches!(
            self,
            Insn::MapUpdate { .. }
                | Insn::RingAppend { .. }
                | Insn::Printf { .. }
                | Insn::ArraySave { .. }
        )
    }

    /// The register this instruction writes, if any.
    pub fn def(&self) -> Option<Reg> {
        match self {
            Insn::Mov { dst, .. }
            | Insn::Bin { dst, .. }
            | Insn::Ext { dst, .. }
            | Insn::ReadSpecial { dst, .. }
            | Insn::ReadSite { dst, .. }
            | Insn::LoadPersist { dst, .. } => Some(*dst),
            Insn::StorePersist { .. }
            | Insn::Branch { .. }
            | Insn::Jump { .. }
            | Insn::MapUpdate { .. }
            | Insn::ArraySave { .. }
            | Insn::RingAppend { .. }
            | Insn::Printf { .. }
            | Insn::Print { .. }
            | Insn::Clear { .. }
            | Insn::Zero { .. }
            | Insn::Delete { .. }
            | Insn::StopTracing
            | Insn::Exit => None,
        }
    }

    /// The registers this instruction reads, in operand order.
    pub fn uses(&self) -> Vec<Reg> {
        match self {
            Insn::Mov { src, .. } | Insn::Ext { src, .. } | Insn::StorePersist { src, .. } => {
                reg(src).into_iter().collect()
            }
            Insn::Bin { a, b, .. } => reg(a).into_iter().chain(reg(b)).collect(),
            Insn::Branch { cond, .. } => vec![*cond],
            Insn::MapUpdate { keys, agg, .. } => keys
                .iter()
                .chain(agg.operand().as_ref())
                .filter_map(reg)
                .collect(),
            Insn::ArraySave { fields: ops, .. }
            | Insn::RingAppend { fields: ops, .. }
            | Insn::Printf { args: ops, .. }
            | Insn::Delete { keys: ops, .. } => ops.iter().filter_map(reg).collect(),
            Insn::ReadSpecial { .. }
            | Insn::ReadSite { .. }
            | Insn::LoadPersist { .. }
            | Insn::Jump { .. }
            | Insn::Print { .. }
            | Insn::Clear { .. }
            | Insn::Zero { .. }
            | Insn::StopTracing
            | Insn::Exit => Vec::new(),
        }
    }

    /// The jump target, if this is a jump.
    pub fn target(&self) -> Option<u32> {
        match self {
            Insn::Branch { target, .. } | Insn::Jump { target } => Some(*target),
            _ => None,
        }
    }

    /// Whether only the host can run this instruction (`host.*`); a device probe that
    /// contains one is rejected.
    pub fn is_host_only(&self) -> bool {
        matches!(
            self,
            Insn::Print { .. }
                | Insn::Clear { .. }
                | Insn::Zero { .. }
                | Insn::Delete { .. }
                | Insn::StopTracing
        )
    }

    /// Whether only a device probe can run this instruction (it reads the GPU or writes
    /// a device-only map kind); a host block that contains one is rejected.
    pub fn is_device_only(&self) -> bool {
        matches!(
            self,
            Insn::ReadSpecial { .. }
                | Insn::ReadSite { .. }
                | Insn::LoadPersist { .. }
                | Insn::StorePersist { .. }
                | Insn::ArraySave { .. }
                | Insn::RingAppend { .. }
        )
    }

    /// The map this instruction names, if any.
    pub fn map(&self) -> Option<MapId> {
        match self {
            Insn::MapUpdate { map, .. }
            | Insn::ArraySave { map, .. }
            | Insn::RingAppend { map, .. }
            | Insn::Print { map, .. }
            | Insn::Clear { map }
            | Insn::Zero { map }
            | Insn::Delete { map, .. } => Some(*map),
            _ => None,
        }
    }
}

/// Serde's test for the print arguments left out of JSON when they are 0.
fn is_zero(n: &u64) -> bool {
    *n == 0
}
