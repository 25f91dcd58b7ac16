// The microbenchmark of scripts/warp_combine.py: one bandwidth-bound kernel launched
// `iters` times after one warm-up launch (which also absorbs warptrace's instrumentation
// and JIT), each launch timed with CUDA events on its stream. Prints one JSON line:
//   {"kernel": ..., "n": ..., "launches": ..., "loads_per_launch": ..., "median_ms": ...,
//    "min_ms": ..., "checksum": ...}
// Usage: nvcc_bench [n (default 1<<24)] [iters (default 20)]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(x)                                                                   \
  do {                                                                             \
    cudaError_t e = (x);                                                           \
    if (e != cudaSuccess) {                                                        \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e));  \
      exit(1);                                                                     \
    }                                                                              \
  } while (0)

// One global load and one global store per in-range thread.
__global__ void stream_scale(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i] + 1.0f;
}

int main(int argc, char **argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 1 << 24;
  const int iters = argc > 2 ? atoi(argv[2]) : 20;
  const int threads = 256, blocks = (n + threads - 1) / threads;
  std::vector<float> hx(n);
  for (int i = 0; i < n; i++) hx[i] = (float)(i % 1000) / 1000.0f;
  float *dx, *dy;
  CHECK(cudaMalloc(&dx, n * sizeof(float)));
  CHECK(cudaMalloc(&dy, n * sizeof(float)));
  CHECK(cudaMemcpy(dx, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  // Warm-up: module load, instrumentation, JIT.
  stream_scale<<<blocks, threads>>>(dx, dy, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<float> ms(iters);
  for (int it = 0; it < iters; it++) {
    CHECK(cudaEventRecord(start));
    stream_scale<<<blocks, threads>>>(dx, dy, n);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    CHECK(cudaEventElapsedTime(&ms[it], start, stop));
  }
  CHECK(cudaDeviceSynchronize());
  std::vector<float> hy(n);
  CHECK(cudaMemcpy(hy.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost));
  double checksum = 0;
  for (int i = 0; i < n; i++) checksum += hy[i];
  std::vector<float> sorted = ms;
  std::sort(sorted.begin(), sorted.end());
  printf("{\"kernel\": \"stream_scale(float const*, float*, int)\", \"n\": %d, \"launches\": %d, "
         "\"loads_per_launch\": %d, \"median_ms\": %.6f, \"min_ms\": %.6f, \"checksum\": %.3f}\n",
         n, iters + 1, n, sorted[iters / 2], sorted[0], checksum);
  return 0;
}
