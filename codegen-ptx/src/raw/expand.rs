//! Expanding a probe's block at one site into PTX lines, each remembered with the probe
//! file line it comes from, and mapping verifier violations back to those lines.
//!
//! Registers (declared by the prologue, snippet 0; the reserved prefix keeps them out of
//! the kernel's and the probe's names):
//!
//! | name | type | holds |
//! |---|---|---|
//! | `%__wt_base` | `.b64` | the map buffer's global address, from [`MAP_PARAM`](crate::MAP_PARAM) |
//! | `%__wt_row<k>` | `.b64` | map `k`'s first record of this thread's (warp's) row |
//! | `%__wt_c<k>` | `.b64` | map `k`'s next record index in the row (per thread) |
//! | `%__wt_t<7>`, `%__wt_s<4>` | `.b64`, `.b32` | scratch (row index, record address, `SAVE` items) |
//! | `%__wt_p<4>` | `.pred` | `p0` drop, `p1` warp leader, `p2` record left, `p3` writer |
//! | `%__wt_addr` | `.b64` | `ADDR`: the site's effective address |
//!
//! A `SAVE.u32`/`SAVE.u64` of a snippet writes its items, in order, into the record at
//! `%__wt_row<k> + %__wt_c<k> * slot_bytes`, after the record's `seq` word; the last
//! `SAVE` of the snippet then writes `seq = index + 1` and advances the index. With no
//! record left the map's drop counter is incremented instead. `warp` datamodels write
//! from the warp's first active lane only (every active lane advances its index).

use super::sites::{Site, When};
use super::{AsmLine, ProbeFile, RawError, RawProbe};
use crate::lower::{Emitter, BASE};
use crate::parse::{AddrBase, Instruction, Operand};
use crate::special;
use crate::splice::At;
use warptrace_ir::{MapLayout, Per};

/// What the expansion of one kernel needs.
pub(super) struct Ctx<'a> {
    pub file: &'a ProbeFile,
    pub layout: &'a MapLayout,
    /// Map index of each probe with a datamodel.
    pub map_of: &'a [Option<usize>],
    /// Width in bits of a kernel register.
    pub reg_bits: &'a dyn Fn(&str) -> Option<u32>,
    pub kernel: &'a str,
}

/// Where a spliced line comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct LineOrigin {
    /// The probe, if any (the prologue's own lines have none).
    pub probe: Option<usize>,
    /// The probe file line responsible.
    pub line: Option<u32>,
}

/// One snippet's lines, each with its origin.
#[derive(Debug, Clone)]
pub(super) struct Snippet {
    pub at: At,
    pub lines: Vec<String>,
    pub origins: Vec<LineOrigin>,
    /// The probe the snippet runs (none for the prologue).
    pub probe: Option<usize>,
}

impl Snippet {
    pub(super) fn new(at: At, probe: Option<usize>) -> Snippet {
        Snippet {
            at,
            lines: Vec::new(),
            origins: Vec::new(),
            probe,
        }
    }

    pub(super) fn push(&mut self, text: String, origin: LineOrigin) {
        self.lines.push(text);
        self.origins.push(origin);
    }

    /// Appends what `f` emits, every line from `origin`.
    pub(super) fn emit(&mut self, origin: LineOrigin, f: impl FnOnce(&mut Emitter)) {
        let mut e = Emitter::default();
        f(&mut e);
        for l in e.finish().lines() {
            self.push(l.to_string(), origin);
        }
    }
}

pub(super) fn r(name: &str) -> String {
    format!("%__wt_{name}")
}

/// The probe's `.reg` lines at brace depth 0 (moved to the prologue, so a probe that
/// runs at many sites declares its registers once), and its other lines.
pub(super) fn split_decls(block: &[AsmLine]) -> (Vec<&AsmLine>, Vec<&AsmLine>) {
    let mut depth = 0i32;
    let mut decls = Vec::new();
    let mut rest = Vec::new();
    for l in block {
        if depth == 0 && l.text.starts_with(".reg") {
            decls.push(l);
        } else {
            rest.push(l);
        }
        depth += l.text.matches('{').count() as i32 - l.text.matches('}').count() as i32;
    }
    (decls, rest)
}

pub(super) fn reserved(probe: &RawProbe, l: &AsmLine) -> Result<(), RawError> {
    if l.text.contains(crate::lower::PREFIX) {
        return Err(RawError::ReservedName {
            probe: probe.name.clone(),
            line: l.line,
        });
    }
    Ok(())
}

/// The upper-case words of `text` that may be helpers: runs of `[A-Za-z0-9_]` that start
/// with an upper-case letter, consist of upper-case letters, digits and `_`, and follow
/// neither `%`, `$` nor `.` (registers, labels and modifiers such as `.L2::128B`).
fn helper_words(text: &str) -> Vec<(usize, &str)> {
    let bytes = text.as_bytes();
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if !word(bytes[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && word(bytes[i]) {
            i += 1;
        }
        let w = &text[start..i];
        let prev = start.checked_sub(1).map(|p| bytes[p]);
        let after_sigil = matches!(prev, Some(b'%' | b'$' | b'.' | b':'));
        let upper = w.as_bytes()[0].is_ascii_uppercase()
            && w.bytes()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == b'_');
        if upper && !after_sigil && w.len() >= 2 {
            out.push((start, w));
        }
    }
    out
}

/// The text an operand helper stands for: the operand as written, an address operand's
/// base.
fn operand_text(op: &Operand) -> Option<String> {
    Some(match op {
        Operand::Reg(r) | Operand::Symbol(r) | Operand::Imm(r) => r.to_string(),
        Operand::Addr(a) => match &a.base {
            AddrBase::Reg(r) | AddrBase::Symbol(r) => r.to_string(),
            AddrBase::Imm(v) => v.to_string(),
            AddrBase::Complex => return None,
        },
        Operand::Vector(v) => format!(
            "{{{}}}",
            v.iter()
                .map(operand_text)
                .collect::<Option<Vec<_>>>()?
                .join(", ")
        ),
        Operand::PredPair(a, b) => format!("{a}|{b}"),
        Operand::Sink => "_".into(),
        Operand::Group(_) => return None,
    })
}

/// One snippet of a probe at a site.
struct Expansion<'a, 'c> {
    ctx: &'a Ctx<'c>,
    probe: &'a RawProbe,
    p: usize,
    site: Site,
    instr: Option<(&'a Instruction, u32)>,
    kernel_line: u32,
    out: Snippet,
    /// Byte offset of the next `SAVE` item in the record.
    saved: u32,
    /// Whether the record is set up.
    record: bool,
}

impl Expansion<'_, '_> {
    fn origin(&self, line: u32) -> LineOrigin {
        LineOrigin {
            probe: Some(self.p),
            line: Some(line),
        }
    }

    fn unavailable(&self, helper: &str, line: u32, why: &str) -> RawError {
        RawError::HelperUnavailable {
            probe: self.probe.name.clone(),
            helper: helper.to_string(),
            line,
            kernel: self.ctx.kernel.to_string(),
            ptx_line: self.instr.map_or(self.kernel_line, |(_, l)| l),
            why: why.to_string(),
        }
    }

    /// The instruction whose operands helpers read.
    fn site_instr(&self, helper: &str, line: u32) -> Result<&Instruction, RawError> {
        match (self.site.when, self.instr) {
            (When::Before | When::After, Some((i, _))) => Ok(i),
            _ => Err(self.unavailable(
                helper,
                line,
                "a `kernel` position has no instruction to read",
            )),
        }
    }

    /// The replacement of helper `w` on probe line `line`.
    fn helper(&self, w: &str, line: u32) -> Result<String, RawError> {
        let operand = |n: usize| -> Result<String, RawError> {
            let i = self.site_instr(w, line)?;
            i.operands.get(n).and_then(operand_text).ok_or_else(|| {
                self.unavailable(w, line, &format!("`{}` has no such operand", i.opcode))
            })
        };
        match w {
            "OUT" => operand(0),
            "IN1" => operand(1),
            "IN2" => operand(2),
            "IN3" => operand(3),
            "ADDR" => {
                self.site_instr(w, line)?;
                Ok(r("addr"))
            }
            "BYTES" => {
                let i = self.site_instr(w, line)?;
                crate::insn::site_bytes(i)
                    .filter(|_| crate::attach::mem_site(i).is_some())
                    .map(|b| b.to_string())
                    .ok_or_else(|| self.unavailable(w, line, "not a memory access of known width"))
            }
            _ => Err(RawError::UnknownHelper {
                probe: self.probe.name.clone(),
                helper: w.to_string(),
                line,
            }),
        }
    }

    /// `text` with its operand helpers replaced.
    fn substitute(&self, text: &str, line: u32) -> Result<String, RawError> {
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        for (start, w) in helper_words(text) {
            out.push_str(&text[at..start]);
            out.push_str(&self.helper(w, line)?);
            at = start + w.len();
        }
        out.push_str(&text[at..]);
        Ok(out)
    }

    /// `%__wt_addr = the site's effective address`, 64-bit.
    fn address(&mut self, line: u32) -> Result<(), RawError> {
        let i = self.site_instr("ADDR", line)?;
        let a = crate::attach::mem_site(i)
            .and(crate::insn::site_address(i))
            .ok_or_else(|| self.unavailable("ADDR", line, "not a memory access"))?;
        let dst = r("addr");
        let mov = match &a.base {
            AddrBase::Reg(reg) => match (self.ctx.reg_bits)(reg) {
                Some(64) => format!("mov.b64 {dst}, {reg}"),
                Some(32) => format!("cvt.u64.u32 {dst}, {reg}"),
                _ => {
                    return Err(self.unavailable(
                        "ADDR",
                        line,
                        &format!("address register `{reg}` has no known 32/64-bit type"),
                    ))
                }
            },
            AddrBase::Symbol(sym) => format!("mov.u64 {dst}, {sym}"),
            AddrBase::Imm(v) => format!("mov.b64 {dst}, {v}"),
            AddrBase::Complex => {
                return Err(self.unavailable("ADDR", line, "a compound (tensor) address"))
            }
        };
        let offset = a.offset;
        let origin = self.origin(line);
        self.out.emit(origin, |e| {
            e.ins(mov);
            if offset != 0 {
                e.insf(format_args!("add.s64 {dst}, {dst}, {offset}"));
            }
        });
        Ok(())
    }

    /// The map index and datamodel a `SAVE` on `line` writes to.
    fn save_target(&self, line: u32) -> Result<(usize, &super::Datamodel), RawError> {
        match (self.ctx.map_of[self.p], &self.probe.datamodel) {
            (Some(k), Some(dm)) => Ok((k, dm)),
            _ => Err(RawError::BadSave {
                probe: self.probe.name.clone(),
                line,
                why: "`SAVE` in a probe without a `datamodel`".into(),
            }),
        }
    }

    /// Expands one `SAVE.ty {items}` statement; `last` says it is the snippet's last.
    fn save(&mut self, stmt: &str, line: u32, last: bool) -> Result<(), RawError> {
        let bad = |why: String| RawError::BadSave {
            probe: self.probe.name.clone(),
            line,
            why,
        };
        let rest = stmt.trim_end_matches(';').trim();
        let rest = rest
            .strip_prefix("SAVE.")
            .ok_or_else(|| bad(format!("`{stmt}` is not `SAVE.<type> {{items}}`")))?;
        let split = rest
            .find(|c: char| c.is_whitespace() || c == '{')
            .unwrap_or(rest.len());
        let (ty, items) = rest.split_at(split);
        let bytes = match ty {
            "u64" | "b64" | "s64" | "f64" => 8,
            "u32" | "b32" | "s32" | "f32" => 4,
            _ => {
                return Err(RawError::UnknownHelper {
                    probe: self.probe.name.clone(),
                    helper: format!("SAVE.{ty}"),
                    line,
                })
            }
        };
        let items = items.trim();
        let items = items
            .strip_prefix('{')
            .and_then(|i| i.strip_suffix('}'))
            .unwrap_or(items);
        let items: Vec<String> = items
            .split(',')
            .map(str::trim)
            .filter(|i| !i.is_empty())
            .map(|i| self.substitute(i, line))
            .collect::<Result<_, _>>()?;
        if items.is_empty() {
            return Err(bad("`SAVE` of nothing".into()));
        }
        let (k, dm) = self.save_target(line)?;
        let (records, per) = (dm.records, dm.per);
        if self.saved % bytes != 0 {
            return Err(bad(format!(
                "`SAVE.{ty}` at byte {} of the record is not {bytes}-byte aligned",
                self.saved
            )));
        }
        let end = self.saved + bytes * items.len() as u32;
        if end > dm.bytes {
            return Err(bad(format!(
                "the snippet saves {end} bytes, more than the datamodel's {}-byte record",
                dm.bytes
            )));
        }
        let region = self
            .ctx
            .layout
            .regions
            .get(k)
            .copied()
            .ok_or_else(|| bad("no map for the datamodel".into()))?;
        let origin = self.origin(line);
        let (p0, p1, p2, p3) = (r("p0"), r("p1"), r("p2"), r("p3"));
        let (t4, t5, t6, s3) = (r("t4"), r("t5"), r("t6"), r("s3"));
        let (c, row) = (format!("{}{k}", r("c")), format!("{}{k}", r("row")));
        let writer = if per == Per::Warp { &p3 } else { &p2 };
        let first = !self.record;
        self.record = true;
        let mut offset = self.saved;
        self.out.emit(origin, |e| {
            // Every `SAVE` computes its record's address and bounds itself, from the
            // row and the index alone: a probe branch that skips an earlier `SAVE` of
            // the snippet leaves no stale address or predicate for a later one to use
            // (the address of another probe's record, a bound of another map).
            if first {
                e.comment(&format!("SAVE: one record of @{}", self.probe.name));
            }
            {
                if per == Per::Warp {
                    special::warp_leader(e, &p1);
                }
                e.insf(format_args!("setp.lt.u64 {p2}, {c}, {records}"));
                if per == Per::Warp {
                    e.insf(format_args!("and.pred {p3}, {p2}, {p1}"));
                }
                e.insf(format_args!(
                    "mad.lo.u64 {t4}, {c}, {}, {row}",
                    region.slot_bytes()
                ));
            }
            for item in &items {
                let at = 8 + offset;
                if bytes == 8 {
                    e.insf(format_args!("mov.b64 {t5}, {item}"));
                    e.insf(format_args!("@{writer} st.global.b64 [{t4}+{at}], {t5}"));
                } else {
                    e.insf(format_args!("mov.b32 {s3}, {item}"));
                    e.insf(format_args!("@{writer} st.global.b32 [{t4}+{at}], {s3}"));
                }
                offset += bytes;
            }
            if last {
                e.insf(format_args!("add.s64 {t6}, {c}, 1"));
                e.insf(format_args!("@{writer} st.global.u64 [{t4}], {t6}"));
                e.insf(format_args!("@{p2} mov.b64 {c}, {t6}"));
                e.insf(format_args!("not.pred {p0}, {p2}"));
                if per == Per::Warp {
                    e.insf(format_args!("and.pred {p0}, {p0}, {p1}"));
                }
                e.insf(format_args!(
                    "@{p0} red.global.add.u64 [{BASE}+{}], 1",
                    region.drops_offset
                ));
            }
        });
        self.saved = offset;
        Ok(())
    }
}

/// Splits a line into `;`-terminated statements outside braces (a label stays with what
/// follows it).
fn statements(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut cur = String::new();
    for c in text.chars() {
        cur.push(c);
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ';' if depth <= 0 => {
                out.push(cur.trim().to_string());
                cur.clear();
            }
            _ => {}
        }
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

fn is_save(stmt: &str) -> bool {
    stmt.starts_with("SAVE.") || stmt == "SAVE" || stmt.starts_with("SAVE ")
}

/// The snippet number `n` of `site`; `instr` is the site's instruction and line;
/// `kernel_line` the kernel's (for errors at `kernel` positions).
pub(super) fn snippet(
    ctx: &Ctx<'_>,
    site: &Site,
    instr: Option<(&Instruction, u32)>,
    n: u32,
    kernel_line: u32,
) -> Result<Snippet, RawError> {
    let probe = &ctx.file.probes[site.probe];
    let block = match site.when {
        When::Entry | When::Before => probe.before.as_deref(),
        When::BeforeExit | When::After => probe.after.as_deref(),
    }
    .unwrap_or(&[]);
    let at = match (site.when, site.stmt) {
        (When::After, Some(i)) => At::After(i),
        (When::Before | When::BeforeExit, Some(i)) => At::Before(i),
        _ => At::Entry,
    };
    let mut x = Expansion {
        ctx,
        probe,
        p: site.probe,
        site: *site,
        instr,
        kernel_line,
        out: Snippet::new(at, Some(site.probe)),
        saved: 0,
        record: false,
    };
    let head = x.origin(probe.position_line);
    let when = match site.when {
        When::Entry => "kernel entry",
        When::BeforeExit => "before kernel exit",
        When::Before => "before",
        When::After => "after",
    };
    x.out.emit(head, |e| {
        e.comment(&format!(
            "warptrace: snippet {n}: raw probe `{}` ({when})",
            probe.name
        ))
    });
    let guard = match (site.when, instr) {
        (When::Entry, _) | (_, None) => None,
        _ if probe.no_pred => None,
        (_, Some((i, _))) => i.guard.as_ref(),
    };
    let end = format!("$__wt_{n}_end");
    if let Some(g) = guard {
        x.out.emit(head, |e| {
            e.insf(format_args!("{} bra {end}", g.inverted().text()))
        });
    }
    let lines = split_decls(block).1;
    for l in &lines {
        reserved(probe, l)?;
    }
    // Statements, with the index of the last `SAVE`.
    let stmts: Vec<(String, u32)> = lines
        .iter()
        .flat_map(|l| {
            if helper_words(&l.text).iter().any(|(_, w)| *w == "SAVE") {
                statements(&l.text)
                    .into_iter()
                    .map(|s| (s, l.line))
                    .collect()
            } else {
                vec![(l.text.clone(), l.line)]
            }
        })
        .collect();
    let last_save = stmts.iter().rposition(|(s, _)| is_save(s));
    if let Some((_, line)) = stmts
        .iter()
        .find(|(s, _)| helper_words(s).iter().any(|(_, w)| *w == "ADDR"))
    {
        x.address(*line)?;
    }
    for (i, (stmt, line)) in stmts.iter().enumerate() {
        if is_save(stmt) {
            x.save(stmt, *line, Some(i) == last_save)?;
        } else if let Some((_, w)) = helper_words(stmt).into_iter().find(|(_, w)| *w == "SAVE") {
            return Err(RawError::BadSave {
                probe: probe.name.clone(),
                line: *line,
                why: format!("`{w}` must start its statement"),
            });
        } else {
            let text = x.substitute(stmt, *line)?;
            let text = if text.ends_with(':') {
                text
            } else {
                format!("\t{text}")
            };
            let origin = x.origin(*line);
            x.out.push(text, origin);
        }
    }
    if guard.is_some() {
        x.out.emit(head, |e| e.label(&end));
    }
    Ok(x.out)
}

#[cfg(test)]
mod tests {
    use super::{helper_words, statements};
    use crate::raw::{check_raw_probes, instrument_raw, RawError, RawStatus};
    use warptrace_ir::{MapKind, Per};

    const PTX: &str = ".version 8.0\n.target sm_80\n.address_size 64\n\
.visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n\
\t.reg .pred %p<2>;\n\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<3>;\n\
\tld.param.u64 %rd1, [k_param_0];\n\tcvta.to.global.u64 %rd2, %rd1;\n\
\tmov.u32 %r1, %tid.x;\n\tsetp.lt.u32 %p1, %r1, 16;\n\
\t@%p1 ld.global.u32 %r2, [%rd2+4];\n\tst.global.u32 [%rd2], %r2;\n\tret;\n}\n";

    #[test]
    fn helper_words_skip_registers_labels_and_modifiers() {
        let words: Vec<&str> =
            helper_words("add.u32 %X1, IN1, BYTES; @%P bra $DONE; ld.global.L2::128B ADDR")
                .into_iter()
                .map(|(_, w)| w)
                .collect();
        assert_eq!(words, ["IN1", "BYTES", "ADDR"]);
        assert_eq!(
            statements("mov.u32 %a, 0; SAVE.u32 {%a, %b};"),
            ["mov.u32 %a, 0;", "SAVE.u32 {%a, %b};"]
        );
    }

    #[test]
    fn helpers_expand_at_the_site_and_the_save_verifies() {
        let toml = "[t]\nposition = \"ld.global\"\ndatamodel = \"thread:16:4\"\nbefore = \"\"\"\n\
.reg .b32 %x;\nmov.u32 %x, BYTES;\nSAVE.u64 {ADDR};\nSAVE.u32 {%x, OUT};\"\"\"\n";
        let out = instrument_raw(toml, PTX).expect("instruments");
        assert_eq!(
            out.report.kernels[0].status,
            RawStatus::Accepted,
            "{:?}",
            out.report
        );
        assert_eq!(out.report.kernels[0].sites, 1);
        let m = &out.report.maps[0];
        assert_eq!(m.name, "t");
        assert_eq!(
            m.kind,
            MapKind::Array {
                per: Per::Thread,
                slots: 4
            }
        );
        assert_eq!(m.value.words(), 2);
        for want in [
            "@!%p1 bra $__wt_1_end;",
            "mov.u32 %x, 4;",
            "mov.b64 %__wt_addr, %rd2;",
            "add.s64 %__wt_addr, %__wt_addr, 4;",
            "@%__wt_p2 st.global.b64 [%__wt_t4+8], %__wt_t5;",
            "mov.b32 %__wt_s3, %r2;",
            "@%__wt_p2 st.global.b32 [%__wt_t4+20], %__wt_s3;",
            "@%__wt_p2 st.global.u64 [%__wt_t4], %__wt_t6;",
            ".param .u64 .ptr .global .align 8 __wt_maps",
        ] {
            assert!(out.ptx.contains(want), "no `{want}` in\n{}", out.ptx);
        }
        // `no_pred` runs the probe whatever the site's guard.
        let toml = "[t]\nposition = \"ld.global\"\nno_pred = true\nbefore = \"mov.u32 %x, 0;\"\n";
        let out = instrument_raw(toml, PTX).expect("instruments");
        assert!(!out.ptx.contains("bra $__wt_1_end"), "{}", out.ptx);
    }

    #[test]
    fn saves_must_fit_the_record() {
        let err = |dm: &str, saves: &str| {
            let toml = format!(
                "[t]\nposition = \"kernel\"\ndatamodel = \"{dm}\"\nbefore = \"\"\"\n.reg .b64 %a;\n{saves}\"\"\"\n"
            );
            match check_raw_probes(&toml, PTX) {
                Err(RawError::BadSave { line, why, .. }) => (line, why),
                other => panic!("{other:?}"),
            }
        };
        let (line, why) = err("thread:8", "SAVE.u64 {%a, %a};");
        assert_eq!(line, 6);
        assert!(
            why.contains("16 bytes, more than the datamodel's 8-byte record"),
            "{why}"
        );
        let (line, why) = err("thread:16", "SAVE.u32 {%a};\nSAVE.u64 {%a};");
        assert_eq!(line, 7);
        assert!(why.contains("not 8-byte aligned"), "{why}");
        let (_, why) = err("thread:16", "mov.u64 %a, 0; SAVE.u64 {};");
        assert!(why.contains("nothing"), "{why}");
    }

    #[test]
    fn a_rejection_names_the_probe_line_and_what_it_corrupts() {
        let toml = "[t]\nposition = \"st.global\"\nbefore = \"\"\"\nmov.u32 %r2, 0;\"\"\"\n";
        let report = check_raw_probes(toml, PTX).expect("checks");
        let r: Vec<_> = report.rejections().collect();
        assert_eq!(r.len(), 1, "{r:?}");
        assert_eq!(r[0].probe.as_deref(), Some("t"));
        assert_eq!(r[0].toml_line, Some(4));
        assert_eq!(r[0].corrupts.as_deref(), Some("%r2"));
        assert!(!report.accepted());
        assert_eq!(
            r[0].to_string(),
            format!(
                "probe `t`, line 4: RegisterIsolation: inserted instruction writes kernel register \
                 `%r2` (`mov.u32 %r2, 0;`, kernel k line {}); would corrupt %r2",
                r[0].ptx_line
            )
        );
    }
}
