//! `warptrace -e PROG -- CMD…`: run a program with the runtime preloaded, then report.

use crate::cli::{OutputFormat, RunArgs};
use crate::host::Host;
use crate::live::{Ended, Supervisor};
use crate::outputs::{json_summary, Outputs};
use crate::raw::RawProbeFile;
use crate::EXIT_BAD_PROGRAM;
use anyhow::{bail, Context, Result};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use warptrace_ir::{Bundle, HostEvent, Program};
use warptrace_runtime::{
    Report, ENV_CACHE_DIR, ENV_JIT_BUDGET, ENV_LAUNCH_COUNT, ENV_LAUNCH_SKIP, ENV_LIVE_MS,
    ENV_MAP_MEMORY, ENV_MAX_RECORDS, ENV_NO_CACHE, ENV_PER_LAUNCH_BUFFERS, ENV_RAW_PROBES,
    ENV_SAMPLE, LIVE_DIR,
};

/// The runtime library's file name, built by the `warptrace-preload` crate.
const PRELOAD_NAME: &str = "libwarptrace_preload.so";

/// `warptrace -p FILE.toml -- CMD…`: runs the program with the runtime instrumenting
/// every module it loads with the raw probe file; the maps are the file's datamodels'
/// arrays (`docs/raw-probes.md`).
pub fn run_raw(probe: RawProbeFile, args: &RunArgs) -> Result<ExitCode> {
    if args.command.is_empty() {
        bail!(
            "no command to run: raw probes need one after `--`, e.g. `warptrace -p {} -- ./app`",
            probe.name()
        );
    }
    let Some(program) = crate::raw::program(&probe)? else {
        return Ok(ExitCode::from(EXIT_BAD_PROGRAM));
    };
    if let Some(cert) = &args.require_cert {
        if !crate::raw::admitted(&probe, cert)? {
            return Ok(ExitCode::from(EXIT_BAD_PROGRAM));
        }
    }
    run_bundle(probe.text, program, args, true)
}

/// `--dry-run`: the `Attaching N probes...` line a run would print first, and nothing run.
pub fn dry_run(program: &Program, args: &RunArgs) -> Result<ExitCode> {
    attaching(program, args.format)?;
    let command = match args.command.as_slice() {
        [] => String::new(),
        words => format!(" (`{}` was not started)", words.join(" ")),
    };
    eprintln!("warptrace: dry run: the program compiles and verifies; nothing was run{command}");
    Ok(ExitCode::SUCCESS)
}

pub fn run(source: String, program: Program, args: &RunArgs) -> Result<ExitCode> {
    run_bundle(source, program, args, false)
}

/// bpftrace's first line, `Attaching N probes...` (`-f json`: its `attached_probes`
/// record), on stdout before anything runs: N counts every attach point of the program,
/// host blocks included, as bpftrace counts them (a device probe attaches to each kernel
/// it selects as the kernel is loaded).
fn attaching(program: &Program, format: OutputFormat) -> Result<()> {
    use std::io::Write as _;
    let n = (program.probes.len() + program.host.len()) as u64;
    let line = match format {
        OutputFormat::Text => warptrace_runtime::text::attached_probes(n),
        OutputFormat::Json => warptrace_runtime::json::attached_probes(n),
    };
    let mut out = std::io::stdout().lock();
    out.write_all(line.as_bytes())?;
    out.flush()?;
    Ok(())
}

/// Runs the command under `program` (whose `source` goes into the bundle); `raw`: the
/// source is a raw probe file the runtime instruments with, the program its maps.
fn run_bundle(source: String, program: Program, args: &RunArgs, raw: bool) -> Result<ExitCode> {
    if args.command.is_empty() && !program.probes.is_empty() {
        bail!(
            "no command to run: device probes need one after `--`, e.g. \
             `warptrace -e 'kernel:entry {{ @n = count(); }}' -- ./app`"
        );
    }
    // A bad -o/--trace path fails before anything runs.
    let outputs = Outputs::prepare(args)?;
    outputs.check(&program)?;
    let mut host = Host::new(&program, args.format);
    if host.has(HostEvent::LaunchComplete) {
        eprintln!(
            "warptrace: warning: `launch:complete` blocks do not run yet (they will run after \
             each launch's read-back)"
        );
    }
    if !raw {
        attaching(&program, args.format)?;
    }
    let stopped = host.run(HostEvent::Begin)?;
    let mut code = ExitCode::SUCCESS;
    let mut report = None;
    // Said last, after the summary: the run's outcome.
    let mut nothing = None;
    let mut detached = None;
    if !stopped && args.command.is_empty() && crate::live::snapshot_ms(&program).is_some() {
        // Host blocks alone: the intervals run until `exit()` or SIGINT, as bpftrace's.
        crate::live::Supervisor::new(&program, None)?.watch(None, &mut host)?;
    }
    if !stopped && !args.command.is_empty() {
        let traced = trace(source.clone(), &program, args, raw, &mut host)?;
        let merged = traced.report.clone();
        // The device's printf output (and lost events) after `begin`'s, before `end`'s.
        host.print_device_events()?;
        let status = match traced.ended {
            Ended::Exited(status) => status,
            Ended::Stopped => std::process::ExitStatus::default(),
            // Printed below; the program's exit is waited for last.
            Ended::Detached(why) => {
                detached = Some((why, traced));
                std::process::ExitStatus::default()
            }
        };
        code = exit_code(status);
        if (raw || !program.probes.is_empty()) && merged.summary.images_loaded == 0 {
            nothing = Some(nothing_traced(&merged, &args.command));
            if status.success() {
                code = ExitCode::from(EXIT_NOTHING_TRACED);
            }
        } else if merged.pids.is_empty() {
            eprintln!("warptrace: warning: {NO_REPORT}");
        }
        report = Some(merged);
    }
    host.run(HostEvent::End)?;
    print!("{}", host.exit_text());
    if let Some(report) = &report {
        if args.format == OutputFormat::Json {
            print!("{}", json_summary(report));
        }
        eprint!(
            "{}",
            warptrace_runtime::render_summary(report, args.verbose)
        );
    }
    outputs.write(&program, &source, report.as_ref(), host.store())?;
    if let Some(why) = nothing {
        eprintln!("{why}");
    }
    if let Some((why, mut traced)) = detached {
        eprintln!(
            "warptrace: detached ({why}): the results above are those until then; the \
             program goes on untraced"
        );
        let status = traced
            .child
            .wait()
            .context("waiting for the traced program")?;
        code = exit_code(status);
    }
    Ok(code)
}

/// A traced run: the merged report of its processes (at their exit, or at the detach),
/// how it ended, and the program (still running when detached) with the directory its
/// runtimes write to, kept until it exits.
struct Traced {
    report: Report,
    ended: Ended,
    child: std::process::Child,
    _work: tempfile::TempDir,
}

/// The exit status of a run whose program exited 0 but where no traced process loaded a
/// CUDA module: nothing was probed, and a script should not take that for a clean run.
const EXIT_NOTHING_TRACED: u8 = 1;

const NO_REPORT: &str = "the traced program wrote no report (it made no CUDA call, was \
                         killed, or is statically linked so LD_PRELOAD could not reach it)";

/// Why a run traced nothing: no process it started handed the CUDA driver a module.
fn nothing_traced(report: &Report, command: &[String]) -> String {
    let processes = match report.pids.len() {
        0 => NO_REPORT.to_string(),
        1 => "the traced process loaded no CUDA module".to_string(),
        n => format!("none of the {n} traced processes loaded a CUDA module"),
    };
    format!(
        "warptrace: error: nothing was traced: {processes}, so no kernel could be \
         instrumented. Is `{}` a CUDA program, and does it see a GPU and its driver here \
         (nvidia-smi)? A program linked statically against libcuda cannot be reached \
         through LD_PRELOAD.",
        command.join(" ")
    )
}

/// Runs the command with the runtime preloaded (`raw`: the bundle holds a raw probe
/// file), the `interval` blocks on `host` while it runs; returns the merged report of
/// every process it started and how it ended, their results merged into `host`.
fn trace(
    source: String,
    program: &Program,
    args: &RunArgs,
    raw: bool,
    host: &mut Host<'_>,
) -> Result<Traced> {
    let preload = preload_library(args.preload.as_deref())?;
    let work = tempfile::Builder::new()
        .prefix("warptrace-")
        .tempdir()
        .context("cannot create a temporary directory")?;
    let bundle_path = work.path().join("bundle.json");
    let results = work.path().join("results");
    std::fs::create_dir(&results)?;
    std::fs::write(&bundle_path, Bundle::new(source, program.clone()).to_json())?;

    let mut ld_preload = OsString::from(&preload);
    if let Some(existing) = std::env::var_os("LD_PRELOAD").filter(|v| !v.is_empty()) {
        ld_preload.push(":");
        ld_preload.push(existing);
    }
    let (cmd, cmd_args) = args
        .command
        .split_first()
        .context("no command to run after `--`")?;
    let mut command = std::process::Command::new(cmd);
    command
        .args(cmd_args)
        .env("LD_PRELOAD", ld_preload)
        .env("WARPTRACE_BUNDLE", &bundle_path)
        .env("WARPTRACE_RESULTS", &results)
        .env("WARPTRACE_VERBOSE", if args.verbose { "1" } else { "0" })
        .env(ENV_LAUNCH_SKIP, args.launch_skip.to_string())
        .env(ENV_SAMPLE, args.sample.to_string())
        .env(ENV_MAX_RECORDS, args.max_records.to_string());
    match args.map_memory {
        Some(bytes) => command.env(ENV_MAP_MEMORY, bytes.to_string()),
        None => command.env_remove(ENV_MAP_MEMORY),
    };
    match args.jit_budget {
        Some(b) => command.env(ENV_JIT_BUDGET, b.as_arg()),
        None => command.env_remove(ENV_JIT_BUDGET),
    };
    if args.per_launch_buffers {
        command.env(ENV_PER_LAUNCH_BUFFERS, "1");
    }
    match crate::live::snapshot_ms(program) {
        Some(ms) => command.env(ENV_LIVE_MS, ms.to_string()),
        None => command.env_remove(ENV_LIVE_MS),
    };
    if raw {
        command.env(ENV_RAW_PROBES, "1");
    } else {
        command.env_remove(ENV_RAW_PROBES);
    }
    match args.launch_count {
        Some(m) => command.env(ENV_LAUNCH_COUNT, m.to_string()),
        None => command.env_remove(ENV_LAUNCH_COUNT),
    };
    for (name, value) in cache_env(args)? {
        match value {
            Some(v) => command.env(name, v),
            None => command.env_remove(name),
        };
    }
    let mut child = command
        .spawn()
        .with_context(|| format!("cannot run `{cmd}`"))?;
    // SIGINT to warptrace detaches: the program goes on untraced, warptrace prints what
    // it has (a terminal's Ctrl-C reaches the program too, through its process group).
    let mut supervisor = Supervisor::new(program, Some(&results))?;
    let ended = supervisor.watch(Some(&mut child), host)?;
    let report = match ended {
        Ended::Detached(_) => supervisor.take(host, &results.join(LIVE_DIR))?,
        Ended::Exited(_) | Ended::Stopped => supervisor.take(host, &results)?,
    };
    Ok(Traced {
        report,
        ended,
        child,
        _work: work,
    })
}

/// The module cache settings of `--cache-dir` / `--no-cache` for the traced program:
/// each variable to set (`Some`) or remove (`None`). Without either flag, nothing: the
/// environment's own `WARPTRACE_CACHE_DIR` / `WARPTRACE_NO_CACHE` reach the runtime.
fn cache_env(args: &RunArgs) -> Result<Vec<(&'static str, Option<OsString>)>> {
    if args.no_cache {
        return Ok(vec![(ENV_NO_CACHE, Some("1".into()))]);
    }
    let Some(dir) = &args.cache_dir else {
        return Ok(Vec::new());
    };
    // Absolute: the traced program may change directory before its first CUDA call.
    let dir = std::path::absolute(dir)
        .with_context(|| format!("cannot resolve --cache-dir {}", dir.display()))?;
    Ok(vec![
        (ENV_CACHE_DIR, Some(dir.into_os_string())),
        (ENV_NO_CACHE, None),
    ])
}

fn preload_library(explicit: Option<&Path>) -> Result<PathBuf> {
    if let Some(path) = explicit {
        return absolute(path);
    }
    if let Some(path) = std::env::var_os("WARPTRACE_PRELOAD") {
        return absolute(Path::new(&path));
    }
    let exe = std::env::current_exe().context("cannot locate the warptrace executable")?;
    let mut dir = exe.parent().map(Path::to_path_buf);
    // `cargo test` runs binaries from target/<profile>/deps as well.
    while let Some(d) = dir {
        let candidate = d.join(PRELOAD_NAME);
        if candidate.is_file() {
            return Ok(candidate);
        }
        dir = if d.ends_with("deps") {
            d.parent().map(Path::to_path_buf)
        } else {
            None
        };
    }
    bail!(
        "cannot find {PRELOAD_NAME} next to {}: build it (`cargo build --release -p \
         warptrace-preload`, or `cargo build --release` in the repository, which builds both) \
         or pass --preload PATH",
        exe.display()
    )
}

fn absolute(path: &Path) -> Result<PathBuf> {
    if !path.is_file() {
        bail!("runtime library {} does not exist", path.display());
    }
    std::path::absolute(path).context("cannot resolve the runtime library's path")
}

fn exit_code(status: std::process::ExitStatus) -> ExitCode {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => ExitCode::from(code.clamp(0, 255) as u8),
        (None, Some(signal)) => ExitCode::from((128 + signal).clamp(0, 255) as u8),
        (None, None) => ExitCode::FAILURE,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The README's GPU-machine step, `cargo build --release`, builds the runtime library
    /// the CLI looks for next to itself: it is a default member of the workspace.
    #[test]
    fn a_plain_build_makes_the_runtime_library() {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let out = std::process::Command::new(cargo)
            .args([
                "metadata",
                "--format-version",
                "1",
                "--no-deps",
                "--offline",
            ])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .expect("cargo metadata runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let meta: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        let members: Vec<&str> = meta["workspace_default_members"]
            .as_array()
            .expect("default members")
            .iter()
            .filter_map(|m| m.as_str())
            .collect();
        for package in ["#warptrace@", "#warptrace-preload@"] {
            assert!(
                members.iter().any(|m| m.contains(package)),
                "{package} is not built by a plain `cargo build`: {members:?}"
            );
        }
    }

    #[test]
    fn cache_flags_become_the_runtimes_environment() {
        let none = crate::cli::parse_run(&[]).expect("parses");
        assert!(cache_env(&none).expect("env").is_empty());

        let off = crate::cli::parse_run(&["--no-cache"]).expect("parses");
        assert_eq!(
            cache_env(&off).expect("env"),
            [(ENV_NO_CACHE, Some(OsString::from("1")))]
        );

        let dir = crate::cli::parse_run(&["--cache-dir", "rel/cache"]).expect("parses");
        let env = cache_env(&dir).expect("env");
        let want = std::env::current_dir().expect("cwd").join("rel/cache");
        assert_eq!(
            env,
            [
                (ENV_CACHE_DIR, Some(want.into_os_string())),
                (ENV_NO_CACHE, None)
            ]
        );

        let both =
            crate::cli::parse_run(&["--no-cache", "--cache-dir", "d"]).expect_err("conflict");
        assert_eq!(both.kind(), clap::error::ErrorKind::ArgumentConflict);
    }
}
