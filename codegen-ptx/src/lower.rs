//! IR → PTX snippet lowering, using probe-private registers only.
//!
//! Namespaces (all under the reserved prefix `__wt_`, which the instrumenter checks the
//! kernel does not use):
//!
//! | name | type | holds |
//! |---|---|---|
//! | `%__wt_base` | `.b64` | the map buffer's global address (loaded once by the prologue) |
//! | `%__wt_r<N>` | `.b64` | IR register `rN` |
//! | `%__wt_t<10>` | `.b64` | temporaries (tag, slot address, immediates, …; `t7`–`t9`: warp-combined updates) |
//! | `%__wt_s<5>` | `.b32` | 32-bit operands and results, shift amounts, special registers, masks |
//! | `%__wt_h<1>` | `.b16` | 16-bit `value` operands |
//! | `%__wt_p<2>` | `.pred` | comparison results (`p0`), the warp leader (`p1`) |
//! | `%__wt_x<N>` | `.b64` | persistent registers `%x` (kernel lifetime, zeroed by the prologue) |
//! | `%__wt_d<N>` | `.b64` | map `N`'s latched ring drops (`ring.rs`; kernel lifetime, zeroed by the prologue, flushed at every exit) |
//!
//! Labels are `$__wt_<snippet>_…`, unique per kernel because snippet numbers are.

use crate::combine::{self, WarpCaps};
use crate::parse::{AddrBase, Address, Guard};
use crate::site::ValueSrc;
use crate::special::{self, SiteImms};
use crate::{array, hashmap, ring, Error};
use warptrace_ir::fold::{self, SiteConsts};
use warptrace_ir::interp::extend;
use warptrace_ir::uniform::Uniform;
use warptrace_ir::{
    BinOp, Granularity, Insn, MapKind, MapLayout, Operand, Probe, Program, SiteValue, Special,
    ValueKind, Width,
};

/// The reserved prefix of every probe register, label and parameter.
pub(crate) const PREFIX: &str = "__wt_";
/// The map base register.
pub(crate) const BASE: &str = "%__wt_base";
/// Counts of the fixed temporaries: 64-bit, 32-bit, 16-bit, predicates (`p1` is the warp
/// leader of `warp` probes), the warp-wide site values (`warp_access.rs`).
pub(crate) const TEMPS: [(&str, &str, u32); 5] = [
    ("t", ".b64", 10),
    ("s", ".b32", 5),
    ("h", ".b16", 1),
    ("p", ".pred", 2),
    ("w", ".b64", 3),
];
/// The warp-leader predicate of `warp` probes.
const LEADER: &str = "%__wt_p1";

/// A probe register of class `class` (`r`, `t`, `s`, `p`).
pub(crate) fn reg(class: &str, n: u32) -> String {
    format!("%{PREFIX}{class}{n}")
}

/// Collects snippet lines into one buffer (a snippet is written once and then parsed
/// back; a string per line cost as much as the rest of lowering).
#[derive(Debug, Default)]
pub(crate) struct Emitter {
    text: String,
}

impl Emitter {
    /// An instruction (`;` added).
    pub fn ins(&mut self, text: impl AsRef<str>) {
        self.text.push('\t');
        self.text.push_str(text.as_ref());
        self.text.push_str(";\n");
    }

    /// An instruction formatted in place (`;` added): `e.insf(format_args!(…))`.
    pub fn insf(&mut self, args: std::fmt::Arguments<'_>) {
        use std::fmt::Write as _;
        self.text.push('\t');
        // Writing into a `String` cannot fail.
        let _ = self.text.write_fmt(args);
        self.text.push_str(";\n");
    }

    /// A label definition.
    pub fn label(&mut self, name: &str) {
        self.text.push_str(name);
        self.text.push_str(":\n");
    }

    /// A comment line.
    pub fn comment(&mut self, text: &str) {
        self.text.push_str("\t// ");
        self.text.push_str(text);
        self.text.push('\n');
    }

    /// A 64-bit source operand: an IR register, a small immediate inline, or another
    /// immediate materialised in `tmp`.
    pub fn src64(&mut self, op: &Operand, tmp: &str) -> String {
        match *op {
            Operand::Reg(r) => reg("r", u32::from(r.0)),
            Operand::Imm(v) if (0..=i64::from(i32::MAX)).contains(&v) => v.to_string(),
            Operand::Imm(v) => {
                self.insf(format_args!("mov.b64 {tmp}, 0x{:016X}", v as u64));
                tmp.to_owned()
            }
        }
    }

    /// The low 32 bits of an operand: truncated into `tmp`, or an immediate.
    fn src32(&mut self, op: &Operand, tmp: &str) -> String {
        match *op {
            Operand::Reg(r) => {
                self.insf(format_args!(
                    "cvt.u32.u64 {tmp}, {}",
                    reg("r", u32::from(r.0))
                ));
                tmp.to_owned()
            }
            Operand::Imm(v) => {
                let v = v as u32;
                if v <= i32::MAX as u32 {
                    v.to_string()
                } else {
                    self.insf(format_args!("mov.b32 {tmp}, 0x{v:08X}"));
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
                self.insf(format_args!(
                    "cvt.u32.u64 {s1}, {}",
                    reg("r", u32::from(r.0))
                ));
                self.insf(format_args!("and.b32 {s1}, {s1}, {}", bits - 1));
                s1
            }
        }
    }

    /// The lines, each ending in a newline.
    pub fn finish(self) -> String {
        self.text
    }
}

/// What a snippet may read of the instruction it is attached to.
#[derive(Clone, Copy)]
#[allow(missing_debug_implementations)] // holds a closure; internal
pub(crate) struct SiteInfo<'a> {
    /// The site's guard predicate, if predicated.
    pub guard: Option<&'a Guard>,
    /// Whether the site is an instruction (not kernel entry).
    pub instr: bool,
    /// Whether the instruction is a memory access (`mem:` classification).
    pub mem: bool,
    /// Bytes accessed (memory sites), when known at compile time.
    pub bytes: Option<u32>,
    /// Where `bytes` is otherwise: a bulk copy's size register, or why it is unknown.
    pub bytes_src: Option<&'a ValueSrc>,
    /// The address operand (memory sites).
    pub addr: Option<&'a Address>,
    /// Where `value` is (memory sites).
    pub value: Option<&'a ValueSrc>,
    /// `kernel_id` of the opcode text (instruction sites).
    pub opcode: Option<u64>,
    /// Per-kernel and per-site immediates.
    pub imms: SiteImms,
    /// Width in bits of a kernel register, from its declaration.
    pub reg_bits: &'a dyn Fn(&str) -> Option<u32>,
}

impl SiteConsts for SiteInfo<'_> {
    fn special(&self, sp: Special) -> Option<u64> {
        special::constant(sp, &self.imms)
    }

    fn site(&self, v: SiteValue) -> Option<u64> {
        match v {
            SiteValue::Opcode => self.opcode,
            SiteValue::Bytes if self.mem => self.bytes.map(u64::from),
            SiteValue::Bytes
            | SiteValue::Addr
            | SiteValue::Value
            | SiteValue::Sectors
            | SiteValue::Wavefronts
            | SiteValue::Run
                if self.instr && !self.mem =>
            {
                Some(0)
            }
            SiteValue::Value => match self.value {
                Some(ValueSrc::Imm(v)) => Some(*v),
                _ => None,
            },
            _ => None,
        }
    }
}

/// Everything a snippet's lowering depends on besides the probe and the site.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SnippetCtx<'a> {
    pub kernel: &'a str,
    pub snippet: u32,
    pub line: u32,
    pub layout: &'a MapLayout,
    pub program: &'a Program,
    /// What the module's target offers warp-combined map updates (`combine.rs`).
    pub warp: WarpCaps,
    /// Which maps this kernel's updates may probe at home slots only.
    pub home: &'a hashmap::HomeSlots,
    /// Whether drop rings' appends are latched (`ring.rs`): the snippet is the kernel's own
    /// and the kernel flushes the latched drops at every exit.
    pub latched: bool,
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

/// `dst = a OP b` for an ALU operation `name` at `bits`, where `a`/`b` are the operand
/// texts of the IR operands `a_op`/`b_op`.
///
/// `div.s`/`rem.s` by -1 do not divide: PTX leaves the most negative value divided by -1
/// unspecified, while the IR wraps (the quotient is the dividend negated, the remainder
/// 0). Found by translation validation (`tv`).
fn alu_op(
    e: &mut Emitter,
    op: BinOp,
    name: &str,
    bits: u32,
    dst: &str,
    (a_op, a): (&Operand, &str),
    (b_op, b): (&Operand, &str),
) {
    if !matches!(op, BinOp::DivS | BinOp::RemS) {
        e.insf(format_args!("{name} {dst}, {a}, {b}"));
        return;
    }
    let mask = u64::MAX >> (64 - bits);
    let by_minus_one = |e: &mut Emitter, guard: &str| match (op, a_op) {
        (BinOp::DivS, Operand::Imm(v)) => {
            let v = (*v as u64).wrapping_neg() & mask;
            e.insf(format_args!("{guard}mov.b{bits} {dst}, 0x{v:X}"));
        }
        (BinOp::DivS, Operand::Reg(_)) => e.insf(format_args!("{guard}neg.s{bits} {dst}, {a}")),
        _ => e.insf(format_args!("{guard}mov.b{bits} {dst}, 0")),
    };
    match *b_op {
        Operand::Imm(v) if (v as u64) & mask == mask => by_minus_one(e, ""),
        Operand::Imm(_) => e.insf(format_args!("{name} {dst}, {a}, {b}")),
        Operand::Reg(_) => {
            let p0 = reg("p", 0);
            e.insf(format_args!("setp.eq.s{bits} {p0}, {b}, -1"));
            by_minus_one(e, &format!("@{p0} "));
            e.insf(format_args!("@!{p0} {name} {dst}, {a}, {b}"));
        }
    }
}

fn bin(e: &mut Emitter, op: BinOp, width: Width, dst: &str, a_op: &Operand, b_op: &Operand) {
    let p0 = reg("p", 0);
    match width {
        Width::W64 => {
            let (name, compare) = op_name(op, 64);
            let a = e.src64(a_op, &reg("t", 5));
            let b = if is_shift(op) {
                e.shift_amount(b_op, 64)
            } else {
                e.src64(b_op, &reg("t", 6))
            };
            if compare {
                e.insf(format_args!("setp.{name} {p0}, {a}, {b}"));
                e.insf(format_args!("selp.u64 {dst}, 1, 0, {p0}"));
            } else {
                alu_op(e, op, &name, 64, dst, (a_op, &a), (b_op, &b));
            }
        }
        Width::W32 => {
            let (name, compare) = op_name(op, 32);
            let a = e.src32(a_op, &reg("s", 0));
            let b = if is_shift(op) {
                e.shift_amount(b_op, 32)
            } else {
                e.src32(b_op, &reg("s", 1))
            };
            if compare {
                e.insf(format_args!("setp.{name} {p0}, {a}, {b}"));
                e.insf(format_args!("selp.u64 {dst}, 1, 0, {p0}"));
            } else {
                let s2 = reg("s", 2);
                alu_op(e, op, &name, 32, &s2, (a_op, &a), (b_op, &b));
                e.insf(format_args!("cvt.u64.u32 {dst}, {s2}"));
            }
        }
    }
}

/// The IR text of something the back end does not lower yet.
fn unsupported(what: String) -> Error {
    Error::Unsupported {
        target: crate::TARGET,
        what,
    }
}

/// Lowers `probe` to the text of one snippet (lines ending in newlines).
pub(crate) fn lower_probe(
    probe: &Probe,
    what: &str,
    ctx: &SnippetCtx<'_>,
    site: &SiteInfo<'_>,
) -> Result<String, Error> {
    let fail = |message: String| Error::Lower {
        kernel: ctx.kernel.to_owned(),
        line: ctx.line,
        message,
    };
    let s = ctx.snippet;
    let end = format!("$__wt_{s}_end");
    let target = |i: u32| format!("$__wt_{s}_L{i}");
    let targets: std::collections::BTreeSet<u32> =
        probe.insns.iter().filter_map(Insn::target).collect();
    let known = fold::constants(&probe.insns, site);
    // Thread probes: which registers are warp-uniform, for warp-combined updates.
    let uniform = if probe.attach.granularity == Granularity::Thread && ctx.warp.activemask {
        Uniform::analyse(&probe.insns, &known)
    } else {
        Uniform::default()
    };
    let mut e = Emitter::default();
    e.comment(&format!(
        "warptrace: snippet {s}: {what} ({})",
        probe.attach
    ));
    let mut end_used = false;
    if let Some(g) = site.guard {
        e.insf(format_args!("{} bra {end}", g.inverted().text()));
        end_used = true;
    }
    // Leading clock reads go first, before the warp-wide values and the leader election:
    // a probe that times itself (`$a = clock64` ... `clock64 - $a`) then measures all of
    // its work but the guard, and the election's `%lanemask_eq` read (tens of cycles)
    // does not fall between its own clock and the kernel's.
    let early = probe
        .insns
        .iter()
        .take_while(|i| {
            matches!(
                i,
                Insn::ReadSpecial {
                    special: Special::Clock | Special::Clock64 | Special::GlobalTimer,
                    ..
                }
            )
        })
        .count();
    for insn in &probe.insns[..early] {
        if let Insn::ReadSpecial { dst, special: sp } = insn {
            special::emit(&mut e, &reg("r", u32::from(dst.0)), *sp, &site.imms)?;
        }
    }
    // Warp-wide site values: over the lanes at the site, before the body can diverge.
    for v in crate::warp_access::read_by(probe) {
        if site.instr && site.site(v).is_none() {
            crate::warp_access::emit(&mut e, v, site, ctx.warp).map_err(unsupported)?;
        }
    }
    // `warp` probes: every active lane computes; the lane that is first among the lanes
    // active at the site does the map writes.
    let warp =
        probe.attach.granularity == Granularity::Warp && probe.insns.iter().any(Insn::writes_maps);
    if warp {
        special::warp_leader(&mut e, LEADER);
    }
    let last = probe.insns.len().saturating_sub(1);
    for (i, insn) in probe.insns.iter().enumerate().skip(early) {
        if targets.contains(&(i as u32)) {
            e.label(&target(i as u32));
        }
        let leader_skip = format!("$__wt_{s}_w{i}");
        // (An array save skips by itself: every lane advances its cursor.)
        let skips = warp && insn.writes_maps() && !matches!(insn, Insn::ArraySave { .. });
        if skips {
            e.insf(format_args!("@!{LEADER} bra {leader_skip}"));
        }
        match insn {
            Insn::Mov { dst, src } => {
                let d = reg("r", u32::from(dst.0));
                let v = match *src {
                    Operand::Reg(r) => reg("r", u32::from(r.0)),
                    Operand::Imm(v) if v >= 0 => v.to_string(),
                    Operand::Imm(v) => format!("0x{:016X}", v as u64),
                };
                e.insf(format_args!("mov.b64 {d}, {v}"));
            }
            Insn::Bin {
                op,
                width,
                dst,
                a,
                b,
            } => bin(&mut e, *op, *width, &reg("r", u32::from(dst.0)), a, b),
            Insn::Ext {
                dst,
                src,
                from,
                signed,
            } => {
                let d = reg("r", u32::from(dst.0));
                match *src {
                    Operand::Imm(v) => {
                        let v = extend(v as u64, *from, *signed);
                        e.insf(format_args!("mov.b64 {d}, 0x{v:016X}"));
                    }
                    Operand::Reg(r) => {
                        let t = if *signed { "s64" } else { "u64" };
                        e.insf(format_args!(
                            "bfe.{t} {d}, {}, 0, {}",
                            reg("r", u32::from(r.0)),
                            from.bits()
                        ));
                    }
                }
            }
            Insn::ReadSpecial {
                dst,
                special: Special::Launch,
            } => {
                // The launch's sequence number: the map buffer's `launch` word, written by
                // the runtime before the launch.
                e.insf(format_args!(
                    "ld.global.u64 {}, [{BASE}+{}]",
                    reg("r", u32::from(dst.0)),
                    ctx.layout.launch_offset
                ));
            }
            Insn::ReadSpecial { dst, special: sp } => {
                special::emit(&mut e, &reg("r", u32::from(dst.0)), *sp, &site.imms)?
            }
            Insn::ReadSite { dst, value } => {
                let d = reg("r", u32::from(dst.0));
                read_site(&mut e, &d, *value, site).map_err(|m| match m {
                    SiteErr::Unsupported(what) => unsupported(what),
                    SiteErr::Fail(m) => fail(m),
                })?;
            }
            Insn::LoadPersist { dst, slot } => e.insf(format_args!(
                "mov.b64 {}, {}",
                reg("r", u32::from(dst.0)),
                reg("x", slot.0)
            )),
            Insn::StorePersist { slot, src } => {
                let v = e.src64(src, &reg("t", 5));
                e.insf(format_args!("mov.b64 {}, {v}", reg("x", slot.0)));
            }
            Insn::Branch {
                cond,
                if_zero,
                target: t,
            } => {
                let p0 = reg("p", 0);
                let cc = if *if_zero { "eq" } else { "ne" };
                e.insf(format_args!(
                    "setp.{cc}.u64 {p0}, {}, 0",
                    reg("r", u32::from(cond.0))
                ));
                e.insf(format_args!("@{p0} bra {}", target(*t)));
            }
            Insn::Jump { target: t } => e.insf(format_args!("bra {}", target(*t))),
            Insn::MapUpdate { map, keys, agg } => {
                let (decl, region) = map_of(ctx, map.0).map_err(fail)?;
                if region.capacity == 0 {
                    return Err(fail(format!("map {} has capacity 0", map.0)));
                }
                let keys: Vec<Operand> = keys.iter().map(|k| fold::resolve(k, &known)).collect();
                let labels = format!("$__wt_{s}_m{i}");
                let hash = matches!(decl.kind, MapKind::Hash { .. });
                // Combined per warp: a constant operand as an immediate too.
                let folded = combine::with_operand(*agg, |x| fold::resolve(&x, &known));
                let at = hashmap::Target {
                    region,
                    labels: &labels,
                    probing: ctx.home.probing(map.0),
                };
                match combine::plan(folded, &keys, &uniform, ctx.warp).filter(|_| hash && !warp) {
                    Some(plan) => {
                        combine::map_update(&mut e, at, &keys, folded, &decl.value, plan)?
                    }
                    None => hashmap::map_update(&mut e, at, &keys, *agg, &decl.value)?,
                }
            }
            Insn::RingAppend { map, fields } => {
                let (decl, region) = map_of(ctx, map.0).map_err(fail)?;
                if !matches!(decl.kind, MapKind::Ring { .. }) {
                    return Err(unsupported(format!(
                        "map.append to `@{}`, not a ring",
                        decl.name
                    )));
                }
                if fields.len() != region.value_words as usize {
                    return Err(fail(format!(
                        "map.append to `@{}`: wrong field count",
                        decl.name
                    )));
                }
                let latched = ctx.latched.then_some(map.0);
                ring::append(&mut e, region, fields, &format!("$__wt_{s}_a{i}"), latched);
            }
            Insn::Printf { format, args } => {
                let ring_id = ctx
                    .program
                    .printf_ring()
                    .ok_or_else(|| fail("printf without a printf ring".into()))?;
                let (decl, region) = map_of(ctx, ring_id.0).map_err(fail)?;
                let ValueKind::Printf { args: width } = decl.value else {
                    return Err(fail("the printf ring has no printf records".into()));
                };
                if args.len() > width as usize {
                    return Err(fail(
                        "printf with more arguments than the ring holds".into(),
                    ));
                }
                let mut fields = vec![Operand::Imm(i64::from(format.0))];
                fields.extend(args.iter().copied());
                fields.resize(1 + width as usize, Operand::Imm(0));
                let latched = ctx.latched.then_some(ring_id.0);
                ring::append(&mut e, region, &fields, &format!("$__wt_{s}_a{i}"), latched);
            }
            Insn::ArraySave {
                map,
                cursor,
                fields,
            } => {
                let (decl, region) = map_of(ctx, map.0).map_err(fail)?;
                if !matches!(decl.kind, MapKind::Array { .. }) {
                    return Err(fail(format!("map.save to `@{}`, not an array", decl.name)));
                }
                if fields.len() != region.value_words as usize {
                    return Err(fail(format!(
                        "map.save to `@{}`: wrong field count",
                        decl.name
                    )));
                }
                let writer = warp.then_some(LEADER);
                let labels = format!("$__wt_{s}_a{i}");
                array::save(&mut e, region, &reg("x", cursor.0), fields, writer, &labels);
            }
            Insn::Print { .. }
            | Insn::Clear { .. }
            | Insn::Zero { .. }
            | Insn::Delete { .. }
            | Insn::StopTracing => {
                return Err(unsupported("a host-only operation".to_owned()));
            }
            Insn::Exit => {
                if i != last {
                    e.insf(format_args!("bra {end}"));
                    end_used = true;
                }
            }
        }
        if skips {
            e.label(&leader_skip);
        }
    }
    if end_used {
        e.label(&end);
    }
    Ok(e.finish())
}

/// A 64-bit immediate's text: decimal when small, else hex.
pub(crate) fn imm64(v: u64) -> String {
    if v <= i32::MAX as u64 {
        v.to_string()
    } else {
        format!("0x{v:016X}")
    }
}

/// The declaration and region of map `id`.
fn map_of<'a>(
    ctx: &SnippetCtx<'a>,
    id: u32,
) -> Result<(&'a warptrace_ir::MapDecl, &'a warptrace_ir::MapRegion), String> {
    let decl = ctx.program.maps.get(id as usize);
    let region = ctx.layout.regions.get(id as usize);
    decl.zip(region).ok_or_else(|| format!("unknown map {id}"))
}

/// Why a site operand cannot be read.
enum SiteErr {
    Unsupported(String),
    Fail(String),
}

/// `dst = site value`.
fn read_site(
    e: &mut Emitter,
    d: &str,
    value: SiteValue,
    site: &SiteInfo<'_>,
) -> Result<(), SiteErr> {
    if !site.instr {
        return Err(SiteErr::Fail(format!(
            "`site {}` at a probe without an instruction",
            value.name()
        )));
    }
    if let Some(v) = site.site(value) {
        e.insf(format_args!("mov.b64 {d}, {}", imm64(v)));
        return Ok(());
    }
    match value {
        SiteValue::Addr => {
            let a = site.addr.ok_or_else(|| {
                SiteErr::Unsupported("`addr` at a site without an address".into())
            })?;
            addr(e, d, a, site.reg_bits).map_err(SiteErr::Unsupported)
        }
        SiteValue::Value => {
            let src = site
                .value
                .ok_or_else(|| SiteErr::Unsupported("`value` at this site".into()))?;
            crate::site::emit_value(e, d, src, &reg("s", 0), &reg("h", 0)).map_err(
                |err| match err {
                    Error::Unsupported { what, .. } => SiteErr::Unsupported(what),
                    other => SiteErr::Fail(other.to_string()),
                },
            )
        }
        SiteValue::Bytes => {
            match site.bytes_src {
                // A register is read exactly like a 32-bit `value`.
                Some(src) => crate::site::emit_value(e, d, src, &reg("s", 0), &reg("h", 0))
                    .map_err(|err| match err {
                        Error::Unsupported { what, .. } => SiteErr::Unsupported(what),
                        other => SiteErr::Fail(other.to_string()),
                    }),
                None => Err(SiteErr::Unsupported(
                    "`bytes` of an instruction without a width".into(),
                )),
            }
        }
        SiteValue::Opcode => Err(SiteErr::Fail("no opcode at this site".into())),
        SiteValue::Sectors | SiteValue::Wavefronts | SiteValue::Run => {
            let r = crate::warp_access::register(value).unwrap_or_default();
            e.insf(format_args!("mov.b64 {d}, {r}"));
            Ok(())
        }
    }
}

/// `dst = effective address of a`, widened to 64 bits.
pub(crate) fn addr(
    e: &mut Emitter,
    dst: &str,
    a: &Address,
    reg_bits: &dyn Fn(&str) -> Option<u32>,
) -> Result<(), String> {
    match &a.base {
        AddrBase::Reg(r) => match reg_bits(r) {
            Some(64) => e.insf(format_args!("mov.b64 {dst}, {r}")),
            Some(32) => e.insf(format_args!("cvt.u64.u32 {dst}, {r}")),
            _ => {
                return Err(format!(
                    "address register `{r}` has no known 32/64-bit type"
                ))
            }
        },
        AddrBase::Symbol(s) => e.insf(format_args!("mov.u64 {dst}, {s}")),
        AddrBase::Imm(v) => e.insf(format_args!("mov.b64 {dst}, 0x{:016X}", *v as u64)),
        AddrBase::Complex => return Err("`addr` of a compound address".into()),
    }
    if a.offset != 0 {
        e.insf(format_args!("add.s64 {dst}, {dst}, {}", a.offset));
    }
    Ok(())
}
