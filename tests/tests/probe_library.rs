//! The shipped probes (`probes/*.wt`) over the whole PTX corpus: each compiles, passes
//! every IR rule and value obligation (a certificate for `ptx` says `verified`), and
//! instruments every corpus kernel with **zero** verifier rejections; the instrumented
//! modules assemble with the real `ptxas`. A probe that attaches nowhere in a kernel, or
//! needs what the back end does not lower yet, leaves it unchanged — never rejected.

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
                    KernelStatus::NoSites | KernelStatus::Unsupported { .. } => {}
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
