//! The IR side of `map.save` (`docs/ir.md`, "Array"; `interp::device::array_save`): where
//! a thread's (warp's) record `s` is, in terms of the hardware registers.
//!
//! The record of `(block, row, s)` is `((block · rows + row) · slots + s) · slot_bytes`
//! bytes after the array's records (`layout::array_record_offset`), with `block` the
//! linear block index, `rows` the rows per block (`layout::array_rows`: the block's
//! threads, or its warps of 32 threads rounded up) and `row` the linear thread index in
//! the block (`per = thread`) or that divided by 32 (`per = warp`). The grid values are
//! the formulas of the `block`/`thread`/`warp` specials, evaluated in 32 bits where their
//! exactness (no wrap, under the hardware limits) is a goal; the index is 64-bit
//! arithmetic modulo 2^64, as the device computes it (where the exact index exceeds 2^64
//! the interpreter faults and no buffer can hold the region).

use super::{add, linear_block, mul, Exact32};
use warptrace_ir::Per;
use z3::ast::{Bool, BV};

fn k64(v: u64) -> BV {
    BV::from_u64(v, 64)
}

/// The record's place in the grid, as 64-bit terms.
pub(crate) struct ArrayPlace {
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
pub(crate) fn array_place(per: Per) -> ArrayPlace {
    let mut ex = Exact32::default();
    let block = linear_block(&mut ex, 64);
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
pub(crate) fn array_index(place: &ArrayPlace, slots: u32, slot_bytes: u64, s: &BV) -> BV {
    let r = add(&mul(&place.block, &place.rows), &place.row);
    let r = add(&mul(&r, &k64(u64::from(slots))), s);
    mul(&r, &k64(slot_bytes))
}
