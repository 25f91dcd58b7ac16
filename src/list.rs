//! `-l`: what the language offers, or where a program's probes attach in a PTX or an
//! AMDGPU assembly file.

use crate::cli::RunArgs;
use anyhow::{bail, Context, Result};
use std::fmt::Write as _;
use std::process::ExitCode;
use warptrace_lang::Entry;

pub fn list(args: &RunArgs) -> Result<ExitCode> {
    let has_program =
        args.program.expr.is_some() || args.program.file.is_some() || args.program.probe.is_some();
    if !has_program {
        if args.ptx.is_some() || args.gcn.is_some() {
            bail!(
                "--ptx and --gcn list where a program's probes attach: give the program with \
                 -e, a file, -p NAME or a raw probe FILE.toml"
            );
        }
        let glob = args.list.as_deref().unwrap_or("*");
        let text = language(glob)?;
        if text.is_empty() {
            bail!("nothing matches `{glob}` (try `warptrace -l` for everything)");
        }
        print!("{text}");
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(probe) = crate::raw::raw_probe(&args.program)? {
        return crate::raw::list(&probe, args.ptx.as_deref(), args.gcn.is_some());
    }
    let (path, what) = match (&args.ptx, &args.gcn) {
        (Some(p), _) => (p, "PTX"),
        (None, Some(p)) => (p, "AMDGPU assembly"),
        (None, None) => bail!(
            "-l with a program lists the instructions each probe attaches to: give the \
             kernels' PTX with --ptx FILE or their AMDGPU assembly with --gcn FILE"
        ),
    };
    let Some((_, verified)) = crate::compile(&args.program)? else {
        return Ok(ExitCode::from(crate::EXIT_BAD_PROGRAM));
    };
    let program = verified.program();
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read {what} file {}", path.display()))?;
    let cannot = || format!("cannot parse {}", path.display());
    // (probe, kernel, line, instruction) of each site.
    let sites: Vec<(usize, String, u32, String)> = if args.ptx.is_some() {
        warptrace_codegen_ptx::list_sites(&text, program)
            .with_context(cannot)?
            .into_iter()
            .map(|s| (s.probe, s.kernel, s.line, s.text))
            .collect()
    } else {
        warptrace_codegen_gcn::list_sites(&text, program)
            .with_context(cannot)?
            .into_iter()
            .map(|s| (s.probe, s.kernel, s.line, s.text))
            .collect()
    };
    // What a probe that attaches nowhere may have been meant as (PTX).
    let hints = if args.ptx.is_some() {
        warptrace_codegen_ptx::near_misses(&text, program).with_context(cannot)?
    } else {
        Vec::new()
    };
    let file = path.display();
    let mut out = String::new();
    for (i, probe) in program.probes.iter().enumerate() {
        let _ = writeln!(out, "probe {i}: {}", probe.attach);
        let mut any = false;
        for (_, kernel, line, text) in sites.iter().filter(|s| s.0 == i) {
            any = true;
            let kernel = warptrace_runtime::demangle(kernel);
            let _ = writeln!(out, "  {file}:{line}: {kernel}: {text}");
        }
        if !any {
            match hints.iter().find(|(p, _, _)| *p == i) {
                Some((_, near, n)) => {
                    let s = if *n == 1 { "" } else { "s" };
                    let _ = writeln!(
                        out,
                        "  (attaches nowhere in {file}; `{near}` would, at {n} instruction{s})"
                    );
                }
                None => {
                    let _ = writeln!(out, "  (attaches nowhere in {file})");
                }
            }
        }
    }
    print!("{out}");
    Ok(ExitCode::SUCCESS)
}

/// The positions and helpers of raw probe files (`docs/raw-probes.md`), for `-l`.
const RAW_HELPERS: &[(&str, &str)] = &[
    (
        "kernel",
        "position: `before` at the kernel's entry, `after` before every ret/exit",
    ),
    (
        "ld.global",
        "position (any opcode pattern, `:`-separated): before/after each matching instruction",
    ),
    (
        "SAVE.u64",
        "store 8-byte items into the probe's datamodel record",
    ),
    (
        "SAVE.u32",
        "store 4-byte items into the probe's datamodel record",
    ),
    ("ADDR", "the site's effective address, 64-bit"),
    ("BYTES", "the bytes the site accesses"),
    ("OUT", "the site instruction's operand 0, as written"),
    (
        "IN1",
        "the site instruction's operand 1 (IN2, IN3: operands 2, 3)",
    ),
];

/// The attach points, builtins and functions whose names match `glob`, by section.
fn language(glob: &str) -> Result<String> {
    let matcher = globset::Glob::new(glob)
        .with_context(|| format!("invalid glob `{glob}`"))?
        .compile_matcher();
    let mut out = String::new();
    for (title, entries) in [
        ("attach points", warptrace_lang::attach_points()),
        ("builtins", warptrace_lang::builtins()),
        ("functions", warptrace_lang::functions()),
    ] {
        // An entry matches by its name, or, for a concrete glob (`mem:global:*`), by the
        // attach points its `<a|b>` parts spell, each listed.
        let shown: Vec<(String, &Entry)> = entries
            .iter()
            .flat_map(|e| {
                let names = if matcher.is_match(e.name) {
                    vec![e.name.to_string()]
                } else {
                    concrete(glob, e.name)
                };
                names.into_iter().map(move |n| (n, e))
            })
            .collect();
        if shown.is_empty() {
            continue;
        }
        let width = shown.iter().map(|(n, _)| n.len()).max().unwrap_or(0);
        let _ = writeln!(out, "{title}:");
        for (name, e) in shown {
            let _ = writeln!(out, "  {name:width$}  {} [{}]", e.doc, e.valid);
        }
    }
    let probes: Vec<(&str, String)> = crate::library::PROBES
        .iter()
        .filter(|(name, _)| matcher.is_match(name))
        .map(|(name, src)| (*name, crate::library::summary(src)))
        .collect();
    if !probes.is_empty() {
        let width = probes.iter().map(|(n, _)| n.len()).max().unwrap_or(0);
        let _ = writeln!(out, "library probes (warptrace -p NAME -- cmd):");
        for (name, summary) in probes {
            let _ = writeln!(out, "  {name:width$}  {summary}");
        }
    }
    let helpers: Vec<&(&str, &str)> = RAW_HELPERS
        .iter()
        .filter(|(name, _)| matcher.is_match(name))
        .collect();
    if !helpers.is_empty() {
        let width = helpers.iter().map(|(n, _)| n.len()).max().unwrap_or(0);
        let _ = writeln!(
            out,
            "raw PTX probe helpers (NEUTRINO's TOML format, docs/raw-probes.md; \
             warptrace instrument --ptx K.ptx -p FILE.toml, warptrace -p FILE.toml -- cmd):"
        );
        for (name, doc) in helpers {
            let _ = writeln!(out, "  {name:width$}  {doc}");
        }
    }
    Ok(out)
}

/// The attach points of `template` (`mem:<global|shared>:<load|*>`, `ptx:<opcode-glob>`)
/// that a glob of as many `:`-separated parts matches, part by part: an `<a|b>` part is
/// each of its alternatives the glob's part matches, another `<…>` part (a file, a
/// number, an opcode glob) is the glob's part as written, a literal part must match.
/// `mem:global:*` gives `mem:global:load` … `mem:global:*`; no match gives none.
fn concrete(glob: &str, template: &str) -> Vec<String> {
    let (globs, parts): (Vec<&str>, Vec<&str>) =
        (glob.split(':').collect(), template.split(':').collect());
    if globs.len() != parts.len() {
        return Vec::new();
    }
    let mut names = vec![String::new()];
    for (g, part) in globs.iter().zip(&parts) {
        let Ok(m) = globset::Glob::new(g).map(|g| g.compile_matcher()) else {
            return Vec::new();
        };
        let choices: Vec<String> = match part.strip_prefix('<').and_then(|p| p.strip_suffix('>')) {
            Some(alternatives) if alternatives.contains('|') => alternatives
                .split('|')
                .filter(|a| m.is_match(a))
                .map(str::to_string)
                .collect(),
            Some(_) => vec![g.to_string()],
            None if m.is_match(part) => vec![part.to_string()],
            None => Vec::new(),
        };
        names = names
            .iter()
            .flat_map(|n| {
                choices.iter().map(move |c| match n.is_empty() {
                    true => c.clone(),
                    false => format!("{n}:{c}"),
                })
            })
            .collect();
    }
    names
}

#[cfg(test)]
mod tests {
    use super::concrete;

    #[test]
    fn a_concrete_glob_lists_the_attach_points_it_spells() {
        let mem = "mem:<global|shared|local|generic|*>:<load|store|atomic|async|*>";
        assert_eq!(
            concrete("mem:global:*", mem),
            [
                "mem:global:load",
                "mem:global:store",
                "mem:global:atomic",
                "mem:global:async",
                "mem:global:*"
            ]
        );
        assert_eq!(concrete("mem:sh*:load", mem), ["mem:shared:load"]);
        assert_eq!(concrete("ptx:ld.*", "ptx:<opcode-glob>"), ["ptx:ld.*"]);
        assert!(concrete("gcn:v_*", "ptx:<opcode-glob>").is_empty());
        assert!(concrete("mem:*", mem).is_empty());
        assert_eq!(
            concrete("interval:ms:*", "interval:<s|ms|us|hz>:<n>"),
            ["interval:ms:*"]
        );
    }
}
