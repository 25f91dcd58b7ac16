//! Where `warptrace verify` keeps the proofs it found, so that verifying a probe whose
//! obligations are already proved takes no solver time: `$WARPTRACE_PROOF_CACHE` when
//! set, else `proofs/` in the module cache's directory (`$WARPTRACE_CACHE_DIR`, else
//! `$XDG_CACHE_HOME/warptrace`, else `~/.cache/warptrace`), filled on first use.
//!
//! Invariant: a default directory is used only if it and the directory holding it belong
//! to this user and no one else can write them (created `0700`). Whoever can write the directory can make the verifier
//! accept (`warptrace_verifier::proof_cache`), so a directory others can write is refused
//! with a warning and the proofs are found afresh.

use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::path::Path;

/// Sets the verifier's proof cache for this process: the default directory unless `off`
/// (`--no-proof-cache`) or `$WARPTRACE_PROOF_CACHE` names one.
pub fn install(off: bool) {
    let dir = if off {
        None
    } else {
        warptrace_runtime::cache::cache_dir(|name| std::env::var_os(name))
            .map(|d| d.join("proofs"))
            .and_then(|d| private(&d).then_some(d))
    };
    warptrace_verifier::proof_cache::use_default_directory(dir);
}

/// Whether `dir` exists (made if missing, `0700`), is a directory of this user's and is
/// writable by no one else; a warning says why not.
fn private(dir: &Path) -> bool {
    if let Err(e) = std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
    {
        eprintln!(
            "warptrace: warning: no proof cache ({}: {e}); every proof is found afresh",
            dir.display()
        );
        return false;
    }
    // SAFETY: geteuid has no preconditions.
    let me = unsafe { libc::geteuid() };
    let mine = |path: &Path| {
        std::fs::metadata(path).is_ok_and(|m| m.is_dir() && m.uid() == me && m.mode() & 0o022 == 0)
    };
    // The directory and the one holding it: whoever can write the parent could put a
    // directory of their own in its place after this check.
    let ok = mine(dir) && dir.parent().is_none_or(mine);
    if !ok {
        eprintln!(
            "warptrace: warning: not using the proof cache {}: it and its parent must be \
             directories of yours that no one else can write (whoever can write it could make \
             the verifier accept); every proof is found afresh",
            dir.display()
        );
    }
    ok
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn only_a_private_directory_is_used() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = tmp.path().join("proofs");
        assert!(private(&dir), "made 0700");
        let mode = std::fs::metadata(&dir).expect("made").permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
        for open in [0o770, 0o707, 0o777] {
            std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(open)).expect("chmod");
            assert!(!private(&dir), "{open:o} is writable by others");
        }
        let file = tmp.path().join("file");
        std::fs::write(&file, "").expect("file");
        assert!(!private(&file), "not a directory");
        // A private directory in a directory others can write is refused too.
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).expect("chmod");
        assert!(private(&dir));
        let parent = tmp.path();
        std::fs::set_permissions(parent, std::fs::Permissions::from_mode(0o777)).expect("chmod");
        assert!(!private(&dir), "its parent is writable by others");
        std::fs::set_permissions(parent, std::fs::Permissions::from_mode(0o700)).expect("chmod");
    }
}
