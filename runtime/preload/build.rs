//! Looks for shared libraries next to the artifact first: the packaged layout ships
//! libz3 (the verifier's solver) beside the binaries, so a machine with only the NVIDIA
//! driver can run them (docs/decisions/0004-shipping-z3.md).
fn main() {
    println!("cargo:rustc-link-arg=-Wl,-rpath,$ORIGIN:$ORIGIN/../lib");
}
