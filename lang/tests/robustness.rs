//! No input may panic: every prefix of valid programs, and some garbage, must give
//! `Ok` or `Err` (with a renderable error).

const PROGRAMS: &[&str] = &[
    "kernel:entry /tid.x == 0 && tid.y == 0 && tid.z == 0/ { @blocks[kernel] = count(); } mem:global:load { @ldbytes[kernel] = sum(bytes); }",
    "// c\nmem:global:store:*gemm*, mem:global:* /* c */ { @a[kernel, ctaid.x] = sum(bytes * 2 + -1); ; @b = count() }",
    "kernel:entry /(smid % 3) << 2 >= 0x10 || !~tid.y/ {\n\t@m[smid / -2, clock64 >> 1] = sum((tid.x ^ tid.z) & 0xffffffffffffffff);\n}",
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
        assert!(
            warptrace_lang::compile(program, "stdin").is_ok(),
            "{program}"
        );
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
