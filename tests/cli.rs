//! End-to-end tests of the `warptrace` command line (no GPU needed).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const SKELETON: &str =
    "kernel:entry /tid.x == 0 && tid.y == 0 && tid.z == 0/ { @blocks[kernel] = count(); } \
                        mem:global:load { @ldbytes[kernel] = sum(bytes); }";

fn warptrace(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_warptrace"))
        .args(args)
        .output()
        .expect("warptrace runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/corpus/ptx")
        .join(name)
}

#[test]
fn compile_prints_the_ir_of_the_skeleton_program() {
    let out = warptrace(&["compile", "-e", SKELETON, "--emit", "ir"]);
    assert!(out.status.success(), "{}", stderr(&out));
    insta::assert_snapshot!(stdout(&out));
}

#[test]
fn compile_emits_a_bundle_the_runtime_can_read() {
    let out = warptrace(&["compile", "-e", SKELETON, "--emit", "bundle"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let bundle = warptrace_ir::Bundle::from_json(&stdout(&out)).expect("valid bundle");
    assert_eq!(bundle.program.probes.len(), 2);
    assert_eq!(bundle.source, SKELETON);
}

#[test]
fn a_syntax_error_shows_location_source_line_and_underline_and_exits_2() {
    let out = warptrace(&["compile", "-e", "kernel:entry { @n = count() "]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    let mut lines = err.lines();
    let first = lines.next().unwrap_or_default();
    assert!(
        first.starts_with("stdin:1:") && first.contains("ERROR"),
        "{err}"
    );
    assert_eq!(lines.next(), Some("kernel:entry { @n = count() "), "{err}");
    assert!(lines.next().is_some_and(|l| l.contains('~')), "{err}");
}

#[test]
fn an_unknown_attach_point_lists_the_valid_ones() {
    let out = warptrace(&["compile", "-e", "kernel:start { @n = count(); }"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    for valid in ["kernel:entry", "kernel:exit", "mem:global:load"] {
        assert!(err.contains(valid), "missing {valid} in:\n{err}");
    }
}

#[test]
fn an_unknown_builtin_lists_the_valid_ones() {
    let out = warptrace(&["compile", "-e", "kernel:entry { @n[warpid] = count(); }"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("warpid"), "{err}");
    for valid in ["tid.x", "ctaid.z", "smid", "clock64", "kernel"] {
        assert!(err.contains(valid), "missing {valid} in:\n{err}");
    }
}

#[test]
fn a_probe_file_is_read_and_named_in_errors() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("bad.wt");
    std::fs::write(&file, "kernel:entry {\n  @n = sum(bytes);\n}\n").expect("write");
    let out = warptrace(&["compile", file.to_str().expect("utf-8 path")]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("bad.wt:2:"), "{err}");
    assert!(err.contains("bytes"), "{err}");
}

#[test]
fn instrument_writes_ptx_that_ptxas_assembles() {
    let Some(ptxas) = warptrace_tests::ptxas() else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    for kernel in ["triton_vector_add.ptx", "nvcc_app.ptx", "triton_matmul.ptx"] {
        let output = dir.path().join(kernel);
        let out = warptrace(&[
            "instrument",
            "--ptx",
            corpus(kernel).to_str().expect("utf-8 path"),
            "-e",
            SKELETON,
            "-o",
            output.to_str().expect("utf-8 path"),
        ]);
        assert!(out.status.success(), "{kernel}: {}", stderr(&out));
        assert!(stderr(&out).contains("instrumented"), "{}", stderr(&out));
        let text = std::fs::read_to_string(&output).expect("output written");
        assert!(text.contains("__wt_maps"), "{kernel}: no map parameter");
        let asm = Command::new(&ptxas)
            .args(["-arch=sm_90a", "-o", "/dev/null"])
            .arg(&output)
            .output()
            .expect("ptxas runs");
        assert!(
            asm.status.success(),
            "{kernel}: ptxas rejected the instrumented PTX:\n{}",
            stderr(&asm)
        );
    }
}

#[test]
fn a_program_without_cuda_runs_unchanged_under_the_runtime() {
    // The preload library must be inert for a program that never touches CUDA: same
    // output, same exit status, and a report saying nothing was instrumented.
    let out = warptrace(&[
        "-e",
        SKELETON,
        "--",
        "sh",
        "-c",
        "echo traced-output; echo to-stderr >&2; exit 3",
    ]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert_eq!(stdout(&out).lines().next(), Some("traced-output"), "{err}");
    assert!(err.contains("to-stderr"), "{err}");
    assert!(err.contains("warptrace:"), "no summary line in:\n{err}");
}

#[test]
fn running_without_a_command_explains_how() {
    let out = warptrace(&["-e", SKELETON]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("--"), "{}", stderr(&out));
}
