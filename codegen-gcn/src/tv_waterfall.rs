//! Proofs of the waterfall loops that compute the warp-wide site values (`warp_access.rs`,
//! decision 0031), over a whole wave and by induction over the rounds.
//!
//! The one-lane model of `tv.rs` cannot run such a loop: a round reads another lane's key
//! (`v_readfirstlane`) and compares every lane's with it. Here the loop's instructions run
//! on a wave of `lanes` lanes, once, from any state of a round: `exec` the lanes `R` not
//! yet accounted for, among the site's lanes `E` (`R ⊆ E`, `R ≠ 0`), lane `j`'s key `k_j`
//! in the key pair. The keys are opaque — a constant of an uninterpreted sort per lane —
//! and the model refuses any instruction that does more with a key word than copy it or
//! compare a whole key with a whole key (`v_cmp_eq_u64`); only equality of keys matters
//! then, so a proof holds for the 64-bit keys the snippet computes.
//!
//! Invariant of every round (`first_j`: `j ∈ E` and no lane of `E` below `j` has its key;
//! `closed`: no lane of `E` outside `R` has the key of a lane in `R`):
//!
//! | value | invariant besides `R ⊆ E` and `closed` |
//! |---|---|
//! | `sectors` | the count `= Σ_j [first_j ∧ j ∉ R]` |
//! | `run` | each lane `j ∈ E \ R` holds the mask of the lanes of `E` with its key |
//!
//! At the loop's entry `R = E` and (sectors) the count is 0, which the lane model proves of
//! the snippet's code before the loop: the invariant holds. A round keeps it, which this
//! module proves — for `sectors` one lane at a time: the lane's term of the sum grows by
//! its bit of `R & −R` (the lowest lane of `R`, a power of two: the sum grows by one) while
//! the count grows by one. The loop leaves when `exec` is zero, `R = 0`: the count is the
//! number of distinct keys of `E`, and every lane of `E` holds its run.

use crate::parse::{Instruction, Operand};
use crate::reg::{Reg, RegFile};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Mutex, OnceLock};
use z3::ast::{Bool, Dynamic, BV};
use z3::{SatResult, Sort, Symbol};

/// The warp-wide value a waterfall computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Waterfall {
    /// The number of distinct keys (`sectors`).
    Sectors,
    /// Each lane's mask of the lanes with its key (`run`).
    Run,
}

/// What the proof of a loop established about its registers, for the lane model's claims
/// on the code around it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LoopRegs {
    /// The VGPR pair holding each lane's key (its low register).
    pub key: u32,
    /// `sectors`: the SGPR holding the count; `run`: the VGPR pair (low register) holding
    /// the lane's mask.
    pub out: u32,
}

/// A 32-bit word of the model: a value, or a half of a key.
#[derive(Clone)]
enum Word {
    Bv(BV),
    Key { key: Dynamic, high: bool },
}

struct Wave {
    lanes: u32,
    exec: BV,
    vcc: BV,
    s: BTreeMap<u32, Word>,
    v: BTreeMap<u32, Vec<Word>>,
}

fn bit(x: &BV, j: u32) -> Bool {
    x.extract(j, j).eq(BV::from_u64(1, 1))
}

fn implies(a: &Bool, b: &Bool) -> Bool {
    Bool::or(&[a.not(), b.clone()])
}

fn one(b: &Bool) -> BV {
    b.ite(&BV::from_u64(1, 32), &BV::from_u64(0, 32))
}

/// The mask whose bit `j` is `bits[j]`.
fn mask(bits: &[Bool]) -> BV {
    let b = |x: &Bool| x.ite(&BV::from_u64(1, 1), &BV::from_u64(0, 1));
    bits.iter()
        .skip(1)
        .fold(b(&bits[0]), |acc, x| b(x).concat(&acc))
}

impl Wave {
    fn reg(o: &Operand) -> Result<Reg, String> {
        o.reg.ok_or_else(|| format!("operand `{}`", o.text))
    }

    /// Scalar word `i` of `r` (an SGPR, `exec` or `vcc` half).
    fn sword(&mut self, r: Reg, i: u32) -> Result<Word, String> {
        let n = r.first + i;
        let half = |x: &BV| {
            if n == 0 {
                x.extract(31, 0)
            } else {
                x.extract(63, 32)
            }
        };
        Ok(match r.file {
            RegFile::Sgpr => self
                .s
                .entry(n)
                .or_insert_with(|| Word::Bv(BV::new_const(format!("s{n}"), 32)))
                .clone(),
            RegFile::Exec => Word::Bv(half(&self.exec)),
            RegFile::Vcc => Word::Bv(half(&self.vcc)),
            f => return Err(format!("scalar operand in {f:?}")),
        })
    }

    /// A scalar operand of `words` words as a number (an integer literal or registers).
    fn sread(&mut self, o: &Operand, words: u32) -> Result<BV, String> {
        if let Some(v) = o.imm {
            return Ok(BV::from_i64(v, 64).extract(32 * words - 1, 0));
        }
        let r = Wave::reg(o)?;
        let mut out: Option<BV> = None;
        for i in 0..words {
            let Word::Bv(w) = self.sword(r, i)? else {
                return Err(format!("a key word used as a number (`{}`)", o.text));
            };
            out = Some(match out {
                None => w,
                Some(low) => w.concat(&low),
            });
        }
        out.ok_or_else(|| "an operand of no words".into())
    }

    fn swrite(&mut self, r: Reg, i: u32, w: Word) -> Result<(), String> {
        let n = r.first + i;
        let word = || match &w {
            Word::Bv(b) => Ok(b.clone()),
            Word::Key { .. } => Err("a key word written to a lane mask".to_owned()),
        };
        match r.file {
            RegFile::Sgpr => {
                self.s.insert(n, w);
            }
            RegFile::Exec | RegFile::Vcc => {
                let full = if r.file == RegFile::Exec {
                    &self.exec
                } else {
                    &self.vcc
                };
                let new = if n == 0 {
                    full.extract(63, 32).concat(&word()?)
                } else {
                    word()?.concat(full.extract(31, 0))
                };
                if r.file == RegFile::Exec {
                    self.exec = new;
                } else {
                    self.vcc = new;
                }
            }
            f => return Err(format!("scalar write to {f:?}")),
        }
        Ok(())
    }

    fn swrite_bv(&mut self, o: &Operand, v: &BV) -> Result<(), String> {
        let r = Wave::reg(o)?;
        for i in 0..r.count {
            self.swrite(r, i, Word::Bv(v.extract(32 * i + 31, 32 * i)))?;
        }
        Ok(())
    }

    /// VGPR `n` in every lane.
    fn vword(&mut self, n: u32) -> Vec<Word> {
        let lanes = self.lanes;
        self.v
            .entry(n)
            .or_insert_with(|| {
                (0..lanes)
                    .map(|j| Word::Bv(BV::new_const(format!("v{n}@{j}"), 32)))
                    .collect()
            })
            .clone()
    }

    fn vgpr(o: &Operand) -> Result<u32, String> {
        match o.reg {
            Some(r) if r.file == RegFile::Vgpr => Ok(r.first),
            _ => Err(format!("`{}` is not a VGPR", o.text)),
        }
    }

    /// The key both words of scalar pair `o` hold (its low, then high half).
    fn scalar_key(&mut self, o: &Operand) -> Result<Dynamic, String> {
        let r = Wave::reg(o)?;
        match (r.count, self.sword(r, 0)?, self.sword(r, 1)?) {
            (
                2,
                Word::Key {
                    key: a,
                    high: false,
                },
                Word::Key { key: b, high: true },
            ) if a == b => Ok(a),
            _ => Err(format!("`{}` does not hold one whole key", o.text)),
        }
    }

    /// Each lane's key in VGPR pair `o`.
    fn lane_keys(&mut self, o: &Operand) -> Result<Vec<Dynamic>, String> {
        let n = Wave::vgpr(o)?;
        let (lo, hi) = (self.vword(n), self.vword(n + 1));
        lo.into_iter()
            .zip(hi)
            .map(|(l, h)| match (l, h) {
                (
                    Word::Key {
                        key: a,
                        high: false,
                    },
                    Word::Key { key: b, high: true },
                ) if a == b => Ok(a),
                _ => Err(format!("`{}` does not hold each lane's key", o.text)),
            })
            .collect()
    }

    fn step(&mut self, x: &Instruction) -> Result<(), String> {
        let m = x.mnemonic.as_str();
        let o = &x.operands;
        let arg = |i: usize| o.get(i).ok_or_else(|| format!("`{m}`: operand {i}"));
        match m {
            "s_nop" => {}
            "v_readfirstlane_b32" => {
                // The first lane of `exec` (lane 0 when none is: never in a round, `R ≠ 0`).
                let src = self.vword(Wave::vgpr(arg(1)?)?);
                let mut out = src[0].clone();
                for j in (0..self.lanes).rev() {
                    let on = bit(&self.exec, j);
                    out = match (&src[j as usize], &out) {
                        (Word::Bv(a), Word::Bv(b)) => Word::Bv(on.ite(a, b)),
                        (Word::Key { key: a, high }, Word::Key { key: b, high: h })
                            if high == h =>
                        {
                            Word::Key {
                                key: on.ite(a, b),
                                high: *high,
                            }
                        }
                        _ => return Err("`v_readfirstlane` of mixed words".into()),
                    };
                }
                self.swrite(Wave::reg(arg(0)?)?, 0, out)?;
            }
            "v_cmp_eq_u64_e64" => {
                // Inactive lanes write 0.
                let k = self.scalar_key(arg(1)?)?;
                let keys = self.lane_keys(arg(2)?)?;
                let bits: Vec<Bool> = (0..self.lanes)
                    .map(|j| Bool::and(&[bit(&self.exec, j), k.eq(&keys[j as usize])]))
                    .collect();
                let v = mask(&bits);
                self.swrite_bv(arg(0)?, &v)?;
            }
            "s_mov_b64" | "s_mov_b32" => {
                let (d, s) = (Wave::reg(arg(0)?)?, arg(1)?);
                if let Some(r) = s.reg {
                    for i in 0..d.count {
                        let w = self.sword(r, i)?;
                        self.swrite(d, i, w)?;
                    }
                } else {
                    let v = self.sread(s, d.count)?;
                    self.swrite_bv(arg(0)?, &v)?;
                }
            }
            "s_add_u32" => {
                let v = self.sread(arg(1)?, 1)?.bvadd(self.sread(arg(2)?, 1)?);
                self.swrite_bv(arg(0)?, &v)?;
            }
            "s_andn2_b64" => {
                let v = self
                    .sread(arg(1)?, 2)?
                    .bvand(self.sread(arg(2)?, 2)?.bvnot());
                self.swrite_bv(arg(0)?, &v)?;
            }
            "v_mov_b32_e32" => {
                let d = Wave::vgpr(arg(0)?)?;
                let v = self.sread(arg(1)?, 1)?;
                let old = self.vword(d);
                let mut new = Vec::new();
                for (j, w) in old.into_iter().enumerate() {
                    let Word::Bv(w) = w else {
                        return Err("a key word overwritten in some lanes".into());
                    };
                    new.push(Word::Bv(bit(&self.exec, j as u32).ite(&v, &w)));
                }
                self.v.insert(d, new);
            }
            _ => return Err(format!("no wave semantics for `{m}`")),
        }
        Ok(())
    }
}

/// The body of the waterfall loop at `label` in `code`: the instructions after the label
/// up to its `s_cbranch_execnz`, which must end it (and is not included).
pub(crate) fn loop_body<'a>(
    code: &'a [Instruction],
    label: &str,
) -> Result<&'a [Instruction], String> {
    let is_label = |x: &Instruction| {
        x.mnemonic == ".label" && x.modifiers.first().map(String::as_str) == Some(label)
    };
    let start = code.iter().position(is_label).ok_or("the loop's label")? + 1;
    let len = code[start..]
        .iter()
        .position(|x| x.mnemonic.starts_with("s_cbranch") || x.mnemonic == ".label")
        .ok_or("the loop's branch")?;
    let end = start + len;
    let back = &code[end];
    if back.mnemonic != "s_cbranch_execnz"
        || back.operands.first().map(|o| o.text.as_str()) != Some(label)
    {
        return Err(format!(
            "the loop ends in `{}`, not a branch back while `exec` is not zero",
            back.mnemonic
        ));
    }
    Ok(&code[start..end])
}

/// Proves that one round of the waterfall `body` (from [`loop_body`]) keeps the
/// invariant of `value` (module docs) on a wave of `lanes` lanes; `Err` with a
/// counterexample (a lane's obligation) or why it could not be proved.
pub(crate) fn prove_round(
    value: Waterfall,
    body: &[Instruction],
    lanes: u32,
) -> Result<LoopRegs, String> {
    let regs = loop_regs(value, body)?;
    let key_sort = Sort::uninterpreted(Symbol::String("Key".into()));
    let keys: Vec<Dynamic> = (0..lanes)
        .map(|j| Dynamic::new_const(format!("key@{j}"), &key_sort))
        .collect();
    let e = BV::new_const("E", lanes);
    let r = BV::new_const("R", lanes);
    let widen = |x: &BV| {
        if lanes == 64 {
            x.clone()
        } else {
            x.zero_ext(64 - lanes)
        }
    };
    let mut wave = Wave {
        lanes,
        exec: widen(&r),
        vcc: BV::new_const("vcc", 64),
        s: BTreeMap::new(),
        v: BTreeMap::new(),
    };
    for (n, high) in [(regs.key, false), (regs.key + 1, true)] {
        let words = keys
            .iter()
            .map(|k| Word::Key {
                key: k.clone(),
                high,
            })
            .collect();
        wave.v.insert(n, words);
    }
    // The output before the round: `sectors`' count, `run`'s pair in every lane.
    let count = match value {
        Waterfall::Sectors => Some(wave.sread(&sgpr_operand(regs.out), 1)?),
        Waterfall::Run => None,
    };
    let pair_before = match value {
        Waterfall::Sectors => None,
        Waterfall::Run => Some([wave.vword(regs.out), wave.vword(regs.out + 1)]),
    };
    for x in body {
        wave.step(x)
            .map_err(|e| format!("{e} (in `{}`)", x.mnemonic))?;
    }
    let r2 = wave.exec.extract(lanes - 1, 0);
    let same = |i: u32, j: u32| keys[i as usize].eq(&keys[j as usize]);
    let out_ok = |x: &BV, j: u32| {
        let others: Vec<Bool> = (0..lanes)
            .map(|i| implies(&bit(x, i), &same(i, j).not()))
            .collect();
        implies(
            &Bool::and(&[bit(&e, j), bit(x, j).not()]),
            &Bool::and(&others),
        )
    };
    let mut hyps = vec![
        r.eq(BV::from_u64(0, lanes)).not(),
        r.bvand(e.bvnot()).eq(BV::from_u64(0, lanes)),
    ];
    hyps.extend((0..lanes).map(|i| out_ok(&r, i)));
    let low = r.bvand(r.bvnot().bvadd(BV::from_u64(1, lanes)));
    let mut goals: Vec<(String, Bool, Vec<Bool>)> = vec![(
        "R' ⊆ E".into(),
        r2.bvand(e.bvnot()).eq(BV::from_u64(0, lanes)),
        vec![],
    )];
    match value {
        Waterfall::Sectors => {
            let (Some(st), Some(Word::Bv(st2))) = (count.clone(), wave.s.get(&regs.out).cloned())
            else {
                return Err("the count register".into());
            };
            goals.push((
                "the count grows by one, R & -R is one lane".into(),
                Bool::and(&[
                    st2.eq(st.bvadd(BV::from_u64(1, 32))),
                    low.eq(BV::from_u64(0, lanes)).not(),
                    low.bvand(low.bvsub(BV::from_u64(1, lanes)))
                        .eq(BV::from_u64(0, lanes)),
                ]),
                vec![],
            ));
            for j in 0..lanes {
                let below: Vec<Bool> = (0..j)
                    .map(|i| Bool::or(&[bit(&e, i).not(), same(i, j).not()]))
                    .collect();
                let first = Bool::and(&[bit(&e, j), Bool::and(&below)]);
                let counted = |x: &BV| one(&Bool::and(&[first.clone(), bit(x, j).not()]));
                goals.push((
                    format!("lane {j}"),
                    Bool::and(&[
                        out_ok(&r2, j),
                        counted(&r2).eq(counted(&r).bvadd(one(&bit(&low, j)))),
                    ]),
                    vec![],
                ));
            }
        }
        Waterfall::Run => {
            let pair = |w: &[Vec<Word>; 2], j: usize| -> Result<BV, String> {
                match (&w[1][j], &w[0][j]) {
                    (Word::Bv(h), Word::Bv(l)) => Ok(h.concat(l)),
                    _ => Err("the run pair holds a key".into()),
                }
            };
            let old = pair_before.clone().ok_or("the run pair")?;
            let new = [wave.vword(regs.out), wave.vword(regs.out + 1)];
            for j in 0..lanes {
                let with_key: Vec<Bool> = (0..lanes)
                    .map(|i| Bool::and(&[bit(&e, i), same(i, j)]))
                    .collect();
                let want = widen(&mask(&with_key));
                let holds = |x: &BV, v: BV| {
                    implies(&Bool::and(&[bit(&e, j), bit(x, j).not()]), &v.eq(&want))
                };
                let ju = j as usize;
                goals.push((
                    format!("lane {j}"),
                    Bool::and(&[out_ok(&r2, j), holds(&r2, pair(&new, ju)?)]),
                    vec![holds(&r, pair(&old, ju)?)],
                ));
            }
        }
    }
    let solver = warptrace_verifier::solver();
    for h in &hyps {
        solver.assert(h);
    }
    for (what, goal, extra) in goals {
        solver.push();
        for h in &extra {
            solver.assert(h);
        }
        solver.assert(goal.not());
        match solver.check() {
            SatResult::Unsat => {}
            SatResult::Sat => {
                let shown = solver.get_model().map_or("?".into(), |m| {
                    let show = |t: &BV| m.eval(t, true).map_or("?".into(), |v| v.to_string());
                    format!("E = {}, R = {}", show(&e), show(&r))
                });
                return Err(format!(
                    "counterexample (a round of the waterfall, {what}): {shown}"
                ));
            }
            SatResult::Unknown => {
                return Err(format!("unknown (a round of the waterfall, {what})"))
            }
        }
        solver.pop(1);
    }
    Ok(regs)
}

/// [`prove_round`], once per loop text, value and wave size in the process (every site
/// and probe with the same loop shares the proof).
pub(crate) fn prove_round_cached(
    value: Waterfall,
    body: &[Instruction],
    lanes: u32,
) -> Result<LoopRegs, String> {
    type Proofs = HashMap<(Waterfall, String, u32), Result<LoopRegs, String>>;
    static PROVED: OnceLock<Mutex<Proofs>> = OnceLock::new();
    let text: Vec<String> = body
        .iter()
        .map(|x| {
            let ops: Vec<&str> = x.operands.iter().map(|o| o.text.as_str()).collect();
            format!(
                "{} {} {}",
                x.mnemonic,
                ops.join(", "),
                x.modifiers.join(" ")
            )
        })
        .collect();
    let key = (value, text.join("\n"), lanes);
    let proofs = PROVED.get_or_init(Mutex::default);
    if let Some(done) = proofs.lock().ok().and_then(|p| p.get(&key).cloned()) {
        return done;
    }
    let done = prove_round(value, body, lanes);
    if let Ok(mut p) = proofs.lock() {
        p.insert(key, done.clone());
    }
    done
}

fn sgpr_operand(n: u32) -> Operand {
    Operand {
        text: format!("s{n}"),
        reg: Some(Reg::new(RegFile::Sgpr, n, 1)),
        imm: None,
    }
}

/// The key pair (the VGPR pair the round's first `v_readfirstlane` reads) and the output
/// register: `sectors`' count (the SGPR the round adds to), `run`'s pair (the VGPR the
/// round's first `v_mov_b32` writes).
fn loop_regs(value: Waterfall, body: &[Instruction]) -> Result<LoopRegs, String> {
    let first = body.first().filter(|x| x.mnemonic == "v_readfirstlane_b32");
    let key = first
        .and_then(|x| x.operands.get(1))
        .ok_or("the round does not start with `v_readfirstlane_b32`")
        .and_then(|o| Wave::vgpr(o).map_err(|_| "the key is not a VGPR"))?;
    let (mnemonic, file) = match value {
        Waterfall::Sectors => ("s_add_u32", RegFile::Sgpr),
        Waterfall::Run => ("v_mov_b32_e32", RegFile::Vgpr),
    };
    let out = body
        .iter()
        .find(|x| x.mnemonic == mnemonic)
        .and_then(|x| x.operands.first()?.reg)
        .filter(|r| r.file == file)
        .ok_or_else(|| format!("the round has no `{mnemonic}` to its output"))?;
    Ok(LoopRegs {
        key,
        out: out.first,
    })
}
