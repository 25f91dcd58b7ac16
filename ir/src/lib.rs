//! warptrace's probe IR.
//!
//! A [`Program`] is a set of maps and a list of [`Probe`]s; each probe is a straight-line
//! DAG of [`Insn`]s attached to an [`AttachSpec`]. The reference is `docs/ir.md`.
#![deny(missing_docs)]

mod bundle;
mod insn;
mod layout;
mod text;

pub use bundle::{Bundle, BundleError, BUNDLE_FORMAT};
pub use insn::{Aggregation, BinOp, Insn, MapId, Operand, Reg, SiteValue, Special, Width};
pub use layout::{mix64, MapLayout, MapRegion, HASH_MAX_PROBES};

use serde::{Deserialize, Serialize};

/// A probe program: the maps it fills and the probes that fill them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Program {
    /// Maps, indexed by [`MapId`].
    pub maps: Vec<MapDecl>,
    /// Device probes, in source order.
    pub probes: Vec<Probe>,
}

impl Program {
    /// The declaration of a map.
    pub fn map(&self, id: MapId) -> Option<&MapDecl> {
        self.maps.get(id.0 as usize)
    }
}

/// A byte range in the probe's source text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Span {
    /// First byte.
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
}

/// One probe: where it attaches and what it runs there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Probe {
    /// Where it attaches.
    pub attach: AttachSpec,
    /// Its body; ends with [`Insn::Exit`] on every path.
    pub insns: Vec<Insn>,
    /// Source span of each instruction (same length as `insns`), for diagnostics.
    pub spans: Vec<Option<Span>>,
}

/// An attach point plus an optional glob on the kernel's name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct AttachSpec {
    /// The kind of place the probe runs.
    pub point: AttachPoint,
    /// Glob (`*`, `?`) on the kernel's mangled or demangled name; `None` matches every kernel.
    pub kernel_glob: Option<String>,
}

/// The places a device probe can run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum AttachPoint {
    /// At kernel start, every thread.
    KernelEntry,
    /// Before every `ret`/`exit`, predicated ones included.
    KernelExit,
    /// Before each matching memory instruction.
    Mem {
        /// State space.
        space: MemSpace,
        /// Kind of access.
        op: MemOp,
    },
}

/// Memory state spaces of `mem:` attach points.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[allow(missing_docs)] // the names are the PTX state spaces
pub enum MemSpace {
    Global,
    Shared,
    Local,
    Generic,
    Any,
}

/// Memory operations of `mem:` attach points.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[allow(missing_docs)] // load, store, atomic/reduction, asynchronous copy, any
pub enum MemOp {
    Load,
    Store,
    Atomic,
    Async,
    Any,
}

impl std::fmt::Display for AttachSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.point {
            AttachPoint::KernelEntry => write!(f, "kernel:entry")?,
            AttachPoint::KernelExit => write!(f, "kernel:exit")?,
            AttachPoint::Mem { space, op } => {
                let space = match space {
                    MemSpace::Global => "global",
                    MemSpace::Shared => "shared",
                    MemSpace::Local => "local",
                    MemSpace::Generic => "generic",
                    MemSpace::Any => "*",
                };
                let op = match op {
                    MemOp::Load => "load",
                    MemOp::Store => "store",
                    MemOp::Atomic => "atomic",
                    MemOp::Async => "async",
                    MemOp::Any => "*",
                };
                write!(f, "mem:{space}:{op}")?
            }
        }
        if let Some(glob) = &self.kernel_glob {
            write!(f, ":{glob}")?;
        }
        Ok(())
    }
}

/// A map's declaration: its kind, key tuple and value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MapDecl {
    /// Name without the `@`.
    pub name: String,
    /// Storage kind and size.
    pub kind: MapKind,
    /// Type of each key component; empty for `@x = …`.
    pub keys: Vec<KeyType>,
    /// What the value slot holds.
    pub value: ValueKind,
}

/// Storage of a map on the device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum MapKind {
    /// Open-addressing hash table in global memory, updated with atomics.
    Hash {
        /// Number of slots; a power of two. A full table counts drops.
        capacity: u32,
    },
}

/// How the host prints a key component.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum KeyType {
    /// An integer, signed or not.
    Int {
        /// Printed as a signed value.
        signed: bool,
    },
    /// A kernel id, printed as the kernel's name.
    Kernel,
}

/// What a map's value slot aggregates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ValueKind {
    /// `count()`.
    Count,
    /// `sum(x)`.
    Sum {
        /// Printed as a signed value.
        signed: bool,
    },
}

/// The id of a kernel: FNV-1a 64 of its mangled name. Code generators emit it as the
/// `kernel` builtin; the host maps it back to the name.
pub fn kernel_id(mangled_name: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in mangled_name.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_id_is_fnv1a() {
        // Reference values of FNV-1a 64.
        assert_eq!(kernel_id(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(kernel_id("a"), 0xaf63_dc4c_8601_ec8c);
    }
}
