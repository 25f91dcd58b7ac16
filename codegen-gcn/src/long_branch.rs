//! Long branches: a kernel branch the snippets pushed past its 16-bit offset's reach
//! (±32768 words, 128 KiB), rewritten as LLVM's `SIBranchRelaxation` does — the target
//! address computed from the program counter and jumped to (decision 0032).
//!
//! `s_cbranch_C L` (`C` one of `scc0`/`scc1`, `vccz`/`vccnz`, `execz`/`execnz`; without
//! the first and last lines for `s_branch L`) becomes, with `s[P:P+1]` and `sT` probe
//! registers:
//!
//! ```text
//!     s_cbranch_!C SKIP               ; the condition's complement: not taken
//!     s_cselect_b32 sT, -1, 0         ; scc saved
//!     s_getpc_b64 s[P:P+1]            ; the address of PC
//! PC: s_add_u32 sP, sP, (L-PC)&4294967295
//!     s_addc_u32 sP+1, sP+1, (L-PC)>>32
//!     s_cmp_lg_u32 sT, 0              ; scc restored
//!     s_setpc_b64 s[P:P+1]            ; to L
//! SKIP:
//! ```
//!
//! The kernel model ([`find`]) reads exactly this shape, and only as inserted code of
//! one snippet, as the inserted instructions from `s_cselect` to `s_cmp_lg` followed by
//! the kernel's own `s_cbranch_C L` at the `s_setpc`. That is the group's behavior
//! with more writes: when `C` holds the group writes `sT`, `s[P:P+1]` and `scc`, restores
//! `scc` and jumps to `L`; when it does not it writes nothing and falls through to
//! `SKIP`. The model's writes are checked as any snippet's (probe registers only, `scc`
//! restored), so the verifier proves the rewrite keeps the kernel's registers and control
//! flow, not the rewriter.

use crate::parse::{parse_instruction, Instruction, Module, StmtKind};
use crate::reg::{Reg, RegFile};
use crate::Error;
use warptrace_verifier::Origin;

/// The branches that can be long, each with its complement.
const CONDITIONS: [(&str, &str); 6] = [
    ("s_cbranch_scc0", "s_cbranch_scc1"),
    ("s_cbranch_scc1", "s_cbranch_scc0"),
    ("s_cbranch_vccz", "s_cbranch_vccnz"),
    ("s_cbranch_vccnz", "s_cbranch_vccz"),
    ("s_cbranch_execz", "s_cbranch_execnz"),
    ("s_cbranch_execnz", "s_cbranch_execz"),
];

/// The complement of a conditional branch's mnemonic.
fn complement(mnemonic: &str) -> Option<&'static str> {
    CONDITIONS
        .iter()
        .find(|(m, _)| *m == mnemonic)
        .map(|&(_, c)| c)
}

/// The text of branch `x` (written `text`) as a long branch with `pc` and `t` (a probe
/// SGPR pair and SGPR) and labels starting with `labels`; `Unsupported` for any other
/// instruction, or one written otherwise than `MNEMONIC LABEL`.
pub(crate) fn emit(
    x: &Instruction,
    text: &str,
    pc: Reg,
    t: Reg,
    labels: &str,
) -> Result<String, Error> {
    let unsupported = || Error::Unsupported {
        target: crate::TARGET,
        what: format!(
            "`{text}` is past its 16-bit offset's reach and is no branch that can be made long"
        ),
    };
    let [target] = &x.operands[..] else {
        return Err(unsupported());
    };
    if !x.modifiers.is_empty() || text != format!("{} {}", x.mnemonic, target.text) {
        return Err(unsupported());
    }
    let skip = match x.mnemonic.as_str() {
        "s_branch" => None,
        m => Some(complement(m).ok_or_else(unsupported)?),
    };
    let (l, p0, p1) = (&target.text, Reg::s(pc.first), Reg::s(pc.first + 1));
    let (at, past) = (format!("{labels}_pc"), format!("{labels}_skip"));
    let mut out = String::new();
    if let Some(c) = skip {
        out.push_str(&format!("\t{c} {past}\n"));
    }
    out.push_str(&format!(
        "\ts_cselect_b32 {t}, -1, 0\n\
         \ts_getpc_b64 {pc}\n\
         {at}:\n\
         \ts_add_u32 {p0}, {p0}, ({l}-{at})&4294967295\n\
         \ts_addc_u32 {p1}, {p1}, ({l}-{at})>>32\n\
         \ts_cmp_lg_u32 {t}, 0\n\
         \ts_setpc_b64 {pc}\n",
        t = t.name(),
        pc = pc.name(),
        p0 = p0.name(),
        p1 = p1.name(),
    ));
    if skip.is_some() {
        out.push_str(&format!("{past}:\n"));
    }
    Ok(out)
}

/// A long branch of a kernel body.
#[derive(Debug, Clone)]
pub(crate) struct LongBranch {
    /// The statements of the group the model leaves out: the complement's branch and
    /// the label it skips to (none for an `s_branch`).
    pub skipped: Vec<usize>,
    /// The `s_setpc_b64`'s statement.
    pub setpc: usize,
    /// The branch it is.
    pub branch: Instruction,
    /// The branch's text.
    pub text: String,
}

impl LongBranch {
    /// The label it goes to.
    pub fn target(&self) -> &str {
        self.branch.operands.first().map_or("", |o| o.text.as_str())
    }
}

/// The long branches in `body` (whose short branches are `branches`): inserted code of
/// one snippet of exactly the module docs' shape, whose labels nothing else branches to.
pub(crate) fn find(
    module: &Module,
    body: std::ops::Range<usize>,
    branches: &Branches<'_>,
    origin: &dyn Fn(usize) -> Origin,
) -> Vec<LongBranch> {
    let found: Vec<LongBranch> = body
        .clone()
        .filter(|&i| module.instr(i).is_some_and(|x| x.mnemonic == "s_setpc_b64"))
        .filter_map(|i| read(module, body.clone(), branches, origin, i))
        .collect();
    // Control enters a group only at its start: no long branch goes to its labels.
    let label = |i: usize| match &module.stmts[i].kind {
        StmtKind::Label(l) => Some(l.as_str()),
        _ => None,
    };
    let inner = |b: &LongBranch| -> Vec<&str> {
        let mut v: Vec<&str> = b.skipped.iter().filter_map(|&i| label(i)).collect();
        v.extend(label(b.setpc - 4));
        v
    };
    let targets: Vec<&str> = found.iter().map(|b| b.target()).collect();
    found
        .iter()
        .filter(|b| !inner(b).iter().any(|l| targets.contains(l)))
        .cloned()
        .collect()
}

/// The long branch ending at `s_setpc_b64` statement `setpc`, if it is one.
fn read(
    module: &Module,
    body: std::ops::Range<usize>,
    branches: &Branches<'_>,
    origin: &dyn Fn(usize) -> Origin,
    setpc: usize,
) -> Option<LongBranch> {
    let o = origin(setpc);
    if o == Origin::Kernel || setpc < body.start + 6 {
        return None;
    }
    let stmt = |i: usize| {
        body.contains(&i)
            .then(|| origin(i) == o)
            .filter(|&b| b)
            .map(|_| i)
    };
    let instr = |i: usize| module.instr(stmt(i)?);
    let label = |i: usize| match &module.stmts.get(stmt(i)?)?.kind {
        StmtKind::Label(l) => Some(l.as_str()),
        _ => None,
    };
    let (save, getpc, at) = (instr(setpc - 6)?, instr(setpc - 5)?, label(setpc - 4)?);
    let (add, addc, restore, jump) = (
        instr(setpc - 3)?,
        instr(setpc - 2)?,
        instr(setpc - 1)?,
        instr(setpc)?,
    );
    let reg = |x: &Instruction, n: usize| x.operands.get(n).and_then(|o| o.reg);
    fn text(x: &Instruction, n: usize) -> Option<&str> {
        x.operands.get(n).map(|o| o.text.as_str())
    }
    let imm = |x: &Instruction, n: usize| x.operands.get(n).and_then(|o| o.imm);
    let pc = reg(getpc, 0)?;
    let t = reg(save, 0)?;
    let (p0, p1) = (Reg::s(pc.first), Reg::s(pc.first + 1));
    let target = text(add, 2)?
        .strip_prefix('(')?
        .strip_suffix(&format!("-{at})&4294967295"))?;
    let exact = |x: &Instruction, m: &str, n: usize| {
        x.mnemonic == m && x.operands.len() == n && x.modifiers.is_empty()
    };
    let shape = exact(save, "s_cselect_b32", 3)
        && exact(getpc, "s_getpc_b64", 1)
        && exact(add, "s_add_u32", 3)
        && exact(addc, "s_addc_u32", 3)
        && exact(restore, "s_cmp_lg_u32", 2)
        && exact(jump, "s_setpc_b64", 1)
        && pc.file == RegFile::Sgpr
        && pc.count == 2
        && t.file == RegFile::Sgpr
        && t.count == 1
        && !t.overlaps(&pc)
        && [imm(save, 1), imm(save, 2)] == [Some(-1), Some(0)]
        && [reg(add, 0), reg(add, 1)] == [Some(p0), Some(p0)]
        && [reg(addc, 0), reg(addc, 1)] == [Some(p1), Some(p1)]
        && text(addc, 2) == Some(&format!("({target}-{at})>>32"))
        && reg(restore, 0) == Some(t)
        && imm(restore, 1) == Some(0)
        && reg(jump, 0) == Some(pc)
        && is_label(target);
    if !shape || branches.to(at) != 0 {
        return None;
    }
    // Conditional: the complement's branch just before, to the label just after.
    let cond = setpc.checked_sub(7).and_then(instr).and_then(|skip| {
        let past = label(setpc + 1)?;
        let c = complement(&skip.mnemonic)?;
        let ok = skip.operands.len() == 1
            && skip.modifiers.is_empty()
            && text(skip, 0) == Some(past)
            && branches.to(past) == 1;
        ok.then_some((c, setpc - 7, setpc + 1))
    });
    let (mnemonic, skipped) = match cond {
        Some((c, b, l)) => (c, vec![b, l]),
        None => ("s_branch", Vec::new()),
    };
    let text = format!("{mnemonic} {target}");
    let branch = parse_instruction(&text).ok()?;
    Some(LongBranch {
        skipped,
        setpc,
        branch,
        text,
    })
}

/// Whether `s` is a plain label name (no expression).
fn is_label(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$'))
}

/// The short branches of a body by target label (long ones not counted): each label's
/// branch positions, in order. Built in one pass, so that asking about every label of a
/// body is linear in it, not quadratic.
pub(crate) struct Branches<'m> {
    by_target: std::collections::HashMap<&'m str, Vec<usize>>,
}

impl<'m> Branches<'m> {
    /// The branches of `body`.
    pub(crate) fn of(module: &'m Module, body: std::ops::Range<usize>) -> Branches<'m> {
        let mut by_target: std::collections::HashMap<&str, Vec<usize>> = Default::default();
        for i in body {
            let Some(x) = module.instr(i) else { continue };
            if x.mnemonic.starts_with("s_branch") || x.mnemonic.starts_with("s_cbranch") {
                if let Some(t) = x.operands.first() {
                    by_target.entry(t.text.as_str()).or_default().push(i);
                }
            }
        }
        Branches { by_target }
    }

    /// How many branches go to `name`.
    pub(crate) fn to(&self, name: &str) -> usize {
        self.by_target.get(name).map_or(0, Vec::len)
    }

    /// Whether a branch after statement `at` goes to `name`.
    pub(crate) fn to_after(&self, name: &str, at: usize) -> bool {
        self.by_target
            .get(name)
            .and_then(|v| v.last())
            .is_some_and(|&last| last > at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse;

    fn branch(text: &str) -> Instruction {
        parse_instruction(text).expect("parses")
    }

    fn emitted(text: &str) -> Result<String, Error> {
        emitted_as(text, ".L__wt_far0_0")
    }

    fn emitted_as(text: &str, labels: &str) -> Result<String, Error> {
        let (pc, t) = (Reg::new(RegFile::Sgpr, 40, 2), Reg::s(42));
        emit(&branch(text), text, pc, t, labels)
    }

    /// The model's reading of `code`, all of it inserted code of snippet 1.
    fn read_all(code: &str) -> Vec<(String, Vec<usize>)> {
        let m = parse(code).expect("parses");
        let body = 0..m.stmts.len();
        let branches = Branches::of(&m, body.clone());
        find(&m, body, &branches, &|_| Origin::Inserted { snippet: 1 })
            .into_iter()
            .map(|b| (b.text, b.skipped))
            .collect()
    }

    /// Every branch with a complement, and `s_branch`, is read back as itself.
    #[test]
    fn each_long_branch_is_read_as_the_branch_it_replaces() {
        for (m, _) in CONDITIONS.iter().chain(&[("s_branch", "")]) {
            let text = format!("{m} .LBB0_3");
            let code = emitted(&text).expect("emits");
            let read = read_all(&code);
            assert_eq!(read.len(), 1, "{code}");
            assert_eq!(read[0].0, text);
            assert_eq!(read[0].1.len(), if *m == "s_branch" { 0 } else { 2 });
        }
    }

    /// A branch without a complement, or written otherwise, is refused; a group another
    /// branch enters is not read as a branch.
    #[test]
    fn other_branches_and_entered_groups_are_refused() {
        for text in ["s_cbranch_cdbgsys .LBB0_3", "s_cbranch_scc1  .LBB0_3"] {
            assert!(
                matches!(emitted(text), Err(Error::Unsupported { .. })),
                "{text}"
            );
        }
        let code = emitted("s_cbranch_scc1 .LBB0_3").expect("emits");
        let into_pc = format!("\ts_branch .L__wt_far0_0_pc\n{code}");
        assert_eq!(read_all(&into_pc), []);
        // With its skip label shared, only the jump is read (as `s_branch`): the
        // complement stays an inserted branch, over the kernel's, for the rules to see.
        let shared = format!("\ts_cbranch_vccz .L__wt_far0_0_skip\n{code}");
        assert_eq!(read_all(&shared), [("s_branch .LBB0_3".to_owned(), vec![])]);
        // Another long branch into this one's label.
        let into = emitted_as("s_branch .L__wt_far0_0_pc", ".L__wt_far0_1").expect("emits");
        let read = read_all(&format!("{into}{code}"));
        assert_eq!(read.len(), 1);
        assert_eq!(read[0].0, "s_branch .L__wt_far0_0_pc");
    }
}
