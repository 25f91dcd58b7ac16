//! A program killed by a signal still leaves its report, and still dies of that signal:
//! the built `libwarptrace_preload.so` under `LD_PRELOAD` in a small C program that
//! raises `SIGTERM`, calls `abort()` or dereferences null (no libcuda needed). Run
//! `cargo build -p warptrace-preload` first, as for the other tests here.

mod common;

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::Command;

const PROGRAM: &str = r#"
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv) {
    printf("running\n");
    fflush(stdout);
    if (argc > 1 && strcmp(argv[1], "term") == 0) raise(SIGTERM);
    if (argc > 1 && strcmp(argv[1], "abort") == 0) abort();
    if (argc > 1 && strcmp(argv[1], "segv") == 0) { volatile int *p = 0; *p = 1; }
    if (argc > 1 && strcmp(argv[1], "ignored") == 0) { signal(SIGTERM, SIG_IGN); raise(SIGTERM); }
    return 3;
}
"#;

/// Runs the program with `how` under the library and a bundle; returns its exit status
/// and the reports it left.
fn run(dir: &Path, exe: &Path, how: &str) -> (std::process::ExitStatus, Vec<PathBuf>) {
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
    assert_eq!(String::from_utf8_lossy(&out.stdout), "running\n");
    let reports = std::fs::read_dir(&results)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    (out.status, reports)
}

fn assert_one_report(reports: &[PathBuf]) {
    assert_eq!(reports.len(), 1, "{reports:?}");
    let report: warptrace_runtime::Report =
        serde_json::from_str(&std::fs::read_to_string(&reports[0]).expect("read"))
            .expect("report JSON");
    assert_eq!(report.format, warptrace_runtime::REPORT_FORMAT);
}

#[test]
fn a_program_killed_by_a_signal_leaves_its_report_and_dies_of_that_signal() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(exe) = common::compile_c(dir.path(), PROGRAM, &[]) else {
        return;
    };
    for (how, sig) in [
        ("term", libc::SIGTERM),
        ("abort", libc::SIGABRT),
        ("segv", libc::SIGSEGV),
    ] {
        let (status, reports) = run(dir.path(), &exe, how);
        assert_eq!(status.signal(), Some(sig), "{how}: {status:?}");
        assert_one_report(&reports);
    }
}

#[test]
fn a_normal_exit_and_an_ignored_signal_are_unchanged() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(exe) = common::compile_c(dir.path(), PROGRAM, &[]) else {
        return;
    };
    for how in ["exit", "ignored"] {
        let (status, reports) = run(dir.path(), &exe, how);
        assert_eq!(status.code(), Some(3), "{how}: {status:?}");
        assert_one_report(&reports);
    }
}
