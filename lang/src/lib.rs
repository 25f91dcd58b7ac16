//! The warptrace probe language: source text → [`warptrace_ir::Program`].
//!
//! The pipeline is `parse` (pest grammar → AST), `check` (names, types, maps → a
//! checked tree) and `lower` (→ IR). Every stage reports located errors; [`compile`]
//! returns them all as one [`CompileError`], rendered in bpftrace's shape. The language
//! is documented in `docs/language.md`; this crate's structure in its README.
//! [`attach_points`], [`builtins`] and [`functions`] are the tables the checker uses,
//! for listings (`warptrace -l`).
#![deny(missing_docs)]

mod ast;
mod check;
mod diag;
mod hash;
mod lower;
mod names;
mod parse;
mod typed;

use codespan_reporting::diagnostic::Diagnostic;
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term::termcolor::{NoColor, WriteColor};
use std::fmt;

pub use names::{attach_points, builtins, functions, Entry};

/// Compiles a probe program. `file_name` is used in messages (`stdin` for `-e`).
pub fn compile(source: &str, file_name: &str) -> Result<warptrace_ir::Program, CompileError> {
    compile_with(source, file_name, &[]).map(|c| c.program)
}

/// A compiled program, and whether it reads its positional parameters.
#[derive(Debug, Clone)]
pub struct Compiled {
    /// The IR.
    pub program: warptrace_ir::Program,
    /// Whether the source reads `$1` … `$N` or `$#`.
    pub reads_params: bool,
}

/// [`compile`] with bpftrace's positional parameters: `$N` is `params[N - 1]` (an
/// integer; `str($N)` is the string), 0 past the last; `$#` is `params.len()`.
pub fn compile_with(
    source: &str,
    file_name: &str,
    params: &[String],
) -> Result<Compiled, CompileError> {
    let fail = |errors: Vec<diag::Error>| CompileError {
        diagnostics: errors.iter().map(diag::Error::to_diagnostic).collect(),
        source: source.to_string(),
        file_name: file_name.to_string(),
    };
    let (ast, reads_params) = parse::parse_with(source, params).map_err(fail)?;
    let checked = check::check(&ast).map_err(fail)?;
    let program = lower::lower(checked).map_err(fail)?;
    Ok(Compiled {
        program,
        reads_params,
    })
}

/// Why a program did not compile: every diagnostic found, with the source they point into.
#[derive(Debug, Clone)]
pub struct CompileError {
    diagnostics: Vec<Diagnostic<()>>,
    source: String,
    file_name: String,
}

impl CompileError {
    /// The diagnostics as plain text, in bpftrace's shape:
    ///
    /// ```text
    /// stdin:1:19-25: ERROR: unknown builtin `tidd.x`
    /// kernel:entry { @a[tidd.x] = count(); }
    ///                   ~~~~~~
    /// HINT: valid builtins: tid.x, tid.y, ...
    /// ```
    pub fn render(&self) -> String {
        let mut out = NoColor::new(Vec::new());
        // Writing to memory cannot fail.
        let _ = self.emit(&mut out);
        String::from_utf8_lossy(&out.into_inner()).into_owned()
    }

    /// Writes the diagnostics as [`render`](Self::render) does, coloured when `out` supports it.
    pub fn emit(&self, out: &mut dyn WriteColor) -> std::io::Result<()> {
        let file = SimpleFile::new(self.file_name.as_str(), self.source.as_str());
        diag::emit(&file, &self.diagnostics, out)
    }
}

impl fmt::Display for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render())
    }
}

impl std::error::Error for CompileError {}
