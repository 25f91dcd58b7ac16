//! `WarpCollective`: an inserted warp collective may only name lanes that are active.
//!
//! A shuffle, vote, match, reduction, `elect` or warp barrier waits for every lane of its
//! member mask; a lane that is not active at it (exited, diverged, predicated off) makes
//! it hang or undefined. Inserted code may run one only when the mask is provably the
//! set of lanes active at it:
//!
//! - the mask is a register, written by an unguarded `activemask` ([`Compute::ActiveMask`])
//!   of the same snippet;
//! - between that `activemask` and the collective there are only unguarded-flow
//!   instructions of the same snippet: no label (other paths would join), no branch
//!   (lanes could leave), nothing that writes the mask register again — and unguarded
//!   collectives over the same mask register, which every lane of the mask (the active
//!   lanes) completes together, so the same lanes go on;
//! - the collective itself is not guarded (a guard would drop lanes of the mask).
//!
//! Collectives with an immediate mask (`0xffffffff`), a mask from anywhere else, or no
//! mask operand at all (`wmma`, `mma`, `ldmatrix`, `.aligned` forms: the whole warp) are
//! rejected.

use super::{snippet_of, Body, Finding, Violations};
use crate::{Compute, Flow, Instr, Item, KernelRule, Mask};

pub(super) fn check(spliced: &Body<'_>, out: &mut Violations) {
    for (pos, item) in spliced.items.iter().enumerate() {
        let Item::Instr(x) = item else { continue };
        let Some(snippet) = snippet_of(x.origin) else {
            continue;
        };
        let collective =
            x.flow == Flow::WarpCollective || matches!(x.compute, Compute::Collective(_));
        if !collective {
            continue;
        }
        if let Some(message) = unproven(spliced, pos, x) {
            out.push(Finding {
                rule: KernelRule::WarpCollective,
                snippet: Some(snippet),
                line: x.line,
                text: &x.text,
                message,
                corrupts: Some("lanes outside the active mask".into()),
            });
        }
    }
}

/// Why the collective at `pos` may include inactive lanes, or `None` if it cannot.
fn unproven(body: &Body<'_>, pos: usize, x: &Instr) -> Option<String> {
    let mask = match &x.compute {
        Compute::Collective(Mask::Reg(r)) => r,
        Compute::Collective(Mask::Imm(v)) => {
            return Some(format!(
                "inserted warp collective with the immediate mask {v:#x}, which may include \
                 inactive lanes; use the result of `activemask` in the same snippet"
            ))
        }
        _ => {
            return Some(
                "inserted warp collective without a member mask: the whole warp must take \
                 part, and lanes may be inactive"
                    .to_string(),
            )
        }
    };
    if let Some(g) = &x.guard {
        return Some(format!(
            "inserted warp collective guarded by `{g}`: lanes of mask `{mask}` where the guard \
             is false do not take part"
        ));
    }
    for item in body.items[..pos].iter().rev() {
        let y = match item {
            Item::Instr(y) if y.origin == x.origin => y,
            Item::Instr(_) => break,
            Item::Label { name, .. } => {
                return Some(format!(
                    "label `{name}` between the mask's `activemask` and the collective: lanes \
                     from another path may join, so mask `{mask}` may miss or include lanes"
                ))
            }
        };
        if y.defs.iter().any(|d| d == mask) {
            return match (&y.compute, &y.guard) {
                (Compute::ActiveMask, None) => None,
                (Compute::ActiveMask, Some(g)) => Some(format!(
                    "mask `{mask}` comes from an `activemask` guarded by `{g}` (line {}): lanes \
                     where the guard is false keep an old value",
                    y.line
                )),
                _ => Some(format!(
                    "mask `{mask}` is last written by `{}` (line {}), not by `activemask`",
                    y.text, y.line
                )),
            };
        }
        let same_mask = matches!(&y.compute, Compute::Collective(Mask::Reg(r)) if r == mask);
        if same_mask && y.guard.is_none() {
            continue;
        }
        if y.flow != Flow::Next {
            return Some(format!(
                "`{}` (line {}) between the mask's `activemask` and the collective may change \
                 which lanes are active",
                y.text, y.line
            ));
        }
    }
    Some(format!(
        "mask `{mask}` is not the result of an `activemask` earlier in the same snippet"
    ))
}
