//! Instruction facts for the verifier's model: register defs/uses, control flow, memory
//! accesses, and access widths.
//!
//! Opcodes are classified by their first component (`ld` of `ld.global.v4.b32`) and
//! modifiers. An opcode not listed here gets a conservative fact: every register operand
//! is both defined and used, and, if it has an address operand, it may load and store
//! generic memory.

use crate::parse::{parse_int, AddrBase, Address, Instruction, Operand};
use warptrace_verifier::{Access, Flow, MemRef, Space};

/// What the model needs to know about one instruction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Facts {
    /// Registers written.
    pub defs: Vec<String>,
    /// Registers read (guard included).
    pub uses: Vec<String>,
    /// Control flow.
    pub flow: Flow,
    /// Memory accesses.
    pub mem: Vec<MemRef>,
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

/// Opcodes whose first operand is their destination.
const DEST_FIRST: &[&str] = &[
    "mov",
    "ld",
    "ldu",
    "add",
    "sub",
    "mul",
    "mad",
    "mul24",
    "mad24",
    "sad",
    "div",
    "rem",
    "abs",
    "neg",
    "min",
    "max",
    "popc",
    "clz",
    "bfind",
    "fns",
    "brev",
    "bfe",
    "bfi",
    "dp4a",
    "dp2a",
    "copysign",
    "fma",
    "rcp",
    "sqrt",
    "rsqrt",
    "sin",
    "cos",
    "lg2",
    "ex2",
    "tanh",
    "testp",
    "and",
    "or",
    "xor",
    "not",
    "cnot",
    "lop3",
    "shf",
    "shl",
    "shr",
    "prmt",
    "cvt",
    "cvta",
    "selp",
    "slct",
    "set",
    "setp",
    "atom",
    "shfl",
    "vote",
    "match",
    "redux",
    "activemask",
    "isspacep",
    "mapa",
    "getctarank",
    "ldmatrix",
    "movmatrix",
    "mma",
    "tex",
    "tld4",
    "suld",
    "txq",
    "suq",
    "istypeof",
    "addc",
    "subc",
    "madc",
    "szext",
    "bmsk",
    "elect",
    "mbarrier",
    "alloca",
    "stacksave",
];

/// Opcodes that write no register.
const NO_DEF: &[&str] = &[
    "st",
    "stmatrix",
    "red",
    "bra",
    "brx",
    "ret",
    "exit",
    "cp",
    "prefetch",
    "prefetchu",
    "trap",
    "brkpt",
    "call",
    "membar",
    "fence",
    "nanosleep",
    "pmevent",
    "griddepcontrol",
    "setmaxnreg",
    "discard",
    "applypriority",
    "sust",
    "sured",
    "tensormap",
    "stackrestore",
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
        r if NO_DEF.contains(&r) => DefRule::None,
        r if DEST_FIRST.contains(&r) => DefRule::First,
        _ => DefRule::Unknown,
    }
}

/// Collects the registers an operand names; `is_reg` decides for identifiers without `%`.
fn regs(op: &Operand, is_reg: &dyn Fn(&str) -> bool, out: &mut Vec<String>) {
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
    let base = modifier.split("::").next().unwrap_or(modifier);
    match base {
        "global" => Some(Space::Global),
        "shared" => Some(Space::Shared),
        "local" => Some(Space::Local),
        "param" => Some(Space::Param),
        "const" => Some(Space::Const),
        _ => None,
    }
}

fn mem_refs(i: &Instruction, rule: DefRule) -> Vec<MemRef> {
    let spaces: Vec<Space> = i.modifiers().filter_map(space_of).collect();
    let first = spaces.first().copied().unwrap_or(Space::Generic);
    let one = |space, access| vec![MemRef { space, access }];
    let first_mod = i.modifiers().next().unwrap_or("");
    match i.root() {
        "ld" | "ldu" | "prefetch" | "prefetchu" => one(first, Access::Load),
        "st" => one(first, Access::Store),
        "atom" | "red" | "mbarrier" => one(first, Access::Atomic),
        "ldmatrix" => one(Space::Shared, Access::Load),
        "stmatrix" => one(Space::Shared, Access::Store),
        "tex" | "tld4" | "suld" => one(Space::Global, Access::Load),
        "sust" => one(Space::Global, Access::Store),
        "sured" => one(Space::Global, Access::Atomic),
        "wgmma" if first_mod == "mma_async" => one(Space::Shared, Access::Load),
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
            let dst = spaces.first().copied().unwrap_or(Space::Generic);
            let src = spaces.get(1).copied().unwrap_or(Space::Generic);
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
                    },
                    MemRef {
                        space: src,
                        access: Access::Load,
                    },
                ]
            }
        }
        _ if rule == DefRule::Unknown && i.address().is_some() => vec![
            MemRef {
                space: Space::Generic,
                access: Access::Load,
            },
            MemRef {
                space: Space::Generic,
                access: Access::Store,
            },
        ],
        _ => Vec::new(),
    }
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
    Facts {
        defs,
        uses,
        flow: flow(i),
        mem: mem_refs(i, rule),
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

/// Bytes one thread accesses at a `mem:` site: the `cp-size` immediate (4, 8 or 16) of a
/// `cp.async` copy (its optional `src-size` only limits what is read; the rest of the
/// `cp-size` bytes are zero-filled), else [`access_bytes`] of the opcode.
pub(crate) fn site_bytes(i: &Instruction) -> Option<u32> {
    if !crate::attach::is_cp_async(i) {
        return access_bytes(&i.opcode);
    }
    match i.operands.get(2) {
        Some(Operand::Imm(t)) => parse_int(t)
            .and_then(|v| u32::try_from(v).ok())
            .filter(|b| matches!(b, 4 | 8 | 16)),
        _ => None,
    }
}

/// The address `addr` reads at a `mem:` site: the source (second) address of a
/// `cp.async` copy, else the instruction's (first) address operand.
pub(crate) fn site_address(i: &Instruction) -> Option<&Address> {
    if !crate::attach::is_cp_async(i) {
        return i.address();
    }
    match i.operands.get(1) {
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
        MemRef { space, access }
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
        assert_eq!(x.mem, [mr(Space::Global, Access::Load)]);
        let x = f("ld.global.nc.v2.b32 {%r1, _}, [%rd2];");
        assert_eq!(x.defs, ["%r1"]);
        let x = f("ld.param.u64 %rd1, [k_param_0];");
        assert_eq!(x.mem, [mr(Space::Param, Access::Load)]);
        let x = f("ld.u32 %r1, [%rd1];");
        assert_eq!(x.mem, [mr(Space::Generic, Access::Load)]);
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
        assert_eq!(x.mem, [mr(Space::Global, Access::Atomic)]);
        let x = f("red.global.add.u64 [%rd2], %rd3;");
        assert!(x.defs.is_empty());
        assert_eq!(x.uses, ["%rd2", "%rd3"]);
        let x = f("atom.add.u32 %r1, [%rd2], 1;");
        assert_eq!(x.mem, [mr(Space::Generic, Access::Atomic)]);
    }

    #[test]
    fn cp_async_stores_shared_and_loads_global() {
        let x = f("cp.async.cg.shared.global [%r1], [%rd1], 16;");
        assert!(x.defs.is_empty());
        assert_eq!(x.uses, ["%r1", "%rd1"]);
        assert_eq!(
            x.mem,
            [
                mr(Space::Shared, Access::Store),
                mr(Space::Global, Access::Load)
            ]
        );
        assert!(f("cp.async.wait_group 0;").mem.is_empty());
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
        assert_eq!((x.defs, x.flow), (vec!["%r1".to_string()], Flow::Barrier));
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
        assert_eq!(x.mem, [mr(Space::Shared, Access::Store)]);
    }
}
