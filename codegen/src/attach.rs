//! Attach matching at instructions, the same for every target.
//!
//! Invariant: whether an instruction is a site of an instruction-level attach point
//! (`kernel:exit`, `mem:`, `tensor:mma`, `sync:barrier`, `branch`, `line:`, `ptx:`/`gcn:`)
//! depends only on the classes its back end puts it in ([`Instr`]), decided here once.
//! A back end says what its instructions are — which opcode ends the kernel, what a memory
//! access's space is — and never how a point matches. `kernel:entry`, `loop:` and
//! `region:` have no instruction of their own: the back end places them from its control
//! flow, and [`is_site`] answers `false` for them.

use warptrace_ir::{AttachPoint, MemOp, MemSpace};

use crate::Target;

/// What an instruction is, in the classes attach points name.
pub trait Instr {
    /// It ends the kernel (PTX `ret`/`exit`, GCN `s_endpgm`).
    fn is_exit(&self) -> bool;
    /// The memory access it makes, as `mem:` points name it (`None`: none they reach).
    fn mem(&self) -> Option<(MemSpace, MemOp)>;
    /// It is a matrix instruction (`tensor:mma`).
    fn is_mma(&self) -> bool;
    /// It is a block barrier (`sync:barrier`).
    fn is_barrier(&self) -> bool;
    /// It is a conditional branch (`branch`).
    fn is_branch(&self) -> bool;
    /// Its full opcode as written (`ld.global.v4.f32`, `v_add_u32_e32`): what `ptx:` and
    /// `gcn:` globs match.
    fn opcode(&self) -> &str;
    /// The source position its nearest preceding `.loc` names: the `.file`'s path and the
    /// line (`None` before any `.loc`, or for a file the module does not declare).
    fn position(&self) -> Option<(&str, u32)>;
}

/// The attach points a `mem:` point that attaches nowhere may have been meant as, nearest
/// first: the asynchronous copies of its space (`mem:global:load` → `mem:global:async`: a
/// pipelined kernel reads global memory only with `cp.async`), its operation through
/// generic addresses, any operation of its space, its operation in any space, then
/// `mem:*:*`, leaving out those whose sites are all its own. Empty for any other point.
pub fn widenings(point: &AttachPoint) -> Vec<AttachPoint> {
    let &AttachPoint::Mem { space, op } = point else {
        return Vec::new();
    };
    let mem = |space, op| AttachPoint::Mem { space, op };
    let mut out: Vec<AttachPoint> = Vec::new();
    for p in [
        mem(space, MemOp::Async),
        mem(MemSpace::Generic, op),
        mem(space, MemOp::Any),
        mem(MemSpace::Any, op),
        mem(MemSpace::Any, MemOp::Any),
    ] {
        // A point whose sites are all `point`'s would attach nowhere either.
        let AttachPoint::Mem { space: s, op: o } = p else {
            continue;
        };
        let within = (space == MemSpace::Any || space == s) && (op == MemOp::Any || op == o);
        if !within && !out.contains(&p) {
            out.push(p);
        }
    }
    out
}

/// What to say of `point`, which attaches nowhere, when `near` would attach at `sites`
/// instructions.
pub fn near_miss(point: &AttachPoint, near: &AttachPoint, sites: usize) -> String {
    let s = if sites == 1 { "" } else { "s" };
    format!("`{point}` attaches nowhere; `{near}` would, at {sites} instruction{s}")
}

/// Whether `instr`, an instruction of a `target` kernel, is a site of `point`.
pub fn is_site(point: &AttachPoint, target: Target, instr: &impl Instr) -> bool {
    match point {
        AttachPoint::KernelExit => instr.is_exit(),
        &AttachPoint::Mem { space, op } => instr.mem().is_some_and(|(s, o)| {
            (space == MemSpace::Any || space == s) && (op == MemOp::Any || op == o)
        }),
        AttachPoint::TensorMma => instr.is_mma(),
        AttachPoint::SyncBarrier => instr.is_barrier(),
        AttachPoint::Branch => instr.is_branch(),
        AttachPoint::Line { file, from, to } => in_lines(instr.position(), file, *from, *to),
        AttachPoint::Opcode { isa, glob } => {
            *isa == target && warptrace_ir::interp::glob(glob, instr.opcode())
        }
        AttachPoint::KernelEntry | AttachPoint::Loop(_) | AttachPoint::Region { .. } => false,
    }
}

/// Whether a source position is in `file:from-to`, `file` a suffix of the `.file` path:
/// how `line:` and `region:` points select instructions.
pub fn in_lines(position: Option<(&str, u32)>, file: &str, from: u32, to: u32) -> bool {
    position.is_some_and(|(path, line)| path.ends_with(file) && (from..=to).contains(&line))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An instruction with the classes given, as a back end would report them.
    #[derive(Default)]
    struct Fake {
        exit: bool,
        mem: Option<(MemSpace, MemOp)>,
        mma: bool,
        barrier: bool,
        branch: bool,
        opcode: &'static str,
        position: Option<(&'static str, u32)>,
    }

    impl Instr for Fake {
        fn is_exit(&self) -> bool {
            self.exit
        }
        fn mem(&self) -> Option<(MemSpace, MemOp)> {
            self.mem
        }
        fn is_mma(&self) -> bool {
            self.mma
        }
        fn is_barrier(&self) -> bool {
            self.barrier
        }
        fn is_branch(&self) -> bool {
            self.branch
        }
        fn opcode(&self) -> &str {
            self.opcode
        }
        fn position(&self) -> Option<(&str, u32)> {
            self.position
        }
    }

    #[test]
    fn mem_points_match_space_and_op_each_or_any() {
        let store = Fake {
            mem: Some((MemSpace::Global, MemOp::Store)),
            ..Fake::default()
        };
        let plain = Fake::default();
        // An asynchronous copy and an atomic are accesses of their space like any other.
        let global_any = AttachPoint::Mem {
            space: MemSpace::Global,
            op: MemOp::Any,
        };
        for op in [MemOp::Async, MemOp::Atomic] {
            let access = Fake {
                mem: Some((MemSpace::Global, op)),
                ..Fake::default()
            };
            assert!(is_site(&global_any, Target::Ptx, &access), "{op:?}");
        }
        // `mem:*:*`, `mem:global:*`, `mem:*:store`, `mem:shared:load`.
        for (space, op, hit) in [
            (MemSpace::Any, MemOp::Any, true),
            (MemSpace::Global, MemOp::Any, true),
            (MemSpace::Any, MemOp::Store, true),
            (MemSpace::Shared, MemOp::Load, false),
        ] {
            let point = AttachPoint::Mem { space, op };
            assert_eq!(is_site(&point, Target::Ptx, &store), hit, "{point:?}");
            assert!(!is_site(&point, Target::Ptx, &plain), "{point:?}");
        }
    }

    #[test]
    fn opcode_globs_match_their_own_isa_only() {
        let add = Fake {
            opcode: "v_add_u32_e32",
            ..Fake::default()
        };
        let gcn = AttachPoint::Opcode {
            isa: Target::Gcn,
            glob: "v_add_*".into(),
        };
        assert!(is_site(&gcn, Target::Gcn, &add));
        assert!(!is_site(&gcn, Target::Ptx, &add));
        let other = AttachPoint::Opcode {
            isa: Target::Gcn,
            glob: "v_mul_*".into(),
        };
        assert!(!is_site(&other, Target::Gcn, &add));
    }

    #[test]
    fn lines_match_a_file_suffix_within_the_range() {
        let at = |position| Fake {
            position,
            ..Fake::default()
        };
        let line = AttachPoint::Line {
            file: "kernel.cu".into(),
            from: 10,
            to: 12,
        };
        assert!(is_site(
            &line,
            Target::Gcn,
            &at(Some(("/src/kernel.cu", 10)))
        ));
        assert!(is_site(
            &line,
            Target::Gcn,
            &at(Some(("/src/kernel.cu", 12)))
        ));
        assert!(!is_site(
            &line,
            Target::Gcn,
            &at(Some(("/src/kernel.cu", 13)))
        ));
        assert!(!is_site(
            &line,
            Target::Gcn,
            &at(Some(("/src/kernel.cuh", 11)))
        ));
        assert!(!is_site(&line, Target::Gcn, &at(None)));
    }

    #[test]
    fn class_points_follow_their_class_and_placed_points_never_match() {
        let all = Fake {
            exit: true,
            mma: true,
            barrier: true,
            branch: true,
            ..Fake::default()
        };
        let none = Fake::default();
        for p in [
            AttachPoint::KernelExit,
            AttachPoint::TensorMma,
            AttachPoint::SyncBarrier,
            AttachPoint::Branch,
        ] {
            assert!(is_site(&p, Target::Ptx, &all), "{p:?}");
            assert!(!is_site(&p, Target::Ptx, &none), "{p:?}");
        }
        assert!(!is_site(&AttachPoint::KernelEntry, Target::Ptx, &all));
    }

    #[test]
    fn a_mem_point_widens_to_what_it_may_have_meant_nearest_first() {
        let mem = |space, op| AttachPoint::Mem { space, op };
        let names = |p: AttachPoint| -> Vec<String> {
            widenings(&p).iter().map(ToString::to_string).collect()
        };
        assert_eq!(
            names(mem(MemSpace::Global, MemOp::Load)),
            [
                "mem:global:async",
                "mem:generic:load",
                "mem:global:*",
                "mem:*:load",
                "mem:*:*"
            ]
        );
        assert_eq!(
            names(mem(MemSpace::Generic, MemOp::Async)),
            ["mem:generic:*", "mem:*:async", "mem:*:*"]
        );
        assert!(names(mem(MemSpace::Any, MemOp::Any)).is_empty());
        assert!(widenings(&AttachPoint::KernelEntry).is_empty());
        assert_eq!(
            near_miss(
                &mem(MemSpace::Global, MemOp::Load),
                &mem(MemSpace::Global, MemOp::Async),
                1
            ),
            "`mem:global:load` attaches nowhere; `mem:global:async` would, at 1 instruction"
        );
    }
}
