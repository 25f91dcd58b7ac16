// Several devices and several contexts in one process (scripts/gpu_e2e_ctx.py): on every
// device, the primary context and one created with cuCtxCreate each run `axpy` once, with
// a grid of its own (64 × (1 + 2·device + context) blocks of 256 threads), so that the
// probe's per-kernel totals say whether every launch in every context was instrumented.
// Writes every output to argv[1] (runs with and without warptrace compare bit for bit)
// and prints, as JSON, the device count and the expected totals.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

// Driver functions through the runtime (cudaGetDriverEntryPointByVersion, which reaches
// cuGetProcAddress): no link against libcuda, as frameworks do it.
static PFN_cuDeviceGet_v2000 pDeviceGet;
static PFN_cuDevicePrimaryCtxRetain_v7000 pPrimaryRetain;
static PFN_cuDevicePrimaryCtxRelease_v11000 pPrimaryRelease;
static PFN_cuCtxCreate_v12050 pCtxCreate;
static PFN_cuCtxSetCurrent_v4000 pCtxSetCurrent;
static PFN_cuCtxDestroy_v4000 pCtxDestroy;

template <typename F> static void entry(const char *name, F *f) {
  cudaDriverEntryPointQueryResult q;
  cudaError_t e = cudaGetDriverEntryPointByVersion(name, (void **)f, 13000, cudaEnableDefault, &q);
  if (e != cudaSuccess || q != cudaDriverEntryPointSuccess || !*f) {
    fprintf(stderr, "no driver entry point %s\n", name);
    exit(1);
  }
}

#define CU(x)                                                                      \
  do {                                                                             \
    CUresult r = (x);                                                              \
    if (r != CUDA_SUCCESS) {                                                       \
      fprintf(stderr, "%s:%d: CUresult %d\n", __FILE__, __LINE__, (int)r);          \
      exit(1);                                                                     \
    }                                                                              \
  } while (0)
#define RT(x)                                                                      \
  do {                                                                             \
    cudaError_t e = (x);                                                           \
    if (e != cudaSuccess) {                                                        \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e));  \
      exit(1);                                                                     \
    }                                                                              \
  } while (0)

__global__ void axpy(const float *x, float *y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + 1.0f;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: multi_ctx OUT_FILE\n");
    return 2;
  }
  RT(cudaFree(0));
  entry("cuDeviceGet", &pDeviceGet);
  entry("cuDevicePrimaryCtxRetain", &pPrimaryRetain);
  entry("cuDevicePrimaryCtxRelease", &pPrimaryRelease);
  entry("cuCtxCreate", &pCtxCreate);
  entry("cuCtxSetCurrent", &pCtxSetCurrent);
  entry("cuCtxDestroy", &pCtxDestroy);
  int devices = 0;
  RT(cudaGetDeviceCount(&devices));
  FILE *out = fopen(argv[1], "wb");
  if (!out) return 1;
  long long blocks = 0, ldbytes = 0;
  int launches = 0;
  for (int d = 0; d < devices; ++d) {
    CUdevice dev;
    CU(pDeviceGet(&dev, d));
    CUcontext primary, created;
    CU(pPrimaryRetain(&primary, dev));
    CU(pCtxCreate(&created, nullptr, 0, dev));
    CUcontext contexts[2] = {primary, created};
    for (int c = 0; c < 2; ++c) {
      CU(pCtxSetCurrent(contexts[c]));
      int grid = 64 * (1 + 2 * d + c), n = grid * 256;
      std::vector<float> hx(n), hy(n);
      for (int i = 0; i < n; ++i) hx[i] = (float)((i * 7 + d * 3 + c) % 1000) / 17.0f;
      float *x, *y;
      RT(cudaMalloc(&x, n * sizeof(float)));
      RT(cudaMalloc(&y, n * sizeof(float)));
      RT(cudaMemcpy(x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice));
      axpy<<<grid, 256>>>(x, y, 1.5f + d + c, n);
      RT(cudaGetLastError());
      RT(cudaMemcpy(hy.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost));
      fwrite(hy.data(), sizeof(float), n, out);
      RT(cudaFree(x));
      RT(cudaFree(y));
      blocks += grid;
      ldbytes += 4LL * n;
      ++launches;
    }
    CU(pCtxSetCurrent(nullptr));
    CU(pCtxDestroy(created));
    CU(pPrimaryRelease(dev));
  }
  fclose(out);
  printf("{\"devices\": %d, \"contexts\": %d, \"axpy\": {\"blocks\": %lld, \"ldbytes\": %lld}}\n",
         devices, launches, blocks, ldbytes);
  return 0;
}
