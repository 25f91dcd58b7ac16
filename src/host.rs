//! Host-side execution: `begin`/`end` blocks through the IR interpreter, on the one
//! host map store that device results are merged into, and every printed output.

use crate::cli::OutputFormat;
use anyhow::{anyhow, Result};
use std::collections::BTreeMap;
use std::io::Write;
use warptrace_ir::interp::{HostEffect, Interpreter};
use warptrace_ir::{HostEvent, MapStore, Program};
use warptrace_runtime::{json, printf, report_store, store_output, store_outputs, text, Report};

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
            kernels: BTreeMap::new(),
            format,
        }
    }

    /// Whether the program has blocks for `event`.
    pub fn has(&self, event: HostEvent) -> bool {
        self.program.host.iter().any(|b| b.event == event)
    }

    /// Runs the blocks of `event` and prints what they print; true if one called `exit()`.
    pub fn run(&mut self, event: HostEvent) -> Result<bool> {
        let effects = self
            .interpreter
            .run_host(event, &mut self.store)
            .map_err(|e| anyhow!("in a `{}` block: {e}", event.name()))?;
        let mut exit = false;
        let mut out = String::new();
        for effect in effects {
            match effect {
                HostEffect::Print { map } => {
                    if let Some(m) = store_output(self.program, &self.store, map, &self.kernels) {
                        out.push_str(&match self.format {
                            OutputFormat::Text => text::map(&m, Default::default()),
                            OutputFormat::Json => json::map(&m, Default::default()),
                        });
                    }
                }
                HostEffect::Printf { format, args } => {
                    let fmt = self
                        .program
                        .formats
                        .get(format.0 as usize)
                        .map_or("", String::as_str);
                    let kernels = &self.kernels;
                    let s = printf::format(fmt, &args, &|v| kernels.get(&v).cloned());
                    out.push_str(&match self.format {
                        OutputFormat::Text => s,
                        OutputFormat::Json => json::printf(&s),
                    });
                }
                HostEffect::Exit => exit = true,
            }
        }
        let mut stdout = std::io::stdout().lock();
        stdout.write_all(out.as_bytes())?;
        stdout.flush()?;
        Ok(exit)
    }

    /// Adds the device maps of a traced run to the host's.
    pub fn add_device(&mut self, report: &Report) {
        self.kernels
            .extend(report.kernels.iter().map(|(k, v)| (*k, v.clone())));
        self.store.merge(report_store(self.program, report));
    }

    /// Every map as bpftrace prints them when a program ends.
    pub fn exit_text(&self) -> String {
        let maps = store_outputs(self.program, &self.store, &self.kernels);
        match self.format {
            OutputFormat::Text if maps.is_empty() => String::new(),
            OutputFormat::Text => text::exit(&maps),
            OutputFormat::Json => json::exit(&maps),
        }
    }
}
