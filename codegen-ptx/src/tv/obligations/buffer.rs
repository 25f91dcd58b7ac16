//! The obligations that read the map buffer: `sreg launch` (a load of the buffer's
//! `launch` word, `lower_probe`) and `map.save` (`array::save`, directly and through
//! `lower_probe` of thread and `warp` probes).

use super::{emit_probe, Obligation, Site, What, LEADER};
use crate::lower::{reg, Emitter};
use crate::{array, Error};
use warptrace_ir::{
    AttachPoint, AttachSpec, Granularity, Insn, KeyType, MapDecl, MapId, MapKind, MapLayout,
    Operand, Overflow, Per, PersistId, Probe, Program, Reg, Special, ValueKind,
};

/// The persistent register (`%__wt_x3`) holding the cursor of the `array.*` obligations.
pub(crate) const CURSOR: u32 = 3;
/// The index of the array among `array_layout`'s maps.
pub(crate) const ARRAY_MAP: usize = 1;
/// The labels of the `array.*` obligations' snippet.
const LABELS: &str = "$__wt_1_a0";

/// Who writes the record in an `array.*` obligation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Writer {
    /// `array::save` without a writer predicate: every lane writes.
    Every,
    /// `array::save` with the warp leader predicate `LEADER`, an input here (its
    /// computation is `sreg.warp-leader`'s obligation).
    Leader,
    /// `lower_probe` of a thread probe: every lane writes.
    ThreadProbe,
    /// `lower_probe` of a `warp` probe: the leader its prologue computes writes; every
    /// lane runs the save (no leader skip around it).
    WarpProbe,
}

impl Writer {
    fn name(self) -> &'static str {
        match self {
            Writer::Every => "every",
            Writer::Leader => "leader",
            Writer::ThreadProbe => "probe.thread",
            Writer::WarpProbe => "probe.warp",
        }
    }
}

fn u64_fields(n: usize) -> ValueKind {
    ValueKind::Record(vec![KeyType::Int { signed: false }; n])
}

/// The maps of the `array.*` obligations: a ring (so that the array's drop counter and
/// offset word are not at the buffer's start), then the array (`ARRAY_MAP`).
fn array_maps(per: Per, slots: u32, fields: usize) -> Vec<MapDecl> {
    vec![
        MapDecl {
            name: "r".into(),
            kind: MapKind::Ring {
                capacity: 2,
                overflow: Overflow::Drop,
            },
            keys: Vec::new(),
            value: u64_fields(1),
        },
        MapDecl {
            name: "a".into(),
            kind: MapKind::Array { per, slots },
            keys: Vec::new(),
            value: u64_fields(fields),
        },
    ]
}

/// The layout of the `array.*` obligations' maps.
pub(crate) fn array_layout(per: Per, slots: u32, fields: usize) -> MapLayout {
    MapLayout::new(&array_maps(per, slots, fields))
}

/// The PTX of an `array.*` obligation.
pub(super) fn emit_array(
    per: Per,
    slots: u32,
    fields: &[Operand],
    writer: Writer,
) -> Result<String, Error> {
    let granularity = match writer {
        Writer::Every | Writer::Leader => {
            let layout = array_layout(per, slots, fields.len());
            let region = layout
                .regions
                .get(ARRAY_MAP)
                .ok_or_else(|| Error::Unsupported {
                    target: crate::TARGET,
                    what: "no region".into(),
                })?;
            let mut e = Emitter::default();
            let w = (writer == Writer::Leader).then_some(LEADER);
            array::save(&mut e, region, &reg("x", CURSOR), fields, w, LABELS);
            return Ok(e.finish());
        }
        Writer::ThreadProbe => Granularity::Thread,
        Writer::WarpProbe => Granularity::Warp,
    };
    let program = Program {
        maps: array_maps(per, slots, fields.len()),
        ..Program::default()
    };
    let insns = vec![
        Insn::ArraySave {
            map: MapId(ARRAY_MAP as u32),
            cursor: PersistId(CURSOR),
            fields: fields.to_vec(),
        },
        Insn::Exit,
    ];
    let mut attach = AttachSpec::new(AttachPoint::KernelEntry, None);
    attach.granularity = granularity;
    let probe = Probe {
        attach,
        spans: vec![None; insns.len()],
        insns,
    };
    emit_probe(&program, &probe, &Site::default())
}

/// The maps of `sreg.launch`: one of each kind, so that the `launch` word is well inside
/// the buffer.
fn launch_maps() -> Vec<MapDecl> {
    let mut maps = vec![MapDecl {
        name: "h".into(),
        kind: MapKind::Hash { capacity: 8 },
        keys: vec![KeyType::Int { signed: false }],
        value: ValueKind::Count,
    }];
    maps.extend(array_maps(Per::Warp, 3, 2));
    maps
}

/// The PTX of a `sreg.launch*` obligation.
pub(super) fn emit_launch(maps: &[MapDecl], dst: Reg, guarded: bool) -> Result<String, Error> {
    let program = Program {
        maps: maps.to_vec(),
        ..Program::default()
    };
    let insns = vec![
        Insn::ReadSpecial {
            dst,
            special: Special::Launch,
        },
        Insn::Exit,
    ];
    let site = Site {
        guarded,
        instr: guarded,
        opcode: guarded.then_some(1),
        imms: super::site_imms(),
        ..Site::default()
    };
    let point = if guarded {
        AttachPoint::Opcode {
            isa: warptrace_ir::Isa::Ptx,
            glob: "*".into(),
        }
    } else {
        AttachPoint::KernelEntry
    };
    let probe = Probe {
        attach: AttachSpec::new(point, None),
        spans: vec![None; insns.len()],
        insns,
    };
    emit_probe(&program, &probe, &site)
}

/// `sreg.launch*`: the `launch` word at a non-zero offset (and at 0: no maps), into
/// another register, and at a predicated site.
fn launch(out: &mut Vec<Obligation>) {
    let cases = [
        ("sreg.launch", launch_maps(), 0, false),
        ("sreg.launch.no-maps", Vec::new(), 0, false),
        ("sreg.launch.r7", launch_maps(), 7, false),
        ("sreg.launch.guarded-site", launch_maps(), 2, true),
    ];
    for (name, maps, dst, guarded) in cases {
        out.push(Obligation::new(
            name,
            What::Launch {
                maps,
                dst: Reg(dst),
                guarded,
            },
        ));
    }
}

/// `array.*`: per thread and per warp; every lane or the leader writing; slots at the
/// edges (0: every save drops; 1; 3, not a power of two; 4096; `u32::MAX`, the largest
/// and an immediate beyond `i32`); 1–3 fields of registers and immediates (inline and
/// materialised); and the saves `lower_probe` emits in thread and `warp` probes, one per
/// `per` of whose claims also includes that the grid terms' 32-bit evaluations are exact
/// (those the `thread` special shares are `sreg.thread`'s).
fn arrays(out: &mut Vec<Obligation>) {
    let reg = |n| Operand::Reg(Reg(n));
    let field_sets: [(&str, Vec<Operand>); 3] = [
        ("f1.reg", vec![reg(0)]),
        ("f2.reg-imm", vec![reg(1), Operand::Imm(-1)]),
        ("f3.mixed", vec![reg(0), Operand::Imm(7), reg(2)]),
    ];
    let pers = [(Per::Thread, "thread"), (Per::Warp, "warp")];
    for (per, pname) in pers {
        for writer in [Writer::Every, Writer::Leader] {
            for slots in [0, 1, 3, 4096, u32::MAX] {
                for (fname, fields) in &field_sets {
                    // Every field set at the common sizes, one at the extremes.
                    if matches!(slots, 0 | u32::MAX) && *fname != "f2.reg-imm" {
                        continue;
                    }
                    out.push(Obligation::new(
                        format!("array.{pname}.{}.slots{slots}.{fname}", writer.name()),
                        What::Array {
                            per,
                            slots,
                            fields: fields.clone(),
                            writer,
                            exact: false,
                        },
                    ));
                }
            }
        }
    }
    // `exact`: once per `per` (the goals are the same in all its obligations; per thread
    // they are all `sreg.thread`'s).
    let probes = [
        (Writer::ThreadProbe, Per::Thread, 3, true),
        (Writer::WarpProbe, Per::Thread, 3, false),
        (Writer::WarpProbe, Per::Warp, 1, false),
        (Writer::WarpProbe, Per::Warp, 4096, true),
    ];
    for (writer, per, slots, exact) in probes {
        let pname = if per == Per::Warp { "warp" } else { "thread" };
        let (fname, fields) = &field_sets[2];
        out.push(Obligation::new(
            format!("array.{pname}.{}.slots{slots}.{fname}", writer.name()),
            What::Array {
                per,
                slots,
                fields: fields.clone(),
                writer,
                exact,
            },
        ));
    }
}

/// Every obligation of this file, in a stable order.
pub(super) fn all(out: &mut Vec<Obligation>) {
    launch(out);
    arrays(out);
}
