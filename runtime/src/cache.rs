//! The on-disk cache of instrumented, JIT-compiled modules.
//!
//! One file per module, named by a [`CacheKey`]: a 128-bit XXH3 of the original PTX, the
//! probe bundle (its bytes as the runtime read them), the warptrace version, the device's
//! compute capability, the driver's CUDA version and the code generator's environment
//! switches. The file holds the cubin the driver's linker produced from the instrumented
//! PTX and what [`warptrace_codegen_ptx::instrument`] decided about each kernel, so a hit
//! skips parsing, instrumentation, verification and the JIT: the runtime only hands the
//! cubin to `cuModuleLoadData`.
//!
//! Entry layout (little-endian): a 64-byte header — magic `WTCACHE\0`, [`CACHE_FORMAT`]
//! (u32), flags (u32, 0), the key (16 bytes), the cubin's and the metadata's lengths
//! (u64 each), an XXH3-64 of everything after the header (u64), 8 reserved bytes — then
//! the cubin (so it starts 64-byte aligned), then the metadata: the kernel count (u32)
//! and per kernel its name (u32 length + UTF-8), id (u64), parameter count (u32) and
//! outcome (u8 0: instrumented, then the site count (u32); 1: skipped, then the reason
//! (u8) and the detail (u32 length + UTF-8)).
//!
//! Anything unexpected in a file — wrong magic, another format, another key, a length
//! that disagrees with the file, a checksum mismatch, malformed metadata — is a
//! [`CacheError`] and the caller treats it as a miss. Writes go to a temporary file in
//! the same directory, renamed over the entry, so concurrent writers of one key (ranks of
//! one `torchrun`) each publish a whole file and readers never see a partial one.
//!
//! The key is not a security boundary: whoever can write the cache directory can make
//! the runtime load any cubin, as whoever can write the preload library can; keep the
//! directory private (the default is under `$HOME`).

mod entry;

pub use entry::{CacheEntry, CachedKernel};
use std::ffi::OsString;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use xxhash_rust::xxh3::{xxh3_128, Xxh3};

/// Version of the entry layout; entries of another format are misses.
pub const CACHE_FORMAT: u32 = 1;

/// File name extension of an entry.
const EXTENSION: &str = "wtc";

/// Environment variables that change what the code generator emits for the same PTX
/// and bundle are part of the key. Every `WARPTRACE_*` variable counts except these,
/// which only steer the runtime or the CLI (so a new code-generator switch can never
/// be served a stale entry).
const RUNTIME_ONLY_ENV: &[&str] = &[
    "WARPTRACE_BUNDLE",
    "WARPTRACE_RESULTS",
    "WARPTRACE_VERBOSE",
    "WARPTRACE_FAULT",
    "WARPTRACE_LAUNCH_SKIP",
    "WARPTRACE_LAUNCH_COUNT",
    "WARPTRACE_SAMPLE",
    "WARPTRACE_CACHE_DIR",
    "WARPTRACE_NO_CACHE",
    "WARPTRACE_PRELOAD",
    "WARPTRACE_SMT_DUMP",
];

/// Why a cache entry could not be used or written.
#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    /// No entry for the key (a cold miss).
    #[error("not in the cache")]
    NotFound,
    /// The entry exists but could not be read.
    #[error("cannot read {path}")]
    Read {
        /// The entry.
        path: PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// The file is not a warptrace cache entry.
    #[error("not a warptrace cache entry")]
    BadMagic,
    /// Written in another entry format.
    #[error("entry format {found} (this warptrace reads {CACHE_FORMAT})")]
    Format {
        /// The format found in the file.
        found: u32,
    },
    /// The header names another key (a renamed or foreign file).
    #[error("entry is for another key")]
    KeyMismatch,
    /// The file's length disagrees with its header.
    #[error("truncated entry: {found} bytes, header says {expected}")]
    Truncated {
        /// What the header adds up to.
        expected: u64,
        /// The file's length.
        found: u64,
    },
    /// The contents do not match the header's checksum.
    #[error("checksum mismatch (corrupt entry)")]
    Checksum,
    /// The metadata cannot be decoded.
    #[error("malformed metadata: {0}")]
    Malformed(&'static str),
    /// The cache directory cannot be created.
    #[error("cannot create the cache directory {dir}")]
    CreateDir {
        /// The directory.
        dir: PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// The entry could not be written or published.
    #[error("cannot write {path}")]
    Write {
        /// The temporary file or the entry.
        path: PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
}

/// The cache key of one module.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CacheKey(pub u128);

/// Everything a cache key is derived from.
#[derive(Debug, Clone, Copy)]
pub struct KeyInputs<'a> {
    /// The original (uninstrumented) PTX of the image.
    pub ptx: &'a [u8],
    /// [`bundle_hash`] of the probe bundle.
    pub bundle: u128,
    /// The warptrace version and the code generator's identity (`CARGO_PKG_VERSION+hash`,
    /// `runtime/build.rs`).
    pub version: &'a str,
    /// The device's compute capability (`major * 10 + minor`), if known.
    pub arch: Option<u32>,
    /// The driver's CUDA version (`cuDriverGetVersion`), if known.
    pub driver: Option<u32>,
    /// [`codegen_env`]: the code generator's environment switches.
    pub codegen_env: &'a str,
}

impl CacheKey {
    /// The key of `inputs`: every component length-prefixed, so no two different input
    /// tuples hash the same bytes.
    pub fn derive(inputs: &KeyInputs<'_>) -> CacheKey {
        let mut h = Xxh3::new();
        let mut part = |bytes: &[u8]| {
            h.update(&(bytes.len() as u64).to_le_bytes());
            h.update(bytes);
        };
        part(b"warptrace module cache");
        part(&CACHE_FORMAT.to_le_bytes());
        part(inputs.ptx);
        part(&inputs.bundle.to_le_bytes());
        part(inputs.version.as_bytes());
        part(&option_bytes(inputs.arch));
        part(&option_bytes(inputs.driver));
        part(inputs.codegen_env.as_bytes());
        CacheKey(h.digest128())
    }

    /// 32 hex digits, the entry's file stem.
    pub fn hex(&self) -> String {
        format!("{:032x}", self.0)
    }
}

impl std::fmt::Display for CacheKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.hex())
    }
}

fn option_bytes(v: Option<u32>) -> [u8; 5] {
    let [a, b, c, d] = v.unwrap_or(0).to_le_bytes();
    [u8::from(v.is_some()), a, b, c, d]
}

/// The hash of a probe bundle's bytes, as the runtime read them.
pub fn bundle_hash(bytes: &[u8]) -> u128 {
    xxh3_128(bytes)
}

/// The code generator's environment switches (every `WARPTRACE_*` variable but the
/// runtime's own), sorted, as `NAME=VALUE` lines; `vars` is the environment.
pub fn codegen_env(vars: impl IntoIterator<Item = (OsString, OsString)>) -> String {
    let mut lines: Vec<String> = vars
        .into_iter()
        .filter_map(|(k, v)| {
            let k = k.into_string().ok()?;
            let keep = k.starts_with("WARPTRACE_") && !RUNTIME_ONLY_ENV.contains(&k.as_str());
            keep.then(|| format!("{k}={}", v.to_string_lossy()))
        })
        .collect();
    lines.sort();
    lines.join("\n")
}

/// Where the cache lives, from the environment (`var` looks a variable up):
/// `$WARPTRACE_CACHE_DIR`, else `$XDG_CACHE_HOME/warptrace` (an absolute one), else
/// `$HOME/.cache/warptrace`. `None`: `WARPTRACE_NO_CACHE` is set (to anything but `0`),
/// or there is no home.
pub fn cache_dir(var: impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    let set = |name: &str| var(name).filter(|v| !v.is_empty());
    if set(crate::config::ENV_NO_CACHE).is_some_and(|v| v != "0") {
        return None;
    }
    if let Some(dir) = set(crate::config::ENV_CACHE_DIR) {
        return Some(PathBuf::from(dir));
    }
    if let Some(xdg) = set("XDG_CACHE_HOME").map(PathBuf::from) {
        if xdg.is_absolute() {
            return Some(xdg.join("warptrace"));
        }
    }
    set("HOME").map(|home| PathBuf::from(home).join(".cache").join("warptrace"))
}

/// A cache directory.
#[derive(Debug, Clone)]
pub struct DiskCache {
    dir: PathBuf,
}

impl DiskCache {
    /// The cache in `dir` (created on the first store).
    pub fn new(dir: impl Into<PathBuf>) -> DiskCache {
        DiskCache { dir: dir.into() }
    }

    /// Its directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file of `key`'s entry.
    pub fn path(&self, key: CacheKey) -> PathBuf {
        self.dir.join(format!("{}.{EXTENSION}", key.hex()))
    }

    /// Reads and decodes `key`'s entry.
    pub fn load(&self, key: CacheKey) -> Result<CacheEntry, CacheError> {
        let path = self.path(key);
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(CacheError::NotFound),
            Err(source) => return Err(CacheError::Read { path, source }),
        };
        CacheEntry::decode(key, bytes)
    }

    /// Writes `key`'s entry atomically (a temporary file in the directory, renamed over
    /// the entry); returns the entry's path.
    pub fn store(
        &self,
        key: CacheKey,
        cubin: &[u8],
        kernels: &[CachedKernel],
    ) -> Result<PathBuf, CacheError> {
        self.create_dir()?;
        let bytes = CacheEntry::encode(key, cubin, kernels);
        let path = self.path(key);
        let tmp = self.dir.join(format!(
            ".{}.{}.{}.tmp",
            key.hex(),
            std::process::id(),
            unique()
        ));
        let written = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .and_then(|mut f| f.write_all(&bytes));
        if let Err(source) = written {
            let _ = std::fs::remove_file(&tmp);
            return Err(CacheError::Write { path: tmp, source });
        }
        if let Err(source) = std::fs::rename(&tmp, &path) {
            let _ = std::fs::remove_file(&tmp);
            return Err(CacheError::Write { path, source });
        }
        Ok(path)
    }

    fn create_dir(&self) -> Result<(), CacheError> {
        if self.dir.is_dir() {
            return Ok(());
        }
        std::fs::create_dir_all(&self.dir).map_err(|source| CacheError::CreateDir {
            dir: self.dir.clone(),
            source,
        })?;
        // Tells backup tools the directory is a cache (https://bford.info/cachedir/).
        let _ = std::fs::write(
            self.dir.join("CACHEDIR.TAG"),
            "Signature: 8a477f597d28d172789f06886806bc55\n\
             # This file is a cache directory tag created by warptrace.\n",
        );
        Ok(())
    }
}

/// A number no other temporary file of this process uses.
fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}
