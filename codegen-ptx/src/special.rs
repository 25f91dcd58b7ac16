//! `sreg NAME`: special values, per `docs/ir.md`'s table. Hardware registers are read with
//! `mov` (PTX reads special registers only through `mov`/`cvt`), 32-bit ones widened with
//! `cvt.u64.u32`; computed ones use the `.b32` temporaries `s0..s3` and `t5`.
//!
//! The warp leader (first active lane) of a `warp` probe is computed here too.

use crate::lower::{reg, Emitter};
use crate::Error;
use warptrace_ir::Special;

/// Per-site immediates a special value may need.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct SiteImms {
    pub kernel_id: u64,
    /// `pc`, `file`, `line`: `None` at kernel entry/exit.
    pub pc: Option<u32>,
    pub file: Option<u64>,
    pub line: Option<u32>,
}

/// A site's immediates fold its `kernel`, `pc`, `file` and `line` (the placement
/// decisions, `HomeSlots::decide_at`); no site operand is known from them.
impl warptrace_ir::fold::SiteConsts for SiteImms {
    fn special(&self, sp: Special) -> Option<u64> {
        constant(sp, self)
    }
    fn site(&self, _: warptrace_ir::SiteValue) -> Option<u64> {
        None
    }
}

/// How a special value is read.
enum Source {
    /// A 32-bit hardware register.
    Hw32(&'static str),
    /// A 64-bit hardware register.
    Hw64(&'static str),
    /// An immediate.
    Imm(u64),
    /// Computed.
    Computed,
}

fn source(sp: Special, imm: &SiteImms) -> Result<Source, Error> {
    let site = |v: Option<u64>| {
        v.map(Source::Imm).ok_or_else(|| Error::Unsupported {
            target: crate::TARGET,
            what: format!("sreg {} without an instruction", sp.name()),
        })
    };
    Ok(match sp {
        Special::Clock => Source::Hw32("%clock"),
        Special::Clock64 => Source::Hw64("%clock64"),
        Special::GlobalTimer => Source::Hw64("%globaltimer"),
        Special::Smid => Source::Hw32("%smid"),
        Special::Nsmid => Source::Hw32("%nsmid"),
        Special::Warpid => Source::Hw32("%warpid"),
        Special::Lane => Source::Hw32("%laneid"),
        Special::TidX => Source::Hw32("%tid.x"),
        Special::TidY => Source::Hw32("%tid.y"),
        Special::TidZ => Source::Hw32("%tid.z"),
        Special::NtidX => Source::Hw32("%ntid.x"),
        Special::NtidY => Source::Hw32("%ntid.y"),
        Special::NtidZ => Source::Hw32("%ntid.z"),
        Special::CtaidX => Source::Hw32("%ctaid.x"),
        Special::CtaidY => Source::Hw32("%ctaid.y"),
        Special::CtaidZ => Source::Hw32("%ctaid.z"),
        Special::NctaidX => Source::Hw32("%nctaid.x"),
        Special::NctaidY => Source::Hw32("%nctaid.y"),
        Special::NctaidZ => Source::Hw32("%nctaid.z"),
        Special::KernelId => Source::Imm(imm.kernel_id),
        Special::Pc => site(imm.pc.map(u64::from))?,
        Special::File => site(imm.file)?,
        Special::Line => site(imm.line.map(u64::from))?,
        Special::Warp
        | Special::Thread
        | Special::Block
        | Special::ActiveMask
        | Special::Active => Source::Computed,
        // The launch's sequence number is the map buffer's `launch` word: `lower.rs`
        // loads it (it needs the layout), so it never reaches `emit`.
        Special::Launch => Source::Computed,
        // The verifier refuses them in a device probe; never lowered.
        Special::Duration | Special::SharedBytes | Special::Stream => {
            return Err(Error::Unsupported {
                target: crate::TARGET,
                what: format!("`{}` in a device probe (a launch:* host value)", sp.name()),
            })
        }
    })
}

/// The value of a constant special (per-kernel or per-site immediate), if it is one.
pub(crate) fn constant(sp: Special, imm: &SiteImms) -> Option<u64> {
    match source(sp, imm) {
        Ok(Source::Imm(v)) => Some(v),
        _ => None,
    }
}

/// `s0 = linear thread index in the block` = `tid.x + ntid.x * (tid.y + ntid.y * tid.z)`.
fn linear_tid(e: &mut Emitter) {
    let (s0, s1, s2) = (reg("s", 0), reg("s", 1), reg("s", 2));
    e.insf(format_args!("mov.u32 {s0}, %tid.z"));
    e.insf(format_args!("mov.u32 {s1}, %ntid.y"));
    e.insf(format_args!("mov.u32 {s2}, %tid.y"));
    e.insf(format_args!("mad.lo.u32 {s0}, {s0}, {s1}, {s2}"));
    e.insf(format_args!("mov.u32 {s1}, %ntid.x"));
    e.insf(format_args!("mov.u32 {s2}, %tid.x"));
    e.insf(format_args!("mad.lo.u32 {s0}, {s0}, {s1}, {s2}"));
}

/// `s1 = ctaid.y + nctaid.y * ctaid.z` (fits 32 bits: y, z < 2^16) and `s2 = nctaid.x`,
/// `s3 = ctaid.x`: the linear block is `s3 + s2 * s1`.
fn block_parts(e: &mut Emitter) {
    let (s1, s2, s3) = (reg("s", 1), reg("s", 2), reg("s", 3));
    e.insf(format_args!("mov.u32 {s1}, %ctaid.z"));
    e.insf(format_args!("mov.u32 {s2}, %nctaid.y"));
    e.insf(format_args!("mov.u32 {s3}, %ctaid.y"));
    e.insf(format_args!("mad.lo.u32 {s1}, {s1}, {s2}, {s3}"));
    e.insf(format_args!("mov.u32 {s2}, %nctaid.x"));
    e.insf(format_args!("mov.u32 {s3}, %ctaid.x"));
}

/// Emits `dst = sreg sp` (a `.b64` probe register).
pub(crate) fn emit(e: &mut Emitter, dst: &str, sp: Special, imm: &SiteImms) -> Result<(), Error> {
    let (s0, s1, s2, s3, t5) = (
        reg("s", 0),
        reg("s", 1),
        reg("s", 2),
        reg("s", 3),
        reg("t", 5),
    );
    match source(sp, imm)? {
        Source::Hw32(r) => {
            e.insf(format_args!("mov.u32 {s0}, {r}"));
            e.insf(format_args!("cvt.u64.u32 {dst}, {s0}"));
        }
        Source::Hw64(r) => e.insf(format_args!("mov.u64 {dst}, {r}")),
        Source::Imm(v) => e.insf(format_args!("mov.b64 {dst}, {}", crate::lower::imm64(v))),
        Source::Computed => match sp {
            Special::Warp => {
                linear_tid(e);
                e.insf(format_args!("shr.u32 {s0}, {s0}, 5"));
                e.insf(format_args!("cvt.u64.u32 {dst}, {s0}"));
            }
            Special::Block => {
                block_parts(e);
                e.insf(format_args!("mad.lo.u32 {s0}, {s2}, {s1}, {s3}"));
                e.insf(format_args!("cvt.u64.u32 {dst}, {s0}"));
            }
            Special::Thread => {
                // block (64-bit) * (ntid.x * ntid.y * ntid.z) + linear tid.
                block_parts(e);
                e.insf(format_args!("mul.wide.u32 {dst}, {s2}, {s1}"));
                e.insf(format_args!("cvt.u64.u32 {t5}, {s3}"));
                e.insf(format_args!("add.s64 {dst}, {dst}, {t5}"));
                e.insf(format_args!("mov.u32 {s1}, %ntid.x"));
                e.insf(format_args!("mov.u32 {s2}, %ntid.y"));
                e.insf(format_args!("mul.lo.u32 {s1}, {s1}, {s2}"));
                e.insf(format_args!("mov.u32 {s2}, %ntid.z"));
                e.insf(format_args!("mul.lo.u32 {s1}, {s1}, {s2}"));
                e.insf(format_args!("cvt.u64.u32 {t5}, {s1}"));
                e.insf(format_args!("mul.lo.u64 {dst}, {dst}, {t5}"));
                linear_tid(e);
                e.insf(format_args!("cvt.u64.u32 {t5}, {s0}"));
                e.insf(format_args!("add.s64 {dst}, {dst}, {t5}"));
            }
            Special::ActiveMask => {
                e.insf(format_args!("activemask.b32 {s0}"));
                e.insf(format_args!("cvt.u64.u32 {dst}, {s0}"));
            }
            Special::Active => {
                e.insf(format_args!("activemask.b32 {s0}"));
                e.insf(format_args!("popc.b32 {s0}, {s0}"));
                e.insf(format_args!("cvt.u64.u32 {dst}, {s0}"));
            }
            _ => {
                return Err(Error::Unsupported {
                    target: crate::TARGET,
                    what: format!("sreg {sp:?} outside a probe body"),
                })
            }
        },
    }
    Ok(())
}

/// Sets the predicate `leader` to "this lane is the first (lowest) active lane of its
/// warp": `(activemask & -activemask) == %lanemask_eq`. No warp collective is used
/// (`activemask` only reads which lanes are active).
pub(crate) fn warp_leader(e: &mut Emitter, leader: &str) {
    let (s0, s1) = (reg("s", 0), reg("s", 1));
    e.insf(format_args!("activemask.b32 {s0}"));
    e.insf(format_args!("neg.s32 {s1}, {s0}"));
    e.insf(format_args!("and.b32 {s1}, {s0}, {s1}"));
    e.insf(format_args!("mov.u32 {s0}, %lanemask_eq"));
    e.insf(format_args!("setp.eq.u32 {leader}, {s0}, {s1}"));
}

#[cfg(test)]
mod tests {
    use crate::insn::facts;
    use crate::parse::parse_instruction;
    use warptrace_verifier::Flow;

    #[test]
    fn activemask_is_not_a_warp_collective_in_the_verifier_model() {
        let i = parse_instruction("activemask.b32 %__wt_s0;").expect("parses");
        let x = facts(&i, &|_| false);
        assert_eq!(x.flow, Flow::Next);
        assert_eq!(x.defs, ["%__wt_s0"]);
        assert!(x.mem.is_empty());
    }
}
