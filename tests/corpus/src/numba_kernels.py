"""Compiles the Numba kernels of the PTX corpus on the CPU (no GPU needed).

Usage: python numba_kernels.py OUT_DIR   (run by tests/corpus/gen.sh in its generation-time
virtualenv, with CUDA_HOME and LD_LIBRARY_PATH pointing at the project's CUDA 13.0 so
Numba finds libnvvm and libdevice)
Each kernel is compiled with numba.cuda.compile_ptx(fn, signature, cc=(9, 0),
lineinfo=True) -- the device-free form of what @cuda.jit does at the first launch -- and
written to OUT_DIR/numba_<name>.ptx. Numba emits `.target sm_90`.
"""
import sys

from numba import cuda, float32, int32, uint32


def saxpy(out, x, y, a, n):
    # A guarded element-wise kernel, as most Numba kernels are.
    i = cuda.grid(1)
    if i < n:
        out[i] = a * x[i] + y[i]


def block_hist(data, bins, n):
    # 64-bin histogram: shared-memory sub-histogram (shared atomics, barriers), then one
    # global atomic per bin and block; a grid-stride loop.
    local = cuda.shared.array(64, dtype=uint32)
    t = cuda.threadIdx.x
    if t < 64:
        local[t] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    while i < n:
        cuda.atomic.add(local, data[i] & 63, 1)
        i += stride
    cuda.syncthreads()
    if t < 64:
        cuda.atomic.add(bins, t, local[t])


KERNELS = {
    "saxpy": (saxpy, (float32[:], float32[:], float32[:], float32, int32)),
    "block_hist": (block_hist, (uint32[:], uint32[:], int32)),
}


if __name__ == "__main__":
    out = sys.argv[1]
    for name, (fn, sig) in KERNELS.items():
        ptx, _ = cuda.compile_ptx(fn, sig, cc=(9, 0), lineinfo=True)
        with open(f"{out}/numba_{name}.ptx", "w") as f:
            f.write(ptx)
