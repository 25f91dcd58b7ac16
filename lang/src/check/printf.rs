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
        for ((conv, text), arg) in convs.iter().zip(checked) {
            let arg = arg?;
            let message = match (conv, arg.ty) {
                (Conv::Int, Ty::Kernel) => format!(
                    "`{text}` expects an integer, but `kernel` is a kernel id: print its name with %s"
                ),
                (Conv::Name, ty) if ty != Ty::Kernel => {
                    format!("`{text}` expects `kernel`, found {}", ty.name())
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
}

/// The conversions of a format, each with its text; `%%` prints `%`.
fn conversions(format: &str) -> Result<Vec<(Conv, String)>, String> {
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
        out.push((kind, text));
    }
    Ok(out)
}
