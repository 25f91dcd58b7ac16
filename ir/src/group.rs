//! Grouping: consecutive probe firings that always run together replaced by one body with
//! their combined effect (decision 0048).
//!
//! **Invariant.** For a sequence of firings accepted by [`Group::push`], one run of
//! [`Group::body`] leaves every thread-persistent register with the value that running
//! the firings in order leaves it with, for every initial value of the persistent
//! registers and every value of the specials the firings read, provided those specials
//! read the same at each firing. The back ends group only the sites of one straight-line
//! piece of a kernel, executed by one set of threads one after another, so the specials
//! accepted here ([`invariant`]: the thread's coordinates, the launch's constants and the
//! warp's active lanes) do read the same at each of them.
//!
//! **How.** The firings are evaluated symbolically. A value is a sum, modulo 2⁶⁴, of a
//! constant, multiples of the persistent registers' values before the group, and multiples
//! of *terms*: expressions over constants and invariant specials only, shared by
//! structure, so that a term computed at every firing (`insn_mix`'s lowest-active-lane
//! test) is one term. Additions, subtractions and multiplications by a constant at 64 bits
//! keep a value a sum; any other operation needs operands free of persistent registers and
//! makes a new term. A firing that reads a site operand, a clock or another per-site value,
//! branches, or writes a map is refused, and so is an operation the sums cannot express
//! (`%x = %x & 1`): the caller closes the group there and emits that firing on its own.
//!
//! A group of `n` firings of `%n = %n + 1` thus becomes `%n = %n + n`: one update per
//! straight-line piece instead of one per instruction, as NVBit's `instr_count_bb` counts.

use crate::interp::{alu, extend};
use crate::{BinOp, ExtFrom, Insn, Operand, PersistId, Probe, Reg, Special, Width};
use std::collections::{BTreeMap, HashMap};

/// Index of a [`Term`] in a group's table; operands always come before their uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct TermId(u32);

/// An expression over constants and invariant specials.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Term {
    Imm(u64),
    Special(Special),
    Bin(BinOp, Width, TermId, TermId),
    Ext(ExtFrom, bool, TermId),
}

/// `konst + Σ c·base(p) + Σ c·term`, modulo 2⁶⁴; no zero coefficient is stored.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Value {
    konst: u64,
    bases: BTreeMap<PersistId, u64>,
    terms: BTreeMap<TermId, u64>,
}

fn accumulate<K: Ord + Copy>(into: &mut BTreeMap<K, u64>, from: &BTreeMap<K, u64>, scale: u64) {
    for (&k, &c) in from {
        let e = into.entry(k).or_insert(0);
        *e = e.wrapping_add(c.wrapping_mul(scale));
        if *e == 0 {
            into.remove(&k);
        }
    }
}

impl Value {
    fn konst(c: u64) -> Value {
        Value {
            konst: c,
            ..Value::default()
        }
    }

    fn base(p: PersistId) -> Value {
        Value {
            bases: BTreeMap::from([(p, 1)]),
            ..Value::default()
        }
    }

    fn term(t: TermId) -> Value {
        Value {
            terms: BTreeMap::from([(t, 1)]),
            ..Value::default()
        }
    }

    /// `self + scale·other`.
    fn plus(&self, other: &Value, scale: u64) -> Value {
        let mut v = self.clone();
        v.konst = v.konst.wrapping_add(other.konst.wrapping_mul(scale));
        accumulate(&mut v.bases, &other.bases, scale);
        accumulate(&mut v.terms, &other.terms, scale);
        v
    }

    fn scaled(&self, c: u64) -> Value {
        Value::default().plus(self, c)
    }

    fn as_konst(&self) -> Option<u64> {
        (self.bases.is_empty() && self.terms.is_empty()).then_some(self.konst)
    }
}

/// Why a firing cannot join a group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// The body does something other than arithmetic on persistent registers and
    /// invariant specials: a branch, a map write, a site operand, a per-site special.
    NotArithmetic,
    /// An operation the sums cannot express (a bitwise operation, a comparison or a
    /// product of two values one of which depends on a persistent register), or a
    /// division by zero.
    NotLinear,
}

/// Whether `s` reads the same at every instruction of a straight-line piece executed by
/// one set of threads: the thread's and the launch's coordinates, the kernel and launch
/// ids and the warp's active lanes. Clocks, the SM and warp slot (a preempted block may
/// resume elsewhere) and per-site immediates are not.
pub fn invariant(s: Special) -> bool {
    use Special::*;
    matches!(
        s,
        Nsmid
            | Warp
            | Lane
            | TidX
            | TidY
            | TidZ
            | NtidX
            | NtidY
            | NtidZ
            | CtaidX
            | CtaidY
            | CtaidZ
            | NctaidX
            | NctaidY
            | NctaidZ
            | Thread
            | Block
            | ActiveMask
            | Active
            | KernelId
            | Launch
    )
}

/// Firings being grouped: their combined effect so far.
#[derive(Debug, Clone, Default)]
pub struct Group {
    terms: Vec<Term>,
    interned: HashMap<Term, TermId>,
    /// The value of each persistent register written so far.
    persist: BTreeMap<PersistId, Value>,
    firings: usize,
}

impl Group {
    /// An empty group.
    pub fn new() -> Group {
        Group::default()
    }

    /// The number of firings pushed.
    pub fn len(&self) -> usize {
        self.firings
    }

    /// Whether no firing was pushed.
    pub fn is_empty(&self) -> bool {
        self.firings == 0
    }

    /// Adds one firing of `probe` after those pushed; on a refusal the group is unchanged.
    pub fn push(&mut self, probe: &Probe) -> Result<(), Refusal> {
        let mut next = self.clone();
        next.fire(&probe.insns)?;
        next.firings += 1;
        *self = next;
        Ok(())
    }

    fn intern(&mut self, t: Term) -> TermId {
        if let Some(&id) = self.interned.get(&t) {
            return id;
        }
        let id = TermId(self.terms.len() as u32);
        self.terms.push(t);
        self.interned.insert(t, id);
        id
    }

    /// A value free of persistent registers as one term (constants stay immediates).
    fn as_term(&mut self, v: &Value) -> Result<TermId, Refusal> {
        if !v.bases.is_empty() {
            return Err(Refusal::NotLinear);
        }
        let mut acc = (v.konst != 0 || v.terms.is_empty()).then(|| self.intern(Term::Imm(v.konst)));
        for (&t, &c) in &v.terms {
            let scaled = match c {
                1 => t,
                _ => {
                    let k = self.intern(Term::Imm(c));
                    self.intern(Term::Bin(BinOp::Mul, Width::W64, t, k))
                }
            };
            acc = Some(match acc {
                None => scaled,
                Some(a) => self.intern(Term::Bin(BinOp::Add, Width::W64, a, scaled)),
            });
        }
        acc.ok_or(Refusal::NotLinear)
    }

    /// Evaluates one body from its first instruction to its `exit`.
    fn fire(&mut self, insns: &[Insn]) -> Result<(), Refusal> {
        let mut regs: HashMap<Reg, Value> = HashMap::new();
        let read = |regs: &HashMap<Reg, Value>, o: &Operand| match *o {
            Operand::Imm(c) => Ok(Value::konst(c as u64)),
            Operand::Reg(r) => regs.get(&r).cloned().ok_or(Refusal::NotArithmetic),
        };
        for insn in insns {
            match insn {
                Insn::Mov { dst, src } => {
                    let v = read(&regs, src)?;
                    regs.insert(*dst, v);
                }
                Insn::Bin {
                    op,
                    width,
                    dst,
                    a,
                    b,
                } => {
                    let (a, b) = (read(&regs, a)?, read(&regs, b)?);
                    let v = self.bin(*op, *width, &a, &b)?;
                    regs.insert(*dst, v);
                }
                Insn::Ext {
                    dst,
                    src,
                    from,
                    signed,
                } => {
                    let v = read(&regs, src)?;
                    let v = match v.as_konst() {
                        Some(c) => Value::konst(extend(c, *from, *signed)),
                        None => {
                            let t = self.as_term(&v)?;
                            Value::term(self.intern(Term::Ext(*from, *signed, t)))
                        }
                    };
                    regs.insert(*dst, v);
                }
                Insn::ReadSpecial { dst, special } if invariant(*special) => {
                    let t = self.intern(Term::Special(*special));
                    regs.insert(*dst, Value::term(t));
                }
                Insn::LoadPersist { dst, slot } => {
                    let v = self
                        .persist
                        .get(slot)
                        .cloned()
                        .unwrap_or_else(|| Value::base(*slot));
                    regs.insert(*dst, v);
                }
                Insn::StorePersist { slot, src } => {
                    let v = read(&regs, src)?;
                    self.persist.insert(*slot, v);
                }
                Insn::Exit => return Ok(()),
                _ => return Err(Refusal::NotArithmetic),
            }
        }
        Err(Refusal::NotArithmetic)
    }

    fn bin(&mut self, op: BinOp, width: Width, a: &Value, b: &Value) -> Result<Value, Refusal> {
        if let (Some(x), Some(y)) = (a.as_konst(), b.as_konst()) {
            return alu(op, width, x, y)
                .map(Value::konst)
                .ok_or(Refusal::NotLinear);
        }
        if width == Width::W64 {
            match (op, a.as_konst(), b.as_konst()) {
                (BinOp::Add, _, _) => return Ok(a.plus(b, 1)),
                (BinOp::Sub, _, _) => return Ok(a.plus(b, u64::MAX)),
                (BinOp::Mul, Some(c), _) => return Ok(b.scaled(c)),
                (BinOp::Mul, _, Some(c)) => return Ok(a.scaled(c)),
                _ => {}
            }
        }
        let (ta, tb) = (self.as_term(a)?, self.as_term(b)?);
        Ok(Value::term(self.intern(Term::Bin(op, width, ta, tb))))
    }

    /// One body with the combined effect of the firings pushed: every persistent register
    /// they read is loaded first, then the terms are computed once each, then every
    /// register whose value changed is stored.
    pub fn body(&self) -> Vec<Insn> {
        let changed: Vec<(PersistId, &Value)> = self
            .persist
            .iter()
            .filter(|(p, v)| **v != Value::base(**p))
            .map(|(p, v)| (*p, v))
            .collect();
        let mut e = Emit::default();
        let mut bases: BTreeMap<PersistId, Operand> = BTreeMap::new();
        for p in changed.iter().flat_map(|(_, v)| v.bases.keys()) {
            if !bases.contains_key(p) {
                let r = e.def(|dst| Insn::LoadPersist { dst, slot: *p });
                bases.insert(*p, r);
            }
        }
        // The terms needed, in table order (operands first).
        let mut needed = vec![false; self.terms.len()];
        let mut stack: Vec<TermId> = changed
            .iter()
            .flat_map(|(_, v)| v.terms.keys().copied())
            .collect();
        while let Some(t) = stack.pop() {
            if std::mem::replace(&mut needed[t.0 as usize], true) {
                continue;
            }
            match self.terms[t.0 as usize] {
                Term::Bin(_, _, a, b) => stack.extend([a, b]),
                Term::Ext(_, _, a) => stack.push(a),
                Term::Imm(_) | Term::Special(_) => {}
            }
        }
        let mut at: HashMap<TermId, Operand> = HashMap::new();
        for (i, term) in self.terms.iter().enumerate() {
            if !needed[i] {
                continue;
            }
            let operand = match *term {
                Term::Imm(c) => Operand::Imm(c as i64),
                Term::Special(special) => e.def(|dst| Insn::ReadSpecial { dst, special }),
                Term::Bin(op, width, a, b) => {
                    let (a, b) = (at[&a], at[&b]);
                    e.def(|dst| Insn::Bin {
                        op,
                        width,
                        dst,
                        a,
                        b,
                    })
                }
                Term::Ext(from, signed, a) => {
                    let src = at[&a];
                    e.def(|dst| Insn::Ext {
                        dst,
                        src,
                        from,
                        signed,
                    })
                }
            };
            at.insert(TermId(i as u32), operand);
        }
        for (slot, v) in changed {
            let parts = v
                .bases
                .iter()
                .map(|(p, &c)| (bases[p], c))
                .chain(v.terms.iter().map(|(t, &c)| (at[t], c)));
            let mut acc: Option<Operand> = None;
            for (operand, c) in parts {
                let part = match c {
                    1 => operand,
                    _ => e.wide(BinOp::Mul, operand, Operand::Imm(c as i64)),
                };
                acc = Some(match acc {
                    None => part,
                    Some(a) => e.wide(BinOp::Add, a, part),
                });
            }
            let src = match (acc, v.konst) {
                (None, c) => Operand::Imm(c as i64),
                (Some(a), 0) => a,
                (Some(a), c) => e.wide(BinOp::Add, a, Operand::Imm(c as i64)),
            };
            e.out.push(Insn::StorePersist { slot, src });
        }
        e.out.push(Insn::Exit);
        e.out
    }
}

/// A body being written, each value in a register of its own.
#[derive(Default)]
struct Emit {
    out: Vec<Insn>,
    next: u16,
}

impl Emit {
    /// Appends the instruction `insn(dst)` writing a fresh register; that register.
    fn def(&mut self, insn: impl FnOnce(Reg) -> Insn) -> Operand {
        let dst = Reg(self.next);
        self.next += 1;
        self.out.push(insn(dst));
        Operand::Reg(dst)
    }

    /// `op.64 a, b` in a fresh register.
    fn wide(&mut self, op: BinOp, a: Operand, b: Operand) -> Operand {
        self.def(|dst| Insn::Bin {
            op,
            width: Width::W64,
            dst,
            a,
            b,
        })
    }
}

#[cfg(test)]
mod tests;
