//! The graph API: kernel nodes added or changed with the instrumented function (the
//! decision is `graphs.rs`'s), graphs, clones, child graphs and executables tracked, and
//! graph launches read back (`graph_launch.rs`). Each wrapper makes the driver call first
//! or only; what it tracks follows the driver's success.

use super::guard;
use crate::config::active;
use crate::driver::{CuResult, CUDA_SUCCESS};
use crate::graphs::{self, Node};
use cudarc::driver::sys::{
    CUDA_KERNEL_NODE_PARAMS_v2 as KernelParams, CUgraph, CUgraphExec, CUgraphNode,
    CUgraphNodeParams, CUstream, CUDA_GRAPH_INSTANTIATE_PARAMS,
};
use std::ffi::c_void;
use std::sync::Arc;

/// `*out` after a successful call that wrote it.
///
/// # Safety
/// `out` is null or valid.
unsafe fn written<T: Copy>(rc: CuResult, out: *const T) -> Option<T> {
    // SAFETY: as the caller's contract.
    (rc == CUDA_SUCCESS && active() && !out.is_null()).then(|| unsafe { *out })
}

/// `cuGraphAddKernelNode` (the CUDA 12 ABI, `_v2`).
pub unsafe extern "C" fn cuGraphAddKernelNode_v2(
    out: *mut CUgraphNode,
    graph: CUgraph,
    deps: *const CUgraphNode,
    n: usize,
    p: *const KernelParams,
) -> CuResult {
    let (d, real) = real!(cuGraphAddKernelNode_v2);
    // SAFETY: forwarding, with parameters of the same node.
    let (rc, verdict) = unsafe {
        graphs::kernel_node(d, graph as usize, None, p, |p| real(out, graph, deps, n, p))
    };
    // SAFETY: the driver wrote the node on success.
    if let Some(node) = unsafe { written(rc, out) } {
        guard(|| graphs::added(graph as usize, node as usize, verdict));
    }
    rc
}

/// `cuGraphAddNode` and `_v2` (whose edge data passes through): a kernel node as
/// [`cuGraphAddKernelNode_v2`]; a conditional node's body graphs are remembered.
unsafe fn add_node(
    out: *mut CUgraphNode,
    graph: CUgraph,
    p: *mut CUgraphNodeParams,
    call: impl Fn(*mut CUgraphNodeParams) -> CuResult,
) -> CuResult {
    let Some(d) = crate::driver::driver() else {
        return call(p);
    };
    // SAFETY: the application's parameters.
    let Some(kernel) = (unsafe { graphs::kernel_part(p) }) else {
        let rc = call(p);
        if rc == CUDA_SUCCESS && active() {
            // SAFETY: the parameters the driver filled in.
            guard(|| unsafe { graphs::conditional_added(p) });
        }
        return rc;
    };
    // SAFETY: forwarding the application's parameters with their kernel part replaced.
    let (rc, verdict) = unsafe {
        graphs::kernel_node(d, graph as usize, None, kernel, |k| {
            let mut copy = *p;
            copy.__bindgen_anon_1.kernel = graphs::as_v3(k);
            call(&mut copy)
        })
    };
    // SAFETY: the driver wrote the node on success.
    if let Some(node) = unsafe { written(rc, out) } {
        guard(|| graphs::added(graph as usize, node as usize, verdict));
    }
    rc
}

/// `cuGraphAddNode`.
pub unsafe extern "C" fn cuGraphAddNode(
    out: *mut CUgraphNode,
    graph: CUgraph,
    deps: *const CUgraphNode,
    n: usize,
    p: *mut CUgraphNodeParams,
) -> CuResult {
    let (_, real) = real!(cuGraphAddNode);
    // SAFETY: forwarding.
    unsafe { add_node(out, graph, p, |p| real(out, graph, deps, n, p)) }
}

/// `cuGraphAddNode_v2`.
pub unsafe extern "C" fn cuGraphAddNode_v2(
    out: *mut CUgraphNode,
    graph: CUgraph,
    deps: *const CUgraphNode,
    edges: *const c_void,
    n: usize,
    p: *mut CUgraphNodeParams,
) -> CuResult {
    let (_, real) = real!(cuGraphAddNode_v2);
    // SAFETY: forwarding.
    unsafe { add_node(out, graph, p, |p| real(out, graph, deps, edges, n, p)) }
}

/// A tracked node's new kernel parameters, in its graph or (`exec`) one executable, made
/// through `call`; an untracked node's pass through.
unsafe fn set_kernel(
    exec: Option<usize>,
    node: CUgraphNode,
    p: *const KernelParams,
    call: impl Fn(*const KernelParams) -> CuResult,
) -> CuResult {
    let Some(d) = crate::driver::driver().filter(|_| active()) else {
        return call(p);
    };
    let node = node as usize;
    let found = guard(|| match exec {
        None => graphs::in_graph(node),
        Some(e) => {
            let graph = graphs::in_graph(node).map_or(0, |(g, _)| g);
            graphs::in_exec(e, node).map(|verdict| (graph, verdict))
        }
    });
    let Some(Some((graph, previous))) = found else {
        return call(p);
    };
    let previous: Option<&Node> = previous.as_deref();
    // SAFETY: forwarding, with parameters of the same node.
    let (rc, verdict) = unsafe { graphs::kernel_node(d, graph, previous, p, call) };
    if rc == CUDA_SUCCESS {
        let verdict: Option<Arc<Node>> = verdict;
        guard(|| match exec {
            None => graphs::set(node, verdict),
            Some(e) => graphs::exec_set(e, node, verdict),
        });
    }
    rc
}

/// `cuGraphKernelNodeSetParams` (`_v2`).
pub unsafe extern "C" fn cuGraphKernelNodeSetParams_v2(
    node: CUgraphNode,
    p: *const KernelParams,
) -> CuResult {
    let (_, real) = real!(cuGraphKernelNodeSetParams_v2);
    // SAFETY: forwarding.
    unsafe { set_kernel(None, node, p, |p| real(node, p)) }
}

/// `cuGraphExecKernelNodeSetParams` (`_v2`).
pub unsafe extern "C" fn cuGraphExecKernelNodeSetParams_v2(
    exec: CUgraphExec,
    node: CUgraphNode,
    p: *const KernelParams,
) -> CuResult {
    let (_, real) = real!(cuGraphExecKernelNodeSetParams_v2);
    // SAFETY: forwarding.
    unsafe { set_kernel(Some(exec as usize), node, p, |p| real(exec, node, p)) }
}

/// The generic setters: a kernel node's as [`set_kernel`], any other's passed through.
unsafe fn set_node(
    exec: Option<usize>,
    node: CUgraphNode,
    p: *mut CUgraphNodeParams,
    call: impl Fn(*mut CUgraphNodeParams) -> CuResult,
) -> CuResult {
    // SAFETY: the application's parameters.
    let Some(kernel) = (unsafe { graphs::kernel_part(p) }) else {
        return call(p);
    };
    // SAFETY: forwarding the application's parameters with their kernel part replaced.
    unsafe {
        set_kernel(exec, node, kernel, |k| {
            let mut copy = *p;
            copy.__bindgen_anon_1.kernel = graphs::as_v3(k);
            call(&mut copy)
        })
    }
}

/// `cuGraphNodeSetParams`.
pub unsafe extern "C" fn cuGraphNodeSetParams(
    node: CUgraphNode,
    p: *mut CUgraphNodeParams,
) -> CuResult {
    let (_, real) = real!(cuGraphNodeSetParams);
    // SAFETY: forwarding.
    unsafe { set_node(None, node, p, |p| real(node, p)) }
}

/// `cuGraphExecNodeSetParams`.
pub unsafe extern "C" fn cuGraphExecNodeSetParams(
    exec: CUgraphExec,
    node: CUgraphNode,
    p: *mut CUgraphNodeParams,
) -> CuResult {
    let (_, real) = real!(cuGraphExecNodeSetParams);
    // SAFETY: forwarding.
    unsafe { set_node(Some(exec as usize), node, p, |p| real(exec, node, p)) }
}

/// `cuGraphInstantiateWithFlags` (what `cuGraphInstantiate` means since CUDA 12).
pub unsafe extern "C" fn cuGraphInstantiateWithFlags(
    out: *mut CUgraphExec,
    graph: CUgraph,
    flags: u64,
) -> CuResult {
    let (_, real) = real!(cuGraphInstantiateWithFlags);
    // SAFETY: forwarding.
    let rc = unsafe { real(out, graph, flags) };
    // SAFETY: the driver wrote the executable on success.
    if let Some(exec) = unsafe { written(rc, out) } {
        guard(|| graphs::instantiated(exec as usize, graph as usize, flags));
    }
    rc
}

/// Both forms of `cuGraphInstantiateWithParams`.
unsafe fn instantiate_with_params(
    out: *mut CUgraphExec,
    graph: CUgraph,
    p: *mut CUDA_GRAPH_INSTANTIATE_PARAMS,
    rc: CuResult,
) -> CuResult {
    // SAFETY: the driver wrote the executable on success.
    if let Some(exec) = unsafe { written(rc, out) } {
        // SAFETY: the application's parameters.
        let flags = if p.is_null() {
            0
        } else {
            unsafe { (*p).flags }
        };
        guard(|| graphs::instantiated(exec as usize, graph as usize, flags));
    }
    rc
}

/// `cuGraphInstantiateWithParams`.
pub unsafe extern "C" fn cuGraphInstantiateWithParams(
    out: *mut CUgraphExec,
    graph: CUgraph,
    p: *mut CUDA_GRAPH_INSTANTIATE_PARAMS,
) -> CuResult {
    let (_, real) = real!(cuGraphInstantiateWithParams);
    // SAFETY: forwarding.
    unsafe { instantiate_with_params(out, graph, p, real(out, graph, p)) }
}

/// `cuGraphInstantiateWithParams_ptsz`.
pub unsafe extern "C" fn cuGraphInstantiateWithParams_ptsz(
    out: *mut CUgraphExec,
    graph: CUgraph,
    p: *mut CUDA_GRAPH_INSTANTIATE_PARAMS,
) -> CuResult {
    let (_, real) = real!(cuGraphInstantiateWithParams_ptsz);
    // SAFETY: forwarding.
    unsafe { instantiate_with_params(out, graph, p, real(out, graph, p)) }
}

/// `cuGraphExecUpdate` (`_v2`): on success the executable runs `graph`'s nodes.
pub unsafe extern "C" fn cuGraphExecUpdate_v2(
    exec: CUgraphExec,
    graph: CUgraph,
    info: *mut c_void,
) -> CuResult {
    let (_, real) = real!(cuGraphExecUpdate_v2);
    // SAFETY: forwarding.
    let rc = unsafe { real(exec, graph, info) };
    if rc == CUDA_SUCCESS && active() {
        guard(|| graphs::updated(exec as usize, graph as usize));
    }
    rc
}

/// `cuGraphLaunch`.
pub unsafe extern "C" fn cuGraphLaunch(exec: CUgraphExec, stream: CUstream) -> CuResult {
    let (d, real) = real!(cuGraphLaunch);
    if !active() {
        // SAFETY: forwarding.
        return unsafe { real(exec, stream) };
    }
    // SAFETY: forwarding, with the read-back around it.
    unsafe { crate::graph_launch::launch(d, exec as usize, stream, false, || real(exec, stream)) }
}

/// `cuGraphLaunch_ptsz`.
pub unsafe extern "C" fn cuGraphLaunch_ptsz(exec: CUgraphExec, stream: CUstream) -> CuResult {
    let (d, real) = real!(cuGraphLaunch_ptsz);
    if !active() {
        // SAFETY: forwarding.
        return unsafe { real(exec, stream) };
    }
    // SAFETY: forwarding, with the read-back around it.
    unsafe { crate::graph_launch::launch(d, exec as usize, stream, true, || real(exec, stream)) }
}

/// `cuGraphClone`.
pub unsafe extern "C" fn cuGraphClone(out: *mut CUgraph, original: CUgraph) -> CuResult {
    let (d, real) = real!(cuGraphClone);
    // SAFETY: forwarding.
    let rc = unsafe { real(out, original) };
    // SAFETY: the driver wrote the clone on success.
    if let Some(clone) = unsafe { written(rc, out) } {
        guard(|| graphs::cloned(d, clone as usize, original as usize));
    }
    rc
}

/// `cuGraphAddChildGraphNode`.
pub unsafe extern "C" fn cuGraphAddChildGraphNode(
    out: *mut CUgraphNode,
    parent: CUgraph,
    deps: *const CUgraphNode,
    n: usize,
    child: CUgraph,
) -> CuResult {
    let (_, real) = real!(cuGraphAddChildGraphNode);
    // SAFETY: forwarding.
    let rc = unsafe { real(out, parent, deps, n, child) };
    // SAFETY: the driver wrote the node on success.
    if let Some(node) = unsafe { written(rc, out) } {
        guard(|| graphs::child_added(parent as usize, node as usize, child as usize));
    }
    rc
}

/// `cuGraphDestroyNode`.
pub unsafe extern "C" fn cuGraphDestroyNode(node: CUgraphNode) -> CuResult {
    let (_, real) = real!(cuGraphDestroyNode);
    // SAFETY: forwarding.
    let rc = unsafe { real(node) };
    if rc == CUDA_SUCCESS && active() {
        guard(|| graphs::node_destroyed(node as usize));
    }
    rc
}

/// `cuGraphDestroy`.
pub unsafe extern "C" fn cuGraphDestroy(graph: CUgraph) -> CuResult {
    let (_, real) = real!(cuGraphDestroy);
    // SAFETY: forwarding.
    let rc = unsafe { real(graph) };
    if rc == CUDA_SUCCESS && active() {
        guard(|| graphs::graph_destroyed(graph as usize));
    }
    rc
}

/// `cuGraphExecDestroy`.
pub unsafe extern "C" fn cuGraphExecDestroy(exec: CUgraphExec) -> CuResult {
    let (_, real) = real!(cuGraphExecDestroy);
    // SAFETY: forwarding.
    let rc = unsafe { real(exec) };
    if rc == CUDA_SUCCESS && active() {
        guard(|| graphs::exec_destroyed(exec as usize));
    }
    rc
}
