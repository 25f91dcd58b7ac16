#!/usr/bin/env bash
# The GPU benchmark of issue 9 (H100/H200): kernel time of Triton matmul (two tile configs),
# softmax, layernorm, flash-attention forward and an nvcc kernel without probes, under each
# library probe (`warptrace -l`) and under Triton's Proton intra-kernel instrumentation
# (default and clock32 modes); extra registers, probe memory, instrument + JIT latency and
# the end-to-end wall time of a torch.compile'd model with and without a light probe.
#
# On the device machine, from the repository root, with .gpu/ from scripts/package-gpu.sh
# (~5 minutes; --budget-s caps it):
#   bash scripts/bench-gpu.sh
# Raw results ($OUT/results.json), logs ($OUT/runs.log, $OUT/bench-gpu.log) and the
# regenerated $OUT/BENCHMARKS.md go to $OUT (default ./bench-gpu-out); copy BENCHMARKS.md
# back to the repository root and commit it (never edit it by hand). The summary table
# prints last.
#
# Without a GPU (Triton, ptxas and nvcc from .tools/: everything but the GPU, fake timings;
# output to $OUT or a temporary folder):
#   bash scripts/bench-gpu.sh --dry-run
# Other options (scripts/bench_gpu.py --help): --runs N, --kernels a,b, --probes a,b,
# --skip-proton, --skip-e2e, --budget-s S; --from-results FILE regenerates BENCHMARKS.md.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
py=python3
dry=0
for a in "$@"; do [ "$a" = --dry-run ] && dry=1; done
if [ "$dry" = 1 ]; then
  # The CPU toolchain of scripts/setup.sh: Triton 3.6 in a venv, ptxas and nvcc.
  [ -f .tools/env.sh ] && source .tools/env.sh
  py=${WARPTRACE_PYTHON:-python3}
  out=${OUT:-$(mktemp -d /tmp/bench-gpu-dry.XXXXXX)}
else
  out=${OUT:-$root/bench-gpu-out}
fi
mkdir -p "$out"
if [ "$dry" = 0 ]; then
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader | tee "$out/gpu.txt"
fi
export PYTHONUNBUFFERED=1
export BENCH_GPU_COMMAND="bash scripts/bench-gpu.sh $*"
"$py" scripts/bench_gpu.py --bin .gpu --out "$out" "$@" 2>&1 | tee "$out/bench-gpu.log"
exit "${PIPESTATUS[0]}"
