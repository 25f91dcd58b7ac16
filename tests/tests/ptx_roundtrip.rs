//! PTX parse∘print is byte-identical on every corpus file, and the parser finds the
//! corpus kernels with their parameters.

use warptrace_codegen_ptx::{parse, FunctionKind, StmtKind};
use warptrace_tests::corpus;

#[test]
fn parse_print_is_byte_identical_on_the_corpus() {
    let files = corpus();
    // tests/corpus/README.md lists them; a file that goes missing fails here.
    assert!(
        files.len() >= 15,
        "corpus is missing files: {}",
        files.len()
    );
    for (name, text) in files {
        let m = parse(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(m.to_text() == text, "{name}: print differs from the input");
    }
}

/// Every function of every corpus file, as (file, kind, name, parameters, has labels).
/// A name ending in `*` is a prefix (Numba's mangled names are hundreds of characters).
const FUNCTIONS: &[(&str, FunctionKind, &str, usize, bool)] = {
    use FunctionKind::{Entry, Func};
    &[
        ("cupy_rawkernels.ptx", Entry, "relu_scale", 4, true),
        ("cupy_rawkernels.ptx", Entry, "dot_reduce", 4, true),
        (
            "numba_block_hist.ptx",
            Entry,
            "_ZN8__main__10block_histB2v2*",
            15,
            true,
        ),
        (
            "numba_saxpy.ptx",
            Entry,
            "_ZN8__main__5saxpyB2v1*",
            23,
            true,
        ),
        ("nvcc_app.ptx", Entry, "_Z9block_sumPKfPfi", 3, true),
        ("nvcc_app.ptx", Entry, "_Z9scale_addPKfPffi", 4, true),
        ("nvcc_bulk.ptx", Entry, "_Z10bulk_scalePKfPfS1_i", 4, true),
        (
            "nvcc_bulk.ptx",
            Entry,
            "_Z11bulk_copy_nPK6float4PS_j",
            3,
            true,
        ),
        ("nvcc_bulk.ptx", Entry, "_Z10dsmem_pushPKfPf", 2, true),
        (
            "nvcc_bulk.ptx",
            Entry,
            "_Z8tma_tile14CUtensorMap_stS_S_",
            3,
            true,
        ),
        // Prototypes (no body) first, then the definitions; `through_pointer`'s
        // `prototype_7 : .callprototype …` parses as a label and a directive.
        ("nvcc_calls.ptx", Func, "_Z8tree_sumPKii", 2, false),
        ("nvcc_calls.ptx", Func, "_Z9plain_sumPKii", 2, false),
        ("nvcc_calls.ptx", Func, "_Z12load_clampedPKiii", 3, false),
        ("nvcc_calls.ptx", Func, "_Z8tree_sumPKii", 2, true),
        ("nvcc_calls.ptx", Func, "_Z9plain_sumPKii", 2, true),
        ("nvcc_calls.ptx", Func, "_Z12load_clampedPKiii", 3, true),
        ("nvcc_calls.ptx", Func, "_Z4bumpPjj", 2, false),
        (
            "nvcc_calls.ptx",
            Entry,
            "_Z13recursive_sumPKiiPiPj",
            4,
            false,
        ),
        (
            "nvcc_calls.ptx",
            Entry,
            "_Z12clamped_copyPKiiPiPj",
            4,
            false,
        ),
        (
            "nvcc_calls.ptx",
            Entry,
            "_Z15through_pointerPKiiPiPj",
            4,
            true,
        ),
        (
            "nvcc_kernels_sm80.ptx",
            Func,
            "_Z10clamp_loadPKfii",
            3,
            true,
        ),
        ("nvcc_kernels_sm80.ptx", Func, "_Z10accumulatePff", 2, false),
        ("nvcc_kernels_sm80.ptx", Func, "_Z8stencil3PKfii", 3, false),
        (
            "nvcc_kernels_sm80.ptx",
            Entry,
            "_Z9histogramPKhPji",
            3,
            true,
        ),
        (
            "nvcc_kernels_sm80.ptx",
            Entry,
            "_Z13atomic_ticketPjS_PfPKfi",
            5,
            true,
        ),
        (
            "nvcc_kernels_sm80.ptx",
            Entry,
            "_Z10copy_asyncPK6float4PS_i",
            3,
            true,
        ),
        (
            "nvcc_kernels_sm80.ptx",
            Entry,
            "_Z9wmma_gemmPK6__halfS1_Pfiii",
            6,
            true,
        ),
        (
            "nvcc_kernels_sm80.ptx",
            Entry,
            "_Z14calls_noinlinePKfPfS1_i",
            4,
            true,
        ),
        (
            "nvcc_kernels_sm80.ptx",
            Entry,
            "_Z10many_exitsPKiPiii",
            4,
            true,
        ),
        (
            "nvcc_kernels_sm90a.ptx",
            Func,
            "_Z10clamp_loadPKfii",
            3,
            true,
        ),
        (
            "nvcc_kernels_sm90a.ptx",
            Func,
            "_Z10accumulatePff",
            2,
            false,
        ),
        ("nvcc_kernels_sm90a.ptx", Func, "_Z8stencil3PKfii", 3, false),
        (
            "nvcc_kernels_sm90a.ptx",
            Entry,
            "_Z9histogramPKhPji",
            3,
            true,
        ),
        (
            "nvcc_kernels_sm90a.ptx",
            Entry,
            "_Z13atomic_ticketPjS_PfPKfi",
            5,
            true,
        ),
        (
            "nvcc_kernels_sm90a.ptx",
            Entry,
            "_Z10copy_asyncPK6float4PS_i",
            3,
            true,
        ),
        (
            "nvcc_kernels_sm90a.ptx",
            Entry,
            "_Z9wmma_gemmPK6__halfS1_Pfiii",
            6,
            true,
        ),
        (
            "nvcc_kernels_sm90a.ptx",
            Entry,
            "_Z14calls_noinlinePKfPfS1_i",
            4,
            true,
        ),
        (
            "nvcc_kernels_sm90a.ptx",
            Entry,
            "_Z10many_exitsPKiPiii",
            4,
            true,
        ),
        (
            "nvcc_wgmma.ptx",
            Entry,
            "_Z14wgmma_m64n8k16PK6__halfS1_Pfi",
            4,
            true,
        ),
        (
            "triton_flash_attn_fwd.ptx",
            Entry,
            "flash_attn_fwd",
            16,
            true,
        ),
        ("triton_layernorm_fwd.ptx", Entry, "layernorm_fwd", 11, true),
        ("triton_matmul.ptx", Entry, "matmul", 14, true),
        ("triton_matmul_pipelined.ptx", Entry, "matmul", 11, true),
        // Each tensor descriptor is a 128-byte CUtensorMap plus 2 shape and 2 stride words.
        ("triton_matmul_tma.ptx", Entry, "matmul_tma", 18, true),
        ("triton_softmax.ptx", Entry, "softmax", 8, true),
        ("triton_vector_add.ptx", Entry, "vector_add", 6, true),
    ]
};

#[test]
fn corpus_kernels_are_found_with_their_parameters() {
    let mut found = Vec::new();
    for (file, text) in corpus() {
        let m = parse(&text).expect("parses");
        for f in m.functions() {
            let labels = f.body.as_ref().is_some_and(|body| {
                body.stmts
                    .iter()
                    .any(|s| matches!(s.kind, StmtKind::Label(_)))
            });
            found.push((file.clone(), f.kind, f.name.clone(), f.params.len(), labels));
        }
    }
    let names = |v: &[(String, FunctionKind, String, usize, bool)]| -> Vec<String> {
        v.iter().map(|f| format!("{} {}", f.0, f.2)).collect()
    };
    assert_eq!(
        found.len(),
        FUNCTIONS.len(),
        "functions found: {:#?}",
        names(&found)
    );
    for (got, want) in found.iter().zip(FUNCTIONS) {
        let name_ok = match want.2.strip_suffix('*') {
            Some(prefix) => got.2.starts_with(prefix),
            None => got.2 == want.2,
        };
        assert!(
            got.0 == want.0 && got.1 == want.1 && name_ok && got.3 == want.3 && got.4 == want.4,
            "found {got:?}, expected {want:?}"
        );
    }
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
