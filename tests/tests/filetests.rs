//! Filetests: what each stage of the pipeline makes of an input kept as data, as
//! Cranelift's `filetests` and bpftrace's codegen tests keep theirs. Every
//! `tests/filetests/STAGE/NAME.wt` is a probe program; `NAME.expected` beside it is the
//! stage's output for it, compared byte for byte:
//!
//! - `lang`: the IR the front end lowers the program to (`warptrace compile`'s text);
//! - `ptx`: the program's first line is `// ptx: FILE`, a module of `tests/corpus/ptx/`;
//!   the output is each kernel's status (`// kernel NAME: …`, the violations under a
//!   rejected one) and then the instrumented module, as `warptrace instrument` writes it;
//! - `gcn`: likewise with `// gcn: FILE` of `tests/corpus/gcn/`.
//!
//! A program that does not compile (or, past `lang`, does not verify) is expected to
//! say so: its rendered diagnostics are the output. `BLESS=1 cargo test -p
//! warptrace-tests --test filetests` writes every `.expected` anew from what the stages
//! make now (review the diff); under `CI=true` blessing is refused, so a run in CI only
//! compares.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use warptrace_codegen_ptx::KernelStatus;

/// The stages, each a folder of `tests/filetests/`.
const STAGES: &[&str] = &["lang", "ptx", "gcn"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("filetests")
}

/// The output of `stage` for the program `source` (named `name`).
fn run(stage: &str, name: &str, source: &str) -> Result<String, String> {
    let program = match warptrace_lang::compile(source, name) {
        Ok(p) => p,
        Err(e) => return Ok(e.render()),
    };
    if stage == "lang" {
        return Ok(program.to_string());
    }
    let verified = match warptrace_verifier::verify_program(&program) {
        Ok(v) => v,
        Err(e) => return Ok(format!("// the verifier rejected the program:\n{e}\n")),
    };
    let input = source
        .lines()
        .next()
        .and_then(|l| l.strip_prefix(&format!("// {stage}: ")))
        .ok_or_else(|| format!("{name}: the first line must be `// {stage}: FILE`"))?
        .trim();
    let mut out = String::new();
    let say = |out: &mut String, kernel: &str, status: &KernelStatus| {
        let _ = match status {
            KernelStatus::Instrumented { sites } => {
                writeln!(out, "// kernel {kernel}: instrumented, {sites} sites")
            }
            KernelStatus::NoSites => writeln!(out, "// kernel {kernel}: no sites"),
            KernelStatus::Unsupported { what } => {
                writeln!(out, "// kernel {kernel}: unsupported: {what}")
            }
            KernelStatus::OverBudget { why } => {
                writeln!(out, "// kernel {kernel}: over budget: {why}")
            }
            KernelStatus::Rejected(errors) => {
                let _ = writeln!(out, "// kernel {kernel}: rejected:");
                errors.0.iter().try_for_each(|v| writeln!(out, "//   {v}"))
            }
        };
    };
    let text = match stage {
        "ptx" => {
            let module = warptrace_tests::corpus_file(input);
            let result =
                warptrace_codegen_ptx::instrument_within(&module, &verified, &Default::default())
                    .map_err(|e| format!("{name}: {input}: {e}"))?;
            for k in &result.kernels {
                say(&mut out, &k.name, &k.status);
            }
            result.ptx
        }
        "gcn" => {
            let module = warptrace_tests::gcn_corpus_file(input);
            let result = warptrace_codegen_gcn::instrument(&module, &verified)
                .map_err(|e| format!("{name}: {input}: {e}"))?;
            for k in &result.kernels {
                say(&mut out, &k.name, &k.status);
            }
            result.asm
        }
        other => return Err(format!("no stage `{other}`")),
    };
    out.push_str(&text);
    Ok(out)
}

/// Every `.wt` of `stage`'s folder, sorted.
fn inputs(stage: &str) -> Vec<PathBuf> {
    let dir = root().join(stage);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "wt"))
        .collect();
    files.sort();
    files
}

/// The first line at which `a` and `b` differ, both sides shown.
fn first_difference(a: &str, b: &str) -> String {
    let (mut x, mut y) = (a.lines(), b.lines());
    for n in 1.. {
        match (x.next(), y.next()) {
            (Some(l), Some(r)) if l == r => continue,
            (l, r) => {
                return format!(
                    "line {n}:\n  expected: {}\n  now:      {}",
                    l.unwrap_or("<end of file>"),
                    r.unwrap_or("<end of file>")
                )
            }
        }
    }
    unreachable!("an endless iterator")
}

#[test]
fn every_filetest_is_what_its_stage_makes_now() {
    let bless = std::env::var_os("BLESS").is_some_and(|v| v == "1");
    assert!(
        !(bless && std::env::var_os("CI").is_some_and(|v| v == "true")),
        "BLESS=1 under CI=true: expected outputs are blessed by hand, never in CI"
    );
    let mut failures = Vec::new();
    let mut count = 0;
    for stage in STAGES {
        let files = inputs(stage);
        assert!(!files.is_empty(), "tests/filetests/{stage}/ holds no .wt");
        for path in files {
            count += 1;
            let name = format!(
                "tests/filetests/{stage}/{}",
                path.file_name().expect("file").to_string_lossy()
            );
            let source = std::fs::read_to_string(&path).expect("readable");
            let now = match run(stage, &name, &source) {
                Ok(now) => now,
                Err(e) => {
                    failures.push(e);
                    continue;
                }
            };
            let expected_path = path.with_extension("expected");
            if bless {
                std::fs::write(&expected_path, &now).expect("write the expected output");
                continue;
            }
            match std::fs::read_to_string(&expected_path) {
                Ok(expected) if expected == now => {}
                Ok(expected) => failures.push(format!(
                    "{name}: not what the {stage} stage makes now, first difference at {}\n\
                     if the change is intended: BLESS=1 cargo test -p warptrace-tests \
                     --test filetests, and review the diff",
                    first_difference(&expected, &now)
                )),
                Err(_) => failures.push(format!(
                    "{name}: no {} (create it with BLESS=1 cargo test -p warptrace-tests \
                     --test filetests)",
                    expected_path.file_name().expect("file").to_string_lossy()
                )),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(count >= 12, "only {count} filetests");
    // Every `.expected` has its input: none left behind by a removed test.
    for stage in STAGES {
        for entry in std::fs::read_dir(root().join(stage)).expect("stage folder") {
            let path = entry.expect("entry").path();
            if path.extension().is_some_and(|x| x == "expected") {
                assert!(
                    path.with_extension("wt").exists(),
                    "{} has no .wt beside it",
                    path.display()
                );
            }
        }
    }
}

/// A stage's output changes when its input does: the comparison is not vacuous.
#[test]
fn a_changed_program_changes_its_output() {
    let path = root().join("lang/count_per_kernel.wt");
    let source = std::fs::read_to_string(&path).expect("lang/count_per_kernel.wt");
    let changed = source.replace("count()", "sum(tid.x)");
    assert_ne!(changed, source, "the filetest changed");
    let name = "tests/filetests/lang/count_per_kernel.wt";
    assert_ne!(
        run("lang", name, &source).expect("runs"),
        run("lang", name, &changed).expect("runs")
    );
    let ptx = "// ptx: numba_saxpy.ptx\nmem:generic:load { @n[kernel] = count(); }\n";
    let out = run("ptx", "t.wt", ptx).expect("runs");
    assert!(out.contains("instrumented"), "{out}");
    let none = "// ptx: numba_saxpy.ptx\ntensor:mma { @n[kernel] = count(); }\n";
    assert!(run("ptx", "t.wt", none).expect("runs").contains("no sites"));
}
