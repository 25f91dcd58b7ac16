/* A stand-in for libcuda.so.1 (CUDA 13.0's driver API) for warptrace's CUDA interception
 * tests (runtime/preload/tests/cuda.rs). No GPU driver can run on the CI machines; this
 * one implements the entry points a driver-API program and warptrace's runtime call, runs
 * no kernel, and writes one line per event to $MOCK_CUDA_LOG so the tests can check what
 * reached "the driver": which function each launch named, through which entry point, its
 * first argument, and, for an instrumented copy, whether the appended map argument is a
 * live buffer of the size the runtime allocated.
 *
 * What it models as the real driver does:
 * - Images: PTX text, the linker's output (below), ELF cubins and fatbinaries. Functions
 *   and their parameter layouts come from the PTX's `.entry` declarations (offsets and
 *   sizes as the PTX ISA lays `.param`s out); for an image with no PTX text (a cubin, a
 *   fatbinary), from $MOCK_CUDA_KERNELS ("name=size,size,...;name2=..."), as the real
 *   driver reads them from the cubin's metadata.
 * - The linker (cuLinkCreate/AddData/Complete) "compiles" PTX into a pseudo-cubin: the
 *   bytes "MOCKCUBIN\n" followed by the PTX, which cuModuleLoadData accepts.
 * - Launches find each argument at its offset (kernelParams entries, or the bytes of a
 *   CU_LAUNCH_PARAM_BUFFER_POINTER buffer of CU_LAUNCH_PARAM_BUFFER_SIZE bytes).
 * - A CUkernel may be launched where a CUfunction is expected (CUDA 12's contract).
 * - cuGetProcAddress(_v2) answers from the driver's own table, never through dlsym (so an
 *   interposed dlsym is not consulted, as with the real driver), choosing `_v2` versions
 *   and, with CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, the `_ptsz` variants.
 *
 * Memory is host memory; every stream-ordered call completes at once (a host function
 * runs inside cuLaunchHostFunc); events and streams are opaque handles.
 *
 * An instrumented copy is a function whose last parameter is warptrace's map pointer
 * (`__wt_maps`). At its launch the mock "runs" the probe: it writes $MOCK_CUDA_FILL
 * ("offset=value" to set, "offset+=value" to add, comma-separated; byte offsets, u64
 * values) into the map buffer, as a kernel updating its maps would. $MOCK_CUDA_FAIL_INSTRUMENTED=RC makes every
 * instrumented launch fail with CUresult RC (after logging it); $MOCK_CUDA_LOG_WORD=OFFSET
 * logs the map buffer's u64 at OFFSET as the "kernel" finds it; $MOCK_CUDA_LOG_EVENTS logs
 * each event record.
 *
 * Also: $MOCK_CUDA_CC (compute capability, default 90). Built with CUDA 13.0's cuda.h
 * (under __CUDA_API_VERSION_INTERNAL, as the driver itself is, so each function is
 * defined under its exported name and checked against its declaration). */
#define __CUDA_API_VERSION_INTERNAL
#include <cuda.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
#define LOCKED(body) do { pthread_mutex_lock(&lock); body; pthread_mutex_unlock(&lock); } while (0)

static void logf_(const char *fmt, ...) {
  const char *path = getenv("MOCK_CUDA_LOG");
  if (!path) return;
  pthread_mutex_lock(&lock);
  FILE *f = fopen(path, "a");
  if (f) {
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fputc('\n', f);
    fclose(f);
  }
  pthread_mutex_unlock(&lock);
}

/* ---- streams, stream capture, graphs ---- */
/* A graph's node: a captured operation or one added explicitly, run by cuGraphLaunch in
 * the order the nodes were made (which the tests' dependencies follow). */
enum op_kind { OP_MEMSET8, OP_MEMSET32, OP_COPY, OP_HOST, OP_KERNEL, OP_CHILD };
struct op {
  enum op_kind kind;
  CUdeviceptr dst;
  const void *src;
  size_t n;
  unsigned value;
  CUhostFn fn;
  void *user;
  CUfunction func;
  unsigned dims[7];
  char *args; /* the kernel's argument bytes, copied at capture as the driver does */
  size_t args_len;
  struct graph *child; /* a child graph's copy, or a conditional node's body */
  int dead;            /* destroyed (cuGraphDestroyNode) */
};
struct graph { struct op *ops; int n, cap; };
/* A node handle: its graph and place (an executable's copy keeps the places). */
struct node { struct graph *g; int i; };
struct stream { int capturing; int invalidated; CUstreamCaptureMode mode; struct graph *g; };
static struct stream streams[64];
static int stream_next;
/* Captures in global mode underway (any thread), and this thread's capture mode. */
static int global_captures;
static __thread CUstreamCaptureMode thread_mode = CU_STREAM_CAPTURE_MODE_GLOBAL;

static struct stream *stream_of(CUstream s) {
  struct stream *st = (struct stream *)s;
  return st >= streams && st < streams + 64 ? st : NULL;
}
static struct stream *capturing(CUstream s) {
  struct stream *st = stream_of(s);
  return st && st->capturing ? st : NULL;
}
static int append(struct graph *g, struct op op) {
  pthread_mutex_lock(&lock);
  if (g->n == g->cap) {
    g->cap = g->cap ? 2 * g->cap : 8;
    g->ops = realloc(g->ops, (size_t)g->cap * sizeof *g->ops);
  }
  int i = g->n++;
  g->ops[i] = op;
  pthread_mutex_unlock(&lock);
  return i;
}
static void record(struct stream *st, struct op op) { append(st->g, op); }
/* A deep copy, as instantiation, cloning and child-graph nodes make. */
static struct graph *graph_copy(const struct graph *g) {
  struct graph *c = calloc(1, sizeof *c);
  c->n = c->cap = g->n;
  c->ops = calloc((size_t)(g->n ? g->n : 1), sizeof *c->ops);
  for (int i = 0; i < g->n; i++) {
    c->ops[i] = g->ops[i];
    if (g->ops[i].args) {
      c->ops[i].args = malloc(g->ops[i].args_len + 1);
      memcpy(c->ops[i].args, g->ops[i].args, g->ops[i].args_len + 1);
    }
    if (g->ops[i].child) c->ops[i].child = graph_copy(g->ops[i].child);
  }
  return c;
}
/* A call the driver refuses while a capture in global mode is underway, unless this
 * thread's mode is relaxed (allocation, registration, synchronization, synchronous
 * copies, module loading): it fails and invalidates the captures, as the driver's do. */
static CUresult unsafe_during_capture(const char *what) {
  int refused = 0;
  LOCKED(if (global_captures > 0 && thread_mode != CU_STREAM_CAPTURE_MODE_RELAXED) {
    refused = 1;
    for (int i = 0; i < 64; i++) if (streams[i].capturing) streams[i].invalidated = 1;
  });
  if (!refused) return CUDA_SUCCESS;
  logf_("%s refused during a global capture: captures invalidated", what);
  return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
}
#define UNSAFE(what) do { CUresult rc_ = unsafe_during_capture(what); if (rc_) return rc_; } while (0)

CUresult cuStreamCreate(CUstream *s, unsigned int flags) {
  (void)flags;
  LOCKED(*s = (CUstream)&streams[stream_next++ % 64]);
  return CUDA_SUCCESS;
}
CUresult cuStreamDestroy_v2(CUstream s) { (void)s; return CUDA_SUCCESS; }
CUresult cuStreamSynchronize(CUstream s) { (void)s; UNSAFE("cuStreamSynchronize"); return CUDA_SUCCESS; }
CUresult cuStreamIsCapturing(CUstream s, CUstreamCaptureStatus *status) {
  struct stream *st = capturing(s);
  *status = !st ? CU_STREAM_CAPTURE_STATUS_NONE
            : st->invalidated ? CU_STREAM_CAPTURE_STATUS_INVALIDATED
                              : CU_STREAM_CAPTURE_STATUS_ACTIVE;
  return CUDA_SUCCESS;
}
CUresult cuStreamBeginCapture_v2(CUstream s, CUstreamCaptureMode mode) {
  struct stream *st = stream_of(s);
  if (!st || st->capturing) return CUDA_ERROR_ILLEGAL_STATE;
  st->g = calloc(1, sizeof *st->g);
  st->mode = mode;
  st->invalidated = 0;
  LOCKED(st->capturing = 1; if (mode == CU_STREAM_CAPTURE_MODE_GLOBAL) global_captures++);
  logf_("cuStreamBeginCapture mode=%d", (int)mode);
  return CUDA_SUCCESS;
}
CUresult cuStreamEndCapture(CUstream s, CUgraph *out) {
  struct stream *st = capturing(s);
  if (!st) return CUDA_ERROR_ILLEGAL_STATE;
  LOCKED(st->capturing = 0; if (st->mode == CU_STREAM_CAPTURE_MODE_GLOBAL) global_captures--);
  logf_("cuStreamEndCapture nodes=%d invalidated=%d", st->g->n, st->invalidated);
  if (st->invalidated) { *out = NULL; return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED; }
  *out = (CUgraph)st->g;
  return CUDA_SUCCESS;
}
CUresult cuThreadExchangeStreamCaptureMode(CUstreamCaptureMode *mode) {
  CUstreamCaptureMode old = thread_mode;
  thread_mode = *mode;
  *mode = old;
  return CUDA_SUCCESS;
}
CUresult cuStreamWaitEvent(CUstream s, CUevent e, unsigned int flags) {
  (void)e; (void)flags;
  if (capturing(s)) return CUDA_ERROR_STREAM_CAPTURE_ISOLATION; /* an event from outside */
  logf_("cuStreamWaitEvent");
  return CUDA_SUCCESS;
}
/* The rest of the graph API is with the launches, below. */

/* ---- events, host functions ---- */
/* An event holds the time it was recorded at: a clock that advances 0.25 ms at each
 * record, so two records around one launch are 0.25 ms apart (exactly, as a float). */
static double event_clock_ms;
CUresult cuEventCreate(CUevent *e, unsigned int flags) {
  (void)flags; *e = (CUevent)calloc(1, sizeof(double)); return *e ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
CUresult cuEventDestroy_v2(CUevent e) { free(e); return CUDA_SUCCESS; }
CUresult cuEventRecord(CUevent e, CUstream s) {
  if (capturing(s)) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED; /* not modelled */
  LOCKED(event_clock_ms += 0.25; *(double *)e = event_clock_ms);
  if (getenv("MOCK_CUDA_LOG_EVENTS")) logf_("event record");
  return CUDA_SUCCESS;
}
CUresult cuEventElapsedTime_v2(float *ms, CUevent start, CUevent end) {
  if (!start || !end) return CUDA_ERROR_INVALID_HANDLE;
  *ms = (float)(*(double *)end - *(double *)start);
  return CUDA_SUCCESS;
}
CUresult cuEventSynchronize(CUevent e) { (void)e; UNSAFE("cuEventSynchronize"); return CUDA_SUCCESS; }
CUresult cuEventQuery(CUevent e) { (void)e; UNSAFE("cuEventQuery"); return CUDA_SUCCESS; }
CUresult cuLaunchHostFunc(CUstream s, CUhostFn fn, void *user) {
  struct stream *st = capturing(s);
  if (st) { record(st, (struct op){.kind = OP_HOST, .fn = fn, .user = user}); return CUDA_SUCCESS; }
  logf_("cuLaunchHostFunc");
  fn(user);
  return CUDA_SUCCESS;
}

/* ---- device and context ---- */
static int initialized;
static int ctx_token; /* the one context: its address is the handle */
static __thread CUcontext current;

CUresult cuInit(unsigned int flags) { (void)flags; initialized = 1; logf_("cuInit"); return CUDA_SUCCESS; }
CUresult cuDriverGetVersion(int *v) { *v = 13000; return CUDA_SUCCESS; }
CUresult cuDeviceGetCount(int *n) { *n = 1; return CUDA_SUCCESS; }
CUresult cuDeviceGet(CUdevice *d, int ordinal) {
  if (!initialized) return CUDA_ERROR_NOT_INITIALIZED;
  if (ordinal != 0) return CUDA_ERROR_INVALID_DEVICE;
  *d = 0;
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetName(char *name, int len, CUdevice d) {
  (void)d; snprintf(name, (size_t)len, "mock CUDA GPU"); return CUDA_SUCCESS;
}
CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice d) {
  (void)d; *bytes = (size_t)80 << 30; return CUDA_SUCCESS;
}
static int cc(void) {
  const char *s = getenv("MOCK_CUDA_CC");
  return s ? atoi(s) : 90;
}
CUresult cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice d) {
  (void)d;
  switch (a) {
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = cc() / 10; break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = cc() % 10; break;
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = 132; break;
  case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *v = 1024; break;
  case CU_DEVICE_ATTRIBUTE_WARP_SIZE: *v = 32; break;
  case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK: *v = 65536; break;
  case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR: *v = 65536; break;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: *v = 49152; break;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: *v = 232448; break;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR: *v = 233472; break;
  case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: *v = 2048; break;
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR: *v = 32; break;
  default: *v = 0;
  }
  return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d) {
  (void)d; *c = (CUcontext)&ctx_token; return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d) { (void)d; logf_("cuDevicePrimaryCtxRelease"); return CUDA_SUCCESS; }
CUresult cuDevicePrimaryCtxReset_v2(CUdevice d) { (void)d; logf_("cuDevicePrimaryCtxReset"); return CUDA_SUCCESS; }
CUresult cuCtxSetCurrent(CUcontext c) { current = c; return CUDA_SUCCESS; }
CUresult cuCtxGetCurrent(CUcontext *c) { *c = current; return CUDA_SUCCESS; }
CUresult cuCtxGetDevice(CUdevice *d) {
  if (!current) return CUDA_ERROR_INVALID_CONTEXT;
  *d = 0;
  return CUDA_SUCCESS;
}
CUresult cuCtxSynchronize(void) { UNSAFE("cuCtxSynchronize"); return current ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT; }
CUresult cuCtxDestroy_v2(CUcontext c) { (void)c; logf_("cuCtxDestroy"); return CUDA_SUCCESS; }

/* ---- memory ---- */
#define MAX_ALLOCS 4096
static void *allocs[MAX_ALLOCS];
static size_t alloc_sizes[MAX_ALLOCS];
static unsigned long alloc_count;

/* The allocation holding [p, p + n), its size in *size; NULL when there is none. */
static void *find_alloc(uintptr_t p, size_t n, size_t *size) {
  void *found = NULL;
  LOCKED(for (int i = 0; i < MAX_ALLOCS; i++) {
    uintptr_t a = (uintptr_t)allocs[i];
    if (a && p >= a && p + n <= a + alloc_sizes[i]) { found = allocs[i]; *size = alloc_sizes[i]; break; }
  });
  return found;
}

CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t size) {
  UNSAFE("cuMemAlloc");
  void *m = calloc(1, size ? size : 1);
  if (!m) return CUDA_ERROR_OUT_OF_MEMORY;
  CUresult rc = CUDA_ERROR_OUT_OF_MEMORY;
  LOCKED(for (int i = 0; i < MAX_ALLOCS; i++) if (!allocs[i]) {
    allocs[i] = m; alloc_sizes[i] = size; alloc_count++; rc = CUDA_SUCCESS; break;
  });
  if (rc != CUDA_SUCCESS) { free(m); return rc; }
  *p = (CUdeviceptr)(uintptr_t)m;
  return CUDA_SUCCESS;
}
CUresult cuMemFree_v2(CUdeviceptr p) {
  UNSAFE("cuMemFree");
  CUresult rc = CUDA_ERROR_INVALID_VALUE;
  LOCKED(for (int i = 0; i < MAX_ALLOCS; i++) if (allocs[i] && (CUdeviceptr)(uintptr_t)allocs[i] == p) {
    free(allocs[i]); allocs[i] = NULL; rc = CUDA_SUCCESS; break;
  });
  return rc;
}
static CUresult device_range(CUdeviceptr p, size_t n) {
  size_t size;
  return find_alloc((uintptr_t)p, n, &size) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n) {
  UNSAFE("cuMemcpyHtoD");
  if (device_range(dst, n)) return CUDA_ERROR_INVALID_VALUE;
  memcpy((void *)(uintptr_t)dst, src, n);
  return CUDA_SUCCESS;
}
CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n) {
  UNSAFE("cuMemcpyDtoH");
  if (device_range(src, n)) return CUDA_ERROR_INVALID_VALUE;
  memcpy(dst, (void *)(uintptr_t)src, n);
  logf_("cuMemcpyDtoH bytes=%zu", n);
  return CUDA_SUCCESS;
}
static CUresult copy(void *dst, const void *src, size_t n, CUdeviceptr device, const char *how) {
  if (device_range(device, n)) return CUDA_ERROR_INVALID_VALUE;
  memcpy(dst, src, n);
  if (how) logf_("%s bytes=%zu", how, n);
  return CUDA_SUCCESS;
}
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n, CUstream s) {
  struct stream *st = capturing(s);
  if (st) { record(st, (struct op){.kind = OP_COPY, .dst = dst, .src = src, .n = n, .value = 1}); return CUDA_SUCCESS; }
  return copy((void *)(uintptr_t)dst, src, n, dst, NULL);
}
CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n, CUstream s) {
  struct stream *st = capturing(s);
  if (st) {
    record(st, (struct op){.kind = OP_COPY, .dst = (CUdeviceptr)(uintptr_t)dst, .src = (void *)(uintptr_t)src, .n = n});
    return CUDA_SUCCESS;
  }
  return copy(dst, (void *)(uintptr_t)src, n, src, "cuMemcpyDtoHAsync");
}
CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char v, size_t n, CUstream s) {
  struct stream *st = capturing(s);
  if (st) { record(st, (struct op){.kind = OP_MEMSET8, .dst = dst, .n = n, .value = v}); return CUDA_SUCCESS; }
  if (device_range(dst, n)) return CUDA_ERROR_INVALID_VALUE;
  memset((void *)(uintptr_t)dst, v, n);
  return CUDA_SUCCESS;
}
CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned int v, size_t n, CUstream s) {
  struct stream *st = capturing(s);
  if (st) { record(st, (struct op){.kind = OP_MEMSET32, .dst = dst, .n = n, .value = v}); return CUDA_SUCCESS; }
  if (device_range(dst, 4 * n)) return CUDA_ERROR_INVALID_VALUE;
  for (size_t i = 0; i < n; i++) memcpy((char *)(uintptr_t)dst + 4 * i, &v, 4);
  return CUDA_SUCCESS;
}
CUresult cuMemHostRegister_v2(void *p, size_t n, unsigned int flags) {
  (void)p; (void)n; (void)flags; UNSAFE("cuMemHostRegister"); return CUDA_SUCCESS;
}
CUresult cuMemHostUnregister(void *p) { (void)p; UNSAFE("cuMemHostUnregister"); return CUDA_SUCCESS; }

/* ---- modules, functions, libraries ---- */
#define MAX_PARAMS 64
struct func {
  int module;
  char name[256];
  int nparams;
  unsigned offsets[MAX_PARAMS], sizes[MAX_PARAMS];
  int instrumented; /* the last parameter is warptrace's map pointer */
  int attrs[16];
};
struct module {
  int live;
  int first, count; /* its functions: funcs[first .. first + count) */
};
#define MAX_FUNCS 4096
#define MAX_MODULES 512
static struct func funcs[MAX_FUNCS];
static int nfuncs;
static struct module modules[MAX_MODULES];
static int nmodules;
/* A CUkernel is its own handle (the driver's are distinct from CUfunctions). */
struct kernel { int func; };
static struct kernel kernels[MAX_FUNCS];
struct library { int module; };
static struct library libraries[MAX_MODULES];
static int nlibraries;

static const char *skip_ws(const char *p) {
  for (;;) {
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
    if (p[0] == '/' && p[1] == '/') { while (*p && *p != '\n') p++; continue; }
    if (p[0] == '/' && p[1] == '*') { const char *e = strstr(p + 2, "*/"); p = e ? e + 2 : p + strlen(p); continue; }
    return p;
  }
}
static const char *word(const char *p, char *out, size_t cap) {
  size_t n = 0;
  while (*p && (*p == '_' || *p == '$' || *p == '.' || (*p >= '0' && *p <= '9') ||
                (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z'))) {
    if (n + 1 < cap) out[n++] = *p;
    p++;
  }
  out[n] = 0;
  return p;
}
static unsigned type_size(const char *t) {
  size_t n = strlen(t);
  if (n < 3 || t[0] != '.') return 0;
  if (strchr("usbf", t[1]) && (!strcmp(t + 2, "8") || !strcmp(t + 2, "16") ||
                               !strcmp(t + 2, "32") || !strcmp(t + 2, "64")))
    return (unsigned)atoi(t + 2) / 8;
  return 0;
}

/* One `.param` declaration at p (after `.param`): its alignment, size and name. */
static const char *param(const char *p, unsigned *align, unsigned *size, char *name) {
  char w[256];
  unsigned elem = 0;
  *align = 0; *size = 0; name[0] = 0;
  for (;;) {
    p = skip_ws(p);
    if (*p == ',' || *p == ')' || !*p) break;
    if (*p == '[') {
      unsigned count = (unsigned)strtoul(p + 1, (char **)&p, 10);
      *size = elem * count;
      while (*p && *p != ']') p++;
      if (*p) p++;
      continue;
    }
    const char *q = word(p, w, sizeof w);
    if (q == p) { p++; continue; }
    p = q;
    if (!strcmp(w, ".align")) { p = skip_ws(p); *align = (unsigned)strtoul(p, (char **)&p, 10); }
    else if (type_size(w)) { elem = type_size(w); *size = elem; }
    else if (w[0] != '.') strncpy(name, w, 255);
  }
  if (!*align) *align = elem ? elem : 1;
  return p;
}

/* Adds a module for `ptx`'s entries (NULL: $MOCK_CUDA_KERNELS); its index or -1. */
static int add_module(const char *ptx) {
  int m = -1;
  pthread_mutex_lock(&lock);
  if (nmodules < MAX_MODULES) {
    m = nmodules++;
    modules[m].live = 1;
    modules[m].first = nfuncs;
    modules[m].count = 0;
  }
  pthread_mutex_unlock(&lock);
  if (m < 0) return -1;
  if (ptx) {
    for (const char *p = strstr(ptx, ".entry"); p; p = strstr(p, ".entry")) {
      p = skip_ws(p + 6);
      pthread_mutex_lock(&lock);
      struct func *f = nfuncs < MAX_FUNCS ? &funcs[nfuncs++] : NULL;
      pthread_mutex_unlock(&lock);
      if (!f) return -1;
      memset(f, 0, sizeof *f);
      f->module = m;
      p = word(p, f->name, sizeof f->name);
      p = skip_ws(p);
      unsigned at = 0;
      char last[256] = "";
      if (*p == '(') {
        p++;
        for (;;) {
          p = skip_ws(p);
          if (*p == ')' || !*p) break;
          if (*p == ',') { p++; continue; }
          char w[64];
          const char *q = word(p, w, sizeof w);
          if (strcmp(w, ".param")) { p = q == p ? p + 1 : q; continue; }
          unsigned align, size;
          p = param(q, &align, &size, last);
          at = (at + align - 1) / align * align;
          if (f->nparams < MAX_PARAMS) {
            f->offsets[f->nparams] = at;
            f->sizes[f->nparams] = size;
            f->nparams++;
          }
          at += size;
        }
      }
      f->instrumented = !strcmp(last, "__wt_maps");
      modules[m].count++;
    }
  } else {
    const char *spec = getenv("MOCK_CUDA_KERNELS");
    for (const char *p = spec; p && *p;) {
      pthread_mutex_lock(&lock);
      struct func *f = nfuncs < MAX_FUNCS ? &funcs[nfuncs++] : NULL;
      pthread_mutex_unlock(&lock);
      if (!f) return -1;
      memset(f, 0, sizeof *f);
      f->module = m;
      size_t n = strcspn(p, "=;");
      snprintf(f->name, sizeof f->name, "%.*s", (int)n, p);
      p += n;
      unsigned at = 0;
      while (*p == '=' || *p == ',') {
        unsigned size = (unsigned)strtoul(p + 1, (char **)&p, 10);
        at = (at + size - 1) / size * size;
        if (f->nparams < MAX_PARAMS) { f->offsets[f->nparams] = at; f->sizes[f->nparams] = size; f->nparams++; }
        at += size;
      }
      if (*p == ';') p++;
      modules[m].count++;
    }
  }
  return m;
}

/* The module an image makes, by its format; -1 if it is none the driver knows. */
static int load_image(const void *image, const char *how) {
  if (unsafe_during_capture(how)) return -2;
  const unsigned char *b = image;
  int m;
  const char *kind;
  if (!memcmp(b, "MOCKCUBIN\n", 10)) { kind = "linked"; m = add_module((const char *)b + 10); }
  else if (!memcmp(b, "\x7f" "ELF", 4)) { kind = "cubin"; m = add_module(NULL); }
  else if (b[0] == 0x50 && b[1] == 0xed && b[2] == 0x55 && b[3] == 0xba) { kind = "fatbin"; m = add_module(NULL); }
  else if (strstr((const char *)b, ".version") && strstr((const char *)b, ".target")) { kind = "ptx"; m = add_module((const char *)b); }
  else { logf_("%s invalid image", how); return -1; }
  if (m >= 0) logf_("%s module=%d kind=%s functions=%d", how, m, kind, modules[m].count);
  return m;
}
static char *read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = calloc(1, (size_t)n + 1);
  if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) { free(buf); buf = NULL; }
  fclose(f);
  return buf;
}

static CUresult module_out(CUmodule *out, int m) {
  if (m == -2) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  if (m < 0) return CUDA_ERROR_INVALID_IMAGE;
  *out = (CUmodule)&modules[m];
  return CUDA_SUCCESS;
}
CUresult cuModuleLoadData(CUmodule *out, const void *image) {
  return module_out(out, load_image(image, "cuModuleLoadData"));
}
CUresult cuModuleLoadDataEx(CUmodule *out, const void *image, unsigned int n, CUjit_option *o, void **v) {
  (void)n; (void)o; (void)v;
  return module_out(out, load_image(image, "cuModuleLoadDataEx"));
}
CUresult cuModuleLoadFatBinary(CUmodule *out, const void *image) {
  return module_out(out, load_image(image, "cuModuleLoadFatBinary"));
}
CUresult cuModuleLoad(CUmodule *out, const char *path) {
  char *image = read_file(path);
  if (!image) return CUDA_ERROR_FILE_NOT_FOUND;
  int m = load_image(image, "cuModuleLoad");
  free(image);
  return module_out(out, m);
}
static struct module *module_of(CUmodule h) {
  struct module *m = (struct module *)h;
  return m >= modules && m < modules + nmodules && m->live ? m : NULL;
}
CUresult cuModuleUnload(CUmodule h) {
  struct module *m = module_of(h);
  if (!m) return CUDA_ERROR_INVALID_HANDLE;
  m->live = 0;
  logf_("cuModuleUnload module=%d", (int)(m - modules));
  return CUDA_SUCCESS;
}
CUresult cuModuleGetFunction(CUfunction *out, CUmodule h, const char *name) {
  struct module *m = module_of(h);
  if (!m) return CUDA_ERROR_INVALID_HANDLE;
  for (int i = m->first; i < m->first + m->count; i++)
    if (!strcmp(funcs[i].name, name)) { *out = (CUfunction)&funcs[i]; return CUDA_SUCCESS; }
  return CUDA_ERROR_NOT_FOUND;
}
CUresult cuModuleGetFunctionCount(unsigned int *n, CUmodule h) {
  struct module *m = module_of(h);
  if (!m) return CUDA_ERROR_INVALID_HANDLE;
  *n = (unsigned)m->count;
  return CUDA_SUCCESS;
}
CUresult cuModuleEnumerateFunctions(CUfunction *out, unsigned int n, CUmodule h) {
  struct module *m = module_of(h);
  if (!m) return CUDA_ERROR_INVALID_HANDLE;
  for (unsigned i = 0; i < n && (int)i < m->count; i++) out[i] = (CUfunction)&funcs[m->first + (int)i];
  return CUDA_SUCCESS;
}
/* A CUfunction, or a CUkernel passed as one. */
static struct func *func_of(CUfunction h) {
  struct func *f = (struct func *)h;
  if (f >= funcs && f < funcs + nfuncs) return f;
  struct kernel *k = (struct kernel *)h;
  if (k >= kernels && k < kernels + nfuncs) return &funcs[k->func];
  return NULL;
}
CUresult cuFuncGetName(const char **name, CUfunction h) {
  struct func *f = func_of(h);
  if (!f) return CUDA_ERROR_INVALID_HANDLE;
  *name = f->name;
  return CUDA_SUCCESS;
}
CUresult cuFuncGetParamInfo(CUfunction h, size_t i, size_t *offset, size_t *size) {
  struct func *f = func_of(h);
  if (!f) return CUDA_ERROR_INVALID_HANDLE;
  if (i >= (size_t)f->nparams) return CUDA_ERROR_INVALID_VALUE;
  *offset = f->offsets[i];
  *size = f->sizes[i];
  return CUDA_SUCCESS;
}
CUresult cuFuncGetAttribute(int *v, CUfunction_attribute a, CUfunction h) {
  struct func *f = func_of(h);
  if (!f) return CUDA_ERROR_INVALID_HANDLE;
  switch (a) {
  case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *v = 1024; break;
  case CU_FUNC_ATTRIBUTE_NUM_REGS: *v = f->instrumented ? 40 : 32; break;
  case CU_FUNC_ATTRIBUTE_PTX_VERSION: case CU_FUNC_ATTRIBUTE_BINARY_VERSION: *v = cc(); break;
  default: *v = (int)a < 16 ? f->attrs[a] : 0;
  }
  return CUDA_SUCCESS;
}
CUresult cuFuncSetAttribute(CUfunction h, CUfunction_attribute a, int v) {
  struct func *f = func_of(h);
  if (!f) return CUDA_ERROR_INVALID_HANDLE;
  if ((int)a < 16) f->attrs[a] = v;
  logf_("cuFuncSetAttribute fn=%s attr=%d value=%d", f->name, (int)a, v);
  return CUDA_SUCCESS;
}
CUresult cuFuncSetCacheConfig(CUfunction h, CUfunc_cache c) {
  struct func *f = func_of(h);
  if (!f) return CUDA_ERROR_INVALID_HANDLE;
  logf_("cuFuncSetCacheConfig fn=%s config=%d", f->name, (int)c);
  return CUDA_SUCCESS;
}

static CUresult library_out(CUlibrary *out, int m) {
  if (m == -2) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  if (m < 0) return CUDA_ERROR_INVALID_IMAGE;
  int l;
  LOCKED(l = nlibraries < MAX_MODULES ? nlibraries++ : -1);
  if (l < 0) return CUDA_ERROR_OUT_OF_MEMORY;
  libraries[l].module = m;
  *out = (CUlibrary)&libraries[l];
  return CUDA_SUCCESS;
}
CUresult cuLibraryLoadData(CUlibrary *out, const void *code, CUjit_option *o, void **ov, unsigned int n,
                           CUlibraryOption *lo, void **lov, unsigned int ln) {
  (void)o; (void)ov; (void)n; (void)lo; (void)lov; (void)ln;
  return library_out(out, load_image(code, "cuLibraryLoadData"));
}
CUresult cuLibraryLoadFromFile(CUlibrary *out, const char *path, CUjit_option *o, void **ov, unsigned int n,
                               CUlibraryOption *lo, void **lov, unsigned int ln) {
  (void)o; (void)ov; (void)n; (void)lo; (void)lov; (void)ln;
  char *image = read_file(path);
  if (!image) return CUDA_ERROR_FILE_NOT_FOUND;
  int m = load_image(image, "cuLibraryLoadFromFile");
  free(image);
  return library_out(out, m);
}
static struct library *library_of(CUlibrary h) {
  struct library *l = (struct library *)h;
  return l >= libraries && l < libraries + nlibraries ? l : NULL;
}
CUresult cuLibraryUnload(CUlibrary h) {
  struct library *l = library_of(h);
  if (!l) return CUDA_ERROR_INVALID_HANDLE;
  return cuModuleUnload((CUmodule)&modules[l->module]);
}
CUresult cuLibraryGetModule(CUmodule *out, CUlibrary h) {
  struct library *l = library_of(h);
  if (!l) return CUDA_ERROR_INVALID_HANDLE;
  *out = (CUmodule)&modules[l->module];
  return CUDA_SUCCESS;
}
CUresult cuLibraryGetKernel(CUkernel *out, CUlibrary h, const char *name) {
  struct library *l = library_of(h);
  if (!l) return CUDA_ERROR_INVALID_HANDLE;
  CUfunction f;
  CUresult rc = cuModuleGetFunction(&f, (CUmodule)&modules[l->module], name);
  if (rc) return rc;
  int i = (int)((struct func *)f - funcs);
  kernels[i].func = i;
  *out = (CUkernel)&kernels[i];
  return CUDA_SUCCESS;
}
CUresult cuLibraryGetKernelCount(unsigned int *n, CUlibrary h) {
  struct library *l = library_of(h);
  if (!l) return CUDA_ERROR_INVALID_HANDLE;
  return cuModuleGetFunctionCount(n, (CUmodule)&modules[l->module]);
}
CUresult cuLibraryEnumerateKernels(CUkernel *out, unsigned int n, CUlibrary h) {
  struct library *l = library_of(h);
  if (!l) return CUDA_ERROR_INVALID_HANDLE;
  struct module *m = &modules[l->module];
  for (unsigned i = 0; i < n && (int)i < m->count; i++) {
    int f = m->first + (int)i;
    kernels[f].func = f;
    out[i] = (CUkernel)&kernels[f];
  }
  return CUDA_SUCCESS;
}
static struct kernel *kernel_of(CUkernel h) {
  struct kernel *k = (struct kernel *)h;
  return k >= kernels && k < kernels + nfuncs ? k : NULL;
}
CUresult cuKernelGetFunction(CUfunction *out, CUkernel h) {
  struct kernel *k = kernel_of(h);
  if (!k) return CUDA_ERROR_INVALID_HANDLE;
  *out = (CUfunction)&funcs[k->func];
  return CUDA_SUCCESS;
}
CUresult cuKernelGetName(const char **name, CUkernel h) {
  struct kernel *k = kernel_of(h);
  if (!k) return CUDA_ERROR_INVALID_HANDLE;
  *name = funcs[k->func].name;
  return CUDA_SUCCESS;
}
CUresult cuKernelSetAttribute(CUfunction_attribute a, int v, CUkernel h, CUdevice d) {
  (void)d;
  struct kernel *k = kernel_of(h);
  if (!k) return CUDA_ERROR_INVALID_HANDLE;
  return cuFuncSetAttribute((CUfunction)&funcs[k->func], a, v);
}

/* ---- the linker ---- */
struct link { char *ptx; size_t len; };
CUresult cuLinkCreate_v2(unsigned int n, CUjit_option *o, void **v, CUlinkState *out) {
  (void)n; (void)o; (void)v;
  struct link *l = calloc(1, sizeof *l);
  if (!l) return CUDA_ERROR_OUT_OF_MEMORY;
  *out = (CUlinkState)l;
  return CUDA_SUCCESS;
}
CUresult cuLinkAddData_v2(CUlinkState s, CUjitInputType type, void *data, size_t size, const char *name,
                          unsigned int n, CUjit_option *o, void **v) {
  (void)name; (void)n; (void)o; (void)v;
  struct link *l = (struct link *)s;
  if (type != CU_JIT_INPUT_PTX) return CUDA_ERROR_INVALID_VALUE;
  size_t len = strnlen(data, size);
  char *ptx = realloc(l->ptx, l->len + len + 1);
  if (!ptx) return CUDA_ERROR_OUT_OF_MEMORY;
  memcpy(ptx + l->len, data, len);
  l->ptx = ptx;
  l->len += len;
  ptx[l->len] = 0;
  return CUDA_SUCCESS;
}
CUresult cuLinkComplete(CUlinkState s, void **cubin, size_t *size) {
  UNSAFE("cuLinkComplete");
  struct link *l = (struct link *)s;
  if (!l->ptx) return CUDA_ERROR_INVALID_VALUE;
  char *out = malloc(l->len + 11);
  if (!out) return CUDA_ERROR_OUT_OF_MEMORY;
  memcpy(out, "MOCKCUBIN\n", 10);
  memcpy(out + 10, l->ptx, l->len + 1);
  free(l->ptx);
  l->ptx = out; /* owned by the state, as the driver's cubin is */
  l->len += 10;
  *cubin = out;
  *size = l->len + 1;
  logf_("cuLinkComplete bytes=%zu", *size);
  return CUDA_SUCCESS;
}
CUresult cuLinkDestroy(CUlinkState s) {
  struct link *l = (struct link *)s;
  free(l->ptx);
  free(l);
  return CUDA_SUCCESS;
}

/* ---- launches ---- */
static CUresult run_kernel(const char *via, struct func *f, const char **args, const char *how,
                           const unsigned *d);
/* Each argument's bytes: kernelParams[i], or the `extra` buffer at its offset. */
static CUresult gather(const char *via, struct func *f, void **params, void **extra, const char **args) {
  char *buffer = NULL;
  size_t buffer_size = 0;
  for (void **e = extra; e && *e != CU_LAUNCH_PARAM_END; e += 2) {
    if (e[0] == CU_LAUNCH_PARAM_BUFFER_POINTER) buffer = e[1];
    else if (e[0] == CU_LAUNCH_PARAM_BUFFER_SIZE) buffer_size = *(size_t *)e[1];
    else return CUDA_ERROR_INVALID_VALUE;
  }
  if (params && extra) return CUDA_ERROR_INVALID_VALUE;
  if (f->nparams && !params && !buffer) return CUDA_ERROR_INVALID_VALUE;
  for (int i = 0; i < f->nparams; i++) {
    if (params) args[i] = params[i];
    else if (f->offsets[i] + f->sizes[i] <= buffer_size) args[i] = buffer + f->offsets[i];
    else { logf_("launch via=%s fn=%s argument %d past the %zu-byte buffer", via, f->name, i, buffer_size); return CUDA_ERROR_INVALID_VALUE; }
  }
  return CUDA_SUCCESS;
}
/* A kernel node: the arguments' values are copied now, as the driver does. */
static struct op kernel_op(CUfunction h, struct func *f, const char **args, const unsigned *d, int by_extra) {
  size_t total = 0;
  for (int i = 0; i < f->nparams; i++) total = f->offsets[i] + f->sizes[i];
  struct op op = {.kind = OP_KERNEL, .func = h, .args = calloc(1, total + 1), .args_len = total};
  for (int i = 0; i < f->nparams; i++) memcpy(op.args + f->offsets[i], args[i], f->sizes[i]);
  memcpy(op.dims, d, sizeof op.dims);
  op.value = (unsigned)by_extra;
  return op;
}
static CUresult launch(const char *via, CUfunction h, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                       unsigned by, unsigned bz, unsigned shared, CUstream s, void **params, void **extra) {
  struct func *f = func_of(h);
  if (!f) { logf_("launch via=%s invalid handle", via); return CUDA_ERROR_INVALID_HANDLE; }
  if (!modules[f->module].live) return CUDA_ERROR_INVALID_HANDLE;
  const char *args[MAX_PARAMS];
  CUresult rc = gather(via, f, params, extra, args);
  if (rc) return rc;
  const char *how = params ? "params" : extra ? "extra" : "none";
  unsigned d[7] = {gx, gy, gz, bx, by, bz, shared};
  struct stream *st = capturing(s);
  if (st) {
    logf_("capture via=%s fn=%s params=%d", via, f->name, f->nparams);
    record(st, kernel_op(h, f, args, d, !params));
    return CUDA_SUCCESS;
  }
  return run_kernel(via, f, args, how, d);
}

static CUresult run_kernel(const char *via, struct func *f, const char **args, const char *how,
                           const unsigned *d) {
  unsigned long long arg0 = 0;
  if (f->nparams) memcpy(&arg0, args[0], f->sizes[0] < 8 ? f->sizes[0] : 8);
  const char *map = "none";
  CUdeviceptr maps = 0;
  if (f->instrumented) {
    memcpy(&maps, args[f->nparams - 1], 8);
    size_t size;
    map = find_alloc((uintptr_t)maps, 8, &size) ? "live" : "dead";
  }
  logf_("launch via=%s fn=%s params=%d args=%s arg0=%llx map=%s grid=%u,%u,%u block=%u,%u,%u shared=%u",
        via, f->name, f->nparams, how, arg0, map, d[0], d[1], d[2], d[3], d[4], d[5], d[6]);
  if (!f->instrumented) return CUDA_SUCCESS;
  /* $MOCK_CUDA_LOG_WORD=OFFSET: the map buffer's u64 at OFFSET as the kernel sees it. */
  const char *word_at = getenv("MOCK_CUDA_LOG_WORD");
  if (word_at && strcmp(map, "live") == 0) {
    unsigned long long off = strtoull(word_at, NULL, 0), w = 0;
    size_t size;
    if (find_alloc((uintptr_t)maps + off, 8, &size)) memcpy(&w, (void *)(uintptr_t)(maps + off), 8);
    logf_("map word %llu=%llu", off, w);
  }
  const char *fail = getenv("MOCK_CUDA_FAIL_INSTRUMENTED");
  if (fail) return (CUresult)atoi(fail);
  if (strcmp(map, "live")) return CUDA_ERROR_ILLEGAL_ADDRESS;
  /* "Run" the probe: MOCK_CUDA_FILL's words into the map buffer, `off=value` written,
   * `off+=value` added (atomically: launches from several threads share nothing else). */
  for (const char *p = getenv("MOCK_CUDA_FILL"); p && *p;) {
    unsigned long long off = strtoull(p, (char **)&p, 0), value = 0;
    int add = *p == '+';
    if (add) p++;
    if (*p == '=') value = strtoull(p + 1, (char **)&p, 0);
    size_t size;
    if (!find_alloc((uintptr_t)maps + off, 8, &size)) return CUDA_ERROR_ILLEGAL_ADDRESS;
    unsigned long long *w = (unsigned long long *)(uintptr_t)(maps + off);
    if (add) __atomic_fetch_add(w, value, __ATOMIC_RELAXED);
    else __atomic_store_n(w, value, __ATOMIC_RELAXED);
    if (*p == ',') p++; else break;
  }
  return CUDA_SUCCESS;
}

CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                        unsigned bz, unsigned shared, CUstream s, void **params, void **extra) {
  return launch("cuLaunchKernel", f, gx, gy, gz, bx, by, bz, shared, s, params, extra);
}
CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                             unsigned bz, unsigned shared, CUstream s, void **params, void **extra) {
  return launch("cuLaunchKernel_ptsz", f, gx, gy, gz, bx, by, bz, shared, s, params, extra);
}
CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                   unsigned by, unsigned bz, unsigned shared, CUstream s, void **params) {
  return launch("cuLaunchCooperativeKernel", f, gx, gy, gz, bx, by, bz, shared, s, params, NULL);
}
CUresult cuLaunchCooperativeKernel_ptsz(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                        unsigned by, unsigned bz, unsigned shared, CUstream s, void **params) {
  return launch("cuLaunchCooperativeKernel_ptsz", f, gx, gy, gz, bx, by, bz, shared, s, params, NULL);
}
CUresult cuLaunchKernelEx(const CUlaunchConfig *c, CUfunction f, void **params, void **extra) {
  return launch("cuLaunchKernelEx", f, c->gridDimX, c->gridDimY, c->gridDimZ, c->blockDimX, c->blockDimY,
                c->blockDimZ, c->sharedMemBytes, c->hStream, params, extra);
}
CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig *c, CUfunction f, void **params, void **extra) {
  return launch("cuLaunchKernelEx_ptsz", f, c->gridDimX, c->gridDimY, c->gridDimZ, c->blockDimX, c->blockDimY,
                c->blockDimZ, c->sharedMemBytes, c->hStream, params, extra);
}

/* ---- explicit graphs ---- */
CUresult cuGraphCreate(CUgraph *out, unsigned int flags) {
  (void)flags;
  *out = (CUgraph)calloc(1, sizeof(struct graph));
  return *out ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
static CUgraphNode node_at(struct graph *g, int i) {
  struct node *n = malloc(sizeof *n);
  n->g = g;
  n->i = i;
  return (CUgraphNode)n;
}
/* A kernel node's op from its parameters (the v2/v3 layout: func, or else kern). */
static CUresult kernel_node_op(const char *via, const CUDA_KERNEL_NODE_PARAMS_v2 *p, struct op *op) {
  CUfunction h = p->func ? p->func : (CUfunction)p->kern;
  struct func *f = func_of(h);
  if (!f) return CUDA_ERROR_INVALID_HANDLE;
  const char *args[MAX_PARAMS];
  CUresult rc = gather(via, f, p->kernelParams, p->extra, args);
  if (rc) return rc;
  unsigned d[7] = {p->gridDimX, p->gridDimY, p->gridDimZ, p->blockDimX, p->blockDimY, p->blockDimZ,
                   p->sharedMemBytes};
  *op = kernel_op(h, f, args, d, !p->kernelParams);
  logf_("%s fn=%s params=%d", via, f->name, f->nparams);
  return CUDA_SUCCESS;
}
static CUresult add_kernel(const char *via, CUgraphNode *out, CUgraph hg, const CUDA_KERNEL_NODE_PARAMS_v2 *p) {
  struct graph *g = (struct graph *)hg;
  if (!g || !p) return CUDA_ERROR_INVALID_VALUE;
  struct op op;
  CUresult rc = kernel_node_op(via, p, &op);
  if (rc) return rc;
  *out = node_at(g, append(g, op));
  return CUDA_SUCCESS;
}
/* Replaces the kernel op at a node's place in `g` (its graph, or an executable of it). */
static CUresult set_kernel(const char *via, struct graph *g, CUgraphNode h, const CUDA_KERNEL_NODE_PARAMS_v2 *p) {
  struct node *n = (struct node *)h;
  if (!g || !n || n->i >= g->n || g->ops[n->i].kind != OP_KERNEL || !p) return CUDA_ERROR_INVALID_VALUE;
  struct op op;
  CUresult rc = kernel_node_op(via, p, &op);
  if (rc) return rc;
  free(g->ops[n->i].args);
  g->ops[n->i] = op;
  return CUDA_SUCCESS;
}
CUresult cuGraphAddKernelNode_v2(CUgraphNode *out, CUgraph g, const CUgraphNode *deps, size_t n,
                                 const CUDA_KERNEL_NODE_PARAMS_v2 *p) {
  (void)deps; (void)n;
  return add_kernel("graph add kernel", out, g, p);
}
CUresult cuGraphKernelNodeSetParams_v2(CUgraphNode h, const CUDA_KERNEL_NODE_PARAMS_v2 *p) {
  return set_kernel("graph set kernel", h ? ((struct node *)h)->g : NULL, h, p);
}
CUresult cuGraphExecKernelNodeSetParams_v2(CUgraphExec e, CUgraphNode h, const CUDA_KERNEL_NODE_PARAMS_v2 *p) {
  return set_kernel("exec set kernel", (struct graph *)e, h, p);
}
/* The generic form: kernel nodes, and conditional nodes (whose one body graph the driver
 * makes; the mock runs it once at each launch, as an `if` whose condition holds). */
static CUresult add_node(CUgraphNode *out, CUgraph hg, CUgraphNodeParams *p) {
  struct graph *g = (struct graph *)hg;
  if (!g || !p) return CUDA_ERROR_INVALID_VALUE;
  if (p->type == CU_GRAPH_NODE_TYPE_KERNEL)
    return add_kernel("graph add node kernel", out, hg, (const CUDA_KERNEL_NODE_PARAMS_v2 *)&p->kernel);
  if (p->type != CU_GRAPH_NODE_TYPE_CONDITIONAL || p->conditional.size != 1) return CUDA_ERROR_NOT_SUPPORTED;
  static __thread CUgraph body_out[1];
  struct graph *body = calloc(1, sizeof *body);
  body_out[0] = (CUgraph)body;
  p->conditional.phGraph_out = body_out;
  logf_("graph add conditional");
  *out = node_at(g, append(g, (struct op){.kind = OP_CHILD, .child = body}));
  return CUDA_SUCCESS;
}
CUresult cuGraphAddNode(CUgraphNode *out, CUgraph g, const CUgraphNode *deps, size_t n, CUgraphNodeParams *p) {
  (void)deps; (void)n;
  return add_node(out, g, p);
}
CUresult cuGraphAddNode_v2(CUgraphNode *out, CUgraph g, const CUgraphNode *deps, const CUgraphEdgeData *edges,
                           size_t n, CUgraphNodeParams *p) {
  (void)deps; (void)edges; (void)n;
  return add_node(out, g, p);
}
CUresult cuGraphNodeSetParams(CUgraphNode h, CUgraphNodeParams *p) {
  if (!p || p->type != CU_GRAPH_NODE_TYPE_KERNEL) return CUDA_ERROR_NOT_SUPPORTED;
  return set_kernel("graph set node kernel", h ? ((struct node *)h)->g : NULL, h, (const CUDA_KERNEL_NODE_PARAMS_v2 *)&p->kernel);
}
CUresult cuGraphExecNodeSetParams(CUgraphExec e, CUgraphNode h, CUgraphNodeParams *p) {
  if (!p || p->type != CU_GRAPH_NODE_TYPE_KERNEL) return CUDA_ERROR_NOT_SUPPORTED;
  return set_kernel("exec set node kernel", (struct graph *)e, h, (const CUDA_KERNEL_NODE_PARAMS_v2 *)&p->kernel);
}
CUresult cuGraphAddChildGraphNode(CUgraphNode *out, CUgraph hg, const CUgraphNode *deps, size_t n, CUgraph child) {
  (void)deps; (void)n;
  struct graph *g = (struct graph *)hg;
  if (!g || !child) return CUDA_ERROR_INVALID_VALUE;
  *out = node_at(g, append(g, (struct op){.kind = OP_CHILD, .child = graph_copy((struct graph *)child)}));
  return CUDA_SUCCESS;
}
CUresult cuGraphClone(CUgraph *out, CUgraph g) {
  if (!g) return CUDA_ERROR_INVALID_VALUE;
  *out = (CUgraph)graph_copy((struct graph *)g);
  return CUDA_SUCCESS;
}
CUresult cuGraphNodeFindInClone(CUgraphNode *out, CUgraphNode h, CUgraph clone) {
  struct node *n = (struct node *)h;
  struct graph *c = (struct graph *)clone;
  if (!n || !c || n->i >= c->n) return CUDA_ERROR_INVALID_VALUE;
  *out = node_at(c, n->i);
  return CUDA_SUCCESS;
}
CUresult cuGraphDestroyNode(CUgraphNode h) {
  struct node *n = (struct node *)h;
  if (!n) return CUDA_ERROR_INVALID_VALUE;
  n->g->ops[n->i].dead = 1;
  return CUDA_SUCCESS;
}
CUresult cuGraphInstantiateWithFlags(CUgraphExec *exec, CUgraph g, unsigned long long flags) {
  if (!g) return CUDA_ERROR_INVALID_VALUE;
  *exec = (CUgraphExec)graph_copy((struct graph *)g);
  logf_("cuGraphInstantiate flags=%llu", flags);
  return CUDA_SUCCESS;
}
CUresult cuGraphInstantiateWithParams(CUgraphExec *exec, CUgraph g, CUDA_GRAPH_INSTANTIATE_PARAMS *p) {
  CUresult rc = cuGraphInstantiateWithFlags(exec, g, p ? p->flags : 0);
  if (p) p->result_out = rc ? CUDA_GRAPH_INSTANTIATE_ERROR : CUDA_GRAPH_INSTANTIATE_SUCCESS;
  return rc;
}
/* Takes the graph's node parameters when its topology is the executable's. */
CUresult cuGraphExecUpdate_v2(CUgraphExec he, CUgraph hg, CUgraphExecUpdateResultInfo *info) {
  struct graph *e = (struct graph *)he, *g = (struct graph *)hg;
  int same = e && g && e->n == g->n;
  for (int i = 0; same && i < g->n; i++) same = e->ops[i].kind == g->ops[i].kind;
  if (info) info->result = same ? CU_GRAPH_EXEC_UPDATE_SUCCESS : CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED;
  if (!same) return CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE;
  struct graph *c = graph_copy(g);
  free(e->ops);
  *e = *c;
  free(c);
  logf_("cuGraphExecUpdate");
  return CUDA_SUCCESS;
}
CUresult cuGraphDestroy(CUgraph g) { (void)g; return CUDA_SUCCESS; }
CUresult cuGraphExecDestroy(CUgraphExec e) { (void)e; return CUDA_SUCCESS; }

/* Runs a graph's nodes in the order they were made. */
static CUresult run_graph(struct graph *g) {
  for (int i = 0; i < g->n; i++) {
    struct op *op = &g->ops[i];
    CUresult rc = CUDA_SUCCESS;
    if (op->dead) continue;
    switch (op->kind) {
    case OP_MEMSET8:
      rc = device_range(op->dst, op->n);
      if (!rc) memset((void *)(uintptr_t)op->dst, (int)op->value, op->n);
      break;
    case OP_MEMSET32:
      rc = device_range(op->dst, 4 * op->n);
      for (size_t k = 0; !rc && k < op->n; k++) memcpy((char *)(uintptr_t)op->dst + 4 * k, &op->value, 4);
      break;
    case OP_COPY:
      rc = op->value ? copy((void *)(uintptr_t)op->dst, op->src, op->n, op->dst, NULL)
                     : copy((void *)(uintptr_t)op->dst, op->src, op->n, (CUdeviceptr)(uintptr_t)op->src,
                            "graph copy DtoH");
      break;
    case OP_HOST:
      logf_("graph host node");
      op->fn(op->user);
      break;
    case OP_KERNEL: {
      struct func *f = func_of(op->func);
      const char *args[MAX_PARAMS];
      for (int k = 0; k < f->nparams; k++) args[k] = op->args + f->offsets[k];
      rc = run_kernel("cuGraphLaunch", f, args, op->value ? "extra" : "params", op->dims);
      break;
    }
    case OP_CHILD:
      rc = run_graph(op->child);
      break;
    }
    if (rc) return rc;
  }
  return CUDA_SUCCESS;
}
/* Launched into a capture, the executable becomes a child graph of it. */
static CUresult graph_launch(const char *via, CUgraphExec e, CUstream s) {
  struct graph *g = (struct graph *)e;
  if (!g) return CUDA_ERROR_INVALID_VALUE;
  struct stream *st = capturing(s);
  if (st) {
    logf_("%s captured nodes=%d", via, g->n);
    record(st, (struct op){.kind = OP_CHILD, .child = graph_copy(g)});
    return CUDA_SUCCESS;
  }
  logf_("%s nodes=%d", via, g->n);
  return run_graph(g);
}
CUresult cuGraphLaunch(CUgraphExec e, CUstream s) { return graph_launch("cuGraphLaunch", e, s); }
CUresult cuGraphLaunch_ptsz(CUgraphExec e, CUstream s) { return graph_launch("cuGraphLaunch_ptsz", e, s); }

/* ---- errors ---- */
CUresult cuGetErrorString(CUresult rc, const char **s) { *s = rc ? "mock CUDA error" : "no error"; return CUDA_SUCCESS; }
CUresult cuGetErrorName(CUresult rc, const char **s) { *s = rc ? "CUDA_ERROR_MOCK" : "CUDA_SUCCESS"; return CUDA_SUCCESS; }

/* ---- cuGetProcAddress: the driver's own table ---- */
CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version, cuuint64_t flags,
                             CUdriverProcAddressQueryResult *status);
CUresult cuGetProcAddress(const char *symbol, void **pfn, int version, cuuint64_t flags);
#define E(f) { #f, (void *)f }
static const struct { const char *name; void *fn; } table[] = {
  E(cuInit), E(cuDriverGetVersion), E(cuDeviceGetCount), E(cuDeviceGet), E(cuDeviceGetName),
  E(cuDeviceTotalMem_v2), E(cuDeviceGetAttribute), E(cuDevicePrimaryCtxRetain),
  E(cuDevicePrimaryCtxRelease_v2), E(cuDevicePrimaryCtxReset_v2), E(cuCtxSetCurrent),
  E(cuCtxGetCurrent), E(cuCtxGetDevice), E(cuCtxSynchronize), E(cuCtxDestroy_v2),
  E(cuMemAlloc_v2), E(cuMemFree_v2), E(cuMemcpyHtoD_v2), E(cuMemcpyDtoH_v2),
  E(cuMemcpyHtoDAsync_v2), E(cuMemcpyDtoHAsync_v2), E(cuMemsetD8Async), E(cuMemsetD32Async),
  E(cuMemHostRegister_v2), E(cuMemHostUnregister), E(cuStreamCreate), E(cuStreamDestroy_v2),
  E(cuStreamSynchronize), E(cuStreamIsCapturing), E(cuStreamBeginCapture_v2), E(cuStreamEndCapture),
  E(cuThreadExchangeStreamCaptureMode), E(cuGraphInstantiateWithFlags), E(cuGraphLaunch),
  E(cuGraphDestroy), E(cuGraphExecDestroy), E(cuStreamWaitEvent), E(cuGraphCreate),
  E(cuGraphAddKernelNode_v2), E(cuGraphKernelNodeSetParams_v2), E(cuGraphExecKernelNodeSetParams_v2),
  E(cuGraphAddNode), E(cuGraphAddNode_v2), E(cuGraphNodeSetParams), E(cuGraphExecNodeSetParams),
  E(cuGraphAddChildGraphNode), E(cuGraphClone), E(cuGraphNodeFindInClone), E(cuGraphDestroyNode),
  E(cuGraphInstantiateWithParams), E(cuGraphExecUpdate_v2), E(cuGraphLaunch_ptsz), E(cuEventCreate), E(cuEventDestroy_v2),
  E(cuEventRecord), E(cuEventElapsedTime_v2), E(cuEventSynchronize), E(cuEventQuery), E(cuLaunchHostFunc),
  E(cuModuleLoadData), E(cuModuleLoadDataEx), E(cuModuleLoadFatBinary), E(cuModuleLoad),
  E(cuModuleUnload), E(cuModuleGetFunction), E(cuModuleGetFunctionCount),
  E(cuModuleEnumerateFunctions), E(cuFuncGetName), E(cuFuncGetParamInfo), E(cuFuncGetAttribute), E(cuFuncSetAttribute),
  E(cuFuncSetCacheConfig), E(cuLibraryLoadData), E(cuLibraryLoadFromFile), E(cuLibraryUnload),
  E(cuLibraryGetModule), E(cuLibraryGetKernel), E(cuLibraryGetKernelCount),
  E(cuLibraryEnumerateKernels), E(cuKernelGetFunction), E(cuKernelGetName), E(cuKernelSetAttribute),
  E(cuLinkCreate_v2), E(cuLinkAddData_v2), E(cuLinkComplete), E(cuLinkDestroy), E(cuLaunchKernel),
  E(cuLaunchKernel_ptsz), E(cuLaunchCooperativeKernel), E(cuLaunchCooperativeKernel_ptsz),
  E(cuLaunchKernelEx), E(cuLaunchKernelEx_ptsz), E(cuGetErrorString), E(cuGetErrorName),
  E(cuGetProcAddress), E(cuGetProcAddress_v2),
};
#undef E

static void *by_name(const char *name) {
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    if (!strcmp(table[i].name, name)) return table[i].fn;
  return NULL;
}
/* The function a base name means at `version` with `flags`: the `_ptsz` variant for
 * per-thread default streams, the `_v2` ABI where one exists (cuGetProcAddress itself:
 * `_v2` from CUDA 12.0). */
static void *resolve(const char *symbol, int version, cuuint64_t flags) {
  char name[256];
  void *p = NULL;
  if (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) {
    snprintf(name, sizeof name, "%s_ptsz", symbol);
    if ((p = by_name(name))) return p;
  }
  if (strcmp(symbol, "cuGetProcAddress") || version >= 12000) {
    snprintf(name, sizeof name, "%s_v2", symbol);
    if ((p = by_name(name))) return p;
  }
  return by_name(symbol);
}
CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version, cuuint64_t flags,
                             CUdriverProcAddressQueryResult *status) {
  *pfn = resolve(symbol, version, flags);
  logf_("cuGetProcAddress_v2 %s version=%d flags=%llu found=%d", symbol, version,
        (unsigned long long)flags, *pfn != NULL);
  if (status) *status = *pfn ? CU_GET_PROC_ADDRESS_SUCCESS : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  return *pfn ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}
CUresult cuGetProcAddress(const char *symbol, void **pfn, int version, cuuint64_t flags) {
  *pfn = resolve(symbol, version, flags);
  logf_("cuGetProcAddress %s version=%d flags=%llu found=%d", symbol, version,
        (unsigned long long)flags, *pfn != NULL);
  return *pfn ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}
