//! Launches whose arguments come through `extra`: the map pointer appended to the
//! `CU_LAUNCH_PARAM_BUFFER_POINTER` buffer.
//!
//! A launch may pass its arguments as one packed buffer (`extra = { BUFFER_POINTER, p,
//! BUFFER_SIZE, &size, END }`) instead of `kernelParams`; cuBLAS and other libraries do.
//! The instrumented function has one more parameter, the map pointer, and the driver reads
//! it at the offset *its* layout gives that parameter. That offset is asked of the driver
//! (`cuFuncGetParamInfo` on the instrumented function), never computed here: a layout
//! computed here that disagreed with the driver's would hand the kernel a pointer made of
//! other bytes. The new buffer holds the caller's bytes below that offset — every original
//! parameter ends at or below it, since it is laid out after them — then the pointer.
//!
//! Anything else is refused (`Reason::ExtraParams`, the launch runs the original): an
//! `extra` with keys other than the two buffer keys, no buffer, a buffer too short to reach
//! the original parameters' end, or a driver that cannot say where the map pointer goes.
//!
//! HIP's `extra` is the same but for its end key (`HIP_LAUNCH_PARAM_END` is 3, CUDA's 0),
//! so both runtimes read and extend it here; HIP takes the map offset from the code
//! object's metadata.

use crate::report::Reason;
use std::ffi::c_void;

/// `CU_LAUNCH_PARAM_END`; `CU_`/`HIP_LAUNCH_PARAM_BUFFER_POINTER` and `…_BUFFER_SIZE`.
pub(crate) const CUDA_END: usize = 0;
const BUFFER_POINTER: usize = 1;
const BUFFER_SIZE: usize = 2;
/// More entries than any `extra` has: a list without `END` is not read past this.
const MAX_ENTRIES: usize = 16;

/// A launch's argument buffer: where the caller's bytes are and how many.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ArgBuffer {
    pub ptr: *const u8,
    pub size: usize,
}

/// Reads the caller's `extra` array, whose end key is `end`.
///
/// # Safety
/// `extra` is a launch's non-null `extra` argument: pairs ending with `end`, whose
/// `BUFFER_POINTER` value points at `*BUFFER_SIZE` readable bytes.
pub(crate) unsafe fn read(extra: *mut *mut c_void, end: usize) -> Result<ArgBuffer, Reason> {
    let (mut ptr, mut size): (Option<*const u8>, Option<usize>) = (None, None);
    for i in 0..MAX_ENTRIES {
        // SAFETY: the caller's array holds pairs up to `END`.
        let key = unsafe { *extra.add(2 * i) } as usize;
        if key == end {
            return match (ptr, size) {
                (Some(ptr), Some(size)) if !ptr.is_null() => Ok(ArgBuffer { ptr, size }),
                _ => Err(Reason::ExtraParams),
            };
        }
        // SAFETY: a key other than `END` is followed by its value.
        let value = unsafe { *extra.add(2 * i + 1) };
        match key {
            BUFFER_POINTER => ptr = Some(value as *const u8),
            // SAFETY: the value of `BUFFER_SIZE` points at a `size_t`.
            BUFFER_SIZE if !value.is_null() => size = Some(unsafe { *(value as *const usize) }),
            _ => return Err(Reason::ExtraParams),
        }
    }
    Err(Reason::ExtraParams)
}

/// An `extra` for the instrumented function: the caller's argument bytes with the map
/// pointer at `map_offset`. Keep it alive until the launch call returns (the driver
/// copies the arguments then).
#[derive(Debug)]
pub(crate) struct Extended {
    bytes: Vec<u8>,
    size: Box<usize>,
    array: [*mut c_void; 5],
}

impl Extended {
    /// `args`'s bytes below `map_offset` (the original parameters all end there or
    /// before; `args_end` is where the last one ends), then `map` as 8 bytes; `end` is
    /// the platform's end key.
    ///
    /// # Safety
    /// `args` points at `args.size` readable bytes.
    pub(crate) unsafe fn new(
        args: ArgBuffer,
        args_end: usize,
        map_offset: usize,
        map: u64,
        end: usize,
    ) -> Result<Box<Extended>, Reason> {
        if args.size < args_end || args_end > map_offset {
            return Err(Reason::ExtraParams);
        }
        let kept = args.size.min(map_offset);
        let mut bytes = vec![0u8; map_offset + 8];
        // SAFETY: `kept <= args.size` bytes are readable at `args.ptr`.
        bytes[..kept].copy_from_slice(unsafe { std::slice::from_raw_parts(args.ptr, kept) });
        bytes[map_offset..].copy_from_slice(&map.to_le_bytes());
        let mut e = Box::new(Extended {
            size: Box::new(bytes.len()),
            bytes,
            array: [std::ptr::null_mut(); 5],
        });
        e.array = [
            BUFFER_POINTER as *mut c_void,
            e.bytes.as_mut_ptr().cast(),
            BUFFER_SIZE as *mut c_void,
            (&raw mut *e.size).cast(),
            end as *mut c_void,
        ];
        Ok(e)
    }

    /// Puts `map` (the map buffer's device address) where the map pointer goes.
    pub(crate) fn set_map(&mut self, map: u64) {
        let at = self.bytes.len() - 8;
        self.bytes[at..].copy_from_slice(&map.to_le_bytes());
    }

    /// The `extra` argument to launch with.
    pub(crate) fn as_extra(&mut self) -> *mut *mut c_void {
        self.array.as_mut_ptr()
    }

    #[cfg(test)]
    fn bytes(&self) -> &[u8] {
        &self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn extra(entries: &[usize]) -> Vec<*mut c_void> {
        entries.iter().map(|&e| e as *mut c_void).collect()
    }

    #[test]
    fn the_buffer_and_its_size_are_read_in_either_order() {
        let args = [7u8; 12];
        let size = 12usize;
        let (p, s) = (args.as_ptr() as usize, &raw const size as usize);
        for order in [[1, p, 2, s, 0], [2, s, 1, p, 0]] {
            let mut e = extra(&order);
            // SAFETY: a well-formed extra over live locals.
            let got = unsafe { read(e.as_mut_ptr(), CUDA_END) }.expect("reads");
            assert_eq!(
                got,
                ArgBuffer {
                    ptr: args.as_ptr(),
                    size: 12
                }
            );
        }
    }

    #[test]
    fn unknown_keys_missing_parts_and_no_end_are_refused() {
        let args = [0u8; 8];
        let size = 8usize;
        let (p, s) = (args.as_ptr() as usize, &raw const size as usize);
        let mut no_end = extra(&[1, p, 2, s].repeat(MAX_ENTRIES / 2 + 1));
        for mut e in [
            extra(&[1, p, 2, s, 3, 0, 0]),
            extra(&[1, p, 0]),
            extra(&[2, s, 0]),
            extra(&[1, 0, 2, s, 0]),
            extra(&[1, p, 2, 0, 0]),
            extra(&[0]),
        ] {
            // SAFETY: each array ends with END within bounds; values are live or null.
            assert_eq!(
                unsafe { read(e.as_mut_ptr(), CUDA_END) },
                Err(Reason::ExtraParams),
                "{e:?}"
            );
        }
        // SAFETY: MAX_ENTRIES pairs are readable.
        assert_eq!(
            unsafe { read(no_end.as_mut_ptr(), CUDA_END) },
            Err(Reason::ExtraParams)
        );
    }

    #[test]
    fn the_map_pointer_lands_at_the_drivers_offset_after_the_kept_bytes() {
        // (u64 p, u32 n) packed as a C struct: 16 bytes with the tail padding, the
        // parameters end at 12, the driver puts an 8-aligned pointer at 16.
        let mut args = [0u8; 16];
        args[..8].copy_from_slice(&0xdead_beef_u64.to_le_bytes());
        args[8..12].copy_from_slice(&1000u32.to_le_bytes());
        args[12..].copy_from_slice(&[0xaa; 4]);
        let buf = ArgBuffer {
            ptr: args.as_ptr(),
            size: 16,
        };
        // SAFETY: `args` is 16 readable bytes.
        let mut e = unsafe { Extended::new(buf, 12, 16, 0x1234, CUDA_END) }.expect("fits");
        assert_eq!(&e.bytes()[..16], &args);
        assert_eq!(&e.bytes()[16..], &0x1234u64.to_le_bytes());
        // SAFETY: the new extra is well-formed and live.
        let again = unsafe { read(e.as_extra(), CUDA_END) }.expect("reads");
        assert_eq!(again.size, 24);
        // A caller passing exactly the parameters' 12 bytes: zero padding before the map.
        let short = ArgBuffer {
            ptr: args.as_ptr(),
            size: 12,
        };
        // SAFETY: 12 of the 16 bytes.
        let e = unsafe { Extended::new(short, 12, 16, 0x1234, CUDA_END) }.expect("fits");
        assert_eq!(&e.bytes()[12..16], &[0; 4]);
        // Trailing bytes past the map offset are not copied over the pointer.
        let long = [0x55u8; 32];
        let buf = ArgBuffer {
            ptr: long.as_ptr(),
            size: 32,
        };
        // SAFETY: 32 readable bytes.
        let e = unsafe { Extended::new(buf, 8, 8, 7, CUDA_END) }.expect("fits");
        assert_eq!(e.bytes().len(), 16);
        assert_eq!(&e.bytes()[8..], &7u64.to_le_bytes());
    }

    #[test]
    fn hips_end_key_ends_hips_extra() {
        let args = [1u8; 8];
        let size = 8usize;
        let (p, s) = (args.as_ptr() as usize, &raw const size as usize);
        let mut e = extra(&[1, p, 2, s, 3]);
        // SAFETY: a well-formed HIP extra over live locals.
        let got = unsafe { read(e.as_mut_ptr(), 3) }.expect("reads");
        assert_eq!(got.size, 8);
        // SAFETY: 8 readable bytes.
        let mut x = unsafe { Extended::new(got, 8, 8, 0, 3) }.expect("fits");
        x.set_map(9);
        assert_eq!(&x.bytes()[8..], &9u64.to_le_bytes());
        // SAFETY: the extended array ends with HIP's end key.
        assert_eq!(unsafe { read(x.as_extra(), 3) }.expect("reads").size, 16);
    }

    #[test]
    fn a_buffer_short_of_the_parameters_is_refused() {
        let args = [0u8; 8];
        let buf = ArgBuffer {
            ptr: args.as_ptr(),
            size: 8,
        };
        // SAFETY: 8 readable bytes; both are refused before reading.
        unsafe {
            assert!(Extended::new(buf, 12, 16, 1, CUDA_END).is_err());
            assert!(Extended::new(buf, 20, 16, 1, CUDA_END).is_err());
        }
    }
}
