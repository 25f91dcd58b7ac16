//! One CSV table per map: a hash map's entries (one row per key, one per histogram
//! bucket), a ring's or array's records (one row per record, with where it was found and
//! the pid that wrote it), the printf ring's records (formatted, and their raw arguments).

use super::{ExportError, RunResults};
use crate::output::{average, KeyPart, Value};
use crate::report::{key_part, printf_text, store_output, MapReport};
use serde::Serialize;
use std::path::Path;
use warptrace_ir::{KeyType, MapDecl, MapId, MapKind, Per, ValueKind};

/// A column's name and what its cells hold.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Column {
    /// The header cell.
    pub name: String,
    /// What the cells hold.
    #[serde(rename = "type")]
    pub ty: ColumnType,
}

/// What a column's cells hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum ColumnType {
    /// An unsigned 64-bit integer, in decimal.
    U64,
    /// A signed 64-bit integer, in decimal.
    I64,
    /// A kernel's demangled name (`0x…` for an id no process named).
    Kernel,
    /// Text.
    Text,
}

/// A table: a header row of typed columns, then rows of cells (empty: no value, e.g. the
/// open end of a histogram's outer bucket, or the pid of a record no report attributes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Table {
    /// What the map is (`hash map @n: one row per key`), for the index.
    pub contents: String,
    /// The columns.
    pub columns: Vec<Column>,
    /// The rows, each as wide as `columns`.
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// The table as CSV text (header row first), quoted by the `csv` crate.
    #[cfg(test)]
    pub fn to_csv(&self) -> Result<String, csv::Error> {
        let mut w = csv::Writer::from_writer(Vec::new());
        self.write_rows(&mut w)?;
        let bytes = w
            .into_inner()
            .map_err(|e| csv::Error::from(e.into_error()))?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// Writes the table to `path` as CSV.
    pub fn write_csv(&self, path: &Path) -> Result<(), ExportError> {
        let err = |source| ExportError::Csv {
            path: path.to_path_buf(),
            source,
        };
        let mut w = csv::Writer::from_path(path).map_err(err)?;
        self.write_rows(&mut w).map_err(err)?;
        w.flush().map_err(|source| ExportError::Write {
            path: path.to_path_buf(),
            source,
        })
    }

    fn write_rows<W: std::io::Write>(&self, w: &mut csv::Writer<W>) -> Result<(), csv::Error> {
        w.write_record(self.columns.iter().map(|c| c.name.as_str()))?;
        for row in &self.rows {
            w.write_record(row)?;
        }
        Ok(())
    }
}

/// The file of map `name`: `<name>.csv`, `@.csv` for the anonymous map `@` (map names
/// are identifiers, so no other name can collide with it or with `summary.json`,
/// `index.json` and `trace.json`).
pub(crate) fn file_name(name: &str) -> String {
    if name.is_empty() {
        "@.csv".to_string()
    } else {
        format!("{name}.csv")
    }
}

/// The table of one map of `run`: a hash map from the host's store, a ring or array from
/// the report's records. `None` for an unknown map.
pub(crate) fn map_table(run: RunResults<'_>, decl: &MapDecl) -> Option<Table> {
    let id = run.program.maps.iter().position(|m| m.name == decl.name)?;
    let report_map = run.report.maps.iter().find(|m| m.name == decl.name);
    let empty = MapReport::default();
    let report_map = report_map.unwrap_or(&empty);
    match (&decl.kind, &decl.value) {
        (MapKind::Hash { .. }, _) => hash_table(run, decl, MapId(id as u32)),
        (_, ValueKind::Printf { args }) => Some(printf_table(run, decl, report_map, *args)),
        (_, ValueKind::Record(fields)) => Some(record_table(run, decl, report_map, fields)),
        // An aggregation on a ring or array does not compile; nothing to write.
        _ => None,
    }
}

/// The file of [`kernel_table`]: a hyphen, which no map name has, so it collides with no
/// map's file.
pub(crate) const KERNEL_TABLE_FILE: &str = "per-kernel.csv";

/// The hash maps keyed by the kernel alone with one number per key (`count`, `sum`,
/// `min`, `max`, assigned values), side by side: a `kernel` column, then one column per
/// map in declaration order; a row per kernel any of them has, in name order, a cell
/// empty where a map has no entry for the kernel. `None` with fewer than two such maps
/// (a single map's own table is the same).
pub(crate) fn kernel_table(run: RunResults<'_>) -> Option<Table> {
    let scalar = |v: &ValueKind| {
        matches!(
            v,
            ValueKind::Count
                | ValueKind::Sum { .. }
                | ValueKind::Min { .. }
                | ValueKind::Max { .. }
                | ValueKind::Value { .. }
        )
    };
    let maps: Vec<(usize, &MapDecl)> = run
        .program
        .maps
        .iter()
        .enumerate()
        .filter(|(_, d)| {
            matches!(d.kind, MapKind::Hash { .. })
                && d.keys == [KeyType::Kernel]
                && scalar(&d.value)
        })
        .collect();
    if maps.len() < 2 {
        return None;
    }
    let mut cells: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for (col, (id, _)) in maps.iter().enumerate() {
        let Some(out) = store_output(
            run.program,
            run.store,
            MapId(*id as u32),
            &run.report.kernels,
        ) else {
            continue;
        };
        for (keys, value) in &out.entries {
            let number = match value {
                Value::Count(c) => c.to_string(),
                Value::Int(n) | Value::Sum(n) | Value::Min(n) | Value::Max(n) => n.to_string(),
                _ => continue,
            };
            let kernel = keys.iter().map(cell).collect::<Vec<_>>().join(", ");
            cells
                .entry(kernel)
                .or_insert_with(|| vec![String::new(); maps.len()])[col] = number;
        }
    }
    let mut columns = vec![column("kernel", ColumnType::Kernel)];
    columns.extend(maps.iter().map(|(_, d)| {
        let ty = match d.value {
            ValueKind::Sum { signed }
            | ValueKind::Min { signed }
            | ValueKind::Max { signed }
            | ValueKind::Value { signed } => int_type(signed),
            _ => ColumnType::U64,
        };
        column(format!("@{}", d.name), ty)
    }));
    let rows = cells
        .into_iter()
        .map(|(kernel, values)| std::iter::once(kernel).chain(values).collect())
        .collect();
    let names: Vec<String> = maps.iter().map(|(_, d)| format!("@{}", d.name)).collect();
    Some(Table {
        contents: format!(
            "the maps keyed by kernel alone side by side ({}), one row per kernel",
            names.join(", ")
        ),
        columns,
        rows,
    })
}

fn column(name: impl Into<String>, ty: ColumnType) -> Column {
    Column {
        name: name.into(),
        ty,
    }
}

fn int_type(signed: bool) -> ColumnType {
    if signed {
        ColumnType::I64
    } else {
        ColumnType::U64
    }
}

fn key_type(t: &KeyType) -> ColumnType {
    match t {
        KeyType::Int { signed } => int_type(*signed),
        KeyType::Kernel => ColumnType::Kernel,
        KeyType::Str => ColumnType::Text,
    }
}

fn cell(k: &KeyPart) -> String {
    k.to_string()
}

fn bound(b: Option<i128>) -> String {
    b.map(|b| b.to_string()).unwrap_or_default()
}

/// A hash map: key columns `key0…`, then its value columns — `count`, `sum`, `min`, `max`
/// or `value`; `count,sum,avg` for avg and stats (avg truncated, as bpftrace prints it);
/// `min,max,count` per bucket for hist and lhist (inclusive bounds, empty where the
/// bucket is open, buckets from the first to the last non-empty one, as bpftrace's JSON
/// lists them). Rows in key order.
fn hash_table(run: RunResults<'_>, decl: &MapDecl, id: MapId) -> Option<Table> {
    let out = store_output(run.program, run.store, id, &run.report.kernels)?;
    let mut columns: Vec<Column> = decl
        .keys
        .iter()
        .enumerate()
        .map(|(i, t)| column(format!("key{i}"), key_type(t)))
        .collect();
    let (what, values): (&str, Vec<Column>) = match decl.value {
        ValueKind::Count => ("count()", vec![column("count", ColumnType::U64)]),
        ValueKind::Sum { signed } => ("sum()", vec![column("sum", int_type(signed))]),
        ValueKind::Min { signed } => ("min()", vec![column("min", int_type(signed))]),
        ValueKind::Max { signed } => ("max()", vec![column("max", int_type(signed))]),
        ValueKind::Value { signed } => ("assigned values", vec![column("value", int_type(signed))]),
        ValueKind::Avg { signed } | ValueKind::Stats { signed } => (
            if matches!(decl.value, ValueKind::Avg { .. }) {
                "avg()"
            } else {
                "stats()"
            },
            vec![
                column("count", ColumnType::U64),
                column("sum", int_type(signed)),
                column("avg", int_type(signed)),
            ],
        ),
        ValueKind::Hist | ValueKind::Lhist { .. } => (
            if decl.value == ValueKind::Hist {
                "hist()"
            } else {
                "lhist()"
            },
            vec![
                column("min", ColumnType::I64),
                column("max", ColumnType::I64),
                column("count", ColumnType::U64),
            ],
        ),
        ValueKind::Record(_) | ValueKind::Printf { .. } => return None,
    };
    columns.extend(values);
    let mut entries: Vec<&(Vec<KeyPart>, Value)> = out.entries.iter().collect();
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    let mut rows = Vec::new();
    for (keys, value) in entries {
        let key_cells = || keys.iter().map(cell).collect::<Vec<_>>();
        let mut push = |cells: Vec<String>| {
            let mut row = key_cells();
            row.extend(cells);
            rows.push(row);
        };
        match value {
            Value::Count(c) => push(vec![c.to_string()]),
            Value::Int(n) | Value::Sum(n) | Value::Min(n) | Value::Max(n) => {
                push(vec![n.to_string()])
            }
            Value::Avg { total, count } | Value::Stats { total, count } => push(vec![
                count.to_string(),
                total.to_string(),
                average(*total, *count).to_string(),
            ]),
            Value::Hist(_) | Value::Lhist(_) => {
                for (lo, hi, count) in value.bucket_rows() {
                    push(vec![bound(lo), bound(hi), count.to_string()]);
                }
            }
        }
    }
    let rows_are = if matches!(decl.value, ValueKind::Hist | ValueKind::Lhist { .. }) {
        "one row per bucket of each key"
    } else {
        "one row per key"
    };
    Some(Table {
        contents: format!("@{}: hash map of {what}, {rows_are}", decl.name),
        columns,
        rows,
    })
}

/// The columns saying where a record was found: `launch,index` (ring) or
/// `launch,block,warp|thread,slot` (array); `launch` is 0 unless the program reads the
/// `launch` builtin (the runtime writes the launch's number only then).
fn origin_columns(kind: &MapKind) -> Vec<Column> {
    let names: &[&str] = match kind {
        MapKind::Array { per: Per::Warp, .. } => &["launch", "block", "warp", "slot"],
        MapKind::Array {
            per: Per::Thread, ..
        } => &["launch", "block", "thread", "slot"],
        _ => &["launch", "index"],
    };
    names.iter().map(|n| column(*n, ColumnType::U64)).collect()
}

fn origin_cells(kind: &MapKind, origin: &crate::report::Origin) -> Vec<String> {
    use crate::report::Origin;
    match (kind, *origin) {
        (
            MapKind::Array { .. },
            Origin::Array {
                launch,
                block,
                row,
                slot,
            },
        ) => vec![
            launch.to_string(),
            block.to_string(),
            row.to_string(),
            slot.to_string(),
        ],
        (MapKind::Ring { .. }, Origin::Ring { launch, index }) => {
            vec![launch.to_string(), index.to_string()]
        }
        // A record whose origin does not match its map's kind: where is unknown.
        _ => vec![String::new(); origin_columns(kind).len()],
    }
}

/// The pid a process's own report attributes its records to (its one pid).
fn fallback_pid(run: RunResults<'_>) -> Option<u32> {
    match run.report.pids.as_slice() {
        [one] => Some(*one),
        _ => None,
    }
}

/// A ring or array of records: `pid`, the origin columns, then `field0…` typed as
/// declared (a `kernel` field as the kernel's name). Rows in the report's order (by pid,
/// then each process's order).
fn record_table(run: RunResults<'_>, decl: &MapDecl, map: &MapReport, fields: &[KeyType]) -> Table {
    let mut columns = vec![column("pid", ColumnType::U64)];
    columns.extend(origin_columns(&decl.kind));
    columns.extend(
        fields
            .iter()
            .enumerate()
            .map(|(i, t)| column(format!("field{i}"), key_type(t))),
    );
    let rows = map
        .records_by_pid(fallback_pid(run))
        .into_iter()
        .map(|(pid, r)| {
            let mut row = vec![pid.map(|p| p.to_string()).unwrap_or_default()];
            row.extend(origin_cells(&decl.kind, &r.origin));
            row.extend(fields.iter().enumerate().map(|(i, t)| {
                let word = r.fields.get(i).copied().unwrap_or(0);
                cell(&key_part(t, word, &run.report.kernels))
            }));
            row
        })
        .collect();
    let what = match decl.kind {
        MapKind::Array { per: Per::Warp, .. } => "per-warp array",
        MapKind::Array { .. } => "per-thread array",
        _ => "ring",
    };
    Table {
        contents: format!("@{}: {what} of records, one row per record", decl.name),
        columns,
        rows,
    }
}

/// The printf ring: `pid,launch,index`, the formatted `text` (as printed), then the raw
/// argument words `arg0…` (unused ones 0).
fn printf_table(run: RunResults<'_>, decl: &MapDecl, map: &MapReport, args: u32) -> Table {
    let mut columns = vec![column("pid", ColumnType::U64)];
    columns.extend(origin_columns(&decl.kind));
    columns.push(column("text", ColumnType::Text));
    columns.extend((0..args).map(|i| column(format!("arg{i}"), ColumnType::U64)));
    let rows = map
        .records_by_pid(fallback_pid(run))
        .into_iter()
        .map(|(pid, r)| {
            let mut row = vec![pid.map(|p| p.to_string()).unwrap_or_default()];
            row.extend(origin_cells(&decl.kind, &r.origin));
            let (format, words) = r
                .fields
                .split_first()
                .map_or((u64::MAX, &[][..]), |(f, a)| (*f, a));
            let fmt = usize::try_from(format)
                .ok()
                .and_then(|f| run.program.formats.get(f))
                .map_or("", String::as_str);
            row.push(printf_text(fmt, words, &run.report.kernels));
            row.extend((0..args as usize).map(|i| words.get(i).copied().unwrap_or(0).to_string()));
            row
        })
        .collect();
    Table {
        contents: format!("@{}: the printf ring, one row per printf", decl.name),
        columns,
        rows,
    }
}
