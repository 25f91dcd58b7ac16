//! Certificates: what `warptrace verify` proved about a probe program, in JSON, so a
//! production run can require proof (`--require-cert`) without trusting the operator.
//!
//! A certificate names the program by the SHA-256 of its IR text (what the code
//! generators consume; comments and formatting of the source do not change it), the
//! warptrace version and the target, and lists every check and obligation with its
//! result and solver time. [`Certificate::admits`] is the one test a run applies.

use crate::cost::ProbeCost;
use crate::obligation::{Obligation, Verdict};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use warptrace_ir::Program;

/// The certificate format this build writes and accepts.
pub const CERT_FORMAT: &str = "warptrace-certificate/1";

/// The SHA-256 of a program's IR text, as `sha256:HEX`.
pub fn program_hash(program: &Program) -> String {
    let digest = Sha256::digest(program.to_string().as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// One named check (an IR rule, a kernel rule, a translation-validation proof).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Check {
    /// `ir`, `kernel` or `translation`.
    pub level: String,
    /// The rule or proof name.
    pub name: String,
    /// Where it applies (`program`, `kernel K`, an IR operation).
    pub scope: String,
    /// The result.
    #[serde(flatten)]
    pub verdict: Verdict,
    /// Time in microseconds.
    pub micros: u64,
}

/// A verification certificate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Certificate {
    /// [`CERT_FORMAT`].
    pub format: String,
    /// The warptrace version that verified the program.
    pub warptrace_version: String,
    /// [`program_hash`] of the verified program.
    pub probe_hash: String,
    /// `ptx` or `gcn`.
    pub target: String,
    /// Whether every check and obligation holds.
    pub verified: bool,
    /// Every check, in order.
    pub checks: Vec<Check>,
    /// Every value obligation (divisors, map offsets).
    pub obligations: Vec<Obligation>,
    /// The static cost of each probe.
    pub costs: Vec<ProbeCost>,
    /// Operations of the program whose lowering for this target no translation proof
    /// covers (GCN: map updates, rings, arrays, special registers, site values; which of
    /// them the GCN emulator tests check is in `docs/gcn.md`). Empty for PTX, where every
    /// lowering is proved.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_proved: Vec<String>,
    /// Total verification time in microseconds.
    pub total_micros: u64,
}

/// Why a certificate does not admit a program.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CertError {
    /// Not JSON of this format.
    #[error("not a warptrace certificate: {0}")]
    Malformed(String),
    /// Written by another format version.
    #[error("certificate format {found}, this warptrace reads {CERT_FORMAT}")]
    Format {
        /// The format found.
        found: String,
    },
    /// For another program.
    #[error("the certificate is for program {certified}, not this one ({actual})")]
    OtherProgram {
        /// The certified hash.
        certified: String,
        /// This program's hash.
        actual: String,
    },
    /// By another warptrace version.
    #[error("the certificate was issued by warptrace {issued}, this is {running}")]
    Version {
        /// The issuing version.
        issued: String,
        /// This version.
        running: String,
    },
    /// For another target.
    #[error("the certificate is for target {certified}, the run needs {needed}")]
    Target {
        /// The certified target.
        certified: String,
        /// The run's target.
        needed: String,
    },
    /// It records a failed or unproved check.
    #[error("the certificate records a failure: {0}")]
    NotVerified(String),
}

impl Certificate {
    /// Reads a certificate from JSON.
    pub fn from_json(text: &str) -> Result<Certificate, CertError> {
        let cert: Certificate =
            serde_json::from_str(text).map_err(|e| CertError::Malformed(e.to_string()))?;
        if cert.format != CERT_FORMAT {
            return Err(CertError::Format { found: cert.format });
        }
        Ok(cert)
    }

    /// The certificate as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Whether this certificate proves `program` safe for `target` under this build
    /// (`version`): same program, same version, same target, and nothing failed.
    pub fn admits(&self, program: &Program, target: &str, version: &str) -> Result<(), CertError> {
        let actual = program_hash(program);
        if self.probe_hash != actual {
            return Err(CertError::OtherProgram {
                certified: self.probe_hash.clone(),
                actual,
            });
        }
        if self.warptrace_version != version {
            return Err(CertError::Version {
                issued: self.warptrace_version.clone(),
                running: version.to_string(),
            });
        }
        if self.target != target {
            return Err(CertError::Target {
                certified: self.target.clone(),
                needed: target.to_string(),
            });
        }
        let failed = self
            .checks
            .iter()
            .find(|c| !c.verdict.is_proved())
            .map(|c| format!("{} {} ({})", c.level, c.name, c.scope))
            .or_else(|| {
                self.obligations
                    .iter()
                    .find(|o| !o.verdict.is_proved())
                    .map(|o| format!("{}: {}", o.location, o.name))
            });
        match (self.verified, failed) {
            (true, None) => Ok(()),
            (_, Some(what)) => Err(CertError::NotVerified(what)),
            (false, None) => Err(CertError::NotVerified("marked unverified".into())),
        }
    }
}
