//! The kernel-level verifier on instrumented GCN kernels: an instrumented corpus kernel
//! verifies, and mutations of its snippets that break a rule are rejected with that rule
//! — a snippet that does not restore `scc`/`exec`/`vcc`, writes a kernel SGPR, stores
//! through a kernel address instead of the map argument, touches LDS, or branches into
//! kernel code.

use warptrace_codegen_gcn::{instrument, verify_spliced, KernelStatus};
use warptrace_tests::gcn_corpus_file;
use warptrace_verifier::KernelRule;

/// `histogram` of the gfx942 HIP file instrumented with a global-access counter (its
/// addition clobbers `vcc`, the map update `scc` and `exec`).
fn instrumented() -> (String, String) {
    let asm = gcn_corpus_file("hip_kernels_gfx942.s");
    let src = "mem:global:*:histogram { @n[kernel] = sum(bytes + ctaid.x); }";
    let program = warptrace_lang::compile(src, "t.wt").expect("compiles");
    let program = warptrace_tests::programs::verified(&program);
    let out = instrument(&asm, &program).expect("instruments");
    let k = out
        .kernels
        .iter()
        .find(|k| k.name == "histogram")
        .expect("kernel");
    assert!(
        matches!(k.status, KernelStatus::Instrumented { sites: 2 }),
        "{:?}",
        k.status
    );
    (asm, out.asm)
}

/// The rules the verifier reports for `mutated`.
fn rules(original: &str, mutated: &str) -> Vec<KernelRule> {
    match verify_spliced(original, mutated, "histogram").expect("parses") {
        Ok(()) => Vec::new(),
        Err(e) => e.0.iter().map(|v| v.rule).collect(),
    }
}

/// `text` with the first line containing `needle` (after the first snippet marker)
/// replaced by `with`.
fn mutate(text: &str, needle: &str, with: &str) -> String {
    let start = text.find("; __wt_snippet 1").expect("a snippet");
    mutate_from(text, start, needle, with)
}

/// `text` with the first line from byte `from` on containing `needle` replaced by `with`.
fn mutate_from(text: &str, from: usize, needle: &str, with: &str) -> String {
    let at = from + text[from..].find(needle).expect("needle in a snippet");
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line_end = at + text[at..].find('\n').expect("line end");
    format!("{}{with}{}", &text[..line_start], &text[line_end..])
}

#[test]
fn the_instrumented_kernel_verifies_standalone() {
    let (asm, out) = instrumented();
    assert_eq!(rules(&asm, &out), Vec::<KernelRule>::new());
}

#[test]
fn a_snippet_that_does_not_restore_scc_exec_or_vcc_is_rejected() {
    let (asm, out) = instrumented();
    for restore in ["s_cmp_lg_u32", "s_mov_b64 exec,", "s_mov_b64 vcc,"] {
        // The last restore of snippet 1: drop it.
        let start = out.find("; __wt_snippet 2").expect("snippet 2");
        let at = out[..start].rfind(restore).expect("restore");
        let line_start = out[..at].rfind('\n').map_or(0, |i| i + 1);
        let line_end = at + out[at..].find('\n').expect("line end");
        let mutated = format!("{}{}", &out[..line_start], &out[line_end + 1..]);
        let r = rules(&asm, &mutated);
        assert!(
            r.contains(&KernelRule::RegisterIsolation),
            "{restore}: {r:?}"
        );
    }
}

#[test]
fn a_snippet_that_writes_a_kernel_register_is_rejected() {
    let (asm, out) = instrumented();
    let mutated = mutate(&out, "s_mov_b64 s[", "\ts_mov_b32 s4, 0");
    assert!(rules(&asm, &mutated).contains(&KernelRule::RegisterIsolation));
    // `m0` (an LDS access's bound, a `global_load_lds`' address) is the kernel's too:
    // a snippet that writes it and does not restore it is rejected.
    let start = out.find("; __wt_snippet 1").expect("a snippet");
    let at = start + out[start..].find("s_mov_b64 s[").expect("a save");
    let line = &out[at..at + out[at..].find('\n').expect("line end")];
    let m0 = mutate(&out, line, &format!("\t{line}\n\ts_mov_b32 m0, 0"));
    let r = rules(&asm, &m0);
    assert!(r.contains(&KernelRule::RegisterIsolation), "{r:?}");
}

#[test]
fn a_store_through_a_kernel_address_is_rejected() {
    let (asm, out) = instrumented();
    // The histogram's own `bins` pointer is in s[10:11].
    let start = out.find("; __wt_snippet 1").expect("snippet");
    let at = start + out[start..].find("global_atomic_add_x2").expect("atomic");
    let line_end = at + out[at..].find('\n').expect("eol");
    let line = &out[at..line_end];
    let base = line
        .split(", ")
        .nth(2)
        .expect("saddr")
        .split(' ')
        .next()
        .expect("reg");
    let mutated = format!(
        "{}{}{}",
        &out[..at],
        line.replace(base, "s[10:11]"),
        &out[line_end..]
    );
    assert!(rules(&asm, &mutated).contains(&KernelRule::MemorySafety));
}

#[test]
fn an_lds_access_and_a_branch_into_the_kernel_are_rejected() {
    let (asm, out) = instrumented();
    let lds = mutate(&out, "s_mov_b64 s[", "\tds_write_b32 v0, v1");
    assert!(rules(&asm, &lds).contains(&KernelRule::SharedMemory));
    let jump = mutate(&out, "s_mov_b64 s[", "\ts_branch .LBB0_3");
    assert!(rules(&asm, &jump).contains(&KernelRule::ControlFlow));
}

/// The prologue of `histogram` instrumented with the grid builtins: it loads the hidden
/// `hidden_block_count_x` (kernarg 0x18) and `hidden_group_size_x` (0x24) dwords, which
/// the verifier admits; the same load of an explicit argument (the `in` pointer at 0x0,
/// or the dword of `n` at 0x10) is a `MemorySafety` violation.
#[test]
fn hidden_grid_arguments_may_be_loaded_and_no_other_kernel_argument() {
    let asm = gcn_corpus_file("hip_kernels_gfx942.s");
    let src = "kernel:entry:histogram { @g[ntid.x, nctaid.x] = count(); }";
    let program = warptrace_lang::compile(src, "t.wt").expect("compiles");
    let program = warptrace_tests::programs::verified(&program);
    let out = instrument(&asm, &program).expect("instruments");
    let k = out
        .kernels
        .iter()
        .find(|k| k.name == "histogram")
        .expect("kernel");
    assert!(
        matches!(k.status, KernelStatus::Instrumented { sites: 1 }),
        "{:?}",
        k.status
    );
    let out = out.asm;
    assert_eq!(rules(&asm, &out), Vec::<KernelRule>::new());
    let load = out
        .lines()
        .find(|l| l.trim_start().starts_with("s_load_dword ") && l.ends_with(", 0x18"))
        .expect("the prologue loads hidden_block_count_x");
    for offset in ["0x0", "0x10"] {
        let other = load.replace(", 0x18", &format!(", {offset}"));
        let mutated = out.replacen(load, &other, 1);
        assert!(
            rules(&asm, &mutated).contains(&KernelRule::MemorySafety),
            "a load at {offset}"
        );
    }
}

/// A waterfall (the warp-wide values' rounds, `warp_access.rs`) is the one backward branch
/// a snippet may have, and only in its exact shape: each change below makes a loop that
/// may not end (or that the shape no longer proves ends), and the back edge is rejected
/// as `ControlFlow`.
#[test]
fn only_a_waterfall_of_the_exact_shape_may_branch_backwards() {
    let asm = gcn_corpus_file("hip_kernels_gfx942.s");
    let src = "mem:global:*:histogram { @s[sectors] = count(); }";
    let program = warptrace_lang::compile(src, "t.wt").expect("compiles");
    let program = warptrace_tests::programs::verified(&program);
    let out = instrument(&asm, &program).expect("instruments").asm;
    assert_eq!(rules(&asm, &out), Vec::<KernelRule>::new());
    assert!(out.contains("s_cbranch_execnz .L__wt_"), "a waterfall");
    // The line of the round's `s_mov_b64 P, exec` and `s_andn2_b64 exec, P, M`.
    let start = out.find("; __wt_snippet 1").expect("a snippet");
    let line = |needle: &str| {
        let at = start + out[start..].find(needle).expect(needle);
        let end = at + out[at..].find('\n').expect("line end");
        out[at..end].to_owned()
    };
    let andn2 = line("s_andn2_b64 exec, ");
    let ops: Vec<&str> = andn2["s_andn2_b64 exec, ".len()..].split(", ").collect();
    let (p, m) = (ops[0], ops[1]);
    for (what, needle, with) in [
        // The lanes of the key compared by `ne`: the first lane is not removed.
        (
            "a compare other than eq",
            "v_cmp_eq_u64_e64",
            "\tv_cmp_ne_u64_e64 ".to_owned()
                + &line("v_cmp_eq_u64_e64")["v_cmp_eq_u64_e64 ".len()..],
        ),
        // The next round's lanes from `exec` as the round left it, not the saved ones.
        (
            "exec from the round",
            "s_andn2_b64 exec, ",
            format!("\ts_andn2_b64 exec, exec, {m}"),
        ),
        // The round overwrites the saved lanes.
        (
            "the saved lanes rewritten",
            "s_add_u32",
            format!("\ts_mov_b64 {p}, -1"),
        ),
    ] {
        let mutated = mutate(&out, needle, &with);
        assert_ne!(mutated, out, "{what}");
        let got = rules(&asm, &mutated);
        assert!(got.contains(&KernelRule::ControlFlow), "{what}: {got:?}");
    }
}

/// A division's counted loop (`alu.rs`: a count set to an immediate of 1 to 64 before the
/// label, decremented once a round and written nowhere else) is the other backward branch
/// a snippet may have; each change below makes a loop the shape no longer proves ends,
/// and the back edge is rejected as `ControlFlow`.
#[test]
fn only_a_counted_loop_of_the_exact_shape_may_branch_backwards() {
    let asm = gcn_corpus_file("hip_kernels_gfx942.s");
    let src = "mem:global:*:histogram { @q[kernel] = sum(bytes / 3); }";
    let program = warptrace_lang::compile(src, "t.wt").expect("compiles");
    let program = warptrace_tests::programs::verified(&program);
    let out = instrument(&asm, &program).expect("instruments").asm;
    assert_eq!(rules(&asm, &out), Vec::<KernelRule>::new());
    // The count: the `s_mov_b32 sC, 64` before the loop's label.
    let start = out.find("; __wt_snippet 1").expect("a snippet");
    let label = start + out[start..].find("_div:\n").expect("a division loop");
    let line_start = out[..label].rfind('\n').expect("a line");
    let prev = out[..line_start].rfind('\n').expect("the count") + 1;
    let count_line = &out[prev..line_start];
    let count = count_line
        .trim()
        .strip_prefix("s_mov_b32 ")
        .and_then(|t| t.strip_suffix(", 64"))
        .unwrap_or_else(|| panic!("the count: {count_line}"));
    for (what, from, needle, with) in [
        (
            "no rounds (2^32 of them)",
            prev,
            "s_mov_b32",
            format!("\ts_mov_b32 {count}, 0"),
        ),
        (
            "more than 64 rounds",
            prev,
            "s_mov_b32",
            format!("\ts_mov_b32 {count}, 65"),
        ),
        (
            "a count from a register",
            prev,
            "s_mov_b32",
            format!("\ts_mov_b32 {count}, s0"),
        ),
        (
            "a decrement of two",
            label,
            "s_sub_u32",
            format!("\ts_sub_u32 {count}, {count}, 2"),
        ),
        (
            "the count written in a round",
            label,
            "v_lshlrev_b64",
            format!("\ts_add_u32 {count}, {count}, 1"),
        ),
        (
            "another exit test",
            label,
            "s_cmp_lg_u32",
            format!("\ts_cmp_lg_u32 {count}, 1"),
        ),
    ] {
        let mutated = mutate_from(&out, from, needle, &with);
        assert_ne!(mutated, out, "{what}");
        let got = rules(&asm, &mutated);
        assert!(got.contains(&KernelRule::ControlFlow), "{what}: {got:?}");
    }
}

/// A workgroup id the kernel does not enable is enabled for the probe, after the SGPRs
/// the launch initialized for the kernel; any change that moves one of those is rejected
/// (`RegisterIsolation`: the kernel would start with another value in that register).
#[test]
fn enabling_a_workgroup_id_may_not_move_the_kernel_s_initial_registers() {
    let asm = gcn_corpus_file("hip_kernels_gfx942.s");
    let program = warptrace_lang::compile("kernel:entry { @b[ctaid.y] = count(); }", "t.wt")
        .expect("compiles");
    let program = warptrace_tests::programs::verified(&program);
    let out = instrument(&asm, &program).expect("instruments").asm;
    assert_eq!(rules(&asm, &out), Vec::<KernelRule>::new());
    // `histogram` enables only x; the instrumented descriptor enables y after it.
    let start = out.find("\t.amdhsa_kernel histogram").expect("descriptor");
    let end = start + out[start..].find(".end_amdhsa_kernel").expect("end");
    let descriptor = &out[start..end];
    assert!(
        descriptor.contains(".amdhsa_system_sgpr_workgroup_id_y 1"),
        "{descriptor}"
    );
    let edit = |from: &str, to: &str| {
        let at = start + out[start..end].find(from).expect(from);
        format!("{}{to}{}", &out[..at], &out[at + from.len()..])
    };
    // x dropped: y takes its SGPR.
    let moved = edit(
        ".amdhsa_system_sgpr_workgroup_id_x 1",
        ".amdhsa_system_sgpr_workgroup_id_x 0",
    );
    assert!(rules(&asm, &moved).contains(&KernelRule::RegisterIsolation));
    // The workgroup info enabled as well comes after y: allowed (it moves nothing of
    // the kernel's); had the original kernel enabled it, y would have moved it.
    let appended = edit(
        ".amdhsa_system_sgpr_workgroup_info 0",
        ".amdhsa_system_sgpr_workgroup_info 1",
    );
    assert_eq!(rules(&asm, &appended), Vec::<KernelRule>::new());
    let original_with_info = asm.replacen(
        ".amdhsa_system_sgpr_workgroup_info 0",
        ".amdhsa_system_sgpr_workgroup_info 1",
        1,
    );
    assert!(rules(&original_with_info, &out).contains(&KernelRule::RegisterIsolation));
}
