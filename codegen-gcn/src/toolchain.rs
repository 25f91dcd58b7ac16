//! The LLVM AMDGPU toolchain: `llvm-mc` assembles a module for a processor, `ld.lld
//! -shared` links the object into a code object (an HSA shared object), `llvm-readelf
//! --notes` prints its metadata note. The tools are found as `<name>-19`, then `<name>`,
//! on `PATH` (or in `$WARPTRACE_LLVM_BIN`).

use std::path::{Path, PathBuf};
use std::process::Command;

/// Errors running the toolchain.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// A tool is not installed.
    #[error("`{0}` not found (install llvm-19 and lld-19)")]
    Missing(String),
    /// A tool could not be run or its files written.
    #[error("running `{tool}`")]
    Io {
        /// The tool.
        tool: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// `llvm-mc` found branches past the ±32768 words their 16-bit offset reaches: the
    /// snippets made the code between a kernel branch and its target too long
    /// ([`crate::build`] rewrites those as long branches).
    #[error(
        "the instrumented kernel is too large for its own branches (a branch's 16-bit offset \
         reaches 128 KiB) at lines {lines:?}:\n{stderr}"
    )]
    BranchOutOfRange {
        /// `llvm-mc`'s error output.
        stderr: String,
        /// The 1-based lines of the branches.
        lines: Vec<u32>,
    },
    /// A tool failed.
    #[error("`{tool}` failed:\n{stderr}")]
    Failed {
        /// The tool.
        tool: String,
        /// Its error output.
        stderr: String,
    },
}

/// A linked code object.
#[derive(Debug, Clone)]
pub struct CodeObject {
    /// The relocatable object `llvm-mc` produced.
    pub object: Vec<u8>,
    /// The code object `ld.lld -shared` produced.
    pub shared: Vec<u8>,
}

/// The path of an LLVM tool (`llvm-mc`, `ld.lld`, `llvm-readelf`, `llvm-objdump`):
/// `$WARPTRACE_LLVM_BIN/<name>`, else `<name>-19` or `<name>` on `PATH`.
pub fn llvm_tool(name: &str) -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("WARPTRACE_LLVM_BIN") {
        let p = Path::new(&dir).join(name);
        if p.is_file() {
            return Some(p);
        }
    }
    let path = std::env::var_os("PATH")?;
    for candidate in [format!("{name}-19"), name.to_owned()] {
        for dir in std::env::split_paths(&path) {
            let p = dir.join(&candidate);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

fn run(tool: &str, args: &[&std::ffi::OsStr]) -> Result<Vec<u8>, ToolError> {
    let path = llvm_tool(tool).ok_or_else(|| ToolError::Missing(tool.to_owned()))?;
    // Run from inside a traced program (the HIP hook), a tool must not be traced itself.
    let out = Command::new(&path)
        .args(args)
        .env_remove("LD_PRELOAD")
        .output()
        .map_err(|source| ToolError::Io {
            tool: tool.to_owned(),
            source,
        })?;
    if !out.status.success() {
        return Err(ToolError::Failed {
            tool: tool.to_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        });
    }
    Ok(out.stdout)
}

/// Assembles `asm` for `processor` (`gfx942`) and links it into a code object.
pub fn assemble(asm: &str, processor: &str) -> Result<CodeObject, ToolError> {
    assemble_with(asm, processor, "")
}

/// [`assemble`] for a target id with features (`gfx90a:sramecc+:xnack-`), which `llvm-mc`
/// must be given to accept a module's `.amdgcn_target` directive naming them.
pub fn assemble_for(asm: &str, target: &crate::TargetId) -> Result<CodeObject, ToolError> {
    assemble_with(asm, &target.processor, &target.mattr())
}

/// Assembles with `-mcpu=processor` and, unless empty, `-mattr=mattr`, then links.
fn assemble_with(asm: &str, processor: &str, mattr: &str) -> Result<CodeObject, ToolError> {
    let io = |source| ToolError::Io {
        tool: "tempdir".into(),
        source,
    };
    let dir = std::env::temp_dir().join(format!(
        "warptrace-gcn-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).map_err(io)?;
    let (s, o, so) = (dir.join("in.s"), dir.join("in.o"), dir.join("out.hsaco"));
    let result = (|| {
        std::fs::write(&s, asm).map_err(io)?;
        let mcpu = format!("-mcpu={processor}");
        let mattr = format!("-mattr={mattr}");
        let mut args: Vec<&std::ffi::OsStr> = vec![
            "-triple=amdgcn-amd-amdhsa".as_ref(),
            mcpu.as_ref(),
            "-filetype=obj".as_ref(),
        ];
        if mattr.len() > "-mattr=".len() {
            args.push(mattr.as_ref());
        }
        args.extend([s.as_os_str(), "-o".as_ref(), o.as_os_str()]);
        run("llvm-mc", &args).map_err(|e| match e {
            ToolError::Failed { stderr, .. } if stderr.contains(OUT_OF_RANGE) => {
                let lines = out_of_range_lines(&stderr, &s);
                ToolError::BranchOutOfRange { stderr, lines }
            }
            e => e,
        })?;
        run(
            "ld.lld",
            &[
                "-shared".as_ref(),
                o.as_os_str(),
                "-o".as_ref(),
                so.as_os_str(),
            ],
        )?;
        Ok(CodeObject {
            object: std::fs::read(&o).map_err(io)?,
            shared: std::fs::read(&so).map_err(io)?,
        })
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// `llvm-mc`'s error for a branch out of reach.
const OUT_OF_RANGE: &str = "error: branch size exceeds simm16";

/// The lines of `file` `llvm-mc`'s `stderr` says hold a branch out of reach
/// (`FILE:LINE:COLUMN: error: branch size exceeds simm16`).
fn out_of_range_lines(stderr: &str, file: &Path) -> Vec<u32> {
    let prefix = format!("{}:", file.display());
    stderr
        .lines()
        .filter(|l| l.ends_with(OUT_OF_RANGE))
        .filter_map(|l| l.strip_prefix(&prefix)?.split(':').next()?.parse().ok())
        .collect()
}

static COUNTER: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// `llvm-readelf --notes` of a code object.
pub fn notes(code_object: &[u8]) -> Result<String, ToolError> {
    let path = std::env::temp_dir().join(format!(
        "warptrace-gcn-notes-{}-{}.hsaco",
        std::process::id(),
        COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    std::fs::write(&path, code_object).map_err(|source| ToolError::Io {
        tool: "llvm-readelf".into(),
        source,
    })?;
    let out = run("llvm-readelf", &["--notes".as_ref(), path.as_os_str()]);
    let _ = std::fs::remove_file(&path);
    out.map(|b| String::from_utf8_lossy(&b).into_owned())
}
