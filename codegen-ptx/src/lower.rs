//! IR → PTX snippet lowering, using probe-private registers only.
//!
//! Namespaces (all under the reserved prefix `__wt_`, which the instrumenter checks the
//! kernel does not use):
//!
//! | name | type | holds |
//! |---|---|---|
//! | `%__wt_base` | `.b64` | the map buffer's global address (loaded once by the prologue) |
//! | `%__wt_r<N>` | `.b64` | IR register `rN` |
//! | `%__wt_t<7>` | `.b64` | temporaries (tag, slot address, immediates, …) |
//! | `%__wt_s<3>` | `.b32` | 32-bit operands and results, shift amounts, special registers |
//! | `%__wt_p<1>` | `.pred` | comparison results |
//!
//! Labels are `$__wt_<snippet>_…`, unique per kernel because snippet numbers are.

use crate::parse::{AddrBase, Address, Guard};
use crate::{hashmap, PtxError};
use hashmap::Addend;
use warptrace_ir::{
    Aggregation, BinOp, Insn, MapLayout, Operand, Probe, SiteValue, Special, Width,
};

/// The reserved prefix of every probe register, label and parameter.
pub(crate) const PREFIX: &str = "__wt_";
/// The map base register.
pub(crate) const BASE: &str = "%__wt_base";
/// Counts of the fixed temporaries: 64-bit, 32-bit, predicates.
pub(crate) const TEMPS: [(&str, &str, u32); 3] =
    [("t", ".b64", 7), ("s", ".b32", 3), ("p", ".pred", 1)];

/// A probe register of class `class` (`r`, `t`, `s`, `p`).
pub(crate) fn reg(class: &str, n: u32) -> String {
    format!("%{PREFIX}{class}{n}")
}

/// Collects snippet lines.
#[derive(Debug, Default)]
pub(crate) struct Emitter {
    lines: Vec<String>,
}

impl Emitter {
    /// An instruction (`;` added).
    pub fn ins(&mut self, text: impl AsRef<str>) {
        self.lines.push(format!("\t{};", text.as_ref()));
    }

    /// A label definition.
    pub fn label(&mut self, name: &str) {
        self.lines.push(format!("{name}:"));
    }

    /// A comment line.
    pub fn comment(&mut self, text: &str) {
        self.lines.push(format!("\t// {text}"));
    }

    /// A 64-bit source operand: an IR register, a small immediate inline, or another
    /// immediate materialised in `tmp`.
    pub fn src64(&mut self, op: &Operand, tmp: &str) -> String {
        match *op {
            Operand::Reg(r) => reg("r", u32::from(r.0)),
            Operand::Imm(v) if (0..=i64::from(i32::MAX)).contains(&v) => v.to_string(),
            Operand::Imm(v) => {
                self.ins(format!("mov.b64 {tmp}, 0x{:016X}", v as u64));
                tmp.to_owned()
            }
        }
    }

    /// The low 32 bits of an operand: truncated into `tmp`, or an immediate.
    fn src32(&mut self, op: &Operand, tmp: &str) -> String {
        match *op {
            Operand::Reg(r) => {
                self.ins(format!("cvt.u32.u64 {tmp}, {}", reg("r", u32::from(r.0))));
                tmp.to_owned()
            }
            Operand::Imm(v) => {
                let v = v as u32;
                if v <= i32::MAX as u32 {
                    v.to_string()
                } else {
                    self.ins(format!("mov.b32 {tmp}, 0x{v:08X}"));
                    tmp.to_owned()
                }
            }
        }
    }

    /// A shift amount modulo `bits`, as a `.u32` operand.
    fn shift_amount(&mut self, op: &Operand, bits: u32) -> String {
        match *op {
            Operand::Imm(v) => ((v as u64) & u64::from(bits - 1)).to_string(),
            Operand::Reg(r) => {
                let s1 = reg("s", 1);
                self.ins(format!("cvt.u32.u64 {s1}, {}", reg("r", u32::from(r.0))));
                self.ins(format!("and.b32 {s1}, {s1}, {}", bits - 1));
                s1
            }
        }
    }

    /// The lines, each ending in a newline.
    pub fn finish(self) -> String {
        let mut s = String::new();
        for l in self.lines {
            s.push_str(&l);
            s.push('\n');
        }
        s
    }
}

/// What a snippet may read of the instruction it is attached to.
#[derive(Clone, Copy)]
#[allow(missing_debug_implementations)] // holds a closure; internal
pub(crate) struct SiteInfo<'a> {
    /// The site's guard predicate, if predicated.
    pub guard: Option<&'a Guard>,
    /// Bytes accessed (memory sites).
    pub bytes: Option<u32>,
    /// The address operand (memory sites).
    pub addr: Option<&'a Address>,
    /// Width in bits of a kernel register, from its declaration.
    pub reg_bits: &'a dyn Fn(&str) -> Option<u32>,
}

/// Everything a snippet's lowering depends on besides the probe.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SnippetCtx<'a> {
    pub kernel: &'a str,
    pub kernel_id: u64,
    pub snippet: u32,
    pub line: u32,
    pub layout: &'a MapLayout,
}

fn op_name(op: BinOp, bits: u32) -> (String, bool) {
    let (u, s, b) = (format!("u{bits}"), format!("s{bits}"), format!("b{bits}"));
    let alu = |m: &str, t: &str| (format!("{m}.{t}"), false);
    let cmp = |c: &str, t: &str| (format!("{c}.{t}"), true);
    match op {
        BinOp::Add => alu("add", &s),
        BinOp::Sub => alu("sub", &s),
        BinOp::Mul => alu("mul.lo", &s),
        BinOp::DivU => alu("div", &u),
        BinOp::DivS => alu("div", &s),
        BinOp::RemU => alu("rem", &u),
        BinOp::RemS => alu("rem", &s),
        BinOp::And => alu("and", &b),
        BinOp::Or => alu("or", &b),
        BinOp::Xor => alu("xor", &b),
        BinOp::Shl => alu("shl", &b),
        BinOp::ShrU => alu("shr", &u),
        BinOp::ShrS => alu("shr", &s),
        BinOp::Eq => cmp("eq", &u),
        BinOp::Ne => cmp("ne", &u),
        BinOp::LtU => cmp("lt", &u),
        BinOp::LtS => cmp("lt", &s),
        BinOp::LeU => cmp("le", &u),
        BinOp::LeS => cmp("le", &s),
        BinOp::GtU => cmp("gt", &u),
        BinOp::GtS => cmp("gt", &s),
        BinOp::GeU => cmp("ge", &u),
        BinOp::GeS => cmp("ge", &s),
    }
}

fn is_shift(op: BinOp) -> bool {
    matches!(op, BinOp::Shl | BinOp::ShrU | BinOp::ShrS)
}

fn bin(e: &mut Emitter, op: BinOp, width: Width, dst: &str, a: &Operand, b: &Operand) {
    let p0 = reg("p", 0);
    match width {
        Width::W64 => {
            let (name, compare) = op_name(op, 64);
            let a = e.src64(a, &reg("t", 5));
            let b = if is_shift(op) {
                e.shift_amount(b, 64)
            } else {
                e.src64(b, &reg("t", 6))
            };
            if compare {
                e.ins(format!("setp.{name} {p0}, {a}, {b}"));
                e.ins(format!("selp.u64 {dst}, 1, 0, {p0}"));
            } else {
                e.ins(format!("{name} {dst}, {a}, {b}"));
            }
        }
        Width::W32 => {
            let (name, compare) = op_name(op, 32);
            let a = e.src32(a, &reg("s", 0));
            let b = if is_shift(op) {
                e.shift_amount(b, 32)
            } else {
                e.src32(b, &reg("s", 1))
            };
            if compare {
                e.ins(format!("setp.{name} {p0}, {a}, {b}"));
                e.ins(format!("selp.u64 {dst}, 1, 0, {p0}"));
            } else {
                let s2 = reg("s", 2);
                e.ins(format!("{name} {s2}, {a}, {b}"));
                e.ins(format!("cvt.u64.u32 {dst}, {s2}"));
            }
        }
    }
}

/// The IR text of something the back end does not lower yet.
fn unsupported(what: String) -> PtxError {
    PtxError::Unsupported { what }
}

fn special(e: &mut Emitter, dst: &str, sp: Special, kernel_id: u64) -> Result<(), PtxError> {
    let sreg = match sp {
        Special::TidX => "%tid.x",
        Special::TidY => "%tid.y",
        Special::TidZ => "%tid.z",
        Special::CtaidX => "%ctaid.x",
        Special::CtaidY => "%ctaid.y",
        Special::CtaidZ => "%ctaid.z",
        Special::Smid => "%smid",
        Special::Clock64 => {
            e.ins(format!("mov.u64 {dst}, %clock64"));
            return Ok(());
        }
        Special::KernelId => {
            e.ins(format!("mov.b64 {dst}, 0x{kernel_id:016X}"));
            return Ok(());
        }
        Special::Clock
        | Special::GlobalTimer
        | Special::Nsmid
        | Special::Warp
        | Special::Lane
        | Special::NtidX
        | Special::NtidY
        | Special::NtidZ
        | Special::NctaidX
        | Special::NctaidY
        | Special::NctaidZ
        | Special::Thread
        | Special::Block
        | Special::ActiveMask
        | Special::Active
        | Special::Launch
        | Special::Pc
        | Special::File
        | Special::Line => return Err(unsupported(format!("sreg {}", sp.name()))),
    };
    let s0 = reg("s", 0);
    e.ins(format!("mov.u32 {s0}, {sreg}"));
    e.ins(format!("cvt.u64.u32 {dst}, {s0}"));
    Ok(())
}

/// Lowers `probe` to the text of one snippet (lines ending in newlines).
pub(crate) fn lower_probe(
    probe: &Probe,
    probe_index: usize,
    ctx: &SnippetCtx<'_>,
    site: &SiteInfo<'_>,
) -> Result<String, PtxError> {
    let fail = |message: String| PtxError::Lower {
        kernel: ctx.kernel.to_owned(),
        line: ctx.line,
        message,
    };
    let s = ctx.snippet;
    let end = format!("$__wt_{s}_end");
    let target = |i: u32| format!("$__wt_{s}_L{i}");
    let targets: std::collections::BTreeSet<u32> =
        probe.insns.iter().filter_map(Insn::target).collect();
    let mut e = Emitter::default();
    e.comment(&format!(
        "warptrace: snippet {s}: probe {probe_index} ({})",
        probe.attach
    ));
    let mut end_used = false;
    if let Some(g) = site.guard {
        e.ins(format!("{} bra {end}", g.inverted().text()));
        end_used = true;
    }
    let last = probe.insns.len().saturating_sub(1);
    for (i, insn) in probe.insns.iter().enumerate() {
        if targets.contains(&(i as u32)) {
            e.label(&target(i as u32));
        }
        match insn {
            Insn::Mov { dst, src } => {
                let d = reg("r", u32::from(dst.0));
                let v = match *src {
                    Operand::Reg(r) => reg("r", u32::from(r.0)),
                    Operand::Imm(v) if v >= 0 => v.to_string(),
                    Operand::Imm(v) => format!("0x{:016X}", v as u64),
                };
                e.ins(format!("mov.b64 {d}, {v}"));
            }
            Insn::Bin {
                op,
                width,
                dst,
                a,
                b,
            } => bin(&mut e, *op, *width, &reg("r", u32::from(dst.0)), a, b),
            Insn::ReadSpecial { dst, special: sp } => {
                special(&mut e, &reg("r", u32::from(dst.0)), *sp, ctx.kernel_id)?
            }
            Insn::ReadSite { dst, value } => {
                let d = reg("r", u32::from(dst.0));
                match value {
                    SiteValue::Bytes => {
                        let b = site
                            .bytes
                            .ok_or_else(|| fail("`bytes` read at a site without a width".into()))?;
                        e.ins(format!("mov.b64 {d}, {b}"));
                    }
                    SiteValue::Addr => {
                        let a = site.addr.ok_or_else(|| {
                            fail("`addr` read at a site without an address".into())
                        })?;
                        addr(&mut e, &d, a, site.reg_bits).map_err(fail)?;
                    }
                    SiteValue::Value | SiteValue::Opcode => {
                        return Err(unsupported(format!("site {}", value.name())))
                    }
                }
            }
            Insn::Branch {
                cond,
                if_zero,
                target: t,
            } => {
                let p0 = reg("p", 0);
                let cc = if *if_zero { "eq" } else { "ne" };
                e.ins(format!(
                    "setp.{cc}.u64 {p0}, {}, 0",
                    reg("r", u32::from(cond.0))
                ));
                e.ins(format!("@{p0} bra {}", target(*t)));
            }
            Insn::Jump { target: t } => e.ins(format!("bra {}", target(*t))),
            Insn::MapUpdate { map, keys, agg } => {
                let region = ctx
                    .layout
                    .regions
                    .get(map.0 as usize)
                    .ok_or_else(|| fail(format!("unknown map {}", map.0)))?;
                if region.capacity == 0 {
                    return Err(fail(format!("map {} has capacity 0", map.0)));
                }
                let addend = match agg {
                    Aggregation::Count => Addend::One,
                    Aggregation::Sum(v) => Addend::Value(*v),
                    Aggregation::Min(_)
                    | Aggregation::Max(_)
                    | Aggregation::Avg(_)
                    | Aggregation::Stats(_)
                    | Aggregation::Hist(_)
                    | Aggregation::Lhist(_)
                    | Aggregation::Assign(_) => {
                        return Err(unsupported(format!("map.update {}", agg.mnemonic())))
                    }
                };
                let labels = format!("$__wt_{s}_m{i}");
                hashmap::map_update(&mut e, region, keys, addend, &labels);
            }
            Insn::Ext { .. }
            | Insn::LoadPersist { .. }
            | Insn::StorePersist { .. }
            | Insn::ArraySave { .. }
            | Insn::RingAppend { .. }
            | Insn::Printf { .. }
            | Insn::Print { .. }
            | Insn::Clear { .. }
            | Insn::Zero { .. }
            | Insn::Delete { .. }
            | Insn::StopTracing => {
                let text = probe_insn_mnemonic(insn);
                return Err(unsupported(text.to_owned()));
            }
            Insn::Exit => {
                if i != last {
                    e.ins(format!("bra {end}"));
                    end_used = true;
                }
            }
        }
    }
    if end_used {
        e.label(&end);
    }
    Ok(e.finish())
}

/// The mnemonic of an instruction the back end does not lower yet.
fn probe_insn_mnemonic(insn: &Insn) -> &'static str {
    match insn {
        Insn::Ext { signed: true, .. } => "sext",
        Insn::Ext { signed: false, .. } => "zext",
        Insn::LoadPersist { .. } => "load (persistent register)",
        Insn::StorePersist { .. } => "store (persistent register)",
        Insn::ArraySave { .. } => "map.save",
        Insn::RingAppend { .. } => "map.append",
        Insn::Printf { .. } => "printf",
        _ => "a host-only operation",
    }
}

/// `dst = effective address of a`, widened to 64 bits.
fn addr(
    e: &mut Emitter,
    dst: &str,
    a: &Address,
    reg_bits: &dyn Fn(&str) -> Option<u32>,
) -> Result<(), String> {
    match &a.base {
        AddrBase::Reg(r) => match reg_bits(r) {
            Some(64) => e.ins(format!("mov.b64 {dst}, {r}")),
            Some(32) => e.ins(format!("cvt.u64.u32 {dst}, {r}")),
            _ => {
                return Err(format!(
                    "address register `{r}` has no known 32/64-bit type"
                ))
            }
        },
        AddrBase::Symbol(s) => e.ins(format!("mov.u64 {dst}, {s}")),
        AddrBase::Imm(v) => e.ins(format!("mov.b64 {dst}, 0x{:016X}", *v as u64)),
        AddrBase::Complex => return Err("`addr` of a compound address".into()),
    }
    if a.offset != 0 {
        e.ins(format!("add.s64 {dst}, {dst}, {}", a.offset));
    }
    Ok(())
}
