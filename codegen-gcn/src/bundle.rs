//! Code objects out of clang offload bundles and HIP fatbinaries.
//!
//! A HIP host object carries its device code in `.hip_fatbin`: a clang offload bundle,
//! and `__hipRegisterFatBinary` receives a pointer to the 24-byte wrapper in
//! `.hipFatBinSegment` that points at it. The formats, as clang 15–19 write them:
//!
//! ```text
//! wrapper   u32 magic 0x48495046 ("HIPF") | u32 version (1) | u64 bundle address | u64 0
//! bundle    "__CLANG_OFFLOAD_BUNDLE__" | u64 entry count | entries:
//!           u64 offset | u64 size | u64 id length | id (e.g. hipv4-amdgcn-amd-amdhsa--gfx90a)
//!           offsets count from the bundle's start; the host entry is empty
//! CCOB      "CCOB" | u16 version | u16 method (1 zstd, 0 zlib) | sizes | u64 hash | payload
//!           v1: u32 uncompressed size; v2 (clang 19): u32 total size, u32 uncompressed
//!           size; v3: u64 total, u64 uncompressed. The payload is a whole bundle.
//! ```
//!
//! An entry's id ends with a target id, `gfx90a` or `gfx90a:sramecc+:xnack-`: a feature
//! left out means "any" (the code object runs with the feature on or off). [`select`]
//! picks the entry the HIP runtime would load on a device, and [`code_object_info`]
//! reads a code object's own target from its ELF header (`e_flags`) and its kernels
//! from the `.kd` symbols of the kernel descriptors.

use object::read::elf::{ElfFile64, FileHeader};
use object::{LittleEndian, Object, ObjectSection, ObjectSymbol};
use std::fmt;

/// The magic of an uncompressed offload bundle.
pub const BUNDLE_MAGIC: &[u8; 24] = b"__CLANG_OFFLOAD_BUNDLE__";
/// The magic of a compressed offload bundle (`--offload-compress`).
pub const COMPRESSED_MAGIC: &[u8; 4] = b"CCOB";
/// The magic of `__hipRegisterFatBinary`'s wrapper (`"HIPF"` read as a little-endian u32).
pub const HIP_FATBIN_MAGIC: u32 = 0x4849_5046;
/// The size of the HIP fatbinary wrapper.
pub const HIP_FATBIN_WRAPPER_SIZE: usize = 24;

/// Errors reading bundles, wrappers and code objects.
#[derive(Debug, thiserror::Error)]
pub enum BundleError {
    /// Neither magic at the start.
    #[error("not an offload bundle (no `__CLANG_OFFLOAD_BUNDLE__` or `CCOB` magic)")]
    NotABundle,
    /// The bytes end before a structure does.
    #[error("truncated {what}: {need} bytes needed, {have} present")]
    Truncated {
        /// What was being read.
        what: &'static str,
        /// Bytes needed.
        need: u64,
        /// Bytes present.
        have: u64,
    },
    /// An entry's range lies outside the bundle.
    #[error("entry `{id}` ({offset:#x}+{size:#x}) lies outside the {len}-byte bundle")]
    EntryOutOfBounds {
        /// The entry's id.
        id: String,
        /// Its offset.
        offset: u64,
        /// Its size.
        size: u64,
        /// The bundle's length.
        len: u64,
    },
    /// A compressed bundle of a version this reader does not know.
    #[error("compressed bundle version {0} is not supported (1, 2 and 3 are)")]
    CompressedVersion(u16),
    /// A compression method other than zstd.
    #[error("compression method {0} is not supported (zstd, 1, is; 0 is zlib)")]
    CompressionMethod(u16),
    /// The compressed payload does not decompress.
    #[error("corrupt compressed bundle")]
    Decompress(#[source] std::io::Error),
    /// The decompressed payload has the wrong size.
    #[error("decompressed {got} bytes, the header says {expected}")]
    DecompressedSize {
        /// From the header.
        expected: u64,
        /// Actually decompressed.
        got: u64,
    },
    /// The wrapper's magic is wrong.
    #[error("not a HIP fatbinary wrapper (magic {0:#010x})")]
    NotAWrapper(u32),
    /// A target id that does not parse.
    #[error("invalid target id `{0}`")]
    TargetId(String),
    /// Not an AMDGPU HSA code object.
    #[error("not an AMDGPU code object: {0}")]
    NotACodeObject(String),
    /// The ELF reader failed.
    #[error("malformed code object")]
    Elf(#[source] object::Error),
}

/// A target feature's setting in a target id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Feature {
    /// Not specified (or not supported by the processor): either setting.
    Any,
    /// `feature+`.
    On,
    /// `feature-`.
    Off,
}

/// A target id: processor plus the `sramecc` and `xnack` settings
/// (`gfx90a:sramecc+:xnack-`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TargetId {
    /// `gfx90a`, `gfx942`, …
    pub processor: String,
    /// `sramecc`.
    pub sramecc: Feature,
    /// `xnack`.
    pub xnack: Feature,
}

impl TargetId {
    /// Parses `gfx90a`, `gfx90a:xnack-`, `gfx90a:sramecc+:xnack-` (also with an
    /// `amdgcn-amd-amdhsa--` prefix). Unknown features are an error.
    pub fn parse(text: &str) -> Result<TargetId, BundleError> {
        let bad = || BundleError::TargetId(text.to_owned());
        let text_id = text.rsplit("--").next().unwrap_or(text);
        let mut parts = text_id.split(':');
        let processor = parts
            .next()
            .filter(|p| p.starts_with("gfx"))
            .ok_or_else(bad)?;
        let mut id = TargetId {
            processor: processor.to_owned(),
            sramecc: Feature::Any,
            xnack: Feature::Any,
        };
        for part in parts {
            let (name, setting) = match part.as_bytes().last() {
                Some(b'+') => (&part[..part.len() - 1], Feature::On),
                Some(b'-') => (&part[..part.len() - 1], Feature::Off),
                _ => return Err(bad()),
            };
            match name {
                "sramecc" => id.sramecc = setting,
                "xnack" => id.xnack = setting,
                _ => return Err(bad()),
            }
        }
        Ok(id)
    }

    /// The target id of an assembly file's `.amdgcn_target "amdgcn-amd-amdhsa--gfx90a…"`
    /// directive, if it has one.
    pub fn of_assembly(text: &str) -> Option<TargetId> {
        let line = text
            .lines()
            .map(str::trim_start)
            .find(|l| l.starts_with(".amdgcn_target"))?;
        let quoted = line.split('"').nth(1)?;
        TargetId::parse(quoted).ok()
    }

    /// Whether a code object built for `self` runs on a device of target `device`: same
    /// processor, and every feature `self` fixes is set the same way on the device (a
    /// device feature reported as "any" accepts either).
    pub fn runs_on(&self, device: &TargetId) -> bool {
        let ok = |code: Feature, dev: Feature| {
            code == Feature::Any || dev == Feature::Any || code == dev
        };
        self.processor == device.processor
            && ok(self.sramecc, device.sramecc)
            && ok(self.xnack, device.xnack)
    }

    /// The `-mattr=` value that makes `llvm-mc` accept this target id's
    /// `.amdgcn_target` directive (`+sramecc,-xnack`); empty when nothing is fixed.
    pub fn mattr(&self) -> String {
        let mut out = Vec::new();
        for (name, f) in [("sramecc", self.sramecc), ("xnack", self.xnack)] {
            match f {
                Feature::On => out.push(format!("+{name}")),
                Feature::Off => out.push(format!("-{name}")),
                Feature::Any => {}
            }
        }
        out.join(",")
    }

    /// How many features are fixed (more specific entries are preferred).
    fn fixed(&self) -> usize {
        [self.sramecc, self.xnack]
            .iter()
            .filter(|f| **f != Feature::Any)
            .count()
    }
}

impl fmt::Display for TargetId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.processor)?;
        for (name, s) in [("sramecc", self.sramecc), ("xnack", self.xnack)] {
            match s {
                Feature::On => write!(f, ":{name}+")?,
                Feature::Off => write!(f, ":{name}-")?,
                Feature::Any => {}
            }
        }
        Ok(())
    }
}

/// One entry of a bundle.
#[derive(Debug, Clone)]
pub struct BundleEntry {
    /// The whole id, `hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-`.
    pub id: String,
    /// The offload kind: `hipv4`, `hip`, `host`, `openmp`.
    pub kind: String,
    /// The triple: `amdgcn-amd-amdhsa`, `x86_64-unknown-linux-gnu`.
    pub triple: String,
    /// The target id, for AMDGPU entries.
    pub target: Option<TargetId>,
    /// The entry's bytes (an ELF code object for AMDGPU entries).
    pub data: Vec<u8>,
}

/// A parsed (and, if it was compressed, decompressed) offload bundle.
#[derive(Debug, Clone)]
pub struct OffloadBundle {
    /// Entries in table order.
    pub entries: Vec<BundleEntry>,
    /// Whether it came as a `CCOB` compressed bundle.
    pub compressed: bool,
}

impl OffloadBundle {
    /// The non-empty AMDGPU code objects.
    pub fn code_objects(&self) -> impl Iterator<Item = &BundleEntry> {
        self.entries
            .iter()
            .filter(|e| e.target.is_some() && !e.data.is_empty())
    }
}

/// How many bytes a bundle (or compressed bundle) at the start of memory spans, read from
/// as short a prefix as possible: for reading a bundle through a bare pointer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BundleExtent {
    /// Call again with a prefix of at least this many bytes.
    NeedPrefix(usize),
    /// The whole bundle is this many bytes.
    Bytes(usize),
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?))
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

fn size(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

/// The extent of the bundle starting at `prefix[0]` (see [`BundleExtent`]). A v1
/// compressed bundle does not record its compressed size: that is an error here.
pub fn bundle_extent(prefix: &[u8]) -> Result<BundleExtent, BundleError> {
    if prefix.len() < 4 {
        return Ok(BundleExtent::NeedPrefix(32));
    }
    if prefix.starts_with(COMPRESSED_MAGIC) {
        let Some(version) = u16_at(prefix, 4) else {
            return Ok(BundleExtent::NeedPrefix(32));
        };
        let total = match version {
            2 => u32_at(prefix, 8).map(u64::from),
            3 => u64_at(prefix, 8),
            v => return Err(BundleError::CompressedVersion(v)),
        };
        return Ok(match total {
            Some(t) => BundleExtent::Bytes(size(t)),
            None => BundleExtent::NeedPrefix(32),
        });
    }
    if prefix.len() < BUNDLE_MAGIC.len() {
        return Ok(BundleExtent::NeedPrefix(32));
    }
    if !prefix.starts_with(BUNDLE_MAGIC) {
        return Err(BundleError::NotABundle);
    }
    let Some(count) = u64_at(prefix, 24) else {
        return Ok(BundleExtent::NeedPrefix(32));
    };
    let mut at = 32usize;
    let mut end = 0u64;
    for _ in 0..count {
        let (Some(offset), Some(len), Some(id_len)) = (
            u64_at(prefix, at),
            u64_at(prefix, at + 8),
            u64_at(prefix, at + 16),
        ) else {
            return Ok(BundleExtent::NeedPrefix(at + 24));
        };
        at = at.saturating_add(24).saturating_add(size(id_len));
        end = end.max(offset.saturating_add(len));
    }
    if prefix.len() < at {
        return Ok(BundleExtent::NeedPrefix(at));
    }
    Ok(BundleExtent::Bytes(size(end).max(at)))
}

/// Parses a bundle, decompressing a `CCOB` one first.
pub fn parse_bundle(bytes: &[u8]) -> Result<OffloadBundle, BundleError> {
    if bytes.starts_with(COMPRESSED_MAGIC) {
        let inner = decompress(bytes)?;
        let mut bundle = parse_uncompressed(&inner)?;
        bundle.compressed = true;
        return Ok(bundle);
    }
    parse_uncompressed(bytes)
}

fn decompress(bytes: &[u8]) -> Result<Vec<u8>, BundleError> {
    let truncated = |need: usize| BundleError::Truncated {
        what: "compressed bundle header",
        need: need as u64,
        have: bytes.len() as u64,
    };
    let version = u16_at(bytes, 4).ok_or_else(|| truncated(8))?;
    let method = u16_at(bytes, 6).ok_or_else(|| truncated(8))?;
    // (header length, total size if recorded, uncompressed size)
    let (header, total, raw) = match version {
        1 => (20, None, u32_at(bytes, 8).map(u64::from)),
        2 => (
            24,
            u32_at(bytes, 8).map(u64::from),
            u32_at(bytes, 12).map(u64::from),
        ),
        3 => (32, u64_at(bytes, 8), u64_at(bytes, 16)),
        v => return Err(BundleError::CompressedVersion(v)),
    };
    let raw = raw.ok_or_else(|| truncated(header))?;
    if bytes.len() < header {
        return Err(truncated(header));
    }
    let end = match total {
        Some(t) if size(t) > bytes.len() => return Err(truncated(size(t))),
        Some(t) => size(t).max(header),
        None => bytes.len(),
    };
    if method != 1 {
        return Err(BundleError::CompressionMethod(method));
    }
    let out =
        zstd::bulk::decompress(&bytes[header..end], size(raw)).map_err(BundleError::Decompress)?;
    if out.len() as u64 != raw {
        return Err(BundleError::DecompressedSize {
            expected: raw,
            got: out.len() as u64,
        });
    }
    Ok(out)
}

fn parse_uncompressed(bytes: &[u8]) -> Result<OffloadBundle, BundleError> {
    if !bytes.starts_with(BUNDLE_MAGIC) {
        return Err(BundleError::NotABundle);
    }
    let truncated = |need: usize| BundleError::Truncated {
        what: "bundle entry table",
        need: need as u64,
        have: bytes.len() as u64,
    };
    let count = u64_at(bytes, 24).ok_or_else(|| truncated(32))?;
    let mut at = 32usize;
    let mut entries = Vec::new();
    for _ in 0..count {
        let (Some(offset), Some(len), Some(id_len)) = (
            u64_at(bytes, at),
            u64_at(bytes, at + 8),
            u64_at(bytes, at + 16),
        ) else {
            return Err(truncated(at + 24));
        };
        let id_start = at + 24;
        let id_end = id_start.saturating_add(size(id_len));
        let id = bytes
            .get(id_start..id_end)
            .ok_or_else(|| truncated(id_end))?;
        let id = String::from_utf8_lossy(id).into_owned();
        at = id_end;
        let data = size(offset)
            .checked_add(size(len))
            .and_then(|end| bytes.get(size(offset)..end))
            .ok_or_else(|| BundleError::EntryOutOfBounds {
                id: id.clone(),
                offset,
                size: len,
                len: bytes.len() as u64,
            })?;
        entries.push(entry(id, data.to_vec())?);
    }
    Ok(OffloadBundle {
        entries,
        compressed: false,
    })
}

/// Splits an id `kind-triple--target` (the triple has four fields, the last possibly
/// empty: `host-x86_64-unknown-linux--`, `hipv4-amdgcn-amd-amdhsa--gfx90a`).
fn entry(id: String, data: Vec<u8>) -> Result<BundleEntry, BundleError> {
    let (kind, rest) = id.split_once('-').unwrap_or((id.as_str(), ""));
    let (triple, target) = match rest.split_once("--") {
        Some((t, target)) => (t.to_owned(), target),
        None => (rest.to_owned(), ""),
    };
    let target = if triple.starts_with("amdgcn") && !target.is_empty() {
        Some(TargetId::parse(target)?)
    } else {
        None
    };
    Ok(BundleEntry {
        kind: kind.to_owned(),
        triple,
        target,
        data,
        id,
    })
}

/// The code object the HIP runtime would load on `device`: among the entries whose
/// target runs on it, the one that fixes the most features.
pub fn select<'a>(bundle: &'a OffloadBundle, device: &TargetId) -> Option<&'a BundleEntry> {
    bundle
        .code_objects()
        .filter(|e| e.target.as_ref().is_some_and(|t| t.runs_on(device)))
        .max_by_key(|e| e.target.as_ref().map_or(0, TargetId::fixed))
}

/// `__hipRegisterFatBinary`'s argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HipFatbinWrapper {
    /// The wrapper's version (1).
    pub version: u32,
    /// The address of the offload bundle.
    pub bundle: u64,
}

/// Reads the 24-byte wrapper.
pub fn parse_fatbin_wrapper(bytes: &[u8]) -> Result<HipFatbinWrapper, BundleError> {
    let truncated = BundleError::Truncated {
        what: "HIP fatbinary wrapper",
        need: HIP_FATBIN_WRAPPER_SIZE as u64,
        have: bytes.len() as u64,
    };
    let (Some(magic), Some(version), Some(bundle)) =
        (u32_at(bytes, 0), u32_at(bytes, 4), u64_at(bytes, 8))
    else {
        return Err(truncated);
    };
    if magic != HIP_FATBIN_MAGIC {
        return Err(BundleError::NotAWrapper(magic));
    }
    Ok(HipFatbinWrapper { version, bundle })
}

/// What a code object's ELF says about itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeObjectInfo {
    /// The target from `e_flags` (processor, `sramecc`/`xnack` settings).
    pub target: TargetId,
    /// The code object version (4, 5, 6) from `EI_ABIVERSION`.
    pub version: u8,
    /// The kernels: symbols `NAME.kd` of the kernel descriptors, without `.kd`, sorted.
    pub kernels: Vec<String>,
}

const EM_AMDGPU: u16 = 224;
const ELFOSABI_AMDGPU_HSA: u8 = 64;

/// `EF_AMDGPU_MACH_*` values and processor names (LLVM's `ELF.h`).
#[rustfmt::skip] // a table
const MACHS: &[(u32, &str)] = &[
    (0x020, "gfx600"), (0x021, "gfx601"), (0x022, "gfx700"), (0x023, "gfx701"),
    (0x024, "gfx702"), (0x025, "gfx703"), (0x026, "gfx704"), (0x028, "gfx801"),
    (0x029, "gfx802"), (0x02a, "gfx803"), (0x02b, "gfx810"), (0x02c, "gfx900"),
    (0x02d, "gfx902"), (0x02e, "gfx904"), (0x02f, "gfx906"), (0x030, "gfx908"),
    (0x031, "gfx909"), (0x032, "gfx90c"), (0x033, "gfx1010"), (0x034, "gfx1011"),
    (0x035, "gfx1012"), (0x036, "gfx1030"), (0x037, "gfx1031"), (0x038, "gfx1032"),
    (0x039, "gfx1033"), (0x03a, "gfx602"), (0x03b, "gfx705"), (0x03c, "gfx805"),
    (0x03d, "gfx1035"), (0x03e, "gfx1034"), (0x03f, "gfx90a"), (0x040, "gfx940"),
    (0x041, "gfx1100"), (0x042, "gfx1013"), (0x043, "gfx1150"), (0x044, "gfx1103"),
    (0x045, "gfx1036"), (0x046, "gfx1101"), (0x047, "gfx1102"), (0x048, "gfx1200"),
    (0x04a, "gfx1151"), (0x04b, "gfx941"), (0x04c, "gfx942"), (0x04e, "gfx1201"),
    (0x04f, "gfx950"),
];

fn feature(flags: u32, shift: u32) -> Feature {
    match (flags >> shift) & 3 {
        2 => Feature::Off,
        3 => Feature::On,
        _ => Feature::Any, // unsupported (0) or any (1)
    }
}

/// Reads a code object's target, version and kernels.
pub fn code_object_info(elf: &[u8]) -> Result<CodeObjectInfo, BundleError> {
    let file = ElfFile64::<LittleEndian>::parse(elf).map_err(BundleError::Elf)?;
    let header = file.elf_header();
    let endian = LittleEndian;
    let ident = header.e_ident();
    let (machine, os_abi) = (header.e_machine(endian).0, ident.os_abi.0);
    if machine != EM_AMDGPU || os_abi != ELFOSABI_AMDGPU_HSA {
        return Err(BundleError::NotACodeObject(format!(
            "e_machine {machine}, OS/ABI {os_abi}"
        )));
    }
    let flags = header.e_flags(endian).0;
    let mach = flags & 0xff;
    let processor = MACHS
        .iter()
        .find(|(m, _)| *m == mach)
        .map(|(_, p)| (*p).to_owned())
        .ok_or_else(|| BundleError::NotACodeObject(format!("unknown EF_AMDGPU_MACH {mach:#x}")))?;
    let mut kernels: Vec<String> = file
        .symbols()
        .chain(file.dynamic_symbols())
        .filter_map(|s| s.name().ok()?.strip_suffix(".kd").map(str::to_owned))
        .collect();
    kernels.sort();
    kernels.dedup();
    Ok(CodeObjectInfo {
        target: TargetId {
            processor,
            xnack: feature(flags, 8),
            sramecc: feature(flags, 10),
        },
        version: ident.abi_version.saturating_add(2),
        kernels,
    })
}

/// The `.text` section of a code object: two code objects with the same `.text` run the
/// same machine code (used to check that an assembly file is the source of a code object).
pub fn code_object_text(elf: &[u8]) -> Result<&[u8], BundleError> {
    let file = ElfFile64::<LittleEndian>::parse(elf).map_err(BundleError::Elf)?;
    let text = file
        .section_by_name(".text")
        .ok_or_else(|| BundleError::NotACodeObject("no .text section".into()))?;
    // The section's bytes borrow `elf`, not the parsed file.
    let range = text
        .file_range()
        .ok_or_else(|| BundleError::NotACodeObject(".text has no file bytes".into()))?;
    let (start, len) = (size(range.0), size(range.1));
    start
        .checked_add(len)
        .and_then(|end| elf.get(start..end))
        .ok_or_else(|| BundleError::NotACodeObject(".text lies outside the file".into()))
}

#[cfg(test)]
mod tests;
