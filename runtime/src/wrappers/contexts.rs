//! Context teardown: before the application gives a context up, the read-backs already
//! handed to the drain thread are waited for (their events live in the context; the CUDA
//! runtime releases the primary context from its exit handler, which runs before ours), and
//! the resident map buffers of the context are read back (`resident.rs`).

use crate::config::active;
use crate::driver::CuResult;
use crate::resident;
use cudarc::driver::sys::{CUcontext, CUdevice};

use super::guard;

/// How long teardown waits for the drain thread, as the exit handler does.
const SETTLE: std::time::Duration = std::time::Duration::from_secs(10);

/// Waits for the delivered read-backs, then reads back the resident buffers `which`
/// selects.
fn before_teardown(d: &crate::driver::Driver, which: impl Fn(usize, CUdevice) -> bool) {
    crate::launch::settle(SETTLE);
    resident::flush(d, which);
    crate::launch_probes::forget_events();
}

/// `cuCtxDestroy` (`_v2`).
pub unsafe extern "C" fn cuCtxDestroy_v2(ctx: CUcontext) -> CuResult {
    let (d, real) = real!(cuCtxDestroy);
    if active() {
        guard(|| before_teardown(d, |c, _| c == ctx as usize));
    }
    // SAFETY: forwarding.
    unsafe { real(ctx) }
}

/// `cuDevicePrimaryCtxRelease` (`_v2`): the release may be the last, so the buffers of
/// the device's contexts are read back first (a buffer read back early is only merged
/// early; a later launch starts a new one).
pub unsafe extern "C" fn cuDevicePrimaryCtxRelease_v2(dev: CUdevice) -> CuResult {
    let (d, real) = real!(cuDevicePrimaryCtxRelease);
    if active() {
        guard(|| before_teardown(d, |_, of| of == dev));
    }
    // SAFETY: forwarding.
    unsafe { real(dev) }
}

/// `cuDevicePrimaryCtxReset` (`_v2`, which `cudaDeviceReset` calls).
pub unsafe extern "C" fn cuDevicePrimaryCtxReset_v2(dev: CUdevice) -> CuResult {
    let (d, real) = real!(cuDevicePrimaryCtxReset);
    if active() {
        guard(|| before_teardown(d, |_, of| of == dev));
    }
    // SAFETY: forwarding.
    unsafe { real(dev) }
}
