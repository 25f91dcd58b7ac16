//! Front-end errors and their rendering.
//!
//! Every error is a variant of [`Error`] carrying its spans; [`Error::to_diagnostic`] is
//! the one place where they become codespan-reporting [`Diagnostic`]s. Those are rendered
//! in bpftrace's shape rather than codespan's:
//!
//! ```text
//! stdin:1:19-25: ERROR: unknown builtin `tidd.x`
//! kernel:entry { @a[tidd.x] = count(); }
//!                   ~~~~~~
//! HINT: valid builtins: tid.x, tid.y, ...
//! ```
//!
//! Columns are 1-based characters; the end column is exclusive, so a span has
//! `end - start` tildes (bpftrace's convention). Tabs print as four spaces. A span that
//! runs past its line is underlined to the end of that line.

use crate::ast::Span;
use crate::names;
use codespan_reporting::diagnostic::{Diagnostic, Label, LabelStyle};
use codespan_reporting::files::{Files, SimpleFile};
use codespan_reporting::term::termcolor::{Color, ColorSpec, WriteColor};
use std::io;

/// Deepest nesting of an expression the front end accepts.
pub(crate) const MAX_DEPTH: usize = 256;

/// Deepest nesting of brackets (`(`, `[`, `{`) the parser accepts: its recursion per
/// bracket is deep, so this bounds its stack.
pub(crate) const MAX_BRACKETS: usize = 64;

/// Deepest nesting of statements: a body and an `else if` are each one level. Brackets
/// bound bodies, but not `else if` chains, which the later stages walk recursively.
pub(crate) const MAX_STMT_DEPTH: usize = 1024;

/// "1 key", "2 keys", "no keys".
fn keys(n: usize) -> String {
    match n {
        0 => "no keys".to_string(),
        1 => "1 key".to_string(),
        n => format!("{n} keys"),
    }
}

/// The map kinds and their parameters, for hints.
pub(crate) const MAP_KINDS: &str = "map kinds: hash(keys = N), array(per = thread|warp, slots = N), ring(capacity = N, overflow = drop|overwrite)";

/// Everything the front end can reject.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Error {
    #[error("syntax error: {message}")]
    Syntax {
        span: Span,
        message: String,
        hint: Option<String>,
    },
    #[error("integer literal `{text}` does not fit in 64 bits")]
    IntTooLarge { span: Span, text: String },
    #[error("positional parameter ${index} is `{value}`, not an integer")]
    ParamNotInt {
        span: Span,
        index: usize,
        value: String,
    },
    #[error("there is no positional parameter $0: they count from $1")]
    ParamZero { span: Span },
    #[error("expression nested too deeply (more than {limit} levels)")]
    TooDeep { span: Span, limit: usize },
    #[error("statements nested too deeply (more than {limit} levels, counting each `else if`)")]
    StmtTooDeep { span: Span, limit: usize },
    #[error("unknown attach point `{name}`")]
    UnknownAttach { span: Span, name: String },
    #[error("bad interval: {why}")]
    BadInterval { span: Span, why: String },
    #[error("`{modifier}` is not valid at {attach}")]
    ModifierNotValid {
        span: Span,
        modifier: &'static str,
        attach: String,
    },
    #[error("unknown builtin `{name}`")]
    UnknownBuiltin { span: Span, name: String },
    #[error("builtin `{name}` is not valid at {attach}")]
    BuiltinNotValidAt {
        span: Span,
        name: String,
        attach: String,
        valid_at: &'static str,
    },
    #[error("unknown function `{name}`")]
    UnknownFunction { span: Span, name: String },
    #[error("`{name}()` takes {expected}, found {found}")]
    ArgCount {
        span: Span,
        name: String,
        expected: &'static str,
        found: usize,
    },
    #[error("`{name}()` expects {expected}")]
    BadArgument {
        span: Span,
        name: &'static str,
        expected: &'static str,
    },
    #[error("`{name}()` is an aggregation: it can only be the value assigned to a map")]
    AggregationInExpr { span: Span, name: String },
    #[error("`{name}()` does not return a value: call it as a statement")]
    StatementCall { span: Span, name: String },
    #[error("`{name}()` is not valid at {attach}")]
    HostOnly {
        span: Span,
        name: String,
        attach: String,
    },
    #[error("{what} is not valid at {attach}")]
    DeviceOnly {
        span: Span,
        what: String,
        attach: String,
    },
    #[error("{message}")]
    Misplaced {
        span: Span,
        message: &'static str,
        hint: &'static str,
    },
    #[error("{what} is not supported: the IR has no {missing}")]
    Unsupported {
        span: Span,
        what: &'static str,
        missing: &'static str,
    },
    #[error("type error: `kernel` is a kernel id, not an integer, so it cannot be {context}")]
    KernelNotInt { span: Span, context: String },
    #[error("type mismatch: `{name}` is {expected}, but is assigned {found} here")]
    TypeMismatch {
        span: Span,
        first: Span,
        name: String,
        expected: &'static str,
        found: &'static str,
    },
    #[error("scratch variable `${name}` is used before it is set")]
    UsedBeforeSet {
        span: Span,
        name: String,
        earlier: Option<Span>,
    },
    #[error("persistent register `%{name}` is never assigned")]
    PersistNeverSet { span: Span, name: String },
    #[error("unknown map `@{name}`")]
    UnknownMap {
        span: Span,
        name: String,
        known: String,
    },
    #[error("map `@{name}` is a {kind} map: {what}")]
    MapKind {
        span: Span,
        declared: Option<Span>,
        name: String,
        kind: &'static str,
        what: &'static str,
        hint: &'static str,
    },
    #[error("map `@{name}` is used with {} here but with {} before", keys(*found), keys(*expected))]
    MapArity {
        span: Span,
        first: Span,
        name: String,
        expected: usize,
        found: usize,
    },
    #[error("map `@{name}`: key {index} is {found} here but {expected} before")]
    MapKeyType {
        span: Span,
        first: Span,
        name: String,
        index: usize,
        expected: &'static str,
        found: &'static str,
    },
    #[error("map `@{name}` is assigned {found} here but {expected} before")]
    MapValue {
        span: Span,
        first: Span,
        name: String,
        expected: String,
        found: String,
    },
    #[error("{message}")]
    MapDecl { span: Span, message: String },
    #[error("{message}")]
    Config { span: Span, message: String },
    #[error("{message}")]
    Duplicate {
        span: Span,
        first: Span,
        message: String,
    },
    #[error("printf: {message}")]
    Printf { span: Span, message: String },
    #[error("lhist(): {message}")]
    Lhist { span: Span, message: String },
    #[error(
        "unroll count must be an integer constant from 1 to {}",
        crate::check::MAX_UNROLL
    )]
    Unroll { span: Span },
    #[error(
        "a `for` range must be integer constants `a..b` with at most {} values",
        crate::check::MAX_UNROLL
    )]
    Range { span: Span },
    #[error("divisor may be zero")]
    DivisorMayBeZero { span: Span },
    #[error("division by zero")]
    DivisionByZero { span: Span },
    #[error("`{op}` on a map needs the map's current value, which a probe cannot read yet")]
    MapUpdateNeedsValue { span: Span, op: String },
    #[error("probe needs more than {} registers", u16::MAX)]
    TooManyRegisters { span: Span },
    #[error("probe needs more than {} instructions", crate::lower::MAX_INSNS)]
    TooManyInsns { span: Span },
}

impl Error {
    /// The one conversion to a diagnostic: the message, the primary span, secondary
    /// spans ("first used here") and hints.
    pub fn to_diagnostic(&self) -> Diagnostic<()> {
        use Error::*;
        let first_use = "a map's keys and value are fixed by its first use";
        let (span, secondary, hints): (Span, Option<(Span, &str)>, Vec<String>) = match self {
            Syntax {
                span,
                hint: Some(hint),
                ..
            } => (*span, None, vec![hint.clone()]),
            Syntax { span, .. }
            | TooDeep { span, .. }
            | StmtTooDeep { span, .. }
            | DivisionByZero { span } => {
                (*span, None, vec![])
            }
            TooManyRegisters { span } | TooManyInsns { span } => {
                (*span, None, vec!["split the probe".into()])
            }
            ParamNotInt { span, index, .. } => (
                *span,
                None,
                vec![format!(
                    "str(${index}) reads it as a string (e.g. `kernel == str(${index})`); \
                     an integer parameter is decimal or 0x hex"
                )],
            ),
            ParamZero { span } => (
                *span,
                None,
                vec!["`$1` is the first argument after the program, `$#` their number".into()],
            ),
            IntTooLarge { span, .. } => (
                *span,
                None,
                vec!["decimal literals are i64; hex literals may use all 64 bits".into()],
            ),
            UnknownAttach { span, name } => (*span, None, names::attach_hints(name)),
            BadInterval { span, .. } => (
                *span,
                None,
                vec![
                    "e.g. `interval:s:1 { print(@bytes); clear(@bytes); }` prints every second \
                     while the program runs"
                        .into(),
                ],
            ),
            MapUpdateNeedsValue { span, .. } => (
                *span,
                None,
                vec![
                    "`+=`, `-=`, `++` and `--` work on maps (they add, as `sum()` does); every \
                     compound assignment works on `$` and `%` variables"
                        .into(),
                ],
            ),
            ModifierNotValid { span, modifier, .. } => {
                let hint = if *modifier == "after" {
                    "`after` applies to instruction probes: mem, tensor:mma, sync:barrier, branch, line, ptx, gcn"
                } else {
                    "`warp` applies to device probes"
                };
                (*span, None, vec![hint.into()])
            }
            UnknownBuiltin { span, name } => (*span, None, names::builtin_hints(name)),
            BuiltinNotValidAt {
                span,
                name,
                valid_at,
                ..
            } => (
                *span,
                None,
                vec![format!("`{name}` is valid at {valid_at}")],
            ),
            UnknownFunction { span, name } => (*span, None, names::function_hints(name)),
            ArgCount { span, name, .. } => (*span, None, names::signature_hints(name)),
            BadArgument { span, .. } => (*span, None, vec![]),
            AggregationInExpr { span, name } => (
                *span,
                None,
                vec![format!("write `@map[keys] = {name}(...)`")],
            ),
            StatementCall { span, .. } => (*span, None, vec![]),
            HostOnly { span, name, .. } => (
                *span,
                None,
                vec![format!("`{name}()` is valid only in {}", names::HOST)],
            ),
            DeviceOnly { span, .. } => (
                *span,
                None,
                vec!["it is valid only in device probes".into()],
            ),
            Misplaced { span, hint, .. } => (*span, None, vec![(*hint).into()]),
            Unsupported { span, .. } => (*span, None, vec![]),
            KernelNotInt { span, .. } => (
                *span,
                None,
                vec!["use `kernel` as a map key, e.g. `@n[kernel] = count()`".into()],
            ),
            TypeMismatch {
                span,
                first,
                expected,
                ..
            } => (
                *span,
                Some((*first, "type fixed here")),
                vec![format!(
                    "a variable's type is fixed by its first assignment; convert with a cast, e.g. `({expected})x`"
                )],
            ),
            UsedBeforeSet { span, earlier, .. } => match earlier {
                Some(e) => (
                    *span,
                    Some((*e, "set here, but not on every path to the use")),
                    vec![],
                ),
                None => (
                    *span,
                    None,
                    vec!["scratch variables live for one probe firing: set it earlier in this block".into()],
                ),
            },
            PersistNeverSet { span, .. } => (
                *span,
                None,
                vec!["persistent registers are zero at kernel entry; assign it in some probe, e.g. `kernel:entry { %t0 = clock64; }`".into()],
            ),
            UnknownMap { span, known, .. } => (*span, None, vec![known.clone()]),
            MapKind {
                span,
                declared,
                hint,
                ..
            } => (
                *span,
                declared.map(|d| (d, "declared here")),
                vec![(*hint).into()],
            ),
            MapArity { span, first, .. }
            | MapKeyType { span, first, .. }
            | MapValue { span, first, .. } => (
                *span,
                Some((*first, "first used here")),
                vec![first_use.into()],
            ),
            MapDecl { span, .. } => (*span, None, vec![MAP_KINDS.into()]),
            Config { span, .. } => (*span, None, vec![crate::check::config_hint()]),
            Duplicate { span, first, .. } => (*span, Some((*first, "first set here")), vec![]),
            Printf { span, .. } => (
                *span,
                None,
                vec!["conversions: %d %i %u %x %X %o %c %s %p, with flags, width and h/l/ll/z/j sizes; %% prints %; %s takes `kernel` or a string (`str($1)`, \"text\")".into()],
            ),
            Lhist { span, .. } => (
                *span,
                None,
                vec!["lhist(x, min, max, step): constant bounds, min < max, step > 0, (max - min) a multiple of step, at most 1000 buckets".into()],
            ),
            Unroll { span } => (*span, None, vec![]),
            Range { span } => (
                *span,
                None,
                vec![
                    "the body is unrolled once per value (a probe's control flow is a DAG), \
                     e.g. `for ($i : 0..4) { @sum = sum($i); }`"
                        .into(),
                ],
            ),
            DivisorMayBeZero { span } => (
                *span,
                None,
                vec!["divide by a non-zero constant, or by a value made non-zero, e.g. `x | 1`".into()],
            ),
        };
        let mut labels = vec![Label::primary((), span.start..span.end)];
        if let Some((s, message)) = secondary {
            labels.push(Label::secondary((), s.start..s.end).with_message(message));
        }
        Diagnostic::error()
            .with_message(self.to_string())
            .with_labels(labels)
            .with_notes(hints)
    }
}

/// Writes diagnostics in bpftrace's shape (see the module documentation).
pub(crate) fn emit(
    file: &SimpleFile<&str, &str>,
    diagnostics: &[Diagnostic<()>],
    out: &mut dyn WriteColor,
) -> io::Result<()> {
    let mut error = ColorSpec::new();
    error.set_fg(Some(Color::Red)).set_bold(true);
    let mut hint = ColorSpec::new();
    hint.set_fg(Some(Color::Cyan)).set_bold(true);
    for d in diagnostics {
        let primary = d.labels.iter().find(|l| l.style == LabelStyle::Primary);
        match primary {
            Some(label) => write_located(file, label, "ERROR", &d.message, &error, out)?,
            None => write_word(out, "ERROR", &d.message, &error)?,
        }
        for label in d.labels.iter().filter(|l| l.style == LabelStyle::Secondary) {
            write_located(file, label, "HINT", &label.message, &hint, out)?;
        }
        for note in &d.notes {
            write_word(out, "HINT", note, &hint)?;
        }
    }
    Ok(())
}

/// `WORD: message`
fn write_word(
    out: &mut dyn WriteColor,
    word: &str,
    message: &str,
    spec: &ColorSpec,
) -> io::Result<()> {
    out.set_color(spec)?;
    write!(out, "{word}:")?;
    out.reset()?;
    writeln!(out, " {message}")
}

/// `file:line:col-col: WORD: message`, the source line, and `~` under the span.
fn write_located(
    file: &SimpleFile<&str, &str>,
    label: &Label<()>,
    word: &str,
    message: &str,
    spec: &ColorSpec,
    out: &mut dyn WriteColor,
) -> io::Result<()> {
    let Some(at) = locate(file, label.range.start, label.range.end) else {
        return write_word(out, word, message, spec);
    };
    write!(
        out,
        "{}:{}:{}-{}: ",
        file.name(),
        at.line,
        at.col,
        at.col + at.width
    )?;
    write_word(out, word, message, spec)?;
    let expand = |c: char| {
        if c == '\t' {
            "    ".to_string()
        } else {
            c.to_string()
        }
    };
    let text: String = at.text.chars().map(expand).collect();
    writeln!(out, "{text}")?;
    let columns = |c: char| if c == '\t' { 4 } else { 1 };
    let pad: usize = at.text.chars().take(at.col - 1).map(columns).sum();
    let mut spanned = at.text.chars().skip(at.col - 1);
    // Past the end of the line (an error at the end of input) each column is one `~`.
    let under: usize = (0..at.width)
        .map(|_| spanned.next().map_or(1, columns))
        .sum();
    write!(out, "{}", " ".repeat(pad))?;
    out.set_color(spec)?;
    write!(out, "{}", "~".repeat(under))?;
    out.reset()?;
    writeln!(out)
}

/// Where a span starts and how many columns of its first line it covers.
struct Located<'a> {
    /// 1-based line number.
    line: usize,
    /// 1-based column (in characters) of the first character.
    col: usize,
    /// Columns underlined; at least 1.
    width: usize,
    /// The source line, without its line break.
    text: &'a str,
}

fn locate<'a>(file: &SimpleFile<&str, &'a str>, start: usize, end: usize) -> Option<Located<'a>> {
    let source: &'a str = file.source();
    let mut start = start.min(source.len());
    while !source.is_char_boundary(start) {
        start -= 1;
    }
    let line_index = file.line_index((), start).ok()?;
    let range = file.line_range((), line_index).ok()?;
    let text = source.get(range.clone())?.trim_end_matches(['\n', '\r']);
    let line_end = range.start + text.len();
    let from = start.min(line_end);
    let to = end.min(line_end).max(from);
    let col = source.get(range.start..from)?.chars().count() + 1;
    let covered = source.get(from..to).map_or(0, |s| s.chars().count());
    Some(Located {
        line: line_index + 1,
        col,
        width: covered.max(1),
        text,
    })
}
