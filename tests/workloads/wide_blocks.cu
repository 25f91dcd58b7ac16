// The resources workload of scripts/gpu_e2e_more.py ("resources"): one kernel launched
// with 1024-thread blocks, then with 256-thread blocks. Under a probe that takes it past
// the registers a 1024-thread block may have (tests/corpus/hostile/register_pressure.toml),
// the first launch must run the original (counted) and the second the instrumented form;
// the outputs, written to argv[1], must equal a plain run's bit for bit.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(x)                                                                   \
  do {                                                                             \
    cudaError_t e = (x);                                                           \
    if (e != cudaSuccess) {                                                        \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e));  \
      exit(1);                                                                     \
    }                                                                              \
  } while (0)

__global__ void wide_scale(const float *x, float *y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

int main(int argc, char **argv) {
  const int n = 1 << 20;
  float *hx = (float *)malloc(n * sizeof(float)), *hy = (float *)malloc(n * sizeof(float));
  for (int i = 0; i < n; i++) {
    hx[i] = (float)(i % 977) / 977.0f;
    hy[i] = (float)i / n;
  }
  float *dx, *dy;
  CHECK(cudaMalloc(&dx, n * sizeof(float)));
  CHECK(cudaMalloc(&dy, n * sizeof(float)));
  CHECK(cudaMemcpy(dx, hx, n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dy, hy, n * sizeof(float), cudaMemcpyHostToDevice));
  wide_scale<<<n / 1024, 1024>>>(dx, dy, 2.0f, n);
  CHECK(cudaGetLastError());
  wide_scale<<<n / 256, 256>>>(dx, dy, 0.5f, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(hy, dy, n * sizeof(float), cudaMemcpyDeviceToHost));
  double sum = 0;
  for (int i = 0; i < n; i++) sum += hy[i];
  printf("wide_blocks: n=%d checksum=%.6f\n", n, sum);
  if (argc > 1) {
    FILE *f = fopen(argv[1], "wb");
    if (!f) { perror(argv[1]); return 1; }
    fwrite(hy, sizeof(float), n, f);
    fclose(f);
  }
  return 0;
}
