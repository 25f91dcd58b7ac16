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

use super::grid_hw;
use warptrace_ir::Per;
pub(crate) use warptrace_verifier::semantics::array_index;
use warptrace_verifier::semantics::{self, ArrayPlace};

/// `block`, `rows` and `row` of the executing thread for an array of `per`, over the PTX
/// special registers (`semantics::array_place`, shared with the GCN proofs).
pub(crate) fn array_place(per: Per) -> ArrayPlace {
    semantics::array_place(per, &grid_hw)
}
