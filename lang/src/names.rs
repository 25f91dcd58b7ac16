//! The names the language knows: builtins, functions and attach points, both those of
//! the current subset and those of the full language (LANGUAGE.md) that are not
//! supported yet, so that the latter get "not supported yet" rather than "unknown".

use warptrace_ir::{AttachPoint, MemOp, MemSpace, SiteValue, Special};

/// What a builtin reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Builtin {
    /// A special register (`kernel` included).
    Special(Special),
    /// An operand of the probed instruction; valid only at instruction probes.
    Site(SiteValue),
}

/// The builtins of the subset, in the order hints list them.
pub(crate) const BUILTINS: [(&str, Builtin); 10] = [
    ("tid.x", Builtin::Special(Special::TidX)),
    ("tid.y", Builtin::Special(Special::TidY)),
    ("tid.z", Builtin::Special(Special::TidZ)),
    ("ctaid.x", Builtin::Special(Special::CtaidX)),
    ("ctaid.y", Builtin::Special(Special::CtaidY)),
    ("ctaid.z", Builtin::Special(Special::CtaidZ)),
    ("smid", Builtin::Special(Special::Smid)),
    ("clock64", Builtin::Special(Special::Clock64)),
    ("kernel", Builtin::Special(Special::KernelId)),
    ("bytes", Builtin::Site(SiteValue::Bytes)),
];

/// Builtins of the full language that the subset does not have yet.
const FUTURE_BUILTINS: &[&str] = &[
    "clock",
    "globaltimer",
    "nsmid",
    "warp",
    "lane",
    "ntid.x",
    "ntid.y",
    "ntid.z",
    "nctaid.x",
    "nctaid.y",
    "nctaid.z",
    "thread",
    "block",
    "activemask",
    "active",
    "launch",
    "pc",
    "file",
    "line",
    "addr",
    "value",
    "opcode",
];

/// Looks a builtin up: `Ok` if it is in the subset, `Err(true)` if it is a builtin of
/// the full language, `Err(false)` if it is unknown.
pub(crate) fn builtin(name: &str) -> Result<Builtin, bool> {
    BUILTINS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, b)| *b)
        .ok_or_else(|| FUTURE_BUILTINS.contains(&name))
}

pub(crate) fn builtin_hint() -> String {
    let names: Vec<&str> = BUILTINS.iter().map(|(n, _)| *n).collect();
    format!("valid builtins: {}", names.join(", "))
}

/// Where instruction-site builtins such as `bytes` are valid.
pub(crate) const SITE_BUILTINS_VALID_AT: &str = "mem:global:load, mem:global:store, mem:global:*";

/// Whether a builtin may be read at an attach point.
pub(crate) fn valid_at(builtin: Builtin, point: &AttachPoint) -> bool {
    match builtin {
        Builtin::Special(_) => true,
        Builtin::Site(_) => matches!(point, AttachPoint::Mem { .. }),
    }
}

/// The aggregation functions of the subset.
pub(crate) const FUNCTIONS: [&str; 2] = ["count", "sum"];

/// Functions of the full language that the subset does not have yet.
const FUTURE_FUNCTIONS: &[&str] = &[
    "min", "max", "avg", "stats", "hist", "lhist", "printf", "delete", "clear", "zero", "print",
    "unroll",
];

/// Whether a function that is not in the subset belongs to the full language.
pub(crate) fn is_future_function(name: &str) -> bool {
    FUTURE_FUNCTIONS.contains(&name)
}

pub(crate) fn function_hint() -> String {
    format!("valid functions: {}", FUNCTIONS.join(", "))
}

/// The attach points of the subset, as hints list them.
const ATTACH_POINTS: &str =
    "kernel:entry, kernel:exit, mem:global:load, mem:global:store, mem:global:*";

pub(crate) fn attach_hint() -> String {
    format!(
        "valid attach points: {ATTACH_POINTS}, each with an optional kernel-name glob \
         as last component (e.g. kernel:exit:*gemm*)"
    )
}

/// Resolves an attach point's components: `Ok((point, glob))` if the subset has it,
/// `Err(true)` if the full language has it, `Err(false)` if it is unknown.
pub(crate) fn attach_point(parts: &[String]) -> Result<(AttachPoint, Option<String>), bool> {
    let strs: Vec<&str> = parts.iter().map(String::as_str).collect();
    let (point, rest) = match strs.as_slice() {
        ["kernel", "entry", rest @ ..] => (AttachPoint::KernelEntry, rest),
        ["kernel", "exit", rest @ ..] => (AttachPoint::KernelExit, rest),
        ["mem", space, op, rest @ ..] => {
            let space = mem_space(space).ok_or(false)?;
            let op = mem_op(op).ok_or(false)?;
            if space != MemSpace::Global || !matches!(op, MemOp::Load | MemOp::Store | MemOp::Any) {
                return Err(rest.len() <= 1);
            }
            (AttachPoint::Mem { space, op }, rest)
        }
        _ => return Err(is_future_attach(&strs)),
    };
    match rest {
        [] => Ok((point, None)),
        [glob] => Ok((point, Some((*glob).to_string()))),
        _ => Err(false),
    }
}

fn mem_space(s: &str) -> Option<MemSpace> {
    Some(match s {
        "global" => MemSpace::Global,
        "shared" => MemSpace::Shared,
        "local" => MemSpace::Local,
        "generic" => MemSpace::Generic,
        "*" => MemSpace::Any,
        _ => return None,
    })
}

fn mem_op(s: &str) -> Option<MemOp> {
    Some(match s {
        "load" => MemOp::Load,
        "store" => MemOp::Store,
        "atomic" => MemOp::Atomic,
        "async" => MemOp::Async,
        "*" => MemOp::Any,
        _ => return None,
    })
}

/// Whether the components name an attach point of the full language (other than the
/// `kernel:` and `mem:` ones, handled above).
fn is_future_attach(parts: &[&str]) -> bool {
    match parts {
        ["begin" | "end" | "BEGIN" | "END"] => true,
        ["launch", "complete"] => true,
        ["tensor", "mma", rest @ ..]
        | ["sync", "barrier", rest @ ..]
        | ["loop", "header" | "backedge" | "exit", rest @ ..] => rest.len() <= 1,
        ["branch", rest @ ..] => rest.len() <= 1,
        ["line", _file, _range] => true,
        ["ptx" | "gcn", _opcode, rest @ ..] => rest.len() <= 1,
        _ => false,
    }
}
