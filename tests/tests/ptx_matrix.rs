//! The corpus matrix: every corpus file × the attach points the PTX back end lowers × the
//! basic map shapes (hash `count()`, `sum(bytes)` keyed by kernel, a 2-key tuple, a map
//! without keys), written in the probe language and compiled by `warptrace_lang::compile`.
//! The `kernel:`/`mem:` points get every shape; the instruction points added later
//! (`tensor:mma`, `sync:barrier`, `branch`, `ptx:`, `line:`, `loop:`, `region:`) the tuple shape, to keep the
//! `ptxas` time down (every other aggregation, rings, printf, `warp` and `after` are run
//! over the whole corpus by `ptx_lowering.rs`). Each (file, program) pair instruments; every kernel comes out
//! `Instrumented` (always, for `kernel:entry` and `kernel:exit`) or `NoSites`, never
//! `Rejected` or `Unsupported`; the module parses back and assembles with the real `ptxas`
//! for `sm_90a`, and for `sm_80` unless the file needs sm_90 (`SM90_ONLY`). The pairs run
//! on worker threads (one `ptxas` each); failures are collected and reported together.
//!
//! The other map kinds — a per-thread array saved with `launch`, a ring — run at
//! `kernel:exit` and `mem:global:*` (`KIND_POINTS`). The loops the back end finds in a
//! few corpus kernels are pinned (`LOOPS`), so the analysis can fail.

use std::collections::BTreeMap;
use std::time::Instant;

use warptrace_codegen_ptx::{
    instrument, parse, KernelStatus, Module, Operand, StmtKind, MAP_PARAM,
};
use warptrace_tests::{assemble, corpus, corpus_archs, parallel, programs, retarget};

/// The attach points the PTX back end matches and lowers today, each with every shape.
/// (`line:` is written per file, see [`point_for`].)
const POINTS: &[&str] = &[
    "kernel:entry",
    "kernel:exit",
    "mem:global:load",
    "mem:global:store",
    "mem:global:atomic",
    "mem:global:*",
    // Every space: shared and local accesses, and Numba's generic `ld`/`st`/`atom`.
    "mem:*:*",
];

/// Attach points run with the `tuple` shape only.
const TUPLE_ONLY: &[&str] = &[
    "tensor:mma",
    "sync:barrier",
    "branch",
    // Raw opcodes: every global access, `cp.async`/`wmma.load` copies included.
    "ptx:*.global*",
    "line:",
    // Natural loops: the header's top, each back edge taken (predicated sites at
    // `@%p bra`), each exit edge taken (fall-through placements after the latch).
    "loop:header",
    "loop:backedge",
    "loop:exit",
    // Source-line regions: a small range (the first `.loc` line and the next) and the
    // whole file's range (every kernel one region), see [`point_for`].
    "region:entry:",
    "region:exit:",
];

/// The attach point as written for a corpus file: `line:` becomes
/// `line:"<basename of .file 1>":L-L+1` with `L` the first `.loc 1` line (a few
/// instructions: a range over the whole file puts a probe before every instruction, and
/// `ptxas` then takes minutes); `None` when the module has no `.loc`.
///
/// `region:entry:` takes the same small range, `region:exit:` the range of every `.loc 1`
/// line of the file (each kernel's whole body is then one region).
fn point_for(point: &str, ptx: &str) -> Option<String> {
    if !matches!(point, "line:" | "region:entry:" | "region:exit:") {
        return Some(point.to_owned());
    }
    let path = ptx
        .lines()
        .find_map(|l| l.trim_start().strip_prefix(".file\t1 "))?
        .split('"')
        .nth(1)?;
    let base = path.rsplit('/').next()?;
    let lines: Vec<u32> = ptx
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix(".loc\t1 "))
        .filter_map(|l| l.split_whitespace().next()?.parse().ok())
        .filter(|&l| l > 0)
        .collect();
    let first = *lines.first()?;
    let (from, to) = if point == "region:exit:" {
        (*lines.iter().min()?, *lines.iter().max()?)
    } else {
        (first, first + 1)
    };
    Some(format!("{point}\"{base}\":{from}-{to}"))
}

/// The map shapes, as (name, probe body) with `{bytes}` standing for `bytes` where it is
/// valid (`mem:`, `ptx:`) and for another integer elsewhere.
const SHAPES: &[(&str, &str)] = &[
    ("count", "{ @count[kernel] = count(); }"),
    ("sum", "{ @sum[kernel] = sum({bytes}); }"),
    (
        "tuple",
        "/tid.x % 32 == 0/ { @tuple[kernel, smid] = sum({bytes} + ctaid.x); }",
    ),
    ("nokey", "{ @nokey = count(); }"),
];

/// The array and ring shapes (declarations first), run at [`KIND_POINTS`] only.
const KIND_SHAPES: &[(&str, &str)] = &[
    (
        "array",
        "map @arr: array(per = thread, slots = 2);\n{point} { @arr = (kernel, {bytes}, launch); }",
    ),
    ("ring", "{point} { @ring = ({bytes}, smid, warpid); }"),
];

/// The attach points the array and ring shapes run at.
const KIND_POINTS: &[&str] = &["kernel:exit", "mem:global:*"];

/// The program of one matrix cell.
fn source(point: &str, shape: &str) -> String {
    let bytes = if point.starts_with("mem:") || point.starts_with("ptx:") {
        "bytes"
    } else {
        "(u64)tid.x"
    };
    if let Some((_, text)) = KIND_SHAPES.iter().find(|(n, _)| *n == shape) {
        let text = text.replace("{point}", point).replace("{bytes}", bytes);
        return format!("{text}\n");
    }
    let body = SHAPES
        .iter()
        .find(|(n, _)| *n == shape)
        .map(|(_, b)| *b)
        .expect("shape");
    format!("{point} {}\n", body.replace("{bytes}", bytes))
}

/// Sites per kernel of one (file, program) pair, or the reasons it failed.
type Cell = Result<Vec<(String, u32)>, Vec<String>>;

fn run_cell(file: &str, ptx: &str, point: &str, shape: &str) -> Cell {
    let Some(written) = point_for(point, ptx) else {
        return Ok(Vec::new());
    };
    let src = source(&written, shape);
    let what = format!("{file} × `{}`", src.trim());
    let program = warptrace_lang::compile(&src, "matrix.wt")
        .unwrap_or_else(|e| panic!("{what}: does not compile:\n{}", e.render()));
    let program = programs::verified(&program);
    let out = match instrument(ptx, &program) {
        Ok(out) => out,
        Err(e) => return Err(vec![format!("{what}: instrument failed: {e}")]),
    };
    let mut errors = Vec::new();
    let mut sites = Vec::new();
    let mut any = false;
    for k in &out.kernels {
        match &k.status {
            KernelStatus::Instrumented { sites: n } => {
                any = true;
                sites.push((k.name.clone(), *n));
            }
            KernelStatus::NoSites if !point.starts_with("kernel:") => {
                sites.push((k.name.clone(), 0));
            }
            // `bytes` at a tensor (TMA) copy: the box size is in the tensor map, so the
            // kernel is left as it is rather than given a wrong byte count.
            KernelStatus::Unsupported { what }
                if src.contains("bytes") && what.contains("a tensor copy") => {}
            // An array's slot cursor is a persistent register, which does not live across
            // a call: sites inside device functions leave the kernel as it is.
            KernelStatus::Unsupported { what }
                if shape == "array"
                    && what.starts_with("persistent registers in device function") => {}
            other => errors.push(format!("{what}: kernel {}: {other:?}", k.name)),
        }
    }
    if !any {
        if out.ptx != ptx {
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
    // The result parses back; instrumented kernels have the map parameter last, the
    // others are byte-identical.
    let before = parse(ptx).expect("corpus parses");
    match parse(&out.ptx) {
        Err(e) => errors.push(format!("{what}: instrumented PTX does not parse: {e}")),
        Ok(m) => {
            for k in &out.kernels {
                let Some(f) = m.kernel(&k.name) else {
                    errors.push(format!("{what}: kernel {} is gone", k.name));
                    continue;
                };
                if let KernelStatus::Instrumented { .. } = k.status {
                    let last = m.param_text(f, f.params.len() - 1).unwrap_or_default();
                    if f.params.len() as u32 != k.params + 1 || !last.ends_with(MAP_PARAM) {
                        errors.push(format!("{what}: kernel {}: map parameter `{last}`", k.name));
                    }
                } else {
                    let old = before.kernel(&k.name).expect("kernel");
                    if before.source()[old.span.clone()] != m.source()[f.span.clone()] {
                        errors.push(format!("{what}: kernel {} without sites changed", k.name));
                    }
                }
            }
        }
    }
    for arch in corpus_archs(file) {
        if let Some(Err(e)) = assemble(&retarget(&out.ptx, arch), arch, &[]) {
            let e: String = e.lines().take(8).collect::<Vec<_>>().join("\n");
            errors.push(format!("{what}: ptxas -arch={arch} rejects it:\n{e}"));
        }
    }
    if errors.is_empty() {
        Ok(sites)
    } else {
        Err(errors)
    }
}

#[test]
fn every_corpus_kernel_instruments_verifies_and_assembles_at_every_point_and_map() {
    let start = Instant::now();
    let files = corpus();
    assert!(files.len() >= 15, "corpus is missing files");
    let mut jobs = Vec::new();
    for (file, ptx) in &files {
        for point in POINTS {
            for (shape, _) in SHAPES {
                jobs.push((file.as_str(), ptx.as_str(), *point, *shape));
            }
        }
        for point in TUPLE_ONLY {
            jobs.push((file.as_str(), ptx.as_str(), *point, "tuple"));
        }
        for point in KIND_POINTS {
            for (shape, _) in KIND_SHAPES {
                jobs.push((file.as_str(), ptx.as_str(), *point, *shape));
            }
        }
    }
    let results = parallel(&jobs, |&(file, ptx, point, shape)| {
        run_cell(file, ptx, point, shape)
    });
    let mut failures = Vec::new();
    // Sites per (file, kernel, point), which must not depend on the map shape.
    let mut table: BTreeMap<(String, String, &str), u32> = BTreeMap::new();
    for (&(file, _, point, shape), result) in jobs.iter().zip(results) {
        match result {
            Err(e) => failures.extend(e),
            Ok(sites) => {
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
    // The table, for the log: sites per kernel and attach point.
    let mut kernels: Vec<(String, String)> = table
        .keys()
        .map(|(f, k, _)| (f.clone(), k.clone()))
        .collect();
    kernels.dedup();
    let all: Vec<&str> = POINTS.iter().chain(TUPLE_ONLY).copied().collect();
    eprintln!("sites per kernel: {}", all.join(" | "));
    for (f, k) in &kernels {
        let row: Vec<String> = all
            .iter()
            .map(|p| {
                table
                    .get(&(f.clone(), k.clone(), *p))
                    .map_or("-".into(), u32::to_string)
            })
            .collect();
        let short: String = k.chars().take(40).collect();
        eprintln!("{f} {short}: {}", row.join(" | "));
    }
    // `mem:global:*` covers loads, stores and atomics (and `cp.async` copies, which are
    // `mem:global:async` sites); `mem:*:*` covers `mem:global:*`.
    for (f, k) in &kernels {
        let get = |p: &str| table.get(&(f.clone(), k.clone(), p)).copied();
        if let (Some(l), Some(s), Some(a), Some(any)) = (
            get("mem:global:load"),
            get("mem:global:store"),
            get("mem:global:atomic"),
            get("mem:global:*"),
        ) {
            if any < l + s + a {
                failures.push(format!("{f} {k}: mem:global:* {any} < {l} + {s} + {a}"));
            }
            if get("mem:*:*").is_some_and(|all| all < any) {
                failures.push(format!("{f} {k}: mem:*:* < mem:global:* {any}"));
            }
        }
    }
    // The corpus exercises every point somewhere.
    for point in &all {
        let total: u32 = table
            .iter()
            .filter(|((_, _, p), _)| p == point)
            .map(|(_, n)| n)
            .sum();
        if total == 0 {
            failures.push(format!("no corpus kernel has a `{point}` site"));
        }
    }
    eprintln!(
        "matrix: {} files, {} kernels, {} programs, {} (file, program) pairs in {:.1?}",
        files.len(),
        kernels.len(),
        POINTS.len() * SHAPES.len() + TUPLE_ONLY.len(),
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

/// Every `cp.async` copy (global → shared) of the corpus, per kernel.
const CP_ASYNC: &[(&str, &str, u32)] = &[
    ("triton_matmul_pipelined.ptx", "matmul", 48),
    ("triton_flash_attn_fwd.ptx", "flash_attn_fwd", 16),
    ("nvcc_kernels_sm90a.ptx", "_Z10copy_asyncPK6float4PS_i", 6),
    ("nvcc_kernels_sm80.ptx", "_Z10copy_asyncPK6float4PS_i", 6),
];

#[test]
fn cp_async_copies_are_mem_global_async_sites() {
    let src = "mem:global:async { @async[kernel] = sum(bytes); }";
    let program = warptrace_lang::compile(src, "async.wt").expect("compiles");
    let program = programs::verified(&program);
    for &(file, kernel, n) in CP_ASYNC {
        let ptx = warptrace_tests::corpus_file(file);
        let out = instrument(&ptx, &program).expect("instruments");
        let k = out
            .kernels
            .iter()
            .find(|k| k.name == kernel)
            .expect("kernel");
        assert!(
            matches!(k.status, KernelStatus::Instrumented { sites } if sites == n),
            "{file} {kernel}: {:?}, expected {n} sites",
            k.status
        );
        for arch in corpus_archs(file) {
            if let Some(Err(e)) = assemble(&retarget(&out.ptx, arch), arch, &[]) {
                panic!("{file}: ptxas -arch={arch}:\n{e}");
            }
        }
    }
}

/// The bulk and tensor (TMA) copies of the corpus, per kernel: (file, kernel,
/// `mem:global:async` sites, `mem:shared:async` sites, whether a copy is a tensor copy).
const BULK: &[(&str, &str, u32, u32, bool)] = &[
    // cp.async.bulk load (size register), store (register), cp.reduce.async.bulk.
    ("nvcc_bulk.ptx", "_Z10bulk_scalePKfPfS1_i", 3, 0, false),
    // cp.async.bulk load (size register), store (immediate 256).
    ("nvcc_bulk.ptx", "_Z11bulk_copy_nPK6float4PS_j", 2, 0, false),
    // shared::cta → shared::cluster.
    ("nvcc_bulk.ptx", "_Z10dsmem_pushPKfPf", 0, 1, false),
    // TMA load, store, reduction (the tensor prefetch is no site).
    (
        "nvcc_bulk.ptx",
        "_Z8tma_tile14CUtensorMap_stS_S_",
        3,
        0,
        true,
    ),
    // Six TMA loads, one TMA store.
    ("triton_matmul_tma.ptx", "matmul_tma", 7, 0, true),
];

#[test]
fn bulk_and_tensor_copies_are_async_sites_and_tma_bytes_are_never_guessed() {
    let status = |file: &str, src: &str, kernel: &str| {
        let program = warptrace_lang::compile(src, "bulk.wt").expect("compiles");
        let ptx = warptrace_tests::corpus_file(file);
        let out = instrument(&ptx, &programs::verified(&program)).expect("instruments");
        let k = out
            .kernels
            .iter()
            .find(|k| k.name == kernel)
            .expect("kernel");
        (k.status.clone(), out.ptx)
    };
    let mut failures = Vec::new();
    for &(file, kernel, global, shared, tensor) in BULK {
        for (space, n) in [("global", global), ("shared", shared)] {
            let src = format!("mem:{space}:async {{ @n[kernel] = count(); }}");
            match status(file, &src, kernel).0 {
                KernelStatus::Instrumented { sites } if sites == n => {}
                KernelStatus::NoSites if n == 0 => {}
                other => failures.push(format!("{file} {kernel} `{src}`: {other:?}, want {n}")),
            }
        }
        // `bytes`: a bulk copy's size operand (immediate or register); a TMA copy's box
        // is sized by its tensor map, so the kernel is left alone rather than miscounted.
        for value in ["bytes", "addr"] {
            let src = format!("mem:*:async {{ @b[kernel] = sum({value}); }}");
            let (st, ptx) = status(file, &src, kernel);
            match st {
                KernelStatus::Unsupported { what } if tensor => {
                    let why = if value == "bytes" {
                        "tensor map"
                    } else {
                        "compound address"
                    };
                    if !what.contains(why) {
                        failures.push(format!("{file} {kernel} `{src}`: {what}"));
                    }
                }
                KernelStatus::Instrumented { .. } if !tensor => {
                    for arch in corpus_archs(file) {
                        if let Some(Err(e)) = assemble(&retarget(&ptx, arch), arch, &[]) {
                            failures.push(format!("{file} `{src}`: ptxas -arch={arch}:\n{e}"));
                        }
                    }
                }
                other => failures.push(format!("{file} {kernel} `{src}`: {other:?}")),
            }
        }
    }
    // The size register is read as a 32-bit value; an immediate size is folded.
    let (_, ptx) = status(
        "nvcc_bulk.ptx",
        "mem:global:async { @b[kernel] = sum(bytes); }",
        "_Z11bulk_copy_nPK6float4PS_j",
    );
    let k = parse(&ptx).expect("parses");
    let f = k.kernel("_Z11bulk_copy_nPK6float4PS_j").expect("kernel");
    let body = &ptx[f.span.clone()];
    assert!(
        body.contains("mov.b32 %__wt_s0, %r2;"),
        "size register not read"
    );
    assert!(
        body.contains("mov.b64 %__wt_r1, 256;"),
        "immediate size not folded"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The direct calls of the body of `name` in `m`: (callee, last argument) per call.
fn calls_in(m: &Module, name: &str) -> Vec<(String, String)> {
    let f = m
        .functions()
        .iter()
        .find(|f| f.name == name && f.body.is_some())
        .unwrap_or_else(|| panic!("no body of {name}"));
    let mut out = Vec::new();
    for s in &f.body.as_ref().expect("body").stmts {
        let StmtKind::Instr(i) = &s.kind else {
            continue;
        };
        if i.root() != "call" {
            continue;
        }
        let mut ops = i
            .operands
            .iter()
            .skip_while(|o| matches!(o, Operand::Group(_)));
        let Some(Operand::Symbol(callee)) = ops.next() else {
            continue;
        };
        let last = match ops.next() {
            Some(Operand::Group(args)) => match args.last() {
                Some(Operand::Symbol(a)) => a.to_string(),
                _ => String::new(),
            },
            _ => String::new(),
        };
        out.push((callee.to_string(), last));
    }
    out
}

/// nvcc's `calls_noinline` calls the non-inlined `stencil3` (which calls `clamp_load`
/// three times) and `accumulate`: a probe on the global load of `clamp_load` or the atomic
/// of `accumulate` reaches them through clones (`__wt_<k>_<name>`, the map base passed as
/// a last argument), which the kernel and the other clones call instead; the originals
/// and the other kernels are untouched, and the module assembles.
#[test]
fn probes_reach_non_inlined_device_functions() {
    const KERNEL: &str = "_Z14calls_noinlinePKfPfS1_i";
    for file in ["nvcc_kernels_sm90a.ptx", "nvcc_kernels_sm80.ptx"] {
        let ptx = warptrace_tests::corpus_file(file);
        let before = parse(&ptx).expect("parses");
        for (point, site, cloned) in [
            (
                "mem:global:load",
                "ld.global.f32",
                &["_Z8stencil3PKfii", "_Z10clamp_loadPKfii"][..],
            ),
            (
                "mem:global:atomic",
                "atom.global.add.f32",
                &["_Z10accumulatePff"][..],
            ),
        ] {
            let what = format!("{file} {point}");
            let src = format!("{point}:*calls_noinline* {{ @n[kernel] = sum(bytes); }}");
            let program = warptrace_lang::compile(&src, "func.wt").expect("compiles");
            let out = instrument(&ptx, &programs::verified(&program)).expect("instruments");
            let k = out
                .kernels
                .iter()
                .find(|k| k.name == KERNEL)
                .expect("kernel");
            // One site: the kernel has no global load or atomic of its own.
            assert!(
                matches!(k.status, KernelStatus::Instrumented { sites: 1 }),
                "{what}: {:?}",
                k.status
            );
            let names: Vec<&str> = k.functions.iter().map(|c| c.name.as_str()).collect();
            assert_eq!(names, cloned, "{what}");
            for other in out.kernels.iter().filter(|o| o.name != KERNEL) {
                assert!(
                    matches!(other.status, KernelStatus::NoSites),
                    "{what}: {other:?}"
                );
            }
            let after = parse(&out.ptx).expect("instrumented PTX parses");
            let text = |m: &Module, name: &str| {
                let f = m
                    .functions()
                    .iter()
                    .find(|f| f.name == name && f.body.is_some())
                    .unwrap_or_else(|| panic!("{what}: no body of {name}"));
                m.source()[f.span.clone()].to_owned()
            };
            // Every original body but the kernel's is unchanged.
            for f in before.functions().iter().filter(|f| f.body.is_some()) {
                if f.name != KERNEL {
                    assert_eq!(
                        text(&before, &f.name),
                        text(&after, &f.name),
                        "{what}: {}",
                        f.name
                    );
                }
            }
            let clone_of = |name: &str| {
                k.functions
                    .iter()
                    .find(|c| c.name == name)
                    .map(|c| c.clone.clone())
            };
            for c in &k.functions {
                assert!(c.clone.starts_with("__wt_") && c.clone.ends_with(&c.name));
                let body = text(&after, &c.clone);
                // The map base is the clone's last parameter, and what its prologue loads.
                let g = after
                    .functions()
                    .iter()
                    .find(|f| f.name == c.clone && f.body.is_some())
                    .expect("clone");
                let last = after.param_text(g, g.params.len() - 1).unwrap_or_default();
                assert_eq!(last, format!(".param .b64 {MAP_PARAM}"), "{what}");
                assert_eq!(g.params.len(), before_params(&before, &c.name) + 1);
                assert!(body.contains("ld.param.u64 %__wt_base, [__wt_maps];"));
                // The probe sits before the site, with the calling kernel's id folded in.
                match body.find("// warptrace: snippet 1:") {
                    Some(probe) if c.sites > 0 => {
                        assert!(body[probe..].contains(site), "{what}: probe after the site");
                        assert!(body.contains(&format!("0x{:016X}", k.id)), "{what}: id");
                    }
                    None if c.sites == 0 => {}
                    other => panic!("{what}: {} sites, probe at {other:?}", c.sites),
                }
            }
            // The kernel and each clone make their original's calls, those of cloned
            // functions redirected to the clones with the map argument last.
            let bodies = std::iter::once((KERNEL.to_string(), KERNEL.to_string())).chain(
                k.functions
                    .iter()
                    .map(|c| (c.name.clone(), c.clone.clone())),
            );
            for (original, instrumented) in bodies {
                let old = calls_in(&before, &original);
                let new = calls_in(&after, &instrumented);
                assert_eq!(old.len(), new.len(), "{what}: calls of {instrumented}");
                for ((callee, arg), (new_callee, new_arg)) in old.iter().zip(&new) {
                    match clone_of(callee) {
                        Some(clone) => {
                            assert_eq!(*new_callee, clone, "{what}");
                            assert!(new_arg.starts_with("__wt_arg"), "{what}: {new_arg}");
                        }
                        None => assert_eq!((callee, arg), (new_callee, new_arg), "{what}"),
                    }
                }
            }
            for arch in corpus_archs(file) {
                if let Some(Err(e)) = assemble(&retarget(&out.ptx, arch), arch, &[]) {
                    panic!("{what}: ptxas -arch={arch}:\n{e}");
                }
            }
        }
    }
}

/// Parameters of the body of `name` in `m`.
fn before_params(m: &Module, name: &str) -> usize {
    m.functions()
        .iter()
        .find(|f| f.name == name && f.body.is_some())
        .map_or(0, |f| f.params.len())
}

/// The natural loops of a few corpus kernels: (file, kernel, loop:header, loop:backedge,
/// loop:exit sites). `triton_matmul`'s K loop is one loop (`$L__BB0_2`) whose latch is
/// `@%p4 bra $L__BB0_2` and whose exit is that branch falling through; `histogram` has
/// three loops (a grid-stride loop with an `if` inside among them). Every corpus loop
/// has one exit; the unit tests of `codegen-ptx/src/loops.rs` cover loops with two.
const LOOPS: &[(&str, &str, [u32; 3])] = &[
    ("triton_matmul.ptx", "matmul", [1, 1, 1]),
    ("triton_matmul_pipelined.ptx", "matmul", [1, 1, 1]),
    ("triton_layernorm_fwd.ptx", "layernorm_fwd", [3, 3, 3]),
    ("triton_vector_add.ptx", "vector_add", [0, 0, 0]),
    ("nvcc_app.ptx", "_Z9block_sumPKfPfi", [1, 1, 1]),
    ("nvcc_kernels_sm90a.ptx", "_Z9histogramPKhPji", [3, 3, 3]),
    (
        "nvcc_kernels_sm90a.ptx",
        "_Z10copy_asyncPK6float4PS_i",
        [2, 2, 2],
    ),
    ("cupy_rawkernels.ptx", "dot_reduce", [2, 2, 2]),
    // A grid-stride loop holding `cuda::barrier`'s wait loop, whose back-off paths make
    // four back edges to one header (one a latch falling through into the header's
    // label: a fall-through placement), and the scaling loop.
    ("nvcc_bulk.ptx", "_Z10bulk_scalePKfPfS1_i", [3, 6, 3]),
    // The K loop and, nested in it, the inline-assembly `waitLoop` of the TMA wait
    // (`@!complete bra.uni waitLoop`, a label local to its `{ }` scope).
    ("triton_matmul_tma.ptx", "matmul_tma", [2, 2, 2]),
];

#[test]
fn loop_points_find_the_known_loops_of_corpus_kernels() {
    let mut failures = Vec::new();
    for (k, point) in ["loop:header", "loop:backedge", "loop:exit"]
        .into_iter()
        .enumerate()
    {
        let src = format!("{point} {{ @n[kernel] = count(); }}");
        let program = warptrace_lang::compile(&src, "loops.wt").expect("compiles");
        let program = programs::verified(&program);
        for &(file, kernel, counts) in LOOPS {
            let ptx = warptrace_tests::corpus_file(file);
            let out = instrument(&ptx, &program).expect("instruments");
            let status = &out
                .kernels
                .iter()
                .find(|x| x.name == kernel)
                .expect("kernel")
                .status;
            let got = match status {
                KernelStatus::Instrumented { sites } => *sites,
                KernelStatus::NoSites => 0,
                other => {
                    failures.push(format!("{file} {kernel} {point}: {other:?}"));
                    continue;
                }
            };
            if got != counts[k] {
                failures.push(format!(
                    "{file} {kernel} {point}: {got} sites, expected {}",
                    counts[k]
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn loop_sites_of_the_matmul_k_loop_are_listed_where_they_run() {
    let ptx = warptrace_tests::corpus_file("triton_matmul.ptx");
    let src = "loop:header { @h = count(); }\nloop:backedge { @b = count(); }\n\
               loop:exit { @e = count(); }";
    let program = warptrace_lang::compile(src, "loops.wt").expect("compiles");
    let sites = warptrace_codegen_ptx::list_sites(&ptx, &program).expect("lists");
    let got: Vec<(usize, u32, &str)> = sites
        .iter()
        .map(|s| (s.probe, s.line, s.text.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            (
                0,
                264,
                "loop $L__BB0_2 header: before `add.s64 %rd56, %rd112, %rd1;`"
            ),
            (
                1,
                502,
                "loop $L__BB0_2 back edge: `@%p4 bra $L__BB0_2;` when taken"
            ),
            (
                2,
                502,
                "loop $L__BB0_2 exit: after `@%p4 bra $L__BB0_2;` (fall-through)"
            ),
        ]
    );
    // The spliced kernel: the back edge's snippet is a predicated site (it skips itself
    // when the branch is not taken), the exit's follows the branch, before the next block.
    let out = instrument(&ptx, &programs::verified(&program)).expect("instruments");
    let k = &out.kernels[0];
    assert!(
        matches!(k.status, KernelStatus::Instrumented { sites: 3 }),
        "{:?}",
        k.status
    );
    let text = &out.ptx;
    let at = |needle: &str| text.find(needle).unwrap_or_else(|| panic!("no `{needle}`"));
    let header = at("$L__BB0_2:");
    let backedge_guard = at("@!%p4 bra $__wt_2_end;");
    let latch = at("@%p4 bra \t$L__BB0_2;");
    let exit_snippet = at("// warptrace: snippet 3:");
    let next_block = at("// %bb.3:");
    assert!(header < at("// warptrace: snippet 1:"));
    assert!(at("// warptrace: snippet 1:") < at("add.s64 \t%rd56, %rd112, %rd1;"));
    assert!(backedge_guard < latch && latch < exit_snippet && exit_snippet < next_block);
}

#[test]
fn after_on_a_loop_point_is_unsupported() {
    // The language rejects `after loop:…`; hand-built IR can still ask for it.
    let mut program = warptrace_lang::compile("loop:header { @n[kernel] = count(); }", "after.wt")
        .expect("compiles");
    program.probes[0].attach.position = warptrace_ir::Position::After;
    let program = programs::verified(&program);
    let ptx = warptrace_tests::corpus_file("triton_matmul.ptx");
    let out = instrument(&ptx, &program).expect("instruments");
    assert_eq!(out.ptx, ptx);
    assert!(
        matches!(&out.kernels[0].status, KernelStatus::Unsupported { what }
            if what.starts_with("`after` on attach point loop:header")),
        "{:?}",
        out.kernels[0].status
    );
}
