"""Warp-combined map updates, measured: one atomic per warp instead of one per thread when a
hash update's key is warp-uniform (codegen-ptx/src/combine.rs). WARPTRACE_NO_WARP_COMBINE=1
turns combining off, so every figure is taken both ways.

  static (CPU, no GPU needed):  python3 scripts/warp_combine.py --static [--bin DIR]
      instruments tests/corpus/ptx/nvcc_app.ptx with the measured probe, combining on and
      off, and prints per site the atomics a full warp issues (32 lanes, key found by the
      first probe) and the warp collectives it adds.
  GPU (called by scripts/gpu_e2e.py, or alone):  python3 scripts/warp_combine.py --bin .gpu
      nvcc_bench (tests/workloads/nvcc_bench.cu) plain, under warptrace with combining,
      and without: the kernel time of each and the maps (identical on/off, and equal to the
      launch count); then per-lane sums/min/max on nvcc_app, on/off and against the IR
      interpreter (warptrace-oracle).

Every figure is one line starting `warp-combine:`; the checks also go to the e2e table.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

DISABLE = "WARPTRACE_NO_WARP_COMBINE"
# The measured probe: the example, a count and a sum of a per-instruction constant
# at every global load, both keyed by the kernel (warp-uniform).
PROBE = "mem:global:load { @loads[kernel] = count(); @bytes[kernel] = sum(bytes); }"
# Per-lane operands under uniform keys: 64-bit sums in 22-bit limbs, min/max in halves,
# avg/stats, and uniform-value hist/min; the IR interpreter predicts them on nvcc_app.
LANES = ("mem:global:load { @s[kernel] = sum(tid.x * 0x10000000000 + ctaid.x * 3 + 1); "
         "@mx[kernel] = max(ctaid.x * 256 + tid.x); @mn[ctaid.x % 4] = min(tid.x + 7); "
         "@av[kernel] = avg(tid.x); @st = stats(ctaid.x); @h[kernel] = hist(bytes); }")
MAP_LINE = re.compile(r"^@(\w+)(?:\[(.*)\])?: (-?\d+)$")


def say(what, value):
    print(f"warp-combine: {what:<44} {value}", flush=True)


def parse_maps(stdout):
    maps = {}
    for line in stdout.splitlines():
        m = MAP_LINE.match(line.strip())
        if m:
            maps.setdefault(m.group(1), {})[m.group(2) or ""] = int(m.group(3))
    return maps


def run(cmd, env=None, log=None):
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if log:
        with open(log, "a") as f:
            f.write(f"$ {' '.join(cmd)}\nexit {p.returncode}\n--- stdout\n{p.stdout}\n--- stderr\n{p.stderr}\n")
    return p


def env_off():
    return dict(os.environ, **{DISABLE: "1"})


def env_on():
    env = dict(os.environ)
    env.pop(DISABLE, None)
    return env


# ---- static: atomics per site -----------------------------------------------------------

def snippet_updates(ptx):
    """Per snippet (kernel, snippet number, site line), its updates: (combined, atomics on
    the path where the first probe finds the key, collectives)."""
    sites = []
    kernel = None
    lines = ptx.splitlines()
    for i, line in enumerate(lines):
        m = re.match(r"\.(?:visible\s+)?\.entry\s+(\S+?)\(", line.strip()) or \
            re.match(r"\.(?:visible\s+)?\.entry\s+(\S+)", line.strip())
        if m:
            kernel = m.group(1)
        m = re.search(r"// warptrace: snippet (\d+): probe (\d+)", line)
        if not m:
            continue
        n = m.group(1)
        body = []
        # Every line of a snippet names a probe register or label (`__wt_`, a prefix the
        # kernel may not use), except its comments.
        for l in lines[i + 1:]:
            t = l.strip()
            if "// warptrace: snippet" in t or not ("__wt_" in t or t.startswith("// warp-combined")):
                break
            body.append(t)
        text = "\n".join(body)
        updates = []
        for u in sorted(set(re.findall(rf"\$__wt_{n}_m(\d+)_add:", text)), key=int):
            add = text.index(f"$__wt_{n}_m{u}_add:")
            done = text.index(f"$__wt_{n}_m{u}_done:")
            words = len(re.findall(r"^(?:@\S+ )?(?:atom|red)\.", text[add:done], re.M))
            combined = f"$__wt_{n}_m{u}_skip:" in text
            start = text.rfind("warp-combined", 0, add) if combined else -1
            collectives = len(re.findall(r"redux\.sync", text[start:add])) if combined else 0
            updates.append((combined, 1 + words, collectives))
        # The line of the probed instruction: the first kernel line after the snippet.
        site = next((l.strip() for l in lines[i + 1 + len(body):] if l.strip() and not l.strip().startswith("//")), "?")
        sites.append((kernel, int(n), site, updates))
    return sites


def static(args, rows, probe, name):
    wt = os.path.join(args.bin, "warptrace")
    ptx = args.ptx
    out = {}
    for mode, env in (("combined", env_on()), ("per-thread", env_off())):
        p = run([wt, "instrument", "-e", probe, "--ptx", ptx], env=env)
        if p.returncode != 0:
            say(f"instrument ({mode})", f"FAILED: {p.stderr.strip()}")
            rows.append(("warp-combine", "-", f"instrument {mode}", "exit 0", f"exit {p.returncode}", False))
            return
        out[mode] = snippet_updates(p.stdout)
    total = {"combined": 0, "per-thread": 0}
    say(f"{name} probe", probe)
    say(f"{name} module", os.path.relpath(ptx))
    for (kernel, n, site, on), (_, _, _, off) in zip(out["combined"], out["per-thread"]):
        a_on = sum(a if c else 32 * a for c, a, _ in on)
        a_off = sum(a if c else 32 * a for c, a, _ in off)
        coll = sum(k for _, _, k in on)
        total["combined"] += a_on
        total["per-thread"] += a_off
        say(f"{name} atomics/warp {kernel[:24]} #{n}",
            f"per-thread {a_off}, combined {a_on} (+{coll} redux) at `{site[:40]}`")
    ok = total["combined"] < total["per-thread"] and total["combined"] > 0
    say(f"{name} atomics/warp, all sites", f"per-thread {total['per-thread']}, combined {total['combined']}")
    rows.append(("warp-combine", name, "atomics/warp (static)", f"< {total['per-thread']}",
                 str(total["combined"]), ok))


# ---- GPU: kernel time and maps -----------------------------------------------------------

def bench_line(stdout):
    for line in stdout.splitlines():
        line = line.strip()
        if line.startswith("{") and '"median_ms"' in line:
            return json.loads(line)
    return None


def gpu(args, rows, work):
    wt = os.path.join(args.bin, "warptrace")
    bench = os.path.join(args.bin, "nvcc_bench")
    log = os.path.join(args.out, "warp-combine.log")
    if not os.path.exists(bench):
        say("nvcc_bench", f"missing in {args.bin} (scripts/package-gpu.sh builds it)")
        rows.append(("warp-combine", "-", "nvcc_bench packaged", "yes", "no", False))
        return
    bargs = [str(args.n), str(args.iters)]
    runs = {}
    for mode, cmd, env in (
        ("plain", [bench] + bargs, None),
        ("combined", [wt, "-e", PROBE, "--", bench] + bargs, env_on()),
        ("per-thread", [wt, "-e", PROBE, "--", bench] + bargs, env_off()),
    ):
        p = run(cmd, env=env, log=log)
        b = bench_line(p.stdout)
        if p.returncode != 0 or b is None:
            say(f"kernel time {mode}", f"FAILED (exit {p.returncode}; see {log})")
            rows.append(("warp-combine", "-", f"nvcc_bench {mode}", "exit 0", f"exit {p.returncode}", False))
            return
        runs[mode] = (b, parse_maps(p.stdout))
    plain = runs["plain"][0]["median_ms"]
    for mode in ("plain", "combined", "per-thread"):
        b = runs[mode][0]
        rel = "" if mode == "plain" else f" ({b['median_ms'] / plain:.2f}x plain)"
        say(f"kernel time {mode}", f"{b['median_ms']:.4f} ms median, {b['min_ms']:.4f} ms min "
            f"of {b['launches'] - 1} launches, n={b['n']}{rel}")
    on, off = runs["combined"][0]["median_ms"], runs["per-thread"][0]["median_ms"]
    say("speed-up of combining (per-thread / combined)", f"{off / on:.2f}x")
    rows.append(("warp-combine", "nvcc_bench", "kernel ms plain/combined/per-thread",
                 "-", f"{plain:.3f}/{on:.3f}/{off:.3f}", True))
    same = runs["combined"][1] == runs["per-thread"][1] and bool(runs["combined"][1])
    say("maps identical combined vs per-thread", "yes" if same else
        f"NO: combined {runs['combined'][1]} per-thread {runs['per-thread'][1]}")
    rows.append(("warp-combine", "nvcc_bench", "maps identical on/off", "yes", "yes" if same else "no", same))
    b = runs["combined"][0]
    want_loads = b["launches"] * b["loads_per_launch"]
    got = runs["combined"][1].get("loads", {}).get(b["kernel"])
    got_bytes = runs["combined"][1].get("bytes", {}).get(b["kernel"])
    ok = got == want_loads and got_bytes == 4 * want_loads
    say("@loads / @bytes (combined)", f"{got} / {got_bytes}, expected {want_loads} / {4 * want_loads}")
    rows.append(("warp-combine", "nvcc_bench", "@loads, @bytes exact", f"{want_loads}, {4 * want_loads}",
                 f"{got}, {got_bytes}", ok))
    # Per-lane operands (the redux.sync paths) on nvcc_app: on, off, and the interpreter.
    app, oracle = os.path.join(args.bin, "nvcc_app"), os.path.join(args.bin, "warptrace-oracle")
    results = {}
    for mode, env in (("combined", env_on()), ("per-thread", env_off())):
        p = run([wt, "-e", LANES, "--", app, f"{work}/wc_{mode}.bin"], env=env, log=log)
        # Without warptrace's `Attaching N probes...` and the program's own first line.
        lines = [l for l in p.stdout.splitlines() if not re.match(r"^Attaching \d+ probes?\.\.\.$", l)]
        results[mode] = lines[1:] if p.returncode == 0 else None
    q = run([oracle, "-e", LANES], log=log)
    sim = q.stdout.splitlines() if q.returncode == 0 else None
    ok = results["combined"] is not None and results["combined"] == results["per-thread"] == sim and sim
    say("per-lane sums/min/max: on == off == interpreter",
        f"{'yes' if ok else 'NO'} ({len(sim or [])} lines)")
    rows.append(("warp-combine", "nvcc_app", "per-lane maps on == off == interp", "equal",
                 "equal" if ok else "DIFFERENT", bool(ok)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=".gpu", help="folder with warptrace (and nvcc_bench, nvcc_app, "
                    "warptrace-oracle for the GPU part)")
    ap.add_argument("--out", default=None, help="where the log goes (default: a temp folder)")
    ap.add_argument("--static", action="store_true", help="only the CPU-side atomics per site")
    ap.add_argument("--ptx", default="tests/corpus/ptx/nvcc_app.ptx", help="module for --static")
    ap.add_argument("--n", type=int, default=1 << 24, help="nvcc_bench elements (threads)")
    ap.add_argument("--iters", type=int, default=20, help="nvcc_bench timed launches")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="wt-wc-")
    args.out = args.out or work
    os.makedirs(args.out, exist_ok=True)
    rows = []
    static(args, rows, PROBE, "bench")
    static(args, rows, LANES, "lanes")
    if not args.static:
        gpu(args, rows, work)
    failed = [r for r in rows if not r[5]]
    say("result", f"{len(rows) - len(failed)} passed, {len(failed)} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
