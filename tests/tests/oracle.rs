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
