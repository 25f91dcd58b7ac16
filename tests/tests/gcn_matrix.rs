//! The GCN corpus matrix: every corpus kernel (`tests/corpus/gcn/`) × every attach point
//! × the hash-map shapes (`count()` and `sum()` keyed by `kernel`, a 2-key tuple with a
//! predicate on `tid.x`, `smid` and `ctaid.x`, a map without keys), and × the other map
//! kinds and builtins on a subset of points ([`EXTRA`]: a ring, `printf`, `hist` and
//! `lhist`, a per-warp array from a `warp` probe, the grid builtins, `block`/`thread`,
//! `value`), written in the probe language and compiled by `warptrace_lang::compile`.
//! Each (file, program) pair instruments; every gfx9 kernel comes out `Instrumented`
//! (always at `kernel:entry` and `kernel:exit`) or `NoSites`, never `Rejected` — or
//! `Unsupported` for the one reason [`expected_unsupported`] predicts from the kernel's
//! descriptor and metadata (no hidden grid arguments, a workgroup id that cannot be
//! enabled); the
//! module assembles with the real
//! `llvm-mc` for its processor and links with `ld.lld -shared` into a code object whose
//! `llvm-readelf --notes` lists the map argument (`__wt_maps` or an 8-byte
//! `global_buffer` at the old kernarg size) for each instrumented kernel and the raised
//! kernarg size, and no wait state the hazard rules ask is missing
//! (`warptrace_codegen_gcn::hazards`). The gfx1100 files are wave32 (RDNA3) and go
//! through the same checks.
//! Under `CI=true` a missing LLVM tool fails the test.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use warptrace_codegen_gcn::{
    added_hazards, assemble, build, hazards, instrument, llvm_tool, notes, parse, KernelStatus,
    TargetId, ToolError,
};
use warptrace_tests::gcn_corpus;

/// Whether the LLVM tools are installed; under `CI=true` their absence fails.
fn tools() -> bool {
    let missing: Vec<&str> = ["llvm-mc", "ld.lld", "llvm-readelf"]
        .into_iter()
        .filter(|t| llvm_tool(t).is_none())
        .collect();
    if missing.is_empty() {
        return true;
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{missing:?} not found (CI=true); install llvm-19 and lld-19");
    }
    eprintln!("SKIPPED: {missing:?} not found; install llvm-19 and lld-19");
    false
}

const POINTS: &[&str] = &[
    "kernel:entry",
    "kernel:exit",
    "mem:global:load",
    "mem:global:store",
    "mem:global:atomic",
    "mem:global:*",
    "mem:*:*",
    "tensor:mma",
    "sync:barrier",
    "after sync:barrier",
    "branch",
    "gcn:global_*",
    "loop:header",
    "loop:backedge",
    "loop:exit",
];

const SHAPES: &[(&str, &str)] = &[
    ("count", "{ @count[kernel] = count(); }"),
    ("sum", "{ @sum[kernel] = sum({bytes}); }"),
    (
        "tuple",
        "/tid.x % 32 == 0/ { @tuple[kernel, smid] = sum({bytes} + ctaid.x); }",
    ),
    ("nokey", "{ @nokey = count(); }"),
];

/// The other map kinds and builtins: (name, program body, attach points).
const EXTRA: &[(&str, &str, &[&str])] = &[
    (
        "ring",
        "{ @ring = ({bytes}, smid, warpid, globaltimer, pc); }",
        &["mem:*:*"],
    ),
    (
        "printf",
        "{ printf(\"%d %x %d\\n\", {bytes}, lane, line); }",
        &["mem:*:*"],
    ),
    (
        "hist",
        "{ @h[kernel] = hist({bytes}); @l = lhist((i64)tid.x, 0, 1001, 7); }",
        &["mem:*:*"],
    ),
    (
        "array",
        "map @sched: array(per = warp, slots = 2); kernel:entry { %t0 = globaltimer; } warp {point} { @sched = (globaltimer - %t0, smid); }",
        &["kernel:exit", "loop:exit"],
    ),
    (
        "grid",
        "{ @g[ntid.x, nctaid.y, warp] = count(); @a[active] = sum(lane); }",
        &["kernel:exit"],
    ),
    ("block", "{ @b[block] = max(thread); }", &["kernel:exit"]),
    (
        "divide",
        "{ @d[kernel] = sum({bytes} / 3 + (u64)((i64)lane % -5)); @m[activemask] = count(); }",
        &["mem:global:*", "kernel:exit"],
    ),
    (
        "value",
        "{point} { @v[opcode] = max(value); } warp after mem:global:load { @w[kernel] = sum(value); } gcn:*atomic* { @x = min(value); }",
        &["mem:*:store"],
    ),
];

fn source(point: &str, shape: &str) -> String {
    let bytes = if point.starts_with("mem:") || point.starts_with("gcn:") {
        "bytes"
    } else {
        "(u64)tid.x"
    };
    if let Some((_, body, _)) = EXTRA.iter().find(|(n, _, _)| *n == shape) {
        let body = body.replace("{bytes}", bytes).replace("{point}", point);
        // A body that names its own probes is the whole program.
        return if body.starts_with('{') {
            format!("{point} {body}\n")
        } else {
            format!("{body}\n")
        };
    }
    let body = SHAPES
        .iter()
        .find(|(n, _)| *n == shape)
        .map(|(_, b)| *b)
        .expect("shape");
    format!("{point} {}\n", body.replace("{bytes}", bytes))
}

/// The reason a gfx9 kernel may be `Unsupported` with `shape`, from its descriptor and
/// metadata: the grid builtins and arrays need the code object v5 hidden arguments,
/// `block`/`thread` the three workgroup ids (enabled unless that moves a system SGPR,
/// decision 0022); `value` after a global load needs a register the load writes, which a
/// load into LDS (`global_load_lds_dword`, `… lds`) has not.
/// `None`: it must be lowered.
fn expected_unsupported(asm: &str, kernel: &str, shape: &str) -> Option<&'static str> {
    let m = parse(asm).expect("corpus parses");
    let meta = m.metadata.as_ref().and_then(|x| x.kernel(kernel))?;
    let hidden = meta
        .args
        .iter()
        .any(|a| a.value_kind() == "hidden_block_count_x");
    let k = m.kernel(kernel)?;
    let ids = ["x", "y", "z"]
        .iter()
        .all(|d| k.field(&format!(".amdhsa_system_sgpr_workgroup_id_{d}")) == Some(1));
    // A workgroup id the kernel does not enable is enabled for the probe, unless a system
    // SGPR after it would move: the workgroup info, or the scratch wavefront offset
    // (without architected flat scratch: before gfx940).
    let gfx940 = m
        .processor
        .as_deref()
        .is_some_and(|p| p.starts_with("gfx94"));
    let moves = k.field(".amdhsa_system_sgpr_workgroup_info") == Some(1)
        || k.field(".amdhsa_system_sgpr_private_segment_wavefront_offset") == Some(1)
        || (!gfx940 && k.field(".amdhsa_enable_private_segment") == Some(1));
    let into_lds = k.body.clone().any(|i| {
        m.instr(i).is_some_and(|x| {
            x.mnemonic.starts_with("global_load_lds") || x.modifiers.iter().any(|w| w == "lds")
        })
    });
    match shape {
        "value" if into_lds => Some("value of a load into LDS"),
        "block" if !ids && moves => Some("enabling it would move"),
        "array" | "grid" | "block" if !hidden => Some("hidden grid arguments"),
        _ => None,
    }
}

/// The processor of a corpus file (`…_gfx942.s`).
fn processor(file: &str) -> &str {
    file.rsplit('_')
        .next()
        .and_then(|p| p.strip_suffix(".s"))
        .expect("file name ends with _<gfx>.s")
}

type Cell = Result<Vec<(String, u32)>, Vec<String>>;

fn run_cell(file: &str, asm: &str, point: &str, shape: &str) -> Cell {
    let src = source(point, shape);
    let what = format!("{file} × `{}`", src.trim());
    let program = warptrace_lang::compile(&src, "matrix.wt")
        .unwrap_or_else(|e| panic!("{what}: does not compile:\n{}", e.render()));
    let program = warptrace_tests::programs::verified(&program);
    let out = match instrument(asm, &program) {
        Ok(out) => out,
        Err(e) => return Err(vec![format!("{what}: instrument failed: {e}")]),
    };
    let mut errors = Vec::new();
    let mut sites = Vec::new();
    let mut instrumented = Vec::new();
    for k in &out.kernels {
        match &k.status {
            KernelStatus::Instrumented { sites: n } => {
                instrumented.push(k.name.clone());
                sites.push((k.name.clone(), *n));
            }
            KernelStatus::NoSites if !point.starts_with("kernel:") => {
                sites.push((k.name.clone(), 0));
            }
            KernelStatus::Unsupported { what }
                if expected_unsupported(asm, &k.name, shape)
                    .is_some_and(|why| what.contains(why)) => {}
            other => errors.push(format!("{what}: kernel {}: {other:?}", k.name)),
        }
    }
    if instrumented.is_empty() {
        if out.asm != asm {
            errors.push(format!(
                "{what}: no kernel instrumented but the text changed"
            ));
        }
        return if errors.is_empty() {
            Ok(sites)
        } else {
            Err(errors)
        };
    }
    // The result parses back with the same kernels.
    match parse(&out.asm) {
        Err(e) => errors.push(format!("{what}: instrumented text does not parse: {e}")),
        Ok(m) => {
            let names: Vec<&str> = m.kernels.iter().map(|k| k.name.as_str()).collect();
            let before: Vec<&str> = out.kernels.iter().map(|k| k.name.as_str()).collect();
            if names != before {
                errors.push(format!(
                    "{what}: kernels {names:?} after, {before:?} before"
                ));
            }
        }
    }
    // No wait state the hazard rules ask is missing: inside the snippets, and between
    // them and the kernel's instructions on either side (decision 0030).
    match hazards(&out.asm) {
        Err(e) => errors.push(format!("{what}: hazards: {e}")),
        Ok(h) if !h.is_empty() => errors.push(format!("{what}: missing wait states: {h:?}")),
        Ok(_) => {}
    }
    match assemble(&out.asm, processor(file)) {
        Err(e) => {
            let e: String = e
                .to_string()
                .lines()
                .take(12)
                .collect::<Vec<_>>()
                .join("\n");
            errors.push(format!("{what}: does not assemble:\n{e}"));
        }
        Ok(co) => match notes(&co.shared) {
            Err(e) => errors.push(format!("{what}: llvm-readelf --notes: {e}")),
            Ok(n) => {
                let original = parse(asm).expect("corpus parses");
                let meta = original.metadata.as_ref().expect("metadata");
                for name in &instrumented {
                    let size = meta
                        .kernel(name)
                        .and_then(|k| k.int(".kernarg_segment_size"))
                        .expect("kernarg size");
                    let offset = size.next_multiple_of(8);
                    if !notes_have_map_arg(&n, name, offset) {
                        errors.push(format!(
                            "{what}: the notes of {name} lack the map argument at {offset} \
                             and kernarg size {}",
                            offset + 8
                        ));
                    }
                }
            }
        },
    }
    if errors.is_empty() {
        Ok(sites)
    } else {
        Err(errors)
    }
}

/// Whether `llvm-readelf --notes` shows, for kernel `name`, an 8-byte global buffer at
/// `offset` and a kernarg segment of `offset + 8` bytes.
fn notes_have_map_arg(notes: &str, name: &str, offset: u64) -> bool {
    // The note lists each kernel's map; find the one whose `.name` is `name`.
    let kernels: Vec<&str> = notes.split("\n  - ").collect();
    kernels.iter().any(|k| {
        let lines: Vec<&str> = k.lines().map(str::trim).collect();
        let named = lines
            .iter()
            .any(|l| l.starts_with(".name:") && l.split_whitespace().nth(1) == Some(name));
        let arg = lines.windows(4).any(|w| {
            w.contains(&format!(".offset:         {offset}").as_str())
                && w.contains(&".size:           8")
                && w.contains(&".value_kind:     global_buffer")
        });
        let size = lines
            .iter()
            .any(|l| *l == format!(".kernarg_segment_size: {}", offset + 8));
        named && arg && size
    })
}

fn parallel<J: Sync, R: Send>(jobs: &[J], f: impl Fn(&J) -> R + Sync) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<R>>> = Mutex::new((0..jobs.len()).map(|_| None).collect());
    let workers = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .max(2);
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(job) = jobs.get(i) else { break };
                let r = f(job);
                results.lock().expect("no worker panicked")[i] = Some(r);
            });
        }
    });
    results
        .into_inner()
        .expect("no worker panicked")
        .into_iter()
        .map(|r| r.expect("every job ran"))
        .collect()
}

#[test]
fn every_gcn_corpus_kernel_instruments_verifies_assembles_and_links_at_every_point() {
    if !tools() {
        return;
    }
    let start = Instant::now();
    let files = gcn_corpus();
    assert!(files.len() >= 11, "corpus is missing files");
    let mut jobs = Vec::new();
    for (file, asm) in &files {
        for point in POINTS {
            for (shape, _) in SHAPES {
                jobs.push((file.as_str(), asm.as_str(), *point, *shape));
            }
        }
        for (shape, _, points) in EXTRA {
            for point in *points {
                jobs.push((file.as_str(), asm.as_str(), *point, *shape));
            }
        }
    }
    let results = parallel(&jobs, |&(file, asm, point, shape)| {
        run_cell(file, asm, point, shape)
    });
    let mut failures = Vec::new();
    let mut table: BTreeMap<(String, String, &str), u32> = BTreeMap::new();
    let mut extra_sites: BTreeMap<&str, u32> = EXTRA.iter().map(|(n, _, _)| (*n, 0)).collect();
    for (&(file, _, point, shape), result) in jobs.iter().zip(results) {
        match result {
            Err(e) => failures.extend(e),
            Ok(sites) => {
                // The other map kinds add probes of their own: counted apart.
                if let Some(total) = extra_sites.get_mut(shape) {
                    *total += sites.iter().map(|(_, n)| n).sum::<u32>();
                    continue;
                }
                for (kernel, n) in sites {
                    let key = (file.to_owned(), kernel.clone(), point);
                    if let Some(&m) = table.get(&key) {
                        if m != n {
                            failures.push(format!(
                                "{file} {kernel} {point}: {n} sites with `{shape}`, {m} before"
                            ));
                        }
                    }
                    table.insert(key, n);
                }
            }
        }
    }
    let mut kernels: Vec<(String, String)> = table
        .keys()
        .map(|(f, k, _)| (f.clone(), k.clone()))
        .collect();
    kernels.dedup();
    eprintln!("sites per kernel: {}", POINTS.join(" | "));
    for (f, k) in &kernels {
        let row: Vec<String> = POINTS
            .iter()
            .map(|p| {
                table
                    .get(&(f.clone(), k.clone(), *p))
                    .map_or("-".into(), u32::to_string)
            })
            .collect();
        eprintln!("{f} {k}: {}", row.join(" | "));
    }
    // Every point has a site somewhere in the corpus.
    for point in POINTS {
        let total: u32 = table
            .iter()
            .filter(|((_, _, p), _)| p == point)
            .map(|(_, n)| n)
            .sum();
        if total == 0 {
            failures.push(format!("no corpus kernel has a `{point}` site"));
        }
    }
    for (f, k) in &kernels {
        let get = |p: &str| table.get(&(f.clone(), k.clone(), p)).copied();
        if let (Some(l), Some(s), Some(a), Some(any)) = (
            get("mem:global:load"),
            get("mem:global:store"),
            get("mem:global:atomic"),
            get("mem:global:*"),
        ) {
            if any != l + s + a {
                failures.push(format!("{f} {k}: mem:global:* {any} != {l} + {s} + {a}"));
            }
        }
    }
    // Every other map kind and builtin is instrumented somewhere.
    for (shape, total) in &extra_sites {
        if *total == 0 {
            failures.push(format!("`{shape}` instrumented no corpus kernel"));
        }
    }
    eprintln!("sites of the other map kinds and builtins: {extra_sites:?}");
    eprintln!(
        "gcn matrix: {} files, {} kernels, {} programs, {} (file, program) pairs in {:.1?}",
        files.len(),
        kernels.len(),
        POINTS.len() * SHAPES.len() + EXTRA.iter().map(|(_, _, p)| p.len()).sum::<usize>(),
        jobs.len(),
        start.elapsed()
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn unmodified_corpus_files_assemble_to_the_same_object_after_a_round_trip() {
    if !tools() {
        return;
    }
    for (file, asm) in gcn_corpus() {
        let printed = parse(&asm).expect("parses").to_text();
        let a = assemble(&asm, processor(&file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        let b = assemble(&printed, processor(&file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert!(a.object == b.object, "{file}: objects differ");
        assert!(a.shared == b.shared, "{file}: code objects differ");
        let n = notes(&a.shared).expect("notes");
        assert!(
            n.contains("amdhsa.kernels"),
            "{file}: no kernel metadata in the notes"
        );
    }
}

/// The register cost is reported, and raises the descriptor above the kernel's own
/// registers: Triton's flash attention (77 SGPRs, AGPRs at `accum_offset` 148) with the
/// tuple shape at `kernel:exit`.
#[test]
fn the_register_cost_of_flash_attention_is_reported_and_within_the_limits() {
    let file = "triton_flash_attn_fwd_gfx942.s";
    let asm = gcn_corpus()
        .into_iter()
        .find(|(n, _)| n == file)
        .map(|(_, t)| t)
        .expect("corpus file");
    let src = source("kernel:exit", "tuple");
    let program = warptrace_lang::compile(&src, "t.wt").expect("compiles");
    let program = warptrace_tests::programs::verified(&program);
    let out = instrument(&asm, &program).expect("instruments");
    let k = &out.kernels[0];
    let occ = k.occupancy.expect("instrumented");
    assert_eq!(occ.sgprs.0, 77);
    assert!(occ.sgprs.1 > 77 && occ.sgprs.1 <= 102, "{occ:?}");
    assert_eq!(occ.vgprs.0, 180);
    assert!(occ.vgprs.1 > 180, "{occ:?}");
    // Pinned: 24 SGPRs and 32 VGPRs for this program; 2 waves per SIMD before and after.
    let pinned = warptrace_codegen_gcn::Occupancy {
        sgprs: (77, 101),
        vgprs: (180, 212),
        waves: (2, 2),
    };
    assert_eq!(occ, pinned);
    let m = parse(&out.asm).expect("parses");
    let kd = m.kernel("flash_attn_fwd").expect("kernel");
    assert_eq!(
        kd.field(".amdhsa_next_free_sgpr"),
        Some(i64::from(occ.sgprs.1))
    );
    assert_eq!(
        kd.field(".amdhsa_next_free_vgpr"),
        Some(i64::from(occ.vgprs.1))
    );
    // The AGPRs moved up with the architectural VGPRs: accum_offset + 32 AGPRs.
    let accum = kd.field(".amdhsa_accum_offset").expect("accum_offset");
    assert_eq!(accum % 4, 0);
    assert_eq!(accum + 32, i64::from(occ.vgprs.1));
}

/// A kernel whose snippets push its own branches past their 16-bit offset (±128 KiB) —
/// Triton's matmul with three map updates and two divisions at each of its 68 memory
/// accesses — does not assemble as instrumented; `build` makes those branches long
/// (decision 0032): the verifier accepts the kernel, the module assembles and links with
/// the map argument, no hazard is added, and each long branch's target is its branch's.
#[test]
fn branches_the_snippets_push_out_of_reach_are_made_long() {
    if !tools() {
        return;
    }
    let asm = warptrace_tests::gcn_corpus_file("triton_matmul_gfx90a.s");
    let src = "mem:*:* { @d[kernel] = sum(bytes / 3 + (u64)((i64)lane % -5)); \
               @a[addr] = count(); @m[activemask] = max(bytes); }";
    let program = warptrace_lang::compile(src, "t.wt").expect("compiles");
    let program = warptrace_tests::programs::verified(&program);
    let plain = instrument(&asm, &program).expect("instruments");
    let Err(ToolError::BranchOutOfRange { lines, .. }) = assemble(&plain.asm, "gfx90a") else {
        panic!("the instrumented matmul assembles: the test no longer needs long branches");
    };
    assert!(!lines.is_empty());
    let target = TargetId::parse("amdgcn-amd-amdhsa--gfx90a").expect("target");
    let (out, code) = build(&asm, &program, &target).expect("builds");
    let k = &out.kernels[0];
    assert!(
        matches!(k.status, KernelStatus::Instrumented { sites: 68 }),
        "{:?}",
        k.status
    );
    // Every branch out of reach, and no other, made long.
    let long = out.asm.matches("\ts_setpc_b64 ").count();
    assert!(long >= lines.len(), "{long} long branches for {lines:?}");
    assert!(long < asm.matches("\ts_cbranch_").count() + asm.matches("\ts_branch ").count());
    let meta = notes(&code.shared).expect("notes");
    let size = parse(&asm)
        .expect("parses")
        .metadata
        .as_ref()
        .and_then(|m| m.kernel(&k.name)?.int(".kernarg_segment_size"))
        .expect("kernarg size");
    assert!(
        notes_have_map_arg(&meta, &k.name, size.next_multiple_of(8)),
        "{meta}"
    );
    assert_eq!(added_hazards(&asm, &out.asm).expect("parses"), []);
    // The disassembly: each `s_setpc_b64` is preceded by `s_getpc_b64` and the add
    // whose literal takes it to the label of the branch it replaces.
    let objdump = llvm_tool("llvm-objdump").expect("llvm-objdump");
    let dir = std::env::temp_dir().join(format!("wt-long-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join("k.hsaco");
    std::fs::write(&path, &code.shared).expect("write");
    let dis = std::process::Command::new(objdump)
        .args(["-d", "--mcpu=gfx90a"])
        .arg(&path)
        .output()
        .expect("llvm-objdump runs");
    let _ = std::fs::remove_dir_all(&dir);
    let dis = String::from_utf8_lossy(&dis.stdout).into_owned();
    let checked = long_branch_targets(&dis);
    assert_eq!(checked.len(), long, "{dis}");
    for (from, to) in checked {
        assert!(
            to % 4 == 0 && dis.contains(&format!("// {to:012X}:")),
            "the long branch at {from:#x} goes to {to:#x}, no instruction"
        );
    }
}

/// For each `s_getpc_b64`, `s_add_u32`, `s_addc_u32`, `s_cmp_lg_u32`, `s_setpc_b64` of a
/// disassembly,
/// the address of its `s_setpc_b64` and the address it jumps to.
fn long_branch_targets(dis: &str) -> Vec<(u64, u64)> {
    let lines: Vec<&str> = dis.lines().collect();
    let address = |l: &str| {
        let hex = l.split("// ").nth(1)?.split(':').next()?;
        u64::from_str_radix(hex.trim(), 16).ok()
    };
    let literal = |l: &str| {
        let word = l.split_whitespace().nth(3)?;
        let v = word.strip_prefix("0x").map_or_else(
            || word.parse::<i64>().ok().map(|v| v as u64),
            |h| u64::from_str_radix(h, 16).ok(),
        )?;
        Some(v & 0xffff_ffff)
    };
    let mut out = Vec::new();
    let shape = [
        "s_getpc_b64",
        "s_add_u32",
        "s_addc_u32",
        "s_cmp_lg_u32",
        "s_setpc_b64",
    ];
    for w in lines.windows(5) {
        let m = |l: &str| l.split_whitespace().next().unwrap_or_default().to_owned();
        if (0..5).any(|i| m(w[i]) != shape[i]) {
            continue;
        }
        let (Some(pc), Some(lo), Some(hi), Some(from)) =
            (address(w[1]), literal(w[1]), literal(w[2]), address(w[4]))
        else {
            continue;
        };
        out.push((from, pc.wrapping_add(hi << 32 | lo)));
    }
    out
}
