//! The GCN lowering of what goes beyond hash counters, on corpus kernels: `warp` probes
//! restrict map operations to the first active lane, gfx11 `kernel:exit` snippets run
//! before the VGPRs are released, builtins the hardware cannot give are `Unsupported`
//! (never a wrong value), and each snippet's shape for rings, arrays and histograms.
//! `gcn_matrix.rs` instruments, verifies and assembles them over the whole corpus.

use warptrace_codegen_gcn::{instrument, Instrumented, KernelOutcome, KernelStatus};
use warptrace_tests::gcn_corpus_file;

/// Instruments `file` with `src`: the module and `kernel`'s outcome.
fn instrumented_with(file: &str, src: &str, kernel: &str) -> (Instrumented, KernelOutcome) {
    let program = warptrace_lang::compile(src, "t.wt").expect("compiles");
    let program = warptrace_tests::programs::verified(&program);
    let out = instrument(&gcn_corpus_file(file), &program).expect("instruments");
    let k = out
        .kernels
        .iter()
        .find(|k| k.name == kernel)
        .expect("kernel")
        .clone();
    (out, k)
}

/// Instruments `file` with `src`; the status of `kernel` and the module text.
fn run(file: &str, src: &str, kernel: &str) -> (KernelStatus, String) {
    let (out, k) = instrumented_with(file, src, kernel);
    (k.status, out.asm)
}

/// The text of snippet `n` (from its marker to the `scc` restore that ends it).
fn snippet(asm: &str, n: u32) -> &str {
    let start = asm
        .find(&format!("; __wt_snippet {n}\n"))
        .expect("snippet marker");
    let end = start + asm[start..].find("s_cmp_lg_u32").expect("scc restore");
    &asm[start..end]
}

fn instrumented(status: &KernelStatus) -> bool {
    matches!(status, KernelStatus::Instrumented { .. })
}

#[test]
fn warp_probes_update_maps_from_the_first_active_lane_only() {
    let (status, asm) = run(
        "hip_kernels_gfx942.s",
        "warp kernel:entry:histogram { @n[kernel] = count(); }",
        "histogram",
    );
    assert!(instrumented(&status), "{status:?}");
    let s = snippet(&asm, 1);
    let ff1 = s.find("s_ff1_i32_b64").expect("the leader's lane");
    let and = s.find("s_and_b64 exec, exec, s[").expect("exec restricted");
    let cas = s.find("global_atomic_cmpswap_x2").expect("the update");
    assert!(ff1 < and && and < cas, "{s}");
    // A thread probe updates from every lane (with a key of its own: one the same in
    // every lane is combined, `uniform_updates_run_once_per_wave`).
    let (_, asm) = run(
        "hip_kernels_gfx942.s",
        "kernel:entry:histogram { @n[tid.x] = count(); }",
        "histogram",
    );
    assert!(!snippet(&asm, 1).contains("s_ff1"));
}

/// Keys a site knows (`[kernel]`, `[kernel, pc]`) fold into a constant tag whose home slot
/// is tried alone, with a load of its tag word before the compare-and-swap (decision
/// 0013); a per-lane key, or constant keys that share a home slot, probe eight slots.
#[test]
fn constant_keys_try_their_home_slot_alone() {
    let file = "hip_kernels_gfx942.s";
    let original = gcn_corpus_file(file);
    let count = |src: &str| {
        let (status, asm) = run(file, src, "histogram");
        assert!(instrumented(&status), "{status:?}");
        let sites = asm.matches("; __wt_snippet ").count();
        // The kernels' own compare-and-swaps and device-scope loads are not the probes'.
        let added = |what: &str| asm.matches(what).count() - original.matches(what).count();
        (sites, added("global_atomic_cmpswap_x2"), added(" sc1\n"))
    };
    let (sites, cas, loads) = count("mem:global:* { @n[kernel] = count(); }");
    assert!(sites > 1);
    assert_eq!((cas, loads), (sites, sites));
    // Each site's own `pc`: distinct constants, distinct home slots.
    let (sites, cas, _) = count("mem:global:* { @n[kernel, pc] = count(); }");
    assert_eq!(cas, sites);
    let (sites, cas, loads) = count("mem:global:* { @n[tid.x] = count(); }");
    assert_eq!((cas, loads), (8 * sites, 0));
    // One slot for every site's `pc`: they collide, and every update probes linearly.
    let (sites, cas, loads) = count("map @n: hash(keys = 1); mem:global:* { @n[pc] = count(); }");
    assert_eq!((cas, loads), (8 * sites, 0));
}

/// An update whose keys and operand are the same in every lane of the wave is done once,
/// by the lowest lane in `exec`, with the group's lane count (decision 0036): one
/// `s_ff1` (the leader) and one `s_bcnt1` (the count) per such update. A key or an
/// operand of the lane's own (`tid.x`, `addr`) keeps one update per lane.
#[test]
fn uniform_updates_run_once_per_wave() {
    let file = "hip_kernels_gfx942.s";
    let original = gcn_corpus_file(file);
    let groups = |src: &str| {
        let (status, asm) = run(file, src, "histogram");
        assert!(instrumented(&status), "{status:?}");
        let sites = asm.matches("; __wt_snippet ").count();
        let added = |what: &str| asm.matches(what).count() - original.matches(what).count();
        (sites, added("s_ff1_i32_b64"), added("s_bcnt1_i32_b64"))
    };
    let (sites, leaders, counts) = groups(
        "mem:global:* { @n[kernel] = count(); @b[kernel, pc] = sum(bytes); @h = hist(bytes); }",
    );
    assert!(sites > 1);
    assert_eq!((leaders, counts), (3 * sites, 3 * sites));
    let (_, leaders, counts) = groups("mem:global:* { @n[tid.x] = count(); }");
    assert_eq!((leaders, counts), (0, 0));
    let (_, leaders, counts) = groups("mem:global:* { @n[kernel] = sum(addr); }");
    assert_eq!((leaders, counts), (0, 0));
    // `warp` probes update once per wave already, by their own leader (one a site).
    let (sites, leaders, counts) = groups("warp mem:global:* { @n[kernel] = count(); }");
    assert_eq!((leaders, counts), (sites, 0));
}

/// A kernel whose maps all take home slots only spreads its blocks over copies of the
/// tables (decision 0019), and a program of rings over copies of its rings (0020): the
/// prologue offsets the map argument by `(ctaid.x & (n - 1)) * one copy's bytes`, and the
/// kernel says how many copies its buffer holds. A per-lane key keeps one copy.
#[test]
fn blocks_spread_their_updates_over_copies_of_the_buffer() {
    let file = "hip_kernels_gfx942.s";
    let copies = |src: &str| {
        let (out, k) = instrumented_with(file, src, "histogram");
        assert!(instrumented(&k.status), "{:?}", k.status);
        let prologue = snippet_zero(&out.asm);
        let offset = prologue.contains("s_addc_u32");
        assert_eq!(offset, k.copies > 1, "{prologue}");
        if offset {
            assert!(prologue.contains("s_mul_i32 s"), "{prologue}");
            assert!(
                prologue.contains(&format!("0x{:x}\n", out.layout.total_bytes)),
                "{prologue}"
            );
        }
        (k.copies, out.layout.clone())
    };
    let (n, _) = copies("map @n: hash(keys = 64); kernel:entry { @n[kernel] = count(); }");
    assert_eq!(n, warptrace_ir::placement::MAX_REPLICAS);
    let (n, _) = copies("kernel:entry { @n[tid.x] = count(); }");
    assert_eq!(n, 1);
    let (n, layout) = copies(
        "map @r: ring(capacity = 65536, overflow = drop); kernel:entry { @r = (thread, lane); }",
    );
    assert_eq!(n, warptrace_ir::placement::MAX_REPLICAS);
    assert_eq!(layout.regions[0].capacity, 65536 / n);
}

/// The prologue: from the kernel's entry to the first snippet's marker.
fn snippet_zero(asm: &str) -> &str {
    let end = asm.find("; __wt_snippet 1\n").expect("a snippet");
    let start = asm[..end]
        .rfind("s_load_dwordx2")
        .expect("the map argument's load");
    &asm[start..end]
}

#[test]
fn gfx11_exit_snippets_run_before_the_vgprs_are_released() {
    let (status, asm) = run(
        "hip_grid_gfx1100.s",
        "kernel:exit { @n[kernel] = count(); }",
        "volume_index",
    );
    assert!(instrumented(&status), "{status:?}");
    let s = asm.find("; __wt_snippet 1").expect("snippet");
    let dealloc = asm
        .find("s_sendmsg sendmsg(MSG_DEALLOC_VGPRS)")
        .expect("gfx11 releases VGPRs before s_endpgm");
    assert!(s < dealloc);
    let body = snippet(&asm, 1);
    assert!(
        body.contains("s_mov_b32 exec_lo, s"),
        "wave32 masks: {body}"
    );
    assert!(
        body.contains("s_waitcnt_vscnt null, 0x0"),
        "gfx11 stores: {body}"
    );
}

#[test]
fn values_the_hardware_cannot_give_are_unsupported() {
    for (file, src, kernel, why) in [
        (
            "hip_grid_gfx1100.s",
            "kernel:exit { @c = max(clock64); }",
            "volume_index",
            "no s_memtime",
        ),
        (
            "triton_matmul_gfx942.s",
            "kernel:entry { @n[nctaid.x] = count(); }",
            "matmul",
            "hidden grid arguments",
        ),
        (
            // A private segment without architected flat scratch: the wavefront offset
            // SGPR follows the workgroup ids, and enabling y would move it.
            "ocl_kernels_gfx90a.s",
            "kernel:entry { @b[block] = count(); }",
            "private_table",
            "enabling it would move the SGPR of its \
             `.amdhsa_system_sgpr_private_segment_wavefront_offset`",
        ),
    ] {
        let (status, _) = run(file, src, kernel);
        assert!(
            matches!(&status, KernelStatus::Unsupported { what } if what.contains(why)),
            "{file} `{src}`: {status:?}"
        );
    }
}

#[test]
fn after_probes_run_once_a_barrier_or_a_cross_lane_operation_is_done() {
    for (file, point, kernel, at) in [
        (
            "hip_kernels_gfx942.s",
            "sync:barrier",
            "block_sum",
            "s_barrier",
        ),
        (
            "triton_softmax_gfx942.s",
            "gcn:v_mov_b32_dpp",
            "softmax",
            "v_mov_b32_dpp",
        ),
    ] {
        let src = format!("after {point} {{ @n[kernel] = count(); }}");
        let (status, asm) = run(file, &src, kernel);
        assert!(instrumented(&status), "{file} `{src}`: {status:?}");
        // The snippet's marker is the line right after the instruction.
        let marker = asm.find("; __wt_snippet 1\n").expect("snippet");
        let before = asm[..marker].lines().next_back().expect("a line before");
        assert!(before.trim_start().starts_with(at), "{file}: `{before}`");
    }
    // A branch does not fall through to one next instruction.
    let (status, _) = run(
        "hip_kernels_gfx942.s",
        "after branch { @n[kernel] = count(); }",
        "histogram",
    );
    assert!(
        matches!(&status, KernelStatus::Unsupported { what }
            if what.contains("does not fall through")),
        "{status:?}"
    );
}

/// Targets whose hazards the snippets are not padded for (decision 0030) are left
/// unchanged, with the reason: gfx1010–gfx1013 and gfx11 in wave64 (the same RDNA3
/// kernel, its descriptor and target changed).
#[test]
fn targets_with_hazards_the_snippets_do_not_handle_are_unsupported() {
    let asm = gcn_corpus_file("hip_grid_gfx1100.s");
    let program =
        warptrace_lang::compile("kernel:exit { @n[kernel] = count(); }", "t.wt").expect("compiles");
    let program = warptrace_tests::programs::verified(&program);
    for (text, why) in [
        (
            asm.replace("gfx1100", "gfx1010"),
            "gfx1010: its hardware hazards",
        ),
        (
            asm.replace(".amdhsa_wavefront_size32 1", ".amdhsa_wavefront_size32 0"),
            "gfx1100 in wave64",
        ),
    ] {
        let out = instrument(&text, &program).expect("instruments");
        let k = out.kernels.first().expect("a kernel");
        assert!(
            matches!(&k.status, KernelStatus::Unsupported { what } if what.contains(why)),
            "{why}: {:?}",
            k.status
        );
    }
    // As it is (gfx1100, wave32), with its `s_waitcnt_depctr` first.
    let out = instrument(&asm, &program).expect("instruments");
    assert!(
        instrumented(&out.kernels[0].status),
        "{:?}",
        out.kernels[0].status
    );
    assert!(
        snippet(&out.asm, 1).contains("; __wt_snippet 1\n\ts_waitcnt_depctr 0x0fff\n"),
        "{}",
        snippet(&out.asm, 1)
    );
}

#[test]
fn rings_append_with_a_returning_cursor_add_and_write_seq_last() {
    let (status, asm) = run(
        "hip_kernels_gfx942.s",
        "map @r: ring(capacity = 1000, overflow = overwrite); kernel:entry:histogram { @r = (tid.x, lane); }",
        "histogram",
    );
    assert!(instrumented(&status), "{status:?}");
    let s = snippet(&asm, 1);
    let cursor = s
        .find("global_atomic_add_x2 v[")
        .expect("returning cursor add");
    assert!(s[cursor..]
        .lines()
        .next()
        .is_some_and(|l| l.ends_with(" sc0")));
    // Once per wave (decision 0036): the lowest lane adds the lanes' count, each lane's
    // n is its result plus the lane's rank in `exec`.
    let count = s.find("s_bcnt1_i32_b64").expect("the lanes' count");
    let leader = s.find("s_and_b64 exec, exec, s[").expect("the leader");
    let first = s.find("v_readfirstlane_b32").expect("the leader's n");
    let rank = s.find(", exec_hi, ").expect("the rank");
    assert!(
        count < leader && leader < cursor && cursor < first && first < rank,
        "{s}"
    );
    assert_eq!(s.matches("global_atomic_add_x2 v[").count(), 1, "{s}");
    // 1000 is no power of two: the slot is n mod 1000 by multiplication.
    assert!(s.contains("v_mul_hi_u32"), "{s}");
    let fields: Vec<usize> = s.match_indices("offset:8\n").map(|(i, _)| i).collect();
    let release = s.find("buffer_wbl2 sc1").expect("gfx942 release");
    let seq = s.rfind(" sc1\n").expect("seq store");
    assert!(fields.iter().all(|&f| f < release) && release < seq, "{s}");
}

#[test]
fn arrays_and_block_builtins_use_the_hidden_grid_arguments() {
    let (status, asm) = run(
        "hip_grid_gfx942.s",
        "map @a: array(per = warp, slots = 1); warp kernel:exit { @a = (block, thread); }",
        "volume_index",
    );
    assert!(instrumented(&status), "{status:?}");
    // The prologue loads hidden_block_count_x/y/z (0x10, 0x14, 0x18) and the dwords of
    // the 16-bit group sizes (x and y at 0x1c, z at 0x20) from the kernarg pointer.
    for offset in ["0x10", "0x14", "0x18", "0x1c", "0x20"] {
        assert!(
            asm.lines()
                .any(|l| l.trim_start().starts_with("s_load_dword ")
                    && l.ends_with(&format!(", {offset}"))),
            "no load of {offset}"
        );
    }
    let s = snippet(&asm, 1);
    assert!(s.contains("v_bfe_u32"), "16-bit group sizes: {s}");
    assert!(s.contains("s_cbranch_execz"), "{s}");
}

#[test]
fn hist_buckets_come_from_the_leading_zero_count() {
    let (status, asm) = run(
        "hip_kernels_gfx90a.s",
        "kernel:entry:histogram { @h = hist((u64)tid.x); @l = lhist((i64)tid.x, 0, 100, 10); }",
        "histogram",
    );
    assert!(instrumented(&status), "{status:?}");
    let s = snippet(&asm, 1);
    assert_eq!(s.matches("v_ffbh_u32_e32").count(), 2, "{s}");
    // lhist(0, 100, 10): a division by 10 by multiplication, then the bounds.
    assert!(
        s.contains("v_cmp_ge_i64_e64") && s.contains("v_cmp_lt_i64_e64"),
        "{s}"
    );
}

/// Kernarg preloading's compatibility code (Triton's first 256 bytes: `s_load`s of the
/// preloaded arguments and an `s_branch` to the real entry, which hardware that preloads
/// starts at) runs before the prologue loads the map argument, where it runs at all: none
/// of its instructions is a site. `gcn:s_load*` finds none in Triton's `vector_add` (its
/// only `s_load`s are there), and `line:` over the whole file instruments without the
/// verifier rejecting a snippet that would read the map buffer before its base is loaded.
#[test]
fn kernarg_preloading_compatibility_code_has_no_sites() {
    let (status, _) = run(
        "triton_vector_add_gfx942.s",
        "gcn:s_load* { @n = count(); }",
        "vector_add",
    );
    assert!(matches!(status, KernelStatus::NoSites), "{status:?}");
    let (status, asm) = run(
        "triton_vector_add_gfx942.s",
        "line:triton_kernels.py:1-1000 { @l[line] = count(); }",
        "vector_add",
    );
    assert!(
        matches!(status, KernelStatus::Instrumented { sites } if sites > 0),
        "{status:?}"
    );
    // The first snippet follows the real entry's label.
    let entry = asm.find("\n.LBB0_0:\n").expect("the real entry");
    let first = asm.find("; __wt_snippet 1\n").expect("a snippet");
    assert!(entry < first, "a snippet in the compatibility code");
}

/// Source-line regions on corpus kernels: inside `histogram`'s masked loop (one iteration:
/// the exit before the latch's `s_andn2 exec`), around it and its guard's `if` (the exit
/// after the join's `s_or exec`, decision 0028), around `block_sum`'s uniform loop (laid
/// out after the kernel's `s_endpgm`, an `if` in its body), around `if_else`'s `if`/`else`
/// and each of its parts, around `block_sum`'s last `if` and `many_exits`' early return
/// (`if`s that run to `s_endpgm`: the lanes they leave out leave as they open), around
/// `atomic_ticket`'s `if (v > 0.0f)` (inside its early return, it narrows `exec` without
/// saving it: the lanes it leaves out leave right before), and around and inside Triton
/// matmul's uniform K loop, each end placed, verified and (with the LLVM tools)
/// assembled. Where the lanes at an end are some of those that entered — an exit at
/// `many_exits`' `if (i >= n) return;`, which clang lowers to an `if` that rejoins,
/// `atomic_ticket`'s compare-and-swap loop, whose latch narrows `exec` and falls through
/// to its header — the kernel is `Unsupported`, with the reason.
#[test]
fn source_line_regions_are_placed_where_their_lanes_are_known() {
    let tools = ["llvm-mc", "ld.lld"]
        .iter()
        .all(|t| warptrace_codegen_gcn::llvm_tool(t).is_some());
    assert!(
        tools || std::env::var("CI").map_or(true, |v| v != "true"),
        "llvm-mc / ld.lld not found (CI=true); install llvm-19 and lld-19"
    );
    let region = |file: &str, lines: &str| {
        format!(
            "region:entry:{file}:{lines} {{ @en[lane] = count(); }} \
             region:exit:{file}:{lines} {{ @ex[lane] = count(); }}"
        )
    };
    for (file, kernel, src_file, lines) in [
        (
            "hip_kernels_gfx942.s",
            "histogram",
            "gcn_kernels.hip",
            "19-19",
        ),
        (
            "hip_kernels_gfx942.s",
            "histogram",
            "gcn_kernels.hip",
            "18-19",
        ),
        (
            "hip_kernels_gfx942.s",
            "histogram",
            "gcn_kernels.hip",
            "14-22",
        ),
        (
            "hip_kernels_gfx942.s",
            "block_sum",
            "gcn_kernels.hip",
            "30-33",
        ),
        (
            "hip_kernels_gfx942.s",
            "if_else",
            "gcn_kernels.hip",
            "102-106",
        ),
        (
            "hip_kernels_gfx942.s",
            "if_else",
            "gcn_kernels.hip",
            "103-105",
        ),
        (
            "hip_kernels_gfx942.s",
            "if_else",
            "gcn_kernels.hip",
            "105-105",
        ),
        (
            "hip_kernels_gfx90a.s",
            "if_else",
            "gcn_kernels.hip",
            "103-103",
        ),
        (
            "hip_kernels_gfx942.s",
            "block_sum",
            "gcn_kernels.hip",
            "34-34",
        ),
        (
            "hip_kernels_gfx942.s",
            "many_exits",
            "gcn_kernels.hip",
            "43-43",
        ),
        (
            "hip_kernels_gfx942.s",
            "atomic_ticket",
            "gcn_kernels.hip",
            "75-75",
        ),
        (
            "hip_kernels_gfx90a.s",
            "atomic_ticket",
            "gcn_kernels.hip",
            "72-75",
        ),
        (
            "triton_matmul_gfx942.s",
            "matmul",
            "triton_kernels.py",
            "38-41",
        ),
        (
            "triton_matmul_gfx942.s",
            "matmul",
            "triton_kernels.py",
            "27-45",
        ),
    ] {
        let (status, asm) = run(file, &region(src_file, lines), kernel);
        eprintln!("{kernel} {lines}: {status:?}");
        assert!(
            matches!(status, KernelStatus::Instrumented { sites } if sites >= 2),
            "{kernel} {lines}: {status:?}"
        );
        if lines == "19-19" {
            // The exit goes before the latch's `s_andn2 exec, exec, X`.
            let exit = asm.rfind("; __wt_snippet").expect("a snippet");
            let andn2 = asm[exit..].find("s_andn2_b64 exec, exec, ");
            assert!(andn2.is_some(), "the exit before the latch");
        }
        if lines == "18-19" {
            // The exit goes after the join that gives the guard's lanes back.
            let exit = asm.rfind("; __wt_snippet").expect("a snippet");
            let join = asm[..exit].rfind("s_or_b64 exec, exec, s[2:3]");
            assert!(
                join.is_some_and(|j| !asm[j..exit].contains("s_cbranch")),
                "the exit after the join"
            );
        }
        if ["34-34", "43-43"].contains(&lines) {
            // An `if` that runs to `s_endpgm`: the lanes it leaves out leave the region
            // right after it opens, `exec` narrowed to them (its saved mask less `exec`).
            let left_out = asm
                .lines()
                .map(str::trim)
                .any(|l| l.starts_with("s_andn2_b64 exec, s[") && l.ends_with("], exec"));
            assert!(
                left_out,
                "{kernel} {lines}: no exit for the lanes the early return leaves out"
            );
        }
        if kernel == "atomic_ticket" {
            // Its `if` narrows `exec` to `exec & vcc`: the lanes it leaves out leave the
            // region right before, `exec` narrowed to `exec & ~vcc`.
            let body = &asm[asm.find("\natomic_ticket:").expect("the kernel")..];
            let left_out = body.find("\ts_andn2_b64 exec, exec, vcc\n");
            let narrows = body.find("\ts_and_b64 exec, exec, vcc\n");
            assert!(
                left_out.zip(narrows).is_some_and(|(l, n)| l < n),
                "{kernel} {lines}: no exit for the lanes the `if` leaves out"
            );
        }
        if tools {
            let arch = if file.contains("gfx90a") {
                "gfx90a"
            } else {
                "gfx942"
            };
            let assembled = warptrace_codegen_gcn::assemble(&asm, arch);
            assert!(assembled.is_ok(), "{kernel} {lines}: {:?}", assembled.err());
        }
    }
    for (kernel, lines, why) in [
        (
            "many_exits",
            "50-50",
            [
                "its exit at `s_cbranch_execz .LBB2_15`",
                "is inside the `if` that `s_and_saveexec_b64 s[2:3], s[0:1]` (line 413) opens",
            ],
        ),
        (
            "atomic_ticket",
            "70-70",
            [
                "the lanes change between its entry and its exits",
                "`s_andn2_b64 exec, exec, s[0:1]`",
            ],
        ),
    ] {
        let (status, _) = run(
            "hip_kernels_gfx942.s",
            &region("gcn_kernels.hip", lines),
            kernel,
        );
        assert!(
            matches!(&status, KernelStatus::Unsupported { what }
                if why.iter().all(|w| what.contains(w))),
            "{kernel} {lines}: {status:?}"
        );
    }
}

/// The map argument an instrumented kernel reports is the one its metadata declares:
/// `__wt_maps` at that offset of the kernarg segment, after the original's explicit
/// arguments (the HIP runtime passes the buffer there without parsing the module).
#[test]
fn the_map_argument_reported_is_the_one_the_metadata_declares() {
    let program =
        warptrace_lang::compile("mem:*:* { @n[kernel] = count(); }", "t.wt").expect("compiles");
    let program = warptrace_tests::programs::verified(&program);
    let mut checked = 0;
    for (file, asm) in warptrace_tests::gcn_corpus() {
        let out = instrument(&asm, &program).expect("instruments");
        let (before, after) = (
            warptrace_codegen_gcn::parse(&asm).expect("parses"),
            warptrace_codegen_gcn::parse(&out.asm).expect("parses"),
        );
        for k in &out.kernels {
            let Some(a) = k.map_arg else {
                assert!(
                    !instrumented(&k.status),
                    "{file}: {}: no map argument",
                    k.name
                );
                continue;
            };
            assert!(instrumented(&k.status), "{file}: {}", k.name);
            let meta = |m: &warptrace_codegen_gcn::Module| {
                m.metadata.as_ref().and_then(|d| d.kernel(&k.name)).cloned()
            };
            let (old, new) = (
                meta(&before).expect("metadata"),
                meta(&after).expect("metadata"),
            );
            let explicit = old.args.iter().filter(|x| !x.is_hidden()).count() as u32;
            assert_eq!(a.explicit, explicit, "{file}: {}", k.name);
            let map = new.args.last().expect("the map argument");
            assert_eq!(map.value_kind(), "global_buffer", "{file}: {}", k.name);
            assert_eq!(map.offset(), Some(a.offset), "{file}: {}", k.name);
            assert_eq!(
                new.int(".kernarg_segment_size"),
                Some(a.offset + 8),
                "{file}: {}",
                k.name
            );
            checked += 1;
        }
    }
    assert!(checked >= 10, "only {checked} kernels instrumented");
}
