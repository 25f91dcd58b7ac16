//! The instrumented images and functions a process holds, the same for CUDA and HIP.
//!
//! Invariant: an image is instrumented and loaded at most once per place (a CUDA context,
//! a HIP device), when the first of its functions is launched there; each function's
//! verdict — its instrumented copy, or why it runs as is — is decided once per place and
//! counted once, under its kernel's name. Unloading an image forgets its modules and
//! functions everywhere, and hands the loaded modules back to be unloaded.

use crate::report::{KernelState, Reason};
use std::collections::HashMap;
use std::hash::Hash;
use std::sync::Arc;

/// Why an image or a kernel is not instrumented: the reason counted, and its detail.
pub(crate) type Failure = (Reason, String);

/// A function's verdict, with the image it belongs to: its instrumented copy, or why it
/// runs as is.
type Verdict<O, F> = (O, Result<Arc<F>, Reason>);

/// Instrumented modules `M` of images owned by `O`, and functions `F`, by place `P`.
#[derive(Debug)]
pub(crate) struct Probed<P, O, M, F> {
    modules: HashMap<(P, O), Result<Arc<M>, Failure>>,
    funcs: HashMap<(P, usize), Verdict<O, F>>,
}

impl<P, O, M, F> Default for Probed<P, O, M, F> {
    fn default() -> Self {
        Probed {
            modules: HashMap::new(),
            funcs: HashMap::new(),
        }
    }
}

impl<P: Copy + Eq + Hash, O: Copy + Eq + Hash, M, F> Probed<P, O, M, F> {
    /// The function for `handle` (kernel `name` of `owner`'s image) at `place`: the
    /// decision made before, or, on first use, `build` of the image's module (once per
    /// place and image) and `take` of the function from it. A failure is recorded as the
    /// kernel's status, once.
    pub(crate) fn get(
        &mut self,
        place: P,
        handle: usize,
        owner: O,
        name: &str,
        build: impl FnOnce() -> Result<Arc<M>, Failure>,
        take: impl FnOnce(&M) -> Result<Arc<F>, Failure>,
    ) -> Result<Arc<F>, Reason> {
        if let Some((_, r)) = self.funcs.get(&(place, handle)) {
            return r.clone();
        }
        let module = self
            .modules
            .entry((place, owner))
            .or_insert_with(build)
            .clone();
        let result = module.and_then(|m| take(&m)).map_err(|(reason, detail)| {
            crate::state::tables().kernel_status(name, KernelState::Skipped { reason, detail });
            reason
        });
        self.funcs.insert((place, handle), (owner, result.clone()));
        result
    }

    /// The instrumented copies of `handle`, at every place.
    pub(crate) fn copies_of(&self, handle: usize) -> impl Iterator<Item = &Arc<F>> {
        self.funcs
            .iter()
            .filter(move |((_, h), _)| *h == handle)
            .filter_map(|(_, (_, r))| r.as_ref().ok())
    }

    /// Forgets everything of `owner`'s image; the modules that were loaded, to unload.
    pub(crate) fn forget(&mut self, owner: O) -> Vec<Arc<M>> {
        self.funcs.retain(|_, (o, _)| *o != owner);
        let gone: Vec<(P, O)> = self
            .modules
            .keys()
            .filter(|(_, o)| *o == owner)
            .copied()
            .collect();
        gone.into_iter()
            .filter_map(|key| self.modules.remove(&key)?.ok())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    type Cache = Probed<u32, u8, &'static str, usize>;

    #[test]
    fn an_image_is_built_once_a_place_and_a_function_decided_once() {
        let mut c = Cache::default();
        let builds = Cell::new(0);
        let build = || {
            builds.set(builds.get() + 1);
            Ok(Arc::new("module"))
        };
        let take = |h: usize| move |_: &&str| Ok(Arc::new(h));
        assert_eq!(*c.get(0, 10, 1, "k", build, take(10)).expect("ok"), 10);
        assert_eq!(*c.get(0, 11, 1, "k", build, take(11)).expect("ok"), 11);
        assert_eq!(builds.get(), 1, "one module a place and image");
        // Decided before: neither closure runs.
        let r = c.get(
            0,
            10,
            1,
            "k",
            || panic!("built again"),
            |_| panic!("taken again"),
        );
        assert_eq!(*r.expect("ok"), 10);
        // Another place builds its own.
        c.get(1, 10, 1, "k", build, take(10)).expect("ok");
        assert_eq!(builds.get(), 2);
        assert_eq!(c.copies_of(10).count(), 2);
    }

    #[test]
    fn a_failure_is_kept_and_forgetting_returns_the_loaded_modules() {
        let mut c = Cache::default();
        let failed = c.get(
            0,
            20,
            2,
            "k",
            || Err((Reason::NoPtx, "none".into())),
            |_| unreachable!("no module"),
        );
        assert_eq!(failed, Err(Reason::NoPtx));
        let again = c.get(0, 20, 2, "k", || panic!("built again"), |_| panic!("taken"));
        assert_eq!(again, Err(Reason::NoPtx));
        c.get(
            0,
            30,
            3,
            "k",
            || Ok(Arc::new("three")),
            |_| Ok(Arc::new(30)),
        )
        .expect("ok");
        c.get(
            1,
            30,
            3,
            "k",
            || Ok(Arc::new("three'")),
            |_| Ok(Arc::new(31)),
        )
        .expect("ok");
        let mut gone: Vec<&str> = c.forget(3).iter().map(|m| **m).collect();
        gone.sort_unstable();
        assert_eq!(gone, ["three", "three'"]);
        assert_eq!(c.copies_of(30).count(), 0);
        // A failed image has no module to unload, and its function is forgotten too.
        assert!(c.forget(2).is_empty());
        let rebuilt = c.get(0, 20, 2, "k", || Ok(Arc::new("two")), |_| Ok(Arc::new(20)));
        assert_eq!(*rebuilt.expect("ok"), 20);
    }
}
