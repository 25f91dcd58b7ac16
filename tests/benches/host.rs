//! Host-side latency benchmarks (criterion): the language front end on a 300-line
//! program, and instrument + verify of each PTX corpus kernel. Targets (issue text, not
//! asserted here): compile of 300 lines ≤ 1 ms; instrument + verify of the largest corpus
//! kernel ≤ 5 ms. Run: `cargo bench -p warptrace-tests --bench host`.

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use warptrace_tests::{corpus, programs};

/// A 300-line probe program in the style of real one-liners, made of every statement
/// kind: predicates, scratch and persistent variables, if/else, ternaries, keyed maps and
/// each aggregation.
fn program_300_lines() -> String {
    let mut src = String::new();
    let mut i = 0;
    while src.lines().count() < 300 {
        src.push_str(&format!(
            "kernel:entry:*k{i}* /tid.x == 0 && ctaid.y < {i}/ {{\n\
             \x20 %t0 = clock64;\n\
             \x20 $w = tid.x / 32;\n\
             \x20 if (smid > 4) {{ @a{i}[kernel, smid] = count(); }} else {{ @b{i}[kernel] = sum($w * 2 + 1); }}\n\
             \x20 @c{i}[kernel] = max(ctaid.x > 3 ? ctaid.x : 3);\n\
             }}\n\
             warp kernel:exit:*k{i}* {{\n\
             \x20 @d{i} = hist(clock64 - %t0);\n\
             \x20 @e{i} = lhist(tid.x, 0, 1024, 64);\n\
             }}\n"
        ));
        i += 1;
    }
    src
}

fn bench_lang(c: &mut Criterion) {
    let src = program_300_lines();
    if let Err(e) = warptrace_lang::compile(&src, "bench.wt") {
        panic!("the benchmark program must compile:\n{}", e.render());
    }
    c.bench_function("lang/compile_300_lines", |b| {
        b.iter(|| warptrace_lang::compile(black_box(&src), "bench.wt"))
    });
}

fn bench_instrument(c: &mut Criterion) {
    let program = programs::verified(&programs::skeleton());
    let mut group = c.benchmark_group("ptx/instrument_verify");
    for (name, ptx) in corpus() {
        group.bench_function(name.as_str(), |b| {
            b.iter(|| warptrace_codegen_ptx::instrument(black_box(&ptx), &program))
        });
    }
    group.finish();
}

criterion_group!(benches, bench_lang, bench_instrument);
criterion_main!(benches);
