//! NEUTRINO-format raw PTX probes (`FILE.toml`, `docs/raw-probes.md`) on the command
//! line: `-p FILE.toml` or a positional `FILE.toml` names one wherever a probe program
//! goes. `warptrace instrument --ptx` splices it with
//! [`warptrace_codegen_ptx::instrument_raw`], `warptrace verify` reports each kernel's
//! verdict and writes a certificate for it, and a run hands it to the runtime
//! (`run.rs`).

use crate::cli::{ProgramArgs, Target};
use crate::EXIT_BAD_PROGRAM;
use anyhow::{bail, Context, Result};
use sha2::{Digest, Sha256};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;
use warptrace_codegen_ptx::jit_cost::JitBudget;
use warptrace_codegen_ptx::raw::{Position, RawKernel, RawReport, RawStatus};
use warptrace_codegen_ptx::{check_raw_probes, instrument_raw_within, load_probes, RawError};
use warptrace_ir::Program;
use warptrace_verifier::{CertError, Certificate, Check, Verdict, CERT_FORMAT};

/// The `level` of the check that marks a certificate as one of a raw probe file.
const RAW_LEVEL: &str = "raw";

/// A raw probe file named on the command line, read.
#[derive(Debug)]
pub(crate) struct RawProbeFile {
    /// As given.
    pub path: PathBuf,
    /// Its text.
    pub text: String,
}

impl RawProbeFile {
    /// The file's name as errors show it.
    pub fn name(&self) -> String {
        self.path.display().to_string()
    }
}

/// Whether `path` names a raw probe file: its extension is `.toml`.
fn is_raw(path: &Path) -> bool {
    path.extension()
        .is_some_and(|x| x.eq_ignore_ascii_case("toml"))
}

/// The raw probe file `args` names, if any: `-p FILE.toml` or a positional `FILE.toml`.
pub(crate) fn raw_path(args: &ProgramArgs) -> Option<PathBuf> {
    let from_p = args
        .probe
        .as_deref()
        .map(PathBuf::from)
        .filter(|p| is_raw(p));
    from_p.or_else(|| args.file.clone().filter(|p| is_raw(p)))
}

/// The raw probe file `args` names, read; `None` when they name a language program.
pub(crate) fn raw_probe(args: &ProgramArgs) -> Result<Option<RawProbeFile>> {
    let Some(path) = raw_path(args) else {
        return Ok(None);
    };
    let given = [
        args.expr.is_some(),
        args.file.is_some(),
        args.probe.is_some(),
    ];
    if given.iter().filter(|g| **g).count() > 1 {
        bail!(
            "give the probes one way: {} is a raw probe file, so neither -e, a .wt file nor \
             -p NAME goes with it",
            path.display()
        );
    }
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read raw probe file {}", path.display()))?;
    Ok(Some(RawProbeFile { path, text }))
}

/// The error for a raw probe file where only a language program goes (`compile`,
/// `instrument --gcn`).
pub(crate) fn not_a_program(path: &Path) -> anyhow::Error {
    anyhow::anyhow!(
        "{} is a raw PTX probe file (NEUTRINO's TOML format, docs/raw-probes.md), not a .wt \
         program: it has no IR; instrument a module with `warptrace instrument --ptx K.ptx -p \
         {0}` or check it with `warptrace verify {0} --ptx K.ptx`",
        path.display()
    )
}

/// The line of the probe file a load error names and its message without it; `None` for
/// a PTX error. Every other variant carries its line, and its message starts `line N: `.
fn error_line(e: &RawError) -> Option<(u32, String)> {
    if let RawError::Ptx(_) = e {
        return None;
    }
    let message = e.to_string();
    let (line, rest) = message.strip_prefix("line ")?.split_once(": ")?;
    Some((line.parse().ok()?, rest.to_string()))
}

/// Each kernel's verdict on `ptx` as a run gives it: under the default JIT budget, so that
/// `verify` and `-l` never accept a kernel a run leaves unchanged (decision 0045).
fn checked_as_run(probe: &RawProbeFile, ptx: &str) -> Result<RawReport, RawError> {
    instrument_raw_within(&probe.text, ptx, &JitBudget::default()).map(|i| i.report)
}

/// Reports an error of [`instrument_raw_within`] on the module `ptx`: a probe file that does not
/// load is printed as the language's diagnostics are (`FILE:LINE: ERROR: …` and the
/// line) and gives exit status 2; a module that does not parse is an error naming it.
fn load_error(probe: &RawProbeFile, ptx: &str, e: RawError) -> Result<ExitCode> {
    let Some((line, message)) = error_line(&e) else {
        return Err(anyhow::Error::new(e).context(format!("cannot instrument {ptx}")));
    };
    eprintln!("{}:{line}: ERROR: {message}", probe.name());
    let source = probe.text.lines().nth(line.saturating_sub(1) as usize);
    if let Some(text) = source.filter(|t| !t.trim().is_empty()) {
        eprintln!("{text}");
    }
    Ok(ExitCode::from(EXIT_BAD_PROGRAM))
}

/// A module with one empty kernel: instrumenting it loads a probe file, expands its
/// `kernel` probes (an unknown helper there is an error before anything runs) and gives
/// its maps.
const EMPTY_KERNEL: &str = ".version 8.0\n.target sm_90\n.address_size 64\n\n\
                            .visible .entry warptrace_load_check()\n{\n\tret;\n}\n";

/// The program a run of the raw probe file hands the runtime: the file's maps (an array
/// per datamodel, `RawReport::maps`) and no probes; `Ok(None)` when the file does not
/// load (the error printed). Errors of helpers at instruction positions show at the
/// kernels that have such sites, as the runtime instruments them.
pub(crate) fn program(probe: &RawProbeFile) -> Result<Option<Program>> {
    let maps = match check_raw_probes(&probe.text, EMPTY_KERNEL) {
        Ok(report) => report.maps,
        Err(e) => {
            load_error(probe, "an empty kernel", e)?;
            return Ok(None);
        }
    };
    let program = Program {
        maps,
        ..Program::default()
    };
    warptrace_verifier::verify_program(&program)
        .map_err(|e| anyhow::anyhow!("the maps of {} do not verify: {e}", probe.name()))?;
    Ok(Some(program))
}

/// The rejected kernels of a report, as `N of M kernels` and their names with the rules
/// that rejected them, for the closing error line.
fn rejected_summary(files: &[(String, Vec<RawKernel>)]) -> Option<String> {
    let total: usize = files.iter().map(|(_, k)| k.len()).sum();
    let mut which = Vec::new();
    for (file, kernels) in files {
        for k in kernels {
            if let RawStatus::Rejected(rs) = &k.status {
                let mut rules: Vec<String> = rs.iter().map(|r| format!("{:?}", r.rule)).collect();
                rules.sort();
                rules.dedup();
                let at = if files.len() > 1 {
                    format!("{file}: ")
                } else {
                    String::new()
                };
                which.push(format!("{at}{} ({})", k.name, rules.join(", ")));
            }
        }
    }
    (!which.is_empty()).then(|| {
        format!(
            "{} of {total} kernels rejected by the verifier: {}",
            which.len(),
            which.join("; ")
        )
    })
}

/// `warptrace instrument --ptx K.ptx -p FILE.toml`: each kernel's outcome on stderr (a
/// rejected one with every rejection), the PTX to `output` or stdout. Exit status 1 when
/// the verifier rejected a kernel (left unchanged in the output), 2 when the probe file
/// does not load.
pub(crate) fn instrument(
    probe: &RawProbeFile,
    ptx_path: &Path,
    output: Option<&Path>,
    resources: bool,
    budget: &JitBudget,
) -> Result<ExitCode> {
    let ptx = std::fs::read_to_string(ptx_path)
        .with_context(|| format!("cannot read PTX file {}", ptx_path.display()))?;
    let out = match instrument_raw_within(&probe.text, &ptx, budget) {
        Ok(out) => out,
        Err(e) => return load_error(probe, &ptx_path.display().to_string(), e),
    };
    for k in &out.report.kernels {
        let name = &k.name;
        match &k.status {
            RawStatus::Accepted => {
                eprintln!("warptrace: {name}: instrumented, {} probe sites", k.sites)
            }
            RawStatus::NoSites => {
                eprintln!("warptrace: {name}: no probe position matches here, unchanged")
            }
            RawStatus::OverBudget(why) => {
                eprintln!("warptrace: {name}: over the JIT budget, left unchanged: {why}")
            }
            RawStatus::Rejected(rejections) => {
                eprintln!(
                    "warptrace: {name}: REJECTED by the verifier ({}), left unchanged:",
                    rejections_count(rejections.len())
                );
                for r in rejections {
                    eprintln!("  {r}");
                }
            }
        }
    }
    match output {
        Some(path) => std::fs::write(path, &out.ptx)
            .with_context(|| format!("cannot write {}", path.display()))?,
        None => std::io::stdout().write_all(out.ptx.as_bytes())?,
    }
    if resources {
        let kernels: Vec<&str> = out
            .report
            .kernels
            .iter()
            .filter(|k| k.status == RawStatus::Accepted)
            .map(|k| k.name.as_str())
            .collect();
        crate::resources::compare(&ptx, &out.ptx, &kernels)?;
    }
    let files = [(ptx_path.display().to_string(), out.report.kernels)];
    Ok(match rejected_summary(&files) {
        Some(why) => {
            eprintln!("warptrace: error: {why}");
            ExitCode::FAILURE
        }
        None => ExitCode::SUCCESS,
    })
}

/// `warptrace -l -p FILE.toml --ptx K.ptx`: each probe of the file and where it runs,
/// then each kernel of the module with its site count and the verifier's verdict.
pub(crate) fn list(probe: &RawProbeFile, ptx: Option<&Path>, gcn: bool) -> Result<ExitCode> {
    let path = match ptx {
        Some(path) if !gcn => path,
        _ => bail!(
            "-l with a raw probe file lists the kernels of a PTX module it instruments: give \
             --ptx FILE (its lines are PTX; --gcn does not apply)"
        ),
    };
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read PTX file {}", path.display()))?;
    let report = match checked_as_run(probe, &text) {
        Ok(r) => r,
        Err(e) => return load_error(probe, &path.display().to_string(), e),
    };
    let file = load_probes(&probe.text).map_err(|e| anyhow::anyhow!("{}: {e}", probe.name()))?;
    let mut out = String::new();
    for p in &file.probes {
        let at: Vec<String> = p
            .positions
            .iter()
            .map(|x| match x {
                Position::Kernel => "kernel".to_string(),
                Position::Opcode(op) => op.clone(),
            })
            .collect();
        let _ = writeln!(
            out,
            "probe {} ({}:{}): at {}",
            p.name,
            probe.name(),
            p.line,
            at.join(", ")
        );
    }
    let file = path.display();
    for k in &report.kernels {
        let kernel = warptrace_runtime::demangle(&k.name);
        let _ = match &k.status {
            RawStatus::Accepted => writeln!(out, "  {file}: {kernel}: {} sites", k.sites),
            RawStatus::NoSites => writeln!(out, "  {file}: {kernel}: no site"),
            RawStatus::OverBudget(why) => {
                writeln!(out, "  {file}: {kernel}: over the JIT budget ({why})")
            }
            RawStatus::Rejected(rs) => {
                let mut rules: Vec<String> = rs.iter().map(|r| format!("{:?}", r.rule)).collect();
                rules.sort();
                rules.dedup();
                writeln!(
                    out,
                    "  {file}: {kernel}: {} sites, REJECTED ({}; `warptrace verify` says why)",
                    k.sites,
                    rules.join(", ")
                )
            }
        };
    }
    print!("{out}");
    Ok(ExitCode::SUCCESS)
}

/// `1 rejection`, `4 rejections`.
fn rejections_count(n: usize) -> String {
    format!("{n} rejection{}", if n == 1 { "" } else { "s" })
}

/// `sha256:HEX` of `bytes`: a raw probe file's hash is its file's (what `sha256sum`
/// prints), a module's likewise.
fn sha256(bytes: &[u8]) -> String {
    let hex: String = Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("sha256:{hex}")
}

/// `warptrace verify FILE.toml --ptx K.ptx…`: checks the probes against every kernel of
/// each module, prints each kernel's verdict (Accepted, NoSites, Rejected with every
/// rejection) and, with `--cert`, writes a certificate: the probe file's SHA-256, each
/// module's, and a kernel check per kernel the probes instrument. Exit status 2 when a
/// kernel is rejected, the file does not load, or no kernel has a site (nothing proved).
pub(crate) fn verify(
    probe: &RawProbeFile,
    target: Target,
    cert_path: Option<&Path>,
    ptx: &[PathBuf],
    gcn: &[PathBuf],
) -> Result<ExitCode> {
    if target == Target::Gcn || !gcn.is_empty() {
        bail!(
            "{} is a raw PTX probe: its lines are PTX, so it is verified for --target ptx \
             against --ptx modules only (NEUTRINO's GCN `registers` form is not supported)",
            probe.name()
        );
    }
    if ptx.is_empty() {
        bail!(
            "a raw probe is verified on the kernels it instruments: give the PTX with --ptx \
             FILE (repeatable), e.g. `warptrace verify {} --ptx kernel.ptx`",
            probe.name()
        );
    }
    let start = Instant::now();
    let mut files = Vec::new();
    let mut checks = vec![Check {
        level: RAW_LEVEL.into(),
        name: "NEUTRINO probe file loads".into(),
        scope: probe.name(),
        verdict: Verdict::Proved,
        micros: 0,
    }];
    for path in ptx {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read PTX file {}", path.display()))?;
        let started = Instant::now();
        let report = match checked_as_run(probe, &text) {
            Ok(r) => r,
            Err(e) => return load_error(probe, &path.display().to_string(), e),
        };
        let checked = report
            .kernels
            .iter()
            .filter(|k| k.status != RawStatus::NoSites)
            .count();
        let micros = started.elapsed().as_micros() as u64 / checked.max(1) as u64;
        let module = format!("{} {}", path.display(), sha256(text.as_bytes()));
        for k in &report.kernels {
            let verdict = match &k.status {
                // Nothing is spliced, so nothing is proved or refuted.
                RawStatus::NoSites | RawStatus::OverBudget(_) => continue,
                RawStatus::Accepted => Verdict::Proved,
                RawStatus::Rejected(rs) => Verdict::Refuted {
                    counterexample: rs
                        .iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join("; "),
                },
            };
            checks.push(Check {
                level: "kernel".into(),
                name: "all kernel rules".into(),
                scope: format!("{module}: {}", k.name),
                verdict,
                micros,
            });
        }
        files.push((path.display().to_string(), report.kernels));
    }
    if checks.iter().all(|c| c.level != "kernel") {
        checks.push(Check {
            level: "kernel".into(),
            name: "all kernel rules".into(),
            scope: ptx
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
            verdict: Verdict::Unknown {
                reason: "no probe position matches a kernel of these modules: nothing was \
                         checked"
                    .into(),
            },
            micros: 0,
        });
    }
    let cert = Certificate {
        format: CERT_FORMAT.into(),
        warptrace_version: crate::verify::VERSION.into(),
        probe_hash: sha256(probe.text.as_bytes()),
        target: Target::Ptx.name().into(),
        verified: checks.iter().all(|c| c.verdict.is_proved()),
        checks,
        obligations: Vec::new(),
        costs: Vec::new(),
        not_proved: Vec::new(),
        total_micros: start.elapsed().as_micros() as u64,
    };
    print!("{}", render(&cert, probe, &files));
    if let Some(path) = cert_path {
        std::fs::write(path, cert.to_json() + "\n")
            .with_context(|| format!("cannot write the certificate {}", path.display()))?;
        eprintln!("warptrace: certificate written to {}", path.display());
    }
    if let Some(why) = rejected_summary(&files) {
        eprintln!("warptrace: error: {why}");
    }
    Ok(if cert.verified {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_BAD_PROGRAM)
    })
}

/// The report `warptrace verify` prints for a raw probe file: the verdict, then each
/// kernel of each module (`files`: its name and kernels).
fn render(cert: &Certificate, probe: &RawProbeFile, files: &[(String, Vec<RawKernel>)]) -> String {
    let mut out = String::new();
    let verdict = if cert.verified {
        "VERIFIED"
    } else {
        "NOT VERIFIED"
    };
    let _ = writeln!(
        out,
        "{}: {verdict} for {} ({}, raw PTX probes)",
        probe.name(),
        cert.target,
        cert.probe_hash
    );
    for (file, kernels) in files {
        for k in kernels {
            let name = &k.name;
            match &k.status {
                RawStatus::Accepted => {
                    let _ = writeln!(out, "  {file}: {name}: Accepted ({} probe sites)", k.sites);
                }
                RawStatus::NoSites => {
                    let _ = writeln!(out, "  {file}: {name}: NoSites (unchanged)");
                }
                RawStatus::OverBudget(why) => {
                    let _ = writeln!(out, "  {file}: {name}: OverBudget (unchanged: {why})");
                }
                RawStatus::Rejected(rs) => {
                    let n = rejections_count(rs.len());
                    let _ = writeln!(out, "  {file}: {name}: Rejected ({n}):");
                    for r in rs {
                        let _ = writeln!(out, "    {r}");
                    }
                }
            }
        }
    }
    let kernel: Vec<&Check> = cert.checks.iter().filter(|c| c.level == "kernel").collect();
    let held = kernel.iter().filter(|c| c.verdict.is_proved()).count();
    let micros: u64 = kernel.iter().map(|c| c.micros).sum();
    let _ = writeln!(
        out,
        "  {:<24} {held}/{} hold ({:.1} ms)",
        "kernel checks",
        kernel.len(),
        micros as f64 / 1000.0
    );
    for c in &kernel {
        if let Verdict::Unknown { reason } = &c.verdict {
            let _ = writeln!(out, "    NOT PROVED [{}]: {reason}", c.scope);
        }
    }
    let _ = writeln!(out, "  total {:.1} ms", cert.total_micros as f64 / 1000.0);
    out
}

/// Whether `cert` certifies the raw probe file `probe` for this build: a raw probe
/// certificate ([`verify`]'s) of this very file (its SHA-256), this version, PTX, with
/// nothing failed.
fn admits(cert: &Certificate, probe: &RawProbeFile) -> Result<(), CertError> {
    let actual = sha256(probe.text.as_bytes());
    if cert.probe_hash != actual {
        return Err(CertError::OtherProgram {
            certified: cert.probe_hash.clone(),
            actual,
        });
    }
    if !cert.checks.iter().any(|c| c.level == RAW_LEVEL) {
        return Err(CertError::Malformed(
            "not a certificate of a raw probe file".into(),
        ));
    }
    let running = crate::verify::VERSION;
    if cert.warptrace_version != running {
        return Err(CertError::Version {
            issued: cert.warptrace_version.clone(),
            running: running.into(),
        });
    }
    let needed = Target::Ptx.name();
    if cert.target != needed {
        return Err(CertError::Target {
            certified: cert.target.clone(),
            needed: needed.into(),
        });
    }
    let failed = cert
        .checks
        .iter()
        .find(|c| !c.verdict.is_proved())
        .map(|c| format!("{} {} ({})", c.level, c.name, c.scope));
    match (cert.verified, failed) {
        (true, None) => Ok(()),
        (_, Some(what)) => Err(CertError::NotVerified(what)),
        (false, None) => Err(CertError::NotVerified("marked unverified".into())),
    }
}

/// `--require-cert` for a raw probe file: whether the certificate at `path` admits it;
/// prints why not.
pub(crate) fn admitted(probe: &RawProbeFile, path: &Path) -> Result<bool> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the certificate {}", path.display()))?;
    match Certificate::from_json(&text).and_then(|c| admits(&c, probe)) {
        Ok(()) => Ok(true),
        Err(e) => {
            eprintln!(
                "warptrace: ERROR: refusing to run: {} does not certify {}: {e}\n\
                 HINT: run `warptrace verify {} --ptx K.ptx --cert {}` and have it reviewed",
                path.display(),
                probe.name(),
                probe.name(),
                path.display()
            );
            Ok(false)
        }
    }
}
