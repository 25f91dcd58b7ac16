//! The IR side: z3 terms for the semantics `docs/ir.md` defines, written from the
//! document (not from the back end), and cross-checked against the reference interpreter
//! (`warptrace_ir::interp::{alu, extend}`, the interpreter's special values, and the
//! layout's `hist_bucket`, `lhist_bucket`, `min/max_encode`, `MapLayout::tag`,
//! `Update::word_ops`) by the tests in `tv/tests.rs`. The value words' terms (buckets,
//! encodings, `word_ops`) live in `warptrace_verifier::semantics`, shared with the GCN
//! translation validation.
//!
//! [`exec`] runs the pure part of a probe body (`mov`, ALU, `ext`, `sreg`, `site`,
//! persistent registers, branches, jumps, `exit`) symbolically, with the same register
//! correspondence the back end uses: IR register `rN` is `%__wt_rN`, persistent `%x` slot
//! `N` is `%__wt_xN`.

mod array;
mod exec;
mod warp;

pub(crate) use array::{array_index, array_place};
pub(crate) use exec::{exec, persist_name, reg_name, IrEnv};
pub(crate) use warp::{group_words, lemmas, Group};

use crate::special::SiteImms;
use warptrace_ir::{BinOp, ExtFrom, Special, Width};
use warptrace_verifier::semantics::grid_special;
pub(crate) use warptrace_verifier::semantics::{
    add, hist_bucket, lhist_bucket, max_encode, min_encode, mul, word_ops, WordKind,
};
use z3::ast::{Bool, BV};

/// Bits of an ALU width.
pub(crate) fn width_bits(w: Width) -> u32 {
    match w {
        Width::W32 => 32,
        Width::W64 => 64,
    }
}

fn k64(v: u64) -> BV {
    BV::from_u64(v, 64)
}

fn bool01(c: &Bool) -> BV {
    c.ite(&k64(1), &k64(0))
}

/// `op.width a, b` on 64-bit values: computed on the low `width` bits, the result
/// zero-extended; shift amounts modulo the width; `div.s` of the most negative value by
/// -1 wraps (SMT-LIB's `bvsdiv`/`bvsrem` truncate toward zero and wrap, as `docs/ir.md`
/// says). Only meaningful where [`defined`] holds.
pub(crate) fn bin(op: BinOp, width: Width, a: &BV, b: &BV) -> BV {
    let w = width_bits(width);
    let low = |v: &BV| match (w, v.as_u64()) {
        (64, _) => v.clone(),
        (_, Some(c)) => BV::from_u64(c & 0xffff_ffff, w),
        _ => v.extract(w - 1, 0),
    };
    let (x, y) = (low(a), low(b));
    let widen = |v: BV| if w == 64 { v } else { v.zero_ext(64 - w) };
    let amount = || y.bvurem(BV::from_u64(u64::from(w), w));
    match op {
        BinOp::Add => widen(x.bvadd(&y)),
        BinOp::Sub => widen(x.bvsub(&y)),
        BinOp::Mul => widen(x.bvmul(&y)),
        BinOp::DivU => widen(x.bvudiv(&y)),
        BinOp::DivS => widen(x.bvsdiv(&y)),
        BinOp::RemU => widen(x.bvurem(&y)),
        BinOp::RemS => widen(x.bvsrem(&y)),
        BinOp::And => widen(x.bvand(&y)),
        BinOp::Or => widen(x.bvor(&y)),
        BinOp::Xor => widen(x.bvxor(&y)),
        BinOp::Shl => widen(x.bvshl(amount())),
        BinOp::ShrU => widen(x.bvlshr(amount())),
        BinOp::ShrS => widen(x.bvashr(amount())),
        BinOp::Eq => bool01(&x.eq(&y)),
        BinOp::Ne => bool01(&x.eq(&y).not()),
        BinOp::LtU => bool01(&x.bvult(&y)),
        BinOp::LtS => bool01(&x.bvslt(&y)),
        BinOp::LeU => bool01(&x.bvule(&y)),
        BinOp::LeS => bool01(&x.bvsle(&y)),
        BinOp::GtU => bool01(&x.bvugt(&y)),
        BinOp::GtS => bool01(&x.bvsgt(&y)),
        BinOp::GeU => bool01(&x.bvuge(&y)),
        BinOp::GeS => bool01(&x.bvsge(&y)),
    }
}

/// Where the IR gives `op.width a, b` a meaning: everywhere, except a division or
/// remainder by a divisor whose low `width` bits are zero (the verifier rejects those
/// programs, the interpreter traps).
pub(crate) fn defined(op: BinOp, width: Width, b: &BV) -> Bool {
    if !op.divides() {
        return Bool::from_bool(true);
    }
    let w = width_bits(width);
    let low = if w == 64 {
        b.clone()
    } else {
        b.extract(w - 1, 0)
    };
    low.eq(BV::from_u64(0, w)).not()
}

/// `sext.N` / `zext.N`.
pub(crate) fn ext(v: &BV, from: ExtFrom, signed: bool) -> BV {
    let n = from.bits();
    let low = v.extract(n - 1, 0);
    if signed {
        low.sign_ext(64 - n)
    } else {
        low.zero_ext(64 - n)
    }
}

/// A 32-bit hardware special register, named as PTX names it (`%tid.x`).
pub(crate) fn hw(name: &str) -> BV {
    BV::new_const(name, 32)
}

/// The warp-wide site value `value` (`Sectors` or `Wavefronts`, `docs/ir.md`) of an
/// access of `bytes` per lane by the lanes of `mask` (32 bits), lane `j` at `addrs[j]`:
/// the number of distinct sectors, or the most distinct units in one bank group, counted
/// over each key's lowest lane.
pub(crate) fn warp_access(
    value: warptrace_ir::SiteValue,
    bytes: u64,
    mask: &BV,
    addrs: &[BV],
) -> Option<BV> {
    use warptrace_ir::SiteValue;
    let shift = match value {
        SiteValue::Sectors => warptrace_ir::SECTOR_BYTES.trailing_zeros(),
        SiteValue::Wavefronts => warptrace_ir::wavefront_unit_log2(bytes),
        _ => return None,
    };
    let on = |j: usize| {
        mask.bvlshr(BV::from_u64(j as u64, 32))
            .bvand(BV::from_u64(1, 32))
            .eq(BV::from_u64(1, 32))
    };
    let keys: Vec<BV> = addrs
        .iter()
        .map(|a| a.bvlshr(BV::from_u64(u64::from(shift), 64)))
        .collect();
    // Lane j holds the first copy of its key among the lanes of the mask.
    let first: Vec<Bool> = (0..keys.len())
        .map(|j| {
            let mut all = vec![on(j)];
            for i in 0..j {
                all.push(Bool::or(&[&on(i).not(), &keys[i].eq(&keys[j]).not()]));
            }
            Bool::and(&all.iter().collect::<Vec<_>>())
        })
        .collect();
    if value == SiteValue::Sectors {
        let one = |b: &Bool| b.ite(&BV::from_u64(1, 64), &BV::from_u64(0, 64));
        return Some(
            first
                .iter()
                .fold(BV::from_u64(0, 64), |acc, f| acc.bvadd(one(f))),
        );
    }
    // Wavefronts: the most first lanes in one group, over the lanes' groups, as masks:
    // `F` the first lanes, `S_j` the lanes of `j`'s group.
    let groups = warptrace_ir::WAVEFRONT_BYTES >> shift;
    let bit = |b: &Bool, i: usize| b.ite(&BV::from_u64(1 << i, 32), &BV::from_u64(0, 32));
    // As masks: `j` is first when no lane of the mask below it has its key.
    let lanes_where = |f: &dyn Fn(usize) -> Bool| {
        (0..keys.len()).fold(BV::from_u64(0, 32), |acc, i| acc.bvor(bit(&f(i), i)))
    };
    let firsts = lanes_where(&|j| {
        let same = lanes_where(&|i| Bool::and(&[&on(i), &keys[i].eq(&keys[j])]));
        let below = BV::from_u64((1 << j) - 1, 32);
        Bool::and(&[&on(j), &same.bvand(&below).eq(BV::from_u64(0, 32))])
    });
    let group: Vec<BV> = keys
        .iter()
        .map(|k| k.extract(31, 0).bvand(BV::from_u64(groups - 1, 32)))
        .collect();
    let mut most = BV::from_u64(0, 32);
    for j in 0..keys.len() {
        let same = lanes_where(&|i| Bool::and(&[&on(i), &group[i].eq(&group[j])]));
        let count = crate::tv::ptx::popc(&firsts.bvand(&same));
        most = Bool::and(&[&on(j), &count.bvugt(&most)]).ite(&count, &most);
    }
    Some(most.zero_ext(32))
}

/// The executing lane's `run` (`warptrace_ir::run`) in an access of `bytes` per lane by
/// the lanes of `mask`, lane `j` at `addrs[j]`, the executing lane `%laneid` at `addr`:
/// the lanes `i` of the mask with `addrs[i] - i * bytes == addr - %laneid * bytes`.
pub(crate) fn run(bytes: u64, mask: &BV, addrs: &[BV], addr: &BV) -> BV {
    let b = BV::from_u64(bytes, 64);
    let own = addr.bvsub(hw("%laneid").zero_ext(32).bvmul(&b));
    (0..addrs.len()).fold(BV::from_u64(0, 64), |acc, i| {
        let on = mask
            .bvlshr(BV::from_u64(i as u64, 32))
            .bvand(BV::from_u64(1, 32))
            .eq(BV::from_u64(1, 32));
        let key = addrs[i].bvsub(BV::from_u64(i as u64 * bytes, 64));
        let hit = Bool::and(&[&on, &key.eq(&own)]);
        acc.bvor(hit.ite(&BV::from_u64(1 << i, 64), &BV::from_u64(0, 64)))
    })
}

/// The mask of lanes active at the site (`activemask.b32`).
pub(crate) fn activemask() -> BV {
    BV::new_const("activemask", 32)
}

/// The hardware limits the computed specials depend on (CUDA: `ntid.x/y <= 1024`,
/// `ntid.z <= 64`; grids of at most `2^31 - 1` × 65535 × 65535 blocks; ids below their
/// dimensions; 32 lanes, the executing lane active, `%lanemask_eq` its bit). The limit of
/// 1024 threads per block is not needed, so not assumed.
pub(crate) fn hw_assumptions() -> Vec<Bool> {
    let u = |v: u64| BV::from_u64(v, 32);
    let mut out = Vec::new();
    let dims = ["x", "y", "z"];
    let ntid_max = [1024, 1024, 64];
    let nctaid_max = [(1 << 31) - 1, 65535, 65535];
    for (i, d) in dims.iter().enumerate() {
        let (tid, ntid) = (hw(&format!("%tid.{d}")), hw(&format!("%ntid.{d}")));
        let (ctaid, nctaid) = (hw(&format!("%ctaid.{d}")), hw(&format!("%nctaid.{d}")));
        out.push(ntid.bvuge(u(1)));
        out.push(ntid.bvule(u(ntid_max[i])));
        out.push(tid.bvult(&ntid));
        out.push(nctaid.bvuge(u(1)));
        out.push(nctaid.bvule(u(nctaid_max[i])));
        out.push(ctaid.bvult(&nctaid));
    }
    let lane = hw("%laneid");
    out.push(lane.bvult(u(32)));
    out.push(hw("%lanemask_eq").eq(u(1).bvshl(&lane)));
    out.push(hw("%lanemask_lt").eq(u(1).bvshl(&lane).bvsub(u(1))));
    out.push(activemask().bvlshr(&lane).bvand(u(1)).eq(u(1)));
    out
}

/// The hardware registers whose limits leave their high bits zero, each with the
/// zero-extension of a narrower constant to substitute for it (`ntid.x/y`, `tid.x/y`: 11
/// bits; `.z`: 7; `nctaid.x`, `ctaid.x`: 31; `.y/.z`: 16; `laneid`: 5). Every input the
/// [`hw_assumptions`] allow is such an extension, so proving a claim over the narrower
/// constants proves it over the allowed inputs; it keeps the bit-blasted multipliers of
/// the computed specials small.
pub(crate) fn hw_narrowing() -> Vec<(BV, BV)> {
    let mut out = Vec::new();
    let mut narrow = |name: String, bits: u32| {
        let small = BV::new_const(format!("{name}#{bits}"), bits).zero_ext(32 - bits);
        out.push((hw(&name), small));
    };
    for (i, d) in ["x", "y", "z"].iter().enumerate() {
        let (nt, nc) = ([11, 11, 7][i], [31, 16, 16][i]);
        narrow(format!("%ntid.{d}"), nt);
        narrow(format!("%tid.{d}"), nt);
        narrow(format!("%nctaid.{d}"), nc);
        narrow(format!("%ctaid.{d}"), nc);
    }
    narrow("%laneid".into(), 5);
    out
}

/// Population count, as a 64-bit value (an adder chain, independent of the PTX side's).
pub(crate) fn popcount64(x: &BV) -> BV {
    let w = x.get_size();
    (0..w).fold(k64(0), |acc, i| acc.bvadd(x.extract(i, i).zero_ext(63)))
}

/// `sreg sp` per `docs/ir.md`'s table, in terms of the hardware registers and the
/// compile-time immediates, with the conditions under which the 32-bit evaluation of its
/// formula is exact (goals); `None` for values the back end does not lower (`launch`) or a
/// per-site value at a site without an instruction.
pub(crate) fn special(sp: Special, imms: &SiteImms) -> Option<(BV, Vec<Bool>)> {
    if let Some(grid) = grid_special(sp, &grid_hw, 32) {
        return Some(grid);
    }
    let z32 = |name: &str| hw(name).zero_ext(32);
    let v = match sp {
        Special::Clock => z32("%clock"),
        Special::Clock64 => BV::new_const("%clock64", 64),
        Special::GlobalTimer => BV::new_const("%globaltimer", 64),
        Special::Smid => z32("%smid"),
        Special::Nsmid => z32("%nsmid"),
        Special::Warpid => z32("%warpid"),
        Special::Lane => z32("%laneid"),
        Special::ActiveMask => activemask().zero_ext(32),
        Special::Active => popcount64(&activemask()),
        Special::KernelId => k64(imms.kernel_id),
        Special::Pc => k64(u64::from(imms.pc?)),
        Special::File => k64(imms.file?),
        Special::Line => k64(u64::from(imms.line?)),
        // `launch` is not lowered; the grid values were `grid_special`'s, above.
        _ => return None,
    };
    Some((v, Vec::new()))
}

/// The grid value `name` (`tid.x`, `ntid.y`, …) for the shared formulas: the PTX special
/// register `%name`.
pub(crate) fn grid_hw(name: &str) -> BV {
    hw(&format!("%{name}"))
}

/// Whether this lane is the first (lowest) active lane of its warp: no active lane below
/// `%laneid`.
pub(crate) fn is_leader() -> Bool {
    let lane = hw("%laneid");
    let below = BV::from_u64(1, 32).bvshl(&lane).bvsub(BV::from_u64(1, 32));
    activemask().bvand(&below).eq(BV::from_u64(0, 32))
}

/// The splitmix64 finalizer.
pub(crate) fn mix64(x: &BV) -> BV {
    let x = x.bvxor(x.bvlshr(k64(30)));
    let x = mul(&x, &k64(0xbf58_476d_1ce4_e5b9));
    let x = x.bvxor(x.bvlshr(k64(27)));
    let x = mul(&x, &k64(0x94d0_49bb_1331_11eb));
    x.bvxor(x.bvlshr(k64(31)))
}

/// `MapLayout::tag`: `h = 0; for k in keys { h = mix64(h ^ k) }` (the first step is
/// `mix64(k_0)`, as `0 ^ k = k`), 1 for no keys.
pub(crate) fn tag(keys: &[BV]) -> BV {
    let Some((first, rest)) = keys.split_first() else {
        return k64(1);
    };
    rest.iter().fold(mix64(first), |h, k| mix64(&h.bvxor(k)))
}
