//! `warptrace verify`: prove a probe program safe, report how, and write a certificate;
//! `--require-cert`: refuse a run that no certificate covers.

use crate::cli::{ProgramArgs, Target};
use crate::EXIT_BAD_PROGRAM;
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;
use warptrace_ir::Program;
use warptrace_verifier::{Certificate, Check, Method, Verdict, VerifiedProgram};

/// The version certificates name.
pub(crate) const VERSION: &str = env!("CARGO_PKG_VERSION");

pub fn verify(
    args: &ProgramArgs,
    target: Target,
    cert_path: Option<&Path>,
    ptx: &[PathBuf],
) -> Result<ExitCode> {
    if target == Target::Gcn {
        bail!("the AMD (GCN) back end is not implemented yet: verify with --target ptx");
    }
    let Some((_, file_name, program)) = crate::compile_unverified(args)? else {
        return Ok(ExitCode::from(EXIT_BAD_PROGRAM));
    };
    let start = Instant::now();
    let outcome = warptrace_verifier::verify_program(&program);
    let mut extra = translation_checks();
    if let Ok(verified) = &outcome {
        extra.extend(warptrace_codegen_ptx::spread_rings_check(verified));
        extra.extend(kernel_checks(verified, ptx)?);
    }
    let mut cert = warptrace_verifier::certify(&program, &outcome, target.name(), VERSION, extra);
    cert.total_micros = start.elapsed().as_micros() as u64;
    print!("{}", render(&cert, &file_name));
    if let Some(path) = cert_path {
        std::fs::write(path, cert.to_json() + "\n")
            .with_context(|| format!("cannot write the certificate {}", path.display()))?;
        eprintln!("warptrace: certificate written to {}", path.display());
    }
    Ok(if cert.verified {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_BAD_PROGRAM)
    })
}

/// The PTX back end's translation validation: for every IR operation form the back end
/// lowers, a z3 proof that the emitted PTX computes the IR semantics.
fn translation_checks() -> Vec<Check> {
    warptrace_codegen_ptx::tv::translation_checks()
}

/// Instruments every kernel of each PTX file and records the kernel-level verdicts (only
/// for a program that passed the IR checks: code generators take nothing else).
fn kernel_checks(verified: &VerifiedProgram, ptx: &[PathBuf]) -> Result<Vec<Check>> {
    let mut checks = Vec::new();
    for path in ptx {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read PTX file {}", path.display()))?;
        let start = Instant::now();
        let result = warptrace_codegen_ptx::instrument(&text, verified)
            .with_context(|| format!("cannot instrument {}", path.display()))?;
        let micros = start.elapsed().as_micros() as u64;
        for kernel in &result.kernels {
            use warptrace_codegen_ptx::KernelStatus;
            let verdict = match &kernel.status {
                KernelStatus::Instrumented { .. } => Verdict::Proved,
                KernelStatus::Rejected(errors) => Verdict::Refuted {
                    counterexample: errors.to_string(),
                },
                // Left unchanged: nothing inserted, nothing to prove.
                KernelStatus::NoSites | KernelStatus::Unsupported { .. } => continue,
            };
            checks.push(Check {
                level: "kernel".into(),
                name: "all kernel rules".into(),
                scope: format!("{}: {}", path.display(), kernel.name),
                verdict,
                micros,
            });
        }
    }
    Ok(checks)
}

/// The report `warptrace verify` prints.
fn render(cert: &Certificate, file_name: &str) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{file_name}: {} for {} ({})",
        if cert.verified {
            "VERIFIED"
        } else {
            "NOT VERIFIED"
        },
        cert.target,
        cert.probe_hash
    );
    for level in ["ir", "translation", "kernel"] {
        let checks: Vec<&Check> = cert.checks.iter().filter(|c| c.level == level).collect();
        if checks.is_empty() {
            continue;
        }
        let held = checks.iter().filter(|c| c.verdict.is_proved()).count();
        let micros: u64 = checks.iter().map(|c| c.micros).sum();
        let title = match level {
            "ir" => "IR rules",
            "translation" => "translation validation",
            _ => "kernel checks",
        };
        let _ = writeln!(
            out,
            "  {title:<24} {held}/{} hold ({:.1} ms)",
            checks.len(),
            micros as f64 / 1000.0
        );
        for c in checks.iter().filter(|c| !c.verdict.is_proved()) {
            let _ = writeln!(
                out,
                "    FAILED {} [{}]: {}",
                c.name,
                c.scope,
                why(&c.verdict)
            );
        }
    }
    let by = |m: Method| cert.obligations.iter().filter(|o| o.method == m).count();
    let micros: u64 = cert.obligations.iter().map(|o| o.micros).sum();
    let _ = writeln!(
        out,
        "  {:<24} {} ({} by intervals, {} by z3, {:.1} ms in z3)",
        "value obligations",
        cert.obligations.len(),
        by(Method::Intervals),
        by(Method::Smt),
        micros as f64 / 1000.0
    );
    for o in cert.obligations.iter().filter(|o| !o.verdict.is_proved()) {
        let _ = writeln!(
            out,
            "    FAILED {}: {}: {}",
            o.location,
            o.name,
            why(&o.verdict)
        );
    }
    for c in &cert.costs {
        let _ = writeln!(
            out,
            "  cost of probe {} ({}): {} IR instructions, at most {} device instructions and {} atomics per firing",
            c.probe, c.attach, c.ir_insns, c.device_insns, c.atomics
        );
    }
    let _ = writeln!(out, "  total {:.1} ms", cert.total_micros as f64 / 1000.0);
    out
}

fn why(v: &Verdict) -> String {
    match v {
        Verdict::Proved => "proved".into(),
        Verdict::Refuted { counterexample } => counterexample.clone(),
        Verdict::Unknown { reason } => format!("not proved ({reason})"),
    }
}

/// `--require-cert`: whether the certificate at `path` admits `program`; prints why not.
pub fn admitted(program: &Program, path: &Path) -> Result<bool> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the certificate {}", path.display()))?;
    let verdict =
        Certificate::from_json(&text).and_then(|c| c.admits(program, Target::Ptx.name(), VERSION));
    match verdict {
        Ok(()) => Ok(true),
        Err(e) => {
            eprintln!(
                "warptrace: ERROR: refusing to run: {} does not certify this program: {e}\n\
                 HINT: run `warptrace verify PROGRAM --cert {}` and have it reviewed",
                path.display(),
                path.display()
            );
            Ok(false)
        }
    }
}
