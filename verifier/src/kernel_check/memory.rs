//! `SharedMemory` and `MemorySafety`: what memory inserted code may touch.
//!
//! Every memory access of an inserted instruction is classified once:
//!
//! - shared, or generic (a generic address may point into shared memory): `SharedMemory`;
//! - a load must read either the map parameter itself ([`KernelModel::map_param`], by
//!   name), a parameter the model lists as readable ([`KernelModel::readable_params`]:
//!   GCN's hidden grid arguments), or global memory at a map pointer;
//! - a store or atomic must write global memory at a map pointer;
//!
//! anything else is `MemorySafety`. A *map pointer* is a register that, on every path to
//! the access, holds the map parameter's value plus offsets computed by inserted code
//! (`provenance.rs`). So inserted code can neither write a kernel buffer (its address
//! comes from a kernel register or parameter), nor a global variable (a symbol), nor an
//! absolute address, nor read the kernel's memory. That the offset keeps the access
//! inside the map's own region is the IR-level verifier's proof (map indices in bounds);
//! raw probes never write an address of their own (see `codegen-ptx`'s `raw` module).
//! An inserted access that no path reaches is not trusted to stay dead: nothing is a map
//! pointer there. The one inserted store to parameter space allowed, the map argument of
//! a call redirected to an instrumented clone, is `calls.rs`'s to judge.
//!
//! [`KernelModel::map_param`]: crate::KernelModel::map_param
//! [`KernelModel::readable_params`]: crate::KernelModel::readable_params

use super::cfg::Cfg;
use super::provenance::Provenance;
use super::{snippet_of, Body, Finding, Violations};
use crate::{Access, Addr, Item, KernelRule, MemRef, Space};
use std::collections::HashSet;

/// `call_setup`: the inserted stores of a map argument right before a redirected call,
/// which `calls.rs` judges (the only inserted stores to parameter space it allows).
pub(super) fn check(
    spliced: &Body<'_>,
    cfg: &Cfg,
    call_setup: &HashSet<usize>,
    out: &mut Violations,
) {
    let inserted_access = spliced.items.iter().any(|item| {
        matches!(item, Item::Instr(x) if snippet_of(x.origin).is_some() && !x.mem.is_empty())
    });
    if !inserted_access {
        return;
    }
    let provenance = Provenance::of(spliced, cfg);
    let map_param = spliced.map_param.as_deref();
    for (i, item) in spliced.items.iter().enumerate() {
        let Item::Instr(x) = item else { continue };
        let Some(snippet) = snippet_of(x.origin) else {
            continue;
        };
        let node = cfg.node_of[i];
        let is_ptr = |reg: &str| node.is_some_and(|n| provenance.is_map_pointer(n, reg));
        let reached = node.is_some_and(|n| provenance.reaches(n));
        for m in &x.mem {
            if call_setup.contains(&i) && (m.space, m.access) == (Space::Param, Access::Store) {
                continue;
            }
            if let Some((rule, mut message, corrupts)) =
                classify(m, map_param, &spliced.readable_params, &is_ptr)
            {
                if !reached && rule == KernelRule::MemorySafety {
                    message.push_str(
                        " (no path from the kernel's entry reaches it, so no address is proved \
                         there)",
                    );
                }
                out.push(Finding {
                    rule,
                    snippet: Some(snippet),
                    line: x.line,
                    text: &x.text,
                    message,
                    corrupts,
                });
            }
        }
    }
}

fn access_name(a: Access) -> &'static str {
    match a {
        Access::Load => "load",
        Access::Store => "store",
        Access::Atomic => "atomic",
    }
}

/// The address as the messages name it.
fn addr_name(addr: &Addr) -> String {
    match addr {
        Addr::Reg(r) => format!("`{r}`"),
        Addr::Symbol(s) => format!("`{s}`"),
        Addr::Absolute => "an absolute address".into(),
        Addr::Other(regs) if regs.is_empty() => "a compound address".into(),
        Addr::Other(regs) => format!("a compound address of `{}`", regs.join("`, `")),
        Addr::Unknown => "an address the back end does not decode".into(),
        Addr::Indexed { base, index } => format!("`{base}` indexed by `{}`", index.join("`, `")),
    }
}

/// What the access at `addr` would touch, for [`crate::KernelViolation::corrupts`].
fn addr_subject(addr: &Addr, space: Space) -> String {
    match addr {
        Addr::Reg(r) | Addr::Symbol(r) => r.to_string(),
        Addr::Other(regs) if !regs.is_empty() => regs.join(", "),
        Addr::Indexed { base, .. } => base.to_string(),
        _ => format!("{} memory", space_name(space)),
    }
}

/// The rule an inserted access breaks, why, and what it would touch; `None` if allowed.
fn classify(
    m: &MemRef,
    map_param: Option<&str>,
    readable: &[String],
    is_ptr: &dyn Fn(&str) -> bool,
) -> Option<(KernelRule, String, Option<String>)> {
    let access = access_name(m.access);
    let at_map_pointer = match &m.addr {
        Addr::Reg(r) => is_ptr(r),
        Addr::Indexed { base, index } => is_ptr(base) && !index.iter().any(|r| is_ptr(r)),
        _ => false,
    };
    let param = map_param.unwrap_or("(none)");
    match (m.space, m.access) {
        (Space::Shared, _) => Some((
            KernelRule::SharedMemory,
            format!("inserted {access} touches shared memory"),
            Some("shared memory".into()),
        )),
        (Space::Generic, _) => Some((
            KernelRule::SharedMemory,
            format!("inserted {access} uses a generic address, which may alias shared memory"),
            Some(addr_subject(&m.addr, Space::Shared)),
        )),
        (Space::Param, Access::Load) => match &m.addr {
            Addr::Symbol(s) if Some(s.as_str()) == map_param => None,
            Addr::Symbol(s) if readable.iter().any(|r| r == s) => None,
            other => Some((
                KernelRule::MemorySafety,
                format!(
                    "inserted load from parameter {}; probes may load only the map parameter \
                     `{param}`",
                    addr_name(other)
                ),
                Some(addr_subject(other, Space::Param)),
            )),
        },
        (Space::Global, _) if at_map_pointer => None,
        (Space::Global, Access::Load) => Some((
            KernelRule::MemorySafety,
            format!(
                "inserted load from global memory at {}, which is not derived from the map \
                 parameter `{param}`; probes may load only their map buffer",
                addr_name(&m.addr)
            ),
            Some(addr_subject(&m.addr, Space::Global)),
        )),
        (Space::Global, _) => Some((
            KernelRule::MemorySafety,
            format!(
                "inserted {access} to global memory at {}, which is not derived from the map \
                 parameter `{param}`; probes may write only their map buffer",
                addr_name(&m.addr)
            ),
            Some(addr_subject(&m.addr, Space::Global)),
        )),
        (space, Access::Load) => Some((
            KernelRule::MemorySafety,
            format!(
                "inserted load from {} memory; probes may load only the map parameter and \
                 their map buffer",
                space_name(space)
            ),
            Some(addr_subject(&m.addr, space)),
        )),
        (space, Access::Store | Access::Atomic) => Some((
            KernelRule::MemorySafety,
            format!(
                "inserted {access} to {} memory; probes may write only their map buffer in \
                 global memory",
                space_name(space)
            ),
            Some(addr_subject(&m.addr, space)),
        )),
    }
}

pub(super) fn space_name(space: Space) -> &'static str {
    match space {
        Space::Global => "global",
        Space::Shared => "shared",
        Space::Local => "local",
        Space::Param => "param",
        Space::Const => "const",
        Space::Generic => "generic",
    }
}
