//! The shipped probes (`probes/*.wt`) over the whole PTX corpus: each compiles, passes
//! every IR rule and value obligation (a certificate for `ptx` says `verified`), and
//! instruments every corpus kernel with **zero** verifier rejections; the instrumented
//! modules assemble with the real `ptxas`. A probe that attaches nowhere in a kernel, or
//! needs what the back end does not lower yet, leaves it unchanged — never rejected. The
//! same over the GCN corpus, assembled with the real LLVM tools.

use warptrace_codegen_ptx::{instrument, KernelStatus};
use warptrace_tests::{assemble, corpus, corpus_archs, retarget};

#[test]
fn every_library_probe_verifies_and_is_never_rejected_on_the_corpus() {
    let probes = warptrace_tests::library_probes();
    assert!(probes.len() >= 10, "{} probes in probes/", probes.len());
    let files = corpus();
    let mut failures = Vec::new();
    let mut instrumented = 0;
    for (name, src) in &probes {
        let program = warptrace_lang::compile(src, name)
            .unwrap_or_else(|e| panic!("probes/{name}.wt does not compile:\n{}", e.render()));
        let outcome = warptrace_verifier::verify_program(&program);
        let cert = warptrace_verifier::certify(&program, &outcome, "ptx", "test", Vec::new());
        let (Ok(verified), true) = (outcome, cert.verified) else {
            failures.push(format!(
                "{name}: certificate not verified: {}",
                cert.to_json()
            ));
            continue;
        };
        let mut sites = 0;
        for (file, ptx) in &files {
            let out = instrument(ptx, &verified).unwrap_or_else(|e| panic!("{file}: {e}"));
            for k in &out.kernels {
                match &k.status {
                    KernelStatus::Rejected(errors) => {
                        failures.push(format!("{name} × {file}: {} REJECTED:\n{errors}", k.name))
                    }
                    KernelStatus::Instrumented { sites: n } => sites += n,
                    // `instrument` sets no JIT budget: nothing is over it.
                    KernelStatus::NoSites
                    | KernelStatus::Unsupported { .. }
                    | KernelStatus::OverBudget { .. } => {}
                }
            }
            if out.ptx != *ptx {
                instrumented += 1;
                for arch in corpus_archs(file) {
                    if let Some(Err(e)) = assemble(&retarget(&out.ptx, arch), arch, &[]) {
                        failures.push(format!("{name} × {file} ({arch}): ptxas: {e}"));
                    }
                }
            }
        }
        if sites == 0 {
            failures.push(format!("{name}: attaches nowhere in the corpus"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(instrumented > 0);
}

/// The shipped probes over the whole GCN corpus (gfx90a, gfx942, gfx1100): every kernel is
/// instrumented with **zero** verifier rejections or left unchanged for a reason the back
/// end names; every instrumented module assembles and links with the real LLVM tools;
/// each probe runs in some kernel of the corpus. The table of outcomes is printed.
#[test]
fn every_library_probe_instruments_the_gcn_corpus_without_rejections() {
    use std::collections::BTreeMap;
    use warptrace_codegen_gcn::{assemble_instrumented, llvm_tool, KernelStatus, TargetId};
    let tools = ["llvm-mc", "ld.lld"].iter().all(|t| llvm_tool(t).is_some());
    if !tools {
        assert!(
            std::env::var("CI").map_or(true, |v| v != "true"),
            "llvm-mc / ld.lld not found (CI=true); install llvm-19 and lld-19"
        );
        eprintln!("SKIPPED: llvm-mc / ld.lld not found; install llvm-19 and lld-19");
        return;
    }
    let files = warptrace_tests::gcn_corpus();
    let mut failures = Vec::new();
    for (name, src) in warptrace_tests::library_probes() {
        let program = warptrace_lang::compile(&src, &name)
            .unwrap_or_else(|e| panic!("probes/{name}.wt does not compile:\n{}", e.render()));
        let verified = warptrace_verifier::verify_program(&program)
            .unwrap_or_else(|e| panic!("probes/{name}.wt does not verify: {e:?}"));
        let mut outcomes: BTreeMap<String, usize> = BTreeMap::new();
        for (file, asm) in &files {
            let out = warptrace_codegen_gcn::instrument(asm, &verified)
                .unwrap_or_else(|e| panic!("{name} × {file}: {e}"));
            // Assembled as the CLI and the HIP hook do: kernel branches the snippets push
            // past their 16-bit reach made long branches (decision 0032).
            let out = if out.asm == *asm {
                out
            } else {
                let target = TargetId::of_assembly(asm).expect("the module's target");
                match assemble_instrumented(asm, &verified, out, &target) {
                    Ok((out, _)) => out,
                    Err(e) => {
                        let e: Vec<String> =
                            e.to_string().lines().take(8).map(String::from).collect();
                        failures.push(format!(
                            "{name} × {file}: does not assemble:\n{}",
                            e.join("\n")
                        ));
                        continue;
                    }
                }
            };
            for k in &out.kernels {
                let outcome = match &k.status {
                    KernelStatus::Instrumented { .. } => "instrumented".to_owned(),
                    KernelStatus::NoSites => "no sites".to_owned(),
                    KernelStatus::Unsupported { what } => format!("unsupported: {what}"),
                    KernelStatus::Rejected(errors) => {
                        failures.push(format!("{name} × {file}: {} REJECTED:\n{errors}", k.name));
                        "rejected".to_owned()
                    }
                    // The GCN back end applies no compile budget.
                    KernelStatus::OverBudget { why } => {
                        failures.push(format!("{name} × {file}: {} over a budget: {why}", k.name));
                        "over budget".to_owned()
                    }
                };
                *outcomes.entry(outcome).or_default() += 1;
            }
        }
        eprintln!("{name}: {outcomes:?}");
        if !outcomes.contains_key("instrumented") {
            failures.push(format!(
                "{name}: instruments no GCN corpus kernel: {outcomes:?}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
