//! One snippet per straight-line piece: the sites of consecutive instructions that every
//! thread reaching the first one also runs, in order, whose probes only count in
//! persistent registers, lowered as one snippet with their combined effect
//! ([`warptrace_ir::group`], decision 0048).
//!
//! **Invariant.** A group covers sites of one piece: unguarded instructions with no label
//! a branch can reach between them, and no instruction that can change which threads go
//! on (a branch, a call, a return, an exit, a trap, a barrier, a warp collective) before
//! the last of them. The threads that run the
//! group's snippet, before its first instruction, are then exactly the threads that run
//! each of its sites, each one once, in order, and with the same active lanes: PTX warps
//! diverge only at branches. The snippet updates only persistent registers, which nothing
//! else reads within the piece — a site of any other probe ends the group — so every read
//! of them outside the group sees the value the per-site snippets would have left.

use crate::attach::{Place, Site};
use crate::parse::{Body, Operand, StmtKind};
use std::borrow::Cow;
use std::collections::HashSet;
use warptrace_ir::group::Group;
use warptrace_ir::{Position, Probe, Program};
use warptrace_verifier::Flow;

/// The sites of a body with its groups, and the program their probes index: the
/// original one, or a copy with one probe per group appended.
pub(crate) struct Grouped<'p> {
    pub program: Cow<'p, Program>,
    pub sites: Vec<Site>,
}

/// Whether a piece ends after `i`: anything but an instruction that falls through to the
/// next with the same threads. A branch, a call (its callee may exit), a return, an exit
/// or a trap can leave the straight line or let fewer threads go on; a barrier or a warp
/// collective can let diverged lanes of a warp reconverge, so more go on.
fn ends_piece(i: &crate::parse::Instruction) -> bool {
    i.root() == "brx" || crate::insn::facts(i, &|_| false).flow != Flow::Next
}

/// The labels a branch can reach: every name a `bra` or `brx` names, and every name of a
/// `.branchtargets` table. Other labels (`$L__tmp0`, which only the debug sections
/// name) are no join points, so a piece goes on across them.
fn branch_targets(body: &Body) -> HashSet<&str> {
    let mut out = HashSet::new();
    for s in &body.stmts {
        match &s.kind {
            StmtKind::Instr(i) if matches!(i.root(), "bra" | "brx") => {
                out.extend(i.operands.iter().filter_map(|o| match o {
                    Operand::Symbol(n) => Some(n.as_str()),
                    _ => None,
                }));
            }
            StmtKind::Directive(None) => {
                if let Some(list) = s.text.strip_prefix(".branchtargets") {
                    out.extend(
                        list.split(|c: char| c == ',' || c == ';' || c.is_whitespace())
                            .filter(|t| !t.is_empty()),
                    );
                }
            }
            _ => {}
        }
    }
    out
}

/// A group being formed: its sites and their combined effect.
#[derive(Default)]
struct Open {
    sites: Vec<Site>,
    group: Group,
}

struct Builder<'p> {
    program: &'p Program,
    extra: Vec<Probe>,
    out: Vec<Site>,
    open: Open,
}

impl Builder<'_> {
    /// Ends the open group: one site for it, or its only site as it was.
    fn close(&mut self) {
        let open = std::mem::take(&mut self.open);
        match open.sites.as_slice() {
            [] => {}
            [one] => self.out.push(*one),
            [first, ..] => {
                let mut attach = self.program.probes[first.probe].attach.clone();
                attach.granularity = warptrace_ir::Granularity::Thread;
                let insns = open.group.body();
                let probe = Probe {
                    attach,
                    spans: vec![None; insns.len()],
                    insns,
                };
                // A group's body passes the IR rules its firings passed, as every body
                // that is lowered does; one that did not would keep its sites.
                if !self.verifies(&probe) {
                    self.out.extend(open.sites);
                    return;
                }
                self.out.push(Site {
                    probe: self.program.probes.len() + self.extra.len(),
                    stmt: first.stmt,
                    place: Place::Instr,
                    stands_for: open.sites.len() as u32,
                });
                self.extra.push(probe);
            }
        }
    }

    /// Whether `probe` alone, with the program's persistent registers, passes the IR
    /// verifier.
    fn verifies(&self, probe: &Probe) -> bool {
        let alone = Program {
            persistent: self.program.persistent.clone(),
            probes: vec![probe.clone()],
            ..Program::default()
        };
        warptrace_verifier::verify_program(&alone).is_ok()
    }

    /// The sites of one statement, which may join the open group when `joins`.
    fn statement(&mut self, sites: &[Site], joins: bool) {
        if !joins {
            self.close();
            self.out.extend_from_slice(sites);
            return;
        }
        let push = |group: &mut Group| {
            sites
                .iter()
                .try_for_each(|s| group.push(&self.program.probes[s.probe]).map_err(drop))
        };
        let mut group = self.open.group.clone();
        if push(&mut group).is_ok() {
            self.open.group = group;
            self.open.sites.extend_from_slice(sites);
            return;
        }
        self.close();
        let mut group = Group::new();
        if push(&mut group).is_ok() {
            self.open = Open {
                sites: sites.to_vec(),
                group,
            };
        } else {
            self.out.extend_from_slice(sites);
        }
    }
}

/// `sites` of `body` (in [`crate::attach::find_sites`]'s order) with the sites of each
/// straight-line piece whose probes group replaced by one site of a new probe.
pub(crate) fn sites<'p>(body: &Body, program: &'p Program, sites: &[Site]) -> Grouped<'p> {
    let mut b = Builder {
        program,
        extra: Vec::new(),
        out: Vec::with_capacity(sites.len()),
        open: Open::default(),
    };
    let mut rest = sites;
    // Kernel-entry sites come first and are not grouped.
    let entry = rest.iter().take_while(|s| s.stmt.is_none()).count();
    b.out.extend_from_slice(&rest[..entry]);
    rest = &rest[entry..];
    let targets = branch_targets(body);
    for (idx, stmt) in body.stmts.iter().enumerate() {
        if rest.is_empty() {
            break;
        }
        let here = rest.iter().take_while(|s| s.stmt == Some(idx)).count();
        let (mine, later) = rest.split_at(here);
        rest = later;
        match &stmt.kind {
            StmtKind::Label(name) if targets.contains(name.as_str()) => b.statement(mine, false),
            StmtKind::Instr(i) => {
                if !mine.is_empty() {
                    let joins = i.guard.is_none()
                        && mine.iter().all(|s| {
                            s.place == Place::Instr
                                && program.probes[s.probe].attach.position == Position::Before
                        });
                    b.statement(mine, joins);
                }
                if ends_piece(i) {
                    b.close();
                }
            }
            _ if !mine.is_empty() => b.statement(mine, false),
            _ => {}
        }
    }
    b.close();
    // Sites past the body's statements (none are made) stay as they were.
    b.out.extend_from_slice(rest);
    let program = if b.extra.is_empty() {
        Cow::Borrowed(program)
    } else {
        let mut p = program.clone();
        p.probes.extend(b.extra);
        Cow::Owned(p)
    };
    Grouped {
        program,
        sites: b.out,
    }
}
