"""Memory-access microbenchmarks for the memtrace and dmat probes (scripts/gpu_e2e_more.py):
linear, strided, gather, scatter and random accesses, one CuPy RawKernel each.

Usage: python access_patterns.py
Runs each kernel once and prints, as one JSON line, every global access each kernel makes:
its address and width, computed on the host from the device pointers and the index arrays.
A probe that records addresses must record exactly this multiset.

Each kernel runs n = 2048 threads (8 blocks of 256, no thread out of range):
- ap_linear:  out[i] = a[i]
- ap_strided: out[i] = a[i * 33]
- ap_gather:  out[i] = a[perm[i]]        (perm a permutation: each element once)
- ap_scatter: out[perm[i]] = a[i]
- ap_random:  out[i] = a[rnd[i]]         (rnd with repeats)
Every access is 4 bytes (float or int); gather, scatter and random also load their index.

CUPY_COMPILE_WITH_PTX=1, as in cupy_workload.py: the driver gets PTX, which warptrace
instruments.
"""
import json
import os

os.environ["CUPY_COMPILE_WITH_PTX"] = "1"

import cupy as cp  # noqa: E402
import numpy as np  # noqa: E402

N, THREADS, STRIDE = 2048, 256, 33

SOURCE = r"""
extern "C" __global__ void ap_linear(const float *a, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = a[i];
}
extern "C" __global__ void ap_strided(const float *a, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = a[i * 33];
}
extern "C" __global__ void ap_gather(const float *a, const int *idx, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = a[idx[i]];
}
extern "C" __global__ void ap_scatter(const float *a, const int *idx, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[idx[i]] = a[i];
}
extern "C" __global__ void ap_random(const float *a, const int *idx, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = a[idx[i]];
}
"""


def main():
    rng = np.random.default_rng(7)
    module = cp.RawModule(code=SOURCE)
    a = cp.asarray(rng.random(N * STRIDE, dtype=np.float32))
    out = cp.zeros(N * STRIDE, dtype=cp.float32)
    perm = rng.permutation(N).astype(np.int32)
    rnd = rng.integers(0, N, size=N).astype(np.int32)
    perm_d, rnd_d = cp.asarray(perm), cp.asarray(rnd)
    A, O = a.data.ptr, out.data.ptr
    grid, block = (N // THREADS,), (THREADS,)
    i = np.arange(N)
    expect = {}

    def accesses(*parts):
        return sorted([int(x), 4] for p in parts for x in p)

    module.get_function("ap_linear")(grid, block, (a, out))
    expect["ap_linear"] = accesses(A + 4 * i, O + 4 * i)
    module.get_function("ap_strided")(grid, block, (a, out))
    expect["ap_strided"] = accesses(A + 4 * STRIDE * i, O + 4 * i)
    for name, idx, idx_d in (("ap_gather", perm, perm_d), ("ap_random", rnd, rnd_d)):
        module.get_function(name)(grid, block, (a, idx_d, out))
        expect[name] = accesses(idx_d.data.ptr + 4 * i, A + 4 * idx.astype(np.int64), O + 4 * i)
    module.get_function("ap_scatter")(grid, block, (a, perm_d, out))
    expect["ap_scatter"] = accesses(perm_d.data.ptr + 4 * i, A + 4 * i, O + 4 * perm.astype(np.int64))
    cp.cuda.Device().synchronize()
    print(json.dumps({"accesses": expect}))


if __name__ == "__main__":
    main()
