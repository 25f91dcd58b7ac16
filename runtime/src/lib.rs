//! warptrace's runtime.
#![deny(missing_docs)]
