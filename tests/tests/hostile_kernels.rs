//! Kernels as hostile or unusual input (`tests/corpus/hostile/`).
//!
//! - `hopper_ws.ptx`, a warp-specialized producer/consumer kernel in the style of
//!   FlashAttention-3 and CUTLASS's Hopper kernels (`setmaxnreg`, `mbarrier.try_wait`
//!   loops whose labels are defined in two `{ }` scopes, `cp.async.bulk`, a `brx.idx`
//!   switch, a `.pragma` before the body, a comment naming `__wt_maps`): every library
//!   probe instruments it without a rejection, and `ptxas` assembles the result;
//! - `cccl_algorithms.ptx`, nvcc's kernels of cub's DeviceReduce, DeviceScan and
//!   DeviceSelect: the same, on each of its 8 kernels;
//! - a kernel declaring `.reg .b32 %r<100000000>` instruments (the range stays a range:
//!   expanded, it was 10^8 names);
//! - the model resolves a branch to a label defined in two scopes to the innermost one,
//!   and a `brx.idx` to every label of its table (the verifier's control-flow graph
//!   then has no unknown target).

use warptrace_codegen_ptx::{instrument, KernelStatus};
use warptrace_tests::{assemble, corpus_dir};
use warptrace_verifier::{Flow, Item, KernelModel};

fn hostile(name: &str) -> String {
    let path = corpus_dir().join("../hostile").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn verified(name: &str, src: &str) -> warptrace_verifier::VerifiedProgram {
    let program = warptrace_lang::compile(src, name)
        .unwrap_or_else(|e| panic!("{name} does not compile:\n{}", e.render()));
    warptrace_verifier::verify_program(&program)
        .unwrap_or_else(|e| panic!("{name} does not verify: {e:?}"))
}

/// Every library probe on the module `file`, on every core: each kernel it selects is
/// instrumented without a rejection, and `ptxas` (`sm_90a`) assembles the result; the
/// number of (probe, kernel) pairs instrumented.
fn every_library_probe_instruments(file: &str) -> usize {
    let ptx = hostile(file);
    let probes = warptrace_tests::library_probes();
    let outcomes = warptrace_tests::parallel(&probes, |(name, src)| {
        let out = instrument(&ptx, &verified(name, src)).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut failures = Vec::new();
        let mut instrumented = 0;
        for k in &out.kernels {
            match &k.status {
                KernelStatus::Rejected(errors) => {
                    failures.push(format!("{name}: {} REJECTED:\n{errors}", k.name))
                }
                KernelStatus::Instrumented { .. } => instrumented += 1,
                KernelStatus::NoSites
                | KernelStatus::Unsupported { .. }
                | KernelStatus::OverBudget { .. } => {}
            }
        }
        if out.ptx != ptx {
            if let Some(Err(e)) = assemble(&out.ptx, "sm_90a", &[]) {
                failures.push(format!("{name}: ptxas: {e}"));
            }
        }
        (failures, instrumented)
    });
    let failures: Vec<String> = outcomes.iter().flat_map(|(f, _)| f.clone()).collect();
    assert!(failures.is_empty(), "{file}:\n{}", failures.join("\n\n"));
    outcomes.iter().map(|(_, n)| n).sum()
}

#[test]
fn every_library_probe_instruments_a_warp_specialized_hopper_kernel() {
    let instrumented = every_library_probe_instruments("hopper_ws.ptx");
    assert!(
        instrumented >= 10,
        "only {instrumented} probes instrument it"
    );
}

#[test]
fn every_library_probe_instruments_cccl_s_device_algorithms() {
    // 8 kernels: DeviceReduce::Sum's, DeviceScan::ExclusiveSum's, DeviceSelect::Flagged's.
    let kernels = warptrace_codegen_ptx::parse(&hostile("cccl_algorithms.ptx"))
        .expect("parses")
        .functions()
        .iter()
        .filter(|f| f.kind == warptrace_codegen_ptx::FunctionKind::Entry && f.body.is_some())
        .count();
    assert_eq!(kernels, 8);
    let instrumented = every_library_probe_instruments("cccl_algorithms.ptx");
    // Every probe but tensorop_count (no tensor-core instruction here) selects some kernel.
    assert!(
        instrumented >= 8 * 10,
        "only {instrumented} (probe, kernel) pairs instrumented"
    );
}

#[test]
fn scoped_labels_and_switch_tables_resolve_as_ptxas_resolves_them() {
    let ptx = hostile("hopper_ws.ptx");
    let m = warptrace_codegen_ptx::parse(&ptx).expect("parses");
    let model = m
        .kernel_model("hopper_ws")
        .expect("a kernel, not a declaration");
    let items = model.items();
    let labels: Vec<&str> = items
        .iter()
        .filter_map(|i| match i {
            Item::Label { name, .. } => Some(name.as_str()),
            Item::Instr(_) => None,
        })
        .collect();
    // The two `WAIT` labels get names of their own, and each loop branches to its own.
    let waits: Vec<&&str> = labels.iter().filter(|l| l.starts_with("WAIT")).collect();
    assert_eq!(waits.len(), 2, "{labels:?}");
    assert_ne!(waits[0], waits[1]);
    let flows: Vec<&Flow> = items
        .iter()
        .filter_map(|i| match i {
            Item::Instr(x) => Some(&x.flow),
            Item::Label { .. } => None,
        })
        .collect();
    let wait_targets: Vec<&str> = flows
        .iter()
        .filter_map(|f| match f {
            Flow::Branch { target, .. } if target.starts_with("WAIT") => Some(target.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(wait_targets, [*waits[0], *waits[1]]);
    let switch = flows
        .iter()
        .find_map(|f| match f {
            Flow::Switch { targets } => Some(targets.clone()),
            _ => None,
        })
        .expect("brx.idx is a switch");
    assert_eq!(switch, ["$L__case0", "$L__case1", "$L__case2"]);
    // Every branch target is a label of the body.
    for f in &flows {
        let targets: Vec<&str> = match f {
            Flow::Branch { target, .. } => vec![target.as_str()],
            Flow::Switch { targets } => targets.iter().map(|t| t.as_str()).collect(),
            _ => continue,
        };
        for t in targets {
            assert!(
                labels.contains(&t),
                "branch to `{t}`, not a label of {labels:?}"
            );
        }
    }
}

#[test]
fn a_hundred_million_register_range_instruments() {
    let ptx = ".version 8.0\n.target sm_90\n.address_size 64\n\
        .visible .entry big(.param .u64 p)\n{\n\
        .reg .b32 %r<100000000>;\n.reg .b64 %rd<4>;\n\
        ld.param.u64 %rd1, [p];\ncvta.to.global.u64 %rd2, %rd1;\n\
        mov.u32 %r99999999, %tid.x;\nst.global.u32 [%rd2], %r99999999;\nret;\n}\n";
    let src = "mem:global:store { @n = count(); }";
    let out = instrument(ptx, &verified("stores", src)).expect("instruments");
    assert!(
        matches!(
            out.kernels[0].status,
            KernelStatus::Instrumented { sites: 1 }
        ),
        "{:?}",
        out.kernels[0].status
    );
}
