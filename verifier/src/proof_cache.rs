//! Proofs remembered by content: with `WARPTRACE_PROOF_CACHE=DIR`, a query z3 proved
//! (its assertions unsatisfiable) is written to `DIR` under the SHA-256 of its terms, and
//! the same query asked again — by another test, another `warptrace verify`, another
//! process of the same run — is answered from there without the solver.
//!
//! Invariant: the cache answers only `unsat`, and only for assertions equal, term by term,
//! to ones z3 proved unsatisfiable. The key is the digest of the solver's assertions walked
//! as terms (`proof_key.rs`: every declaration with its parameters and sorts, every
//! numeral, shared subterms once), prefixed by the z3 version and this format's name; a
//! query with a term the walk does not cover has no key and is asked of z3. A proof holds
//! whatever resource limit found it, so the limit is not part of the key; a satisfiable or
//! undecided query is never stored and is asked of z3 every time, so a counterexample is
//! always z3's own.
//!
//! The cache is as trustworthy as its directory: whoever can write there can make a
//! verifier accept. In a library it is off unless the variable is set
//! (docs/decisions/0042-proof-cache-by-terms.md); `warptrace verify` defaults to a
//! per-user directory only its owner can write ([`use_default_directory`]). The same
//! directory holds the back ends' named proofs (`named_proofs.rs`).

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use z3::{SatResult, Solver};

/// The environment variable naming the cache's directory.
pub const PROOF_CACHE_VAR: &str = "WARPTRACE_PROOF_CACHE";

/// The name of the key's format: a change to what a key covers changes it.
const FORMAT: &str = "warptrace-proof-cache 2 (terms)";

/// What an entry of a proved query holds.
const UNSAT: &str = "unsat\n";

/// `solver.check()`, answered `Unsat` without z3 when the cache holds a proof of the
/// solver's assertions; a fresh `Unsat` is stored. Input and output errors of the cache
/// only cost the solver's time: they never change an answer.
pub fn check(solver: &Solver) -> SatResult {
    check_in(directory().filter(|_| terms_on()), solver)
}

/// The environment variable that turns the term-keyed layer off (`off`) while the
/// named proofs stay on: the test command's setting, where the term keys' cost on GCN
/// queries outweighs their hits (docs/decisions/0043-named-proofs.md).
pub const PROOF_CACHE_TERMS_VAR: &str = "WARPTRACE_PROOF_CACHE_TERMS";

fn terms_on() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var_os(PROOF_CACHE_TERMS_VAR).is_none_or(|v| v != "off"))
}

/// [`check`] with the cache in `dir`, or none.
fn check_in(dir: Option<&Path>, solver: &Solver) -> SatResult {
    let Some(dir) = dir else {
        return solver.check();
    };
    let Some(key) = key(solver) else {
        return solver.check();
    };
    let entry = dir.join(key);
    if entry.is_file() {
        return SatResult::Unsat;
    }
    let result = solver.check();
    if result == SatResult::Unsat {
        store(dir, &entry, UNSAT);
    }
    result
}

static DIR: OnceLock<Option<PathBuf>> = OnceLock::new();

/// [`PROOF_CACHE_VAR`]'s directory; `None` when unset or empty.
fn from_env() -> Option<PathBuf> {
    let dir = PathBuf::from(std::env::var_os(PROOF_CACHE_VAR)?);
    (!dir.as_os_str().is_empty()).then_some(dir)
}

/// The cache's directory, from [`PROOF_CACHE_VAR`] (read once), else the front end's
/// [`use_default_directory`]; `None` when neither names one.
pub(crate) fn directory() -> Option<&'static Path> {
    DIR.get_or_init(from_env).as_deref()
}

/// Makes `dir` the cache's directory when [`PROOF_CACHE_VAR`] names none (the CLI's
/// per-user directory; `None`: no cache even so). Call before any proof; false (and no
/// change) once the cache has been consulted or set.
pub fn use_default_directory(dir: Option<PathBuf>) -> bool {
    DIR.set(from_env().or(dir)).is_ok()
}

/// The entry's file name: the hex SHA-256 of the format, z3's version and the solver's
/// assertions as terms; `None` when a term is of a kind the walk does not cover.
fn key(solver: &Solver) -> Option<String> {
    let mut hash = Sha256::new();
    hash.update(FORMAT);
    hash.update([0]);
    hash.update(z3::full_version());
    hash.update([0]);
    crate::proof_key::digest(solver, &mut hash)?;
    Some(hash.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

/// Writes an entry holding `text` as a whole (a temporary file renamed into place), so
/// that a process reading the directory while another writes sees an entry complete or
/// not at all.
pub(crate) fn store(dir: &Path, entry: &Path, text: &str) {
    static N: AtomicU64 = AtomicU64::new(0);
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    let tmp = dir.join(format!(
        ".tmp-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    if std::fs::write(&tmp, text).is_ok() && std::fs::rename(&tmp, entry).is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use z3::ast::BV;

    fn solver_for(x_plus_one_eq_x: bool) -> Solver {
        let s = Solver::new();
        let x = BV::new_const("x", 32);
        if x_plus_one_eq_x {
            s.assert(x.bvadd(BV::from_u64(1, 32)).eq(&x));
        } else {
            s.assert(x.bvadd(BV::from_u64(0, 32)).eq(&x));
        }
        s
    }

    /// The key is the formula's: equal assertions share one, a changed constant, a
    /// changed sort or a changed name does not.
    #[test]
    fn keys_follow_the_formula() {
        assert_eq!(key(&solver_for(true)), key(&solver_for(true)));
        assert_ne!(key(&solver_for(true)), key(&solver_for(false)));
        let wide = Solver::new();
        let x = BV::new_const("x", 64);
        wide.assert(x.bvadd(BV::from_u64(1, 64)).eq(&x));
        assert_ne!(key(&solver_for(true)), key(&wide));
        let renamed = Solver::new();
        let y = BV::new_const("y", 32);
        renamed.assert(y.bvadd(BV::from_u64(1, 32)).eq(&y));
        assert_ne!(key(&solver_for(true)), key(&renamed));
    }

    /// A proof is stored and answers the same query again; a satisfiable query is not
    /// stored, and without a directory nothing is. The answer is the entry's, not z3's:
    /// an entry under a satisfiable query's key makes it `unsat` (the cache is as
    /// trustworthy as its directory).
    #[test]
    fn only_proofs_are_remembered() {
        let dir = std::env::temp_dir().join(format!("wt-proof-only-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(check_in(None, &solver_for(true)), SatResult::Unsat);
        assert!(!dir.exists());
        assert_eq!(check_in(Some(&dir), &solver_for(false)), SatResult::Sat);
        assert!(!dir.exists(), "a satisfiable query left an entry");
        assert_eq!(check_in(Some(&dir), &solver_for(true)), SatResult::Unsat);
        assert!(dir.join(key(&solver_for(true)).expect("a key")).is_file());
        assert_eq!(check_in(Some(&dir), &solver_for(true)), SatResult::Unsat);
        store(
            &dir,
            &dir.join(key(&solver_for(false)).expect("a key")),
            UNSAT,
        );
        assert_eq!(
            check_in(Some(&dir), &solver_for(false)),
            SatResult::Unsat,
            "a query with an entry was not answered from the cache"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Stored entries are whole files named by the key; a second store of the same entry
    /// leaves one file and no temporary ones.
    #[test]
    fn entries_are_written_whole() {
        let dir = std::env::temp_dir().join(format!("wt-proof-cache-{}", std::process::id()));
        let entry = dir.join(key(&solver_for(true)).expect("a key"));
        store(&dir, &entry, UNSAT);
        store(&dir, &entry, UNSAT);
        let names: Vec<String> = std::fs::read_dir(&dir)
            .expect("cache directory")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, vec![key(&solver_for(true)).expect("a key")]);
        assert_eq!(std::fs::read_to_string(&entry).expect("entry"), "unsat\n");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
