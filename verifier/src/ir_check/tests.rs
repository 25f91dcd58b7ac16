//! IR-level tests: one program per rule, each checked for the rule and the location.

use super::MAX_PROBE_INSNS;
use crate::{verify_program, IrError, IrRule};
use warptrace_ir::{
    Aggregation, AttachPoint, AttachSpec, BinOp, Insn, KeyType, MapDecl, MapId, MapKind, MemOp,
    MemSpace, Operand, Probe, Program, Reg, SiteValue, Special, ValueKind, Width,
};

fn blocks_map() -> MapDecl {
    MapDecl {
        name: "blocks".into(),
        kind: MapKind::Hash { capacity: 4096 },
        keys: vec![KeyType::Kernel],
        value: ValueKind::Count,
    }
}

fn program(point: AttachPoint, insns: Vec<Insn>) -> Program {
    let spans = vec![None; insns.len()];
    Program {
        maps: vec![blocks_map()],
        probes: vec![Probe {
            attach: AttachSpec::new(point, None),
            insns,
            spans,
        }],
        ..Program::default()
    }
}

fn entry(insns: Vec<Insn>) -> Program {
    program(AttachPoint::KernelEntry, insns)
}

fn r(n: u16) -> Operand {
    Operand::Reg(Reg(n))
}

fn sreg(dst: u16, special: Special) -> Insn {
    Insn::ReadSpecial {
        dst: Reg(dst),
        special,
    }
}

fn bin(op: BinOp, dst: u16, a: Operand, b: Operand) -> Insn {
    Insn::Bin {
        op,
        width: Width::W64,
        dst: Reg(dst),
        a,
        b,
    }
}

fn count(keys: Vec<Operand>) -> Insn {
    Insn::MapUpdate {
        map: MapId(0),
        keys,
        agg: Aggregation::Count,
    }
}

fn jz(cond: u16, target: u32) -> Insn {
    Insn::Branch {
        cond: Reg(cond),
        if_zero: true,
        target,
    }
}

/// What the language compiles for
/// `kernel:entry /tid.x == 0/ { @blocks[kernel] = count(); }`.
fn blocks_per_kernel() -> Program {
    entry(vec![
        sreg(0, Special::TidX),
        bin(BinOp::Eq, 1, r(0), Operand::Imm(0)),
        jz(1, 5),
        sreg(2, Special::KernelId),
        count(vec![r(2)]),
        Insn::Exit,
    ])
}

/// The errors of `p`, which must be rejected.
fn errors(p: &Program) -> Vec<IrError> {
    match verify_program(p) {
        Ok(_) => panic!("program was accepted:\n{p}"),
        Err(e) => e.0,
    }
}

/// Asserts that `p` is rejected with exactly one error, of `rule` at `insn`.
fn rejects(p: &Program, rule: IrRule, insn: Option<usize>) -> IrError {
    let errs = errors(p);
    assert_eq!(errs.len(), 1, "expected one error, got {errs:#?}");
    let e = errs[0].clone();
    assert_eq!((e.rule, e.probe, e.insn), (rule, 0, insn), "{e}");
    e
}

#[test]
fn accepts_blocks_per_kernel() {
    let p = blocks_per_kernel();
    let verified = verify_program(&p).expect("accepted");
    assert_eq!(verified.program(), &p);
}

#[test]
fn accepts_site_read_at_mem_probe_and_nonzero_divisor() {
    let p = program(
        AttachPoint::Mem {
            space: MemSpace::Global,
            op: MemOp::Load,
        },
        vec![
            Insn::ReadSite {
                dst: Reg(0),
                value: SiteValue::Addr,
            },
            bin(BinOp::DivU, 1, r(0), Operand::Imm(128)),
            bin(BinOp::RemS, 2, r(1), Operand::Imm(-3)),
            count(vec![r(2)]),
            Insn::Exit,
        ],
    );
    verify_program(&p).expect("accepted");
}

#[test]
fn accepts_register_defined_on_both_arms() {
    // 0: r0 = tid.x; 1: jz r0, 4; 2: r1 = 1; 3: ja 5; 4: r1 = 2; 5: update @blocks[r1]
    let p = entry(vec![
        sreg(0, Special::TidX),
        jz(0, 4),
        Insn::Mov {
            dst: Reg(1),
            src: Operand::Imm(1),
        },
        Insn::Jump { target: 5 },
        Insn::Mov {
            dst: Reg(1),
            src: Operand::Imm(2),
        },
        count(vec![r(1)]),
        Insn::Exit,
    ]);
    verify_program(&p).expect("accepted");
}

#[test]
fn unreachable_tail_does_not_fall_off() {
    let p = entry(vec![Insn::Exit, sreg(0, Special::TidX)]);
    verify_program(&p).expect("no path runs past the end");
}

#[test]
fn rejects_backward_jump() {
    let p = entry(vec![sreg(0, Special::TidX), jz(0, 0), Insn::Exit]);
    let e = rejects(&p, IrRule::JumpTarget, Some(1));
    assert!(e.message.contains("backwards to insn 0"), "{e}");
}

#[test]
fn rejects_jump_to_itself() {
    let p = entry(vec![Insn::Jump { target: 0 }, Insn::Exit]);
    rejects(&p, IrRule::JumpTarget, Some(0));
}

#[test]
fn rejects_jump_past_the_end() {
    let p = entry(vec![Insn::Jump { target: 2 }, Insn::Exit]);
    let e = rejects(&p, IrRule::JumpTarget, Some(0));
    assert!(
        e.message.contains("past the probe's last instruction (1)"),
        "{e}"
    );
}

#[test]
fn rejects_fall_through_past_the_end() {
    let p = entry(vec![sreg(0, Special::TidX), count(vec![r(0)])]);
    rejects(&p, IrRule::MissingExit, Some(1));
}

#[test]
fn rejects_branch_falling_off_the_end() {
    // Reached only through the branch; then it runs off the end.
    let p = entry(vec![
        sreg(0, Special::TidX),
        jz(0, 3),
        Insn::Exit,
        count(vec![r(0)]),
    ]);
    rejects(&p, IrRule::MissingExit, Some(3));
}

#[test]
fn rejects_empty_probe() {
    rejects(&entry(vec![]), IrRule::MissingExit, None);
}

#[test]
fn rejects_use_before_any_def() {
    let p = entry(vec![count(vec![r(3)]), Insn::Exit]);
    let e = rejects(&p, IrRule::UseBeforeDef, Some(0));
    assert!(
        e.message.contains("r3 is read here but never written"),
        "{e}"
    );
}

#[test]
fn rejects_use_defined_on_one_path_only() {
    // 0: r0 = tid.x; 1: jz r0, 3; 2: r1 = 7; 3: update @blocks[r1]; 4: exit
    let p = entry(vec![
        sreg(0, Special::TidX),
        jz(0, 3),
        Insn::Mov {
            dst: Reg(1),
            src: Operand::Imm(7),
        },
        count(vec![r(1)]),
        Insn::Exit,
    ]);
    let e = rejects(&p, IrRule::UseBeforeDef, Some(3));
    assert!(e.message.contains("not on the path through insn 1"), "{e}");
}

#[test]
fn rejects_unknown_map() {
    let mut p = blocks_per_kernel();
    p.probes[0].insns[4] = Insn::MapUpdate {
        map: MapId(1),
        keys: vec![r(2)],
        agg: Aggregation::Count,
    };
    rejects(&p, IrRule::MapUsage, Some(4));
}

#[test]
fn rejects_wrong_key_arity() {
    let mut p = blocks_per_kernel();
    p.probes[0].insns[4] = count(vec![r(2), r(0)]);
    let e = rejects(&p, IrRule::MapUsage, Some(4));
    assert!(e
        .message
        .contains("@blocks is declared with 1 key(s), but the update passes 2"));
}

#[test]
fn rejects_wrong_aggregation() {
    let mut p = blocks_per_kernel();
    p.probes[0].insns[4] = Insn::MapUpdate {
        map: MapId(0),
        keys: vec![r(2)],
        agg: Aggregation::Sum(r(0)),
    };
    rejects(&p, IrRule::MapUsage, Some(4));
}

#[test]
fn rejects_site_read_at_kernel_entry() {
    let mut p = blocks_per_kernel();
    p.probes[0].insns[3] = Insn::ReadSite {
        dst: Reg(2),
        value: SiteValue::Bytes,
    };
    let e = rejects(&p, IrRule::SiteOperand, Some(3));
    assert!(e.message.contains("kernel:entry"), "{e}");
}

#[test]
fn rejects_per_site_value_at_kernel_exit() {
    let mut p = blocks_per_kernel();
    p.probes[0].attach.point = AttachPoint::KernelExit;
    p.probes[0].insns[3] = sreg(2, Special::Line);
    let e = rejects(&p, IrRule::SiteOperand, Some(3));
    assert!(e.message.contains("`sreg line`"), "{e}");
}

#[test]
fn rejects_host_only_operation_in_a_device_probe() {
    let mut p = blocks_per_kernel();
    p.probes[0].insns[4] = Insn::Print {
        map: MapId(0),
        top: 0,
        div: 0,
    };
    let e = rejects(&p, IrRule::HostOnly, Some(4));
    assert!(e.message.contains("host-only"), "{e}");
}

#[test]
fn rejects_ring_append_to_a_hash_map() {
    let mut p = blocks_per_kernel();
    p.probes[0].insns[4] = Insn::RingAppend {
        map: MapId(0),
        fields: vec![r(2)],
    };
    let e = rejects(&p, IrRule::MapUsage, Some(4));
    assert!(e.message.contains("another kind"), "{e}");
}

#[test]
fn accepts_the_new_operations_where_they_belong() {
    let p = Program::parse(
        "map @t: ring(capacity = 8, overflow = drop) -> record(u64, u64)\n\
         map @pf: ring(capacity = 8, overflow = drop) -> printf(2)\n\
         map @h: hash(keys = 8) [u64] -> hist\n\
         persistent %t0\n\
         format 0: \"%d %d\"\n\
         \n\
         probe 0: after mem:global:load\n\
         \x20 0: r0 = site value\n\
         \x20 1: r1 = load %t0\n\
         \x20 2: r2 = sreg pc\n\
         \x20 3: map.append @t, (r0, r1)\n\
         \x20 4: printf 0, (r0, r2)\n\
         \x20 5: r3 = zext.8 r0\n\
         \x20 6: map.update @h[r3] hist r1\n\
         \x20 7: store %t0, r0\n\
         \x20 8: exit\n",
    )
    .expect("parses");
    verify_program(&p).expect("accepted");
}

#[test]
fn rejects_zero_divisor() {
    let mut p = blocks_per_kernel();
    p.probes[0].insns[3] = bin(BinOp::DivU, 2, r(0), Operand::Imm(0));
    rejects(&p, IrRule::DivisorMayBeZero, Some(3));
}

#[test]
fn rejects_register_divisor() {
    let mut p = blocks_per_kernel();
    p.probes[0].insns[3] = bin(BinOp::RemU, 2, Operand::Imm(100), r(0));
    let e = rejects(&p, IrRule::DivisorMayBeZero, Some(3));
    assert!(e.message.contains("divisor r0 of rem.u may be zero"), "{e}");
}

#[test]
fn rejects_probe_over_budget() {
    let mut insns = vec![sreg(0, Special::TidX); MAX_PROBE_INSNS];
    insns.push(Insn::Exit);
    rejects(&entry(insns), IrRule::Budget, None);
}

#[test]
fn accepts_probe_at_budget() {
    let mut insns = vec![sreg(0, Special::TidX); MAX_PROBE_INSNS - 1];
    insns.push(Insn::Exit);
    verify_program(&entry(insns)).expect("exactly the budget is allowed");
}

#[test]
fn accumulates_errors_across_probes_in_order() {
    let mut p = blocks_per_kernel();
    let mut second = p.probes[0].clone();
    second.attach.point = AttachPoint::KernelExit;
    second.insns[0] = Insn::ReadSite {
        dst: Reg(0),
        value: SiteValue::Addr,
    };
    second.insns[3] = bin(BinOp::DivS, 2, r(0), Operand::Imm(0));
    p.probes[0].insns[2] = jz(1, 9);
    p.probes.push(second);
    let got: Vec<_> = errors(&p)
        .iter()
        .map(|e| (e.probe, e.insn, e.rule))
        .collect();
    assert_eq!(
        got,
        vec![
            (0, Some(2), IrRule::JumpTarget),
            (1, Some(0), IrRule::SiteOperand),
            (1, Some(3), IrRule::DivisorMayBeZero),
        ]
    );
}

#[test]
fn error_is_located_with_attach_spec_and_insn_text() {
    let mut p = blocks_per_kernel();
    p.probes[0].attach.kernel_glob = Some("*add*".into());
    p.probes[0].insns[3] = bin(BinOp::DivU, 2, r(0), Operand::Imm(0));
    let e = rejects(&p, IrRule::DivisorMayBeZero, Some(3));
    assert_eq!(e.context, "kernel:entry:*add* | 3: r2 = div.u.64 r0, 0");
    let shown = e.to_string();
    assert!(
        shown.starts_with("probe 0, insn 3: divisor 0 of div.u may be zero"),
        "{shown}"
    );
    assert!(shown.contains("(DivisorMayBeZero)"), "{shown}");
}

/// A probe dividing `smid` by `r1`, with `body` computing `r1` (instructions 1..).
fn divisor_program(body: &str) -> Program {
    Program::parse(&format!(
        "map @m: hash(keys = 8) -> sum u64\n\
         \n\
         probe 0: kernel:entry\n\
         \x20 0: r0 = sreg smid\n\
         {body}"
    ))
    .expect("parses")
}

#[test]
fn proves_or_with_a_constant_non_zero() {
    let p = divisor_program(
        "  1: r2 = sreg tid.x\n\
         \x20 2: r1 = or.64 r2, 1\n\
         \x20 3: r3 = div.u.64 r0, r1\n\
         \x20 4: map.update @m sum r3\n\
         \x20 5: exit\n",
    );
    verify_program(&p).expect("tid.x | 1 is never zero");
}

#[test]
fn proves_a_divisor_non_zero_on_every_path_of_a_join() {
    // r1 = tid.x != 0 ? 4 : 8, as the language lowers `?:`.
    let p = divisor_program(
        "  1: r2 = sreg tid.x\n\
         \x20 2: jz r2, 5\n\
         \x20 3: r1 = mov 4\n\
         \x20 4: ja 6\n\
         \x20 5: r1 = mov 8\n\
         \x20 6: r3 = rem.u.64 r0, r1\n\
         \x20 7: map.update @m sum r3\n\
         \x20 8: exit\n",
    );
    verify_program(&p).expect("both arms are non-zero");
}

#[test]
fn rejects_a_divisor_zero_on_one_path() {
    let p = divisor_program(
        "  1: r2 = sreg tid.x\n\
         \x20 2: jz r2, 5\n\
         \x20 3: r1 = mov 4\n\
         \x20 4: ja 6\n\
         \x20 5: r1 = mov r2\n\
         \x20 6: r3 = div.u.64 r0, r1\n\
         \x20 7: map.update @m sum r3\n\
         \x20 8: exit\n",
    );
    rejects(&p, IrRule::DivisorMayBeZero, Some(6));
}

#[test]
fn a_non_zero_register_does_not_make_its_low_half_non_zero() {
    // r1 = 1 << 32 is non-zero, but `or.32 r1, 0` keeps only its (zero) low half.
    let p = divisor_program(
        "  1: r1 = mov 4294967296\n\
         \x20 2: r4 = or.32 r1, 0\n\
         \x20 3: r3 = div.u.64 r0, r4\n\
         \x20 4: map.update @m sum r3\n\
         \x20 5: exit\n",
    );
    rejects(&p, IrRule::DivisorMayBeZero, Some(3));
}

#[test]
fn z3_proves_what_intervals_cannot() {
    // ntid.x - tid.x >= 1 needs the relation tid.x < ntid.x.
    let p = divisor_program(
        "  1: r2 = sreg tid.x\n\
         \x20 2: r4 = sreg ntid.x\n\
         \x20 3: r1 = sub.64 r4, r2\n\
         \x20 4: r3 = div.u.32 r0, r1\n\
         \x20 5: map.update @m sum r3\n\
         \x20 6: exit\n",
    );
    let v = verify_program(&p).expect("ntid.x - tid.x is never zero");
    let o = v
        .obligations()
        .iter()
        .find(|o| o.location == "probe 0, insn 4")
        .expect("the divisor's obligation is recorded");
    assert_eq!(o.method, crate::Method::Smt);
    assert!(o.verdict.is_proved());
}

#[test]
fn intervals_narrow_on_a_guard() {
    // `if (x != 0) { smid / x }` with x a persistent register.
    let p = Program::parse(
        "map @m: hash(keys = 8) -> sum u64\n\
         persistent %x\n\
         \n\
         probe 0: kernel:entry\n\
         \x20 0: r0 = sreg smid\n\
         \x20 1: r1 = load %x\n\
         \x20 2: r2 = ne.64 r1, 0\n\
         \x20 3: jz r2, 6\n\
         \x20 4: r3 = div.u.64 r0, r1\n\
         \x20 5: map.update @m sum r3\n\
         \x20 6: exit\n",
    )
    .expect("parses");
    let v = verify_program(&p).expect("the guard excludes zero");
    assert!(v
        .obligations()
        .iter()
        .any(|o| o.method == crate::Method::Intervals && o.location == "probe 0, insn 4"));
}

#[test]
fn a_refuted_divisor_names_its_counterexample() {
    let p = divisor_program(
        "  1: r1 = sreg tid.x\n\
         \x20 2: r3 = div.u.64 r0, r1\n\
         \x20 3: map.update @m sum r3\n\
         \x20 4: exit\n",
    );
    let e = rejects(&p, IrRule::DivisorMayBeZero, Some(2));
    assert!(e.message.contains("z3: zero when"), "{e}");
    assert!(e.message.contains("tid.x = 0x0"), "{e}");
}

#[test]
fn a_64_bit_guard_does_not_protect_a_32_bit_division() {
    // x = 1 << 32 passes `x != 0` and reaches `div.u.32` with a zero low half.
    let p = Program::parse(
        "map @m: hash(keys = 8) -> sum u64\n\
         persistent %x\n\
         \n\
         probe 0: kernel:entry\n\
         \x20 0: r0 = sreg smid\n\
         \x20 1: r1 = load %x\n\
         \x20 2: r2 = ne.64 r1, 0\n\
         \x20 3: jz r2, 6\n\
         \x20 4: r3 = div.u.32 r0, r1\n\
         \x20 5: map.update @m sum r3\n\
         \x20 6: exit\n",
    )
    .expect("parses");
    let e = rejects(&p, IrRule::DivisorMayBeZero, Some(4));
    assert!(e.message.contains("persistent 0 = 0x"), "{e}");
}

/// The ranges of the lane values hold for a 64-lane wave too (decision 0026): a divisor
/// that is zero only for lane 40, or for 33 to 64 active lanes or sectors, may be zero;
/// one that is zero only past those limits is not.
#[test]
fn lane_ranges_hold_for_a_64_lane_wave() {
    let divide = |read: &str, minus: u64| {
        Program::parse(&format!(
            "probe 0: mem:global:load\n\
             \x20 0: r0 = {read}\n\
             \x20 1: r1 = sub.64 r0, {minus}\n\
             \x20 2: r2 = div.u.64 100, r1\n\
             \x20 3: exit\n"
        ))
        .expect("parses")
    };
    for (read, zero_at) in [
        ("sreg lane", 40),
        ("sreg lane", 63),
        ("sreg active", 64),
        ("site sectors", 33),
        ("site wavefronts", 64),
    ] {
        rejects(&divide(read, zero_at), IrRule::DivisorMayBeZero, Some(2));
    }
    for (read, zero_at) in [("sreg lane", 64), ("sreg active", 65), ("site sectors", 65)] {
        verify_program(&divide(read, zero_at)).expect("a divisor zero past the limit");
    }
    // `activemask` holds the reading lane: never zero, with any of 64 bits set.
    rejects(
        &divide("sreg activemask", 1 << 40),
        IrRule::DivisorMayBeZero,
        Some(2),
    );
    verify_program(&divide("sreg activemask", 0)).expect("a non-zero mask");
}
