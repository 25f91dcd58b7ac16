//! The hash tables of the checker and lowering. Their keys are short names and small
//! ids from the program being compiled, so FxHash (rustc's multiply-rotate hash) does
//! instead of std's SipHash, whose resistance to chosen keys costs several times more
//! per lookup and which the front end does not need.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A `HashMap` hashed with [`FxHasher`].
pub(crate) type FxHashMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;

/// FxHash: each word is mixed in as `hash = (hash.rotl(5) ^ word) * K`.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct FxHasher {
    hash: u64,
}

const K: u64 = 0x517c_c1b7_2722_0a95;

impl FxHasher {
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(K);
    }
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let word = |b: &[u8]| b.iter().fold(0u64, |w, &x| (w << 8) | u64::from(x));
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            self.add(word(chunk));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            self.add(word(rest));
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    fn write_u16(&mut self, i: u16) {
        self.add(u64::from(i));
    }

    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }

    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    fn finish(&self) -> u64 {
        self.hash
    }
}
