//! The obligations about memory operations (`aggregate::combine`, `hashmap::map_update`,
//! `ring::append`): the snippet's operations, in text order, against the ones the IR
//! semantics calls for — same operations, equivalent guards, and under each guard the
//! same addresses and operands.

use super::check::{inputs, operand, refuted};
use super::ir::{self, WordKind};
use super::obligations::{hash_layout, ring_layout, VALUE_OFFSET};
use super::prove::{prove_in, Goal, Mode};
use super::ptx::{self, Exec, Val};
use super::TvOutcome;
use crate::hashmap::{self, Probing};
use warptrace_ir::{Aggregation, Operand, Overflow, ValueKind};
use z3::ast::{Ast, Bool, BV};

/// The PTX operation of a value-word combination.
fn word_op(kind: WordKind) -> &'static str {
    match kind {
        WordKind::Add => "red.global.add.u64",
        WordKind::Max => "red.global.max.u64",
        WordKind::Exchange => "atom.global.exch.b64",
    }
}

fn agg_operand(agg: Aggregation) -> Option<Operand> {
    match agg {
        Aggregation::Count => None,
        Aggregation::Sum(x)
        | Aggregation::Min(x)
        | Aggregation::Max(x)
        | Aggregation::Avg(x)
        | Aggregation::Stats(x)
        | Aggregation::Hist(x)
        | Aggregation::Lhist(x)
        | Aggregation::Assign(x) => Some(x),
    }
}

/// An address that depends on which of disjoint cases holds (`None`: always).
pub(super) type Cases = Vec<(Option<Bool>, BV)>;

fn shift(cases: &Cases, by: &BV) -> Cases {
    cases
        .iter()
        .map(|(c, a)| (c.clone(), a.bvadd(by)))
        .collect()
}

/// What a claim may use besides the snippet and the IR's operations.
pub(super) struct Context {
    /// Assumptions: hardware limits, the warp model's facts.
    pub pre: Vec<Bool>,
    /// Cut points `(label, snippet's term, IR's term)`: each pair is one goal, and in every
    /// other goal both terms are replaced by one fresh constant (sound given that goal).
    pub cuts: Vec<(String, BV, BV)>,
    /// Definitions `(constant, term)` substituted into every goal (before `split`), last
    /// first: a definition may name earlier constants.
    pub defs: Vec<(BV, BV)>,
    /// A case split `(c, equalities)`: each goal `g` becomes `(c → g[equalities]) ∧ (¬c →
    /// g)`, where `c` implies every `a == b` of `equalities` (so `g` and `g[a := b]` agree
    /// under `c`).
    pub split: Option<(Bool, Vec<(BV, BV)>)>,
    /// How the claim is put to z3.
    pub mode: Mode,
    /// A special case of the inputs (`(input, value)`): each goal is first checked there
    /// too, as `pre → goal` at those inputs. An instance of the claim, so it changes
    /// nothing proved, but a goal that fails there fails fast (the warp model: one lane
    /// alone).
    pub special: Vec<(BV, BV)>,
    /// Registers `(label, snippet's value at the end, the spec's)`: each pair one goal.
    pub finals: Vec<(String, BV, BV)>,
}

impl Default for Context {
    fn default() -> Self {
        Context {
            pre: Vec::new(),
            cuts: Vec::new(),
            defs: Vec::new(),
            split: None,
            mode: Mode::Shared,
            special: Vec::new(),
            finals: Vec::new(),
        }
    }
}

/// A memory operation the IR semantics calls for.
pub(super) struct SpecEffect {
    guard: Bool,
    op: &'static str,
    addr: Cases,
    vals: Vec<BV>,
    /// Whether the goals about it may use the abstraction of `effects`' `slots`.
    at_slot: bool,
}

/// The value-word operations of `agg` on the slot at `slot`.
fn combine_spec(
    agg: Aggregation,
    value: &ValueKind,
    slot: &Cases,
    value_offset: u64,
    guard: &Bool,
) -> Option<Vec<SpecEffect>> {
    let x = agg_operand(agg).map(|o| operand(&o));
    let ops = ir::word_ops(agg, x.as_ref(), value)?;
    Some(words_spec(ops, slot, value_offset, guard))
}

/// Value-word operations `(word index, kind, operand)` on the slot at `slot`.
pub(super) fn words_spec(
    ops: Vec<(BV, WordKind, BV)>,
    slot: &Cases,
    value_offset: u64,
    guard: &Bool,
) -> Vec<SpecEffect> {
    ops.into_iter()
        .map(|(word, kind, v)| SpecEffect {
            guard: guard.clone(),
            op: word_op(kind),
            addr: shift(
                slot,
                &BV::from_u64(value_offset, 64).bvadd(word.bvmul(BV::from_u64(8, 64))),
            ),
            vals: vec![v],
            at_slot: true,
        })
        .collect()
}

/// Compares the snippet's memory operations with `spec`, in order: same operations,
/// equivalent guards, and under each guard the same address and operands. Spec effects
/// whose guard is false (paths the emitter folds away) are dropped first.
///
/// Abstractions (each a term and a fresh constant replacing it): proving a goal for
/// every value of the constant proves it for the term, so they are sound; they keep work
/// out of the bit-blasted problem wherever the snippet computes exactly the same term.
/// `slots` apply to the goals of effects `at_slot` only (they name snippet terms whose
/// equality with the IR's is proved by other goals), then `everywhere` to all goals.
fn effects(
    exec: &Exec,
    spec: Vec<SpecEffect>,
    slots: &[(BV, BV)],
    everywhere: &[(BV, BV)],
    ctx: &Context,
) -> TvOutcome {
    let mut everywhere = everywhere.to_vec();
    let mut lemmas = Vec::new();
    for (i, (label, ptx_term, ir_term)) in ctx.cuts.iter().enumerate() {
        lemmas.push(Goal::eq(label.clone(), ptx_term, ir_term, None));
        let c = BV::new_const(format!("cut#{i}"), ptx_term.get_size());
        everywhere.push((ptx_term.clone(), c.clone()));
        everywhere.push((ir_term.clone(), c));
    }
    let everywhere = &everywhere[..];
    let spec: Vec<SpecEffect> = spec
        .into_iter()
        .filter(|e| e.guard.simplify().as_bool() != Some(false))
        .collect();
    let got: Vec<&ptx::Effect> = exec
        .effects
        .iter()
        .filter(|e| e.guard.simplify().as_bool() != Some(false))
        .collect();
    let names = |v: &mut dyn Iterator<Item = String>| v.collect::<Vec<_>>().join(", ");
    if got.len() != spec.len() || got.iter().zip(&spec).any(|(g, s)| g.op != s.op) {
        return refuted(format!(
            "memory operations differ: the snippet does [{}], the IR calls for [{}]",
            names(&mut got.iter().map(|e| e.op.clone())),
            names(&mut spec.iter().map(|e| e.op.to_string())),
        ));
    }
    let mut goals = Vec::new();
    let substitute = |holds: &Bool, list: &[(BV, BV)]| {
        if list.is_empty() {
            return holds.clone();
        }
        let p: Vec<(&BV, &BV)> = list.iter().map(|(t, c)| (t, c)).collect();
        holds.substitute(&p)
    };
    for (i, (g, s)) in got.iter().zip(&spec).enumerate() {
        let first = goals.len();
        goals.push(Goal {
            label: format!(
                "operation {i} ({}) happens exactly when the IR's does",
                s.op
            ),
            holds: g.guard.iff(&s.guard),
            sides: vec![
                ("ptx".into(), Val::Pred(g.guard.clone())),
                ("ir".into(), Val::Pred(s.guard.clone())),
            ],
        });
        let addr = match (&g.addr, s.addr.is_empty()) {
            (None, true) => continue, // a fence
            (Some(a), false) => a,
            _ => return refuted(format!("operation {i} ({}): address differs", s.op)),
        };
        for (case, a) in &s.addr {
            let when = match case {
                Some(c) => Bool::and(&[&s.guard, c]),
                None => s.guard.clone(),
            };
            goals.push(Goal::eq(
                format!("operation {i} ({}) address", s.op),
                addr,
                a,
                Some(&when),
            ));
        }
        if g.vals.len() != s.vals.len()
            || g.vals
                .iter()
                .zip(&s.vals)
                .any(|(a, b)| a.get_size() != b.get_size())
        {
            return refuted(format!(
                "operation {i} ({}): operand count or width differs",
                s.op
            ));
        }
        for (j, (a, b)) in g.vals.iter().zip(&s.vals).enumerate() {
            goals.push(Goal::eq(
                format!("operation {i} ({}) operand {j}", s.op),
                a,
                b,
                Some(&s.guard),
            ));
        }
        for goal in &mut goals[first..] {
            if s.at_slot {
                goal.holds = substitute(&goal.holds, slots);
            }
            goal.holds = substitute(&goal.holds, everywhere);
            for (r, def) in ctx.defs.iter().rev() {
                goal.holds = goal.holds.substitute(&[(r, def)]);
            }
            if let Some((c, equal)) = &ctx.split {
                let then = substitute(&goal.holds, equal);
                goal.holds = Bool::and(&[&c.implies(then), &c.not().implies(&goal.holds)]);
            }
        }
    }
    if !ctx.special.is_empty() {
        // `pre → goal` at the special inputs: an instance of the claim.
        let p: Vec<(&BV, &BV)> = ctx.special.iter().map(|(a, b)| (a, b)).collect();
        let pre = Bool::and(&ctx.pre.iter().collect::<Vec<_>>()).substitute(&p);
        let cases: Vec<Goal> = goals
            .iter()
            .map(|g| Goal {
                label: format!("{} (special case)", g.label),
                holds: pre.implies(g.holds.substitute(&p)).simplify(),
                sides: g.sides.clone(),
            })
            .collect();
        goals.splice(0..0, cases);
    }
    for (label, ptx_term, spec_term) in &ctx.finals {
        goals.push(Goal::eq(label.clone(), ptx_term, spec_term, None));
    }
    goals.extend(lemmas);
    prove_in(&ctx.pre, &goals, &inputs(exec), ctx.mode)
}

pub(super) fn combine(agg: Aggregation, value: &ValueKind, exec: &Exec) -> TvOutcome {
    let slot = vec![(None, BV::new_const(crate::lower::reg("t", 2), 64))];
    let Some(spec) = combine_spec(agg, value, &slot, VALUE_OFFSET, &Bool::from_bool(true)) else {
        return TvOutcome::Unknown {
            reason: "the aggregation does not fit the value".into(),
        };
    };
    effects(exec, spec, &[], &[], &Context::default())
}

pub(super) fn hash(
    table: Table<'_>,
    agg: Aggregation,
    value: &ValueKind,
    exec: &Exec,
) -> TvOutcome {
    let one = BV::from_u64(1, 64);
    let words = |slot: &Cases, offset, guard: &Bool| combine_spec(agg, value, slot, offset, guard);
    let always = Bool::from_bool(true);
    hash_update(
        table,
        value,
        (&always, &one),
        words,
        exec,
        &Context::default(),
    )
}

/// A hash update's table: its `keys` on a map of `capacity` slots, probed as `probing`
/// says.
#[derive(Debug, Clone, Copy)]
pub(super) struct Table<'a> {
    pub keys: &'a [Operand],
    pub capacity: u32,
    pub probing: Probing,
}

/// The IR's hash update on `table` whose value is `value`, done when `enabled`, counting
/// `drops` on a drop, with the value-word operations `words(slot, value offset, when)`,
/// against the snippet's operations, in `ctx`. With [`Probing::Home`] and constant keys
/// the IR's update is the one-probe update (`hashmap::probe_count`); that it equals the
/// `HASH_MAX_PROBES` one in the launches that use it is `hashmap::HomeSlots`' argument.
pub(super) fn hash_update(
    table: Table<'_>,
    value: &ValueKind,
    (enabled, drops): (&Bool, &BV),
    words: impl FnOnce(&Cases, u64, &Bool) -> Option<Vec<SpecEffect>>,
    exec: &Exec,
    ctx: &Context,
) -> TvOutcome {
    let Table {
        keys,
        capacity,
        probing,
    } = table;
    let layout = hash_layout(keys.len(), capacity, value);
    let Some(region) = layout.regions.first() else {
        return TvOutcome::Unknown {
            reason: "no region".into(),
        };
    };
    let k = |v: u64| BV::from_u64(v, 64);
    let base = BV::new_const(crate::lower::BASE, 64);
    let key_vals: Vec<BV> = keys.iter().map(operand).collect();
    let tag = ir::tag(&key_vals);
    let slot_addr = |i: &BV| {
        base.bvadd(k(region.slots_offset))
            .bvadd(i.bvmul(k(region.slot_bytes())))
    };
    let zero = Bool::and(&[enabled, &tag.eq(k(0))]);
    let mut spec = Vec::new();
    let mut live = Bool::and(&[enabled, &tag.eq(k(0)).not()]);
    let mut hits: Vec<(Bool, Bool, BV)> = Vec::new();
    let constant = warptrace_ir::MapLayout::constant_tag(keys);
    let probes = hashmap::probe_count(probing, constant);
    // A home slot's tag word holds 0 or the tag and keeps the tag once written
    // (`HomeSlots`' premise, decision 0013): a load that reads the tag stands for the
    // compare-and-swap that would find it.
    let peek = probing == Probing::Home && constant.is_some_and(|t| t != 0);
    for j in 0..probes {
        let probe = if j == 0 {
            tag.clone()
        } else {
            ir::add(&tag, &k(u64::from(j)))
        };
        let idx = probe.bvurem(k(u64::from(capacity)));
        let addr = slot_addr(&idx);
        let seen = if peek {
            spec.push(SpecEffect {
                guard: live.clone(),
                op: "ld.global.cg.u64",
                addr: vec![(None, addr.clone())],
                vals: Vec::new(),
                at_slot: false,
            });
            Bool::and(&[&live, &BV::new_const("ld#0", 64).eq(&tag)])
        } else {
            Bool::from_bool(false)
        };
        let cas = Bool::and(&[&live, &seen.not()]);
        let old = BV::new_const(format!("atom#{j}"), 64);
        spec.push(SpecEffect {
            guard: cas.clone(),
            op: "atom.global.cas.b64",
            addr: vec![(None, addr.clone())],
            vals: vec![k(0), tag.clone()],
            at_slot: false,
        });
        let claim = Bool::and(&[&cas, &old.eq(k(0))]);
        let found = Bool::or(&[
            &seen,
            &Bool::and(&[&cas, &old.eq(k(0)).not(), &old.eq(&tag)]),
        ]);
        live = Bool::and(&[&cas, &old.eq(k(0)).not(), &old.eq(&tag).not()]);
        hits.push((claim, found, addr));
    }
    spec.push(SpecEffect {
        guard: live,
        op: "red.global.add.u64",
        addr: vec![(None, base.bvadd(k(region.drops_offset)))],
        vals: vec![drops.clone()],
        at_slot: false,
    });
    let zero_slot = slot_addr(&k(u64::from(capacity)));
    spec.push(SpecEffect {
        guard: zero.clone(),
        op: "st.global.u64",
        addr: vec![(None, zero_slot.clone())],
        vals: vec![k(1)],
        at_slot: false,
    });
    let mut claimed: Vec<&Bool> = vec![&zero];
    claimed.extend(hits.iter().map(|h| &h.0));
    let claimed = Bool::or(&claimed);
    // The slot: the extra one for tag 0, else the probe that claimed or found it. Its
    // address is the IR's (`addr`), or, when the snippet has its eight CAS, the address
    // of the snippet's CAS `j` — equal to the IR's by the goals of that CAS — abstracted
    // to a constant `slot#j` in the goals of the later operations.
    let cas: Vec<&BV> = exec
        .effects
        .iter()
        .filter(|e| e.op == "atom.global.cas.b64")
        .filter_map(|e| e.addr.as_ref())
        .collect();
    let use_cas = cas.len() == hits.len();
    let mut slots = Vec::new();
    let mut slot: Cases = vec![(Some(zero.clone()), zero_slot)];
    for (j, (claim, found, addr)) in hits.iter().enumerate() {
        let a = match cas.get(j) {
            Some(&a) if use_cas => {
                slots.push((a.clone(), BV::new_const(format!("slot#{j}"), 64)));
                a.clone()
            }
            _ => addr.clone(),
        };
        slot.push((Some(Bool::or(&[claim, found])), a));
    }
    for (n, key) in key_vals.iter().enumerate() {
        spec.push(SpecEffect {
            guard: claimed.clone(),
            op: "st.global.u64",
            addr: shift(&slot, &k(8 * (n as u64 + 1))),
            vals: vec![key.clone()],
            at_slot: true,
        });
    }
    let mut added: Vec<&Bool> = vec![&claimed];
    added.extend(hits.iter().map(|h| &h.1));
    let added = Bool::or(&added);
    let Some(words) = words(&slot, region.value_offset_in_slot(), &added) else {
        return TvOutcome::Unknown {
            reason: "the aggregation does not fit the value".into(),
        };
    };
    spec.extend(words);
    let everywhere = if keys.iter().any(|k| matches!(k, Operand::Reg(_))) {
        vec![(tag.clone(), BV::new_const("tag", 64))]
    } else {
        Vec::new()
    };
    effects(exec, spec, &slots, &everywhere, ctx)
}

/// The end value of the latched drops of the obligations' ring (map 0) and the claim about
/// it; `None` when the snippet leaves no 64-bit value there.
fn latch_final(exec: &Exec, spec: BV) -> Option<Context> {
    let name = crate::ring::latch(0);
    let end = exec.reg(&name).and_then(|v| v.bv().cloned())?;
    Some(Context {
        finals: vec![(format!("{name} at the end"), end, spec)],
        ..Context::default()
    })
}

/// `ring::flush`: the latched drops `d` added to the drop counter when there are any.
pub(super) fn ring_flush(exec: &Exec) -> TvOutcome {
    let layout = ring_layout(1, 1024, Overflow::Drop);
    let Some(region) = layout.regions.first() else {
        return TvOutcome::Unknown {
            reason: "no region".into(),
        };
    };
    let base = BV::new_const(crate::lower::BASE, 64);
    let d = BV::new_const(crate::ring::latch(0), 64);
    let zero = BV::from_u64(0, 64);
    let spec = vec![SpecEffect {
        guard: d.eq(&zero).not(),
        op: "red.global.add.u64",
        addr: vec![(None, base.bvadd(BV::from_u64(region.drops_offset, 64)))],
        vals: vec![d.clone()],
        at_slot: false,
    }];
    match latch_final(exec, d) {
        Some(ctx) => effects(exec, spec, &[], &[], &ctx),
        None => refuted("the flush leaves no value in the latch register"),
    }
}

/// `ring::append`, as `docs/ir.md` defines it; `latched` (an `overflow = drop` ring): with
/// the thread's latched drops `d` (`ring.rs`) — a thread whose `d` is non-zero makes no
/// memory operation, and a drop is counted in `d` instead of the drop counter.
pub(super) fn ring(
    fields: &[Operand],
    capacity: u32,
    overflow: Overflow,
    latched: bool,
    exec: &Exec,
) -> TvOutcome {
    let layout = ring_layout(fields.len(), capacity, overflow);
    let Some(region) = layout.regions.first() else {
        return TvOutcome::Unknown {
            reason: "no region".into(),
        };
    };
    let k = |v: u64| BV::from_u64(v, 64);
    let base = BV::new_const(crate::lower::BASE, 64);
    let cursor = base.bvadd(k(region.slots_offset));
    let drops = base.bvadd(k(region.drops_offset));
    let n = BV::new_const("atom#0", 64);
    let effect =
        |guard: &Bool, op: &'static str, addr: Option<BV>, vals: Vec<BV>, at: bool| SpecEffect {
            guard: guard.clone(),
            op,
            addr: addr.map(|a| vec![(None, a)]).unwrap_or_default(),
            vals,
            at_slot: at,
        };
    // The latch: `d`, and whether this thread has seen the ring full.
    let latch = (latched && overflow == Overflow::Drop).then(|| {
        let d = BV::new_const(crate::ring::latch(0), 64);
        let seen_full = d.eq(k(0)).not();
        (d, seen_full)
    });
    let appends = latch
        .as_ref()
        .map_or_else(|| Bool::from_bool(true), |(_, seen)| seen.not());
    let cap = u64::from(capacity);
    let mut spec = Vec::new();
    // Whether this append drops, and the latch's value at the end.
    let (full, finals) = if let (Some((d, _)), 0) = (&latch, cap) {
        // Every append drops, counted in `d` alone.
        (Bool::from_bool(true), Some(d.bvadd(k(1))))
    } else {
        spec.push(effect(
            &appends,
            "atom.global.add.u64",
            Some(cursor.clone()),
            vec![k(1)],
            false,
        ));
        let full = if cap == 0 {
            Bool::from_bool(true)
        } else {
            n.bvuge(k(cap))
        };
        match &latch {
            None => {
                spec.push(effect(
                    &full,
                    "red.global.add.u64",
                    Some(drops),
                    vec![k(1)],
                    false,
                ));
                (full, None)
            }
            Some((d, seen)) => {
                let dropped = Bool::or(&[seen, &full]);
                let after = dropped.ite(&d.bvadd(k(1)), d);
                (dropped, Some(after))
            }
        }
    };
    if cap > 0 {
        // Drop: nothing more when full; overwrite: the record n mod capacity.
        let (written, slot) = match overflow {
            Overflow::Drop => (full.not(), n.clone()),
            Overflow::Overwrite => (Bool::from_bool(true), n.bvurem(k(cap))),
        };
        // Records follow the cursor word.
        let record = cursor.bvadd(k(8)).bvadd(slot.bvmul(k(region.slot_bytes())));
        for (i, f) in fields.iter().enumerate() {
            let addr = record.bvadd(k(8 * (i as u64 + 1)));
            spec.push(effect(
                &written,
                "st.global.u64",
                Some(addr),
                vec![operand(f)],
                false,
            ));
        }
        if overflow == Overflow::Overwrite {
            // Appends a lap apart share a slot: each writer's `seq` after its own fields.
            spec.push(effect(
                &written,
                "fence.acq_rel.gpu",
                None,
                Vec::new(),
                false,
            ));
        }
        spec.push(effect(
            &written,
            "st.relaxed.gpu.global.u64",
            Some(record),
            vec![n.bvadd(k(1))],
            false,
        ));
    }
    match finals {
        None => effects(exec, spec, &[], &[], &Context::default()),
        Some(after) => match latch_final(exec, after) {
            Some(ctx) => effects(exec, spec, &[], &[], &ctx),
            None => refuted("the append leaves no value in the latch register"),
        },
    }
}
