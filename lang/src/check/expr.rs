//! Expressions: names, types, operator choice, constant folding, divisors.
//!
//! Types (see `docs/language.md`): literals are `i64` but take the type expected of
//! them where their value fits; builtins are `u32` or `u64` (their width), `kernel` is a
//! kernel id. An arithmetic result has its operands' type when they agree, else 64 bits,
//! signed only if both are (C's rule for 64-bit operands); `bool` promotes to `i64`.
//! Comparisons are signed only if that common type is. Values narrower than 64 bits are
//! re-normalised (`zext`/`sext`) after operations that may leave their range.

use super::Checker;
use crate::ast::{BinaryOp, Expr, ExprKind, Span, TypeName, UnaryOp};
use crate::diag::Error;
use crate::names::{self, Builtin};
use crate::typed::{TExpr, TKind, Ty};
use warptrace_ir::{BinOp, Special};

impl Checker<'_> {
    /// An expression that must be an integer; `context` says what it is used as.
    /// (`context` is only formatted for the error.)
    pub(super) fn int_expr(
        &mut self,
        e: &Expr<'_>,
        context: impl std::fmt::Display,
    ) -> Option<TExpr> {
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

    /// A predicate or condition: an integer, non-zero for true.
    pub(super) fn cond_expr(
        &mut self,
        e: &Expr<'_>,
        context: impl std::fmt::Display,
    ) -> Option<TExpr> {
        self.int_expr(e, context)
    }

    /// The value of an assignment: any expression but a record.
    pub(super) fn value_expr(&mut self, e: &Expr<'_>) -> Option<TExpr> {
        if let ExprKind::Call { name, args, .. } = &e.kind {
            if names::function(name).is_some_and(|f| f.is_aggregation()) {
                // `$x = count()`: an aggregation needs a map.
                let _ = args;
                self.errors.push(Error::AggregationInExpr {
                    span: e.span,
                    name: name.to_string(),
                });
                return None;
            }
        }
        self.expr(e)
    }

    pub(super) fn expr(&mut self, e: &Expr<'_>) -> Option<TExpr> {
        let span = e.span;
        match &e.kind {
            ExprKind::Int(v) => Some(TExpr::literal(*v, span)),
            ExprKind::Str(_) => self.misplaced(
                span,
                "a string can only be a map key, a printf format or argument, or a kernel's \
                 name compared with `kernel`",
                "e.g. `@ops[\"load\"] = count()`, `printf(\"%s\", \"text\")` or `kernel == \"softmax_kernel\"`",
            ),
            ExprKind::Tuple(_) => self.misplaced(
                span,
                "a record `(a, b, ...)` can only be assigned to a map",
                "e.g. `@trace = (clock64, smid)` appends a record to a ring",
            ),
            ExprKind::Ident(name) => self.builtin(name, span),
            ExprKind::Scratch(name) => self.scratch_read(name, span),
            ExprKind::Persist(name) => self.persist_read(name, span),
            ExprKind::Map(_) => {
                self.errors.push(Error::Unsupported {
                    span,
                    what: "reading a map's value",
                    missing: "map lookup: probes write maps, print() shows them",
                });
                None
            }
            ExprKind::Call {
                name, name_span, ..
            } => {
                self.errors.push(match names::function(name) {
                    Some(f) if f.is_aggregation() => Error::AggregationInExpr {
                        span,
                        name: name.to_string(),
                    },
                    Some(_) => Error::StatementCall {
                        span,
                        name: name.to_string(),
                    },
                    None => Error::UnknownFunction {
                        span: *name_span,
                        name: name.to_string(),
                    },
                });
                None
            }
            ExprKind::Unary(op, x) => {
                let x = self.int_expr(x, format_args!("an operand of `{}`", op.symbol()))?;
                Some(unary(*op, x, span))
            }
            ExprKind::Binary(op, a, b)
                if matches!(a.kind, ExprKind::Str(_)) || matches!(b.kind, ExprKind::Str(_)) =>
            {
                self.kernel_name_test(*op, a, b, span)
            }
            ExprKind::Binary(op, a, b) => {
                let a = self.int_expr(a, format_args!("an operand of `{}`", op.symbol()));
                let b = self.int_expr(b, format_args!("an operand of `{}`", op.symbol()));
                self.binary(*op, a?, b?, span)
            }
            ExprKind::Cond(c, a, b) => {
                let c = self.cond_expr(c, "a condition");
                let a = self.expr(a);
                let b = self.expr(b);
                self.conditional(c?, a?, b?, span)
            }
            ExprKind::Cast(ty, x) => {
                let x = self.int_expr(x, "cast")?;
                Some(cast(*ty, x, span))
            }
        }
    }

    fn misplaced(
        &mut self,
        span: Span,
        message: &'static str,
        hint: &'static str,
    ) -> Option<TExpr> {
        self.errors.push(Error::Misplaced {
            span,
            message,
            hint,
        });
        None
    }

    fn builtin(&mut self, name: &str, span: Span) -> Option<TExpr> {
        let Some((builtin, validity, valid_at)) = names::builtin(name) else {
            self.errors.push(Error::UnknownBuiltin {
                span,
                name: name.to_string(),
            });
            return None;
        };
        let invalid: Vec<Error> = self
            .targets
            .iter()
            .filter(|(_, t)| !names::valid_at(builtin, validity, t))
            .map(|(text, _)| Error::BuiltinNotValidAt {
                span,
                name: name.to_string(),
                attach: text.clone(),
                valid_at,
            })
            .collect();
        if !invalid.is_empty() {
            self.errors.extend(invalid);
            return None;
        }
        let ty = match builtin {
            Builtin::Special(Special::KernelId) => Ty::Kernel,
            Builtin::Special(s) if s.bits() < 64 => Ty::Int {
                bits: 32,
                signed: false,
            },
            _ => Ty::U64,
        };
        Some(TExpr {
            kind: TKind::Read(builtin),
            ty,
            span,
            literal: false,
        })
    }

    fn scratch_read(&mut self, name: &str, span: Span) -> Option<TExpr> {
        let var = self.scratch_ids.get(name).copied();
        let set = var.and_then(|v| self.assigned.get(v as usize).copied());
        match (var, set) {
            (Some(var), Some(true)) => {
                let ty = self.scratch.get(var as usize)?.ty;
                Some(TExpr {
                    kind: TKind::Scratch(var),
                    ty,
                    span,
                    literal: false,
                })
            }
            _ => {
                let earlier = var
                    .and_then(|v| self.scratch.get(v as usize))
                    .map(|v| v.first);
                self.errors.push(Error::UsedBeforeSet {
                    span,
                    name: name.to_string(),
                    earlier,
                });
                None
            }
        }
    }

    fn persist_read(&mut self, name: &str, span: Span) -> Option<TExpr> {
        self.device_only(span, format_args!("persistent register `%{name}`"))?;
        let slot = self.persist_slot(name);
        let known = self.persist.get(slot).and_then(|p| p.ty);
        self.needs_prior |= known.is_none();
        let prior = self.prior.and_then(|p| p.persist.get(name)).copied();
        // The first pass does not know the type of a register whose first assignment
        // reads it (`%n = %n + 1`): it takes `u64` there, which that assignment then fixes.
        let placeholder = self.prior.is_none().then_some((Ty::U64, span));
        let Some((ty, _)) = known.or(prior).or(placeholder) else {
            self.errors.push(Error::PersistNeverSet {
                span,
                name: name.to_string(),
            });
            return None;
        };
        Some(TExpr {
            kind: TKind::Persist(warptrace_ir::PersistId(u32::try_from(slot).ok()?)),
            ty,
            span,
            literal: false,
        })
    }

    /// Chooses the IR operation and the result type of `a op b`.
    fn binary(&mut self, op: BinaryOp, a: TExpr, b: TExpr, span: Span) -> Option<TExpr> {
        if matches!(op, BinaryOp::LogOr | BinaryOp::LogAnd) {
            let ir = if op == BinaryOp::LogOr {
                BinOp::Or
            } else {
                BinOp::And
            };
            return Some(TExpr::bin(ir, truth(a), truth(b), Ty::Bool, span, false));
        }
        if matches!(op, BinaryOp::Shl | BinaryOp::Shr) {
            let ty = a.ty.promoted();
            let a = retype(a, ty);
            return Some(match op {
                BinaryOp::Shl => TExpr::bin(BinOp::Shl, a, b, ty, span, true),
                _ if ty.is_signed() => TExpr::bin(BinOp::ShrS, a, b, ty, span, false),
                _ => TExpr::bin(BinOp::ShrU, a, b, ty, span, false),
            });
        }
        let ty = common(&a, &b);
        let (a, b) = (retype(a, ty), retype(b, ty));
        let signed = ty.is_signed();
        let pick = |s: BinOp, u: BinOp| if signed { s } else { u };
        let (ir, result, wraps) = match op {
            BinaryOp::BitOr => (BinOp::Or, ty, false),
            BinaryOp::BitXor => (BinOp::Xor, ty, false),
            BinaryOp::BitAnd => (BinOp::And, ty, false),
            BinaryOp::Eq => (BinOp::Eq, Ty::Bool, false),
            BinaryOp::Ne => (BinOp::Ne, Ty::Bool, false),
            BinaryOp::Lt => (pick(BinOp::LtS, BinOp::LtU), Ty::Bool, false),
            BinaryOp::Le => (pick(BinOp::LeS, BinOp::LeU), Ty::Bool, false),
            BinaryOp::Gt => (pick(BinOp::GtS, BinOp::GtU), Ty::Bool, false),
            BinaryOp::Ge => (pick(BinOp::GeS, BinOp::GeU), Ty::Bool, false),
            BinaryOp::Add => (BinOp::Add, ty, true),
            BinaryOp::Sub => (BinOp::Sub, ty, true),
            BinaryOp::Mul => (BinOp::Mul, ty, true),
            BinaryOp::Div | BinaryOp::Rem => {
                match b.constant() {
                    Some(0) => self.errors.push(Error::DivisionByZero { span: b.span }),
                    _ if !non_zero(&b) => {
                        self.errors.push(Error::DivisorMayBeZero { span: b.span });
                    }
                    _ => {}
                }
                if b.constant() == Some(0) || !non_zero(&b) {
                    return None;
                }
                let ir = match op {
                    BinaryOp::Div => pick(BinOp::DivS, BinOp::DivU),
                    _ => pick(BinOp::RemS, BinOp::RemU),
                };
                (ir, ty, signed)
            }
            BinaryOp::Shl | BinaryOp::Shr | BinaryOp::LogOr | BinaryOp::LogAnd => return None,
        };
        Some(TExpr::bin(ir, a, b, result, span, wraps))
    }

    /// `kernel == "name"` (or `!=`, either side): the kernel's id against the id of the
    /// kernel whose symbol is `name` (`kernel_id`: what the device sees), so the test costs
    /// the device one comparison with a constant. `name` is the symbol as the module has
    /// it: Triton's and `extern "C"` kernels' plain names, C++ kernels' mangled ones.
    fn kernel_name_test(
        &mut self,
        op: BinaryOp,
        a: &Expr<'_>,
        b: &Expr<'_>,
        span: Span,
    ) -> Option<TExpr> {
        let (text, text_span, other) = match (&a.kind, &b.kind) {
            (ExprKind::Str(t), k) if !matches!(k, ExprKind::Str(_)) => (t, a.span, b),
            (k, ExprKind::Str(t)) if !matches!(k, ExprKind::Str(_)) => (t, b.span, a),
            _ => {
                return self.misplaced(
                    span,
                    "two strings cannot be compared",
                    "compare `kernel` with a kernel's name: `kernel == \"softmax_kernel\"`",
                )
            }
        };
        let ir = match op {
            BinaryOp::Eq => BinOp::Eq,
            BinaryOp::Ne => BinOp::Ne,
            _ => {
                return self.misplaced(
                    span,
                    "a string compares only with `==` or `!=`",
                    "`kernel == \"name\"` or `kernel != \"name\"`",
                )
            }
        };
        let kernel = self.expr(other)?;
        if kernel.ty != Ty::Kernel {
            return self.misplaced(
                span,
                "a string compares only with `kernel` (kernel names are the only strings a \
                 probe sees)",
                "`kernel == \"softmax_kernel\"`; for a name pattern, put a glob on the attach \
                 point: `kernel:entry:*softmax*`",
            );
        }
        let id = TExpr {
            kind: TKind::Const(warptrace_ir::kernel_id(text) as i64),
            ty: Ty::Kernel,
            span: text_span,
            literal: false,
        };
        Some(TExpr::bin(ir, kernel, id, Ty::Bool, span, false))
    }

    /// `c ? a : b`: the arms' common type; a constant condition picks its arm.
    fn conditional(&mut self, c: TExpr, a: TExpr, b: TExpr, span: Span) -> Option<TExpr> {
        let ty = match (a.ty, b.ty) {
            (Ty::Kernel, Ty::Kernel) => Ty::Kernel,
            (Ty::Kernel, _) | (_, Ty::Kernel) => {
                let k = if a.ty == Ty::Kernel { &a } else { &b };
                self.errors.push(Error::KernelNotInt {
                    span: k.span,
                    context: "one arm of `?:` when the other is an integer".into(),
                });
                return None;
            }
            _ => common(&a, &b),
        };
        let (a, b) = (retype(a, ty), retype(b, ty));
        Some(match c.constant() {
            Some(0) => TExpr { span, ..b },
            Some(_) => TExpr { span, ..a },
            None => TExpr {
                kind: TKind::Cond(Box::new(c), Box::new(a), Box::new(b)),
                ty,
                span,
                literal: false,
            },
        })
    }
}

/// `-x` is `0 - x`, `~x` is `x ^ mask`, `!x` is `x == 0`.
fn unary(op: UnaryOp, x: TExpr, span: Span) -> TExpr {
    let ty = x.ty.promoted();
    let x = retype(x, ty);
    let zero = TExpr::literal(0, x.span);
    match op {
        UnaryOp::Neg => TExpr::bin(BinOp::Sub, zero, x, ty, span, true),
        UnaryOp::Not => TExpr::bin(BinOp::Eq, x, zero, Ty::Bool, span, false),
        UnaryOp::BitNot => {
            let literal = x.literal;
            let mask = TExpr {
                literal,
                ..TExpr::literal(ty.normalise(-1), span)
            };
            TExpr::bin(BinOp::Xor, x, mask, ty, span, false)
        }
    }
}

/// `(T)x`: wraps or extends `x` to `T`; `(bool)x` is `x != 0`.
fn cast(to: TypeName, x: TExpr, span: Span) -> TExpr {
    let ty = Ty::int(to.bits, to.signed);
    if ty == Ty::Bool {
        let zero = TExpr::literal(0, span);
        let mut t = TExpr::bin(BinOp::Ne, x, zero, Ty::Bool, span, false);
        t.literal = false;
        return t;
    }
    let from = x.ty.promoted();
    let needs_ext = match (from, ty) {
        (_, Ty::Int { bits: 64, .. }) => false,
        (
            Ty::Int {
                bits: fb,
                signed: fs,
            },
            Ty::Int {
                bits: tb,
                signed: ts,
            },
        ) => fb > tb || fs != ts,
        _ => true,
    } && x.ty != Ty::Bool;
    let t = TExpr {
        ty,
        span,
        literal: false,
        ..x
    };
    if needs_ext {
        t.normalised()
    } else {
        t
    }
}

/// The common type of two operands: a literal takes the other's type if its value
/// fits; the same type stays; otherwise 64 bits, signed only if both are.
fn common(a: &TExpr, b: &TExpr) -> Ty {
    let (ta, tb) = (a.ty.promoted(), b.ty.promoted());
    let fits = |lit: &TExpr, ty: Ty| lit.literal && lit.constant().is_some_and(|v| ty.holds(v));
    if !b.literal && fits(a, tb) {
        return tb;
    }
    if !a.literal && fits(b, ta) {
        return ta;
    }
    if ta == tb {
        return ta;
    }
    Ty::Int {
        bits: 64,
        signed: ta.is_signed() && tb.is_signed(),
    }
}

/// `e` seen as type `ty` (a wider type, or a literal that fits): the bits stay valid.
fn retype(e: TExpr, ty: Ty) -> TExpr {
    if e.ty == ty {
        return e;
    }
    let literal = e.literal;
    match e.constant() {
        Some(v) => TExpr {
            kind: TKind::Const(ty.normalise(v)),
            ty,
            literal,
            ..e
        },
        None => TExpr { ty, ..e },
    }
}

/// `x != 0` as 0 or 1 (`x` itself when it already is).
fn truth(x: TExpr) -> TExpr {
    if x.is_truth() {
        return TExpr { ty: Ty::Bool, ..x };
    }
    let span = x.span;
    TExpr::bin(BinOp::Ne, x, TExpr::literal(0, span), Ty::Bool, span, false)
}

/// Whether a divisor is provably non-zero: a non-zero constant, `x | c` with `c`
/// non-zero, or a conditional both of whose arms are.
fn non_zero(e: &TExpr) -> bool {
    match &e.kind {
        TKind::Const(v) => *v != 0,
        TKind::Bin(BinOp::Or, a, b) => non_zero(a) || non_zero(b),
        TKind::Cond(_, a, b) => non_zero(a) && non_zero(b),
        _ => false,
    }
}
