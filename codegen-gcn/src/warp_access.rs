//! The warp-wide values of a memory access (`docs/ir.md`): `sectors`, `wavefronts` and
//! each lane's `run`, over the lanes that execute the access (`exec` at the site, which
//! the snippet saved). GCN has no `match`: each value is a waterfall over a per-lane key —
//! a round takes the first remaining lane's key (`v_readfirstlane`), finds the lanes with
//! the same key (`v_cmp_eq_u64`), accounts for them and removes them from `exec`; the
//! rounds end when `exec` is empty, so there are as many as distinct keys.
//!
//! The rounds are a loop, the one backward branch a snippet may have: the kernel model
//! (`model.rs`) accepts exactly this shape as a *waterfall* and proves
//! it bounded — every round removes the first lane of `exec` (its own key matches), so
//! there are at most as many rounds as lanes (decision 0021):
//!
//! ```text
//! L:  v_readfirstlane_b32 sA, vK            ; the first lane's key
//!     v_readfirstlane_b32 sA+1, vK+1
//!     v_cmp_eq_u64_e64 M, s[A:A+1], v[K:K+1] ; the lanes with it (the first among them)
//!     s_mov_b64 P, exec                      ; the remaining lanes
//!     ...                                    ; the round (no branch, no label, M and P kept)
//!     s_andn2_b64 exec, P, M
//!     s_cbranch_execnz L
//! ```
//!
//! | value | key | a round |
//! |---|---|---|
//! | `sectors` | `addr >> 5` | count it |
//! | `run` | `addr − lane · bytes` | the lanes found get the mask of the lanes found |
//! | `wavefronts` | the unit `addr >> u` (`wavefront_unit_log2`) | each lane of the unit's bank group (`unit mod 128 >> u`, in every lane of the site) counts one more unit; the result is the largest count |

use crate::emit::{hi, lo, Emitter};
use crate::lower::{unsupported, Cx, SiteInfo};
use crate::reg::Reg;
use crate::Error;
use warptrace_ir::{wavefront_unit_log2, SiteValue, SECTOR_BYTES, WAVEFRONT_BYTES};

/// `d` = the warp-wide `value` of the access at `site`, in the lanes the probe runs for
/// now. Registers: the site's key in `tc`, `run` in `tb`, `wavefronts`' group and count
/// in `ta`; the round's key in the scalar pair `cmp`, the lanes with it in `hit`, the
/// remaining ones in `pend`, the probe's `exec` in `upd_exec`, the count in `st`,
/// `wavefronts`' group in `claim`; `vcc` (the snippet saved it).
pub(crate) fn read(
    cx: &Cx<'_>,
    e: &mut Emitter,
    d: Reg,
    value: SiteValue,
    site: &SiteInfo,
    label: &str,
) -> Result<(), Error> {
    let r = cx.regs;
    let t = cx.t;
    let exec = t.exec();
    let bytes = site
        .bytes
        .ok_or_else(|| unsupported(format!("`{}` without an access size", value.name())))?;
    // The probe's lanes (a jump may have left fewer); the site's lanes run the rounds.
    e.smov(&r.upd_exec.name(), exec);
    e.smov(exec, &r.save_exec.name());
    crate::special::read_site(cx, e, r.tc, SiteValue::Addr, site, label)?;
    let groups = WAVEFRONT_BYTES >> wavefront_unit_log2(bytes);
    match value {
        SiteValue::Run => {
            let lane = lo(r.ta);
            e.lanes_below(&lane, ["-1", "-1"]);
            if bytes > 64 {
                return Err(unsupported(format!("`run` of a {bytes}-byte access")));
            }
            // `bytes` is an inline constant (0..=64).
            e.ins(format!("v_mul_lo_u32 {lane}, {lane}, {bytes}"));
            e.ins(format!("v_mov_b32_e32 {}, 0", hi(r.ta)));
            e.sub64(r.tc, r.tc, r.ta);
        }
        SiteValue::Sectors => {
            e.shift64("v_lshrrev_b64", r.tc, r.tc, SECTOR_BYTES.trailing_zeros());
        }
        SiteValue::Wavefronts => {
            e.shift64("v_lshrrev_b64", r.tc, r.tc, wavefront_unit_log2(bytes));
            e.ins(format!(
                "v_and_b32_e32 {}, {}, {}",
                lo(r.ta),
                groups - 1,
                lo(r.tc)
            ));
            e.ins(format!("v_mov_b32_e32 {}, 0", hi(r.ta)));
        }
        other => return Err(unsupported(format!("`{}` is not warp-wide", other.name()))),
    }
    let (st, hit, pend, cmp) = (r.st.name(), r.hit.name(), r.pend.name(), r.cmp.name());
    e.ins(format!("s_mov_b32 {st}, 0"));
    let (top, done) = (format!("{label}_wa"), format!("{label}_wa_done"));
    // No rounds for no lanes (a round would count the empty set's first lane, lane 0).
    e.ins(format!("s_cbranch_execz {done}"));
    e.label(&top);
    e.ins(format!("v_readfirstlane_b32 {}, {}", lo(r.cmp), lo(r.tc)));
    e.ins(format!("v_readfirstlane_b32 {}, {}", hi(r.cmp), hi(r.tc)));
    e.ins(format!("v_cmp_eq_u64_e64 {hit}, {cmp}, {}", r.tc.name()));
    e.smov(&pend, exec);
    match value {
        SiteValue::Run => {
            e.smov(exec, &hit);
            e.ins(format!("v_mov_b32_e32 {}, {}", lo(r.tb), lo(r.hit)));
            let high = if t.wave == 64 { hi(r.hit) } else { "0".into() };
            e.ins(format!("v_mov_b32_e32 {}, {high}", hi(r.tb)));
        }
        SiteValue::Sectors => e.ins(format!("s_add_u32 {st}, {st}, 1")),
        _ => {
            // Every lane of the site in the unit's group counts it.
            let group = lo(r.claim);
            let vcc = t.vcc();
            e.ins(format!("s_and_b32 {group}, {}, {}", lo(r.cmp), groups - 1));
            e.smov(exec, &r.save_exec.name());
            e.ins(format!("v_cmp_eq_u32_e32 {vcc}, {group}, {}", lo(r.ta)));
            e.smov(exec, vcc);
            e.add32(&hi(r.ta), "1", &hi(r.ta));
            e.ins(format!("v_readfirstlane_b32 {}, {}", hi(r.cmp), hi(r.ta)));
            e.ins(format!("s_max_u32 {st}, {st}, {}", hi(r.cmp)));
        }
    }
    e.smask("s_andn2", exec, &pend, &hit);
    e.ins(format!("s_cbranch_execnz {top}"));
    e.label(&done);
    e.smov(exec, &r.upd_exec.name());
    if value == SiteValue::Run {
        e.mov64(d, r.tb);
    } else {
        e.ins(format!("v_mov_b32_e32 {}, {st}", lo(d)));
        e.ins(format!("v_mov_b32_e32 {}, 0", hi(d)));
    }
    Ok(())
}
