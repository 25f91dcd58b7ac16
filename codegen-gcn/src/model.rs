//! `GcnKernelModel`: the verifier's view of a GCN kernel (implements
//! [`warptrace_verifier::KernelModel`]).
//!
//! - **Registers** are named as the instruction writes them (`s5`, `s[4:5]`, `vcc`,
//!   `exec`, `scc`) and [`KernelModel::parts`] gives the 32-bit registers a tuple or a
//!   64-bit special register occupies, so the checks see `s41` and `s[40:41]` overlap.
//!   `scc`, `vcc`, `exec` and `m0` are [`KernelModel::restorable`]: snippets save and
//!   restore them, and the verifier proves it.
//! - **Declarations**: the descriptor reserves `s0`…`s(next_free_sgpr − 1)`, the
//!   kernel's architectural VGPRs and its AGPRs for the kernel and its callees; they are
//!   declared with kernel origin, the registers the instrumenter added above them with
//!   inserted origin (snippet 0), so the verifier checks the allocation itself.
//! - **Guards**: a vector instruction's guard is `exec` (inactive lanes keep their old
//!   values); scalar instructions have none.
//! - **Memory**: `global_*` is global, `flat_*` generic, `ds_*` shared, `scratch_*` and
//!   `buffer_*` through the private segment buffer local, other `buffer_*` global, scalar
//!   loads const — except the map argument's load ([`MapArgLoad`]), a parameter load of
//!   [`crate::MAP_ARG`]. A `global_*` access with a scalar base is
//!   [`Addr::Indexed`] (`saddr` indexed by the 32-bit `vaddr`). A dword load of a
//!   hidden grid argument (`hidden_block_count_*`, `hidden_group_size_*`) from the intact
//!   kernarg pointer is a parameter load of that argument, which the model lists as
//!   readable (`KernelModel::readable_params`).
//! - **Compute**: `s_mov_b32/b64` and `v_mov_b32` of a register are copies;
//!   `s_cselect_b32/b64 d, -1, 0` copies `scc` into `d` and `s_cmp_lg_u32/u64 r, 0` copies
//!   `r` back into `scc` (an encoding of the one bit and its inverse, which together
//!   restore it); `v_lshl_add_u64 d, a, 0, b` adds; the map argument's load is a
//!   pointer-wide load of the parameter.

use crate::insn::{facts, Facts, Isa};
use crate::long_branch::{self, LongBranch};
use crate::parse::{Module, StmtKind};
use crate::reg::{parse_reg, Reg, RegFile};
use crate::MAP_ARG;
use warptrace_verifier::{
    Access, Addr, Compute, Instr, Item, KernelModel, MemRef, Name, Origin, Resource, ResourceKind,
    Space,
};

/// Where the map argument is: the kernarg pointer's SGPR pair and the argument's offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MapArgLoad {
    /// The kernarg segment pointer (`s[K:K+1]`).
    pub kernarg: Reg,
    /// Byte offset of the map argument in the kernarg segment.
    pub offset: u64,
}

/// The register ranges a descriptor reserves: (kernel's own, including the added ones).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RegisterCounts {
    /// SGPRs `s0`..`s(initial_sgprs - 1)` the launch initializes (user, then system).
    pub initial_sgprs: u32,
    /// SGPRs `s0`..`s(sgprs - 1)`.
    pub sgprs: u32,
    /// Architectural VGPRs `v0`..`v(vgprs - 1)`.
    pub vgprs: u32,
    /// AGPRs `a0`..`a(agprs - 1)`.
    pub agprs: u32,
}

impl RegisterCounts {
    /// The registers kernel `name`'s descriptor reserves (a missing count reads 0); `None`
    /// without the kernel.
    pub fn of(module: &Module, name: &str) -> Option<RegisterCounts> {
        let k = module.kernel(name)?;
        let agprs = module
            .metadata
            .as_ref()
            .and_then(|m| m.kernel(name))
            .and_then(|m| m.int(".agpr_count"))
            .unwrap_or(0) as u32;
        let vgprs = k.field(".amdhsa_next_free_vgpr").unwrap_or(0) as u32;
        let arch = match (agprs, k.field(".amdhsa_accum_offset")) {
            (0, _) => vgprs,
            (_, Some(a)) => a as u32,
            (_, None) => vgprs.saturating_sub(agprs),
        };
        let gfx940 = isa_of(module, name).is_some_and(|i| i.gfx940);
        Some(RegisterCounts {
            initial_sgprs: initial_sgprs(k, gfx940),
            sgprs: k.field(".amdhsa_next_free_sgpr").unwrap_or(0) as u32,
            vgprs: arch,
            agprs,
        })
    }
}

/// The verifier's model of one kernel.
#[derive(Debug, Clone)]
pub struct GcnKernelModel {
    name: String,
    items: Vec<Item>,
    declared: Vec<(String, Origin)>,
    resources: Vec<Resource>,
    map_param: Option<String>,
    readable: Vec<String>,
}

impl GcnKernelModel {
    /// Builds the model of kernel `name` of `module`. `origin` says who wrote each
    /// statement (by index); `kernel_regs` are the registers the original descriptor
    /// reserved and `regs` those this one reserves (the same for an unmodified kernel);
    /// `map` the map argument, when inserted.
    pub fn build(
        module: &Module,
        name: &str,
        origin: &dyn Fn(usize) -> Origin,
        kernel_regs: RegisterCounts,
        regs: RegisterCounts,
        map: Option<MapArgLoad>,
    ) -> Option<GcnKernelModel> {
        let k = module.kernel(name)?;
        let isa = isa_of(module, name)?;
        let mut items = Vec::new();
        // The kernarg pointer holds its launch value until a kernel instruction writes
        // it or control can come back from below (a label a later branch targets).
        let mut kernarg_intact = true;
        // The hidden grid arguments inserted code may read (`grid.rs`).
        let hidden = match (map, module.metadata.as_ref().and_then(|m| m.kernel(name))) {
            (Some(_), Some(meta)) => crate::grid::readable_dwords(meta),
            _ => Default::default(),
        };
        let branches = long_branch::Branches::of(module, k.body.clone());
        let long = long_branch::find(module, k.body.clone(), &branches, origin);
        let bounded = bounded_loops_with(module, k.body.clone(), origin, &isa, &long, &branches);
        // The inserted instruction just before, for a 64-bit scalar add (`add64`).
        let mut previous: Option<&crate::parse::Instruction> = None;
        for i in k.body.clone() {
            let stmt = &module.stmts[i];
            let o = origin(i);
            if long.iter().any(|b| b.skipped.contains(&i)) {
                // A long branch's complement and the label it skips to (`long_branch.rs`).
                previous = None;
                continue;
            }
            match &stmt.kind {
                StmtKind::Label(l) => {
                    previous = None;
                    let bounded_loop = bounded.iter().any(|w| w.label == i);
                    if i != k.body.start
                        && !bounded_loop
                        && targeted_from_below(&branches, &long, i, l)
                    {
                        kernarg_intact = false;
                    }
                    items.push(Item::Label {
                        name: l.clone().into(),
                        origin: o,
                    })
                }
                StmtKind::Instr(x) => {
                    if let Some(b) = long.iter().find(|b| b.setpc == i) {
                        // A long branch's jump: the kernel's branch it stands for.
                        let f = facts(&b.branch, &isa);
                        let text = &b.text;
                        let instr = to_instr(&f, &b.branch, &isa, text, stmt.line, Origin::Kernel);
                        items.push(Item::Instr(instr));
                        previous = None;
                        continue;
                    }
                    let f = facts(x, &isa);
                    let mut instr = to_instr(&f, x, &isa, module.stmt_text(i), stmt.line, o);
                    let added = (o != Origin::Kernel).then(|| add64(previous, x)).flatten();
                    if let Some((sum, pointer, offset)) = added {
                        instr.defs = vec![sum.name().into()];
                        instr.uses.push(pointer.name().into());
                        instr.compute = Compute::Add {
                            addends: std::iter::once(pointer.name().into())
                                .chain(offset.map(|r| r.name().into()))
                                .collect(),
                            offsets: Vec::new(),
                        };
                    }
                    previous = (o != Origin::Kernel).then_some(x);
                    if bounded.iter().any(|w| w.branch == i) {
                        // A bounded loop's back edge (`bounded_loops`): its
                        // rounds are one step of the snippet for the control-flow rules.
                        instr.flow = warptrace_verifier::Flow::Next;
                    }
                    if let (Some(m), true) = (map, kernarg_intact) {
                        if is_map_load(x, &f, m) {
                            instr.compute = Compute::LoadWord;
                            instr.mem = vec![MemRef {
                                space: Space::Param,
                                access: Access::Load,
                                addr: Addr::Symbol(MAP_ARG.into()),
                            }];
                        } else if let Some(arg) = (o != Origin::Kernel)
                            .then(|| hidden_load(x, &f, m, &hidden))
                            .flatten()
                        {
                            instr.mem = vec![MemRef {
                                space: Space::Param,
                                access: Access::Load,
                                addr: Addr::Symbol(arg.into()),
                            }];
                        }
                    }
                    if let Some(m) = map {
                        if o == Origin::Kernel && f.defs.iter().any(|d| d.overlaps(&m.kernarg)) {
                            kernarg_intact = false;
                        }
                    }
                    items.push(Item::Instr(instr));
                }
                StmtKind::Directive { .. } => {}
            }
        }
        let mut declared = Vec::new();
        let mut declare = |file: RegFile, from: u32, to: u32, o: Origin| {
            for i in from..to {
                declared.push((Reg::new(file, i, 1).name(), o));
            }
        };
        let inserted = Origin::Inserted { snippet: 0 };
        declare(RegFile::Sgpr, 0, kernel_regs.sgprs, Origin::Kernel);
        declare(RegFile::Sgpr, kernel_regs.sgprs, regs.sgprs, inserted);
        declare(RegFile::Vgpr, 0, kernel_regs.vgprs, Origin::Kernel);
        declare(RegFile::Vgpr, kernel_regs.vgprs, regs.vgprs, inserted);
        declare(RegFile::Agpr, 0, kernel_regs.agprs, Origin::Kernel);
        declare(RegFile::Agpr, kernel_regs.agprs, regs.agprs, inserted);
        let resources = resources(module, name, kernel_regs.initial_sgprs);
        Some(GcnKernelModel {
            name: name.to_owned(),
            items,
            declared,
            resources,
            map_param: map.map(|_| MAP_ARG.to_owned()),
            readable: hidden.into_values().collect(),
        })
    }
}

/// A loop of inserted code proved bounded (a waterfall or a counted loop): its label's and
/// its back branch's statements, and the most rounds it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BoundedLoop {
    pub label: usize,
    pub branch: usize,
    pub rounds: u64,
}

/// An instruction of a loop's shape, by its position relative to the loop's label (`-1`:
/// the one before it), when it is inserted code of the label's snippet.
type Relative<'a> = dyn Fn(isize) -> Option<&'a crate::parse::Instruction> + 'a;

/// The bounded loops of `body`: inserted code of one snippet in one of the shapes
/// [`waterfall_end`] and [`counted_end`] accept, whose back branch is the only branch to
/// its label. The verifier may treat their back edges as steps.
pub(crate) fn bounded_loops(
    module: &Module,
    body: std::ops::Range<usize>,
    origin: &dyn Fn(usize) -> Origin,
    isa: &Isa,
) -> Vec<BoundedLoop> {
    let branches = long_branch::Branches::of(module, body.clone());
    let long = long_branch::find(module, body.clone(), &branches, origin);
    bounded_loops_with(module, body, origin, isa, &long, &branches)
}

/// [`bounded_loops`] of a body whose long branches are `long` (`long_branch::find`) and
/// short ones `branches`.
fn bounded_loops_with(
    module: &Module,
    body: std::ops::Range<usize>,
    origin: &dyn Fn(usize) -> Origin,
    isa: &Isa,
    long: &[LongBranch],
    branches: &long_branch::Branches<'_>,
) -> Vec<BoundedLoop> {
    // The statements of the body that are not directives, nor the wait states a snippet
    // puts between the instructions of a loop's shape (`hazard.rs`).
    let stmts: Vec<usize> = body
        .clone()
        .filter(|&i| !matches!(module.stmts[i].kind, StmtKind::Directive { .. }))
        .filter(|&i| module.instr(i).is_none_or(|x| x.mnemonic != "s_nop"))
        .collect();
    let mut out = Vec::new();
    for (at, &label) in stmts.iter().enumerate() {
        let StmtKind::Label(name) = &module.stmts[label].kind else {
            continue;
        };
        let o = origin(label);
        if o == Origin::Kernel {
            continue;
        }
        let instr = |n: isize| {
            let i = *stmts.get(at.checked_add_signed(n)?)?;
            (origin(i) == o).then(|| module.instr(i)).flatten()
        };
        let Some((end, rounds)) = waterfall_end(&instr, name, isa)
            .map(|end| (end, u64::from(isa.wave)))
            .or_else(|| counted_end(&instr, name, isa))
        else {
            continue;
        };
        if branches_to(branches, long, name) == 1 {
            out.push(BoundedLoop {
                label,
                branch: stmts[at + end],
                rounds,
            });
        }
    }
    out
}

/// Operand `n` of `x` as a register.
fn reg_of(x: &crate::parse::Instruction, n: usize) -> Option<Reg> {
    x.operands.get(n).and_then(|o| o.reg)
}

/// The position of the back branch of a waterfall loop (`warp_access.rs`) at label
/// `name`, of exactly the shape
///
/// ```text
/// L:  v_readfirstlane_b32 sA, vK
///     v_readfirstlane_b32 sA+1, vK+1
///     v_cmp_eq_u64_e64 M, s[A:A+1], v[K:K+1]
///     s_mov_b64 P, exec
///     ...                 ; instructions that neither branch nor write M or P
///     s_andn2_b64 exec, P, M
///     s_cbranch_execnz L
/// ```
///
/// (wave32: `exec_lo`, `_b32` masks). Such a loop ends: `exec` at `L` is `P`; `M` holds
/// the lanes of `P` whose key equals the first lane's key — the first lane among them
/// (`v_cmp` under `exec = P` compares it with its own key); the next round's `exec` is
/// `P & !M`, strictly fewer lanes, and the loop leaves when none remain. So it runs at
/// most as many rounds as the wave has lanes (decision 0021).
fn waterfall_end(instr: &Relative<'_>, name: &str, isa: &Isa) -> Option<usize> {
    let exec = Reg::exec(isa.wave);
    let mask = if isa.wave == 64 { "_b64" } else { "_b32" };
    let reg = reg_of;
    let (r0, r1, cmp, mov) = (instr(1)?, instr(2)?, instr(3)?, instr(4)?);
    let (a, k0) = (reg(r0, 0)?, reg(r0, 1)?);
    let (b, k1) = (reg(r1, 0)?, reg(r1, 1)?);
    let (m, key_s, key_v) = (reg(cmp, 0)?, reg(cmp, 1)?, reg(cmp, 2)?);
    let (p, from) = (reg(mov, 0)?, reg(mov, 1)?);
    let head = r0.mnemonic == "v_readfirstlane_b32"
        && r1.mnemonic == "v_readfirstlane_b32"
        && cmp.mnemonic == "v_cmp_eq_u64_e64"
        && mov.mnemonic == format!("s_mov{mask}")
        && a.file == RegFile::Sgpr
        && k0.file == RegFile::Vgpr
        && b == Reg::new(RegFile::Sgpr, a.first + 1, 1)
        && k1 == Reg::new(RegFile::Vgpr, k0.first + 1, 1)
        && key_s == Reg::new(RegFile::Sgpr, a.first, 2)
        && key_v == Reg::new(RegFile::Vgpr, k0.first, 2)
        && m.file == RegFile::Sgpr
        && p.file == RegFile::Sgpr
        && !m.overlaps(&p)
        && from == exec;
    if !head {
        return None;
    }
    // The round, up to `s_andn2 exec, P, M; s_cbranch_execnz L`.
    let mut n = 5;
    loop {
        let x = instr(n)?;
        if x.mnemonic == format!("s_andn2{mask}")
            && [reg(x, 0), reg(x, 1), reg(x, 2)] == [Some(exec), Some(p), Some(m)]
        {
            let back = instr(n + 1)?;
            let ok = back.mnemonic == "s_cbranch_execnz"
                && back.operands.first().is_some_and(|t| t.text == name);
            return ok.then_some(n as usize + 1);
        }
        if !round_step(x, isa, &[m, p]) {
            return None;
        }
        n += 1;
    }
}

/// The most rounds a counted loop may run (a 64-bit division's).
const MAX_ROUNDS: i64 = 64;

/// The position of the back branch of a counted loop (`alu.rs`'s division) at label
/// `name` and its rounds, of exactly the shape
///
/// ```text
///     s_mov_b32 sC, N     ; 1 ≤ N ≤ 64
/// L:  ...                 ; instructions that neither branch nor write sC
///     s_sub_u32 sC, sC, 1
///     s_cmp_lg_u32 sC, 0
///     s_cbranch_scc1 L
/// ```
///
/// Such a loop ends: `sC` is `N` at the first round, the round writes it only in its
/// decrement, and the back branch is taken while it is not zero, so it runs `N` rounds
/// (decision 0027).
fn counted_end(instr: &Relative<'_>, name: &str, isa: &Isa) -> Option<(usize, u64)> {
    let imm = |x: &crate::parse::Instruction, n: usize| x.operands.get(n).and_then(|o| o.imm);
    let init = instr(-1)?;
    let count = reg_of(init, 0)?;
    let rounds = imm(init, 1).filter(|n| (1..=MAX_ROUNDS).contains(n))?;
    if init.mnemonic != "s_mov_b32" || count.file != RegFile::Sgpr || count.count != 1 {
        return None;
    }
    let mut n = 1;
    loop {
        let x = instr(n)?;
        if x.mnemonic == "s_sub_u32" {
            let (cmp, back) = (instr(n + 1)?, instr(n + 2)?);
            let ok = [reg_of(x, 0), reg_of(x, 1)] == [Some(count), Some(count)]
                && imm(x, 2) == Some(1)
                && cmp.mnemonic == "s_cmp_lg_u32"
                && reg_of(cmp, 0) == Some(count)
                && imm(cmp, 1) == Some(0)
                && back.mnemonic == "s_cbranch_scc1"
                && back.operands.first().is_some_and(|t| t.text == name);
            return ok.then_some((n as usize + 2, rounds as u64));
        }
        if !round_step(x, isa, &[count]) {
            return None;
        }
        n += 1;
    }
}

/// Whether `x` may be an instruction of a bounded loop's round: it does not branch and
/// writes none of `kept`.
fn round_step(x: &crate::parse::Instruction, isa: &Isa, kept: &[Reg]) -> bool {
    let f = facts(x, isa);
    f.flow == warptrace_verifier::Flow::Next
        && !f.defs.iter().any(|d| kept.iter().any(|k| d.overlaps(k)))
}

/// The branches to label `name`, the long ones (`long`) included.
fn branches_to(branches: &long_branch::Branches<'_>, long: &[LongBranch], name: &str) -> usize {
    branches.to(name) + long.iter().filter(|b| b.target() == name).count()
}

/// Whether a branch after statement `at`, long ones (`long`) included, targets label `l`.
fn targeted_from_below(
    branches: &long_branch::Branches<'_>,
    long: &[LongBranch],
    at: usize,
    l: &str,
) -> bool {
    branches.to_after(l, at) || long.iter().any(|b| b.setpc > at && b.target() == l)
}

/// A 64-bit scalar add of inserted code, `s_add_u32 dLo, pLo, X` right before
/// `s_addc_u32 dHi, pHi, 0` (`x`): the pair `d` = the pair `p` + `X` (an SGPR, or an
/// immediate: `None`), with the carry through `scc`, which nothing between them writes.
/// (The prologue offsets the map argument to a block's copy of the buffer this way.)
fn add64(
    previous: Option<&crate::parse::Instruction>,
    x: &crate::parse::Instruction,
) -> Option<(Reg, Reg, Option<Reg>)> {
    let prev = previous?;
    let reg = |i: &crate::parse::Instruction, n: usize| {
        let o = i.operands.get(n)?;
        let r = o.reg.filter(|r| r.file == RegFile::Sgpr && r.count == 1)?;
        (o.text == r.name()).then_some(r)
    };
    let (lo, p_lo) = (reg(prev, 0)?, reg(prev, 1)?);
    let (hi, p_hi) = (reg(x, 0)?, reg(x, 1)?);
    let offset = match prev.operands.get(2)? {
        o if o.imm.is_some() => None,
        _ => Some(reg(prev, 2)?),
    };
    let shape = prev.mnemonic == "s_add_u32"
        && x.mnemonic == "s_addc_u32"
        && prev.modifiers.is_empty()
        && x.modifiers.is_empty()
        && x.operands.get(2).and_then(|o| o.imm) == Some(0)
        && x.operands.len() == 3
        && prev.operands.len() == 3
        && lo.first % 2 == 0
        && p_lo.first % 2 == 0
        && hi.first == lo.first + 1
        && p_hi.first == p_lo.first + 1
        && offset.is_none_or(|r| r != lo);
    shape.then(|| {
        (
            Reg::new(RegFile::Sgpr, lo.first, 2),
            Reg::new(RegFile::Sgpr, p_lo.first, 2),
            offset,
        )
    })
}

/// `s_load_dwordx2 d, kernarg, offset` of the map argument.
fn is_map_load(x: &crate::parse::Instruction, f: &Facts, m: MapArgLoad) -> bool {
    let Some(a) = &f.mem else { return false };
    matches!(x.mnemonic.as_str(), "s_load_dwordx2" | "s_load_b64")
        && a.addr == Some(m.kernarg)
        && a.offset == m.offset as i64
        && a.dst.is_some_and(|d| d.count == 2)
}

/// `s_load_dword d, kernarg, offset` of a readable hidden argument's dword: its name.
fn hidden_load(
    x: &crate::parse::Instruction,
    f: &Facts,
    m: MapArgLoad,
    hidden: &std::collections::BTreeMap<u64, String>,
) -> Option<String> {
    let a = f.mem.as_ref()?;
    let dword = matches!(x.mnemonic.as_str(), "s_load_dword" | "s_load_b32")
        && a.addr == Some(m.kernarg)
        && a.dst.is_some_and(|d| d.count == 1);
    let offset = u64::try_from(a.offset).ok()?;
    dword.then(|| hidden.get(&offset).cloned()).flatten()
}

/// The ISA facts of kernel `name`.
pub(crate) fn isa_of(module: &Module, name: &str) -> Option<Isa> {
    let k = module.kernel(name)?;
    let wave = if k.field(".amdhsa_wavefront_size32") == Some(1) {
        32
    } else {
        64
    };
    let processor = module.processor.as_deref().unwrap_or("gfx900");
    let scratch = (k.field(".amdhsa_user_sgpr_private_segment_buffer") == Some(1))
        .then(|| Reg::new(RegFile::Sgpr, 0, 4));
    Some(Isa::new(processor, wave, scratch))
}

fn to_instr(
    f: &Facts,
    x: &crate::parse::Instruction,
    isa: &Isa,
    text: &str,
    line: u32,
    origin: Origin,
) -> Instr {
    let name = |r: &Reg| Name::from(r.name());
    let mut uses: Vec<Name> = f.uses.iter().map(name).collect();
    let exec = Name::from(Reg::exec(isa.wave).name());
    let guard = f.vector.then(|| exec.clone());
    if f.vector && !uses.contains(&exec) {
        uses.push(exec);
    }
    let mem = f
        .mem
        .iter()
        .map(|a| MemRef {
            space: a.space,
            access: a.access,
            addr: match (a.space, a.addr, a.saddr) {
                (Space::Global, Some(v), Some(s)) if !x.mnemonic.starts_with("buffer_") => {
                    Addr::Indexed {
                        base: s.name().into(),
                        index: vec![v.name().into()],
                    }
                }
                (Space::Global, None, Some(s)) => Addr::Reg(s.name().into()),
                (_, Some(v), Some(s)) => Addr::Other(vec![v.name().into(), s.name().into()]),
                (_, Some(v), None) => Addr::Reg(v.name().into()),
                (_, None, Some(s)) => Addr::Other(vec![s.name().into()]),
                (_, None, None) => Addr::Other(Vec::new()),
            },
        })
        .collect();
    Instr {
        origin,
        defs: f.defs.iter().map(name).collect(),
        uses,
        flow: f.flow.clone(),
        mem,
        guard,
        compute: compute(x, f),
        text: text.to_owned(),
        line,
    }
}

/// What `x` computes for provenance and the save/restore proof.
fn compute(x: &crate::parse::Instruction, f: &Facts) -> Compute {
    let m = x.mnemonic.as_str();
    let op = |i: usize| x.operands.get(i);
    let reg = |i: usize| op(i).and_then(|o| o.reg).map(|r| Name::from(r.name()));
    let imm = |i: usize| op(i).and_then(|o| o.imm);
    let plain = |i: usize| op(i).is_some_and(|o| o.reg.is_some_and(|r| o.text == r.name()));
    match m {
        "s_mov_b32" | "s_mov_b64" | "v_mov_b32" | "v_mov_b32_e32" | "v_mov_b64"
        | "v_mov_b64_e32"
            if plain(1) && x.modifiers.is_empty() =>
        {
            reg(1).map_or(Compute::Opaque, Compute::Copy)
        }
        "s_cselect_b32" | "s_cselect_b64" if imm(1) == Some(-1) && imm(2) == Some(0) => {
            Compute::Copy(Reg::SCC.name().into())
        }
        "s_cmp_lg_u32" | "s_cmp_lg_u64" if plain(0) && imm(1) == Some(0) => {
            reg(0).map_or(Compute::Opaque, Compute::Copy)
        }
        "v_lshl_add_u64" if plain(1) && plain(3) && imm(2) == Some(0) && f.defs.len() == 1 => {
            match (reg(1), reg(3)) {
                (Some(a), Some(b)) => Compute::Add {
                    addends: vec![a, b],
                    offsets: Vec::new(),
                },
                _ => Compute::Opaque,
            }
        }
        _ => Compute::Opaque,
    }
}

/// The system SGPR fields, in the order the launch initializes their SGPRs (after the
/// user SGPRs): the workgroup ids, the workgroup info, the private segment's wavefront
/// offset.
pub(crate) const SYSTEM_SGPRS: [&str; 5] = [
    ".amdhsa_system_sgpr_workgroup_id_x",
    ".amdhsa_system_sgpr_workgroup_id_y",
    ".amdhsa_system_sgpr_workgroup_id_z",
    ".amdhsa_system_sgpr_workgroup_info",
    ".amdhsa_system_sgpr_private_segment_wavefront_offset",
];

/// The system SGPRs kernel `k`'s launch initializes, in order: those of [`SYSTEM_SGPRS`]
/// its descriptor enables. The wavefront offset is also enabled by
/// `.amdhsa_enable_private_segment` where there is no architected flat scratch (before
/// gfx940).
pub(crate) fn system_sgprs(k: &crate::parse::Kernel, gfx940: bool) -> Vec<&'static str> {
    SYSTEM_SGPRS
        .into_iter()
        .filter(|f| {
            k.field(f) == Some(1)
                || (f.ends_with("wavefront_offset")
                    && !gfx940
                    && k.field(".amdhsa_enable_private_segment") == Some(1))
        })
        .collect()
}

/// The SGPRs kernel `k`'s launch initializes: the user SGPRs, then the system ones.
pub(crate) fn initial_sgprs(k: &crate::parse::Kernel, gfx940: bool) -> u32 {
    k.field(".amdhsa_user_sgpr_count").unwrap_or(0) as u32 + system_sgprs(k, gfx940).len() as u32
}

/// The descriptor fields and metadata keys that size a launch's resources, and the
/// system SGPRs the launch initializes (`initial s3: …_workgroup_id_y`); those past the
/// first `kernel_initial` SGPRs are the instrumenter's (an enabled workgroup id).
fn resources(module: &Module, name: &str, kernel_initial: u32) -> Vec<Resource> {
    let Some(k) = module.kernel(name) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let gfx940 = isa_of(module, name).is_some_and(|i| i.gfx940);
    let user = k.field(".amdhsa_user_sgpr_count").unwrap_or(0) as u32;
    for (n, field) in system_sgprs(k, gfx940).into_iter().enumerate() {
        let at = user + n as u32;
        let line = k
            .fields
            .iter()
            .find(|(f, _, _)| f == field)
            .map_or(0, |(_, _, i)| module.stmts[*i].line);
        out.push(Resource {
            kind: ResourceKind::InitialRegister,
            text: format!("initial s{at}: {field}"),
            origin: if at < kernel_initial {
                Origin::Kernel
            } else {
                Origin::Inserted { snippet: 0 }
            },
            line,
        });
    }
    for (field, value, i) in &k.fields {
        if SYSTEM_SGPRS.contains(&field.as_str()) {
            continue;
        }
        let kind = match field.as_str() {
            ".amdhsa_group_segment_fixed_size" => ResourceKind::Shared,
            ".amdhsa_private_segment_fixed_size"
            | ".amdhsa_uses_dynamic_stack"
            | ".amdhsa_enable_private_segment" => ResourceKind::Local,
            f if f.starts_with(".amdhsa_user_sgpr_")
                || f.starts_with(".amdhsa_system_")
                || f == ".amdhsa_wavefront_size32" =>
            {
                ResourceKind::LaunchBound
            }
            _ => continue,
        };
        out.push(Resource {
            kind,
            text: format!("{field} {value}"),
            origin: Origin::Kernel,
            line: module.stmts[*i].line,
        });
    }
    if let Some(mk) = module.metadata.as_ref().and_then(|m| m.kernel(name)) {
        for key in &mk.keys {
            let kind = match key.key.as_str() {
                ".group_segment_fixed_size" => ResourceKind::Shared,
                ".private_segment_fixed_size" => ResourceKind::Local,
                ".max_flat_workgroup_size" | ".wavefront_size" | ".uniform_work_group_size" => {
                    ResourceKind::LaunchBound
                }
                _ => continue,
            };
            out.push(Resource {
                kind,
                text: format!("{}: {}", key.key, key.value),
                origin: Origin::Kernel,
                line: 0,
            });
        }
    }
    out
}

impl KernelModel for GcnKernelModel {
    fn kernel_name(&self) -> &str {
        &self.name
    }

    fn items(&self) -> Vec<Item> {
        self.items.clone()
    }

    fn items_ref(&self) -> std::borrow::Cow<'_, [Item]> {
        std::borrow::Cow::Borrowed(&self.items)
    }

    fn declared_registers(&self) -> Vec<(String, Origin)> {
        self.declared.clone()
    }

    fn map_param(&self) -> Option<String> {
        self.map_param.clone()
    }

    fn resources(&self) -> Vec<Resource> {
        self.resources.clone()
    }

    fn parts(&self, reg: &str) -> Option<Vec<String>> {
        let r = parse_reg(reg)?;
        (r.count > 1).then(|| r.parts().iter().map(Reg::name).collect())
    }

    fn readable_params(&self) -> Vec<String> {
        self.readable.clone()
    }

    fn restorable(&self) -> Vec<String> {
        ["scc", "vcc_lo", "vcc_hi", "exec_lo", "exec_hi", "m0"]
            .map(String::from)
            .to_vec()
    }
}
