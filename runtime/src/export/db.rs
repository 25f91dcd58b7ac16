//! `--db FILE` (and `-o DIR`'s `run.db`): a run in an SQLite analysis database whose
//! tables are normalized for lookups and whose views answer the common questions
//! without hand-written SQL (`docs/analysis-db.md`, issue 39's first part).
//!
//! Invariant: one call appends one run; every row it writes carries the run's id, so a
//! file holds many runs apart, and a run is written in one transaction, so a reader never
//! sees half of one. The values are those `-o DIR`'s CSV tables hold: hash maps from the
//! host's store once `end` has run, records from the merged report.

use super::{ExportError, RunResults};
use crate::output::{KeyPart, Number, Value};
use crate::report::{demangle, key_part, store_output, KernelState, Origin};
use rusqlite::types::Value as Sql;
use rusqlite::{params, Connection, Transaction};
use std::path::Path;
use warptrace_ir::{MapId, MapKind, Per, ValueKind};

/// The schema, created when missing. `PRAGMA user_version` holds its version.
const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS run (
  id INTEGER PRIMARY KEY, started TEXT NOT NULL, command TEXT NOT NULL,
  warptrace TEXT NOT NULL, program TEXT NOT NULL, program_hash TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS process (
  run INTEGER NOT NULL REFERENCES run(id), pid INTEGER NOT NULL,
  launches_probed INTEGER NOT NULL, launches_unprobed INTEGER NOT NULL,
  PRIMARY KEY (run, pid));
CREATE TABLE IF NOT EXISTS kernel (
  run INTEGER NOT NULL REFERENCES run(id), name TEXT NOT NULL, demangled TEXT NOT NULL,
  instrumented INTEGER NOT NULL, sites INTEGER, skipped TEXT, detail TEXT,
  launches_probed INTEGER NOT NULL, launches_unprobed INTEGER NOT NULL,
  PRIMARY KEY (run, name));
CREATE TABLE IF NOT EXISTS map (
  run INTEGER NOT NULL REFERENCES run(id), id INTEGER NOT NULL, name TEXT NOT NULL,
  kind TEXT NOT NULL, value TEXT NOT NULL, keys TEXT NOT NULL,
  drops INTEGER NOT NULL, lost INTEGER NOT NULL, PRIMARY KEY (run, id));
CREATE TABLE IF NOT EXISTS entry (
  run INTEGER NOT NULL, map INTEGER NOT NULL, entry INTEGER NOT NULL,
  key TEXT NOT NULL, key0, key1, key2, value, count INTEGER, total,
  PRIMARY KEY (run, map, entry), FOREIGN KEY (run, map) REFERENCES map(run, id));
CREATE TABLE IF NOT EXISTS bucket (
  run INTEGER NOT NULL, map INTEGER NOT NULL, entry INTEGER NOT NULL,
  lo INTEGER, hi INTEGER, count INTEGER NOT NULL,
  FOREIGN KEY (run, map, entry) REFERENCES entry(run, map, entry));
CREATE TABLE IF NOT EXISTS record (
  run INTEGER NOT NULL, map INTEGER NOT NULL, seq INTEGER NOT NULL, pid INTEGER,
  launch INTEGER, place TEXT NOT NULL, fields TEXT NOT NULL,
  PRIMARY KEY (run, map, seq), FOREIGN KEY (run, map) REFERENCES map(run, id));
CREATE VIEW IF NOT EXISTS per_kernel AS
  SELECT k.run, k.demangled AS kernel, k.instrumented, k.skipped, k.launches_probed,
         k.launches_unprobed,
         (SELECT json_group_object('@' || m.name, e.value)
            FROM entry e JOIN map m ON m.run = e.run AND m.id = e.map
           WHERE e.run = k.run AND m.keys = 'kernel' AND e.key = k.demangled
             AND e.value IS NOT NULL) AS maps
    FROM kernel k;
CREATE VIEW IF NOT EXISTS hist_buckets AS
  SELECT b.run, '@' || m.name AS map, e.key, b.lo, b.hi, b.count
    FROM bucket b JOIN entry e ON e.run = b.run AND e.map = b.map AND e.entry = b.entry
    JOIN map m ON m.run = b.run AND m.id = b.map;
CREATE VIEW IF NOT EXISTS map_values AS
  SELECT e.run, '@' || m.name AS map, e.key, e.value, e.count, e.total
    FROM entry e JOIN map m ON m.run = e.run AND m.id = e.map;
PRAGMA user_version = 1;
";

/// What the run was, beside its results.
#[derive(Debug, Clone)]
pub struct RunMeta<'a> {
    /// When tracing started, in seconds since the Unix epoch (stored as RFC 3339, UTC).
    pub started: u64,
    /// The traced command and its arguments.
    pub command: &'a [String],
    /// The probe program's source.
    pub source: &'a str,
}

/// Appends the run to the database at `path` (created with the schema if missing) and
/// returns its id.
pub fn write_db(path: &Path, run: RunResults<'_>, meta: &RunMeta<'_>) -> Result<i64, ExportError> {
    let fail = |source: rusqlite::Error| ExportError::Db {
        path: path.to_path_buf(),
        source,
    };
    let mut db = Connection::open(path).map_err(fail)?;
    db.execute_batch(SCHEMA).map_err(fail)?;
    let tx = db.transaction().map_err(fail)?;
    let id = write_run(&tx, run, meta).map_err(fail)?;
    tx.commit().map_err(fail)?;
    Ok(id)
}

fn number(n: Number) -> Sql {
    match n {
        Number::Signed(v) => Sql::Integer(v),
        Number::Unsigned(v) => match i64::try_from(v) {
            Ok(v) => Sql::Integer(v),
            // SQLite's integers are 64-bit signed: a larger one keeps its digits.
            Err(_) => Sql::Text(v.to_string()),
        },
    }
}

/// A count or an unsigned value.
fn u(v: u64) -> Sql {
    number(Number::Unsigned(v))
}

fn key(k: &KeyPart) -> Sql {
    match k {
        KeyPart::Int(v) => Sql::Integer(*v),
        KeyPart::UInt(v) => number(Number::Unsigned(*v)),
        KeyPart::Str(s) => Sql::Text(s.to_string()),
    }
}

fn bound(b: Option<i128>) -> Sql {
    b.and_then(|b| i64::try_from(b).ok())
        .map_or(Sql::Null, Sql::Integer)
}

fn write_run(
    tx: &Transaction<'_>,
    run: RunResults<'_>,
    meta: &RunMeta<'_>,
) -> rusqlite::Result<i64> {
    let (program, report) = (run.program, run.report);
    tx.execute(
        "INSERT INTO run (started, command, warptrace, program, program_hash) \
         VALUES (strftime('%Y-%m-%dT%H:%M:%SZ', ?, 'unixepoch'), ?, ?, ?, ?)",
        params![
            u(meta.started),
            meta.command.join(" "),
            env!("CARGO_PKG_VERSION"),
            meta.source,
            warptrace_verifier::program_hash(program),
        ],
    )?;
    let id = tx.last_insert_rowid();
    let processes: Vec<(u32, u64, u64)> = match report.processes.as_slice() {
        [] => report
            .pids
            .iter()
            .map(|&p| {
                (
                    p,
                    report.summary.launches_probed,
                    report.summary.launches_unprobed,
                )
            })
            .collect(),
        ps => ps
            .iter()
            .map(|p| {
                (
                    p.pid,
                    p.summary.launches_probed,
                    p.summary.launches_unprobed,
                )
            })
            .collect(),
    };
    for (pid, probed, unprobed) in processes {
        tx.execute(
            "INSERT OR IGNORE INTO process VALUES (?, ?, ?, ?)",
            params![id, pid, u(probed), u(unprobed)],
        )?;
    }
    for k in &report.kernel_status {
        let (instrumented, sites, skipped, detail) = match &k.status {
            KernelState::Instrumented { sites } => (true, Some(*sites), None, None),
            KernelState::Skipped { reason, detail } => (
                false,
                None,
                Some(reason.describe()),
                Some(detail.as_str()).filter(|d| !d.is_empty()),
            ),
        };
        tx.execute(
            "INSERT INTO kernel VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            params![
                id,
                k.name,
                demangle(&k.name),
                instrumented,
                sites,
                skipped,
                detail,
                u(k.launches_probed),
                u(k.launches_unprobed)
            ],
        )?;
    }
    for (m, decl) in program.maps.iter().enumerate() {
        let reported = report.maps.iter().find(|r| r.name == decl.name);
        let kind = match decl.kind {
            MapKind::Hash { .. } => "hash",
            MapKind::Ring { .. } => "ring",
            MapKind::Array { per: Per::Warp, .. } => "array per warp",
            MapKind::Array { .. } => "array per thread",
        };
        let keys: Vec<&str> = decl
            .keys
            .iter()
            .map(|t| warptrace_ir::key_type_name(*t))
            .collect();
        let value = decl.value.to_string();
        tx.execute(
            "INSERT INTO map VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            params![
                id,
                m as i64,
                decl.name,
                kind,
                value,
                keys.join(", "),
                u(reported.map_or(0, |r| r.drops)),
                u(reported.map_or(0, |r| r.lost))
            ],
        )?;
        if let MapKind::Hash { .. } = decl.kind {
            entries(tx, id, m, run)?;
        } else if let Some(r) = reported {
            let fields = match &decl.value {
                ValueKind::Record(fields) => fields.clone(),
                _ => Vec::new(),
            };
            for (seq, (pid, rec)) in r.records_by_pid(run_pid(run)).into_iter().enumerate() {
                let (launch, place) = match rec.origin {
                    Origin::Array {
                        launch,
                        block,
                        row,
                        slot,
                    } => (Some(launch), format!("block {block} row {row} slot {slot}")),
                    Origin::Ring { launch, index } => (Some(launch), format!("index {index}")),
                };
                let values: Vec<serde_json::Value> = rec
                    .fields
                    .iter()
                    .enumerate()
                    .map(|(i, &w)| match fields.get(i) {
                        Some(t) => match key_part(t, w, &report.kernels) {
                            KeyPart::Int(v) => v.into(),
                            KeyPart::UInt(v) => v.into(),
                            KeyPart::Str(s) => s.to_string().into(),
                        },
                        None => w.into(),
                    })
                    .collect();
                tx.execute(
                    "INSERT INTO record VALUES (?, ?, ?, ?, ?, ?, ?)",
                    params![
                        id,
                        m as i64,
                        seq as i64,
                        pid,
                        launch.map(u),
                        place,
                        serde_json::Value::Array(values).to_string()
                    ],
                )?;
            }
        }
    }
    Ok(id)
}

/// The pid of a run with one process, which its records name.
fn run_pid(run: RunResults<'_>) -> Option<u32> {
    match run.report.pids.as_slice() {
        [one] => Some(*one),
        _ => None,
    }
}

/// The entries of hash map `m` (and their buckets), in key order.
fn entries(tx: &Transaction<'_>, id: i64, m: usize, run: RunResults<'_>) -> rusqlite::Result<()> {
    let Some(out) = store_output(run.program, run.store, MapId(m as u32), &run.report.kernels)
    else {
        return Ok(());
    };
    let mut sorted: Vec<&(Vec<KeyPart>, Value)> = out.entries.iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    for (e, (keys, value)) in sorted.into_iter().enumerate() {
        let text = keys
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", ");
        let k = |i: usize| keys.get(i).map_or(Sql::Null, key);
        let (v, count, total) = match value {
            Value::Count(c) => (number(Number::Unsigned(*c)), None, Sql::Null),
            Value::Int(n) | Value::Sum(n) | Value::Min(n) | Value::Max(n) => {
                (number(*n), None, Sql::Null)
            }
            Value::Avg { total, count } | Value::Stats { total, count } => {
                let t = match *total {
                    Number::Signed(v) => i128::from(v),
                    Number::Unsigned(v) => i128::from(v),
                };
                let avg = if *count == 0 {
                    0
                } else {
                    t / i128::from(*count)
                };
                (bound(Some(avg)), Some(*count), number(*total))
            }
            Value::Hist(h) => (Sql::Null, Some(h.buckets.iter().sum::<u64>()), Sql::Null),
            Value::Lhist(l) => (Sql::Null, Some(l.buckets.iter().sum::<u64>()), Sql::Null),
        };
        tx.execute(
            "INSERT INTO entry VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            params![
                id,
                m as i64,
                e as i64,
                text,
                k(0),
                k(1),
                k(2),
                v,
                count.map(u),
                total
            ],
        )?;
        for (lo, hi, c) in value.bucket_rows() {
            tx.execute(
                "INSERT INTO bucket VALUES (?, ?, ?, ?, ?, ?)",
                params![id, m as i64, e as i64, bound(lo), bound(hi), u(c)],
            )?;
        }
    }
    Ok(())
}
