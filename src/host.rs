//! Host-side execution: `begin`/`end` blocks through the IR interpreter, on the one
//! host map store that device results are merged into, and every printed output.
//!
//! Order of output, as bpftrace's: `begin`'s prints; once the traced program has ended,
//! the device's `printf` records (formatted, in append order) and a "lost events" line
//! per ring that lost records ([`Host::print_device_events`]); `end`'s prints; then every
//! map and ring at exit, in name order ([`Host::exit_text`]).

use crate::cli::OutputFormat;
use anyhow::{anyhow, Result};
use std::collections::BTreeMap;
use std::io::Write;
use warptrace_ir::interp::{HostEffect, Interpreter};
use warptrace_ir::{HostEvent, MapStore, Program};
use warptrace_runtime::{
    json, lost_records, printf_text, printf_texts, ring_output, ring_outputs, store_output,
    store_outputs, text, PrintArgs,
};

/// The host's view of a run: maps (host updates and merged device results) and the
/// names of the kernels whose ids appear in them.
pub struct Host<'p> {
    program: &'p Program,
    interpreter: Interpreter<'p>,
    store: MapStore,
    kernels: BTreeMap<u64, String>,
    format: OutputFormat,
}

impl<'p> Host<'p> {
    pub fn new(program: &'p Program, format: OutputFormat) -> Host<'p> {
        Host {
            program,
            interpreter: Interpreter::new(program),
            store: MapStore::new(program),
            // String keys (`@m["load"]`) print their text, as kernel ids their names.
            kernels: program
                .strings
                .iter()
                .map(|s| (warptrace_ir::kernel_id(s), s.clone()))
                .collect(),
            format,
        }
    }

    /// Whether the program has blocks for `event`.
    pub fn has(&self, event: HostEvent) -> bool {
        self.program.host.iter().any(|b| b.event == event)
    }

    /// Runs the blocks of `event` and prints what they print, each `print` rendered at
    /// the moment of the call (so `print(@m); clear(@m);` prints the entries); true if
    /// one called `exit()`.
    pub fn run(&mut self, event: HostEvent) -> Result<bool> {
        let (program, kernels, format) = (self.program, &self.kernels, self.format);
        let mut exit = false;
        let mut out = String::new();
        let ran = self
            .interpreter
            .run_host(event, &mut self.store, &mut |effect, store| match effect {
                HostEffect::Print { map, top, div } => {
                    let args = PrintArgs { top, div };
                    out.push_str(&print_text(program, store, map, kernels, format, args));
                }
                HostEffect::Printf { format: id, args } => {
                    let fmt = program
                        .formats
                        .get(id.0 as usize)
                        .map_or("", String::as_str);
                    let s = printf_text(fmt, &args, kernels);
                    out.push_str(&match format {
                        OutputFormat::Text => s,
                        OutputFormat::Json => json::printf(&s),
                    });
                }
                HostEffect::Exit => exit = true,
            });
        // What the blocks printed before a fault is still printed, as bpftrace's would be.
        let mut stdout = std::io::stdout().lock();
        stdout.write_all(out.as_bytes())?;
        stdout.flush()?;
        ran.map_err(|e| anyhow!("in a `{event}` block: {e}"))?;
        Ok(exit)
    }

    /// Adds device results already made a store (a live increment, `live.rs`) and the
    /// names of the kernels their ids stand for.
    pub fn add_store(&mut self, store: MapStore, kernels: &BTreeMap<u64, String>) {
        self.kernels
            .extend(kernels.iter().map(|(k, v)| (*k, v.clone())));
        self.store.merge(store);
    }

    /// Prints what the device's rings produced during the run, as bpftrace prints events
    /// (call after [`Host::add_device`], before the `end` blocks): the `printf` records on
    /// stdout, then lost events (text: stderr; JSON: a stdout record). The printf ring's
    /// records are consumed (removed from the store); lost counts are reported once.
    pub fn print_device_events(&mut self) -> Result<()> {
        let (out, err) = device_events(self.program, &self.store, &self.kernels, self.format);
        if let Some(ring) = self.program.printf_ring() {
            self.store.clear(ring)?;
        }
        for m in &mut self.store.maps {
            m.lost = 0;
        }
        let mut stdout = std::io::stdout().lock();
        stdout.write_all(out.as_bytes())?;
        stdout.flush()?;
        drop(stdout);
        let mut stderr = std::io::stderr().lock();
        stderr.write_all(err.as_bytes())?;
        stderr.flush()?;
        Ok(())
    }

    /// The host's maps: device results merged, host blocks' updates applied.
    pub fn store(&self) -> &MapStore {
        &self.store
    }

    /// Every map and ring as bpftrace prints its maps when a program ends.
    pub fn exit_text(&self) -> String {
        exit_text(self.program, &self.store, &self.kernels, self.format)
    }
}

/// What a host block's `print(@m, top, div)` prints: the map (or ring) as `store` holds it
/// now, its `top` largest entries with values divided by `div` (`PrintArgs`).
fn print_text(
    program: &Program,
    store: &MapStore,
    map: warptrace_ir::MapId,
    kernels: &BTreeMap<u64, String>,
    format: OutputFormat,
    args: PrintArgs,
) -> String {
    if let Some(m) = store_output(program, store, map, kernels) {
        match format {
            OutputFormat::Text => text::map(&m, args),
            OutputFormat::Json => json::map(&m, args),
        }
    } else if let Some(r) = ring_output(program, store, map, kernels) {
        match format {
            OutputFormat::Text => text::ring(&r),
            OutputFormat::Json => json::ring(&r),
        }
    } else {
        String::new()
    }
}

/// What [`Host::print_device_events`] prints for `store`: (stdout, stderr). Text: each
/// printf record's formatted text, then `Lost N events` on stderr per ring that lost
/// records (the printf ring included), in map order. JSON: a `printf` record each, then a
/// `lost_events` record per such ring, all on stdout.
pub fn device_events(
    program: &Program,
    store: &MapStore,
    kernels: &BTreeMap<u64, String>,
    format: OutputFormat,
) -> (String, String) {
    let mut out = String::new();
    let mut err = String::new();
    for s in printf_texts(program, store, kernels) {
        match format {
            OutputFormat::Text => out.push_str(&s),
            OutputFormat::Json => out.push_str(&json::printf(&s)),
        }
    }
    for (_, lost) in lost_records(program, store) {
        match format {
            OutputFormat::Text => err.push_str(&text::lost_events(lost)),
            OutputFormat::Json => out.push_str(&json::lost_events(lost)),
        }
    }
    (out, err)
}

/// The exit printing of `store`: every hash map and every ring other than the printf
/// ring, in name order (text: after two newlines; nothing at all when there is no map
/// and no ring record, or when `config = { print_maps_on_exit = 0 }`).
pub fn exit_text(
    program: &Program,
    store: &MapStore,
    kernels: &BTreeMap<u64, String>,
    format: OutputFormat,
) -> String {
    let off = program
        .config
        .iter()
        .any(|c| c.key == "print_maps_on_exit" && c.value == warptrace_ir::ConfigValue::Int(0));
    if off {
        return String::new();
    }
    let maps = store_outputs(program, store, kernels);
    let rings = ring_outputs(program, store, kernels);
    let nothing = maps.is_empty() && rings.iter().all(|r| r.records.is_empty());
    match format {
        OutputFormat::Text if nothing => String::new(),
        OutputFormat::Text => text::exit_with_rings(&maps, &rings),
        OutputFormat::Json => json::exit_with_rings(&maps, &rings),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use warptrace_ir::{kernel_id, KeyType, MapDecl, MapKind, Overflow, ValueKind};
    use warptrace_runtime::{report_store, MapEntry, MapRecord, MapReport, Origin, Report};

    fn program() -> Program {
        let ring = |name: &str, value| MapDecl {
            name: name.into(),
            kind: MapKind::Ring {
                capacity: 16,
                overflow: Overflow::Drop,
            },
            keys: vec![],
            value,
        };
        Program {
            maps: vec![
                MapDecl {
                    name: "n".into(),
                    kind: MapKind::Hash { capacity: 16 },
                    keys: vec![KeyType::Kernel],
                    value: ValueKind::Count,
                },
                ring(
                    "trace",
                    ValueKind::Record(vec![KeyType::Int { signed: false }; 2]),
                ),
                ring("printf", ValueKind::Printf { args: 2 }),
            ],
            formats: vec!["%s: %d\n".into(), "done \"%u\"\n".into()],
            ..Program::default()
        }
    }

    fn record(index: u64, fields: &[u64]) -> MapRecord {
        MapRecord {
            origin: Origin::Ring { launch: 0, index },
            fields: fields.to_vec(),
        }
    }

    /// A device report as the CLI reads it back: a hash map, ring records with 2 lost,
    /// and printf records (one naming a kernel).
    fn report() -> Report {
        let k = kernel_id("_Z3addPf");
        let map = |name: &str, value: ValueKind| MapReport {
            name: name.into(),
            kind: Some(value),
            ..MapReport::default()
        };
        let p = program();
        let mut n = map("n", ValueKind::Count);
        n.entries = vec![MapEntry::from_words(&ValueKind::Count, vec![k], vec![3])];
        let mut trace = map("trace", p.maps[1].value.clone());
        trace.records = vec![record(0, &[1234, 7]), record(1, &[1235, 9])];
        trace.lost = 2;
        trace.drops = 2;
        let mut printf = map("printf", p.maps[2].value.clone());
        printf.records = vec![record(0, &[0, k, 5]), record(1, &[1, 42, 0])];
        let mut kernels = BTreeMap::new();
        kernels.insert(k, "_Z3addPf".to_string());
        Report {
            pids: vec![99],
            maps: vec![n, trace, printf],
            kernels,
            ..Report::default()
        }
    }

    fn store(p: &Program) -> (MapStore, BTreeMap<u64, String>) {
        let r = report();
        (report_store(p, &r), r.kernels)
    }

    #[test]
    fn device_printf_and_lost_events_text() {
        let p = program();
        let (s, k) = store(&p);
        let (out, err) = device_events(&p, &s, &k, OutputFormat::Text);
        assert_eq!(out, "add(float*): 5\ndone \"42\"\n");
        assert_eq!(err, "Lost 2 events\n");
    }

    #[test]
    fn device_printf_and_lost_events_json() {
        let p = program();
        let (s, k) = store(&p);
        let (out, err) = device_events(&p, &s, &k, OutputFormat::Json);
        assert_eq!(
            out,
            "{\"type\": \"printf\", \"data\": \"add(float*): 5\\n\"}\n\
             {\"type\": \"printf\", \"data\": \"done \\\"42\\\"\\n\"}\n\
             {\"type\": \"lost_events\", \"data\": {\"events\": 2}}\n"
        );
        assert_eq!(err, "");
        for line in out.lines() {
            serde_json::from_str::<serde_json::Value>(line).expect("NDJSON");
        }
    }

    #[test]
    fn rings_print_at_exit_with_the_maps() {
        let p = program();
        let (s, k) = store(&p);
        assert_eq!(
            exit_text(&p, &s, &k, OutputFormat::Text),
            "\n\n@n[add(float*)]: 3\n@trace: (1234, 7)\n@trace: (1235, 9)\n"
        );
        assert_eq!(
            exit_text(&p, &s, &k, OutputFormat::Json),
            "{\"type\": \"map\", \"data\": {\"@n\": {\"add(float*)\": 3}}}\n\
             {\"type\": \"ring\", \"data\": {\"@trace\": [[1234, 7], [1235, 9]]}}\n"
        );
        // No map and no record: nothing.
        let mut rings_only = program();
        rings_only.maps.remove(0);
        let empty = MapStore::new(&rings_only);
        assert_eq!(exit_text(&rings_only, &empty, &k, OutputFormat::Text), "");
    }

    #[test]
    fn host_consumes_device_printf_once() {
        let p = program();
        let mut host = Host::new(&p, OutputFormat::Text);
        let r = report();
        host.add_store(report_store(&p, &r), &r.kernels);
        host.print_device_events().expect("printed");
        let printf = p.printf_ring().expect("printf ring");
        assert!(host.store.map(printf).expect("map").records.is_empty());
        assert!(host.store.maps.iter().all(|m| m.lost == 0));
        let (out, err) = device_events(&p, &host.store, &host.kernels, OutputFormat::Text);
        assert_eq!((out.as_str(), err.as_str()), ("", ""));
        // The ring's records stay for the exit listing.
        assert!(host.exit_text().contains("@trace: (1234, 7)\n"));
    }
}
