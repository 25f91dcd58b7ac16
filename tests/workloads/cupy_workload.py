"""CuPy workload of scripts/gpu-e2e.sh (scripts/gpu_e2e_more.py): the RawKernels of the PTX
corpus (tests/corpus/src/cupy_kernels.py: relu_scale, dot_reduce) and an ElementwiseKernel.

Usage: python cupy_workload.py OUT_FILE
Runs each kernel once on fixed random inputs (made by NumPy and copied in: no CuPy kernel
of its own runs), writes the outputs' bytes to OUT_FILE (so runs with and without
warptrace can be compared bit for bit) and prints the expected launch geometry and
global-load bytes as JSON, keyed by a substring of each kernel's name (the check takes the
map keys that contain it and wants exactly one). RawKernel names are the `extern "C"` names;
an ElementwiseKernel is compiled as `extern "C" __global__ void <name>(…)`, <name> as given.

CUPY_COMPILE_WITH_PTX=1 (set before CuPy is imported; CuPy reads it then): CuPy hands the
driver NVRTC's PTX (`-arch=compute_90`) instead of a cubin, which has no PTX for warptrace
to instrument. That is CuPy's own switch, and what tests/corpus/src/cupy_kernels.py models.

Expected values:
- relu_scale<<<ceil(n/256), 256>>>: each in-range thread reads x[i] once (NVRTC loads it
  once for both uses, as the corpus PTX shows: one ld.global.f32): n * 4 bytes.
- dot_reduce<<<120, 256>>>: a grid-stride loop; every i < n is visited by exactly one
  thread, which reads x[i] and y[i]: 2 * n * 4 bytes (the final atomicAdd is an atomic,
  not a load; the tree reduction is in shared memory). Its result is a float atomicAdd of
  120 partial sums in whatever order the blocks finish, so it is not bit-reproducible and
  is checked against NumPy with a tolerance instead of being written to OUT_FILE.
- wt_axpy (ElementwiseKernel, `z = a * x + y`, block_size=128): CuPy launches it through
  Function.linear_launch, grid = ceil(size / block_max_size) = ceil(n / 128); its
  grid-stride loop (CUPY_FOR) reads x[i] and y[i] once each for every i < n: 2 * n * 4
  bytes. CArray elements may be read through generic pointers, so the probe of this
  workload counts `mem:generic:load` as well as `mem:global:load`.
"""
import json
import os
import sys

os.environ["CUPY_COMPILE_WITH_PTX"] = "1"

import cupy as cp  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "corpus", "src"))
from cupy_kernels import SOURCE  # noqa: E402


def cdiv(a, b):
    return (a + b - 1) // b


def main(out_file):
    n = 1_000_003
    rng = np.random.default_rng(0)
    hx = rng.standard_normal(n, dtype=np.float32)
    hy = rng.standard_normal(n, dtype=np.float32)
    x, y = cp.asarray(hx), cp.asarray(hy)
    expect = {}

    relu_scale = cp.RawKernel(SOURCE, "relu_scale")
    r = cp.empty_like(x)
    s = np.float32(1.5)
    grid = cdiv(n, 256)
    relu_scale((grid,), (256,), (x, r, s, np.int32(n)))
    expect["relu_scale"] = {"blocks": grid, "ldbytes": n * 4}

    dot_reduce = cp.RawKernel(SOURCE, "dot_reduce")
    dot = cp.zeros(1, dtype=cp.float32)
    grid = 120
    dot_reduce((grid,), (256,), (x, y, dot, np.uint64(n)))
    expect["dot_reduce"] = {"blocks": grid, "ldbytes": 2 * n * 4}

    axpy = cp.ElementwiseKernel("float32 x, float32 y, float32 a", "float32 z", "z = a * x + y", "wt_axpy")
    z = cp.empty_like(x)
    axpy(x, y, np.float32(2.5), z, block_size=128)
    expect["wt_axpy"] = {"blocks": cdiv(n, 128), "ldbytes": 2 * n * 4}

    cp.cuda.Device().synchronize()
    hr, hz, hdot = cp.asnumpy(r), cp.asnumpy(z), float(cp.asnumpy(dot)[0])
    assert np.array_equal(hr, np.where(hx > 0, s * hx, np.float32(0))), "relu_scale mismatch"
    assert np.allclose(hz, np.float32(2.5) * hx + hy, rtol=1e-6, atol=1e-6), "wt_axpy mismatch"
    ref = float(np.dot(hx.astype(np.float64), hy.astype(np.float64)))
    assert abs(hdot - ref) <= 1e-3 * float(np.sqrt(n)) + 1e-4 * abs(ref), f"dot_reduce {hdot} vs {ref}"
    with open(out_file, "wb") as f:
        for t in (hr, hz):
            f.write(t.tobytes())
    print(json.dumps(expect))


if __name__ == "__main__":
    main(sys.argv[1])
