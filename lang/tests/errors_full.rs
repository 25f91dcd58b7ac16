//! The error paths of the full language (attach modifiers, variables, types, maps and
//! declarations, printf, host-only functions, lhist, unroll, config), compared as
//! rendered text. The skeleton's error paths are in `errors.rs`.

fn error(source: &str) -> String {
    match warptrace_lang::compile(source, "stdin") {
        Ok(program) => panic!("compiled, but an error was expected:\n{program}"),
        Err(e) => e.render(),
    }
}

macro_rules! error_test {
    ($name:ident, $source:expr, @$expected:literal) => {
        #[test]
        fn $name() {
            insta::assert_snapshot!(error($source), @$expected);
        }
    };
}

error_test!(after_at_kernel_entry, "after kernel:entry, warp begin { }", @r#"
    stdin:1:1-6: ERROR: `after` is not valid at kernel:entry
    after kernel:entry, warp begin { }
    ~~~~~
    HINT: `after` applies to instruction probes: mem, tensor:mma, sync:barrier, branch, line, ptx, gcn
    stdin:1:21-25: ERROR: `warp` is not valid at begin
    after kernel:entry, warp begin { }
                        ~~~~
    HINT: `warp` applies to device probes
"#);
error_test!(syntax_if_without_parens, "kernel:entry { if smid > 1 { @a = count(); } }", @r#"
    stdin:1:19-23: ERROR: syntax error: unexpected `smid`, expected `(`
    kernel:entry { if smid > 1 { @a = count(); } }
                      ~~~~
"#);
error_test!(syntax_map_declaration, "map @a: hash(keys = 4096)\nkernel:entry { }", @r#"
    stdin:2:1-7: ERROR: syntax error: unexpected `kernel`, expected `;`
    kernel:entry { }
    ~~~~~~
"#);
error_test!(syntax_bad_string_escape, "begin { printf(\"\\q\"); }", @r#"
    stdin:1:16-17: ERROR: syntax error: unexpected `"`, expected expression or `)`
    begin { printf("\q"); }
                   ~
"#);
error_test!(host_only_function_on_device, "kernel:exit, end { @a = count(); print(@a); exit(); }", @r#"
    stdin:1:34-39: ERROR: `print()` is not valid at kernel:exit
    kernel:exit, end { @a = count(); print(@a); exit(); }
                                     ~~~~~
    HINT: `print()` is valid only in begin, end, launch:complete and interval blocks
    stdin:1:45-49: ERROR: `exit()` is not valid at kernel:exit
    kernel:exit, end { @a = count(); print(@a); exit(); }
                                                ~~~~
    HINT: `exit()` is valid only in begin, end, launch:complete and interval blocks
"#);
error_test!(persistent_register_in_host_block, "begin { %x = 1; } kernel:entry { %x = 2; }", @r#"
    stdin:1:9-11: ERROR: persistent register `%x` is not valid at begin
    begin { %x = 1; } kernel:entry { %x = 2; }
            ~~
    HINT: it is valid only in device probes
"#);
error_test!(record_in_host_block, "end { @r = (1, 2); }", @r#"
    stdin:1:12-18: ERROR: a record write is not valid at end
    end { @r = (1, 2); }
               ~~~~~~
    HINT: it is valid only in device probes
"#);
error_test!(device_builtin_in_host_block, "begin { printf(\"%d\\n\", smid); }", @r#"
    stdin:1:24-28: ERROR: builtin `smid` is not valid at begin
    begin { printf("%d\n", smid); }
                           ~~~~
    HINT: `smid` is valid at device probes (not begin, end, launch:complete, interval)
"#);
error_test!(value_before_a_load, "mem:global:load, after mem:global:store, mem:global:* { @v = sum(value); }", @r#"
    stdin:1:66-71: ERROR: builtin `value` is not valid at mem:global:load
    mem:global:load, after mem:global:store, mem:global:* { @v = sum(value); }
                                                                     ~~~~~
    HINT: `value` is valid at mem:*:store (before), mem:*:load (after), mem:*:atomic, ptx:*, gcn:*
    stdin:1:66-71: ERROR: builtin `value` is not valid at after mem:global:store
    mem:global:load, after mem:global:store, mem:global:* { @v = sum(value); }
                                                                     ~~~~~
    HINT: `value` is valid at mem:*:store (before), mem:*:load (after), mem:*:atomic, ptx:*, gcn:*
    stdin:1:66-71: ERROR: builtin `value` is not valid at mem:global:*
    mem:global:load, after mem:global:store, mem:global:* { @v = sum(value); }
                                                                     ~~~~~
    HINT: `value` is valid at mem:*:store (before), mem:*:load (after), mem:*:atomic, ptx:*, gcn:*
"#);
error_test!(pc_at_kernel_entry, "kernel:entry { @p = count(); @q[pc] = count(); }", @r#"
    stdin:1:33-35: ERROR: builtin `pc` is not valid at kernel:entry
    kernel:entry { @p = count(); @q[pc] = count(); }
                                    ~~
    HINT: `pc` is valid at instruction probes (mem, tensor:mma, sync:barrier, branch, line, ptx, gcn), loop points (there: the loop header's first instruction) and region points (the instruction the region starts at)
"#);
error_test!(statement_call_in_expression, "kernel:entry { @a = sum(printf(\"x\")); }", @r#"
    stdin:1:25-36: ERROR: `printf()` does not return a value: call it as a statement
    kernel:entry { @a = sum(printf("x")); }
                            ~~~~~~~~~~~
"#);
error_test!(aggregation_as_statement_or_scratch, "kernel:entry { count(); $x = sum(1); }", @r#"
    stdin:1:16-23: ERROR: `count()` is an aggregation: it can only be the value assigned to a map
    kernel:entry { count(); $x = sum(1); }
                   ~~~~~~~
    HINT: write `@map[keys] = count(...)`
    stdin:1:30-36: ERROR: `sum()` is an aggregation: it can only be the value assigned to a map
    kernel:entry { count(); $x = sum(1); }
                                 ~~~~~~
    HINT: write `@map[keys] = sum(...)`
"#);
error_test!(string_outside_printf, "kernel:entry { @a = sum(\"x\"); }", @r#"
    stdin:1:25-28: ERROR: a string can only be a map key, a printf format or argument, or a kernel's name compared with `kernel`
    kernel:entry { @a = sum("x"); }
                            ~~~
    HINT: e.g. `@ops["load"] = count()`, `printf("%s", "text")` or `kernel == "softmax_kernel"`
"#);
error_test!(record_outside_map_assignment, "kernel:entry { $r = (1, 2); }", @r#"
    stdin:1:21-27: ERROR: a record `(a, b, ...)` can only be assigned to a map
    kernel:entry { $r = (1, 2); }
                        ~~~~~~
    HINT: e.g. `@trace = (clock64, smid)` appends a record to a ring
"#);
error_test!(map_read, "kernel:entry { @a = count(); @b = sum(@a); }", @r#"
    stdin:1:39-41: ERROR: reading a map's value is not supported: the IR has no map lookup: probes write maps, print() shows them
    kernel:entry { @a = count(); @b = sum(@a); }
                                          ~~
"#);
error_test!(print_arguments, "kernel:entry { @a[1] = count(); } end { print(5); print(@a[1]); clear(); exit(1); }", @r#"
    stdin:1:47-48: ERROR: `print()` expects a map, e.g. `print(@m)`
    kernel:entry { @a[1] = count(); } end { print(5); print(@a[1]); clear(); exit(1); }
                                                  ~
    stdin:1:57-62: ERROR: `print()` expects a whole map, without keys, e.g. `print(@m)`
    kernel:entry { @a[1] = count(); } end { print(5); print(@a[1]); clear(); exit(1); }
                                                            ~~~~~
    stdin:1:65-72: ERROR: `clear()` takes one argument, found 0
    kernel:entry { @a[1] = count(); } end { print(5); print(@a[1]); clear(); exit(1); }
                                                                    ~~~~~~~
    HINT: `clear(@m)`: remove every key of a map
    stdin:1:74-81: ERROR: `exit()` takes no arguments, found 1
    kernel:entry { @a[1] = count(); } end { print(5); print(@a[1]); clear(); exit(1); }
                                                                             ~~~~~~~
    HINT: `exit()`: stop tracing; end blocks run next
"#);
error_test!(scratch_type_mismatch, "kernel:entry { $x = smid; $x = clock64; }", @r#"
    stdin:1:32-39: ERROR: type mismatch: `$x` is u32, but is assigned u64 here
    kernel:entry { $x = smid; $x = clock64; }
                                   ~~~~~~~
    stdin:1:16-18: HINT: type fixed here
    kernel:entry { $x = smid; $x = clock64; }
                   ~~
    HINT: a variable's type is fixed by its first assignment; convert with a cast, e.g. `(u32)x`
"#);
error_test!(persistent_type_mismatch, "kernel:entry { %t = clock; }\nkernel:exit { %t = clock64; }", @r#"
    stdin:2:20-27: ERROR: type mismatch: `%t` is u32, but is assigned u64 here
    kernel:exit { %t = clock64; }
                       ~~~~~~~
    stdin:1:16-18: HINT: type fixed here
    kernel:entry { %t = clock; }
                   ~~
    HINT: a variable's type is fixed by its first assignment; convert with a cast, e.g. `(u32)x`
"#);
error_test!(scratch_never_set, "kernel:entry { @a = sum($x); }", @r#"
    stdin:1:25-27: ERROR: scratch variable `$x` is used before it is set
    kernel:entry { @a = sum($x); }
                            ~~
    HINT: scratch variables live for one probe firing: set it earlier in this block
"#);
error_test!(scratch_not_set_on_every_path, "kernel:entry { if (smid) { $x = 1; } @a = sum($x); }", @r#"
    stdin:1:47-49: ERROR: scratch variable `$x` is used before it is set
    kernel:entry { if (smid) { $x = 1; } @a = sum($x); }
                                                  ~~
    stdin:1:28-30: HINT: set here, but not on every path to the use
    kernel:entry { if (smid) { $x = 1; } @a = sum($x); }
                               ~~
"#);
error_test!(persistent_never_assigned, "kernel:exit { @a = hist(clock64 - %t0); }", @r#"
    stdin:1:35-38: ERROR: persistent register `%t0` is never assigned
    kernel:exit { @a = hist(clock64 - %t0); }
                                      ~~~
    HINT: persistent registers are zero at kernel entry; assign it in some probe, e.g. `kernel:entry { %t0 = clock64; }`
"#);
error_test!(unknown_map, "kernel:entry { @a = count(); } end { print(@b); clear(@c); }", @r#"
    stdin:1:44-46: ERROR: unknown map `@b`
    kernel:entry { @a = count(); } end { print(@b); clear(@c); }
                                               ~~
    HINT: maps written by this program: @a
    stdin:1:55-57: ERROR: unknown map `@c`
    kernel:entry { @a = count(); } end { print(@b); clear(@c); }
                                                          ~~
    HINT: maps written by this program: @a
"#);
error_test!(unknown_map_without_maps, "end { zero(@b); }", @r#"
    stdin:1:12-14: ERROR: unknown map `@b`
    end { zero(@b); }
               ~~
    HINT: no statement of this program writes a map
"#);
error_test!(aggregation_on_a_ring, "map @r: ring(capacity = 1K);\nkernel:entry { @r = count(); }", @r#"
    stdin:2:21-28: ERROR: map `@r` is a ring map: it holds records, not aggregations
    kernel:entry { @r = count(); }
                        ~~~~~~~
    stdin:1:5-7: HINT: declared here
    map @r: ring(capacity = 1K);
        ~~
    HINT: aggregations need a hash map; assign a record instead, e.g. `@m = (clock64, smid)`
"#);
error_test!(record_on_a_hash, "map @h: hash(keys = 64);\nkernel:entry { @h = (smid, 1); }", @r#"
    stdin:2:21-30: ERROR: map `@h` is a hash map: it cannot hold a record
    kernel:entry { @h = (smid, 1); }
                        ~~~~~~~~~
    stdin:1:5-7: HINT: declared here
    map @h: hash(keys = 64);
        ~~
    HINT: declare a ring or an array for records, e.g. `map @m: ring(capacity = 1M);`
"#);
error_test!(per_warp_array_from_a_thread_probe, "map @s: array(per = warp);\nkernel:entry { @s = (clock64, smid); }", @r#"
    stdin:2:16-18: ERROR: map `@s` is a per-warp array map: it holds one record per warp, but this probe runs in every lane
    kernel:entry { @s = (clock64, smid); }
                   ~~
    stdin:1:5-7: HINT: declared here
    map @s: array(per = warp);
        ~~
    HINT: save it from a `warp` probe (`warp kernel:entry { @m = (clock64); }`), or declare `array(per = thread)`
"#);
error_test!(record_with_keys, "kernel:entry { @r[smid] = (smid, 1); }", @r#"
    stdin:1:16-24: ERROR: map `@r` is a ring map: records take no keys
    kernel:entry { @r[smid] = (smid, 1); }
                   ~~~~~~~~
    HINT: write `@m = (a, b, ...)`
"#);
error_test!(delete_on_a_ring, "kernel:entry { @r = (smid, 1); } end { delete(@r); }", @r#"
    stdin:1:47-49: ERROR: map `@r` is a ring map: delete() removes keys of hash maps
    kernel:entry { @r = (smid, 1); } end { delete(@r); }
                                                  ~~
    HINT: clear() empties a ring or an array
"#);
error_test!(delete_key_mismatch, "kernel:entry { @h[kernel] = count(); } end { delete(@h[1, 2]); }", @r#"
    stdin:1:53-61: ERROR: map `@h` is used with 2 keys here but with 1 key before
    kernel:entry { @h[kernel] = count(); } end { delete(@h[1, 2]); }
                                                        ~~~~~~~~
    stdin:1:16-26: HINT: first used here
    kernel:entry { @h[kernel] = count(); } end { delete(@h[1, 2]); }
                   ~~~~~~~~~~
    HINT: a map's keys and value are fixed by its first use
"#);
error_test!(record_fields_mismatch, "kernel:entry { @r = (smid, 1); }\nkernel:exit { @r = (smid, kernel); }", @r#"
    stdin:2:20-34: ERROR: map `@r` is assigned a record (u64, kernel) here but a record (u64, i64) before
    kernel:exit { @r = (smid, kernel); }
                       ~~~~~~~~~~~~~~
    stdin:1:21-30: HINT: first used here
    kernel:entry { @r = (smid, 1); }
                        ~~~~~~~~~
    HINT: a map's keys and value are fixed by its first use
"#);
error_test!(map_value_kind_mismatch, "kernel:entry { @a = hist(smid); }\nkernel:exit { @a = lhist(smid, 0, 10, 1); }", @r#"
    stdin:2:20-41: ERROR: map `@a` is assigned lhist(x, 0, 10, 1) here but hist() before
    kernel:exit { @a = lhist(smid, 0, 10, 1); }
                       ~~~~~~~~~~~~~~~~~~~~~
    stdin:1:21-31: HINT: first used here
    kernel:entry { @a = hist(smid); }
                        ~~~~~~~~~~
    HINT: a map's keys and value are fixed by its first use
"#);
error_test!(unknown_map_kind, "map @a: tree(keys = 4);", @r#"
    stdin:1:9-13: ERROR: unknown map kind `tree`
    map @a: tree(keys = 4);
            ~~~~
    HINT: map kinds: hash(keys = N), array(per = thread|warp, slots = N), ring(capacity = N, overflow = drop|overwrite)
"#);
error_test!(map_declaration_parameters, "map @a: hash(slots = 4);\nmap @b: hash(keys = 1000);\nmap @c: ring(overflow = keep);\nmap @d: array(per = 4);\nmap @e: ring(capacity = 0);\nmap @f: array(slots = drop);", @r#"
    stdin:1:14-19: ERROR: `slots` is not a parameter of hash maps here (parameters: keys)
    map @a: hash(slots = 4);
                 ~~~~~
    HINT: map kinds: hash(keys = N), array(per = thread|warp, slots = N), ring(capacity = N, overflow = drop|overwrite)
    stdin:2:21-25: ERROR: `keys` must be a power of two
    map @b: hash(keys = 1000);
                        ~~~~
    HINT: map kinds: hash(keys = N), array(per = thread|warp, slots = N), ring(capacity = N, overflow = drop|overwrite)
    stdin:3:25-29: ERROR: `overflow` is drop or overwrite
    map @c: ring(overflow = keep);
                            ~~~~
    HINT: map kinds: hash(keys = N), array(per = thread|warp, slots = N), ring(capacity = N, overflow = drop|overwrite)
    stdin:4:21-22: ERROR: `per` is thread or warp
    map @d: array(per = 4);
                        ~
    HINT: map kinds: hash(keys = N), array(per = thread|warp, slots = N), ring(capacity = N, overflow = drop|overwrite)
    stdin:5:25-26: ERROR: `capacity` must be from 1 to 4294967295
    map @e: ring(capacity = 0);
                            ~
    HINT: map kinds: hash(keys = N), array(per = thread|warp, slots = N), ring(capacity = N, overflow = drop|overwrite)
    stdin:6:23-27: ERROR: `slots` takes a size
    map @f: array(slots = drop);
                          ~~~~
    HINT: map kinds: hash(keys = N), array(per = thread|warp, slots = N), ring(capacity = N, overflow = drop|overwrite)
"#);
error_test!(map_declared_twice, "map @a: hash(keys = 4);\nmap @a: ring();", @r#"
    stdin:2:5-7: ERROR: map `@a` is declared twice
    map @a: ring();
        ~~
    stdin:1:5-7: HINT: first set here
    map @a: hash(keys = 4);
        ~~
"#);
error_test!(size_too_large, "map @a: ring(capacity = 99999999999999999999);", @r#"
    stdin:1:25-45: ERROR: integer literal `99999999999999999999` does not fit in 64 bits
    map @a: ring(capacity = 99999999999999999999);
                            ~~~~~~~~~~~~~~~~~~~~
    HINT: decimal literals are i64; hex literals may use all 64 bits
"#);
error_test!(config_errors, "config { hash_keys = 1000; ring_capacity = \"x\"; colour = 1; ring_capacity = 5; printf_capacity = 8G; }", @r#"
    stdin:1:22-26: ERROR: config `hash_keys` takes a power of two
    config { hash_keys = 1000; ring_capacity = "x"; colour = 1; ring_capacity = 5; printf_capacity = 8G; }
                         ~~~~
    HINT: config keys: hash_keys, ring_capacity, printf_capacity, max_map_keys, print_maps_on_exit (sizes such as 4096, 64K, 1M)
    stdin:1:44-47: ERROR: config `ring_capacity` takes a size from 1 to 4294967295
    config { hash_keys = 1000; ring_capacity = "x"; colour = 1; ring_capacity = 5; printf_capacity = 8G; }
                                               ~~~
    HINT: config keys: hash_keys, ring_capacity, printf_capacity, max_map_keys, print_maps_on_exit (sizes such as 4096, 64K, 1M)
    stdin:1:49-55: ERROR: unknown config key `colour`
    config { hash_keys = 1000; ring_capacity = "x"; colour = 1; ring_capacity = 5; printf_capacity = 8G; }
                                                    ~~~~~~
    HINT: config keys: hash_keys, ring_capacity, printf_capacity, max_map_keys, print_maps_on_exit (sizes such as 4096, 64K, 1M)
    stdin:1:61-74: ERROR: config key `ring_capacity` is set twice
    config { hash_keys = 1000; ring_capacity = "x"; colour = 1; ring_capacity = 5; printf_capacity = 8G; }
                                                                ~~~~~~~~~~~~~
    stdin:1:28-41: HINT: first set here
    config { hash_keys = 1000; ring_capacity = "x"; colour = 1; ring_capacity = 5; printf_capacity = 8G; }
                               ~~~~~~~~~~~~~
    stdin:1:98-100: ERROR: config `printf_capacity` takes a size from 1 to 4294967295
    config { hash_keys = 1000; ring_capacity = "x"; colour = 1; ring_capacity = 5; printf_capacity = 8G; }
                                                                                                     ~~
    HINT: config keys: hash_keys, ring_capacity, printf_capacity, max_map_keys, print_maps_on_exit (sizes such as 4096, 64K, 1M)
"#);
error_test!(printf_format_not_a_string, "kernel:entry { printf(smid); printf(); }", @r#"
    stdin:1:23-27: ERROR: printf: the first argument must be a format string
    kernel:entry { printf(smid); printf(); }
                          ~~~~
    HINT: conversions: %d %i %u %x %X %o %c %s %p, with flags, width and h/l/ll/z/j sizes; %% prints %; %s takes `kernel` or a string (`str($1)`, "text")
    stdin:1:30-38: ERROR: printf: the first argument must be a format string
    kernel:entry { printf(smid); printf(); }
                                 ~~~~~~~~
    HINT: conversions: %d %i %u %x %X %o %c %s %p, with flags, width and h/l/ll/z/j sizes; %% prints %; %s takes `kernel` or a string (`str($1)`, "text")
"#);
error_test!(printf_argument_count, "kernel:entry { printf(\"%d %d\\n\", smid); printf(\"%d\\n\", smid, lane); }", @r#"
    stdin:1:16-39: ERROR: printf: the format has 2 conversions but 1 argument is given
    kernel:entry { printf("%d %d\n", smid); printf("%d\n", smid, lane); }
                   ~~~~~~~~~~~~~~~~~~~~~~~
    HINT: conversions: %d %i %u %x %X %o %c %s %p, with flags, width and h/l/ll/z/j sizes; %% prints %; %s takes `kernel` or a string (`str($1)`, "text")
    stdin:1:41-67: ERROR: printf: the format has 1 conversion but 2 arguments are given
    kernel:entry { printf("%d %d\n", smid); printf("%d\n", smid, lane); }
                                            ~~~~~~~~~~~~~~~~~~~~~~~~~~
    HINT: conversions: %d %i %u %x %X %o %c %s %p, with flags, width and h/l/ll/z/j sizes; %% prints %; %s takes `kernel` or a string (`str($1)`, "text")
"#);
error_test!(printf_invalid_conversion, "kernel:entry { printf(\"%q\\n\", smid); printf(\"50%\"); }", @r#"
    stdin:1:23-29: ERROR: printf: invalid conversion `%q`
    kernel:entry { printf("%q\n", smid); printf("50%"); }
                          ~~~~~~
    HINT: conversions: %d %i %u %x %X %o %c %s %p, with flags, width and h/l/ll/z/j sizes; %% prints %; %s takes `kernel` or a string (`str($1)`, "text")
    stdin:1:45-50: ERROR: printf: incomplete conversion `%` at the end of the format
    kernel:entry { printf("%q\n", smid); printf("50%"); }
                                                ~~~~~
    HINT: conversions: %d %i %u %x %X %o %c %s %p, with flags, width and h/l/ll/z/j sizes; %% prints %; %s takes `kernel` or a string (`str($1)`, "text")
"#);
error_test!(printf_argument_types, "kernel:entry { printf(\"%d\\n\", kernel); printf(\"%s\\n\", smid); }", @r#"
    stdin:1:31-37: ERROR: printf: `%d` expects an integer, but `kernel` is a kernel id: print its name with %s
    kernel:entry { printf("%d\n", kernel); printf("%s\n", smid); }
                                  ~~~~~~
    HINT: conversions: %d %i %u %x %X %o %c %s %p, with flags, width and h/l/ll/z/j sizes; %% prints %; %s takes `kernel` or a string (`str($1)`, "text")
    stdin:1:55-59: ERROR: printf: `%s` expects `kernel` or a string, found u32
    kernel:entry { printf("%d\n", kernel); printf("%s\n", smid); }
                                                          ~~~~
    HINT: conversions: %d %i %u %x %X %o %c %s %p, with flags, width and h/l/ll/z/j sizes; %% prints %; %s takes `kernel` or a string (`str($1)`, "text")
"#);
error_test!(lhist_bounds, "kernel:entry { @a = lhist(smid, 0, smid, 1); @b = lhist(smid, 0, 10, 0); @c = lhist(smid, 10, 0, 1); @d = lhist(smid, 0, 10, 3); @e = lhist(smid, 0, 100000, 1); }", @r#"
    stdin:1:36-40: ERROR: lhist(): min, max and step must be integer constants
    kernel:entry { @a = lhist(smid, 0, smid, 1); @b = lhist(smid, 0, 10, 0); @c = lhist(smid, 10, 0, 1); @d = lhist(smid, 0, 10, 3); @e = lhist(smid, 0, 100000, 1); }
                                       ~~~~
    HINT: lhist(x, min, max, step): constant bounds, min < max, step > 0, (max - min) a multiple of step, at most 1000 buckets
    stdin:1:51-72: ERROR: lhist(): step must be positive
    kernel:entry { @a = lhist(smid, 0, smid, 1); @b = lhist(smid, 0, 10, 0); @c = lhist(smid, 10, 0, 1); @d = lhist(smid, 0, 10, 3); @e = lhist(smid, 0, 100000, 1); }
                                                      ~~~~~~~~~~~~~~~~~~~~~
    HINT: lhist(x, min, max, step): constant bounds, min < max, step > 0, (max - min) a multiple of step, at most 1000 buckets
    stdin:1:79-100: ERROR: lhist(): min must be below max
    kernel:entry { @a = lhist(smid, 0, smid, 1); @b = lhist(smid, 0, 10, 0); @c = lhist(smid, 10, 0, 1); @d = lhist(smid, 0, 10, 3); @e = lhist(smid, 0, 100000, 1); }
                                                                                  ~~~~~~~~~~~~~~~~~~~~~
    HINT: lhist(x, min, max, step): constant bounds, min < max, step > 0, (max - min) a multiple of step, at most 1000 buckets
    stdin:1:107-128: ERROR: lhist(): max - min must be a multiple of step
    kernel:entry { @a = lhist(smid, 0, smid, 1); @b = lhist(smid, 0, 10, 0); @c = lhist(smid, 10, 0, 1); @d = lhist(smid, 0, 10, 3); @e = lhist(smid, 0, 100000, 1); }
                                                                                                              ~~~~~~~~~~~~~~~~~~~~~
    HINT: lhist(x, min, max, step): constant bounds, min < max, step > 0, (max - min) a multiple of step, at most 1000 buckets
    stdin:1:135-160: ERROR: lhist(): at most 1000 buckets
    kernel:entry { @a = lhist(smid, 0, smid, 1); @b = lhist(smid, 0, 10, 0); @c = lhist(smid, 10, 0, 1); @d = lhist(smid, 0, 10, 3); @e = lhist(smid, 0, 100000, 1); }
                                                                                                                                          ~~~~~~~~~~~~~~~~~~~~~~~~~
    HINT: lhist(x, min, max, step): constant bounds, min < max, step > 0, (max - min) a multiple of step, at most 1000 buckets
"#);
error_test!(unroll_count, "kernel:entry { unroll(smid) { @a = count(); } unroll(65) { @b = count(); } unroll(0) { } }", @r#"
    stdin:1:23-27: ERROR: unroll count must be an integer constant from 1 to 64
    kernel:entry { unroll(smid) { @a = count(); } unroll(65) { @b = count(); } unroll(0) { } }
                          ~~~~
    stdin:1:54-56: ERROR: unroll count must be an integer constant from 1 to 64
    kernel:entry { unroll(smid) { @a = count(); } unroll(65) { @b = count(); } unroll(0) { } }
                                                         ~~
    stdin:1:83-84: ERROR: unroll count must be an integer constant from 1 to 64
    kernel:entry { unroll(smid) { @a = count(); } unroll(65) { @b = count(); } unroll(0) { } }
                                                                                      ~
"#);
error_test!(for_range_bounds, "kernel:entry { for ($i : smid..3) { } for ($i : 0..65) { } }", @r#"
    stdin:1:26-33: ERROR: a `for` range must be integer constants `a..b` with at most 64 values
    kernel:entry { for ($i : smid..3) { } for ($i : 0..65) { } }
                             ~~~~~~~
    HINT: the body is unrolled once per value (a probe's control flow is a DAG), e.g. `for ($i : 0..4) { @sum = sum($i); }`
    stdin:1:49-54: ERROR: a `for` range must be integer constants `a..b` with at most 64 values
    kernel:entry { for ($i : smid..3) { } for ($i : 0..65) { } }
                                                    ~~~~~
    HINT: the body is unrolled once per value (a probe's control flow is a DAG), e.g. `for ($i : 0..4) { @sum = sum($i); }`
"#);
error_test!(kernel_in_conditional_and_cast, "kernel:entry { @a[smid ? kernel : 1] = count(); @b[(u32)kernel] = count(); }", @r#"
    stdin:1:26-32: ERROR: type error: `kernel` is a kernel id, not an integer, so it cannot be one arm of `?:` when the other is an integer
    kernel:entry { @a[smid ? kernel : 1] = count(); @b[(u32)kernel] = count(); }
                             ~~~~~~
    HINT: use `kernel` as a map key, e.g. `@n[kernel] = count()`
    stdin:1:57-63: ERROR: type error: `kernel` is a kernel id, not an integer, so it cannot be cast
    kernel:entry { @a[smid ? kernel : 1] = count(); @b[(u32)kernel] = count(); }
                                                            ~~~~~~
    HINT: use `kernel` as a map key, e.g. `@n[kernel] = count()`
"#);

#[test]
fn too_many_instructions() {
    let source = "kernel:entry { unroll(64) { unroll(64) { unroll(64) { unroll(64) { @a = count(); } } } } }";
    let rendered = error(source);
    assert!(rendered.starts_with("stdin:1:"), "{rendered}");
    assert!(
        rendered.contains("ERROR: probe needs more than 1048576 instructions"),
        "{rendered}"
    );
}

#[test]
fn brackets_nested_too_deeply() {
    let source = format!(
        "kernel:entry {{ @a = sum({}1{}); }}",
        "(".repeat(70),
        ")".repeat(70)
    );
    let rendered = error(&source);
    assert!(
        rendered.starts_with(
            "stdin:1:87-88: ERROR: expression nested too deeply (more than 64 levels)"
        ),
        "{rendered}"
    );
}
error_test!(compound_assignment_on_a_map_needs_its_value, "begin { @m *= 2; @n <<= 1; $x = 1; $x *= 3; }", @r#"
    stdin:1:12-14: ERROR: `*=` on a map needs the map's current value, which a probe cannot read yet
    begin { @m *= 2; @n <<= 1; $x = 1; $x *= 3; }
               ~~
    HINT: `+=`, `-=`, `++` and `--` work on maps (they add, as `sum()` does); every compound assignment works on `$` and `%` variables
    stdin:1:21-24: ERROR: `<<=` on a map needs the map's current value, which a probe cannot read yet
    begin { @m *= 2; @n <<= 1; $x = 1; $x *= 3; }
                        ~~~
    HINT: `+=`, `-=`, `++` and `--` work on maps (they add, as `sum()` does); every compound assignment works on `$` and `%` variables
"#);
error_test!(compound_assignment_reads_the_variable, "begin { $y += 1; } kernel:entry { ++$z; }", @r#"
    stdin:1:9-11: ERROR: scratch variable `$y` is used before it is set
    begin { $y += 1; } kernel:entry { ++$z; }
            ~~
    HINT: scratch variables live for one probe firing: set it earlier in this block
    stdin:1:37-39: ERROR: scratch variable `$z` is used before it is set
    begin { $y += 1; } kernel:entry { ++$z; }
                                        ~~
    HINT: scratch variables live for one probe firing: set it earlier in this block
"#);
error_test!(assignment_where_a_comparison_goes, "kernel:entry /smid = 3/ { @x = count(); }", @r#"
    stdin:1:20-21: ERROR: syntax error: unexpected `=`, expected operator, `/` or `(`
    kernel:entry /smid = 3/ { @x = count(); }
                       ~
    HINT: `=` assigns; to compare, write `==`
"#);
error_test!(loops_point_at_unroll_and_loop_probes, "kernel:entry { for ($i = 0; $i < 3; $i++) { } }", @r#"
    stdin:1:24-25: ERROR: syntax error: unexpected `=`, expected operator, `,`, `:` or `)`
    kernel:entry { for ($i = 0; $i < 3; $i++) { } }
                           ~
    HINT: a probe's `for` is bpftrace's range loop over constants, `for ($i : 0..4) { ... }` (unrolled: a probe's control flow is a DAG); a kernel's own loops are attach points (`loop:header`, `loop:backedge`, `loop:exit`)
"#);
error_test!(misspellings_get_the_nearest_name, "mem:global:lod:*gemm* { @x[smidd] = cnt(); }\nkernel:entri { @y[comm] = count(); }", @r#"
    stdin:1:1-22: ERROR: unknown attach point `mem:global:lod:*gemm*`
    mem:global:lod:*gemm* { @x[smidd] = cnt(); }
    ~~~~~~~~~~~~~~~~~~~~~
    HINT: did you mean `mem:global:load:*gemm*`?
    HINT: valid attach points: begin, end, launch:complete, interval:<s|ms|us|hz>:<n>, launch:begin, launch:end, kernel:entry, kernel:exit, mem:<global|shared|local|generic|*>:<load|store|atomic|async|*>, tensor:mma, sync:barrier, branch, loop:header, loop:backedge, loop:exit, line:<file>:<from>[-<to>], region:entry:<file>:<from>-<to>, region:exit:<file>:<from>-<to>, ptx:<opcode-glob>, gcn:<opcode-glob>; device ones take an optional kernel-name glob as last component (e.g. mem:global:load:*gemm*) and the prefixes `warp` and `after`
    stdin:1:28-33: ERROR: unknown builtin `smidd`
    mem:global:lod:*gemm* { @x[smidd] = cnt(); }
                               ~~~~~
    HINT: did you mean `smid`?
    HINT: valid builtins: tid.x, tid.y, tid.z, ntid.x, ntid.y, ntid.z, ctaid.x, ctaid.y, ctaid.z, nctaid.x, nctaid.y, nctaid.z, smid, nsmid, warpid, clock, clock64, globaltimer, warp, lane, thread, block, activemask, active, kernel, launch, duration, shared, stream, pc, file, line, opcode, addr, bytes, sectors, wavefronts, run, value
    stdin:1:37-40: ERROR: unknown function `cnt`
    mem:global:lod:*gemm* { @x[smidd] = cnt(); }
                                        ~~~
    HINT: valid functions: count, sum, min, max, avg, stats, hist, lhist, printf, print, clear, zero, delete, exit
    stdin:2:1-13: ERROR: unknown attach point `kernel:entri`
    kernel:entri { @y[comm] = count(); }
    ~~~~~~~~~~~~
    HINT: did you mean `kernel:entry`?
    HINT: valid attach points: begin, end, launch:complete, interval:<s|ms|us|hz>:<n>, launch:begin, launch:end, kernel:entry, kernel:exit, mem:<global|shared|local|generic|*>:<load|store|atomic|async|*>, tensor:mma, sync:barrier, branch, loop:header, loop:backedge, loop:exit, line:<file>:<from>[-<to>], region:entry:<file>:<from>-<to>, region:exit:<file>:<from>-<to>, ptx:<opcode-glob>, gcn:<opcode-glob>; device ones take an optional kernel-name glob as last component (e.g. mem:global:load:*gemm*) and the prefixes `warp` and `after`
    stdin:2:19-23: ERROR: unknown builtin `comm`
    kernel:entri { @y[comm] = count(); }
                      ~~~~
    HINT: bpftrace's `comm` is a process's name: a GPU probe runs in a kernel, and `kernel` names it
    HINT: valid builtins: tid.x, tid.y, tid.z, ntid.x, ntid.y, ntid.z, ctaid.x, ctaid.y, ctaid.z, nctaid.x, nctaid.y, nctaid.z, smid, nsmid, warpid, clock, clock64, globaltimer, warp, lane, thread, block, activemask, active, kernel, launch, duration, shared, stream, pc, file, line, opcode, addr, bytes, sectors, wavefronts, run, value
"#);
error_test!(strings_compare_only_with_kernel, "kernel:entry /smid == \"x\" || kernel < \"y\" || \"a\" == \"b\"/ { @n = count(); }", @r#"
    stdin:1:15-26: ERROR: a string compares only with `kernel` (kernel names are the only strings a probe sees)
    kernel:entry /smid == "x" || kernel < "y" || "a" == "b"/ { @n = count(); }
                  ~~~~~~~~~~~
    HINT: `kernel == "softmax_kernel"`; for a name pattern, put a glob on the attach point: `kernel:entry:*softmax*`
    stdin:1:30-42: ERROR: a string compares only with `==` or `!=`
    kernel:entry /smid == "x" || kernel < "y" || "a" == "b"/ { @n = count(); }
                                 ~~~~~~~~~~~~
    HINT: `kernel == "name"` or `kernel != "name"`
    stdin:1:46-56: ERROR: two strings cannot be compared
    kernel:entry /smid == "x" || kernel < "y" || "a" == "b"/ { @n = count(); }
                                                 ~~~~~~~~~~
    HINT: compare `kernel` with a kernel's name: `kernel == "softmax_kernel"`
"#);
error_test!(print_maps_on_exit_takes_a_truth_value, "config = { print_maps_on_exit = 2; max_map_keys = 0 } kernel:entry { }", @r#"
    stdin:1:33-34: ERROR: config `print_maps_on_exit` takes 0, 1, false or true
    config = { print_maps_on_exit = 2; max_map_keys = 0 } kernel:entry { }
                                    ~
    HINT: config keys: hash_keys, ring_capacity, printf_capacity, max_map_keys, print_maps_on_exit (sizes such as 4096, 64K, 1M)
    stdin:1:51-52: ERROR: config `max_map_keys` takes a size from 1 to 2147483648
    config = { print_maps_on_exit = 2; max_map_keys = 0 } kernel:entry { }
                                                      ~
    HINT: config keys: hash_keys, ring_capacity, printf_capacity, max_map_keys, print_maps_on_exit (sizes such as 4096, 64K, 1M)
"#);
error_test!(print_takes_constant_top_and_div, "begin { @m[1] = 2; $n = 3; print(@m, $n); print(@m, 1, 2, 3); print(@m, -1); }", @r#"
    stdin:1:38-40: ERROR: `print()` expects top and div as non-negative integer constants, e.g. `print(@m, 10, 1000)`
    begin { @m[1] = 2; $n = 3; print(@m, $n); print(@m, 1, 2, 3); print(@m, -1); }
                                         ~~
    stdin:1:43-61: ERROR: `print()` takes a map, then optionally top and div: `print(@m[, top[, div]])`, found 4
    begin { @m[1] = 2; $n = 3; print(@m, $n); print(@m, 1, 2, 3); print(@m, -1); }
                                              ~~~~~~~~~~~~~~~~~~
    HINT: `print(@m[, top[, div]])`: print a map: its top entries (0: all), values divided by div
    stdin:1:73-75: ERROR: `print()` expects top and div as non-negative integer constants, e.g. `print(@m, 10, 1000)`
    begin { @m[1] = 2; $n = 3; print(@m, $n); print(@m, 1, 2, 3); print(@m, -1); }
                                                                            ~~
"#);
