#!/usr/bin/env bash
# Regenerates tests/corpus/ptx/ from sources, with the toolchain scripts/setup.sh installs
# plus a generation-time virtualenv (.tools/corpus-venv: Numba and CuPy, pinned) that only
# this script uses. Every corpus file is produced here; none is edited by hand.
# tests/corpus/README.md lists each file with its producer, version, source and flags.
# Run from anywhere; the PTX records absolute source paths (`.file`), so the checked-in
# files are generated from a checkout at /work/main.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bash "$root/scripts/setup.sh" >/dev/null
source "$root/.tools/env.sh"
out="$here/ptx"
mkdir -p "$out"

# Triton 3.6, compiled on the CPU for sm_90a.
"$WARPTRACE_PYTHON" "$here/src/triton_kernels.py" "$out"
# ... and the host-side benchmark's ~12k-line kernel, kept out of the corpus's matrix.
mkdir -p "$here/large"
"$WARPTRACE_PYTHON" "$here/src/triton_kernels.py" --large "$here/large"

# nvcc 13.0: the GPU workload's kernels (several exits, shared memory, a barrier).
nvcc -arch=sm_90a -ptx -lineinfo "$root/tests/workloads/nvcc_app.cu" -o "$out/nvcc_app.ptx"
# nvcc 13.0: atomics, cp.async, wmma (mma.sync), non-inlined device functions, several
# exits; for sm_90a and, as a second real sm_80 module, for sm_80.
nvcc -arch=sm_90a -ptx -lineinfo "$here/src/nvcc_kernels.cu" -o "$out/nvcc_kernels_sm90a.ptx"
nvcc -arch=sm_80 -ptx -lineinfo "$here/src/nvcc_kernels.cu" -o "$out/nvcc_kernels_sm80.ptx"
# nvcc 13.0: device functions — recursion, prototypes, two kernels calling one function,
# an indirect call through a function-pointer table.
nvcc -arch=sm_90a -ptx -lineinfo "$here/src/nvcc_calls.cu" -o "$out/nvcc_calls.ptx"
# nvcc 13.0: wgmma through inline PTX (sm_90a only).
nvcc -arch=sm_90a -ptx -lineinfo "$here/src/nvcc_wgmma.cu" -o "$out/nvcc_wgmma.ptx"
# nvcc 13.0: bulk copies (cp.async.bulk global<->shared, shared->cluster, cp.reduce.async.bulk,
# prefetch) and TMA tensor copies through cuda::memcpy_async, cuda::ptx and inline PTX
# (sm_90a only).
nvcc -arch=sm_90a -ptx -lineinfo "$here/src/nvcc_bulk.cu" -o "$out/nvcc_bulk.ptx"

# nvcc 13.0 with CCCL 3.0.1's cub: DeviceReduce, DeviceScan and DeviceSelect kernels, kept
# beside the hostile kernels (tests/tests/hostile_kernels.rs), out of the corpus's matrix.
nvcc -arch=sm_90a -ptx -lineinfo "$here/src/cccl_algorithms.cu" -o "$here/hostile/cccl_algorithms.ptx"

# The JIT budget's reproductions (tests/tests/jit_budget.rs), out of the corpus's matrix: CCCL
# 3.0.1's segmented radix sort for sm_80, and heavily unrolled nvcc kernels for sm_90a.
mkdir -p "$here/jit"
nvcc -arch=sm_80 -ptx -lineinfo "$here/src/cccl_radix_sort.cu" -o "$here/jit/cccl_radix_sort_sm80.ptx"
nvcc -arch=sm_90a -ptx -lineinfo "$here/src/nvcc_unrolled.cu" -o "$here/jit/nvcc_unrolled.ptx"

# Numba and CuPy: a generation-time virtualenv, pinned (each install is idempotent).
venv="$root/.tools/corpus-venv"
pins=(numba-cuda==0.30.4 numba==0.68.1 llvmlite==0.50.0 cuda-bindings==13.5.0
  cuda-core==1.2.2 cuda-pathfinder==1.9.0 cupy-cuda13x==14.2.0 nvidia-cuda-nvrtc==13.0.88
  numpy==2.4.6 packaging==26.3)
stamp="$venv/.installed-$(echo "${pins[*]}" | md5sum | cut -c1-12)"
if [ ! -f "$stamp" ]; then
  echo "gen.sh: installing ${pins[*]} into $venv"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check --no-cache-dir "${pins[@]}"
  touch "$stamp"
fi
# Numba finds libnvvm through the loader path and libdevice under CUDA_HOME (both from the
# nvidia-nvvm wheel setup.sh installs).
CUDA_HOME="$WARPTRACE_CUDA_HOME" LD_LIBRARY_PATH="$WARPTRACE_CUDA_HOME/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
  "$venv/bin/python" "$here/src/numba_kernels.py" "$out"
# CuPy's NVRTC wrapper (see the script for why not RawKernel itself); NVRTC names the
# program's `.file` after the working directory.
(cd "$here/src" && "$venv/bin/python" "$here/src/cupy_kernels.py" "$out")

echo "corpus: $(ls "$out" | wc -l) PTX files in $out"
