//! Array saves (`map.save`), exactly per `docs/ir.md` and `MapStore::decode_launch`:
//!
//! ```text
//! s = %cursor
//! s >= slots → the writer does red.add [drops], 1; done
//! %cursor = s + 1                                   (every lane that runs the save)
//! non-writers (the other lanes of a `warp` probe): done
//! index  = ((block · rows + row) · slots + s) · slot_bytes      (64-bit)
//! record = base + [base + array word] + index       (the runtime writes the array word)
//! per-warp arrays: [record] != 0 → red.add [drops], 1; done   (the slot is taken)
//! st.global.u64 [record + 8·(1+i)], field_i          for every field
//! st.global.u64 [record], s + 1                     (`seq`)
//! ```
//!
//! `block` is the linear block index (64-bit), `row` the linear thread index in the block
//! (`per = thread`) or that divided by 32 (`per = warp`), `rows` the threads per block or
//! its warps rounded up. No atomics: each record has one writer (the verifier's array
//! obligations prove records of distinct rows disjoint and inside the launch's region).
//!
//! Registers: `t0` index, `t1` rows then the record address, `t2` the records' offset,
//! `t3` the taken check and `seq`, `t4` `s`, `t5` materialised immediates, `s0`–`s3` the
//! 32-bit grid arithmetic, `p0`.

use crate::lower::{reg, Emitter, BASE};
use warptrace_ir::{MapKind, MapRegion, Operand, Per};

/// Emits a save of `fields` into the array `region` through the persistent cursor
/// `cursor`; `writer` is the predicate of the lane that writes in a `warp` probe (`None`:
/// every lane writes); `labels` is a prefix unique to this instruction within the kernel.
/// The caller checks the map kind and the field count.
pub(crate) fn save(
    e: &mut Emitter,
    region: &MapRegion,
    cursor: &str,
    fields: &[Operand],
    writer: Option<&str>,
    labels: &str,
) {
    let (t0, t1, t2, t3, t4) = (
        reg("t", 0),
        reg("t", 1),
        reg("t", 2),
        reg("t", 3),
        reg("t", 4),
    );
    let (s0, s1, s2, s3) = (reg("s", 0), reg("s", 1), reg("s", 2), reg("s", 3));
    let p0 = reg("p", 0);
    let (per, slots) = match region.kind {
        MapKind::Array { per, slots } => (per, slots),
        _ => (Per::Thread, 0),
    };
    let drops = region.drops_offset;
    let (drop, done) = (format!("{labels}_drop"), format!("{labels}_done"));
    e.insf(format_args!("setp.ge.u64 {p0}, {cursor}, {slots}"));
    e.insf(format_args!("@{p0} bra {drop}"));
    e.insf(format_args!("mov.b64 {t4}, {cursor}"));
    e.insf(format_args!("add.s64 {cursor}, {cursor}, 1"));
    if let Some(w) = writer {
        e.insf(format_args!("@!{w} bra {done}"));
    }
    // The linear block (64-bit): ctaid.x + nctaid.x · (ctaid.y + nctaid.y · ctaid.z).
    e.insf(format_args!("mov.u32 {s1}, %ctaid.z"));
    e.insf(format_args!("mov.u32 {s2}, %nctaid.y"));
    e.insf(format_args!("mov.u32 {s3}, %ctaid.y"));
    e.insf(format_args!("mad.lo.u32 {s1}, {s1}, {s2}, {s3}"));
    e.insf(format_args!("mov.u32 {s2}, %nctaid.x"));
    e.insf(format_args!("mul.wide.u32 {t0}, {s2}, {s1}"));
    e.insf(format_args!("mov.u32 {s3}, %ctaid.x"));
    e.insf(format_args!("cvt.u64.u32 {t1}, {s3}"));
    e.insf(format_args!("add.s64 {t0}, {t0}, {t1}"));
    // Threads per block (≤ 1024) and the linear thread index in the block.
    e.insf(format_args!("mov.u32 {s1}, %ntid.x"));
    e.insf(format_args!("mov.u32 {s2}, %ntid.y"));
    e.insf(format_args!("mul.lo.u32 {s1}, {s1}, {s2}"));
    e.insf(format_args!("mov.u32 {s2}, %ntid.z"));
    e.insf(format_args!("mul.lo.u32 {s1}, {s1}, {s2}"));
    e.insf(format_args!("mov.u32 {s0}, %tid.z"));
    e.insf(format_args!("mov.u32 {s2}, %ntid.y"));
    e.insf(format_args!("mov.u32 {s3}, %tid.y"));
    e.insf(format_args!("mad.lo.u32 {s0}, {s0}, {s2}, {s3}"));
    e.insf(format_args!("mov.u32 {s2}, %ntid.x"));
    e.insf(format_args!("mov.u32 {s3}, %tid.x"));
    e.insf(format_args!("mad.lo.u32 {s0}, {s0}, {s2}, {s3}"));
    if per == Per::Warp {
        e.insf(format_args!("add.u32 {s1}, {s1}, 31"));
        e.insf(format_args!("shr.u32 {s1}, {s1}, 5"));
        e.insf(format_args!("shr.u32 {s0}, {s0}, 5"));
    }
    // index = ((block · rows + row) · slots + s) · slot_bytes
    e.insf(format_args!("cvt.u64.u32 {t1}, {s1}"));
    e.insf(format_args!("cvt.u64.u32 {t2}, {s0}"));
    e.insf(format_args!("mad.lo.u64 {t0}, {t0}, {t1}, {t2}"));
    e.insf(format_args!("mad.lo.u64 {t0}, {t0}, {slots}, {t4}"));
    e.insf(format_args!(
        "mul.lo.u64 {t0}, {t0}, {}",
        region.slot_bytes()
    ));
    // The records' offset, written by the runtime for this launch.
    e.insf(format_args!(
        "ld.global.u64 {t2}, [{BASE}+{}]",
        region.slots_offset
    ));
    e.insf(format_args!("add.s64 {t1}, {BASE}, {t2}"));
    e.insf(format_args!("add.s64 {t1}, {t1}, {t0}"));
    if per == Per::Warp {
        e.insf(format_args!("ld.global.u64 {t3}, [{t1}]"));
        e.insf(format_args!("setp.ne.u64 {p0}, {t3}, 0"));
        e.insf(format_args!("@{p0} bra {drop}"));
    }
    for (i, f) in fields.iter().enumerate() {
        let f = e.src64(f, &reg("t", 5));
        e.insf(format_args!("st.global.u64 [{t1}+{}], {f}", 8 * (i + 1)));
    }
    e.insf(format_args!("add.s64 {t3}, {t4}, 1"));
    e.insf(format_args!("st.global.u64 [{t1}], {t3}"));
    e.insf(format_args!("bra {done}"));
    e.label(&drop);
    if let Some(w) = writer {
        e.insf(format_args!("@!{w} bra {done}"));
    }
    e.insf(format_args!("red.global.add.u64 [{BASE}+{drops}], 1"));
    e.label(&done);
}
