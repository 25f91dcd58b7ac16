//! Splicing: where snippets, the prologue and the map parameter go, inserting them into
//! the text, and building the models of the original and spliced kernel.
//!
//! Snippets are numbered per kernel: 0 is the prologue (probe register declarations and the
//! load of the map base), 1.. are the probe snippets in text order, then the flushes of
//! latched ring drops before the kernel's exits (`ring.rs`).

use crate::attach::{entry_point, mem_site, Place, Site};
use crate::insn::{facts, site_address, site_bytes};
use crate::loops::Anchor;
use crate::lower::{lower_probe, reg, Emitter, SiteInfo, SnippetCtx, BASE, TEMPS};
use crate::model::PtxKernelModel;
use crate::parse::{
    parse_at, parse_split, Body, Function, FunctionKind, Instruction, Module, StmtKind,
    SPLIT_PARSE_BYTES,
};
use crate::site::{bytes_src, positions, value_src, ValueSrc};
use crate::special::SiteImms;
use crate::{ring, Error, MAP_PARAM};
use std::collections::HashMap;
use std::ops::Range;
use warptrace_ir::{kernel_id, Insn, MapLayout, Position, Program};
use warptrace_verifier::{Flow, Origin};

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

pub(crate) fn origin_at(ranges: &[(Range<usize>, Origin)], offset: usize) -> Origin {
    ranges
        .iter()
        .find(|(r, _)| r.contains(&offset))
        .map_or(Origin::Kernel, |(_, o)| *o)
}

/// Where text that must run before the statement at `start` goes: the start of its line
/// if only whitespace precedes it there (text then ends in a newline), else the
/// statement itself (text then starts with a newline).
pub(crate) fn before_stmt(src: &str, start: usize, text: String) -> (usize, String) {
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

/// Where text that must run right after the statement ending at `end` goes: the start of
/// the next line if only whitespace or a comment follows it on its line (text then ends
/// in a newline), else just after it (text then starts with a newline).
fn after_stmt(src: &str, end: usize, text: String) -> (usize, String) {
    let rest = src.get(end..).unwrap_or("");
    let eol = rest.find('\n');
    let tail = rest.get(..eol.unwrap_or(rest.len())).unwrap_or("").trim();
    match eol {
        Some(n) if tail.is_empty() || (tail.starts_with("//") && !tail.contains("/*")) => {
            (end + n + 1, text)
        }
        _ => (end, format!("\n{text}")),
    }
}

/// The parameter `MAP_PARAM`, appended after the kernel's last parameter.
fn param_insertion(f: &Function) -> Insertion {
    append_param(f, &format!(".param .u64 .ptr .global .align 8 {MAP_PARAM}"))
}

/// The parameter `MAP_PARAM` of a device function's clone (`.param .b64`: a function
/// parameter has no `.ptr` attributes), appended after its last parameter.
fn clone_param_insertion(f: &Function) -> Insertion {
    append_param(f, &format!(".param .b64 {MAP_PARAM}"))
}

/// The parameter declaration `decl`, appended after `f`'s last parameter (or as its only
/// one, adding the parentheses when the header has none).
fn append_param(f: &Function, decl: &str) -> Insertion {
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

/// The prologue: probe registers, the map base (offset to copy `ctaid.x mod n` of the
/// tables when `replicas` is `Some((n, bytes of one copy))`), persistent registers and the
/// latched drops of the rings `latched` (map ids, ascending) zeroed.
fn prologue(ir_regs: u32, persist: u32, replicas: Option<(u32, u64)>, latched: &[u32]) -> String {
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
    if persist > 0 {
        s.push_str(&format!(
            "\t.reg .b64 {}<{persist}>;\n",
            reg("x", 0).trim_end_matches('0')
        ));
    }
    s.push_str(&format!("\tld.param.u64 {BASE}, [{MAP_PARAM}];\n"));
    s.push_str(&format!("\tcvta.to.global.u64 {BASE}, {BASE};\n"));
    if let Some((n, bytes)) = replicas {
        // The copy is below n, so the base stays within the n copies the runtime
        // allocates (decision 0019).
        let (s0, t0) = (reg("s", 0), reg("t", 0));
        s.push_str(&format!("\tmov.u32 {s0}, %ctaid.x;\n"));
        s.push_str(&format!("\tand.b32 {s0}, {s0}, {};\n", n - 1));
        s.push_str(&format!("\tmul.wide.u32 {t0}, {s0}, {bytes};\n"));
        s.push_str(&format!("\tadd.s64 {BASE}, {BASE}, {t0};\n"));
    }
    for x in 0..persist {
        s.push_str(&format!("\tmov.b64 {}, 0;\n", reg("x", x)));
    }
    if let Some(&last) = latched.last() {
        s.push_str(&format!(
            "\t.reg .b64 {}<{}>;\n",
            ring::latch(0).trim_end_matches('0'),
            last + 1
        ));
        for &m in latched {
            s.push_str(&format!("\tmov.b64 {}, 0;\n", ring::latch(m)));
        }
    }
    s
}

/// The drop rings whose appends `sites` make in kernel `f` that can be latched (`ring.rs`),
/// ascending: none unless every way out of the kernel is an exit statement the flush can
/// precede — the body cannot fall off its end, and no device function of the module has
/// an `exit` (which would end the thread without the kernel's flush).
fn latched_rings(
    module: &Module,
    body: &Body,
    program: &Program,
    layout: &MapLayout,
    sites: &[Site],
) -> Vec<u32> {
    let last = body.stmts.iter().rev().find_map(|s| match &s.kind {
        StmtKind::Instr(i) => Some(i),
        _ => None,
    });
    let ends =
        last.is_some_and(|i| i.guard.is_none() && matches!(i.root(), "ret" | "exit" | "bra"));
    let callee_exits = module
        .functions()
        .iter()
        .filter(|g| g.kind != FunctionKind::Entry)
        .flat_map(|g| g.body.iter().flat_map(|b| &b.stmts))
        .any(|s| matches!(&s.kind, StmtKind::Instr(i) if i.root() == "exit"));
    if !ends || callee_exits {
        return Vec::new();
    }
    let mut maps: Vec<u32> = sites
        .iter()
        .flat_map(|s| &program.probes[s.probe].insns)
        .filter_map(|i| match i {
            Insn::RingAppend { map, .. } => Some(map.0),
            Insn::Printf { .. } => program.printf_ring().map(|m| m.0),
            _ => None,
        })
        .filter(|&m| layout.regions.get(m as usize).is_some_and(ring::latches))
        .collect();
    maps.sort_unstable();
    maps.dedup();
    maps
}

/// The flush of the latched drops of `rings` before the exit statement `exit` (under its
/// guard): snippet `snippet`.
fn flush_at_exit(layout: &MapLayout, rings: &[u32], exit: &Instruction, snippet: u32) -> String {
    let mut e = Emitter::default();
    e.comment(&format!(
        "warptrace: snippet {snippet}: latched ring drops counted at the exit"
    ));
    let end = format!("$__wt_{snippet}_end");
    if let Some(g) = &exit.guard {
        e.insf(format_args!("{} bra {end}", g.inverted().text()));
    }
    for &m in rings {
        if let Some(region) = layout.regions.get(m as usize) {
            ring::flush(&mut e, region, &ring::latch(m));
        }
    }
    if exit.guard.is_some() {
        e.label(&end);
    }
    e.finish()
}

/// Width in bits of each register declared in a function: names looked up, ranges
/// (`%r<N>`, however large) matched by their base and index.
#[derive(Debug, Default)]
pub(crate) struct RegWidths {
    names: HashMap<String, u32>,
    ranges: Vec<(crate::parse::RegItem, u32)>,
}

impl RegWidths {
    /// The width of `reg`, if declared with a known type.
    pub(crate) fn get(&self, reg: &str) -> Option<u32> {
        self.names.get(reg).copied().or_else(|| {
            self.ranges
                .iter()
                .rev()
                .find(|(item, _)| item.declares(reg))
                .map(|&(_, bits)| bits)
        })
    }
}

/// Width in bits of each register declared in `f`.
pub(crate) fn reg_widths(f: &Function) -> RegWidths {
    let mut w = RegWidths::default();
    for s in f.body.iter().flat_map(|b| &b.stmts) {
        if let StmtKind::Directive(Some(d)) = &s.kind {
            if let Some(bits) = d.bits() {
                for item in &d.items {
                    match item.count {
                        None => {
                            w.names.insert(item.base.clone(), bits);
                        }
                        Some(_) => w.ranges.push((item.clone(), bits)),
                    }
                }
            }
        }
    }
    w
}

/// Whose body a plan instruments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Owner<'a> {
    /// A kernel: [`MAP_PARAM`] is appended as a kernel pointer parameter.
    Kernel,
    /// A device function's clone for the kernel named `kernel` (`kernel` and the probe
    /// globs are that kernel's): [`MAP_PARAM`] is appended as a `.param .b64`, which the
    /// caller fills with its own map parameter's value (`calls.rs`).
    Clone {
        /// The calling kernel's name.
        kernel: &'a str,
    },
}

/// The insertions that instrument `f` (a kernel, or a device function whose clone is
/// planned, see [`Owner`]) with `sites`, absolute offsets in `module`: the map
/// parameter, the prologue (snippet 0), the probe snippets (1..). A probe of a clone
/// that needs persistent registers is `Unsupported` (they would not live across the call).
pub(crate) fn plan_body(
    module: &Module,
    f: &Function,
    owner: Owner<'_>,
    program: &Program,
    layout: &MapLayout,
    sites: &[Site],
    home: &crate::hashmap::HomeSlots,
) -> Result<Vec<Insertion>, Error> {
    let src = module.source();
    let Some(body) = &f.body else {
        return Ok(Vec::new());
    };
    let widths = reg_widths(f);
    let reg_bits = |r: &str| widths.get(r);
    let entry = entry_point(body);
    let entry_offset = body.stmts.get(entry).map_or(body.close, |s| s.span.start);
    let insns = || sites.iter().flat_map(|s| &program.probes[s.probe].insns);
    let ir_regs = insns()
        .flat_map(|i| i.def().into_iter().chain(i.uses()))
        .map(|r| u32::from(r.0) + 1)
        .max()
        .unwrap_or(0);
    let persist = if insns().any(|i| {
        matches!(
            i,
            Insn::LoadPersist { .. } | Insn::StorePersist { .. } | Insn::ArraySave { .. }
        )
    }) {
        program.persistent.len() as u32
    } else {
        0
    };
    if persist > 0 && owner != Owner::Kernel {
        return Err(Error::Unsupported {
            target: crate::TARGET,
            what: format!(
                "persistent registers in device function `{}` (they live for the kernel, not \
                 across a call)",
                f.name
            ),
        });
    }
    let mut ins = vec![match owner {
        Owner::Kernel => param_insertion(f),
        Owner::Clone { .. } => clone_param_insertion(f),
    }];
    let id = kernel_id(match owner {
        Owner::Kernel => &f.name,
        Owner::Clone { kernel } => kernel,
    });
    // A clone receives the kernel's base, copy offset included.
    let replicas = match (owner, crate::hashmap::replicas(program, id)) {
        (Owner::Kernel, n) if n > 1 => {
            let bytes = warptrace_ir::MapLayout::new(&program.maps).total_bytes;
            Some((n, bytes))
        }
        _ => None,
    };
    let latched = match owner {
        Owner::Kernel => latched_rings(module, body, program, layout, sites),
        Owner::Clone { .. } => Vec::new(),
    };
    let (offset, text) = before_stmt(
        src,
        entry_offset,
        prologue(ir_regs, persist, replicas, &latched),
    );
    ins.push(Insertion {
        offset,
        order: 0,
        text,
        origin: Origin::Inserted { snippet: 0 },
    });
    let files = module.files();
    let (locs, pcs) = positions(body, files);
    let is_reg = |_: &str| false;
    let warp = crate::combine::WarpCaps::of_module(src);
    for (n, site) in sites.iter().enumerate() {
        let snippet = n as u32 + 1;
        let probe = &program.probes[site.probe];
        let after = probe.attach.position == Position::After;
        let stmt = site.stmt.and_then(|i| body.stmts.get(i));
        let stmt_instr = stmt.and_then(|s| match &s.kind {
            StmtKind::Instr(i) => Some(i),
            _ => None,
        });
        // A loop or region site has no instruction of its own: its statement only
        // anchors it.
        let anchored = site.place.anchored();
        let instr = stmt_instr.filter(|_| anchored.is_none());
        let guard = match anchored {
            None => instr.and_then(|i| i.guard.as_ref()),
            Some((_, true, _)) => stmt_instr.and_then(|i| i.guard.as_ref()),
            Some(_) => None,
        };
        let mem = instr.and_then(mem_site);
        let value: Option<ValueSrc> = instr
            .zip(mem)
            .map(|(i, (_, op))| value_src(i, op, after, &reg_bits));
        let bytes: Option<ValueSrc> = instr
            .filter(|_| mem.is_some())
            .and_then(|i| bytes_src(i, &reg_bits));
        if let (true, Some(i)) = (after, instr) {
            after_allowed(i, reads_address(&probe.insns), &is_reg)?;
        }
        let imms = imms_of(site, instr.is_some(), id, &locs, &pcs);
        let info = SiteInfo {
            guard,
            instr: instr.is_some() && probe.attach.point.has_instruction(),
            mem: mem.is_some(),
            bytes: instr.filter(|_| mem.is_some()).and_then(site_bytes),
            bytes_src: bytes.as_ref(),
            addr: instr.filter(|_| mem.is_some()).and_then(site_address),
            value: value.as_ref(),
            opcode: instr.map(|i| kernel_id(&i.opcode)),
            imms,
            reg_bits: &reg_bits,
        };
        let ctx = SnippetCtx {
            kernel: &f.name,
            snippet,
            line: stmt.map_or(f.line, |s| s.line),
            layout,
            program,
            warp,
            home,
            latched: !latched.is_empty(),
        };
        let what = match site.stands_for {
            1 => format!("probe {}", site.probe),
            n => format!("{n} sites grouped"),
        };
        let text = lower_probe(probe, &what, &ctx, &info)?;
        let (offset, text) = match (stmt, anchored.map(|(a, _, _)| a)) {
            (Some(s), Some(Anchor::After(_))) => after_stmt(src, s.span.end, text),
            (Some(s), Some(Anchor::Before(_))) => before_stmt(src, s.span.start, text),
            (Some(s), None) if after => after_stmt(src, s.span.end, text),
            (Some(s), None) => before_stmt(src, s.span.start, text),
            (None, _) => before_stmt(src, entry_offset, text),
        };
        ins.push(Insertion {
            offset,
            order: snippet,
            text,
            origin: Origin::Inserted { snippet },
        });
    }
    if !latched.is_empty() {
        let exits = body.stmts.iter().filter_map(|s| match &s.kind {
            StmtKind::Instr(i) if matches!(i.root(), "ret" | "exit") => Some((s, i)),
            _ => None,
        });
        for (k, (stmt, exit)) in exits.enumerate() {
            let snippet = (sites.len() + 1 + k) as u32;
            let text = flush_at_exit(layout, &latched, exit, snippet);
            let (offset, text) = before_stmt(src, stmt.span.start, text);
            ins.push(Insertion {
                offset,
                order: snippet,
                text,
                origin: Origin::Inserted { snippet },
            });
        }
    }
    Ok(ins)
}

/// The immediates of `site`: the kernel id, and `pc`, `file` and `line` of its
/// instruction (`instr`: it has one) or of its loop's header.
fn imms_of(
    site: &Site,
    instr: bool,
    kernel_id: u64,
    locs: &[Option<crate::site::Loc>],
    pcs: &[Option<u32>],
) -> SiteImms {
    let (place, located) = match site.place.anchored() {
        Some((_, _, place)) => (place, place.is_some()),
        None => (site.stmt, instr),
    };
    let loc = place.and_then(|i| locs.get(i).cloned().flatten());
    SiteImms {
        kernel_id,
        pc: place.and_then(|i| pcs.get(i).copied().flatten()),
        file: located.then(|| loc.as_ref().map_or(0, |l| l.file_id())),
        line: located.then(|| loc.as_ref().map_or(0, |l| l.line)),
    }
}

/// Each of `sites` of `f` (a kernel, or a clone for the kernel whose id is `kernel_id`)
/// with its probe and immediates, as [`plan_body`] lowers them: what
/// [`HomeSlots::decide_at`](crate::hashmap::HomeSlots::decide_at) decides from.
pub(crate) fn site_imms(
    module: &Module,
    f: &Function,
    sites: &[Site],
    kernel_id: u64,
) -> Vec<(usize, SiteImms)> {
    let Some(body) = &f.body else {
        return Vec::new();
    };
    let files = module.files();
    let (locs, pcs) = positions(body, files);
    sites
        .iter()
        .map(|site| {
            let instr = matches!(site.place, Place::Instr)
                && site
                    .stmt
                    .and_then(|i| body.stmts.get(i))
                    .is_some_and(|s| matches!(s.kind, StmtKind::Instr(_)));
            (site.probe, imms_of(site, instr, kernel_id, &locs, &pcs))
        })
        .collect()
}

/// Whether a body reads a value computed from the site's address registers: `addr`, and
/// the warp-wide `sectors`, `wavefronts` and `run`.
fn reads_address(insns: &[Insn]) -> bool {
    insns.iter().any(|x| {
        matches!(x, Insn::ReadSite { value, .. }
            if *value == warptrace_ir::SiteValue::Addr || value.is_warp_wide())
    })
}

/// Whether a snippet may run right after `i`: `i` must fall through (not a branch or an
/// exit), must not redefine its own guard (the snippet re-tests it), and, when the probe
/// reads its address ([`reads_address`]), must not redefine a register of it.
fn after_allowed(
    i: &crate::parse::Instruction,
    reads_addr: bool,
    is_reg: &dyn Fn(&str) -> bool,
) -> Result<(), Error> {
    let x = facts(i, is_reg);
    let no = |why: &str| {
        Err(Error::Unsupported {
            target: crate::TARGET,
            what: format!("`after` probe at `{}`: {why}", i.opcode),
        })
    };
    if !matches!(
        x.flow,
        Flow::Next | Flow::Barrier | Flow::WarpCollective | Flow::Call
    ) {
        return no("it does not fall through to the next instruction");
    }
    if let Some(g) = &i.guard {
        if x.defs.contains(&g.reg) {
            return no("it writes its own guard predicate");
        }
    }
    if reads_addr {
        if let Some(a) = site_address(i) {
            if a.regs.iter().any(|r| x.defs.contains(r)) {
                return no(
                    "it overwrites its address register, so `addr` (and `sectors`, \
                     `wavefronts`) is gone after it",
                );
            }
        }
    }
    Ok(())
}

/// Splices `ins` (absolute offsets, all within `f`) into `f` alone and builds the models
/// of the original and the spliced kernel; `line_base` is the line the spliced function
/// starts on in the final text.
pub(crate) fn splice_function(
    module: &Module,
    f: &Function,
    ins: &[Insertion],
    line_base: u32,
) -> Result<(PtxKernelModel, PtxKernelModel), Error> {
    splice_function_text(module, f, ins, line_base).map(|(o, s, _)| (o, s))
}

/// [`splice_function`], also returning the spliced function's text.
fn splice_function_text(
    module: &Module,
    f: &Function,
    ins: &[Insertion],
    line_base: u32,
) -> Result<(PtxKernelModel, PtxKernelModel, String), Error> {
    let start = f.span.start;
    let local: Vec<Insertion> = ins
        .iter()
        .map(|i| Insertion {
            offset: i.offset.saturating_sub(start),
            ..i.clone()
        })
        .collect();
    let (text, ranges) = apply(module.function_text(f), &local);
    // The original's model is built beside the spliced text's parse and model (for a
    // function long enough to pay for a thread).
    let stmts = f.body.as_ref().map_or(0, |b| b.stmts.len());
    let (original, spliced) = warptrace_verifier::parallel::join_if(
        stmts >= warptrace_verifier::parallel::PARALLEL_ITEMS / 2,
        || PtxKernelModel::build(module.source(), f, &|_| Origin::Kernel),
        || spliced_model(&text, &ranges, &f.name, line_base),
    );
    Ok((original, spliced?, text))
}

/// Parses the spliced text of function `name` back and builds its model.
fn spliced_model(
    text: &str,
    ranges: &[(Range<usize>, Origin)],
    name: &str,
    line_base: u32,
) -> Result<PtxKernelModel, Error> {
    let spliced = parse_spliced(text, ranges, line_base)?;
    let g = spliced
        .functions()
        .first()
        .filter(|g| g.name == name)
        .ok_or_else(|| Error::Syntax {
            line: line_base,
            message: format!("spliced kernel `{name}` does not parse back"),
        })?;
    Ok(PtxKernelModel::build(spliced.source(), g, &|o| {
        origin_at(ranges, o)
    }))
}

/// Parses a spliced function's `text` (numbered from `line_base`); a long one in two
/// halves at once, split where the inserted range nearest the middle starts (see
/// [`parse_split`]: the result is the one-pass parse either way).
pub(crate) fn parse_spliced(
    text: &str,
    ranges: &[(Range<usize>, Origin)],
    line_base: u32,
) -> Result<Module, Error> {
    let middle = text.len() / 2;
    let split = ranges
        .iter()
        .filter(|(_, origin)| *origin != Origin::Kernel)
        .map(|(r, _)| r.start)
        .min_by_key(|&start| start.abs_diff(middle));
    match split {
        Some(split) if text.len() >= SPLIT_PARSE_BYTES => parse_split(text, line_base, split),
        _ => parse_at(text, line_base),
    }
}

/// Where each insertion of `ins` starts in the text [`apply`] makes of them (insertions
/// at one offset go in `order`).
fn output_starts(ins: &[Insertion]) -> Vec<usize> {
    let mut sorted: Vec<usize> = (0..ins.len()).collect();
    sorted.sort_by_key(|&i| (ins[i].offset, ins[i].order));
    let mut starts = vec![0; ins.len()];
    let mut added = 0;
    for i in sorted {
        starts[i] = ins[i].offset + added;
        added += ins[i].text.len();
    }
    starts
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
    /// Right after the statement that starts on this 1-based line of the input (before a
    /// label that follows it, so branches to that label skip the snippet).
    AfterLine(u32),
}

/// Raw PTX lines to insert at a site, as one snippet (numbered by its index).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawSnippet {
    /// Where.
    pub site: RawSite,
    /// The lines, inserted verbatim (a newline is added to each).
    pub lines: Vec<String>,
}

/// The result of [`splice_raw`] and [`splice_raw_with_map`].
#[derive(Debug, Clone)]
pub struct RawSplice {
    /// The whole module with the snippets inserted.
    pub ptx: String,
    /// The model of the kernel as it was.
    pub original: PtxKernelModel,
    /// The model of the spliced kernel; snippet `i`'s lines are `Inserted { snippet: i }`.
    pub spliced: PtxKernelModel,
    /// The 1-based line of `ptx` on which each snippet's first line stands, in snippet
    /// order: snippet `i`'s line `j` is on line `first_lines[i] + j`.
    pub first_lines: Vec<u32>,
}

/// Testing / raw-probe seam: inserts raw PTX lines into kernel `kernel` of `ptx`, marked
/// as inserted code, and returns both models for `warptrace_verifier::verify_kernel`.
/// Nothing is checked or lowered; the verifier decides whether the lines are safe. No map
/// parameter is added (see [`splice_raw_with_map`]).
pub fn splice_raw(ptx: &str, kernel: &str, snippets: &[RawSnippet]) -> Result<RawSplice, Error> {
    splice_raw_in(ptx, kernel, snippets, false)
}

/// [`splice_raw`], and also appends the map parameter [`MAP_PARAM`] to the kernel's
/// parameters (as snippet 0's text), as the instrumenter does: inserted code may then load
/// it and store through addresses derived from it.
pub fn splice_raw_with_map(
    ptx: &str,
    kernel: &str,
    snippets: &[RawSnippet],
) -> Result<RawSplice, Error> {
    splice_raw_in(ptx, kernel, snippets, true)
}

fn splice_raw_in(
    ptx: &str,
    kernel: &str,
    snippets: &[RawSnippet],
    map_param: bool,
) -> Result<RawSplice, Error> {
    let module = crate::parse(ptx)?;
    let f = module
        .kernel(kernel)
        .ok_or_else(|| Error::NoSuchKernel(kernel.to_owned()))?;
    let body = f
        .body
        .as_ref()
        .ok_or_else(|| Error::NoSuchKernel(kernel.to_owned()))?;
    let stmt_at = |line: u32| {
        body.stmts
            .iter()
            .position(|s| s.line == line)
            .ok_or(Error::NoStatement { line })
    };
    let mut planned = Vec::with_capacity(snippets.len());
    for snip in snippets {
        let at = match snip.site {
            RawSite::Entry => At::Entry,
            RawSite::BeforeLine(line) => At::Before(stmt_at(line)?),
            RawSite::AfterLine(line) => At::After(stmt_at(line)?),
        };
        planned.push((at, snip.lines.clone()));
    }
    let planned = plan_raw(&module, f, &planned, map_param, f.line)?;
    let (ptx, _) = apply(ptx, &planned.insertions);
    Ok(RawSplice {
        ptx,
        original: planned.original,
        spliced: planned.spliced,
        first_lines: planned.first_lines,
    })
}

/// Raw snippets planned into one kernel: the insertions (absolute offsets of the
/// module), both models and where each snippet's first line stands.
#[derive(Debug)]
pub(crate) struct RawPlan {
    pub insertions: Vec<Insertion>,
    pub original: PtxKernelModel,
    pub spliced: PtxKernelModel,
    pub first_lines: Vec<u32>,
}

/// Where a planned raw snippet goes: the entry point, or before / right after the body
/// statement with this index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum At {
    Entry,
    Before(usize),
    After(usize),
}

/// Plans `snippets` (and, with `map_param`, the map parameter) into `f`; lines are
/// numbered as if `f` started on `line_base`. Snippet `i` is `Inserted { snippet: i }`.
pub(crate) fn plan_raw(
    module: &Module,
    f: &Function,
    snippets: &[(At, Vec<String>)],
    map_param: bool,
    line_base: u32,
) -> Result<RawPlan, Error> {
    let body = f
        .body
        .as_ref()
        .ok_or_else(|| Error::NoSuchKernel(f.name.clone()))?;
    let stmt = |i: usize| {
        body.stmts.get(i).ok_or_else(|| Error::Syntax {
            line: f.line,
            message: format!("no statement {i} in `{}`", f.name),
        })
    };
    let mut ins = Vec::new();
    for (n, (at, lines)) in snippets.iter().enumerate() {
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        let (offset, text) = match *at {
            At::Entry => {
                let at = body
                    .stmts
                    .get(entry_point(body))
                    .map_or(body.close, |s| s.span.start);
                before_stmt(module.source(), at, text)
            }
            At::Before(i) => before_stmt(module.source(), stmt(i)?.span.start, text),
            At::After(i) => after_stmt(module.source(), stmt(i)?.span.end, text),
        };
        ins.push(Insertion {
            offset,
            order: n as u32 + 1,
            text,
            origin: Origin::Inserted { snippet: n as u32 },
        });
    }
    let snippet_count = ins.len();
    if map_param {
        ins.push(param_insertion(f));
    }
    let (original, spliced, text) = splice_function_text(module, f, &ins, line_base)?;
    let local: Vec<Insertion> = ins
        .iter()
        .map(|i| Insertion {
            offset: i.offset.saturating_sub(f.span.start),
            ..i.clone()
        })
        .collect();
    let starts = output_starts(&local);
    let first_lines = (0..snippet_count)
        .map(|i| {
            let start = starts[i] + usize::from(ins[i].text.starts_with('\n'));
            let before = text.get(..start).unwrap_or("");
            line_base + before.matches('\n').count() as u32
        })
        .collect();
    Ok(RawPlan {
        insertions: ins,
        original,
        spliced,
        first_lines,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse_instruction;

    fn allowed(text: &str, reads_addr: bool) -> bool {
        let i = parse_instruction(text).expect("parses");
        after_allowed(&i, reads_addr, &|_| false).is_ok()
    }

    #[test]
    fn after_needs_fall_through_and_intact_operands() {
        assert!(allowed("@%p1 ld.global.b32 %r1, [%rd1];", true));
        assert!(allowed("bar.sync 0;", false));
        assert!(!allowed("@%p1 bra $L1;", false));
        assert!(!allowed("ret;", false));
        assert!(!allowed("@%p1 setp.ne.s32 %p1, %r1, 0;", false));
        assert!(!allowed("ld.global.u64 %rd1, [%rd1+8];", true));
        assert!(allowed("ld.global.u64 %rd1, [%rd1+8];", false));
    }

    #[test]
    fn the_warp_wide_values_need_the_address_too() {
        use warptrace_ir::{Reg, SiteValue};
        let read = |value| vec![Insn::ReadSite { dst: Reg(0), value }, Insn::Exit];
        for v in [
            SiteValue::Addr,
            SiteValue::Sectors,
            SiteValue::Wavefronts,
            SiteValue::Run,
        ] {
            assert!(reads_address(&read(v)), "{v:?}");
        }
        for v in [SiteValue::Bytes, SiteValue::Value, SiteValue::Opcode] {
            assert!(!reads_address(&read(v)), "{v:?}");
        }
    }

    #[test]
    fn after_goes_to_the_next_line_or_right_after_the_statement() {
        let src = "\tld.global.b32 %r1, [%rd1]; // c\n$L1:\n";
        let end = src.find(';').expect("semicolon") + 1;
        assert_eq!(
            after_stmt(src, end, "X\n".into()),
            (src.find('$').expect("label"), "X\n".into())
        );
        let src = "\tld.global.b32 %r1, [%rd1]; st.global.b32 [%rd1], %r1;\n";
        assert_eq!(after_stmt(src, end, "X\n".into()), (end, "\nX\n".into()));
    }
}
