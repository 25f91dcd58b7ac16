//! `warptrace-ptx-cost`: prints `docs/ptx-cost.md`, the `ptxas -v` register count of every
//! corpus kernel before and after instrumentation with a handful of representative probe
//! programs (issue 5, "Register cost").
//!
//! Regenerate with `source .tools/env.sh` then
//! `cargo run -p warptrace-tests --bin warptrace-ptx-cost > docs/ptx-cost.md`.
//! Exits non-zero if `ptxas` is missing, a probe program does not compile, or `ptxas`
//! rejects a module.

use std::collections::HashMap;
use std::process::{Command, ExitCode};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use warptrace_codegen_ptx::{instrument, Instrumented, KernelStatus};

/// The architecture every module is assembled for.
const ARCH: &str = "sm_90a";
/// How many `ptxas` run at once.
const THREADS: usize = 4;

/// (column title, probe program).
const PROBES: &[(&str, &str)] = &[
    (
        "skeleton",
        "kernel:entry /tid.x == 0 && tid.y == 0 && tid.z == 0/ { @blocks[kernel] = count(); } \
         mem:global:load { @ldbytes[kernel] = sum(bytes); }",
    ),
    (
        "block scheduling",
        "kernel:entry { %t0 = clock64; } warp kernel:exit { @sched[smid] = hist(clock64 - %t0); }",
    ),
    (
        "global bytes",
        "mem:global:* { @bytes[kernel] = sum(bytes); }",
    ),
    (
        "printf trace",
        "mem:global:load /tid.x == 0/ { printf(\"%d %x\\n\", clock, addr); }",
    ),
];

/// Registers per kernel (mangled name) from `ptxas -v` output.
fn parse_registers(out: &str) -> HashMap<String, u32> {
    warptrace_codegen_ptx::resources::parse_ptxas_verbose(out)
        .into_iter()
        .map(|(name, usage)| (name, usage.registers))
        .collect()
}

/// The `release …` part of `ptxas --version`.
fn ptxas_version(ptxas: &std::path::Path) -> String {
    let out = Command::new(ptxas).arg("--version").output();
    let text = out
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    text.lines()
        .find_map(|l| l.find("release ").map(|i| l[i..].trim().to_owned()))
        .unwrap_or_else(|| "unknown version".to_owned())
}

/// Today's UTC date as `YYYY-MM-DD` (days-to-civil, proleptic Gregorian).
fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let z = (secs / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

/// Runs `ptxas -v` on every module of `jobs` on [`THREADS`] threads; the register counts,
/// or `ptxas`'s error output, in job order.
fn assemble_all(jobs: &[&str]) -> Vec<Result<HashMap<String, u32>, String>> {
    let next = AtomicUsize::new(0);
    let results = Mutex::new(vec![None; jobs.len()]);
    std::thread::scope(|s| {
        for _ in 0..THREADS {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(ptx) = jobs.get(i) else { break };
                let r = match warptrace_tests::assemble(ptx, ARCH, &["-v"]) {
                    Some(Ok(out)) => Ok(parse_registers(&out)),
                    Some(Err(out)) => Err(out),
                    None => Err("ptxas not found".to_owned()),
                };
                results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(r);
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .map(|r| r.unwrap_or_else(|| Err("not run".to_owned())))
        .collect()
}

fn main() -> ExitCode {
    let Some(ptxas) = warptrace_tests::ptxas() else {
        eprintln!(
            "error: ptxas not found (set WARPTRACE_CUDA_HOME or put ptxas on PATH: \
             scripts/setup.sh, then `source .tools/env.sh`)"
        );
        return ExitCode::from(2);
    };
    let mut programs = Vec::new();
    for (title, src) in PROBES {
        let program = match warptrace_lang::compile(src, "ptx_cost.wt") {
            Ok(p) => p,
            Err(e) => {
                eprintln!("error: probe `{title}` does not compile:\n{e}");
                return ExitCode::FAILURE;
            }
        };
        match warptrace_verifier::verify_program(&program) {
            Ok(v) => programs.push(v),
            Err(e) => {
                eprintln!("error: probe `{title}` rejected by the verifier:\n{e}");
                return ExitCode::FAILURE;
            }
        }
    }

    // Per file: the original text and, per probe, the back end's result.
    let corpus = warptrace_tests::corpus();
    let instrumented: Vec<Vec<Result<Instrumented, String>>> = corpus
        .iter()
        .map(|(_, text)| {
            programs
                .iter()
                .map(|p| instrument(text, p).map_err(|e| e.to_string()))
                .collect()
        })
        .collect();
    // Modules to assemble: every original, and every instrumented module that differs.
    let mut jobs: Vec<&str> = corpus.iter().map(|(_, t)| t.as_str()).collect();
    let mut job_of: Vec<Vec<Option<usize>>> = Vec::new();
    for (f, per_probe) in instrumented.iter().enumerate() {
        job_of.push(
            per_probe
                .iter()
                .map(|r| match r {
                    Ok(i) if i.ptx != corpus[f].1 => {
                        jobs.push(&i.ptx);
                        Some(jobs.len() - 1)
                    }
                    _ => None,
                })
                .collect(),
        );
    }
    let assembled = assemble_all(&jobs);

    let mut failed = false;
    let mut rows = Vec::new();
    for (f, (file, _)) in corpus.iter().enumerate() {
        let original = match &assembled[f] {
            Ok(r) => r,
            Err(e) => {
                eprintln!("error: ptxas rejects {file}:\n{e}");
                failed = true;
                continue;
            }
        };
        // The kernel list, in text order, from the first probe that instruments the file.
        let Some(kernels) = instrumented[f].iter().find_map(|r| r.as_ref().ok()) else {
            eprintln!("error: no probe instruments {file}");
            failed = true;
            continue;
        };
        for (k, outcome) in kernels.kernels.iter().enumerate() {
            let name = &outcome.name;
            let Some(&before) = original.get(name) else {
                eprintln!("error: no `Used N registers` for {name} in {file}");
                failed = true;
                continue;
            };
            let mut cells = vec![
                format!("{file}: `{}`", warptrace_runtime::demangle(name)),
                before.to_string(),
            ];
            for (p, result) in instrumented[f].iter().enumerate() {
                let cell = match result {
                    Err(e) => {
                        eprintln!("error: {file} with `{}`: {e}", PROBES[p].0);
                        failed = true;
                        "error".to_owned()
                    }
                    Ok(inst) => match &inst.kernels[k].status {
                        KernelStatus::NoSites => "—".to_owned(),
                        KernelStatus::Unsupported { .. } => "unsupported".to_owned(),
                        KernelStatus::OverBudget { .. } => "over JIT budget".to_owned(),
                        KernelStatus::Rejected(_) => "rejected".to_owned(),
                        KernelStatus::Instrumented { .. } => {
                            let job = job_of[f][p].unwrap_or(f);
                            match &assembled[job] {
                                Ok(regs) => match regs.get(name) {
                                    Some(&after) => format!(
                                        "{after} ({:+})",
                                        i64::from(after) - i64::from(before)
                                    ),
                                    None => {
                                        eprintln!("error: no register count for {name} in {file} with `{}`", PROBES[p].0);
                                        failed = true;
                                        "?".to_owned()
                                    }
                                },
                                Err(e) => {
                                    eprintln!(
                                        "error: ptxas rejects {file} with `{}`:\n{e}",
                                        PROBES[p].0
                                    );
                                    failed = true;
                                    "ptxas error".to_owned()
                                }
                            }
                        }
                    },
                };
                cells.push(cell);
            }
            rows.push(cells);
        }
    }

    println!("# PTX register cost\n");
    println!(
        "Generated by `warptrace-ptx-cost` (`tests/src/bin/ptx_cost.rs`); do not edit by hand. \
         Registers per thread that `ptxas -v -arch={ARCH}` reports for each kernel of \
         `tests/corpus/ptx/`, before instrumentation and after instrumenting the module \
         with each probe program below (after (+delta)). `—`: the probe attaches nowhere in \
         the kernel (unchanged); `unsupported`: the PTX back end reports \
         `KernelStatus::Unsupported` for it (left unchanged); `rejected`: the kernel verifier \
         rejected the spliced kernel.\n"
    );
    println!("Regenerate with:\n");
    println!("```sh\nsource .tools/env.sh");
    println!("cargo run -p warptrace-tests --bin warptrace-ptx-cost > docs/ptx-cost.md\n```\n");
    println!("- ptxas: {}", ptxas_version(&ptxas));
    println!("- generated: {}\n", today());
    println!("Probe programs:\n");
    for (title, src) in PROBES {
        println!(
            "- **{title}**: `{}`",
            src.split_whitespace().collect::<Vec<_>>().join(" ")
        );
    }
    println!();
    print!("| kernel | original |");
    for (title, _) in PROBES {
        print!(" {title} |");
    }
    println!();
    println!("|---|---:|{}", "---:|".repeat(PROBES.len()));
    for row in rows {
        println!("| {} |", row.join(" | "));
    }
    if failed {
        eprintln!("error: some kernels could not be measured (see above)");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
