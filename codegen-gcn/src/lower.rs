//! IR → GCN snippet, in probe-private registers (`alloc.rs`).
//!
//! Every IR register is a VGPR pair (one 64-bit value per lane). Probe control flow is a
//! DAG; lanes take different paths, so branches are lowered to lane masks, not jumps:
//! the lanes that take `jz`/`jnz`/`ja` to instruction `t` leave `exec` and are collected
//! in `t`'s pending mask (an SGPR pair in wave64, one SGPR in wave32), which is or-ed
//! back into `exec` at `t`; `exit` clears `exec`. Every vector instruction then runs for
//! exactly the lanes the IR's control flow reaches it with. Immediates are materialised
//! with `v_mov_b32` (gfx9's VOP3 encodings take no literal).
//!
//! `warp` probes: every lane computes; map updates, ring appends, `printf` and array
//! records are done by the first active lane at the site only — its bit, taken from
//! `exec` when the snippet starts (`s_ff1`), is and-ed into `exec` around each of them
//! (array saves advance every lane's cursor, as `docs/ir.md` says).

use crate::alloc::Alloc;
use crate::combine::{self, Combining};
use crate::emit::{Emitter, Target};
use crate::insn::MemAccess;
use crate::loops::Lanes;
use crate::reg::Reg;
use crate::{alu, array, hashmap, ring, special, Error};
use std::collections::BTreeMap;
use warptrace_ir::fold::{self, SiteConsts};
use warptrace_ir::placement::HomeSlots;
use warptrace_ir::{
    Aggregation, Granularity, Insn, MapKind, MapLayout, Operand, Probe, Program, SiteValue,
    Special, ValueKind,
};

/// Prefix of probe labels.
pub(crate) const PREFIX: &str = "__wt_";

/// Pending masks one snippet may use (one per distinct forward jump target).
const MASKS: usize = 8;

/// A value the prologue loaded from a hidden kernel argument: bits `shift..shift+bits`
/// of an SGPR (`docs/gcn.md`, "Grid values").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Field {
    pub reg: Reg,
    pub shift: u32,
    pub bits: u32,
}

/// The block size (`ntid`) and block counts (`nctaid`) the prologue loaded.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct GridFields {
    pub ntid: [Option<Field>; 3],
    pub nctaid: [Option<Field>; 3],
}

/// The probe registers of one kernel.
#[derive(Debug, Clone)]
pub(crate) struct KernelRegs {
    /// The map buffer's address (SGPR pair), loaded by the prologue.
    pub base: Reg,
    /// `exec` at launch (for `kernel:exit`, where `exec` may be zero); allocated only
    /// when the program has a `kernel:exit` probe.
    pub launch_exec: Reg,
    /// Saved `exec`, `vcc`, `scc` of the kernel.
    pub save_exec: Reg,
    pub save_vcc: Reg,
    pub save_scc: Reg,
    /// A scalar temporary.
    pub st: Reg,
    /// Lane masks of map operations: lanes still probing, lanes that claimed, lanes
    /// that hit; a compare result; `exec` at the operation.
    pub pend: Reg,
    pub claim: Reg,
    pub hit: Reg,
    pub cmp: Reg,
    pub upd_exec: Reg,
    /// Pending masks of forward jump targets.
    pub masks: Vec<Reg>,
    /// `warp` probes: the first active lane's bit, and `exec` around a leader's map
    /// operation.
    pub lead: Option<Reg>,
    pub wexec: Option<Reg>,
    /// Saved workitem ids (`v0` at launch) and workgroup ids.
    pub tid: Option<Reg>,
    pub ctaid: [Option<Reg>; 3],
    /// Vector temporaries: three pairs, a 32-bit offset, the constant 1, a quad of
    /// compare-and-swap data, the returned old value.
    pub ta: Reg,
    pub tb: Reg,
    pub tc: Reg,
    pub off: Reg,
    pub one: Reg,
    pub data: Reg,
    pub old: Reg,
    /// `hist`/`lhist` updates: the bucket's byte offset in the value.
    pub bucket: Option<Reg>,
    /// IR registers and persistent registers.
    pub ir: Vec<Reg>,
    pub persist: Vec<Reg>,
}

/// What the program needs from a kernel's launch state, and how many jump masks.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Needs {
    pub tid: bool,
    pub ctaid: [bool; 3],
    /// Hidden arguments: the block size and the block counts per dimension.
    pub ntid: [bool; 3],
    pub nctaid: [bool; 3],
    /// A `kernel:exit` probe (the launch's `exec` is kept).
    pub exit: bool,
    /// The most distinct forward jump targets of one probe.
    pub masks: usize,
    /// A `warp` probe that writes a map.
    pub warp: bool,
    /// A `hist` or `lhist` update.
    pub bucket: bool,
}

impl Needs {
    /// The needs of `probes` (those that run in the kernel) in a kernel whose hardware
    /// provides `workitem_dims + 1` work-item ids and the workgroup ids `ctaid_enabled`.
    pub fn of<'a>(
        probes: impl IntoIterator<Item = &'a Probe>,
        workitem_dims: u32,
        ctaid_enabled: [bool; 3],
    ) -> Needs {
        let mut n = Needs::default();
        // The linear work-item index: tid.x + ntid.x * (tid.y + ntid.y * tid.z), over
        // the dimensions the hardware provides (the others read 0).
        let linear_tid = |n: &mut Needs| {
            n.tid = true;
            n.ntid[0] |= workitem_dims >= 1;
            n.ntid[1] |= workitem_dims >= 2;
        };
        let linear_block = |n: &mut Needs| {
            n.ctaid = [true; 3];
            n.nctaid[0] = true;
            n.nctaid[1] = true;
        };
        for p in probes {
            n.exit |= p.attach.point == warptrace_ir::AttachPoint::KernelExit;
            n.warp |=
                p.attach.granularity == Granularity::Warp && p.insns.iter().any(Insn::writes_maps);
            let mut targets: Vec<u32> = p.insns.iter().filter_map(Insn::target).collect();
            targets.sort_unstable();
            targets.dedup();
            n.masks = n.masks.max(targets.len());
            for i in &p.insns {
                match i {
                    Insn::ReadSpecial { special, .. } => match special {
                        Special::TidX | Special::TidY | Special::TidZ => n.tid = true,
                        Special::CtaidX => n.ctaid[0] = true,
                        Special::CtaidY => n.ctaid[1] = true,
                        Special::CtaidZ => n.ctaid[2] = true,
                        Special::NtidX => n.ntid[0] = true,
                        Special::NtidY => n.ntid[1] = true,
                        Special::NtidZ => n.ntid[2] = true,
                        Special::NctaidX => n.nctaid[0] = true,
                        Special::NctaidY => n.nctaid[1] = true,
                        Special::NctaidZ => n.nctaid[2] = true,
                        Special::Warp => linear_tid(&mut n),
                        Special::Block => linear_block(&mut n),
                        Special::Thread => {
                            linear_tid(&mut n);
                            linear_block(&mut n);
                            n.ntid = [true; 3];
                        }
                        _ => {}
                    },
                    Insn::MapUpdate {
                        agg: Aggregation::Hist(_) | Aggregation::Lhist(_),
                        ..
                    } => n.bucket = true,
                    Insn::ArraySave { .. } => {
                        // Rows and blocks of the record, and the checks that the
                        // dimensions the hardware gives no id for have size 1.
                        linear_tid(&mut n);
                        n.ntid = [true; 3];
                        n.nctaid = [true; 3];
                        for (c, enabled) in n.ctaid.iter_mut().zip(ctaid_enabled) {
                            *c |= enabled;
                        }
                    }
                    _ => {}
                }
            }
        }
        n
    }
}

impl KernelRegs {
    /// Allocates the registers `program` needs, lane masks `mask` SGPRs wide.
    pub fn allocate(a: &mut Alloc, program: &Program, needs: Needs, t: Target) -> KernelRegs {
        let ir_count = program
            .probes
            .iter()
            .flat_map(|p| p.insns.iter().filter_map(Insn::def))
            .map(|r| usize::from(r.0) + 1)
            .max()
            .unwrap_or(0);
        let m = t.mask_sgprs();
        KernelRegs {
            base: a.sgprs(2),
            launch_exec: if needs.exit { a.sgprs(m) } else { Reg::s(0) },
            save_exec: a.sgprs(m),
            save_vcc: a.sgprs(m),
            pend: a.sgprs(m),
            claim: a.sgprs(m),
            hit: a.sgprs(m),
            cmp: a.sgprs(2),
            upd_exec: a.sgprs(m),
            masks: (0..needs.masks.min(MASKS)).map(|_| a.sgprs(m)).collect(),
            lead: needs.warp.then(|| a.sgprs(m)),
            wexec: needs.warp.then(|| a.sgprs(m)),
            save_scc: a.sgprs(1),
            st: a.sgprs(1),
            ctaid: needs.ctaid.map(|n| n.then(|| a.sgprs(1))),
            data: a.vgprs(4),
            ta: a.vgprs(2),
            tb: a.vgprs(2),
            tc: a.vgprs(2),
            one: a.vgprs(2),
            old: a.vgprs(2),
            ir: (0..ir_count).map(|_| a.vgprs(2)).collect(),
            persist: program.persistent.iter().map(|_| a.vgprs(2)).collect(),
            off: a.vgprs(1),
            tid: needs.tid.then(|| a.vgprs(1)),
            bucket: needs.bucket.then(|| a.vgprs(1)),
        }
    }

    /// The compare mask as wide as a lane mask (`cmp` is a pair, so that 64-bit scalar
    /// reads like `s_memtime` fit; wave32 masks use its low half).
    pub fn cmp_mask(&self, t: Target) -> Reg {
        Reg::new(self.cmp.file, self.cmp.first, t.mask_sgprs())
    }
}

/// What a snippet knows about its site.
#[derive(Debug, Clone, Default)]
pub(crate) struct SiteInfo {
    pub pc: u64,
    pub file: u64,
    pub line: u64,
    pub opcode: Option<u64>,
    pub bytes: Option<u64>,
    pub mem: Option<MemAccess>,
    /// The mnemonic of the probed instruction (for `value`'s element width).
    pub mnemonic: Option<String>,
    /// The probe runs after the instruction.
    pub after: bool,
    /// The site is a `kernel:exit` (`exec` is set to the launch's first).
    pub exit: bool,
    /// A loop edge's lanes: the snippet narrows `exec` to them first.
    pub lanes: Option<Lanes>,
    /// `pc`, `file` and `line` are defined: an instruction's, or a loop's.
    pub located: bool,
}

/// Everything lowering reads.
#[derive(Debug)]
pub(crate) struct Cx<'a> {
    pub program: &'a Program,
    pub layout: &'a MapLayout,
    pub t: Target,
    pub regs: &'a KernelRegs,
    pub kernel_id: u64,
    /// `.amdhsa_system_vgpr_workitem_id`: 0 (x), 1 (x, y) or 2 (x, y, z).
    pub workitem_dims: u32,
    /// The grid values of the hidden arguments the prologue loaded.
    pub grid: GridFields,
    /// Work-item ids y and z are packed into `v0` (gfx90a, gfx940+, gfx11+).
    pub packed_tid: bool,
    /// Which hash maps this kernel's launches update in home slots only (decision 0013,
    /// `warptrace_ir::placement`).
    pub home: &'a HomeSlots,
    /// Which hash updates (and whether ring cursors) are combined within the wave
    /// (`combine.rs`), in effect.
    pub combining: Combining,
}

/// What a site makes known at compile time ([`fold::constants`]): the kernel's id, the
/// site's `pc`, `file` and `line` where it has them, its `opcode` and `bytes` — exactly
/// the immediates [`crate::special`] emits for them, so that a key folded here is the
/// value the snippet would compute.
pub(crate) struct SiteConstants<'a> {
    pub kernel_id: u64,
    pub site: &'a SiteInfo,
}

impl SiteConsts for SiteConstants<'_> {
    fn special(&self, sp: Special) -> Option<u64> {
        match sp {
            Special::KernelId => Some(self.kernel_id),
            Special::Pc if self.site.located => Some(self.site.pc),
            Special::File if self.site.located => Some(self.site.file),
            Special::Line if self.site.located => Some(self.site.line),
            _ => None,
        }
    }

    fn site(&self, v: SiteValue) -> Option<u64> {
        match v {
            SiteValue::Opcode => self.site.opcode,
            SiteValue::Bytes => self.site.bytes,
            _ => None,
        }
    }
}

/// [`Error::Unsupported`] of `what`.
pub(crate) fn unsupported(what: impl Into<String>) -> Error {
    Error::Unsupported {
        target: crate::TARGET,
        what: what.into(),
    }
}

/// Lowers one probe at one site into a complete snippet (saves, body, restores) with the
/// wait states its hazards need.
pub(crate) fn snippet(
    cx: &Cx<'_>,
    probe: &Probe,
    site: &SiteInfo,
    labels: &str,
) -> Result<String, Error> {
    let text = unpadded(cx, probe, site, labels)?;
    crate::hazard::pad(&text, &hazard_frame(cx), cx.t.gfx11)
}

/// What the hazard analysis of a snippet in `cx` needs: the target, and the kernel's
/// registers, which lie below the probe's first ones.
pub(crate) fn hazard_frame(cx: &Cx<'_>) -> crate::hazard::Frame {
    crate::hazard::Frame {
        isa: crate::insn::Isa {
            gfx9: cx.t.gfx9,
            gfx940: cx.t.gfx940,
            wave: cx.t.wave,
            scratch_rsrc: None,
        },
        kernel_sgprs: cx.regs.base.first,
        kernel_vgprs: cx.regs.data.first,
        clauses: true,
    }
}

/// [`snippet`] without the wait states.
pub(crate) fn unpadded(
    cx: &Cx<'_>,
    probe: &Probe,
    site: &SiteInfo,
    labels: &str,
) -> Result<String, Error> {
    let r = cx.regs;
    let exec = cx.t.exec();
    let mut e = Emitter::new(cx.t);
    e.ins(format!("s_cselect_b32 {}, -1, 0", r.save_scc.name()));
    e.smov(&r.save_vcc.name(), cx.t.vcc());
    e.smov(&r.save_exec.name(), exec);
    if site.exit {
        e.smov(exec, &r.launch_exec.name());
    }
    if let Some(lanes) = site.lanes {
        narrow(cx, &mut e, lanes);
    }
    let warp =
        probe.attach.granularity == Granularity::Warp && probe.insns.iter().any(Insn::writes_maps);
    if warp {
        // The first active lane.
        let lead = r.lead.ok_or_else(|| unsupported("warp leader register"))?;
        e.first_lane(&lead.name(), &r.st.name());
    }
    body(cx, probe, site, labels, warp, &mut e)?;
    if e.memory {
        e.wait_memory();
    }
    e.smov(exec, &r.save_exec.name());
    e.smov(cx.t.vcc(), &r.save_vcc.name());
    e.ins(format!("s_cmp_lg_u32 {}, 0", r.save_scc.name()));
    Ok(e.text)
}

/// Narrows `exec` to a loop edge's lanes. `scc` and `vcc` are still the kernel's here:
/// the saves before only read them.
fn narrow(cx: &Cx<'_>, e: &mut Emitter, lanes: Lanes) {
    let exec = cx.t.exec();
    let select = |e: &mut Emitter, when_set: bool| {
        let (a, b) = if when_set { (exec, "0") } else { ("0", exec) };
        e.smask("s_cselect", exec, a, b);
    };
    match lanes {
        Lanes::Keep(x) => e.smask("s_and", exec, exec, &x.name()),
        Lanes::Drop(x) => e.smask("s_andn2", exec, exec, &x.name()),
        Lanes::Returned(d) => e.smask("s_andn2", exec, &d.name(), exec),
        Lanes::Scc(set) => select(e, set),
        Lanes::VccZero(zero) => {
            let cmp = if cx.t.wave == 64 {
                "s_cmp_eq_u64"
            } else {
                "s_cmp_eq_u32"
            };
            e.ins(format!("{cmp} {}, 0", cx.t.vcc()));
            select(e, zero);
        }
    }
}

/// An operand in a VGPR pair: a register's own pair, or an immediate in `tmp`.
pub(crate) fn src(cx: &Cx<'_>, e: &mut Emitter, op: &Operand, tmp: Reg) -> Result<Reg, Error> {
    match op {
        Operand::Reg(x) => ir_reg(cx, x.0),
        Operand::Imm(v) => {
            e.imm64(tmp, *v as u64);
            Ok(tmp)
        }
    }
}

/// The VGPR pair of IR register `n`.
pub(crate) fn ir_reg(cx: &Cx<'_>, n: u16) -> Result<Reg, Error> {
    cx.regs
        .ir
        .get(usize::from(n))
        .copied()
        .ok_or_else(|| unsupported(format!("IR register r{n}")))
}

fn persist(cx: &Cx<'_>, slot: u32) -> Result<Reg, Error> {
    cx.regs
        .persist
        .get(slot as usize)
        .copied()
        .ok_or_else(|| unsupported("persistent register"))
}

/// The map `id`'s declaration and region, the buffer's fixed part addressable with
/// 32-bit offsets.
pub(crate) fn map_of<'a>(
    cx: &Cx<'a>,
    id: u32,
) -> Result<(&'a warptrace_ir::MapDecl, &'a warptrace_ir::MapRegion), Error> {
    if cx.layout.total_bytes >= 1 << 31 {
        return Err(unsupported("a map buffer of 2 GiB or more"));
    }
    let decl = cx
        .program
        .maps
        .get(id as usize)
        .ok_or_else(|| unsupported("map"))?;
    let region = cx
        .layout
        .regions
        .get(id as usize)
        .ok_or_else(|| unsupported("map"))?;
    Ok((decl, region))
}

fn body(
    cx: &Cx<'_>,
    probe: &Probe,
    site: &SiteInfo,
    labels: &str,
    warp: bool,
    e: &mut Emitter,
) -> Result<(), Error> {
    let r = cx.regs;
    let exec = cx.t.exec();
    // Keys known at compile time here (`[kernel]`, `[kernel, pc]`) fold into the tag.
    let known = fold::constants(
        &probe.insns,
        &SiteConstants {
            kernel_id: cx.kernel_id,
            site,
        },
    );
    // Updates the wave's lanes do once, by their leader (decision 0036).
    let plans = combine::plans(probe, cx.combining);
    // Pending masks by target instruction.
    let mut pending: BTreeMap<u32, Reg> = BTreeMap::new();
    for insn in &probe.insns {
        if let Some(t) = insn.target() {
            if !pending.contains_key(&t) {
                let m = *r.masks.get(pending.len()).ok_or_else(|| {
                    unsupported(format!("more than {MASKS} jump targets in a probe"))
                })?;
                pending.insert(t, m);
            }
        }
    }
    for m in pending.values() {
        e.smov(&m.name(), "0");
    }
    for (i, insn) in probe.insns.iter().enumerate() {
        if let Some(m) = pending.get(&(i as u32)) {
            e.smask("s_or", exec, exec, &m.name());
        }
        // A `warp` probe's map operations run in the leader's lane only (array saves
        // restrict themselves: every lane advances its cursor).
        let leader_only = warp && insn.writes_maps() && !matches!(insn, Insn::ArraySave { .. });
        let (lead, wexec) = (r.lead, r.wexec);
        if leader_only {
            let (Some(lead), Some(w)) = (lead, wexec) else {
                return Err(unsupported("warp leader register"));
            };
            e.smov(&w.name(), exec);
            e.smask("s_and", exec, exec, &lead.name());
        }
        let labels = format!("{labels}_{i}");
        match insn {
            Insn::Mov { dst, src: s } => {
                let d = ir_reg(cx, dst.0)?;
                let s = src(cx, e, s, r.ta)?;
                e.mov64(d, s);
            }
            Insn::Bin {
                op,
                width,
                dst,
                a,
                b,
            } => alu::bin(cx, e, *op, *width, ir_reg(cx, dst.0)?, a, b, &labels)?,
            Insn::Ext {
                dst,
                src: s,
                from,
                signed,
            } => alu::ext(cx, e, ir_reg(cx, dst.0)?, s, *from, *signed)?,
            Insn::ReadSpecial { dst, special } => {
                special::read_special(cx, e, ir_reg(cx, dst.0)?, *special, site)?
            }
            Insn::ReadSite { dst, value } => {
                special::read_site(cx, e, ir_reg(cx, dst.0)?, *value, site, &labels)?
            }
            Insn::LoadPersist { dst, slot } => {
                let p = persist(cx, slot.0)?;
                e.mov64(ir_reg(cx, dst.0)?, p);
            }
            Insn::StorePersist { slot, src: s } => {
                let p = persist(cx, slot.0)?;
                let s = src(cx, e, s, r.ta)?;
                e.mov64(p, s);
            }
            Insn::Branch {
                cond,
                if_zero,
                target,
            } => {
                let c = ir_reg(cx, cond.0)?;
                let cmp = r.cmp_mask(cx.t).name();
                e.ins(format!("v_cmp_ne_u64_e64 {cmp}, 0, {}", c.name()));
                if *if_zero {
                    e.smask("s_andn2", &cmp, exec, &cmp);
                }
                let m = pending[target].name();
                e.smask("s_or", &m, &m, &cmp);
                e.smask("s_andn2", exec, exec, &cmp);
            }
            Insn::Jump { target } => {
                let m = pending[target].name();
                e.smask("s_or", &m, &m, exec);
                e.smov(exec, "0");
            }
            Insn::Exit => e.smov(exec, "0"),
            Insn::MapUpdate { map, keys, agg } => {
                let (decl, region) = map_of(cx, map.0)?;
                if !matches!(decl.kind, MapKind::Hash { .. }) {
                    return Err(unsupported(format!(
                        "map.update of `@{}`, not a hash map",
                        decl.name
                    )));
                }
                // All keys known: the tag and its slots are constants. (Some of them known
                // is no gain: the tag is computed either way.)
                let folded: Vec<Operand> = keys.iter().map(|k| fold::resolve(k, &known)).collect();
                let keys = match folded.iter().all(|k| matches!(k, Operand::Imm(_))) {
                    true => folded,
                    false => keys.clone(),
                };
                let probing = cx.home.probing(map.0);
                let plan = plans[i];
                hashmap::update(
                    cx,
                    e,
                    region,
                    &keys,
                    *agg,
                    &decl.value,
                    probing,
                    plan,
                    &labels,
                )?;
            }
            Insn::RingAppend { map, fields } => {
                let (decl, region) = map_of(cx, map.0)?;
                if !matches!(decl.kind, MapKind::Ring { .. })
                    || fields.len() != region.value_words as usize
                {
                    return Err(unsupported(format!("map.append to `@{}`", decl.name)));
                }
                ring::append(cx, e, region, fields)?;
            }
            Insn::Printf { format, args } => {
                let ring_id = cx
                    .program
                    .printf_ring()
                    .ok_or_else(|| unsupported("printf without a printf ring"))?;
                let (decl, region) = map_of(cx, ring_id.0)?;
                let ValueKind::Printf { args: width } = decl.value else {
                    return Err(unsupported("the printf ring has no printf records"));
                };
                if args.len() > width as usize {
                    return Err(unsupported(
                        "printf with more arguments than the ring holds",
                    ));
                }
                let mut fields = vec![Operand::Imm(i64::from(format.0))];
                fields.extend(args.iter().copied());
                fields.resize(1 + width as usize, Operand::Imm(0));
                ring::append(cx, e, region, &fields)?;
            }
            Insn::ArraySave {
                map,
                cursor,
                fields,
            } => {
                let (decl, region) = map_of(cx, map.0)?;
                if !matches!(decl.kind, MapKind::Array { .. })
                    || fields.len() != region.value_words as usize
                {
                    return Err(unsupported(format!("map.save to `@{}`", decl.name)));
                }
                let lead = if warp { r.lead } else { None };
                array::save(cx, e, region, persist(cx, cursor.0)?, fields, lead, &labels)?;
            }
            Insn::Print { .. }
            | Insn::Clear { .. }
            | Insn::Zero { .. }
            | Insn::Delete { .. }
            | Insn::StopTracing => return Err(unsupported("host operation in a device probe")),
        }
        if leader_only {
            if let Some(w) = wexec {
                e.smov(exec, &w.name());
            }
        }
    }
    Ok(())
}
