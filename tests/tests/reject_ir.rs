//! The IR half of the negative corpus: every `tests/corpus/reject/ir/*.wtir` is a probe
//! program the IR verifier must reject, with `; error: <Rule>` after each offending
//! instruction (or after a `probe N:` line for a probe-wide error). The test asserts that
//! the verifier reports exactly those (probe, instruction, rule) triples, no more and no
//! fewer, and that each file says why in its first line (`; reject: <Rule>: <why>`).

use std::collections::BTreeSet;
use std::path::Path;
use warptrace_ir::Program;
use warptrace_verifier::{verify_program, IrRule};

/// (probe, instruction or None for probe-wide, rule name)
type Expected = BTreeSet<(usize, Option<usize>, String)>;

/// The program text without comments, and the errors its comments expect.
fn split(text: &str) -> Result<(String, Expected, String), String> {
    let mut program = String::new();
    let mut expected = Expected::new();
    let mut probe: Option<usize> = None;
    let mut header = None;
    for line in text.lines() {
        let (code, comment) = match line.find(';') {
            Some(i) => (&line[..i], Some(line[i + 1..].trim())),
            None => (line, None),
        };
        let code = code.trim_end();
        if let Some(rest) = code.strip_prefix("probe ") {
            probe = rest.split(':').next().and_then(|n| n.trim().parse().ok());
        }
        if let Some(c) = comment {
            if let Some(why) = c.strip_prefix("reject:") {
                header = Some(why.trim().to_string());
            } else if let Some(rule) = c.strip_prefix("error:") {
                let p = probe.ok_or("`; error:` before any probe")?;
                let insn = code
                    .trim_start()
                    .split(':')
                    .next()
                    .and_then(|n| n.trim().parse().ok())
                    .filter(|_| !code.starts_with("probe "));
                expected.insert((p, insn, rule.trim().to_string()));
            } else {
                return Err(format!("unknown comment `; {c}`"));
            }
        }
        program.push_str(code);
        program.push('\n');
    }
    let header = header.ok_or("the first line must be `; reject: <Rule>: <why>`")?;
    Ok((program, expected, header))
}

#[test]
fn every_ir_attack_is_rejected_for_its_named_reason() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/reject/ir");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("corpus/reject/ir")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "wtir"))
        .collect();
    files.sort();
    assert!(
        files.len() >= 15,
        "the IR negative corpus has {} files",
        files.len()
    );
    let rules: Vec<String> = IrRule::ALL.iter().map(|r| format!("{r:?}")).collect();
    let mut failures = Vec::new();
    for path in &files {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let text = std::fs::read_to_string(path).expect("UTF-8");
        let (source, expected, header) = match split(&text) {
            Ok(x) => x,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        let named = header
            .split(':')
            .next()
            .unwrap_or_default()
            .trim()
            .to_string();
        if !rules.contains(&named) || !expected.iter().all(|e| e.2 == named) {
            failures.push(format!(
                "{name}: header names {named}, markers {expected:?}"
            ));
        }
        let program = match Program::parse(&source) {
            Ok(p) => p,
            Err(e) => {
                failures.push(format!(
                    "{name}: does not parse (the verifier must see it): {e}"
                ));
                continue;
            }
        };
        let got: Expected = match verify_program(&program) {
            Ok(_) => BTreeSet::new(),
            Err(errors) => errors
                .0
                .iter()
                .map(|e| (e.probe, e.insn, format!("{:?}", e.rule)))
                .collect(),
        };
        if got != expected || expected.is_empty() {
            failures.push(format!(
                "{name}: expected {expected:?}, the verifier said {got:?}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
