//! What a launch needs of an instrumented kernel against its original: registers a
//! thread, local memory a thread, and so the largest block it can launch.
//!
//! Invariant: a launch the original kernel can take is never handed to an instrumented form
//! that cannot take it. Probes add live values; a kernel of 14 registers may need 255 and
//! then fits at most 256 threads a block, where the original took 1024, and its launch
//! would fail with `CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES`. The runtime reads both forms'
//! figures from the driver (`cuFuncGetAttribute`) and serves a larger block with the
//! original (counted); `warptrace instrument --resources` reads them from `ptxas -v` and
//! the block limit from [`block_limit`].

use std::collections::HashMap;
use std::fmt;

/// 32-bit registers of one SM's register file, and the most one block may use (sm_50 to
/// sm_120).
const REGISTER_FILE: u32 = 65_536;
/// Registers are given to a warp in units of this many.
const WARP_ALLOCATION_UNIT: u32 = 256;
/// Threads a block may have at most.
pub const MAX_BLOCK: u32 = 1024;

/// The resources one kernel's launch needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resources {
    /// Registers a thread.
    pub registers: u32,
    /// Local memory a thread (stack frame, spills), in bytes.
    pub local_bytes: u32,
    /// The most threads a block of it may have.
    pub max_threads: u32,
}

/// The most threads a block of a kernel of `registers` registers a thread can have on a
/// 64K-register SM, capped by the kernel's launch bound (`.maxntid`/`.reqntid`, as
/// threads) when it has one: what `CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK` says.
pub fn block_limit(registers: u32, launch_bound: Option<u32>) -> u32 {
    let per_warp = (registers.max(1) * 32).div_ceil(WARP_ALLOCATION_UNIT) * WARP_ALLOCATION_UNIT;
    let by_registers = (REGISTER_FILE / per_warp * 32).min(MAX_BLOCK);
    launch_bound.map_or(by_registers, |b| by_registers.min(b))
}

/// A kernel's figures in `ptxas -v`'s report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PtxasUsage {
    /// `Used N registers`.
    pub registers: u32,
    /// `N bytes stack frame`.
    pub stack_frame: u32,
    /// `N bytes spill stores`.
    pub spill_stores: u32,
}

impl PtxasUsage {
    /// The resources a launch needs, with the kernel's launch bound (threads) if any.
    pub fn resources(&self, launch_bound: Option<u32>) -> Resources {
        Resources {
            registers: self.registers,
            local_bytes: self.stack_frame,
            max_threads: block_limit(self.registers, launch_bound),
        }
    }
}

/// Each entry function's figures in `ptxas -v`'s report (its stderr), by mangled name:
/// `Function properties for NAME`, the stack line, then `Used N registers` (device
/// functions have no such line and are left out).
pub fn parse_ptxas_verbose(report: &str) -> HashMap<String, PtxasUsage> {
    let mut out = HashMap::new();
    let mut current: Option<(String, PtxasUsage)> = None;
    let number_before = |line: &str, what: &str| {
        let at = line.find(what)?;
        line[..at].split_whitespace().last()?.parse().ok()
    };
    for line in report.lines() {
        if let Some(i) = line.find("Function properties for ") {
            let name = line[i + "Function properties for ".len()..].trim();
            current = Some((name.to_owned(), PtxasUsage::default()));
        } else if let Some((_, usage)) = current.as_mut() {
            if let Some(n) = number_before(line, "bytes stack frame") {
                usage.stack_frame = n;
            }
            if let Some(n) = number_before(line, "bytes spill stores") {
                usage.spill_stores = n;
            }
            if let Some(i) = line.find("Used ") {
                let n = line[i + 5..].split_whitespace().next();
                if let (Some(n), Some((name, mut usage))) =
                    (n.and_then(|w| w.parse().ok()), current.take())
                {
                    usage.registers = n;
                    out.insert(name, usage);
                }
            }
        }
    }
    out
}

/// The threads a block of a kernel's launch bound allows, from its header's directives
/// as written (`.maxntid 128, 1, 1`, `.reqntid 256`): the product of the dimensions.
pub fn launch_bound<'a>(directives: impl IntoIterator<Item = &'a str>) -> Option<u32> {
    directives
        .into_iter()
        .filter_map(|d| {
            let rest = d
                .strip_prefix(".maxntid")
                .or_else(|| d.strip_prefix(".reqntid"))?;
            rest.split(',')
                .map(|x| x.trim().trim_end_matches(';').trim().parse::<u32>().ok())
                .try_fold(1u32, |a, x| x.map(|x| a.saturating_mul(x)))
        })
        .min()
}

/// An instrumented form that cannot take launches its original can: both forms' figures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shortfall {
    /// The original kernel's.
    pub original: Resources,
    /// The instrumented kernel's.
    pub instrumented: Resources,
}

impl Shortfall {
    /// The shortfall of `instrumented` against `original` for a block of `threads`
    /// (`None`: any block the original takes): `Some` when the original can take a block
    /// the instrumented form cannot.
    pub fn of(original: Resources, instrumented: Resources, threads: Option<u32>) -> Option<Self> {
        let short = match threads {
            Some(t) => t > instrumented.max_threads && t <= original.max_threads,
            None => instrumented.max_threads < original.max_threads,
        };
        short.then_some(Shortfall {
            original,
            instrumented,
        })
    }
}

impl fmt::Display for Shortfall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (o, i) = (self.original, self.instrumented);
        write!(
            f,
            "the instrumented form takes {} registers a thread (the original {}) and {} bytes \
             of local memory ({}): blocks of at most {} threads, where the original takes {}",
            i.registers, o.registers, i.local_bytes, o.local_bytes, i.max_threads, o.max_threads
        )
    }
}

/// The module's `.target` architecture, as `ptxas -arch` takes it (`sm_90a` of
/// `.target sm_90a, debug`).
pub fn target_arch(ptx: &str) -> Option<&str> {
    ptx.lines().find_map(|l| {
        let rest = l.trim().strip_prefix(".target")?;
        rest.split([',', ' ', '\t']).find(|w| w.starts_with("sm_"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_target_is_the_first_sm_word_of_the_directive() {
        assert_eq!(
            target_arch(".version 8.0\n.target sm_90a\n"),
            Some("sm_90a")
        );
        assert_eq!(target_arch("  .target sm_80, debug\n"), Some("sm_80"));
        assert_eq!(target_arch(".version 8.0\n"), None);
    }

    #[test]
    fn the_block_limit_is_the_register_file_over_each_warp_s_allocation() {
        // 10 registers: 16 a thread after rounding, 128 warps fit, capped at 1024 threads.
        assert_eq!(block_limit(10, None), 1024);
        // 64 registers: 2048 a warp, 32 warps.
        assert_eq!(block_limit(64, None), 1024);
        assert_eq!(block_limit(65, None), 896);
        // 192: 6144 a warp, 10 warps; 255: 8192 a warp (rounded up), 8 warps.
        assert_eq!(block_limit(192, None), 320);
        assert_eq!(block_limit(255, None), 256);
        assert_eq!(block_limit(10, Some(128)), 128);
        assert_eq!(block_limit(255, Some(512)), 256);
    }

    #[test]
    fn ptxas_verbose_reports_are_read_per_entry() {
        let report = "ptxas info    : 0 bytes gmem\n\
            ptxas info    : Compiling entry function '_Z1kPf' for 'sm_90a'\n\
            ptxas info    : Function properties for helper\n    \
            16 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n\
            ptxas info    : Function properties for _Z1kPf\n    \
            1024 bytes stack frame, 1016 bytes spill stores, 1016 bytes spill loads\n\
            ptxas info    : Used 255 registers, used 0 barriers, 368 bytes cmem[0]\n\
            ptxas info    : Compile time = 58.544 ms\n";
        let usage = parse_ptxas_verbose(report);
        assert_eq!(usage.len(), 1, "{usage:?}");
        assert_eq!(
            usage["_Z1kPf"],
            PtxasUsage {
                registers: 255,
                stack_frame: 1024,
                spill_stores: 1016
            }
        );
    }

    #[test]
    fn a_launch_bound_is_the_product_of_its_dimensions() {
        assert_eq!(launch_bound([".maxntid 128, 2, 1"]), Some(256));
        assert_eq!(launch_bound([".minnctapersm 2", ".reqntid 64"]), Some(64));
        assert_eq!(launch_bound([".maxnreg 32"]), None);
        assert_eq!(launch_bound([".maxntid 1024, x"]), None);
    }

    #[test]
    fn a_shortfall_is_a_block_the_original_takes_and_the_instrumented_form_cannot() {
        let original = Resources {
            registers: 14,
            local_bytes: 0,
            max_threads: 1024,
        };
        let instrumented = Resources {
            registers: 255,
            local_bytes: 1024,
            max_threads: 256,
        };
        assert!(Shortfall::of(original, instrumented, Some(256)).is_none());
        let s = Shortfall::of(original, instrumented, Some(1024)).expect("short");
        assert_eq!(
            s.to_string(),
            "the instrumented form takes 255 registers a thread (the original 14) and 1024 \
             bytes of local memory (0): blocks of at most 256 threads, where the original \
             takes 1024"
        );
        assert!(Shortfall::of(original, instrumented, None).is_some());
        // A block neither form can take is the original's error to give.
        let small = Resources {
            max_threads: 128,
            ..original
        };
        assert!(Shortfall::of(small, instrumented, Some(1024)).is_none());
        assert!(Shortfall::of(original, original, None).is_none());
    }
}
