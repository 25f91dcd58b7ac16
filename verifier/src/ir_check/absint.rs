//! Abstract interpretation of a probe: an unsigned interval and known bits for every
//! register before every instruction.
//!
//! The domain is the reduced product of `[lo, hi]` (unsigned 64-bit) and known bits
//! (`zeros`: bits certainly 0, `ones`: bits certainly 1). Each transfer function
//! over-approximates `ir::interp::alu` / `extend` (a test checks containment on random
//! values). Hardware values start from the hardware's limits (`tid.x < 1024`,
//! `nctaid.y ≤ 65535`, …). At a conditional branch on a comparison with a constant the
//! compared register is narrowed on each edge (`if ($d != 0)` makes `$d ≥ 1` on the
//! taken edge). Joins take the hull. A path on which a narrowing is empty is infeasible
//! and contributes nothing.

use super::cfg::ProbeCfg;
use std::collections::HashMap;
use warptrace_ir::{BinOp, ExtFrom, Insn, Operand, Reg, SiteValue, Special, Width};

/// What is known about one 64-bit value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct AbsVal {
    /// Smallest possible value.
    pub lo: u64,
    /// Largest possible value.
    pub hi: u64,
    /// Bits that are 0 in every possible value.
    pub zeros: u64,
    /// Bits that are 1 in every possible value.
    pub ones: u64,
}

const LOW32: u64 = 0xffff_ffff;

impl AbsVal {
    /// Any 64-bit value.
    pub(crate) const TOP: AbsVal = AbsVal {
        lo: 0,
        hi: u64::MAX,
        zeros: 0,
        ones: 0,
    };

    /// Exactly `v`.
    pub(crate) fn exact(v: u64) -> AbsVal {
        AbsVal {
            lo: v,
            hi: v,
            zeros: !v,
            ones: v,
        }
    }

    /// Any value in `[lo, hi]`.
    pub(crate) fn range(lo: u64, hi: u64) -> AbsVal {
        AbsVal {
            lo,
            hi,
            zeros: 0,
            ones: 0,
        }
        .reduce()
        .unwrap_or(AbsVal::TOP)
    }

    /// Any value that fits `bits` bits.
    fn bits(bits: u32) -> AbsVal {
        AbsVal::range(0, mask(bits))
    }

    /// Whether `v` is a possible value.
    pub(crate) fn contains(&self, v: u64) -> bool {
        self.lo <= v && v <= self.hi && v & self.zeros == 0 && v & self.ones == self.ones
    }

    /// Whether 0 is possible.
    pub(crate) fn may_be_zero(&self) -> bool {
        self.contains(0)
    }

    /// The single possible value, if there is one.
    pub(crate) fn constant(&self) -> Option<u64> {
        (self.lo == self.hi).then_some(self.lo)
    }

    /// Makes the interval and the bits agree; `None` when no value remains.
    fn reduce(mut self) -> Option<AbsVal> {
        if self.zeros & self.ones != 0 {
            return None;
        }
        // Bits → interval.
        self.lo = self.lo.max(self.ones);
        self.hi = self.hi.min(!self.zeros);
        if self.lo > self.hi {
            return None;
        }
        // Interval → bits: the common prefix of lo and hi is known.
        let differ = self.lo ^ self.hi;
        let prefix = if differ == 0 {
            u64::MAX
        } else {
            !(u64::MAX >> differ.leading_zeros())
        };
        self.ones |= self.lo & prefix;
        self.zeros |= !self.lo & prefix;
        if self.zeros & self.ones != 0 {
            return None;
        }
        Some(self)
    }

    /// The smallest value covering both.
    fn join(self, other: AbsVal) -> AbsVal {
        AbsVal {
            lo: self.lo.min(other.lo),
            hi: self.hi.max(other.hi),
            zeros: self.zeros & other.zeros,
            ones: self.ones & other.ones,
        }
    }

    /// The value's low `bits` bits.
    fn trunc(self, bits: u32) -> AbsVal {
        if bits == 64 || self.hi <= mask(bits) {
            return self;
        }
        AbsVal {
            lo: 0,
            hi: mask(bits),
            zeros: self.zeros | !mask(bits),
            ones: self.ones & mask(bits),
        }
        .reduce()
        .unwrap_or(AbsVal::TOP)
    }
}

fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

fn width_bits(w: Width) -> u32 {
    match w {
        Width::W32 => 32,
        Width::W64 => 64,
    }
}

/// The hardware's limits (PTX ISA): `%ntid` per dimension, `%nctaid` per dimension, and
/// threads per block. The one definition the abstract domain and the z3 encodings use.
pub(crate) const MAX_NTID: [u64; 3] = [1024, 1024, 64];
/// See [`MAX_NTID`].
pub(crate) const MAX_NCTAID: [u64; 3] = [(1 << 31) - 1, 65535, 65535];
/// See [`MAX_NTID`].
pub(crate) const MAX_THREADS_PER_BLOCK: u64 = 1024;

/// The lanes of a warp on any target: 32 on NVIDIA, 32 or 64 in an AMD wave.
pub(crate) const MAX_LANES: u64 = 64;

/// The hardware's limits on a special value ([`MAX_NTID`], [`MAX_NCTAID`], [`MAX_LANES`]),
/// on every target: the IR is checked once, before a back end is chosen, so a range
/// holds for a 64-lane wave as well as for a 32-lane warp.
pub(crate) fn special_range(s: Special) -> AbsVal {
    let below = |max: u64| AbsVal::range(0, max - 1);
    let upto = |max: u64| AbsVal::range(1, max);
    match s {
        Special::TidX => below(MAX_NTID[0]),
        Special::TidY => below(MAX_NTID[1]),
        Special::TidZ => below(MAX_NTID[2]),
        Special::NtidX => upto(MAX_NTID[0]),
        Special::NtidY => upto(MAX_NTID[1]),
        Special::NtidZ => upto(MAX_NTID[2]),
        Special::CtaidX => below(MAX_NCTAID[0]),
        Special::CtaidY => below(MAX_NCTAID[1]),
        Special::CtaidZ => below(MAX_NCTAID[2]),
        Special::NctaidX => upto(MAX_NCTAID[0]),
        Special::NctaidY => upto(MAX_NCTAID[1]),
        Special::NctaidZ => upto(MAX_NCTAID[2]),
        Special::Lane => AbsVal::range(0, MAX_LANES - 1),
        // 1024 threads in 32-lane warps at most.
        Special::Warp => AbsVal::range(0, MAX_THREADS_PER_BLOCK / 32 - 1),
        Special::Active => AbsVal::range(1, MAX_LANES),
        // The reading lane is always active.
        Special::ActiveMask => AbsVal::range(1, u64::MAX),
        Special::Nsmid => AbsVal::range(1, LOW32),
        // PTX: below `%nwarpid` (at most 64 warps an SM); GCN: a 2-bit SIMD id above a
        // 4-bit (gfx9) or 5-bit (gfx10+) wave slot.
        Special::Warpid => AbsVal::range(0, 127),
        _ => AbsVal::bits(s.bits()),
    }
}

/// The range of a site operand.
pub(crate) fn site_range(v: SiteValue) -> AbsVal {
    match v {
        // An immediate per site: the access width, 0 where nothing is accessed.
        SiteValue::Bytes => AbsVal::bits(32),
        // Counts over the lanes of a warp; 0 where nothing is accessed.
        SiteValue::Sectors | SiteValue::Wavefronts => AbsVal::range(0, MAX_LANES),
        // A lane mask (up to 64 lanes on GCN).
        SiteValue::Run => AbsVal::TOP,
        SiteValue::Addr | SiteValue::Value | SiteValue::Opcode => AbsVal::TOP,
    }
}

/// The abstract `op.width a, b`, divisor assumed non-zero (a zero divisor is rejected on
/// its own).
pub(crate) fn bin(op: BinOp, width: Width, a: AbsVal, b: AbsVal) -> AbsVal {
    let bits = width_bits(width);
    let top = AbsVal::bits(bits);
    let (a, b) = (a.trunc(bits), b.trunc(bits));
    let m = mask(bits);
    let sign = 1u64 << (bits - 1);
    let nonneg = |v: AbsVal| v.hi < sign;
    let r = match op {
        BinOp::Add => {
            // Known trailing zeros of both survive the sum.
            let tz = a.zeros.trailing_ones().min(b.zeros.trailing_ones());
            let low = AbsVal {
                zeros: mask(tz.min(64)),
                ..top
            };
            match a.hi.checked_add(b.hi) {
                Some(hi) if hi <= m => AbsVal {
                    lo: a.lo + b.lo,
                    hi,
                    ..low
                },
                _ => low,
            }
        }
        BinOp::Sub if a.lo >= b.hi => AbsVal::range(a.lo - b.hi, a.hi - b.lo),
        BinOp::Mul => {
            let tz = a.zeros.trailing_ones() + b.zeros.trailing_ones();
            let known_low = AbsVal {
                zeros: mask(tz.min(64)),
                ..top
            };
            match a.hi.checked_mul(b.hi) {
                Some(hi) if hi <= m => AbsVal {
                    lo: a.lo.saturating_mul(b.lo),
                    hi,
                    ..known_low
                },
                _ => known_low,
            }
        }
        BinOp::DivU => AbsVal::range(a.lo / b.hi.max(1), a.hi / b.lo.max(1)),
        BinOp::RemU => AbsVal::range(0, a.hi.min(b.hi.saturating_sub(1))),
        BinOp::DivS if nonneg(a) && nonneg(b) => {
            AbsVal::range(a.lo / b.hi.max(1), a.hi / b.lo.max(1))
        }
        BinOp::RemS if nonneg(a) && nonneg(b) => AbsVal::range(0, a.hi.min(b.hi.saturating_sub(1))),
        BinOp::And => AbsVal {
            lo: 0,
            hi: a.hi.min(b.hi),
            zeros: a.zeros | b.zeros,
            ones: a.ones & b.ones,
        },
        BinOp::Or => AbsVal {
            lo: a.lo.max(b.lo),
            hi: m,
            zeros: a.zeros & b.zeros,
            ones: a.ones | b.ones,
        },
        BinOp::Xor => AbsVal {
            lo: 0,
            hi: m,
            zeros: (a.zeros & b.zeros) | (a.ones & b.ones),
            ones: (a.zeros & b.ones) | (a.ones & b.zeros),
        },
        BinOp::Shl => match b.constant() {
            Some(k) => {
                let k = (k % u64::from(bits)) as u32;
                let known = AbsVal {
                    lo: 0,
                    hi: m,
                    zeros: (a.zeros << k) | mask(k),
                    ones: a.ones << k,
                };
                if a.hi <= m >> k {
                    AbsVal {
                        lo: a.lo << k,
                        hi: a.hi << k,
                        ..known
                    }
                } else {
                    known
                }
            }
            None => top,
        },
        BinOp::ShrU => match b.constant() {
            Some(k) => {
                let k = (k % u64::from(bits)) as u32;
                AbsVal {
                    lo: a.lo >> k,
                    hi: a.hi >> k,
                    zeros: (a.zeros >> k) | !(m >> k),
                    ones: a.ones >> k,
                }
            }
            None => AbsVal::range(0, a.hi),
        },
        BinOp::ShrS if nonneg(a) => AbsVal::range(0, a.hi),
        op if op.is_comparison() => compare(op, a, b, nonneg(a) && nonneg(b)),
        _ => top,
    };
    r.trunc(bits).reduce().unwrap_or(top)
}

/// A comparison: 0 or 1, decided when the intervals decide it.
fn compare(op: BinOp, a: AbsVal, b: AbsVal, both_nonneg: bool) -> AbsVal {
    let signed = matches!(op, BinOp::LtS | BinOp::LeS | BinOp::GtS | BinOp::GeS);
    let always = |c: bool| c.then_some(1);
    let never = |c: bool| c.then_some(0);
    let same = a.constant().is_some() && a.constant() == b.constant();
    let apart = a.hi < b.lo || b.hi < a.lo;
    let decided = match op {
        _ if signed && !both_nonneg => None,
        BinOp::Eq => always(same).or(never(apart)),
        BinOp::Ne => always(apart).or(never(same)),
        BinOp::LtU | BinOp::LtS => always(a.hi < b.lo).or(never(a.lo >= b.hi)),
        BinOp::LeU | BinOp::LeS => always(a.hi <= b.lo).or(never(a.lo > b.hi)),
        BinOp::GtU | BinOp::GtS => always(a.lo > b.hi).or(never(a.hi <= b.lo)),
        BinOp::GeU | BinOp::GeS => always(a.lo >= b.hi).or(never(a.hi < b.lo)),
        _ => None,
    };
    match decided {
        Some(v) => AbsVal::exact(v),
        None => AbsVal::range(0, 1),
    }
}

/// The abstract `sext`/`zext` from `from`.
pub(crate) fn ext(v: AbsVal, from: ExtFrom, signed: bool) -> AbsVal {
    let bits = from.bits();
    let low = v.trunc(bits);
    if !signed || low.zeros & (1 << (bits - 1)) != 0 {
        low
    } else if low.ones & (1 << (bits - 1)) != 0 {
        // Certainly negative: the high bits are all ones.
        AbsVal {
            lo: low.lo | !mask(bits),
            hi: low.hi | !mask(bits),
            zeros: low.zeros & mask(bits),
            ones: low.ones | !mask(bits),
        }
        .reduce()
        .unwrap_or(AbsVal::TOP)
    } else {
        AbsVal::TOP
    }
}

/// A comparison of a register with a constant that a branch can narrow on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Test {
    op: BinOp,
    width: Width,
    reg: Reg,
    /// The constant; the register is the left operand when `reg_left`.
    imm: u64,
    reg_left: bool,
}

/// The state before an instruction: what each defined register may hold, and which
/// registers hold the result of a narrowable comparison.
#[derive(Debug, Clone, Default, PartialEq)]
struct State {
    regs: HashMap<Reg, AbsVal>,
    tests: HashMap<Reg, Test>,
}

impl State {
    fn get(&self, o: Operand) -> AbsVal {
        match o {
            Operand::Imm(v) => AbsVal::exact(v as u64),
            Operand::Reg(r) => self.regs.get(&r).copied().unwrap_or(AbsVal::TOP),
        }
    }

    fn set(&mut self, r: Reg, v: AbsVal) {
        self.regs.insert(r, v);
        self.tests.remove(&r);
        self.tests.retain(|_, t| t.reg != r);
    }

    fn join(&mut self, other: &State) {
        self.regs.retain(|r, _| other.regs.contains_key(r));
        for (r, v) in self.regs.iter_mut() {
            if let Some(o) = other.regs.get(r) {
                *v = v.join(*o);
            }
        }
        self.tests.retain(|r, t| other.tests.get(r) == Some(t));
    }

    /// Narrows on `cond != 0` (`holds`) or `cond == 0`; `None` when infeasible.
    fn assume(mut self, cond: Reg, holds: bool) -> Option<State> {
        let c = self.get(Operand::Reg(cond));
        let c = if holds {
            // Non-zero: at least 1.
            AbsVal {
                lo: c.lo.max(1),
                ..c
            }
            .reduce()?
        } else {
            c.reduce()
                .filter(|c| c.contains(0))
                .map(|_| AbsVal::exact(0))?
        };
        self.regs.insert(cond, c);
        let Some(t) = self.tests.get(&cond).copied() else {
            return Some(self);
        };
        // Only a full-width comparison (or a 32-bit one on a value that fits) narrows.
        let v = self.get(Operand::Reg(t.reg));
        if t.width == Width::W32 && (v.hi > LOW32 || t.imm > LOW32) {
            return Some(self);
        }
        // Normalise to `reg OP imm` holding.
        let op = if t.reg_left { t.op } else { flip(t.op) };
        let op = if holds { op } else { negate(op) };
        let k = t.imm;
        let narrowed = match op {
            BinOp::Eq => Some(AbsVal::exact(k)),
            BinOp::Ne if v.lo == k => Some(AbsVal {
                lo: k.checked_add(1)?,
                ..v
            }),
            BinOp::Ne if v.hi == k => Some(AbsVal {
                hi: k.checked_sub(1)?,
                ..v
            }),
            BinOp::LtU => Some(AbsVal {
                hi: v.hi.min(k.checked_sub(1)?),
                ..v
            }),
            BinOp::LeU => Some(AbsVal {
                hi: v.hi.min(k),
                ..v
            }),
            BinOp::GtU => Some(AbsVal {
                lo: v.lo.max(k.checked_add(1)?),
                ..v
            }),
            BinOp::GeU => Some(AbsVal {
                lo: v.lo.max(k),
                ..v
            }),
            _ => None,
        };
        if let Some(n) = narrowed {
            let n = if op == BinOp::Eq {
                if v.contains(k) {
                    n
                } else {
                    return None;
                }
            } else {
                AbsVal {
                    zeros: v.zeros,
                    ones: v.ones,
                    ..n
                }
                .reduce()?
            };
            self.regs.insert(t.reg, n);
        }
        Some(self)
    }
}

/// `a OP b` as `b OP' a`.
fn flip(op: BinOp) -> BinOp {
    match op {
        BinOp::LtU => BinOp::GtU,
        BinOp::LeU => BinOp::GeU,
        BinOp::GtU => BinOp::LtU,
        BinOp::GeU => BinOp::LeU,
        other => other,
    }
}

/// `!(a OP b)`.
fn negate(op: BinOp) -> BinOp {
    match op {
        BinOp::Eq => BinOp::Ne,
        BinOp::Ne => BinOp::Eq,
        BinOp::LtU => BinOp::GeU,
        BinOp::LeU => BinOp::GtU,
        BinOp::GtU => BinOp::LeU,
        BinOp::GeU => BinOp::LtU,
        // Signed comparisons are not narrowed.
        other => other,
    }
}

/// The abstract values of one probe's registers before each instruction.
#[derive(Debug)]
pub(crate) struct Intervals {
    before: Vec<Option<State>>,
}

impl Intervals {
    /// Runs the analysis over the probe's DAG (index order is a topological order).
    pub(super) fn compute(insns: &[Insn], cfg: &ProbeCfg) -> Intervals {
        let mut before: Vec<Option<State>> = vec![None; insns.len()];
        let mut after: Vec<Option<State>> = vec![None; insns.len()];
        for (i, insn) in insns.iter().enumerate() {
            if !cfg.is_reachable(i) {
                continue;
            }
            let state = if i == 0 {
                Some(State::default())
            } else {
                let mut acc: Option<State> = None;
                let mut seen = Vec::new();
                for p in cfg.predecessors(i) {
                    if seen.contains(&p) {
                        continue;
                    }
                    seen.push(p);
                    let Some(out) = after.get(p).and_then(|s| s.clone()) else {
                        continue;
                    };
                    for edge in edge_states(&insns[p], p, i, out) {
                        match &mut acc {
                            Some(a) => a.join(&edge),
                            None => acc = Some(edge),
                        }
                    }
                }
                acc
            };
            let Some(mut state) = state else {
                // Every incoming path is infeasible.
                continue;
            };
            before[i] = Some(state.clone());
            transfer(insn, &mut state);
            after[i] = Some(state);
        }
        Intervals { before }
    }

    /// What `operand` may hold when instruction `insn` runs, truncated to `width`;
    /// `None` when no feasible path reaches it.
    pub(crate) fn value(&self, insn: usize, operand: Operand, width: Width) -> Option<AbsVal> {
        let state = self.before.get(insn)?.as_ref()?;
        Some(state.get(operand).trunc(width_bits(width)))
    }
}

/// The states on the edge(s) from `p` (whose state after it is `out`) to `i`.
fn edge_states(insn: &Insn, p: usize, i: usize, out: State) -> Vec<State> {
    match insn {
        Insn::Branch {
            cond,
            if_zero,
            target,
        } => {
            let taken = *target as usize == i;
            let falls = p + 1 == i;
            let mut v = Vec::new();
            // Taken when `cond == 0` (if_zero) or `cond != 0`.
            if taken {
                v.extend(out.clone().assume(*cond, !*if_zero));
            }
            if falls {
                v.extend(out.assume(*cond, *if_zero));
            }
            v
        }
        _ => vec![out],
    }
}

fn transfer(insn: &Insn, s: &mut State) {
    let Some(dst) = insn.def() else {
        return;
    };
    let v = match insn {
        Insn::Mov { src, .. } => s.get(*src),
        Insn::Bin {
            op, width, a, b, ..
        } => {
            let v = bin(*op, *width, s.get(*a), s.get(*b));
            let test = op.is_comparison().then(|| match (a, b) {
                (Operand::Reg(r), Operand::Imm(k)) if *r != dst => Some(Test {
                    op: *op,
                    width: *width,
                    reg: *r,
                    imm: *k as u64 & mask(width_bits(*width)),
                    reg_left: true,
                }),
                (Operand::Imm(k), Operand::Reg(r)) if *r != dst => Some(Test {
                    op: *op,
                    width: *width,
                    reg: *r,
                    imm: *k as u64 & mask(width_bits(*width)),
                    reg_left: false,
                }),
                _ => None,
            });
            s.set(dst, v);
            if let Some(Some(t)) = test {
                s.tests.insert(dst, t);
            }
            return;
        }
        Insn::Ext {
            src, from, signed, ..
        } => ext(s.get(*src), *from, *signed),
        Insn::ReadSpecial { special, .. } => special_range(*special),
        Insn::ReadSite { value, .. } => site_range(*value),
        _ => AbsVal::TOP,
    };
    s.set(dst, v);
}

#[cfg(test)]
mod tests {
    use super::*;
    use warptrace_ir::interp::{alu, extend};

    /// A small deterministic generator (splitmix64).
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }
        /// A value biased to edges and small numbers.
        fn value(&mut self) -> u64 {
            match self.next() % 6 {
                0 => self.next() % 16,
                1 => u64::MAX - self.next() % 16,
                2 => (1u64 << (self.next() % 64))
                    .wrapping_add(self.next() % 3)
                    .wrapping_sub(1),
                3 => self.next() & LOW32,
                _ => self.next(),
            }
        }
        /// An abstract value containing `v`.
        fn around(&mut self, v: u64) -> AbsVal {
            match self.next() % 4 {
                0 => AbsVal::exact(v),
                1 => AbsVal::TOP,
                2 => {
                    let lo = v.saturating_sub(self.next() % 1000);
                    let hi = v.saturating_add(self.next() % 1000);
                    AbsVal::range(lo, hi)
                }
                _ => {
                    let known = self.next();
                    AbsVal {
                        lo: 0,
                        hi: u64::MAX,
                        zeros: !v & known,
                        ones: v & known,
                    }
                    .reduce()
                    .unwrap_or(AbsVal::TOP)
                }
            }
        }
    }

    #[test]
    fn transfer_functions_contain_the_interpreters_results() {
        let mut rng = Rng(7);
        for _ in 0..200_000 {
            let (a, b) = (rng.value(), rng.value());
            let (aa, ab) = (rng.around(a), rng.around(b));
            assert!(aa.contains(a) && ab.contains(b));
            let op = BinOp::ALL[(rng.next() % 23) as usize];
            let width = if rng.next() % 2 == 0 {
                Width::W32
            } else {
                Width::W64
            };
            let Some(r) = alu(op, width, a, b) else {
                continue;
            };
            let abs = bin(op, width, aa, ab);
            assert!(
                abs.contains(r),
                "{op:?}.{width:?} {a:#x} {b:#x} = {r:#x} not in {abs:?} from {aa:?} {ab:?}"
            );
            let from = [ExtFrom::B8, ExtFrom::B16, ExtFrom::B32][(rng.next() % 3) as usize];
            let signed = rng.next() % 2 == 0;
            let e = ext(aa, from, signed);
            assert!(
                e.contains(extend(a, from, signed)),
                "{from:?} {signed} {a:#x} {e:?}"
            );
        }
    }

    #[test]
    fn narrowing_is_sound_and_useful() {
        let mut s = State::default();
        s.set(Reg(0), AbsVal::range(0, 100));
        transfer(
            &Insn::Bin {
                op: BinOp::Ne,
                width: Width::W64,
                dst: Reg(1),
                a: Operand::Reg(Reg(0)),
                b: Operand::Imm(0),
            },
            &mut s,
        );
        let taken = s.clone().assume(Reg(1), true).expect("feasible");
        assert_eq!(taken.get(Operand::Reg(Reg(0))), AbsVal::range(1, 100));
        let not = s.assume(Reg(1), false).expect("feasible");
        assert_eq!(not.get(Operand::Reg(Reg(0))).constant(), Some(0));
    }

    #[test]
    fn hardware_ranges_give_non_zero_dimensions() {
        for s in [
            Special::NtidX,
            Special::NctaidZ,
            Special::Active,
            Special::ActiveMask,
        ] {
            assert!(!special_range(s).may_be_zero(), "{s:?}");
        }
        assert!(special_range(Special::TidX).may_be_zero());
        let plus_one = bin(
            BinOp::Add,
            Width::W32,
            special_range(Special::TidX),
            AbsVal::exact(1),
        );
        assert_eq!((plus_one.lo, plus_one.hi), (1, 1024));
    }
}
