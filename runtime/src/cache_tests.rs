//! Tests of the on-disk module cache's format, keys and directory handling.

use crate::cache::{
    bundle_hash, cache_dir, codegen_env, CacheEntry, CacheError, CacheKey, CachedKernel, DiskCache,
    KeyInputs, CACHE_FORMAT,
};
use crate::report::{KernelState, Reason};
use std::ffi::OsString;
use std::path::PathBuf;

const PTX: &[u8] = b".version 8.7\n.target sm_90a\n.visible .entry k() { ret; }\n";

fn inputs() -> KeyInputs<'static> {
    KeyInputs {
        ptx: PTX,
        bundle: bundle_hash(b"{\"format\":1}"),
        version: "0.1.0",
        arch: Some(90),
        driver: Some(13000),
        codegen_env: "",
    }
}

fn kernels() -> Vec<CachedKernel> {
    vec![
        CachedKernel {
            name: "_Z5twicePf".into(),
            id: 0x1234_5678_9abc_def0,
            params: 1,
            state: KernelState::Instrumented { sites: 3 },
        },
        CachedKernel {
            name: "untouched".into(),
            id: 7,
            params: 4,
            state: KernelState::Skipped {
                reason: Reason::VerifierRejection,
                detail: "writes a kernel register".into(),
            },
        },
        CachedKernel {
            name: "quiet".into(),
            id: 8,
            params: 0,
            state: KernelState::Skipped {
                reason: Reason::NoSites,
                detail: String::new(),
            },
        },
    ]
}

/// A fake ELF cubin, long enough that a flipped byte lands in it.
fn cubin() -> Vec<u8> {
    let mut c = b"\x7fELF\x02\x01\x01".to_vec();
    c.extend((0..4096u32).map(|i| (i * 31 % 251) as u8));
    c
}

#[test]
fn every_key_component_changes_the_key() {
    let base = CacheKey::derive(&inputs());
    assert_eq!(base, CacheKey::derive(&inputs()), "deterministic");
    let other_ptx = b".version 8.7\n.target sm_90a\n.visible .entry k() { exit; }\n";
    let variants = [
        KeyInputs {
            ptx: other_ptx,
            ..inputs()
        },
        KeyInputs {
            bundle: bundle_hash(b"{\"format\":1} "),
            ..inputs()
        },
        KeyInputs {
            version: "0.1.1",
            ..inputs()
        },
        KeyInputs {
            arch: Some(80),
            ..inputs()
        },
        KeyInputs {
            arch: None,
            ..inputs()
        },
        KeyInputs {
            driver: Some(13010),
            ..inputs()
        },
        KeyInputs {
            driver: None,
            ..inputs()
        },
        KeyInputs {
            codegen_env: "WARPTRACE_NO_WARP_COMBINE=1",
            ..inputs()
        },
    ];
    let mut keys: Vec<CacheKey> = variants.iter().map(CacheKey::derive).collect();
    keys.push(base);
    let n = keys.len();
    keys.sort_by_key(|k| k.0);
    keys.dedup();
    assert_eq!(keys.len(), n, "two inputs gave one key");
    // Components are length-prefixed: moving bytes across a boundary changes the key.
    let a = KeyInputs {
        version: "0.1.0",
        codegen_env: "X",
        ..inputs()
    };
    let b = KeyInputs {
        version: "0.1.0X",
        codegen_env: "",
        ..inputs()
    };
    assert_ne!(CacheKey::derive(&a), CacheKey::derive(&b));
    assert_eq!(base.hex().len(), 32);
}

#[test]
fn codegen_env_keeps_codegen_switches_only() {
    let vars = [
        ("WARPTRACE_NO_WARP_COMBINE", "1"),
        ("WARPTRACE_BUNDLE", "/tmp/warptrace-abc/bundle.json"),
        ("WARPTRACE_RESULTS", "/tmp/warptrace-abc/results"),
        ("WARPTRACE_VERBOSE", "1"),
        ("WARPTRACE_CACHE_DIR", "/c"),
        ("WARPTRACE_A_NEW_SWITCH", "x"),
        ("HOME", "/root"),
    ]
    .map(|(k, v)| (OsString::from(k), OsString::from(v)));
    assert_eq!(
        codegen_env(vars),
        "WARPTRACE_A_NEW_SWITCH=x\nWARPTRACE_NO_WARP_COMBINE=1"
    );
}

#[test]
fn cache_dir_follows_the_environment() {
    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<OsString> + 'a {
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| OsString::from(v))
        }
    }
    let home = [("HOME", "/home/u")];
    assert_eq!(
        cache_dir(env(&home)),
        Some(PathBuf::from("/home/u/.cache/warptrace"))
    );
    let xdg = [("HOME", "/home/u"), ("XDG_CACHE_HOME", "/xdg")];
    assert_eq!(cache_dir(env(&xdg)), Some(PathBuf::from("/xdg/warptrace")));
    // A relative XDG_CACHE_HOME is invalid per the spec: ignored.
    let rel = [("HOME", "/home/u"), ("XDG_CACHE_HOME", "rel")];
    assert_eq!(
        cache_dir(env(&rel)),
        Some(PathBuf::from("/home/u/.cache/warptrace"))
    );
    let explicit = [
        ("HOME", "/home/u"),
        ("XDG_CACHE_HOME", "/xdg"),
        ("WARPTRACE_CACHE_DIR", "/c"),
    ];
    assert_eq!(cache_dir(env(&explicit)), Some(PathBuf::from("/c")));
    let off = [("WARPTRACE_CACHE_DIR", "/c"), ("WARPTRACE_NO_CACHE", "1")];
    assert_eq!(cache_dir(env(&off)), None);
    let zero = [("WARPTRACE_CACHE_DIR", "/c"), ("WARPTRACE_NO_CACHE", "0")];
    assert_eq!(cache_dir(env(&zero)), Some(PathBuf::from("/c")));
    assert_eq!(cache_dir(env(&[])), None, "no home, no cache");
}

#[test]
fn store_then_load_round_trips() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = DiskCache::new(dir.path().join("nested/warptrace"));
    let key = CacheKey::derive(&inputs());
    assert!(matches!(cache.load(key), Err(CacheError::NotFound)));
    let path = cache.store(key, &cubin(), &kernels()).expect("stored");
    assert_eq!(path, cache.path(key));
    assert!(cache.dir().join("CACHEDIR.TAG").is_file());
    let entry = cache.load(key).expect("a hit");
    assert_eq!(entry.cubin(), cubin().as_slice());
    assert_eq!(entry.kernels, kernels());
    // The cubin starts 64-byte aligned in the file, as an ELF image should.
    let bytes = std::fs::read(&path).expect("read");
    assert_eq!(&bytes[64..68], b"\x7fELF");
    // A second writer of the same key replaces the entry whole; no temporary file is left.
    cache
        .store(key, &cubin(), &kernels())
        .expect("stored again");
    let names: Vec<_> = std::fs::read_dir(cache.dir())
        .expect("dir")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    // A module without instrumented kernels is cached without a cubin.
    let quiet = &kernels()[2..];
    let other = CacheKey(key.0 ^ 1);
    cache.store(other, &[], quiet).expect("stored");
    let entry = cache.load(other).expect("hit");
    assert!(entry.cubin().is_empty());
    assert_eq!(entry.kernels, quiet);
}

#[test]
fn damaged_entries_are_misses() {
    let key = CacheKey::derive(&inputs());
    let good = CacheEntry::encode(key, &cubin(), &kernels());
    assert!(CacheEntry::decode(key, good.clone()).is_ok());
    let decode = |bytes: Vec<u8>| CacheEntry::decode(key, bytes);
    // Truncated anywhere: in the header, in the cubin, in the metadata.
    for len in [0, 7, 12, 40, 63, 64, 100, good.len() - 1] {
        let err = decode(good[..len].to_vec()).expect_err("truncated");
        assert!(
            matches!(
                err,
                CacheError::BadMagic | CacheError::Truncated { .. } | CacheError::Malformed(_)
            ),
            "{len}: {err}"
        );
    }
    // A byte appended, a byte flipped in the cubin or the metadata.
    let mut long = good.clone();
    long.push(0);
    assert!(matches!(decode(long), Err(CacheError::Truncated { .. })));
    for at in [64 + 100, good.len() - 3] {
        let mut bad = good.clone();
        bad[at] ^= 0x20;
        assert!(matches!(decode(bad), Err(CacheError::Checksum)), "{at}");
    }
    // Another format, another key, not an entry at all.
    let mut old = good.clone();
    old[8..12].copy_from_slice(&(CACHE_FORMAT + 1).to_le_bytes());
    assert!(matches!(
        decode(old),
        Err(CacheError::Format { found }) if found == CACHE_FORMAT + 1
    ));
    assert!(matches!(
        CacheEntry::decode(CacheKey(key.0 ^ 1), good.clone()),
        Err(CacheError::KeyMismatch)
    ));
    assert!(matches!(
        decode(
            b"\x7fELF not a cache entry, a cubin put here by hand........................".to_vec()
        ),
        Err(CacheError::BadMagic)
    ));
    // Lengths that promise more than a u64 can hold are refused, not allocated.
    let mut huge = good.clone();
    huge[32..40].copy_from_slice(&u64::MAX.to_le_bytes());
    assert!(matches!(decode(huge), Err(CacheError::Malformed(_))));
}

#[test]
fn malformed_metadata_is_a_miss() {
    let key = CacheKey(42);
    // Entries whose checksum is right but whose metadata lies.
    let bad_reason = {
        let mut k = kernels();
        k.truncate(1);
        k.push(CachedKernel {
            name: "x".into(),
            id: 1,
            params: 0,
            state: KernelState::Skipped {
                reason: Reason::NoSites,
                detail: String::new(),
            },
        });
        let mut bytes = CacheEntry::encode(key, &cubin(), &k);
        // The last kernel's reason code is 5 bytes from the end (reason u8, empty detail).
        let at = bytes.len() - 5;
        bytes[at] = 200;
        rechecksum(&mut bytes);
        bytes
    };
    assert!(matches!(
        CacheEntry::decode(key, bad_reason),
        Err(CacheError::Malformed("reason"))
    ));
    // A cubin without instrumented kernels, or instrumented kernels without a cubin.
    let no_cubin = CacheEntry::encode(key, &[], &kernels());
    assert!(matches!(
        CacheEntry::decode(key, no_cubin),
        Err(CacheError::Malformed(_))
    ));
    let stray = CacheEntry::encode(key, &cubin(), &kernels()[1..]);
    assert!(matches!(
        CacheEntry::decode(key, stray),
        Err(CacheError::Malformed(_))
    ));
}

/// Recomputes an entry's checksum after an edit (as a buggy writer would produce).
fn rechecksum(bytes: &mut [u8]) {
    let sum = xxhash_rust::xxh3::xxh3_64(&bytes[64..]);
    bytes[48..56].copy_from_slice(&sum.to_le_bytes());
}

#[test]
fn damaged_files_on_disk_are_misses() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = DiskCache::new(dir.path());
    let key = CacheKey::derive(&inputs());
    let path = cache.store(key, &cubin(), &kernels()).expect("stored");
    let good = std::fs::read(&path).expect("read");
    std::fs::write(&path, &good[..good.len() / 2]).expect("truncate");
    assert!(matches!(cache.load(key), Err(CacheError::Truncated { .. })));
    std::fs::write(&path, b"").expect("empty");
    assert!(matches!(cache.load(key), Err(CacheError::BadMagic)));
    // A directory where the entry should be: a read error, still only a miss.
    std::fs::remove_file(&path).expect("rm");
    std::fs::create_dir(&path).expect("mkdir");
    assert!(matches!(cache.load(key), Err(CacheError::Read { .. })));
}

#[test]
fn an_unwritable_directory_is_an_error_not_a_panic() {
    let dir = tempfile::tempdir().expect("tempdir");
    // A file where the cache directory should be: creating it fails for root too.
    let blocker = dir.path().join("file");
    std::fs::write(&blocker, b"x").expect("write");
    let cache = DiskCache::new(blocker.join("warptrace"));
    let key = CacheKey(1);
    let err = cache
        .store(key, &cubin(), &kernels())
        .expect_err("unwritable");
    assert!(matches!(err, CacheError::CreateDir { .. }), "{err}");
    assert!(matches!(
        cache.load(key),
        Err(CacheError::Read { .. } | CacheError::NotFound)
    ));
    // An existing directory whose entries cannot be created (a file name too long for
    // the file system is refused whoever runs the test).
    let cache = DiskCache::new(dir.path().join("x".repeat(300)));
    assert!(cache.store(key, &cubin(), &kernels()).is_err());
}

#[test]
fn concurrent_writers_of_one_key_leave_one_whole_entry() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = DiskCache::new(dir.path());
    let key = CacheKey::derive(&inputs());
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                for _ in 0..20 {
                    cache.store(key, &cubin(), &kernels()).expect("stored");
                    // Readers racing the writers see a whole entry or none.
                    match cache.load(key) {
                        Ok(e) => assert_eq!(e.cubin(), cubin().as_slice()),
                        Err(e) => panic!("a reader saw a partial entry: {e}"),
                    }
                }
            });
        }
    });
    // The directory existed (no CACHEDIR.TAG is written into it): the entry alone.
    let files = std::fs::read_dir(dir.path()).expect("dir").count();
    assert_eq!(files, 1, "the entry only, no temporary file");
}

#[test]
fn the_summary_counts_the_cache_and_explains_it_under_verbose() {
    use crate::report::{render_summary, CacheSummary, Report, CACHE_NOTES};
    let mut one = Report::default();
    one.summary.kernels_instrumented = 2;
    one.summary.cache = CacheSummary {
        hits: 1,
        misses: 1,
        written: 0,
        write_failures: 1,
        jit_us: 153_250,
        notes: vec![
            "miss: /c/ab.wtc: checksum mismatch (corrupt entry)".into(),
            "write failed: cannot create the cache directory /c: Permission denied".into(),
        ],
    };
    let text = render_summary(&one, false);
    assert_eq!(
        text.lines().nth(1),
        Some("warptrace: module cache: 1 hit, 1 miss, 0 written, 1 write failure; JIT 153.2 ms"),
        "{text}"
    );
    assert!(!text.contains("checksum"), "notes only with -v: {text}");
    let verbose = render_summary(&one, true);
    assert!(
        verbose
            .contains("warptrace:   cache: miss: /c/ab.wtc: checksum mismatch (corrupt entry)\n"),
        "{verbose}"
    );
    assert!(
        verbose.contains("warptrace:   cache: write failed: "),
        "{verbose}"
    );
    // Nothing cached or compiled: no cache line at all.
    assert!(!render_summary(&Report::default(), true).contains("cache"));

    // Processes add up; notes stay bounded.
    let mut many = one.clone();
    many.summary.cache.notes = (0..CACHE_NOTES).map(|i| format!("n{i}")).collect();
    let merged = Report::merge(vec![one.clone(), many]);
    let c = &merged.summary.cache;
    assert_eq!(
        (c.hits, c.misses, c.write_failures, c.jit_us),
        (2, 2, 2, 306_500)
    );
    assert_eq!(c.notes.len(), CACHE_NOTES);
    assert_eq!(c.notes[0], one.summary.cache.notes[0]);
    assert!(
        render_summary(&merged, false).contains("2 hits, 2 misses, 0 written, 2 write failures")
    );

    // The JSON round-trips; an older report without the field reads as "no cache".
    let json = serde_json::to_string(&merged).expect("json");
    assert_eq!(
        serde_json::from_str::<Report>(&json).expect("parse"),
        merged
    );
    let quiet = serde_json::to_string(&Report::default()).expect("json");
    assert!(!quiet.contains("cache"), "{quiet}");
    let back: Report = serde_json::from_str(&quiet).expect("parse");
    assert!(back.summary.cache.is_empty());
}
