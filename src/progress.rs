//! The bar `warptrace verify` draws on stderr while proofs are being found
//! (`warptrace_verifier::progress`): obligations settled of all, how many came from the
//! proof cache, and the one just settled. Hidden when stderr is not a terminal; a run
//! that the cache answers whole finishes before the bar's first frame.

use indicatif::{ProgressBar, ProgressStyle};
use std::sync::Mutex;
use std::time::Duration;

struct Bar {
    bar: Mutex<Option<(ProgressBar, u64)>>,
}

impl warptrace_verifier::progress::Reporter for Bar {
    fn begin(&self, what: &str, total: usize) {
        let bar = ProgressBar::new(total as u64);
        bar.set_style(
            ProgressStyle::with_template("{prefix} {bar:30} {pos}/{len} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar.set_prefix(format!("warptrace: proving {what}"));
        bar.enable_steady_tick(Duration::from_millis(200));
        *self.lock() = Some((bar, 0));
    }

    fn settled(&self, name: &str, cached: bool) {
        if let Some((bar, from_cache)) = self.lock().as_mut() {
            *from_cache += u64::from(cached);
            bar.set_message(format!("({from_cache} from the proof cache) {name}"));
            bar.inc(1);
        }
    }

    fn end(&self) {
        if let Some((bar, _)) = self.lock().take() {
            bar.finish_and_clear();
        }
    }
}

impl Bar {
    fn lock(&self) -> std::sync::MutexGuard<'_, Option<(ProgressBar, u64)>> {
        self.bar.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Draws proof progress for the rest of the process.
pub fn install() {
    warptrace_verifier::progress::install(Box::new(Bar {
        bar: Mutex::new(None),
    }));
}
