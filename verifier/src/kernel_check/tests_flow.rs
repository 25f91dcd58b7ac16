//! Tests of the flow-sensitive kernel rules over hand-built models: address provenance
//! (`MemorySafety`), warp collectives, launch resources and the contracted control-flow
//! graph.

use super::fixture::*;
use super::{cfg, Body, Violations};
use crate::{
    verify_kernel, Access, Compute, Flow, Item, KernelRule, Mask, Resource, ResourceKind, Space,
};

fn add(origin: crate::Origin, text: &str, def: &str, addends: &[&str], offsets: &[&str]) -> Item {
    let uses: Vec<&str> = addends.iter().chain(offsets).copied().collect();
    compute(
        op(origin, text, &[def], &uses),
        Compute::Add {
            addends: names(addends),
            offsets: names(offsets),
        },
    )
}

fn global(item: Item, access: Access) -> Item {
    mem(item, Space::Global, access)
}

fn accepted(edit: impl FnOnce(&mut Vec<Item>)) {
    let spliced = spliced_with(edit);
    if let Err(e) = verify_kernel(&original(), &spliced) {
        panic!("rejected:\n{e}");
    }
}

// MemorySafety: provenance

#[test]
fn accepts_stores_through_offsets_and_multiply_adds_of_the_map_base() {
    accepted(|items| {
        let o = s(1);
        let new = [
            add(
                o,
                "add.s64 %wt1_rd2, %wt1_rd0, 64;",
                "%wt1_rd2",
                &["%wt1_rd0"],
                &[],
            ),
            add(
                o,
                "mad.lo.u64 %wt1_rd3, %wt1_rd1, 8, %wt1_rd2;",
                "%wt1_rd3",
                &["%wt1_rd2"],
                &["%wt1_rd1"],
            ),
            global(
                op(o, "st.global.u64 [%wt1_rd3+8], 1;", &[], &["%wt1_rd3"]),
                Access::Store,
            ),
            global(
                op(
                    o,
                    "ld.global.u64 %wt1_rd4, [%wt1_rd3];",
                    &["%wt1_rd4"],
                    &["%wt1_rd3"],
                ),
                Access::Load,
            ),
        ];
        for x in new {
            insert_before(items, SNIPPET1_ST, x);
        }
    });
}

#[test]
fn accepts_a_base_loaded_by_the_entry_snippet_in_a_later_snippet() {
    // Snippet 0 runs first on every path and nothing else writes `%wt0_rd0`.
    accepted(|items| {
        let x = global(
            op(
                s(1),
                "red.global.add.u64 [%wt0_rd0+24], 1;",
                &[],
                &["%wt0_rd0"],
            ),
            Access::Atomic,
        );
        insert_before(items, SNIPPET1_ST, x);
    });
}

#[test]
fn rejects_stores_and_atomics_at_kernel_pointers() {
    for (text, access) in [
        ("st.global.u32 [%rd1], 0;", Access::Store),
        ("atom.global.add.u32 %wt1_r0, [%rd1+4], 1;", Access::Atomic),
    ] {
        let spliced = spliced_with(|items| {
            let x = global(op(s(1), text, &[], &["%rd1"]), access);
            insert_before(items, SNIPPET1_ST, x);
        });
        let v = rejects(&spliced, KernelRule::MemorySafety, text);
        assert!(
            v.message.contains("not derived from the map parameter"),
            "{v}"
        );
        assert_eq!(v.corrupts.as_deref(), Some("%rd1"), "{v}");
    }
}

#[test]
fn rejects_a_store_through_a_symbol_or_an_absolute_address() {
    for text in ["st.global.u32 [gvar], 0;", "st.global.u32 [4096], 0;"] {
        let spliced = spliced_with(|items| {
            insert_before(
                items,
                SNIPPET1_ST,
                global(op(s(1), text, &[], &[]), Access::Store),
            );
        });
        rejects(&spliced, KernelRule::MemorySafety, text);
    }
}

#[test]
fn rejects_arithmetic_that_does_not_keep_exactly_one_base() {
    let cases: [(&str, &[&str], &[&str]); 3] = [
        // Kernel pointer plus an offset.
        ("add.s64 %wt1_rd2, %rd1, 8;", &["%rd1"], &[]),
        // Base plus base.
        (
            "add.s64 %wt1_rd2, %wt1_rd0, %wt1_rd0;",
            &["%wt1_rd0", "%wt1_rd0"],
            &[],
        ),
        // Something minus the base.
        (
            "sub.s64 %wt1_rd2, %wt1_rd1, %wt1_rd0;",
            &["%wt1_rd1"],
            &["%wt1_rd0"],
        ),
    ];
    let store = "st.global.u64 [%wt1_rd2], 1;";
    for (text, addends, offsets) in cases {
        let spliced = spliced_with(|items| {
            insert_before(
                items,
                SNIPPET1_ST,
                add(s(1), text, "%wt1_rd2", addends, offsets),
            );
            insert_before(
                items,
                SNIPPET1_ST,
                global(op(s(1), store, &[], &["%wt1_rd2"]), Access::Store),
            );
        });
        rejects(&spliced, KernelRule::MemorySafety, store);
    }
}

#[test]
fn rejects_a_base_overwritten_under_a_guard() {
    // In lanes where the guard holds, `%wt1_rd0` becomes a kernel pointer.
    let spliced = spliced_with(|items| {
        let x = compute(
            op(
                s(1),
                "@%wt1_p0 mov.u64 %wt1_rd0, %rd1;",
                &["%wt1_rd0"],
                &["%wt1_p0", "%rd1"],
            ),
            Compute::Copy("%rd1".into()),
        );
        insert_before(items, SNIPPET1_ST, x);
    });
    rejects(&spliced, KernelRule::MemorySafety, SNIPPET1_ST);
}

#[test]
fn rejects_a_base_that_one_path_skips() {
    // Snippet 0 becomes `…; @p bra done; ld.param base; done: atom [base+16]`: the branch
    // path reaches the atomic without the base.
    let load = "ld.param.u64 %wt0_rd0, [__wt_maps];";
    let atom = "atom.global.add.u64 %wt0_rd1, [%wt0_rd0+16], 1;";
    let spliced = spliced_with(|items| {
        let x = items.remove(at(items, load));
        let b = at(items, SNIPPET0_BRA);
        items.insert(b + 1, x);
        let done = items
            .iter()
            .position(|i| matches!(i, Item::Label { name, .. } if name == "$__wt0_done"))
            .unwrap_or_else(|| panic!("no label"));
        let l = items.remove(done);
        let a = at(items, atom);
        items.insert(a, l);
    });
    let v = rejects(&spliced, KernelRule::MemorySafety, atom);
    assert_eq!(v.snippet, Some(0));
}

#[test]
fn rejects_loads_of_other_parameters_and_kernel_memory() {
    let text = "ld.param.u64 %wt1_rd0, [_Z6kernelPj_param_0];";
    let spliced = spliced_with(|items| {
        let x = mem(
            op(s(1), text, &["%wt1_rd0"], &[]),
            Space::Param,
            Access::Load,
        );
        replace(items, "ld.param.u64 %wt1_rd0, [__wt_maps];", x);
    });
    let found = violations(&original(), &spliced);
    let got: Vec<_> = found.iter().map(|v| (v.rule, v.text.as_str())).collect();
    assert_eq!(
        got,
        vec![
            (KernelRule::MemorySafety, text),
            (KernelRule::MemorySafety, SNIPPET1_ST),
        ],
        "{found:#?}"
    );
    assert!(found[0]
        .message
        .contains("may load only the map parameter `__wt_maps`"));
    assert_eq!(found[0].corrupts.as_deref(), Some("_Z6kernelPj_param_0"));
}

// WarpCollective

const ACTIVEMASK: &str = "activemask.b32 %wt1_r0;";
const SHFL: &str = "shfl.sync.idx.b32 %wt1_r1, %wt1_r2, 0, 31, %wt1_r0;";

fn activemask() -> Item {
    compute(op(s(1), ACTIVEMASK, &["%wt1_r0"], &[]), Compute::ActiveMask)
}

fn shfl_with(text: &str, mask: Mask) -> Item {
    collective(s(1), text, &["%wt1_r1"], &["%wt1_r2", "%wt1_r0"], mask)
}

fn warp_case(before_shfl: Vec<Item>, shfl: Item) -> crate::kernel_check::fixture::Fixture {
    spliced_with(|items| {
        for x in before_shfl {
            insert_before(items, SNIPPET1_ST, x);
        }
        insert_before(items, SNIPPET1_ST, shfl);
    })
}

#[test]
fn accepts_a_collective_over_the_active_mask_of_its_snippet() {
    let spliced = warp_case(
        vec![
            activemask(),
            op(s(1), "mov.u32 %wt1_r2, %tid.x;", &["%wt1_r2"], &[]),
        ],
        shfl_with(SHFL, Mask::Reg("%wt1_r0".into())),
    );
    assert_eq!(verify_kernel(&original(), &spliced), Ok(()));
}

#[test]
fn rejects_collectives_whose_mask_may_include_inactive_lanes() {
    let reg = || Mask::Reg("%wt1_r0".into());
    let full = "shfl.sync.idx.b32 %wt1_r1, %wt1_r2, 0, 31, -1;";
    let kernel_mask = "vote.sync.ballot.b32 %wt1_r1, %wt1_p0, %r1;";
    let guarded = "@%wt1_p0 shfl.sync.idx.b32 %wt1_r1, %wt1_r2, 0, 31, %wt1_r0;";
    let wmma = "wmma.load.a.sync.aligned.row.m16n16k16.f16 {%wt1_r1}, [%wt1_rd0];";
    let cases: Vec<(Vec<Item>, Item, &str, &str)> = vec![
        (
            vec![],
            shfl_with(full, Mask::Imm(-1)),
            full,
            "immediate mask",
        ),
        (
            vec![],
            collective(
                s(1),
                kernel_mask,
                &["%wt1_r1"],
                &["%wt1_p0", "%r1"],
                Mask::Reg("%r1".into()),
            ),
            kernel_mask,
            "not the result of an `activemask`",
        ),
        (
            vec![activemask()],
            shfl_with(guarded, reg()),
            guarded,
            "guarded",
        ),
        (
            vec![
                activemask(),
                op(
                    s(1),
                    "or.b32 %wt1_r0, %wt1_r0, 1;",
                    &["%wt1_r0"],
                    &["%wt1_r0"],
                ),
            ],
            shfl_with(SHFL, reg()),
            SHFL,
            "last written by `or.b32",
        ),
        (
            vec![activemask(), label("$__wt1_join", s(1))],
            shfl_with(SHFL, reg()),
            SHFL,
            "label `$__wt1_join`",
        ),
        (
            vec![compute(
                op(
                    s(1),
                    "@%wt1_p0 activemask.b32 %wt1_r0;",
                    &["%wt1_r0"],
                    &["%wt1_p0"],
                ),
                Compute::ActiveMask,
            )],
            shfl_with(SHFL, reg()),
            SHFL,
            "guarded by `%wt1_p0`",
        ),
        (
            vec![],
            collective(s(1), wmma, &["%wt1_r1"], &["%wt1_rd0"], Mask::Implicit),
            wmma,
            "without a member mask",
        ),
    ];
    for (before, shfl, text, why) in cases {
        let spliced = warp_case(before, shfl);
        let found = violations(&original(), &spliced);
        let warp: Vec<_> = found
            .iter()
            .filter(|v| v.rule == KernelRule::WarpCollective)
            .collect();
        assert_eq!(warp.len(), 1, "{text}: {found:#?}");
        assert_eq!(warp[0].line, spliced.line_of(text), "{text}");
        assert!(warp[0].message.contains(why), "{text}: {}", warp[0]);
        // Nothing else is wrong with these (the wmma load reads the map base).
        let others: Vec<_> = found
            .iter()
            .filter(|v| v.rule != KernelRule::WarpCollective)
            .collect();
        assert!(others.is_empty(), "{text}: {others:#?}");
    }
}

#[test]
fn collectives_over_one_mask_may_follow_each_other() {
    let ballot = "vote.sync.ballot.b32 %wt1_r3, %wt1_p0, %wt1_r0;";
    let first = |mask: &str, text: &'static str| {
        collective(
            s(1),
            text,
            &["%wt1_r3"],
            &["%wt1_p0", mask],
            Mask::Reg(mask.into()),
        )
    };
    // The same mask: the lanes that complete the ballot are the active ones.
    let spliced = warp_case(
        vec![activemask(), first("%wt1_r0", ballot)],
        shfl_with(SHFL, Mask::Reg("%wt1_r0".into())),
    );
    assert_eq!(verify_kernel(&original(), &spliced), Ok(()));
    // Another mask, or a guarded collective in between: lanes may have left.
    let other = "vote.sync.ballot.b32 %wt1_r3, %wt1_p0, %wt1_r4;";
    let guarded = "@%wt1_p0 vote.sync.ballot.b32 %wt1_r3, %wt1_p0, %wt1_r0;";
    for (between, mask) in [(other, "%wt1_r4"), (guarded, "%wt1_r0")] {
        let mut x = first(mask, between);
        if between.starts_with('@') {
            if let Item::Instr(i) = &mut x {
                i.guard = Some("%wt1_p0".into());
            }
        }
        let spliced = warp_case(
            vec![activemask(), x],
            shfl_with(SHFL, Mask::Reg("%wt1_r0".into())),
        );
        let found = violations(&original(), &spliced);
        assert!(
            found.iter().any(|v| v.rule == KernelRule::WarpCollective
                && v.line == spliced.line_of(SHFL)
                && v.message.contains("may change which lanes are active")),
            "{between}: {found:#?}"
        );
    }
}

#[test]
fn a_branch_between_activemask_and_the_collective_is_rejected() {
    let spliced = warp_case(
        vec![
            activemask(),
            bra(s(1), "@%wt1_p0 bra $__wt1_on;", "$__wt1_on", &["%wt1_p0"]),
            label("$__wt1_on", s(1)),
        ],
        shfl_with(SHFL, Mask::Reg("%wt1_r0".into())),
    );
    let found = violations(&original(), &spliced);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].rule, KernelRule::WarpCollective);
}

// Resources

#[test]
fn rejects_inserted_shared_local_and_launch_bound_declarations() {
    let cases = [
        (
            ResourceKind::Shared,
            ".shared .align 4 .b8 probe_smem[4096];",
            KernelRule::SharedMemory,
        ),
        (
            ResourceKind::LaunchBound,
            ".maxntid 1024, 1, 1",
            KernelRule::SharedMemory,
        ),
        (
            ResourceKind::Local,
            ".local .align 8 .b8 probe_stack[64];",
            KernelRule::MemorySafety,
        ),
    ];
    for (kind, text, rule) in cases {
        let mut spliced = spliced_with(|_| {});
        spliced.resources.push(Resource {
            kind,
            text: text.into(),
            origin: s(1),
            line: 7,
        });
        let found = violations(&original(), &spliced);
        assert_eq!(found.len(), 1, "{found:#?}");
        assert_eq!(
            (found[0].rule, found[0].line, found[0].snippet),
            (rule, 7, Some(1))
        );
        assert!(found[0].message.contains("changes"), "{}", found[0]);
    }
}

#[test]
fn rejects_changed_or_dropped_kernel_resources() {
    let mut spliced = spliced_with(|_| {});
    spliced.resources[0].text = ".reqntid 256".into();
    let found = violations(&original(), &spliced);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].rule, KernelRule::SharedMemory);
    assert!(found[0].message.contains("`.reqntid 128`"), "{}", found[0]);

    let mut spliced = spliced_with(|_| {});
    spliced.resources.pop();
    let found = violations(&original(), &spliced);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(found[0].message.contains("is missing"), "{}", found[0]);
}

// The contracted control-flow graph

/// Runs only the graph comparison.
fn graph_findings(spliced: &Fixture) -> Vec<crate::KernelViolation> {
    let original = original();
    let original = Body::of(&original);
    let spliced = Body::of(spliced);
    let graph = cfg::Cfg::build(&spliced);
    let mut out = Violations {
        kernel: spliced.name.clone(),
        list: Vec::new(),
    };
    cfg::check(&original, &spliced, &graph, &mut out);
    out.list
}

#[test]
fn the_clean_splice_has_the_original_graph() {
    assert!(graph_findings(&spliced_with(|_| {})).is_empty());
}

#[test]
fn the_graph_sees_loops_exits_and_escapes_of_inserted_code() {
    // A loop inside snippet 1: the kernel's branch now also leads into a cycle.
    let looped = spliced_with(|items| {
        insert_before(
            items,
            "ld.param.u64 %wt1_rd0, [__wt_maps];",
            label("$__wt1_top", s(1)),
        );
        insert_before(
            items,
            SNIPPET1_ST,
            bra(s(1), "@%wt1_p0 bra $__wt1_top;", "$__wt1_top", &["%wt1_p0"]),
        );
    });
    let found = graph_findings(&looped);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].line, looped.line_of(KERNEL_BRA));
    assert!(
        found[0]
            .message
            .contains("a loop made of inserted instructions"),
        "{}",
        found[0]
    );
    assert_eq!(found[0].snippet, Some(1));

    // A guarded exit in snippet 1.
    let exits = spliced_with(|items| {
        let x = flow(op(s(1), "@%wt1_p0 ret;", &[], &["%wt1_p0"]), Flow::Exit);
        insert_before(items, SNIPPET1_ST, x);
    });
    let found = graph_findings(&exits);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(
        found[0].message.contains("the kernel's exit"),
        "{}",
        found[0]
    );

    // Snippet 0 (at the entry) jumps to the kernel's label: the entry moves.
    let escapes = spliced_with(|items| {
        replace(
            items,
            SNIPPET0_BRA,
            bra(s(0), "bra.uni $L__BB0_2;", "$L__BB0_2", &[]),
        );
    });
    let found = graph_findings(&escapes);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].text, "<entry>");
    assert_eq!(found[0].corrupts.as_deref(), Some(LD_PARAM));
}

#[test]
fn the_graph_follows_a_kernel_branch_into_an_inserted_label() {
    // The kernel's branch target is now defined twice (the kernel's and snippet 1's):
    // it may land in the snippet.
    let spliced = spliced_with(|items| {
        insert_before(items, SNIPPET1_ST, label("$L__BB0_2", s(1)));
    });
    let found = graph_findings(&spliced);
    assert!(!found.is_empty());
    assert_eq!(found[0].line, spliced.line_of(KERNEL_BRA), "{found:#?}");
    assert!(
        found[0].message.contains("an unresolved label"),
        "{}",
        found[0]
    );
}
