//! Register aliasing ([`KernelModel::parts`]): the machine registers each name occupies,
//! for targets whose register names overlap (GCN's `s[4:5]` is `s4` and `s5`). For a
//! model without overlapping names (PTX) the table is empty and every name is its own
//! single part.
//!
//! [`KernelModel::parts`]: crate::KernelModel::parts

use crate::{Addr, Compute, Item, KernelModel};
use foldhash::{HashMap, HashMapExt};

/// The parts of every name of a body that has more than itself.
#[derive(Debug, Default)]
pub(super) struct Aliases {
    parts: HashMap<String, Vec<String>>,
}

impl Aliases {
    /// The parts of every register `items` and `extra` name, as `model` gives them.
    pub(super) fn of<'n>(
        model: &dyn KernelModel,
        items: &[Item],
        extra: impl Iterator<Item = &'n str>,
    ) -> Aliases {
        let mut parts = HashMap::new();
        let mut add = |name: &str| {
            if !parts.contains_key(name) {
                if let Some(p) = model.parts(name) {
                    parts.insert(name.to_owned(), p);
                }
            }
        };
        for item in items {
            let Item::Instr(x) = item else { continue };
            x.defs.iter().chain(&x.uses).for_each(|r| add(r));
            match &x.compute {
                Compute::Copy(r) => add(r),
                Compute::Add { addends, offsets } => {
                    addends.iter().chain(offsets).for_each(|r| add(r))
                }
                _ => {}
            }
            for m in &x.mem {
                match &m.addr {
                    Addr::Reg(r) => add(r),
                    Addr::Indexed { base, index } => {
                        add(base);
                        index.iter().for_each(|r| add(r));
                    }
                    Addr::Other(regs) => regs.iter().for_each(|r| add(r)),
                    _ => {}
                }
            }
        }
        extra.for_each(add);
        Aliases { parts }
    }

    /// Whether no name overlaps another.
    pub(super) fn is_empty(&self) -> bool {
        self.parts.is_empty()
    }

    /// The machine registers `name` occupies (itself when it has no parts).
    pub(super) fn parts<'s>(&'s self, name: &'s str) -> Vec<&'s str> {
        match self.parts.get(name) {
            Some(p) => p.iter().map(String::as_str).collect(),
            None => vec![name],
        }
    }

    /// Whether `a` and `b` share a machine register.
    pub(super) fn alias(&self, a: &str, b: &str) -> bool {
        if a == b {
            return true;
        }
        let pb = self.parts(b);
        self.parts(a).iter().any(|p| pb.contains(p))
    }
}
