//! Device-function clones on nvcc's `calls_noinline` (kernel → `stencil3` → `clamp_load`
//! ×3, and → `accumulate`): what is cloned for which probe, fail-open when a clone is
//! rejected (the clone text tampered with through [`tamper`]), and what is unsupported.

use super::{Placed, Placements};
use crate::{instrument, KernelStatus};
use std::cell::RefCell;
use std::ops::Range;
use warptrace_ir::Program;
use warptrace_verifier::{verify_program, KernelRule, Origin, VerifiedProgram};

const PTX: &str = include_str!("../../../tests/corpus/ptx/nvcc_kernels_sm80.ptx");
const KERNEL: &str = "_Z14calls_noinlinePKfPfS1_i";

thread_local! {
    /// A replacement (`from`, `to`) made in the first clone text containing `from`.
    static TAMPER: RefCell<Option<(String, String)>> = const { RefCell::new(None) };
}

/// Test seam of `instrument_kernel`: applies the thread's tampering to a clone's text,
/// moving the inserted ranges after it.
pub(super) fn tamper(
    text: String,
    mut ranges: Vec<(Range<usize>, Origin)>,
) -> (String, Vec<(Range<usize>, Origin)>) {
    TAMPER.with(|t| {
        let mut t = t.borrow_mut();
        let Some((from, to)) = t.as_ref() else {
            return (text, ranges);
        };
        let Some(at) = text.find(from.as_str()) else {
            return (text, ranges);
        };
        let delta = to.len() as isize - from.len() as isize;
        let shift = |o: usize| {
            if o > at {
                o.saturating_add_signed(delta)
            } else {
                o
            }
        };
        for (r, _) in &mut ranges {
            *r = shift(r.start)..shift(r.end);
        }
        let out = format!("{}{to}{}", &text[..at], &text[at + from.len()..]);
        *t = None;
        (out, ranges)
    })
}

fn program(text: &str) -> VerifiedProgram {
    let p = Program::parse(text).expect("IR parses");
    verify_program(&p).expect("verifies")
}

const LOAD_SUM: &str = "map @n: hash(keys = 4096) [kernel] -> sum u64

probe 0: mem:global:load:*calls_noinline*
  0: r0 = sreg kernel
  1: r1 = site bytes
  2: map.update @n[r0] sum r1
  3: exit
";

fn status(out: &crate::Instrumented) -> &crate::KernelOutcome {
    out.kernels
        .iter()
        .find(|k| k.name == KERNEL)
        .expect("kernel")
}

/// Instruments `PTX` with `LOAD_SUM`, the first clone containing `from` tampered to `to`.
fn tampered(from: &str, to: &str) -> crate::Instrumented {
    TAMPER.with(|t| *t.borrow_mut() = Some((from.into(), to.into())));
    let out = instrument(PTX, &program(LOAD_SUM)).expect("instruments");
    assert!(
        TAMPER.with(|t| t.borrow().is_none()),
        "`{from}` is in no clone"
    );
    out
}

#[test]
fn only_the_functions_on_a_path_to_a_site_are_cloned() {
    let out = instrument(PTX, &program(LOAD_SUM)).expect("instruments");
    let k = status(&out);
    assert!(matches!(k.status, KernelStatus::Instrumented { sites: 1 }));
    let cloned: Vec<(&str, &str, u32)> = k
        .functions
        .iter()
        .map(|c| (c.name.as_str(), c.clone.as_str(), c.sites))
        .collect();
    assert_eq!(
        cloned,
        [
            ("_Z8stencil3PKfii", "__wt_4__Z8stencil3PKfii", 0),
            ("_Z10clamp_loadPKfii", "__wt_4__Z10clamp_loadPKfii", 1),
        ]
    );
    // `accumulate` has no load: the kernel still calls the original.
    assert!(out.ptx.contains("\t_Z10accumulatePff, \n"));
    assert!(!out.ptx.contains("__wt_4__Z10accumulatePff"));
    // Prototypes first, then each clone right after its original.
    let proto = out
        .ptx
        .find(".func  (.param .b32 func_retval0) __wt_4__Z8stencil3PKfii(")
        .expect("prototype");
    let first = out
        .ptx
        .find(".func  (.param .b32 func_retval0) _Z10clamp_loadPKfii(");
    assert!(Some(proto) < first);
}

#[test]
fn a_rejected_clone_leaves_the_kernel_unmodified() {
    // The clone's probe adds into the kernel's buffer instead of the map.
    let clean = instrument(PTX, &program(LOAD_SUM)).expect("instruments");
    let out = tampered("[%__wt_t2+16]", "[%rd4+16]");
    assert_eq!(out.ptx, PTX, "fail open: nothing changes");
    // Located where the line would stand in the instrumented module.
    let clone = clean
        .ptx
        .find("// warptrace: `_Z10clamp_loadPKfii` instrumented");
    let clone = clone.expect("clone");
    let at = clone + clean.ptx[clone..].find("[%__wt_t2+16]").expect("site");
    let line = clean.ptx[..at].matches('\n').count() as u32 + 1;
    let KernelStatus::Rejected(e) = &status(&out).status else {
        panic!("{:?}", status(&out).status)
    };
    assert!(status(&out).functions.is_empty());
    assert_eq!(e.0.len(), 1, "{e}");
    assert_eq!(e.0[0].rule, KernelRule::MemorySafety);
    assert_eq!(e.0[0].kernel, "__wt_4__Z10clamp_loadPKfii");
    assert_eq!(e.0[0].corrupts.as_deref(), Some("%rd4"));
    assert_eq!(e.0[0].line, line, "{e}");
}

#[test]
fn a_tampered_redirection_in_a_clone_is_a_call_rewrite() {
    for (from, to, why) in [
        // The map argument is a kernel register, not the caller's map parameter.
        (
            "st.param.b64 [__wt_arg1], %__wt_t0;",
            "st.param.b64 [__wt_arg1], %rd1;",
            "not loaded from the map parameter",
        ),
        // The clone of another function.
        (
            "\t__wt_4__Z10clamp_loadPKfii, ",
            "\t__wt_4__Z8stencil3PKfii, ",
            "the clone of `_Z8stencil3PKfii`",
        ),
        // The original function, passed the extra argument.
        (
            "\t__wt_4__Z10clamp_loadPKfii, ",
            "\t_Z10clamp_loadPKfii, ",
            "arguments of the call of `_Z10clamp_loadPKfii` changed",
        ),
        // The map argument dropped.
        ("param2, __wt_arg2", "param2", "not the original's"),
    ] {
        let out = tampered(from, to);
        assert_eq!(out.ptx, PTX, "{to}");
        let KernelStatus::Rejected(e) = &status(&out).status else {
            panic!("{to}: {:?}", status(&out).status)
        };
        assert_eq!(e.0.len(), 1, "{to}: {e}");
        let v = &e.0[0];
        assert_eq!(v.rule, KernelRule::CallRewrite, "{to}: {v}");
        assert_eq!(v.kernel, "__wt_4__Z8stencil3PKfii", "{to}");
        assert!(v.message.contains(why), "{to}: {v}");
        assert!(v.text.starts_with("call.uni (retval0),"), "{to}: {v}");
    }
}

#[test]
fn persistent_registers_in_a_device_function_are_unsupported() {
    let p = program(
        "map @n: hash(keys = 4096) -> count
persistent %c

probe 0: mem:global:atomic:*calls_noinline*
  0: r0 = load %c
  1: r1 = add.64 r0, 1
  2: store %c, r1
  3: map.update @n count
  4: exit
",
    );
    let out = instrument(PTX, &p).expect("instruments");
    let KernelStatus::Unsupported { what } = &status(&out).status else {
        panic!("{:?}", status(&out).status)
    };
    assert!(
        what.contains("persistent registers in device function `_Z10accumulatePff`"),
        "{what}"
    );
    assert_eq!(out.ptx, PTX);
}

#[test]
fn kernel_entry_and_exit_stay_in_the_kernel() {
    let p = program(
        "map @n: hash(keys = 4096) -> count

probe 0: kernel:exit:*calls_noinline*
  0: map.update @n count
  1: exit
",
    );
    let out = instrument(PTX, &p).expect("instruments");
    let k = status(&out);
    // One `ret` in the kernel; the functions' `ret`s return to the caller.
    assert!(matches!(k.status, KernelStatus::Instrumented { sites: 1 }));
    assert!(k.functions.is_empty());
    assert!(!out.ptx.contains("__wt_4_"));
}

#[test]
fn placements_count_the_lines_before_a_place_as_a_pass_over_them_does() {
    let placed: Vec<Placed> = (0..200u32)
        .map(|i| Placed {
            offset: (i as usize * 7919) % 1000,
            order: i % 3,
            lines: 1 + i % 4,
        })
        .collect();
    let mut p = Placements::new(1000);
    for x in &placed {
        p.add(*x);
    }
    for offset in [0, 1, 7, 500, 998, 999, 1000, 5000] {
        let through: u32 = placed
            .iter()
            .filter(|x| x.offset <= offset)
            .map(|x| x.lines)
            .sum();
        assert_eq!(p.through(offset), through, "through {offset}");
        for order in 0..4 {
            let before: u32 = placed
                .iter()
                .filter(|x| (x.offset, x.order) < (offset, order))
                .map(|x| x.lines)
                .sum();
            assert_eq!(
                p.before(offset, order),
                before,
                "before ({offset}, {order})"
            );
        }
    }
}
