"""Compiles the CuPy kernels of the PTX corpus on the CPU (no GPU needed).

Usage: python cupy_kernels.py OUT_DIR   (run by tests/corpus/gen.sh in its generation-time
virtualenv: cupy-cuda13x and nvidia-cuda-nvrtc 13.0)

Provenance, honestly: `cupy.RawKernel(code, name)` compiles `code` at the first launch
with cupy.cuda.compiler.compile_using_nvrtc, which asks the CUDA runtime for the current
device's architecture -- and fails on a machine without a GPU driver
(cudaErrorInsufficientDriver) before NVRTC runs. So this script calls the layer below it,
CuPy's own NVRTC program wrapper (cupy.cuda.compiler._NVRTCProgram), with the options
compile_using_nvrtc adds for a PTX build (CUPY_COMPILE_WITH_PTX=1) on an sm_90 device:
`-arch=compute_90 --device-as-default-execution-space`, plus `-lineinfo`. The output is
what CuPy hands the driver for these RawKernel sources; NVRTC (13.0) is the compiler.
"""
import sys

from cupy.cuda import compiler

# RawKernel sources, written the way CuPy's documentation writes them (extern "C").
SOURCE = r'''
extern "C" __global__ void relu_scale(const float* x, float* y, float s, int n) {
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n) {
        y[i] = x[i] > 0.f ? s * x[i] : 0.f;
    }
}

// Grid-stride dot product: a shared-memory tree reduction per block, then one float
// atomicAdd per block (the RawKernel reduction pattern of CuPy's user guide).
extern "C" __global__ void dot_reduce(const float* x, const float* y, float* out,
                                      unsigned long long n) {
    __shared__ float sdata[256];
    unsigned tid = threadIdx.x;
    float acc = 0.f;
    for (unsigned long long i = blockIdx.x * blockDim.x + tid; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x) {
        acc += x[i] * y[i];
    }
    sdata[tid] = acc;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) atomicAdd(out, sdata[0]);
}
'''

OPTIONS = ("-lineinfo", "-arch=compute_90", "--device-as-default-execution-space")


def compile_ptx(source):
    # NVRTC reads no file: the name is only the program's name, recorded in `.file`.
    # CuPy uses a temporary directory's kern.cu; a fixed name keeps the output reproducible.
    prog = compiler._NVRTCProgram(source, "kern.cu", (), (), name_expressions=None,
                                  method="ptx")
    ptx, _ = prog.compile(OPTIONS)
    return ptx.decode() if isinstance(ptx, bytes) else ptx


if __name__ == "__main__":
    assert compiler._get_nvrtc_version()[0] == 13, compiler._get_nvrtc_version()
    with open(f"{sys.argv[1]}/cupy_rawkernels.ptx", "w") as f:
        f.write(compile_ptx(SOURCE))
