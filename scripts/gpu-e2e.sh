#!/usr/bin/env bash
# The GPU end-to-end check (H100/H200). Runs on the device machine from the repository
# root, with the binaries built on the development machine in .gpu/ (see
# scripts/package-gpu.sh): warptrace, libwarptrace_preload.so, nvcc_app, nvcc_bench.
# Prints a table last; full logs go to $OUT (or ./gpu-e2e-out). The warp-combining
# measurement (scripts/warp_combine.py) prints its figures as `warp-combine:` lines.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=${OUT:-$root/gpu-e2e-out}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"
export PYTHONUNBUFFERED=1
python3 scripts/gpu_e2e.py --bin .gpu --out "$out" 2>&1 | tee "$out/gpu-e2e.log"
exit "${PIPESTATUS[0]}"
