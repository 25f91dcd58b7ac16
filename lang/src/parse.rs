//! Source text → [`ast::Program`]: the pest grammar (`grammar.pest`), precedence
//! climbing for binary operators, and pest's errors turned into readable ones.
//!
//! The tree is built in one walk over pest's token stream (each pair's start, its
//! children, its end), which costs a fraction of materialising a `Pair` per node.

use crate::ast::{
    self, Attach, BinaryOp, Block, ConfigAst, DeclArg, DeclValue, Expr, ExprKind, MapDeclAst,
    MapRef, Span, Stmt, Target, TypeName, UnaryOp,
};
use crate::diag::{Error, MAX_BRACKETS, MAX_DEPTH, MAX_STMT_DEPTH};
use pest::error::{ErrorVariant, InputLocation};
use pest::iterators::Tokens;
use pest::{Parser as _, Token};
use std::borrow::Cow;

#[derive(pest_derive::Parser)]
#[grammar = "grammar.pest"]
struct Grammar;

/// Parses a whole program with bpftrace's positional parameters: `$N` is `params[N - 1]`
/// (an integer, or a string in `str($N)`; 0 or `""` past the last), `$#` is their number.
/// Also says whether the program reads any of them. A syntax error stops parsing; errors
/// found while building the tree (literals out of range, too deep nesting) are
/// accumulated.
pub(crate) fn parse_with<'s>(
    source: &'s str,
    params: &[String],
) -> Result<(ast::Program<'s>, bool), Vec<Error>> {
    if let Some(span) = too_deep(source) {
        return Err(vec![Error::TooDeep {
            span,
            limit: MAX_BRACKETS,
        }]);
    }
    let pairs =
        Grammar::parse(Rule::program, source).map_err(|e| vec![syntax_error(source, &e)])?;
    let c = &mut Cursor {
        tokens: pairs.tokens(),
        source,
        depth: 0,
    };
    let mut builder = Builder {
        errors: Vec::new(),
        operands: Vec::new(),
        ops: Vec::new(),
        params: params.to_vec(),
        reads_params: false,
        in_str: false,
    };
    let mut program = ast::Program::default();
    // `program`: declarations, `config` blocks and probe blocks.
    if let Some(Tok::Start(..)) = c.next() {
        let (d, mut end) = (c.depth, 0);
        while let Some((rule, start)) = c.child(d, &mut end) {
            match rule {
                Rule::block => program.blocks.push(builder.block(c, start)),
                Rule::map_decl => program.maps.push(builder.map_decl(c, start)),
                Rule::config => builder.config(c, &mut program.config),
                _ => {}
            }
        }
    }
    if builder.errors.is_empty() {
        Ok((program, builder.reads_params))
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

/// A token of the parse: a pair starts (its rule, where) or ends (where).
enum Tok {
    Start(Rule, usize),
    End(usize),
}

/// A walk over pest's tokens. Each builder method is called just after its pair's start
/// (with the cursor at that pair's depth) and reads its children with
/// [`child`](Cursor::child), which skips whatever of the previous child was left unread,
/// so a method may ignore children or stop early (on an error).
struct Cursor<'s> {
    tokens: Tokens<'s, Rule>,
    source: &'s str,
    /// The pairs started and not yet ended.
    depth: usize,
}

impl<'s> Cursor<'s> {
    fn next(&mut self) -> Option<Tok> {
        match self.tokens.next()? {
            Token::Start { rule, pos } => {
                self.depth += 1;
                Some(Tok::Start(rule, pos.pos()))
            }
            Token::End { pos, .. } => {
                self.depth = self.depth.saturating_sub(1);
                Some(Tok::End(pos.pos()))
            }
        }
    }

    /// Reads the rest of the pair open at `depth` (the depth just after its start) up to
    /// its end, and returns where it ends (`None` if it had ended already).
    fn close(&mut self, depth: usize) -> Option<usize> {
        let mut end = None;
        while self.depth >= depth {
            match self.next() {
                Some(Tok::End(pos)) => end = Some(pos),
                Some(Tok::Start(..)) => {}
                None => break,
            }
        }
        end
    }

    /// The next child (rule, start) of the pair open at `depth`, or `None` once that
    /// pair has ended (where: `*end`).
    fn child(&mut self, depth: usize, end: &mut usize) -> Option<(Rule, usize)> {
        self.close(depth + 1);
        match self.next()? {
            Tok::Start(rule, start) => Some((rule, start)),
            Tok::End(pos) => {
                *end = pos;
                None
            }
        }
    }

    /// The span and text of a child just started at `start` (read to its end).
    fn rest(&mut self, start: usize) -> (Span, &'s str) {
        let end = self.close(self.depth).unwrap_or(start);
        let text = self.source.get(start..end).unwrap_or("");
        (Span::new(start, end), text)
    }
}

/// An expression and the depth of its tree.
type Node<'s> = (Expr<'s>, usize);

struct Builder<'s> {
    errors: Vec<Error>,
    /// The operands and operators of the binary chains being built: an expression's
    /// operand chain is the top of these (nested expressions, built while its operands
    /// are, take theirs off before it pushes the next).
    operands: Vec<Node<'s>>,
    ops: Vec<BinaryOp>,
    /// The positional parameters (`$1` is the first).
    params: Vec<String>,
    /// Whether a positional parameter was read.
    reads_params: bool,
    /// Parsing the argument of `str()`: `$N` is a string there.
    in_str: bool,
}

impl<'s> Builder<'s> {
    /// The value `target op= value` (or `target++`, `target--`) assigns: `target op value`
    /// for a variable; for a map, `sum(value)` (`+=`, `++`) or `sum(-value)` (`-=`, `--`),
    /// the only updates that need no read of the map. `None` after an error.
    fn update_value(
        &mut self,
        target: &Target<'s>,
        op: &'s str,
        op_span: Span,
        value: Option<Expr<'s>>,
    ) -> Option<Expr<'s>> {
        let one = || Expr {
            kind: ExprKind::Int(1),
            span: op_span,
        };
        let (bin, rhs) = match op {
            "++" => (BinaryOp::Add, one()),
            "--" => (BinaryOp::Sub, one()),
            _ => {
                let bin = match op.trim_end_matches('=') {
                    "+" => BinaryOp::Add,
                    "-" => BinaryOp::Sub,
                    "*" => BinaryOp::Mul,
                    "/" => BinaryOp::Div,
                    "%" => BinaryOp::Rem,
                    "&" => BinaryOp::BitAnd,
                    "|" => BinaryOp::BitOr,
                    "^" => BinaryOp::BitXor,
                    "<<" => BinaryOp::Shl,
                    _ => BinaryOp::Shr,
                };
                (bin, value?)
            }
        };
        let span = Span::new(op_span.start, rhs.span.end.max(op_span.end));
        let current = match target {
            Target::Scratch(name, at) => Expr {
                kind: ExprKind::Scratch(name),
                span: *at,
            },
            Target::Persist(name, at) => Expr {
                kind: ExprKind::Persist(name),
                span: *at,
            },
            Target::Map(_) => {
                let added = match bin {
                    BinaryOp::Add => rhs,
                    BinaryOp::Sub => Expr {
                        span: rhs.span,
                        kind: ExprKind::Unary(UnaryOp::Neg, Box::new(rhs)),
                    },
                    _ => {
                        self.errors.push(Error::MapUpdateNeedsValue {
                            span: op_span,
                            op: op.to_string(),
                        });
                        return None;
                    }
                };
                return Some(Expr {
                    span,
                    kind: ExprKind::Call {
                        name: "sum",
                        name_span: op_span,
                        args: vec![added],
                    },
                });
            }
        };
        Some(Expr {
            span,
            kind: ExprKind::Binary(bin, Box::new(current), Box::new(rhs)),
        })
    }

    fn map_decl(&mut self, c: &mut Cursor<'s>, start: usize) -> MapDeclAst<'s> {
        let (d, mut end) = (c.depth, start);
        let at = Span::new(start, start);
        let mut decl = MapDeclAst {
            name: "",
            name_span: at,
            kind: "",
            kind_span: at,
            args: Vec::new(),
            span: at,
        };
        let mut seen = (false, false);
        while let Some((rule, s)) = c.child(d, &mut end) {
            match rule {
                Rule::map_name => {
                    let (span, text) = c.rest(s);
                    decl.name = text.trim_start_matches('@');
                    decl.name_span = span;
                    seen.0 = true;
                }
                Rule::name => {
                    let (span, text) = c.rest(s);
                    decl.kind = text;
                    decl.kind_span = span;
                    seen.1 = true;
                }
                Rule::decl_arg => {
                    let [key, value] = self.key_value(c);
                    if let (Some((_, key_span, key)), Some(value)) = (key, value) {
                        if let Some((value, value_span)) = self.decl_value(value) {
                            decl.args.push(DeclArg {
                                key,
                                key_span,
                                value,
                                value_span,
                            });
                        }
                    }
                }
                _ => {}
            }
        }
        decl.span = Span::new(start, end);
        // (Without a name or kind, as the grammar never leaves them, the spans are the
        // declaration's.)
        if !seen.0 {
            decl.name_span = decl.span;
        }
        if !seen.1 {
            decl.kind_span = decl.span;
        }
        decl
    }

    fn config(&mut self, c: &mut Cursor<'s>, entries: &mut Vec<ConfigAst<'s>>) {
        let (d, mut end) = (c.depth, 0);
        while let Some((rule, _)) = c.child(d, &mut end) {
            if rule != Rule::config_entry {
                continue;
            }
            let [key, value] = self.key_value(c);
            if let (Some((_, key_span, key)), Some(value)) = (key, value) {
                if let Some((value, value_span)) = self.decl_value(value) {
                    entries.push(ConfigAst {
                        key,
                        key_span,
                        value,
                        value_span,
                    });
                }
            }
        }
    }

    /// The first two children of a `key = value` pair other than `=` and `;`.
    fn key_value(&mut self, c: &mut Cursor<'s>) -> [Option<(Rule, Span, &'s str)>; 2] {
        let (d, mut end) = (c.depth, 0);
        let mut found = [None, None];
        let mut n = 0;
        while let Some((rule, s)) = c.child(d, &mut end) {
            if matches!(rule, Rule::assign | Rule::semi) {
                continue;
            }
            if let Some(slot) = found.get_mut(n) {
                let (span, text) = c.rest(s);
                *slot = Some((rule, span, text));
                n += 1;
            }
        }
        found
    }

    /// A size (`64K`), a name or a string, and its span.
    fn decl_value(&mut self, (rule, span, text): (Rule, Span, &str)) -> Option<(DeclValue, Span)> {
        let value = match rule {
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
                    Some(v) => DeclValue::Size(v),
                    None => {
                        self.errors.push(Error::IntTooLarge {
                            span,
                            text: text.to_string(),
                        });
                        return None;
                    }
                }
            }
            Rule::string => DeclValue::Str(unescape(text)),
            _ => DeclValue::Name(text.to_string()),
        };
        Some((value, span))
    }

    fn block(&mut self, c: &mut Cursor<'s>, start: usize) -> Block<'s> {
        let (d, mut end) = (c.depth, start);
        let mut block = Block {
            attaches: Vec::new(),
            predicate: None,
            body: Vec::new(),
            end: Span::new(start, start),
        };
        let mut body_end = None;
        while let Some((rule, s)) = c.child(d, &mut end) {
            match rule {
                Rule::attach_list => {
                    let (d, mut end) = (c.depth, 0);
                    while let Some((rule, s)) = c.child(d, &mut end) {
                        if rule == Rule::attach {
                            block.attaches.push(attach(c, s));
                        }
                    }
                }
                Rule::predicate => {
                    let (d, mut end) = (c.depth, 0);
                    while let Some((rule, s)) = c.child(d, &mut end) {
                        if rule == Rule::expr {
                            block.predicate = self.top_expr(c, s);
                            break;
                        }
                    }
                }
                Rule::body => {
                    let (body, end) = self.body(c, s, 1);
                    block.body = body;
                    body_end = Some(end);
                }
                _ => {}
            }
        }
        block.end = body_end.unwrap_or(Span::new(start, end));
        block
    }

    /// `{ statements }` at statement nesting `depth`: the statements and the closing brace.
    fn body(&mut self, c: &mut Cursor<'s>, start: usize, depth: usize) -> (Vec<Stmt<'s>>, Span) {
        let (d, mut end) = (c.depth, start);
        let mut rbrace = None;
        let mut stmts = Vec::new();
        while let Some((rule, s)) = c.child(d, &mut end) {
            match rule {
                Rule::rbrace => rbrace = Some(c.rest(s).0),
                Rule::lbrace | Rule::semi => {}
                _ => stmts.extend(self.stmt(c, rule, s, depth)),
            }
        }
        (stmts, rbrace.unwrap_or(Span::new(start, end)))
    }

    /// A statement nested `depth` levels deep (a body or an `else if` is one level).
    fn stmt(
        &mut self,
        c: &mut Cursor<'s>,
        rule: Rule,
        start: usize,
        depth: usize,
    ) -> Option<Stmt<'s>> {
        let (d, mut end) = (c.depth, start);
        match rule {
            Rule::assignment => {
                let mut target = None;
                let mut value = None;
                // `op=` or `++`/`--`, with its span.
                let mut op: Option<(&'s str, Span)> = None;
                while let Some((rule, s)) = c.child(d, &mut end) {
                    match rule {
                        Rule::map => target = Some(Target::Map(self.map_ref(c, s))),
                        Rule::scratch => {
                            let (span, text) = c.rest(s);
                            target = Some(Target::Scratch(text.get(1..).unwrap_or(""), span));
                        }
                        Rule::persist => {
                            let (span, text) = c.rest(s);
                            target = Some(Target::Persist(text.get(1..).unwrap_or(""), span));
                        }
                        Rule::update | Rule::step => {
                            let (span, text) = c.rest(s);
                            let text = text.trim_end();
                            op = Some((text, Span::new(span.start, span.start + text.len())));
                        }
                        Rule::expr => value = self.top_expr(c, s),
                        _ => {}
                    }
                }
                let target = target?;
                let span = Span::new(start, end);
                let value = match op {
                    None => value?,
                    Some((op, op_span)) => self.update_value(&target, op, op_span, value)?,
                };
                Some(Stmt::Assign {
                    target,
                    value,
                    span,
                })
            }
            Rule::call_stmt => {
                let (name, name_span) = match c.child(d, &mut end) {
                    Some((Rule::stmt_name, s)) => {
                        let (span, text) = c.rest(s);
                        (text, span)
                    }
                    _ => return None,
                };
                match self.call(c, start, name, name_span, 0) {
                    Ok((call, _)) => {
                        let span = call.span;
                        Some(Stmt::Call { call, span })
                    }
                    Err(e) => {
                        self.errors.push(e);
                        None
                    }
                }
            }
            Rule::if_stmt => self.if_chain(c, start, depth),
            Rule::unroll => {
                let mut count = None;
                let mut body = Vec::new();
                while let Some((rule, s)) = c.child(d, &mut end) {
                    match rule {
                        Rule::expr => count = self.top_expr(c, s),
                        Rule::body => body = self.body(c, s, depth + 1).0,
                        _ => {}
                    }
                }
                Some(Stmt::Unroll {
                    count: count?,
                    body,
                })
            }
            Rule::for_range => {
                let (mut var, mut bounds, mut body) = (None, Vec::new(), Vec::new());
                while let Some((rule, s)) = c.child(d, &mut end) {
                    match rule {
                        Rule::scratch => {
                            let (span, text) = c.rest(s);
                            var = Some((text.get(1..).unwrap_or(""), span));
                        }
                        Rule::expr => bounds.push(self.top_expr(c, s)),
                        Rule::body => body = self.body(c, s, depth + 1).0,
                        _ => {}
                    }
                }
                let (var, var_span) = var?;
                let mut bounds = bounds.into_iter().flatten();
                let (from, to) = (bounds.next()?, bounds.next()?);
                Some(Stmt::For {
                    var,
                    var_span,
                    from,
                    to,
                    body,
                    span: Span::new(start, end),
                })
            }
            _ => None,
        }
    }

    /// `if (c) { } else if (c) { } ... else { }` at statement nesting `depth`. The `else
    /// if`s nest, each in the one before, but are read in a loop (a chain may be long)
    /// and nested from the last.
    fn if_chain(&mut self, c: &mut Cursor<'s>, start: usize, depth: usize) -> Option<Stmt<'s>> {
        struct Level<'s> {
            start: usize,
            /// The cursor depth of its pair.
            depth: usize,
            cond: Option<Expr<'s>>,
            then: Option<Vec<Stmt<'s>>>,
            els: Vec<Stmt<'s>>,
        }
        let level = |start, depth| Level {
            start,
            depth,
            cond: None,
            then: None,
            els: Vec::new(),
        };
        if depth > MAX_STMT_DEPTH {
            // The `if` of the statement one level too deep.
            self.errors.push(Error::StmtTooDeep {
                span: Span::new(start, start + 2),
                limit: MAX_STMT_DEPTH,
            });
            return None;
        }
        let mut chain = vec![level(start, c.depth)];
        let mut end = start;
        loop {
            // The statement nesting of the innermost `if`'s bodies and `else if`.
            let nesting = depth + chain.len();
            let top = chain.last_mut()?;
            match c.child(top.depth, &mut end) {
                Some((Rule::expr, s)) => top.cond = self.top_expr(c, s),
                Some((Rule::body, s)) => {
                    let body = self.body(c, s, nesting);
                    if top.then.is_none() {
                        top.then = Some(body.0);
                    } else {
                        top.els = body.0;
                    }
                }
                Some((Rule::if_stmt, s)) if nesting > MAX_STMT_DEPTH => {
                    // The `if` of the statement one level too deep.
                    self.errors.push(Error::StmtTooDeep {
                        span: Span::new(s, s + 2),
                        limit: MAX_STMT_DEPTH,
                    });
                }
                Some((Rule::if_stmt, s)) => chain.push(level(s, c.depth)),
                Some(_) => {}
                None => {
                    let done = chain.pop()?;
                    let stmt = done.cond.map(|cond| Stmt::If {
                        cond,
                        then: done.then.unwrap_or_default(),
                        els: done.els,
                        span: Span::new(done.start, end),
                    });
                    match chain.last_mut() {
                        Some(outer) => outer.els = stmt.into_iter().collect(),
                        None => return stmt,
                    }
                }
            }
        }
    }

    fn map_ref(&mut self, c: &mut Cursor<'s>, start: usize) -> MapRef<'s> {
        let (d, mut end) = (c.depth, start);
        let mut name = "";
        let mut keys = Vec::new();
        while let Some((rule, s)) = c.child(d, &mut end) {
            match rule {
                Rule::map_name => name = c.rest(s).1.trim_start_matches('@'),
                Rule::expr => keys.extend(self.top_expr(c, s)),
                _ => {}
            }
        }
        if keys.is_empty() {
            // The rule takes the whitespace after a map without keys; the span does not.
            end = start + 1 + name.len();
        }
        MapRef {
            name,
            keys,
            span: Span::new(start, end),
        }
    }

    /// An expression at statement level; records its error and returns `None` on failure.
    fn top_expr(&mut self, c: &mut Cursor<'s>, start: usize) -> Option<Expr<'s>> {
        match self.expr(c, start, 0) {
            Ok((e, _)) => Some(e),
            Err(e) => {
                self.errors.push(e);
                None
            }
        }
    }

    /// `operand (infix operand)* (? expr : expr)?`, the operators by precedence climbing.
    /// `nesting` counts the parentheses, calls and conditionals around it.
    fn expr(
        &mut self,
        c: &mut Cursor<'s>,
        start: usize,
        nesting: usize,
    ) -> Result<Node<'s>, Error> {
        if nesting > MAX_DEPTH {
            let end = c.close(c.depth).unwrap_or(start);
            return Err(Error::TooDeep {
                span: Span::new(start, end),
                limit: MAX_DEPTH,
            });
        }
        let (base, ops_base) = (self.operands.len(), self.ops.len());
        let result = self.expr_parts(c, start, nesting, base, ops_base);
        self.operands.truncate(base);
        self.ops.truncate(ops_base);
        result
    }

    /// [`expr`](Self::expr) once its chain's stacks are marked (`base`, `ops_base`).
    fn expr_parts(
        &mut self,
        c: &mut Cursor<'s>,
        start: usize,
        nesting: usize,
        base: usize,
        ops_base: usize,
    ) -> Result<Node<'s>, Error> {
        let (d, mut end) = (c.depth, start);
        // The parts after the binary operand chain (`? a : b`); more are never used.
        let (mut second, mut third) = (None, None);
        let mut binary_end = None;
        while let Some((rule, s)) = c.child(d, &mut end) {
            match rule {
                Rule::operand => {
                    let (node, operand_end) = self.operand(c, s, nesting)?;
                    binary_end = Some(operand_end);
                    self.operands.push(node);
                }
                Rule::infix => self.ops.extend(binary_op(c.rest(s).1)),
                Rule::expr => {
                    let node = self.expr(c, s, nesting + 1)?;
                    if second.is_none() {
                        second = Some(node);
                    } else if third.is_none() {
                        third = Some(node);
                    }
                }
                _ => {}
            }
        }
        let span = Span::new(start, end);
        let first = if self.operands.len() == base + 1 && self.ops.len() == ops_base {
            self.operands.pop()
        } else {
            let binary_span = Span::new(start, binary_end.unwrap_or(end));
            let mut operands = self.operands.drain(base..);
            let ops = self.ops.get(ops_base..).unwrap_or(&[]);
            Some(climb(&mut operands, ops, &mut 0, 0, binary_span)?)
        };
        match (first, second, third) {
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

    /// `prefix* primary`, and where it ends.
    fn operand(
        &mut self,
        c: &mut Cursor<'s>,
        start: usize,
        nesting: usize,
    ) -> Result<(Node<'s>, usize), Error> {
        let (d, mut end) = (c.depth, start);
        let mut prefixes = Vec::new();
        let mut primary = None;
        while let Some((rule, s)) = c.child(d, &mut end) {
            let leaf = |kind, span| Some((Expr { kind, span }, 1));
            match rule {
                Rule::named => primary = Some(self.named(c, s, nesting)?),
                Rule::int => {
                    let (span, text) = c.rest(s);
                    primary = leaf(ExprKind::Int(int_literal(text, span)?), span);
                }
                Rule::map => {
                    if nesting > MAX_DEPTH {
                        let end = c.close(c.depth).unwrap_or(s);
                        return Err(Error::TooDeep {
                            span: Span::new(s, end),
                            limit: MAX_DEPTH,
                        });
                    }
                    let map = self.map_ref(c, s);
                    let span = map.span;
                    primary = leaf(ExprKind::Map(map), span);
                }
                Rule::positional => {
                    let (span, text) = c.rest(s);
                    primary = leaf(self.positional(text, span)?, span);
                }
                Rule::scratch => {
                    let (span, text) = c.rest(s);
                    primary = leaf(ExprKind::Scratch(text.get(1..).unwrap_or("")), span);
                }
                Rule::persist => {
                    let (span, text) = c.rest(s);
                    primary = leaf(ExprKind::Persist(text.get(1..).unwrap_or("")), span);
                }
                Rule::string => {
                    let (span, text) = c.rest(s);
                    primary = leaf(ExprKind::Str(unescape(text)), span);
                }
                Rule::prefix => {
                    let (span, text) = c.rest(s);
                    let op = match text {
                        "-" => UnaryOp::Neg,
                        "!" => UnaryOp::Not,
                        _ => UnaryOp::BitNot,
                    };
                    prefixes.push((op, span));
                }
                Rule::paren => primary = Some(self.paren(c, s, nesting)?),
                Rule::cast => primary = Some(self.cast(c, s, nesting)?),
                _ => {}
            }
        }
        let (mut expr, mut depth) = primary.ok_or_else(|| malformed(Span::new(start, end)))?;
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
        Ok(((expr, depth), end))
    }

    /// The value of `$N` or `$#` (`text`), as bpftrace gives it: `$#` the number of
    /// parameters; `$N` the N-th, an integer (decimal, `-` allowed, or 0x hex) or, inside
    /// `str()`, the string; a parameter past the last is 0 (`""` in `str()`).
    fn positional(&mut self, text: &str, span: Span) -> Result<ExprKind<'s>, Error> {
        self.reads_params = true;
        let Some(digits) = text.strip_prefix('$').filter(|d| *d != "#") else {
            return Ok(ExprKind::Int(self.params.len() as i64));
        };
        let index: usize = digits.parse().unwrap_or(usize::MAX);
        if index == 0 {
            return Err(Error::ParamZero { span });
        }
        let value = self.params.get(index - 1);
        if self.in_str {
            return Ok(ExprKind::Str(value.cloned().unwrap_or_default()));
        }
        let Some(value) = value else {
            return Ok(ExprKind::Int(0));
        };
        let (negative, magnitude) = match value.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, value.as_str()),
        };
        let number = magnitude
            .bytes()
            .all(|b| b.is_ascii_hexdigit() || b == b'x' || b == b'X')
            && !magnitude.is_empty();
        match number.then(|| int_literal(magnitude, span).ok()).flatten() {
            Some(v) if negative => Ok(ExprKind::Int(v.wrapping_neg())),
            Some(v) => Ok(ExprKind::Int(v)),
            None => Err(Error::ParamNotInt {
                span,
                index,
                value: value.clone(),
            }),
        }
    }

    /// `(a)` or `(a, b, ...)`
    fn paren(
        &mut self,
        c: &mut Cursor<'s>,
        start: usize,
        nesting: usize,
    ) -> Result<Node<'s>, Error> {
        let (d, mut end) = (c.depth, start);
        let mut items = Vec::new();
        let mut depth = 1;
        while let Some((rule, s)) = c.child(d, &mut end) {
            if rule == Rule::expr {
                let (e, d) = self.expr(c, s, nesting + 1)?;
                depth = depth.max(d + 1);
                items.push(e);
            }
        }
        let span = Span::new(start, end);
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
    fn cast(
        &mut self,
        c: &mut Cursor<'s>,
        start: usize,
        nesting: usize,
    ) -> Result<Node<'s>, Error> {
        if nesting > MAX_DEPTH {
            let end = c.close(c.depth).unwrap_or(start);
            return Err(Error::TooDeep {
                span: Span::new(start, end),
                limit: MAX_DEPTH,
            });
        }
        let (d, mut end) = (c.depth, start);
        let mut ty = None;
        let mut operand = None;
        while let Some((rule, s)) = c.child(d, &mut end) {
            match rule {
                Rule::type_name => ty = type_name(c.rest(s).1),
                Rule::operand => operand = Some(self.operand(c, s, nesting + 1)?.0),
                _ => {}
            }
        }
        let span = Span::new(start, end);
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

    /// `name(args)` (a call: `(`, the arguments and `)` are inside) or `name`,
    /// `name.name` (an identifier: nothing inside).
    fn named(
        &mut self,
        c: &mut Cursor<'s>,
        start: usize,
        nesting: usize,
    ) -> Result<Node<'s>, Error> {
        let source = c.source;
        let rest = source.get(start..).unwrap_or("");
        let name_len = rest
            .bytes()
            .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
            .count();
        let name = rest.get(..name_len).unwrap_or("");
        let name_span = Span::new(start, start + name_len);
        self.call(c, start, name, name_span, nesting)
    }

    /// A call, as a statement or in an expression: `name`, then `(`, the arguments and
    /// `)` as the children still to read. A `named` pair without children is the
    /// identifier it spells.
    fn call(
        &mut self,
        c: &mut Cursor<'s>,
        start: usize,
        name: &'s str,
        name_span: Span,
        nesting: usize,
    ) -> Result<Node<'s>, Error> {
        let (d, mut end) = (c.depth, start);
        let mut args = Vec::new();
        let mut depth = 1;
        let mut call = false;
        // `str($N)`: the parameter as a string.
        let in_str = std::mem::replace(&mut self.in_str, name == "str");
        while let Some((rule, s)) = c.child(d, &mut end) {
            call = true;
            if rule == Rule::expr {
                let parsed = self.expr(c, s, nesting + 1);
                let (arg, d) = parsed.inspect_err(|_| self.in_str = in_str)?;
                depth = depth.max(d + 1);
                args.push(arg);
            }
        }
        self.in_str = in_str;
        let span = Span::new(start, end);
        if let (true, "str", [arg]) = (call, name, args.as_slice()) {
            if let ExprKind::Str(text) = &arg.kind {
                return Ok((
                    Expr {
                        kind: ExprKind::Str(text.clone()),
                        span,
                    },
                    depth,
                ));
            }
        }
        let kind = if call {
            ExprKind::Call {
                name,
                name_span,
                args,
            }
        } else {
            ExprKind::Ident(c.source.get(start..end).unwrap_or(""))
        };
        Ok((Expr { kind, span }, depth))
    }
}

/// An attach point: modifiers and `:`-separated components (strings unquoted).
fn attach<'s>(c: &mut Cursor<'s>, start: usize) -> Attach<'s> {
    let (d, mut end) = (c.depth, start);
    let mut a = Attach {
        warp: None,
        after: None,
        parts: Vec::new(),
        span: Span::new(start, start),
        text: "",
    };
    while let Some((rule, s)) = c.child(d, &mut end) {
        match rule {
            Rule::modifier => {
                let (span, text) = c.rest(s);
                if text == "warp" {
                    a.warp = Some(span);
                } else {
                    a.after = Some(span);
                }
            }
            Rule::attach_path => {
                let (d, mut end) = (c.depth, s);
                while let Some((rule, s)) = c.child(d, &mut end) {
                    if rule == Rule::attach_part {
                        let text = c.rest(s).1;
                        a.parts.push(if text.starts_with('"') {
                            Cow::Owned(unescape(text))
                        } else {
                            Cow::Borrowed(text)
                        });
                    }
                }
                a.text = c.source.get(s..end).unwrap_or("");
            }
            _ => {}
        }
    }
    a.span = Span::new(start, end);
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
        _ => {
            // `u64`, `i8`, or bpftrace's `uint64`, `int8`.
            let (signed, digits) = match text {
                t if t.starts_with("uint") => (false, &t[4..]),
                t if t.starts_with("int") => (true, &t[3..]),
                t => (t.starts_with('i'), t.get(1..)?),
            };
            (signed, digits.parse().ok()?)
        }
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
/// `ops[*next..]` are the operators not yet taken. Recursion is bounded by the number of
/// precedence levels.
fn climb<'s>(
    operands: &mut impl Iterator<Item = Node<'s>>,
    ops: &[BinaryOp],
    next: &mut usize,
    min: u8,
    span: Span,
) -> Result<Node<'s>, Error> {
    let (mut lhs, mut depth) = operands.next().ok_or_else(|| malformed(span))?;
    while let Some(&op) = ops.get(*next).filter(|op| op.precedence() >= min) {
        *next += 1;
        let (rhs, rhs_depth) = climb(operands, ops, next, op.precedence() + 1, span)?;
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
fn int_literal(text: &str, span: Span) -> Result<i64, Error> {
    let value = match text
        .strip_prefix(['0'])
        .and_then(|t| t.strip_prefix(['x', 'X']))
    {
        Some(digits) => u64::from_str_radix(digits, 16).ok().map(|v| v as i64),
        None => text.parse::<i64>().ok(),
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
        hint: None,
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
        | Rule::for_range
        | Rule::kw_for
        | Rule::call_stmt
        | Rule::stmt_name => "statement",
        Rule::kw_else => "`else`",
        Rule::expr
        | Rule::operand
        | Rule::named
        | Rule::name
        | Rule::int
        | Rule::string
        | Rule::positional
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
            hint: None,
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
    let hint = syntax_hint(source, span.start);
    Error::Syntax {
        span,
        message,
        hint,
    }
}

/// What a syntax error at `pos` most likely means, where that is clear from the text: `=`
/// written for `==`, a `while` loop (probes have none).
fn syntax_hint(source: &str, pos: usize) -> Option<String> {
    let rest = source.get(pos..)?;
    // The statement the error is in: from the last `;`, `{` or `}` before it.
    let before = source.get(..pos)?;
    let stmt = before
        .rfind([';', '{', '}'])
        .map_or(before, |i| &before[i + 1..]);
    let word = stmt.trim_start();
    let loop_word = ["while", "for", "do"].into_iter().find(|w| {
        word.strip_prefix(w)
            .is_some_and(|r| r.is_empty() || r.starts_with([' ', '(', '\t', '\n']))
    });
    if loop_word == Some("for") {
        return Some(
            "a probe's `for` is bpftrace's range loop over constants, `for ($i : 0..4) { ... }` \
             (unrolled: a probe's control flow is a DAG); a kernel's own loops are attach \
             points (`loop:header`, `loop:backedge`, `loop:exit`)"
                .into(),
        );
    }
    if let Some(w) = loop_word {
        return Some(format!(
            "probes have no `{w}` loops (a probe's control flow is a DAG): `unroll(N) {{ ... }}` \
             repeats a body N times, and a kernel's own loops are attach points \
             (`loop:header`, `loop:backedge`, `loop:exit`)"
        ));
    }
    // In a condition: a predicate (`/…/` in a block's header, before its `{`) or an `if`.
    let in_predicate = before
        .rfind(['{', '}'])
        .is_none_or(|i| before[i..].starts_with('}'))
        && stmt.contains('/');
    let condition = in_predicate || word.starts_with("if");
    (condition && rest.starts_with('=') && !rest.starts_with("=="))
        .then(|| "`=` assigns; to compare, write `==`".into())
}
