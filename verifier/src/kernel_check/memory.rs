//! `SharedMemory` and `MemorySafety`: what memory inserted code may touch.
//!
//! Every memory access of an inserted instruction is classified once:
//!
//! - shared, or generic (a generic address may point into shared memory): `SharedMemory`;
//! - otherwise a load must read `.param` space (the map-base parameter) and a store or
//!   atomic must write global space (the map buffer); anything else: `MemorySafety`.
//!
//! This first cut checks state spaces only. That a global store or atomic lands inside
//! the probe's own map buffer — the address is the map base plus an offset within the
//! map's region — is the full verifier's job (IR-level index bounds proved by abstract
//! interpretation and z3, and address provenance on the spliced code); it is not proved
//! here.

use super::{snippet_of, Body, Violations};
use crate::{Access, Item, KernelRule, MemRef, Space};

pub(super) fn check(spliced: &Body, out: &mut Violations) {
    for item in &spliced.items {
        let Item::Instr(x) = item else { continue };
        let Some(snippet) = snippet_of(x.origin) else {
            continue;
        };
        for m in &x.mem {
            if let Some((rule, message)) = classify(*m) {
                out.push(rule, Some(snippet), x.line, &x.text, message);
            }
        }
    }
}

/// The rule an inserted access breaks and why, or `None` if it is allowed.
fn classify(m: MemRef) -> Option<(KernelRule, String)> {
    let access = match m.access {
        Access::Load => "load",
        Access::Store => "store",
        Access::Atomic => "atomic",
    };
    match (m.space, m.access) {
        (Space::Shared, _) => Some((
            KernelRule::SharedMemory,
            format!("inserted {access} touches shared memory"),
        )),
        (Space::Generic, _) => Some((
            KernelRule::SharedMemory,
            format!("inserted {access} uses a generic address, which may alias shared memory"),
        )),
        (Space::Param, Access::Load) | (Space::Global, Access::Store | Access::Atomic) => None,
        (space, Access::Load) => Some((
            KernelRule::MemorySafety,
            format!(
                "inserted load from {} memory; probes may load only the map-base parameter (.param)",
                space_name(space)
            ),
        )),
        (space, Access::Store | Access::Atomic) => Some((
            KernelRule::MemorySafety,
            format!(
                "inserted {access} to {} memory; probes may write only their map buffer in global memory",
                space_name(space)
            ),
        )),
    }
}

fn space_name(space: Space) -> &'static str {
    match space {
        Space::Global => "global",
        Space::Shared => "shared",
        Space::Local => "local",
        Space::Param => "param",
        Space::Const => "const",
        Space::Generic => "generic",
    }
}
