//! IR-level checks of a probe program.
//!
//! Per probe, in this order: the instruction budget, the per-instruction rules (map
//! usage, site operands), the control-flow graph (jump targets, missing `exit`), the
//! def-before-use dataflow over that graph, and divisors. Every error is collected; no
//! check stops the others, except that the dataflow is skipped for a probe over the
//! budget (its cost is what the budget bounds, and the probe is rejected anyway).

mod absint;
mod cfg;
mod defs;
#[cfg(test)]
mod tests;

use crate::smt::{self, Outcome, SymProbe};
use crate::{IrError, IrRule, Method, Obligation, Verdict};
use absint::Intervals;
use cfg::ProbeCfg;
use warptrace_ir::{Insn, MapKind, Probe, Program, Special, SpecialSource};

pub(crate) use absint::{site_range, special_range, MAX_NCTAID, MAX_NTID, MAX_THREADS_PER_BLOCK};

/// The most IR instructions one probe may have. Hash updates are unrolled
/// ([`warptrace_ir::HASH_MAX_PROBES`] tries each) when lowered, so this bounds the
/// length of every spliced snippet, and it bounds the verifier's own work per probe.
pub(crate) const MAX_PROBE_INSNS: usize = 4096;

/// Checks every probe of `program`; returns every violation, ordered by probe and then
/// by instruction (probe-wide errors last).
pub(crate) fn check_program(program: &Program) -> (Vec<IrError>, Vec<Obligation>) {
    let mut errors = Vec::new();
    let mut obligations = Vec::new();
    for (index, probe) in program.probes.iter().enumerate() {
        let mut report = ProbeReport {
            program,
            index,
            probe,
            errors: &mut errors,
            obligations: &mut obligations,
        };
        check_probe(&mut report);
    }
    errors.sort_by_key(|e| (e.probe, e.insn.unwrap_or(usize::MAX)));
    (errors, obligations)
}

/// Collects the errors of one probe, locating each and adding its context.
pub(super) struct ProbeReport<'a> {
    program: &'a Program,
    index: usize,
    probe: &'a Probe,
    errors: &'a mut Vec<IrError>,
    obligations: &'a mut Vec<Obligation>,
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
        check_map_usage(report, i, insn);
        check_site_operand(report, i, insn);
        check_host_only(report, i, insn);
    }
    let cfg = ProbeCfg::build(report);
    if within_budget {
        defs::check_def_before_use(report, &cfg);
    }
    let intervals = Intervals::compute(&report.probe.insns, &cfg);
    check_divisors(report, &cfg, &intervals, within_budget);
}

/// `MapUsage`: every map, persistent register and format named exists; a hash update
/// has the declared key arity and the aggregation the map's value holds; an array save /
/// ring append targets a map of that kind with one operand per record field; a `printf`
/// has a printf ring wide enough for its arguments.
fn check_map_usage(report: &mut ProbeReport<'_>, i: usize, insn: &Insn) {
    let program = report.program;
    let persist = match insn {
        Insn::LoadPersist { slot, .. } | Insn::StorePersist { slot, .. } => Some(*slot),
        Insn::ArraySave { cursor, .. } => Some(*cursor),
        _ => None,
    };
    if let Some(slot) = persist {
        if program.persist(slot).is_none() {
            let message = format!(
                "names persistent register {}, but the program declares {}",
                slot.0,
                program.persistent.len()
            );
            report.error(Some(i), IrRule::MapUsage, message);
        }
    }
    if let Insn::Printf { format, args } = insn {
        if program.format(*format).is_none() {
            let message = format!(
                "printf names format {}, but the program has {}",
                format.0,
                program.formats.len()
            );
            report.error(Some(i), IrRule::MapUsage, message);
        }
        let ring = program.printf_ring().and_then(|m| program.map(m));
        match ring.map(|m| &m.value) {
            Some(warptrace_ir::ValueKind::Printf { args: n }) if args.len() <= *n as usize => {}
            Some(_) => report.error(
                Some(i),
                IrRule::MapUsage,
                format!(
                    "printf passes {} argument(s), more than its ring holds",
                    args.len()
                ),
            ),
            None => report.error(
                Some(i),
                IrRule::MapUsage,
                "printf, but the program has no printf ring".into(),
            ),
        }
    }
    let Some(map) = insn.map() else {
        return;
    };
    let Some(decl) = program.map(map) else {
        let declared = program.maps.len();
        report.error(
            Some(i),
            IrRule::MapUsage,
            format!(
                "{} names map {}, but the program declares {declared} map(s)",
                mnemonic(insn),
                map.0
            ),
        );
        return;
    };
    let keys = match insn {
        Insn::MapUpdate { keys, .. } | Insn::Delete { keys, .. } => Some(keys),
        _ => None,
    };
    if let Some(keys) = keys {
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
    }
    let kind_ok = match insn {
        Insn::MapUpdate { .. } | Insn::Delete { .. } => matches!(decl.kind, MapKind::Hash { .. }),
        Insn::ArraySave { .. } => matches!(decl.kind, MapKind::Array { .. }),
        Insn::RingAppend { .. } => matches!(decl.kind, MapKind::Ring { .. }),
        _ => true,
    };
    if !kind_ok {
        report.error(
            Some(i),
            IrRule::MapUsage,
            format!(
                "{} on @{}, a map of another kind",
                mnemonic(insn),
                decl.name
            ),
        );
        return;
    }
    let per_warp = matches!(
        decl.kind,
        MapKind::Array {
            per: warptrace_ir::Per::Warp,
            ..
        }
    );
    if matches!(insn, Insn::ArraySave { .. })
        && per_warp
        && report.probe.attach.granularity == warptrace_ir::Granularity::Thread
    {
        // Every lane would write its warp's record: distinct threads, one record.
        report.error(
            Some(i),
            IrRule::MapBounds,
            format!(
                "map.save to @{}, a per-warp array, from a per-thread probe: the lanes of a \
                 warp would write the same record",
                decl.name
            ),
        );
    }
    match insn {
        Insn::MapUpdate { agg, .. } if !agg.fits(&decl.value) => {
            report.error(
                Some(i),
                IrRule::MapUsage,
                format!(
                    "@{} aggregates {}, but the update does {}",
                    decl.name,
                    value_name(&decl.value),
                    agg.mnemonic()
                ),
            );
        }
        Insn::ArraySave { fields, .. } | Insn::RingAppend { fields, .. } => {
            let words = decl.value.words() as usize;
            let is_record = matches!(decl.value, warptrace_ir::ValueKind::Record(_));
            if !is_record || fields.len() != words {
                report.error(
                    Some(i),
                    IrRule::MapUsage,
                    format!(
                        "@{} holds records of {words} field(s), but {} passes {}",
                        decl.name,
                        mnemonic(insn),
                        fields.len()
                    ),
                );
            }
        }
        _ => {}
    }
}

/// The mnemonic of an instruction's text form (its first word after `rD =`).
fn mnemonic(insn: &Insn) -> &'static str {
    match insn {
        Insn::MapUpdate { .. } => "map.update",
        Insn::ArraySave { .. } => "map.save",
        Insn::RingAppend { .. } => "map.append",
        Insn::Print { .. } => "host.print",
        Insn::Clear { .. } => "host.clear",
        Insn::Zero { .. } => "host.zero",
        Insn::Delete { .. } => "host.delete",
        _ => "instruction",
    }
}

/// How a map's value is named in messages: the aggregation that fills it.
fn value_name(value: &warptrace_ir::ValueKind) -> &'static str {
    use warptrace_ir::ValueKind as V;
    match value {
        V::Count => "count",
        V::Sum { .. } => "sum",
        V::Min { .. } => "min",
        V::Max { .. } => "max",
        V::Avg { .. } => "avg",
        V::Stats { .. } => "stats",
        V::Hist => "hist",
        V::Lhist { .. } => "lhist",
        V::Value { .. } => "assign",
        V::Record(_) => "records",
        V::Printf { .. } => "printf records",
    }
}

/// `SiteOperand`: `site` reads an operand of the probed instruction, and `pc`, `file`,
/// `line` are per-site values: only attach points at an instruction have operands, and
/// only those and loop points (placed at their header's first instruction) a place.
fn check_site_operand(report: &mut ProbeReport<'_>, i: usize, insn: &Insn) {
    let point = &report.probe.attach.point;
    let (what, ok, which) = match insn {
        Insn::ReadSite { value, .. } => (
            format!("`site {}` reads an operand of", value.name()),
            point.has_instruction(),
            "instruction probes such as mem:",
        ),
        Insn::ReadSpecial { special, .. } if special.source() == SpecialSource::SiteImmediate => (
            format!("`sreg {}` describes", special_name(*special)),
            point.has_location(),
            "instruction probes such as mem: and loop: points",
        ),
        _ => return,
    };
    if !ok {
        let attach = report.probe.attach.to_string();
        report.error(
            Some(i),
            IrRule::SiteOperand,
            format!(
                "{what} the probed instruction, but {attach} probes no instruction (only \
                 {which} do)"
            ),
        );
    }
}

fn special_name(s: Special) -> &'static str {
    s.name()
}

/// `HostOnly`: `host.*` operations run only in host blocks, and the launch values the
/// runtime's host side knows (`duration`, `shared`, `stream`) are read only there: no back
/// end lowers them, so a device probe naming one is refused here, not left to codegen.
fn check_host_only(report: &mut ProbeReport<'_>, i: usize, insn: &Insn) {
    if let Insn::ReadSpecial { special, .. } = insn {
        if special.source() == SpecialSource::Host {
            let attach = report.probe.attach.to_string();
            report.error(
                Some(i),
                IrRule::HostOnly,
                format!(
                    "`sreg {}` is a launch's host-side value, read in launch:begin and \
                     launch:end blocks only, not in the device probe {attach}",
                    special.name()
                ),
            );
        }
        return;
    }
    if insn.is_host_only() {
        let attach = report.probe.attach.to_string();
        report.error(
            Some(i),
            IrRule::HostOnly,
            format!("a host-only operation in the device probe {attach}; it belongs in begin, end or launch:complete"),
        );
    }
}

/// `DivisorMayBeZero`: every division or remainder has a divisor proved non-zero at
/// its width on every feasible path — by the intervals and known bits when they can, by
/// z3 over the probe's symbolic execution when they cannot. A refutation carries the
/// inputs (grid position, site operands, persistent registers) that make it zero.
fn check_divisors(
    report: &mut ProbeReport<'_>,
    cfg: &ProbeCfg,
    intervals: &Intervals,
    within_budget: bool,
) {
    let mut sym: Option<SymProbe> = None;
    for (i, insn) in report.probe.insns.iter().enumerate() {
        let Insn::Bin { op, width, b, .. } = insn else {
            continue;
        };
        if !op.divides() || !cfg.is_reachable(i) {
            continue;
        }
        let name = format!("divisor of {} non-zero", op.mnemonic());
        let location = format!("probe {}, insn {i}", report.index);
        let known = intervals.value(i, *b, *width);
        if known.is_none_or(|v| !v.may_be_zero()) {
            report.obligations.push(Obligation {
                name,
                location,
                method: Method::Intervals,
                verdict: Verdict::Proved,
                micros: 0,
            });
            continue;
        }
        let (outcome, micros) = if within_budget {
            let sym = sym.get_or_insert_with(|| SymProbe::run(&report.probe.insns));
            sym.may_be_zero(i, *b, *width)
        } else {
            (Outcome::Unknown("the probe is over budget".into()), 0)
        };
        let verdict = Verdict::from(&outcome);
        report.obligations.push(Obligation {
            name,
            location,
            method: Method::Smt,
            verdict: verdict.clone(),
            micros,
        });
        let why = match outcome {
            Outcome::Proved => continue,
            Outcome::Counterexample(values) => format!("z3: zero when {}", smt::render(&values)),
            Outcome::Unknown(reason) => format!("neither intervals nor z3 proved it: {reason}"),
        };
        report.error(
            Some(i),
            IrRule::DivisorMayBeZero,
            format!("divisor {b} of {} may be zero ({why})", op.mnemonic()),
        );
    }
}
