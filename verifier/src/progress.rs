//! Progress of a proof run, for a front end to show: a back end announces a run of
//! obligations ([`begin`]), reports each as it is settled ([`settled`], whether a proof
//! cache answered it) and closes the run ([`end`]). With no [`Reporter`] installed (the
//! default: libraries, tests, the runtime) each call does nothing; a reporter only
//! watches, it cannot change a verdict.

use std::sync::OnceLock;

/// What a front end does with progress (the CLI draws a bar).
pub trait Reporter: Send + Sync {
    /// A run of `total` obligations of `what` (e.g. "PTX translation") starts.
    fn begin(&self, what: &str, total: usize);
    /// One obligation is settled; `cached`: a proof cache answered it.
    fn settled(&self, name: &str, cached: bool);
    /// The run is over.
    fn end(&self);
}

static REPORTER: OnceLock<Box<dyn Reporter>> = OnceLock::new();

/// Installs the process's reporter; false if one already was.
pub fn install(reporter: Box<dyn Reporter>) -> bool {
    REPORTER.set(reporter).is_ok()
}

/// See [`Reporter::begin`].
pub fn begin(what: &str, total: usize) {
    if let Some(r) = REPORTER.get() {
        r.begin(what, total);
    }
}

/// See [`Reporter::settled`].
pub fn settled(name: &str, cached: bool) {
    if let Some(r) = REPORTER.get() {
        r.settled(name, cached);
    }
}

/// See [`Reporter::end`].
pub fn end() {
    if let Some(r) = REPORTER.get() {
        r.end();
    }
}
