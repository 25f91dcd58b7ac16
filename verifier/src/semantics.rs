//! The IR's semantics as z3 terms (`docs/ir.md`), shared by the back ends' translation
//! validation: the ALU and extensions, and what a map update does to a slot's value
//! words. Written from the document; `codegen-ptx`'s TV tests cross-check them against
//! the reference interpreter and `warptrace_ir`'s layout functions.

pub use crate::smt::{alu, extend};
use warptrace_ir::{lhist_buckets, Per, Special};
use z3::ast::{Ast, Bool, BV};

fn k64(v: u64) -> BV {
    BV::from_u64(v, 64)
}

fn bool01(c: &Bool) -> BV {
    c.ite(&k64(1), &k64(0))
}

/// `hist_bucket(x, 0)`: 0 for negative `x`, else `1 +` the number of powers of two
/// `<= x` (1 for 0, `2 + k` for `[2^k, 2^(k+1))`).
pub fn hist_bucket(x: &BV) -> BV {
    let negative = x.bvslt(k64(0));
    let powers = (0..63).fold(k64(1), |acc, k| acc.bvadd(bool01(&x.bvuge(k64(1u64 << k)))));
    negative.ite(&k64(0), &powers)
}

/// `lhist_bucket(x, min, max, step)`: 0 below `min`, the last bucket at or above `max`
/// (or for `step <= 0`), else `min(1 + (x - min) / step, last)`. Where that branch is
/// taken, `min <= x < max` (both signed 64-bit), so `x - min` is below `2^64 - 1` as an
/// unsigned 64-bit value and neither it nor `+ 1` wraps: 64-bit arithmetic is exact.
pub fn lhist_bucket(x: &BV, min: i64, max: i64, step: i64) -> BV {
    let last = k64(u64::from(lhist_buckets(min, max, step)) - 1);
    let (lo, hi) = (BV::from_i64(min, 64), BV::from_i64(max, 64));
    let linear = if step > 0 {
        let b = x.bvsub(&lo).bvudiv(k64(step as u64)).bvadd(k64(1));
        b.bvult(&last).ite(&b, &last)
    } else {
        last.clone()
    };
    x.bvslt(&lo).ite(&k64(0), &x.bvsge(&hi).ite(&last, &linear))
}

fn bias(signed: bool) -> BV {
    k64(if signed { 1 << 63 } else { 0 })
}

/// `max_encode(x)`: `x ^ bias`.
pub fn max_encode(x: &BV, signed: bool) -> BV {
    x.bvxor(bias(signed))
}

/// `min_encode(x)`: `!(x ^ bias)`.
pub fn min_encode(x: &BV, signed: bool) -> BV {
    x.bvxor(bias(signed)).bvnot()
}

/// How a value word is combined (`warptrace_ir::WordOp`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WordKind {
    /// Atomic add of the operand.
    Add,
    /// Atomic unsigned maximum of the operand (an encoded minimum or maximum).
    Max,
    /// Atomic exchange: the word becomes the operand.
    Exchange,
}

/// `Update::word_ops` with a symbolic operand: `(word index, kind, operand)`.
pub fn word_ops(
    agg: warptrace_ir::Aggregation,
    x: Option<&BV>,
    value: &warptrace_ir::ValueKind,
) -> Option<Vec<(BV, WordKind, BV)>> {
    use warptrace_ir::{Aggregation as A, ValueKind as V};
    let one = || k64(1);
    Some(match (agg, value, x) {
        (A::Count, V::Count, _) => vec![(k64(0), WordKind::Add, one())],
        (A::Sum(_), V::Sum { .. }, Some(x)) => vec![(k64(0), WordKind::Add, x.clone())],
        (A::Min(_), V::Min { signed }, Some(x)) => {
            vec![(k64(0), WordKind::Max, min_encode(x, *signed))]
        }
        (A::Max(_), V::Max { signed }, Some(x)) => {
            vec![(k64(0), WordKind::Max, max_encode(x, *signed))]
        }
        (A::Avg(_), V::Avg { .. }, Some(x)) | (A::Stats(_), V::Stats { .. }, Some(x)) => vec![
            (k64(0), WordKind::Add, one()),
            (k64(1), WordKind::Add, x.clone()),
        ],
        (A::Hist(_), V::Hist, Some(x)) => vec![(hist_bucket(x), WordKind::Add, one())],
        (A::Lhist(_), &V::Lhist { min, max, step }, Some(x)) => {
            vec![(lhist_bucket(x, min, max, step), WordKind::Add, one())]
        }
        (A::Assign(_), V::Value { .. }, Some(x)) => vec![(k64(0), WordKind::Exchange, x.clone())],
        _ => return None,
    })
}

/// A structural hash of `t` (z3's `Z3_get_ast_hash`): the same for the same term in
/// every run, unlike its address.
fn structural_hash(t: &BV) -> u64 {
    struct Capture(u64);
    impl std::hash::Hasher for Capture {
        fn finish(&self) -> u64 {
            self.0
        }
        fn write(&mut self, bytes: &[u8]) {
            for b in bytes {
                self.0 = self.0.rotate_left(8) ^ u64::from(*b);
            }
        }
    }
    let mut h = Capture(0);
    std::hash::Hash::hash(t, &mut h);
    h.0
}

/// Whether `a` comes first in the canonical order of commutative operands: by
/// structural hash, then by text — the same order in every run, so that a proof's terms
/// (and z3's verdict on them) do not depend on where they were allocated.
fn first(a: &BV, b: &BV) -> bool {
    match structural_hash(a).cmp(&structural_hash(b)) {
        std::cmp::Ordering::Less => true,
        std::cmp::Ordering::Greater => false,
        std::cmp::Ordering::Equal => {
            a.get_z3_ast() == b.get_z3_ast() || a.to_string() <= b.to_string()
        }
    }
}

/// `a + b` with the operands in a canonical order (the same pair of terms always gives
/// the same term), so that two computations differing only by commutativity build equal
/// terms and z3 need not prove adders or multipliers equivalent. Used by both sides.
pub fn add(a: &BV, b: &BV) -> BV {
    if first(a, b) {
        a.bvadd(b)
    } else {
        b.bvadd(a)
    }
}

/// `a * b` with the operands in a canonical order (see [`add`]).
pub fn mul(a: &BV, b: &BV) -> BV {
    if first(a, b) {
        a.bvmul(b)
    } else {
        b.bvmul(a)
    }
}

/// The grid's 32-bit hardware values by name (`tid.x`, `ntid.y`, `ctaid.z`, `nctaid.x`):
/// each back end binds them to what its hardware provides.
pub type GridValues<'a> = &'a dyn Fn(&str) -> BV;

/// Unsigned arithmetic on 32-bit grid values that records, for each operation, the
/// condition under which it does not wrap: where every condition holds, the result is
/// the exact (unbounded-integer) value `docs/ir.md`'s formulas define. The conditions
/// become goals (under each back end's hardware limits).
pub struct Exact32<'a> {
    hw: GridValues<'a>,
    /// The no-wrap conditions of the operations so far.
    pub exact: Vec<Bool>,
}

impl std::fmt::Debug for Exact32<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Exact32")
            .field("exact", &self.exact)
            .finish_non_exhaustive()
    }
}

impl<'a> Exact32<'a> {
    /// Formulas over the grid values `hw`.
    pub fn new(hw: GridValues<'a>) -> Exact32<'a> {
        Exact32 {
            hw,
            exact: Vec::new(),
        }
    }

    /// `a + b`, recording that it does not wrap.
    pub fn add(&mut self, a: &BV, b: &BV) -> BV {
        self.exact.push(a.bvadd_no_overflow(b, false));
        add(a, b)
    }

    /// `a * b`, recording that it does not wrap.
    pub fn mul(&mut self, a: &BV, b: &BV) -> BV {
        self.exact.push(a.bvmul_no_overflow(b, false));
        mul(a, b)
    }

    /// `tid.x + ntid.x*(tid.y + ntid.y*tid.z)`.
    pub fn linear_tid(&mut self) -> BV {
        let hw = self.hw;
        let inner = self.mul(&hw("ntid.y"), &hw("tid.z"));
        let inner = self.add(&hw("tid.y"), &inner);
        let outer = self.mul(&hw("ntid.x"), &inner);
        self.add(&hw("tid.x"), &outer)
    }

    /// `ntid.x * ntid.y * ntid.z`.
    pub fn threads_per_block(&mut self) -> BV {
        let hw = self.hw;
        let xy = self.mul(&hw("ntid.x"), &hw("ntid.y"));
        self.mul(&xy, &hw("ntid.z"))
    }

    /// `ctaid.x + nctaid.x*(ctaid.y + nctaid.y*ctaid.z)` modulo 2^`bits` (64 or 32; only
    /// `+` and `*`, so the low bits are exact), with `ctaid.y + nctaid.y*ctaid.z` computed
    /// exactly in 32 bits.
    pub fn linear_block(&mut self, bits: u32) -> BV {
        let hw = self.hw;
        let ext = |v: BV| if bits > 32 { v.zero_ext(bits - 32) } else { v };
        let inner = self.mul(&hw("nctaid.y"), &hw("ctaid.z"));
        let inner = self.add(&hw("ctaid.y"), &inner);
        add(&ext(hw("ctaid.x")), &mul(&ext(hw("nctaid.x")), &ext(inner)))
    }
}

/// `sreg sp` for the grid values (`tid.*`, `ntid.*`, `ctaid.*`, `nctaid.*`, `warp`,
/// `block`, `thread`) per `docs/ir.md`'s table, as 64-bit terms over `hw`, with the
/// conditions under which their 32-bit evaluation is exact (goals); a warp is
/// `warp_size` threads. `None` for the other specials.
pub fn grid_special(sp: Special, hw: GridValues<'_>, warp_size: u64) -> Option<(BV, Vec<Bool>)> {
    let z32 = |name: &str| hw(name).zero_ext(32);
    let mut ex = Exact32::new(hw);
    let v = match sp {
        Special::TidX => z32("tid.x"),
        Special::TidY => z32("tid.y"),
        Special::TidZ => z32("tid.z"),
        Special::NtidX => z32("ntid.x"),
        Special::NtidY => z32("ntid.y"),
        Special::NtidZ => z32("ntid.z"),
        Special::CtaidX => z32("ctaid.x"),
        Special::CtaidY => z32("ctaid.y"),
        Special::CtaidZ => z32("ctaid.z"),
        Special::NctaidX => z32("nctaid.x"),
        Special::NctaidY => z32("nctaid.y"),
        Special::NctaidZ => z32("nctaid.z"),
        // linear tid / warp size (a 32-bit value).
        Special::Warp => ex
            .linear_tid()
            .bvudiv(BV::from_u64(warp_size, 32))
            .zero_ext(32),
        // The linear block's low 32 bits.
        Special::Block => ex.linear_block(32).zero_ext(32),
        // block * threads per block + linear tid, modulo 2^64.
        Special::Thread => {
            let block = ex.linear_block(64);
            let tpb = ex.threads_per_block().zero_ext(32);
            let tid = ex.linear_tid().zero_ext(32);
            add(&mul(&block, &tpb), &tid)
        }
        _ => return None,
    };
    Some((v, ex.exact))
}

/// An array record's place in the grid (`docs/ir.md`, "Array"), as 64-bit terms: the
/// record of `(block, row, s)` is `((block · rows + row) · slots + s) · slot_bytes` bytes
/// after the array's records ([`array_index`]), the grid values evaluated in 32 bits
/// where their exactness is a goal.
#[derive(Debug)]
pub struct ArrayPlace {
    /// The linear block index, modulo 2^64.
    pub block: BV,
    /// Rows per block.
    pub rows: BV,
    /// The executing thread's row.
    pub row: BV,
    /// Goals: the 32-bit evaluations above are exact (hardware limits).
    pub exact: Vec<Bool>,
}

/// `block`, `rows` and `row` of the executing thread for an array of `per`.
pub fn array_place(per: Per, hw: GridValues<'_>) -> ArrayPlace {
    let mut ex = Exact32::new(hw);
    let block = ex.linear_block(64);
    let threads = ex.threads_per_block();
    let tid = ex.linear_tid();
    let k32 = |v: u64| BV::from_u64(v, 32);
    let (rows, row) = match per {
        Per::Thread => (threads, tid),
        // Rounded up: ceil(t / 32) = floor((t + 31) / 32) for t + 31 exact.
        Per::Warp => (
            ex.add(&threads, &k32(31)).bvudiv(k32(32)),
            tid.bvudiv(k32(32)),
        ),
    };
    ArrayPlace {
        block,
        rows: rows.zero_ext(32),
        row: row.zero_ext(32),
        exact: ex.exact,
    }
}

/// `((block · rows + row) · slots + s) · slot_bytes` modulo 2^64: the byte offset of the
/// executing thread's (warp's) record `s` from the array's records.
pub fn array_index(place: &ArrayPlace, slots: u32, slot_bytes: u64, s: &BV) -> BV {
    let r = add(&mul(&place.block, &place.rows), &place.row);
    let r = add(&mul(&r, &k64(u64::from(slots))), s);
    mul(&r, &k64(slot_bytes))
}
