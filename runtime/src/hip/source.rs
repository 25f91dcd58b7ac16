//! Where a code object's assembly comes from, and turning assembly back into a code
//! object. The GCN back end instruments assembly text with its kernel descriptors and
//! metadata; a code object cannot be turned back into that (docs/decisions/0009), so the
//! hook looks for the assembly a code object was built from:
//!
//! - `$WARPTRACE_GCN_ASM_DIR`: `*.s` and `*.amdgcn` files (e.g. `clang -x hip
//!   --cuda-device-only -S` of the program's sources);
//! - Triton's cache (`$TRITON_CACHE_DIR`, else `$TRITON_HOME/.triton/cache`, else
//!   `~/.triton/cache`): the `NAME.amdgcn` next to a `NAME.hsaco` whose bytes are the
//!   loaded code object's (Triton 3.x assembles its `.hsaco` from that very text).
//!
//! A candidate is used only if it is for the code object's processor, defines all its
//! kernels, and reassembles (`llvm-mc` + `ld.lld`) to the same `.text`: what gets
//! instrumented is then provably the code the program loaded.

use super::image::CodeImage;
use std::path::PathBuf;
use warptrace_codegen_gcn::{assemble_for, code_object_text, TargetId};

/// A directory of AMDGPU assembly files to instrument from.
pub const ENV_GCN_ASM_DIR: &str = "WARPTRACE_GCN_ASM_DIR";

/// The assembly of a code object.
#[derive(Debug, Clone)]
pub struct Assembly {
    /// The text.
    pub text: String,
    /// The file it came from.
    pub path: PathBuf,
    /// Its `.amdgcn_target`.
    pub target: TargetId,
}

/// Whether `text` has a kernel descriptor for each of `kernels`.
fn defines_all(text: &str, kernels: &[String]) -> bool {
    kernels.iter().all(|k| {
        text.lines().any(|l| {
            let mut words = l.split_whitespace();
            words.next() == Some(".amdhsa_kernel") && words.next() == Some(k.as_str())
        })
    })
}

/// Where assembly is looked for.
#[derive(Debug, Clone, Default)]
pub struct Sources {
    /// `$WARPTRACE_GCN_ASM_DIR`.
    pub asm_dir: Option<PathBuf>,
    /// Triton's cache directory.
    pub triton_cache: Option<PathBuf>,
}

impl Sources {
    /// From the environment: `$WARPTRACE_GCN_ASM_DIR`; `$TRITON_CACHE_DIR`, else
    /// `$TRITON_HOME/.triton/cache`, else `$HOME/.triton/cache`.
    pub fn from_env() -> Sources {
        Sources {
            asm_dir: std::env::var_os(ENV_GCN_ASM_DIR).map(PathBuf::from),
            triton_cache: crate::image::triton_cache_dir(),
        }
    }
}

use crate::image::dir_files as files;

/// Candidate assembly files for `code`, in the order they are tried.
fn candidates(sources: &Sources, code: &CodeImage) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(dir) = &sources.asm_dir {
        out.extend(
            files(dir)
                .into_iter()
                .filter(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("s" | "amdgcn"))),
        );
    }
    // Triton: an .hsaco of the same bytes, then its .amdgcn sibling.
    if let Some(cache) = &sources.triton_cache {
        for dir in files(cache).into_iter().filter(|d| d.is_dir()) {
            for hsaco in files(&dir) {
                let same_size = hsaco.extension().is_some_and(|e| e == "hsaco")
                    && std::fs::metadata(&hsaco).is_ok_and(|m| m.len() == code.bytes.len() as u64);
                let asm = hsaco.with_extension("amdgcn");
                if same_size
                    && asm.is_file()
                    && std::fs::read(&hsaco).is_ok_and(|b| b == code.bytes)
                {
                    out.push(asm);
                }
            }
        }
    }
    out
}

/// Finds the assembly `code` was built from, or says why there is none.
pub fn find(sources: &Sources, code: &CodeImage) -> Result<Assembly, String> {
    let original = code_object_text(&code.bytes).map_err(|e| e.to_string())?;
    let mut rejected = Vec::new();
    for path in candidates(sources, code) {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let Some(target) = TargetId::of_assembly(&text) else {
            continue;
        };
        if target.processor != code.info.target.processor || !defines_all(&text, &code.info.kernels)
        {
            continue;
        }
        match assemble(&text, &target) {
            Ok(co) if code_object_text(&co).is_ok_and(|t| t == original) => {
                return Ok(Assembly { text, path, target });
            }
            Ok(_) => rejected.push(format!("{} (different code)", path.display())),
            Err(e) => rejected.push(format!("{} ({e})", path.display())),
        }
    }
    let kernels = code.info.kernels.join(", ");
    Err(if rejected.is_empty() {
        format!(
            "no assembly for {} code object ({kernels}); set {ENV_GCN_ASM_DIR}",
            code.info.target
        )
    } else {
        format!(
            "no candidate reassembles to the loaded code: {}",
            rejected.join("; ")
        )
    })
}

/// Assembles `text` for `target` (processor and `sramecc`/`xnack` settings) and links it
/// into a code object (`warptrace_codegen_gcn::assemble_for`, which runs the tools
/// untraced); the error is its first line.
pub fn assemble(text: &str, target: &TargetId) -> Result<Vec<u8>, String> {
    assemble_for(text, target).map(|c| c.shared).map_err(|e| {
        let e = e.to_string();
        e.lines().next().unwrap_or_default().to_string()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use warptrace_codegen_gcn::{code_object_info, llvm_tool};

    fn corpus(name: &str) -> String {
        let path = format!("{}/../tests/corpus/gcn/{name}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    /// Whether llvm-mc and ld.lld are installed (a failure under `CI=true`).
    fn have_llvm() -> bool {
        let ok = llvm_tool("llvm-mc").is_some() && llvm_tool("ld.lld").is_some();
        if !ok {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "llvm-mc-19 / ld.lld-19 missing (CI=true)"
            );
            eprintln!("=== SKIPPED: llvm-mc-19 / ld.lld-19 not installed ===");
        }
        ok
    }

    fn image(text: &str) -> CodeImage {
        let target = TargetId::of_assembly(text).expect("target");
        let bytes = assemble(text, &target).expect("assembles");
        let info = code_object_info(&bytes).expect("code object");
        CodeImage { bytes, info }
    }

    #[test]
    fn triton_assembly_is_found_by_the_code_objects_bytes() {
        if !have_llvm() {
            return;
        }
        let text = corpus("triton_vector_add_gfx942.s");
        let code = image(&text);
        assert_eq!(code.info.target.processor, "gfx942");
        let cache = tempfile::tempdir().expect("tempdir");
        // Triton's layout: <cache>/<key>/<name>.{hsaco,amdgcn,json}; another entry of
        // the same size but other bytes must not match.
        let key = cache.path().join("Q2LBZ5IDCNIGLZ2FXYYJXIOJBAJL");
        let decoy = cache.path().join("AAAA");
        for d in [&key, &decoy] {
            std::fs::create_dir_all(d).expect("mkdir");
        }
        std::fs::write(key.join("add_kernel.hsaco"), &code.bytes).expect("write");
        std::fs::write(key.join("add_kernel.amdgcn"), &text).expect("write");
        let mut other = code.bytes.clone();
        let last = other.len() - 1;
        other[last] ^= 1;
        std::fs::write(decoy.join("add_kernel.hsaco"), &other).expect("write");
        std::fs::write(decoy.join("add_kernel.amdgcn"), "garbage").expect("write");
        let sources = Sources {
            asm_dir: None,
            triton_cache: Some(cache.path().to_path_buf()),
        };
        let found = find(&sources, &code).expect("found");
        assert_eq!(found.path, key.join("add_kernel.amdgcn"));
        assert_eq!(found.text, text);
        // A code object Triton did not write has no assembly there.
        let gfx90a = image(&corpus("triton_vector_add_gfx90a.s"));
        let err = find(&sources, &gfx90a).expect_err("no assembly");
        assert!(
            err.starts_with("no assembly for gfx90a code object"),
            "{err}"
        );
    }

    #[test]
    fn an_assembly_file_must_reassemble_to_the_loaded_code() {
        if !have_llvm() {
            return;
        }
        let text = corpus("hip_kernels_gfx90a.s");
        let code = image(&text);
        let changed = text.replacen("\ts_endpgm", "\ts_nop 0\n\ts_endpgm", 1);
        assert_ne!(changed, text);
        let dir = tempfile::tempdir().expect("tempdir");
        // Tried in name order: the edited file first, rejected for its different code.
        std::fs::write(dir.path().join("a.s"), &changed).expect("write");
        std::fs::write(dir.path().join("b.s"), &text).expect("write");
        std::fs::write(dir.path().join("c.txt"), &text).expect("write");
        let sources = Sources {
            asm_dir: Some(dir.path().to_path_buf()),
            triton_cache: None,
        };
        assert_eq!(
            find(&sources, &code).expect("found").path,
            dir.path().join("b.s")
        );
        std::fs::remove_file(dir.path().join("b.s")).expect("rm");
        let err = find(&sources, &code).expect_err("only the edited file is left");
        assert!(err.contains("a.s (different code)"), "{err}");
    }

    #[test]
    fn the_target_and_kernels_are_read_from_the_text() {
        let text = "\t.text\n\t.amdgcn_target \"amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-\"\n\
                    \t.amdhsa_kernel _Z5twicePfi\n\t.end_amdhsa_kernel\n";
        let t = TargetId::of_assembly(text).expect("target");
        assert_eq!(t.to_string(), "gfx90a:sramecc+:xnack-");
        assert!(defines_all(text, &["_Z5twicePfi".into()]));
        assert!(!defines_all(
            text,
            &["_Z5twicePfi".into(), "_Z7add_onePi".into()]
        ));
        // A prefix of a kernel's name is not that kernel.
        assert!(!defines_all(text, &["_Z5twice".into()]));
        assert!(TargetId::of_assembly("\t.text\n").is_none());
    }
}
