//! Writing a launch's initial words (ring cursors' bases, array bounds: what a zeroed map
//! buffer lacks) into its device buffer through a pinned host buffer, the same for CUDA
//! and HIP: each word goes to its offset of the host buffer, then a stream-ordered copy of
//! those 8 bytes goes to the same offset of the device buffer. The host buffer is the one
//! the read-back later overwrites, so staging needs no memory of its own.

use std::ffi::c_void;

/// Stages each `(offset, value)` of `words` at `offset` of the `len` bytes at `host`
/// (little-endian, unaligned) and has `copy(offset, source)` send those 8 bytes to the
/// device. False as soon as a word does not fit in `len` or a copy fails; true for no
/// words.
///
/// # Safety
/// `host` is `len` writable bytes that nothing else uses until the copies are done.
pub(crate) unsafe fn stage_words(
    host: usize,
    len: usize,
    words: &[(u64, u64)],
    mut copy: impl FnMut(u64, *const c_void) -> bool,
) -> bool {
    words.iter().all(|&(offset, value)| {
        let Ok(at) = usize::try_from(offset) else {
            return false;
        };
        if at.checked_add(8).is_none_or(|end| end > len) {
            return false;
        }
        // SAFETY: `at + 8 <= len` inside the host buffer; an unaligned-safe write.
        unsafe {
            let p = (host as *mut u8).add(at);
            std::ptr::write_unaligned(p.cast::<u64>(), value);
            copy(offset, p.cast::<c_void>())
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs [`stage_words`] over a 24-byte host buffer with a copy into a 24-byte
    /// "device", failing the copy at `fail_at`; the result and the device's bytes.
    fn staged(words: &[(u64, u64)], fail_at: Option<u64>) -> (bool, Vec<u8>) {
        let mut host = vec![0u8; 24];
        let mut device = vec![0u8; 24];
        let send = |offset: u64, p: *const c_void| {
            if Some(offset) == fail_at {
                return false;
            }
            let at = offset as usize;
            // SAFETY: `p` is the 8 staged bytes at `offset`, inside the host buffer.
            let bytes = unsafe { std::slice::from_raw_parts(p.cast::<u8>(), 8) };
            device[at..at + 8].copy_from_slice(bytes);
            true
        };
        // SAFETY: `host` is 24 bytes used by nothing else.
        let ok = unsafe { stage_words(host.as_mut_ptr() as usize, host.len(), words, send) };
        (ok, device)
    }

    #[test]
    fn each_word_reaches_its_offset_little_endian() {
        let (ok, device) = staged(&[(0, 0x0807_0605_0403_0201), (13, u64::MAX)], None);
        assert!(ok);
        assert_eq!(&device[..8], &[1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(&device[8..13], &[0; 5]);
        assert_eq!(&device[13..21], &[0xff; 8]);
        assert_eq!(&device[21..], &[0; 3]);
        assert!(staged(&[], None).0);
    }

    #[test]
    fn a_word_past_the_end_or_a_failed_copy_stops_it() {
        // 17 + 8 > 24: the first word is staged, the second refused.
        let (ok, device) = staged(&[(0, 1), (17, 2)], None);
        assert!(!ok);
        assert_eq!(device[0], 1);
        assert!(!staged(&[(u64::MAX, 1)], None).0);
        let (ok, device) = staged(&[(0, 1), (8, 2), (16, 3)], Some(8));
        assert!(!ok);
        assert_eq!((device[0], device[8], device[16]), (1, 0, 0));
    }
}
