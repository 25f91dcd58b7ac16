#!/usr/bin/env bash
# Regenerates tests/corpus/ptx/ from sources, with the toolchain scripts/setup.sh installs.
# Every corpus file is produced here; none is edited by hand.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bash "$root/scripts/setup.sh" >/dev/null
source "$root/.tools/env.sh"
out="$here/ptx"
mkdir -p "$out"
# Triton 3.6, compiled on the CPU for sm_90a.
"$WARPTRACE_PYTHON" "$here/src/triton_kernels.py" "$out"
# nvcc 13.0: the GPU workload's kernels (several exits, shared memory, a barrier).
nvcc -arch=sm_90a -ptx -lineinfo "$root/tests/workloads/nvcc_app.cu" -o "$out/nvcc_app.ptx"
echo "corpus: $(ls "$out" | wc -l) PTX files in $out"
