//! Default deny: what a raw probe's statement may be, and its canonical text.
//!
//! Invariant: every statement of a probe block is either refused here, by name, or
//! printed from the parsed model ([`crate::parse::Instruction`], [`RegDecl`], a label) —
//! never copied through as the author wrote it. So the text spliced into a kernel, and
//! assembled by ptxas, is exactly what the verifier's model of it says, and it contains
//! only instructions whose register, memory and control effects the model defines:
//!
//! - instructions: the opcode roots of [`ALLOWED`] (arithmetic, logic, conversion,
//!   moves, comparisons, the memory and control instructions the verifier's rules judge,
//!   warp collectives), with well-formed modifiers and no carry (`.cc`) — everything
//!   else (`tensormap`, `discard`, `alloca`, `stackrestore`, `setmaxnreg`,
//!   `griddepcontrol`, `cp`, `mbarrier`, `addc`, …) is refused with its name;
//! - operands: registers, numeric literals, labels and helpers, `{ }` vectors of them and
//!   `[reg + offset]` addresses; no negated operand (`!%p`), compound address or
//!   expression, and no write to a vector component (`%v.y`);
//! - `.reg` declarations of scalar types; no other directive, no `{ }` scope;
//! - labels with plain names.
//!
//! The printed instruction is read back and must parse to the same model.
//!
//! Behind this gate, the kernel rules model the state these would touch (`model.rs`'s
//! `implicit_state`): the carry flag, the stack pointer, the register budget and a
//! vector register's components are registers inserted code may not write where the
//! kernel uses them, whatever path the code came by.

use crate::parse::{parse_instruction, AddrBase, Address, Instruction, Operand, RegDecl};
use crate::parse::{Stmt, StmtKind};

/// Opcode roots a probe may use (sorted: looked up by binary search).
const ALLOWED: &[&str] = &[
    "abs",
    "activemask",
    "add",
    "and",
    "atom",
    "bar",
    "barrier",
    "bfe",
    "bfi",
    "bfind",
    "bmsk",
    "bra",
    "brev",
    "brkpt",
    "call",
    "clz",
    "cnot",
    "copysign",
    "cos",
    "cvt",
    "cvta",
    "div",
    "dp2a",
    "dp4a",
    "ex2",
    "exit",
    "fma",
    "ld",
    "lg2",
    "lop3",
    "mad",
    "mad24",
    "match",
    "max",
    "min",
    "mov",
    "mul",
    "mul24",
    "neg",
    "not",
    "or",
    "popc",
    "prmt",
    "rcp",
    "red",
    "redux",
    "rem",
    "ret",
    "rsqrt",
    "sad",
    "selp",
    "set",
    "setp",
    "shf",
    "shfl",
    "shl",
    "shr",
    "sin",
    "slct",
    "sqrt",
    "st",
    "sub",
    "szext",
    "tanh",
    "testp",
    "trap",
    "vote",
    "xor",
];

/// Scalar register types a probe may declare.
const REG_TYPES: &[&str] = &[
    ".b16", ".b32", ".b64", ".b8", ".f16", ".f16x2", ".f32", ".f64", ".pred", ".s16", ".s32",
    ".s64", ".s8", ".u16", ".u32", ".u64", ".u8",
];

/// Why a statement is refused.
pub(super) type Denied = String;

/// The canonical text of a probe statement, or why it is refused.
pub(super) fn canonical(stmt: &Stmt) -> Result<String, Denied> {
    match &stmt.kind {
        StmtKind::Label(name) => {
            let helper = name
                .bytes()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == b'_');
            if helper {
                Err(format!(
                    "label `{name}` is named like a helper (helpers are replaced)"
                ))
            } else if is_ident(name) {
                Ok(format!("{name}:"))
            } else {
                Err(format!("label `{name}` is not a plain name"))
            }
        }
        StmtKind::ScopeOpen | StmtKind::ScopeClose => {
            Err("`{ }` scopes are not allowed in probes".into())
        }
        StmtKind::Directive(Some(d)) => reg_decl(&stmt.text, d),
        StmtKind::Directive(None) => {
            let name = stmt.text.split_whitespace().next().unwrap_or("");
            Err(format!(
                "directive `{name}` is not allowed in probes (only `.reg` declarations)"
            ))
        }
        StmtKind::Instr(i) => instruction(&stmt.text, i),
    }
}

fn is_ident(s: &str) -> bool {
    let mut c = s.chars();
    c.next()
        .is_some_and(|f| f.is_ascii_alphabetic() || f == '_' || f == '$')
        && c.all(|ch| ch.is_ascii_alphanumeric() || ch == '_' || ch == '$')
}

/// `%name` or `name` (a register of the kernel or the probe), whose numeric suffix names
/// no other register: ptxas reads the digits after a range's base as a number modulo
/// 2^32, so `%rd06` is `%rd6` and `%r4294967297` is `%r1` — names the model would take
/// for registers of their own.
fn is_reg_name(s: &str) -> bool {
    is_ident(s.strip_prefix('%').unwrap_or(s)) && !aliases_another(s)
}

/// Whether a name's numeric suffix has a leading zero or does not fit 32 bits.
fn aliases_another(name: &str) -> bool {
    let digits = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    let suffix = &name[name.len() - digits..];
    (digits > 1 && suffix.starts_with('0')) || (digits > 0 && suffix.parse::<u32>().is_err())
}

/// A register read: a name, or a special register's component (`%tid.x`).
fn is_reg_read(s: &str) -> bool {
    match s.split_once('.') {
        Some((base, comp)) => {
            base.starts_with('%') && is_reg_name(base) && matches!(comp, "x" | "y" | "z" | "w")
        }
        None => s.starts_with('%') && is_reg_name(s),
    }
}

fn reg_decl(text: &str, d: &RegDecl) -> Result<String, Denied> {
    let mut words = text.trim_end_matches(';').split_whitespace();
    let (Some(".reg"), Some(ty)) = (words.next(), words.next()) else {
        return Err(format!("`{text}` is not `.reg .type names;`"));
    };
    if !REG_TYPES.contains(&ty) || ty != d.ty {
        return Err(format!(
            "`.reg {ty}`: probes declare scalar registers only (vector, aligned or \
             typeless declarations are not modelled)"
        ));
    }
    let items: Vec<String> = d.items.iter().map(|i| i.text()).collect();
    let listed: String = words.collect::<Vec<_>>().join(" ");
    let same = listed
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .eq(items.iter().map(String::as_str));
    if items.is_empty() || !same || d.items.iter().any(|i| !is_reg_name(&i.base)) {
        return Err(format!(
            "`{text}` declares something other than plain registers"
        ));
    }
    if d.items.iter().any(|i| i.count.is_some_and(|n| n > 4096)) {
        return Err(format!(
            "`{text}` declares more than 4096 registers in a range"
        ));
    }
    Ok(format!(".reg {ty} {};", items.join(", ")))
}

/// A numeric literal as PTX writes one: decimal, hex, octal or binary integers
/// (optionally `U`), `0f`/`0d` hex floats, decimal floats.
fn is_literal(s: &str) -> bool {
    let s = s.strip_prefix(['-', '+']).unwrap_or(s);
    let int = s.strip_suffix('U').unwrap_or(s);
    let hex = |t: &str, n: Option<usize>| {
        !t.is_empty() && t.bytes().all(|c| c.is_ascii_hexdigit()) && n.is_none_or(|n| t.len() == n)
    };
    if let Some(h) = int.strip_prefix("0x").or_else(|| int.strip_prefix("0X")) {
        return hex(h, None);
    }
    if let Some(b) = int.strip_prefix("0b").or_else(|| int.strip_prefix("0B")) {
        return !b.is_empty() && b.bytes().all(|c| c == b'0' || c == b'1');
    }
    if let Some(f) = s.strip_prefix("0f").or_else(|| s.strip_prefix("0F")) {
        return hex(f, Some(8));
    }
    if let Some(d) = s.strip_prefix("0d").or_else(|| s.strip_prefix("0D")) {
        return hex(d, Some(16));
    }
    if !int.is_empty() && int.bytes().all(|c| c.is_ascii_digit()) {
        return true;
    }
    // A decimal float: digits, one `.`, digits, an optional exponent.
    let (mantissa, exp) = match s.find(['e', 'E']) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    let m_ok = mantissa.matches('.').count() == 1
        && mantissa.len() > 1
        && mantissa.bytes().all(|c| c.is_ascii_digit() || c == b'.');
    let e_ok = exp.is_none_or(|e| {
        let e = e.strip_prefix(['-', '+']).unwrap_or(e);
        !e.is_empty() && e.bytes().all(|c| c.is_ascii_digit())
    });
    m_ok && e_ok
}

/// An operand's canonical text; `dest` says it is written.
fn operand(op: &Operand, dest: bool) -> Result<String, Denied> {
    Ok(match op {
        Operand::Reg(r) => {
            if dest && r.contains('.') {
                return Err(format!(
                    "writes the vector component `{r}`: component writes are not modelled"
                ));
            }
            let base = r.split('.').next().unwrap_or(r);
            if aliases_another(base) {
                return Err(format!(
                    "`{r}`: ptxas reads a register's index as a 32-bit number, so this name \
                     is another register's (`%rd06` is `%rd6`)"
                ));
            }
            if !is_reg_read(r) {
                return Err(format!("`{r}` is not a register"));
            }
            r.to_string()
        }
        Operand::Symbol(s) if aliases_another(s) => {
            return Err(format!(
                "`{s}`: ptxas reads a register's index as a 32-bit number, so this name is \
                 another register's"
            ))
        }
        Operand::Symbol(s) => {
            if !is_ident(s) {
                return Err(format!("`{s}` is not a name, register or literal"));
            }
            s.to_string()
        }
        Operand::Imm(v) => {
            if !is_literal(v) {
                return Err(format!("`{v}` is not a numeric literal"));
            }
            v.to_string()
        }
        Operand::Sink => "_".into(),
        Operand::PredPair(a, b) => {
            if !is_reg_name(a) || !is_reg_name(b) {
                return Err(format!("`{a}|{b}` is not a pair of predicates"));
            }
            format!("{a}|{b}")
        }
        Operand::Vector(items) => {
            let items = items
                .iter()
                .map(|o| match o {
                    Operand::Vector(_) | Operand::Addr(_) | Operand::Group(_) => {
                        Err("a nested operand in a vector".to_string())
                    }
                    o => operand(o, dest),
                })
                .collect::<Result<Vec<_>, _>>()?;
            format!("{{{}}}", items.join(", "))
        }
        Operand::Addr(a) => address(a)?,
        Operand::Group(_) => {
            return Err("a parenthesised operand list (call arguments) is not modelled".into())
        }
    })
}

fn address(a: &Address) -> Result<String, Denied> {
    let base = match &a.base {
        AddrBase::Reg(r) if is_reg_name(r) && r.starts_with('%') => r.to_string(),
        AddrBase::Symbol(s) if is_ident(s) => s.to_string(),
        AddrBase::Imm(v) => v.to_string(),
        _ => return Err("a compound address (only `[reg+offset]`) is not modelled".into()),
    };
    Ok(match a.offset {
        0 => format!("[{base}]"),
        o if o > 0 => format!("[{base}+{o}]"),
        o => format!("[{base}+{o}]"),
    })
}

/// Whether an opcode's components are well formed: the root, then modifiers of letters,
/// digits, `_` and `::`.
fn well_formed(opcode: &str) -> bool {
    let mut parts = opcode.split('.');
    let root = parts.next().unwrap_or("");
    let comp = |c: &str| {
        !c.is_empty()
            && c.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b':')
            && !c.starts_with(':')
    };
    comp(root) && !root.contains(':') && parts.all(comp)
}

fn instruction(text: &str, i: &Instruction) -> Result<String, Denied> {
    let opcode = i.opcode.as_str();
    if !well_formed(opcode) {
        return Err(format!("`{opcode}` is not a well-formed opcode"));
    }
    // An upper-case root is a helper (`SAVE.u64`), expanded by `expand.rs`, which
    // refuses unknown ones by name.
    let helper = i
        .root()
        .bytes()
        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == b'_');
    if !helper {
        let root = i.root();
        if ALLOWED.binary_search(&root).is_err() {
            return Err(format!(
                "`{root}` has no modelled semantics: probes may not use it"
            ));
        }
        if i.modifiers().any(|m| m == "cc") {
            return Err(format!(
                "`{opcode}` uses the carry flag: probes may not (a probe between the \
                 kernel's `add.cc` and `addc` would change its sum; the kernel rules treat \
                 the carry as a kernel register)"
            ));
        }
    }
    // `!%p` operands are read as `%p` by the model: refused rather than changed.
    let body = text.trim_start();
    let operands_text = match body.strip_prefix('@') {
        Some(g) => g.trim_start().trim_start_matches('!').trim_start(),
        None => body,
    };
    if operands_text.contains('!') {
        return Err("negated operands (`!%p`) are not modelled".into());
    }
    let mut out = String::new();
    if let Some(g) = &i.guard {
        if !is_reg_name(&g.reg) {
            return Err(format!("guard `{}` is not a predicate register", g.reg));
        }
        out.push_str(&g.text());
        out.push(' ');
    }
    out.push_str(opcode);
    let dest_first = !helper && !matches!(i.root(), "st" | "red" | "bra" | "bar" | "barrier");
    let ops = i
        .operands
        .iter()
        .enumerate()
        .map(|(n, o)| operand(o, dest_first && n == 0))
        .collect::<Result<Vec<_>, _>>()?;
    if !ops.is_empty() {
        out.push(' ');
        out.push_str(&ops.join(", "));
    }
    out.push(';');
    if parse_instruction(&out).as_ref() != Some(i) {
        return Err(format!(
            "`{text}` does not read back as the same instruction once printed"
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse_block;

    fn canon(text: &str) -> Vec<Result<String, Denied>> {
        parse_block(text, 1)
            .expect("lexes")
            .iter()
            .map(canonical)
            .collect()
    }

    #[test]
    fn allowed_roots_are_sorted() {
        assert!(ALLOWED.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn modelled_statements_print_canonically() {
        let got = canon(
            ".reg .b32 %a, %b<2>;\nadd.u32%a,\n %a, 0x10; @ ! %p1 bra done;\ndone\n: \
             st.global.v2.u32 [%rd1+8], {%a, %b1};\nmov.u32 %a, %tid.x;",
        );
        let got: Vec<String> = got.into_iter().map(|r| r.expect("allowed")).collect();
        assert_eq!(
            got,
            [
                ".reg .b32 %a, %b<2>;",
                "add.u32 %a, %a, 0x10;",
                "@!%p1 bra done;",
                "done:",
                "st.global.v2.u32 [%rd1+8], {%a, %b1};",
                "mov.u32 %a, %tid.x;",
            ]
        );
    }

    #[test]
    fn unmodelled_statements_are_refused_by_name() {
        for (text, why) in [
            (
                "tensormap.replace.tile.global_address.global.b1024.b64 [%rd1], %rd2;",
                "`tensormap`",
            ),
            ("discard.global.L2 [%rd1], 128;", "`discard`"),
            ("alloca.u64 %rd1, 16;", "`alloca`"),
            ("stackrestore.u64 %rd1;", "`stackrestore`"),
            ("add.cc.u32 %a, %a, 1;", "carry flag"),
            ("addc.u32 %a, %a, 0;", "`addc`"),
            ("griddepcontrol.launch_dependents;", "`griddepcontrol`"),
            ("setmaxnreg.inc.sync.aligned.u32 240;", "`setmaxnreg`"),
            ("mov.u32 %v.y, 1;", "vector component"),
            (".reg .v2 .b32 %v;", "scalar registers only"),
            (".loc 1 2 3", "directive `.loc`"),
            (".pragma \"nounroll\";", "directive `.pragma`"),
            ("{ mov.u32 %a, 1; }", "scopes"),
            ("and.pred %p, %q, !%r;", "negated"),
            ("mov.u32 %a, 1+2;", "not a numeric literal"),
            ("ld.global.u32 %a, [%rd1, {%r1}];", "compound address"),
            ("add.s64 %rd06, %rd05, 1;", "another register"),
            ("mov.u32 %r4294967297, 0;", "another register"),
            ("setp.eq.u32 %p01|%p2, 1, 1;", "not a pair"),
            (".reg .b32 %x01;", "plain registers"),
            ("BYTES: mov.u32 %a, 1;", "named like a helper"),
        ] {
            let got = canon(text);
            let err = got
                .iter()
                .find_map(|r| r.as_ref().err())
                .unwrap_or_else(|| panic!("`{text}` allowed: {got:?}"));
            assert!(err.contains(why), "`{text}`: {err}");
        }
    }

    #[test]
    fn literals() {
        for ok in [
            "0",
            "12",
            "-3",
            "0x1F",
            "7U",
            "0f3F800000",
            "0d3FF0000000000000",
            "1.5",
            "2.5e-3",
            "0b101",
        ] {
            assert!(is_literal(ok), "{ok}");
        }
        for bad in ["1+2", "0x", "1.2.3", "0f3F80", "12abc", "-", "1e"] {
            assert!(!is_literal(bad), "{bad}");
        }
    }
}
