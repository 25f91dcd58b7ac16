//! The names the language knows — attach points, builtins and functions — as the tables
//! that both the checker and the CLI's `-l` listing read ([`attach_points`],
//! [`builtins`], [`functions`]).

use warptrace_ir::{
    AttachPoint, AttachSpec, HostEvent, Isa, LoopEdge, MemOp, MemSpace, Position, RegionEnd,
    SiteValue, Special,
};

/// One attach point, builtin or function: its name, a one-line description and where it
/// may be used.
#[derive(Debug)]
pub struct Entry {
    /// The name as written (attach points with their `<...>` parameters).
    pub name: &'static str,
    /// What it is, in one line.
    pub doc: &'static str,
    /// Where it may be used (builtins, functions) or where it runs (attach points).
    pub valid: &'static str,
    /// What the checker does with it.
    pub(crate) sem: Sem,
}

/// The meaning of an [`Entry`] for the checker.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Sem {
    Host(HostEvent),
    /// `kernel:entry`, `tensor:mma`, …: the name's components, then an optional glob.
    Fixed(FixedPoint),
    Mem,
    Line,
    Region(RegionEnd),
    Opcode(Isa),
    Builtin(Builtin, Validity),
    Function(Func),
}

/// The attach points without parameters.
#[derive(Debug, Clone, Copy)]
pub(crate) enum FixedPoint {
    KernelEntry,
    KernelExit,
    TensorMma,
    SyncBarrier,
    Branch,
    Loop(LoopEdge),
}

/// What a builtin reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Builtin {
    /// A special register (`kernel` included).
    Special(Special),
    /// An operand of the probed instruction.
    Site(SiteValue),
}

/// Where a builtin may be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Validity {
    /// Every device probe.
    Device,
    /// Device probes at an instruction.
    Site,
    /// Device probes with a place in the kernel's code: an instruction, a loop point
    /// (whose place is its loop header's first instruction) or a region point (the
    /// instruction its entry snippet precedes).
    Located,
    /// Memory-access probes: `mem:`, and `ptx:`/`gcn:` (the back end checks the opcode).
    Access,
    /// `value`: before stores, after loads, at atomics, at `ptx:`/`gcn:`.
    Value,
    /// A launch's host-side values: `launch:begin` and `launch:end` blocks.
    Launch,
    /// `duration`: `launch:end` blocks.
    LaunchEnd,
}

/// The functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Func {
    Count,
    Sum,
    Min,
    Max,
    Avg,
    Stats,
    Hist,
    Lhist,
    Printf,
    Print,
    Clear,
    Zero,
    Delete,
    Exit,
}

impl Func {
    /// Whether it is an aggregation (the value assigned to a hash map).
    pub fn is_aggregation(self) -> bool {
        matches!(
            self,
            Func::Count
                | Func::Sum
                | Func::Min
                | Func::Max
                | Func::Avg
                | Func::Stats
                | Func::Hist
                | Func::Lhist
        )
    }
}

const DEVICE: &str = "device probes (not begin, end, launch:complete, interval)";
const LAUNCH: &str = "launch:begin and launch:end blocks";
const LAUNCH_END: &str = "launch:end blocks";
const SITE: &str = "instruction probes: mem, tensor:mma, sync:barrier, branch, line, ptx, gcn";
const LOCATED: &str = "instruction probes (mem, tensor:mma, sync:barrier, branch, line, ptx, gcn), loop points (there: the loop header's first instruction) and region points (the instruction the region starts at)";
const ACCESS: &str = "mem:*:*, ptx:*, gcn:*";
const VALUE: &str = "mem:*:store (before), mem:*:load (after), mem:*:atomic, ptx:*, gcn:*";
/// Where host-only functions are valid.
pub(crate) const HOST: &str = "begin, end, launch:complete and interval blocks";
const AGG: &str = "as the value assigned to a hash map, e.g. `@m[k] = count()`";

const fn entry(name: &'static str, doc: &'static str, valid: &'static str, sem: Sem) -> Entry {
    Entry {
        name,
        doc,
        valid,
        sem,
    }
}

const fn special(name: &'static str, doc: &'static str, s: Special) -> Entry {
    entry(
        name,
        doc,
        DEVICE,
        Sem::Builtin(Builtin::Special(s), Validity::Device),
    )
}

const fn site(name: &'static str, doc: &'static str, s: Special) -> Entry {
    entry(
        name,
        doc,
        LOCATED,
        Sem::Builtin(Builtin::Special(s), Validity::Located),
    )
}

static ATTACH_POINTS: [Entry; 20] = [
    entry(
        "begin",
        "once, on the host, before tracing starts",
        "host",
        Sem::Host(HostEvent::Begin),
    ),
    entry(
        "end",
        "once, on the host, after tracing stops",
        "host",
        Sem::Host(HostEvent::End),
    ),
    entry(
        "launch:complete",
        "on the host, after each instrumented launch has finished",
        "host",
        Sem::Host(HostEvent::LaunchComplete),
    ),
    entry(
        "interval:<s|ms|us|hz>:<n>",
        "on the host, every n units (n times a second for hz) while the program runs (also i:)",
        "host",
        // Resolved by `interval`, which reads the period: this entry is for `-l` and hints.
        Sem::Host(HostEvent::Interval { us: 0 }),
    ),
    entry(
        "launch:begin",
        "in the traced process, as each launch of any kernel is made (SASS-only ones too)",
        "host",
        Sem::Host(HostEvent::LaunchBegin),
    ),
    entry(
        "launch:end",
        "in the traced process, once each launch of any kernel finished: `duration`",
        "host",
        Sem::Host(HostEvent::LaunchEnd),
    ),
    entry(
        "kernel:entry",
        "at kernel start, every thread",
        "device",
        Sem::Fixed(FixedPoint::KernelEntry),
    ),
    entry(
        "kernel:exit",
        "before every ret/exit, predicated exits included",
        "device",
        Sem::Fixed(FixedPoint::KernelExit),
    ),
    entry(
        "mem:<global|shared|local|generic|*>:<load|store|atomic|async|*>",
        "at each matching memory instruction (async: cp.async, bulk/TMA copies)",
        "device, instruction",
        Sem::Mem,
    ),
    entry(
        "tensor:mma",
        "at matrix instructions (mma, wmma, wgmma; v_mfma*, v_wmma*)",
        "device, instruction",
        Sem::Fixed(FixedPoint::TensorMma),
    ),
    entry(
        "sync:barrier",
        "at block barriers (bar.sync, barrier.sync, bar.arrive; s_barrier)",
        "device, instruction",
        Sem::Fixed(FixedPoint::SyncBarrier),
    ),
    entry(
        "branch",
        "at conditional branches",
        "device, instruction",
        Sem::Fixed(FixedPoint::Branch),
    ),
    entry(
        "loop:header",
        "at the top of each natural loop's header: every entry and every iteration",
        "device",
        Sem::Fixed(FixedPoint::Loop(LoopEdge::Header)),
    ),
    entry(
        "loop:backedge",
        "each time a loop back edge is taken (before the latch's branch)",
        "device",
        Sem::Fixed(FixedPoint::Loop(LoopEdge::Backedge)),
    ),
    entry(
        "loop:exit",
        "each time a loop exit edge is taken, before leaving the loop (ret/exit: kernel:exit)",
        "device",
        Sem::Fixed(FixedPoint::Loop(LoopEdge::Exit)),
    ),
    entry(
        "line:<file>:<from>[-<to>]",
        "instructions whose .loc is in that line range of that file",
        "device, instruction",
        Sem::Line,
    ),
    entry(
        "region:entry:<file>:<from>-<to>",
        "where control enters the smallest single-entry single-exit region around those lines",
        "device",
        Sem::Region(RegionEnd::Entry),
    ),
    entry(
        "region:exit:<file>:<from>-<to>",
        "where control leaves that region (once per entry)",
        "device",
        Sem::Region(RegionEnd::Exit),
    ),
    entry(
        "ptx:<opcode-glob>",
        "PTX instructions whose opcode matches the glob, e.g. ptx:ld.global.v4.*",
        "device, instruction",
        Sem::Opcode(Isa::Ptx),
    ),
    entry(
        "gcn:<opcode-glob>",
        "GCN instructions whose opcode matches the glob, e.g. gcn:v_mfma*",
        "device, instruction",
        Sem::Opcode(Isa::Gcn),
    ),
];

static BUILTINS: [Entry; 39] = [
    special("tid.x", "thread index in the block, x", Special::TidX),
    special("tid.y", "thread index in the block, y", Special::TidY),
    special("tid.z", "thread index in the block, z", Special::TidZ),
    special("ntid.x", "block size, x", Special::NtidX),
    special("ntid.y", "block size, y", Special::NtidY),
    special("ntid.z", "block size, z", Special::NtidZ),
    special("ctaid.x", "block index in the grid, x", Special::CtaidX),
    special("ctaid.y", "block index in the grid, y", Special::CtaidY),
    special("ctaid.z", "block index in the grid, z", Special::CtaidZ),
    special("nctaid.x", "grid size in blocks, x", Special::NctaidX),
    special("nctaid.y", "grid size in blocks, y", Special::NctaidY),
    special("nctaid.z", "grid size in blocks, z", Special::NctaidZ),
    special("smid", "the SM the thread runs on", Special::Smid),
    special("nsmid", "the number of SMs", Special::Nsmid),
    special(
        "warpid",
        "the warp's slot on its SM (AMD: the wave's SIMD and slot in its CU)",
        Special::Warpid,
    ),
    special("clock", "32-bit SM cycle counter", Special::Clock),
    special("clock64", "64-bit SM cycle counter", Special::Clock64),
    special("globaltimer", "GPU-global timer, ns", Special::GlobalTimer),
    special(
        "warp",
        "warp index in the block (linear thread index / 32)",
        Special::Warp,
    ),
    special("lane", "lane in the warp", Special::Lane),
    special("thread", "linear global thread id", Special::Thread),
    special("block", "linear block id", Special::Block),
    special(
        "activemask",
        "mask of the warp's active lanes",
        Special::ActiveMask,
    ),
    special(
        "active",
        "number of active lanes in the warp",
        Special::Active,
    ),
    special(
        "kernel",
        "the kernel (an id; its name on the host): only as a map key, record field or printf %s",
        Special::KernelId,
    ),
    special("launch", "launch sequence number", Special::Launch),
    entry(
        "duration",
        "the launch's time on the device, ns (from events around it)",
        LAUNCH_END,
        Sem::Builtin(Builtin::Special(Special::Duration), Validity::LaunchEnd),
    ),
    entry(
        "shared",
        "the launch's dynamic shared memory, bytes",
        LAUNCH,
        Sem::Builtin(Builtin::Special(Special::SharedBytes), Validity::Launch),
    ),
    entry(
        "stream",
        "the launch's stream (a handle; 0: the legacy default stream)",
        LAUNCH,
        Sem::Builtin(Builtin::Special(Special::Stream), Validity::Launch),
    ),
    site(
        "pc",
        "index of the probed instruction in the kernel; at loop points, of the loop header's first instruction (the loop's identity); at region points, of the instruction the region starts at",
        Special::Pc,
    ),
    site(
        "file",
        "id of the source file of the probed instruction's .loc (0 without; loop and region points: their place's)",
        Special::File,
    ),
    site(
        "line",
        "source line of the probed instruction's .loc (0 without; loop and region points: their place's)",
        Special::Line,
    ),
    entry(
        "opcode",
        "id of the probed instruction's full opcode",
        SITE,
        Sem::Builtin(Builtin::Site(SiteValue::Opcode), Validity::Site),
    ),
    entry(
        "addr",
        "effective address of the access, offset included",
        ACCESS,
        Sem::Builtin(Builtin::Site(SiteValue::Addr), Validity::Access),
    ),
    entry(
        "bytes",
        "bytes this thread accesses",
        ACCESS,
        Sem::Builtin(Builtin::Site(SiteValue::Bytes), Validity::Access),
    ),
    entry(
        "sectors",
        "distinct 32-byte sectors the warp's lanes executing the access together touch (1-32)",
        ACCESS,
        Sem::Builtin(Builtin::Site(SiteValue::Sectors), Validity::Access),
    ),
    entry(
        "wavefronts",
        "shared-memory wavefronts of the warp's access: 1 without bank conflicts, up to 32",
        ACCESS,
        Sem::Builtin(Builtin::Site(SiteValue::Wavefronts), Validity::Access),
    ),
    entry(
        "run",
        "warp-wide, per lane: mask of the lanes executing the access together whose address \
         is on this lane's line addr + (lane' - lane) * bytes (one run for a coalesced access)",
        ACCESS,
        Sem::Builtin(Builtin::Site(SiteValue::Run), Validity::Access),
    ),
    entry(
        "value",
        "the stored value (before a store or atomic) or the loaded value (after a load or atomic)",
        VALUE,
        Sem::Builtin(Builtin::Site(SiteValue::Value), Validity::Value),
    ),
];

static FUNCTIONS: [Entry; 14] = [
    entry(
        "count()",
        "count of updates",
        AGG,
        Sem::Function(Func::Count),
    ),
    entry(
        "sum(x)",
        "sum of x (wrapping)",
        AGG,
        Sem::Function(Func::Sum),
    ),
    entry("min(x)", "smallest x", AGG, Sem::Function(Func::Min)),
    entry("max(x)", "largest x", AGG, Sem::Function(Func::Max)),
    entry("avg(x)", "average of x", AGG, Sem::Function(Func::Avg)),
    entry(
        "stats(x)",
        "count, average and total of x",
        AGG,
        Sem::Function(Func::Stats),
    ),
    entry(
        "hist(x)",
        "log2 histogram of x",
        AGG,
        Sem::Function(Func::Hist),
    ),
    entry(
        "lhist(x, min, max, step)",
        "linear histogram of x; constant bounds",
        AGG,
        Sem::Function(Func::Lhist),
    ),
    entry(
        "printf(fmt, args...)",
        "print a line; on the device, appends (format id, args) to the printf ring",
        "device probes and host blocks",
        Sem::Function(Func::Printf),
    ),
    entry(
        "print(@m[, top[, div]])",
        "print a map: its top entries (0: all), values divided by div",
        HOST,
        Sem::Function(Func::Print),
    ),
    entry(
        "clear(@m)",
        "remove every key of a map",
        HOST,
        Sem::Function(Func::Clear),
    ),
    entry(
        "zero(@m)",
        "zero every value of a map, keeping its keys",
        HOST,
        Sem::Function(Func::Zero),
    ),
    entry(
        "delete(@m[k...])",
        "remove one key of a hash map",
        HOST,
        Sem::Function(Func::Delete),
    ),
    entry(
        "exit()",
        "stop tracing; end blocks run next",
        HOST,
        Sem::Function(Func::Exit),
    ),
];

/// Every attach point, for `-l`.
pub fn attach_points() -> &'static [Entry] {
    &ATTACH_POINTS
}

/// Every builtin, with where it is valid, for `-l`.
pub fn builtins() -> &'static [Entry] {
    &BUILTINS
}

/// Every function, with where it is valid, for `-l`.
pub fn functions() -> &'static [Entry] {
    &FUNCTIONS
}

/// The hints of an arity error of function `name`: its signature and what it does, and
/// for `hist` what stands for bpftrace's `hist(x, k)`.
pub(crate) fn signature_hints(name: &str) -> Vec<String> {
    let mut out: Vec<String> = FUNCTIONS
        .iter()
        .filter(|e| bare(e.name) == name)
        .map(|e| format!("`{}`: {}", e.name, e.doc))
        .collect();
    if name == "hist" {
        out.push(
            "bpftrace's `hist(x, k)` (sub-buckets, v0.18+) is not supported: \
             `lhist(x, min, max, step)` gives linear buckets"
                .into(),
        );
    }
    out
}

/// The name without the `(...)` of a function entry.
fn bare(name: &str) -> &str {
    name.split('(').next().unwrap_or(name)
}

/// Looks a builtin up by name.
pub(crate) fn builtin(name: &str) -> Option<(Builtin, Validity, &'static str)> {
    BUILTINS
        .iter()
        .find(|e| e.name == name)
        .and_then(|e| match e.sem {
            Sem::Builtin(b, v) => Some((b, v, e.valid)),
            _ => None,
        })
}

/// The hints for an unknown builtin: what bpftrace's name means here when it is one of
/// bpftrace's, else the nearest builtin's name, then every builtin.
pub(crate) fn builtin_hints(name: &str) -> Vec<String> {
    let names: Vec<&str> = BUILTINS.iter().map(|e| e.name).collect();
    let mut hints: Vec<String> = match name {
        "comm" => vec![
            "bpftrace's `comm` is a process's name: a GPU probe runs in a kernel, \
                        and `kernel` names it"
                .into(),
        ],
        "pid" | "tid" | "cpu" | "cgroup" | "uid" | "gid" => vec![format!(
            "bpftrace's `{name}` is the host thread's; a GPU probe runs in a thread of a kernel: \
             `tid.x`/`tid.y`/`tid.z` and `ctaid.x`/… place it in its block and grid, `thread` \
             and `block` are their linear indices, `lane` and `warp` its place in a warp, \
             `smid` its SM{}",
            if name == "pid" {
                " (the summary of `-f json` splits counts by the traced process's pid)"
            } else {
                ""
            }
        )],
        "nsecs" | "elapsed" => vec!["clocks on the GPU: `clock64` (the SM's cycles), \
                                     `globaltimer` (nanoseconds)"
            .into()],
        _ => did_you_mean(nearest(name, names.iter().copied())),
    };
    hints.push(format!("valid builtins: {}", names.join(", ")));
    hints
}

/// The candidate nearest to `name` by edit distance, when it is near enough to be a slip
/// (at most a third of the name's letters, at least one).
fn nearest<'a>(name: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (name.chars().count() / 3).max(1);
    candidates
        .map(|c| (strsim::damerau_levenshtein(name, c), c))
        .filter(|&(d, c)| d <= limit && c != name)
        .min()
        .map(|(_, c)| c)
}

/// The hint `did you mean `x`?` for a suggestion, if there is one.
fn did_you_mean(suggestion: Option<impl std::fmt::Display>) -> Vec<String> {
    suggestion
        .map(|s| format!("did you mean `{s}`?"))
        .into_iter()
        .collect()
}

/// Looks a function up by name.
pub(crate) fn function(name: &str) -> Option<Func> {
    // `bare(e.name) == name` without splitting every entry: `e.name` is `name` alone or
    // followed by `(`; a `bare` name never contains `(`.
    if name.contains('(') {
        return None;
    }
    FUNCTIONS
        .iter()
        .find(|e| {
            e.name
                .strip_prefix(name)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('('))
        })
        .and_then(|e| match e.sem {
            Sem::Function(f) => Some(f),
            _ => None,
        })
}

/// The name of a function as messages write it (`count`).
pub(crate) fn function_name(f: Func) -> &'static str {
    FUNCTIONS
        .iter()
        .find(|e| matches!(e.sem, Sem::Function(g) if g == f))
        .map_or("?", |e| bare(e.name))
}

/// The hints for an unknown function: the nearest function's name, then every one.
pub(crate) fn function_hints(name: &str) -> Vec<String> {
    let names: Vec<&str> = FUNCTIONS.iter().map(|e| bare(e.name)).collect();
    let mut hints = did_you_mean(nearest(name, names.iter().copied()));
    hints.push(format!("valid functions: {}", names.join(", ")));
    hints
}

/// The hints for an unknown attach point: the nearest concrete one (with the kernel glob
/// the name had, if any), then every one.
pub(crate) fn attach_hints(name: &str) -> Vec<String> {
    let names: Vec<&str> = ATTACH_POINTS.iter().map(|e| e.name).collect();
    let concrete = concrete_attach_points();
    // Not a point the name starts with: then the point is right and what follows it is
    // not (a file, a line range, too many components).
    let starts = |c: &str| {
        name.strip_prefix(c)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(':'))
    };
    let candidates = || concrete.iter().map(String::as_str).filter(|c| !starts(c));
    // The name whole, or without a last component that may be a kernel glob.
    let mut hints = did_you_mean(nearest(name, candidates()).map(str::to_string).or_else(|| {
        let (point, glob) = name.rsplit_once(':')?;
        nearest(point, candidates()).map(|c| format!("{c}:{glob}"))
    }));
    hints.push(format!(
        "valid attach points: {}; device ones take an optional kernel-name glob as last \
         component (e.g. mem:global:load:*gemm*) and the prefixes `warp` and `after`",
        names.join(", ")
    ));
    hints
}

/// Every attach point spelled out (`mem:global:load`, …), and the fixed part of those
/// that take a file, lines or an opcode (`line`, `ptx`): what a misspelling is near.
fn concrete_attach_points() -> Vec<String> {
    let mut out = vec!["BEGIN".to_string(), "END".to_string()];
    for e in ATTACH_POINTS.iter() {
        let mut names = vec![String::new()];
        for (i, part) in e.name.split(':').enumerate() {
            let alternatives: Vec<&str> = match part.strip_prefix('<') {
                Some(alt) if alt.contains('|') => alt
                    .trim_end_matches('>')
                    .split('|')
                    .filter(|a| *a != "*")
                    .collect(),
                Some(_) => break,
                None => vec![part],
            };
            names = names
                .iter()
                .flat_map(|n| {
                    alternatives.iter().map(move |a| {
                        if i == 0 {
                            a.to_string()
                        } else {
                            format!("{n}:{a}")
                        }
                    })
                })
                .collect();
        }
        out.extend(names);
    }
    out
}

/// Where a probe runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Target {
    Host(HostEvent),
    Device(AttachSpec),
}

/// `interval:UNIT:N` (bpftrace's, `i` for short; UNIT `s`, `ms`, `us` or `hz`): the host
/// event, `Ok(None)` for another attach point, `Err` why the period is not one.
pub(crate) fn interval(parts: &[impl AsRef<str>]) -> Result<Option<HostEvent>, String> {
    let strs: Vec<&str> = parts.iter().map(AsRef::as_ref).collect();
    let ["interval" | "i", rest @ ..] = strs.as_slice() else {
        return Ok(None);
    };
    let [unit, n] = rest else {
        return Err("an interval is `interval:UNIT:N`, UNIT one of s, ms, us, hz".into());
    };
    let n: u64 = n
        .parse()
        .ok()
        .filter(|&n| n > 0)
        .ok_or_else(|| format!("`{n}` is not a positive integer"))?;
    let us = match *unit {
        "s" => n.checked_mul(1_000_000),
        "ms" => n.checked_mul(1_000),
        "us" => Some(n),
        "hz" if n <= 1_000_000 => Some(1_000_000 / n),
        "hz" => return Err(format!("{n} Hz is more than once a microsecond")),
        other => return Err(format!("unknown interval unit `{other}`: s, ms, us or hz")),
    };
    us.map(|us| Some(HostEvent::Interval { us }))
        .ok_or_else(|| format!("{n}{unit} does not fit in 64 bits of microseconds"))
}

/// Resolves an attach point's components (without modifiers); `None` if unknown.
pub(crate) fn attach_point(parts: &[impl AsRef<str>]) -> Option<Target> {
    let strs: Vec<&str> = parts.iter().map(AsRef::as_ref).collect();
    match strs.as_slice() {
        ["BEGIN"] => return Some(Target::Host(HostEvent::Begin)),
        ["END"] => return Some(Target::Host(HostEvent::End)),
        _ => {}
    }
    ATTACH_POINTS.iter().find_map(|e| resolve(e, &strs))
}

fn resolve(e: &Entry, parts: &[&str]) -> Option<Target> {
    let (point, rest) = match (e.sem, parts) {
        (Sem::Host(event), _) => {
            let same = e.name.split(':').eq(parts.iter().copied());
            return same.then_some(Target::Host(event));
        }
        (Sem::Fixed(fixed), _) => {
            let n = e.name.split(':').count();
            let (head, rest) = (parts.get(..n)?, parts.get(n..)?);
            if !head.iter().copied().eq(e.name.split(':')) {
                return None;
            }
            let point = match fixed {
                FixedPoint::KernelEntry => AttachPoint::KernelEntry,
                FixedPoint::KernelExit => AttachPoint::KernelExit,
                FixedPoint::TensorMma => AttachPoint::TensorMma,
                FixedPoint::SyncBarrier => AttachPoint::SyncBarrier,
                FixedPoint::Branch => AttachPoint::Branch,
                FixedPoint::Loop(edge) => AttachPoint::Loop(edge),
            };
            (point, rest)
        }
        (Sem::Mem, ["mem", space, op, rest @ ..]) => {
            let space = *MemSpace::ALL.iter().find(|s| s.name() == *space)?;
            let op = *MemOp::ALL.iter().find(|o| o.name() == *op)?;
            (AttachPoint::Mem { space, op }, rest)
        }
        (Sem::Line, ["line", file, range, rest @ ..]) if !file.is_empty() => {
            let (from, to) = line_range(range)?;
            let file = (*file).to_string();
            (AttachPoint::Line { file, from, to }, rest)
        }
        (Sem::Region(end), ["region", e, file, range, rest @ ..])
            if *e == end.name() && !file.is_empty() =>
        {
            let (from, to) = line_range(range)?;
            let file = (*file).to_string();
            let point = AttachPoint::Region {
                end,
                file,
                from,
                to,
            };
            (point, rest)
        }
        (Sem::Opcode(isa), [prefix, glob, rest @ ..]) if *prefix == isa.name() => {
            if glob.is_empty() || glob.starts_with('"') {
                return None;
            }
            let glob = (*glob).to_string();
            (AttachPoint::Opcode { isa, glob }, rest)
        }
        _ => return None,
    };
    let glob = match rest {
        [] => None,
        [glob] if !glob.is_empty() => Some((*glob).to_string()),
        _ => return None,
    };
    Some(Target::Device(AttachSpec::new(point, glob)))
}

/// `FROM` or `FROM-TO` (with `FROM <= TO`).
fn line_range(range: &str) -> Option<(u32, u32)> {
    let (from, to) = match range.split_once('-') {
        Some((a, b)) => (a.parse().ok()?, b.parse().ok()?),
        None => {
            let line = range.parse().ok()?;
            (line, line)
        }
    };
    (from <= to).then_some((from, to))
}

/// Whether a builtin of this validity may be read at `target`.
pub(crate) fn valid_at(builtin: Builtin, validity: Validity, target: &Target) -> bool {
    let spec = match target {
        Target::Device(spec) => spec,
        Target::Host(event @ (HostEvent::LaunchBegin | HostEvent::LaunchEnd)) => {
            return match validity {
                Validity::Launch => true,
                Validity::LaunchEnd => *event == HostEvent::LaunchEnd,
                // What a launch's arguments say: its kernel, grid and block.
                _ => matches!(
                    builtin,
                    Builtin::Special(
                        Special::KernelId
                            | Special::NctaidX
                            | Special::NctaidY
                            | Special::NctaidZ
                            | Special::NtidX
                            | Special::NtidY
                            | Special::NtidZ
                    )
                ),
            };
        }
        Target::Host(_) => return false,
    };
    match validity {
        Validity::Launch | Validity::LaunchEnd => false,
        Validity::Device => true,
        Validity::Site => spec.point.has_instruction(),
        Validity::Located => spec.point.has_location(),
        Validity::Access => matches!(
            spec.point,
            AttachPoint::Mem { .. } | AttachPoint::Opcode { .. }
        ),
        Validity::Value => match spec.point {
            AttachPoint::Mem {
                op: MemOp::Store, ..
            } => spec.position == Position::Before,
            AttachPoint::Mem {
                op: MemOp::Load, ..
            } => spec.position == Position::After,
            AttachPoint::Mem {
                op: MemOp::Atomic, ..
            }
            | AttachPoint::Opcode { .. } => true,
            _ => false,
        },
    }
}
