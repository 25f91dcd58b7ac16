//! The syntax tree: what the source says, before any name or type is resolved.

/// A byte range of the source text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Span {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Span {
        Span { start, end }
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span::new(self.start.min(other.start), self.end.max(other.end))
    }

    /// The span in the IR's representation (saturating: sources are far below 4 GiB).
    pub fn to_ir(self) -> warptrace_ir::Span {
        let clamp = |x: usize| u32::try_from(x).unwrap_or(u32::MAX);
        warptrace_ir::Span {
            start: clamp(self.start),
            end: clamp(self.end),
        }
    }
}

impl From<pest::Span<'_>> for Span {
    fn from(s: pest::Span<'_>) -> Span {
        Span::new(s.start(), s.end())
    }
}

/// A whole program: its blocks in source order.
#[derive(Debug, Clone)]
pub(crate) struct Program {
    pub blocks: Vec<Block>,
}

/// `probe[, probe ...] [/predicate/] { statement; ... }`
#[derive(Debug, Clone)]
pub(crate) struct Block {
    pub attaches: Vec<Attach>,
    pub predicate: Option<Expr>,
    pub body: Vec<Stmt>,
    /// The closing `}`.
    pub end: Span,
}

/// An attach point as written, e.g. `kernel:exit:*gemm*`.
#[derive(Debug, Clone)]
pub(crate) struct Attach {
    /// The `:`-separated components.
    pub parts: Vec<String>,
    pub span: Span,
}

impl Attach {
    /// The attach point as written.
    pub fn text(&self) -> String {
        self.parts.join(":")
    }
}

/// A statement.
#[derive(Debug, Clone)]
pub(crate) enum Stmt {
    /// `@name[keys] = value`
    MapAssign {
        map: MapRef,
        value: Expr,
        span: Span,
    },
}

/// `@name` or `@name[k1, k2, ...]`.
#[derive(Debug, Clone)]
pub(crate) struct MapRef {
    /// Without the `@`.
    pub name: String,
    pub keys: Vec<Expr>,
    pub span: Span,
}

/// An expression and where it is.
#[derive(Debug, Clone)]
pub(crate) struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

/// The kinds of expression.
#[derive(Debug, Clone)]
pub(crate) enum ExprKind {
    /// An integer literal (a hex literal above `i64::MAX` keeps its bits).
    Int(i64),
    /// A builtin or other bare name, e.g. `tid.x`, `kernel`.
    Ident(String),
    /// `op operand`
    Unary(UnaryOp, Box<Expr>),
    /// `lhs op rhs`
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    /// `name(args)`
    Call {
        name: String,
        name_span: Span,
        args: Vec<Expr>,
    },
}

/// Prefix operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum UnaryOp {
    /// `-`
    Neg,
    /// `!`
    Not,
    /// `~`
    BitNot,
}

/// Infix operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BinaryOp {
    LogOr,
    LogAnd,
    BitOr,
    BitXor,
    BitAnd,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Shl,
    Shr,
    Add,
    Sub,
    Mul,
    Div,
    Rem,
}

impl BinaryOp {
    /// Binding strength, C's: higher binds tighter. All operators are left-associative.
    pub fn precedence(self) -> u8 {
        use BinaryOp::*;
        match self {
            LogOr => 1,
            LogAnd => 2,
            BitOr => 3,
            BitXor => 4,
            BitAnd => 5,
            Eq | Ne => 6,
            Lt | Le | Gt | Ge => 7,
            Shl | Shr => 8,
            Add | Sub => 9,
            Mul | Div | Rem => 10,
        }
    }

    /// The operator as written.
    pub fn symbol(self) -> &'static str {
        use BinaryOp::*;
        match self {
            LogOr => "||",
            LogAnd => "&&",
            BitOr => "|",
            BitXor => "^",
            BitAnd => "&",
            Eq => "==",
            Ne => "!=",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            Shl => "<<",
            Shr => ">>",
            Add => "+",
            Sub => "-",
            Mul => "*",
            Div => "/",
            Rem => "%",
        }
    }
}

impl UnaryOp {
    /// The operator as written.
    pub fn symbol(self) -> &'static str {
        match self {
            UnaryOp::Neg => "-",
            UnaryOp::Not => "!",
            UnaryOp::BitNot => "~",
        }
    }
}
