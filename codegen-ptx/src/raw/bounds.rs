//! Bounds by value: every memory access a raw-probe splice inserts is proved inside its
//! own part of the map buffer from the address computation in the spliced text itself.
//!
//! Invariant: an inserted load, store, atomic or reduction is accepted only if its
//! address, evaluated along the straight-line code of its snippet (what ptxas assembles,
//! read back from the spliced kernel), is one of
//!
//! - the map parameter (`ld.param` of [`MAP_PARAM`](crate::MAP_PARAM)), or
//! - `%__wt_base + c`, with `[c, c + width)` inside the buffer's fixed header (drop
//!   counters and array offset words, `MapLayout::total_bytes`), or
//! - `%__wt_row<k> + i * S + off` where `i` is array `k`'s record index register, the
//!   access is guarded by a predicate that implies `i < R` (a `setp.lt.u64` of that
//!   index against `R`, possibly and-ed with others), `R` is at most array `k`'s record
//!   count, `S` its record size and `0 <= off`, `off + width <= S`: so the access lies in
//!   `[row, row + R * S)`, the thread's (warp's) own row. `i < R <= 2^20` and
//!   `S <= 4104` keep `i * S` far from wrapping.
//!
//! `%__wt_base` and the rows must be written by the prologue (snippet 0) alone; that a
//! row is `base + offset word + row index * R * S` is the prologue's construction and the
//! runtime's sizing of each launch's records (`MapLayout::for_launch`). A label inside a
//! snippet, a kernel instruction, or the start of another snippet forgets every derived
//! value: a branch may reach it from anywhere. Anything else is a `MemorySafety`
//! violation naming the access: the raw reader's own expansions are the only code that
//! can pass, and a probe that branches around part of one cannot.

use super::expand::r;
use crate::parse::{parse_instruction, AddrBase, Operand};
use std::collections::HashMap;
use warptrace_ir::MapLayout;
use warptrace_verifier::{Item, KernelRule, KernelViolation, Origin};

/// A value derived from the map buffer's base.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Val {
    /// `row<k> + index<k> * stride`.
    Record { k: usize, stride: u64 },
}

/// What a predicate implies.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Implies {
    /// `(k, R)`: `index<k> < R`.
    bounds: Vec<(usize, u64)>,
}

#[derive(Debug, Default)]
struct State {
    vals: HashMap<String, Val>,
    preds: HashMap<String, Implies>,
}

/// The index of a numbered reserved register `%__wt_<class><k>`.
fn numbered(reg: &str, class: &str) -> Option<usize> {
    let n = reg.strip_prefix(&r(class))?;
    crate::parse::range_index(n).map(|k| k as usize)
}

fn imm(op: Option<&Operand>) -> Option<u64> {
    match op? {
        Operand::Imm(v) => crate::parse::parse_int(v).and_then(|v| u64::try_from(v).ok()),
        _ => None,
    }
}

fn reg(op: Option<&Operand>) -> Option<&str> {
    match op? {
        Operand::Reg(r) => Some(r.as_str()),
        _ => None,
    }
}

/// Checks every inserted memory access of `items` (a spliced kernel's model).
pub(super) fn check(items: &[Item], layout: &MapLayout, kernel: &str) -> Vec<KernelViolation> {
    let base = r("base");
    let mut out = Vec::new();
    let mut state = State::default();
    let mut current: Option<u32> = None;
    for item in items {
        let x = match item {
            Item::Label { .. } => {
                state = State::default();
                continue;
            }
            Item::Instr(x) => x,
        };
        let Origin::Inserted { snippet } = x.origin else {
            state = State::default();
            current = None;
            continue;
        };
        if current != Some(snippet) {
            state = State::default();
            current = Some(snippet);
        }
        let violation = |message: String| KernelViolation {
            rule: KernelRule::MemorySafety,
            kernel: kernel.to_string(),
            snippet: Some(snippet),
            line: x.line,
            text: x.text.clone(),
            message,
            corrupts: Some("the map buffer outside this access's own record".into()),
        };
        // The base and the rows are the prologue's alone.
        if snippet != 0 {
            if let Some(d) = x
                .defs
                .iter()
                .find(|d| **d == base || numbered(d, "row").is_some())
            {
                out.push(violation(format!(
                    "only the prologue may write `{d}`, the map buffer's base or a record row"
                )));
            }
        }
        let Some(i) = parse_instruction(&x.text) else {
            if !x.mem.is_empty() {
                out.push(violation("an unreadable memory access".into()));
            }
            continue;
        };
        if !x.mem.is_empty() {
            if let Err(why) = access(&i, &state, layout, &base) {
                out.push(violation(why));
            }
        }
        // The values the instruction defines, and every fact derived from them: a new
        // record index voids the bounds proved of the old one and the addresses computed
        // from it, a new row the addresses.
        for d in &x.defs {
            state.vals.remove(d.as_str());
            state.preds.remove(d.as_str());
            if let Some(k) = numbered(d, "c") {
                state
                    .vals
                    .retain(|_, v| !matches!(v, Val::Record { k: vk, .. } if *vk == k));
                for imp in state.preds.values_mut() {
                    imp.bounds.retain(|(bk, _)| *bk != k);
                }
            }
            if let Some(k) = numbered(d, "row") {
                state
                    .vals
                    .retain(|_, v| !matches!(v, Val::Record { k: vk, .. } if *vk == k));
            }
        }
        if i.guard.is_some() {
            continue;
        }
        let ops = &i.operands;
        match i.opcode.as_str() {
            "mad.lo.u64" => {
                let (d, idx, row) = (reg(ops.first()), reg(ops.get(1)), reg(ops.get(3)));
                let stride = imm(ops.get(2));
                if let (Some(d), Some(idx), Some(row), Some(stride)) = (d, idx, row, stride) {
                    let k = numbered(idx, "c");
                    if k.is_some() && k == numbered(row, "row") {
                        let k = k.unwrap_or_default();
                        state.vals.insert(d.to_string(), Val::Record { k, stride });
                    }
                }
            }
            "setp.lt.u64" => {
                let (p, idx, bound) = (reg(ops.first()), reg(ops.get(1)), imm(ops.get(2)));
                if let (Some(p), Some(k), Some(bound)) =
                    (p, idx.and_then(|i| numbered(i, "c")), bound)
                {
                    state.preds.insert(
                        p.to_string(),
                        Implies {
                            bounds: vec![(k, bound)],
                        },
                    );
                }
            }
            "and.pred" => {
                if let (Some(p), Some(a), Some(b)) =
                    (reg(ops.first()), reg(ops.get(1)), reg(ops.get(2)))
                {
                    let mut bounds = Vec::new();
                    for q in [a, b] {
                        if let Some(imp) = state.preds.get(q) {
                            bounds.extend(imp.bounds.iter().copied());
                        }
                    }
                    state.preds.insert(p.to_string(), Implies { bounds });
                }
            }
            _ => {}
        }
    }
    out
}

/// Whether the access of `i` is proved in bounds.
fn access(
    i: &crate::parse::Instruction,
    state: &State,
    layout: &MapLayout,
    base: &str,
) -> Result<(), String> {
    let a = i
        .address()
        .ok_or_else(|| format!("`{}` accesses memory without an address operand", i.opcode))?;
    let width = u64::from(crate::insn::access_bytes(&i.opcode).unwrap_or(u32::MAX));
    let offset = a.offset;
    match &a.base {
        AddrBase::Symbol(s) if s == crate::MAP_PARAM && i.root() == "ld" => Ok(()),
        AddrBase::Reg(b) if b == base => {
            let end = u64::try_from(offset)
                .ok()
                .and_then(|o| o.checked_add(width));
            match end {
                Some(end) if end <= layout.total_bytes => Ok(()),
                _ => Err(format!(
                    "`[{base}+{offset}]` ({width} bytes) is not inside the map buffer's \
                     {}-byte header",
                    layout.total_bytes
                )),
            }
        }
        AddrBase::Reg(t) => {
            let Some(&Val::Record { k, stride }) = state.vals.get(t.as_str()) else {
                return Err(format!(
                    "the address `{t}` is not computed, in this straight-line code, as a \
                     record of the probe's own array"
                ));
            };
            let region = layout
                .regions
                .get(k)
                .ok_or_else(|| format!("no array {k} in the layout"))?;
            let records = u64::from(region.capacity);
            let guard = i.guard.as_ref().filter(|g| !g.negated);
            let bound = guard
                .and_then(|g| state.preds.get(g.reg.as_str()))
                .and_then(|imp| imp.bounds.iter().find(|(bk, _)| *bk == k))
                .map(|&(_, r)| r);
            let Some(bound) = bound.filter(|&b| b <= records) else {
                return Err(format!(
                    "the access is not guarded by a bound of the record index below the \
                     array's {records} records"
                ));
            };
            let slot = region.slot_bytes();
            let in_record = u64::try_from(offset)
                .ok()
                .and_then(|o| o.checked_add(width))
                .is_some_and(|end| end <= slot);
            if stride != slot || !in_record {
                return Err(format!(
                    "bytes [{offset}, {offset}+{width}) with stride {stride} are not inside \
                     one {slot}-byte record (index < {bound})"
                ));
            }
            Ok(())
        }
        _ => Err("the address is not derived from the map buffer".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PtxKernelModel;
    use warptrace_ir::{KeyType, MapDecl, MapKind, Per, ValueKind};
    use warptrace_verifier::KernelModel;

    /// A spliced kernel whose statements after `// inserted` are snippet 1's, with one
    /// per-thread array of 4 records of 16 bytes (+ its 8-byte seq word).
    fn violations(snippet: &str) -> Vec<KernelViolation> {
        let layout = MapLayout::new(&[MapDecl {
            name: "a".into(),
            kind: MapKind::Array {
                per: Per::Thread,
                slots: 4,
            },
            keys: Vec::new(),
            value: ValueKind::Record(vec![KeyType::Int { signed: false }; 2]),
        }]);
        let slot = layout.regions[0].slot_bytes();
        let text = format!(
            ".visible .entry k(.param .u64 p)\n{{\n.reg .b64 %rd<2>;\nmov.u64 %rd1, 0;\n\
             // inserted\n{}\nret;\n}}\n",
            snippet.replace("SLOT", &slot.to_string())
        );
        let m = crate::parse(&text).expect("parses");
        let f = m.kernel("k").expect("kernel");
        let at = text.find("// inserted").expect("marker");
        let end = text.rfind("ret;").expect("ret");
        let model = PtxKernelModel::build(m.source(), f, &|o| {
            if (at..end).contains(&o) {
                Origin::Inserted { snippet: 1 }
            } else {
                Origin::Kernel
            }
        });
        check(&model.items(), &layout, "k")
    }

    #[test]
    fn a_bounded_record_store_is_proved_and_every_broken_step_is_not() {
        let ok = "setp.lt.u64 %__wt_p2, %__wt_c0, 4;\n\
                  mad.lo.u64 %__wt_t4, %__wt_c0, SLOT, %__wt_row0;\n\
                  @%__wt_p2 st.global.b64 [%__wt_t4+8], %__wt_t5;";
        assert_eq!(violations(ok), []);
        for (what, bad) in [
            (
                "index changed after its bound",
                ok.replace("mad.lo", "mov.b64 %__wt_c0, 99;\nmad.lo"),
            ),
            ("past the record", ok.replace("+8]", "+SLOT]")),
            ("unguarded", ok.replace("@%__wt_p2 st", "st")),
            ("bound above the records", ok.replace(", 4;", ", 5;")),
            ("stride not the record's", ok.replace("SLOT", "8")),
            (
                "a label between",
                ok.replace("@%__wt_p2 st", "L:\n@%__wt_p2 st"),
            ),
            (
                "another array's row",
                ok.replace("%__wt_row0", "%__wt_row1"),
            ),
        ] {
            let v = violations(&bad);
            assert_eq!(v.len(), 1, "{what}: {v:?}");
            assert_eq!(v[0].rule, KernelRule::MemorySafety, "{what}");
        }
        // The header: the drop counter, inside; past the header, outside.
        assert_eq!(violations("red.global.add.u64 [%__wt_base+0], 1;"), []);
        assert_eq!(
            violations("red.global.add.u64 [%__wt_base+100000], 1;").len(),
            1
        );
        // Only the prologue may write the base.
        assert!(!violations("mov.b64 %__wt_base, %rd1;").is_empty());
    }
}
