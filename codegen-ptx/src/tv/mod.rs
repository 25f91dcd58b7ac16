//! Translation validation: z3 proofs that the PTX the back end emits computes the IR's
//! semantics, per operation, for all inputs.
//!
//! Each [obligation](translation_validation) takes the text the real emitter produces for
//! one IR operation (or helper), parses it with the crate's own PTX parser, executes it
//! symbolically over bit-vectors (`ptx`: a small semantics of exactly the instructions the
//! back end emits, with PTX's unspecified results as fresh unconstrained values), and asks
//! z3 for a counterexample to "the final registers (or memory operations) equal what
//! `docs/ir.md` defines" (`ir`: z3 terms cross-checked against the reference
//! interpreter). `unsat` is a proof. See the README's "Translation validation" section for
//! what is modelled and assumed.

mod check;
mod combined;
mod effects;
mod ir;
mod obligations;
mod prove;
mod ptx;
mod reads;
#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};
use std::time::Instant;
use warptrace_ir::Insn;

/// How one obligation ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum TvOutcome {
    /// z3 found no counterexample: the emitted PTX computes the IR semantics for all
    /// inputs (under the documented assumptions).
    Proved,
    /// The emitted PTX differs from the IR semantics on these inputs.
    Refuted {
        /// Which part of the claim fails, the inputs and both sides' values.
        counterexample: String,
    },
    /// The emitted PTX is outside the modelled semantics (an instruction or operand form
    /// it does not cover, an ill-typed operand, a branch out of the snippet): not proved.
    Invalid {
        /// Why.
        reason: String,
    },
    /// z3 gave up (time limit) or the obligation could not be set up.
    Unknown {
        /// Why.
        reason: String,
    },
}

impl TvOutcome {
    /// Whether this is [`TvOutcome::Proved`].
    pub fn is_proved(&self) -> bool {
        matches!(self, TvOutcome::Proved)
    }
}

/// The result of one obligation, for certificates.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TvResult {
    /// Stable name, e.g. `bin.div.u.w32.reg-reg`, `agg.lhist.0.100.10.reg`,
    /// `hash.k2.reg.cap4096`.
    pub name: String,
    /// How it ended.
    pub outcome: TvOutcome,
    /// Wall time of lowering, symbolic execution and the z3 query, in microseconds.
    pub micros: u64,
}

/// Why [`validate_probe`] cannot validate a probe.
#[derive(Debug, thiserror::Error)]
pub enum TvError {
    /// The back end does not lower the probe at this site.
    #[error("the back end does not lower this probe")]
    Lower(#[source] crate::Error),
    /// The probe uses an instruction outside the validated pure subset (`mov`, ALU,
    /// `ext`, `sreg`, persistent registers, branches, `exit`).
    #[error("not in the validated subset: {0}")]
    Subset(String),
}

fn run_one(ob: &obligations::Obligation) -> TvResult {
    // A proof an earlier process of this source made (`named_proofs`: the obligation is
    // what its name spells), or this one's, whatever its outcome.
    let mut fresh = None;
    let (_, micros) = warptrace_verifier::named_proofs::proved_once(
        "ptx back end",
        env!("WARPTRACE_SOURCE_DIGEST"),
        &ob.name,
        || {
            let r = prove_one(ob);
            let verdict = match r.outcome {
                TvOutcome::Proved => warptrace_verifier::Verdict::Proved,
                _ => warptrace_verifier::Verdict::Unknown {
                    reason: "not proved".into(),
                },
            };
            let micros = r.micros;
            fresh = Some(r);
            (verdict, micros)
        },
    );
    fresh.unwrap_or_else(|| TvResult {
        name: ob.name.clone(),
        outcome: TvOutcome::Proved,
        micros,
    })
}

/// Emits and proves one obligation.
fn prove_one(ob: &obligations::Obligation) -> TvResult {
    let start = Instant::now();
    let outcome = match ob.emit() {
        Ok(text) => check::check(ob, &text),
        Err(e) => TvOutcome::Unknown {
            reason: format!("the emitter failed: {e}"),
        },
    };
    TvResult {
        name: ob.name.clone(),
        outcome,
        micros: start.elapsed().as_micros() as u64,
    }
}

/// [`translation_validation`] as the checks of a certificate (level `translation`, scope
/// `ptx back end`): what `warptrace verify` writes and the committed probe certificates
/// are compared against.
pub fn translation_checks() -> Vec<warptrace_verifier::Check> {
    use warptrace_verifier::{Check, Verdict};
    translation_validation()
        .into_iter()
        .map(|r| Check {
            level: "translation".into(),
            name: r.name,
            scope: "ptx back end".into(),
            verdict: match r.outcome {
                TvOutcome::Proved => Verdict::Proved,
                TvOutcome::Refuted { counterexample } => Verdict::Refuted { counterexample },
                TvOutcome::Invalid { reason } | TvOutcome::Unknown { reason } => {
                    Verdict::Unknown { reason }
                }
            },
            micros: r.micros,
        })
        .collect()
}

/// Runs every obligation (in parallel, one z3 context per worker thread) and returns
/// the results in a stable order. Worker `w` takes obligations `w`, `w + workers`, …, so
/// that a family of slow ones is shared out.
pub fn translation_validation() -> Vec<TvResult> {
    let all = obligations::all();
    warptrace_verifier::progress::begin("PTX translation", all.len());
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 8)
        .min(all.len().max(1));
    let mut results: Vec<Option<TvResult>> = vec![None; all.len()];
    std::thread::scope(|s| {
        let all = &all;
        let handles: Vec<_> = (0..workers)
            .map(|w| {
                s.spawn(move || {
                    all.iter()
                        .enumerate()
                        .skip(w)
                        .step_by(workers)
                        .map(|(i, ob)| (i, run_one(ob)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for h in handles {
            // A worker that panicked leaves its obligations unanswered (below).
            if let Ok(done) = h.join() {
                for (i, r) in done {
                    results[i] = Some(r);
                }
            }
        }
    });
    warptrace_verifier::progress::end();
    results
        .into_iter()
        .zip(&all)
        .map(|(r, ob)| {
            r.unwrap_or_else(|| TvResult {
                name: ob.name.clone(),
                outcome: TvOutcome::Unknown {
                    reason: "the worker thread panicked".into(),
                },
                micros: 0,
            })
        })
        .collect()
}

/// The names of every obligation [`translation_validation`] checks, in its order.
pub fn obligation_names() -> Vec<String> {
    obligations::all().into_iter().map(|o| o.name).collect()
}

/// Validates a pure probe body (`mov`, ALU, `ext`, `sreg`, persistent registers,
/// branches, jumps, `exit`) lowered at kernel entry (per-site specials get edge-value
/// immediates): every IR register the body names and every persistent register must end
/// equal to the IR semantics.
pub fn validate_probe(name: &str, insns: &[Insn]) -> Result<TvResult, TvError> {
    let start = Instant::now();
    let env = ir::IrEnv {
        imms: obligations::site_imms(),
        ..ir::IrEnv::default()
    };
    ir::exec(insns, &env).map_err(TvError::Subset)?;
    let ob = obligations::Obligation {
        name: name.to_owned(),
        what: obligations::What::Body {
            insns: insns.to_vec(),
            site: obligations::Site {
                instr: true,
                imms: obligations::site_imms(),
                ..obligations::Site::default()
            },
        },
    };
    let text = ob.emit().map_err(TvError::Lower)?;
    let outcome = check::check(&ob, &text);
    Ok(TvResult {
        name: ob.name,
        outcome,
        micros: start.elapsed().as_micros() as u64,
    })
}

/// Validates one IR instruction (followed by `exit`), e.g. `r2 = div.s.64 r0, r1`.
pub fn validate_insn(insn: &Insn) -> Result<TvResult, TvError> {
    let name = obligations::insn_name(insn);
    validate_probe(&name, &[insn.clone(), Insn::Exit])
}
