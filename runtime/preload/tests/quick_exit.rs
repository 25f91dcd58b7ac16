//! A process that ends through `_exit` or `_Exit` (Python's `os._exit`, which every child
//! of `multiprocessing`'s fork start method ends with) still leaves its report, and a
//! `vfork` child, which shares its parent's memory, leaves none: the built
//! `libwarptrace_preload.so` under `LD_PRELOAD` in a small C program (no libcuda needed).
//! Run `cargo build -p warptrace-preload` first, as for the other tests here.

mod common;

use std::path::Path;
use std::process::Command;

const PROGRAM: &str = r#"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
int main(int argc, char **argv) {
    const char *how = argc > 1 ? argv[1] : "";
    if (strcmp(how, "self") == 0) _exit(5);
    if (strcmp(how, "self_Exit") == 0) _Exit(6);
    pid_t child;
    if (strcmp(how, "fork") == 0) {
        child = fork();
        if (child == 0) _exit(0);
    } else if (strcmp(how, "vfork") == 0) {
        child = vfork();
        if (child == 0) _exit(0);
    } else {
        return 3;
    }
    int status = 0;
    if (child < 0 || waitpid(child, &status, 0) != child) return 9;
    printf("%d\n", (int)child);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 8;
}
"#;

/// Runs the program with `how` under the library and a bundle; returns its exit code, its
/// standard output and the pids whose reports it left, sorted.
fn run(dir: &Path, exe: &Path, how: &str) -> (Option<i32>, String, Vec<u32>) {
    let lib = common::preload_library();
    let bundle = dir.join("bundle.json");
    let b = warptrace_ir::Bundle::new("kernel:entry { }".into(), warptrace_ir::Program::default());
    std::fs::write(&bundle, b.to_json()).expect("write");
    let results = dir.join(format!("results-{how}"));
    let out = Command::new(exe)
        .arg(how)
        .env("LD_PRELOAD", &lib)
        .env("WARPTRACE_BUNDLE", &bundle)
        .env("WARPTRACE_RESULTS", &results)
        .output()
        .expect("runs");
    let mut pids: Vec<u32> = std::fs::read_dir(&results)
        .map(|d| {
            d.filter_map(|e| e.ok())
                .filter_map(|e| {
                    let text = std::fs::read_to_string(e.path()).ok()?;
                    let report: warptrace_runtime::Report = serde_json::from_str(&text).ok()?;
                    report.pids.first().copied()
                })
                .collect()
        })
        .unwrap_or_default();
    pids.sort_unstable();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        pids,
    )
}

#[test]
fn a_process_ending_through_exit_underscore_leaves_its_report_with_its_status() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(exe) = common::compile_c(dir.path(), PROGRAM, &[]) else {
        return;
    };
    for (how, code) in [("self", 5), ("self_Exit", 6)] {
        let (status, _, pids) = run(dir.path(), &exe, how);
        assert_eq!(status, Some(code), "{how}");
        assert_eq!(
            pids.len(),
            1,
            "{how}: one report, from the process itself: {pids:?}"
        );
    }
}

#[test]
fn a_fork_child_ending_through_exit_underscore_leaves_its_own_report() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(exe) = common::compile_c(dir.path(), PROGRAM, &[]) else {
        return;
    };
    let (status, stdout, pids) = run(dir.path(), &exe, "fork");
    assert_eq!(status, Some(0));
    let child: u32 = stdout.trim().parse().expect("the child's pid");
    assert_eq!(pids.len(), 2, "parent and child: {pids:?}");
    assert!(
        pids.contains(&child),
        "the child's report: {pids:?}, child {child}"
    );
}

#[test]
fn a_vfork_child_ending_through_exit_underscore_leaves_no_report() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(exe) = common::compile_c(dir.path(), PROGRAM, &[]) else {
        return;
    };
    let (status, stdout, pids) = run(dir.path(), &exe, "vfork");
    assert_eq!(status, Some(0));
    let child: u32 = stdout.trim().parse().expect("the child's pid");
    assert_eq!(pids.len(), 1, "the parent's only: {pids:?}");
    assert!(!pids.contains(&child), "no report from the vfork child");
}
