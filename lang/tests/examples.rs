//! Every example of LANGUAGE.md compiles (and passes the IR's own text round trip).
//! The examples are copied into `fixtures/language_md_examples.wt`, so that this test
//! does not depend on `../shared`.

const FIXTURE: &str = include_str!("fixtures/language_md_examples.wt");

/// The examples: the text between `#` lines, each with its title.
fn examples() -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for line in FIXTURE.lines() {
        if let Some(title) = line.strip_prefix('#') {
            out.push((title.trim().to_string(), String::new()));
        } else if let Some((_, body)) = out.last_mut() {
            body.push_str(line);
            body.push('\n');
        }
    }
    out.retain(|(_, body)| !body.trim().is_empty());
    out
}

#[test]
fn every_language_md_example_compiles() {
    let examples = examples();
    assert_eq!(examples.len(), 7, "{examples:?}");
    for (title, source) in examples {
        let program = warptrace_lang::compile(&source, "example")
            .unwrap_or_else(|e| panic!("{title}:\n{source}\n{e}"));
        let text = program.to_string();
        let parsed = warptrace_ir::Program::parse(&text)
            .unwrap_or_else(|e| panic!("{title}: the IR text does not parse: {e}\n{text}"));
        assert_eq!(parsed.to_string(), text, "{title}");
    }
}

#[test]
fn all_examples_together_compile() {
    // The programs (not the declarations, whose `@sched` is an array while the block
    // scheduling example aggregates into a `@sched` hash) in one source: the two
    // `kernel:entry { %t0 = clock64; }` blocks may coexist, and maps are shared.
    let all: String = examples().into_iter().skip(1).map(|(_, s)| s).collect();
    let program = warptrace_lang::compile(&all, "all").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(program.probes.len(), 8);
}

#[test]
fn docs_language_md_examples_compile() {
    // docs/language.md's "Examples" block: examples separated by blank lines, each
    // starting with a `//` title.
    let doc = include_str!("../../docs/language.md");
    let section = doc
        .split("## Examples")
        .nth(1)
        .and_then(|s| s.split("```").nth(1))
        .expect("an Examples code block");
    let examples: Vec<&str> = section
        .split("\n\n")
        .map(str::trim)
        .filter(|e| !e.is_empty())
        .collect();
    assert!(examples.len() >= 8, "{examples:?}");
    // Each device example alone; the host block prints a map of the first example, so
    // all of them together too.
    for source in &examples {
        assert!(
            source.starts_with("//"),
            "an example without a title: {source}"
        );
        if source.contains("launch:complete") {
            continue;
        }
        if let Err(e) = warptrace_lang::compile(source, "example") {
            panic!("{source}\n{e}");
        }
    }
    let all = examples.join("\n");
    if let Err(e) = warptrace_lang::compile(&all, "examples") {
        panic!("{all}\n{e}");
    }
}
