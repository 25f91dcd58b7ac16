//! What the preload library's tests share: where the built library is, and building their
//! small C programs.
#![allow(dead_code)] // each test file uses part of it

use std::path::{Path, PathBuf};
use std::process::Command;

/// The profile's target directory: the test binary is `target/<profile>/deps/NAME-<hash>`.
pub fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test path");
    exe.parent()
        .and_then(|d| d.parent())
        .expect("target dir")
        .to_path_buf()
}

/// The built `libwarptrace_preload.so` (`cargo build -p warptrace-preload` first: a test
/// build does not build the cdylib).
pub fn preload_library() -> PathBuf {
    let lib = target_dir().join("libwarptrace_preload.so");
    assert!(lib.is_file(), "{} not built", lib.display());
    lib
}

/// The built `warptrace` executable (`cargo build --workspace` first, as for the library).
pub fn warptrace_binary() -> PathBuf {
    let exe = target_dir().join("warptrace");
    assert!(exe.is_file(), "{} not built", exe.display());
    exe
}

/// Compiles C `source` into `dir/t` with `cc` and `args`; `None` (said on stderr) when there
/// is no working C compiler, which fails the test under `CI=true`.
pub fn compile_c(dir: &Path, source: &str, args: &[&str]) -> Option<PathBuf> {
    let src = dir.join("t.c");
    std::fs::write(&src, source).expect("write");
    let exe = dir.join("t");
    match Command::new("cc")
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .args(args)
        .status()
    {
        Ok(s) if s.success() => Some(exe),
        _ => {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "no C compiler (CI=true)"
            );
            eprintln!("=== SKIPPED: no working `cc` ===");
            None
        }
    }
}
