//! Direct calls: where a call statement names its callee and ends its argument list, and
//! the insertions that redirect it to an instrumented clone passing the map base.
//!
//! A redirected call (snippet `n` of the calling body) becomes
//!
//! ```text
//!     .param .b64 __wt_arg<n>;
//!     ld.param.u64 %__wt_t0, [__wt_maps];
//!     st.param.b64 [__wt_arg<n>], %__wt_t0;
//!     call.uni (retval0), __wt_<k>_<callee>, (param0, …, __wt_arg<n>);
//! ```
//!
//! The caller passes its own map parameter's value (the generic address the runtime
//! passed to the kernel) unchanged, so every instrumented body starts the same way: the
//! prologue loads its `__wt_maps` and converts it to a global address. The setup goes
//! right before the call (after any probe snippet at it), and the call keeps its place,
//! guard and other operands: the verifier's `CallRewrite` rule checks exactly this shape.

use crate::lower::{reg, PREFIX};
use crate::parse::{Function, Operand, StmtKind};
use crate::splice::{before_stmt, Insertion};
use crate::MAP_PARAM;
use std::ops::Range;
use warptrace_verifier::Origin;

/// A direct call statement of a body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CallStmt {
    /// Index of the statement in the body.
    pub stmt: usize,
    /// The callee's name.
    pub callee: String,
    /// Where the callee's name starts in the module's text.
    pub callee_at: usize,
    /// Where an extra argument goes.
    pub args: ArgsAt,
}

/// Where an extra, last argument goes in a call statement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ArgsAt {
    /// In the argument list at this offset (`empty`: there are none).
    Close {
        /// Offset just after the last argument (of the closing parenthesis if a comment
        /// ends the list or it is empty).
        at: usize,
        /// The list is empty (`()`).
        empty: bool,
    },
    /// The call has no argument list: a new one goes at this offset (after the callee).
    None {
        /// Offset just after the callee's name.
        at: usize,
    },
}

/// The name of a device function's clone for the kernel with ordinal `kernel` (its index
/// among the module's kernels).
pub(crate) fn clone_name(kernel: usize, function: &str) -> String {
    format!("{PREFIX}{kernel}_{function}")
}

/// Every direct call of `f`'s body (a callee named by a symbol), in text order. Indirect
/// calls (through a register) are not listed: they reach the original functions.
pub(crate) fn direct_calls(src: &str, f: &Function) -> Vec<CallStmt> {
    let Some(body) = &f.body else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (idx, stmt) in body.stmts.iter().enumerate() {
        let StmtKind::Instr(i) = &stmt.kind else {
            continue;
        };
        if i.root() != "call" {
            continue;
        }
        let raw = operand_spans(src, stmt.span.clone());
        if raw.len() != i.operands.len() {
            continue;
        }
        let callee_index = match i.operands.first() {
            Some(Operand::Group(_)) if i.operands.len() >= 2 => 1,
            _ => 0,
        };
        let Some(Operand::Symbol(callee)) = i.operands.get(callee_index) else {
            continue;
        };
        let callee_span = raw[callee_index].clone();
        if src.get(callee_span.clone()) != Some(callee.as_str()) {
            continue;
        }
        let args = match (i.operands.get(callee_index + 1), raw.get(callee_index + 1)) {
            (Some(Operand::Group(list)), Some(span)) => {
                let inner = src.get(span.start + 1..span.end - 1).unwrap_or("");
                let empty = list.is_empty() || inner.trim().is_empty();
                // Right after the last argument, unless a comment ends the list.
                let last = inner.trim_end();
                let line = &last[last.rfind('\n').map_or(0, |n| n + 1)..];
                let at = if empty || line.contains("//") || last.ends_with("*/") {
                    span.end - 1
                } else {
                    span.start + 1 + last.len()
                };
                ArgsAt::Close { at, empty }
            }
            _ => ArgsAt::None {
                at: callee_span.end,
            },
        };
        out.push(CallStmt {
            stmt: idx,
            callee: callee.to_string(),
            callee_at: callee_span.start,
            args,
        });
    }
    out
}

/// The spans of an instruction statement's top-level operands (comments and
/// surrounding whitespace excluded), in the module's text.
fn operand_spans(src: &str, span: Range<usize>) -> Vec<Range<usize>> {
    let text = src.get(span.clone()).unwrap_or("");
    let b = text.as_bytes();
    let mut i = 0;
    // Skips whitespace and comments from `i`.
    let trivia = |i: &mut usize| loop {
        if b.get(*i).is_some_and(u8::is_ascii_whitespace) {
            *i += 1;
        } else if text[*i..].starts_with("//") {
            *i += text[*i..].find('\n').unwrap_or(text.len() - *i);
        } else if text[*i..].starts_with("/*") {
            *i += text[*i..].find("*/").map_or(text.len() - *i, |n| n + 2);
        } else {
            break;
        }
    };
    trivia(&mut i);
    if b.get(i) == Some(&b'@') {
        while b.get(i).is_some_and(|c| !c.is_ascii_whitespace()) {
            i += 1;
        }
        trivia(&mut i);
    }
    // The opcode.
    while b
        .get(i)
        .is_some_and(|c| !c.is_ascii_whitespace() && !matches!(c, b'(' | b'{' | b'['))
    {
        i += 1;
    }
    let mut spans = Vec::new();
    let mut depth = 0usize;
    let mut start: Option<usize> = None;
    let mut end = 0;
    loop {
        trivia(&mut i);
        let Some(&c) = b.get(i) else { break };
        match c {
            b';' if depth == 0 => break,
            b',' if depth == 0 => {
                spans.extend(start.take().map(|s| span.start + s..span.start + end));
                i += 1;
                continue;
            }
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        start.get_or_insert(i);
        i += 1;
        end = i;
    }
    spans.extend(start.map(|s| span.start + s..span.start + end));
    spans
}

/// The insertions that redirect `call` (in `src`) to `clone` as snippet `snippet`: the
/// map argument's declaration, load and store before the statement, the clone's name
/// prefix on the callee and the argument at the end of the list.
pub(crate) fn redirect(
    src: &str,
    stmt_start: usize,
    call: &CallStmt,
    clone: &str,
    snippet: u32,
) -> Vec<Insertion> {
    let origin = Origin::Inserted { snippet };
    let arg = format!("{PREFIX}arg{snippet}");
    let value = reg("t", 0);
    let setup = format!(
        "\t// warptrace: the map base for `{clone}`\n\t.param .b64 {arg};\n\tld.param.u64 \
         {value}, [{MAP_PARAM}];\n\tst.param.b64 [{arg}], {value};\n"
    );
    let (offset, text) = before_stmt(src, stmt_start, setup);
    let prefix = clone
        .strip_suffix(call.callee.as_str())
        .unwrap_or(clone)
        .to_string();
    let (arg_at, arg_text) = match call.args {
        ArgsAt::Close { at, empty: true } => (at, arg),
        ArgsAt::Close { at, empty: false } => (at, format!(", {arg}")),
        ArgsAt::None { at } => (at, format!(", ({arg})")),
    };
    vec![
        Insertion {
            offset,
            order: snippet,
            text,
            origin,
        },
        Insertion {
            offset: call.callee_at,
            order: snippet,
            text: prefix,
            origin,
        },
        Insertion {
            offset: arg_at,
            order: snippet,
            text: arg_text,
            origin,
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse;

    fn calls(body: &str) -> (String, Vec<CallStmt>) {
        let src = format!(".func f()\n{{\n{body}\n}}\n");
        let m = parse(&src).expect("parses");
        let calls = direct_calls(m.source(), &m.functions()[0]);
        (src, calls)
    }

    #[test]
    fn callee_and_argument_list_of_each_call_form() {
        let (src, c) = calls(
            "\tcall.uni (retval0), \n\tg, \n\t(\n\tparam0, \n\tparam1\n\t);\n\
             \t@%p1 call h, (p0) /* c */;\n\
             \tcall.uni k;\n\
             \tcall (r), m;\n\
             \tcall n, ();\n\
             \tcall (r), %rd1, (p0), proto;",
        );
        let names: Vec<&str> = c.iter().map(|c| c.callee.as_str()).collect();
        assert_eq!(
            names,
            ["g", "h", "k", "m", "n"],
            "the indirect call is not listed"
        );
        for call in &c {
            assert_eq!(&src[call.callee_at..][..call.callee.len()], call.callee);
        }
        let close = |i: usize| match c[i].args {
            ArgsAt::Close { at, empty } => (&src[at..], empty),
            ArgsAt::None { .. } => panic!("no list"),
        };
        assert!(close(0).0.starts_with("\n\t);") && !close(0).1);
        assert!(close(1).0.starts_with(") /* c */;") && !close(1).1);
        assert!(close(4).0.starts_with(");") && close(4).1);
        assert!(matches!(c[2].args, ArgsAt::None { at } if src[..at].ends_with("call.uni k")));
        assert!(matches!(c[3].args, ArgsAt::None { at } if src[..at].ends_with("(r), m")));
    }

    #[test]
    fn redirected_call_text() {
        let (src, c) = calls("\tcall.uni (retval0), g, (param0);\n\tcall k;");
        let mut ins: Vec<Insertion> = Vec::new();
        for (n, call) in c.iter().enumerate() {
            let start = src
                .find(if n == 0 { "call.uni" } else { "call k" })
                .expect("call");
            ins.extend(redirect(
                &src,
                start,
                call,
                &clone_name(3, &call.callee),
                n as u32 + 7,
            ));
        }
        let (out, _) = crate::splice::apply(&src, &ins);
        assert!(out.contains(
            "\t.param .b64 __wt_arg7;\n\tld.param.u64 %__wt_t0, [__wt_maps];\n\tst.param.b64 \
             [__wt_arg7], %__wt_t0;\n\tcall.uni (retval0), __wt_3_g, (param0, __wt_arg7);\n"
        ));
        assert!(out.contains("st.param.b64 [__wt_arg8], %__wt_t0;\n\tcall __wt_3_k, (__wt_arg8);"));
    }
}
