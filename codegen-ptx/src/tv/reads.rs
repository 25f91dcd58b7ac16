//! The obligations whose snippets read the map buffer: `sreg launch` (`lower_probe`) and
//! `map.save` (`array::save`). Their claims: the snippet's memory operations, loads
//! included, are the IR's, in order (same operations, equivalent guards, under each guard
//! the same address and operands), each IR load reading what the matching snippet load
//! reads (`ptx`'s module documentation says why that is sound); and its registers end as
//! the IR's semantics leaves them, every other IR, persistent, base and leader register
//! unchanged, no kernel register written, the end of the snippet reached.

use super::check::{inputs, operand, refuted};
use super::ir;
use super::obligations::{array_layout, Writer, ARRAY_MAP, CURSOR, LEADER, SITE_GUARD};
use super::prove::{prove, Goal};
use super::ptx::{self, Exec, Val};
use super::TvOutcome;
use crate::lower::BASE;
use crate::special::SiteImms;
use warptrace_ir::{MapDecl, MapLayout, Operand, Per, Reg, Special};
use z3::ast::{Ast, Bool, BV};

fn k(v: u64) -> BV {
    BV::from_u64(v, 64)
}

/// A memory operation the IR semantics calls for.
struct Access {
    guard: Bool,
    op: &'static str,
    addr: Option<BV>,
    vals: Vec<BV>,
    /// A load's value: a constant of the IR side, which the claim identifies with the
    /// value of the matching snippet load.
    read: Option<BV>,
}

impl Access {
    fn load(guard: &Bool, addr: BV, read: &BV) -> Access {
        Access {
            guard: guard.clone(),
            op: "ld.global.u64",
            addr: Some(addr),
            vals: Vec::new(),
            read: Some(read.clone()),
        }
    }

    fn write(guard: &Bool, op: &'static str, addr: BV, val: BV) -> Access {
        Access {
            guard: guard.clone(),
            op,
            addr: Some(addr),
            vals: vec![val],
            read: None,
        }
    }
}

/// The goals that the snippet's memory operations are `spec`, in order, with `more`
/// (about registers): operations whose guard is false (paths folded away) are dropped
/// on both sides, the rest pair up by position — the same operation, guards equivalent,
/// under the guard the same address and operands — and every IR read constant is then
/// replaced, in all the goals, by the value of the snippet load it pairs with.
fn accesses(exec: &Exec, spec: Vec<Access>, more: Vec<Goal>) -> Result<Vec<Goal>, TvOutcome> {
    let live = |g: &Bool| g.simplify().as_bool() != Some(false);
    let spec: Vec<Access> = spec.into_iter().filter(|a| live(&a.guard)).collect();
    let got: Vec<&ptx::Effect> = exec.effects.iter().filter(|e| live(&e.guard)).collect();
    let names = |v: &mut dyn Iterator<Item = String>| v.collect::<Vec<_>>().join(", ");
    if got.len() != spec.len() || got.iter().zip(&spec).any(|(g, s)| g.op != s.op) {
        return Err(refuted(format!(
            "memory operations differ: the snippet does [{}], the IR calls for [{}]",
            names(&mut got.iter().map(|e| e.op.clone())),
            names(&mut spec.iter().map(|a| a.op.to_string())),
        )));
    }
    let mut goals = Vec::new();
    let mut reads: Vec<(BV, BV)> = Vec::new();
    for (i, (g, s)) in got.iter().zip(&spec).enumerate() {
        goals.push(Goal {
            label: format!(
                "operation {i} ({}) happens exactly when the IR's does",
                s.op
            ),
            holds: g.guard.iff(&s.guard),
            sides: vec![
                ("ptx".into(), Val::Pred(g.guard.clone())),
                ("ir".into(), Val::Pred(s.guard.clone())),
            ],
        });
        match (&g.addr, &s.addr) {
            (None, None) => {}
            (Some(a), Some(b)) => goals.push(Goal::eq(
                format!("operation {i} ({}) address", s.op),
                a,
                b,
                Some(&s.guard),
            )),
            _ => {
                return Err(refuted(format!(
                    "operation {i} ({}): address differs",
                    s.op
                )))
            }
        }
        let widths = |v: &[BV]| v.iter().map(BV::get_size).collect::<Vec<_>>();
        if widths(&g.vals) != widths(&s.vals) {
            return Err(refuted(format!(
                "operation {i} ({}): operand count or width differs",
                s.op
            )));
        }
        for (j, (a, b)) in g.vals.iter().zip(&s.vals).enumerate() {
            goals.push(Goal::eq(
                format!("operation {i} ({}) operand {j}", s.op),
                a,
                b,
                Some(&s.guard),
            ));
        }
        match (&g.result, &s.read) {
            (Some(v), Some(r)) if v.get_size() == r.get_size() => {
                reads.push((r.clone(), v.clone()));
            }
            (_, None) => {}
            _ => {
                return Err(refuted(format!(
                    "operation {i} ({}): the loaded value differs in width",
                    s.op
                )))
            }
        }
    }
    goals.extend(more);
    if !reads.is_empty() {
        let pairs: Vec<(&BV, &BV)> = reads.iter().map(|(r, v)| (r, v)).collect();
        for g in &mut goals {
            g.holds = g.holds.substitute(&pairs);
            for (_, side) in &mut g.sides {
                *side = match side {
                    Val::Bv(b) => Val::Bv(b.substitute(&pairs)),
                    Val::Pred(p) => Val::Pred(p.substitute(&pairs)),
                };
            }
        }
    }
    // A goal the simplifier reduces to `true` holds: dropping it keeps its terms (the
    // record's address: 64-bit products) out of the search for the others, where
    // `prove`'s abstraction of divisions would otherwise make them differ.
    goals.retain(|g| g.holds.simplify().as_bool() != Some(true));
    Ok(goals)
}

/// Goals that the registers the snippet writes and `allowed` does not name keep their
/// values (IR `%__wt_rN`, persistent `%__wt_xN`, the base, the warp leader); a write to a
/// kernel register refutes.
fn frame(exec: &Exec, allowed: &[&str]) -> Result<Vec<Goal>, TvOutcome> {
    let mut goals = Vec::new();
    let mut written: Vec<(&String, &Val)> = exec.regs.iter().collect();
    written.sort_by(|a, b| a.0.cmp(b.0));
    for (name, v) in written {
        if !name.starts_with("%__wt_") {
            return Err(refuted(format!(
                "the snippet writes the kernel register `{name}`"
            )));
        }
        let owned = name.starts_with("%__wt_r")
            || name.starts_with("%__wt_x")
            || name == BASE
            || name == LEADER;
        if !owned || allowed.contains(&name.as_str()) {
            continue;
        }
        let label = format!("{name} unchanged");
        match (v, ptx::input(name)) {
            (Val::Bv(v), Some(Val::Bv(old))) => goals.push(Goal::eq(label, v, &old, None)),
            (Val::Pred(p), Some(Val::Pred(old))) => goals.push(Goal {
                label,
                holds: p.iff(&old),
                sides: vec![
                    ("ptx".into(), Val::Pred(p.clone())),
                    ("ir".into(), Val::Pred(old)),
                ],
            }),
            _ => {}
        }
    }
    Ok(goals)
}

/// The inputs shown in a counterexample: the snippet's, and what its loads read.
fn shown(exec: &Exec) -> Vec<(String, Val)> {
    let mut v = inputs(exec);
    for e in &exec.effects {
        if let (true, Some(r)) = (e.op.starts_with("ld."), &e.result) {
            v.push((
                r.to_string().trim_matches('|').to_owned(),
                Val::Bv(r.clone()),
            ));
        }
    }
    v
}

/// Grid dimensions `(ntid, nctaid)` at which [`decide`] searches for a counterexample:
/// threads per block at and around multiples of 32 and at the limits, small and largest
/// grids.
const GRIDS: [[u64; 3]; 7] = [
    [33, 1, 1],
    [1, 1, 1],
    [32, 1, 1],
    [65, 1, 1],
    [7, 3, 2],
    [1024, 1, 1],
    [1024, 1024, 64],
];
const BLOCKS: [[u64; 3]; 2] = [[3, 2, 2], [(1 << 31) - 1, 65535, 65535]];

/// [`prove`], with a search for a counterexample at fixed block and grid dimensions
/// ([`GRIDS`], [`BLOCKS`]), which leaves only products by constants: a wrong record
/// address is a difference of 64-bit products, where z3 may give up before it finds a
/// model. The fixed values satisfy the hardware limits, so a counterexample found there
/// is one of the claim. The search runs first when an address goal is left (the
/// simplifier proves every address of a correct snippet), else only if z3 gives up;
/// finding none leaves `prove`'s result.
fn decide(pre: &[Bool], goals: &[Goal], shown: &[(String, Val)]) -> TvOutcome {
    let addresses = goals.iter().any(|g| g.label.ends_with("address"));
    if addresses {
        if let Some(r) = search(pre, goals, shown) {
            return r;
        }
    }
    let first = prove(pre, goals, shown);
    if addresses || !matches!(first, TvOutcome::Unknown { .. }) {
        return first;
    }
    search(pre, goals, shown).unwrap_or(first)
}

fn search(pre: &[Bool], goals: &[Goal], shown: &[(String, Val)]) -> Option<TvOutcome> {
    let fix = |v: &Val, p: &[(&BV, &BV)]| match v {
        Val::Bv(b) => Val::Bv(b.substitute(p)),
        Val::Pred(b) => Val::Pred(b.substitute(p)),
    };
    for ntid in GRIDS {
        for nctaid in BLOCKS {
            let mut fixed = Vec::new();
            for (i, d) in ["x", "y", "z"].iter().enumerate() {
                let c = |v: u64| BV::from_u64(v, 32);
                fixed.push((ir::hw(&format!("%ntid.{d}")), c(ntid[i])));
                fixed.push((ir::hw(&format!("%nctaid.{d}")), c(nctaid[i])));
            }
            let p: Vec<(&BV, &BV)> = fixed.iter().map(|(a, b)| (a, b)).collect();
            let pre: Vec<Bool> = pre.iter().map(|f| f.substitute(&p)).collect();
            let goals: Vec<Goal> = goals
                .iter()
                .map(|g| Goal {
                    label: g.label.clone(),
                    holds: g.holds.substitute(&p),
                    sides: g
                        .sides
                        .iter()
                        .map(|(n, v)| (n.clone(), fix(v, &p)))
                        .collect(),
                })
                .collect();
            let shown: Vec<(String, Val)> = shown
                .iter()
                .filter(|(n, _)| !n.starts_with("%ntid.") && !n.starts_with("%nctaid."))
                .cloned()
                .collect();
            if let TvOutcome::Refuted { counterexample } = prove(&pre, &goals, &shown) {
                return Some(refuted(format!(
                    "{counterexample} (grid fixed at ntid = {ntid:?}, nctaid = {nctaid:?})"
                )));
            }
        }
    }
    None
}

fn bv_reg(exec: &Exec, name: &str) -> Option<BV> {
    exec.reg(name).and_then(|v| v.bv().cloned())
}

/// `rD = sreg launch`: one load of the buffer's `launch` word (`MapLayout::launch_offset`)
/// into `rD`, when the site's guard holds.
pub(super) fn launch(maps: &[MapDecl], dst: Reg, guarded: bool, exec: &Exec) -> TvOutcome {
    let layout = MapLayout::new(maps);
    let base = BV::new_const(BASE, 64);
    let fired = if guarded {
        Bool::new_const(SITE_GUARD)
    } else {
        Bool::from_bool(true)
    };
    let word = BV::new_const("ir.launch", 64);
    let spec = vec![Access::load(
        &fired,
        base.bvadd(k(layout.launch_offset)),
        &word,
    )];
    let name = ir::reg_name(dst);
    let Some(v) = bv_reg(exec, &name) else {
        return TvOutcome::Unknown {
            reason: format!("no value for `{name}`"),
        };
    };
    let expected = fired.ite(&word, &BV::new_const(name.as_str(), 64));
    let mut more = vec![
        Goal::holds("the snippet runs to its end", exec.cond.clone()),
        Goal::eq(format!("r{}", dst.0), &v, &expected, None),
    ];
    let goals = frame(exec, &[name.as_str()]).and_then(|f| {
        more.extend(f);
        accesses(exec, spec, more)
    });
    match goals {
        Ok(goals) => prove(&[], &goals, &shown(exec)),
        Err(outcome) => outcome,
    }
}

/// `map.save` per `docs/ir.md` and `interp::device::array_save`, with `s` the cursor:
///
/// - `s < slots`: every lane that runs it sets the cursor to `s + 1`; the writer reads
///   the array word (the records' offset the runtime wrote), and its record is at `base +
///   word + ((block · rows + row) · slots + s) · slot_bytes`; per warp, it reads the
///   record's `seq` and, if that is non-zero (taken), counts a drop and stores nothing;
///   otherwise it stores field `i` at `+8·(1 + i)`, then `seq = s + 1` at `+0`;
/// - `s >= slots`: the cursor is unchanged, the writer counts a drop.
///
/// With `exact`, also that the grid terms' 32-bit evaluations are exact (`ir::array`):
/// those not among the `thread` special's, which are the same terms.
pub(super) fn array(
    per: Per,
    slots: u32,
    fields: &[Operand],
    writer: Writer,
    exact: bool,
    exec: &Exec,
) -> TvOutcome {
    let layout = array_layout(per, slots, fields.len());
    let Some(region) = layout.regions.get(ARRAY_MAP) else {
        return TvOutcome::Unknown {
            reason: "no region".into(),
        };
    };
    let base = BV::new_const(BASE, 64);
    let cursor = ir::persist_name(CURSOR);
    let s = BV::new_const(cursor.as_str(), 64);
    let writes = match writer {
        Writer::Every | Writer::ThreadProbe => Bool::from_bool(true),
        Writer::Leader => Bool::new_const(LEADER),
        Writer::WarpProbe => ir::is_leader(),
    };
    let left = s.bvult(k(u64::from(slots)));
    let write = Bool::and(&[&left, &writes]);
    let place = ir::array_place(per);
    let index = ir::array_index(&place, slots, region.slot_bytes(), &s);
    let offset = BV::new_const("ir.array-word", 64);
    let record = ir::add(&ir::add(&base, &offset), &index);
    let mut spec = vec![Access::load(
        &write,
        base.bvadd(k(region.slots_offset)),
        &offset,
    )];
    let stores = match per {
        Per::Thread => write.clone(),
        Per::Warp => {
            let seq = BV::new_const("ir.seq-word", 64);
            spec.push(Access::load(&write, record.clone(), &seq));
            Bool::and(&[&write, &seq.eq(k(0))])
        }
    };
    let st = "st.global.u64";
    for (i, f) in fields.iter().enumerate() {
        let addr = record.bvadd(k(8 * (i as u64 + 1)));
        spec.push(Access::write(&stores, st, addr, operand(f)));
    }
    let next = ir::add(&s, &k(1));
    spec.push(Access::write(&stores, st, record, next.clone()));
    let full = Bool::and(&[&writes, &left.not()]);
    let taken = Bool::and(&[&write, &stores.not()]);
    spec.push(Access::write(
        &Bool::or(&[&full, &taken]),
        "red.global.add.u64",
        base.bvadd(k(region.drops_offset)),
        k(1),
    ));
    let Some(c) = bv_reg(exec, &cursor) else {
        return TvOutcome::Unknown {
            reason: format!("no value for `{cursor}`"),
        };
    };
    let mut more = vec![
        Goal::holds("the snippet runs to its end", exec.cond.clone()),
        Goal::eq("the cursor", &c, &left.ite(&next, &s), None),
    ];
    let mut allowed = vec![cursor.as_str()];
    if writer == Writer::WarpProbe {
        allowed.push(LEADER); // the probe's own leader, computed in its prologue
    }
    let goals = frame(exec, &allowed).and_then(|f| {
        more.extend(f);
        accesses(exec, spec, more)
    });
    let goals = match goals {
        Ok(goals) => goals,
        Err(outcome) => return outcome,
    };
    // The exactness goals are about the IR side only: a query of their own, without
    // those of the `thread` special, the same terms, which `sreg.thread` proves.
    if exact {
        let label = "the grid formulas evaluated in 32 bits are exact (hardware limits)";
        let thread = ir::special(Special::Thread, &SiteImms::default())
            .map(|(_, exact)| exact)
            .unwrap_or_default();
        let own: Vec<Goal> = place
            .exact
            .iter()
            .filter(|e| !thread.contains(e))
            .map(|e| Goal::holds(label, e.clone()))
            .collect();
        let outcome = prove(&ir::hw_assumptions(), &own, &shown(exec));
        if !outcome.is_proved() {
            return outcome;
        }
    }
    decide(&ir::hw_assumptions(), &goals, &shown(exec))
}
