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
mod warp_access;

pub mod fold;
pub mod group;
pub mod interp;
pub mod placement;
pub mod uniform;

pub use attach::{
    AttachPoint, AttachSpec, GlobError, Granularity, Isa, KernelFilter, LoopEdge, MemOp, MemSpace,
    Position, RegionEnd,
};
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
    Overflow, Per, PersistDecl, Probe, Program, Span, ValueKind, RING_COPIES,
};
pub use store::{MapStore, Record, RecordOrigin, StoreError, StoredMap, Update, WordOp};
pub use text::key_type_name;
pub use warp_access::{
    run, sectors, wavefront_unit_log2, wavefronts, SECTOR_BYTES, WAVEFRONT_BYTES,
};

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

    fn program(text: &str) -> Program {
        Program::parse(text).expect("parses")
    }

    #[test]
    fn a_kernel_filter_applies_each_probe_to_the_kernels_its_glob_names() {
        let p = program(
            "map @n: hash(keys = 16) -> count\n\n\
             probe 0: kernel:entry:*scale*\n  0: map.update @n count\n  1: exit\n\n\
             probe 1: kernel:exit\n  0: map.update @n count\n  1: exit\n",
        );
        let f = KernelFilter::new(&p).expect("compiles");
        assert!(f.matches(0, "_Z9scale_addPKfPfi"));
        assert!(!f.matches(0, "block_sum"));
        assert!(f.matches(1, "block_sum"), "no glob: every kernel");
        assert!(!f.matches(2, "block_sum"), "no such probe");
    }

    #[test]
    fn a_glob_that_does_not_compile_is_named_in_the_error() {
        let p = program(
            "map @n: hash(keys = 16) -> count\n\n\
             probe 0: kernel:exit:[\n  0: map.update @n count\n  1: exit\n",
        );
        let e = KernelFilter::new(&p).expect_err("an unclosed class");
        assert_eq!(e.glob, "[");
        assert_eq!(e.to_string(), "invalid kernel glob `[`");
    }
}
