// Region-timing workload (issue 8): a kernel whose loop times it measures itself.
//
// `nested` runs, per thread, OUTER iterations of an outer loop, each holding INNER
// iterations of an inner loop; an inner iteration is a chain of dependent FMAs (fixed
// latency) and one global load whose address depends on the loop counters. Each warp's
// lane 0 reads clock64 right before and after the outer loop and before and after every
// inner loop, and writes per warp: the outer loop's cycles, the inner loops' summed cycles
// and the iteration counts. Run plainly, that is the uninstrumented reference; run under
// `warptrace -p loop_timing`, the probe's records say the same times with its own cost
// subtracted (`scripts/gpu_e2e_more.py`, check_loop_timing).
//
// Usage: loop_timing OUT.csv [BLOCKS WARPS_PER_BLOCK]
// OUT.csv: `block,warp,outer_cycles,inner_cycles,outer_iters,inner_iters`, one row per warp.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

constexpr int OUTER = 8;
constexpr int INNER = 16;
#ifndef CHAIN
#define CHAIN 128  // dependent FMAs per inner iteration (about 840 cycles with the load, H100)
#endif
constexpr int WORDS = 1 << 16;

struct WarpTimes {
    long long outer_cycles;
    long long inner_cycles;
    int outer_iters;
    int inner_iters;
};

__global__ void nested(const float* __restrict__ in, float* out, WarpTimes* times) {
    const int lane = threadIdx.x % 32;
    const int warp = threadIdx.x / 32;
    const int gwarp = blockIdx.x * (blockDim.x / 32) + warp;
    float acc = static_cast<float>(threadIdx.x);
    long long inner_total = 0;
    int outer_iters = 0;
    int inner_iters = 0;
    const long long t0 = clock64();
#pragma unroll 1
    for (int o = 0; o < OUTER; ++o) {
        const long long i0 = clock64();
#pragma unroll 1
        for (int i = 0; i < INNER; ++i) {
#ifndef NO_LOAD
            acc += in[(gwarp * 32 * OUTER * INNER + (o * INNER + i) * 32 + lane) % WORDS];
#endif
#pragma unroll
            for (int k = 0; k < CHAIN; ++k) {
                acc = fmaf(acc, 0.999f, 0.5f);
            }
            ++inner_iters;
        }
        inner_total += clock64() - i0;
        ++outer_iters;
    }
    const long long t1 = clock64();
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
    if (lane == 0) {
        times[gwarp] = WarpTimes{t1 - t0, inner_total, outer_iters, inner_iters};
    }
}

int main(int argc, char** argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s OUT.csv [BLOCKS WARPS_PER_BLOCK]\n", argv[0]);
        return 2;
    }
    const int blocks = argc > 2 ? atoi(argv[2]) : 132;
    const int warps = argc > 3 ? atoi(argv[3]) : 4;
    if (blocks <= 0 || warps <= 0 || warps > 32) {
        fprintf(stderr, "bad BLOCKS or WARPS_PER_BLOCK\n");
        return 2;
    }
    const int threads = warps * 32;
    const int nwarps = blocks * warps;
    float *in, *out;
    WarpTimes* times;
    if (cudaMalloc(&in, WORDS * sizeof(float)) != cudaSuccess ||
        cudaMalloc(&out, static_cast<size_t>(blocks) * threads * sizeof(float)) != cudaSuccess ||
        cudaMalloc(&times, nwarps * sizeof(WarpTimes)) != cudaSuccess) {
        fprintf(stderr, "cudaMalloc failed\n");
        return 1;
    }
    cudaMemset(in, 0, WORDS * sizeof(float));
    // A warm-up launch (instruction cache, TLB), then the measured one.
    nested<<<blocks, threads>>>(in, out, times);
    nested<<<blocks, threads>>>(in, out, times);
    cudaError_t err = cudaDeviceSynchronize();
    if (err != cudaSuccess) {
        fprintf(stderr, "kernel failed: %s\n", cudaGetErrorString(err));
        return 1;
    }
    WarpTimes* host = static_cast<WarpTimes*>(malloc(nwarps * sizeof(WarpTimes)));
    cudaMemcpy(host, times, nwarps * sizeof(WarpTimes), cudaMemcpyDeviceToHost);
    FILE* f = fopen(argv[1], "w");
    if (!f) {
        fprintf(stderr, "cannot write %s\n", argv[1]);
        return 1;
    }
    fprintf(f, "block,warp,outer_cycles,inner_cycles,outer_iters,inner_iters\n");
    for (int w = 0; w < nwarps; ++w) {
        fprintf(f, "%d,%d,%lld,%lld,%d,%d\n", w / warps, w % warps, host[w].outer_cycles,
                host[w].inner_cycles, host[w].outer_iters, host[w].inner_iters);
    }
    fclose(f);
    printf("loop_timing: %d warps, %d x %d iterations\n", nwarps, OUTER, INNER);
    return 0;
}
