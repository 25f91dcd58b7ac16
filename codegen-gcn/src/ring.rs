//! Ring appends (`map.append`, device `printf`), exactly per `docs/ir.md` and
//! `MapStore::decode_launch`, for the lanes in `exec`:
//!
//! ```text
//! n = global_atomic_add_x2 [base + cursor], 1   (returning; one per lane — or, combined
//!     within the wave, one for the lanes in exec by the lowest of them, adding their
//!     count, and each lane's n = that first n + its rank among them: `v_readfirstlane`
//!     and `v_mbcnt` of `exec`; decision 0036)
//! capacity 0: every lane adds 1 to the drop counter; done
//! n >= capacity → global_atomic_add_x2 [base + drops], 1
//!     drop: those lanes are done; overwrite: they go on
//! overwrite: slot = n mod capacity (an and for a power of two; otherwise the 32-bit
//!            quotient by multiplication, and lanes whose n needs more than 32 bits,
//!            already counted as overwrites, write nothing)
//! off = slots_offset + 8 + slot * slot_bytes                 (32-bit)
//! global_store_dwordx2 [base + off + 8*(1+i)], field_i      every field
//! release (s_waitcnt vmcnt(0); gfx942: buffer_wbl2 sc1 first; gfx10+: vscnt too)
//! global_store_dwordx2 [base + off], n + 1                   (`seq`, written last)
//! ```

use crate::combine::Combining;
use crate::emit::{hi, lo, Emitter, MAX_OFFSET};
use crate::lower::{src, unsupported, Cx};
use crate::reg::{Reg, RegFile};
use crate::Error;
use warptrace_ir::{MapKind, MapRegion, Operand, Overflow};

/// The magic numbers of the unsigned 32-bit division by `d` (`d >= 2`, not a power of
/// two): `(m, s)` with `q = (t + ((n - t) >> 1)) >> (s - 1)`, `t = mulhi(n, m)`, exact
/// for every 32-bit `n` (the round-up method with a 33-bit multiplier).
pub(crate) fn divu_magic(d: u32) -> (u32, u32) {
    let s = 32 - (d - 1).leading_zeros(); // ceil(log2 d)
    let m = ((1u64 << 32) * ((1u64 << s) - u64::from(d))) / u64::from(d) + 1;
    (m as u32, s)
}

/// Emits `q = n / d` (32-bit VGPR names; `t` a scratch VGPR, `mreg` one for the
/// multiplier; `q` may be `n` only after `t` is computed — it is written last).
pub(crate) fn divu32(e: &mut Emitter, q: &str, n: &str, d: u32, t: &str, mreg: &str) {
    if d.is_power_of_two() {
        e.ins(format!(
            "v_lshrrev_b32_e32 {q}, {}, {n}",
            d.trailing_zeros()
        ));
        return;
    }
    let (m, s) = divu_magic(d);
    e.ins(format!("v_mov_b32_e32 {mreg}, 0x{m:x}"));
    e.ins(format!("v_mul_hi_u32 {t}, {n}, {mreg}"));
    e.sub32(mreg, n, t);
    e.ins(format!("v_lshrrev_b32_e32 {mreg}, 1, {mreg}"));
    e.add32(mreg, mreg, t);
    e.ins(format!("v_lshrrev_b32_e32 {q}, {}, {mreg}", s - 1));
}

/// Stores `fields` into the record at `off` (for the lanes in `exec`), fields from byte 8.
pub(crate) fn store_fields(cx: &Cx<'_>, e: &mut Emitter, fields: &[Operand]) -> Result<(), Error> {
    let r = cx.regs;
    for (i, f) in fields.iter().enumerate() {
        let at = 8 * (i as u64 + 1);
        if at > MAX_OFFSET {
            return Err(unsupported("a record of more than 254 fields"));
        }
        let v = src(cx, e, f, r.ta)?;
        e.ins(format!(
            "global_store_dwordx2 {}, {}, {} offset:{at}",
            r.off.name(),
            v.name(),
            r.base.name()
        ));
    }
    Ok(())
}

/// Emits an append of `fields` to the ring `region` for the lanes in `exec`. The caller
/// checks the map kind and the field count.
pub(crate) fn append(
    cx: &Cx<'_>,
    e: &mut Emitter,
    region: &MapRegion,
    fields: &[Operand],
) -> Result<(), Error> {
    let r = cx.regs;
    let t = cx.t;
    let exec = t.exec();
    let (base, off, one, old) = (r.base.name(), r.off.name(), r.one.name(), r.old.name());
    let (upd, cmp) = (r.upd_exec.name(), r.cmp_mask(t).name());
    let overflow = match region.kind {
        MapKind::Ring { overflow, .. } => overflow,
        _ => return Err(unsupported("map.append to a map that is not a ring")),
    };
    let cap = region.capacity;
    e.memory = true;
    e.smov(&upd, exec);
    let grouped = cx.combining != Combining::Off;
    if grouped {
        // The cursor: once for the lanes in `exec`, by the lowest, adding their count.
        let (st, pend) = (r.st.name(), r.pend.name());
        e.ins(format!("{} {st}, {exec}", t.s("s_bcnt1_i32")));
        e.ins(format!("v_mov_b32_e32 {}, {st}", lo(r.one)));
        e.ins(format!("v_mov_b32_e32 {}, 0", hi(r.one)));
        e.first_lane(&pend, &st);
        e.smask("s_and", exec, exec, &pend);
    } else {
        e.imm64(r.one, 1);
    }
    e.ins(format!("v_mov_b32_e32 {off}, 0x{:x}", region.slots_offset));
    e.ins(format!(
        "global_atomic_add_x2 {old}, {off}, {one}, {base} {}",
        t.returning()
    ));
    e.ins("s_waitcnt vmcnt(0)");
    if grouped {
        // Each lane's n: the leader's (the first lane of `exec`), plus the lanes of
        // `exec` below it.
        e.smov(exec, &upd);
        let (first_lo, first_hi) = (
            Reg::new(RegFile::Sgpr, r.claim.first, 1).name(),
            Reg::new(RegFile::Sgpr, r.hit.first, 1).name(),
        );
        e.ins(format!("v_readfirstlane_b32 {first_lo}, {}", lo(r.old)));
        e.ins(format!("v_readfirstlane_b32 {first_hi}, {}", hi(r.old)));
        e.ins(format!("v_mov_b32_e32 {}, {first_lo}", lo(r.tc)));
        e.ins(format!("v_mov_b32_e32 {}, {first_hi}", hi(r.tc)));
        e.lanes_below(&lo(r.tb), ["exec_lo", "exec_hi"]);
        e.ins(format!("v_mov_b32_e32 {}, 0", hi(r.tb)));
        e.add64(r.old, r.tc, r.tb);
        e.ins(format!("v_mov_b32_e32 {}, 1", lo(r.one)));
    }
    let drops = |e: &mut Emitter| {
        e.ins(format!("v_mov_b32_e32 {off}, 0x{:x}", region.drops_offset));
        e.ins(format!("global_atomic_add_x2 {off}, {one}, {base}"));
    };
    if cap == 0 {
        drops(e);
        e.smov(exec, &upd);
        return Ok(());
    }
    // Lanes whose n is at or past the capacity count a drop (or an overwrite).
    e.imm64(r.tb, u64::from(cap));
    e.ins(format!("v_cmp_ge_u64_e64 {cmp}, {old}, {}", r.tb.name()));
    e.smask("s_and", exec, &upd, &cmp);
    drops(e);
    let slot = lo(r.ta);
    match overflow {
        Overflow::Drop => {
            e.smask("s_andn2", exec, &upd, &cmp);
            e.ins(format!("v_mov_b32_e32 {slot}, {}", lo(r.old)));
        }
        Overflow::Overwrite => {
            e.smov(exec, &upd);
            if cap.is_power_of_two() {
                e.ins(format!(
                    "v_and_b32_e32 {slot}, 0x{:x}, {}",
                    cap - 1,
                    lo(r.old)
                ));
            } else {
                // n mod cap in 32 bits: lanes whose n needs more write nothing.
                e.ins(format!("v_cmp_ne_u32_e64 {cmp}, 0, {}", hi(r.old)));
                e.smask("s_andn2", exec, exec, &cmp);
                divu32(e, &slot, &lo(r.old), cap, &lo(r.tb), &hi(r.tb));
                e.ins(format!("v_mov_b32_e32 {}, 0x{cap:x}", lo(r.tb)));
                e.ins(format!("v_mul_lo_u32 {slot}, {slot}, {}", lo(r.tb)));
                e.sub32(&slot, &lo(r.old), &slot);
            }
        }
    }
    // off = slots_offset + 8 + slot * slot_bytes
    e.ins(format!(
        "v_mov_b32_e32 {}, 0x{:x}",
        hi(r.ta),
        region.slot_bytes()
    ));
    e.ins(format!("v_mul_lo_u32 {off}, {slot}, {}", hi(r.ta)));
    e.add32(&off, &format!("0x{:x}", region.slots_offset + 8), &off);
    store_fields(cx, e, fields)?;
    e.release();
    e.add64(r.tb, r.old, r.one);
    e.ins(format!(
        "global_store_dwordx2 {off}, {}, {base}{}",
        r.tb.name(),
        e.release_store_bits()
    ));
    e.smov(exec, &upd);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the emitted division computes.
    fn divu_model(n: u32, m: u32, s: u32) -> u32 {
        let t = ((u64::from(n) * u64::from(m)) >> 32) as u32;
        (t + ((n - t) >> 1)) >> (s - 1)
    }

    #[test]
    fn the_division_by_multiplication_is_exact() {
        let mut x = 0x9e37_79b9u32;
        for d in [
            3u32,
            5,
            6,
            7,
            10,
            12,
            100,
            641,
            1000,
            65_537,
            1_000_000,
            0x7fff_ffff,
            0xffff_fffe,
            0xffff_ffff,
        ] {
            let (m, s) = divu_magic(d);
            let mut ns = vec![
                0u32,
                1,
                d - 1,
                d,
                d.wrapping_add(1),
                u32::MAX,
                u32::MAX - 1,
                u32::MAX / d * d,
            ];
            for _ in 0..20_000 {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                ns.push(x);
                ns.push(x % (d.saturating_mul(4)));
            }
            for n in ns {
                assert_eq!(divu_model(n, m, s), n / d, "{n} / {d}");
            }
        }
    }
}
