//! Probe programs built by hand in IR (the language crate is not needed to test code
//! generation).

use warptrace_ir::{
    Aggregation, AttachPoint, AttachSpec, BinOp, Insn, KeyType, MapDecl, MapId, MapKind, MemOp,
    MemSpace, Operand, Per, PersistDecl, PersistId, Probe, Program, Reg, SiteValue, Special,
    ValueKind, Width,
};
use warptrace_verifier::{verify_program, VerifiedProgram};

/// A hash map of 4096 slots keyed by kernel id.
pub fn kernel_map(name: &str, value: ValueKind) -> MapDecl {
    MapDecl {
        name: name.into(),
        kind: MapKind::Hash { capacity: 4096 },
        keys: vec![KeyType::Kernel],
        value,
    }
}

/// A probe with no source spans.
pub fn probe(point: AttachPoint, insns: Vec<Insn>) -> Probe {
    Probe {
        attach: AttachSpec::new(point, None),
        spans: vec![None; insns.len()],
        insns,
    }
}

fn r(n: u16) -> Reg {
    Reg(n)
}

/// `POINT /tid.x == 0 && tid.y == 0 && tid.z == 0/ { @m[kernel] = count(); }`
pub fn block_counter(point: AttachPoint, map: MapId) -> Probe {
    let mut insns = Vec::new();
    for (k, sp) in [Special::TidX, Special::TidY, Special::TidZ]
        .into_iter()
        .enumerate()
    {
        let k = 2 * k as u16;
        insns.push(Insn::ReadSpecial {
            dst: r(k),
            special: sp,
        });
        insns.push(Insn::Bin {
            op: BinOp::Eq,
            width: Width::W64,
            dst: r(k + 1),
            a: Operand::Reg(r(k)),
            b: Operand::Imm(0),
        });
        insns.push(Insn::Branch {
            cond: r(k + 1),
            if_zero: true,
            target: 11,
        });
    }
    insns.push(Insn::ReadSpecial {
        dst: r(6),
        special: Special::KernelId,
    });
    insns.push(Insn::MapUpdate {
        map,
        keys: vec![Operand::Reg(r(6))],
        agg: Aggregation::Count,
    });
    insns.push(Insn::Exit);
    probe(point, insns)
}

/// `mem:global:OP { @m[kernel] = sum(bytes); }`
pub fn byte_counter(op: MemOp, map: MapId) -> Probe {
    probe(
        AttachPoint::Mem {
            space: MemSpace::Global,
            op,
        },
        vec![
            Insn::ReadSpecial {
                dst: r(0),
                special: Special::KernelId,
            },
            Insn::ReadSite {
                dst: r(1),
                value: SiteValue::Bytes,
            },
            Insn::MapUpdate {
                map,
                keys: vec![Operand::Reg(r(0))],
                agg: Aggregation::Sum(Operand::Reg(r(1))),
            },
            Insn::Exit,
        ],
    )
}

/// The skeleton program with `point` for the block counter and `op` for the byte counter:
/// `kernel:entry /tid == 0/ { @blocks[kernel] = count(); }`
/// `mem:global:load { @ldbytes[kernel] = sum(bytes); }` for the defaults.
pub fn skeleton_with(point: AttachPoint, op: MemOp) -> Program {
    Program {
        maps: vec![
            kernel_map("blocks", ValueKind::Count),
            kernel_map("ldbytes", ValueKind::Sum { signed: false }),
        ],
        probes: vec![block_counter(point, MapId(0)), byte_counter(op, MapId(1))],
        ..Program::default()
    }
}

/// The skeleton program (`kernel:entry` and `mem:global:load`).
pub fn skeleton() -> Program {
    skeleton_with(AttachPoint::KernelEntry, MemOp::Load)
}

/// A probe at `mem:global:*` that exercises every ALU operation at both widths with
/// register and immediate operands, every special register, `addr`, jumps, constant and
/// tuple keys, and a zero key; for assembling, not for its results.
pub fn every_op() -> Program {
    let mut insns = vec![
        Insn::ReadSite {
            dst: r(0),
            value: SiteValue::Addr,
        },
        Insn::ReadSite {
            dst: r(1),
            value: SiteValue::Bytes,
        },
        Insn::Mov {
            dst: r(2),
            src: Operand::Imm(-3),
        },
    ];
    let mut n = 3u16;
    for width in [Width::W64, Width::W32] {
        for op in BinOp::ALL {
            let b = if op.divides() {
                Operand::Imm(7)
            } else {
                Operand::Reg(r(1))
            };
            insns.push(Insn::Bin {
                op,
                width,
                dst: r(n),
                a: Operand::Reg(r(0)),
                b,
            });
            insns.push(Insn::Bin {
                op,
                width,
                dst: r(n),
                a: Operand::Imm(i64::MIN + 5),
                b: if op.divides() {
                    Operand::Imm(-9)
                } else {
                    Operand::Reg(r(n))
                },
            });
            n += 1;
        }
    }
    // Hardware, per-kernel and map-buffer specials (the computed ones have their own
    // tests).
    let lowered = [
        Special::Launch,
        Special::TidX,
        Special::TidY,
        Special::TidZ,
        Special::CtaidX,
        Special::CtaidY,
        Special::CtaidZ,
        Special::Smid,
        Special::Clock64,
        Special::KernelId,
    ];
    for sp in lowered {
        insns.push(Insn::ReadSpecial {
            dst: r(n),
            special: sp,
        });
        n += 1;
    }
    let skip = insns.len() as u32 + 3;
    insns.push(Insn::Branch {
        cond: r(3),
        if_zero: false,
        target: skip,
    });
    insns.push(Insn::Jump { target: skip + 1 });
    insns.push(Insn::Exit);
    insns.push(Insn::MapUpdate {
        map: MapId(0),
        keys: vec![Operand::Reg(r(0)), Operand::Imm(-1), Operand::Reg(r(2))],
        agg: Aggregation::Sum(Operand::Imm(-2)),
    });
    insns.push(Insn::MapUpdate {
        map: MapId(1),
        keys: vec![Operand::Imm(0)],
        agg: Aggregation::Count,
    });
    insns.push(Insn::MapUpdate {
        map: MapId(2),
        keys: vec![],
        agg: Aggregation::Sum(Operand::Reg(r(1))),
    });
    insns.push(Insn::ArraySave {
        map: MapId(3),
        cursor: PersistId(0),
        fields: vec![Operand::Reg(r(0)), Operand::Imm(-3)],
    });
    insns.push(Insn::Exit);
    let map = |name: &str, keys: usize, capacity, value| MapDecl {
        name: name.into(),
        kind: MapKind::Hash { capacity },
        keys: vec![KeyType::Int { signed: true }; keys],
        value,
    };
    let sum = ValueKind::Sum { signed: true };
    Program {
        maps: vec![
            map("tuple", 3, 64, sum.clone()),
            map("zero", 1, 16, ValueKind::Count),
            map("scalar", 0, 1, sum),
            MapDecl {
                name: "saved".into(),
                kind: MapKind::Array {
                    per: Per::Thread,
                    slots: 3,
                },
                keys: vec![],
                value: ValueKind::Record(vec![KeyType::Int { signed: false }; 2]),
            },
        ],
        persistent: vec![PersistDecl {
            name: "saved_slot".into(),
        }],
        probes: vec![probe(
            AttachPoint::Mem {
                space: MemSpace::Any,
                op: MemOp::Any,
            },
            insns,
        )],
        ..Program::default()
    }
}

/// Runs the IR verifier; panics with its errors if it rejects `p`.
pub fn verified(p: &Program) -> VerifiedProgram {
    verify_program(p).unwrap_or_else(|e| panic!("IR verifier rejected the program:\n{e}"))
}
