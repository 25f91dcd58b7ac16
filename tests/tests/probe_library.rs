//! The shipped probes (`probes/*.wt`) over the whole PTX corpus: each compiles, passes
//! every IR rule and value obligation (a certificate for `ptx` says `verified`), and
//! instruments every corpus kernel with **zero** verifier rejections; the instrumented
//! modules assemble with the real `ptxas`. A probe that attaches nowhere in a kernel, or
//! needs what the back end does not lower yet, leaves it unchanged — never rejected.

use std::path::Path;
use warptrace_codegen_ptx::{instrument, KernelStatus};
use warptrace_tests::{assemble, corpus, corpus_archs, retarget};

fn library() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../probes");
    let mut probes: Vec<(String, String)> = std::fs::read_dir(&dir)
        .expect("probes/")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "wt"))
        .map(|p| {
            let name = p.file_stem().map(|n| n.to_string_lossy().into_owned());
            (
                name.unwrap_or_default(),
                std::fs::read_to_string(&p).expect("UTF-8"),
            )
        })
        .collect();
    probes.sort();
    probes
}

#[test]
fn every_library_probe_verifies_and_is_never_rejected_on_the_corpus() {
    let probes = library();
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
