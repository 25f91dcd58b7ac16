//! The verifier's [`KernelModel`] for a parsed PTX kernel.

use crate::insn::facts;
use crate::parse::{Function, StmtKind};
use std::collections::HashSet;
use warptrace_verifier::{Instr, Item, KernelModel, Origin};

/// A PTX kernel as the verifier sees it: labels and instructions in program order with
/// their facts and origin, and the registers declared in the body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PtxKernelModel {
    name: String,
    items: Vec<Item>,
    declared: Vec<(String, Origin)>,
}

impl PtxKernelModel {
    /// Builds the model of `f`; `origin_of` maps a statement's byte offset to who wrote it.
    pub(crate) fn build(f: &Function, origin_of: &dyn Fn(usize) -> Origin) -> PtxKernelModel {
        let mut items = Vec::new();
        let mut declared = Vec::new();
        let stmts = f.body.as_ref().map_or(&[][..], |b| &b.stmts[..]);
        for s in stmts {
            if let StmtKind::Directive(Some(d)) = &s.kind {
                let origin = origin_of(s.span.start);
                declared.extend(d.names.iter().map(|n| (n.clone(), origin)));
            }
        }
        // Registers declared without `%` (rare; call sequences of old compilers).
        let plain: HashSet<&str> = declared
            .iter()
            .map(|(n, _)| n.as_str())
            .filter(|n| !n.starts_with('%'))
            .collect();
        let is_reg = |name: &str| plain.contains(name);
        for s in stmts {
            let origin = origin_of(s.span.start);
            match &s.kind {
                StmtKind::Label(name) => items.push(Item::Label {
                    name: name.clone(),
                    origin,
                }),
                StmtKind::Instr(i) => {
                    let x = facts(i, &is_reg);
                    items.push(Item::Instr(Instr {
                        origin,
                        defs: x.defs,
                        uses: x.uses,
                        flow: x.flow,
                        mem: x.mem,
                        text: s.text.clone(),
                        line: s.line,
                    }));
                }
                StmtKind::Directive(_) | StmtKind::ScopeOpen | StmtKind::ScopeClose => {}
            }
        }
        PtxKernelModel {
            name: f.name.clone(),
            items,
            declared,
        }
    }
}

impl KernelModel for PtxKernelModel {
    fn kernel_name(&self) -> &str {
        &self.name
    }

    fn items(&self) -> Vec<Item> {
        self.items.clone()
    }

    fn declared_registers(&self) -> Vec<(String, Origin)> {
        self.declared.clone()
    }
}
