//! `-o DIR` and `--trace FILE`: the files written besides what is printed, checked before
//! the traced program runs and written once everything has been printed.

use crate::cli::RunArgs;
use anyhow::{bail, Context, Result};
use std::path::Path;
use warptrace_ir::{MapStore, Program};
use warptrace_runtime::export::{self, RunResults, TraceOptions};
use warptrace_runtime::Report;

/// Where the run's files go.
pub struct Outputs<'a> {
    dir: Option<&'a Path>,
    /// `--db FILE`, and when tracing started (for its `run` row).
    db: Option<&'a Path>,
    started: u64,
    command: &'a [String],
    trace: Option<&'a Path>,
    dmat: Option<(&'a Path, &'a str)>,
    options: TraceOptions,
}

/// Refuses a file path that names a directory, and creates its parent.
fn prepare_file(flag: &str, file: &Path) -> Result<()> {
    if file.is_dir() {
        bail!(
            "bad {flag}: {} is a directory; name a file, e.g. {}",
            file.display(),
            file.join(if flag == "--dmat" {
                "dmat.png"
            } else {
                "trace.json"
            })
            .display()
        );
    }
    if let Some(parent) = file.parent().filter(|p| !p.as_os_str().is_empty()) {
        export::prepare_output_dir(parent).with_context(|| format!("bad {flag}"))?;
    }
    Ok(())
}

impl<'a> Outputs<'a> {
    /// Checks the paths of `-o` and `--trace` and creates the directories they need, so
    /// that a bad path fails before the traced program runs.
    pub fn prepare(args: &'a RunArgs) -> Result<Outputs<'a>> {
        if let Some(dir) = &args.output_dir {
            export::prepare_output_dir(dir).context("bad --output-dir")?;
        }
        if let Some(file) = &args.trace {
            prepare_file("--trace", file)?;
        }
        if let Some(file) = &args.db {
            prepare_file("--db", file)?;
        }
        if let Some(file) = &args.dmat {
            prepare_file("--dmat", file)?;
        }
        Ok(Outputs {
            dir: args.output_dir.as_deref(),
            db: args.db.as_deref(),
            started: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
            command: &args.command,
            trace: args.trace.as_deref(),
            dmat: args.dmat.as_deref().map(|f| (f, args.dmat_map.as_str())),
            options: TraceOptions {
                clock_mhz: args.clock_mhz,
            },
        })
    }

    /// Refuses, before the traced program runs, a --dmat whose map does not hold access
    /// records.
    pub fn check(&self, program: &Program) -> Result<()> {
        if let Some((_, map)) = self.dmat {
            export::access_map(program, map).context("bad --dmat")?;
        }
        Ok(())
    }

    /// Writes the files of a run: `report` is the traced processes' merged report (none
    /// when no command ran), `store` the host's maps after `end`. Says on stderr what was
    /// written, and when `--trace` found no timing record.
    pub fn write(
        &self,
        program: &Program,
        source: &str,
        report: Option<&Report>,
        store: &MapStore,
    ) -> Result<()> {
        // No command ran: the report is empty but for the string keys' texts, which the
        // traced processes' reports carry (`KeyType::Str`).
        let empty = Report {
            kernels: program
                .strings
                .iter()
                .map(|s| (warptrace_ir::kernel_id(s), s.clone()))
                .collect(),
            ..Report::default()
        };
        let report = report.unwrap_or(&empty);
        let run = RunResults {
            program,
            report,
            store,
        };
        let meta = export::RunMeta {
            started: self.started,
            command: self.command,
            source,
        };
        if let Some(dir) = self.dir {
            let files = export::write_output_dir(dir, run, self.options)
                .with_context(|| format!("cannot write the results into {}", dir.display()))?;
            // The same run as an analysis database beside the tables.
            let db = dir.join("run.db");
            export::write_db(&db, run, &meta)?;
            eprintln!(
                "warptrace: {} files written to {} (index.json lists them; run.db is the \
                 analysis database)",
                files.len(),
                dir.display()
            );
        }
        if let Some(file) = self.db {
            let id = export::write_db(file, run, &meta)?;
            eprintln!(
                "warptrace: run {id} written to the analysis database {} (docs/analysis-db.md)",
                file.display()
            );
        }
        if let Some(file) = self.trace {
            let trace = export::chrome_trace(program, report, self.options);
            export::write_trace(file, &trace)?;
            if trace.maps.is_empty() {
                eprintln!(
                    "warptrace: warning: {} is empty: no map holds timing records (an array \
                     map whose records start with (start, elapsed), e.g. `@sched = (%t0, \
                     clock64 - %t0, smid)` in a `warp kernel:exit` probe)",
                    file.display()
                );
            } else {
                eprintln!(
                    "warptrace: trace of {} timing records written to {} ({})",
                    trace.len(),
                    file.display(),
                    trace.time_unit()
                );
            }
            if trace.skipped > 0 {
                eprintln!(
                    "warptrace: warning: {} timing records with a negative elapsed time are \
                     not in the trace",
                    trace.skipped
                );
            }
        }
        if let Some((file, map)) = self.dmat {
            self.write_dmat(program, report, file, map)?;
        }
        Ok(())
    }

    fn write_dmat(&self, program: &Program, report: &Report, file: &Path, map: &str) -> Result<()> {
        let d = match export::dmat(program, report, map) {
            Ok(d) => d,
            Err(e @ export::DmatError::Empty { .. }) => {
                eprintln!("warptrace: warning: {} not written: {e}", file.display());
                return Ok(());
            }
            Err(e) => return Err(e).context("bad --dmat"),
        };
        export::write_dmat_png(file, &d)?;
        let lost = report
            .maps
            .iter()
            .filter(|m| m.name == map)
            .map(|m| m.lost)
            .sum::<u64>();
        eprintln!(
            "warptrace: dense memory-access timeline written to {} ({}×{} px): {} records, {} \
             lane accesses, {} bytes; time {}..{} across ({} a column), {} pages of {} bytes \
             up ({} a row, 0x{:x}..0x{:x}, address order without the gaps){}",
            file.display(),
            d.width,
            d.height,
            d.records,
            d.accesses,
            d.bytes,
            d.span.0,
            d.span.1,
            (d.span.1 - d.span.0).div_ceil(u64::from(d.width)).max(1),
            d.pages,
            export::DMAT_PAGE_BYTES,
            d.pages_per_row,
            d.page_range.0 * export::DMAT_PAGE_BYTES,
            (d.page_range.1 + 1) * export::DMAT_PAGE_BYTES,
            if lost > 0 {
                format!("; {lost} records lost are not in it")
            } else {
                String::new()
            }
        );
        Ok(())
    }
}

/// `-f json`'s record of the run's counters, overall and per traced process:
/// `{"type": "summary", "data": {"pids": [10, 11], …, "processes": [{"pid": 10, …}]}}`,
/// spaced as bpftrace spaces its records.
pub fn json_summary(report: &Report) -> String {
    let mut data = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(&mut data, BpftraceSpacing);
    // Plain data (integers, strings): encoding cannot fail.
    let _ = serde::Serialize::serialize(&export::run_counts(report), &mut ser);
    let data = String::from_utf8_lossy(&data);
    format!("{{\"type\": \"summary\", \"data\": {data}}}\n")
}

/// One-line JSON with bpftrace's separators: `", "` between items, `": "` after keys.
struct BpftraceSpacing;

impl serde_json::ser::Formatter for BpftraceSpacing {
    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        if first {
            Ok(())
        } else {
            w.write_all(b", ")
        }
    }

    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.begin_array_value(w, first)
    }

    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        w.write_all(b": ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_flags_parse_and_prepare_their_directories() {
        let dir = tempfile::tempdir().expect("tempdir");
        let out = dir.path().join("a/b");
        let trace = dir.path().join("t/trace.json");
        let (o, t) = (out.to_string_lossy(), trace.to_string_lossy());
        let args = crate::cli::parse_run(&["-o", &o, "--trace", &t, "--clock-mhz", "1755"])
            .expect("parses");
        assert_eq!(args.output_dir.as_deref(), Some(out.as_path()));
        assert_eq!(args.trace.as_deref(), Some(trace.as_path()));
        assert_eq!(args.clock_mhz, Some(1755.0));
        let long = crate::cli::parse_run(&["--output-dir", &o]).expect("parses");
        assert_eq!(long.output_dir.as_deref(), Some(out.as_path()));
        let outputs = Outputs::prepare(&args).expect("prepared");
        assert_eq!(outputs.options.clock_mhz, Some(1755.0));
        assert!(out.is_dir(), "-o DIR is created with its parents");
        assert!(
            trace.parent().is_some_and(Path::is_dir),
            "--trace's folder too"
        );
        assert!(!trace.exists(), "the trace itself is written after the run");

        for bad in ["0", "-3", "fast", "inf"] {
            let flag = format!("--clock-mhz={bad}");
            let err = crate::cli::parse_run(&[&flag]).expect_err(bad);
            assert!(err.to_string().contains("--clock-mhz"), "{bad}: {err}");
        }
    }

    #[test]
    fn a_file_as_output_dir_and_a_directory_as_trace_are_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("results.txt");
        std::fs::write(&file, "keep me").expect("write");
        let f = file.to_string_lossy();
        let args = crate::cli::parse_run(&["-o", &f]).expect("parses");
        let err = format!("{:#}", Outputs::prepare(&args).err().expect("refused"));
        assert_eq!(
            err,
            format!(
                "bad --output-dir: {} exists and is not a directory",
                file.display()
            )
        );
        assert_eq!(std::fs::read_to_string(&file).expect("read"), "keep me");

        let d = dir.path().to_string_lossy();
        let args = crate::cli::parse_run(&["--trace", &d]).expect("parses");
        let err = format!("{:#}", Outputs::prepare(&args).err().expect("refused"));
        assert!(
            err.starts_with("bad --trace:") && err.contains("is a directory"),
            "{err}"
        );

        let under = file.join("t.json");
        let u = under.to_string_lossy();
        let args = crate::cli::parse_run(&["--trace", &u]).expect("parses");
        let err = format!("{:#}", Outputs::prepare(&args).err().expect("refused"));
        assert!(err.contains("exists and is not a directory"), "{err}");
    }

    #[test]
    fn json_summary_is_one_ndjson_record_with_the_pids() {
        let mut a = Report {
            pids: vec![7],
            ..Report::default()
        };
        a.summary.launches_probed = 2;
        let b = Report {
            pids: vec![5],
            ..Report::default()
        };
        let line = json_summary(&Report::merge(vec![a, b]));
        assert!(line.ends_with("}\n") && line.lines().count() == 1, "{line}");
        assert!(
            line.starts_with(
                r#"{"type": "summary", "data": {"pids": [5, 7], "kernels_instrumented": 0, "#
            ),
            "{line}"
        );
        let v: serde_json::Value = serde_json::from_str(&line).expect("JSON");
        assert_eq!(v["type"], "summary");
        assert_eq!(v["data"]["pids"], serde_json::json!([5, 7]));
        assert_eq!(v["data"]["launches_probed"], 2);
        assert_eq!(v["data"]["processes"][1]["pid"], 7);
        assert_eq!(v["data"]["processes"][1]["launches_probed"], 2);
    }
}
