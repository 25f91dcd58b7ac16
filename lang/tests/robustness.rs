//! No input may panic: every prefix of valid programs, and some garbage, must give
//! `Ok` or `Err` (with a renderable error).

const PROGRAMS: &[&str] = &[
    "kernel:entry /tid.x == 0 && tid.y == 0 && tid.z == 0/ { @blocks[kernel] = count(); } mem:global:load { @ldbytes[kernel] = sum(bytes); }",
    "// c\nmem:global:store:*gemm*, mem:global:* /* c */ { @a[kernel, ctaid.x] = sum(bytes * 2 + -1); ; @b = count() }",
    "kernel:entry /(smid % 3) << 2 >= 0x10 || !~tid.y/ {\n\t@m[smid / -2, clock64 >> 1] = sum((tid.x ^ tid.z) & 0xffffffffffffffff);\n}",
    "config { hash_keys = 1K; }\nmap @t: ring(capacity = 1M, overflow = drop);\nmap @s: array(per = warp, slots = 2);\nbegin { printf(\"go %d\\n\", 1); }\nkernel:entry { %t0 = clock64; }\nwarp after mem:global:load:*gemm* /lane == 0/ { $d = clock64 - %t0; if ($d > 10) { @h[smid] = hist($d); } else if ($d < 2) { @l = lhist($d, 0, 10, 2); } else { @s = ($d, (u8)value); } unroll(2) { $d = $d ? $d / (smid | 1) : 1; } @t = (kernel, $d); }\nend { print(@h); clear(@l); delete(@h[0]); exit(); }",
    "line:\"a b.cu\":3-9, ptx:ld.*, branch:*mm* { printf(\"%s %d %llx\\n\", kernel, (i16)line, pc); @m[pc] = avg(clock); @n = stats(warp); @o = min(-1); @p = max((bool)lane); @q[active] = activemask; }",
];

const GARBAGE: &[&str] = &[
    "",
    " ",
    "\n\n",
    "{",
    "}",
    "/",
    "//",
    "/*",
    "*/",
    "@",
    "@a",
    "kernel",
    "kernel:",
    ":",
    "::",
    "kernel:entry {",
    "kernel:entry { @",
    "kernel:entry { @a[",
    "kernel:entry /",
    "kernel:entry //",
    "kernel:entry /*/ { }",
    "kernel:entry { @a = count(); } }",
    "\u{feff}kernel:entry {}",
    "kernel:entry { @a[\u{e9}] = count(); }",
    "ké:entry {}",
    "kernel:entry { @a = sum(0x); }",
    "kernel:entry { @a = sum(1/0); }",
    "kernel:entry { @a = sum(18446744073709551616); }",
    "kernel:entry { @a = sum(-9223372036854775808); }",
    "\t\tkernel:foo\t{ }",
    "kernel:entry { @a = count(); @a[1] = sum(2); @a = avg(); }\r\n",
];

fn compile_does_not_panic(source: &str) {
    match warptrace_lang::compile(source, "stdin") {
        Ok(program) => {
            let _ = program.to_string();
        }
        Err(e) => {
            let text = e.render();
            assert!(text.contains("ERROR: "), "{source:?}: {text}");
        }
    }
}

#[test]
fn prefixes_of_valid_programs() {
    for program in PROGRAMS {
        if let Err(e) = warptrace_lang::compile(program, "stdin") {
            panic!("{program}\n{e}");
        }
        for (i, _) in program.char_indices() {
            compile_does_not_panic(&program[..i]);
            compile_does_not_panic(&program[i..]);
        }
    }
}

#[test]
fn garbage() {
    for source in GARBAGE {
        compile_does_not_panic(source);
    }
    // Every byte value at every position of a short program.
    let base = "kernel:entry /smid/ { @a[kernel] = sum(1); }";
    for (i, _) in base.char_indices() {
        for c in (0u8..128).map(char::from).chain(['é', '\u{2028}', '🦀']) {
            let mut s = base.to_string();
            s.insert(i, c);
            compile_does_not_panic(&s);
        }
    }
    let deep = "(".repeat(100_000);
    compile_does_not_panic(&format!("kernel:entry {{ @a = sum({deep}); }}"));
    compile_does_not_panic(&format!("kernel:entry /{}1/ {{ }}", "!".repeat(100_000)));
}

/// Deep nesting of every recursive shape gives an error or compiles, never a crash: the
/// parser's stack guard and the bracket, expression and statement limits bound every
/// stage's recursion (on the test thread's default 2 MiB stack).
#[test]
fn deep_nesting() {
    let shapes: [fn(usize) -> String; 9] = [
        |n| format!("kernel:entry {{ @a = sum({}1); }}", "(u8)".repeat(n)),
        |n| format!("kernel:entry {{ @a = sum({}1); }}", "(u8)-".repeat(n)),
        |n| format!("kernel:entry {{ @a = sum({}1); }}", "-~".repeat(n)),
        |n| format!("kernel:entry {{ @a = sum({}1); }}", "1 ? 2 : ".repeat(n)),
        |n| {
            let (open, close) = ("smid ? ".repeat(n), " : 2".repeat(n));
            format!("kernel:entry {{ @a = sum({open}1{close}); }}")
        },
        |n| format!("kernel:entry {{ @a = sum({}1); }}", "1 + ".repeat(n)),
        |n| {
            format!(
                "kernel:entry {{ @a = sum({}1{}); }}",
                "sum(".repeat(n),
                ")".repeat(n)
            )
        },
        |n| {
            let chain = "else if (smid == 1) { @a = count(); } ".repeat(n);
            format!("kernel:entry {{ if (smid == 0) {{ }} {chain}else {{ }} }}")
        },
        |n| {
            let (open, close) = ("unroll(2) { ".repeat(n), " }".repeat(n));
            format!("kernel:entry {{ {open}@a = count();{close} }}")
        },
    ];
    for n in [2_000, 20_000, 100_000] {
        for shape in shapes {
            compile_does_not_panic(&shape(n));
        }
    }
}

/// An `else if` is an `if` nested in the one before, and the checker and lowering recurse
/// per level: a chain of up to 1023 `else if`s (1024 levels) compiles, a longer one is an
/// error, not a stack overflow. (On a large stack, which a debug build's parser needs to
/// get that far.)
#[test]
fn long_else_if_chains() {
    let chain = |n: usize| {
        let chain = "else if (smid == 1) { @a = count(); } ".repeat(n);
        format!(
            "kernel:entry {{ if (smid == 0) {{ @a = count(); }} {chain}else {{ @a = count(); }} }}"
        )
    };
    let compile = move |n| {
        std::thread::Builder::new()
            .stack_size(256 << 20)
            .spawn(move || {
                warptrace_lang::compile(&chain(n), "stdin")
                    .map(|_| ())
                    .map_err(|e| e.render())
            })
            .expect("spawn")
            .join()
            .expect("join")
    };
    if let Err(e) = compile(1023) {
        panic!("1023 `else if`s must compile:\n{e}");
    }
    match compile(1024) {
        Ok(()) => panic!("1024 `else if`s must be an error"),
        Err(e) => assert!(
            e.contains("ERROR: statements nested too deeply (more than 1024 levels"),
            "{e}"
        ),
    }
}
