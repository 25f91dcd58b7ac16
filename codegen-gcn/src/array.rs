//! Array saves (`map.save`), exactly per `docs/ir.md` and `MapStore::decode_launch`, for
//! the lanes in `exec`:
//!
//! ```text
//! s = %cursor
//! s >= slots → the writer adds 1 to the drop counter; done
//! %cursor = s + 1                                   (every lane that runs the save)
//! non-writers (the other lanes of a `warp` probe): done
//! row    = linear work-item index (per = thread) or that / 32 (per = warp)
//! rows   = ntid.x·ntid.y·ntid.z (per = thread) or that rounded up to 32s / 32
//! block  = ctaid.x + nctaid.x·(ctaid.y + nctaid.y·ctaid.z)              (64-bit)
//! off    = [base + array word] + ((block·rows + row)·slots + s)·slot_bytes   (64-bit)
//! a dimension the hardware gives no id for, with a size above 1 → drop (the row or
//! block cannot be known); off ≥ 2^32 → drop (the `saddr` form's offset is 32-bit)
//! per-warp arrays: [base + off] != 0 → drop (the slot is taken)
//! global_store_dwordx2 [base + off + 8·(1+i)], field_i     every field
//! global_store_dwordx2 [base + off], s + 1                 (`seq`)
//! ```
//!
//! The grid values come from the hidden arguments the prologue loaded (`docs/gcn.md`).
//! No atomics: each record has one writer.

use crate::emit::{hi, lo, Emitter};
use crate::lower::{unsupported, Cx};
use crate::reg::Reg;
use crate::ring::store_fields;
use crate::special::{field, linear_block, linear_tid};
use crate::Error;
use warptrace_ir::{MapKind, MapRegion, Operand, Per};

/// Emits a save of `fields` into the array `region` through the persistent cursor pair
/// `cursor`; `lead` is the leader's bit in a `warp` probe (`None`: every lane writes).
pub(crate) fn save(
    cx: &Cx<'_>,
    e: &mut Emitter,
    region: &MapRegion,
    cursor: Reg,
    fields: &[Operand],
    lead: Option<Reg>,
    labels: &str,
) -> Result<(), Error> {
    let r = cx.regs;
    let t = cx.t;
    let exec = t.exec();
    let MapKind::Array { per, slots } = region.kind else {
        return Err(unsupported("map.save to a map that is not an array"));
    };
    let (base, off, one) = (r.base.name(), r.off.name(), r.one.name());
    let (upd, cmp, writers, bad) = (
        r.upd_exec.name(),
        r.cmp_mask(t).name(),
        r.pend.name(),
        r.hit.name(),
    );
    let done = format!("{labels}_done");
    e.memory = true;
    e.smov(&upd, exec);
    e.imm64(r.one, 1);
    let drop = |e: &mut Emitter| {
        e.ins(format!("v_mov_b32_e32 {off}, 0x{:x}", region.drops_offset));
        e.ins(format!("global_atomic_add_x2 {off}, {one}, {base}"));
    };
    // Cursors at or past the slots: the writers count a drop.
    e.imm64(r.tb, u64::from(slots));
    e.ins(format!(
        "v_cmp_ge_u64_e64 {cmp}, {}, {}",
        cursor.name(),
        r.tb.name()
    ));
    e.smask("s_and", exec, &upd, &cmp);
    if let Some(l) = lead {
        e.smask("s_and", exec, exec, &l.name());
    }
    drop(e);
    // The others take slot s and advance their cursor.
    e.smask("s_andn2", exec, &upd, &cmp);
    e.mov64(r.old, cursor);
    e.add64(cursor, cursor, r.one);
    if let Some(l) = lead {
        e.smask("s_and", exec, exec, &l.name());
    }
    e.smov(&writers, exec);
    e.ins(format!("{} {done}", "s_cbranch_execz"));
    // Lanes whose record cannot be placed.
    e.smov(&bad, "0");
    let unknown = |e: &mut Emitter, f: Option<crate::lower::Field>| -> Result<(), Error> {
        let f = f.ok_or_else(|| unsupported("array maps without the hidden grid arguments"))?;
        field(e, &lo(r.tb), f);
        e.ins(format!("v_cmp_ne_u32_e64 {cmp}, 1, {}", lo(r.tb)));
        e.smask("s_or", &bad, &bad, &cmp);
        Ok(())
    };
    for d in (cx.workitem_dims + 1)..3 {
        unknown(e, cx.grid.ntid[d as usize])?;
    }
    for d in 1..3 {
        if r.ctaid[d].is_none() {
            unknown(e, cx.grid.nctaid[d])?;
        }
    }
    // block (64-bit) in tc; rows in lo(tb), hi(tb) = 0.
    linear_block(cx, e, r.tc, true, &lo(r.tb))?;
    let ntid = |d: usize| {
        cx.grid.ntid[d].ok_or_else(|| unsupported("array maps without the hidden grid arguments"))
    };
    field(e, &lo(r.tb), ntid(0)?);
    field(e, &hi(r.tb), ntid(1)?);
    e.ins(format!(
        "v_mul_lo_u32 {}, {}, {}",
        lo(r.tb),
        lo(r.tb),
        hi(r.tb)
    ));
    field(e, &hi(r.tb), ntid(2)?);
    e.ins(format!(
        "v_mul_lo_u32 {}, {}, {}",
        lo(r.tb),
        lo(r.tb),
        hi(r.tb)
    ));
    if per == Per::Warp {
        e.add32(&lo(r.tb), "31", &lo(r.tb));
        e.ins(format!("v_lshrrev_b32_e32 {}, 5, {}", lo(r.tb), lo(r.tb)));
    }
    e.ins(format!("v_mov_b32_e32 {}, 0", hi(r.tb)));
    let d01 = Reg::new(r.data.file, r.data.first, 2);
    e.mul64(r.tc, r.tc, r.tb, d01);
    // + row
    linear_tid(cx, e, &lo(r.tb), &hi(r.tb))?;
    if per == Per::Warp {
        e.ins(format!("v_lshrrev_b32_e32 {}, 5, {}", lo(r.tb), lo(r.tb)));
    }
    e.ins(format!("v_mov_b32_e32 {}, 0", hi(r.tb)));
    e.add64(r.tc, r.tc, r.tb);
    // · slots + s, · slot_bytes
    e.imm64(r.tb, u64::from(slots));
    e.mul64(r.tc, r.tc, r.tb, d01);
    e.add64(r.tc, r.tc, r.old);
    e.imm64(r.tb, region.slot_bytes());
    e.mul64(r.tc, r.tc, r.tb, d01);
    // + the records' offset, which the runtime writes into the array word.
    e.ins(format!("v_mov_b32_e32 {off}, 0x{:x}", region.slots_offset));
    e.ins(format!(
        "global_load_dwordx2 {}, {off}, {base}",
        r.tb.name()
    ));
    e.ins("s_waitcnt vmcnt(0)");
    e.add64(r.tc, r.tc, r.tb);
    e.ins(format!("v_cmp_ne_u32_e64 {cmp}, 0, {}", hi(r.tc)));
    e.smask("s_or", &bad, &bad, &cmp);
    e.ins(format!("v_mov_b32_e32 {off}, {}", lo(r.tc)));
    if per == Per::Warp {
        // A record already written (its seq is not 0) is not overwritten.
        e.smask("s_andn2", exec, &writers, &bad);
        e.ins(format!(
            "global_load_dwordx2 {}, {off}, {base}",
            r.tb.name()
        ));
        e.ins("s_waitcnt vmcnt(0)");
        e.ins(format!("v_cmp_ne_u64_e64 {cmp}, 0, {}", r.tb.name()));
        e.smask("s_and", &cmp, exec, &cmp);
        e.smask("s_or", &bad, &bad, &cmp);
    }
    e.smask("s_and", exec, &writers, &bad);
    drop(e);
    e.smask("s_andn2", exec, &writers, &bad);
    e.ins(format!("v_mov_b32_e32 {off}, {}", lo(r.tc)));
    store_fields(cx, e, fields)?;
    e.add64(r.tb, r.old, r.one);
    e.ins(format!(
        "global_store_dwordx2 {off}, {}, {base}",
        r.tb.name()
    ));
    e.label(&done);
    e.smov(exec, &upd);
    Ok(())
}
