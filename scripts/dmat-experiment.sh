#!/usr/bin/env bash
# The measurement behind docs/decisions/0020-ring-copies-and-dmat-runs.md: where DMAT's
# kernel time goes. Kernel time (CUDA events, median of 30 launches) of five benchmark
# kernels plain, under `dmat`, and under variants: `clock64` for `globaltimer`, a record
# per warp from its first lane (`warp`), a record from lane 0 only, and the runs and the
# predicate with a warp-combined `count()` instead of a record; the record and the count
# placed after the access (`after`, `after_count`). On the device machine,
# with .gpu/ from scripts/package-gpu.sh:
#   bash scripts/dmat-experiment.sh        # ~5 minutes; logs and JSON to $OUT
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-dmat-experiment-out}
K=matmul_128x128x64,matmul_64x64x32,softmax,layernorm,flash_attn_fwd
TIMEOUT=120
source scripts/kernel-variants.sh
ring='map @dmat: ring(capacity = 1M, overflow = drop);'
first='/(run & ((1 << lane) - 1)) == 0/'
run plain
run dmat -p dmat
run clock -e "$ring mem:global:* $first { @dmat = (clock64, addr, run, bytes); }"
run warp -e "$ring warp mem:global:* { @dmat = (globaltimer, addr, activemask, bytes); }"
run lane0 -e "$ring mem:global:* /lane == 0/ { @dmat = (globaltimer, addr, activemask, bytes); }"
run count -e "mem:global:* $first { @n[kernel] = count(); }"
# The same record and count after the access: the kernel's load is issued before the
# snippet's cursor atomic, whose round trip then overlaps it.
run after -e "$ring after mem:global:* $first { @dmat = (globaltimer, addr, run, bytes); }"
run after_count -e "after mem:global:* $first { @n[kernel] = count(); }"
"$PY" scripts/kernel_times.py "$OUT"
