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

/// The [`KernelVerdicts`] of either back end's kernel outcomes (their `KernelStatus`
/// types share these variants; a back end's own come as extra `pattern => outcome` arms).
macro_rules! kernel_verdicts {
    ($kernels:expr, $($status:ident)::+ $(, $extra:pat => $outcome:expr)*) => {
        $kernels
            .into_iter()
            .map(|k| {
                let outcome = match k.status {
                    $($status)::+::Instrumented { .. } => KernelOutcome::Checked(Verdict::Proved),
                    $($status)::+::Rejected(errors) => KernelOutcome::Checked(Verdict::Refuted {
                        counterexample: errors.to_string(),
                    }),
                    $($status)::+::NoSites => KernelOutcome::NoSites,
                    $($status)::+::Unsupported { what } => KernelOutcome::Unsupported(what),
                    $($extra => $outcome,)*
                };
                (k.name, outcome)
            })
            .collect::<KernelVerdicts>()
    };
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
    // GCN: the bound each probe's snippets have on every site and target, and their
    // longest at the sites of the files checked (probe → instructions, atomics).
    let mut gcn_costs = None;
    let at_sites = RefCell::new(BTreeMap::<usize, (u64, u64)>::new());
    let (mut extra, not_proved) = match target {
        Target::Ptx => (warptrace_codegen_ptx::tv::translation_checks(), Vec::new()),
        Target::Gcn => {
            let t = warptrace_codegen_gcn::translation_checks(&program);
            (t.checks, t.not_proved)
        }
    };
    if let Ok(verified) = &outcome {
        match target {
            Target::Ptx => {
                extra.extend(warptrace_codegen_ptx::spread_rings_check(verified));
                extra.extend(kernel_checks(ptx, "PTX", &mut unchanged, &|text| {
                    // As a run instruments it: within the default JIT budget.
                    let out = warptrace_codegen_ptx::instrument_within(
                        text,
                        verified,
                        &Default::default(),
                    )?;
                    Ok(kernel_verdicts!(
                        out.kernels,
                        warptrace_codegen_ptx::KernelStatus,
                        s @ warptrace_codegen_ptx::KernelStatus::OverBudget { .. } =>
                            KernelOutcome::Unsupported(format!(
                                "over the JIT budget: {}",
                                s.over_budget().unwrap_or_default()
                            ))
                    ))
                })?);
            }
            Target::Gcn => {
                extra.extend(verified.spread_rings_check("GCN"));
                gcn_costs = Some(warptrace_codegen_gcn::probe_costs(verified));
                extra.extend(kernel_checks(
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
                        // Instrumenting may add no missing wait state by the hazard
                        // rules (decision 0030): part of the kernels' check.
                        let hazards = warptrace_codegen_gcn::added_hazards(text, &out.asm)?;
                        let mut verdicts =
                            kernel_verdicts!(out.kernels, warptrace_codegen_gcn::KernelStatus);
                        for (name, outcome) in &mut verdicts {
                            let lines: Vec<String> = hazards
                                .iter()
                                .filter(|h| h.kernel == *name)
                                .map(|h| format!("line {} ({} wait states)", h.line, h.missing))
                                .collect();
                            if let (KernelOutcome::Checked(Verdict::Proved), false) =
                                (&outcome, lines.is_empty())
                            {
                                *outcome = KernelOutcome::Checked(Verdict::Refuted {
                                    counterexample: format!(
                                        "missing wait states (hardware hazards) before {}",
                                        lines.join(", ")
                                    ),
                                });
                            }
                        }
                        Ok(verdicts)
                    },
                )?);
            }
        }
    }
    let mut cert = warptrace_verifier::certify(&program, &outcome, target.name(), VERSION, extra);
    cert.not_proved = not_proved;
    if let Some(costs) = gcn_costs {
        cert.costs = costs;
    }
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
