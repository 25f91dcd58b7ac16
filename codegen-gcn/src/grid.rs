//! The grid values (`ntid`, `nctaid`) of a launch, from the code object v5 hidden
//! arguments as AMDGPUUsage lays them out and the kernel's metadata lists them:
//! `hidden_block_count_x/y/z` (32-bit, the blocks per dimension) and
//! `hidden_group_size_x/y/z` (16-bit, the block size). The prologue loads each dword that
//! holds a needed one with `s_load_dword` from the kernarg segment pointer (one SGPR per
//! dword); snippets extract the field (`v_bfe_u32`). The verifier admits exactly these
//! loads (`GcnKernelModel::readable_params`): a launch fills them and nothing writes them.
//! Kernels without them in their metadata (Triton's) make the builtins `Unsupported`.

use crate::alloc::Alloc;
use crate::lower::{Field, GridFields, Needs};
use crate::metadata::MetaKernel;
use crate::reg::Reg;
use std::collections::BTreeMap;

/// The hidden arguments a snippet may read, by value kind: block counts, then block sizes.
const KINDS: [[&str; 3]; 2] = [
    [
        "hidden_block_count_x",
        "hidden_block_count_y",
        "hidden_block_count_z",
    ],
    [
        "hidden_group_size_x",
        "hidden_group_size_y",
        "hidden_group_size_z",
    ],
];

/// The dword-aligned kernarg offsets inserted code may load, each named after the first
/// readable hidden argument in it; a dword qualifies when every byte of it that an
/// argument covers belongs to a readable one (or to `hidden_remainder_*`, filled by the
/// launch the same way).
pub(crate) fn readable_dwords(meta: &MetaKernel) -> BTreeMap<u64, String> {
    let mut named: BTreeMap<u64, String> = BTreeMap::new();
    let mut bad: Vec<u64> = Vec::new();
    for a in &meta.args {
        let (Some(off), Some(size)) = (a.offset(), a.size()) else {
            continue;
        };
        let kind = a.value_kind();
        let readable = KINDS.iter().flatten().any(|k| *k == kind);
        let harmless = readable || kind.starts_with("hidden_remainder_");
        for dword in (off / 4)..(off + size).div_ceil(4) {
            if !harmless {
                bad.push(dword * 4);
            } else if readable {
                named.entry(dword * 4).or_insert_with(|| kind.to_owned());
            }
        }
    }
    named.retain(|d, _| !bad.contains(d));
    named
}

/// The fields `needs` asks for: allocates one SGPR per dword, and returns the fields and
/// the dwords to load (offset, register). A needed argument missing from the metadata
/// leaves its field `None` (the lowering reports `Unsupported` where it is read).
pub(crate) fn allocate(
    meta: &MetaKernel,
    needs: &Needs,
    alloc: &mut Alloc,
) -> (GridFields, Vec<(u64, Reg)>) {
    let dwords = readable_dwords(meta);
    let mut loads: BTreeMap<u64, Reg> = BTreeMap::new();
    let mut fields = GridFields::default();
    let wanted = [needs.nctaid, needs.ntid];
    for (k, kinds) in KINDS.iter().enumerate() {
        for (d, kind) in kinds.iter().enumerate() {
            if !wanted[k][d] {
                continue;
            }
            let Some(arg) = meta.args.iter().find(|a| a.value_kind() == *kind) else {
                continue;
            };
            let (Some(off), Some(size)) = (arg.offset(), arg.size()) else {
                continue;
            };
            let dword = off / 4 * 4;
            if size > 4 || off + size > dword + 4 || !dwords.contains_key(&dword) {
                continue;
            }
            let reg = *loads.entry(dword).or_insert_with(|| alloc.sgprs(1));
            let f = Field {
                reg,
                shift: 8 * (off - dword) as u32,
                bits: 8 * size as u32,
            };
            if k == 0 {
                fields.nctaid[d] = Some(f);
            } else {
                fields.ntid[d] = Some(f);
            }
        }
    }
    (fields, loads.into_iter().collect())
}
