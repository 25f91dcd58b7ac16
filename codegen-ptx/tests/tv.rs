//! Translation validation of the PTX back end: every obligation is proved by z3.
//!
//! `cargo test -p warptrace-codegen-ptx --test tv -- --nocapture` prints the counts per
//! family and the time the whole suite took.

use std::collections::BTreeMap;
use std::time::Instant;
use warptrace_codegen_ptx::tv::{obligation_names, translation_validation, TvOutcome};

/// The family of an obligation: its name up to the second dot (`bin.add`, `agg.lhist`).
fn family(name: &str) -> String {
    name.split('.').take(2).collect::<Vec<_>>().join(".")
}

#[test]
fn every_obligation_is_proved() {
    let start = Instant::now();
    let results = translation_validation();
    let elapsed = start.elapsed();
    let names = obligation_names();
    assert_eq!(
        results.iter().map(|r| r.name.clone()).collect::<Vec<_>>(),
        names,
        "results come back in the obligations' order"
    );
    let mut unique = names.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), names.len(), "obligation names are unique");
    let mut families: BTreeMap<String, (u32, u64)> = BTreeMap::new();
    for r in &results {
        let f = families.entry(family(&r.name)).or_default();
        f.0 += 1;
        f.1 += r.micros;
    }
    for (f, (n, us)) in &families {
        println!("{f:<16} {n:>5} obligations {:>9.1} ms", *us as f64 / 1000.0);
    }
    let mut by_time: Vec<_> = results.iter().collect();
    by_time.sort_by_key(|r| std::cmp::Reverse(r.micros));
    for r in by_time.iter().take(12) {
        println!("slow: {:<40} {:>9.1} ms", r.name, r.micros as f64 / 1000.0);
    }
    println!(
        "{} obligations in {:.3} s",
        results.len(),
        elapsed.as_secs_f64()
    );
    let failed: Vec<_> = results
        .iter()
        .filter(|r| r.outcome != TvOutcome::Proved)
        .collect();
    for r in failed.iter().take(40) {
        println!("{}: {:?}", r.name, r.outcome);
    }
    assert!(failed.is_empty(), "{} obligations not proved", failed.len());
}
