//! Bundles built by hand (every field and error), and real ones: `tests/workloads/
//! hip_app.hip` compiled at test time by `clang-19 -x hip` (two processors, a target id
//! with features, `--offload-compress`) and Debian's `hipcc` (HIP 5.2, clang 15),
//! checked against `clang-offload-bundler-19 --unbundle`.

use super::*;
use object::{Object, ObjectSection};
use std::path::{Path, PathBuf};
use std::process::Command;

/// An uncompressed bundle of `entries` (id, bytes), laid out as clang does: the table,
/// then each entry at a 4096-aligned offset.
fn bundle(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut table = Vec::new();
    table.extend_from_slice(BUNDLE_MAGIC);
    table.extend_from_slice(&(entries.len() as u64).to_le_bytes());
    let header: usize = 32 + entries.iter().map(|(id, _)| 24 + id.len()).sum::<usize>();
    let mut offset = header.div_ceil(4096) * 4096;
    let mut body = Vec::new();
    for (id, data) in entries {
        let at = if data.is_empty() { 0 } else { offset };
        table.extend_from_slice(&(at as u64).to_le_bytes());
        table.extend_from_slice(&(data.len() as u64).to_le_bytes());
        table.extend_from_slice(&(id.len() as u64).to_le_bytes());
        table.extend_from_slice(id.as_bytes());
        if !data.is_empty() {
            body.push((offset, data.to_vec()));
            offset = (offset + data.len()).div_ceil(4096) * 4096;
        }
    }
    let mut out = table;
    for (at, data) in body {
        out.resize(at, 0);
        out.extend_from_slice(&data);
    }
    out
}

const HOST: &str = "host-x86_64-unknown-linux-gnu-";

fn three() -> Vec<u8> {
    bundle(&[
        (HOST, b""),
        ("hipv4-amdgcn-amd-amdhsa--gfx90a", b"any"),
        ("hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-", b"fixed"),
        ("hipv4-amdgcn-amd-amdhsa--gfx942", b"mi300"),
    ])
}

#[test]
fn target_ids_parse_print_and_match() {
    let t = TargetId::parse("gfx90a:sramecc+:xnack-").expect("parses");
    assert_eq!((t.sramecc, t.xnack), (Feature::On, Feature::Off));
    assert_eq!(t.to_string(), "gfx90a:sramecc+:xnack-");
    assert_eq!(t.mattr(), "+sramecc,-xnack");
    let prefixed = TargetId::parse("amdgcn-amd-amdhsa--gfx942:xnack+").expect("parses");
    assert_eq!(
        (prefixed.processor.as_str(), prefixed.xnack),
        ("gfx942", Feature::On)
    );
    assert_eq!(TargetId::parse("gfx90a").expect("parses").mattr(), "");
    for bad in ["sm_90", "gfx90a:xnack", "gfx90a:tgsplit+", ""] {
        assert!(
            matches!(TargetId::parse(bad), Err(BundleError::TargetId(_))),
            "{bad}"
        );
    }
    let any = TargetId::parse("gfx90a").expect("parses");
    let off = TargetId::parse("gfx90a:xnack-").expect("parses");
    let on = TargetId::parse("gfx90a:xnack+").expect("parses");
    assert!(any.runs_on(&t) && off.runs_on(&t) && !on.runs_on(&t));
    assert!(!TargetId::parse("gfx942").expect("parses").runs_on(&t));
}

#[test]
fn a_bundle_parses_and_the_device_picks_its_code_object() {
    let bytes = three();
    let b = parse_bundle(&bytes).expect("parses");
    assert!(!b.compressed);
    assert_eq!(b.entries.len(), 4);
    assert_eq!(b.entries[0].kind, "host");
    assert_eq!(b.entries[0].target, None);
    assert_eq!(b.entries[1].kind, "hipv4");
    assert_eq!(b.entries[1].triple, "amdgcn-amd-amdhsa");
    assert_eq!(b.code_objects().count(), 3);
    let pick =
        |dev: &str| select(&b, &TargetId::parse(dev).expect("parses")).map(|e| e.data.as_slice());
    // The most specific entry that runs on the device.
    assert_eq!(pick("gfx90a:sramecc+:xnack-"), Some(&b"fixed"[..]));
    assert_eq!(pick("gfx90a:sramecc-:xnack-"), Some(&b"any"[..]));
    assert_eq!(pick("gfx942:sramecc+:xnack-"), Some(&b"mi300"[..]));
    assert_eq!(pick("gfx1100"), None);
    // The extent is known from the table alone.
    assert_eq!(
        bundle_extent(&bytes[..4]).ok(),
        Some(BundleExtent::NeedPrefix(32))
    );
    let BundleExtent::NeedPrefix(n) = bundle_extent(&bytes[..32]).expect("extent") else {
        panic!("the table is longer than 32 bytes");
    };
    let mut prefix = n;
    let total = loop {
        match bundle_extent(&bytes[..prefix]).expect("extent") {
            BundleExtent::NeedPrefix(m) => {
                assert!(m > prefix, "progress");
                prefix = m;
            }
            BundleExtent::Bytes(t) => break t,
        }
    };
    assert_eq!(total, bytes.len());
    assert!(prefix < 4096, "only the table is read: {prefix}");
}

#[test]
fn damaged_bundles_are_errors() {
    let bytes = three();
    assert!(matches!(
        parse_bundle(b"ELF?"),
        Err(BundleError::NotABundle)
    ));
    assert!(matches!(
        bundle_extent(b"__CLANG_OFFLOAD_BUNDLX__........"),
        Err(BundleError::NotABundle)
    ));
    assert!(matches!(
        parse_bundle(&bytes[..40]),
        Err(BundleError::Truncated { .. })
    ));
    // The last entry's bytes are cut off.
    let cut = &bytes[..bytes.len() - 1];
    assert!(matches!(
        parse_bundle(cut),
        Err(BundleError::EntryOutOfBounds { ref id, .. }) if id.ends_with("gfx942")
    ));
    let mut bad_id = bundle(&[("hipv4-amdgcn-amd-amdhsa--gfx90a:bogus+", b"x")]);
    assert!(matches!(
        parse_bundle(&bad_id),
        Err(BundleError::TargetId(_))
    ));
    bad_id[24] = 0xff; // an absurd entry count
    assert!(parse_bundle(&bad_id).is_err());
}

/// A `CCOB` header of `version` around `payload`.
fn ccob(version: u16, method: u16, raw: usize, payload: &[u8]) -> Vec<u8> {
    let mut out = COMPRESSED_MAGIC.to_vec();
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&method.to_le_bytes());
    let header = match version {
        1 => 20,
        2 => 24,
        _ => 32,
    };
    let total = header + payload.len();
    match version {
        1 => out.extend_from_slice(&(raw as u32).to_le_bytes()),
        2 => {
            out.extend_from_slice(&(total as u32).to_le_bytes());
            out.extend_from_slice(&(raw as u32).to_le_bytes());
        }
        _ => {
            out.extend_from_slice(&(total as u64).to_le_bytes());
            out.extend_from_slice(&(raw as u64).to_le_bytes());
        }
    }
    out.extend_from_slice(&0x1234_5678_9abc_def0u64.to_le_bytes()); // hash, not checked
    out.extend_from_slice(payload);
    out
}

#[test]
fn compressed_bundles_of_each_version_decompress() {
    let inner = three();
    let z = zstd::bulk::compress(&inner, 3).expect("compress");
    for version in [1, 2, 3] {
        let mut bytes = ccob(version, 1, inner.len(), &z);
        let b = parse_bundle(&bytes).expect("parses");
        assert!(b.compressed);
        assert_eq!(b.code_objects().count(), 3, "v{version}");
        match version {
            1 => assert!(bundle_extent(&bytes).is_err(), "v1 records no size"),
            _ => assert_eq!(
                bundle_extent(&bytes[..32]).ok(),
                Some(BundleExtent::Bytes(bytes.len()))
            ),
        }
        // Trailing bytes after a v2/v3 bundle (the next section) are not read.
        bytes.extend_from_slice(b"trailing");
        assert!(parse_bundle(&bytes).is_ok() || version == 1);
    }
    assert!(matches!(
        parse_bundle(&ccob(2, 0, inner.len(), &z)),
        Err(BundleError::CompressionMethod(0))
    ));
    assert!(matches!(
        parse_bundle(&ccob(9, 1, inner.len(), &z)),
        Err(BundleError::CompressedVersion(9))
    ));
    assert!(matches!(
        parse_bundle(&ccob(2, 1, inner.len() + 1, &z)),
        Err(BundleError::Decompress(_) | BundleError::DecompressedSize { .. })
    ));
    assert!(matches!(
        parse_bundle(&ccob(2, 1, inner.len(), &z[..z.len() / 2])),
        Err(BundleError::Decompress(_))
    ));
}

#[test]
fn the_fatbinary_wrapper_is_read() {
    let mut w = HIP_FATBIN_MAGIC.to_le_bytes().to_vec();
    w.extend_from_slice(&1u32.to_le_bytes());
    w.extend_from_slice(&0x7000_1000u64.to_le_bytes());
    w.extend_from_slice(&0u64.to_le_bytes());
    assert_eq!(
        parse_fatbin_wrapper(&w).expect("wrapper"),
        HipFatbinWrapper {
            version: 1,
            bundle: 0x7000_1000
        }
    );
    assert!(matches!(
        parse_fatbin_wrapper(&w[..12]),
        Err(BundleError::Truncated { .. })
    ));
    w[0] = b'X';
    assert!(matches!(
        parse_fatbin_wrapper(&w),
        Err(BundleError::NotAWrapper(_))
    ));
}

// ---- real artifacts ----

/// A scratch directory removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("wt-bundle-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("scratch dir");
        Scratch(dir)
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn hip_app() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/workloads/hip_app.hip")
}

/// Whether `tools` are on PATH; a missing one fails under `CI=true`.
fn have(tools: &[&str]) -> bool {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let missing: Vec<&str> = tools
        .iter()
        .copied()
        .filter(|t| !std::env::split_paths(&path).any(|d| d.join(t).is_file()))
        .collect();
    if missing.is_empty() {
        return true;
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "missing {missing:?} (CI=true)"
    );
    eprintln!("=== SKIPPED: {missing:?} not installed ===");
    false
}

/// `hip_app.hip` compiled to a host object by `compiler` with `args`.
fn host_object(dir: &Path, compiler: &str, args: &[&str]) -> Vec<u8> {
    let out = dir.join("hip_app.o");
    let mut cmd = Command::new(compiler);
    // Debian's hipcc picks NVIDIA's platform when it finds an `nvcc` (the CUDA toolchain
    // of scripts/setup.sh is on PATH in the tests).
    cmd.env("HIP_PLATFORM", "amd");
    if compiler == "clang-19" {
        cmd.args(["-x", "hip", "-nogpulib", "-nogpuinc", "-I/usr/include"])
            .arg("-D__HIP_PLATFORM_AMD__");
    }
    let status = cmd
        .args(args)
        .arg("-c")
        .arg(hip_app())
        .arg("-o")
        .arg(&out)
        .output()
        .expect("runs");
    assert!(
        status.status.success(),
        "{compiler}: {}",
        String::from_utf8_lossy(&status.stderr)
    );
    std::fs::read(&out).expect("object")
}

/// A host object's `.hip_fatbin` and `.hipFatBinSegment` sections.
fn sections(object: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let file = object::File::parse(object).expect("ELF");
    let get = |name: &str| {
        file.section_by_name(name)
            .and_then(|s| s.data().ok())
            .unwrap_or_else(|| panic!("no {name}"))
            .to_vec()
    };
    (get(".hip_fatbin"), get(".hipFatBinSegment"))
}

/// `clang-offload-bundler-19 --unbundle` of one target: the independent reference.
fn unbundle(dir: &Path, fatbin: &[u8], id: &str) -> Vec<u8> {
    let (input, output) = (dir.join("fatbin"), dir.join("unbundled"));
    std::fs::write(&input, fatbin).expect("write");
    let out = Command::new("clang-offload-bundler-19")
        .args(["--type=o", "--unbundle"])
        .arg(format!("--input={}", input.display()))
        .arg(format!("--output={}", output.display()))
        .arg(format!("--targets={id}"))
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read(&output).expect("unbundled")
}

const KERNELS: [&str; 2] = ["_Z5twicePfi", "_Z7add_onePi"];

/// Checks a real fatbinary: the wrapper, every code object against the bundler's, each
/// code object's own target and kernels, and the device's pick.
fn check_real(dir: &Path, object: &[u8], compressed: bool, expected: &[(&str, &str)]) {
    let (fatbin, segment) = sections(object);
    // In the object file the bundle address is a relocation; the rest is the wrapper.
    let w = parse_fatbin_wrapper(&segment).expect("wrapper");
    assert_eq!(w.version, 1);
    // The section may be padded past the bundle (hipcc's is by one byte).
    let BundleExtent::Bytes(n) = bundle_extent(&fatbin).expect("extent") else {
        panic!("the whole section was given");
    };
    assert!(
        n <= fatbin.len() && fatbin[n..].iter().all(|&b| b == 0),
        "{n}"
    );
    let b = parse_bundle(&fatbin).expect("parses");
    assert_eq!(b.compressed, compressed);
    let ids: Vec<&str> = b.code_objects().map(|e| e.id.as_str()).collect();
    assert_eq!(ids, expected.iter().map(|(id, _)| *id).collect::<Vec<_>>());
    for ((id, flags), entry) in expected.iter().zip(b.code_objects()) {
        assert_eq!(entry.data, unbundle(dir, &fatbin, id), "{id}");
        let info = code_object_info(&entry.data).expect("code object");
        assert_eq!(info.kernels, KERNELS, "{id}");
        assert_eq!(&info.target.to_string(), flags, "{id}");
        assert!(code_object_text(&entry.data).is_ok_and(|t| !t.is_empty()));
    }
}

#[test]
fn clang19_fatbinaries_for_two_processors() {
    if !have(&["clang-19", "clang-offload-bundler-19"]) {
        return;
    }
    let dir = Scratch::new("two");
    let object = host_object(
        dir.path(),
        "clang-19",
        &["--offload-arch=gfx90a", "--offload-arch=gfx942"],
    );
    let expected = [
        ("hipv4-amdgcn-amd-amdhsa--gfx90a", "gfx90a"),
        ("hipv4-amdgcn-amd-amdhsa--gfx942", "gfx942"),
    ];
    check_real(dir.path(), &object, false, &expected);
    let b = parse_bundle(&sections(&object).0).expect("parses");
    let co = |dev: &str| {
        let e = select(&b, &TargetId::parse(dev).expect("id")).expect("selected");
        code_object_info(&e.data).expect("info")
    };
    let mi250 = co("gfx90a:sramecc+:xnack-");
    assert_eq!(
        (mi250.target.processor.as_str(), mi250.version),
        ("gfx90a", 5)
    );
    assert_eq!(co("gfx942:sramecc+:xnack-").target.processor, "gfx942");
    assert!(select(&b, &TargetId::parse("gfx1100").expect("id")).is_none());
}

#[test]
fn clang19_fatbinary_with_a_feature_target_id() {
    if !have(&["clang-19", "clang-offload-bundler-19"]) {
        return;
    }
    let dir = Scratch::new("feature");
    let object = host_object(
        dir.path(),
        "clang-19",
        &["--offload-arch=gfx90a:sramecc+:xnack-"],
    );
    let id = "hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-";
    check_real(
        dir.path(),
        &object,
        false,
        &[(id, "gfx90a:sramecc+:xnack-")],
    );
    let b = parse_bundle(&sections(&object).0).expect("parses");
    // e_flags agree with the bundle id; the code object does not run with xnack on.
    assert!(select(&b, &TargetId::parse("gfx90a:sramecc+:xnack+").expect("id")).is_none());
}

#[test]
fn clang19_compressed_fatbinary() {
    if !have(&["clang-19", "clang-offload-bundler-19"]) {
        return;
    }
    let dir = Scratch::new("compressed");
    let object = host_object(
        dir.path(),
        "clang-19",
        &[
            "--offload-arch=gfx90a",
            "--offload-arch=gfx942",
            "--offload-compress",
        ],
    );
    let (fatbin, _) = sections(&object);
    assert!(
        fatbin.starts_with(COMPRESSED_MAGIC),
        "clang 19 compresses with CCOB"
    );
    assert_eq!(u16::from_le_bytes([fatbin[4], fatbin[5]]), 2, "format v2");
    let expected = [
        ("hipv4-amdgcn-amd-amdhsa--gfx90a", "gfx90a"),
        ("hipv4-amdgcn-amd-amdhsa--gfx942", "gfx942"),
    ];
    check_real(dir.path(), &object, true, &expected);
}

#[test]
fn hipcc_fatbinary() {
    if !have(&["hipcc", "clang-offload-bundler-19"]) {
        return;
    }
    let dir = Scratch::new("hipcc");
    let object = host_object(dir.path(), "hipcc", &["--offload-arch=gfx90a"]);
    check_real(
        dir.path(),
        &object,
        false,
        &[("hipv4-amdgcn-amd-amdhsa--gfx90a", "gfx90a")],
    );
    let b = parse_bundle(&sections(&object).0).expect("parses");
    let e = b.code_objects().next().expect("one");
    // HIP 5.2's clang 15 writes code object v4.
    assert_eq!(code_object_info(&e.data).expect("info").version, 4);
}
