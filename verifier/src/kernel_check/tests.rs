//! Kernel-level tests over hand-built models: a clean splice, and for every rule and
//! sub-case a rejected splice, asserting the rule and the line it is located at.

use super::fixture::*;
use crate::{verify_kernel, Access, Flow, Item, KernelRule, Space};

#[test]
fn accepts_clean_splice() {
    let spliced = spliced_with(|_| {});
    assert_eq!(verify_kernel(&original(), &spliced), Ok(()));
}

#[test]
fn accepts_original_against_itself() {
    assert_eq!(verify_kernel(&original(), &original()), Ok(()));
}

// RegisterIsolation

#[test]
fn rejects_clobbering_kernel_predicate() {
    let text = "setp.ne.u32 %p1, %wt0_r0, 0;";
    let spliced = spliced_with(|items| {
        replace(
            items,
            "setp.ne.u32 %wt0_p0, %wt0_r0, 0;",
            op(s(0), text, &["%p1"], &["%wt0_r0"]),
        );
    });
    let v = rejects(&spliced, KernelRule::RegisterIsolation, text);
    assert!(v.message.contains("kernel register `%p1`"), "{v}");
    assert_eq!(v.snippet, Some(0));
}

#[test]
fn rejects_clobbering_one_element_of_kernel_vector() {
    let text = "ld.param.v2.u32 {%wt1_r9, %r3}, [__wt_maps];";
    let spliced = spliced_with(|items| {
        let x = mem(
            op(s(1), text, &["%wt1_r9", "%r3"], &[]),
            Space::Param,
            Access::Load,
        );
        insert_before(items, SNIPPET1_ST, x);
    });
    let v = rejects(&spliced, KernelRule::RegisterIsolation, text);
    assert!(
        v.message.contains("`%r3`") && !v.message.contains("wt1_r9"),
        "{v}"
    );
    assert_eq!(v.snippet, Some(1));
}

#[test]
fn rejects_writing_kernel_register_known_only_from_its_uses() {
    // No declaration of `%rd1` anywhere: the kernel's instructions still name it.
    let text = "mov.u64 %rd1, 0;";
    let mut original = original();
    original.declared.retain(|(r, _)| r != "%rd1");
    let mut spliced =
        spliced_with(|items| insert_before(items, SNIPPET1_ST, op(s(1), text, &["%rd1"], &[])));
    spliced.declared.retain(|(r, _)| r != "%rd1");
    let found = violations(&original, &spliced);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].rule, KernelRule::RegisterIsolation);
    assert_eq!(found[0].line, spliced.line_of(text));
}

#[test]
fn rejects_redeclaring_kernel_register() {
    let mut spliced = spliced_with(|_| {});
    spliced.declared.push(("%r2".to_string(), s(1)));
    let found = violations(&original(), &spliced);
    assert_eq!(found.len(), 1, "{found:#?}");
    let v = &found[0];
    assert_eq!(
        (v.rule, v.snippet),
        (KernelRule::RegisterIsolation, Some(1))
    );
    // Declarations have no line; the snippet's first instruction locates it.
    assert_eq!(
        v.line,
        spliced.line_of("ld.param.u64 %wt1_rd0, [__wt_maps];")
    );
    assert!(
        v.message.contains("redeclares kernel register `%r2`"),
        "{v}"
    );
}

// ControlFlow

#[test]
fn rejects_forbidden_flow_in_snippet() {
    let cases = [
        ("ret;", Flow::Exit),
        ("exit;", Flow::Exit),
        ("call.uni helper;", Flow::Call),
        ("trap;", Flow::Trap),
        ("bar.sync 0;", Flow::Barrier),
    ];
    for (text, kind) in cases {
        let leaves = matches!(kind, Flow::Exit | Flow::Trap);
        let spliced = spliced_with(|items| {
            insert_before(
                items,
                SNIPPET1_ST,
                flow(op(s(1), text, &[], &[]), kind.clone()),
            );
        });
        if !leaves {
            let v = rejects(&spliced, KernelRule::ControlFlow, text);
            assert_eq!(v.snippet, Some(1), "{text}");
            continue;
        }
        // The store after an exit or trap is dead: no address is proved there either.
        let found = violations(&original(), &spliced);
        let got: Vec<_> = found.iter().map(|v| (v.rule, v.line, v.snippet)).collect();
        assert_eq!(
            got,
            vec![
                (KernelRule::ControlFlow, spliced.line_of(text), Some(1)),
                (
                    KernelRule::MemorySafety,
                    spliced.line_of(SNIPPET1_ST),
                    Some(1)
                ),
            ],
            "{text}: {found:#?}"
        );
        assert!(found[1].message.contains("no path"), "{}", found[1]);
    }
}

#[test]
fn rejects_backward_branch_in_snippet() {
    let text = "bra.uni $__wt1_top;";
    let spliced = spliced_with(|items| {
        insert_before(
            items,
            "ld.param.u64 %wt1_rd0, [__wt_maps];",
            label("$__wt1_top", s(1)),
        );
        insert_before(items, SNIPPET1_ST, bra(s(1), text, "$__wt1_top", &[]));
    });
    // The unconditional loop also leaves the store after it on no path.
    let found = violations(&original(), &spliced);
    let got: Vec<_> = found.iter().map(|v| (v.rule, v.line)).collect();
    assert_eq!(
        got,
        vec![
            (KernelRule::ControlFlow, spliced.line_of(text)),
            (KernelRule::MemorySafety, spliced.line_of(SNIPPET1_ST)),
        ],
        "{found:#?}"
    );
    assert!(found[0].message.contains("backwards"), "{}", found[0]);
}

#[test]
fn rejects_branch_out_of_snippet_to_kernel_label() {
    let text = "@%wt0_p0 bra $L__BB0_2;";
    let spliced = spliced_with(|items| {
        replace(
            items,
            SNIPPET0_BRA,
            bra(s(0), text, "$L__BB0_2", &["%wt0_p0"]),
        );
    });
    let v = rejects(&spliced, KernelRule::ControlFlow, text);
    assert!(v.message.contains("kernel label `$L__BB0_2`"), "{v}");
}

#[test]
fn rejects_branch_into_another_snippet() {
    let text = "@%wt0_p0 bra $__wt1_skip;";
    let spliced = spliced_with(|items| {
        replace(
            items,
            SNIPPET0_BRA,
            bra(s(0), text, "$__wt1_skip", &["%wt0_p0"]),
        );
        insert_before(items, SNIPPET1_ST, label("$__wt1_skip", s(1)));
    });
    let found = violations(&original(), &spliced);
    let got: Vec<_> = found.iter().map(|v| (v.rule, v.line)).collect();
    // The jump also skips snippet 1's load of the map base, so its store's address is
    // no longer a map pointer on every path.
    assert_eq!(
        got,
        vec![
            (KernelRule::ControlFlow, spliced.line_of(text)),
            (KernelRule::MemorySafety, spliced.line_of(SNIPPET1_ST)),
        ],
        "{found:#?}"
    );
    assert!(found[0].message.contains("of snippet 1"), "{}", found[0]);
}

#[test]
fn rejects_snippet_branch_over_kernel_code() {
    // The snippet's own label, but placed after a kernel instruction.
    let spliced = spliced_with(|items| {
        let done = items
            .iter()
            .position(|i| matches!(i, Item::Label { name, .. } if name == "$__wt0_done"))
            .unwrap_or_else(|| panic!("no label"));
        let label = items.remove(done);
        let after = at(items, "mov.u32 %r1, %tid.x;") + 1;
        items.insert(after, label);
    });
    let v = rejects(&spliced, KernelRule::ControlFlow, SNIPPET0_BRA);
    // The first kernel instruction skipped is the one right after the snippet.
    assert!(
        v.message
            .contains(&format!("jumps over `{LD_PARAM}` (line 6)")),
        "{v}"
    );
}

#[test]
fn rejects_kernel_branch_into_snippet() {
    // Retargeting the kernel's branch also changes a kernel instruction.
    let text = "@%p1 bra $__wt0_done;";
    let spliced =
        spliced_with(|items| replace(items, KERNEL_BRA, bra(K, text, "$__wt0_done", &["%p1"])));
    let found = violations(&original(), &spliced);
    let line = spliced.line_of(text);
    let rules: Vec<_> = found.iter().map(|v| (v.rule, v.line, v.snippet)).collect();
    assert_eq!(
        rules,
        vec![
            (KernelRule::ControlFlow, line, Some(0)),
            (KernelRule::KernelPreserved, line, None),
        ]
    );
    assert!(
        found[0].message.contains("a label defined by snippet 0"),
        "{}",
        found[0]
    );
}

#[test]
fn rejects_inserted_label_shadowing_kernel_label() {
    let spliced = spliced_with(|items| insert_before(items, SNIPPET1_ST, label("$L__BB0_2", s(1))));
    let found = violations(&original(), &spliced);
    let got: Vec<_> = found.iter().map(|v| (v.rule, v.line)).collect();
    // The kernel branch may now land in the middle of snippet 1, past its load of the
    // map base: the store's address is no longer a map pointer on every path.
    assert_eq!(
        got,
        vec![
            (KernelRule::ControlFlow, spliced.line_of(KERNEL_BRA)),
            (KernelRule::ControlFlow, spliced.line_of(SNIPPET1_ST)),
            (KernelRule::MemorySafety, spliced.line_of(SNIPPET1_ST)),
        ],
        "{found:#?}"
    );
    assert!(
        found[1]
            .message
            .contains("reuses the name of a kernel label"),
        "{}",
        found[1]
    );
}

#[test]
fn rejects_unknown_branch_targets() {
    let text = "@%wt0_p0 bra $__nowhere;";
    let spliced = spliced_with(|items| {
        replace(
            items,
            SNIPPET0_BRA,
            bra(s(0), text, "$__nowhere", &["%wt0_p0"]),
        )
    });
    let v = rejects(&spliced, KernelRule::ControlFlow, text);
    assert!(v.message.contains("not a label"), "{v}");

    // A kernel branch to a label the body lacks, in both models.
    let missing = |items: &mut Vec<Item>| {
        let l = items
            .iter()
            .position(|i| matches!(i, Item::Label { name, .. } if name == "$L__BB0_2"))
            .unwrap_or_else(|| panic!("no label"));
        items.remove(l);
    };
    let mut original_items = kernel_items();
    missing(&mut original_items);
    let original = Fixture::numbered(original_items, kernel_declared());
    let spliced = spliced_with(missing);
    let found = violations(&original, &spliced);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(
        (found[0].rule, found[0].line),
        (KernelRule::ControlFlow, spliced.line_of(KERNEL_BRA))
    );
}

// SharedMemory

#[test]
fn rejects_shared_store() {
    let text = "st.shared.u32 [%wt1_rd0], 0;";
    let spliced = spliced_with(|items| {
        insert_before(
            items,
            SNIPPET1_ST,
            mem(
                op(s(1), text, &[], &["%wt1_rd0"]),
                Space::Shared,
                Access::Store,
            ),
        );
    });
    rejects(&spliced, KernelRule::SharedMemory, text);
}

#[test]
fn rejects_shared_atomic_as_shared_only() {
    let text = "atom.shared.add.u32 %wt1_r0, [%wt1_rd0], 1;";
    let spliced = spliced_with(|items| {
        let x = mem(
            op(s(1), text, &["%wt1_r0"], &["%wt1_rd0"]),
            Space::Shared,
            Access::Atomic,
        );
        insert_before(items, SNIPPET1_ST, x);
    });
    rejects(&spliced, KernelRule::SharedMemory, text);
}

#[test]
fn rejects_generic_store() {
    let text = "st.u64 [%wt1_rd0], %wt1_rd1;";
    let spliced = spliced_with(|items| {
        let x = mem(
            op(s(1), text, &[], &["%wt1_rd0", "%wt1_rd1"]),
            Space::Generic,
            Access::Store,
        );
        replace(items, SNIPPET1_ST, x);
    });
    let v = rejects(&spliced, KernelRule::SharedMemory, text);
    assert!(v.message.contains("generic"), "{v}");
}

// MemorySafety

#[test]
fn rejects_load_from_global() {
    let text = "ld.global.u64 %wt1_rd1, [%rd1];";
    let spliced = spliced_with(|items| {
        let x = mem(
            op(s(1), text, &["%wt1_rd1"], &["%rd1"]),
            Space::Global,
            Access::Load,
        );
        replace(items, "mov.u64 %wt1_rd1, %rd1;", x);
    });
    let v = rejects(&spliced, KernelRule::MemorySafety, text);
    assert!(v.message.contains("load from global"), "{v}");
}

#[test]
fn rejects_load_from_const() {
    let text = "ld.const.u64 %wt1_rd1, [__wt_c];";
    let spliced = spliced_with(|items| {
        let x = mem(
            op(s(1), text, &["%wt1_rd1"], &[]),
            Space::Const,
            Access::Load,
        );
        replace(items, "mov.u64 %wt1_rd1, %rd1;", x);
    });
    rejects(&spliced, KernelRule::MemorySafety, text);
}

#[test]
fn rejects_store_to_local() {
    let text = "st.local.u64 [%wt1_rd0], %wt1_rd1;";
    let spliced = spliced_with(|items| {
        let x = mem(
            op(s(1), text, &[], &["%wt1_rd0", "%wt1_rd1"]),
            Space::Local,
            Access::Store,
        );
        replace(items, SNIPPET1_ST, x);
    });
    let v = rejects(&spliced, KernelRule::MemorySafety, text);
    assert!(v.message.contains("store to local"), "{v}");
}

// KernelPreserved

#[test]
fn rejects_dropped_kernel_instruction() {
    let spliced = spliced_with(|items| {
        let i = at(items, ADD);
        items.remove(i);
    });
    let v = rejects(&spliced, KernelRule::KernelPreserved, ST_GLOBAL);
    assert!(
        v.message
            .contains(&format!("`{ADD}` (original line 6) is dropped")),
        "{v}"
    );
}

#[test]
fn rejects_reordered_kernel_instruction() {
    let spliced = spliced_with(|items| {
        let (load, add) = (at(items, LD_GLOBAL), at(items, ADD));
        items.swap(load, add);
    });
    let v = rejects(&spliced, KernelRule::KernelPreserved, ADD);
    assert!(v.message.contains("is moved"), "{v}");
}

#[test]
fn rejects_changed_kernel_instruction() {
    let text = "add.s32 %r4, %r2, %r2;";
    let spliced = spliced_with(|items| replace(items, ADD, op(K, text, &["%r4"], &["%r2"])));
    let v = rejects(&spliced, KernelRule::KernelPreserved, text);
    assert!(v.message.contains("is changed"), "{v}");
}

#[test]
fn rejects_kernel_instruction_relabelled_as_inserted() {
    // Same text, but now claimed by a snippet: it vanishes from the kernel's sequence.
    let spliced = spliced_with(|items| {
        replace(items, ADD, op(s(1), ADD, &["%wt1_r4"], &["%r2", "%r3"]));
    });
    let v = rejects(&spliced, KernelRule::KernelPreserved, ST_GLOBAL);
    assert!(v.message.contains("dropped"), "{v}");
}

#[test]
fn rejects_missing_kernel_tail_and_extra_kernel_item() {
    let spliced = spliced_with(|items| {
        items.pop();
    });
    let found = violations(&original(), &spliced);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].rule, KernelRule::KernelPreserved);
    assert!(
        found[0]
            .message
            .contains("`ret;` (original line 9) is missing"),
        "{}",
        found[0]
    );

    let extra = "ret;";
    let spliced = spliced_with(|items| items.push(flow(op(K, extra, &[], &[]), Flow::Exit)));
    let found = violations(&original(), &spliced);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].line, spliced.items.len() as u32);
    assert!(
        found[0].message.contains("original kernel ends before it"),
        "{}",
        found[0]
    );
}

#[test]
fn rejects_changed_kernel_declarations() {
    let mut spliced = spliced_with(|_| {});
    spliced.declared.retain(|(r, _)| r != "%r0");
    spliced.declared.push(("%r9".to_string(), K));
    let found = violations(&original(), &spliced);
    let got: Vec<_> = found.iter().map(|v| (v.rule, v.text.as_str())).collect();
    assert_eq!(
        got,
        vec![
            (KernelRule::KernelPreserved, "declaration of %r0"),
            (KernelRule::KernelPreserved, "declaration of %r9"),
        ]
    );
}

// Accumulation and display

#[test]
fn accumulates_violations_of_every_rule_in_line_order() {
    let spliced = spliced_with(|items| {
        replace(
            items,
            "setp.ne.u32 %wt0_p0, %wt0_r0, 0;",
            op(s(0), "setp.ne.u32 %p1, %wt0_r0, 0;", &["%p1"], &["%wt0_r0"]),
        );
        insert_before(
            items,
            SNIPPET1_ST,
            flow(op(s(1), "bar.sync 0;", &[], &[]), Flow::Barrier),
        );
        replace(
            items,
            SNIPPET1_ST,
            mem(
                op(s(1), "st.shared.u64 [0], 1;", &[], &[]),
                Space::Shared,
                Access::Store,
            ),
        );
        let i = at(items, ADD);
        items.remove(i);
    });
    let found = violations(&original(), &spliced);
    let got: Vec<_> = found.iter().map(|v| v.rule).collect();
    assert_eq!(
        got,
        vec![
            KernelRule::RegisterIsolation,
            KernelRule::ControlFlow,
            KernelRule::SharedMemory,
            KernelRule::KernelPreserved,
        ],
        "{found:#?}"
    );
    let lines: Vec<u32> = found.iter().map(|v| v.line).collect();
    assert!(lines.windows(2).all(|w| w[0] <= w[1]), "{lines:?}");
}

#[test]
fn displays_kernel_snippet_line_rule_and_text() {
    let text = "st.shared.u32 [%wt1_rd0], 0;";
    let spliced = spliced_with(|items| {
        insert_before(
            items,
            SNIPPET1_ST,
            mem(
                op(s(1), text, &[], &["%wt1_rd0"]),
                Space::Shared,
                Access::Store,
            ),
        );
    });
    let err = verify_kernel(&original(), &spliced).expect_err("rejected");
    let line = spliced.line_of(text);
    assert_eq!(
        err.to_string(),
        format!(
            "kernel _Z6kernelPj, snippet 1, line {line}: SharedMemory: inserted store touches \
             shared memory (`{text}`)"
        )
    );
}
