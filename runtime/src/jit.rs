//! The driver's JIT of instrumented PTX: through the linker (`cuLinkCreate` /
//! `cuLinkAddData` / `cuLinkComplete`), which hands back the cubin for the on-disk cache,
//! then `cuModuleLoadData` of that cubin; or, without a cache, `cuModuleLoadDataEx` of the
//! PTX. Both fill an error log whose first line explains a failure; `WARPTRACE_FAULT=jit`
//! fails both (nothing is then cached).

use crate::config::{self, Config, Fault};
use crate::driver::{CuResult, Driver, CUDA_SUCCESS};
use crate::report::Reason;
use cudarc::driver::sys::{CUlinkState, CUmodule};
use std::ffi::{c_int, c_void, CString};
use std::time::Instant;

/// A failed JIT: the reason to count and the first line of the driver's log.
pub type Failure = (Reason, String);

/// A loaded instrumented module.
#[derive(Debug)]
pub struct Jitted {
    /// The `CUmodule`.
    pub module: usize,
    /// Its cubin, when it came from the linker (to cache).
    pub cubin: Option<Vec<u8>>,
    /// Microseconds the driver spent.
    pub micros: u64,
}

/// `CU_JIT_INFO_LOG_BUFFER`, `…_SIZE_BYTES`, `CU_JIT_ERROR_LOG_BUFFER`, `…_SIZE_BYTES`.
const JIT_LOG_OPTIONS: [c_int; 4] = [3, 4, 5, 6];
const JIT_LOG_BYTES: usize = 4096;
/// `CUDA_ERROR_NOT_FOUND`: the driver lacks the function.
const CUDA_ERROR_NOT_FOUND: CuResult = 500;
/// `CU_JIT_INPUT_PTX`.
const JIT_INPUT_PTX: c_int = 1;

pub(crate) fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or("").trim().to_string()
}

/// The driver's info and error logs and the option arrays that point at them.
struct Logs {
    info: Vec<u8>,
    error: Vec<u8>,
    options: [c_int; 4],
    values: [*mut c_void; 4],
}

impl Logs {
    fn new() -> Box<Logs> {
        let mut logs = Box::new(Logs {
            info: vec![0; JIT_LOG_BYTES],
            error: vec![0; JIT_LOG_BYTES],
            options: JIT_LOG_OPTIONS,
            values: [std::ptr::null_mut(); 4],
        });
        logs.values = [
            logs.info.as_mut_ptr().cast(),
            JIT_LOG_BYTES as *mut c_void,
            logs.error.as_mut_ptr().cast(),
            JIT_LOG_BYTES as *mut c_void,
        ];
        logs
    }

    /// `<what>: CUresult N: <first line of the error log>`.
    fn failure(&self, what: &str, rc: CuResult) -> String {
        let n = self
            .error
            .iter()
            .position(|&b| b == 0)
            .unwrap_or(self.error.len());
        let log = String::from_utf8_lossy(&self.error[..n]);
        first_line(&format!(
            "{what}: CUresult {rc}: {}",
            if log.is_empty() { "(no log)" } else { &log }
        ))
    }
}

fn fail(log: &str) -> Failure {
    let head = first_line(log);
    config::warn(format_args!(
        "JIT of instrumented PTX failed: {head}; running the original"
    ));
    (Reason::JitError, head)
}

/// JIT-compiles and loads `ptx` in the current context; with `want_cubin` (a cache to
/// fill) through the linker, so the cubin comes back too. Should the linker fail, the
/// PTX is JIT-compiled directly (uncached) before giving up.
pub fn jit(d: &Driver, cfg: &Config, ptx: &str, want_cubin: bool) -> Result<Jitted, Failure> {
    if cfg.fault == Some(Fault::Jit) {
        return Err(fail("injected fault (WARPTRACE_FAULT=jit)"));
    }
    let Ok(text) = CString::new(ptx) else {
        return Err(fail("instrumented PTX contains a NUL byte"));
    };
    let start = Instant::now();
    let linker = (
        d.cuLinkCreate,
        d.cuLinkAddData,
        d.cuLinkComplete,
        d.cuLinkDestroy,
    );
    let linked = match linker {
        (Some(create), Some(add), Some(complete), Some(destroy)) if want_cubin => {
            link(&text, create, add, complete, destroy).and_then(|cubin| {
                let module = load_cubin(d, &cubin)
                    .map_err(|rc| format!("cuModuleLoadData of the linked cubin: CUresult {rc}"))?;
                Ok((module, Some(cubin)))
            })
        }
        _ => Err(String::new()),
    };
    let (module, cubin) = match linked {
        Ok(done) => done,
        Err(why) => {
            if !why.is_empty() {
                config::verbose(format_args!(
                    "linking the instrumented PTX failed ({why}); JIT-compiling it uncached"
                ));
            }
            (load_ex(d, &text).map_err(|why| fail(&why))?, None)
        }
    };
    let micros = start.elapsed().as_micros() as u64;
    config::verbose(format_args!(
        "instrumented module JIT-compiled: {} bytes of PTX{} in {:.1} ms",
        ptx.len(),
        cubin
            .as_ref()
            .map_or(String::new(), |c| format!(" -> {} bytes of cubin", c.len())),
        micros as f64 / 1000.0
    ));
    Ok(Jitted {
        module,
        cubin,
        micros,
    })
}

type LinkCreate =
    unsafe extern "C" fn(u32, *mut c_int, *mut *mut c_void, *mut CUlinkState) -> CuResult;
type LinkAdd = unsafe extern "C" fn(
    CUlinkState,
    c_int,
    *mut c_void,
    usize,
    *const std::ffi::c_char,
    u32,
    *mut c_int,
    *mut *mut c_void,
) -> CuResult;
type LinkComplete = unsafe extern "C" fn(CUlinkState, *mut *mut c_void, *mut usize) -> CuResult;
type LinkDestroy = unsafe extern "C" fn(CUlinkState) -> CuResult;

/// The cubin of `ptx`, from the driver's linker; the error is the driver's log line.
fn link(
    ptx: &CString,
    create: LinkCreate,
    add: LinkAdd,
    complete: LinkComplete,
    destroy: LinkDestroy,
) -> Result<Vec<u8>, String> {
    let mut logs = Logs::new();
    let mut state: CUlinkState = std::ptr::null_mut();
    // SAFETY: 4 options with their values; the log buffers (boxed) outlive the link state,
    // which is destroyed below on every path.
    let rc = unsafe {
        create(
            4,
            logs.options.as_mut_ptr(),
            logs.values.as_mut_ptr(),
            &mut state,
        )
    };
    if rc != CUDA_SUCCESS {
        return Err(logs.failure("cuLinkCreate", rc));
    }
    let bytes = ptx.as_bytes_with_nul();
    // SAFETY: state is live; the PTX is NUL-terminated and `bytes.len()` long, and the
    // driver only reads it.
    let rc = unsafe {
        add(
            state,
            JIT_INPUT_PTX,
            bytes.as_ptr().cast_mut().cast(),
            bytes.len(),
            c"warptrace-instrumented.ptx".as_ptr(),
            0,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
        )
    };
    let result = if rc != CUDA_SUCCESS {
        Err(logs.failure("cuLinkAddData", rc))
    } else {
        let mut cubin: *mut c_void = std::ptr::null_mut();
        let mut size = 0usize;
        // SAFETY: state is live; out-pointers.
        let rc = unsafe { complete(state, &mut cubin, &mut size) };
        if rc != CUDA_SUCCESS || cubin.is_null() {
            Err(logs.failure("cuLinkComplete", rc))
        } else {
            // SAFETY: the linker's image is `size` bytes and lives until cuLinkDestroy.
            Ok(unsafe { std::slice::from_raw_parts(cubin.cast::<u8>(), size) }.to_vec())
        }
    };
    // SAFETY: state was created above and is destroyed once.
    unsafe { destroy(state) };
    result
}

/// `cuModuleLoadData` of a cubin (the real one: the runtime's own loads are not images
/// of the application); the error is the driver's `CUresult`.
pub fn load_cubin(d: &Driver, cubin: &[u8]) -> Result<usize, CuResult> {
    let Some(load) = d.cuModuleLoadData else {
        return Err(CUDA_ERROR_NOT_FOUND);
    };
    let mut module: CUmodule = std::ptr::null_mut();
    // SAFETY: cubin is a complete ELF image the driver only reads during the call.
    let rc = unsafe { load(&mut module, cubin.as_ptr().cast()) };
    if rc != CUDA_SUCCESS {
        return Err(rc);
    }
    Ok(module as usize)
}

/// `cuModuleLoadDataEx` of PTX, with the logs; the error is the driver's log line.
fn load_ex(d: &Driver, ptx: &CString) -> Result<usize, String> {
    let Some(load) = d.cuModuleLoadDataEx else {
        return Err("cuModuleLoadDataEx missing".into());
    };
    let mut logs = Logs::new();
    let mut module: CUmodule = std::ptr::null_mut();
    // SAFETY: ptx is NUL-terminated; the option arrays have 4 entries and the log
    // buffers outlive the call.
    let rc = unsafe {
        load(
            &mut module,
            ptx.as_ptr().cast(),
            4,
            logs.options.as_mut_ptr(),
            logs.values.as_mut_ptr(),
        )
    };
    if rc != CUDA_SUCCESS {
        return Err(logs.failure("cuModuleLoadDataEx", rc));
    }
    Ok(module as usize)
}
