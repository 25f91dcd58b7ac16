//! The GCN cost bound (`warptrace_codegen_gcn::probe_costs`, what `warptrace verify
//! --target gcn` reports and certifies) against the snippets the back end splices into
//! real kernels: for every probe of the library and of [`PROGRAMS`] (divisions, the
//! warp-wide values, arrays, rings, `printf`, the site values, loop edges), at every site
//! of every GCN corpus kernel, the snippet's longest path
//! (`KernelOutcome::snippets`: instructions, atomics, a bounded loop's round once per
//! round it may run) is within the probe's bound — and the bound is no more than a
//! sixteenth (and 8 instructions) above the costliest site found, so that it stays a
//! figure of the real snippets rather than a safe overestimate. A map keyed by the site
//! (`[pc]`, `[line]`) probes its home slot in a kernel whose keys do not collide, and
//! eight slots in one where they do; the bound is the latter, so the costliest sites are
//! also taken from the same program with one-slot hash maps, where keys that differ
//! collide (the snippets differ from the real ones in their immediates only).

use std::collections::BTreeMap;
use warptrace_codegen_gcn::{instrument, probe_costs};
use warptrace_ir::MapKind;
use warptrace_tests::{gcn_corpus, library_probes};

/// Programs beyond the library whose snippets differ by site, target or launch.
const PROGRAMS: &[&str] = &[
    "mem:global:* { @d[kernel] = sum(bytes / 3 + (u64)((i64)lane % -5)); @m[activemask] = count(); }",
    "kernel:exit { @b[block] = max(thread); @g[ntid.x, nctaid.y, warp] = count(); @a[active] = sum(lane); }",
    "mem:*:store { @v[opcode] = max(value); } warp after mem:global:load { @w[kernel] = sum(value); } gcn:*atomic* { @x = min(value); }",
    "mem:*:* { @ring = (bytes, smid, globaltimer, pc); printf(\"%d %x %d\\n\", bytes, lane, line); @h[kernel] = hist(bytes); @l = lhist((i64)tid.x, 0, 1001, 7); }",
    "map @s: array(per = thread, slots = 2); mem:global:store { @s = (addr, sectors); } loop:backedge /tid.x % 32 == 0/ { @t[kernel, smid] = sum(pc + ctaid.x); } warp after mem:global:load { @q = stats(wavefronts + run); } loop:exit { @e[line, lane] = avg(clock); }",
];

#[test]
fn the_gcn_cost_bounds_every_snippet_of_the_corpus_closely() {
    let corpus = gcn_corpus();
    let mut programs = library_probes();
    programs.extend(
        PROGRAMS
            .iter()
            .enumerate()
            .map(|(i, p)| (format!("program {i}"), (*p).to_owned())),
    );
    // One program a job: each instruments the whole corpus twice, on every core.
    let measured = warptrace_tests::parallel(&programs, |(name, src)| {
        let mut failures = Vec::new();
        let mut snippets = 0;
        let program = warptrace_lang::compile(src, &format!("{name}.wt"))
            .unwrap_or_else(|e| panic!("{name} does not compile:\n{}", e.render()));
        let verified = warptrace_tests::programs::verified(&program);
        let bounds = probe_costs(&verified);
        assert_eq!(bounds.len(), program.probes.len(), "{name}");
        let mut colliding = program.clone();
        for m in &mut colliding.maps {
            if let MapKind::Hash { capacity } = &mut m.kind {
                *capacity = 1;
            }
        }
        let colliding = warptrace_tests::programs::verified(&colliding);
        // The costliest site of each probe: (instructions, atomics, where).
        let mut costliest: BTreeMap<usize, (u64, u64, String)> = BTreeMap::new();
        for ((file, asm), verified) in corpus
            .iter()
            .flat_map(|c| [(c, &verified), (c, &colliding)])
        {
            let out = instrument(asm, verified)
                .unwrap_or_else(|e| panic!("{name} × {file}: instrument failed: {e}"));
            for k in &out.kernels {
                for s in &k.snippets {
                    snippets += 1;
                    let b = &bounds[s.probe];
                    if s.insns > b.device_insns || s.atomics > b.atomics {
                        failures.push(format!(
                            "{name} probe {} ({}) in {file}: {}: a snippet of {} instructions \
                             and {} atomics, above the bound {} and {}",
                            s.probe,
                            b.attach,
                            k.name,
                            s.insns,
                            s.atomics,
                            b.device_insns,
                            b.atomics
                        ));
                    }
                    let c = costliest.entry(s.probe).or_default();
                    if s.insns > c.0 {
                        *c = (s.insns, c.1.max(s.atomics), format!("{file}: {}", k.name));
                    }
                    c.1 = c.1.max(s.atomics);
                }
            }
        }
        for (p, (insns, atomics, at)) in &costliest {
            let b = &bounds[*p];
            if b.device_insns > insns + insns / 16 + 8 || b.atomics > atomics + atomics / 16 + 2 {
                failures.push(format!(
                    "{name} probe {p} ({}): bound {} instructions and {} atomics, the \
                     costliest site ({at}) {insns} and {atomics}",
                    b.attach, b.device_insns, b.atomics
                ));
            }
        }
        (snippets, failures)
    });
    let snippets: usize = measured.iter().map(|(n, _)| n).sum();
    let failures: Vec<String> = measured.into_iter().flat_map(|(_, f)| f).collect();
    assert!(snippets > 1000, "only {snippets} snippets were measured");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
