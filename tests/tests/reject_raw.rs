//! NEUTRINO-format raw probes through the kernel-level verifier.
//!
//! - Every attack in `tests/corpus/reject/raw/` is rejected by exactly the rule its first
//!   line names (`# reject: <Rule>: <why>`), on its target kernel (`# kernel: <file>
//!   <name>`), and a rejection points at the probe file line marked `// attack`.
//! - Every probe in `tests/corpus/accept/raw/` verifies on every kernel of the PTX corpus,
//!   and the instrumented modules assemble with the real `ptxas` (`sm_90a`, and `sm_80`
//!   where the file allows it).
//! - Load errors name their line.

use std::path::{Path, PathBuf};
use warptrace_codegen_ptx::raw::{Position, RawRejection, RawStatus};
use warptrace_codegen_ptx::{
    check_raw_probes, instrument_raw, load_probes, parse, RawError, MAP_PARAM,
};
use warptrace_tests::{assemble, corpus, corpus_archs, corpus_file, retarget};
use warptrace_verifier::KernelRule;

fn dir(kind: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("corpus/{kind}/raw"))
}

/// Every `.toml` of a folder as (file name, text), sorted.
fn files(kind: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = std::fs::read_dir(dir(kind))
        .expect("corpus folder")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .map(|p| {
            let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
            let text = std::fs::read_to_string(&p).expect("UTF-8");
            (name.unwrap_or_default(), text)
        })
        .collect();
    out.sort();
    out
}

fn rule_named(name: &str) -> KernelRule {
    match name {
        "RegisterIsolation" => KernelRule::RegisterIsolation,
        "ControlFlow" => KernelRule::ControlFlow,
        "SharedMemory" => KernelRule::SharedMemory,
        "MemorySafety" => KernelRule::MemorySafety,
        "WarpCollective" => KernelRule::WarpCollective,
        "KernelPreserved" => KernelRule::KernelPreserved,
        other => panic!("unknown rule `{other}`"),
    }
}

/// What an attack file expects: a verifier rule, or `Denied` (default deny: the probe
/// file is refused when loaded, at the marked line).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    Rule(KernelRule),
    Denied,
}

/// An attack file's header: the rule, the corpus file and the kernel, and the 1-based
/// lines marked `// attack`.
struct Attack {
    rule: Expect,
    ptx_file: String,
    kernel: String,
    marked: Vec<u32>,
}

fn attack(name: &str, text: &str) -> Attack {
    let mut lines = text.lines();
    let first = lines.next().unwrap_or_default();
    let rest = first
        .strip_prefix("# reject: ")
        .unwrap_or_else(|| panic!("{name}: first line is not `# reject: <Rule>: <why>`"));
    let rule = match rest.split(':').next().unwrap_or_default().trim() {
        "Denied" => Expect::Denied,
        other => Expect::Rule(rule_named(other)),
    };
    let kernel_line = text
        .lines()
        .find_map(|l| l.strip_prefix("# kernel: "))
        .unwrap_or_else(|| panic!("{name}: no `# kernel: <file> <name>` comment"));
    let mut words = kernel_line.split_whitespace();
    let ptx_file = words.next().unwrap_or_default().to_string();
    let kernel = words.next().unwrap_or_default().to_string();
    let marked = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains("// attack"))
        .map(|(i, _)| i as u32 + 1)
        .collect();
    Attack {
        rule,
        ptx_file,
        kernel,
        marked,
    }
}

#[test]
fn every_attack_is_rejected_for_its_named_rule_at_its_line() {
    let attacks = files("reject");
    assert!(attacks.len() >= 18, "only {} attack files", attacks.len());
    // One attack a job, on every core; each gives the rule it was rejected for.
    let rules = warptrace_tests::parallel(&attacks, |(name, text)| {
        let a = attack(name, text);
        assert!(!a.marked.is_empty(), "{name}: no line marked `// attack`");
        let ptx = corpus_file(&a.ptx_file);
        let rule = match a.rule {
            Expect::Denied => {
                match check_raw_probes(text, &ptx) {
                    Err(RawError::Denied { line, .. }) if a.marked.contains(&line) => {}
                    other => panic!("{name}: not denied at {:?}: {other:?}", a.marked),
                }
                return "Denied".to_string();
            }
            Expect::Rule(rule) => rule,
        };
        let report = check_raw_probes(text, &ptx).unwrap_or_else(|e| panic!("{name}: {e}"));
        let k = report
            .kernels
            .iter()
            .find(|k| k.name == a.kernel)
            .unwrap_or_else(|| panic!("{name}: no kernel `{}`", a.kernel));
        let RawStatus::Rejected(rejections) = &k.status else {
            panic!("{name}: kernel {} was {:?}", a.kernel, k.status);
        };
        let show = |r: &[RawRejection]| {
            r.iter()
                .map(|r| r.to_string())
                .collect::<Vec<_>>()
                .join("\n")
        };
        for r in rejections {
            assert_eq!(
                r.rule,
                rule,
                "{name}: another rule fired:\n{}",
                show(rejections)
            );
        }
        let at_mark: Vec<&RawRejection> = rejections
            .iter()
            .filter(|r| r.toml_line.is_some_and(|l| a.marked.contains(&l)))
            .collect();
        assert!(
            !at_mark.is_empty(),
            "{name}: no rejection at the marked lines {:?}:\n{}",
            a.marked,
            show(rejections)
        );
        for r in &at_mark {
            assert!(r.probe.is_some(), "{name}: {r}");
            assert!(
                r.corrupts.is_some(),
                "{name}: names nothing it corrupts: {r}"
            );
        }
        // A rejected kernel is left as it was.
        let out = instrument_raw(text, &ptx).expect("instruments");
        let (before, after) = (
            parse(&ptx).expect("parses"),
            parse(&out.ptx).expect("parses"),
        );
        let text_of = |m: &warptrace_codegen_ptx::Module| {
            let f = m.kernel(&a.kernel).expect("kernel");
            m.source()[f.span.clone()].to_string()
        };
        assert_eq!(text_of(&after), text_of(&before), "{name}");
        format!("{rule:?}")
    });
    let mut by_rule = std::collections::BTreeMap::new();
    for rule in rules {
        *by_rule.entry(rule).or_insert(0) += 1;
    }
    eprintln!("attacks per rule: {by_rule:?}");
}

#[test]
fn accepted_probes_verify_and_assemble_on_every_corpus_kernel() {
    let probes = files("accept");
    assert!(probes.len() >= 3, "only {} accepted probes", probes.len());
    warptrace_tests::parallel(&probes, |(name, toml)| {
        let file = load_probes(toml).unwrap_or_else(|e| panic!("{name}: {e}"));
        let at_instructions = file
            .probes
            .iter()
            .any(|p| p.positions.iter().any(|x| matches!(x, Position::Opcode(_))));
        let mut instruction_snippets = 0;
        let mut instrumented = 0;
        for (file, ptx) in corpus() {
            let out =
                instrument_raw(toml, &ptx).unwrap_or_else(|e| panic!("{name} on {file}: {e}"));
            for k in &out.report.kernels {
                if let RawStatus::Rejected(r) = &k.status {
                    let all: Vec<String> = r.iter().map(|r| r.to_string()).collect();
                    panic!("{name} on {file}, kernel {}:\n{}", k.name, all.join("\n"));
                }
            }
            let accepted = out
                .report
                .kernels
                .iter()
                .filter(|k| k.status == RawStatus::Accepted)
                .count();
            if accepted == 0 {
                assert_eq!(out.ptx, ptx, "{name} on {file}: unchanged without sites");
                continue;
            }
            instrumented += accepted;
            instruction_snippets +=
                out.ptx.matches("(before)").count() + out.ptx.matches("(after)").count();
            let m = parse(&out.ptx).expect("instrumented PTX parses");
            for k in out
                .report
                .kernels
                .iter()
                .filter(|k| k.status == RawStatus::Accepted)
            {
                let f = m.kernel(&k.name).expect("kernel");
                let last = m.param_text(f, f.params.len() - 1).expect("param");
                assert!(last.ends_with(MAP_PARAM), "{last}");
            }
            for arch in corpus_archs(&file) {
                match assemble(&retarget(&out.ptx, arch), arch, &[]) {
                    None | Some(Ok(_)) => {}
                    Some(Err(e)) => panic!("ptxas -arch={arch} rejects {name} on {file}:\n{e}"),
                }
            }
        }
        assert!(
            instrumented >= 3,
            "{name} instruments only {instrumented} kernels"
        );
        if at_instructions {
            assert!(
                instruction_snippets > 0,
                "{name}: no instruction site anywhere"
            );
        }
        eprintln!("{name}: {instrumented} kernels, {instruction_snippets} instruction snippets");
    });
}

#[test]
fn load_errors_name_their_line() {
    let bad_toml = "[p]\nposition = \"kernel\"\nbefore = \"\"\"mov.u32 %a, 0;\n";
    assert!(matches!(load_probes(bad_toml), Err(RawError::Toml { .. })));
    let cases: [(&str, u32); 6] = [
        ("[p]\nposition = \"ld.glob4l:frob\"\nbefore = \"\"\n", 2),
        (
            "[p]\nposition = \"kernel\"\ndatamodel = \"thread:8\"\nbefore = \"\"\"\nmov.u64 %a, 0;\nSTORE.u64 {%a};\"\"\"\n",
            6,
        ),
        ("[p]\nposition = \"ld.global\"\nbefore = \"add.u32 %a, %a, IN9;\"\n", 3),
        ("[p]\nposition = \"kernel\"\nbefore = \"mov.u32 %__wt_base, 0;\"\n", 3),
        (
            "[p]\nposition = \"kernel\"\nbefore = \"\"\"\nmov.u64 %a, 0;\nSAVE.u64 {%a};\"\"\"\n",
            5,
        ),
        (
            "[p]\nposition = \"kernel\"\ndatamodel = \"thread:8\"\nbefore = \"\"\"\nSAVE.u64 {%a, %a};\"\"\"\n",
            5,
        ),
    ];
    let ptx = corpus_file("triton_vector_add.ptx");
    for (toml, line) in cases {
        let err = check_raw_probes(toml, &ptx).expect_err("refused");
        let got = match &err {
            RawError::UnknownPosition { line, .. }
            | RawError::UnknownHelper { line, .. }
            | RawError::ReservedName { line, .. }
            | RawError::BadSave { line, .. } => *line,
            other => panic!("unexpected error for {toml:?}: {other}"),
        };
        assert_eq!(got, line, "{err}");
        assert!(
            err.to_string().starts_with(&format!("line {line}: ")),
            "{err}"
        );
    }
    // A helper the site does not have: BYTES at a branch.
    let toml = "[p]\nposition = \"ret\"\nbefore = \"\"\"\nadd.u32 %a, %a, BYTES;\"\"\"\n";
    match check_raw_probes(toml, &ptx) {
        Err(RawError::HelperUnavailable { line, helper, .. }) => {
            assert_eq!((line, helper.as_str()), (4, "BYTES"));
        }
        other => panic!("{other:?}"),
    }
}
