//! Proofs of the waterfall loops that compute the warp-wide site values (`warp_access.rs`,
//! decision 0031), over a whole wave and by induction over the rounds.
//!
//! The one-lane model of `tv.rs` cannot run such a loop: a round reads another lane's key
//! (`v_readfirstlane`) and compares every lane's with it. Here the loop's instructions run
//! on a wave of `lanes` lanes, once, from any state of a round: `exec` the lanes `R` not
//! yet accounted for, among the site's lanes `E` (`R ⊆ E`, `R ≠ 0`), lane `j`'s key `k_j`
//! in the key pair. The keys are opaque — a constant of an uninterpreted sort per lane —
//! and the model refuses any instruction that does more with a key word than copy it,
//! compare a whole key with a whole key (`v_cmp_eq_u64`) or (`wavefronts`) take the
//! key's group, its low word and an immediate, an uninterpreted function of the key; a
//! proof for every domain of keys and every such function holds for the 64-bit keys the
//! snippet computes and their groups.
//!
//! Invariant of every round (`first_j`: `j ∈ E` and no lane of `E` below `j` has its key;
//! `closed`: no lane of `E` outside `R` has the key of a lane in `R`):
//!
//! | value | invariant besides `R ⊆ E` and `closed` |
//! |---|---|
//! | `sectors` | the count `= Σ_i [first_i ∧ i ∉ R]` |
//! | `run` | each lane `j ∈ E \ R` holds the mask of the lanes of `E` with its key |
//! | `wavefronts` | each lane `j ∈ E` holds `N_j = Σ_i [first_i ∧ i ∉ R ∧ group_i = group_j]`; the count is the largest `N_j` |
//!
//! At the loop's entry `R = E` and the counts are 0, which the lane model proves of the
//! snippet's code before the loop: the invariant holds. A round keeps it, which this
//! module proves one lane at a time: the lane's term `[first_i ∧ i ∉ R]` grows by its bit
//! of `R & −R` (the lowest lane `f` of `R`; a power of two, so a sum of these terms grows
//! by exactly one, at `f`) — for `sectors` while the count grows by one; for
//! `wavefronts` each lane's count grows by one exactly when its group is `f`'s (so it
//! stays `N_j`, the same in every lane of a group), a lane of another group keeps a count
//! no larger than the new count, and the new count is the larger of the old one and the
//! count of the first lane of `f`'s group (a lane of `E`: `f` is one). The sums and the
//! largest are put together from the lanes' facts by that argument, not by z3. The loop
//! leaves when `exec` is zero, `R = 0`: the count is the number of distinct keys of `E`
//! (`sectors`) or the most of one group (`wavefronts`), and every lane of `E` holds its
//! run.

use crate::parse::{Instruction, Operand};
use crate::proved::{once, Proofs};
use crate::reg::{Reg, RegFile};
use crate::tv::{with_half, LABEL};
use std::collections::BTreeMap;
use warptrace_ir::SiteValue;
use z3::ast::{Bool, Dynamic, BV};
use z3::{FuncDecl, SatResult, Sort, Symbol};

/// The warp-wide value a waterfall computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Waterfall {
    /// The number of distinct keys (`sectors`).
    Sectors,
    /// Each lane's mask of the lanes with its key (`run`).
    Run,
    /// The most distinct keys of one group (`wavefronts`: units of one bank group).
    Wavefronts,
}

impl Waterfall {
    /// The waterfall that computes site value `v`, if one does.
    pub(crate) fn of(v: SiteValue) -> Option<Waterfall> {
        match v {
            SiteValue::Sectors => Some(Waterfall::Sectors),
            SiteValue::Run => Some(Waterfall::Run),
            SiteValue::Wavefronts => Some(Waterfall::Wavefronts),
            _ => None,
        }
    }

    /// The site value it computes.
    pub(crate) fn site_value(self) -> SiteValue {
        match self {
            Waterfall::Sectors => SiteValue::Sectors,
            Waterfall::Run => SiteValue::Run,
            Waterfall::Wavefronts => SiteValue::Wavefronts,
        }
    }
}

/// What the proof of a loop established about its registers, for the lane model's claims
/// on the code around it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LoopRegs {
    /// The VGPR pair holding each lane's key (its low register).
    pub key: u32,
    /// `sectors`, `wavefronts`: the SGPR holding the count; `run`: the VGPR pair (low
    /// register) holding the lane's mask.
    pub out: u32,
    /// `wavefronts`: the VGPR holding each lane's group, the mask that takes a key's
    /// group from its low word, the VGPR holding each lane's count of its group's keys,
    /// the SGPR pair holding the site's lanes.
    pub groups: Option<Groups>,
}

/// The registers of `wavefronts`' rounds besides the key's and the count's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Groups {
    pub group: u32,
    pub mask: i64,
    pub count: u32,
    pub lanes: u32,
    /// The SGPR the round reads the first group lane's count into.
    pub read: u32,
}

/// The group of a key: its low word and `mask` (an uninterpreted function of the opaque
/// key; the lane model proves the lanes' groups are that).
fn group_of(key_sort: &Sort, mask: i64) -> FuncDecl {
    FuncDecl::new(format!("key.lo&{mask}"), &[key_sort], &Sort::bitvector(32))
}

/// A 32-bit word of the model: a value, or a half of a key.
#[derive(Clone)]
enum Word {
    Bv(BV),
    Key { key: Dynamic, high: bool },
}

struct Wave {
    lanes: u32,
    key_sort: Sort,
    exec: BV,
    vcc: BV,
    s: BTreeMap<u32, Word>,
    v: BTreeMap<u32, Vec<Word>>,
}

fn bit(x: &BV, j: u32) -> Bool {
    x.extract(j, j).eq(BV::from_u64(1, 1))
}

/// The key whose low half is `lo` and high half `hi`, if they are one key's halves.
fn whole_key(lo: Word, hi: Word) -> Option<Dynamic> {
    match (lo, hi) {
        (
            Word::Key {
                key: a,
                high: false,
            },
            Word::Key { key: b, high: true },
        ) if a == b => Some(a),
        _ => None,
    }
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
                let new = with_half(full, n, word()?);
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

    /// SGPR `n` as a number.
    fn sgpr(&mut self, n: u32) -> Result<BV, String> {
        match self.sword(Reg::new(RegFile::Sgpr, n, 1), 0)? {
            Word::Bv(v) => Ok(v),
            Word::Key { .. } => Err(format!("a key word in s{n} used as a number")),
        }
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
        let (lo, hi) = (self.sword(r, 0)?, self.sword(r, 1)?);
        whole_key(lo, hi)
            .filter(|_| r.count == 2)
            .ok_or_else(|| format!("`{}` does not hold one whole key", o.text))
    }

    /// Each lane's key in VGPR pair `o`.
    fn lane_keys(&mut self, o: &Operand) -> Result<Vec<Dynamic>, String> {
        let n = Wave::vgpr(o)?;
        let (lo, hi) = (self.vword(n), self.vword(n + 1));
        lo.into_iter()
            .zip(hi)
            .map(|(l, h)| {
                whole_key(l, h).ok_or_else(|| format!("`{}` does not hold each lane's key", o.text))
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
            "s_and_b32" => {
                // A key's group (its low word and an immediate), or a number's bits.
                let r = Wave::reg(arg(1)?)?;
                let v = match (self.sword(r, 0)?, arg(2)?.imm) {
                    (Word::Key { key, high: false }, Some(m)) => group_of(&self.key_sort, m)
                        .apply(&[&key])
                        .as_bv()
                        .ok_or("a group that is no bit-vector")?,
                    (Word::Key { .. }, _) => return Err("a key word used as a number".into()),
                    (Word::Bv(a), _) => a.bvand(self.sread(arg(2)?, 1)?),
                };
                self.swrite_bv(arg(0)?, &v)?;
            }
            "s_max_u32" => {
                let (a, b) = (self.sread(arg(1)?, 1)?, self.sread(arg(2)?, 1)?);
                let v = a.bvuge(&b).ite(&a, &b);
                self.swrite_bv(arg(0)?, &v)?;
            }
            "v_cmp_eq_u32_e32" => {
                let a = self.sread(arg(1)?, 1)?;
                let lanes = self.vword(Wave::vgpr(arg(2)?)?);
                let mut bits = Vec::new();
                for (j, w) in lanes.iter().enumerate() {
                    let Word::Bv(w) = w else {
                        return Err("a key word compared as a number".into());
                    };
                    bits.push(Bool::and(&[bit(&self.exec, j as u32), a.eq(w)]));
                }
                let v = mask(&bits);
                let v = if self.lanes == 64 {
                    v
                } else {
                    v.zero_ext(64 - self.lanes)
                };
                self.swrite_bv(arg(0)?, &v)?;
            }
            // gfx9's and gfx10+'s 32-bit add without carry.
            "v_add_u32_e32" | "v_add_nc_u32_e32" => {
                let d = Wave::vgpr(arg(0)?)?;
                let a = self.sread(arg(1)?, 1)?;
                let b = self.vword(Wave::vgpr(arg(2)?)?);
                let old = self.vword(d);
                let mut new = Vec::new();
                for (j, (w, o)) in b.into_iter().zip(old).enumerate() {
                    let (Word::Bv(w), Word::Bv(o)) = (w, o) else {
                        return Err("a key word added to".into());
                    };
                    new.push(Word::Bv(bit(&self.exec, j as u32).ite(&a.bvadd(&w), &o)));
                }
                self.v.insert(d, new);
            }
            "s_add_u32" => {
                let v = self.sread(arg(1)?, 1)?.bvadd(self.sread(arg(2)?, 1)?);
                self.swrite_bv(arg(0)?, &v)?;
            }
            "s_andn2_b64" | "s_andn2_b32" => {
                let words = if m.ends_with("64") { 2 } else { 1 };
                let v = self
                    .sread(arg(1)?, words)?
                    .bvand(self.sread(arg(2)?, words)?.bvnot());
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
        x.mnemonic == LABEL && x.modifiers.first().map(String::as_str) == Some(label)
    };
    let start = code.iter().position(is_label).ok_or("the loop's label")? + 1;
    let len = code[start..]
        .iter()
        .position(|x| x.mnemonic.starts_with("s_cbranch") || x.mnemonic == LABEL)
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
    let zero = BV::from_u64(0, lanes);
    let widen = |x: &BV| {
        if lanes == 64 {
            x.clone()
        } else {
            x.zero_ext(64 - lanes)
        }
    };
    let mut wave = Wave {
        lanes,
        key_sort: key_sort.clone(),
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
    // `wavefronts`: the site's lanes in their pair, each lane's group.
    let group = |j: usize, g: &Groups| -> Result<BV, String> {
        group_of(&key_sort, g.mask)
            .apply(&[&keys[j]])
            .as_bv()
            .ok_or_else(|| "a group that is no bit-vector".to_owned())
    };
    if let Some(g) = regs.groups {
        let e64 = widen(&e);
        for w in 0..lanes / 32 {
            let word = e64.extract(32 * w + 31, 32 * w);
            wave.s.insert(g.lanes + w, Word::Bv(word));
        }
        let words = (0..lanes as usize)
            .map(|j| group(j, &g).map(Word::Bv))
            .collect::<Result<_, _>>()?;
        wave.v.insert(g.group, words);
    }
    // The output before the round: the count, `run`'s pair and `wavefronts`' counts in
    // every lane.
    let count = match value {
        Waterfall::Run => None,
        _ => Some(wave.sgpr(regs.out)?),
    };
    let pair_before = match value {
        Waterfall::Run => Some([wave.vword(regs.out), wave.vword(regs.out + 1)]),
        _ => None,
    };
    let counts_before = regs.groups.map(|g| wave.vword(g.count));
    for x in body {
        wave.step(x)
            .map_err(|e| format!("{e} (in `{}`)", x.mnemonic))?;
    }
    let r2 = wave.exec.extract(lanes - 1, 0);
    let same = |i: u32, j: u32| keys[i as usize].eq(&keys[j as usize]);
    let out_ok = |x: &BV, j: u32| {
        let others: Vec<Bool> = (0..lanes)
            .map(|i| bit(x, i).implies(same(i, j).not()))
            .collect();
        Bool::and(&[bit(&e, j), bit(x, j).not()]).implies(Bool::and(&others))
    };
    let mut hyps = vec![r.eq(&zero).not(), r.bvand(e.bvnot()).eq(&zero)];
    hyps.extend((0..lanes).map(|i| out_ok(&r, i)));
    let low = r.bvand(r.bvnot().bvadd(BV::from_u64(1, lanes)));
    // `wavefronts`' counts: their own goals and hypotheses (not the closure's).
    let (mut count_hyps, mut count_goals): (Vec<Bool>, Vec<Goal>) = (
        vec![r.eq(&zero).not(), r.bvand(e.bvnot()).eq(&zero)],
        Vec::new(),
    );
    let mut goals: Vec<Goal> = vec![("R' ⊆ E".into(), r2.bvand(e.bvnot()).eq(&zero), vec![])];
    let count_after = match value {
        Waterfall::Run => None,
        _ => Some(wave.sgpr(regs.out)?),
    };
    if value != Waterfall::Run {
        // The lanes counted: the first lane of each key accounted for (module docs).
        goals.push((
            "R & -R is one lane".into(),
            Bool::and(&[
                low.eq(&zero).not(),
                low.bvand(low.bvsub(BV::from_u64(1, lanes))).eq(&zero),
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
    match value {
        Waterfall::Sectors => {
            let st = count.clone().ok_or("the count")?;
            goals.push((
                "the count grows by one".into(),
                count_after
                    .clone()
                    .ok_or("the count")?
                    .eq(st.bvadd(BV::from_u64(1, 32))),
                vec![],
            ));
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
                let holds =
                    |x: &BV, v: BV| Bool::and(&[bit(&e, j), bit(x, j).not()]).implies(v.eq(&want));
                let ju = j as usize;
                goals.push((
                    format!("lane {j}"),
                    Bool::and(&[out_ok(&r2, j), holds(&r2, pair(&new, ju)?)]),
                    vec![holds(&r, pair(&old, ju)?)],
                ));
            }
        }
        Waterfall::Wavefronts => {
            // Each lane `j` of `E` holds `N_j`, the keys accounted for in its group (the
            // lanes counted above whose group is `j`'s); the count register is the
            // largest (module docs). z3 proves each lane's step; the sums are argued.
            let g = regs.groups.ok_or("the groups")?;
            let (st, st2) = (
                count.clone().ok_or("the count")?,
                count_after.clone().ok_or("the count")?,
            );
            let before = counts_before.ok_or("the counts")?;
            let after = wave.vword(g.count);
            let num = |w: &Word| match w {
                Word::Bv(v) => Ok(v.clone()),
                Word::Key { .. } => Err("a count holds a key".to_owned()),
            };
            let (c, c2): (Vec<BV>, Vec<BV>) = (
                before.iter().map(num).collect::<Result<_, _>>()?,
                after.iter().map(num).collect::<Result<_, _>>()?,
            );
            let groups: Vec<BV> = (0..lanes as usize)
                .map(|j| group(j, &g))
                .collect::<Result<_, _>>()?;
            // The group of `R`'s first lane's key, and the count of the first lane of `E`
            // in that group: the chains `v_readfirstlane` reads.
            let first_of = |on: &dyn Fn(u32) -> Bool, v: &[BV]| {
                (0..lanes)
                    .rev()
                    .fold(v[0].clone(), |acc, j| on(j).ite(&v[j as usize], &acc))
            };
            let kf = (0..lanes).rev().fold(keys[0].clone(), |acc, j| {
                bit(&r, j).ite(&keys[j as usize], &acc)
            });
            let gf = group_of(&key_sort, g.mask)
                .apply(&[&kf])
                .as_bv()
                .ok_or("a group that is no bit-vector")?;
            let on = |j: u32| bit(&e, j);
            let in_group = |i: u32| Bool::and(&[on(i), groups[i as usize].eq(&gf)]);
            let read = wave.sgpr(g.read)?;
            for j in 0..lanes {
                count_hyps.push(on(j).implies(c[j as usize].bvule(&st)));
            }
            count_goals.push((
                "the count is the larger of the old one and the count read, which is the \
                 group's first lane's"
                    .into(),
                Bool::and(&[
                    Bool::or(&[st2.eq(&st), st2.eq(&read)]),
                    st.bvule(&st2),
                    read.bvule(&st2),
                    read.eq(first_of(&in_group, &c2)),
                ]),
                vec![],
            ));
            for j in 0..lanes {
                let ju = j as usize;
                count_goals.push((
                    format!("lane {j}'s count"),
                    Bool::and(&[
                        on(j).implies(c2[ju].eq(c[ju].bvadd(one(&groups[ju].eq(&gf))))),
                        Bool::and(&[on(j), in_group(j).not()]).implies(c2[ju].bvule(&st2)),
                        bit(&low, j).implies(in_group(j)),
                    ]),
                    vec![],
                ));
            }
        }
    }
    prove_all(&hyps, goals, &e, &r)?;
    prove_all(&count_hyps, count_goals, &e, &r)?;
    Ok(regs)
}

/// A lane's (or the scalars') obligation of a round: what it is, the goal, what it
/// assumes besides the shared hypotheses.
type Goal = (String, Bool, Vec<Bool>);

/// Proves each of `goals` under `hyps` (one solver, the hypotheses asserted once);
/// `e` and `r` are shown in a counterexample.
fn prove_all(hyps: &[Bool], goals: Vec<Goal>, e: &BV, r: &BV) -> Result<(), String> {
    let solver = warptrace_verifier::solver();
    for h in hyps {
        solver.assert(h);
    }
    for (what, goal, extra) in goals {
        solver.push();
        for h in &extra {
            solver.assert(h);
        }
        solver.assert(goal.not());
        match warptrace_verifier::proof_cache::check(&solver) {
            SatResult::Unsat => {}
            SatResult::Sat => {
                let shown = solver.get_model().map_or("?".into(), |m| {
                    let show = |t: &BV| m.eval(t, true).map_or("?".into(), |v| v.to_string());
                    format!("E = {}, R = {}", show(e), show(r))
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
    Ok(())
}

/// [`prove_round`], once per loop shape, value and wave size in the process: every site
/// and probe whose loop is the same up to where its registers start shares the proof.
/// The snippets of different sites allocate the same loop from different free registers
/// (`s[22:23]` at one site is `s[20:21]` at another), and the wave model uses a
/// register's number only to tell registers apart and to take the next one of a pair,
/// both kept by shifting every SGPR (every VGPR) by one amount ([`shape_text`]). A
/// refused loop is not kept: its reason names its own registers, found again.
pub(crate) fn prove_round_cached(
    value: Waterfall,
    body: &[Instruction],
    lanes: u32,
) -> Result<LoopRegs, String> {
    static PROVED: Proofs<(Waterfall, String, u32), Result<(), String>> = Proofs::new();
    let key = (value, shape_text(body), lanes);
    // The proof made here, if this call made it, is this loop's own answer.
    let mut made = None;
    let proved = once(&PROVED, key, || {
        let r = prove_round(value, body, lanes);
        let kept = r.as_ref().map(|_| ()).map_err(Clone::clone);
        made = Some(r);
        kept
    });
    match (made, proved) {
        (Some(r), _) => r,
        // The registers of this loop, not of the one first proved.
        (None, Ok(())) => loop_regs(value, body),
        (None, Err(_)) => prove_round(value, body, lanes),
    }
}

/// `code` as text, one instruction a line (a proof cache's key).
pub(crate) fn code_text(code: &[Instruction]) -> String {
    text_with(code, &|o| o.text.clone())
}

/// `code` as text with each SGPR and VGPR operand written as its register file, its
/// first register less the lowest of its file in `code`, its count and its text without
/// digits (what modifies it: `-`, `|…|`, the range's brackets): the same for two loops
/// that differ only by a shift of their registers, file by file.
pub(crate) fn shape_text(code: &[Instruction]) -> String {
    let lowest = |file: RegFile| {
        code.iter()
            .flat_map(|x| &x.operands)
            .filter_map(|o| o.reg.filter(|r| r.file == file).map(|r| r.first))
            .min()
            .unwrap_or(0)
    };
    let (s, v) = (lowest(RegFile::Sgpr), lowest(RegFile::Vgpr));
    text_with(code, &|o| match o.reg {
        Some(r) if matches!(r.file, RegFile::Sgpr | RegFile::Vgpr) => {
            let from = if r.file == RegFile::Sgpr { s } else { v };
            let bare: String = o.text.chars().filter(|c| !c.is_ascii_digit()).collect();
            format!("{:?}{}+{}{bare}", r.file, r.first - from, r.count)
        }
        _ => o.text.clone(),
    })
}

/// `code` as text, each operand written by `operand`.
fn text_with(code: &[Instruction], operand: &dyn Fn(&Operand) -> String) -> String {
    let lines: Vec<String> = code
        .iter()
        .map(|x| {
            let ops: Vec<String> = x.operands.iter().map(operand).collect();
            format!(
                "{} {} {}",
                x.mnemonic,
                ops.join(", "),
                x.modifiers.join(" ")
            )
        })
        .collect();
    lines.join("\n")
}

/// The key pair (the VGPR pair the round's first `v_readfirstlane` reads) and the output
/// register: `sectors`' count (the SGPR the round adds to), `run`'s pair (the VGPR the
/// round's first `v_mov_b32` writes), `wavefronts`' (the SGPR of its `s_max_u32`) and
/// [`Groups`] (the VGPR compared with the round's group, the mask of the `s_and_b32`
/// that takes it, the VGPR the round adds to, the SGPR pair `exec` is set from).
fn loop_regs(value: Waterfall, body: &[Instruction]) -> Result<LoopRegs, String> {
    let first = body.first().filter(|x| x.mnemonic == "v_readfirstlane_b32");
    let key = first
        .and_then(|x| x.operands.get(1))
        .ok_or("the round does not start with `v_readfirstlane_b32`")
        .and_then(|o| Wave::vgpr(o).map_err(|_| "the key is not a VGPR"))?;
    let find = |mnemonic: &str, at: usize, file: RegFile| {
        body.iter()
            .filter(|x| x.mnemonic == mnemonic)
            .find_map(|x| x.operands.get(at)?.reg.filter(|r| r.file == file))
            .map(|r| r.first)
            .ok_or_else(|| format!("the round has no `{mnemonic}` of its registers"))
    };
    // The count's add (gfx9's mnemonic, or gfx10+'s).
    let add = || {
        find("v_add_u32_e32", 0, RegFile::Vgpr)
            .or_else(|_| find("v_add_nc_u32_e32", 0, RegFile::Vgpr))
    };
    let out = match value {
        Waterfall::Sectors => find("s_add_u32", 0, RegFile::Sgpr)?,
        Waterfall::Run => find("v_mov_b32_e32", 0, RegFile::Vgpr)?,
        Waterfall::Wavefronts => find("s_max_u32", 0, RegFile::Sgpr)?,
    };
    let groups = match value {
        Waterfall::Wavefronts => Some(Groups {
            group: find("v_cmp_eq_u32_e32", 2, RegFile::Vgpr)?,
            mask: body
                .iter()
                .find(|x| x.mnemonic == "s_and_b32")
                .and_then(|x| x.operands.get(2)?.imm)
                .ok_or("the round has no `s_and_b32` of the key's group")?,
            count: add()?,
            lanes: body
                .iter()
                .filter(|x| x.mnemonic == "s_mov_b64" || x.mnemonic == "s_mov_b32")
                .filter(|x| {
                    x.operands
                        .first()
                        .and_then(|o| o.reg)
                        .is_some_and(|r| r.file == RegFile::Exec)
                })
                .find_map(|x| x.operands.get(1)?.reg.filter(|r| r.file == RegFile::Sgpr))
                .map(|r| r.first)
                .ok_or("the round never sets `exec` to the site's lanes")?,
            read: body
                .iter()
                .filter(|x| x.mnemonic == "v_readfirstlane_b32")
                .filter(|x| x.operands.get(1).and_then(|o| o.reg).map(|r| r.first) == add().ok())
                .find_map(|x| x.operands.first()?.reg.filter(|r| r.file == RegFile::Sgpr))
                .map(|r| r.first)
                .ok_or("the round never reads a count")?,
        }),
        _ => None,
    };
    Ok(LoopRegs { key, out, groups })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The instructions of `text`.
    fn instructions(text: &str) -> Vec<Instruction> {
        let m = crate::parse::parse(text).expect("parses");
        (0..m.stmts.len())
            .filter_map(|i| m.instr(i).cloned())
            .collect()
    }

    /// The round of `sectors` as the lowering emits it on gfx942, with `change` applied to
    /// its text first.
    fn round(change: &str, with: &str) -> Vec<Instruction> {
        let text = "\tv_readfirstlane_b32 s24, v14\n\tv_readfirstlane_b32 s25, v15\n\
                    \tv_cmp_eq_u64_e64 s[22:23], s[24:25], v[14:15]\n\
                    \ts_mov_b64 s[18:19], exec\n\ts_add_u32 s29, s29, 1\n\
                    \ts_andn2_b64 exec, s[18:19], s[22:23]\n"
            .replace(change, with);
        instructions(&text)
    }

    /// The proof rests on the keys being opaque: a round that does arithmetic on a key
    /// word, compares half a key, or compares one lane's key with another half is not
    /// proved but refused, naming why; the round as emitted is proved.
    #[test]
    fn a_round_that_looks_into_a_key_is_refused() {
        assert_eq!(
            prove_round(Waterfall::Sectors, &round("", ""), 64).map(|r| (r.key, r.out)),
            Ok((14, 29))
        );
        let cases = [
            // The key's high word read as a number.
            (
                "s_add_u32 s29, s29, 1",
                "s_add_u32 s29, s29, s25",
                "a key word used as a number",
            ),
            // Half a key in the compare.
            (
                "s[24:25], v[14:15]",
                "s[25:26], v[14:15]",
                "does not hold one whole key",
            ),
            // The lanes' keys misaligned (another pair).
            (
                "s[24:25], v[14:15]",
                "s[24:25], v[15:16]",
                "does not hold each lane's key",
            ),
        ];
        for (from, to, why) in cases {
            let r = prove_round(Waterfall::Sectors, &round(from, to), 64);
            assert!(r.as_ref().is_err_and(|e| e.contains(why)), "{to}: {r:?}");
        }
    }

    /// The cache's key keeps what the proof depends on: the round moved to other
    /// registers, file by file, has the key of the round; one whose registers move
    /// relative to each other (the key pair's halves crossed, a mask written over the
    /// compare's), whose immediate or whose modifier differs does not.
    #[test]
    fn a_round_s_shape_is_its_text_up_to_a_shift_of_its_registers() {
        let shifted = instructions(
            "\tv_readfirstlane_b32 s20, v10\n\tv_readfirstlane_b32 s21, v11\n\
             \tv_cmp_eq_u64_e64 s[18:19], s[20:21], v[10:11]\n\
             \ts_mov_b64 s[14:15], exec\n\ts_add_u32 s25, s25, 1\n\
             \ts_andn2_b64 exec, s[14:15], s[18:19]\n",
        );
        let base = shape_text(&round("", ""));
        assert_ne!(code_text(&shifted), code_text(&round("", "")));
        assert_eq!(shape_text(&shifted), base);
        for (from, to) in [
            ("s[24:25], v[14:15]", "s[24:25], v[15:16]"),
            ("s_mov_b64 s[18:19], exec", "s_mov_b64 s[22:23], exec"),
            ("s29, s29, 1", "s29, s29, 2"),
            ("s[24:25], v[14:15]", "s[24:25], -v[14:15]"),
            ("s_andn2_b64 exec, s[18:19]", "s_andn2_b64 vcc, s[18:19]"),
        ] {
            assert_ne!(shape_text(&round(from, to)), base, "{to}");
        }
    }

    /// `loop_body` takes the instructions between a label and its `s_cbranch_execnz`, and
    /// refuses a label that ends in anything else.
    #[test]
    fn a_loop_body_ends_in_its_branch_back() {
        let m = crate::parse::parse("L:\n\ts_nop 0\n\ts_cbranch_execnz L\n\ts_endpgm\n")
            .expect("parses");
        let code: Vec<Instruction> = m
            .stmts
            .iter()
            .filter_map(|st| match &st.kind {
                crate::parse::StmtKind::Instr(x) => Some(x.clone()),
                crate::parse::StmtKind::Label(l) => Some(crate::tv::label(l)),
                _ => None,
            })
            .collect();
        assert_eq!(loop_body(&code, "L").map(<[Instruction]>::len), Ok(1));
        let forward: Vec<Instruction> = code
            .iter()
            .cloned()
            .map(|mut x| {
                if x.mnemonic == "s_cbranch_execnz" {
                    x.mnemonic = "s_cbranch_execz".into();
                }
                x
            })
            .collect();
        assert!(loop_body(&forward, "L").is_err());
    }
}
