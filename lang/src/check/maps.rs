//! Maps: declarations, writes (aggregations, values, records), references from host
//! operations, and the consistency of each map's keys and value across its uses.

use super::Checker;
use crate::ast::{self, DeclValue, Expr, ExprKind, MapRef, Span};
use crate::diag::Error;
use crate::hash::FxHashMap;
use crate::names::{self, Func};
use crate::typed::{TAgg, TExpr, TStmt, Ty};
use warptrace_ir::{
    Granularity, KeyType, MapDecl, MapId, MapKind, Overflow, Per, PersistDecl, PersistId, ValueKind,
};

/// The most buckets an `lhist` may have.
const MAX_LHIST_BUCKETS: i128 = 1000;

/// Sizes of maps without a declaration (`config` may change them).
pub(super) struct Defaults {
    pub hash: u32,
    pub ring: u32,
    pub printf: u32,
}

impl Default for Defaults {
    fn default() -> Defaults {
        Defaults {
            hash: 4096,
            ring: 65536,
            printf: 65536,
        }
    }
}

/// A map and where its keys and value were fixed.
#[derive(Debug)]
pub(super) struct MapEntry {
    pub decl: MapDecl,
    /// Its declaration, if it has one.
    declared: Option<Span>,
    /// The first write's map reference, keys and value.
    map_span: Span,
    key_spans: Vec<Span>,
    value_span: Span,
}

/// What a map assignment writes.
enum Write {
    Agg(TAgg, ValueKind),
    Value(TExpr),
    Record(Vec<TExpr>),
}

impl Checker<'_> {
    pub(super) fn map_decl(&mut self, d: &ast::MapDeclAst<'_>) {
        if let Some((_, first)) = self.decls.get(d.name) {
            self.errors.push(Error::Duplicate {
                span: d.name_span,
                first: *first,
                message: format!("map `@{}` is declared twice", d.name),
            });
            return;
        }
        let bad = |message: String, span: Span| Error::MapDecl { span, message };
        let params: &[&str] = match d.kind {
            "hash" => &["keys"],
            "array" => &["per", "slots"],
            "ring" => &["capacity", "overflow"],
            _ => {
                let message = format!("unknown map kind `{}`", d.kind);
                self.errors.push(bad(message, d.kind_span));
                return;
            }
        };
        let mut values: FxHashMap<&str, (&DeclValue, Span)> = FxHashMap::default();
        for a in &d.args {
            if !params.contains(&a.key) || values.contains_key(a.key) {
                let message = format!(
                    "`{}` is not a parameter of {} maps here (parameters: {})",
                    a.key,
                    d.kind,
                    params.join(", ")
                );
                self.errors.push(bad(message, a.key_span));
                return;
            }
            values.insert(a.key, (&a.value, a.value_span));
        }
        let size = |key: &str, default: u32| -> Result<u32, (String, Span)> {
            match values.get(key) {
                None => Ok(default),
                Some((DeclValue::Size(n), span)) => u32::try_from(*n)
                    .ok()
                    .filter(|n| *n > 0)
                    .ok_or_else(|| (format!("`{key}` must be from 1 to 4294967295"), *span)),
                Some((_, span)) => Err((format!("`{key}` takes a size"), *span)),
            }
        };
        let name =
            |key: &str, options: &[&'static str], default: &'static str| match values.get(key) {
                None => Ok(default),
                Some((DeclValue::Name(n), span)) => options
                    .iter()
                    .find(|o| **o == n.as_str())
                    .copied()
                    .ok_or_else(|| (format!("`{key}` is {}", options.join(" or ")), *span)),
                Some((_, span)) => Err((format!("`{key}` is {}", options.join(" or ")), *span)),
            };
        let kind = match d.kind {
            "hash" => size("keys", self.defaults.hash).and_then(|capacity| {
                if capacity.is_power_of_two() {
                    Ok(MapKind::Hash { capacity })
                } else {
                    let span = values.get("keys").map_or(d.span, |v| v.1);
                    Err(("`keys` must be a power of two".to_string(), span))
                }
            }),
            "array" => name("per", &["thread", "warp"], "thread").and_then(|per| {
                let slots = size("slots", 1)?;
                let per = if per == "warp" {
                    Per::Warp
                } else {
                    Per::Thread
                };
                Ok(MapKind::Array { per, slots })
            }),
            _ => size("capacity", self.defaults.ring).and_then(|capacity| {
                let overflow = name("overflow", &["drop", "overwrite"], "drop")?;
                let overflow = if overflow == "drop" {
                    Overflow::Drop
                } else {
                    Overflow::Overwrite
                };
                Ok(MapKind::Ring { capacity, overflow })
            }),
        };
        match kind {
            Ok(kind) => {
                self.decls.insert(d.name.to_string(), (kind, d.name_span));
            }
            Err((message, span)) => self.errors.push(bad(message, span)),
        }
    }

    /// `@m[keys] = value`: an aggregation, a value or a record.
    pub(super) fn map_write(
        &mut self,
        map: &MapRef<'_>,
        value: &Expr<'_>,
        span: Span,
    ) -> Option<TStmt> {
        let keys = self.each(&map.keys, Self::key_expr);
        let write = match &value.kind {
            ExprKind::Call { name, args, .. }
                if names::function(name).is_some_and(|f| f.is_aggregation()) =>
            {
                let f = names::function(name)?;
                self.aggregation(map.name, f, value.span, args)
                    .map(|(agg, kind)| Write::Agg(agg, kind))
            }
            ExprKind::Tuple(fields) => self.each(fields, Self::expr).map(Write::Record),
            _ => self.value_expr(value).map(Write::Value),
        };
        let keys = keys?;
        let write = write?;
        let kind = match self.map_ids.get(map.name).and_then(|&i| self.maps.get(i)) {
            Some(m) => m.decl.kind,
            None => match (self.decls.get(map.name), &write) {
                (Some((kind, _)), _) => *kind,
                (None, Write::Record(_)) => MapKind::Ring {
                    capacity: self.defaults.ring,
                    overflow: Overflow::Drop,
                },
                (None, _) => MapKind::Hash {
                    capacity: self.defaults.hash,
                },
            },
        };
        let declared = self.decls.get(map.name).map(|d| d.1);
        let kind_error = |what, hint| Error::MapKind {
            span: value.span,
            declared,
            name: map.name.to_string(),
            kind: kind_name(&kind),
            what,
            hint,
        };
        let is_hash = matches!(kind, MapKind::Hash { .. });
        let (write, value_kind) = match write {
            Write::Agg(..) if !is_hash => {
                self.errors.push(kind_error(
                    "it holds records, not aggregations",
                    "aggregations need a hash map; assign a record instead, e.g. `@m = (clock64, smid)`",
                ));
                return None;
            }
            Write::Record(_) if is_hash => {
                self.errors.push(kind_error(
                    "it cannot hold a record",
                    "declare a ring or an array for records, e.g. `map @m: ring(capacity = 1M);`",
                ));
                return None;
            }
            Write::Agg(agg, kind) => (Write::Agg(agg, kind.clone()), kind),
            Write::Value(v) if is_hash => {
                let v = self.adapt_to_map(map.name, v, 0);
                let kind = ValueKind::Value {
                    signed: v.ty.is_signed(),
                };
                if v.ty == Ty::Kernel {
                    self.errors.push(Error::KernelNotInt {
                        span: v.span,
                        context: "a map value".into(),
                    });
                    return None;
                }
                (Write::Value(v), kind)
            }
            Write::Value(v) => (Write::Record(vec![v]), ValueKind::Record(vec![])),
            Write::Record(f) => (Write::Record(f), ValueKind::Record(vec![])),
        };
        let (write, value_kind) = match write {
            Write::Record(fields) => {
                if !keys.is_empty() {
                    self.errors.push(Error::MapKind {
                        span: map.span,
                        declared,
                        name: map.name.to_string(),
                        kind: kind_name(&kind),
                        what: "records take no keys",
                        hint: "write `@m = (a, b, ...)`",
                    });
                    return None;
                }
                self.device_only(value.span, "a record write")?;
                let per_thread = self.targets.iter().any(|(_, t)| {
                    matches!(t, names::Target::Device(s) if s.granularity == Granularity::Thread)
                });
                if matches!(kind, MapKind::Array { per: Per::Warp, .. }) && per_thread {
                    self.errors.push(Error::MapKind {
                        span: map.span,
                        declared,
                        name: map.name.to_string(),
                        kind: "per-warp array",
                        what: "it holds one record per warp, but this probe runs in every lane",
                        hint: "save it from a `warp` probe (`warp kernel:entry { @m = (clock64); }`), \
                               or declare `array(per = thread)`",
                    });
                    return None;
                }
                let fields: Vec<TExpr> = fields
                    .into_iter()
                    .enumerate()
                    .map(|(i, f)| self.adapt_to_map(map.name, f, i))
                    .collect();
                let kind = ValueKind::Record(fields.iter().map(|f| f.ty.key_type()).collect());
                (Write::Record(fields), kind)
            }
            w => (w, value_kind),
        };
        let id = self.map_use(map, &keys, kind, value_kind, declared, value.span)?;
        Some(match write {
            Write::Agg(agg, _) => TStmt::Update {
                map: id,
                keys,
                agg,
                span,
            },
            Write::Value(v) => TStmt::Update {
                map: id,
                keys,
                agg: TAgg::Assign(v),
                span,
            },
            Write::Record(fields) => TStmt::Record {
                map: id,
                array: matches!(kind, MapKind::Array { .. }),
                fields,
                span,
            },
        })
    }

    /// The key types of a use of a map: a literal key takes the signedness of the key
    /// already there if it fits.
    fn key_types(&self, name: &str, keys: &[TExpr]) -> Vec<KeyType> {
        // (A miss here needs no `needs_prior`: maps are created in the same order in both
        // passes, so a map not created yet has no entry in `self.maps` at `Prior`'s index.)
        let known = self.map_ids.get(name).and_then(|&i| self.maps.get(i));
        let existing = known
            .or_else(|| {
                let i = self.prior.and_then(|p| p.maps.get(name))?;
                self.maps.get(*i)
            })
            .map(|m| m.decl.keys.as_slice())
            .unwrap_or(&[]);
        keys.iter()
            .enumerate()
            .map(|(i, k)| match (existing.get(i), k.constant()) {
                (Some(KeyType::Int { signed }), Some(v)) if k.literal => {
                    let ty = if *signed { Ty::I64 } else { Ty::U64 };
                    if ty.holds(v) {
                        KeyType::Int { signed: *signed }
                    } else {
                        k.ty.key_type()
                    }
                }
                _ => k.ty.key_type(),
            })
            .collect()
    }

    /// A literal written to an existing map takes the signedness of the value (or record
    /// field `index`) already there, if it fits.
    fn adapt_to_map(&self, name: &str, v: TExpr, index: usize) -> TExpr {
        let existing = self
            .map_ids
            .get(name)
            .and_then(|&i| self.maps.get(i))
            .map(|m| &m.decl.value);
        let signed = match existing {
            Some(ValueKind::Record(fields)) => match fields.get(index) {
                Some(KeyType::Int { signed }) => *signed,
                _ => return v,
            },
            Some(
                ValueKind::Sum { signed }
                | ValueKind::Min { signed }
                | ValueKind::Max { signed }
                | ValueKind::Avg { signed }
                | ValueKind::Stats { signed }
                | ValueKind::Value { signed },
            ) => *signed,
            _ => return v,
        };
        let ty = if signed { Ty::I64 } else { Ty::U64 };
        match v.constant() {
            Some(c) if v.literal && v.ty != ty && ty.holds(c) => TExpr { ty, ..v },
            _ => v,
        }
    }

    /// `count()`, `sum(x)`, …, `lhist(x, min, max, step)` and the value kind it makes.
    fn aggregation(
        &mut self,
        map: &str,
        f: Func,
        span: Span,
        args: &[Expr<'_>],
    ) -> Option<(TAgg, ValueKind)> {
        let name = names::function_name(f);
        let expected = match f {
            Func::Count => "no arguments",
            Func::Lhist => "four arguments",
            _ => "one argument",
        };
        let arity = match f {
            Func::Count => 0,
            Func::Lhist => 4,
            _ => 1,
        };
        if args.len() != arity {
            self.errors.push(Error::ArgCount {
                span,
                name: name.to_string(),
                expected,
                found: args.len(),
            });
            return None;
        }
        let Some(x) = args.first() else {
            return Some((TAgg::Count, ValueKind::Count));
        };
        let x = match f {
            Func::Sum => self.int_expr(x, "summed"),
            _ => self.int_expr(x, format_args!("an argument of `{name}()`")),
        };
        let bounds = if f == Func::Lhist {
            Some(self.lhist_bounds(span, args.get(1..).unwrap_or(&[]))?)
        } else {
            None
        };
        let x = self.adapt_to_map(map, x?, 0);
        let signed = x.ty.is_signed();
        Some(match f {
            Func::Sum => (TAgg::Sum(x), ValueKind::Sum { signed }),
            Func::Min => (TAgg::Min(x), ValueKind::Min { signed }),
            Func::Max => (TAgg::Max(x), ValueKind::Max { signed }),
            Func::Avg => (TAgg::Avg(x), ValueKind::Avg { signed }),
            Func::Stats => (TAgg::Stats(x), ValueKind::Stats { signed }),
            Func::Hist => (TAgg::Hist(x), ValueKind::Hist),
            _ => {
                let (min, max, step) = bounds?;
                (TAgg::Lhist(x), ValueKind::Lhist { min, max, step })
            }
        })
    }

    fn lhist_bounds(&mut self, span: Span, args: &[Expr<'_>]) -> Option<(i64, i64, i64)> {
        let mut values = Vec::new();
        for a in args {
            let v = self.int_expr(a, "an lhist bound")?;
            let Some(c) = v.constant() else {
                self.errors.push(Error::Lhist {
                    span: a.span,
                    message: "min, max and step must be integer constants".into(),
                });
                return None;
            };
            values.push(c);
        }
        let [min, max, step] = values[..] else {
            return None;
        };
        let message = if step <= 0 {
            "step must be positive".to_string()
        } else if min >= max {
            "min must be below max".to_string()
        } else if (i128::from(max) - i128::from(min)) % i128::from(step) != 0 {
            "max - min must be a multiple of step".to_string()
        } else if (i128::from(max) - i128::from(min)) / i128::from(step) > MAX_LHIST_BUCKETS {
            format!("at most {MAX_LHIST_BUCKETS} buckets")
        } else {
            return Some((min, max, step));
        };
        self.errors.push(Error::Lhist { span, message });
        None
    }

    /// Fixes a map's kind, keys and value at its first write; checks them at later ones.
    fn map_use(
        &mut self,
        map: &MapRef<'_>,
        keys: &[TExpr],
        kind: MapKind,
        value: ValueKind,
        declared: Option<Span>,
        value_span: Span,
    ) -> Option<MapId> {
        let key_types = self.key_types(map.name, keys);
        let Some(&index) = self.map_ids.get(map.name) else {
            let index = self.maps.len();
            self.maps.push(MapEntry {
                decl: MapDecl {
                    name: map.name.to_string(),
                    kind,
                    keys: key_types,
                    value,
                },
                declared,
                map_span: map.span,
                key_spans: keys.iter().map(|k| k.span).collect(),
                value_span,
            });
            self.map_ids.insert(map.name.to_string(), index);
            return map_id(index);
        };
        let first = self.maps.get(index)?;
        let error = if let Some(e) = keys_error(first, map, keys, &key_types) {
            Some(e)
        } else if first.decl.value != value {
            Some(Error::MapValue {
                span: value_span,
                first: first.value_span,
                name: map.name.to_string(),
                expected: value_name(&first.decl.value),
                found: value_name(&value),
            })
        } else {
            None
        };
        match error {
            Some(e) => {
                self.errors.push(e);
                None
            }
            None => map_id(index),
        }
    }

    /// A map named by `print`, `clear`, `zero` or `delete` (with its keys).
    pub(super) fn map_ref(&mut self, map: &MapRef<'_>, with_keys: bool) -> Option<MapId> {
        let index = self.map_ids.get(map.name).copied();
        self.needs_prior |= index.is_none();
        let index = index.or_else(|| self.prior.and_then(|p| p.maps.get(map.name)).copied());
        let Some(index) = index else {
            let mut names: Vec<String> = self.map_ids.keys().map(|n| format!("@{n}")).collect();
            if let Some(p) = self.prior {
                names.extend(p.maps.keys().map(|n| format!("@{n}")));
            }
            names.sort();
            names.dedup();
            let known = if names.is_empty() {
                "no statement of this program writes a map".to_string()
            } else {
                format!("maps written by this program: {}", names.join(", "))
            };
            self.errors.push(Error::UnknownMap {
                span: map.span,
                name: map.name.to_string(),
                known,
            });
            return None;
        };
        if with_keys {
            let keys: Vec<TExpr> = map
                .keys
                .iter()
                .map(|k| self.key_expr(k))
                .collect::<Option<_>>()?;
            let key_types = self.key_types(map.name, &keys);
            if let Some(first) = self.maps.get(index) {
                if !matches!(first.decl.kind, MapKind::Hash { .. }) {
                    self.errors.push(Error::MapKind {
                        span: map.span,
                        declared: first.declared,
                        name: map.name.to_string(),
                        kind: kind_name(&first.decl.kind),
                        what: "delete() removes keys of hash maps",
                        hint: "clear() empties a ring or an array",
                    });
                    return None;
                }
                if let Some(e) = keys_error(first, map, &keys, &key_types) {
                    self.errors.push(e);
                    return None;
                }
            }
        }
        map_id(index)
    }

    /// One persistent register per array map, holding the thread's next slot; named
    /// `<map>_slot` (with a numeric suffix if a register already has the name).
    pub(super) fn array_cursors(
        &self,
        persistent: &mut Vec<PersistDecl>,
    ) -> FxHashMap<MapId, PersistId> {
        let mut cursors = FxHashMap::default();
        for (i, m) in self.maps.iter().enumerate() {
            if !matches!(m.decl.kind, MapKind::Array { .. }) {
                continue;
            }
            let base = format!("{}_slot", m.decl.name);
            let mut name = base.clone();
            let mut n = 1;
            while persistent.iter().any(|p| p.name == name) {
                name = format!("{base}{n}");
                n += 1;
            }
            let slot = PersistId(u32::try_from(persistent.len()).unwrap_or(u32::MAX));
            persistent.push(PersistDecl { name });
            if let Some(id) = map_id(i) {
                cursors.insert(id, slot);
            }
        }
        cursors
    }
}

/// The printf ring: `@printf` (or `@printf1`, … if taken), `args` words wide.
pub(super) fn printf_ring(maps: &[MapDecl], args: u32, capacity: u32) -> MapDecl {
    let mut name = "printf".to_string();
    let mut n = 1;
    while maps.iter().any(|m| m.name == name) {
        name = format!("printf{n}");
        n += 1;
    }
    MapDecl {
        name,
        kind: MapKind::Ring {
            capacity,
            overflow: Overflow::Drop,
        },
        keys: Vec::new(),
        value: ValueKind::Printf { args },
    }
}

/// A key-arity or key-type mismatch against the map's first write.
fn keys_error(
    first: &MapEntry,
    map: &MapRef<'_>,
    keys: &[TExpr],
    types: &[KeyType],
) -> Option<Error> {
    if first.decl.keys.len() != types.len() {
        return Some(Error::MapArity {
            span: map.span,
            first: first.map_span,
            name: map.name.to_string(),
            expected: first.decl.keys.len(),
            found: types.len(),
        });
    }
    let i = (0..types.len()).find(|&i| first.decl.keys.get(i) != types.get(i))?;
    Some(Error::MapKeyType {
        span: keys.get(i).map_or(map.span, |k| k.span),
        first: first.key_spans.get(i).copied().unwrap_or(first.map_span),
        name: map.name.to_string(),
        index: i + 1,
        expected: key_name(first.decl.keys.get(i)),
        found: key_name(types.get(i)),
    })
}

fn kind_name(kind: &MapKind) -> &'static str {
    match kind {
        MapKind::Hash { .. } => "hash",
        MapKind::Array { .. } => "array",
        MapKind::Ring { .. } => "ring",
    }
}

fn map_id(index: usize) -> Option<MapId> {
    u32::try_from(index).ok().map(MapId)
}

fn key_name(key: Option<&KeyType>) -> &'static str {
    match key {
        Some(KeyType::Kernel) => "kernel",
        Some(KeyType::Str) => "string",
        Some(KeyType::Int { signed: true }) => "i64",
        Some(KeyType::Int { signed: false }) => "u64",
        None => "missing",
    }
}

fn value_name(value: &ValueKind) -> String {
    let sign = |signed: &bool| if *signed { "i64" } else { "u64" };
    match value {
        ValueKind::Count => "count()".into(),
        ValueKind::Sum { signed } => format!("sum() of {}", sign(signed)),
        ValueKind::Min { signed } => format!("min() of {}", sign(signed)),
        ValueKind::Max { signed } => format!("max() of {}", sign(signed)),
        ValueKind::Avg { signed } => format!("avg() of {}", sign(signed)),
        ValueKind::Stats { signed } => format!("stats() of {}", sign(signed)),
        ValueKind::Hist => "hist()".into(),
        ValueKind::Lhist { min, max, step } => format!("lhist(x, {min}, {max}, {step})"),
        ValueKind::Value { signed } => format!("a value of {}", sign(signed)),
        ValueKind::Record(fields) => {
            let f: Vec<&str> = fields.iter().map(|k| key_name(Some(k))).collect();
            format!("a record ({})", f.join(", "))
        }
        ValueKind::Printf { .. } => "printf records".into(),
    }
}
