//! The simulated launch: the grid, the per-thread site events a simulated kernel produces,
//! which probes an event fires, and the special values a thread reads.

use crate::{kernel_id, AttachPoint, Isa, LoopEdge, MemOp, MemSpace, RegionEnd, Special};

/// The shape of a launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Grid {
    /// Blocks per dimension (`nctaid.x/y/z`).
    pub grid: [u32; 3],
    /// Threads per block per dimension (`ntid.x/y/z`).
    pub block: [u32; 3],
    /// Lanes per warp (32 on NVIDIA). `array(per = warp)` rows are 32 threads regardless
    /// (the layout's rule), so other sizes only change lanes and active masks.
    pub warp_size: u32,
}

impl Grid {
    /// A one-dimensional grid of `blocks` blocks of `threads` threads, 32-lane warps.
    pub fn linear(blocks: u32, threads: u32) -> Grid {
        Grid {
            grid: [blocks, 1, 1],
            block: [threads, 1, 1],
            warp_size: 32,
        }
    }

    /// Blocks in the grid.
    pub fn blocks(&self) -> u64 {
        self.grid.iter().map(|&d| u64::from(d)).product()
    }

    /// Threads per block.
    pub fn threads_per_block(&self) -> u64 {
        self.block.iter().map(|&d| u64::from(d)).product()
    }

    /// The thread at linear block `block` and linear thread index `linear_tid` in it.
    pub(crate) fn thread(&self, block: u64, linear_tid: u32) -> Thread {
        let [nx, ny, _] = self.grid.map(u64::from);
        let ctaid = [
            (block % nx.max(1)) as u32,
            ((block / nx.max(1)) % ny.max(1)) as u32,
            (block / (nx.max(1) * ny.max(1))) as u32,
        ];
        let [tx, ty, _] = self.block;
        let tid = [
            linear_tid % tx.max(1),
            (linear_tid / tx.max(1)) % ty.max(1),
            linear_tid / (tx.max(1) * ty.max(1)),
        ];
        Thread {
            tid,
            ctaid,
            block,
            linear_tid,
            thread: block * self.threads_per_block() + u64::from(linear_tid),
        }
    }
}

/// Where a simulated thread is in the grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Thread {
    /// `tid.x/y/z`.
    pub tid: [u32; 3],
    /// `ctaid.x/y/z`.
    pub ctaid: [u32; 3],
    /// Linear block index (`block`).
    pub block: u64,
    /// Linear thread index in the block.
    pub linear_tid: u32,
    /// Linear global thread index (`thread`).
    pub thread: u64,
}

/// One instruction (or kernel boundary) a simulated thread reaches.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Event {
    /// What is there.
    pub site: SiteEvent,
    /// Index of the instruction in the kernel (`pc`); threads of a warp whose next events
    /// have the same `pc` and kind run them together.
    pub pc: u32,
    /// The `.loc` file of the instruction, if any (`file`, `line:` attach points).
    pub file: Option<String>,
    /// The `.loc` line (0 without `.loc`).
    pub line: u32,
    /// The probes that fire here, by index, in order (the `before` ones, then the
    /// `after` ones): a back end's placement of sites, modelled as it is. `None`: every
    /// probe whose attach point matches the event, in program order.
    pub probes: Option<Vec<u32>>,
}

impl Event {
    /// An event at `pc` without source position.
    pub fn at(pc: u32, site: SiteEvent) -> Event {
        Event {
            site,
            pc,
            file: None,
            line: 0,
            probes: None,
        }
    }

    /// The same event firing exactly `probes` (see [`Event::probes`]).
    pub fn firing(mut self, probes: Vec<u32>) -> Event {
        self.probes = Some(probes);
        self
    }

    /// The same event with a source position.
    pub fn with_line(mut self, file: &str, line: u32) -> Event {
        self.file = Some(file.to_string());
        self.line = line;
        self
    }
}

/// The kinds of place a probe can fire at.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum SiteEvent {
    /// Kernel start. Each thread starts with one (added when its events do not).
    Entry,
    /// Kernel end (a `ret`/`exit`). Each thread ends with one (added when missing).
    Exit,
    /// A memory instruction.
    Mem {
        /// Its state space.
        space: MemSpace,
        /// Its operation (never `Any`).
        op: MemOp,
        /// The full mnemonic (`ld.global.v4.b32`), for `opcode` and `ptx:` probes.
        opcode: String,
        /// Effective address.
        addr: u64,
        /// Bytes accessed by the thread.
        bytes: u64,
        /// The stored value (stores, atomics): `value` before the instruction.
        stored: u64,
        /// The loaded value (loads, atomics): `value` after the instruction.
        loaded: u64,
    },
    /// A matrix instruction.
    Mma {
        /// The mnemonic.
        opcode: String,
    },
    /// A block barrier.
    Barrier {
        /// The mnemonic.
        opcode: String,
    },
    /// A conditional branch.
    Branch {
        /// The mnemonic.
        opcode: String,
    },
    /// Any other instruction (for `line:` and `ptx:`/`gcn:` probes).
    Insn {
        /// The mnemonic.
        opcode: String,
    },
    /// A place of a natural loop (no instruction).
    Loop(LoopEdge),
    /// An end of the source-line region `file:from-to` (no instruction); the event's
    /// `pc`, `file` and `line` are the region's place.
    Region {
        /// Which end.
        end: RegionEnd,
        /// The region's file (a probe's file matches it as a suffix) and lines.
        file: String,
        /// First line.
        from: u32,
        /// Last line.
        to: u32,
    },
}

impl SiteEvent {
    /// A memory access of `bytes` at `addr` whose stored and loaded values are 0 (for
    /// kernels modelled by their addresses alone).
    pub fn mem(space: MemSpace, op: MemOp, opcode: &str, addr: u64, bytes: u64) -> SiteEvent {
        SiteEvent::Mem {
            space,
            op,
            opcode: opcode.to_string(),
            addr,
            bytes,
            stored: 0,
            loaded: 0,
        }
    }

    /// A small number per kind, for grouping lanes at the same site: lanes at one loop's
    /// header, back edge and exit (one `pc`) are at different places.
    pub(crate) fn kind_index(&self) -> u8 {
        match self {
            SiteEvent::Entry => 0,
            SiteEvent::Exit => 1,
            SiteEvent::Mem { .. } => 2,
            SiteEvent::Mma { .. } => 3,
            SiteEvent::Barrier { .. } => 4,
            SiteEvent::Branch { .. } => 5,
            SiteEvent::Insn { .. } => 6,
            SiteEvent::Loop(LoopEdge::Header) => 7,
            SiteEvent::Region { .. } => 8,
            SiteEvent::Loop(LoopEdge::Backedge) => 9,
            SiteEvent::Loop(LoopEdge::Exit) => 10,
        }
    }

    /// The mnemonic of the instruction, if the event is one.
    pub fn opcode(&self) -> Option<&str> {
        match self {
            SiteEvent::Mem { opcode, .. }
            | SiteEvent::Mma { opcode }
            | SiteEvent::Barrier { opcode }
            | SiteEvent::Branch { opcode }
            | SiteEvent::Insn { opcode } => Some(opcode),
            SiteEvent::Entry | SiteEvent::Exit | SiteEvent::Loop(_) | SiteEvent::Region { .. } => {
                None
            }
        }
    }
}

/// The events of one thread of a [`SimKernel`], in program order.
pub type ThreadEvents<'a> = dyn Fn(&Thread) -> Vec<Event> + 'a;

/// A simulated kernel: its name, its ISA and, for every thread, the events it reaches.
pub struct SimKernel<'a> {
    /// The kernel's (mangled) name: probes' kernel globs match it, `kernel` is its id.
    pub name: String,
    /// The ISA its opcodes belong to (`ptx:` / `gcn:` probes).
    pub isa: Isa,
    /// The events of one thread, in program order.
    pub events: Box<ThreadEvents<'a>>,
}

impl std::fmt::Debug for SimKernel<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SimKernel")
            .field("name", &self.name)
            .field("isa", &self.isa)
            .finish_non_exhaustive()
    }
}

impl<'a> SimKernel<'a> {
    /// A PTX kernel named `name` whose threads reach `events(thread)`.
    pub fn new(name: &str, events: impl Fn(&Thread) -> Vec<Event> + 'a) -> SimKernel<'a> {
        SimKernel {
            name: name.to_string(),
            isa: Isa::Ptx,
            events: Box::new(events),
        }
    }
}

/// `*` and `?` glob matching, as kernel globs and opcode globs use it (the interpreter
/// and the PTX back end's `ptx:` matching share it).
pub fn glob(pattern: &str, text: &str) -> bool {
    let (p, t): (Vec<char>, Vec<char>) = (pattern.chars().collect(), text.chars().collect());
    let (mut pi, mut ti) = (0, 0);
    let (mut star, mut mark) = (None, 0);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

/// Whether a probe attached at `point` fires at `event` of a kernel of `isa`.
pub(crate) fn fires(point: &AttachPoint, event: &Event, isa: Isa) -> bool {
    match (point, &event.site) {
        (AttachPoint::KernelEntry, SiteEvent::Entry)
        | (AttachPoint::KernelExit, SiteEvent::Exit) => true,
        (
            AttachPoint::Mem { space, op },
            SiteEvent::Mem {
                space: s, op: o, ..
            },
        ) => (*space == MemSpace::Any || space == s) && (*op == MemOp::Any || op == o),
        (AttachPoint::TensorMma, SiteEvent::Mma { .. })
        | (AttachPoint::SyncBarrier, SiteEvent::Barrier { .. })
        | (AttachPoint::Branch, SiteEvent::Branch { .. }) => true,
        (AttachPoint::Loop(e), SiteEvent::Loop(f)) => e == f,
        (
            AttachPoint::Region {
                end,
                file,
                from,
                to,
            },
            SiteEvent::Region {
                end: e,
                file: f,
                from: a,
                to: b,
            },
        ) => end == e && f.ends_with(file.as_str()) && (from, to) == (a, b),
        (AttachPoint::Line { file, from, to }, site) => {
            site.opcode().is_some()
                && event
                    .file
                    .as_deref()
                    .is_some_and(|f| f.ends_with(file.as_str()))
                && (*from..=*to).contains(&event.line)
        }
        (AttachPoint::Opcode { isa: i, glob: g }, site) => {
            *i == isa && site.opcode().is_some_and(|op| glob(g, op))
        }
        _ => false,
    }
}

/// The warp-wide values of the access the lanes at one site make together
/// ([`SiteValue::Sectors`](crate::SiteValue::Sectors), [`SiteValue::Wavefronts`](crate::SiteValue::Wavefronts)),
/// and each lane's [`SiteValue::Run`](crate::SiteValue::Run); zero at a site that is no
/// memory access.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct WarpAccess {
    pub sectors: u64,
    pub wavefronts: u64,
    /// Each lane's run, by lane index (a wave has at most 64 lanes).
    pub runs: [u64; 64],
}

impl Default for WarpAccess {
    fn default() -> WarpAccess {
        WarpAccess {
            sectors: 0,
            wavefronts: 0,
            runs: [0; 64],
        }
    }
}

impl WarpAccess {
    /// The values over the site events of the lanes (lane index, event) that run a site
    /// together.
    pub fn of<'a>(sites: impl Iterator<Item = (u32, &'a SiteEvent)> + Clone) -> WarpAccess {
        let lanes: Vec<(u32, u64)> = sites
            .clone()
            .filter_map(|(l, s)| match s {
                SiteEvent::Mem { addr, .. } => Some((l, *addr)),
                _ => None,
            })
            .collect();
        let bytes = sites
            .filter_map(|(_, s)| match s {
                SiteEvent::Mem { bytes, .. } => Some(*bytes),
                _ => None,
            })
            .max();
        let Some(b) = bytes else {
            return WarpAccess::default();
        };
        let addrs = lanes.iter().map(|&(_, a)| a);
        let mut runs = [0; 64];
        for &(l, _) in &lanes {
            if let Some(r) = runs.get_mut(l as usize) {
                *r = crate::run(b, &lanes, l);
            }
        }
        WarpAccess {
            sectors: crate::sectors(addrs.clone()),
            wavefronts: crate::wavefronts(b, addrs),
            runs,
        }
    }
}

/// What a thread sees at one firing: its place, its warp's state and the launch.
pub(crate) struct ThreadView<'e> {
    pub grid: Grid,
    pub thread: Thread,
    pub lane: u32,
    pub mask: u64,
    pub clock: u64,
    pub nsmid: u32,
    pub launch: u64,
    pub kernel: u64,
    pub event: &'e Event,
    pub warp_access: WarpAccess,
}

impl ThreadView<'_> {
    /// The value of a special register; `None` for per-site values at an event without
    /// an instruction.
    pub fn special(&self, s: Special) -> Option<u64> {
        let t = &self.thread;
        let g = &self.grid;
        let [nx, ny, nz] = g.grid;
        let [bx, by, bz] = g.block;
        Some(match s {
            Special::Clock => self.clock & 0xffff_ffff,
            Special::Clock64 | Special::GlobalTimer => self.clock,
            Special::Smid => t.block % u64::from(self.nsmid.max(1)),
            Special::Nsmid => u64::from(self.nsmid),
            // The simulated SM gives each warp of a block the slot of its index.
            Special::Warp | Special::Warpid => u64::from(t.linear_tid / g.warp_size.max(1)),
            Special::Lane => u64::from(self.lane),
            Special::TidX => u64::from(t.tid[0]),
            Special::TidY => u64::from(t.tid[1]),
            Special::TidZ => u64::from(t.tid[2]),
            Special::NtidX => u64::from(bx),
            Special::NtidY => u64::from(by),
            Special::NtidZ => u64::from(bz),
            Special::CtaidX => u64::from(t.ctaid[0]),
            Special::CtaidY => u64::from(t.ctaid[1]),
            Special::CtaidZ => u64::from(t.ctaid[2]),
            Special::NctaidX => u64::from(nx),
            Special::NctaidY => u64::from(ny),
            Special::NctaidZ => u64::from(nz),
            Special::Thread => t.thread,
            Special::Block => t.block & 0xffff_ffff,
            Special::ActiveMask => self.mask,
            Special::Active => u64::from(self.mask.count_ones()),
            Special::KernelId => self.kernel,
            Special::Launch => self.launch,
            Special::Pc | Special::File | Special::Line => {
                // An instruction, a loop point (placed at its header: `pc` is the loop's)
                // or a region point (`pc` is the region's).
                if !matches!(
                    self.event.site,
                    SiteEvent::Loop(_) | SiteEvent::Region { .. }
                ) {
                    self.event.site.opcode()?;
                }
                match s {
                    Special::Pc => u64::from(self.event.pc),
                    Special::File => self.event.file.as_deref().map_or(0, kernel_id),
                    _ => u64::from(self.event.line),
                }
            }
            // Host-side launch values: no device thread has them.
            Special::Duration | Special::SharedBytes | Special::Stream => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob("*add*", "vector_add_kernel"));
        assert!(glob("ld.global.v4.*", "ld.global.v4.b32"));
        assert!(!glob("ld.global.v4.*", "ld.global.b32"));
        assert!(glob("a?c", "abc"));
        assert!(glob("*", ""));
        assert!(!glob("a", ""));
    }

    #[test]
    fn threads_are_placed_in_three_dimensions() {
        let g = Grid {
            grid: [2, 3, 2],
            block: [4, 2, 2],
            warp_size: 32,
        };
        let t = g.thread(2 * (1 + 3), 1 + 4 * (1 + 2));
        assert_eq!(t.ctaid, [0, 1, 1]);
        assert_eq!(t.tid, [1, 1, 1]);
        assert_eq!(t.thread, 8 * 16 + 13);
    }
}
