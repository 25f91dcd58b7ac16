//! A byte-preserving parser of AMDGPU assembly as clang, llc and Triton emit it.
//!
//! The text is cut into lines and each line into statements (labels, directives,
//! instructions); every statement keeps its byte span, so [`Module::to_text`] of an
//! unmodified file is the file and splicing inserts text between statements. On top of
//! the statements: the kernels (`.amdhsa_kernel` descriptor blocks with their
//! `.amdhsa_*` fields, the body from the kernel's label to the end of its function),
//! the device functions (`.type NAME,@function` without a descriptor), the target
//! (`.amdgcn_target`) and the `.amdgpu_metadata` block (`metadata.rs`). Comments are
//! `;` to the end of the line (outside strings).

use crate::metadata::Metadata;
use crate::reg::{parse_reg, Reg};
use crate::Error;
use std::ops::Range;

/// A parsed module.
#[derive(Debug, Clone)]
pub struct Module {
    source: String,
    /// Byte span of each line, newline excluded.
    lines: Vec<Range<usize>>,
    /// Every statement in text order.
    pub stmts: Vec<Stmt>,
    /// The kernels, in text order of their descriptors.
    pub kernels: Vec<Kernel>,
    /// Device functions (non-kernel `@function` symbols), in text order.
    pub functions: Vec<Function>,
    /// The processor of `.amdgcn_target` (`gfx942`), if given.
    pub processor: Option<String>,
    /// The `.amdgpu_metadata` block, if any.
    pub metadata: Option<Metadata>,
}

/// One statement.
#[derive(Debug, Clone, PartialEq)]
pub struct Stmt {
    /// 1-based line.
    pub line: u32,
    /// Byte span in the source (comment excluded).
    pub span: Range<usize>,
    /// What it is.
    pub kind: StmtKind,
}

/// The kinds of statement.
#[derive(Debug, Clone, PartialEq)]
pub enum StmtKind {
    /// `name:`.
    Label(String),
    /// `.name args`.
    Directive {
        /// The directive with its dot (`.amdhsa_next_free_vgpr`).
        name: String,
        /// The arguments as written, trimmed.
        args: String,
    },
    /// An instruction.
    Instr(Instruction),
}

/// An instruction: mnemonic, operands, modifiers.
#[derive(Debug, Clone, PartialEq)]
pub struct Instruction {
    /// The mnemonic with its encoding suffix (`v_add_u32_e32`).
    pub mnemonic: String,
    /// The comma-separated operands.
    pub operands: Vec<Operand>,
    /// The space-separated modifiers after the last operand (`offset:16`, `glc`, `sc0`),
    /// or the whole operand text of `s_waitcnt`-like instructions (`vmcnt(0)`).
    pub modifiers: Vec<String>,
}

/// An operand.
#[derive(Debug, Clone, PartialEq)]
pub struct Operand {
    /// As written.
    pub text: String,
    /// The register it names, through `-`, `|…|`, `abs(…)`, `neg(…)`, `sext(…)`.
    pub reg: Option<Reg>,
    /// Its value when it is an integer literal (decimal or `0x` hex, maybe negative).
    pub imm: Option<i64>,
}

/// A kernel: its descriptor and body.
#[derive(Debug, Clone)]
pub struct Kernel {
    /// The symbol (`histogram`).
    pub name: String,
    /// The statement of `.amdhsa_kernel NAME`.
    pub descriptor_start: usize,
    /// The statement of `.end_amdhsa_kernel`.
    pub descriptor_end: usize,
    /// The `.amdhsa_*` fields: (name, value, statement index).
    pub fields: Vec<(String, String, usize)>,
    /// The body: statements from the kernel's label (included) to the end of its function.
    pub body: Range<usize>,
}

/// A device function (called by kernels through `s_swappc_b64`).
#[derive(Debug, Clone)]
pub struct Function {
    /// The symbol.
    pub name: String,
    /// Its statements from its label.
    pub body: Range<usize>,
}

impl Kernel {
    /// A descriptor field's value, if present and an integer.
    pub fn field(&self, name: &str) -> Option<i64> {
        self.fields
            .iter()
            .find(|(n, _, _)| n == name)
            .and_then(|(_, v, _)| parse_int(v))
    }

    /// A descriptor field's value as written.
    pub fn field_text(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(n, _, _)| n == name)
            .map(|(_, v, _)| v.as_str())
    }
}

/// Parses an integer literal: decimal or `0x` hex, optionally negative.
pub fn parse_int(text: &str) -> Option<i64> {
    let t = text.trim();
    let (neg, t) = match t.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, t),
    };
    let v = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        u64::from_str_radix(h, 16).ok()? as i64
    } else if !t.is_empty() && t.bytes().all(|c| c.is_ascii_digit()) {
        t.parse::<u64>().ok()? as i64
    } else {
        return None;
    };
    Some(if neg { v.wrapping_neg() } else { v })
}

impl Module {
    /// The source text.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The module printed back: the text of every line, in order, with the newlines
    /// between them. Byte-identical to the input for an unmodified module.
    pub fn to_text(&self) -> String {
        let mut out = String::with_capacity(self.source.len());
        let mut last = 0;
        for l in &self.lines {
            out.push_str(&self.source[last..l.start]);
            out.push_str(&self.source[l.clone()]);
            last = l.end;
        }
        out.push_str(&self.source[last..]);
        out
    }

    /// The number of lines.
    pub fn line_count(&self) -> usize {
        self.lines.len()
    }

    /// A kernel by name.
    pub fn kernel(&self, name: &str) -> Option<&Kernel> {
        self.kernels.iter().find(|k| k.name == name)
    }

    /// The byte offset where line `line` (1-based) starts.
    pub fn line_start(&self, line: u32) -> usize {
        self.lines
            .get(line.saturating_sub(1) as usize)
            .map_or(self.source.len(), |r| r.start)
    }

    /// The byte offset just after line `line`'s newline (or the end of the text).
    pub fn line_end(&self, line: u32) -> usize {
        match self.lines.get(line.saturating_sub(1) as usize) {
            Some(r) if r.end < self.source.len() => r.end + 1,
            Some(r) => r.end,
            None => self.source.len(),
        }
    }

    /// The instruction at statement `i`, if it is one.
    pub fn instr(&self, i: usize) -> Option<&Instruction> {
        match self.stmts.get(i).map(|s| &s.kind) {
            Some(StmtKind::Instr(x)) => Some(x),
            _ => None,
        }
    }

    /// The text of statement `i`.
    pub fn stmt_text(&self, i: usize) -> &str {
        self.stmts
            .get(i)
            .map_or("", |s| &self.source[s.span.clone()])
    }
}

/// Parses `text`.
pub fn parse(text: &str) -> Result<Module, Error> {
    let mut lines = Vec::new();
    let mut start = 0;
    for (i, b) in text.bytes().enumerate() {
        if b == b'\n' {
            lines.push(start..i);
            start = i + 1;
        }
    }
    if start < text.len() {
        lines.push(start..text.len());
    }
    let mut stmts = Vec::new();
    let mut metadata_lines: Option<(u32, usize)> = None;
    let mut metadata = None;
    for (n, range) in lines.iter().enumerate() {
        let line = n as u32 + 1;
        let raw = &text[range.clone()];
        if let Some((first, from)) = metadata_lines {
            if raw.trim() == ".end_amdgpu_metadata" {
                metadata = Some(Metadata::parse(&text[from..range.start], from, first)?);
                metadata_lines = None;
                stmts.push(Stmt {
                    line,
                    span: trimmed(text, range.clone()),
                    kind: StmtKind::Directive {
                        name: ".end_amdgpu_metadata".into(),
                        args: String::new(),
                    },
                });
            }
            continue;
        }
        let code_end = range.start + comment_start(raw);
        let mut at = range.start;
        loop {
            let span = trimmed(text, at..code_end);
            if span.is_empty() {
                break;
            }
            let code = &text[span.clone()];
            if let Some(label) = label_of(code) {
                let end = span.start + label.len() + 1;
                stmts.push(Stmt {
                    line,
                    span: span.start..end,
                    kind: StmtKind::Label(label.to_owned()),
                });
                at = end;
                continue;
            }
            let kind = if code.starts_with('.') {
                let (name, args) = split_word(code);
                if name == ".amdgpu_metadata" {
                    metadata_lines = Some((line + 1, range.end + 1));
                }
                StmtKind::Directive {
                    name: name.to_owned(),
                    args: args.trim().to_owned(),
                }
            } else {
                StmtKind::Instr(
                    parse_instruction(code).map_err(|message| Error::Syntax { line, message })?,
                )
            };
            stmts.push(Stmt { line, span, kind });
            break;
        }
    }
    if metadata_lines.is_some() {
        return Err(Error::Syntax {
            line: lines.len() as u32,
            message: "`.amdgpu_metadata` without `.end_amdgpu_metadata`".into(),
        });
    }
    let processor = stmts.iter().find_map(|s| match &s.kind {
        StmtKind::Directive { name, args } if name == ".amdgcn_target" => {
            let t = args.trim_matches('"');
            t.rsplit("--")
                .next()
                .map(|p| p.split(':').next().unwrap_or(p).to_owned())
        }
        _ => None,
    });
    let (kernels, functions) = find_kernels(&stmts)?;
    // A code object's kernels are described by its metadata note: kernels without the
    // block are a file cut short (which llvm-mc would reject), not kernels to skip.
    if let (Some(k), None) = (kernels.first(), &metadata) {
        return Err(Error::Syntax {
            line: lines.len() as u32,
            message: format!(
                "kernel `{}` has a descriptor but the module has no `.amdgpu_metadata` block                  (is the file truncated?)",
                k.name
            ),
        });
    }
    Ok(Module {
        source: text.to_owned(),
        lines,
        stmts,
        kernels,
        functions,
        processor,
        metadata,
    })
}

/// The span with surrounding whitespace removed.
fn trimmed(text: &str, r: Range<usize>) -> Range<usize> {
    let s = &text[r.clone()];
    let start = r.start + (s.len() - s.trim_start().len());
    let end = r.end - (s.len() - s.trim_end().len());
    start..end.max(start)
}

/// Where the comment of a line starts (its length when there is none).
fn comment_start(line: &str) -> usize {
    let mut quoted = false;
    let mut escaped = false;
    for (i, c) in line.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if quoted => escaped = true,
            '"' => quoted = !quoted,
            ';' if !quoted => return i,
            _ => {}
        }
    }
    line.len()
}

/// `name` of a leading `name:` (identifier characters only).
fn label_of(code: &str) -> Option<&str> {
    let end = code.find(':')?;
    let name = &code[..end];
    let ident = !name.is_empty()
        && name
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'$'))
        && !name.as_bytes()[0].is_ascii_digit();
    // `s_waitcnt` etc. never end their first word with `:`; an instruction with a
    // modifier (`offset:16`) has a space before the colon.
    ident.then_some(name)
}

/// The first whitespace-separated word and the rest.
fn split_word(code: &str) -> (&str, &str) {
    match code.find(|c: char| c.is_whitespace()) {
        Some(i) => (&code[..i], &code[i..]),
        None => (code, ""),
    }
}

/// Splits at top-level occurrences of `sep` (outside `()`, `[]`, quotes).
fn split_top(text: &str, sep: impl Fn(char) -> bool) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut quoted = false;
    let mut start = 0;
    for (i, c) in text.char_indices() {
        match c {
            '"' => quoted = !quoted,
            '(' | '[' if !quoted => depth += 1,
            ')' | ']' if !quoted => depth -= 1,
            c if depth == 0 && !quoted && sep(c) => {
                out.push(&text[start..i]);
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    out.push(&text[start..]);
    out
}

/// Mnemonics whose whole operand text is a list of space-separated fields.
fn fields_only(mnemonic: &str) -> bool {
    mnemonic.starts_with("s_waitcnt") && !mnemonic.contains("_vscnt")
        || mnemonic.starts_with("s_delay_alu")
}

pub(crate) fn parse_instruction(code: &str) -> Result<Instruction, String> {
    let (mnemonic, rest) = split_word(code);
    if !mnemonic
        .bytes()
        .all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'.')
    {
        return Err(format!("not an instruction: `{code}`"));
    }
    let rest = rest.trim();
    let mut operands = Vec::new();
    let mut modifiers = Vec::new();
    if fields_only(mnemonic) {
        modifiers = split_top(rest, char::is_whitespace)
            .into_iter()
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect();
    } else if !rest.is_empty() {
        let pieces = split_top(rest, |c| c == ',');
        let last = pieces.len() - 1;
        for (i, piece) in pieces.into_iter().enumerate() {
            let piece = piece.trim();
            if i < last {
                operands.push(operand(piece));
                continue;
            }
            let words: Vec<&str> = split_top(piece, char::is_whitespace)
                .into_iter()
                .filter(|s| !s.is_empty())
                .collect();
            let mut words = words.into_iter();
            // An operand-less instruction's first word may be a modifier (`buffer_inv sc1`).
            match words.next() {
                Some(w) if last == 0 && is_modifier(w) => modifiers.push(w.to_owned()),
                Some(w) => operands.push(operand(w)),
                None => return Err(format!("empty operand in `{code}`")),
            }
            modifiers.extend(words.map(str::to_owned));
        }
    }
    Ok(Instruction {
        mnemonic: mnemonic.to_owned(),
        operands,
        modifiers,
    })
}

/// Whether a word is a modifier rather than an operand.
fn is_modifier(w: &str) -> bool {
    matches!(
        w,
        "glc" | "slc" | "dlc" | "sc0" | "sc1" | "nt" | "lds" | "tfe" | "lwe" | "gds"
    ) || w.contains(':') && !w.contains('[')
}

fn operand(text: &str) -> Operand {
    let inner = strip_modifiers(text);
    Operand {
        text: text.to_owned(),
        reg: parse_reg(inner),
        imm: parse_int(text),
    }
}

/// `-v1` → `v1`, `|v1|` → `v1`, `abs(v1)`/`neg(v1)`/`sext(v1)` → `v1`.
fn strip_modifiers(text: &str) -> &str {
    let mut t = text.trim();
    loop {
        let before = t;
        t = t.strip_prefix('-').unwrap_or(t);
        if let Some(x) = t.strip_prefix('|').and_then(|x| x.strip_suffix('|')) {
            t = x;
        }
        for f in ["abs(", "neg(", "sext("] {
            if let Some(x) = t.strip_prefix(f).and_then(|x| x.strip_suffix(')')) {
                t = x;
            }
        }
        if t == before {
            return t;
        }
    }
}

/// Finds the kernels (descriptor blocks) and device functions of `stmts`.
fn find_kernels(stmts: &[Stmt]) -> Result<(Vec<Kernel>, Vec<Function>), Error> {
    let directive = |i: usize| match &stmts[i].kind {
        StmtKind::Directive { name, args } => Some((name.as_str(), args.as_str())),
        _ => None,
    };
    let label_index = |name: &str| {
        stmts
            .iter()
            .position(|s| matches!(&s.kind, StmtKind::Label(l) if l == name))
    };
    // The end of the function whose label is at `start`.
    let body_end = |start: usize, name: &str| {
        (start + 1..stmts.len())
            .find(|&i| match directive(i) {
                Some((".section" | ".amdhsa_kernel", _)) => true,
                Some((".size", args)) => args.split(',').next().map(str::trim) == Some(name),
                Some((".type", args)) => {
                    args.contains("@function")
                        && args.split(',').next().map(str::trim) != Some(name)
                }
                _ => false,
            })
            .unwrap_or(stmts.len())
    };
    let mut kernels = Vec::new();
    for i in 0..stmts.len() {
        let Some((".amdhsa_kernel", name)) = directive(i) else {
            continue;
        };
        let name = name.trim().to_owned();
        let end = (i + 1..stmts.len())
            .find(|&j| matches!(directive(j), Some((".end_amdhsa_kernel", _))))
            .ok_or_else(|| Error::Syntax {
                line: stmts[i].line,
                message: format!("`.amdhsa_kernel {name}` without `.end_amdhsa_kernel`"),
            })?;
        let fields = (i + 1..end)
            .filter_map(|j| directive(j).map(|(n, a)| (n.to_owned(), a.trim().to_owned(), j)))
            .collect();
        let start = label_index(&name).ok_or_else(|| Error::Syntax {
            line: stmts[i].line,
            message: format!("kernel `{name}` has a descriptor but no label"),
        })?;
        kernels.push(Kernel {
            body: start..body_end(start, &name),
            name,
            descriptor_start: i,
            descriptor_end: end,
            fields,
        });
    }
    let mut functions = Vec::new();
    for i in 0..stmts.len() {
        let Some((".type", args)) = directive(i) else {
            continue;
        };
        let mut parts = args.split(',');
        let (Some(name), Some(kind)) = (parts.next(), parts.next()) else {
            continue;
        };
        let name = name.trim();
        if kind.trim() != "@function" || kernels.iter().any(|k| k.name == name) {
            continue;
        }
        if let Some(start) = label_index(name) {
            functions.push(Function {
                name: name.to_owned(),
                body: start..body_end(start, name),
            });
        }
    }
    Ok((kernels, functions))
}
