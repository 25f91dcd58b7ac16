//! Every kernel-level verifier rule rejects a raw snippet spliced into a real corpus
//! kernel (through `splice_raw`, the raw-probe seam), and a benign snippet passes.

use warptrace_codegen_ptx::{splice_raw, RawSite, RawSnippet};
use warptrace_tests::{corpus_file, line_of};
use warptrace_verifier::{verify_kernel, KernelRule};

const VECTOR_ADD: (&str, &str) = ("triton_vector_add.ptx", "vector_add");
const BLOCK_SUM: (&str, &str) = ("nvcc_app.ptx", "_Z9block_sumPKfPfi");

/// Splices `lines` before the first line of `kernel`'s file containing `before`
/// (`None`: at the entry point) and returns the verifier's rules broken by snippet 0.
fn rules(kernel: (&str, &str), before: Option<&str>, lines: &[&str]) -> Vec<KernelRule> {
    let ptx = corpus_file(kernel.0);
    let site = match before {
        Some(needle) => RawSite::BeforeLine(line_of(&ptx, needle, 0)),
        None => RawSite::Entry,
    };
    let snippet = RawSnippet {
        site,
        lines: lines.iter().map(|l| l.to_string()).collect(),
    };
    let s = splice_raw(&ptx, kernel.1, &[snippet]).expect("splices");
    match verify_kernel(&s.original, &s.spliced) {
        Ok(()) => Vec::new(),
        Err(e) => {
            for v in &e.0 {
                assert_eq!(v.kernel, kernel.1);
            }
            e.0.iter()
                .filter(|v| v.snippet == Some(0))
                .map(|v| v.rule)
                .collect()
        }
    }
}

fn assert_rejects(kernel: (&str, &str), before: Option<&str>, lines: &[&str], rule: KernelRule) {
    let got = rules(kernel, before, lines);
    assert!(
        got.contains(&rule),
        "expected {rule:?} for {lines:?} in {}, got {got:?}",
        kernel.1
    );
}

#[test]
fn a_benign_snippet_passes() {
    let lines = [
        "\t.reg .b32 %__wt_a;",
        "\t.reg .pred %__wt_q;",
        "\tmov.u32 %__wt_a, %tid.x;",
        "\tsetp.eq.u32 %__wt_q, %__wt_a, %r1;",
        "\t@%__wt_q bra $__wt_skip;",
        "\tadd.u32 %__wt_a, %__wt_a, 1;",
        "$__wt_skip:",
    ];
    assert_eq!(rules(VECTOR_ADD, Some("@%p1 ld.global"), &lines), []);
    assert_eq!(rules(BLOCK_SUM, Some("exit;"), &lines), []);
}

#[test]
fn writing_a_kernel_register_is_rejected() {
    assert_rejects(
        VECTOR_ADD,
        Some("@%p1 ld.global"),
        &["\tmov.u32 %r1, 0;"],
        KernelRule::RegisterIsolation,
    );
}

#[test]
fn writing_a_kernel_predicate_is_rejected() {
    assert_rejects(
        VECTOR_ADD,
        Some("@%p2 ld.global"),
        &["\tsetp.eq.u32 %p2, %r1, 0;"],
        KernelRule::RegisterIsolation,
    );
}

#[test]
fn branching_out_of_the_snippet_is_rejected() {
    assert_rejects(
        BLOCK_SUM,
        Some("exit;"),
        &["\tbra.uni $L__BB0_10;"],
        KernelRule::ControlFlow,
    );
}

#[test]
fn branching_backwards_is_rejected() {
    assert_rejects(
        BLOCK_SUM,
        None,
        &[
            "\t.reg .pred %__wt_q;",
            "$__wt_top:",
            "\tsetp.eq.u32 %__wt_q, %r1, 0;",
            "\t@%__wt_q bra $__wt_top;",
        ],
        KernelRule::ControlFlow,
    );
}

#[test]
fn leaving_the_kernel_or_synchronizing_is_rejected() {
    for insn in [
        "ret;",
        "exit;",
        "trap;",
        "call.uni __wt_callee;",
        "bar.sync 0;",
    ] {
        assert_rejects(
            BLOCK_SUM,
            Some("ld.global.f32"),
            &[&format!("\t{insn}")],
            KernelRule::ControlFlow,
        );
    }
}

#[test]
fn shared_memory_is_rejected_directly_and_through_generic_stores() {
    assert_rejects(
        BLOCK_SUM,
        Some("bar.sync"),
        &[
            "\t.reg .b32 %__wt_a;",
            "\tmov.u32 %__wt_a, 0;",
            "\tst.shared.u32 [%__wt_a], %__wt_a;",
        ],
        KernelRule::SharedMemory,
    );
    assert_rejects(
        BLOCK_SUM,
        Some("bar.sync"),
        &["\tst.u32 [%rd1], 0;"],
        KernelRule::SharedMemory,
    );
}

#[test]
fn loading_from_global_memory_is_rejected() {
    assert_rejects(
        VECTOR_ADD,
        Some("@%p1 ld.global"),
        &["\t.reg .b32 %__wt_a;", "\tld.global.u32 %__wt_a, [%rd1];"],
        KernelRule::MemorySafety,
    );
}

#[test]
fn instrumented_kernels_pass_the_verifier_and_unknown_kernels_are_errors() {
    let ptx = corpus_file(VECTOR_ADD.0);
    assert!(splice_raw(&ptx, "no_such_kernel", &[]).is_err());
    let s = splice_raw(&ptx, VECTOR_ADD.1, &[]).expect("splices");
    assert_eq!(s.ptx, ptx);
    assert!(verify_kernel(&s.original, &s.spliced).is_ok());
}
