//! A text-preserving parser of compiler-generated PTX.
//!
//! The module keeps its source; every function, statement and declaration records the
//! byte span it came from, so printing an unmodified module is byte-identical and the
//! splicer can insert text at exact offsets. Only what instrumentation needs is
//! structured: `.entry`/`.func` headers and parameter lists, and in bodies the labels,
//! directives (`.reg`, `.loc`, `.shared`, …), nested `{ }` scopes and instructions
//! (guard, opcode with modifiers, operands). Everything else stays verbatim.

use crate::Error;
use std::collections::HashMap;
use std::ops::Range;
pub use warptrace_verifier::Name;

/// A parsed PTX module: its text plus the functions found in it.
#[derive(Debug, Clone)]
pub struct Module {
    src: String,
    functions: Vec<Function>,
    /// The `.file` table, read once (every kernel's sites look their files up in it).
    files: std::sync::OnceLock<HashMap<u32, String>>,
}

/// Whether a function is a kernel or a device function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FunctionKind {
    /// A kernel (`.entry`).
    Entry,
    /// A device function (`.func`); recorded, not instrumented.
    Func,
}

/// One `.entry` or `.func`.
#[derive(Debug, Clone)]
pub struct Function {
    /// Kernel or device function.
    pub kind: FunctionKind,
    /// The (mangled) name.
    pub name: String,
    /// 1-based line of the `.entry`/`.func` keyword.
    pub line: u32,
    /// Byte span from the `.entry`/`.func` keyword to the end of the body (or `;`).
    pub span: Range<usize>,
    /// Byte span of each parameter declaration (trimmed), in order.
    pub params: Vec<Range<usize>>,
    /// Offset just after the parameter list's `(`, if there is one.
    pub params_open: Option<usize>,
    /// Offset just after the name.
    pub name_end: usize,
    /// The body, absent for a declaration (`… ;`).
    pub body: Option<Body>,
}

/// A function body `{ … }`.
#[derive(Debug, Clone)]
pub struct Body {
    /// Offset of the opening `{`.
    pub open: usize,
    /// Offset of the closing `}`.
    pub close: usize,
    /// Statements in order.
    pub stmts: Vec<Stmt>,
}

/// One statement of a body.
#[derive(Debug, Clone)]
pub struct Stmt {
    /// Byte span in the module's text (`;` included).
    pub span: Range<usize>,
    /// 1-based line of its first byte.
    pub line: u32,
    /// The statement without comments, whitespace runs collapsed to one space.
    pub text: String,
    /// What it is.
    pub kind: StmtKind,
}

/// The kinds of body statements.
#[derive(Debug, Clone)]
pub enum StmtKind {
    /// `name:`
    Label(Name),
    /// A directive (`.reg`, `.loc`, `.shared`, `.pragma`, …); `.reg` ones are decoded.
    Directive(Option<RegDecl>),
    /// `{` opening a nested scope.
    ScopeOpen,
    /// `}` closing a nested scope.
    ScopeClose,
    /// An instruction.
    Instr(Instruction),
}

/// A `.reg` declaration. Ranges (`%r<4>`) stay ranges: a hostile or generated kernel
/// may declare `%r<100000000>`, which ptxas reads in a second.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegDecl {
    /// The type as written (`.b32`, `.pred`, …).
    pub ty: String,
    /// The names and ranges declared, in order.
    pub items: Vec<RegItem>,
}

/// One item of a `.reg` declaration: a name, or a range `base<count>` declaring
/// `base0` .. `base{count-1}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegItem {
    /// The name, or the range's base (`%r` of `%r<4>`).
    pub base: String,
    /// `Some(n)` for a range of `n` registers.
    pub count: Option<u32>,
}

impl RegItem {
    /// Whether this item declares register `reg`.
    pub fn declares(&self, reg: &str) -> bool {
        warptrace_verifier::declares_register(&self.base, self.count, reg)
    }

    /// Every register declared, in order (a range expanded: use only on small ones).
    pub fn names(&self) -> impl Iterator<Item = String> + '_ {
        let n = self.count.unwrap_or(0);
        let single = self.count.is_none().then(|| self.base.clone());
        single
            .into_iter()
            .chain((0..n).map(move |i| format!("{}{i}", self.base)))
    }

    /// The item as written: `%r<4>` or `%x`.
    pub fn text(&self) -> String {
        warptrace_verifier::declaration_text(&self.base, self.count)
    }
}

pub(crate) use warptrace_verifier::range_index;

impl RegDecl {
    /// Whether this declaration declares register `reg`.
    pub fn declares(&self, reg: &str) -> bool {
        self.items.iter().any(|i| i.declares(reg))
    }

    /// Every register declared (ranges expanded: use only on small declarations).
    pub fn names(&self) -> impl Iterator<Item = String> + '_ {
        self.items.iter().flat_map(RegItem::names)
    }

    /// Width in bits of a scalar register of this type (`.pred` is 1), if known.
    pub fn bits(&self) -> Option<u32> {
        match self.ty.as_str() {
            ".pred" => Some(1),
            t => crate::insn::type_bytes(t.trim_start_matches('.')).map(|b| 8 * b),
        }
    }
}

/// An instruction: optional guard, opcode with modifiers, operands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instruction {
    /// The guard predicate (`@%p1`, `@!%p1`).
    pub guard: Option<Guard>,
    /// The opcode with its modifiers, e.g. `ld.global.v4.b32`.
    pub opcode: Name,
    /// The operands in order.
    pub operands: Vec<Operand>,
}

impl Instruction {
    /// The opcode's first component (`ld` for `ld.global.v4.b32`).
    pub fn root(&self) -> &str {
        // Bytes, not `split('.')`: opcodes are short and this runs for every instruction
        // several times.
        let end = self.opcode.bytes().position(|b| b == b'.');
        &self.opcode[..end.unwrap_or(self.opcode.len())]
    }

    /// The opcode's modifiers (`global`, `v4`, `b32` for `ld.global.v4.b32`).
    pub fn modifiers(&self) -> impl Iterator<Item = &str> {
        // A closure, not `'.'`: the char searcher's setup costs more than these few bytes.
        #[allow(clippy::manual_pattern_char_comparison)]
        self.opcode.split(|c: char| c == '.').skip(1)
    }

    /// The first address operand, if any.
    pub fn address(&self) -> Option<&Address> {
        self.operands.iter().find_map(|o| match o {
            Operand::Addr(a) => Some(a),
            _ => None,
        })
    }
}

/// A guard predicate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Guard {
    /// The predicate register.
    pub reg: Name,
    /// `@!%p`: the instruction runs when the predicate is false.
    pub negated: bool,
}

impl Guard {
    /// The guard as written, `@%p1` or `@!%p1`.
    pub fn text(&self) -> String {
        format!("@{}{}", if self.negated { "!" } else { "" }, self.reg)
    }

    /// The inverted guard: `@!%p1` for `@%p1`.
    pub fn inverted(&self) -> Guard {
        Guard {
            reg: self.reg.clone(),
            negated: !self.negated,
        }
    }
}

/// An instruction operand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Operand {
    /// A `%`-register (special registers like `%tid.x` included); `!%p` is recorded as `%p`.
    Reg(Name),
    /// An identifier without `%`: a label, a variable, a parameter, or a register
    /// declared without `%` (the model resolves it against the declarations).
    Symbol(Name),
    /// `%p|%q` (e.g. `setp`'s two results).
    PredPair(Name, Name),
    /// `{ a, b, … }`.
    Vector(Vec<Operand>),
    /// `[ … ]`.
    Addr(Address),
    /// `( … )`, e.g. a call's argument list.
    Group(Vec<Operand>),
    /// A numeric immediate as written.
    Imm(Name),
    /// The sink `_`.
    Sink,
}

/// A memory operand `[base+offset]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Address {
    /// The base.
    pub base: AddrBase,
    /// The immediate offset (0 if none).
    pub offset: i64,
    /// Every register named inside the brackets.
    pub regs: Vec<Name>,
}

/// The base of an address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AddrBase {
    /// A register.
    Reg(Name),
    /// A variable or parameter name.
    Symbol(Name),
    /// An absolute address.
    Imm(i64),
    /// Anything else (`[%rd1, {%r1, %r2}]` of tensor copies, …).
    Complex,
}

impl Module {
    /// The functions, in text order.
    pub fn functions(&self) -> &[Function] {
        &self.functions
    }

    /// The kernel (`.entry` with a body) named `name`.
    pub fn kernel(&self, name: &str) -> Option<&Function> {
        self.functions
            .iter()
            .find(|f| f.kind == FunctionKind::Entry && f.body.is_some() && f.name == name)
    }

    /// The text the module was parsed from.
    pub fn source(&self) -> &str {
        &self.src
    }

    /// The module's `.file` table: index → path, read on first use.
    pub(crate) fn files(&self) -> &HashMap<u32, String> {
        self.files.get_or_init(|| file_table(&self.src))
    }

    /// Prints the module back: the text between functions, each function's header, and
    /// its body statement by statement with the trivia between them. Byte-identical to
    /// the input for an unmodified module.
    pub fn to_text(&self) -> String {
        let mut out = String::with_capacity(self.src.len());
        let mut at = 0;
        let copy = |out: &mut String, at: &mut usize, end: usize| {
            if let Some(s) = self.src.get(*at..end) {
                out.push_str(s);
                *at = end;
            }
        };
        for f in &self.functions {
            copy(&mut out, &mut at, f.span.start);
            match &f.body {
                Some(body) => {
                    copy(&mut out, &mut at, body.open + 1);
                    for s in &body.stmts {
                        copy(&mut out, &mut at, s.span.start); // trivia
                        copy(&mut out, &mut at, s.span.end);
                    }
                    copy(&mut out, &mut at, body.close + 1);
                }
                None => copy(&mut out, &mut at, f.span.end),
            }
        }
        copy(&mut out, &mut at, self.src.len());
        out
    }

    /// The text of a function (from its keyword to the end of its body).
    pub(crate) fn function_text(&self, f: &Function) -> &str {
        self.src.get(f.span.clone()).unwrap_or("")
    }

    /// Whether `f` names anything starting with `prefix` (a register, label, parameter
    /// or symbol token, `%`/`$` sigils aside). Tokens, not substrings: a comment, a
    /// string or `foo__wt_x` does not count.
    pub(crate) fn names_with_prefix(&self, f: &Function, prefix: &str) -> bool {
        let header = f
            .params
            .iter()
            .map(|r| clean(self.src.get(r.clone()).unwrap_or("")));
        let stmts = f.body.iter().flat_map(|b| &b.stmts).map(|s| s.text.clone());
        std::iter::once(f.name.clone())
            .chain(header)
            .chain(stmts)
            .any(|text| tokens_outside_strings(&text).any(|t| t.starts_with(prefix)))
    }

    /// The text of one parameter.
    pub fn param_text(&self, f: &Function, i: usize) -> Option<&str> {
        f.params.get(i).and_then(|r| self.src.get(r.clone()))
    }
}

/// The identifier tokens of comment-free `text` outside string literals, sigils (`%`,
/// `$`) removed.
fn tokens_outside_strings(text: &str) -> impl Iterator<Item = &str> {
    // As the lexer reads strings: no escapes, every `"` opens or closes one.
    let mut in_string = false;
    text.split(move |c: char| {
        if c == '"' {
            in_string = !in_string;
        }
        in_string || !(c.is_ascii_alphanumeric() || c == '_' || c == '$' || c == '%')
    })
    .map(|t| t.trim_start_matches(['%', '$']))
    .filter(|t| !t.is_empty())
}

/// The `.file` table of a module: index → path.
fn file_table(src: &str) -> HashMap<u32, String> {
    let mut files = HashMap::new();
    for line in src.lines() {
        let t = line.trim_start();
        let Some(rest) = t.strip_prefix(".file") else {
            continue;
        };
        if !rest.starts_with(|c: char| c.is_whitespace()) {
            continue;
        }
        let rest = rest.trim_start();
        let idx: String = rest.chars().take_while(char::is_ascii_digit).collect();
        let (Ok(idx), Some(open)) = (idx.parse::<u32>(), rest.find('"')) else {
            continue;
        };
        let Some(len) = rest[open + 1..].find('"') else {
            continue;
        };
        files.insert(idx, rest[open + 1..open + 1 + len].to_owned());
    }
    files
}

fn line_of(starts: &[usize], offset: usize) -> u32 {
    match starts.binary_search(&offset) {
        Ok(i) => i as u32 + 1,
        Err(i) => i as u32,
    }
}

/// Parses a PTX module.
pub fn parse(ptx: &str) -> Result<Module, Error> {
    check_bytes(ptx)?;
    if ptx.len() < SPLIT_PARSE_BYTES {
        return parse_at(ptx, 1);
    }
    // Split at the first statement-like line start after the middle: usually inside the
    // body of the module's largest function.
    let middle = ptx.len() / 2;
    let split = ptx.as_bytes()[middle..]
        .iter()
        .position(|&c| c == b'\n')
        .map(|i| middle + i + 1)
        .and_then(|at| {
            ptx.as_bytes()[at..]
                .iter()
                .position(|c| !c.is_ascii_whitespace())
                .map(|i| at + i)
        });
    match split {
        Some(split) => parse_split(ptx, 1, split),
        None => parse_at(ptx, 1),
    }
}

/// ptxas reads ASCII only: a non-ASCII byte anywhere (a comment included), a NUL (its
/// end of file) or a control character other than tab, line feed, carriage return and
/// form feed makes it reject the module, so the model refuses it too.
fn check_bytes(text: &str) -> Result<(), Error> {
    let bad = text.bytes().position(|c| {
        !c.is_ascii() || (c < 0x20 && !matches!(c, b'\t' | b'\n' | b'\r' | 0x0c)) || c == 0x7f
    });
    match bad {
        None => Ok(()),
        Some(at) => Err(Error::Syntax {
            line: text[..at].matches('\n').count() as u32 + 1,
            message: format!(
                "byte 0x{:02x} is not accepted by ptxas (PTX is ASCII)",
                text.as_bytes()[at]
            ),
        }),
    }
}

/// Texts of at least this many bytes are parsed in two halves at once.
pub(crate) const SPLIT_PARSE_BYTES: usize = 32 * 1024;

/// Parses `ptx`, numbering its first line `line_base` (for a slice of a larger text).
pub(crate) fn parse_at(ptx: &str, line_base: u32) -> Result<Module, Error> {
    let mut line_starts = vec![0];
    line_starts.extend(ptx.match_indices('\n').map(|(i, _)| i + 1));
    let mut p = Parser::new(ptx, &line_starts, line_base);
    let functions = p.module()?;
    Ok(Module {
        src: ptx.to_owned(),
        functions,
        files: Default::default(),
    })
}

/// Reads `text` as the statements of a function body (a raw probe's `before`/`after`
/// block), with the same lexer as kernels, its first line numbered `line_base`. A `}`
/// that closes more scopes than the text opens is an error, not the end of the block.
pub(crate) fn parse_block(text: &str, line_base: u32) -> Result<Vec<Stmt>, Error> {
    check_bytes(text).map_err(|e| match e {
        Error::Syntax { line, message } => Error::Syntax {
            line: line + line_base - 1,
            message,
        },
        other => other,
    })?;
    let wrapped = format!("{text}\n}}");
    let mut line_starts = vec![0];
    line_starts.extend(wrapped.match_indices('\n').map(|(i, _)| i + 1));
    let mut p = Parser::new(&wrapped, &line_starts, line_base);
    let mut stmts = Vec::new();
    let close = p.stmts(0, 0, &mut stmts)?;
    if close != Some(wrapped.len() - 1) {
        let at = close.unwrap_or(0);
        return Err(p.err(at, "unbalanced `}`"));
    }
    Ok(stmts)
}

/// Parses `text` (numbered from `line_base`) as [`parse_at`] does, but reading it in two
/// halves at once: the second from `split`, an offset that should be a statement start
/// inside a function body, at the `{ }` depth the braces before it suggest, then on to
/// the end of the text. The halves are kept only if reading the first one sequentially
/// reaches the same statement start at the same depth (the parser's whole state between
/// statements); if the first never reaches `split` inside a body, it read the whole text
/// itself. Otherwise the text is read again in one pass. Either way the result is the
/// one-pass parse.
pub(crate) fn parse_split(text: &str, line_base: u32, split: usize) -> Result<Module, Error> {
    match halves(text, line_base, split)? {
        Some(module) => Ok(module),
        None => parse_at(text, line_base),
    }
}

/// [`parse_split`]'s two halves: `None` when they do not make the one-pass parse.
fn halves(text: &str, line_base: u32, split: usize) -> Result<Option<Module>, Error> {
    let mut line_starts = vec![0];
    line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
    let head = text.as_bytes().get(..split).unwrap_or(&[]);
    let opens = head.iter().filter(|&&c| c == b'{').count();
    let closes = head.iter().filter(|&&c| c == b'}').count();
    // The body's own `{` is not a scope.
    let depth = opens.saturating_sub(closes + 1);
    let (first, second) = warptrace_verifier::parallel::join(
        || {
            let mut p = Parser::new(text, &line_starts, line_base);
            p.stop = Some(split);
            p.module().map(|functions| (functions, p.stopped, p.pos))
        },
        || {
            let mut p = Parser::new(text, &line_starts, line_base);
            p.pos = split;
            p.skip_space().ok()?;
            let begin = p.pos;
            let mut stmts = Vec::new();
            let close = p.stmts(split, depth, &mut stmts).ok()??;
            // The functions after this body.
            let rest = p.module().ok()?;
            Some((begin, stmts, close, rest))
        },
    );
    // An error before `split` is the one-pass parse's error too.
    let (mut functions, stopped, at) = first?;
    let Some(reached) = stopped else {
        // `split` is in no body: the first half read everything.
        return Ok(Some(Module {
            src: text.to_owned(),
            functions,
            files: Default::default(),
        }));
    };
    if let Some((begin, stmts, close, rest)) = second {
        let last = functions.last_mut();
        if let Some(f) = last.filter(|_| begin == at && reached == depth) {
            if let Some(body) = f.body.as_mut() {
                body.stmts.extend(stmts);
                body.close = close;
                f.span.end = close + 1;
                functions.extend(rest);
                return Ok(Some(Module {
                    src: text.to_owned(),
                    functions,
                    files: Default::default(),
                }));
            }
        }
    }
    Ok(None)
}

struct Parser<'a> {
    src: &'a str,
    s: &'a [u8],
    pos: usize,
    line_starts: &'a [usize],
    line_base: u32,
    /// Stop reading a body at the first statement that starts at or after this offset
    /// ([`parse_split`]'s first half).
    stop: Option<usize>,
    /// Set when a body stopped there: the `{ }` depth it had reached.
    stopped: Option<usize>,
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c == b'%'
}

impl<'a> Parser<'a> {
    fn new(text: &'a str, line_starts: &'a [usize], line_base: u32) -> Parser<'a> {
        Parser {
            src: text,
            s: text.as_bytes(),
            pos: 0,
            line_starts,
            line_base,
            stop: None,
            stopped: None,
        }
    }

    fn line(&self, offset: usize) -> u32 {
        line_of(self.line_starts, offset) + self.line_base - 1
    }

    fn err(&self, offset: usize, message: impl Into<String>) -> Error {
        Error::Syntax {
            line: self.line(offset),
            message: message.into(),
        }
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    fn starts_with(&self, lit: &str) -> bool {
        self.s[self.pos..].starts_with(lit.as_bytes())
    }

    /// Skips one comment or string at `pos`, if there is one.
    fn skip_comment_or_string(&mut self) -> Result<bool, Error> {
        if self.starts_with("//") {
            self.pos = memchr_from(self.s, self.pos, b'\n');
            Ok(true)
        } else if self.starts_with("/*") {
            let start = self.pos;
            match self.src.get(start + 2..).and_then(|rest| rest.find("*/")) {
                Some(n) => self.pos = start + 2 + n + 2,
                None => {
                    self.pos = self.s.len();
                    return Err(self.err(start, "unterminated comment"));
                }
            }
            Ok(true)
        } else if self.peek() == Some(b'"') {
            let start = self.pos;
            self.pos += 1;
            loop {
                // ptxas strings have no escapes: a `\` is a character, `"` ends the string.
                match self.peek() {
                    None => return Err(self.err(start, "unterminated string")),
                    Some(b'"') => {
                        self.pos += 1;
                        break;
                    }
                    Some(_) => self.pos += 1,
                }
            }
            Ok(true)
        } else {
            Ok(false)
        }
    }

    fn skip_trivia(&mut self) -> Result<(), Error> {
        loop {
            match self.peek() {
                Some(c) if c.is_ascii_whitespace() => self.pos += 1,
                Some(b'/') | Some(b'"') => {
                    if !self.skip_comment_or_string()? {
                        return Ok(());
                    }
                }
                _ => return Ok(()),
            }
        }
    }

    fn word(&mut self) -> &'a str {
        let start = self.pos;
        while self.peek().is_some_and(|c| is_ident(c) || c == b'.') {
            self.pos += 1;
        }
        self.text(start..self.pos)
    }

    fn ident(&mut self) -> &'a str {
        let start = self.pos;
        while self.peek().is_some_and(is_ident) {
            self.pos += 1;
        }
        self.text(start..self.pos)
    }

    /// The source between two offsets (ASCII bytes delimit every range the parser
    /// takes, so they are character boundaries).
    fn text(&self, r: Range<usize>) -> &'a str {
        self.src.get(r).unwrap_or("")
    }

    fn module(&mut self) -> Result<Vec<Function>, Error> {
        let mut functions = Vec::new();
        let mut depth = 0usize;
        loop {
            self.skip_trivia()?;
            let Some(c) = self.peek() else { break };
            match c {
                b'{' => {
                    depth += 1;
                    self.pos += 1;
                }
                b'}' => {
                    depth = depth
                        .checked_sub(1)
                        .ok_or_else(|| self.err(self.pos, "unbalanced `}`"))?;
                    self.pos += 1;
                }
                b'.' if depth == 0 => {
                    let start = self.pos;
                    match self.word() {
                        ".entry" => functions.push(self.function(FunctionKind::Entry, start)?),
                        ".func" => functions.push(self.function(FunctionKind::Func, start)?),
                        _ => {}
                    }
                    if self.stopped.is_some() {
                        return Ok(functions);
                    }
                }
                c if is_ident(c) || c == b'.' => {
                    self.word();
                }
                _ => self.pos += 1,
            }
        }
        if depth != 0 {
            return Err(self.err(self.s.len(), "unbalanced `{` at end of module"));
        }
        Ok(functions)
    }

    /// Parses a parenthesised list at `pos`; returns the trimmed spans of its elements.
    fn paren_list(&mut self) -> Result<Vec<Range<usize>>, Error> {
        let open = self.pos;
        self.pos += 1;
        let mut items = Vec::new();
        let mut item_start = self.pos;
        loop {
            if self.skip_comment_or_string()? {
                continue;
            }
            match self.peek() {
                None => return Err(self.err(open, "unterminated parameter list")),
                Some(b')') | Some(b',') => {
                    let r = trim(self.s, item_start..self.pos);
                    if !r.is_empty() {
                        items.push(r);
                    }
                    let close = self.peek() == Some(b')');
                    self.pos += 1;
                    item_start = self.pos;
                    if close {
                        return Ok(items);
                    }
                }
                Some(_) => self.pos += 1,
            }
        }
    }

    fn function(&mut self, kind: FunctionKind, start: usize) -> Result<Function, Error> {
        self.skip_trivia()?;
        if kind == FunctionKind::Func && self.peek() == Some(b'(') {
            self.paren_list()?; // return parameters
            self.skip_trivia()?;
        }
        let name = self.ident().to_string();
        if name.is_empty() {
            return Err(self.err(start, "function without a name"));
        }
        let name_end = self.pos;
        self.skip_trivia()?;
        let (params, params_open) = if self.peek() == Some(b'(') {
            let open = self.pos + 1;
            (self.paren_list()?, Some(open))
        } else {
            (Vec::new(), None)
        };
        // Performance directives (`.reqntid 128`, `.maxnreg 32`, `.noreturn`, …) and
        // `.pragma "…";`, whose `;` ends the pragma, not the function.
        loop {
            self.skip_trivia()?;
            if self.starts_with(".pragma") {
                self.word();
                self.past_semicolon(start)?;
                continue;
            }
            match self.peek() {
                None => return Err(self.err(start, format!("`{name}` has no body or `;`"))),
                Some(b';') => {
                    self.pos += 1;
                    return Ok(Function {
                        kind,
                        line: self.line(start),
                        name,
                        span: start..self.pos,
                        params,
                        params_open,
                        name_end,
                        body: None,
                    });
                }
                Some(b'{') => break,
                Some(_) => self.pos += 1,
            }
        }
        let body = self.body()?;
        Ok(Function {
            kind,
            line: self.line(start),
            name,
            span: start..body.close + 1,
            params,
            params_open,
            name_end,
            body: Some(body),
        })
    }

    fn body(&mut self) -> Result<Body, Error> {
        let open = self.pos;
        self.pos += 1;
        let mut stmts = Vec::new();
        let close = self.stmts(open, 0, &mut stmts)?;
        Ok(Body {
            open,
            close: close.unwrap_or(self.pos),
            stmts,
        })
    }

    /// Reads body statements into `stmts` from `pos`, at `{ }` depth `depth`, up to the
    /// body's closing `}`, whose offset it returns; or, with a `stop`, up to the first
    /// statement starting at or after it (returns `None`, `stopped` set to the depth).
    /// `open` is the body's `{`, for messages.
    fn stmts(
        &mut self,
        open: usize,
        mut depth: usize,
        stmts: &mut Vec<Stmt>,
    ) -> Result<Option<usize>, Error> {
        loop {
            // Whitespace and comments; a string is no trivia here (ptxas rejects one
            // where a statement starts), it is read as part of the statement.
            self.skip_space()?;
            let start = self.pos;
            if self.stop.is_some_and(|stop| start >= stop) {
                self.stopped = Some(depth);
                return Ok(None);
            }
            // A statement ending at `end` whose comment-free text is `text`.
            let with_text = |p: &Self, end: usize, text: String, kind: StmtKind| Stmt {
                span: start..end,
                line: p.line(start),
                text,
                kind,
            };
            let stmt = |p: &Self, end: usize, kind: StmtKind| {
                with_text(p, end, clean(p.text(start..end)), kind)
            };
            match self.peek() {
                None => return Err(self.err(open, "unterminated function body")),
                Some(b'}') if depth == 0 => {
                    self.pos += 1;
                    return Ok(Some(start));
                }
                Some(b'}') => {
                    depth -= 1;
                    self.pos += 1;
                    stmts.push(stmt(self, self.pos, StmtKind::ScopeClose));
                }
                Some(b'{') => {
                    depth += 1;
                    self.pos += 1;
                    stmts.push(stmt(self, self.pos, StmtKind::ScopeOpen));
                }
                Some(b'.') if matches!(self.word(), ".loc" | ".file") => {
                    if self.text(start..self.pos) == ".file" {
                        return Err(self.err(
                            start,
                            "`.file` inside a function body (ptxas accepts it at module scope only)",
                        ));
                    }
                    // A directive without `;`: it ends where its operands end, as ptxas
                    // reads it, not at the end of the line (an instruction after
                    // `.loc 1 10 3` on the same line is an instruction).
                    self.loc_operands(start)?;
                    let end = self.pos;
                    stmts.push(stmt(self, end, StmtKind::Directive(None)));
                }
                Some(_) => {
                    self.pos = start;
                    let name = self.ident();
                    let after = self.pos;
                    // A label's `:` may follow any whitespace and comments, line breaks
                    // included, as ptxas's tokens do.
                    if !name.is_empty() && !name.starts_with('%') {
                        self.skip_space()?;
                        if self.peek() == Some(b':') && self.s.get(self.pos + 1) != Some(&b':') {
                            self.pos += 1;
                            stmts.push(stmt(self, self.pos, StmtKind::Label(name.into())));
                            continue;
                        }
                    }
                    self.pos = after;
                    let end = self.past_semicolon(start)?;
                    let text = clean(self.text(start..end));
                    let kind = if text.starts_with('.') {
                        StmtKind::Directive(reg_decl(&text))
                    } else {
                        let instr = parse_instruction(&text)
                            .ok_or_else(|| self.err(start, format!("cannot parse `{text}`")))?;
                        StmtKind::Instr(instr)
                    };
                    stmts.push(with_text(self, end, text, kind));
                }
            }
        }
    }

    /// Skips trivia before a statement or within a directive's operands: whitespace,
    /// comments, `#line` line markers (which ptxas reads as trivia, see
    /// [`linemarker_end`]) and one `\` (ptxas ignores a single backslash before an
    /// opcode; two are an error). A string is an operand, not trivia.
    fn skip_space(&mut self) -> Result<(), Error> {
        let mut backslash = false;
        loop {
            match self.peek() {
                Some(c) if c.is_ascii_whitespace() => self.pos += 1,
                Some(b'/') if self.starts_with("//") || self.starts_with("/*") => {
                    self.skip_comment_or_string()?;
                }
                Some(b'#') => match linemarker_end(self.s, self.pos) {
                    Some(end) => self.pos = end,
                    None => {
                        return Err(self.err(
                            self.pos,
                            "a `#` line that is not a line marker (ptxas runs no preprocessor)",
                        ))
                    }
                },
                Some(b'\\') if !backslash => {
                    backslash = true;
                    self.pos += 1;
                }
                Some(b'\\') => return Err(self.err(self.pos, "two backslashes before a statement")),
                _ => return Ok(()),
            }
        }
    }

    /// One integer token (decimal or hex) of the directive at `start`.
    fn int_token(&mut self, start: usize, what: &str) -> Result<(), Error> {
        self.skip_space()?;
        let from = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_alphanumeric()) {
            self.pos += 1;
        }
        if parse_int(self.text(from..self.pos)).is_none() {
            return Err(self.err(start, format!("malformed `{what}`: expected an integer")));
        }
        Ok(())
    }

    /// `.loc file line column` and its optional `, function_name label [+ offset]` and
    /// `, inlined_at file line column` parts (PTX ISA, debugging directives).
    fn loc_operands(&mut self, start: usize) -> Result<(), Error> {
        for _ in 0..3 {
            self.int_token(start, ".loc")?;
        }
        loop {
            let end = self.pos;
            self.skip_space()?;
            if self.peek() != Some(b',') {
                self.pos = end;
                return Ok(());
            }
            self.pos += 1;
            self.skip_space()?;
            match self.ident() {
                "function_name" => {
                    self.skip_space()?;
                    if self.ident().is_empty() {
                        return Err(
                            self.err(start, "malformed `.loc`: `function_name` needs a label")
                        );
                    }
                    let end = self.pos;
                    self.skip_space()?;
                    if self.peek() == Some(b'+') {
                        self.pos += 1;
                        self.int_token(start, ".loc")?;
                    } else {
                        self.pos = end;
                    }
                }
                "inlined_at" => {
                    for _ in 0..3 {
                        self.int_token(start, ".loc")?;
                    }
                }
                other => {
                    return Err(self.err(
                        start,
                        format!("malformed `.loc`: unknown attribute `{other}`"),
                    ))
                }
            }
        }
    }

    /// Advances past the `;` ending the statement at `start`; returns the end offset.
    fn past_semicolon(&mut self, start: usize) -> Result<usize, Error> {
        loop {
            // Only `;`, a comment's `/`, a string's `"` or a line marker's `#` can matter:
            // skip to the next.
            let rest = &self.s[self.pos..];
            match rest
                .iter()
                .position(|&c| matches!(c, b';' | b'/' | b'"' | b'#'))
            {
                None => {
                    self.pos = self.s.len();
                    return Err(self.err(start, "statement without `;`"));
                }
                Some(n) => self.pos += n,
            }
            if self.skip_comment_or_string()? {
                continue;
            }
            if self.peek() == Some(b'#') {
                // A line marker on a line of its own inside a statement is trivia to
                // ptxas; `clean` removes it from the statement's text.
                match linemarker_end(self.s, self.pos) {
                    Some(end) => {
                        self.pos = end;
                        continue;
                    }
                    None => return Err(self.err(self.pos, "a `#` that is not a line marker")),
                }
            }
            if self.peek() == Some(b';') {
                self.pos += 1;
                return Ok(self.pos);
            }
            self.pos += 1; // a `/` that starts no comment
        }
    }
}

/// The end (the line break) of the line marker at `pos`: `#line N "file"` or
/// `# N "file" [flags…]`, alone on the rest of its line, as ptxas accepts them anywhere
/// (even between the tokens of a statement); `None` for any other `#`, which ptxas
/// rejects.
fn linemarker_end(s: &[u8], pos: usize) -> Option<usize> {
    let line_end = s[pos..]
        .iter()
        .position(|&c| c == b'\n' || c == b'\r')
        .map_or(s.len(), |n| pos + n);
    let text = std::str::from_utf8(&s[pos + 1..line_end]).ok()?;
    let text = text.trim_start();
    let text = match text.strip_prefix("line") {
        Some(rest) if rest.starts_with([' ', '\t']) => rest.trim_start(),
        Some(_) => return None,
        None => text,
    };
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let rest = text[digits..].trim_start();
    let name = rest.strip_prefix('"')?;
    let close = name.find('"')?;
    let flags = name[close + 1..].trim();
    flags
        .split_whitespace()
        .all(|f| f.bytes().all(|c| c.is_ascii_digit()))
        .then_some(line_end)
}

fn trim(s: &[u8], r: Range<usize>) -> Range<usize> {
    let (mut a, mut b) = (r.start, r.end);
    while a < b && s[a].is_ascii_whitespace() {
        a += 1;
    }
    while b > a && s[b - 1].is_ascii_whitespace() {
        b -= 1;
    }
    a..b
}

/// Removes comments and collapses whitespace runs to one space.
pub(crate) fn clean(text: &str) -> String {
    if !text.is_ascii() {
        return clean_chars(text);
    }
    // ASCII (all real PTX): the same as `clean_chars`, byte by byte.
    let b = text.as_bytes();
    if is_clean(b) {
        // Most statements (every one the back end emits) have nothing to remove.
        return text.to_owned();
    }
    let mut out = Vec::with_capacity(b.len());
    let mut space = false;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            i = memchr_from(b, i, b'\n');
            space = true;
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'*') {
            i = text[i..].find("*/").map_or(b.len(), |n| i + n + 2);
            space = true;
            continue;
        }
        if c == b'#' {
            // A line marker the lexer let through: trivia to its line's end.
            i = b[i..]
                .iter()
                .position(|&c| c == b'\n' || c == b'\r')
                .map_or(b.len(), |n| i + n);
            space = true;
            continue;
        }
        i += 1;
        if c.is_ascii_whitespace() || c == 0x0b {
            space = true;
        } else {
            if space && !out.is_empty() {
                out.push(b' ');
            }
            space = false;
            out.push(c);
        }
    }
    // ASCII in, ASCII out.
    String::from_utf8(out).unwrap_or_default()
}

/// Whether [`clean`] would return ASCII `b` unchanged: no comment opener, no whitespace
/// but single spaces between words.
fn is_clean(b: &[u8]) -> bool {
    let mut after_space = true; // a leading space is removed
    for &c in b {
        match c {
            b'/' | b'#' => return false,
            b' ' if after_space => return false,
            b' ' => after_space = true,
            c if c.is_ascii_whitespace() || c == 0x0b => return false,
            _ => after_space = false,
        }
    }
    b.is_empty() || !after_space
}

/// Index of the first `needle` at or after `from`, or the length.
fn memchr_from(b: &[u8], from: usize, needle: u8) -> usize {
    b[from..]
        .iter()
        .position(|&c| c == needle)
        .map_or(b.len(), |n| from + n)
}

/// [`clean`] for any text: whitespace as `char::is_whitespace` defines it.
fn clean_chars(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut space = false;
    while let Some(c) = rest.chars().next() {
        if rest.starts_with("//") {
            let n = rest.find('\n').unwrap_or(rest.len());
            rest = &rest[n..];
            space = true;
            continue;
        }
        if rest.starts_with("/*") {
            let n = rest.find("*/").map_or(rest.len(), |n| n + 2);
            rest = &rest[n..];
            space = true;
            continue;
        }
        if rest.starts_with('#') {
            let n = rest.find(['\n', '\r']).unwrap_or(rest.len());
            rest = &rest[n..];
            space = true;
            continue;
        }
        rest = &rest[c.len_utf8()..];
        if c.is_whitespace() {
            space = true;
        } else {
            if space && !out.is_empty() {
                out.push(' ');
            }
            space = false;
            out.push(c);
        }
    }
    out
}

/// Decodes `.reg .b32 %r<4>, %x;` (comment-free text).
fn reg_decl(text: &str) -> Option<RegDecl> {
    let rest = text.strip_prefix(".reg")?.trim_end_matches(';');
    let mut ty = String::new();
    let mut items = Vec::new();
    let mut words = rest.split_whitespace().peekable();
    while let Some(w) = words.next_if(|w| w.starts_with('.')) {
        if w == ".align" || w.starts_with(".v") {
            if w == ".align" {
                words.next();
            }
            continue;
        }
        ty = w.to_owned();
    }
    let list: String = words.collect::<Vec<_>>().join(" ");
    for item in list.split(',') {
        let item = item.trim();
        if item.is_empty() {
            continue;
        }
        match item.split_once('<') {
            Some((base, n)) => {
                let n: u32 = n.trim_end_matches('>').trim().parse().ok()?;
                items.push(RegItem {
                    base: base.trim().to_owned(),
                    count: Some(n),
                });
            }
            None => items.push(RegItem {
                base: item.split('[').next().unwrap_or(item).trim().to_owned(),
                count: None,
            }),
        }
    }
    Some(RegDecl { ty, items })
}

/// Splits on commas outside brackets.
fn split_top(s: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match c {
            '{' | '[' | '(' => depth += 1,
            '}' | ']' | ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(s[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    let last = s[start..].trim();
    if !last.is_empty() || !parts.is_empty() {
        parts.push(last);
    }
    parts
}

/// Parses an instruction's comment-free text (`;` optional).
pub(crate) fn parse_instruction(text: &str) -> Option<Instruction> {
    let mut rest = text.trim().trim_end_matches(';').trim();
    let mut guard = None;
    if let Some(g) = rest.strip_prefix('@') {
        // `@`, an optional `!`, the predicate register: tokens, whitespace between them
        // optional.
        let g = g.trim_start();
        let (g, negated) = match g.strip_prefix('!') {
            Some(r) => (r.trim_start(), true),
            None => (g, false),
        };
        let n = g
            .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '%')))
            .unwrap_or(g.len());
        if n == 0 {
            return None;
        }
        // The opcode is a separate token: `@%p1add` is the register `%p1add` to ptxas.
        if !g[n..].starts_with(char::is_whitespace) {
            return None;
        }
        guard = Some(Guard {
            reg: g[..n].into(),
            negated,
        });
        rest = g[n..].trim_start();
        // ptxas ignores one backslash before the opcode.
        if let Some(r) = rest.strip_prefix('\\') {
            rest = r.trim_start();
        }
    }
    // Anywhere else a backslash is an error to ptxas.
    if rest.contains('\\') {
        return None;
    }
    // The opcode is one token: letters, digits, `_`, `.` and the `::` of qualifiers
    // (`ld.global.L1::evict_last`). Whatever follows starts the operands, glued or not
    // (`setp.eq.u32%p5, 1, 0;` is `setp.eq.u32` of `%p5, 1, 0` to ptxas).
    let n = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ':')))
        .unwrap_or(rest.len());
    let opcode = Name::from(&rest[..n]);
    if opcode.is_empty() {
        return None;
    }
    let operands = split_top(&rest[n..])
        .into_iter()
        .map(parse_operand)
        .collect();
    Some(Instruction {
        guard,
        opcode,
        operands,
    })
}

fn parse_operand(s: &str) -> Operand {
    let s = s.trim();
    if let Some(inner) = s.strip_prefix('{') {
        let inner = inner.trim_end_matches('}');
        return Operand::Vector(split_top(inner).into_iter().map(parse_operand).collect());
    }
    if let Some(inner) = s.strip_prefix('(') {
        let inner = inner.trim_end_matches(')');
        return Operand::Group(split_top(inner).into_iter().map(parse_operand).collect());
    }
    if let Some(inner) = s.strip_prefix('[') {
        return Operand::Addr(parse_address(inner.trim_end_matches(']')));
    }
    if let Some((a, b)) = s.split_once('|') {
        return Operand::PredPair(a.trim().into(), b.trim().into());
    }
    if s == "_" {
        return Operand::Sink;
    }
    let s = s.strip_prefix('!').unwrap_or(s);
    match s.chars().next() {
        Some('%') => Operand::Reg(s.into()),
        Some(c) if c.is_ascii_digit() || c == '-' || c == '+' => Operand::Imm(s.into()),
        _ => Operand::Symbol(s.into()),
    }
}

fn regs_in(s: &str) -> Vec<Name> {
    let mut regs = Vec::new();
    let mut rest = s;
    while let Some(i) = rest.find('%') {
        let tail = &rest[i..];
        let n = tail[1..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$' || c == '.'))
            .map_or(tail.len(), |n| n + 1);
        regs.push(Name::from(&tail[..n]));
        rest = &tail[n..];
    }
    regs
}

/// An integer literal; a sign may be followed by spaces (`+ 16` of `[%rd1 + 16]`), the
/// digits may not (`0x5a5a 17` is two tokens to ptxas, not one number).
pub(crate) fn parse_int(s: &str) -> Option<i64> {
    let s = s.trim();
    let (neg, digits) = match s.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let digits = digits.trim_start().trim_end_matches(['U', 'u']);
    if digits.contains(|c: char| c.is_whitespace()) {
        return None;
    }
    let v = match digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        Some(h) => u64::from_str_radix(h, 16).ok()? as i64,
        None => digits.parse::<u64>().ok()? as i64,
    };
    Some(if neg { v.wrapping_neg() } else { v })
}

fn parse_address(inner: &str) -> Address {
    let inner = inner.trim();
    let regs = regs_in(inner);
    if inner.contains([',', '{']) {
        return Address {
            base: AddrBase::Complex,
            offset: 0,
            regs,
        };
    }
    // base, then an optional `+ off` / `- off` / `+-off`.
    let split = inner
        .char_indices()
        .skip(1)
        .find(|&(_, c)| c == '+' || c == '-')
        .map_or(inner.len(), |(i, _)| i);
    let (base_s, off_s) = (inner[..split].trim(), inner[split..].trim());
    let offset = if off_s.is_empty() {
        Some(0)
    } else {
        let o = off_s.strip_prefix('+').unwrap_or(off_s);
        parse_int(o)
    };
    let base = if base_s.starts_with('%') {
        Some(AddrBase::Reg(base_s.into()))
    } else if base_s.starts_with(|c: char| c.is_ascii_digit()) {
        parse_int(base_s).map(AddrBase::Imm)
    } else if !base_s.is_empty() {
        Some(AddrBase::Symbol(base_s.into()))
    } else {
        None
    };
    match (base, offset) {
        (Some(base), Some(offset)) => Address { base, offset, regs },
        _ => Address {
            base: AddrBase::Complex,
            offset: 0,
            regs,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SM80: &str = include_str!("../../tests/corpus/ptx/nvcc_kernels_sm80.ptx");

    /// Scopes, a brace in a comment and in a string, a comment across lines.
    const SCOPED: &str = ".entry k(.param .u64 p)\n{\n\t.reg .b32 %r<3>; // {\n\t{\n\t.reg .b32 %t;\n\tmov.u32 %t, 1; /* } \n */\n\t}\n\t.pragma \"}\";\n\tmov.u32 %r1, 2;\nL1:\n\t{ mov.u32 %r2, %r1; }\n\tret;\n}\n";

    fn functions_of(text: &str) -> Vec<String> {
        let m = parse(text).expect("parses");
        m.functions()
            .iter()
            .filter(|f| f.body.is_some())
            .map(|f| m.function_text(f).to_string())
            .collect()
    }

    #[test]
    fn a_split_parse_is_the_one_pass_parse_wherever_it_splits() {
        for text in functions_of(SM80).iter().chain([&SCOPED.to_string()]) {
            let one = format!("{:?}", parse_at(text, 7).expect("parses"));
            for split in (0..=text.len()).step_by(53).chain([text.len() / 2]) {
                let two = parse_split(text, 7, split).expect("parses");
                assert_eq!(format!("{two:?}"), one, "split at {split}");
            }
        }
    }

    /// A whole module of several functions, split in one of them, between them or in
    /// the text after the last.
    #[test]
    fn a_split_module_parse_is_the_one_pass_parse() {
        let one = format!("{:?}", parse_at(SM80, 1).expect("parses"));
        for split in (0..=SM80.len()).step_by(331) {
            let two = parse_split(SM80, 1, split).expect("parses");
            assert_eq!(format!("{two:?}"), one, "split at {split}");
        }
        assert_eq!(format!("{:?}", parse(SM80).expect("parses")), one);
        let m = parse_at(SM80, 1).expect("parses");
        let kept = m
            .functions()
            .iter()
            .filter_map(|f| f.body.as_ref())
            .flat_map(|b| b.stmts.iter().step_by(11))
            .filter(|s| halves(SM80, 1, s.span.start).expect("parses").is_some())
            .count();
        assert!(kept > 0, "no split at a statement start was kept");
    }

    #[test]
    fn halves_split_at_a_statement_start_are_kept() {
        for text in functions_of(SM80).iter().chain([&SCOPED.to_string()]) {
            let m = parse_at(text, 1).expect("parses");
            let one = format!("{m:?}");
            let body = m.functions()[0].body.as_ref().expect("a body");
            for s in body.stmts.iter().step_by(7) {
                let two = halves(text, 1, s.span.start).expect("parses");
                let two = two.unwrap_or_else(|| panic!("halves at `{}` not kept", s.text));
                assert_eq!(format!("{two:?}"), one);
            }
        }
    }

    #[test]
    fn halves_that_disagree_are_dropped() {
        // Inside a statement, inside a comment, and with the depth of the scopes misjudged
        // (the brace in the comment).
        let inside = SCOPED.find("mov.u32 %r1").expect("present") + 3;
        let comment = SCOPED.find("/* }").expect("present") + 3;
        let misjudged = SCOPED.find("\t{\n").expect("present");
        for split in [inside, comment, misjudged] {
            assert!(
                halves(SCOPED, 1, split).expect("parses").is_none(),
                "{split}"
            );
        }
    }

    proptest::proptest! {
        #[test]
        fn clean_is_clean_chars_on_ascii(t in "[ a/*\\t\\n\\x0b\\x0c\\r;%.]{0,40}") {
            proptest::prop_assert_eq!(clean(&t), clean_chars(&t));
        }
    }

    #[test]
    fn operands_of_a_predicated_vector_load() {
        let i = parse_instruction("@!%p1 ld.global.v4.b32 { %r1, %r2, _, %r4 }, [ %rd1 + 16 ];")
            .expect("parses");
        assert_eq!(
            i.guard,
            Some(Guard {
                reg: "%p1".into(),
                negated: true
            })
        );
        assert_eq!(i.opcode, "ld.global.v4.b32");
        assert_eq!(
            i.operands[0],
            Operand::Vector(vec![
                Operand::Reg("%r1".into()),
                Operand::Reg("%r2".into()),
                Operand::Sink,
                Operand::Reg("%r4".into())
            ])
        );
        let a = i.address().expect("address");
        assert_eq!(a.base, AddrBase::Reg("%rd1".into()));
        assert_eq!(a.offset, 16);
    }

    #[test]
    fn address_forms() {
        let a = |s: &str| parse_address(s);
        assert_eq!(a("%rd1").offset, 0);
        assert_eq!(a("%r23+1024").offset, 1024);
        assert_eq!(a("%rd2+-8").offset, -8);
        assert_eq!(a("sym").base, AddrBase::Symbol("sym".into()));
        assert_eq!(a("sym+8").offset, 8);
        assert_eq!(a("%rd1, {%r1, %r2}").base, AddrBase::Complex);
        assert_eq!(a("%rd1, {%r1, %r2}").regs, ["%rd1", "%r1", "%r2"]);
    }

    #[test]
    fn reg_declarations_expand() {
        let d = reg_decl(".reg .b64 %rd<3>;").expect("decl");
        assert_eq!(d.names().collect::<Vec<_>>(), ["%rd0", "%rd1", "%rd2"]);
        assert_eq!(d.bits(), Some(64));
        assert!(d.declares("%rd2") && !d.declares("%rd3") && !d.declares("%rd01"));
        let d = reg_decl(".reg .pred %p, %q;").expect("decl");
        assert_eq!(d.names().collect::<Vec<_>>(), ["%p", "%q"]);
        assert_eq!(d.bits(), Some(1));
        // A range is kept as a range, however large.
        let d = reg_decl(".reg .b32 %r<100000000>;").expect("decl");
        assert_eq!(d.items.len(), 1);
        assert!(d.declares("%r99999999") && !d.declares("%r100000000"));
    }

    /// Statements as ptxas's tokens delimit them: an instruction after a `.loc` or
    /// `.file` on the same line, an opcode glued to its first operand, a label whose `:`
    /// is on the next line, a guard with spaces, a `.pragma` between the parameters and
    /// the body.
    #[test]
    fn statements_end_where_ptxas_ends_them() {
        let src = ".visible .entry k(.param .u32 a)\n.pragma \"nounroll\";\n{\n\
            .loc 1 10 3 add.u32 %r1, %r1, 7;\n\
            .loc 1 11 2, function_name $L__info, inlined_at 1 4 5 mov.u32 %r2, 1;\n\
            .loc 2 3 4 sub.u32 %r3, %r3, 1;\n\
            setp.eq.u32%p5, 1, 0;\n\
            name\n  /* c */ : bra name;\n\
            @ ! %p5 ret;\n}\n";
        let m = parse(src).expect("parses");
        let f = m.kernel("k").expect("a kernel, not a declaration");
        let body = f.body.as_ref().expect("body");
        let texts: Vec<&str> = body.stmts.iter().map(|s| s.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                ".loc 1 10 3",
                "add.u32 %r1, %r1, 7;",
                ".loc 1 11 2, function_name $L__info, inlined_at 1 4 5",
                "mov.u32 %r2, 1;",
                ".loc 2 3 4",
                "sub.u32 %r3, %r3, 1;",
                "setp.eq.u32%p5, 1, 0;",
                "name : ",
                "bra name;",
                "@ ! %p5 ret;",
            ]
            .map(|t| t.trim_end())
        );
        let StmtKind::Instr(setp) = &body.stmts[6].kind else {
            panic!("not an instruction")
        };
        assert_eq!(setp.opcode, "setp.eq.u32");
        assert_eq!(setp.operands[0], Operand::Reg("%p5".into()));
        assert!(matches!(&body.stmts[7].kind, StmtKind::Label(n) if n == "name"));
        let StmtKind::Instr(ret) = &body.stmts[9].kind else {
            panic!("not an instruction")
        };
        assert_eq!(
            ret.guard,
            Some(Guard {
                reg: "%p5".into(),
                negated: true
            })
        );
        assert_eq!(ret.opcode, "ret");
        assert_eq!(m.to_text(), src);
        // A malformed `.loc` is a located error, not a silent skip.
        let bad = ".entry k()\n{\n.loc 1 x\nret;\n}\n";
        assert!(matches!(parse(bad), Err(Error::Syntax { line: 3, .. })));
        // What ptxas rejects is refused: `.file` in a body, a `#` that is no line
        // marker, a non-ASCII byte in a comment, a glued guard, a split constant.
        for bad in [
            ".entry k()\n{\n.file 1 \"a.cu\"\nret;\n}\n",
            ".entry k()\n{\n#define X 1\nret;\n}\n",
            ".entry k()\n{\n// \u{e9}\nret;\n}\n",
            ".entry k()\n{\n@%p1ret;\n}\n",
        ] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
        assert_eq!(parse_int("0x5a5a 17"), None);
        assert_eq!(parse_int("+ 16"), Some(16));
        // A line marker is trivia, even inside a statement; a string has no escapes.
        let ok =
            ".entry k()\n{\nadd.u32 %r1,\n#line 5 \"x.cu\"\n %r1, 1;\n.pragma \"a\\\"; ret;\n}\n";
        let m = parse(ok).expect("parses");
        let body = m.kernel("k").and_then(|f| f.body.as_ref()).expect("body");
        let texts: Vec<&str> = body.stmts.iter().map(|s| s.text.as_str()).collect();
        assert_eq!(texts, ["add.u32 %r1, %r1, 1;", ".pragma \"a\\\";", "ret;"]);
    }

    #[test]
    fn statements_span_lines_and_scopes_nest() {
        let src = ".visible .entry k(\n.param .u32 a\n)\n{\n.reg .b32 %r<2>;\n{\n$L1:\tadd.s32 %r1,\n  %r0, 1; // c\n}\n@%p1 bra $L1;\nret;\n}\n";
        let m = parse(src).expect("parses");
        let f = m.kernel("k").expect("kernel");
        assert_eq!(f.params.len(), 1);
        let body = f.body.as_ref().expect("body");
        let kinds: Vec<&str> = body.stmts.iter().map(|s| s.text.as_str()).collect();
        assert_eq!(
            kinds,
            [
                ".reg .b32 %r<2>;",
                "{",
                "$L1:",
                "add.s32 %r1, %r0, 1;",
                "}",
                "@%p1 bra $L1;",
                "ret;"
            ]
        );
        assert_eq!(body.stmts[3].line, 7);
        assert_eq!(m.to_text(), src);
    }
}
