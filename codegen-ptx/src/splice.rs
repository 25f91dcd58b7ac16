//! Splicing: where snippets, the prologue and the map parameter go, inserting them into
//! the text, and building the models of the original and spliced kernel.
//!
//! Snippets are numbered per kernel in text order: 0 is the prologue (probe register
//! declarations and the load of the map base), 1.. are the probe snippets.

use crate::attach::{entry_point, mem_site, Site};
use crate::insn::access_bytes;
use crate::lower::{lower_probe, reg, SiteInfo, SnippetCtx, BASE, TEMPS};
use crate::model::PtxKernelModel;
use crate::parse::{parse_at, Function, Module, StmtKind};
use crate::{PtxError, MAP_PARAM};
use std::collections::HashMap;
use std::ops::Range;
use warptrace_ir::{kernel_id, MapLayout, Program};
use warptrace_verifier::Origin;

/// Text inserted at a byte offset of the module.
#[derive(Debug, Clone)]
pub(crate) struct Insertion {
    pub offset: usize,
    /// Order among insertions at the same offset.
    pub order: u32,
    pub text: String,
    pub origin: Origin,
}

/// Applies `ins` to `src`; returns the new text and the byte range each insertion
/// occupies in it, with its origin.
pub(crate) fn apply(src: &str, ins: &[Insertion]) -> (String, Vec<(Range<usize>, Origin)>) {
    let mut sorted: Vec<&Insertion> = ins.iter().collect();
    sorted.sort_by_key(|i| (i.offset, i.order));
    let mut out =
        String::with_capacity(src.len() + ins.iter().map(|i| i.text.len()).sum::<usize>());
    let mut ranges = Vec::with_capacity(ins.len());
    let mut at = 0;
    for i in sorted {
        out.push_str(src.get(at..i.offset).unwrap_or(""));
        at = at.max(i.offset);
        let start = out.len();
        out.push_str(&i.text);
        ranges.push((start..out.len(), i.origin));
    }
    out.push_str(src.get(at..).unwrap_or(""));
    (out, ranges)
}

fn origin_at(ranges: &[(Range<usize>, Origin)], offset: usize) -> Origin {
    ranges
        .iter()
        .find(|(r, _)| r.contains(&offset))
        .map_or(Origin::Kernel, |(_, o)| *o)
}

/// Where text that must run before the statement at `start` goes: the start of its line
/// if only whitespace precedes it there (text then ends in a newline), else the
/// statement itself (text then starts with a newline).
fn before_stmt(src: &str, start: usize, text: String) -> (usize, String) {
    let line_start = src
        .get(..start)
        .and_then(|s| s.rfind('\n'))
        .map_or(0, |i| i + 1);
    if src
        .get(line_start..start)
        .is_some_and(|s| s.trim().is_empty())
    {
        (line_start, text)
    } else {
        (start, format!("\n{text}"))
    }
}

/// The parameter `MAP_PARAM`, appended after the kernel's last parameter.
fn param_insertion(f: &Function) -> Insertion {
    let decl = format!(".param .u64 .ptr .global .align 8 {MAP_PARAM}");
    let (offset, text) = match (f.params.last(), f.params_open) {
        (Some(last), _) => (last.end, format!(",\n\t{decl}")),
        (None, Some(open)) => (open, format!("\n\t{decl}\n")),
        (None, None) => (f.name_end, format!("(\n\t{decl}\n)")),
    };
    Insertion {
        offset,
        order: 0,
        text,
        origin: Origin::Inserted { snippet: 0 },
    }
}

fn prologue(ir_regs: u32) -> String {
    let mut s = String::from("\t// warptrace: prologue: probe registers, map base\n");
    s.push_str(&format!("\t.reg .b64 {BASE};\n"));
    if ir_regs > 0 {
        s.push_str(&format!(
            "\t.reg .b64 {}<{ir_regs}>;\n",
            reg("r", 0).trim_end_matches('0')
        ));
    }
    for (class, ty, n) in TEMPS {
        s.push_str(&format!(
            "\t.reg {ty} {}<{n}>;\n",
            reg(class, 0).trim_end_matches('0')
        ));
    }
    s.push_str(&format!("\tld.param.u64 {BASE}, [{MAP_PARAM}];\n"));
    s.push_str(&format!("\tcvta.to.global.u64 {BASE}, {BASE};\n"));
    s
}

/// Width in bits of each register declared in `f`.
fn reg_widths(f: &Function) -> HashMap<String, u32> {
    let mut m = HashMap::new();
    for s in f.body.iter().flat_map(|b| &b.stmts) {
        if let StmtKind::Directive(Some(d)) = &s.kind {
            if let Some(bits) = d.bits() {
                m.extend(d.names.iter().map(|n| (n.clone(), bits)));
            }
        }
    }
    m
}

/// The insertions that instrument `f` with `sites` (absolute offsets in `module`).
pub(crate) fn plan_kernel(
    module: &Module,
    f: &Function,
    program: &Program,
    layout: &MapLayout,
    sites: &[Site],
) -> Result<Vec<Insertion>, PtxError> {
    let src = module.source();
    let Some(body) = &f.body else {
        return Ok(Vec::new());
    };
    let widths = reg_widths(f);
    let reg_bits = |r: &str| widths.get(r).copied();
    let entry = entry_point(body);
    let entry_offset = body.stmts.get(entry).map_or(body.close, |s| s.span.start);
    let ir_regs = sites
        .iter()
        .flat_map(|s| &program.probes[s.probe].insns)
        .flat_map(|i| i.def().into_iter().chain(i.uses()))
        .map(|r| u32::from(r.0) + 1)
        .max()
        .unwrap_or(0);
    let mut ins = vec![param_insertion(f)];
    let (offset, text) = before_stmt(src, entry_offset, prologue(ir_regs));
    ins.push(Insertion {
        offset,
        order: 0,
        text,
        origin: Origin::Inserted { snippet: 0 },
    });
    let id = kernel_id(&f.name);
    for (n, site) in sites.iter().enumerate() {
        let snippet = n as u32 + 1;
        let stmt = site.stmt.and_then(|i| body.stmts.get(i));
        let instr = stmt.and_then(|s| match &s.kind {
            StmtKind::Instr(i) => Some(i),
            _ => None,
        });
        let is_mem = instr.is_some_and(|i| mem_site(i).is_some());
        let info = SiteInfo {
            guard: instr.and_then(|i| i.guard.as_ref()),
            bytes: instr
                .filter(|_| is_mem)
                .and_then(|i| access_bytes(&i.opcode)),
            addr: instr.filter(|_| is_mem).and_then(|i| i.address()),
            reg_bits: &reg_bits,
        };
        let ctx = SnippetCtx {
            kernel: &f.name,
            kernel_id: id,
            snippet,
            line: stmt.map_or(f.line, |s| s.line),
            layout,
        };
        let text = lower_probe(&program.probes[site.probe], site.probe, &ctx, &info)?;
        let at = stmt.map_or(entry_offset, |s| s.span.start);
        let (offset, text) = before_stmt(src, at, text);
        ins.push(Insertion {
            offset,
            order: snippet,
            text,
            origin: Origin::Inserted { snippet },
        });
    }
    Ok(ins)
}

/// Splices `ins` (absolute offsets, all within `f`) into `f` alone and builds the models
/// of the original and the spliced kernel; `line_base` is the line the spliced function
/// starts on in the final text.
pub(crate) fn splice_function(
    module: &Module,
    f: &Function,
    ins: &[Insertion],
    line_base: u32,
) -> Result<(PtxKernelModel, PtxKernelModel), PtxError> {
    let start = f.span.start;
    let local: Vec<Insertion> = ins
        .iter()
        .map(|i| Insertion {
            offset: i.offset.saturating_sub(start),
            ..i.clone()
        })
        .collect();
    let (text, ranges) = apply(module.function_text(f), &local);
    let spliced = parse_at(&text, line_base)?;
    let g = spliced
        .functions()
        .first()
        .filter(|g| g.name == f.name)
        .ok_or_else(|| PtxError::Syntax {
            line: line_base,
            message: format!("spliced kernel `{}` does not parse back", f.name),
        })?;
    let original = PtxKernelModel::build(f, &|_| Origin::Kernel);
    let spliced = PtxKernelModel::build(g, &|o| origin_at(&ranges, o));
    Ok((original, spliced))
}

/// Number of lines `ins` adds.
pub(crate) fn added_lines(ins: &[Insertion]) -> u32 {
    ins.iter()
        .map(|i| i.text.matches('\n').count() as u32)
        .sum()
}

/// Where a raw snippet goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RawSite {
    /// After the body's leading declarations (where kernel-entry snippets go).
    Entry,
    /// Before the first statement that starts on this 1-based line of the input.
    BeforeLine(u32),
}

/// Raw PTX lines to insert at a site, as one snippet (numbered by its index).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawSnippet {
    /// Where.
    pub site: RawSite,
    /// The lines, inserted verbatim (a newline is added to each).
    pub lines: Vec<String>,
}

/// The result of [`splice_raw`].
#[derive(Debug, Clone)]
pub struct RawSplice {
    /// The whole module with the snippets inserted (no map parameter, no prologue).
    pub ptx: String,
    /// The model of the kernel as it was.
    pub original: PtxKernelModel,
    /// The model of the spliced kernel; snippet `i`'s lines are `Inserted { snippet: i }`.
    pub spliced: PtxKernelModel,
}

/// Testing / raw-probe seam: inserts raw PTX lines into kernel `kernel` of `ptx`, marked
/// as inserted code, and returns both models for `warptrace_verifier::verify_kernel`.
/// Nothing is checked or lowered; the verifier decides whether the lines are safe.
pub fn splice_raw(ptx: &str, kernel: &str, snippets: &[RawSnippet]) -> Result<RawSplice, PtxError> {
    let module = crate::parse(ptx)?;
    let f = module
        .kernel(kernel)
        .ok_or_else(|| PtxError::NoSuchKernel(kernel.to_owned()))?;
    let body = f
        .body
        .as_ref()
        .ok_or_else(|| PtxError::NoSuchKernel(kernel.to_owned()))?;
    let mut ins = Vec::new();
    for (n, snip) in snippets.iter().enumerate() {
        let at = match snip.site {
            RawSite::Entry => body
                .stmts
                .get(entry_point(body))
                .map_or(body.close, |s| s.span.start),
            RawSite::BeforeLine(line) => body
                .stmts
                .iter()
                .find(|s| s.line == line)
                .map(|s| s.span.start)
                .ok_or(PtxError::NoStatement { line })?,
        };
        let text: String = snip.lines.iter().map(|l| format!("{l}\n")).collect();
        let (offset, text) = before_stmt(module.source(), at, text);
        ins.push(Insertion {
            offset,
            order: n as u32,
            text,
            origin: Origin::Inserted { snippet: n as u32 },
        });
    }
    let (original, spliced) = splice_function(&module, f, &ins, f.line)?;
    let (ptx, _) = apply(ptx, &ins);
    Ok(RawSplice {
        ptx,
        original,
        spliced,
    })
}
