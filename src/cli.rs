//! Command-line arguments.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use warptrace_codegen_ptx::jit_cost::JitBudget;

const EXAMPLES: &str = "\
EXAMPLES:
  Blocks launched per kernel, and bytes loaded from global memory:
    warptrace -e 'kernel:entry /tid.x == 0 && tid.y == 0 && tid.z == 0/ { @blocks[kernel] = count(); }
                  mem:global:load { @ldbytes[kernel] = sum(bytes); }' -- python train.py

  Global-memory bytes of the kernels whose name contains \"gemm\":
    warptrace -e 'mem:global:*:*gemm* { @bytes[kernel] = sum(bytes); }' -- ./app

  Look at the IR of a probe, or at what it does to a kernel's PTX:
    warptrace compile -e 'kernel:exit { @exits = count(); }' --emit ir
    warptrace instrument --ptx kernel.ptx -e 'mem:global:load { @n = count(); }' -o out.ptx

  Histograms, host blocks and printf, as in bpftrace:
    warptrace -e 'begin { @x = hist(5); @x = hist(100); print(@x); }'

  Prove a probe safe, keep the proof, and refuse to run anything unproved:
    warptrace verify probe.wt --cert probe.cert.json
    warptrace --require-cert probe.cert.json probe.wt -- ./app

  NEUTRINO-format raw PTX probes (FILE.toml, docs/raw-probes.md), checked by the same
  kernel verifier; a rejected kernel is left unchanged and named, with the rule and line:
    warptrace instrument --ptx kernel.ptx -p block_sched.toml -o out.ptx
    warptrace verify gmem_bytes.toml --ptx kernel.ptx --cert gmem_bytes.cert.json
    warptrace --require-cert gmem_bytes.cert.json -p gmem_bytes.toml -- ./app

  What the language offers, and where a probe attaches in a kernel:
    warptrace -l            (or -l 'mem*')
    warptrace -l -e 'mem:global:load { @n = count(); }' --ptx kernel.ptx   (or --gcn kernel.s)

Kernels whose probes need what the PTX back end cannot lower (e.g. `bytes` at a TMA
copy, whose size lives in the tensor map) run unchanged and are counted as \"not
supported yet\" in the summary.

Exit status: the traced program's own; 1 when it exited 0 but no process it started
loaded a CUDA module (no GPU or driver reachable, not a CUDA program), so nothing was
probed; 2 when the probe program is refused.

Results print when the program exits, as bpftrace prints maps; a one-line summary on
stderr counts the kernels instrumented and skipped (-v explains each), with a line per
process when the program started several (torchrun, multiprocessing). -o DIR also writes
every map as a CSV table, with summary.json and index.json; --trace FILE writes timing
records as a Perfetto trace:
    warptrace -o out --trace sched.json -e 'map @sched: array(per = warp, slots = 1);
        kernel:entry { %t0 = clock64; }
        warp kernel:exit { @sched = (%t0, clock64 - %t0, smid, kernel); }' -- ./app

Instrumented modules are cached on disk (--cache-dir, default ~/.cache/warptrace): a
second run of the same program and probes skips instrumentation and the driver's JIT.";

/// bpftrace for GPU kernels: verified probes inside the kernels of an unmodified program.
#[derive(Debug, Parser)]
#[command(name = "warptrace", version, after_help = EXAMPLES)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub run: RunArgs,
}

/// The probe program, inline or from a file.
#[derive(Debug, Args)]
pub struct ProgramArgs {
    /// Probe program text, e.g. 'kernel:entry { @n[kernel] = count(); }'.
    #[arg(short = 'e', value_name = "PROGRAM")]
    pub expr: Option<String>,
    /// Probe program file (.wt), or a raw PTX probe file in NEUTRINO's TOML format (.toml,
    /// docs/raw-probes.md).
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// A probe of the shipped library by name (`warptrace -l` lists them), e.g.
    /// `-p block_sched`, or a raw PTX probe file in NEUTRINO's TOML format, e.g.
    /// `-p block_sched.toml` (docs/raw-probes.md).
    #[arg(short = 'p', long = "probe", value_name = "NAME|FILE.toml")]
    pub probe: Option<String>,
    /// Positional parameters, as bpftrace's: the program reads them as `$1` … `$N` (an
    /// integer, or `str($1)` a string; 0 past the last) and their number as `$#`. With -e
    /// or -p every argument before `--` is one, e.g. `warptrace -e '… /ntid.x == $1/ …'
    /// 256 -- ./app`.
    #[arg(value_name = "ARG", allow_negative_numbers = true)]
    pub params: Vec<String>,
}

impl ProgramArgs {
    /// The program file, if the first argument is one (not with -e or -p, where every
    /// argument is a positional parameter).
    pub fn program_file(&self) -> Option<&PathBuf> {
        self.file
            .as_ref()
            .filter(|_| self.expr.is_none() && self.probe.is_none())
    }

    /// The positional parameters: the arguments after the program file, or every
    /// argument with -e or -p.
    pub fn positional(&self) -> Vec<String> {
        let first = match (&self.file, self.program_file()) {
            (Some(f), None) => Some(f.to_string_lossy().into_owned()),
            _ => None,
        };
        first
            .into_iter()
            .chain(self.params.iter().cloned())
            .collect()
    }
}

/// Running a program under probes.
#[derive(Debug, Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub program: ProgramArgs,
    /// List attach points, builtins, functions, library probes and raw probe helpers
    /// (matching GLOB); with a program and --ptx or --gcn, list the instructions each
    /// probe attaches to (a raw probe file: each kernel's sites and verdict).
    #[arg(short = 'l', long = "list", value_name = "GLOB", num_args = 0..=1, default_missing_value = "*")]
    pub list: Option<String>,
    /// With -l and a program: the PTX file whose attach sites to list; with -d ptx, the
    /// PTX file to instrument.
    #[arg(long, value_name = "FILE", conflicts_with = "gcn")]
    pub ptx: Option<PathBuf>,
    /// With -l and a program: the AMDGPU assembly file whose attach sites to list.
    #[arg(long, value_name = "FILE", requires = "list")]
    pub gcn: Option<PathBuf>,
    /// Output format of maps and printf records.
    #[arg(short = 'f', long = "format", value_enum, default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,
    /// Explain every kernel instrumented or skipped, and why.
    #[arg(short = 'v', long)]
    pub verbose: bool,
    /// Also write the results as files into DIR (created if missing): a CSV table per
    /// map (<map>.csv: keys and values; a row per histogram bucket; a row per ring or
    /// array record, with the pid that wrote it), summary.json (counters per process,
    /// kernels and why any was skipped, drops and lost records per map), trace.json
    /// when there are timing records, and index.json listing them.
    #[arg(short = 'o', long = "output-dir", value_name = "DIR")]
    pub output_dir: Option<PathBuf>,
    /// Append the run to an SQLite analysis database (created if missing): the run, its
    /// processes, kernels and maps, every hash entry and histogram bucket, every record,
    /// with views per kernel (docs/analysis-db.md). `-o DIR` writes DIR/run.db too.
    #[arg(long, value_name = "FILE")]
    pub db: Option<PathBuf>,
    /// Write the timing records as a Chrome/Perfetto trace (open it in ui.perfetto.dev
    /// or chrome://tracing): a process per kernel/SM/CTA, a thread per warp. Timing
    /// records are those of an array map whose records start with (start, elapsed) in
    /// cycles, e.g. `@sched = (%t0, clock64 - %t0, smid)`.
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// Draw the access records of the map named by --dmat-map (the `dmat` probe's) as
    /// a dense memory-access timeline PNG: time across, 4 KiB pages up (address order,
    /// gaps left out), the bytes accessed in each cell as colour (log scale).
    #[arg(long, value_name = "FILE.png")]
    pub dmat: Option<PathBuf>,
    /// The map --dmat draws: records `(time, address, lane mask, bytes[, stride])`.
    #[arg(long, value_name = "NAME", default_value = "dmat", requires = "dmat")]
    pub dmat_map: String,
    /// The SM clock in MHz, to write trace times in microseconds (default: times stay
    /// in cycles, shown as nanoseconds: 1 ns = 1 cycle).
    #[arg(long, value_name = "MHZ", value_parser = positive_mhz)]
    pub clock_mhz: Option<f64>,
    /// Refuse to run unless this certificate (from `warptrace verify --cert`) proves
    /// this exact program (or raw probe file) safe for this warptrace version.
    #[arg(long, value_name = "CERT")]
    pub require_cert: Option<PathBuf>,
    /// Compile and verify the program, print `Attaching N probes...`, and stop: nothing
    /// runs, not even `begin` (bpftrace's --dry-run).
    #[arg(long = "dry-run")]
    pub dry_run: bool,
    /// Print one stage of the compile and stop, as bpftrace's -d: `ir` (the IR's text
    /// form), `bundle` (the JSON the runtime loads) or `ptx` (the kernels of --ptx FILE
    /// instrumented, each kernel's outcome on stderr).
    #[arg(short = 'd', long = "debug", value_enum, value_name = "STAGE")]
    pub debug: Option<Stage>,
    /// Pass over the first N launches of the selected kernels (after --sample), as
    /// Nsight Compute's --launch-skip.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub launch_skip: u64,
    /// Probe only M launches (after --launch-skip and --sample), as Nsight Compute's
    /// --launch-count; the rest run the original kernels.
    #[arg(long, value_name = "M", value_parser = clap::value_parser!(u64).range(1..))]
    pub launch_count: Option<u64>,
    /// Probe every K-th launch of each kernel (its 1st, (K+1)-th, ...).
    #[arg(long, value_name = "K", default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    pub sample: u64,
    /// Where instrumented, JIT-compiled modules are cached between runs (default:
    /// $WARPTRACE_CACHE_DIR, else $XDG_CACHE_HOME/warptrace, else ~/.cache/warptrace).
    #[arg(long, value_name = "DIR", conflicts_with = "no_cache")]
    pub cache_dir: Option<PathBuf>,
    /// Instrument and JIT every module afresh: no on-disk cache is read or written.
    #[arg(long)]
    pub no_cache: bool,
    /// Give every probed launch its own zeroed map buffer, copied back after it. By
    /// default a kernel whose maps are all keyed by per-kernel constants (e.g.
    /// `@[kernel] = count()`) keeps one buffer on the device for all its launches, read
    /// back once at exit, so its launches add no memset or copy to the stream.
    #[arg(long)]
    pub per_launch_buffers: bool,
    /// The most records each traced process keeps of each ring or array map (e.g.
    /// `loop_timing`'s per-iteration records over a long run): its first N, read back
    /// in launch order. The rest are counted in the summary, and neither decoded nor
    /// kept, so a long run's memory stays bounded.
    #[arg(long, value_name = "N", default_value_t = warptrace_runtime::DEFAULT_MAX_RECORDS)]
    pub max_records: u64,
    /// Device memory (and as much pinned host memory) the map buffers of a traced
    /// process's launches on one GPU may hold at once, e.g. 512M or 8G (default: an
    /// eighth of the GPU's memory). A launch that would need more while earlier launches are still
    /// being read back waits for them (up to 10 s), then runs unprobed, counted as `map
    /// memory` in the summary. Matters for ring maps and for per-thread or per-warp
    /// arrays, whose buffers grow with the grid.
    #[arg(long, value_name = "SIZE", value_parser = byte_size)]
    pub map_memory: Option<u64>,
    /// How much more than the original an instrumented kernel may cost the driver's JIT
    /// (ptxas time and memory, predicted before the module is loaded): a multiple, e.g. 8,
    /// or `off`. Default: 4× the original's, or the original's plus 2 s and 512 MB when
    /// that is more. A kernel over it runs uninstrumented, counted as `JIT compile over
    /// budget` in the summary (`warptrace instrument --assemble` shows the figures).
    #[arg(long, value_name = "N|off", value_parser = jit_budget)]
    pub jit_budget: Option<JitBudget>,
    /// The runtime library to preload (default: libwarptrace_preload.so next to this
    /// executable; also $WARPTRACE_PRELOAD).
    #[arg(long, value_name = "PATH")]
    pub preload: Option<PathBuf>,
    /// The program to run and its arguments, as one string split as a shell would
    /// (bpftrace's -c), e.g. -c 'python train.py --steps 10'; the same as `-- COMMAND`.
    #[arg(
        short = 'c',
        long = "cmd",
        value_name = "CMD",
        conflicts_with = "command"
    )]
    pub cmd: Option<String>,
    /// The program to run and its arguments.
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

/// `--map-memory`: bytes, or a number with K, M, G or T (powers of 1024).
/// `--jit-budget`'s value.
pub fn jit_budget(text: &str) -> Result<JitBudget, String> {
    JitBudget::parse(text).map_err(|e| e.to_string())
}

fn byte_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let (digits, shift) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let shift = match c.to_ascii_uppercase() {
                'K' => 10,
                'M' => 20,
                'G' => 30,
                'T' => 40,
                _ => return Err(format!("`{text}`: the unit is K, M, G or T (e.g. 512M)")),
            };
            (&t[..i], shift)
        }
        _ => (t, 0),
    };
    digits
        .parse::<u64>()
        .ok()
        .filter(|&n| n > 0)
        .and_then(|n| n.checked_mul(1 << shift))
        .ok_or_else(|| {
            format!("`{text}` is not a size (a positive number of bytes, or e.g. 512M, 8G)")
        })
}

/// `--clock-mhz`: a finite, positive number.
fn positive_mhz(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(mhz) if mhz.is_finite() && mhz > 0.0 => Ok(mhz),
        _ => Err(format!(
            "`{text}` is not a clock rate in MHz (a positive number, e.g. 1755)"
        )),
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Compile a probe program and print its IR (or the bundle the runtime loads).
    Compile {
        #[command(flatten)]
        program: ProgramArgs,
        /// What to print.
        #[arg(long, value_enum, default_value_t = Emit::Ir)]
        emit: Emit,
    },
    /// Verify a probe program: every IR rule, every value obligation (intervals, then
    /// z3), the translation validation of the back end (PTX: every lowering; GCN: the
    /// operation forms the program uses, listing any it has no proof for), and, with
    /// --ptx or --gcn, the kernel-level checks on each kernel it instruments. Prints a
    /// report; --cert writes it as a JSON certificate (`--require-cert` accepts PTX
    /// ones). A raw probe file (FILE.toml) is checked on the kernels of its --ptx modules:
    /// each one Accepted, NoSites or Rejected with every rejection; its certificate holds
    /// the SHA-256 of the file and of each module. Exit status 2 when anything is not
    /// proved.
    Verify {
        #[command(flatten)]
        program: ProgramArgs,
        /// The back end to verify for.
        #[arg(long, value_enum, default_value_t = Target::Ptx)]
        target: Target,
        /// Where to write the certificate (JSON).
        #[arg(long, value_name = "FILE")]
        cert: Option<PathBuf>,
        /// PTX modules whose kernels to instrument and check (repeatable; --target ptx).
        #[arg(long, value_name = "FILE")]
        ptx: Vec<PathBuf>,
        /// AMDGPU assembly files whose kernels to instrument and check (repeatable;
        /// --target gcn).
        #[arg(long, value_name = "FILE")]
        gcn: Vec<PathBuf>,
        /// Find every proof afresh: no proof is read from or written to the proof cache
        /// ($WARPTRACE_PROOF_CACHE, else proofs/ in the module cache's directory, e.g.
        /// ~/.cache/warptrace/proofs; used only when no one else can write it).
        #[arg(long)]
        no_proof_cache: bool,
    },
    /// Instrument the kernels of a PTX module or an AMDGPU assembly file and write the
    /// spliced text (each kernel's outcome on stderr); with --gcn and --code-object, also
    /// the code object a HIP program would load. A raw probe file (FILE.toml) instruments
    /// --ptx modules; exit status 1 when the verifier rejected a kernel.
    Instrument {
        #[command(flatten)]
        program: ProgramArgs,
        /// The PTX module to instrument.
        #[arg(long, value_name = "FILE", conflicts_with = "gcn")]
        ptx: Option<PathBuf>,
        /// The AMDGPU assembly file (clang's `-S`, Triton's `amdgcn`) to instrument.
        #[arg(long, value_name = "FILE")]
        gcn: Option<PathBuf>,
        /// Where to write the instrumented PTX or assembly (default: stdout).
        #[arg(short = 'o', long, value_name = "FILE")]
        output: Option<PathBuf>,
        /// With --gcn: assemble and link the instrumented file into this code object for
        /// its `.amdgcn_target` (LLVM 19's llvm-mc and ld.lld). A kernel branch the
        /// snippets push past its 16-bit reach becomes a long branch, verified again, and
        /// the written assembly is the one assembled.
        #[arg(long, value_name = "FILE", requires = "gcn")]
        code_object: Option<PathBuf>,
        /// With --ptx: assemble the module and its instrumented form with `ptxas -v` and
        /// compare each instrumented kernel's registers, stack and largest block; a kernel
        /// whose instrumented form cannot take a block the original takes is said
        /// UNSUPPORTED for those blocks (a run serves them with the original).
        #[arg(long, requires = "ptx")]
        resources: bool,
        /// With --ptx: the JIT budget (as `warptrace --jit-budget`); a kernel over it is
        /// left unchanged.
        #[arg(long, value_name = "N|off", value_parser = jit_budget, requires = "ptx")]
        jit_budget: Option<JitBudget>,
        /// With --ptx: assemble the module plain and instrumented with `ptxas` and print
        /// the time and peak memory each took beside the prediction.
        #[arg(long, requires = "ptx")]
        assemble: bool,
    },
}

/// How maps and records are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// bpftrace's text output.
    Text,
    /// NDJSON records, as `bpftrace -f json`.
    Json,
}

/// A code generator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Target {
    /// NVIDIA PTX.
    Ptx,
    /// AMD GCN (`verify`; `--require-cert` takes PTX certificates only).
    Gcn,
}

impl Target {
    /// The name certificates use.
    pub fn name(self) -> &'static str {
        self.isa().name()
    }

    /// The back end.
    pub fn isa(self) -> warptrace_codegen_ptx::Target {
        match self {
            Target::Ptx => warptrace_codegen_ptx::Target::Ptx,
            Target::Gcn => warptrace_codegen_ptx::Target::Gcn,
        }
    }
}

/// A stage `-d` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Stage {
    /// The IR in its text form.
    Ir,
    /// The JSON bundle handed to the runtime.
    Bundle,
    /// The kernels of --ptx FILE instrumented.
    Ptx,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum Emit {
    /// The IR in its text form.
    Ir,
    /// The JSON bundle handed to the runtime.
    Bundle,
}

/// `warptrace -e 'kernel:entry { @n = count(); }' FLAGS -- true` parsed, for the tests of
/// the modules that act on the run's flags.
#[cfg(test)]
pub(crate) fn parse_run(flags: &[&str]) -> Result<RunArgs, clap::Error> {
    use clap::Parser;
    let argv = ["warptrace", "-e", "kernel:entry { @n = count(); }"];
    let tail = ["--", "true"];
    Cli::try_parse_from(argv.iter().chain(flags).chain(&tail)).map(|c| c.run)
}
