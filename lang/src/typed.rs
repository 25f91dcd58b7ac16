//! The checked program: names resolved, types known, operators chosen, constants folded.
//! `check` builds it from the AST; `lower` turns it into IR without further decisions.

use crate::ast::Span;
use crate::hash::FxHashMap;
use crate::names::{Builtin, Target};
use warptrace_ir::{
    BinOp, ConfigEntry, ExtFrom, FormatId, KeyType, MapDecl, MapId, PersistDecl, PersistId,
};

/// The type of a value. Every value is held in a 64-bit register, normalised to its type
/// (zero-extended if unsigned or `bool`, sign-extended if signed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ty {
    /// An integer of 8, 16, 32 or 64 bits.
    Int {
        /// 8, 16, 32 or 64.
        bits: u32,
        /// Compared, divided, shifted and extended as signed.
        signed: bool,
    },
    /// 0 or 1: comparisons, `!`, `&&`, `||`. Promoted to `i64` in arithmetic.
    Bool,
    /// A kernel id (`kernel`): usable only as a map key, record field or printf `%s`.
    Kernel,
    /// A string literal as a map key (`@m["load"]`): `kernel_id` of the string.
    Str,
}

impl Ty {
    /// Literals.
    pub const I64: Ty = Ty::Int {
        bits: 64,
        signed: true,
    };
    /// 64-bit builtins.
    pub const U64: Ty = Ty::Int {
        bits: 64,
        signed: false,
    };

    /// The type of an integer cast or type name.
    pub fn int(bits: u32, signed: bool) -> Ty {
        if bits == 1 {
            Ty::Bool
        } else {
            Ty::Int { bits, signed }
        }
    }

    /// The name in messages.
    pub fn name(self) -> &'static str {
        match self {
            Ty::Int { bits: 8, signed } => ["u8", "i8"][usize::from(signed)],
            Ty::Int { bits: 16, signed } => ["u16", "i16"][usize::from(signed)],
            Ty::Int { bits: 32, signed } => ["u32", "i32"][usize::from(signed)],
            Ty::Int { signed, .. } => ["u64", "i64"][usize::from(signed)],
            Ty::Bool => "bool",
            Ty::Kernel => "kernel",
            Ty::Str => "string",
        }
    }

    /// Whether it compares and prints as signed (`bool` promotes to `i64`).
    pub fn is_signed(self) -> bool {
        match self {
            Ty::Int { signed, .. } => signed,
            Ty::Bool => true,
            Ty::Kernel | Ty::Str => false,
        }
    }

    /// The type in arithmetic: `bool` promotes to `i64`.
    pub fn promoted(self) -> Ty {
        match self {
            Ty::Bool => Ty::I64,
            t => t,
        }
    }

    /// How a map key or record field of this type is stored and printed.
    pub fn key_type(self) -> KeyType {
        match self {
            Ty::Kernel => KeyType::Kernel,
            Ty::Str => KeyType::Str,
            t => KeyType::Int {
                signed: t.is_signed(),
            },
        }
    }

    /// The extension that normalises a value to this type, if it is narrower than 64 bits.
    pub fn ext(self) -> Option<(ExtFrom, bool)> {
        match self {
            Ty::Int { bits: 8, signed } => Some((ExtFrom::B8, signed)),
            Ty::Int { bits: 16, signed } => Some((ExtFrom::B16, signed)),
            Ty::Int { bits: 32, signed } => Some((ExtFrom::B32, signed)),
            _ => None,
        }
    }

    /// `value` normalised to this type (wrapped to its width).
    pub fn normalise(self, value: i64) -> i64 {
        match self {
            Ty::Bool => i64::from(value != 0),
            Ty::Kernel | Ty::Str => value,
            t => match t.ext() {
                Some((from, true)) => {
                    let shift = 64 - from.bits();
                    (value << shift) >> shift
                }
                Some((from, false)) => ((value as u64) & (u64::MAX >> (64 - from.bits()))) as i64,
                None => value,
            },
        }
    }

    /// Whether the literal `value` is a value of this type.
    pub fn holds(self, value: i64) -> bool {
        match self {
            Ty::Kernel | Ty::Str => false,
            Ty::Int {
                bits: 64,
                signed: false,
            } => value >= 0,
            t => t.normalise(value) == value,
        }
    }
}

/// A checked expression.
#[derive(Debug, Clone)]
pub(crate) struct TExpr {
    pub kind: TKind,
    pub ty: Ty,
    /// The source expression it comes from.
    pub span: Span,
    /// An integer literal (or an operation on literals only): it takes the type expected
    /// of it where its value fits.
    pub literal: bool,
}

/// The kinds of checked expression; unary and logical operators are rewritten into
/// binary ones (`-x` is `0 - x`, `!x` is `x == 0`, `~x` is `x ^ mask`).
#[derive(Debug, Clone)]
pub(crate) enum TKind {
    /// A constant, normalised to the type.
    Const(i64),
    /// A builtin.
    Read(Builtin),
    /// A scratch variable (index in the block's variables).
    Scratch(u32),
    /// A thread-persistent register.
    Persist(PersistId),
    /// A 64-bit IR operation.
    Bin(BinOp, Box<TExpr>, Box<TExpr>),
    /// Normalisation to a narrow type: extend the low bits.
    Ext(ExtFrom, bool, Box<TExpr>),
    /// `c ? a : b`
    Cond(Box<TExpr>, Box<TExpr>, Box<TExpr>),
}

impl TExpr {
    /// A literal constant.
    pub fn literal(value: i64, span: Span) -> TExpr {
        TExpr {
            kind: TKind::Const(value),
            ty: Ty::I64,
            span,
            literal: true,
        }
    }

    /// The value, if it is a constant.
    pub fn constant(&self) -> Option<i64> {
        match self.kind {
            TKind::Const(v) => Some(v),
            _ => None,
        }
    }

    /// Whether the value is always 0 or 1.
    pub fn is_truth(&self) -> bool {
        match &self.kind {
            TKind::Const(v) => *v == 0 || *v == 1,
            _ if self.ty == Ty::Bool => true,
            TKind::Bin(BinOp::And | BinOp::Or, a, b) => a.is_truth() && b.is_truth(),
            TKind::Bin(op, ..) => op.is_comparison(),
            _ => false,
        }
    }

    /// `op a, b` of type `ty`, folded when both are constants and the result is well
    /// defined, and normalised to `ty` when `wraps` (the operation may leave its range).
    pub fn bin(op: BinOp, a: TExpr, b: TExpr, ty: Ty, span: Span, wraps: bool) -> TExpr {
        let literal = a.literal && b.literal;
        if let (Some(x), Some(y)) = (a.constant(), b.constant()) {
            if let Some(v) = fold(op, x, y) {
                return TExpr {
                    kind: TKind::Const(ty.normalise(v)),
                    ty,
                    span,
                    literal,
                };
            }
        }
        let e = TExpr {
            kind: TKind::Bin(op, Box::new(a), Box::new(b)),
            ty,
            span,
            literal: false,
        };
        if wraps {
            e.normalised()
        } else {
            e
        }
    }

    /// The value wrapped to its type's width (an `Ext` if it is narrower than 64 bits).
    pub fn normalised(self) -> TExpr {
        match (self.constant(), self.ty.ext()) {
            (Some(v), _) => TExpr {
                kind: TKind::Const(self.ty.normalise(v)),
                ..self
            },
            (None, Some((from, signed))) => {
                let (ty, span) = (self.ty, self.span);
                TExpr {
                    kind: TKind::Ext(from, signed, Box::new(self)),
                    ty,
                    span,
                    literal: false,
                }
            }
            (None, None) => self,
        }
    }
}

/// Evaluates an operation on constants as the IR does at 64 bits; `None` where the
/// result is not defined here (division by zero, signed overflow of a division, shift
/// amounts outside 0..64), which is left to run time.
pub(crate) fn fold(op: BinOp, a: i64, b: i64) -> Option<i64> {
    let (ua, ub) = (a as u64, b as u64);
    let shift = u32::try_from(b).ok().filter(|s| *s < 64);
    Some(match op {
        BinOp::Add => a.wrapping_add(b),
        BinOp::Sub => a.wrapping_sub(b),
        BinOp::Mul => a.wrapping_mul(b),
        BinOp::DivU => ua.checked_div(ub)? as i64,
        BinOp::DivS => a.checked_div(b)?,
        BinOp::RemU => ua.checked_rem(ub)? as i64,
        BinOp::RemS => a.checked_rem(b)?,
        BinOp::And => a & b,
        BinOp::Or => a | b,
        BinOp::Xor => a ^ b,
        BinOp::Shl => a << shift?,
        BinOp::ShrU => (ua >> shift?) as i64,
        BinOp::ShrS => a >> shift?,
        BinOp::Eq => i64::from(a == b),
        BinOp::Ne => i64::from(a != b),
        BinOp::LtU => i64::from(ua < ub),
        BinOp::LtS => i64::from(a < b),
        BinOp::LeU => i64::from(ua <= ub),
        BinOp::LeS => i64::from(a <= b),
        BinOp::GtU => i64::from(ua > ub),
        BinOp::GtS => i64::from(a > b),
        BinOp::GeU => i64::from(ua >= ub),
        BinOp::GeS => i64::from(a >= b),
    })
}

/// A checked program.
#[derive(Debug, Clone)]
pub(crate) struct TProgram {
    /// Maps in order of first write; the printf ring last.
    pub maps: Vec<MapDecl>,
    pub persistent: Vec<PersistDecl>,
    pub formats: Vec<String>,
    pub strings: Vec<String>,
    pub config: Vec<ConfigEntry>,
    /// The slot-cursor register of each array map.
    pub cursors: FxHashMap<MapId, PersistId>,
    pub blocks: Vec<TBlock>,
}

/// A checked block: the same body for each of its attach points.
#[derive(Debug, Clone)]
pub(crate) struct TBlock {
    pub targets: Vec<(Target, Span)>,
    pub predicate: Option<TExpr>,
    pub body: Vec<TStmt>,
    /// The closing `}`, where the probe exits.
    pub end: Span,
}

/// A checked statement.
#[derive(Debug, Clone)]
pub(crate) enum TStmt {
    /// `$x = v`
    SetScratch {
        var: u32,
        value: TExpr,
        span: Span,
    },
    /// `%x = v`
    SetPersist {
        slot: PersistId,
        value: TExpr,
        span: Span,
    },
    /// `@m[keys] = agg` on a hash map.
    Update {
        map: MapId,
        keys: Vec<TExpr>,
        agg: TAgg,
        span: Span,
    },
    /// `@m = (fields)` on a ring (`array: false`) or an array.
    Record {
        map: MapId,
        array: bool,
        fields: Vec<TExpr>,
        span: Span,
    },
    Printf {
        format: FormatId,
        args: Vec<TExpr>,
        span: Span,
    },
    /// `print`, `clear`, `zero`, `delete`, `exit`.
    Host(HostOp, Span),
    If {
        cond: TExpr,
        then: Vec<TStmt>,
        els: Vec<TStmt>,
        span: Span,
    },
    Unroll {
        count: u32,
        body: Vec<TStmt>,
    },
    /// `for ($var : …)`: the body once per value, `$var` set to it first.
    Range {
        var: u32,
        values: Vec<TExpr>,
        body: Vec<TStmt>,
        span: Span,
    },
}

/// A host-only operation.
#[derive(Debug, Clone)]
pub(crate) enum HostOp {
    /// The map, `top` (0: all) and `div` (0: none).
    Print(MapId, u64, u64),
    Clear(MapId),
    Zero(MapId),
    Delete(MapId, Vec<TExpr>),
    Exit,
}

/// The value combined into a hash map's slot.
#[derive(Debug, Clone)]
pub(crate) enum TAgg {
    Count,
    Sum(TExpr),
    Min(TExpr),
    Max(TExpr),
    Avg(TExpr),
    Stats(TExpr),
    Hist(TExpr),
    Lhist(TExpr),
    Assign(TExpr),
}
