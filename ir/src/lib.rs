//! warptrace's probe IR.
//!
//! A [`Program`] is a set of maps, thread-persistent registers, printf formats, `config`
//! values, host blocks and device [`Probe`]s; each probe is a DAG of [`Insn`]s attached
//! to an [`AttachSpec`]. [`Program::parse`] reads the text form that `Display` prints;
//! [`MapLayout`] is the device buffer both sides agree on; a [`Bundle`] is what the CLI
//! hands to the runtime. A [`MapStore`] is the host side of the maps (decoded from a
//! device buffer, merged, updated by host blocks); [`interp`] runs programs on the CPU,
//! the oracle for the GPU's results. The reference is `docs/ir.md`.
#![deny(missing_docs)]

mod attach;
mod bundle;
mod insn;
mod layout;
mod parse;
mod program;
mod store;
mod text;

pub mod interp;

pub use attach::{AttachPoint, AttachSpec, Granularity, Isa, LoopEdge, MemOp, MemSpace, Position};
pub use bundle::{Bundle, BundleError, BUNDLE_FORMAT};
pub use insn::{
    Aggregation, BinOp, ExtFrom, FormatId, Insn, MapId, Operand, PersistId, Reg, SiteValue,
    Special, SpecialSource, Width,
};
pub use layout::{
    array_record_offset, array_rows, hist_bucket, lhist_bucket, max_decode, max_encode, min_decode,
    min_encode, mix64, LaunchDims, LaunchLayout, MapLayout, MapRegion, HASH_MAX_PROBES,
    HIST_BUCKETS, MAX_HIST_BITS,
};
pub use parse::ParseError;
pub use program::{
    lhist_buckets, ConfigEntry, ConfigValue, HostBlock, HostEvent, KeyType, MapDecl, MapKind,
    Overflow, Per, PersistDecl, Probe, Program, Span, ValueKind,
};
pub use store::{MapStore, Record, RecordOrigin, StoreError, StoredMap, Update, WordOp};

/// The id of a kernel: FNV-1a 64 of its mangled name. Code generators emit it as the
/// `kernel` builtin; the host maps it back to the name.
pub fn kernel_id(mangled_name: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in mangled_name.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_id_is_fnv1a() {
        // Reference values of FNV-1a 64.
        assert_eq!(kernel_id(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(kernel_id("a"), 0xaf63_dc4c_8601_ec8c);
    }
}
