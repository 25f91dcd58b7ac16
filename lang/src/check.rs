//! The semantic check: AST → [`TProgram`]. Resolves attach points, builtins and
//! functions, types every expression, chooses signed or unsigned operations, checks
//! divisors and keeps each map's keys and value consistent. Errors accumulate.
//!
//! Signedness (see the crate README): literals are `i64`, builtins `u64`. An arithmetic
//! or bitwise result is signed only if both operands are; division, remainder and
//! comparisons are signed only if both operands are (C's rule for 64-bit operands);
//! shifts take the left operand's type and `>>` is arithmetic on a signed one;
//! comparisons, `!`, `&&` and `||` give 0 or 1 of type `i64`.

use crate::ast::{self, BinaryOp, Expr, ExprKind, Span, Stmt, UnaryOp};
use crate::diag::Error;
use crate::names::{self, Builtin};
use crate::typed::{TAgg, TBlock, TExpr, TKind, TProgram, TUpdate, Ty};
use std::collections::HashMap;
use warptrace_ir::{AttachSpec, BinOp, KeyType, MapDecl, MapId, MapKind, ValueKind};

/// Slots of every map of the subset.
const HASH_CAPACITY: u32 = 4096;

/// Checks a parsed program; all errors found are returned together.
pub(crate) fn check(program: &ast::Program) -> Result<TProgram, Vec<Error>> {
    let mut checker = Checker::default();
    let blocks: Vec<TBlock> = program
        .blocks
        .iter()
        .filter_map(|b| checker.block(b))
        .collect();
    if checker.errors.is_empty() {
        Ok(TProgram {
            maps: checker.maps.into_iter().map(|m| m.decl).collect(),
            blocks,
        })
    } else {
        Err(checker.errors)
    }
}

/// A map and where its keys and value were fixed.
#[derive(Debug)]
struct MapEntry {
    decl: MapDecl,
    /// The first use's map reference, keys and value.
    map_span: Span,
    key_spans: Vec<Span>,
    value_span: Span,
}

#[derive(Debug, Default)]
struct Checker {
    errors: Vec<Error>,
    maps: Vec<MapEntry>,
    map_ids: HashMap<String, usize>,
    /// The attach points of the block being checked, as written and resolved.
    attaches: Vec<(String, AttachSpec)>,
}

impl Checker {
    fn block(&mut self, block: &ast::Block) -> Option<TBlock> {
        let mut attaches = Vec::new();
        self.attaches.clear();
        for a in &block.attaches {
            match names::attach_point(&a.parts) {
                Ok((point, kernel_glob)) => {
                    let spec = AttachSpec::new(point, kernel_glob);
                    self.attaches.push((a.text(), spec.clone()));
                    attaches.push((spec, a.span));
                }
                Err(true) => self.errors.push(Error::AttachNotSupported {
                    span: a.span,
                    name: a.text(),
                }),
                Err(false) => self.errors.push(Error::UnknownAttach {
                    span: a.span,
                    name: a.text(),
                }),
            }
        }
        let predicate = block
            .predicate
            .as_ref()
            .map(|p| self.int_expr(p, "a predicate"));
        let updates: Vec<Option<TUpdate>> = block.body.iter().map(|s| self.stmt(s)).collect();
        Some(TBlock {
            attaches,
            predicate: predicate.map_or(Some(None), |p| p.map(Some))?,
            updates: updates.into_iter().collect::<Option<_>>()?,
            end: block.end,
        })
    }

    fn stmt(&mut self, stmt: &Stmt) -> Option<TUpdate> {
        let Stmt::MapAssign { map, value, span } = stmt;
        let keys: Vec<Option<TExpr>> = map.keys.iter().map(|k| self.expr(k)).collect();
        let agg = self.aggregation(value);
        let keys: Vec<TExpr> = keys.into_iter().collect::<Option<_>>()?;
        let agg = agg?;
        let id = self.map_use(map, &keys, &agg, value.span)?;
        Some(TUpdate {
            map: id,
            keys,
            agg,
            span: *span,
        })
    }

    /// The value of a map assignment: `count()` or `sum(x)`.
    fn aggregation(&mut self, value: &Expr) -> Option<TAgg> {
        let ExprKind::Call {
            name,
            name_span,
            args,
        } = &value.kind
        else {
            self.errors.push(Error::PlainAssign { span: value.span });
            return None;
        };
        let expected = match (name.as_str(), args.as_slice()) {
            ("count", []) => return Some(TAgg::Count),
            ("sum", [x]) => return Some(TAgg::Sum(self.int_expr(x, "summed")?)),
            ("count", _) => "no arguments",
            ("sum", _) => "one argument",
            _ => {
                self.errors.push(unknown_function(name, *name_span));
                return None;
            }
        };
        self.errors.push(Error::ArgCount {
            span: value.span,
            name: name.clone(),
            expected,
            found: args.len(),
        });
        None
    }

    /// Fixes a map's keys and value at its first use; checks them at later ones.
    fn map_use(
        &mut self,
        map: &ast::MapRef,
        keys: &[TExpr],
        agg: &TAgg,
        value_span: Span,
    ) -> Option<MapId> {
        let key_types: Vec<KeyType> = keys
            .iter()
            .map(|k| match k.ty {
                Ty::Kernel => KeyType::Kernel,
                Ty::Int { signed } => KeyType::Int { signed },
            })
            .collect();
        let value = match agg {
            TAgg::Count => ValueKind::Count,
            TAgg::Sum(x) => ValueKind::Sum {
                signed: x.ty == Ty::I64,
            },
        };
        let Some(&index) = self.map_ids.get(&map.name) else {
            let index = self.maps.len();
            self.maps.push(MapEntry {
                decl: MapDecl {
                    name: map.name.clone(),
                    kind: MapKind::Hash {
                        capacity: HASH_CAPACITY,
                    },
                    keys: key_types,
                    value,
                },
                map_span: map.span,
                key_spans: keys.iter().map(|k| k.span).collect(),
                value_span,
            });
            self.map_ids.insert(map.name.clone(), index);
            return map_id(index);
        };
        let first = self.maps.get(index)?;
        let name = map.name.clone();
        let error = if first.decl.keys.len() != key_types.len() {
            Some(Error::MapArity {
                span: map.span,
                first: first.map_span,
                name,
                expected: first.decl.keys.len(),
                found: key_types.len(),
            })
        } else if let Some(i) =
            (0..keys.len()).find(|&i| first.decl.keys.get(i) != key_types.get(i))
        {
            Some(Error::MapKeyType {
                span: keys.get(i).map_or(map.span, |k| k.span),
                first: first.key_spans.get(i).copied().unwrap_or(first.map_span),
                name,
                index: i + 1,
                expected: key_name(first.decl.keys.get(i)),
                found: key_name(key_types.get(i)),
            })
        } else if first.decl.value != value {
            Some(Error::MapValue {
                span: value_span,
                first: first.value_span,
                name,
                expected: value_name(&first.decl.value),
                found: value_name(&value),
            })
        } else {
            None
        };
        match error {
            Some(e) => {
                self.errors.push(e);
                None
            }
            None => map_id(index),
        }
    }

    /// An expression that must be an integer; `context` says what it is used as.
    fn int_expr(&mut self, e: &Expr, context: &str) -> Option<TExpr> {
        let t = self.expr(e)?;
        if t.ty == Ty::Kernel {
            self.errors.push(Error::KernelNotInt {
                span: t.span,
                context: context.to_string(),
            });
            return None;
        }
        Some(t)
    }

    fn expr(&mut self, e: &Expr) -> Option<TExpr> {
        let span = e.span;
        match &e.kind {
            ExprKind::Int(v) => Some(TExpr {
                kind: TKind::Const(*v),
                ty: Ty::I64,
                span,
            }),
            ExprKind::Ident(name) => self.builtin(name, span),
            ExprKind::Call {
                name, name_span, ..
            } => {
                let error = if names::FUNCTIONS.contains(&name.as_str()) {
                    Error::AggregationInExpr {
                        span,
                        name: name.clone(),
                    }
                } else {
                    unknown_function(name, *name_span)
                };
                self.errors.push(error);
                None
            }
            ExprKind::Unary(op, x) => {
                let x = self.int_expr(x, &format!("an operand of `{}`", op.symbol()))?;
                let zero = constant(0, x.span);
                Some(match op {
                    UnaryOp::Neg => TExpr::bin(BinOp::Sub, zero, x.clone(), x.ty, span),
                    UnaryOp::Not => TExpr::bin(BinOp::Eq, x, zero, Ty::I64, span),
                    UnaryOp::BitNot => {
                        let ty = x.ty;
                        TExpr::bin(BinOp::Xor, x, constant(-1, span), ty, span)
                    }
                })
            }
            ExprKind::Binary(op, a, b) => {
                let context = format!("an operand of `{}`", op.symbol());
                let a = self.int_expr(a, &context);
                let b = self.int_expr(b, &context);
                self.binary(*op, a?, b?, span)
            }
        }
    }

    fn builtin(&mut self, name: &str, span: Span) -> Option<TExpr> {
        let builtin = match names::builtin(name) {
            Ok(b) => b,
            Err(future) => {
                let name = name.to_string();
                self.errors.push(if future {
                    Error::BuiltinNotSupported { span, name }
                } else {
                    Error::UnknownBuiltin { span, name }
                });
                return None;
            }
        };
        let invalid: Vec<Error> = self
            .attaches
            .iter()
            .filter(|(_, spec)| !names::valid_at(builtin, &spec.point))
            .map(|(text, _)| Error::BuiltinNotValidAt {
                span,
                name: name.to_string(),
                attach: text.clone(),
                valid_at: names::SITE_BUILTINS_VALID_AT,
            })
            .collect();
        if !invalid.is_empty() {
            self.errors.extend(invalid);
            return None;
        }
        let ty = match builtin {
            Builtin::Special(warptrace_ir::Special::KernelId) => Ty::Kernel,
            _ => Ty::U64,
        };
        Some(TExpr {
            kind: TKind::Read(builtin),
            ty,
            span,
        })
    }

    /// Chooses the IR operation and the result type of `a op b`.
    fn binary(&mut self, op: BinaryOp, a: TExpr, b: TExpr, span: Span) -> Option<TExpr> {
        let signed = a.ty == Ty::I64 && b.ty == Ty::I64;
        let both = Ty::Int { signed };
        let pick = |s: BinOp, u: BinOp| if signed { s } else { u };
        let (ir, ty) = match op {
            BinaryOp::LogOr | BinaryOp::LogAnd => {
                let ir = if op == BinaryOp::LogOr {
                    BinOp::Or
                } else {
                    BinOp::And
                };
                return Some(TExpr::bin(ir, truth(a), truth(b), Ty::I64, span));
            }
            BinaryOp::BitOr => (BinOp::Or, both),
            BinaryOp::BitXor => (BinOp::Xor, both),
            BinaryOp::BitAnd => (BinOp::And, both),
            BinaryOp::Eq => (BinOp::Eq, Ty::I64),
            BinaryOp::Ne => (BinOp::Ne, Ty::I64),
            BinaryOp::Lt => (pick(BinOp::LtS, BinOp::LtU), Ty::I64),
            BinaryOp::Le => (pick(BinOp::LeS, BinOp::LeU), Ty::I64),
            BinaryOp::Gt => (pick(BinOp::GtS, BinOp::GtU), Ty::I64),
            BinaryOp::Ge => (pick(BinOp::GeS, BinOp::GeU), Ty::I64),
            BinaryOp::Shl => (BinOp::Shl, a.ty),
            BinaryOp::Shr => (
                if a.ty == Ty::I64 {
                    BinOp::ShrS
                } else {
                    BinOp::ShrU
                },
                a.ty,
            ),
            BinaryOp::Add => (BinOp::Add, both),
            BinaryOp::Sub => (BinOp::Sub, both),
            BinaryOp::Mul => (BinOp::Mul, both),
            BinaryOp::Div | BinaryOp::Rem => {
                match b.constant() {
                    Some(0) => self.errors.push(Error::DivisionByZero { span: b.span }),
                    Some(_) => {}
                    None => self.errors.push(Error::DivisorMayBeZero { span: b.span }),
                }
                b.constant().filter(|d| *d != 0)?;
                let ir = match op {
                    BinaryOp::Div => pick(BinOp::DivS, BinOp::DivU),
                    _ => pick(BinOp::RemS, BinOp::RemU),
                };
                (ir, both)
            }
        };
        Some(TExpr::bin(ir, a, b, ty, span))
    }
}

fn constant(value: i64, span: Span) -> TExpr {
    TExpr {
        kind: TKind::Const(value),
        ty: Ty::I64,
        span,
    }
}

/// `x != 0` as 0 or 1 (`x` itself when it already is).
fn truth(x: TExpr) -> TExpr {
    if x.is_truth() {
        return x;
    }
    let span = x.span;
    TExpr::bin(BinOp::Ne, x, constant(0, span), Ty::I64, span)
}

fn unknown_function(name: &str, span: Span) -> Error {
    let name = name.to_string();
    if names::is_future_function(&name) {
        Error::FunctionNotSupported { span, name }
    } else {
        Error::UnknownFunction { span, name }
    }
}

fn map_id(index: usize) -> Option<MapId> {
    u32::try_from(index).ok().map(MapId)
}

fn key_name(key: Option<&KeyType>) -> &'static str {
    match key {
        Some(KeyType::Kernel) => Ty::Kernel.name(),
        Some(KeyType::Int { signed: true }) => Ty::I64.name(),
        Some(KeyType::Int { signed: false }) => Ty::U64.name(),
        None => "missing",
    }
}

fn value_name(value: &ValueKind) -> &'static str {
    match value {
        ValueKind::Count => "count()",
        ValueKind::Sum { signed: true } => "sum() of i64",
        ValueKind::Sum { signed: false } => "sum() of u64",
        // Not produced by the language yet.
        ValueKind::Min { .. } => "min()",
        ValueKind::Max { .. } => "max()",
        ValueKind::Avg { .. } => "avg()",
        ValueKind::Stats { .. } => "stats()",
        ValueKind::Hist => "hist()",
        ValueKind::Lhist { .. } => "lhist()",
        ValueKind::Value { .. } => "a value",
        ValueKind::Record(_) => "records",
        ValueKind::Printf { .. } => "printf records",
    }
}
