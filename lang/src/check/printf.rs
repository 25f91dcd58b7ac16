//! `printf`: the format string is checked against the arguments, bpftrace's way, and
//! stays on the host (`Program::formats`); the device only appends the arguments.

use super::Checker;
use crate::ast::{Expr, ExprKind, Span};
use crate::diag::Error;
use crate::typed::{TExpr, Ty};
use warptrace_ir::FormatId;

/// What a conversion prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Conv {
    /// `%d %i %u %x %X %o %c %p`
    Int,
    /// `%s`: a name (`kernel`).
    Name,
}

impl Checker<'_> {
    /// `printf("fmt", args...)`: the format's id and the checked arguments.
    pub(super) fn printf(
        &mut self,
        span: Span,
        args: &[Expr<'_>],
    ) -> Option<(FormatId, Vec<TExpr>)> {
        let Some((format, rest)) = args.split_first() else {
            self.errors.push(Error::Printf {
                span,
                message: "the first argument must be a format string".into(),
            });
            return None;
        };
        let ExprKind::Str(text) = &format.kind else {
            self.errors.push(Error::Printf {
                span: format.span,
                message: "the first argument must be a format string".into(),
            });
            return None;
        };
        let convs = match conversions(text) {
            Ok(c) => c,
            Err(message) => {
                self.errors.push(Error::Printf {
                    span: format.span,
                    message,
                });
                return None;
            }
        };
        if convs.len() == rest.len() && rest.iter().any(|a| matches!(a.kind, ExprKind::Str(_))) {
            return self.printf_constants(span, text, &convs, format, rest);
        }
        let checked: Vec<Option<TExpr>> = rest.iter().map(|a| self.expr(a)).collect();
        if convs.len() != rest.len() {
            let plural =
                |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
            self.errors.push(Error::Printf {
                span,
                message: format!(
                    "the format has {} but {} given",
                    plural(convs.len(), "conversion"),
                    match rest.len() {
                        1 => "1 argument is".to_string(),
                        n => format!("{n} arguments are"),
                    }
                ),
            });
            return None;
        }
        let mut out = Vec::new();
        for ((conv, text, _), arg) in convs.iter().zip(checked) {
            let arg = arg?;
            let message = match (conv, arg.ty) {
                (Conv::Int, Ty::Kernel) => format!(
                    "`{text}` expects an integer, but `kernel` is a kernel id: print its name with %s"
                ),
                (Conv::Name, ty) if ty != Ty::Kernel => {
                    format!("`{text}` expects `kernel` or a string, found {}", ty.name())
                }
                _ => {
                    out.push(arg);
                    continue;
                }
            };
            self.errors.push(Error::Printf {
                span: arg.span,
                message,
            });
            return None;
        }
        Some((self.format_id(text), out))
    }

    /// `printf` with string constants among its arguments (`str($1)`, `"text"`): each is
    /// printed into the format now, by its `%s` conversion (`%-8s`, `%.3s`, …), and the
    /// rest is checked as any `printf`.
    fn printf_constants(
        &mut self,
        span: Span,
        text: &str,
        convs: &[(Conv, String, std::ops::Range<usize>)],
        format: &Expr<'_>,
        rest: &[Expr<'_>],
    ) -> Option<(FormatId, Vec<TExpr>)> {
        let mut folded = String::new();
        let mut at = 0;
        let mut kept = Vec::new();
        for ((conv, conv_text, range), arg) in convs.iter().zip(rest) {
            let ExprKind::Str(value) = &arg.kind else {
                kept.push(arg.clone());
                continue;
            };
            if *conv != Conv::Name {
                self.errors.push(Error::Printf {
                    span: arg.span,
                    message: format!("`{conv_text}` expects an integer, found a string"),
                });
                return None;
            }
            folded.push_str(text.get(at..range.start).unwrap_or(""));
            folded.push_str(&pad(conv_text, value).replace('%', "%%"));
            at = range.end;
        }
        folded.push_str(text.get(at..).unwrap_or(""));
        let mut args = vec![Expr {
            kind: ExprKind::Str(folded),
            span: format.span,
        }];
        args.extend(kept);
        self.printf(span, &args)
    }
}

/// `value` printed by the `%s` conversion `conv` (`%s`, `%-8s`, `%8.3s`): at most the
/// precision's characters, padded to the width, on the left unless the `-` flag is set.
fn pad(conv: &str, value: &str) -> String {
    let spec = conv.trim_start_matches('%').trim_end_matches('s');
    let left = spec.contains('-');
    let spec = spec.trim_start_matches(['-', '+', ' ', '#', '0']);
    let (width, precision) = match spec.split_once('.') {
        Some((w, p)) => (w, Some(p.parse::<usize>().unwrap_or(0))),
        None => (spec, None),
    };
    let width: usize = width.parse().unwrap_or(0);
    let shown: String = match precision {
        Some(p) => value.chars().take(p).collect(),
        None => value.to_string(),
    };
    let fill = " ".repeat(width.saturating_sub(shown.chars().count()));
    if left {
        format!("{shown}{fill}")
    } else {
        format!("{fill}{shown}")
    }
}

/// The conversions of a format, each with its text and where it is; `%%` prints `%`.
fn conversions(format: &str) -> Result<Vec<(Conv, String, std::ops::Range<usize>)>, String> {
    let mut out = Vec::new();
    let mut chars = format.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        if c != '%' {
            continue;
        }
        if chars.next_if(|(_, c)| *c == '%').is_some() {
            continue;
        }
        while chars.next_if(|(_, c)| "-+ #0".contains(*c)).is_some() {}
        while chars.next_if(|(_, c)| c.is_ascii_digit()).is_some() {}
        if chars.next_if(|(_, c)| *c == '.').is_some() {
            while chars.next_if(|(_, c)| c.is_ascii_digit()).is_some() {}
        }
        for size in ['h', 'h', 'l', 'l', 'z', 'j'] {
            let _ = chars.next_if(|(_, c)| *c == size);
        }
        let Some((end, conv)) = chars.next() else {
            let text = format.get(start..).unwrap_or("%");
            return Err(format!(
                "incomplete conversion `{}` at the end of the format",
                text.escape_debug()
            ));
        };
        let text = format
            .get(start..end + conv.len_utf8())
            .unwrap_or("%")
            .to_string();
        let kind = match conv {
            'd' | 'i' | 'u' | 'x' | 'X' | 'o' | 'c' | 'p' => Conv::Int,
            's' => Conv::Name,
            _ => return Err(format!("invalid conversion `{}`", text.escape_debug())),
        };
        out.push((kind, text, start..end + conv.len_utf8()));
    }
    Ok(out)
}
