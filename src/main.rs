//! The warptrace CLI.
fn main() {}
