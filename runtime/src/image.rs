//! Finding the PTX of a loaded image: PTX text, an ELF cubin's `.nv_debug_ptx_txt`
//! section, or a fatbinary's PTX entry; giving a cubin's PTX its source lines back from
//! Triton's cache; and finding where an image handed to the driver as a bare pointer ends.

use crate::fatbin::{self, EntryKind};
use object::{Object, ObjectSection};
use std::ffi::CStr;
use std::path::{Path, PathBuf};

/// ELF magic.
const ELF_MAGIC: &[u8; 4] = b"\x7fELF";

/// Why no PTX came out of an image.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImageError {
    /// The image carries no PTX this device can use.
    #[error("no PTX in image ({0})")]
    NoPtx(String),
}

/// The PTX of `image` for a device of compute capability `cc` (`major * 10 + minor`;
/// `None`: unknown, take the highest).
pub fn find_ptx(image: &[u8], cc: Option<u32>) -> Result<String, ImageError> {
    if image.starts_with(ELF_MAGIC) {
        return elf_debug_ptx(image)?
            .ok_or_else(|| ImageError::NoPtx("ELF without .nv_debug_ptx_txt".into()));
    }
    if fatbin::is_fatbin(image) {
        return fatbin_ptx(image, cc);
    }
    let text = match image.iter().position(|&b| b == 0) {
        Some(n) => &image[..n],
        None => image,
    };
    match std::str::from_utf8(text) {
        Ok(t) if looks_like_ptx(t) => Ok(t.to_string()),
        _ => Err(ImageError::NoPtx("unrecognized image".into())),
    }
}

fn looks_like_ptx(text: &str) -> bool {
    text.contains(".version") && text.contains(".target")
}

/// The PTX stored in a cubin's `.nv_debug_ptx_txt` section (written by `ptxas -lineinfo`
/// and by Triton): the PTX's lines, comments stripped, each ended by a NUL instead of a
/// newline. `Ok(None)` when the section is absent.
pub fn elf_debug_ptx(image: &[u8]) -> Result<Option<String>, ImageError> {
    let file = object::File::parse(image)
        .map_err(|e| ImageError::NoPtx(format!("unreadable ELF: {e}")))?;
    let Some(section) = file.section_by_name(".nv_debug_ptx_txt") else {
        return Ok(None);
    };
    let data = section
        .data()
        .map_err(|e| ImageError::NoPtx(format!("unreadable .nv_debug_ptx_txt: {e}")))?;
    let text: String = String::from_utf8_lossy(data).replace('\0', "\n");
    let text = text.trim_matches('\n');
    if !looks_like_ptx(text) {
        return Ok(None);
    }
    Ok(Some(format!("{text}\n")))
}

/// Names of the `.entry` kernels of a PTX module.
pub(crate) fn entries(ptx: &str) -> impl Iterator<Item = &str> {
    ptx.split(".entry").skip(1).filter_map(|rest| {
        let name = rest
            .trim_start()
            .split(|c: char| c == '(' || c.is_whitespace())
            .next()?;
        (!name.is_empty()).then_some(name)
    })
}

/// Triton's cache directory: `$TRITON_CACHE_DIR`, else `$TRITON_HOME/.triton/cache`, else
/// `$HOME/.triton/cache`.
pub(crate) fn triton_cache_dir() -> Option<PathBuf> {
    std::env::var_os("TRITON_CACHE_DIR")
        .map(PathBuf::from)
        .or_else(|| {
            let home = std::env::var_os("TRITON_HOME").or_else(|| std::env::var_os("HOME"))?;
            Some(Path::new(&home).join(".triton").join("cache"))
        })
}

/// The files of `dir`, sorted; none if it cannot be read.
pub(crate) fn dir_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries.filter_map(|e| Some(e.ok()?.path())).collect();
    out.sort();
    out
}

/// `ptx` — the `.nv_debug_ptx_txt` of the ELF cubin `image` — with its source lines. ptxas
/// keeps the PTX there without comments, `.loc` and `.file`, so `line:`, `region:`, `file`
/// and `line` would see none; Triton (3.x) keeps the PTX it assembled next to the cubin in
/// its cache (`HASH/NAME.ptx`, `HASH/NAME.cubin`, NAME the kernel). The `.ptx` next to a
/// `NAME.cubin` (NAME a kernel of `ptx`) holding `image`'s very bytes in `cache` is
/// returned, with its path, if it is the same code as `ptx` ([`same_code`]): what gets instrumented is then what the program loaded. `None`
/// when `ptx` already has lines or no such file is found.
pub(crate) fn with_source_lines(
    image: &[u8],
    ptx: &str,
    cache: &Path,
) -> Option<(String, PathBuf)> {
    if !image.starts_with(ELF_MAGIC) || ptx.lines().any(|l| l.trim_start().starts_with(".loc")) {
        return None;
    }
    // An image the driver got as a bare pointer is as long as its headers say (`image_at`),
    // which may stop short of the file's last padding bytes: the file must start with it.
    let fits = |len: u64| len >= image.len() as u64 && len < image.len() as u64 + 64;
    // Triton names a kernel's files after it: one `stat` per cache entry and kernel, not a
    // listing of every entry (module loads happen at start-up, caches grow large).
    for dir in dir_files(cache) {
        for name in entries(ptx) {
            let cubin = dir.join(format!("{name}.cubin"));
            let candidate = std::fs::metadata(&cubin).is_ok_and(|m| m.is_file() && fits(m.len()));
            let source = cubin.with_extension("ptx");
            if !candidate || !std::fs::read(&cubin).is_ok_and(|b| b.starts_with(image)) {
                continue;
            }
            if let Ok(text) = std::fs::read_to_string(&source) {
                if same_code(&text, ptx) {
                    return Some((text, source));
                }
            }
        }
    }
    None
}

/// Whether two PTX texts are the same code: equal line by line up to the DWARF sections
/// (`.section .debug_*`, which ptxas empties or drops), once comments, blank lines, `.loc`
/// and `.file` are dropped and each line is trimmed — what ptxas leaves out when it keeps
/// a module's PTX in `.nv_debug_ptx_txt`.
pub(crate) fn same_code(a: &str, b: &str) -> bool {
    fn code(text: &str) -> impl Iterator<Item = &str> {
        text.lines()
            .map(|l| l.split_once("//").map_or(l, |(code, _)| code).trim())
            .take_while(|l| {
                !l.strip_prefix(".section")
                    .is_some_and(|rest| rest.trim_start().starts_with(".debug"))
            })
            .filter(|l| !l.is_empty() && !l.starts_with(".loc") && !l.starts_with(".file"))
    }
    code(a).eq(code(b))
}

/// The best PTX of a fatbinary: the PTX entry of the highest arch `<= cc`; failing that,
/// the `.nv_debug_ptx_txt` of the best uncompressed ELF entry.
fn fatbin_ptx(image: &[u8], cc: Option<u32>) -> Result<String, ImageError> {
    let entries = fatbin::entries(image).map_err(ImageError::NoPtx)?;
    let usable = |arch: u32| cc.is_none_or(|cc| arch <= cc);
    let best = |kind: EntryKind| {
        entries
            .iter()
            .filter(|e| e.kind == kind && usable(e.arch))
            .max_by_key(|e| e.arch)
    };
    if let Some(e) = best(EntryKind::Ptx) {
        let bytes = e.contents().map_err(ImageError::NoPtx)?;
        let text = std::str::from_utf8(&bytes)
            .map_err(|_| ImageError::NoPtx("PTX entry is not UTF-8".into()))?;
        return Ok(text.trim_start_matches('\n').to_string());
    }
    let mut elves: Vec<_> = entries
        .iter()
        .filter(|e| e.kind == EntryKind::Elf && usable(e.arch))
        .collect();
    elves.sort_by_key(|e| std::cmp::Reverse(e.arch));
    for e in elves {
        if let Ok(Some(ptx)) = e.contents().map_or(Ok(None), |elf| elf_debug_ptx(&elf)) {
            return Ok(ptx);
        }
    }
    let what = match cc {
        Some(cc) => format!("fatbinary without a usable PTX entry for sm_{cc}"),
        None => "fatbinary without a PTX entry".into(),
    };
    Err(ImageError::NoPtx(what))
}

fn read_u16(p: *const u8, at: usize) -> usize {
    // SAFETY: callers only read within a header they have identified by its magic.
    usize::from(u16::from_le_bytes(unsafe {
        p.add(at).cast::<[u8; 2]>().read_unaligned()
    }))
}

fn read_u32(p: *const u8, at: usize) -> u32 {
    // SAFETY: as in read_u16.
    u32::from_le_bytes(unsafe { p.add(at).cast::<[u8; 4]>().read_unaligned() })
}

fn read_u64(p: *const u8, at: usize) -> u64 {
    // SAFETY: as in read_u16.
    u64::from_le_bytes(unsafe { p.add(at).cast::<[u8; 8]>().read_unaligned() })
}

/// Images larger than this are not believed (a corrupt header must not make us read far).
const MAX_IMAGE: u64 = 1 << 32;

/// The bytes of an image that the driver received as a bare pointer: an ELF (extent from
/// its headers), a fatbinary (header size), a `__fatBinC_Wrapper_t` (followed to its
/// fatbinary) or NUL-terminated PTX text.
///
/// # Safety
/// `ptr` must point to an image the CUDA driver would accept, readable for its extent.
pub unsafe fn image_at<'a>(ptr: *const u8) -> Option<&'a [u8]> {
    if ptr.is_null() {
        return None;
    }
    let magic = read_u32(ptr, 0);
    let len = if magic == u32::from_le_bytes(*ELF_MAGIC) {
        elf_extent(ptr)?
    } else if magic == fatbin::FATBIN_MAGIC {
        16 + read_u64(ptr, 8)
    } else if magic == fatbin::WRAPPER_MAGIC {
        let data = read_u64(ptr, 8) as usize as *const u8;
        // SAFETY: a wrapper's `data` points at the fatbinary it wraps.
        return unsafe { image_at(data) }.filter(|img| fatbin::is_fatbin(img));
    } else {
        // SAFETY: anything else the driver accepts is NUL-terminated PTX text.
        unsafe { CStr::from_ptr(ptr.cast()) }.to_bytes().len() as u64
    };
    if len > MAX_IMAGE {
        return None;
    }
    // SAFETY: the extent was computed from the image's own headers (caller's contract).
    Some(unsafe { std::slice::from_raw_parts(ptr, len as usize) })
}

/// End of the last header table or section of an ELF64 image.
fn elf_extent(p: *const u8) -> Option<u64> {
    if read_u16(p, 4) & 0xff != 2 {
        return None; // not ELFCLASS64
    }
    let shoff = read_u64(p, 0x28);
    let shentsize = read_u16(p, 0x3a) as u64;
    let shnum = read_u16(p, 0x3c) as u64;
    let phoff = read_u64(p, 0x20);
    let phentsize = read_u16(p, 0x36) as u64;
    let phnum = read_u16(p, 0x38) as u64;
    let mut end = 64u64
        .max(shoff.checked_add(shentsize * shnum)?)
        .max(phoff.checked_add(phentsize * phnum)?);
    if end > MAX_IMAGE || shentsize < 0x28 {
        return None;
    }
    for i in 0..shnum {
        let sh = (shoff + i * shentsize) as usize;
        const SHT_NOBITS: u32 = 8;
        if read_u32(p, sh + 4) != SHT_NOBITS {
            end = end.max(read_u64(p, sh + 0x18).checked_add(read_u64(p, sh + 0x20))?);
        }
    }
    Some(end)
}
