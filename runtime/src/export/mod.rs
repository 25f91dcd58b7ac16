//! Files other tools read: `-o DIR` (a CSV table per map, `summary.json`, `index.json`,
//! and `trace.json` when there are timing records) and Chrome/Perfetto traces of timing
//! records (`--trace FILE`).
//!
//! Hash-map tables hold the host's maps once `end` has run (what the exit printing
//! shows); record tables hold every ring and array record the traced processes produced,
//! each with the pid that wrote it; `summary.json` has the run's counters, overall and per
//! process, and every map's drops and lost records. The layout and the reasons:
//! `docs/decisions/0012-record-tables-and-traces.md`.

mod db;
mod dmat;
mod summary;
mod tables;
mod trace;

#[cfg(test)]
mod db_tests;
#[cfg(test)]
mod tests;

use crate::report::Report;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use warptrace_ir::{MapStore, Program};

pub use db::{write_db, RunMeta};
pub use dmat::{access_map, dmat, write_dmat_png, Dmat, DmatError, DMAT_MAX_SIDE, DMAT_PAGE_BYTES};
pub use summary::{run_counts, RunCounts};
pub use trace::{chrome_trace, is_timing_map, ChromeTrace, TraceOptions};

/// What a run produced, as the files are written from it.
#[derive(Debug, Clone, Copy)]
pub struct RunResults<'a> {
    /// The probe program.
    pub program: &'a Program,
    /// The merged report of the traced processes (an empty one when nothing ran).
    pub report: &'a Report,
    /// The host's maps once `end` has run: hash-map tables are written from it, so they
    /// hold what the exit printing shows (host-block updates included).
    pub store: &'a MapStore,
}

/// Why a file could not be written.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The output directory's path names something else.
    #[error("{} exists and is not a directory", path.display())]
    NotADirectory {
        /// The path given.
        path: PathBuf,
    },
    /// The output directory could not be created.
    #[error("cannot create the directory {}", path.display())]
    CreateDir {
        /// The directory.
        path: PathBuf,
        /// The file system's error.
        #[source]
        source: std::io::Error,
    },
    /// A file could not be written.
    #[error("cannot write {}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The file system's error.
        #[source]
        source: std::io::Error,
    },
    /// A CSV table could not be written.
    #[error("cannot write the table {}", path.display())]
    Csv {
        /// The file.
        path: PathBuf,
        /// The CSV writer's error (I/O underneath).
        #[source]
        source: csv::Error,
    },
    /// The analysis database could not be written.
    #[error("cannot write the analysis database {}", path.display())]
    Db {
        /// The file.
        path: PathBuf,
        /// SQLite's error.
        #[source]
        source: rusqlite::Error,
    },
    /// A JSON file could not be encoded.
    #[error("cannot encode {}", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// The encoder's error.
        #[source]
        source: serde_json::Error,
    },
}

/// Creates `dir` (and its parents) unless it is a directory already; call before the
/// traced program runs, so a bad path fails at once.
pub fn prepare_output_dir(dir: &Path) -> Result<(), ExportError> {
    if dir.exists() && !dir.is_dir() {
        return Err(ExportError::NotADirectory {
            path: dir.to_path_buf(),
        });
    }
    std::fs::create_dir_all(dir).map_err(|source| ExportError::CreateDir {
        path: dir.to_path_buf(),
        source,
    })
}

/// Writes every table of `run` into `dir` (created if missing): `<map>.csv` per map
/// (`@.csv` for the anonymous map), `per-kernel.csv` with the maps keyed by kernel alone
/// side by side (when there are two or more), `summary.json`, `trace.json` when there are timing
/// records (timestamps per `options`), and `index.json` last, naming each file with its
/// contents, rows and columns. Returns the names written, `index.json` last. Files of
/// earlier runs that this one does not write are left alone (the index does not list
/// them).
pub fn write_output_dir(
    dir: &Path,
    run: RunResults<'_>,
    options: TraceOptions,
) -> Result<Vec<String>, ExportError> {
    prepare_output_dir(dir)?;
    let mut index = Vec::new();
    let mut map_files = Vec::new();
    for decl in &run.program.maps {
        let Some(table) = tables::map_table(run, decl) else {
            continue;
        };
        let file = tables::file_name(&decl.name);
        table.write_csv(&dir.join(&file))?;
        index.push(summary::IndexEntry::table(&file, &table));
        map_files.push((decl.name.clone(), file));
    }
    if let Some(table) = tables::kernel_table(run) {
        let file = tables::KERNEL_TABLE_FILE;
        table.write_csv(&dir.join(file))?;
        index.push(summary::IndexEntry::table(file, &table));
    }
    let trace = chrome_trace(run.program, run.report, options);
    let trace_file = (!trace.is_empty()).then(|| "trace.json".to_string());
    if let Some(file) = &trace_file {
        write_trace(&dir.join(file), &trace)?;
        index.push(summary::IndexEntry::trace(file, &trace));
    }
    let summary = summary::run_summary(run, &map_files, trace_file.as_deref(), &trace, options);
    write_json(&dir.join("summary.json"), &summary)?;
    index.push(summary::IndexEntry::summary("summary.json"));
    let mut names: Vec<String> = index.iter().map(|e| e.file.clone()).collect();
    index.push(summary::IndexEntry::index("index.json"));
    write_json(&dir.join("index.json"), &summary::Index::new(index))?;
    names.push("index.json".to_string());
    Ok(names)
}

/// Writes `trace` as a Chrome/Perfetto trace (JSON object format) to `path`.
pub fn write_trace(path: &Path, trace: &ChromeTrace) -> Result<(), ExportError> {
    write_file(path, trace.to_json().as_bytes())
}

fn write_json(path: &Path, value: &impl serde::Serialize) -> Result<(), ExportError> {
    let mut text = serde_json::to_string_pretty(value).map_err(|source| ExportError::Json {
        path: path.to_path_buf(),
        source,
    })?;
    text.push('\n');
    write_file(path, text.as_bytes())
}

fn write_file(path: &Path, bytes: &[u8]) -> Result<(), ExportError> {
    let err = |source| ExportError::Write {
        path: path.to_path_buf(),
        source,
    };
    let mut file = std::io::BufWriter::new(std::fs::File::create(path).map_err(err)?);
    file.write_all(bytes).map_err(err)?;
    file.flush().map_err(err)
}
