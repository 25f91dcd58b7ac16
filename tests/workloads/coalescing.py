"""Coalescing and shared-memory bank-conflict microbenchmarks for the library probes
uncoalesced and bank_conflicts (scripts/gpu_e2e_more.py, check_coalescing): one CuPy
RawKernel per access pattern, each launched once.

Usage: python coalescing.py
Prints, as one JSON line, what each kernel's warps should add up to, computed on the host
from the device pointers and the index array with the probes' model (`sectors`,
`wavefronts` below): {"expect": {kernel: {"ld_sectors": .., "ld_requests": .., …}}}, with
only the quantities that apply to the kernel:
- ld_sectors / st_sectors: over every warp-level global load / store, the distinct 32-byte
  sectors its lanes touch (ncu l1tex__t_sectors_pipe_lsu_mem_global_op_{ld,st}.sum);
- ld_requests / st_requests: warp-level global loads / stores executed
  (l1tex__t_requests_pipe_lsu_mem_global_op_{ld,st}.sum);
- sh_ld_wavefronts / sh_st_wavefronts: over every warp-level shared load / store, its
  wavefronts (l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}.sum);
- sh_ld_requests / sh_st_requests: warp-level shared loads / stores executed
  (smsp__inst_executed_op_shared_{ld,st}.sum);
- sh_ld_conflicts / sh_st_conflicts: the wavefronts above each access's minimum
  (ceil(distinct words / bank groups)), what ncu's
  l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{ld,st}.sum should count.
Requests = warps x access instructions executed (every kernel runs N = 2048 threads, 8
blocks of 256: 64 warps, all lanes active, no thread out of range).

Kernels (a: float[N * 32], d: double[N], idx: int[N] random in [0, N * 32), out: float[N * 8];
i = global thread index, t = threadIdx.x):
- co_ld_stride{1,2,4,8,32}: out[i] = a[i * S]
- co_ld_float4:    out[i] = sum of ((float4 *)a)[i]     (16-byte vector load)
- co_ld_double:    out[i] = (float)d[i]                  (8-byte load)
- co_ld_broadcast: out[i] = a[0]                         (every lane the same address)
- co_ld_gather:    out[i] = a[idx[i]]                    (the idx load is a global load too)
- co_st_stride8:   out[i * 8] = a[i]                     (strided store)
- co_sh_stride{1,2,4,32}: __shared__ float s[1024] filled by four coalesced stores a thread
  (s[t + 256 k] = a[i] + k), __syncthreads(), out[i] = s[(t * S) % 1024]
- co_sh_broadcast: the same fill, out[i] = s[0]
- co_sh_double:    __shared__ double s[256]; s[t] = d[i]; sync; out[i] = (float)s[t ^ 1]
- co_sh_float4:    __shared__ float4 s[256]; s[t] = (x, x+1, x+2, x+3), x = a[i]; sync;
                   out[i] = sum of s[t ^ 1]
- co_sh_st_stride32: __shared__ float s[1024]; j = (t % 32) * 32 + t / 32; s[j + 8 k] =
                   a[i] + k for k = 0..3 (each store: all lanes in one bank, 32 words);
                   sync; out[i] = s[t]

What the compilers emit for sm_90 (NVRTC 13.0 with -arch=compute_90, as CuPy compiles it,
and `nvcc -ptx -arch=sm_90` give the same memory instructions; ptxas's SASS has them one
for one: LDG/STG/LDS/STS, .64 / .128 where the PTX is f64 / v4), per kernel:
  kernel               ld.global        st.global   ld.shared        st.shared
  co_ld_stride{S}      1 f32            1 f32       -                -
  co_ld_float4         1 v4.f32         1 f32       -                -
  co_ld_double         1 f64            1 f32       -                -
  co_ld_broadcast      1 f32            1 f32       -                -
  co_ld_gather         1 u32 + 1 f32    1 f32       -                -
  co_st_stride8        1 f32            1 f32       -                -
  co_sh_stride{S}      1 f32            1 f32       1 f32            4 f32
  co_sh_broadcast      1 f32            1 f32       1 f32            4 f32
  co_sh_double         1 f64            1 f32       1 f64            1 f64
  co_sh_float4         1 f32            1 f32       1 v4.f32         1 v4.f32
  co_sh_st_stride32    1 f32            1 f32       1 f32            4 f32
(plus ld.param). No ld.global.nc (the pointers are not __restrict__), no generic loads or
stores, nothing merged or hoisted: __syncthreads() keeps each shared load after the
stores. No .loc without -lineinfo: the probes' `line` is 0, their `pc` tells sites apart.

The shared arrays are __align__(128): their offset in the shared window is a multiple of
128 bytes, so banks are modelled from offset 0. Global arrays come from CuPy's pool (512-
byte aligned); the model uses their actual pointers anyway.

CUPY_COMPILE_WITH_PTX=1, as in access_patterns.py: the driver gets PTX, which warptrace
instruments. The model (everything but main) is plain Python, importable and testable
without CuPy or NumPy (scripts/gpu_e2e_more_test.py).
"""
import json
import os

N, THREADS, WARP = 2048, 256, 32
SH = 1024  # floats in the shared arrays of the co_sh_* float kernels
A_LEN = N * 32  # floats in a (stride 32 reads a[i * 32] for i < N)
OUT_LEN = N * 8  # floats in out (co_st_stride8 writes out[i * 8])
LD_STRIDES = (1, 2, 4, 8, 32)
SH_STRIDES = (1, 2, 4, 32)
SECTOR = 32
BANK_BYTES = 128  # 32 banks x 4 bytes: what one shared-memory wavefront serves

SOURCE = r"""
#define THREADS 256
#define SH 1024

#define LD_STRIDE(NAME, S)                                                     \
  extern "C" __global__ void NAME(const float *a, float *out) {                \
    int i = blockIdx.x * blockDim.x + threadIdx.x;                             \
    out[i] = a[i * S];                                                         \
  }
LD_STRIDE(co_ld_stride1, 1)
LD_STRIDE(co_ld_stride2, 2)
LD_STRIDE(co_ld_stride4, 4)
LD_STRIDE(co_ld_stride8, 8)
LD_STRIDE(co_ld_stride32, 32)

extern "C" __global__ void co_ld_float4(const float4 *a, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float4 v = a[i];
  out[i] = v.x + v.y + v.z + v.w;
}
extern "C" __global__ void co_ld_double(const double *d, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = (float)d[i];
}
extern "C" __global__ void co_ld_broadcast(const float *a, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = a[0];
}
extern "C" __global__ void co_ld_gather(const float *a, const int *idx, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = a[idx[i]];
}
extern "C" __global__ void co_st_stride8(const float *a, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i * 8] = a[i];
}

// Four coalesced 4-byte shared stores a thread fill s[0..1023] (blockDim.x = THREADS).
#define SH_FILL                                                                \
  __shared__ __align__(128) float s[SH];                                       \
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;                        \
  float x = a[i];                                                              \
  s[t] = x;                                                                    \
  s[t + THREADS] = x + 1.0f;                                                   \
  s[t + 2 * THREADS] = x + 2.0f;                                               \
  s[t + 3 * THREADS] = x + 3.0f;                                               \
  __syncthreads();
#define SH_READ(NAME, INDEX)                                                   \
  extern "C" __global__ void NAME(const float *a, float *out) {                \
    SH_FILL                                                                    \
    out[i] = s[INDEX];                                                         \
  }
SH_READ(co_sh_stride1, (t * 1) % SH)
SH_READ(co_sh_stride2, (t * 2) % SH)
SH_READ(co_sh_stride4, (t * 4) % SH)
SH_READ(co_sh_stride32, (t * 32) % SH)
SH_READ(co_sh_broadcast, 0)

extern "C" __global__ void co_sh_double(const double *d, float *out) {
  __shared__ __align__(128) double s[THREADS];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  s[t] = d[i];
  __syncthreads();
  out[i] = (float)s[t ^ 1];
}
extern "C" __global__ void co_sh_float4(const float *a, float *out) {
  __shared__ __align__(128) float4 s[THREADS];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  float x = a[i];
  s[t] = make_float4(x, x + 1.0f, x + 2.0f, x + 3.0f);
  __syncthreads();
  float4 v = s[t ^ 1];
  out[i] = v.x + v.y + v.z + v.w;
}
// Each store puts a warp's 32 lanes in one bank (word j + 8k, j = lane * 32 + warp), 32
// distinct words: 32 wavefronts. The four stores together fill s[0..1023].
extern "C" __global__ void co_sh_st_stride32(const float *a, float *out) {
  __shared__ __align__(128) float s[SH];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  int j = (t & 31) * 32 + (t >> 5);
  float x = a[i];
  s[j] = x;
  s[j + 8] = x + 1.0f;
  s[j + 16] = x + 2.0f;
  s[j + 24] = x + 3.0f;
  __syncthreads();
  out[i] = s[t];
}
"""

KERNELS = ([f"co_ld_stride{s}" for s in LD_STRIDES]
           + ["co_ld_float4", "co_ld_double", "co_ld_broadcast", "co_ld_gather", "co_st_stride8"]
           + [f"co_sh_stride{s}" for s in SH_STRIDES]
           + ["co_sh_broadcast", "co_sh_double", "co_sh_float4", "co_sh_st_stride32"])


# ---------------------------------------------------------------------------------------
# The model (plain Python: lists, ranges or NumPy arrays of addresses all work)

def sectors(addrs):
    """The distinct 32-byte sectors (addr >> 5) among one warp-level global access's lanes
    (each lane's access naturally aligned and at most 32 bytes: one sector a lane)."""
    return len({int(a) >> 5 for a in addrs})


def _groups(addrs, size):
    """{bank group: set of keys} of one warp-level shared access: unit u = max(4, size)
    bytes (a power of two; rounded up to one, at most 128, for other sizes as
    ir/src/warp_access.rs does), G = 128 / u groups, key = addr / u, group = key mod G; and G."""
    unit = 1 << (min(max(4, size), BANK_BYTES) - 1).bit_length()
    count = BANK_BYTES // unit
    groups = {}
    for a in addrs:
        key = int(a) // unit
        groups.setdefault(key % count, set()).add(key)
    return groups, count


def wavefronts(addrs, size):
    """One warp-level shared access's wavefronts: the most distinct keys in a bank group
    (_groups). 4-byte lanes: the most distinct words in one of the 32 banks (lanes on the
    same word share it: a broadcast). 8-byte consecutive lanes: 2; 16-byte: 4."""
    groups, _ = _groups(addrs, size)
    return max((len(k) for k in groups.values()), default=0)


def conflicts(addrs, size):
    """The wavefronts above the access's minimum, ceil(distinct keys / G): 0 for a
    conflict-free access of any width and for a broadcast, 31 for 32 lanes in one bank."""
    groups, count = _groups(addrs, size)
    keys = sum(len(k) for k in groups.values())
    return wavefronts(addrs, size) - -(-keys // count)


def warps(addrs):
    """A kernel's per-thread addresses (in global thread order; blocks are whole warps)
    cut into the warps' lists."""
    addrs = list(addrs)
    return [addrs[w:w + WARP] for w in range(0, len(addrs), WARP)]


def totals(accesses, per_warp):
    """(Σ per_warp(lanes, size), warp-level requests) over every access instruction
    (addrs, size) of a kernel, each executed once by every thread."""
    total = requests = 0
    for addrs, size in accesses:
        for lanes in warps(addrs):
            total += per_warp(lanes, size)
            requests += 1
    return total, requests


def kernel_expect(ld=(), st=(), sh_ld=(), sh_st=()):
    """The expectation of one kernel from its access instructions, each (addresses of
    threads 0..N-1, bytes): global loads and stores, shared loads and stores."""
    out = {}
    for prefix, accesses in (("ld", ld), ("st", st)):
        if accesses:
            out[f"{prefix}_sectors"], out[f"{prefix}_requests"] = totals(accesses, lambda l, s: sectors(l))
    for prefix, accesses in (("sh_ld", sh_ld), ("sh_st", sh_st)):
        if accesses:
            out[f"{prefix}_wavefronts"], out[f"{prefix}_requests"] = totals(accesses, wavefronts)
            out[f"{prefix}_conflicts"], _ = totals(accesses, conflicts)
    return out


def expectations(a, d, idx_ptr, idx, out):
    """Every kernel's expectation, from the device pointers of a, d, the index array and
    out, and the index values (idx[i] for thread i)."""
    i = range(N)
    t = [x % THREADS for x in i]
    f32 = lambda base, index: ([base + 4 * int(k) for k in index], 4)  # noqa: E731
    out_st = [f32(out, i)]
    exp = {}
    for s in LD_STRIDES:
        exp[f"co_ld_stride{s}"] = kernel_expect(ld=[f32(a, (x * s for x in i))], st=out_st)
    exp["co_ld_float4"] = kernel_expect(ld=[([a + 16 * x for x in i], 16)], st=out_st)
    exp["co_ld_double"] = kernel_expect(ld=[([d + 8 * x for x in i], 8)], st=out_st)
    exp["co_ld_broadcast"] = kernel_expect(ld=[f32(a, [0] * N)], st=out_st)
    exp["co_ld_gather"] = kernel_expect(ld=[f32(idx_ptr, i), f32(a, idx)], st=out_st)
    exp["co_st_stride8"] = kernel_expect(ld=[f32(a, i)], st=[f32(out, (x * 8 for x in i))])
    fill = [f32(0, (x + k * THREADS for x in t)) for k in range(4)]  # s[t + 256 k], shared offset 0
    for s in SH_STRIDES:
        exp[f"co_sh_stride{s}"] = kernel_expect(ld=[f32(a, i)], st=out_st, sh_st=fill,
                                                sh_ld=[f32(0, ((x * s) % SH for x in t))])
    exp["co_sh_broadcast"] = kernel_expect(ld=[f32(a, i)], st=out_st, sh_st=fill, sh_ld=[f32(0, [0] * N)])
    exp["co_sh_double"] = kernel_expect(ld=[([d + 8 * x for x in i], 8)], st=out_st,
                                        sh_st=[([8 * x for x in t], 8)], sh_ld=[([8 * (x ^ 1) for x in t], 8)])
    exp["co_sh_float4"] = kernel_expect(ld=[f32(a, i)], st=out_st,
                                        sh_st=[([16 * x for x in t], 16)], sh_ld=[([16 * (x ^ 1) for x in t], 16)])
    j = [(x & 31) * 32 + (x >> 5) for x in t]
    exp["co_sh_st_stride32"] = kernel_expect(ld=[f32(a, i)], st=out_st,
                                             sh_st=[f32(0, (y + 8 * k for y in j)) for k in range(4)],
                                             sh_ld=[f32(0, t)])
    return exp


def main():
    os.environ["CUPY_COMPILE_WITH_PTX"] = "1"
    import cupy as cp
    import numpy as np

    rng = np.random.default_rng(11)
    module = cp.RawModule(code=SOURCE)
    a = cp.asarray(rng.random(A_LEN, dtype=np.float32))
    d = cp.asarray(rng.random(N))
    idx = rng.integers(0, A_LEN, size=N).astype(np.int32)
    idx_d = cp.asarray(idx)
    out = cp.zeros(OUT_LEN, dtype=cp.float32)
    grid, block = (N // THREADS,), (THREADS,)
    for name in KERNELS:
        if name == "co_ld_gather":
            params = (a, idx_d, out)
        elif name in ("co_ld_double", "co_sh_double"):
            params = (d, out)
        else:
            params = (a, out)
        module.get_function(name)(grid, block, params)
    cp.cuda.Device().synchronize()
    expect = expectations(a.data.ptr, d.data.ptr, idx_d.data.ptr, idx.tolist(), out.data.ptr)
    print(json.dumps({"expect": expect}))


if __name__ == "__main__":
    main()
