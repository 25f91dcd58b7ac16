//! Helpers for the cross-crate tests in `tests/tests/`: the PTX and GCN corpora, the real `ptxas`,
//! and probe programs built by hand in IR.
#![deny(missing_docs)]

use std::path::{Path, PathBuf};
use std::process::Command;

pub mod programs;

/// The folder of the PTX corpus.
pub fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/ptx")
}

/// The shipped probe library's folder (`probes/`).
pub fn probes_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../probes")
}

/// Every probe of the library as (name, source), sorted by name.
pub fn library_probes() -> Vec<(String, String)> {
    let mut probes: Vec<(String, String)> = std::fs::read_dir(probes_dir())
        .expect("probes/")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "wt"))
        .map(|p| {
            let name = p.file_stem().map(|n| n.to_string_lossy().into_owned());
            let src = std::fs::read_to_string(&p).expect("UTF-8");
            (name.unwrap_or_default(), src)
        })
        .collect();
    probes.sort();
    probes
}

/// Every corpus file as (file name, text), sorted by name.
pub fn corpus() -> Vec<(String, String)> {
    files_in(&corpus_dir(), "ptx")
}

/// Every `.ptx` file of a folder beside the corpus (`tests/corpus/DIR`: `hostile`, `jit`,
/// `large`) as (file name, text), sorted by name.
pub fn corpus_beside(dir: &str) -> Vec<(String, String)> {
    files_in(&corpus_dir().join("..").join(dir), "ptx")
}

/// One corpus file's text.
pub fn corpus_file(name: &str) -> String {
    std::fs::read_to_string(corpus_dir().join(name)).expect("corpus file exists")
}

/// The folder of the GCN corpus.
pub fn gcn_corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/gcn")
}

/// Every GCN corpus file (`.s`) as (file name, text), sorted by name.
pub fn gcn_corpus() -> Vec<(String, String)> {
    files_in(&gcn_corpus_dir(), "s")
}

/// One GCN corpus file's text.
pub fn gcn_corpus_file(name: &str) -> String {
    std::fs::read_to_string(gcn_corpus_dir().join(name)).expect("GCN corpus file exists")
}

/// The files of `dir` with extension `ext` as (file name, text), sorted by name.
fn files_in(dir: &Path, ext: &str) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .map(|p| {
            let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
            let text = std::fs::read_to_string(&p).expect("corpus file is UTF-8");
            (name.unwrap_or_default(), text)
        })
        .collect();
    files.sort();
    files
}

/// Corpus files whose kernels use sm_90 features (`wgmma`, bulk and TMA copies, …): assembled for
/// `sm_90a` only. Every other file is assembled for `sm_80` too.
pub const SM90_ONLY: &[&str] = &[
    "nvcc_bulk.ptx",
    "nvcc_wgmma.ptx",
    "triton_flash_attn_fwd.ptx",
    "triton_matmul.ptx",
    "triton_matmul_pipelined.ptx",
    "triton_matmul_tma.ptx",
];

/// The architectures a corpus file is assembled for: `sm_90a`, and `sm_80` unless the file
/// is in [`SM90_ONLY`].
pub fn corpus_archs(file: &str) -> &'static [&'static str] {
    if SM90_ONLY.contains(&file) {
        &["sm_90a"]
    } else {
        &["sm_90a", "sm_80"]
    }
}

/// `ptx` as given to `ptxas -arch=<arch>`: for `sm_80`, the module's `.target` (`sm_90`,
/// `sm_90a`) is lowered to `sm_80` (its other target options kept); for any other arch the
/// text is unchanged (`ptxas` assembles a lower `.target` for a higher arch).
pub fn retarget(ptx: &str, arch: &str) -> String {
    if arch != "sm_80" {
        return ptx.to_owned();
    }
    let mut out = String::with_capacity(ptx.len());
    let mut done = false;
    for line in ptx.split_inclusive('\n') {
        match line.strip_prefix(".target ") {
            Some(rest) if !done => {
                done = true;
                let end = rest
                    .find(|c: char| c == ',' || c.is_whitespace())
                    .unwrap_or(rest.len());
                out.push_str(".target sm_80");
                out.push_str(&rest[end..]);
            }
            _ => out.push_str(line),
        }
    }
    out
}

/// `ptxas`: `$WARPTRACE_CUDA_HOME/bin/ptxas`, else the one on `PATH`. When missing, fails
/// under `CI=true` and otherwise prints a loud skip notice and returns `None`.
pub fn ptxas() -> Option<PathBuf> {
    if let Some(home) = std::env::var_os("WARPTRACE_CUDA_HOME") {
        let p = Path::new(&home).join("bin/ptxas");
        if p.is_file() {
            return Some(p);
        }
    }
    if let Some(path) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&path) {
            let p = dir.join("ptxas");
            if p.is_file() {
                return Some(p);
            }
        }
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("ptxas not found (CI=true); run scripts/setup.sh and source .tools/env.sh");
    }
    eprintln!("SKIPPED: ptxas not found; run scripts/setup.sh");
    None
}

/// Assembles `ptx` with `ptxas -arch=<arch>` (extra `args` appended). `Ok(stderr)` if it
/// assembles, `Err(stderr)` if not; `None` when ptxas is missing (see [`ptxas`]).
pub fn assemble(ptx: &str, arch: &str, args: &[&str]) -> Option<Result<String, String>> {
    let ptxas = ptxas()?;
    let dir = tempfile::tempdir().expect("temp dir");
    let input = dir.path().join("in.ptx");
    std::fs::write(&input, ptx).expect("write ptx");
    let out = Command::new(ptxas)
        .arg(format!("-arch={arch}"))
        .args(args)
        .arg(&input)
        .arg("-o")
        .arg(dir.path().join("out.cubin"))
        .output()
        .expect("run ptxas");
    let stderr =
        String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
    Some(if out.status.success() {
        Ok(stderr)
    } else {
        Err(stderr)
    })
}

/// The 1-based line of the `nth` (from 0) line of `text` containing `needle`.
pub fn line_of(text: &str, needle: &str, nth: usize) -> u32 {
    text.lines()
        .enumerate()
        .filter(|(_, l)| l.contains(needle))
        .nth(nth)
        .map(|(i, _)| i as u32 + 1)
        .unwrap_or_else(|| panic!("no line {nth} containing `{needle}`"))
}

/// `f` over every job on as many threads as the machine has cores (at least two), the
/// results in the jobs' order; a job's panic is resumed here.
pub fn parallel<J: Sync, R: Send>(jobs: &[J], f: impl Fn(&J) -> R + Sync) -> Vec<R> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<R>>> = Mutex::new((0..jobs.len()).map(|_| None).collect());
    let workers = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .max(2);
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(job) = jobs.get(i) else { break };
                let r = f(job);
                results.lock().unwrap_or_else(|p| p.into_inner())[i] = Some(r);
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_else(|p| p.into_inner())
        .into_iter()
        .map(|r| r.expect("every job ran"))
        .collect()
}
