// A Hopper wgmma kernel written with inline PTX (no CUTLASS), for the PTX corpus
// (tests/corpus/gen.sh: nvcc 13.0 -arch=sm_90a -ptx -lineinfo; sm_90a only).
//
// One warpgroup (128 threads) computes D (64x8, f32) = A (64x16, f16) * B (16x8, f16)
// with wgmma.mma_async.m64n8k16 from shared-memory matrix descriptors (no swizzle),
// fenced and waited for as the PTX ISA requires: fence.proxy.async after the shared
// stores, wgmma.fence, commit_group, wait_group. The inline asm opens a `{ }` scope with
// its own `.reg .pred`, as CUTLASS does.
#include <cstdint>
#include <cuda_fp16.h>

__device__ __forceinline__ uint64_t smem_desc(const void *p) {
  uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(p));
  uint64_t desc = (addr & 0x3FFFF) >> 4;          // start address, 16-byte units
  desc |= static_cast<uint64_t>(128 >> 4) << 16;  // leading-dimension byte offset
  desc |= static_cast<uint64_t>(256 >> 4) << 32;  // stride-dimension byte offset
  return desc;                                    // swizzle mode 0 (none)
}

__global__ void __launch_bounds__(128) wgmma_m64n8k16(const half *a, const half *b, float *d,
                                                      int accumulate) {
  __shared__ alignas(128) half sa[64 * 16];
  __shared__ alignas(128) half sb[16 * 8];
  int t = threadIdx.x;
  for (int i = t; i < 64 * 16; i += 128) sa[i] = a[i];
  if (t < 16 * 8) sb[t] = b[t];
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  float c0 = 0.f, c1 = 0.f, c2 = 0.f, c3 = 0.f;
  uint64_t da = smem_desc(sa), db = smem_desc(sb);
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %6, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 "
      "{%0, %1, %2, %3}, %4, %5, p, 1, 1, 0, 0;\n"
      "}\n"
      : "+f"(c0), "+f"(c1), "+f"(c2), "+f"(c3)
      : "l"(da), "l"(db), "r"(accumulate));
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  // Accumulator layout of m64nNk16: warp w owns rows 16w..16w+15; lane l holds rows
  // 16w + l/4 and +8, columns 2*(l%4) and +1.
  int w = t / 32, l = t % 32, row = 16 * w + l / 4, col = 2 * (l % 4);
  d[row * 8 + col] = c0;
  d[row * 8 + col + 1] = c1;
  d[(row + 8) * 8 + col] = c2;
  d[(row + 8) * 8 + col + 1] = c3;
}
