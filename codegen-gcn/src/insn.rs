//! What each instruction does, as far as the verifier and attach points need it:
//! registers written and read (implicit `scc`, `vcc`, `exec`, `m0` included), control
//! flow, memory accesses and their space.
//!
//! Destinations are the leading operands: none for stores, compares into `scc`,
//! branches, waits and the like; two for carry-out arithmetic (`v_add_co_u32 v0, vcc,
//! …`); one for atomics only when they return the old value (`glc`, or `sc0` on
//! gfx940+); one otherwise. Every scalar ALU instruction is taken to write `scc` unless
//! it is known not to (moves, selects, `s_mul_i32`, memory, program control) —
//! over-approximating a kernel's writes only makes the checks stricter. Vector
//! instructions (VALU, VMEM, LDS) read `exec` and keep their old value in inactive lanes:
//! the model gives them `exec` as their guard.

use crate::parse::Instruction;
use crate::reg::{Reg, RegFile};
use warptrace_verifier::{Access, Flow, Space};

/// What the facts depend on besides the instruction.
#[derive(Debug, Clone, Copy)]
pub struct Isa {
    /// gfx9 family (gfx90a, gfx942): VOPC writes `vcc`/an SGPR pair named first;
    /// `v_cmpx` writes `vcc` too.
    pub gfx9: bool,
    /// gfx940+: `sc0` on an atomic returns the old value.
    pub gfx940: bool,
    /// Lanes per wave (64 or 32).
    pub wave: u32,
    /// The private segment buffer's SGPRs, when enabled: `buffer_*` through it is
    /// scratch (local) memory.
    pub scratch_rsrc: Option<Reg>,
}

impl Isa {
    /// The ISA facts of processor `gfx…` with `wave` lanes.
    pub fn new(processor: &str, wave: u32, scratch_rsrc: Option<Reg>) -> Isa {
        let gfx9 = processor.starts_with("gfx9");
        let gfx940 = matches!(processor, "gfx940" | "gfx941" | "gfx942" | "gfx950");
        Isa {
            gfx9,
            gfx940,
            wave,
            scratch_rsrc,
        }
    }
}

/// A memory access of an instruction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemAccess {
    /// The space.
    pub space: Space,
    /// Load, store or atomic.
    pub access: Access,
    /// The 64-bit base or 32-bit address register (`v[0:1]`, `v2` for LDS).
    pub addr: Option<Reg>,
    /// The scalar base of `global_*` with `saddr` (the address is `saddr + vaddr`).
    pub saddr: Option<Reg>,
    /// The immediate `offset:N`.
    pub offset: i64,
    /// The data operand (stored value), if any.
    pub data: Option<Reg>,
    /// The destination (loaded or returned value), if any.
    pub dst: Option<Reg>,
    /// The scalar offset and address modes of a `buffer_*` access (its descriptor is
    /// `saddr`, its VGPR address `addr`).
    pub buffer: Option<BufferOperands>,
}

/// What a `buffer_*` instruction adds to its descriptor's base besides the immediate
/// offset: `vdata, vaddr|off, srsrc, soffset [idxen] [offen] [offset:N]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BufferOperands {
    /// The scalar offset: an SGPR (`None` for an inline constant, `soffset_imm`).
    pub soffset: Option<Reg>,
    /// The scalar offset when it is an inline constant.
    pub soffset_imm: i64,
    /// `offen`: the VGPR address (its last register with `idxen`) is a byte offset.
    pub offen: bool,
    /// `idxen`: the VGPR address (its first register) is an index.
    pub idxen: bool,
}

/// The facts of one instruction.
#[derive(Debug, Clone)]
pub struct Facts {
    /// Registers written.
    pub defs: Vec<Reg>,
    /// Registers read.
    pub uses: Vec<Reg>,
    /// Control flow.
    pub flow: Flow,
    /// The branch target label, for branches.
    pub target: Option<String>,
    /// Memory accesses.
    pub mem: Option<MemAccess>,
    /// A vector instruction (runs under `exec`).
    pub vector: bool,
}

/// Scalar instructions that leave `scc` alone.
fn keeps_scc(m: &str) -> bool {
    const PREFIXES: &[&str] = &[
        "s_mov",
        "s_cmov",
        "s_cselect",
        "s_getpc",
        "s_setpc",
        "s_swappc",
        "s_load",
        "s_store",
        "s_buffer",
        "s_scratch",
        "s_memtime",
        "s_memrealtime",
        "s_waitcnt",
        "s_nop",
        "s_barrier",
        "s_branch",
        "s_cbranch",
        "s_endpgm",
        "s_getreg",
        "s_setreg",
        "s_sendmsg",
        "s_sleep",
        "s_dcache",
        "s_icache",
        "s_trap",
        "s_setprio",
        "s_mul_i32",
        "s_mul_hi",
        "s_movrel",
        "s_pack",
        "s_sext",
        "s_sethalt",
        "s_inst_prefetch",
        "s_clause",
        "s_delay_alu",
        "s_set_inst_prefetch",
        "s_code_end",
        "s_denorm_mode",
        "s_round_mode",
        "s_ttracedata",
        "s_call",
        "s_atc_probe",
        "s_wait",
        "s_version",
        "s_incperflevel",
        "s_decperflevel",
        "s_set_gpr_idx",
        "s_bitset",
        "s_brev",
        "s_getreg",
    ];
    PREFIXES.iter().any(|p| m.starts_with(p))
}

/// Instructions with no destination operand.
fn no_dst(m: &str) -> bool {
    const PREFIXES: &[&str] = &[
        "s_nop",
        "s_sleep",
        "s_setprio",
        "s_waitcnt",
        "s_trap",
        "s_sethalt",
        "s_icache",
        "s_dcache",
        "s_branch",
        "s_cbranch",
        "s_sendmsg",
        "s_inst_prefetch",
        "s_clause",
        "s_delay_alu",
        "s_cmp",
        "s_bitcmp",
        "s_setpc",
        "s_setreg",
        "s_endpgm",
        "s_barrier",
        "s_ttracedata",
        "s_set_gpr_idx",
        "s_store",
        "s_buffer_store",
        "s_scratch_store",
        "s_atc_probe",
        "s_denorm_mode",
        "s_round_mode",
        "s_wait",
        "s_set_inst_prefetch",
        "s_code_end",
        "s_incperflevel",
        "s_decperflevel",
        "s_version",
        "buffer_wbl2",
        "buffer_inv",
        "buffer_wbinvl1",
        "buffer_gl",
        "global_store",
        "flat_store",
        "buffer_store",
        "scratch_store",
        "ds_write",
        "ds_store",
        "s_cmpk",
        "exp",
        "v_nop",
        "s_setkill",
        "global_wb",
        "global_inv",
    ];
    PREFIXES.iter().any(|p| m.starts_with(p))
}

/// Vector instructions with a second (scalar) destination: carry-out or a flag.
fn two_dsts(m: &str) -> bool {
    const PREFIXES: &[&str] = &[
        "v_add_co_",
        "v_sub_co_",
        "v_subrev_co_",
        "v_addc_co_",
        "v_subb_co_",
        "v_subbrev_co_",
        "v_add_co_ci_",
        "v_sub_co_ci_",
        "v_subrev_co_ci_",
        "v_div_scale_",
        "v_mad_u64_u32",
        "v_mad_i64_i32",
        "v_mad_co_u64_u32",
        "v_mad_co_i64_i32",
    ];
    PREFIXES.iter().any(|p| m.starts_with(p)) || m == "v_add_i32_e64" || m == "v_sub_i32_e64"
}

/// A vector memory instruction, of any space (LDS's `ds_` included).
pub(crate) fn is_vmem(m: &str) -> bool {
    [
        "global_", "flat_", "buffer_", "scratch_", "ds_", "image_", "tbuffer_",
    ]
    .iter()
    .any(|p| m.starts_with(p))
}

/// The facts of `x`.
pub fn facts(x: &Instruction, isa: &Isa) -> Facts {
    let m = x.mnemonic.as_str();
    let regs: Vec<Option<Reg>> = x.operands.iter().map(|o| o.reg).collect();
    let vector = m.starts_with("v_") || is_vmem(m);
    let mem = memory(x, isa);
    let mut ndst = if x.operands.is_empty() || no_dst(m) {
        0
    } else if two_dsts(m) {
        2
    } else if let Some(a) = &mem {
        usize::from(a.dst.is_some())
    } else if m.starts_with("v_cmpx") {
        usize::from(isa.gfx9 && regs.first().is_some_and(|r| r.is_some_and(is_scalar)))
    } else if m.starts_with("v_cmp") && !isa.gfx9 && m.contains("_e32") {
        // gfx10+ VOPC e32 writes vcc implicitly; the operands are all sources.
        0
    } else {
        1
    };
    ndst = ndst.min(x.operands.len());
    let mut defs: Vec<Reg> = regs[..ndst].iter().flatten().copied().collect();
    let mut uses: Vec<Reg> = regs[ndst..].iter().flatten().copied().collect();
    let exec = Reg::exec(isa.wave);
    let vcc = Reg::vcc(isa.wave);
    if vector {
        uses.push(exec);
    }
    if m.starts_with("s_") && !keeps_scc(m) {
        defs.push(Reg::SCC);
    }
    if m.starts_with("s_cselect")
        || m.starts_with("s_cmov")
        || m.starts_with("s_addc")
        || m.starts_with("s_subb")
        || m.starts_with("s_cbranch_scc")
    {
        uses.push(Reg::SCC);
    }
    if m.contains("saveexec") || m.contains("wrexec") || m.starts_with("v_cmpx") {
        defs.push(exec);
        uses.push(exec);
    }
    if m.starts_with("v_cmp") && !isa.gfx9 && m.contains("_e32") {
        defs.push(vcc);
    }
    if m.starts_with("s_cbranch_vcc") {
        uses.push(vcc);
    }
    if m.starts_with("s_cbranch_exec") {
        uses.push(exec);
    }
    if m.starts_with("v_div_fmas") {
        uses.push(vcc);
    }
    if m.starts_with("s_sendmsg")
        || m.contains("movrel")
        || m.starts_with("ds_gws")
        || x.modifiers.iter().any(|w| w == "lds")
        || m.contains("_load_lds_")
    {
        uses.push(Reg::M0);
    }
    let target = (m.starts_with("s_branch") || m.starts_with("s_cbranch"))
        .then(|| x.operands.first().map(|o| o.text.clone()))
        .flatten();
    let flow = if m == "s_branch" {
        Flow::Branch {
            target: target.clone().unwrap_or_default().into(),
            conditional: false,
        }
    } else if m.starts_with("s_cbranch") {
        Flow::Branch {
            target: target.clone().unwrap_or_default().into(),
            conditional: true,
        }
    } else if m.starts_with("s_endpgm") || m.starts_with("s_setpc") {
        Flow::Exit
    } else if m.starts_with("s_swappc") || m.starts_with("s_call") {
        Flow::Call
    } else if m.starts_with("s_trap") || m.starts_with("s_sethalt") {
        Flow::Trap
    } else if m == "s_barrier" || m.starts_with("s_barrier_") {
        Flow::Barrier
    } else if m.starts_with("v_readlane")
        // Cross-lane operations that name other lanes. `v_readfirstlane` is not one: it
        // reads the first lane of `exec`, an active lane by definition (lane 0 when `exec`
        // is empty), so no inactive lane's value can reach the result.
        || m.starts_with("v_writelane")
        || m.starts_with("ds_swizzle")
        || m.starts_with("ds_permute")
        || m.starts_with("ds_bpermute")
        || m.contains("_dpp")
        || m.starts_with("v_permlane")
    {
        Flow::WarpCollective
    } else {
        Flow::Next
    };
    defs.dedup();
    uses.dedup();
    Facts {
        defs,
        uses,
        flow,
        target,
        mem,
        vector,
    }
}

fn is_scalar(r: Reg) -> bool {
    !matches!(r.file, RegFile::Vgpr | RegFile::Agpr)
}

/// The immediate `offset:N` modifier.
fn offset_of(x: &Instruction) -> i64 {
    x.modifiers
        .iter()
        .find_map(|w| w.strip_prefix("offset:"))
        .and_then(crate::parse::parse_int)
        .unwrap_or(0)
}

/// The memory access of `x`, if it is a memory instruction (scalar loads are
/// `Space::Const`: they read through the scalar cache, e.g. the kernarg segment).
pub fn memory(x: &Instruction, isa: &Isa) -> Option<MemAccess> {
    let m = x.mnemonic.as_str();
    let op = |i: usize| x.operands.get(i).and_then(|o| o.reg);
    let returns = x.modifiers.iter().any(|w| w == "glc")
        || (isa.gfx940 && x.modifiers.iter().any(|w| w == "sc0"));
    let access = if m.contains("_atomic") {
        Access::Atomic
    } else if m.contains("_load") || m.starts_with("ds_read") {
        Access::Load
    } else if m.contains("_store") || m.starts_with("ds_write") {
        Access::Store
    } else if m.starts_with("ds_")
        && !m.starts_with("ds_swizzle")
        && !m.starts_with("ds_permute")
        && !m.starts_with("ds_bpermute")
        && !m.starts_with("ds_nop")
    {
        Access::Atomic
    } else {
        return None;
    };
    let mut a = MemAccess {
        space: Space::Global,
        access,
        addr: None,
        saddr: None,
        offset: offset_of(x),
        data: None,
        dst: None,
        buffer: None,
    };
    // A load into LDS (`global_load_lds_dword`, `buffer_load_dword … lds`): the data goes
    // to LDS at `m0`, so there is no destination and the operands start at the address.
    let into_lds = m.contains("_load_lds_") || x.modifiers.iter().any(|w| w == "lds");
    if into_lds && (m.starts_with("global_") || m.starts_with("scratch_")) {
        a.space = if m.starts_with("global_") {
            Space::Global
        } else {
            Space::Local
        };
        a.addr = op(0);
        a.saddr = x
            .operands
            .last()
            .and_then(|o| o.reg)
            .filter(|r| is_scalar(*r) && x.operands.len() > 1);
        return Some(a);
    }
    if m.starts_with("global_") || m.starts_with("flat_") || m.starts_with("scratch_") {
        a.space = if m.starts_with("global_") {
            Space::Global
        } else if m.starts_with("flat_") {
            Space::Generic
        } else {
            Space::Local
        };
        // [vdst,] vaddr, [vdata,] saddr|off
        let (dst, rest) = match access {
            Access::Load => (true, 0),
            Access::Store => (false, 0),
            Access::Atomic => (returns, 0),
        };
        let base = usize::from(dst) + rest;
        a.dst = if dst { op(0) } else { None };
        a.addr = op(base);
        if access != Access::Load {
            a.data = op(base + 1);
        }
        let last = x.operands.len().checked_sub(1)?;
        if !m.starts_with("flat_") && last > base {
            a.saddr = op(last).filter(|r| is_scalar(*r));
        }
        if m.starts_with("scratch_") && x.operands.get(base).is_some_and(|o| o.text == "off") {
            a.addr = None;
        }
        return Some(a);
    }
    if m.starts_with("buffer_") {
        // [vdst|vdata,] vaddr|off, srsrc, soffset
        let first_is_data = !m.starts_with("buffer_wb") && !m.starts_with("buffer_inv");
        if !first_is_data {
            return None;
        }
        // An LDS load has no data operand: `vaddr|off, srsrc, soffset`.
        let first = usize::from(!into_lds);
        match access {
            _ if into_lds => {}
            Access::Load => a.dst = op(0),
            Access::Store => a.data = op(0),
            Access::Atomic => {
                a.data = op(0);
                a.dst = if returns { op(0) } else { None };
            }
        }
        a.addr = op(first);
        let rsrc = op(first + 1);
        a.space = match (rsrc, isa.scratch_rsrc) {
            (Some(r), Some(s)) if r.overlaps(&s) => Space::Local,
            _ => Space::Global,
        };
        a.saddr = rsrc;
        let soffset = x.operands.get(first + 2);
        let flag = |f: &str| x.modifiers.iter().any(|w| w == f);
        a.buffer = Some(BufferOperands {
            soffset: soffset.and_then(|o| o.reg),
            soffset_imm: soffset.and_then(|o| o.imm).unwrap_or(0),
            offen: flag("offen"),
            idxen: flag("idxen"),
        });
        return Some(a);
    }
    if m.starts_with("ds_") {
        a.space = Space::Shared;
        let rtn = m.contains("_rtn")
            || m.starts_with("ds_read")
            || m.starts_with("ds_load")
            || m.starts_with("ds_append")
            || m.starts_with("ds_consume");
        let base = usize::from(rtn);
        a.dst = if rtn { op(0) } else { None };
        a.addr = op(base);
        a.data = op(base + 1);
        return Some(a);
    }
    if m.starts_with("s_load") || m.starts_with("s_buffer_load") || m.starts_with("s_scratch") {
        a.space = Space::Const;
        a.dst = op(0);
        a.addr = op(1);
        a.offset = x.operands.get(2).and_then(|o| o.imm).unwrap_or(0);
        return Some(a);
    }
    None
}

/// Bytes one lane accesses: the data (store, atomic) or destination (load) width.
pub fn access_bytes(a: &MemAccess) -> Option<u32> {
    let r = match a.access {
        Access::Load => a.dst,
        _ => a.data,
    }?;
    Some(4 * r.count)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::{parse, StmtKind};

    fn one(text: &str, isa: &Isa) -> Facts {
        let m = parse(&format!("\t{text}\n")).expect("parses");
        match &m.stmts[0].kind {
            StmtKind::Instr(x) => facts(x, isa),
            other => panic!("{other:?}"),
        }
    }

    fn names(r: &[Reg]) -> Vec<String> {
        r.iter().map(Reg::name).collect()
    }

    #[test]
    fn implicit_and_explicit_registers() {
        let isa = Isa::new("gfx942", 64, None);
        let f = one("s_and_saveexec_b64 s[2:3], vcc", &isa);
        assert_eq!(names(&f.defs), ["s[2:3]", "scc", "exec"]);
        assert_eq!(names(&f.uses), ["vcc", "exec"]);
        let f = one("v_add_co_u32_e32 v0, vcc, s1, v0", &isa);
        assert_eq!(names(&f.defs), ["v0", "vcc"]);
        assert!(f.vector && names(&f.uses).contains(&"exec".to_owned()));
        let f = one("s_addc_u32 s43, s39, 0", &isa);
        assert_eq!(names(&f.defs), ["s43", "scc"]);
        assert!(names(&f.uses).contains(&"scc".to_owned()));
        let f = one("s_cselect_b32 s4, -1, 0", &isa);
        assert_eq!(names(&f.defs), ["s4"]);
        assert_eq!(
            one("s_cbranch_execz .LBB0_3", &isa).target.as_deref(),
            Some(".LBB0_3")
        );
    }

    #[test]
    fn memory_accesses_and_their_operands() {
        let isa = Isa::new("gfx942", 64, None);
        // Returning atomic (sc0 on gfx940+), saddr form.
        let a = one(
            "global_atomic_add_x2 v[2:3], v3, v[2:3], s[4:5] sc0 sc1",
            &isa,
        )
        .mem
        .expect("memory");
        assert_eq!((a.space, a.access), (Space::Global, Access::Atomic));
        assert_eq!(a.dst.map(|r| r.name()).as_deref(), Some("v[2:3]"));
        assert_eq!(a.saddr.map(|r| r.name()).as_deref(), Some("s[4:5]"));
        // Not returning on gfx90a without glc.
        let gfx90a = Isa::new("gfx90a", 64, Some(Reg::new(RegFile::Sgpr, 0, 4)));
        let a = one("global_atomic_add v2, v0, s[10:11]", &gfx90a)
            .mem
            .expect("memory");
        assert_eq!(a.dst, None);
        let a = one("buffer_store_dword v1, off, s[0:3], 0 offset:4", &gfx90a)
            .mem
            .expect("memory");
        assert_eq!((a.space, a.offset), (Space::Local, 4));
        assert_eq!(
            a.buffer,
            Some(BufferOperands {
                soffset: None,
                soffset_imm: 0,
                offen: false,
                idxen: false
            })
        );
        // A global buffer access: descriptor, VGPR offset, scalar offset, immediate.
        let a = one(
            "buffer_store_dword v1, v0, s[8:11], s4 offen offset:16",
            &gfx90a,
        )
        .mem
        .expect("memory");
        assert_eq!((a.space, a.offset), (Space::Global, 16));
        assert_eq!(a.saddr.map(|r| r.name()).as_deref(), Some("s[8:11]"));
        assert_eq!(a.addr.map(|r| r.name()).as_deref(), Some("v0"));
        let b = a.buffer.expect("buffer operands");
        assert_eq!(b.soffset.map(|r| r.name()).as_deref(), Some("s4"));
        assert!(b.offen && !b.idxen);
        let b = one(
            "buffer_load_dword v1, v[2:3], s[8:11], 12 idxen offen",
            &isa,
        )
        .mem
        .and_then(|a| a.buffer)
        .expect("buffer operands");
        assert_eq!(
            (b.soffset, b.soffset_imm, b.idxen, b.offen),
            (None, 12, true, true)
        );
        // Loads into LDS (at m0): no destination, the operands start at the address.
        for text in [
            "buffer_load_dword v1, s[8:11], s0 offen lds",
            "global_load_lds_dword v1, s[2:3] offset:16",
        ] {
            let f = one(text, &isa);
            let a = f.mem.expect("memory");
            assert_eq!(
                (a.space, a.access, a.dst),
                (Space::Global, Access::Load, None)
            );
            assert_eq!(a.addr.map(|r| r.name()).as_deref(), Some("v1"), "{text}");
            assert!(f.defs.is_empty(), "{text}: {:?}", f.defs);
            assert!(f.uses.contains(&Reg::M0) && f.uses.iter().any(|r| r.name() == "v1"));
        }
        let a = one("buffer_load_dword v1, s[8:11], s0 offen lds", &isa).mem;
        let b = a.as_ref().and_then(|a| a.buffer).expect("buffer operands");
        assert_eq!(b.soffset.map(|r| r.name()).as_deref(), Some("s0"));
        assert_eq!(
            a.and_then(|a| a.saddr).map(|r| r.name()).as_deref(),
            Some("s[8:11]")
        );
        let a = one("global_load_lds_dword v1, s[2:3] offset:16", &isa).mem;
        assert_eq!(
            a.and_then(|a| a.saddr).map(|r| r.name()).as_deref(),
            Some("s[2:3]")
        );
        let a = one("ds_add_u32 v1, v3", &isa).mem.expect("memory");
        assert_eq!((a.space, a.access), (Space::Shared, Access::Atomic));
        let a = one("flat_load_dword v3, v[4:5]", &isa).mem.expect("memory");
        assert_eq!(a.space, Space::Generic);
        assert!(one("s_load_dwordx2 s[2:3], s[0:1], 0x0", &isa)
            .mem
            .is_some_and(|a| a.space == Space::Const && a.offset == 0));
    }
}
