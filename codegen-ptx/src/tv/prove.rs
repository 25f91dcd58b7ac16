//! The z3 query of an obligation: inputs satisfying the assumptions where some goal
//! fails, or a proof that there are none.
//!
//! Three sound steps keep the queries small:
//!
//! - the hardware registers are narrowed to the bits their limits allow
//!   (`ir::hw_narrowing`);
//! - a claim the z3 simplifier reduces to `true` is proved without a search;
//! - otherwise the claim is first checked with every division and remainder replaced by a
//!   fresh constant constrained by a few facts of SMT-LIB's definitions (`x / 1 = x`,
//!   `x /s -1 = -x`, `x % ±1 = 0`, `x / 2^k = x >> k`, `x % 2^k = x & (2^k - 1)`): a
//!   proof for every such constant is a proof for the
//!   division. Only if that finds a counterexample (possibly spurious) is the exact claim,
//!   with its dividers bit-blasted, checked; its answer is the result.

use super::ir;
use super::ptx::Val;
use super::TvOutcome;
use std::collections::HashSet;
use z3::ast::{Ast, Bool, Dynamic, BV};
use z3::{DeclKind, SatResult, Solver};

/// One conjunct of a claim: a label, the formula, and terms to show in a counterexample.
#[derive(Clone)]
pub(crate) struct Goal {
    pub label: String,
    pub holds: Bool,
    pub sides: Vec<(String, Val)>,
}

impl Goal {
    /// `ptx == spec`, under `when` if given.
    pub fn eq(label: impl Into<String>, ptx: &BV, spec: &BV, when: Option<&Bool>) -> Goal {
        let e = ptx.eq(spec);
        Goal {
            label: label.into(),
            holds: match when {
                Some(w) => w.implies(&e),
                None => e,
            },
            sides: vec![
                ("ptx".into(), Val::Bv(ptx.clone())),
                ("ir".into(), Val::Bv(spec.clone())),
            ],
        }
    }

    /// A formula that must hold.
    pub fn holds(label: impl Into<String>, holds: Bool) -> Goal {
        Goal {
            label: label.into(),
            holds,
            sides: Vec::new(),
        }
    }
}

fn substitute_val(v: &Val, pairs: &[(&BV, &BV)]) -> Val {
    match v {
        Val::Bv(b) => Val::Bv(b.substitute(pairs)),
        Val::Pred(p) => Val::Pred(p.substitute(pairs)),
    }
}

fn show(model: &z3::Model, v: &Val) -> String {
    match v {
        Val::Bv(b) => match model.eval(b, true).and_then(|x| x.as_u64()) {
            Some(x) if b.get_size() <= 64 => format!("{x:#x}"),
            _ => "?".into(),
        },
        Val::Pred(p) => match model.eval(p, true).and_then(|x| x.as_bool()) {
            Some(x) => x.to_string(),
            None => "?".into(),
        },
    }
}

/// Every division or remainder application in `roots`: `(term, kind, a, b)`.
fn divisions(roots: &[Dynamic]) -> Vec<(BV, DeclKind, BV, BV)> {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    let mut stack: Vec<Dynamic> = roots.to_vec();
    while let Some(t) = stack.pop() {
        if !t.is_app() || !seen.insert(t.get_z3_ast()) {
            continue;
        }
        let kind = t.decl().kind();
        let children = t.children();
        if matches!(
            kind,
            DeclKind::Budiv | DeclKind::Bsdiv | DeclKind::Burem | DeclKind::Bsrem
        ) {
            if let (Some(term), Some(a), Some(b)) = (
                t.as_bv(),
                children.first().and_then(Dynamic::as_bv),
                children.get(1).and_then(Dynamic::as_bv),
            ) {
                out.push((term, kind, a, b));
            }
        }
        stack.extend(children);
    }
    out
}

/// The claim with its divisions abstracted: substituted formulas and the facts that
/// constrain the fresh constants.
fn abstract_divisions(pre: &[Bool], goal: &Bool) -> Option<(Vec<Bool>, Bool, Vec<Bool>)> {
    let mut roots: Vec<Dynamic> = pre.iter().map(Dynamic::from).collect();
    roots.push(Dynamic::from(goal));
    let found = divisions(&roots);
    if found.is_empty() {
        return None;
    }
    let mut pairs = Vec::new();
    let mut facts = Vec::new();
    for (i, (term, kind, a, b)) in found.into_iter().enumerate() {
        let w = term.get_size();
        let x = BV::new_const(format!("division#{i}"), w);
        let (one, minus_one) = (BV::from_u64(1, w), BV::from_i64(-1, w));
        let zero = BV::from_u64(0, w);
        // By a constant power of two: a shift, a mask.
        if let Some(k) = b
            .as_u64()
            .filter(|v| v.is_power_of_two())
            .map(u64::trailing_zeros)
        {
            match kind {
                DeclKind::Budiv => facts.push(x.eq(a.bvlshr(BV::from_u64(u64::from(k), w)))),
                DeclKind::Burem => facts.push(x.eq(a.bvand(BV::from_u64((1 << k) - 1, w)))),
                _ => {}
            }
        }
        match kind {
            DeclKind::Budiv => facts.push(b.eq(&one).implies(x.eq(&a))),
            DeclKind::Burem => facts.push(b.eq(&one).implies(x.eq(&zero))),
            DeclKind::Bsdiv => {
                facts.push(b.eq(&one).implies(x.eq(&a)));
                facts.push(b.eq(&minus_one).implies(x.eq(a.bvneg())));
            }
            _ => {
                let unit = Bool::or(&[b.eq(&one), b.eq(&minus_one)]);
                facts.push(unit.implies(x.eq(&zero)));
            }
        }
        pairs.push((term, x));
    }
    let p: Vec<(&BV, &BV)> = pairs.iter().map(|(t, x)| (t, x)).collect();
    // The facts mention the operands, which may contain other divisions.
    let facts = facts.iter().map(|f| f.substitute(&p)).collect();
    let pre = pre.iter().map(|f| f.substitute(&p)).collect();
    Some((pre, goal.substitute(&p), facts))
}

thread_local! {
    /// A solver kept per thread for the abstracted queries, used incrementally (push/pop):
    /// it saves setting one up for each small query.
    static QUICK: Solver = solver();
}

/// The verifier's solver configuration: a deterministic resource limit, no timer.
fn solver() -> Solver {
    warptrace_verifier::solver()
}

/// Asks z3 for inputs satisfying `pre` where some goal fails; `inputs` are shown in a
/// counterexample. The goals are first checked as one query, then, if z3 gives up on it,
/// one by one.
pub(crate) fn prove(pre: &[Bool], goals: &[Goal], inputs: &[(String, Val)]) -> TvOutcome {
    prove_in(pre, goals, inputs, Mode::Shared)
}

/// How a claim is put to z3.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// The claim with divisions abstracted on the thread's incremental solver first (small
    /// claims: it saves setting one up), then exactly, then goal by goal.
    Shared,
    /// Fresh solvers only: large claims would leave the shared solver slow for every later
    /// query of the thread.
    Fresh,
    /// Goal by goal from the start, each on fresh solvers (claims whose conjunction is too
    /// large for one query: the warp model's collectives).
    Each,
}

/// [`prove`] in `mode`.
pub(crate) fn prove_in(
    pre: &[Bool],
    goals: &[Goal],
    inputs: &[(String, Val)],
    mode: Mode,
) -> TvOutcome {
    let narrowing = ir::hw_narrowing();
    let pairs: Vec<(&BV, &BV)> = narrowing.iter().map(|(a, b)| (a, b)).collect();
    let pre: Vec<Bool> = pre.iter().map(|p| p.substitute(&pairs)).collect();
    let goals: Vec<Goal> = goals
        .iter()
        .map(|g| Goal {
            label: g.label.clone(),
            holds: g.holds.substitute(&pairs),
            sides: g
                .sides
                .iter()
                .map(|(n, v)| (n.clone(), substitute_val(v, &pairs)))
                .collect(),
        })
        .collect();
    let all: Vec<&Bool> = goals.iter().map(|g| &g.holds).collect();
    let claim = Bool::and(&all);
    if claim.simplify().as_bool() == Some(true) {
        return TvOutcome::Proved;
    }
    let outcome = match mode {
        Mode::Each => TvOutcome::Unknown {
            reason: "goal by goal".into(),
        },
        Mode::Shared => {
            if let Some((abs_pre, abs_claim, facts)) = abstract_divisions(&pre, &claim) {
                let proved = QUICK.with(|s| {
                    s.push();
                    for p in abs_pre.iter().chain(&facts) {
                        s.assert(p);
                    }
                    s.assert(abs_claim.not());
                    let r = warptrace_verifier::proof_cache::check(s);
                    s.pop(1);
                    r == SatResult::Unsat
                });
                if proved {
                    return TvOutcome::Proved;
                }
            }
            check(&pre, &claim, &goals, inputs, &pairs)
        }
        Mode::Fresh => {
            if abstracted_holds(&pre, &claim) {
                return TvOutcome::Proved;
            }
            check(&pre, &claim, &goals, inputs, &pairs)
        }
    };
    if !matches!(outcome, TvOutcome::Unknown { .. }) || goals.len() < 2 {
        return outcome;
    }
    // In parts (the claim holds if and only if each part does): with `Each`, the goals
    // about one lane together and each goal naming other lanes' values alone; after a
    // conjunction z3 gave up on, every goal alone.
    let (lane, warp): (Vec<&Goal>, Vec<&Goal>) = match mode {
        Mode::Each => goals.iter().partition(|g| !names_lanes(&g.holds)),
        _ => (Vec::new(), goals.iter().collect()),
    };
    let lane: Vec<Goal> = lane.into_iter().cloned().collect();
    let mut parts: Vec<&[Goal]> = Vec::new();
    if !lane.is_empty() {
        parts.push(&lane);
    }
    parts.extend(warp.into_iter().map(std::slice::from_ref));
    for part in parts {
        let all: Vec<&Bool> = part.iter().map(|g| &g.holds).collect();
        let claim = Bool::and(&all);
        if abstracted_holds(&pre, &claim) {
            continue;
        }
        let outcome = check(&pre, &claim, part, inputs, &pairs);
        if !outcome.is_proved() {
            return outcome;
        }
    }
    TvOutcome::Proved
}

/// Whether `claim` holds with its divisions abstracted (fresh solver); false if it has no
/// division or that finds a (possibly spurious) counterexample.
fn abstracted_holds(pre: &[Bool], claim: &Bool) -> bool {
    let Some((abs_pre, abs_claim, facts)) = abstract_divisions(pre, claim) else {
        return false;
    };
    let s = solver();
    for p in abs_pre.iter().chain(&facts) {
        s.assert(p);
    }
    s.assert(abs_claim.not());
    warptrace_verifier::proof_cache::check(&s) == SatResult::Unsat
}

/// Whether `claim` names another lane's value (a constant `NAME@lane` of the warp
/// model).
fn names_lanes(claim: &Bool) -> bool {
    let mut seen = HashSet::new();
    let mut stack = vec![Dynamic::from(claim.clone())];
    while let Some(t) = stack.pop() {
        if !t.is_app() || !seen.insert(t.get_z3_ast()) {
            continue;
        }
        if t.num_children() == 0 {
            if t.kind() == z3::AstKind::App && t.decl().name().contains('@') {
                return true;
            }
        } else {
            stack.extend(t.children());
        }
    }
    false
}

/// One query: inputs satisfying `pre` where `claim` fails.
fn check(
    pre: &[Bool],
    claim: &Bool,
    goals: &[Goal],
    inputs: &[(String, Val)],
    pairs: &[(&BV, &BV)],
) -> TvOutcome {
    let s = solver();
    for p in pre {
        s.assert(p);
    }
    s.assert(claim.not());
    // Asked again with a larger limit if z3 gives up: the warp model's hardest
    // collectives came within 2x of the limit on one run and past it on another.
    match warptrace_verifier::check_with_retry(&s, warptrace_verifier::SOLVER_RLIMIT) {
        SatResult::Unsat => TvOutcome::Proved,
        SatResult::Unknown => TvOutcome::Unknown {
            reason: s.get_reason_unknown().unwrap_or_else(|| "unknown".into()),
        },
        SatResult::Sat => match s.get_model() {
            None => TvOutcome::Unknown {
                reason: "sat without a model".into(),
            },
            Some(model) => TvOutcome::Refuted {
                counterexample: counterexample(&model, goals, inputs, pairs),
            },
        },
    }
}

fn counterexample(
    model: &z3::Model,
    goals: &[Goal],
    inputs: &[(String, Val)],
    narrowing: &[(&BV, &BV)],
) -> String {
    let failing = goals
        .iter()
        .find(|g| model.eval(&g.holds, true).and_then(|b| b.as_bool()) == Some(false));
    let mut s = match failing {
        Some(g) => {
            let sides: Vec<String> = g
                .sides
                .iter()
                .map(|(n, v)| format!("{n} = {}", show(model, v)))
                .collect();
            format!("{} fails ({})", g.label, sides.join(", "))
        }
        None => "a goal fails".into(),
    };
    let shown: Vec<String> = inputs
        .iter()
        .map(|(n, v)| format!("{n} = {}", show(model, &substitute_val(v, narrowing))))
        .collect();
    if !shown.is_empty() {
        s.push_str(" with ");
        s.push_str(&shown.join(", "));
    }
    s
}
