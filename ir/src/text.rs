//! The IR text form (printer). `docs/ir.md` describes the syntax.
//!
//! ```text
//! map @blocks: hash(keys = 4096) [kernel] -> count
//!
//! probe 0: kernel:entry
//!   0: r0 = sreg tid.x
//!   1: r1 = eq.64 r0, 0
//!   2: jz r1, 4
//!   3: map.update @blocks[r2] count
//!   4: exit
//! ```

use crate::{
    Aggregation, AttachSpec, Insn, KeyType, MapKind, Operand, Probe, Program, Reg, ValueKind, Width,
};
use std::fmt;

impl fmt::Display for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "r{}", self.0)
    }
}

impl fmt::Display for Operand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Operand::Reg(r) => write!(f, "{r}"),
            Operand::Imm(i) => write!(f, "{i}"),
        }
    }
}

/// Prints one instruction; map names are resolved through `program`.
struct InsnText<'a> {
    program: &'a Program,
    insn: &'a Insn,
}

impl fmt::Display for InsnText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.insn {
            Insn::Mov { dst, src } => write!(f, "{dst} = mov {src}"),
            Insn::Bin {
                op,
                width,
                dst,
                a,
                b,
            } => {
                let w = match width {
                    Width::W32 => 32,
                    Width::W64 => 64,
                };
                write!(f, "{dst} = {}.{w} {a}, {b}", op.mnemonic())
            }
            Insn::ReadSpecial { dst, special } => write!(f, "{dst} = sreg {}", special.name()),
            Insn::ReadSite { dst, value } => write!(f, "{dst} = site {}", value.name()),
            Insn::Branch {
                cond,
                if_zero,
                target,
            } => write!(
                f,
                "{} {cond}, {target}",
                if *if_zero { "jz" } else { "jnz" }
            ),
            Insn::Jump { target } => write!(f, "ja {target}"),
            Insn::MapUpdate { map, keys, agg } => {
                match self.program.map(*map) {
                    Some(m) => write!(f, "map.update @{}", m.name)?,
                    None => write!(f, "map.update @<map {}>", map.0)?,
                }
                if !keys.is_empty() {
                    let keys: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
                    write!(f, "[{}]", keys.join(", "))?;
                }
                match agg {
                    Aggregation::Count => write!(f, " count"),
                    Aggregation::Sum(o) => write!(f, " sum {o}"),
                }
            }
            Insn::Exit => write!(f, "exit"),
        }
    }
}

impl Program {
    /// Formats a probe's header line, e.g. `probe 0: kernel:entry`.
    fn probe_header(index: usize, attach: &AttachSpec) -> String {
        format!("probe {index}: {attach}")
    }

    /// The text of one instruction of this program, e.g. `r1 = add.64 r0, 1`.
    pub fn insn_text(&self, insn: &Insn) -> String {
        InsnText {
            program: self,
            insn,
        }
        .to_string()
    }

    /// The text of one probe.
    pub fn probe_text(&self, index: usize, probe: &Probe) -> String {
        let mut out = Self::probe_header(index, &probe.attach);
        out.push('\n');
        for (i, insn) in probe.insns.iter().enumerate() {
            out.push_str(&format!("  {i}: {}\n", self.insn_text(insn)));
        }
        out
    }
}

impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for m in &self.maps {
            let MapKind::Hash { capacity } = m.kind;
            write!(f, "map @{}: hash(keys = {capacity})", m.name)?;
            if !m.keys.is_empty() {
                let keys: Vec<&str> = m
                    .keys
                    .iter()
                    .map(|k| match k {
                        KeyType::Int { signed: true } => "i64",
                        KeyType::Int { signed: false } => "u64",
                        KeyType::Kernel => "kernel",
                    })
                    .collect();
                write!(f, " [{}]", keys.join(", "))?;
            }
            match m.value {
                ValueKind::Count => writeln!(f, " -> count")?,
                ValueKind::Sum { signed: true } => writeln!(f, " -> sum i64")?,
                ValueKind::Sum { signed: false } => writeln!(f, " -> sum u64")?,
            }
        }
        for (i, p) in self.probes.iter().enumerate() {
            writeln!(f)?;
            write!(f, "{}", self.probe_text(i, p))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::*;

    #[test]
    fn prints_maps_and_probes() {
        let program = Program {
            maps: vec![MapDecl {
                name: "blocks".into(),
                kind: MapKind::Hash { capacity: 4096 },
                keys: vec![KeyType::Kernel],
                value: ValueKind::Count,
            }],
            probes: vec![Probe {
                attach: AttachSpec {
                    point: AttachPoint::KernelEntry,
                    kernel_glob: Some("*add*".into()),
                },
                insns: vec![
                    Insn::ReadSpecial {
                        dst: Reg(0),
                        special: Special::TidX,
                    },
                    Insn::Bin {
                        op: BinOp::Eq,
                        width: Width::W64,
                        dst: Reg(1),
                        a: Operand::Reg(Reg(0)),
                        b: Operand::Imm(0),
                    },
                    Insn::Branch {
                        cond: Reg(1),
                        if_zero: true,
                        target: 5,
                    },
                    Insn::ReadSpecial {
                        dst: Reg(2),
                        special: Special::KernelId,
                    },
                    Insn::MapUpdate {
                        map: MapId(0),
                        keys: vec![Operand::Reg(Reg(2))],
                        agg: Aggregation::Count,
                    },
                    Insn::Exit,
                ],
                spans: vec![None; 6],
            }],
        };
        insta::assert_snapshot!(program.to_string(), @r"
        map @blocks: hash(keys = 4096) [kernel] -> count

        probe 0: kernel:entry:*add*
          0: r0 = sreg tid.x
          1: r1 = eq.64 r0, 0
          2: jz r1, 5
          3: r2 = sreg kernel
          4: map.update @blocks[r2] count
          5: exit
        ");
    }
}
