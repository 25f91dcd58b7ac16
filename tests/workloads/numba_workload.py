"""Numba CUDA workload of scripts/gpu-e2e.sh (scripts/gpu_e2e_more.py): a guarded saxpy.

Usage: python numba_workload.py OUT_FILE
Launches the saxpy kernel of tests/corpus/src/numba_kernels.py through @cuda.jit (as a
Numba program does: Numba compiles it at the first launch, links it with nvJitLink or the
driver's linker and loads the result) on fixed random inputs, writes the output's bytes to
OUT_FILE (so runs with and without warptrace can be compared bit for bit), and prints the
expected launch geometry and global-load bytes as JSON, keyed by a substring of the
kernel's name: Numba's names are mangled with the module, an ABI tag and the argument types
(here `_ZN13numba_kernels5saxpyB2v1B…E5ArrayIfLi1E1C7mutable7alignedE…fi`, demangled
`numba_kernels::saxpy[abi:v1][abi:…](Array<float, 1, C, mutable, aligned>, …, float, int)`),
so the check (scripts/gpu_e2e_more.py) takes the map keys that contain "saxpy" and wants
exactly one.

Load bytes: each in-range thread (i < n) reads x[i] and y[i], 4 bytes each: 2 * n * 4.
Numba passes arrays as structs of pointer, shape and strides; for these contiguous (C)
arrays NVVM emits `ld.global.f32` (checked with numba.cuda.compile_ptx, sm_90), for the
corpus's any-layout (A) signature *generic* `ld.f32`, so the probe of this workload counts
`mem:generic:load` as well as `mem:global:load` (nothing else of this kernel loads: no
shared memory).
"""
import json
import os
import sys

import numpy as np

# numba-cuda (the device machine's 0.x) registers an overload for `np.row_stack`, which
# NumPy 2.4 removed; it was an alias of `np.vstack` all along. Put the alias back so the
# package imports (a shim for this environment, not a change to what the kernel does).
if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack

from numba import cuda  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "corpus", "src"))
from numba_kernels import saxpy  # noqa: E402


def main(out_file):
    n, threads = 1_000_003, 256          # not a multiple of 256: the last block is guarded
    blocks = (n + threads - 1) // threads
    rng = np.random.default_rng(0)
    x = rng.random(n, dtype=np.float32)
    y = rng.random(n, dtype=np.float32)
    a = np.float32(2.5)
    kernel = cuda.jit(lineinfo=True)(saxpy)
    dx, dy = cuda.to_device(x), cuda.to_device(y)
    dout = cuda.device_array(n, dtype=np.float32)
    kernel[blocks, threads](dout, dx, dy, a, np.int32(n))
    cuda.synchronize()
    out = dout.copy_to_host()
    ref = a * x + y
    assert np.allclose(out, ref, rtol=1e-6, atol=1e-6), "saxpy mismatch"
    with open(out_file, "wb") as f:
        f.write(out.tobytes())
    print(json.dumps({"saxpy": {"blocks": blocks, "ldbytes": 2 * n * 4}}))


if __name__ == "__main__":
    main(sys.argv[1])
