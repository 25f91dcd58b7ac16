//! Natural loops of a kernel body, for the `loop:header`, `loop:backedge` and `loop:exit`
//! attach points.
//!
//! **Blocks.** A body is cut into basic blocks from its entry point (the first statement
//! after the leading directives, where the prologue goes): a label starts a block unless
//! the block it would end has no instruction yet (consecutive labels name one block);
//! `bra`, `brx.idx`, `ret`, `exit`, `trap` and `brkpt` end one (the next statement starts
//! a new block, labelled or not; `brkpt` is a trap, as in `insn.rs`). Directives and `{ }` scope braces belong to the block they
//! stand in; calls, barriers and everything else fall through. Labels are resolved the way
//! PTX scopes them: a branch sees the labels of its own `{ }` scope and of the enclosing
//! ones (the labels of inline assembly are local to its braces, so one name may be
//! defined in several scopes).
//!
//! **Edges.** An unguarded `bra L` has one successor (the block of `L`); a guarded one
//! (`@%p bra L`, `@!%p bra L`) has two, `L` when taken and the next block when not; a
//! `brx.idx %r, TABLE` goes to every label of the `.branchtargets` directive labelled
//! `TABLE` (and, guarded, to the next block); a guarded `ret`/`exit`/`trap` falls through,
//! an unguarded one has no successor (leaving the kernel is never a loop edge); any other
//! last instruction falls through into the next block.
//!
//! **Loops** and their **sites**: `warptrace_verifier::structure` (shared with the GCN back
//! end), from these blocks and edges; [`PtxCode`] answers its questions about PTX
//! statements. An edge of a `brx.idx` cannot be singled out by a snippet placed before the
//! branch, so `loop:backedge`/`loop:exit` at such an edge are unsupported.

use crate::attach::entry_point;
use crate::insn::facts;
use crate::labels::{branch_targets, Scopes};
use crate::parse::{Body, Instruction, Name, StmtKind};
use std::collections::BTreeSet;
use warptrace_verifier::structure::Code;
pub(crate) use warptrace_verifier::structure::{Anchor, Block, Edge, EdgeKind, Loops};

/// Analyses `body`. An error names a branch whose target cannot be resolved (a label
/// not defined in a visible scope, a `brx.idx` table that is not a `.branchtargets`).
pub(crate) fn analyze(body: &Body) -> Result<Loops, String> {
    let blocks = cut_blocks(body);
    let scopes = Scopes::of(body);
    let block_of_stmt = {
        let mut v = vec![None; body.stmts.len()];
        for (b, block) in blocks.iter().enumerate() {
            for s in v.iter_mut().take(block.end).skip(block.start) {
                *s = Some(b);
            }
        }
        v
    };
    // The statement of label `name` as seen from statement `at`.
    let resolve = |name: &str, at: usize| scopes.resolve(name, at);
    let block_at = |label: usize| -> Result<usize, String> {
        block_of_stmt[label].ok_or_else(|| {
            format!(
                "label `{}` is not in the kernel's code",
                body.stmts[label].text
            )
        })
    };
    let mut edges = Vec::new();
    for (b, block) in blocks.iter().enumerate() {
        let next = (b + 1 < blocks.len()).then_some(b + 1);
        let Some(last) = block.last_instr else {
            if let Some(n) = next {
                let at = block.labels.last().copied().unwrap_or(block.start);
                edges.push(edge(b, n, EdgeKind::FallThrough(at)));
            }
            continue;
        };
        let StmtKind::Instr(i) = &body.stmts[last].kind else {
            continue;
        };
        let falls = match Terminator::of(i) {
            Terminator::None => true,
            Terminator::Exit => i.guard.is_some(),
            Terminator::Branch(target) => {
                let l = resolve(&target, last).ok_or_else(|| {
                    format!(
                        "branch target `{target}` of `{}` is not a label in scope",
                        i.opcode
                    )
                })?;
                edges.push(edge(b, block_at(l)?, EdgeKind::Taken(last)));
                i.guard.is_some()
            }
            Terminator::Indexed(table) => {
                let l = resolve(&table, last)
                    .ok_or_else(|| format!("`brx.idx` table `{table}` is not a label in scope"))?;
                let targets = branch_targets(body, l).ok_or_else(|| {
                    format!("`brx.idx` table `{table}` is not a `.branchtargets` list")
                })?;
                let mut seen = BTreeSet::new();
                for t in targets {
                    let l = resolve(&t, l).ok_or_else(|| {
                        format!("branch target `{t}` of table `{table}` is not a label in scope")
                    })?;
                    let to = block_at(l)?;
                    if seen.insert(to) {
                        edges.push(edge(b, to, EdgeKind::Indexed(last)));
                    }
                }
                i.guard.is_some()
            }
        };
        if let (true, Some(n)) = (falls, next) {
            edges.push(edge(b, n, EdgeKind::FallThrough(last)));
        }
    }
    Ok(Loops::new(blocks, edges))
}

/// The name of a block's first label (`$L__BB0_2`), or `line N` without one.
pub(crate) fn block_name(cfg: &Loops, block: usize, body: &Body) -> String {
    let b = &cfg.blocks[block];
    match b.labels.first().map(|&l| &body.stmts[l].kind) {
        Some(StmtKind::Label(name)) => name.to_string(),
        _ => format!("line {}", body.stmts[b.start].line),
    }
}

/// A PTX body as `warptrace_verifier::structure` sees it.
pub(crate) struct PtxCode<'a>(pub &'a Body);

impl PtxCode<'_> {
    fn instr(&self, s: usize) -> Option<&Instruction> {
        match &self.0.stmts.get(s)?.kind {
            StmtKind::Instr(i) => Some(i),
            _ => None,
        }
    }
}

impl Code for PtxCode<'_> {
    fn ends_block(&self, s: usize) -> bool {
        self.instr(s)
            .is_some_and(|i| !matches!(Terminator::of(i), Terminator::None))
    }

    fn leaves(&self, s: usize) -> bool {
        self.instr(s)
            .is_some_and(|i| matches!(Terminator::of(i), Terminator::Exit))
    }

    fn guarded(&self, s: usize) -> bool {
        self.instr(s).is_some_and(|i| i.guard.is_some())
    }

    fn describe(&self, s: usize) -> String {
        let stmt = &self.0.stmts[s];
        format!("`{}` (line {})", stmt.text, stmt.line)
    }
}

fn edge(from: usize, to: usize, kind: EdgeKind) -> Edge {
    Edge { from, to, kind }
}

/// How an instruction ends a block.
enum Terminator {
    /// It does not.
    None,
    /// `bra` to this label.
    Branch(Name),
    /// `brx.idx` through this `.branchtargets` table.
    Indexed(Name),
    /// `ret`, `exit`, `trap`, `brkpt`: leaves the kernel.
    Exit,
}

impl Terminator {
    fn of(i: &Instruction) -> Terminator {
        match i.root() {
            "brx" => match i.operands.last() {
                Some(crate::parse::Operand::Symbol(s)) => Terminator::Indexed(s.clone()),
                _ => Terminator::Indexed(String::new().into()),
            },
            _ => match facts(i, &|_| false).flow {
                warptrace_verifier::Flow::Branch { target, .. } => Terminator::Branch(target),
                warptrace_verifier::Flow::Exit | warptrace_verifier::Flow::Trap => Terminator::Exit,
                _ => Terminator::None,
            },
        }
    }
}

/// The blocks of `body`.
fn cut_blocks(body: &Body) -> Vec<Block> {
    let mut blocks: Vec<Block> = Vec::new();
    // Whether the current block is open (instructions may join it).
    let mut open = false;
    let entry = entry_point(body);
    let new_block = |blocks: &mut Vec<Block>, start: usize| {
        if let Some(b) = blocks.last_mut() {
            b.end = start;
        }
        blocks.push(Block {
            start,
            end: start,
            labels: Vec::new(),
            first_instr: None,
            last_instr: None,
        });
    };
    for (i, s) in body.stmts.iter().enumerate() {
        if i < entry {
            continue;
        }
        match &s.kind {
            StmtKind::Label(_) => {
                let starts = !open || blocks.last().is_some_and(|b| b.first_instr.is_some());
                if starts {
                    new_block(&mut blocks, i);
                    open = true;
                }
                if let Some(b) = blocks.last_mut() {
                    b.labels.push(i);
                }
            }
            StmtKind::Instr(instr) => {
                if !open {
                    new_block(&mut blocks, i);
                    open = true;
                }
                if let Some(b) = blocks.last_mut() {
                    b.first_instr.get_or_insert(i);
                    b.last_instr = Some(i);
                }
                if !matches!(Terminator::of(instr), Terminator::None) {
                    open = false;
                }
            }
            _ => {}
        }
    }
    if let Some(b) = blocks.last_mut() {
        b.end = body.stmts.len();
    }
    blocks
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse;
    use warptrace_ir::LoopEdge;

    /// The loops of a kernel whose body is `body`.
    fn analyze(body: &str) -> (Loops, crate::parse::Module) {
        let src = format!(".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{{\n\t.reg .pred %p<4>;\n\t.reg .b32 %r<8>;\n{body}\n}}\n");
        let m = parse(&src).expect("parses");
        let loops =
            super::analyze(m.functions()[0].body.as_ref().expect("body")).expect("analyzes");
        (loops, m)
    }

    /// Per loop: (header label, blocks by first label or `line N`, back-edge sources,
    /// exit (from, to) pairs).
    fn summary(l: &Loops, m: &crate::parse::Module) -> Vec<(String, usize, usize, usize)> {
        let body = m.functions()[0].body.as_ref().expect("body");
        l.loops
            .iter()
            .map(|lp| {
                (
                    block_name(l, lp.header, body),
                    lp.blocks.len(),
                    lp.backedges.len(),
                    lp.exits.len(),
                )
            })
            .collect()
    }

    /// The loop sites of `edge` as (anchor line text, after?, guarded).
    fn sites(l: &Loops, m: &crate::parse::Module, edge: LoopEdge) -> Vec<(String, bool, bool)> {
        let body = m.functions()[0].body.as_ref().expect("body");
        l.sites(edge, &PtxCode(body))
            .expect("placeable")
            .into_iter()
            .map(|s| {
                (
                    body.stmts[s.anchor.stmt()].text.clone(),
                    matches!(s.anchor, Anchor::After(_)),
                    s.guarded,
                )
            })
            .collect()
    }

    fn t(s: &str, after: bool, guarded: bool) -> (String, bool, bool) {
        (s.to_owned(), after, guarded)
    }

    #[test]
    fn a_loop_whose_latch_is_a_predicated_branch() {
        let (l, m) = analyze(
            "\tmov.u32 %r1, 0;\n$L_head:\n\tadd.s32 %r1, %r1, 1;\n\tsetp.lt.s32 %p1, %r1, 10;\n\t@%p1 bra $L_head;\n\tst.global.u32 [%r2], %r1;\n\tret;",
        );
        assert_eq!(summary(&l, &m), [("$L_head".into(), 1, 1, 1)]);
        assert_eq!(
            sites(&l, &m, LoopEdge::Header),
            [t("add.s32 %r1, %r1, 1;", false, false)]
        );
        assert_eq!(
            sites(&l, &m, LoopEdge::Backedge),
            [t("@%p1 bra $L_head;", false, true)]
        );
        // The exit is the branch not taken: right after it, unguarded.
        assert_eq!(
            sites(&l, &m, LoopEdge::Exit),
            [t("@%p1 bra $L_head;", true, false)]
        );
    }

    #[test]
    fn nested_loops() {
        let (l, m) = analyze(concat!(
            "\tmov.u32 %r1, 0;\n",
            "$L_outer:\n",
            "\tmov.u32 %r2, 0;\n",
            "$L_inner:\n",
            "\tadd.s32 %r2, %r2, 1;\n",
            "\tsetp.lt.s32 %p1, %r2, 4;\n",
            "\t@%p1 bra $L_inner;\n",
            "\tadd.s32 %r1, %r1, 1;\n",
            "\tsetp.lt.s32 %p2, %r1, 4;\n",
            "\t@%p2 bra $L_outer;\n",
            "\tret;"
        ));
        assert_eq!(
            summary(&l, &m),
            [("$L_outer".into(), 3, 1, 1), ("$L_inner".into(), 1, 1, 1)]
        );
        let inner = &l.loops[1];
        assert!(inner.blocks.is_subset(&l.loops[0].blocks));
        assert_eq!(
            sites(&l, &m, LoopEdge::Header),
            [
                t("mov.u32 %r2, 0;", false, false),
                t("add.s32 %r2, %r2, 1;", false, false)
            ]
        );
        assert_eq!(
            sites(&l, &m, LoopEdge::Exit),
            [
                t("@%p2 bra $L_outer;", true, false),
                t("@%p1 bra $L_inner;", true, false)
            ]
        );
    }

    #[test]
    fn a_loop_with_two_exits_and_an_unconditional_latch() {
        let (l, m) = analyze(concat!(
            "$L_head:\n",
            "\tsetp.eq.s32 %p1, %r1, 0;\n",
            "\t@%p1 bra $L_out;\n",
            "\tsetp.eq.s32 %p2, %r2, 0;\n",
            "\t@!%p2 bra $L_done;\n",
            "\tadd.s32 %r1, %r1, -1;\n",
            "\tbra.uni $L_head;\n",
            "$L_out:\n",
            "\tst.global.u32 [%r3], %r1;\n",
            "$L_done:\n",
            "\tret;"
        ));
        assert_eq!(summary(&l, &m), [("$L_head".into(), 3, 1, 2)]);
        assert_eq!(
            sites(&l, &m, LoopEdge::Backedge),
            [t("bra.uni $L_head;", false, false)]
        );
        assert_eq!(
            sites(&l, &m, LoopEdge::Exit),
            [
                t("@%p1 bra $L_out;", false, true),
                t("@!%p2 bra $L_done;", false, true)
            ]
        );
    }

    #[test]
    fn an_irreducible_cycle_is_no_natural_loop() {
        // Two entries into the cycle A <-> B: neither dominates the other.
        let (l, m) = analyze(concat!(
            "\tsetp.eq.s32 %p1, %r1, 0;\n",
            "\t@%p1 bra $L_b;\n",
            "$L_a:\n",
            "\tadd.s32 %r1, %r1, 1;\n",
            "$L_b:\n",
            "\tadd.s32 %r2, %r2, 1;\n",
            "\tsetp.lt.s32 %p2, %r2, 8;\n",
            "\t@%p2 bra $L_a;\n",
            "\tret;"
        ));
        assert_eq!(summary(&l, &m), []);
        assert_eq!(l.blocks.len(), 4);
        assert!(sites(&l, &m, LoopEdge::Exit).is_empty());
    }

    #[test]
    fn a_latch_falling_through_into_its_header_and_a_fall_through_exit() {
        // A rotated loop: the latch `bra`s around the header's entry jump; the header's
        // block is entered by falling through from the latch.
        let (l, m) = analyze(concat!(
            "\tbra.uni $L_head;\n",
            "$L_latch:\n",
            "\tadd.s32 %r1, %r1, 1;\n",
            "$L_head:\n",
            "\tsetp.lt.s32 %p1, %r1, 8;\n",
            "\t@%p1 bra $L_latch;\n",
            "\tst.global.u32 [%r3], %r1;\n",
            "\tret;"
        ));
        assert_eq!(summary(&l, &m), [("$L_head".into(), 2, 1, 1)]);
        assert_eq!(
            sites(&l, &m, LoopEdge::Header),
            [t("setp.lt.s32 %p1, %r1, 8;", false, false)]
        );
        // The back edge falls through from the latch into the header.
        assert_eq!(
            sites(&l, &m, LoopEdge::Backedge),
            [t("add.s32 %r1, %r1, 1;", true, false)]
        );
        // Leaving: the header's branch not taken, into an unlabelled block.
        assert_eq!(
            sites(&l, &m, LoopEdge::Exit),
            [t("@%p1 bra $L_latch;", true, false)]
        );
    }

    #[test]
    fn ret_inside_a_loop_is_no_exit_and_labels_are_scoped() {
        // Two inline-assembly wait loops with the same local label, and a `ret` inside a
        // loop (leaving the kernel, not the loop).
        let (l, m) = analyze(concat!(
            "\t{\n",
            "\t.reg .pred w;\n",
            "WAIT:\n",
            "\tsetp.eq.s32 w, %r1, 0;\n",
            "\t@w bra WAIT;\n",
            "\t}\n",
            "\t{\n",
            "\t.reg .pred w;\n",
            "WAIT:\n",
            "\tsetp.eq.s32 w, %r2, 0;\n",
            "\t@w ret;\n",
            "\t@!w bra WAIT;\n",
            "\t}\n",
            "\tret;"
        ));
        assert_eq!(
            summary(&l, &m),
            [("WAIT".into(), 1, 1, 1), ("WAIT".into(), 2, 1, 1)]
        );
        assert_eq!(
            sites(&l, &m, LoopEdge::Backedge),
            [
                t("@w bra WAIT;", false, true),
                t("@!w bra WAIT;", false, true)
            ]
        );
        assert_eq!(
            sites(&l, &m, LoopEdge::Exit),
            [
                t("@w bra WAIT;", true, false),
                t("@!w bra WAIT;", true, false)
            ]
        );
    }

    #[test]
    fn an_indexed_branch_back_edge_is_not_placeable() {
        let src = concat!(
            "$L_head:\n",
            "\tadd.s32 %r1, %r1, 1;\n",
            "\tand.b32 %r2, %r1, 1;\n",
            "tbl: .branchtargets $L_head, $L_out;\n",
            "\tbrx.idx %r2, tbl;\n",
            "$L_out:\n",
            "\tret;"
        );
        let (l, m) = analyze(src);
        assert_eq!(summary(&l, &m), [("$L_head".into(), 2, 1, 1)]);
        let body = m.functions()[0].body.as_ref().expect("body");
        assert_eq!(
            l.sites(LoopEdge::Header, &PtxCode(body)).map(|s| s.len()),
            Ok(1)
        );
        assert!(l
            .sites(LoopEdge::Backedge, &PtxCode(body))
            .is_err_and(|e| e.contains("brx.idx")));
    }

    #[test]
    fn an_unknown_label_is_an_error() {
        let src = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n\t{\nL:\n\tret;\n\t}\n\tbra L;\n}\n";
        let m = parse(src).expect("parses");
        let e = super::analyze(m.functions()[0].body.as_ref().expect("body"));
        assert!(e.is_err_and(|e| e.contains("`L`")));
    }
}
