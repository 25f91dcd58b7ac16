use crate::instrument;
use warptrace_ir::{Program, HASH_MAX_PROBES};
use warptrace_verifier::verify_program;

/// On a real kernel the skeleton's `[kernel]` updates try one slot, and so do updates keyed
/// by the site (`pc`: a constant at each site, distinct home slots); a per-thread key keeps
/// the full probe sequence.
#[test]
fn constant_key_snippets_have_one_cas() {
    let ptx = include_str!("../../../tests/corpus/ptx/triton_vector_add.ptx");
    let cas = |text: &str| {
        let p = Program::parse(text).expect("IR parses");
        let program = verify_program(&p).expect("verifies");
        let out = instrument(ptx, &program).expect("instruments");
        out.ptx.matches("atom.global.cas.b64").count()
    };
    let by_kernel = "map @n: hash(keys = 4096) [kernel] -> count

probe 0: mem:global:load
  0: r0 = sreg kernel
  1: map.update @n[r0] count
  2: exit
";
    let by_pc = "map @n: hash(keys = 4096) [kernel, u64] -> count

probe 0: mem:global:load
  0: r0 = sreg kernel
  1: r1 = sreg pc
  2: map.update @n[r0, r1] count
  3: exit
";
    let by_tid = "map @n: hash(keys = 4096) [u64] -> count

probe 0: mem:global:load
  0: r0 = sreg tid.x
  1: map.update @n[r0] count
  2: exit
";
    let sites = ptx.matches("ld.global").count();
    assert!(sites > 0);
    assert_eq!(cas(by_kernel), sites);
    assert_eq!(cas(by_pc), sites);
    assert_eq!(cas(by_tid), sites * HASH_MAX_PROBES as usize);
}
