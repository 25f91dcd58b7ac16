//! The fatbinary container: a 16-byte header, then entries, each a header followed by
//! its (possibly compressed) payload. Field offsets were checked against files written by
//! CUDA 13.0's `fatbinary` and `nvcc -fatbin` (see the tests).
//!
//! ```text
//! header  0 u32 magic 0xBA55ED50 | 4 u16 version | 6 u16 header size | 8 u64 bytes after header
//! entry   0 u16 kind (1 PTX, 2 ELF) | 4 u32 entry header size | 8 u64 payload bytes (padded)
//!         0x10 u32 compressed size (0: stored) | 0x1c u32 arch (e.g. 90)
//!         0x28 u64 flags (0x2000 LZ4 / 0x8000 zstd compressed) | 0x38 u64 uncompressed size
//! ```

/// Magic of a fatbinary header.
pub const FATBIN_MAGIC: u32 = 0xBA55_ED50;
/// Magic of the `__fatBinC_Wrapper_t` that host code registers (`{magic, version, data, …}`).
pub const WRAPPER_MAGIC: u32 = 0x4662_43b1;

const FLAG_COMPRESSED_LZ4: u64 = 0x2000;
const FLAG_COMPRESSED_ZSTD: u64 = 0x8000;

/// What an entry holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    /// PTX text.
    Ptx,
    /// An ELF cubin.
    Elf,
    /// Anything else.
    Other(u16),
}

/// One entry of a fatbinary.
#[derive(Debug, Clone)]
pub struct Entry<'a> {
    /// Its kind.
    pub kind: EntryKind,
    /// Target architecture, `major * 10 + minor`.
    pub arch: u32,
    /// Whether the payload is compressed.
    pub compressed: bool,
    /// The payload: stored bytes (PTX without its trailing NUL padding) or the compressed stream.
    pub payload: &'a [u8],
}

/// Whether `image` starts with a fatbinary header.
pub fn is_fatbin(image: &[u8]) -> bool {
    image.len() >= 16 && u32_at(image, 0) == Some(FATBIN_MAGIC)
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

/// Every entry of every fatbinary container laid end to end in `image`.
pub fn entries(image: &[u8]) -> Result<Vec<Entry<'_>>, String> {
    let mut out = Vec::new();
    let mut rest = image;
    while is_fatbin(rest) {
        let header_size = usize::from(u16::from_le_bytes([rest[6], rest[7]]));
        let body = u64_at(rest, 8).ok_or("truncated fatbinary header")? as usize;
        let end = header_size
            .checked_add(body)
            .filter(|&e| e <= rest.len())
            .ok_or("fatbinary larger than its image")?;
        let mut at = header_size;
        while at + 64 <= end {
            let e = &rest[at..end];
            let kind = match u16::from_le_bytes([e[0], e[1]]) {
                1 => EntryKind::Ptx,
                2 => EntryKind::Elf,
                k => EntryKind::Other(k),
            };
            let hsize = u32_at(e, 4).ok_or("truncated entry")? as usize;
            let padded = u64_at(e, 8).ok_or("truncated entry")? as usize;
            let compressed_size = u32_at(e, 0x10).ok_or("truncated entry")? as usize;
            let arch = u32_at(e, 0x1c).ok_or("truncated entry")?;
            let flags = u64_at(e, 0x28).ok_or("truncated entry")?;
            if hsize < 64 {
                return Err(format!("entry header of {hsize} bytes"));
            }
            let payload = hsize
                .checked_add(padded)
                .and_then(|stop| e.get(hsize..stop))
                .ok_or("entry payload past the container")?;
            let compressed =
                compressed_size != 0 || flags & (FLAG_COMPRESSED_LZ4 | FLAG_COMPRESSED_ZSTD) != 0;
            let payload = if compressed {
                &payload[..compressed_size.min(payload.len())]
            } else if kind == EntryKind::Ptx {
                let n = payload.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
                &payload[..n]
            } else {
                payload
            };
            out.push(Entry {
                kind,
                arch,
                compressed,
                payload,
            });
            at += hsize + padded;
        }
        rest = &rest[end..];
    }
    Ok(out)
}
