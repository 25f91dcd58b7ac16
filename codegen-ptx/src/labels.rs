//! Labels as PTX scopes them: a label is visible in the `{ }` scope it is declared in and
//! in every scope nested inside it, and a branch goes to the innermost visible label of
//! its name. One name may so be defined in several scopes (inline assembly inlined more
//! than once: CUTLASS's and FlashAttention-3's barrier wait loops); looking labels up by
//! name alone would send a branch to an unknown target.
//!
//! Used by the loop analysis (`loops.rs`) and by the verifier's model (`model.rs`), which
//! gives a label defined in more than one scope a name of its own per scope, so the
//! target-neutral control-flow graph resolves every branch as ptxas does.

use crate::parse::{Body, StmtKind};
use std::collections::HashMap;

/// The scope of every statement of a body and every label's definition.
#[derive(Debug)]
pub(crate) struct Scopes {
    /// The scope each statement stands in (scope 0 is the body's).
    pub scope_of: Vec<usize>,
    /// Each scope's enclosing scope.
    pub parent: Vec<Option<usize>>,
    /// The statement defining each (scope, name): the first, if defined twice.
    labels: HashMap<(usize, String), usize>,
    /// How many scopes define each name.
    defined_in: HashMap<String, u32>,
}

impl Scopes {
    /// The scopes and labels of `body`.
    pub(crate) fn of(body: &Body) -> Scopes {
        let mut parent = vec![None];
        let mut stack = vec![0usize];
        let mut scope_of = Vec::with_capacity(body.stmts.len());
        let mut labels = HashMap::new();
        let mut defined_in: HashMap<String, u32> = HashMap::new();
        for (i, s) in body.stmts.iter().enumerate() {
            match &s.kind {
                StmtKind::ScopeOpen => {
                    parent.push(stack.last().copied());
                    stack.push(parent.len() - 1);
                }
                StmtKind::ScopeClose if stack.len() > 1 => {
                    stack.pop();
                }
                _ => {}
            }
            // A `{` counts in the scope it opens, a `}` in the enclosing one (neither is
            // a label or a branch, so either would do).
            let scope = stack.last().copied().unwrap_or(0);
            scope_of.push(scope);
            if let StmtKind::Label(name) = &s.kind {
                if let std::collections::hash_map::Entry::Vacant(e) =
                    labels.entry((scope, name.to_string()))
                {
                    e.insert(i);
                    *defined_in.entry(name.to_string()).or_default() += 1;
                }
            }
        }
        Scopes {
            scope_of,
            parent,
            labels,
            defined_in,
        }
    }

    /// The statement of label `name` as seen from statement `at`.
    pub(crate) fn resolve(&self, name: &str, at: usize) -> Option<usize> {
        let mut scope = self.scope_of.get(at).copied();
        while let Some(s) = scope {
            if let Some(&l) = self.labels.get(&(s, name.to_string())) {
                return Some(l);
            }
            scope = self.parent[s];
        }
        None
    }

    /// Whether labels named `name` are defined in more than one scope.
    pub(crate) fn ambiguous(&self, name: &str) -> bool {
        self.defined_in.get(name).is_some_and(|&n| n > 1)
    }

    /// The name the verifier's model gives label statement `at` named `name`: the name
    /// itself, or, when several scopes define it, the name with its scope (`L#3`; `#`
    /// is no identifier character, so it names no other label).
    pub(crate) fn model_name(&self, name: &str, at: usize) -> String {
        if self.ambiguous(name) {
            format!("{name}#{}", self.scope_of[at])
        } else {
            name.to_string()
        }
    }

    /// The model name of the label a branch at statement `at` to `name` reaches, if it is
    /// visible there.
    pub(crate) fn target(&self, name: &str, at: usize) -> Option<String> {
        if !self.ambiguous(name) {
            return Some(name.to_string());
        }
        self.resolve(name, at).map(|l| self.model_name(name, l))
    }
}

/// The labels of the `.branchtargets` directive that follows label statement `label`.
pub(crate) fn branch_targets(body: &Body, label: usize) -> Option<Vec<String>> {
    let s = body.stmts.get(label + 1)?;
    let StmtKind::Directive(None) = s.kind else {
        return None;
    };
    let list = s.text.strip_prefix(".branchtargets")?;
    Some(
        list.trim_end_matches(';')
            .split(',')
            .map(|t| t.trim().to_owned())
            .filter(|t| !t.is_empty())
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_in_two_scopes_resolves_to_the_innermost() {
        let src = ".entry k()\n{\nL: ret;\n{\nW: bra W;\n}\n{\nW: bra W;\nbra L;\n}\n}\n";
        let m = crate::parse(src).expect("parses");
        let body = m.kernel("k").and_then(|f| f.body.as_ref()).expect("body");
        let s = Scopes::of(body);
        let at = |text: &str, n: usize| {
            body.stmts
                .iter()
                .enumerate()
                .filter(|(_, st)| st.text == text)
                .nth(n)
                .map(|(i, _)| i)
                .expect("statement")
        };
        let (w1, w2) = (at("W:", 0), at("W:", 1));
        assert!(s.ambiguous("W") && !s.ambiguous("L"));
        assert_eq!(s.resolve("W", at("bra W;", 0)), Some(w1));
        assert_eq!(s.resolve("W", at("bra W;", 1)), Some(w2));
        assert_ne!(s.model_name("W", w1), s.model_name("W", w2));
        assert_eq!(s.target("W", at("bra W;", 1)), Some(s.model_name("W", w2)));
        assert_eq!(s.target("L", at("bra L;", 0)), Some("L".into()));
        // Not visible from the body's scope.
        assert_eq!(s.resolve("W", at("L:", 0)), None);
    }
}
