// The nvcc workload of scripts/gpu-e2e.sh and the source of the nvcc PTX corpus kernels
// (tests/corpus/src/gen.sh compiles it with -ptx).
//
// block_sum: shared memory, a barrier, and several exits (an early return of blocks past
// the end, an explicit `exit` for threads other than thread 0). scale_add: a plain
// guarded element-wise kernel. The program prints a checksum and writes its outputs to
// the file named by argv[1] so runs with and without warptrace can be compared bit for bit.
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

__global__ void block_sum(const float *in, float *out, int n) {
  __shared__ float partial[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (blockIdx.x * blockDim.x >= n) return;  // whole block past the end
  partial[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x != 0) asm volatile("exit;");  // a second, explicit exit
  out[blockIdx.x] = partial[0];
}

__global__ void scale_add(const float *x, float *y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

int main(int argc, char **argv) {
  const int n = 1 << 20, threads = 256, blocks = (n + threads - 1) / threads;
  float *hx = (float *)malloc(n * sizeof(float)), *hy = (float *)malloc(n * sizeof(float));
  float *hs = (float *)malloc(blocks * sizeof(float));
  unsigned s = 12345;
  for (int i = 0; i < n; i++) {
    s = s * 1664525u + 1013904223u;
    hx[i] = (float)(s >> 8) / (float)(1 << 24);
    hy[i] = (float)i / n;
  }
  float *dx, *dy, *ds;
  CHECK(cudaMalloc(&dx, n * sizeof(float)));
  CHECK(cudaMalloc(&dy, n * sizeof(float)));
  CHECK(cudaMalloc(&ds, blocks * sizeof(float)));
  CHECK(cudaMemcpy(dx, hx, n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dy, hy, n * sizeof(float), cudaMemcpyHostToDevice));
  block_sum<<<blocks, threads>>>(dx, ds, n);
  CHECK(cudaGetLastError());
  scale_add<<<blocks, threads>>>(dx, dy, 2.0f, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(hs, ds, blocks * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(hy, dy, n * sizeof(float), cudaMemcpyDeviceToHost));
  double sum = 0;
  for (int b = 0; b < blocks; b++) sum += hs[b];
  printf("nvcc_app: n=%d blocks=%d checksum=%.6f y[7]=%.6f\n", n, blocks, sum, hy[7]);
  if (argc > 1) {
    FILE *f = fopen(argv[1], "wb");
    if (!f) { perror(argv[1]); return 1; }
    fwrite(hs, sizeof(float), blocks, f);
    fwrite(hy, sizeof(float), n, f);
    fclose(f);
  }
  return 0;
}
