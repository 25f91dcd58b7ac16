"""Memory-access microbenchmarks for the memtrace and dmat probes (scripts/gpu_e2e_more.py):
linear, strided, gather, scatter and random accesses, one CuPy RawKernel each.

Usage: python access_patterns.py
Runs each kernel once and prints, as one JSON line, every global access each kernel makes:
its address and width, computed on the host from the device pointers and the index arrays
("accesses"; a probe that records every lane's address must record exactly this multiset),
and every run of every warp's access ("runs": lanes whose addresses are 4 bytes apart;
the lowest lane's address, the run's lane mask and the width, what dmat records).

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

    runs = {}

    def accesses(*parts):
        # Every warp is full (n and the block a multiple of 32). Its lanes split into runs,
        # lanes whose addresses minus 4 x lane are equal; each run is (its lowest lane's
        # address, its lane mask, 4).
        out = []
        for p in parts:
            for w in range(0, N, 32):
                groups = {}
                for lane in range(32):
                    addr = int(p[w + lane])
                    first, mask = groups.get(addr - 4 * lane, (addr, 0))
                    groups[addr - 4 * lane] = (first, mask | 1 << lane)
                out += [[first, mask, 4] for first, mask in groups.values()]
        runs[name] = sorted(out)
        return sorted([int(x), 4] for p in parts for x in p)

    name = "ap_linear"
    module.get_function(name)(grid, block, (a, out))
    expect[name] = accesses(A + 4 * i, O + 4 * i)
    name = "ap_strided"
    module.get_function(name)(grid, block, (a, out))
    expect[name] = accesses(A + 4 * STRIDE * i, O + 4 * i)
    for name, idx, idx_d in (("ap_gather", perm, perm_d), ("ap_random", rnd, rnd_d)):
        module.get_function(name)(grid, block, (a, idx_d, out))
        expect[name] = accesses(idx_d.data.ptr + 4 * i, A + 4 * idx.astype(np.int64), O + 4 * i)
    name = "ap_scatter"
    module.get_function(name)(grid, block, (a, perm_d, out))
    expect[name] = accesses(perm_d.data.ptr + 4 * i, A + 4 * i, O + 4 * perm.astype(np.int64))
    cp.cuda.Device().synchronize()
    print(json.dumps({"accesses": expect, "runs": runs}))


if __name__ == "__main__":
    main()
