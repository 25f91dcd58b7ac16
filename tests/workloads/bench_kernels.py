"""The kernels of the GPU benchmark (scripts/bench-gpu.sh, driver scripts/bench_gpu.py), and
the worker that times them in one process for one configuration.

Kernels (the table's rows; sizes chosen to run ~0.1-1 ms on an H100 and to keep Proton's
per-launch profile buffer under its 64 MiB host-buffer limit):
  matmul_128x128x64  Triton matmul of tests/corpus/src/triton_kernels.py, 4096^3 fp16,
                     128x128x64 tiles, 4 warps, 3 stages (cp.async -> wgmma)
  matmul_64x64x32    the same kernel, 4096^3 fp16, 64x64x32 tiles, 4 warps, 1 stage
                     (ld.global -> wgmma)
  softmax            tutorial 02 softmax, 65536 x 1024 fp32, 2048 programs striding rows
  layernorm          tutorial 05 layer norm forward, 4096 x 32768 fp16
  flash_attn_fwd     flash-attention forward, 32 (batch*heads) x 4096 x 64 fp16
  nvcc_transpose     an nvcc-built CUDA C++ kernel (tiled transpose through shared memory,
                     __syncthreads, bounds checks), 8192 x 8192 fp32, compiled at run time
                     by `nvcc -arch=sm_90a -lineinfo` into a shared library (static cudart,
                     <<<>>> launches: the path of real nvcc programs) called through ctypes

The Triton kernels are imported from the corpus (never copied); their Proton variants are
thin wrappers that call the corpus kernel inside one `proton.language` scope, so Proton's
intra-kernel instrumentation times the whole kernel body (Triton 3.6's Proton records
nothing in a kernel without scopes, and its Triton-DSL scopes need
`pl.enable_semantic("triton")`).

Worker (needs a GPU, torch and Triton; run plain, under `warptrace -p NAME`, or with Proton):
  python3 tests/workloads/bench_kernels.py --out-json FILE [--proton default|clock32]
      [--runs 100] [--warmup 10] [--kernel-only-runs 30] [--kernels a,b] [--nvcc-lib SO]
      [--dump-ptx DIR] [--first-launch-only]
  Per kernel: compile (Triton JIT; `warmup()`, so no launch), load, the first launch and the
  second, each timed on the host between synchronizations (the first carries warptrace's
  instrumentation and JIT), then `--warmup` launches and `--runs` timed ones: CUDA events
  right around each launch on the launch's stream, the L2 flushed before each (256 MiB
  zeroed) behind a ~100 us device spin so the host has enqueued the launch before the GPU
  reaches it, one synchronization per run. Then an output digest (bit-identity across
  configurations) and a check against torch. A second phase re-times each kernel under the
  CUDA profiler (torch.profiler / CUPTI) for the kernel's own duration without what the
  instrumentation adds around it on the stream. The JSON goes to --out-json after each
  phase, so a crash in the second keeps the first. Stderr carries
  `@@bench first-launch-begin|end NAME` markers around each first launch, so the driver can
  attribute the runtime's verbose lines (JIT time, sites) to the kernel.

CPU side (no GPU, no torch; used by the driver's static analysis and --dry-run):
  `cases()` describes every kernel; `cpu_compile(case, proton=None)` compiles a Triton case
  for sm_90a on the CPU with the argument specialization the GPU launch gets, optionally
  with Proton's instrumentation passes installed as `proton.start` installs them;
  `build_nvcc(dir)` builds the nvcc kernel's library and PTX.
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "corpus", "src"))

import triton  # noqa: E402
import triton.language as tl  # noqa: E402
import triton.profiler.language as pl  # noqa: E402
from triton_kernels import flash_attn_fwd, layernorm_fwd, matmul, softmax  # noqa: E402

FLUSH_BYTES = 256 << 20  # > 5x the H100's 50 MB L2 (H200: 60 MB)
SLEEP_CYCLES = 200_000  # ~100 us at 1.98 GHz: the host's head start before each timed run
MAX_SHARED_H100 = 232448  # sm_90 opt-in shared memory per block, for CPU Proton compiles
PROTON_MODES = ("default", "clock32")
PROTON_HOST_BUFFER = 64 << 20  # Proton 3.6 refuses a profile buffer larger than this


# ---- Proton variants: the corpus kernel, whole body in one scope ------------------------

@triton.jit
def matmul_proton(a_ptr, b_ptr, c_ptr, M, N, K,
                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pl.enter_scope("kernel")
    matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
           stride_cm, stride_cn, BM, BN, BK)
    pl.exit_scope("kernel")


@triton.jit
def softmax_proton(out_ptr, in_ptr, in_row_stride, out_row_stride, n_rows, n_cols,
                   BLOCK: tl.constexpr):
    pl.enter_scope("kernel")
    softmax(out_ptr, in_ptr, in_row_stride, out_row_stride, n_rows, n_cols, BLOCK)
    pl.exit_scope("kernel")


@triton.jit
def layernorm_proton(x_ptr, y_ptr, w_ptr, b_ptr, mean_ptr, rstd_ptr, stride, N, eps,
                     BLOCK: tl.constexpr):
    pl.enter_scope("kernel")
    layernorm_fwd(x_ptr, y_ptr, w_ptr, b_ptr, mean_ptr, rstd_ptr, stride, N, eps, BLOCK)
    pl.exit_scope("kernel")


@triton.jit
def flash_attn_proton(q_ptr, k_ptr, v_ptr, o_ptr, sm_scale, seq_len,
                      stride_qh, stride_qm, stride_kh, stride_kn, stride_vh, stride_vn,
                      stride_oh, stride_om,
                      BM: tl.constexpr, BN: tl.constexpr, D: tl.constexpr):
    pl.enter_scope("kernel")
    flash_attn_fwd(q_ptr, k_ptr, v_ptr, o_ptr, sm_scale, seq_len, stride_qh, stride_qm,
                   stride_kh, stride_kn, stride_vh, stride_vn, stride_oh, stride_om, BM, BN, D)
    pl.exit_scope("kernel")


# ---- the nvcc kernel ----------------------------------------------------------------------

NVCC_SOURCE = r"""
// The nvcc kernel of the GPU benchmark (tests/workloads/bench_kernels.py): a tiled
// transpose through shared memory, launched with <<<>>> through the statically linked
// CUDA runtime, as nvcc programs launch.
#include <cuda_runtime.h>
#define TILE 32
#define ROWS 8

__global__ void transpose_tiled(const float *__restrict__ in, float *__restrict__ out, int n) {
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < n && y + j < n) tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * n + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < n && y + j < n) out[(size_t)(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

// Initializes this library's CUDA runtime (so the first launch carries no runtime set-up).
extern "C" int bench_init(void) { return (int)cudaFree(0); }

extern "C" int bench_transpose(const float *in, float *out, int n, void *stream) {
  dim3 block(TILE, ROWS), grid((n + TILE - 1) / TILE, (n + TILE - 1) / TILE);
  transpose_tiled<<<grid, block, 0, (cudaStream_t)stream>>>(in, out, n);
  return (int)cudaGetLastError();
}
"""
NVCC_FLAGS = ["-arch=sm_90a", "-lineinfo", "-O3"]  # as scripts/package-gpu.sh builds nvcc_app
NVCC_ENTRY = "_Z15transpose_tiledPKfPfi"


def find_cuda_tool(name):
    """A CUDA toolkit program: PATH, then $CUDA_HOME/bin, then /usr/local/cuda/bin."""
    import shutil
    for cand in (shutil.which(name),
                 os.path.join(os.environ.get("CUDA_HOME", "/nonexistent"), "bin", name),
                 os.path.join("/usr/local/cuda/bin", name)):
        if cand and os.access(cand, os.X_OK):
            return cand
    return None


def build_nvcc(out_dir, nvcc=None):
    """Builds the nvcc kernel: OUT_DIR/libbench_nvcc.so and OUT_DIR/bench_nvcc.ptx (the
    module's PTX, what the fatbinary embeds). Returns (so, ptx, seconds); raises
    RuntimeError with nvcc's output on failure."""
    nvcc = nvcc or find_cuda_tool("nvcc")
    if not nvcc:
        raise RuntimeError("nvcc not found (PATH, $CUDA_HOME/bin, /usr/local/cuda/bin): the nvcc kernel "
                           "needs the CUDA toolkit")
    os.makedirs(out_dir, exist_ok=True)
    src = os.path.join(out_dir, "bench_nvcc.cu")
    with open(src, "w") as f:
        f.write(NVCC_SOURCE)
    so, ptx = os.path.join(out_dir, "libbench_nvcc.so"), os.path.join(out_dir, "bench_nvcc.ptx")
    extra = []
    # The PyPI toolchain (.tools/, scripts/setup.sh) keeps its libraries in lib/.
    cuda_home = os.environ.get("WARPTRACE_CUDA_HOME")
    if cuda_home and os.path.isdir(os.path.join(cuda_home, "lib")):
        extra = ["-L" + os.path.join(cuda_home, "lib")]
    t0 = time.monotonic()
    for cmd in ([nvcc] + NVCC_FLAGS + ["-shared", "-Xcompiler", "-fPIC"] + extra + ["-o", so, src],
                [nvcc] + NVCC_FLAGS + ["-ptx", "-o", ptx, src]):
        try:
            p = subprocess.run(cmd, capture_output=True, text=True)
        except FileNotFoundError:
            raise RuntimeError(f"{nvcc} not found (the nvcc kernel needs the CUDA toolkit on PATH)")
        if p.returncode != 0:
            raise RuntimeError(f"`{' '.join(cmd)}` failed ({p.returncode}): {p.stderr.strip()[-2000:]}")
    return so, ptx, time.monotonic() - t0


# ---- the cases ----------------------------------------------------------------------------

def T(dtype, *shape, init="randn"):
    """A tensor argument: dtype ('fp16'/'fp32'), shape, initial contents."""
    return ("tensor", dtype, shape, init)


def cases():
    """Every kernel of the benchmark, in table order. A Triton case: its corpus function,
    Proton variant, arguments in order ((name, T(...) | int | float)), constexprs, launch
    options, grid, outputs (checked and digested) and the torch reference check."""
    out = []
    m = n = k = 4096
    for bm, bn, bk, warps, stages in ((128, 128, 64, 4, 3), (64, 64, 32, 4, 1)):
        out.append({
            "name": f"matmul_{bm}x{bn}x{bk}", "kind": "triton", "fn": matmul, "proton_fn": matmul_proton,
            "args": [("a_ptr", T("fp16", m, k)), ("b_ptr", T("fp16", k, n)), ("c_ptr", T("fp16", m, n, init="empty")),
                     ("M", m), ("N", n), ("K", k),
                     ("stride_am", k), ("stride_ak", 1), ("stride_bk", n), ("stride_bn", 1),
                     ("stride_cm", n), ("stride_cn", 1)],
            "constexprs": {"BM": bm, "BN": bn, "BK": bk},
            "options": {"num_warps": warps, "num_stages": stages},
            "grid": (m // bm, n // bn, 1), "outputs": ["c_ptr"], "check": "matmul",
            "what": f"{m}x{n}x{k} fp16, {bm}x{bn}x{bk} tiles, {warps} warps, {stages} stage(s)",
        })
    rows, cols, programs = 65536, 1024, 2048
    out.append({
        "name": "softmax", "kind": "triton", "fn": softmax, "proton_fn": softmax_proton,
        "args": [("out_ptr", T("fp32", rows, cols, init="empty")), ("in_ptr", T("fp32", rows, cols)),
                 ("in_row_stride", cols), ("out_row_stride", cols), ("n_rows", rows), ("n_cols", cols)],
        "constexprs": {"BLOCK": 1024}, "options": {"num_warps": 8},
        "grid": (programs, 1, 1), "outputs": ["out_ptr"], "check": "softmax",
        "what": f"{rows}x{cols} fp32, {programs} programs, 8 warps",
    })
    rows, cols = 4096, 32768
    out.append({
        "name": "layernorm", "kind": "triton", "fn": layernorm_fwd, "proton_fn": layernorm_proton,
        "args": [("x_ptr", T("fp16", rows, cols)), ("y_ptr", T("fp16", rows, cols, init="empty")),
                 ("w_ptr", T("fp16", cols, init="rand")), ("b_ptr", T("fp16", cols)),
                 ("mean_ptr", T("fp32", rows, init="empty")), ("rstd_ptr", T("fp32", rows, init="empty")),
                 ("stride", cols), ("N", cols), ("eps", 1e-5)],
        "constexprs": {"BLOCK": 1024}, "options": {"num_warps": 8},
        "grid": (rows, 1, 1), "outputs": ["y_ptr", "mean_ptr", "rstd_ptr"], "check": "layernorm",
        "what": f"{rows}x{cols} fp16, one program per row, 8 warps",
    })
    bh, s, d = 32, 4096, 64
    out.append({
        "name": "flash_attn_fwd", "kind": "triton", "fn": flash_attn_fwd, "proton_fn": flash_attn_proton,
        "args": [("q_ptr", T("fp16", bh, s, d)), ("k_ptr", T("fp16", bh, s, d)), ("v_ptr", T("fp16", bh, s, d)),
                 ("o_ptr", T("fp16", bh, s, d, init="empty")), ("sm_scale", d ** -0.5), ("seq_len", s),
                 ("stride_qh", s * d), ("stride_qm", d), ("stride_kh", s * d), ("stride_kn", d),
                 ("stride_vh", s * d), ("stride_vn", d), ("stride_oh", s * d), ("stride_om", d)],
        "constexprs": {"BM": 128, "BN": 64, "D": d}, "options": {"num_warps": 4, "num_stages": 2},
        "grid": (s // 128, bh, 1), "outputs": ["o_ptr"], "check": "flash",
        "what": f"{bh} heads x {s} x {d} fp16, non-causal, 128x64 blocks, 4 warps",
    })
    n = 8192
    out.append({
        "name": "nvcc_transpose", "kind": "nvcc", "entry": NVCC_ENTRY, "n": n,
        "grid": (n // 32, n // 32, 1), "block": (32, 8, 1), "match": "transpose_tiled",
        "what": f"{n}x{n} fp32, 32x32 tiles through shared memory, nvcc -arch=sm_90a",
    })
    return out


DTYPE_SIG = {"fp16": "*fp16", "fp32": "*fp32"}
# Integer arguments Triton specializes: 1 becomes a constexpr, multiples of 16 get
# tt.divisibility=16 (as do 16-byte-aligned pointers: every torch allocation here).


def signature(case):
    """(signature, constexprs, attrs) of a Triton case as its GPU launch specializes them."""
    sig, consts, attrs = {}, dict(case["constexprs"]), {}
    for name, v in case["args"]:
        if isinstance(v, tuple):
            sig[name] = DTYPE_SIG[v[1]]
        elif isinstance(v, bool) or isinstance(v, float):
            sig[name] = "fp32"
        elif v == 1:
            sig[name] = "constexpr"
            consts[name] = 1
        else:
            sig[name] = "i32" if -2**31 <= v < 2**31 else "i64"
    for name in case["constexprs"]:
        sig[name] = "constexpr"
    for i, (name, ty) in enumerate(sig.items()):
        v = dict(case["args"]).get(name)
        if ty.startswith("*") or (ty in ("i32", "i64") and v % 16 == 0):
            attrs[(i,)] = [["tt.divisibility", 16]]
    return sig, consts, attrs


def proton_mode(name):
    """The Proton instrumentation mode object of PROTON_MODES[name]."""
    import triton.profiler as proton
    if name == "default":
        return proton.mode.Default()
    if name == "clock32":
        return proton.mode.Default(optimizations="clock32")
    raise ValueError(f"unknown Proton mode {name!r} (one of {', '.join(PROTON_MODES)})")


class _CpuProton:
    """Installs Proton's instrumentation passes for a CPU compile, as
    `proton.start(backend="instrumentation", mode=...)` installs them through
    triton/profiler/hooks/instrumentation.py (InstrumentationHook.activate), which needs a
    device to query; the options of the compile carry the mode string, as JIT launches do."""

    def __init__(self, mode_name):
        self.mode = proton_mode(mode_name)

    def __enter__(self):
        from triton._C.libtriton import passes as triton_passes
        from triton._C.libtriton import proton as triton_proton
        from triton.backends import backends
        from triton.profiler import mode as pmode
        from triton.profiler.flags import flags
        from triton.profiler.hooks.instrumentation import InstrumentationHook, Instrumentation
        md = self.mode

        def to_llvmir(pm):
            long_clk = pmode.Optimize.CLOCK32 not in md.optimizations
            triton_proton.add_convert_proton_to_protongpu(
                pm, md.metric_type, md.sampling_strategy, md.sampling_options, md.granularity,
                md.buffer_strategy, md.buffer_type, md.buffer_size, MAX_SHARED_H100,
                InstrumentationHook.profile_buffer_size, InstrumentationHook.profile_buffer_alignment,
                long_clk)
            triton_passes.common.add_cse(pm)
            if pmode.Optimize.SCHED_STORES in md.optimizations:
                triton_proton.add_schedule_buffer_store(pm)
            triton_proton.add_allocate_proton_shared_memory(pm)

        def to_llvm(pm):
            triton_proton.add_allocate_proton_global_scratch_buffer(pm)
            triton_proton.add_convert_proton_nvidia_gpu_to_llvm(pm)

        self._flags = flags
        self._backend = backends["nvidia"].compiler
        flags.instrumentation_on = True
        pl.enable_semantic("triton")  # a set: idempotent
        self._backend.instrumentation = Instrumentation({"ttgpuir_to_llvmir": to_llvmir,
                                                         "llvmir_to_llvm": to_llvm})
        triton.knobs.compilation.instrumentation_mode = str(md)
        return self

    def __exit__(self, *exc):
        self._backend.instrumentation = {}
        self._flags.instrumentation_on = False
        triton.knobs.compilation.instrumentation_mode = ""


def cpu_compile(case, proton=None):
    """Compiles a Triton case for sm_90a on the CPU (no GPU): the plain corpus kernel, or
    with `proton` ('default' / 'clock32') its Proton variant with Proton's passes. Returns
    (CompiledKernel, seconds)."""
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    sig, consts, attrs = signature(case)
    opts = dict(case["options"])
    fn = case["fn"]
    t0 = time.monotonic()
    if proton:
        with _CpuProton(proton) as cp:
            opts["instrumentation_mode"] = str(cp.mode)
            src = ASTSource(fn=case["proton_fn"], signature=sig, constexprs=consts, attrs=attrs)
            k = triton.compile(src, target=GPUTarget("cuda", 90, 32), options=opts)
    else:
        src = ASTSource(fn=fn, signature=sig, constexprs=consts, attrs=attrs)
        k = triton.compile(src, target=GPUTarget("cuda", 90, 32), options=opts)
    return k, time.monotonic() - t0


# ---- GPU worker ---------------------------------------------------------------------------

def _say(msg):
    sys.stderr.write(f"@@bench {msg}\n")
    sys.stderr.flush()


def _stats(xs):
    s = sorted(xs)
    if not s:
        return {}
    q = lambda f: s[min(len(s) - 1, int(round(f * (len(s) - 1))))]  # noqa: E731
    return {"median_us": q(0.5), "p10_us": q(0.1), "p90_us": q(0.9), "min_us": s[0], "n": len(s)}


class Gpu:
    """Inputs, launches, checks and digests of the cases on the GPU."""

    def __init__(self, args):
        import torch
        self.torch = torch
        self.args = args
        torch.manual_seed(0)
        self.flush = torch.empty(FLUSH_BYTES, dtype=torch.uint8, device="cuda")
        self.nvcc = None
        self.proton = None
        if args.proton:
            import triton.profiler as proton
            pl.enable_semantic("triton")
            self.proton_dir = args.proton_out or os.path.dirname(os.path.abspath(args.out_json))
            self.proton = proton
            self.session = proton.start(os.path.join(self.proton_dir, f"proton-{args.proton}"),
                                        backend="instrumentation", mode=proton_mode(args.proton))

    def tensor(self, spec):
        torch = self.torch
        _, dtype, shape, init = spec
        dt = {"fp16": torch.float16, "fp32": torch.float32}[dtype]
        if init == "empty":
            # Poisoned, so an unwritten element shows in the check.
            return torch.full(shape, float("nan"), dtype=dt, device="cuda")
        if init == "rand":
            return torch.rand(shape, dtype=dt, device="cuda")
        return torch.randn(shape, dtype=dt, device="cuda")

    def setup(self, case):
        """Allocates the case's inputs; returns (launch, outputs dict, info)."""
        torch = self.torch
        if case["kind"] == "nvcc":
            import ctypes
            if self.nvcc is None:
                if not self.args.nvcc_lib:
                    raise RuntimeError("no --nvcc-lib (the driver builds it with nvcc)")
                lib = ctypes.CDLL(os.path.abspath(self.args.nvcc_lib))
                lib.bench_transpose.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p]
                lib.bench_transpose.restype = ctypes.c_int
                rc = lib.bench_init()
                if rc != 0:
                    raise RuntimeError(f"bench_init: cudaError {rc}")
                self.nvcc = lib
            n = case["n"]
            x = torch.randn(n, n, device="cuda", dtype=torch.float32)
            y = torch.full((n, n), float("nan"), device="cuda", dtype=torch.float32)
            lib = self.nvcc

            def launch():
                rc = lib.bench_transpose(x.data_ptr(), y.data_ptr(), n, torch.cuda.current_stream().cuda_stream)
                if rc != 0:
                    raise RuntimeError(f"bench_transpose: cudaError {rc}")
            return launch, {"out": y}, {"inputs": {"in": x}, "entry": case["entry"], "match": case["match"],
                                        "compile_s": 0.0}
        vals, tensors = [], {}
        for name, v in case["args"]:
            if isinstance(v, tuple):
                tensors[name] = self.tensor(v)
                vals.append(tensors[name])
            else:
                vals.append(v)
        fn = case["proton_fn"] if self.proton else case["fn"]
        grid = case["grid"]
        kw = dict(case["constexprs"], **case["options"])
        t0 = time.monotonic()
        compiled = fn.warmup(*vals, grid=grid, **kw)
        compiled._init_handles()  # module load; warptrace instruments at the first launch
        compile_s = time.monotonic() - t0

        def launch():
            fn[grid](*vals, **kw)
        info = {"inputs": tensors, "compiled": compiled, "compile_s": compile_s, "entry": compiled.name,
                "match": compiled.name,
                "n_regs": compiled.n_regs, "n_spills": compiled.n_spills,
                "shared": compiled.metadata.shared,
                "profile_scratch_bytes_per_block": getattr(compiled.metadata, "profile_scratch_size", 0)}
        blocks = grid[0] * grid[1] * grid[2]
        info["profile_scratch_bytes"] = info["profile_scratch_bytes_per_block"] * blocks
        return launch, {n: tensors[n] for n in case["outputs"]}, info

    def sync_time(self, launch):
        torch = self.torch
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        launch()
        torch.cuda.synchronize()
        return (time.perf_counter() - t0) * 1e3

    def timed(self, launch, runs, warmup):
        torch = self.torch
        sleep = getattr(torch.cuda, "_sleep", None)
        for _ in range(warmup):
            self.flush.zero_()
            launch()
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        out = []
        for _ in range(runs):
            if sleep:
                sleep(SLEEP_CYCLES)
            self.flush.zero_()
            start.record()
            launch()
            end.record()
            end.synchronize()
            out.append(start.elapsed_time(end) * 1000.0)
        return out

    def kernel_only(self, launch, runs, match):
        """The kernel's own durations (CUPTI through torch.profiler), and per launch the
        other device work on the stream that is not the flush: memsets and copies."""
        torch = self.torch
        from torch.profiler import ProfilerActivity, profile
        sleep = getattr(torch.cuda, "_sleep", None)
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(runs):
                if sleep:
                    sleep(SLEEP_CYCLES)
                self.flush.zero_()
                launch()
            torch.cuda.synchronize()
        path = os.path.join(os.path.dirname(os.path.abspath(self.args.out_json)),
                            f"trace-{os.getpid()}.json")
        prof.export_chrome_trace(path)
        with open(path) as f:
            events = json.load(f).get("traceEvents", [])
        os.unlink(path)
        # Triton names its kernels plainly; the profiler demangles nvcc's.
        kern = [e["dur"] for e in events if e.get("cat") == "kernel" and match in e.get("name", "")]
        other = {}
        for e in events:
            cat = e.get("cat", "")
            if cat in ("gpu_memcpy", "gpu_memset"):
                nbytes = (e.get("args") or {}).get("bytes")
                if cat == "gpu_memset" and nbytes == FLUSH_BYTES:
                    continue
                key = e.get("name", cat)
                d = other.setdefault(key, {"count": 0, "total_us": 0.0, "bytes": nbytes})
                d["count"] += 1
                d["total_us"] += e.get("dur", 0.0)
        if not kern:
            names = sorted({e.get("name", "") for e in events if e.get("cat") == "kernel"})[:8]
            raise RuntimeError(f"no kernel event named like {match!r} in the CUPTI trace (saw {names})")
        res = _stats(kern)
        res["other_per_launch"] = {k: {"count": v["count"] / runs, "us": v["total_us"] / runs, "bytes": v["bytes"]}
                                   for k, v in other.items()}
        return res

    def digest(self, outs):
        """Bit-exact digest of the outputs, computed on the GPU (integer sums are exact,
        so the digest is deterministic): per output, the sum of its words and a
        position-weighted sum."""
        torch = self.torch
        parts = []
        for name in sorted(outs):
            w = outs[name].contiguous().view(-1)
            w = w.view({2: torch.int16, 4: torch.int32}[w.element_size()]).to(torch.int64)
            cols = 1024
            rows = w.numel() // cols
            head = w[:rows * cols].view(rows, cols)
            cw = torch.arange(1, cols + 1, device=w.device, dtype=torch.int64)
            rw = torch.arange(1, rows + 1, device=w.device, dtype=torch.int64)
            s = [w.sum(), ((head * cw).sum(1) * rw).sum(), w[rows * cols:].sum()]
            parts.append(name + ":" + ":".join(f"{int(v) & 0xffffffffffffffff:016x}" for v in s))
        return ";".join(parts)

    def check(self, case, outs, info):
        """Relative error against torch (float64/float32 reference); every output element
        written (the outputs start as NaN)."""
        torch = self.torch
        F = torch.nn.functional
        t = info["inputs"]
        kind = case.get("check", case["kind"])
        if kind == "matmul":
            ref, got = t["a_ptr"].float() @ t["b_ptr"].float(), outs["c_ptr"].float()
            tol = 1e-2
        elif kind == "softmax":
            ref, got = torch.softmax(t["in_ptr"].double(), dim=1), outs["out_ptr"].double()
            tol = 1e-5
        elif kind == "layernorm":
            x = t["x_ptr"].float()
            ref = F.layer_norm(x, (x.shape[1],), t["w_ptr"].float(), t["b_ptr"].float(), 1e-5)
            got = outs["y_ptr"].float()
            tol = 1e-2
        elif kind == "flash":
            q, k, v = t["q_ptr"], t["k_ptr"], t["v_ptr"]
            ref = F.scaled_dot_product_attention(q[None].float(), k[None].float(), v[None].float())[0]
            got = outs["o_ptr"].float()
            tol = 1e-2
        else:  # nvcc transpose: exact
            ref, got = t["in"].t().contiguous(), outs["out"]
            ok = bool(torch.equal(ref, got))
            return {"relerr": 0.0 if ok else float("nan"), "ok": ok}
        finite = bool(torch.isfinite(got).all())
        err = float((got - ref).norm() / ref.norm())
        return {"relerr": err, "ok": finite and err < tol, "all_written": finite}


def proton_scopes(path):
    """Proton's profile (hatchet JSON): per kernel, the metrics of its `kernel` scope, the
    proof that Proton measured what it was asked to."""
    with open(path) as f:
        data = json.load(f)
    out = {}

    def walk(node, parents):
        name = (node.get("frame") or {}).get("name", "")
        if name == "kernel" and parents:
            m = node.get("metrics") or {}
            out[parents[-1]] = {k: m[k] for k in ("cycles", "normalized_cycles", "count") if k in m}
        for child in node.get("children") or []:
            walk(child, parents + [name])
    for root in data if isinstance(data, list) else [data]:
        walk(root, [])
    return out


def worker(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out-json", required=True)
    ap.add_argument("--proton", choices=PROTON_MODES, help="run the Proton variants under this mode")
    ap.add_argument("--proton-out", help="folder of Proton's profile (default: beside --out-json)")
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--kernel-only-runs", type=int, default=30, help="0: no CUPTI phase")
    ap.add_argument("--kernels", help="comma-separated subset of the cases")
    ap.add_argument("--nvcc-lib", help="libbench_nvcc.so from build_nvcc()")
    ap.add_argument("--dump-ptx", help="folder to write each Triton kernel's PTX into")
    ap.add_argument("--first-launch-only", action="store_true",
                    help="only compile, load and time the first two launches")
    args = ap.parse_args(argv)
    t_start = time.monotonic()
    try:
        import torch
    except ImportError as e:
        sys.exit(f"bench_kernels: torch is required on the GPU machine ({e})")
    if not torch.cuda.is_available():
        sys.exit("bench_kernels: no CUDA device visible to torch")
    want = set(args.kernels.split(",")) if args.kernels else None
    all_cases = [c for c in cases() if want is None or c["name"] in want]
    if want and len(all_cases) != len(want):
        sys.exit(f"bench_kernels: unknown kernels {sorted(want - {c['name'] for c in all_cases})}")
    props = torch.cuda.get_device_properties(0)
    result = {
        "proton": args.proton, "argv": sys.argv, "pid": os.getpid(),
        "device": {"name": props.name, "sm_count": props.multi_processor_count,
                   "cc": f"{props.major}.{props.minor}",
                   "l2_bytes": getattr(props, "L2_cache_size", None),
                   "memory_bytes": props.total_memory},
        "versions": {"torch": torch.__version__, "triton": triton.__version__, "cuda": torch.version.cuda,
                     "python": sys.version.split()[0]},
        "settings": {"runs": args.runs, "warmup": args.warmup, "kernel_only_runs": args.kernel_only_runs,
                     "flush_bytes": FLUSH_BYTES, "sleep_cycles": SLEEP_CYCLES,
                     "first_launch_only": args.first_launch_only},
        "kernels": {},
    }

    def save():
        result["wall_s"] = time.monotonic() - t_start
        tmp = args.out_json + ".tmp"
        with open(tmp, "w") as f:
            json.dump(result, f, indent=1)
        os.replace(tmp, args.out_json)

    gpu = Gpu(args)
    if args.proton:
        result["proton_profile"] = os.path.join(gpu.proton_dir, f"proton-{args.proton}.hatchet")
    live = {}
    for case in all_cases:
        name = case["name"]
        r = result["kernels"][name] = {"ok": False, "what": case["what"]}
        if args.proton and case["kind"] != "triton":
            r["error"] = "n/a: Proton instruments Triton kernels only"
            r["not_applicable"] = True
            continue
        try:
            launch, outs, info = gpu.setup(case)
            launches = 0
            for key in ("entry", "match", "compile_s", "n_regs", "n_spills", "shared", "profile_scratch_bytes",
                        "profile_scratch_bytes_per_block"):
                if key in info:
                    r[key] = info[key]
            r["grid"] = list(case["grid"])
            if args.proton and r.get("profile_scratch_bytes", 0) > PROTON_HOST_BUFFER:
                raise RuntimeError(f"Proton's profile buffer would be {r['profile_scratch_bytes']} bytes, "
                                   f"over its {PROTON_HOST_BUFFER}-byte host buffer")
            if args.dump_ptx and "compiled" in info:
                os.makedirs(args.dump_ptx, exist_ok=True)
                with open(os.path.join(args.dump_ptx, f"{name}.ptx"), "w") as f:
                    f.write(info["compiled"].asm["ptx"])
            _say(f"first-launch-begin {name}")
            r["first_launch_ms"] = gpu.sync_time(launch)
            _say(f"first-launch-end {name}")
            r["second_launch_ms"] = gpu.sync_time(launch)
            launches += 2
            if not args.first_launch_only:
                times = gpu.timed(launch, args.runs, args.warmup)
                launches += args.runs + args.warmup
                r["times_us"] = [round(t, 3) for t in times]
                r.update(_stats(times))
                r["digest"] = gpu.digest(outs)
                r["check"] = gpu.check(case, outs, info)
            r["launches"] = launches
            r["ok"] = True
            live[name] = (launch, info)
        except Exception as e:  # a failing kernel is a row saying why, never a silent skip
            r["error"] = f"{type(e).__name__}: {e}"
            _say(f"error {name}: {r['error']}")
        save()
    if not args.first_launch_only and args.kernel_only_runs > 0:
        for name, (launch, info) in live.items():
            r = result["kernels"][name]
            try:
                r["kernel_only"] = gpu.kernel_only(launch, args.kernel_only_runs, info["match"])
                r["launches"] += args.kernel_only_runs
            except Exception as e:
                r["kernel_only"] = {"error": f"{type(e).__name__}: {e}"}
            save()
    if gpu.proton:
        try:
            gpu.proton.finalize()
            result["proton_finalized"] = True
            result["proton_scopes"] = proton_scopes(result["proton_profile"])
        except Exception as e:
            result["proton_finalized"] = f"{type(e).__name__}: {e}"
    result["done"] = True
    result["finished_at"] = time.time()  # the driver measures warptrace's exit processing from it
    save()
    print(f"bench_kernels: {sum(1 for r in result['kernels'].values() if r['ok'])}/{len(all_cases)} kernels ok, "
          f"{result['wall_s']:.1f} s", file=sys.stderr)


if __name__ == "__main__":
    worker()
