//! The CUDA interception library against a fake CUDA driver, on a machine without a GPU.
//!
//! What is real here: `mock_cuda/cuda_app.c`, a driver-API program linked against
//! `libcuda.so.1` like any CUDA program; its kernels (`mock_cuda/kernels.cu`) compiled by
//! the real nvcc, ptxas and fatbinary into PTX, a cubin carrying its PTX, and stored, LZ4
//! and zstd fatbinaries; the whole of `libwarptrace_preload.so` under `LD_PRELOAD` — the
//! interposed entry points, image reading, instrumentation (`warptrace-codegen-ptx`), the
//! launch path, the buffer pool and the read-back.
//!
//! What is not: the driver. `mock_cuda/mock_cuda.c` stands in for `libcuda.so.1` (same
//! soname and exported names, built against CUDA 13.0's `cuda.h`): it runs no kernel,
//! treats host memory as device memory, lays each function's parameters out from its PTX
//! as the driver does, "compiles" PTX by wrapping it, and logs every launch — which entry
//! point, which function, its first argument, whether the map argument is a live buffer.
//! At an instrumented launch it writes the words of `MOCK_CUDA_FILL` into the map buffer,
//! standing in for the probe: so these tests show that every load and launch path reaches
//! the instrumented function with its map argument and that what the "kernel" wrote comes
//! back as the report's maps — not that an instrumented kernel runs on a GPU (the GPU
//! issue's runs show that).

mod common;

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use warptrace_ir::MapLayout;
use warptrace_runtime::{Reason, Report};

const PROGRAM: &str = "kernel:entry { @n = count(); }";
const ADD_ONE: &str = "_Z7add_onePii";

fn manifest() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A tool on PATH or in `$WARPTRACE_CUDA_HOME/bin`; `None` (said on stderr) when missing,
/// which fails the test under `CI=true`.
fn tool(name: &str) -> Option<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::env::var_os("WARPTRACE_CUDA_HOME")
        .map(|h| vec![PathBuf::from(h).join("bin")])
        .unwrap_or_default();
    dirs.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    let found = dirs.into_iter().map(|d| d.join(name)).find(|p| p.is_file());
    if found.is_none() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "{name} not installed (CI=true): run scripts/setup.sh"
        );
        eprintln!("=== SKIPPED: {name} not installed (scripts/setup.sh) ===");
    }
    found
}

fn run(cmd: &mut Command) {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?}:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Everything the runs share, built once per test binary.
struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
    app: PathBuf,
    /// Images by name: `ptx`, `cubin` (with its PTX), `sass` (a cubin without),
    /// `fatbin` (stored), `lz4`, `zstd`.
    images: BTreeMap<&'static str, PathBuf>,
    bundle: PathBuf,
    /// `MOCK_CUDA_FILL` for one count of `@n`: its slot's tag set, its value added.
    fill: String,
    /// `MOCK_CUDA_KERNELS`: the kernels' parameter sizes, for images without PTX text.
    kernels: String,
}

fn fixture() -> Option<&'static Fixture> {
    static FIXTURE: OnceLock<Option<Fixture>> = OnceLock::new();
    FIXTURE.get_or_init(build).as_ref()
}

/// A bundle of `source` written to `path`, and the fake kernel's fill that counts one into
/// the first map's key-less entry where this program's layout puts it (`MOCK_CUDA_FILL`);
/// also the layout.
fn bundle(path: &Path, source: &str) -> (String, MapLayout) {
    let program = warptrace_lang::compile(source, "t.wt").expect("compiles");
    let layout = MapLayout::new(&program.maps);
    let region = layout.regions[0];
    let slot = region.slot_offset(0);
    let fill = format!(
        "{slot}={},{}+=1",
        MapLayout::tag(&[]),
        slot + region.value_offset_in_slot()
    );
    std::fs::write(
        path,
        warptrace_ir::Bundle::new(source.into(), program).to_json(),
    )
    .expect("write");
    (fill, layout)
}

fn build() -> Option<Fixture> {
    let (cc, nvcc, ptxas, fatbinary) = (
        tool("cc")?,
        tool("nvcc")?,
        tool("ptxas")?,
        tool("fatbinary")?,
    );
    let include = nvcc.parent()?.parent()?.join("include");
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().to_path_buf();
    let src = manifest().join("tests/mock_cuda");
    let driver = root.join("libcuda.so.1");
    run(Command::new(&cc)
        .args([
            "-Wall",
            "-Werror",
            "-shared",
            "-fPIC",
            "-Wl,-soname,libcuda.so.1",
            // Its calls to its own functions stay inside it, as the real driver's do (an
            // interposer sees the application's calls only).
            "-Wl,-Bsymbolic",
        ])
        .arg(format!("-I{}", include.display()))
        .arg(src.join("mock_cuda.c"))
        .arg("-o")
        .arg(&driver)
        .arg("-lpthread"));
    let app = root.join("cuda_app");
    run(Command::new(&cc)
        .args(["-Wall", "-Werror"])
        .arg(format!("-I{}", include.display()))
        .arg(src.join("cuda_app.c"))
        .arg("-o")
        .arg(&app)
        .arg(&driver)
        .args(["-ldl", "-lpthread"])
        .arg(format!("-Wl,-rpath,{}", root.display())));
    let kernels = src.join("kernels.cu");
    let ptx = root.join("k.ptx");
    run(Command::new(&nvcc)
        .args(["-ptx", "-arch=sm_90"])
        .arg(&kernels)
        .arg("-o")
        .arg(&ptx));
    // `-lineinfo` makes ptxas keep the PTX in `.nv_debug_ptx_txt`.
    let cubin = root.join("k.cubin");
    run(Command::new(&ptxas)
        .args(["-arch=sm_90", "-lineinfo"])
        .arg(&ptx)
        .arg("-o")
        .arg(&cubin));
    // Without it, a SASS-only cubin, as cuBLAS's kernels are.
    let sass = root.join("sass.cubin");
    run(Command::new(&ptxas)
        .arg("-arch=sm_90")
        .arg(&ptx)
        .arg("-o")
        .arg(&sass));
    let mut images = BTreeMap::from([
        ("ptx", ptx.clone()),
        ("cubin", cubin.clone()),
        ("sass", sass),
    ]);
    // CUDA 13.0's fatbinary: `speed` compresses with LZ4, `default` with zstd.
    for (name, args) in [
        ("fatbin", &["--compress=false"][..]),
        ("lz4", &["--compress-all", "--compress-mode=speed"][..]),
        ("zstd", &["--compress-all", "--compress-mode=default"][..]),
    ] {
        let out = root.join(format!("{name}.fatbin"));
        run(Command::new(&fatbinary)
            .arg(format!("--create={}", out.display()))
            .arg("-64")
            .args(args)
            .arg(format!("--image3=kind=elf,sm=90,file={}", cubin.display()))
            .arg(format!("--image3=kind=ptx,sm=90,file={}", ptx.display())));
        images.insert(name, out);
    }
    let bundle_path = root.join("bundle.json");
    let (fill, _) = bundle(&bundle_path, PROGRAM);
    Some(Fixture {
        _dir: dir,
        root,
        app,
        images,
        bundle: bundle_path,
        fill,
        kernels: "_Z7add_onePii=8,4;_Z5scalePffi=8,4,4".into(),
    })
}

/// One run of the app under the preload library: the fake driver's log and the report.
#[derive(Debug)]
struct Outcome {
    log: Vec<String>,
    /// The processes' reports merged, as the CLI merges them.
    report: Report,
    /// How many processes wrote one.
    reports: usize,
    stdout: String,
    stderr: String,
}

impl Outcome {
    fn launches(&self) -> Vec<&str> {
        self.log
            .iter()
            .filter(|l| l.starts_with("launch "))
            .map(String::as_str)
            .collect()
    }

    fn count(&self, prefix: &str) -> usize {
        self.log.iter().filter(|l| l.starts_with(prefix)).count()
    }

    /// `@n`'s value in the report.
    fn n(&self) -> u64 {
        let map = &self.report.maps[0];
        assert_eq!(map.name, "n");
        map.entries.iter().map(|e| e.value).sum()
    }
}

/// A word of a launch line (`key=value`).
fn field<'a>(line: &'a str, key: &str) -> &'a str {
    line.split(' ')
        .find_map(|w| w.strip_prefix(key).and_then(|w| w.strip_prefix('=')))
        .unwrap_or_else(|| panic!("no {key} in {line}"))
}

/// `cuda_app LOAD IMAGE LAUNCH THREADS LAUNCHES` under the preload library, `name` naming
/// its directory; `env` adds to (or, with an empty value, removes from) its environment.
/// One process, one report.
fn traced(f: &Fixture, name: &str, app: [&str; 5], env: &[(&str, &OsStr)]) -> Outcome {
    let o = traced_after(f, name, app, "", env);
    assert!(o.status.success(), "{name}: {}\n{}", o.stdout, o.stderr);
    assert_eq!(o.outcome.reports, 1, "{name}: one report\n{}", o.stderr);
    o.outcome
}

/// A run and how it ended.
struct Ended {
    outcome: Outcome,
    status: std::process::ExitStatus,
    stdout: String,
    stderr: String,
}

/// [`traced`] with the app's `AFTER` argument, whatever the exit and the reports.
fn traced_after(
    f: &Fixture,
    name: &str,
    app: [&str; 5],
    after: &str,
    env: &[(&str, &OsStr)],
) -> Ended {
    let run_dir = f.root.join(name);
    let results = run_dir.join("results");
    std::fs::create_dir_all(&results).expect("mkdir");
    let log = run_dir.join("driver.log");
    let [load, image, launch, threads, launches] = app;
    let mut cmd = Command::new(&f.app);
    cmd.arg(load)
        .arg(&f.images[image])
        .args([launch, threads, launches, after])
        .env("LD_PRELOAD", common::preload_library())
        .env("MOCK_CUDA_LOG", &log)
        .env("MOCK_CUDA_FILL", &f.fill)
        .env("MOCK_CUDA_KERNELS", &f.kernels)
        .env("WARPTRACE_BUNDLE", &f.bundle)
        .env("WARPTRACE_RESULTS", &results)
        .env("WARPTRACE_NO_CACHE", "1")
        .env_remove("WARPTRACE_FAULT")
        .env_remove("WARPTRACE_PER_LAUNCH_BUFFERS")
        .env_remove("WARPTRACE_VERBOSE");
    for (k, v) in env {
        if v.is_empty() {
            cmd.env_remove(k);
        } else {
            cmd.env(k, v);
        }
    }
    let out = cmd.output().expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let reports: Vec<Report> = std::fs::read_dir(&results)
        .expect("results")
        .map(|e| {
            let path = e.expect("entry").path();
            serde_json::from_str(&std::fs::read_to_string(&path).expect("read"))
                .expect("report JSON")
        })
        .collect();
    let count = reports.len();
    let report = match count {
        1 => reports.into_iter().next().expect("one"),
        _ => Report::merge(reports),
    };
    let log = std::fs::read_to_string(&log).unwrap_or_default();
    Ended {
        outcome: Outcome {
            log: log.lines().map(str::to_owned).collect(),
            report,
            reports: count,
            stdout: stdout.clone(),
            stderr: stderr.clone(),
        },
        status: out.status,
        stdout,
        stderr,
    }
}

/// Every one of `n` launches reached the instrumented `add_one` through `via`, with the
/// app's own first argument and a live map buffer as the appended one, and the report
/// holds what the "kernel" counted.
fn assert_probed(o: &Outcome, what: &str, via: &str, args: &str, n: u64) {
    let launches = o.launches();
    assert_eq!(launches.len() as u64, n, "{what}: {:#?}", o.log);
    let arg0 = field(launches[0], "arg0");
    for l in &launches {
        assert_eq!(field(l, "via"), via, "{what}: {l}");
        assert_eq!(field(l, "fn"), ADD_ONE, "{what}: {l}");
        assert_eq!(
            field(l, "params"),
            "3",
            "{what}: the map argument appended: {l}"
        );
        assert_eq!(field(l, "args"), args, "{what}: {l}");
        assert_eq!(field(l, "map"), "live", "{what}: {l}");
        assert_eq!(
            field(l, "arg0"),
            arg0,
            "{what}: the app's argument kept: {l}"
        );
    }
    assert_ne!(arg0, "0", "{what}");
    assert_eq!(o.n(), n, "{what}: @n\n{}", o.stderr);
    let s = &o.report.summary;
    assert_eq!(
        (
            s.kernels_instrumented,
            s.launches_probed,
            s.launches_unprobed
        ),
        (1, n, 0),
        "{what}: {s:?}"
    );
    assert!(
        o.stdout.contains(&format!("cuda_app: {n} launches ok")),
        "{what}"
    );
}

#[test]
fn every_load_path_reaches_the_instrumented_kernel() {
    let Some(f) = fixture() else { return };
    for (load, image) in [
        ("data", "ptx"),
        ("dataex", "ptx"),
        ("file", "ptx"),
        ("data", "cubin"),
        ("fatbin", "fatbin"),
        ("data", "lz4"),
        ("file", "zstd"),
        ("library", "ptx"),
        ("libfile", "zstd"),
        ("libkernel", "lz4"),
        ("libmodule", "ptx"),
        ("enumerate", "fatbin"),
        ("libenum", "zstd"),
    ] {
        let what = format!("{load} {image}");
        let o = traced(
            f,
            &format!("load-{load}-{image}"),
            [load, image, "plain", "1", "3"],
            &[],
        );
        assert_probed(&o, &what, "cuLaunchKernel", "params", 3);
        // The app's image, then (without a module cache) the instrumented PTX.
        assert_eq!(
            o.count("cuModuleLoadDataEx module=1 kind=ptx"),
            1,
            "{what}: {:#?}",
            o.log
        );
        assert_eq!(o.count("cuLinkComplete"), 0, "{what}");
        assert_eq!(o.report.summary.images_loaded, 1, "{what}");
    }
}

#[test]
fn every_launch_entry_point_is_probed() {
    let Some(f) = fixture() else { return };
    for (launch, via) in [
        ("plain", "cuLaunchKernel"),
        ("ptsz", "cuLaunchKernel_ptsz"),
        ("ex", "cuLaunchKernelEx"),
        ("ex_ptsz", "cuLaunchKernelEx_ptsz"),
        ("coop", "cuLaunchCooperativeKernel"),
        ("coop_ptsz", "cuLaunchCooperativeKernel_ptsz"),
        ("dlsym", "cuLaunchKernel"),
        ("proc_v1", "cuLaunchKernel"),
        ("proc12", "cuLaunchKernel"),
        ("proc13", "cuLaunchKernel"),
        ("proc_ptsz", "cuLaunchKernel_ptsz"),
        ("proc_self", "cuLaunchKernel"),
    ] {
        let o = traced(
            f,
            &format!("launch-{launch}"),
            ["data", "ptx", launch, "1", "2"],
            &[],
        );
        assert_probed(&o, launch, via, "params", 2);
    }
}

#[test]
fn a_failed_instrumented_launch_runs_the_original_and_is_counted() {
    let Some(f) = fixture() else { return };
    // CUDA_ERROR_LAUNCH_FAILED.
    let o = traced(
        f,
        "fail-launch",
        ["data", "ptx", "plain", "1", "3"],
        &[("MOCK_CUDA_FAIL_INSTRUMENTED", OsStr::new("719"))],
    );
    let launches = o.launches();
    assert_eq!(launches.len(), 6, "{:#?}", o.log);
    for pair in launches.chunks(2) {
        assert_eq!(
            field(pair[0], "params"),
            "3",
            "the instrumented attempt: {pair:?}"
        );
        assert_eq!(field(pair[1], "params"), "2", "then the original: {pair:?}");
        assert_eq!(field(pair[1], "map"), "none");
        assert_eq!(field(pair[0], "arg0"), field(pair[1], "arg0"));
    }
    let s = &o.report.summary;
    assert_eq!((s.launches_probed, s.launches_unprobed), (0, 3), "{s:?}");
    assert_eq!(s.reasons.get(&Reason::LaunchError), Some(&3), "{s:?}");
    assert_eq!(o.n(), 0, "nothing ran, nothing is reported");
    assert!(o.stdout.contains("cuda_app: 3 launches ok"));
}

#[test]
fn injected_jit_and_allocation_failures_run_the_originals() {
    let Some(f) = fixture() else { return };
    // A failed JIT is the kernel's (counted once), a failed allocation each launch's.
    for (fault, reason, count) in [("jit", Reason::JitError, 1), ("alloc", Reason::MapAlloc, 3)] {
        let o = traced(
            f,
            &format!("fault-{fault}"),
            ["data", "ptx", "plain", "1", "3"],
            &[("WARPTRACE_FAULT", OsStr::new(fault))],
        );
        let launches = o.launches();
        assert_eq!(launches.len(), 3, "{fault}: {:#?}", o.log);
        assert!(
            launches.iter().all(|l| field(l, "params") == "2"),
            "{fault}: only originals: {launches:#?}"
        );
        let s = &o.report.summary;
        assert_eq!(
            (s.launches_probed, s.launches_unprobed),
            (0, 3),
            "{fault}: {s:?}"
        );
        assert_eq!(s.reasons.get(&reason), Some(&count), "{fault}: {s:?}");
    }
}

#[test]
fn eight_threads_launching_at_once_lose_nothing() {
    let Some(f) = fixture() else { return };
    for (name, per_launch) in [("resident", None), ("per-launch", Some("1"))] {
        let mut env: Vec<(&str, &OsStr)> = Vec::new();
        if let Some(v) = per_launch {
            env.push(("WARPTRACE_PER_LAUNCH_BUFFERS", OsStr::new(v)));
        }
        let o = traced(
            f,
            &format!("threads-{name}"),
            ["data", "ptx", "plain", "8", "25"],
            &env,
        );
        let launches = o.launches();
        assert_eq!(launches.len(), 200, "{name}");
        assert!(launches.iter().all(|l| field(l, "map") == "live"), "{name}");
        assert_eq!(o.n(), 200, "{name}: every launch's count came back");
        let s = &o.report.summary;
        assert_eq!(
            (s.launches_probed, s.launches_unprobed),
            (200, 0),
            "{name}: {s:?}"
        );
        // Per-launch buffers come back one copy each; a resident one once at exit.
        let copies = o.count("cuMemcpyDtoHAsync") + o.count("cuMemcpyDtoH ");
        if per_launch.is_some() {
            assert_eq!(copies, 200, "{name}");
        } else {
            assert_eq!(copies, 1, "{name}");
        }
    }
}

#[test]
fn the_module_cache_links_once_and_loads_the_cubin_after() {
    let Some(f) = fixture() else { return };
    let cache = f.root.join("module-cache");
    let env = [
        ("WARPTRACE_NO_CACHE", OsStr::new("")),
        ("WARPTRACE_CACHE_DIR", cache.as_os_str()),
    ];
    let first = traced(f, "cache-1", ["data", "ptx", "plain", "1", "2"], &env);
    assert_probed(&first, "first run", "cuLaunchKernel", "params", 2);
    assert_eq!(first.count("cuLinkComplete"), 1, "{:#?}", first.log);
    assert_eq!(first.count("cuModuleLoadData module=1 kind=linked"), 1);
    let c = &first.report.summary.cache;
    assert_eq!((c.hits, c.misses, c.written), (0, 1, 1), "{c:?}");
    let second = traced(f, "cache-2", ["data", "ptx", "plain", "1", "2"], &env);
    assert_probed(&second, "second run", "cuLaunchKernel", "params", 2);
    assert_eq!(
        second.count("cuLinkComplete"),
        0,
        "the cubin came from the cache"
    );
    assert_eq!(second.count("cuModuleLoadData module=1 kind=linked"), 1);
    let c = &second.report.summary.cache;
    assert_eq!((c.hits, c.misses), (1, 0), "{c:?}");
}

#[test]
fn launches_with_an_argument_buffer_are_probed() {
    let Some(f) = fixture() else { return };
    for image in ["ptx", "zstd"] {
        let o = traced(
            f,
            &format!("extra-{image}"),
            ["data", image, "extra", "1", "3"],
            &[],
        );
        assert_probed(&o, image, "cuLaunchKernel", "extra", 3);
    }
}

#[test]
fn a_sass_only_kernel_is_reported_as_such_whatever_its_launch_form() {
    let Some(f) = fixture() else { return };
    for launch in ["plain", "extra"] {
        let o = traced(
            f,
            &format!("sass-{launch}"),
            ["data", "sass", launch, "1", "3"],
            &[],
        );
        let launches = o.launches();
        assert_eq!(launches.len(), 3, "{launch}: {:#?}", o.log);
        assert!(
            launches.iter().all(|l| field(l, "params") == "2"),
            "{launch}"
        );
        let s = &o.report.summary;
        assert_eq!(
            (s.kernels_instrumented, s.kernels_skipped),
            (0, 1),
            "{launch}: {s:?}"
        );
        assert_eq!(
            (s.launches_probed, s.launches_unprobed),
            (0, 3),
            "{launch}: {s:?}"
        );
        // The kernel's own reason, not its launch form's.
        assert_eq!(s.reasons.get(&Reason::NoPtx), Some(&1), "{launch}: {s:?}");
        assert_eq!(s.reasons.get(&Reason::ExtraParams), None, "{launch}: {s:?}");
    }
}

#[test]
fn fork_children_and_a_fatal_signal_lose_nothing_and_count_nothing_twice() {
    let Some(f) = fixture() else { return };
    for (name, per_launch) in [("resident", ""), ("per-launch", "1")] {
        let env = [("WARPTRACE_PER_LAUNCH_BUFFERS", OsStr::new(per_launch))];
        // Two children after the launches, one ending with exit and one with _exit: each
        // may write a report, but what they inherited is the parent's alone.
        let run = traced_after(
            f,
            &format!("fork-{name}"),
            ["data", "ptx", "plain", "1", "3"],
            "fork",
            &env,
        );
        assert!(
            run.status.success(),
            "{name}: {}\n{}",
            run.stdout,
            run.stderr
        );
        let o = &run.outcome;
        // The runtime's locks are held across the fork: no child inherits one held by the
        // parent's drain thread, so all three write a report, and quickly.
        assert_eq!(o.reports, 3, "{name}: {}", run.stderr);
        let launched: Vec<u64> = o
            .report
            .processes
            .iter()
            .map(|p| p.summary.launches_probed)
            .collect();
        assert_eq!(
            launched.iter().filter(|&&n| n > 0).count(),
            1,
            "{name}: {launched:?}"
        );
        assert_eq!(o.n(), 3, "{name}: @n over {} reports", o.reports);
        let s = &o.report.summary;
        assert_eq!(
            (s.launches_probed, s.launches_unprobed),
            (3, 0),
            "{name}: {s:?}"
        );
        // abort() after the launches: the fatal-signal handler writes the report. A
        // per-launch buffer has been read back; a resident one is not read in a signal
        // handler (the driver may be what crashed, and reading waits for the device), so
        // its launches are counted lost rather than missing without a word.
        let run = traced_after(
            f,
            &format!("abort-{name}"),
            ["data", "ptx", "plain", "1", "3"],
            "abort",
            &env,
        );
        assert_eq!(
            std::os::unix::process::ExitStatusExt::signal(&run.status),
            Some(SIGABRT),
            "{name}: {}",
            run.stderr
        );
        let o = &run.outcome;
        assert_eq!(o.reports, 1, "{name}: {}", run.stderr);
        let s = &o.report.summary;
        assert_eq!(s.launches_probed, 3, "{name}");
        let (n, lost) = if per_launch.is_empty() {
            (0, 3)
        } else {
            (3, 0)
        };
        assert_eq!((o.n(), s.launches_lost), (n, lost), "{name}: {s:?}");
    }
}

/// `SIGABRT`.
const SIGABRT: i32 = 6;

#[test]
fn every_replay_of_a_captured_graph_is_probed_in_every_capture_mode() {
    let Some(f) = fixture() else { return };
    for mode in ["graph", "graph_thread", "graph_relaxed"] {
        let o = traced(f, mode, ["data", "ptx", mode, "1", "5"], &[]);
        // Captured once (after the JIT and the allocation, which a global-mode capture
        // would have refused from a thread not relaxed), replayed five times.
        assert_eq!(
            o.count(&format!("capture via=cuLaunchKernel fn={ADD_ONE} params=3")),
            1,
            "{mode}: {:#?}",
            o.log
        );
        // The zeroing, the host node that selects and numbers each replay, the kernel, the
        // copy back and the host node that merges.
        assert_eq!(
            o.count("cuStreamEndCapture nodes=5 invalidated=0"),
            1,
            "{mode}"
        );
        assert_eq!(o.count("graph host node"), 10, "{mode}");
        assert_eq!(o.count("refused during a global capture"), 0, "{mode}");
        assert_probed(&o, mode, "cuGraphLaunch", "params", 5);
        assert_eq!(o.report.summary.graph_nodes, 1, "{mode}");
    }
}

/// The launches of a run's log and the `arg0` of each.
fn arg0s(o: &Outcome) -> Vec<String> {
    o.launches()
        .iter()
        .map(|l| field(l, "arg0").to_owned())
        .collect()
}

#[test]
fn every_launch_of_a_graph_built_with_the_graph_api_is_probed() {
    let Some(f) = fixture() else { return };
    // (load, form, kernel nodes added probed)
    for (load, form, nodes) in [
        ("data", "node", 1),
        ("library", "kern", 1),
        ("data", "generic", 1),
        ("data", "proc", 1),
        ("data", "ptsz", 1),
        ("data", "child", 1),
        ("data", "clone", 1),
        ("data", "destroy", 2),
        ("data", "streams", 1),
    ] {
        let how = format!("explicit_{form}");
        let o = traced(f, &how, [load, "ptx", &how, "1", "5"], &[]);
        // The node names the instrumented function with a live map buffer at every
        // launch; the destroyed node never runs and nothing counts it.
        assert_probed(&o, &how, "cuGraphLaunch", "params", 5);
        assert_eq!(o.report.summary.graph_nodes, nodes, "{how}");
        // One read-back per launch, outside the graph; each later launch waits for the
        // last one's (the buffer is the node's, whatever stream the next launch is on).
        assert_eq!(o.count("cuLaunchHostFunc"), 5, "{how}");
        assert_eq!(o.count("cuStreamWaitEvent"), 4, "{how}");
        assert_eq!(o.count("graph host node"), 0, "{how}");
    }
}

#[test]
fn a_graph_node_given_new_arguments_stays_probed_with_its_buffer() {
    let Some(f) = fixture() else { return };
    for form in ["exec_set", "update"] {
        let how = format!("explicit_{form}");
        let o = traced(f, &how, ["data", "ptx", &how, "1", "5"], &[]);
        let args = arg0s(&o);
        assert_eq!(args.len(), 5, "{how}: {:#?}", o.log);
        // The first launch has the first buffer, every later one the second.
        assert!(args[1..].iter().all(|a| *a == args[1]), "{how}: {args:?}");
        assert_ne!(args[0], args[1], "{how}: {args:?}");
        for l in o.launches() {
            assert_eq!(
                (field(l, "params"), field(l, "map")),
                ("3", "live"),
                "{how}: {l}"
            );
        }
        // Same kernel, same shape: the node keeps its buffer (one node, not three).
        assert_eq!(o.report.summary.graph_nodes, 1, "{how}");
        assert_eq!(o.n(), 5, "{how}");
        let s = &o.report.summary;
        assert_eq!((s.launches_probed, s.launches_unprobed), (5, 0), "{how}");
    }
}

#[test]
fn graph_nodes_that_cannot_be_read_back_fail_open_and_are_counted() {
    let Some(f) = fixture() else { return };
    // A conditional body's node runs the original: no host call sees its runs.
    let how = "explicit_conditional";
    let o = traced(f, how, ["data", "ptx", how, "1", "5"], &[]);
    let launches = o.launches();
    assert_eq!(launches.len(), 5, "{:#?}", o.log);
    for l in &launches {
        assert_eq!((field(l, "params"), field(l, "map")), ("2", "none"), "{l}");
    }
    let s = &o.report.summary;
    assert_eq!(s.reasons.get(&Reason::GraphBody), Some(&1), "{s:?}");
    assert_eq!((s.launches_probed, s.graph_nodes), (0, 0), "{s:?}");
    // Instantiated for device-side launch too: host launches are probed, the node counted.
    let how = "explicit_device";
    let o = traced(f, how, ["data", "ptx", how, "1", "5"], &[]);
    assert_probed(&o, how, "cuGraphLaunch", "params", 5);
    let s = &o.report.summary;
    assert_eq!(s.reasons.get(&Reason::DeviceGraph), Some(&1), "{s:?}");
    // No map buffer: the node is added as given, and each of its launches counted.
    let fault: &OsStr = "alloc".as_ref();
    let how = "explicit_node";
    let o = traced(
        f,
        "explicit_alloc",
        ["data", "ptx", how, "1", "5"],
        &[("WARPTRACE_FAULT", fault)],
    );
    for l in o.launches() {
        assert_eq!((field(l, "params"), field(l, "map")), ("2", "none"), "{l}");
    }
    let s = &o.report.summary;
    assert_eq!(
        (s.launches_probed, s.launches_unprobed, s.graph_nodes),
        (0, 5, 0),
        "{s:?}"
    );
    assert_eq!(s.reasons.get(&Reason::MapAlloc), Some(&5), "{s:?}");
}

#[test]
fn a_graph_launched_into_a_capture_is_probed_at_each_replay_of_the_capture() {
    let Some(f) = fixture() else { return };
    let how = "explicit_in_capture";
    let o = traced(f, how, ["data", "ptx", how, "1", "5"], &[]);
    // The zeroing, header, copy and host function are captured around the child graph
    // and run at each replay of the outer one; no event crosses the capture.
    assert_eq!(o.count("cuGraphLaunch captured nodes=1"), 1, "{:#?}", o.log);
    assert_eq!(o.count("graph host node"), 5, "{:#?}", o.log);
    assert_eq!(o.count("cuStreamWaitEvent"), 0);
    assert_probed(&o, how, "cuGraphLaunch", "params", 5);
}

#[test]
fn eight_threads_replaying_their_own_graphs_lose_nothing() {
    let Some(f) = fixture() else { return };
    let how = "explicit_node";
    let o = traced(f, "explicit_threads", ["data", "ptx", how, "8", "25"], &[]);
    let launches = o.launches();
    assert_eq!(launches.len(), 200);
    assert!(launches
        .iter()
        .all(|l| field(l, "map") == "live" && field(l, "params") == "3"));
    assert_eq!(o.n(), 200, "every replay's count came back");
    let s = &o.report.summary;
    assert_eq!(
        (s.launches_probed, s.launches_unprobed, s.graph_nodes),
        (200, 0, 8),
        "{s:?}"
    );
}

/// `warptrace -e PROGRAM -- cuda_app APP…` (the CLI, not the library alone), the app
/// launching `launches` times with `pause_ms` after each; `then` is given the running CLI
/// before it is waited for. Returns its output and the fake driver's launch lines.
fn cli(
    f: &Fixture,
    name: &str,
    program: &str,
    launches: u32,
    pause_ms: u32,
    then: impl FnOnce(&std::process::Child, &Path),
) -> (std::process::Output, Vec<String>) {
    let dir = f.root.join(name);
    std::fs::create_dir_all(&dir).expect("mkdir");
    let log = dir.join("driver.log");
    let child = Command::new(common::warptrace_binary())
        .args(["-e", program, "--"])
        .arg(&f.app)
        .arg("data")
        .arg(&f.images["ptx"])
        .args(["plain", "1", &launches.to_string()])
        .env("MOCK_CUDA_LOG", &log)
        .env("MOCK_CUDA_FILL", &f.fill)
        .env("MOCK_CUDA_KERNELS", &f.kernels)
        .env("CUDA_APP_PAUSE_MS", pause_ms.to_string())
        .env("WARPTRACE_NO_CACHE", "1")
        .env_remove("WARPTRACE_FAULT")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("warptrace runs");
    then(&child, &log);
    let out = child.wait_with_output().expect("waits");
    let lines = std::fs::read_to_string(&log).unwrap_or_default();
    let launches = lines
        .lines()
        .filter(|l| l.starts_with("launch "))
        .map(str::to_owned)
        .collect();
    (out, launches)
}

/// The values of the `@n: V` lines of a CLI's stdout, in order.
fn printed_n(stdout: &[u8]) -> Vec<u64> {
    String::from_utf8_lossy(stdout)
        .lines()
        .filter_map(|l| l.strip_prefix("@n: ")?.trim().parse().ok())
        .collect()
}

#[test]
fn an_interval_block_prints_while_the_program_runs_and_nothing_is_counted_twice() {
    let Some(f) = fixture() else { return };
    let program = format!("{PROGRAM} interval:ms:100 {{ print(@n); clear(@n); }}");
    let (out, launches) = cli(f, "live-interval", &program, 12, 60, |_, _| {});
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(launches.len(), 12);
    assert!(launches.iter().all(|l| field(l, "map") == "live"));
    // Printed at the ticks and once at exit: every launch's count once.
    let n = printed_n(&out.stdout);
    assert_eq!(n.iter().sum::<u64>(), 12, "{n:?}\n{stderr}");
    assert!(
        n.iter().filter(|&&v| v > 0).count() >= 3,
        "counts came in while the program ran (~0.7 s, a tick every 0.1 s): {n:?}"
    );
}

/// Instrumented and original launches in a fake driver's log.
fn by_form(launches: &[String]) -> (u64, u64) {
    let probed = launches
        .iter()
        .filter(|l| field(l, "params") == "3")
        .count();
    (probed as u64, (launches.len() - probed) as u64)
}

#[test]
fn exit_in_an_interval_block_detaches_and_the_program_goes_on_untraced() {
    let Some(f) = fixture() else { return };
    let program = format!("{PROGRAM} interval:ms:500 {{ exit(); }}");
    let (out, launches) = cli(f, "live-exit", &program, 40, 40, |_, _| {});
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("detached (exit())"), "{stderr}");
    // The program ran to its end, the launches after the detach uninstrumented, and what
    // was printed is exactly the launches probed before it.
    assert!(stdout.contains("cuda_app: 40 launches ok"), "{stdout}");
    let (probed, original) = by_form(&launches);
    assert_eq!(probed + original, 40);
    assert!(original > 0, "the 1.6 s program outlived the 0.5 s detach");
    let n: u64 = printed_n(&out.stdout).iter().sum();
    assert_eq!(n, probed, "{stdout}\n{stderr}");
}

#[test]
fn sigint_to_warptrace_prints_what_it_has_and_lets_the_program_finish() {
    let Some(f) = fixture() else { return };
    let (out, launches) = cli(f, "live-sigint", PROGRAM, 40, 40, |child, log| {
        // Once three launches were probed, SIGINT to warptrace alone.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while std::time::Instant::now() < deadline {
            let text = std::fs::read_to_string(log).unwrap_or_default();
            if text.lines().filter(|l| l.contains(" map=live ")).count() >= 3 {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        // SAFETY: a signal to the process just spawned.
        unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    });
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("detached (SIGINT)"), "{stderr}");
    assert!(stdout.contains("cuda_app: 40 launches ok"), "{stdout}");
    let (probed, original) = by_form(&launches);
    assert_eq!(probed + original, 40);
    assert!(probed >= 3 && original > 0, "{probed} {original}");
    let n: u64 = printed_n(&out.stdout).iter().sum();
    assert_eq!(n, probed, "{stdout}\n{stderr}");
}

#[test]
fn launches_of_kernels_no_probe_selects_are_counted_for_the_reach() {
    let Some(f) = fixture() else { return };
    let bundle = f.root.join("scale-only.json");
    self::bundle(&bundle, "kernel:entry:*scale* { @n = count(); }");
    let o = traced(
        f,
        "reach",
        ["data", "ptx", "plain", "2", "3"],
        &[("WARPTRACE_BUNDLE", bundle.as_os_str())],
    );
    // add_one is not selected: its launches run as they are, counted apart.
    assert!(o.launches().iter().all(|l| field(l, "map") == "none"));
    let s = &o.report.summary;
    assert_eq!(
        (s.launches_probed, s.launches_unprobed, s.launches_other),
        (0, 0, 6),
        "{s:?}"
    );
    let line = warptrace_runtime::render_summary(&o.report, false);
    assert!(
        line.contains("reach: 0.0% of 6 launches ran probes"),
        "{line}"
    );
}

/// The sum of a map's values in a report.
fn total(report: &Report, map: &str) -> u64 {
    let m = report.maps.iter().find(|m| m.name == map);
    m.unwrap_or_else(|| panic!("no map {map}"))
        .entries
        .iter()
        .map(|e| e.value)
        .sum()
}

#[test]
fn launch_blocks_run_for_every_launch_of_a_sass_only_kernel_with_its_duration() {
    let Some(f) = fixture() else { return };
    let source = "launch:begin { @g[kernel] = sum(nctaid.x); printf(\"%s\\n\", kernel); } \
                  launch:end { @t[kernel] = sum(duration); @c[kernel] = count(); }";
    let bundle = f.root.join("launch-blocks.json");
    self::bundle(&bundle, source);
    // A cubin without PTX, as cuBLAS's kernels are: nothing to instrument, every launch
    // seen.
    let o = traced(
        f,
        "launch-blocks",
        ["data", "sass", "plain", "1", "5"],
        &[("WARPTRACE_BUNDLE", bundle.as_os_str())],
    );
    assert_eq!(o.launches().len(), 5);
    assert_eq!(total(&o.report, "c"), 5, "{:?}", o.report.maps);
    // The fake driver's events are 0.25 ms apart around each launch; 1000 elements in
    // blocks of 128 make a grid of 8.
    assert_eq!(total(&o.report, "t"), 5 * 250_000);
    assert_eq!(total(&o.report, "g"), 5 * 8);
    let printf = o
        .report
        .maps
        .iter()
        .find(|m| m.name == "printf")
        .expect("printf ring");
    assert_eq!(printf.records.len(), 5);
    // The kernel the blocks keyed by is the launched one, by name.
    let key = o
        .report
        .maps
        .iter()
        .find(|m| m.name == "c")
        .expect("c")
        .entries[0]
        .keys[0];
    assert_eq!(
        o.report.kernels.get(&key).map(String::as_str),
        Some(ADD_ONE)
    );
    let s = &o.report.summary;
    assert_eq!(
        (s.launches_other, s.reasons.get(&Reason::NotTimed)),
        (5, None),
        "{s:?}"
    );
    // The reach in time: none of those 0.25 ms launches ran probes.
    assert_eq!((s.device_ns, s.device_ns_probed), (5 * 250_000, 0), "{s:?}");
}

#[test]
fn the_device_time_of_probed_launches_is_the_reach_in_time() {
    let Some(f) = fixture() else { return };
    // The fixture's program and a launch:end block; the fake kernel counts into `@n` where
    // this program's layout puts it.
    let bundle = f.root.join("timed-probed.json");
    let (fill, _) = self::bundle(
        &bundle,
        &format!("{PROGRAM} launch:end {{ @t = sum(duration); }}"),
    );
    let o = traced(
        f,
        "timed-probed",
        ["data", "ptx", "plain", "1", "4"],
        &[
            ("WARPTRACE_BUNDLE", bundle.as_os_str()),
            ("MOCK_CUDA_FILL", OsStr::new(&fill)),
            ("MOCK_CUDA_LOG_EVENTS", OsStr::new("1")),
        ],
    );
    assert_eq!(o.n(), 4);
    // Each launch is timed from right before its driver call: the first one's JIT (the
    // instrumented module's load) comes before its start event, not inside its duration.
    for (i, line) in o.log.iter().enumerate() {
        if line.starts_with("launch ") {
            assert_eq!(o.log[i - 1], "event record", "{:#?}", o.log);
            assert_eq!(o.log[i + 1], "event record", "{:#?}", o.log);
        }
    }
    let jit = o
        .log
        .iter()
        .position(|l| l.starts_with("cuModuleLoadDataEx module=1"));
    let first = o.log.iter().position(|l| l == "event record");
    assert!(jit.is_some() && jit < first, "{:#?}", o.log);
    assert_eq!(total(&o.report, "t"), 4 * 250_000);
    let s = &o.report.summary;
    assert_eq!((s.launches_probed, s.launches_other), (4, 0), "{s:?}");
    assert_eq!(
        (s.device_ns, s.device_ns_probed),
        (1_000_000, 1_000_000),
        "{s:?}"
    );
    let line = warptrace_runtime::render_summary(&o.report, false);
    assert!(
        line.contains("; reach: 100.0% of 1.000 ms of device time"),
        "{line}"
    );
}

#[test]
fn launch_selection_chooses_among_the_launches_of_a_graph() {
    let Some(f) = fixture() else { return };
    // --launch-skip 2 --launch-count 2 over five launches of an executable: the third and
    // fourth probed, the rest counted as not selected.
    let how = "explicit_node";
    let o = traced(
        f,
        "explicit_selected",
        ["data", "ptx", how, "1", "5"],
        &[
            ("WARPTRACE_LAUNCH_SKIP", OsStr::new("2")),
            ("WARPTRACE_LAUNCH_COUNT", OsStr::new("2")),
        ],
    );
    let s = &o.report.summary;
    assert_eq!((s.launches_probed, s.launches_unprobed), (2, 3), "{s:?}");
    assert_eq!(s.reasons.get(&Reason::NotSelected), Some(&3), "{s:?}");
    assert_eq!(o.n(), 2, "only the selected launches' counts come back");
    assert_eq!(o.count("cuLaunchHostFunc"), 2);
}

#[test]
fn each_replay_of_a_captured_launch_is_numbered_and_selected_on_its_own() {
    let Some(f) = fixture() else { return };
    // A program that reads `launch`: the fake kernel logs the word the runtime put there.
    let bundle = f.root.join("captured-launch.json");
    let (fill, layout) = self::bundle(
        &bundle,
        &format!("{PROGRAM} kernel:exit {{ @last = max(launch); }}"),
    );
    let word = layout.launch_offset.to_string();
    let env: [(&str, &OsStr); 5] = [
        ("WARPTRACE_BUNDLE", bundle.as_os_str()),
        ("MOCK_CUDA_FILL", OsStr::new(&fill)),
        ("MOCK_CUDA_LOG_WORD", OsStr::new(&word)),
        ("WARPTRACE_LAUNCH_SKIP", OsStr::new("1")),
        ("WARPTRACE_LAUNCH_COUNT", OsStr::new("3")),
    ];
    let o = traced(
        f,
        "captured-launch",
        ["data", "ptx", "graph", "1", "5"],
        &env,
    );
    // Five replays, each with its own number, in order.
    let numbers: Vec<u64> = o
        .log
        .iter()
        .filter_map(|l| l.strip_prefix(&format!("map word {word}=")))
        .map(|v| v.parse().expect("a number"))
        .collect();
    assert_eq!(numbers.len(), 5, "{:#?}", o.log);
    assert!(numbers.windows(2).all(|w| w[1] == w[0] + 1), "{numbers:?}");
    // --launch-skip 1 --launch-count 3 among the replays: the 2nd to 4th merged.
    let s = &o.report.summary;
    assert_eq!((s.launches_probed, s.launches_unprobed), (3, 2), "{s:?}");
    assert_eq!(s.reasons.get(&Reason::NotSelected), Some(&2), "{s:?}");
    assert_eq!(o.n(), 3);
}
