//! Probes in device functions (`.func` bodies) on `nvcc_calls.ptx`: a recursive function
//! declared before its definition, one function called by two kernels and by another
//! function, and an indirect call through a function-pointer table. Each instrumented
//! kernel calls its own clones (`__wt_<kernel ordinal>_<name>`, the map base as a last
//! argument), the originals stay for everyone else, and the module assembles.

use warptrace_codegen_ptx::{instrument, parse, Instrumented, KernelStatus, Module, StmtKind};
use warptrace_tests::{assemble, corpus_archs, corpus_file, programs, retarget};

const FILE: &str = "nvcc_calls.ptx";
const RECURSIVE: &str = "_Z13recursive_sumPKiiPiPj";
const COPY: &str = "_Z12clamped_copyPKiiPiPj";
const POINTER: &str = "_Z15through_pointerPKiiPiPj";
const TREE: &str = "_Z8tree_sumPKii";
const LOAD: &str = "_Z12load_clampedPKiii";

fn run(src: &str) -> (String, Instrumented) {
    let ptx = corpus_file(FILE);
    let program = warptrace_lang::compile(src, "functions.wt").expect("compiles");
    let out = instrument(&ptx, &programs::verified(&program)).expect("instruments");
    for arch in corpus_archs(FILE) {
        if let Some(Err(e)) = assemble(&retarget(&out.ptx, arch), arch, &[]) {
            panic!("`{src}`: ptxas -arch={arch}:\n{e}");
        }
    }
    (ptx, out)
}

/// The text of the body named `name`.
fn body(m: &Module, name: &str) -> String {
    let f = m
        .functions()
        .iter()
        .find(|f| f.name == name && f.body.is_some())
        .unwrap_or_else(|| panic!("no body of {name}"));
    m.source()[f.span.clone()].to_owned()
}

/// The callee of every call in the body named `name` (`%rd…` for an indirect one).
fn callees(m: &Module, name: &str) -> Vec<String> {
    let f = m
        .functions()
        .iter()
        .find(|f| f.name == name && f.body.is_some())
        .unwrap_or_else(|| panic!("no body of {name}"));
    let mut out = Vec::new();
    for s in &f.body.as_ref().expect("body").stmts {
        if let StmtKind::Instr(i) = &s.kind {
            if i.root() == "call" {
                let callee = i
                    .operands
                    .iter()
                    .find(|o| !matches!(o, warptrace_codegen_ptx::Operand::Group(_)));
                out.push(match callee {
                    Some(warptrace_codegen_ptx::Operand::Symbol(s)) => s.to_string(),
                    Some(warptrace_codegen_ptx::Operand::Reg(r)) => r.to_string(),
                    other => format!("{other:?}"),
                });
            }
        }
    }
    out
}

fn outcome<'a>(out: &'a Instrumented, kernel: &str) -> &'a warptrace_codegen_ptx::KernelOutcome {
    out.kernels
        .iter()
        .find(|k| k.name == kernel)
        .expect("kernel")
}

#[test]
fn recursion_and_shared_callees_get_one_clone_per_kernel() {
    let (ptx, out) = run("mem:global:load { @n[kernel] = count(); }");
    let before = parse(&ptx).expect("parses");
    let after = parse(&out.ptx).expect("parses back");
    let cloned = |kernel: &str| -> Vec<(String, String, u32)> {
        outcome(&out, kernel)
            .functions
            .iter()
            .map(|c| (c.name.clone(), c.clone.clone(), c.sites))
            .collect()
    };
    // recursive_sum → tree_sum (recursive, no load of its own) → load_clamped; `bump` has
    // no load and keeps being called as it is.
    assert_eq!(
        cloned(RECURSIVE),
        [
            (TREE.into(), format!("__wt_0_{TREE}"), 0),
            (LOAD.into(), format!("__wt_0_{LOAD}"), 1),
        ]
    );
    assert_eq!(
        callees(&after, RECURSIVE),
        [format!("__wt_0_{TREE}"), "_Z4bumpPjj".into()]
    );
    // The recursive calls stay within the clone.
    assert_eq!(
        callees(&after, &format!("__wt_0_{TREE}")),
        [
            format!("__wt_0_{LOAD}"),
            format!("__wt_0_{TREE}"),
            format!("__wt_0_{TREE}")
        ]
    );
    // clamped_copy has a clone of its own of the same function.
    assert_eq!(cloned(COPY), [(LOAD.into(), format!("__wt_1_{LOAD}"), 1)]);
    assert_eq!(
        callees(&after, COPY),
        [format!("__wt_1_{LOAD}"), "_Z4bumpPjj".into()]
    );
    // through_pointer's own load of the table is a site; its indirect call reaches the
    // original functions, uninstrumented.
    assert!(matches!(
        outcome(&out, POINTER).status,
        KernelStatus::Instrumented { sites: 1 }
    ));
    assert!(cloned(POINTER).is_empty());
    assert_eq!(callees(&after, POINTER), callees(&before, POINTER));
    assert!(callees(&after, POINTER)[0].starts_with('%'));
    // Inside each clone `kernel` is the calling kernel's id.
    for (kernel, clone) in [
        (RECURSIVE, format!("__wt_0_{LOAD}")),
        (COPY, format!("__wt_1_{LOAD}")),
    ] {
        let id = format!("0x{:016X}", outcome(&out, kernel).id);
        let other = format!(
            "0x{:016X}",
            outcome(&out, if kernel == COPY { RECURSIVE } else { COPY }).id
        );
        let text = body(&after, &clone);
        assert!(text.contains(&id) && !text.contains(&other), "{clone}");
    }
    // The originals are untouched, the prototypes of the clones precede every use.
    for name in [TREE, LOAD, "_Z4bumpPjj", "_Z9plain_sumPKii"] {
        assert_eq!(body(&before, name), body(&after, name), "{name}");
    }
    for k in &out.kernels {
        for c in &k.functions {
            let proto = out.ptx.find(&format!("{}(", c.clone)).expect("declared");
            let call = out.ptx.find(&format!("\t{}, ", c.clone));
            assert!(call.is_none_or(|call| proto < call), "{}", c.clone);
        }
    }
}

#[test]
fn a_kernel_glob_selects_whose_clones_are_made() {
    let (ptx, out) = run("mem:global:load:*clamped_copy* { @n[kernel] = count(); }");
    assert!(matches!(
        outcome(&out, COPY).status,
        KernelStatus::Instrumented { sites: 1 }
    ));
    assert_eq!(outcome(&out, COPY).functions.len(), 1);
    for kernel in [RECURSIVE, POINTER] {
        assert!(matches!(
            outcome(&out, kernel).status,
            KernelStatus::NoSites
        ));
        let (b, a) = (
            parse(&ptx).expect("parses"),
            parse(&out.ptx).expect("parses"),
        );
        assert_eq!(body(&b, kernel), body(&a, kernel));
    }
    assert!(!out.ptx.contains("__wt_0_") && !out.ptx.contains("__wt_2_"));
}

#[test]
fn every_instruction_point_fires_in_device_functions_and_kernel_points_do_not() {
    // `bump` has the module's only atomic: every kernel clones it.
    let (_, out) = run("mem:global:atomic { @n[kernel] = count(); }");
    for (i, k) in out.kernels.iter().enumerate() {
        assert!(
            matches!(k.status, KernelStatus::Instrumented { sites: 1 }),
            "{}",
            k.name
        );
        assert_eq!(k.functions.len(), 1);
        assert_eq!(k.functions[0].clone, format!("__wt_{i}__Z4bumpPjj"));
    }
    // A branch, a `ptx:` opcode and a source line inside a device function.
    for point in ["branch", "ptx:ld.global.nc*", "line:\"nvcc_calls.cu\":20"] {
        let (_, out) = run(&format!("{point} {{ @n[kernel] = count(); }}"));
        let k = outcome(&out, COPY);
        assert!(
            k.functions.iter().any(|c| c.name == LOAD && c.sites > 0),
            "{point}: {k:?}"
        );
    }
    // `ret` in a device function is not a kernel exit; entry is the kernel's.
    for point in ["kernel:entry", "kernel:exit"] {
        let (_, out) = run(&format!("{point} {{ @n[kernel] = count(); }}"));
        assert!(
            out.kernels.iter().all(|k| k.functions.is_empty()),
            "{point}"
        );
        assert!(!out.ptx.contains("__wt_0_"), "{point}");
    }
}

#[test]
fn persistent_registers_in_a_device_function_leave_the_kernel_unmodified() {
    let (ptx, out) = run("mem:global:atomic { %n = %n + 1; @n[kernel] = max(%n); }");
    assert_eq!(out.ptx, ptx);
    for k in &out.kernels {
        let KernelStatus::Unsupported { what } = &k.status else {
            panic!("{}: {:?}", k.name, k.status)
        };
        assert!(
            what.contains("persistent registers in device function `_Z4bumpPjj`"),
            "{what}"
        );
    }
}
