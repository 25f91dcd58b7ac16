//! The IR text form (parser): the inverse of `text.rs`, with located errors.
//!
//! The format is line-oriented: declarations (`config`, `map`, `persistent`, `format`)
//! first, then `host N: EVENT` and `probe N: SPEC` headers, each followed by its
//! instructions, one per line, written `  I: INSN` with `I` counting from 0. Blank
//! lines are ignored; names must be declared before they are used.

use crate::attach::is_bare_file;
use crate::{
    Aggregation, AttachPoint, AttachSpec, BinOp, ConfigEntry, ConfigValue, ExtFrom, FormatId,
    Granularity, HostBlock, HostEvent, Insn, Isa, KeyType, LoopEdge, MapDecl, MapId, MapKind,
    MemOp, MemSpace, Operand, Overflow, Per, PersistDecl, PersistId, Position, Probe, Program, Reg,
    RegionEnd, SiteValue, Special, ValueKind, Width,
};

/// A syntax error in IR text, located at a 1-based line and column (in bytes).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{col}: {message}")]
pub struct ParseError {
    /// 1-based line.
    pub line: u32,
    /// 1-based byte column.
    pub col: u32,
    /// What is wrong.
    pub message: String,
}

impl Program {
    /// Parses the text form that `Display` prints. Source spans are not part of the text,
    /// so every instruction's span is `None`.
    pub fn parse(text: &str) -> Result<Program, ParseError> {
        let mut program = Program::default();
        // The block whose instructions are being read: (is_host, index).
        let mut current: Option<bool> = None;
        for (n, raw) in text.lines().enumerate() {
            let line = raw.trim_end();
            if line.trim_start().is_empty() {
                continue;
            }
            let mut c = Cursor {
                s: line,
                pos: 0,
                line: n as u32 + 1,
            };
            if line.starts_with(' ') {
                let Some(is_host) = current else {
                    return Err(c.error("an instruction outside a probe or host block"));
                };
                c.skip_ws();
                let len = if is_host {
                    program.host.last().map_or(0, |h| h.insns.len())
                } else {
                    program.probes.last().map_or(0, |p| p.insns.len())
                };
                let at = c.pos;
                let index = c.u32()?;
                if index as usize != len {
                    return Err(c.at(at, &format!("expected instruction {len}")));
                }
                c.expect(":")?;
                c.skip_ws();
                let insn = c.insn(&program)?;
                c.end()?;
                let body = if is_host {
                    program
                        .host
                        .last_mut()
                        .map(|h| (&mut h.insns, &mut h.spans))
                } else {
                    program
                        .probes
                        .last_mut()
                        .map(|p| (&mut p.insns, &mut p.spans))
                };
                if let Some((insns, spans)) = body {
                    insns.push(insn);
                    spans.push(None);
                }
                continue;
            }
            let word = c.word();
            match word {
                "config" | "map" | "persistent" | "format" | "string" if current.is_some() => {
                    return Err(c.at(0, "declarations come before host blocks and probes"));
                }
                "config" => {
                    c.skip_ws();
                    let key = c.ident()?.to_owned();
                    c.skip_ws();
                    c.expect("=")?;
                    c.skip_ws();
                    let value = if c.peek() == Some('"') {
                        ConfigValue::Str(c.string()?)
                    } else {
                        ConfigValue::Int(c.i64()?)
                    };
                    c.end()?;
                    program.config.push(ConfigEntry { key, value });
                }
                "map" => {
                    let decl = c.map_decl()?;
                    if program.maps.iter().any(|m| m.name == decl.name) {
                        return Err(c.at(0, &format!("map @{} is declared twice", decl.name)));
                    }
                    program.maps.push(decl);
                }
                "persistent" => {
                    c.skip_ws();
                    c.expect("%")?;
                    let name = c.ident()?.to_owned();
                    c.end()?;
                    if program.persistent.iter().any(|p| p.name == name) {
                        return Err(c.at(0, &format!("%{name} is declared twice")));
                    }
                    program.persistent.push(PersistDecl { name });
                }
                "format" => {
                    let s = c.numbered_string("format", program.formats.len())?;
                    program.formats.push(s);
                }
                "string" => {
                    let s = c.numbered_string("string", program.strings.len())?;
                    program.strings.push(s);
                }
                "host" => {
                    c.skip_ws();
                    let at = c.pos;
                    let i = c.u32()?;
                    if i as usize != program.host.len() {
                        return Err(
                            c.at(at, &format!("expected host block {}", program.host.len()))
                        );
                    }
                    if current == Some(false) {
                        return Err(c.at(0, "host blocks come before probes"));
                    }
                    c.expect(":")?;
                    c.skip_ws();
                    let rest = c.rest();
                    let interval = rest
                        .strip_prefix("interval:us:")
                        .map(|n| n.parse::<u64>().ok().filter(|&us| us > 0));
                    let event = match (rest, interval) {
                        (_, Some(Some(us))) => HostEvent::Interval { us },
                        (_, Some(None)) => {
                            return Err(c.error("expected a period of at least 1 µs"))
                        }
                        ("begin", _) => HostEvent::Begin,
                        ("end", _) => HostEvent::End,
                        ("launch:complete", _) => HostEvent::LaunchComplete,
                        ("launch:begin", _) => HostEvent::LaunchBegin,
                        ("launch:end", _) => HostEvent::LaunchEnd,
                        _ => {
                            return Err(
                                c.error("expected begin, end, launch:complete or interval:us:N")
                            )
                        }
                    };
                    program.host.push(HostBlock {
                        event,
                        insns: Vec::new(),
                        spans: Vec::new(),
                    });
                    current = Some(true);
                }
                "probe" => {
                    c.skip_ws();
                    let at = c.pos;
                    let i = c.u32()?;
                    if i as usize != program.probes.len() {
                        return Err(c.at(at, &format!("expected probe {}", program.probes.len())));
                    }
                    c.expect(":")?;
                    c.skip_ws();
                    let attach = c.attach_spec()?;
                    program.probes.push(Probe {
                        attach,
                        insns: Vec::new(),
                        spans: Vec::new(),
                    });
                    current = Some(false);
                }
                _ => return Err(c.at(0, "expected config, map, persistent, format, host or probe")),
            }
        }
        Ok(program)
    }
}

/// A position in one line.
struct Cursor<'a> {
    s: &'a str,
    pos: usize,
    line: u32,
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

impl<'a> Cursor<'a> {
    fn at(&self, pos: usize, message: &str) -> ParseError {
        ParseError {
            line: self.line,
            col: pos as u32 + 1,
            message: message.to_owned(),
        }
    }

    fn error(&self, message: &str) -> ParseError {
        self.at(self.pos, message)
    }

    fn tail(&self) -> &'a str {
        &self.s[self.pos..]
    }

    fn peek(&self) -> Option<char> {
        self.tail().chars().next()
    }

    fn skip_ws(&mut self) {
        let t = self.tail();
        self.pos += t.len() - t.trim_start().len();
    }

    fn eat(&mut self, token: &str) -> bool {
        if self.tail().starts_with(token) {
            self.pos += token.len();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, token: &str) -> Result<(), ParseError> {
        if self.eat(token) {
            Ok(())
        } else {
            Err(self.error(&format!("expected `{token}`")))
        }
    }

    /// `token` surrounded by optional whitespace.
    fn punct(&mut self, token: &str) -> Result<(), ParseError> {
        self.skip_ws();
        self.expect(token)?;
        self.skip_ws();
        Ok(())
    }

    fn end(&mut self) -> Result<(), ParseError> {
        self.skip_ws();
        if self.pos == self.s.len() {
            Ok(())
        } else {
            Err(self.error("unexpected text at the end of the line"))
        }
    }

    /// The rest of the line.
    fn rest(&mut self) -> &'a str {
        let t = self.tail();
        self.pos = self.s.len();
        t
    }

    /// A run of non-blank characters (possibly empty).
    fn word(&mut self) -> &'a str {
        let t = self.tail();
        let n = t.find(char::is_whitespace).unwrap_or(t.len());
        self.pos += n;
        &t[..n]
    }

    /// A mnemonic: letters, digits, `_` and `.`.
    fn mnemonic(&mut self) -> &'a str {
        let t = self.tail();
        let n = t
            .find(|c: char| !(is_ident(c) || c == '.'))
            .unwrap_or(t.len());
        self.pos += n;
        &t[..n]
    }

    fn ident(&mut self) -> Result<&'a str, ParseError> {
        let t = self.tail();
        let n = t.find(|c: char| !is_ident(c)).unwrap_or(t.len());
        if n == 0 || t.starts_with(|c: char| c.is_ascii_digit()) {
            return Err(self.error("expected a name"));
        }
        self.pos += n;
        Ok(&t[..n])
    }

    fn digits(&mut self, negative_ok: bool) -> Result<&'a str, ParseError> {
        let t = self.tail();
        let sign = usize::from(negative_ok && t.starts_with('-'));
        let n = t[sign..]
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(t.len() - sign);
        if n == 0 {
            return Err(self.error("expected a number"));
        }
        self.pos += sign + n;
        Ok(&t[..sign + n])
    }

    fn u32(&mut self) -> Result<u32, ParseError> {
        let start = self.pos;
        let d = self.digits(false)?;
        d.parse().map_err(|_| self.at(start, "number out of range"))
    }

    fn i64(&mut self) -> Result<i64, ParseError> {
        let start = self.pos;
        let d = self.digits(true)?;
        d.parse().map_err(|_| self.at(start, "number out of range"))
    }

    /// A string literal as Rust's `{:?}` prints it.
    /// The rest of a `WHAT N: "…"` line (`format`, `string`), `N` being `next`, the
    /// table's next index.
    fn numbered_string(&mut self, what: &str, next: usize) -> Result<String, ParseError> {
        self.skip_ws();
        let at = self.pos;
        let i = self.u32()?;
        if i as usize != next {
            return Err(self.at(at, &format!("expected {what} {next}")));
        }
        self.expect(":")?;
        self.skip_ws();
        let s = self.string()?;
        self.end()?;
        Ok(s)
    }

    fn string(&mut self) -> Result<String, ParseError> {
        let start = self.pos;
        self.expect("\"")?;
        let mut out = String::new();
        loop {
            let Some(c) = self.peek() else {
                return Err(self.at(start, "unterminated string"));
            };
            self.pos += c.len_utf8();
            match c {
                '"' => return Ok(out),
                '\\' => {
                    let esc = self.pos - 1;
                    let Some(e) = self.peek() else {
                        return Err(self.at(start, "unterminated string"));
                    };
                    self.pos += e.len_utf8();
                    out.push(match e {
                        'n' => '\n',
                        'r' => '\r',
                        't' => '\t',
                        '0' => '\0',
                        '\\' => '\\',
                        '"' => '"',
                        '\'' => '\'',
                        'u' => {
                            self.expect("{")?;
                            let t = self.tail();
                            let n = t.find('}').ok_or_else(|| self.at(esc, "bad escape"))?;
                            let v = u32::from_str_radix(&t[..n], 16)
                                .ok()
                                .and_then(char::from_u32)
                                .ok_or_else(|| self.at(esc, "bad escape"))?;
                            self.pos += n + 1;
                            v
                        }
                        _ => return Err(self.at(esc, "bad escape")),
                    });
                }
                c => out.push(c),
            }
        }
    }

    fn reg(&mut self) -> Result<Reg, ParseError> {
        let start = self.pos;
        if !self.eat("r") {
            return Err(self.error("expected a register"));
        }
        let d = self.digits(false)?;
        d.parse()
            .map(Reg)
            .map_err(|_| self.at(start, "register number out of range"))
    }

    fn operand(&mut self) -> Result<Operand, ParseError> {
        if self.peek() == Some('r') {
            self.reg().map(Operand::Reg)
        } else if matches!(self.peek(), Some(c) if c == '-' || c.is_ascii_digit()) {
            self.i64().map(Operand::Imm)
        } else {
            Err(self.error("expected a register or an integer"))
        }
    }

    /// Operands separated by `, ` up to `close`, which is consumed.
    fn operands(&mut self, close: &str) -> Result<Vec<Operand>, ParseError> {
        let mut ops = Vec::new();
        self.skip_ws();
        if self.eat(close) {
            return Ok(ops);
        }
        loop {
            ops.push(self.operand()?);
            self.skip_ws();
            if self.eat(close) {
                return Ok(ops);
            }
            self.punct(",")?;
        }
    }

    /// `(a, b)`.
    fn tuple(&mut self) -> Result<Vec<Operand>, ParseError> {
        self.expect("(")?;
        self.operands(")")
    }

    /// `[a, b]` or nothing.
    fn keys(&mut self) -> Result<Vec<Operand>, ParseError> {
        if self.eat("[") {
            self.operands("]")
        } else {
            Ok(Vec::new())
        }
    }

    fn map_ref(&mut self, program: &Program) -> Result<MapId, ParseError> {
        let start = self.pos;
        self.expect("@")?;
        let name = self.ident()?;
        program
            .maps
            .iter()
            .position(|m| m.name == name)
            .map(|i| MapId(i as u32))
            .ok_or_else(|| self.at(start, &format!("unknown map @{name}")))
    }

    fn persist_ref(&mut self, program: &Program) -> Result<PersistId, ParseError> {
        let start = self.pos;
        self.expect("%")?;
        let name = self.ident()?;
        program
            .persistent
            .iter()
            .position(|p| p.name == name)
            .map(|i| PersistId(i as u32))
            .ok_or_else(|| self.at(start, &format!("unknown persistent register %{name}")))
    }

    fn key_type(&mut self) -> Result<KeyType, ParseError> {
        let start = self.pos;
        match self.ident()? {
            "u64" => Ok(KeyType::Int { signed: false }),
            "i64" => Ok(KeyType::Int { signed: true }),
            "kernel" => Ok(KeyType::Kernel),
            "str" => Ok(KeyType::Str),
            _ => Err(self.at(start, "expected u64, i64, kernel or str")),
        }
    }

    fn signedness(&mut self) -> Result<bool, ParseError> {
        self.skip_ws();
        let start = self.pos;
        match self.ident()? {
            "u64" => Ok(false),
            "i64" => Ok(true),
            _ => Err(self.at(start, "expected u64 or i64")),
        }
    }

    /// `name = value` of a map kind's parameter list.
    fn param(&mut self, name: &str) -> Result<(), ParseError> {
        self.skip_ws();
        self.expect(name)?;
        self.punct("=")
    }

    fn map_decl(&mut self) -> Result<MapDecl, ParseError> {
        self.skip_ws();
        self.expect("@")?;
        let name = self.ident()?.to_owned();
        self.punct(":")?;
        let start = self.pos;
        let kind = match self.ident()? {
            "hash" => {
                self.expect("(")?;
                self.param("keys")?;
                let capacity = self.u32()?;
                self.punct(")")?;
                MapKind::Hash { capacity }
            }
            "array" => {
                self.expect("(")?;
                self.param("per")?;
                let at = self.pos;
                let per = match self.ident()? {
                    "thread" => Per::Thread,
                    "warp" => Per::Warp,
                    _ => return Err(self.at(at, "expected thread or warp")),
                };
                self.punct(",")?;
                self.param("slots")?;
                let slots = self.u32()?;
                self.punct(")")?;
                MapKind::Array { per, slots }
            }
            "ring" => {
                self.expect("(")?;
                self.param("capacity")?;
                let capacity = self.u32()?;
                self.punct(",")?;
                self.param("overflow")?;
                let at = self.pos;
                let overflow = match self.ident()? {
                    "drop" => Overflow::Drop,
                    "overwrite" => Overflow::Overwrite,
                    _ => return Err(self.at(at, "expected drop or overwrite")),
                };
                self.punct(")")?;
                MapKind::Ring { capacity, overflow }
            }
            _ => return Err(self.at(start, "expected hash, array or ring")),
        };
        let mut keys = Vec::new();
        if self.eat("[") {
            loop {
                self.skip_ws();
                keys.push(self.key_type()?);
                self.skip_ws();
                if self.eat("]") {
                    break;
                }
                self.punct(",")?;
            }
            if keys.is_empty() {
                return Err(self.error("an empty key list is written without brackets"));
            }
        }
        self.punct("->")?;
        let start = self.pos;
        let value = match self.ident()? {
            "count" => ValueKind::Count,
            "sum" => ValueKind::Sum {
                signed: self.signedness()?,
            },
            "min" => ValueKind::Min {
                signed: self.signedness()?,
            },
            "max" => ValueKind::Max {
                signed: self.signedness()?,
            },
            "avg" => ValueKind::Avg {
                signed: self.signedness()?,
            },
            "stats" => ValueKind::Stats {
                signed: self.signedness()?,
            },
            "value" => ValueKind::Value {
                signed: self.signedness()?,
            },
            "hist" => ValueKind::Hist,
            "lhist" => {
                self.expect("(")?;
                let min = self.i64()?;
                self.punct(",")?;
                let max = self.i64()?;
                self.punct(",")?;
                let step = self.i64()?;
                self.expect(")")?;
                ValueKind::Lhist { min, max, step }
            }
            "record" => {
                self.expect("(")?;
                let mut fields = Vec::new();
                self.skip_ws();
                if !self.eat(")") {
                    loop {
                        self.skip_ws();
                        fields.push(self.key_type()?);
                        self.skip_ws();
                        if self.eat(")") {
                            break;
                        }
                        self.expect(",")?;
                    }
                }
                ValueKind::Record(fields)
            }
            "printf" => {
                self.expect("(")?;
                let args = self.u32()?;
                self.expect(")")?;
                ValueKind::Printf { args }
            }
            _ => return Err(self.at(start, "expected a value kind")),
        };
        self.end()?;
        Ok(MapDecl {
            name,
            kind,
            keys,
            value,
        })
    }

    fn attach_spec(&mut self) -> Result<AttachSpec, ParseError> {
        let granularity = if self.eat("warp ") {
            self.skip_ws();
            Granularity::Warp
        } else {
            Granularity::Thread
        };
        let position = if self.eat("after ") {
            self.skip_ws();
            Position::After
        } else {
            Position::Before
        };
        let point = self.attach_point()?;
        let kernel_glob = if self.eat(":") {
            Some(self.rest().to_owned())
        } else {
            self.end()?;
            None
        };
        Ok(AttachSpec {
            point,
            kernel_glob,
            position,
            granularity,
        })
    }

    fn attach_point(&mut self) -> Result<AttachPoint, ParseError> {
        const FIXED: [(&str, AttachPoint); 8] = [
            ("kernel:entry", AttachPoint::KernelEntry),
            ("kernel:exit", AttachPoint::KernelExit),
            ("tensor:mma", AttachPoint::TensorMma),
            ("sync:barrier", AttachPoint::SyncBarrier),
            ("branch", AttachPoint::Branch),
            ("loop:header", AttachPoint::Loop(LoopEdge::Header)),
            ("loop:backedge", AttachPoint::Loop(LoopEdge::Backedge)),
            ("loop:exit", AttachPoint::Loop(LoopEdge::Exit)),
        ];
        let start = self.pos;
        for (text, point) in FIXED {
            let t = self.tail();
            if t.starts_with(text) && matches!(t[text.len()..].chars().next(), None | Some(':')) {
                self.pos += text.len();
                return Ok(point);
            }
        }
        if self.eat("mem:") {
            let at = self.pos;
            let space = MemSpace::ALL
                .into_iter()
                .find(|s| self.eat_component(s.name()))
                .ok_or_else(|| self.at(at, "expected a memory space"))?;
            self.expect(":")?;
            let at = self.pos;
            let op = MemOp::ALL
                .into_iter()
                .find(|o| self.eat_component(o.name()))
                .ok_or_else(|| self.at(at, "expected a memory operation"))?;
            return Ok(AttachPoint::Mem { space, op });
        }
        let region = [RegionEnd::Entry, RegionEnd::Exit]
            .into_iter()
            .find(|e| self.eat(&format!("region:{}:", e.name())));
        if region.is_some() || self.eat("line:") {
            let file = if self.peek() == Some('"') {
                self.string()?
            } else {
                let t = self.tail();
                let n = t.find(':').unwrap_or(t.len());
                let file = &t[..n];
                if !is_bare_file(file) {
                    return Err(self.error("expected a file name (quote unusual ones)"));
                }
                self.pos += n;
                file.to_owned()
            };
            self.expect(":")?;
            let from = self.u32()?;
            let to = if self.eat("-") { self.u32()? } else { from };
            return Ok(match region {
                Some(end) => AttachPoint::Region {
                    end,
                    file,
                    from,
                    to,
                },
                None => AttachPoint::Line { file, from, to },
            });
        }
        for isa in [Isa::Ptx, Isa::Gcn] {
            if self.eat(isa.name()) && self.eat(":") {
                let t = self.tail();
                let n = t.find(':').unwrap_or(t.len());
                self.pos += n;
                return Ok(AttachPoint::Opcode {
                    isa,
                    glob: t[..n].to_owned(),
                });
            }
            self.pos = start;
        }
        Err(self.at(start, "expected an attach point"))
    }

    /// `name` followed by `:` or the end of the line.
    fn eat_component(&mut self, name: &str) -> bool {
        let t = self.tail();
        if t.starts_with(name) && matches!(t[name.len()..].chars().next(), None | Some(':')) {
            self.pos += name.len();
            true
        } else {
            false
        }
    }

    fn insn(&mut self, program: &Program) -> Result<Insn, ParseError> {
        if self.tail().starts_with('r')
            && self.tail()[1..].starts_with(|c: char| c.is_ascii_digit())
        {
            let dst = self.reg()?;
            self.punct("=")?;
            return self.def_insn(dst, program);
        }
        let start = self.pos;
        let m = self.mnemonic();
        self.skip_ws();
        let insn = match m {
            "exit" => Insn::Exit,
            "host.exit" => Insn::StopTracing,
            "jz" | "jnz" => {
                let cond = self.reg()?;
                self.punct(",")?;
                Insn::Branch {
                    cond,
                    if_zero: m == "jz",
                    target: self.u32()?,
                }
            }
            "ja" => Insn::Jump {
                target: self.u32()?,
            },
            "store" => {
                let slot = self.persist_ref(program)?;
                self.punct(",")?;
                Insn::StorePersist {
                    slot,
                    src: self.operand()?,
                }
            }
            "map.update" => {
                let map = self.map_ref(program)?;
                let keys = self.keys()?;
                self.skip_ws();
                let at = self.pos;
                let name = self.ident()?;
                let agg = if name == "count" {
                    Aggregation::Count
                } else {
                    self.skip_ws();
                    let o = self.operand()?;
                    match name {
                        "sum" => Aggregation::Sum(o),
                        "min" => Aggregation::Min(o),
                        "max" => Aggregation::Max(o),
                        "avg" => Aggregation::Avg(o),
                        "stats" => Aggregation::Stats(o),
                        "hist" => Aggregation::Hist(o),
                        "lhist" => Aggregation::Lhist(o),
                        "assign" => Aggregation::Assign(o),
                        _ => return Err(self.at(at, "expected an aggregation")),
                    }
                };
                Insn::MapUpdate { map, keys, agg }
            }
            "map.save" => {
                let map = self.map_ref(program)?;
                self.punct(",")?;
                let cursor = self.persist_ref(program)?;
                self.punct(",")?;
                Insn::ArraySave {
                    map,
                    cursor,
                    fields: self.tuple()?,
                }
            }
            "map.append" => {
                let map = self.map_ref(program)?;
                self.punct(",")?;
                Insn::RingAppend {
                    map,
                    fields: self.tuple()?,
                }
            }
            "printf" => {
                let format = FormatId(self.u32()?);
                self.punct(",")?;
                Insn::Printf {
                    format,
                    args: self.tuple()?,
                }
            }
            "host.print" => {
                let map = self.map_ref(program)?;
                let mut arg = |name: &str| -> Result<u64, ParseError> {
                    self.skip_ws();
                    if !self.eat(name) {
                        return Ok(0);
                    }
                    self.skip_ws();
                    let start = self.pos;
                    let d = self.digits(false)?;
                    d.parse().map_err(|_| self.at(start, "number out of range"))
                };
                let top = arg("top ")?;
                let div = arg("div ")?;
                Insn::Print { map, top, div }
            }
            "host.clear" => Insn::Clear {
                map: self.map_ref(program)?,
            },
            "host.zero" => Insn::Zero {
                map: self.map_ref(program)?,
            },
            "host.delete" => {
                let map = self.map_ref(program)?;
                Insn::Delete {
                    map,
                    keys: self.keys()?,
                }
            }
            _ => return Err(self.at(start, "unknown instruction")),
        };
        Ok(insn)
    }

    /// The instruction after `rD = `.
    fn def_insn(&mut self, dst: Reg, program: &Program) -> Result<Insn, ParseError> {
        let start = self.pos;
        let m = self.mnemonic();
        self.skip_ws();
        let insn = match m {
            "mov" => Insn::Mov {
                dst,
                src: self.operand()?,
            },
            "sreg" => {
                let at = self.pos;
                let name = self.mnemonic();
                let special = Special::ALL
                    .into_iter()
                    .find(|s| s.name() == name)
                    .ok_or_else(|| self.at(at, "unknown special register"))?;
                Insn::ReadSpecial { dst, special }
            }
            "site" => {
                let at = self.pos;
                let name = self.mnemonic();
                let value = SiteValue::ALL
                    .into_iter()
                    .find(|s| s.name() == name)
                    .ok_or_else(|| self.at(at, "unknown site operand"))?;
                Insn::ReadSite { dst, value }
            }
            "load" => Insn::LoadPersist {
                dst,
                slot: self.persist_ref(program)?,
            },
            _ => {
                let (base, suffix) = m.rsplit_once('.').unwrap_or((m, ""));
                if base == "sext" || base == "zext" {
                    let from = match suffix {
                        "8" => ExtFrom::B8,
                        "16" => ExtFrom::B16,
                        "32" => ExtFrom::B32,
                        _ => return Err(self.at(start, "expected sext/zext .8, .16 or .32")),
                    };
                    return Ok(Insn::Ext {
                        dst,
                        src: self.operand()?,
                        from,
                        signed: base == "sext",
                    });
                }
                let width = match suffix {
                    "32" => Width::W32,
                    "64" => Width::W64,
                    _ => return Err(self.at(start, "unknown instruction")),
                };
                let op = BinOp::ALL
                    .into_iter()
                    .find(|o| o.mnemonic() == base)
                    .ok_or_else(|| self.at(start, "unknown instruction"))?;
                let a = self.operand()?;
                self.punct(",")?;
                let b = self.operand()?;
                Insn::Bin {
                    op,
                    width,
                    dst,
                    a,
                    b,
                }
            }
        };
        Ok(insn)
    }
}
