// Two heavily unrolled kernels, the JIT budget's second reproduction
// (tests/tests/jit_budget.rs): a 1,536-tap FIR filter with its tap loop fully unrolled
// (1,536 global loads and FMAs in one basic block) and an SGEMM whose threads each keep an
// 8×8 register tile (64 FMAs per step, unrolled over the 8-deep shared-memory tile).
#define TAPS 1536

__constant__ float taps[TAPS];

__global__ void fir(const float *__restrict__ x, float *__restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc = 0.f;
#pragma unroll
  for (int k = 0; k < TAPS; ++k) acc += taps[k] * x[i + k];
  y[i] = acc;
}

// 128×128 tiles of C per block of 256 threads, each thread an 8×8 tile.
__global__ void sgemm_8x8(const float *__restrict__ a, const float *__restrict__ b,
                          float *__restrict__ c, int n) {
  __shared__ float as[8][128], bs[8][128];
  int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  int row = blockIdx.y * 128 + ty * 8, col = blockIdx.x * 128 + tx * 8;
  float acc[8][8] = {};
  for (int k0 = 0; k0 < n; k0 += 8) {
    for (int t = threadIdx.x; t < 8 * 128; t += 256) {
      int kk = t / 128, m = t % 128;
      as[kk][m] = a[(blockIdx.y * 128 + m) * n + k0 + kk];
      bs[kk][m] = b[(k0 + kk) * n + blockIdx.x * 128 + m];
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < 8; ++kk) {
      float ra[8], rb[8];
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        ra[i] = as[kk][ty * 8 + i];
        rb[i] = bs[kk][tx * 8 + i];
      }
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] += ra[i] * rb[j];
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) c[(row + i) * n + col + j] = acc[i][j];
}
