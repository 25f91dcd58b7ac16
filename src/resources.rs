//! `warptrace instrument --ptx K --resources`: assembles the module and its instrumented
//! form with `ptxas -v` and compares, per instrumented kernel, the registers a thread,
//! the stack frame and the largest block each can launch
//! (`warptrace_codegen_ptx::resources`). A kernel whose instrumented form cannot take a
//! block its original takes is said UNSUPPORTED for those blocks, with the figures: at run
//! time such a launch runs the original and is counted.

use anyhow::{bail, Context, Result};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use warptrace_codegen_ptx::resources::{
    launch_bound, parse_ptxas_verbose, target_arch, PtxasUsage, Shortfall,
};
use warptrace_verifier::{KernelModel, ResourceKind};

/// `ptxas`: `$WARPTRACE_CUDA_HOME/bin/ptxas`, else the one on `PATH`.
pub(crate) fn ptxas() -> Option<PathBuf> {
    let home = std::env::var_os("WARPTRACE_CUDA_HOME").map(|h| Path::new(&h).join("bin/ptxas"));
    let on_path = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .map(|d| d.join("ptxas"));
    home.into_iter().chain(on_path).find(|p| p.is_file())
}

/// `ptxas -v -arch=ARCH` on `ptx`: each entry's figures.
fn usage(ptxas: &Path, arch: &str, ptx: &str, what: &str) -> Result<HashMap<String, PtxasUsage>> {
    let dir = tempfile::tempdir().context("cannot make a temporary directory for ptxas")?;
    let input = dir.path().join("in.ptx");
    std::fs::write(&input, ptx).context("cannot write the PTX for ptxas")?;
    let out = Command::new(ptxas)
        .arg(format!("-arch={arch}"))
        .arg("-v")
        .arg(&input)
        .arg("-o")
        .arg(dir.path().join("out.cubin"))
        .output()
        .with_context(|| format!("cannot run {}", ptxas.display()))?;
    let report =
        String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        let first = report.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        bail!("ptxas does not assemble the {what} module: {first}");
    }
    Ok(parse_ptxas_verbose(&report))
}

/// Compares the resources of each of `kernels` (mangled names, instrumented) in
/// `original` and `instrumented`, printing a line per kernel on stderr, and an
/// UNSUPPORTED line for each that cannot take some block its original takes.
pub(crate) fn compare(original: &str, instrumented: &str, kernels: &[&str]) -> Result<()> {
    let Some(ptxas) = ptxas() else {
        bail!(
            "--resources assembles both forms with `ptxas -v`, and no ptxas was found: set \
             WARPTRACE_CUDA_HOME or put ptxas on PATH (scripts/setup.sh, then `source \
             .tools/env.sh`)"
        );
    };
    let Some(arch) = target_arch(original) else {
        bail!("--resources needs the module's `.target sm_XX` to assemble it for");
    };
    let (before, after) = std::thread::scope(|s| {
        let before = s.spawn(|| usage(&ptxas, arch, original, "original"));
        let after = usage(&ptxas, arch, instrumented, "instrumented");
        (before.join(), after)
    });
    let before = before.map_err(|_| anyhow::anyhow!("ptxas thread panicked"))??;
    let after = after?;
    let module = warptrace_codegen_ptx::parse(original).context("cannot parse the module")?;
    for &name in kernels {
        let (Some(o), Some(i)) = (before.get(name), after.get(name)) else {
            eprintln!("warptrace: {name}: resources: ptxas reports no figures for it");
            continue;
        };
        let bound = module.kernel_model(name).and_then(|m| {
            launch_bound(
                m.resources()
                    .iter()
                    .filter(|r| r.kind == ResourceKind::LaunchBound)
                    .map(|r| r.text.as_str()),
            )
        });
        let (o, i) = (o.resources(bound), i.resources(bound));
        eprintln!(
            "warptrace: {name}: resources (ptxas -v, {arch}): {} -> {} registers a thread, {} \
             -> {} bytes of stack; blocks of up to {} -> {} threads",
            o.registers, i.registers, o.local_bytes, i.local_bytes, o.max_threads, i.max_threads
        );
        if let Some(s) = Shortfall::of(o, i, None) {
            eprintln!(
                "warptrace: {name}: UNSUPPORTED for blocks of more than {} threads: {s}; at run \
                 time such a launch runs the original, counted",
                i.max_threads
            );
        }
    }
    Ok(())
}
