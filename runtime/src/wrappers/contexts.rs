//! Context teardown: the resident map buffers of a context are read back before the
//! application gives it up (`resident.rs`).

use crate::config::active;
use crate::driver::CuResult;
use crate::resident;
use cudarc::driver::sys::{CUcontext, CUdevice};

use super::guard;

/// `cuCtxDestroy` (`_v2`).
pub unsafe extern "C" fn cuCtxDestroy_v2(ctx: CUcontext) -> CuResult {
    let (d, real) = real!(cuCtxDestroy);
    if active() {
        guard(|| resident::flush(d, |c, _| c == ctx as usize));
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
        guard(|| resident::flush(d, |_, of| of == dev));
    }
    // SAFETY: forwarding.
    unsafe { real(dev) }
}

/// `cuDevicePrimaryCtxReset` (`_v2`, which `cudaDeviceReset` calls).
pub unsafe extern "C" fn cuDevicePrimaryCtxReset_v2(dev: CUdevice) -> CuResult {
    let (d, real) = real!(cuDevicePrimaryCtxReset);
    if active() {
        guard(|| resident::flush(d, |_, of| of == dev));
    }
    // SAFETY: forwarding.
    unsafe { real(dev) }
}
