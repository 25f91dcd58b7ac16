//! The source digest the PTX back end's named proofs are keyed by
//! (`verifier/build/source_digest.rs`).
include!("../verifier/build/source_digest.rs");
