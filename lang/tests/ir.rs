//! Source → IR text snapshots, and the source spans recorded for each instruction.

fn ir(source: &str) -> String {
    match warptrace_lang::compile(source, "stdin") {
        Ok(program) => program.to_string(),
        Err(e) => panic!("does not compile:\n{e}"),
    }
}

/// The skeleton's acceptance program.
const ACCEPTANCE: &str = "kernel:entry /tid.x == 0 && tid.y == 0 && tid.z == 0/ { @blocks[kernel] = count(); } mem:global:load { @ldbytes[kernel] = sum(bytes); }";

#[test]
fn acceptance() {
    insta::assert_snapshot!(ir(ACCEPTANCE), @r#"
    map @blocks: hash(keys = 4096) [kernel] -> count
    map @ldbytes: hash(keys = 4096) [kernel] -> sum u64

    probe 0: kernel:entry
      0: r0 = sreg tid.x
      1: r1 = eq.64 r0, 0
      2: r2 = sreg tid.y
      3: r3 = eq.64 r2, 0
      4: r4 = and.64 r1, r3
      5: r5 = sreg tid.z
      6: r6 = eq.64 r5, 0
      7: r7 = and.64 r4, r6
      8: jz r7, 11
      9: r8 = sreg kernel
      10: map.update @blocks[r8] count
      11: exit

    probe 1: mem:global:load
      0: r0 = sreg kernel
      1: r1 = site bytes
      2: map.update @ldbytes[r0] sum r1
      3: exit
    "#);
}

#[test]
fn several_attach_points_share_a_body() {
    insta::assert_snapshot!(ir("// global-memory traffic of matching kernels\nmem:global:load:*gemm*, mem:global:store:vector_add, mem:global:* /* every access */ {\n  @n = count();;\n  @traffic[kernel, ctaid.x, ctaid.y] = sum(bytes * 2);\n}"), @r#"
    map @n: hash(keys = 4096) -> count
    map @traffic: hash(keys = 4096) [kernel, u64, u64] -> sum u64

    probe 0: mem:global:load:*gemm*
      0: map.update @n count
      1: r0 = sreg kernel
      2: r1 = sreg ctaid.x
      3: r2 = sreg ctaid.y
      4: r3 = site bytes
      5: r4 = mul.64 r3, 2
      6: map.update @traffic[r0, r1, r2] sum r4
      7: exit

    probe 1: mem:global:store:vector_add
      0: map.update @n count
      1: r0 = sreg kernel
      2: r1 = sreg ctaid.x
      3: r2 = sreg ctaid.y
      4: r3 = site bytes
      5: r4 = mul.64 r3, 2
      6: map.update @traffic[r0, r1, r2] sum r4
      7: exit

    probe 2: mem:global:*
      0: map.update @n count
      1: r0 = sreg kernel
      2: r1 = sreg ctaid.x
      3: r2 = sreg ctaid.y
      4: r3 = site bytes
      5: r4 = mul.64 r3, 2
      6: map.update @traffic[r0, r1, r2] sum r4
      7: exit
    "#);
}

#[test]
fn precedence() {
    insta::assert_snapshot!(ir("kernel:entry {\n  @a = sum(smid + tid.x * 2 - 3);\n  @b = sum(smid | tid.x & 0xff ^ 1);\n  @c = sum(smid << 2 + 1);\n  @d = sum(tid.x < 4 == tid.y >= 2);\n  @e = sum(smid || tid.x && !tid.y);\n}"), @r#"
    map @a: hash(keys = 4096) -> sum u64
    map @b: hash(keys = 4096) -> sum u64
    map @c: hash(keys = 4096) -> sum u64
    map @d: hash(keys = 4096) -> sum i64
    map @e: hash(keys = 4096) -> sum i64

    probe 0: kernel:entry
      0: r0 = sreg smid
      1: r1 = sreg tid.x
      2: r2 = mul.64 r1, 2
      3: r3 = zext.32 r2
      4: r4 = add.64 r0, r3
      5: r5 = zext.32 r4
      6: r6 = sub.64 r5, 3
      7: r7 = zext.32 r6
      8: map.update @a sum r7
      9: r8 = sreg smid
      10: r9 = sreg tid.x
      11: r10 = and.64 r9, 255
      12: r11 = xor.64 r10, 1
      13: r12 = or.64 r8, r11
      14: map.update @b sum r12
      15: r13 = sreg smid
      16: r14 = shl.64 r13, 3
      17: r15 = zext.32 r14
      18: map.update @c sum r15
      19: r16 = sreg tid.x
      20: r17 = lt.u.64 r16, 4
      21: r18 = sreg tid.y
      22: r19 = ge.u.64 r18, 2
      23: r20 = eq.64 r17, r19
      24: map.update @d sum r20
      25: r21 = sreg smid
      26: r22 = ne.64 r21, 0
      27: r23 = sreg tid.x
      28: r24 = ne.64 r23, 0
      29: r25 = sreg tid.y
      30: r26 = eq.64 r25, 0
      31: r27 = and.64 r24, r26
      32: r28 = or.64 r22, r27
      33: map.update @e sum r28
      34: exit
    "#);
}

#[test]
fn signedness() {
    insta::assert_snapshot!(ir("kernel:entry {\n  @a[smid / 3, -smid / 3, (0 - 8) / 3] = count();\n  @b[smid % 3 < 1, -1 < smid, ~smid >> 1] = count();\n  @c = sum(-clock64);\n}"), @r#"
    map @a: hash(keys = 4096) [u64, u64, i64] -> count
    map @b: hash(keys = 4096) [i64, i64, u64] -> count
    map @c: hash(keys = 4096) -> sum u64

    probe 0: kernel:entry
      0: r0 = sreg smid
      1: r1 = div.u.64 r0, 3
      2: r2 = sreg smid
      3: r3 = sub.64 0, r2
      4: r4 = zext.32 r3
      5: r5 = div.u.64 r4, 3
      6: map.update @a[r1, r5, -2] count
      7: r6 = sreg smid
      8: r7 = rem.u.64 r6, 3
      9: r8 = lt.u.64 r7, 1
      10: r9 = sreg smid
      11: r10 = lt.u.64 -1, r9
      12: r11 = sreg smid
      13: r12 = xor.64 r11, 4294967295
      14: r13 = shr.u.64 r12, 1
      15: map.update @b[r8, r10, r13] count
      16: r14 = sreg clock64
      17: r15 = sub.64 0, r14
      18: map.update @c sum r15
      19: exit
    "#);
}

#[test]
fn constant_folding() {
    insta::assert_snapshot!(ir("kernel:exit {\n  @a[2 + 3 * 4, -7 / 2, -7 % 2, 1 << 4, -16 >> 2, 0xffffffffffffffff, ~0, !5, 3 > 2 && 0 || 1] = count();\n  @b[1 << 64, 0x8000000000000000 / -1] = count();\n}"), @r#"
    map @a: hash(keys = 4096) [i64, i64, i64, i64, i64, i64, i64, i64, i64] -> count
    map @b: hash(keys = 4096) [i64, i64] -> count

    probe 0: kernel:exit
      0: map.update @a[14, -3, -1, 16, -4, -1, -1, 0, 1] count
      1: r0 = shl.64 1, 64
      2: r1 = div.s.64 -9223372036854775808, -1
      3: map.update @b[r0, r1] count
      4: exit
    "#);
}

#[test]
fn constant_predicates() {
    insta::assert_snapshot!(ir("kernel:entry /2 > 1/ { @yes = count(); }\nkernel:exit /1 - 1/ { @no = count(); }\nmem:global:load /smid/ { @smid = count(); }"), @r#"
    map @yes: hash(keys = 4096) -> count
    map @no: hash(keys = 4096) -> count
    map @smid: hash(keys = 4096) -> count

    probe 0: kernel:entry
      0: map.update @yes count
      1: exit

    probe 1: kernel:exit
      0: ja 2
      1: map.update @no count
      2: exit

    probe 2: mem:global:load
      0: r0 = sreg smid
      1: jz r0, 3
      2: map.update @smid count
      3: exit
    "#);
}

#[test]
fn empty_program() {
    assert_eq!(ir(""), "");
    assert_eq!(ir(" // nothing\n/* at all */\n"), "");
}

#[test]
fn every_instruction_has_its_source_span() {
    let program = warptrace_lang::compile(ACCEPTANCE, "stdin").unwrap_or_else(|e| panic!("{e}"));
    let texts: Vec<Vec<&str>> = program
        .probes
        .iter()
        .map(|p| {
            assert_eq!(p.spans.len(), p.insns.len());
            p.spans
                .iter()
                .map(|s| {
                    let s = s.unwrap_or_else(|| panic!("an instruction without a span"));
                    &ACCEPTANCE[s.start as usize..s.end as usize]
                })
                .collect()
        })
        .collect();
    assert_eq!(
        texts,
        [
            vec![
                "tid.x",
                "tid.x == 0",
                "tid.y",
                "tid.y == 0",
                "tid.x == 0 && tid.y == 0",
                "tid.z",
                "tid.z == 0",
                "tid.x == 0 && tid.y == 0 && tid.z == 0",
                "tid.x == 0 && tid.y == 0 && tid.z == 0",
                "kernel",
                "@blocks[kernel] = count()",
                "}",
            ],
            vec!["kernel", "bytes", "@ldbytes[kernel] = sum(bytes)", "}",],
        ]
    );
}

#[test]
fn a_block_gives_one_probe_per_attach_point() {
    let program =
        warptrace_lang::compile("kernel:entry, kernel:exit:*k* { @a = count(); }", "stdin")
            .unwrap_or_else(|e| panic!("{e}"));
    let attaches: Vec<String> = program
        .probes
        .iter()
        .map(|p| p.attach.to_string())
        .collect();
    assert_eq!(attaches, ["kernel:entry", "kernel:exit:*k*"]);
    assert_eq!(program.probes[0].insns, program.probes[1].insns);
}
