//! The image readers on real files made here by nvcc, ptxas, fatbinary and Triton.

use crate::fatbin::{self, EntryKind};
use crate::image::{find_ptx, image_at, same_code, with_source_lines, ImageError};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A CUDA tool: `$WARPTRACE_CUDA_HOME/bin`, then PATH. Missing: a failure under `CI=true`,
/// else a loud skip.
fn tool(name: &str) -> Option<PathBuf> {
    let home =
        std::env::var_os("WARPTRACE_CUDA_HOME").map(|h| PathBuf::from(h).join("bin").join(name));
    let on_path = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .map(|d| d.join(name));
    let found = home.into_iter().chain(on_path).find(|p| p.is_file());
    if found.is_none() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "{name} not found (CI=true)"
        );
        eprintln!("=== SKIPPED: {name} not found (source .tools/env.sh) ===");
    }
    found
}

fn run(cmd: &mut Command) {
    let out = cmd.output().expect("tool runs");
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

const SOURCE: &str = r#"
extern "C" __global__ void add(float *a, int n) { int i = threadIdx.x; if (i < n) a[i] += 1.0f; }
__global__ void twice(float *a) { a[threadIdx.x] *= 2.0f; }
"#;

struct Files {
    dir: tempfile::TempDir,
}

impl Files {
    fn new() -> Option<Files> {
        let nvcc = tool("nvcc")?;
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("k.cu"), SOURCE).expect("write");
        for arch in ["80", "90"] {
            run(Command::new(&nvcc).current_dir(dir.path()).args([
                "-ptx",
                &format!("-arch=sm_{arch}"),
                "k.cu",
                "-o",
                &format!("k{arch}.ptx"),
            ]));
        }
        Some(Files { dir })
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn read(&self, name: &str) -> Vec<u8> {
        std::fs::read(self.path(name)).expect("read")
    }
}

/// The text assembles: reconstructed PTX is real PTX.
fn assembles(ptx: &str, arch: &str) {
    let Some(ptxas) = tool("ptxas") else { return };
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("r.ptx");
    std::fs::write(&file, ptx).expect("write");
    run(Command::new(ptxas)
        .arg(format!("-arch={arch}"))
        .arg(&file)
        .arg("-o")
        .arg(dir.path().join("r.cubin")));
}

fn target(ptx: &str) -> &str {
    ptx.lines().find(|l| l.starts_with(".target")).unwrap_or("")
}

#[test]
fn ptx_text_images() {
    let Some(f) = Files::new() else { return };
    let text = f.read("k90.ptx");
    let found = find_ptx(&text, Some(90)).expect("ptx");
    assert_eq!(found.as_bytes(), &text[..]);
    let mut nul = text.clone();
    nul.push(0);
    // SAFETY: a NUL-terminated buffer.
    let at = unsafe { image_at(nul.as_ptr()) }.expect("extent");
    assert_eq!(at.len(), text.len());
    assert!(matches!(
        find_ptx(b"\x01\x02garbage", None),
        Err(ImageError::NoPtx(_))
    ));
}

#[test]
fn cubins_with_and_without_lineinfo() {
    let Some(f) = Files::new() else { return };
    let Some(ptxas) = tool("ptxas") else { return };
    let Some(nvcc) = tool("nvcc") else { return };
    run(Command::new(&ptxas).current_dir(f.dir.path()).args([
        "-arch=sm_90",
        "-lineinfo",
        "k90.ptx",
        "-o",
        "line.cubin",
    ]));
    run(Command::new(&ptxas).current_dir(f.dir.path()).args([
        "-arch=sm_90",
        "k90.ptx",
        "-o",
        "plain.cubin",
    ]));
    run(Command::new(&nvcc).current_dir(f.dir.path()).args([
        "-cubin",
        "-arch=sm_90",
        "-lineinfo",
        "k.cu",
        "-o",
        "nvcc.cubin",
    ]));
    for name in ["line.cubin", "nvcc.cubin"] {
        let bytes = f.read(name);
        let ptx = find_ptx(&bytes, Some(90)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(ptx.contains(".entry add("), "{name}");
        assert!(ptx.contains(".entry _Z5twicePf("), "{name}");
        assert_eq!(target(&ptx), ".target sm_90");
        assembles(&ptx, "sm_90");
        // The extent computed from the headers alone covers the whole ELF.
        // SAFETY: a complete ELF image in memory.
        let at = unsafe { image_at(bytes.as_ptr()) }.expect("extent");
        assert!(
            at.len() <= bytes.len() && at.len() + 64 > bytes.len(),
            "{name}: {} of {}",
            at.len(),
            bytes.len()
        );
        assert_eq!(find_ptx(at, Some(90)).expect("ptx"), ptx);
    }
    let plain = f.read("plain.cubin");
    assert!(matches!(
        find_ptx(&plain, Some(90)),
        Err(ImageError::NoPtx(_))
    ));
}

fn fatbinary(f: &Files, out: &str, extra: &[&str], images: &[&str]) -> Option<Vec<u8>> {
    let fb = tool("fatbinary")?;
    let mut cmd = Command::new(fb);
    cmd.current_dir(f.dir.path())
        .arg(format!("--create={out}"))
        .arg("-64")
        .args(extra);
    for i in images {
        cmd.arg(format!("--image3={i}"));
    }
    run(&mut cmd);
    Some(f.read(out))
}

#[test]
fn fatbinaries_choose_the_best_ptx_for_the_device() {
    let Some(f) = Files::new() else { return };
    let Some(ptxas) = tool("ptxas") else { return };
    run(Command::new(&ptxas).current_dir(f.dir.path()).args([
        "-arch=sm_90",
        "-lineinfo",
        "k90.ptx",
        "-o",
        "k90.cubin",
    ]));
    let Some(bytes) = fatbinary(
        &f,
        "plain.fatbin",
        &["--compress=false"],
        &[
            "kind=ptx,sm=80,file=k80.ptx",
            "kind=ptx,sm=90,file=k90.ptx",
            "kind=elf,sm=90,file=k90.cubin",
        ],
    ) else {
        return;
    };
    let entries = fatbin::entries(&bytes).expect("entries");
    let kinds: Vec<_> = entries
        .iter()
        .map(|e| (e.kind, e.arch, e.compression.is_some()))
        .collect();
    assert_eq!(
        kinds,
        [
            (EntryKind::Ptx, 80, false),
            (EntryKind::Ptx, 90, false),
            (EntryKind::Elf, 90, false)
        ]
    );
    let ptx90 = find_ptx(&bytes, Some(90)).expect("sm_90");
    assert_eq!(target(&ptx90), ".target sm_90");
    assembles(&ptx90, "sm_90");
    assert_eq!(
        target(&find_ptx(&bytes, Some(100)).expect("newer device")),
        ".target sm_90"
    );
    assert_eq!(
        target(&find_ptx(&bytes, Some(86)).expect("sm_86")),
        ".target sm_80"
    );
    assert_eq!(
        target(&find_ptx(&bytes, None).expect("unknown")),
        ".target sm_90"
    );
    assert!(matches!(
        find_ptx(&bytes, Some(75)),
        Err(ImageError::NoPtx(_))
    ));

    // The header gives the extent; a __fatBinC_Wrapper_t leads to the same bytes.
    // SAFETY: a complete fatbinary in memory.
    assert_eq!(
        unsafe { image_at(bytes.as_ptr()) }.map(<[u8]>::len),
        Some(bytes.len())
    );
    let mut wrapper = Vec::new();
    wrapper.extend_from_slice(&fatbin::WRAPPER_MAGIC.to_le_bytes());
    wrapper.extend_from_slice(&1u32.to_le_bytes());
    wrapper.extend_from_slice(&(bytes.as_ptr() as u64).to_le_bytes());
    wrapper.extend_from_slice(&0u64.to_le_bytes());
    // SAFETY: the wrapper points at the live fatbinary above.
    let via = unsafe { image_at(wrapper.as_ptr()) }.expect("wrapped");
    assert_eq!(via.as_ptr(), bytes.as_ptr());
    assert_eq!(via.len(), bytes.len());

    // An ELF-only fatbinary: the cubin's .nv_debug_ptx_txt.
    let elf_only = fatbinary(
        &f,
        "elf.fatbin",
        &["--compress=false"],
        &["kind=elf,sm=90,file=k90.cubin"],
    )
    .expect("fatbinary");
    let ptx = find_ptx(&elf_only, Some(90)).expect("debug PTX");
    assert!(ptx.contains(".entry add("));
}

#[test]
fn compressed_ptx_is_decompressed_lz4_and_zstd() {
    let Some(f) = Files::new() else { return };
    let plain = find_ptx(&f.read("k90.ptx"), Some(90)).expect("plain PTX");
    // `speed` writes a raw LZ4 block, `default` a zstd frame (CUDA 13.0's fatbinary).
    for (mode, want) in [
        ("speed", fatbin::Compression::Lz4),
        ("default", fatbin::Compression::Zstd),
    ] {
        let name = format!("{mode}.fatbin");
        let mode_arg = format!("--compress-mode={mode}");
        let Some(bytes) = fatbinary(
            &f,
            &name,
            &["--compress-all", &mode_arg],
            &["kind=ptx,sm=90,file=k90.ptx"],
        ) else {
            return;
        };
        assert_eq!(
            fatbin::entries(&bytes).expect("entries")[0].compression,
            Some(want),
            "{mode}"
        );
        let ptx = find_ptx(&bytes, Some(90)).expect("decompressed PTX");
        // fatbinary drops comments and collapses whitespace; the code itself survives.
        let words = |t: &str| -> Vec<String> {
            t.lines()
                .filter(|l| !l.trim_start().starts_with("//"))
                .flat_map(|l| l.split_whitespace().map(str::to_string).collect::<Vec<_>>())
                .collect()
        };
        assert_eq!(words(&ptx), words(&plain), "{mode}");
    }
}

#[test]
fn a_corrupt_compressed_entry_is_no_ptx_not_a_panic() {
    let Some(f) = Files::new() else { return };
    let Some(mut bytes) = fatbinary(
        &f,
        "bad.fatbin",
        &["--compress-all"],
        &["kind=ptx,sm=90,file=k90.ptx"],
    ) else {
        return;
    };
    let n = bytes.len();
    for b in &mut bytes[n - 64..n - 16] {
        *b ^= 0x5a;
    }
    assert!(matches!(
        find_ptx(&bytes, Some(90)),
        Err(ImageError::NoPtx(_))
    ));
}

#[test]
fn nvcc_fatbins_compressed_by_default_and_not() {
    let Some(f) = Files::new() else { return };
    let Some(nvcc) = tool("nvcc") else { return };
    let gencode = [
        "-gencode",
        "arch=compute_80,code=compute_80",
        "-gencode",
        "arch=compute_90,code=[sm_90,compute_90]",
    ];
    run(Command::new(&nvcc)
        .current_dir(f.dir.path())
        .args(["-fatbin", "k.cu", "-o", "d.fatbin"])
        .args(gencode));
    run(Command::new(&nvcc)
        .current_dir(f.dir.path())
        .args(["-fatbin", "--no-compress", "k.cu", "-o", "n.fatbin"])
        .args(gencode));
    // nvcc compresses by default (zstd); both forms give the same PTX.
    let compressed = find_ptx(&f.read("d.fatbin"), Some(90)).expect("compressed");
    let ptx = find_ptx(&f.read("n.fatbin"), Some(90)).expect("uncompressed");
    assert_eq!(compressed, ptx);
    assert_eq!(target(&ptx), ".target sm_90");
    assert_eq!(
        target(&find_ptx(&f.read("n.fatbin"), Some(89)).expect("sm_89")),
        ".target sm_80"
    );
    assembles(&ptx, "sm_90");
}

#[test]
fn triton_cubin_carries_its_ptx() {
    let Some(python) = std::env::var_os("WARPTRACE_PYTHON") else {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "WARPTRACE_PYTHON not set (CI=true)"
        );
        eprintln!("=== SKIPPED: WARPTRACE_PYTHON not set (source .tools/env.sh) ===");
        return;
    };
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus/src");
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("t.cubin");
    let script = "import sys; sys.path.insert(0, sys.argv[1]); import triton_kernels as tk, triton\n\
from triton.backends.compiler import GPUTarget\nfrom triton.compiler import ASTSource\n\
fn, sig, c, o = tk.KERNELS['vector_add']\n\
k = triton.compile(ASTSource(fn=fn, signature=sig, constexprs=c), target=GPUTarget('cuda', 90, 32), options=o)\n\
open(sys.argv[2], 'wb').write(k.asm['cubin'])";
    let cache = dir.path().join("cache");
    run(Command::new(python)
        .env("TRITON_CACHE_DIR", &cache)
        .arg("-c")
        .arg(script)
        .arg(&corpus)
        .arg(&out));
    let bytes = std::fs::read(&out).expect("cubin");
    let ptx = find_ptx(&bytes, Some(90)).expect("Triton cubin PTX");
    assert!(ptx.contains(".entry vector_add("));
    assert_eq!(target(&ptx), ".target sm_90a");
    assembles(&ptx, "sm_90a");
    // The cubin's PTX has no source lines; the PTX Triton cached next to the same cubin
    // does, and is the same code.
    assert!(!ptx.contains(".loc"));
    let (lined, path) = with_source_lines(&bytes, &ptx, &cache).expect("Triton's cached PTX");
    assert!(path.ends_with("vector_add.ptx"), "{}", path.display());
    assert!(lined.contains(".loc") && lined.contains("triton_kernels.py"));
    assert!(same_code(&lined, &ptx));
    assembles(&lined, "sm_90a");
    // The image as `image_at` may see it, short of the file's last bytes: found too.
    let short = &bytes[..bytes.len() - 8];
    assert!(with_source_lines(short, &ptx, &cache).is_some());
    // Other bytes, other code, or lines already there: nothing.
    let mut other = bytes.clone();
    let last = other.len() - 1;
    other[last] ^= 1;
    assert!(with_source_lines(&other, &ptx, &cache).is_none());
    assert!(with_source_lines(&bytes, &lined, &cache).is_none());
    let changed = ptx.replacen("add.f32", "sub.f32", 1);
    assert_ne!(changed, ptx);
    assert!(!same_code(&lined, &changed));
    std::fs::write(&path, lined.replacen("add.f32", "sub.f32", 1)).expect("rewrite");
    assert!(with_source_lines(&bytes, &ptx, &cache).is_none());
}
