//! Offset formulas with two readings: an interval evaluation (cheap, sound, incomplete)
//! and a z3 bit-vector term (complete for these formulas). An obligation "the bytes at
//! this offset lie in `[lo, hi)`" is first tried with intervals and goes to z3 only when
//! they cannot discharge it.

use crate::obligation::{Method, Verdict};
use crate::smt::{self, k64, Outcome};
use z3::ast::{Bool, BV};

/// A 64-bit unsigned expression over bounded variables.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Expr {
    /// A named input in `[lo, hi]`.
    Var(&'static str, u64, u64),
    /// A constant.
    K(u64),
    /// Wrapping sum.
    Add(Box<Expr>, Box<Expr>),
    /// Wrapping difference.
    Sub(Box<Expr>, Box<Expr>),
    /// Wrapping product.
    Mul(Box<Expr>, Box<Expr>),
    /// Unsigned quotient (by a non-zero constant).
    Div(Box<Expr>, u64),
    /// Unsigned remainder (by a non-zero constant).
    Rem(Box<Expr>, u64),
    /// `if c then a else b`.
    Ite(Box<Cond>, Box<Expr>, Box<Expr>),
}

/// A condition of an [`Expr::Ite`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Cond {
    /// Unsigned `a >= b`.
    Uge(Expr, Expr),
    /// Unsigned `a > b`.
    Ugt(Expr, Expr),
    /// Signed `a < b`.
    Slt(Expr, Expr),
    /// Signed `a >= b`.
    Sge(Expr, Expr),
    /// `a == b`.
    Eq(Expr, Expr),
}

#[allow(clippy::should_implement_trait)] // builders, not operator overloads
impl Expr {
    pub(crate) fn add(self, o: Expr) -> Expr {
        Expr::Add(Box::new(self), Box::new(o))
    }
    pub(crate) fn sub(self, o: Expr) -> Expr {
        Expr::Sub(Box::new(self), Box::new(o))
    }
    pub(crate) fn mul(self, o: Expr) -> Expr {
        Expr::Mul(Box::new(self), Box::new(o))
    }
    pub(crate) fn div(self, k: u64) -> Expr {
        Expr::Div(Box::new(self), k)
    }
    pub(crate) fn rem(self, k: u64) -> Expr {
        Expr::Rem(Box::new(self), k)
    }
    pub(crate) fn ite(c: Cond, a: Expr, b: Expr) -> Expr {
        Expr::Ite(Box::new(c), Box::new(a), Box::new(b))
    }

    /// `[lo, hi]` of every value, or `None` when an operation may wrap.
    pub(crate) fn range(&self) -> Option<(u64, u64)> {
        Some(match self {
            Expr::Var(_, lo, hi) => (*lo, *hi),
            Expr::K(v) => (*v, *v),
            Expr::Add(a, b) => {
                let (a, b) = (a.range()?, b.range()?);
                (a.0.checked_add(b.0)?, a.1.checked_add(b.1)?)
            }
            Expr::Sub(a, b) => {
                let (a, b) = (a.range()?, b.range()?);
                (a.0.checked_sub(b.1)?, a.1.checked_sub(b.0)?)
            }
            Expr::Mul(a, b) => {
                let (a, b) = (a.range()?, b.range()?);
                (a.0.checked_mul(b.0)?, a.1.checked_mul(b.1)?)
            }
            Expr::Div(a, k) => {
                let a = a.range()?;
                (a.0.checked_div(*k)?, a.1.checked_div(*k)?)
            }
            Expr::Rem(a, k) => (
                0,
                a.range()
                    .map_or(k.checked_sub(1)?, |r| r.1.min(k.saturating_sub(1))),
            ),
            // A clamp `e > k ? k : e` is at most k whatever e is.
            Expr::Ite(c, a, b) => match (c.as_ref(), a.as_ref()) {
                (Cond::Ugt(e, Expr::K(k)), Expr::K(k2)) if k == k2 && e == b.as_ref() => (0, *k),
                _ => {
                    let (a, b) = (a.range()?, b.range()?);
                    (a.0.min(b.0), a.1.max(b.1))
                }
            },
        })
    }

    /// The z3 term.
    pub(crate) fn z3(&self) -> BV {
        match self {
            Expr::Var(name, ..) => BV::new_const(*name, 64),
            Expr::K(v) => k64(*v),
            Expr::Add(a, b) => a.z3().bvadd(b.z3()),
            Expr::Sub(a, b) => a.z3().bvsub(b.z3()),
            Expr::Mul(a, b) => a.z3().bvmul(b.z3()),
            Expr::Div(a, k) => a.z3().bvudiv(k64(*k)),
            Expr::Rem(a, k) if k.is_power_of_two() => a.z3().bvand(k64(k - 1)),
            Expr::Rem(a, k) => a.z3().bvurem(k64(*k)),
            Expr::Ite(c, a, b) => c.z3().ite(&a.z3(), &b.z3()),
        }
    }

    /// The variables, each once.
    fn vars(&self, out: &mut Vec<(&'static str, u64, u64)>) {
        match self {
            Expr::Var(n, lo, hi) => {
                if !out.iter().any(|v| v.0 == *n) {
                    out.push((n, *lo, *hi));
                }
            }
            Expr::K(_) => {}
            Expr::Add(a, b) | Expr::Sub(a, b) | Expr::Mul(a, b) => {
                a.vars(out);
                b.vars(out);
            }
            Expr::Div(a, _) | Expr::Rem(a, _) => a.vars(out),
            Expr::Ite(c, a, b) => {
                c.vars(out);
                a.vars(out);
                b.vars(out);
            }
        }
    }
}

impl Cond {
    fn z3(&self) -> Bool {
        match self {
            Cond::Uge(a, b) => a.z3().bvuge(b.z3()),
            Cond::Ugt(a, b) => a.z3().bvugt(b.z3()),
            Cond::Slt(a, b) => a.z3().bvslt(b.z3()),
            Cond::Sge(a, b) => a.z3().bvsge(b.z3()),
            Cond::Eq(a, b) => a.z3().eq(b.z3()),
        }
    }

    fn vars(&self, out: &mut Vec<(&'static str, u64, u64)>) {
        match self {
            Cond::Uge(a, b)
            | Cond::Ugt(a, b)
            | Cond::Slt(a, b)
            | Cond::Sge(a, b)
            | Cond::Eq(a, b) => {
                a.vars(out);
                b.vars(out);
            }
        }
    }
}

/// Proves `[start, start + len)` inside `[lo, hi)` for every value of the variables in
/// their ranges: by intervals if they suffice, else by z3. Returns how, the verdict and
/// the solver time.
pub(crate) fn prove_inside(start: &Expr, len: u64, lo: u64, hi: u64) -> (Method, Verdict, u64) {
    if let Some((a, b)) = start.range() {
        if a >= lo && b.checked_add(len).is_some_and(|end| end <= hi) {
            return (Method::Intervals, Verdict::Proved, 0);
        }
    }
    let mut vars = Vec::new();
    start.vars(&mut vars);
    let s = start.z3();
    let end = s.bvadd(k64(len));
    let ok = Bool::and(&[
        s.bvuge(k64(lo)),
        end.bvule(k64(hi)),
        s.bvadd_no_overflow(&k64(len), false),
    ]);
    let mut negated = vec![ok.not()];
    let mut inputs = Vec::new();
    for (name, vlo, vhi) in vars {
        let v = BV::new_const(name, 64);
        negated.push(v.bvuge(k64(vlo)));
        negated.push(v.bvule(k64(vhi)));
        inputs.push((name.to_string(), v));
    }
    let (outcome, micros): (Outcome, u64) = smt::refute(&negated, &inputs);
    (Method::Smt, Verdict::from(&outcome), micros)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_prove_a_masked_index_and_z3_the_rest() {
        let idx = Expr::Var("x", 0, u64::MAX).rem(16);
        let off = idx.mul(Expr::K(8)).add(Expr::K(16));
        let (m, v, _) = prove_inside(&off, 8, 16, 16 + 16 * 8);
        assert_eq!((m, v), (Method::Intervals, Verdict::Proved));
        // `x - 1` may wrap: z3 decides, and finds x = 0.
        let wraps = Expr::Var("x", 0, 10).sub(Expr::K(1)).mul(Expr::K(8));
        let (m, v, _) = prove_inside(&wraps, 8, 0, 80);
        assert_eq!(m, Method::Smt);
        assert!(matches!(v, Verdict::Refuted { .. }), "{v:?}");
        let guarded = Expr::ite(
            Cond::Eq(Expr::Var("x", 0, 10), Expr::K(0)),
            Expr::K(0),
            Expr::Var("x", 0, 10).sub(Expr::K(1)),
        )
        .mul(Expr::K(8));
        let (m, v, _) = prove_inside(&guarded, 8, 0, 80);
        assert_eq!((m, v), (Method::Smt, Verdict::Proved));
        // A clamp bounds even a value that may wrap.
        let e = || Expr::Var("x", 0, 10).sub(Expr::K(1));
        let clamp = Expr::ite(Cond::Ugt(e(), Expr::K(9)), Expr::K(9), e()).mul(Expr::K(8));
        let (m, v, _) = prove_inside(&clamp, 8, 0, 80);
        assert_eq!((m, v), (Method::Intervals, Verdict::Proved));
    }
}
