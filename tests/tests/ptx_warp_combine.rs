//! Warp-combined map updates (`codegen-ptx/src/combine.rs`) on the corpus: which updates
//! are combined, that the kernel verifier accepts the emitted `activemask`/`redux.sync`
//! (its `WarpCollective` rule), that `ptxas` assembles them for every corpus target, and
//! that targets without `redux.sync` (below sm_80) or `activemask` (below sm_70) fall back.
//! That the combined update equals the per-thread ones is proved by the `warp.*`
//! translation-validation obligations; on a GPU, `scripts/warp_combine.py` compares the
//! maps with and without combining.

use warptrace_codegen_ptx::{instrument, KernelStatus};
use warptrace_tests::{assemble, corpus, corpus_archs, corpus_file, retarget};
use warptrace_verifier::{verify_program, VerifiedProgram};

fn verified(src: &str) -> VerifiedProgram {
    let program = warptrace_lang::compile(src, "test.wt")
        .unwrap_or_else(|e| panic!("does not compile:\n{src}\n{e:?}"));
    verify_program(&program).unwrap_or_else(|e| panic!("IR verifier rejects:\n{src}\n{e}"))
}

/// The instrumented text of `ptx`, every kernel with a site instrumented (not rejected).
fn instrumented(ptx: &str, program: &VerifiedProgram, what: &str) -> String {
    let out = instrument(ptx, program).unwrap_or_else(|e| panic!("{what}: {e}"));
    for k in &out.kernels {
        match &k.status {
            KernelStatus::Instrumented { .. } | KernelStatus::NoSites => {}
            other => panic!("{what}: {} {other:?}", k.name),
        }
    }
    out.ptx
}

#[test]
fn every_combinable_update_is_combined_verified_and_assembled() {
    let program = verified(
        r#"
        mem:global:load {
            @c[kernel] = count();
            @b[kernel, pc] = sum(bytes);
            @s[ctaid.x] = sum((i64)addr);
            @a[kernel] = avg(tid.x);
            @st[warp] = stats(tid.y);
            @mx[kernel] = max((i64)addr);
            @mn[kernel] = min(clock);
            @h[kernel] = hist(bytes);
            @l[block] = lhist(bytes, 0, 64, 4);
            @last[kernel] = line;
        }
        "#,
    );
    let mut redux = 0;
    for (file, ptx) in corpus() {
        let out = instrumented(&ptx, &program, &file);
        if out == ptx {
            continue;
        }
        for arch in corpus_archs(&file) {
            if let Some(Err(e)) = assemble(&retarget(&out, arch), arch, &[]) {
                panic!("ptxas -arch={arch} rejects {file}:\n{e}");
            }
        }
        // Every update of every snippet is combined.
        for snippet in out.split("// warptrace: snippet ").skip(1) {
            assert_eq!(
                snippet.matches("warp-combined").count(),
                10,
                "{file}: not every update combined:\n{snippet}"
            );
        }
        redux += out.matches("redux.sync.add.u32").count();
        assert!(out.contains("redux.sync.max.u32"), "{file}");
    }
    assert!(redux > 0, "no per-lane sum reduced");
}

#[test]
fn updates_with_a_per_lane_key_or_operand_stay_per_thread() {
    let program = verified(
        r#"
        mem:global:load {
            @t[tid.x] = count();
            @h[kernel] = hist(tid.x);
            @l[kernel] = lhist(addr & 255, 0, 256, 16);
            @v[kernel] = addr;
            @m[smid] = count();
            @p[kernel] = sum(%n);
            %n = %n + 1;
            if (tid.x & 1) { $k = 1; } else { $k = 2; }
            @d[$k] = count();
        }
        "#,
    );
    let out = instrumented(&corpus_file("nvcc_app.ptx"), &program, "nvcc_app");
    // `@p[kernel] = sum(%n)`: a per-lane sum under a uniform key, combined; nothing else.
    let snippets: Vec<&str> = out.split("// warptrace: snippet ").skip(1).collect();
    assert!(!snippets.is_empty());
    for snippet in snippets {
        assert_eq!(snippet.matches("warp-combined").count(), 1, "{snippet}");
        assert!(snippet.contains("warp-combined sum"), "{snippet}");
    }
}

#[test]
fn warp_probes_are_not_combined_again() {
    let program = verified("warp mem:global:load { @c[kernel] = count(); }");
    let out = instrumented(&corpus_file("nvcc_app.ptx"), &program, "nvcc_app");
    assert!(!out.contains("warp-combined"));
    assert!(out.contains("%__wt_p1"), "the warp leader");
}

/// `nvcc_app.ptx` with its `.target` set to `target`.
fn with_target(target: &str) -> String {
    let ptx = corpus_file("nvcc_app.ptx");
    ptx.lines()
        .map(|l| {
            if l.starts_with(".target ") {
                format!(".target {target}")
            } else {
                l.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

#[test]
fn older_targets_fall_back() {
    let program = verified("mem:global:load { @c[kernel] = count(); @s[kernel] = sum(addr); }");
    // sm_75: `activemask` but no `redux.sync`: the count combined, the per-lane sum not.
    let ptx = with_target("sm_75");
    let out = instrumented(&ptx, &program, "sm_75");
    assert!(out.contains("warp-combined count"));
    assert!(!out.contains("redux"), "redux.sync needs sm_80");
    if let Some(Err(e)) = assemble(&out, "sm_75", &[]) {
        panic!("ptxas -arch=sm_75 rejects it:\n{e}");
    }
    // sm_60 (ptxas 13 no longer assembles it): no `activemask` either.
    let out = instrumented(&with_target("sm_60"), &program, "sm_60");
    assert!(!out.contains("activemask"), "activemask needs sm_70");
    assert!(!out.contains("warp-combined"));
    // sm_90a: both.
    let out = instrumented(&with_target("sm_90a"), &program, "sm_90a");
    assert!(out.contains("warp-combined count") && out.contains("redux.sync.add.u32"));
}
