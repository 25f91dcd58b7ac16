//! The errors of instrumenting a module, the same for every target: a module that does not
//! parse, a kernel that already uses the probes' reserved names, a probe that cannot be
//! lowered. A kernel the back end cannot instrument for a reason of its own is not an
//! error but a [`crate::KernelStatus`]; `Unsupported` is how a lowering says so, and the
//! back end turns it into that kernel's status where it can.

/// A back end: the ISA it instruments (`Display`s as `PTX`, `GCN`).
pub use warptrace_ir::Isa as Target;

/// Errors of a back end.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The assembly text could not be parsed.
    #[error("line {line}: {message}")]
    Syntax {
        /// 1-based line.
        line: u32,
        /// What is wrong.
        message: String,
    },
    /// A kernel already uses the reserved prefix `__wt_` of probe registers and labels.
    #[error("kernel `{kernel}` already uses the reserved prefix `__wt_`")]
    ReservedPrefix {
        /// The kernel.
        kernel: String,
    },
    /// A probe's kernel glob is invalid.
    #[error("invalid kernel glob `{glob}`")]
    Glob {
        /// The glob.
        glob: String,
        /// Why.
        #[source]
        source: globset::Error,
    },
    /// A probe cannot be lowered at a site.
    #[error("kernel `{kernel}`, line {line}: {message}")]
    Lower {
        /// The kernel.
        kernel: String,
        /// 1-based line of the site.
        line: u32,
        /// What is wrong.
        message: String,
    },
    /// The probe program uses an IR operation, special value or attach point that the back
    /// end does not lower yet; the kernels it would instrument are left unmodified.
    #[error("not supported by the {target} back end yet: {what}")]
    Unsupported {
        /// The back end.
        target: Target,
        /// What is not supported, in IR-text terms (`sreg globaltimer`, `map.save`, …).
        what: String,
    },
    /// No kernel of that name.
    #[error("no kernel named `{0}`")]
    NoSuchKernel(String),
    /// No statement starts on that line of the kernel.
    #[error("no statement starts on line {line}")]
    NoStatement {
        /// 1-based line.
        line: u32,
    },
}

impl From<warptrace_ir::GlobError> for Error {
    fn from(e: warptrace_ir::GlobError) -> Error {
        Error::Glob {
            glob: e.glob,
            source: e.source,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a user reads names the back end.
    #[test]
    fn unsupported_names_its_target() {
        for (target, name) in [(Target::Ptx, "PTX"), (Target::Gcn, "GCN")] {
            let e = Error::Unsupported {
                target,
                what: "sreg globaltimer".into(),
            };
            assert_eq!(
                e.to_string(),
                format!("not supported by the {name} back end yet: sreg globaltimer")
            );
        }
    }
}
