//! Checking one obligation: execute the emitted PTX symbolically, build the IR side, and
//! ask z3 for a counterexample to their equality. Pure bodies and the warp leader here,
//! memory operations in `effects`, snippets that read the map buffer in `reads`.

use super::combined;
use super::effects;
use super::ir;
use super::obligations::{Obligation, Site, What, LEADER, SITE_GUARD};
use super::prove::{prove, Goal};
use super::ptx::{self, Exec, Val};
use super::reads;
use super::TvOutcome;
use crate::parse::AddrBase;
use crate::site::ValueSrc;
use warptrace_ir::{Insn, Operand, Reg, SiteValue, SpecialSource};
use z3::ast::{Ast, Bool, BV};

fn table(keys: &[Operand], capacity: u32, probing: crate::hashmap::Probing) -> effects::Table<'_> {
    effects::Table {
        keys,
        capacity,
        probing,
    }
}

/// Checks `ob` against `text`, the PTX claimed to implement it.
pub(crate) fn check(ob: &Obligation, text: &str) -> TvOutcome {
    let run = match &ob.what {
        What::WarpHash { .. } => ptx::run_warp,
        What::Body { insns, .. } if reads_warp_access(insns) => ptx::run_warp,
        _ => ptx::run,
    };
    let exec = match run(text) {
        Ok(e) => e,
        Err(e) => {
            return TvOutcome::Invalid {
                reason: e.to_string(),
            }
        }
    };
    match &ob.what {
        What::Body { insns, site } => body(insns, site, &exec),
        What::Combine { agg, value } => effects::combine(*agg, value, &exec),
        What::Hash {
            keys,
            capacity,
            agg,
            value,
            probing,
        } => effects::hash(table(keys, *capacity, *probing), *agg, value, &exec),
        What::Leader => leader(&exec),
        What::WarpHash {
            keys,
            capacity,
            agg,
            value,
            plan,
            probing,
        } => combined::hash(table(keys, *capacity, *probing), *agg, value, *plan, &exec),
        What::Ring {
            fields,
            capacity,
            overflow,
            latched,
        } => effects::ring(fields, *capacity, *overflow, *latched, &exec),
        What::RingFlush => effects::ring_flush(&exec),
        What::Launch { maps, dst, guarded } => reads::launch(maps, *dst, *guarded, &exec),
        What::Array {
            per,
            slots,
            fields,
            writer,
            exact,
        } => reads::array(*per, *slots, fields, *writer, *exact, &exec),
    }
}

/// Whether a body reads a warp-wide site value (checked in the warp model).
fn reads_warp_access(insns: &[Insn]) -> bool {
    insns
        .iter()
        .any(|i| matches!(i, Insn::ReadSite { value, .. } if value.is_warp_wide()))
}

pub(super) fn refuted(counterexample: impl Into<String>) -> TvOutcome {
    TvOutcome::Refuted {
        counterexample: counterexample.into(),
    }
}

pub(super) fn inputs(exec: &Exec) -> Vec<(String, Val)> {
    let mut v: Vec<(String, Val)> = exec
        .inputs
        .iter()
        .map(|(n, v)| (n.clone(), v.clone()))
        .collect();
    for (i, u) in exec.unspecified.iter().enumerate() {
        v.push((format!("unspecified#{i}"), Val::Bv(u.clone())));
    }
    v
}

pub(super) fn operand(o: &Operand) -> BV {
    match *o {
        Operand::Reg(r) => BV::new_const(ir::reg_name(r), 64),
        Operand::Imm(v) => BV::from_i64(v, 64),
    }
}

fn bv_reg(exec: &Exec, name: &str) -> Option<BV> {
    exec.reg(name).and_then(|v| v.bv().cloned())
}

/// The site operands as `docs/ir.md` defines them at `site`.
fn site_env(site: &Site) -> ir::IrEnv {
    let mut env = ir::IrEnv {
        imms: site.imms,
        ..ir::IrEnv::default()
    };
    let k = |v: u64| BV::from_u64(v, 64);
    if let Some(op) = site.opcode {
        env.site.insert(SiteValue::Opcode, k(op));
    }
    if site.instr && !site.mem {
        for v in [
            SiteValue::Bytes,
            SiteValue::Addr,
            SiteValue::Value,
            SiteValue::Sectors,
            SiteValue::Wavefronts,
            SiteValue::Run,
        ] {
            env.site.insert(v, k(0));
        }
        return env;
    }
    if let Some(b) = site.bytes {
        env.site.insert(SiteValue::Bytes, k(u64::from(b)));
    }
    if let Some(a) = &site.addr {
        let base = match &a.base {
            AddrBase::Reg(r) => match ptx::reg_class(r) {
                Some(ptx::Class::Bits(b)) => Some(BV::new_const(r.as_str(), b).zero_ext(64 - b)),
                _ => None,
            },
            AddrBase::Symbol(s) => Some(BV::new_const(s.as_str(), 64)),
            AddrBase::Imm(v) => Some(BV::from_i64(*v, 64)),
            AddrBase::Complex => None,
        };
        if let Some(base) = base {
            let addr = base.bvadd(BV::from_i64(a.offset, 64));
            // Over the lanes that run the site together: the snippet's first mask.
            let lanes: Vec<BV> = (0..ptx::LANES).map(|j| ptx::lane_term(&addr, j)).collect();
            let mask = BV::new_const(ptx::mask_name(0), 32);
            let bytes = site.bytes.map_or(0, u64::from);
            for v in [SiteValue::Sectors, SiteValue::Wavefronts] {
                if let Some(t) = ir::warp_access(v, bytes, &mask, &lanes) {
                    env.site.insert(v, t);
                }
            }
            env.site
                .insert(SiteValue::Run, ir::run(bytes, &mask, &lanes, &addr));
            env.site.insert(SiteValue::Addr, addr);
        }
    }
    match &site.value {
        Some(ValueSrc::Reg {
            name,
            reg_bits,
            elem_bits,
        }) => {
            let v = BV::new_const(name.as_str(), *reg_bits)
                .extract(elem_bits - 1, 0)
                .zero_ext(64 - elem_bits);
            env.site.insert(SiteValue::Value, v);
        }
        Some(ValueSrc::Imm(v)) => {
            env.site.insert(SiteValue::Value, k(*v));
        }
        _ => {}
    }
    env
}

/// Writes to registers outside the probe's namespace, and memory operations: a pure
/// body must have neither.
fn impure(exec: &Exec) -> Option<String> {
    if let Some(e) = exec.effects.first() {
        return Some(format!("a pure body performs `{}`", e.op));
    }
    exec.regs
        .keys()
        .find(|n| !n.starts_with("%__wt_"))
        .map(|n| format!("the snippet writes the kernel register `{n}`"))
}

/// The value the back end's sequence for special `sp` computes (`special::emit` alone).
fn special_term(sp: warptrace_ir::Special, site: &Site) -> Option<BV> {
    let mut e = crate::lower::Emitter::default();
    let dst = ir::reg_name(Reg(0));
    crate::special::emit(&mut e, &dst, sp, &site.imms).ok()?;
    let exec = ptx::run(&e.finish()).ok()?;
    bv_reg(&exec, &dst)
}

fn body(insns: &[Insn], site: &Site, exec: &Exec) -> TvOutcome {
    let env = site_env(site);
    let ir = match ir::exec(insns, &env) {
        Ok(f) => f,
        Err(why) => {
            return TvOutcome::Unknown {
                reason: format!("the IR side: {why}"),
            }
        }
    };
    if let Some(why) = impure(exec) {
        return refuted(why);
    }
    let fired = site.guarded.then(|| Bool::new_const(SITE_GUARD));
    let mut pre = ir::hw_assumptions();
    for a in &ir.assumptions {
        pre.push(match &fired {
            Some(g) => g.implies(a),
            None => a.clone(),
        });
    }
    pre.push(ir.cond.clone());
    // The warp model's facts (each mask has the executing lane; its copies are its own
    // inputs) and the collectives' definitions.
    // The collectives' results are replaced by their definitions (each in terms of
    // earlier results), so that both sides are terms over the lanes' inputs alone.
    let mut inlined: Vec<(BV, BV)> = Vec::new();
    if let Some(w) = &exec.warp {
        pre.extend(w.facts.iter().cloned());
        for (r, d) in &w.defs {
            let pairs: Vec<(&BV, &BV)> = inlined.iter().map(|(a, b)| (a, b)).collect();
            let d = d.substitute(&pairs).simplify();
            inlined.push((r.clone(), d));
        }
    }
    let inline = |v: BV| -> BV {
        if inlined.is_empty() {
            return v;
        }
        let pairs: Vec<(&BV, &BV)> = inlined.iter().map(|(a, b)| (a, b)).collect();
        v.substitute(&pairs).simplify()
    };
    let mut goals = vec![Goal::holds(
        "the snippet runs to its end",
        exec.cond.clone(),
    )];
    for e in &ir.exact {
        goals.push(Goal::holds(
            "the special's formula evaluated in 32 bits is exact (hardware limits)",
            e.clone(),
        ));
    }
    let mut named = Vec::new();
    for (&r, spec) in &ir.regs {
        let name = ir::reg_name(Reg(r));
        let Some(v) = bv_reg(exec, &name) else {
            return TvOutcome::Unknown {
                reason: format!("no value for `{name}`"),
            };
        };
        let (v, spec) = (inline(v), inline(spec.clone()));
        goals.push(Goal::eq(format!("r{r}"), &v, &spec, fired.as_ref()));
        named.push(name);
    }
    for (&s, spec) in &ir.persist {
        let name = ir::persist_name(s);
        let Some(v) = bv_reg(exec, &name) else {
            return TvOutcome::Unknown {
                reason: format!("no value for `{name}`"),
            };
        };
        let expected = match &fired {
            Some(g) => g.ite(spec, &BV::new_const(name.as_str(), 64)),
            None => spec.clone(),
        };
        goals.push(Goal::eq(format!("%x{s}"), &v, &expected, None));
        named.push(name);
    }
    // Frame: IR and persistent registers the body does not name keep their values.
    for (name, v) in &exec.regs {
        let ir_owned = name.starts_with("%__wt_r") || name.starts_with("%__wt_x");
        if ir_owned && !named.contains(name) {
            if let (Some(v), Some(Val::Bv(old))) = (v.bv(), ptx::input(name)) {
                goals.push(Goal::eq(format!("{name} unchanged"), v, &old, None));
            }
        }
    }
    // Cut points: each computed special the body reads is one goal (the snippet's
    // sequence equals the IR's formula), and elsewhere both terms are one fresh constant
    // (sound given that goal), so the rest of the body never re-proves it.
    let mut cuts = Vec::new();
    for insn in insns {
        let Insn::ReadSpecial { special: sp, .. } = insn else {
            continue;
        };
        if sp.source() != SpecialSource::Computed {
            continue;
        }
        let (Some((spec, _)), Some(seq)) = (ir::special(*sp, &site.imms), special_term(*sp, site))
        else {
            continue;
        };
        let cut = BV::new_const(format!("sreg#{}", sp.name()), 64);
        cuts.push((seq.clone(), cut.clone()));
        cuts.push((spec.clone(), cut));
        goals.push(Goal::eq(format!("sreg {}", sp.name()), &seq, &spec, None));
    }
    if !cuts.is_empty() {
        let pairs: Vec<(&BV, &BV)> = cuts.iter().map(|(t, c)| (t, c)).collect();
        let lemmas = goals.len() - cuts.len() / 2;
        for g in &mut goals[..lemmas] {
            g.holds = g.holds.substitute(&pairs);
        }
    }
    prove(&pre, &goals, &inputs(exec))
}

fn leader(exec: &Exec) -> TvOutcome {
    if let Some(why) = impure(exec) {
        return refuted(why);
    }
    let Some(Val::Pred(p)) = exec.reg(LEADER) else {
        return TvOutcome::Unknown {
            reason: format!("no predicate `{LEADER}`"),
        };
    };
    let spec = ir::is_leader();
    let goals = vec![
        Goal::holds("the snippet runs to its end", exec.cond.clone()),
        Goal {
            label: "leader".into(),
            holds: p.iff(&spec),
            sides: vec![
                ("ptx".into(), Val::Pred(p.clone())),
                ("ir".into(), Val::Pred(spec.clone())),
            ],
        },
    ];
    prove(&ir::hw_assumptions(), &goals, &inputs(exec))
}
