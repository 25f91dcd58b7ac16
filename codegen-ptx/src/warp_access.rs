//! The site values `sectors`, `wavefronts` and `run` (`warptrace_ir::sectors`,
//! `warptrace_ir::wavefronts`, `warptrace_ir::run`): computed once, right after the site's
//! guard and before the probe body's first branch, over the lanes that run the site
//! together, into [`SECTORS`], [`WAVEFRONTS`] and [`RUN`]; `site` reads in the body copy
//! them.
//!
//! With `m` = `activemask` and `key` = `addr >> 5` (sectors) or `addr >> log2(u)`
//! (wavefronts, `u` the access unit):
//!
//! ```text
//! match.any.sync.b64  same, key, m        lanes with this lane's key
//! and (same & %lanemask_lt) == 0  → first  this lane is the lowest with its key
//! vote.sync.ballot    firsts, first, m    one lane per distinct key
//! sectors    = popc(firsts)
//! wavefronts = redux.max(popc(firsts & match.any(key mod G, m)))   distinct keys per group
//! run        = match.any(addr - %laneid * bytes, m)                 this lane's line
//! ```
//!
//! Every collective's mask is the one `activemask` read, with only straight-line code in
//! between (the kernel verifier's `WarpCollective` rule). `match.any.sync` needs sm_70
//! (PTX ISA 6.0), `redux.sync` sm_80 (7.0); on older targets reading the value is
//! `Unsupported`.
//!
//! Registers: `t0` the key, `t1` (run: `%laneid * bytes`), `s0` the mask, `s1`/`s2`
//! scratch, `p0`.

use crate::combine::WarpCaps;
use crate::lower::{reg, Emitter, SiteInfo};
use warptrace_ir::{wavefront_unit_log2, Insn, Probe, SiteValue, WAVEFRONT_BYTES};

/// The register `sectors` is computed into.
pub(crate) const SECTORS: &str = "%__wt_w0";
/// The register `wavefronts` is computed into.
pub(crate) const WAVEFRONTS: &str = "%__wt_w1";
/// The register `run` is computed into.
pub(crate) const RUN: &str = "%__wt_w2";

/// The warp-wide site values `probe` reads (in the order they are computed).
pub(crate) fn read_by(probe: &Probe) -> Vec<SiteValue> {
    [SiteValue::Sectors, SiteValue::Wavefronts, SiteValue::Run]
        .into_iter()
        .filter(|v| {
            probe
                .insns
                .iter()
                .any(|i| matches!(i, Insn::ReadSite { value, .. } if value == v))
        })
        .collect()
}

/// The register that holds `value` once [`emit`] has run.
pub(crate) fn register(value: SiteValue) -> Option<&'static str> {
    match value {
        SiteValue::Sectors => Some(SECTORS),
        SiteValue::Wavefronts => Some(WAVEFRONTS),
        SiteValue::Run => Some(RUN),
        _ => None,
    }
}

/// Emits the computation of `value` (`Sectors`, `Wavefronts` or `Run`) at a memory site;
/// the error says why it cannot be computed here.
pub(crate) fn emit(
    e: &mut Emitter,
    value: SiteValue,
    site: &SiteInfo<'_>,
    caps: WarpCaps,
) -> Result<(), String> {
    let name = value.name();
    let dst = register(value).ok_or_else(|| format!("`{name}` is not a warp-wide value"))?;
    if !caps.site_match {
        return Err(format!(
            "`{name}` needs `match.any.sync`: a target of sm_70 or later and PTX ISA 6.2"
        ));
    }
    let a = site
        .addr
        .ok_or_else(|| format!("`{name}` at a site without an address"))?;
    let (t0, s0, s1, s2, p0) = (
        reg("t", 0),
        reg("s", 0),
        reg("s", 1),
        reg("s", 2),
        reg("p", 0),
    );
    if value == SiteValue::Run {
        let bytes = site
            .bytes
            .ok_or_else(|| format!("`{name}` of an access without a constant width"))?;
        let t1 = reg("t", 1);
        e.insf(format_args!("activemask.b32 {s0}"));
        crate::lower::addr(e, &t0, a, site.reg_bits)?;
        e.insf(format_args!("mov.u32 {s1}, %laneid"));
        e.insf(format_args!("mul.wide.u32 {t1}, {s1}, {bytes}"));
        e.insf(format_args!("sub.s64 {t0}, {t0}, {t1}"));
        e.insf(format_args!("match.any.sync.b64 {s1}, {t0}, {s0}"));
        e.insf(format_args!("cvt.u64.u32 {dst}, {s1}"));
        return Ok(());
    }
    let shift = match value {
        SiteValue::Sectors => warptrace_ir::SECTOR_BYTES.trailing_zeros(),
        _ => {
            if !caps.site_redux {
                return Err(format!(
                    "`{name}` needs `redux.sync`: a target of sm_80 or later and PTX ISA 7.0"
                ));
            }
            let bytes = site
                .bytes
                .ok_or_else(|| format!("`{name}` of an access without a constant width"))?;
            wavefront_unit_log2(u64::from(bytes))
        }
    };
    e.insf(format_args!("activemask.b32 {s0}"));
    crate::lower::addr(e, &t0, a, site.reg_bits)?;
    e.insf(format_args!("shr.u64 {t0}, {t0}, {shift}"));
    e.insf(format_args!("match.any.sync.b64 {s1}, {t0}, {s0}"));
    e.insf(format_args!("mov.u32 {s2}, %lanemask_lt"));
    e.insf(format_args!("and.b32 {s1}, {s1}, {s2}"));
    e.insf(format_args!("setp.eq.u32 {p0}, {s1}, 0"));
    e.insf(format_args!("vote.sync.ballot.b32 {s1}, {p0}, {s0}"));
    if value == SiteValue::Wavefronts {
        let groups = WAVEFRONT_BYTES >> shift;
        e.insf(format_args!("cvt.u32.u64 {s2}, {t0}"));
        e.insf(format_args!("and.b32 {s2}, {s2}, {}", groups - 1));
        e.insf(format_args!("match.any.sync.b32 {s2}, {s2}, {s0}"));
        e.insf(format_args!("and.b32 {s1}, {s1}, {s2}"));
        e.insf(format_args!("popc.b32 {s1}, {s1}"));
        e.insf(format_args!("redux.sync.max.u32 {s1}, {s1}, {s0}"));
    } else {
        e.insf(format_args!("popc.b32 {s1}, {s1}"));
    }
    e.insf(format_args!("cvt.u64.u32 {dst}, {s1}"));
    Ok(())
}
