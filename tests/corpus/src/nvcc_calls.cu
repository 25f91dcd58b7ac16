// Source of nvcc_calls.ptx (tests/corpus/gen.sh compiles it with nvcc 13.0 -ptx -lineinfo
// -arch=sm_90a): non-inlined device functions in the shapes the PTX back end must follow
// when it clones them to put probes in their bodies:
//
//   tree_sum         recursion (a .func calling itself), declared (a prototype) before
//                    its definition and before the __device__ table that names it
//   load_clamped     a global load (ld.global.nc) behind a predicated early return,
//                    called by two kernels and by tree_sum
//   bump             a global atomic in a void .func, called by every kernel
//   plain_sum, pick  a call through a function pointer read from a __device__ table
//                    (an indirect `call` with a prototype)
//
//   recursive_sum    kernel -> tree_sum (recursive) -> load_clamped; -> bump
//   clamped_copy     kernel -> load_clamped; -> bump (a second caller of both)
//   through_pointer  kernel -> pick[n & 1] (indirect) ; -> bump

__device__ __noinline__ int tree_sum(const int *v, int n);

__device__ __noinline__ int load_clamped(const int *v, int i, int n) {
  if (i < 0 || i >= n) return 0;
  return __ldg(&v[i]);
}

__device__ __noinline__ void bump(unsigned *counter, unsigned by) { atomicAdd(counter, by); }

__device__ __noinline__ int tree_sum(const int *v, int n) {
  if (n <= 1) return load_clamped(v, 0, n);
  int h = n / 2;
  return tree_sum(v, h) + tree_sum(v + h, n - h);
}

__device__ __noinline__ int plain_sum(const int *v, int n) {
  int s = 0;
  for (int i = 0; i < n; ++i) s += v[i];
  return s;
}

typedef int (*reducer)(const int *, int);
__device__ reducer pick[2] = {tree_sum, plain_sum};

__global__ void recursive_sum(const int *v, int n, int *out, unsigned *calls) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  out[t] = tree_sum(v + t * n, n);
  bump(calls, 1);
}

__global__ void clamped_copy(const int *v, int n, int *out, unsigned *calls) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  out[t] = load_clamped(v, t, n);
  bump(calls, 2);
}

__global__ void through_pointer(const int *v, int n, int *out, unsigned *calls) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  out[t] = pick[n & 1](v + t * n, n);
  bump(calls, 3);
}
