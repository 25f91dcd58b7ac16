//! `sreg NAME` and `site NAME`: special values and the probed instruction's operands, per
//! `docs/ir.md`'s tables, as `docs/gcn.md` maps them to GCN.

use crate::emit::{hi, lo, Emitter};
use crate::lower::{unsupported, Cx, Field, SiteInfo};
use crate::reg::{Reg, RegFile};
use crate::Error;
use warptrace_ir::{SiteValue, Special};
use warptrace_verifier::{Access, Space};

/// `dst = f` (a 32-bit VGPR) from the SGPR the prologue loaded the hidden argument into.
pub(crate) fn field(e: &mut Emitter, dst: &str, f: Field) {
    if f.shift == 0 && f.bits == 32 {
        e.ins(format!("v_mov_b32_e32 {dst}, {}", f.reg.name()));
    } else {
        e.ins(format!(
            "v_bfe_u32 {dst}, {}, {}, {}",
            f.reg.name(),
            f.shift,
            f.bits
        ));
    }
}

fn grid_field(f: Option<Field>, what: &str) -> Result<Field, Error> {
    f.ok_or_else(|| {
        unsupported(format!(
            "{what}: the kernel's metadata has no code object v5 hidden grid arguments"
        ))
    })
}

/// `dst` (32-bit VGPR) = the linear work-item index in the block,
/// `tid.x + ntid.x·(tid.y + ntid.y·tid.z)` over the dimensions the hardware provides
/// work-item ids for (the others read 0, as `tid.y`/`tid.z` do); `tmp` is a scratch VGPR.
pub(crate) fn linear_tid(cx: &Cx<'_>, e: &mut Emitter, dst: &str, tmp: &str) -> Result<(), Error> {
    let t = cx.regs.tid.ok_or_else(|| unsupported("work-item ids"))?;
    let t = t.name();
    let dims = cx.workitem_dims;
    if dims >= 1 && !cx.packed_tid {
        return Err(unsupported("work-item ids y and z outside v0 (not packed)"));
    }
    if dims >= 2 {
        e.ins(format!("v_bfe_u32 {dst}, {t}, 20, 10"));
        field(e, tmp, grid_field(cx.grid.ntid[1], "ntid.y")?);
        e.ins(format!("v_mul_lo_u32 {dst}, {dst}, {tmp}"));
        e.ins(format!("v_bfe_u32 {tmp}, {t}, 10, 10"));
        e.add32(dst, dst, tmp);
    } else if dims == 1 {
        e.ins(format!("v_bfe_u32 {dst}, {t}, 10, 10"));
    }
    if dims >= 1 {
        field(e, tmp, grid_field(cx.grid.ntid[0], "ntid.x")?);
        e.ins(format!("v_mul_lo_u32 {dst}, {dst}, {tmp}"));
        e.ins(format!("v_bfe_u32 {tmp}, {t}, 0, 10"));
        e.add32(dst, dst, tmp);
    } else {
        e.ins(format!("v_bfe_u32 {dst}, {t}, 0, 10"));
    }
    Ok(())
}

/// `d` (a 64-bit pair) = the linear block index
/// `ctaid.x + nctaid.x·(ctaid.y + nctaid.y·ctaid.z)`. With `missing_as_zero`, a
/// workgroup id the descriptor does not enable reads 0 (the caller checks that the
/// dimension has one block); otherwise it is `Unsupported`. `tmp` is a scratch VGPR.
pub(crate) fn linear_block(
    cx: &Cx<'_>,
    e: &mut Emitter,
    d: Reg,
    missing_as_zero: bool,
    tmp: &str,
) -> Result<(), Error> {
    let r = cx.regs;
    let id = |dim: usize| -> Result<Option<String>, Error> {
        match r.ctaid[dim] {
            Some(c) => Ok(Some(c.name())),
            None if missing_as_zero => Ok(None),
            None => Err(unsupported(format!(
                "ctaid.{}: the kernel does not enable its workgroup id",
                ["x", "y", "z"][dim]
            ))),
        }
    };
    let (l, h) = (lo(d), hi(d));
    match id(2)? {
        Some(z) => {
            e.ins(format!("v_mov_b32_e32 {l}, {z}"));
            field(e, &h, grid_field(cx.grid.nctaid[1], "nctaid.y")?);
            e.ins(format!("v_mul_lo_u32 {l}, {l}, {h}"));
        }
        None => e.ins(format!("v_mov_b32_e32 {l}, 0")),
    }
    if let Some(y) = id(1)? {
        e.add32(&l, &y, &l);
    }
    field(e, &h, grid_field(cx.grid.nctaid[0], "nctaid.x")?);
    e.ins(format!("v_mul_hi_u32 {tmp}, {l}, {h}"));
    e.ins(format!("v_mul_lo_u32 {l}, {l}, {h}"));
    e.ins(format!("v_mov_b32_e32 {h}, {tmp}"));
    let x = id(0)?.ok_or_else(|| unsupported("ctaid.x: the kernel does not enable it"))?;
    e.ins(format!("v_mov_b32_e32 {tmp}, {x}"));
    let vcc = cx.t.vcc();
    e.ins(format!("v_add_co_u32_e64 {l}, {vcc}, {tmp}, {l}"));
    let addc = if cx.t.gfx9 {
        "v_addc_co_u32_e64"
    } else {
        "v_add_co_ci_u32_e64"
    };
    e.ins(format!("{addc} {h}, {vcc}, 0, {h}, {vcc}"));
    Ok(())
}

/// `nsmid` on target `t`: the number of values `smid` can take — the ids are not
/// contiguous (a shader array has fewer CUs than its 4-bit CU id can name), so, as the
/// PTX ISA says of its `%nsmid`, this is at least the number of CUs, not their count:
/// 2^8 on gfx9, 2^12 on gfx940+ (the XCD above), 2^11 on gfx10+.
pub(crate) fn smid_count(t: crate::emit::Target) -> u32 {
    match (t.gfx9, t.gfx940) {
        (_, true) => 1 << 12,
        (true, false) => 1 << 8,
        (false, _) => 1 << 11,
    }
}

/// `d = sreg s` at `site`.
pub(crate) fn read_special(
    cx: &Cx<'_>,
    e: &mut Emitter,
    d: Reg,
    s: Special,
    site: &SiteInfo,
) -> Result<(), Error> {
    let r = cx.regs;
    let (l, h) = (lo(d), hi(d));
    let zero_hi = |e: &mut Emitter| e.ins(format!("v_mov_b32_e32 {h}, 0"));
    let scalar_pair = Reg::new(RegFile::Sgpr, r.cmp.first, 2);
    match s {
        // The verifier refuses them in a device probe; never lowered.
        Special::Duration | Special::SharedBytes | Special::Stream => {
            return Err(crate::lower::unsupported(format!(
                "`{}` in a device probe (a launch:* host value)",
                s.name()
            )));
        }
        Special::Clock64 | Special::Clock if cx.t.gfx11 => {
            // gfx11 has no 64-bit shader clock (HW_REG_SHADER_CYCLES has 20 bits).
            return Err(unsupported(format!("{} on gfx11 (no s_memtime)", s.name())));
        }
        Special::Clock64 | Special::Clock | Special::GlobalTimer => {
            let op = match (s, cx.t.gfx11) {
                (Special::GlobalTimer, true) => "s_sendmsg_rtn_b64",
                (Special::GlobalTimer, false) => "s_memrealtime",
                _ => "s_memtime",
            };
            if cx.t.gfx11 {
                e.ins(format!(
                    "{op} {}, sendmsg(MSG_RTN_GET_REALTIME)",
                    scalar_pair.name()
                ));
            } else {
                e.ins(format!("{op} {}", scalar_pair.name()));
            }
            e.ins("s_waitcnt lgkmcnt(0)");
            e.ins(format!("v_mov_b32_e32 {l}, {}", lo(scalar_pair)));
            if s == Special::Clock {
                zero_hi(e);
            } else {
                e.ins(format!("v_mov_b32_e32 {h}, {}", hi(scalar_pair)));
            }
            if s == Special::GlobalTimer {
                // The 100 MHz reference clock in nanoseconds.
                e.imm64(r.tb, 10);
                e.mul64(d, d, r.tb, r.tc);
            }
        }
        Special::Smid => {
            // gfx9: CU, SH and SE ids of HW_REG_HW_ID (bits 8-15); gfx10+: WGP, SA and SE
            // ids of HW_REG_HW_ID1 (bits 10-20); gfx940+ (MI300: 8 XCDs, whose HW_IDs
            // repeat) the XCD of HW_REG_XCC_ID (bits 0-3) above the gfx9 bits.
            let st = r.st.name();
            if cx.t.gfx940 {
                e.ins(format!("s_getreg_b32 {st}, hwreg(HW_REG_XCC_ID, 0, 4)"));
                e.ins(format!("v_lshlrev_b32_e64 {l}, 8, {st}"));
            }
            let hwreg = if cx.t.gfx9 {
                "hwreg(HW_REG_HW_ID, 8, 8)"
            } else {
                "hwreg(HW_REG_HW_ID1, 10, 11)"
            };
            e.ins(format!("s_getreg_b32 {st}, {hwreg}"));
            if cx.t.gfx940 {
                e.ins(format!("v_or_b32_e32 {l}, {st}, {l}"));
            } else {
                e.ins(format!("v_mov_b32_e32 {l}, {st}"));
            }
            zero_hi(e);
        }
        Special::Nsmid => {
            e.ins(format!("v_mov_b32_e32 {l}, 0x{:x}", smid_count(cx.t)));
            zero_hi(e);
        }
        Special::Warpid => {
            // The wave's SIMD and slot in its CU. gfx9: WAVE_ID (bits 0-3) and SIMD_ID
            // (4-5) of HW_REG_HW_ID, adjacent: SIMD · 16 + slot. gfx10+: WAVE_ID (bits
            // 0-4) and SIMD_ID (8-9) of HW_REG_HW_ID1: SIMD · 32 + slot.
            let st = r.st.name();
            if cx.t.gfx9 {
                e.ins(format!("s_getreg_b32 {st}, hwreg(HW_REG_HW_ID, 0, 6)"));
                e.ins(format!("v_mov_b32_e32 {l}, {st}"));
            } else {
                e.ins(format!("s_getreg_b32 {st}, hwreg(HW_REG_HW_ID1, 8, 2)"));
                e.ins(format!("v_lshlrev_b32_e64 {l}, 5, {st}"));
                e.ins(format!("s_getreg_b32 {st}, hwreg(HW_REG_HW_ID1, 0, 5)"));
                e.ins(format!("v_or_b32_e32 {l}, {st}, {l}"));
            }
            zero_hi(e);
        }
        Special::Lane => {
            e.lanes_below(&l, ["-1", "-1"]);
            zero_hi(e);
        }
        Special::Active => {
            let bcnt = cx.t.s("s_bcnt1_i32");
            e.ins(format!("{bcnt} {}, {}", r.st.name(), cx.t.exec()));
            e.ins(format!("v_mov_b32_e32 {l}, {}", r.st.name()));
            zero_hi(e);
        }
        Special::TidX | Special::TidY | Special::TidZ => {
            let t = r.tid.ok_or_else(|| unsupported("tid"))?;
            let dim = match s {
                Special::TidX => 0,
                Special::TidY => 1,
                _ => 2,
            };
            if dim > cx.workitem_dims {
                e.ins(format!("v_mov_b32_e32 {l}, 0"));
            } else if dim > 0 && !cx.packed_tid {
                return Err(unsupported("work-item ids y and z outside v0 (not packed)"));
            } else {
                e.ins(format!("v_bfe_u32 {l}, {}, {}, 10", t.name(), 10 * dim));
            }
            zero_hi(e);
        }
        Special::CtaidX | Special::CtaidY | Special::CtaidZ => {
            let dim = match s {
                Special::CtaidX => 0,
                Special::CtaidY => 1,
                _ => 2,
            };
            let c = r.ctaid[dim].ok_or_else(|| unsupported(s.name()))?;
            e.ins(format!("v_mov_b32_e32 {l}, {}", c.name()));
            zero_hi(e);
        }
        Special::KernelId => e.imm64(d, cx.kernel_id),
        Special::Pc | Special::File | Special::Line => {
            if !site.located {
                return Err(unsupported(format!(
                    "sreg {} without an instruction",
                    s.name()
                )));
            }
            let v = match s {
                Special::Pc => site.pc,
                Special::File => site.file,
                _ => site.line,
            };
            e.imm64(d, v);
        }
        Special::NtidX | Special::NtidY | Special::NtidZ => {
            let dim = match s {
                Special::NtidX => 0,
                Special::NtidY => 1,
                _ => 2,
            };
            field(e, &l, grid_field(cx.grid.ntid[dim], s.name())?);
            zero_hi(e);
        }
        Special::NctaidX | Special::NctaidY | Special::NctaidZ => {
            let dim = match s {
                Special::NctaidX => 0,
                Special::NctaidY => 1,
                _ => 2,
            };
            field(e, &l, grid_field(cx.grid.nctaid[dim], s.name())?);
            zero_hi(e);
        }
        Special::Warp => {
            // The wave's index in its block (docs/gcn.md: a warp is a wave).
            linear_tid(cx, e, &l, &h)?;
            e.ins(format!(
                "v_lshrrev_b32_e32 {l}, {}, {l}",
                cx.t.wave.trailing_zeros()
            ));
            zero_hi(e);
        }
        Special::Block => {
            linear_block(cx, e, d, false, &lo(r.tc))?;
            zero_hi(e);
        }
        Special::Thread => {
            // block · (ntid.x·ntid.y·ntid.z) + linear tid, 64-bit.
            linear_block(cx, e, d, false, &lo(r.tc))?;
            field(e, &lo(r.tb), grid_field(cx.grid.ntid[0], "ntid.x")?);
            field(e, &hi(r.tb), grid_field(cx.grid.ntid[1], "ntid.y")?);
            e.ins(format!(
                "v_mul_lo_u32 {}, {}, {}",
                lo(r.tb),
                lo(r.tb),
                hi(r.tb)
            ));
            field(e, &hi(r.tb), grid_field(cx.grid.ntid[2], "ntid.z")?);
            e.ins(format!(
                "v_mul_lo_u32 {}, {}, {}",
                lo(r.tb),
                lo(r.tb),
                hi(r.tb)
            ));
            e.ins(format!("v_mov_b32_e32 {}, 0", hi(r.tb)));
            e.mul64(d, d, r.tb, r.tc);
            linear_tid(cx, e, &lo(r.tb), &lo(r.tc))?;
            e.ins(format!("v_mov_b32_e32 {}, 0", hi(r.tb)));
            e.add64(d, d, r.tb);
        }
        // `exec`, bit i for lane i: one word in wave32, both in wave64.
        Special::ActiveMask => {
            e.ins(format!("v_mov_b32_e32 {l}, exec_lo"));
            if cx.t.wave == 64 {
                e.ins(format!("v_mov_b32_e32 {h}, exec_hi"));
            } else {
                zero_hi(e);
            }
        }
        Special::Launch => {
            e.memory = true;
            e.ins(format!(
                "v_mov_b32_e32 {}, 0x{:x}",
                r.off.name(),
                cx.layout.launch_offset
            ));
            e.ins(format!(
                "global_load_dwordx2 {}, {}, {}",
                d.name(),
                r.off.name(),
                r.base.name()
            ));
            e.ins("s_waitcnt vmcnt(0)");
        }
    }
    Ok(())
}

pub(crate) fn read_site(
    cx: &Cx<'_>,
    e: &mut Emitter,
    d: Reg,
    v: SiteValue,
    site: &SiteInfo,
    label: &str,
) -> Result<(), Error> {
    let r = cx.regs;
    match v {
        SiteValue::Bytes => e.imm64(d, site.bytes.ok_or_else(|| unsupported("bytes here"))?),
        SiteValue::Opcode => e.imm64(d, site.opcode.ok_or_else(|| unsupported("opcode here"))?),
        SiteValue::Value => value(e, d, site)?,
        SiteValue::Sectors | SiteValue::Wavefronts | SiteValue::Run if site.mem.is_none() => {
            e.imm64(d, 0)
        }
        SiteValue::Sectors | SiteValue::Wavefronts | SiteValue::Run => {
            crate::warp_access::read(cx, e, d, v, site, label)?
        }
        SiteValue::Addr => {
            let a = site.mem.as_ref().ok_or_else(|| unsupported("addr here"))?;
            let clobbered = a.dst.is_some_and(|x| {
                a.addr.is_some_and(|v| v.overlaps(&x)) || a.saddr.is_some_and(|s| s.overlaps(&x))
            });
            if site.after && clobbered {
                return Err(unsupported(
                    "addr after an instruction that overwrites its address registers",
                ));
            }
            match (a.space, a.addr, a.saddr) {
                (Space::Global, Some(v), Some(s)) if v.count == 1 && s.count == 2 => {
                    e.ins(format!("v_mov_b32_e32 {}, {}", lo(r.ta), lo(s)));
                    e.ins(format!("v_mov_b32_e32 {}, {}", hi(r.ta), hi(s)));
                    e.ins(format!("v_mov_b32_e32 {}, {}", lo(r.tb), v.name()));
                    e.ins(format!("v_mov_b32_e32 {}, 0", hi(r.tb)));
                    e.add64(d, r.ta, r.tb);
                }
                (Space::Global | Space::Generic, Some(v), None) if v.count == 2 => e.mov64(d, v),
                (Space::Shared, Some(v), _) if v.count == 1 => {
                    e.ins(format!("v_mov_b32_e32 {}, {}", lo(d), v.name()));
                    e.ins(format!("v_mov_b32_e32 {}, 0", hi(d)));
                }
                (Space::Global, _, Some(rsrc)) if a.buffer.is_some() => {
                    return buffer_addr(cx, e, d, a, rsrc);
                }
                (Space::Local, ..) => return Err(unsupported("addr of a scratch access")),
                _ => return Err(unsupported("addr of this access's operands")),
            }
            if a.offset != 0 {
                e.imm64(r.tb, a.offset as u64);
                e.add64(d, d, r.tb);
            }
        }
    }
    Ok(())
}

/// `d` = the address a `buffer_*` access `a` reaches through descriptor `rsrc` (four
/// SGPRs), as the ISA computes it (`docs/gcn.md`, "Buffer addresses"), at run time from
/// the descriptor's words: base (48 bits of words 0–1) + scalar offset + the buffer
/// offset, where with `index` = the lane if `ADD_TID_ENABLE` (word 3, bit 23) and
/// `offset` = the VGPR offset (`offen`) + the immediate, the buffer offset is
/// `index · stride + offset` (stride: word 1, bits 16–29) unless the descriptor swizzles
/// (word 1 bit 31; bits 30–31 on gfx11, the element size's code), then
/// `(index / IS · stride + offset / E · E) · IS + index % IS · E + offset % E` with
/// `IS = 8 << INDEX_STRIDE` (word 3, bits 21–22) and `E` the element size (4 bytes before
/// gfx11, `2 << code` on gfx11). Both are one formula with `IS = 1` when the descriptor
/// does not swizzle: `L = log2 IS` and `log2 E` are computed, divisions are shifts. The
/// sums are exact (64-bit). `idxen` (a VGPR index) is refused.
fn buffer_addr(
    cx: &Cx<'_>,
    e: &mut Emitter,
    d: Reg,
    a: &crate::insn::MemAccess,
    rsrc: Reg,
) -> Result<(), Error> {
    let r = cx.regs;
    let b = a
        .buffer
        .ok_or_else(|| unsupported("addr of a buffer access"))?;
    if b.idxen {
        return Err(unsupported(
            "addr of a buffer access with a VGPR index (idxen)",
        ));
    }
    if rsrc.count != 4 || !matches!(rsrc.file, RegFile::Sgpr) {
        return Err(unsupported(
            "addr of a buffer access without an SGPR descriptor",
        ));
    }
    let w = |i: u32| Reg::new(RegFile::Sgpr, rsrc.first + i, 1).name();
    let (d0, d1, a0, a1, b0, b1) = (lo(d), hi(d), lo(r.ta), hi(r.ta), lo(r.tb), hi(r.tb));
    let t = cx.t;
    // b0 = L: 3 + INDEX_STRIDE when the descriptor swizzles, else 0.
    e.ins(format!("v_bfe_u32 {b0}, {}, 21, 2", w(3)));
    e.add32(&b0, "3", &b0);
    if t.gfx11 {
        e.ins(format!("v_bfe_u32 {b1}, {}, 30, 2", w(1)));
        e.ins(format!("v_min_u32_e32 {b1}, 1, {b1}"));
    } else {
        e.ins(format!("v_bfe_u32 {b1}, {}, 31, 1", w(1)));
    }
    // A one-bit flag as a mask (no product: products are what a proof finds hard).
    e.sub32(&b1, "0", &b1);
    e.ins(format!("v_and_b32_e32 {b0}, {b0}, {b1}"));
    // b1 = log2 E.
    if t.gfx11 {
        e.ins(format!("v_bfe_u32 {b1}, {}, 30, 2", w(1)));
        e.add32(&b1, "1", &b1);
    } else {
        e.ins(format!("v_mov_b32_e32 {b1}, 2"));
    }
    // a0 = index: the lane when ADD_TID_ENABLE.
    e.ins(format!("v_bfe_u32 {d0}, {}, 23, 1", w(3)));
    e.lanes_below(&a0, ["-1", "-1"]);
    e.sub32(&d0, "0", &d0);
    e.ins(format!("v_and_b32_e32 {a0}, {a0}, {d0}"));
    // a1 = offset.
    match (b.offen, a.addr) {
        (true, Some(v)) if v.count == 1 && matches!(v.file, RegFile::Vgpr) => {
            e.ins(format!("v_mov_b32_e32 {a1}, {}", v.name()))
        }
        (true, _) => return Err(unsupported("addr of a buffer access: its VGPR offset")),
        (false, _) => e.ins(format!("v_mov_b32_e32 {a1}, 0")),
    }
    let imm = u32::try_from(a.offset)
        .map_err(|_| unsupported("addr of a buffer access with a negative offset"))?;
    if imm != 0 {
        e.add32(&a1, &imm.to_string(), &a1);
    }
    // d0 = index % IS · E + offset % E; a1 = offset / E · E.
    e.ins(format!("v_bfe_u32 {d0}, {a0}, 0, {b0}"));
    e.ins(format!("v_lshlrev_b32_e32 {d0}, {b1}, {d0}"));
    e.ins(format!("v_bfe_u32 {d1}, {a1}, 0, {b1}"));
    e.add32(&d0, &d0, &d1);
    e.sub32(&a1, &a1, &d1);
    // ta = (index / IS · stride + offset / E · E) · IS + d0, 64-bit.
    e.ins(format!("v_lshrrev_b32_e32 {a0}, {b0}, {a0}"));
    e.ins(format!("v_bfe_u32 {d1}, {}, 16, 14", w(1)));
    e.ins(format!("v_mul_hi_u32 {b1}, {a0}, {d1}"));
    e.ins(format!("v_mul_lo_u32 {a0}, {a0}, {d1}"));
    e.add64_words([&a0, &b1], [&a0, &b1], [&a1, "0"]);
    e.ins(format!("v_mov_b32_e32 {a1}, {b1}"));
    e.ins(format!(
        "v_lshlrev_b64 {}, {b0}, {}",
        r.ta.name(),
        r.ta.name()
    ));
    e.add64_words([&a0, &a1], [&a0, &a1], [&d0, "0"]);
    // ta += base, ta += scalar offset (each sum in `ta`, the pair the proof follows
    // step by step), d = ta.
    e.ins(format!("v_mov_b32_e32 {d0}, {}", w(0)));
    e.ins(format!("v_bfe_u32 {d1}, {}, 0, 16", w(1)));
    e.add64(r.ta, r.ta, d);
    match b.soffset {
        Some(s) if s.count == 1 && matches!(s.file, RegFile::Sgpr) => {
            e.ins(format!("v_mov_b32_e32 {d0}, {}", s.name()));
            e.ins(format!("v_mov_b32_e32 {d1}, 0"));
            e.add64(r.ta, r.ta, d);
        }
        Some(_) => return Err(unsupported("addr of a buffer access: its scalar offset")),
        None if b.soffset_imm == 0 => {}
        None => {
            let v = u64::try_from(b.soffset_imm)
                .map_err(|_| unsupported("addr of a buffer access: a negative soffset"))?;
            e.imm64(d, v);
            e.add64(r.ta, r.ta, d);
        }
    }
    e.mov64(d, r.ta);
    Ok(())
}

/// The bits of a memory instruction's element (`docs/ir.md`, `value`): 64 for the
/// 64-bit atomics, 8 or 16 for byte and short accesses, 32 otherwise (the first dword
/// of a vector access).
fn element_bits(m: &str, atomic: bool) -> u32 {
    let wide = ["_x2", "_b64", "_u64", "_i64", "_f64"];
    if atomic && wide.iter().any(|w| m.contains(w)) {
        64
    } else if ["byte", "_b8", "_u8", "_i8"].iter().any(|w| m.contains(w)) {
        8
    } else if ["short", "_b16", "_u16", "_i16", "_d16"]
        .iter()
        .any(|w| m.contains(w))
    {
        16
    } else {
        32
    }
}

/// `d = site value`: the stored value before a store or atomic (and after a store), the
/// loaded or returned value after a load or returning atomic, zero-extended from the
/// element's bits; 0 at an instruction that accesses no memory.
fn value(e: &mut Emitter, d: Reg, site: &SiteInfo) -> Result<(), Error> {
    let (l, h) = (lo(d), hi(d));
    let Some(a) = &site.mem else {
        if site.opcode.is_none() {
            return Err(unsupported("value without an instruction"));
        }
        e.imm64(d, 0);
        return Ok(());
    };
    let m = site.mnemonic.as_deref().unwrap_or_default();
    let atomic = a.access == Access::Atomic;
    let loaded = site.after && a.access != Access::Store;
    let reg = if loaded { a.dst } else { a.data };
    let reg = reg.ok_or_else(|| {
        unsupported(match a.access {
            Access::Load if loaded => "value of a load into LDS (its data is in no register)",
            _ if loaded => "value after an atomic that does not return",
            _ => "value of an access without data",
        })
    })?;
    if matches!(reg.file, crate::reg::RegFile::Agpr) || reg.count == 0 {
        return Err(unsupported("value in accumulation registers"));
    }
    if loaded {
        // The destination is written when the load completes.
        e.ins("s_waitcnt vmcnt(0) lgkmcnt(0)");
    }
    let first = Reg::new(reg.file, reg.first, 1).name();
    match element_bits(m, atomic) {
        64 if reg.count >= 2 => {
            e.ins(format!("v_mov_b32_e32 {l}, {first}"));
            e.ins(format!(
                "v_mov_b32_e32 {h}, {}",
                Reg::new(reg.file, reg.first + 1, 1).name()
            ));
            return Ok(());
        }
        32 | 64 => e.ins(format!("v_mov_b32_e32 {l}, {first}")),
        // `_d16_hi` accesses use the register's high half.
        bits if m.contains("d16_hi") => e.ins(format!("v_bfe_u32 {l}, {first}, 16, {bits}")),
        bits => e.ins(format!("v_bfe_u32 {l}, {first}, 0, {bits}")),
    }
    e.ins(format!("v_mov_b32_e32 {h}, 0"));
    Ok(())
}
