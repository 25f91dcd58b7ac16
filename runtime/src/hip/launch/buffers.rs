//! Pinned host buffers for the read-back (`hipHostMalloc`), pooled by size and never
//! freed (`hipHostFree` would synchronize); bounded by the launches in flight at once.

use super::super::ffi::{Hip, HIP_SUCCESS, HOST_MALLOC_DEFAULT};
use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::Mutex;

/// A pinned host buffer from the pool.
#[derive(Debug)]
pub struct HostBuf {
    /// Its address.
    pub ptr: usize,
    /// Its length.
    pub len: usize,
}

static POOL: Mutex<Option<HashMap<usize, Vec<usize>>>> = Mutex::new(None);

impl HostBuf {
    /// A buffer of `len` bytes: a pooled one, else a new `hipHostMalloc`.
    pub fn take(hip: &Hip, len: usize) -> Option<HostBuf> {
        let reused = POOL
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get_or_insert_with(HashMap::new)
            .get_mut(&len)
            .and_then(Vec::pop);
        if let Some(ptr) = reused {
            return Some(HostBuf { ptr, len });
        }
        let mut ptr: *mut c_void = std::ptr::null_mut();
        // SAFETY: ptr is an out-pointer.
        let rc = unsafe { hip.host_malloc?(&mut ptr, len.max(8), HOST_MALLOC_DEFAULT) };
        (rc == HIP_SUCCESS && !ptr.is_null()).then_some(HostBuf {
            ptr: ptr as usize,
            len,
        })
    }

    /// Returns the buffer to the pool.
    pub fn give(self) {
        POOL.lock()
            .unwrap_or_else(|p| p.into_inner())
            .get_or_insert_with(HashMap::new)
            .entry(self.len)
            .or_default()
            .push(self.ptr);
    }
}
