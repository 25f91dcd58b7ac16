//! What an instrumented kernel costs the driver's JIT, predicted before the module is
//! handed over, and the budget that cost must stay within (issue 42, decision 0045).
//!
//! Invariant: [`crate::instrument_within`] instruments a kernel only if the predicted
//! `ptxas` time and peak memory of its instrumented form (the kernel and the device
//! functions cloned for it) stay within [`JitBudget::allowance`] of the original's
//! prediction. A kernel over it is left unmodified, as [`crate::KernelStatus::OverBudget`]
//! with both predictions and the budget, so a probe can never make the first launch of a
//! program stall for minutes or grow the process by gigabytes inside the JIT.
//!
//! The prediction is a fit of `ptxas` 13.0 on this repository's PTX corpus, the CCCL
//! algorithms and the two reproductions of the issue (`tests/corpus/jit/`), plain and with
//! every library probe and six more programs: 514 module compiles, measured on the 2-core
//! reference machine of decision 0045. Its inputs are each function's shape as text
//! ([`Shape`]): statements and basic-block boundaries (labels and branches). `ptxas`'s
//! time and memory grow with statements times blocks — its data-flow passes visit every
//! block for every value live across it — which is what instrumenting a kernel at
//! thousands of sites multiplies. The central fit puts compiles over a second at 0.45–1.5×
//! of what they took; [`predict`] returns it with a margin of [`MARGIN`], an upper
//! estimate, so that a kernel near the budget is refused rather than let through.
//! `tests/tests/jit_budget.rs` checks the budget against measured compiles.

mod measure;

pub use measure::{measure, MeasureError};

/// A kernel's size as `ptxas` sees it, counted from its text.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Shape {
    /// Instructions (lines ending in `;` that are not directives or comments).
    pub statements: u64,
    /// Labels (lines ending in `:`): where basic blocks start.
    pub labels: u64,
    /// Branches (`bra`, `brx.idx`): where basic blocks end.
    pub branches: u64,
}

impl Shape {
    /// Basic-block boundaries: labels and branches.
    pub fn blocks(&self) -> u64 {
        self.labels + self.branches
    }

    /// The shape of PTX text: a function, a snippet, or several of either.
    pub fn of_text(text: &str) -> Shape {
        let mut s = Shape::default();
        for line in text.lines() {
            let line = line.trim();
            if line.is_empty() || line.starts_with("//") {
                continue;
            }
            if line.ends_with(';') && !line.starts_with('.') {
                s.statements += 1;
                if is_branch(line) {
                    s.branches += 1;
                }
            } else if line.ends_with(':') {
                s.labels += 1;
            }
        }
        s
    }
}

impl std::ops::Add for Shape {
    type Output = Shape;
    fn add(self, o: Shape) -> Shape {
        Shape {
            statements: self.statements + o.statements,
            labels: self.labels + o.labels,
            branches: self.branches + o.branches,
        }
    }
}

impl std::iter::Sum for Shape {
    fn sum<I: Iterator<Item = Shape>>(iter: I) -> Shape {
        iter.fold(Shape::default(), |a, b| a + b)
    }
}

/// Whether an instruction line is a branch: its opcode (after any `@%p` guard) is `bra`
/// or `brx` with any modifiers.
fn is_branch(line: &str) -> bool {
    let rest = match line.strip_prefix('@') {
        Some(guarded) => guarded
            .split_once(char::is_whitespace)
            .map_or("", |(_, r)| r),
        None => line,
    };
    let opcode = rest
        .trim_start()
        .split(|c: char| c.is_whitespace() || c == ';')
        .next();
    opcode.is_some_and(|op| {
        let base = op.split('.').next().unwrap_or("");
        base == "bra" || base == "brx"
    })
}

/// A compile: seconds of `ptxas` and megabytes of its peak memory. A prediction leaves out
/// the process's fixed start-up cost ([`BASE`]); a [`measure`]ment includes it.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Cost {
    /// Seconds of CPU time.
    pub seconds: f64,
    /// Megabytes (2^20 bytes) of peak resident memory.
    pub megabytes: f64,
}

impl std::ops::Add for Cost {
    type Output = Cost;
    fn add(self, o: Cost) -> Cost {
        Cost {
            seconds: self.seconds + o.seconds,
            megabytes: self.megabytes + o.megabytes,
        }
    }
}

impl std::ops::Sub for Cost {
    type Output = Cost;
    fn sub(self, o: Cost) -> Cost {
        Cost {
            seconds: self.seconds - o.seconds,
            megabytes: self.megabytes - o.megabytes,
        }
    }
}

/// What `ptxas` costs before it reads a kernel (start-up, an empty module): not part of
/// any kernel's [`Cost`].
pub const BASE: Cost = Cost {
    seconds: 0.02,
    megabytes: 28.0,
};

/// Seconds per statement.
const SECONDS_PER_STATEMENT: f64 = 6.0e-5;
/// Seconds per statement × block boundary (the data-flow passes).
const SECONDS_PER_STATEMENT_BLOCK: f64 = 2.7e-8;
/// Megabytes per statement.
const MEGABYTES_PER_STATEMENT: f64 = 2.3e-3;
/// Megabytes per statement × block boundary.
const MEGABYTES_PER_STATEMENT_BLOCK: f64 = 9.0e-7;
/// How much [`predict`] adds to the central fit: the most it under-predicted a compile of
/// over a second was 0.45× (snippets heavy in hash updates are dearer per statement than
/// straight-line counter adds, which it over-predicts up to 2.3×).
pub const MARGIN: f64 = 2.2;

/// The predicted compile of a function of shape `s`: an upper estimate (see the module's
/// documentation).
pub fn predict(s: Shape) -> Cost {
    let (n, b) = (s.statements as f64, s.blocks() as f64);
    Cost {
        seconds: MARGIN * (SECONDS_PER_STATEMENT * n + SECONDS_PER_STATEMENT_BLOCK * n * b),
        megabytes: MARGIN * (MEGABYTES_PER_STATEMENT * n + MEGABYTES_PER_STATEMENT_BLOCK * n * b),
    }
}

/// The predicted compile of a whole module, plain and as `result` instrumented it: `ptxas`'s
/// start-up, every function with a body, and each instrumented kernel's growth.
pub fn predict_module(
    original: &str,
    result: &crate::Instrumented,
) -> Result<Estimate, crate::Error> {
    let module = crate::parse(original)?;
    let plain = module
        .functions()
        .iter()
        .filter(|f| f.body.is_some())
        .map(|f| predict(Shape::of_text(module.function_text(f))))
        .fold(BASE, |a, b| a + b);
    let growth = result
        .kernels
        .iter()
        .filter(|k| matches!(k.status, crate::KernelStatus::Instrumented { .. }))
        .filter_map(|k| k.jit)
        .fold(Cost::default(), |a, e| a + (e.instrumented - e.plain));
    Ok(Estimate {
        plain,
        instrumented: plain + growth,
    })
}

/// A kernel's predicted compile, plain and instrumented.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    /// The original kernel (and the device functions it calls).
    pub plain: Cost,
    /// The instrumented kernel (and its callees, original and cloned).
    pub instrumented: Cost,
}

impl Estimate {
    /// A function of shape `kernel`, plain and with snippets of shape `snippets` spliced in.
    pub fn of(kernel: Shape, snippets: Shape) -> Estimate {
        Estimate {
            plain: predict(kernel),
            instrumented: predict(kernel + snippets),
        }
    }
}

/// As `ptxas` on the kernel alone would take it, start-up included: `ptxas 0.13 s → 28 s
/// (185.5×), 48 MB → 341 MB`.
impl std::fmt::Display for Estimate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (p, i) = (self.plain + BASE, self.instrumented + BASE);
        write!(
            f,
            "ptxas {} → {} ({}), {} → {}",
            seconds(p.seconds),
            seconds(i.seconds),
            ratio(i.seconds, p.seconds),
            megabytes(p.megabytes),
            megabytes(i.megabytes),
        )
    }
}

/// Why a kernel over `budget` is unchanged: the prediction and the budget, in a sentence.
pub fn refusal(estimate: &Estimate, budget: &JitBudget) -> String {
    format!("predicted {estimate} instrumented; the budget (--jit-budget) is {budget}")
}

/// How much more than the original an instrumented kernel may cost the JIT.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JitBudget {
    /// The instrumented kernel may cost this many times the original's time and memory …
    /// (`None`: no budget, every kernel is instrumented).
    pub factor: Option<f64>,
    /// … or the original's plus these seconds and megabytes, whichever allows more.
    pub floor: Cost,
}

impl Default for JitBudget {
    /// Four times the original's compile, or the original's plus 2 s and 512 MB.
    fn default() -> Self {
        JitBudget {
            factor: Some(DEFAULT_FACTOR),
            floor: Cost {
                seconds: 2.0,
                megabytes: 512.0,
            },
        }
    }
}

/// The default multiple ([`JitBudget::default`]).
pub const DEFAULT_FACTOR: f64 = 4.0;

/// Why a `--jit-budget` value was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a JIT budget: give a multiple of the original's compile (a number ≥ 1, e.g. `4`) or `off`")]
pub struct BudgetError(pub String);

impl JitBudget {
    /// No budget: every kernel is instrumented whatever its compile costs.
    pub const OFF: JitBudget = JitBudget {
        factor: None,
        floor: Cost {
            seconds: 0.0,
            megabytes: 0.0,
        },
    };

    /// Parses `--jit-budget`'s value: a multiple (`4`, `2.5`, `8x`) or `off`.
    pub fn parse(text: &str) -> Result<JitBudget, BudgetError> {
        let t = text.trim();
        if t.eq_ignore_ascii_case("off") || t.eq_ignore_ascii_case("none") {
            return Ok(JitBudget::OFF);
        }
        let number = t.strip_suffix(['x', '×']).unwrap_or(t);
        match number.trim().parse::<f64>() {
            Ok(f) if f.is_finite() && f >= 1.0 => Ok(JitBudget {
                factor: Some(f),
                ..JitBudget::default()
            }),
            _ => Err(BudgetError(text.to_owned())),
        }
    }

    /// The budget as `--jit-budget` and `WARPTRACE_JIT_BUDGET` spell it.
    pub fn as_arg(&self) -> String {
        self.factor
            .map_or_else(|| "off".to_owned(), |f| f.to_string())
    }

    /// The most an instrumented kernel whose original costs `plain` may cost (`None`: no
    /// limit).
    pub fn allowance(&self, plain: Cost) -> Option<Cost> {
        let f = self.factor?;
        Some(Cost {
            seconds: (f * plain.seconds).max(plain.seconds + self.floor.seconds),
            megabytes: (f * plain.megabytes).max(plain.megabytes + self.floor.megabytes),
        })
    }

    /// Whether `e` is within the budget.
    pub fn admits(&self, e: &Estimate) -> bool {
        self.allowance(e.plain).is_none_or(|a| {
            e.instrumented.seconds <= a.seconds && e.instrumented.megabytes <= a.megabytes
        })
    }
}

impl std::fmt::Display for JitBudget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.factor {
            None => write!(f, "off"),
            Some(x) => write!(
                f,
                "{x}× the original's, or the original's plus {} and {}",
                seconds(self.floor.seconds),
                megabytes(self.floor.megabytes)
            ),
        }
    }
}

fn seconds(s: f64) -> String {
    if s < 10.0 {
        format!("{s:.2} s")
    } else {
        format!("{s:.0} s")
    }
}

fn megabytes(m: f64) -> String {
    if m < 10_000.0 {
        format!("{m:.0} MB")
    } else {
        format!("{:.1} GB", m / 1024.0)
    }
}

fn ratio(a: f64, b: f64) -> String {
    format!("{:.1}×", a / b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_count_statements_labels_and_branches() {
        let text = "\
.reg .pred %p<3>;
.reg .b32 %r<40>, %x;
// a comment;
$L__BB0_1:
  @%p1 bra $L__BB0_1;
  @!%p2 bra.uni $L__BB0_1;
  brx.idx %r1, $table;
  ld.global.u32 %r1, [%rd1];
  mov.u32 %bra, 1;
{
  .reg .b64 t;
  mov.u64 t, 1;
}
";
        assert_eq!(
            Shape::of_text(text),
            Shape {
                statements: 6,
                labels: 1,
                branches: 3,
            }
        );
    }

    #[test]
    fn the_budget_allows_a_multiple_or_a_floor_whichever_is_more() {
        let b = JitBudget::default();
        let small = Cost {
            seconds: 0.1,
            megabytes: 10.0,
        };
        let a = b.allowance(small).expect("a budget");
        assert_eq!((a.seconds, a.megabytes), (2.1, 522.0));
        let large = Cost {
            seconds: 10.0,
            megabytes: 400.0,
        };
        let a = b.allowance(large).expect("a budget");
        assert_eq!((a.seconds, a.megabytes), (40.0, 1600.0));
        let over = Estimate {
            plain: large,
            instrumented: Cost {
                seconds: 41.0,
                megabytes: 400.0,
            },
        };
        assert!(!b.admits(&over));
        assert!(JitBudget::OFF.admits(&over));
    }

    #[test]
    fn budgets_parse_from_the_command_line() {
        assert_eq!(JitBudget::parse("off"), Ok(JitBudget::OFF));
        assert_eq!(JitBudget::parse("8x").expect("parses").factor, Some(8.0));
        assert_eq!(JitBudget::parse(" 2.5 ").expect("parses").factor, Some(2.5));
        for bad in ["0.5", "-1", "nan", "inf", "four", ""] {
            assert!(JitBudget::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn predictions_grow_with_statements_and_blocks() {
        let a = predict(Shape {
            statements: 1000,
            labels: 10,
            branches: 0,
        });
        let b = predict(Shape {
            statements: 1000,
            labels: 1000,
            branches: 0,
        });
        assert!(b.seconds > a.seconds && b.megabytes > a.megabytes);
    }
}
