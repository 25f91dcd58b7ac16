//! What the command-line tests (`tests/cli.rs`, `tests/cli_raw.rs`, `tests/cli_jit.rs`)
//! share: running the `warptrace` binary and reading its output.

use std::process::{Command, Output};

/// Runs the `warptrace` binary built for these tests with `args`.
pub fn warptrace<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_warptrace"))
        .args(args)
        .output()
        .expect("warptrace runs")
}

/// Its standard error, as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Its standard output, as text, without the `Attaching N probes...` line (or `-f json`
/// record) a run prints first, as bpftrace does: what the program and its maps printed.
/// (`host_programs_print_what_bpftrace_prints` checks that line, with [`raw_stdout`].)
pub fn stdout(o: &Output) -> String {
    let text = raw_stdout(o);
    match text.split_once('\n') {
        Some((first, rest))
            if first.starts_with("Attaching ") && first.ends_with("...")
                || first.starts_with(r#"{"type": "attached_probes""#) =>
        {
            rest.to_string()
        }
        _ => text,
    }
}

/// Its standard output, as text, whole.
pub fn raw_stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A run where no process loaded a CUDA module (no GPU, or not a CUDA program) exits 1
/// and says why, when the program itself succeeded.
pub fn assert_traced_nothing(out: &Output) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("warptrace: error: nothing was traced:")
            && (err.contains("loaded no CUDA module") || err.contains("loaded a CUDA module")),
        "{err}"
    );
}
