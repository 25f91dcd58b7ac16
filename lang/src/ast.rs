//! The syntax tree: what the source says, before any name or type is resolved. Names
//! are borrowed from the source (`'s`); only string literals are copied (unescaped).

use std::borrow::Cow;

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

/// A whole program: its blocks, map declarations and `config` entries, each in source order.
#[derive(Debug, Clone, Default)]
pub(crate) struct Program<'s> {
    pub blocks: Vec<Block<'s>>,
    pub maps: Vec<MapDeclAst<'s>>,
    pub config: Vec<ConfigAst<'s>>,
}

/// `map @name: kind(key = value, ...);`
#[derive(Debug, Clone)]
pub(crate) struct MapDeclAst<'s> {
    /// Without the `@`.
    pub name: &'s str,
    pub name_span: Span,
    /// `hash`, `array` or `ring`.
    pub kind: &'s str,
    pub kind_span: Span,
    pub args: Vec<DeclArg<'s>>,
    pub span: Span,
}

/// `key = value` in a map declaration.
#[derive(Debug, Clone)]
pub(crate) struct DeclArg<'s> {
    pub key: &'s str,
    pub key_span: Span,
    pub value: DeclValue,
    pub value_span: Span,
}

/// A declaration or `config` value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum DeclValue {
    /// A size, suffixes resolved (`1M` = 1048576).
    Size(u64),
    /// A name (`drop`, `warp`).
    Name(String),
    /// A string (`config` only).
    Str(String),
}

/// `key = value;` in a `config` block.
#[derive(Debug, Clone)]
pub(crate) struct ConfigAst<'s> {
    pub key: &'s str,
    pub key_span: Span,
    pub value: DeclValue,
    pub value_span: Span,
}

/// `probe[, probe ...] [/predicate/] { statement; ... }`
#[derive(Debug, Clone)]
pub(crate) struct Block<'s> {
    pub attaches: Vec<Attach<'s>>,
    pub predicate: Option<Expr<'s>>,
    pub body: Vec<Stmt<'s>>,
    /// The closing `}`.
    pub end: Span,
}

/// An attach point as written, e.g. `warp after mem:global:load:*gemm*`.
#[derive(Debug, Clone)]
pub(crate) struct Attach<'s> {
    /// `warp` was written, and where.
    pub warp: Option<Span>,
    /// `after` was written, and where.
    pub after: Option<Span>,
    /// The `:`-separated components, strings unquoted.
    pub parts: Vec<Cow<'s, str>>,
    /// The whole attach point, modifiers included.
    pub span: Span,
    /// The text of the point (without modifiers) as written.
    pub text: &'s str,
}

impl Attach<'_> {
    /// The attach point as written, modifiers included.
    pub fn text(&self) -> String {
        let mut t = String::new();
        if self.warp.is_some() {
            t.push_str("warp ");
        }
        if self.after.is_some() {
            t.push_str("after ");
        }
        t.push_str(self.text);
        t
    }
}

/// A statement.
#[derive(Debug, Clone)]
pub(crate) enum Stmt<'s> {
    /// `target = value`
    Assign {
        target: Target<'s>,
        value: Expr<'s>,
        span: Span,
    },
    /// A call as a statement: `printf(...)`, `print(@m)`, `exit()`.
    Call { call: Expr<'s>, span: Span },
    /// `if (cond) { ... } else ...`; `else if` is an `If` alone in `els`.
    If {
        cond: Expr<'s>,
        then: Vec<Stmt<'s>>,
        els: Vec<Stmt<'s>>,
        span: Span,
    },
    /// `unroll(count) { ... }`
    Unroll {
        count: Expr<'s>,
        body: Vec<Stmt<'s>>,
    },
    /// `for ($var : from..to) { ... }`
    For {
        var: &'s str,
        var_span: Span,
        from: Expr<'s>,
        to: Expr<'s>,
        body: Vec<Stmt<'s>>,
        span: Span,
    },
}

/// What an assignment writes.
#[derive(Debug, Clone)]
pub(crate) enum Target<'s> {
    Map(MapRef<'s>),
    /// `$name` (without the `$`).
    Scratch(&'s str, Span),
    /// `%name` (without the `%`).
    Persist(&'s str, Span),
}

/// `@name` or `@name[k1, k2, ...]`.
#[derive(Debug, Clone)]
pub(crate) struct MapRef<'s> {
    /// Without the `@`.
    pub name: &'s str,
    pub keys: Vec<Expr<'s>>,
    pub span: Span,
}

/// An expression and where it is.
#[derive(Debug, Clone)]
pub(crate) struct Expr<'s> {
    pub kind: ExprKind<'s>,
    pub span: Span,
}

/// The kinds of expression.
#[derive(Debug, Clone)]
pub(crate) enum ExprKind<'s> {
    /// An integer literal (a hex literal above `i64::MAX` keeps its bits).
    Int(i64),
    /// A string literal, escapes resolved (printf formats).
    Str(String),
    /// A builtin or other bare name, e.g. `tid.x`, `kernel`.
    Ident(&'s str),
    /// `$name`
    Scratch(&'s str),
    /// `%name`
    Persist(&'s str),
    /// `@name[keys]` read as a value (only meaningful as an argument of `print` etc.).
    Map(MapRef<'s>),
    /// `op operand`
    Unary(UnaryOp, Box<Expr<'s>>),
    /// `lhs op rhs`
    Binary(BinaryOp, Box<Expr<'s>>, Box<Expr<'s>>),
    /// `cond ? a : b`
    Cond(Box<Expr<'s>>, Box<Expr<'s>>, Box<Expr<'s>>),
    /// `(T)x`
    Cast(TypeName, Box<Expr<'s>>),
    /// `(a, b, ...)`: a record.
    Tuple(Vec<Expr<'s>>),
    /// `name(args)`
    Call {
        name: &'s str,
        name_span: Span,
        args: Vec<Expr<'s>>,
    },
}

/// An integer type as written in a cast.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TypeName {
    /// 8, 16, 32 or 64; 1 for `bool`.
    pub bits: u32,
    pub signed: bool,
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
