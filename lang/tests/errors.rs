//! Every error path of the front end, compared as rendered text (bpftrace's shape).

fn error(source: &str) -> String {
    match warptrace_lang::compile(source, "stdin") {
        Ok(program) => panic!("compiled, but an error was expected:\n{program}"),
        Err(e) => e.render(),
    }
}

#[test]
fn syntax_missing_separator() {
    insta::assert_snapshot!(error("kernel:entry { @a[tid.x] = count() @b = count(); }"), @r#"
    stdin:1:36-37: ERROR: syntax error: unexpected `@`, expected operator, `;` or `}`
    kernel:entry { @a[tid.x] = count() @b = count(); }
                                       ~
    "#);
}

#[test]
fn syntax_end_of_input() {
    insta::assert_snapshot!(error("kernel:entry { @a[tid.x] = count();\n"), @r#"
    stdin:1:36-37: ERROR: syntax error: unexpected end of input, expected statement, `;` or `}`
    kernel:entry { @a[tid.x] = count();
                                       ~
    "#);
}

#[test]
fn syntax_missing_bracket() {
    insta::assert_snapshot!(error("kernel:entry { @a[tid.x = count(); }"), @r#"
    stdin:1:25-26: ERROR: syntax error: unexpected `=`, expected operator, `,` or `]`
    kernel:entry { @a[tid.x = count(); }
                            ~
    "#);
}

#[test]
fn syntax_empty_predicate_operand() {
    insta::assert_snapshot!(error("kernel:entry /tid.x == / { @a = count(); }"), @r#"
    stdin:1:24-25: ERROR: syntax error: unexpected `/`, expected expression
    kernel:entry /tid.x == / { @a = count(); }
                           ~
    "#);
}

#[test]
fn syntax_missing_brace() {
    insta::assert_snapshot!(error("kernel:entry @a = count(); }"), @r#"
    stdin:1:14-15: ERROR: syntax error: unexpected `@`, expected `,`, `/` or `{`
    kernel:entry @a = count(); }
                 ~
    "#);
}

#[test]
fn syntax_unterminated_comment() {
    insta::assert_snapshot!(error("kernel:entry /* no end { @a = count(); }"), @r#"
    stdin:1:14-16: ERROR: syntax error: unterminated comment
    kernel:entry /* no end { @a = count(); }
                 ~~
    "#);
}

#[test]
fn syntax_on_second_line() {
    insta::assert_snapshot!(error("kernel:entry {\n  @a = count(;\n}"), @r#"
    stdin:2:14-15: ERROR: syntax error: unexpected `;`, expected expression or `)`
      @a = count(;
                 ~
    "#);
}

#[test]
fn int_too_large() {
    insta::assert_snapshot!(error("kernel:entry { @a = sum(99999999999999999999); }"), @r#"
    stdin:1:25-45: ERROR: integer literal `99999999999999999999` does not fit in 64 bits
    kernel:entry { @a = sum(99999999999999999999); }
                            ~~~~~~~~~~~~~~~~~~~~
    HINT: decimal literals are i64; hex literals may use all 64 bits
    "#);
}

#[test]
fn unknown_attach_point() {
    insta::assert_snapshot!(error("kernel:foo { @a = count(); }"), @r#"
    stdin:1:1-11: ERROR: unknown attach point `kernel:foo`
    kernel:foo { @a = count(); }
    ~~~~~~~~~~
    HINT: valid attach points: begin, end, launch:complete, interval:<s|ms|us|hz>:<n>, launch:begin, launch:end, kernel:entry, kernel:exit, mem:<global|shared|local|generic|*>:<load|store|atomic|async|*>, tensor:mma, sync:barrier, branch, loop:header, loop:backedge, loop:exit, line:<file>:<from>[-<to>], region:entry:<file>:<from>-<to>, region:exit:<file>:<from>-<to>, ptx:<opcode-glob>, gcn:<opcode-glob>; device ones take an optional kernel-name glob as last component (e.g. mem:global:load:*gemm*) and the prefixes `warp` and `after`
    "#);
}

#[test]
fn unknown_mem_space_and_op() {
    insta::assert_snapshot!(error("mem:texture:load, mem:global:read { @a = count(); }"), @r#"
    stdin:1:1-17: ERROR: unknown attach point `mem:texture:load`
    mem:texture:load, mem:global:read { @a = count(); }
    ~~~~~~~~~~~~~~~~
    HINT: valid attach points: begin, end, launch:complete, interval:<s|ms|us|hz>:<n>, launch:begin, launch:end, kernel:entry, kernel:exit, mem:<global|shared|local|generic|*>:<load|store|atomic|async|*>, tensor:mma, sync:barrier, branch, loop:header, loop:backedge, loop:exit, line:<file>:<from>[-<to>], region:entry:<file>:<from>-<to>, region:exit:<file>:<from>-<to>, ptx:<opcode-glob>, gcn:<opcode-glob>; device ones take an optional kernel-name glob as last component (e.g. mem:global:load:*gemm*) and the prefixes `warp` and `after`
    stdin:1:19-34: ERROR: unknown attach point `mem:global:read`
    mem:texture:load, mem:global:read { @a = count(); }
                      ~~~~~~~~~~~~~~~
    HINT: did you mean `mem:global:load`?
    HINT: valid attach points: begin, end, launch:complete, interval:<s|ms|us|hz>:<n>, launch:begin, launch:end, kernel:entry, kernel:exit, mem:<global|shared|local|generic|*>:<load|store|atomic|async|*>, tensor:mma, sync:barrier, branch, loop:header, loop:backedge, loop:exit, line:<file>:<from>[-<to>], region:entry:<file>:<from>-<to>, region:exit:<file>:<from>-<to>, ptx:<opcode-glob>, gcn:<opcode-glob>; device ones take an optional kernel-name glob as last component (e.g. mem:global:load:*gemm*) and the prefixes `warp` and `after`
    "#);
}

#[test]
fn attach_point_too_many_components() {
    insta::assert_snapshot!(error("kernel:entry:add:x { @a = count(); }"), @r#"
    stdin:1:1-19: ERROR: unknown attach point `kernel:entry:add:x`
    kernel:entry:add:x { @a = count(); }
    ~~~~~~~~~~~~~~~~~~
    HINT: valid attach points: begin, end, launch:complete, interval:<s|ms|us|hz>:<n>, launch:begin, launch:end, kernel:entry, kernel:exit, mem:<global|shared|local|generic|*>:<load|store|atomic|async|*>, tensor:mma, sync:barrier, branch, loop:header, loop:backedge, loop:exit, line:<file>:<from>[-<to>], region:entry:<file>:<from>-<to>, region:exit:<file>:<from>-<to>, ptx:<opcode-glob>, gcn:<opcode-glob>; device ones take an optional kernel-name glob as last component (e.g. mem:global:load:*gemm*) and the prefixes `warp` and `after`
    "#);
}

#[test]
fn unknown_builtin() {
    insta::assert_snapshot!(error("kernel:entry { @a[tidd.x] = count(); }"), @r#"
    stdin:1:19-25: ERROR: unknown builtin `tidd.x`
    kernel:entry { @a[tidd.x] = count(); }
                      ~~~~~~
    HINT: did you mean `tid.x`?
    HINT: valid builtins: tid.x, tid.y, tid.z, ntid.x, ntid.y, ntid.z, ctaid.x, ctaid.y, ctaid.z, nctaid.x, nctaid.y, nctaid.z, smid, nsmid, warpid, clock, clock64, globaltimer, warp, lane, thread, block, activemask, active, kernel, launch, duration, shared, stream, pc, file, line, opcode, addr, bytes, sectors, wavefronts, run, value
    "#);
}

#[test]
fn addr_at_kernel_entry() {
    insta::assert_snapshot!(error("kernel:entry { @a[addr] = count(); }"), @r#"
    stdin:1:19-23: ERROR: builtin `addr` is not valid at kernel:entry
    kernel:entry { @a[addr] = count(); }
                      ~~~~
    HINT: `addr` is valid at mem:*:*, ptx:*, gcn:*
    "#);
}

#[test]
fn bytes_at_kernel_entry() {
    insta::assert_snapshot!(error("kernel:entry { @a = sum(bytes); }"), @r#"
    stdin:1:25-30: ERROR: builtin `bytes` is not valid at kernel:entry
    kernel:entry { @a = sum(bytes); }
                            ~~~~~
    HINT: `bytes` is valid at mem:*:*, ptx:*, gcn:*
    "#);
}

#[test]
fn bytes_at_one_of_two_attach_points() {
    insta::assert_snapshot!(error("mem:global:load, kernel:exit:*gemm* { @a = sum(bytes); }"), @r#"
    stdin:1:48-53: ERROR: builtin `bytes` is not valid at kernel:exit:*gemm*
    mem:global:load, kernel:exit:*gemm* { @a = sum(bytes); }
                                                   ~~~~~
    HINT: `bytes` is valid at mem:*:*, ptx:*, gcn:*
    "#);
}

#[test]
fn unknown_function() {
    insta::assert_snapshot!(error("kernel:entry { @a = foo(2); }"), @r#"
    stdin:1:21-24: ERROR: unknown function `foo`
    kernel:entry { @a = foo(2); }
                        ~~~
    HINT: valid functions: count, sum, min, max, avg, stats, hist, lhist, printf, print, clear, zero, delete, exit
    "#);
}

#[test]
fn aggregation_argument_count() {
    insta::assert_snapshot!(error("kernel:entry { @a = avg(); @b = lhist(smid, 0, 10); }"), @r#"
    stdin:1:21-26: ERROR: `avg()` takes one argument, found 0
    kernel:entry { @a = avg(); @b = lhist(smid, 0, 10); }
                        ~~~~~
    HINT: `avg(x)`: average of x
    stdin:1:33-51: ERROR: `lhist()` takes four arguments, found 3
    kernel:entry { @a = avg(); @b = lhist(smid, 0, 10); }
                                    ~~~~~~~~~~~~~~~~~~
    HINT: `lhist(x, min, max, step)`: linear histogram of x; constant bounds
    "#);
}

#[test]
fn wrong_argument_count() {
    insta::assert_snapshot!(error("kernel:entry { @a = count(1); @b = sum(); }"), @r#"
    stdin:1:21-29: ERROR: `count()` takes no arguments, found 1
    kernel:entry { @a = count(1); @b = sum(); }
                        ~~~~~~~~
    HINT: `count()`: count of updates
    stdin:1:36-41: ERROR: `sum()` takes one argument, found 0
    kernel:entry { @a = count(1); @b = sum(); }
                                       ~~~~~
    HINT: `sum(x)`: sum of x (wrapping)
    "#);
}

#[test]
fn an_arity_error_shows_the_signature_and_hist_k_points_at_lhist() {
    insta::assert_snapshot!(error("kernel:entry { @h = hist(smid, 2); }"), @r#"
    stdin:1:21-34: ERROR: `hist()` takes one argument, found 2
    kernel:entry { @h = hist(smid, 2); }
                        ~~~~~~~~~~~~~
    HINT: `hist(x)`: log2 histogram of x
    HINT: bpftrace's `hist(x, k)` (sub-buckets, v0.18+) is not supported: `lhist(x, min, max, step)` gives linear buckets
    "#);
}

#[test]
fn aggregation_in_expression() {
    insta::assert_snapshot!(error("kernel:entry { @a[count()] = count(); }"), @r#"
    stdin:1:19-26: ERROR: `count()` is an aggregation: it can only be the value assigned to a map
    kernel:entry { @a[count()] = count(); }
                      ~~~~~~~
    HINT: write `@map[keys] = count(...)`
    "#);
}

#[test]
fn kernel_as_map_value() {
    insta::assert_snapshot!(error("kernel:entry { @a = kernel; }"), @r#"
    stdin:1:21-27: ERROR: type error: `kernel` is a kernel id, not an integer, so it cannot be a map value
    kernel:entry { @a = kernel; }
                        ~~~~~~
    HINT: use `kernel` as a map key, e.g. `@n[kernel] = count()`
    "#);
}

#[test]
fn kernel_in_arithmetic() {
    insta::assert_snapshot!(error("kernel:entry { @a[kernel + 1] = count(); }"), @r#"
    stdin:1:19-25: ERROR: type error: `kernel` is a kernel id, not an integer, so it cannot be an operand of `+`
    kernel:entry { @a[kernel + 1] = count(); }
                      ~~~~~~
    HINT: use `kernel` as a map key, e.g. `@n[kernel] = count()`
    "#);
}

#[test]
fn kernel_in_predicate_comparison() {
    insta::assert_snapshot!(error("kernel:entry /kernel == 1/ { @a = count(); }"), @r#"
    stdin:1:15-21: ERROR: type error: `kernel` is a kernel id, not an integer, so it cannot be an operand of `==`
    kernel:entry /kernel == 1/ { @a = count(); }
                  ~~~~~~
    HINT: use `kernel` as a map key, e.g. `@n[kernel] = count()`
    "#);
}

#[test]
fn kernel_as_predicate() {
    insta::assert_snapshot!(error("kernel:entry /kernel/ { @a = count(); }"), @r#"
    stdin:1:15-21: ERROR: type error: `kernel` is a kernel id, not an integer, so it cannot be a predicate
    kernel:entry /kernel/ { @a = count(); }
                  ~~~~~~
    HINT: use `kernel` as a map key, e.g. `@n[kernel] = count()`
    "#);
}

#[test]
fn kernel_summed() {
    insta::assert_snapshot!(error("kernel:entry { @a = sum(kernel); }"), @r#"
    stdin:1:25-31: ERROR: type error: `kernel` is a kernel id, not an integer, so it cannot be summed
    kernel:entry { @a = sum(kernel); }
                            ~~~~~~
    HINT: use `kernel` as a map key, e.g. `@n[kernel] = count()`
    "#);
}

#[test]
fn map_key_arity() {
    insta::assert_snapshot!(error("kernel:entry { @a[kernel] = count(); }\nkernel:exit { @a[kernel, smid] = count(); }"), @r#"
    stdin:2:15-31: ERROR: map `@a` is used with 2 keys here but with 1 key before
    kernel:exit { @a[kernel, smid] = count(); }
                  ~~~~~~~~~~~~~~~~
    stdin:1:16-26: HINT: first used here
    kernel:entry { @a[kernel] = count(); }
                   ~~~~~~~~~~
    HINT: a map's keys and value are fixed by its first use
    "#);
}

#[test]
fn map_key_type() {
    insta::assert_snapshot!(error("kernel:entry { @a[kernel, tid.x] = count(); @a[kernel, -1] = count(); }"), @r#"
    stdin:1:56-58: ERROR: map `@a`: key 2 is i64 here but u64 before
    kernel:entry { @a[kernel, tid.x] = count(); @a[kernel, -1] = count(); }
                                                           ~~
    stdin:1:27-32: HINT: first used here
    kernel:entry { @a[kernel, tid.x] = count(); @a[kernel, -1] = count(); }
                              ~~~~~
    HINT: a map's keys and value are fixed by its first use
    "#);
}

#[test]
fn map_value() {
    insta::assert_snapshot!(error("kernel:entry { @a = count(); }\nmem:global:load { @a = sum(bytes); }"), @r#"
    stdin:2:24-34: ERROR: map `@a` is assigned sum() of u64 here but count() before
    mem:global:load { @a = sum(bytes); }
                           ~~~~~~~~~~
    stdin:1:21-28: HINT: first used here
    kernel:entry { @a = count(); }
                        ~~~~~~~
    HINT: a map's keys and value are fixed by its first use
    "#);
}

#[test]
fn map_sum_signedness() {
    insta::assert_snapshot!(error("mem:global:load { @a = sum(bytes); @a = sum(-1); }"), @r#"
    stdin:1:41-48: ERROR: map `@a` is assigned sum() of i64 here but sum() of u64 before
    mem:global:load { @a = sum(bytes); @a = sum(-1); }
                                            ~~~~~~~
    stdin:1:24-34: HINT: first used here
    mem:global:load { @a = sum(bytes); @a = sum(-1); }
                           ~~~~~~~~~~
    HINT: a map's keys and value are fixed by its first use
    "#);
}

#[test]
fn divisor_may_be_zero() {
    insta::assert_snapshot!(error("kernel:entry { @a = sum(tid.x / tid.y); }"), @r#"
    stdin:1:33-38: ERROR: divisor may be zero
    kernel:entry { @a = sum(tid.x / tid.y); }
                                    ~~~~~
    HINT: divide by a non-zero constant, or by a value made non-zero, e.g. `x | 1`
    "#);
}

#[test]
fn remainder_divisor_may_be_zero() {
    insta::assert_snapshot!(error("kernel:entry /smid % (tid.x + 1)/ { @a = count(); }"), @r#"
    stdin:1:23-32: ERROR: divisor may be zero
    kernel:entry /smid % (tid.x + 1)/ { @a = count(); }
                          ~~~~~~~~~
    HINT: divide by a non-zero constant, or by a value made non-zero, e.g. `x | 1`
    "#);
}

#[test]
fn division_by_zero() {
    insta::assert_snapshot!(error("kernel:entry { @a = sum(tid.x / (2 - 2)); }"), @r#"
    stdin:1:34-39: ERROR: division by zero
    kernel:entry { @a = sum(tid.x / (2 - 2)); }
                                     ~~~~~
    "#);
}

#[test]
fn errors_accumulate() {
    insta::assert_snapshot!(error("kernel:foo { @a[tidd.x] = avg(1); }\nkernel:entry { @b = sum(smid / smid); }"), @r#"
    stdin:1:1-11: ERROR: unknown attach point `kernel:foo`
    kernel:foo { @a[tidd.x] = avg(1); }
    ~~~~~~~~~~
    HINT: valid attach points: begin, end, launch:complete, interval:<s|ms|us|hz>:<n>, launch:begin, launch:end, kernel:entry, kernel:exit, mem:<global|shared|local|generic|*>:<load|store|atomic|async|*>, tensor:mma, sync:barrier, branch, loop:header, loop:backedge, loop:exit, line:<file>:<from>[-<to>], region:entry:<file>:<from>-<to>, region:exit:<file>:<from>-<to>, ptx:<opcode-glob>, gcn:<opcode-glob>; device ones take an optional kernel-name glob as last component (e.g. mem:global:load:*gemm*) and the prefixes `warp` and `after`
    stdin:1:17-23: ERROR: unknown builtin `tidd.x`
    kernel:foo { @a[tidd.x] = avg(1); }
                    ~~~~~~
    HINT: did you mean `tid.x`?
    HINT: valid builtins: tid.x, tid.y, tid.z, ntid.x, ntid.y, ntid.z, ctaid.x, ctaid.y, ctaid.z, nctaid.x, nctaid.y, nctaid.z, smid, nsmid, warpid, clock, clock64, globaltimer, warp, lane, thread, block, activemask, active, kernel, launch, duration, shared, stream, pc, file, line, opcode, addr, bytes, sectors, wavefronts, run, value
    stdin:2:32-36: ERROR: divisor may be zero
    kernel:entry { @b = sum(smid / smid); }
                                   ~~~~
    HINT: divide by a non-zero constant, or by a value made non-zero, e.g. `x | 1`
    "#);
}

#[test]
fn multi_line_span_and_tabs() {
    insta::assert_snapshot!(error("kernel:entry {\n\t@m[kernel,\n\t   smid] = count();\n}\nkernel:exit {\n\t@m[kernel] = count();\n}"), @r#"
    stdin:6:2-12: ERROR: map `@m` is used with 1 key here but with 2 keys before
        @m[kernel] = count();
        ~~~~~~~~~~
    stdin:2:2-12: HINT: first used here
        @m[kernel,
        ~~~~~~~~~~
    HINT: a map's keys and value are fixed by its first use
    "#);
}

#[test]
fn too_deep() {
    let source = format!("kernel:entry {{ @a = sum({}1); }}", "-".repeat(300));
    let rendered = error(&source);
    let first = rendered.lines().next().unwrap_or_default();
    assert_eq!(
        first,
        "stdin:1:69-326: ERROR: expression nested too deeply (more than 256 levels)"
    );
    let parens = format!(
        "kernel:entry {{ @a = sum({}1{}); }}",
        "(".repeat(300),
        ")".repeat(300)
    );
    assert!(error(&parens).contains("ERROR: expression nested too deeply"));
    let chain = format!("kernel:entry {{ @a = sum(smid{}); }}", " + 1".repeat(300));
    assert!(error(&chain).contains("ERROR: expression nested too deeply"));
}

#[test]
fn too_many_registers() {
    // Each statement takes two registers: `smid` and the sum.
    let source = format!(
        "kernel:entry {{ {} }}",
        "@a = sum(smid + 1); ".repeat(33_000)
    );
    let rendered = error(&source);
    assert!(
        rendered.contains("ERROR: probe needs more than 65535 registers"),
        "{rendered}"
    );
}

#[test]
fn file_name_display_and_colour() {
    let e = warptrace_lang::compile("kernel:foo { @a = count(); }", "probes/x.wt")
        .err()
        .unwrap_or_else(|| panic!("`kernel:foo` compiled"));
    let rendered = e.render();
    assert!(
        rendered.starts_with("probes/x.wt:1:1-11: ERROR: "),
        "{rendered}"
    );
    assert_eq!(e.to_string(), rendered);
    assert!(!rendered.contains('\x1b'));

    use codespan_reporting::term::termcolor::Buffer;
    let mut coloured = Buffer::ansi();
    e.emit(&mut coloured).unwrap_or_else(|err| panic!("{err}"));
    let coloured = String::from_utf8_lossy(coloured.as_slice()).into_owned();
    assert!(coloured.contains("\x1b["), "{coloured}");
    let mut plain = Buffer::no_color();
    e.emit(&mut plain).unwrap_or_else(|err| panic!("{err}"));
    assert_eq!(String::from_utf8_lossy(plain.as_slice()), rendered);
}

#[test]
fn region_points_have_a_place_but_no_instruction() {
    // `pc` and `line` name the region; `after` and the instruction's own builtins do not
    // apply; `region:` needs its end and a line range.
    insta::assert_snapshot!(error("after region:entry:a.cu:3-9 { @a[pc, line] = count(); }\n\
        region:exit:a.cu:3-9 { @b[opcode] = count(); }\nregion:middle:a.cu:3-9, region:exit:a.cu:9-3 { }"), @r#"
    stdin:1:1-6: ERROR: `after` is not valid at region:entry:a.cu:3-9
    after region:entry:a.cu:3-9 { @a[pc, line] = count(); }
    ~~~~~
    HINT: `after` applies to instruction probes: mem, tensor:mma, sync:barrier, branch, line, ptx, gcn
    stdin:2:27-33: ERROR: builtin `opcode` is not valid at region:exit:a.cu:3-9
    region:exit:a.cu:3-9 { @b[opcode] = count(); }
                              ~~~~~~
    HINT: `opcode` is valid at instruction probes: mem, tensor:mma, sync:barrier, branch, line, ptx, gcn
    stdin:3:1-23: ERROR: unknown attach point `region:middle:a.cu:3-9`
    region:middle:a.cu:3-9, region:exit:a.cu:9-3 { }
    ~~~~~~~~~~~~~~~~~~~~~~
    HINT: valid attach points: begin, end, launch:complete, interval:<s|ms|us|hz>:<n>, launch:begin, launch:end, kernel:entry, kernel:exit, mem:<global|shared|local|generic|*>:<load|store|atomic|async|*>, tensor:mma, sync:barrier, branch, loop:header, loop:backedge, loop:exit, line:<file>:<from>[-<to>], region:entry:<file>:<from>-<to>, region:exit:<file>:<from>-<to>, ptx:<opcode-glob>, gcn:<opcode-glob>; device ones take an optional kernel-name glob as last component (e.g. mem:global:load:*gemm*) and the prefixes `warp` and `after`
    stdin:3:25-45: ERROR: unknown attach point `region:exit:a.cu:9-3`
    region:middle:a.cu:3-9, region:exit:a.cu:9-3 { }
                            ~~~~~~~~~~~~~~~~~~~~
    HINT: valid attach points: begin, end, launch:complete, interval:<s|ms|us|hz>:<n>, launch:begin, launch:end, kernel:entry, kernel:exit, mem:<global|shared|local|generic|*>:<load|store|atomic|async|*>, tensor:mma, sync:barrier, branch, loop:header, loop:backedge, loop:exit, line:<file>:<from>[-<to>], region:entry:<file>:<from>-<to>, region:exit:<file>:<from>-<to>, ptx:<opcode-glob>, gcn:<opcode-glob>; device ones take an optional kernel-name glob as last component (e.g. mem:global:load:*gemm*) and the prefixes `warp` and `after`
    "#);
}
