//! The warp-wide values of one memory access, `sectors` and `wavefronts`: what a warp's
//! request costs, computed over the lanes that execute the instruction together. These
//! functions are the reference (`docs/ir.md`); the interpreter calls them and the code
//! generators' translation validation is checked against them.

use std::collections::{HashMap, HashSet};

/// Bytes in a global-memory sector.
pub const SECTOR_BYTES: u64 = 32;

/// Bytes a shared-memory wavefront serves (32 banks of 4 bytes).
pub const WAVEFRONT_BYTES: u64 = 128;

/// `log2` of the unit `wavefronts` groups an access of `bytes` per lane by: 4-byte words up
/// to 4 bytes, then the access itself (8, 16; wider accesses count as 128), so that an
/// access of consecutive units across the warp is as many wavefronts as it has 128-byte
/// rows.
pub fn wavefront_unit_log2(bytes: u64) -> u32 {
    bytes
        .clamp(4, WAVEFRONT_BYTES)
        .next_power_of_two()
        .trailing_zeros()
}

/// The number of distinct 32-byte sectors `addr >> 5` among the lanes' addresses (each
/// lane's access is naturally aligned and at most 32 bytes, so it lies in one sector).
pub fn sectors(addrs: impl IntoIterator<Item = u64>) -> u64 {
    let set: HashSet<u64> = addrs.into_iter().map(|a| a / SECTOR_BYTES).collect();
    set.len() as u64
}

/// Shared-memory wavefronts of a warp access of `bytes` per lane at `addrs`: with the unit
/// `u` ([`wavefront_unit_log2`]) and `G = 128 / u` bank groups, each lane's unit is
/// `addr / u` and its group `unit mod G`; the result is the largest number of distinct
/// units in one group (lanes reading one unit share it: a broadcast). A warp whose lanes
/// read 4-byte words in 32 different banks is 1; 32 words of one bank are 32.
pub fn wavefronts(bytes: u64, addrs: impl IntoIterator<Item = u64>) -> u64 {
    let shift = wavefront_unit_log2(bytes);
    let groups = WAVEFRONT_BYTES >> shift;
    let mut units: HashMap<u64, HashSet<u64>> = HashMap::new();
    for a in addrs {
        let unit = a >> shift;
        units.entry(unit % groups).or_default().insert(unit);
    }
    units.values().map(|u| u.len() as u64).max().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lanes(stride: u64, bytes: u64) -> Vec<u64> {
        (0..32).map(|l| 0x1000 + l * stride * bytes).collect()
    }

    #[test]
    fn sectors_of_common_patterns() {
        assert_eq!(sectors(lanes(1, 4)), 4);
        assert_eq!(sectors(lanes(2, 4)), 8);
        assert_eq!(sectors(lanes(8, 4)), 32);
        assert_eq!(sectors(lanes(1, 16)), 16);
        assert_eq!(sectors(vec![0x1000; 32]), 1);
        // Unaligned start: 128 bytes from 0x1010 touch five sectors.
        assert_eq!(sectors((0..32).map(|l| 0x1010 + 4 * l)), 5);
        assert_eq!(sectors(Vec::new()), 0);
    }

    #[test]
    fn wavefronts_of_common_patterns() {
        assert_eq!(wavefronts(4, lanes(1, 4)), 1);
        assert_eq!(wavefronts(4, lanes(2, 4)), 2);
        assert_eq!(wavefronts(4, lanes(4, 4)), 4);
        assert_eq!(wavefronts(4, lanes(32, 4)), 32);
        assert_eq!(wavefronts(4, lanes(33, 4)), 1);
        assert_eq!(wavefronts(4, vec![0x40; 32]), 1);
        // Bytes and shorts share their word.
        assert_eq!(wavefronts(1, 0..32), 1);
        assert_eq!(wavefronts(2, (0..32).map(|l| 2 * l)), 1);
        // Wide accesses: as many wavefronts as 128-byte rows when consecutive.
        assert_eq!(wavefronts(8, lanes(1, 8)), 2);
        assert_eq!(wavefronts(16, lanes(1, 16)), 4);
        assert_eq!(wavefronts(8, lanes(2, 8)), 4);
        assert_eq!(wavefronts(4, Vec::new()), 0);
    }

    #[test]
    fn units() {
        assert_eq!(wavefront_unit_log2(1), 2);
        assert_eq!(wavefront_unit_log2(4), 2);
        assert_eq!(wavefront_unit_log2(8), 3);
        assert_eq!(wavefront_unit_log2(16), 4);
        assert_eq!(wavefront_unit_log2(12), 4);
        assert_eq!(wavefront_unit_log2(1024), 7);
    }
}
