//! End-to-end tests of the `warptrace` command line (no GPU needed).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const SKELETON: &str =
    "kernel:entry /tid.x == 0 && tid.y == 0 && tid.z == 0/ { @blocks[kernel] = count(); } \
                        mem:global:load { @ldbytes[kernel] = sum(bytes); }";

mod cli_common;
use cli_common::{assert_traced_nothing, raw_stdout, stderr, stdout, warptrace};

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
    let out = warptrace(&["compile", "-e", "kernel:entry { @n[laneid] = count(); }"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("laneid"), "{err}");
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
    // What it traced is said, and the program's own failure is its exit status.
    assert!(
        err.contains("nothing was traced: the traced process loaded no CUDA module"),
        "{err}"
    );
}

#[test]
fn a_run_that_loads_no_cuda_module_says_so_and_fails() {
    let out = warptrace(&["-e", SKELETON, "--", "true"]);
    assert_traced_nothing(&out);
    let err = stderr(&out);
    assert!(err.contains("Is `true` a CUDA program"), "{err}");
    // The summary still comes first, so the counters are there to read.
    let summary = err.find("kernels instrumented").expect("summary line");
    assert!(
        summary < err.find("nothing was traced").expect("error"),
        "{err}"
    );
    // A host-only program runs its command without complaint.
    let host = warptrace(&["-e", "begin { @n = 1; }", "--", "true"]);
    assert!(host.status.success(), "{}", stderr(&host));
    assert!(
        !stderr(&host).contains("nothing was traced"),
        "{}",
        stderr(&host)
    );
}

/// `--max-records` and `--map-memory` reach the runtime (default 1000000 records, and no
/// `--map-memory`: the runtime takes its share of the GPU; sizes with K/M/G/T), and a bad
/// size is refused before anything runs, naming the flag.
#[test]
fn record_and_map_memory_limits_reach_the_runtime() {
    let echo = "echo $WARPTRACE_MAX_RECORDS ${WARPTRACE_MAP_MEMORY-unset}";
    let out = Command::new(env!("CARGO_BIN_EXE_warptrace"))
        .args(["-e", SKELETON, "--", "sh", "-c", echo])
        .env("WARPTRACE_MAP_MEMORY", "9")
        .output()
        .expect("runs");
    assert_eq!(
        stdout(&out).lines().next(),
        Some("1000000 unset"),
        "{}",
        stderr(&out)
    );
    let out = warptrace(&[
        "-e",
        SKELETON,
        "--max-records",
        "50",
        "--map-memory",
        "512M",
        "--",
        "sh",
        "-c",
        echo,
    ]);
    assert_eq!(
        stdout(&out).lines().next(),
        Some("50 536870912"),
        "{}",
        stderr(&out)
    );
    for bad in ["0", "12X", "1.5G", "99999999T"] {
        let out = warptrace(&["-e", SKELETON, "--map-memory", bad, "--", "true"]);
        assert_eq!(out.status.code(), Some(2), "{bad}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("--map-memory") && stderr(&out).contains("is not a size")
                || stderr(&out).contains("the unit is K, M, G or T"),
            "{bad}: {}",
            stderr(&out)
        );
    }
}

/// `warptrace verify` keeps its proofs in `proofs/` of the module cache's directory, made
/// `0700`; a directory others can write is refused with a warning, `--no-proof-cache`
/// uses none. (A host-only program on GCN: no translation obligation, so this is fast.)
#[test]
fn verify_keeps_its_proofs_only_where_no_one_else_can_write() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().expect("tempdir");
    let verify = |extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_warptrace"))
            .args(["verify", "--target", "gcn", "-e", "begin { @n = 1; }"])
            .args(extra)
            .env_remove("WARPTRACE_PROOF_CACHE")
            .env_remove("WARPTRACE_NO_CACHE")
            .env("WARPTRACE_CACHE_DIR", tmp.path())
            .output()
            .expect("runs")
    };
    let out = verify(&[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let proofs = tmp.path().join("proofs");
    let mode = std::fs::metadata(&proofs)
        .expect("made")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o700);
    assert!(!stderr(&out).contains("proof cache"), "{}", stderr(&out));
    std::fs::set_permissions(&proofs, std::fs::Permissions::from_mode(0o777)).expect("chmod");
    let out = verify(&[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("not using the proof cache")
            && stderr(&out).contains("no one else can write"),
        "{}",
        stderr(&out)
    );
    let out = verify(&["--no-proof-cache"]);
    assert!(!stderr(&out).contains("proof cache"), "{}", stderr(&out));
}

/// Every program of `tests/corpus/bpftrace/` prints, as text and as `-f json`, exactly what
/// bpftrace printed for it, its `Attaching N probes...` line included (`gen.sh` made the
/// expectations with bpftrace itself), with the positional parameters of its `.args`.
#[test]
fn host_programs_print_what_bpftrace_prints() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/bpftrace");
    let mut programs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("the corpus")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "bt"))
        .collect();
    programs.sort();
    assert!(!programs.is_empty(), "no program in {}", dir.display());
    for program in programs {
        for (format, expected) in [(None, "expected"), (Some("json"), "json.expected")] {
            let file = program.with_extension(expected);
            let want = std::fs::read_to_string(&file)
                .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            let mut args: Vec<std::ffi::OsString> = Vec::new();
            if let Some(f) = format {
                args.extend(["-f".into(), f.into()]);
            }
            args.push(program.clone().into_os_string());
            // Its positional parameters, as gen.sh gave them to bpftrace.
            if let Ok(params) = std::fs::read_to_string(program.with_extension("args")) {
                args.extend(params.split_whitespace().map(Into::into));
            }
            let out = warptrace(&args);
            assert!(
                out.status.success(),
                "{}: {}",
                program.display(),
                stderr(&out)
            );
            assert_eq!(raw_stdout(&out), want, "{} ({expected})", program.display());
        }
    }
}

/// bpftrace's command-line habits: `-c 'CMD ARGS'` runs a command split as a shell would;
/// a number after `-p` (a PID in bpftrace) and a command given without `--` are explained.
#[test]
fn bpftrace_command_line_habits_work_or_are_explained() {
    let out = warptrace(&[
        "-e",
        "begin { @n = 1; }",
        "-c",
        "sh -c 'echo ran \"$0\"' 'two words'",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).lines().next(), Some("ran two words"));
    let out = warptrace(&["-e", "begin { }", "-c", "sh -c 'unclosed"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("a quote is not closed"),
        "{}",
        stderr(&out)
    );
    let out = warptrace(&["-e", "begin { }", "-c", "true", "--", "true"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let out = warptrace(&["-p", "1234"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("in bpftrace -p takes a PID")
            && stderr(&out).contains("cannot attach to a running process"),
        "{}",
        stderr(&out)
    );
    let out = warptrace(&["-e", "kernel:entry { @n = count(); }", "./app"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains(
            "`./app` after the options is a positional parameter ($1), but the program reads none"
        ) && stderr(&out).contains("-- ./app"),
        "{}",
        stderr(&out)
    );
}

/// Positional parameters: a number is an integer, `str($N)` a string (usable with
/// `kernel ==`), one past the last is 0; a word read as a number is a located error.
#[test]
fn positional_parameters_are_read_as_bpftrace_reads_them() {
    let out = warptrace(&[
        "compile",
        "-e",
        "kernel:entry /kernel == str($2) && ntid.x == $1/ { @n[kernel] = count(); }",
        "256",
        "softmax",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("256"), "{}", stdout(&out));
    let out = warptrace(&["-e", "BEGIN { printf(\"%d\\n\", $1); exit(); }", "abc"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("stdin:1:24-26: ERROR: positional parameter $1 is `abc`, not an integer")
            && err.contains("HINT: str($1) reads it as a string"),
        "{err}"
    );
    let out = warptrace(&[
        "-e",
        "BEGIN { printf(\"[%-5s|%3s]\\n\", str($1), \"ab\"); exit(); }",
        "x%y",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stdout(&out).lines().next(),
        Some("[x%y  | ab]"),
        "{}",
        stdout(&out)
    );
}

/// `config = { print_maps_on_exit = false }` leaves the maps unprinted at exit; `print()`
/// still prints.
#[test]
fn print_maps_on_exit_off_prints_only_what_print_prints() {
    let out = warptrace(&[
        "-e",
        "config = { print_maps_on_exit = false } BEGIN { @a = 1; @b = 2; print(@b); exit(); }",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "@b: 2\n");
}

#[test]
fn launch_selection_reaches_the_runtime_and_bad_values_are_refused() {
    let out = warptrace(&[
        "-e",
        SKELETON,
        "--launch-skip",
        "3",
        "--launch-count",
        "2",
        "--sample",
        "4",
        "--",
        "sh",
        "-c",
        "echo $WARPTRACE_LAUNCH_SKIP $WARPTRACE_LAUNCH_COUNT $WARPTRACE_SAMPLE",
    ]);
    assert_eq!(
        stdout(&out).lines().next(),
        Some("3 2 4"),
        "{}",
        stderr(&out)
    );
    // Without --launch-count none is set, even if the environment had one.
    let out = Command::new(env!("CARGO_BIN_EXE_warptrace"))
        .args([
            "-e",
            SKELETON,
            "--",
            "sh",
            "-c",
            "echo ${WARPTRACE_LAUNCH_COUNT-unset} $WARPTRACE_SAMPLE",
        ])
        .env("WARPTRACE_LAUNCH_COUNT", "9")
        .output()
        .expect("runs");
    assert_eq!(
        stdout(&out).lines().next(),
        Some("unset 1"),
        "{}",
        stderr(&out)
    );
    for bad in [
        ["--sample", "0"],
        ["--launch-count", "0"],
        ["--launch-skip", "many"],
    ] {
        let out = warptrace(&["-e", SKELETON, bad[0], bad[1], "--", "true"]);
        assert_eq!(out.status.code(), Some(2), "{bad:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(bad[0]), "{bad:?}: {}", stderr(&out));
    }
}

#[test]
fn library_probes_run_by_name_and_are_listed() {
    let out = warptrace(&["compile", "-p", "block_sched"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("warp kernel:exit"),
        "{}",
        stdout(&out)
    );
    let out = warptrace(&["compile", "-p", "no_such_probe"]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(
        err.contains("no library probe named `no_such_probe`"),
        "{err}"
    );
    assert!(
        err.contains("block_sched") && err.contains("gmem_bytes"),
        "{err}"
    );
    let out = warptrace(&["compile", "-p", "blocks", "-e", "kernel:entry { }"]);
    assert!(stderr(&out).contains("one way"), "{}", stderr(&out));
    let out = warptrace(&["-l", "block*"]);
    let text = stdout(&out);
    assert!(
        text.contains("library probes (warptrace -p NAME -- cmd):"),
        "{text}"
    );
    assert!(
        text.contains("block_sched  per warp, cycles from kernel entry to exit, by SM"),
        "{text}"
    );
    assert!(!text.contains("gmem_bytes"), "{text}");
}

/// The names of the probe library (`probes/*.wt`), sorted.
fn library_names() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("probes");
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("probes/")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "wt"))
        .filter_map(|p| Some(p.file_stem()?.to_string_lossy().into_owned()))
        .collect();
    names.sort();
    names
}

#[test]
fn list_names_every_library_probe_with_its_summary() {
    let out = warptrace(&["-l"]);
    let text = stdout(&out);
    let names = library_names();
    assert!(names.len() >= 10, "{names:?}");
    for name in &names {
        assert!(
            text.lines().any(|l| l.starts_with(&format!("  {name} "))),
            "{name} is not listed:\n{text}"
        );
    }
    for line in [
        "insn_mix        PTX instructions executed per kernel, by class (memory, tensor, ALU",
        "memtrace        a typed record per global-memory access of every thread, with its \
         timestamps, SM, warp and source position",
        "warp_sched      per-warp timelines as (start, elapsed, smid, kernel) records in cycles",
    ] {
        assert!(text.contains(line), "missing {line:?} in:\n{text}");
    }
}

#[test]
fn library_certificates_admit_their_probes_by_name() {
    // The committed certificates (`probes/certs/NAME.ptx.json`, written by
    // `scripts/probe-certs.sh`; tests/tests/probe_certs.rs keeps them current) get each
    // library probe run by name past `--require-cert`.
    let certs = Path::new(env!("CARGO_MANIFEST_DIR")).join("probes/certs");
    let run = |cert: &str, name: &str| {
        let cert = certs.join(format!("{cert}.ptx.json"));
        let cert = cert.to_str().expect("UTF-8 path");
        warptrace(&[
            "--require-cert",
            cert,
            "-p",
            name,
            "--",
            "sh",
            "-c",
            "echo ran",
        ])
    };
    for name in library_names() {
        let out = run(&name, &name);
        assert_traced_nothing(&out);
        assert_eq!(
            stdout(&out).lines().next(),
            Some("ran"),
            "{name}: {}",
            stderr(&out)
        );
        assert!(
            !stderr(&out).contains("refusing"),
            "{name}: {}",
            stderr(&out)
        );
    }
    // Each certifies its own probe only.
    let refused = run("blocks", "gmem_bytes");
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert!(!stdout(&refused).contains("ran"));
    let err = stderr(&refused);
    assert!(
        err.contains("refusing to run") && err.contains("not this one"),
        "{err}"
    );
}

#[test]
fn running_without_a_command_explains_how() {
    let out = warptrace(&["-e", SKELETON]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("--"), "{}", stderr(&out));
}

/// bpftrace's histogram for the values 5 and 100, byte for byte (its `print(@x)` of a
/// log2 histogram: header, rows from the first to the last non-empty bucket, the label
/// in 16 columns, the count in 8, a 52-column bar, then a blank line).
const HIST_5_100: &str = "@x:
[4, 8)                 1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[8, 16)                0 |                                                    |
[16, 32)               0 |                                                    |
[32, 64)               0 |                                                    |
[64, 128)              1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

";

#[test]
fn begin_prints_bpftraces_histogram_byte_for_byte() {
    let out = warptrace(&["-e", "begin { @x = hist(5); @x = hist(100); print(@x); }"]);
    assert!(out.status.success(), "{}", stderr(&out));
    // print(@x) first; then, as bpftrace does when a program ends, two newlines and
    // every map again.
    assert_eq!(stdout(&out), format!("{HIST_5_100}\n\n{HIST_5_100}"));
}

/// The language reference's `print(@m); clear(@m);` (issue 38): a `print` renders the map
/// at the moment of the call, before the `clear` after it runs, as bpftrace's does.
#[test]
fn print_then_clear_prints_the_entries() {
    let out = warptrace(&[
        "-e",
        "begin { @c = 5; @h[1] = 2; @h[2] = 3; print(@c); print(@h); clear(@h); } \
         end { @e[4] = 1; print(@e); clear(@e); }",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.starts_with("@c: 5\n@h[1]: 2\n@h[2]: 3\n"),
        "begin's prints: {text:?}"
    );
    assert!(text.contains("@e[4]: 1\n"), "end's print: {text:?}");
    // Cleared before exit: the maps at exit hold nothing of what was printed.
    assert_eq!(text.matches("@h[1]: 2").count(), 1, "{text:?}");
    assert_eq!(text.matches("@e[4]: 1").count(), 1, "{text:?}");
}

#[test]
fn end_blocks_and_printf_run_on_the_host() {
    let out = warptrace(&[
        "-e",
        "begin { @n = count(); @n = count(); printf(\"begin %d\\n\", 42); } \
         end { printf(\"end\\n\"); @m[7] = sum(3); }",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "begin 42\nend\n\n\n@m[7]: 3\n@n: 2\n");
}

#[test]
fn exit_in_begin_skips_the_command() {
    let out = warptrace(&[
        "-e",
        "begin { printf(\"bye\\n\"); exit(); }",
        "--",
        "sh",
        "-c",
        "echo should-not-run",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "bye\n");
}

#[test]
fn json_output_is_ndjson() {
    let out = warptrace(&[
        "-f",
        "json",
        "-e",
        "begin { @x = hist(5); @y[1, 2] = count(); printf(\"hi %d\\n\", 5); }",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let lines: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect();
    let types: Vec<&str> = lines.iter().filter_map(|l| l["type"].as_str()).collect();
    assert_eq!(types, ["printf", "hist", "map"]);
    assert_eq!(lines[0]["data"], "hi 5\n");
    assert_eq!(lines[1]["data"]["@x"][0]["count"], 1);
    assert_eq!(lines[2]["data"]["@y"]["1,2"], 1);
}

#[test]
fn list_shows_attach_points_builtins_and_functions_with_docs() {
    let out = warptrace(&["-l"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    for section in ["attach points:", "builtins:", "functions:"] {
        assert!(text.contains(section), "{text}");
    }
    for name in [
        "kernel:entry",
        "tensor:mma",
        "clock64",
        "activemask",
        "lhist",
    ] {
        assert!(text.contains(name), "missing {name}:\n{text}");
    }
    let mem = warptrace(&["-l", "mem*"]);
    let text = stdout(&mem);
    assert!(text.starts_with("attach points:\n  mem:"), "{text}");
    assert!(!text.contains("builtins:"), "{text}");
    let none = warptrace(&["-l", "nothing-matches-this"]);
    assert!(!none.status.success());
}

#[test]
fn list_with_a_program_and_ptx_names_each_site() {
    let ptx = corpus("triton_vector_add.ptx");
    let out = warptrace(&[
        "-l",
        "-e",
        SKELETON,
        "--ptx",
        ptx.to_str().expect("utf-8 path"),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("probe 0: kernel:entry\n"), "{text}");
    assert!(text.contains("vector_add: <entry>"), "{text}");
    assert_eq!(text.matches("ld.global.v4.b32").count(), 4, "{text}");
}

/// `-l` with a program and `--gcn`: each site is named by the file's line, which holds the
/// instruction shown; a kernel's entry and every exit are listed.
#[test]
fn list_with_a_program_and_gcn_names_each_site() {
    let gcn = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/gcn/hip_kernels_gfx942.s");
    let path = gcn.to_str().expect("utf-8 path");
    let program = "kernel:entry { @n = count(); } mem:global:atomic { @a = count(); } \
                   kernel:exit { @e = count(); }";
    let out = warptrace(&["-l", "-e", program, "--gcn", path]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let file = std::fs::read_to_string(&gcn).expect("corpus");
    let source: Vec<&str> = file.lines().collect();
    let mut sites = 0;
    for l in text.lines().filter(|l| l.starts_with("  ")) {
        let rest = l
            .trim()
            .strip_prefix(&format!("{path}:"))
            .expect("file:line");
        let (line, rest) = rest.split_once(": ").expect("line: kernel: text");
        let (_, insn) = rest.split_once(": ").expect("kernel: text");
        let line: usize = line.parse().expect("a line number");
        if insn != "<entry>" {
            assert_eq!(source[line - 1].trim(), insn, "{l}");
        }
        sites += 1;
    }
    assert!(text.contains("histogram: <entry>"), "{text}");
    assert!(
        text.contains("histogram: global_atomic_add v2, v0, s[10:11] sc1"),
        "{text}"
    );
    let exits = text.matches(": s_endpgm").count();
    assert_eq!(
        exits,
        source.iter().filter(|l| l.trim() == "s_endpgm").count()
    );
    assert!(sites > exits, "{text}");
}

/// A probe file and its certificate, in a fresh directory.
fn certified(program: &str) -> (tempfile::TempDir, PathBuf, PathBuf, Output) {
    let dir = tempfile::tempdir().expect("temp dir");
    let probe = dir.path().join("probe.wt");
    std::fs::write(&probe, program).expect("write probe");
    let cert = dir.path().join("probe.cert.json");
    let out = warptrace(&[
        "verify",
        probe.to_str().expect("UTF-8 path"),
        "--cert",
        cert.to_str().expect("UTF-8 path"),
        "--ptx",
        corpus("triton_matmul.ptx").to_str().expect("UTF-8 path"),
    ]);
    (dir, probe, cert, out)
}

#[test]
fn verify_reports_every_level_and_writes_a_certificate() {
    let (_dir, _probe, cert, out) = certified(SKELETON);
    let text = stdout(&out);
    assert!(out.status.success(), "{text}{}", stderr(&out));
    assert!(text.contains("VERIFIED for ptx (sha256:"), "{text}");
    assert!(text.contains("IR rules                 9/9 hold"), "{text}");
    assert!(text.contains("kernel checks            1/1 hold"), "{text}");
    assert!(text.contains("translation validation"), "{text}");
    assert!(text.contains("value obligations"), "{text}");
    assert!(text.contains("cost of probe 1 (mem:global:load)"), "{text}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&cert).expect("certificate written"))
            .expect("JSON");
    assert_eq!(json["format"], "warptrace-certificate/1");
    assert_eq!(json["verified"], true);
    assert_eq!(json["target"], "ptx");
    let checks = json["checks"].as_array().expect("checks");
    let tv: Vec<_> = checks
        .iter()
        .filter(|c| c["level"] == "translation")
        .collect();
    assert!(tv.len() > 1000, "{} translation obligations", tv.len());
    assert!(tv.iter().all(|c| c["result"] == "proved"));
    assert!(checks.iter().any(|c| c["level"] == "kernel"
        && c["result"] == "proved"
        && c["scope"]
            .as_str()
            .is_some_and(|s| s.ends_with("triton_matmul.ptx: matmul"))));
    assert!(json["obligations"]
        .as_array()
        .expect("obligations")
        .iter()
        .all(|o| o["result"] == "proved" && o["micros"].is_u64()));
}

/// `verify` names each kernel it leaves unchanged because something is not supported,
/// with the reason — not a failed check (nothing inserted), but what a run would miss:
/// a region of `many_exits`' `if (i >= n) return;`, whose exit is inside the `if` clang
/// made of it (one that rejoins), on GCN.
#[test]
fn verify_names_the_kernels_it_leaves_unchanged_and_why() {
    let gcn = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/gcn/hip_kernels_gfx942.s");
    let region = "region:entry:gcn_kernels.hip:50-50 { @en[lane] = count(); } \
                  region:exit:gcn_kernels.hip:50-50 { @ex[lane] = count(); }";
    let out = warptrace(&[
        "verify",
        "-e",
        region,
        "--target",
        "gcn",
        "--gcn",
        gcn.to_str().expect("UTF-8 path"),
    ]);
    let text = stdout(&out);
    assert!(out.status.success(), "{text}{}", stderr(&out));
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with("not instrumented"))
        .unwrap_or_else(|| panic!("no kernel named as unchanged:\n{text}"));
    assert!(
        line.contains("hip_kernels_gfx942.s: many_exits: region:")
            && line.contains("is inside the `if`"),
        "{line}"
    );
    // Kernels without a site are not named.
    assert_eq!(text.matches("not instrumented").count(), 1, "{text}");
}

/// `verify --target gcn` checks the wait states instrumenting adds (decision 0030), not
/// the kernel's own: Triton's softmax with the `s_nop 1` LLVM put between a compare
/// writing `vcc` and the `v_cndmask` reading it removed still verifies — the hazard is
/// the kernel's, before and after — while `hazards` finds it in both modules.
/// (`added_hazards`' unit tests show a hazard the splice makes being counted.)
#[test]
fn verify_for_gcn_counts_the_wait_states_instrumenting_adds() {
    let dir = tempfile::tempdir().expect("tempdir");
    let original =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/gcn/triton_softmax_gfx942.s");
    let text = std::fs::read_to_string(&original).expect("corpus file");
    let needle = "v_cmp_gt_f32_e32 vcc, s29, v10\n\ts_nop 1\n";
    assert_eq!(text.matches(needle).count(), 1, "the corpus changed");
    let broken_text = text.replace(needle, "v_cmp_gt_f32_e32 vcc, s29, v10\n");
    assert_eq!(
        warptrace_codegen_gcn::hazards(&broken_text)
            .expect("parses")
            .len(),
        1
    );
    let broken = dir.path().join("softmax.s");
    std::fs::write(&broken, &broken_text).expect("write");
    let probe = "mem:global:load { @n[kernel] = count(); }";
    for file in [&broken, &original] {
        let out = warptrace(&[
            "verify",
            "-e",
            probe,
            "--target",
            "gcn",
            "--gcn",
            file.to_str().expect("UTF-8 path"),
        ]);
        let text = stdout(&out);
        assert!(out.status.success(), "{}: {text}", file.display());
        assert!(text.contains("kernel checks            1/1 hold"), "{text}");
    }
}

/// `verify --target gcn`: the IR rules, the proofs of the operation forms the program
/// uses on GCN, the kernel checks of each kernel of `--gcn` files and the GCN snippets'
/// cost, in the report and the certificate, nothing left unproved; `--require-cert` does
/// not take it for a PTX run, and `--ptx` does not go with `--target gcn`.
#[test]
fn verify_for_gcn_proves_every_form_used() {
    let dir = tempfile::tempdir().expect("tempdir");
    let probe = dir.path().join("p.wt");
    // A division by 3 (the counted loop, decision 0033) and the waterfalls of `sectors`
    // and `wavefronts` (decision 0031) are proved.
    let program =
        format!("{SKELETON} mem:global:load {{ @s[kernel] = sum(sectors + wavefronts / 3); }}");
    std::fs::write(&probe, program).expect("write");
    let cert = dir.path().join("gcn.json");
    let gcn = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/gcn/hip_kernels_gfx942.s");
    let path = |p: &Path| p.to_str().expect("UTF-8 path").to_owned();
    let out = warptrace(&[
        "verify",
        &path(&probe),
        "--target",
        "gcn",
        "--cert",
        &path(&cert),
        "--gcn",
        &path(&gcn),
    ]);
    let text = stdout(&out);
    assert!(out.status.success(), "{text}{}", stderr(&out));
    assert!(text.contains("VERIFIED for gcn (sha256:"), "{text}");
    assert!(text.contains("kernel checks "), "{text}");
    assert!(!text.contains("not proved"), "{text}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&cert).expect("certificate written"))
            .expect("JSON");
    assert_eq!(
        (&json["target"], &json["verified"]),
        (&"gcn".into(), &true.into())
    );
    let checks = json["checks"].as_array().expect("checks");
    let tv: Vec<&str> = checks
        .iter()
        .filter(|c| c["level"] == "translation" && c["result"] == "proved")
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert!(tv.contains(&"bin.eq.64.reg.imm.0"), "{tv:?}");
    assert!(tv.contains(&"bin.div.u.64.reg.imm.3"), "{tv:?}");
    assert!(tv.iter().any(|n| n.starts_with("hash.")), "{tv:?}");
    for proved in [
        "sreg.tid.y",
        "site.bytes.global_load_ubyte",
        "site.sectors.global_load_ubyte",
        "site.wavefronts.global_atomic_add",
    ] {
        assert!(tv.contains(&proved), "{proved} in {tv:?}");
    }
    assert!(
        checks.iter().any(|c| c["level"] == "kernel"
            && c["scope"]
                .as_str()
                .is_some_and(|s| s.ends_with(": histogram"))),
        "{checks:?}"
    );
    assert!(
        json["not_proved"].as_array().is_none_or(Vec::is_empty),
        "{}",
        json["not_proved"]
    );
    // The cost is the GCN snippets' (decision 0029): each waterfall runs up to 64
    // rounds, which an IR-weight estimate (about 70 instructions) does not see.
    let costs = json["costs"].as_array().expect("costs");
    let sectors = costs[2]["device_insns"].as_u64().expect("a count");
    assert!(sectors > 600, "{costs:?}");
    let line = text
        .lines()
        .find(|l| l.contains("cost of probe 2"))
        .unwrap_or_else(|| panic!("no cost of probe 2:\n{text}"));
    assert!(
        line.contains(&format!("at most {sectors} device instructions"))
            && line.contains("at the sites of the files checked"),
        "{line}"
    );
    // A GCN certificate is not a PTX one.
    let refused = warptrace(&["--require-cert", &path(&cert), &path(&probe), "--", "true"]);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    // `--ptx` files are checked by the PTX back end.
    let mixed = warptrace(&[
        "verify",
        &path(&probe),
        "--target",
        "gcn",
        "--ptx",
        &path(&corpus("triton_matmul.ptx")),
    ]);
    assert!(!mixed.status.success());
    assert!(
        stderr(&mixed).contains("verify it with --target ptx"),
        "{}",
        stderr(&mixed)
    );
}

#[test]
fn require_cert_admits_the_certified_program_and_refuses_others() {
    let (dir, probe, cert, out) = certified(SKELETON);
    assert!(out.status.success(), "{}", stderr(&out));
    let cert = cert.to_str().expect("UTF-8 path");
    let run = |probe: &Path| {
        warptrace(&[
            "--require-cert",
            cert,
            probe.to_str().expect("UTF-8 path"),
            "--",
            "sh",
            "-c",
            "echo ran",
        ])
    };
    let ok = run(&probe);
    assert_traced_nothing(&ok);
    assert_eq!(stdout(&ok).lines().next(), Some("ran"));

    // A different program (one more probe) is refused before anything runs.
    let other = dir.path().join("other.wt");
    std::fs::write(
        &other,
        format!("{SKELETON} kernel:exit {{ @e = count(); }}"),
    )
    .expect("write");
    let refused = run(&other);
    assert_eq!(refused.status.code(), Some(2));
    assert!(!stdout(&refused).contains("ran"));
    let err = stderr(&refused);
    assert!(
        err.contains("refusing to run") && err.contains("not this one"),
        "{err}"
    );

    // A certificate edited to claim what was not proved is refused too.
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(cert).expect("read")).expect("JSON");
    json["obligations"][0]["result"] = "unknown".into();
    json["obligations"][0]["reason"] = "timeout".into();
    std::fs::write(cert, json.to_string()).expect("write");
    let tampered = run(&probe);
    assert_eq!(tampered.status.code(), Some(2));
    assert!(
        stderr(&tampered).contains("records a failure"),
        "{}",
        stderr(&tampered)
    );
}

#[test]
fn instrument_combines_warp_uniform_updates_unless_turned_off() {
    let program = "mem:global:load { @c[kernel] = count(); @s[kernel] = sum(tid.x); }";
    let ptx = corpus("nvcc_app.ptx");
    // `warptrace instrument -e PROGRAM FLAG FILE`'s output, combining turned off or not.
    let instrument = |flag: &str, file: &Path, off: bool| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_warptrace"));
        cmd.args(["instrument", "-e", program, flag]).arg(file);
        if off {
            cmd.env("WARPTRACE_NO_WARP_COMBINE", "1");
        } else {
            cmd.env_remove("WARPTRACE_NO_WARP_COMBINE");
        }
        let out = cmd.output().expect("warptrace runs");
        assert!(out.status.success(), "{}", stderr(&out));
        stdout(&out)
    };
    let run = |off: bool| instrument("--ptx", &ptx, off);
    let on = run(false);
    assert!(on.contains("warp-combined count") && on.contains("redux.sync.add.u32"));
    // Its maps accumulate: the buffer a launch needs is several copies of the tables
    // (decision 0019), and the tool says so; a ring's too (spread over copies); a ring
    // beside a table keeps one copy.
    let says = |program: &str| {
        let out = warptrace(&["instrument", "-e", program, "--ptx", &ptx.to_string_lossy()]);
        assert!(out.status.success(), "{}", stderr(&out));
        let e = stderr(&out);
        e.contains("copies of its") && e.contains("updates copy ctaid.x mod")
    };
    assert!(says(program));
    assert!(says("mem:global:load { @r = (addr, bytes); }"));
    assert!(!says(
        "mem:global:load { @r = (addr, bytes); @n[kernel] = count(); }"
    ));
    let off = run(true);
    assert!(!off.contains("warp-combined") && !off.contains("activemask"));
    // GCN (decision 0036): `@c[kernel]` once per wave, by the lowest lane of `exec` with
    // the lanes' count (`s_bcnt1`); `sum(tid.x)`, a per-lane operand, per lane either way.
    let gcn = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/gcn/hip_kernels_gfx942.s");
    let original = std::fs::read_to_string(&gcn).expect("read");
    let counts = |off: bool| {
        let added = |text: &str| text.matches("s_bcnt1_i32_b64").count();
        let asm = instrument("--gcn", &gcn, off);
        (
            added(&asm) - added(&original),
            asm.matches("; __wt_snippet ").count(),
        )
    };
    let (combined, snippets) = counts(false);
    assert!(snippets > 1 && combined > 0, "{combined} of {snippets}");
    assert_eq!(counts(true).0, 0);
}

#[test]
fn output_dir_is_created_and_holds_a_table_per_map() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("new/results");
    let trace = dir.path().join("traces/t.json");
    let o = out.to_string_lossy();
    let t = trace.to_string_lossy();
    let run = warptrace(&[
        "-e",
        "begin { @x = hist(5); @y[1, 2] = count(); }",
        "-o",
        &o,
        "--trace",
        &t,
    ]);
    assert!(run.status.success(), "{}", stderr(&run));
    // stdout is unchanged by -o: the maps as bpftrace prints them.
    assert!(stdout(&run).contains("@y[1, 2]: 1"), "{}", stdout(&run));
    let read = |f: &str| std::fs::read_to_string(out.join(f)).unwrap_or_default();
    assert_eq!(read("x.csv"), "min,max,count\n4,7,1\n");
    assert_eq!(read("y.csv"), "key0,key1,count\n1,2,1\n");
    let index: serde_json::Value = serde_json::from_str(&read("index.json")).expect("index");
    let files: Vec<&str> = index["files"]
        .as_array()
        .expect("files")
        .iter()
        .filter_map(|f| f["file"].as_str())
        .collect();
    assert_eq!(files, ["x.csv", "y.csv", "summary.json", "index.json"]);
    let summary: serde_json::Value = serde_json::from_str(&read("summary.json")).expect("summary");
    assert_eq!(summary["pids"], serde_json::json!([]), "no command ran");
    // No timing map: an empty trace, and a warning that says what one looks like.
    let empty: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&trace).expect("trace")).expect("JSON");
    assert_eq!(empty["traceEvents"], serde_json::json!([]));
    let err = stderr(&run);
    assert!(err.contains("4 files written to"), "{err}");
    assert!(err.contains("no map holds timing records"), "{err}");
}

#[test]
fn a_bad_output_path_fails_before_the_command_runs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("results.txt");
    std::fs::write(&file, "keep").expect("write");
    let f = file.to_string_lossy();
    let d = dir.path().to_string_lossy();
    for flags in [["-o", &*f], ["--trace", &*d]] {
        let out = warptrace(&[
            "-e", SKELETON, flags[0], flags[1], "--", "sh", "-c", "echo ran",
        ]);
        assert_eq!(out.status.code(), Some(1), "{flags:?}: {}", stderr(&out));
        assert!(!stdout(&out).contains("ran"), "{flags:?}: the command ran");
        let err = stderr(&out);
        let want = if flags[0] == "-o" {
            format!(
                "warptrace: error: bad --output-dir: {} exists and is not a directory",
                file.display()
            )
        } else {
            format!(
                "warptrace: error: bad --trace: {} is a directory",
                dir.path().display()
            )
        };
        assert!(err.starts_with(&want), "{flags:?}: {err}");
    }
    assert_eq!(std::fs::read_to_string(&file).expect("read"), "keep");
    let out = warptrace(&["-e", SKELETON, "--clock-mhz", "0", "--", "true"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--clock-mhz"), "{}", stderr(&out));
}

/// A C program that forks a child which exits normally, then forks and execs `true`:
/// three processes, each of which writes its report at exit. It prints the pids.
const FORKS: &str = r#"
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
int main(void) {
    fflush(stdout);
    pid_t forked = fork();
    if (forked == 0) exit(0);
    waitpid(forked, 0, 0);
    pid_t execd = fork();
    if (execd == 0) { execlp("true", "true", (char *)0); _exit(127); }
    waitpid(execd, 0, 0);
    printf("%d %d %d\n", (int)getpid(), (int)forked, (int)execd);
    return 0;
}
"#;

#[test]
fn children_report_and_the_merged_output_names_every_pid() {
    let dir = tempfile::tempdir().expect("tempdir");
    let src = dir.path().join("forks.c");
    let exe = dir.path().join("forks");
    std::fs::write(&src, FORKS).expect("write");
    let cc = Command::new("cc").arg(&src).arg("-o").arg(&exe).status();
    if !cc.is_ok_and(|s| s.success()) {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "no C compiler (CI=true)"
        );
        eprintln!("=== SKIPPED: no working `cc` ===");
        return;
    }
    let out_dir = dir.path().join("out");
    let (e, o) = (exe.to_string_lossy(), out_dir.to_string_lossy());
    let run = warptrace(&["-f", "json", "-e", SKELETON, "-o", &o, "--", &e]);
    let err = stderr(&run);
    assert!(
        !err.contains("cannot find libwarptrace_preload.so"),
        "build the runtime library first: cargo build -p warptrace-preload\n{err}"
    );
    assert_traced_nothing(&run);
    assert!(
        err.contains("none of the 3 traced processes loaded a CUDA module"),
        "{err}"
    );
    let text = stdout(&run);
    let mut lines = text.lines();
    let mut pids: Vec<u64> = lines
        .next()
        .unwrap_or_default()
        .split(' ')
        .filter_map(|p| p.parse().ok())
        .collect();
    assert_eq!(pids.len(), 3, "{text}");
    pids.sort_unstable();
    // -f json ends with a summary record naming each process.
    let last = text.lines().last().unwrap_or_default();
    let record: serde_json::Value = serde_json::from_str(last).expect("NDJSON");
    assert_eq!(record["type"], "summary", "{text}");
    assert_eq!(
        record["data"]["pids"],
        serde_json::json!(pids),
        "{text}\n{err}"
    );
    let per_process: Vec<u64> = record["data"]["processes"]
        .as_array()
        .expect("processes")
        .iter()
        .filter_map(|p| p["pid"].as_u64())
        .collect();
    assert_eq!(per_process, pids);
    // summary.json says the same.
    let summary: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out_dir.join("summary.json")).expect("summary.json"),
    )
    .expect("JSON");
    assert_eq!(summary["pids"], serde_json::json!(pids));
    assert_eq!(summary["processes"].as_array().map(Vec::len), Some(3));
}

/// `--dmat`: a map without access records is refused before the command runs, a
/// directory is no file, and a run without records says the PNG was not written.
#[test]
fn dmat_png_is_checked_before_the_run() {
    let dir = tempfile::tempdir().expect("tempdir");
    let png = dir.path().join("sub/d.png");
    let p = png.to_string_lossy();
    let marker = dir.path().join("ran");
    let touch = format!("touch {}", marker.display());
    let out = warptrace(&[
        "--dmat",
        &p,
        "-e",
        "mem:global:* { @r = (addr, kernel); }",
        "--",
        "sh",
        "-c",
        &touch,
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("bad --dmat: no ring or array map @dmat in the program (its record maps: @r)"),
        "{err}"
    );
    assert!(!marker.exists(), "refused before the command ran");
    let out = warptrace(&[
        "--dmat",
        &p,
        "--dmat-map",
        "r",
        "-e",
        "mem:global:* { @r = (addr, kernel); }",
        "--",
        "true",
    ]);
    assert!(
        stderr(&out).contains("@r's records are not access records"),
        "{}",
        stderr(&out)
    );
    let d = dir.path().to_string_lossy();
    let out = warptrace(&["--dmat", &d, "-p", "dmat", "--", "true"]);
    assert!(
        stderr(&out).contains("bad --dmat:") && stderr(&out).contains("is a directory"),
        "{}",
        stderr(&out)
    );
    let out = warptrace(&["--dmat", &p, "-p", "dmat", "--", "true"]);
    assert_traced_nothing(&out);
    assert!(
        stderr(&out).contains("d.png not written: @dmat holds no records"),
        "{}",
        stderr(&out)
    );
    assert!(!png.exists());
}

/// `instrument --gcn` writes the instrumented assembly and each kernel's outcome; with
/// `--code-object` it assembles and links it for the file's `.amdgcn_target` — Triton's
/// matmul with three map updates and two divisions at each access only with two of its
/// branches made long (decision 0032), which it reports — and the code object's notes
/// carry the map argument. Without `--code-object` the text is the same (assembled to
/// find the long branches), and `verify` checks the kernel with them.
#[test]
fn instrument_gcn_writes_the_assembly_and_the_code_object() {
    let missing: Vec<&str> = ["llvm-mc", "ld.lld", "llvm-readelf"]
        .into_iter()
        .filter(|t| warptrace_codegen_gcn::llvm_tool(t).is_none())
        .collect();
    if !missing.is_empty() {
        assert!(
            std::env::var("CI").map_or(true, |v| v != "true"),
            "{missing:?} not found (CI=true); install llvm-19 and lld-19"
        );
        eprintln!("SKIPPED: {missing:?} not found");
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let gcn = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/gcn");
    let (asm, hsaco) = (dir.path().join("out.s"), dir.path().join("out.hsaco"));
    let path = |p: &Path| p.to_str().expect("UTF-8 path").to_owned();
    let heavy = "mem:*:* { @d[kernel] = sum(bytes / 3 + (u64)((i64)lane % -5)); \
                 @a[addr] = count(); @m[activemask] = max(bytes); }";
    let matmul = path(&gcn.join("triton_matmul_gfx90a.s"));
    let out = warptrace(&[
        "instrument",
        "-e",
        heavy,
        "--gcn",
        &matmul,
        "-o",
        &path(&asm),
        "--code-object",
        &path(&hsaco),
    ]);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("matmul: instrumented, 68 probe sites"),
        "{err}"
    );
    assert!(err.contains("matmul:   2 branches made long"), "{err}");
    let text = std::fs::read_to_string(&asm).expect("assembly written");
    assert_eq!(text.matches("\ts_setpc_b64 ").count(), 2);
    // The map argument: 8 more bytes of kernarg after the original's, 8-aligned.
    let original = std::fs::read_to_string(gcn.join("triton_matmul_gfx90a.s")).expect("read");
    let size = warptrace_codegen_gcn::parse(&original)
        .expect("parses")
        .metadata
        .and_then(|m| m.kernel("matmul")?.int(".kernarg_segment_size"))
        .expect("kernarg size");
    let notes = warptrace_codegen_gcn::notes(&std::fs::read(&hsaco).expect("code object"))
        .expect("llvm-readelf");
    let grown = format!(".kernarg_segment_size: {}", size.next_multiple_of(8) + 8);
    assert!(notes.contains(&grown), "{grown}:\n{notes}");
    // Without --code-object: the same assembly to stdout, long branches included (it is
    // assembled to find them), so that what is written assembles.
    let out = warptrace(&["instrument", "-e", heavy, "--gcn", &matmul]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("matmul:   2 branches made long"));
    assert_eq!(stdout(&out), text);
    // `verify` checks the kernel as loaded: with its long branches.
    let out = warptrace(&["verify", "--target", "gcn", "-e", heavy, "--gcn", &matmul]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("matmul: checked with 2 long branches"),
        "{}",
        stderr(&out)
    );
    // A kernel whose tables accumulate spreads its workgroups over copies of them
    // (decision 0019 on GCN, 0035), and the tool says what to allocate.
    let accumulating = "map @n: hash(keys = 64); kernel:entry { @n[kernel] = count(); }";
    let out = warptrace(&["instrument", "-e", accumulating, "--gcn", &matmul]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("matmul:   its map buffer holds 32 copies of its"),
        "{}",
        stderr(&out)
    );
    // A processor LLVM 19 cannot assemble for: the instrumented text all the same, and
    // why it was not assembled; no code object.
    let gfx950 = dir.path().join("gfx950.s");
    let grid = std::fs::read_to_string(gcn.join("hip_grid_gfx942.s")).expect("read");
    std::fs::write(&gfx950, grid.replace("gfx942", "gfx950")).expect("write");
    let count = "kernel:entry { @n = count(); }";
    let out = warptrace(&["instrument", "-e", count, "--gcn", &path(&gfx950)]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("; __wt_snippet 1\n"));
    assert!(
        stderr(&out).contains("warptrace: not assembled (`llvm-mc` failed: 'gfx950'"),
        "{}",
        stderr(&out)
    );
    let args = [
        "instrument",
        "-e",
        count,
        "--gcn",
        &path(&gfx950),
        "--code-object",
    ];
    let out = warptrace(&[&args[..], &[&path(&hsaco)]].concat());
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("cannot build a code object"),
        "{}",
        stderr(&out)
    );
    // A file without a target cannot be assembled, and says so.
    let bare = dir.path().join("bare.s");
    std::fs::write(&bare, "\t.text\n").expect("write");
    let out = warptrace(&[
        "instrument",
        "-e",
        "kernel:entry { @n = count(); }",
        "--gcn",
        &path(&bare),
        "--code-object",
        &path(&hsaco),
    ]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("has no `.amdgcn_target`"),
        "{}",
        stderr(&out)
    );
}

/// `--dry-run` compiles, verifies and prints what a run prints first, and runs nothing:
/// neither `begin` nor the command. `-d STAGE` prints a stage of the compile instead.
#[test]
fn dry_run_and_debug_stages_run_nothing() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let marker = dir.path().join("ran");
    let touch = format!("touch {}", marker.display());
    let program = "kernel:entry { @n[kernel] = count(); } begin { printf(\"begin ran\\n\"); }";
    let out = warptrace(&["--dry-run", "-e", program, "--", "sh", "-c", &touch]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(raw_stdout(&out), "Attaching 2 probes...\n");
    assert!(
        stderr(&out).contains("dry run: the program compiles and verifies; nothing was run"),
        "{}",
        stderr(&out)
    );
    assert!(!marker.exists(), "the command ran");
    let out = warptrace(&["--dry-run", "-f", "json", "-e", program]);
    assert_eq!(
        raw_stdout(&out),
        "{\"type\": \"attached_probes\", \"data\": {\"probes\": 2}}\n"
    );
    // A program that does not compile fails a dry run too.
    let out = warptrace(&["--dry-run", "-e", "kernel:entry { @n = count(; }"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));

    // -d ir is the IR `compile` prints; -d ptx the instrumented file.
    let ir = warptrace(&["-d", "ir", "-e", program, "--", "sh", "-c", &touch]);
    let compiled = warptrace(&["compile", "-e", program]);
    assert!(ir.status.success(), "{}", stderr(&ir));
    assert_eq!(raw_stdout(&ir), raw_stdout(&compiled));
    let bundle = warptrace(&["-d", "bundle", "-e", program]);
    assert!(
        raw_stdout(&bundle).contains("\"format\""),
        "{}",
        raw_stdout(&bundle)
    );
    let ptx = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/ptx/triton_vector_add.ptx");
    let ptx = ptx.to_string_lossy();
    let out = warptrace(&["-d", "ptx", "--ptx", &ptx, "-e", program]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(raw_stdout(&out).contains("__wt_maps"), "not instrumented");
    assert!(
        stderr(&out).contains("vector_add: instrumented, 1 probe sites"),
        "{}",
        stderr(&out)
    );
    assert!(!marker.exists(), "the command ran");
    let out = warptrace(&["-d", "ptx", "-e", program]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("give it with --ptx FILE"),
        "{}",
        stderr(&out)
    );
    let out = warptrace(&["--ptx", &ptx, "-e", program, "--", "true"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("--ptx goes with -l"),
        "{}",
        stderr(&out)
    );
}

/// `-l` with a concrete glob lists the attach points it spells, as bpftrace's `-l
/// 'kprobe:vfs_*'` lists probes; a glob that matches nothing is an error.
#[test]
fn list_takes_concrete_globs() {
    let out = warptrace(&["-l", "mem:global:*"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let names: Vec<&str> = text
        .lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(
        names,
        [
            "mem:global:load",
            "mem:global:store",
            "mem:global:atomic",
            "mem:global:async",
            "mem:global:*"
        ],
        "{text}"
    );
    let out = warptrace(&["-l", "ptx:ld.*"]);
    assert!(
        stdout(&out).contains("ptx:ld.*  PTX instructions whose opcode matches the glob"),
        "{}",
        stdout(&out)
    );
    let out = warptrace(&["-l", "mem:nowhere:*"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("nothing matches `mem:nowhere:*`"),
        "{}",
        stderr(&out)
    );
}

/// `--db FILE` appends each run to an SQLite analysis database (`docs/analysis-db.md`),
/// and `-o DIR` writes `DIR/run.db` beside the tables.
#[test]
fn runs_append_to_the_analysis_database() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("runs.db");
    let db_arg = db.to_string_lossy().into_owned();
    let program = "BEGIN { @ops[\"load\"] = count(); @ops[\"load\"] = count(); @ops[\"store\"] = count(); @h = hist(100); exit(); }";
    for _ in 0..2 {
        let out = warptrace(&["--db", &db_arg, "-e", program]);
        assert!(out.status.success(), "{}", stderr(&out));
        assert!(
            stderr(&out).contains("written to the analysis database"),
            "{}",
            stderr(&out)
        );
    }
    let out_dir = dir.path().join("out");
    let out = warptrace(&["-o", &out_dir.to_string_lossy(), "-e", program]);
    assert!(out.status.success(), "{}", stderr(&out));
    for (file, runs) in [(db, 2), (out_dir.join("run.db"), 1)] {
        let c = rusqlite::Connection::open(&file).expect("opens");
        let n: i64 = c
            .query_row("SELECT count(*) FROM run", [], |r| r.get(0))
            .expect("runs");
        assert_eq!(n, runs, "{}", file.display());
        let mut st = c
            .prepare(
                "SELECT key, value FROM map_values WHERE run = 1 AND map = '@ops' ORDER BY key",
            )
            .expect("query");
        let got: Vec<(String, i64)> = st
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .expect("rows")
            .collect::<Result<_, _>>()
            .expect("rows");
        assert_eq!(got, [("load".to_string(), 2), ("store".to_string(), 1)]);
        let buckets: i64 = c
            .query_row(
                "SELECT count FROM hist_buckets WHERE run = 1 AND map = '@h' AND lo = 64",
                [],
                |r| r.get(0),
            )
            .expect("the bucket of 100");
        assert_eq!(buckets, 1);
    }
}
