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
//!
//! A compressed payload is a raw LZ4 block or a zstd frame of `uncompressed size` bytes
//! (checked against `fatbinary --compress-all --compress-mode=speed|default` output).
//!
//! ```text
//! ```

/// Magic of a fatbinary header.
pub const FATBIN_MAGIC: u32 = 0xBA55_ED50;
/// Magic of the `__fatBinC_Wrapper_t` that host code registers (`{magic, version, data, …}`).
pub const WRAPPER_MAGIC: u32 = 0x4662_43b1;

const FLAG_COMPRESSED_LZ4: u64 = 0x2000;
const FLAG_COMPRESSED_ZSTD: u64 = 0x8000;

/// Decompressed entries larger than this are refused (a corrupt size must not make us
/// allocate without bound).
const MAX_UNCOMPRESSED: u64 = 1 << 30;

/// How an entry's payload is compressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// A raw LZ4 block (`fatbinary --compress-mode=speed`; older toolkits' default).
    Lz4,
    /// A zstd frame (CUDA 13's default).
    Zstd,
}

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
    /// How the payload is compressed, if it is.
    pub compression: Option<Compression>,
    /// Size of the payload once decompressed (meaningful when compressed).
    pub uncompressed_size: u64,
    /// The payload: stored bytes (PTX without its trailing NUL padding) or the compressed stream.
    pub payload: &'a [u8],
}

impl Entry<'_> {
    /// The entry's contents, decompressed if needed (PTX without its trailing NULs).
    pub fn contents(&self) -> Result<std::borrow::Cow<'_, [u8]>, String> {
        let Some(compression) = self.compression else {
            return Ok(std::borrow::Cow::Borrowed(self.payload));
        };
        if self.uncompressed_size > MAX_UNCOMPRESSED {
            return Err(format!(
                "compressed entry claims {} bytes",
                self.uncompressed_size
            ));
        }
        let size = self.uncompressed_size as usize;
        let mut data = match compression {
            Compression::Lz4 => lz4_flex::block::decompress(self.payload, size)
                .map_err(|e| format!("corrupt LZ4 entry: {e}"))?,
            Compression::Zstd => zstd::bulk::decompress(self.payload, size)
                .map_err(|e| format!("corrupt zstd entry: {e}"))?,
        };
        if self.kind == EntryKind::Ptx {
            let n = data.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
            data.truncate(n);
        }
        Ok(std::borrow::Cow::Owned(data))
    }
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
            let uncompressed_size = u64_at(e, 0x38).ok_or("truncated entry")?;
            let compression = if flags & FLAG_COMPRESSED_ZSTD != 0 {
                Some(Compression::Zstd)
            } else if flags & FLAG_COMPRESSED_LZ4 != 0 {
                Some(Compression::Lz4)
            } else if compressed_size != 0 {
                return Err(format!("entry compressed with unknown flags {flags:#x}"));
            } else {
                None
            };
            let payload = if compression.is_some() {
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
                compression,
                uncompressed_size,
                payload,
            });
            at += hsize + padded;
        }
        rest = &rest[end..];
    }
    Ok(out)
}
