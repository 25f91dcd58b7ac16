//! z3 encodings: the IR's semantics on 64-bit bit-vectors, the symbolic execution of a
//! probe's DAG, and a checked query that returns a proof, a counterexample or "unknown".
//!
//! Every query is quantifier-free bit-vector logic: an obligation `P` is proved by
//! showing `¬P` unsatisfiable under the hardware's constraints.

use std::time::Instant;
use warptrace_ir::{BinOp, ExtFrom, Insn, Operand, PersistId, Reg, SiteValue, Special, Width};
use z3::ast::{Bool, Int, BV};
use z3::{Model, Params, SatResult, Solver};

/// The solver's resource limit per query (z3 `rlimit`), after which the verifier gives
/// up and rejects. Every obligation warptrace itself generates needs a small fraction of
/// it; translation validation's hardest counterexample searches (64-bit division
/// circuits) need most of it; a query at the limit takes seconds.
///
/// A deterministic resource count rather than a wall-clock `timeout`: the same query
/// gives the same verdict on every machine (a certificate must be reproducible), and
/// z3 4.8's timer thread, which `timeout` starts, can deadlock.
pub const SOLVER_RLIMIT: u32 = 20_000_000;

/// A solver configured as every warptrace proof uses it ([`SOLVER_RLIMIT`]).
pub fn solver() -> Solver {
    solver_at(SOLVER_RLIMIT)
}

/// A solver with resource limit `rlimit` (z3 `rlimit`, no timer), for the claims that
/// need more than [`SOLVER_RLIMIT`].
pub fn solver_at(rlimit: u32) -> Solver {
    let solver = Solver::new();
    let mut params = Params::new();
    params.set_u32("rlimit", rlimit);
    solver.set_params(&params);
    solver
}

/// The resource limit of a query's second try ([`check_with_retry`]).
pub const RETRY_RLIMIT: u32 = 4 * SOLVER_RLIMIT;

/// One query ([`crate::proof_cache::check`]), asked once more with [`RETRY_RLIMIT`] when
/// z3 gives up at the solver's own limit. z3's resource count for the same query varies
/// with what its context did before — other queries of the thread, the printing of a
/// cache key — so a query near the limit is decided in one run and not in the next
/// (translation validation's claims; the program obligations keep one try). `rlimit` is
/// the limit the solver was set up with: one at least as high is not asked again.
pub fn check_with_retry(solver: &Solver, rlimit: u32) -> SatResult {
    let result = crate::proof_cache::check(solver);
    if result != SatResult::Unknown || rlimit >= RETRY_RLIMIT {
        return result;
    }
    let mut params = Params::new();
    params.set_u32("rlimit", RETRY_RLIMIT);
    solver.set_params(&params);
    crate::proof_cache::check(solver)
}

/// The result of one solver query for `¬P`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// `¬P` is unsatisfiable: `P` holds.
    Proved,
    /// A model of `¬P`: the named inputs and their values.
    Counterexample(Vec<(String, u64)>),
    /// The solver gave up (resource limit or incompleteness).
    Unknown(String),
}

/// Checks that `negated` (the negation of an obligation, conjoined with its
/// assumptions) is unsatisfiable; on a model, reports the values of `inputs`.
pub(crate) fn refute(negated: &[Bool], inputs: &[(String, BV)]) -> (Outcome, u64) {
    query(negated, |model| {
        inputs
            .iter()
            .filter_map(|(n, v)| Some((n.clone(), model.eval(v, true)?.as_u64()?)))
            .collect()
    })
}

/// [`refute`] over integer inputs (nonlinear integer arithmetic), each named by its
/// constant's name.
pub(crate) fn refute_int(negated: &[Bool], inputs: &[&Int]) -> (Outcome, u64) {
    query(negated, |model| {
        inputs
            .iter()
            .filter_map(|v| Some((v.to_string(), model.eval(*v, true)?.as_u64()?)))
            .collect()
    })
}

/// Runs one query; `values` reads a counterexample out of a model.
fn query(negated: &[Bool], values: impl FnOnce(&Model) -> Vec<(String, u64)>) -> (Outcome, u64) {
    let start = Instant::now();
    let solver = solver();
    for b in negated {
        solver.assert(b);
    }
    dump(&solver);
    let outcome = match crate::proof_cache::check(&solver) {
        SatResult::Unsat => Outcome::Proved,
        SatResult::Sat => match solver.get_model() {
            Some(model) => Outcome::Counterexample(values(&model)),
            None => Outcome::Unknown("the solver found a model but did not return it".into()),
        },
        SatResult::Unknown => Outcome::Unknown(
            solver
                .get_reason_unknown()
                .unwrap_or_else(|| "unknown".into()),
        ),
    };
    (outcome, start.elapsed().as_micros() as u64)
}

/// With `WARPTRACE_SMT_DUMP=DIR`, writes each query to `DIR/query-N.smt2` (for
/// reproducing a slow or surprising proof with the `z3` command).
fn dump(solver: &Solver) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    if let Some(dir) = std::env::var_os("WARPTRACE_SMT_DUMP") {
        let n = N.fetch_add(1, Ordering::Relaxed);
        let path = std::path::Path::new(&dir).join(format!("query-{n}.smt2"));
        // Best effort: a debugging aid must not change the verdict.
        let _ = std::fs::write(path, format!("{}\n(check-sat)\n", solver.to_smt2()));
    }
}

/// Renders a counterexample as `name = value, …`.
pub(crate) fn render(values: &[(String, u64)]) -> String {
    if values.is_empty() {
        return "any input".into();
    }
    values
        .iter()
        .map(|(n, v)| format!("{n} = {v:#x}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A 64-bit constant.
pub(crate) fn k64(v: u64) -> BV {
    BV::from_u64(v, 64)
}

/// The low `bits` bits of `v`, zero-extended back to 64.
fn low(v: &BV, bits: u32) -> BV {
    if bits == 64 {
        v.clone()
    } else {
        v.extract(bits - 1, 0).zero_ext(64 - bits)
    }
}

fn bool_bv(b: &Bool) -> BV {
    b.ite(&k64(1), &k64(0))
}

/// `op.width a, b` as `docs/ir.md` defines it (divisors non-zero: the caller proves it).
pub fn alu(op: BinOp, width: Width, a: &BV, b: &BV) -> BV {
    let bits = match width {
        Width::W32 => 32,
        Width::W64 => 64,
    };
    let a = a.extract(bits - 1, 0);
    let b = b.extract(bits - 1, 0);
    let shift = b.bvurem(BV::from_u64(u64::from(bits), bits));
    let r = match op {
        BinOp::Add => a.bvadd(&b),
        BinOp::Sub => a.bvsub(&b),
        BinOp::Mul => a.bvmul(&b),
        BinOp::DivU => a.bvudiv(&b),
        BinOp::DivS => a.bvsdiv(&b),
        BinOp::RemU => a.bvurem(&b),
        BinOp::RemS => a.bvsrem(&b),
        BinOp::And => a.bvand(&b),
        BinOp::Or => a.bvor(&b),
        BinOp::Xor => a.bvxor(&b),
        BinOp::Shl => a.bvshl(&shift),
        BinOp::ShrU => a.bvlshr(&shift),
        BinOp::ShrS => a.bvashr(&shift),
        cmp => {
            let c = match cmp {
                BinOp::Eq => a.eq(&b),
                BinOp::Ne => a.eq(&b).not(),
                BinOp::LtU => a.bvult(&b),
                BinOp::LtS => a.bvslt(&b),
                BinOp::LeU => a.bvule(&b),
                BinOp::LeS => a.bvsle(&b),
                BinOp::GtU => a.bvugt(&b),
                BinOp::GtS => a.bvsgt(&b),
                BinOp::GeU => a.bvuge(&b),
                _ => a.bvsge(&b),
            };
            return bool_bv(&c);
        }
    };
    if bits == 64 {
        r
    } else {
        r.zero_ext(64 - bits)
    }
}

/// `sext`/`zext` from `from`.
pub fn extend(v: &BV, from: ExtFrom, signed: bool) -> BV {
    let bits = from.bits();
    let part = v.extract(bits - 1, 0);
    if signed {
        part.sign_ext(64 - bits)
    } else {
        part.zero_ext(64 - bits)
    }
}

/// The hardware grid of one probe firing: the thread's position and the launch's shape,
/// constrained to the hardware's limits (or to a launch's dimensions).
#[derive(Debug)]
pub(crate) struct GridVars {
    pub tid: [BV; 3],
    pub ntid: [BV; 3],
    pub ctaid: [BV; 3],
    pub nctaid: [BV; 3],
    pub lane: BV,
    /// The lanes of a warp: 32 (NVIDIA, AMD wave32) or 64 (AMD wave64) — the IR is
    /// checked for every target (decision 0026).
    pub warp_size: BV,
}

impl GridVars {
    /// Fresh variables named with `prefix` (two threads of one query use two prefixes).
    pub(crate) fn new(prefix: &str) -> GridVars {
        let v = |n: &str| BV::new_const(format!("{prefix}{n}"), 64);
        GridVars {
            tid: [v("tid.x"), v("tid.y"), v("tid.z")],
            ntid: [v("ntid.x"), v("ntid.y"), v("ntid.z")],
            ctaid: [v("ctaid.x"), v("ctaid.y"), v("ctaid.z")],
            nctaid: [v("nctaid.x"), v("nctaid.y"), v("nctaid.z")],
            lane: v("lane"),
            warp_size: v("warp size"),
        }
    }

    /// `tid < ntid ≤ hardware`, `ctaid < nctaid ≤ hardware`, `lane < warp size`, a warp
    /// of 32 or 64 lanes.
    pub(crate) fn hardware(&self) -> Vec<Bool> {
        use crate::ir_check::{MAX_NCTAID, MAX_NTID, MAX_THREADS_PER_BLOCK};
        let mut c = Vec::new();
        for d in 0..3 {
            c.push(self.ntid[d].bvuge(k64(1)));
            c.push(self.ntid[d].bvule(k64(MAX_NTID[d])));
            c.push(self.tid[d].bvult(&self.ntid[d]));
            c.push(self.nctaid[d].bvuge(k64(1)));
            c.push(self.nctaid[d].bvule(k64(MAX_NCTAID[d])));
            c.push(self.ctaid[d].bvult(&self.nctaid[d]));
        }
        c.push(self.threads_per_block().bvule(k64(MAX_THREADS_PER_BLOCK)));
        c.push(Bool::or(&[
            self.warp_size.eq(k64(32)),
            self.warp_size.eq(k64(64)),
        ]));
        c.push(self.lane.bvult(&self.warp_size));
        c
    }

    /// `ntid.x * ntid.y * ntid.z`.
    pub(crate) fn threads_per_block(&self) -> BV {
        self.ntid[0].bvmul(&self.ntid[1]).bvmul(&self.ntid[2])
    }

    /// The thread's linear index in its block.
    pub(crate) fn linear_tid(&self) -> BV {
        let yz = self.tid[1].bvadd(self.ntid[1].bvmul(&self.tid[2]));
        self.tid[0].bvadd(self.ntid[0].bvmul(&yz))
    }

    /// The block's linear index in the grid (64-bit, exact).
    pub(crate) fn linear_block(&self) -> BV {
        let yz = self.ctaid[1].bvadd(self.nctaid[1].bvmul(&self.ctaid[2]));
        self.ctaid[0].bvadd(self.nctaid[0].bvmul(&yz))
    }

    /// The named inputs, for counterexamples.
    pub(crate) fn inputs(&self) -> Vec<(String, BV)> {
        let names = ["x", "y", "z"];
        let mut v = Vec::new();
        for (group, vars) in [
            ("tid", &self.tid),
            ("ntid", &self.ntid),
            ("ctaid", &self.ctaid),
            ("nctaid", &self.nctaid),
        ] {
            for d in 0..3 {
                v.push((format!("{group}.{}", names[d]), vars[d].clone()));
            }
        }
        v.push(("lane".into(), self.lane.clone()));
        v.push(("warp size".into(), self.warp_size.clone()));
        v
    }

    /// The value of special `s` (64-bit, the upper bits zero for 32-bit values); `None`
    /// for values the grid does not determine (clocks, ids, masks).
    fn special(&self, s: Special) -> Option<BV> {
        let d = |a: &[BV; 3], i: usize| a[i].clone();
        Some(match s {
            Special::TidX => d(&self.tid, 0),
            Special::TidY => d(&self.tid, 1),
            Special::TidZ => d(&self.tid, 2),
            Special::NtidX => d(&self.ntid, 0),
            Special::NtidY => d(&self.ntid, 1),
            Special::NtidZ => d(&self.ntid, 2),
            Special::CtaidX => d(&self.ctaid, 0),
            Special::CtaidY => d(&self.ctaid, 1),
            Special::CtaidZ => d(&self.ctaid, 2),
            Special::NctaidX => d(&self.nctaid, 0),
            Special::NctaidY => d(&self.nctaid, 1),
            Special::NctaidZ => d(&self.nctaid, 2),
            Special::Lane => self.lane.clone(),
            Special::Warp => self.linear_tid().bvudiv(&self.warp_size),
            Special::Block => low(&self.linear_block(), 32),
            Special::Thread => self
                .linear_block()
                .bvmul(self.threads_per_block())
                .bvadd(self.linear_tid()),
            _ => return None,
        })
    }
}

/// One probe executed symbolically: for each instruction, the condition under which a
/// firing reaches it and the registers' values there.
#[derive(Debug)]
pub(crate) struct SymProbe {
    /// The path condition of each instruction (`false` when unreachable).
    pub reach: Vec<Bool>,
    /// The registers before each instruction (only those defined on every path).
    regs: Vec<Vec<(Reg, BV)>>,
    /// The free inputs, for counterexamples.
    inputs: Vec<(String, BV)>,
}

#[derive(Clone)]
struct SymState {
    regs: Vec<(Reg, BV)>,
    persist: Vec<(PersistId, BV)>,
}

impl SymState {
    fn get(&self, r: Reg) -> Option<&BV> {
        self.regs.iter().find(|(x, _)| *x == r).map(|(_, v)| v)
    }
    fn set(&mut self, r: Reg, v: BV) {
        match self.regs.iter_mut().find(|(x, _)| *x == r) {
            Some(slot) => slot.1 = v,
            None => self.regs.push((r, v)),
        }
    }
}

impl SymProbe {
    /// Executes `insns` (a DAG whose jumps go forward) over symbolic inputs.
    pub(crate) fn run(insns: &[Insn]) -> SymProbe {
        let grid = GridVars::new("");
        let mut inputs = grid.inputs();
        let n = insns.len();
        // Incoming (condition, state) per instruction.
        let mut incoming: Vec<Vec<(Bool, SymState)>> = vec![Vec::new(); n + 1];
        let mut reach = Vec::with_capacity(n);
        let mut regs = Vec::with_capacity(n);
        let mut other_specials: Vec<(Special, BV)> = Vec::new();
        let mut sites: Vec<(SiteValue, BV)> = Vec::new();
        let mut persist_in: Vec<(PersistId, BV)> = Vec::new();
        let mut extra = Vec::new();
        if n > 0 {
            incoming[0].push((
                Bool::from_bool(true),
                SymState {
                    regs: Vec::new(),
                    persist: Vec::new(),
                },
            ));
        }
        for (i, insn) in insns.iter().enumerate() {
            let arrivals = std::mem::take(&mut incoming[i]);
            let (cond, mut state) = merge(arrivals);
            reach.push(cond.clone());
            regs.push(state.regs.clone());
            let operand = |s: &SymState, o: &Operand| match o {
                Operand::Imm(v) => k64(*v as u64),
                Operand::Reg(r) => s
                    .get(*r)
                    .cloned()
                    .unwrap_or_else(|| BV::fresh_const("undefined", 64)),
            };
            match insn {
                Insn::Mov { dst, src } => {
                    let v = operand(&state, src);
                    state.set(*dst, v);
                }
                Insn::Bin {
                    op,
                    width,
                    dst,
                    a,
                    b,
                    ..
                } => {
                    let v = alu(*op, *width, &operand(&state, a), &operand(&state, b));
                    state.set(*dst, v);
                }
                Insn::Ext {
                    dst,
                    src,
                    from,
                    signed,
                } => {
                    let v = extend(&operand(&state, src), *from, *signed);
                    state.set(*dst, v);
                }
                Insn::ReadSpecial { dst, special } => {
                    let v = match grid.special(*special) {
                        Some(v) => v,
                        None => lookup_or_new(&mut other_specials, *special, || {
                            let v = BV::new_const(format!("sreg.{}", special.name()), 64);
                            let r = crate::ir_check::special_range(*special);
                            extra.push(v.bvuge(k64(r.lo)));
                            extra.push(v.bvule(k64(r.hi)));
                            inputs.push((special.name().to_string(), v.clone()));
                            v
                        }),
                    };
                    state.set(*dst, v);
                }
                Insn::ReadSite { dst, value } => {
                    let v = lookup_or_new(&mut sites, *value, || {
                        let v = BV::new_const(format!("site.{}", value.name()), 64);
                        let r = crate::ir_check::site_range(*value);
                        if (r.lo, r.hi) != (0, u64::MAX) {
                            extra.push(v.bvuge(k64(r.lo)));
                            extra.push(v.bvule(k64(r.hi)));
                        }
                        inputs.push((format!("site {}", value.name()), v.clone()));
                        v
                    });
                    state.set(*dst, v);
                }
                Insn::LoadPersist { dst, slot } => {
                    let v = match state.persist.iter().find(|(p, _)| p == slot) {
                        Some((_, v)) => v.clone(),
                        None => lookup_or_new(&mut persist_in, *slot, || {
                            let v = persist_entry(*slot);
                            inputs.push((format!("persistent {}", slot.0), v.clone()));
                            v
                        }),
                    };
                    state.set(*dst, v);
                }
                Insn::StorePersist { slot, src } => {
                    let v = operand(&state, src);
                    match state.persist.iter_mut().find(|(p, _)| p == slot) {
                        Some(e) => e.1 = v,
                        None => state.persist.push((*slot, v)),
                    }
                }
                _ => {}
            }
            match insn {
                Insn::Exit => {}
                Insn::Jump { target } => {
                    if let Some(slot) = incoming.get_mut(*target as usize) {
                        slot.push((cond, state));
                    }
                }
                Insn::Branch {
                    cond: c,
                    if_zero,
                    target,
                } => {
                    let v = operand(&state, &Operand::Reg(*c));
                    let zero = v.eq(k64(0));
                    let taken = if *if_zero { zero.clone() } else { zero.not() };
                    if let Some(slot) = incoming.get_mut(*target as usize) {
                        slot.push((Bool::and(&[&cond, &taken]), state.clone()));
                    }
                    incoming[i + 1].push((Bool::and(&[&cond, &taken.not()]), state));
                }
                _ => incoming[i + 1].push((cond, state)),
            }
        }
        let grid_constraints = grid.hardware();
        let mut reach_all = Vec::with_capacity(n);
        for r in reach {
            let mut all: Vec<&Bool> = grid_constraints.iter().collect();
            all.extend(extra.iter());
            all.push(&r);
            reach_all.push(Bool::and(&all));
        }
        SymProbe {
            reach: reach_all,
            regs,
            inputs,
        }
    }

    /// The value of `operand` before instruction `insn`.
    pub(crate) fn value(&self, insn: usize, operand: Operand) -> BV {
        match operand {
            Operand::Imm(v) => k64(v as u64),
            Operand::Reg(r) => self
                .regs
                .get(insn)
                .and_then(|rs| rs.iter().find(|(x, _)| *x == r))
                .map(|(_, v)| v.clone())
                .unwrap_or_else(|| BV::fresh_const("undefined", 64)),
        }
    }

    /// Whether `operand`, read by instruction `insn` at `width`, can be zero on a path
    /// that reaches it.
    pub(crate) fn may_be_zero(
        &self,
        insn: usize,
        operand: Operand,
        width: Width,
    ) -> (Outcome, u64) {
        let bits = match width {
            Width::W32 => 32,
            Width::W64 => 64,
        };
        let v = low(&self.value(insn, operand), bits);
        let Some(reach) = self.reach.get(insn) else {
            return (Outcome::Proved, 0);
        };
        refute(&[reach.clone(), v.eq(k64(0))], &self.inputs)
    }
}

/// The value persistent register `p` holds when the probe fires.
fn persist_entry(p: PersistId) -> BV {
    BV::new_const(format!("persist.{}", p.0), 64)
}

fn lookup_or_new<K: PartialEq + Copy>(
    cache: &mut Vec<(K, BV)>,
    key: K,
    make: impl FnOnce() -> BV,
) -> BV {
    if let Some((_, v)) = cache.iter().find(|(k, _)| *k == key) {
        return v.clone();
    }
    let v = make();
    cache.push((key, v.clone()));
    v
}

/// Merges the states arriving at one instruction: the path condition is the disjunction;
/// a register defined on every arrival gets an `ite` chain (or its common value).
fn merge(arrivals: Vec<(Bool, SymState)>) -> (Bool, SymState) {
    let mut it = arrivals.into_iter();
    let Some((c0, s0)) = it.next() else {
        return (
            Bool::from_bool(false),
            SymState {
                regs: Vec::new(),
                persist: Vec::new(),
            },
        );
    };
    let rest: Vec<(Bool, SymState)> = it.collect();
    if rest.is_empty() {
        return (c0, s0);
    }
    let mut conds = vec![&c0];
    conds.extend(rest.iter().map(|(c, _)| c));
    let cond = Bool::or(&conds);
    let mut state = s0.clone();
    state
        .regs
        .retain(|(r, _)| rest.iter().all(|(_, s)| s.get(*r).is_some()));
    for (r, v) in state.regs.iter_mut() {
        let mut acc = v.clone();
        for (c, s) in &rest {
            if let Some(o) = s.get(*r) {
                if o != &acc {
                    acc = c.ite(o, &acc);
                }
            }
        }
        *v = acc;
    }
    // A persistent register not stored on some path still holds its entry value there.
    let mut slots: Vec<PersistId> = Vec::new();
    for (_, st) in std::iter::once(&(c0.clone(), s0.clone())).chain(rest.iter()) {
        for (p, _) in &st.persist {
            if !slots.contains(p) {
                slots.push(*p);
            }
        }
    }
    let value_in = |st: &SymState, p: PersistId| {
        st.persist
            .iter()
            .find(|(q, _)| *q == p)
            .map(|(_, v)| v.clone())
            .unwrap_or_else(|| persist_entry(p))
    };
    state.persist = slots
        .into_iter()
        .map(|p| {
            let mut acc = value_in(&s0, p);
            for (c, st) in &rest {
                let o = value_in(st, p);
                if o != acc {
                    acc = c.ite(&o, &acc);
                }
            }
            (p, acc)
        })
        .collect();
    (cond, state)
}

#[cfg(test)]
mod tests {
    use super::*;
    use warptrace_ir::interp;
    use z3::ast::Ast;

    #[test]
    fn alu_matches_the_interpreter() {
        let samples = [
            0u64,
            1,
            2,
            31,
            32,
            33,
            63,
            64,
            65,
            0x7fff_ffff,
            0x8000_0000,
            0xffff_ffff,
            0x1_0000_0000,
            0x8000_0000_0000_0000,
            u64::MAX,
            0x1234_5678_9abc_def0,
        ];
        for op in BinOp::ALL {
            for width in [Width::W32, Width::W64] {
                for &a in &samples {
                    for &b in &samples {
                        let Some(want) = interp::alu(op, width, a, b) else {
                            continue;
                        };
                        let got = alu(op, width, &k64(a), &k64(b)).simplify().as_u64();
                        assert_eq!(got, Some(want), "{op:?} {width:?} {a:#x} {b:#x}");
                    }
                }
            }
        }
        for from in [ExtFrom::B8, ExtFrom::B16, ExtFrom::B32] {
            for signed in [false, true] {
                for &a in &samples {
                    let got = extend(&k64(a), from, signed).simplify().as_u64();
                    assert_eq!(got, Some(interp::extend(a, from, signed)));
                }
            }
        }
    }
}
