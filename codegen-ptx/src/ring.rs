//! Ring appends (`map.append`, device `printf`), exactly per `docs/ir.md` and
//! `MapStore::decode_launch`:
//!
//! ```text
//! n = atom.global.add.u64 [cursor], 1
//! n >= capacity → red.add [drops], 1; drop: done; overwrite: go on (capacity 0: done)
//! slot = n mod capacity
//! st.global.u64 [record + 8*(1+i)], field_i      for every field
//! fence.acq_rel.gpu                              (overwrite only)
//! st.relaxed.gpu.global.u64 [record], n + 1      (`seq`, written last)
//! ```
//!
//! With `overflow = drop` no two appends share a slot and the host reads the buffer only
//! after the launch has completed, which makes every store visible: the fence would order
//! nothing anyone observes, and it is the costliest step (`MEMBAR.GPU` waits for the
//! warp's outstanding memory operations, the kernel's own loads included). With
//! `overwrite` two appends a lap apart write one slot, and the fence keeps each writer's
//! `seq` after its own fields.
//!
//! **Latched drops** (decision 0024). In a kernel (not a device function's clone) an
//! `overflow = drop` ring has a persistent register `d` per thread, zeroed by the
//! prologue: the appends this thread has dropped and not yet counted. A thread whose `d`
//! is non-zero has seen the ring full, and the cursor only grows, so every later append of
//! it would drop too: it adds one to `d` without touching the cursor. The first drop sets
//! `d` to one instead of incrementing the drop counter, and every exit of the kernel adds
//! `d` to the drop counter (`flush`). The drop counter ends as it would without the latch
//! and the records are the same ones; only the cursor ends smaller (still at least the
//! capacity), which the host reads only through `min(cursor, capacity)`:
//!
//! ```text
//! d != 0 → d = d + 1; done
//! n = atom.global.add.u64 [cursor], 1
//! n >= capacity → d = d + 1; done
//! (the stores above)
//! ```
//!
//! Without it a full ring costs every append a returning atomic on the cursor and a
//! reduction on the drop counter, both on one word per ring copy.
//!
//! Registers: `t0` n, `t1` slot index, `t2` record address, `t3` cursor address, `t4`
//! seq, `t5`/`t6` materialised immediates, `p0`.

use crate::lower::{reg, Emitter, BASE};
use warptrace_ir::{MapKind, MapRegion, Operand, Overflow};

/// The persistent register of map `map`'s latched drops (the module documentation).
pub(crate) fn latch(map: u32) -> String {
    reg("d", map)
}

/// Whether appends to `region` may be latched: an `overflow = drop` ring.
pub(crate) fn latches(region: &MapRegion) -> bool {
    matches!(
        region.kind,
        MapKind::Ring {
            overflow: Overflow::Drop,
            ..
        }
    )
}

/// Emits the count of `latch`'s drops into `region`'s drop counter (at a kernel exit).
pub(crate) fn flush(e: &mut Emitter, region: &MapRegion, latch: &str) {
    let p0 = reg("p", 0);
    e.insf(format_args!("setp.ne.u64 {p0}, {latch}, 0"));
    e.insf(format_args!(
        "@{p0} red.global.add.u64 [{BASE}+{}], {latch}",
        region.drops_offset
    ));
}

/// Emits an append of `fields` to the ring `region`; `labels` is a prefix unique to this
/// instruction within the kernel; `latched`, the ring's map id when the kernel latches
/// drops (used only by an `overflow = drop` ring: its register [`latch`]). The caller
/// checks the field count.
pub(crate) fn append(
    e: &mut Emitter,
    region: &MapRegion,
    fields: &[Operand],
    labels: &str,
    latched: Option<u32>,
) {
    let (t0, t1, t2, t3, t4) = (
        reg("t", 0),
        reg("t", 1),
        reg("t", 2),
        reg("t", 3),
        reg("t", 4),
    );
    let p0 = reg("p", 0);
    let overflow = match region.kind {
        MapKind::Ring { overflow, .. } => overflow,
        _ => Overflow::Drop,
    };
    let cap = u64::from(region.capacity);
    let drops = region.drops_offset;
    let done = format!("{labels}_done");
    let latch = latched.filter(|_| overflow == Overflow::Drop).map(latch);
    let latch = latch.as_deref();
    if let (Some(d), 0) = (latch, cap) {
        // Every append drops.
        e.insf(format_args!("add.u64 {d}, {d}, 1"));
        return;
    }
    let dropped = format!("{labels}_dropped");
    if let Some(d) = latch {
        e.insf(format_args!("setp.ne.u64 {p0}, {d}, 0"));
        e.insf(format_args!("@{p0} bra {dropped}"));
    }
    e.insf(format_args!(
        "add.s64 {t3}, {BASE}, {}",
        region.slots_offset
    ));
    e.insf(format_args!("atom.global.add.u64 {t0}, [{t3}], 1"));
    if cap == 0 {
        e.insf(format_args!("red.global.add.u64 [{BASE}+{drops}], 1"));
        return;
    }
    e.insf(format_args!("setp.ge.u64 {p0}, {t0}, {cap}"));
    let idx = match overflow {
        Overflow::Drop => {
            let keep = format!("{labels}_keep");
            e.insf(format_args!("@!{p0} bra {keep}"));
            match latch {
                Some(d) => {
                    e.label(&dropped);
                    e.insf(format_args!("add.u64 {d}, {d}, 1"));
                }
                None => e.insf(format_args!("red.global.add.u64 [{BASE}+{drops}], 1")),
            }
            e.insf(format_args!("bra {done}"));
            e.label(&keep);
            &t0
        }
        Overflow::Overwrite => {
            e.insf(format_args!("@{p0} red.global.add.u64 [{BASE}+{drops}], 1"));
            if cap.is_power_of_two() {
                e.insf(format_args!("and.b64 {t1}, {t0}, {}", cap - 1));
            } else {
                e.insf(format_args!("rem.u64 {t1}, {t0}, {cap}"));
            }
            &t1
        }
    };
    // Records start after the cursor word.
    e.insf(format_args!("add.s64 {t3}, {t3}, 8"));
    e.insf(format_args!(
        "mad.lo.u64 {t2}, {idx}, {}, {t3}",
        region.slot_bytes()
    ));
    for (i, f) in fields.iter().enumerate() {
        let f = e.src64(f, &reg("t", 5));
        e.insf(format_args!("st.global.u64 [{t2}+{}], {f}", 8 * (i + 1)));
    }
    if overflow == Overflow::Overwrite {
        e.ins("fence.acq_rel.gpu");
    }
    e.insf(format_args!("add.s64 {t4}, {t0}, 1"));
    e.insf(format_args!("st.relaxed.gpu.global.u64 [{t2}], {t4}"));
    if overflow == Overflow::Drop {
        e.label(&done);
    }
}
