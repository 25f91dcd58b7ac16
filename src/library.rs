//! The shipped probe library (`probes/*.wt`, embedded at build time): `-p NAME`, and its
//! listing in `-l`.

include!(concat!(env!("OUT_DIR"), "/probes.rs"));

/// The source of library probe `name`.
pub fn source(name: &str) -> Option<&'static str> {
    PROBES.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
}

/// The names of every library probe, comma-separated (for error messages).
pub fn names() -> String {
    PROBES
        .iter()
        .map(|(n, _)| *n)
        .collect::<Vec<_>>()
        .join(", ")
}

/// A probe's one-line summary: its leading `//` comment without the `name:` prefix and
/// joined across lines, up to the first sentence's end.
pub fn summary(source: &str) -> String {
    let comment: Vec<&str> = source
        .lines()
        .map_while(|l| l.trim().strip_prefix("//"))
        .map(str::trim)
        .collect();
    let text = comment.join(" ");
    let text = match text.split_once(": ") {
        Some((head, rest)) if !head.contains(' ') || head.contains('(') => rest,
        _ => text.as_str(),
    };
    text.split_once(". ")
        .map_or(text, |(first, _)| first)
        .trim_end_matches('.')
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_library_file_is_embedded_and_compiles() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("probes");
        let files = std::fs::read_dir(dir)
            .expect("probes/")
            .filter_map(Result::ok)
            .filter(|e| e.path().extension().is_some_and(|x| x == "wt"))
            .count();
        assert_eq!(PROBES.len(), files);
        for (name, src) in PROBES {
            warptrace_lang::compile(src, name).unwrap_or_else(|e| panic!("{name}: {e:?}"));
            assert!(!summary(src).is_empty(), "{name} has no doc comment");
        }
    }

    #[test]
    fn summaries_drop_the_name_and_keep_the_first_sentence() {
        assert_eq!(
            summary("// block_sched (NEUTRINO): per warp, cycles by SM.\nkernel:entry {}"),
            "per warp, cycles by SM"
        );
        assert_eq!(
            summary("// gmem_bytes: bytes moved, per\n// kernel. More.\n"),
            "bytes moved, per kernel"
        );
    }
}
