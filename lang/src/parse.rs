//! Source text → [`ast::Program`]: the pest grammar (`grammar.pest`), precedence
//! climbing for binary operators, and pest's errors turned into readable ones.

use crate::ast::{self, BinaryOp, Block, Expr, ExprKind, MapRef, Span, Stmt, UnaryOp};
use crate::diag::{Error, MAX_DEPTH};
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
    let pairs =
        Grammar::parse(Rule::program, source).map_err(|e| vec![syntax_error(source, &e)])?;
    let mut builder = Builder { errors: Vec::new() };
    let mut blocks = Vec::new();
    for program in pairs {
        for pair in program.into_inner() {
            if pair.as_rule() == Rule::block {
                blocks.push(builder.block(pair));
            }
        }
    }
    if builder.errors.is_empty() {
        Ok(ast::Program { blocks })
    } else {
        Err(builder.errors)
    }
}

/// An expression and the depth of its tree.
type Node = (Expr, usize);

struct Builder {
    errors: Vec<Error>,
}

impl Builder {
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
                        .map(|a| ast::Attach {
                            parts: a.as_str().split(':').map(str::to_string).collect(),
                            span: a.as_span().into(),
                        })
                        .collect();
                }
                Rule::predicate => {
                    block.predicate = p
                        .into_inner()
                        .find(|e| e.as_rule() == Rule::expr)
                        .and_then(|e| self.top_expr(e));
                }
                Rule::body => {
                    for s in p.into_inner() {
                        match s.as_rule() {
                            Rule::map_assign => block.body.extend(self.map_assign(s)),
                            Rule::rbrace => block.end = s.as_span().into(),
                            _ => {}
                        }
                    }
                }
                _ => {}
            }
        }
        block
    }

    fn map_assign(&mut self, pair: Pair<'_, Rule>) -> Option<Stmt> {
        let span = Span::from(pair.as_span());
        let mut map = None;
        let mut value = None;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::map => map = Some(self.map_ref(p)),
                Rule::expr => value = self.top_expr(p),
                _ => {}
            }
        }
        Some(Stmt::MapAssign {
            map: map?,
            value: value?,
            span,
        })
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

    /// `operand (infix operand)*`, by precedence climbing. `nesting` counts the
    /// parentheses and calls around it.
    fn expr(&mut self, pair: Pair<'_, Rule>, nesting: usize) -> Result<Node, Error> {
        let span = Span::from(pair.as_span());
        if nesting > MAX_DEPTH {
            return Err(Error::TooDeep { span });
        }
        let mut operands = VecDeque::new();
        let mut ops = VecDeque::new();
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::operand => operands.push_back(self.operand(p, nesting)?),
                rule => ops.extend(binary_op(rule)),
            }
        }
        let node = climb(&mut operands, &mut ops, 0, span)?;
        Ok(node)
    }

    /// `prefix* primary`
    fn operand(&mut self, pair: Pair<'_, Rule>, nesting: usize) -> Result<Node, Error> {
        let whole = Span::from(pair.as_span());
        let mut prefixes = Vec::new();
        let mut primary = None;
        for p in pair.into_inner() {
            let span = Span::from(p.as_span());
            match p.as_rule() {
                Rule::neg => prefixes.push((UnaryOp::Neg, span)),
                Rule::not => prefixes.push((UnaryOp::Not, span)),
                Rule::bit_not => prefixes.push((UnaryOp::BitNot, span)),
                Rule::lparen | Rule::rparen => {}
                Rule::expr => primary = Some(self.expr(p, nesting + 1)?),
                Rule::call => primary = Some(self.call(p, nesting)?),
                Rule::ident => {
                    let kind = ExprKind::Ident(p.as_str().to_string());
                    primary = Some((Expr { kind, span }, 1));
                }
                Rule::dec | Rule::hex => {
                    let kind = ExprKind::Int(int_literal(p.as_rule(), p.as_str(), span)?);
                    primary = Some((Expr { kind, span }, 1));
                }
                _ => {}
            }
        }
        let (mut expr, mut depth) = primary.ok_or_else(|| malformed(whole))?;
        for (op, span) in prefixes.into_iter().rev() {
            depth += 1;
            let span = span.to(expr.span);
            if depth > MAX_DEPTH {
                return Err(Error::TooDeep { span });
            }
            expr = Expr {
                kind: ExprKind::Unary(op, Box::new(expr)),
                span,
            };
        }
        Ok((expr, depth))
    }

    /// `name(args)`
    fn call(&mut self, pair: Pair<'_, Rule>, nesting: usize) -> Result<Node, Error> {
        let span = Span::from(pair.as_span());
        let mut name = (String::new(), span);
        let mut args = Vec::new();
        let mut depth = 1;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::name => name = (p.as_str().to_string(), p.as_span().into()),
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
            return Err(Error::TooDeep { span });
        }
        lhs = Expr {
            kind: ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)),
            span,
        };
    }
    Ok((lhs, depth))
}

fn binary_op(rule: Rule) -> Option<BinaryOp> {
    use BinaryOp::*;
    Some(match rule {
        Rule::log_or => LogOr,
        Rule::log_and => LogAnd,
        Rule::bit_or => BitOr,
        Rule::bit_xor => BitXor,
        Rule::bit_and => BitAnd,
        Rule::eq => Eq,
        Rule::ne => Ne,
        Rule::lt => Lt,
        Rule::le => Le,
        Rule::gt => Gt,
        Rule::ge => Ge,
        Rule::shl => Shl,
        Rule::shr => Shr,
        Rule::add => Add,
        Rule::sub => Sub,
        Rule::mul => Mul,
        Rule::div => Div,
        Rule::rem => Rem,
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
        Rule::block | Rule::attach_list | Rule::attach => "attach point",
        Rule::predicate => "predicate",
        Rule::body => "`{`",
        Rule::map_assign | Rule::map | Rule::map_name => "statement",
        Rule::expr
        | Rule::operand
        | Rule::call
        | Rule::ident
        | Rule::name
        | Rule::hex
        | Rule::dec
        | Rule::neg
        | Rule::not
        | Rule::bit_not => "expression",
        Rule::comma => "`,`",
        Rule::semi => "`;`",
        Rule::slash => "`/`",
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
