//! Instruction facts for the verifier's model: register defs/uses, control flow, memory
//! accesses, and access widths.
//!
//! Opcodes are classified by their first component (`ld` of `ld.global.v4.b32`) and
//! modifiers. An opcode not listed here gets a conservative fact: every register operand
//! is both defined and used, and, if it has an address operand, it may load and store
//! generic memory.

use crate::attach::CopyKind;
use crate::parse::{parse_int, AddrBase, Address, Instruction, Name, Operand};
use warptrace_verifier::{Access, Addr, CallSite, Compute, Flow, Mask, MemRef, Space};

/// What the model needs to know about one instruction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Facts {
    /// Registers written.
    pub defs: Vec<Name>,
    /// Registers read (guard included).
    pub uses: Vec<Name>,
    /// Control flow.
    pub flow: Flow,
    /// Memory accesses, with their address operands.
    pub mem: Vec<MemRef>,
    /// The guard predicate register, if predicated.
    pub guard: Option<Name>,
    /// What it computes (pointer-width moves and sums, active masks, collectives).
    pub compute: Compute,
}

/// How an opcode treats its first operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DefRule {
    /// Writes no register.
    None,
    /// The first operand (when it is a register or vector of them) is the destination.
    First,
    /// The first operand is read and written (accumulators).
    FirstInOut,
    /// Unknown opcode: every register operand is defined and used.
    Unknown,
}

/// Opcodes whose first operand is their destination (sorted: looked up by binary search).
const DEST_FIRST: &[&str] = &[
    "abs",
    "activemask",
    "add",
    "addc",
    "alloca",
    "and",
    "atom",
    "bfe",
    "bfi",
    "bfind",
    "bmsk",
    "brev",
    "clz",
    "cnot",
    "copysign",
    "cos",
    "cvt",
    "cvta",
    "div",
    "dp2a",
    "dp4a",
    "elect",
    "ex2",
    "fma",
    "fns",
    "getctarank",
    "isspacep",
    "istypeof",
    "ld",
    "ldmatrix",
    "ldu",
    "lg2",
    "lop3",
    "mad",
    "mad24",
    "madc",
    "mapa",
    "match",
    "max",
    "mbarrier",
    "min",
    "mma",
    "mov",
    "movmatrix",
    "mul",
    "mul24",
    "neg",
    "not",
    "or",
    "popc",
    "prmt",
    "rcp",
    "redux",
    "rem",
    "rsqrt",
    "sad",
    "selp",
    "set",
    "setp",
    "shf",
    "shfl",
    "shl",
    "shr",
    "sin",
    "slct",
    "sqrt",
    "stacksave",
    "sub",
    "subc",
    "suld",
    "suq",
    "szext",
    "tanh",
    "testp",
    "tex",
    "tld4",
    "txq",
    "vote",
    "xor",
];

/// Opcodes that write no register (sorted: looked up by binary search).
const NO_DEF: &[&str] = &[
    "applypriority",
    "bra",
    "brkpt",
    "brx",
    "call",
    "cp",
    "discard",
    "exit",
    "fence",
    "griddepcontrol",
    "membar",
    "nanosleep",
    "pmevent",
    "prefetch",
    "prefetchu",
    "red",
    "ret",
    "setmaxnreg",
    "st",
    "stackrestore",
    "stmatrix",
    "sured",
    "sust",
    "tensormap",
    "trap",
];

fn def_rule(i: &Instruction) -> DefRule {
    let root = i.root();
    let first_mod = i.modifiers().next().unwrap_or("");
    match root {
        "bar" | "barrier" => {
            if first_mod == "red" {
                DefRule::First
            } else {
                DefRule::None
            }
        }
        "wgmma" => {
            if first_mod == "mma_async" {
                DefRule::FirstInOut
            } else {
                DefRule::None
            }
        }
        "wmma" => {
            if first_mod == "store" {
                DefRule::None
            } else {
                DefRule::First
            }
        }
        "multimem" => {
            if first_mod == "ld_reduce" {
                DefRule::First
            } else {
                DefRule::None
            }
        }
        r if NO_DEF.binary_search(&r).is_ok() => DefRule::None,
        r if DEST_FIRST.binary_search(&r).is_ok() => DefRule::First,
        _ => DefRule::Unknown,
    }
}

/// Collects the registers an operand names; `is_reg` decides for identifiers without `%`.
fn regs(op: &Operand, is_reg: &dyn Fn(&str) -> bool, out: &mut Vec<Name>) {
    match op {
        Operand::Reg(r) => out.push(r.clone()),
        Operand::Symbol(s) if is_reg(s) => out.push(s.clone()),
        Operand::PredPair(a, b) => {
            for r in [a, b] {
                if r.starts_with('%') || is_reg(r) {
                    out.push(r.clone());
                }
            }
        }
        Operand::Vector(v) | Operand::Group(v) => v.iter().for_each(|o| regs(o, is_reg, out)),
        Operand::Addr(a) => {
            out.extend(a.regs.iter().cloned());
            if let AddrBase::Symbol(s) = &a.base {
                if is_reg(s) {
                    out.push(s.clone());
                }
            }
        }
        Operand::Symbol(_) | Operand::Imm(_) | Operand::Sink => {}
    }
}

fn is_destination(op: &Operand) -> bool {
    matches!(
        op,
        Operand::Reg(_) | Operand::Symbol(_) | Operand::PredPair(..) | Operand::Vector(_)
    )
}

/// The state space named by a modifier.
fn space_of(modifier: &str) -> Option<Space> {
    // `shared::cta` → `shared` (bytes: this runs for every modifier of every access).
    let end = modifier.bytes().position(|b| b == b':');
    let base = &modifier[..end.unwrap_or(modifier.len())];
    match base {
        "global" => Some(Space::Global),
        "shared" => Some(Space::Shared),
        "local" => Some(Space::Local),
        "param" => Some(Space::Param),
        "const" => Some(Space::Const),
        _ => None,
    }
}

/// The verifier's view of an address operand.
fn addr_of(a: &Address, is_reg: &dyn Fn(&str) -> bool) -> Addr {
    match &a.base {
        AddrBase::Reg(r) => Addr::Reg(r.clone()),
        AddrBase::Symbol(s) if is_reg(s) => Addr::Reg(s.clone()),
        AddrBase::Symbol(s) => Addr::Symbol(s.clone()),
        AddrBase::Imm(_) => Addr::Absolute,
        AddrBase::Complex => Addr::Other(a.regs.clone()),
    }
}

/// The `n`-th (from 0) address operand of `i`.
fn nth_address(i: &Instruction, n: usize, is_reg: &dyn Fn(&str) -> bool) -> Addr {
    i.operands
        .iter()
        .filter_map(|o| match o {
            Operand::Addr(a) => Some(a),
            _ => None,
        })
        .nth(n)
        .map_or(Addr::Unknown, |a| addr_of(a, is_reg))
}

fn mem_refs(i: &Instruction, rule: DefRule, is_reg: &dyn Fn(&str) -> bool) -> Vec<MemRef> {
    let root = i.root();
    let unknown = rule == DefRule::Unknown;
    // Most instructions access no memory: decide that before reading the modifiers.
    if !unknown
        && !matches!(
            root,
            "ld" | "ldu"
                | "prefetch"
                | "prefetchu"
                | "st"
                | "atom"
                | "red"
                | "mbarrier"
                | "ldmatrix"
                | "stmatrix"
                | "tex"
                | "tld4"
                | "suld"
                | "sust"
                | "sured"
                | "wgmma"
                | "wmma"
                | "multimem"
                | "cp"
        )
    {
        return Vec::new();
    }
    let mut spaces = i.modifiers().filter_map(space_of);
    let first = spaces.next().unwrap_or(Space::Generic);
    let second = spaces.next().unwrap_or(Space::Generic);
    let addr = || nth_address(i, 0, is_reg);
    let one = |space, access| {
        vec![MemRef {
            space,
            access,
            addr: addr(),
        }]
    };
    // Texture, surface and tensor-core operands are not plain addresses.
    let opaque = |space, access| {
        vec![MemRef {
            space,
            access,
            addr: Addr::Unknown,
        }]
    };
    let first_mod = i.modifiers().next().unwrap_or("");
    match root {
        "ld" | "ldu" | "prefetch" | "prefetchu" => one(first, Access::Load),
        "st" => one(first, Access::Store),
        "atom" | "red" | "mbarrier" => one(first, Access::Atomic),
        "ldmatrix" => one(Space::Shared, Access::Load),
        "stmatrix" => one(Space::Shared, Access::Store),
        "tex" | "tld4" | "suld" => opaque(Space::Global, Access::Load),
        "sust" => opaque(Space::Global, Access::Store),
        "sured" => opaque(Space::Global, Access::Atomic),
        "wgmma" if first_mod == "mma_async" => opaque(Space::Shared, Access::Load),
        "wmma" if first_mod == "load" => one(first, Access::Load),
        "wmma" if first_mod == "store" => one(first, Access::Store),
        "multimem" => match first_mod {
            "ld_reduce" => one(Space::Global, Access::Load),
            "st" => one(Space::Global, Access::Store),
            _ => one(Space::Global, Access::Atomic),
        },
        "cp" => {
            let mods: Vec<&str> = i.modifiers().collect();
            if mods
                .iter()
                .any(|m| matches!(*m, "commit_group" | "wait_group" | "wait_all"))
            {
                return Vec::new();
            }
            let (dst, src) = (first, second);
            if mods.contains(&"prefetch") {
                one(dst, Access::Load)
            } else {
                let dst_access = if mods.contains(&"reduce") {
                    Access::Atomic
                } else {
                    Access::Store
                };
                vec![
                    MemRef {
                        space: dst,
                        access: dst_access,
                        addr: nth_address(i, 0, is_reg),
                    },
                    MemRef {
                        space: src,
                        access: Access::Load,
                        addr: nth_address(i, 1, is_reg),
                    },
                ]
            }
        }
        _ if unknown && i.address().is_some() => vec![
            MemRef {
                space: Space::Generic,
                access: Access::Load,
                addr: addr(),
            },
            MemRef {
                space: Space::Generic,
                access: Access::Store,
                addr: addr(),
            },
        ],
        _ => Vec::new(),
    }
}

/// A pointer-width integer type.
fn wide(ty: &str) -> bool {
    matches!(ty, "u64" | "s64" | "b64")
}

/// What `i` computes (see [`Compute`]): only pointer-width moves, conversions to global,
/// sums and loads are described, and only over registers and immediates (a symbol
/// operand is a variable's address, never a map pointer).
fn compute(i: &Instruction, defs: &[Name], flow: &Flow, is_reg: &dyn Fn(&str) -> bool) -> Compute {
    let root = i.root();
    // Most instructions compute nothing the checks follow: skip collecting modifiers.
    if *flow != Flow::WarpCollective
        && !matches!(
            root,
            "mov"
                | "cvta"
                | "add"
                | "sub"
                | "mad"
                | "ld"
                | "activemask"
                | "call"
                | "bar"
                | "barrier"
        )
    {
        return Compute::Opaque;
    }
    let mods: Vec<&str> = i.modifiers().collect();
    let ops = &i.operands;
    // The register an operand names; `Err` for anything but a register or immediate.
    let term = |o: &Operand| -> Result<Option<Name>, ()> {
        match o {
            Operand::Reg(r) => Ok(Some(r.clone())),
            Operand::Symbol(s) if is_reg(s) => Ok(Some(s.clone())),
            Operand::Imm(_) => Ok(None),
            _ => Err(()),
        }
    };
    let terms = |list: &[&Operand]| -> Option<Vec<Name>> {
        let mut out = Vec::new();
        for o in list {
            out.extend(term(o).ok()?);
        }
        Some(out)
    };
    let sum = |addends: &[&Operand], offsets: &[&Operand]| match (terms(addends), terms(offsets)) {
        (Some(addends), Some(offsets)) => Compute::Add { addends, offsets },
        _ => Compute::Opaque,
    };
    let mask = |o: Option<&Operand>| match o {
        Some(Operand::Reg(r)) => Mask::Reg(r.clone()),
        Some(Operand::Symbol(s)) if is_reg(s) => Mask::Reg(s.clone()),
        Some(Operand::Imm(t)) => parse_int(t).map_or(Mask::Implicit, Mask::Imm),
        _ => Mask::Implicit,
    };
    let single = defs.len() == 1 && ops.len() >= 2;
    match (root, mods.as_slice()) {
        ("mov", [t]) if wide(t) && single => match term(&ops[1]) {
            Ok(Some(r)) => Compute::Copy(r),
            _ => Compute::Opaque,
        },
        ("cvta", ["to", "global", t]) if wide(t) && single => match term(&ops[1]) {
            Ok(Some(r)) => Compute::Copy(r),
            _ => Compute::Opaque,
        },
        ("add", [t]) if wide(t) && single && ops.len() == 3 => sum(&[&ops[1], &ops[2]], &[]),
        ("sub", [t]) if wide(t) && single && ops.len() == 3 => sum(&[&ops[1]], &[&ops[2]]),
        ("mad", ["lo", t]) if wide(t) && single && ops.len() == 4 => {
            sum(&[&ops[3]], &[&ops[1], &ops[2]])
        }
        ("mad", ["wide", "u32" | "s32"]) if single && ops.len() == 4 => {
            sum(&[&ops[3]], &[&ops[1], &ops[2]])
        }
        ("ld", _)
            if defs.len() == 1
                && mods.last().is_some_and(|t| wide(t))
                && !mods.iter().any(|m| matches!(*m, "v2" | "v4" | "v8")) =>
        {
            Compute::LoadWord
        }
        ("activemask", _) if defs.len() == 1 => Compute::ActiveMask,
        ("shfl" | "vote" | "match" | "redux" | "elect", _) if mods.contains(&"sync") => {
            Compute::Collective(mask(ops.last()))
        }
        ("bar" | "barrier", ["warp", "sync"]) => Compute::Collective(mask(ops.first())),
        _ if *flow == Flow::WarpCollective => Compute::Collective(Mask::Implicit),
        ("call", _) => Compute::Call(Box::new(call_site(i))),
        _ => Compute::Opaque,
    }
}

/// The operands of `call[.uni] [(rets),] callee[, (args)][, prototype or targets];`: a
/// direct callee is a symbol, an indirect one a register (kept in the form, with the
/// prototype or `.calltargets` list that follows the arguments).
pub(crate) fn call_site(i: &Instruction) -> CallSite {
    let names = |o: &Operand| match o {
        Operand::Group(v) => v.iter().map(operand_text).collect(),
        other => vec![operand_text(other)],
    };
    let mut ops = i.operands.iter().peekable();
    let rets = match ops.next_if(|o| matches!(o, Operand::Group(_)) && i.operands.len() >= 2) {
        Some(o) => names(o),
        None => Vec::new(),
    };
    let mut form = vec![i.opcode.to_string()];
    let callee = match ops.next() {
        Some(Operand::Symbol(s)) => Some(s.to_string()),
        Some(other) => {
            form.push(operand_text(other));
            None
        }
        None => None,
    };
    let args = match ops.next_if(|o| matches!(o, Operand::Group(_))) {
        Some(o) => names(o),
        None => Vec::new(),
    };
    form.extend(ops.map(operand_text));
    CallSite {
        callee,
        rets,
        args,
        form: form.join(" "),
    }
}

/// An operand as text (for call forms and messages).
fn operand_text(o: &Operand) -> String {
    let list = |v: &[Operand]| v.iter().map(operand_text).collect::<Vec<_>>().join(", ");
    match o {
        Operand::Reg(s) | Operand::Symbol(s) | Operand::Imm(s) => s.to_string(),
        Operand::PredPair(a, b) => format!("{a}|{b}"),
        Operand::Vector(v) => format!("{{{}}}", list(v)),
        Operand::Group(v) => format!("({})", list(v)),
        Operand::Sink => "_".into(),
        Operand::Addr(a) => format!("[{a:?}]"),
    }
}

/// Whether `root` is the first component of a PTX instruction this module knows.
pub(crate) fn is_known_root(root: &str) -> bool {
    const OTHER: &[&str] = &[
        "bar",
        "barrier",
        "wgmma",
        "wmma",
        "multimem",
        "tcgen05",
        "ldu",
        "vote",
        "shfl",
        "clusterlaunchcontrol",
    ];
    DEST_FIRST.binary_search(&root).is_ok()
        || NO_DEF.binary_search(&root).is_ok()
        || OTHER.contains(&root)
}

fn flow(i: &Instruction) -> Flow {
    let root = i.root();
    let first_mod = i.modifiers().next().unwrap_or("");
    match root {
        "bra" | "brx" => {
            let target = i
                .operands
                .iter()
                .rev()
                .find_map(|o| match o {
                    Operand::Symbol(s) => Some(s.clone()),
                    _ => None,
                })
                // Not a name (`bra %rd1`, `bra 0x40`, which ptxas refuses): named as
                // written, so a rejection says what the branch targets; no label has it.
                .or_else(|| match i.operands.last() {
                    Some(Operand::Reg(s) | Operand::Imm(s)) => Some(s.clone()),
                    _ => None,
                })
                .unwrap_or_default();
            Flow::Branch {
                target,
                conditional: i.guard.is_some() || root == "brx",
            }
        }
        "ret" | "exit" => Flow::Exit,
        "call" => Flow::Call,
        "trap" | "brkpt" => Flow::Trap,
        "bar" | "barrier" if first_mod == "warp" => Flow::WarpCollective,
        "bar" | "barrier" => Flow::Barrier,
        "shfl" | "vote" | "match" | "redux" | "elect" | "wgmma" | "wmma" | "mma" | "ldmatrix"
        | "stmatrix" | "movmatrix" | "tcgen05" => Flow::WarpCollective,
        _ if i.modifiers().any(|m| m == "aligned") => Flow::WarpCollective,
        _ => Flow::Next,
    }
}

/// The facts of an instruction; `is_reg` says whether an identifier without `%` is a
/// declared register.
pub fn facts(i: &Instruction, is_reg: &dyn Fn(&str) -> bool) -> Facts {
    let rule = def_rule(i);
    let mut defs = Vec::new();
    let mut uses = Vec::new();
    if let Some(g) = &i.guard {
        uses.push(g.reg.clone());
    }
    let mut ops = i.operands.iter();
    match rule {
        DefRule::None => ops.for_each(|o| regs(o, is_reg, &mut uses)),
        DefRule::First | DefRule::FirstInOut => {
            if let Some(first) = i.operands.first() {
                if is_destination(first) {
                    ops.next();
                    regs(first, is_reg, &mut defs);
                    if rule == DefRule::FirstInOut {
                        regs(first, is_reg, &mut uses);
                    }
                }
            }
            ops.for_each(|o| regs(o, is_reg, &mut uses));
        }
        DefRule::Unknown => {
            for o in ops {
                regs(o, is_reg, &mut defs);
                regs(o, is_reg, &mut uses);
            }
        }
    }
    let flow = flow(i);
    let compute = compute(i, &defs, &flow, is_reg);
    Facts {
        mem: mem_refs(i, rule, is_reg),
        guard: i.guard.as_ref().map(|g| g.reg.clone()),
        compute,
        defs,
        uses,
        flow,
    }
}

/// Bytes of one element of a PTX type (without the dot): `b8`…`b128`, `u/s/f` 8–64,
/// `f16`, `bf16`, `f16x2`, `bf16x2`, `tf32`, `e4m3x2`, ….
pub fn type_bytes(ty: &str) -> Option<u32> {
    Some(match ty {
        "b8" | "u8" | "s8" | "e4m3" | "e5m2" => 1,
        "b16" | "u16" | "s16" | "f16" | "bf16" | "e4m3x2" | "e5m2x2" => 2,
        "b32" | "u32" | "s32" | "f32" | "f16x2" | "bf16x2" | "tf32" | "e4m3x4" | "e5m2x4" => 4,
        "b64" | "u64" | "s64" | "f64" => 8,
        "b128" => 16,
        _ => return None,
    })
}

/// Bytes one thread accesses: vector length (`.v2`/`.v4`/`.v8`, else 1) × the size of
/// the last type modifier. `None` if the opcode names no type.
pub fn access_bytes(opcode: &str) -> Option<u32> {
    let mut vec = 1;
    let mut elem = None;
    for m in opcode.split('.').skip(1) {
        match m {
            "v2" => vec = 2,
            "v4" => vec = 4,
            "v8" => vec = 8,
            m => {
                if let Some(b) = type_bytes(m) {
                    elem = Some(b);
                }
            }
        }
    }
    elem.map(|e| vec * e)
}

/// Bytes one thread accesses at a `mem:` site, when known at compile time: for an
/// asynchronous copy its size operand if it is an immediate (a `cp.async` `cp-size` of 4,
/// 8 or 16 — its optional `src-size` only limits what is read, the rest of the `cp-size`
/// bytes are zero-filled —, a bulk copy's `size`), never for a tensor copy (the box size
/// is in the tensor map); for anything else [`access_bytes`] of the opcode.
pub(crate) fn site_bytes(i: &Instruction) -> Option<u32> {
    let Some(copy) = crate::attach::async_copy(i) else {
        return access_bytes(&i.opcode);
    };
    match copy.size.and_then(|k| i.operands.get(k)) {
        Some(Operand::Imm(t)) => parse_int(t)
            .and_then(|v| u32::try_from(v).ok())
            .filter(|b| copy.kind != CopyKind::PerThread || matches!(b, 4 | 8 | 16)),
        _ => None,
    }
}

/// The address `addr` reads at a `mem:` site: an asynchronous copy's global end (or the
/// source of a shared → shared::cluster copy; a tensor copy's `[map, {coordinates}]`,
/// a compound address), else the instruction's (first) address operand.
pub(crate) fn site_address(i: &Instruction) -> Option<&Address> {
    let Some(copy) = crate::attach::async_copy(i) else {
        return i.address();
    };
    match i.operands.get(copy.addr) {
        Some(Operand::Addr(a)) => Some(a),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse_instruction;

    fn f(text: &str) -> Facts {
        facts(&parse_instruction(text).expect("parses"), &|_| false)
    }

    fn mr(space: Space, access: Access) -> MemRef {
        mra(space, access, Addr::Unknown)
    }

    fn mra(space: Space, access: Access, addr: Addr) -> MemRef {
        MemRef {
            space,
            access,
            addr,
        }
    }

    fn reg(r: &str) -> Addr {
        Addr::Reg(r.into())
    }

    #[test]
    fn opcode_tables_are_sorted_for_binary_search() {
        for table in [DEST_FIRST, NO_DEF] {
            assert!(table.windows(2).all(|w| w[0] < w[1]), "{table:?}");
        }
    }

    #[test]
    fn widths() {
        let cases = [
            ("ld.global.v4.b32", 16),
            ("ld.global.b16", 2),
            ("ld.global.nc.v2.f16x2", 8),
            ("st.global.b8", 1),
            ("st.global.v8.bf16", 16),
            ("ld.global.L2::128B.v2.u64", 16),
            ("atom.global.cas.b64", 8),
            ("red.global.add.noftz.bf16x2", 4),
            ("ld.global.b128", 16),
            ("ld.global.nc.L1::no_allocate.v4.f32", 16),
            ("ld.shared.s8", 1),
            ("st.local.f64", 8),
        ];
        for (op, bytes) in cases {
            assert_eq!(access_bytes(op), Some(bytes), "{op}");
        }
        assert_eq!(access_bytes("bar.sync"), None);
    }

    #[test]
    fn setp_defines_both_predicates() {
        let x = f("@%p9 setp.lt.s32 %p1|%p2, %r1, %r2, %p3;");
        assert_eq!(x.defs, ["%p1", "%p2"]);
        assert_eq!(x.uses, ["%p9", "%r1", "%r2", "%p3"]);
        assert_eq!(x.flow, Flow::Next);
    }

    #[test]
    fn vector_load_defines_each_element() {
        let x = f("@%p1 ld.global.v4.b32 { %r1, %r2, %r3, %r4 }, [ %rd1 + 0 ];");
        assert_eq!(x.defs, ["%r1", "%r2", "%r3", "%r4"]);
        assert_eq!(x.uses, ["%p1", "%rd1"]);
        assert_eq!(x.mem, [mra(Space::Global, Access::Load, reg("%rd1"))]);
        let x = f("ld.global.nc.v2.b32 {%r1, _}, [%rd2];");
        assert_eq!(x.defs, ["%r1"]);
        let x = f("ld.param.u64 %rd1, [k_param_0];");
        assert_eq!(
            x.mem,
            [mra(
                Space::Param,
                Access::Load,
                Addr::Symbol("k_param_0".into())
            )]
        );
        let x = f("ld.u32 %r1, [%rd1];");
        assert_eq!(x.mem, [mra(Space::Generic, Access::Load, reg("%rd1"))]);
    }

    #[test]
    fn wgmma_reads_and_writes_its_accumulator() {
        let x = f("wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%r1,%r2}, %rd57, %rd58, %p3, 1, 1, 1, 0;");
        assert_eq!(x.defs, ["%r1", "%r2"]);
        assert_eq!(x.uses, ["%r1", "%r2", "%rd57", "%rd58", "%p3"]);
        assert_eq!(x.flow, Flow::WarpCollective);
        assert_eq!(x.mem, [mr(Space::Shared, Access::Load)]);
        let x = f("wgmma.fence.sync.aligned;");
        assert!(x.defs.is_empty());
    }

    #[test]
    fn atomics_and_reductions() {
        let x = f("atom.global.cas.b64 %rd1, [%rd2+8], %rd3, %rd4;");
        assert_eq!(x.defs, ["%rd1"]);
        assert_eq!(x.uses, ["%rd2", "%rd3", "%rd4"]);
        assert_eq!(x.mem, [mra(Space::Global, Access::Atomic, reg("%rd2"))]);
        let x = f("red.global.add.u64 [%rd2], %rd3;");
        assert!(x.defs.is_empty());
        assert_eq!(x.uses, ["%rd2", "%rd3"]);
        let x = f("atom.add.u32 %r1, [%rd2], 1;");
        assert_eq!(x.mem, [mra(Space::Generic, Access::Atomic, reg("%rd2"))]);
    }

    #[test]
    fn cp_async_stores_shared_and_loads_global() {
        let x = f("cp.async.cg.shared.global [%r1], [%rd1], 16;");
        assert!(x.defs.is_empty());
        assert_eq!(x.uses, ["%r1", "%rd1"]);
        assert_eq!(
            x.mem,
            [
                mra(Space::Shared, Access::Store, reg("%r1")),
                mra(Space::Global, Access::Load, reg("%rd1"))
            ]
        );
        assert!(f("cp.async.wait_group 0;").mem.is_empty());
    }

    #[test]
    fn bulk_copy_bytes_and_global_address() {
        let p = |t: &str| parse_instruction(t).expect("parses");
        let i = p("cp.async.bulk.global.shared::cta.bulk_group [%rd7+16], [%r19], 256;");
        assert_eq!(site_bytes(&i), Some(256));
        let a = site_address(&i).expect("address");
        assert_eq!(
            (a.base.clone(), a.offset),
            (AddrBase::Reg("%rd7".into()), 16)
        );
        // A size register: not a compile-time width.
        let i = p("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r15], [%rd10], %r19, [%r17];");
        assert_eq!(site_bytes(&i), None);
        assert_eq!(
            site_address(&i).map(|a| a.base.clone()),
            Some(AddrBase::Reg("%rd10".into()))
        );
        // TMA: no size operand; the tensor-map operand is a compound address.
        let i = p("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r11], [%rd8, {%r1, %r2}], [%r14];");
        assert_eq!(site_bytes(&i), None);
        assert_eq!(
            site_address(&i).map(|a| a.base.clone()),
            Some(AddrBase::Complex)
        );
    }

    #[test]
    fn cp_async_bytes_and_source_address() {
        let p = |t: &str| parse_instruction(t).expect("parses");
        // The opcode names no type: the width is the `cp-size` operand.
        assert_eq!(access_bytes("cp.async.cg.shared.global"), None);
        assert_eq!(access_bytes("cp.async.ca.shared.global.L2::128B"), None);
        let cases = [
            (
                "cp.async.cg.shared.global [%r1], [%rd1], 16;",
                16,
                "%rd1",
                0,
            ),
            (
                "cp.async.ca.shared.global [%r1+4], [%rd2+8], 4;",
                4,
                "%rd2",
                8,
            ),
            (
                "cp.async.ca.shared::cta.global.L2::128B [%r1], [%rd3], 8;",
                8,
                "%rd3",
                0,
            ),
            (
                "@%p1 cp.async.cg.shared.global [ %r1 + 0 ], [ %rd4 + 0 ], 0x10, %r9;",
                16,
                "%rd4",
                0,
            ),
            (
                "cp.async.cg.shared.global [%r1], [%rd5+-16], 16, 16;",
                16,
                "%rd5",
                -16,
            ),
            (
                "cp.async.cg.shared.global.L2::cache_hint [%r1], [%rd6], 16, 8, %rd7;",
                16,
                "%rd6",
                0,
            ),
        ];
        for (t, bytes, base, offset) in cases {
            let i = p(t);
            assert_eq!(site_bytes(&i), Some(bytes), "{t}");
            let a = site_address(&i).expect("address");
            assert_eq!(a.base, AddrBase::Reg(base.into()), "{t}");
            assert_eq!(a.offset, offset, "{t}");
        }
        // Not an immediate 4/8/16: no width.
        assert_eq!(
            site_bytes(&p("cp.async.cg.shared.global [%r1], [%rd1], %r2;")),
            None
        );
        // Other instructions keep the opcode width and their only address.
        let i = p("ld.global.v2.f32 {%f1, %f2}, [%rd9+4];");
        assert_eq!(site_bytes(&i), Some(8));
        assert_eq!(site_address(&i).map(|a| a.offset), Some(4));
    }

    #[test]
    fn control_flow() {
        assert_eq!(
            f("@%p1 bra $L__BB0_10;").flow,
            Flow::Branch {
                target: "$L__BB0_10".into(),
                conditional: true
            }
        );
        assert_eq!(
            f("bra.uni $L1;").flow,
            Flow::Branch {
                target: "$L1".into(),
                conditional: false
            }
        );
        // What is not a label is named as written: no label has that name.
        for (text, target) in [("@%p1 bra 0x40;", "0x40"), ("bra %rd1;", "%rd1")] {
            assert!(
                matches!(f(text).flow, Flow::Branch { target: ref t, .. } if t.as_str() == target),
                "{text}"
            );
        }
        assert_eq!(f("@%p1 ret;").flow, Flow::Exit);
        assert_eq!(f("exit;").flow, Flow::Exit);
        assert_eq!(f("trap;").flow, Flow::Trap);
        assert_eq!(f("call.uni foo, (p0);").flow, Flow::Call);
        assert_eq!(f("bar.sync 0;").flow, Flow::Barrier);
        assert_eq!(f("bar.warp.sync -1;").flow, Flow::WarpCollective);
        assert_eq!(
            f("shfl.sync.bfly.b32 %r1|%p1, %r2, 1, 31, -1;").flow,
            Flow::WarpCollective
        );
        assert_eq!(
            f("shfl.sync.bfly.b32 %r1|%p1, %r2, 1, 31, -1;").defs,
            ["%r1", "%p1"]
        );
        let x = f("bar.red.popc.u32 %r1, 0, %p1;");
        assert_eq!((x.defs, x.flow), (vec![Name::from("%r1")], Flow::Barrier));
    }

    #[test]
    fn vector_move_destination_and_unknown_opcodes() {
        let x = f("mov.b32 {%rs60, %rs64}, %r184;");
        assert_eq!(x.defs, ["%rs60", "%rs64"]);
        assert_eq!(x.uses, ["%r184"]);
        let x = f("frobnicate.b32 %r1, [%rd1], %r2;");
        assert_eq!(x.defs, ["%r1", "%rd1", "%r2"]);
        assert_eq!(x.uses, ["%r1", "%rd1", "%r2"]);
        assert_eq!(x.mem.len(), 2);
        let x = f("st.shared.f32 [%r5], %f8;");
        assert!(x.defs.is_empty());
        assert_eq!(x.mem, [mra(Space::Shared, Access::Store, reg("%r5"))]);
    }

    #[test]
    fn pointer_arithmetic_masks_and_collectives() {
        let c = |t: &str| f(t).compute;
        let names = |v: &[&str]| v.iter().map(|s| Name::from(*s)).collect::<Vec<_>>();
        assert_eq!(c("ld.param.u64 %rd1, [__wt_maps];"), Compute::LoadWord);
        assert_eq!(c("ld.param.u32 %r1, [__wt_maps];"), Compute::Opaque);
        assert_eq!(c("ld.global.v2.u64 {%rd1, %rd2}, [%rd3];"), Compute::Opaque);
        assert_eq!(
            c("cvta.to.global.u64 %rd1, %rd1;"),
            Compute::Copy("%rd1".into())
        );
        assert_eq!(c("cvta.global.u64 %rd1, %rd1;"), Compute::Opaque);
        assert_eq!(c("mov.b64 %rd1, %rd2;"), Compute::Copy("%rd2".into()));
        assert_eq!(c("mov.u64 %rd1, some_global;"), Compute::Opaque);
        assert_eq!(c("mov.u32 %r1, %r2;"), Compute::Opaque);
        assert_eq!(
            c("add.s64 %rd1, %rd2, 64;"),
            Compute::Add {
                addends: names(&["%rd2"]),
                offsets: vec![]
            }
        );
        assert_eq!(c("add.s64 %rd1, %rd2, sym;"), Compute::Opaque);
        assert_eq!(c("add.s32 %r1, %r2, 4;"), Compute::Opaque);
        assert_eq!(
            c("sub.s64 %rd1, %rd2, %rd3;"),
            Compute::Add {
                addends: names(&["%rd2"]),
                offsets: names(&["%rd3"])
            }
        );
        assert_eq!(
            c("mad.lo.u64 %rd1, %rd2, 24, %rd3;"),
            Compute::Add {
                addends: names(&["%rd3"]),
                offsets: names(&["%rd2"])
            }
        );
        assert_eq!(
            c("mad.wide.u32 %rd1, %r2, 8, %rd3;"),
            Compute::Add {
                addends: names(&["%rd3"]),
                offsets: names(&["%r2"])
            }
        );
        assert_eq!(c("activemask.b32 %r1;"), Compute::ActiveMask);
        assert_eq!(
            c("shfl.sync.bfly.b32 %r1|%p1, %r2, 1, 31, %r9;"),
            Compute::Collective(Mask::Reg("%r9".into()))
        );
        assert_eq!(
            c("vote.sync.ballot.b32 %r1, %p1, 0xffffffff;"),
            Compute::Collective(Mask::Imm(0xffff_ffff))
        );
        assert_eq!(
            c("bar.warp.sync %r3;"),
            Compute::Collective(Mask::Reg("%r3".into()))
        );
        assert_eq!(
            c("wmma.mma.sync.aligned.row.row.m16n16k16.f32.f32 {%f1}, {%r1}, {%r2}, {%f1};"),
            Compute::Collective(Mask::Implicit)
        );
        assert_eq!(f("@!%p2 add.s64 %rd1, %rd1, 8;").guard, Some("%p2".into()));
    }

    #[test]
    fn address_operands() {
        let x = f("st.global.u32 [gvar+4], %r1;");
        assert_eq!(x.mem[0].addr, Addr::Symbol("gvar".into()));
        let x = f("st.global.u32 [256], %r1;");
        assert_eq!(x.mem[0].addr, Addr::Absolute);
        let x = f("tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [tex0, {%r1}];");
        assert_eq!(x.mem[0].addr, Addr::Unknown);
        assert!(is_known_root("ld") && is_known_root("shfl") && !is_known_root("frobnicate"));
    }

    #[test]
    fn calls_carry_callee_arguments_and_form() {
        let call = |text: &str| match f(text).compute {
            Compute::Call(c) => *c,
            other => panic!("{text}: {other:?}"),
        };
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let c = call("call.uni (retval0), foo, (param0, param1);");
        assert_eq!(c.callee.as_deref(), Some("foo"));
        assert_eq!(
            (c.rets, c.args),
            (names(&["retval0"]), names(&["param0", "param1"]))
        );
        assert_eq!(c.form, "call.uni");
        let c = call("@%p1 call bar;");
        assert_eq!(
            (c.callee.as_deref(), c.rets.len(), c.args.len()),
            (Some("bar"), 0, 0)
        );
        // Indirect: no callee; the register and the prototype are part of the form.
        let c = call("call (retval0), %rd4, (param0), prototype_7;");
        assert_eq!(c.callee, None);
        assert_eq!(c.args, names(&["param0"]));
        assert_eq!(c.form, "call %rd4 prototype_7");
    }
}
