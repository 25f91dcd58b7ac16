//! `warptrace verify`: prove a probe program safe, report how, and write a certificate;
//! `--require-cert`: refuse a run that no certificate covers.

use crate::cli::{ProgramArgs, Target};
use crate::EXIT_BAD_PROGRAM;
use anyhow::{bail, Context, Result};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;
use warptrace_ir::Program;
use warptrace_verifier::{Certificate, Check, Method, Verdict};

/// The version certificates name.
pub(crate) const VERSION: &str = env!("CARGO_PKG_VERSION");

/// What instrumenting a kernel came to.
enum KernelOutcome {
    /// Snippets inserted, and the kernel rules' verdict on them.
    Checked(Verdict),
    /// No probe attaches: unchanged.
    NoSites,
    /// Left unchanged because the back end cannot lower something yet: nothing inserted,
    /// nothing to prove, but the run would not see this kernel.
    Unsupported(String),
}

/// Each kernel's name and outcome.
type KernelVerdicts = Vec<(String, KernelOutcome)>;

/// The [`KernelVerdicts`] of either back end's kernel outcomes: an over-budget kernel is
/// one a run leaves unchanged, as it does a kernel the back end cannot lower.
fn kernel_verdicts(
    kernels: impl IntoIterator<Item = (String, warptrace_codegen_ptx::KernelStatus)>,
) -> KernelVerdicts {
    use warptrace_codegen_ptx::KernelStatus;
    kernels
        .into_iter()
        .map(|(name, status)| {
            let outcome = match status {
                KernelStatus::Instrumented { .. } => KernelOutcome::Checked(Verdict::Proved),
                KernelStatus::Rejected(errors) => KernelOutcome::Checked(Verdict::Refuted {
                    counterexample: errors.to_string(),
                }),
                KernelStatus::NoSites => KernelOutcome::NoSites,
                KernelStatus::Unsupported { what } => KernelOutcome::Unsupported(what),
                KernelStatus::OverBudget { why } => {
                    KernelOutcome::Unsupported(format!("over the JIT budget: {why}"))
                }
            };
            (name, outcome)
        })
        .collect()
}

pub fn verify(
    args: &ProgramArgs,
    target: Target,
    cert_path: Option<&Path>,
    ptx: &[PathBuf],
    gcn: &[PathBuf],
) -> Result<ExitCode> {
    match target {
        Target::Ptx if !gcn.is_empty() => {
            bail!("--gcn names AMDGPU assembly: verify it with --target gcn")
        }
        Target::Gcn if !ptx.is_empty() => bail!("--ptx names PTX: verify it with --target ptx"),
        _ => {}
    }
    let Some((_, file_name, program)) = crate::compile_unverified(args)? else {
        return Ok(ExitCode::from(EXIT_BAD_PROGRAM));
    };
    let start = Instant::now();
    let outcome = warptrace_verifier::verify_program(&program);
    let mut unchanged = Vec::new();
    // GCN: the longest of each probe's snippets at the sites of the files checked (probe →
    // instructions, atomics), beside the bound the back end's checks give on every site.
    let at_sites = RefCell::new(BTreeMap::<usize, (u64, u64)>::new());
    let backend = match target {
        Target::Ptx => warptrace_codegen_ptx::program_checks(),
        Target::Gcn => warptrace_codegen_gcn::program_checks(&program, outcome.as_ref().ok()),
    };
    let mut kernels = Vec::new();
    if let Ok(verified) = &outcome {
        match target {
            Target::Ptx => {
                kernels.extend(kernel_checks(ptx, "PTX", &mut unchanged, &|text| {
                    // As a run instruments it: within the default JIT budget.
                    let out = warptrace_codegen_ptx::instrument_within(
                        text,
                        verified,
                        &Default::default(),
                    )?;
                    Ok(kernel_verdicts(
                        out.kernels.into_iter().map(|k| (k.name, k.status)),
                    ))
                })?);
            }
            Target::Gcn => {
                kernels.extend(kernel_checks(
                    gcn,
                    "AMDGPU assembly",
                    &mut unchanged,
                    &|text| {
                        // As the HIP hook loads it: long branches where the snippets push
                        // a kernel branch out of reach (when the file can be assembled).
                        let (out, assembly) =
                            warptrace_codegen_gcn::instrument_as_loaded(text, verified)?;
                        let why = assembly.why_not();
                        if let Some(why) = why {
                            eprintln!(
                                "warptrace: not assembled ({why}): kernels are checked without \
                                 the long branches a kernel too large for its branches would get"
                            );
                        }
                        for k in out.kernels.iter().filter(|k| k.long_branches > 0) {
                            eprintln!(
                                "warptrace: {}: checked with {} long branches",
                                k.name, k.long_branches
                            );
                        }
                        let mut at_sites = at_sites.borrow_mut();
                        for s in out.kernels.iter().flat_map(|k| &k.snippets) {
                            let m = at_sites.entry(s.probe).or_default();
                            *m = (m.0.max(s.insns), m.1.max(s.atomics));
                        }
                        // The kernel rules include the wait states instrumenting adds
                        // (decision 0030): the instrumenter checks them on every path.
                        Ok(kernel_verdicts(
                            out.kernels.into_iter().map(|k| (k.name, k.status)),
                        ))
                    },
                )?);
            }
        }
    }
    let mut cert = backend.certificate(&program, &outcome, target.isa(), VERSION, kernels);
    cert.total_micros = start.elapsed().as_micros() as u64;
    print!(
        "{}",
        render(&cert, &file_name, &unchanged, &at_sites.into_inner())
    );
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

/// Instruments every kernel of each file (`what` it holds) and records the kernel-level
/// verdicts (only for a program that passed the IR checks: code generators take nothing
/// else); a kernel left unchanged because something is not supported goes to `unchanged`
/// (its scope, why).
fn kernel_checks(
    paths: &[PathBuf],
    what: &str,
    unchanged: &mut Vec<(String, String)>,
    instrument: &dyn Fn(&str) -> Result<KernelVerdicts>,
) -> Result<Vec<Check>> {
    let mut checks = Vec::new();
    for path in paths {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {what} file {}", path.display()))?;
        let start = Instant::now();
        let kernels =
            instrument(&text).with_context(|| format!("cannot instrument {}", path.display()))?;
        // The file is instrumented (and its kernels checked) at once: its time is shared
        // among the kernels checked, so that the report's sum is the time spent.
        let mut checked: Vec<(String, Verdict)> = Vec::new();
        for (name, outcome) in kernels {
            match outcome {
                KernelOutcome::Checked(verdict) => checked.push((name, verdict)),
                KernelOutcome::NoSites => {}
                KernelOutcome::Unsupported(why) => {
                    unchanged.push((format!("{}: {name}", path.display()), why));
                }
            }
        }
        let micros = start.elapsed().as_micros() as u64 / checked.len().max(1) as u64;
        for (name, verdict) in checked {
            checks.push(Check {
                level: "kernel".into(),
                name: "all kernel rules".into(),
                scope: format!("{}: {name}", path.display()),
                verdict,
                micros,
            });
        }
    }
    Ok(checks)
}

/// The report `warptrace verify` prints; `unchanged` are the kernels left as they are
/// because something is not supported (scope, why); `at_sites` the longest snippet of
/// each probe at the sites of the files checked (GCN: instructions, atomics).
fn render(
    cert: &Certificate,
    file_name: &str,
    unchanged: &[(String, String)],
    at_sites: &BTreeMap<usize, (u64, u64)>,
) -> String {
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
    // Not a check (nothing inserted, nothing to prove), but the run would not see them.
    for (scope, what) in unchanged {
        let _ = writeln!(out, "  {:<24} {scope}: {what}", "not instrumented");
    }
    if !cert.not_proved.is_empty() {
        let _ = writeln!(
            out,
            "  {:<24} {} (no proof; docs/gcn.md says which the emulator tests check)",
            "lowering not proved",
            cert.not_proved.join(", ")
        );
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
        let here = at_sites.get(&c.probe).map_or(String::new(), |(n, a)| {
            format!(" ({n} and {a} at the sites of the files checked)")
        });
        let _ = writeln!(
            out,
            "  cost of probe {} ({}): {} IR instructions, at most {} device instructions and {} atomics per firing{here}",
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
