//! The analysis database of the export tests' merged two-process run, read back with
//! queries whose rows are given exactly; and two runs appended to one file.

use super::tests::merged;
use super::*;
use crate::report::{KernelReport, KernelState, Reason};
use rusqlite::Connection;

fn written(dir: &Path) -> (PathBuf, i64) {
    let (p, mut r, s) = merged();
    r.kernel_status = vec![
        KernelReport {
            name: "_Z3addPf".into(),
            status: KernelState::Instrumented { sites: 3 },
            launches_probed: 4,
            launches_unprobed: 0,
        },
        KernelReport {
            name: "_Z5twicePf".into(),
            status: KernelState::Skipped {
                reason: Reason::NoSites,
                detail: "`mem:global:load` attaches nowhere".into(),
            },
            launches_probed: 0,
            launches_unprobed: 2,
        },
    ];
    let path = dir.join("run.db");
    let run = RunResults {
        program: &p,
        report: &r,
        store: &s,
    };
    let meta = RunMeta {
        started: 1_764_892_800,
        command: &["./app".to_string(), "--n".to_string(), "4".to_string()],
        source: "kernel:entry { @calls[kernel] = count(); }",
    };
    let id = write_db(&path, run, &meta).expect("written");
    (path, id)
}

/// Every row of `sql`, each column as text (NULL as `-`).
fn rows(db: &Connection, sql: &str) -> Vec<String> {
    let mut st = db.prepare(sql).expect("a query");
    let n = st.column_count();
    st.query_map([], |row| {
        (0..n)
            .map(|i| {
                row.get_ref(i).map(|v| match v {
                    rusqlite::types::ValueRef::Null => "-".to_string(),
                    rusqlite::types::ValueRef::Integer(v) => v.to_string(),
                    rusqlite::types::ValueRef::Real(v) => v.to_string(),
                    rusqlite::types::ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned(),
                    rusqlite::types::ValueRef::Blob(_) => "<blob>".to_string(),
                })
            })
            .collect::<Result<Vec<_>, _>>()
            .map(|cells| cells.join("|"))
    })
    .expect("rows")
    .collect::<Result<_, _>>()
    .expect("rows")
}

#[test]
fn a_run_is_written_to_normalized_tables_and_read_through_the_views() {
    let dir = tempfile::tempdir().expect("a folder");
    let (path, id) = written(dir.path());
    assert_eq!(id, 1);
    let db = Connection::open(path).expect("opens");
    assert_eq!(
        rows(&db, "SELECT id, started, command, warptrace FROM run"),
        [format!(
            "1|2025-12-05T00:00:00Z|./app --n 4|{}",
            env!("CARGO_PKG_VERSION")
        )]
    );
    assert_eq!(
        rows(
            &db,
            "SELECT pid, launches_probed, launches_unprobed FROM process ORDER BY pid"
        ),
        ["10|3|0", "11|1|2"]
    );
    assert_eq!(
        rows(&db, "SELECT demangled, instrumented, sites, skipped, detail, launches_probed, launches_unprobed FROM kernel ORDER BY name"),
        [
            "add(float*)|1|3|-|-|4|0",
            "twice(float*)|0|-|no sites|`mem:global:load` attaches nowhere|0|2"
        ]
    );
    assert_eq!(
        rows(&db, "SELECT name, kind, value, keys, drops, lost FROM map WHERE id <= 1 OR id >= 9 ORDER BY id"),
        [
            "calls|hash|count|kernel|3|0",
            "bytes|hash|sum i64|i64, u64|0|0",
            "events|ring|record(u64, i64, kernel)||3|3",
            "sched|array per warp|record(u64, i64, u64, kernel)||1|0",
            "marks|array per thread|record(kernel, u64)||0|0",
            "printf|ring|printf(2)||0|0",
        ]
    );
    // The values of `-o DIR`'s tables: typed keys, avg truncated, histograms counted.
    assert_eq!(
        rows(
            &db,
            "SELECT map, key, value, count, total FROM map_values ORDER BY map, key"
        ),
        [
            "@bytes|-2, 7|-5|-|-",
            "@bytes|3, 1|9|-|-",
            "@calls|add(float*)|4|-|-",
            "@calls|twice(float*)|1|-|-",
            "@hi||9|-|-",
            "@last||-7|-|-",
            "@lat||-|4|-",
            "@lin||-|3|-",
            "@lo||-10|-|-",
            "@mean|1|15|2|30",
            "@st||3|2|6",
        ]
    );
    assert_eq!(
        rows(
            &db,
            "SELECT key0, typeof(key0), key1 FROM entry WHERE map = 1 ORDER BY key0"
        ),
        ["-2|integer|7", "3|integer|1"]
    );
    assert_eq!(
        rows(
            &db,
            "SELECT map, lo, hi, count FROM hist_buckets ORDER BY map, lo"
        ),
        [
            "@lat|0|0|1",
            "@lat|1|1|1",
            "@lat|2|3|0",
            "@lat|4|7|2",
            "@lin|-|-1|1",
            "@lin|0|9|1",
            "@lin|10|19|1",
        ]
    );
    assert_eq!(
        rows(&db, "SELECT r.seq, r.pid, r.launch, r.place, r.fields FROM record r JOIN map m ON m.run = r.run AND m.id = r.map WHERE m.name = 'events' ORDER BY r.seq"),
        [
            "0|10|0|index 0|[100,-1,\"add(float*)\"]",
            "1|10|0|index 1|[101,2,\"0xdead\"]",
            "2|11|0|index 0|[200,5,\"twice(float*)\"]",
        ]
    );
    assert_eq!(
        rows(
            &db,
            "SELECT kernel, instrumented, launches_probed, maps FROM per_kernel ORDER BY kernel"
        ),
        [
            "add(float*)|1|4|{\"@calls\":4}",
            "twice(float*)|0|0|{\"@calls\":1}"
        ]
    );
}

#[test]
fn runs_appended_to_one_file_stay_apart() {
    let dir = tempfile::tempdir().expect("a folder");
    let (path, first) = written(dir.path());
    let (_, second) = written(dir.path());
    assert_eq!((first, second), (1, 2));
    let db = Connection::open(path).expect("opens");
    assert_eq!(
        rows(&db, "SELECT run, count(*) FROM entry GROUP BY run"),
        ["1|11", "2|11"]
    );
    assert_eq!(rows(&db, "PRAGMA user_version"), ["1"]);
}
