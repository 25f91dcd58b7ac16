//! The reference interpreter: runs a [`Program`]'s device probes over a simulated launch
//! and its host blocks over a [`MapStore`]. It is the oracle GPU results are compared with.
//!
//! ```text
//! let interp = Interpreter::new(&program);
//! let mut store = MapStore::new(&program);
//! interp.run_host(HostEvent::Begin, &mut store, &mut |effect, store| …)?; // print, printf, exit
//! store.merge(interp.run_kernel(&kernel, &Grid::linear(4, 256))?);   // one launch
//! interp.run_host(HostEvent::End, &mut store, &mut |effect, store| …)?;
//! ```
//!
//! **The device.** A [`SimKernel`] gives each thread's sequence of site [`Event`]s. Each
//! warp runs in lockstep: its unfinished lanes whose next events have the same `pc` and
//! kind as the lowest unfinished lane's run that site together — that set is the active
//! mask (`activemask`, `active`), its lowest lane the first active lane. At a site, the
//! `before` probes that fire run for every active lane (probe order, then lane order),
//! then the `after` probes. A `warp` probe computes in every lane, but only the first
//! active lane does its map updates and records. Persistent registers are per thread and
//! zero at kernel entry. Map operations write a simulated map buffer laid out exactly as
//! the code generator's ([`MapLayout`]), with the same tags, probes, drops and encodings;
//! the launch's result is that buffer through [`MapStore::decode_launch`], the decoder the
//! runtime uses for the GPU's buffers.
//!
//! **Deterministic values.** `smid = block % nsmid` ([`SimConfig::nsmid`]); `warpid = warp`
//! (each warp of a block in the slot of its index); `clock64`
//! (and `globaltimer`, `clock` = its low 32 bits) is per warp: `100 × (sites the warp has
//! run) + 50 in after probes + the index of the reading instruction`, so it does not
//! depend on how warps are scheduled ([`Schedule`]); `launch` is [`SimConfig::launch`].
//!
//! **Faults.** Each instruction's step returns the control flow ([`Flow`]); a fault of the probe
//! (division by zero, an unknown map, a register read before it is written, …) is a
//! [`Trap`] with its location, distinct from [`Error::Internal`], a bug of the interpreter.

mod device;
mod grid;
mod host;
mod step;

pub use grid::{glob, Event, Grid, SimKernel, SiteEvent, Thread, ThreadEvents};
pub use host::{HostEffect, LaunchValues};
pub use step::{alu, extend, Flow};
#[cfg(test)]
pub(crate) use step::{run_body, Env, HostOp};

use crate::{
    kernel_id, FormatId, HostEvent, LaunchDims, MapId, MapKind, MapLayout, MapStore, PersistId,
    Position, Program, Reg,
};
use device::{DeviceBuffer, DeviceEnv};
use grid::{fires, ThreadView, WarpAccess};

/// The largest simulated buffer (bytes) a launch may need.
pub const MAX_BUFFER_BYTES: u64 = 1 << 30;

/// What a probe did wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, thiserror::Error)]
pub enum TrapKind {
    /// `div`/`rem` by zero.
    #[error("division by zero")]
    DivisionByZero,
    /// A register read before any write.
    #[error("r{} read before it is written", .0 .0)]
    UndefinedRegister(Reg),
    /// No such map.
    #[error("no map {0:?}")]
    UnknownMap(MapId),
    /// No such persistent register.
    #[error("no persistent register {0:?}")]
    UnknownPersist(PersistId),
    /// No such format.
    #[error("no format {0:?}")]
    UnknownFormat(FormatId),
    /// `printf` on the device without a printf ring.
    #[error("printf without a printf ring")]
    NoPrintfRing,
    /// The operation does not fit the map's kind (an update of a ring, a save to a hash…).
    #[error("operation does not fit the map's kind")]
    WrongMapKind,
    /// The aggregation does not fit the map's value.
    #[error("aggregation does not fit the map's value")]
    AggregationMismatch,
    /// Wrong number of keys.
    #[error("{got} keys for a map of {expected}")]
    KeyArity {
        /// Keys the map has.
        expected: usize,
        /// Keys given.
        got: usize,
    },
    /// Wrong number of record fields (or too many printf arguments).
    #[error("{got} fields for records of {expected}")]
    FieldCount {
        /// Fields a record has.
        expected: usize,
        /// Fields given.
        got: usize,
    },
    /// A per-site value or site operand at a probe without an instruction.
    #[error("site value at a probe without an instruction")]
    NoSite,
    /// A host-only instruction in a device probe.
    #[error("host-only instruction on the device")]
    HostOnly,
    /// A device-only instruction in a host block.
    #[error("device-only instruction on the host")]
    DeviceOnly,
    /// A jump that is not forward, or past the end.
    #[error("bad jump target {0}")]
    BadJump(u32),
    /// Control ran past the last instruction.
    #[error("no exit at the end of the body")]
    MissingExit,
}

/// Which body trapped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Body {
    /// Device probe `i` of the program.
    Probe(u32),
    /// Host block `i` of the program.
    Host(u32),
}

/// A probe fault and where it happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, thiserror::Error)]
#[error("{body:?}, insn {insn}{}: {kind}", .thread.map(|t| format!(", thread {t}")).unwrap_or_default())]
pub struct Trap {
    /// What went wrong.
    pub kind: TrapKind,
    /// In which body.
    pub body: Body,
    /// At which instruction.
    pub insn: u32,
    /// The linear global thread (device probes).
    pub thread: Option<u64>,
}

/// Why a run stopped.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The program faulted.
    #[error("trap: {0}")]
    Trap(#[from] Trap),
    /// The launch needs a larger simulated buffer than [`MAX_BUFFER_BYTES`].
    #[error("simulated map buffer of {0} bytes is too large")]
    BufferTooLarge(u64),
    /// A bug of the interpreter (e.g. its own buffer access out of bounds).
    #[error("interpreter bug: {0}")]
    Internal(String),
}

/// How one instruction failed: a trap of the program, or an interpreter bug.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    /// The program faulted.
    Trap(TrapKind),
    /// The interpreter is wrong.
    Internal(String),
}

/// The order in which warps run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Schedule {
    /// Each warp to its end, in block order then warp order.
    #[default]
    InOrder,
    /// One site of a pseudo-randomly chosen unfinished warp at a time (seeded).
    Interleaved {
        /// The seed of the choice.
        seed: u64,
    },
}

/// The simulated machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SimConfig {
    /// `nsmid`; `smid = block % nsmid`.
    pub nsmid: u32,
    /// The launch's sequence number (`launch`, and the buffer's `launch` word).
    pub launch: u64,
    /// Warp scheduling.
    pub schedule: Schedule,
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            nsmid: 132,
            launch: 1,
            schedule: Schedule::InOrder,
        }
    }
}

/// Runs one program; see the module documentation.
#[derive(Debug, Clone)]
pub struct Interpreter<'p> {
    program: &'p Program,
    layout: MapLayout,
    config: SimConfig,
}

struct Lane {
    thread: Thread,
    lane: u32,
    events: Vec<grid::Event>,
    next: usize,
    persist: Vec<u64>,
}

struct Warp {
    lanes: Vec<Lane>,
    sites: u64,
}

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    crate::mix64(*state)
}

impl<'p> Interpreter<'p> {
    /// An interpreter of `program` with the default [`SimConfig`].
    pub fn new(program: &'p Program) -> Interpreter<'p> {
        Interpreter {
            program,
            layout: MapLayout::new(&program.maps),
            config: SimConfig::default(),
        }
    }

    /// The same interpreter with another machine configuration.
    pub fn with_config(mut self, config: SimConfig) -> Interpreter<'p> {
        self.config = config;
        self
    }

    /// The buffer layout the simulated device writes.
    pub fn layout(&self) -> &MapLayout {
        &self.layout
    }

    /// Runs every host block of `event`, in program order, on `store`, and hands each
    /// effect to `on_effect` when the block asks for it, with the store as it is at that
    /// moment (a `print` before a `clear` sees the entries). `host.exit` does not end its
    /// block (the `exit` after it does).
    pub fn run_host(
        &self,
        event: HostEvent,
        store: &mut MapStore,
        on_effect: &mut dyn FnMut(HostEffect, &MapStore),
    ) -> Result<(), Error> {
        self.run_blocks(event, None, store, on_effect)
    }

    /// [`Interpreter::run_host`] for a `launch:begin` or `launch:end` event: the blocks
    /// read `launch`'s values (`kernel`, the grid and block, `shared`, `stream`,
    /// `duration`).
    pub fn run_launch(
        &self,
        event: HostEvent,
        launch: &LaunchValues,
        store: &mut MapStore,
        on_effect: &mut dyn FnMut(HostEffect, &MapStore),
    ) -> Result<(), Error> {
        self.run_blocks(event, Some(*launch), store, on_effect)
    }

    fn run_blocks(
        &self,
        event: HostEvent,
        launch: Option<LaunchValues>,
        store: &mut MapStore,
        on_effect: &mut dyn FnMut(HostEffect, &MapStore),
    ) -> Result<(), Error> {
        if store.maps.len() < self.program.maps.len() {
            let fresh = MapStore::new(self.program);
            store
                .maps
                .extend(fresh.maps.into_iter().skip(store.maps.len()));
        }
        let mut env = host::HostEnv {
            program: self.program,
            store,
            on_effect,
            launch,
        };
        for (i, block) in self.program.host.iter().enumerate() {
            if block.event != event {
                continue;
            }
            step::run_body(&block.insns, &mut env)
                .map_err(|(insn, f)| fault(f, Body::Host(i as u32), insn, None))?;
        }
        Ok(())
    }

    /// Runs one launch of `kernel` over `grid` and returns its maps, decoded from the
    /// simulated buffer.
    pub fn run_kernel(&self, kernel: &SimKernel<'_>, grid: &Grid) -> Result<MapStore, Error> {
        let tpb =
            u32::try_from(grid.threads_per_block()).map_err(|_| Error::BufferTooLarge(u64::MAX))?;
        let dims = LaunchDims {
            blocks: grid.blocks(),
            threads_per_block: tpb,
        };
        let launch = self.layout.for_launch(dims);
        if launch.total_bytes > MAX_BUFFER_BYTES {
            return Err(Error::BufferTooLarge(launch.total_bytes));
        }
        let mut buf = DeviceBuffer {
            bytes: vec![0; launch.total_bytes as usize],
        };
        let internal = |f: Fault| match f {
            Fault::Internal(s) => Error::Internal(s),
            Fault::Trap(k) => Error::Internal(format!("trap outside a probe: {k}")),
        };
        // What the runtime writes before a launch: array offsets and the launch word.
        for (region, offset) in self.layout.regions.iter().zip(&launch.array_offsets) {
            if let (MapKind::Array { .. }, Some(o)) = (region.kind, offset) {
                buf.write(region.slots_offset, *o).map_err(internal)?;
            }
        }
        buf.write(self.layout.launch_offset, self.config.launch)
            .map_err(internal)?;

        let probes: Vec<(u32, &crate::Probe)> = (0u32..)
            .zip(&self.program.probes)
            .filter(|(_, p)| {
                p.attach
                    .kernel_glob
                    .as_deref()
                    .is_none_or(|g| glob(g, &kernel.name))
            })
            .collect();
        let mut run = Launch {
            interp: self,
            kernel,
            grid: *grid,
            dims,
            launch: &launch,
            buf: &mut buf,
            probes,
            kernel_id: kernel_id(&kernel.name),
        };
        let ws = grid.warp_size.max(1);
        let warps_per_block = tpb.div_ceil(ws);
        let warp = |block: u64, w: u32| -> Warp {
            let lanes = (0..ws)
                .map(|l| w * ws + l)
                .filter(|&t| t < tpb)
                .map(|t| {
                    let thread = grid.thread(block, t);
                    let mut events = (kernel.events)(&thread);
                    if events.first().is_none_or(|e| e.site != SiteEvent::Entry) {
                        events.insert(0, grid::Event::at(0, SiteEvent::Entry));
                    }
                    if events.last().is_none_or(|e| e.site != SiteEvent::Exit) {
                        events.push(grid::Event::at(u32::MAX, SiteEvent::Exit));
                    }
                    Lane {
                        thread,
                        lane: t % ws,
                        events,
                        next: 0,
                        persist: vec![0; self.program.persistent.len()],
                    }
                })
                .collect();
            Warp { lanes, sites: 0 }
        };
        match self.config.schedule {
            Schedule::InOrder => {
                for block in 0..dims.blocks {
                    for w in 0..warps_per_block {
                        let mut warp = warp(block, w);
                        while run.step_warp(&mut warp)? {}
                    }
                }
            }
            Schedule::Interleaved { seed } => {
                let mut live: Vec<Warp> = (0..dims.blocks)
                    .flat_map(|b| (0..warps_per_block).map(move |w| (b, w)))
                    .map(|(b, w)| warp(b, w))
                    .collect();
                let mut state = seed;
                while !live.is_empty() {
                    let i = (splitmix(&mut state) % live.len() as u64) as usize;
                    if !run.step_warp(&mut live[i])? {
                        live.swap_remove(i);
                    }
                }
            }
        }
        Ok(MapStore::decode_launch(
            self.program,
            &self.layout,
            Some(dims),
            &buf.bytes,
        ))
    }
}

fn fault(f: Fault, body: Body, insn: u32, thread: Option<u64>) -> Error {
    match f {
        Fault::Trap(kind) => Error::Trap(Trap {
            kind,
            body,
            insn,
            thread,
        }),
        Fault::Internal(s) => Error::Internal(s),
    }
}

/// One launch in progress.
struct Launch<'a, 'p> {
    interp: &'a Interpreter<'p>,
    kernel: &'a SimKernel<'a>,
    grid: Grid,
    dims: LaunchDims,
    launch: &'a crate::LaunchLayout,
    buf: &'a mut DeviceBuffer,
    probes: Vec<(u32, &'p crate::Probe)>,
    kernel_id: u64,
}

impl Launch<'_, '_> {
    /// Runs the warp's next site; false when the warp has finished.
    fn step_warp(&mut self, warp: &mut Warp) -> Result<bool, Error> {
        let key = |l: &Lane| l.events.get(l.next).map(|e| (e.pc, e.site.kind_index()));
        let Some(lead) = warp.lanes.iter().position(|l| key(l).is_some()) else {
            return Ok(false);
        };
        let site = key(&warp.lanes[lead]);
        let active: Vec<usize> = (0..warp.lanes.len())
            .filter(|&i| key(&warp.lanes[i]) == site)
            .collect();
        let mask = active.iter().fold(0u64, |m, &i| {
            m | 1u64.checked_shl(warp.lanes[i].lane).unwrap_or(0)
        });
        let program = self.interp.program;
        let warp_access = WarpAccess::of(active.iter().map(|&i| {
            let l = &warp.lanes[i];
            (l.lane, &l.events[l.next].site)
        }));
        // The probes of the site: those the event names, or every one of the kernel's.
        let named = warp.lanes[lead].events[warp.lanes[lead].next]
            .probes
            .as_ref()
            .map(|list| {
                list.iter()
                    .filter_map(|&i| Some((i, program.probes.get(i as usize)?)))
                    .collect::<Vec<_>>()
            });
        let probes = named.as_deref().unwrap_or(&self.probes);
        for position in [Position::Before, Position::After] {
            for &(index, probe) in probes {
                if probe.attach.position != position {
                    continue;
                }
                for &i in &active {
                    let Lane {
                        thread,
                        lane,
                        events,
                        next,
                        persist,
                    } = &mut warp.lanes[i];
                    let event = &events[*next];
                    if named.is_none() && !fires(&probe.attach.point, event, self.kernel.isa) {
                        continue;
                    }
                    let clock = warp.sites * 100 + if position == Position::After { 50 } else { 0 };
                    let mut env = DeviceEnv {
                        program,
                        layout: &self.interp.layout,
                        launch_layout: self.launch,
                        dims: self.dims,
                        buf: self.buf,
                        view: ThreadView {
                            grid: self.grid,
                            thread: *thread,
                            lane: *lane,
                            mask,
                            clock,
                            nsmid: self.interp.config.nsmid,
                            launch: self.interp.config.launch,
                            kernel: self.kernel_id,
                            event,
                            warp_access,
                        },
                        persist,
                        point: &probe.attach.point,
                        position,
                        writes: probe.attach.granularity == crate::Granularity::Thread || i == lead,
                    };
                    step::run_body(&probe.insns, &mut env).map_err(|(insn, f)| {
                        fault(f, Body::Probe(index), insn, Some(thread.thread))
                    })?;
                }
            }
        }
        for &i in &active {
            warp.lanes[i].next += 1;
        }
        warp.sites += 1;
        Ok(true)
    }
}
