//! The static cost of a probe: what one firing executes on its longest path.
//!
//! Weights are the device instructions the PTX back end emits per IR operation, counted
//! on the costliest path through the probe's DAG. A hash update counts every one of its
//! unrolled probes, so the figure is an upper bound. The GCN back end measures its own
//! snippets instead (`warptrace_codegen_gcn::probe_costs`, decision 0029): its lane-mask
//! branches, counted loops and waterfalls are not an IR DAG's weights.

use serde::{Deserialize, Serialize};
use warptrace_ir::{Aggregation, Insn, Program, SpecialSource, HASH_MAX_PROBES};

/// The cost of one probe.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProbeCost {
    /// Index of the probe.
    pub probe: usize,
    /// Its attach spec.
    pub attach: String,
    /// IR instructions.
    pub ir_insns: usize,
    /// Estimated device instructions on the costliest path.
    pub device_insns: u64,
    /// Atomics and reductions on that path.
    pub atomics: u64,
}

/// (device instructions, atomics) of one IR instruction.
fn weight(insn: &Insn) -> (u64, u64) {
    let probes = u64::from(HASH_MAX_PROBES);
    match insn {
        Insn::Mov { .. } | Insn::Ext { .. } | Insn::Jump { .. } | Insn::Exit => (1, 0),
        Insn::Bin { op, .. } if op.divides() => (24, 0),
        Insn::Bin { op, .. } if op.is_comparison() => (2, 0),
        Insn::Bin { .. } | Insn::Branch { .. } => (2, 0),
        Insn::ReadSpecial { special, .. } => match special.source() {
            SpecialSource::Computed => (8, 0),
            _ => (1, 0),
        },
        Insn::ReadSite { .. } | Insn::LoadPersist { .. } | Insn::StorePersist { .. } => (1, 0),
        Insn::MapUpdate { keys, agg, .. } => {
            // Tag: a mix per key word; per probe: address, CAS, compares, key stores.
            let tag = 10 * keys.len().max(1) as u64;
            let per_probe = 6 + keys.len() as u64;
            let value = match agg {
                Aggregation::Hist(_) => 8,
                Aggregation::Lhist(_) => 12,
                Aggregation::Avg(_) | Aggregation::Stats(_) => 4,
                _ => 3,
            };
            let atomics = match agg {
                Aggregation::Avg(_) | Aggregation::Stats(_) => 2,
                _ => 1,
            };
            (tag + probes * per_probe + value, probes + atomics)
        }
        Insn::RingAppend { fields, .. } => (12 + 2 * fields.len() as u64, 1),
        Insn::Printf { args, .. } => (14 + 2 * args.len() as u64, 1),
        Insn::ArraySave { fields, .. } => (14 + 2 * fields.len() as u64, 0),
        Insn::Print { .. }
        | Insn::Clear { .. }
        | Insn::Zero { .. }
        | Insn::Delete { .. }
        | Insn::StopTracing => (0, 0),
    }
}

/// The cost of every device probe of `program`.
pub fn probe_costs(program: &Program) -> Vec<ProbeCost> {
    program
        .probes
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let n = p.insns.len();
            // best[i]: the costliest (insns, atomics) from instruction i to an exit.
            let mut best = vec![(0u64, 0u64); n + 1];
            for at in (0..n).rev() {
                let insn = &p.insns[at];
                let (w, a) = weight(insn);
                let next = |t: usize| best.get(t).copied().unwrap_or((0, 0));
                let succ = match insn {
                    Insn::Exit => (0, 0),
                    Insn::Jump { target } => next(*target as usize),
                    Insn::Branch { target, .. } => next(at + 1).max(next(*target as usize)),
                    _ => next(at + 1),
                };
                best[at] = (w + succ.0, a + succ.1);
            }
            ProbeCost {
                probe: i,
                attach: p.attach.to_string(),
                ir_insns: n,
                device_insns: best[0].0,
                atomics: best[0].1,
            }
        })
        .collect()
}
