//! Lowering: [`TProgram`] → [`warptrace_ir::Program`].
//!
//! Every temporary gets a fresh virtual register, each scratch variable one register of
//! its own; constants become immediates. A block's body is lowered once and copied to
//! one probe (or host block) per attach point. The body ends with `exit`; a predicate
//! jumps there when it is zero. `if`/`else` and `?:` become forward jumps, `unroll(N)`
//! repeats its body N times.

use crate::ast::Span;
use crate::diag::Error;
use crate::hash::FxHashMap;
use crate::names::{Builtin, Target};
use crate::typed::{HostOp, TAgg, TBlock, TExpr, TKind, TProgram, TStmt};
use warptrace_ir::{
    Aggregation, HostBlock, Insn, MapId, Operand, PersistId, Probe, Program, Reg, Width,
};

/// The most instructions a probe body may have before the verifier's (smaller) budget
/// applies; bounds the work of nested `unroll`s.
pub(crate) const MAX_INSNS: usize = 1 << 20;

/// Lowers a checked program.
pub(crate) fn lower(program: TProgram) -> Result<Program, Vec<Error>> {
    let mut probes = Vec::new();
    let mut host = Vec::new();
    for block in &program.blocks {
        let (mut insns, mut spans) = Body::lower(block, &program.cursors).map_err(|e| vec![e])?;
        let last = block.targets.len().saturating_sub(1);
        for (i, (target, _)) in block.targets.iter().enumerate() {
            // Each target gets the body; the last takes it rather than a copy.
            let (insns, spans) = if i == last {
                (std::mem::take(&mut insns), std::mem::take(&mut spans))
            } else {
                (insns.clone(), spans.clone())
            };
            match target {
                Target::Device(attach) => probes.push(Probe {
                    attach: attach.clone(),
                    insns,
                    spans,
                }),
                Target::Host(event) => host.push(HostBlock {
                    event: *event,
                    insns,
                    spans,
                }),
            }
        }
    }
    Ok(Program {
        maps: program.maps,
        probes,
        persistent: program.persistent,
        formats: program.formats,
        strings: program.strings,
        host,
        config: program.config,
    })
}

/// The instructions of one body being built.
struct Body<'a> {
    insns: Vec<Insn>,
    spans: Vec<Option<warptrace_ir::Span>>,
    next_reg: u16,
    /// The register of each scratch variable.
    vars: FxHashMap<u32, Reg>,
    cursors: &'a FxHashMap<MapId, PersistId>,
}

type Lowered = (Vec<Insn>, Vec<Option<warptrace_ir::Span>>);

impl Body<'_> {
    fn lower(block: &TBlock, cursors: &FxHashMap<MapId, PersistId>) -> Result<Lowered, Error> {
        // Room for a typical body, so that pushing rarely reallocates.
        let mut body = Body {
            insns: Vec::with_capacity(32),
            spans: Vec::with_capacity(32),
            next_reg: 0,
            vars: FxHashMap::default(),
            cursors,
        };
        // Where the predicate's branch is, to patch its target once `exit`'s index is known.
        let mut skip = None;
        if let Some(p) = &block.predicate {
            skip = body.branch_if_zero(p)?;
        }
        body.stmts(&block.body)?;
        let exit = body.here();
        body.push(Insn::Exit, block.end)?;
        if let Some(at) = skip {
            body.patch(at, exit);
        }
        Ok((body.insns, body.spans))
    }

    fn stmts(&mut self, stmts: &[TStmt]) -> Result<(), Error> {
        stmts.iter().try_for_each(|s| self.stmt(s))
    }

    fn stmt(&mut self, stmt: &TStmt) -> Result<(), Error> {
        match stmt {
            TStmt::SetScratch { var, value, span } => {
                let src = self.expr(value)?;
                let dst = match self.vars.get(var) {
                    Some(r) => *r,
                    None => {
                        let r = self.fresh(*span)?;
                        self.vars.insert(*var, r);
                        r
                    }
                };
                self.push(Insn::Mov { dst, src }, *span)
            }
            TStmt::SetPersist { slot, value, span } => {
                let src = self.expr(value)?;
                self.push(Insn::StorePersist { slot: *slot, src }, *span)
            }
            TStmt::Update {
                map,
                keys,
                agg,
                span,
            } => {
                let keys = self.exprs(keys)?;
                let agg = match agg {
                    TAgg::Count => Aggregation::Count,
                    TAgg::Sum(x) => Aggregation::Sum(self.expr(x)?),
                    TAgg::Min(x) => Aggregation::Min(self.expr(x)?),
                    TAgg::Max(x) => Aggregation::Max(self.expr(x)?),
                    TAgg::Avg(x) => Aggregation::Avg(self.expr(x)?),
                    TAgg::Stats(x) => Aggregation::Stats(self.expr(x)?),
                    TAgg::Hist(x) => Aggregation::Hist(self.expr(x)?),
                    TAgg::Lhist(x) => Aggregation::Lhist(self.expr(x)?),
                    TAgg::Assign(x) => Aggregation::Assign(self.expr(x)?),
                };
                let insn = Insn::MapUpdate {
                    map: *map,
                    keys,
                    agg,
                };
                self.push(insn, *span)
            }
            TStmt::Record {
                map,
                array,
                fields,
                span,
            } => {
                let fields = self.exprs(fields)?;
                let insn = match self.cursors.get(map) {
                    Some(cursor) if *array => Insn::ArraySave {
                        map: *map,
                        cursor: *cursor,
                        fields,
                    },
                    _ => Insn::RingAppend { map: *map, fields },
                };
                self.push(insn, *span)
            }
            TStmt::Printf { format, args, span } => {
                let args = self.exprs(args)?;
                let insn = Insn::Printf {
                    format: *format,
                    args,
                };
                self.push(insn, *span)
            }
            TStmt::Host(op, span) => {
                let insn = match op {
                    HostOp::Print(map, top, div) => Insn::Print {
                        map: *map,
                        top: *top,
                        div: *div,
                    },
                    HostOp::Clear(map) => Insn::Clear { map: *map },
                    HostOp::Zero(map) => Insn::Zero { map: *map },
                    HostOp::Delete(map, keys) => Insn::Delete {
                        map: *map,
                        keys: self.exprs(keys)?,
                    },
                    HostOp::Exit => Insn::StopTracing,
                };
                self.push(insn, *span)
            }
            TStmt::If {
                cond,
                then,
                els,
                span,
            } => {
                let skip = self.branch_if_zero(cond)?;
                self.stmts(then)?;
                if els.is_empty() {
                    let end = self.here();
                    if let Some(at) = skip {
                        self.patch(at, end);
                    }
                    return Ok(());
                }
                let over = self.here();
                self.push(Insn::Jump { target: 0 }, *span)?;
                let else_start = self.here();
                if let Some(at) = skip {
                    self.patch(at, else_start);
                }
                self.stmts(els)?;
                let end = self.here();
                self.patch(over as usize, end);
                Ok(())
            }
            TStmt::Unroll { count, body } => {
                for _ in 0..*count {
                    self.stmts(body)?;
                }
                Ok(())
            }
            TStmt::Range {
                var,
                values,
                body,
                span,
            } => {
                for value in values {
                    self.stmt(&TStmt::SetScratch {
                        var: *var,
                        value: value.clone(),
                        span: *span,
                    })?;
                    self.stmts(body)?;
                }
                Ok(())
            }
        }
    }

    /// Jumps (target patched later) when `cond` is zero; `None` when no jump is needed
    /// (a non-zero constant).
    fn branch_if_zero(&mut self, cond: &TExpr) -> Result<Option<usize>, Error> {
        let at = self.insns.len();
        match self.expr(cond)? {
            Operand::Imm(0) => self.push(Insn::Jump { target: 0 }, cond.span)?,
            Operand::Imm(_) => return Ok(None),
            Operand::Reg(r) => {
                let branch = Insn::Branch {
                    cond: r,
                    if_zero: true,
                    target: 0,
                };
                let _ = at;
                self.push(branch, cond.span)?;
            }
        }
        Ok(Some(self.insns.len() - 1))
    }

    /// The index of the next instruction.
    fn here(&self) -> u32 {
        // A body below `MAX_INSNS` instructions fits.
        u32::try_from(self.insns.len()).unwrap_or(u32::MAX)
    }

    /// Sets the target of the jump at `at`.
    fn patch(&mut self, at: usize, target: u32) {
        if let Some(Insn::Branch { target: t, .. } | Insn::Jump { target: t }) =
            self.insns.get_mut(at)
        {
            *t = target;
        }
    }

    fn push(&mut self, insn: Insn, span: Span) -> Result<(), Error> {
        if self.insns.len() >= MAX_INSNS {
            return Err(Error::TooManyInsns { span });
        }
        self.insns.push(insn);
        self.spans.push(Some(span.to_ir()));
        Ok(())
    }

    fn fresh(&mut self, span: Span) -> Result<Reg, Error> {
        let reg = Reg(self.next_reg);
        self.next_reg = self
            .next_reg
            .checked_add(1)
            .ok_or(Error::TooManyRegisters { span })?;
        Ok(reg)
    }

    fn exprs(&mut self, es: &[TExpr]) -> Result<Vec<Operand>, Error> {
        es.iter().map(|e| self.expr(e)).collect()
    }

    /// Lowers an expression to the operand holding its value.
    fn expr(&mut self, e: &TExpr) -> Result<Operand, Error> {
        let (dst, insn) = match &e.kind {
            TKind::Const(v) => return Ok(Operand::Imm(*v)),
            TKind::Scratch(var) => {
                // The checker guarantees the variable is set on every path here.
                let r = self.vars.get(var).copied().unwrap_or(Reg(0));
                return Ok(Operand::Reg(r));
            }
            TKind::Read(builtin) => {
                let dst = self.fresh(e.span)?;
                let insn = match *builtin {
                    Builtin::Special(special) => Insn::ReadSpecial { dst, special },
                    Builtin::Site(value) => Insn::ReadSite { dst, value },
                };
                (dst, insn)
            }
            TKind::Persist(slot) => {
                let dst = self.fresh(e.span)?;
                (dst, Insn::LoadPersist { dst, slot: *slot })
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
            TKind::Ext(from, signed, x) => {
                let src = self.expr(x)?;
                let dst = self.fresh(e.span)?;
                let insn = Insn::Ext {
                    dst,
                    src,
                    from: *from,
                    signed: *signed,
                };
                (dst, insn)
            }
            TKind::Cond(c, a, b) => {
                let dst = self.fresh(e.span)?;
                let skip = self.branch_if_zero(c)?;
                let src = self.expr(a)?;
                self.push(Insn::Mov { dst, src }, a.span)?;
                let over = self.here();
                self.push(Insn::Jump { target: 0 }, e.span)?;
                if let Some(at) = skip {
                    let here = self.here();
                    self.patch(at, here);
                }
                let src = self.expr(b)?;
                self.push(Insn::Mov { dst, src }, b.span)?;
                let end = self.here();
                self.patch(over as usize, end);
                return Ok(Operand::Reg(dst));
            }
        };
        self.push(insn, e.span)?;
        Ok(Operand::Reg(dst))
    }
}
