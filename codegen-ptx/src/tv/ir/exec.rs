//! A symbolic executor for pure probe bodies (`mov`, ALU, `ext`, `sreg`, `site`,
//! persistent registers, branches, jumps, `exit`), merging paths at jump targets, with the
//! back end's register correspondence: IR `rN` is `%__wt_rN`, persistent slot `N` is
//! `%__wt_xN`.

use super::{bin, defined, ext, special};
use crate::special::SiteImms;
use std::collections::{BTreeMap, HashMap};
use warptrace_ir::{Insn, Operand, Reg, SiteValue};
use z3::ast::{Bool, BV};

fn k64(v: u64) -> BV {
    BV::from_u64(v, 64)
}

/// The PTX register that holds IR register `r`.
pub(crate) fn reg_name(r: Reg) -> String {
    crate::lower::reg("r", u32::from(r.0))
}

/// The PTX register that holds persistent slot `n`.
pub(crate) fn persist_name(n: u32) -> String {
    crate::lower::reg("x", n)
}

/// The state of a pure probe body at its exits.
#[derive(Debug)]
pub(crate) struct IrFinal {
    /// Whether some exit is reached (true for a verified body).
    pub cond: Bool,
    /// IR registers the body names, at exit.
    pub regs: BTreeMap<u16, BV>,
    /// Persistent registers the body names, at exit.
    pub persist: BTreeMap<u32, BV>,
    /// What the verifier guarantees about the inputs: non-zero divisors where divided.
    pub assumptions: Vec<Bool>,
    /// Goals: the 32-bit evaluations of the specials' formulas are exact where read.
    pub exact: Vec<Bool>,
}

/// Where a pure body reads its environment.
#[derive(Debug, Default)]
pub(crate) struct IrEnv {
    pub imms: SiteImms,
    /// The site operands, as `docs/ir.md` defines them at this site.
    pub site: HashMap<SiteValue, BV>,
}

#[derive(Clone)]
struct IrPath {
    cond: Bool,
    regs: BTreeMap<u16, BV>,
    persist: BTreeMap<u32, BV>,
}

fn merge(paths: Vec<IrPath>) -> Option<IrPath> {
    let mut it = paths.into_iter().rev();
    let mut acc = it.next()?;
    for p in it {
        let mut regs = BTreeMap::new();
        let keys: Vec<u16> = acc.regs.keys().chain(p.regs.keys()).copied().collect();
        for k in keys {
            let name = reg_name(Reg(k));
            let get = |m: &BTreeMap<u16, BV>| {
                m.get(&k)
                    .cloned()
                    .unwrap_or_else(|| BV::new_const(name.as_str(), 64))
            };
            regs.insert(k, p.cond.ite(&get(&p.regs), &get(&acc.regs)));
        }
        let mut persist = BTreeMap::new();
        let keys: Vec<u32> = acc
            .persist
            .keys()
            .chain(p.persist.keys())
            .copied()
            .collect();
        for k in keys {
            let name = persist_name(k);
            let get = |m: &BTreeMap<u32, BV>| {
                m.get(&k)
                    .cloned()
                    .unwrap_or_else(|| BV::new_const(name.as_str(), 64))
            };
            persist.insert(k, p.cond.ite(&get(&p.persist), &get(&acc.persist)));
        }
        acc = IrPath {
            cond: Bool::or(&[&p.cond, &acc.cond]),
            regs,
            persist,
        };
    }
    Some(acc)
}

/// Runs a pure body symbolically; `Err` names the first instruction outside the pure
/// subset.
pub(crate) fn exec(insns: &[Insn], env: &IrEnv) -> Result<IrFinal, String> {
    let mut cur = Some(IrPath {
        cond: Bool::from_bool(true),
        regs: BTreeMap::new(),
        persist: BTreeMap::new(),
    });
    let mut pending: BTreeMap<u32, Vec<IrPath>> = BTreeMap::new();
    let mut exits = Vec::new();
    let mut assumptions = Vec::new();
    let mut exact = Vec::new();
    let mut named: Vec<u16> = Vec::new();
    let mut slots: Vec<u32> = Vec::new();
    for (i, insn) in insns.iter().enumerate() {
        let mut here = pending.remove(&(i as u32)).unwrap_or_default();
        here.extend(cur.take());
        cur = merge(here);
        named.extend(insn.def().map(|r| r.0));
        named.extend(insn.uses().iter().map(|r| r.0));
        let Some(p) = cur.as_mut() else { continue };
        let read = |p: &IrPath, o: &Operand| match *o {
            Operand::Reg(r) => p
                .regs
                .get(&r.0)
                .cloned()
                .unwrap_or_else(|| BV::new_const(reg_name(r), 64)),
            Operand::Imm(v) => BV::from_i64(v, 64),
        };
        match insn {
            Insn::Mov { dst, src } => {
                let v = read(p, src);
                p.regs.insert(dst.0, v);
            }
            Insn::Bin {
                op,
                width,
                dst,
                a,
                b,
            } => {
                let (x, y) = (read(p, a), read(p, b));
                assumptions.push(p.cond.implies(defined(*op, *width, &y)));
                p.regs.insert(dst.0, bin(*op, *width, &x, &y));
            }
            Insn::Ext {
                dst,
                src,
                from,
                signed,
            } => {
                let v = ext(&read(p, src), *from, *signed);
                p.regs.insert(dst.0, v);
            }
            Insn::ReadSpecial { dst, special: sp } => {
                let (v, ok) =
                    special(*sp, &env.imms).ok_or_else(|| format!("sreg {}", sp.name()))?;
                exact.extend(ok.iter().map(|c| p.cond.implies(c)));
                p.regs.insert(dst.0, v);
            }
            Insn::ReadSite { dst, value } => {
                let v = env
                    .site
                    .get(value)
                    .cloned()
                    .ok_or_else(|| format!("site {}", value.name()))?;
                p.regs.insert(dst.0, v);
            }
            Insn::LoadPersist { dst, slot } => {
                slots.push(slot.0);
                let v = p
                    .persist
                    .get(&slot.0)
                    .cloned()
                    .unwrap_or_else(|| BV::new_const(persist_name(slot.0), 64));
                p.regs.insert(dst.0, v);
            }
            Insn::StorePersist { slot, src } => {
                slots.push(slot.0);
                let v = read(p, src);
                p.persist.insert(slot.0, v);
            }
            Insn::Branch {
                cond,
                if_zero,
                target,
            } => {
                let v = read(p, &Operand::Reg(*cond));
                let zero = v.eq(k64(0));
                let taken = if *if_zero { zero } else { zero.not() };
                let mut t = p.clone();
                t.cond = Bool::and(&[&p.cond, &taken]);
                p.cond = Bool::and(&[&p.cond, &taken.not()]);
                pending.entry(*target).or_default().push(t);
            }
            Insn::Jump { target } => {
                if let Some(p) = cur.take() {
                    pending.entry(*target).or_default().push(p);
                }
            }
            Insn::Exit => exits.extend(cur.take()),
            other => return Err(format!("{other:?} is not in the pure subset")),
        }
    }
    let last = merge(exits).ok_or("no exit is reachable")?;
    named.sort_unstable();
    named.dedup();
    slots.sort_unstable();
    slots.dedup();
    let regs = named
        .iter()
        .map(|&r| {
            let v = last
                .regs
                .get(&r)
                .cloned()
                .unwrap_or_else(|| BV::new_const(reg_name(Reg(r)), 64));
            (r, v)
        })
        .collect();
    let persist = slots
        .iter()
        .map(|&s| {
            let v = last
                .persist
                .get(&s)
                .cloned()
                .unwrap_or_else(|| BV::new_const(persist_name(s), 64));
            (s, v)
        })
        .collect();
    Ok(IrFinal {
        cond: last.cond,
        regs,
        persist,
        assumptions,
        exact,
    })
}
