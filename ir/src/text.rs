//! The IR text form (printer). `docs/ir.md` describes the syntax; `parse.rs` reads it
//! back (print∘parse is the identity).
//!
//! ```text
//! config ring_bytes = 1048576
//! map @blocks: hash(keys = 4096) [kernel] -> count
//! map @trace: ring(capacity = 1024, overflow = drop) -> record(u64, i64)
//! persistent %t0
//! format 0: "%d %x\n"
//!
//! host 0: end
//!   0: host.print @blocks
//!   1: exit
//!
//! probe 0: kernel:entry
//!   0: r0 = sreg tid.x
//!   1: r1 = eq.64 r0, 0
//!   2: jz r1, 4
//!   3: map.update @blocks[r2] count
//!   4: exit
//! ```

use crate::{
    ConfigValue, ExtFrom, Insn, KeyType, MapDecl, MapId, MapKind, Operand, Overflow, Per,
    PersistId, Program, Reg, ValueKind, Width,
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

/// `(a, b, c)`, `()` when empty.
fn tuple(ops: &[Operand]) -> String {
    let ops: Vec<String> = ops.iter().map(ToString::to_string).collect();
    format!("({})", ops.join(", "))
}

/// `[a, b]`, nothing when empty.
fn keys(ops: &[Operand]) -> String {
    if ops.is_empty() {
        return String::new();
    }
    let ops: Vec<String> = ops.iter().map(ToString::to_string).collect();
    format!("[{}]", ops.join(", "))
}

/// A key type's name in the text form (`u64`, `i64`, `kernel`, `str`).
pub fn key_type_name(k: KeyType) -> &'static str {
    match k {
        KeyType::Int { signed: true } => "i64",
        KeyType::Int { signed: false } => "u64",
        KeyType::Kernel => "kernel",
        KeyType::Str => "str",
    }
}

pub(crate) fn sign_name(signed: bool) -> &'static str {
    if signed {
        "i64"
    } else {
        "u64"
    }
}

pub(crate) fn ext_name(from: ExtFrom) -> u32 {
    from.bits()
}

/// Prints one instruction; map and register names are resolved through `program`.
struct InsnText<'a> {
    program: &'a Program,
    insn: &'a Insn,
}

impl InsnText<'_> {
    fn map(&self, id: MapId) -> String {
        match self.program.map(id) {
            Some(m) => format!("@{}", m.name),
            None => format!("@<map {}>", id.0),
        }
    }

    fn persist(&self, id: PersistId) -> String {
        match self.program.persist(id) {
            Some(p) => format!("%{}", p.name),
            None => format!("%<persistent {}>", id.0),
        }
    }
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
            Insn::Ext {
                dst,
                src,
                from,
                signed,
            } => {
                let m = if *signed { "sext" } else { "zext" };
                write!(f, "{dst} = {m}.{} {src}", ext_name(*from))
            }
            Insn::ReadSpecial { dst, special } => write!(f, "{dst} = sreg {}", special.name()),
            Insn::ReadSite { dst, value } => write!(f, "{dst} = site {}", value.name()),
            Insn::LoadPersist { dst, slot } => write!(f, "{dst} = load {}", self.persist(*slot)),
            Insn::StorePersist { slot, src } => write!(f, "store {}, {src}", self.persist(*slot)),
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
            Insn::MapUpdate { map, keys: k, agg } => {
                write!(
                    f,
                    "map.update {}{} {}",
                    self.map(*map),
                    keys(k),
                    agg.mnemonic()
                )?;
                match agg.operand() {
                    Some(o) => write!(f, " {o}"),
                    None => Ok(()),
                }
            }
            Insn::ArraySave {
                map,
                cursor,
                fields,
            } => write!(
                f,
                "map.save {}, {}, {}",
                self.map(*map),
                self.persist(*cursor),
                tuple(fields)
            ),
            Insn::RingAppend { map, fields } => {
                write!(f, "map.append {}, {}", self.map(*map), tuple(fields))
            }
            Insn::Printf { format, args } => write!(f, "printf {}, {}", format.0, tuple(args)),
            Insn::Print { map, top, div } => {
                write!(f, "host.print {}", self.map(*map))?;
                if *top != 0 {
                    write!(f, " top {top}")?;
                }
                if *div != 0 {
                    write!(f, " div {div}")?;
                }
                Ok(())
            }
            Insn::Clear { map } => write!(f, "host.clear {}", self.map(*map)),
            Insn::Zero { map } => write!(f, "host.zero {}", self.map(*map)),
            Insn::Delete { map, keys: k } => {
                write!(f, "host.delete {}{}", self.map(*map), keys(k))
            }
            Insn::StopTracing => write!(f, "host.exit"),
            Insn::Exit => write!(f, "exit"),
        }
    }
}

/// Prints a map declaration's line (without the newline).
struct MapText<'a>(&'a MapDecl);

impl fmt::Display for MapText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let m = self.0;
        write!(f, "map @{}: ", m.name)?;
        match m.kind {
            MapKind::Hash { capacity } => write!(f, "hash(keys = {capacity})")?,
            MapKind::Array { per, slots } => {
                let per = match per {
                    Per::Thread => "thread",
                    Per::Warp => "warp",
                };
                write!(f, "array(per = {per}, slots = {slots})")?
            }
            MapKind::Ring { capacity, overflow } => {
                let overflow = match overflow {
                    Overflow::Drop => "drop",
                    Overflow::Overwrite => "overwrite",
                };
                write!(f, "ring(capacity = {capacity}, overflow = {overflow})")?
            }
        }
        if !m.keys.is_empty() {
            let keys: Vec<&str> = m.keys.iter().map(|k| key_type_name(*k)).collect();
            write!(f, " [{}]", keys.join(", "))?;
        }
        write!(f, " -> {}", m.value)
    }
}

/// A map's value type as the text form writes it (`sum s64`, `lhist(0, 100, 10)`).
impl fmt::Display for ValueKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ValueKind::Count => write!(f, "count"),
            ValueKind::Sum { signed } => write!(f, "sum {}", sign_name(*signed)),
            ValueKind::Min { signed } => write!(f, "min {}", sign_name(*signed)),
            ValueKind::Max { signed } => write!(f, "max {}", sign_name(*signed)),
            ValueKind::Avg { signed } => write!(f, "avg {}", sign_name(*signed)),
            ValueKind::Stats { signed } => write!(f, "stats {}", sign_name(*signed)),
            ValueKind::Hist => write!(f, "hist"),
            ValueKind::Lhist { min, max, step } => write!(f, "lhist({min}, {max}, {step})"),
            ValueKind::Value { signed } => write!(f, "value {}", sign_name(*signed)),
            ValueKind::Record(fields) => {
                let fields: Vec<&str> = fields.iter().map(|k| key_type_name(*k)).collect();
                write!(f, "record({})", fields.join(", "))
            }
            ValueKind::Printf { args } => write!(f, "printf({args})"),
        }
    }
}

impl Program {
    /// The text of one instruction of this program, e.g. `r1 = add.64 r0, 1`.
    pub fn insn_text(&self, insn: &Insn) -> String {
        InsnText {
            program: self,
            insn,
        }
        .to_string()
    }

    fn body_text(&self, out: &mut String, insns: &[Insn]) {
        for (i, insn) in insns.iter().enumerate() {
            out.push_str(&format!("  {i}: {}\n", self.insn_text(insn)));
        }
    }

    /// The text of one probe.
    pub fn probe_text(&self, index: usize, probe: &crate::Probe) -> String {
        let mut out = format!("probe {index}: {}\n", probe.attach);
        self.body_text(&mut out, &probe.insns);
        out
    }

    /// The text of one host block.
    pub fn host_text(&self, index: usize, block: &crate::HostBlock) -> String {
        let mut out = format!("host {index}: {}\n", block.event);
        self.body_text(&mut out, &block.insns);
        out
    }
}

impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for c in &self.config {
            match &c.value {
                ConfigValue::Int(v) => writeln!(f, "config {} = {v}", c.key)?,
                ConfigValue::Str(s) => writeln!(f, "config {} = {s:?}", c.key)?,
            }
        }
        for m in &self.maps {
            writeln!(f, "{}", MapText(m))?;
        }
        for p in &self.persistent {
            writeln!(f, "persistent %{}", p.name)?;
        }
        for (i, s) in self.formats.iter().enumerate() {
            writeln!(f, "format {i}: {s:?}")?;
        }
        for (i, s) in self.strings.iter().enumerate() {
            writeln!(f, "string {i}: {s:?}")?;
        }
        for (i, h) in self.host.iter().enumerate() {
            writeln!(f)?;
            write!(f, "{}", self.host_text(i, h))?;
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
                attach: AttachSpec::new(AttachPoint::KernelEntry, Some("*add*".into())),
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
            ..Program::default()
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
