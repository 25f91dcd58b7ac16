//! Proofs kept for the process: a proof that depends only on its key is made once, and
//! every site, probe and program asking for the same key shares it.
//!
//! Invariant: what a key's proof says is a function of the key. The callers' keys say
//! what each proof is built from (a loop's shape, a form's name).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// The proofs of one kind, by key: each a cell that is filled once.
pub(crate) type Proofs<K, V> = OnceLock<Mutex<HashMap<K, Arc<OnceLock<V>>>>>;

/// `prove()`'s outcome for `key`, computed once in the process and kept in `cache`: a
/// thread asking for a key another is proving waits for that proof.
pub(crate) fn once<K: std::hash::Hash + Eq, V: Clone>(
    cache: &Proofs<K, V>,
    key: K,
    prove: impl FnOnce() -> V,
) -> V {
    let proofs = cache.get_or_init(Mutex::default);
    let cell = match proofs.lock() {
        Ok(mut p) => Arc::clone(p.entry(key).or_default()),
        // A thread that panicked holding the map: prove here, keep nothing.
        Err(_) => return prove(),
    };
    cell.get_or_init(prove).clone()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU32, Ordering};

    /// Two threads asking for one key at once: one proof, both get it.
    #[test]
    fn a_key_is_proved_once_however_many_ask() {
        static CACHE: Proofs<u32, u32> = Proofs::new();
        static RUNS: AtomicU32 = AtomicU32::new(0);
        let ask = || {
            once(&CACHE, 7, || {
                RUNS.fetch_add(1, Ordering::SeqCst);
                std::thread::sleep(std::time::Duration::from_millis(50));
                49
            })
        };
        let (a, b) = std::thread::scope(|s| {
            let a = s.spawn(ask);
            let b = s.spawn(ask);
            (a.join().expect("joins"), b.join().expect("joins"))
        });
        assert_eq!((a, b, RUNS.load(Ordering::SeqCst)), (49, 49, 1));
        assert_eq!(once(&CACHE, 8, || 64), 64);
    }
}
