//! The list of obligations: every family, its forms and edge values, by stable name.

use super::{Obligation, Site, What};
use crate::combine::Plan;
use crate::hashmap::Probing;
use crate::parse::{AddrBase, Address};
use crate::site::ValueSrc;
use crate::special::SiteImms;
use warptrace_ir::{
    Aggregation, BinOp, ExtFrom, Insn, Operand, Overflow, PersistId, Reg, SiteValue, Special,
    SpecialSource, ValueKind, Width,
};

fn r(n: u16) -> Reg {
    Reg(n)
}

fn op(o: &Operand) -> String {
    match o {
        Operand::Reg(r) => format!("r{}", r.0),
        Operand::Imm(v) => v.to_string(),
    }
}

/// Immediates at the edges of the emitter's forms: inline vs materialised (`i32::MAX`),
/// 32-bit truncation, shift amounts around the widths, the extremes.
pub(crate) const EDGE_IMMS: [i64; 16] = [
    0,
    1,
    -1,
    2,
    31,
    32,
    33,
    63,
    64,
    65,
    i32::MAX as i64,
    1 << 31,
    0xFFFF_FFFF,
    1 << 32,
    i64::MAX,
    i64::MIN,
];

/// Immediates for the first operand (fewer: only materialisation matters there).
const LEFT_IMMS: [i64; 8] = [
    0,
    1,
    -1,
    i32::MAX as i64,
    1 << 31,
    0xFFFF_FFFF,
    1 << 32,
    i64::MIN,
];

fn bin(op_: BinOp, width: Width, dst: u16, a: Operand, b: Operand) -> Insn {
    Insn::Bin {
        op: op_,
        width,
        dst: r(dst),
        a,
        b,
    }
}

fn exit(mut insns: Vec<Insn>) -> Vec<Insn> {
    insns.push(Insn::Exit);
    insns
}

fn width_name(w: Width) -> &'static str {
    match w {
        Width::W32 => "w32",
        Width::W64 => "w64",
    }
}

/// Whether an immediate divisor is zero at the width (no IR meaning: not an obligation).
fn zero_divisor(op_: BinOp, width: Width, b: i64) -> bool {
    let mask = match width {
        Width::W32 => 0xFFFF_FFFF,
        Width::W64 => u64::MAX,
    };
    op_.divides() && (b as u64) & mask == 0
}

fn bin_obligations(out: &mut Vec<Obligation>) {
    let (reg0, reg1) = (Operand::Reg(r(0)), Operand::Reg(r(1)));
    for op_ in BinOp::ALL {
        for width in [Width::W32, Width::W64] {
            let base = format!("bin.{}.{}", op_.mnemonic(), width_name(width));
            let forms = [
                ("reg-reg", 2, reg0, reg1),
                ("reg-reg.dst-a", 0, reg0, reg1),
                ("reg-reg.dst-b", 1, reg0, reg1),
                ("reg-reg.same", 2, reg0, reg0),
            ];
            for (form, dst, a, b) in forms {
                let insns = exit(vec![bin(op_, width, dst, a, b)]);
                out.push(Obligation::body(format!("{base}.{form}"), insns));
            }
            for v in EDGE_IMMS {
                if zero_divisor(op_, width, v) {
                    continue;
                }
                let insns = exit(vec![bin(op_, width, 2, reg0, Operand::Imm(v))]);
                out.push(Obligation::body(format!("{base}.reg-imm.{v}"), insns));
            }
            for v in LEFT_IMMS {
                let insns = exit(vec![bin(op_, width, 2, Operand::Imm(v), reg1)]);
                out.push(Obligation::body(format!("{base}.imm-reg.{v}"), insns));
            }
            for (a, b) in [(-7, 2), (i64::MIN, -1), (0xFFFF_FFFF, 33)] {
                let insns = exit(vec![bin(op_, width, 2, Operand::Imm(a), Operand::Imm(b))]);
                out.push(Obligation::body(format!("{base}.imm-imm.{a}.{b}"), insns));
            }
        }
    }
}

fn ext_and_mov(out: &mut Vec<Obligation>) {
    out.push(Obligation::body(
        "mov.reg",
        exit(vec![Insn::Mov {
            dst: r(1),
            src: Operand::Reg(r(0)),
        }]),
    ));
    for v in EDGE_IMMS {
        out.push(Obligation::body(
            format!("mov.imm.{v}"),
            exit(vec![Insn::Mov {
                dst: r(1),
                src: Operand::Imm(v),
            }]),
        ));
    }
    for from in [ExtFrom::B8, ExtFrom::B16, ExtFrom::B32] {
        for signed in [false, true] {
            let base = format!(
                "ext.{}.{}",
                if signed { "sext" } else { "zext" },
                from.bits()
            );
            let ext = |dst: u16, src: Operand| Insn::Ext {
                dst: r(dst),
                src,
                from,
                signed,
            };
            out.push(Obligation::body(
                format!("{base}.reg"),
                exit(vec![ext(1, Operand::Reg(r(0)))]),
            ));
            out.push(Obligation::body(
                format!("{base}.reg.in-place"),
                exit(vec![ext(0, Operand::Reg(r(0)))]),
            ));
            for v in [0x7f, 0x80, 0x8000, 0x8000_0000, -1, 0x1234_5678_9abc_def0] {
                out.push(Obligation::body(
                    format!("{base}.imm.{v}"),
                    exit(vec![ext(1, Operand::Imm(v))]),
                ));
            }
        }
    }
}

/// Per-kernel and per-site immediates of the `sreg` obligations (edge values).
pub(crate) fn site_imms() -> SiteImms {
    SiteImms {
        kernel_id: 0xcbf2_9ce4_8422_2325,
        pc: Some(u32::MAX),
        file: Some(u64::MAX),
        line: Some(0x8000_0000),
    }
}

fn specials(out: &mut Vec<Obligation>) {
    for sp in Special::ALL {
        if sp == Special::Launch {
            continue; // a load from the map buffer: `buffer.rs`
        }
        if sp.source() == SpecialSource::Host {
            continue; // never in a device probe: the verifier refuses it
        }
        out.push(Obligation::new(
            format!("sreg.{}", sp.name()),
            What::Body {
                insns: exit(vec![Insn::ReadSpecial {
                    dst: r(0),
                    special: sp,
                }]),
                site: Site {
                    instr: true,
                    imms: site_imms(),
                    ..Site::default()
                },
            },
        ));
    }
    out.push(Obligation::new("sreg.warp-leader", What::Leader));
}

fn persist(out: &mut Vec<Obligation>) {
    let slot = PersistId(1);
    out.push(Obligation::body(
        "persist.load",
        exit(vec![Insn::LoadPersist { dst: r(0), slot }]),
    ));
    out.push(Obligation::body(
        "persist.store.reg",
        exit(vec![Insn::StorePersist {
            slot,
            src: Operand::Reg(r(0)),
        }]),
    ));
    for v in [0, -1, i32::MAX as i64, 1 << 31, i64::MIN] {
        out.push(Obligation::body(
            format!("persist.store.imm.{v}"),
            exit(vec![Insn::StorePersist {
                slot,
                src: Operand::Imm(v),
            }]),
        ));
    }
}

fn site_obligations(out: &mut Vec<Obligation>) {
    let read = |v: SiteValue| {
        exit(vec![Insn::ReadSite {
            dst: r(0),
            value: v,
        }])
    };
    let mem_site = |value: Option<ValueSrc>, addr: Option<Address>| Site {
        instr: true,
        mem: true,
        bytes: Some(16),
        addr,
        value,
        opcode: Some(0x8000_0000_0000_0001),
        imms: site_imms(),
        guarded: false,
    };
    let cases = [
        ("%rd7", 64, [64, 32, 16, 8]),
        ("%r7", 32, [32, 16, 8, 8]),
        ("%rs7", 16, [16, 8, 8, 8]),
    ];
    for (name, reg_bits, elems) in cases {
        let mut elems = elems.to_vec();
        elems.dedup();
        for elem_bits in elems {
            let src = ValueSrc::Reg {
                name: name.into(),
                reg_bits,
                elem_bits,
            };
            out.push(Obligation::new(
                format!("site.value.r{reg_bits}.e{elem_bits}"),
                What::Body {
                    insns: read(SiteValue::Value),
                    site: mem_site(Some(src), None),
                },
            ));
        }
    }
    out.push(Obligation::new(
        "site.value.imm",
        What::Body {
            insns: read(SiteValue::Value),
            site: mem_site(Some(ValueSrc::Imm(0xFFFF_FFFF_0000_0001)), None),
        },
    ));
    let addrs = [
        ("r64.off0", AddrBase::Reg("%rd3".into()), 0),
        ("r64.off8", AddrBase::Reg("%rd3".into()), 8),
        ("r64.off-16", AddrBase::Reg("%rd3".into()), -16),
        ("r32.off0", AddrBase::Reg("%r3".into()), 0),
        ("r32.off-4", AddrBase::Reg("%r3".into()), -4),
        ("sym.off8", AddrBase::Symbol("shared_buf".into()), 8),
        ("imm.off4", AddrBase::Imm(0x1000), 4),
    ];
    for (name, base, offset) in addrs {
        let regs = match &base {
            AddrBase::Reg(r) => vec![r.clone()],
            _ => Vec::new(),
        };
        out.push(Obligation::new(
            format!("site.addr.{name}"),
            What::Body {
                insns: read(SiteValue::Addr),
                site: mem_site(None, Some(Address { base, offset, regs })),
            },
        ));
    }
    // Warp-wide values: over every lane's address, for each unit of `wavefronts`.
    let warp_cases = [
        (
            SiteValue::Sectors,
            "r64.off8",
            AddrBase::Reg("%rd3".into()),
            8,
            16,
        ),
        (
            SiteValue::Sectors,
            "r32.off-4",
            AddrBase::Reg("%r3".into()),
            -4,
            4,
        ),
        (
            SiteValue::Wavefronts,
            "b1",
            AddrBase::Reg("%r3".into()),
            0,
            1,
        ),
        (
            SiteValue::Wavefronts,
            "b4",
            AddrBase::Reg("%r3".into()),
            4,
            4,
        ),
        (
            SiteValue::Wavefronts,
            "b8",
            AddrBase::Reg("%r3".into()),
            8,
            8,
        ),
        (
            SiteValue::Wavefronts,
            "b16",
            AddrBase::Reg("%rd3".into()),
            -16,
            16,
        ),
        (SiteValue::Run, "b4", AddrBase::Reg("%rd3".into()), 8, 4),
        (
            SiteValue::Run,
            "r32.b16",
            AddrBase::Reg("%r3".into()),
            -16,
            16,
        ),
    ];
    for (v, name, base, offset, bytes) in warp_cases {
        let regs = match &base {
            AddrBase::Reg(r) => vec![r.clone()],
            _ => Vec::new(),
        };
        let mut site = mem_site(None, Some(Address { base, offset, regs }));
        site.bytes = Some(bytes);
        out.push(Obligation::new(
            format!("site.{}.{name}", v.name()),
            What::Body {
                insns: read(v),
                site,
            },
        ));
    }
    for (v, name) in [(SiteValue::Bytes, "bytes"), (SiteValue::Opcode, "opcode")] {
        out.push(Obligation::new(
            format!("site.{name}"),
            What::Body {
                insns: read(v),
                site: mem_site(None, None),
            },
        ));
    }
    // At an instruction that is not a memory access, value/addr/bytes are 0.
    for v in [
        SiteValue::Value,
        SiteValue::Addr,
        SiteValue::Bytes,
        SiteValue::Sectors,
        SiteValue::Wavefronts,
        SiteValue::Run,
    ] {
        out.push(Obligation::new(
            format!("site.{}.non-mem", v.name()),
            What::Body {
                insns: read(v),
                site: Site {
                    instr: true,
                    opcode: Some(7),
                    imms: site_imms(),
                    ..Site::default()
                },
            },
        ));
    }
}

fn control(out: &mut Vec<Obligation>) {
    let reg = |n| Operand::Reg(r(n));
    let mov = |d: u16, v: i64| Insn::Mov {
        dst: r(d),
        src: Operand::Imm(v),
    };
    let store = |v: Operand| Insn::StorePersist {
        slot: PersistId(0),
        src: v,
    };
    for (name, if_zero) in [("jz", true), ("jnz", false)] {
        // r2 = 1; if r0 (==|!=) 0 goto 3; r2 = r1 + r0; 3: %x0 = r2; exit
        let insns = vec![
            mov(2, 1),
            Insn::Branch {
                cond: r(0),
                if_zero,
                target: 3,
            },
            bin(BinOp::Add, Width::W64, 2, reg(1), reg(0)),
            store(reg(2)),
            Insn::Exit,
        ];
        out.push(Obligation::body(format!("control.{name}"), insns));
    }
    // A diamond: if r0 == 0 { r2 = r1 } else { r2 = div.s r1, r0 }.
    let diamond = vec![
        Insn::Branch {
            cond: r(0),
            if_zero: false,
            target: 3,
        },
        Insn::Mov {
            dst: r(2),
            src: reg(1),
        },
        Insn::Jump { target: 4 },
        bin(BinOp::DivS, Width::W64, 2, reg(1), reg(0)),
        store(reg(2)),
        Insn::Exit,
    ];
    out.push(Obligation::body("control.diamond-div", diamond));
    // An early exit: if r0 != 0 exit before the store.
    let early = vec![
        Insn::Branch {
            cond: r(0),
            if_zero: true,
            target: 2,
        },
        Insn::Exit,
        store(reg(1)),
        Insn::Exit,
    ];
    out.push(Obligation::body("control.exit-early", early));
    // A predicated site: the whole body is skipped when the site's guard is false.
    out.push(Obligation::new(
        "control.guarded-site",
        What::Body {
            insns: vec![
                bin(BinOp::Sub, Width::W32, 1, reg(0), Operand::Imm(5)),
                store(reg(1)),
                Insn::Exit,
            ],
            site: Site {
                guarded: true,
                instr: true,
                opcode: Some(1),
                imms: site_imms(),
                ..Site::default()
            },
        },
    ));
}

/// `lhist` parameters: valid ones of every shape (power-of-two and other steps,
/// negative bounds, the extremes) and the degenerate ones the emitter still handles.
pub(crate) const LHIST_PARAMS: [(i64, i64, i64); 11] = [
    (0, 100, 10),
    (i64::MIN, i64::MAX, 3),
    (-50, 50, 5),
    (0, 1024, 64),
    (3, 4, 1),
    (0, 9, 3),
    (i64::MIN, 0, 1 << 62),
    (-7, 1 << 40, 7),
    (i64::MIN, i64::MAX - 1, 2),
    (5, 5, 1),
    (0, 10, -2),
];

fn combine(out: &mut Vec<Obligation>) {
    let operands: Vec<(String, Operand)> = std::iter::once(("reg".to_string(), Operand::Reg(r(0))))
        .chain(
            [0, 1, -1, i32::MAX as i64, 1 << 31, i64::MIN, i64::MAX]
                .into_iter()
                .map(|v| (format!("imm.{v}"), Operand::Imm(v))),
        )
        .collect();
    out.push(Obligation::new(
        "agg.count",
        What::Combine {
            agg: Aggregation::Count,
            value: ValueKind::Count,
        },
    ));
    for (oname, x) in &operands {
        let x = *x;
        let mut push = |name: String, agg, value| {
            out.push(Obligation::new(name, What::Combine { agg, value }));
        };
        push(
            format!("agg.sum.{oname}"),
            Aggregation::Sum(x),
            ValueKind::Sum { signed: true },
        );
        push(
            format!("agg.avg.{oname}"),
            Aggregation::Avg(x),
            ValueKind::Avg { signed: false },
        );
        push(
            format!("agg.stats.{oname}"),
            Aggregation::Stats(x),
            ValueKind::Stats { signed: true },
        );
        push(
            format!("agg.assign.{oname}"),
            Aggregation::Assign(x),
            ValueKind::Value { signed: false },
        );
        for signed in [false, true] {
            let s = if signed { "s" } else { "u" };
            push(
                format!("agg.min.{s}.{oname}"),
                Aggregation::Min(x),
                ValueKind::Min { signed },
            );
            push(
                format!("agg.max.{s}.{oname}"),
                Aggregation::Max(x),
                ValueKind::Max { signed },
            );
        }
        push(
            format!("agg.hist.{oname}"),
            Aggregation::Hist(x),
            ValueKind::Hist,
        );
        for (min, max, step) in LHIST_PARAMS {
            push(
                format!("agg.lhist.{min}.{max}.{step}.{oname}"),
                Aggregation::Lhist(x),
                ValueKind::Lhist { min, max, step },
            );
        }
    }
}

fn hash(out: &mut Vec<Obligation>) {
    let reg = |n| Operand::Reg(r(n));
    let key_sets: [(&str, Vec<Operand>); 7] = [
        ("k0", vec![]),
        ("k1.reg", vec![reg(0)]),
        ("k1.imm", vec![Operand::Imm(0x1234)]),
        ("k1.imm-tag0", vec![Operand::Imm(0)]),
        ("k2.reg", vec![reg(0), reg(1)]),
        ("k2.reg-imm", vec![reg(0), Operand::Imm(-1)]),
        ("k3.reg", vec![reg(0), reg(1), reg(2)]),
    ];
    for (kname, keys) in &key_sets {
        for capacity in [1, 8, 4096, 1000] {
            out.push(Obligation::new(
                format!("hash.{kname}.cap{capacity}"),
                What::Hash {
                    keys: keys.clone(),
                    capacity,
                    agg: Aggregation::Count,
                    value: ValueKind::Count,
                    probing: Probing::Linear,
                },
            ));
        }
    }
    // The slot address reaches both value words on every path.
    out.push(Obligation::new(
        "hash.k1.reg.cap64.stats",
        What::Hash {
            keys: vec![reg(0)],
            capacity: 64,
            agg: Aggregation::Stats(reg(1)),
            value: ValueKind::Stats { signed: true },
            probing: Probing::Linear,
        },
    ));
    // Home-slot probing: constant keys probe once; the tag-0 key and register keys are
    // as linear probing has them.
    let home_keys: [(&str, Vec<Operand>); 5] = [
        ("k0", vec![]),
        ("k1.imm", vec![Operand::Imm(0x1234)]),
        ("k1.imm-tag0", vec![Operand::Imm(0)]),
        ("k2.imm", vec![Operand::Imm(7), Operand::Imm(-1)]),
        ("k1.reg", vec![reg(0)]),
    ];
    for (kname, keys) in &home_keys {
        for capacity in [1, 8, 4096, 1000] {
            out.push(Obligation::new(
                format!("hash.home.{kname}.cap{capacity}"),
                What::Hash {
                    keys: keys.clone(),
                    capacity,
                    agg: Aggregation::Count,
                    value: ValueKind::Count,
                    probing: Probing::Home,
                },
            ));
        }
    }
    out.push(Obligation::new(
        "hash.home.k2.imm.cap64.stats",
        What::Hash {
            keys: vec![Operand::Imm(7), Operand::Imm(-1)],
            capacity: 64,
            agg: Aggregation::Stats(reg(1)),
            value: ValueKind::Stats { signed: true },
            probing: Probing::Home,
        },
    ));
}

/// Warp-combined updates (`combine::map_update`): every aggregation the back end
/// combines, with a uniform operand (register and immediate) and, where `redux.sync`
/// reduces it, a per-lane one; keys the same in every lane.
fn warp(out: &mut Vec<Obligation>) {
    let reg = |n| Operand::Reg(r(n));
    let key_sets: [(&str, Vec<Operand>, u32); 4] = [
        ("k1.reg", vec![reg(0)], 4096),
        ("k0", vec![], 4096),
        ("k1.imm", vec![Operand::Imm(0x1234)], 1000),
        ("k2.reg-imm", vec![reg(0), Operand::Imm(-1)], 8),
    ];
    for (kname, keys, capacity) in &key_sets {
        out.push(Obligation::new(
            format!("warp.count.{kname}.cap{capacity}"),
            What::WarpHash {
                keys: keys.clone(),
                capacity: *capacity,
                agg: Aggregation::Count,
                value: ValueKind::Count,
                plan: Plan::Count,
                probing: Probing::Linear,
            },
        ));
    }
    let keys = vec![reg(0)];
    let mut push = |name: String, agg, value, plan| {
        out.push(Obligation::new(
            format!("warp.{name}"),
            What::WarpHash {
                keys: keys.clone(),
                capacity: 4096,
                agg,
                value,
                plan,
                probing: Probing::Linear,
            },
        ));
    };
    let uniform = [
        ("uniform.reg", reg(1)),
        ("uniform.imm.16", Operand::Imm(16)),
        ("uniform.imm.-1", Operand::Imm(-1)),
    ];
    for (oname, x) in uniform {
        let u = Plan::Uniform;
        push(
            format!("sum.{oname}"),
            Aggregation::Sum(x),
            ValueKind::Sum { signed: true },
            u,
        );
        push(
            format!("avg.{oname}"),
            Aggregation::Avg(x),
            ValueKind::Avg { signed: false },
            u,
        );
        push(
            format!("stats.{oname}"),
            Aggregation::Stats(x),
            ValueKind::Stats { signed: true },
            u,
        );
        push(
            format!("assign.{oname}"),
            Aggregation::Assign(x),
            ValueKind::Value { signed: false },
            u,
        );
        push(
            format!("hist.{oname}"),
            Aggregation::Hist(x),
            ValueKind::Hist,
            u,
        );
        let (min, max, step) = (0, 100, 10);
        push(
            format!("lhist.{min}.{max}.{step}.{oname}"),
            Aggregation::Lhist(x),
            ValueKind::Lhist { min, max, step },
            u,
        );
        for signed in [false, true] {
            let s = if signed { "s" } else { "u" };
            push(
                format!("min.{s}.{oname}"),
                Aggregation::Min(x),
                ValueKind::Min { signed },
                u,
            );
            push(
                format!("max.{s}.{oname}"),
                Aggregation::Max(x),
                ValueKind::Max { signed },
                u,
            );
        }
    }
    let x = reg(1);
    let l = Plan::Lanes;
    push(
        "sum.lanes.reg".into(),
        Aggregation::Sum(x),
        ValueKind::Sum { signed: false },
        l,
    );
    push(
        "avg.lanes.reg".into(),
        Aggregation::Avg(x),
        ValueKind::Avg { signed: true },
        l,
    );
    push(
        "stats.lanes.reg".into(),
        Aggregation::Stats(x),
        ValueKind::Stats { signed: false },
        l,
    );
    for signed in [false, true] {
        let s = if signed { "s" } else { "u" };
        push(
            format!("min.{s}.lanes.reg"),
            Aggregation::Min(x),
            ValueKind::Min { signed },
            l,
        );
        push(
            format!("max.{s}.lanes.reg"),
            Aggregation::Max(x),
            ValueKind::Max { signed },
            l,
        );
    }
    // Home-slot probing of constant keys, with the uniform and per-lane amounts.
    let home = |name: &str, keys: Vec<Operand>, capacity, agg, value, plan| {
        Obligation::new(
            format!("warp.home.{name}"),
            What::WarpHash {
                keys,
                capacity,
                agg,
                value,
                plan,
                probing: Probing::Home,
            },
        )
    };
    let k1 = || vec![Operand::Imm(0x1234)];
    out.extend([
        home(
            "count.k0.cap4096",
            vec![],
            4096,
            Aggregation::Count,
            ValueKind::Count,
            Plan::Count,
        ),
        home(
            "count.k1.imm.cap1000",
            k1(),
            1000,
            Aggregation::Count,
            ValueKind::Count,
            Plan::Count,
        ),
        home(
            "sum.uniform.reg.k2.imm.cap8",
            vec![Operand::Imm(7), Operand::Imm(-1)],
            8,
            Aggregation::Sum(x),
            ValueKind::Sum { signed: true },
            Plan::Uniform,
        ),
        home(
            "sum.lanes.reg.k1.imm.cap4096",
            k1(),
            4096,
            Aggregation::Sum(x),
            ValueKind::Sum { signed: false },
            Plan::Lanes,
        ),
    ]);
}

fn rings(out: &mut Vec<Obligation>) {
    let field_sets: [(&str, Vec<Operand>); 2] = [
        ("f1.reg", vec![Operand::Reg(r(0))]),
        (
            "f3.mixed",
            vec![Operand::Reg(r(0)), Operand::Imm(-1), Operand::Reg(r(1))],
        ),
    ];
    for (fname, fields) in &field_sets {
        for overflow in [Overflow::Drop, Overflow::Overwrite] {
            let o = match overflow {
                Overflow::Drop => "drop",
                Overflow::Overwrite => "overwrite",
            };
            for capacity in [0, 1, 1024, 1000] {
                out.push(Obligation::new(
                    format!("ring.{o}.cap{capacity}.{fname}"),
                    What::Ring {
                        fields: fields.clone(),
                        capacity,
                        overflow,
                        latched: false,
                    },
                ));
                if overflow == Overflow::Drop {
                    out.push(Obligation::new(
                        format!("ring.drop.latched.cap{capacity}.{fname}"),
                        What::Ring {
                            fields: fields.clone(),
                            capacity,
                            overflow,
                            latched: true,
                        },
                    ));
                }
            }
        }
    }
    out.push(Obligation::new("ring.flush", What::RingFlush));
}

/// Every obligation, in a stable order.
pub(crate) fn all() -> Vec<Obligation> {
    let mut out = Vec::new();
    ext_and_mov(&mut out);
    bin_obligations(&mut out);
    specials(&mut out);
    persist(&mut out);
    site_obligations(&mut out);
    control(&mut out);
    combine(&mut out);
    hash(&mut out);
    warp(&mut out);
    rings(&mut out);
    super::buffer::all(&mut out);
    out
}

/// An obligation name for one IR instruction (`validate_insn`).
pub(crate) fn insn_name(insn: &Insn) -> String {
    match insn {
        Insn::Bin {
            op: o,
            width,
            dst,
            a,
            b,
        } => format!(
            "bin.{}.{}.r{}={},{}",
            o.mnemonic(),
            width_name(*width),
            dst.0,
            op(a),
            op(b)
        ),
        other => format!("insn.{other:?}"),
    }
}
