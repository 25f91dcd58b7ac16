//! A probe program's certificate, assembled one way for every caller: the IR rules and
//! value obligations (`warptrace_verifier::certify`), then what the back end proves of its
//! code for the program ([`ProgramChecks`]), then the kernel checks of whatever modules
//! the caller instrumented. `warptrace verify` and the library's committed certificates
//! (`tests/tests/probe_certs.rs`) both call [`ProgramChecks::certificate`], so a
//! certificate says the same whoever made it.

use warptrace_ir::Program;
use warptrace_verifier::{Certificate, Check, IrErrors, ProbeCost, VerifiedProgram};

use crate::Target;

/// What a back end adds to a program's certificate.
#[derive(Debug, Clone, Default)]
pub struct ProgramChecks {
    /// Its checks: the translation-validation proofs of the lowerings the program uses.
    pub checks: Vec<Check>,
    /// The program's operations whose lowering no proof covers.
    pub not_proved: Vec<String>,
    /// Each probe's snippet cost bound on this target, where the back end computes one;
    /// `None` keeps the verifier's, counted on the IR (`warptrace_verifier::probe_costs`).
    pub costs: Option<Vec<ProbeCost>>,
}

impl ProgramChecks {
    /// The certificate of `program` for `target`: `outcome` is its IR verification, and
    /// `kernel_checks` the checks of the kernels instrumented with it (none for a program
    /// certified on its own). After the back end's checks comes, for a verified program
    /// whose rings every back end spreads over copies, the IR rules on the program as the
    /// code is generated for it (`VerifiedProgram::spread_rings_check`). Timings are the
    /// checks' own; `total_micros` is the caller's to set.
    pub fn certificate(
        self,
        program: &Program,
        outcome: &Result<VerifiedProgram, IrErrors>,
        target: Target,
        version: &str,
        kernel_checks: Vec<Check>,
    ) -> Certificate {
        let mut checks = self.checks;
        if let Ok(verified) = outcome {
            checks.extend(verified.spread_rings_check(target.title()));
        }
        checks.extend(kernel_checks);
        let mut cert =
            warptrace_verifier::certify(program, outcome, target.name(), version, checks);
        cert.not_proved = self.not_proved;
        if let Some(costs) = self.costs {
            cert.costs = costs;
        }
        cert
    }
}
