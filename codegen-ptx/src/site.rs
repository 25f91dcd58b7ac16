//! What a snippet can know about the instruction it is attached to, as immediates or
//! kernel registers: the source position (`.file` / `.loc`), the instruction index (`pc`),
//! the opcode id, and where `value` lives.
//!
//! Conventions (documented in `docs/ir.md`):
//!
//! - `pc`: index of the instruction among the kernel body's instructions, from 0 (labels,
//!   directives and scope braces not counted), in the original kernel.
//! - `opcode`: `kernel_id` (FNV-1a 64) of the full opcode text with its modifiers, without
//!   the guard (`ld.global.v4.b32`).
//! - `file` / `line`: from the nearest `.loc FILE LINE COL` preceding the instruction in
//!   the body; `file` is `kernel_id` of the path of the module's `.file FILE "path"`
//!   directive, `line` the `.loc` line; both 0 without a preceding `.loc` (or without a
//!   `.file` for its index).
//! - `value`: the first element of the value operand (the loaded destination after a load
//!   or atomic, the stored source before/after a store, the new value of an atomic before
//!   it), its element's bits (the opcode's type) zero-extended to 64 bits; floating-point
//!   values are their bit pattern. An asynchronous copy (`cp.async`) has no `value`.
//! - `bytes`: the access width of the opcode; an asynchronous copy's size operand (an
//!   immediate, or a bulk copy's 32-bit register); unknown for a tensor copy.

use crate::insn::type_bytes;
use crate::parse::{Body, Instruction, Operand, StmtKind};
use crate::Error;
use std::collections::HashMap;
use warptrace_ir::{kernel_id, MemOp};

/// The source position of an instruction: the `.file` index, its path (if declared) and
/// the line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Loc {
    pub path: Option<String>,
    pub line: u32,
}

impl Loc {
    /// The `file` builtin: `kernel_id` of the path, 0 if unknown.
    pub fn file_id(&self) -> u64 {
        self.path.as_deref().map_or(0, kernel_id)
    }

    /// The path and line, as attach matching reads a position (`None` without a
    /// declared path).
    pub fn position(&self) -> Option<(&str, u32)> {
        Some((self.path.as_deref()?, self.line))
    }
}

/// `(file, line)` of a `.loc` directive's text.
fn parse_loc(text: &str) -> Option<(u32, u32)> {
    let mut t = text.split(|c: char| c.is_whitespace() || c == ',');
    if t.next()? != ".loc" {
        return None;
    }
    let mut nums = t.filter(|s| !s.is_empty());
    let file = nums.next()?.parse().ok()?;
    let line = nums.next()?.parse().ok()?;
    Some((file, line))
}

/// Per statement of `body`: the nearest preceding `.loc` (the statement's own if it is
/// one), and per statement its instruction index (`pc`) if it is an instruction.
pub(crate) fn positions(
    body: &Body,
    files: &HashMap<u32, String>,
) -> (Vec<Option<Loc>>, Vec<Option<u32>>) {
    let mut locs = Vec::with_capacity(body.stmts.len());
    let mut pcs = Vec::with_capacity(body.stmts.len());
    let mut cur: Option<Loc> = None;
    let mut pc = 0u32;
    for s in &body.stmts {
        match &s.kind {
            StmtKind::Directive(None) => {
                if let Some((file, line)) = parse_loc(&s.text) {
                    cur = Some(Loc {
                        path: files.get(&file).cloned(),
                        line,
                    });
                }
                pcs.push(None);
            }
            StmtKind::Instr(_) => {
                pcs.push(Some(pc));
                pc += 1;
            }
            _ => pcs.push(None),
        }
        locs.push(cur.clone());
    }
    (locs, pcs)
}

/// Where the `value` of a site is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ValueSrc {
    /// A kernel register of `reg_bits` bits whose low `elem_bits` are the value.
    Reg {
        name: String,
        reg_bits: u32,
        elem_bits: u32,
    },
    /// An immediate (already masked to the element's width).
    Imm(u64),
    /// Not available here (why, in IR-text terms).
    Unavailable(String),
}

/// The first scalar of an operand (a vector's first element).
fn first_scalar(op: &Operand) -> Option<&Operand> {
    match op {
        Operand::Vector(v) => v.first().and_then(first_scalar),
        o => Some(o),
    }
}

/// Bits of the element type of a memory opcode (its last type modifier).
fn elem_bits(opcode: &str) -> Option<u32> {
    opcode
        .split('.')
        .skip(1)
        .filter_map(type_bytes)
        .last()
        .map(|b| 8 * b)
}

/// Where `value` is at a memory site of kind `op`, `after` the instruction or before it.
pub(crate) fn value_src(
    i: &Instruction,
    op: MemOp,
    after: bool,
    reg_bits: &dyn Fn(&str) -> Option<u32>,
) -> ValueSrc {
    if op == MemOp::Async {
        // The copied data never passes through a register.
        return ValueSrc::Unavailable(format!(
            "site value of `{}` (an asynchronous copy moves no register value)",
            i.opcode
        ));
    }
    let Some(bits) = elem_bits(&i.opcode) else {
        return ValueSrc::Unavailable(format!("site value of `{}` (no element type)", i.opcode));
    };
    let addr_at = i
        .operands
        .iter()
        .position(|o| matches!(o, Operand::Addr(_)));
    let loaded = matches!(op, MemOp::Load | MemOp::Atomic) && after;
    let operand = if loaded {
        if i.root() == "red" {
            return ValueSrc::Unavailable("site value after `red` (it loads nothing)".into());
        }
        // The destination precedes the address.
        i.operands.first().filter(|_| addr_at != Some(0))
    } else {
        // The stored operand follows the address; `atom.cas`'s new value is the second.
        let skip = usize::from(i.modifiers().any(|m| m == "cas"));
        addr_at.and_then(|a| i.operands.get(a + 1 + skip))
    };
    let what = || format!("site value of `{}`", i.opcode);
    match operand.and_then(first_scalar) {
        Some(Operand::Reg(r)) | Some(Operand::Symbol(r)) => match reg_bits(r) {
            Some(rb @ (16 | 32 | 64)) => ValueSrc::Reg {
                name: r.to_string(),
                reg_bits: rb,
                elem_bits: bits.min(rb),
            },
            _ => ValueSrc::Unavailable(format!("{} (register `{r}` is not 16/32/64-bit)", what())),
        },
        Some(Operand::Imm(text)) => match crate::parse::parse_int(text) {
            Some(v) => ValueSrc::Imm(mask(v as u64, bits)),
            None => ValueSrc::Unavailable(format!("{} (immediate `{text}`)", what())),
        },
        _ => ValueSrc::Unavailable(what()),
    }
}

/// Where `bytes` is at a `mem:` site whose size is not known at compile time
/// ([`crate::insn::site_bytes`] is `None`): the 32-bit size register of a bulk copy, or
/// why it is unknown (a tensor copy moves a box whose size is in the tensor map, which a
/// probe may not read). `None` for every other site.
pub(crate) fn bytes_src(
    i: &Instruction,
    reg_bits: &dyn Fn(&str) -> Option<u32>,
) -> Option<ValueSrc> {
    use crate::attach::{async_copy, CopyKind};
    let copy = async_copy(i)?;
    if copy.kind == CopyKind::Tensor {
        return Some(ValueSrc::Unavailable(format!(
            "`bytes` of `{}` (a tensor copy: the box it moves is sized by the tensor map, \
             which probes cannot read)",
            i.opcode
        )));
    }
    match copy.size.and_then(|k| i.operands.get(k)) {
        Some(Operand::Reg(r)) if copy.kind == CopyKind::Bulk => Some(match reg_bits(r) {
            Some(32) => ValueSrc::Reg {
                name: r.to_string(),
                reg_bits: 32,
                elem_bits: 32,
            },
            _ => ValueSrc::Unavailable(format!(
                "`bytes` of `{}` (size register `{r}` is not a 32-bit register)",
                i.opcode
            )),
        }),
        _ => None,
    }
}

fn mask(v: u64, bits: u32) -> u64 {
    if bits >= 64 {
        v
    } else {
        v & ((1u64 << bits) - 1)
    }
}

/// Emits `dst = value` (a `.b64` probe register) from `src`, with the `.b32` temporary
/// `s` and the `.b16` temporary `h`.
pub(crate) fn emit_value(
    e: &mut crate::lower::Emitter,
    dst: &str,
    src: &ValueSrc,
    s: &str,
    h: &str,
) -> Result<(), Error> {
    let (name, reg_bits, elem_bits) = match src {
        ValueSrc::Imm(v) => {
            e.insf(format_args!("mov.b64 {dst}, 0x{v:016X}"));
            return Ok(());
        }
        ValueSrc::Unavailable(what) => {
            return Err(Error::Unsupported {
                target: crate::TARGET,
                what: what.clone(),
            })
        }
        ValueSrc::Reg {
            name,
            reg_bits,
            elem_bits,
        } => (name, *reg_bits, *elem_bits),
    };
    match reg_bits {
        64 => e.insf(format_args!("mov.b64 {dst}, {name}")),
        32 => {
            e.insf(format_args!("mov.b32 {s}, {name}"));
            e.insf(format_args!("cvt.u64.u32 {dst}, {s}"));
        }
        _ => {
            e.insf(format_args!("mov.b16 {h}, {name}"));
            e.insf(format_args!("cvt.u64.u16 {dst}, {h}"));
        }
    }
    if elem_bits < reg_bits {
        e.insf(format_args!(
            "and.b64 {dst}, {dst}, 0x{:X}",
            mask(u64::MAX, elem_bits)
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse_instruction;

    fn v(text: &str, op: MemOp, after: bool) -> ValueSrc {
        let bits = |r: &str| match r.as_bytes().get(2) {
            Some(b'd') => Some(64),
            Some(b's') => Some(16),
            _ => Some(32),
        };
        value_src(&parse_instruction(text).expect("parses"), op, after, &bits)
    }

    fn reg(name: &str, reg_bits: u32, elem_bits: u32) -> ValueSrc {
        ValueSrc::Reg {
            name: name.into(),
            reg_bits,
            elem_bits,
        }
    }

    #[test]
    fn value_operands() {
        use MemOp::*;
        assert_eq!(
            v("ld.global.v4.b32 {%r1,%r2,%r3,%r4}, [%rd1];", Load, true),
            reg("%r1", 32, 32)
        );
        assert_eq!(
            v("ld.global.u8 %rs1, [%rd1];", Load, true),
            reg("%rs1", 16, 8)
        );
        assert_eq!(
            v("st.global.f32 [%rd1], %f2;", Store, false),
            reg("%f2", 32, 32)
        );
        assert_eq!(
            v("st.global.b32 [%rd1], -1;", Store, false),
            ValueSrc::Imm(0xffff_ffff)
        );
        assert_eq!(
            v(
                "atom.global.cas.b64 %rd1, [%rd2], %rd3, %rd4;",
                Atomic,
                false
            ),
            reg("%rd4", 64, 64)
        );
        assert_eq!(
            v("atom.global.add.u32 %r1, [%rd2], %r3;", Atomic, true),
            reg("%r1", 32, 32)
        );
        assert!(matches!(
            v("red.global.add.u32 [%rd2], %r3;", Atomic, true),
            ValueSrc::Unavailable(_)
        ));
        for after in [false, true] {
            assert!(matches!(
                v("cp.async.cg.shared.global [%r1], [%rd2], 16;", Async, after),
                ValueSrc::Unavailable(_)
            ));
        }
    }

    #[test]
    fn bytes_of_bulk_and_tensor_copies() {
        let bits = |r: &str| Some(if r.starts_with("%rd") { 64 } else { 32 });
        let b = |t: &str| bytes_src(&parse_instruction(t).expect("parses"), &bits);
        assert_eq!(
            b("cp.async.bulk.global.shared::cta.bulk_group [%rd16], [%r28], %r31;"),
            Some(reg("%r31", 32, 32))
        );
        assert!(matches!(
            b("cp.async.bulk.global.shared::cta.bulk_group [%rd16], [%r28], %rd31;"),
            Some(ValueSrc::Unavailable(_))
        ));
        assert!(matches!(
            b("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd10, {%r1, %r2}], [%r27];"),
            Some(ValueSrc::Unavailable(why)) if why.contains("tensor map")
        ));
        // Immediate sizes are compile-time widths (`site_bytes`); other sites have none.
        assert_eq!(
            b("cp.async.bulk.global.shared::cta.bulk_group [%rd16], [%r28], 256;"),
            None
        );
        assert_eq!(b("cp.async.cg.shared.global [%r1], [%rd2], 16;"), None);
        assert_eq!(b("ld.global.b32 %r1, [%rd2];"), None);
    }

    #[test]
    fn files_and_locs() {
        let m = crate::parse("\t.file\t1 \"/a/b.cu\"\n.file 2 \"c.py\", 1, 2\n").expect("parses");
        let f = m.files();
        assert_eq!(f.get(&1).map(String::as_str), Some("/a/b.cu"));
        assert_eq!(f.get(&2).map(String::as_str), Some("c.py"));
        assert_eq!(parse_loc(".loc 1 12 5"), Some((1, 12)));
        assert_eq!(
            parse_loc(".loc 2 7 0, function_name $L__info_string0, inlined_at 1 3 4"),
            Some((2, 7))
        );
        assert_eq!(parse_loc(".local .b8 x[4]"), None);
    }
}
