// Bulk asynchronous copies (cp.async.bulk, sm_90) and TMA tensor copies
// (cp.async.bulk.tensor) for the PTX corpus: nvcc -arch=sm_90a -ptx -lineinfo.
// Compiled only (tests/corpus/gen.sh); the kernels are correct CUDA but the corpus never
// runs them.
#include <cuda.h>  // CUtensorMap
#include <cuda/barrier>
#include <cuda/ptx>
#include <cooperative_groups.h>

namespace ptx = cuda::ptx;
namespace cg = cooperative_groups;
using block_barrier = cuda::barrier<cuda::thread_scope_block>;
// A block-scope cuda::barrier in shared memory is initialized with init(), not a constructor.
#pragma nv_diag_suppress static_var_with_dynamic_init

constexpr int TILE = 1024;  // floats per tile
constexpr unsigned TILE_BYTES = TILE * sizeof(float);

// Grid-stride over tiles: thread 0 copies a tile global -> shared with cuda::memcpy_async
// (libcu++ issues cp.async.bulk for a 16-byte-aligned size on sm_90), every thread scales
// it, thread 0 writes it back shared -> global (cp.async.bulk, size in a register), adds it
// into `sum` (cp.reduce.async.bulk .add.f32) and prefetches the next tile into L2
// (cp.async.bulk.prefetch, an immediate size).
__global__ void bulk_scale(const float* __restrict__ in, float* out, float* sum, int n_tiles) {
  __shared__ alignas(128) float tile[TILE];
  __shared__ block_barrier bar;
  const unsigned tile_bytes = TILE_BYTES;  // cuda::ptx takes the size by reference
  if (threadIdx.x == 0) {
    init(&bar, blockDim.x);
  }
  __syncthreads();
  for (int t = blockIdx.x; t < n_tiles; t += gridDim.x) {
    if (threadIdx.x == 0) {
      cuda::memcpy_async(tile, in + (size_t)t * TILE, cuda::aligned_size_t<16>(TILE_BYTES), bar);
    }
    bar.arrive_and_wait();
    for (int i = threadIdx.x; i < TILE; i += blockDim.x) {
      tile[i] *= 2.0f;
    }
    ptx::fence_proxy_async(ptx::space_shared);
    __syncthreads();
    if (threadIdx.x == 0) {
      ptx::cp_async_bulk(ptx::space_global, ptx::space_shared, out + (size_t)t * TILE, tile,
                         tile_bytes);
      ptx::cp_reduce_async_bulk(ptx::space_global, ptx::space_shared, ptx::op_add, sum, tile,
                                tile_bytes);
      if (t + (int)gridDim.x < n_tiles) {
        asm volatile("cp.async.bulk.prefetch.L2.global [%0], 4096;"
                     :
                     : "l"(in + (size_t)(t + gridDim.x) * TILE)
                     : "memory");
      }
      ptx::cp_async_bulk_commit_group();
      ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>());
    }
    __syncthreads();
  }
}

// One bulk copy of a run-time size through a raw mbarrier (cuda::ptx), waited on with
// try_wait.parity in a loop; then the first 256 bytes are written back with an inline-asm
// cp.async.bulk whose size is an immediate.
__global__ void bulk_copy_n(const float4* __restrict__ in, float4* out, unsigned bytes) {
  __shared__ alignas(128) float4 buf[1024];
  __shared__ uint64_t mbar;
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(&mbar, 1);
    ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global, buf, in + blockIdx.x * 1024, bytes,
                       &mbar);
    ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &mbar,
                                   bytes);
  }
  while (!ptx::mbarrier_try_wait_parity(&mbar, 0)) {
  }
  if (threadIdx.x < bytes / sizeof(float4)) {
    buf[threadIdx.x].x += 1.0f;
  }
  ptx::fence_proxy_async(ptx::space_shared);
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 256;"
                 :
                 : "l"(out + blockIdx.x * 1024), "r"((unsigned)__cvta_generic_to_shared(buf))
                 : "memory");
    ptx::cp_async_bulk_commit_group();
    ptx::cp_async_bulk_wait_group(ptx::n32_t<0>());
  }
}

// A cluster of two blocks: each pushes its buffer into the other block's shared memory
// (cp.async.bulk.shared::cluster.shared::cta, distributed shared memory).
__global__ void __cluster_dims__(2, 1, 1) dsmem_push(const float* __restrict__ in, float* out) {
  __shared__ alignas(128) float mine[256];
  __shared__ alignas(128) float theirs[256];
  __shared__ uint64_t mbar;
  cg::cluster_group cluster = cg::this_cluster();
  unsigned rank = cluster.block_rank();
  mine[threadIdx.x] = in[blockIdx.x * 256 + threadIdx.x];
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(&mbar, 1);
    ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
    ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cluster, ptx::space_shared, &mbar,
                                   sizeof(theirs));
  }
  ptx::fence_proxy_async(ptx::space_shared);
  cluster.sync();
  if (threadIdx.x == 0) {
    unsigned peer = rank ^ 1;
    float* dst = cluster.map_shared_rank(theirs, peer);
    uint64_t* bar = cluster.map_shared_rank(&mbar, peer);
    ptx::cp_async_bulk(ptx::space_cluster, ptx::space_shared, dst, mine, sizeof(mine), bar);
  }
  while (!ptx::mbarrier_try_wait_parity(&mbar, 0)) {
  }
  out[blockIdx.x * 256 + threadIdx.x] = theirs[threadIdx.x];
  cluster.sync();
}

// TMA: a 32x32 float tile loaded through a tensor map (cp.async.bulk.tensor.2d), negated,
// stored through another map, added into a third (cp.reduce.async.bulk.tensor .add), and
// the next tile prefetched into L2 (cp.async.bulk.prefetch.tensor).
__global__ void tma_tile(const __grid_constant__ CUtensorMap in_map,
                         const __grid_constant__ CUtensorMap out_map,
                         const __grid_constant__ CUtensorMap acc_map) {
  __shared__ alignas(128) float tile[32 * 32];
  __shared__ uint64_t mbar;
  int32_t coords[2] = {(int32_t)blockIdx.x * 32, (int32_t)blockIdx.y * 32};
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(&mbar, 1);
    ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, tile, &in_map, coords, &mbar);
    ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &mbar,
                                   sizeof(tile));
    asm volatile("cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%0, {%1, %2}];"
                 :
                 : "l"(&in_map), "r"(coords[0] + 32), "r"(coords[1])
                 : "memory");
  }
  while (!ptx::mbarrier_try_wait_parity(&mbar, 0)) {
  }
  for (int i = threadIdx.x; i < 32 * 32; i += blockDim.x) {
    tile[i] = -tile[i];
  }
  ptx::fence_proxy_async(ptx::space_shared);
  __syncthreads();
  if (threadIdx.x == 0) {
    ptx::cp_async_bulk_tensor(ptx::space_global, ptx::space_shared, &out_map, coords, tile);
    ptx::cp_reduce_async_bulk_tensor(ptx::space_global, ptx::space_shared, ptx::op_add, &acc_map,
                                     coords, tile);
    ptx::cp_async_bulk_commit_group();
    ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>());
  }
}
