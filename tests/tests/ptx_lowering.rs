//! Every IR operation the PTX back end lowers, written in the language, instrumented into
//! every corpus kernel: each kernel a probe selects must be `Instrumented` (the
//! kernel-level verifier accepted it) or have no site, the lowered sequence must be in the
//! output, and the real `ptxas` must assemble the result for sm_90a and, where the
//! uninstrumented kernel assembles for it, sm_80.
//!
//! Bit-exactness of the values against the interpreter needs a GPU (`scripts/gpu-e2e.sh`);
//! the pure pieces (hist/lhist bucket sequences, constant folding) are unit-tested in
//! `codegen-ptx`.

use warptrace_codegen_ptx::{instrument, list_sites, parse, KernelStatus};
use warptrace_tests::{assemble, corpus, corpus_archs, retarget};
use warptrace_verifier::verify_program;

/// What one program did over the whole corpus.
#[derive(Debug, Default)]
struct Outcome {
    /// Instrumented kernels and their snippet counts, as `file:kernel`.
    instrumented: Vec<(String, u32)>,
    /// The instrumented text of every file with an instrumented kernel.
    text: String,
    /// Kernels left `Unsupported` for the reason [`run_allowing`] accepts, as `file:kernel`.
    unsupported: Vec<String>,
}

/// Compiles `src`, instruments every corpus file, checks statuses and assembles.
fn run(src: &str) -> Outcome {
    run_allowing(src, None)
}

/// [`run`], where a kernel may also come out `Unsupported` for a reason starting with
/// `allowed` (recorded in [`Outcome::unsupported`]).
fn run_allowing(src: &str, allowed: Option<&str>) -> Outcome {
    let program = warptrace_lang::compile(src, "test.wt")
        .unwrap_or_else(|e| panic!("does not compile:\n{src}\n{e:?}"));
    let verified =
        verify_program(&program).unwrap_or_else(|e| panic!("IR verifier rejects:\n{src}\n{e}"));
    let mut outcome = Outcome::default();
    for (file, ptx) in corpus() {
        let out = instrument(&ptx, &verified).unwrap_or_else(|e| panic!("{file}: {e}"));
        let mut any = false;
        for k in &out.kernels {
            match &k.status {
                KernelStatus::Instrumented { sites } => {
                    any = true;
                    outcome
                        .instrumented
                        .push((format!("{file}:{}", k.name), *sites));
                }
                KernelStatus::NoSites => {}
                KernelStatus::Rejected(e) => {
                    panic!(
                        "{file}: {} rejected by the kernel verifier:\n{e}\n{src}",
                        k.name
                    )
                }
                KernelStatus::Unsupported { what }
                    if allowed.is_some_and(|a| what.starts_with(a)) =>
                {
                    outcome.unsupported.push(format!("{file}:{}", k.name));
                }
                KernelStatus::Unsupported { what } => {
                    panic!("{file}: {} unsupported: {what}\n{src}", k.name)
                }
                s @ KernelStatus::OverBudget { .. } => {
                    panic!("{file}: {} with no budget: {s:?}", k.name)
                }
            }
        }
        if !any {
            assert_eq!(out.ptx, ptx, "{file}: no kernel instrumented, text changed");
            continue;
        }
        parse(&out.ptx).unwrap_or_else(|e| panic!("{file}: instrumented PTX does not parse: {e}"));
        for arch in corpus_archs(&file) {
            if let Some(Err(e)) = assemble(&retarget(&out.ptx, arch), arch, &[]) {
                panic!("ptxas -arch={arch} rejects instrumented {file}:\n{e}\n{src}");
            }
        }
        outcome.text.push_str(&out.ptx);
    }
    assert!(
        !outcome.instrumented.is_empty(),
        "no corpus kernel instrumented:\n{src}"
    );
    outcome
}

/// Asserts that every needle occurs in the instrumented text.
fn has(out: &Outcome, needles: &[&str]) {
    for n in needles {
        assert!(out.text.contains(n), "`{n}` not in the instrumented PTX");
    }
}

#[test]
fn hash_aggregations() {
    let out = run(r#"
        mem:global:load {
            @mn[tid.x & 3] = min((i64)addr);
            @mx[kernel] = max(bytes);
            @av[kernel, pc] = avg(bytes);
            @st[tid.x & 7] = stats((i64)tid.x);
            @h[kernel] = hist(addr & 4095);
            @l[kernel] = lhist((i64)(addr & 1023), 0, 1024, 64);
            @l3[kernel] = lhist((i64)tid.x, -30, 90, 3);
            @last[kernel] = addr;
            @n[opcode] = count();
            @s[kernel] = sum(bytes);
        }
    "#);
    has(
        &out,
        &[
            "red.global.max.u64",
            "not.b64",
            "xor.b64 %__wt_t0, %__wt_r",
            "clz.b64",
            "sub.u32 %__wt_s0, 65, %__wt_s0",
            "shr.u64 %__wt_t0, %__wt_t0, 6",
            "div.u64 %__wt_t0",
            "min.u64",
            "atom.global.exch.b64",
        ],
    );
}

#[test]
fn tags_of_known_keys_are_folded() {
    // `[kernel]` and `[kernel, pc]` are immediates: no run-time mix64 at all.
    let out = run("mem:global:store { @a[kernel, pc] = count(); @b[kernel] = sum(bytes); }");
    assert!(
        !out.text.contains("0xBF58476D1CE4E5B9"),
        "tag hashed at run time"
    );
    // A run-time key still hashes.
    let out = run("mem:global:store { @a[tid.x] = count(); }");
    has(&out, &["mul.lo.u64 %__wt_t0, %__wt_t0, 0xBF58476D1CE4E5B9"]);
}

#[test]
fn special_registers() {
    let out = run(r#"
        kernel:entry {
            @a[kernel] = sum(clock + globaltimer + nsmid + warpid + warp + lane);
            @b[kernel] = sum(ntid.x + ntid.y + ntid.z + nctaid.x + nctaid.y + nctaid.z);
            @c[thread & 255] = count();
            @d[block] = count();
            @e[activemask] = sum(active);
        }
    "#);
    has(
        &out,
        &[
            "%clock;",
            "%globaltimer;",
            "%nsmid;",
            "%warpid;",
            "%laneid;",
            "%nctaid.z;",
            "mul.wide.u32",
            "activemask.b32",
            "popc.b32",
            "shr.u32 %__wt_s0, %__wt_s0, 5",
        ],
    );
}

#[test]
fn launch_reads_the_launch_word() {
    let out = run("kernel:entry { @a[launch] = count(); }");
    let program = warptrace_lang::compile("kernel:entry { @a[launch] = count(); }", "t.wt")
        .expect("compiles");
    let layout = warptrace_ir::MapLayout::new(&program.maps);
    has(
        &out,
        &[&format!(
            "ld.global.u64 %__wt_r0, [%__wt_base+{}];",
            layout.launch_offset
        )],
    );
}

#[test]
fn array_saves() {
    // Per-thread records from every lane; per-warp records from the leader, whose taken
    // slots are counted as drops.
    let out = run(r#"
        map @t: array(per = thread, slots = 2);
        map @w: array(per = warp, slots = 1);
        kernel:entry { @t = (clock64, smid); }
        warp kernel:exit { @w = (clock64); }
    "#);
    has(
        &out,
        &[
            "setp.ge.u64 %__wt_p0, %__wt_x0, 2;",
            "add.s64 %__wt_x0, %__wt_x0, 1;",
            "mad.lo.u64 %__wt_t0, %__wt_t0, 2, %__wt_t4;",
            "mul.lo.u64 %__wt_t0, %__wt_t0, 24;",
            "st.global.u64 [%__wt_t1+16], %__wt_r1;",
            "setp.ne.u64 %__wt_p0, %__wt_t3, 0;",
            "@!%__wt_p1 bra",
            "add.u32 %__wt_s1, %__wt_s1, 31;",
        ],
    );
}

#[test]
fn persistent_registers() {
    // `%n` cannot live across a call: kernels whose device functions have global accesses
    // are left alone (decision 0005), every other kernel is instrumented.
    let out = run_allowing(
        r#"
        kernel:entry { %t0 = clock64; }
        mem:global:* { %n = %n + 1; }
        kernel:exit { @lat[kernel] = hist(clock64 - %t0); @acc[kernel] = sum(%n); }
    "#,
        Some("persistent registers in device function"),
    );
    assert_eq!(
        out.unsupported,
        [
            "nvcc_calls.ptx:_Z13recursive_sumPKiiPiPj",
            "nvcc_calls.ptx:_Z12clamped_copyPKiiPiPj",
            "nvcc_calls.ptx:_Z15through_pointerPKiiPiPj",
            "nvcc_kernels_sm80.ptx:_Z14calls_noinlinePKfPfS1_i",
            "nvcc_kernels_sm90a.ptx:_Z14calls_noinlinePKfPfS1_i",
        ]
    );
    has(
        &out,
        &[
            ".reg .b64 %__wt_x<2>;",
            "mov.b64 %__wt_x0, 0;",
            "mov.b64 %__wt_x1, 0;",
        ],
    );
    assert!(
        out.text.contains("mov.b64 %__wt_x0, %__wt_r")
            || out.text.contains("mov.b64 %__wt_x1, %__wt_r")
    );
}

#[test]
fn warp_granularity() {
    let out = run(r#"
        warp mem:global:load { @w[kernel] = count(); @r = (lane, active); printf("%d\n", lane); }
    "#);
    has(
        &out,
        &[
            "activemask.b32",
            "%lanemask_eq",
            "setp.eq.u32 %__wt_p1",
            "@!%__wt_p1 bra",
        ],
    );
}

#[test]
fn after_probes_and_site_values() {
    let out = run(r#"
        after mem:global:load { @v[kernel] = hist(value); @o[opcode, pc] = count(); @f[file, line] = count(); }
        mem:global:store { @sv[kernel] = max(value); }
        after mem:shared:load { @a[kernel] = sum(value); }
        after mem:*:atomic { @b[kernel] = sum(value); }
    "#);
    has(&out, &["cvt.u64.u32 %__wt_r", "mov.b64 %__wt_r"]);
    // The snippet of an `after` probe follows its instruction.
    let lines: Vec<&str> = out.text.lines().collect();
    let after = lines
        .iter()
        .position(|l| l.contains("probe 0 (after mem:global:load)"))
        .expect("an after snippet");
    assert!(
        lines[..after]
            .iter()
            .rev()
            .find(|l| !l.trim().is_empty())
            .is_some_and(|l| l.contains("ld.global")),
        "the snippet does not follow a load: {:?}",
        &lines[after.saturating_sub(2)..=after]
    );
    // Every snippet after a predicated load re-tests the predicate first, so a load
    // whose predicate is false fires no probe (Triton's loads are predicated).
    let mut predicated = 0;
    for (n, l) in lines.iter().enumerate() {
        if !l.contains("(after mem:global:load)") {
            continue;
        }
        let prev = lines[..n]
            .iter()
            .rev()
            .find(|l| !l.trim().is_empty())
            .map(|l| l.trim_start())
            .unwrap_or("");
        if let Some(guard) = prev
            .strip_prefix('@')
            .and_then(|g| g.split_whitespace().next())
        {
            let inverted = match guard.strip_prefix('!') {
                Some(p) => format!("@{p} bra"),
                None => format!("@!{guard} bra"),
            };
            assert!(
                lines[n + 1].trim_start().starts_with(&inverted),
                "after `{prev}`: {}",
                lines[n + 1]
            );
            predicated += 1;
        }
    }
    assert!(predicated > 0);
}

#[test]
fn rings_and_printf() {
    let out = run(r#"
        map @keep: ring(capacity = 64, overflow = drop);
        map @new: ring(capacity = 100, overflow = overwrite);
        mem:global:store { @keep = (addr, bytes); @new = (clock64, kernel, pc); printf("%s %x %d\n", kernel, addr, bytes); }
    "#);
    has(
        &out,
        &[
            "atom.global.add.u64",
            "fence.acq_rel.gpu",
            "st.relaxed.gpu.global.u64",
            "rem.u64 %__wt_t1, %__wt_t0, 100",
            "setp.ge.u64 %__wt_p0, %__wt_t0, 64",
        ],
    );
}

#[test]
fn attach_points() {
    let cases = [
        ("tensor:mma", &["mma", "wgmma"][..]),
        ("sync:barrier", &["bar"][..]),
        ("branch", &["bra"][..]),
        ("ptx:ld.global.*", &["ld.global"][..]),
        ("ptx:st.shared.*", &["st.shared"][..]),
    ];
    for (point, roots) in cases {
        let src = format!("{point} {{ @n[kernel, pc] = count(); @o[opcode] = count(); }}");
        let out = run(&src);
        assert!(
            out.instrumented.iter().map(|(_, s)| s).sum::<u32>() > 0,
            "{point}: no site"
        );
        let program = warptrace_lang::compile(&src, "t.wt").expect("compiles");
        for (file, ptx) in corpus() {
            for site in list_sites(&ptx, &program).expect("lists") {
                assert!(
                    roots.iter().any(|r| site.text.contains(r)),
                    "{file}: {point} listed `{}`",
                    site.text
                );
            }
        }
    }
    // An `after` probe at barriers and mma instructions.
    run("after sync:barrier { @n[kernel] = count(); } after tensor:mma { @m[kernel] = count(); }");
}

#[test]
fn line_probes_follow_loc() {
    let program = warptrace_lang::compile(
        "line:nvcc_app.cu:1-10000 { @n[file, line] = count(); }",
        "t.wt",
    )
    .expect("compiles");
    let (_, ptx) = corpus()
        .into_iter()
        .find(|(f, _)| f == "nvcc_app.ptx")
        .expect("nvcc_app");
    let sites = list_sites(&ptx, &program).expect("lists");
    assert!(!sites.is_empty());
    // No instruction before the body's first `.loc` is a site; the first one after is.
    let first_loc = ptx
        .lines()
        .position(|l| l.trim_start().starts_with(".loc"))
        .expect("a .loc") as u32
        + 1;
    assert!(sites.iter().all(|s| s.line > first_loc));
    let none = warptrace_lang::compile("line:other.cu:1-10000 { @n[kernel] = count(); }", "t.wt")
        .expect("compiles");
    assert!(list_sites(&ptx, &none).expect("lists").is_empty());
    run("line:nvcc_app.cu:1-10000 { @n[file, line] = count(); }");
}
