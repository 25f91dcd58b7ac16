//! How each aggregation combines into a hash slot's value words, once the slot is found or
//! claimed — the device side of `docs/ir.md`'s value table (`Update::word_ops`):
//!
//! | aggregation | words | device operations (slot address in `t2`, value words at `+V`) |
//! |---|---|---|
//! | `count` | 1 | `red.add [V], 1` |
//! | `sum x` | 1 | `red.add [V], x` |
//! | `min x` | 1 | `red.max.u64 [V], !(x ^ bias)` |
//! | `max x` | 1 | `red.max.u64 [V], x ^ bias` |
//! | `avg x`, `stats x` | 2 | `red.add [V], 1; red.add [V+8], x` |
//! | `hist x` | 65 | `red.add [V + 8*b], 1`, `b = x < 0 ? 0 : 65 - clz(x)` |
//! | `lhist x` | `(MAX-MIN)/STEP + 2` | `red.add [V + 8*b], 1`, `b` = [`lhist_model`] |
//! | `assign x` | 1 | `atom.exch.b64 [V], x` |
//!
//! `bias` = 2^63 for signed values, else 0. With an immediate operand the encoding or the
//! bucket is computed at compile time. Registers: `t0` (encoding, bucket offset), `t4`
//! (the exchange's old value), `t5`/`t6` (materialised immediates), `s0`, `p0`.
//!
//! A warp-combined update (`combine.rs`) does the same operations once for a group of
//! lanes, with [`Amounts`]: the `1`s become the number of lanes (`popc` of the group's
//! mask, `t8`), and the operand of `sum`/`avg`/`stats` the lanes' sum (a register computed
//! before the slot is found, or `x · n` in `t7`) or of `min`/`max` the largest encoded word.

use crate::lower::{reg, Emitter};
use crate::Error;
use warptrace_ir::{
    hist_bucket, lhist_bucket, lhist_buckets, max_encode, min_encode, Aggregation, Operand,
    ValueKind,
};

/// `hist` bucket of a non-negative value: `HIST_CLZ_BASE - clz64(x)` (1 for 0, `2 + k`
/// for `[2^k, 2^(k+1))`); negative values go to bucket 0.
pub(crate) const HIST_CLZ_BASE: u32 = 65;

/// The `hist` bucket exactly as the emitted sequence computes it (`clz`, `sub`, `selp`).
#[cfg(test)]
pub(crate) fn hist_model(x: u64) -> u32 {
    let b = HIST_CLZ_BASE.wrapping_sub(x.leading_zeros());
    if (x as i64) < 0 {
        0
    } else {
        b
    }
}

/// The `lhist` bucket exactly as the emitted sequence computes it: 64-bit wrapping
/// `1 + (x - MIN) / STEP` (unsigned division; skipped when `STEP <= 0`), clamped to the
/// last bucket, then `x >= MAX` → last, `x < MIN` → 0 (signed compares, in that order).
#[cfg(test)]
pub(crate) fn lhist_model(x: u64, min: i64, max: i64, step: i64) -> u64 {
    let last = u64::from(lhist_buckets(min, max, step)) - 1;
    let mut b = if step > 0 {
        (x.wrapping_sub(min as u64) / step as u64)
            .wrapping_add(1)
            .min(last)
    } else {
        last
    };
    if x as i64 >= max {
        b = last;
    }
    if (x as i64) < min {
        b = 0;
    }
    b
}

fn unsupported(what: String) -> Error {
    Error::Unsupported {
        target: crate::TARGET,
        what,
    }
}

/// `0x…` text of a 64-bit constant.
fn hex(v: u64) -> String {
    format!("0x{v:016X}")
}

/// A 64-bit immediate operand: inline when small, else materialised into `tmp`.
fn in_reg(e: &mut Emitter, op: &Operand, tmp: &str) -> String {
    e.src64(op, tmp)
}

/// `red.global.add.u64 [t2 + V + 8*bucket], n` for a bucket index in `t0` (64-bit).
fn add_at_bucket(e: &mut Emitter, v: u64, n: &str) {
    let (t0, t2) = (reg("t", 0), reg("t", 2));
    e.insf(format_args!("shl.b64 {t0}, {t0}, 3"));
    e.insf(format_args!("add.s64 {t0}, {t0}, {t2}"));
    e.insf(format_args!("red.global.add.u64 [{t0}+{v}], {n}"));
}

/// What one update adds: for one thread `1` and the aggregation's own operand; for a
/// warp-combined update the number of lanes and the lanes' combined operand.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Amounts<'a> {
    /// The group's mask register (`None`: one thread). What `count`, the count word of
    /// `avg`/`stats`, a `hist`/`lhist` bucket and the drop counter add is `1`, or the
    /// population count of this mask, computed into `t8` where it is used (so the 32-bit
    /// mask is all that stays live through the slot search).
    pub lanes: Option<&'a str>,
    /// The group's operand, replacing the aggregation's (`None`: the aggregation's own).
    pub value: Option<Combined<'a>>,
}

/// A warp-combined group's operand.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Combined<'a> {
    /// In a register: the lanes' sum (`sum`, `avg`, `stats`) or the largest encoded word
    /// (`min`, `max`, already encoded).
    Reg(&'a str),
    /// The aggregation's operand (the same in every lane) times the lane count: computed
    /// into `t7` where it is used.
    TimesLanes,
}

impl Amounts<'static> {
    /// One thread's update.
    pub const THREAD: Amounts<'static> = Amounts {
        lanes: None,
        value: None,
    };
}

impl Amounts<'_> {
    /// The operand text of the lane count, emitting its computation (`popc`, widened into
    /// `t8`; scratch `s1`) for a group.
    pub fn lane_count(&self, e: &mut Emitter) -> String {
        match self.lanes {
            None => "1".to_owned(),
            Some(mask) => {
                let (s1, t8) = (reg("s", 1), reg("t", 8));
                e.insf(format_args!("popc.b32 {s1}, {mask}"));
                e.insf(format_args!("cvt.u64.u32 {t8}, {s1}"));
                t8
            }
        }
    }

    /// The operand text replacing `x`, emitting what it needs; `x` itself (an immediate
    /// materialised in `tmp`) without a group operand.
    fn operand(&self, e: &mut Emitter, x: &Operand, tmp: &str) -> String {
        match self.value {
            Some(Combined::Reg(r)) => r.to_owned(),
            Some(Combined::TimesLanes) => {
                let n = self.lane_count(e);
                let x = e.src64(x, tmp);
                let t7 = reg("t", 7);
                e.insf(format_args!("mul.lo.u64 {t7}, {n}, {x}"));
                t7
            }
            None => e.src64(x, tmp),
        }
    }
}

/// Emits the combination of `agg` into the value words at `[t2 + v]` of a map whose
/// value is `value`.
pub(crate) fn combine(
    e: &mut Emitter,
    agg: Aggregation,
    value: &ValueKind,
    v: u64,
) -> Result<(), Error> {
    combine_with(e, agg, value, v, Amounts::THREAD)
}

/// [`combine`] adding `amounts` (one thread's, or a warp-combined group's).
pub(crate) fn combine_with(
    e: &mut Emitter,
    agg: Aggregation,
    value: &ValueKind,
    v: u64,
    amounts: Amounts<'_>,
) -> Result<(), Error> {
    let (t0, t2, t4, t5, t6) = (
        reg("t", 0),
        reg("t", 2),
        reg("t", 4),
        reg("t", 5),
        reg("t", 6),
    );
    let (s0, p0) = (reg("s", 0), reg("p", 0));
    match (agg, value) {
        (Aggregation::Count, ValueKind::Count) => {
            let n = amounts.lane_count(e);
            e.insf(format_args!("red.global.add.u64 [{t2}+{v}], {n}"));
        }
        (Aggregation::Sum(x), ValueKind::Sum { .. }) => {
            let x = amounts.operand(e, &x, &t6);
            e.insf(format_args!("red.global.add.u64 [{t2}+{v}], {x}"));
        }
        (Aggregation::Min(x), &ValueKind::Min { signed })
        | (Aggregation::Max(x), &ValueKind::Max { signed }) => {
            let is_min = matches!(agg, Aggregation::Min(_));
            // A group's word comes encoded; `x · n` has no meaning for a maximum.
            let group = match amounts.value {
                Some(Combined::Reg(w)) => Some(w),
                _ => None,
            };
            let word = match (group, x) {
                (Some(w), _) => w.to_owned(),
                (None, Operand::Imm(c)) => {
                    let c = c as u64;
                    let w = if is_min {
                        min_encode(c, signed)
                    } else {
                        max_encode(c, signed)
                    };
                    e.insf(format_args!("mov.b64 {t0}, {}", hex(w)));
                    t0.clone()
                }
                (None, Operand::Reg(r)) => {
                    let x = reg("r", u32::from(r.0));
                    let mut cur = x;
                    if signed {
                        e.insf(format_args!("xor.b64 {t0}, {cur}, {}", hex(1 << 63)));
                        cur = t0.clone();
                    }
                    if is_min {
                        e.insf(format_args!("not.b64 {t0}, {cur}"));
                        cur = t0.clone();
                    }
                    cur
                }
            };
            e.insf(format_args!("red.global.max.u64 [{t2}+{v}], {word}"));
        }
        (Aggregation::Avg(x), ValueKind::Avg { .. })
        | (Aggregation::Stats(x), ValueKind::Stats { .. }) => {
            let n = amounts.lane_count(e);
            let x = amounts.operand(e, &x, &t6);
            e.insf(format_args!("red.global.add.u64 [{t2}+{v}], {n}"));
            e.insf(format_args!("red.global.add.u64 [{t2}+{}], {x}", v + 8));
        }
        (Aggregation::Hist(x), ValueKind::Hist) => match x {
            Operand::Imm(c) => {
                let b = u64::from(hist_bucket(c, 0));
                let n = amounts.lane_count(e);
                e.insf(format_args!("red.global.add.u64 [{t2}+{}], {n}", v + 8 * b));
            }
            Operand::Reg(r) => {
                let x = reg("r", u32::from(r.0));
                // Before `s0` is reused (a group's mask is `s0`).
                let n = amounts.lane_count(e);
                e.insf(format_args!("clz.b64 {s0}, {x}"));
                e.insf(format_args!("sub.u32 {s0}, {HIST_CLZ_BASE}, {s0}"));
                e.insf(format_args!("setp.lt.s64 {p0}, {x}, 0"));
                e.insf(format_args!("selp.u32 {s0}, 0, {s0}, {p0}"));
                e.insf(format_args!("mul.wide.u32 {t0}, {s0}, 8"));
                e.insf(format_args!("add.s64 {t0}, {t0}, {t2}"));
                e.insf(format_args!("red.global.add.u64 [{t0}+{v}], {n}"));
            }
        },
        (Aggregation::Lhist(x), &ValueKind::Lhist { min, max, step }) => {
            let last = u64::from(lhist_buckets(min, max, step)) - 1;
            match x {
                Operand::Imm(c) => {
                    let b = u64::from(lhist_bucket(c, min, max, step));
                    let n = amounts.lane_count(e);
                    e.insf(format_args!("red.global.add.u64 [{t2}+{}], {n}", v + 8 * b));
                }
                Operand::Reg(r) => {
                    let x = reg("r", u32::from(r.0));
                    let lo = in_reg(e, &Operand::Imm(min), &t5);
                    if step > 0 {
                        e.insf(format_args!("sub.s64 {t0}, {x}, {lo}"));
                        if (step as u64).is_power_of_two() {
                            let k = (step as u64).trailing_zeros();
                            if k > 0 {
                                e.insf(format_args!("shr.u64 {t0}, {t0}, {k}"));
                            }
                        } else {
                            let st = in_reg(e, &Operand::Imm(step), &t6);
                            e.insf(format_args!("div.u64 {t0}, {t0}, {st}"));
                        }
                        e.insf(format_args!("add.s64 {t0}, {t0}, 1"));
                        let l = in_reg(e, &Operand::Imm(last as i64), &t6);
                        e.insf(format_args!("min.u64 {t0}, {t0}, {l}"));
                    } else {
                        e.insf(format_args!("mov.b64 {t0}, {}", hex(last)));
                    }
                    let hi = in_reg(e, &Operand::Imm(max), &t6);
                    e.insf(format_args!("setp.ge.s64 {p0}, {x}, {hi}"));
                    let l = in_reg(e, &Operand::Imm(last as i64), &t6);
                    e.insf(format_args!("selp.b64 {t0}, {l}, {t0}, {p0}"));
                    e.insf(format_args!("setp.lt.s64 {p0}, {x}, {lo}"));
                    e.insf(format_args!("selp.b64 {t0}, 0, {t0}, {p0}"));
                    let n = amounts.lane_count(e);
                    add_at_bucket(e, v, &n);
                }
            }
        }
        (Aggregation::Assign(x), ValueKind::Value { .. }) => {
            let x = amounts.operand(e, &x, &t6);
            e.insf(format_args!("atom.global.exch.b64 {t4}, [{t2}+{v}], {x}"));
        }
        (agg, _) => {
            return Err(unsupported(format!(
                "map.update {} on a map of another value kind",
                agg.mnemonic()
            )))
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn samples() -> Vec<u64> {
        let mut v: Vec<u64> = (0..=130u64).collect();
        for k in 0..64 {
            let p = 1u64 << k;
            v.extend([p, p - 1, p + 1, p.wrapping_neg(), !p]);
        }
        v.extend([
            u64::MAX,
            i64::MAX as u64,
            i64::MIN as u64,
            0x1234_5678_9abc_def0,
        ]);
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..2000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            v.push(x);
            v.push(x >> (x % 64));
        }
        v
    }

    #[test]
    fn hist_sequence_is_ir_hist_bucket() {
        for x in samples() {
            assert_eq!(hist_model(x), hist_bucket(x as i64, 0), "x = {x:#x}");
        }
    }

    #[test]
    fn lhist_sequence_is_ir_lhist_bucket() {
        let params = [
            (0, 100, 10),
            (-50, 50, 5),
            (0, 1024, 64),
            (3, 4, 1),
            (0, 10, 3),
            (i64::MIN, i64::MAX, 1 << 60),
            (i64::MIN, 0, 1 << 62),
            (-7, 1 << 40, 7),
            (5, 5, 1),
            (0, 10, 0),
            (0, 10, -2),
            (i64::MIN, i64::MAX, 1),
        ];
        for (min, max, step) in params {
            let mut xs = samples();
            xs.extend(
                [
                    min,
                    max,
                    min.wrapping_sub(1),
                    max.wrapping_sub(1),
                    max.wrapping_add(1),
                ]
                .map(|v: i64| v as u64),
            );
            for x in xs {
                assert_eq!(
                    lhist_model(x, min, max, step),
                    u64::from(lhist_bucket(x as i64, min, max, step)),
                    "x = {}, lhist({min}, {max}, {step})",
                    x as i64
                );
            }
        }
    }
}
