// HIP kernels of the GCN corpus, compiled by tests/corpus/gen-gcn.sh with clang-19 for
// gfx90a and gfx942 (device only, no HIP headers and no device libraries: the AMDGPU
// builtins stand in for threadIdx & co., so the assembly has no unresolved calls).
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define TID __builtin_amdgcn_workitem_id_x()
#define BID __builtin_amdgcn_workgroup_id_x()
#define BDIM __builtin_amdgcn_workgroup_size_x()
#define GSIZE __builtin_amdgcn_grid_size_x()
#define SYNC() __builtin_amdgcn_s_barrier()

// LDS atomics in a grid-stride loop, barriers, a global atomic per thread.
extern "C" __global__ void histogram(const unsigned char* in, unsigned* bins, int n) {
  __shared__ unsigned local[256];
  local[TID] = 0;
  SYNC();
  for (int i = BID * BDIM + TID; i < n; i += GSIZE)
    __atomic_fetch_add(&local[in[i]], 1u, __ATOMIC_RELAXED);
  SYNC();
  __atomic_fetch_add(&bins[TID], local[TID], __ATOMIC_RELAXED);
}

// Block reduction in LDS: a loop of barriers, one thread writes the block's sum.
extern "C" __global__ void block_sum(const float* in, float* out, int n) {
  __shared__ float part[256];
  int i = BID * BDIM + TID;
  part[TID] = i < n ? in[i] : 0.0f;
  SYNC();
  for (unsigned s = BDIM / 2; s > 0; s >>= 1) {
    if (TID < s) part[TID] += part[TID + s];
    SYNC();
  }
  if (TID == 0) out[BID] = part[0];
}

// Several exits: early returns on data-dependent conditions (uniform ones become
// s_endpgm in their own blocks).
extern "C" __global__ void many_exits(const int* flags, int* out, int n, int mode) {
  if (mode == 0) return;
  int i = BID * BDIM + TID;
  if (mode == 1) {
    if (i < n) out[i] = flags[i] * 2;
    return;
  }
  if (mode == 2) {
    if (i < n && flags[i] > 0) out[i] = 1;
    return;
  }
  if (i >= n) return;
  out[i] = flags[i] + mode;
}

// A device function that is not inlined: s_swappc_b64 and a callee with its own
// prologue and epilogue.
__device__ __attribute__((noinline)) float clamp_scale(float x, float lo, float hi) {
  float y = x * 3.0f;
  return y < lo ? lo : (y > hi ? hi : y);
}

extern "C" __global__ void calls(const float* in, float* out, int n) {
  int i = BID * BDIM + TID;
  if (i < n) out[i] = clamp_scale(in[i], -1.0f, 1.0f);
}

// Branches on per-lane data (exec masking, s_cbranch_execz), a 64-bit global atomic
// with a returned value, a compare-and-swap loop.
extern "C" __global__ void atomic_ticket(unsigned long long* counter, int* order,
                                         float* maxval, const float* in, int n) {
  int i = BID * BDIM + TID;
  if (i >= n) return;
  unsigned long long t = __atomic_fetch_add(counter, 1ull, __ATOMIC_RELAXED);
  order[i] = (int)t;
  float v = in[i];
  if (v > 0.0f) {
    int* p = (int*)maxval;
    int old = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (__builtin_bit_cast(float, old) < v &&
           !__atomic_compare_exchange_n(p, &old, __builtin_bit_cast(int, v), false,
                                        __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
  }
}

typedef _Float16 half4 __attribute__((ext_vector_type(4)));
typedef float float16v __attribute__((ext_vector_type(16)));

// One 32x32x8 matrix multiply per wave on the matrix cores (v_mfma, AGPR accumulators).
extern "C" __global__ void mfma_tile(const half4* a, const half4* b, float16v* c) {
  unsigned lane = TID & 63;
  float16v acc = {};
  acc = __builtin_amdgcn_mfma_f32_32x32x8f16(a[lane], b[lane], acc, 0, 0, 0);
  acc = __builtin_amdgcn_mfma_f32_32x32x8f16(a[lane + 64], b[lane + 64], acc, 0, 0, 0);
  c[BID * 64 + lane] = acc;
}

// An if/else on per-lane data: the `if`'s saved mask becomes the else lanes (s_xor), the
// else starts at s_andn2_saveexec, both parts laid out after the join (tail-duplicated).
extern "C" __global__ void if_else(const float* in, float* out, int n) {
  int i = BID * BDIM + TID;
  float v = in[i];
  if (v > 0.0f) {
    out[i] = v * 2.0f + in[i + 1];
  } else {
    out[i + 7] = v - in[i + 3];
  }
  out[i + 64] = 1.0f;
}
