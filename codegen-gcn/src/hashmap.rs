//! `map.update` of a hash map, exactly per `warptrace_ir::MapLayout` (the PTX back end's
//! layout, so the runtime reads both the same way), for the lanes in `exec`:
//!
//! ```text
//! tag = fold(mix64(h ^ k))                  (1 for no keys; folded if the keys are constant)
//! lanes with tag == 0 → slot `capacity`: tag word := 1, store keys, combine value
//! pending = the other lanes
//! for j in 0..HASH_MAX_PROBES (unrolled), exec = pending:
//!     off  = slots_offset + ((tag + j) & (capacity - 1)) * slot_bytes     (32-bit)
//!     old  = global_atomic_cmpswap_x2 [base + off], cmp 0, new tag    (returns old)
//!     claim = old == 0; hit = claim | old == tag; pending -= hit
//!     exec = claim: store the keys; exec = hit: combine the value
//!     pending == 0 → done
//! exec = pending: global_atomic_add_x2 [base + drops], 1
//! ```
//!
//! Keys the site knows (`[kernel]`, `[kernel, pc]`: `lower.rs` folds them) give a constant
//! tag, and constant slot offsets. When the kernel's decision says the map probes home
//! slots (`warptrace_ir::placement::HomeSlots`, decision 0013), a constant non-zero tag
//! tries its home slot alone: a load of its tag word (`glc`/`sc1`/`glc dlc`, past the
//! caches the atomics bypass) finds it there, and only the lanes that did not read the
//! tag run the compare-and-swap (skipped when there are none):
//!
//! ```text
//! exec = pending: old = global_load_dwordx2 [base + home];  found = old == tag
//! exec = pending & ~found (none → skip): the compare-and-swap as above;
//!     found |= claim | hit;  exec = claim: store the keys
//! exec = found: combine the value;  pending -= found;  exec = pending: count a drop
//! ```
//!
//! An update whose keys and operand are the same in every lane (`combine.rs`, decision
//! 0036) is done as above by the lowest lane in `exec` alone (`s_ff1`, `exec` narrowed to
//! its bit), with the lanes' count (`s_bcnt1` of `exec`) in `one`: `count`, the count word
//! of `avg`/`stats`, a bucket and a drop add it, and `sum`/`avg`/`stats` add `x · n`.
//!
//! Every access is `global_* vOff, vData, s[base:base+1]`: the map buffer's address (an
//! SGPR pair loaded from the map argument) indexed by a 32-bit lane offset, so the
//! capacity must be a power of two and the buffer's fixed part below 2 GiB. The value
//! words are combined with 64-bit atomics: `count`/`sum`/`avg`/`stats` add,
//! `min`/`max` take the unsigned maximum of the encoding (`min_encode`/`max_encode`),
//! `assign` swaps, `hist`/`lhist` add 1 to the counter of the value's bucket: its byte
//! offset is computed once per update, before the probes (`bucket`), per
//! `warptrace_ir::hist_bucket` / `lhist_bucket`:
//!
//! ```text
//! hist:  x < 0 → 0;  x == 0 → 1;  else 65 - clz64(x)        (v_ffbh_u32 of each half)
//! lhist: x < min → 0;  x >= max → last;  else 1 + (x - min) / step
//!        (a 64-bit shift for a power-of-two step; otherwise the 32-bit quotient by
//!        multiplication, which needs max - min < 2^32)
//! ```

use crate::emit::{hi, lo, Emitter, MAX_OFFSET};
use crate::lower::{src, unsupported, Cx};
use crate::reg::Reg;
use crate::ring::divu32;
use crate::Error;
use warptrace_ir::placement::{probe_count, Probing};
use warptrace_ir::uniform::Plan;
use warptrace_ir::{
    hist_bucket, lhist_bucket, lhist_buckets, Aggregation, MapLayout, MapRegion, Operand,
    ValueKind, HASH_MAX_PROBES,
};

const MIX1: u64 = 0xbf58_476d_1ce4_e5b9;
const MIX2: u64 = 0x94d0_49bb_1331_11eb;

/// `x = mix64(x)` in place (VGPR pairs; `x` is not one of the temporaries).
fn mix64(cx: &Cx<'_>, e: &mut Emitter, x: Reg) {
    let r = cx.regs;
    for (shift, mul) in [(30, Some(MIX1)), (27, Some(MIX2)), (31, None)] {
        e.shift64("v_lshrrev_b64", r.tb, x, shift);
        e.bit64("xor", x, x, r.tb);
        if let Some(m) = mul {
            e.imm64(r.tb, m);
            e.mul64(x, x, r.tb, r.tc);
        }
    }
}

/// Emits the update of `region` with `keys` combining `agg`, probing as `probing` says
/// for a constant tag (`probe_count`); with a `plan`, once for the lanes in `exec` by
/// the lowest of them (`combine.rs`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn update(
    cx: &Cx<'_>,
    e: &mut Emitter,
    region: &MapRegion,
    keys: &[Operand],
    agg: Aggregation,
    value: &ValueKind,
    probing: Probing,
    plan: Option<Plan>,
    labels: &str,
) -> Result<(), Error> {
    let r = cx.regs;
    let cap = u64::from(region.capacity);
    if !cap.is_power_of_two() {
        return Err(unsupported(
            "a hash map whose capacity is not a power of two",
        ));
    }
    e.memory = true;
    let base = r.base.name();
    let t = cx.t;
    let ret = t.returning();
    let exec = t.exec();
    let (pend, claim, hit, cmp, upd) = (
        r.pend.name(),
        r.claim.name(),
        r.hit.name(),
        r.cmp_mask(t).name(),
        r.upd_exec.name(),
    );
    let off = r.off.name();
    e.smov(&upd, exec);
    let grouped = plan.is_some();
    if grouped {
        // The leader: the lowest lane of the group.
        e.first_lane(&pend, &r.st.name());
        e.smask("s_and", exec, exec, &pend);
    }
    let bucket = bucket(cx, e, agg, value)?;
    // The tag, in `data[0:1]`: the compare-and-swap's new value.
    let tag = Reg::new(r.data.file, r.data.first, 2);
    let known = MapLayout::constant_tag(keys);
    match known {
        Some(t) => e.imm64(tag, t),
        None => {
            for (n, k) in keys.iter().enumerate() {
                let kv = src(cx, e, k, r.ta)?;
                if n == 0 {
                    e.mov64(tag, kv);
                } else {
                    e.bit64("xor", tag, tag, kv);
                }
                mix64(cx, e, tag);
            }
        }
    }
    e.ins(format!("v_mov_b32_e32 {}, 0", lo(r.one)));
    e.ins(format!("v_mov_b32_e32 {}, 0", hi(r.one)));
    // data[2:3] = 0, the compare value.
    let data_hi = Reg::new(r.data.file, r.data.first + 2, 2);
    e.imm64(data_hi, 0);
    // What a lane update counts: 1, or the group's lanes.
    if grouped {
        let st = r.st.name();
        e.ins(format!("{} {st}, {upd}", t.s("s_bcnt1_i32")));
        e.ins(format!("v_mov_b32_e32 {}, {st}", lo(r.one)));
    } else {
        e.ins(format!("v_mov_b32_e32 {}, 1", lo(r.one)));
    }
    let done = format!("{labels}_done");
    let zero_path = known.is_none_or(|t| t == 0);
    let probe_path = known != Some(0);
    e.smov(&pend, exec);
    if zero_path {
        // Lanes whose tag is 0 use the extra slot.
        if probe_path {
            e.ins(format!("v_cmp_eq_u64_e64 {cmp}, 0, {}", tag.name()));
            e.smask("s_and", exec, exec, &cmp);
        }
        let slot = region.slots_offset + cap * region.slot_bytes();
        e.ins(format!("v_mov_b32_e32 {off}, 0x{slot:x}"));
        // The tag word: 1 (`one` holds the lane count in a group).
        let word = if grouped {
            e.imm64(r.old, 1);
            r.old
        } else {
            r.one
        };
        e.ins(format!(
            "global_store_dwordx2 {off}, {}, {base}",
            word.name()
        ));
        store_keys(cx, e, keys)?;
        combine(cx, e, agg, value, region, bucket.as_ref(), grouped)?;
        if probe_path {
            e.smask("s_andn2", &pend, &pend, &cmp);
        }
    }
    if probe_path {
        let slot_of = |e: &mut Emitter, j: u32| match known {
            // A constant tag's slots are constants.
            Some(t) => {
                let slot = (t.wrapping_add(u64::from(j)) & (cap - 1)) * region.slot_bytes();
                e.ins(format!(
                    "v_mov_b32_e32 {off}, 0x{:x}",
                    region.slots_offset + slot
                ));
            }
            // off = slots_offset + ((tag_lo + j) & (cap - 1)) * slot_bytes
            None => {
                e.add32(&off, &j.to_string(), &lo(tag));
                e.ins(format!(
                    "v_and_b32_e32 {off}, 0x{:x}, {off}",
                    (cap - 1) as u32
                ));
                e.ins(format!(
                    "v_mov_b32_e32 {}, 0x{:x}",
                    lo(r.ta),
                    region.slot_bytes()
                ));
                e.ins(format!("v_mul_lo_u32 {off}, {off}, {}", lo(r.ta)));
                e.add32(&off, &format!("0x{:x}", region.slots_offset), &off);
            }
        };
        // The compare-and-swap of the slot at `off`: `claim` the lanes that found it
        // empty, `hit` those and the lanes that found the tag.
        let cas = |e: &mut Emitter| {
            e.ins(format!(
                "global_atomic_cmpswap_x2 {}, {off}, {}, {base} {ret}",
                r.old.name(),
                r.data.name()
            ));
            e.ins("s_waitcnt vmcnt(0)");
            e.ins(format!("v_cmp_eq_u64_e64 {claim}, 0, {}", r.old.name()));
            e.ins(format!(
                "v_cmp_eq_u64_e64 {hit}, {}, {}",
                tag.name(),
                r.old.name()
            ));
            e.smask("s_or", &hit, &hit, &claim);
        };
        if probe_count(probing, known) == 1 {
            // The home slot (decision 0013): it holds 0 or this tag, and keeps the tag once
            // written, so a plain load that reads the tag says what the compare-and-swap
            // would return; the lanes it does not tell try the compare-and-swap.
            let found = cmp.clone();
            e.smov(exec, &pend);
            slot_of(e, 0);
            e.ins(format!(
                "global_load_dwordx2 {}, {off}, {base} {}",
                r.old.name(),
                t.coherent_load()
            ));
            e.ins("s_waitcnt vmcnt(0)");
            e.ins(format!(
                "v_cmp_eq_u64_e64 {found}, {}, {}",
                tag.name(),
                r.old.name()
            ));
            let tried = format!("{labels}_tried");
            e.smask("s_andn2", exec, exec, &found);
            e.ins(format!("s_cbranch_execz {tried}"));
            cas(e);
            e.smask("s_or", &found, &found, &hit);
            e.smov(exec, &claim);
            store_keys(cx, e, keys)?;
            e.label(&tried);
            e.smov(exec, &found);
            combine(cx, e, agg, value, region, bucket.as_ref(), grouped)?;
            e.smask("s_andn2", &pend, &pend, &found);
            e.ins(format!("s_cmp_eq_u{} {pend}, 0", t.wave));
            e.ins(format!("s_cbranch_scc1 {done}"));
        } else {
            for j in 0..HASH_MAX_PROBES {
                e.smov(exec, &pend);
                slot_of(e, j);
                cas(e);
                e.smask("s_andn2", &pend, &pend, &hit);
                e.smov(exec, &claim);
                store_keys(cx, e, keys)?;
                e.smov(exec, &hit);
                combine(cx, e, agg, value, region, bucket.as_ref(), grouped)?;
                e.ins(format!("s_cmp_eq_u{} {pend}, 0", t.wave));
                e.ins(format!("s_cbranch_scc1 {done}"));
            }
        }
        e.smov(exec, &pend);
        e.ins(format!("v_mov_b32_e32 {off}, 0x{:x}", region.drops_offset));
        e.ins(format!(
            "global_atomic_add_x2 {off}, {}, {base}",
            r.one.name()
        ));
    }
    e.label(&done);
    e.smov(exec, &upd);
    Ok(())
}

/// Stores the keys into the slot at `off` (for the lanes in `exec`).
fn store_keys(cx: &Cx<'_>, e: &mut Emitter, keys: &[Operand]) -> Result<(), Error> {
    let r = cx.regs;
    for (n, k) in keys.iter().enumerate() {
        let kv = src(cx, e, k, r.ta)?;
        e.ins(format!(
            "global_store_dwordx2 {}, {}, {} offset:{}",
            r.off.name(),
            kv.name(),
            r.base.name(),
            8 * (n + 1)
        ));
    }
    Ok(())
}

/// Where a `hist`/`lhist` update adds: a bucket known at compile time, or the VGPR
/// holding each lane's bucket byte offset.
#[derive(Debug, Clone, Copy)]
enum Bucket {
    Known(u64),
    Lanes(Reg),
}

/// Computes the bucket of a `hist`/`lhist` update for the lanes in `exec` (`None` for
/// the other aggregations). Clobbers `ta`, `tb`, `tc` and the compare mask.
fn bucket(
    cx: &Cx<'_>,
    e: &mut Emitter,
    agg: Aggregation,
    value: &ValueKind,
) -> Result<Option<Bucket>, Error> {
    let r = cx.regs;
    let cmp = r.cmp_mask(cx.t).name();
    let cmp = cmp.as_str();
    let (x, lhist) = match (agg, value) {
        (Aggregation::Hist(x), ValueKind::Hist) => (x, None),
        (Aggregation::Lhist(x), &ValueKind::Lhist { min, max, step }) => {
            (x, Some((min, max, step)))
        }
        (Aggregation::Hist(_) | Aggregation::Lhist(_), _) => {
            return Err(unsupported(format!(
                "{} on a map of another value kind",
                agg.mnemonic()
            )))
        }
        _ => return Ok(None),
    };
    if let Operand::Imm(c) = x {
        return Ok(Some(Bucket::Known(u64::from(match lhist {
            None => hist_bucket(c, 0),
            Some((min, max, step)) => lhist_bucket(c, min, max, step),
        }))));
    }
    let out = r.bucket.ok_or_else(|| unsupported("bucket register"))?;
    let xv = src(cx, e, &x, r.ta)?;
    let (b, t) = (lo(r.tc), hi(r.tc));
    match lhist {
        None => {
            // 65 - clz64(x): from the high half when it is not 0, else from the low
            // half (33 - ffbh), 1 for 0; 0 for negative values.
            e.ins(format!("v_ffbh_u32_e32 {b}, {}", lo(xv)));
            e.sub32(&b, "33", &b);
            e.ins(format!("v_cmp_eq_u32_e64 {cmp}, 0, {}", lo(xv)));
            e.ins(format!("v_cndmask_b32_e64 {b}, {b}, 1, {cmp}"));
            e.ins(format!("v_ffbh_u32_e32 {t}, {}", hi(xv)));
            e.sub32(&t, "0x41", &t);
            e.ins(format!("v_cmp_ne_u32_e64 {cmp}, 0, {}", hi(xv)));
            e.ins(format!("v_cndmask_b32_e64 {b}, {b}, {t}, {cmp}"));
            e.ins(format!("v_cmp_gt_i32_e64 {cmp}, 0, {}", hi(xv)));
            e.ins(format!("v_cndmask_b32_e64 {b}, {b}, 0, {cmp}"));
        }
        Some((min, max, step)) => {
            let last = lhist_buckets(min, max, step) - 1;
            let range = i128::from(max) - i128::from(min);
            if step <= 0 || range <= 0 {
                e.ins(format!("v_mov_b32_e32 {b}, 0x{last:x}"));
            } else {
                // 1 + (x - min) / step, for min <= x < max.
                e.imm64(r.tb, min as u64);
                e.sub64(r.tc, xv, r.tb);
                let step = step as u64;
                if step.is_power_of_two() {
                    e.shift64("v_lshrrev_b64", r.tc, r.tc, step.trailing_zeros());
                } else if range < 1 << 32 && step < 1 << 32 {
                    divu32(e, &b, &b, step as u32, &lo(r.tb), &hi(r.tb));
                } else {
                    return Err(unsupported(
                        "lhist with a step that is not a power of two over a range of 2^32 or more",
                    ));
                }
                e.add32(&b, "1", &b);
            }
            e.imm64(r.tb, max as u64);
            e.ins(format!(
                "v_cmp_ge_i64_e64 {cmp}, {}, {}",
                xv.name(),
                r.tb.name()
            ));
            e.ins(format!("v_mov_b32_e32 {t}, 0x{last:x}"));
            e.ins(format!("v_cndmask_b32_e64 {b}, {b}, {t}, {cmp}"));
            e.imm64(r.tb, min as u64);
            e.ins(format!(
                "v_cmp_lt_i64_e64 {cmp}, {}, {}",
                xv.name(),
                r.tb.name()
            ));
            e.ins(format!("v_cndmask_b32_e64 {b}, {b}, 0, {cmp}"));
        }
    }
    e.ins(format!("v_lshlrev_b32_e32 {}, 3, {b}", out.name()));
    Ok(Some(Bucket::Lanes(out)))
}

/// Combines the value into the slot at `off` (for the lanes in `exec`); `grouped`: for
/// the group whose lane count `one` holds, the operand the same in every lane.
fn combine(
    cx: &Cx<'_>,
    e: &mut Emitter,
    agg: Aggregation,
    value: &ValueKind,
    region: &MapRegion,
    bucket: Option<&Bucket>,
    grouped: bool,
) -> Result<(), Error> {
    let r = cx.regs;
    let v = region.value_offset_in_slot();
    let (off, base) = (r.off.name(), r.base.name());
    let signed = matches!(
        value,
        ValueKind::Min { signed: true } | ValueKind::Max { signed: true }
    );
    let at = |e: &mut Emitter, op: &str, data: Reg, word: u64| {
        e.ins(format!(
            "global_atomic_{op}_x2 {off}, {}, {base} offset:{}",
            data.name(),
            v + 8 * word
        ));
    };
    // A sum's operand: the lane's, or the group's `x · n`.
    let summand = |e: &mut Emitter, x: &Operand| -> Result<Reg, Error> {
        let xv = src(cx, e, x, r.ta)?;
        if !grouped {
            return Ok(xv);
        }
        e.mul64(r.tc, xv, r.one, r.tb);
        Ok(r.tc)
    };
    match agg {
        Aggregation::Count => at(e, "add", r.one, 0),
        Aggregation::Sum(x) => {
            let xv = summand(e, &x)?;
            at(e, "add", xv, 0);
        }
        Aggregation::Avg(x) | Aggregation::Stats(x) => {
            at(e, "add", r.one, 0);
            let xv = summand(e, &x)?;
            at(e, "add", xv, 1);
        }
        Aggregation::Max(x) | Aggregation::Min(x) => {
            let xv = src(cx, e, &x, r.ta)?;
            e.imm64(r.tb, if signed { 1 << 63 } else { 0 });
            e.bit64("xor", r.tc, xv, r.tb);
            if matches!(agg, Aggregation::Min(_)) {
                e.ins(format!("v_not_b32_e32 {}, {}", lo(r.tc), lo(r.tc)));
                e.ins(format!("v_not_b32_e32 {}, {}", hi(r.tc), hi(r.tc)));
            }
            at(e, "umax", r.tc, 0);
        }
        Aggregation::Assign(x) => {
            let xv = src(cx, e, &x, r.ta)?;
            at(e, "swap", xv, 0);
        }
        Aggregation::Hist(_) | Aggregation::Lhist(_) => {
            let a = lo(r.tc);
            match bucket.ok_or_else(|| unsupported("bucket"))? {
                Bucket::Known(b) if v + 8 * b <= MAX_OFFSET => at(e, "add", r.one, *b),
                Bucket::Known(b) => {
                    e.add32(&a, &format!("0x{:x}", v + 8 * b), &off);
                    e.ins(format!(
                        "global_atomic_add_x2 {a}, {}, {base}",
                        r.one.name()
                    ));
                }
                Bucket::Lanes(reg) => {
                    e.add32(&a, &off, &reg.name());
                    e.ins(format!(
                        "global_atomic_add_x2 {a}, {}, {base} offset:{v}",
                        r.one.name()
                    ));
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hist sequence on one value: what `bucket` emits, step by step.
    fn hist_model(x: u64) -> u32 {
        let (lo, hi) = (x as u32, (x >> 32) as u32);
        let ffbh = |v: u32| if v == 0 { u32::MAX } else { v.leading_zeros() };
        let mut b = 33u32.wrapping_sub(ffbh(lo));
        if lo == 0 {
            b = 1;
        }
        let t = 0x41u32.wrapping_sub(ffbh(hi));
        if hi != 0 {
            b = t;
        }
        if (hi as i32) < 0 {
            b = 0;
        }
        b
    }

    #[test]
    fn the_hist_sequence_is_ir_hist_bucket() {
        let mut xs: Vec<u64> = (0..200).collect();
        for k in 0..64 {
            let p = 1u64 << k;
            xs.extend([p, p - 1, p + 1, p.wrapping_neg(), !p]);
        }
        xs.extend([u64::MAX, i64::MAX as u64, i64::MIN as u64]);
        for x in xs {
            assert_eq!(hist_model(x), hist_bucket(x as i64, 0), "x = {x:#x}");
        }
    }
}
