//! PTX parse∘print is byte-identical on every corpus file, and the parser finds the
//! corpus kernels with their parameters.

use warptrace_codegen_ptx::{parse, FunctionKind, StmtKind};
use warptrace_tests::corpus;

#[test]
fn parse_print_is_byte_identical_on_the_corpus() {
    let files = corpus();
    assert!(files.len() >= 3, "corpus is missing files");
    for (name, text) in files {
        let m = parse(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(m.to_text() == text, "{name}: print differs from the input");
    }
}

#[test]
fn corpus_kernels_are_found_with_their_parameters() {
    let mut found = Vec::new();
    for (_, text) in corpus() {
        let m = parse(&text).expect("parses");
        for f in m.functions() {
            assert_eq!(f.kind, FunctionKind::Entry);
            let body = f.body.as_ref().expect("body");
            let labels = body
                .stmts
                .iter()
                .filter(|s| matches!(s.kind, StmtKind::Label(_)))
                .count();
            found.push((f.name.clone(), f.params.len(), labels > 0));
        }
    }
    found.sort();
    let expected = [
        ("_Z9block_sumPKfPfi", 3, true),
        ("_Z9scale_addPKfPffi", 4, true),
        ("matmul", 14, true),
        ("vector_add", 6, true),
    ];
    let expected: Vec<(String, usize, bool)> = expected
        .iter()
        .map(|(n, p, l)| (n.to_string(), *p, *l))
        .collect();
    assert_eq!(found, expected);
}

#[test]
fn instruction_lines_are_one_based() {
    let text = warptrace_tests::corpus_file("triton_vector_add.ptx");
    let m = parse(&text).expect("parses");
    let f = m.kernel("vector_add").expect("kernel");
    let ret = f
        .body
        .as_ref()
        .expect("body")
        .stmts
        .iter()
        .find(|s| s.text == "ret;")
        .expect("ret");
    assert_eq!(ret.line, warptrace_tests::line_of(&text, "\tret;", 0));
}
