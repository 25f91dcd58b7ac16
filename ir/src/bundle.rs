//! The bundle: what the CLI hands to the runtime.

use crate::Program;
use serde::{Deserialize, Serialize};

/// Version of the bundle's JSON format; bumped on every incompatible change.
pub const BUNDLE_FORMAT: u32 = 1;

/// A compiled probe program plus what the runtime needs to run and report it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bundle {
    /// [`BUNDLE_FORMAT`] of the writer.
    pub format: u32,
    /// warptrace version of the writer.
    pub version: String,
    /// The probe source, for messages.
    pub source: String,
    /// The IR.
    pub program: Program,
}

/// Why a bundle could not be read.
#[derive(Debug, thiserror::Error)]
pub enum BundleError {
    /// Not valid bundle JSON.
    #[error("malformed bundle")]
    Malformed(#[source] serde_json::Error),
    /// Written by an incompatible warptrace.
    #[error("bundle format {found} is not supported (expected {BUNDLE_FORMAT})")]
    Format {
        /// The format found in the bundle.
        found: u32,
    },
}

impl Bundle {
    /// Wraps a program with the current format and version.
    pub fn new(source: String, program: Program) -> Bundle {
        Bundle {
            format: BUNDLE_FORMAT,
            version: env!("CARGO_PKG_VERSION").to_string(),
            source,
            program,
        }
    }

    /// Serializes to JSON.
    pub fn to_json(&self) -> String {
        // Serializing plain data with string keys cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Parses JSON and checks the format version.
    pub fn from_json(text: &str) -> Result<Bundle, BundleError> {
        #[derive(Deserialize)]
        struct Header {
            format: u32,
        }
        let header: Header = serde_json::from_str(text).map_err(BundleError::Malformed)?;
        if header.format != BUNDLE_FORMAT {
            return Err(BundleError::Format {
                found: header.format,
            });
        }
        serde_json::from_str(text).map_err(BundleError::Malformed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_rejects_other_formats() {
        let b = Bundle::new("kernel:entry { }".into(), Program::default());
        assert_eq!(Bundle::from_json(&b.to_json()).ok(), Some(b.clone()));
        let other = b.to_json().replace("\"format\":1", "\"format\":99");
        assert!(matches!(
            Bundle::from_json(&other),
            Err(BundleError::Format { found: 99 })
        ));
        assert!(matches!(
            Bundle::from_json("{"),
            Err(BundleError::Malformed(_))
        ));
    }
}
