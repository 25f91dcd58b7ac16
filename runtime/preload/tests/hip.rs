//! The HIP hook against a real HIP program and a mock HIP runtime.
//!
//! What is real here: `tests/workloads/hip_app.hip` compiled at test time by
//! `clang-19 -x hip` (gfx90a:sramecc+:xnack- and gfx942) or Debian's `hipcc` (HIP 5.2,
//! gfx90a), linked against the real `libamdhip64.so.5` like any HIP program (its HIP
//! calls bind to versioned `hip_4.2` symbols); its device assembly (`--cuda-device-only
//! -S`); the bundle reading, code-object selection, assembly matching, instrumentation
//! (`warptrace-codegen-gcn`), `llvm-mc-19` + `ld.lld-19` assembly and the launch path of
//! `libwarptrace_preload.so`, run under `LD_PRELOAD`.
//!
//! What is not: the HIP runtime. `mock_hip/mock_hip.c` stands in for `libamdhip64.so.5`
//! (same soname and symbol version, built against the HIP 5.2 headers): it runs no
//! kernel, treats host memory as device memory, completes every stream-ordered call at
//! once and logs what it was asked to do. So these tests show that the hook sees every
//! launch, hands the runtime the instrumented code object and function with the map
//! buffer appended, reads the buffer back and falls back to the original when it must —
//! not that an instrumented kernel runs or computes the right maps on an AMD GPU (nothing
//! here has run on one).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use warptrace_runtime::{Reason, Report};

const PROGRAM: &str = "kernel:entry { @n[kernel] = count(); }";
/// Three map updates and two divisions at every memory access: at the 96 accesses of
/// `far_loop` (`-DWT_FAR_KERNEL`) they push its loop's back edge past a branch's reach.
const HEAVY: &str = "mem:*:* { @d[kernel] = sum(bytes / 3 + (u64)((i64)lane % -5)); \
                     @a[addr] = count(); @m[activemask] = max(bytes); }";
const TWICE: &str = "_Z5twicePfi";
const ADD_ONE: &str = "_Z7add_onePi";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Whether every tool is installed; missing ones fail under `CI=true`.
fn have(tools: &[&str]) -> bool {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let missing: Vec<&str> = tools
        .iter()
        .copied()
        .filter(|t| !std::env::split_paths(&path).any(|d| d.join(t).is_file()))
        .collect();
    let lib = Path::new("/usr/lib/x86_64-linux-gnu/libamdhip64.so");
    let no_lib = !lib.exists();
    if missing.is_empty() && !no_lib {
        return true;
    }
    let what = format!(
        "{missing:?}{}",
        if no_lib { " and libamdhip64-dev" } else { "" }
    );
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "missing {what} (CI=true)"
    );
    eprintln!("=== SKIPPED: {what} not installed ===");
    false
}

fn run(cmd: &mut Command) {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?}:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The compiler and the flags it needs for the HIP 5.2 headers.
#[derive(Clone, Copy)]
enum Compiler {
    Clang19,
    Hipcc,
}

impl Compiler {
    fn command(self, arches: &[&str]) -> Command {
        let mut cmd = match self {
            Compiler::Clang19 => {
                let mut c = Command::new("clang-19");
                c.args([
                    "-x",
                    "hip",
                    "-O2",
                    "-nogpulib",
                    "-nogpuinc",
                    "-I/usr/include",
                ]);
                c.arg("-D__HIP_PLATFORM_AMD__");
                c
            }
            Compiler::Hipcc => {
                let mut c = Command::new("hipcc");
                // Debian's hipcc picks NVIDIA's platform when it finds an `nvcc` (the
                // CUDA toolchain of scripts/setup.sh is on PATH in the tests).
                c.env("HIP_PLATFORM", "amd").arg("-O2");
                c
            }
        };
        cmd.args(arches.iter().map(|a| format!("--offload-arch={a}")));
        cmd.arg(root().join("tests/workloads/hip_app.hip"));
        cmd
    }
}

/// Everything a run needs, built in `dir`.
struct Built {
    /// `MOCK_HIP_PARAMS`: each kernel's explicit arguments and compiled kernarg size.
    params: String,
    app: PathBuf,
    mock_dir: PathBuf,
    asm_dir: PathBuf,
    module: PathBuf,
    bundle: PathBuf,
}

fn build(dir: &Path, compiler: Compiler, arches: &[&str], device_arch: &str) -> Built {
    build_with(dir, compiler, arches, device_arch, false)
}

/// [`build`]; `far`: with the `far_loop` kernel and the [`HEAVY`] program.
fn build_with(
    dir: &Path,
    compiler: Compiler,
    arches: &[&str],
    device_arch: &str,
    far: bool,
) -> Built {
    let command = |arches: &[&str]| {
        let mut cmd = compiler.command(arches);
        if far {
            cmd.arg("-DWT_FAR_KERNEL");
        }
        cmd
    };
    let mock_dir = dir.join("mock");
    let asm_dir = dir.join("asm");
    std::fs::create_dir_all(&mock_dir).expect("mkdir");
    std::fs::create_dir_all(&asm_dir).expect("mkdir");
    let mock = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mock_hip");
    run(Command::new("cc")
        .args(["-shared", "-fPIC", "-Wl,-soname,libamdhip64.so.5"])
        .arg(format!(
            "-Wl,--version-script={}",
            mock.join("mock_hip.map").display()
        ))
        .args(["-I/usr/include", "-D__HIP_PLATFORM_AMD__"])
        .arg(mock.join("mock_hip.c"))
        .arg("-o")
        .arg(mock_dir.join("libamdhip64.so.5")));
    let object = dir.join("hip_app.o");
    run(command(arches).arg("-c").arg("-o").arg(&object));
    let app = dir.join("hip_app");
    // Linked against the real HIP runtime, as any HIP program is.
    run(Command::new("clang-19")
        .arg(&object)
        .args(["-lamdhip64", "-ldl", "-lstdc++", "-o"])
        .arg(&app));
    // The device assembly for the device's target, the source the hook instruments.
    let asm = asm_dir.join("hip_app-gfx90a.s");
    run(command(&[device_arch])
        .args(["--cuda-device-only", "-S", "-o"])
        .arg(&asm));
    // A code object built from it, for the module API.
    let module = dir.join("hip_app.hsaco");
    let (o, mattr) = (dir.join("module.o"), mattr(device_arch));
    run(Command::new("llvm-mc-19")
        .args(["-triple=amdgcn-amd-amdhsa", "-mcpu=gfx90a", "-filetype=obj"])
        .args(mattr.iter())
        .arg(&asm)
        .arg("-o")
        .arg(&o));
    run(Command::new("ld.lld-19")
        .arg("-shared")
        .arg(&o)
        .arg("-o")
        .arg(&module));
    let text = if far { HEAVY } else { PROGRAM };
    let program = warptrace_lang::compile(text, "t.wt").expect("compiles");
    let bundle = dir.join("bundle.json");
    std::fs::write(
        &bundle,
        warptrace_ir::Bundle::new(text.into(), program).to_json(),
    )
    .expect("write");
    let params = format!(
        "{TWICE}=2:{},{ADD_ONE}=1:{}",
        kernarg(&module, TWICE).0,
        kernarg(&module, ADD_ONE).0
    );
    Built {
        params,
        app,
        mock_dir,
        asm_dir,
        module,
        bundle,
    }
}

fn mattr(arch: &str) -> Option<String> {
    let features: Vec<String> = arch
        .split(':')
        .skip(1)
        .map(|f| format!("{}{}", &f[f.len() - 1..], &f[..f.len() - 1]))
        .collect();
    (!features.is_empty()).then(|| format!("-mattr={}", features.join(",")))
}

/// One run of the app under the preload library: the mock's log and the report.
struct Outcome {
    log: Vec<String>,
    report: Report,
    stdout: String,
    modules: PathBuf,
}

fn traced(b: &Built, dir: &Path, name: &str, env: &[(&str, &std::ffi::OsStr)]) -> Outcome {
    let run_dir = dir.join(name);
    let results = run_dir.join("results");
    let modules = run_dir.join("modules");
    let empty = run_dir.join("no-triton-cache");
    for d in [&results, &modules, &empty] {
        std::fs::create_dir_all(d).expect("mkdir");
    }
    let log = run_dir.join("mock.log");
    let lib = common::target_dir().join("libwarptrace_preload.so");
    assert!(lib.is_file(), "{} not built", lib.display());
    let mut cmd = Command::new(&b.app);
    cmd.arg(&b.module)
        .env("LD_PRELOAD", &lib)
        .env("LD_LIBRARY_PATH", &b.mock_dir)
        .env("MOCK_HIP_LOG", &log)
        .env("MOCK_HIP_DIR", &modules)
        .env("MOCK_HIP_ARCH", "gfx90a:sramecc+:xnack-")
        .env("MOCK_HIP_PARAMS", &b.params)
        .env("WARPTRACE_BUNDLE", &b.bundle)
        .env("WARPTRACE_RESULTS", &results)
        .env("WARPTRACE_NO_CACHE", "1")
        .env("TRITON_CACHE_DIR", &empty)
        .env_remove("WARPTRACE_GCN_ASM_DIR")
        .env_remove("WARPTRACE_GCN_ARCH")
        .env_remove("WARPTRACE_FAULT");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let files: Vec<_> = std::fs::read_dir(&results).expect("results").collect();
    assert_eq!(files.len(), 1, "one report");
    let path = files[0].as_ref().expect("entry").path();
    let report =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("report JSON");
    let log = std::fs::read_to_string(&log).expect("mock log");
    Outcome {
        log: log.lines().map(str::to_owned).collect(),
        report,
        stdout,
        modules,
    }
}

fn launches(o: &Outcome) -> Vec<&str> {
    o.log
        .iter()
        .filter(|l| l.starts_with("launch "))
        .map(String::as_str)
        .collect()
}

fn count(o: &Outcome, prefix: &str) -> usize {
    o.log.iter().filter(|l| l.starts_with(prefix)).count()
}

/// A kernel's `.kernarg_segment_size` and the offset of its last argument, from a code
/// object's metadata as `llvm-readelf-19 --notes` prints it.
fn kernarg(code_object: &Path, kernel: &str) -> (u64, u64) {
    let out = Command::new("llvm-readelf-19")
        .arg("--notes")
        .arg(code_object)
        .output()
        .expect("llvm-readelf");
    let notes = String::from_utf8_lossy(&out.stdout).into_owned();
    let number = |l: &str| -> u64 {
        let v = l.split(':').nth(1).expect("value");
        v.trim().parse().expect("number")
    };
    let mut blocks: Vec<Vec<&str>> = Vec::new();
    for line in notes.lines() {
        if line.starts_with("  - ") {
            blocks.push(Vec::new());
        }
        if let Some(b) = blocks.last_mut() {
            b.push(line);
        }
    }
    let block = blocks
        .iter()
        .find(|b| {
            b.iter()
                .any(|l| l.trim() == format!(".name:           {kernel}"))
        })
        .unwrap_or_else(|| panic!("{kernel} not in the notes:\n{notes}"));
    let size = block
        .iter()
        .find(|l| l.starts_with("    .kernarg_segment_size:"))
        .map(|l| number(l))
        .expect(".kernarg_segment_size");
    let last = block
        .iter()
        .filter(|l| {
            l.trim_start_matches(['-', ' ']).starts_with(".offset:") && l.starts_with("      ")
        })
        .map(|l| number(l))
        .max()
        .expect("arguments");
    (size, last)
}

/// Every launch reaches an instrumented function with the map buffer appended: its
/// kernel descriptor has the larger kernarg segment, the `extra` buffer reaches the map
/// argument's offset, and each buffer is read back by a host function.
fn assert_instrumented(o: &Outcome, b: &Built) {
    // The fatbinary's instrumented module is loaded at the first launch (module 1), the
    // app's own module is module 2 and its instrumented copy module 3; the same image
    // loaded by hipModuleLoadDataEx is module 4, its instrumented copy module 5.
    let fatbin = o.modules.join("module-1.hsaco");
    let copy = o.modules.join("module-3.hsaco");
    let ex_copy = o.modules.join("module-5.hsaco");
    assert_eq!(count(o, "hipModuleLoadDataEx module=4"), 1, "{:#?}", o.log);
    for (code, kernel) in [
        (&fatbin, ADD_ONE),
        (&fatbin, TWICE),
        (&copy, TWICE),
        (&ex_copy, TWICE),
    ] {
        let (compiled, _) = kernarg(&b.module, kernel);
        let (size, map) = kernarg(code, kernel);
        assert_eq!(
            map,
            compiled.div_ceil(8) * 8,
            "{kernel}: the map argument follows"
        );
        assert_eq!(size, map + 8, "{kernel}");
    }
    let (add_one, twice) = (kernarg(&fatbin, ADD_ONE).0, kernarg(&fatbin, TWICE).0);
    let fat = |api: &str, name: &str, kernarg: u64, block: u32, params: u32| {
        format!("launch api={api} name={name} module=1 kernarg={kernarg} instrumented=1 block={block} params={params} map=live")
    };
    let module = |rest: &str| {
        format!("launch api=hipModuleLaunchKernel name={TWICE} module=3 kernarg={twice} instrumented=1 block=256 {rest}")
    };
    let ex = format!("launch api=hipModuleLaunchKernel name={TWICE} module=5 kernarg={twice} instrumented=1 block=256 params=3 map=live");
    let extra = kernarg(&copy, TWICE).1 + 8;
    assert_eq!(
        launches(o),
        [
            fat("hipModuleLaunchKernel", ADD_ONE, add_one, 64, 2), // <<<>>>
            fat("hipModuleLaunchKernel", TWICE, twice, 256, 3),    // hipLaunchKernel
            fat("hipExtModuleLaunchKernel", TWICE, twice, 256, 3), // hipExtLaunchKernel
            module("params=3 map=live"),
            module(&format!("extra={extra} map=live")),
            module("params=3 map=live"), // through dlsym on the library's handle
            module("params=3 map=live"), // through hipGetProcAddress
            ex,                          // the module hipModuleLoadDataEx loaded
        ],
        "{:#?}",
        o.log
    );
    assert!(o.stdout.contains("hip_app: hipGetProcAddress launch"));
    // Every launch's buffer was allocated, copied back and merged by a host function.
    assert_eq!(count(o, "hipMallocAsync"), 8);
    assert_eq!(count(o, "hipMemcpyAsync bytes="), 8);
    assert_eq!(count(o, "hipLaunchHostFunc"), 8);
    let s = &o.report.summary;
    assert_eq!(s.kernels_instrumented, 2, "{s:?}");
    assert_eq!(
        (s.launches_probed, s.launches_unprobed, s.launches_lost),
        (8, 0, 0)
    );
    assert!(s.reasons.is_empty(), "{s:?}");
}

/// The instrumented code objects are for the device's target id.
fn assert_target(o: &Outcome, flags: &str) {
    for m in ["module-1.hsaco", "module-3.hsaco"] {
        let out = Command::new("llvm-readelf-19")
            .arg("-h")
            .arg(o.modules.join(m))
            .output()
            .expect("llvm-readelf");
        let h = String::from_utf8_lossy(&out.stdout);
        assert!(h.contains(flags), "{m}: {h}");
    }
}

/// What [`clang19_run`] needs installed.
const CLANG19_TOOLS: [&str; 5] = [
    "cc",
    "clang-19",
    "llvm-mc-19",
    "ld.lld-19",
    "llvm-readelf-19",
];

/// The device's target id in the runs of [`clang19_run`].
const DEVICE: &str = "gfx90a:sramecc+:xnack-";

/// The app built by clang 19 for `arches` (`far` as [`build_with`] takes it), run once
/// under the preload library on a [`DEVICE`], its assembly found in the build's folder.
fn clang19_run(dir: &Path, arches: &[&str], far: bool) -> (Built, Outcome) {
    let b = build_with(dir, Compiler::Clang19, arches, DEVICE, far);
    let name = if far { "far" } else { "asm" };
    let asm = [("WARPTRACE_GCN_ASM_DIR", b.asm_dir.as_os_str())];
    let o = traced(&b, dir, name, &asm);
    (b, o)
}

#[test]
fn clang19_fatbinary_and_module_launches_are_instrumented() {
    if !have(&CLANG19_TOOLS) {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let (b, o) = clang19_run(dir.path(), &[DEVICE, "gfx942"], false);
    assert_eq!(
        o.log[..3],
        [
            "__hipRegisterFatBinary magic=48495046 version=1".to_string(),
            format!("__hipRegisterFunction name={TWICE}"),
            format!("__hipRegisterFunction name={ADD_ONE}"),
        ]
    );
    assert_instrumented(&o, &b);
    assert_target(&o, "gfx90a, xnack-, sramecc+");
    // `@n[kernel]`'s table accumulates in its home slot: each launch's buffer holds the
    // copies the workgroups spread over (decisions 0019, 0035), all allocated.
    let program = warptrace_lang::compile(PROGRAM, "t.wt").expect("compiles");
    let copies = warptrace_ir::placement::replicas(&program, warptrace_ir::kernel_id(TWICE));
    assert!(copies > 1, "{copies}");
    let one = warptrace_ir::MapLayout::new(&program.maps).total_bytes;
    let allocated = format!("hipMallocAsync bytes={}", u64::from(copies) * one);
    assert_eq!(count(&o, &allocated), 8, "{allocated}: {:#?}", o.log);
}

/// A module whose snippets push a kernel branch past its 16-bit reach still loads
/// instrumented: with three map updates and two divisions at each of `far_loop`'s 96
/// accesses, the hook makes the loop's back edge a long branch as it assembles the module
/// (decision 0032), and every launch runs instrumented as without it.
#[test]
fn a_module_too_long_for_its_branches_loads_with_long_branches() {
    if !have(&[&CLANG19_TOOLS[..], &["llvm-objdump-19"]].concat()) {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let (b, o) = clang19_run(dir.path(), &[DEVICE], true);
    assert_instrumented(&o, &b);
    // The code object loaded has a long branch; the assembly it was made from has none.
    let dis = Command::new("llvm-objdump-19")
        .args(["-d", "--mcpu=gfx90a"])
        .arg(o.modules.join("module-1.hsaco"))
        .output()
        .expect("llvm-objdump");
    let dis = String::from_utf8_lossy(&dis.stdout);
    assert!(dis.contains("<_Z8far_loopPfi>:"), "{dis}");
    assert!(dis.contains("s_setpc_b64"), "no long branch");
    let asm = std::fs::read_to_string(b.asm_dir.join("hip_app-gfx90a.s")).expect("asm");
    assert!(!asm.contains("s_setpc_b64"));
}

#[test]
fn hipcc_fatbinary_is_instrumented() {
    if !have(&[
        "cc",
        "hipcc",
        "clang-19",
        "llvm-mc-19",
        "ld.lld-19",
        "llvm-readelf-19",
    ]) {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    // HIP 5.2's clang 15: code object v4, target id without features (runs on any
    // sramecc/xnack setting).
    let b = build(dir.path(), Compiler::Hipcc, &["gfx90a"], "gfx90a");
    let o = traced(
        &b,
        dir.path(),
        "asm",
        &[("WARPTRACE_GCN_ASM_DIR", b.asm_dir.as_os_str())],
    );
    assert_instrumented(&o, &b);
    assert_target(&o, "gfx90a, xnack, sramecc");
}

#[test]
fn without_assembly_every_launch_runs_the_original() {
    if !have(&["cc", "clang-19", "llvm-mc-19", "ld.lld-19"]) {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let arch = DEVICE;
    let b = build(dir.path(), Compiler::Clang19, &[arch, "gfx942"], arch);
    let o = traced(&b, dir.path(), "none", &[]);
    let twice = kernarg(&b.module, TWICE).0;
    let module = |rest: &str| {
        format!("launch api=hipModuleLaunchKernel name={TWICE} module=1 kernarg={twice} instrumented=0 block=256{rest}")
    };
    let ex = format!("launch api=hipModuleLaunchKernel name={TWICE} module=2 kernarg={twice} instrumented=0 block=256 params=2");
    assert_eq!(
        launches(&o),
        [
            format!("launch api=hipLaunchKernel name={ADD_ONE} grid=1 block=64"),
            format!("launch api=hipLaunchKernel name={TWICE} grid=1 block=256"),
            format!("launch api=hipExtLaunchKernel name={TWICE} grid=1 block=256"),
            module(" params=2"),
            module(" extra=16"),
            module(" params=2"),
            module(" params=2"),
            ex,
        ]
    );
    assert_eq!(count(&o, "hipMallocAsync"), 0);
    let s = &o.report.summary;
    assert_eq!((s.kernels_instrumented, s.kernels_skipped), (0, 2), "{s:?}");
    assert_eq!((s.launches_probed, s.launches_unprobed), (0, 8));
    assert_eq!(s.reasons.get(&Reason::NoAssembly), Some(&2), "{s:?}");
    let summary = warptrace_runtime::render_summary(&o.report, false);
    assert!(summary.contains("2 skipped (no assembly: 2)"), "{summary}");
    let detail = o
        .report
        .kernel_status
        .iter()
        .map(|k| format!("{:?}", k.status))
        .collect::<Vec<_>>()
        .join("\n");
    assert!(detail.contains("WARPTRACE_GCN_ASM_DIR"), "{detail}");
}

#[test]
fn a_failed_assembly_load_runs_the_original_and_is_counted() {
    if !have(&["cc", "clang-19", "llvm-mc-19", "ld.lld-19"]) {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let arch = DEVICE;
    let b = build(dir.path(), Compiler::Clang19, &[arch], arch);
    let o = traced(
        &b,
        dir.path(),
        "fault",
        &[
            ("WARPTRACE_GCN_ASM_DIR", b.asm_dir.as_os_str()),
            ("WARPTRACE_FAULT", "jit".as_ref()),
        ],
    );
    let l = launches(&o);
    assert_eq!(l.len(), 8, "{:#?}", o.log);
    assert!(
        l[..3].iter().all(|l| !l.contains("Module"))
            && l[3..].iter().all(|l| l.contains("instrumented=0")),
        "{:#?}",
        o.log
    );
    assert_eq!(count(&o, "hipMallocAsync"), 0);
    let s = &o.report.summary;
    assert_eq!(s.reasons.get(&Reason::JitError), Some(&2), "{s:?}");
    assert_eq!((s.launches_probed, s.launches_unprobed), (0, 8));
}
