//! Source-line regions of PTX bodies, for the `region:entry` and `region:exit` attach
//! points: the instructions of a `FILE:FROM-TO` range, and the region around them that
//! `warptrace_verifier::structure::region_sites` computes on the body's blocks
//! (`loops.rs`). The definition — the holding loop, the level graph, the dominator and
//! post-dominator fixed point, the placement — is in that module's documentation and
//! decision 0017.

use crate::loops::{Loops, PtxCode};
use crate::parse::{Body, StmtKind};
use crate::site::Loc;
use std::collections::BTreeSet;
use warptrace_codegen::attach::in_lines;
pub(crate) use warptrace_verifier::structure::RegionSite;

/// The entry and exit sites of the region of `lines` (statement indices of instructions)
/// in `body`, whose blocks, edges and loops are `cfg`. Empty when no line instruction is
/// reachable; an error says why the region cannot be placed (an irreducible cycle, code
/// that never reaches an exit, an edge no snippet can single out).
pub(crate) fn sites(
    cfg: &Loops,
    body: &Body,
    lines: &BTreeSet<usize>,
) -> Result<Vec<RegionSite>, String> {
    warptrace_verifier::structure::region_sites(cfg, &PtxCode(body), lines)
}

/// The statement indices of the instructions of `body` whose source position is in
/// `file:from-to` (`locs` per statement, [`crate::site::positions`]).
pub(crate) fn line_instrs(
    body: &Body,
    locs: &[Option<Loc>],
    file: &str,
    from: u32,
    to: u32,
) -> BTreeSet<usize> {
    body.stmts
        .iter()
        .enumerate()
        .filter(|(i, s)| {
            matches!(s.kind, StmtKind::Instr(_))
                && in_lines(
                    locs.get(*i)
                        .and_then(Option::as_ref)
                        .and_then(Loc::position),
                    file,
                    from,
                    to,
                )
        })
        .map(|(i, _)| i)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loops::Anchor;
    use crate::parse::parse;
    use warptrace_ir::RegionEnd;

    /// A site as (end, anchor statement's text, after it?, guarded?).
    type Described = (RegionEnd, String, bool, bool);

    /// The sites of the region `a.cu:from-to` in a kernel whose body is `body` (`.loc 1 N`
    /// directives give lines), as (end, anchor text, after?, guarded), and the place's
    /// text.
    fn region(body: &str, from: u32, to: u32) -> Result<(Vec<Described>, String), String> {
        let src = format!(
            ".version 8.0\n.target sm_90\n.address_size 64\n.file 1 \"/src/a.cu\"\n\
             .visible .entry k()\n{{\n\t.reg .pred %p<4>;\n\t.reg .b32 %r<8>;\n{body}\n}}\n"
        );
        let m = parse(&src).expect("parses");
        let b = m.functions()[0].body.as_ref().expect("body");
        let files = m.files();
        let locs = crate::site::positions(b, files).0;
        let lines = line_instrs(b, &locs, "a.cu", from, to);
        let cfg = crate::loops::analyze(b).expect("analyzes");
        let sites = super::sites(&cfg, b, &lines)?;
        let place = sites
            .first()
            .map(|s| b.stmts[s.place].text.clone())
            .unwrap_or_default();
        let out = sites
            .into_iter()
            .map(|s| {
                (
                    s.end,
                    b.stmts[s.anchor.stmt()].text.clone(),
                    matches!(s.anchor, Anchor::After(_)),
                    s.guarded,
                )
            })
            .collect();
        Ok((out, place))
    }

    fn entry(t: &str) -> Described {
        (RegionEnd::Entry, t.to_owned(), false, false)
    }

    fn exit(t: &str, after: bool, guarded: bool) -> Described {
        (RegionEnd::Exit, t.to_owned(), after, guarded)
    }

    #[test]
    fn lines_in_one_block_are_timed_from_their_first_to_their_last_instruction() {
        let (sites, place) = region(
            concat!(
                "\t.loc 1 1 0\n\tmov.u32 %r1, 0;\n",
                "\t.loc 1 2 0\n\tadd.s32 %r1, %r1, 1;\n\tadd.s32 %r1, %r1, 2;\n",
                "\t.loc 1 3 0\n\tadd.s32 %r1, %r1, 3;\n",
                "\t.loc 1 4 0\n\tret;"
            ),
            2,
            3,
        )
        .expect("placeable");
        assert_eq!(
            sites,
            [
                entry("add.s32 %r1, %r1, 1;"),
                exit("add.s32 %r1, %r1, 3;", true, false)
            ]
        );
        assert_eq!(place, "add.s32 %r1, %r1, 1;");
        // No instruction on the lines: no sites.
        assert_eq!(
            region("\t.loc 1 1 0\n\tret;", 5, 9).map(|s| s.0.len()),
            Ok(0)
        );
    }

    /// A loop whose body is line 3 and whose control is line 2; line 3's address
    /// computation hoisted before the loop; line 4 after it.
    const LOOP: &str = concat!(
        "\t.loc 1 1 0\n\tmov.u32 %r1, 0;\n",
        "\t.loc 1 3 0\n\tshl.b32 %r2, %r1, 2;\n",
        "\t.loc 1 1 0\n\tmov.u32 %r3, 0;\n",
        "$L_head:\n",
        "\t.loc 1 3 0\n\tadd.s32 %r3, %r3, %r2;\n",
        "\t.loc 1 2 0\n\tadd.s32 %r1, %r1, 1;\n\tsetp.lt.s32 %p1, %r1, 8;\n\t@%p1 bra $L_head;\n",
        "\t.loc 1 4 0\n\tst.global.u32 [%r4], %r3;\n\tret;"
    );

    #[test]
    fn a_loop_body_is_one_iteration_and_its_hoisted_code_is_left_out() {
        let (sites, _) = region(LOOP, 3, 3).expect("placeable");
        assert_eq!(
            sites,
            [
                entry("add.s32 %r3, %r3, %r2;"),
                exit("add.s32 %r3, %r3, %r2;", true, false)
            ]
        );
    }

    #[test]
    fn a_loop_statement_is_the_whole_loop() {
        // Lines 2-3: the loop's control is on them, so the loop is part of the region,
        // and so is the hoisted instruction; it ends where the loop leads.
        let (sites, _) = region(LOOP, 2, 3).expect("placeable");
        assert_eq!(
            sites,
            [
                entry("shl.b32 %r2, %r1, 2;"),
                exit("st.global.u32 [%r4], %r3;", false, false)
            ]
        );
        // Lines 1-3 start at the body's first instruction; lines 2-4 end before `ret`.
        let (sites, _) = region(LOOP, 1, 3).expect("placeable");
        assert_eq!(sites[0], entry("mov.u32 %r1, 0;"));
        let (sites, _) = region(LOOP, 2, 4).expect("placeable");
        assert_eq!(sites[1], exit("ret;", false, false));
    }

    #[test]
    fn an_if_else_is_timed_from_the_branch_to_the_join() {
        let (sites, place) = region(
            concat!(
                "\t.loc 1 1 0\n\tsetp.eq.s32 %p1, %r1, 0;\n\t@%p1 bra $L_else;\n",
                "\t.loc 1 2 0\n\tadd.s32 %r2, %r2, 1;\n\tbra.uni $L_join;\n",
                "$L_else:\n",
                "\t.loc 1 4 0\n\tadd.s32 %r2, %r2, 2;\n",
                "$L_join:\n",
                "\t.loc 1 6 0\n\tst.global.u32 [%r4], %r2;\n\tret;"
            ),
            2,
            4,
        )
        .expect("placeable");
        // The branch block has no line instruction: the region starts before its branch;
        // the join has none: it ends before the join's first instruction.
        assert_eq!(
            sites,
            [
                entry("@%p1 bra $L_else;"),
                exit("st.global.u32 [%r4], %r2;", false, false)
            ]
        );
        assert_eq!(place, "@%p1 bra $L_else;");
    }

    #[test]
    fn a_break_ends_the_region_before_its_branch() {
        let (sites, _) = region(
            concat!(
                "\t.loc 1 1 0\n\tmov.u32 %r1, 0;\n",
                "$L_head:\n",
                "\t.loc 1 3 0\n\tadd.s32 %r3, %r3, 1;\n\tsetp.eq.s32 %p2, %r3, 5;\n\t@%p2 bra $L_out;\n",
                "\t.loc 1 2 0\n\tadd.s32 %r1, %r1, 1;\n\tsetp.lt.s32 %p1, %r1, 8;\n\t@%p1 bra $L_head;\n",
                "$L_out:\n",
                "\t.loc 1 4 0\n\tret;"
            ),
            3,
            3,
        )
        .expect("placeable");
        assert_eq!(
            sites,
            [
                entry("add.s32 %r3, %r3, 1;"),
                exit("@%p2 bra $L_out;", false, false),
            ]
        );
    }

    #[test]
    fn lines_running_to_the_end_of_an_iteration_end_at_each_way_out_of_it() {
        // Line 3 holds a `break` and the latch's increment; the latch's branch is line 2
        // (the loop holds the region): the region ends where the back edge is taken and
        // where either exit is.
        let (sites, _) = region(
            concat!(
                "\t.loc 1 1 0\n\tmov.u32 %r1, 0;\n",
                "$L_head:\n",
                "\t.loc 1 3 0\n\tadd.s32 %r3, %r3, 1;\n\tsetp.eq.s32 %p2, %r3, 5;\n\t@%p2 bra $L_out;\n",
                "\tadd.s32 %r1, %r1, 1;\n",
                "\t.loc 1 2 0\n\tsetp.lt.s32 %p1, %r1, 8;\n\t@%p1 bra $L_head;\n",
                "$L_out:\n",
                "\t.loc 1 4 0\n\tret;"
            ),
            3,
            3,
        )
        .expect("placeable");
        assert_eq!(
            sites,
            [
                entry("add.s32 %r3, %r3, 1;"),
                exit("@%p1 bra $L_head;", false, true),
                exit("@%p2 bra $L_out;", false, true),
                exit("@%p1 bra $L_head;", true, false),
            ]
        );
    }

    #[test]
    fn lines_ending_in_two_returns_end_before_each() {
        let (sites, _) = region(
            concat!(
                "\t.loc 1 1 0\n\tsetp.eq.s32 %p1, %r1, 0;\n",
                "\t.loc 1 2 0\n\t@%p1 bra $L_b;\n",
                "\t.loc 1 3 0\n\tst.global.u32 [%r4], %r2;\n\tret;\n",
                "$L_b:\n",
                "\t.loc 1 5 0\n\tst.global.u32 [%r4], %r3;\n\t@%p2 ret;\n",
                "\t.loc 1 7 0\n\tret;"
            ),
            2,
            5,
        )
        .expect("placeable");
        assert_eq!(
            sites,
            [
                entry("@%p1 bra $L_b;"),
                exit("ret;", false, false),
                exit("@%p2 ret;", false, true),
                exit("ret;", false, false),
            ]
        );
    }

    #[test]
    fn an_irreducible_cycle_is_not_placeable() {
        let e = region(
            concat!(
                "\t.loc 1 1 0\n\tsetp.eq.s32 %p1, %r1, 0;\n\t@%p1 bra $L_b;\n",
                "$L_a:\n",
                "\t.loc 1 2 0\n\tadd.s32 %r1, %r1, 1;\n",
                "$L_b:\n",
                "\t.loc 1 3 0\n\tadd.s32 %r2, %r2, 1;\n\tsetp.lt.s32 %p2, %r2, 8;\n\t@%p2 bra $L_a;\n",
                "\t.loc 1 4 0\n\tret;"
            ),
            2,
            3,
        );
        assert!(e.is_err_and(|e| e.contains("irreducible")));
    }

    /// A structured kernel body for the pairing property.
    #[derive(Debug, Clone)]
    enum S {
        /// An instruction on this line.
        I(u32),
        /// `if` on a branch of this line, then and else arms.
        If(u32, Vec<S>, Vec<S>),
        /// A loop: its body and the line of its latch branch.
        Loop(Vec<S>, u32),
        /// A guarded `break` out of the innermost loop (a guarded `ret` outside loops).
        Break(u32),
        /// A guarded `ret`.
        Ret(u32),
    }

    fn body_strategy() -> impl proptest::strategy::Strategy<Value = Vec<S>> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            4 => (1u32..9).prop_map(S::I),
            1 => (1u32..9).prop_map(S::Break),
            1 => (1u32..9).prop_map(S::Ret),
        ];
        let stmt = leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                (
                    1u32..9,
                    proptest::collection::vec(inner.clone(), 0..4),
                    proptest::collection::vec(inner.clone(), 0..3)
                )
                    .prop_map(|(l, t, e)| S::If(l, t, e)),
                (proptest::collection::vec(inner, 0..4), 1u32..9).prop_map(|(b, l)| S::Loop(b, l)),
            ]
        });
        proptest::collection::vec(stmt, 1..6)
    }

    fn emit(stmts: &[S], out: &mut String, labels: &mut u32, exit: Option<u32>) {
        for st in stmts {
            match st {
                S::I(l) => out.push_str(&format!("\t.loc 1 {l} 0\n\tadd.s32 %r1, %r1, 1;\n")),
                S::If(l, t, e) => {
                    let n = *labels;
                    *labels += 1;
                    out.push_str(&format!("\t.loc 1 {l} 0\n\t@%p1 bra $E{n};\n"));
                    emit(t, out, labels, exit);
                    out.push_str(&format!("\tbra.uni $J{n};\n$E{n}:\n"));
                    emit(e, out, labels, exit);
                    out.push_str(&format!("$J{n}:\n"));
                }
                S::Loop(b, l) => {
                    let n = *labels;
                    *labels += 1;
                    out.push_str(&format!("$H{n}:\n"));
                    emit(b, out, labels, Some(n));
                    out.push_str(&format!("\t.loc 1 {l} 0\n\t@%p2 bra $H{n};\n$O{n}:\n"));
                }
                S::Break(l) => match exit {
                    Some(n) => out.push_str(&format!("\t.loc 1 {l} 0\n\t@%p3 bra $O{n};\n")),
                    None => out.push_str(&format!("\t.loc 1 {l} 0\n\t@%p3 ret;\n")),
                },
                S::Ret(l) => out.push_str(&format!("\t.loc 1 {l} 0\n\t@%p4 ret;\n")),
            }
        }
    }

    /// Walks `body` from its entry with branch outcomes from `seed`, firing the region's
    /// snippets where they are placed; returns the entry/exit sequence and whether the
    /// walk reached a `ret` (not the step limit).
    fn walk(b: &Body, sites: &[RegionSite], mut seed: u64) -> (Vec<RegionEnd>, bool) {
        let labels: std::collections::HashMap<&str, usize> = b
            .stmts
            .iter()
            .enumerate()
            .filter_map(|(i, s)| match &s.kind {
                StmtKind::Label(n) => Some((n.as_str(), i)),
                _ => None,
            })
            .collect();
        let mut coin = |p: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % 100 < p
        };
        let mut events = Vec::new();
        let mut at = crate::attach::entry_point(b);
        for _ in 0..4000 {
            let Some(stmt) = b.stmts.get(at) else {
                return (events, true);
            };
            let StmtKind::Instr(i) = &stmt.kind else {
                at += 1;
                continue;
            };
            let guard_true = match &i.guard {
                None => true,
                // Back edges are taken more often than not, other branches half the time.
                Some(_)
                    if i.root() == "bra" && i.guard.as_ref().is_some_and(|g| &*g.reg == "%p2") =>
                {
                    coin(70)
                }
                Some(_) => coin(40),
            };
            let transfers = guard_true && matches!(i.root(), "bra" | "ret");
            for s in sites {
                if s.anchor == Anchor::Before(at) && (!s.guarded || transfers) {
                    events.push(s.end);
                }
            }
            if transfers && i.root() == "ret" {
                return (events, true);
            }
            if transfers {
                let Some(crate::parse::Operand::Symbol(t)) = i.operands.first() else {
                    panic!("branch without a label");
                };
                at = labels[t.as_str()];
                continue;
            }
            for s in sites {
                if s.anchor == Anchor::After(at) {
                    events.push(s.end);
                }
            }
            at += 1;
        }
        (events, false)
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]
        /// On every path, a region's entry and exit alternate, entry first, and a walk
        /// that ends at a `ret` has closed every region it entered.
        #[test]
        fn entries_and_exits_pair_up_on_every_path(
            body in body_strategy(),
            from in 1u32..9,
            len in 0u32..4,
            seeds in proptest::collection::vec(proptest::prelude::any::<u64>(), 8),
        ) {
            let mut text = String::from("\t.loc 1 9 0\n\tmov.u32 %r1, 0;\n");
            emit(&body, &mut text, &mut 0, None);
            text.push_str("\t.loc 1 9 0\n\tret;");
            let src = format!(
                ".version 8.0\n.target sm_90\n.address_size 64\n.file 1 \"/src/a.cu\"\n\
                 .visible .entry k()\n{{\n\t.reg .pred %p<5>;\n\t.reg .b32 %r<2>;\n{text}\n}}\n"
            );
            let m = crate::parse::parse(&src).expect("parses");
            let b = m.functions()[0].body.as_ref().expect("body");
            let files = m.files();
            let locs = crate::site::positions(b, files).0;
            let lines = line_instrs(b, &locs, "a.cu", from, from + len);
            let cfg = crate::loops::analyze(b).expect("analyzes");
            let Ok(sites) = super::sites(&cfg, b, &lines) else {
                // Structured bodies are reducible and every path ends: always placeable.
                panic!("not placeable:\n{text}");
            };
            for seed in seeds {
                let (events, ended) = walk(b, &sites, seed);
                for (k, e) in events.iter().enumerate() {
                    let want = if k % 2 == 0 { RegionEnd::Entry } else { RegionEnd::Exit };
                    proptest::prop_assert_eq!(*e, want, "event {} of {:?}\n{}", k, events, text);
                }
                if ended {
                    proptest::prop_assert!(events.len() % 2 == 0, "open at ret: {:?}\n{}", events, text);
                }
            }
        }
    }
}
