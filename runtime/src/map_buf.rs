//! Launch map buffers and the memory they may hold.
//!
//! Invariant: the map buffers a process holds in one context — in flight (a launch's,
//! until the drain thread has merged it) or pooled for reuse — take at most `--map-memory`
//! bytes of that device's memory (and as much pinned host memory; by default an eighth of
//! the first device's memory, [`default_budget`]), except that a single buffer larger than
//! the budget may be held when it is the only one of its context. Per context, because
//! device memory is per device, and because only the current context's pooled buffers
//! can be freed to make room: a budget shared across devices would leave one device's
//! launches waiting for buffers another device keeps. A launch whose buffer would pass the budget
//! first reuses or frees pooled buffers, then waits for the drain thread to give one back;
//! if none comes back within [`WAIT`], it runs unprobed and is counted
//! ([`Reason::MapMemory`]). Without this, a program that launches faster than its
//! read-backs are decoded (a per-warp array of 2 GiB a launch) piled up a buffer a launch
//! until the host ran out of memory.

use crate::driver::{Driver, CUDA_SUCCESS};
use crate::report::Reason;
use cudarc::driver::sys::{CUdeviceptr, CUevent};
use std::collections::BTreeMap;
use std::ffi::c_uint;
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// How long a launch waits for the drain thread to give a buffer back before it runs
/// unprobed.
pub(crate) const WAIT: Duration = Duration::from_secs(10);

/// `--map-memory`'s default when the driver cannot tell the device's memory: 4 GiB.
pub const DEFAULT_MAP_MEMORY: u64 = 4 << 30;

/// The budget without `--map-memory`: an eighth of the memory of the device of the first
/// launch that asks (at least 1 GiB), else [`DEFAULT_MAP_MEMORY`]. An eighth leaves the
/// program its memory and lets the buffers of a drain that lags by a hundred launches of
/// a 40 MiB ring (`dmat` on the benchmark's kernels) stay in flight without a wait.
pub(crate) fn default_budget(d: &Driver) -> u64 {
    static BUDGET: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *BUDGET.get_or_init(|| {
        let (Some(get_device), Some(total)) = (d.cuCtxGetDevice, d.cuDeviceTotalMem) else {
            return DEFAULT_MAP_MEMORY;
        };
        let mut dev = 0;
        let mut bytes = 0usize;
        // SAFETY: out-pointers; the launch's context is current.
        let ok = unsafe {
            get_device(&mut dev) == CUDA_SUCCESS && total(&mut bytes, dev) == CUDA_SUCCESS
        };
        if ok && bytes > 0 {
            (bytes as u64 / 8).max(1 << 30)
        } else {
            DEFAULT_MAP_MEMORY
        }
    })
}

/// A launch's map buffer: a device allocation, the host memory it is read back into
/// (page-aligned, registered with the driver: the process's own memory, so reading it is
/// safe even after the context is destroyed at exit; none, `ptr` 0, for a buffer the drain
/// thread reads back itself, see `launch::read_used`), and the event recorded after the
/// copy (or the launch), all of `len` bytes in context `ctx`. Pooled per (context, size)
/// instead of allocated per launch (a stream-ordered allocation per launch cost ~200 µs of
/// stream time on an H100). A buffer goes back to the pool only after its read-back
/// arrived, when no work on it is queued on any stream; one whose launch or copy failed is
/// never reused (work on it may still be queued) and stays counted against the budget.
/// A pooled buffer is freed only when the budget needs its memory for another size.
#[derive(Debug)]
pub(crate) struct MapBuf {
    pub(crate) ptr: usize,
    pub(crate) len: usize,
    pub(crate) device: CUdeviceptr,
    pub(crate) event: usize,
    pub(crate) ctx: usize,
}

/// A pooled buffer's handles: (host, device, event).
type Parts = (usize, CUdeviceptr, usize);

/// The pool and what every buffer of the process takes.
struct Pool {
    /// Free buffers by (context, size, with a pinned half).
    free: BTreeMap<(usize, usize, bool), Vec<Parts>>,
    /// Per context, device bytes of every buffer allocated and not freed (page-rounded).
    held: BTreeMap<usize, u64>,
}

impl Pool {
    fn held(&mut self, ctx: usize) -> &mut u64 {
        self.held.entry(ctx).or_insert(0)
    }
}

static POOL: Mutex<Pool> = Mutex::new(Pool {
    free: BTreeMap::new(),
    held: BTreeMap::new(),
});
/// Signalled when a buffer goes back to the pool.
static GIVEN: Condvar = Condvar::new();

fn pool() -> MutexGuard<'static, Pool> {
    POOL.lock().unwrap_or_else(|p| p.into_inner())
}

/// `CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING`: the drain thread sleeps while it
/// waits.
const EVENT_FLAGS: c_uint = 0x1 | 0x2;
/// `CU_MEMHOSTREGISTER_PORTABLE`.
const REGISTER_PORTABLE: c_uint = 0x1;
const PAGE: usize = 4096;

fn rounded(len: usize) -> usize {
    len.max(8).next_multiple_of(PAGE)
}

impl MapBuf {
    /// A buffer of `len` bytes in `ctx`, from the pool or new, within `budget` bytes
    /// for all of the process's buffers (see the module's invariant), waiting up to
    /// `wait` ([`WAIT`] on the launch path) for one to come back. Without `pinned` it
    /// has no host half (`ptr` is 0): the drain thread copies it into memory of its own.
    pub(crate) fn take(
        d: &Driver,
        ctx: usize,
        len: usize,
        pinned: bool,
        budget: u64,
        wait: Duration,
    ) -> Result<MapBuf, Reason> {
        let size = rounded(len);
        let deadline = Instant::now() + wait;
        let mut p = pool();
        loop {
            if let Some((ptr, device, event)) =
                p.free.get_mut(&(ctx, len, pinned)).and_then(Vec::pop)
            {
                return Ok(MapBuf {
                    ptr,
                    len,
                    device,
                    event,
                    ctx,
                });
            }
            let held = p.held(ctx);
            if *held == 0 || held.saturating_add(size as u64) <= budget {
                *held += size as u64;
                break;
            }
            if free_one(d, &mut p, ctx) {
                continue;
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(Reason::MapMemory);
            }
            p = GIVEN
                .wait_timeout(p, deadline - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        drop(p);
        let made = allocate(d, ctx, len, size, pinned);
        if made.is_none() {
            // Whatever was created stays (rare, and freeing would synchronize); the
            // budget is given back so later launches are not refused for it.
            *pool().held(ctx) -= size as u64;
        }
        made.ok_or(Reason::MapAlloc)
    }

    /// Back to the pool, for the next launch of its size in its context.
    pub(crate) fn give(self) {
        pool()
            .free
            .entry((self.ctx, self.len, self.ptr != 0))
            .or_default()
            .push((self.ptr, self.device, self.event));
        GIVEN.notify_all();
    }
}

/// Frees one pooled buffer of context `ctx` (the current one) to make room; false when
/// there is none or the driver lacks what freeing takes.
fn free_one(d: &Driver, p: &mut Pool, ctx: usize) -> bool {
    let (Some(free), Some(destroy)) = (d.cuMemFree, d.cuEventDestroy) else {
        return false;
    };
    let Some(key) = p
        .free
        .iter()
        .find(|((c, _, _), v)| *c == ctx && !v.is_empty())
        .map(|(k, _)| *k)
    else {
        return false;
    };
    let Some((ptr, device, event)) = p.free.get_mut(&key).and_then(Vec::pop) else {
        return false;
    };
    let (_, len, pinned) = key;
    let size = rounded(len);
    // SAFETY: a pooled buffer: no work on it is queued, nothing else holds its handles,
    // and its context is current.
    unsafe {
        destroy(event as CUevent);
        free(device);
        if pinned {
            if let Some(unregister) = d.cuMemHostUnregister {
                if unregister(ptr as *mut std::ffi::c_void) == CUDA_SUCCESS {
                    if let Ok(layout) = std::alloc::Layout::from_size_align(size, PAGE) {
                        std::alloc::dealloc(ptr as *mut u8, layout);
                    }
                }
            }
        }
    }
    let held = p.held(ctx);
    *held = held.saturating_sub(size as u64);
    true
}

/// A new buffer of `len` bytes (`size` page-rounded).
fn allocate(d: &Driver, ctx: usize, len: usize, size: usize, pinned: bool) -> Option<MapBuf> {
    if !pinned {
        let mut device: CUdeviceptr = 0;
        let mut event: CUevent = std::ptr::null_mut();
        // SAFETY: out-pointers.
        let ok = unsafe {
            d.cuMemAlloc
                .is_some_and(|f| f(&mut device, size) == CUDA_SUCCESS)
                && d.cuEventCreate
                    .is_some_and(|f| f(&mut event, EVENT_FLAGS) == CUDA_SUCCESS)
        };
        return (ok && device != 0 && !event.is_null()).then_some(MapBuf {
            ptr: 0,
            len,
            device,
            event: event as usize,
            ctx,
        });
    }
    let layout = std::alloc::Layout::from_size_align(size, PAGE).ok()?;
    // SAFETY: a non-zero size.
    let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
    if ptr.is_null() {
        return None;
    }
    let mut device: CUdeviceptr = 0;
    let mut event: CUevent = std::ptr::null_mut();
    // SAFETY: `ptr` spans `size` bytes and is never freed while registered (never
    // freed at all unless registration fails); the others are out-pointers.
    let ok = unsafe {
        d.cuMemHostRegister
            .is_some_and(|f| f(ptr.cast(), size, REGISTER_PORTABLE) == CUDA_SUCCESS)
            && d.cuMemAlloc
                .is_some_and(|f| f(&mut device, size) == CUDA_SUCCESS)
            && d.cuEventCreate
                .is_some_and(|f| f(&mut event, EVENT_FLAGS) == CUDA_SUCCESS)
    };
    if !ok || device == 0 || event.is_null() {
        return None;
    }
    Some(MapBuf {
        ptr: ptr as usize,
        len,
        device,
        event: event as usize,
        ctx,
    })
}

#[cfg(test)]
mod tests {
    //! The budget against a driver whose allocations are counted, not made: one test, as
    //! the pool is the process's.
    use super::*;
    use std::ffi::{c_char, c_void, CStr};
    use std::sync::atomic::{AtomicUsize, Ordering};

    static NEXT: AtomicUsize = AtomicUsize::new(0x1000);
    static ALLOCS: AtomicUsize = AtomicUsize::new(0);
    static FREES: AtomicUsize = AtomicUsize::new(0);

    unsafe extern "C" fn mem_alloc(p: *mut CUdeviceptr, size: usize) -> u32 {
        ALLOCS.fetch_add(1, Ordering::SeqCst);
        // SAFETY: the caller's out-pointer.
        unsafe { *p = NEXT.fetch_add(size, Ordering::SeqCst) as CUdeviceptr };
        0
    }
    unsafe extern "C" fn mem_free(_: CUdeviceptr) -> u32 {
        FREES.fetch_add(1, Ordering::SeqCst);
        0
    }
    unsafe extern "C" fn event_create(e: *mut CUevent, _: c_uint) -> u32 {
        // SAFETY: the caller's out-pointer; the handle is never used as a real event.
        unsafe { *e = NEXT.fetch_add(1, Ordering::SeqCst) as CUevent };
        0
    }
    unsafe extern "C" fn ok1(_: *mut c_void) -> u32 {
        0
    }
    unsafe extern "C" fn ok_ev(_: CUevent) -> u32 {
        0
    }
    unsafe extern "C" fn register(_: *mut c_void, _: usize, _: c_uint) -> u32 {
        0
    }
    unsafe extern "C" fn dlsym(_: *mut c_void, name: *const c_char) -> *mut c_void {
        // SAFETY: resolve passes NUL-terminated names.
        let name = unsafe { CStr::from_ptr(name) };
        let f: usize = match name.to_bytes() {
            b"cuMemAlloc_v2" => mem_alloc as *const () as usize,
            b"cuMemFree_v2" => mem_free as *const () as usize,
            b"cuEventCreate" => event_create as *const () as usize,
            b"cuEventDestroy_v2" => ok_ev as *const () as usize,
            b"cuMemHostRegister_v2" => register as *const () as usize,
            b"cuMemHostUnregister" => ok1 as *const () as usize,
            _ => 0,
        };
        f as *mut c_void
    }

    const PAGE_U: u64 = PAGE as u64;

    #[test]
    fn buffers_stay_within_the_budget_reused_freed_or_waited_for() {
        let d = Driver::resolve(std::ptr::null_mut(), dlsym);
        let (ctx, budget, now) = (7, 3 * PAGE_U, Duration::from_millis(20));
        let take = |len: usize, wait| MapBuf::take(&d, ctx, len, false, budget, wait);
        // Alone, a buffer larger than the budget is allowed.
        let big = take(5 * PAGE, now).expect("the only buffer");
        assert_eq!(*pool().held(ctx), 5 * PAGE_U);
        big.give();
        // Another size: the pooled big one is freed to make room.
        let a = take(PAGE, now).expect("room after freeing");
        assert_eq!(
            (FREES.load(Ordering::SeqCst), *pool().held(ctx)),
            (1, PAGE_U)
        );
        let b = take(PAGE, now).expect("within");
        let c = take(PAGE, now).expect("at the budget");
        assert_eq!(ALLOCS.load(Ordering::SeqCst), 4);
        // Full, nothing pooled: refused after the wait, counted by the caller.
        assert_eq!(take(PAGE, now).map(|_| ()), Err(Reason::MapMemory));
        // A buffer given back while a launch waits is the one it gets.
        let waited = std::thread::scope(|s| {
            s.spawn(|| {
                std::thread::sleep(Duration::from_millis(30));
                a.give();
            });
            take(PAGE, Duration::from_secs(5)).expect("given back in time")
        });
        assert_eq!(ALLOCS.load(Ordering::SeqCst), 4, "reused, not allocated");
        assert_eq!(*pool().held(ctx), budget);
        // A pinned buffer has a host half of its own; over budget it waits like the rest.
        assert_eq!(
            MapBuf::take(&d, ctx, PAGE, true, budget, now).map(|_| ()),
            Err(Reason::MapMemory)
        );
        for buf in [b, c, waited] {
            buf.give();
        }
        let pinned = MapBuf::take(&d, ctx, PAGE, true, budget, now).expect("room freed");
        assert_ne!(pinned.ptr, 0);
        assert_eq!(*pool().held(ctx), budget);
        // Another context (another device) has a budget of its own: no wait there.
        let other = MapBuf::take(&d, ctx + 1, 2 * PAGE, false, budget, now).expect("its own");
        assert_eq!(*pool().held(ctx + 1), 2 * PAGE_U);
        other.give();
    }
}
