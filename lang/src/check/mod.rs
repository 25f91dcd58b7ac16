//! The semantic check: AST → [`TProgram`]. Resolves attach points, builtins, functions,
//! variables and maps, types every expression, chooses signed or unsigned operations,
//! checks divisors and keeps each map's keys and value consistent. Errors accumulate.
//!
//! The check runs twice: the first pass only learns the type of each persistent
//! register (`%x` is typed by its first assignment in source order, but may be read
//! earlier, e.g. in a probe that runs before it) and which maps exist (a host block may
//! print a map that a later probe writes); the second pass, which knows both, reports.
//! When the first pass never read a register before its first assignment nor named a
//! map before its first write, the second would repeat it exactly, and is skipped.
//! Semantics: `lang/README.md` and `docs/language.md`.

mod expr;
mod maps;
mod printf;

use crate::ast::{self, Expr, ExprKind, Span, Stmt, Target as AstTarget};
use crate::diag::Error;
use crate::hash::FxHashMap;
use crate::names::{self, Func, Target};
use crate::typed::{HostOp, TBlock, TExpr, TProgram, TStmt, Ty};
use maps::{Defaults, MapEntry};
use warptrace_ir::{
    ConfigEntry, ConfigValue, FormatId, Granularity, MapKind, PersistDecl, PersistId, Position,
};

/// The largest `unroll` count.
pub(crate) const MAX_UNROLL: i64 = 64;

/// `config` keys: name, what it sets.
const CONFIG_KEYS: [(&str, &str); 5] = [
    (
        "hash_keys",
        "slots of hash maps without a declaration (a power of two)",
    ),
    ("ring_capacity", "records of rings without a declaration"),
    ("printf_capacity", "records of the printf ring"),
    (
        "max_map_keys",
        "bpftrace's name: hash maps without a declaration hold at least this many keys \
         (`hash_keys`, rounded up to a power of two)",
    ),
    (
        "print_maps_on_exit",
        "bpftrace's: 0 or false leaves the maps unprinted at exit (print() still prints)",
    ),
];

pub(crate) fn config_hint() -> String {
    let keys: Vec<&str> = CONFIG_KEYS.iter().map(|(k, _)| *k).collect();
    format!(
        "config keys: {} (sizes such as 4096, 64K, 1M)",
        keys.join(", ")
    )
}

/// Checks a parsed program; all errors found are returned together.
pub(crate) fn check(program: &ast::Program<'_>) -> Result<TProgram, Vec<Error>> {
    let mut first = Checker::new(None);
    let blocks = first.run(program);
    // The second pass differs from the first only where the first looked something up
    // that it had not yet seen (and so would have asked `Prior`); without such a lookup
    // it would repeat the first exactly.
    if !first.needs_prior {
        if !first.errors.is_empty() {
            return Err(first.errors);
        }
        return Ok(first.finish(blocks));
    }
    let prior = Prior {
        persist: first
            .persist
            .iter()
            .filter_map(|p| Some((p.name.clone(), p.ty?)))
            .collect(),
        maps: first.map_ids,
    };
    let mut second = Checker::new(Some(&prior));
    let blocks = second.run(program);
    if !second.errors.is_empty() {
        return Err(second.errors);
    }
    Ok(second.finish(blocks))
}

/// What the first pass learnt.
struct Prior {
    /// Each persistent register's type and its first assignment.
    persist: FxHashMap<String, (Ty, Span)>,
    /// Map ids by name (the second pass creates them in the same order).
    maps: FxHashMap<String, usize>,
}

/// A thread-persistent register.
struct PersistVar {
    name: String,
    /// Its type and where it was fixed.
    ty: Option<(Ty, Span)>,
}

/// A scratch variable of the block being checked.
struct ScratchVar {
    ty: Ty,
    /// The first assignment, which fixed the type.
    first: Span,
}

struct Checker<'a> {
    prior: Option<&'a Prior>,
    /// Set in the first pass when a lookup missed where the second pass would consult
    /// `Prior` (so the second pass may differ).
    needs_prior: bool,
    errors: Vec<Error>,
    defaults: Defaults,
    config: Vec<ConfigEntry>,
    /// Declared kind and declaration of each declared map.
    decls: FxHashMap<String, (MapKind, Span)>,
    maps: Vec<MapEntry>,
    map_ids: FxHashMap<String, usize>,
    persist: Vec<PersistVar>,
    persist_ids: FxHashMap<String, usize>,
    formats: Vec<String>,
    /// String literals used as map keys (`Program::strings`).
    strings: Vec<String>,
    /// The most arguments of a device `printf`; `None` without one.
    printf_args: Option<u32>,
    /// The attach points of the block being checked, as written and resolved.
    targets: Vec<(String, Target)>,
    scratch: Vec<ScratchVar>,
    scratch_ids: FxHashMap<String, u32>,
    /// Whether each scratch variable is set on every path to here.
    assigned: Vec<bool>,
}

impl<'a> Checker<'a> {
    fn new(prior: Option<&'a Prior>) -> Checker<'a> {
        Checker {
            prior,
            needs_prior: false,
            errors: Vec::new(),
            defaults: Defaults::default(),
            config: Vec::new(),
            decls: FxHashMap::default(),
            maps: Vec::new(),
            map_ids: FxHashMap::default(),
            persist: Vec::new(),
            persist_ids: FxHashMap::default(),
            formats: Vec::new(),
            strings: Vec::new(),
            printf_args: None,
            targets: Vec::new(),
            scratch: Vec::new(),
            scratch_ids: FxHashMap::default(),
            assigned: Vec::new(),
        }
    }

    fn run(&mut self, program: &ast::Program<'_>) -> Vec<TBlock> {
        let mut seen: FxHashMap<&str, Span> = FxHashMap::default();
        for c in &program.config {
            if let Some(first) = seen.insert(c.key, c.key_span) {
                self.errors.push(Error::Duplicate {
                    span: c.key_span,
                    first,
                    message: format!("config key `{}` is set twice", c.key),
                });
                continue;
            }
            self.config_entry(c);
        }
        for d in &program.maps {
            self.map_decl(d);
        }
        program
            .blocks
            .iter()
            .filter_map(|b| self.block(b))
            .collect()
    }

    fn config_entry(&mut self, c: &ast::ConfigAst<'_>) {
        let Some((key, _)) = CONFIG_KEYS.iter().find(|(k, _)| *k == c.key) else {
            self.errors.push(Error::Config {
                span: c.key_span,
                message: format!("unknown config key `{}`", c.key),
            });
            return;
        };
        if *key == "print_maps_on_exit" {
            let on = match &c.value {
                ast::DeclValue::Size(n @ (0 | 1)) => Some(*n == 1),
                ast::DeclValue::Name(b) if b == "true" || b == "false" => Some(b == "true"),
                _ => None,
            };
            let Some(on) = on else {
                self.errors.push(Error::Config {
                    span: c.value_span,
                    message: "config `print_maps_on_exit` takes 0, 1, false or true".into(),
                });
                return;
            };
            self.config.push(ConfigEntry {
                key: c.key.to_string(),
                value: ConfigValue::Int(i64::from(on)),
            });
            return;
        }
        let size = match c.value {
            ast::DeclValue::Size(n) => u32::try_from(n).ok().filter(|n| *n > 0),
            _ => None,
        };
        // bpftrace's `max_map_keys`: enough slots for that many keys.
        let (key, size) = match (*key, size) {
            ("max_map_keys", Some(n)) => ("hash_keys", n.checked_next_power_of_two()),
            (k, s) => (k, s),
        };
        let size = match (size, key) {
            (Some(n), "hash_keys") if !n.is_power_of_two() => None,
            (s, _) => s,
        };
        let Some(n) = size else {
            let what = match c.key {
                "hash_keys" => "a power of two",
                "max_map_keys" => "a size from 1 to 2147483648",
                _ => "a size from 1 to 4294967295",
            };
            self.errors.push(Error::Config {
                span: c.value_span,
                message: format!("config `{key}` takes {what}"),
            });
            return;
        };
        match key {
            "hash_keys" => self.defaults.hash = n,
            "ring_capacity" => self.defaults.ring = n,
            _ => self.defaults.printf = n,
        }
        self.config.push(ConfigEntry {
            key: c.key.to_string(),
            value: ConfigValue::Int(i64::from(n)),
        });
    }

    fn block(&mut self, block: &ast::Block<'_>) -> Option<TBlock> {
        let mut targets = Vec::new();
        self.targets.clear();
        self.scratch.clear();
        self.scratch_ids.clear();
        self.assigned.clear();
        for a in &block.attaches {
            let target = match names::interval(&a.parts) {
                Err(why) => {
                    self.errors.push(Error::BadInterval { span: a.span, why });
                    continue;
                }
                Ok(Some(event)) => Some(Target::Host(event)),
                Ok(None) => names::attach_point(&a.parts),
            };
            let Some(mut target) = target else {
                self.errors.push(Error::UnknownAttach {
                    span: a.span,
                    name: a.text(),
                });
                continue;
            };
            let mut ok = true;
            if let Some(span) = a.warp {
                match &mut target {
                    Target::Device(spec) => spec.granularity = Granularity::Warp,
                    Target::Host(_) => ok = self.bad_modifier(span, "warp", a),
                }
            }
            if let Some(span) = a.after {
                match &mut target {
                    Target::Device(spec) if spec.point.has_instruction() => {
                        spec.position = Position::After;
                    }
                    _ => ok = self.bad_modifier(span, "after", a),
                }
            }
            if ok {
                self.targets.push((a.text(), target.clone()));
                targets.push((target, a.span));
            }
        }
        let predicate = block
            .predicate
            .as_ref()
            .map(|p| self.cond_expr(p, "a predicate"));
        let body = self.stmts(&block.body);
        // A device probe's printf, and a launch:* block's (it runs in the traced process),
        // go through the printf ring.
        if self.targets.iter().any(|(_, t)| {
            matches!(
                t,
                Target::Device(_)
                    | Target::Host(
                        warptrace_ir::HostEvent::LaunchBegin | warptrace_ir::HostEvent::LaunchEnd
                    )
            )
        }) {
            let args = max_printf_args(&body);
            if let Some(n) = args {
                self.printf_args = Some(self.printf_args.unwrap_or(0).max(n));
            }
        }
        Some(TBlock {
            targets,
            predicate: predicate.map_or(Some(None), |p| p.map(Some))?,
            body: body?,
            end: block.end,
        })
    }

    fn bad_modifier(&mut self, span: Span, modifier: &'static str, a: &ast::Attach<'_>) -> bool {
        self.errors.push(Error::ModifierNotValid {
            span,
            modifier,
            attach: a.text.to_string(),
        });
        false
    }

    /// Statements; `None` if any failed (errors are recorded).
    fn stmts(&mut self, stmts: &[Stmt<'_>]) -> Option<Vec<TStmt>> {
        self.each(stmts, Self::stmt)
    }

    /// `check` of every item, so that each one's errors are recorded; `None` if any failed.
    fn each<T, U>(
        &mut self,
        items: &[T],
        mut check: impl FnMut(&mut Self, &T) -> Option<U>,
    ) -> Option<Vec<U>> {
        let mut checked = Vec::with_capacity(items.len());
        let mut ok = true;
        for item in items {
            match check(self, item) {
                Some(u) => checked.push(u),
                None => ok = false,
            }
        }
        ok.then_some(checked)
    }

    fn stmt(&mut self, stmt: &Stmt<'_>) -> Option<TStmt> {
        match stmt {
            Stmt::Assign {
                target,
                value,
                span,
            } => match target {
                AstTarget::Scratch(name, at) => self.set_scratch(name, *at, value, *span),
                AstTarget::Persist(name, at) => self.set_persist(name, *at, value, *span),
                AstTarget::Map(map) => self.map_write(map, value, *span),
            },
            Stmt::Call { call, span } => self.call_stmt(call, *span),
            Stmt::If {
                cond,
                then,
                els,
                span,
            } => {
                let cond = self.cond_expr(cond, "a condition");
                let before = self.assigned.clone();
                let then = self.stmts(then);
                let after_then = std::mem::replace(&mut self.assigned, before);
                let els = self.stmts(els);
                // Set after the `if` only if set on both paths.
                self.assigned.resize(self.scratch.len(), false);
                for (i, a) in self.assigned.iter_mut().enumerate() {
                    *a = *a && after_then.get(i).copied().unwrap_or(false);
                }
                Some(TStmt::If {
                    cond: cond?,
                    then: then?,
                    els: els?,
                    span: *span,
                })
            }
            Stmt::Unroll { count, body, .. } => {
                let n = self.expr(count);
                let body = self.stmts(body);
                let n = n?;
                let times = n
                    .constant()
                    .filter(|c| (1..=MAX_UNROLL).contains(c))
                    .and_then(|c| u32::try_from(c).ok());
                let Some(times) = times else {
                    self.errors.push(Error::Unroll { span: count.span });
                    return None;
                };
                Some(TStmt::Unroll {
                    count: times,
                    body: body?,
                })
            }
            Stmt::For {
                var,
                var_span,
                from,
                to,
                body,
                span,
            } => {
                let bounds = self.expr(from).zip(self.expr(to));
                let (a, b) = bounds?;
                let range = a
                    .constant()
                    .zip(b.constant())
                    .filter(|(a, b)| b.saturating_sub(*a) <= MAX_UNROLL);
                let Some((a, b)) = range else {
                    self.errors.push(Error::Range {
                        span: from.span.to(to.span),
                    });
                    return None;
                };
                // `$var` holds each value in turn: typed by the first, set before the body.
                let at = |v: i64| crate::ast::Expr {
                    kind: crate::ast::ExprKind::Int(v),
                    span: from.span,
                };
                let first = self.set_scratch(var, *var_span, &at(a), *span)?;
                let TStmt::SetScratch { var: id, .. } = first else {
                    return None;
                };
                let mut values = Vec::new();
                for v in a..b {
                    values.push(self.value_expr(&at(v))?);
                }
                let body = self.stmts(body)?;
                Some(TStmt::Range {
                    var: id,
                    values,
                    body,
                    span: *span,
                })
            }
        }
    }

    fn set_scratch(&mut self, name: &str, at: Span, value: &Expr<'_>, span: Span) -> Option<TStmt> {
        let v = self.value_expr(value)?;
        let var = match self.scratch_ids.get(name) {
            Some(&var) => var,
            None => {
                let var = u32::try_from(self.scratch.len()).ok()?;
                self.scratch.push(ScratchVar {
                    ty: v.ty,
                    first: at,
                });
                self.scratch_ids.insert(name.to_string(), var);
                var
            }
        };
        let fixed = self.scratch.get(var as usize)?;
        let (ty, first) = (fixed.ty, fixed.first);
        let value = self.assignable(v, ty, first, format_args!("${name}"))?;
        if self.assigned.len() <= var as usize {
            self.assigned.resize(var as usize + 1, false);
        }
        if let Some(a) = self.assigned.get_mut(var as usize) {
            *a = true;
        }
        Some(TStmt::SetScratch { var, value, span })
    }

    fn set_persist(&mut self, name: &str, at: Span, value: &Expr<'_>, span: Span) -> Option<TStmt> {
        let v = self.value_expr(value);
        self.device_only(at, format_args!("persistent register `%{name}`"))?;
        let v = v?;
        let slot = self.persist_slot(name);
        let entry = self.persist.get_mut(slot)?;
        let (ty, first) = *entry.ty.get_or_insert((v.ty, at));
        let value = self.assignable(v, ty, first, format_args!("%{name}"))?;
        Some(TStmt::SetPersist {
            slot: PersistId(u32::try_from(slot).ok()?),
            value,
            span,
        })
    }

    fn persist_slot(&mut self, name: &str) -> usize {
        if let Some(&slot) = self.persist_ids.get(name) {
            return slot;
        }
        self.persist.push(PersistVar {
            name: name.to_string(),
            ty: None,
        });
        self.persist_ids
            .insert(name.to_string(), self.persist.len() - 1);
        self.persist.len() - 1
    }

    /// `value` converted to a variable's fixed type `ty`: the same type, or a literal
    /// that fits.
    /// (`name` is only formatted for the error.)
    fn assignable(
        &mut self,
        value: TExpr,
        ty: Ty,
        first: Span,
        name: impl std::fmt::Display,
    ) -> Option<TExpr> {
        if value.ty == ty {
            return Some(value);
        }
        if let Some(v) = value.constant().filter(|v| value.literal && ty.holds(*v)) {
            return Some(TExpr {
                kind: crate::typed::TKind::Const(v),
                ty,
                ..value
            });
        }
        self.errors.push(Error::TypeMismatch {
            span: value.span,
            first,
            name: name.to_string(),
            expected: ty.name(),
            found: value.ty.name(),
        });
        None
    }

    /// Records an error for each host block among the targets; `None` if there was one.
    fn device_only(&mut self, span: Span, what: impl std::fmt::Display) -> Option<()> {
        let errors: Vec<Error> = self
            .targets
            .iter()
            .filter(|(_, t)| matches!(t, Target::Host(_)))
            .map(|(text, _)| Error::DeviceOnly {
                span,
                what: what.to_string(),
                attach: text.clone(),
            })
            .collect();
        let ok = errors.is_empty();
        self.errors.extend(errors);
        ok.then_some(())
    }

    /// Records an error for each device probe among the targets; `None` if there was one.
    fn host_only(&mut self, span: Span, name: &str) -> Option<()> {
        let errors: Vec<Error> = self
            .targets
            .iter()
            .filter(|(_, t)| {
                // launch:* blocks run in the traced process, once a launch: they update
                // maps and printf, and leave printing and stopping to the CLI's blocks.
                matches!(
                    t,
                    Target::Device(_)
                        | Target::Host(
                            warptrace_ir::HostEvent::LaunchBegin
                                | warptrace_ir::HostEvent::LaunchEnd
                        )
                )
            })
            .map(|(text, _)| Error::HostOnly {
                span,
                name: name.to_string(),
                attach: text.clone(),
            })
            .collect();
        let ok = errors.is_empty();
        self.errors.extend(errors);
        ok.then_some(())
    }

    /// A call as a statement: `printf`, `print`, `clear`, `zero`, `delete`, `exit`.
    fn call_stmt(&mut self, call: &Expr<'_>, span: Span) -> Option<TStmt> {
        let ExprKind::Call {
            name,
            name_span,
            args,
        } = &call.kind
        else {
            return None;
        };
        let Some(f) = names::function(name) else {
            self.errors.push(Error::UnknownFunction {
                span: *name_span,
                name: name.to_string(),
            });
            return None;
        };
        if f.is_aggregation() {
            self.errors.push(Error::AggregationInExpr {
                span: call.span,
                name: name.to_string(),
            });
            return None;
        }
        if f == Func::Printf {
            let (format, args) = self.printf(call.span, args)?;
            return Some(TStmt::Printf { format, args, span });
        }
        let host = self.host_only(*name_span, name);
        let op = self.host_op(f, call.span, args);
        host?;
        Some(TStmt::Host(op?, span))
    }

    fn host_op(&mut self, f: Func, span: Span, args: &[Expr<'_>]) -> Option<HostOp> {
        let name = names::function_name(f);
        let expected = match f {
            Func::Exit => "no arguments",
            Func::Print => "a map, then optionally top and div: `print(@m[, top[, div]])`",
            _ => "one argument",
        };
        match (f, args) {
            (Func::Exit, []) => return Some(HostOp::Exit),
            // bpftrace's `print(@m, top[, div])`.
            (Func::Print, [_, _] | [_, _, _]) => {}
            (Func::Exit, _) | (Func::Print, [] | [_, _, _, _, ..]) | (_, [] | [_, _, ..]) => {
                self.errors.push(Error::ArgCount {
                    span,
                    name: name.to_string(),
                    expected,
                    found: args.len(),
                });
                return None;
            }
            _ => {}
        }
        let Some(Expr {
            kind: ExprKind::Map(map),
            ..
        }) = args.first()
        else {
            let expected = if f == Func::Delete {
                "a map element, e.g. `delete(@m[k])`"
            } else {
                "a map, e.g. `print(@m)`"
            };
            self.errors.push(Error::BadArgument {
                span: args.first().map_or(span, |a| a.span),
                name,
                expected,
            });
            return None;
        };
        if f != Func::Delete && !map.keys.is_empty() {
            self.errors.push(Error::BadArgument {
                span: map.span,
                name,
                expected: "a whole map, without keys, e.g. `print(@m)`",
            });
            return None;
        }
        let id = self.map_ref(map, f == Func::Delete)?;
        // `top` and `div`: non-negative integer constants.
        let mut extra = args.iter().skip(1).map(|a| {
            let value = self.int_expr(a, "an argument of `print()`")?;
            match value.constant() {
                Some(n) if n >= 0 => Some(n as u64),
                _ => {
                    self.errors.push(Error::BadArgument {
                        span: a.span,
                        name,
                        expected: "top and div as non-negative integer constants, e.g. \
                                   `print(@m, 10, 1000)`",
                    });
                    None
                }
            }
        });
        let top = extra.next().unwrap_or(Some(0));
        let div = extra.next().unwrap_or(Some(0));
        let (top, div) = (top?, div?);
        Some(match f {
            Func::Print => HostOp::Print(id, top, div),
            Func::Clear => HostOp::Clear(id),
            Func::Zero => HostOp::Zero(id),
            _ => HostOp::Delete(id, self.each(&map.keys, Self::key_expr)?),
        })
    }

    /// Builds the program from the second pass's tables.
    fn finish(mut self, blocks: Vec<TBlock>) -> TProgram {
        let mut persistent: Vec<PersistDecl> = self
            .persist
            .iter()
            .map(|p| PersistDecl {
                name: p.name.clone(),
            })
            .collect();
        let cursors = self.array_cursors(&mut persistent);
        let mut maps: Vec<_> = self.maps.drain(..).map(|m| m.decl).collect();
        if let Some(args) = self.printf_args {
            maps.push(maps::printf_ring(&maps, args, self.defaults.printf));
        }
        TProgram {
            maps,
            persistent,
            formats: self.formats,
            strings: self.strings,
            config: self.config,
            cursors,
            blocks,
        }
    }

    /// A map key: any expression, or a string literal, whose key holds `kernel_id` of the
    /// string and prints as the string (`Program::strings`).
    fn key_expr(&mut self, e: &crate::ast::Expr<'_>) -> Option<TExpr> {
        let crate::ast::ExprKind::Str(text) = &e.kind else {
            return self.expr(e);
        };
        if !self.strings.iter().any(|s| s == text) {
            self.strings.push(text.clone());
        }
        Some(TExpr {
            kind: crate::typed::TKind::Const(warptrace_ir::kernel_id(text) as i64),
            ty: Ty::Str,
            span: e.span,
            literal: false,
        })
    }

    /// The format's id, the same for the same text.
    fn format_id(&mut self, text: &str) -> FormatId {
        let index = match self.formats.iter().position(|f| f == text) {
            Some(i) => i,
            None => {
                self.formats.push(text.to_string());
                self.formats.len() - 1
            }
        };
        FormatId(u32::try_from(index).unwrap_or(u32::MAX))
    }
}

/// The most arguments of any `printf` in these statements.
fn max_printf_args(stmts: &Option<Vec<TStmt>>) -> Option<u32> {
    fn walk(stmts: &[TStmt], most: &mut Option<u32>) {
        for s in stmts {
            match s {
                TStmt::Printf { args, .. } => {
                    let n = u32::try_from(args.len()).unwrap_or(u32::MAX);
                    *most = Some(most.unwrap_or(0).max(n));
                }
                TStmt::If { then, els, .. } => {
                    walk(then, most);
                    walk(els, most);
                }
                TStmt::Unroll { body, .. } | TStmt::Range { body, .. } => walk(body, most),
                _ => {}
            }
        }
    }
    let mut most = None;
    walk(stmts.as_deref().unwrap_or(&[]), &mut most);
    most
}
