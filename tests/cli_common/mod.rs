//! What the command-line tests (`tests/cli.rs`, `tests/cli_raw.rs`) share: running the
//! `warptrace` binary and reading its output.

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

/// Its standard output, as text.
pub fn stdout(o: &Output) -> String {
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
