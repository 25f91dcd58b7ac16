//! Lowering: [`TProgram`] → [`warptrace_ir::Program`].
//!
//! Every temporary gets a fresh virtual register; constants become immediates. A block's
//! body is lowered once and copied to one probe per attach point. The body ends with
//! `exit`; a predicate jumps there when it is zero.

use crate::ast::Span;
use crate::diag::Error;
use crate::names::Builtin;
use crate::typed::{TAgg, TBlock, TExpr, TKind, TProgram};
use warptrace_ir::{Aggregation, Insn, Operand, Probe, Program, Reg, Width};

/// Lowers a checked program.
pub(crate) fn lower(program: TProgram) -> Result<Program, Vec<Error>> {
    let mut probes = Vec::new();
    for block in &program.blocks {
        let (insns, spans) = Body::lower(block).map_err(|e| vec![e])?;
        for (attach, _) in &block.attaches {
            probes.push(Probe {
                attach: attach.clone(),
                insns: insns.clone(),
                spans: spans.clone(),
            });
        }
    }
    Ok(Program {
        maps: program.maps,
        probes,
        ..Program::default()
    })
}

/// The instructions of one body being built.
#[derive(Default)]
struct Body {
    insns: Vec<Insn>,
    spans: Vec<Option<warptrace_ir::Span>>,
    next_reg: u16,
}

type Lowered = (Vec<Insn>, Vec<Option<warptrace_ir::Span>>);

impl Body {
    fn lower(block: &TBlock) -> Result<Lowered, Error> {
        let mut body = Body::default();
        // Where the predicate's branch is, to patch its target once `exit`'s index is known.
        let mut skip = None;
        if let Some(p) = &block.predicate {
            match body.expr(p)? {
                Operand::Imm(0) => {
                    skip = Some(body.insns.len());
                    body.push(Insn::Jump { target: 0 }, p.span);
                }
                Operand::Imm(_) => {}
                Operand::Reg(cond) => {
                    skip = Some(body.insns.len());
                    let branch = Insn::Branch {
                        cond,
                        if_zero: true,
                        target: 0,
                    };
                    body.push(branch, p.span);
                }
            }
        }
        for update in &block.updates {
            let keys = update
                .keys
                .iter()
                .map(|k| body.expr(k))
                .collect::<Result<Vec<_>, _>>()?;
            let agg = match &update.agg {
                TAgg::Count => Aggregation::Count,
                TAgg::Sum(x) => Aggregation::Sum(body.expr(x)?),
            };
            let insn = Insn::MapUpdate {
                map: update.map,
                keys,
                agg,
            };
            body.push(insn, update.span);
        }
        // A source below 4 GiB cannot produce 2^32 instructions.
        let exit = u32::try_from(body.insns.len()).unwrap_or(u32::MAX);
        body.push(Insn::Exit, block.end);
        if let Some(Insn::Branch { target, .. } | Insn::Jump { target }) =
            skip.and_then(|i| body.insns.get_mut(i))
        {
            *target = exit;
        }
        Ok((body.insns, body.spans))
    }

    fn push(&mut self, insn: Insn, span: Span) {
        self.insns.push(insn);
        self.spans.push(Some(span.to_ir()));
    }

    fn fresh(&mut self, span: Span) -> Result<Reg, Error> {
        let reg = Reg(self.next_reg);
        self.next_reg = self
            .next_reg
            .checked_add(1)
            .ok_or(Error::TooManyRegisters { span })?;
        Ok(reg)
    }

    /// Lowers an expression to the operand holding its value.
    fn expr(&mut self, e: &TExpr) -> Result<Operand, Error> {
        let (dst, insn) = match &e.kind {
            TKind::Const(v) => return Ok(Operand::Imm(*v)),
            TKind::Read(builtin) => {
                let dst = self.fresh(e.span)?;
                let insn = match *builtin {
                    Builtin::Special(special) => Insn::ReadSpecial { dst, special },
                    Builtin::Site(value) => Insn::ReadSite { dst, value },
                };
                (dst, insn)
            }
            TKind::Bin(op, a, b) => {
                let a = self.expr(a)?;
                let b = self.expr(b)?;
                let dst = self.fresh(e.span)?;
                let insn = Insn::Bin {
                    op: *op,
                    width: Width::W64,
                    dst,
                    a,
                    b,
                };
                (dst, insn)
            }
        };
        self.push(insn, e.span);
        Ok(Operand::Reg(dst))
    }
}
