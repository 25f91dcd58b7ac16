//! NEUTRINO-format raw PTX probes (`FILE.toml`) through the `warptrace` command line:
//! `instrument`, `verify` (and its certificate), `-l`, and a run (no GPU needed).
//!
//! The corpus tests read the folders, so every attack added to `tests/corpus/reject/raw/`
//! and every probe added to `tests/corpus/accept/raw/` is run through the real binary.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// An attack's expectation that its file is refused as it loads (default deny), at a
/// line marked `// attack`, rather than rejected by a verifier rule.
const DENIED: &str = "Denied";

/// The rule names a rejection may name (`warptrace_verifier::KernelRule`'s `Debug`).
const RULES: &[&str] = &[
    "RegisterIsolation",
    "ControlFlow",
    "SharedMemory",
    "MemorySafety",
    "WarpCollective",
    "KernelPreserved",
    "CallRewrite",
];

mod cli_common;
use cli_common::{assert_traced_nothing, stderr, stdout, warptrace};

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus")
}

fn ptx(name: &str) -> PathBuf {
    corpus_dir().join("ptx").join(name)
}

fn raw(kind: &str, name: &str) -> PathBuf {
    corpus_dir().join(kind).join("raw").join(name)
}

/// The files of `dir` ending in `.ext`, sorted.
fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .collect();
    out.sort();
    out
}

fn name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Runs `job` on every item on two threads (the machine's cores), collecting the
/// failures' messages instead of stopping at the first.
fn in_parallel<T: Sync>(items: &[T], job: impl Fn(&T) -> Result<(), String> + Sync) -> Vec<String> {
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(item) = items.get(i) else { break };
                if let Err(e) = job(item) {
                    failures.lock().unwrap_or_else(|p| p.into_inner()).push(e);
                }
            });
        }
    });
    let mut failures = failures.into_inner().unwrap_or_else(|p| p.into_inner());
    failures.sort();
    failures
}

/// The rule a printed rejection names: `probe `p`, line N: Rule: …`, `probe `p`: Rule: …`
/// or `instrumenter: Rule: …` (RawRejection's `Display`).
fn rule_of(line: &str) -> Option<&str> {
    let line = line.trim_start();
    let rest = match line.strip_prefix("instrumenter: ") {
        Some(rest) => rest,
        None => {
            let after = line.strip_prefix("probe `")?;
            let after = &after[after.find('`')? + 1..];
            match after.strip_prefix(": ") {
                Some(rest) => rest,
                None => after.strip_prefix(", line ")?.split_once(": ")?.1,
            }
        }
    };
    rest.split(':').next()
}

/// The lines `instrument` printed under `warptrace: KERNEL: REJECTED …`, or `None` when
/// the kernel is not reported rejected.
fn rejections_of<'a>(err: &'a str, kernel: &str) -> Option<Vec<&'a str>> {
    let header = format!("warptrace: {kernel}: REJECTED by the verifier");
    let mut lines = err.lines().skip_while(|l| !l.starts_with(&header));
    lines.next()?;
    Some(lines.take_while(|l| l.starts_with("  ")).collect())
}

/// An attack file's header: `# reject: <Rule>: …` (a verifier rule, or `Denied`: the
/// file is refused as it loads) and `# kernel: <file> <kernel>`.
fn attack_header(path: &Path, text: &str) -> Result<(String, String, String), String> {
    let file = name(path);
    let rule = text
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("# reject: "))
        .and_then(|l| l.split(':').next())
        .map(str::trim)
        .ok_or(format!(
            "{file}: first line is not `# reject: <Rule>: <why>`"
        ))?;
    if !RULES.contains(&rule) && rule != DENIED {
        return Err(format!("{file}: unknown rule `{rule}`"));
    }
    let mut kernel = text
        .lines()
        .find_map(|l| l.strip_prefix("# kernel: "))
        .ok_or(format!("{file}: no `# kernel: <file> <name>` line"))?
        .split_whitespace();
    let (Some(module), Some(name)) = (kernel.next(), kernel.next()) else {
        return Err(format!(
            "{file}: `# kernel:` needs a corpus file and a kernel"
        ));
    };
    Ok((rule.to_string(), module.to_string(), name.to_string()))
}

#[test]
fn every_corpus_attack_is_rejected_by_the_cli_for_exactly_its_rule() {
    let attacks = files(&corpus_dir().join("reject/raw"), "toml");
    assert!(attacks.len() >= 30, "only {} attack files", attacks.len());
    let out_dir = tempfile::tempdir().expect("tempdir");
    let failures = in_parallel(&attacks, |path| {
        let file = name(path);
        let text = std::fs::read_to_string(path).map_err(|e| format!("{file}: {e}"))?;
        let (rule, module, kernel) = attack_header(path, &text)?;
        let output = out_dir.path().join(format!("{file}.ptx"));
        let out = warptrace(&[
            "instrument".as_ref(),
            "--ptx".as_ref(),
            ptx(&module).as_os_str(),
            "-p".as_ref(),
            path.as_os_str(),
            "-o".as_ref(),
            output.as_os_str(),
        ]);
        let err = stderr(&out);
        if rule == DENIED {
            // A load error at the attack's line, as the language's diagnostics look.
            let marked: Vec<String> = text
                .lines()
                .enumerate()
                .filter(|(_, l)| l.contains("// attack"))
                .map(|(i, _)| format!("{}:{}: ERROR: ", path.display(), i + 1))
                .collect();
            let first = err.lines().next().unwrap_or_default();
            if out.status.code() != Some(2)
                || !marked.iter().any(|m| first.starts_with(m))
                || !first.contains("denied")
                || output.exists()
            {
                return Err(format!(
                    "{file}: not denied at a line marked `// attack` (exit {:?}):\n{err}",
                    out.status
                ));
            }
            return Ok(());
        }
        if out.status.code() != Some(1) {
            return Err(format!("{file}: exit {:?}, not 1:\n{err}", out.status));
        }
        let rejections = rejections_of(&err, &kernel).ok_or(format!(
            "{file}: kernel {kernel} not reported rejected:\n{err}"
        ))?;
        if rejections.is_empty() {
            return Err(format!("{file}: no rejection printed for {kernel}:\n{err}"));
        }
        for r in &rejections {
            if rule_of(r) != Some(rule.as_str()) {
                return Err(format!(
                    "{file}: a rejection does not name {rule}: {r}\n{err}"
                ));
            }
        }
        // The closing line says how many kernels were rejected, and which, and why.
        let last = err.lines().last().unwrap_or_default();
        if !(last.starts_with("warptrace: error: ")
            && last.contains("kernels rejected by the verifier")
            && last.contains(&format!("{kernel} ({rule}")))
        {
            return Err(format!("{file}: closing line {last:?}"));
        }
        // The rejected kernel is written unchanged (the verifier's rejection stands).
        let written = std::fs::read_to_string(&output).map_err(|e| format!("{file}: {e}"))?;
        let original = std::fs::read_to_string(ptx(&module)).map_err(|e| e.to_string())?;
        let body = |text: &str| {
            let start = text.find(&format!(".entry {kernel}("))?;
            let end = text[start..].find("\n}\n")?;
            Some(text[start..start + end].to_string())
        };
        if body(&written).is_none() || body(&written) != body(&original) {
            return Err(format!("{file}: kernel {kernel} was modified"));
        }
        Ok(())
    });
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The architecture of a module's `.target` (`sm_90a` of `.target sm_90a, debug`).
fn target_arch(text: &str) -> Option<String> {
    let rest = text
        .lines()
        .find_map(|l| l.trim().strip_prefix(".target "))?;
    let arch = rest.split(|c: char| c == ',' || c.is_whitespace()).next()?;
    Some(arch.to_string())
}

#[test]
fn every_accepted_probe_instruments_every_corpus_module_and_ptxas_assembles_it() {
    let ptxas = warptrace_tests::ptxas();
    let probes = files(&corpus_dir().join("accept/raw"), "toml");
    let modules = files(&corpus_dir().join("ptx"), "ptx");
    assert!(probes.len() >= 6, "only {} accepted probes", probes.len());
    assert!(modules.len() >= 10, "only {} corpus modules", modules.len());
    let pairs: Vec<(&PathBuf, &PathBuf)> = probes
        .iter()
        .flat_map(|p| modules.iter().map(move |m| (p, m)))
        .collect();
    let out_dir = tempfile::tempdir().expect("tempdir");
    let instrumented = AtomicUsize::new(0);
    let failures = in_parallel(&pairs, |(probe, module)| {
        let what = format!("{} on {}", name(probe), name(module));
        let output = out_dir
            .path()
            .join(format!("{}-{}", name(probe), name(module)));
        let out = warptrace(&[
            "instrument".as_ref(),
            "--ptx".as_ref(),
            module.as_os_str(),
            "-p".as_ref(),
            probe.as_os_str(),
            "-o".as_ref(),
            output.as_os_str(),
        ]);
        let err = stderr(&out);
        if !out.status.success() || err.contains("REJECTED") || err.contains("error") {
            return Err(format!("{what}: {:?}\n{err}", out.status));
        }
        let n = err.matches(": instrumented, ").count();
        if n == 0 {
            return Ok(());
        }
        instrumented.fetch_add(n, Ordering::Relaxed);
        let text = std::fs::read_to_string(&output).map_err(|e| format!("{what}: {e}"))?;
        if !text.contains("__wt_maps") {
            return Err(format!("{what}: no map parameter in the output"));
        }
        let Some(ptxas) = &ptxas else { return Ok(()) };
        let arch = target_arch(&text).ok_or(format!("{what}: no .target"))?;
        let asm = Command::new(ptxas)
            .arg(format!("-arch={arch}"))
            .arg(&output)
            .arg("-o")
            .arg(output.with_extension("cubin"))
            .output()
            .map_err(|e| format!("{what}: cannot run ptxas: {e}"))?;
        if !asm.status.success() {
            return Err(format!(
                "{what}: ptxas -arch={arch} rejects the output:\n{}",
                stderr(&asm)
            ));
        }
        Ok(())
    });
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    let n = instrumented.into_inner();
    assert!(n >= probes.len() * 10, "only {n} kernels instrumented");
}

#[test]
fn instrument_takes_a_positional_toml_and_reports_each_kernel() {
    let probe = raw("accept", "block_sched.toml");
    let module = ptx("nvcc_app.ptx");
    let by_flag = warptrace(&[
        "instrument".as_ref(),
        "--ptx".as_ref(),
        module.as_os_str(),
        "-p".as_ref(),
        probe.as_os_str(),
    ]);
    let positional = warptrace(&[
        "instrument".as_ref(),
        "--ptx".as_ref(),
        module.as_os_str(),
        probe.as_os_str(),
    ]);
    for out in [&by_flag, &positional] {
        let err = stderr(out);
        assert!(out.status.success(), "{err}");
        assert!(
            err.contains("warptrace: _Z9block_sumPKfPfi: instrumented, 3 probe sites"),
            "{err}"
        );
        assert!(
            stdout(out).contains("ld.param.u64 %__wt_base, [__wt_maps];"),
            "{err}"
        );
    }
    assert_eq!(by_flag.stdout, positional.stdout);
    // A .toml never goes to the language's parser.
    let compiled = warptrace(&["compile".as_ref(), probe.as_os_str()]);
    let err = stderr(&compiled);
    assert_eq!(compiled.status.code(), Some(1), "{err}");
    assert!(err.contains("is a raw PTX probe file"), "{err}");
    assert!(!err.contains("ERROR"), "parsed as a program:\n{err}");
    let gcn = corpus_dir().join("gcn");
    let any_gcn = files(&gcn, "s").into_iter().next().expect("a GCN file");
    let out = warptrace(&[
        "instrument".as_ref(),
        "--gcn".as_ref(),
        any_gcn.as_os_str(),
        "-p".as_ref(),
        probe.as_os_str(),
    ]);
    assert!(
        stderr(&out).contains("--ptx modules only"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_probe_file_that_does_not_load_is_reported_at_its_line_with_status_2() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("bad.toml");
    let text = "[p]\nposition = \"kernel\"\ndatamodel = \"thread:8\"\nbefore = \"\"\"\n\
                mov.u64 %a, 0;\nSTORE.u64 {%a};\"\"\"\n";
    std::fs::write(&file, text).expect("write");
    let module = ptx("triton_vector_add.ptx");
    let want = format!("{}:6: ERROR: probe `p`", file.display());
    for args in [
        vec!["instrument", "--ptx", module.to_str().expect("utf-8")],
        vec!["verify", "--ptx", module.to_str().expect("utf-8")],
        vec!["--", "true"],
    ] {
        let mut argv: Vec<&str> = args.clone();
        let at = if argv[0] == "--" { 0 } else { 1 };
        argv.insert(at, "-p");
        argv.insert(at + 1, file.to_str().expect("utf-8"));
        let out = warptrace(&argv);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        let mut lines = err.lines();
        assert_eq!(
            lines.next().map(|l| l.starts_with(&want)),
            Some(true),
            "{args:?}: {err}"
        );
        assert_eq!(
            lines.next(),
            Some("STORE.u64 {%a};\"\"\""),
            "{args:?}: {err}"
        );
    }
    // Invalid TOML too, and a PTX module that does not parse names the module.
    std::fs::write(&file, "[p]\nposition = \"kernel\nbefore = 1\n").expect("write");
    let out = warptrace(&[
        "instrument".as_ref(),
        "--ptx".as_ref(),
        module.as_os_str(),
        file.as_os_str(),
    ]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.starts_with(&format!("{}:2: ERROR: invalid TOML", file.display())),
        "{err}"
    );
    let broken = dir.path().join("broken.ptx");
    std::fs::write(
        &broken,
        ".version 8.0\n.target sm_90\n.visible .entry k( {\n",
    )
    .expect("w");
    let out = warptrace(&[
        "instrument".as_ref(),
        "--ptx".as_ref(),
        broken.as_os_str(),
        raw("accept", "block_sched.toml").as_os_str(),
    ]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!("cannot instrument {}", broken.display())),
        "{err}"
    );
}

fn write_probe(dir: &Path, file: &str, text: &str) -> PathBuf {
    let path = dir.join(file);
    std::fs::write(&path, text).expect("write probe");
    path
}

/// A probe at `bar.sync` only: `block_sum` of nvcc_app.ptx has one, `scale_add` none.
const AT_BARRIERS: &str = "[arrive]\nposition = \"bar.sync\"\ndatamodel = \"thread:8:4\"\n\
    before = \"\"\".reg .u64 %ba_t;\nmov.u64 %ba_t, %clock64;\nSAVE.u64 {%ba_t};\"\"\"\n";

#[test]
fn verify_reports_each_kernel_and_certifies_the_file_and_modules() {
    use sha2::Digest as _;
    let dir = tempfile::tempdir().expect("tempdir");
    let probe = write_probe(dir.path(), "arrive.toml", AT_BARRIERS);
    let module = ptx("nvcc_app.ptx");
    let cert = dir.path().join("arrive.cert.json");
    let out = warptrace(&[
        "verify".as_ref(),
        probe.as_os_str(),
        "--ptx".as_ref(),
        module.as_os_str(),
        "--cert".as_ref(),
        cert.as_os_str(),
    ]);
    let text = stdout(&out);
    assert!(out.status.success(), "{text}{}", stderr(&out));
    let m = module.display();
    assert!(text.contains("VERIFIED for ptx"), "{text}");
    assert!(
        text.contains(&format!(
            "  {m}: _Z9block_sumPKfPfi: Accepted (2 probe sites)"
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!("  {m}: _Z9scale_addPKfPffi: NoSites (unchanged)")),
        "{text}"
    );
    assert!(text.contains("kernel checks            1/1 hold"), "{text}");
    let json = std::fs::read_to_string(&cert).expect("certificate written");
    let c = warptrace_verifier::Certificate::from_json(&json).expect("a certificate");
    let hex = |bytes: &[u8]| -> String {
        let digest = sha2::Sha256::digest(bytes);
        digest.iter().map(|b| format!("{b:02x}")).collect()
    };
    assert_eq!(
        c.probe_hash,
        format!("sha256:{}", hex(AT_BARRIERS.as_bytes()))
    );
    assert!(c.verified);
    assert_eq!(c.target, "ptx");
    let module_hash = hex(&std::fs::read(&module).expect("module"));
    let kernels: Vec<&str> = c
        .checks
        .iter()
        .filter(|k| k.level == "kernel")
        .map(|k| k.scope.as_str())
        .collect();
    assert_eq!(
        kernels,
        [format!("{m} sha256:{module_hash}: _Z9block_sumPKfPfi")]
    );

    // A rejection: status 2, the kernel Rejected with each rejection under it.
    let attack = raw("reject", "21-st-global-kernel-pointer.toml");
    let rejected = dir.path().join("rejected.cert.json");
    let out = warptrace(&[
        "verify".as_ref(),
        attack.as_os_str(),
        "--ptx".as_ref(),
        ptx("triton_vector_add.ptx").as_os_str(),
        "--cert".as_ref(),
        rejected.as_os_str(),
    ]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(text.contains("NOT VERIFIED"), "{text}");
    assert!(
        text.contains(": vector_add: Rejected (4 rejections):"),
        "{text}"
    );
    let under: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("    probe"))
        .collect();
    assert_eq!(under.len(), 4, "{text}");
    assert!(
        under.iter().all(|l| rule_of(l) == Some("MemorySafety")),
        "{text}"
    );
    assert!(stderr(&out).contains("1 of 1 kernels rejected by the verifier"));
    let c = std::fs::read_to_string(&rejected).expect("written even when not verified");
    let c = warptrace_verifier::Certificate::from_json(&c).expect("a certificate");
    assert!(!c.verified);

    // Nothing attaches: nothing proved.
    let nowhere = write_probe(dir.path(), "nowhere.toml", AT_BARRIERS);
    let out = warptrace(&[
        "verify".as_ref(),
        nowhere.as_os_str(),
        "--ptx".as_ref(),
        ptx("triton_vector_add.ptx").as_os_str(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(stdout(&out).contains("NOT PROVED"), "{}", stdout(&out));

    // A raw probe needs modules, and is PTX.
    let out = warptrace(&["verify".as_ref(), probe.as_os_str()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("give the PTX with --ptx FILE"),
        "{}",
        stderr(&out)
    );
    let out = warptrace(&[
        "verify".as_ref(),
        probe.as_os_str(),
        "--target".as_ref(),
        "gcn".as_ref(),
    ]);
    assert!(stderr(&out).contains("--target ptx"), "{}", stderr(&out));
}

#[test]
fn require_cert_admits_only_the_certified_raw_probe_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let probe = write_probe(dir.path(), "arrive.toml", AT_BARRIERS);
    let cert = dir.path().join("arrive.cert.json");
    let out = warptrace(&[
        "verify".as_ref(),
        probe.as_os_str(),
        "--ptx".as_ref(),
        ptx("nvcc_app.ptx").as_os_str(),
        "--cert".as_ref(),
        cert.as_os_str(),
    ]);
    assert!(out.status.success(), "{}", stdout(&out));
    let run = |probe: &Path, cert: &Path| {
        warptrace(&[
            "--require-cert".as_ref(),
            cert.as_os_str(),
            "-p".as_ref(),
            probe.as_os_str(),
            "--".as_ref(),
            "sh".as_ref(),
            "-c".as_ref(),
            "echo ran".as_ref(),
        ])
    };
    let out = run(&probe, &cert);
    assert_traced_nothing(&out);
    assert_eq!(stdout(&out).lines().next(), Some("ran"), "{}", stderr(&out));
    // Another file (one byte more) is refused before anything runs.
    let edited = write_probe(dir.path(), "edited.toml", &format!("{AT_BARRIERS}\n"));
    let out = run(&edited, &cert);
    assert_eq!(out.status.code(), Some(2));
    assert!(!stdout(&out).contains("ran"));
    assert!(
        stderr(&out).contains("does not certify"),
        "{}",
        stderr(&out)
    );
    // A certificate that is not a raw probe file's (a language program's has no `raw`
    // check) does not certify one, even with the file's hash.
    let json = std::fs::read_to_string(&cert).expect("certificate");
    let mut c = warptrace_verifier::Certificate::from_json(&json).expect("a certificate");
    c.checks.retain(|k| k.level != "raw");
    let lang = dir.path().join("lang.cert.json");
    std::fs::write(&lang, c.to_json()).expect("write");
    let out = run(&probe, &lang);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("not a certificate of a raw probe file"),
        "{}",
        stderr(&out)
    );
    // A failed certificate does not either.
    let failed = dir.path().join("failed.cert.json");
    let attack = raw("reject", "21-st-global-kernel-pointer.toml");
    warptrace(&[
        "verify".as_ref(),
        attack.as_os_str(),
        "--ptx".as_ref(),
        ptx("triton_vector_add.ptx").as_os_str(),
        "--cert".as_ref(),
        failed.as_os_str(),
    ]);
    let out = run(&attack, &failed);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("records a failure"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_run_hands_the_runtime_the_probe_file_and_its_maps() {
    let probe = raw("accept", "block_sched.toml");
    let out = warptrace(&[
        "-v".as_ref(),
        "-p".as_ref(),
        probe.as_os_str(),
        "--".as_ref(),
        "sh".as_ref(),
        "-c".as_ref(),
        "echo $WARPTRACE_RAW_PROBES; cat $WARPTRACE_BUNDLE".as_ref(),
    ]);
    let err = stderr(&out);
    assert_traced_nothing(&out);
    let text = stdout(&out);
    let (flag, bundle) = text.split_once('\n').expect("two outputs");
    assert_eq!(flag, "1", "{err}");
    let bundle = warptrace_ir::Bundle::from_json(bundle.trim()).expect("a bundle");
    assert_eq!(
        bundle.source,
        std::fs::read_to_string(&probe).expect("probe")
    );
    assert!(bundle.program.probes.is_empty());
    let maps: Vec<&str> = bundle
        .program
        .maps
        .iter()
        .map(|m| m.name.as_str())
        .collect();
    assert_eq!(maps, ["block_sched"]);
    // The runtime took the bundle as a raw probe file (it stays inert without a GPU).
    assert!(
        err.contains("the bundle holds a raw probe file"),
        "the runtime did not load the raw probe bundle (is libwarptrace_preload.so \
         stale? `cargo build -p warptrace-preload`):\n{err}"
    );
    // A language run does not set the switch, whatever the environment says.
    let out = Command::new(env!("CARGO_BIN_EXE_warptrace"))
        .args(["-e", "kernel:entry { @n = count(); }", "--", "sh", "-c"])
        .arg("echo ${WARPTRACE_RAW_PROBES-unset}")
        .env("WARPTRACE_RAW_PROBES", "1")
        .output()
        .expect("runs");
    assert_eq!(
        stdout(&out).lines().next(),
        Some("unset"),
        "{}",
        stderr(&out)
    );
    // Without a command there is nothing to run.
    let out = warptrace(&["-p".as_ref(), probe.as_os_str()]);
    assert!(
        stderr(&out).contains("no command to run"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn list_shows_each_kernels_sites_and_the_helpers() {
    let out = warptrace(&[
        "-l".as_ref(),
        "-p".as_ref(),
        raw("accept", "gmem_bytes.toml").as_os_str(),
        "--ptx".as_ref(),
        ptx("nvcc_app.ptx").as_os_str(),
    ]);
    let text = stdout(&out);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(text.contains("probe sync ("), "{text}");
    assert!(text.contains("): at ld.global, st.global"), "{text}");
    assert!(
        text.contains(": block_sum(float const*, float*, int): 5 sites"),
        "{text}"
    );
    let out = warptrace(&["-l", "SAVE*"]);
    let text = stdout(&out);
    assert!(text.starts_with("raw PTX probe helpers"), "{text}");
    assert!(text.contains("  SAVE.u64  "), "{text}");
    let help = stdout(&warptrace(&["--help"]));
    assert!(
        help.contains("warptrace instrument --ptx kernel.ptx -p block_sched.toml"),
        "{help}"
    );
}

/// Runs `warptrace` with `args`, `ptxas` on its PATH (`None` when there is none to give).
fn warptrace_with_ptxas(args: &[std::ffi::OsString]) -> Option<std::process::Output> {
    let ptxas = warptrace_tests::ptxas()?;
    let dir = ptxas.parent().expect("ptxas is in a folder");
    Some(
        Command::new(env!("CARGO_BIN_EXE_warptrace"))
            .args(args)
            .env_remove("WARPTRACE_CUDA_HOME")
            .env("PATH", dir)
            .output()
            .expect("warptrace runs"),
    )
}

/// The (original, instrumented) registers and block limits of `kernel` in the
/// `--resources` line of `err`.
fn resources_line(err: &str, kernel: &str) -> Option<[u32; 4]> {
    let line = err
        .lines()
        .find(|l| l.starts_with(&format!("warptrace: {kernel}: resources (ptxas -v, ")))?;
    let (_, figures) = line.split_once("): ")?;
    let n: Vec<u32> = figures
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|w| w.parse().ok())
        .collect();
    // Registers, stack and block limits, before and after.
    match n.as_slice() {
        [r0, r1, _, _, b0, b1] => Some([*r0, *r1, *b0, *b1]),
        _ => None,
    }
}

#[test]
fn resources_compares_both_forms_with_ptxas_and_names_a_shrunken_block_limit() {
    let module = ptx("nvcc_app.ptx");
    let pressure = corpus_dir().join("hostile/register_pressure.toml");
    let args = |probe: &Path| -> Vec<std::ffi::OsString> {
        vec![
            "instrument".into(),
            "--ptx".into(),
            module.clone().into(),
            "-p".into(),
            probe.into(),
            "--resources".into(),
        ]
    };
    let Some(out) = warptrace_with_ptxas(&args(&pressure)) else {
        return;
    };
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    for kernel in ["_Z9block_sumPKfPfi", "_Z9scale_addPKfPffi"] {
        let [r0, r1, b0, b1] = resources_line(&err, kernel).unwrap_or_else(|| panic!("{err}"));
        // The probe's 160 live 64-bit values take the kernel to the register ceiling.
        assert!(r0 < 32 && r1 == 255, "{kernel}: {r0} -> {r1}\n{err}");
        assert_eq!((b0, b1), (1024, 256), "{err}");
        assert!(
            err.contains(&format!(
                "warptrace: {kernel}: UNSUPPORTED for blocks of more than 256 threads: the \
                 instrumented form takes 255 registers a thread (the original {r0})"
            )),
            "{err}"
        );
    }
    // A light probe leaves every block the original takes.
    let light = raw("accept", "block_sched.toml");
    let out = warptrace_with_ptxas(&args(&light)).expect("ptxas was found above");
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    let [_, _, b0, b1] =
        resources_line(&err, "_Z9scale_addPKfPffi").unwrap_or_else(|| panic!("{err}"));
    assert_eq!((b0, b1), (1024, 1024), "{err}");
    assert!(!err.contains("UNSUPPORTED"), "{err}");
    // Without ptxas the check cannot be made, and says so.
    let out = Command::new(env!("CARGO_BIN_EXE_warptrace"))
        .args(args(&light))
        .env_remove("WARPTRACE_CUDA_HOME")
        .env("PATH", "")
        .output()
        .expect("warptrace runs");
    let err = stderr(&out);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains("no ptxas was found"), "{err}");
}
