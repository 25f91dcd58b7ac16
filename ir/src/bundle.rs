//! The bundle: what the CLI hands to the runtime.

use crate::{AttachSpec, MapLayout, Program};
use serde::{Deserialize, Serialize};

/// Version of the bundle's JSON format; bumped on every incompatible change.
///
/// 2: the complete IR (persistent registers, formats, host blocks, config, every map kind
/// and attach point), the map layout and the attach specs.
pub const BUNDLE_FORMAT: u32 = 2;

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
    /// The map buffer's layout, `MapLayout::new(&program.maps)`.
    pub layout: MapLayout,
    /// Each device probe's attach spec, in probe order (kernel selection without the IR).
    pub attach: Vec<AttachSpec>,
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
    /// The layout or attach specs do not match the program.
    #[error("bundle is inconsistent: its {what} does not match its program")]
    Inconsistent {
        /// `layout` or `attach specs`.
        what: &'static str,
    },
}

impl Bundle {
    /// Wraps a program with the current format and version, its layout and attach specs.
    pub fn new(source: String, program: Program) -> Bundle {
        Bundle {
            format: BUNDLE_FORMAT,
            version: env!("CARGO_PKG_VERSION").to_string(),
            source,
            layout: MapLayout::new(&program.maps),
            attach: program.probes.iter().map(|p| p.attach.clone()).collect(),
            program,
        }
    }

    /// Serializes to JSON.
    pub fn to_json(&self) -> String {
        // Serializing plain data with string keys cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Parses JSON, checks the format version, and that the layout and attach specs are
    /// those of the program.
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
        let bundle: Bundle = serde_json::from_str(text).map_err(BundleError::Malformed)?;
        if bundle.layout != MapLayout::new(&bundle.program.maps) {
            return Err(BundleError::Inconsistent { what: "layout" });
        }
        if !bundle
            .attach
            .iter()
            .eq(bundle.program.probes.iter().map(|p| &p.attach))
        {
            return Err(BundleError::Inconsistent {
                what: "attach specs",
            });
        }
        Ok(bundle)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A bundle as warptrace 0.1 (format 1) wrote it: program only, no layout.
    const FORMAT_1: &str = r#"{"format":1,"version":"0.1.0","source":"kernel:entry { @b[kernel] = count(); }","program":{"maps":[{"name":"b","kind":{"Hash":{"capacity":4096}},"keys":["Kernel"],"value":"Count"}],"probes":[]}}"#;

    #[test]
    fn round_trips_and_rejects_other_formats() {
        let b = Bundle::new("kernel:entry { }".into(), Program::default());
        assert_eq!(Bundle::from_json(&b.to_json()).ok(), Some(b.clone()));
        let other = b.to_json().replace("\"format\":2", "\"format\":99");
        assert!(matches!(
            Bundle::from_json(&other),
            Err(BundleError::Format { found: 99 })
        ));
        assert!(matches!(
            Bundle::from_json("{"),
            Err(BundleError::Malformed(_))
        ));
    }

    #[test]
    fn an_old_format_bundle_is_refused() {
        assert!(matches!(
            Bundle::from_json(FORMAT_1),
            Err(BundleError::Format { found: 1 })
        ));
    }

    #[test]
    fn a_layout_that_disagrees_with_the_program_is_refused() {
        let program =
            Program::parse("map @b: hash(keys = 16) [kernel] -> count\n").expect("parses");
        let mut b = Bundle::new(String::new(), program);
        b.layout.total_bytes += 8;
        assert!(matches!(
            Bundle::from_json(&b.to_json()),
            Err(BundleError::Inconsistent { what: "layout" })
        ));
    }
}
