//! Verifying a spliced module against its original without the instrumenter's own
//! bookkeeping: for tests, mutations and hand-written GCN snippets. Kernel statements are
//! matched to the original's in order (same text), a long branch (`long_branch.rs`) to
//! the branch it stands for; every other statement of the body is inserted, numbered by
//! the nearest preceding `; __wt_snippet N` marker (0, the prologue, before the first).
//! Register counts come from both descriptors and the map argument from the original's
//! kernarg size.

use crate::model::{GcnKernelModel, MapArgLoad, RegisterCounts};
use crate::parse::{parse, Module, StmtKind};
use crate::reg::{Reg, RegFile};
use crate::Error;
use warptrace_verifier::{verify_kernel, KernelErrors, KernelRule, KernelViolation, Origin};

/// The registers kernel `name`'s descriptor reserves; `None` without the kernel or
/// without its SGPR and VGPR counts.
fn counts(m: &Module, name: &str) -> Option<RegisterCounts> {
    let k = m.kernel(name)?;
    k.field(".amdhsa_next_free_vgpr")?;
    k.field(".amdhsa_next_free_sgpr")?;
    RegisterCounts::of(m, name)
}

/// Checks kernel `name` of `spliced` against the same kernel of `original` with the
/// kernel-level verifier. `Err` for input that does not parse or lacks the kernel.
pub fn verify_spliced(
    original: &str,
    spliced: &str,
    name: &str,
) -> Result<Result<(), KernelErrors>, Error> {
    let before = parse(original)?;
    let after = parse(spliced)?;
    let missing = || Error::NoSuchKernel(name.to_owned());
    let k0 = before.kernel(name).ok_or_else(missing)?;
    let k1 = after.kernel(name).ok_or_else(missing)?;
    // Snippet markers by line.
    let mut marker = vec![None; after.line_count() + 2];
    let mut current = Some(0u32);
    for (n, line) in after.source().lines().enumerate() {
        if let Some(rest) = line.trim().strip_prefix("; __wt_snippet ") {
            current = rest.trim().parse().ok();
        }
        marker[n + 1] = current;
    }
    let kernel_texts: Vec<&str> = k0
        .body
        .clone()
        .filter(|&i| !matches!(before.stmts[i].kind, StmtKind::Directive { .. }))
        .map(|i| before.stmt_text(i))
        .collect();
    let inserted = |i: usize| Origin::Inserted {
        snippet: marker
            .get(after.stmts[i].line as usize)
            .copied()
            .flatten()
            .unwrap_or(0),
    };
    // Long branches (`long_branch.rs`) stand for the kernel branch they replace.
    let branches = crate::long_branch::Branches::of(&after, k1.body.clone());
    let long = crate::long_branch::find(&after, k1.body.clone(), &branches, &inserted);
    let mut j = 0;
    let mut origins = vec![Origin::Kernel; after.stmts.len()];
    for i in k1.body.clone() {
        if matches!(after.stmts[i].kind, StmtKind::Directive { .. }) {
            continue;
        }
        if let Some(b) = long.iter().find(|b| b.setpc == i) {
            if kernel_texts.get(j) == Some(&b.text.as_str()) {
                j += 1;
            }
            origins[i] = inserted(i);
        } else if kernel_texts.get(j) == Some(&after.stmt_text(i)) {
            j += 1;
        } else {
            origins[i] = inserted(i);
        }
    }
    check(&before, &after, name, &origins)
}

/// [`verify_spliced`] of `spliced`, a mutant of `out` (the instrumenting of `original`)
/// with the same lines, each line's origin as `out` records it.
#[cfg(test)]
pub(crate) fn verify_mutant(
    original: &str,
    out: &crate::Instrumented,
    spliced: &str,
    name: &str,
) -> Result<Result<(), KernelErrors>, Error> {
    let (before, after) = (parse(original)?, parse(spliced)?);
    let origins: Vec<Origin> = after.stmts.iter().map(|s| out.origin(s.line)).collect();
    check(&before, &after, name, &origins)
}

/// Kernel `name` of `after`, its statements written by `origins`, against `before`'s.
fn check(
    before: &Module,
    after: &Module,
    name: &str,
    origins: &[Origin],
) -> Result<Result<(), KernelErrors>, Error> {
    let missing = || Error::NoSuchKernel(name.to_owned());
    let k0 = before.kernel(name).ok_or_else(missing)?;
    let c0 = counts(before, name).ok_or_else(missing)?;
    let c1 = counts(after, name).ok_or_else(missing)?;
    let kernarg = 4 * k0
        .field(".amdhsa_user_sgpr_private_segment_buffer")
        .unwrap_or(0)
        + 2 * k0.field(".amdhsa_user_sgpr_dispatch_ptr").unwrap_or(0)
        + 2 * k0.field(".amdhsa_user_sgpr_queue_ptr").unwrap_or(0);
    let size = before
        .metadata
        .as_ref()
        .and_then(|m| m.kernel(name))
        .and_then(|m| m.int(".kernarg_segment_size"))
        .unwrap_or(0);
    let map = MapArgLoad {
        kernarg: Reg::new(RegFile::Sgpr, kernarg as u32, 2),
        offset: size.next_multiple_of(8),
    };
    let original = GcnKernelModel::build(before, name, &|_| Origin::Kernel, c0, c0, None)
        .ok_or_else(missing)?;
    let model = GcnKernelModel::build(after, name, &|i| origins[i], c0, c1, Some(map))
        .ok_or_else(missing)?;
    kernel_rules(&original, &model, before, after, name, origins)
}

/// Every kernel rule on kernel `name` of `after`, its statements written by `origins`,
/// against `before`'s: the verifier's on the two models, and the wait states instrumenting
/// adds (`hazard.rs`, decision 0030), which a target-neutral model does not see. Both
/// the instrumenter and [`verify_spliced`] check a kernel with this, so no path hands
/// the runtime a kernel with a hardware hazard it added.
pub(crate) fn kernel_rules(
    original: &GcnKernelModel,
    model: &GcnKernelModel,
    before: &Module,
    after: &Module,
    name: &str,
    origins: &[Origin],
) -> Result<Result<(), KernelErrors>, Error> {
    let mut violations = verify_kernel(original, model)
        .err()
        .map_or(Vec::new(), |e| e.0);
    for h in crate::hazard::added_to(before, after, name)? {
        let at = after.stmts.iter().position(|s| s.line == h.line);
        violations.push(KernelViolation {
            rule: KernelRule::WaitStates,
            kernel: h.kernel,
            snippet: at.and_then(|i| match origins.get(i) {
                Some(Origin::Inserted { snippet }) => Some(*snippet),
                _ => None,
            }),
            line: h.line,
            text: at.map_or_else(String::new, |i| after.stmt_text(i).trim().to_owned()),
            message: format!(
                "{} wait state(s) missing before it: a hardware hazard the original does not have",
                h.missing
            ),
            corrupts: None,
        });
    }
    violations.sort_by_key(|v| v.line);
    Ok(if violations.is_empty() {
        Ok(())
    } else {
        Err(KernelErrors(violations))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::KernelStatus;

    /// The wait states instrumenting adds are a kernel rule ([`kernel_rules`], which the
    /// instrumenter runs on every kernel it splices): a histogram of store sizes in
    /// Triton's softmax (gfx942) is padded with `s_nop 1` (a VALU writes an SGPR that a
    /// VALU reads next), and each mutant with one of those cut to `s_nop 0` breaks
    /// `WaitStates` alone, in an inserted snippet, after the cut.
    #[test]
    fn a_snippet_short_of_its_wait_states_is_rejected() {
        let asm = include_str!("../../tests/corpus/gcn/triton_softmax_gfx942.s");
        let program =
            warptrace_lang::compile("mem:global:store { @h[kernel] = hist(bytes); }", "t.wt")
                .expect("compiles");
        let program = warptrace_verifier::verify_program(&program).expect("verifies");
        let out = crate::instrument(asm, &program).expect("instruments");
        assert!(
            matches!(out.kernels[0].status, KernelStatus::Instrumented { .. }),
            "{:?}",
            out.kernels[0].status
        );
        let verify = |t: &str| verify_mutant(asm, &out, t, "softmax").expect("parses");
        assert_eq!(verify(&out.asm), Ok(()));
        let lines: Vec<&str> = out.asm.lines().collect();
        let pads: Vec<usize> = (0..lines.len())
            .filter(|&n| {
                lines[n].trim() == "s_nop 1"
                    && matches!(out.origin(n as u32 + 1), Origin::Inserted { .. })
            })
            .collect();
        assert!(!pads.is_empty(), "no inserted padding");
        for n in pads {
            let mut mutant = lines.clone();
            mutant[n] = "\ts_nop 0";
            let mutant = mutant.join("\n") + "\n";
            let errors = verify(&mutant).expect_err("a hazard");
            for v in &errors.0 {
                assert_eq!(v.rule, KernelRule::WaitStates, "line {}: {v}", n + 1);
                assert!(
                    v.line > n as u32 + 1 && v.snippet.is_some(),
                    "line {}: {v}",
                    n + 1
                );
            }
        }
    }
}
