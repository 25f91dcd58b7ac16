//! Instruments every corpus kernel with the skeleton program and its variants, checks the
//! kernel outcomes and site counts, and assembles the result with the real `ptxas`.

use warptrace_codegen_ptx::{instrument, parse, Instrumented, KernelStatus, MAP_PARAM};
use warptrace_ir::{AttachPoint, MemOp};
use warptrace_tests::{assemble, corpus_archs, corpus_file, programs, retarget};

/// Sites per kernel of one program variant: (kernel, expected snippets).
type Expect = &'static [(&'static str, u32)];

fn check(file: &str, point: AttachPoint, op: MemOp, expect: Expect) -> Instrumented {
    let ptx = corpus_file(file);
    let program = programs::verified(&programs::skeleton_with(point.clone(), op));
    let out = instrument(&ptx, &program).unwrap_or_else(|e| panic!("{file}: {e}"));
    let got: Vec<(String, u32)> = out
        .kernels
        .iter()
        .map(|k| match &k.status {
            KernelStatus::Instrumented { sites } => (k.name.clone(), *sites),
            KernelStatus::NoSites => (k.name.clone(), 0),
            KernelStatus::Rejected(e) => panic!("{file}: {} rejected:\n{e}", k.name),
            KernelStatus::Unsupported { what } => panic!("{file}: {}: {what}", k.name),
            s @ KernelStatus::OverBudget { .. } => {
                panic!(
                    "{file}: {}: {}",
                    k.name,
                    s.over_budget().unwrap_or_default()
                )
            }
        })
        .collect();
    let want: Vec<(String, u32)> = expect.iter().map(|(n, s)| (n.to_string(), *s)).collect();
    assert_eq!(got, want, "{file} with {point:?} / mem:global:{op:?}");
    // The instrumented module parses back, and each instrumented kernel has the map
    // parameter last.
    let m = parse(&out.ptx).expect("instrumented PTX parses");
    for k in &out.kernels {
        let f = m.kernel(&k.name).expect("kernel still there");
        assert_eq!(f.params.len() as u32, k.params + 1);
        let last = m.param_text(f, f.params.len() - 1).expect("param");
        assert!(last.ends_with(MAP_PARAM), "{last}");
    }
    for arch in corpus_archs(file) {
        match assemble(&retarget(&out.ptx, arch), arch, &[]) {
            None => {}
            Some(Ok(_)) => {}
            Some(Err(e)) => panic!("ptxas -arch={arch} rejects instrumented {file}:\n{e}"),
        }
    }
    out
}

const ENTRY: AttachPoint = AttachPoint::KernelEntry;
const EXIT: AttachPoint = AttachPoint::KernelExit;

#[test]
fn vector_add() {
    let f = "triton_vector_add.ptx";
    let out = check(f, ENTRY, MemOp::Load, &[("vector_add", 1 + 4)]);
    assert_eq!(out.kernels[0].params, 6);
    check(f, EXIT, MemOp::Load, &[("vector_add", 1 + 4)]);
    check(f, ENTRY, MemOp::Any, &[("vector_add", 1 + 6)]);
    check(f, EXIT, MemOp::Store, &[("vector_add", 1 + 2)]);
}

#[test]
fn matmul() {
    let f = "triton_matmul.ptx";
    check(f, ENTRY, MemOp::Load, &[("matmul", 1 + 32)]);
    check(f, EXIT, MemOp::Any, &[("matmul", 1 + 64)]);
}

#[test]
fn nvcc_kernels() {
    let f = "nvcc_app.ptx";
    check(
        f,
        ENTRY,
        MemOp::Load,
        &[
            ("_Z9block_sumPKfPfi", 1 + 1),
            ("_Z9scale_addPKfPffi", 1 + 2),
        ],
    );
    // block_sum has two exits: an `exit;` in inline asm and the final `ret;`.
    check(
        f,
        EXIT,
        MemOp::Load,
        &[
            ("_Z9block_sumPKfPfi", 2 + 1),
            ("_Z9scale_addPKfPffi", 1 + 2),
        ],
    );
    check(
        f,
        EXIT,
        MemOp::Any,
        &[
            ("_Z9block_sumPKfPfi", 2 + 2),
            ("_Z9scale_addPKfPffi", 1 + 3),
        ],
    );
}

#[test]
fn kernels_without_sites_are_byte_identical() {
    let ptx = corpus_file("nvcc_app.ptx");
    let mut program = programs::skeleton();
    for p in &mut program.probes {
        p.attach.kernel_glob = Some("_Z9scale*".into());
    }
    let out = instrument(&ptx, &programs::verified(&program)).expect("instruments");
    assert!(matches!(out.kernels[0].status, KernelStatus::NoSites));
    assert!(matches!(
        out.kernels[1].status,
        KernelStatus::Instrumented { sites: 3 }
    ));
    let before = parse(&ptx).expect("parses");
    let after = parse(&out.ptx).expect("parses");
    let text = |m: &warptrace_codegen_ptx::Module| {
        let f = m.kernel("_Z9block_sumPKfPfi").expect("kernel");
        m.source()[f.span.clone()].to_owned()
    };
    assert_eq!(text(&before), text(&after));
    // A program matching nothing leaves the whole module unchanged.
    for p in &mut program.probes {
        p.attach.kernel_glob = Some("nothing?".into());
    }
    let out = instrument(&ptx, &programs::verified(&program)).expect("instruments");
    assert_eq!(out.ptx, ptx);
}

#[test]
fn predicated_sites_are_skipped_when_the_guard_is_false() {
    let out = check(
        "triton_vector_add.ptx",
        ENTRY,
        MemOp::Load,
        &[("vector_add", 5)],
    );
    // Each of the four loads is guarded by %p1 or %p2; its snippet starts by branching
    // over itself on the inverted guard.
    let skips = out
        .ptx
        .lines()
        .filter(|l| {
            l.trim_start().starts_with("@!%p1 bra $__wt_")
                || l.trim_start().starts_with("@!%p2 bra $__wt_")
        })
        .count();
    assert_eq!(skips, 4);
}

#[test]
fn every_ir_operation_assembles() {
    let ptx = corpus_file("triton_vector_add.ptx");
    let out = instrument(&ptx, &programs::verified(&programs::every_op())).expect("instruments");
    assert!(matches!(
        out.kernels[0].status,
        KernelStatus::Instrumented { sites: 6 }
    ));
    for arch in ["sm_90a", "sm_80"] {
        let ptx = out
            .ptx
            .replace(".target sm_90a", &format!(".target {arch}"));
        if let Some(Err(e)) = assemble(&ptx, arch, &[]) {
            panic!("ptxas -arch={arch}:\n{e}");
        }
    }
}

#[test]
fn snapshot_vector_add_skeleton() {
    let ptx = corpus_file("triton_vector_add.ptx");
    let out = instrument(&ptx, &programs::verified(&programs::skeleton())).expect("instruments");
    // Only the kernel (the DWARF sections after it are unchanged).
    let m = parse(&out.ptx).expect("parses");
    let f = m.kernel("vector_add").expect("kernel");
    insta::assert_snapshot!(&out.ptx[..f.span.end]);
}

#[test]
fn unsupported_operations_leave_the_kernel_unmodified() {
    use warptrace_ir::{Isa, Position};
    let ptx = corpus_file("triton_vector_add.ptx");
    // `after` a `ret`: nothing runs after it.
    let ret = AttachPoint::Opcode {
        isa: Isa::Ptx,
        glob: "ret".into(),
    };
    let mut program = programs::skeleton_with(ret, MemOp::Load);
    program.probes[0].attach.position = Position::After;
    let out = instrument(&ptx, &programs::verified(&program)).expect("fails open");
    match &out.kernels[0].status {
        KernelStatus::Unsupported { what } => {
            assert!(what.contains("does not fall through"), "{what}")
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(out.ptx, ptx);
}

#[test]
fn list_sites_names_each_instruction_a_probe_attaches_to() {
    use warptrace_codegen_ptx::list_sites;
    let ptx = corpus_file("triton_vector_add.ptx");
    let sites = list_sites(&ptx, &programs::skeleton()).expect("lists");
    // Probe 0 (kernel:entry) once, probe 1 (mem:global:load) at the 4 predicated loads.
    let entry: Vec<_> = sites.iter().filter(|s| s.probe == 0).collect();
    assert_eq!(entry.len(), 1);
    assert_eq!(entry[0].text, "<entry>");
    let loads: Vec<_> = sites.iter().filter(|s| s.probe == 1).collect();
    assert_eq!(loads.len(), 4);
    for s in &loads {
        assert_eq!(s.kernel, "vector_add");
        assert!(s.text.contains("ld.global"), "{}", s.text);
        let line = ptx.lines().nth(s.line as usize - 1).expect("line exists");
        assert!(line.contains(s.text.trim_end_matches(';')), "{line}");
    }
}

#[test]
fn loop_points_report_their_headers_pc_and_line() {
    use warptrace_ir::MapLayout;
    // block_sum's reduction loop: its header `$L__BB0_4` starts at source line 28. Every
    // point of the loop keys its update by the header's first instruction, as the first
    // `line:` site of line 28 (that same instruction) does.
    let src = "loop:header { @h[pc, line] = count(); } loop:backedge { @b[pc, line] = count(); } \
               loop:exit { @x[pc, line] = count(); } line:nvcc_app.cu:28 { @l[pc, line] = count(); }";
    let program = warptrace_lang::compile(src, "stdin").unwrap_or_else(|e| panic!("{e:?}"));
    let out = instrument(&corpus_file("nvcc_app.ptx"), &programs::verified(&program))
        .expect("instruments");
    let kernel = "_Z9block_sumPKfPfi";
    // The (pc, line) whose constant tag (the key is constant at each site) a snippet holds.
    let keyed = |snippet: &str| -> Vec<(u32, u32)> {
        (0..400u32)
            .flat_map(|pc| (0..64u32).map(move |line| (pc, line)))
            .filter(|&(pc, line)| {
                let tag = MapLayout::tag(&[u64::from(pc), u64::from(line)]);
                snippet.contains(&format!("0x{tag:016X}"))
            })
            .collect()
    };
    let body = &out.ptx[out.ptx.find(&format!(".entry {kernel}")).expect("kernel")..];
    let body = &body[..body.find("\n}\n").expect("kernel end")];
    let mut by_probe: Vec<Vec<Vec<(u32, u32)>>> = vec![Vec::new(); 4];
    for snippet in body.split("// warptrace: snippet ").skip(1) {
        let probe: usize = snippet
            .split_once(": probe ")
            .and_then(|(_, rest)| rest.split(' ').next())
            .and_then(|p| p.parse().ok())
            .expect("snippet comment names its probe");
        if probe < 4 {
            by_probe[probe].push(keyed(snippet));
        }
    }
    let [header, backedge, exit, line] = by_probe.try_into().expect("4 probes");
    let place = line
        .first()
        .and_then(|k| k.first())
        .copied()
        .expect("a line 28 site");
    assert_eq!(place.1, 28);
    assert_eq!(header, vec![vec![place]], "one header");
    assert_eq!(backedge, vec![vec![place]], "one back edge");
    assert_eq!(exit, vec![vec![place]], "one exit");
}

#[test]
fn a_warp_probes_leading_clock_read_precedes_the_leader_election() {
    // A probe that times itself must have the election (activemask, %lanemask_eq) inside
    // its span: the first clock read is the snippet's first instruction.
    let src = "warp loop:header { $a = clock64; @c = sum(clock64 - $a); }";
    let program = warptrace_lang::compile(src, "stdin").unwrap_or_else(|e| panic!("{e:?}"));
    let out = instrument(&corpus_file("nvcc_app.ptx"), &programs::verified(&program))
        .expect("instruments");
    let snippet = out
        .ptx
        .split("// warptrace: snippet ")
        .nth(1)
        .expect("a snippet");
    let body: Vec<&str> = snippet.lines().skip(1).map(str::trim).collect();
    assert!(
        body[0].starts_with("mov.u64") && body[0].ends_with("%clock64;"),
        "{}",
        body[0]
    );
    let election = body
        .iter()
        .position(|l| l.starts_with("activemask"))
        .expect("an election");
    let reads = body.iter().filter(|l| l.ends_with("%clock64;")).count();
    assert!(election > 0 && reads == 2, "{snippet}");
}

#[test]
fn region_points_time_source_lines_of_real_kernels() {
    use warptrace_codegen_ptx::list_sites;
    // Triton's matmul K loop body (lines 38-43 of the corpus's source: one iteration, the
    // loop's control being line 37), softmax's row loop body, and block_sum's reduction
    // loop statement (nvcc, lines 27-30: the whole loop). Each region has one entry and at
    // least one exit; the spliced kernels pass the kernel verifier (`instrument` rejects
    // a kernel that does not) and assemble.
    let src = "region:entry:triton_kernels.py:38-43 { %t = clock64; }
               region:exit:triton_kernels.py:38-43 { @body[pc, line] = sum(clock64 - %t); }
               region:entry:triton_kernels.py:55-62 { %t = clock64; }
               region:exit:triton_kernels.py:55-62 { @row[pc, line] = sum(clock64 - %t); }
               region:entry:nvcc_app.cu:27-30 { %t = clock64; }
               region:exit:nvcc_app.cu:27-30 { @red[pc, line] = sum(clock64 - %t); }";
    let program = warptrace_lang::compile(src, "stdin").unwrap_or_else(|e| panic!("{e:?}"));
    for (file, kernel, entry_probe) in [
        ("triton_matmul.ptx", "matmul", 0),
        ("triton_softmax.ptx", "softmax", 2),
        ("nvcc_app.ptx", "_Z9block_sumPKfPfi", 4),
    ] {
        let ptx = corpus_file(file);
        let sites = list_sites(&ptx, &program).expect("lists");
        let count = |p: usize| {
            sites
                .iter()
                .filter(|s| s.probe == p && s.kernel == kernel)
                .count()
        };
        assert_eq!(count(entry_probe), 1, "{file}: one region entry");
        assert!(count(entry_probe + 1) >= 1, "{file}: an exit");
        for s in sites.iter().filter(|s| s.probe == entry_probe) {
            assert!(s.text.starts_with("region entry: before `"), "{}", s.text);
        }
        let out = instrument(&ptx, &programs::verified(&program)).expect("instruments");
        let k = out
            .kernels
            .iter()
            .find(|k| k.name == kernel)
            .expect("kernel");
        assert!(
            matches!(k.status, KernelStatus::Instrumented { sites } if sites >= 2),
            "{file}: {:?}",
            k.status
        );
        for arch in corpus_archs(file) {
            if let Some(Err(e)) = assemble(&retarget(&out.ptx, arch), arch, &[]) {
                panic!("ptxas -arch={arch} rejects {file} with region probes:\n{e}");
            }
        }
    }
    // block_sum's loop statement: the whole loop, from before the loop's first line
    // instruction to the block after it (the explicit `exit` of line 31 is not in it).
    let ptx = corpus_file("nvcc_app.ptx");
    let sites = list_sites(&ptx, &program).expect("lists");
    let red: Vec<&str> = sites
        .iter()
        .filter(|s| s.probe >= 4 && s.kernel == "_Z9block_sumPKfPfi")
        .map(|s| s.text.as_str())
        .collect();
    assert_eq!(
        red,
        [
            "region entry: before `shr.u32 %r15, %r1, 1;`",
            "region exit: before `setp.eq.s32 %p6, %r3, 0;`"
        ]
    );
}

/// A kernel whose maps accumulate offsets its map base to copy `ctaid.x mod n` of the
/// tables (decision 0019), and still verifies and assembles; a kernel with a ring does
/// not.
#[test]
fn resident_kernels_offset_the_map_base_to_their_block_s_copy() {
    let src = corpus_file("triton_matmul.ptx");
    let run = |probe: &str| {
        let program = warptrace_lang::compile(probe, "t.wt").expect("compiles");
        let program = programs::verified(&program);
        let out = instrument(&src, &program).expect("instruments");
        assert!(
            out.kernels
                .iter()
                .all(|k| matches!(k.status, KernelStatus::Instrumented { .. })),
            "{probe}"
        );
        for arch in corpus_archs("triton_matmul.ptx") {
            if let Some(Err(e)) = assemble(&retarget(&out.ptx, arch), arch, &[]) {
                panic!("ptxas -arch={arch} rejects `{probe}`:\n{e}");
            }
        }
        (program, out.ptx)
    };
    let (program, ptx) =
        run("map @ld: hash(keys = 64); mem:global:load { @ld[kernel] = sum(bytes); }");
    let bytes = warptrace_ir::MapLayout::new(&program.program().maps).total_bytes;
    let n = warptrace_codegen_ptx::MAX_REPLICAS;
    for line in [
        "mov.u32 %__wt_s0, %ctaid.x;".to_string(),
        format!("and.b32 %__wt_s0, %__wt_s0, {};", n - 1),
        format!("mul.wide.u32 %__wt_t0, %__wt_s0, {bytes};"),
        "add.s64 %__wt_base, %__wt_base, %__wt_t0;".to_string(),
    ] {
        assert!(ptx.contains(&line), "`{line}` in the prologue");
    }
    // A ring is spread too: 32 copies of 2048 records (the default 65536), each with its
    // own cursor, and the appends compare the cursor with one copy's capacity.
    let (program, ptx) = run("mem:global:load { @r = (addr, bytes); }");
    let spread = program.program().with_ring_copies(n);
    let one = warptrace_ir::MapLayout::new(&spread.maps);
    assert_eq!(one.regions[0].capacity, 65536 / n);
    assert_eq!(warptrace_codegen_ptx::buffer_layout(program.program()), one);
    for line in [
        format!("and.b32 %__wt_s0, %__wt_s0, {};", n - 1),
        format!("mul.wide.u32 %__wt_t0, %__wt_s0, {};", one.total_bytes),
        format!("setp.ge.u64 %__wt_p0, %__wt_t0, {};", 65536 / n),
    ] {
        assert!(ptx.contains(&line), "`{line}` in the ring kernel");
    }
    assert!(
        !ptx.contains("65536"),
        "no append compares with the whole capacity"
    );
    // Rings beside a hash table keep one copy.
    let (_, ptx) = run("mem:global:load { @r = (addr, bytes); @n[kernel] = count(); }");
    assert!(
        !ptx.contains("%ctaid.x;\n\tand.b32 %__wt_s0"),
        "a ring beside a hash table is not copied"
    );
}

/// A kernel with an early, guarded exit and a final one, for the latched ring drops.
const TWO_EXITS: &str = r#".version 8.0
.target sm_90
.address_size 64

.visible .entry two_exits(
	.param .u64 two_exits_param_0
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<3>;
	.reg .b64 	%rd<4>;

	ld.param.u64 	%rd1, [two_exits_param_0];
	cvta.to.global.u64 	%rd2, %rd1;
	mov.u32 	%r1, %tid.x;
	setp.gt.u32 	%p1, %r1, 7;
	@%p1 ret;
	mul.wide.u32 	%rd3, %r1, 4;
	add.s64 	%rd3, %rd2, %rd3;
	st.global.u32 	[%rd3], %r1;
	ret;
}
"#;

/// Drop rings in a kernel latch their drops in a register (decision 0024): each append
/// tests it first, and every exit — under its guard — adds it to the ring's drop
/// counter; the module verifies and assembles. Device functions' clones, and kernels of a
/// module whose device function can `exit` (ending the thread without the flush), append
/// as before.
#[test]
fn drop_rings_latch_their_drops_and_flush_them_at_every_exit() {
    let instrument_with = |src: &str, probe: &str| {
        let program = warptrace_lang::compile(probe, "t.wt").expect("compiles");
        let program = programs::verified(&program);
        let out = instrument(src, &program).expect("instruments");
        assert!(
            out.kernels
                .iter()
                .any(|k| matches!(k.status, KernelStatus::Instrumented { .. })),
            "{probe}"
        );
        out.ptx
    };
    let ring = "map @r: ring(capacity = 100, overflow = drop); \
                mem:global:* { @r = (addr, bytes); printf(\"%d\\n\", tid.x); }";
    let ptx = instrument_with(TWO_EXITS, ring);
    if let Some(Err(e)) = assemble(&ptx, "sm_90", &[]) {
        panic!("ptxas rejects the latched kernel:\n{e}\n{ptx}");
    }
    // Two drop rings (@r and the printf ring): two latches, zeroed, tested by the append.
    assert!(ptx.contains(".reg .b64 %__wt_d<2>;"), "{ptx}");
    for d in ["%__wt_d0", "%__wt_d1"] {
        assert!(ptx.contains(&format!("mov.b64 {d}, 0;")), "{d} zeroed");
        assert!(
            ptx.contains(&format!("setp.ne.u64 %__wt_p0, {d}, 0;\n\t@%__wt_p0 bra")),
            "{d} tested before the cursor"
        );
    }
    assert_eq!(
        ptx.matches("@%__wt_p0 red.global.add.u64 [%__wt_base+")
            .count(),
        4,
        "two flushes at each of the two exits"
    );
    // The guarded exit flushes only when it is taken, before it; the last exit always.
    let early = ptx.find("@%p1 ret;").expect("the early exit");
    let flush = ptx[..early]
        .rfind("latched ring drops counted at the exit")
        .expect("a flush");
    assert!(
        ptx[flush..early].contains("@!%p1 bra"),
        "{}",
        &ptx[flush..early]
    );
    let last = ptx.rfind("ret;").expect("the last exit");
    let flush = ptx[..last]
        .rfind("latched ring drops counted at the exit")
        .expect("a flush");
    assert!(flush > early && !ptx[flush..last].contains(" bra "));
    // An overwrite ring latches nothing.
    let ptx = instrument_with(
        TWO_EXITS,
        "map @o: ring(capacity = 100, overflow = overwrite); mem:global:* { @o = (addr); }",
    );
    assert!(!ptx.contains("%__wt_d"), "{ptx}");
    // A device function that can exit: no latch anywhere in the module.
    let with_exit = TWO_EXITS.replace(
        ".visible .entry",
        ".func leave()\n{\n\texit;\n}\n\n.visible .entry",
    );
    let ptx = instrument_with(&with_exit, ring);
    assert!(!ptx.contains("%__wt_d"), "{ptx}");
    // Clones of device functions append without one (nvcc_calls.ptx's probes in functions).
    let src = corpus_file("nvcc_calls.ptx");
    let ptx = instrument_with(
        &src,
        "map @r: ring(capacity = 100, overflow = drop); mem:global:load { @r = (addr); }",
    );
    let m = parse(&ptx).expect("parses");
    let clones: Vec<&str> = m
        .functions()
        .iter()
        .filter(|f| f.name.starts_with("__wt_"))
        .map(|f| &m.source()[f.span.clone()])
        .collect();
    assert!(
        clones.iter().all(|text| !text.contains("%__wt_d")),
        "a clone latches"
    );
    assert!(
        clones
            .iter()
            .any(|text| text.contains("atom.global.add.u64")),
        "no clone appends"
    );
}
