//! Property test of the kernel-level verifier on the snippets the real PTX back end
//! emits: corpus kernels are instrumented with a few probe programs, the inserted lines
//! are recovered as raw snippets (re-splicing them must give the instrumented kernel back,
//! and verify), and random mutations of those snippets must always be rejected with the
//! matching rule:
//!
//! | mutation | rule |
//! |---|---|
//! | an inserted instruction's destination becomes a kernel register (general, predicate, 64-bit), or a new inserted instruction writes one (scalar or vector element) | `RegisterIsolation` |
//! | a branch to a kernel label, or a backward branch within the snippet | `ControlFlow` |
//! | a shared access, or a generic one (it may alias shared memory) | `SharedMemory` |
//! | a store or atomic through a kernel pointer | `MemorySafety` |
//! | a shuffle over the full warp | `WarpCollective` |

use proptest::prelude::*;
use std::sync::OnceLock;
use warptrace_codegen_ptx::{
    instrument, parse, splice_raw_with_map, KernelStatus, RawSite, RawSnippet, StmtKind,
};
use warptrace_ir::{AttachPoint, MemOp};
use warptrace_tests::{corpus_file, programs};
use warptrace_verifier::{verify_kernel, KernelRule};

/// One instrumented kernel, as the original module, the kernel's name and the snippets
/// the back end inserted.
#[derive(Debug)]
struct Case {
    ptx: String,
    kernel: String,
    snippets: Vec<RawSnippet>,
    /// The kernel's registers by kind.
    regs: Vec<String>,
    preds: Vec<String>,
    wide: Vec<String>,
    labels: Vec<String>,
}

const FILES: &[&str] = &[
    "triton_vector_add.ptx",
    "nvcc_app.ptx",
    "nvcc_kernels_sm80.ptx",
    "numba_block_hist.ptx",
    "triton_softmax.ptx",
];

/// The inserted runs of `kernel` in `instrumented` (a module made from `ptx`), as raw
/// snippets placed before the next kernel statement (or after the previous one).
fn recover(ptx: &str, instrumented: &str, kernel: &str) -> Option<Vec<RawSnippet>> {
    let m0 = parse(ptx).ok()?;
    let m1 = parse(instrumented).ok()?;
    let (f0, f1) = (m0.kernel(kernel)?, m1.kernel(kernel)?);
    let (b0, b1) = (f0.body.as_ref()?, f1.body.as_ref()?);
    let line_of = |src: &str, offset: usize| src[..offset].matches('\n').count() + 1;
    let o: Vec<&str> = ptx.lines().collect();
    let i: Vec<&str> = instrumented.lines().collect();
    let (open0, close0) = (line_of(ptx, b0.open), line_of(ptx, b0.close));
    let (open1, close1) = (
        line_of(instrumented, b1.open),
        line_of(instrumented, b1.close),
    );
    let starts: std::collections::HashSet<u32> = b0.stmts.iter().map(|s| s.line).collect();
    // Greedy: a line equal to the next original line is the kernel's.
    let (mut a, mut b) = (open0, open1); // 1-based lines after the `{`
    let mut runs: Vec<(usize, Vec<String>)> = Vec::new(); // (original line after the run, lines)
    let mut run: Vec<String> = Vec::new();
    while b + 1 < close1 {
        let line = i[b];
        if a + 1 < close0 && line == o[a] {
            if !run.is_empty() {
                runs.push((a + 1, std::mem::take(&mut run)));
            }
            a += 1;
        } else {
            run.push(line.to_string());
        }
        b += 1;
    }
    if !run.is_empty() {
        runs.push((a + 1, run));
    }
    let mut snippets = Vec::new();
    for (next, lines) in runs {
        let next = next as u32;
        let site = if starts.contains(&next) {
            RawSite::BeforeLine(next)
        } else {
            // After the closest statement before the run.
            let prev = b0
                .stmts
                .iter()
                .filter(|s| s.line < next)
                .map(|s| s.line)
                .max()?;
            RawSite::AfterLine(prev)
        };
        snippets.push(RawSnippet { site, lines });
    }
    // Re-splicing the runs must give the instrumented kernel back.
    let again = splice_raw_with_map(ptx, kernel, &snippets).ok()?;
    let m2 = parse(&again.ptx).ok()?;
    let f2 = m2.kernel(kernel)?;
    let same = m2.source()[f2.span.clone()] == m1.source()[f1.span.clone()];
    same.then_some(snippets)
}

fn cases() -> &'static [Case] {
    static CASES: OnceLock<Vec<Case>> = OnceLock::new();
    CASES.get_or_init(|| {
        let programs = [
            programs::skeleton(),
            programs::skeleton_with(AttachPoint::KernelExit, MemOp::Any),
            programs::every_op(),
        ];
        let mut out = Vec::new();
        for file in FILES {
            let ptx = corpus_file(file);
            for program in &programs {
                let program = programs::verified(program);
                let inst = instrument(&ptx, &program).expect("instruments");
                for k in &inst.kernels {
                    // Kernels calling clones of device functions have redirected calls,
                    // which raw snippets cannot express (`CallRewrite` has its own tests).
                    if !matches!(k.status, KernelStatus::Instrumented { .. })
                        || !k.functions.is_empty()
                    {
                        continue;
                    }
                    let snippets = recover(&ptx, &inst.ptx, &k.name).unwrap_or_else(|| {
                        panic!("{file}: cannot recover the snippets of {}", k.name)
                    });
                    out.push(case(&ptx, &k.name, snippets));
                }
            }
        }
        assert!(out.len() >= 10, "only {} instrumented kernels", out.len());
        out
    })
}

fn case(ptx: &str, kernel: &str, snippets: Vec<RawSnippet>) -> Case {
    let m = parse(ptx).expect("parses");
    let f = m.kernel(kernel).expect("kernel");
    let mut regs = Vec::new();
    let mut preds = Vec::new();
    let mut wide = Vec::new();
    let mut labels = Vec::new();
    for s in &f.body.as_ref().expect("body").stmts {
        match &s.kind {
            StmtKind::Directive(Some(d)) => match d.ty.as_str() {
                ".pred" => preds.extend(d.names()),
                ".b64" | ".u64" | ".s64" => wide.extend(d.names()),
                _ => regs.extend(d.names()),
            },
            StmtKind::Label(l) => labels.push(l.to_string()),
            _ => {}
        }
    }
    Case {
        ptx: ptx.to_string(),
        kernel: kernel.to_string(),
        snippets,
        regs,
        preds,
        wide,
        labels,
    }
}

#[test]
fn recovered_snippets_verify_unmutated() {
    for c in cases() {
        let s = splice_raw_with_map(&c.ptx, &c.kernel, &c.snippets).expect("splices");
        if let Err(e) = verify_kernel(&s.original, &s.spliced) {
            panic!(
                "{}: the back end's own snippets are rejected:\n{e}",
                c.kernel
            );
        }
    }
}

/// One mutation, its parameters drawn by proptest.
#[derive(Debug, Clone)]
enum Mutation {
    /// Replace the destination of an inserted instruction by a kernel register.
    Redirect { pick: usize, reg: usize },
    /// Insert an instruction writing a kernel register (kind 0: general, 1: predicate,
    /// 2: 64-bit, 3: vector element).
    WriteReg { kind: u8, reg: usize },
    /// Insert a branch to a kernel label.
    ToKernelLabel { label: usize, guarded: bool },
    /// Insert a label and, after it, a branch back to it.
    Backward { gap: usize },
    /// Insert a shared (kind 0..3) or generic (kind 3..6) access.
    Shared { kind: u8 },
    /// Insert a store or atomic through a kernel pointer.
    KernelPointer { reg: usize, atomic: bool },
    /// Insert a full-mask shuffle.
    FullMask,
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), any::<usize>()).prop_map(|(pick, reg)| Mutation::Redirect { pick, reg }),
        (0u8..4, any::<usize>()).prop_map(|(kind, reg)| Mutation::WriteReg { kind, reg }),
        (any::<usize>(), any::<bool>())
            .prop_map(|(label, guarded)| Mutation::ToKernelLabel { label, guarded }),
        (0usize..8).prop_map(|gap| Mutation::Backward { gap }),
        (0u8..6).prop_map(|kind| Mutation::Shared { kind }),
        (any::<usize>(), any::<bool>())
            .prop_map(|(reg, atomic)| Mutation::KernelPointer { reg, atomic }),
        Just(Mutation::FullMask),
    ]
}

fn pick<T: Clone>(v: &[T], i: usize) -> Option<T> {
    (!v.is_empty()).then(|| v[i % v.len()].clone())
}

/// The index of the line an instruction stands on, if `line` is an instruction with a
/// register destination (not a store, branch, label or comment).
fn has_destination(line: &str) -> bool {
    let t = line.trim();
    let t = t
        .strip_prefix('@')
        .map_or(t, |g| g.split_once(' ').map_or("", |(_, r)| r));
    let op = t.split_whitespace().next().unwrap_or("");
    let root = op.split('.').next().unwrap_or("");
    !t.starts_with("//")
        && !t.ends_with(':')
        && t.contains('%')
        && !matches!(root, "st" | "red" | "bra" | "ret" | "exit" | "fence" | "")
        && !op.starts_with('.')
}

/// Applies `m` to `lines` at index `at`; the expected rule, or `None` when the kernel
/// offers nothing to mutate that way.
fn apply(c: &Case, lines: &mut Vec<String>, at: usize, m: &Mutation) -> Option<KernelRule> {
    let at = at % (lines.len() + 1);
    let all_regs: Vec<String> = c
        .regs
        .iter()
        .chain(&c.preds)
        .chain(&c.wide)
        .cloned()
        .collect();
    match m {
        Mutation::Redirect { pick: p, reg } => {
            let candidates: Vec<usize> = (0..lines.len())
                .filter(|&i| has_destination(&lines[i]))
                .collect();
            let i = pick(&candidates, *p)?;
            let r = pick(&all_regs, *reg)?;
            let line = &lines[i];
            // The destination is the first `%` operand after the guard and the opcode.
            let body = line.trim_start();
            let indent = line.len() - body.len();
            let skip_guard = if body.starts_with('@') {
                body.find(' ').map_or(0, |g| g + 1)
            } else {
                0
            };
            let opcode_end = body[skip_guard..].find(' ')? + skip_guard;
            let from = indent + opcode_end + body[opcode_end..].find('%')?;
            let len = line[from..]
                .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '%' || ch == '_'))
                .unwrap_or(line.len() - from);
            let mut new = line.clone();
            new.replace_range(from..from + len, &r);
            lines[i] = new;
            Some(KernelRule::RegisterIsolation)
        }
        Mutation::WriteReg { kind, reg } => {
            let text = match kind {
                0 => format!("\tmov.b32 {}, 0;", pick(&c.regs, *reg)?),
                1 => format!("\tsetp.ne.u32 {}, %__wt_s0, 0;", pick(&c.preds, *reg)?),
                2 => format!("\tmov.b64 {}, %__wt_t0;", pick(&c.wide, *reg)?),
                _ => format!(
                    "\tmov.b64 {{%__wt_s0, {}}}, %__wt_t0;",
                    pick(&c.regs, *reg)?
                ),
            };
            lines.insert(at, text);
            Some(KernelRule::RegisterIsolation)
        }
        Mutation::ToKernelLabel { label, guarded } => {
            let l = pick(&c.labels, *label)?;
            let g = if *guarded { "@%__wt_p0 " } else { "" };
            lines.insert(at, format!("\t{g}bra {l};"));
            Some(KernelRule::ControlFlow)
        }
        Mutation::Backward { gap } => {
            let back = (at + gap).min(lines.len());
            lines.insert(back, "\t@%__wt_p0 bra $__wt_mutant_top;".to_string());
            lines.insert(at, "$__wt_mutant_top:".to_string());
            Some(KernelRule::ControlFlow)
        }
        Mutation::Shared { kind } => {
            let text = match kind {
                0 => "\tst.shared.u32 [%__wt_s0], 0;",
                1 => "\tld.shared.u32 %__wt_s1, [%__wt_s0];",
                2 => "\tatom.shared.add.u32 %__wt_s1, [%__wt_s0], 1;",
                3 => "\tst.u64 [%__wt_t0], 0;",
                4 => "\tld.u64 %__wt_t1, [%__wt_base];",
                _ => "\tatom.add.u64 %__wt_t1, [%__wt_base+8], 1;",
            };
            lines.insert(at, text.to_string());
            Some(KernelRule::SharedMemory)
        }
        Mutation::KernelPointer { reg, atomic } => {
            let r = pick(&c.wide, *reg)?;
            let text = if *atomic {
                format!("\tatom.global.add.u64 %__wt_t1, [{r}], 1;")
            } else {
                format!("\tst.global.u64 [{r}+8], %__wt_t0;")
            };
            lines.insert(at, text);
            Some(KernelRule::MemorySafety)
        }
        Mutation::FullMask => {
            lines.insert(
                at,
                "\tshfl.sync.idx.b32 %__wt_s1, %__wt_s0, 0, 31, -1;".to_string(),
            );
            Some(KernelRule::WarpCollective)
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn mutated_snippets_are_always_rejected_with_the_matching_rule(
        which in any::<usize>(),
        snippet in any::<usize>(),
        at in any::<usize>(),
        m in mutation(),
    ) {
        let cases = cases();
        let c = &cases[which % cases.len()];
        let s = snippet % c.snippets.len();
        let mut snippets = c.snippets.clone();
        let Some(rule) = apply(c, &mut snippets[s].lines, at, &m) else {
            return Ok(()); // nothing of that kind in this kernel
        };
        let spliced = splice_raw_with_map(&c.ptx, &c.kernel, &snippets).expect("splices");
        let verdict = verify_kernel(&spliced.original, &spliced.spliced);
        prop_assert!(verdict.is_err(), "{} accepted {m:?} in snippet {s}", c.kernel);
        let errors = verdict.err().map(|e| e.0).unwrap_or_default();
        let rules: Vec<KernelRule> = errors.iter().map(|v| v.rule).collect();
        prop_assert!(
            rules.contains(&rule),
            "{}: {m:?} in snippet {s} gave {rules:?}, expected {rule:?}:\n{}",
            c.kernel,
            errors.iter().map(|v| v.to_string()).collect::<Vec<_>>().join("\n")
        );
        // The violation of that rule is in the mutated snippet (numbered as given).
        prop_assert!(
            errors.iter().any(|v| v.rule == rule && v.snippet == Some(s as u32)),
            "{}: {m:?}: no {rule:?} violation in snippet {s}",
            c.kernel
        );
    }
}
