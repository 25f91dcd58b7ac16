//! One instruction at a time: [`step`] executes an instruction against an [`Env`] (the
//! simulated device or the host) and returns where control goes, or a [`Fault`].

use super::{Fault, TrapKind};
use crate::{
    BinOp, ExtFrom, FormatId, Insn, MapId, Operand, PersistId, Reg, SiteValue, Special, Update,
    Width,
};

/// Where control goes after an instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Flow {
    /// The next instruction.
    Next,
    /// Instruction `t` (a forward jump).
    Jump(u32),
    /// The firing ends.
    Exit,
}

/// The host-only operations, as an [`Env`] receives them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum HostOp {
    /// The map, `top`, `div`.
    Print(MapId, u64, u64),
    Clear(MapId),
    Zero(MapId),
    Delete(MapId, Vec<u64>),
    StopTracing,
}

/// What an instruction can reach outside its registers. The device and the host
/// implement it; what one of them cannot do is a trap there.
pub(crate) trait Env {
    fn special(&mut self, s: Special, insn: u32) -> Result<u64, Fault>;
    fn site(&mut self, v: SiteValue) -> Result<u64, Fault>;
    fn load_persist(&mut self, p: PersistId) -> Result<u64, Fault>;
    fn store_persist(&mut self, p: PersistId, v: u64) -> Result<(), Fault>;
    fn map_update(&mut self, map: MapId, keys: &[u64], update: Update) -> Result<(), Fault>;
    fn array_save(&mut self, map: MapId, cursor: PersistId, fields: &[u64]) -> Result<(), Fault>;
    fn ring_append(&mut self, map: MapId, fields: &[u64]) -> Result<(), Fault>;
    fn printf(&mut self, format: FormatId, args: &[u64]) -> Result<(), Fault>;
    fn host(&mut self, op: HostOp) -> Result<(), Fault>;
}

/// The registers of one firing; a register never written reads as a trap.
#[derive(Debug, Clone, Default)]
pub(crate) struct Registers(Vec<Option<u64>>);

impl Registers {
    fn get(&self, r: Reg) -> Result<u64, Fault> {
        self.0
            .get(usize::from(r.0))
            .copied()
            .flatten()
            .ok_or(Fault::Trap(TrapKind::UndefinedRegister(r)))
    }

    fn set(&mut self, r: Reg, v: u64) {
        let i = usize::from(r.0);
        if self.0.len() <= i {
            self.0.resize(i + 1, None);
        }
        self.0[i] = Some(v);
    }

    fn operand(&self, o: Operand) -> Result<u64, Fault> {
        match o {
            Operand::Reg(r) => self.get(r),
            Operand::Imm(v) => Ok(v as u64),
        }
    }

    fn operands(&self, ops: &[Operand]) -> Result<Vec<u64>, Fault> {
        ops.iter().map(|&o| self.operand(o)).collect()
    }
}

/// `op.width a, b` as `docs/ir.md` defines it; `None` for a zero divisor.
pub fn alu(op: BinOp, width: Width, a: u64, b: u64) -> Option<u64> {
    let bits = match width {
        Width::W32 => 32,
        Width::W64 => 64,
    };
    let mask = if bits == 32 { 0xffff_ffff } else { u64::MAX };
    let (a, b) = (a & mask, b & mask);
    // Signed views at the width.
    let sa = if bits == 32 {
        i64::from(a as u32 as i32)
    } else {
        a as i64
    };
    let sb = if bits == 32 {
        i64::from(b as u32 as i32)
    } else {
        b as i64
    };
    let shift = (b % bits) as u32;
    let v = match op {
        BinOp::Add => a.wrapping_add(b),
        BinOp::Sub => a.wrapping_sub(b),
        BinOp::Mul => a.wrapping_mul(b),
        BinOp::DivU => a.checked_div(b)?,
        BinOp::RemU => a.checked_rem(b)?,
        BinOp::DivS | BinOp::RemS if b == 0 => return None,
        BinOp::DivS if bits == 32 => (sa as i32).wrapping_div(sb as i32) as u32 as u64,
        BinOp::RemS if bits == 32 => (sa as i32).wrapping_rem(sb as i32) as u32 as u64,
        BinOp::DivS => sa.wrapping_div(sb) as u64,
        BinOp::RemS => sa.wrapping_rem(sb) as u64,
        BinOp::And => a & b,
        BinOp::Or => a | b,
        BinOp::Xor => a ^ b,
        BinOp::Shl => a << shift,
        BinOp::ShrU => a >> shift,
        BinOp::ShrS => (sa >> shift) as u64,
        BinOp::Eq => u64::from(a == b),
        BinOp::Ne => u64::from(a != b),
        BinOp::LtU => u64::from(a < b),
        BinOp::LtS => u64::from(sa < sb),
        BinOp::LeU => u64::from(a <= b),
        BinOp::LeS => u64::from(sa <= sb),
        BinOp::GtU => u64::from(a > b),
        BinOp::GtS => u64::from(sa > sb),
        BinOp::GeU => u64::from(a >= b),
        BinOp::GeS => u64::from(sa >= sb),
    };
    Some(v & mask)
}

/// `sext.N` / `zext.N`.
pub fn extend(v: u64, from: ExtFrom, signed: bool) -> u64 {
    let shift = 64 - from.bits();
    if signed {
        (((v << shift) as i64) >> shift) as u64
    } else {
        (v << shift) >> shift
    }
}

/// Executes instruction `index` of a body.
pub(crate) fn step(
    insn: &Insn,
    index: u32,
    regs: &mut Registers,
    env: &mut impl Env,
) -> Result<Flow, Fault> {
    match insn {
        Insn::Mov { dst, src } => {
            let v = regs.operand(*src)?;
            regs.set(*dst, v);
        }
        Insn::Bin {
            op,
            width,
            dst,
            a,
            b,
        } => {
            let (a, b) = (regs.operand(*a)?, regs.operand(*b)?);
            let v = alu(*op, *width, a, b).ok_or(Fault::Trap(TrapKind::DivisionByZero))?;
            regs.set(*dst, v);
        }
        Insn::Ext {
            dst,
            src,
            from,
            signed,
        } => {
            let v = regs.operand(*src)?;
            regs.set(*dst, extend(v, *from, *signed));
        }
        Insn::ReadSpecial { dst, special } => {
            let v = env.special(*special, index)?;
            regs.set(*dst, v);
        }
        Insn::ReadSite { dst, value } => {
            let v = env.site(*value)?;
            regs.set(*dst, v);
        }
        Insn::LoadPersist { dst, slot } => {
            let v = env.load_persist(*slot)?;
            regs.set(*dst, v);
        }
        Insn::StorePersist { slot, src } => {
            let v = regs.operand(*src)?;
            env.store_persist(*slot, v)?;
        }
        Insn::Branch {
            cond,
            target,
            if_zero,
        } => {
            let zero = regs.get(*cond)? == 0;
            if zero == *if_zero {
                return Ok(Flow::Jump(*target));
            }
        }
        Insn::Jump { target } => return Ok(Flow::Jump(*target)),
        Insn::MapUpdate { map, keys, agg } => {
            let keys = regs.operands(keys)?;
            let update = Update::new(*agg, |o| regs.operand(o))?;
            env.map_update(*map, &keys, update)?;
        }
        Insn::ArraySave {
            map,
            cursor,
            fields,
        } => {
            let fields = regs.operands(fields)?;
            env.array_save(*map, *cursor, &fields)?;
        }
        Insn::RingAppend { map, fields } => {
            let fields = regs.operands(fields)?;
            env.ring_append(*map, &fields)?;
        }
        Insn::Printf { format, args } => {
            let args = regs.operands(args)?;
            env.printf(*format, &args)?;
        }
        Insn::Print { map, top, div } => env.host(HostOp::Print(*map, *top, *div))?,
        Insn::Clear { map } => env.host(HostOp::Clear(*map))?,
        Insn::Zero { map } => env.host(HostOp::Zero(*map))?,
        Insn::Delete { map, keys } => {
            let keys = regs.operands(keys)?;
            env.host(HostOp::Delete(*map, keys))?;
        }
        Insn::StopTracing => env.host(HostOp::StopTracing)?,
        Insn::Exit => return Ok(Flow::Exit),
    }
    Ok(Flow::Next)
}

/// Runs a body from instruction 0 to an `exit`; on a fault, also returns the index of
/// the instruction that raised it.
pub(crate) fn run_body(insns: &[Insn], env: &mut impl Env) -> Result<(), (u32, Fault)> {
    let mut regs = Registers::default();
    let mut pc: u32 = 0;
    loop {
        let Some(insn) = insns.get(pc as usize) else {
            return Err((pc, Fault::Trap(TrapKind::MissingExit)));
        };
        match step(insn, pc, &mut regs, env).map_err(|f| (pc, f))? {
            Flow::Next => pc += 1,
            Flow::Jump(t) if t > pc && (t as usize) <= insns.len() => pc = t,
            Flow::Jump(t) => return Err((pc, Fault::Trap(TrapKind::BadJump(t)))),
            Flow::Exit => return Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alu_follows_the_reference() {
        let m = u64::MAX;
        assert_eq!(alu(BinOp::Add, Width::W32, 0xffff_ffff, 1), Some(0));
        assert_eq!(alu(BinOp::Sub, Width::W64, 0, 1), Some(m));
        assert_eq!(alu(BinOp::Shl, Width::W64, 1, 65), Some(2));
        assert_eq!(alu(BinOp::Shl, Width::W32, 1, 33), Some(2));
        assert_eq!(alu(BinOp::ShrS, Width::W64, m - 7, 1), Some(m - 3));
        assert_eq!(
            alu(BinOp::ShrS, Width::W32, 0x8000_0000, 31),
            Some(0xffff_ffff)
        );
        assert_eq!(
            alu(BinOp::DivS, Width::W64, (-7i64) as u64, 2),
            Some((-3i64) as u64)
        );
        assert_eq!(
            alu(BinOp::RemS, Width::W64, (-7i64) as u64, 2),
            Some((-1i64) as u64)
        );
        let min = i64::MIN as u64;
        assert_eq!(alu(BinOp::DivS, Width::W64, min, m), Some(min));
        assert_eq!(alu(BinOp::RemS, Width::W64, min, m), Some(0));
        assert_eq!(
            alu(BinOp::DivS, Width::W32, 0x8000_0000, m),
            Some(0x8000_0000)
        );
        assert_eq!(alu(BinOp::DivU, Width::W64, 1, 0), None);
        assert_eq!(alu(BinOp::RemS, Width::W32, 1, 1 << 32), None);
        assert_eq!(alu(BinOp::LtS, Width::W64, m, 0), Some(1));
        assert_eq!(alu(BinOp::LtU, Width::W64, m, 0), Some(0));
        assert_eq!(alu(BinOp::LtS, Width::W32, 0xffff_ffff, 0), Some(1));
        assert_eq!(alu(BinOp::Eq, Width::W32, 1 << 32, 0), Some(1));
        assert_eq!(extend(0x80, ExtFrom::B8, true), (-128i64) as u64);
        assert_eq!(extend(0x1_80, ExtFrom::B8, false), 0x80);
        assert_eq!(extend(0xffff_ffff, ExtFrom::B32, true), m);
    }
}
