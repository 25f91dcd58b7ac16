//! Instruments one corpus file N times with the skeleton program, for profilers whose
//! counts do not drift as this VM's clock does (criterion's `ptx/instrument_verify` is
//! the figure of record):
//!
//! ```text
//! cargo build --release -p warptrace-tests --example instrument_loop
//! valgrind --tool=callgrind target/release/examples/instrument_loop triton_matmul.ptx 6
//! ```
//!
//! Instructions per call = (count with N − count with 1) / (N − 1).

/// The allocator the `warptrace` binary and the preload library use.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (Some(name), Some(times)) = (args.next(), args.next()) else {
        eprintln!("usage: instrument_loop CORPUS_FILE|PATH TIMES (e.g. triton_matmul.ptx 6)");
        return ExitCode::from(2);
    };
    let Ok(times) = times.parse::<u32>() else {
        eprintln!("TIMES must be a number, not `{times}`");
        return ExitCode::from(2);
    };
    // A corpus file by name, or any PTX file by path.
    let found = warptrace_tests::corpus()
        .into_iter()
        .find(|(n, _)| *n == name)
        .map(|(_, ptx)| ptx)
        .or_else(|| std::fs::read_to_string(&name).ok());
    let Some(ptx) = found else {
        eprintln!("no corpus file `{name}` in tests/corpus/ptx, and no PTX file at that path");
        return ExitCode::from(2);
    };
    let program = warptrace_tests::programs::verified(&warptrace_tests::programs::skeleton());
    let start = std::time::Instant::now();
    for _ in 0..times {
        if let Err(e) = warptrace_codegen_ptx::instrument(&ptx, &program) {
            eprintln!("instrumenting `{name}` failed: {e}");
            return ExitCode::FAILURE;
        }
    }
    eprintln!("{:?} per call", start.elapsed() / times.max(1));
    ExitCode::SUCCESS
}
