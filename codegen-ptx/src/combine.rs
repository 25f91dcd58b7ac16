//! Warp-combined `map.update`: one hash update per group of lanes instead of one per lane,
//! when every key is warp-uniform (`uniform.rs`).
//!
//! The group is the set of lanes that run the update together: the `activemask` read right
//! at the update (after every branch of the probe body, so lanes that diverged are not in
//! it). Its lowest lane, the leader, does the hash update with the group's amounts
//! ([`Amounts`]); the other lanes skip it:
//!
//! | aggregation | value | group operand | collectives |
//! |---|---|---|---|
//! | `count` | — | `n = popc(mask)` | none |
//! | `sum`, `avg`, `stats` | uniform `x` | `x * n` (and `n`) | none |
//! | `min`, `max`, `assign` | uniform `x` | `x` itself (the leader's) | none |
//! | `hist`, `lhist` | uniform `x` | `n` in `x`'s bucket | none |
//! | `sum`, `avg`, `stats` | per lane | `Σ x` from three `redux.sync.add.u32` of the 22/22/20-bit limbs | 3 (sm_80) |
//! | `min`, `max` | per lane | the largest encoded word: `redux.sync.max.u32` of the high halves, then of the low halves of the lanes that hold that maximum (others give 0) | 2 (sm_80) |
//!
//! Anything else (a key that may differ between lanes, a per-lane `hist`/`lhist`/`assign`
//! operand, a target without `activemask` or `redux.sync`, `warp` probes, which already
//! update once per warp) stays one update per thread.
//!
//! **Limbs.** `Σ x mod 2^64 = Σ_k 2^(22k) · Σ limb_k(x) mod 2^64` with `limb_0`, `limb_1` the
//! 22-bit fields at bits 0 and 22 and `limb_2` the 20 bits at 44. 32 lanes × (2^22 − 1) <
//! 2^27, so each 32-bit reduction is exact; the recombination wraps exactly as the IR's
//! 64-bit sum does.
//!
//! **Masks.** The kernel verifier accepts a collective only over the result of an
//! `activemask` of the same snippet with nothing but straight-line instructions in between
//! (`WarpCollective`), so each `redux.sync` has its own `activemask` right before it. The
//! lanes that run an `activemask` together all read the same mask, so a lane whose masks
//! are all equal (`M`) knows every lane of `M` saw `M` each time: the group is `M`, each
//! reduction was over `M`, and its leader updates for all of it. A lane whose masks differ
//! (lanes joined or left between the reductions, which straight-line code does not do on
//! current hardware) falls back to its own update — it is then in no agreeing group, so
//! no lane is counted twice or lost.
//!
//! **Drops.** A full table drops the group's update; the drop counter adds `n`, the number
//! of lane updates lost, exactly what the per-thread updates (and the IR interpreter, the
//! reference) count.
//!
//! Registers: `s0` the group mask — set to the lane's own bit when its masks disagree, the
//! only register besides `t7` that stays live through the slot search —, `s1` scratch, `s2`
//! the later masks / `%lanemask_eq`, `s3` the masks' differences, `s4` the high half of a
//! `max`, `t7` the group operand, `t8` the lane count (`popc s0`, computed where used),
//! `t9` this lane's own operand; `p0`.

use crate::aggregate::{Amounts, Combined};
use crate::hashmap;
use crate::lower::{reg, Emitter};
use crate::Error;
use warptrace_ir::uniform::Uniform;
use warptrace_ir::{Aggregation, Operand, ValueKind};

/// What the module's target offers warp combining.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct WarpCaps {
    /// `activemask` (sm_70 and PTX ISA 6.2), and combining not turned off.
    pub activemask: bool,
    /// `redux.sync` (sm_80 and PTX ISA 7.0).
    pub redux: bool,
    /// `activemask` and `match.any.sync` for the site values `sectors` and `wavefronts`
    /// (sm_70 and PTX ISA 6.2), whether or not combining is turned off.
    pub site_match: bool,
    /// `redux.sync` for `wavefronts` (sm_80 and PTX ISA 7.0), likewise.
    pub site_redux: bool,
}

impl WarpCaps {
    /// Nothing: every update per thread.
    pub const NONE: WarpCaps = WarpCaps {
        activemask: false,
        redux: false,
        site_match: false,
        site_redux: false,
    };
    /// sm_80 or later.
    #[cfg(test)]
    pub const SM80: WarpCaps = WarpCaps {
        activemask: true,
        redux: true,
        site_match: true,
        site_redux: true,
    };

    /// From the module's `.version` and `.target` directives; [`NONE`](Self::NONE) when
    /// either is missing or `WARPTRACE_NO_WARP_COMBINE` is set
    /// ([`warptrace_ir::uniform::disabled_by_env`]).
    pub fn of_module(src: &str) -> WarpCaps {
        let caps = WarpCaps::of_directives(src);
        if warptrace_ir::uniform::disabled_by_env() {
            return WarpCaps {
                activemask: false,
                redux: false,
                ..caps
            };
        }
        caps
    }

    fn of_directives(src: &str) -> WarpCaps {
        let mut version = None;
        let mut sm = None;
        // `.version` and `.target` open a module: stop once both are read (this runs
        // for every kernel of a module of thousands).
        for line in src.lines().map(str::trim) {
            if version.is_some() && sm.is_some() {
                break;
            }
            if let Some(v) = line.strip_prefix(".version") {
                let (major, minor) = v.trim().split_once('.').unwrap_or((v.trim(), "0"));
                let digits = |s: &str| -> Option<u32> {
                    let d: String = s.chars().take_while(char::is_ascii_digit).collect();
                    d.parse().ok()
                };
                version = digits(major).zip(digits(minor));
            } else if let Some(t) = line.strip_prefix(".target") {
                sm = t
                    .split(|c: char| c == ',' || c.is_whitespace())
                    .filter_map(|w| w.strip_prefix("sm_"))
                    .filter_map(|w| {
                        let d: String = w.chars().take_while(char::is_ascii_digit).collect();
                        d.parse::<u32>().ok()
                    })
                    .next();
            }
            if version.is_some() && sm.is_some() {
                break;
            }
        }
        let (Some(version), Some(sm)) = (version, sm) else {
            return WarpCaps::NONE;
        };
        let (sm70, sm80) = (sm >= 70 && version >= (6, 2), sm >= 80 && version >= (7, 0));
        WarpCaps {
            activemask: sm70,
            redux: sm80,
            site_match: sm70,
            site_redux: sm80,
        }
    }
}

pub(crate) use warptrace_ir::uniform::Plan;

/// Whether (and how) a `map.update` with `keys` (compile-time constants already folded)
/// and `agg` is combined within the warp: [`warptrace_ir::uniform::plan`], where the
/// target has `activemask`, and per-lane operands only where it has `redux.sync`.
pub(crate) fn plan(
    agg: Aggregation,
    keys: &[Operand],
    uniform: &Uniform,
    caps: WarpCaps,
) -> Option<Plan> {
    if !caps.activemask {
        return None;
    }
    warptrace_ir::uniform::plan(agg, keys, uniform).filter(|p| *p != Plan::Lanes || caps.redux)
}

/// `agg` with its operand mapped by `f`.
pub(crate) fn with_operand(agg: Aggregation, f: impl Fn(Operand) -> Operand) -> Aggregation {
    match agg {
        Aggregation::Count => Aggregation::Count,
        Aggregation::Sum(x) => Aggregation::Sum(f(x)),
        Aggregation::Min(x) => Aggregation::Min(f(x)),
        Aggregation::Max(x) => Aggregation::Max(f(x)),
        Aggregation::Avg(x) => Aggregation::Avg(f(x)),
        Aggregation::Stats(x) => Aggregation::Stats(f(x)),
        Aggregation::Hist(x) => Aggregation::Hist(f(x)),
        Aggregation::Lhist(x) => Aggregation::Lhist(f(x)),
        Aggregation::Assign(x) => Aggregation::Assign(f(x)),
    }
}

/// Bits of the sum limbs: `(position, width)`.
pub(crate) const LIMBS: [(u32, u32); 3] = [(0, 22), (22, 22), (44, 20)];

/// Emits the warp-combined `map.update` (see the module doc); `at` as for
/// `hashmap::map_update`.
pub(crate) fn map_update(
    e: &mut Emitter,
    at: hashmap::Target<'_>,
    keys: &[Operand],
    agg: Aggregation,
    value: &ValueKind,
    plan: Plan,
) -> Result<(), Error> {
    let labels = at.labels;
    let (s0, s1, s2, s3) = (reg("s", 0), reg("s", 1), reg("s", 2), reg("s", 3));
    let (t7, t9) = (reg("t", 7), reg("t", 9));
    let p0 = reg("p", 0);
    let skip = format!("{labels}_skip");
    e.comment(&format!(
        "warp-combined {}: one update per group of lanes",
        agg.mnemonic()
    ));
    // The lanes' own operand when the masks disagree (`Lanes` only).
    let mut own: Option<String> = None;
    match (plan, agg.operand()) {
        (Plan::Lanes, Some(Operand::Reg(r))) => {
            let x = reg("r", u32::from(r.0));
            match agg {
                Aggregation::Min(_) | Aggregation::Max(_) => {
                    let signed = match value {
                        ValueKind::Min { signed } | ValueKind::Max { signed } => *signed,
                        _ => return Err(mismatch(agg)),
                    };
                    encode(e, &t9, &x, matches!(agg, Aggregation::Min(_)), signed);
                    max_halves(e);
                    own = Some(t9.clone());
                }
                _ => {
                    sum_limbs(e, &x);
                    own = Some(x);
                }
            }
        }
        (Plan::Lanes, _) => return Err(mismatch(agg)),
        _ => e.insf(format_args!("activemask.b32 {s0}")),
    }
    if let Some(own) = &own {
        // Masks that disagree: this lane updates alone (its own mask), with its own
        // operand.
        e.insf(format_args!("setp.ne.u32 {p0}, {s3}, 0"));
        e.insf(format_args!("@{p0} mov.b64 {t7}, {own}"));
        e.insf(format_args!("@{p0} mov.u32 {s0}, %lanemask_eq"));
    }
    // The leader: the lowest lane of the group.
    e.insf(format_args!("neg.s32 {s1}, {s0}"));
    e.insf(format_args!("and.b32 {s1}, {s0}, {s1}"));
    e.insf(format_args!("mov.u32 {s2}, %lanemask_eq"));
    e.insf(format_args!("setp.ne.u32 {p0}, {s1}, {s2}"));
    e.insf(format_args!("@{p0} bra {skip}"));
    let sum_like = matches!(
        agg,
        Aggregation::Sum(_) | Aggregation::Avg(_) | Aggregation::Stats(_)
    );
    let combined = match plan {
        Plan::Lanes => Some(Combined::Reg(&t7)),
        Plan::Uniform if sum_like => Some(Combined::TimesLanes),
        _ => None,
    };
    // The lane count is computed where it is used, from the mask (`s0`), which the slot
    // search leaves alone.
    let amounts = Amounts {
        lanes: Some(&s0),
        value: combined,
    };
    hashmap::map_update_with(e, at, keys, agg, value, amounts)?;
    e.label(&skip);
    Ok(())
}

fn mismatch(agg: Aggregation) -> Error {
    Error::Unsupported {
        target: crate::TARGET,
        what: format!(
            "map.update {} on a map of another value kind",
            agg.mnemonic()
        ),
    }
}

/// `dst` = the `min`/`max` encoding of `x` (`!(x ^ bias)` / `x ^ bias`), as
/// `aggregate::combine` computes it.
fn encode(e: &mut Emitter, dst: &str, x: &str, is_min: bool, signed: bool) {
    let mut cur = x.to_owned();
    if signed {
        e.insf(format_args!("xor.b64 {dst}, {cur}, 0x8000000000000000"));
        cur = dst.to_owned();
    }
    if is_min {
        e.insf(format_args!("not.b64 {dst}, {cur}"));
        cur = dst.to_owned();
    }
    if cur != dst {
        e.insf(format_args!("mov.b64 {dst}, {cur}"));
    }
}

/// `t7` = the largest of the lanes' 64-bit words in `t9` (unsigned), `s0` the group mask,
/// `s3` the difference of the two masks.
fn max_halves(e: &mut Emitter) {
    let (s0, s1, s2, s3, s4) = (
        reg("s", 0),
        reg("s", 1),
        reg("s", 2),
        reg("s", 3),
        reg("s", 4),
    );
    let (t7, t8, t9) = (reg("t", 7), reg("t", 8), reg("t", 9));
    let p0 = reg("p", 0);
    e.insf(format_args!("shr.u64 {t7}, {t9}, 32"));
    e.insf(format_args!("cvt.u32.u64 {s1}, {t7}"));
    e.insf(format_args!("activemask.b32 {s0}"));
    e.insf(format_args!("redux.sync.max.u32 {s4}, {s1}, {s0}"));
    // Low halves of the lanes whose high half is the maximum; 0 from the others.
    e.insf(format_args!("setp.eq.u32 {p0}, {s1}, {s4}"));
    e.insf(format_args!("cvt.u32.u64 {s1}, {t9}"));
    e.insf(format_args!("selp.b32 {s1}, {s1}, 0, {p0}"));
    e.insf(format_args!("activemask.b32 {s2}"));
    e.insf(format_args!("redux.sync.max.u32 {s1}, {s1}, {s2}"));
    e.insf(format_args!("xor.b32 {s3}, {s0}, {s2}"));
    e.insf(format_args!("cvt.u64.u32 {t7}, {s4}"));
    e.insf(format_args!("shl.b64 {t7}, {t7}, 32"));
    e.insf(format_args!("cvt.u64.u32 {t8}, {s1}"));
    e.insf(format_args!("or.b64 {t7}, {t7}, {t8}"));
}

/// `t7` = the lanes' sum of `x` modulo 2^64 from three limb reductions ([`LIMBS`]), `s0`
/// the group mask, `s3` the OR of the later masks' differences from it.
fn sum_limbs(e: &mut Emitter, x: &str) {
    let (s0, s1, s2, s3) = (reg("s", 0), reg("s", 1), reg("s", 2), reg("s", 3));
    let (t7, t9) = (reg("t", 7), reg("t", 9));
    for (k, (pos, width)) in LIMBS.into_iter().enumerate() {
        let src = if pos == 0 {
            x.to_owned()
        } else {
            e.insf(format_args!("shr.u64 {t9}, {x}, {pos}"));
            t9.clone()
        };
        e.insf(format_args!("cvt.u32.u64 {s1}, {src}"));
        if pos + width < 64 {
            e.insf(format_args!("and.b32 {s1}, {s1}, {}", (1u32 << width) - 1));
        }
        let mask = if k == 0 { &s0 } else { &s2 };
        e.insf(format_args!("activemask.b32 {mask}"));
        e.insf(format_args!("redux.sync.add.u32 {s1}, {s1}, {mask}"));
        match k {
            0 => {}
            1 => e.insf(format_args!("xor.b32 {s3}, {s0}, {s2}")),
            _ => {
                e.insf(format_args!("xor.b32 {s2}, {s0}, {s2}"));
                e.insf(format_args!("or.b32 {s3}, {s3}, {s2}"));
            }
        }
        let dst = if k == 0 { &t7 } else { &t9 };
        e.insf(format_args!("cvt.u64.u32 {dst}, {s1}"));
        if pos > 0 {
            e.insf(format_args!("shl.b64 {t9}, {t9}, {pos}"));
            e.insf(format_args!("add.s64 {t7}, {t7}, {t9}"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_and_versions() {
        let caps = |v: &str, t: &str| {
            WarpCaps::of_directives(&format!(".version {v}\n.target {t}\n.address_size 64\n"))
        };
        assert_eq!(caps("8.7", "sm_90a"), WarpCaps::SM80);
        assert_eq!(caps("7.0", "sm_80"), WarpCaps::SM80);
        assert_eq!(
            caps("6.5", "sm_80"),
            WarpCaps {
                activemask: true,
                redux: false,
                site_match: true,
                site_redux: false,
            }
        );
        assert_eq!(
            caps("7.0", "sm_75"),
            WarpCaps {
                activemask: true,
                redux: false,
                site_match: true,
                site_redux: false,
            }
        );
        assert_eq!(caps("6.0", "sm_70"), WarpCaps::NONE);
        assert_eq!(caps("6.4", "sm_61, debug"), WarpCaps::NONE);
        assert_eq!(caps("8.0", "sm_100a, texmode_independent"), WarpCaps::SM80);
        assert_eq!(WarpCaps::of_directives(".version 8.0\n"), WarpCaps::NONE);
    }
}
