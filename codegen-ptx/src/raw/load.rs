//! Loading a NEUTRINO probe file: TOML → [`ProbeFile`], every key, value and assembly
//! line located by its 1-based line in the file.
//!
//! Top-level keys are metadata (`author`, `description`, `analyze_hook`, `dynamic`) or
//! one table per probe. A probe has `position` (required), `datamodel`, `before` and/or
//! `after` (at least one), and `no_pred`. `registers` (the AMD form) and `dynamic = true`
//! / a `count` capacity (sizes from a counting pre-run) are refused as unsupported.

use super::deny::canonical;
use super::{AsmLine, Datamodel, Position, ProbeFile, RawError, RawProbe};
use crate::parse::parse_block;
use std::ops::Range;
use toml::de::{DeTable, DeValue};
use toml::Spanned;
use warptrace_ir::Per;

/// 1-based line of byte `offset` of `src`.
pub(super) fn line_at(src: &str, offset: usize) -> u32 {
    src.get(..offset).unwrap_or(src).matches('\n').count() as u32 + 1
}

/// Metadata keys of the file (ignored, apart from `dynamic`).
const METADATA: &[&str] = &["author", "description", "analyze_hook", "name", "version"];

/// Parses a NEUTRINO probe file.
pub(crate) fn load(src: &str) -> Result<ProbeFile, RawError> {
    let doc = DeTable::parse(src).map_err(|e| RawError::Toml {
        line: e.span().map_or(1, |s| line_at(src, s.start)),
        message: e.message().trim().to_string(),
    })?;
    let mut entries: Vec<(&Spanned<std::borrow::Cow<'_, str>>, &Spanned<DeValue<'_>>)> =
        doc.get_ref().iter().collect();
    entries.sort_by_key(|(k, _)| k.span().start);
    let mut probes = Vec::new();
    for (key, value) in entries {
        let name = key.get_ref().as_ref();
        let line = line_at(src, key.span().start);
        match value.get_ref() {
            DeValue::Table(t) => probes.push(probe(src, name, line, t)?),
            DeValue::Boolean(true) if name == "dynamic" => {
                return Err(RawError::Unsupported {
                    line,
                    what: "`dynamic = true` (record counts from a counting pre-run)".into(),
                })
            }
            _ if METADATA.contains(&name) || name == "dynamic" => {}
            other => {
                return Err(RawError::WrongType {
                    probe: "(top level)".into(),
                    key: name.to_string(),
                    line,
                    expected: format!("a probe table or metadata, found {}", other.type_str()),
                })
            }
        }
    }
    Ok(ProbeFile { probes })
}

/// The string value of key `key` of probe `probe`, with its span.
fn string<'a>(
    probe: &str,
    key: &str,
    value: &'a Spanned<DeValue<'_>>,
    src: &str,
) -> Result<(&'a str, Range<usize>), RawError> {
    match value.get_ref() {
        DeValue::String(s) => Ok((s.as_ref(), value.span())),
        other => Err(RawError::WrongType {
            probe: probe.to_string(),
            key: key.to_string(),
            line: line_at(src, value.span().start),
            expected: format!("a string, found {}", other.type_str()),
        }),
    }
}

fn probe(src: &str, name: &str, line: u32, table: &DeTable<'_>) -> Result<RawProbe, RawError> {
    let mut position = None;
    let mut datamodel = None;
    let mut before = None;
    let mut after = None;
    let mut no_pred = false;
    for (key, value) in table.iter() {
        let k = key.get_ref().as_ref();
        let key_line = line_at(src, key.span().start);
        match k {
            "position" => {
                let (text, span) = string(name, k, value, src)?;
                position = Some((text.to_string(), line_at(src, span.start)));
            }
            "datamodel" => {
                let (text, span) = string(name, k, value, src)?;
                datamodel = Some(parse_datamodel(name, text, line_at(src, span.start))?);
            }
            "before" | "after" => {
                let (text, span) = string(name, k, value, src)?;
                let lines = asm_lines(name, src, text, span)?;
                if k == "before" {
                    before = Some(lines);
                } else {
                    after = Some(lines);
                }
            }
            "no_pred" => match value.get_ref() {
                DeValue::Boolean(b) => no_pred = *b,
                other => {
                    return Err(RawError::WrongType {
                        probe: name.to_string(),
                        key: k.to_string(),
                        line: key_line,
                        expected: format!("a boolean, found {}", other.type_str()),
                    })
                }
            },
            "registers" => {
                return Err(RawError::Unsupported {
                    line: key_line,
                    what: format!(
                        "`registers` in probe `{name}` (the AMD GCN form; PTX probes declare \
                         their registers with `.reg`)"
                    ),
                })
            }
            _ => {
                return Err(RawError::UnknownKey {
                    probe: name.to_string(),
                    key: k.to_string(),
                    line: key_line,
                })
            }
        }
    }
    let (position, position_line) = position.ok_or_else(|| RawError::MissingKey {
        probe: name.to_string(),
        key: "position".into(),
        line,
    })?;
    if before.is_none() && after.is_none() {
        return Err(RawError::MissingKey {
            probe: name.to_string(),
            key: "before` or `after".into(),
            line,
        });
    }
    let positions = parse_positions(name, &position, position_line)?;
    Ok(RawProbe {
        name: name.to_string(),
        line,
        positions,
        position_line,
        datamodel,
        before,
        after,
        no_pred,
    })
}

/// `thread:BYTES[:RECORDS]` or `warp:BYTES[:RECORDS]`.
fn parse_datamodel(probe: &str, text: &str, line: u32) -> Result<Datamodel, RawError> {
    let bad = |why: &str| RawError::BadDatamodel {
        probe: probe.to_string(),
        datamodel: text.to_string(),
        line,
        why: why.to_string(),
    };
    let mut parts = text.split(':').map(str::trim);
    let per = match parts.next() {
        Some("thread") => Per::Thread,
        Some("warp") => Per::Warp,
        _ => return Err(bad("the level is `thread` or `warp`")),
    };
    let bytes: u32 = parts
        .next()
        .and_then(|b| b.parse().ok())
        .filter(|b| (1..=4096).contains(b))
        .ok_or_else(|| bad("the record size is 1 to 4096 bytes"))?;
    let records = match parts.next() {
        None => 1,
        Some("count") => {
            return Err(RawError::Unsupported {
                line,
                what: format!(
                    "datamodel `{text}` of probe `{probe}`: `count` capacities need a counting \
                     pre-run"
                ),
            })
        }
        Some(n) => n
            .parse::<u32>()
            .ok()
            .filter(|n| (1..=1 << 20).contains(n))
            .ok_or_else(|| bad("the record count is 1 to 1048576"))?,
    };
    if parts.next().is_some() {
        return Err(bad("expected `level:bytes[:records]`"));
    }
    Ok(Datamodel {
        per,
        bytes,
        records,
        line,
    })
}

/// `kernel` or opcode patterns, separated by `:` (a `::` inside an opcode is kept).
fn parse_positions(probe: &str, text: &str, line: u32) -> Result<Vec<Position>, RawError> {
    let mut out = Vec::new();
    let guarded = text.replace("::", "\u{0}");
    for part in guarded.split(':') {
        let part = part.replace('\u{0}', "::");
        let p = part.trim().trim_end_matches(';').trim();
        let unknown = || RawError::UnknownPosition {
            probe: probe.to_string(),
            position: part.trim().to_string(),
            line,
        };
        if p == "kernel" {
            out.push(Position::Kernel);
            continue;
        }
        let root = p.split('.').next().unwrap_or("");
        let valid = !p.is_empty()
            && p.split('.').all(|c| {
                !c.is_empty()
                    && c.chars()
                        .all(|ch| ch.is_ascii_alphanumeric() || ch == '_' || ch == ':')
            });
        if !valid || !crate::insn::is_known_root(root) {
            return Err(unknown());
        }
        out.push(Position::Opcode(p.to_string()));
    }
    Ok(out)
}

/// The statements of a `before`/`after` string, each with its line in the file: read
/// with the kernel parser's lexer (statements end at `;`, not at line ends; comments of
/// both kinds anywhere; labels with their `:` anywhere after the name), each refused or
/// printed canonically by [`deny::canonical`](super::deny::canonical).
fn asm_lines(
    probe: &str,
    src: &str,
    value: &str,
    span: Range<usize>,
) -> Result<Vec<AsmLine>, RawError> {
    let raw = src.get(span.clone()).unwrap_or("");
    let first = line_at(src, span.start);
    // Where the content starts: after the opening delimiter, and after the newline that
    // TOML trims right after a multi-line string's delimiter.
    let (delim, multi) = if raw.starts_with("\"\"\"") || raw.starts_with("'''") {
        (3, true)
    } else {
        (1, false)
    };
    let mut content_line = first;
    if multi {
        let after = raw.get(delim..).unwrap_or("");
        if after.starts_with('\n') || after.starts_with("\r\n") {
            content_line += 1;
        }
    }
    let raw_newlines = raw.matches('\n').count();
    let value_lines = value.split('\n').count();
    // Escapes (`\n` in a basic string, line-ending backslashes) break the one-to-one
    // correspondence of the value's lines with the file's; every statement is then
    // located at the value's first content line.
    let trimmed_newline = usize::from(content_line > first);
    let one_to_one = multi && value_lines == raw_newlines - trimmed_newline + 1;
    let located = |line: u32| if one_to_one { line } else { content_line };
    let stmts = parse_block(value, content_line).map_err(|e| match e {
        crate::Error::Syntax { line, message } => RawError::Denied {
            probe: probe.to_string(),
            line: located(line),
            why: message,
        },
        other => RawError::Ptx(other),
    })?;
    stmts
        .iter()
        .map(|stmt| {
            let line = located(stmt.line);
            let text = canonical(stmt).map_err(|why| RawError::Denied {
                probe: probe.to_string(),
                line,
                why,
            })?;
            Ok(AsmLine { text, line })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = r#"author = "t"
description = """two
lines"""

[saving]
position = "kernel"
datamodel = "thread:8"
before = """.reg .u32 %n; // counter
mov.u32 %n, 0;"""
after = """

SAVE.u32 {%n, %n};"""

[sync]
position = "ld.global:st.global:ld.global.L2::128B"
before = "add.u32 %n, %n, BYTES;"
"#;

    #[test]
    fn probes_in_file_order_with_lines() {
        let f = load(FILE).expect("loads");
        let names: Vec<&str> = f.probes.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["saving", "sync"]);
        let saving = &f.probes[0];
        assert_eq!(saving.line, 5);
        assert_eq!(saving.positions, [Position::Kernel]);
        let dm = saving.datamodel.as_ref().expect("datamodel");
        assert_eq!(
            (dm.per, dm.bytes, dm.records, dm.line),
            (Per::Thread, 8, 1, 7)
        );
        let before = saving.before.as_ref().expect("before");
        assert_eq!(
            before
                .iter()
                .map(|l| (l.text.as_str(), l.line))
                .collect::<Vec<_>>(),
            [(".reg .u32 %n;", 8), ("mov.u32 %n, 0;", 9)]
        );
        let after = saving.after.as_ref().expect("after");
        assert_eq!(after[0].line, 12);
        let sync = &f.probes[1];
        assert_eq!(
            sync.positions,
            [
                Position::Opcode("ld.global".into()),
                Position::Opcode("st.global".into()),
                Position::Opcode("ld.global.L2::128B".into())
            ]
        );
        assert_eq!(sync.before.as_ref().map(|b| b[0].line), Some(16));
    }

    #[test]
    fn load_errors_carry_lines() {
        let err = |src: &str| load(src).expect_err("refused");
        assert!(matches!(
            err("[p]\nposition = \n"),
            RawError::Toml { line: 2, .. }
        ));
        assert!(matches!(
            err("[p]\nposition = \"frob.global\"\nbefore = \"\"\n"),
            RawError::UnknownPosition { line: 2, .. }
        ));
        assert!(matches!(
            err("[p]\nposition = \"kernel\"\nbefore = \"\"\ncolor = 1\n"),
            RawError::UnknownKey { line: 4, .. }
        ));
        assert!(matches!(
            err("[p]\nbefore = \"\"\n"),
            RawError::MissingKey { line: 1, .. }
        ));
        assert!(matches!(
            err("[p]\nposition = \"kernel\"\n"),
            RawError::MissingKey { line: 1, .. }
        ));
        assert!(matches!(
            err("[p]\nposition = \"kernel\"\ndatamodel = \"block:8\"\nbefore = \"\"\n"),
            RawError::BadDatamodel { line: 3, .. }
        ));
        assert!(matches!(
            err("[p]\nposition = \"kernel\"\ndatamodel = \"thread:16:count\"\nbefore = \"\"\n"),
            RawError::Unsupported { line: 3, .. }
        ));
        assert!(matches!(
            err("dynamic = true\n"),
            RawError::Unsupported { line: 1, .. }
        ));
        assert!(matches!(
            err("[p]\nposition = 3\nbefore = \"\"\n"),
            RawError::WrongType { line: 2, .. }
        ));
        assert!(matches!(
            err("[p]\nposition = \"kernel\"\nregisters = { a = 'b64' }\nbefore = \"\"\n"),
            RawError::Unsupported { line: 3, .. }
        ));
    }
}
