//! The interpreter's model of the GPU workload predicts the analytic values: the oracle
//! that `scripts/gpu_e2e.py` compares the GPU's maps with.

use std::process::Command;

#[test]
fn the_oracle_predicts_the_nvcc_workloads_analytic_counts() {
    let out = Command::new(env!("CARGO_BIN_EXE_warptrace-oracle"))
        .args([
            "-e",
            "kernel:entry /tid.x == 0/ { @blocks[kernel] = count(); } \
             mem:global:load { @ldbytes[kernel] = sum(bytes); } \
             kernel:exit { @exits = count(); }",
        ])
        .output()
        .expect("oracle runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let n = 1u64 << 20;
    let expect = format!(
        "\n\n@blocks[block_sum(float const*, float*, int)]: {blocks}\n\
         @blocks[scale_add(float const*, float*, float, int)]: {blocks}\n\
         @exits: {exits}\n\
         @ldbytes[block_sum(float const*, float*, int)]: {b1}\n\
         @ldbytes[scale_add(float const*, float*, float, int)]: {b2}\n",
        blocks = n / 256,
        exits = 2 * n,
        b1 = 4 * n,
        b2 = 8 * n,
    );
    assert_eq!(text, expect);
}

#[test]
fn the_oracle_places_array_records_and_numbers_launches() {
    let out = Command::new(env!("CARGO_BIN_EXE_warptrace-oracle"))
        .args([
            "-e",
            "map @t: array(per = thread, slots = 2); map @w: array(per = warp, slots = 1); \
             kernel:entry /ctaid.x == 1 && tid.x < 2/ { @t = (tid.x, launch); } \
             warp kernel:exit /ctaid.x == 5/ { @w = (warp, launch); }",
        ])
        .output()
        .expect("oracle runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let mut expect = String::from("\n\n");
    for launch in 1..=2 {
        for tid in 0..2 {
            expect.push_str(&format!("@t: ({tid}, {launch})\n"));
        }
    }
    for launch in 1..=2 {
        for warp in 0..8 {
            expect.push_str(&format!("@w: ({warp}, {launch})\n"));
        }
    }
    // block_sum's warp 0 leaves through two exits; lane 0's save finds the slot taken.
    expect.push_str("Lost 1 events\n");
    assert_eq!(text, expect);
}
