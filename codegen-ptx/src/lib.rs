//! The PTX back end of warptrace.
#![deny(missing_docs)]
