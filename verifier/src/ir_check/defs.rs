//! `UseBeforeDef`: a forward must-define dataflow over the probe's DAG.
//!
//! A register is defined on entry to an instruction only if it is defined at the end of
//! every reachable predecessor (intersection); the entry instruction starts with none.
//! Because every CFG edge goes forward, one pass in index order computes the fixpoint.
//! A may-define set (union) is carried alongside only to word the message: "never
//! written" versus "not written on every path". Unreachable instructions have no path
//! from the entry, so nothing is reported for them.

use super::cfg::ProbeCfg;
use super::ProbeReport;
use crate::IrRule;
use warptrace_ir::Reg;

/// Checks that every register read is written on every path before it.
pub(super) fn check_def_before_use(report: &mut ProbeReport<'_>, cfg: &ProbeCfg) {
    let insns = &report.probe.insns;
    let width = insns
        .iter()
        .flat_map(|x| x.uses().into_iter().chain(x.def()))
        .map(|r| usize::from(r.0) + 1)
        .max()
        .unwrap_or(0);
    // Defined at the end of each instruction: (must, may); `None` when unreachable.
    let mut out: Vec<Option<(RegSet, RegSet)>> = vec![None; cfg.len()];
    for (i, insn) in insns.iter().enumerate() {
        if !cfg.is_reachable(i) {
            continue;
        }
        let mut must: Option<RegSet> = None;
        let mut may = RegSet::new(width);
        for p in cfg.predecessors(i) {
            if let Some((p_must, p_may)) = &out[p] {
                match &mut must {
                    Some(m) => m.intersect(p_must),
                    None => must = Some(p_must.clone()),
                }
                may.union(p_may);
            }
        }
        let mut must = must.unwrap_or_else(|| RegSet::new(width));

        let mut uses = insn.uses();
        uses.sort();
        uses.dedup();
        for r in uses {
            if must.contains(r) {
                continue;
            }
            let message = if may.contains(r) {
                let witness = cfg
                    .predecessors(i)
                    .find(|&p| matches!(&out[p], Some((m, _)) if !m.contains(r)));
                match witness {
                    Some(p) => format!(
                        "{r} is read here but is not written on every path to here \
                         (not on the path through insn {p})"
                    ),
                    None => format!("{r} is read here but is not written on every path to here"),
                }
            } else {
                format!("{r} is read here but never written before")
            };
            report.error(Some(i), IrRule::UseBeforeDef, message);
        }

        if let Some(d) = insn.def() {
            must.insert(d);
            may.insert(d);
        }
        out[i] = Some((must, may));
    }
}

/// A set of probe registers, as a bit set.
#[derive(Debug, Clone)]
struct RegSet {
    words: Vec<u64>,
}

impl RegSet {
    /// The empty set over registers `r0..r{width-1}`.
    fn new(width: usize) -> RegSet {
        RegSet {
            words: vec![0; width.div_ceil(64)],
        }
    }

    fn insert(&mut self, r: Reg) {
        let i = usize::from(r.0);
        if let Some(w) = self.words.get_mut(i / 64) {
            *w |= 1 << (i % 64);
        }
    }

    fn contains(&self, r: Reg) -> bool {
        let i = usize::from(r.0);
        self.words
            .get(i / 64)
            .is_some_and(|w| w & (1 << (i % 64)) != 0)
    }

    fn intersect(&mut self, other: &RegSet) {
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            *a &= b;
        }
    }

    fn union(&mut self, other: &RegSet) {
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            *a |= b;
        }
    }
}
