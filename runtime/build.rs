//! The code generator's identity for the module cache's key (`module_cache.rs`): a hash of
//! the sources of every crate that decides what an instrumented module holds. The version
//! alone stays the same across changes to the lowering (decision 0048 changed every
//! counting probe's snippets), and a cache must never serve a module the running code
//! would not produce.
use std::path::{Path, PathBuf};

/// The crates whose sources decide the instrumented text, beside this one's.
const CRATES: &[&str] = &[
    "ir",
    "verifier",
    "codegen",
    "codegen-ptx",
    "codegen-gcn",
    "runtime",
];

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.filter_map(Result::ok) {
        let path = e.path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut all = Vec::new();
    for name in CRATES {
        let src = root.join(name).join("src");
        println!("cargo:rerun-if-changed={}", src.display());
        files(&src, &mut all);
    }
    all.sort();
    // FNV-1a 64 over each file's path (from the workspace root) and contents.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    };
    for path in &all {
        let rel = path.strip_prefix(&root).unwrap_or(path);
        eat(rel.to_string_lossy().as_bytes());
        eat(&std::fs::read(path).unwrap_or_default());
    }
    println!("cargo:rustc-env=WARPTRACE_CODEGEN_HASH={h:016x}");
}
