"""The checks issue 6 still asks for, run by scripts/gpu_e2e.py (scripts/gpu-e2e.sh) just
before its table: each appends rows `(workload, kernel, check, expected, got, ok)`.

- numba / cupy: a Numba CUDA kernel and CuPy RawKernels + an ElementwiseKernel
  (tests/workloads/{numba,cupy}_workload.py), plain and under warptrace: outputs
  bit-identical, each kernel instrumented, @blocks = grid, @ldbytes = @ldafter = the
  analytic load bytes. Their kernel names are mangled (Numba) or generated (CuPy), so the
  workloads key their expectations by a substring of the name and the check wants exactly
  one map key containing it. (The Triton softmax and flash-attention forward are in
  tests/workloads/triton_workload.py, checked by gpu_e2e.py's "triton" rows.)
- ncu: Nsight Compute's launch__grid_size, sm__ctas_launched.sum and
  l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum of the uninstrumented nvcc_app and Triton
  vector add against warptrace's @blocks and @ldbytes (see `l1_sector_bytes` for when the
  bytes must be equal); the library probes gmem_bytes (@ld/@st against
  l1tex__t_bytes_pipe_lsu_mem_global_op_{ld,st}.sum on nvcc_app) and tensorop_count (@mma
  against smsp__inst_executed_pipe_tensor_op_{gmma,hmma}.sum on Triton's matmul and
  flash-attention) for issue 8. ncu missing or
  refused (ERR_NVGPUCTRPERM) fails the row, with why.
- outputs: the block-scheduling records (`array(per = warp)`) of nvcc_app with `-o DIR`
  and `--trace FILE`: the files, one CSV row per kept warp record, the saves not kept, one
  Perfetto "X" event per record.
- mp spawn / mp fork: a `multiprocessing` parent with two children (started by spawn, then
  by fork: those leave through os._exit) launching Triton's vector add under
  `-f json -p blocks`: the final summary record lists the parent and both children, each
  with probed launches, and the merged @blocks[vector_add] is the sum of their grids.
- uncoalesced / bank_conflicts: the library probes on the coalescing and bank-conflict
  microbenchmarks of tests/workloads/coalescing.py: per kernel, the summed map entries
  (keyed [kernel, line, pc]) against the workload's model, then against Nsight Compute's
  L1TEX sectors / requests and shared-memory wavefronts / instructions (one ncu run).
- torch.compile: tests/workloads/torch_compile_mlp.py (small) plain twice (the first fills
  Inductor's caches) and under `-v -p blocks`: same digest, every Triton kernel
  instrumented, the kernels without PTX (cuBLAS, ATen) listed as skipped, wall times.

Every check is independent: an exception becomes a failed row. All of them share a time
budget (WARPTRACE_E2E_MORE_BUDGET_S, default 360 s): a command never outlives it, and a
check that finds it spent fails as "not run". Commands go to $OUT/runs.log as gpu_e2e.py's do.
The pure helpers (parsers, the sector model) are tested without a GPU by
scripts/gpu_e2e_more_test.py.
"""
import csv
import glob
import hashlib
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback

N = 1 << 20  # nvcc_app's problem size (gpu_e2e.py's N)
NVCC_LOADS = {"block_sum": N * 4, "scale_add": 2 * N * 4}  # analytic global-load bytes

# Blocks and load bytes, counting generic loads too: Numba and CuPy kernels may read global
# arrays through generic pointers (`ld.f32`); these kernels have no other generic loads.
PROBE_ANY = ("kernel:entry /tid.x == 0 && tid.y == 0 && tid.z == 0/ { @blocks[kernel] = count(); } "
             "mem:global:load { @ldbytes[kernel] = sum(bytes); } "
             "mem:generic:load { @ldbytes[kernel] = sum(bytes); } "
             "after mem:global:load { @ldafter[kernel] = sum(bytes); } "
             "after mem:generic:load { @ldafter[kernel] = sum(bytes); }")

# gpu_e2e.py's PROBE without `after` (blocks and load bytes per kernel), for ncu.
PROBE_NCU = ("kernel:entry /tid.x == 0 && tid.y == 0 && tid.z == 0/ { @blocks[kernel] = count(); } "
             "mem:global:load { @ldbytes[kernel] = sum(bytes); }")
# The same per launch of vector_add (the `launch` builtin numbers a process's launches).
PROBE_NCU_LAUNCH = ("kernel:entry:vector_add /tid.x == 0 && tid.y == 0 && tid.z == 0/ "
                    "{ @blocks[launch] = count(); } "
                    "mem:global:load:vector_add { @ldbytes[launch] = sum(bytes); }")

# The block-scheduling records of docs/language.md, with the kernel for the trace.
SCHED = ("map @sched: array(per = warp, slots = 1); kernel:entry { %t0 = clock64; } "
         "warp kernel:exit { @sched = (%t0, clock64 - %t0, smid, kernel); }")
CLOCK_MHZ = 1980

NCU_METRICS = ("launch__grid_size", "sm__ctas_launched.sum", "l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum",
               "l1tex__t_bytes_pipe_lsu_mem_global_op_st.sum")
# The library probe gmem_bytes against the same counters on nvcc_app: @ld = ncu's load bytes
# (coalesced 4-byte loads fill whole sectors), @st = ncu's store bytes for scale_add (one
# coalesced 4-byte store a thread) and 1/8 of them for block_sum (one 4-byte store a block:
# a 32-byte sector). Analytic (load, store) bytes and the ncu/@st ratio.
NVCC_GMEM = {"block_sum": (N * 4, (N // 256) * 4, 8), "scale_add": (2 * N * 4, N * 4, 1)}

# The library probe features on nvcc_app, analytic per kernel (N elements, 256-thread
# blocks, 8 warps each): block_sum adds partial[t + s] for t < s, s = 128 … 1 (255 add.f32 a
# block), reaches 9 bar.sync a warp (one, then one per halving), loads coalesced and stores
# out[block] from one lane (a single-lane request is coalesced); scale_add does one
# fma.rn.f32 (2 flops) a thread and three coalesced accesses a warp.
NVCC_BLOCKS = N // 256
NVCC_FEATURES = {
    "block_sum": {"flops_f32": 255 * NVCC_BLOCKS, "barriers": 9 * 8 * NVCC_BLOCKS,
                  "gmem_coalesced": 8 * NVCC_BLOCKS + NVCC_BLOCKS, "launches": 1, "local_accesses": 0,
                  "mma_insts": 0, "flops_f64": 0, "flops_f16": 0},
    "scale_add": {"flops_f32": 2 * N, "gmem_coalesced": 3 * 8 * NVCC_BLOCKS, "launches": 1, "local_accesses": 0,
                  "mma_insts": 0, "flops_f64": 0, "flops_f16": 0},
}
# Thread-level FP32 instructions ncu counts in SASS: flops = fadd + fmul + 2 ffma.
FLOP_METRICS = ("smsp__sass_thread_inst_executed_op_fadd_pred_on.sum",
                "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum",
                "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum")

# insn_mix against SASS (the PTX→SASS mapping of docs/probes/insn_mix.md): each of these
# PTX memory instructions is one SASS instruction (LDG, STG, LDS, STS, LDL, STL, ATOM/ATOMG,
# RED, LDSM, LDGSTS, UTMA*), so @mem minus the parameter loads (`ld.param` reads the
# constant bank: no SASS memory instruction) equals their sum; `mma`/`wmma`/`wgmma` are
# the tensor pipe's instructions. Warp-level, executed.
SASS_MEM_METRICS = tuple(f"smsp__sass_inst_executed_op_{op}.sum" for op in (
    "global_ld", "global_st", "shared_ld", "shared_st", "local_ld", "local_st", "atom", "global_red", "ldsm",
    "ldgsts", "tma"))
SASS_TOTAL = "smsp__inst_executed.sum"
SASS_TENSOR = "smsp__inst_executed_pipe_tensor.sum"
# Warp-level parameter loads, which insn_mix counts as memory instructions.
PROBE_PARAM = "warp ptx:ld.param.* { @param[kernel] = count(); }"

E2E_SCRIPT = os.path.join("tests", "workloads", "torch_compile_mlp.py")
GRAPHS_SCRIPT = os.path.join("tests", "workloads", "torch_graphs.py")
GRAPH_REPLAYS = 20
# scale_add's grid in torch_graphs.py: 2^20 elements, 1024 a block.
SCALE_ADD_BLOCKS = 1024
E2E_ARGS = ["--iters", "20", "--tokens", "1024", "--dim", "512", "--layers", "2"]

SECTOR = 32

# The library probes uncoalesced and bank_conflicts on tests/workloads/coalescing.py: per
# quantity, (probe, the workload's model key, the probe's map, the ncu metric counting the
# same, a short label). The maps are keyed [kernel, line, pc]; summed per kernel.
COALESCING = (
    ("uncoalesced", "ld_sectors", "ld_sectors", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "ld sectors"),
    ("uncoalesced", "ld_requests", "ld_requests", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "ld requests"),
    ("uncoalesced", "st_sectors", "st_sectors", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "st sectors"),
    ("uncoalesced", "st_requests", "st_requests", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "st requests"),
    ("bank_conflicts", "sh_ld_wavefronts", "ld_wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
     "ld wavefronts"),
    ("bank_conflicts", "sh_ld_requests", "ld_requests", "smsp__inst_executed_op_shared_ld.sum", "ld insts"),
    ("bank_conflicts", "sh_st_wavefronts", "st_wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
     "st wavefronts"),
    ("bank_conflicts", "sh_st_requests", "st_requests", "smsp__inst_executed_op_shared_st.sum", "st insts"),
)
# ncu's bank conflicts (wavefronts above each instruction's minimum), shown next to the
# model's sh_{ld,st}_conflicts; not compared: the probe has no such map.
CONFLICT_METRICS = ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
                    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum")
COALESCING_METRICS = tuple(c[3] for c in COALESCING) + CONFLICT_METRICS


# ---------------------------------------------------------------------------------------
# Pure helpers (tested by scripts/gpu_e2e_more_test.py)

def cdiv(a, b):
    return (a + b - 1) // b


def parse_ncu_csv(text):
    """The rows of `ncu --csv` (details page: one row per kernel result and metric) as dicts
    keyed by the header: "ID","Process ID","Process Name","Host Name","Kernel Name", …,
    "Metric Name","Metric Unit","Metric Value" (the columns in between vary by version).
    Lines that are not CSV rows of that width (the program's own output, ==PROF== and
    ==WARNING== lines, a repeated header) are skipped."""
    lines = text.splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith('"ID",')), None)
    if start is None:
        return []
    header = next(csv.reader([lines[start]]))
    rows = []
    for line in lines[start + 1:]:
        if not line.startswith('"'):
            continue
        try:
            cells = next(csv.reader([line]))
        except (csv.Error, StopIteration):
            continue
        if len(cells) != len(header) or cells == header:
            continue
        rows.append(dict(zip(header, cells)))
    return rows


_PREFIX = {"K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
_BASE_UNITS = ("byte", "sector", "block", "cta", "request", "inst", "warp", "thread", "cycle")


def ncu_number(value, unit=""):
    """A metric value of ncu's CSV as a number in base units: thousands separators dropped
    ("4,194,304"), a decimal prefix of the unit applied ("4.19 Mbyte" -> 4190000.0, as ncu
    scales without --print-units base); integers stay int. None for "n/a" or empty."""
    v = value.strip().replace(",", "").replace("\u202f", "").replace(" ", "")
    if v.lower() in ("", "n/a", "nan"):
        return None
    num = float(v)
    u = unit.strip()
    if len(u) > 1 and u[0] in _PREFIX and u[1:] in _BASE_UNITS:
        num *= _PREFIX[u[0]]
    r = round(num)
    if abs(num - r) <= 1e-9 * max(1.0, abs(num)) and abs(r) < 2 ** 63:
        return int(r)
    return num


def ncu_results(rows):
    """ncu's rows grouped per profiled launch, in ID order:
    [{"id": 0, "kernel": "block_sum", "pid": "1234", "metrics": {name: value}}, …]."""
    out = {}
    for r in rows:
        rid = int(ncu_number(r.get("ID", "0")) or 0)
        res = out.setdefault(rid, {"id": rid, "kernel": r.get("Kernel Name", ""),
                                   "pid": r.get("Process ID", ""), "metrics": {}})
        name = r.get("Metric Name")
        if name:
            res["metrics"][name] = ncu_number(r.get("Metric Value", ""), r.get("Metric Unit", ""))
    return [out[k] for k in sorted(out)]


def ncu_error(text):
    """Why ncu did not profile, from its output: the first ==ERROR== line (e.g.
    "ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance
    Counters"), or the warning that no kernel was profiled; None if neither."""
    for line in text.splitlines():
        if "==ERROR==" in line or "ERR_NVGPUCTRPERM" in line:
            return line.strip()
    for line in text.splitlines():
        if "==WARNING==" in line and "No kernels were profiled" in line:
            return line.strip()
    return None


def entries(maps, name, kernel):
    """The values of map `name` (parsed by `parse_maps`) whose key is `kernel`'s name."""
    return [v for k, v in maps.get(name, {}).items() if base_name(k) == kernel]


def one_entry(maps, name, kernel):
    """The value of map `name`'s single entry for `kernel` (`entries`), or None when it has
    none or several."""
    found = entries(maps, name, kernel)
    return found[0] if len(found) == 1 else None


def ncu_of(results, kernel):
    """The ncu results (`ncu_results`) of `kernel`."""
    return [r for r in results if base_name(r["kernel"]) == kernel]


def base_name(kernel):
    """A kernel's function name without parameters, template arguments or namespaces:
    "block_sum(float const*, float*, int)" -> "block_sum", "ns::k<int>(int)" -> "k"."""
    name = kernel.split("(")[0].split("<")[0].strip()
    if name.startswith("void "):
        name = name[5:]
    return name.split("::")[-1].strip()


def key_kernel(key, fields):
    """The kernel (first field) of a map key of `fields` fields as the text report prints it,
    the fields joined by ", " ("co_gather, 0, 12" -> "co_gather"). A kernel name may contain
    ", " itself (C++ parameters: "k(float*, int), 0, 12"); the other fields (line, pc) do
    not, so they are split off from the right."""
    return key.rsplit(", ", fields - 1)[0] if fields > 1 else key


def kernel_totals(maps, name, fields=3):
    """{kernel's base name: the sum of its values} for map `name` (parsed by `parse_maps`)
    keyed [kernel, …] with `fields` fields: a kernel's entries (one per line and pc, for
    [kernel, line, pc]) added up."""
    out = {}
    for key, value in maps.get(name, {}).items():
        kernel = base_name(key_kernel(key, fields))
        out[kernel] = out.get(kernel, 0) + value
    return out


def _slash(values):
    return " / ".join("-" if v is None else str(v) for v in values)


def coalescing_rows(probe, expect, maps):
    """Rows for the probe `probe` (COALESCING) on coalescing.py: per kernel with such
    accesses, its summed maps against the workload's model (`expect`, {kernel: {quantity:
    value}}, a quantity left out meaning 0); then one row for the kernels without such
    accesses (no entries may be recorded for them) and for co_* kernels the model lacks."""
    quantities = [(q, name) for p, q, name, _, _ in COALESCING if p == probe]
    got = {name: kernel_totals(maps, name) for _, name in quantities}
    what = " / ".join(f"@{name}" for _, name in quantities) + " = model"
    rows, idle = [], []
    for kernel in sorted(expect):
        want = [expect[kernel].get(q, 0) for q, _ in quantities]
        have = [got[name].get(kernel, 0) for _, name in quantities]
        if any(want):
            rows.append((probe, kernel, what, _slash(want), _slash(have), want == have))
        else:
            idle.append((kernel, have))
    extra = sorted({k for totals in got.values() for k in totals if k.startswith("co_") and k not in expect})
    if idle or extra:
        bad = [f"{k}: {_slash(h)}" for k, h in idle if any(h)] + [f"{k}: not in the model" for k in extra]
        rows.append((probe, f"{len(idle)} other kernels", "no entries for kernels without such accesses", "none",
                     "; ".join(bad) or "none", not bad))
    return rows


def coalescing_ncu_rows(probe, expect, maps, results):
    """Rows comparing ncu (`ncu_results` of coalescing.py's co_* kernels, COALESCING_METRICS)
    to the probe's summed maps, kernel by kernel; a row passes when they are equal and shows
    the model's values too. For bank_conflicts also ncu's bank conflicts against the model's
    (informational). Kernels whose model has none of the probe's accesses share one row:
    ncu must count none either."""
    quantities = [(q, name, metric, label) for p, q, name, metric, label in COALESCING if p == probe]
    got = {name: kernel_totals(maps, name) for _, name, _, _ in quantities}
    what = "ncu " + " / ".join(label for *_, label in quantities) + " = warptrace"
    rows, idle = [], []
    for kernel in sorted(expect):
        want = [expect[kernel].get(q, 0) for q, _, _, _ in quantities]
        have = [got[name].get(kernel, 0) for _, name, _, _ in quantities]
        mine = ncu_of(results, kernel)
        if len(mine) != 1:
            rows.append((f"ncu:{probe}", kernel, "one ncu result", "1", str(len(mine)), False))
            continue
        m = mine[0]["metrics"]
        ncu = [m.get(metric) for _, _, metric, _ in quantities]
        if not any(want):
            idle.append((kernel, have, ncu))
            continue
        extra = ""
        if probe == "bank_conflicts":
            model = [expect[kernel].get(f"sh_{op}_conflicts", 0) for op in ("ld", "st")]
            extra = (f"; conflicts ld / st {_slash(m.get(c) for c in CONFLICT_METRICS)} "
                     f"(model {_slash(model)})")
        rows.append((f"ncu:{probe}", kernel, what, f"@ {_slash(have)} (model {_slash(want)})",
                     f"ncu {_slash(ncu)}{extra}", ncu == have))
    if idle:
        bad = [f"{k}: ncu {_slash(n)}, @ {_slash(h)}" for k, h, n in idle if any(h) or any(n)]
        rows.append((f"ncu:{probe}", f"{len(idle)} other kernels", "none counted by ncu or warptrace", "0",
                     "; ".join(bad) or "none", not bad))
    return rows


def l1_sector_bytes(requests):
    """The L1TEX bytes Nsight Compute counts for global loads
    (l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum = sectors x 32 bytes): every warp-level
    load request counts each distinct 32-byte sector its active lanes touch, once.
    `requests` is an iterable of requests, each a list of (address, size) per active lane;
    a request with no active lane (fully masked) is not issued and counts nothing.

    So ncu's bytes equal the bytes the lanes read (warptrace's `sum(bytes)`) exactly when
    every request reads whole sectors, each once: coalesced, 32-byte-aligned accesses, as
    nvcc_app's loads (a warp reads 32 consecutive floats, 128 aligned bytes) and Triton's
    16-byte vector loads are. Lanes that leave part of a sector unused (strided lanes, a
    misaligned or partial tail) make ncu's count larger; lanes that share a sector within
    one request do not multiply it."""
    total = 0
    for req in requests:
        sectors = set()
        for addr, size in req:
            sectors.update(range(addr // SECTOR, (addr + size - 1) // SECTOR + 1))
        total += len(sectors) * SECTOR
    return total


def triton_vector_add_requests(n, base=0, block=1024, warps=4, per_thread=4, elem=4, vector=False):
    """The load requests of one input array of tests/corpus/src's Triton vector_add
    (BLOCK=1024, 4 warps), as its sm_90a PTX issues them: thread t of a CTA owns elements
    rep * 512 + 4t … 4t + 3 (rep = 0, 1) and loads them with one ld.global.v4.b32 when
    Triton knows n is a multiple of 16 (`vector`), else with 4 predicated scalar
    ld.global.b32, the j-th of each thread being one warp request with lanes 16 bytes
    apart. `base`: the array's address (the CUDA allocator's are 512-byte aligned)."""
    span = warps * 32 * per_thread
    for b in range(cdiv(n, block)):
        for rep in range(block // span):
            for w in range(warps):
                first = [b * block + rep * span + (w * 32 + lane) * per_thread for lane in range(32)]
                if vector:
                    yield [(base + e * elem, per_thread * elem) for e in first if e < n]
                else:
                    for j in range(per_thread):
                        yield [(base + (e + j) * elem, elem) for e in first if e + j < n]


def vector_add_ncu_bytes(n):
    """ncu's L1 global-load bytes for one vector_add launch on n floats: two input arrays
    of the same layout, vector loads iff n is a multiple of 16 (Triton's specialization)."""
    return 2 * l1_sector_bytes(triton_vector_add_requests(n, vector=n % 16 == 0))


def json_records(stdout):
    """The NDJSON records of `warptrace -f json` in stdout (lines that are JSON objects
    with a "type"); the traced program's own lines are left out."""
    out = []
    for line in stdout.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if isinstance(obj, dict) and "type" in obj:
            out.append(obj)
    return out


def json_maps(records):
    """{"@blocks": {key: value} or value, …} from the "map" records."""
    maps = {}
    for r in records:
        if r.get("type") == "map" and isinstance(r.get("data"), dict):
            maps.update(r["data"])
    return maps


def json_summary(records):
    """The data of the last {"type": "summary"} record, or None."""
    found = [r.get("data") for r in records if r.get("type") == "summary"]
    return found[-1] if found else None


def program_json(stdout):
    """The last line of stdout that is a JSON object without "type" (what a workload prints
    after warptrace's records have been left out), or None."""
    for line in reversed(stdout.splitlines()):
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if isinstance(obj, dict) and "type" not in obj:
            return obj
    return None


KERNEL_STATE = re.compile(r"^warptrace:\s+(.+?): (instrumented, \d+ sites|skipped: .*?); "
                          r"(\d+) launch(?:es)? probed, (\d+) unprobed\s*$")


def kernel_states(stderr):
    """The `-v` summary's kernel lines (`warptrace:   NAME: instrumented, 3 sites; 1 launches
    probed, 0 unprobed` or `…: skipped: no PTX: DETAIL; 0 launches probed, 2 unprobed`) as
    (name, state, probed, unprobed), each kernel once (the per-pid sections repeat them)."""
    seen, out = set(), []
    for line in stderr.splitlines():
        m = KERNEL_STATE.match(line)
        if m and m.group(1) not in seen:
            seen.add(m.group(1))
            out.append((m.group(1), m.group(2), int(m.group(3)), int(m.group(4))))
    return out


def summary_counts(stderr):
    """The first summary line's counters (`warptrace: 5 kernels instrumented, 35 skipped (no
    PTX: 35), 852 launches probed, 1781 unprobed …`) as a dict with the line, or None."""
    for line in stderr.splitlines():
        m = re.match(r"^warptrace: (\d+) kernels? instrumented, (\d+) skipped", line)
        if not m:
            continue
        get = lambda pat: int(x.group(1)) if (x := re.search(pat, line)) else 0  # noqa: E731
        return {"instrumented": int(m.group(1)), "skipped": int(m.group(2)),
                "no_ptx": get(r"no PTX: (\d+)"), "probed": get(r"(\d+) launch(?:es)? probed"),
                "unprobed": get(r"(\d+) unprobed"), "line": line.strip()}
    return None


def by_substring(entries, sub):
    """The (key, value) pairs of a map whose key contains `sub`."""
    return [(k, v) for k, v in entries.items() if sub in k]


def record_rows(csv_text):
    """A record table of `-o DIR` (pid,launch,block,warp,slot,field0…) as dicts."""
    return list(csv.DictReader(io.StringIO(csv_text)))


def trace_events(trace):
    """The complete ("X") events of a Chrome/Perfetto trace object."""
    return [e for e in trace.get("traceEvents", []) if e.get("ph") == "X"]


# ---------------------------------------------------------------------------------------
# Running commands

class Budget:
    """The time left to these checks: every command's timeout is cut to it. Unlimited until
    run_all starts it."""

    def __init__(self):
        self.deadline = None

    def start(self, seconds):
        self.deadline = time.monotonic() + seconds

    def left(self):
        return float("inf") if self.deadline is None else self.deadline - time.monotonic()


BUDGET = Budget()
BUDGET_S = float(os.environ.get("WARPTRACE_E2E_MORE_BUDGET_S", "360"))


class Spent(Exception):
    """The shared time budget is spent: the check did not run."""


def run_t(cmd, out_dir, env=None, timeout=180):
    """Runs cmd (in its own process group, so a timeout ends the traced program too, not only
    warptrace) with at most `timeout` seconds and what is left of the budget; returns
    (CompletedProcess, seconds). A timeout returns exit status 124. Logged to runs.log."""
    if BUDGET.left() < 5:
        raise Spent(f"time budget spent before `{' '.join(cmd[:3])} …`")
    limit = min(timeout, BUDGET.left())
    t0 = time.monotonic()
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                errors="replace", env=env, start_new_session=True)
    except OSError as e:
        p = subprocess.CompletedProcess(cmd, 127, "", f"cannot run {cmd[0]}: {e}")
    else:
        try:
            so, se = proc.communicate(timeout=limit)
            rc = proc.returncode
        except subprocess.TimeoutExpired:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except OSError:
                pass
            so, se = proc.communicate()
            rc = 124
            se += f"\n[gpu_e2e_more: killed after {limit:.0f} s]"
        p = subprocess.CompletedProcess(cmd, rc, so, se)
    dt = time.monotonic() - t0
    with open(os.path.join(out_dir, "runs.log"), "a") as f:
        f.write(f"$ {' '.join(cmd)}\nexit {p.returncode}, {dt:.2f}s\n--- stdout\n{p.stdout}\n"
                f"--- stderr\n{p.stderr}\n")
    return p, dt


def same_bytes(a, b):
    if not (os.path.exists(a) and os.path.exists(b)):
        return False
    with open(a, "rb") as fa, open(b, "rb") as fb:
        return fa.read() == fb.read()


def why(p):
    """A short reason for a failed command: its exit status and last stderr line."""
    tail = [l for l in p.stderr.splitlines() if l.strip()]
    return f"exit {p.returncode}" + (f": {tail[-1].strip()[:120]}" if tail else "")


def summary_text(stderr):
    lines = stderr.splitlines()
    starts = [i for i, l in enumerate(lines) if "kernels instrumented" in l or "kernel instrumented" in l]
    return "\n".join(lines[starts[0]:]) if starts else "no warptrace summary line"


MAP_LINE = re.compile(r"^@(\w+)\[(.*)\]: (-?\d+)$")


def parse_maps(stdout):
    """Keyed maps of the text output, as gpu_e2e.parse_maps reads them: {map: {key: value}}."""
    maps = {}
    for line in stdout.splitlines():
        m = MAP_LINE.match(line.strip())
        if m:
            maps.setdefault(m.group(1), {})[m.group(2)] = int(m.group(3))
    return maps


def read_json(path):
    with open(path) as fh:
        return json.load(fh)


def read_text(path):
    with open(path) as fh:
        return fh.read()


# ---------------------------------------------------------------------------------------
# The checks

def check_framework(label, script, args, rows, work, wt):
    """A framework workload (Numba, CuPy) plain and under PROBE_ANY, its expectations keyed
    by a substring of each kernel's name (the workload's last stdout line)."""
    ref, out = f"{work}/{label}_ref.bin", f"{work}/{label}_wt.bin"
    p0, t0 = run_t([sys.executable, script, ref], args.out, timeout=150)
    if p0.returncode != 0:
        rows.append((label, "-", "plain run", "exit 0", why(p0), False))
        return
    expect = program_json(p0.stdout)
    if not expect:
        rows.append((label, "-", "expectations printed", "a JSON line", "none", False))
        return
    p1, t1 = run_t([wt, "-v", "-e", PROBE_ANY, "--", sys.executable, script, out], args.out, timeout=150)
    rows.append((label, "-", "exit status", "0", why(p1) if p1.returncode else "0", p1.returncode == 0))
    same = p1.returncode == 0 and same_bytes(ref, out)
    rows.append((label, "-", "output bit-identical", "yes", "yes" if same else "no", same))
    maps = parse_maps(p1.stdout)
    states = kernel_states(p1.stderr)
    for sub, want in expect.items():
        st = [s for s in states if sub in s[0]]
        if len(st) == 1:
            name, state, probed, unprobed = st[0]
            got = f"{state}; {probed} probed, {unprobed} unprobed"
            ok = state.startswith("instrumented") and probed >= 1
        else:
            got, ok = f"{len(st)} kernels named *{sub}* in the -v summary", False
        rows.append((label, sub, "kernel instrumented (-v)", "instrumented, probed", got, ok))
        for metric, key in (("blocks", "blocks"), ("ldbytes", "ldbytes"), ("ldafter", "ldbytes")):
            if key not in want:
                continue
            hits = by_substring(maps.get(metric, {}), sub)
            value = hits[0][1] if len(hits) == 1 else None
            got = str(value) if len(hits) == 1 else (f"{len(hits)} keys contain '{sub}'" if hits else "None")
            rows.append((label, sub, metric, str(want[key]), got, value == want[key]))
    rows.append((label, "-", "wall s plain/warptrace", f"{t0:.2f}", f"{t1:.2f}", True))
    print(f"[{label}]", summary_text(p1.stderr))


def check_numba(args, rows, work, wt):
    check_framework("numba", os.path.join("tests", "workloads", "numba_workload.py"), args, rows, work, wt)


def check_cupy(args, rows, work, wt):
    check_framework("cupy", os.path.join("tests", "workloads", "cupy_workload.py"), args, rows, work, wt)


def find_ncu():
    found = shutil.which("ncu")
    if found:
        return found
    for pattern in ("/usr/local/cuda/bin/ncu", "/usr/local/cuda-*/bin/ncu", "/opt/nvidia/nsight-compute/*/ncu",
                    "/usr/local/NVIDIA-Nsight-Compute*/ncu"):
        hits = sorted(glob.glob(pattern))
        if hits:
            return hits[-1]
    return None


def ncu_profile(ncu, label, target, args, extra=(), metrics=NCU_METRICS):
    """Runs ncu on `target` (uninstrumented) for `metrics`; returns (results, None) or
    (None, why)."""
    cmd = [ncu, "--csv", "--page", "details", "--print-units", "base", "--print-kernel-base", "function",
           "--metrics", ",".join(metrics), *extra, *target]
    p, _ = run_t(cmd, args.out, timeout=150)
    results = ncu_results(parse_ncu_csv(p.stdout)) or ncu_results(parse_ncu_csv(p.stdout + "\n" + p.stderr))
    err = ncu_error(p.stdout + "\n" + p.stderr)
    if err and not results:
        return None, err[:160]
    if p.returncode != 0 and not results:
        return None, why(p)
    if not results:
        return None, "no CSV rows in ncu's output"
    missing = [m for m in metrics if any(m not in r["metrics"] or r["metrics"][m] is None for r in results)]
    if missing:
        return None, f"ncu gave no value for {', '.join(missing)}"
    print(f"[{label}] ncu:", "; ".join(f"{r['kernel']}#{r['id']} " + ", ".join(f"{k}={v}" for k, v in r["metrics"].items())
                                    for r in results))
    return results, None


def check_ncu(args, rows, work, wt):
    """Nsight Compute against warptrace, kernel by kernel (nvcc_app) and launch by launch
    (Triton vector add at two sizes): grid size = CTAs launched = @blocks, and L1 global-
    load bytes against @ldbytes — equal for coalesced, 32-byte-aligned loads (nvcc_app,
    Triton's vector loads), 4x for the scalar loads whose lanes are 16 bytes apart
    (l1_sector_bytes)."""
    ncu = find_ncu()
    if not ncu:
        for w in ("ncu:nvcc_app", "ncu:vector_add"):
            rows.append((w, "-", "Nsight Compute profiles", "ncu runs", "ncu not found (PATH, /usr/local/cuda*/bin, "
                         "/opt/nvidia/nsight-compute/*)", False))
        return
    for sub in (ncu_nvcc, ncu_vector_add, ncu_tensorop):
        try:
            sub(ncu, args, rows, work, wt)
        except Spent:
            raise
        except Exception as e:  # noqa: BLE001 -- one comparison's failure must not stop the other
            traceback.print_exc(file=sys.stdout)
            rows.append((f"ncu:{sub.__name__[4:]}", "-", "check ran", "no exception", f"{type(e).__name__}: {e}"[:200],
                         False))


def ncu_nvcc(ncu, args, rows, work, wt):
    app = os.path.join(args.bin, "nvcc_app")
    results, err = ncu_profile(ncu, "ncu:nvcc_app", [app, f"{work}/ncu_nvcc.bin"], args,
                               metrics=NCU_METRICS + FLOP_METRICS + SASS_MEM_METRICS + (SASS_TOTAL, SASS_TENSOR))
    if err:
        rows.append(("ncu:nvcc_app", "-", "Nsight Compute profiles", "ncu runs, metrics read", err, False))
        return
    p, _ = run_t([wt, "-e", PROBE_NCU, "--", app, f"{work}/ncu_nvcc_wt.bin"], args.out)
    maps = parse_maps(p.stdout)
    for kernel, analytic in NVCC_LOADS.items():
        mine = ncu_of(results, kernel)
        wt_blocks, wt_bytes = entries(maps, "blocks", kernel), entries(maps, "ldbytes", kernel)
        if len(mine) != 1 or len(wt_blocks) != 1 or len(wt_bytes) != 1:
            rows.append(("ncu:nvcc_app", kernel, "one ncu result, one warptrace entry", "1 / 1",
                         f"{len(mine)} / {len(wt_blocks)}", False))
            continue
        m = mine[0]["metrics"]
        grid, ctas, l1, _ = (m[k] for k in NCU_METRICS)
        rows.append(("ncu:nvcc_app", kernel, "ncu grid = CTAs = @blocks", str(N // 256),
                     f"ncu {grid} / {ctas}, @blocks {wt_blocks[0]}", grid == ctas == wt_blocks[0] == N // 256))
        rows.append(("ncu:nvcc_app", kernel, "ncu L1 ld bytes = @ldbytes (coalesced)", str(analytic),
                     f"ncu {l1}, @ldbytes {wt_bytes[0]}", l1 == wt_bytes[0] == analytic))
    # The library probe gmem_bytes (issue 8): its @ld/@st against the same profile.
    p, _ = run_t([wt, "-p", "gmem_bytes", "--", app, f"{work}/ncu_nvcc_gmem.bin"], args.out)
    maps = parse_maps(p.stdout)
    for kernel, (ld_bytes, st_bytes, ratio) in NVCC_GMEM.items():
        mine = ncu_of(results, kernel)
        ld, st = entries(maps, "ld", kernel), entries(maps, "st", kernel)
        if len(mine) != 1 or len(ld) != 1 or len(st) != 1:
            rows.append(("ncu:gmem_bytes", kernel, "one ncu result, @ld and @st entries", "1 / 1 / 1",
                         f"{len(mine)} / {len(ld)} / {len(st)} ({why(p)})", False))
            continue
        m = mine[0]["metrics"]
        ncu_ld, ncu_st = m[NCU_METRICS[2]], m[NCU_METRICS[3]]
        rows.append(("ncu:gmem_bytes", kernel, "-p gmem_bytes: @ld = ncu L1 ld bytes", str(ld_bytes),
                     f"ncu {ncu_ld}, @ld {ld[0]}", ncu_ld == ld[0] == ld_bytes))
        rows.append(("ncu:gmem_bytes", kernel, "-p gmem_bytes: @st vs ncu L1 st bytes",
                     f"@st {st_bytes}, ncu {ratio} x @st" + (" (a 4-byte store fills a 32-byte sector)"
                                                             if ratio > 1 else ""),
                     f"ncu {ncu_st}, @st {st[0]}", st[0] == st_bytes and ncu_st == ratio * st[0]))
    nvcc_features(args, rows, work, wt, app, results)
    nvcc_insn_mix(args, rows, work, wt, app, results)


def sass_memory(metrics):
    """Warp-level SASS memory instructions executed (SASS_MEM_METRICS summed), or None."""
    values = [metrics.get(k) for k in SASS_MEM_METRICS]
    return None if None in values else sum(values)


def nvcc_insn_mix(args, rows, work, wt, app, results):
    """The library probe insn_mix on nvcc_app against the SASS the kernels ran (issue 8:
    classes agree within a documented PTX→SASS mapping): @mem minus the parameter loads
    equals ncu's SASS memory instructions, @tensor the tensor pipe's (none here), and
    @insns against all SASS instructions is shown as a ratio (ptxas adds and removes
    moves, address arithmetic and branches: no exact mapping)."""
    p, _ = run_t([wt, "-p", "insn_mix", "--", app, f"{work}/ncu_nvcc_mix.bin"], args.out)
    mix = parse_maps(p.stdout)
    q, _ = run_t([wt, "-e", PROBE_PARAM, "--", app, f"{work}/ncu_nvcc_param.bin"], args.out)
    param = parse_maps(q.stdout)
    for kernel in NVCC_LOADS:
        mine = ncu_of(results, kernel)
        m = mine[0]["metrics"] if len(mine) == 1 else {}
        mem, prm = one_entry(mix, "mem", kernel), one_entry(param, "param", kernel)
        tensor, insns = one_entry(mix, "tensor", kernel), one_entry(mix, "insns", kernel)
        sass = sass_memory(m)
        ptx_mem = None if mem is None or prm is None else mem - prm
        rows.append(("ncu:insn_mix", kernel, "@mem - ld.param = SASS memory instructions (warp-level)",
                     f"ncu {sass}", f"@mem {mem} - @param {prm} = {ptx_mem}" + ("" if p.returncode == 0 else
                                                                                f" ({why(p)})"),
                     sass is not None and ptx_mem == sass))
        rows.append(("ncu:insn_mix", kernel, "@tensor = SASS tensor-pipe instructions", f"ncu {m.get(SASS_TENSOR)}",
                     f"@tensor {tensor or 0}", (tensor or 0) == m.get(SASS_TENSOR)))
        total = m.get(SASS_TOTAL)
        ratio = f"{total / insns:.2f}" if total and insns else "-"
        rows.append(("ncu:insn_mix", kernel, "SASS / PTX instructions (informational)", "-",
                     f"ncu {total}, @insns {insns}: {ratio} SASS per PTX", insns is not None))


def sass_flops(metrics):
    """FP32 flops from ncu's thread-level SASS counts (FLOP_METRICS): fadd + fmul + 2 ffma."""
    fadd, fmul, ffma = (metrics.get(k) for k in FLOP_METRICS)
    return None if None in (fadd, fmul, ffma) else fadd + fmul + 2 * ffma


def nvcc_features(args, rows, work, wt, app, results):
    """The library probe features on nvcc_app (`-o DIR`): each map against NVCC_FEATURES,
    @flops_f32 also against ncu's SASS FP32 counts, and per-kernel.csv holding a row per
    kernel with every map's value."""
    odir = f"{work}/features"
    p, _ = run_t([wt, "-o", odir, "-p", "features", "--", app, f"{work}/ncu_nvcc_features.bin"], args.out)
    maps = parse_maps(p.stdout)
    table = {}
    if os.path.exists(f"{odir}/per-kernel.csv"):
        with open(f"{odir}/per-kernel.csv", newline="") as f:
            table = {base_name(r["kernel"]): r for r in csv.DictReader(f)}
    for kernel, want in NVCC_FEATURES.items():
        got = {name: entries(maps, name, kernel) for name in want}
        ok = all(got[name] == [value] for name, value in want.items())
        rows.append(("features", kernel, "maps = analytic", ", ".join(f"{k} {v}" for k, v in want.items()),
                     ", ".join(f"{k} {got[k][0] if len(got[k]) == 1 else got[k]}" for k in want)
                     + ("" if p.returncode == 0 else f" ({why(p)})"), ok))
        mine = ncu_of(results, kernel)
        flops = sass_flops(mine[0]["metrics"]) if len(mine) == 1 else None
        f32 = one_entry(maps, "flops_f32", kernel)
        rows.append(("ncu:features", kernel, "@flops_f32 = ncu fadd + fmul + 2 ffma (SASS, thread-level)",
                     str(want["flops_f32"]), f"ncu {flops}, @flops_f32 {f32}", flops == f32 == want["flops_f32"]))
        row = table.get(kernel, {})
        cells = {name: row.get(f"@{name}") for name in want}
        rows.append(("features", kernel, "-o DIR per-kernel.csv: the kernel's row", "every map's value",
                     ", ".join(f"{k} {v}" for k, v in cells.items()),
                     all(cells[k] == str(v) for k, v in want.items())))


# Warp-level tensor-core instructions executed (Hopper's wgmma, and mma/wmma).
TENSOR_METRICS = ("smsp__inst_executed_pipe_tensor_op_gmma.sum", "smsp__inst_executed_pipe_tensor_op_hmma.sum")


def ncu_tensorop(ncu, args, rows, work, wt):
    """The library probe tensorop_count (`warp tensor:mma { @mma[kernel] = count(); }`: one
    count a warp a matrix instruction) against the warp-level tensor instructions ncu counts
    in the uninstrumented Triton matmul and flash-attention (wgmma) of triton_workload.py."""
    script = os.path.join("tests", "workloads", "triton_workload.py")
    results, err = ncu_profile(ncu, "ncu:tensorop_count", [sys.executable, script, f"{work}/ncu_tri.bin"], args,
                               extra=("--kernel-name", "regex:^(matmul|flash_attn_fwd)$"), metrics=TENSOR_METRICS)
    if err:
        rows.append(("ncu:tensorop_count", "-", "Nsight Compute profiles", "ncu runs, metrics read", err, False))
        return
    p, _ = run_t([wt, "-p", "tensorop_count", "--", sys.executable, script, f"{work}/ncu_tri_wt.bin"], args.out)
    maps = parse_maps(p.stdout)
    for kernel in ("matmul", "flash_attn_fwd"):
        mine = ncu_of(results, kernel)
        got = entries(maps, "mma", kernel)
        if len(mine) != 1 or len(got) != 1:
            rows.append(("ncu:tensorop_count", kernel, "one ncu result, one @mma entry", "1 / 1",
                         f"{len(mine)} / {len(got)} ({why(p)})", False))
            continue
        m = mine[0]["metrics"]
        gmma, hmma = (m[k] for k in TENSOR_METRICS)
        # On sm_90 the hmma counter includes the wgmma (gmma) instructions.
        rows.append(("ncu:tensorop_count", kernel, "-p tensorop_count: @mma = ncu tensor instructions",
                     "ncu hmma (which counts gmma too)", f"ncu gmma {gmma}, hmma {hmma}; @mma {got[0]}",
                     got[0] == hmma and gmma <= hmma))
    # insn_mix's tensor class: the same instructions, counted by its class probes. Its sites
    # are one snippet per straight-line piece (decision 0048), which brings the flash
    # attention within the default JIT budget (decision 0045 refused it with a snippet per
    # site): it must be probed under the default, with the counts ncu gives.
    p, _ = run_t([wt, "-v", "-p", "insn_mix", "--", sys.executable, script, f"{work}/ncu_tri_mix.bin"],
                 args.out)
    over = [l for l in p.stderr.splitlines() if "flash_attn_fwd" in l and "budget" in l]
    rows.append(("ncu:insn_mix", "flash_attn_fwd", "default --jit-budget: grouped sites, probed",
                 "no over-budget line", over[0].strip()[:90] if over else "none", p.returncode == 0 and not over))
    mix = parse_maps(p.stdout)
    for kernel in ("matmul", "flash_attn_fwd"):
        mine = ncu_of(results, kernel)
        got = entries(mix, "tensor", kernel)
        hmma = mine[0]["metrics"][TENSOR_METRICS[1]] if len(mine) == 1 else None
        rows.append(("ncu:insn_mix", kernel, "-p insn_mix: @tensor = ncu tensor instructions", f"ncu hmma {hmma}",
                     f"@tensor {got[0] if len(got) == 1 else got} ({why(p)})" if p.returncode else
                     f"@tensor {got[0] if len(got) == 1 else got}", len(got) == 1 and got[0] == hmma))


def ncu_vector_add(ncu, args, rows, work, wt):
    script = os.path.join("tests", "workloads", "ncu_vector_add.py")
    results, err = ncu_profile(ncu, "ncu:vector_add", [sys.executable, script, f"{work}/ncu_va.bin"], args,
                               extra=("--kernel-name", "vector_add"))
    if err:
        rows.append(("ncu:vector_add", "-", "Nsight Compute profiles", "ncu runs, metrics read", err, False))
        return
    p, _ = run_t([wt, "-e", PROBE_NCU_LAUNCH, "--", sys.executable, script, f"{work}/ncu_va_wt.bin"], args.out)
    launches = (program_json(p.stdout) or {}).get("launches", [])
    maps = parse_maps(p.stdout)
    keys = sorted(maps.get("blocks", {}), key=lambda k: int(k))
    mine = ncu_of(results, "vector_add")
    if not (len(launches) == len(mine) == len(keys) == 2):
        rows.append(("ncu:vector_add", "-", "launches: workload / ncu / warptrace", "2 / 2 / 2",
                     f"{len(launches)} / {len(mine)} / {len(keys)} ({why(p)})", False))
        return
    for launch, res, key in zip(launches, mine, keys):
        n = launch["n"]
        m = res["metrics"]
        grid, ctas, l1, _ = (m[k] for k in NCU_METRICS)
        blocks, ld = maps["blocks"].get(key), maps.get("ldbytes", {}).get(key)
        what = f"n={n}"
        rows.append(("ncu:vector_add", what, "ncu grid = CTAs = @blocks", str(launch["blocks"]),
                     f"ncu {grid} / {ctas}, @blocks {blocks}", grid == ctas == blocks == launch["blocks"]))
        predicted = vector_add_ncu_bytes(n)
        if predicted == launch["ldbytes"]:
            expected = f"ncu = @ldbytes = {predicted} (16-byte vector loads: whole sectors)"
        else:
            expected = (f"ncu {predicted} (scalar loads, lanes 16 B apart: sectors "
                        f"{predicted / launch['ldbytes']:.2f}x), @ldbytes {launch['ldbytes']}")
        rows.append(("ncu:vector_add", what, "ncu L1 ld bytes vs @ldbytes", expected, f"ncu {l1}, @ldbytes {ld}",
                     l1 == predicted and ld == launch["ldbytes"]))


def check_outputs(args, rows, work, wt):
    """`-o DIR --trace FILE` on the block-scheduling records of nvcc_app. Each warp's exit
    probe saves one record in its slot (slots = 1): block_sum's and scale_add's 8 warps a
    block each, N/256 blocks each; block_sum's warp 0 leaves through two exits (the
    explicit `exit` of threads 1-31 and thread 0's `ret`), and its second save finds the
    slot taken: one save not kept per block_sum block, counted as a drop of @sched (as oracle
    program 9 shows for one block; printed as `Lost N events`). warptrace-oracle predicts
    the same for this program: 65536 records, 32768 a kernel, and `Lost 4096 events`."""
    app = os.path.join(args.bin, "nvcc_app")
    ref, out = f"{work}/out_ref.bin", f"{work}/out_wt.bin"
    run_t([app, ref], args.out, timeout=60)
    odir, tfile = f"{work}/wt-results", f"{work}/wt-trace/sched.json"
    p, _ = run_t([wt, "-o", odir, "--trace", tfile, "--clock-mhz", str(CLOCK_MHZ), "-e", SCHED, "--", app, out],
                 args.out, timeout=120)
    ok = p.returncode == 0 and same_bytes(ref, out)
    rows.append(("outputs", "-", "exit 0, output bit-identical", "yes", "yes" if ok else f"no ({why(p)})", ok))
    blocks = N // 256
    want_rows, want_lost = blocks * (8 + 8), blocks
    files = sorted(os.listdir(odir)) if os.path.isdir(odir) else []
    want_files = ["index.json", "sched.csv", "summary.json", "trace.json"]
    index = read_json(f"{odir}/index.json") if "index.json" in files else {}
    listed = sorted(f["file"] for f in index.get("files", []))
    ok = files == want_files and listed == want_files
    rows.append(("outputs", "-", "-o DIR files, index.json lists them", ", ".join(want_files),
                 f"{', '.join(files) or 'none'}; index: {', '.join(listed) or 'none'}", ok))
    recs = record_rows(read_text(f"{odir}/sched.csv")) if "sched.csv" in files else []
    per_kernel = {}
    for r in recs:
        k = base_name(r.get("field3", ""))
        per_kernel[k] = per_kernel.get(k, 0) + 1
    slots = {r.get("slot") for r in recs}
    index_rows = next((f.get("rows") for f in index.get("files", []) if f.get("file") == "sched.csv"), None)
    ok = (len(recs) == want_rows and per_kernel == {"block_sum": blocks * 8, "scale_add": blocks * 8}
          and slots == {"0"} and index_rows == len(recs))
    rows.append(("outputs", "-", "sched.csv: a row per kept warp record",
                 f"{want_rows} ({blocks} blocks x 8 warps x 2 kernels), slot 0",
                 f"{len(recs)} ({', '.join(f'{k}={v}' for k, v in sorted(per_kernel.items()))}; slots "
                 f"{sorted(slots)}; index rows {index_rows})", ok))
    summary = read_json(f"{odir}/summary.json") if "summary.json" in files else {}
    sched = next((m for m in summary.get("maps", []) if m.get("name") == "@sched"), {})
    # An array's `drops` count every save not kept (a taken slot, and the stale records
    # counted as `lost`, none here).
    ok = sched.get("records") == len(recs) == want_rows and sched.get("drops") == want_lost
    rows.append(("outputs", "-", "summary.json @sched records / not kept", f"{want_rows} / {want_lost} (block_sum "
                 "warp 0's 2nd exit: slot taken)", f"{sched.get('records')} / drops {sched.get('drops')}, lost "
                 f"{sched.get('lost')}", ok))
    for label, path in (("DIR/trace.json", f"{odir}/trace.json"), ("--trace FILE", tfile)):
        try:
            trace = read_json(path)
        except (OSError, ValueError) as e:
            rows.append(("outputs", "-", f"{label}: X events = records", str(want_rows), f"unreadable: {e}"[:120],
                         False))
            continue
        events = trace_events(trace)
        other = trace.get("otherData", {})
        ok = (len(events) == len(recs) == want_rows and other.get("skipped_records") == 0
              and other.get("clock_mhz") == CLOCK_MHZ)
        rows.append(("outputs", "-", f"{label}: X events = records", f"{want_rows}, clock {CLOCK_MHZ} MHz",
                     f"{len(events)}, clock {other.get('clock_mhz')} MHz, skipped {other.get('skipped_records')}",
                     ok))
    print("[outputs]", summary_text(p.stderr))


def check_children(method, args, rows, work, wt):
    """A `multiprocessing` parent and two children started by `method` under
    `-f json -p blocks`: the summary record lists the parent and both children, each child
    probed, and the merged @blocks[vector_add] is the sum of the children's grids."""
    label = f"mp {method}"
    script = os.path.join("tests", "workloads", "mp_children_workload.py")
    ref, out = f"{work}/mp_{method}_ref.bin", f"{work}/mp_{method}_wt.bin"
    p0, _ = run_t([sys.executable, script, ref, method], args.out, timeout=150)
    if p0.returncode != 0:
        rows.append((label, "-", "plain run", "exit 0", why(p0), False))
        return
    p1, _ = run_t([wt, "-f", "json", "-p", "blocks", "--", sys.executable, script, out, method], args.out,
                  timeout=150)
    ok = p1.returncode == 0 and same_bytes(ref, out)
    rows.append((label, "-", "exit 0, output bit-identical", "yes", "yes" if ok else f"no ({why(p1)})", ok))
    mine = program_json(p1.stdout) or {}
    records = json_records(p1.stdout)
    summary = json_summary(records) or {}
    pids = summary.get("pids", [])
    parent = mine.get("pids", {}).get("parent")
    children = mine.get("pids", {}).get("children", [])
    procs = {p.get("pid"): p for p in summary.get("processes", [])}
    probed = {c: procs.get(c, {}).get("launches_probed", 0) for c in children}
    ok = (len(pids) >= 3 and parent in pids and len(children) == 2 and all(c in pids for c in children)
          and all(v >= 1 for v in probed.values()))
    rows.append((label, "-", "summary record: parent + 2 children, each probed",
                 f">= 3 pids incl. parent {parent}, children {children}",
                 f"{len(pids)} pids; children's launches probed {probed}", ok))
    want = mine.get("vector_add", {})
    blocks = json_maps(records).get("@blocks", {})
    got = blocks.get("vector_add") if isinstance(blocks, dict) else None
    rows.append((label, "vector_add", "merged @blocks = sum of children's grids",
                 f"{' + '.join(map(str, want.get('grids', [])))} = {want.get('blocks')}", str(got),
                 got is not None and got == want.get("blocks")))
    print(f"[{label}]", summary_text(p1.stderr))


def check_spawn(args, rows, work, wt):
    check_children("spawn", args, rows, work, wt)


def check_fork(args, rows, work, wt):
    check_children("fork", args, rows, work, wt)


def check_torch_compile(args, rows, work, wt):
    """torch.compile'd MLP: plain (cold: fills Inductor's caches), plain (warm), traced with
    `-v -p blocks` and a fresh module cache."""
    cache = f"{work}/wt-cache-e2e"
    runs = {}
    for step, timeout in (("cold plain", 200), ("plain", 120), ("traced", 150)):
        j = f"{work}/e2e-{step.replace(' ', '-')}.json"
        cmd = [sys.executable, E2E_SCRIPT, *E2E_ARGS, "--out-json", j]
        if step == "traced":
            cmd = [wt, "-v", "--cache-dir", cache, "-p", "blocks", "--", *cmd]
        try:
            p, dt = run_t(cmd, args.out, timeout=timeout)
        except Spent as e:  # keep what the earlier steps showed
            p, dt = subprocess.CompletedProcess(cmd, -1, "", f"not run: {e}"), 0.0
        res = None
        if p.returncode == 0 and os.path.exists(j):
            with open(j) as fh:
                res = json.load(fh)
        runs[step] = (p, dt, res)
    codes = [runs[s][0].returncode for s in ("cold plain", "plain", "traced")]
    rows.append(("torch.compile", "-", "exit status cold plain / plain / traced", "0 / 0 / 0",
                 " / ".join(map(str, codes)) + "".join(f" ({s}: {why(runs[s][0])})" for s in runs
                                                        if runs[s][0].returncode)[:200],
                 not any(codes)))
    d = {s: (runs[s][2] or {}).get("digest") for s in runs}
    rows.append(("torch.compile", "-", "digest cold plain == plain (control, informational)", str(d["cold plain"]),
                 str(d["plain"]) + ("" if d["cold plain"] == d["plain"] else " (DIFFERENT: not deterministic)"),
                 True))
    rows.append(("torch.compile", "-", "digest traced == plain", str(d["plain"]), str(d["traced"]),
                 d["traced"] is not None and d["traced"] == d["plain"]))
    p = runs["traced"][0]
    states = kernel_states(p.stderr)
    counts = summary_counts(p.stderr) or {}
    triton = [s for s in states if s[0].startswith("triton_")]
    done = [s for s in triton if s[1].startswith("instrumented") and s[2] >= 1]
    rows.append(("torch.compile", "triton_*", "every Triton kernel instrumented, probed",
                 ">= 1, all", f"{len(done)} of {len(triton)}; summary: {counts.get('instrumented')} instrumented, "
                 f"{counts.get('probed')} launches probed", len(triton) >= 1 and len(done) == len(triton)))
    no_ptx = [s for s in states if s[1].startswith("skipped: no PTX")]
    example = base_name(no_ptx[0][0])[:48] if no_ptx else "-"
    rows.append(("torch.compile", "cuBLAS/ATen", "kernels without PTX listed as skipped",
                 ">= 1 'skipped: no PTX' line, counted", f"{len(no_ptx)} lines (e.g. {example}); summary: no PTX: "
                 f"{counts.get('no_ptx')}", len(no_ptx) >= 1 and counts.get("no_ptx", 0) >= 1))
    t_plain, t_traced = runs["plain"][1], runs["traced"][1]
    step = lambda s: (runs[s][2] or {}).get("step_ms")  # noqa: E731
    fmt = lambda v: "?" if v is None else f"{v:.2f}"  # noqa: E731
    rows.append(("torch.compile", "-", "wall s plain / traced (step ms)", "informational",
                 f"{t_plain:.1f} / {t_traced:.1f} = {t_traced / max(t_plain, 1e-9):.2f}x "
                 f"({fmt(step('plain'))} / {fmt(step('traced'))} ms); cold {runs['cold plain'][1]:.1f}",
                 codes[1] == 0 and codes[2] == 0))
    print("[torch.compile]", counts.get("line", "no summary line"))


def graph_nodes(stderr):
    """The summary's count of probed kernel nodes in CUDA graphs (0 when it names none)."""
    m = re.search(r"replays included, of (\d+) probed kernel nodes? in CUDA graphs", stderr)
    return int(m.group(1)) if m else 0


def check_cuda_graphs(args, rows, work, wt):
    """tests/workloads/torch_graphs.py: a Triton kernel captured into a torch.cuda.CUDAGraph
    and an MLP through torch.compile(mode="reduce-overhead"), replayed; plain twice (the
    control), then traced with `-v -p blocks`: every replay probed, outputs bit-identical."""
    runs = {}
    for step in ("plain", "plain again", "traced"):
        j = f"{work}/graphs-{step.replace(' ', '-')}.json"
        cmd = [sys.executable, GRAPHS_SCRIPT, "--replays", str(GRAPH_REPLAYS), "--out-json", j]
        if step == "traced":
            cmd = [wt, "-v", "-f", "json", "-p", "blocks", "--", *cmd]
        p, _ = run_t(cmd, args.out, timeout=240)
        res = read_json(j) if p.returncode == 0 and os.path.exists(j) else {}
        runs[step] = (p, res)
    codes = [runs[s][0].returncode for s in runs]
    rows.append(("cuda graphs", "-", "exit status plain / plain / traced", "0 / 0 / 0",
                 " / ".join(map(str, codes)) + "".join(f" ({s}: {why(runs[s][0])})" for s in runs
                                                        if runs[s][0].returncode)[:200], not any(codes)))
    for part in ("triton_graph", "compiled_graph"):
        d = {s: runs[s][1].get(part) for s in runs}
        rows.append(("cuda graphs", part, "digest plain == plain (control, informational)", str(d["plain"]),
                     str(d["plain again"]), True))
        rows.append(("cuda graphs", part, "digest traced == plain", str(d["plain"]), str(d["traced"]),
                     d["traced"] is not None and d["traced"] == d["plain"]))
    p = runs["traced"][0]
    nodes = graph_nodes(p.stderr)
    rows.append(("cuda graphs", "-", "launches captured into graphs as probed nodes", ">= 2", str(nodes),
                 nodes >= 2))
    blocks = json_maps(json_records(p.stdout)).get("@blocks", {})
    got = sum(v for k, v in blocks.items() if base_name(k) == "scale_add") if isinstance(blocks, dict) else 0
    want = (GRAPH_REPLAYS + 1) * SCALE_ADD_BLOCKS
    rows.append(("cuda graphs", "scale_add", "@blocks: the eager launch and every replay", str(want), str(got),
                 got == want))
    states = kernel_states(p.stderr)
    triton = [s for s in states if s[0].startswith("triton_")]
    short = [s for s in triton if not s[1].startswith("instrumented") or s[2] < GRAPH_REPLAYS]
    rows.append(("cuda graphs", "triton_* (Inductor)", f"instrumented, >= {GRAPH_REPLAYS} launches probed each",
                 ">= 1 kernel, all", f"{len(triton) - len(short)} of {len(triton)}"
                 + (f"; e.g. {base_name(short[0][0])[:40]}: {short[0][1][:30]}, {short[0][2]}" if short else ""),
                 len(triton) >= 1 and not short))
    print("[cuda graphs]", summary_text(p.stderr))


def check_graph_api(args, rows, work, wt):
    """tests/workloads/graph_api.cu: a graph built with the graph API (a kernel node, a child
    graph's, new arguments in the executable and in the graph then cudaGraphExecUpdate, a
    clone launched on a second stream in turn): plain twice (the control), then traced with
    `-v -p blocks`: every launch of both nodes probed, outputs bit-identical."""
    exe = os.path.join(args.bin, "graph_api")
    runs = {}
    for step in ("plain", "plain again", "traced"):
        out = f"{work}/graph-api-{step.replace(' ', '-')}.bin"
        cmd = [exe, out]
        if step == "traced":
            cmd = [wt, "-v", "-f", "json", "-p", "blocks", "--", *cmd]
        p, _ = run_t(cmd, args.out, timeout=120)
        data = open(out, "rb").read() if p.returncode == 0 and os.path.exists(out) else None
        runs[step] = (p, hashlib.sha256(data).hexdigest()[:16] if data else None)
    codes = [runs[s][0].returncode for s in runs]
    rows.append(("graph api", "-", "exit status plain / plain / traced", "0 / 0 / 0",
                 " / ".join(map(str, codes)) + "".join(f" ({s}: {why(runs[s][0])})" for s in runs
                                                        if runs[s][0].returncode)[:200], not any(codes)))
    d = {s: runs[s][1] for s in runs}
    rows.append(("graph api", "-", "output plain == plain (control, informational)", str(d["plain"]),
                 str(d["plain again"]), True))
    rows.append(("graph api", "-", "output traced == plain", str(d["plain"]), str(d["traced"]),
                 d["traced"] is not None and d["traced"] == d["plain"]))
    want = program_json(runs["plain"][0].stdout) or {}
    p = runs["traced"][0]
    blocks = json_maps(json_records(p.stdout)).get("@blocks", {})
    states = {base_name(k): (st, probed) for k, st, probed, _ in kernel_states(p.stderr)}
    for kernel in ("axpy", "scale"):
        got = sum(v for k, v in blocks.items() if base_name(k) == kernel) if isinstance(blocks, dict) else 0
        w = want.get(f"{kernel}_blocks")
        rows.append(("graph api", kernel, "@blocks: every launch of the node", str(w), str(got),
                     w is not None and got == w))
        st, probed = states.get(kernel, ("not seen", 0))
        rows.append(("graph api", kernel, "instrumented, launches probed", f"instrumented, {want.get('launches')}",
                     f"{st[:30]}, {probed}", st.startswith("instrumented") and probed == want.get("launches")))
    nodes = graph_nodes(p.stderr)
    rows.append(("graph api", "-", "probed kernel nodes in graphs", "2", str(nodes), nodes == 2))
    print("[graph api]", summary_text(p.stderr))


LIVE_SCRIPT = os.path.join("tests", "workloads", "long_loop.py")
LIVE_SECONDS = 20
LIVE_COUNT = "kernel:entry /tid.x == 0 && ctaid.x == 0/ { @n = count(); }"


def check_live(args, rows, work, wt):
    """tests/workloads/long_loop.py (a Triton kernel every 10 ms for 20 s): with
    `interval:s:1 { print(@n); clear(@n); }` the counts print every second while it runs and
    add up to its launches; SIGINT to warptrace after 8 s of a 15 s run prints what it has,
    and the program finishes untraced with a correct result."""
    prog = LIVE_COUNT + " interval:s:1 { print(@n); clear(@n); }"
    out = f"{work}/live.bin"
    p, secs = run_t([wt, "-e", prog, "--", sys.executable, LIVE_SCRIPT, str(LIVE_SECONDS), out],
                    args.out, timeout=180)
    res = program_json(p.stdout) or {}
    prints = [int(v) for v in re.findall(r"^@n: (\d+)$", p.stdout, re.M)]
    rows.append(("live", "interval:s:1", "exit status; the program's own check", "0; correct",
                 f"{p.returncode}; {'correct' if res.get('correct') else 'WRONG'}"
                 + (f" ({why(p)})" if p.returncode else ""), p.returncode == 0 and res.get("correct") is True))
    live = sum(1 for v in prints[:-1] if v > 0)
    rows.append(("live", "interval:s:1", f"prints with counts while it ran ({LIVE_SECONDS} s)",
                 f">= {LIVE_SECONDS - 4}", f"{live} of {len(prints)} prints", live >= LIVE_SECONDS - 4))
    rows.append(("live", "interval:s:1", "counts printed add up to the launches (each once)",
                 str(res.get("launches")), str(sum(prints)), res.get("launches") == sum(prints)))
    # SIGINT to warptrace alone (not the program's process group), as `kill -INT` would.
    cmd = [wt, "-e", LIVE_COUNT, "--", sys.executable, LIVE_SCRIPT, "15", f"{work}/live-int.bin"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(8)
    proc.send_signal(signal.SIGINT)
    try:
        stdout, stderr = proc.communicate(timeout=90)
    except subprocess.TimeoutExpired:
        proc.kill()
        stdout, stderr = proc.communicate()
    with open(os.path.join(args.out, "live-sigint.log"), "w") as f:
        f.write(stdout + "\n--- stderr ---\n" + stderr)
    res = program_json(stdout) or {}
    got = [int(v) for v in re.findall(r"^@n: (\d+)$", stdout, re.M)]
    n = sum(got)
    rows.append(("live", "SIGINT at 8 s", "exit 0, detached, program finished correct",
                 "0, detached, correct", f"{proc.returncode}, {'detached' if 'detached (SIGINT)' in stderr else 'NOT detached'}, "
                 f"{'correct' if res.get('correct') else 'WRONG'}",
                 proc.returncode == 0 and "detached (SIGINT)" in stderr and res.get("correct") is True))
    rows.append(("live", "SIGINT at 8 s", "launches counted until the detach, of all", "0 < n < all",
                 f"{n} of {res.get('launches')}", 0 < n < (res.get("launches") or 0)))
    print("[live]", summary_text(stderr))


MATMUL_SCRIPT = os.path.join("tests", "workloads", "torch_matmul.py")
MATMULS = 50
LAUNCH_END = ("launch:end { @n[kernel] = count(); @ns[kernel] = sum(duration); "
              "@us[kernel] = hist(duration / 1000); }")


def check_launch_probes(args, rows, work, wt):
    """tests/workloads/torch_matmul.py (cuBLAS, SASS only) under a `launch:end` program: every
    matmul's kernel launch is seen with its duration, and the durations add up to what the
    workload's own CUDA events measured around the matmuls (plus the 3 warm-ups)."""
    p, _ = run_t([wt, "-f", "json", "-e", LAUNCH_END, "--", sys.executable, MATMUL_SCRIPT, str(MATMULS)],
                 args.out, timeout=180)
    res = program_json(p.stdout) or {}
    maps = json_maps(json_records(p.stdout))
    n = maps.get("@n", {}) if isinstance(maps.get("@n"), dict) else {}
    ns = maps.get("@ns", {}) if isinstance(maps.get("@ns"), dict) else {}
    rows.append(("launch probes", "-", "exit status", "0", f"{p.returncode}" + (f" ({why(p)})" if p.returncode else ""),
                 p.returncode == 0))
    gemm = {k: v for k, v in n.items() if re.search(r"gemm|nvjet|cutlass|sm90", k, re.I)}
    top = max(gemm.items(), key=lambda kv: kv[1], default=("(none)", 0))
    rows.append(("launch probes", base_name(top[0])[:40], "cuBLAS kernel launches seen (matmuls + 3 warm-ups)",
                 f">= {MATMULS + 3}", str(sum(gemm.values())), sum(gemm.values()) >= MATMULS + 3))
    gemm_ms = sum(ns.get(k, 0) for k in gemm) / 1e6
    want = res.get("ms")
    # The events bracket the timed matmuls only; the warm-ups add 3 more of them.
    lo, hi = (0.7 * want, 1.5 * want * (MATMULS + 3) / MATMULS) if want else (0, 0)
    rows.append(("launch probes", "durations", "sum of the cuBLAS kernels' durations vs the workload's events",
                 f"{lo:.2f}..{hi:.2f} ms", f"{gemm_ms:.2f} ms", bool(want) and lo <= gemm_ms <= hi))
    print("[launch probes]", summary_text(p.stderr))


def check_access_patterns(args, rows, work, wt):
    """memtrace and dmat on the access microbenchmarks of tests/workloads/access_patterns.py
    (linear, strided, gather, scatter, random; issue 8): the (address, width) of every
    record equals, as a multiset, what the workload computes on the host from its device
    pointers and index arrays — per kernel (its records name the kernel). dmat's records
    (one a run of a warp access: the lowest lane's address, the run's lanes, the width)
    equal, over all kernels, the runs computed the same way; expanded, they are every
    access; and --dmat draws all of them."""
    script = os.path.join("tests", "workloads", "access_patterns.py")
    odir = f"{work}/ap-memtrace"
    p, _ = run_t([wt, "-o", odir, "-p", "memtrace", "--", sys.executable, script], args.out, timeout=120)
    want = (program_json(p.stdout) or {}).get("accesses", {})
    recs = record_rows(read_text(f"{odir}/mem.csv")) if os.path.exists(f"{odir}/mem.csv") else []
    got = {}
    for r in recs:
        got.setdefault(base_name(r.get("field11", "")), []).append([int(r["field9"]), int(r["field10"])])
    for kernel in sorted(want) or ["(none)"]:
        w, g = want.get(kernel, []), sorted(got.get(kernel, []))
        rows.append(("memtrace", kernel, "recorded (addr, bytes) = the kernel's accesses",
                     f"{len(w)} accesses", f"{len(g)} records, {'equal' if g == w else 'DIFFERENT'} ({why(p)})"
                     if g != w else f"{len(g)} records, equal", p.returncode == 0 and len(w) > 0 and g == w))
    ddir = f"{work}/ap-dmat"
    png = f"{ddir}/dmat.png"
    p, _ = run_t([wt, "-o", ddir, "--dmat", png, "-p", "dmat", "--", sys.executable, script], args.out,
                 timeout=120)
    printed = program_json(p.stdout) or {}
    w = sorted(a for v in printed.get("runs", {}).values() for a in v)
    recs = record_rows(read_text(f"{ddir}/dmat.csv")) if os.path.exists(f"{ddir}/dmat.csv") else []
    g = sorted([int(r["field1"]), int(r["field2"]), int(r["field3"])] for r in recs)
    rows.append(("dmat", "all 5 kernels", "a record a run: (lowest lane's addr, run's lanes, bytes)",
                 f"{len(w)} runs", f"{len(g)} records, {'equal' if g == w else 'DIFFERENT'}",
                 p.returncode == 0 and len(w) > 0 and g == w))
    # Every lane's address from the records: lane i of a run at addr + (i - lowest) * bytes.
    lanes = sorted([a + ((i - (m & -m).bit_length() + 1) * b), b] for a, m, b in g
                   for i in range(32) if m >> i & 1)
    every = sorted(x for v in printed.get("accesses", {}).values() for x in v)
    rows.append(("dmat", "all 5 kernels", "runs expanded = every (addr, bytes) the kernels access",
                 f"{len(every)} accesses", f"{len(lanes)} lanes, {'equal' if lanes == every else 'DIFFERENT'}",
                 p.returncode == 0 and len(every) > 0 and lanes == every))
    drawn = re.search(r"timeline written to \S+ \((\d+)×(\d+) px\): (\d+) records, (\d+) lane accesses",
                      p.stderr)
    ok = bool(drawn) and os.path.getsize(png) > 0 if os.path.exists(png) else False
    rows.append(("dmat", "--dmat", "PNG drawn from every record and lane", f"{len(w)} records, {len(every)} lanes",
                 (f"{drawn.group(1)}x{drawn.group(2)} px, {drawn.group(3)} records, {drawn.group(4)} lanes"
                  if drawn else f"no PNG ({why(p)})"),
                 ok and drawn is not None and int(drawn.group(3)) == len(w) and int(drawn.group(4)) == len(every)))


def check_coalescing(args, rows, work, wt):
    """The library probes uncoalesced (global sectors and requests) and bank_conflicts
    (shared wavefronts and instructions) on tests/workloads/coalescing.py's microbenchmarks
    (strided, vector, broadcast and gathered global loads, a strided store; strided,
    broadcast, 8- and 16-byte shared loads, a conflicting shared store): one warptrace run
    per probe, each kernel's entries (one per line and pc) summed and compared with the
    model the workload prints (computed from its device pointers and index array); then
    one ncu run (the co_* kernels, uninstrumented) for the same counters, compared with
    warptrace's sums."""
    script = os.path.join("tests", "workloads", "coalescing.py")
    runs = {}
    for probe in ("uncoalesced", "bank_conflicts"):
        p, _ = run_t([wt, "-p", probe, "--", sys.executable, script], args.out, timeout=120)
        expect = (program_json(p.stdout) or {}).get("expect", {})
        ok = p.returncode == 0 and bool(expect)
        rows.append((probe, "-", "exit 0, model printed", "yes", "yes" if ok else f"no ({why(p)})", ok))
        maps = parse_maps(p.stdout)
        rows.extend(coalescing_rows(probe, expect, maps))
        runs[probe] = (expect, maps)
        print(f"[{probe}]", summary_text(p.stderr))
    model = next((e for e, _ in runs.values() if e), {})
    ncu = find_ncu()
    if not ncu:
        rows.append(("ncu:coalescing", "-", "Nsight Compute profiles", "ncu runs", "ncu not found (PATH, "
                     "/usr/local/cuda*/bin, /opt/nvidia/nsight-compute/*)", False))
        return
    results, err = ncu_profile(ncu, "ncu:coalescing", [sys.executable, script], args,
                               extra=("--kernel-name", "regex:^co_"), metrics=COALESCING_METRICS)
    if err:
        rows.append(("ncu:coalescing", "-", "Nsight Compute profiles", "ncu runs, metrics read", err, False))
        return
    for probe, (expect, maps) in runs.items():
        # CuPy's pool aligns every array to 512 bytes: the sector counts do not depend on
        # the run's pointers, so ncu's run shares the model of warptrace's.
        rows.extend(coalescing_ncu_rows(probe, expect or model, maps, results))


# tests/workloads/loop_timing.cu's loops: the outer loop's iterations, the inner loop's per
# outer iteration. Its first launch is a warm-up; `--launch-skip 1` probes the second, the
# one it reports.
LOOP_OUTER, LOOP_INNER = 8, 16
# Firings of loop points per warp: for the outer loop's time, its headers and exit and
# every inner header and exit inside it; for the inner loops', their headers.
LOOP_FIRINGS = {0: LOOP_OUTER * (LOOP_INNER + 2) + 1, 1: LOOP_OUTER * LOOP_INNER}
# Region timing's accuracy target (issue 8): within 2% of the uninstrumented reference
# (loop_cycles); loop_timing's documented bound: what it leaves per firing after replay.
LOOP_TOLERANCE = 0.02
LOOP_TIMING_RESIDUAL = 30


def loop_timing_totals(recs):
    """Per warp (block, warp) of loop_timing's @iters rows (field1 elapsed, field6 depth):
    (records, {depth: summed elapsed})."""
    out = {}
    for r in recs:
        n, depth = out.get((int(r["block"]), int(r["warp"])), (0, {}))
        d = int(r["field6"])
        depth[d] = depth.get(d, 0) + int(r["field1"])
        out[(int(r["block"]), int(r["warp"]))] = (n + 1, depth)
    return out


def loop_cycles_totals(rows):
    """loop_cycles' @cycles or @iterations table (key0 kernel, key1 loop, key2 line, key3
    depth, count, sum, avg): {depth: (instances, summed value)}."""
    out = {}
    for r in rows:
        n, total = out.get(int(r["key3"]), (0, 0))
        out[int(r["key3"])] = (n + int(r["count"]), total + int(r["sum"]))
    return out


def loop_reference(csv_text):
    """loop_timing.cu's own per-warp times: {(block, warp): (outer, inner, outer_iters,
    inner_iters)}."""
    return {(int(r["block"]), int(r["warp"])): (int(r["outer_cycles"]), int(r["inner_cycles"]),
                                                 int(r["outer_iters"]), int(r["inner_iters"]))
            for r in csv.DictReader(io.StringIO(csv_text))}


def loop_timing_reference(args, rows, work, app, check):
    """Runs loop_timing.cu plainly, adds the row saying so for `check`, and returns its own
    per-warp times (loop_reference), or None if it failed."""
    ref_csv = f"{work}/{check}_ref.csv"
    q, _ = run_t([app, ref_csv], args.out, timeout=60)
    ok = q.returncode == 0
    rows.append((check, "nested", "uninstrumented reference runs", "exit 0",
                 "exit 0" if ok else why(q), ok))
    return loop_reference(read_text(ref_csv)) if ok else None


def rel(a, b):
    return (a - b) / b if b else float("inf")


def check_loop_timing(args, rows, work, wt):
    """Region timing (issue 8) on tests/workloads/loop_timing.cu, which measures each warp's
    outer loop and inner loops with clock64 itself: run plainly, its file is the
    uninstrumented reference. loop_cycles' @cycles totals (all warps) must be within 2% of
    the reference's, for the outer loop and the inner loops. loop_timing's records, summed
    per warp and depth, must leave at most LOOP_TIMING_RESIDUAL cycles per firing (its
    documented accuracy: it stores a record per iteration). The instrumented run's own
    clock64 figures show what each probe costs without the replay."""
    app = os.path.join(args.bin, "loop_timing")
    ref = loop_timing_reference(args, rows, work, app, "loop_timing")
    if ref is None:
        return
    warps = sorted(ref)
    want = {d: sum(ref[w][d] for w in warps) for d in (0, 1)}
    label = {0: "outer loop", 1: "inner loops"}
    for probe in ("loop_cycles", "loop_timing"):
        odir, own = f"{work}/{probe}-results", f"{work}/{probe}.csv"
        p, _ = run_t([wt, "--launch-skip", "1", "-o", odir, "-p", probe, "--", app, own], args.out, timeout=120)
        ok = p.returncode == 0
        rows.append((probe, "nested", "exit 0", "yes", "yes" if ok else f"no ({why(p)})", ok))
        if not ok:
            continue
        raw = loop_reference(read_text(own))
        raw_total = {d: sum(raw[w][d] for w in warps) for d in (0, 1)}
        if probe == "loop_cycles":
            cyc = loop_cycles_totals(record_rows(read_text(f"{odir}/cycles.csv")))
            its = loop_cycles_totals(record_rows(read_text(f"{odir}/iterations.csv")))
            want_its = {0: (len(warps), len(warps) * LOOP_OUTER),
                        1: (len(warps) * LOOP_OUTER, len(warps) * LOOP_OUTER * LOOP_INNER)}
            ok = its == want_its
            rows.append((probe, "nested", "@iterations: loop instances / iterations by depth",
                         str(want_its), str(its), ok))
            for d in (0, 1):
                est = cyc.get(d, (0, 0))[1]
                e = rel(est, want[d])
                rows.append((probe, "nested", f"{label[d]}: cycles within 2% of uninstrumented",
                             f"{want[d]} ±{LOOP_TOLERANCE:.0%}",
                             f"{est} ({e:+.2%}; without replay {rel(raw_total[d], want[d]):+.1%})",
                             abs(e) <= LOOP_TOLERANCE))
        else:
            got = loop_timing_totals(record_rows(read_text(f"{odir}/iters.csv")))
            per_warp = LOOP_OUTER + LOOP_OUTER * LOOP_INNER
            counts = {n for n, _ in got.values()}
            ok = set(got) == set(warps) and counts == {per_warp}
            rows.append((probe, "nested", "@iters: a record per iteration",
                         f"{per_warp} for each of {len(warps)} warps", f"{sorted(counts)} for {len(got)} warps", ok))
            if not ok:
                continue
            for d in (0, 1):
                est = sum(got[w][1].get(d, 0) for w in warps)
                firings = LOOP_FIRINGS[d] * len(warps)
                residual = (est - want[d]) / firings
                rows.append((probe, "nested", f"{label[d]}: cycles left per firing after replay",
                             f"|r| <= {LOOP_TIMING_RESIDUAL}",
                             f"{residual:+.1f} ({rel(est, want[d]):+.2%}; without replay "
                             f"{(raw_total[d] - want[d]) / firings:+.0f} a firing)",
                             abs(residual) <= LOOP_TIMING_RESIDUAL))
    # loop_timing on a real compiler's loops: Triton's matmul and flash-attention K loops.
    script = os.path.join("tests", "workloads", "triton_workload.py")
    tdir = f"{work}/loop-triton"
    p, _ = run_t([wt, "-o", tdir, "-p", "loop_timing", "--", sys.executable, script, f"{work}/loop_tri.bin"],
                 args.out, timeout=180)
    recs = record_rows(read_text(f"{tdir}/iters.csv")) if os.path.exists(f"{tdir}/iters.csv") else []
    kernels = sorted({base_name(r.get("field3", "")) for r in recs})
    ok = p.returncode == 0 and {"matmul", "flash_attn_fwd"} <= set(kernels)
    rows.append(("loop_timing", "triton", "exit 0, iteration records of matmul and flash-attention",
                 "matmul, flash_attn_fwd", f"{', '.join(kernels) or 'none'} ({len(recs)} records; "
                 f"{why(p) if p.returncode else 'exit 0'})", ok))


# Source-line regions of tests/workloads/loop_timing.cu whose times the kernel measures
# itself (the lines are pinned by gpu_e2e_more_test.py): the inner loop statement, run once
# per outer iteration (its `for` line 45 through its closing brace), and the outer loop
# statement (line 42 through the inner loops' clock read, line 55).
REGION_LINES = {"inner": (45, 54), "outer": (42, 55)}
# The body of Triton's matmul K loop in tests/corpus/src/triton_kernels.py, and its
# instances in triton_workload.py's launch: 8 x 8 programs of 4 warps, K / BK = 16
# iterations each.
REGION_TRITON_LINES = (39, 43)
REGION_TRITON_INSTANCES = 8 * 8 * 4 * (512 // 32)


def region_program(which):
    """A region-timing one-liner (docs/probes/region_timing.md): per warp, the region's
    clock64 cycles from entry to exit, as stats in @<which>. The exit reads the clock
    first, so that it is read before the probe's leader election (decision 0016)."""
    a, b = REGION_LINES[which]
    return (f"warp region:entry:loop_timing.cu:{a}-{b} {{ %t = clock64; }}\n"
            f"warp region:exit:loop_timing.cu:{a}-{b} {{ $now = clock64; @{which}[kernel] = stats($now - %t); }}\n")


def region_records_program(which):
    """The records form of region_program: each region instance a timing record
    (start, elapsed, smid, kernel, pc, line) in @regions, drawn by --trace."""
    a, b = REGION_LINES[which]
    return ("map @regions: array(per = warp, slots = 16);\n"
            f"warp region:entry:loop_timing.cu:{a}-{b} {{ %t = clock64; }}\n"
            f"warp region:exit:loop_timing.cu:{a}-{b} {{ $now = clock64; "
            "@regions = (%t, $now - %t, smid, kernel, pc, line); }\n")


def check_region_timing(args, rows, work, wt):
    """Source-line region timing (issue 8) on tests/workloads/loop_timing.cu: the region
    of the inner loop's lines and of the outer loop's, each timed per warp by
    region:entry/region:exit snippets in its own run. Their totals over all warps must be
    within 2% of the kernel's own clock64 figures from an uninstrumented run (the inner
    loop once per outer iteration: 8 instances a warp; the outer loop once a warp)."""
    app = os.path.join(args.bin, "loop_timing")
    ref = loop_timing_reference(args, rows, work, app, "region")
    if ref is None:
        return
    warps = sorted(ref)
    want = {"outer": sum(ref[w][0] for w in warps), "inner": sum(ref[w][1] for w in warps)}
    instances = {"outer": len(warps), "inner": len(warps) * LOOP_OUTER}
    for which in ("inner", "outer"):
        odir, own = f"{work}/region-{which}", f"{work}/region-{which}.csv"
        p, _ = run_t([wt, "--launch-skip", "1", "-o", odir, "-e", region_program(which), "--", app, own],
                     args.out, timeout=120)
        a, b = REGION_LINES[which]
        what = f"lines {a}-{b} ({which} loop)"
        table = f"{odir}/{which}.csv"
        ok = p.returncode == 0 and os.path.exists(table)
        rows.append(("region", "nested", f"{what}: exit 0, @{which} written", "yes",
                     "yes" if ok else f"no ({why(p)})", ok))
        if not ok:
            continue
        got = record_rows(read_text(table))
        n = sum(int(r["count"]) for r in got)
        total = sum(int(r["sum"]) for r in got)
        rows.append(("region", "nested", f"{what}: one instance per entry", str(instances[which]),
                     str(n), n == instances[which]))
        raw = loop_reference(read_text(own))
        raw_total = sum(raw[w][0 if which == "outer" else 1] for w in warps if w in raw)
        e = rel(total, want[which])
        rows.append(("region", "nested", f"{what}: cycles within 2% of uninstrumented",
                     f"{want[which]} ±{LOOP_TOLERANCE:.0%}",
                     f"{total} ({e:+.2%}; the instrumented run's own figure {rel(raw_total, want[which]):+.2%})",
                     abs(e) <= LOOP_TOLERANCE))
    # The records form: the inner loop's instances as timing records and a Perfetto trace.
    odir, tfile = f"{work}/region-records", f"{work}/region-trace.json"
    p, _ = run_t([wt, "--launch-skip", "1", "-o", odir, "--trace", tfile, "--clock-mhz", str(CLOCK_MHZ),
                  "-e", region_records_program("inner"), "--", app, f"{work}/region-records.csv"],
                 args.out, timeout=120)
    table = f"{odir}/regions.csv"
    ok = p.returncode == 0 and os.path.exists(table) and os.path.exists(tfile)
    rows.append(("region", "nested", "records: exit 0, regions.csv and a trace", "yes",
                 "yes" if ok else f"no ({why(p)})", ok))
    if not ok:
        return
    recs = record_rows(read_text(table))
    per_warp = {}
    for r in recs:
        w = (int(r["block"]), int(r["warp"]))
        n, t = per_warp.get(w, (0, 0))
        per_warp[w] = (n + 1, t + int(r["field1"]))
    counts = {n for n, _ in per_warp.values()}
    ok = set(per_warp) == set(warps) and counts == {LOOP_OUTER}
    rows.append(("region", "nested", "records: one per inner loop instance",
                 f"{LOOP_OUTER} for each of {len(warps)} warps", f"{sorted(counts)} for {len(per_warp)} warps", ok))
    total = sum(t for _, t in per_warp.values())
    e = rel(total, want["inner"])
    rows.append(("region", "nested", "records: cycles within 2% of uninstrumented",
                 f"{want['inner']} ±{LOOP_TOLERANCE:.0%}", f"{total} ({e:+.2%})", abs(e) <= LOOP_TOLERANCE))
    slices = trace_events(json.loads(read_text(tfile)))
    rows.append(("region", "nested", "records: a trace slice per record", str(len(recs)), str(len(slices)),
                 len(slices) == len(recs)))
    # A real compiler's loop body: Triton's matmul K loop (REGION_TRITON_LINES of
    # tests/corpus/src/triton_kernels.py; the loop statement is the line before), one
    # region instance per iteration and warp.
    script = os.path.join("tests", "workloads", "triton_workload.py")
    tdir = f"{work}/region-triton"
    a, b = REGION_TRITON_LINES
    prog = (f"warp region:entry:triton_kernels.py:{a}-{b} {{ %t = clock64; }}\n"
            f"warp region:exit:triton_kernels.py:{a}-{b} {{ $now = clock64; @body[kernel] = stats($now - %t); }}\n")
    p, _ = run_t([wt, "-o", tdir, "-e", prog, "--", sys.executable, script, f"{work}/region_tri.bin"],
                 args.out, timeout=180)
    table = f"{tdir}/body.csv"
    got = record_rows(read_text(table)) if os.path.exists(table) else []
    counts = {base_name(r["key0"]): int(r["count"]) for r in got}
    cycles = {base_name(r["key0"]): int(r["avg"]) for r in got}
    ok = p.returncode == 0 and counts == {"matmul": REGION_TRITON_INSTANCES}
    rows.append(("region", "triton", f"matmul K loop body (lines {a}-{b}): a region per iteration and warp",
                 f"matmul: {REGION_TRITON_INSTANCES}",
                 f"{counts} (avg {cycles.get('matmul', 0)} cycles; {why(p) if p.returncode else 'exit 0'})", ok))


# The global accesses of Triton's vector_add in tests/corpus/src/triton_kernels.py: the
# two tl.load lines and the tl.store line.
TRITON_VECTOR_ADD_LINES = {21: "load", 22: "load", 23: "store"}


def check_triton_source_lines(args, rows, work, wt):
    """A Triton kernel loaded as a cubin keeps its source lines (runtime::image's
    with_source_lines): `line` at vector_add's global accesses counts exactly the lines of
    its two tl.load and its tl.store, and memtrace's records of it carry those lines (its
    ring fills during the first load, so the records need only be a non-empty subset)."""
    script = os.path.join("tests", "workloads", "triton_workload.py")
    want = sorted(TRITON_VECTOR_ADD_LINES)
    odir = f"{work}/triton-lines"
    prog = "mem:global:*:vector_add { @lines[line] = count(); }"
    p, _ = run_t([wt, "-o", odir, "-e", prog, "--", sys.executable, script, f"{work}/lines.bin"],
                 args.out, timeout=180)
    table = f"{odir}/lines.csv"
    got = record_rows(read_text(table)) if os.path.exists(table) else []
    counts = {int(r["key0"]): int(r["count"]) for r in got}
    # The two loads and the store run under one mask with one vectorisation: equal counts.
    ok = p.returncode == 0 and sorted(counts) == want and len(set(counts.values())) == 1 \
        and all(v > 0 for v in counts.values())
    rows.append(("line", "triton", "vector_add's global accesses by source line, equal counts", str(want),
                 f"{counts} ({why(p) if p.returncode else 'exit 0'})", ok))
    odir = f"{work}/triton-memtrace"
    p, _ = run_t([wt, "-o", odir, "-p", "memtrace", "--", sys.executable, script, f"{work}/lines2.bin"],
                 args.out, timeout=180)
    table = f"{odir}/mem.csv"
    recs = record_rows(read_text(table)) if os.path.exists(table) else []
    lines = sorted({int(r["field8"]) for r in recs if base_name(r.get("field11", "")) == "vector_add"})
    ok = p.returncode == 0 and bool(lines) and set(lines) <= set(want)
    rows.append(("memtrace", "triton", "vector_add records carry its source lines", f"a subset of {want}",
                 f"{lines} ({why(p) if p.returncode else 'exit 0'})", ok))


def check_resources(args, rows, work, wt):
    """tests/workloads/wide_blocks.cu under tests/corpus/hostile/register_pressure.toml (a
    raw probe the verifier accepts that takes wide_scale to 255 registers a thread): the
    1024-thread launch runs the original, counted as "block too large for the instrumented
    form", the 256-thread launch is probed, and the output equals a plain run's."""
    app = os.path.join(args.bin, "wide_blocks")
    probe = os.path.join("tests", "corpus", "hostile", "register_pressure.toml")
    ref, out = f"{work}/wide_ref.bin", f"{work}/wide_wt.bin"
    plain, _ = run_t([app, ref], args.out, timeout=60)
    p, _ = run_t([wt, "-v", "-p", probe, "--", app, out], args.out, timeout=120)
    ok = plain.returncode == 0 and p.returncode == 0 and same_bytes(ref, out)
    rows.append(("resources", "wide_scale", "exit 0, output bit-identical to plain", "yes",
                 "yes" if ok else f"no (plain {why(plain)}; traced {why(p)})", ok))
    counts = summary_counts(p.stderr) or {}
    got = re.search(r"block too large for the instrumented form: (\d+)", p.stderr)
    ok = counts.get("probed") == 1 and counts.get("unprobed") == 1 and got and got.group(1) == "1"
    rows.append(("resources", "wide_scale", "launches probed / unprobed (block too large)", "1 / 1 (1)",
                 f"{counts.get('probed')} / {counts.get('unprobed')} ({got.group(1) if got else 'none'})",
                 bool(ok)))
    figures = re.search(r"wide_scale\w*: instrumented, \d+ sites; (\d+) registers a thread \(was (\d+)\), "
                        r"(\d+) bytes local \(was (\d+)\), blocks up to (\d+) threads \(was (\d+)\)", p.stderr)
    ok = (bool(figures) and int(figures.group(5)) < 1024 <= int(figures.group(6))
          and int(figures.group(2)) < int(figures.group(1)))
    rows.append(("resources", "wide_scale", "driver: more registers, block limit < 1024 <= original's",
                 "yes", figures.group(0).split("; ", 1)[1] if figures else "no figures in -v output", ok))
    print("[resources]", summary_text(p.stderr))


CHECKS = (
    ("outputs", check_outputs),
    ("resources", check_resources),
    ("access patterns", check_access_patterns),
    ("coalescing", check_coalescing),
    ("loop timing", check_loop_timing),
    ("region timing", check_region_timing),
    ("triton source lines", check_triton_source_lines),
    ("mp spawn", check_spawn),
    ("mp fork", check_fork),
    ("ncu", check_ncu),
    ("numba", check_numba),
    ("cupy", check_cupy),
    ("torch.compile", check_torch_compile),
    ("cuda graphs", check_cuda_graphs),
    ("graph api", check_graph_api),
    ("live", check_live),
    ("launch probes", check_launch_probes),
)


def run_all(args, rows, work, wt):
    """Runs every check of this module, appending to `rows`; never raises."""
    BUDGET.start(BUDGET_S)
    for label, check in CHECKS:
        t0 = time.monotonic()
        print(f"[more] {label} …", flush=True)
        try:
            check(args, rows, work, wt)
        except Spent as e:
            rows.append((label, "-", "not run", "run", str(e)[:120], False))
        except Exception as e:  # noqa: BLE001 -- a broken check is a failed row, not an abort
            traceback.print_exc(file=sys.stdout)
            rows.append((label, "-", "check ran", "no exception", f"{type(e).__name__}: {e}"[:200], False))
        print(f"[more] {label}: {time.monotonic() - t0:.1f} s, {BUDGET.left():.0f} s of the budget left", flush=True)


if __name__ == "__main__":
    # The checks alone, e.g. `python3 scripts/gpu_e2e_more.py --bin .gpu --out $OUT
    # --only resources`: their rows, then how many failed.
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", default="", help="comma-separated check labels (default: all)")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    wanted = {x.strip() for x in a.only.split(",") if x.strip()}
    unknown = wanted - {label for label, _ in CHECKS}
    if unknown:
        sys.exit(f"unknown checks: {', '.join(sorted(unknown))}")
    if wanted:
        CHECKS = tuple(c for c in CHECKS if c[0] in wanted)
    scratch = tempfile.mkdtemp(prefix="wt-more-")
    table = []
    run_all(a, table, scratch, os.path.join(a.bin, "warptrace"))
    for row in table:
        print(" | ".join(str(x) for x in row))
    failed = sum(1 for r in table if not r[-1])
    print(f"{len(table) - failed}/{len(table)} checks passed")
    sys.exit(1 if failed else 0)
