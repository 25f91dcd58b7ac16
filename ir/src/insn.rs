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

/// A hardware/special register a probe may read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[allow(missing_docs)] // one variant per builtin of the same name
pub enum Special {
    TidX,
    TidY,
    TidZ,
    CtaidX,
    CtaidY,
    CtaidZ,
    Smid,
    Clock64,
    /// The kernel's id: a 64-bit hash of its (mangled) name, see [`kernel_id`](crate::kernel_id).
    /// A code generator materialises it as an immediate.
    KernelId,
}

impl Special {
    /// Every special register.
    pub const ALL: [Special; 9] = [
        Special::TidX,
        Special::TidY,
        Special::TidZ,
        Special::CtaidX,
        Special::CtaidY,
        Special::CtaidZ,
        Special::Smid,
        Special::Clock64,
        Special::KernelId,
    ];

    /// The name in the text form; the same as the language's builtin.
    pub fn name(self) -> &'static str {
        match self {
            Special::TidX => "tid.x",
            Special::TidY => "tid.y",
            Special::TidZ => "tid.z",
            Special::CtaidX => "ctaid.x",
            Special::CtaidY => "ctaid.y",
            Special::CtaidZ => "ctaid.z",
            Special::Smid => "smid",
            Special::Clock64 => "clock64",
            Special::KernelId => "kernel",
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
}

impl SiteValue {
    /// The name in the text form; the same as the language's builtin.
    pub fn name(self) -> &'static str {
        match self {
            SiteValue::Bytes => "bytes",
            SiteValue::Addr => "addr",
        }
    }
}

/// Index of a map in [`Program::maps`](crate::Program::maps).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct MapId(pub u32);

/// How a map update combines the new value with the slot's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Aggregation {
    /// `count()`: add one.
    Count,
    /// `sum(x)`: add the operand (two's complement, wrapping).
    Sum(Operand),
}

/// One IR instruction. Jump targets are instruction indices within the probe and
/// must be greater than the jump's own index (control flow is a DAG).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Insn {
    /// `dst = src`
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
    /// `dst = sreg name`: read a special register, zero-extended to 64 bits.
    ReadSpecial {
        /// Destination.
        dst: Reg,
        /// Which register.
        special: Special,
    },
    /// `dst = site name`: read an operand of the probed instruction.
    ReadSite {
        /// Destination.
        dst: Reg,
        /// Which operand.
        value: SiteValue,
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
    /// `map.update @m[k, …] agg`: combine a value into the slot of a key tuple.
    MapUpdate {
        /// The map.
        map: MapId,
        /// The key tuple; empty for a map without keys.
        keys: Vec<Operand>,
        /// How the value is combined.
        agg: Aggregation,
    },
    /// `exit`: end of this probe firing.
    Exit,
}

impl Insn {
    /// The register this instruction writes, if any.
    pub fn def(&self) -> Option<Reg> {
        match self {
            Insn::Mov { dst, .. }
            | Insn::Bin { dst, .. }
            | Insn::ReadSpecial { dst, .. }
            | Insn::ReadSite { dst, .. } => Some(*dst),
            Insn::Branch { .. } | Insn::Jump { .. } | Insn::MapUpdate { .. } | Insn::Exit => None,
        }
    }

    /// The registers this instruction reads.
    pub fn uses(&self) -> Vec<Reg> {
        fn reg(o: &Operand) -> Option<Reg> {
            match o {
                Operand::Reg(r) => Some(*r),
                Operand::Imm(_) => None,
            }
        }
        match self {
            Insn::Mov { src, .. } => reg(src).into_iter().collect(),
            Insn::Bin { a, b, .. } => reg(a).into_iter().chain(reg(b)).collect(),
            Insn::Branch { cond, .. } => vec![*cond],
            Insn::MapUpdate { keys, agg, .. } => {
                let mut v: Vec<Reg> = keys.iter().filter_map(reg).collect();
                if let Aggregation::Sum(o) = agg {
                    v.extend(reg(o));
                }
                v
            }
            Insn::ReadSpecial { .. } | Insn::ReadSite { .. } | Insn::Jump { .. } | Insn::Exit => {
                Vec::new()
            }
        }
    }

    /// The jump target, if this is a jump.
    pub fn target(&self) -> Option<u32> {
        match self {
            Insn::Branch { target, .. } | Insn::Jump { target } => Some(*target),
            _ => None,
        }
    }
}
