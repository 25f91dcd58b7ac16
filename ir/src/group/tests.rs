//! A group's body against its firings run one after another, by the interpreter's own
//! step function, from random persistent registers and specials.

use super::*;
use crate::interp::{run_body, Env, Fault, HostOp};
use crate::{FormatId, MapId, Program, SiteValue, Update};
use proptest::prelude::*;

/// Bodies of the shapes the library's counting probes have, and some that must be
/// refused or grouped with care.
const PROGRAM: &str = "\
persistent %lead
persistent %insns
persistent %lanes
persistent %mem
persistent %x
persistent %y

probe 0: ptx:*
  0: r0 = sreg activemask
  1: r1 = sreg lane
  2: r2 = shl.64 1, r1
  3: r3 = zext.32 r2
  4: r4 = sub.64 r3, 1
  5: r5 = zext.32 r4
  6: r6 = and.64 r0, r5
  7: r7 = eq.64 r6, 0
  8: store %lead, r7
  9: r8 = load %insns
  10: r9 = load %lead
  11: r10 = add.64 r8, r9
  12: store %insns, r10
  13: r11 = load %lanes
  14: r12 = add.64 r11, 1
  15: store %lanes, r12
  16: exit

probe 1: ptx:ld.*
  0: r0 = load %mem
  1: r1 = load %lead
  2: r2 = add.64 r0, r1
  3: store %mem, r2
  4: exit

probe 2: ptx:st.*
  0: r0 = load %x
  1: r1 = mul.64 r0, 3
  2: r2 = sreg tid.x
  3: r3 = sub.64 r1, r2
  4: store %x, r3
  5: exit

probe 3: ptx:add.*
  0: r0 = load %x
  1: r1 = load %y
  2: store %y, r0
  3: r2 = add.64 r1, r0
  4: store %x, r2
  5: exit

probe 4: ptx:mul.*
  0: r0 = load %y
  1: r1 = and.64 r0, 1
  2: store %y, r1
  3: exit

probe 5: ptx:mov.*
  0: r0 = sreg clock64
  1: r1 = load %x
  2: r2 = add.64 r1, r0
  3: store %x, r2
  4: exit

probe 6: ptx:sub.*
  0: r0 = load %lanes
  1: r1 = sreg ctaid.x
  2: r2 = add.32 r1, 7
  3: r3 = mul.64 r2, r1
  4: r4 = add.64 r0, r3
  5: store %lanes, r4
  6: r5 = load %mem
  7: r6 = mul.64 r5, r5
  8: exit
";

fn program() -> Program {
    Program::parse(PROGRAM).expect("the test program parses")
}

/// A thread: its persistent registers and the specials it reads.
struct Thread {
    persist: Vec<u64>,
    specials: HashMap<Special, u64>,
    clock: u64,
}

impl Env for Thread {
    fn special(&mut self, s: Special, _: u32) -> Result<u64, Fault> {
        if s == Special::Clock64 {
            // Moves on at every read, as the hardware's does.
            self.clock += 17;
            return Ok(self.clock);
        }
        self.specials
            .get(&s)
            .copied()
            .ok_or_else(|| Fault::Internal(format!("no {s:?}")))
    }
    fn site(&mut self, _: SiteValue) -> Result<u64, Fault> {
        Err(Fault::Internal("no site".into()))
    }
    fn load_persist(&mut self, p: PersistId) -> Result<u64, Fault> {
        Ok(self.persist[p.0 as usize])
    }
    fn store_persist(&mut self, p: PersistId, v: u64) -> Result<(), Fault> {
        self.persist[p.0 as usize] = v;
        Ok(())
    }
    fn map_update(&mut self, _: MapId, _: &[u64], _: Update) -> Result<(), Fault> {
        Err(Fault::Internal("no maps".into()))
    }
    fn array_save(&mut self, _: MapId, _: PersistId, _: &[u64]) -> Result<(), Fault> {
        Err(Fault::Internal("no maps".into()))
    }
    fn ring_append(&mut self, _: MapId, _: &[u64]) -> Result<(), Fault> {
        Err(Fault::Internal("no maps".into()))
    }
    fn printf(&mut self, _: FormatId, _: &[u64]) -> Result<(), Fault> {
        Err(Fault::Internal("no printf".into()))
    }
    fn host(&mut self, _: HostOp) -> Result<(), Fault> {
        Err(Fault::Internal("no host".into()))
    }
}

fn thread(persist: Vec<u64>, lane: u64, mask: u64, tid: u64, ctaid: u64) -> Thread {
    Thread {
        persist,
        specials: HashMap::from([
            (Special::Lane, lane),
            (Special::ActiveMask, mask | (1 << lane)),
            (Special::TidX, tid),
            (Special::CtaidX, ctaid),
        ]),
        clock: 0,
    }
}

proptest! {
    #[test]
    fn a_groups_body_does_what_its_firings_do(
        firings in proptest::collection::vec(0usize..7, 0..40),
        persist in proptest::collection::vec(any::<u64>(), 6),
        lane in 0u64..32,
        mask in any::<u32>(),
        tid in any::<u32>(),
        ctaid in any::<u32>(),
    ) {
        let program = program();
        let mut group = Group::new();
        let mut accepted = Vec::new();
        for &p in &firings {
            if group.push(&program.probes[p]).is_ok() {
                accepted.push(p);
            }
        }
        prop_assert_eq!(group.len(), accepted.len());
        let mut one_by_one = thread(persist.clone(), lane, u64::from(mask), u64::from(tid), u64::from(ctaid));
        for &p in &accepted {
            run_body(&program.probes[p].insns, &mut one_by_one).expect("a firing runs");
        }
        let mut grouped = thread(persist, lane, u64::from(mask), u64::from(tid), u64::from(ctaid));
        run_body(&group.body(), &mut grouped).expect("the group's body runs");
        prop_assert_eq!(one_by_one.persist, grouped.persist);
    }
}

#[test]
fn counters_become_one_add_of_a_multiple() {
    let program = program();
    let mut group = Group::new();
    for p in [0, 1, 0, 0, 1] {
        group
            .push(&program.probes[p])
            .expect("counting probes group");
    }
    let body = group.body();
    let text: Vec<String> = body.iter().map(|i| format!("{i:?}")).collect();
    // %lead's test once; %insns += 3·lead, %lanes += 3, %mem += 2·lead.
    assert_eq!(
        body.iter()
            .filter(|i| matches!(i, Insn::ReadSpecial { .. }))
            .count(),
        2,
        "{text:#?}"
    );
    assert_eq!(
        body.iter()
            .filter(|i| matches!(i, Insn::StorePersist { .. }))
            .count(),
        4,
        "{text:#?}"
    );
    assert!(
        body.iter().any(|i| matches!(
            i,
            Insn::Bin {
                op: BinOp::Mul,
                b: Operand::Imm(3),
                ..
            }
        )),
        "{text:#?}"
    );
    assert!(body.len() < 5 * 10, "{text:#?}");
}

#[test]
fn what_the_sums_cannot_express_is_refused_and_leaves_the_group_as_it_was() {
    let program = program();
    let mut group = Group::new();
    group.push(&program.probes[0]).expect("counting");
    let before = group.body();
    assert_eq!(group.push(&program.probes[4]), Err(Refusal::NotLinear));
    assert_eq!(group.push(&program.probes[5]), Err(Refusal::NotArithmetic));
    assert_eq!(group.len(), 1);
    assert_eq!(group.body(), before);
}

#[test]
fn a_firing_that_reads_a_site_or_writes_a_map_is_refused() {
    let program = Program::parse(
        "map @n: hash(keys = 16) [kernel] -> count\n\n\
         probe 0: mem:global:load\n  0: r0 = site bytes\n  1: exit\n\n\
         probe 1: ptx:*\n  0: r0 = sreg kernel\n  1: map.update @n[r0] count\n  2: exit\n",
    )
    .expect("parses");
    let mut group = Group::new();
    for p in &program.probes {
        assert_eq!(group.push(p), Err(Refusal::NotArithmetic));
    }
    assert!(group.is_empty());
}

#[test]
fn an_empty_group_changes_nothing() {
    assert_eq!(Group::new().body(), vec![Insn::Exit]);
}
