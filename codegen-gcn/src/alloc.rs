//! Probe registers: allocated above the kernel's own, once per kernel.
//!
//! SGPRs start at the kernel's `.amdhsa_next_free_sgpr` rounded up to even (64-bit
//! SGPR operands are even-aligned pairs); VGPRs at its architectural VGPR count rounded up
//! to even (gfx90a and gfx942 require even-aligned VGPR tuples). On gfx90a/gfx942, whose
//! AGPRs follow the architectural VGPRs in one register file at `.amdhsa_accum_offset`,
//! the AGPRs move up: `accum_offset` is raised to the new architectural count rounded to
//! 4 and `next_free_vgpr` becomes `accum_offset + agprs` (the kernel names AGPRs relative
//! to `accum_offset`, so its code is unchanged). The limits are 102 SGPRs and 256
//! architectural VGPRs; a kernel that would exceed them is `Unsupported`.

use crate::reg::{Reg, RegFile};

/// Addressable SGPRs on gfx9 (`s0`..`s101`).
pub const MAX_SGPRS: u32 = 102;
/// Architectural VGPRs per lane.
pub const MAX_VGPRS: u32 = 256;

/// A bump allocator above a kernel's registers.
#[derive(Debug, Clone)]
pub struct Alloc {
    next_sgpr: u32,
    next_vgpr: u32,
}

impl Alloc {
    /// Above `sgprs` SGPRs and `vgprs` architectural VGPRs.
    pub fn new(sgprs: u32, vgprs: u32) -> Alloc {
        let s = sgprs.next_multiple_of(2);
        let v = vgprs.next_multiple_of(2);
        Alloc {
            next_sgpr: s,
            next_vgpr: v,
        }
    }

    /// `n` SGPRs, even-aligned when `n >= 2`.
    pub fn sgprs(&mut self, n: u32) -> Reg {
        if n >= 2 {
            self.next_sgpr = self.next_sgpr.next_multiple_of(2);
        }
        let r = Reg::new(RegFile::Sgpr, self.next_sgpr, n);
        self.next_sgpr += n;
        r
    }

    /// `n` VGPRs, even-aligned when `n >= 2`.
    pub fn vgprs(&mut self, n: u32) -> Reg {
        if n >= 2 {
            self.next_vgpr = self.next_vgpr.next_multiple_of(2);
        }
        let r = Reg::new(RegFile::Vgpr, self.next_vgpr, n);
        self.next_vgpr += n;
        r
    }

    /// SGPRs in use after allocation (the new `next_free_sgpr`).
    pub fn sgpr_end(&self) -> u32 {
        self.next_sgpr
    }

    /// Architectural VGPRs in use after allocation.
    pub fn vgpr_end(&self) -> u32 {
        self.next_vgpr
    }
}

/// Waves per SIMD a kernel can have with `vgprs` (architectural + AGPRs, unified file of
/// 512 per lane on gfx90a/gfx942, granule 8) and `sgprs` (granule 16, 800 per SIMD), at
/// most 8 — the occupancy figure `KernelOutcome::occupancy` reports before and after.
pub fn occupancy(vgprs: u32, sgprs: u32) -> u32 {
    let v = vgprs.max(1).next_multiple_of(8);
    let s = sgprs.max(1).next_multiple_of(16);
    (512 / v).min(800 / s).min(8)
}

/// Waves per SIMD on gfx10/gfx11, where SGPRs do not limit occupancy: the VGPR file is
/// 1024 registers per lane in wave32 and 512 in wave64 (gfx11: 1536 and 768, granules
/// 24 and 12), at most 20 waves (gfx11: 16).
pub(crate) fn occupancy_gfx10_plus(vgprs: u32, wave: u32, gfx11: bool) -> u32 {
    let (file, granule, max) = match (gfx11, wave) {
        (true, 32) => (1536, 24, 16),
        (true, _) => (768, 12, 16),
        (false, 32) => (1024, 8, 20),
        (false, _) => (512, 4, 20),
    };
    (file / vgprs.max(1).next_multiple_of(granule)).min(max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_are_even_aligned_above_the_kernel() {
        let mut a = Alloc::new(77, 147);
        assert_eq!(a.sgprs(1), Reg::s(78));
        assert_eq!(a.sgprs(2), Reg::new(RegFile::Sgpr, 80, 2));
        assert_eq!(a.vgprs(1), Reg::v(148));
        assert_eq!(a.vgprs(4), Reg::new(RegFile::Vgpr, 150, 4));
        assert_eq!((a.sgpr_end(), a.vgpr_end()), (82, 154));
        assert_eq!(occupancy(116, 26), 4);
        assert_eq!(occupancy(6, 18), 8);
        assert_eq!(occupancy_gfx10_plus(30, 32, true), 16);
        assert_eq!(occupancy_gfx10_plus(200, 32, true), 7);
    }
}
