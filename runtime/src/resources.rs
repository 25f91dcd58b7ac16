//! A launch whose block the instrumented form cannot take runs the original: the driver's
//! figures of both forms (`cuFuncGetAttribute`), compared per launch
//! (`warptrace_codegen_ptx::resources` states the invariant).

use crate::config;
use crate::driver::{CuResult, Driver, CUDA_SUCCESS};
use crate::report::Reason;
use cudarc::driver::sys::{CUfunction, CUkernel};
use std::ffi::c_int;
use warptrace_codegen_ptx::resources::{Resources, Shortfall, MAX_BLOCK};

/// `CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES`: what the driver answers a launch of a block the
/// function cannot take.
pub const CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES: CuResult = 701;

/// `CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK`, `_LOCAL_SIZE_BYTES`, `_NUM_REGS`.
const MAX_THREADS_PER_BLOCK: c_int = 0;
const LOCAL_SIZE_BYTES: c_int = 3;
const NUM_REGS: c_int = 4;

/// Both forms' figures of an instrumented kernel.
#[derive(Debug, Clone, Copy)]
pub struct Pair {
    /// The original's, when the driver gives them.
    pub original: Option<Resources>,
    /// The instrumented form's.
    pub instrumented: Resources,
}

impl Pair {
    /// `N registers a thread (was M), …`: both forms' figures for `-v`.
    pub fn describe(&self) -> String {
        let i = self.instrumented;
        let was = |f: fn(&Resources) -> u32| {
            self.original
                .map_or_else(|| "not known".to_string(), |o| f(&o).to_string())
        };
        format!(
            "{} registers a thread (was {}), {} bytes local (was {}), blocks up to {} threads \
             (was {})",
            i.registers,
            was(|r| r.registers),
            i.local_bytes,
            was(|r| r.local_bytes),
            i.max_threads,
            was(|r| r.max_threads)
        )
    }
}

/// One function's figures from the driver; `None` when it gives none.
fn of(d: &Driver, func: usize) -> Option<Resources> {
    let get = d.cuFuncGetAttribute?;
    let attr = |which| {
        let mut v: c_int = 0;
        // SAFETY: a live function handle and an out-pointer.
        let rc = unsafe { get(&mut v, which, func as CUfunction) };
        (rc == CUDA_SUCCESS)
            .then(|| u32::try_from(v).ok())
            .flatten()
    };
    Some(Resources {
        registers: attr(NUM_REGS)?,
        local_bytes: attr(LOCAL_SIZE_BYTES)?,
        max_threads: attr(MAX_THREADS_PER_BLOCK)?,
    })
}

/// The original's figures: of `handle` as a function, else as a `CUkernel` (the CUDA
/// runtime's kernels, `cuLibraryGetKernel`) through its function in the current context.
fn original(d: &Driver, handle: usize) -> Option<Resources> {
    of(d, handle).or_else(|| {
        let get = d.cuKernelGetFunction?;
        let mut func: CUfunction = std::ptr::null_mut();
        // SAFETY: an out-pointer; a handle that is not a kernel is refused by the driver.
        let rc = unsafe { get(&mut func, handle as CUkernel) };
        (rc == CUDA_SUCCESS && !func.is_null())
            .then(|| of(d, func as usize))
            .flatten()
    })
}

/// The figures of the original `handle` and its instrumented copy `func`; `None` when the
/// driver gives none for the copy (every launch is then tried, and a failed one runs the
/// original, `launch.rs`).
pub fn pair(d: &Driver, handle: usize, func: usize) -> Option<Pair> {
    Some(Pair {
        instrumented: of(d, func)?,
        original: original(d, handle),
    })
}

/// Whether a launch of `threads` threads a block may run the instrumented form: `Err`
/// (with the figures said under `-v`) when the original takes that block and the
/// instrumented form cannot. An original without figures is taken to take any block: the
/// original then runs, and gives the launch its own answer.
pub fn admit(name: &str, pair: Option<&Pair>, threads: u32) -> Result<(), Reason> {
    let Some(p) = pair else { return Ok(()) };
    let i = p.instrumented;
    let original = p.original.unwrap_or(Resources {
        max_threads: MAX_BLOCK,
        ..i
    });
    let Some(short) = Shortfall::of(original, i, Some(threads)) else {
        return Ok(());
    };
    let why = match p.original {
        Some(_) => short.to_string(),
        None => format!(
            "the instrumented form takes {} registers a thread and {} bytes of local memory: \
             blocks of at most {} threads",
            i.registers, i.local_bytes, i.max_threads
        ),
    };
    config::verbose(format_args!(
        "{name}: a block of {threads} threads runs the original: {why}"
    ));
    Err(Reason::Resources)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: Resources = Resources {
        registers: 10,
        local_bytes: 0,
        max_threads: 1024,
    };
    const HEAVY: Resources = Resources {
        registers: 255,
        local_bytes: 528,
        max_threads: 256,
    };

    #[test]
    fn a_block_the_instrumented_form_cannot_take_runs_the_original() {
        let pair = Pair {
            original: Some(SMALL),
            instrumented: HEAVY,
        };
        assert_eq!(admit("k", Some(&pair), 256), Ok(()));
        assert_eq!(admit("k", Some(&pair), 1024), Err(Reason::Resources));
        // Without the driver's figures every launch is tried (a refused one runs the
        // original, counted in launch.rs).
        assert_eq!(admit("k", None, 1024), Ok(()));
        // An original without figures is taken to take any block.
        let unknown = Pair {
            original: None,
            instrumented: HEAVY,
        };
        assert_eq!(admit("k", Some(&unknown), 512), Err(Reason::Resources));
        assert_eq!(admit("k", Some(&unknown), 128), Ok(()));
        assert!(
            unknown.describe().contains("(was not known)"),
            "{}",
            unknown.describe()
        );
        assert_eq!(
            pair.describe(),
            "255 registers a thread (was 10), 528 bytes local (was 0), blocks up to 256 \
             threads (was 1024)"
        );
    }
}
