//! Mapping a verifier violation back to the probe file.

use super::expand::{LineOrigin, Snippet};
use super::{ProbeFile, RawRejection};
use crate::parse::clean;
use warptrace_verifier::KernelViolation;

/// A verifier violation as a rejection of the probe file: the snippet line it stands on
/// (or, for labels and declarations located elsewhere, the snippet line with its text)
/// gives the probe and the file line.
pub(super) fn locate(
    file: &ProbeFile,
    snippets: &[Snippet],
    first_lines: &[u32],
    v: KernelViolation,
) -> RawRejection {
    let in_snippet = |s: usize| -> Option<LineOrigin> {
        let snip = snippets.get(s)?;
        let first = *first_lines.get(s)?;
        let idx = v.line.checked_sub(first)? as usize;
        snip.origins.get(idx).copied()
    };
    // A line of snippet `s` whose text is the violation's, or a label of it that the
    // violation's instruction names (a kernel branch captured by a probe label).
    let by_text = |s: usize| -> Option<LineOrigin> {
        let snip = snippets.get(s)?;
        let want = clean(&v.text);
        let i = snip
            .lines
            .iter()
            .position(|l| clean(l) == want)
            .or_else(|| {
                snip.lines.iter().position(|l| {
                    let l = clean(l);
                    l.strip_suffix(':').is_some_and(|name| {
                        want.split(|c: char| c.is_whitespace() || c == ';' || c == ',')
                            .any(|w| w == name)
                    })
                })
            })?;
        snip.origins.get(i).copied()
    };
    let origin = match v.snippet {
        Some(s) => {
            let s = s as usize;
            in_snippet(s).or_else(|| by_text(s)).or_else(|| {
                snippets.get(s).map(|snip| LineOrigin {
                    probe: snip.probe,
                    line: None,
                })
            })
        }
        None => (0..snippets.len()).find_map(in_snippet),
    };
    let probe = origin.and_then(|o| o.probe);
    // `ADDR` is the site's own address: say so rather than name the scratch register.
    let addr = format!("%{}addr", crate::lower::PREFIX);
    let corrupts = v.corrupts.map(|c| {
        if c == addr {
            "the kernel's memory at the site's address (ADDR)".to_string()
        } else {
            c
        }
    });
    RawRejection {
        rule: v.rule,
        kernel: v.kernel,
        probe: probe
            .and_then(|p| file.probes.get(p))
            .map(|p| p.name.clone()),
        toml_line: origin.and_then(|o| o.line),
        ptx_line: v.line,
        text: v.text,
        corrupts,
        message: v.message,
    }
}
