#!/usr/bin/env bash
# The measurement behind docs/decisions/0019-sharded-counters.md: how much of the heavy
# probes' overhead is contention on one map slot. Kernel time (CUDA events, 30 launches,
# median) of four benchmark kernels plain, under gmem_bytes, and under gmem_bytes with
# its key tuple sharded by hand over 8, 32 and 128 slots (`ctaid.x & N`), and under two
# per-warp DMAT variants. On the device machine, with .gpu/ from scripts/package-gpu.sh:
#   bash scripts/contention-experiment.sh        # ~4 minutes; logs and JSON to $OUT
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-contention-out}
K=matmul_64x64x32,softmax,layernorm,flash_attn_fwd
TIMEOUT=150
source scripts/kernel-variants.sh
sharded() { # N-1
    local s="ctaid.x & $1"
    echo "mem:global:load { @ld[kernel, $s] = sum(bytes); } mem:global:store { @st[kernel, $s] = sum(bytes); } mem:global:atomic { @at[kernel, $s] = sum(bytes); } mem:global:async { @as[kernel, $s] = sum(bytes); }"
}
run plain
run gmem_bytes -p gmem_bytes
for n in 7 31 127; do
    run "gmem_bytes_sharded$((n + 1))" -e "$(sharded $n)"
done
run dmat -p dmat
run dmat_warp_ring -e 'warp mem:global:* { @r = (globaltimer, addr, active); }'
"$PY" scripts/kernel_times.py "$OUT"
