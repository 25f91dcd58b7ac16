//! The warptrace probe language.
#![deny(missing_docs)]
