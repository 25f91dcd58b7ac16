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
//! Control flow is forward only. Registers: `t0` tag, `t1` scratch/index, `t2` slot
//! address, `t3` the map's slot 0, `t4` the CAS result, `t5`/`t6` materialised immediates.
//! The value words are combined by `aggregate::combine_with` (slot address in `t2`); a
//! warp-combined update (`combine.rs`) passes the group's lane count and operand.

use crate::aggregate::{self, Amounts};
use crate::lower::{reg, Emitter, BASE};
use crate::PtxError;
use warptrace_ir::{Aggregation, MapLayout, MapRegion, Operand, ValueKind, HASH_MAX_PROBES};

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

/// Emits `map.update` of `region` with `keys`, combining `agg` into the value words of a
/// map whose value is `value`; `labels` is a prefix unique to this instruction within the
/// kernel. Keys that are immediates fold the tag at compile time.
pub(crate) fn map_update(
    e: &mut Emitter,
    region: &MapRegion,
    keys: &[Operand],
    agg: Aggregation,
    value: &ValueKind,
    labels: &str,
) -> Result<(), PtxError> {
    map_update_with(e, region, keys, agg, value, labels, Amounts::THREAD)
}

/// [`map_update`] for one thread's or a warp-combined group's `amounts`: the value words
/// get `aggregate::combine_with`'s operations, a drop adds the lane count (every lane
/// whose update is lost is counted, as if each had tried alone).
pub(crate) fn map_update_with(
    e: &mut Emitter,
    region: &MapRegion,
    keys: &[Operand],
    agg: Aggregation,
    value: &ValueKind,
    labels: &str,
    amounts: Amounts<'_>,
) -> Result<(), PtxError> {
    let (t0, t1, t2, t3, t4) = (
        reg("t", 0),
        reg("t", 1),
        reg("t", 2),
        reg("t", 3),
        reg("t", 4),
    );
    let p0 = reg("p", 0);
    let constants: Option<Vec<u64>> = keys
        .iter()
        .map(|k| match k {
            Operand::Imm(v) => Some(*v as u64),
            Operand::Reg(_) => None,
        })
        .collect();
    // The tag, in t0; `Some` when known at compile time.
    let tag = match constants {
        Some(c) => {
            let tag = MapLayout::tag(&c);
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
        for j in 0..HASH_MAX_PROBES {
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
