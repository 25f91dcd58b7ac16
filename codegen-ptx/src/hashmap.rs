//! The hash-map update sequence, exactly per `warptrace_ir::MapLayout`:
//!
//! ```text
//! tag = fold(mix64(h ^ k))           (1 for no keys; folded at compile time if constant,
//!                                     and then each probe's slot address too)
//! tag == 0  → slot `capacity`: tag word := 1, store keys, combine value
//! otherwise → for j in 0..HASH_MAX_PROBES (unrolled):
//!               slot = (tag + j) mod capacity
//!               old = atom.global.cas.b64 [slot.tag], 0, tag
//!               old == 0   → claimed: store keys, combine value
//!               old == tag → found: combine value
//!             all missed → red.global.add.u64 [drops[map]], 1
//! ```
//!
//! With `Probing::Home` (`warptrace_ir::placement`) a constant tag tries only its home slot `tag mod capacity`
//! (j = 0), first with a plain load (`ld.global.cg`: the tag there → straight to the
//! value words), then with the compare-and-swap, the rest unchanged: the IR's update
//! with one probe. `HomeSlots` says for
//! which maps of a kernel that equals the IR's update with `HASH_MAX_PROBES` probes: when
//! every tag the kernel's launch can insert is a compile-time constant and no two share
//! a home slot, a home slot only ever holds 0 or its own tag (the buffer starts zeroed,
//! and each update writes its tag there or nowhere), so the first probe never misses.
//! Decision 0013 has the argument; `home_slots_match_linear_probing` tests it.
//!
//! Control flow is forward only. Registers: `t0` tag, `t1` scratch/index, `t2` slot
//! address, `t3` the map's slot 0, `t4` the CAS result, `t5`/`t6` materialised immediates.
//! The value words are combined by `aggregate::combine_with` (slot address in `t2`); a
//! warp-combined update (`combine.rs`) passes the group's lane count and operand.

use crate::aggregate::{self, Amounts};
use crate::lower::{reg, Emitter, BASE};
use crate::Error;
pub use warptrace_ir::placement::{
    accumulates, buffer_layout, replicas, ring_copies, MAX_REPLICAS, REPLICA_BYTES,
    RING_COPY_RECORDS,
};
pub(crate) use warptrace_ir::placement::{probe_count, HomeSlots, Probing};
use warptrace_ir::{Aggregation, MapLayout, MapRegion, Operand, ValueKind};

/// `mix64` (splitmix64 finalizer) of `x` in place, with scratch `tmp`.
fn mix64(e: &mut Emitter, x: &str, tmp: &str) {
    e.insf(format_args!("shr.u64 {tmp}, {x}, 30"));
    e.insf(format_args!("xor.b64 {x}, {x}, {tmp}"));
    e.insf(format_args!("mul.lo.u64 {x}, {x}, 0xBF58476D1CE4E5B9"));
    e.insf(format_args!("shr.u64 {tmp}, {x}, 27"));
    e.insf(format_args!("xor.b64 {x}, {x}, {tmp}"));
    e.insf(format_args!("mul.lo.u64 {x}, {x}, 0x94D049BB133111EB"));
    e.insf(format_args!("shr.u64 {tmp}, {x}, 31"));
    e.insf(format_args!("xor.b64 {x}, {x}, {tmp}"));
}

/// Where a `map.update` goes: the map's `region`, a label prefix `labels` unique to
/// this instruction within the kernel, and how it probes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Target<'a> {
    pub region: &'a MapRegion,
    pub labels: &'a str,
    pub probing: Probing,
}

/// Emits `map.update` at `at` with `keys`, combining `agg` into the value words of a
/// map whose value is `value`. Keys that are immediates fold the tag at compile time.
pub(crate) fn map_update(
    e: &mut Emitter,
    at: Target<'_>,
    keys: &[Operand],
    agg: Aggregation,
    value: &ValueKind,
) -> Result<(), Error> {
    map_update_with(e, at, keys, agg, value, Amounts::THREAD)
}

/// [`map_update`] for one thread's or a warp-combined group's `amounts`: the value words
/// get `aggregate::combine_with`'s operations, a drop adds the lane count (every lane
/// whose update is lost is counted, as if each had tried alone).
pub(crate) fn map_update_with(
    e: &mut Emitter,
    at: Target<'_>,
    keys: &[Operand],
    agg: Aggregation,
    value: &ValueKind,
    amounts: Amounts<'_>,
) -> Result<(), Error> {
    let Target {
        region,
        labels,
        probing,
    } = at;
    let (t0, t1, t2, t3, t4) = (
        reg("t", 0),
        reg("t", 1),
        reg("t", 2),
        reg("t", 3),
        reg("t", 4),
    );
    let p0 = reg("p", 0);
    // The tag, in t0; `Some` when known at compile time.
    let tag = match MapLayout::constant_tag(keys) {
        Some(tag) => {
            e.insf(format_args!("mov.b64 {t0}, 0x{tag:016X}"));
            Some(tag)
        }
        None => {
            for (n, k) in keys.iter().enumerate() {
                let k = e.src64(k, &reg("t", 5));
                if n == 0 {
                    e.insf(format_args!("mov.b64 {t0}, {k}"));
                } else {
                    e.insf(format_args!("xor.b64 {t0}, {t0}, {k}"));
                }
                mix64(e, &t0, &t1);
            }
            None
        }
    };
    let zero = format!("{labels}_zero");
    let claim = format!("{labels}_claim");
    let add = format!("{labels}_add");
    let done = format!("{labels}_done");
    let zero_path = tag.is_none_or(|t| t == 0);
    let probe_path = tag != Some(0);
    // A tag known at compile time has its probe sequence's slot addresses known too,
    // relative to the map base: one `add` per probe instead of `add`, `and`, `mad`.
    let folded = tag.filter(|_| !zero_path);
    if folded.is_none() {
        e.insf(format_args!(
            "add.s64 {t3}, {BASE}, {}",
            region.slots_offset
        ));
    }
    if zero_path && probe_path {
        e.insf(format_args!("setp.eq.u64 {p0}, {t0}, 0"));
        e.insf(format_args!("@{p0} bra {zero}"));
    }
    if probe_path {
        let cap = u64::from(region.capacity);
        for j in 0..probe_count(probing, folded) {
            if let Some(tag) = folded {
                // As the IR computes it: (tag + j) mod capacity, wrapping at 64 bits.
                let slot = tag.wrapping_add(u64::from(j)) % cap;
                let offset = region.slots_offset + slot * region.slot_bytes();
                e.insf(format_args!("add.s64 {t2}, {BASE}, {offset}"));
            } else {
                let idx = if j == 0 {
                    t0.clone()
                } else {
                    e.insf(format_args!("add.s64 {t1}, {t0}, {j}"));
                    t1.clone()
                };
                if cap.is_power_of_two() {
                    e.insf(format_args!("and.b64 {t1}, {idx}, {}", cap - 1));
                } else {
                    e.insf(format_args!("rem.u64 {t1}, {idx}, {cap}"));
                }
                e.insf(format_args!(
                    "mad.lo.u64 {t2}, {t1}, {}, {t3}",
                    region.slot_bytes()
                ));
            }
            if probing == Probing::Home && folded.is_some() {
                // A home slot holds 0 or its own tag, and keeps the tag once written:
                // reading the tag means the compare-and-swap would find it. A plain load
                // of a hot slot does not wait in line at L2 as a returning atomic does.
                e.insf(format_args!("ld.global.cg.u64 {t4}, [{t2}]"));
                e.insf(format_args!("setp.eq.u64 {p0}, {t4}, {t0}"));
                e.insf(format_args!("@{p0} bra {add}"));
            }
            e.insf(format_args!("atom.global.cas.b64 {t4}, [{t2}], 0, {t0}"));
            e.insf(format_args!("setp.eq.u64 {p0}, {t4}, 0"));
            e.insf(format_args!("@{p0} bra {claim}"));
            e.insf(format_args!("setp.eq.u64 {p0}, {t4}, {t0}"));
            e.insf(format_args!("@{p0} bra {add}"));
        }
        let n = amounts.lane_count(e);
        e.insf(format_args!(
            "red.global.add.u64 [{BASE}+{}], {n}",
            region.drops_offset
        ));
        e.insf(format_args!("bra {done}"));
    }
    if zero_path {
        e.label(&zero);
        e.insf(format_args!(
            "add.s64 {t2}, {t3}, {}",
            u64::from(region.capacity) * region.slot_bytes()
        ));
        e.insf(format_args!("st.global.u64 [{t2}], 1"));
    }
    e.label(&claim);
    for (n, k) in keys.iter().enumerate() {
        let k = e.src64(k, &reg("t", 5));
        e.insf(format_args!("st.global.u64 [{t2}+{}], {k}", 8 * (n + 1)));
    }
    e.label(&add);
    aggregate::combine_with(e, agg, value, region.value_offset_in_slot(), amounts)?;
    e.label(&done);
    Ok(())
}

#[cfg(test)]
mod tests;
