#!/usr/bin/env bash
# Regenerates tests/corpus/gcn/ from sources with the toolchain scripts/setup.sh installs:
# clang-19 (Debian llvm-19 packages) for the HIP and OpenCL kernels, Triton 3.6's AMD back
# end (.tools/venv) for the Triton kernels. No GPU and no ROCm installation is needed.
# tests/corpus/gcn/README.md lists each file with its producer, version, source and flags.
# Run from anywhere; the assembly records absolute source paths (`.file`), so the
# checked-in files are generated from a checkout at /work/main.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bash "$root/scripts/setup.sh" >/dev/null
source "$root/.tools/env.sh"
out="$here/gcn"
mkdir -p "$out"
src="$here/src"

# clang-19, HIP, device only: no HIP headers or device libraries (-nogpuinc -nogpulib),
# line tables for line: probes. The module's uniquifying `__hip_cuid_*` symbol is fixed
# with -cuid so regeneration is byte-stable.
for arch in gfx942 gfx90a; do
  (cd "$src" && clang-19 -x hip --offload-arch="$arch" --cuda-device-only -nogpuinc -nogpulib \
    -cuid=warptrace -O3 -gline-tables-only -S gcn_kernels.hip -o "$out/hip_kernels_$arch.s")
done

# clang-19, HIP, a 3-D grid kernel: wave64 (gfx942) and wave32 (gfx1100, RDNA3's default).
for arch in gfx942 gfx1100; do
  (cd "$src" && clang-19 -x hip --offload-arch="$arch" --cuda-device-only -nogpuinc -nogpulib \
    -cuid=warptrace -O3 -S gcn_grid.hip -o "$out/hip_grid_$arch.s")
done

# clang-19, HIP, global memory through buffer resources (raw buffer loads and stores with
# VGPR, scalar and immediate offsets; a descriptor that adds the lane to the index).
for arch in gfx942 gfx1100; do
  (cd "$src" && clang-19 -x hip --offload-arch="$arch" --cuda-device-only -nogpuinc -nogpulib \
    -cuid=warptrace -O3 -S gcn_buffers.hip -o "$out/hip_buffers_$arch.s")
done

# clang-19, HIP, RDNA3's matrix instruction (v_wmma, gfx11 only), with line tables.
(cd "$src" && clang-19 -x hip --offload-arch=gfx1100 --cuda-device-only -nogpuinc -nogpulib \
  -cuid=warptrace -O3 -gline-tables-only -S gcn_wmma.hip -o "$out/hip_wmma_gfx1100.s")

# clang-19, OpenCL C 2.0 for amdhsa: wave64 on CDNA, wave32 on RDNA3 (gfx1100's default).
for arch in gfx942 gfx90a gfx1100; do
  (cd "$src" && clang-19 -x cl -cl-std=CL2.0 -target amdgcn-amd-amdhsa -mcpu="$arch" -nogpulib \
    -O3 -S gcn_kernels.cl -o "$out/ocl_kernels_$arch.s")
done

# Triton 3.6, AMD back end, compiled on the CPU (GPUTarget("hip", arch, 64)).
(cd "$src" && "$WARPTRACE_PYTHON" triton_amd_kernels.py "$out")

echo "corpus: $(ls "$out"/*.s | wc -l) GCN files in $out"
