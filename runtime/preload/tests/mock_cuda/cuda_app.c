/* A CUDA driver-API program for the fake-driver tests (runtime/preload/tests/cuda.rs):
 * it loads a module one way, reaches a launch entry point one way and launches
 * `add_one(int *p, int n)` (from kernels.cu) from one or more threads, as real stacks do.
 *
 *   cuda_app LOAD IMAGE LAUNCH [THREADS [LAUNCHES [AFTER]]]
 *
 * LOAD:   data | dataex | file | fatbin (cuModuleLoad*), library | libfile (cuLibrary*,
 *         then cuKernelGetFunction), libkernel (the CUkernel launched as a CUfunction),
 *         libmodule (cuLibraryGetModule, then cuModuleGetFunction), enumerate
 *         (cuModuleEnumerateFunctions), libenum (cuLibraryEnumerateKernels)
 * LAUNCH: plain | ptsz | ex | ex_ptsz | coop | coop_ptsz (called by name);
 *         dlsym (dlopen + dlsym of cuLaunchKernel);
 *         proc_v1 | proc12 | proc13 | proc_ptsz | proc_self (cuGetProcAddress: the legacy
 *         entry, _v2 at CUDA 12.0 and 13.0, the per-thread-stream variant, and
 *         cuGetProcAddress itself fetched through cuGetProcAddress first, as cudart does);
 *         extra (arguments in a CU_LAUNCH_PARAM_BUFFER_POINTER buffer);
 *         graph | graph_thread | graph_relaxed (one cuLaunchKernel captured on a stream in
 *         global, thread-local or relaxed mode, the graph replayed LAUNCHES times);
 *         explicit_* (a graph built with the graph API, its executable launched LAUNCHES
 *         times; see explicit_graph below for each form)
 * AFTER:  fork (then a child that ends with exit, as a shell's or a pool's would, and one
 *         with _exit, as Python's multiprocessing's does) | abort (a fatal signal)
 * $CUDA_APP_PAUSE_MS: a pause after each launch (not graphs).
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
static CUkernel kern; /* from the library loads */
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
    kern = k;
    return;
  }
  char *image = read_file(path, &len);
  if (!strcmp(mode, "libmodule")) {
    CHECK(cuLibraryLoadData(&lib, image, NULL, NULL, 0, NULL, NULL, 0));
    CHECK(cuLibraryGetModule(&m, lib));
    CHECK(cuModuleGetFunction(&fn, m, KERNEL));
    return;
  }
  if (!strcmp(mode, "enumerate") || !strcmp(mode, "libenum")) {
    /* Every function of the module (library), the one named KERNEL kept. */
    unsigned n = 0;
    CUfunction fs[16];
    CUkernel ks[16];
    if (!strcmp(mode, "enumerate")) {
      CHECK(cuModuleLoadData(&m, image));
      CHECK(cuModuleGetFunctionCount(&n, m));
      if (n > 16) n = 16;
      CHECK(cuModuleEnumerateFunctions(fs, n, m));
    } else {
      CHECK(cuLibraryLoadData(&lib, image, NULL, NULL, 0, NULL, NULL, 0));
      CHECK(cuLibraryGetKernelCount(&n, lib));
      if (n > 16) n = 16;
      CHECK(cuLibraryEnumerateKernels(ks, n, lib));
      for (unsigned i = 0; i < n; i++) CHECK(cuKernelGetFunction(&fs[i], ks[i]));
    }
    for (unsigned i = 0; i < n; i++) {
      const char *name;
      CHECK(cuFuncGetName(&name, fs[i]));
      if (!strcmp(name, KERNEL)) fn = fs[i];
    }
    if (!fn) { fprintf(stderr, "cuda_app: %s found no %s\n", mode, KERNEL); exit(1); }
    return;
  }
  if (!strcmp(mode, "data")) CHECK(cuModuleLoadData(&m, image));
  else if (!strcmp(mode, "dataex")) CHECK(cuModuleLoadDataEx(&m, image, 0, NULL, NULL));
  else if (!strcmp(mode, "fatbin")) CHECK(cuModuleLoadFatBinary(&m, image));
  else if (!strcmp(mode, "library") || !strcmp(mode, "libkernel")) {
    CHECK(cuLibraryLoadData(&lib, image, NULL, NULL, 0, NULL, NULL, 0));
    CHECK(cuLibraryGetKernel(&k, lib, KERNEL));
    kern = k;
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

typedef CUresult (*add_kernel_node_fn)(CUgraphNode *, CUgraph, const CUgraphNode *, size_t,
                                       const CUDA_KERNEL_NODE_PARAMS *);
typedef CUresult (*graph_launch_fn)(CUgraphExec, CUstream);
CUresult cuGraphLaunch_ptsz(CUgraphExec, CUstream);

/* A graph built with the graph API around one add_one node on `buf`, launched `launches`
 * times on `stream` (the worker's). The forms, after "explicit_":
 *   node      cuGraphAddKernelNode, the function in `func`
 *   kern      the CUkernel in `kern`, `func` null (library loads)
 *   generic   cuGraphAddNode with a kernel node's parameters
 *   proc      cuGraphAddKernelNode and cuGraphLaunch (per-thread) from cuGetProcAddress
 *   ptsz      cuGraphLaunch_ptsz
 *   child     the node in a child graph of the graph instantiated
 *   clone     the executable instantiated from a clone
 *   exec_set  after the first launch, the executable's node set to a second buffer
 *             (cuGraphExecKernelNodeSetParams), then with cuGraphExecNodeSetParams
 *   update    after the first launch, the graph's node set to a second buffer
 *             (cuGraphKernelNodeSetParams) and the executable updated from the graph
 *   destroy   a second kernel node added, then destroyed before instantiation
 *   conditional  the node in the body of a conditional node
 *   device    instantiated for device-side launch too (launched from the host here)
 *   in_capture   the executable launched into a stream capture, the captured graph then
 *             launched instead
 *   streams   launched on two streams in turn */
static void explicit_graph(CUdeviceptr buf, int n) {
  const char *form = how + strlen("explicit_");
  CUgraph graph, target;
  CUgraphNode node, other;
  CUgraphExec exec;
  CUdeviceptr second;
  int m = n;
  void *params[] = {&buf, &n};
  void *params2[] = {&second, &m};
  CHECK(cuMemAlloc(&second, (size_t)n * sizeof(int)));
  CUDA_KERNEL_NODE_PARAMS p = {0};
  p.func = fn;
  p.gridDimX = (unsigned)(n + 127) / 128;
  p.gridDimY = p.gridDimZ = 1;
  p.blockDimX = 128;
  p.blockDimY = p.blockDimZ = 1;
  p.kernelParams = params;
  if (!strcmp(form, "kern")) { p.func = NULL; p.kern = kern; }
  CHECK(cuGraphCreate(&graph, 0));
  target = graph;
  if (!strcmp(form, "child")) CHECK(cuGraphCreate(&target, 0));
  if (!strcmp(form, "conditional")) {
    CUgraphNodeParams c = {0};
    c.type = CU_GRAPH_NODE_TYPE_CONDITIONAL;
    c.conditional.type = CU_GRAPH_COND_TYPE_IF;
    c.conditional.size = 1;
    c.conditional.ctx = ctx;
    CHECK(cuGraphAddNode(&other, graph, NULL, NULL, 0, &c));
    target = c.conditional.phGraph_out[0];
  }
  graph_launch_fn launch = cuGraphLaunch;
  if (!strcmp(form, "generic")) {
    CUgraphNodeParams g = {0};
    g.type = CU_GRAPH_NODE_TYPE_KERNEL;
    memcpy(&g.kernel, &p, sizeof p);
    CHECK(cuGraphAddNode(&node, target, NULL, NULL, 0, &g));
  } else if (!strcmp(form, "proc")) {
    void *add = NULL, *lp = NULL;
    CUdriverProcAddressQueryResult status;
    CHECK(cuGetProcAddress("cuGraphAddKernelNode", &add, 13000, CU_GET_PROC_ADDRESS_DEFAULT, &status));
    CHECK(cuGetProcAddress("cuGraphLaunch", &lp, 13000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &status));
    CHECK(((add_kernel_node_fn)add)(&node, target, NULL, 0, &p));
    launch = (graph_launch_fn)lp;
  } else {
    CHECK(cuGraphAddKernelNode(&node, target, NULL, 0, &p));
  }
  if (!strcmp(form, "ptsz")) launch = cuGraphLaunch_ptsz;
  if (!strcmp(form, "destroy")) {
    CHECK(cuGraphAddKernelNode(&other, graph, &node, 1, &p));
    CHECK(cuGraphDestroyNode(other));
  }
  if (!strcmp(form, "child")) CHECK(cuGraphAddChildGraphNode(&other, graph, NULL, 0, target));
  CUgraph instantiated = graph;
  if (!strcmp(form, "clone")) CHECK(cuGraphClone(&instantiated, graph));
  if (!strcmp(form, "device")) {
    CUDA_GRAPH_INSTANTIATE_PARAMS ip = {0};
    ip.flags = CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH;
    CHECK(cuGraphInstantiateWithParams(&exec, instantiated, &ip));
  } else {
    CHECK(cuGraphInstantiate(&exec, instantiated, 0));
  }
  CUstream streams[2] = {stream, stream};
  if (!strcmp(form, "streams")) CHECK(cuStreamCreate(&streams[1], 0));
  CUgraphExec outer = NULL;
  if (!strcmp(form, "in_capture")) {
    CUgraph captured;
    CHECK(cuStreamCreate(&stream, 0));
    CHECK(cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_GLOBAL));
    CHECK(cuGraphLaunch(exec, stream));
    CHECK(cuStreamEndCapture(stream, &captured));
    CHECK(cuGraphInstantiate(&outer, captured, 0));
  }
  for (int i = 0; i < launches; i++) {
    if (outer) { CHECK(cuGraphLaunch(outer, stream)); continue; }
    CHECK(launch(exec, streams[i % 2]));
    if (i == 0 && !strcmp(form, "exec_set")) {
      p.kernelParams = params2;
      CHECK(cuGraphExecKernelNodeSetParams(exec, node, &p));
    }
    if (i == 1 && !strcmp(form, "exec_set")) {
      CUgraphNodeParams g = {0};
      g.type = CU_GRAPH_NODE_TYPE_KERNEL;
      memcpy(&g.kernel, &p, sizeof p);
      CHECK(cuGraphExecNodeSetParams(exec, node, &g));
    }
    if (i == 0 && !strcmp(form, "update")) {
      CUgraphExecUpdateResultInfo info;
      p.kernelParams = params2;
      CHECK(cuGraphKernelNodeSetParams(node, &p));
      CHECK(cuGraphExecUpdate(exec, graph, &info));
    }
  }
  CHECK(cuCtxSynchronize());
  CHECK(cuGraphExecDestroy(exec));
  CHECK(cuGraphDestroy(graph));
  CHECK(cuMemFree(second));
}

static void *worker(void *arg) {
  (void)arg;
  CHECK(cuCtxSetCurrent(ctx));
  CUdeviceptr buf;
  int n = 1000;
  CHECK(cuMemAlloc(&buf, (size_t)n * sizeof(int)));
  if (!strncmp(how, "explicit_", 9)) {
    explicit_graph(buf, n);
  } else if (!strncmp(how, "graph", 5)) {
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
    /* $CUDA_APP_PAUSE_MS between launches: a long-running program, for live results. */
    const char *pause = getenv("CUDA_APP_PAUSE_MS");
    for (int i = 0; i < launches; i++) {
      CHECK(launch_once(buf, n));
      if (pause) usleep((useconds_t)atoi(pause) * 1000);
    }
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
