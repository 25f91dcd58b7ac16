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
//! through the same checks. `line:` and the region of every single source line run the
//! same checks on every file with line tables
//! ([`source_lines_and_their_regions_instrument_on_every_corpus_file`]), and every file
//! printed from its parsed statements alone assembles to the same object
//! ([`statements_printed_from_their_parsed_form_assemble_to_the_same_object`]).
//! Under `CI=true` a missing LLVM tool fails the test.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Instant;

use warptrace_codegen_gcn::{
    added_hazards, assemble, assemble_instrumented, build, hazards, instrument, llvm_tool, notes,
    parse, KernelStatus, TargetId, ToolError,
};
use warptrace_tests::{gcn_corpus, parallel};

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

/// The most SGPRs a program of the matrix takes above the kernel's (the tuple shape at
/// `kernel:exit`: the saved `exec`, `vcc` and `scc`, the map base, the hash-map masks,
/// the predicate's mask, the launch's `exec`).
const MOST_SGPRS: u32 = 24;

/// The SGPRs kernel `kernel` of `asm` leaves of the 102 a wave addresses
/// (`.amdhsa_next_free_sgpr`). A kernel that leaves fewer than [`MOST_SGPRS`] may be
/// `Unsupported` for the larger programs ("probe registers: … SGPRs needed"): the probe
/// registers are not spilled (Triton's flash attention for gfx90a, 80 SGPRs).
fn spare_sgprs(asm: &str, kernel: &str) -> u32 {
    let m = parse(asm).expect("corpus parses");
    let k = m.kernel(kernel).expect("the kernel");
    let used = k.field(".amdhsa_next_free_sgpr").expect("next free SGPR");
    102u32.saturating_sub(u32::try_from(used).expect("a register count"))
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
    let unsupported = |kernel: &str, what: &str| {
        expected_unsupported(asm, kernel, shape).is_some_and(|why| what.contains(why))
            || (what.contains("SGPRs needed") && spare_sgprs(asm, kernel) < MOST_SGPRS)
    };
    run_program(file, asm, &src, !point.starts_with("kernel:"), &unsupported)
}

/// Instruments `asm` (corpus file `file`) with the program `src` and checks the result:
/// every kernel `Instrumented`, `NoSites` (where `no_sites` allows it) or `Unsupported`
/// where `unsupported(kernel, reason)` allows it; the text parses back with the same
/// kernels, misses no wait state, assembles and links, and its notes show each
/// instrumented kernel's map argument. The sites of each kernel that has some.
fn run_program(
    file: &str,
    asm: &str,
    src: &str,
    no_sites: bool,
    unsupported: &(dyn Fn(&str, &str) -> bool + Sync),
) -> Cell {
    let what = format!("{file} × `{}`", src.trim());
    let program = warptrace_lang::compile(src, "matrix.wt")
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
            KernelStatus::NoSites if no_sites => {
                sites.push((k.name.clone(), 0));
            }
            KernelStatus::Unsupported { what } if unsupported(&k.name, what) => {}
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
    // Assembled as the CLI and the HIP hook assemble it: a kernel branch the snippets push
    // past its 16-bit reach is made a long branch and the module instrumented and
    // verified again (decision 0032); every kernel instrumented stays so.
    let target = TargetId::of_assembly(asm).expect("the module's target");
    let before = out.kernels.clone();
    let (out, co) = match assemble_instrumented(asm, &program, out, &target) {
        Ok(built) => built,
        Err(e) => {
            let e: String = e
                .to_string()
                .lines()
                .take(12)
                .collect::<Vec<_>>()
                .join("\n");
            errors.push(format!("{what}: does not assemble:\n{e}"));
            return Err(errors);
        }
    };
    // A kernel's outcome changes here only where the long branches' three more SGPRs
    // run out; `unsupported` is asked once per kernel whose outcome changed.
    for (k, was) in out.kernels.iter().zip(&before) {
        if format!("{:?}", k.status) == format!("{:?}", was.status) {
            continue;
        }
        match &k.status {
            KernelStatus::Unsupported { what } if unsupported(&k.name, what) => {
                instrumented.retain(|n| *n != k.name);
                sites.retain(|(n, _)| *n != k.name);
            }
            _ => errors.push(format!(
                "{what}: kernel {}: {:?} once assembled, {:?} before",
                k.name, k.status, was.status
            )),
        }
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
    match notes(&co.shared) {
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
    // The matrix instructions of both families are `tensor:mma` sites: CDNA's `v_mfma`
    // (two in `mfma_tile`) and RDNA3's `v_wmma` (one in `wmma_tile`).
    for (file, kernel, want) in [
        ("hip_kernels_gfx942.s", "mfma_tile", 2),
        ("hip_wmma_gfx1100.s", "wmma_tile", 1),
    ] {
        let n = table.get(&(file.to_owned(), kernel.to_owned(), "tensor:mma"));
        if n != Some(&want) {
            failures.push(format!(
                "{file} {kernel}: tensor:mma sites {n:?}, not {want}"
            ));
        }
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

/// The regions of one source line left `Unsupported`, as (file, line, kernel): the end
/// inside an `if` that rejoins (`many_exits`' `if (i >= n) return;`, line 50),
/// `atomic_ticket`'s line 70, whose code reaches into the compare-and-swap loop that falls
/// through to its header and runs to `s_endpgm`, and one line of `if_else` on each target,
/// whose exit is inside its `else`. Pinned: a region newly placed, or newly refused, is
/// noticed here.
const REGIONS_REFUSED: &[(&str, u32, &str)] = &[
    ("hip_kernels_gfx90a.s", 50, "many_exits"),
    ("hip_kernels_gfx90a.s", 70, "atomic_ticket"),
    ("hip_kernels_gfx90a.s", 102, "if_else"),
    ("hip_kernels_gfx942.s", 50, "many_exits"),
    ("hip_kernels_gfx942.s", 70, "atomic_ticket"),
    ("hip_kernels_gfx942.s", 103, "if_else"),
];

/// The source files of `asm`'s `.loc`s and the lines with code in each: (file name,
/// lines), from its `.file N "dir" "name"` and `.loc N line col` directives.
fn source_lines(asm: &str) -> BTreeMap<String, std::collections::BTreeSet<u32>> {
    use warptrace_codegen_gcn::StmtKind;
    let m = parse(asm).expect("corpus parses");
    let mut names = BTreeMap::new();
    let mut lines: BTreeMap<String, std::collections::BTreeSet<u32>> = BTreeMap::new();
    for st in &m.stmts {
        let StmtKind::Directive { name, args } = &st.kind else {
            continue;
        };
        let mut words = args.split_whitespace();
        let Some(n) = words.next().and_then(|w| w.parse::<u32>().ok()) else {
            continue;
        };
        match name.as_str() {
            ".file" => {
                let quoted: Vec<&str> = args.split('"').skip(1).step_by(2).collect();
                if let Some(file) = quoted.get(1).or(quoted.first()) {
                    names.insert(n, (*file).to_owned());
                }
            }
            ".loc" => {
                let line = words.next().and_then(|w| w.parse::<u32>().ok());
                if let (Some(file), Some(line)) = (names.get(&n), line.filter(|&l| l > 0)) {
                    lines.entry(file.clone()).or_default().insert(line);
                }
            }
            _ => {}
        }
    }
    lines
}

/// `line:` and `region:` points over every corpus file with line tables: `line:F:1-1000000`
/// (every instruction with a `.loc` of source file `F`) has sites in the file, and the
/// region of each single source line with code is placed in the kernels that have it —
/// each program instrumenting, verifying, assembling and linking as in the matrix
/// ([`run_program`]) — except [`REGIONS_REFUSED`], `Unsupported` with a `region:` reason.
#[test]
fn source_lines_and_their_regions_instrument_on_every_corpus_file() {
    if !tools() {
        return;
    }
    let files = gcn_corpus();
    let mut jobs = Vec::new();
    for (file, asm) in &files {
        for (src, lines) in source_lines(asm) {
            jobs.push((
                file.as_str(),
                asm.as_str(),
                format!("line:{src}:1-1000000 {{ @l[kernel, line] = count(); }}"),
                None,
            ));
            for l in lines {
                jobs.push((
                    file.as_str(),
                    asm.as_str(),
                    format!(
                        "region:entry:{src}:{l}-{l} {{ @e[kernel] = count(); }} \
                         region:exit:{src}:{l}-{l} {{ @x[kernel] = count(); }}"
                    ),
                    Some(l),
                ));
            }
        }
    }
    let refused = Mutex::new(Vec::new());
    let results = parallel(&jobs, |(file, asm, src, line)| {
        let unsupported = |kernel: &str, what: &str| match line {
            Some(line) if what.contains("region:") => {
                let refusal = (file.to_string(), *line, kernel.to_owned());
                refused.lock().expect("no worker panicked").push(refusal);
                true
            }
            _ => false,
        };
        run_program(file, asm, src, true, &unsupported)
    });
    let mut failures = Vec::new();
    let (mut line_sites, mut regions) = (0, 0);
    for ((file, _, src, line), result) in jobs.iter().zip(results) {
        match result {
            Err(e) => failures.extend(e),
            Ok(sites) => {
                let n: u32 = sites.iter().map(|(_, n)| n).sum();
                match line {
                    None if n == 0 => failures.push(format!("{file}: `{src}` has no site")),
                    None => line_sites += n,
                    Some(_) => regions += usize::from(n > 0),
                }
            }
        }
    }
    let mut refused = refused.into_inner().expect("no worker panicked");
    refused.sort();
    let pinned: Vec<(String, u32, String)> = REGIONS_REFUSED
        .iter()
        .map(|(f, l, k)| (f.to_string(), *l, k.to_string()))
        .collect();
    if refused != pinned {
        failures.push(format!(
            "regions refused: {refused:?}, pinned in REGIONS_REFUSED: {pinned:?}"
        ));
    }
    eprintln!(
        "source lines: {} programs, {line_sites} `line:` sites, {regions} single-line regions \
         placed, {} refused",
        jobs.len(),
        refused.len()
    );
    assert!(line_sites > 0 && regions > 100, "{line_sites} {regions}");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// A module's text with every statement printed from its parsed form alone — a label as
/// `name:`, a directive as `.name args`, an instruction as `mnemonic op, op modifier…`
/// with single spaces — in place of its text (comments and the lines that are no
/// statement stay). With `perturb`, the first integer operand of the first instruction
/// that has one (not a branch) is printed one higher.
fn reprinted(m: &warptrace_codegen_gcn::Module, perturb: bool) -> String {
    use warptrace_codegen_gcn::StmtKind;
    let src = m.source();
    let mut out = String::with_capacity(src.len());
    let mut last = 0;
    let mut perturbed = !perturb;
    for st in &m.stmts {
        out.push_str(&src[last..st.span.start]);
        match &st.kind {
            StmtKind::Label(l) => out.push_str(&format!("{l}:")),
            StmtKind::Directive { name, args } if args.is_empty() => out.push_str(name),
            StmtKind::Directive { name, args } => out.push_str(&format!("{name} {args}")),
            StmtKind::Instr(x) => {
                let mut ops: Vec<String> = x.operands.iter().map(|o| o.text.clone()).collect();
                let imm = x.operands.iter().position(|o| o.imm.is_some());
                if let (false, false, Some(i)) = (perturbed, x.mnemonic.contains("branch"), imm) {
                    ops[i] = (x.operands[i].imm.unwrap_or_default() + 1).to_string();
                    perturbed = true;
                }
                out.push_str(&x.mnemonic);
                for (i, o) in ops.iter().enumerate() {
                    out.push_str(if i == 0 { " " } else { ", " });
                    out.push_str(o);
                }
                for w in &x.modifiers {
                    out.push(' ');
                    out.push_str(w);
                }
            }
        }
        last = st.span.end;
    }
    out.push_str(&src[last..]);
    out
}

/// The parsed statements hold everything the assembler reads: every corpus file printed
/// from its statements alone ([`reprinted`]) assembles to the same object and code object
/// as the file — while its text differs (the compilers' tabs and padding are gone) — and
/// with one integer operand one higher to a different object, so the comparison would
/// notice an operand or modifier the parser lost.
#[test]
fn statements_printed_from_their_parsed_form_assemble_to_the_same_object() {
    if !tools() {
        return;
    }
    for (file, asm) in gcn_corpus() {
        let m = parse(&asm).expect("parses");
        let printed = reprinted(&m, false);
        assert!(printed != asm, "{file}: nothing was printed differently");
        let a = assemble(&asm, processor(&file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        let b = assemble(&printed, processor(&file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert!(a.object == b.object, "{file}: objects differ");
        assert!(a.shared == b.shared, "{file}: code objects differ");
        let perturbed = reprinted(&m, true);
        let c = assemble(&perturbed, processor(&file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert!(
            a.object != c.object,
            "{file}: an operand one higher went unnoticed"
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
