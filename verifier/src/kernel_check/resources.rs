//! Launch resources: splicing changes neither the kernel's shared memory (declared
//! variables and the dynamic `.extern .shared` array), nor its local variables, nor its
//! launch bounds (`.maxntid`, `.reqntid`, … — they decide how many threads share a
//! block's shared memory and registers).
//!
//! - An inserted shared declaration or launch bound is `SharedMemory`; an inserted local
//!   variable is `MemorySafety` (it grows every thread's stack frame); an inserted
//!   initial register is allowed (`ResourceKind::InitialRegister`).
//! - The kernel-origin resources of both models must be the same list, in order
//!   (compared by kind and text): a dropped, added or changed one is `SharedMemory`
//!   (`MemorySafety` for local variables, `RegisterIsolation` for initial registers).

use super::{snippet_of, Body, Finding, Violations};
use crate::{KernelRule, Origin, Resource, ResourceKind};

fn rule(kind: ResourceKind) -> KernelRule {
    match kind {
        ResourceKind::Shared | ResourceKind::LaunchBound => KernelRule::SharedMemory,
        ResourceKind::Local => KernelRule::MemorySafety,
        ResourceKind::InitialRegister => KernelRule::RegisterIsolation,
    }
}

fn what(kind: ResourceKind) -> &'static str {
    match kind {
        ResourceKind::Shared => "the kernel's shared memory size",
        ResourceKind::LaunchBound => "the kernel's launch bounds",
        ResourceKind::Local => "every thread's local memory frame",
        ResourceKind::InitialRegister => "the registers the kernel starts with",
    }
}

pub(super) fn check(original: &Body<'_>, spliced: &Body<'_>, out: &mut Violations) {
    for r in &spliced.resources {
        let Some(snippet) = snippet_of(r.origin) else {
            continue;
        };
        if r.kind == ResourceKind::InitialRegister {
            // One more register initialized after the kernel's (which are compared
            // below, so none of them moved).
            continue;
        }
        out.push(Finding {
            rule: rule(r.kind),
            snippet: Some(snippet),
            line: r.line,
            text: &r.text,
            message: format!("inserted declaration `{}` changes {}", r.text, what(r.kind)),
            corrupts: Some(what(r.kind).trim_start_matches("the ").to_string()),
        });
    }
    let kernel = |b: &Body<'_>| -> Vec<Resource> {
        b.resources
            .iter()
            .filter(|r| r.origin == Origin::Kernel)
            .cloned()
            .collect()
    };
    let before = kernel(original);
    let after = kernel(spliced);
    let same = |a: &Resource, b: &Resource| a.kind == b.kind && a.text == b.text;
    for (a, b) in before.iter().zip(&after) {
        if !same(a, b) {
            out.push(Finding {
                rule: rule(a.kind),
                snippet: None,
                line: b.line,
                text: &b.text,
                message: format!(
                    "kernel declaration `{}` (original line {}) became `{}`, which changes {}",
                    a.text,
                    a.line,
                    b.text,
                    what(a.kind)
                ),
                corrupts: Some(a.text.clone()),
            });
            return;
        }
    }
    for a in before.iter().skip(after.len()) {
        out.push(Finding {
            rule: rule(a.kind),
            snippet: None,
            line: 0,
            text: &a.text,
            message: format!(
                "kernel declaration `{}` (original line {}) is missing, which changes {}",
                a.text,
                a.line,
                what(a.kind)
            ),
            corrupts: Some(a.text.clone()),
        });
    }
    for b in after.iter().skip(before.len()) {
        out.push(Finding {
            rule: rule(b.kind),
            snippet: None,
            line: b.line,
            text: &b.text,
            message: format!(
                "`{}` is marked as kernel code but the original kernel does not declare it",
                b.text
            ),
            corrupts: Some(what(b.kind).trim_start_matches("the ").to_string()),
        });
    }
}
