//! The probe library's certificates, `probes/certs/NAME.ptx.json` and `NAME.gcn.json`:
//! each is exactly what `warptrace verify -p NAME --target T --cert` proves now (timings
//! aside), so a change to a probe, the language, the verifier or a back end's translation
//! validation that changes a certificate fails here, with the command that regenerates
//! it (`bash scripts/probe-certs.sh NAME`). `tests/cli.rs` checks that `--require-cert`
//! admits each probe run by name with its committed PTX certificate.
//!
//! The certificate is built as `src/verify.rs` builds it, by the same call: the back
//! end's `program_checks` (PTX: the translation-validation proofs, run once a process;
//! GCN: the proofs of the operation forms the program uses, the lowerings no proof
//! covers and the snippets' costs), then `warptrace_codegen::ProgramChecks::certificate`,
//! which adds the IR check of the program with its rings spread over copies when they
//! are. No kernel checks (the library's
//! certificates are made without `--ptx`/`--gcn`; every kernel is checked when it is
//! instrumented).

use warptrace_codegen_ptx::Target;
use warptrace_verifier::Certificate;

/// The version certificates name: the workspace's, as the `warptrace` binary's.
const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Every timing of `cert` set to 0, as `scripts/probe-certs.sh` writes them.
fn without_timings(mut cert: Certificate) -> Certificate {
    cert.total_micros = 0;
    cert.checks.iter_mut().for_each(|c| c.micros = 0);
    cert.obligations.iter_mut().for_each(|o| o.micros = 0);
    cert
}

/// What `warptrace verify -p NAME --target TARGET --cert` writes for `src` now, timings
/// zeroed.
fn certificate_now(name: &str, src: &str, target: &str) -> Certificate {
    let program = warptrace_lang::compile(src, &format!("probes/{name}.wt"))
        .unwrap_or_else(|e| panic!("probes/{name}.wt does not compile:\n{}", e.render()));
    let outcome = warptrace_verifier::verify_program(&program);
    let (checks, target) = match target {
        "gcn" => (
            warptrace_codegen_gcn::program_checks(&program, outcome.as_ref().ok()),
            Target::Gcn,
        ),
        _ => (warptrace_codegen_ptx::program_checks(), Target::Ptx),
    };
    let cert = checks.certificate(&program, &outcome, target, VERSION, Vec::new());
    without_timings(cert)
}

/// Why `cert` is not verified: the checks and obligations not proved.
fn unverified_why(cert: &Certificate) -> Option<String> {
    if cert.verified {
        return None;
    }
    let open: Vec<String> = cert
        .checks
        .iter()
        .filter(|c| !c.verdict.is_proved())
        .map(|c| format!("{} ({:?})", c.name, c.verdict))
        .chain(
            cert.obligations
                .iter()
                .filter(|o| !o.verdict.is_proved())
                .map(|o| format!("obligation {:?}", o.verdict)),
        )
        .collect();
    Some(open.join(", "))
}

/// Whether the committed certificate text of probe `name` is `now`; why not, with the
/// command that regenerates it.
fn matches(name: &str, committed: &str, now: &Certificate) -> Result<(), String> {
    let file = format!("probes/certs/{name}.{}.json", now.target);
    let regenerate = format!(
        "if the change is intended, regenerate the certificate with \
         `bash scripts/probe-certs.sh {name}` and review its diff"
    );
    let committed =
        Certificate::from_json(committed).map_err(|e| format!("{file}: {e}; {regenerate}"))?;
    let committed = without_timings(committed).to_json();
    let now_text = now.to_json();
    if committed == now_text {
        return Ok(());
    }
    let (line, (was, is)) = committed
        .lines()
        .chain(std::iter::repeat("<end of file>"))
        .zip(now_text.lines().chain(std::iter::repeat("<end of file>")))
        .enumerate()
        .find(|(_, (a, b))| a != b)
        .map(|(i, pair)| (i + 1, pair))
        .unwrap_or((0, ("", "")));
    Err(format!(
        "{file} is not what `warptrace verify -p {name} --target {}` proves now; \
         first difference at line {line} (timings as 0):\n  committed: {}\n  now:       {}\n{regenerate}",
        now.target,
        was.trim(),
        is.trim()
    ))
}

#[test]
fn every_committed_certificate_is_what_verify_proves_now() {
    let probes = warptrace_tests::library_probes();
    let certs = warptrace_tests::probes_dir().join("certs");
    // The certificates are independent: one a worker, on every core.
    let jobs: Vec<(&String, &String, &str)> = probes
        .iter()
        .flat_map(|(name, src)| ["ptx", "gcn"].map(|target| (name, src, target)))
        .collect();
    let mut failures: Vec<String> = warptrace_tests::parallel(&jobs, |&(name, src, target)| {
        let path = certs.join(format!("{name}.{target}.json"));
        let Ok(committed) = std::fs::read_to_string(&path) else {
            return vec![format!(
                "probes/certs/{name}.{target}.json is missing: create it with \
                 `bash scripts/probe-certs.sh {name}`"
            )];
        };
        let now = certificate_now(name, src, target);
        let mut failures = Vec::new();
        if let Some(why) = unverified_why(&now) {
            failures.push(format!(
                "probes/{name}.wt does not verify for {target} any more: {why}"
            ));
        }
        if let Err(e) = matches(name, &committed, &now) {
            failures.push(e);
        }
        failures
    })
    .into_iter()
    .flatten()
    .collect();
    // Nothing else in probes/certs: no certificate of a removed probe, no other target.
    for entry in std::fs::read_dir(&certs).expect("probes/certs/") {
        let file = entry
            .expect("entry")
            .file_name()
            .to_string_lossy()
            .into_owned();
        let probe = file
            .strip_suffix(".ptx.json")
            .or_else(|| file.strip_suffix(".gcn.json"));
        if !probe.is_some_and(|p| probes.iter().any(|(n, _)| n == p)) {
            failures.push(format!(
                "probes/certs/{file} is no certificate of a library probe (NAME.ptx.json, \
                 NAME.gcn.json): \
                 `bash scripts/probe-certs.sh` removes those of removed probes"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn a_certificate_stops_matching_when_the_probe_changes() {
    let committed =
        std::fs::read_to_string(warptrace_tests::probes_dir().join("certs/blocks.ptx.json"))
            .expect("probes/certs/blocks.ptx.json");
    let (_, src) = warptrace_tests::library_probes()
        .into_iter()
        .find(|(n, _)| n == "blocks")
        .expect("probes/blocks.wt");
    assert_eq!(
        matches(
            "blocks",
            &committed,
            &certificate_now("blocks", &src, "ptx")
        ),
        Ok(())
    );

    // The same probe counting a second thread per block is another program.
    let changed = src.replace("tid.x == 0", "tid.x <= 1");
    assert_ne!(changed, src);
    let err = matches(
        "blocks",
        &committed,
        &certificate_now("blocks", &changed, "ptx"),
    )
    .expect_err("another program");
    assert!(err.contains("\"probe_hash\""), "{err}");
    assert!(err.contains("bash scripts/probe-certs.sh blocks"), "{err}");

    // So is a certificate whose recorded proof differs from today's (an obligation
    // discharged another way, a check that no longer holds).
    let tampered = committed.replacen(
        "\"result\": \"proved\"",
        "\"result\": \"unknown\", \"reason\": \"timeout\"",
        1,
    );
    assert_ne!(tampered, committed);
    let err = matches("blocks", &tampered, &certificate_now("blocks", &src, "ptx"))
        .expect_err("a different proof");
    assert!(err.contains("\"result\""), "{err}");
}
