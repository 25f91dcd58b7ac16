//! The warp model: the snippet is executed for one lane, the *executing lane* `%laneid`,
//! and a collective sees the other lanes through copies of its operand.
//!
//! - Each `activemask.b32` read is its own constant `activemask#k` (lanes may in principle
//!   join or leave between two reads), with the fact that the executing lane is in it.
//! - `redux.sync.OP.T d, a, m` is a fresh constant `redux#k`, defined ([`WarpFacts::defs`]) as the
//!   reduction over `j < 32` of lane `j`'s value of `a` where bit `j` of `m` is set. Lane
//!   `j`'s value is `a` with every per-lane input renamed: `%laneid` is `j`,
//!   `%lanemask_eq` is `1 << j`, any other input register or unknown `X` becomes `X@j`
//!   (with the fact `%laneid == j → X@j == X`: the executing lane's copy is itself). Inputs
//!   that are the same in every lane of the warp are kept: the map base and the launch's
//!   and block's coordinates and sizes ([`UNIFORM`]). An earlier mask `activemask#i` or
//!   collective result `redux#i` is lane `j`'s own only if `j` took part in it (bit `j` of
//!   its mask), else an unconstrained `…@j`: lanes that read a mask together all read
//!   it, and lanes of one collective all get its result.
//!
//! - `vote.sync.ballot.b32 d, p, m` is such a constant `ballot#k`, the mask of the lanes
//!   `j` of `m` whose copy of `p` holds.
//! - `match.any.sync.bN d, a, m` differs per lane: `match#k` is the mask of the lanes `i`
//!   of `m` whose copy of `a` equals the executing lane's; lane `j`'s copy of it (when `j`
//!   took part) is the same mask for `a@j`.
//!
//! Everything left unconstrained is a superset of what hardware can do, so a proof in this
//! model holds for every warp. It rests on the same assumption as the kernel verifier's
//! `WarpCollective` rule: the lanes of a collective's mask all execute it (the mask is an
//! `activemask` read with only straight-line instructions in between).

use super::{int_type, Class, Kind, Machine, Operand, Res, SemError, Val};
use crate::tv::ir::hw;
use std::collections::HashSet;
use z3::ast::{Ast, Bool, Dynamic, BV};
use z3::AstKind;

/// Lanes per warp.
pub(crate) const LANES: u32 = 32;

/// Inputs with one value in every lane of a warp.
const UNIFORM: &[&str] = &[
    "%__wt_base",
    "%ntid.x",
    "%ntid.y",
    "%ntid.z",
    "%nctaid.x",
    "%nctaid.y",
    "%nctaid.z",
    "%ctaid.x",
    "%ctaid.y",
    "%ctaid.z",
    "%nsmid",
];

/// The warp model's state and what it establishes.
#[derive(Debug, Default)]
pub(crate) struct WarpFacts {
    /// The masks read, in order: `activemask#k`.
    pub masks: Vec<BV>,
    /// Each collective's result constant and mask.
    collectives: Vec<(BV, BV)>,
    /// The executing lane is in each mask; each lane copy of an input is the input itself
    /// in the executing lane.
    pub facts: Vec<Bool>,
    /// Each collective's result and its definition (in terms of earlier results only), in
    /// order.
    pub defs: Vec<(BV, BV)>,
    /// Lane copies already constrained.
    copies: HashSet<(String, u32)>,
    /// Each `match.any` result with its mask and its operand's copy in every lane.
    per_lane: Vec<PerLane>,
}

/// A collective whose result differs per lane (`match.any.sync`).
#[derive(Debug, Clone)]
struct PerLane {
    result: BV,
    mask: BV,
    /// The operand in lane `i`, for every `i < 32`.
    operand: Vec<BV>,
}

impl PerLane {
    /// The lanes of the mask whose operand equals `own`.
    fn matching(&self, own: &BV) -> BV {
        (0..LANES).fold(BV::from_u64(0, 32), |acc, i| {
            let on = has_lane(&self.mask, &BV::from_u64(u64::from(i), 32));
            let same = Bool::and(&[&on, &self.operand[i as usize].eq(own)]);
            acc.bvor(same.ite(&BV::from_u64(1 << i, 32), &BV::from_u64(0, 32)))
        })
    }
}

/// The name of the mask of the `k`-th `activemask` read.
pub(crate) fn mask_name(k: usize) -> String {
    format!("activemask#{k}")
}

/// The name of lane `j`'s copy of input `name`.
pub(crate) fn lane_name(name: &str, j: u32) -> String {
    format!("{name}@{j}")
}

/// The constants (inputs) of `term`: its nullary applications other than `true`/`false`
/// (numerals are not applications of this kind), each once.
fn constants(term: &BV) -> Vec<Dynamic> {
    let mut consts = Vec::new();
    let mut seen = HashSet::new();
    let mut stack = vec![Dynamic::from(term.clone())];
    while let Some(t) = stack.pop() {
        if !t.is_app() || !seen.insert(t.get_z3_ast()) {
            continue;
        }
        let literal = t.as_bool().and_then(|b| b.as_bool()).is_some();
        if t.num_children() == 0 && t.kind() == AstKind::App && !literal {
            consts.push(t);
        } else {
            stack.extend(t.children());
        }
    }
    consts
}

/// Lane `j`'s copy of `term`, a term over the executing lane's inputs alone (no masks or
/// collective results): every input but the [`UNIFORM`] ones renamed `X@j`, as the warp
/// model names the copies a collective reads, `%laneid` is `j`. The IR side states
/// warp-wide values over these copies.
pub(crate) fn lane_term(term: &BV, j: u32) -> BV {
    let pairs: Vec<(Dynamic, Dynamic)> = constants(term)
        .into_iter()
        .filter_map(|c| {
            let name = c.decl().name();
            let bv = c.as_bv()?;
            let to = match name.as_str() {
                n if UNIFORM.contains(&n) => return None,
                "%laneid" => BV::from_u64(u64::from(j), 32),
                _ => BV::new_const(lane_name(&name, j), bv.get_size()),
            };
            Some((c, Dynamic::from(to)))
        })
        .collect();
    let p: Vec<(&Dynamic, &Dynamic)> = pairs.iter().map(|(a, b)| (a, b)).collect();
    Dynamic::from(term.clone())
        .substitute(&p)
        .as_bv()
        .unwrap_or_else(|| term.clone())
}

/// Unmodelled modifiers of a collective.
fn modifiers(text: &str) -> SemError {
    SemError::Unsupported {
        text: text.to_owned(),
        why: "modifiers".to_owned(),
    }
}

/// Bit `j` of a 32-bit mask, as a predicate.
pub(crate) fn has_lane(mask: &BV, j: &BV) -> Bool {
    mask.bvlshr(j)
        .bvand(BV::from_u64(1, 32))
        .eq(BV::from_u64(1, 32))
}

impl WarpFacts {
    /// A new mask read.
    pub fn activemask(&mut self) -> BV {
        let m = BV::new_const(mask_name(self.masks.len()), 32);
        self.facts.push(has_lane(&m, &hw("%laneid")));
        self.masks.push(m.clone());
        m
    }

    /// Lane `j`'s value of `term` (see the module doc), for a collective over `mask` (which
    /// has lane `j` wherever the value is used: over the same mask as an earlier mask read
    /// or collective, every lane used took part in it, and the outer test only shortens
    /// the term).
    fn lane_copy(&mut self, term: &BV, j: u32, mask: &BV) -> BV {
        let consts = constants(term);
        let lane = BV::from_u64(u64::from(j), 32);
        let mut pairs: Vec<(Dynamic, Dynamic)> = Vec::new();
        for c in consts {
            let name = c.decl().name();
            let to = if UNIFORM.contains(&name.as_str()) {
                continue;
            } else if name == "%laneid" {
                Dynamic::from(lane.clone())
            } else if name == "%lanemask_eq" {
                Dynamic::from(BV::from_u64(1 << j, 32))
            } else if name == "%lanemask_lt" {
                Dynamic::from(BV::from_u64((1 << j) - 1, 32))
            } else if let Some(p) = self
                .per_lane
                .iter()
                .find(|p| Dynamic::from(p.result.clone()).get_z3_ast() == c.get_z3_ast())
            {
                // Over the same mask, lane `j` took part (it is in the mask where the
                // value is used).
                let other = BV::new_const(lane_name(&name, j), 32);
                let own = p.matching(&p.operand[j as usize]);
                let took_part = has_lane(&p.mask, &lane).ite(&own, &other);
                Dynamic::from(mask.eq(&p.mask).ite(&own, &took_part))
            } else if let Some(bv) = c.as_bv().filter(|_| name.starts_with("activemask#")) {
                let other = BV::new_const(lane_name(&name, j), 32);
                let took_part = has_lane(&bv, &lane).ite(&bv, &other);
                Dynamic::from(mask.eq(&bv).ite(&bv, &took_part))
            } else if let Some((r, m)) = self
                .collectives
                .iter()
                .find(|(r, _)| Dynamic::from(r.clone()).get_z3_ast() == c.get_z3_ast())
            {
                let other = BV::new_const(lane_name(&name, j), r.get_size());
                let took_part = has_lane(m, &lane).ite(r, &other);
                Dynamic::from(mask.eq(m).ite(r, &took_part))
            } else {
                let copy = match (c.as_bv(), c.as_bool()) {
                    (Some(bv), _) => {
                        Dynamic::from(BV::new_const(lane_name(&name, j), bv.get_size()))
                    }
                    (_, Some(_)) => Dynamic::from(Bool::new_const(lane_name(&name, j))),
                    _ => continue,
                };
                if self.copies.insert((name.clone(), j)) {
                    let here = hw("%laneid").eq(&lane);
                    self.facts.push(here.implies(copy.eq(&c)));
                }
                copy
            };
            pairs.push((c, to));
        }
        let p: Vec<(&Dynamic, &Dynamic)> = pairs.iter().map(|(a, b)| (a, b)).collect();
        let out = Dynamic::from(term.clone()).substitute(&p);
        out.as_bv().unwrap_or_else(|| term.clone())
    }

    /// `redux.sync.OP` of `a` over the lanes of `m`: a fresh constant and its definition.
    fn reduce(&mut self, op: &str, signed: bool, a: &BV, m: &BV) -> BV {
        let k = self.collectives.len();
        let w = a.get_size();
        let r = BV::new_const(format!("redux#{k}"), w);
        let identity = match (op, signed) {
            ("add", _) | ("max", false) => BV::from_u64(0, w),
            ("max", true) => BV::from_u64(1 << (w - 1), w),
            ("min", false) => BV::from_i64(-1, w),
            _ => BV::from_u64((1 << (w - 1)) - 1, w),
        };
        let mut acc = identity.clone();
        for j in 0..LANES {
            let x = self.lane_copy(a, j, m);
            let on = has_lane(m, &BV::from_u64(u64::from(j), 32));
            acc = match op {
                "add" => acc.bvadd(on.ite(&x, &identity)),
                _ => {
                    let better = match (op, signed) {
                        ("max", false) => x.bvugt(&acc),
                        ("max", true) => x.bvsgt(&acc),
                        ("min", false) => x.bvult(&acc),
                        _ => x.bvslt(&acc),
                    };
                    Bool::and(&[&on, &better]).ite(&x, &acc)
                }
            };
        }
        self.defs.push((r.clone(), acc));
        self.collectives.push((r.clone(), m.clone()));
        r
    }
}

impl WarpFacts {
    /// `match.any.sync` of `a` over the lanes of `m`: a fresh constant and its definition.
    fn match_any(&mut self, a: &BV, m: &BV) -> BV {
        let r = BV::new_const(format!("match#{}", self.per_lane.len()), 32);
        let operand = (0..LANES).map(|j| self.lane_copy(a, j, m)).collect();
        let p = PerLane {
            result: r.clone(),
            mask: m.clone(),
            operand,
        };
        self.defs.push((r.clone(), p.matching(a)));
        self.per_lane.push(p);
        r
    }

    /// `vote.sync.ballot` of `p` over the lanes of `m`: a fresh constant and its definition.
    fn ballot(&mut self, p: &Bool, m: &BV) -> BV {
        let k = self.collectives.len();
        let r = BV::new_const(format!("ballot#{k}"), 32);
        let bit = p.ite(&BV::from_u64(1, 32), &BV::from_u64(0, 32));
        let mut acc = BV::from_u64(0, 32);
        for j in 0..LANES {
            let lane = BV::from_u64(u64::from(j), 32);
            let set = Bool::and(&[
                &has_lane(m, &lane),
                &self.lane_copy(&bit, j, m).eq(BV::from_u64(1, 32)),
            ]);
            acc = acc.bvor(set.ite(&BV::from_u64(1 << j, 32), &BV::from_u64(0, 32)));
        }
        self.defs.push((r.clone(), acc));
        self.collectives.push((r.clone(), m.clone()));
        r
    }
}

impl Machine {
    /// The destination (of `dst_bits`), the operand (of `a_bits`, a predicate when `None`)
    /// and the member mask of a collective `d, a, m`, and the warp model to run it in.
    fn collective(
        &mut self,
        ops: &[Operand],
        text: &str,
        dst_bits: u32,
        a_bits: Option<u32>,
    ) -> Res<(String, Val, BV, &mut WarpFacts)> {
        let bad = |why: &str| SemError::Unsupported {
            text: text.to_owned(),
            why: why.to_owned(),
        };
        if ops.len() != 3 || !matches!(ops[2], Operand::Reg(_)) {
            return Err(bad("expects 3 operands, the member mask a register"));
        }
        let d = self.dst(ops.first(), Class::Bits(dst_bits), text)?;
        let a = match a_bits {
            Some(w) => Val::Bv(self.src(&ops[1], w, text)?),
            None => Val::Pred(self.src_pred(&ops[1], text)?),
        };
        let m = self.src(&ops[2], 32, text)?;
        let warp = self
            .warp
            .as_mut()
            .ok_or_else(|| bad("outside the warp model"))?;
        Ok((d, a, m, warp))
    }

    /// `match.any.sync.b{32,64} d, a, m` in the warp model.
    pub(super) fn match_any(
        &mut self,
        mods: &[&str],
        ops: &[Operand],
        text: &str,
    ) -> Res<(String, Val)> {
        let w = match mods {
            ["any", "sync", "b32"] => 32,
            ["any", "sync", "b64"] => 64,
            _ => return Err(modifiers(text)),
        };
        let (d, a, m, warp) = self.collective(ops, text, 32, Some(w))?;
        let a = a.bv().cloned().ok_or_else(|| modifiers(text))?;
        Ok((d, Val::Bv(warp.match_any(&a, &m))))
    }

    /// `vote.sync.ballot.b32 d, p, m` in the warp model.
    pub(super) fn ballot(
        &mut self,
        mods: &[&str],
        ops: &[Operand],
        text: &str,
    ) -> Res<(String, Val)> {
        if mods != ["sync", "ballot", "b32"] {
            return Err(modifiers(text));
        }
        let (d, p, m, warp) = self.collective(ops, text, 32, None)?;
        let p = p.pred().cloned().ok_or_else(|| modifiers(text))?;
        Ok((d, Val::Bv(warp.ballot(&p, &m))))
    }

    /// `redux.sync.{add,min,max}.{u32,s32} d, a, m` in the warp model.
    pub(super) fn redux(
        &mut self,
        mods: &[&str],
        ops: &[Operand],
        text: &str,
    ) -> Res<(String, Val)> {
        let bad = |why: &str| SemError::Unsupported {
            text: text.to_owned(),
            why: why.to_owned(),
        };
        let ["sync", op, ty] = mods else {
            return Err(bad("modifiers"));
        };
        let (kind, w) = int_type(ty, &[32]).ok_or_else(|| bad("type"))?;
        if !matches!(*op, "add" | "min" | "max") || kind == Kind::B {
            return Err(bad("operation"));
        }
        let (d, a, m, warp) = self.collective(ops, text, w, Some(w))?;
        let a = a.bv().cloned().ok_or_else(|| bad("operand"))?;
        let r = warp.reduce(op, kind == Kind::S, &a, &m);
        Ok((d, Val::Bv(r)))
    }
}
