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

/// A kernel adding two 64-bit values in 32-bit halves through the carry flag, with a
/// vector register, a dynamic stack allocation and a register budget: state the model
/// names as registers (`%%carry`, `%%stack`, `%%maxnreg`, `%v` for `%v.y`).
const IMPLICIT_STATE: &str = ".version 8.0
.target sm_90a
.address_size 64

.visible .entry wide_add(.param .u64 wide_add_param_0)
{
\t.reg .b32 %r<6>;
\t.reg .b64 %rd<4>;
\t.reg .v2 .b32 %v;
\tld.param.u64 %rd1, [wide_add_param_0];
\tcvta.to.global.u64 %rd2, %rd1;
\tsetmaxnreg.inc.sync.aligned.u32 232;
\talloca.u64 %rd3, 16;
\tmov.u32 %r1, %tid.x;
\tmov.u32 %r2, %ctaid.x;
\tadd.cc.u32 %r3, %r1, -1;
\taddc.u32 %r4, %r2, 0;
\tmov.v2.b32 %v, {%r3, %r4};
\tst.global.v2.u32 [%rd2], %v;
\tret;
}
";

/// The rules snippet 0 breaks, spliced before `before` in [`IMPLICIT_STATE`], and what
/// each finding says it corrupts.
fn implicit_state_rules(before: &str, lines: &[&str]) -> Vec<(KernelRule, Option<String>)> {
    let line = line_of(IMPLICIT_STATE, before, 0);
    let snippet = RawSnippet {
        site: RawSite::BeforeLine(line),
        lines: lines.iter().map(|l| l.to_string()).collect(),
    };
    let s = splice_raw(IMPLICIT_STATE, "wide_add", &[snippet]).expect("splices");
    match verify_kernel(&s.original, &s.spliced) {
        Ok(()) => Vec::new(),
        Err(e) => {
            e.0.iter()
                .filter(|v| v.snippet == Some(0))
                .map(|v| (v.rule, v.corrupts.clone()))
                .collect()
        }
    }
}

#[test]
fn implicit_state_the_kernel_uses_is_a_register_inserted_code_may_not_write() {
    let isolation = |corrupts: &str| vec![(KernelRule::RegisterIsolation, Some(corrupts.into()))];
    // Between the kernel's add.cc and addc, a snippet's own add.cc changes the kernel's sum.
    assert_eq!(
        implicit_state_rules(
            "addc.u32",
            &["\t.reg .b32 %__wt_a;", "\tadd.cc.u32 %__wt_a, %__wt_a, 1;"]
        ),
        isolation("%%carry")
    );
    // One that touches no carry passes where the carry is live.
    assert_eq!(
        implicit_state_rules(
            "addc.u32",
            &["\t.reg .b32 %__wt_a;", "\tadd.u32 %__wt_a, %__wt_a, 1;"]
        ),
        []
    );
    assert_eq!(
        implicit_state_rules("st.global.v2", &["\tmov.b32 %v.y, 0;"]),
        isolation("%v")
    );
    assert_eq!(
        implicit_state_rules("mov.u32 %r1", &["\tstackrestore.u64 %rd1;"]),
        isolation("%%stack")
    );
    // (A warp-collective rule names it too: it must be reached by the whole warp.)
    let budget = implicit_state_rules("mov.u32 %r1", &["\tsetmaxnreg.dec.sync.aligned.u32 24;"]);
    assert!(budget.contains(&isolation("%%maxnreg")[0]), "{budget:?}");
    // The kernel is one ptxas assembles.
    if let Some(Err(e)) = warptrace_tests::assemble(IMPLICIT_STATE, "sm_90a", &[]) {
        panic!("ptxas rejects the kernel:\n{e}");
    }
}
