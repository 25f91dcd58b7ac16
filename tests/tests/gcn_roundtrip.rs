//! GCN parse∘print is byte-identical on every corpus file (`tests/corpus/gcn/`), the
//! parser finds every kernel with its descriptor, body and metadata, and re-parsing the
//! printed text gives the same statements.

use warptrace_codegen_gcn::{parse, StmtKind};
use warptrace_tests::{gcn_corpus, gcn_corpus_file};

/// (file, kernels in text order, processor, wave size of every kernel).
const FILES: &[(&str, &[&str], &str, u64)] = &[
    (
        "hip_buffers_gfx1100.s",
        &["buffer_rows", "lane_table"],
        "gfx1100",
        32,
    ),
    (
        "hip_buffers_gfx942.s",
        &["buffer_rows", "lane_table", "lds_stage"],
        "gfx942",
        64,
    ),
    ("hip_grid_gfx1100.s", &["volume_index"], "gfx1100", 32),
    ("hip_grid_gfx942.s", &["volume_index"], "gfx942", 64),
    (
        "hip_kernels_gfx90a.s",
        &[
            "histogram",
            "block_sum",
            "many_exits",
            "calls",
            "atomic_ticket",
            "mfma_tile",
            "if_else",
        ],
        "gfx90a",
        64,
    ),
    (
        "hip_kernels_gfx942.s",
        &[
            "histogram",
            "block_sum",
            "many_exits",
            "calls",
            "atomic_ticket",
            "mfma_tile",
            "if_else",
        ],
        "gfx942",
        64,
    ),
    ("hip_wmma_gfx1100.s", &["wmma_tile"], "gfx1100", 32),
    (
        "ocl_kernels_gfx1100.s",
        &["generic_bump", "private_table", "nested_loops"],
        "gfx1100",
        32,
    ),
    (
        "ocl_kernels_gfx90a.s",
        &["generic_bump", "private_table", "nested_loops"],
        "gfx90a",
        64,
    ),
    (
        "ocl_kernels_gfx942.s",
        &["generic_bump", "private_table", "nested_loops"],
        "gfx942",
        64,
    ),
    (
        "triton_flash_attn_fwd_gfx90a.s",
        &["flash_attn_fwd"],
        "gfx90a",
        64,
    ),
    (
        "triton_flash_attn_fwd_gfx942.s",
        &["flash_attn_fwd"],
        "gfx942",
        64,
    ),
    ("triton_matmul_gfx90a.s", &["matmul"], "gfx90a", 64),
    ("triton_matmul_gfx942.s", &["matmul"], "gfx942", 64),
    ("triton_softmax_gfx90a.s", &["softmax"], "gfx90a", 64),
    ("triton_softmax_gfx942.s", &["softmax"], "gfx942", 64),
    ("triton_vector_add_gfx90a.s", &["vector_add"], "gfx90a", 64),
    ("triton_vector_add_gfx942.s", &["vector_add"], "gfx942", 64),
];

#[test]
fn parse_print_is_byte_identical_on_the_gcn_gcn_corpus() {
    let files = gcn_corpus();
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    let expected: Vec<&str> = FILES.iter().map(|f| f.0).collect();
    assert_eq!(
        names, expected,
        "tests/corpus/gcn/README.md lists the files"
    );
    let mut kernels = 0;
    for (name, text) in &files {
        let m = parse(text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let printed = m.to_text();
        assert!(printed == *text, "{name}: print differs from the input");
        let again = parse(&printed).expect("printed text parses");
        assert_eq!(
            again.stmts, m.stmts,
            "{name}: statements differ after a round trip"
        );
        kernels += m.kernels.len();
    }
    assert!(kernels >= 10, "{kernels} kernels");
}

#[test]
fn kernels_descriptors_bodies_and_metadata_are_found() {
    for (file, text) in gcn_corpus() {
        let m = parse(&text).unwrap_or_else(|e| panic!("{file}: {e}"));
        let &(_, kernels, processor, wave) =
            FILES.iter().find(|f| f.0 == file).expect("file is listed");
        let names: Vec<&str> = m.kernels.iter().map(|k| k.name.as_str()).collect();
        assert_eq!(names, kernels, "{file}");
        assert_eq!(m.processor.as_deref(), Some(processor), "{file}");
        let meta = m.metadata.as_ref().expect("metadata block");
        for k in &m.kernels {
            // The body starts at the kernel's label and ends with an `s_endpgm`.
            assert!(
                matches!(&m.stmts[k.body.start].kind, StmtKind::Label(l) if *l == k.name),
                "{file} {}",
                k.name
            );
            let endpgm = k
                .body
                .clone()
                .filter(|&i| m.instr(i).is_some_and(|x| x.mnemonic == "s_endpgm"))
                .count();
            assert!(endpgm >= 1, "{file} {}: no s_endpgm in the body", k.name);
            assert!(k.field(".amdhsa_next_free_vgpr").is_some_and(|v| v > 0));
            assert!(k.field(".amdhsa_next_free_sgpr").is_some_and(|v| v > 0));
            let mk = meta.kernel(&k.name).expect("metadata of the kernel");
            assert_eq!(mk.int(".wavefront_size"), Some(wave), "{file} {}", k.name);
            // The kernarg size of the descriptor is the metadata's, and covers every
            // argument (hidden ones included).
            let size = mk.int(".kernarg_segment_size").expect("kernarg size");
            assert_eq!(k.field(".amdhsa_kernarg_size"), Some(size as i64));
            let end = mk
                .args
                .iter()
                .map(|a| a.offset().expect("offset") + a.size().expect("size"))
                .max()
                .unwrap_or(0);
            assert!(end <= size, "{file} {}: args end at {end} > {size}", k.name);
        }
    }
}

#[test]
fn the_parser_reads_operands_modifiers_and_hidden_arguments() {
    let text = gcn_corpus_file("hip_kernels_gfx942.s");
    let m = parse(&text).expect("parses");
    let atomic = m
        .stmts
        .iter()
        .find_map(|s| match &s.kind {
            StmtKind::Instr(x) if x.mnemonic == "global_atomic_add_x2" => Some(x),
            _ => None,
        })
        .expect("a 64-bit atomic");
    let regs: Vec<String> = atomic
        .operands
        .iter()
        .map(|o| o.reg.map(|r| r.name()).unwrap_or_default())
        .collect();
    assert_eq!(regs, ["v[2:3]", "v3", "v[2:3]", "s[4:5]"]);
    assert_eq!(atomic.modifiers, ["sc0", "sc1"]);
    let wait = m
        .stmts
        .iter()
        .find_map(|s| match &s.kind {
            StmtKind::Instr(x) if x.mnemonic == "s_waitcnt" => Some(x),
            _ => None,
        })
        .expect("a waitcnt");
    assert!(wait.operands.is_empty() && !wait.modifiers.is_empty());
    // A lone register range is an operand, not an `offset:`-like modifier.
    let one = parse("\ts_memtime s[24:25]\n\tbuffer_inv sc1\n").expect("parses");
    let ops: Vec<(&str, Option<String>, &[String])> = one
        .stmts
        .iter()
        .filter_map(|s| match &s.kind {
            StmtKind::Instr(x) => Some((
                x.mnemonic.as_str(),
                x.operands.first().and_then(|o| o.reg).map(|r| r.name()),
                x.modifiers.as_slice(),
            )),
            _ => None,
        })
        .collect();
    assert_eq!(
        ops,
        [
            ("s_memtime", Some("s[24:25]".to_owned()), &[][..]),
            ("buffer_inv", None, &["sc1".to_owned()][..])
        ]
    );
    let meta = m.metadata.as_ref().expect("metadata");
    let hist = meta.kernel("histogram").expect("histogram");
    let hidden: Vec<&str> = hist
        .args
        .iter()
        .filter(|a| a.is_hidden())
        .map(|a| a.value_kind())
        .collect();
    assert!(hidden.contains(&"hidden_block_count_x"), "{hidden:?}");
    assert_eq!(hist.args.iter().filter(|a| !a.is_hidden()).count(), 3);
}
