//! The `warptrace` command line: wires the stages together and nothing more.
//!
//! `warptrace -e PROG -- CMD…` compiles and verifies the probes, hands them to the
//! `LD_PRELOAD` runtime of the child process, waits, and prints the maps; `compile`
//! and `instrument` expose the compiler stages for inspection and scripting.

/// Instrumenting and verifying allocate many small strings; see
/// docs/decisions/0006-mimalloc.md.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod cli;
mod host;
mod instrument;
mod library;
mod list;
mod live;
mod outputs;
mod progress;
mod proof_dir;
mod raw;
mod resources;
mod run;
mod verify;

use anyhow::{bail, Context, Result};
use clap::Parser;
use cli::{Cli, Command, Emit, ProgramArgs, RunArgs, Stage};
use std::io::Write;
use std::process::ExitCode;
use warptrace_ir::{Bundle, Program};
use warptrace_verifier::VerifiedProgram;

/// Exit status for a probe program that does not compile or verify (bpftrace's usage
/// errors are 1; warptrace separates "your probe is wrong" from "the run failed").
pub(crate) const EXIT_BAD_PROGRAM: u8 = 2;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match dispatch(cli) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("warptrace: error: {err:#}");
            ExitCode::FAILURE
        }
    }
}

fn dispatch(mut cli: Cli) -> Result<ExitCode> {
    // `-c 'CMD ARGS'`, bpftrace's spelling of `-- CMD ARGS`, split as a shell would.
    if let Some(cmd) = cli.run.cmd.take() {
        cli.run.command = shlex::split(&cmd)
            .filter(|words| !words.is_empty())
            .with_context(|| {
                format!("-c '{cmd}': not a command (empty, or a quote is not closed)")
            })?;
    }
    match cli.command {
        Some(Command::Compile { program, emit }) => {
            let Some((source, verified)) = compile(&program)? else {
                return Ok(ExitCode::from(EXIT_BAD_PROGRAM));
            };
            let text = match emit {
                Emit::Ir => verified.program().to_string(),
                Emit::Bundle => Bundle::new(source, verified.program().clone()).to_json() + "\n",
            };
            std::io::stdout().write_all(text.as_bytes())?;
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Instrument {
            program,
            ptx,
            gcn,
            output,
            code_object,
            resources,
            jit_budget,
            assemble,
        }) => match (ptx, gcn, raw::raw_probe(&program)?) {
            (Some(ptx), _, Some(probe)) => raw::instrument(
                &probe,
                &ptx,
                output.as_deref(),
                resources,
                &jit_budget.unwrap_or_default(),
            ),
            (Some(ptx), _, None) => instrument::ptx(
                &program,
                &ptx,
                output.as_deref(),
                instrument::Checks {
                    resources,
                    assemble,
                    budget: jit_budget.unwrap_or_default(),
                },
            ),
            (None, Some(_), Some(probe)) => bail!(
                "{} is a raw PTX probe: its lines are PTX, so it instruments --ptx modules \
                 only (NEUTRINO's GCN `registers` form is not supported)",
                probe.name()
            ),
            (None, Some(gcn), None) => {
                instrument_gcn(&program, &gcn, output.as_deref(), code_object.as_deref())
            }
            (None, None, _) => bail!("give the file to instrument: --ptx FILE or --gcn FILE"),
        },
        Some(Command::Verify {
            program,
            target,
            cert,
            ptx,
            gcn,
            no_proof_cache,
        }) => match raw::raw_probe(&program)? {
            Some(probe) => raw::verify(&probe, target, cert.as_deref(), &ptx, &gcn),
            None => {
                proof_dir::install(no_proof_cache);
                progress::install();
                verify::verify(&program, target, cert.as_deref(), &ptx, &gcn)
            }
        },
        None if cli.run.list.is_some() => list::list(&cli.run),
        None => {
            if cli.run.ptx.is_some() && cli.run.debug != Some(Stage::Ptx) {
                bail!(
                    "--ptx goes with -l (list a program's sites in the file) or -d ptx (print \
                     the file instrumented)"
                );
            }
            if let Some(probe) = raw::raw_probe(&cli.run.program)? {
                if cli.run.debug.is_some() {
                    bail!(
                        "-d prints a language program's stages; a raw probe file is instrumented \
                         with `warptrace instrument -p {} --ptx FILE`",
                        probe.name()
                    );
                }
                if cli.run.dry_run {
                    eprintln!(
                        "warptrace: dry run: {} loads; nothing was run",
                        probe.name()
                    );
                    return Ok(ExitCode::SUCCESS);
                }
                return run::run_raw(probe, &cli.run);
            }
            let Some((source, verified)) = compile(&cli.run.program)? else {
                return Ok(ExitCode::from(EXIT_BAD_PROGRAM));
            };
            if let Some(cert) = &cli.run.require_cert {
                if !verify::admitted(verified.program(), cert)? {
                    return Ok(ExitCode::from(EXIT_BAD_PROGRAM));
                }
            }
            match cli.run.debug {
                Some(stage) => debug_stage(stage, &cli.run, source, &verified),
                None if cli.run.dry_run => run::dry_run(verified.program(), &cli.run),
                None => run::run(source, verified.program().clone(), &cli.run),
            }
        }
    }
}

/// `-d STAGE`: one stage of the compile on stdout, and nothing run.
fn debug_stage(
    stage: Stage,
    args: &RunArgs,
    source: String,
    verified: &VerifiedProgram,
) -> Result<ExitCode> {
    let text = match stage {
        Stage::Ir => verified.program().to_string(),
        Stage::Bundle => Bundle::new(source, verified.program().clone()).to_json() + "\n",
        Stage::Ptx => {
            let Some(ptx) = &args.ptx else {
                bail!(
                    "-d ptx prints the kernels of a PTX file instrumented: give it with --ptx FILE"
                );
            };
            let checks = instrument::Checks {
                resources: false,
                assemble: false,
                budget: args.jit_budget.unwrap_or_default(),
            };
            return instrument::ptx(&args.program, ptx, None, checks);
        }
    };
    std::io::stdout().write_all(text.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

/// Reads, compiles and verifies the probe program. `Ok(None)` means diagnostics were
/// printed and the program is unusable.
pub(crate) fn compile(args: &ProgramArgs) -> Result<Option<(String, VerifiedProgram)>> {
    let Some((source, file_name, program)) = compile_unverified(args)? else {
        return Ok(None);
    };
    match warptrace_verifier::verify_program(&program) {
        Ok(verified) => Ok(Some((source, verified))),
        Err(errors) => {
            eprintln!("{file_name}: ERROR: the verifier rejected the probe program:");
            for e in &errors.0 {
                eprintln!("  {e}");
            }
            Ok(None)
        }
    }
}

/// Reads and compiles the probe program (source, file name, IR); `Ok(None)` means
/// diagnostics were printed.
pub(crate) fn compile_unverified(args: &ProgramArgs) -> Result<Option<(String, String, Program)>> {
    // A `.toml` file is a raw probe, never parsed as a program.
    if let Some(path) = raw::raw_path(args) {
        return Err(raw::not_a_program(&path));
    }
    let (source, file_name) = match (&args.expr, args.program_file(), &args.probe) {
        (Some(expr), None, None) => (expr.clone(), "stdin".to_string()),
        (None, Some(path), None) => (
            std::fs::read_to_string(path)
                .with_context(|| format!("cannot read probe file {}", path.display()))?,
            path.display().to_string(),
        ),
        (None, None, Some(name))
            if !name.is_empty() && name.bytes().all(|b| b.is_ascii_digit()) =>
        {
            bail!(
                "`-p {name}`: in bpftrace -p takes a PID; here -p names a library probe \
                 (`warptrace -l` lists them). warptrace cannot attach to a running process: \
                 kernels are instrumented as the program loads them, so run the program \
                 under it (`warptrace -p block_sched -- ./app`, or -c './app args')"
            )
        }
        (None, None, Some(name)) => match library::source(name) {
            Some(src) => (src.to_string(), format!("probes/{name}.wt")),
            None => bail!(
                "no library probe named `{name}`; the library has: {} (`warptrace -l` \
                 describes each); a raw PTX probe file goes as -p FILE.toml",
                library::names()
            ),
        },
        (None, None, None) => {
            bail!(
                "no probe program: use -e 'PROGRAM', a .wt file, -p NAME or a raw probe \
                 FILE.toml (see --help)"
            )
        }
        _ => bail!("give the probe program one way: -e, a file, or -p NAME"),
    };
    let params = args.positional();
    match warptrace_lang::compile_with(&source, &file_name, &params) {
        // With -e or -p every argument is a parameter; one the program never reads is
        // most likely a command that lacks its `--`.
        Ok(c) if !c.reads_params && args.program_file().is_none() && !params.is_empty() => {
            let flag = if args.expr.is_some() { "-e" } else { "-p" };
            bail!(
                "`{arg}` after the options is a positional parameter ($1), but the program \
                 reads none. To run a command, put it after `--` (`warptrace {flag} … -- \
                 {arg}`) or give it with -c",
                arg = params[0]
            )
        }
        Ok(c) => Ok(Some((source, file_name, c.program))),
        Err(diagnostics) => {
            let mut stderr = codespan_stderr();
            diagnostics.emit(&mut stderr)?;
            Ok(None)
        }
    }
}

fn codespan_stderr() -> codespan_reporting::term::termcolor::StandardStream {
    use codespan_reporting::term::termcolor::{ColorChoice, StandardStream};
    use std::io::IsTerminal;
    let choice = if std::io::stderr().is_terminal() {
        ColorChoice::Auto
    } else {
        ColorChoice::Never
    };
    StandardStream::stderr(choice)
}

/// `warptrace instrument --gcn`: each kernel's outcome on stderr, the instrumented
/// assembly to `output` (or stdout) and, asked for, the code object. Exit status 1 when
/// the verifier rejected a kernel.
fn instrument_gcn(
    args: &ProgramArgs,
    path: &std::path::Path,
    output: Option<&std::path::Path>,
    code_object: Option<&std::path::Path>,
) -> Result<ExitCode> {
    use warptrace_codegen_gcn::{Assembly, Target};
    let Some((_, verified)) = compile(args)? else {
        return Ok(ExitCode::from(EXIT_BAD_PROGRAM));
    };
    let asm = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read AMDGPU assembly file {}", path.display()))?;
    // Assembled whenever it can be, so that the text written is the one that assembles
    // (long branches where the snippets pushed a kernel branch out of reach).
    let (result, assembly) = warptrace_codegen_gcn::instrument_as_loaded(&asm, &verified)
        .with_context(|| format!("cannot instrument {}", path.display()))?;
    let code = match assembly {
        Assembly::Built(code) => Some(code),
        Assembly::NoTarget if code_object.is_some() => {
            bail!("{} has no `.amdgcn_target` to assemble for", path.display())
        }
        Assembly::Failed(e) if code_object.is_some() => {
            return Err(anyhow::Error::new(e)
                .context(format!("cannot build a code object of {}", path.display())))
        }
        Assembly::Failed(_) => {
            let why = assembly.why_not().unwrap_or_default();
            eprintln!(
                "warptrace: not assembled ({why}): a kernel branch the snippets push out of \
                 reach is not made long"
            );
            None
        }
        Assembly::NoTarget => None,
    };
    let mut rejected = 0;
    for k in &result.kernels {
        let name = &k.name;
        rejected += u32::from(instrument::say_status(name, &k.status, Target::Gcn));
        if k.status.is_instrumented() {
            if let Some(o) = k.occupancy {
                eprintln!(
                    "warptrace: {name}:   SGPRs {} → {}, VGPRs {} → {}, waves per SIMD {} → {}",
                    o.sgprs.0, o.sgprs.1, o.vgprs.0, o.vgprs.1, o.waves.0, o.waves.1
                );
            }
            if k.copies > 1 {
                // Whoever launches it must allocate every copy (decisions 0019, 0020).
                let (copies, bytes) = (k.copies, result.layout.total_bytes);
                eprintln!(
                    "warptrace: {name}:   its map buffer holds {copies} copies of its \
                         {bytes}-byte tables and rings ({} bytes): each workgroup updates copy \
                         ctaid.x mod {copies}",
                    u64::from(copies) * bytes
                );
            }
            if k.long_branches > 0 {
                let n = k.long_branches;
                let (what, them) = if n == 1 {
                    ("branch", "it")
                } else {
                    ("branches", "them")
                };
                eprintln!(
                    "warptrace: {name}:   {n} {what} made long (the snippets pushed {them} \
                         past a 16-bit offset's reach)"
                );
            }
        }
    }
    match output {
        Some(p) => std::fs::write(p, &result.asm)
            .with_context(|| format!("cannot write {}", p.display()))?,
        None => std::io::stdout().write_all(result.asm.as_bytes())?,
    }
    if let (Some(p), Some(code)) = (code_object, code) {
        std::fs::write(p, &code.shared).with_context(|| format!("cannot write {}", p.display()))?;
        eprintln!("warptrace: code object written to {}", p.display());
    }
    Ok(if rejected == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
