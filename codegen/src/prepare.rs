//! What both back ends do once per module before they look at a kernel: spread the
//! program's rings over the copies of the map buffer they generate code for (decision
//! 0020), lay out the buffer, and compile the probes' kernel globs.

use std::borrow::Cow;
use warptrace_ir::{KernelFilter, MapLayout, Program};
use warptrace_verifier::VerifiedProgram;

use crate::{Error, Target};

/// A verified program as a back end generates code for it.
#[derive(Debug)]
pub struct Prepared<'a> {
    /// The program with its rings spread, verified again (or the program itself).
    generated: Cow<'a, VerifiedProgram>,
    /// The map buffer's layout the snippets are generated for: one copy.
    pub layout: MapLayout,
    /// The kernels each probe applies to.
    pub filter: KernelFilter,
}

impl<'a> Prepared<'a> {
    /// Prepares `program` for `target`'s back end. `Unsupported` when the program with its
    /// rings spread fails an IR rule (the code would not run the program it was checked
    /// as); `Glob` when a probe's kernel glob does not compile.
    pub fn new(program: &'a VerifiedProgram, target: Target) -> Result<Prepared<'a>, Error> {
        let generated = program
            .as_generated()
            .map_err(|(n, e)| Error::Unsupported {
                target,
                what: format!("rings spread over {n} copies: {e}"),
            })?;
        let layout = MapLayout::new(&generated.program().maps);
        let filter = KernelFilter::new(generated.program())?;
        Ok(Prepared {
            generated,
            layout,
            filter,
        })
    }

    /// The program the code is generated for.
    pub fn program(&self) -> &Program {
        self.generated.program()
    }
}
