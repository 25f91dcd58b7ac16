//! Raw-assembly probes in NEUTRINO's TOML format, checked by the same kernel-level
//! verifier as compiled probes.
//!
//! A probe file has one table per probe:
//!
//! ```toml
//! [block_sched]
//! position = "kernel"              # or opcode patterns: "ld.global:st.global", "bra", …
//! datamodel = "warp:16"            # level:bytes[:records]; only probes that SAVE need one
//! before = """.reg .b64 %lstart;
//! mov.u64 %lstart, %clock64;"""
//! after = """…
//! SAVE.u64 {%lstart};"""
//! ```
//!
//! [`load_probes`] parses it (every error carries its line in the file);
//! [`instrument_raw`] finds each probe's sites in every kernel of a PTX module, expands
//! the helpers (`SAVE`, `ADDR`, `BYTES`, `OUT`, `IN1`..`IN3`) into PTX over warptrace's
//! map buffer, splices the snippets with a prologue and the map parameter, and runs
//! [`warptrace_verifier::verify_kernel`]; a kernel any violation rejects is left
//! unmodified, and each rejection names the rule, the probe, the file line of the
//! offending assembly line and what it would corrupt. [`check_raw_probes`] returns just
//! the report. `docs/raw-probes.md` describes the format and the mapping of `datamodel`
//! onto warptrace's array maps.

mod bounds;
mod deny;
mod expand;
mod load;
mod locate;
mod prologue;
mod sites;

use crate::jit_cost::{refusal, Estimate, JitBudget, Shape};
use crate::parse::{FunctionKind, StmtKind};
use crate::splice::{apply, plan_raw, reg_widths, At};
use crate::Error;
use std::fmt;
use warptrace_ir::{KeyType, MapDecl, MapKind, MapLayout, Per, ValueKind};
use warptrace_verifier::{verify_kernel, KernelRule};

/// A loaded probe file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeFile {
    /// The probes in file order.
    pub probes: Vec<RawProbe>,
}

/// One probe of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawProbe {
    /// Its table name.
    pub name: String,
    /// Line of its table header.
    pub line: u32,
    /// Where it runs.
    pub positions: Vec<Position>,
    /// Line of its `position` value.
    pub position_line: u32,
    /// Where its `SAVE`s go, if it saves.
    pub datamodel: Option<Datamodel>,
    /// Lines run before the site (at kernel entry for `kernel`).
    pub before: Option<Vec<AsmLine>>,
    /// Lines run after the site (before every `ret`/`exit` for `kernel`).
    pub after: Option<Vec<AsmLine>>,
    /// Run even where the site instruction's guard predicate is false.
    pub no_pred: bool,
}

/// A probe position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Position {
    /// `kernel`: `before` at the kernel's entry, `after` before each `ret`/`exit`.
    Kernel,
    /// An opcode pattern (`ld.global`, `cp.async.cg`, `mma.sync.aligned`): every
    /// instruction whose dot-separated opcode contains these components in a row.
    Opcode(String),
}

/// A probe's `datamodel`: a record of `bytes` per thread or warp, `records` of them,
/// stored in a warptrace array map named after the probe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Datamodel {
    /// One row of records per thread or per warp.
    pub per: Per,
    /// Bytes of one record (what the `SAVE`s of one snippet run write).
    pub bytes: u32,
    /// Records per thread (warp); further saves count as drops.
    pub records: u32,
    /// Line of the `datamodel` value.
    pub line: u32,
}

/// One assembly line of a probe, comments removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AsmLine {
    /// The line's text, whitespace collapsed.
    pub text: String,
    /// Its 1-based line in the probe file.
    pub line: u32,
}

/// Why a probe file cannot be loaded or expanded. Every variant but [`RawError::Ptx`]
/// carries the 1-based line of the probe file at fault.
#[derive(Debug, thiserror::Error)]
pub enum RawError {
    /// Not valid TOML.
    #[error("line {line}: invalid TOML: {message}")]
    Toml {
        /// Line.
        line: u32,
        /// The parser's message.
        message: String,
    },
    /// A key this format does not have.
    #[error("line {line}: probe `{probe}` has an unknown key `{key}`")]
    UnknownKey {
        /// The probe.
        probe: String,
        /// The key.
        key: String,
        /// Line.
        line: u32,
    },
    /// A required key is missing.
    #[error("line {line}: probe `{probe}` has no `{key}`")]
    MissingKey {
        /// The probe.
        probe: String,
        /// The key.
        key: String,
        /// Line of the probe's table.
        line: u32,
    },
    /// A value of the wrong type.
    #[error("line {line}: `{key}` of probe `{probe}` must be {expected}")]
    WrongType {
        /// The probe (`(top level)` for a top-level key).
        probe: String,
        /// The key.
        key: String,
        /// Line.
        line: u32,
        /// What was expected.
        expected: String,
    },
    /// A position that is neither `kernel` nor a known PTX opcode pattern.
    #[error("line {line}: probe `{probe}` has an unknown position `{position}`")]
    UnknownPosition {
        /// The probe.
        probe: String,
        /// The position.
        position: String,
        /// Line.
        line: u32,
    },
    /// A malformed `datamodel`.
    #[error("line {line}: probe `{probe}` has an invalid datamodel `{datamodel}`: {why}")]
    BadDatamodel {
        /// The probe.
        probe: String,
        /// The value.
        datamodel: String,
        /// Line.
        line: u32,
        /// What is wrong.
        why: String,
    },
    /// An upper-case word that is not one of the helpers.
    #[error(
        "line {line}: probe `{probe}` uses an unknown helper `{helper}` (helpers: SAVE.u32, \
         SAVE.u64, ADDR, BYTES, OUT, IN1, IN2, IN3)"
    )]
    UnknownHelper {
        /// The probe.
        probe: String,
        /// The word.
        helper: String,
        /// Line.
        line: u32,
    },
    /// A helper the site does not have (`ADDR` of a branch, `IN3` of a two-operand
    /// instruction, any operand helper at `kernel`).
    #[error(
        "line {line}: probe `{probe}` uses `{helper}` at kernel `{kernel}`, line {ptx_line}, \
         which has none: {why}"
    )]
    HelperUnavailable {
        /// The probe.
        probe: String,
        /// The helper.
        helper: String,
        /// Line in the probe file.
        line: u32,
        /// The kernel.
        kernel: String,
        /// Line of the site in the PTX (the kernel's line for `kernel` positions).
        ptx_line: u32,
        /// Why.
        why: String,
    },
    /// A malformed `SAVE`, a `SAVE` without a datamodel, or saves that do not fit the
    /// datamodel's record.
    #[error("line {line}: probe `{probe}`: {why}")]
    BadSave {
        /// The probe.
        probe: String,
        /// Line.
        line: u32,
        /// What is wrong.
        why: String,
    },
    /// A probe statement the model does not define (an unmodelled opcode, the carry
    /// flag, a vector component write, a directive other than `.reg`, a scope, a
    /// malformed operand) or that does not lex as PTX: refused by name (default deny).
    #[error("line {line}: probe `{probe}`: denied: {why}")]
    Denied {
        /// The probe.
        probe: String,
        /// Line.
        line: u32,
        /// What is refused and why.
        why: String,
    },
    /// A probe line uses warptrace's reserved prefix `__wt_`.
    #[error("line {line}: probe `{probe}` uses the reserved prefix `__wt_`")]
    ReservedName {
        /// The probe.
        probe: String,
        /// Line.
        line: u32,
    },
    /// Valid NEUTRINO, not supported here.
    #[error("line {line}: not supported: {what}")]
    Unsupported {
        /// Line.
        line: u32,
        /// What.
        what: String,
    },
    /// The PTX module cannot be parsed or spliced.
    #[error(transparent)]
    Ptx(#[from] Error),
}

/// One verifier rejection of a raw probe, mapped back to the probe file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawRejection {
    /// The rule broken.
    pub rule: KernelRule,
    /// The kernel.
    pub kernel: String,
    /// The probe whose line is at fault; `None` for the kernel's own code or the
    /// instrumenter's prologue.
    pub probe: Option<String>,
    /// The 1-based line of the probe file holding the offending assembly line (for
    /// expanded helpers, the line that used the helper).
    pub toml_line: Option<u32>,
    /// The line of the offending instruction in the spliced kernel (numbered as in
    /// [`RawInstrumented::ptx`] for kernels before it that were accepted).
    pub ptx_line: u32,
    /// The offending instruction as spliced.
    pub text: String,
    /// The kernel register, label, instruction or memory it would corrupt.
    pub corrupts: Option<String>,
    /// The verifier's message.
    pub message: String,
}

impl fmt::Display for RawRejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.probe, self.toml_line) {
            (Some(p), Some(l)) => write!(f, "probe `{p}`, line {l}: ")?,
            (Some(p), None) => write!(f, "probe `{p}`: ")?,
            (None, _) => write!(f, "instrumenter: ")?,
        }
        write!(
            f,
            "{:?}: {} (`{}`, kernel {} line {})",
            self.rule, self.message, self.text, self.kernel, self.ptx_line
        )?;
        if let Some(c) = &self.corrupts {
            write!(f, "; would corrupt {c}")?;
        }
        Ok(())
    }
}

/// What happened to one kernel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RawStatus {
    /// Every snippet verified; the kernel is instrumented.
    Accepted,
    /// No probe position matched; the kernel is unchanged.
    NoSites,
    /// The verifier rejected the splice; the kernel is unchanged.
    Rejected(Vec<RawRejection>),
    /// The instrumented kernel's predicted JIT compile is over the budget
    /// ([`crate::jit_cost`]); the kernel is unchanged. The prediction and the budget.
    OverBudget(String),
}

/// One kernel of the module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawKernel {
    /// Its (mangled) name.
    pub name: String,
    /// Snippets spliced (probe runs at sites), the prologue not counted.
    pub sites: u32,
    /// Instrumented or why not.
    pub status: RawStatus,
}

/// The outcome of checking a probe file against a module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawReport {
    /// The array maps the datamodels became, in probe order (named after their probes).
    pub maps: Vec<MapDecl>,
    /// Their layout in the map buffer.
    pub layout: MapLayout,
    /// One entry per `.entry` kernel with a body, in text order.
    pub kernels: Vec<RawKernel>,
}

impl RawReport {
    /// Every rejection of every kernel.
    pub fn rejections(&self) -> impl Iterator<Item = &RawRejection> {
        self.kernels.iter().flat_map(|k| match &k.status {
            RawStatus::Rejected(r) => r.as_slice(),
            RawStatus::Accepted | RawStatus::NoSites | RawStatus::OverBudget(_) => &[],
        })
    }

    /// Whether no kernel was rejected.
    pub fn accepted(&self) -> bool {
        self.rejections().next().is_none()
    }
}

/// A module instrumented with raw probes.
#[derive(Debug, Clone)]
pub struct RawInstrumented {
    /// The module with every accepted kernel instrumented (its map parameter
    /// [`crate::MAP_PARAM`] appended); rejected kernels and kernels without sites are
    /// byte-identical to the input.
    pub ptx: String,
    /// What happened to each kernel.
    pub report: RawReport,
}

/// Parses a NEUTRINO probe file.
pub fn load_probes(toml: &str) -> Result<ProbeFile, RawError> {
    load::load(toml)
}

/// Checks the probes of `toml` against every kernel of `ptx` and reports, per kernel,
/// whether the verifier accepts the splice and, for each rejection, the rule, the probe,
/// the probe file's line and what it would corrupt.
pub fn check_raw_probes(toml: &str, ptx: &str) -> Result<RawReport, RawError> {
    instrument_raw(toml, ptx).map(|i| i.report)
}

/// Instruments every kernel of `ptx` with the probes of `toml`; kernels the verifier
/// rejects stay unmodified (and are listed with their rejections). No JIT budget, as
/// [`crate::instrument`].
pub fn instrument_raw(toml: &str, ptx: &str) -> Result<RawInstrumented, RawError> {
    instrument_raw_within(toml, ptx, &JitBudget::OFF)
}

/// [`instrument_raw`] within a JIT budget: a kernel whose instrumented form is predicted to
/// cost more than `budget` allows stays unmodified ([`RawStatus::OverBudget`]), before its
/// splice is verified. A raw probe's author is not trusted with the program's first launch
/// any more than with its registers.
pub fn instrument_raw_within(
    toml: &str,
    ptx: &str,
    budget: &JitBudget,
) -> Result<RawInstrumented, RawError> {
    let file = load::load(toml)?;
    let maps = map_decls(&file);
    let map_of = map_indices(&file);
    let layout = MapLayout::new(&maps);
    let module = crate::parse(ptx)?;
    let mut accepted = Vec::new();
    let mut added = 0u32;
    let mut kernels = Vec::new();
    for f in module.functions() {
        let Some(body) = f.body.as_ref().filter(|_| f.kind == FunctionKind::Entry) else {
            continue;
        };
        let sites = sites::find(&file, body);
        if sites.is_empty() {
            kernels.push(RawKernel {
                name: f.name.clone(),
                sites: 0,
                status: RawStatus::NoSites,
            });
            continue;
        }
        if module.names_with_prefix(f, crate::lower::PREFIX) {
            return Err(Error::ReservedPrefix {
                kernel: f.name.clone(),
            }
            .into());
        }
        shadows(&file, &module, f)?;
        let widths = reg_widths(f);
        let ctx = expand::Ctx {
            file: &file,
            layout: &layout,
            map_of: &map_of,
            reg_bits: &|r: &str| widths.get(r),
            kernel: &f.name,
        };
        let mut snippets = vec![prologue::prologue(&ctx)?];
        for (n, site) in sites.iter().enumerate() {
            let instr = site.stmt.and_then(|i| match &body.stmts[i].kind {
                StmtKind::Instr(x) => Some((x, body.stmts[i].line)),
                _ => None,
            });
            snippets.push(expand::snippet(&ctx, site, instr, n as u32 + 1, f.line)?);
        }
        let kernel = Shape::of_text(module.function_text(f));
        let snippet_shape: Shape = snippets
            .iter()
            .map(|s| Shape::of_text(&s.lines.join("\n")))
            .sum();
        let estimate = Estimate::of(kernel, snippet_shape);
        if !budget.admits(&estimate) {
            kernels.push(RawKernel {
                name: f.name.clone(),
                sites: sites.len() as u32,
                status: RawStatus::OverBudget(refusal(&estimate, budget)),
            });
            continue;
        }
        let planned: Vec<(At, Vec<String>)> =
            snippets.iter().map(|s| (s.at, s.lines.clone())).collect();
        let plan = plan_raw(&module, f, &planned, true, f.line + added)?;
        let verdict = verify_kernel(&plan.original, &plan.spliced).and_then(|()| {
            use warptrace_verifier::KernelModel;
            let found = bounds::check(&plan.spliced.items_ref(), &layout, &f.name);
            if found.is_empty() {
                Ok(())
            } else {
                Err(warptrace_verifier::KernelErrors(found))
            }
        });
        let status = match verdict {
            Ok(()) => {
                added += crate::splice::added_lines(&plan.insertions);
                accepted.extend(plan.insertions);
                RawStatus::Accepted
            }
            Err(errors) => RawStatus::Rejected(
                errors
                    .0
                    .into_iter()
                    .map(|v| locate::locate(&file, &snippets, &plan.first_lines, v))
                    .collect(),
            ),
        };
        kernels.push(RawKernel {
            name: f.name.clone(),
            sites: sites.len() as u32,
            status,
        });
    }
    let (out, _) = apply(ptx, &accepted);
    Ok(RawInstrumented {
        ptx: out,
        report: RawReport {
            maps,
            layout,
            kernels,
        },
    })
}

/// Refuses a probe register or label named like a parameter, variable or function the
/// kernel refers to: hoisted to the kernel's scope, a `.reg global_smem` would shadow
/// the shared variable in the kernel's own instructions, and a label named like a
/// parameter makes ptxas reject the module. (A name the kernel declares as a register or
/// a label is the verifier's: `RegisterIsolation`, `ControlFlow`.)
fn shadows(
    file: &ProbeFile,
    module: &crate::parse::Module,
    f: &crate::parse::Function,
) -> Result<(), RawError> {
    use crate::parse::{AddrBase, Operand};
    let mut symbols: std::collections::HashSet<String> = (0..f.params.len())
        .filter_map(|i| module.param_text(f, i))
        .filter_map(|t| {
            t.split_whitespace()
                .last()
                .map(|n| n.trim_end_matches(',').to_string())
        })
        .collect();
    let stmts = f.body.iter().flat_map(|b| &b.stmts);
    let mut labels = std::collections::HashSet::new();
    let mut decls = Vec::new();
    fn collect(op: &Operand, out: &mut std::collections::HashSet<String>) {
        match op {
            Operand::Symbol(s) => {
                out.insert(s.to_string());
            }
            Operand::Addr(a) => {
                if let AddrBase::Symbol(s) = &a.base {
                    out.insert(s.to_string());
                }
            }
            Operand::Vector(v) | Operand::Group(v) => v.iter().for_each(|o| collect(o, out)),
            _ => {}
        }
    }
    for s in stmts {
        match &s.kind {
            StmtKind::Label(l) => {
                labels.insert(l.to_string());
            }
            StmtKind::Directive(Some(d)) => decls.push(d),
            StmtKind::Instr(i) => i.operands.iter().for_each(|o| collect(o, &mut symbols)),
            _ => {}
        }
    }
    symbols.retain(|n| !labels.contains(n) && !decls.iter().any(|d| d.declares(n)));
    for probe in &file.probes {
        for l in [&probe.before, &probe.after]
            .into_iter()
            .flatten()
            .flatten()
        {
            let names: Vec<&str> = match l.text.strip_suffix(':') {
                Some(label) => vec![label],
                None => match l.text.strip_prefix(".reg ") {
                    Some(rest) => rest
                        .trim_end_matches(';')
                        .split_whitespace()
                        .skip(1)
                        .map(|n| n.trim_end_matches(',').split('<').next().unwrap_or(n))
                        .collect(),
                    None => Vec::new(),
                },
            };
            if let Some(n) = names.iter().find(|n| symbols.contains(**n)) {
                return Err(RawError::Denied {
                    probe: probe.name.clone(),
                    line: l.line,
                    why: format!(
                        "`{n}` is a parameter, variable or function of kernel `{}`: a probe \
                         name would shadow it (or clash with it) in the kernel's scope",
                        f.name
                    ),
                });
            }
        }
    }
    Ok(())
}

/// One array map per probe with a datamodel, named after the probe: `per` and
/// `records` from the datamodel, `ceil(bytes / 8)` record words.
fn map_decls(file: &ProbeFile) -> Vec<MapDecl> {
    file.probes
        .iter()
        .filter_map(|p| p.datamodel.as_ref().map(|d| (p, d)))
        .map(|(p, d)| MapDecl {
            name: p.name.clone(),
            kind: MapKind::Array {
                per: d.per,
                slots: d.records,
            },
            keys: Vec::new(),
            value: ValueKind::Record(vec![
                KeyType::Int { signed: false };
                d.bytes.div_ceil(8) as usize
            ]),
        })
        .collect()
}

/// For each probe, the index of its map, if it has a datamodel.
fn map_indices(file: &ProbeFile) -> Vec<Option<usize>> {
    let mut next = 0;
    file.probes
        .iter()
        .map(|p| {
            p.datamodel.as_ref().map(|_| {
                next += 1;
                next - 1
            })
        })
        .collect()
}
