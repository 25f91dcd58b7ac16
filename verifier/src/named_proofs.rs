//! Proofs remembered by name across processes: with `WARPTRACE_PROOF_CACHE=DIR`, a back
//! end's translation-validation obligation that z3 proved is recorded in `DIR` under its
//! name, the back end's source digest and the z3 version, and every later process of the
//! same build — another test binary, another `warptrace verify` — takes the proof from
//! there without building the obligation or asking the solver.
//!
//! Invariant: an entry answers `proved` only for an obligation of the same name, proved in
//! a build of the same source (the back end's own, the IR's, the verifier's and
//! `Cargo.lock`: `source_digest.rs`), with the same z3 and the same kind of build
//! (debug assertions on or off). That is sound because a named obligation is built from
//! what its name spells and nothing else — the same invariant the back ends' in-process
//! memo (`codegen-gcn/src/proved.rs`) already rests on — so within one source its verdict
//! is a function of the name. Only proofs are stored: a refuted or undecided obligation is
//! built and asked again every time, so a counterexample is always z3's own.
//!
//! Unlike [`crate::proof_cache`] (keyed by the terms of each query), a hit here skips the
//! obligation's construction too — for GCN's lane models that is most of the cost — and
//! it reads nothing back from z3, so it cannot change what z3 does with the queries it
//! still answers (docs/decisions/0043-named-proofs.md). The directory is as trustworthy as
//! for the term cache: whoever can write it can make a verifier accept.

use crate::proof_cache;
use crate::Verdict;
use sha2::{Digest, Sha256};
use std::path::Path;

/// The name of the key's format: a change to what a key covers changes it.
const FORMAT: &str = "warptrace-named-proof 1";

/// `prove()`'s verdict and time for the obligation `name` of `scope` (a back end) built
/// from the source `source_digest`; a proof recorded by an earlier process of the same
/// build is returned (with the time that proof took) without calling `prove`. Without a
/// cache directory, `prove()`.
pub fn proved_once(
    scope: &str,
    source_digest: &str,
    name: &str,
    prove: impl FnOnce() -> (Verdict, u64),
) -> (Verdict, u64) {
    proved_once_in(proof_cache::directory(), scope, source_digest, name, prove)
}

/// [`proved_once`] with the cache in `dir`, or none.
fn proved_once_in(
    dir: Option<&Path>,
    scope: &str,
    source_digest: &str,
    name: &str,
    prove: impl FnOnce() -> (Verdict, u64),
) -> (Verdict, u64) {
    let Some(dir) = dir else {
        let proved = prove();
        crate::progress::settled(name, false);
        return proved;
    };
    let entry = dir.join(key(scope, source_digest, name));
    if let Some(micros) = std::fs::read_to_string(&entry)
        .ok()
        .and_then(|text| parse(&text))
    {
        crate::progress::settled(name, true);
        return (Verdict::Proved, micros);
    }
    let (verdict, micros) = prove();
    if verdict.is_proved() {
        proof_cache::store(dir, &entry, &format!("proved {micros}\n"));
    }
    crate::progress::settled(name, false);
    (verdict, micros)
}

/// The entry's file name: the hex SHA-256 of the format, the z3 version, the build kind,
/// the scope, the source digest and the name, each ended by a NUL.
fn key(scope: &str, source_digest: &str, name: &str) -> String {
    let mut hash = Sha256::new();
    let build = if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    };
    for part in [
        FORMAT,
        z3::full_version(),
        build,
        scope,
        source_digest,
        name,
    ] {
        hash.update(part);
        hash.update([0]);
    }
    hash.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// The proof's time from an entry (`proved MICROS`); `None` for anything else, which is
/// then a miss.
fn parse(text: &str) -> Option<u64> {
    text.strip_prefix("proved ")?.trim_end().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    /// Every part of the key changes it.
    #[test]
    fn the_key_covers_scope_source_and_name() {
        let base = key("gcn", "abc", "bin.add.64.reg.reg");
        assert_eq!(base, key("gcn", "abc", "bin.add.64.reg.reg"));
        assert_ne!(base, key("ptx back end", "abc", "bin.add.64.reg.reg"));
        assert_ne!(base, key("gcn", "abd", "bin.add.64.reg.reg"));
        assert_ne!(base, key("gcn", "abc", "bin.add.64.reg.imm.1"));
        // The parts are separated: moving a character from one to the next is another key.
        assert_ne!(key("gcn", "ab", "c"), key("gcn", "a", "bc"));
    }

    /// A proof is recorded and answers the next ask without proving; a refutation is not
    /// recorded and is proved again; another source digest misses; a damaged entry is a
    /// miss.
    #[test]
    fn only_proofs_are_remembered_for_the_same_source() {
        let dir = std::env::temp_dir().join(format!("wt-named-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let runs = Cell::new(0);
        let prove = |v: Verdict| {
            runs.set(runs.get() + 1);
            (v, 42)
        };
        let ask = |source: &str, name: &str, v: Verdict| {
            proved_once_in(Some(&dir), "gcn", source, name, || prove(v))
        };
        assert_eq!(ask("s1", "a", Verdict::Proved), (Verdict::Proved, 42));
        assert_eq!(ask("s1", "a", Verdict::Proved), (Verdict::Proved, 42));
        assert_eq!(runs.get(), 1, "the second ask was proved again");
        ask("s2", "a", Verdict::Proved);
        assert_eq!(runs.get(), 2, "another source took the first one's proof");
        let refuted = Verdict::Refuted {
            counterexample: "x = 1".into(),
        };
        assert_eq!(ask("s1", "b", refuted.clone()), (refuted.clone(), 42));
        assert_eq!(ask("s1", "b", refuted.clone()), (refuted, 42));
        assert_eq!(runs.get(), 4, "a refutation was remembered");
        std::fs::write(dir.join(key("gcn", "s1", "a")), "prov").expect("write");
        ask("s1", "a", Verdict::Proved);
        assert_eq!(runs.get(), 5, "a damaged entry was taken for a proof");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
