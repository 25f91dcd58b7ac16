//! Explicit CUDA graphs: a kernel node of a selected kernel, added with
//! `cuGraphAddKernelNode`/`cuGraphAddNode` or changed by a `SetParams` call, names the
//! instrumented function with a map buffer of the node's own appended; every
//! `cuGraphLaunch` of an executable holding such nodes zeroes and reads back their buffers
//! around the graph (`graph_launch.rs`), so each replay is probed without synchronizing the
//! application.
//!
//! What is tracked: each graph's kernel nodes of selected kernels (a [`Node`]: probed with
//! its buffer, or why not), those its child-graph nodes embed, and each executable's as
//! instantiated (`cuGraphInstantiate*`) and updated since (`cuGraphExecUpdate`,
//! `cuGraphExec(Kernel)NodeSetParams`). A clone (`cuGraphClone`) shares its original's
//! nodes, found in the clone with `cuGraphNodeFindInClone`.
//!
//! Invariants:
//! - A node's buffer is the node's for the rest of the process: executables, clones and
//!   parents name it, and the driver may still be running one of them when the application
//!   destroys the graph. It is never pooled or freed, and counts against `--map-memory`
//!   (past it, later nodes are added as given, and counted).
//! - Fail open, counted: a node the driver refuses in its instrumented form is added as the
//!   application gave it (`LaunchError` at each launch); a kernel node in a conditional
//!   node's body graph, whose runs no host call sees, is added as given and counted once
//!   (`GraphBody`); a probed node of a graph instantiated for device-side launch is counted
//!   once (`DeviceGraph`): only its host-side launches are read back.

use crate::capture::Relaxed;
use crate::config::{self, Fault};
use crate::driver::{CuResult, Driver, CUDA_SUCCESS};
use crate::instrument;
use crate::map_buf::{MapBuf, WAIT};
use crate::report::Reason;
use crate::state;
use cudarc::driver::sys::{
    CUDA_KERNEL_NODE_PARAMS_v2 as KernelParams, CUDA_KERNEL_NODE_PARAMS_v3, CUfunction, CUgraph,
    CUgraphNode, CUgraphNodeParams, CUgraphNodeType,
};
use std::collections::{HashMap, HashSet};
use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use warptrace_ir::{LaunchDims, MapLayout};
use warptrace_verifier::LaunchShape;

/// `CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH`.
pub(crate) const DEVICE_LAUNCH: u64 = 4;

/// A kernel node of a selected kernel.
#[derive(Debug)]
pub(crate) enum Node {
    /// It runs the instrumented function with this buffer.
    Probed(Arc<Probe>),
    /// It runs the original; `reason` is counted at each of its launches.
    Unprobed {
        name: Arc<str>,
        reason: Option<Reason>,
    },
}

/// A probed kernel node: its buffer and what each replay writes into it and reads back.
#[derive(Debug)]
pub(crate) struct Probe {
    /// The application's function (or kernel) and launch shape: a `SetParams` call naming
    /// the same keeps this buffer.
    handle: usize,
    shape: LaunchShape,
    pub(crate) name: Arc<str>,
    pub(crate) layout: Arc<MapLayout>,
    /// The header's words but the `launch` word (numbered at each replay).
    pub(crate) words: Vec<(u64, u64)>,
    pub(crate) dims: LaunchDims,
    pub(crate) buf: MapBuf,
    /// An event recorded after a read-back of `buf` follows it on some stream: the next
    /// zeroing waits for it (two replays on different streams never share the buffer).
    pub(crate) recorded: AtomicBool,
}

/// One tracked node of a graph or executable: the node's handle, the child-graph node it
/// came in through (0 if none), and its verdict.
#[derive(Debug, Clone)]
struct Entry {
    node: usize,
    via: usize,
    verdict: Arc<Node>,
}

#[derive(Debug, Default)]
struct Tracked {
    graphs: HashMap<usize, Vec<Entry>>,
    /// Each tracked node's graph.
    owner: HashMap<usize, usize>,
    execs: HashMap<usize, Vec<Entry>>,
    /// Body graphs of conditional nodes.
    bodies: HashSet<usize>,
}

static TRACKED: Mutex<Option<Tracked>> = Mutex::new(None);

fn with<R>(f: impl FnOnce(&mut Tracked) -> R) -> R {
    let mut t = TRACKED.lock().unwrap_or_else(|p| p.into_inner());
    f(t.get_or_insert_with(Tracked::default))
}

/// The parameters to give the driver instead of the application's, and what they point to.
struct Instead {
    params: KernelParams,
    _args: Vec<*mut c_void>,
    _map: Box<u64>,
}

/// The parameters `p` with the instrumented function and `device` as the map pointer.
///
/// # Safety
/// `p.kernelParams` has `n` entries.
unsafe fn substitute(p: &KernelParams, func: usize, n: u32, device: u64) -> Instead {
    let map = Box::new(device);
    let mut args: Vec<*mut c_void> = (0..n as usize)
        // SAFETY: the application's kernelParams has an entry per original parameter.
        .map(|i| unsafe { *p.kernelParams.add(i) })
        .collect();
    args.push((&raw const *map).cast_mut().cast());
    let mut params = *p;
    params.func = func as CUfunction;
    params.kern = std::ptr::null_mut();
    params.kernelParams = args.as_mut_ptr();
    Instead {
        params,
        _args: args,
        _map: map,
    }
}

/// What a kernel node of `graph` with `p` becomes: `None` for a kernel not selected (added
/// as given, not tracked), else its verdict and, when probed, the parameters to add. A
/// `previous` probe of the same kernel and shape keeps its buffer.
///
/// # Safety
/// `p` is the application's valid node parameters.
unsafe fn classify(
    d: &Driver,
    graph: usize,
    previous: Option<&Node>,
    p: &KernelParams,
) -> Option<(Arc<Node>, Option<Instead>)> {
    let cfg = config::config()?;
    let handle = if p.func.is_null() {
        p.kern as usize
    } else {
        p.func as usize
    };
    let info = state::tables().funcs.get(&handle).cloned()?;
    let name = info.name.clone();
    let unprobed = |reason| {
        Some((
            Arc::new(Node::Unprobed {
                name: name.clone(),
                reason,
            }),
            None,
        ))
    };
    if with(|t| t.bodies.contains(&graph)) {
        state::tables().count(Reason::GraphBody);
        config::verbose(format_args!(
            "{name}: graph node unprobed: {}",
            Reason::GraphBody.describe()
        ));
        return unprobed(None);
    }
    if !p.extra.is_null() {
        return unprobed(Some(Reason::ExtraParams));
    }
    let shape = LaunchShape {
        grid: [p.gridDimX, p.gridDimY, p.gridDimZ],
        block: [p.blockDimX, p.blockDimY, p.blockDimZ],
    };
    if let Some(Node::Probed(old)) = previous {
        if old.handle == handle && old.shape == shape && !p.kernelParams.is_null() {
            let probed = instrument::probed(d, cfg, handle, &info).ok()?;
            // SAFETY: kernelParams has an entry per original parameter.
            let instead = unsafe { substitute(p, probed.func, probed.params, old.buf.device) };
            return Some((Arc::new(Node::Probed(old.clone())), Some(instead)));
        }
    }
    // Allocation and the JIT must be neither refused by another thread's global-mode
    // capture nor invalidate it.
    let _relaxed = Relaxed::new(d);
    let (probed, (words, bytes, dims)) =
        match crate::launch::instrumented(d, cfg, handle, &info, shape) {
            Ok(found) => found,
            Err(reason) => return unprobed(reason),
        };
    if probed.params > 0 && p.kernelParams.is_null() {
        return unprobed(Some(Reason::ExtraParams));
    }
    let Ok(bytes) = usize::try_from(bytes) else {
        return unprobed(Some(Reason::MapAlloc));
    };
    if cfg.fault == Some(Fault::Alloc) {
        return unprobed(Some(Reason::MapAlloc));
    }
    let ctx = instrument::current_context(d);
    let budget = cfg.map_budget(d);
    let buf = match MapBuf::take(d, ctx, bytes, true, budget, WAIT) {
        Ok(buf) => buf,
        Err(reason) => return unprobed(Some(reason)),
    };
    let params = probed.params;
    let probe = Arc::new(Probe {
        handle,
        shape,
        name,
        layout: probed.layout.clone(),
        words,
        dims,
        buf,
        recorded: AtomicBool::new(false),
    });
    // SAFETY: kernelParams has an entry per original parameter (checked above).
    let instead = unsafe { substitute(p, probed.func, params, probe.buf.device) };
    Some((Arc::new(Node::Probed(probe)), Some(instead)))
}

/// Adds or sets a kernel node of `graph` through `call`: with the instrumented function and
/// the node's map buffer when its kernel is probed and the driver takes that, else as the
/// application gave it. Returns the driver's result and the node's verdict (`None`: a
/// kernel not selected, or no change to track).
///
/// # Safety
/// `p` is null or the application's valid node parameters; `call` makes the driver call.
pub(crate) unsafe fn kernel_node(
    d: &Driver,
    graph: usize,
    previous: Option<&Node>,
    p: *const KernelParams,
    call: impl Fn(*const KernelParams) -> CuResult,
) -> (CuResult, Option<Arc<Node>>) {
    if p.is_null() || !config::active() {
        return (call(p), None);
    }
    let classified = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: as the caller's contract.
        unsafe { classify(d, graph, previous, &*p) }
    }));
    let Ok(Some((node, instead))) = classified else {
        return (call(p), None);
    };
    let Some(instead) = instead else {
        return (call(p), Some(node));
    };
    let rc = call(&instead.params);
    let Node::Probed(probe) = &*node else {
        return (rc, Some(node));
    };
    if rc == CUDA_SUCCESS {
        if !previous.is_some_and(|n| matches!(n, Node::Probed(old) if Arc::ptr_eq(old, probe))) {
            state::tables().captured(&probe.name);
        }
        return (rc, Some(node));
    }
    config::verbose(format_args!(
        "{}: graph node unprobed: the driver refused its instrumented form (CUresult {rc})",
        probe.name
    ));
    let name = probe.name.clone();
    drop(instead);
    // Never named by a node: back to the pool.
    if let Some(Node::Probed(probe)) = Arc::into_inner(node) {
        if let Some(probe) = Arc::into_inner(probe) {
            probe.buf.give();
        }
    }
    let verdict = Node::Unprobed {
        name,
        reason: Some(Reason::LaunchError),
    };
    (call(p), Some(Arc::new(verdict)))
}

/// The kernel part of generic node parameters, when they are a kernel node's.
///
/// # Safety
/// `p` is null or valid node parameters.
pub(crate) unsafe fn kernel_part(p: *mut CUgraphNodeParams) -> Option<*mut KernelParams> {
    // SAFETY: as the caller's contract; the union's kernel member for a kernel node.
    (!p.is_null() && unsafe { (*p).type_ } == CUgraphNodeType::CU_GRAPH_NODE_TYPE_KERNEL)
        .then(|| unsafe { (&raw mut (*p).__bindgen_anon_1.kernel).cast::<KernelParams>() })
}

/// Kernel node parameters as the generic parameters' kernel member holds them (`_v3`, laid
/// out as `_v2`).
///
/// # Safety
/// `k` is valid.
pub(crate) unsafe fn as_v3(k: *const KernelParams) -> CUDA_KERNEL_NODE_PARAMS_v3 {
    // SAFETY: the same fields in the same order (cuda.h); sizes checked below.
    unsafe { *k.cast::<CUDA_KERNEL_NODE_PARAMS_v3>() }
}

const _: () = assert!(
    std::mem::size_of::<KernelParams>() == std::mem::size_of::<CUDA_KERNEL_NODE_PARAMS_v3>()
);

/// After `cuGraphAddNode` made a conditional node: its body graphs, whose kernel nodes are
/// added as given.
///
/// # Safety
/// `p` is null or the valid parameters the driver filled in.
pub(crate) unsafe fn conditional_added(p: *const CUgraphNodeParams) {
    // SAFETY: as the caller's contract; the union's conditional member for that type.
    let Some(c) = (!p.is_null()
        && unsafe { (*p).type_ } == CUgraphNodeType::CU_GRAPH_NODE_TYPE_CONDITIONAL)
        .then(|| unsafe { (*p).__bindgen_anon_1.conditional })
    else {
        return;
    };
    if c.phGraph_out.is_null() {
        return;
    }
    // SAFETY: the driver's array of `size` body graphs.
    let bodies = unsafe { std::slice::from_raw_parts(c.phGraph_out, c.size as usize) };
    with(|t| t.bodies.extend(bodies.iter().map(|&g| g as usize)));
}

/// A kernel node added to `graph` (`verdict` `None`: a kernel not selected, whose graph is
/// remembered for a later `SetParams`).
pub(crate) fn added(graph: usize, node: usize, verdict: Option<Arc<Node>>) {
    with(|t| {
        t.owner.insert(node, graph);
        if let Some(verdict) = verdict {
            t.graphs.entry(graph).or_default().push(Entry {
                node,
                via: 0,
                verdict,
            });
        }
    });
}

/// A tracked kernel node's graph and verdict; `None` for a node not added through a
/// tracked call (a captured graph's: `capture.rs` probes those).
pub(crate) fn in_graph(node: usize) -> Option<(usize, Option<Arc<Node>>)> {
    with(|t| {
        let graph = *t.owner.get(&node)?;
        let verdict = t
            .graphs
            .get(&graph)
            .and_then(|es| es.iter().find(|e| e.node == node && e.via == 0))
            .map(|e| e.verdict.clone());
        Some((graph, verdict))
    })
}

/// A tracked node's parameters set in its graph: `verdict` replaces what it was.
pub(crate) fn set(node: usize, verdict: Option<Arc<Node>>) {
    with(|t| {
        if let Some(&graph) = t.owner.get(&node) {
            replace(t.graphs.entry(graph).or_default(), node, verdict);
        }
    });
}

/// `node`'s own entry (not one a child graph embeds) in `entries` set to `verdict`, or
/// removed (`None`: a kernel not selected).
fn replace(entries: &mut Vec<Entry>, node: usize, verdict: Option<Arc<Node>>) {
    entries.retain(|e| !(e.node == node && e.via == 0));
    if let Some(verdict) = verdict {
        entries.push(Entry {
            node,
            via: 0,
            verdict,
        });
    }
}

/// A node's verdict in executable `exec`; `None` for an executable not tracked.
pub(crate) fn in_exec(exec: usize, node: usize) -> Option<Option<Arc<Node>>> {
    with(|t| {
        let entries = t.execs.get(&exec)?;
        Some(
            entries
                .iter()
                .find(|e| e.node == node && e.via == 0)
                .map(|e| e.verdict.clone()),
        )
    })
}

/// A node's parameters set in executable `exec`.
pub(crate) fn exec_set(exec: usize, node: usize, verdict: Option<Arc<Node>>) {
    with(|t| replace(t.execs.entry(exec).or_default(), node, verdict));
}

/// `exec` instantiated from `graph` (`flags` as instantiation had them).
pub(crate) fn instantiated(exec: usize, graph: usize, flags: u64) {
    let entries = with(|t| {
        let entries = t.graphs.get(&graph).cloned().unwrap_or_default();
        t.execs.insert(exec, entries.clone());
        entries
    });
    if flags & DEVICE_LAUNCH != 0 {
        for e in &entries {
            if let Node::Probed(p) = &*e.verdict {
                state::tables().count(Reason::DeviceGraph);
                config::verbose(format_args!(
                    "{}: {}",
                    p.name,
                    Reason::DeviceGraph.describe()
                ));
            }
        }
    }
}

/// `exec` updated from `graph` (`cuGraphExecUpdate` succeeded): it now runs `graph`'s nodes.
pub(crate) fn updated(exec: usize, graph: usize) {
    with(|t| {
        let entries = t.graphs.get(&graph).cloned().unwrap_or_default();
        t.execs.insert(exec, entries);
    });
}

/// `clone` made from `original`: it shares the original's nodes, each found in the clone.
pub(crate) fn cloned(d: &Driver, clone: usize, original: usize) {
    let entries = with(|t| t.graphs.get(&original).cloned().unwrap_or_default());
    if entries.is_empty() {
        return;
    }
    let find = d.cuGraphNodeFindInClone;
    let in_clone = |node: usize| -> Option<usize> {
        let find = find?;
        let mut out: CUgraphNode = std::ptr::null_mut();
        // SAFETY: a node of `original`, the clone made from it; an out-pointer.
        let rc = unsafe { find(&mut out, node as CUgraphNode, clone as CUgraph) };
        (rc == CUDA_SUCCESS && !out.is_null()).then_some(out as usize)
    };
    let mine: Vec<Entry> = entries
        .into_iter()
        .filter_map(|e| {
            // A node of the original is found in the clone; one embedded through a
            // child-graph node is found by that node.
            if e.via == 0 {
                in_clone(e.node).map(|node| Entry { node, ..e })
            } else {
                in_clone(e.via).map(|via| Entry { via, ..e })
            }
        })
        .collect();
    with(|t| {
        for e in &mine {
            if e.via == 0 {
                t.owner.insert(e.node, clone);
            }
        }
        t.graphs.insert(clone, mine);
    });
}

/// A child-graph node `node` of `parent` embedding (a copy of) `child`.
pub(crate) fn child_added(parent: usize, node: usize, child: usize) {
    with(|t| {
        let embedded: Vec<Entry> = t
            .graphs
            .get(&child)
            .map(|entries| {
                entries
                    .iter()
                    .map(|e| Entry {
                        via: node,
                        ..e.clone()
                    })
                    .collect()
            })
            .unwrap_or_default();
        if embedded.is_empty() {
            return;
        }
        t.owner.insert(node, parent);
        t.graphs.entry(parent).or_default().extend(embedded);
    });
}

/// `cuGraphDestroyNode`: the node, or what a child-graph node embedded, is gone.
pub(crate) fn node_destroyed(node: usize) {
    with(|t| {
        if let Some(graph) = t.owner.remove(&node) {
            if let Some(entries) = t.graphs.get_mut(&graph) {
                entries.retain(|e| e.node != node && e.via != node);
            }
        }
    });
}

/// `cuGraphDestroy`.
pub(crate) fn graph_destroyed(graph: usize) {
    with(|t| {
        t.graphs.remove(&graph);
        t.owner.retain(|_, g| *g != graph);
        t.bodies.remove(&graph);
    });
}

/// `cuGraphExecDestroy`.
pub(crate) fn exec_destroyed(exec: usize) {
    with(|t| {
        t.execs.remove(&exec);
    });
}

/// The kernel nodes of selected kernels an executable runs, `None` if it has none.
pub(crate) fn exec_nodes(exec: usize) -> Option<Vec<Arc<Node>>> {
    with(|t| {
        let entries = t.execs.get(&exec)?;
        (!entries.is_empty()).then(|| entries.iter().map(|e| e.verdict.clone()).collect())
    })
}
