//! Looks for shared libraries next to the artifact first: the packaged layout ships
//! libz3 (the verifier's solver) beside the binaries, so a machine with only the NVIDIA
//! driver can run them (docs/decisions/0004-shipping-z3.md). Embeds the probe library
//! (`probes/*.wt`) for `warptrace -p NAME`.
use std::fmt::Write as _;
use std::path::Path;

fn main() {
    println!("cargo:rustc-link-arg=-Wl,-rpath,$ORIGIN:$ORIGIN/../lib");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("probes");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut probes: Vec<(String, String)> = std::fs::read_dir(&dir)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "wt"))
                .filter_map(|p| {
                    let name = p.file_stem()?.to_str()?.to_string();
                    Some((name, p.display().to_string()))
                })
                .collect()
        })
        .unwrap_or_default();
    probes.sort();
    let mut out = String::from("/// The probe library, `(name, source)`, sorted by name.\n");
    out.push_str("pub const PROBES: &[(&str, &str)] = &[\n");
    for (name, path) in &probes {
        println!("cargo:rerun-if-changed={path}");
        let _ = writeln!(out, "    ({name:?}, include_str!({path:?})),");
    }
    out.push_str("];\n");
    let dest = Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("probes.rs");
    std::fs::write(dest, out).expect("OUT_DIR is writable");
}
