/* A stand-in for libamdhip64.so.5 (HIP 5.2) for warptrace's HIP interception test
 * (runtime/preload/tests/hip.rs). The real runtime cannot run without an AMD GPU; this
 * one implements the handful of entry points hip_app.hip and warptrace's hook call, runs
 * no kernel, and writes one line per event to $MOCK_HIP_LOG so the test can check what
 * reached "the runtime": which function each launch named, with how many kernel
 * arguments or `extra` bytes, and whether the appended map argument is a live buffer.
 *
 * Memory is host memory and every stream-ordered call completes at once (a host function
 * runs inside hipLaunchHostFunc). Loaded code objects are copied to
 * $MOCK_HIP_DIR/module-N.hsaco for the test to inspect with llvm-readelf.
 *
 * Environment: MOCK_HIP_LOG (required), MOCK_HIP_DIR, MOCK_HIP_ARCH (gcnArchName,
 * default gfx90a:sramecc+:xnack-), MOCK_HIP_PARAMS ("name=count:kernarg,..." each
 * kernel's explicit argument count and kernarg segment size as compiled: the real
 * runtime reads both from the code object's metadata). A launched function whose kernel
 * descriptor (NAME.kd) has a larger kernarg segment is an instrumented copy: the mock
 * then reads one more kernel argument, the map buffer's address.
 * Built with the HIP 5.2 headers so every signature is checked against them. */
#include <hip/hip_runtime_api.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void logf_(const char *fmt, ...) {
  const char *path = getenv("MOCK_HIP_LOG");
  if (!path) return;
  FILE *f = fopen(path, "a");
  if (!f) return;
  va_list ap;
  va_start(ap, fmt);
  vfprintf(f, fmt, ap);
  va_end(ap);
  fputc('\n', f);
  fclose(f);
}

/* ---- memory ---- */
#define MAX_ALLOCS 256
static void *allocs[MAX_ALLOCS];
static size_t alloc_sizes[MAX_ALLOCS];

static void *track(size_t size) {
  void *p = calloc(1, size ? size : 1);
  for (int i = 0; i < MAX_ALLOCS; i++)
    if (!allocs[i]) { allocs[i] = p; alloc_sizes[i] = size; return p; }
  return p;
}
static int live(void *p) {
  for (int i = 0; i < MAX_ALLOCS; i++) if (p && allocs[i] == p) return 1;
  return 0;
}
static void untrack(void *p) {
  for (int i = 0; i < MAX_ALLOCS; i++) if (p && allocs[i] == p) { allocs[i] = NULL; free(p); }
}

hipError_t hipMalloc(void **p, size_t size) { *p = track(size); return hipSuccess; }
hipError_t hipMallocAsync(void **p, size_t size, hipStream_t s) {
  (void)s; *p = track(size); logf_("hipMallocAsync bytes=%zu", size); return hipSuccess;
}
hipError_t hipFree(void *p) { untrack(p); return hipSuccess; }
hipError_t hipFreeAsync(void *p, hipStream_t s) { (void)s; untrack(p); return hipSuccess; }
hipError_t hipHostMalloc(void **p, size_t size, unsigned int flags) {
  (void)flags; *p = calloc(1, size ? size : 1); return hipSuccess;
}
hipError_t hipMemsetAsync(void *dst, int value, size_t size, hipStream_t s) {
  (void)s; memset(dst, value, size); return hipSuccess;
}
hipError_t hipMemcpyAsync(void *dst, const void *src, size_t size, hipMemcpyKind kind,
                          hipStream_t s) {
  (void)s; memcpy(dst, src, size);
  logf_("hipMemcpyAsync bytes=%zu kind=%d", size, (int)kind);
  return hipSuccess;
}
hipError_t hipLaunchHostFunc(hipStream_t s, hipHostFn_t fn, void *user) {
  (void)s; logf_("hipLaunchHostFunc"); fn(user); return hipSuccess;
}
hipError_t hipStreamIsCapturing(hipStream_t s, hipStreamCaptureStatus *status) {
  (void)s; *status = hipStreamCaptureStatusNone; return hipSuccess;
}
hipError_t hipDeviceSynchronize(void) { return hipSuccess; }
hipError_t hipGetDevice(int *d) { *d = 0; return hipSuccess; }
hipError_t hipRuntimeGetVersion(int *v) { *v = 50221153; return hipSuccess; }
hipError_t hipGetDeviceProperties(hipDeviceProp_t *prop, int device) {
  (void)device;
  memset(prop, 0, sizeof(*prop));
  const char *arch = getenv("MOCK_HIP_ARCH");
  strncpy(prop->name, "mock AMD GPU", sizeof(prop->name) - 1);
  strncpy(prop->gcnArchName, arch ? arch : "gfx90a:sramecc+:xnack-",
          sizeof(prop->gcnArchName) - 1);
  prop->warpSize = 64;
  return hipSuccess;
}

/* ---- registration (the fatbinary path) ---- */
#define MAX_FUNCS 64
static const void *stubs[MAX_FUNCS];
static const char *stub_names[MAX_FUNCS];
static int fatbins;

void **__hipRegisterFatBinary(const void *data) {
  const uint32_t *w = (const uint32_t *)data;
  logf_("__hipRegisterFatBinary magic=%08x version=%u", w[0], w[1]);
  static void *handles[16];
  return &handles[fatbins++ % 16];
}
void __hipRegisterFunction(void **modules, const void *host, char *device_fn,
                           const char *name, unsigned int limit, void *tid, void *bid,
                           void *block, void *grid, int *wsize) {
  (void)modules; (void)device_fn; (void)limit; (void)tid; (void)bid; (void)block;
  (void)grid; (void)wsize;
  for (int i = 0; i < MAX_FUNCS; i++)
    if (!stubs[i]) { stubs[i] = host; stub_names[i] = name; break; }
  logf_("__hipRegisterFunction name=%s", name);
}
void __hipUnregisterFatBinary(void **modules) { (void)modules; }

static dim3 cfg_grid, cfg_block;
static size_t cfg_shared;
static hipStream_t cfg_stream;
hipError_t __hipPushCallConfiguration(dim3 grid, dim3 block, size_t shared, hipStream_t s) {
  cfg_grid = grid; cfg_block = block; cfg_shared = shared; cfg_stream = s; return hipSuccess;
}
hipError_t __hipPopCallConfiguration(dim3 *grid, dim3 *block, size_t *shared,
                                     hipStream_t *s) {
  *grid = cfg_grid; *block = cfg_block; *shared = cfg_shared; *s = cfg_stream;
  return hipSuccess;
}

static const char *stub_name(const void *host) {
  for (int i = 0; i < MAX_FUNCS; i++) if (stubs[i] == host) return stub_names[i];
  return "?";
}

/* A kernel's explicit argument count and compiled kernarg size, from MOCK_HIP_PARAMS. */
static int param_count(const char *name, unsigned *kernarg) {
  const char *spec = getenv("MOCK_HIP_PARAMS");
  size_t len = strlen(name);
  for (const char *p = spec; p && *p;) {
    if (!strncmp(p, name, len) && p[len] == '=') {
      const char *colon = strchr(p, ':');
      *kernarg = colon ? (unsigned)atoi(colon + 1) : 0;
      return atoi(p + len + 1);
    }
    p = strchr(p, ',');
    if (p) p++;
  }
  return -1;
}

hipError_t hipLaunchKernel(const void *f, dim3 grid, dim3 block, void **args, size_t shared,
                           hipStream_t s) {
  (void)args; (void)shared; (void)s;
  logf_("launch api=hipLaunchKernel name=%s grid=%u block=%u", stub_name(f), grid.x, block.x);
  return hipSuccess;
}
hipError_t hipExtLaunchKernel(const void *f, dim3 grid, dim3 block, void **args,
                              size_t shared, hipStream_t s, hipEvent_t start, hipEvent_t stop,
                              int flags) {
  (void)args; (void)shared; (void)s; (void)start; (void)stop; (void)flags;
  logf_("launch api=hipExtLaunchKernel name=%s grid=%u block=%u", stub_name(f), grid.x,
        block.x);
  return hipSuccess;
}

/* ---- modules ---- */
struct mock_module { int id; const unsigned char *image; size_t size; };
struct mock_function { struct mock_module *module; char name[256]; unsigned kernarg; };
static int modules;

static size_t elf_size(const unsigned char *e) {
  uint64_t shoff; uint16_t shentsize, shnum;
  memcpy(&shoff, e + 0x28, 8); memcpy(&shentsize, e + 0x3a, 2); memcpy(&shnum, e + 0x3c, 2);
  return shoff + (size_t)shentsize * shnum;
}
/* The kernarg segment size in the kernel descriptor NAME.kd (offset 8), 0 if absent. */
static unsigned kd_kernarg(const unsigned char *e, size_t n, const char *name) {
  uint64_t shoff; uint16_t shentsize, shnum;
  memcpy(&shoff, e + 0x28, 8); memcpy(&shentsize, e + 0x3a, 2); memcpy(&shnum, e + 0x3c, 2);
  char want[300];
  snprintf(want, sizeof want, "%s.kd", name);
  for (unsigned i = 0; i < shnum; i++) {
    const unsigned char *sh = e + shoff + (size_t)i * shentsize;
    uint32_t type, link; uint64_t off, size, entsize;
    memcpy(&type, sh + 4, 4); memcpy(&off, sh + 0x18, 8); memcpy(&size, sh + 0x20, 8);
    memcpy(&link, sh + 0x28, 4); memcpy(&entsize, sh + 0x38, 8);
    if (type != 2 || !entsize) continue; /* SHT_SYMTAB */
    const unsigned char *strsh = e + shoff + (size_t)link * shentsize;
    uint64_t stroff; memcpy(&stroff, strsh + 0x18, 8);
    for (uint64_t s = 0; s < size / entsize; s++) {
      const unsigned char *sym = e + off + s * entsize;
      uint32_t nameoff; uint16_t shndx; uint64_t value;
      memcpy(&nameoff, sym, 4); memcpy(&shndx, sym + 6, 2); memcpy(&value, sym + 8, 8);
      if (strcmp((const char *)e + stroff + nameoff, want)) continue;
      const unsigned char *ds = e + shoff + (size_t)shndx * shentsize;
      uint64_t addr, doff; memcpy(&addr, ds + 0x10, 8); memcpy(&doff, ds + 0x18, 8);
      uint64_t at = doff + (value - addr) + 8;
      unsigned k = 0;
      if (at + 4 <= n) memcpy(&k, e + at, 4);
      return k;
    }
  }
  return 0;
}

// Both entry points load through here (not through each other, which the preload library
// would intercept twice); the log names the one called.
static hipError_t load_module(hipModule_t *module, const void *image, const char *api) {
  const unsigned char *e = (const unsigned char *)image;
  if (memcmp(e, "\177ELF", 4)) { logf_("%s not-elf", api); return hipErrorInvalidImage; }
  size_t n = elf_size(e);
  struct mock_module *m = calloc(1, sizeof(*m));
  m->id = ++modules;
  m->image = malloc(n);
  memcpy((void *)m->image, e, n);
  m->size = n;
  const char *dir = getenv("MOCK_HIP_DIR");
  if (dir) {
    char path[4096];
    snprintf(path, sizeof path, "%s/module-%d.hsaco", dir, m->id);
    FILE *f = fopen(path, "wb");
    if (f) { fwrite(e, 1, n, f); fclose(f); }
  }
  logf_("%s module=%d bytes=%zu", api, m->id, n);
  *module = (hipModule_t)m;
  return hipSuccess;
}
hipError_t hipModuleLoadData(hipModule_t *module, const void *image) {
  return load_module(module, image, "hipModuleLoadData");
}
hipError_t hipModuleLoadDataEx(hipModule_t *module, const void *image, unsigned int n,
                               hipJitOption *o, void **v) {
  (void)n; (void)o; (void)v;
  return load_module(module, image, "hipModuleLoadDataEx");
}
hipError_t hipModuleUnload(hipModule_t module) {
  logf_("hipModuleUnload module=%d", ((struct mock_module *)module)->id);
  return hipSuccess;
}
hipError_t hipModuleGetFunction(hipFunction_t *f, hipModule_t module, const char *name) {
  struct mock_function *fn = calloc(1, sizeof(*fn));
  fn->module = (struct mock_module *)module;
  strncpy(fn->name, name, sizeof(fn->name) - 1);
  fn->kernarg = kd_kernarg(fn->module->image, fn->module->size, name);
  logf_("hipModuleGetFunction module=%d name=%s kernarg=%u", fn->module->id, name, fn->kernarg);
  *f = (hipFunction_t)fn;
  return hipSuccess;
}

static void log_module_launch(const char *api, hipFunction_t f, void **params, void **extra,
                              unsigned block) {
  struct mock_function *fn = (struct mock_function *)f;
  unsigned compiled = 0;
  int n = param_count(fn->name, &compiled);
  /* An instrumented kernel has one more argument: the map buffer. */
  int instrumented = n >= 0 && fn->kernarg > compiled;
  char detail[512] = "";
  if (params && n >= 0) {
    int total = n + instrumented;
    snprintf(detail, sizeof detail, " params=%d", total);
    if (instrumented) {
      void *map = *(void **)params[n];
      snprintf(detail + strlen(detail), sizeof detail - strlen(detail), " map=%s",
               live(map) ? "live" : "unknown");
    }
  } else if (extra) {
    void *buf = NULL; size_t size = 0;
    for (int i = 0; extra[i] != HIP_LAUNCH_PARAM_END; i += 2) {
      if (extra[i] == HIP_LAUNCH_PARAM_BUFFER_POINTER) buf = extra[i + 1];
      if (extra[i] == HIP_LAUNCH_PARAM_BUFFER_SIZE) size = *(size_t *)extra[i + 1];
    }
    snprintf(detail, sizeof detail, " extra=%zu", size);
    if (instrumented && size >= 8) {
      void *map;
      memcpy(&map, (char *)buf + size - 8, 8);
      snprintf(detail + strlen(detail), sizeof detail - strlen(detail), " map=%s",
               live(map) ? "live" : "unknown");
    }
  }
  logf_("launch api=%s name=%s module=%d kernarg=%u instrumented=%d block=%u%s", api,
        fn->name, fn->module->id, fn->kernarg, instrumented, block, detail);
}

hipError_t hipModuleLaunchKernel(hipFunction_t f, unsigned gx, unsigned gy, unsigned gz,
                                 unsigned bx, unsigned by, unsigned bz, unsigned shared,
                                 hipStream_t s, void **params, void **extra) {
  (void)gx; (void)gy; (void)gz; (void)by; (void)bz; (void)shared; (void)s;
  log_module_launch("hipModuleLaunchKernel", f, params, extra, bx);
  return hipSuccess;
}
hipError_t hipExtModuleLaunchKernel(hipFunction_t f, uint32_t gx, uint32_t gy, uint32_t gz,
                                    uint32_t lx, uint32_t ly, uint32_t lz, size_t shared,
                                    hipStream_t s, void **params, void **extra,
                                    hipEvent_t start, hipEvent_t stop, uint32_t flags) {
  (void)gx; (void)gy; (void)gz; (void)ly; (void)lz; (void)shared; (void)s; (void)start;
  (void)stop; (void)flags;
  log_module_launch("hipExtModuleLaunchKernel", f, params, extra, lx);
  return hipSuccess;
}

/* HIP >= 6.2 only; here so the hook's hipGetProcAddress wrapper is exercised. */
hipError_t hipGetProcAddress(const char *symbol, void **pfn, int version, uint64_t flags,
                             int *status) {
  (void)version; (void)flags;
  if (status) *status = 0;
  if (!strcmp(symbol, "hipModuleLaunchKernel")) { *pfn = (void *)hipModuleLaunchKernel; return hipSuccess; }
  *pfn = NULL;
  return hipErrorNotFound;
}
