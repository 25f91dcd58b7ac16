//! The `LD_PRELOAD` library.
