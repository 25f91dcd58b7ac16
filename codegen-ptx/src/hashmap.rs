//! The hash-map update sequence, exactly per `warptrace_ir::MapLayout`:
//!
//! ```text
//! tag = fold(mix64(h ^ k))           (1 for no keys; folded at compile time if constant,
//!                                     and then each probe's slot address too)
//! tag == 0  → slot `capacity`: tag word := 1, store keys, combine value
//! otherwise → for j in 0..HASH_MAX_PROBES (unrolled):
//!               slot = (tag + j) mod capacity
//!               old = atom.global.cas.b64 [slot.tag], 0, tag
//!               old == 0   → claimed: store keys, combine value
//!               old == tag → found: combine value
//!             all missed → red.global.add.u64 [drops[map]], 1
//! ```
//!
//! With [`Probing::Home`] a constant tag tries only its home slot `tag mod capacity`
//! (j = 0), first with a plain load (`ld.global.cg`: the tag there → straight to the
//! value words), then with the compare-and-swap, the rest unchanged: the IR's update
//! with one probe. [`HomeSlots`] says for
//! which maps of a kernel that equals the IR's update with `HASH_MAX_PROBES` probes: when
//! every tag the kernel's launch can insert is a compile-time constant and no two share
//! a home slot, a home slot only ever holds 0 or its own tag (the buffer starts zeroed,
//! and each update writes its tag there or nowhere), so the first probe never misses.
//! Decision 0013 has the argument; `home_slots_match_linear_probing` tests it.
//!
//! Control flow is forward only. Registers: `t0` tag, `t1` scratch/index, `t2` slot
//! address, `t3` the map's slot 0, `t4` the CAS result, `t5`/`t6` materialised immediates.
//! The value words are combined by `aggregate::combine_with` (slot address in `t2`); a
//! warp-combined update (`combine.rs`) passes the group's lane count and operand.

use crate::aggregate::{self, Amounts};
use crate::fold::{self, SiteConsts};
use crate::lower::{reg, Emitter, BASE};
use crate::PtxError;
use warptrace_ir::{
    Aggregation, Insn, MapKind, MapLayout, MapRegion, Operand, Program, SiteValue, Special,
    ValueKind, HASH_MAX_PROBES,
};
use warptrace_verifier::{Check, Verdict};

/// How a hash update looks for its slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Probing {
    /// `(tag + j) mod capacity` for `j < HASH_MAX_PROBES`, as `MapLayout` defines it.
    #[default]
    Linear,
    /// A tag known at compile time tries its home slot alone (a miss is a counted drop);
    /// other tags probe linearly.
    Home,
}

/// How many slots an update with this probing and tag (`Some` when known at compile
/// time) tries: the code generator's and the translation validation's one definition.
pub(crate) fn probe_count(probing: Probing, tag: Option<u64>) -> u32 {
    match (probing, tag) {
        (Probing::Home, Some(t)) if t != 0 => 1,
        _ => HASH_MAX_PROBES,
    }
}

/// Per map of a program, whether the updates of one kernel's launch may probe only home
/// slots ([`Probing::Home`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct HomeSlots(Vec<bool>);

impl HomeSlots {
    /// Decides for the kernel whose id is `kernel_id`: a hash map qualifies when every
    /// `map.update` of it in every probe of `program` (attached to this kernel or not,
    /// so a superset of what a launch runs) has keys that fold to constants knowing only
    /// the kernel id, and the non-zero tags of those keys have pairwise distinct home
    /// slots `tag mod capacity` (tag 0 has its own slot). The runtime's resident buffers
    /// ([`accumulates`]) rest on this decision; [`HomeSlots::decide_at`] is the code
    /// generator's, which is home wherever this one is.
    pub(crate) fn decide(program: &Program, layout: &MapLayout, kernel_id: u64) -> HomeSlots {
        struct KernelOnly(u64);
        impl SiteConsts for KernelOnly {
            fn special(&self, sp: Special) -> Option<u64> {
                (sp == Special::KernelId).then_some(self.0)
            }
            fn site(&self, _: SiteValue) -> Option<u64> {
                None
            }
        }
        let consts = KernelOnly(kernel_id);
        let all = program
            .probes
            .iter()
            .map(|p| (p, &consts as &dyn SiteConsts));
        HomeSlots::from_updates(program, layout, all)
    }

    /// Decides for one kernel's launch from the sites its snippets run at — the kernel's
    /// and those of its device-function clones, all of them (`sites`: each site's probe
    /// and immediates): the keys of every update at every site, folded knowing the kernel
    /// id and the site's `pc`, `file` and `line`, must be constants with pairwise distinct
    /// home slots. Only these snippets update the launch's buffer, so a map keyed
    /// `[kernel, line, pc]` is home when its sites' keys do not collide. Every key the
    /// kernel-only [`HomeSlots::decide`] folds is folded here to the same constant, and
    /// these updates are a subset of its, so a map home there is home here.
    pub(crate) fn decide_at(
        program: &Program,
        layout: &MapLayout,
        sites: &[(usize, crate::special::SiteImms)],
    ) -> HomeSlots {
        struct AtSite<'a>(&'a crate::special::SiteImms);
        impl SiteConsts for AtSite<'_> {
            fn special(&self, sp: Special) -> Option<u64> {
                crate::special::constant(sp, self.0)
            }
            fn site(&self, _: SiteValue) -> Option<u64> {
                None
            }
        }
        let consts: Vec<AtSite<'_>> = sites.iter().map(|(_, imms)| AtSite(imms)).collect();
        let updates = sites
            .iter()
            .zip(&consts)
            .filter_map(|((p, _), c)| Some((program.probes.get(*p)?, c as &dyn SiteConsts)));
        HomeSlots::from_updates(program, layout, updates)
    }

    /// The decision over these probes' updates, each probe's keys folded with its
    /// constants.
    fn from_updates<'a>(
        program: &Program,
        layout: &MapLayout,
        probes: impl Iterator<Item = (&'a warptrace_ir::Probe, &'a dyn SiteConsts)>,
    ) -> HomeSlots {
        let n = program.maps.len();
        // Per map: the constant tags seen, or `None` once a key is not constant.
        let mut tags: Vec<Option<Vec<u64>>> = vec![Some(Vec::new()); n];
        for (probe, consts) in probes {
            let updates = probe.insns.iter().filter_map(|i| match i {
                Insn::MapUpdate { map, keys, .. } => Some((map.0 as usize, keys)),
                _ => None,
            });
            let mut known = None;
            for (m, keys) in updates {
                let known = known.get_or_insert_with(|| fold::constants(&probe.insns, consts));
                let Some(seen) = tags.get_mut(m) else {
                    continue;
                };
                let resolved: Vec<Operand> = keys.iter().map(|k| fold::resolve(k, known)).collect();
                match (seen.as_mut(), MapLayout::constant_tag(&resolved)) {
                    (Some(list), Some(tag)) => list.push(tag),
                    _ => *seen = None,
                }
            }
        }
        let home = tags
            .into_iter()
            .enumerate()
            .map(|(m, seen)| {
                let hash = matches!(program.maps[m].kind, MapKind::Hash { .. });
                let capacity = layout.regions.get(m).map_or(0, |r| u64::from(r.capacity));
                match seen {
                    Some(mut list) if hash && capacity > 0 => {
                        list.retain(|&t| t != 0);
                        list.sort_unstable();
                        list.dedup();
                        let mut homes: Vec<u64> = list.iter().map(|t| t % capacity).collect();
                        homes.sort_unstable();
                        homes.dedup();
                        homes.len() == list.len()
                    }
                    _ => false,
                }
            })
            .collect();
        HomeSlots(home)
    }

    /// Whether every map of `program` is a hash map that is home here or never updated.
    fn all_home(&self, program: &Program) -> bool {
        program.maps.iter().enumerate().all(|(m, decl)| {
            let updated = program
                .probes
                .iter()
                .flat_map(|p| &p.insns)
                .any(|i| matches!(i, Insn::MapUpdate { map, .. } if map.0 as usize == m));
            matches!(decl.kind, MapKind::Hash { .. }) && (!updated || self.0[m])
        })
    }

    /// How updates of map `map` probe.
    pub(crate) fn probing(&self, map: u32) -> Probing {
        match self.0.get(map as usize) {
            Some(true) => Probing::Home,
            _ => Probing::Linear,
        }
    }
}

/// `mix64` (splitmix64 finalizer) of `x` in place, with scratch `tmp`.
fn mix64(e: &mut Emitter, x: &str, tmp: &str) {
    e.insf(format_args!("shr.u64 {tmp}, {x}, 30"));
    e.insf(format_args!("xor.b64 {x}, {x}, {tmp}"));
    e.insf(format_args!("mul.lo.u64 {x}, {x}, 0xBF58476D1CE4E5B9"));
    e.insf(format_args!("shr.u64 {tmp}, {x}, 27"));
    e.insf(format_args!("xor.b64 {x}, {x}, {tmp}"));
    e.insf(format_args!("mul.lo.u64 {x}, {x}, 0x94D049BB133111EB"));
    e.insf(format_args!("shr.u64 {tmp}, {x}, 31"));
    e.insf(format_args!("xor.b64 {x}, {x}, {tmp}"));
}

/// Where a `map.update` goes: the map's `region`, a label prefix `labels` unique to
/// this instruction within the kernel, and how it probes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Target<'a> {
    pub region: &'a MapRegion,
    pub labels: &'a str,
    pub probing: Probing,
}

/// Emits `map.update` at `at` with `keys`, combining `agg` into the value words of a
/// map whose value is `value`. Keys that are immediates fold the tag at compile time.
pub(crate) fn map_update(
    e: &mut Emitter,
    at: Target<'_>,
    keys: &[Operand],
    agg: Aggregation,
    value: &ValueKind,
) -> Result<(), PtxError> {
    map_update_with(e, at, keys, agg, value, Amounts::THREAD)
}

/// [`map_update`] for one thread's or a warp-combined group's `amounts`: the value words
/// get `aggregate::combine_with`'s operations, a drop adds the lane count (every lane
/// whose update is lost is counted, as if each had tried alone).
pub(crate) fn map_update_with(
    e: &mut Emitter,
    at: Target<'_>,
    keys: &[Operand],
    agg: Aggregation,
    value: &ValueKind,
    amounts: Amounts<'_>,
) -> Result<(), PtxError> {
    let Target {
        region,
        labels,
        probing,
    } = at;
    let (t0, t1, t2, t3, t4) = (
        reg("t", 0),
        reg("t", 1),
        reg("t", 2),
        reg("t", 3),
        reg("t", 4),
    );
    let p0 = reg("p", 0);
    // The tag, in t0; `Some` when known at compile time.
    let tag = match MapLayout::constant_tag(keys) {
        Some(tag) => {
            e.insf(format_args!("mov.b64 {t0}, 0x{tag:016X}"));
            Some(tag)
        }
        None => {
            for (n, k) in keys.iter().enumerate() {
                let k = e.src64(k, &reg("t", 5));
                if n == 0 {
                    e.insf(format_args!("mov.b64 {t0}, {k}"));
                } else {
                    e.insf(format_args!("xor.b64 {t0}, {t0}, {k}"));
                }
                mix64(e, &t0, &t1);
            }
            None
        }
    };
    let zero = format!("{labels}_zero");
    let claim = format!("{labels}_claim");
    let add = format!("{labels}_add");
    let done = format!("{labels}_done");
    let zero_path = tag.is_none_or(|t| t == 0);
    let probe_path = tag != Some(0);
    // A tag known at compile time has its probe sequence's slot addresses known too,
    // relative to the map base: one `add` per probe instead of `add`, `and`, `mad`.
    let folded = tag.filter(|_| !zero_path);
    if folded.is_none() {
        e.insf(format_args!(
            "add.s64 {t3}, {BASE}, {}",
            region.slots_offset
        ));
    }
    if zero_path && probe_path {
        e.insf(format_args!("setp.eq.u64 {p0}, {t0}, 0"));
        e.insf(format_args!("@{p0} bra {zero}"));
    }
    if probe_path {
        let cap = u64::from(region.capacity);
        for j in 0..probe_count(probing, folded) {
            if let Some(tag) = folded {
                // As the IR computes it: (tag + j) mod capacity, wrapping at 64 bits.
                let slot = tag.wrapping_add(u64::from(j)) % cap;
                let offset = region.slots_offset + slot * region.slot_bytes();
                e.insf(format_args!("add.s64 {t2}, {BASE}, {offset}"));
            } else {
                let idx = if j == 0 {
                    t0.clone()
                } else {
                    e.insf(format_args!("add.s64 {t1}, {t0}, {j}"));
                    t1.clone()
                };
                if cap.is_power_of_two() {
                    e.insf(format_args!("and.b64 {t1}, {idx}, {}", cap - 1));
                } else {
                    e.insf(format_args!("rem.u64 {t1}, {idx}, {cap}"));
                }
                e.insf(format_args!(
                    "mad.lo.u64 {t2}, {t1}, {}, {t3}",
                    region.slot_bytes()
                ));
            }
            if probing == Probing::Home && folded.is_some() {
                // A home slot holds 0 or its own tag, and keeps the tag once written:
                // reading the tag means the compare-and-swap would find it. A plain load
                // of a hot slot does not wait in line at L2 as a returning atomic does.
                e.insf(format_args!("ld.global.cg.u64 {t4}, [{t2}]"));
                e.insf(format_args!("setp.eq.u64 {p0}, {t4}, {t0}"));
                e.insf(format_args!("@{p0} bra {add}"));
            }
            e.insf(format_args!("atom.global.cas.b64 {t4}, [{t2}], 0, {t0}"));
            e.insf(format_args!("setp.eq.u64 {p0}, {t4}, 0"));
            e.insf(format_args!("@{p0} bra {claim}"));
            e.insf(format_args!("setp.eq.u64 {p0}, {t4}, {t0}"));
            e.insf(format_args!("@{p0} bra {add}"));
        }
        let n = amounts.lane_count(e);
        e.insf(format_args!(
            "red.global.add.u64 [{BASE}+{}], {n}",
            region.drops_offset
        ));
        e.insf(format_args!("bra {done}"));
    }
    if zero_path {
        e.label(&zero);
        e.insf(format_args!(
            "add.s64 {t2}, {t3}, {}",
            u64::from(region.capacity) * region.slot_bytes()
        ));
        e.insf(format_args!("st.global.u64 [{t2}], 1"));
    }
    e.label(&claim);
    for (n, k) in keys.iter().enumerate() {
        let k = e.src64(k, &reg("t", 5));
        e.insf(format_args!("st.global.u64 [{t2}+{}], {k}", 8 * (n + 1)));
    }
    e.label(&add);
    aggregate::combine_with(e, agg, value, region.value_offset_in_slot(), amounts)?;
    e.label(&done);
    Ok(())
}

/// Whether the launches of the kernel whose id is `kernel_id`, instrumented with
/// `program`, may all share one map buffer that is zeroed once and never again (the
/// runtime's resident buffers, decision 0014): every map is a hash map whose updates
/// here probe home slots only ([`HomeSlots`]) or that is never updated, no probe reads
/// the per-launch `launch` word, and no host block runs per launch (`launch:complete`).
/// Accumulating launch after launch then gives the
/// table that merging each launch's own table gives: the key set is fixed, so no update
/// finds its slot taken, and each value word's device operation is the host's merge.
pub fn accumulates(program: &Program, kernel_id: u64) -> bool {
    let layout = MapLayout::new(&program.maps);
    let reads_launch = program.probes.iter().flat_map(|p| &p.insns).any(|i| {
        matches!(
            i,
            Insn::ReadSpecial {
                special: Special::Launch,
                ..
            }
        )
    });
    let per_launch = program
        .host
        .iter()
        .any(|h| h.event == warptrace_ir::HostEvent::LaunchComplete);
    !reads_launch && !per_launch && HomeSlots::decide(program, &layout, kernel_id).all_home(program)
}

/// The most copies of a resident buffer's tables ([`replicas`]): past 32 the benchmark
/// kernels gain nothing (decision 0019's measurement).
pub const MAX_REPLICAS: u32 = 32;

/// The bytes all copies of one kernel's tables may take together (each instrumented
/// function has its own resident buffer).
pub const REPLICA_BYTES: u64 = 4 << 20;

/// How many copies of its map tables the launches of the kernel whose id is `kernel_id`
/// update (decision 0019): when its launches accumulate ([`accumulates`]), the largest
/// power of two up to [`MAX_REPLICAS`] whose copies fit in [`REPLICA_BYTES`]; otherwise 1.
/// A block updates copy `ctaid.x mod replicas` (the prologue offsets the map base), so
/// warps of different blocks wait on different slots. Each copy is a whole table whose
/// home slots hold only their own tags, so each decodes on its own and their merge is
/// the one table all updates would have made.
pub fn replicas(program: &Program, kernel_id: u64) -> u32 {
    if !accumulates(program, kernel_id) {
        return ring_copies(program);
    }
    let bytes = MapLayout::new(&program.maps).total_bytes.max(1);
    let mut n = MAX_REPLICAS;
    while n > 1 && u64::from(n) * bytes > REPLICA_BYTES {
        n /= 2;
    }
    n
}

/// The fewest records one copy of a ring keeps when [`ring_copies`] spreads it.
pub const RING_COPY_RECORDS: u32 = 1024;

/// Over how many copies of the buffer a program's rings are spread (decision 0019): a
/// ring's one cursor is an address every append of the grid waits on, as one counter
/// slot was. When every map of the program is a ring, the largest power of two up to
/// [`MAX_REPLICAS`] that divides each ring's capacity and leaves each copy at least
/// [`RING_COPY_RECORDS`] records (the same bytes in all: each copy holds `capacity / n`);
/// otherwise 1. A program already spread ([`Program::ring_copies`]) keeps its count. Block
/// `b` appends to copy `ctaid.x mod n`; each copy has its own cursor and drop counter.
pub fn ring_copies(program: &Program) -> u32 {
    if let Some(n) = program.ring_copies() {
        return n;
    }
    let capacities: Option<Vec<u32>> = program
        .maps
        .iter()
        .map(|m| match m.kind {
            warptrace_ir::MapKind::Ring { capacity, .. } => Some(capacity),
            _ => None,
        })
        .collect();
    let Some(capacities) = capacities.filter(|c| !c.is_empty()) else {
        return 1;
    };
    let mut n = MAX_REPLICAS;
    while n > 1
        && capacities
            .iter()
            .any(|&c| c % n != 0 || c / n < RING_COPY_RECORDS)
    {
        n /= 2;
    }
    n
}

/// The copies [`ring_copies`] spreads `program`'s rings over when the code generator must
/// still spread them (`Program::with_ring_copies`); `None` for one copy, or a program
/// already spread.
pub(crate) fn copies_to_spread(program: &Program) -> Option<u32> {
    let n = ring_copies(program);
    (n > 1 && program.ring_copies().is_none()).then_some(n)
}

/// When [`ring_copies`] spreads `program`'s rings, the code is generated for the program
/// with each copy's capacity: that program's IR checks, as one more check for a
/// certificate (`warptrace verify`); `None` when the rings are not spread.
pub fn spread_rings_check(program: &warptrace_verifier::VerifiedProgram) -> Option<Check> {
    let n = copies_to_spread(program.program())?;
    let start = std::time::Instant::now();
    let verdict = match program.with_ring_copies(n) {
        Ok(_) => Verdict::Proved,
        Err(e) => Verdict::Refuted {
            counterexample: e.to_string(),
        },
    };
    Some(Check {
        level: "ir".into(),
        name: format!("every IR rule with its rings spread over {n} copies"),
        scope: "program (as the PTX back end runs it)".into(),
        verdict,
        micros: start.elapsed().as_micros() as u64,
    })
}

/// The layout of one copy of the map buffer that code [`instrument`](crate::instrument)
/// generates for `program` writes: the program's own, or its spread rings' per copy
/// ([`ring_copies`]). [`replicas`] says how many copies a kernel's buffer holds.
pub fn buffer_layout(program: &Program) -> MapLayout {
    match copies_to_spread(program) {
        Some(n) => MapLayout::new(&program.with_ring_copies(n).maps),
        None => MapLayout::new(&program.maps),
    }
}

#[cfg(test)]
mod tests;
