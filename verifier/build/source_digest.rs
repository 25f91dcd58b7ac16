// The back ends' build script (each package's build.rs is an `include!` of this file):
// the digest of the source a back end's proofs are built from, as
// `WARPTRACE_SOURCE_DIGEST` for `env!`. A named proof
// (`warptrace_verifier::named_proofs`) is keyed by it, so a change to any of these files
// — the back end, the IR, the verifier, the locked dependencies — is another key.

/// Emits `cargo:rustc-env=WARPTRACE_SOURCE_DIGEST=<hex>` over every file under `roots`
/// (files or folders, relative to the package), read in the order of their paths, each
/// hashed with its path; and `rerun-if-changed` for each root.
fn emit_source_digest(roots: &[&str]) {
    use std::hash::{Hash, Hasher};
    fn walk(path: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        match std::fs::read_dir(path) {
            Ok(entries) => {
                for e in entries.flatten() {
                    walk(&e.path(), out);
                }
            }
            Err(_) => out.push(path.to_path_buf()),
        }
    }
    let mut files = Vec::new();
    for root in roots {
        println!("cargo:rerun-if-changed={root}");
        walk(std::path::Path::new(root), &mut files);
    }
    files.sort();
    // Two SipHash passes with different prefixes: 128 bits, from std alone. The digest
    // names a source tree; it need not resist an adversary (whoever can write the proof
    // directory can already make a verifier accept).
    let mut digest = String::new();
    for seed in ["warptrace source a", "warptrace source b"] {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        seed.hash(&mut h);
        for f in &files {
            f.hash(&mut h);
            std::fs::read(f).unwrap_or_default().hash(&mut h);
        }
        digest.push_str(&format!("{:016x}", h.finish()));
    }
    println!("cargo:rustc-env=WARPTRACE_SOURCE_DIGEST={digest}");
}

fn main() {
    // Relative to the including package: its own source, then what both back ends share.
    emit_source_digest(&["src", "Cargo.toml", "../ir/src", "../verifier/src", "../Cargo.lock"]);
}
