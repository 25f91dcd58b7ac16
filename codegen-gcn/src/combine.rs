//! Wave-combined hash updates (decision 0036): one update per group of lanes instead of
//! one per lane, when the keys are the same in every lane of the wave
//! (`warptrace_ir::uniform`), as the PTX back end does per warp.
//!
//! The group is `exec` at the update: the snippet runs every IR instruction once, for
//! exactly the lanes the probe's control flow reaches it with (`lower.rs`), so the lanes
//! in `exec` are the lanes that run the update together — no mask can disagree, as a
//! warp's `activemask` reads can on NVIDIA GPUs. Its lowest lane, the leader
//! (`s_ff1` of `exec`), does the hash update alone, with the group's amounts
//! (`hashmap.rs`):
//!
//! | aggregation | value | what the leader's update adds |
//! |---|---|---|
//! | `count` | — | `n = s_bcnt1(exec)` |
//! | `sum`, `avg`, `stats` | the same in every lane: `x` | `x · n` (and `n`) |
//! | `min`, `max`, `assign` | the same in every lane | `x` itself |
//! | `hist`, `lhist` | the same in every lane | `n` in `x`'s bucket |
//!
//! A drop (a full table) counts `n`, the lane updates lost. Per-lane operands stay one
//! update per lane: GCN has no `redux`, and the cross-lane operations that would reduce
//! them (DPP, `ds_swizzle`, `v_readlane` over named lanes) are what the kernel verifier's
//! `WarpCollective` rule refuses in snippets. `warp` probes already update once per wave.

use warptrace_ir::fold::{self, SiteConsts};
use warptrace_ir::uniform::{self, Plan, Uniform};
use warptrace_ir::{Aggregation, Granularity, Insn, Probe, SiteValue, Special};

/// Which hash updates [`crate::instrument_with`] combines within the wave; ring appends
/// take their cursor once per wave unless it is `Off` (`ring.rs`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Combining {
    /// Those whose keys and operand are the same in every lane of the wave
    /// (`warptrace_ir::uniform`). [`crate::instrument_with`] reads it as `Off` where
    /// `WARPTRACE_NO_WARP_COMBINE` is set ([`warptrace_ir::uniform::disabled_by_env`]).
    #[default]
    Uniform,
    /// None: every update and every ring cursor one atomic per lane.
    Off,
    /// Every update of a thread probe whose aggregation a group can combine with its
    /// operand the same in every lane, keys and operand *assumed* to be: the premise the
    /// translation validation proves the combined snippet under (`tv.rs`). Where they
    /// differ between lanes the results are wrong — never for a kernel that runs.
    Assumed,
}

/// Nothing known at compile time but immediates: the decision does not depend on the
/// site, so every site of a probe — and the translation validation, which reads the
/// program alone — makes the same one.
struct Unsited;

impl SiteConsts for Unsited {
    fn special(&self, _: Special) -> Option<u64> {
        None
    }
    fn site(&self, _: SiteValue) -> Option<u64> {
        None
    }
}

impl Combining {
    /// As `instrument_with` applies it: `Uniform` is `Off` where the environment turns
    /// combining off.
    pub(crate) fn in_effect(self) -> Combining {
        match self {
            Combining::Uniform if uniform::disabled_by_env() => Combining::Off,
            c => c,
        }
    }
}

/// Whether a definition reading `sp` gives every lane that reaches its uses one value:
/// every special but the lane's own place (`tid`, `lane`, `thread`). The snippet runs
/// each IR instruction once, for all the lanes that reach it (`lower.rs`), and these
/// specials are scalar reads broadcast to the lanes (`special.rs`): the clocks
/// (`s_memtime`, `s_memrealtime`), `smid` and `warpid` (`s_getreg` of the hardware id), `active` and
/// `activemask` (`exec`) — values the PTX rule ([`uniform::special_is_uniform`]) keeps per
/// lane because lanes of a warp that diverged read them at different times.
fn scalar_special(sp: Special) -> bool {
    !matches!(
        sp,
        Special::TidX | Special::TidY | Special::TidZ | Special::Lane | Special::Thread
    )
}

/// For each instruction of `probe`, how its `map.update` is combined (`None`: per lane,
/// or not an update).
pub(crate) fn plans(probe: &Probe, combining: Combining) -> Vec<Option<Plan>> {
    let none = vec![None; probe.insns.len()];
    if probe.attach.granularity != Granularity::Thread {
        return none;
    }
    let uniform = match combining {
        Combining::Off => return none,
        Combining::Uniform => Some(Uniform::analyse_with(
            &probe.insns,
            &fold::constants(&probe.insns, &Unsited),
            scalar_special,
        )),
        Combining::Assumed => None,
    };
    probe
        .insns
        .iter()
        .map(|insn| {
            let Insn::MapUpdate { keys, agg, .. } = insn else {
                return None;
            };
            match &uniform {
                Some(u) => uniform::plan(*agg, keys, u).filter(|p| *p != Plan::Lanes),
                None => Some(assumed(*agg)),
            }
        })
        .collect()
}

/// The plan of `agg` with its keys and operand the same in every lane.
pub(crate) fn assumed(agg: Aggregation) -> Plan {
    match agg.operand() {
        None => Plan::Count,
        Some(_) => Plan::Uniform,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use warptrace_ir::Program;

    /// The plans of a `kernel:entry` probe of `lines`.
    fn plans_of(lines: &[&str], combining: Combining) -> Vec<Option<Plan>> {
        let body: String = lines
            .iter()
            .enumerate()
            .map(|(i, l)| format!("  {i}: {l}\n"))
            .collect();
        let text = format!(
            "map @m: hash(keys = 64) [u64] -> sum u64\nmap @c: hash(keys = 64) [u64] -> count\n\
             persistent %a\n\nprobe 0: kernel:entry\n{body}"
        );
        let p = Program::parse(&text).expect("the program");
        plans(&p.probes[0], combining)
    }

    #[test]
    fn uniform_keys_and_operands_combine_per_lane_ones_do_not() {
        let body = [
            "r0 = sreg kernel",
            "r1 = sreg tid.x",
            "r2 = load %a",
            "map.update @c[r0] count",
            "map.update @m[r0] sum r0",
            "map.update @m[r0] sum r1",
            "map.update @c[r1] count",
            "map.update @m[r0] sum r2",
            "exit",
        ];
        let want = [
            None,
            None,
            None,
            Some(Plan::Count),
            Some(Plan::Uniform),
            None,
            None,
            None,
            None,
        ];
        assert_eq!(plans_of(&body, Combining::Uniform), want);
        assert_eq!(plans_of(&body, Combining::Off), vec![None; 9]);
        let assumed = plans_of(&body, Combining::Assumed);
        assert_eq!(assumed[5], Some(Plan::Uniform));
        assert_eq!(assumed[6], Some(Plan::Count));
        // Scalar reads give the lanes of one definition one value; `lane` does not.
        let scalar = [
            "r0 = sreg smid",
            "r1 = sreg clock64",
            "r2 = sreg lane",
            "map.update @m[r0] sum r1",
            "map.update @m[r0] sum r2",
            "exit",
        ];
        let got = plans_of(&scalar, Combining::Uniform);
        assert_eq!((got[3], got[4]), (Some(Plan::Uniform), None));
    }
}
