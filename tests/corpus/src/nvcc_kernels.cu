// Source of the nvcc PTX corpus kernels that are not part of a GPU workload
// (tests/corpus/gen.sh compiles it with nvcc 13.0 -ptx -lineinfo, once for -arch=sm_90a
// and once for -arch=sm_80). Each kernel exercises one PTX feature a back end must
// handle:
//
//   histogram        global atomics (atom.global.add), shared atomics, barriers
//   copy_async       cp.async (cuda_pipeline: __pipeline_memcpy_async / commit / wait)
//   wmma_gemm        mma.sync via nvcuda::wmma (fp16 16x16x16, fp32 accumulate)
//   calls_noinline   non-inlined device functions: .func bodies, call sequences,
//                    a .func with a predicated early return
//   many_exits       several exits: early returns, a trap-free `exit` in inline asm,
//                    a predicated return in a loop
#include <cuda_fp16.h>
#include <cuda_pipeline.h>
#include <mma.h>

// ---------------------------------------------------------------- histogram
// 256 bins; shared-memory sub-histogram per block, then one atomicAdd per bin.
__global__ void histogram(const unsigned char *data, unsigned *bins, int n) {
  __shared__ unsigned local[256];
  for (int b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += blockDim.x)
    if (local[b]) atomicAdd(&bins[b], local[b]);
}

// Global atomics only, with a returned value used (atom, not red).
__global__ void atomic_ticket(unsigned *counter, unsigned *tickets, float *fsum,
                              const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  tickets[i] = atomicAdd(counter, 1u);
  atomicAdd(fsum, x[i]);
  atomicMax(counter + 1, (unsigned)i);
}

// ---------------------------------------------------------------- cp.async
// Double-buffered copy through shared memory with cp.async (sm_80+).
__global__ void copy_async(const float4 *in, float4 *out, int tiles) {
  __shared__ float4 buf[2][128];
  int t = threadIdx.x;
  __pipeline_memcpy_async(&buf[0][t], &in[blockIdx.x * tiles * 128 + t], sizeof(float4));
  __pipeline_commit();
  for (int k = 0; k < tiles; k++) {
    if (k + 1 < tiles) {
      __pipeline_memcpy_async(&buf[(k + 1) & 1][t],
                              &in[(blockIdx.x * tiles + k + 1) * 128 + t], sizeof(float4));
    }
    __pipeline_commit();
    __pipeline_wait_prior(1);
    __syncthreads();
    float4 v = buf[k & 1][(t + 1) % 128];
    v.x *= 2.0f;
    out[(blockIdx.x * tiles + k) * 128 + t] = v;
    __syncthreads();
  }
}

// ---------------------------------------------------------------- wmma / mma.sync
// One warp per 16x16 tile of C = A (MxK, row-major) * B (KxN, col-major).
__global__ void wmma_gemm(const half *a, const half *b, float *c, int M, int N, int K) {
  using namespace nvcuda;
  int warp_m = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  int warp_n = blockIdx.y;
  if (warp_m * 16 >= M || warp_n * 16 >= N) return;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  for (int k = 0; k < K; k += 16) {
    wmma::load_matrix_sync(fa, a + warp_m * 16 * K + k, K);
    wmma::load_matrix_sync(fb, b + warp_n * 16 * K + k, K);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  wmma::store_matrix_sync(c + warp_m * 16 * N + warp_n * 16, acc, N, wmma::mem_row_major);
}

// ---------------------------------------------------------------- device functions
__device__ __noinline__ float clamp_load(const float *p, int i, int n) {
  if (i < 0 || i >= n) return 0.0f;  // a predicated early return inside a .func
  return p[i];
}

__device__ __noinline__ void accumulate(float *dst, float v) { atomicAdd(dst, v); }

__device__ __noinline__ float stencil3(const float *p, int i, int n) {
  return 0.25f * clamp_load(p, i - 1, n) + 0.5f * clamp_load(p, i, n) +
         0.25f * clamp_load(p, i + 1, n);
}

__global__ void calls_noinline(const float *in, float *out, float *total, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = stencil3(in, i, n);
  out[i] = v;
  accumulate(total, v);
}

// ---------------------------------------------------------------- several exits
__global__ void many_exits(const int *in, int *out, int n, int limit) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;                       // exit 1: past the end
  int v = in[i];
  if (v < 0) {                              // exit 2: negative input, write a marker
    out[i] = -1;
    return;
  }
  for (int k = 0; k < 32; k++) {
    if (v > limit) {                        // exit 3: from inside a loop
      out[i] = k;
      return;
    }
    v = v * 3 + 1;
  }
  if (threadIdx.x & 1) asm volatile("exit;");  // exit 4: an explicit `exit`
  out[i] = v;                               // exit 5: the final ret
}
