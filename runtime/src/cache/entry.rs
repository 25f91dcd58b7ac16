//! An entry's bytes: the 64-byte header, the cubin, the kernels' outcomes (the layout is
//! in the parent module's docs), and a bounds-checked decoder that turns anything
//! unexpected into a [`CacheError`].

use super::{CacheError, CacheKey, CACHE_FORMAT};
use crate::report::{KernelState, Reason};
use std::ops::Range;
use xxhash_rust::xxh3::{xxh3_64, Xxh3};

const MAGIC: &[u8; 8] = b"WTCACHE\0";
const HEADER: usize = 64;
/// Entries larger than this are not believed (a corrupt header must not make us allocate).
const MAX_ENTRY: u64 = 1 << 31;

/// One kernel's outcome as `build_module` recorded it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CachedKernel {
    /// Mangled name.
    pub name: String,
    /// `warptrace_ir::kernel_id` of the name.
    pub id: u64,
    /// Parameters of the original kernel.
    pub params: u32,
    /// Instrumented with its site count, or skipped and why.
    pub state: KernelState,
}

/// A decoded entry: the cubin (a view into the file's bytes) and each kernel's outcome.
#[derive(Debug, Clone)]
pub struct CacheEntry {
    bytes: Vec<u8>,
    cubin: Range<usize>,
    /// Every kernel of the module, in text order.
    pub kernels: Vec<CachedKernel>,
}

impl CacheEntry {
    /// The cubin to load (empty when no kernel of the module was instrumented).
    pub fn cubin(&self) -> &[u8] {
        &self.bytes[self.cubin.clone()]
    }

    /// The file contents of an entry.
    pub fn encode(key: CacheKey, cubin: &[u8], kernels: &[CachedKernel]) -> Vec<u8> {
        let meta = encode_kernels(kernels);
        let mut out = Vec::with_capacity(HEADER + cubin.len() + meta.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&CACHE_FORMAT.to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&key.0.to_le_bytes());
        out.extend_from_slice(&(cubin.len() as u64).to_le_bytes());
        out.extend_from_slice(&(meta.len() as u64).to_le_bytes());
        let mut h = Xxh3::new();
        h.update(cubin);
        h.update(&meta);
        out.extend_from_slice(&h.digest().to_le_bytes());
        out.extend_from_slice(&[0; 8]);
        out.extend_from_slice(cubin);
        out.extend_from_slice(&meta);
        out
    }

    /// Decodes the file contents of `key`'s entry, checking everything the header says.
    pub fn decode(key: CacheKey, bytes: Vec<u8>) -> Result<CacheEntry, CacheError> {
        let mut r = Reader::new(&bytes);
        let magic = r.take(MAGIC.len()).map_err(|_| CacheError::BadMagic)?;
        if magic != MAGIC {
            return Err(CacheError::BadMagic);
        }
        let truncated = || CacheError::Truncated {
            expected: HEADER as u64,
            found: bytes.len() as u64,
        };
        let format = r.u32().map_err(|_| truncated())?;
        if format != CACHE_FORMAT {
            return Err(CacheError::Format { found: format });
        }
        let header =
            (|| Ok::<_, CacheError>((r.u32()?, r.u128()?, r.u64()?, r.u64()?, r.u64()?)))();
        let (_flags, found_key, cubin_len, meta_len, checksum) = header.map_err(|_| truncated())?;
        if found_key != key.0 {
            return Err(CacheError::KeyMismatch);
        }
        let expected = (HEADER as u64)
            .checked_add(cubin_len)
            .and_then(|n| n.checked_add(meta_len))
            .filter(|&n| n <= MAX_ENTRY)
            .ok_or(CacheError::Malformed("lengths out of range"))?;
        if expected != bytes.len() as u64 {
            return Err(CacheError::Truncated {
                expected,
                found: bytes.len() as u64,
            });
        }
        if xxh3_64(&bytes[HEADER..]) != checksum {
            return Err(CacheError::Checksum);
        }
        let cubin = HEADER..HEADER + cubin_len as usize;
        let kernels = decode_kernels(&bytes[cubin.end..])?;
        let instrumented = kernels
            .iter()
            .any(|k| matches!(k.state, KernelState::Instrumented { .. }));
        if instrumented == cubin.is_empty() {
            return Err(CacheError::Malformed("cubin and kernel outcomes disagree"));
        }
        Ok(CacheEntry {
            bytes,
            cubin,
            kernels,
        })
    }
}

fn encode_kernels(kernels: &[CachedKernel]) -> Vec<u8> {
    let mut out = Vec::new();
    let string = |out: &mut Vec<u8>, s: &str| {
        out.extend_from_slice(&(s.len() as u32).to_le_bytes());
        out.extend_from_slice(s.as_bytes());
    };
    out.extend_from_slice(&(kernels.len() as u32).to_le_bytes());
    for k in kernels {
        string(&mut out, &k.name);
        out.extend_from_slice(&k.id.to_le_bytes());
        out.extend_from_slice(&k.params.to_le_bytes());
        match &k.state {
            KernelState::Instrumented { sites } => {
                out.push(0);
                out.extend_from_slice(&sites.to_le_bytes());
            }
            KernelState::Skipped { reason, detail } => {
                out.push(1);
                out.push(reason_code(*reason));
                string(&mut out, detail);
            }
        }
    }
    out
}

fn decode_kernels(meta: &[u8]) -> Result<Vec<CachedKernel>, CacheError> {
    let mut r = Reader::new(meta);
    let n = r.u32()?;
    // Each kernel takes at least 21 bytes: no count may promise more than there is.
    if n as usize > meta.len() / 21 {
        return Err(CacheError::Malformed("kernel count"));
    }
    let mut kernels = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let name = r.string()?;
        let (id, params) = (r.u64()?, r.u32()?);
        let state = match r.u8()? {
            0 => KernelState::Instrumented { sites: r.u32()? },
            1 => KernelState::Skipped {
                reason: reason_from(r.u8()?).ok_or(CacheError::Malformed("reason"))?,
                detail: r.string()?,
            },
            _ => return Err(CacheError::Malformed("kernel outcome")),
        };
        kernels.push(CachedKernel {
            name,
            id,
            params,
            state,
        });
    }
    if !r.rest().is_empty() {
        return Err(CacheError::Malformed("trailing bytes"));
    }
    Ok(kernels)
}

/// [`Reason`]s by their code in entries ([`reason_code`]; never renumber, only add).
const REASONS: [Reason; 19] = [
    Reason::NoPtx,
    Reason::Unsupported,
    Reason::ParseError,
    Reason::VerifierRejection,
    Reason::NoSites,
    Reason::JitError,
    Reason::MapAlloc,
    Reason::Capture,
    Reason::ExtraParams,
    Reason::LaunchError,
    Reason::ArrayBounds,
    Reason::NotSelected,
    Reason::NoAssembly,
    Reason::Resources,
    Reason::MapMemory,
    Reason::JitBudget,
    Reason::GraphBody,
    Reason::DeviceGraph,
    Reason::NotTimed,
];

fn reason_code(r: Reason) -> u8 {
    // Exhaustive, so a new reason cannot be stored without a code.
    match r {
        Reason::NoPtx => 0,
        Reason::Unsupported => 1,
        Reason::ParseError => 2,
        Reason::VerifierRejection => 3,
        Reason::NoSites => 4,
        Reason::JitError => 5,
        Reason::MapAlloc => 6,
        Reason::Capture => 7,
        Reason::ExtraParams => 8,
        Reason::LaunchError => 9,
        Reason::ArrayBounds => 10,
        Reason::NotSelected => 11,
        Reason::NoAssembly => 12,
        Reason::Resources => 13,
        Reason::MapMemory => 14,
        Reason::JitBudget => 15,
        Reason::GraphBody => 16,
        Reason::DeviceGraph => 17,
        Reason::NotTimed => 18,
    }
}

fn reason_from(code: u8) -> Option<Reason> {
    REASONS.get(usize::from(code)).copied()
}

/// A bounds-checked little-endian reader.
struct Reader<'a> {
    rest: &'a [u8],
}

impl<'a> Reader<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Reader { rest: bytes }
    }

    fn rest(&self) -> &'a [u8] {
        self.rest
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], CacheError> {
        if n > self.rest.len() {
            return Err(CacheError::Malformed("ends early"));
        }
        let (head, tail) = self.rest.split_at(n);
        self.rest = tail;
        Ok(head)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], CacheError> {
        let mut a = [0; N];
        a.copy_from_slice(self.take(N)?);
        Ok(a)
    }

    fn u8(&mut self) -> Result<u8, CacheError> {
        Ok(self.array::<1>()?[0])
    }

    fn u32(&mut self) -> Result<u32, CacheError> {
        self.array().map(u32::from_le_bytes)
    }

    fn u64(&mut self) -> Result<u64, CacheError> {
        self.array().map(u64::from_le_bytes)
    }

    fn u128(&mut self) -> Result<u128, CacheError> {
        self.array().map(u128::from_le_bytes)
    }

    fn string(&mut self) -> Result<String, CacheError> {
        let n = self.u32()? as usize;
        let bytes = self.take(n)?;
        String::from_utf8(bytes.to_vec()).map_err(|_| CacheError::Malformed("string not UTF-8"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reason_codes_round_trip_and_are_stable() {
        for (code, &r) in REASONS.iter().enumerate() {
            assert_eq!(usize::from(reason_code(r)), code, "{r:?}");
            assert_eq!(reason_from(code as u8), Some(r));
        }
        assert_eq!(reason_from(REASONS.len() as u8), None);
        // Codes stored on disk by format 1 must never move.
        assert_eq!(reason_code(Reason::NoSites), 4);
        assert_eq!(reason_code(Reason::VerifierRejection), 3);
        assert_eq!(reason_code(Reason::Unsupported), 1);
    }
}
