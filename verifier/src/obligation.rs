//! Proof obligations: what was proved about values, how, and how long it took.

use crate::smt::Outcome;
use serde::{Deserialize, Serialize};

/// How an obligation was discharged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// The abstract domain (intervals and known bits) proved it.
    Intervals,
    /// z3 proved it (quantifier-free bit-vectors).
    Smt,
}

/// The result of one obligation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "result", rename_all = "snake_case")]
pub enum Verdict {
    /// It holds for every input.
    Proved,
    /// It fails for these inputs (`name = value, …`).
    Refuted {
        /// The counterexample.
        counterexample: String,
    },
    /// The solver gave up; treated as not proved.
    Unknown {
        /// Why.
        reason: String,
    },
}

impl Verdict {
    /// Whether it holds.
    pub fn is_proved(&self) -> bool {
        matches!(self, Verdict::Proved)
    }
}

impl From<&Outcome> for Verdict {
    fn from(o: &Outcome) -> Verdict {
        match o {
            Outcome::Proved => Verdict::Proved,
            Outcome::Counterexample(v) => Verdict::Refuted {
                counterexample: crate::smt::render(v),
            },
            Outcome::Unknown(reason) => Verdict::Unknown {
                reason: reason.clone(),
            },
        }
    }
}

/// One obligation: a property of values the verifier had to prove.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Obligation {
    /// What is claimed (`divisor of div.u non-zero`, `@m: hash slot in bounds`, …).
    pub name: String,
    /// Where (`probe 0, insn 3`, `map @m`, `launch 128x1x1 / 4096x1x1`).
    pub location: String,
    /// How it was discharged.
    pub method: Method,
    /// The result.
    #[serde(flatten)]
    pub verdict: Verdict,
    /// Solver time in microseconds (0 for the abstract domain).
    pub micros: u64,
}
