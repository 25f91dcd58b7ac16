//! Source → IR text snapshots of every construct of the language (docs/language.md).

fn ir(source: &str) -> String {
    match warptrace_lang::compile(source, "stdin") {
        Ok(program) => program.to_string(),
        Err(e) => panic!("does not compile:\n{e}"),
    }
}

#[test]
fn every_attach_point() {
    let source = "begin, end, launch:complete, BEGIN, END, interval:s:2, interval:ms:250, \
        i:us:40, interval:hz:4 { }\n\
        kernel:entry, kernel:exit:*gemm*, mem:shared:store, mem:generic:atomic:k, mem:*:async, \
        tensor:mma, sync:barrier, branch, loop:header, loop:backedge, loop:exit:*mm*, \
        line:gemm.cu:10-20, line:\"src/a b.cu\":7, region:entry:gemm.cu:10-20, \
        region:exit:\"src/a b.cu\":7-9:*mm*, ptx:ld.global.v4.*, gcn:v_mfma*:*gemm*, \
        warp after mem:global:load, after warp ptx:st.*, warp kernel:exit { }";
    let program = warptrace_lang::compile(source, "stdin").unwrap_or_else(|e| panic!("{e}"));
    let host: Vec<String> = program.host.iter().map(|h| h.event.to_string()).collect();
    assert_eq!(
        host,
        [
            "begin",
            "end",
            "launch:complete",
            "begin",
            "end",
            "interval:us:2000000",
            "interval:us:250000",
            "interval:us:40",
            "interval:us:250000"
        ]
    );
    let probes: Vec<String> = program
        .probes
        .iter()
        .map(|p| p.attach.to_string())
        .collect();
    insta::assert_snapshot!(probes.join("\n"), @r#"
    kernel:entry
    kernel:exit:*gemm*
    mem:shared:store
    mem:generic:atomic:k
    mem:*:async
    tensor:mma
    sync:barrier
    branch
    loop:header
    loop:backedge
    loop:exit:*mm*
    line:gemm.cu:10-20
    line:"src/a b.cu":7
    region:entry:gemm.cu:10-20
    region:exit:"src/a b.cu":7-9:*mm*
    ptx:ld.global.v4.*
    gcn:v_mfma*:*gemm*
    warp after mem:global:load
    warp after ptx:st.*
    warp kernel:exit
    "#);
}

#[test]
fn declarations_config_and_records() {
    insta::assert_snapshot!(ir("config { ring_capacity = 64K; hash_keys = 1K; printf_capacity = 1M; }\n\
        map @trace: ring(capacity = 1M, overflow = overwrite);\n\
        map @sched: array(per = warp, slots = 2);\n\
        map @h: hash(keys = 256);\n\
        map @unused: hash();\n\
        kernel:entry { %t0 = clock64; }\n\
        warp kernel:exit { @sched = (%t0, clock64 - %t0, smid); @trace = (kernel, block); @h[smid] = count(); }\n\
        kernel:exit { @undeclared_ring = (lane, (i8)-1); @undeclared_hash[warp] = sum(1); @one = lane; }"), @r#"
    config ring_capacity = 65536
    config hash_keys = 1024
    config printf_capacity = 1048576
    map @sched: array(per = warp, slots = 2) -> record(u64, u64, u64)
    map @trace: ring(capacity = 1048576, overflow = overwrite) -> record(kernel, u64)
    map @h: hash(keys = 256) [u64] -> count
    map @undeclared_ring: ring(capacity = 65536, overflow = drop) -> record(u64, i64)
    map @undeclared_hash: hash(keys = 1024) [u64] -> sum i64
    map @one: hash(keys = 1024) -> value u64
    persistent %t0
    persistent %sched_slot

    probe 0: kernel:entry
      0: r0 = sreg clock64
      1: store %t0, r0
      2: exit

    probe 1: warp kernel:exit
      0: r0 = load %t0
      1: r1 = sreg clock64
      2: r2 = load %t0
      3: r3 = sub.64 r1, r2
      4: r4 = sreg smid
      5: map.save @sched, %sched_slot, (r0, r3, r4)
      6: r5 = sreg kernel
      7: r6 = sreg block
      8: map.append @trace, (r5, r6)
      9: r7 = sreg smid
      10: map.update @h[r7] count
      11: exit

    probe 2: kernel:exit
      0: r0 = sreg lane
      1: map.append @undeclared_ring, (r0, -1)
      2: r1 = sreg warp
      3: map.update @undeclared_hash[r1] sum 1
      4: r2 = sreg lane
      5: map.update @one assign r2
      6: exit
    "#);
}

#[test]
fn scratch_if_else_ternary_unroll() {
    insta::assert_snapshot!(ir("kernel:exit {\n\
          $d = clock64 - 1;\n\
          if ($d > 100) { $big = 1; } else if ($d > 10) { $big = 2; } else { $big = 0; }\n\
          @a[$big] = count();\n\
          $x = tid.x < 16 ? tid.x : 16;\n\
          unroll(3) { $x = $x * 2; }\n\
          @b = max($x);\n\
          if (lane == 0) { @c = count(); }\n\
        }"), @r#"
    map @a: hash(keys = 4096) [i64] -> count
    map @b: hash(keys = 4096) -> max u64
    map @c: hash(keys = 4096) -> count

    probe 0: kernel:exit
      0: r0 = sreg clock64
      1: r1 = sub.64 r0, 1
      2: r2 = mov r1
      3: r3 = gt.u.64 r2, 100
      4: jz r3, 7
      5: r4 = mov 1
      6: ja 12
      7: r5 = gt.u.64 r2, 10
      8: jz r5, 11
      9: r4 = mov 2
      10: ja 12
      11: r4 = mov 0
      12: map.update @a[r4] count
      13: r7 = sreg tid.x
      14: r8 = lt.u.64 r7, 16
      15: jz r8, 19
      16: r9 = sreg tid.x
      17: r6 = mov r9
      18: ja 20
      19: r6 = mov 16
      20: r10 = mov r6
      21: r11 = mul.64 r10, 2
      22: r12 = zext.32 r11
      23: r10 = mov r12
      24: r13 = mul.64 r10, 2
      25: r14 = zext.32 r13
      26: r10 = mov r14
      27: r15 = mul.64 r10, 2
      28: r16 = zext.32 r15
      29: r10 = mov r16
      30: map.update @b max r10
      31: r17 = sreg lane
      32: r18 = eq.64 r17, 0
      33: jz r18, 35
      34: map.update @c count
      35: exit
    "#);
}

#[test]
fn narrow_types_casts_and_bool() {
    insta::assert_snapshot!(ir("kernel:entry {\n\
          $b = (u8)smid;\n\
          $b = $b + 250;\n\
          $s = (i8)$b;\n\
          $w = (u16)-1;\n\
          $t = smid > 3;\n\
          $t = 1;\n\
          $e = clock - (u32)5;\n\
          $n = ~(u8)lane;\n\
          @m[$b, $s, $t] = sum($w + $e + $n);\n\
          @z = sum((i32)tid.x / -2);\n\
          @bool = sum((bool)warp);\n\
        }"), @r#"
    map @m: hash(keys = 4096) [u64, i64, i64] -> sum u64
    map @z: hash(keys = 4096) -> sum i64
    map @bool: hash(keys = 4096) -> sum i64

    probe 0: kernel:entry
      0: r0 = sreg smid
      1: r1 = zext.8 r0
      2: r2 = mov r1
      3: r3 = add.64 r2, 250
      4: r4 = zext.8 r3
      5: r2 = mov r4
      6: r5 = sext.8 r2
      7: r6 = mov r5
      8: r7 = mov 65535
      9: r8 = sreg smid
      10: r9 = gt.u.64 r8, 3
      11: r10 = mov r9
      12: r10 = mov 1
      13: r11 = sreg clock
      14: r12 = sub.64 r11, 5
      15: r13 = zext.32 r12
      16: r14 = mov r13
      17: r15 = sreg lane
      18: r16 = zext.8 r15
      19: r17 = xor.64 r16, 255
      20: r18 = mov r17
      21: r19 = add.64 r7, r14
      22: r20 = add.64 r19, r18
      23: map.update @m[r2, r6, r10] sum r20
      24: r21 = sreg tid.x
      25: r22 = sext.32 r21
      26: r23 = div.s.64 r22, -2
      27: r24 = sext.32 r23
      28: map.update @z sum r24
      29: r25 = sreg warp
      30: r26 = ne.64 r25, 0
      31: map.update @bool sum r26
      32: exit
    "#);
}

#[test]
fn every_aggregation() {
    insta::assert_snapshot!(ir("mem:global:load {\n\
          @count[kernel] = count();\n\
          @sum = sum(bytes);\n\
          @min = min(-(i64)bytes);\n\
          @max = max(addr);\n\
          @avg = avg(bytes);\n\
          @stats = stats(bytes);\n\
          @hist = hist(bytes);\n\
          @lhist = lhist(bytes, 0, 64, 8);\n\
          @value[pc] = addr;\n\
          @value[pc] = 0;\n\
          @sum = sum(4);\n\
        }"), @r#"
    map @count: hash(keys = 4096) [kernel] -> count
    map @sum: hash(keys = 4096) -> sum u64
    map @min: hash(keys = 4096) -> min i64
    map @max: hash(keys = 4096) -> max u64
    map @avg: hash(keys = 4096) -> avg u64
    map @stats: hash(keys = 4096) -> stats u64
    map @hist: hash(keys = 4096) -> hist
    map @lhist: hash(keys = 4096) -> lhist(0, 64, 8)
    map @value: hash(keys = 4096) [u64] -> value u64

    probe 0: mem:global:load
      0: r0 = sreg kernel
      1: map.update @count[r0] count
      2: r1 = site bytes
      3: map.update @sum sum r1
      4: r2 = site bytes
      5: r3 = sub.64 0, r2
      6: map.update @min min r3
      7: r4 = site addr
      8: map.update @max max r4
      9: r5 = site bytes
      10: map.update @avg avg r5
      11: r6 = site bytes
      12: map.update @stats stats r6
      13: r7 = site bytes
      14: map.update @hist hist r7
      15: r8 = site bytes
      16: map.update @lhist lhist r8
      17: r9 = sreg pc
      18: r10 = site addr
      19: map.update @value[r9] assign r10
      20: r11 = sreg pc
      21: map.update @value[r11] assign 0
      22: map.update @sum sum 4
      23: exit
    "#);
}

#[test]
fn every_builtin() {
    insta::assert_snapshot!(ir("mem:global:store {\n\
          @a = (tid.x, tid.y, tid.z, ntid.x, ntid.y, ntid.z, ctaid.x, ctaid.y, ctaid.z, nctaid.x, nctaid.y, nctaid.z);\n\
          @b = (smid, nsmid, clock, clock64, globaltimer, warp, lane, thread, block, activemask, active, kernel);\n\
          @c = (launch, pc, file, line, opcode, addr, bytes, value);\n\
        }\n\
        after mem:shared:load { @v = sum(value); }\n\
        mem:global:atomic, ptx:atom.*, gcn:buffer_atomic* { @w = sum(value); }"), @r#"
    map @a: ring(capacity = 65536, overflow = drop) -> record(u64, u64, u64, u64, u64, u64, u64, u64, u64, u64, u64, u64)
    map @b: ring(capacity = 65536, overflow = drop) -> record(u64, u64, u64, u64, u64, u64, u64, u64, u64, u64, u64, kernel)
    map @c: ring(capacity = 65536, overflow = drop) -> record(u64, u64, u64, u64, u64, u64, u64, u64)
    map @v: hash(keys = 4096) -> sum u64
    map @w: hash(keys = 4096) -> sum u64

    probe 0: mem:global:store
      0: r0 = sreg tid.x
      1: r1 = sreg tid.y
      2: r2 = sreg tid.z
      3: r3 = sreg ntid.x
      4: r4 = sreg ntid.y
      5: r5 = sreg ntid.z
      6: r6 = sreg ctaid.x
      7: r7 = sreg ctaid.y
      8: r8 = sreg ctaid.z
      9: r9 = sreg nctaid.x
      10: r10 = sreg nctaid.y
      11: r11 = sreg nctaid.z
      12: map.append @a, (r0, r1, r2, r3, r4, r5, r6, r7, r8, r9, r10, r11)
      13: r12 = sreg smid
      14: r13 = sreg nsmid
      15: r14 = sreg clock
      16: r15 = sreg clock64
      17: r16 = sreg globaltimer
      18: r17 = sreg warp
      19: r18 = sreg lane
      20: r19 = sreg thread
      21: r20 = sreg block
      22: r21 = sreg activemask
      23: r22 = sreg active
      24: r23 = sreg kernel
      25: map.append @b, (r12, r13, r14, r15, r16, r17, r18, r19, r20, r21, r22, r23)
      26: r24 = sreg launch
      27: r25 = sreg pc
      28: r26 = sreg file
      29: r27 = sreg line
      30: r28 = site opcode
      31: r29 = site addr
      32: r30 = site bytes
      33: r31 = site value
      34: map.append @c, (r24, r25, r26, r27, r28, r29, r30, r31)
      35: exit

    probe 1: after mem:shared:load
      0: r0 = site value
      1: map.update @v sum r0
      2: exit

    probe 2: mem:global:atomic
      0: r0 = site value
      1: map.update @w sum r0
      2: exit

    probe 3: ptx:atom.*
      0: r0 = site value
      1: map.update @w sum r0
      2: exit

    probe 4: gcn:buffer_atomic*
      0: r0 = site value
      1: map.update @w sum r0
      2: exit
    "#);
}

#[test]
fn printf_and_host_blocks() {
    insta::assert_snapshot!(ir("begin { $on = 1; printf(\"tracing %d\\n\", $on ? 1 : 0); }\n\
        mem:global:* { printf(\"%d %x %d\\n\", clock64, addr, bytes); printf(\"%s at %llu\\n\", kernel, pc); @n[kernel, smid] = count(); @d[smid, tid.x] = count(); }\n\
        kernel:exit { printf(\"%d %% done\\n\", thread); }\n\
        launch:complete { print(@n); zero(@n); }\n\
        end { delete(@d[0, 1]); clear(@n); printf(\"bye\\n\"); exit(); }"), @r#"
    map @n: hash(keys = 4096) [kernel, u64] -> count
    map @d: hash(keys = 4096) [u64, u64] -> count
    map @printf: ring(capacity = 65536, overflow = drop) -> printf(3)
    format 0: "tracing %d\n"
    format 1: "%d %x %d\n"
    format 2: "%s at %llu\n"
    format 3: "%d %% done\n"
    format 4: "bye\n"

    host 0: begin
      0: r0 = mov 1
      1: jz r0, 4
      2: r1 = mov 1
      3: ja 5
      4: r1 = mov 0
      5: printf 0, (r1)
      6: exit

    host 1: launch:complete
      0: host.print @n
      1: host.zero @n
      2: exit

    host 2: end
      0: host.delete @d[0, 1]
      1: host.clear @n
      2: printf 4, ()
      3: host.exit
      4: exit

    probe 0: mem:global:*
      0: r0 = sreg clock64
      1: r1 = site addr
      2: r2 = site bytes
      3: printf 1, (r0, r1, r2)
      4: r3 = sreg kernel
      5: r4 = sreg pc
      6: printf 2, (r3, r4)
      7: r5 = sreg kernel
      8: r6 = sreg smid
      9: map.update @n[r5, r6] count
      10: r7 = sreg smid
      11: r8 = sreg tid.x
      12: map.update @d[r7, r8] count
      13: exit

    probe 1: kernel:exit
      0: r0 = sreg thread
      1: printf 3, (r0)
      2: exit
    "#);
}

#[test]
fn host_blocks_run_aggregations() {
    // The must-show example of issue 3: bpftrace's histogram printed by the host.
    insta::assert_snapshot!(ir("begin { @x = hist(5); @x = hist(100); print(@x); }"), @r#"
    map @x: hash(keys = 4096) -> hist

    host 0: begin
      0: map.update @x hist 5
      1: map.update @x hist 100
      2: host.print @x
      3: exit
    "#);
}

#[test]
fn persistent_registers_read_before_written_in_source_order() {
    insta::assert_snapshot!(ir("warp loop:header:*matmul* { if (%last != 0) { @iter = hist(clock64 - %last); } %last = clock64; }\n\
        mem:global:load { %n = %n + 1; }\n\
        kernel:exit { @loads = hist(%n); }"), @r#"
    map @iter: hash(keys = 4096) -> hist
    map @loads: hash(keys = 4096) -> hist
    persistent %last
    persistent %n

    probe 0: warp loop:header:*matmul*
      0: r0 = load %last
      1: r1 = ne.64 r0, 0
      2: jz r1, 7
      3: r2 = sreg clock64
      4: r3 = load %last
      5: r4 = sub.64 r2, r3
      6: map.update @iter hist r4
      7: r5 = sreg clock64
      8: store %last, r5
      9: exit

    probe 1: mem:global:load
      0: r0 = load %n
      1: r1 = add.64 r0, 1
      2: store %n, r1
      3: exit

    probe 2: kernel:exit
      0: r0 = load %n
      1: map.update @loads hist r0
      2: exit
    "#);
}

#[test]
fn provably_non_zero_divisors() {
    insta::assert_snapshot!(ir("kernel:entry { @a = sum(clock64 / (smid | 1)); @b = sum(tid.x % (lane > 3 ? 4 : 8)); }"), @r#"
    map @a: hash(keys = 4096) -> sum u64
    map @b: hash(keys = 4096) -> sum u64

    probe 0: kernel:entry
      0: r0 = sreg clock64
      1: r1 = sreg smid
      2: r2 = or.64 r1, 1
      3: r3 = div.u.64 r0, r2
      4: map.update @a sum r3
      5: r4 = sreg tid.x
      6: r6 = sreg lane
      7: r7 = gt.u.64 r6, 3
      8: jz r7, 11
      9: r5 = mov 4
      10: ja 12
      11: r5 = mov 8
      12: r8 = rem.u.64 r4, r5
      13: map.update @b sum r8
      14: exit
    "#);
}

#[test]
fn listing_tables() {
    let attach: Vec<&str> = warptrace_lang::attach_points()
        .iter()
        .map(|e| e.name)
        .collect();
    assert_eq!(attach.len(), 20);
    assert!(attach.contains(&"kernel:entry") && attach.contains(&"launch:complete"));
    assert!(attach.contains(&"launch:end") && attach.contains(&"interval:<s|ms|us|hz>:<n>"));
    let builtins = warptrace_lang::builtins();
    let addr = builtins.iter().find(|e| e.name == "addr");
    assert_eq!(addr.map(|e| e.valid), Some("mem:*:*, ptx:*, gcn:*"));
    assert!(builtins
        .iter()
        .all(|e| !e.doc.is_empty() && !e.valid.is_empty()));
    let functions: Vec<&str> = warptrace_lang::functions().iter().map(|e| e.name).collect();
    assert!(functions.contains(&"lhist(x, min, max, step)") && functions.contains(&"exit()"));
    // Every listed builtin is accepted where it is valid (a launch's values in a
    // launch:end block, the rest at an atomic).
    for b in builtins {
        let source = if b.valid.starts_with("launch:") {
            format!("launch:end {{ @m = sum({}); }}", b.name)
        } else {
            format!("after mem:global:atomic {{ @m = ({}, 1); }}", b.name)
        };
        assert!(
            warptrace_lang::compile(&source, "stdin").is_ok(),
            "{}",
            b.name
        );
    }
}

/// `x op= e`, `x++`, `++x`, `x--`, `--x` compile to exactly what they stand for: on
/// variables `x = x op e`, on maps `sum(e)` / `sum(-e)`.
#[test]
fn compound_assignments_are_their_spelled_out_forms() {
    let pairs = [
        (
            "kernel:entry { %n += 2; %n <<= 1; %n++; $x = smid; $x *= 3; --$x; $x %= 7; \
             $x ^= 5; $x >>= 1; $x |= 8; $x &= 12; $x /= 2; @c[kernel] += $x; @d++; @e -= 4; ++@f; @f--; }",
            "kernel:entry { %n = %n + 2; %n = %n << 1; %n = %n + 1; $x = smid; $x = $x * 3; \
             $x = $x - 1; $x = $x % 7; $x = $x ^ 5; $x = $x >> 1; $x = $x | 8; $x = $x & 12; \
             $x = $x / 2; @c[kernel] = sum($x); @d = sum(1); @e = sum(-4); @f = sum(1); @f = sum(-1); }",
        ),
        (
            "begin { $a = 1; $a -= 3; @m[$a] += $a; exit(); }",
            "begin { $a = 1; $a = $a - 3; @m[$a] = sum($a); exit(); }",
        ),
    ];
    for (compound, spelled) in pairs {
        assert_eq!(ir(compound), ir(spelled), "{compound}");
    }
}

/// bpftrace's type names `uint8` … `int64` are `u8` … `i64`.
#[test]
fn bpftrace_type_names_are_the_short_ones() {
    for (long, short) in [
        ("uint8", "u8"),
        ("uint16", "u16"),
        ("uint32", "u32"),
        ("uint64", "u64"),
        ("int8", "i8"),
        ("int16", "i16"),
        ("int32", "i32"),
        ("int64", "i64"),
    ] {
        let program = |t: &str| format!("kernel:entry {{ $x = ({t})smid; @m[$x] = count(); }}");
        assert_eq!(ir(&program(long)), ir(&program(short)), "{long}");
    }
}

/// `kernel == "name"` is the kernel's id against the name's, `"name" != kernel` the same
/// with `ne`: no string reaches the IR.
#[test]
fn kernel_names_are_their_ids() {
    let id = warptrace_ir::kernel_id("softmax_kernel") as i64;
    let text = ir(
        "kernel:entry /kernel == \"softmax_kernel\"/ { @n = count(); }\n\
         kernel:exit { if (\"softmax_kernel\" != kernel) { @m = count(); } }",
    );
    assert!(text.contains(&format!("r1 = eq.64 r0, {id}")), "{text}");
    assert!(text.contains(&format!("r1 = ne.64 r0, {id}")), "{text}");
}

/// bpftrace's `config = { max_map_keys = N; print_maps_on_exit = … }` (its last `;`
/// optional): `max_map_keys` sizes undeclared hash maps to the next power of two.
#[test]
fn bpftrace_config_spelling_and_names() {
    let text = ir(
        "config = { max_map_keys = 100; print_maps_on_exit = false }\n\
                   kernel:entry { @n[smid] = count(); }",
    );
    assert!(text.contains("map @n: hash(keys = 128)"), "{text}");
    assert!(text.contains("config print_maps_on_exit = 0"), "{text}");
    assert_eq!(
        ir("config = { hash_keys = 128 } kernel:entry { @n[smid] = count(); }")
            .lines()
            .skip(1)
            .collect::<Vec<_>>(),
        text.lines().skip(2).collect::<Vec<_>>()
    );
}

/// `print(@m, top, div)` carries its constants to `host.print`.
#[test]
fn print_takes_top_and_div() {
    let text = ir("kernel:entry { @a[smid] = count(); }\n\
         end { print(@a); print(@a, 10); print(@a, 10, 2); print(@a, 0, 1000); }");
    for line in [
        "host.print @a\n",
        "host.print @a top 10\n",
        "host.print @a top 10 div 2\n",
        "host.print @a div 1000\n",
    ] {
        assert!(text.contains(line), "{line}: {text}");
    }
}

#[test]
fn for_ranges_unroll_over_their_constants() {
    // `$k` holds 1, then 2; an empty range emits nothing; `$k` keeps its last value.
    insta::assert_snapshot!(ir("kernel:entry { for ($k : 1..3) { @n[$k] = count(); } $t = $k; \
        for ($j : 4..4) { @n[0] = count(); } }"), @r"
    map @n: hash(keys = 4096) [i64] -> count

    probe 0: kernel:entry
      0: r0 = mov 1
      1: map.update @n[r0] count
      2: r0 = mov 2
      3: map.update @n[r0] count
      4: r1 = mov r0
      5: exit
    ");
}

#[test]
fn string_literals_are_map_keys() {
    // A key holds `kernel_id` of its string; the program lists the strings for the host.
    let source = "mem:global:load { @ops[\"load\", kernel] = count(); } \
        kernel:entry { @ops[\"entry\", kernel] = count(); @ops[\"load\", kernel] = count(); }";
    let program = warptrace_lang::compile(source, "stdin").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(program.strings, ["load", "entry"]);
    let text = program.to_string();
    assert!(
        text.contains("[str, kernel] -> count\nstring 0: \"load\"\nstring 1: \"entry\"\n"),
        "{text}"
    );
    let load = warptrace_ir::kernel_id("load") as i64;
    assert!(
        text.contains(&format!("map.update @ops[{load}, r0] count")),
        "{text}"
    );
    // The text form keeps them (spans aside, which it does not carry).
    let parsed = warptrace_ir::Program::parse(&text).expect("the text parses");
    assert_eq!(parsed.strings, program.strings);
    assert_eq!(parsed.to_string(), text);
}
