/* A CUDA driver-API program for the fake-driver tests (runtime/preload/tests/cuda.rs):
 * it loads a module one way, reaches a launch entry point one way and launches
 * `add_one(int *p, int n)` (from kernels.cu) from one or more threads, as real stacks do.
 *
 *   cuda_app LOAD IMAGE LAUNCH [THREADS [LAUNCHES [AFTER]]]
 *
 * LOAD:   data | dataex | file | fatbin (cuModuleLoad*), library | libfile (cuLibrary*,
 *         then cuKernelGetFunction), libkernel (the CUkernel launched as a CUfunction)
 * LAUNCH: plain | ptsz | ex | ex_ptsz | coop | coop_ptsz (called by name);
 *         dlsym (dlopen + dlsym of cuLaunchKernel);
 *         proc_v1 | proc12 | proc13 | proc_ptsz | proc_self (cuGetProcAddress: the legacy
 *         entry, _v2 at CUDA 12.0 and 13.0, the per-thread-stream variant, and
 *         cuGetProcAddress itself fetched through cuGetProcAddress first, as cudart does);
 *         extra (arguments in a CU_LAUNCH_PARAM_BUFFER_POINTER buffer);
 *         graph | graph_thread | graph_relaxed (one cuLaunchKernel captured on a stream in
 *         global, thread-local or relaxed mode, the graph replayed LAUNCHES times)
 * AFTER:  fork (then a child that ends with exit, as a shell's or a pool's would, and one
 *         with _exit, as Python's multiprocessing's does) | abort (a fatal signal)
 * Prints `cuda_app: N launches ok` or the first failure; exits non-zero on one. */
#include <cuda.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHECK(call)                                                                   \
  do {                                                                                \
    CUresult rc_ = (call);                                                            \
    if (rc_ != CUDA_SUCCESS) {                                                        \
      fprintf(stderr, "cuda_app: %s failed: %d (line %d)\n", #call, (int)rc_, __LINE__); \
      exit(1);                                                                        \
    }                                                                                 \
  } while (0)

typedef CUresult (*launch_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                              unsigned, unsigned, CUstream, void **, void **);
typedef CUresult (*proc_v1_fn)(const char *, void **, int, cuuint64_t);
typedef CUresult (*proc_v2_fn)(const char *, void **, int, cuuint64_t,
                               CUdriverProcAddressQueryResult *);
/* The legacy entry point's exported name (cuda.h maps cuGetProcAddress to _v2). */
CUresult cuGetProcAddress_v1(const char *, void **, int, cuuint64_t) __asm__("cuGetProcAddress");
/* The per-thread-default-stream entry points, which cuda.h declares only under
 * CUDA_API_PER_THREAD_DEFAULT_STREAM (and then in place of the plain ones). */
CUresult cuLaunchKernel_ptsz(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, CUstream, void **, void **);
CUresult cuLaunchCooperativeKernel_ptsz(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                                        unsigned, unsigned, CUstream, void **);
CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig *, CUfunction, void **, void **);

static const char *how;
static CUfunction fn;
static CUcontext ctx;
static int launches = 4;
/* The stream launches go to (the legacy default stream unless capturing). */
static __thread CUstream stream;
static const char *KERNEL = "_Z7add_onePii";

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) { perror(path); exit(1); }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = calloc(1, (size_t)n + 1);
  if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) { perror(path); exit(1); }
  fclose(f);
  *len = (size_t)n;
  return buf;
}

static void load(const char *mode, const char *path) {
  size_t len;
  CUmodule m;
  CUlibrary lib;
  CUkernel k;
  if (!strcmp(mode, "file")) { CHECK(cuModuleLoad(&m, path)); CHECK(cuModuleGetFunction(&fn, m, KERNEL)); return; }
  if (!strcmp(mode, "libfile")) {
    CHECK(cuLibraryLoadFromFile(&lib, path, NULL, NULL, 0, NULL, NULL, 0));
    CHECK(cuLibraryGetKernel(&k, lib, KERNEL));
    CHECK(cuKernelGetFunction(&fn, k));
    return;
  }
  char *image = read_file(path, &len);
  if (!strcmp(mode, "data")) CHECK(cuModuleLoadData(&m, image));
  else if (!strcmp(mode, "dataex")) CHECK(cuModuleLoadDataEx(&m, image, 0, NULL, NULL));
  else if (!strcmp(mode, "fatbin")) CHECK(cuModuleLoadFatBinary(&m, image));
  else if (!strcmp(mode, "library") || !strcmp(mode, "libkernel")) {
    CHECK(cuLibraryLoadData(&lib, image, NULL, NULL, 0, NULL, NULL, 0));
    CHECK(cuLibraryGetKernel(&k, lib, KERNEL));
    if (!strcmp(mode, "library")) CHECK(cuKernelGetFunction(&fn, k));
    else fn = (CUfunction)k;
    return;
  } else { fprintf(stderr, "cuda_app: unknown load %s\n", mode); exit(2); }
  CHECK(cuModuleGetFunction(&fn, m, KERNEL));
}

static launch_fn by_proc_address(void) {
  void *p = NULL;
  CUdriverProcAddressQueryResult status;
  if (!strcmp(how, "proc_v1")) CHECK(cuGetProcAddress_v1("cuLaunchKernel", &p, 11030, CU_GET_PROC_ADDRESS_DEFAULT));
  else if (!strcmp(how, "proc12")) CHECK(cuGetProcAddress("cuLaunchKernel", &p, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &status));
  else if (!strcmp(how, "proc13")) CHECK(cuGetProcAddress("cuLaunchKernel", &p, 13000, CU_GET_PROC_ADDRESS_DEFAULT, &status));
  else if (!strcmp(how, "proc_ptsz"))
    CHECK(cuGetProcAddress("cuLaunchKernel", &p, 12000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &status));
  else if (!strcmp(how, "proc_self")) {
    void *self = NULL;
    CHECK(cuGetProcAddress("cuGetProcAddress", &self, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &status));
    CHECK(((proc_v2_fn)self)("cuLaunchKernel", &p, 13000, CU_GET_PROC_ADDRESS_DEFAULT, &status));
  }
  return (launch_fn)p;
}

static CUresult launch_once(CUdeviceptr buf, int n) {
  void *params[] = {&buf, &n};
  unsigned g = (unsigned)(n + 127) / 128;
  if (!strcmp(how, "plain")) return cuLaunchKernel(fn, g, 1, 1, 128, 1, 1, 0, stream, params, NULL);
  if (!strcmp(how, "ptsz")) return cuLaunchKernel_ptsz(fn, g, 1, 1, 128, 1, 1, 0, stream, params, NULL);
  if (!strcmp(how, "coop")) return cuLaunchCooperativeKernel(fn, g, 1, 1, 128, 1, 1, 0, stream, params);
  if (!strcmp(how, "coop_ptsz")) return cuLaunchCooperativeKernel_ptsz(fn, g, 1, 1, 128, 1, 1, 0, stream, params);
  if (!strcmp(how, "ex") || !strcmp(how, "ex_ptsz")) {
    CUlaunchConfig c = {g, 1, 1, 128, 1, 1, 0, stream, NULL, 0};
    if (!strcmp(how, "ex")) return cuLaunchKernelEx(&c, fn, params, NULL);
    return cuLaunchKernelEx_ptsz(&c, fn, params, NULL);
  }
  if (!strcmp(how, "extra")) {
    struct { CUdeviceptr p; int n; } args = {buf, n};
    size_t size = sizeof args;
    void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &args, CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END};
    return cuLaunchKernel(fn, g, 1, 1, 128, 1, 1, 0, stream, NULL, extra);
  }
  launch_fn f;
  if (!strcmp(how, "dlsym")) {
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    f = h ? (launch_fn)dlsym(h, "cuLaunchKernel") : NULL;
  } else if (!strncmp(how, "proc", 4)) f = by_proc_address();
  else { fprintf(stderr, "cuda_app: unknown launch %s\n", how); exit(2); }
  if (!f) { fprintf(stderr, "cuda_app: no cuLaunchKernel by %s\n", how); exit(1); }
  return f(fn, g, 1, 1, 128, 1, 1, 0, stream, params, NULL);
}

static void *worker(void *arg) {
  (void)arg;
  CHECK(cuCtxSetCurrent(ctx));
  CUdeviceptr buf;
  int n = 1000;
  CHECK(cuMemAlloc(&buf, (size_t)n * sizeof(int)));
  if (!strncmp(how, "graph", 5)) {
    CUstreamCaptureMode mode = !strcmp(how, "graph_thread")    ? CU_STREAM_CAPTURE_MODE_THREAD_LOCAL
                               : !strcmp(how, "graph_relaxed") ? CU_STREAM_CAPTURE_MODE_RELAXED
                                                               : CU_STREAM_CAPTURE_MODE_GLOBAL;
    CUgraph graph;
    CUgraphExec exec;
    CHECK(cuStreamCreate(&stream, 0));
    const char *saved = how;
    how = "plain";
    CHECK(cuStreamBeginCapture(stream, mode));
    CHECK(launch_once(buf, n));
    CHECK(cuStreamEndCapture(stream, &graph));
    how = saved;
    CHECK(cuGraphInstantiate(&exec, graph, 0));
    for (int i = 0; i < launches; i++) CHECK(cuGraphLaunch(exec, stream));
    CHECK(cuStreamSynchronize(stream));
    CHECK(cuGraphExecDestroy(exec));
    CHECK(cuGraphDestroy(graph));
  } else {
    for (int i = 0; i < launches; i++) CHECK(launch_once(buf, n));
  }
  CHECK(cuCtxSynchronize());
  CHECK(cuMemFree(buf));
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 4) { fprintf(stderr, "usage: cuda_app LOAD IMAGE LAUNCH [THREADS [LAUNCHES]]\n"); return 2; }
  how = argv[3];
  int threads = argc > 4 ? atoi(argv[4]) : 1;
  if (argc > 5) launches = atoi(argv[5]);
  CUdevice dev;
  CHECK(cuInit(0));
  CHECK(cuDeviceGet(&dev, 0));
  CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CHECK(cuCtxSetCurrent(ctx));
  load(argv[1], argv[2]);
  if (threads <= 1) worker(NULL);
  else {
    pthread_t t[64];
    for (int i = 0; i < threads && i < 64; i++) pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < threads && i < 64; i++) pthread_join(t[i], NULL);
  }
  printf("cuda_app: %d launches ok\n", threads * launches);
  fflush(stdout);
  const char *after = argc > 6 ? argv[6] : "";
  if (!strcmp(after, "fork")) {
    for (int quick = 0; quick < 2; quick++) {
      pid_t child = fork();
      if (child == 0) {
        if (quick) _exit(0);
        exit(0);
      }
      int status;
      if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status)) {
        fprintf(stderr, "cuda_app: fork child failed\n");
        return 1;
      }
    }
  } else if (!strcmp(after, "abort")) {
    abort();
  }
  CHECK(cuDevicePrimaryCtxRelease(dev));
  return 0;
}
