#!/usr/bin/env bash
# Installs, idempotently and into the project-local folder .tools/, every external tool
# the tests need: the CUDA 13.0 toolchain from PyPI (nvcc, ptxas, fatbinary; no GPU needed),
# the SASS disassemblers nvdisasm and cuobjdump from PyPI (13.2: the first on PyPI; they
# read 13.0 cubins)
# and Triton 3.6 in a virtualenv (compiles real kernels to PTX on the CPU); and, from the
# distribution, libz3 (the verifier's SMT solver, linked by the build), LLVM 19 (AMDGPU)
# and Debian's HIP.
# Prints the environment to source on its last line: `source .tools/env.sh`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tools="$root/.tools"
mkdir -p "$tools"

# System packages: only what is missing, so a prepared machine needs no root.
missing=()
[ -e /usr/include/z3.h ] || missing+=(libz3-dev)
# The AMD back end: LLVM 19's AMDGPU assembler, linker and tools (gfx90a and gfx942), and
# Debian's HIP (hipcc, libamdhip64) for the HIP interception tests' real program.
for tool in llvm-mc-19:llvm-19 ld.lld-19:lld-19 clang-19:clang-19 hipcc:hipcc; do
  command -v "${tool%%:*}" >/dev/null || missing+=("${tool#*:}")
done
[ -e /usr/include/hip/hip_runtime.h ] || missing+=(libamdhip64-dev)
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]} (apt)"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${missing[@]}" >/dev/null
fi

CUDA_VER=13.0.88
CCCL_VER=13.0.85
RUNTIME_VER=13.0.96
TRITON_VER=3.6.0

cuda="$tools/cuda"
stamp="$cuda/.installed-$CUDA_VER"
if [ ! -f "$stamp" ]; then
  echo "setup: installing CUDA $CUDA_VER toolchain (PyPI) into $cuda"
  rm -rf "$cuda"
  # One `pip install --target` call: a later one into the same target would delete the others.
  python3 -m pip install -q --disable-pip-version-check --no-cache-dir --target "$cuda" \
    "nvidia-cuda-nvcc==$CUDA_VER" "nvidia-cuda-runtime==$RUNTIME_VER" \
    "nvidia-cuda-crt==$CUDA_VER" "nvidia-nvvm==$CUDA_VER" "nvidia-cuda-cccl==$CCCL_VER"
  touch "$stamp"
fi
cuda_home="$cuda/nvidia/cu13"
[ -x "$cuda_home/bin/ptxas" ] || { echo "setup: ptxas not found under $cuda_home/bin" >&2; exit 1; }

# nvdisasm and cuobjdump: a separate target, since their wheels start at 13.2 and share the
# nvidia/cu13 layout with the 13.0 toolchain's.
SASS_VER=13.2.86
sass="$tools/sass"
if [ ! -f "$sass/.installed-$SASS_VER" ]; then
  echo "setup: installing nvdisasm and cuobjdump $SASS_VER (PyPI) into $sass"
  rm -rf "$sass"
  # One `pip install --target` call, as above.
  python3 -m pip install -q --disable-pip-version-check --no-cache-dir --target "$sass" \
    "nvidia-cuda-nvdisasm==$SASS_VER" "nvidia-cuda-cuobjdump==$SASS_VER"
  touch "$sass/.installed-$SASS_VER"
fi
sass_bin="$sass/nvidia/cu13/bin"
[ -x "$sass_bin/nvdisasm" ] || { echo "setup: nvdisasm not found under $sass_bin" >&2; exit 1; }
"$sass_bin/nvdisasm" --version >/dev/null || { echo "setup: nvdisasm does not run" >&2; exit 1; }

venv="$tools/venv"
if [ ! -f "$venv/.installed-triton-$TRITON_VER" ]; then
  echo "setup: installing Triton $TRITON_VER into $venv"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check --no-cache-dir "triton==$TRITON_VER"
  touch "$venv/.installed-triton-$TRITON_VER"
fi

rustup component add rustfmt clippy >/dev/null 2>&1 || true

cat > "$tools/env.sh" <<ENV
export WARPTRACE_CUDA_HOME="$cuda_home"
export PATH="$cuda_home/bin:$sass_bin:\$PATH"
export WARPTRACE_NVDISASM="$sass_bin/nvdisasm"
export WARPTRACE_CUOBJDUMP="$sass_bin/cuobjdump"
export WARPTRACE_PYTHON="$venv/bin/python"
ENV
echo "setup: done; source $tools/env.sh"
