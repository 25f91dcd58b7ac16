//! IR-level checks of a probe program.
//!
//! Per probe, in this order: the instruction budget, the per-instruction rules (map
//! usage, site operands), the control-flow graph (jump targets, missing `exit`), the
//! def-before-use dataflow over that graph, and divisors. Every error is collected; no
//! check stops the others, except that the dataflow is skipped for a probe over the
//! budget (its cost is what the budget bounds, and the probe is rejected anyway).

mod cfg;
mod defs;
mod facts;
#[cfg(test)]
mod tests;

use crate::{IrError, IrRule};
use cfg::ProbeCfg;
use facts::{ImmediatesOnly, ValueFacts};
use warptrace_ir::{Aggregation, AttachPoint, Insn, Probe, Program, ValueKind};

/// The most IR instructions one probe may have. Hash updates are unrolled
/// ([`warptrace_ir::HASH_MAX_PROBES`] tries each) when lowered, so this bounds the
/// length of every spliced snippet, and it bounds the verifier's own work per probe.
pub(crate) const MAX_PROBE_INSNS: usize = 4096;

/// Checks every probe of `program`; returns every violation, ordered by probe and then
/// by instruction (probe-wide errors last).
pub(crate) fn check_program(program: &Program) -> Vec<IrError> {
    let mut errors = Vec::new();
    for (index, probe) in program.probes.iter().enumerate() {
        let mut report = ProbeReport {
            program,
            index,
            probe,
            errors: &mut errors,
        };
        check_probe(&mut report);
    }
    errors.sort_by_key(|e| (e.probe, e.insn.unwrap_or(usize::MAX)));
    errors
}

/// Collects the errors of one probe, locating each and adding its context.
pub(super) struct ProbeReport<'a> {
    program: &'a Program,
    index: usize,
    probe: &'a Probe,
    errors: &'a mut Vec<IrError>,
}

impl ProbeReport<'_> {
    /// Records a violation of `rule`, at instruction `insn` or probe-wide.
    pub(super) fn error(&mut self, insn: Option<usize>, rule: IrRule, message: String) {
        let attach = &self.probe.attach;
        let context = match insn.and_then(|i| self.probe.insns.get(i).map(|x| (i, x))) {
            Some((i, x)) => format!("{attach} | {i}: {}", self.program.insn_text(x)),
            None => attach.to_string(),
        };
        self.errors.push(IrError {
            probe: self.index,
            insn,
            rule,
            message,
            context,
        });
    }
}

fn check_probe(report: &mut ProbeReport<'_>) {
    let probe = report.probe;
    let len = probe.insns.len();
    let within_budget = len <= MAX_PROBE_INSNS;
    if !within_budget {
        report.error(
            None,
            IrRule::Budget,
            format!("probe has {len} instructions; the budget is {MAX_PROBE_INSNS}"),
        );
    }
    for (i, insn) in probe.insns.iter().enumerate() {
        check_map_update(report, i, insn);
        check_site_operand(report, i, insn);
    }
    let cfg = ProbeCfg::build(report);
    if within_budget {
        defs::check_def_before_use(report, &cfg);
    }
    // The first cut knows only immediates; the value-range pass will compute its facts
    // from `cfg` here and pass them instead.
    check_divisors(report, &ImmediatesOnly);
}

/// `MapUsage`: the map exists, the key tuple has the declared arity, and the
/// aggregation is the one the map's value slot holds.
fn check_map_update(report: &mut ProbeReport<'_>, i: usize, insn: &Insn) {
    let Insn::MapUpdate { map, keys, agg } = insn else {
        return;
    };
    let Some(decl) = report.program.map(*map) else {
        let declared = report.program.maps.len();
        report.error(
            Some(i),
            IrRule::MapUsage,
            format!(
                "map.update names map {}, but the program declares {declared} map(s)",
                map.0
            ),
        );
        return;
    };
    if keys.len() != decl.keys.len() {
        report.error(
            Some(i),
            IrRule::MapUsage,
            format!(
                "@{} is declared with {} key(s), but the update passes {}",
                decl.name,
                decl.keys.len(),
                keys.len()
            ),
        );
    }
    let agrees = matches!(
        (decl.value, agg),
        (ValueKind::Count, Aggregation::Count) | (ValueKind::Sum { .. }, Aggregation::Sum(_))
    );
    if !agrees {
        let (declared, used) = match agg {
            Aggregation::Count => ("sum", "count"),
            Aggregation::Sum(_) => ("count", "sum"),
        };
        report.error(
            Some(i),
            IrRule::MapUsage,
            format!(
                "@{} aggregates {declared}, but the update does {used}",
                decl.name
            ),
        );
    }
}

/// `SiteOperand`: `site` reads an operand of the probed instruction, which only `mem:`
/// attach points have.
fn check_site_operand(report: &mut ProbeReport<'_>, i: usize, insn: &Insn) {
    let Insn::ReadSite { value, .. } = insn else {
        return;
    };
    if !matches!(report.probe.attach.point, AttachPoint::Mem { .. }) {
        let attach = report.probe.attach.to_string();
        report.error(
            Some(i),
            IrRule::SiteOperand,
            format!(
                "`site {}` reads an operand of the probed instruction, but {attach} probes no \
                 instruction (only mem: probes do)",
                value.name()
            ),
        );
    }
}

/// `DivisorMayBeZero`: every division or remainder has a divisor `facts` proves
/// non-zero.
fn check_divisors(report: &mut ProbeReport<'_>, facts: &dyn ValueFacts) {
    for (i, insn) in report.probe.insns.iter().enumerate() {
        let Insn::Bin { op, b, .. } = insn else {
            continue;
        };
        if op.divides() && facts.may_be_zero(i, *b) {
            report.error(
                Some(i),
                IrRule::DivisorMayBeZero,
                format!(
                    "divisor {b} of {} may be zero ({})",
                    op.mnemonic(),
                    facts.describe()
                ),
            );
        }
    }
}
