//! The GCN parser must not panic and print∘parse must give back the input exactly; the
//! kernel model, site listing and instrumentation of whatever parses must not panic, and
//! an instrumented module must parse again with the same kernels.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;
use warptrace_ir::{
    Aggregation, AttachPoint, AttachSpec, Insn, KeyType, MapDecl, MapId, MapKind, MemOp,
    MemSpace, Operand, Probe, Program, Reg, SiteValue, Special, ValueKind,
};
use warptrace_verifier::VerifiedProgram;

/// `mem:*:* { @m[kernel] = sum(bytes); }` and `kernel:exit { @m[tid.x] = count(); }`.
fn program() -> &'static VerifiedProgram {
    static P: OnceLock<VerifiedProgram> = OnceLock::new();
    P.get_or_init(|| {
        let probe = |point, insns: Vec<Insn>| Probe {
            attach: AttachSpec::new(point, None),
            spans: vec![None; insns.len()],
            insns,
        };
        let map = MapDecl {
            name: "m".into(),
            kind: MapKind::Hash { capacity: 64 },
            keys: vec![KeyType::Int { signed: false }],
            value: ValueKind::Sum { signed: false },
        };
        let program = Program {
            maps: vec![map],
            probes: vec![
                probe(
                    AttachPoint::Mem {
                        space: MemSpace::Any,
                        op: MemOp::Any,
                    },
                    vec![
                        Insn::ReadSpecial {
                            dst: Reg(0),
                            special: Special::KernelId,
                        },
                        Insn::ReadSite {
                            dst: Reg(1),
                            value: SiteValue::Bytes,
                        },
                        Insn::MapUpdate {
                            map: MapId(0),
                            keys: vec![Operand::Reg(Reg(0))],
                            agg: Aggregation::Sum(Operand::Reg(Reg(1))),
                        },
                        Insn::Exit,
                    ],
                ),
                probe(
                    AttachPoint::KernelExit,
                    vec![
                        Insn::ReadSpecial {
                            dst: Reg(0),
                            special: Special::TidX,
                        },
                        Insn::MapUpdate {
                            map: MapId(0),
                            keys: vec![Operand::Reg(Reg(0))],
                            agg: Aggregation::Sum(Operand::Imm(1)),
                        },
                        Insn::Exit,
                    ],
                ),
            ],
            ..Program::default()
        };
        warptrace_verifier::verify_program(&program).expect("the fuzz program verifies")
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(module) = warptrace_codegen_gcn::parse(text) else {
        return;
    };
    assert_eq!(module.to_text(), text);
    for k in &module.kernels {
        let _ = module.kernel_model(&k.name);
    }
    let _ = warptrace_codegen_gcn::list_sites(text, program().program());
    if let Ok(out) = warptrace_codegen_gcn::instrument(text, program()) {
        let again = warptrace_codegen_gcn::parse(&out.asm).expect("instrumented text parses");
        let before: Vec<&str> = module.kernels.iter().map(|k| k.name.as_str()).collect();
        let after: Vec<&str> = again.kernels.iter().map(|k| k.name.as_str()).collect();
        assert_eq!(before, after);
    }
});
