//! The proof cache's key: a digest of a solver's assertions walked as terms, without
//! printing them.
//!
//! Invariant: two solvers get the same digest only if their assertions are the same
//! formula — the same terms, node by node: each application's declaration (its kind, its
//! name, its parameters such as `extract`'s bit positions, its domain and range sorts),
//! each numeral's value and sort, each bound variable's index and sort, each quantifier's
//! kind, bound sorts and body, shared subterms once. A term of a kind the walk does not
//! know (a declaration with a term or function parameter, a datatype or other unusual
//! sort) gives no digest, and the query is asked of z3. Patterns and weights of
//! quantifiers are left out: they guide instantiation and do not change what is
//! satisfiable.
//!
//! The walk reads the terms z3 already holds (`Z3_get_*`); it makes no term, prints
//! nothing and leaves the solver as it was. Printing a benchmark for its key
//! perturbed z3's later search (docs/decisions/0041-proof-cache.md); this is what that
//! decision named as the next step.

use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::ffi::CStr;
use z3::ast::Ast;
use z3::Solver;
use z3_sys::{
    AstKind, ParameterKind, SortKind, SymbolKind, Z3_ast, Z3_context, Z3_func_decl, Z3_sort,
    Z3_symbol,
};

/// Record tags of the serialization.
const NUMERAL: u8 = 1;
const APP: u8 = 2;
const VAR: u8 = 3;
const QUANTIFIER: u8 = 4;
const SORT: u8 = 5;
const DECL: u8 = 6;
const ASSERTION: u8 = 7;

/// The digest of `solver`'s assertions, fed into `hash`; `None` when a term is of a kind
/// the walk does not cover.
pub(crate) fn digest(solver: &Solver, hash: &mut Sha256) -> Option<()> {
    let assertions = solver.get_assertions();
    let Some(first) = assertions.first() else {
        hash.update([ASSERTION, 0]);
        return Some(());
    };
    let ctx = first.get_ctx().get_z3_context();
    let mut walk = Walk {
        ctx,
        hash,
        nodes: HashMap::new(),
        sorts: HashMap::new(),
        decls: HashMap::new(),
    };
    for a in &assertions {
        let n = walk.term(a.get_z3_ast())?;
        walk.hash.update([ASSERTION]);
        walk.hash.update(n.to_le_bytes());
    }
    Some(())
}

struct Walk<'h> {
    ctx: Z3_context,
    hash: &'h mut Sha256,
    /// z3's id of each term walked → its number in this digest.
    nodes: HashMap<u32, u32>,
    sorts: HashMap<u32, u32>,
    decls: HashMap<u32, u32>,
}

impl Walk<'_> {
    fn u32(&mut self, v: u32) {
        self.hash.update(v.to_le_bytes());
    }

    fn bytes(&mut self, b: &[u8]) {
        self.u32(b.len() as u32);
        self.hash.update(b);
    }

    /// A C string z3 owns until its next call, hashed at once.
    fn string(&mut self, s: *const std::ffi::c_char) -> Option<()> {
        if s.is_null() {
            return None;
        }
        // SAFETY: z3 returns a NUL-terminated string valid until its next API call; it is
        // read here, before any.
        let text = unsafe { CStr::from_ptr(s) };
        self.bytes(text.to_bytes());
        Some(())
    }

    fn symbol(&mut self, s: Z3_symbol) -> Option<()> {
        // SAFETY: a symbol of this context.
        match unsafe { z3_sys::Z3_get_symbol_kind(self.ctx, s) } {
            SymbolKind::Int => {
                self.hash.update([0]);
                // SAFETY: as above, an int symbol.
                let v = unsafe { z3_sys::Z3_get_symbol_int(self.ctx, s) };
                self.hash.update(v.to_le_bytes());
                Some(())
            }
            SymbolKind::String => {
                self.hash.update([1]);
                // SAFETY: as above, a string symbol.
                let s = unsafe { z3_sys::Z3_get_symbol_string(self.ctx, s) };
                self.string(s)
            }
        }
    }

    /// The number of sort `s` in this digest, its record written on first sight.
    fn sort(&mut self, s: Z3_sort) -> Option<u32> {
        // SAFETY: a sort of this context.
        let id = unsafe { z3_sys::Z3_get_sort_id(self.ctx, s) };
        if let Some(&n) = self.sorts.get(&id) {
            return Some(n);
        }
        // SAFETY: as above.
        let kind = unsafe { z3_sys::Z3_get_sort_kind(self.ctx, s) };
        let parts: Vec<u32> = match kind {
            SortKind::Bool | SortKind::Int | SortKind::Real => Vec::new(),
            // SAFETY: a bit-vector sort.
            SortKind::Bv => vec![unsafe { z3_sys::Z3_get_bv_sort_size(self.ctx, s) }],
            SortKind::Array => {
                // SAFETY: an array sort.
                let (d, r) = unsafe {
                    (
                        z3_sys::Z3_get_array_sort_domain(self.ctx, s)?,
                        z3_sys::Z3_get_array_sort_range(self.ctx, s)?,
                    )
                };
                vec![self.sort(d)?, self.sort(r)?]
            }
            SortKind::Uninterpreted => Vec::new(),
            _ => return None,
        };
        self.hash.update([SORT]);
        self.u32(kind as u32);
        for p in &parts {
            self.u32(*p);
        }
        if kind == SortKind::Uninterpreted {
            // SAFETY: as above.
            let name = unsafe { z3_sys::Z3_get_sort_name(self.ctx, s)? };
            self.symbol(name)?;
        }
        let n = self.sorts.len() as u32;
        self.sorts.insert(id, n);
        Some(n)
    }

    /// The number of declaration `d`, its record (kind, name, parameters, domain, range)
    /// written on first sight.
    fn decl(&mut self, d: Z3_func_decl) -> Option<u32> {
        // SAFETY: a declaration of this context; its term form has the declaration's id.
        let id =
            unsafe { z3_sys::Z3_get_ast_id(self.ctx, z3_sys::Z3_func_decl_to_ast(self.ctx, d)?) };
        if let Some(&n) = self.decls.get(&id) {
            return Some(n);
        }
        // SAFETY: as above.
        let (arity, params) = unsafe {
            (
                z3_sys::Z3_get_domain_size(self.ctx, d),
                z3_sys::Z3_get_decl_num_parameters(self.ctx, d),
            )
        };
        let mut domain = Vec::with_capacity(arity as usize);
        for i in 0..arity {
            // SAFETY: `i` is below the domain's size.
            domain.push(self.sort(unsafe { z3_sys::Z3_get_domain(self.ctx, d, i)? })?);
        }
        // SAFETY: as above.
        let range = self.sort(unsafe { z3_sys::Z3_get_range(self.ctx, d)? })?;
        // Sort parameters are numbered before the record that names them.
        let mut sort_params = Vec::new();
        for i in 0..params {
            // SAFETY: `i` is below the parameter count.
            if unsafe { z3_sys::Z3_get_decl_parameter_kind(self.ctx, d, i) } == ParameterKind::Sort
            {
                // SAFETY: a sort parameter.
                sort_params.push(
                    self.sort(unsafe { z3_sys::Z3_get_decl_sort_parameter(self.ctx, d, i)? })?,
                );
            }
        }
        self.hash.update([DECL]);
        // SAFETY: as above.
        self.u32(unsafe { z3_sys::Z3_get_decl_kind(self.ctx, d) } as u32);
        // SAFETY: as above.
        self.symbol(unsafe { z3_sys::Z3_get_decl_name(self.ctx, d)? })?;
        self.u32(arity);
        for s in domain {
            self.u32(s);
        }
        self.u32(range);
        self.u32(params);
        let mut sort_params = sort_params.into_iter();
        for i in 0..params {
            // SAFETY: `i` is below the parameter count.
            let kind = unsafe { z3_sys::Z3_get_decl_parameter_kind(self.ctx, d, i) };
            self.u32(kind as u32);
            match kind {
                ParameterKind::Int => {
                    // SAFETY: an int parameter.
                    let v = unsafe { z3_sys::Z3_get_decl_int_parameter(self.ctx, d, i) };
                    self.hash.update(v.to_le_bytes());
                }
                ParameterKind::Double => {
                    // SAFETY: a double parameter.
                    let v = unsafe { z3_sys::Z3_get_decl_double_parameter(self.ctx, d, i) };
                    self.hash.update(v.to_bits().to_le_bytes());
                }
                ParameterKind::Rational => {
                    // SAFETY: a rational parameter.
                    let v = unsafe { z3_sys::Z3_get_decl_rational_parameter(self.ctx, d, i) };
                    self.string(v)?;
                }
                ParameterKind::Symbol => {
                    // SAFETY: a symbol parameter.
                    self.symbol(unsafe { z3_sys::Z3_get_decl_symbol_parameter(self.ctx, d, i)? })?;
                }
                ParameterKind::Sort => self.u32(sort_params.next()?),
                _ => return None,
            }
        }
        let n = self.decls.len() as u32;
        self.decls.insert(id, n);
        Some(n)
    }

    /// The number of term `root`, every subterm's record written first (an explicit
    /// stack: a chain of thousands of additions is as deep).
    fn term(&mut self, root: Z3_ast) -> Option<u32> {
        // A term is pushed again above its children with them, read once.
        let mut stack: Vec<(Z3_ast, Option<Vec<Z3_ast>>)> = vec![(root, None)];
        while let Some((t, expanded)) = stack.pop() {
            // SAFETY: a term of this context, alive while the solver holds its assertion.
            let id = unsafe { z3_sys::Z3_get_ast_id(self.ctx, t) };
            if self.nodes.contains_key(&id) {
                continue;
            }
            let children = match expanded {
                Some(children) => children,
                None => {
                    let children = self.children(t)?;
                    let pending: Vec<Z3_ast> = children
                        .iter()
                        .copied()
                        .filter(|c| {
                            // SAFETY: as above.
                            !self
                                .nodes
                                .contains_key(&unsafe { z3_sys::Z3_get_ast_id(self.ctx, *c) })
                        })
                        .collect();
                    if !pending.is_empty() {
                        stack.push((t, Some(children)));
                        stack.extend(pending.into_iter().rev().map(|c| (c, None)));
                        continue;
                    }
                    children
                }
            };
            self.record(t, &children)?;
            let n = self.nodes.len() as u32;
            self.nodes.insert(id, n);
        }
        // SAFETY: as above.
        self.nodes
            .get(&unsafe { z3_sys::Z3_get_ast_id(self.ctx, root) })
            .copied()
    }

    /// The subterms of `t`: an application's arguments, a quantifier's body.
    fn children(&self, t: Z3_ast) -> Option<Vec<Z3_ast>> {
        // SAFETY: a term of this context.
        match unsafe { z3_sys::Z3_get_ast_kind(self.ctx, t) } {
            AstKind::App => {
                // SAFETY: an application.
                let app = unsafe { z3_sys::Z3_to_app(self.ctx, t)? };
                // SAFETY: as above.
                let n = unsafe { z3_sys::Z3_get_app_num_args(self.ctx, app) };
                (0..n)
                    // SAFETY: `i` is below the argument count.
                    .map(|i| unsafe { z3_sys::Z3_get_app_arg(self.ctx, app, i) })
                    .collect()
            }
            // SAFETY: a quantifier.
            AstKind::Quantifier => Some(vec![unsafe {
                z3_sys::Z3_get_quantifier_body(self.ctx, t)?
            }]),
            AstKind::Numeral | AstKind::Var => Some(Vec::new()),
            _ => None,
        }
    }

    /// `t`'s record, its children already numbered.
    fn record(&mut self, t: Z3_ast, children: &[Z3_ast]) -> Option<()> {
        let numbered: Vec<u32> = children
            .iter()
            // SAFETY: terms of this context.
            .map(|c| {
                self.nodes
                    .get(&unsafe { z3_sys::Z3_get_ast_id(self.ctx, *c) })
                    .copied()
            })
            .collect::<Option<_>>()?;
        // SAFETY: a term of this context.
        let sort = self.sort(unsafe { z3_sys::Z3_get_sort(self.ctx, t)? });
        // SAFETY: as above.
        match unsafe { z3_sys::Z3_get_ast_kind(self.ctx, t) } {
            AstKind::Numeral => {
                let sort = sort?;
                // SAFETY: a numeral.
                let value = unsafe { z3_sys::Z3_get_numeral_string(self.ctx, t) };
                self.hash.update([NUMERAL]);
                self.u32(sort);
                self.string(value)
            }
            AstKind::App => {
                let sort = sort?;
                // SAFETY: an application.
                let app = unsafe { z3_sys::Z3_to_app(self.ctx, t)? };
                // SAFETY: as above.
                let decl = self.decl(unsafe { z3_sys::Z3_get_app_decl(self.ctx, app)? })?;
                self.hash.update([APP]);
                self.u32(decl);
                self.u32(sort);
                self.u32(numbered.len() as u32);
                numbered.iter().for_each(|&c| self.u32(c));
                Some(())
            }
            AstKind::Var => {
                let sort = sort?;
                // SAFETY: a bound variable.
                let index = unsafe { z3_sys::Z3_get_index_value(self.ctx, t) };
                self.hash.update([VAR]);
                self.u32(index);
                self.u32(sort);
                Some(())
            }
            AstKind::Quantifier => {
                // SAFETY: a quantifier.
                let (forall, lambda, bound) = unsafe {
                    (
                        z3_sys::Z3_is_quantifier_forall(self.ctx, t),
                        z3_sys::Z3_is_lambda(self.ctx, t),
                        z3_sys::Z3_get_quantifier_num_bound(self.ctx, t),
                    )
                };
                let mut sorts = Vec::with_capacity(bound as usize);
                for i in 0..bound {
                    // SAFETY: `i` is below the bound count.
                    sorts.push(
                        self.sort(unsafe {
                            z3_sys::Z3_get_quantifier_bound_sort(self.ctx, t, i)?
                        })?,
                    );
                }
                self.hash
                    .update([QUANTIFIER, u8::from(forall), u8::from(lambda)]);
                self.u32(bound);
                sorts.iter().for_each(|&s| self.u32(s));
                numbered.iter().for_each(|&c| self.u32(c));
                Some(())
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use z3::ast::{Array, Bool, Int, BV};
    use z3::Sort;

    fn key_of(build: impl Fn(&Solver)) -> Option<Vec<u8>> {
        let s = Solver::new();
        build(&s);
        let mut h = Sha256::new();
        digest(&s, &mut h)?;
        Some(h.finalize().to_vec())
    }

    #[test]
    fn equal_formulas_share_a_digest_and_any_change_of_a_term_changes_it() {
        let x = || BV::new_const("x", 32);
        let base = key_of(|s| s.assert(x().bvadd(BV::from_u64(1, 32)).eq(x())));
        assert!(base.is_some());
        assert_eq!(
            base,
            key_of(|s| s.assert(x().bvadd(BV::from_u64(1, 32)).eq(x())))
        );
        let differs = [
            key_of(|s| s.assert(x().bvadd(BV::from_u64(2, 32)).eq(x()))),
            key_of(|s| s.assert(x().bvsub(BV::from_u64(1, 32)).eq(x()))),
            key_of(|s| s.assert(BV::new_const("y", 32).bvadd(BV::from_u64(1, 32)).eq(x()))),
            key_of(|s| {
                let w = BV::new_const("x", 64);
                s.assert(w.bvadd(BV::from_u64(1, 64)).eq(&w))
            }),
            // `extract`'s bit positions are parameters of its declaration.
            key_of(|s| s.assert(x().extract(7, 0).eq(BV::from_u64(1, 8)))),
            key_of(|s| {
                s.assert(x().bvadd(BV::from_u64(1, 32)).eq(x()));
                s.assert(Bool::from_bool(true));
            }),
        ];
        let extract_hi = key_of(|s| s.assert(x().extract(15, 8).eq(BV::from_u64(1, 8))));
        assert_ne!(differs[4], extract_hi);
        for (i, d) in differs.iter().enumerate() {
            assert!(d.is_some(), "{i}");
            assert_ne!(&base, d, "{i}");
        }
    }

    #[test]
    fn arrays_integers_and_quantifiers_are_walked() {
        let a = || Array::new_const("m", &Sort::bitvector(64), &Sort::bitvector(8));
        let one = key_of(|s| {
            let i = BV::new_const("i", 64);
            s.assert(a().select(&i).as_bv().expect("bv").eq(BV::from_u64(3, 8)));
            let n = Int::new_const("n");
            s.assert(n.gt(Int::from_i64(2)));
        });
        assert!(one.is_some());
        let forall = |k: u64| {
            key_of(move |s| {
                let y = BV::new_const("y", 8);
                let body = y.bvadd(BV::from_u64(k, 8)).eq(&y).not();
                s.assert(z3::ast::forall_const(&[&y], &[], &body));
            })
        };
        assert!(forall(1).is_some());
        assert_ne!(forall(1), forall(2));
        assert_eq!(forall(1), forall(1));
    }

    #[test]
    fn a_deep_chain_is_walked_without_recursion() {
        let k = key_of(|s| {
            let mut t = BV::new_const("x", 32);
            for i in 0..100_000 {
                t = t.bvadd(BV::from_u64(i, 32));
            }
            s.assert(t.eq(BV::from_u64(0, 32)));
        });
        assert!(k.is_some());
    }
}
