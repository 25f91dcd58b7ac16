//! Every driver function (and HIP runtime function) the runtime hooks is exported by
//! `libwarptrace_preload.so` under its own name (a program linked against libcuda or
//! libamdhip64 binds to the first definition), with `dlsym` besides; checked by a C program that `dlopen`s the library (no GPU needed).

mod common;

use std::process::Command;

const PROGRAM: &str = r#"
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char **argv) {
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) { printf("dlopen failed: %s\n", dlerror()); return 1; }
    int missing = 0;
    for (int i = 2; i < argc; i++) {
        if (!dlsym(lib, argv[i])) { printf("missing %s\n", argv[i]); missing++; }
    }
    printf("%d of %d exported\n", argc - 2 - missing, argc - 2);
    return 0;
}
"#;

#[test]
fn every_hooked_function_is_exported() {
    let dir = tempfile::tempdir().expect("tempdir");
    let src = dir.path().join("exports.c");
    std::fs::write(&src, PROGRAM).expect("write");
    let exe = dir.path().join("exports");
    let built = Command::new("cc")
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .arg("-ldl")
        .status();
    if !matches!(built, Ok(s) if s.success()) {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "no C compiler (CI=true)"
        );
        eprintln!("=== SKIPPED: no working `cc` ===");
        return;
    }
    let lib = common::target_dir().join("libwarptrace_preload.so");
    assert!(lib.is_file(), "{} not built", lib.display());
    let names: Vec<String> = warptrace_runtime::exports::hooked_names()
        .chain(warptrace_runtime::hip_exports::hooked_names())
        .map(|n| n.to_string_lossy().into_owned())
        .chain(["dlsym".to_string()])
        .collect();
    assert!(names.iter().any(|n| n == "cuModuleLoadFatBinary"));
    assert!(names.iter().any(|n| n == "cuLibraryGetModule"));
    assert!(names.iter().any(|n| n == "__hipRegisterFatBinary"));
    assert!(names.iter().any(|n| n == "hipGetProcAddress"));
    let out = Command::new(&exe)
        .arg(&lib)
        .args(&names)
        .env_remove("WARPTRACE_BUNDLE")
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert_eq!(
        stdout,
        format!("{n} of {n} exported\n", n = names.len()),
        "the preload library's export! list lacks these"
    );
}
