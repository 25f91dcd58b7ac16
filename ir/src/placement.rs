//! Where a kernel's map updates go, decided once for both back ends (decisions 0013,
//! 0019, 0020): which hash maps probe only their keys' home slots ([`HomeSlots`]),
//! whether a kernel's launches may accumulate in one resident buffer ([`accumulates`]),
//! and over how many copies of the buffer a kernel's blocks spread their updates
//! ([`replicas`], [`ring_copies`]). The code generators emit what these say; the
//! runtime sizes and decodes buffers by them.

use crate::fold::SiteConsts;
use crate::{Insn, MapKind, MapLayout, Operand, Program, SiteValue, Special, HASH_MAX_PROBES};

/// How a hash update looks for its slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Probing {
    /// `(tag + j) mod capacity` for `j < HASH_MAX_PROBES`, as `MapLayout` defines it.
    #[default]
    Linear,
    /// A tag known at compile time tries its home slot alone (a miss is a counted drop);
    /// other tags probe linearly.
    Home,
}

/// How many slots an update with this probing and tag (`Some` when known at compile
/// time) tries: the code generator's and the translation validation's one definition.
pub fn probe_count(probing: Probing, tag: Option<u64>) -> u32 {
    match (probing, tag) {
        (Probing::Home, Some(t)) if t != 0 => 1,
        _ => HASH_MAX_PROBES,
    }
}

/// Per map of a program, whether the updates of one kernel's launch may probe only home
/// slots ([`Probing::Home`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HomeSlots(Vec<bool>);

impl HomeSlots {
    /// Decides for the kernel whose id is `kernel_id`: a hash map qualifies when every
    /// `map.update` of it in every probe of `program` (attached to this kernel or not,
    /// so a superset of what a launch runs) has keys that fold to constants knowing only
    /// the kernel id, and the non-zero tags of those keys have pairwise distinct home
    /// slots `tag mod capacity` (tag 0 has its own slot). The runtime's resident buffers
    /// ([`accumulates`]) rest on this decision; [`HomeSlots::decide_at`] is the code
    /// generator's, which is home wherever this one is.
    pub fn decide(program: &Program, layout: &MapLayout, kernel_id: u64) -> HomeSlots {
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
    pub fn decide_at<'a>(
        program: &'a Program,
        layout: &MapLayout,
        sites: impl IntoIterator<Item = (usize, &'a dyn SiteConsts)>,
    ) -> HomeSlots {
        let updates = sites
            .into_iter()
            .filter_map(|(p, consts)| Some((program.probes.get(p)?, consts)));
        HomeSlots::from_updates(program, layout, updates)
    }

    /// The decision over these probes' updates, each probe's keys folded with its
    /// constants.
    fn from_updates<'a>(
        program: &Program,
        layout: &MapLayout,
        probes: impl Iterator<Item = (&'a crate::Probe, &'a dyn SiteConsts)>,
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
                let known =
                    known.get_or_insert_with(|| crate::fold::constants(&probe.insns, consts));
                let Some(seen) = tags.get_mut(m) else {
                    continue;
                };
                let resolved: Vec<Operand> = keys
                    .iter()
                    .map(|k| crate::fold::resolve(k, known))
                    .collect();
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

    /// The maps that probe home slots in every kernel, whatever its sites: hash maps
    /// whose updates, in every probe, all have the same keys, each an immediate or a
    /// register whose one definition in its probe reads `sreg kernel`. A kernel's updates
    /// of such a map have one tag, which no other tag can share a home slot with, so
    /// [`HomeSlots::decide_at`] makes it home at any sites. Cost bounds rest on this; a
    /// map keyed by a site's `pc` may collide in one kernel and not in another.
    pub fn certain(program: &Program) -> HomeSlots {
        #[derive(PartialEq)]
        enum Key {
            Kernel,
            Imm(i64),
        }
        let key = |probe: &crate::Probe, k: &Operand| match k {
            Operand::Imm(v) => Some(Key::Imm(*v)),
            Operand::Reg(r) => {
                let mut defs = probe.insns.iter().filter(|i| i.def() == Some(*r));
                match (defs.next(), defs.next()) {
                    (
                        Some(Insn::ReadSpecial {
                            special: Special::KernelId,
                            ..
                        }),
                        None,
                    ) => Some(Key::Kernel),
                    _ => None,
                }
            }
        };
        let mut tuples: Vec<Option<Vec<Key>>> = Vec::new();
        let mut seen = vec![false; program.maps.len()];
        let mut home: Vec<bool> = program
            .maps
            .iter()
            .map(|m| matches!(m.kind, MapKind::Hash { capacity } if capacity > 0))
            .collect();
        tuples.resize_with(program.maps.len(), || None);
        for probe in &program.probes {
            for insn in &probe.insns {
                let Insn::MapUpdate { map, keys, .. } = insn else {
                    continue;
                };
                let m = map.0 as usize;
                let Some(h) = home.get_mut(m) else {
                    continue;
                };
                let tuple: Option<Vec<Key>> = keys.iter().map(|k| key(probe, k)).collect();
                match (tuple, seen[m]) {
                    (None, _) => *h = false,
                    (Some(t), false) => {
                        seen[m] = true;
                        tuples[m] = Some(t);
                    }
                    (Some(t), true) => *h &= tuples[m].as_ref() == Some(&t),
                }
            }
        }
        HomeSlots(home)
    }

    /// A decision given map by map (`home[m]`: map `m` probes home slots), not derived
    /// from a program: for the translation validation, whose obligations hold for the
    /// snippet whatever was decided, and for tests.
    pub fn assumed(home: Vec<bool>) -> HomeSlots {
        HomeSlots(home)
    }

    /// How updates of map `map` probe.
    pub fn probing(&self, map: u32) -> Probing {
        match self.0.get(map as usize) {
            Some(true) => Probing::Home,
            _ => Probing::Linear,
        }
    }
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
        .any(|h| h.event == crate::HostEvent::LaunchComplete);
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
            crate::MapKind::Ring { capacity, .. } => Some(capacity),
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
pub fn copies_to_spread(program: &Program) -> Option<u32> {
    let n = ring_copies(program);
    (n > 1 && program.ring_copies().is_none()).then_some(n)
}

/// `program` as the code generators generate code for it: its rings spread over the
/// copies [`ring_copies`] gives (`Program::with_ring_copies`), or itself.
pub fn as_generated(program: &Program) -> std::borrow::Cow<'_, Program> {
    match copies_to_spread(program) {
        Some(n) => std::borrow::Cow::Owned(program.with_ring_copies(n)),
        None => std::borrow::Cow::Borrowed(program),
    }
}

/// The layout of one copy of the map buffer a kernel instrumented with `program` writes:
/// the program's own, or its spread rings' per copy ([`as_generated`]). [`replicas`] says
/// how many copies a kernel's buffer holds.
pub fn buffer_layout(program: &Program) -> MapLayout {
    MapLayout::new(&as_generated(program).maps)
}

#[cfg(test)]
mod tests;
