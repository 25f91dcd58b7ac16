//! Lexical differential test of the PTX parser against `ptxas`: where statements start
//! and end. Every form in [`FORMS`] is a small complete kernel whose body holds, written
//! some odd way, the marker instruction [`MARK`] (`add.u32 %r2, %r2, 0x5a5a17;`, its
//! result stored, so `ptxas` cannot drop or fold it). For each form:
//!
//! - `ptxas -arch=sm_90 -c` assembles it (or rejects it);
//! - `nvdisasm` (or `cuobjdump -sass`) says whether the constant `0x5a5a17` is in the
//!   SASS: whether `ptxas` assembled the marker. The forms' objects are linked with
//!   `nvlink` into one cubin and disassembled once (`nvdisasm` takes half a second a run
//!   whatever the size), each kernel named `lex_<form index>`;
//! - `warptrace_codegen_ptx::parse` says whether the model sees the marker: an `Instr`
//!   statement of the kernel body with opcode `add.u32`, the expected guard, destination
//!   `%r2`, a register, and last an immediate of value [`MARKER`].
//!
//! The two must agree (see [`Row::verdict`]): an instruction `ptxas` assembles but the
//! model misses, or sees mangled (a glued opcode that hides the destination), is one the
//! verifier never checked; a parser error on a kernel `ptxas` takes counts as "the model
//! sees nothing" and is reported apart; an instruction the model has but `ptxas` rejected
//! is a model of another program. Every form's row is printed (`--nocapture`); the
//! disagreements are listed together before failing.
//!
//! `ptxas`, `nvlink` and `nvdisasm` come from `scripts/setup.sh` (`source .tools/env.sh`);
//! without `ptxas` or a disassembler the test is skipped loudly, or fails under `CI=true`.
//! Forms are parsed and assembled on worker threads, one `ptxas` at a time each. With
//! `WARPTRACE_KEEP_LEXICAL=1` the modules (`lex_<i>.ptx`) are kept and their folder printed.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use warptrace_codegen_ptx::{parse, Operand, StmtKind};

/// The marker's constant: not a small or a power-of-two value, so it stays an immediate
/// of an `IADD3` in the SASS, printed by `nvdisasm` as `0x5a5a17`.
const MARKER: i64 = 0x5a5a17;

/// The marker instruction, substituted for `{M}` in a form's body.
const MARK: &str = "add.u32 %r2, %r2, 0x5a5a17;";

/// How the marker's constant is printed in the SASS.
const SASS_MARKER: &str = "0x5a5a17";

/// Substituted for `{PAD}` in a form's body: enough instructions (about 20 KiB) for the
/// module to pass the parser's split-parse threshold (32 KiB) with two of them.
const PAD_LINES: usize = 1200;

/// Line endings of the whole module.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Eol {
    Lf,
    Crlf,
    Cr,
}

/// One lexical form.
#[derive(Debug)]
struct Form {
    name: &'static str,
    /// Module-scope text after the header (before the kernel).
    head: &'static str,
    /// Body text after the prologue (`{M}`: the marker, `{PAD}`: padding).
    body: &'static str,
    /// Module-scope text after the kernel.
    tail: &'static str,
    /// The marker's expected guard as written (`@%p1`, `@!%p1`), or empty.
    guard: &'static str,
    eol: Eol,
}

const fn form(name: &'static str, body: &'static str) -> Form {
    Form {
        name,
        head: "",
        body,
        tail: "",
        guard: "",
        eol: Eol::Lf,
    }
}

const fn guarded(name: &'static str, guard: &'static str, body: &'static str) -> Form {
    Form {
        name,
        head: "",
        body,
        tail: "",
        guard,
        eol: Eol::Lf,
    }
}

const fn headed(name: &'static str, head: &'static str, body: &'static str) -> Form {
    Form {
        name,
        head,
        body,
        tail: "",
        guard: "",
        eol: Eol::Lf,
    }
}

const fn tailed(name: &'static str, body: &'static str, tail: &'static str) -> Form {
    Form {
        name,
        head: "",
        body,
        tail,
        guard: "",
        eol: Eol::Lf,
    }
}

const fn ended(name: &'static str, eol: Eol, body: &'static str) -> Form {
    Form {
        name,
        head: "",
        body,
        tail: "",
        guard: "",
        eol,
    }
}

/// The forms. The prologue before each body declares `%r<8>`, `%rd<4>`, `%p<4>`, loads
/// `%r2` from the parameter's address `%rd2` and sets `%p1`; the epilogue stores `%r2`.
const FORMS: &[Form] = &[
    form("baseline", "\t{M}\n"),
    // Line-terminated directives followed by a statement on the same line.
    form("loc_same_line", "\t.loc 1 10 3 {M}\n"),
    form("loc_same_line_tab", "\t.loc\t1\t10\t3\t{M}\n"),
    // As nvcc writes an inlined call's `.loc`, its name in `.debug_str` after the kernel.
    tailed(
        "loc_inlined_at_same_line",
        "\t.loc 1 2 3\n\t.loc 1 10 3, function_name $L__info_string0, inlined_at 1 2 3 {M}\n",
        DEBUG_STR,
    ),
    tailed(
        "loc_inlined_at_next_line",
        "\t.loc 1 2 3\n\t.loc 1 10 3, function_name $L__info_string0, inlined_at 1 2 3\n\t{M}\n",
        DEBUG_STR,
    ),
    form("loc_semicolon_same_line", "\t.loc 1 10 3; {M}\n"),
    form("loc_line_comment", "\t.loc 1 10 3 // c\n\t{M}\n"),
    form(
        "loc_block_comment_over_newline",
        "\t.loc 1 10 3 /* c\n */ {M}\n",
    ),
    form("loc_backslash_newline", "\t.loc 1 10 3 \\\n\t{M}\n"),
    form("loc_then_form_feed", "\t.loc 1 10 3\x0c{M}\n"),
    ended("loc_then_cr_only_eol", Eol::Cr, "\t.loc 1 10 3\n\t{M}\n"),
    ended("loc_then_crlf", Eol::Crlf, "\t.loc 1 10 3\n\t{M}\n"),
    form("file_in_body_same_line", "\t.file 2 \"b.cu\" {M}\n"),
    headed(
        "file_module_scope_then_kernel_marker",
        ".file 2 \"b.cu\" // {M}\n",
        "\t{M}\n",
    ),
    // Several statements on a line.
    form("two_on_one_line", "\tmov.u32 %r3, %r2; {M}\n"),
    form(
        "three_on_one_line",
        "\tmov.u32 %r3, %r2; {M} mov.u32 %r4, %r3;\n",
    ),
    form("no_space_after_semicolon", "\tmov.u32 %r3, %r2;{M}\n"),
    form("after_reg_decl_same_line", "\t.reg .b32 %t; {M}\n"),
    form("empty_statement_after", "\t{M};\n"),
    form("space_before_semicolon", "\tadd.u32 %r2, %r2, 0x5a5a17 ;\n"),
    // Statements split over lines.
    form(
        "split_at_every_token",
        "\tadd.u32\n%r2\n,\n%r2\n,\n0x5a5a17\n;\n",
    ),
    form(
        "split_with_comments_between_tokens",
        "\tadd.u32 // a\n%r2 /* b */\n, // c\n%r2\n,\n\n0x5a5a17 // d\n;\n",
    ),
    // Glued tokens.
    form("opcode_glued_to_operand", "\tadd.u32%r2, %r2, 0x5a5a17;\n"),
    form("operands_without_spaces", "\tadd.u32 %r2,%r2,0x5a5a17;\n"),
    guarded("guard_glued", "@%p1", "\t@%p1add.u32 %r2, %r2, 0x5a5a17;\n"),
    guarded("guard_space", "@%p1", "\t@%p1 {M}\n"),
    guarded("guard_negated", "@!%p1", "\t@!%p1 {M}\n"),
    guarded("guard_space_after_at", "@%p1", "\t@ %p1 {M}\n"),
    guarded("guard_space_after_bang", "@!%p1", "\t@! %p1 {M}\n"),
    guarded("guard_newline", "@%p1", "\t@%p1\n\t{M}\n"),
    guarded("guard_tab", "@%p1", "\t@%p1\t{M}\n"),
    guarded(
        "guard_comment_glued",
        "@%p1",
        "\t@%p1/* c */add.u32 %r2, %r2, 0x5a5a17;\n",
    ),
    guarded("label_then_guard", "@%p1", "L1: @%p1 {M}\n"),
    // Labels.
    form("label_then_instr_same_line", "L1: {M}\n"),
    form("label_glued", "L1:{M}\n"),
    form("label_space_before_colon", "L1 : {M}\n"),
    form("label_newline_before_colon", "L1\n: {M}\n"),
    form("label_block_comment_before_colon", "L1 /* c */ : {M}\n"),
    form("label_line_comment_before_colon", "L1 // c\n: {M}\n"),
    form("dollar_label", "$L__BB0_1: {M}\n"),
    form("dollar_label_newline_before_colon", "$L__BB0_1\n: {M}\n"),
    form("two_labels_one_line", "L1: L2: {M}\n"),
    // Comments.
    form("marker_in_line_comment", "\t// {M}\n"),
    form("marker_in_block_comment_multiline", "\t/*\n\t{M}\n\t*/\n"),
    form("marker_after_block_comment", "\t/* a\n b */ {M}\n"),
    form(
        "comment_between_opcode_and_operands",
        "\tadd.u32/* c */%r2, %r2, 0x5a5a17;\n",
    ),
    form(
        "comment_in_operand_list",
        "\tadd.u32 %r2, /* c */ %r2, /* d\n */ 0x5a5a17;\n",
    ),
    form(
        "semicolon_in_block_comment_in_instr",
        "\tadd.u32 %r2, /* ; */ %r2, 0x5a5a17;\n",
    ),
    form(
        "semicolon_in_line_comment_in_instr",
        "\tadd.u32 %r2, // ;\n\t%r2, 0x5a5a17;\n",
    ),
    form("line_comment_ending_in_backslash", "\t// c \\\n\t{M}\n"),
    form("line_comment_cr_only", "\t// c\r\t{M}\n"),
    form("line_comment_form_feed", "\t// c\x0c\t{M}\n"),
    form(
        "comment_inside_constant",
        "\tadd.u32 %r2, %r2, 0x5a5a/**/17;\n",
    ),
    form("comment_with_nul_byte", "\t// a\0b\n\t{M}\n"),
    form(
        "unicode_in_line_comment",
        "\t// h\u{e9}llo \u{2713} \u{2028} x\n\t{M}\n",
    ),
    form(
        "unicode_in_block_comment_in_instr",
        "\tadd.u32 %r2, /* \u{e9}\u{2028} */ %r2, 0x5a5a17;\n",
    ),
    form(
        "unicode_line_separator_as_newline",
        "\tmov.u32 %r3, %r2; // c\u{2028}{M}\n",
    ),
    // Backslashes.
    form(
        "backslash_newline_in_instr",
        "\tadd.u32 %r2, \\\n\t%r2, 0x5a5a17;\n",
    ),
    form("backslash_before_opcode", "\t\\ {M}\n"),
    form("backslash_glued_to_opcode", "\t\\{M}\n"),
    form("two_backslashes_before_opcode", "\t\\ \\ {M}\n"),
    guarded("backslash_after_guard", "@%p1", "\t@%p1 \\ {M}\n"),
    form("backslash_after_label", "L1: \\ {M}\n"),
    form(
        "backslash_ending_previous_line",
        "\tmov.u32 %r3, %r2; \\\n\t{M}\n",
    ),
    form(
        "backslash_after_opcode",
        "\tadd.u32 \\ %r2, %r2, 0x5a5a17;\n",
    ),
    form("loc_backslash_same_line", "\t.loc 1 10 3 \\ {M}\n"),
    form(
        "backslash_newline_in_constant",
        "\tadd.u32 %r2, %r2, 0x5a5a\\\n17;\n",
    ),
    // Strings.
    form(
        "marker_in_pragma_string",
        "\t.pragma \"add.u32 %r2, %r2, 0x5a5a17;\";\n",
    ),
    form(
        "after_pragma_nounroll_same_line",
        "\t.pragma \"nounroll\"; {M}\n",
    ),
    form("pragma_without_semicolon", "\t.pragma \"nounroll\" {M}\n"),
    form("after_unknown_pragma_same_line", "\t.pragma \"foo\"; {M}\n"),
    // ptxas has no escapes in strings: `\"` ends one.
    form(
        "pragma_string_ending_in_backslash",
        "\t.pragma \"nounroll\\\"; {M} // \";\n",
    ),
    form(
        "pragma_string_backslash_quote_inside",
        "\t.pragma \"a\\\" {M} \";\n",
    ),
    form("pragma_string_over_lines", "\t.pragma \"a\n\t{M}\n\";\n"),
    form("pragma_string_with_semicolon", "\t.pragma \"a;b\"; {M}\n"),
    form(
        "pragma_string_with_line_comment",
        "\t.pragma \"// x\"; {M}\n",
    ),
    form(
        "pragma_string_ending_in_two_backslashes",
        "\t.pragma \"a\\\\\"; {M}\n",
    ),
    form(
        "pragma_string_with_comment_opener",
        "\t.pragma \"/*\"; {M} .pragma \"*/\";\n",
    ),
    form("string_before_instr", "\t\"abc\" {M}\n"),
    form("line_comment_with_quote", "\t// \"\n\t{M}\n"),
    // Scopes.
    form("nested_scope", "\t{\n\t{M}\n\t}\n"),
    form("braces_same_line", "\t{ {M} }\n"),
    form("braces_glued", "\t{{M}}\n"),
    form(
        "scope_with_decl_same_line",
        "\t{ .reg .b32 %t; mov.u32 %t, %r2; add.u32 %r2, %t, 0x5a5a17; }\n",
    ),
    form("doubly_nested_scope", "\t{ { {M} } }\n"),
    form(
        "missing_semicolon_before_brace",
        "\t{ mov.u32 %r3, %r2 }\n\t{M}\n",
    ),
    // The C preprocessor.
    headed(
        "cpp_define",
        "#define MARKER_INSN add.u32 %r2, %r2, 0x5a5a17;\n",
        "\tMARKER_INSN\n",
    ),
    form("cpp_if0", "#if 0\n\t{M}\n#endif\n"),
    form("cpp_if1", "#if 1\n\t{M}\n#endif\n"),
    form("cpp_line", "#line 5 \"x.cu\"\n\t{M}\n"),
    form("cpp_line_then_instr_same_line", "#line 5 \"x.cu\" {M}\n"),
    form("cpp_line_without_file", "#line 5\n\t{M}\n"),
    form("cpp_line_with_comment", "#line 5 \"x.cu\" // c\n\t{M}\n"),
    form("cpp_line_indented", "\t#line 5 \"x.cu\"\n\t{M}\n"),
    form(
        "cpp_line_after_statement",
        "\tmov.u32 %r3, %r2; #line 5 \"x.cu\"\n\t{M}\n",
    ),
    form(
        "cpp_line_inside_instr",
        "\tadd.u32 %r2,\n#line 5 \"x.cu\"\n\t%r2, 0x5a5a17;\n",
    ),
    form("cpp_line_marker_in_file_name", "#line 5 \"{M}\"\n"),
    form("cpp_line_file_name_over_lines", "#line 5 \"x\n\t{M}\n\"\n"),
    form("cpp_linemarker", "# 5 \"x.cu\"\n\t{M}\n"),
    form("cpp_linemarker_flags", "# 5 \"x.cu\" 1 3\n\t{M}\n"),
    form("cpp_linemarker_then_instr_same_line", "# 5 \"x.cu\" {M}\n"),
    form("cpp_hash_comment_line", "# {M}\n"),
    // Whitespace.
    form("tabs", "\tadd.u32\t%r2,\t%r2,\t0x5a5a17;\n"),
    form("carriage_returns", "\tadd.u32\r%r2,\r%r2,\r0x5a5a17;\n"),
    form("form_feeds", "\tadd.u32\x0c%r2,\x0c%r2,\x0c0x5a5a17;\n"),
    form("vertical_tabs", "\tadd.u32\x0b%r2,\x0b%r2,\x0b0x5a5a17;\n"),
    form("vertical_tab_before_statement", "\x0b{M}\n"),
    form("no_break_space", "\tadd.u32\u{a0}%r2, %r2, 0x5a5a17;\n"),
    ended("crlf_line_endings", Eol::Crlf, "\t{M}\n"),
    ended(
        "crlf_split_instr",
        Eol::Crlf,
        "\tadd.u32 %r2,\n\t%r2,\n\t0x5a5a17;\n",
    ),
    ended("cr_only_line_endings", Eol::Cr, "\t{M}\n"),
    // The constant itself.
    form("constant_decimal", "\tadd.u32 %r2, %r2, 5921303;\n"),
    form("constant_u_suffix", "\tadd.u32 %r2, %r2, 0x5a5a17U;\n"),
    form(
        "constant_split_by_newline",
        "\tadd.u32 %r2, %r2, 0x5a5a\n17;\n",
    ),
    form(
        "constant_split_by_space",
        "\tadd.u32 %r2, %r2, 0x5a5a 17;\n",
    ),
    // Large modules: the parser reads them in two halves.
    form("large_split_parse", "{PAD}\t{M}\n{PAD}"),
    form(
        "large_block_comment_over_middle",
        "\t/*\n{PAD}\t{M}\n{PAD}\t*/\n",
    ),
    form(
        "large_loc_same_line_at_middle",
        "{PAD}\t.loc 1 10 3 {M}\n{PAD}",
    ),
];

/// `.debug_str` naming `$L__info_string0` (`_Z1fj`), as nvcc writes it after the kernels.
const DEBUG_STR: &str =
    "\t.section\t.debug_str\n\t{\n$L__info_string0:\n.b8 95,90,49,102,106,0\n\t}\n";

/// The kernel of form `i`: `lex_<i>`, distinct so that the forms link into one cubin.
fn kernel_name(i: usize) -> String {
    format!("lex_{i}")
}

/// The module of form `i`.
fn module(i: usize, form: &Form) -> String {
    let pad = "\tmov.u32 %r3, %r2;\n".repeat(PAD_LINES);
    let body = form.body.replace("{M}", MARK).replace("{PAD}", &pad);
    let text = format!(
        ".version 8.5\n.target sm_90\n.address_size 64\n.file 1 \"a.cu\"\n{head}\n\
         .visible .entry {k}(\n\t.param .u64 {k}_param_0\n)\n{{\n\
         \t.reg .b32 %r<8>;\n\t.reg .b64 %rd<4>;\n\t.reg .pred %p<4>;\n\n\
         \tld.param.u64 %rd1, [{k}_param_0];\n\tcvta.to.global.u64 %rd2, %rd1;\n\
         \tld.global.u32 %r2, [%rd2];\n\tsetp.ne.u32 %p1, %r2, 7;\n\
         {body}\
         \tst.global.u32 [%rd2], %r2;\n\tret;\n}}\n{tail}",
        head = form.head,
        tail = form.tail,
        k = kernel_name(i),
    );
    match form.eol {
        Eol::Lf => text,
        Eol::Crlf => text.replace('\n', "\r\n"),
        Eol::Cr => text.replace('\n', "\r"),
    }
}

/// A PTX integer literal's value (hexadecimal, binary, octal, decimal, `U` suffix),
/// as one token.
fn literal(s: &str) -> Option<i64> {
    // One token: spaces inside (`0x5a5a 17`) make it no number, as for the model's own
    // immediate reader and for ptxas.
    let s = s.trim().to_string();
    if s.contains(char::is_whitespace) {
        return None;
    }
    let (neg, s) = match s.strip_prefix('-') {
        Some(d) => (true, d.to_owned()),
        None => (false, s.strip_prefix('+').unwrap_or(&s).to_owned()),
    };
    let s = s.trim_end_matches(['U', 'u']);
    let v = if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        u64::from_str_radix(h, 16).ok()?
    } else if let Some(b) = s.strip_prefix("0b").or_else(|| s.strip_prefix("0B")) {
        u64::from_str_radix(b, 2).ok()?
    } else if s.len() > 1 && s.starts_with('0') {
        u64::from_str_radix(&s[1..], 8).ok()?
    } else {
        s.parse::<u64>().ok()?
    };
    let v = v as i64;
    Some(if neg { v.wrapping_neg() } else { v })
}

fn is_marker_imm(o: &Operand) -> bool {
    match o {
        Operand::Imm(v) => literal(v) == Some(MARKER),
        Operand::Vector(os) | Operand::Group(os) => os.iter().any(is_marker_imm),
        _ => false,
    }
}

/// Whether a statement's text mentions the marker's constant (hex or decimal).
fn mentions_marker(text: &str) -> bool {
    let t = text.to_ascii_lowercase();
    t.contains("5a5a17") || t.contains("5921303")
}

/// What the model makes of a form.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Model {
    /// `parse` failed.
    ParseError(String),
    /// The module parsed but has no kernel `lex` with a body.
    NoKernel,
    /// The marker instruction, read right.
    Sees,
    /// An instruction with the marker's constant, read wrong (opcode, guard, operands).
    Mangled(String),
    /// The constant only inside a non-instruction statement (a directive, a label).
    Hidden(String),
    /// No statement mentions the marker.
    Absent,
}

impl Model {
    fn word(&self) -> &'static str {
        match self {
            Model::ParseError(_) => "parse error",
            Model::NoKernel => "no kernel",
            Model::Sees => "yes",
            Model::Mangled(_) => "mangled",
            Model::Hidden(_) => "no (hidden)",
            Model::Absent => "no",
        }
    }

    fn note(&self) -> String {
        match self {
            Model::ParseError(e) => format!("parser: {e}"),
            Model::Mangled(t) => format!("model reads `{t}`"),
            Model::Hidden(t) => format!("inside `{t}`"),
            _ => String::new(),
        }
    }
}

fn model(i: usize, form: &Form, ptx: &str) -> Model {
    let m = match parse(ptx) {
        Ok(m) => m,
        Err(e) => return Model::ParseError(e.to_string()),
    };
    let Some(body) = m.kernel(&kernel_name(i)).and_then(|f| f.body.as_ref()) else {
        return Model::NoKernel;
    };
    let mut mangled = None;
    let mut hidden = None;
    for s in &body.stmts {
        match &s.kind {
            StmtKind::Instr(i) => {
                let guard = i.guard.as_ref().map(|g| g.text()).unwrap_or_default();
                let right = i.opcode == "add.u32"
                    && guard == form.guard
                    && i.operands.len() == 3
                    && i.operands[0] == Operand::Reg("%r2".into())
                    && matches!(i.operands[1], Operand::Reg(_))
                    && is_marker_imm(&i.operands[2]);
                if right {
                    return Model::Sees;
                }
                if i.operands.iter().any(is_marker_imm) || mentions_marker(&s.text) {
                    mangled.get_or_insert_with(|| {
                        format!(
                            "{guard}{}{} {:?}",
                            if guard.is_empty() { "" } else { " " },
                            i.opcode,
                            i.operands
                        )
                    });
                }
            }
            _ if mentions_marker(&s.text) => {
                hidden.get_or_insert_with(|| s.text.clone());
            }
            _ => {}
        }
    }
    match (mangled, hidden) {
        (Some(t), _) => Model::Mangled(t),
        (None, Some(t)) => Model::Hidden(t),
        (None, None) => Model::Absent,
    }
}

/// A tool: `$var` if set to a file, else `name` on `PATH`.
fn tool(var: &str, name: &str) -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(var).map(PathBuf::from) {
        if p.is_file() {
            return Some(p);
        }
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// The SASS disassembler: `nvdisasm -c -ndf` (`$WARPTRACE_NVDISASM`, else on `PATH`), else
/// `cuobjdump -sass` (`$WARPTRACE_CUOBJDUMP`, else on `PATH`). When missing, fails under
/// `CI=true` and otherwise prints a loud skip notice and returns `None`.
fn disassembler() -> Option<(PathBuf, &'static [&'static str])> {
    // `-ndf`: no dataflow analysis, half of nvdisasm's time.
    if let Some(p) = tool("WARPTRACE_NVDISASM", "nvdisasm") {
        return Some((p, &["-c", "-ndf"]));
    }
    if let Some(p) = tool("WARPTRACE_CUOBJDUMP", "cuobjdump") {
        return Some((p, &["-sass"]));
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!(
            "nvdisasm / cuobjdump not found (CI=true); run scripts/setup.sh and source .tools/env.sh"
        );
    }
    eprintln!("SKIPPED: nvdisasm / cuobjdump not found; run scripts/setup.sh");
    None
}

/// What `ptxas` and the disassembler make of a form.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Oracle {
    /// `ptxas` rejects the module (its first error line).
    Rejected(String),
    /// Assembled; whether the SASS holds the marker's constant.
    Assembled(bool),
}

/// Assembles form `i`'s module with `ptxas -arch=sm_90 -c` into `dir/lex_<i>.o`: `Ok` with
/// the object's path, or `Err` with ptxas's first error line. (`-c`, relocatable, so
/// that every form links into one cubin and `nvdisasm`, half a second a run whatever the
/// size, runs once; the lexer is `ptxas`'s either way.)
fn assemble(ptxas: &Path, dir: &Path, i: usize, ptx: &str) -> Result<PathBuf, String> {
    let input = dir.join(format!("{}.ptx", kernel_name(i)));
    let object = dir.join(format!("{}.o", kernel_name(i)));
    std::fs::write(&input, ptx).expect("write ptx");
    let out = Command::new(ptxas)
        .arg("-arch=sm_90")
        .arg("-c")
        .arg(&input)
        .arg("-o")
        .arg(&object)
        .output()
        .expect("run ptxas");
    if out.status.success() {
        return Ok(object);
    }
    let text =
        String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
    let first = text
        .lines()
        .find(|l| l.contains("error") || l.contains("fatal"))
        .or_else(|| text.lines().next())
        .unwrap_or("")
        .replace(&*input.to_string_lossy(), "lex.ptx");
    Err(first)
}

/// Runs the disassembler on `file`; its output, lower-cased.
fn disassemble(disasm: &(PathBuf, &[&str]), file: &Path) -> String {
    let (tool, args) = disasm;
    let out = Command::new(tool)
        .args(args.iter())
        .arg(file)
        .output()
        .expect("run the disassembler");
    assert!(
        out.status.success(),
        "{} {}: {}",
        tool.display(),
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).to_ascii_lowercase()
}

/// The kernels whose SASS holds the marker's constant, in a disassembly of several:
/// `nvdisasm` heads each with `//--- .text.<name> ---`, `cuobjdump` with `Function : <name>`.
fn kernels_with_marker(sass: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut current: Option<&str> = None;
    for line in sass.lines() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("//---") {
            current = rest
                .split_whitespace()
                .find_map(|w| w.strip_prefix(".text."));
        } else if let Some(name) = t.strip_prefix("function : ") {
            current = Some(name.trim());
        } else if t.contains(SASS_MARKER) {
            if let Some(k) = current {
                if !found.iter().any(|f| f == k) {
                    found.push(k.to_owned());
                }
            }
        }
    }
    found
}

/// The oracle for every form: `assembled[i]` is form `i`'s object, or ptxas's error. The
/// objects are linked with `nvlink` (next to `ptxas`) into one cubin, disassembled once;
/// without `nvlink`, or if it fails, each object is disassembled on its own.
fn oracles(
    ptxas: &Path,
    disasm: &(PathBuf, &[&str]),
    dir: &Path,
    assembled: &[Result<PathBuf, String>],
) -> Vec<Oracle> {
    let objects: Vec<&PathBuf> = assembled.iter().filter_map(|a| a.as_ref().ok()).collect();
    let nvlink = ptxas.with_file_name("nvlink");
    let linked = dir.join("all.cubin");
    let link_ok = !objects.is_empty()
        && nvlink.is_file()
        && Command::new(&nvlink)
            .arg("-arch=sm_90")
            .args(&objects)
            .arg("-o")
            .arg(&linked)
            .output()
            .is_ok_and(|o| o.status.success());
    let with_marker = if link_ok {
        kernels_with_marker(&disassemble(disasm, &linked))
    } else {
        if !objects.is_empty() {
            eprintln!("nvlink failed or is missing: disassembling each form on its own");
        }
        objects
            .iter()
            .flat_map(|o| kernels_with_marker(&disassemble(disasm, o)))
            .collect()
    };
    assembled
        .iter()
        .enumerate()
        .map(|(i, a)| match a {
            Err(e) => Oracle::Rejected(e.clone()),
            Ok(_) => Oracle::Assembled(with_marker.contains(&kernel_name(i))),
        })
        .collect()
}

/// One form's outcome.
#[derive(Debug)]
struct Row {
    name: &'static str,
    oracle: Oracle,
    model: Model,
}

impl Row {
    fn sass_has(&self) -> bool {
        self.oracle == Oracle::Assembled(true)
    }

    /// SASS with the marker: the model reads it right. SASS without: the model has no
    /// instruction with the marker's constant (an error, a directive, nothing).
    fn agrees(&self) -> bool {
        self.verdict() == "yes"
    }

    /// `yes`, or how they disagree: `NO:hole` (the SASS has the marker, the model misses
    /// or mangles it: unverified code), `NO:error` (the SASS has it, the parser fails:
    /// warptrace refuses a kernel ptxas takes), `NO:extra` (the model has an instruction
    /// with the marker that ptxas rejected or did not assemble).
    fn verdict(&self) -> &'static str {
        match (self.sass_has(), &self.model) {
            (true, Model::Sees) => "yes",
            (true, Model::ParseError(_) | Model::NoKernel) => "NO:error",
            (true, _) => "NO:hole",
            (false, Model::Sees | Model::Mangled(_)) => "NO:extra",
            (false, _) => "yes",
        }
    }

    fn line(&self) -> String {
        let (asm, sass, why) = match &self.oracle {
            Oracle::Rejected(e) => ("no", "-", format!("ptxas: {e}")),
            Oracle::Assembled(true) => ("yes", "yes", String::new()),
            Oracle::Assembled(false) => ("yes", "no", String::new()),
        };
        let mut note = self.model.note();
        if !why.is_empty() {
            note = if note.is_empty() {
                why
            } else {
                format!("{why}; {note}")
            };
        }
        format!(
            "{:<40} {:<5} {:<5} {:<12} {:<8} {}",
            self.name,
            asm,
            sass,
            self.model.word(),
            self.verdict(),
            note
        )
    }
}

fn header() -> String {
    format!(
        "{:<40} {:<5} {:<5} {:<12} {:<8} note",
        "form", "ptxas", "SASS", "model", "agree"
    )
}

#[test]
fn parser_and_ptxas_agree_on_statement_boundaries() {
    let started = Instant::now();
    let Some(ptxas) = warptrace_tests::ptxas() else {
        return;
    };
    let Some(disasm) = disassembler() else {
        return;
    };
    let mut names: Vec<&str> = FORMS.iter().map(|f| f.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), FORMS.len(), "form names are unique");

    // Workers: each form's module is parsed and assembled (one `ptxas` at a time each).
    let dir = tempfile::tempdir().expect("temp dir");
    let next = AtomicUsize::new(0);
    type Slot = Option<(Model, Result<PathBuf, String>)>;
    let slots: Mutex<Vec<Slot>> = Mutex::new((0..FORMS.len()).map(|_| None).collect());
    let workers = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .min(FORMS.len());
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(form) = FORMS.get(i) else { break };
                let ptx = module(i, form);
                let slot = (model(i, form, &ptx), assemble(&ptxas, dir.path(), i, &ptx));
                slots.lock().expect("slots")[i] = Some(slot);
            });
        }
    });
    let (models, assembled): (Vec<Model>, Vec<Result<PathBuf, String>>) = slots
        .into_inner()
        .expect("slots")
        .into_iter()
        .map(|s| s.expect("every form ran"))
        .unzip();
    let rows: Vec<Row> = FORMS
        .iter()
        .zip(models)
        .zip(oracles(&ptxas, &disasm, dir.path(), &assembled))
        .map(|((form, model), oracle)| Row {
            name: form.name,
            oracle,
            model,
        })
        .collect();

    let mut table = header();
    for r in &rows {
        table.push('\n');
        table.push_str(&r.line());
    }
    eprintln!("{table}");
    eprintln!(
        "{} forms in {:.1} s",
        rows.len(),
        started.elapsed().as_secs_f64()
    );
    // `WARPTRACE_KEEP_LEXICAL=1`: keep every form's module (`lex_<i>.ptx`) to look at.
    if std::env::var_os("WARPTRACE_KEEP_LEXICAL").is_some() {
        eprintln!("modules kept in {}", dir.keep().display());
    }

    // The harness itself: the plain marker is assembled, found in the SASS and seen.
    let baseline = rows
        .iter()
        .find(|r| r.name == "baseline")
        .expect("baseline");
    assert_eq!(
        (&baseline.oracle, &baseline.model),
        (&Oracle::Assembled(true), &Model::Sees),
        "the baseline form must be assembled, in the SASS and in the model"
    );

    let disagreements: Vec<String> = rows.iter().filter(|r| !r.agrees()).map(Row::line).collect();
    assert!(
        disagreements.is_empty(),
        "{} of {} forms: the parser and ptxas disagree:\n{}\n{}",
        disagreements.len(),
        rows.len(),
        header(),
        disagreements.join("\n")
    );
}
