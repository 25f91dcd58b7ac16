//! The built `libwarptrace_preload.so` under `LD_PRELOAD` in a small C program, on a
//! machine without libcuda: non-CUDA `dlsym` lookups pass through unchanged (including
//! `RTLD_NEXT`, which must stay relative to the caller), and the library stays inert.

mod common;

use std::path::PathBuf;
use std::process::Command;

const PROGRAM: &str = r#"
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <unistd.h>
int main(void) {
    void *libc = dlopen("libc.so.6", RTLD_NOW);
    pid_t (*f)(void) = (pid_t (*)(void))dlsym(libc, "getpid");
    printf("getpid %s\n", f && f() == getpid() && (void *)f == (void *)&getpid ? "ok" : "BAD");
    printf("default %s\n", dlsym(RTLD_DEFAULT, "getpid") == (void *)&getpid ? "ok" : "BAD");
    /* Relative to this executable, the next dlsym is the preloaded one. */
    printf("next %s\n", dlsym(RTLD_NEXT, "dlsym") == (void *)&dlsym ? "ok" : "BAD");
    printf("missing %s\n", dlsym(libc, "cuLaunchKernel") == NULL ? "ok" : "BAD");
    return 0;
}
"#;

fn run(exe: &PathBuf, env: &[(&str, &std::ffi::OsStr)]) -> (String, String) {
    let lib = common::preload_library();
    let mut cmd = Command::new(exe);
    cmd.env("LD_PRELOAD", &lib)
        .env_remove("WARPTRACE_BUNDLE")
        .env_remove("WARPTRACE_RESULTS");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("runs");
    assert!(out.status.success(), "{out:?}");
    (
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

const EXPECTED: &str = "getpid ok\ndefault ok\nnext ok\nmissing ok\n";

#[test]
fn transparent_without_a_bundle() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(exe) = common::compile_c(dir.path(), PROGRAM, &["-ldl"]) else {
        return;
    };
    let (out, err) = run(&exe, &[]);
    assert_eq!(out, EXPECTED);
    assert_eq!(err, "");
}

#[test]
fn inert_with_a_bundle_and_no_libcuda() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(exe) = common::compile_c(dir.path(), PROGRAM, &["-ldl"]) else {
        return;
    };
    let bundle = dir.path().join("bundle.json");
    let b = warptrace_ir::Bundle::new("kernel:entry { }".into(), warptrace_ir::Program::default());
    std::fs::write(&bundle, b.to_json()).expect("write");
    let results = dir.path().join("results");
    let (out, _) = run(
        &exe,
        &[
            ("WARPTRACE_BUNDLE", bundle.as_os_str()),
            ("WARPTRACE_RESULTS", results.as_os_str()),
        ],
    );
    assert_eq!(out, EXPECTED);
    // The exit handler wrote this process's report.
    let files: Vec<_> = std::fs::read_dir(&results).expect("results dir").collect();
    assert_eq!(files.len(), 1);
    let path = files[0].as_ref().expect("entry").path();
    let report: warptrace_runtime::Report =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("report JSON");
    assert_eq!(report.format, warptrace_runtime::REPORT_FORMAT);
    assert_eq!(
        format!("{}.json", report.pids[0]),
        path.file_name().expect("name").to_string_lossy()
    );
    assert_eq!(report.summary.launches_probed, 0);
}

#[test]
fn a_bad_bundle_is_a_warning() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(exe) = common::compile_c(dir.path(), PROGRAM, &["-ldl"]) else {
        return;
    };
    let missing = dir.path().join("nope.json");
    let (out, err) = run(&exe, &[("WARPTRACE_BUNDLE", missing.as_os_str())]);
    assert_eq!(out, EXPECTED);
    assert!(err.starts_with("warptrace: cannot load bundle"), "{err}");
}
