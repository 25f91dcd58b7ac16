//! The simulated device: a map buffer laid out exactly as the code generator lays it out
//! ([`MapLayout`]), and the probe environment of one thread at one site, whose map
//! operations write that buffer the way the generated code does (same tags, the same
//! [`HASH_MAX_PROBES`] linear probes, the same drop counting, encodings and records).

use super::grid::{SiteEvent, ThreadView};
use super::step::{Env, HostOp};
use super::{Fault, TrapKind};
use crate::{
    array_record_offset, kernel_id, AttachPoint, FormatId, LaunchDims, LaunchLayout, MapDecl,
    MapId, MapKind, MapLayout, MapRegion, MemOp, Overflow, Per, PersistId, Position, Program,
    SiteValue, Special, Update, ValueKind, HASH_MAX_PROBES,
};

/// A launch's map buffer, zeroed at the start like the runtime's.
pub(crate) struct DeviceBuffer {
    pub bytes: Vec<u8>,
}

fn internal(what: &str, offset: u64) -> Fault {
    Fault::Internal(format!(
        "{what}: offset {offset} outside the simulated buffer"
    ))
}

impl DeviceBuffer {
    pub fn read(&self, offset: u64) -> Result<u64, Fault> {
        let at = usize::try_from(offset).map_err(|_| internal("read", offset))?;
        let bytes = self
            .bytes
            .get(at..at.saturating_add(8))
            .ok_or_else(|| internal("read", offset))?;
        let mut word = [0u8; 8];
        word.copy_from_slice(bytes);
        Ok(u64::from_le_bytes(word))
    }

    pub fn write(&mut self, offset: u64, v: u64) -> Result<(), Fault> {
        let at = usize::try_from(offset).map_err(|_| internal("write", offset))?;
        let bytes = self
            .bytes
            .get_mut(at..at.saturating_add(8))
            .ok_or_else(|| internal("write", offset))?;
        bytes.copy_from_slice(&v.to_le_bytes());
        Ok(())
    }

    fn add(&mut self, offset: u64, x: u64) -> Result<(), Fault> {
        let v = self.read(offset)?;
        self.write(offset, v.wrapping_add(x))
    }

    fn write_words(&mut self, offset: u64, words: &[u64]) -> Result<(), Fault> {
        for (i, &w) in words.iter().enumerate() {
            self.write(offset + 8 * i as u64, w)?;
        }
        Ok(())
    }

    /// `map.update` on a hash map: find or claim the key tuple's slot (or count a drop),
    /// then apply the update's word operations.
    pub fn hash_update(
        &mut self,
        region: &MapRegion,
        value: &ValueKind,
        keys: &[u64],
        update: Update,
    ) -> Result<(), Fault> {
        let ops = update
            .word_ops(value)
            .ok_or(Fault::Trap(TrapKind::AggregationMismatch))?;
        let tag = MapLayout::tag(keys);
        let slot = if tag == 0 {
            let at = region.slot_offset(region.capacity);
            if self.read(at)? == 0 {
                self.write(at, 1)?;
                self.write_words(at + 8, keys)?;
            }
            Some(at)
        } else {
            let mut found = None;
            let cap = u64::from(region.capacity);
            for j in 0..u64::from(HASH_MAX_PROBES) {
                if cap == 0 {
                    break;
                }
                let i = (tag.wrapping_add(j) % cap) as u32;
                let at = region.slot_offset(i);
                // atom.cas(tag_word, 0, tag)
                let old = self.read(at)?;
                if old == 0 {
                    self.write(at, tag)?;
                    self.write_words(at + 8, keys)?;
                }
                if old == 0 || old == tag {
                    found = Some(at);
                    break;
                }
            }
            found
        };
        let Some(at) = slot else {
            return self.add(region.drops_offset, 1);
        };
        let values = at + region.value_offset_in_slot();
        for (i, op) in ops {
            if i as u32 >= region.value_words {
                return Err(Fault::Internal(format!(
                    "value word {i} past the slot's {} words",
                    region.value_words
                )));
            }
            let w = values + 8 * i as u64;
            let old = self.read(w)?;
            self.write(w, op.apply(old))?;
        }
        Ok(())
    }

    /// `map.append`: take a cursor index, store the record and its `seq`, or count a drop.
    pub fn ring_append(&mut self, region: &MapRegion, fields: &[u64]) -> Result<(), Fault> {
        let MapKind::Ring { capacity, overflow } = region.kind else {
            return Err(Fault::Trap(TrapKind::WrongMapKind));
        };
        let n = self.read(region.slots_offset)?;
        self.write(region.slots_offset, n.wrapping_add(1))?;
        let cap = u64::from(capacity);
        if n >= cap {
            // Refused (drop) or overwriting the oldest (overwrite): counted either way.
            self.add(region.drops_offset, 1)?;
            if overflow == Overflow::Drop || cap == 0 {
                return Ok(());
            }
        }
        let at = region.slot_offset((n % cap) as u32);
        self.write_words(at + 8, fields)?;
        self.write(at, n.wrapping_add(1))
    }
}

/// One thread's probe environment at one site on the simulated device.
pub(crate) struct DeviceEnv<'a> {
    pub program: &'a Program,
    pub layout: &'a MapLayout,
    pub launch_layout: &'a LaunchLayout,
    pub dims: LaunchDims,
    pub buf: &'a mut DeviceBuffer,
    pub view: ThreadView<'a>,
    pub persist: &'a mut [u64],
    pub point: &'a AttachPoint,
    pub position: Position,
    /// Whether map updates and records are done: false for the lanes of a `warp` probe
    /// other than the first active one.
    pub writes: bool,
}

fn trap(kind: TrapKind) -> Fault {
    Fault::Trap(kind)
}

impl<'a> DeviceEnv<'a> {
    fn map(&self, id: MapId) -> Result<(&'a MapDecl, &'a MapRegion), Fault> {
        let decl = self.program.map(id).ok_or(trap(TrapKind::UnknownMap(id)))?;
        let region = self
            .layout
            .regions
            .get(id.0 as usize)
            .ok_or(trap(TrapKind::UnknownMap(id)))?;
        Ok((decl, region))
    }

    fn persist_index(&self, p: PersistId) -> Result<usize, Fault> {
        let i = p.0 as usize;
        if i < self.persist.len() {
            Ok(i)
        } else {
            Err(trap(TrapKind::UnknownPersist(p)))
        }
    }

    /// A ring append (`map.append`, device `printf`).
    fn append(&mut self, id: MapId, fields: &[u64]) -> Result<(), Fault> {
        let (decl, region) = self.map(id)?;
        if !matches!(decl.kind, MapKind::Ring { .. }) {
            return Err(trap(TrapKind::WrongMapKind));
        }
        check_fields(decl, fields.len())?;
        if self.writes {
            self.buf.ring_append(region, fields)?;
        }
        Ok(())
    }
}

fn check_fields(decl: &MapDecl, got: usize) -> Result<(), Fault> {
    let expected = decl.value.words() as usize;
    if got != expected {
        return Err(trap(TrapKind::FieldCount { expected, got }));
    }
    Ok(())
}

impl Env for DeviceEnv<'_> {
    fn special(&mut self, s: Special, insn: u32) -> Result<u64, Fault> {
        if matches!(s, Special::Pc | Special::File | Special::Line) && !self.point.has_location() {
            return Err(trap(TrapKind::NoSite));
        }
        let v = self.view.special(s).ok_or(trap(TrapKind::NoSite))?;
        Ok(match s {
            // The counter advances with each instruction of the firing.
            Special::Clock64 | Special::GlobalTimer => v + u64::from(insn),
            Special::Clock => (v + u64::from(insn)) & 0xffff_ffff,
            _ => v,
        })
    }

    fn site(&mut self, v: SiteValue) -> Result<u64, Fault> {
        let event = &self.view.event.site;
        let Some(opcode) = event.opcode().filter(|_| self.point.has_instruction()) else {
            return Err(trap(TrapKind::NoSite));
        };
        if v == SiteValue::Opcode {
            return Ok(kernel_id(opcode));
        }
        let SiteEvent::Mem {
            op,
            addr,
            bytes,
            stored,
            loaded,
            ..
        } = event
        else {
            return Ok(0);
        };
        let warp = self.view.warp_access;
        Ok(match v {
            SiteValue::Bytes => *bytes,
            SiteValue::Addr => *addr,
            SiteValue::Value => match (self.position, op) {
                (Position::After, MemOp::Load | MemOp::Atomic | MemOp::Async) => *loaded,
                _ => *stored,
            },
            SiteValue::Opcode => kernel_id(opcode),
            SiteValue::Sectors => warp.sectors,
            SiteValue::Wavefronts => warp.wavefronts,
            SiteValue::Run => warp.runs.get(self.view.lane as usize).copied().unwrap_or(0),
        })
    }

    fn load_persist(&mut self, p: PersistId) -> Result<u64, Fault> {
        let i = self.persist_index(p)?;
        Ok(self.persist[i])
    }

    fn store_persist(&mut self, p: PersistId, v: u64) -> Result<(), Fault> {
        let i = self.persist_index(p)?;
        self.persist[i] = v;
        Ok(())
    }

    fn map_update(&mut self, id: MapId, keys: &[u64], update: Update) -> Result<(), Fault> {
        let (decl, region) = self.map(id)?;
        if !matches!(decl.kind, MapKind::Hash { .. }) {
            return Err(trap(TrapKind::WrongMapKind));
        }
        if keys.len() != decl.keys.len() {
            return Err(trap(TrapKind::KeyArity {
                expected: decl.keys.len(),
                got: keys.len(),
            }));
        }
        if update.word_ops(&decl.value).is_none() {
            return Err(trap(TrapKind::AggregationMismatch));
        }
        if !self.writes {
            return Ok(());
        }
        self.buf.hash_update(region, &decl.value, keys, update)
    }

    fn array_save(&mut self, id: MapId, cursor: PersistId, fields: &[u64]) -> Result<(), Fault> {
        let (decl, region) = self.map(id)?;
        let MapKind::Array { per, slots } = decl.kind else {
            return Err(trap(TrapKind::WrongMapKind));
        };
        check_fields(decl, fields.len())?;
        let c = self.persist_index(cursor)?;
        let s = self.persist[c];
        let Some(slot) = u32::try_from(s).ok().filter(|&s| s < slots) else {
            return if self.writes {
                self.buf.add(region.drops_offset, 1)
            } else {
                Ok(())
            };
        };
        // Every lane that runs the save advances its cursor; only the writer (every lane
        // of a per-thread probe, the leader of a `warp` probe) writes.
        self.persist[c] = s + 1;
        if !self.writes {
            return Ok(());
        }
        let t = &self.view.thread;
        let row = match per {
            Per::Thread => u64::from(t.linear_tid),
            Per::Warp => u64::from(t.linear_tid / 32),
        };
        let base = self
            .launch_layout
            .array_offsets
            .get(id.0 as usize)
            .copied()
            .flatten();
        let at = base
            .zip(array_record_offset(region, self.dims, t.block, row, slot))
            .and_then(|(b, o)| b.checked_add(o))
            .ok_or_else(|| Fault::Internal(format!("no record ({}, {row}, {slot})", t.block)))?;
        // A warp's record is written by whichever lane leads at the save; a leader whose
        // cursor lags (it missed saves of its warp) finds the slot taken: a counted drop.
        if per == Per::Warp && self.buf.read(at)? != 0 {
            return self.buf.add(region.drops_offset, 1);
        }
        self.buf.write_words(at + 8, fields)?;
        self.buf.write(at, s + 1)
    }

    fn ring_append(&mut self, id: MapId, fields: &[u64]) -> Result<(), Fault> {
        self.append(id, fields)
    }

    fn printf(&mut self, format: FormatId, args: &[u64]) -> Result<(), Fault> {
        if self.program.format(format).is_none() {
            return Err(trap(TrapKind::UnknownFormat(format)));
        }
        let ring = self
            .program
            .printf_ring()
            .ok_or(trap(TrapKind::NoPrintfRing))?;
        let (decl, _) = self.map(ring)?;
        let ValueKind::Printf { args: width } = decl.value else {
            return Err(trap(TrapKind::NoPrintfRing));
        };
        if args.len() > width as usize {
            return Err(trap(TrapKind::FieldCount {
                expected: width as usize,
                got: args.len(),
            }));
        }
        let mut fields = vec![u64::from(format.0)];
        fields.extend_from_slice(args);
        fields.resize(1 + width as usize, 0);
        self.append(ring, &fields)
    }

    fn host(&mut self, _: HostOp) -> Result<(), Fault> {
        Err(trap(TrapKind::HostOnly))
    }
}
