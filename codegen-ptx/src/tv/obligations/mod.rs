//! The obligations: every IR operation the back end lowers to straight-line PTX (and the
//! forward-branching helpers), each with a stable name, and how to obtain the PTX the
//! real emitter produces for it (`lower::lower_probe`, `aggregate::combine`,
//! `hashmap::map_update`, `special::warp_leader` — never re-typed by hand).

mod buffer;
mod catalog;

pub(crate) use buffer::{array_layout, Writer, ARRAY_MAP, CURSOR};
#[cfg(test)]
pub(crate) use catalog::LHIST_PARAMS;
pub(crate) use catalog::{all, insn_name, site_imms};

use crate::combine::{self, Plan};
use crate::hashmap::Probing;
use crate::lower::{lower_probe, Emitter, SiteInfo, SnippetCtx};
use crate::parse::{Address, Guard};
use crate::site::ValueSrc;
use crate::special::SiteImms;
use crate::{aggregate, hashmap, ring, special, Error};
use warptrace_ir::{
    Aggregation, AttachPoint, AttachSpec, Insn, KeyType, MapDecl, MapKind, MapLayout, MemOp,
    MemSpace, Operand, Overflow, Probe, Program, ValueKind,
};

/// The guard predicate of a predicated site in the `guarded` obligations.
pub(crate) const SITE_GUARD: &str = "%p9";
/// Byte offset of the value words in the slot of the `agg.*` obligations.
pub(crate) const VALUE_OFFSET: u64 = 24;
/// The warp-leader predicate (`lower::LEADER`).
pub(crate) const LEADER: &str = "%__wt_p1";

/// What an instruction site offers a pure probe body.
#[derive(Debug, Clone, Default)]
pub(crate) struct Site {
    /// A predicated site (guard `SITE_GUARD`).
    pub guarded: bool,
    /// An instruction site (not kernel entry).
    pub instr: bool,
    /// A memory access.
    pub mem: bool,
    /// Bytes accessed.
    pub bytes: Option<u32>,
    /// The address operand.
    pub addr: Option<Address>,
    /// Where `value` is.
    pub value: Option<ValueSrc>,
    /// The opcode id.
    pub opcode: Option<u64>,
    /// Per-kernel and per-site immediates.
    pub imms: SiteImms,
}

/// What is proved.
#[derive(Debug, Clone)]
pub(crate) enum What {
    /// A pure probe body (ending in `exit`) lowered by `lower_probe` at `site`: every IR
    /// register it names and every persistent register ends equal to the IR's.
    Body { insns: Vec<Insn>, site: Site },
    /// `aggregate::combine`: the value-word operations equal `Update::word_ops`.
    Combine { agg: Aggregation, value: ValueKind },
    /// `hashmap::map_update` with `keys` on a hash map of `capacity` slots: tag, probe
    /// sequence (one probe with `Probing::Home` and constant keys), slot addresses, the
    /// tag-0 slot, drops, key stores and the combine.
    Hash {
        keys: Vec<Operand>,
        capacity: u32,
        agg: Aggregation,
        value: ValueKind,
        probing: Probing,
    },
    /// `special::warp_leader`: the predicate is "first active lane".
    Leader,
    /// `combine::map_update`: the warp-combined update with `keys` (the same in every
    /// lane) on a hash map of `capacity` slots, in the warp model: the lowest lane of the
    /// group does the update of `hash` with the group's amounts (`plan`: `Uniform` means
    /// the operand register is the same in every lane), the others nothing; a lane whose
    /// masks disagree does its own update.
    WarpHash {
        keys: Vec<Operand>,
        capacity: u32,
        agg: Aggregation,
        value: ValueKind,
        plan: Plan,
        probing: Probing,
    },
    /// `sreg launch` into `dst`, lowered by `lower_probe` in a program of `maps` (which
    /// place the buffer's `launch` word), at a site predicated by `SITE_GUARD` when
    /// `guarded`: one load of that word.
    Launch {
        maps: Vec<MapDecl>,
        dst: warptrace_ir::Reg,
        guarded: bool,
    },
    /// `array::save` of `fields` into an array of `per` with `slots` slots (map
    /// `ARRAY_MAP` of `array_layout`) through the cursor `%__wt_x{CURSOR}`, written by
    /// `writer`: cursor, drop, the array word, the record's address, the taken check
    /// (`per = warp`), the fields, then `seq = s + 1`. With `exact`, also that the grid
    /// terms' 32-bit evaluations are exact, but for those of the `thread` special, which
    /// `sreg.thread` proves (the same terms, and so the same goals, in every obligation
    /// of a `per`: proved in one of them).
    Array {
        per: warptrace_ir::Per,
        slots: u32,
        fields: Vec<Operand>,
        writer: Writer,
        exact: bool,
    },
    /// `ring::append` of `fields` to a ring of `capacity` records: cursor, drop policy,
    /// record slot, fields, then (overwrite: the fence and) `seq = n + 1`.
    Ring {
        fields: Vec<Operand>,
        capacity: u32,
        overflow: Overflow,
        /// With the thread's latched drops (`ring.rs`): map 0's latch register.
        latched: bool,
    },
    /// `ring::flush` of map 0's latched drops into the drop counter of a drop ring.
    RingFlush,
}

/// One obligation.
#[derive(Debug, Clone)]
pub(crate) struct Obligation {
    /// Stable name, e.g. `bin.div.u.w32.reg-reg`.
    pub name: String,
    /// What it proves.
    pub what: What,
}

impl Obligation {
    fn new(name: impl Into<String>, what: What) -> Obligation {
        Obligation {
            name: name.into(),
            what,
        }
    }

    /// A pure body at kernel entry.
    fn body(name: impl Into<String>, insns: Vec<Insn>) -> Obligation {
        Obligation::new(
            name,
            What::Body {
                insns,
                site: Site::default(),
            },
        )
    }

    /// The PTX the back end emits for it.
    pub fn emit(&self) -> Result<String, Error> {
        match &self.what {
            What::Body { insns, site } => emit_body(insns, site),
            What::Combine { agg, value } => {
                let mut e = Emitter::default();
                aggregate::combine(&mut e, *agg, value, VALUE_OFFSET)?;
                Ok(e.finish())
            }
            What::Hash {
                keys,
                capacity,
                agg,
                value,
                probing,
            } => {
                let layout = hash_layout(keys.len(), *capacity, value);
                let region = only_region(&layout)?;
                let mut e = Emitter::default();
                let at = hashmap::Target {
                    region,
                    labels: "$__wt_1_m0",
                    probing: *probing,
                };
                hashmap::map_update(&mut e, at, keys, *agg, value)?;
                Ok(e.finish())
            }
            What::Leader => {
                let mut e = Emitter::default();
                special::warp_leader(&mut e, LEADER);
                Ok(e.finish())
            }
            What::WarpHash {
                keys,
                capacity,
                agg,
                value,
                plan,
                probing,
            } => {
                let layout = hash_layout(keys.len(), *capacity, value);
                let region = only_region(&layout)?;
                let mut e = Emitter::default();
                let at = hashmap::Target {
                    region,
                    labels: "$__wt_1_m0",
                    probing: *probing,
                };
                combine::map_update(&mut e, at, keys, *agg, value, *plan)?;
                Ok(e.finish())
            }
            What::Launch { maps, dst, guarded } => buffer::emit_launch(maps, *dst, *guarded),
            What::Array {
                per,
                slots,
                fields,
                writer,
                ..
            } => buffer::emit_array(*per, *slots, fields, *writer),
            What::Ring {
                fields,
                capacity,
                overflow,
                latched,
            } => {
                let layout = ring_layout(fields.len(), *capacity, *overflow);
                let region = only_region(&layout)?;
                let mut e = Emitter::default();
                ring::append(&mut e, region, fields, "$__wt_1_a0", latched.then_some(0));
                Ok(e.finish())
            }
            What::RingFlush => {
                let layout = ring_layout(1, 1024, Overflow::Drop);
                let region = only_region(&layout)?;
                let mut e = Emitter::default();
                ring::flush(&mut e, region, &ring::latch(0));
                Ok(e.finish())
            }
        }
    }
}

/// The one map region of an obligation's layout.
fn only_region(layout: &MapLayout) -> Result<&warptrace_ir::MapRegion, Error> {
    layout.regions.first().ok_or_else(|| Error::Unsupported {
        target: crate::TARGET,
        what: "no region".into(),
    })
}

/// The layout of the one ring of a `ring.*` obligation.
pub(crate) fn ring_layout(fields: usize, capacity: u32, overflow: Overflow) -> MapLayout {
    MapLayout::new(&[MapDecl {
        name: "r".into(),
        kind: MapKind::Ring { capacity, overflow },
        keys: Vec::new(),
        value: ValueKind::Record(vec![KeyType::Int { signed: false }; fields]),
    }])
}

/// The layout of the one hash map of a `hash.*` obligation.
pub(crate) fn hash_layout(keys: usize, capacity: u32, value: &ValueKind) -> MapLayout {
    MapLayout::new(&[MapDecl {
        name: "m".into(),
        kind: MapKind::Hash { capacity },
        keys: vec![KeyType::Int { signed: false }; keys],
        value: value.clone(),
    }])
}

/// The attach point a body is lowered at: an instruction site (a memory one when the
/// site is a memory access) or kernel entry.
fn point(site: &Site) -> AttachPoint {
    match (site.instr, site.mem) {
        (true, true) => AttachPoint::Mem {
            space: MemSpace::Any,
            op: MemOp::Any,
        },
        (true, false) => AttachPoint::Opcode {
            isa: warptrace_ir::Isa::Ptx,
            glob: "*".into(),
        },
        _ => AttachPoint::KernelEntry,
    }
}

fn emit_body(insns: &[Insn], site: &Site) -> Result<String, Error> {
    let probe = Probe {
        attach: AttachSpec::new(point(site), None),
        insns: insns.to_vec(),
        spans: vec![None; insns.len()],
    };
    emit_probe(&Program::default(), &probe, site)
}

/// `lower_probe` of `probe` (the first of the snippet, at the site's attach point) in
/// `program` at `site`.
fn emit_probe(program: &Program, probe: &Probe, site: &Site) -> Result<String, Error> {
    let layout = MapLayout::new(&program.maps);
    let home = hashmap::HomeSlots::default();
    let ctx = SnippetCtx {
        kernel: "tv",
        snippet: 1,
        line: 1,
        layout: &layout,
        program,
        // Per-thread map updates; the warp-wide site values as on sm_80 and later.
        warp: crate::combine::WarpCaps {
            site_match: true,
            site_redux: true,
            ..crate::combine::WarpCaps::NONE
        },
        home: &home,
        latched: false,
    };
    let guard = Guard {
        reg: SITE_GUARD.into(),
        negated: false,
    };
    let reg_bits = |r: &str| match super::ptx::reg_class(r) {
        Some(super::ptx::Class::Bits(b)) => Some(b),
        _ => None,
    };
    let info = SiteInfo {
        guard: site.guarded.then_some(&guard),
        instr: site.instr,
        mem: site.mem,
        bytes: site.bytes,
        bytes_src: None,
        addr: site.addr.as_ref(),
        value: site.value.as_ref(),
        opcode: site.opcode,
        imms: site.imms,
        reg_bits: &reg_bits,
    };
    lower_probe(probe, "probe 0", &ctx, &info)
}
