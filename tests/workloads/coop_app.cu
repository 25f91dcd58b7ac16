// The cooperative-launch workload of scripts/gpu-e2e.sh: a grid-wide reduction launched
// with cudaLaunchCooperativeKernel (the driver's cuLaunchCooperativeKernel), each block
// summing its slice, a grid.sync(), then block 0 combining the partial sums. Writes the
// partials and the total to argv[1] so runs with and without warptrace compare bit for bit.
#include <cooperative_groups.h>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

#define CHECK(x)                                                                   \
  do {                                                                             \
    cudaError_t e = (x);                                                           \
    if (e != cudaSuccess) {                                                        \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e));  \
      exit(1);                                                                     \
    }                                                                              \
  } while (0)

__global__ void grid_sum(const float *in, float *partial, float *total, int n) {
  cg::grid_group grid = cg::this_grid();
  __shared__ float s[256];
  float acc = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    acc += in[i];
  s[threadIdx.x] = acc;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
  grid.sync();
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    float t = 0.0f;
    for (int b = 0; b < gridDim.x; b++) t += partial[b];
    *total = t;
  }
}

int main(int argc, char **argv) {
  const int n = 1 << 20, threads = 256, blocks = 64;
  int coop = 0;
  CHECK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, 0));
  if (!coop) { fprintf(stderr, "no cooperative launch\n"); return 1; }
  float *h = (float *)malloc(n * sizeof(float));
  for (int i = 0; i < n; i++) h[i] = (float)(i % 1000) / 1000.0f;
  float *din, *dpart, *dtot;
  CHECK(cudaMalloc(&din, n * sizeof(float)));
  CHECK(cudaMalloc(&dpart, blocks * sizeof(float)));
  CHECK(cudaMalloc(&dtot, sizeof(float)));
  CHECK(cudaMemcpy(din, h, n * sizeof(float), cudaMemcpyHostToDevice));
  int nn = n;
  void *args[] = {&din, &dpart, &dtot, &nn};
  CHECK(cudaLaunchCooperativeKernel((void *)grid_sum, blocks, threads, args, 0, 0));
  CHECK(cudaDeviceSynchronize());
  float part[64], tot = 0.0f;
  CHECK(cudaMemcpy(part, dpart, sizeof(part), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&tot, dtot, sizeof(float), cudaMemcpyDeviceToHost));
  printf("coop_app: blocks=%d total=%.3f\n", blocks, tot);
  if (argc > 1) {
    FILE *f = fopen(argv[1], "wb");
    if (!f) { perror(argv[1]); return 1; }
    fwrite(part, sizeof(float), blocks, f);
    fwrite(&tot, sizeof(float), 1, f);
    fclose(f);
  }
  return 0;
}
