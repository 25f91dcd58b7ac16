//! The source digest the PTX back end's named proofs are keyed by.
include!("../verifier/build/source_digest.rs");

fn main() {
    emit_source_digest(&[
        "src",
        "Cargo.toml",
        "../ir/src",
        "../verifier/src",
        "../Cargo.lock",
    ]);
}
