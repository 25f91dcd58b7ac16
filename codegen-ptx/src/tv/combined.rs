//! The obligations about warp-combined updates (`combine::map_update`), in the warp model
//! (`ptx/warp.rs`): what the executing lane does, for every group it may be in.
//!
//! The group is the first mask the snippet reads, `m`. When every later mask equals it,
//! the executing lane does the hash update exactly when it is the group's lowest lane,
//! with the group's amounts ([`ir::group_words`]: the lane count, the lanes' sum, the
//! largest encoded word; a drop counts the lane count); otherwise it does its own update,
//! as a thread would. Keys are the same in every lane (the premise of combining), so the
//! executing lane's keys are the group's.

use super::check::refuted;
use super::effects::{hash_update, words_spec, Cases, Context, SpecEffect, Table};
use super::ir::{self, Group};
use super::prove::Mode;
use super::ptx::{self, has_lane, mask_name, Exec};
use super::TvOutcome;
use crate::combine::Plan;
use warptrace_ir::{Aggregation, ValueKind};
use z3::ast::{Bool, BV};

pub(super) fn hash(
    table: Table<'_>,
    agg: Aggregation,
    value: &ValueKind,
    plan: Plan,
    exec: &Exec,
) -> TvOutcome {
    let Some(warp) = &exec.warp else {
        return TvOutcome::Unknown {
            reason: "not run in the warp model".into(),
        };
    };
    let m = BV::new_const(mask_name(0), 32);
    let agree: Vec<Bool> = warp.masks.iter().skip(1).map(|k| k.eq(&m)).collect();
    let agree = Bool::and(&agree.iter().collect::<Vec<_>>());
    let x = agg.operand();
    let (group, lane_facts) = Group::new(m.clone(), x.as_ref(), plan == Plan::Uniform);
    // Per-lane values are reduced in 32-bit parts: the spec in those parts, equal to the
    // lanes' sum and maximum by the lemmas.
    let by_parts = plan == Plan::Lanes;
    if by_parts {
        let (sum, max) = ir::lemmas();
        let lemma = match agg {
            Aggregation::Min(_) | Aggregation::Max(_) => max,
            _ => sum,
        };
        if !lemma.is_proved() {
            return TvOutcome::Unknown {
                reason: format!("the lemma of the reduction in parts: {lemma:?}"),
            };
        }
    }
    let parts = by_parts.then_some(&warp.masks[..]);
    let Some(combined) = ir::group_words(agg, value, &group, parts) else {
        return refuted("the aggregation cannot be combined in a warp");
    };
    let own_x = group.own.clone();
    let Some(own) = ir::word_ops(agg, own_x.as_ref(), value) else {
        return refuted("the aggregation does not fit the value");
    };
    if own.len() != combined.len() {
        return refuted("combined and per-thread updates have different words");
    }
    // Agreeing masks: the group's words; otherwise this lane's own.
    let words: Vec<_> = combined
        .into_iter()
        .zip(own)
        .map(|((i, kind, g), (_, _, t))| (i, kind, agree.ite(&g, &t)))
        .collect();
    let enabled = agree.ite(&group.is_lowest(), &Bool::from_bool(true));
    let drops = agree.ite(&group.count(), &BV::from_u64(1, 64));
    // Where the masks agree, every later mask is the group's: the goals of that case
    // name only the group's.
    let equal: Vec<(BV, BV)> = warp
        .masks
        .iter()
        .skip(1)
        .map(|k| (k.clone(), m.clone()))
        .collect();
    let mut ctx = Context {
        pre: ir::hw_assumptions(),
        cuts: Vec::new(),
        defs: warp.defs.clone(),
        split: (!equal.is_empty()).then(|| (agree.clone(), equal)),
        // With collectives the conjunction is too large for one query; and no claim of
        // the warp model goes to the thread's shared solver.
        mode: if by_parts { Mode::Each } else { Mode::Fresh },
        // Lane 0 alone: where a wrong reduction shows without a search over 32 lanes.
        special: match by_parts {
            true => std::iter::once((ir::hw("%laneid"), BV::from_u64(0, 32)))
                .chain(warp.masks.iter().map(|k| (k.clone(), BV::from_u64(1, 32))))
                .collect(),
            false => Vec::new(),
        },
        finals: Vec::new(),
    };
    ctx.pre.push(has_lane(&m, &ir::hw("%laneid")));
    ctx.pre.extend(warp.facts.iter().cloned());
    ctx.pre.extend(lane_facts);
    // With one mask, the lane count as the snippet computes it (`popc.b32`, widened):
    // proved equal to the IR's once, one constant elsewhere. (With several, the snippet
    // counts the lane's own mask where they disagree.)
    if warp.masks.len() == 1 {
        let popc = ptx::popc(&m).zero_ext(32);
        ctx.cuts
            .push(("the lane count".into(), popc, group.count()));
    }
    let spec = |slot: &Cases, offset: u64, when: &Bool| -> Option<Vec<SpecEffect>> {
        Some(words_spec(words, slot, offset, when))
    };
    hash_update(table, value, (&enabled, &drops), spec, exec, &ctx)
}
