//! `warptrace instrument --ptx FILE`: splices a module with a probe program and says, per
//! kernel, what became of it — instrumented (with its predicted JIT compile), unchanged
//! and why — then optionally compares resources (`--resources`) and measures what `ptxas`
//! takes on both forms (`--assemble`).

use crate::cli::ProgramArgs;
use anyhow::{bail, Context, Result};
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;
use warptrace_codegen_ptx::jit_cost::{self, Cost, JitBudget};
use warptrace_codegen_ptx::{Instrumented, KernelStatus, Target};

/// The optional checks of the instrumented module.
pub(crate) struct Checks {
    /// `--resources`.
    pub resources: bool,
    /// `--assemble`.
    pub assemble: bool,
    /// `--jit-budget`.
    pub budget: JitBudget,
}

/// How long `--assemble` lets one `ptxas` run.
const ASSEMBLE_LIMIT: Duration = Duration::from_secs(600);

pub(crate) fn ptx(
    args: &ProgramArgs,
    ptx_path: &Path,
    output: Option<&Path>,
    checks: Checks,
) -> Result<ExitCode> {
    let Some((_, verified)) = crate::compile(args)? else {
        return Ok(ExitCode::from(crate::EXIT_BAD_PROGRAM));
    };
    let ptx = std::fs::read_to_string(ptx_path)
        .with_context(|| format!("cannot read PTX file {}", ptx_path.display()))?;
    let result = warptrace_codegen_ptx::instrument_within(&ptx, &verified, &checks.budget)
        .with_context(|| format!("cannot instrument {}", ptx_path.display()))?;
    let mut rejected = 0;
    for kernel in &result.kernels {
        let name = &kernel.name;
        rejected += u32::from(say_status(name, &kernel.status, Target::Ptx));
        if let Some(hint) = &kernel.hint {
            eprintln!("warptrace: {name}:   {hint}");
        }
        if kernel.status.is_instrumented() {
            // Whoever launches it must allocate every copy (decision 0019).
            let copies = warptrace_codegen_ptx::replicas(verified.program(), kernel.id);
            if copies > 1 {
                let bytes = result.layout.total_bytes;
                eprintln!(
                    "warptrace: {name}:   its map buffer holds {copies} copies of its \
                         {bytes}-byte tables and rings ({} bytes): each block updates copy \
                         ctaid.x mod {copies}",
                    u64::from(copies) * bytes
                );
            }
            let own = match kernel.status {
                KernelStatus::Instrumented { sites } => {
                    sites - kernel.functions.iter().map(|f| f.sites).sum::<u32>()
                }
                _ => 0,
            };
            if kernel.snippets < own {
                eprintln!(
                    "warptrace: {name}:   its {own} sites in {} snippets: the counters of \
                     each straight-line piece update once (decision 0048)",
                    kernel.snippets
                );
            }
            for f in &kernel.functions {
                eprintln!(
                    "warptrace: {name}:   device function {} as {} ({} sites)",
                    f.name, f.clone, f.sites
                );
            }
            if let Some(e) = &kernel.jit {
                eprintln!("warptrace: {name}:   JIT: predicted {e}");
            }
        }
    }
    match output {
        Some(path) => std::fs::write(path, &result.ptx)
            .with_context(|| format!("cannot write {}", path.display()))?,
        None => std::io::stdout().write_all(result.ptx.as_bytes())?,
    }
    if checks.resources {
        let kernels: Vec<&str> = result
            .kernels
            .iter()
            .filter(|k| matches!(k.status, KernelStatus::Instrumented { .. }))
            .map(|k| k.name.as_str())
            .collect();
        crate::resources::compare(&ptx, &result.ptx, &kernels)?;
    }
    if checks.assemble {
        assemble(&ptx, &result)?;
    }
    Ok(if rejected == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The line that says what became of a kernel, as either back end reports it (the lines
/// of each violation under a rejected one); whether the verifier rejected it.
pub(crate) fn say_status(name: &str, status: &KernelStatus, target: Target) -> bool {
    match status {
        KernelStatus::Instrumented { sites } => {
            eprintln!("warptrace: {name}: instrumented, {sites} probe sites");
        }
        KernelStatus::NoSites => eprintln!("warptrace: {name}: no probe attaches here, unchanged"),
        KernelStatus::Rejected(errors) => {
            eprintln!("warptrace: {name}: REJECTED by the verifier, left unchanged:");
            for e in &errors.0 {
                eprintln!("  {e}");
            }
            return true;
        }
        KernelStatus::Unsupported { what } => eprintln!(
            "warptrace: {name}: not supported by the {target} back end yet ({what}), unchanged"
        ),
        KernelStatus::OverBudget { why } => {
            eprintln!("warptrace: {name}: over the JIT budget, left unchanged: {why}")
        }
    }
    false
}

/// `--assemble`: both forms through `ptxas`, measured beside the prediction — the module
/// as the JIT compiles it, then each instrumented kernel alone (`ptxas -e`, which still
/// reads the whole module).
fn assemble(original: &str, result: &Instrumented) -> Result<()> {
    let Some(ptxas) = crate::resources::ptxas() else {
        bail!(
            "--assemble runs ptxas, and no ptxas was found: set WARPTRACE_CUDA_HOME or put \
             ptxas on PATH (scripts/setup.sh, then `source .tools/env.sh`)"
        );
    };
    let Some(arch) = warptrace_codegen_ptx::resources::target_arch(original) else {
        bail!("--assemble needs the module's `.target sm_XX` to assemble it for");
    };
    eprintln!("warptrace: assembling the module plain and instrumented with ptxas -arch={arch}…");
    // Both forms at once: the measure is CPU time, which the other run does not inflate.
    let pair = |entry: Option<&str>| -> Result<(Cost, Cost)> {
        let (plain, instrumented) = std::thread::scope(|s| {
            let plain =
                s.spawn(|| jit_cost::measure(&ptxas, arch, original, entry, ASSEMBLE_LIMIT));
            let instrumented = jit_cost::measure(&ptxas, arch, &result.ptx, entry, ASSEMBLE_LIMIT);
            (plain.join(), instrumented)
        });
        let plain = plain.map_err(|_| anyhow::anyhow!("the ptxas thread panicked"))?;
        let plain = plain.context("assembling the original module")?;
        let instrumented = instrumented.context("assembling the instrumented module")?;
        Ok((plain, instrumented))
    };
    let (p, i) = pair(None)?;
    let predicted = jit_cost::predict_module(original, result)
        .context("cannot parse the module to predict its compile")?;
    eprintln!("warptrace: module: ptxas measured {}", figures(p, i));
    eprintln!(
        "warptrace: module: ptxas predicted {}",
        figures(predicted.plain, predicted.instrumented)
    );
    for k in &result.kernels {
        let (KernelStatus::Instrumented { .. }, Some(e)) = (&k.status, &k.jit) else {
            continue;
        };
        let (p, i) = pair(Some(&k.name))?;
        eprintln!("warptrace: {}: ptxas -e measured {}", k.name, figures(p, i));
        eprintln!(
            "warptrace: {}: ptxas -e predicted {}",
            k.name,
            figures(e.plain + jit_cost::BASE, e.instrumented + jit_cost::BASE)
        );
    }
    Ok(())
}

/// `PLAIN s → INSTRUMENTED s (RATIO×), PLAIN MB → INSTRUMENTED MB`.
fn figures(p: Cost, i: Cost) -> String {
    format!(
        "{} → {} ({:.1}×), {} → {}",
        seconds(p),
        seconds(i),
        i.seconds / p.seconds.max(1e-3),
        megabytes(p),
        megabytes(i)
    )
}

fn seconds(c: Cost) -> String {
    format!("{:.2} s", c.seconds)
}

fn megabytes(c: Cost) -> String {
    format!("{:.0} MB", c.megabytes)
}
