//! One snippet per straight-line piece gives the maps one snippet per site gives
//! (decision 0048), on every kernel of the PTX corpus and the JIT reproductions, with
//! every shipped probe and a program made to mix groupable and other probes.
//!
//! Both placements come from the back end ([`site_plans`]), and the interpreter runs
//! each of them over the same threads: every thread walks the kernel's real statements
//! from its entry, taking each guarded instruction and each conditional branch by a coin
//! of its own (so a warp's lanes diverge and reconverge), following `bra` to its label,
//! and stopping at a `ret` or `exit`, or after a branch or call once it has walked far
//! enough. At each statement it fires the probes the placement puts there, in order.
//! The maps of the two runs must be equal.
//!
//! Probes that read a clock are left out: the interpreter's clock counts the sites a warp
//! has run, and grouping runs fewer of them by design.

use std::collections::HashMap;
use warptrace_codegen_ptx::{parse, site_plans, PlannedSite, Stmt, StmtKind};
use warptrace_ir::interp::{Event, Grid, Interpreter, SimKernel, SiteEvent};
use warptrace_ir::{Insn, MemOp, MemSpace, Program, Special};

/// Statements a thread walks before it may stop after a branch or call.
const WALK: usize = 600;

/// A program whose counters group, with probes between them that must end a group: a map
/// update, a predicate, operations the sums cannot express, a persistent register read by
/// a map update at a site of its own.
const MIXED: &str = r#"
ptx:* { %n = %n + 1; }
ptx:ld.* { @loads[kernel] = count(); %l = %l + (u64)lane * 3; }
ptx:st.* /lane == 0/ { %s = %s + 2; }
ptx:mul.* { %m = %m * 3 + (u64)tid.x; }
ptx:and.* { %b = (%b + 1) & 0xff; }
ptx:setp.* { @seen[kernel] = max(%n); }
kernel:exit {
  @n[kernel] = sum(%n);
  @l[kernel] = sum(%l);
  @s[kernel] = sum(%s);
  @m[kernel] = sum(%m);
  @b[kernel] = sum(%b);
}
"#;

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn reads_a_clock(program: &Program) -> bool {
    program.probes.iter().flat_map(|p| &p.insns).any(|i| {
        matches!(
            i,
            Insn::ReadSpecial {
                special: Special::Clock | Special::Clock64 | Special::GlobalTimer,
                ..
            }
        )
    })
}

/// The event of an instruction: a memory access (at an address of the thread's own) for
/// the memory instructions, whose probes read their operands; else by its kind.
fn event_of(stmt: &Stmt, idx: usize, thread: u64) -> SiteEvent {
    let StmtKind::Instr(i) = &stmt.kind else {
        return SiteEvent::Insn {
            opcode: String::new(),
        };
    };
    let opcode = i.opcode.to_string();
    let op = match i.root() {
        "ld" | "ldu" => Some(MemOp::Load),
        "st" => Some(MemOp::Store),
        "atom" | "red" => Some(MemOp::Atomic),
        "cp" => Some(MemOp::Async),
        _ => None,
    };
    let bytes = warptrace_codegen_ptx::access_bytes(&opcode).unwrap_or(4);
    match (op, i.root()) {
        (Some(op), _) => SiteEvent::mem(
            MemSpace::Global,
            op,
            &opcode,
            0x7f00_0000_0000 + (idx as u64) * 0x1000 + thread * u64::from(bytes),
            u64::from(bytes),
        ),
        (None, "mma" | "wmma" | "wgmma") => SiteEvent::Mma { opcode },
        (None, "bar" | "barrier") => SiteEvent::Barrier { opcode },
        (None, "bra") => SiteEvent::Branch { opcode },
        _ => SiteEvent::Insn { opcode },
    }
}

/// The statements one thread runs (a guarded one only when its guard holds), from the
/// kernel's first instruction.
fn walk(stmts: &[Stmt], labels: &HashMap<&str, usize>, seed: u64) -> Vec<usize> {
    let mut state = seed;
    let mut coin = || splitmix(&mut state) & 1 == 0;
    let mut path = Vec::new();
    let mut at = stmts
        .iter()
        .position(|s| matches!(s.kind, StmtKind::Instr(_)))
        .unwrap_or(stmts.len());
    while let Some(stmt) = stmts.get(at) {
        at += 1;
        let StmtKind::Instr(i) = &stmt.kind else {
            continue;
        };
        if i.guard.is_some() && !coin() {
            continue;
        }
        path.push(at - 1);
        let far = path.len() > WALK;
        match i.root() {
            "ret" | "exit" | "trap" | "brkpt" => break,
            "bra" => {
                let target = i.operands.iter().find_map(|o| match o {
                    warptrace_codegen_ptx::Operand::Symbol(n) => labels.get(n.as_str()),
                    _ => None,
                });
                match target {
                    Some(&t) if !far => at = t,
                    _ => break,
                }
            }
            // An indexed branch's table is not followed: the thread stops there.
            "brx" => break,
            // A call's callee may exit: sometimes the thread does not come back.
            "call" if far || coin() && coin() => break,
            _ => {}
        }
    }
    path
}

/// Each statement's sites' probes, in order, and the kernel entry's.
fn by_stmt(sites: &[PlannedSite]) -> (Vec<u32>, HashMap<usize, Vec<u32>>) {
    let mut entry = Vec::new();
    let mut at: HashMap<usize, Vec<u32>> = HashMap::new();
    for s in sites {
        match s.stmt {
            None => entry.push(s.probe as u32),
            Some(i) => at.entry(i).or_default().push(s.probe as u32),
        }
    }
    (entry, at)
}

/// The maps of one launch of `kernel` (2 warps) with the probes placed by `sites`.
fn run(
    program: &Program,
    kernel: &str,
    stmts: &[Stmt],
    labels: &HashMap<&str, usize>,
    sites: &[PlannedSite],
) -> warptrace_ir::MapStore {
    let (entry, at) = by_stmt(sites);
    let sim = SimKernel::new(kernel, move |t| {
        let mut events = vec![Event::at(u32::MAX - 1, SiteEvent::Entry).firing(entry.clone())];
        for idx in walk(stmts, labels, t.thread.wrapping_mul(0x2545_f491_4f6c_dd1d)) {
            if let Some(probes) = at.get(&idx) {
                events.push(
                    Event::at(idx as u32, event_of(&stmts[idx], idx, t.thread))
                        .firing(probes.clone()),
                );
            }
        }
        // The kernel:exit probes fire at the `ret`/`exit` statements, as placed.
        events.push(Event::at(u32::MAX, SiteEvent::Exit).firing(Vec::new()));
        events
    });
    Interpreter::new(program)
        .run_kernel(&sim, &Grid::linear(1, 64))
        .unwrap_or_else(|e| panic!("{kernel}: {e}"))
}

fn programs() -> Vec<(String, Program)> {
    let mut out = vec![(
        "mixed".to_string(),
        warptrace_lang::compile(MIXED, "mixed.wt").unwrap_or_else(|e| panic!("{}", e.render())),
    )];
    for (name, src) in warptrace_tests::library_probes() {
        let program = warptrace_lang::compile(&src, &format!("probes/{name}.wt"))
            .unwrap_or_else(|e| panic!("{name}: {}", e.render()));
        out.push((name, program));
    }
    out
}

fn modules() -> Vec<(String, String)> {
    let mut out = warptrace_tests::corpus();
    out.extend(warptrace_tests::corpus_beside("jit"));
    out
}

#[test]
fn grouped_sites_give_the_maps_of_per_site_snippets_on_the_corpus() {
    let programs = programs();
    let mut grouped_by: HashMap<String, (u64, u64)> = HashMap::new();
    let mut compared = 0;
    for (file, ptx) in modules() {
        let module = parse(&ptx).unwrap_or_else(|e| panic!("{file}: {e}"));
        for (name, program) in &programs {
            let plans =
                site_plans(&ptx, program).unwrap_or_else(|e| panic!("{file} with {name}: {e}"));
            for plan in plans {
                let sites: u64 = plan.grouped.iter().map(|s| u64::from(s.stands_for)).sum();
                assert_eq!(
                    sites,
                    plan.per_site.len() as u64,
                    "{}: {}: the groups stand for every site",
                    file,
                    plan.kernel
                );
                let entry = grouped_by.entry(name.clone()).or_default();
                entry.0 += plan.per_site.len() as u64;
                entry.1 += plan.grouped.len() as u64;
                if plan.grouped == plan.per_site || reads_a_clock(program) {
                    continue;
                }
                let body = module
                    .kernel(&plan.kernel)
                    .and_then(|f| f.body.as_ref())
                    .expect("the kernel's body");
                let labels: HashMap<&str, usize> = body
                    .stmts
                    .iter()
                    .enumerate()
                    .filter_map(|(i, s)| match &s.kind {
                        StmtKind::Label(n) => Some((n.as_str(), i)),
                        _ => None,
                    })
                    .collect();
                let per_site = run(
                    &plan.program,
                    &plan.kernel,
                    &body.stmts,
                    &labels,
                    &plan.per_site,
                );
                let grouped = run(
                    &plan.program,
                    &plan.kernel,
                    &body.stmts,
                    &labels,
                    &plan.grouped,
                );
                assert_ne!(
                    per_site,
                    warptrace_ir::MapStore::new(&plan.program),
                    "{}: {} with {name}: the run counted something",
                    file,
                    plan.kernel
                );
                assert_eq!(
                    per_site, grouped,
                    "{}: {} with {name}: grouped sites change the maps",
                    file, plan.kernel
                );
                compared += 1;
            }
        }
    }
    let mut summary: Vec<_> = grouped_by.into_iter().collect();
    summary.sort();
    eprintln!("probe: sites -> snippets over the corpus");
    for (name, (sites, snippets)) in &summary {
        eprintln!("  {name}: {sites} -> {snippets}");
    }
    let ratio = |name: &str| {
        let (sites, snippets) = summary
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| *v)
            .expect("probe in the summary");
        snippets as f64 / sites as f64
    };
    // The per-instruction counters are the point: a fraction of the snippets.
    assert!(ratio("insn_mix") < 0.3, "insn_mix: {}", ratio("insn_mix"));
    assert!(ratio("features") < 0.9, "features: {}", ratio("features"));
    assert!(ratio("mixed") < 0.9, "mixed: {}", ratio("mixed"));
    assert!(compared > 50, "only {compared} kernels compared");
}
