// A HIP program for warptrace's HIP interception tests (runtime/preload/tests/hip.rs) and
// for the offload-bundle tests of codegen-gcn (src/bundle/tests.rs). It is compiled at
// test time with Debian's `hipcc` (HIP 5.2, clang 15) or with `clang-19 -x hip`:
//
//   hipcc --offload-arch=gfx90a -c hip_app.hip
//   clang-19 -x hip --offload-arch=gfx90a --offload-arch=gfx942 -nogpulib -nogpuinc \
//            -I/usr/include -D__HIP_PLATFORM_AMD__ -c hip_app.hip
//
// (clang 19 against the HIP 5.2 headers: Debian ships no gfx942 device libraries, hence
// -nogpulib, and the headers' device functions need them, hence -nogpuinc and
// hip_runtime_api.h only; the kernels use clang builtins instead of threadIdx.)
//
// It launches every way the hook intercepts: `<<<>>>` and hipLaunchKernel (both through
// the host stub registered with __hipRegisterFunction), hipExtLaunchKernel, and, with a
// code object file as argv[1], hipModuleLoadData + hipModuleGetFunction +
// hipModuleLaunchKernel with kernelParams, with the `extra` buffer, and through a
// function pointer from dlsym on the library handle (as Triton finds it) and, where the
// runtime has it, hipGetProcAddress (HIP >= 6.2); then the same image loaded again with
// hipModuleLoadDataEx and launched once.
#include <hip/hip_runtime_api.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef __global__
#define __global__ __attribute__((global))
#endif

// From hip_ext.h, which pulls in the device headers.
extern "C" hipError_t hipExtLaunchKernel(const void *function_address, dim3 numBlocks,
                                         dim3 dimBlocks, void **args, size_t sharedMemBytes,
                                         hipStream_t stream, hipEvent_t startEvent,
                                         hipEvent_t stopEvent, int flags);

#define CHECK(x)                                                                   \
  do {                                                                             \
    hipError_t err_ = (x);                                                         \
    if (err_ != hipSuccess) {                                                      \
      fprintf(stderr, "%s:%d: %s failed: %d\n", __FILE__, __LINE__, #x, (int)err_);\
      exit(1);                                                                     \
    }                                                                              \
  } while (0)

__global__ void twice(float *x, int n) {
  int i = __builtin_amdgcn_workgroup_id_x() * 256 + __builtin_amdgcn_workitem_id_x();
  if (i < n) x[i] *= 2.0f;
}

__global__ void add_one(int *x) { x[__builtin_amdgcn_workitem_id_x()] += 1; }

#ifdef WT_FAR_KERNEL
// Never launched: a loop of 96 memory accesses, which heavy probes lengthen past a
// branch's 16-bit reach (runtime/preload/tests/hip.rs, long branches).
__global__ void far_loop(float *x, int n) {
  unsigned t = __builtin_amdgcn_workitem_id_x();
  for (int i = 0; i < n; ++i) {
#pragma unroll
    for (int j = 0; j < 48; ++j) x[t + j * 256] = x[t + j * 256 + 1] * 2.0f + (float)i;
  }
}
#endif

typedef hipError_t (*ModuleLaunch)(hipFunction_t, unsigned, unsigned, unsigned, unsigned,
                                   unsigned, unsigned, unsigned, hipStream_t, void **,
                                   void **);
typedef hipError_t (*GetProcAddress)(const char *, void **, int, uint64_t, int *);

static void *read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) { perror(path); exit(1); }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  void *buf = malloc(n);
  if (fread(buf, 1, n, f) != (size_t)n) { perror(path); exit(1); }
  fclose(f);
  return buf;
}

// The HIP runtime's handle, as Triton opens it (already loaded: RTLD_NOLOAD).
static void *hip_library(void) {
  const char *names[] = {"libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5",
                         "libamdhip64.so"};
  for (const char *n : names) {
    void *h = dlopen(n, RTLD_NOW | RTLD_NOLOAD);
    if (h) return h;
  }
  return NULL;
}

static void module_launches(const char *path, float *d, int n) {
  void *image = read_file(path);
  hipModule_t m;
  hipFunction_t f;
  CHECK(hipModuleLoadData(&m, image));
  CHECK(hipModuleGetFunction(&f, m, "_Z5twicePfi"));
  void *args[] = {&d, &n};
  CHECK(hipModuleLaunchKernel(f, 1, 1, 1, 256, 1, 1, 0, 0, args, NULL));
  // The same launch with the arguments in one buffer, laid out as the kernarg segment.
  struct { float *x; int n; } packed = {d, n};
  size_t size = sizeof(packed);
  void *extra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, &packed, HIP_LAUNCH_PARAM_BUFFER_SIZE,
                   &size, HIP_LAUNCH_PARAM_END};
  CHECK(hipModuleLaunchKernel(f, 1, 1, 1, 256, 1, 1, 0, 0, NULL, extra));
  void *lib = hip_library();
  if (!lib) { fprintf(stderr, "libamdhip64 not loaded\n"); exit(1); }
  ModuleLaunch launch = (ModuleLaunch)dlsym(lib, "hipModuleLaunchKernel");
  if (!launch) { fprintf(stderr, "no hipModuleLaunchKernel\n"); exit(1); }
  CHECK(launch(f, 1, 1, 1, 256, 1, 1, 0, 0, args, NULL));
  GetProcAddress get = (GetProcAddress)dlsym(lib, "hipGetProcAddress");
  if (get) {
    void *p = NULL;
    int status = 0;
    CHECK(get("hipModuleLaunchKernel", &p, 602, 0, &status));
    CHECK(((ModuleLaunch)p)(f, 1, 1, 1, 256, 1, 1, 0, 0, args, NULL));
    printf("hip_app: hipGetProcAddress launch\n");
  }
  CHECK(hipModuleUnload(m));
  // The same image through hipModuleLoadDataEx, without JIT options: a second module.
  hipModule_t ex;
  hipFunction_t g;
  CHECK(hipModuleLoadDataEx(&ex, image, 0, NULL, NULL));
  CHECK(hipModuleGetFunction(&g, ex, "_Z5twicePfi"));
  CHECK(hipModuleLaunchKernel(g, 1, 1, 1, 256, 1, 1, 0, 0, args, NULL));
  CHECK(hipModuleUnload(ex));
  free(image);
}

int main(int argc, char **argv) {
  const int n = 256;
  float *d = NULL;
  int *e = NULL;
  CHECK(hipMalloc((void **)&d, n * sizeof(float)));
  CHECK(hipMalloc((void **)&e, 64 * sizeof(int)));
  add_one<<<1, 64>>>(e);
  int count = n;
  void *args[] = {&d, &count};
  CHECK(hipLaunchKernel((const void *)twice, dim3(1), dim3(256), args, 0, 0));
  CHECK(hipExtLaunchKernel((const void *)twice, dim3(1), dim3(256), args, 0, 0, NULL, NULL, 0));
  if (argc > 1) module_launches(argv[1], d, n);
  CHECK(hipDeviceSynchronize());
  CHECK(hipFree(d));
  CHECK(hipFree(e));
  printf("hip_app: done\n");
  return 0;
}
