//! The AMD GCN back end of warptrace. It is empty until the AMD back-end issue: the
//! crate exists so the workspace has its final shape and the seams (the verifier's
//! `KernelModel`, the IR) are designed for two targets from the start.
#![deny(missing_docs)]
