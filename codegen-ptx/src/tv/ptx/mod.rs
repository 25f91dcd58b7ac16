//! A small symbolic semantics of the PTX the back end emits, over z3 bit-vectors.
//!
//! [`run`] parses a snippet with the crate's own parser (the exact text that is spliced),
//! then executes it symbolically: a map from register names to terms, a path condition,
//! forward branches merged at their labels with `ite`, predicated instructions as
//! `ite(guard, new, old)`, and the memory operations as a list of guarded [`Effect`]s.
//! A register read before any write is an input: a constant named after the register
//! (`%__wt_r0`, `%tid.x`, `%__wt_base`), so that the IR side can name the same value.
//!
//! Covered: `mov add sub mul.{lo,hi,wide} mad.{lo,hi,wide} div rem and or xor not neg shl
//! shr setp selp cvt clz popc bfe min max activemask` on 16/32/64-bit integers and
//! predicates, `bra`, and `atom red st fence ld` on global memory as effects. Anything
//! else (or an operand whose width does not match the instruction type) is a
//! [`SemError`]: outside the model, never silently approximated. Unspecified results
//! (division by zero, the most negative value divided by -1) are fresh, unconstrained
//! constants.
//!
//! Memory is not modelled as contents: what an atomic or a load returns is a fresh
//! constant (`atom#N`, `ld#N`), recorded with its [`Effect`]. A claim about a snippet that
//! loads compares its loads, like its other memory operations, in order with the IR's —
//! same operation, equivalent guard, same address — and gives each matched pair one value:
//! whatever memory holds (the runtime's words, the thread's own earlier stores, other
//! threads' writes), the same access at the same point of the same sequence of accesses
//! reads the same value. A load from a wrong address, a missing or extra store, or an
//! access moved across another is a difference in that sequence.

mod alu;
mod warp;

use alu::parse_imm;
pub(crate) use alu::popc;
pub(crate) use warp::{has_lane, lane_name, lane_term, mask_name, WarpFacts, LANES};

use crate::lower::TEMPS;
use crate::parse::{AddrBase, Address, Instruction, Operand, StmtKind};
use std::collections::{BTreeMap, HashMap, HashSet};
use z3::ast::{Ast, Bool, Dynamic, BV};
use z3::DeclKind;

/// Why a snippet is outside the modelled PTX.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum SemError {
    /// The snippet does not parse.
    #[error("the snippet does not parse: {0}")]
    Parse(String),
    /// An instruction the semantics does not cover, or a form of it.
    #[error("`{text}`: {why}")]
    Unsupported {
        /// The instruction.
        text: String,
        /// What is not covered.
        why: String,
    },
    /// A branch to a label that is not after it in the snippet.
    #[error("`{text}`: branch to `{label}`, which is not a later label of the snippet")]
    Branch {
        /// The instruction.
        text: String,
        /// The target.
        label: String,
    },
}

/// The value of a register: a bit-vector of its width, or a predicate.
#[derive(Debug, Clone)]
pub(crate) enum Val {
    Bv(BV),
    Pred(Bool),
}

impl Val {
    pub fn bv(&self) -> Option<&BV> {
        match self {
            Val::Bv(b) => Some(b),
            Val::Pred(_) => None,
        }
    }

    pub fn pred(&self) -> Option<&Bool> {
        match self {
            Val::Pred(p) => Some(p),
            Val::Bv(_) => None,
        }
    }

    /// Whether both are the same term.
    fn same(&self, other: &Val) -> bool {
        match (self, other) {
            (Val::Bv(a), Val::Bv(b)) => a.get_z3_ast() == b.get_z3_ast(),
            (Val::Pred(a), Val::Pred(b)) => a.get_z3_ast() == b.get_z3_ast(),
            _ => false,
        }
    }

    fn ite(c: &Bool, a: &Val, b: &Val) -> Val {
        match (a, b) {
            (Val::Bv(x), Val::Bv(y)) => Val::Bv(c.ite(x, y)),
            (Val::Pred(x), Val::Pred(y)) => Val::Pred(c.ite(x, y)),
            // Classes come from names, so both sides of one register agree.
            (x, _) => x.clone(),
        }
    }
}

/// The class of a register: a width in bits, or `.pred`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Class {
    Bits(u32),
    Pred,
}

/// Hardware special registers the back end reads, with their widths.
const SPECIALS: &[(&str, u32)] = &[
    ("%tid.x", 32),
    ("%tid.y", 32),
    ("%tid.z", 32),
    ("%ntid.x", 32),
    ("%ntid.y", 32),
    ("%ntid.z", 32),
    ("%ctaid.x", 32),
    ("%ctaid.y", 32),
    ("%ctaid.z", 32),
    ("%nctaid.x", 32),
    ("%nctaid.y", 32),
    ("%nctaid.z", 32),
    ("%laneid", 32),
    ("%lanemask_eq", 32),
    ("%lanemask_lt", 32),
    ("%smid", 32),
    ("%nsmid", 32),
    ("%warpid", 32),
    ("%clock", 32),
    ("%clock64", 64),
    ("%globaltimer", 64),
];

/// The class of a register by its name: hardware special registers, the probe's
/// namespaces (`lower::TEMPS`, `%__wt_r`, `%__wt_x`, `%__wt_base`), and the usual kernel
/// conventions (`%rd` 64, `%rs` 16, `%r` 32, `%p` predicate).
pub(crate) fn reg_class(name: &str) -> Option<Class> {
    if let Some(&(_, bits)) = SPECIALS.iter().find(|(n, _)| *n == name) {
        return Some(Class::Bits(bits));
    }
    if let Some(rest) = name.strip_prefix("%__wt_") {
        if rest == "base" {
            return Some(Class::Bits(64));
        }
        let class: String = rest.chars().take_while(char::is_ascii_alphabetic).collect();
        let index = &rest[class.len()..];
        if index.is_empty() || !index.chars().all(|c| c.is_ascii_digit()) {
            return None;
        }
        if class == "r" || class == "x" || class == "d" {
            return Some(Class::Bits(64));
        }
        let (_, ty, _) = TEMPS.iter().find(|(c, _, _)| *c == class)?;
        return class_of_type(ty);
    }
    let digits = |p: &str| {
        name.strip_prefix(p)
            .is_some_and(|i| !i.is_empty() && i.chars().all(|c| c.is_ascii_digit()))
    };
    if digits("%rd") {
        Some(Class::Bits(64))
    } else if digits("%rs") {
        Some(Class::Bits(16))
    } else if digits("%r") {
        Some(Class::Bits(32))
    } else if digits("%p") {
        Some(Class::Pred)
    } else {
        None
    }
}

fn class_of_type(ty: &str) -> Option<Class> {
    match ty {
        ".pred" => Some(Class::Pred),
        ".b16" => Some(Class::Bits(16)),
        ".b32" => Some(Class::Bits(32)),
        ".b64" => Some(Class::Bits(64)),
        _ => None,
    }
}

/// A memory operation (or fence) the snippet performs, under `guard`.
#[derive(Debug, Clone)]
pub(crate) struct Effect {
    /// When it happens (path condition and instruction predicate).
    pub guard: Bool,
    /// The opcode with its modifiers (`red.global.add.u64`).
    pub op: String,
    /// The address, if it has one.
    pub addr: Option<BV>,
    /// The value operands after the address, at the instruction's type.
    pub vals: Vec<BV>,
    /// What an atomic or a load returns: its fresh constant (`atom#N`, `ld#N`).
    pub result: Option<BV>,
}

/// The result of executing a snippet.
#[derive(Debug)]
pub(crate) struct Exec {
    /// The condition under which execution reaches the end of the snippet.
    pub cond: Bool,
    /// Every register written on some path, with its value at the end.
    pub regs: HashMap<String, Val>,
    /// Memory operations in text order.
    pub effects: Vec<Effect>,
    /// Input constants read (registers before any write), by name.
    pub inputs: BTreeMap<String, Val>,
    /// Fresh constants standing for unspecified results.
    pub unspecified: Vec<BV>,
    /// In the warp model ([`run_warp`]): the masks read and the facts about them and the
    /// collectives.
    pub warp: Option<WarpFacts>,
}

impl Exec {
    /// The value of `name` at the end: its last write, else its input.
    pub fn reg(&self, name: &str) -> Option<Val> {
        match self.regs.get(name) {
            Some(v) => Some(v.clone()),
            None => input(name),
        }
    }
}

/// The input constant of a register.
pub(crate) fn input(name: &str) -> Option<Val> {
    Some(match reg_class(name)? {
        Class::Bits(b) => Val::Bv(BV::new_const(name, b)),
        Class::Pred => Val::Pred(Bool::new_const(name)),
    })
}

#[derive(Clone)]
struct Path {
    cond: Bool,
    regs: HashMap<String, Val>,
}

/// Parses and executes `snippet` (lines as the emitter writes them).
pub(crate) fn run(snippet: &str) -> Result<Exec, SemError> {
    run_in(snippet, None)
}

/// [`run`] in the warp model: each `activemask` reads its own mask and `redux.sync`
/// reduces over the lanes of its mask (see `warp.rs`).
pub(crate) fn run_warp(snippet: &str) -> Result<Exec, SemError> {
    run_in(snippet, Some(WarpFacts::default()))
}

fn run_in(snippet: &str, warp: Option<WarpFacts>) -> Result<Exec, SemError> {
    let wrapped = format!(".entry __wt_tv()\n{{\n{snippet}\n}}\n");
    let module = crate::parse(&wrapped).map_err(|e| SemError::Parse(e.to_string()))?;
    let body = module
        .functions()
        .first()
        .and_then(|f| f.body.as_ref())
        .ok_or_else(|| SemError::Parse("no body".into()))?;
    let labels: Vec<(usize, &str)> = body
        .stmts
        .iter()
        .enumerate()
        .filter_map(|(i, s)| match &s.kind {
            StmtKind::Label(l) => Some((i, l.as_str())),
            _ => None,
        })
        .collect();
    let mut m = Machine {
        cur: Some(Path {
            cond: Bool::from_bool(true),
            regs: HashMap::new(),
        }),
        pending: HashMap::new(),
        effects: Vec::new(),
        inputs: BTreeMap::new(),
        unspecified: Vec::new(),
        atomics: 0,
        seen: HashSet::new(),
        assume: None,
        warp,
    };
    for (i, stmt) in body.stmts.iter().enumerate() {
        match &stmt.kind {
            StmtKind::Label(l) => m.label(l),
            StmtKind::Instr(ins) => {
                let later = |l: &str| labels.iter().any(|&(j, name)| j > i && name == l);
                m.step(ins, &stmt.text, &later)?;
            }
            StmtKind::Directive(_) | StmtKind::ScopeOpen | StmtKind::ScopeClose => {
                return Err(SemError::Unsupported {
                    text: stmt.text.clone(),
                    why: "directives and scopes are not part of a snippet's computation".into(),
                })
            }
        }
    }
    if let Some(label) = m.pending.keys().next() {
        return Err(SemError::Branch {
            text: "<end of snippet>".into(),
            label: label.clone(),
        });
    }
    let (cond, regs) = match m.cur {
        Some(p) => (p.cond, p.regs),
        None => (Bool::from_bool(false), HashMap::new()),
    };
    Ok(Exec {
        cond,
        regs,
        effects: m.effects,
        inputs: m.inputs,
        unspecified: m.unspecified,
        warp: m.warp,
    })
}

struct Machine {
    /// The path being executed; `None` after an unconditional branch.
    cur: Option<Path>,
    /// Paths waiting at a label.
    pending: HashMap<String, Vec<Path>>,
    effects: Vec<Effect>,
    inputs: BTreeMap<String, Val>,
    unspecified: Vec<BV>,
    atomics: u32,
    seen: HashSet<String>,
    /// While reading a predicated instruction's operands: its predicate's value and
    /// whether it holds.
    assume: Option<(Bool, bool)>,
    /// The warp model's state, when executing in it.
    warp: Option<WarpFacts>,
}

/// The integer kind of a type modifier.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    B,
    U,
    S,
}

fn int_type(m: &str, widths: &[u32]) -> Option<(Kind, u32)> {
    let kind = match m.as_bytes().first()? {
        b'b' => Kind::B,
        b'u' => Kind::U,
        b's' => Kind::S,
        _ => return None,
    };
    let bits: u32 = m.get(1..)?.parse().ok()?;
    widths.contains(&bits).then_some((kind, bits))
}

const ALU: &[u32] = &[16, 32, 64];

type Res<T> = Result<T, SemError>;

impl Machine {
    fn label(&mut self, l: &str) {
        self.seen.insert(l.to_owned());
        let mut paths = self.pending.remove(l).unwrap_or_default();
        if let Some(p) = self.cur.take() {
            paths.push(p);
        }
        self.cur = merge(paths);
    }

    fn step(&mut self, ins: &Instruction, text: &str, later: &dyn Fn(&str) -> bool) -> Res<()> {
        let unsupported = |why: &str| SemError::Unsupported {
            text: text.to_owned(),
            why: why.to_owned(),
        };
        if self.cur.is_none() {
            // Unreachable until the next label.
            return Ok(());
        }
        // `!%p` is recorded as `%p` by the parser: refuse negated operands outright.
        let operand_text = text
            .trim_start_matches('@')
            .split_once(' ')
            .map_or("", |x| x.1);
        let operand_text = if ins.guard.is_some() {
            operand_text.split_once(' ').map_or("", |x| x.1)
        } else {
            operand_text
        };
        if operand_text.contains('!') {
            return Err(unsupported("negated predicate operand"));
        }
        let guard = match &ins.guard {
            None => None,
            Some(g) => {
                let p = self.read_pred(&g.reg, text)?;
                Some(if g.negated { p.not() } else { p })
            }
        };
        let mods: Vec<&str> = ins.modifiers().collect();
        let ops = &ins.operands;
        let root = ins.root();
        if root == "bra" {
            if !(mods.is_empty() || mods == ["uni"]) || ops.len() != 1 {
                return Err(unsupported("branch form"));
            }
            let Operand::Symbol(label) = &ops[0] else {
                return Err(unsupported("branch target"));
            };
            if !later(label) || self.seen.contains(label.as_str()) {
                return Err(SemError::Branch {
                    text: text.to_owned(),
                    label: label.to_string(),
                });
            }
            let Some(p) = self.cur.take() else {
                return Ok(());
            };
            match guard {
                None => self.pending.entry(label.to_string()).or_default().push(p),
                Some(g) => {
                    let taken = Path {
                        cond: Bool::and(&[&p.cond, &g]),
                        regs: p.regs.clone(),
                    };
                    self.pending
                        .entry(label.to_string())
                        .or_default()
                        .push(taken);
                    self.cur = Some(Path {
                        cond: Bool::and(&[&p.cond, &g.not()]),
                        regs: p.regs,
                    });
                }
            }
            return Ok(());
        }
        if matches!(root, "atom" | "red" | "st" | "fence" | "ld") {
            return self.effect(ins, text, guard);
        }
        if matches!(root, "redux" | "match" | "vote") && guard.is_some() {
            // Lanes of the mask where the guard is false would not take part.
            return Err(unsupported("a guarded collective"));
        }
        // The operands of a predicated instruction are read knowing its predicate holds
        // (so a register written under the opposite predicate reads its other value).
        self.assume = ins.guard.as_ref().and_then(|g| {
            let p = self
                .path()
                .regs
                .get(g.reg.as_str())
                .and_then(|v| v.pred().cloned())?;
            Some((p, !g.negated))
        });
        let result = self.alu(root, &mods, ops, text);
        self.assume = None;
        let (dst, val) = result?;
        let val = match &guard {
            None => val,
            Some(g) => {
                let old = self.read(&dst, text)?;
                Val::ite(g, &val, &old)
            }
        };
        self.write(&dst, val);
        Ok(())
    }

    fn path(&mut self) -> &mut Path {
        self.cur.get_or_insert_with(|| Path {
            cond: Bool::from_bool(false),
            regs: HashMap::new(),
        })
    }

    fn read(&mut self, name: &str, text: &str) -> Res<Val> {
        if let Some(v) = self.path().regs.get(name).cloned() {
            return Ok(match &self.assume {
                Some((p, holds)) => match v {
                    Val::Bv(b) => Val::Bv(resolve(b, p, *holds, |d| d.as_bv())),
                    Val::Pred(q) => Val::Pred(resolve(q, p, *holds, |d| d.as_bool())),
                },
                None => v,
            });
        }
        let v = input(name).ok_or_else(|| SemError::Unsupported {
            text: text.to_owned(),
            why: format!("register `{name}` of unknown class"),
        })?;
        self.inputs.insert(name.to_owned(), v.clone());
        Ok(v)
    }

    fn read_pred(&mut self, name: &str, text: &str) -> Res<Bool> {
        match self.read(name, text)? {
            Val::Pred(p) => Ok(p),
            Val::Bv(_) => Err(SemError::Unsupported {
                text: text.to_owned(),
                why: format!("`{name}` is not a predicate"),
            }),
        }
    }

    fn write(&mut self, name: &str, v: Val) {
        self.path().regs.insert(name.to_owned(), v);
    }

    /// A source operand of `bits` bits: a register of that width or an immediate that
    /// fits.
    fn src(&mut self, op: &Operand, bits: u32, text: &str) -> Res<BV> {
        let bad = |why: String| SemError::Unsupported {
            text: text.to_owned(),
            why,
        };
        match op {
            Operand::Reg(r) => match self.read(r, text)? {
                Val::Bv(b) if b.get_size() == bits => Ok(b),
                _ => Err(bad(format!("`{r}` is not a {bits}-bit register"))),
            },
            Operand::Imm(t) => {
                let v = parse_imm(t, bits)
                    .ok_or_else(|| bad(format!("`{t}` is not a {bits}-bit integer")))?;
                Ok(BV::from_u64(v, bits))
            }
            _ => Err(bad("operand form".into())),
        }
    }

    fn src_pred(&mut self, op: &Operand, text: &str) -> Res<Bool> {
        match op {
            Operand::Reg(r) => self.read_pred(r, text),
            _ => Err(SemError::Unsupported {
                text: text.to_owned(),
                why: "predicate operand form".into(),
            }),
        }
    }

    /// The destination register of class `class`.
    fn dst(&self, op: Option<&Operand>, class: Class, text: &str) -> Res<String> {
        match op {
            Some(Operand::Reg(r))
                if reg_class(r) == Some(class) && !SPECIALS.iter().any(|(n, _)| n == r) =>
            {
                Ok(r.to_string())
            }
            _ => Err(SemError::Unsupported {
                text: text.to_owned(),
                why: format!("destination is not a {class:?} register"),
            }),
        }
    }

    fn fresh(&mut self, bits: u32) -> BV {
        let v = BV::fresh_const("unspecified", bits);
        self.unspecified.push(v.clone());
        v
    }
}

impl Machine {
    fn effect(&mut self, ins: &Instruction, text: &str, guard: Option<Bool>) -> Res<()> {
        let bad = |why: &str| SemError::Unsupported {
            text: text.to_owned(),
            why: why.to_owned(),
        };
        let cond = self.path().cond.clone();
        let pred = guard;
        let guard = match &pred {
            Some(g) => Bool::and(&[&cond, g]),
            None => cond,
        };
        if ins.root() == "fence" {
            self.effects.push(Effect {
                guard,
                op: ins.opcode.to_string(),
                addr: None,
                vals: Vec::new(),
                result: None,
            });
            return Ok(());
        }
        if !ins.modifiers().any(|m| m == "global") {
            return Err(bad("only global memory operations are modelled"));
        }
        if ins.modifiers().any(|m| matches!(m, "v2" | "v4" | "v8")) {
            return Err(bad("vector memory operations are not modelled"));
        }
        let bits = ins
            .modifiers()
            .last()
            .and_then(|m| int_type(m, &[32, 64]))
            .map(|(_, w)| w)
            .ok_or_else(|| bad("type"))?;
        let ops = &ins.operands;
        let atom = ins.root() == "atom";
        let load = ins.root() == "ld";
        let (dst, rest) = if atom || load {
            let d = self.dst(ops.first(), Class::Bits(bits), text)?;
            (Some(d), ops.get(1..).unwrap_or(&[]))
        } else {
            (None, &ops[..])
        };
        let Some((Operand::Addr(a), vals)) = rest.split_first() else {
            return Err(bad("address operand"));
        };
        let addr = self.address(a, text)?;
        let vals = vals
            .iter()
            .map(|o| self.src(o, bits, text))
            .collect::<Res<Vec<_>>>()?;
        let expected = match (ins.root(), ins.modifiers().any(|m| m == "cas")) {
            ("ld", _) => 0,
            (_, true) => 2,
            _ => 1,
        };
        if vals.len() != expected {
            return Err(bad("operand count"));
        }
        // An atomic's result: the fresh constant `atom#N` (N counts atomics in text
        // order), which the IR side names the same way. A load's: `ld#N` (N counts loads
        // in text order); the IR side's loads are matched to the snippet's by position.
        let result = dst.as_ref().map(|_| {
            if load {
                let n = self
                    .effects
                    .iter()
                    .filter(|e| e.op.starts_with("ld."))
                    .count();
                return BV::new_const(format!("ld#{n}"), bits);
            }
            let r = BV::new_const(format!("atom#{}", self.atomics), bits);
            self.atomics += 1;
            r
        });
        if let (Some(d), Some(r)) = (dst, result.clone()) {
            // Within the path only the instruction's own predicate matters.
            let v = match &pred {
                Some(p) => {
                    let old = self.read(&d, text)?;
                    Val::ite(p, &Val::Bv(r), &old)
                }
                None => Val::Bv(r),
            };
            self.write(&d, v);
        }
        self.effects.push(Effect {
            guard,
            op: ins.opcode.to_string(),
            addr: Some(addr),
            vals,
            result,
        });
        Ok(())
    }

    fn address(&mut self, a: &Address, text: &str) -> Res<BV> {
        let base = match &a.base {
            AddrBase::Reg(r) => self.src(&Operand::Reg(r.clone()), 64, text)?,
            AddrBase::Symbol(s) => BV::new_const(s.as_str(), 64),
            AddrBase::Imm(v) => BV::from_i64(*v, 64),
            AddrBase::Complex => {
                return Err(SemError::Unsupported {
                    text: text.to_owned(),
                    why: "compound address".into(),
                })
            }
        };
        Ok(if a.offset == 0 {
            base
        } else {
            base.bvadd(BV::from_i64(a.offset, 64))
        })
    }
}

/// `v` knowing that `p` is `holds`: while `v` is `ite(p, a, b)` (or `ite(!p, a, b)`),
/// the branch that `p` selects. Keeps the operands of a predicated instruction equal to
/// the terms they stand for, not `ite`s whose other branch is dead.
fn resolve<T: Ast + Clone>(v: T, p: &Bool, holds: bool, cast: impl Fn(&Dynamic) -> Option<T>) -> T {
    let mut v = v;
    loop {
        if !v.is_app() || v.decl().kind() != DeclKind::Ite {
            return v;
        }
        let c = v.children();
        let (Some(cond), Some(a), Some(b)) = (
            c.first().and_then(Dynamic::as_bool),
            c.get(1).and_then(&cast),
            c.get(2).and_then(&cast),
        ) else {
            return v;
        };
        let select = if cond.get_z3_ast() == p.get_z3_ast() {
            holds
        } else if cond.is_app()
            && cond.decl().kind() == DeclKind::Not
            && cond.children().first().map(|x| x.get_z3_ast()) == Some(p.get_z3_ast())
        {
            !holds
        } else {
            return v;
        };
        v = if select { a } else { b };
    }
}

/// Merges the paths reaching one label: the disjunction of their conditions, each
/// register an `ite` over the paths (a register a path never wrote is its input).
fn merge(mut paths: Vec<Path>) -> Option<Path> {
    let last = paths.pop()?;
    if paths.is_empty() {
        return Some(last);
    }
    let mut names: Vec<String> = last.regs.keys().cloned().collect();
    for p in &paths {
        names.extend(p.regs.keys().cloned());
    }
    names.sort();
    names.dedup();
    let mut regs = HashMap::new();
    for n in names {
        let value = |p: &Path| p.regs.get(&n).cloned().or_else(|| input(&n));
        let Some(mut acc) = value(&last) else {
            continue;
        };
        for p in paths.iter().rev() {
            if let Some(v) = value(p) {
                // The same term on both sides needs no `ite` (keeps terms equal that are).
                if !v.same(&acc) {
                    acc = Val::ite(&p.cond, &v, &acc);
                }
            }
        }
        regs.insert(n, acc);
    }
    let mut conds: Vec<&Bool> = paths.iter().map(|p| &p.cond).collect();
    conds.push(&last.cond);
    Some(Path {
        cond: Bool::or(&conds),
        regs,
    })
}
