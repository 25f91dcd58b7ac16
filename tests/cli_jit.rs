//! The JIT budget at the command line (decision 0045): `warptrace instrument` refuses a
//! kernel whose instrumented form is predicted to cost the JIT too much, says so with the
//! figures and the flag that changes it, and with `--assemble` measures both forms.

use std::path::{Path, PathBuf};

// Shared with the other command-line tests; not every helper is used here.
#[allow(dead_code)]
mod cli_common;
use cli_common::{stderr, warptrace};

fn corpus(dir: &str, name: &str) -> String {
    let p: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/corpus")
        .join(dir)
        .join(name);
    p.to_string_lossy().into_owned()
}

/// `warptrace instrument -p PROBE --ptx PTX -o /dev/null EXTRA…`.
fn instrument(ptx: &str, probe: &str, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["instrument", "-p", probe, "--ptx", ptx, "-o", "/dev/null"];
    args.extend_from_slice(extra);
    warptrace(&args)
}

#[test]
fn instrument_refuses_a_kernel_over_the_jit_budget_and_says_how_to_change_it() {
    // CCCL's DeviceSelect sweep and DeviceScan kernels with `features`: over the budget;
    // its reductions: within it.
    let cccl = corpus("hostile", "cccl_algorithms.ptx");
    let out = instrument(&cccl, "features", &[]);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    let line = |kernel: &str| -> &str {
        err.lines()
            .find(|l| l.starts_with("warptrace: _ZN") && l.contains(kernel) && !l.contains("   "))
            .unwrap_or_else(|| panic!("no line for {kernel}:\n{err}"))
    };
    let sweep = line("DeviceSelectSweepKernel");
    assert!(
        sweep.contains(": over the JIT budget, left unchanged: predicted ptxas"),
        "{sweep}"
    );
    assert!(sweep.contains("the budget (--jit-budget) is 4×"), "{sweep}");
    let reduce = line("18DeviceReduceKernel");
    assert!(
        reduce.contains(": instrumented, 71 probe sites"),
        "{reduce}"
    );
    assert!(err.contains("JIT: predicted ptxas"), "{err}");

    // No budget instruments it.
    let out = instrument(&cccl, "features", &["--jit-budget", "off"]);
    let err = stderr(&out);
    assert!(!err.contains("over the JIT budget"), "{err}");
    let sweep = err
        .lines()
        .find(|l| l.contains("DeviceSelectSweepKernel") && l.contains(": instrumented, "));
    assert!(sweep.is_some(), "{err}");
}

#[test]
fn a_bad_jit_budget_is_a_located_usage_error() {
    let ptx = corpus("ptx", "triton_vector_add.ptx");
    let out = instrument(&ptx, "blocks", &["--jit-budget", "0.5"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("--jit-budget"), "{err}");
    assert!(err.contains("a number ≥ 1, e.g. `4`) or `off`"), "{err}");
}

#[test]
fn assemble_measures_both_forms_beside_the_prediction() {
    if warptrace_tests::ptxas().is_none() {
        return;
    }
    let ptx = corpus("ptx", "triton_softmax.ptx");
    let out = instrument(&ptx, "insn_mix", &["--assemble"]);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    let figures = |prefix: &str| -> (f64, f64) {
        let line = err
            .lines()
            .find(|l| l.starts_with(prefix))
            .unwrap_or_else(|| panic!("no `{prefix}` line:\n{err}"));
        let secs: Vec<f64> = line
            .split_whitespace()
            .collect::<Vec<_>>()
            .windows(2)
            .filter(|w| w[1] == "s" || w[1] == "s,")
            .filter_map(|w| w[0].parse().ok())
            .collect();
        assert_eq!(secs.len(), 2, "{line}");
        (secs[0], secs[1])
    };
    let measured = figures("warptrace: module: ptxas measured");
    let predicted = figures("warptrace: module: ptxas predicted");
    // ptxas really ran on both, and the instrumented form took longer.
    assert!(measured.0 > 0.0 && measured.1 > measured.0, "{err}");
    assert!(predicted.1 > predicted.0, "{err}");
}

#[test]
fn counting_sites_are_grouped_and_flash_attention_fits_the_default_budget() {
    // Decision 0048: `insn_mix`'s 2,431 sites on Triton's flash attention are a snippet per
    // straight-line piece, which brings the kernel within the default budget (it was
    // refused with a snippet per site: predicted 4.68 s against 0.18 s plain).
    let ptx = corpus("ptx", "triton_flash_attn_fwd.ptx");
    let out = instrument(&ptx, "insn_mix", &[]);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(!err.contains("over the JIT budget"), "{err}");
    assert!(
        err.contains("flash_attn_fwd: instrumented, 2431 probe sites"),
        "{err}"
    );
    let grouped = err
        .lines()
        .find_map(|l| l.split("its 2431 sites in ").nth(1))
        .unwrap_or_else(|| panic!("no grouping line:\n{err}"));
    let snippets: u32 = grouped
        .split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{grouped}"));
    assert!(snippets < 2431 / 10, "{snippets} snippets");
    // A probe that writes a map at every site keeps a snippet per site.
    let out = instrument(&ptx, "gmem_bytes", &[]);
    let err = stderr(&out);
    assert!(!err.contains(" snippets: "), "{err}");
}

#[test]
fn verify_of_a_raw_probe_file_judges_its_kernels_as_a_run_does() {
    // NEUTRINO's `load_addresses` at each of the FIR's 1,536 loads is over the default
    // budget: a run leaves that kernel unchanged, so `verify` must not call it accepted.
    let toml = corpus("accept/raw", "load_addresses.toml");
    let ptx = corpus("jit", "nvcc_unrolled.ptx");
    let out = warptrace(&["verify", &toml, "--ptx", &ptx]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let fir = text
        .lines()
        .find(|l| l.contains("_Z3firPKfPfi"))
        .unwrap_or_else(|| panic!("no line for the FIR:\n{text}{}", stderr(&out)));
    assert!(
        fir.contains(": OverBudget (unchanged: predicted ptxas"),
        "{fir}"
    );
    assert!(text.contains("_Z9sgemm_8x8PKfS0_Pfi: Accepted"), "{text}");
}

#[test]
fn a_mem_probe_that_attaches_nowhere_names_the_point_that_would() {
    // Triton's pipelined matmul reads global memory only through `cp.async`.
    let ptx = corpus("ptx", "triton_matmul_pipelined.ptx");
    let program = "mem:global:load { @b[kernel] = sum(bytes); }";
    let out = warptrace(&[
        "instrument",
        "-e",
        program,
        "--ptx",
        &ptx,
        "-o",
        "/dev/null",
    ]);
    let err = stderr(&out);
    assert!(
        err.contains("matmul:   `mem:global:load` attaches nowhere; `mem:global:async` would, at 48 instructions"),
        "{err}"
    );
    let out = warptrace(&["-l", "-e", program, "--ptx", &ptx]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        text.contains("(attaches nowhere in ")
            && text.contains("; `mem:global:async` would, at 48 instructions)"),
        "{text}"
    );
}
