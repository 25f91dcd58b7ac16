//! Wait states a snippet needs: the hardware does not interlock some register
//! dependencies, and the compiler separates them with `s_nop` (gfx9) or
//! `s_waitcnt_depctr` (gfx11). The kernel as LLVM emitted it is free of them; a snippet
//! spliced into it must be too — inside itself, against whatever kernel instruction came
//! just before it, and against whatever comes just after (decision 0030).
//!
//! The rules are LLVM's (`GCNHazardRecognizer.cpp`) for the instructions a snippet
//! issues, counted as LLVM counts them: every instruction is one wait state, `s_nop N`
//! is `N + 1`, and a hazard's source is the most recent *VALU* write of the register (a
//! scalar write in between neither makes nor clears one).
//!
//! | target | source → consumer | wait states |
//! |---|---|---|
//! | gfx9 | VALU writes an SGPR, `vcc` or `exec` → a global/flat/buffer access reads it (`exec` implicitly) | 5 |
//! | gfx9 | VALU writes `vcc` → `v_div_fmas`; VALU writes a lane select → `v_readlane`/`v_writelane` | 4 |
//! | gfx9 | a store or atomic of more than 64 bits of data → a VALU writes its data VGPRs | 1 (gfx940: 2) |
//! | gfx940 | VALU writes an SGPR or `vcc` → a VALU reads it | 2 |
//! | gfx940 | VALU writes `exec` → `v_readlane`/`v_readfirstlane`/`v_writelane` | 4 |
//! | gfx940 | VALU writes a VGPR → `v_readlane`/`v_readfirstlane` reads it | 1 |
//! | gfx11 | a transcendental VALU writes a VGPR → a VALU reads it (within 5 VALUs) | `s_waitcnt_depctr 0x0fff` |
//!
//! Before a snippet the kernel may have written any of its registers with a VALU right
//! away (a `v_cmpx` writes `exec`); after it, the kernel may read any of them at once. So
//! the analysis starts with every kernel register just written, and ends by padding until
//! no register the snippet wrote with a VALU can hurt the next instruction. Branch
//! targets take the nearest source over their predecessors; a loop is walked until its
//! head's state no longer changes. Not modelled, because a snippet cannot meet them: DPP
//! and MFMA operands (a snippet reads no kernel VGPR but a site's data or address, right
//! before or after the kernel's own access, which LLVM already separated from an MFMA),
//! transcendental instructions (none in a snippet), `s_setreg`, `m0` (never written), and
//! gfx90a's 64-bit shift by a VGPR at an index ≡ 7 (mod 8) (a snippet's amounts are
//! constants or the low half of an even-aligned pair). gfx10.3 has none of these; gfx10.1
//! and gfx11 in wave64 have hazards this pass does not model, and the back end does not
//! instrument them (`plan.rs`).

use crate::insn::{facts, Facts, Isa};
use crate::parse::{parse, Module, StmtKind};
use crate::reg::{Reg, RegFile};
use crate::Error;
use std::collections::{BTreeMap, BTreeSet};
use warptrace_verifier::Flow;

/// One 32-bit register.
type Unit = (RegFile, u32);

fn units(r: &Reg) -> impl Iterator<Item = Unit> + '_ {
    (r.first..r.first + r.count).map(move |i| (r.file, i))
}

fn scalar(u: &Unit) -> bool {
    !matches!(u.0, RegFile::Vgpr | RegFile::Agpr | RegFile::Scc)
}

/// Wait states since each register's last VALU write, and since each wide store's data
/// was read; `kernel`: since the snippet began, for every kernel register.
#[derive(Debug, Clone, Default, PartialEq)]
struct State {
    valu: BTreeMap<Unit, u32>,
    wide: BTreeMap<Unit, u32>,
    kernel: Option<u32>,
    /// The registers the vector memory accesses right before write and read (a soft
    /// clause: replayed from its start after an XNACK).
    clause: Option<(BTreeSet<Unit>, BTreeSet<Unit>)>,
}

impl State {
    fn advance(&mut self, n: u32) {
        for d in self.valu.values_mut().chain(self.wide.values_mut()) {
            *d = d.saturating_add(n);
        }
        if let Some(k) = &mut self.kernel {
            *k = k.saturating_add(n);
        }
    }
    /// The nearest of two predecessors' sources.
    fn meet(&mut self, o: &State) {
        for (map, other) in [(&mut self.valu, &o.valu), (&mut self.wide, &o.wide)] {
            for (u, d) in other {
                map.entry(*u)
                    .and_modify(|x| *x = (*x).min(*d))
                    .or_insert(*d);
            }
        }
        self.kernel = match (self.kernel, o.kernel) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        if let Some((d, u)) = &o.clause {
            let (sd, su) = self.clause.get_or_insert_with(Default::default);
            sd.extend(d);
            su.extend(u);
        }
    }
}

/// What the analysis needs of the target and the kernel.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Frame {
    pub isa: Isa,
    /// The kernel's own SGPRs and VGPRs (the snippet's are above them).
    pub kernel_sgprs: u32,
    pub kernel_vgprs: u32,
    /// The soft-clause rule applies: XNACK is on or "any" (LLVM's default; a snippet is
    /// padded as if it were, whatever the target says).
    pub clauses: bool,
}

impl Frame {
    fn is_kernel(&self, u: &Unit) -> bool {
        match u.0 {
            RegFile::Sgpr => u.1 < self.kernel_sgprs,
            RegFile::Vgpr => u.1 < self.kernel_vgprs,
            RegFile::Scc => false,
            _ => true,
        }
    }
    /// Wait states since the last VALU write of `u`, if one is near enough to matter.
    fn since(&self, s: &State, u: &Unit) -> Option<u32> {
        let own = s.valu.get(u).copied();
        let kernel = s.kernel.filter(|_| self.is_kernel(u));
        match (own, kernel) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

fn is_valu(m: &str) -> bool {
    m.starts_with("v_")
}

/// A vector memory access other than LDS (LLVM's VMEM and FLAT).
fn is_vmem(m: &str) -> bool {
    crate::insn::is_vmem(m) && !m.starts_with("ds_")
}

fn lane_op(m: &str) -> bool {
    m.starts_with("v_readlane") || m.starts_with("v_readfirstlane") || m.starts_with("v_writelane")
}

/// The wait states instruction `m` with `f` still needs after state `s`.
fn needed(fr: &Frame, s: &State, m: &str, f: &Facts) -> u32 {
    let mut need = 0u32;
    let mut require = |n: u32, since: Option<u32>| {
        if let Some(d) = since {
            need = need.max(n.saturating_sub(d));
        }
    };
    let gfx940 = fr.isa.gfx940;
    for r in &f.uses {
        for u in units(r) {
            if scalar(&u) {
                if is_vmem(m) {
                    require(5, fr.since(s, &u));
                }
                if m.starts_with("v_div_fmas") && u.0 == RegFile::Vcc {
                    require(4, fr.since(s, &u));
                }
                if (m.starts_with("v_readlane") || m.starts_with("v_writelane"))
                    && u.0 != RegFile::Exec
                {
                    require(4, fr.since(s, &u));
                }
                if gfx940 && is_valu(m) {
                    if u.0 == RegFile::Exec {
                        if lane_op(m) {
                            require(4, fr.since(s, &u));
                        }
                    } else {
                        require(2, fr.since(s, &u));
                    }
                }
            } else if gfx940 && (m.starts_with("v_readlane") || m.starts_with("v_readfirstlane")) {
                require(1, fr.since(s, &u));
            }
        }
    }
    if is_valu(m) {
        for u in f.defs.iter().flat_map(units) {
            require(if gfx940 { 2 } else { 1 }, s.wide.get(&u).copied());
        }
    }
    if fr.clauses && is_vmem(m) && breaks_clause(s, f) {
        need = need.max(1);
    }
    need
}

/// Whether vector memory access `f` may not join the clause of those right before it:
/// the clause would write a register it reads, or `f` is a store after one that writes
/// (LLVM's soft-clause rule with XNACK on or "any", the default).
fn breaks_clause(s: &State, f: &Facts) -> bool {
    let Some((defs, uses)) = &s.clause else {
        return false;
    };
    let store = f
        .mem
        .as_ref()
        .is_some_and(|a| a.access == warptrace_verifier::Access::Store);
    let d: BTreeSet<Unit> = defs
        .iter()
        .copied()
        .chain(f.defs.iter().flat_map(units))
        .collect();
    (store && !defs.is_empty())
        || f.uses.iter().flat_map(units).any(|u| d.contains(&u))
        || uses.iter().any(|u| d.contains(u))
}

/// Records what `m` leaves behind; `broke`: wait states came right before it.
fn record(s: &mut State, m: &str, f: &Facts, broke: bool) {
    if is_vmem(m) {
        let (mut d, mut u) = match s.clause.take() {
            Some(c) if !broke => c,
            _ => Default::default(),
        };
        d.extend(f.defs.iter().flat_map(units));
        u.extend(f.uses.iter().flat_map(units));
        s.clause = Some((d, u));
    } else {
        s.clause = None;
    }
    if is_valu(m) {
        for u in f.defs.iter().flat_map(units) {
            if u.0 != RegFile::Scc {
                s.valu.insert(u, 0);
            }
        }
    }
    if let Some(a) = &f.mem {
        let data = a.data.filter(|d| d.count > 2);
        if let (true, Some(d)) = (is_vmem(m), data) {
            for u in units(&d) {
                s.wide.insert(u, 0);
            }
        }
    }
}

/// The wait states an instruction counts for.
fn wait_states(m: &str, imm: Option<i64>) -> u32 {
    if m == "s_nop" {
        imm.map_or(1, |n| n as u32 + 1)
    } else {
        1
    }
}

/// The most wait states one `s_nop` gives.
const NOP_MAX: u32 = 8;

/// The extra wait states each instruction of `range` of `m` needs (by statement), and
/// those its end needs before an unknown next instruction; `kernel_before`: an unknown
/// kernel instruction comes right before (every kernel register just written by a VALU).
fn insertions(
    m: &crate::parse::Module,
    range: std::ops::Range<usize>,
    fr: &Frame,
    kernel_before: bool,
) -> Result<(BTreeMap<usize, u32>, u32), Error> {
    let mut extra: BTreeMap<usize, u32> = BTreeMap::new();
    let mut back: BTreeMap<String, State> = BTreeMap::new();
    for _ in 0..16 {
        let mut s = State {
            kernel: kernel_before.then_some(0),
            ..State::default()
        };
        let mut forward: BTreeMap<String, State> = BTreeMap::new();
        let mut seen: Vec<String> = Vec::new();
        let mut grew = false;
        let mut new_back = BTreeMap::new();
        for i in range.clone() {
            match &m.stmts[i].kind {
                StmtKind::Label(l) => {
                    if let Some(f) = forward.remove(l) {
                        s.meet(&f);
                    }
                    if let Some(b) = back.get(l) {
                        s.meet(b);
                    }
                    seen.push(l.clone());
                }
                StmtKind::Instr(x) => {
                    let f = facts(x, &fr.isa);
                    let need = needed(fr, &s, &x.mnemonic, &f);
                    let have = extra.entry(i).or_insert(0);
                    if need > *have {
                        *have = need;
                        grew = true;
                    }
                    // The nops before it, then the instruction itself: a source right
                    // before an instruction is 0 wait states from it.
                    let imm = x.operands.first().and_then(|o| o.imm);
                    s.advance(*have + wait_states(&x.mnemonic, imm));
                    record(&mut s, &x.mnemonic, &f, *have > 0);
                    if let Flow::Branch {
                        target,
                        conditional,
                    } = &f.flow
                    {
                        let t = target.to_string();
                        let at = s.clone();
                        if seen.contains(&t) {
                            new_back.insert(t, at);
                        } else {
                            forward
                                .entry(t)
                                .and_modify(|st: &mut State| st.meet(&at))
                                .or_insert(at);
                        }
                        if !conditional {
                            s = State::default();
                        }
                    }
                    if matches!(f.flow, Flow::Exit) {
                        s = State::default();
                    }
                }
                StmtKind::Directive { .. } => {}
            }
        }
        if !grew && new_back == back {
            extra.retain(|_, n| *n > 0);
            // After the snippet: the next kernel instruction may read any register a
            // VALU of the snippet wrote (5 wait states for a memory access).
            let end = s
                .valu
                .iter()
                .filter(|(u, _)| scalar(u))
                .map(|(_, d)| 5u32.saturating_sub(*d))
                .max()
                .unwrap_or(0);
            return Ok((extra, end));
        }
        back = new_back;
    }
    Err(crate::lower::unsupported(
        "wait states for a snippet's hazards: the analysis of its loops did not settle",
    ))
}

/// `snippet` with the wait states its hazards need: `s_nop`s on gfx9, a
/// `s_waitcnt_depctr` first on gfx11; unchanged on gfx10.
pub(crate) fn pad(snippet: &str, fr: &Frame, gfx11: bool) -> Result<String, Error> {
    if gfx11 {
        // A kernel transcendental's result read by the snippet (a site's data): wait for
        // every VALU result. LLVM recognises exactly this field value (`va_vdst(0)`).
        return Ok(format!("\ts_waitcnt_depctr 0x0fff\n{snippet}"));
    }
    if !fr.isa.gfx9 {
        return Ok(snippet.to_owned());
    }
    let m = parse(snippet)?;
    let (extra, end_pad) = insertions(&m, 0..m.stmts.len(), fr, true)?;
    let mut out = String::with_capacity(snippet.len() + 16 * extra.len());
    let nops = |out: &mut String, mut n: u32| {
        while n > 0 {
            let k = n.min(NOP_MAX);
            out.push_str(&format!("\ts_nop {}\n", k - 1));
            n -= k;
        }
    };
    let mut before: BTreeMap<u32, u32> = BTreeMap::new();
    for (i, n) in &extra {
        before.insert(m.stmts[*i].line, *n);
    }
    for (n, line) in snippet.lines().enumerate() {
        if let Some(k) = before.get(&(n as u32 + 1)) {
            nops(&mut out, *k);
        }
        out.push_str(line);
        out.push('\n');
    }
    nops(&mut out, end_pad);
    Ok(out)
}

/// One place a module's code lacks wait states by [`pad`]'s rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hazard {
    /// The kernel.
    pub kernel: String,
    /// 1-based line of the instruction that comes too soon.
    pub line: u32,
    /// The wait states missing before it.
    pub missing: u32,
}

/// Where the kernels of `asm` lack wait states by the rules [`pad`] applies (gfx9
/// targets; none elsewhere), each kernel analysed from its entry. The corpus as LLVM
/// emitted it has none, and neither may an instrumented module.
pub fn hazards(asm: &str) -> Result<Vec<Hazard>, Error> {
    let m = parse(asm)?;
    let mut out = Vec::new();
    for k in &m.kernels {
        out.extend(kernel_hazards(&m, &k.name)?);
    }
    Ok(out)
}

/// The hazards of `instrumented` that instrumenting `original` added: at an inserted
/// instruction, or at a kernel instruction that had none in `original` (kernel
/// instructions are matched in order by their text, as `verify_spliced` matches them).
/// A hazard of the kernel's own code, which no rule LLVM follows would leave, is not the
/// instrumentation's.
pub fn added_hazards(original: &str, instrumented: &str) -> Result<Vec<Hazard>, Error> {
    let (before, after) = (parse(original)?, parse(instrumented)?);
    let mut out = Vec::new();
    for k in &after.kernels {
        out.extend(added_to(&before, &after, &k.name)?);
    }
    Ok(out)
}

/// [`added_hazards`] of kernel `name` alone, on the parsed modules: the kernel-level
/// check every instrumented kernel passes (`verify.rs`).
pub(crate) fn added_to(before: &Module, after: &Module, name: &str) -> Result<Vec<Hazard>, Error> {
    let new = kernel_hazards(after, name)?;
    if new.is_empty() {
        return Ok(new);
    }
    // A kernel's instructions: (statement, text).
    let own = |m: &Module| -> Vec<(usize, String)> {
        m.kernel(name).map_or(Vec::new(), |k| {
            k.body
                .clone()
                .filter(|&i| m.instr(i).is_some())
                .map(|i| (i, m.stmt_text(i).to_owned()))
                .collect()
        })
    };
    let old = kernel_hazards(before, name)?;
    let texts = own(before);
    // The places among the kernel's instructions that had a hazard before.
    let had: BTreeSet<usize> = texts
        .iter()
        .enumerate()
        .filter(|(_, (i, _))| old.iter().any(|o| o.line == before.stmts[*i].line))
        .map(|(n, _)| n)
        .collect();
    // The line of each kernel instruction after instrumenting, to its place.
    let (mut place, mut j) = (BTreeMap::new(), 0);
    for (i, text) in own(after) {
        if texts.get(j).is_some_and(|(_, t)| *t == text) {
            place.insert(after.stmts[i].line, j);
            j += 1;
        }
    }
    Ok(new
        .into_iter()
        .filter(|h| !place.get(&h.line).is_some_and(|n| had.contains(n)))
        .collect())
}

/// The hazards of kernel `name` of `m` (none when `m` lacks it or it is not gfx9).
fn kernel_hazards(m: &Module, name: &str) -> Result<Vec<Hazard>, Error> {
    let (Some(k), Some(isa)) = (m.kernel(name), crate::model::isa_of(m, name)) else {
        return Ok(Vec::new());
    };
    if !isa.gfx9 {
        return Ok(Vec::new());
    }
    // `.amdgcn_target "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-"`: no soft clauses to
    // break (LLVM breaks none there).
    let xnack_off = m.stmts.iter().any(|s| {
        matches!(&s.kind, StmtKind::Directive { name, args }
            if name == ".amdgcn_target" && args.contains(":xnack-"))
    });
    let fr = Frame {
        isa,
        kernel_sgprs: 0,
        kernel_vgprs: 0,
        clauses: !xnack_off,
    };
    let (extra, _) = insertions(m, k.body.clone(), &fr, false)?;
    Ok(extra
        .into_iter()
        .map(|(i, missing)| Hazard {
            kernel: name.to_owned(),
            line: m.stmts[i].line,
            missing,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    const CORPUS: &[(&str, &str)] = &[
        (
            "hip_kernels_gfx942.s",
            include_str!("../../tests/corpus/gcn/hip_kernels_gfx942.s"),
        ),
        (
            "hip_kernels_gfx90a.s",
            include_str!("../../tests/corpus/gcn/hip_kernels_gfx90a.s"),
        ),
        (
            "hip_grid_gfx942.s",
            include_str!("../../tests/corpus/gcn/hip_grid_gfx942.s"),
        ),
        (
            "ocl_kernels_gfx942.s",
            include_str!("../../tests/corpus/gcn/ocl_kernels_gfx942.s"),
        ),
        (
            "ocl_kernels_gfx90a.s",
            include_str!("../../tests/corpus/gcn/ocl_kernels_gfx90a.s"),
        ),
        (
            "triton_matmul_gfx942.s",
            include_str!("../../tests/corpus/gcn/triton_matmul_gfx942.s"),
        ),
        (
            "triton_matmul_gfx90a.s",
            include_str!("../../tests/corpus/gcn/triton_matmul_gfx90a.s"),
        ),
        (
            "triton_softmax_gfx942.s",
            include_str!("../../tests/corpus/gcn/triton_softmax_gfx942.s"),
        ),
        (
            "triton_flash_attn_fwd_gfx942.s",
            include_str!("../../tests/corpus/gcn/triton_flash_attn_fwd_gfx942.s"),
        ),
        (
            "triton_vector_add_gfx942.s",
            include_str!("../../tests/corpus/gcn/triton_vector_add_gfx942.s"),
        ),
        (
            "triton_vector_add_gfx90a.s",
            include_str!("../../tests/corpus/gcn/triton_vector_add_gfx90a.s"),
        ),
    ];

    #[test]
    fn llvm_s_own_code_has_no_hazard_by_these_rules() {
        for (file, asm) in CORPUS {
            let h = hazards(asm).expect("parses");
            assert!(h.is_empty(), "{file}: {h:?}");
        }
    }

    /// Each `s_nop` LLVM put into the corpus, removed: where these rules see a hazard,
    /// they ask exactly the wait states the `s_nop` gave, before the instruction after
    /// it, and nothing else. (The others separate an MFMA or DPP operand, which a snippet
    /// never is.)
    #[test]
    fn each_wait_llvm_inserted_that_these_rules_cover_is_the_one_they_ask() {
        let mut seen = Vec::new();
        for (file, asm) in CORPUS {
            let lines: Vec<&str> = asm.lines().collect();
            for (n, l) in lines.iter().enumerate() {
                let Some(imm) = l.trim_start().strip_prefix("s_nop ") else {
                    continue;
                };
                let gave = imm.trim().parse::<u32>().expect("an s_nop count") + 1;
                let mut text = lines.clone();
                text.remove(n);
                let found = hazards(&(text.join("\n") + "\n")).expect("parses");
                // The instruction after the s_nop now has its line number.
                let line = n as u32 + 1;
                match found.as_slice() {
                    [] => {}
                    [h] if h.line == line && h.missing == gave => {
                        seen.push(format!("{file}:{line}"))
                    }
                    other => panic!("{file}:{line} without `{}`: {other:?}", l.trim()),
                }
            }
        }
        // The wide store, VALU-written SGPR and readlane rules (gfx942), and the soft
        // clause (gfx942 and gfx90a).
        assert_eq!(seen.len(), 11, "{seen:?}");
        for at in [
            "ocl_kernels_gfx942.s:158",
            "triton_softmax_gfx942.s:201",
            "triton_softmax_gfx942.s:205",
            "triton_softmax_gfx942.s:273",
            "triton_softmax_gfx942.s:279",
            "triton_vector_add_gfx942.s:44",
            "triton_matmul_gfx90a.s:269",
        ] {
            assert!(seen.iter().any(|s| s == at), "{at} not seen: {seen:?}");
        }
    }

    fn frame(processor: &str) -> Frame {
        Frame {
            isa: Isa::new(processor, 64, None),
            kernel_sgprs: 20,
            kernel_vgprs: 20,
            clauses: true,
        }
    }

    /// A hazard the kernel's own code has is not the instrumentation's; one at an
    /// inserted instruction, or at a kernel instruction that had none, is.
    #[test]
    fn added_hazards_are_those_the_splice_made() {
        let (_, asm) = CORPUS
            .iter()
            .find(|(f, _)| *f == "triton_softmax_gfx942.s")
            .expect("corpus file");
        let needle = "v_cmp_gt_f32_e32 vcc, s29, v10\n\ts_nop 1\n";
        let broken = asm.replace(needle, "v_cmp_gt_f32_e32 vcc, s29, v10\n");
        assert_ne!(&broken, asm, "the corpus changed");
        assert_eq!(hazards(&broken).expect("parses").len(), 1);
        // The kernel's own: not added.
        assert_eq!(added_hazards(&broken, &broken).expect("parses"), Vec::new());
        // In the kernel as emitted, an instruction inserted after LLVM's wait and before
        // the use, writing `vcc` with a VALU: added.
        let spliced = asm.replace(needle, &format!("{needle}\tv_cmp_eq_u32_e32 vcc, 0, v10\n"));
        let added = added_hazards(asm, &spliced).expect("parses");
        assert_eq!(added.len(), 1, "{added:?}");
        // And the original's hazard, fixed by a padded snippet, is no added one.
        let padded = broken.replace(
            "v_cmp_gt_f32_e32 vcc, s29, v10\n",
            "v_cmp_gt_f32_e32 vcc, s29, v10\n\ts_nop 1\n",
        );
        assert_eq!(added_hazards(&broken, &padded).expect("parses"), Vec::new());
    }

    /// Two loads, the first reading the registers it writes: a soft clause LLVM breaks
    /// with XNACK on or "any" and not with `xnack-`.
    #[test]
    fn soft_clauses_are_broken_unless_xnack_is_off() {
        let (_, asm) = CORPUS
            .iter()
            .find(|(f, _)| *f == "triton_vector_add_gfx942.s")
            .expect("corpus file");
        let joined = asm.replace(
            "\ts_nop 0\n\tglobal_load_dwordx4 v[4:7], v[4:5], off",
            "\tglobal_load_dwordx4 v[4:7], v[4:5], off",
        );
        assert_ne!(&joined, asm, "the corpus changed");
        assert_eq!(hazards(&joined).expect("parses").len(), 1);
        let off = joined.replace("--gfx942\"", "--gfx942:xnack-\"");
        assert_ne!(off, joined, "the corpus changed");
        assert_eq!(hazards(&off).expect("parses"), Vec::new());
    }

    fn padded(processor: &str, lines: &[&str]) -> Vec<String> {
        let text: String = lines.iter().map(|l| format!("\t{l}\n")).collect();
        pad(&text, &frame(processor), processor.starts_with("gfx11"))
            .expect("pads")
            .lines()
            .map(|l| l.trim().to_owned())
            .collect()
    }

    #[test]
    fn a_carry_is_read_two_wait_states_after_its_valu_write_on_gfx940() {
        let add = [
            "s_cselect_b32 s30, -1, 0",
            "s_mov_b64 s[32:33], vcc",
            "s_mov_b64 s[34:35], exec",
            "v_add_co_u32_e64 v22, vcc, v24, v26",
            "v_addc_co_u32_e64 v23, vcc, v25, v27, vcc",
            "v_mov_b32_e32 v28, v22",
            "v_mov_b32_e32 v29, v23",
            "v_mov_b32_e32 v30, v23",
            "v_mov_b32_e32 v31, v23",
            "s_mov_b64 exec, s[34:35]",
            "s_mov_b64 vcc, s[32:33]",
            "s_cmp_lg_u32 s30, 0",
        ];
        let got = padded("gfx942", &add);
        let at = got
            .iter()
            .position(|l| l.starts_with("v_addc"))
            .expect("addc");
        assert_eq!(got[at - 1], "s_nop 1", "{got:?}");
        assert_eq!(got.len(), add.len() + 1, "{got:?}");
        // gfx90a reads it at once.
        assert_eq!(padded("gfx90a", &add).len(), add.len());
    }

    #[test]
    fn the_kernel_s_last_valu_write_and_the_next_kernel_read_are_waited_for() {
        // A global access right after the saves: the kernel may have just written `exec`
        // with a v_cmpx (5 wait states; the saves give 3).
        let early = [
            "s_cselect_b32 s30, -1, 0",
            "s_mov_b64 s[32:33], vcc",
            "s_mov_b64 s[34:35], exec",
            "global_atomic_add_x2 v30, v[28:29], s[36:37]",
            "s_mov_b64 exec, s[34:35]",
            "s_mov_b64 vcc, s[32:33]",
            "s_cmp_lg_u32 s30, 0",
        ];
        for p in ["gfx90a", "gfx942"] {
            let got = padded(p, &early);
            assert_eq!(got[3], "s_nop 1", "{p}: {got:?}");
        }
        // `vcc` written by a VALU just before the end: the kernel's next instruction may
        // be a global access, v_div_fmas or v_readlane reading it (5 wait states; the
        // restores give 3).
        let late = [
            "s_cselect_b32 s30, -1, 0",
            "s_mov_b64 s[32:33], vcc",
            "s_mov_b64 s[34:35], exec",
            "v_cmp_eq_u32_e32 vcc, 0, v30",
            "s_mov_b64 exec, s[34:35]",
            "s_mov_b64 vcc, s[32:33]",
            "s_cmp_lg_u32 s30, 0",
        ];
        let got = padded("gfx90a", &late);
        assert_eq!(got.last().map(String::as_str), Some("s_nop 1"), "{got:?}");
    }

    #[test]
    fn a_loop_s_back_edge_carries_its_sources_to_the_head() {
        // The round's last VALU writes the SGPR the head reads: on gfx940 the back edge
        // needs a wait state more than the branch gives, the entry does not.
        let lp = [
            "s_mov_b32 s40, 4",
            ".Ll:",
            "v_cndmask_b32_e64 v30, 0, 1, s[38:39]",
            "v_cmp_eq_u32_e64 s[38:39], 0, v30",
            "s_cbranch_scc1 .Ll",
        ];
        let text: String = lp
            .iter()
            .map(|l| {
                if l.ends_with(':') {
                    format!("{l}\n")
                } else {
                    format!("\t{l}\n")
                }
            })
            .collect();
        let fr = Frame {
            kernel_sgprs: 0,
            kernel_vgprs: 0,
            ..frame("gfx942")
        };
        let got = pad(&text, &fr, false).expect("pads");
        let lines: Vec<&str> = got.lines().map(str::trim).collect();
        let head = lines.iter().position(|l| *l == ".Ll:").expect("head");
        assert_eq!(lines[head + 1], "s_nop 0", "{got}");
    }

    #[test]
    fn gfx11_waits_for_the_kernel_s_valu_results_first_and_gfx10_3_for_nothing() {
        let body = [
            "s_cselect_b32 s30, -1, 0",
            "v_mov_b32_e32 v22, v3",
            "s_cmp_lg_u32 s30, 0",
        ];
        let text: String = body.iter().map(|l| format!("\t{l}\n")).collect();
        let gfx11 = pad(&text, &frame("gfx1100"), true).expect("pads");
        assert!(gfx11.starts_with("\ts_waitcnt_depctr 0x0fff\n"), "{gfx11}");
        assert_eq!(pad(&text, &frame("gfx1030"), false).expect("pads"), text);
    }
}
