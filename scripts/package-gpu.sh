#!/usr/bin/env bash
# Builds the release binaries and the GPU workloads here and copies them, with every
# non-system library they need (checked with ldd), into .gpu/ for the device machine.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash scripts/setup.sh >/dev/null
source .tools/env.sh
cargo build --release -p warptrace -p warptrace-preload
cargo build --release -p warptrace-tests --bin warptrace-oracle
rm -rf .gpu && mkdir -p .gpu
cp target/release/warptrace target/release/libwarptrace_preload.so target/release/warptrace-oracle .gpu/
# Line tables stay in target/; the copies travel (the device call carries 64 MiB at most).
strip --strip-debug .gpu/warptrace .gpu/libwarptrace_preload.so .gpu/warptrace-oracle
# nvcc's defaults: the fatbinary's PTX is zstd-compressed, as in real programs.
# The PyPI toolchain keeps its libraries in lib/, not targets/*/lib as nvcc.profile expects.
nvcc -arch=sm_90a -lineinfo -L"$WARPTRACE_CUDA_HOME/lib" -o .gpu/nvcc_app tests/workloads/nvcc_app.cu
nvcc -arch=sm_90a -lineinfo -L"$WARPTRACE_CUDA_HOME/lib" -o .gpu/nvcc_bench tests/workloads/nvcc_bench.cu
nvcc -arch=sm_90a -lineinfo -L"$WARPTRACE_CUDA_HOME/lib" -o .gpu/coop_app tests/workloads/coop_app.cu
nvcc -arch=sm_90a -lineinfo -L"$WARPTRACE_CUDA_HOME/lib" -o .gpu/multi_ctx tests/workloads/multi_ctx.cu
nvcc -arch=sm_90a -lineinfo -L"$WARPTRACE_CUDA_HOME/lib" -o .gpu/loop_timing tests/workloads/loop_timing.cu
nvcc -arch=sm_90a -lineinfo -L"$WARPTRACE_CUDA_HOME/lib" -o .gpu/wide_blocks tests/workloads/wide_blocks.cu
nvcc -arch=sm_90a -lineinfo -L"$WARPTRACE_CUDA_HOME/lib" -o .gpu/graph_api tests/workloads/graph_api.cu
for f in .gpu/*; do
  ldd "$f" 2>/dev/null | awk '/=>/ {print $3}' | while read -r lib; do
    case "$(basename "$lib")" in
      libc.so*|libm.so*|libdl.so*|librt.so*|libpthread.so*|libgcc_s.so*|ld-linux*|libstdc++.so*) ;;
      *) [ -e ".gpu/$(basename "$lib")" ] || { echo "package-gpu: copying non-system library $lib"; cp "$lib" .gpu/; } ;;
    esac
  done
done
# The commit the binaries come from, for the reports made with them on the device (after
# the library scan: it is not an executable).
{ git rev-parse --short=12 HEAD; git diff --quiet HEAD -- . ':!*.md' || echo "+ uncommitted changes"; } \
  | paste -sd' ' > .gpu/COMMIT
ls -la .gpu
