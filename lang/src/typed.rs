//! The checked program: names resolved, types known, operators chosen, constants folded.
//! `check` builds it from the AST; `lower` turns it into IR without further decisions.

use crate::ast::Span;
use crate::names::Builtin;
use warptrace_ir::{AttachSpec, BinOp, MapDecl, MapId};

/// The type of a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ty {
    /// A 64-bit integer.
    Int {
        /// Compared, divided and shifted as signed.
        signed: bool,
    },
    /// A kernel id (`kernel`): usable only as a map key.
    Kernel,
}

impl Ty {
    /// Literals and truth values.
    pub const I64: Ty = Ty::Int { signed: true };
    /// Builtins.
    pub const U64: Ty = Ty::Int { signed: false };

    /// The name in messages.
    pub fn name(self) -> &'static str {
        match self {
            Ty::Int { signed: true } => "i64",
            Ty::Int { signed: false } => "u64",
            Ty::Kernel => "kernel",
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
}

/// The kinds of checked expression; unary and logical operators are rewritten into
/// binary ones (`-x` is `0 - x`, `!x` is `x == 0`, `~x` is `x ^ -1`).
#[derive(Debug, Clone)]
pub(crate) enum TKind {
    /// A constant.
    Const(i64),
    /// A builtin.
    Read(Builtin),
    /// A 64-bit IR operation.
    Bin(BinOp, Box<TExpr>, Box<TExpr>),
}

impl TExpr {
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
            TKind::Read(_) => false,
            TKind::Bin(BinOp::And | BinOp::Or, a, b) => a.is_truth() && b.is_truth(),
            TKind::Bin(op, ..) => op.is_comparison(),
        }
    }

    /// `op a, b`, folded when both are constants and the result is well defined.
    pub fn bin(op: BinOp, a: TExpr, b: TExpr, ty: Ty, span: Span) -> TExpr {
        let kind = match (a.constant(), b.constant()) {
            (Some(x), Some(y)) => fold(op, x, y).map(TKind::Const),
            _ => None,
        }
        .unwrap_or_else(|| TKind::Bin(op, Box::new(a), Box::new(b)));
        TExpr { kind, ty, span }
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
    /// Maps in order of first use.
    pub maps: Vec<MapDecl>,
    pub blocks: Vec<TBlock>,
}

/// A checked block: the same body for each of its attach points.
#[derive(Debug, Clone)]
pub(crate) struct TBlock {
    pub attaches: Vec<(AttachSpec, Span)>,
    pub predicate: Option<TExpr>,
    pub updates: Vec<TUpdate>,
    /// The closing `}`, where the probe exits.
    pub end: Span,
}

/// `@map[keys] = agg`
#[derive(Debug, Clone)]
pub(crate) struct TUpdate {
    pub map: MapId,
    pub keys: Vec<TExpr>,
    pub agg: TAgg,
    pub span: Span,
}

/// The aggregation of an update.
#[derive(Debug, Clone)]
pub(crate) enum TAgg {
    Count,
    Sum(TExpr),
}
