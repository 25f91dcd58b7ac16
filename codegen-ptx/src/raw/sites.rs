//! Where each probe of a file runs in one kernel body.
//!
//! `kernel` runs the `before` block at the entry point (after the body's leading
//! declarations) and the `after` block before every `ret`/`exit`; an opcode pattern runs
//! `before` before and `after` right after every instruction it matches. A pattern
//! matches when its dot-separated components appear in a row among the opcode's
//! (`ld.global` matches `ld.global.nc.v4.f32`; `mma.sync.aligned` matches
//! `wmma.mma.sync.aligned.row.col…` as in NEUTRINO, which matches substrings).

use super::{Position, ProbeFile};
use crate::parse::{Body, StmtKind};
use warptrace_verifier::Flow;

/// Which block of a probe runs, and where.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum When {
    /// `before` at the kernel's entry point.
    Entry,
    /// `after` of a `kernel` probe, before an exit instruction.
    BeforeExit,
    /// `before`, before the instruction.
    Before,
    /// `after`, right after the instruction.
    After,
}

/// One run of one probe's block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Site {
    /// Index of the probe in the file.
    pub probe: usize,
    /// The body statement (none at the entry).
    pub stmt: Option<usize>,
    /// Which block, where.
    pub when: When,
}

/// Whether the components of `pattern` appear in a row among those of `opcode`.
pub(super) fn matches(opcode: &str, pattern: &str) -> bool {
    let ops: Vec<&str> = opcode.split('.').collect();
    let pat: Vec<&str> = pattern.split('.').collect();
    pat.len() <= ops.len() && ops.windows(pat.len()).any(|w| w == pat.as_slice())
}

/// Every site of every probe in `body`: entry sites first, then statement by statement
/// the `before` runs, then the `after` runs, each in file order.
pub(super) fn find(file: &ProbeFile, body: &Body) -> Vec<Site> {
    let mut out = Vec::new();
    for (p, probe) in file.probes.iter().enumerate() {
        if probe.before.is_some() && probe.positions.contains(&Position::Kernel) {
            out.push(Site {
                probe: p,
                stmt: None,
                when: When::Entry,
            });
        }
    }
    for (i, stmt) in body.stmts.iter().enumerate() {
        let StmtKind::Instr(instr) = &stmt.kind else {
            continue;
        };
        let exits = crate::insn::facts(instr, &|_| false).flow == Flow::Exit;
        let hit = |p: &super::RawProbe| {
            p.positions.iter().any(|pos| match pos {
                Position::Opcode(pat) => matches(&instr.opcode, pat),
                Position::Kernel => false,
            })
        };
        for (p, probe) in file.probes.iter().enumerate() {
            if exits && probe.after.is_some() && probe.positions.contains(&Position::Kernel) {
                out.push(Site {
                    probe: p,
                    stmt: Some(i),
                    when: When::BeforeExit,
                });
            }
            if probe.before.is_some() && hit(probe) {
                out.push(Site {
                    probe: p,
                    stmt: Some(i),
                    when: When::Before,
                });
            }
        }
        for (p, probe) in file.probes.iter().enumerate() {
            if probe.after.is_some() && hit(probe) {
                out.push(Site {
                    probe: p,
                    stmt: Some(i),
                    when: When::After,
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn patterns_match_components_in_a_row() {
        assert!(matches("ld.global.nc.v4.f32", "ld.global"));
        assert!(matches("ld.global", "ld.global"));
        assert!(!matches("ldu.global.f32", "ld.global"));
        assert!(!matches("ld.shared.f32", "ld.global"));
        assert!(matches("bra.uni", "bra"));
        assert!(matches(
            "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32",
            "mma.sync.aligned"
        ));
        assert!(matches("cp.async.cg.shared.global", "cp.async.cg"));
        assert!(!matches("cp.async.commit_group", "cp.async.cg"));
    }
}
