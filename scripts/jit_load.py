#!/usr/bin/env python3
"""What the CUDA driver's JIT costs on instrumented modules, on a GPU (issue 42, decision 0045).

For each (PTX file, probe) case: `warptrace instrument --jit-budget off` writes the module
instrumented without a budget, and a fresh process loads the plain and the instrumented
module with cuModuleLoadDataEx (the driver's JIT cache disabled), timing the load and the
growth of the process's peak memory. Beside it: warptrace's prediction for the kernels the
budget refuses, and whether the default budget refuses them. Prints a table last.

    python3 scripts/jit_load.py --warptrace .gpu/warptrace [--limit-s 90] [--out-json F]
"""
import argparse
import ctypes
import json
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "tests", "corpus")
SHARED_COUNT = "mem:shared:* { @n[kernel] = count(); }"

# (PTX file under tests/corpus, probe name or `-e` program)
CASES = [
    ("ptx/triton_softmax.ptx", "insn_mix"),
    ("ptx/triton_flash_attn_fwd.ptx", "insn_mix"),
    ("ptx/triton_matmul_pipelined.ptx", "insn_mix"),
    ("hostile/cccl_algorithms.ptx", "uncoalesced"),
    ("hostile/cccl_algorithms.ptx", "features"),
    ("jit/cccl_radix_sort_sm80.ptx", "gmem_bytes"),
    ("jit/cccl_radix_sort_sm80.ptx", SHARED_COUNT),
    ("jit/nvcc_unrolled.ptx", "insn_mix"),
    ("jit/nvcc_unrolled.ptx", "features"),
]

PREDICTED = re.compile(r"predicted ptxas ([0-9.]+) s → ([0-9.]+) s")


def load_child(path, limit_s):
    """Loads `path` in a fresh process; (seconds, peak MB growth) or an error string."""
    code = r"""
import ctypes, json, sys, time
def hwm():
    for l in open('/proc/self/status'):
        if l.startswith('VmHWM:'):
            return int(l.split()[1]) / 1024.0
cu = ctypes.CDLL('libcuda.so.1')
assert cu.cuInit(0) == 0
dev = ctypes.c_int(); cu.cuDeviceGet(ctypes.byref(dev), 0)
ctx = ctypes.c_void_p(); assert cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev) == 0
assert cu.cuCtxSetCurrent(ctx) == 0
text = open(sys.argv[1], 'rb').read() + b'\0'
before = hwm()
mod = ctypes.c_void_p()
t0 = time.perf_counter()
rc = cu.cuModuleLoadDataEx(ctypes.byref(mod), ctypes.c_char_p(text), 0, None, None)
secs = time.perf_counter() - t0
print(json.dumps({"rc": rc, "seconds": secs, "mb": hwm() - before}))
"""
    env = dict(os.environ, CUDA_CACHE_DISABLE="1")
    try:
        p = subprocess.run([sys.executable, "-c", code, path], capture_output=True, text=True,
                           timeout=limit_s, env=env)
    except subprocess.TimeoutExpired:
        return f"> {limit_s:.0f} s (stopped)"
    if p.returncode != 0:
        return f"exit {p.returncode}: {p.stderr.strip()[-200:]}"
    r = json.loads(p.stdout.strip().splitlines()[-1])
    if r["rc"] != 0:
        return f"CUresult {r['rc']}"
    return r


def instrument(wt, src, probe, dst, budget):
    args = ["-p", probe] if re.fullmatch(r"[a-z_]+", probe) else ["-e", probe]
    cmd = [wt, "instrument", *args, "--ptx", src, "-o", dst] + (["--jit-budget", budget] if budget else [])
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if p.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr[-400:]}")
    return p.stderr


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--warptrace", default=os.path.join(ROOT, ".gpu", "warptrace"))
    ap.add_argument("--limit-s", type=float, default=90)
    ap.add_argument("--out-json")
    ap.add_argument("--dry-run", action="store_true", help="instrument every case, load nothing")
    args = ap.parse_args()
    if args.dry_run:
        global load_child
        load_child = lambda path, limit_s: "not run (--dry-run)"
    work = tempfile.mkdtemp(prefix="wt-jit-")
    plain = {}
    rows = []
    for i, (rel, probe) in enumerate(CASES):
        src = os.path.join(CORPUS, rel)
        if rel not in plain:
            plain[rel] = load_child(src, args.limit_s)
        dst = os.path.join(work, f"case{i}.ptx")
        unbudgeted = instrument(args.warptrace, src, probe, dst, "off")
        default = instrument(args.warptrace, src, probe, os.devnull, None)
        refused = sum("over the JIT budget" in l for l in default.splitlines())
        # The prediction of every kernel (instrumented without a budget, so each has one).
        pred = [tuple(map(float, m.groups())) for m in map(PREDICTED.search, unbudgeted.splitlines()) if m]
        t0 = time.perf_counter()
        inst = load_child(dst, args.limit_s)
        rows.append({"file": rel, "probe": probe if len(probe) < 20 else "shared count (-e)",
                     "plain": plain[rel], "instrumented": inst, "wall_s": time.perf_counter() - t0,
                     "predicted_plain_s": sum(p for p, _ in pred), "predicted_s": sum(q for _, q in pred),
                     "kernels_refused_by_default": refused})
        print(json.dumps(rows[-1]), flush=True)
    if args.out_json:
        with open(args.out_json, "w") as f:
            json.dump(rows, f, indent=1)

    def fig(r, key):
        v = r[key]
        return f"{v['seconds']:.2f} s, +{v['mb']:.0f} MB" if isinstance(v, dict) else v

    print()
    print("| module | probe | driver JIT plain | driver JIT instrumented (no budget) | predicted ptxas, "
          "instrumented kernels | refused by the default budget |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['file']} | {r['probe']} | {fig(r, 'plain')} | {fig(r, 'instrumented')} | "
              f"{r['predicted_plain_s']:.2f} s → {r['predicted_s']:.2f} s | {r['kernels_refused_by_default']} |")


if __name__ == "__main__":
    main()
