//! The warp-wide values of one memory access, `sectors` and `wavefronts` (what a warp's
//! request costs) and each lane's `run`, computed over the lanes that execute the
//! instruction together. These
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

/// The run of lane `lane` in an access of `bytes` per lane by `lanes` (lane index, address):
/// the mask of the lanes whose address minus `lane' * bytes` equals this lane's, i.e. the
/// lanes on its line `addr + (lane' - lane) * bytes`. A coalesced warp access is one run;
/// rows of a tile are a run each; a gather is mostly runs of one lane. The lanes of a run
/// are exactly described by its lowest lane's `(addr, run, bytes)`.
pub fn run(bytes: u64, lanes: &[(u32, u64)], lane: u32) -> u64 {
    let key = |l: u32, a: u64| a.wrapping_sub(u64::from(l).wrapping_mul(bytes));
    let Some(&(_, mine)) = lanes.iter().find(|(l, _)| *l == lane) else {
        return 0;
    };
    let own = key(lane, mine);
    lanes
        .iter()
        .filter(|&&(l, a)| l < 64 && key(l, a) == own)
        .fold(0, |m, &(l, _)| m | 1 << l)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lanes(stride: u64, bytes: u64) -> Vec<u64> {
        (0..32).map(|l| 0x1000 + l * stride * bytes).collect()
    }

    #[test]
    fn runs_of_common_patterns() {
        let at =
            |f: &dyn Fn(u64) -> u64| (0..32u32).map(|l| (l, f(u64::from(l)))).collect::<Vec<_>>();
        // Coalesced: one run of all lanes, from any lane.
        let lin = at(&|l| 0x1000 + 4 * l);
        assert_eq!(run(4, &lin, 0), 0xFFFF_FFFF);
        assert_eq!(run(4, &lin, 17), 0xFFFF_FFFF);
        // Rows of 8 lanes, 16 bytes each, 4 KiB apart: four runs of 8.
        let tile = at(&|l| 0x10_0000 + (l / 8) * 4096 + (l % 8) * 16);
        assert_eq!(run(16, &tile, 9), 0xFF00);
        assert_eq!(run(16, &tile, 31), 0xFF00_0000);
        // Strided past the width: a run of one lane each.
        let strided = at(&|l| 0x1000 + 132 * l);
        assert_eq!(run(4, &strided, 5), 1 << 5);
        // Lanes that are not there, or a lane not in the access.
        let some: Vec<(u32, u64)> = lin.iter().copied().filter(|(l, _)| l % 2 == 0).collect();
        assert_eq!(run(4, &some, 2), 0x5555_5555);
        assert_eq!(run(4, &some, 3), 0);
        // Lanes on one line with a gap in between still share it.
        let split = at(&|l| {
            if !(4..28).contains(&l) {
                0x2000 + 4 * l
            } else {
                0x9000 + 4 * l
            }
        });
        assert_eq!(run(4, &split, 0), 0xF000_000F);
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
