//! Source text → [`ast::Program`]: the pest grammar (`grammar.pest`), precedence
//! climbing for binary operators, and pest's errors turned into readable ones.

use crate::ast::{
    self, Attach, BinaryOp, Block, ConfigAst, DeclArg, DeclValue, Expr, ExprKind, MapDeclAst,
    MapRef, Span, Stmt, Target, TypeName, UnaryOp,
};
use crate::diag::{Error, MAX_BRACKETS, MAX_DEPTH};
use pest::error::{ErrorVariant, InputLocation};
use pest::iterators::Pair;
use pest::Parser as _;
use std::collections::VecDeque;

#[derive(pest_derive::Parser)]
#[grammar = "grammar.pest"]
struct Grammar;

/// Parses a whole program. A syntax error stops parsing; errors found while building
/// the tree (literals out of range, too deep nesting) are accumulated.
pub(crate) fn parse(source: &str) -> Result<ast::Program, Vec<Error>> {
    if let Some(span) = too_deep(source) {
        return Err(vec![Error::TooDeep {
            span,
            limit: MAX_BRACKETS,
        }]);
    }
    let pairs =
        Grammar::parse(Rule::program, source).map_err(|e| vec![syntax_error(source, &e)])?;
    let mut builder = Builder { errors: Vec::new() };
    let mut program = ast::Program::default();
    for top in pairs {
        for pair in top.into_inner() {
            match pair.as_rule() {
                Rule::block => program.blocks.push(builder.block(pair)),
                Rule::map_decl => program.maps.push(builder.map_decl(pair)),
                Rule::config => program.config.extend(builder.config(pair)),
                _ => {}
            }
        }
    }
    if builder.errors.is_empty() {
        Ok(program)
    } else {
        Err(builder.errors)
    }
}

/// The first bracket nested more than [`MAX_BRACKETS`] levels deep, outside comments and
/// strings: rejected before parsing, which recurses once per level.
fn too_deep(source: &str) -> Option<Span> {
    let bytes = source.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while bytes.get(i).is_some_and(|c| *c != b'\n') {
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i < bytes.len() && !(bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/')) {
                    i += 1;
                }
                i += 1;
            }
            b'"' => {
                i += 1;
                while bytes.get(i).is_some_and(|c| *c != b'"' && *c != b'\n') {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > MAX_BRACKETS {
                    return Some(Span::new(i, source.len().min(i + 1)));
                }
            }
            b')' | b']' | b'}' => {
                depth = depth.saturating_sub(1);
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// An expression and the depth of its tree.
type Node = (Expr, usize);

struct Builder {
    errors: Vec<Error>,
}

impl Builder {
    fn map_decl(&mut self, pair: Pair<'_, Rule>) -> MapDeclAst {
        let span = Span::from(pair.as_span());
        let mut decl = MapDeclAst {
            name: String::new(),
            name_span: span,
            kind: String::new(),
            kind_span: span,
            args: Vec::new(),
            span,
        };
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::map_name => {
                    decl.name = p.as_str().trim_start_matches('@').to_string();
                    decl.name_span = p.as_span().into();
                }
                Rule::name => {
                    decl.kind = p.as_str().to_string();
                    decl.kind_span = p.as_span().into();
                }
                Rule::decl_arg => {
                    let mut inner = p.into_inner().filter(|q| q.as_rule() != Rule::assign);
                    if let (Some(k), Some(v)) = (inner.next(), inner.next()) {
                        if let Some(value) = self.decl_value(&v) {
                            decl.args.push(DeclArg {
                                key: k.as_str().to_string(),
                                key_span: k.as_span().into(),
                                value,
                                value_span: v.as_span().into(),
                            });
                        }
                    }
                }
                _ => {}
            }
        }
        decl
    }

    fn config(&mut self, pair: Pair<'_, Rule>) -> Vec<ConfigAst> {
        let mut entries = Vec::new();
        for e in pair
            .into_inner()
            .filter(|p| p.as_rule() == Rule::config_entry)
        {
            let mut inner = e
                .into_inner()
                .filter(|q| !matches!(q.as_rule(), Rule::assign | Rule::semi));
            if let (Some(k), Some(v)) = (inner.next(), inner.next()) {
                if let Some(value) = self.decl_value(&v) {
                    entries.push(ConfigAst {
                        key: k.as_str().to_string(),
                        key_span: k.as_span().into(),
                        value,
                        value_span: v.as_span().into(),
                    });
                }
            }
        }
        entries
    }

    /// A size (`64K`), a name or a string.
    fn decl_value(&mut self, p: &Pair<'_, Rule>) -> Option<DeclValue> {
        let text = p.as_str();
        match p.as_rule() {
            Rule::size => {
                let (digits, unit) = match text.strip_suffix(['K', 'M', 'G']) {
                    Some(d) => (d, text.len() - d.len()),
                    None => (text, 0),
                };
                let shift = match text.as_bytes().last() {
                    Some(b'K') if unit > 0 => 10,
                    Some(b'M') if unit > 0 => 20,
                    Some(b'G') if unit > 0 => 30,
                    _ => 0,
                };
                let value = digits
                    .parse::<u64>()
                    .ok()
                    .and_then(|v| v.checked_mul(1 << shift));
                match value {
                    Some(v) => Some(DeclValue::Size(v)),
                    None => {
                        self.errors.push(Error::IntTooLarge {
                            span: p.as_span().into(),
                            text: text.to_string(),
                        });
                        None
                    }
                }
            }
            Rule::string => Some(DeclValue::Str(unescape(text))),
            _ => Some(DeclValue::Name(text.to_string())),
        }
    }

    fn block(&mut self, pair: Pair<'_, Rule>) -> Block {
        let mut block = Block {
            attaches: Vec::new(),
            predicate: None,
            body: Vec::new(),
            end: Span::from(pair.as_span()),
        };
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::attach_list => {
                    block.attaches = p
                        .into_inner()
                        .filter(|a| a.as_rule() == Rule::attach)
                        .map(attach)
                        .collect();
                }
                Rule::predicate => {
                    block.predicate = p
                        .into_inner()
                        .find(|e| e.as_rule() == Rule::expr)
                        .and_then(|e| self.top_expr(e));
                }
                Rule::body => {
                    let (body, end) = self.body(p);
                    block.body = body;
                    block.end = end;
                }
                _ => {}
            }
        }
        block
    }

    /// `{ statements }`: the statements and the closing brace.
    fn body(&mut self, pair: Pair<'_, Rule>) -> (Vec<Stmt>, Span) {
        let mut end = Span::from(pair.as_span());
        let mut stmts = Vec::new();
        for s in pair.into_inner() {
            if s.as_rule() == Rule::rbrace {
                end = s.as_span().into();
            } else {
                stmts.extend(self.stmt(s));
            }
        }
        (stmts, end)
    }

    fn stmt(&mut self, pair: Pair<'_, Rule>) -> Option<Stmt> {
        let span = Span::from(pair.as_span());
        match pair.as_rule() {
            Rule::assignment => {
                let mut target = None;
                let mut value = None;
                for p in pair.into_inner() {
                    match p.as_rule() {
                        Rule::map => target = Some(Target::Map(self.map_ref(p))),
                        Rule::scratch => {
                            let name = p.as_str().trim_start_matches('$').to_string();
                            target = Some(Target::Scratch(name, p.as_span().into()));
                        }
                        Rule::persist => {
                            let name = p.as_str().trim_start_matches('%').to_string();
                            target = Some(Target::Persist(name, p.as_span().into()));
                        }
                        Rule::expr => value = self.top_expr(p),
                        _ => {}
                    }
                }
                Some(Stmt::Assign {
                    target: target?,
                    value: value?,
                    span,
                })
            }
            Rule::call_stmt => {
                let call = match self.call(pair, 0) {
                    Ok((call, _)) => call,
                    Err(e) => {
                        self.errors.push(e);
                        return None;
                    }
                };
                Some(Stmt::Call { call, span })
            }
            Rule::if_stmt => {
                let mut cond = None;
                let mut then = None;
                let mut els = Vec::new();
                for p in pair.into_inner() {
                    match p.as_rule() {
                        Rule::expr => cond = self.top_expr(p),
                        Rule::body if then.is_none() => then = Some(self.body(p).0),
                        Rule::body => els = self.body(p).0,
                        Rule::if_stmt => els = self.stmt(p).into_iter().collect(),
                        _ => {}
                    }
                }
                Some(Stmt::If {
                    cond: cond?,
                    then: then.unwrap_or_default(),
                    els,
                    span,
                })
            }
            Rule::unroll => {
                let mut count = None;
                let mut body = Vec::new();
                for p in pair.into_inner() {
                    match p.as_rule() {
                        Rule::expr => count = self.top_expr(p),
                        Rule::body => body = self.body(p).0,
                        _ => {}
                    }
                }
                Some(Stmt::Unroll {
                    count: count?,
                    body,
                })
            }
            _ => None,
        }
    }

    fn map_ref(&mut self, pair: Pair<'_, Rule>) -> MapRef {
        let span = Span::from(pair.as_span());
        let mut name = String::new();
        let mut keys = Vec::new();
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::map_name => name = p.as_str().trim_start_matches('@').to_string(),
                Rule::expr => keys.extend(self.top_expr(p)),
                _ => {}
            }
        }
        MapRef { name, keys, span }
    }

    /// An expression at statement level; records its error and returns `None` on failure.
    fn top_expr(&mut self, pair: Pair<'_, Rule>) -> Option<Expr> {
        match self.expr(pair, 0) {
            Ok((e, _)) => Some(e),
            Err(e) => {
                self.errors.push(e);
                None
            }
        }
    }

    /// `operand (infix operand)* (? expr : expr)?`, the operators by precedence climbing
    /// (`binary` is silent in the grammar). `nesting` counts the parentheses, calls and
    /// conditionals around it.
    fn expr(&mut self, pair: Pair<'_, Rule>, nesting: usize) -> Result<Node, Error> {
        let span = Span::from(pair.as_span());
        if nesting > MAX_DEPTH {
            return Err(Error::TooDeep {
                span,
                limit: MAX_DEPTH,
            });
        }
        // The parts after the binary operand chain (`? a : b`); more are never used.
        let (mut second, mut third) = (None, None);
        // A lone operand needs no queue (nor an allocation).
        let mut lone = None;
        let mut operands = VecDeque::new();
        let mut ops = VecDeque::new();
        let mut binary_end = span.end;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::operand => {
                    binary_end = p.as_span().end();
                    let node = self.operand(p, nesting)?;
                    if let Some(prev) = lone.take() {
                        operands.push_back(prev);
                        operands.push_back(node);
                    } else if operands.is_empty() {
                        lone = Some(node);
                    } else {
                        operands.push_back(node);
                    }
                }
                Rule::infix => ops.extend(binary_op(p.as_str())),
                Rule::expr => {
                    let node = self.expr(p, nesting + 1)?;
                    if second.is_none() {
                        second = Some(node);
                    } else if third.is_none() {
                        third = Some(node);
                    }
                }
                _ => {}
            }
        }
        let first = match lone {
            Some(node) if ops.is_empty() => node,
            lone => {
                operands.extend(lone);
                let binary_span = Span::new(span.start, binary_end);
                climb(&mut operands, &mut ops, 0, binary_span)?
            }
        };
        match (Some(first), second, third) {
            (Some(node), None, None) => Ok(node),
            (Some((c, dc)), Some((a, da)), Some((b, db))) => {
                let depth = dc.max(da).max(db) + 1;
                if depth > MAX_DEPTH {
                    return Err(Error::TooDeep {
                        span,
                        limit: MAX_DEPTH,
                    });
                }
                let kind = ExprKind::Cond(Box::new(c), Box::new(a), Box::new(b));
                Ok((Expr { kind, span }, depth))
            }
            _ => Err(malformed(span)),
        }
    }

    /// `prefix* primary`
    fn operand(&mut self, pair: Pair<'_, Rule>, nesting: usize) -> Result<Node, Error> {
        let whole = Span::from(pair.as_span());
        let mut prefixes = Vec::new();
        let mut primary = None;
        for p in pair.into_inner() {
            let span = Span::from(p.as_span());
            let leaf = |kind| Some((Expr { kind, span }, 1));
            match p.as_rule() {
                Rule::prefix => match p.as_str() {
                    "-" => prefixes.push((UnaryOp::Neg, span)),
                    "!" => prefixes.push((UnaryOp::Not, span)),
                    _ => prefixes.push((UnaryOp::BitNot, span)),
                },
                Rule::paren => primary = Some(self.paren(p, nesting)?),
                Rule::cast => primary = Some(self.cast(p, nesting)?),
                Rule::named => primary = Some(self.named(p, nesting)?),
                Rule::map => {
                    if nesting > MAX_DEPTH {
                        return Err(Error::TooDeep {
                            span,
                            limit: MAX_DEPTH,
                        });
                    }
                    let map = self.map_ref(p);
                    primary = leaf(ExprKind::Map(map));
                }
                Rule::scratch => {
                    primary = leaf(ExprKind::Scratch(p.as_str()[1..].to_string()));
                }
                Rule::persist => {
                    primary = leaf(ExprKind::Persist(p.as_str()[1..].to_string()));
                }
                Rule::string => primary = leaf(ExprKind::Str(unescape(p.as_str()))),
                Rule::dec | Rule::hex => {
                    let kind = ExprKind::Int(int_literal(p.as_rule(), p.as_str(), span)?);
                    primary = leaf(kind);
                }
                _ => {}
            }
        }
        let (mut expr, mut depth) = primary.ok_or_else(|| malformed(whole))?;
        for (op, span) in prefixes.into_iter().rev() {
            depth += 1;
            let span = span.to(expr.span);
            if depth > MAX_DEPTH {
                return Err(Error::TooDeep {
                    span,
                    limit: MAX_DEPTH,
                });
            }
            expr = Expr {
                kind: ExprKind::Unary(op, Box::new(expr)),
                span,
            };
        }
        Ok((expr, depth))
    }

    /// `(a)` or `(a, b, ...)`
    fn paren(&mut self, pair: Pair<'_, Rule>, nesting: usize) -> Result<Node, Error> {
        let span = Span::from(pair.as_span());
        let mut items = Vec::new();
        let mut depth = 1;
        for p in pair.into_inner().filter(|p| p.as_rule() == Rule::expr) {
            let (e, d) = self.expr(p, nesting + 1)?;
            depth = depth.max(d + 1);
            items.push(e);
        }
        if items.len() == 1 {
            return items
                .pop()
                .map(|e| (e, depth))
                .ok_or_else(|| malformed(span));
        }
        Ok((
            Expr {
                kind: ExprKind::Tuple(items),
                span,
            },
            depth,
        ))
    }

    /// `(T)x`
    fn cast(&mut self, pair: Pair<'_, Rule>, nesting: usize) -> Result<Node, Error> {
        let span = Span::from(pair.as_span());
        if nesting > MAX_DEPTH {
            return Err(Error::TooDeep {
                span,
                limit: MAX_DEPTH,
            });
        }
        let mut ty = None;
        let mut operand = None;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::type_name => ty = type_name(p.as_str()),
                Rule::operand => operand = Some(self.operand(p, nesting + 1)?),
                _ => {}
            }
        }
        let ((x, depth), ty) = operand.zip(ty).ok_or_else(|| malformed(span))?;
        if depth + 1 > MAX_DEPTH {
            return Err(Error::TooDeep {
                span,
                limit: MAX_DEPTH,
            });
        }
        let kind = ExprKind::Cast(ty, Box::new(x));
        Ok((Expr { kind, span }, depth + 1))
    }

    /// `name(args)` (a call) or `name`, `name.name` (an identifier).
    fn named(&mut self, pair: Pair<'_, Rule>, nesting: usize) -> Result<Node, Error> {
        let span = Span::from(pair.as_span());
        let mut inner = pair.clone().into_inner();
        let name = inner.next();
        match (name, inner.next()) {
            (Some(name), Some(args)) if args.as_rule() == Rule::call_args => {
                let name = (name.as_str().to_string(), Span::from(name.as_span()));
                self.call_args(name, args, span, nesting)
            }
            _ => {
                let kind = ExprKind::Ident(pair.as_str().to_string());
                Ok((Expr { kind, span }, 1))
            }
        }
    }

    /// `(args)` after a function's name.
    fn call_args(
        &mut self,
        name: (String, Span),
        pair: Pair<'_, Rule>,
        span: Span,
        nesting: usize,
    ) -> Result<Node, Error> {
        let mut args = Vec::new();
        let mut depth = 1;
        for p in pair.into_inner() {
            if p.as_rule() == Rule::expr {
                let (arg, d) = self.expr(p, nesting + 1)?;
                depth = depth.max(d + 1);
                args.push(arg);
            }
        }
        let kind = ExprKind::Call {
            name: name.0,
            name_span: name.1,
            args,
        };
        Ok((Expr { kind, span }, depth))
    }

    /// `name(args)` as a statement.
    fn call(&mut self, pair: Pair<'_, Rule>, nesting: usize) -> Result<Node, Error> {
        let span = Span::from(pair.as_span());
        let mut name = (String::new(), span);
        let mut args = Vec::new();
        let mut depth = 1;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::name | Rule::stmt_name => {
                    name = (p.as_str().to_string(), p.as_span().into());
                }
                Rule::expr => {
                    let (arg, d) = self.expr(p, nesting + 1)?;
                    depth = depth.max(d + 1);
                    args.push(arg);
                }
                _ => {}
            }
        }
        let kind = ExprKind::Call {
            name: name.0,
            name_span: name.1,
            args,
        };
        Ok((Expr { kind, span }, depth))
    }
}

/// An attach point: modifiers and `:`-separated components (strings unquoted).
fn attach(pair: Pair<'_, Rule>) -> Attach {
    let span = Span::from(pair.as_span());
    let mut a = Attach {
        warp: None,
        after: None,
        parts: Vec::new(),
        span,
        text: String::new(),
    };
    for p in pair.into_inner() {
        match p.as_rule() {
            Rule::modifier if p.as_str() == "warp" => a.warp = Some(p.as_span().into()),
            Rule::modifier => a.after = Some(p.as_span().into()),
            Rule::attach_path => {
                a.text = p.as_str().to_string();
                a.parts = p
                    .into_inner()
                    .map(|part| {
                        let text = part.as_str();
                        if text.starts_with('"') {
                            unescape(text)
                        } else {
                            text.to_string()
                        }
                    })
                    .collect();
            }
            _ => {}
        }
    }
    a
}

fn type_name(text: &str) -> Option<TypeName> {
    let (signed, bits) = match text {
        "bool" => {
            return Some(TypeName {
                bits: 1,
                signed: false,
            })
        }
        _ => (text.starts_with('i'), text.get(1..)?.parse().ok()?),
    };
    Some(TypeName { bits, signed })
}

/// A string literal's contents, escapes resolved (the grammar admits only
/// `\n \t \r \0 \\ \"`).
fn unescape(quoted: &str) -> String {
    let inner = quoted
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .unwrap_or(quoted);
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('0') => out.push('\0'),
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
}

/// Precedence climbing over `operand (op operand)*`; every operator is left-associative.
/// Recursion is bounded by the number of precedence levels.
fn climb(
    operands: &mut VecDeque<Node>,
    ops: &mut VecDeque<BinaryOp>,
    min: u8,
    span: Span,
) -> Result<Node, Error> {
    let (mut lhs, mut depth) = operands.pop_front().ok_or_else(|| malformed(span))?;
    while let Some(op) = ops.front().copied().filter(|op| op.precedence() >= min) {
        ops.pop_front();
        let (rhs, rhs_depth) = climb(operands, ops, op.precedence() + 1, span)?;
        depth = depth.max(rhs_depth) + 1;
        let span = lhs.span.to(rhs.span);
        if depth > MAX_DEPTH {
            return Err(Error::TooDeep {
                span,
                limit: MAX_DEPTH,
            });
        }
        lhs = Expr {
            kind: ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)),
            span,
        };
    }
    Ok((lhs, depth))
}

fn binary_op(text: &str) -> Option<BinaryOp> {
    use BinaryOp::*;
    Some(match text {
        "||" => LogOr,
        "&&" => LogAnd,
        "|" => BitOr,
        "^" => BitXor,
        "&" => BitAnd,
        "==" => Eq,
        "!=" => Ne,
        "<" => Lt,
        "<=" => Le,
        ">" => Gt,
        ">=" => Ge,
        "<<" => Shl,
        ">>" => Shr,
        "+" => Add,
        "-" => Sub,
        "*" => Mul,
        "/" => Div,
        "%" => Rem,
        _ => return None,
    })
}

/// Decimal literals must fit in `i64`; hex literals may use all 64 bits (their bit
/// pattern is kept, so `0xffffffffffffffff` is -1).
fn int_literal(rule: Rule, text: &str, span: Span) -> Result<i64, Error> {
    let value = match rule {
        Rule::hex => text
            .get(2..)
            .and_then(|digits| u64::from_str_radix(digits, 16).ok())
            .map(|v| v as i64),
        _ => text.parse::<i64>().ok(),
    };
    value.ok_or_else(|| Error::IntTooLarge {
        span,
        text: text.to_string(),
    })
}

/// A tree the grammar should never produce; reported rather than panicking.
fn malformed(span: Span) -> Error {
    Error::Syntax {
        span,
        message: "malformed expression".to_string(),
    }
}

/// What a rule stands for in "expected ..." messages.
fn phrase(rule: Rule) -> &'static str {
    match rule {
        Rule::EOI => "end of input",
        Rule::block | Rule::attach_list | Rule::attach | Rule::attach_path | Rule::attach_part => {
            "attach point"
        }
        Rule::modifier => "`warp` or `after`",
        Rule::map_decl | Rule::kw_map => "map declaration",
        Rule::config | Rule::kw_config => "config block",
        Rule::config_entry | Rule::decl_arg => "`key = value`",
        Rule::size => "size",
        Rule::predicate => "predicate",
        Rule::body => "`{`",
        Rule::assignment
        | Rule::map
        | Rule::map_name
        | Rule::if_stmt
        | Rule::kw_if
        | Rule::unroll
        | Rule::kw_unroll
        | Rule::call_stmt
        | Rule::stmt_name => "statement",
        Rule::kw_else => "`else`",
        Rule::expr
        | Rule::binary
        | Rule::operand
        | Rule::named
        | Rule::call_args
        | Rule::name
        | Rule::hex
        | Rule::dec
        | Rule::string
        | Rule::scratch
        | Rule::persist
        | Rule::cast
        | Rule::paren
        | Rule::prefix => "expression",
        Rule::type_name => "type",
        Rule::comma => "`,`",
        Rule::semi => "`;`",
        Rule::slash => "`/`",
        Rule::colon => "`:`",
        Rule::question => "operator",
        Rule::assign => "`=`",
        Rule::lbrace => "`{`",
        Rule::rbrace => "`}`",
        Rule::lparen => "`(`",
        Rule::rparen => "`)`",
        Rule::lbracket => "`[`",
        Rule::rbracket => "`]`",
        _ => "operator",
    }
}

/// Turns pest's error into "unexpected X, expected A, B or C" at the offending token.
fn syntax_error(source: &str, error: &pest::error::Error<Rule>) -> Error {
    let pos = match error.location {
        InputLocation::Pos(p) | InputLocation::Span((p, _)) => p.min(source.len()),
    };
    let content_end = source.trim_end().len();
    let (span, found) = if pos >= content_end {
        (
            Span::new(content_end, content_end),
            "end of input".to_string(),
        )
    } else {
        let rest = source.get(pos..).unwrap_or("");
        let word: usize = rest
            .char_indices()
            .take_while(|(_, c)| c.is_ascii_alphanumeric() || *c == '_' || *c == '.')
            .map(|(i, c)| i + c.len_utf8())
            .last()
            .unwrap_or_else(|| rest.chars().next().map_or(0, char::len_utf8));
        let token = rest.get(..word).unwrap_or("");
        (Span::new(pos, pos + word), format!("`{token}`"))
    };
    let unterminated = pos
        .checked_sub(1)
        .filter(|&p| source.get(p..).is_some_and(|rest| rest.starts_with("/*")));
    if let Some(start) = unterminated {
        return Error::Syntax {
            span: Span::new(start, start + 2),
            message: "unterminated comment".to_string(),
        };
    }
    let message = match &error.variant {
        ErrorVariant::ParsingError { positives, .. } => {
            let mut expected: Vec<&str> = Vec::new();
            for p in positives {
                let w = phrase(*p);
                if !expected.contains(&w) {
                    expected.push(w);
                }
            }
            match expected.split_last() {
                None => format!("unexpected {found}"),
                Some((last, [])) => format!("unexpected {found}, expected {last}"),
                Some((last, init)) => {
                    format!("unexpected {found}, expected {} or {last}", init.join(", "))
                }
            }
        }
        ErrorVariant::CustomError { message } => message.clone(),
    };
    Error::Syntax { span, message }
}
