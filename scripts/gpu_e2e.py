"""The checks of scripts/gpu-e2e.sh: real workloads with and without warptrace.

For each workload: run it plainly, run it under the skeleton probe, and check that
  - the program's output files are bit-identical,
  - @blocks[kernel] equals the launch grid,
  - @ldbytes[kernel] equals the analytic global-load bytes, and so does @ldafter[kernel]
    (the same bytes summed `after` each load): a load whose predicate is false (the
    masked tail of Triton's vector_add) fires neither the probe before it nor the one after.
Prints a table last; exits non-zero if any check fails.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import gpu_e2e_more

PROBE = ("kernel:entry /tid.x == 0 && tid.y == 0 && tid.z == 0/ { @blocks[kernel] = count(); } "
         "mem:global:load { @ldbytes[kernel] = sum(bytes); } "
         "after mem:global:load { @ldafter[kernel] = sum(bytes); }")

N = 1 << 20  # nvcc_app's problem size
NVCC_EXPECT = {
    # block_sum: each in-range thread loads one float; scale_add: two.
    "block_sum(float const*, float*, int)": {"blocks": N // 256, "ldbytes": N * 4},
    "scale_add(float const*, float*, float, int)": {"blocks": N // 256, "ldbytes": 2 * N * 4},
}

# Probe programs whose GPU results must equal the IR interpreter's prediction exactly
# (warptrace-oracle models nvcc_app's kernels instruction by instruction).
ORACLE_PROGRAMS = [
    PROBE,
    "kernel:exit { @exits[kernel] = count(); } mem:global:store { @st[kernel, tid.x % 4] = sum(bytes); }",
    "mem:global:* /ctaid.x % 3 == 1/ { @acc[kernel] = count(); }",
    "kernel:entry { @a[kernel, ctaid.x / 1024] = count(); } kernel:exit:*scale* { @z = sum(tid.x); }",
    "mem:global:load { @h[kernel] = hist(bytes); @mx = max(tid.x); @mn[kernel] = min(ctaid.x + 3); "
    "@av[kernel] = avg(bytes); @s = stats(tid.x); @l = lhist(tid.x, 0, 256, 32); }",
    "kernel:entry { %c = 1; } mem:global:* { %c = %c + 1; } kernel:exit { @per[kernel] = lhist(%c, 0, 8, 1); }",
    "warp kernel:exit { @w[kernel] = count(); } warp mem:global:load { @wl[kernel, warp] = count(); }",
    "sync:barrier { @bars[kernel] = count(); } kernel:entry { @nt = max(ntid.x); @nb = max(nctaid.x); "
    "@th = max(thread); @bl[kernel] = max(block); @ln = max(lane); }",
    # Natural loops: block_sum's reduction loop runs 8 iterations in every thread (a header
    # each, 7 back edges taken, one exit through the latch's fall-through); per warp too.
    "loop:header { @lh[kernel] = count(); } loop:backedge { @lb[kernel] = count(); } "
    "loop:exit { @lx[kernel] = count(); } warp loop:header { @wh[kernel, warp] = count(); }",
    # Array maps and `launch`: per-thread records, per-warp records from the leader (block_sum's
    # warp 0 leaves through two exits: its second save finds the slot taken, one lost event).
    "map @t: array(per = thread, slots = 2); map @w: array(per = warp, slots = 1); "
    "kernel:entry /ctaid.x < 2 && tid.x < 3/ { @t = (tid.x, launch); } "
    "warp kernel:exit /ctaid.x == 5/ { @w = (warp, launch); } kernel:exit { @l[launch] = count(); }",
]

MAP_LINE = re.compile(r"^@(\w+)\[(.*)\]: (-?\d+)$")


def run(cmd, log, env=None):
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    dt = time.monotonic() - t0
    # Every run goes to one log (the device returns at most 8 files).
    with open(os.path.join(os.path.dirname(log), "runs.log"), "a") as f:
        f.write(f"$ {' '.join(cmd)}\nexit {p.returncode}, {dt:.2f}s\n--- stdout\n{p.stdout}\n--- stderr\n{p.stderr}\n")
    return p, dt


def program_lines(stdout):
    """The lines of a traced run's stdout without warptrace's first, bpftrace's
    `Attaching N probes...`."""
    lines = stdout.splitlines()
    return lines[1:] if lines and re.match(r"^Attaching \d+ probes?\.\.\.$", lines[0]) else lines


def parse_maps(stdout):
    maps = {}
    for line in stdout.splitlines():
        m = MAP_LINE.match(line.strip())
        if m:
            maps.setdefault(m.group(1), {})[m.group(2)] = int(m.group(3))
    return maps


def same_bytes(a, b):
    with open(a, "rb") as fa, open(b, "rb") as fb:
        return fa.read() == fb.read()


def check_workload(name, plain_cmd, traced_cmd, ref_out, wt_out, expect, args, rows):
    p0, t0 = run(plain_cmd, f"{args.out}/{name}-plain.log")
    if p0.returncode != 0:
        rows.append((name, "-", "plain run", "exit 0", f"exit {p0.returncode}", False))
        return
    if expect is None:
        expect = json.loads(p0.stdout.strip().splitlines()[-1])
    p1, t1 = run(traced_cmd, f"{args.out}/{name}-warptrace.log")
    rows.append((name, "-", "exit status", "0", str(p1.returncode), p1.returncode == 0))
    rows.append((name, "-", "output bit-identical", "yes",
                 "yes" if p1.returncode == 0 and same_bytes(ref_out, wt_out) else "no",
                 p1.returncode == 0 and same_bytes(ref_out, wt_out)))
    maps = parse_maps(p1.stdout)
    for kernel, want in expect.items():
        for metric, key in (("blocks", "blocks"), ("ldbytes", "ldbytes"), ("ldafter", "ldbytes")):
            got = maps.get(metric, {}).get(kernel)
            rows.append((name, kernel, metric, str(want[key]), str(got), got == want[key]))
    rows.append((name, "-", "wall s plain/warptrace", f"{t0:.2f}", f"{t1:.2f}", True))
    # The CLI's summary: its last "kernels instrumented" line and the per-kernel lines after it.
    lines = p1.stderr.splitlines()
    starts = [i for i, l in enumerate(lines) if re.search(r"kernels? instrumented", l)]
    print(f"[{name}]", "\n".join(lines[starts[-1]:]) if starts else "no warptrace summary line")


CACHE_LINE = re.compile(r"module cache: (\d+) hits?, (\d+) miss(?:es)?, (\d+) written, "
                        r"(\d+) write failures?; JIT ([\d.]+) ms")
KERNEL_LINE = re.compile(r"^warptrace:   (.*): (instrumented, \d+ sites);")


def cache_counts(stderr):
    """The summary's module-cache counters: hits, misses, written, write failures, JIT ms."""
    m = CACHE_LINE.search(stderr)
    if not m:
        return None
    return tuple(int(g) for g in m.groups()[:4]) + (float(m.group(5)),)


def check_cache(wt, app, ref, work, args, rows):
    """The on-disk module cache: nvcc_app twice with a fresh --cache-dir. The first run
    instruments and JIT-compiles every module and writes one entry each; the second loads
    every instrumented module from the cache (no instrumentation, no JIT) with the same
    output file, kernels and maps. Then every entry is truncated: the third run must take
    them as misses, JIT again, rewrite them, and still produce the same results."""
    cache_dir = tempfile.mkdtemp(prefix="wt-cache-", dir=work)
    runs = []
    for i, step in enumerate(("1st", "2nd", "corrupt")):
        if step == "corrupt":
            for f in os.listdir(cache_dir):
                if f.endswith(".wtc"):
                    path = os.path.join(cache_dir, f)
                    with open(path, "r+b") as fh:
                        fh.truncate(os.path.getsize(path) // 2)
        cout = f"{work}/nvcc_cache_{i}.bin"
        p, dt = run([wt, "-v", "--cache-dir", cache_dir, "-e", PROBE, "--", app, cout],
                    f"{args.out}/nvcc-cache-{step}.log")
        runs.append({
            "ok": p.returncode == 0 and same_bytes(ref, cout),
            "counts": cache_counts(p.stderr),
            "jits": p.stderr.count("instrumented module JIT-compiled"),
            "hit_lines": p.stderr.count("module cache hit:"),
            "maps": parse_maps(p.stdout),
            "kernels": sorted(m.group(1, 2) for m in map(KERNEL_LINE.match, p.stderr.splitlines()) if m),
            "wall": dt,
            "entries": sorted(f for f in os.listdir(cache_dir) if f.endswith(".wtc")),
        })
    first, second, third = runs
    fmt = lambda c: "no cache line" if c is None else f"{c[0]} hits, {c[1]} misses, {c[2]} written, {c[3]} failed"
    c1 = first["counts"]
    ok = (first["ok"] and c1 is not None and c1[0] == 0 and c1[1] >= 1 and c1[2] == c1[1] and c1[3] == 0
          and len(first["entries"]) == c1[2] and first["jits"] >= 1)
    rows.append(("cache", "-", "1st run: each module a miss, JIT, entry written",
                 "0 hits, N>=1 misses, N written, 0 failed", f"{fmt(c1)}, {len(first['entries'])} files, "
                 f"{first['jits']} JITs", ok))
    c2 = second["counts"]
    n = c1[2] if c1 else -1
    ok = (second["ok"] and c2 is not None and c2[:4] == (n, 0, 0, 0) and second["jits"] == 0
          and second["hit_lines"] == n and c2[4] == 0.0 and second["entries"] == first["entries"])
    rows.append(("cache", "-", "2nd run: every module a hit, no JIT", f"{n} hits, 0 misses, 0 written, 0 failed",
                 f"{fmt(c2)}, {second['jits']} JITs, JIT {c2[4] if c2 else '?'} ms", ok))
    same = (first["ok"] and second["ok"] and bool(first["maps"]) and first["maps"] == second["maps"]
            and bool(first["kernels"]) and first["kernels"] == second["kernels"])
    rows.append(("cache", "-", "2nd run: output, kernels, maps == 1st", "identical",
                 f"{len(second['kernels'])} kernels, {sum(len(v) for v in second['maps'].values())} map entries, "
                 f"{'identical' if same else 'DIFFERENT'}", same))
    rows.append(("cache", "-", "wall s 1st/2nd run", "-", f"{first['wall']:.2f} / {second['wall']:.2f}", True))
    c3 = third["counts"]
    ok = (third["ok"] and c3 is not None and c3[:4] == (0, n, n, 0) and third["jits"] >= 1
          and third["maps"] == first["maps"] and third["kernels"] == first["kernels"])
    rows.append(("cache", "-", "truncated entries: misses, rewritten, same results",
                 f"0 hits, {n} misses, {n} written, 0 failed", fmt(c3), ok))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    # Output files of the workloads go to a scratch folder; only logs go to --out.
    work = tempfile.mkdtemp(prefix="wt-e2e-")
    wt = os.path.join(args.bin, "warptrace")
    rows = []

    app = os.path.join(args.bin, "nvcc_app")
    ref, out = f"{work}/nvcc_ref.bin", f"{work}/nvcc_wt.bin"
    check_workload("nvcc_app", [app, ref], [wt, "-v", "-e", PROBE, "--", app, out], ref, out,
                   NVCC_EXPECT, args, rows)

    # Fault injection: a forced JIT failure and a forced map-allocation failure must leave
    # the program's output unchanged, with the fault counted in the summary.
    for fault, reason in (("jit", "JIT error"), ("alloc", "map allocation")):
        env = dict(os.environ, WARPTRACE_FAULT=fault)
        fout = f"{work}/nvcc_fault_{fault}.bin"
        p, _ = run([wt, "-v", "-e", PROBE, "--", app, fout], f"{args.out}/nvcc-fault-{fault}.log", env)
        same = p.returncode == 0 and same_bytes(ref, fout)
        rows.append((f"fault:{fault}", "-", "output bit-identical", "yes", "yes" if same else "no", same))
        counted = reason.lower() in p.stderr.lower()
        rows.append((f"fault:{fault}", "-", "fault counted", reason, "yes" if counted else "no", counted))

    check_cache(wt, app, ref, work, args, rows)

    # The interpreter is the oracle: the same programs, predicted on the CPU.
    oracle = os.path.join(args.bin, "warptrace-oracle")
    for i, program in enumerate(ORACLE_PROGRAMS):
        oout = f"{work}/nvcc_oracle_{i}.bin"
        p, _ = run([wt, "-e", program, "--", app, oout], f"{args.out}/oracle-{i}-gpu.log")
        q, _ = run([oracle, "-e", program], f"{args.out}/oracle-{i}-interp.log")
        # warptrace's `Attaching N probes...`, then one line of the program's own before
        # warptrace's maps; lost events go to stderr (the oracle prints them last).
        gpu = program_lines(p.stdout)[1:] + [l for l in p.stderr.splitlines() if l.startswith("Lost ")]
        sim = q.stdout.splitlines()
        ok = p.returncode == 0 and q.returncode == 0 and gpu == sim and len(gpu) > 0
        rows.append((f"oracle:{i}", "-", "GPU maps == interpreter", f"{len(sim)} lines",
                     f"{len(gpu)} lines, {'equal' if gpu == sim else 'DIFFERENT'}", ok))

    # A drop ring that overflows (decision 0024): which appends win the 100 slots is a race,
    # but how many records are kept and how many are lost is not. A thread that has seen
    # the ring full counts its later drops itself and adds them at its exit: the lost count
    # equals the interpreter's only if every exit flushes them.
    ring = ("map @r: ring(capacity = 100, overflow = drop); "
            "mem:global:* /ctaid.x % 2 == 0/ { @r = (ctaid.x, tid.x); }")
    p, _ = run([wt, "-e", ring, "--", app, f"{work}/nvcc_ring.bin"], f"{args.out}/ring-gpu.log")
    q, _ = run([oracle, "-e", ring], f"{args.out}/ring-interp.log")
    recs = [l for l in p.stdout.splitlines() if l.startswith("@r: ")]
    want_recs = [l for l in q.stdout.splitlines() if l.startswith("@r: ")]
    lost = [l for l in p.stderr.splitlines() if l.startswith("Lost ")]
    want_lost = [l for l in q.stdout.splitlines() if l.startswith("Lost ")]
    even = all(int(l[len("@r: ("):].split(",")[0]) % 2 == 0 for l in recs)
    ok = p.returncode == 0 and len(recs) == len(want_recs) > 0 and lost == want_lost and even
    rows.append(("ring:drop", "-", "overflowing ring: records kept / lost",
                 f"{len(want_recs)} / {' '.join(want_lost) or '-'}",
                 f"{len(recs)} / {' '.join(lost) or '-'}{'' if even else ' (odd block!)'}", ok))

    # NEUTRINO's block scheduling as LANGUAGE.md writes it: one histogram sample per warp
    # exit (block_sum's warp 0 leaves through two exits, so 9 per block; scale_add 8).
    sched = "kernel:entry { %t0 = clock64; } warp kernel:exit { @sched[smid] = hist(clock64 - %t0); }"
    p, _ = run([wt, "-e", sched, "--", app, f"{work}/nvcc_sched.bin"], f"{args.out}/nvcc-sched.log")
    samples = sum(int(m.group(1)) for m in re.finditer(r"^\[[^\]\n]*[\])]\s+(\d+) \|", p.stdout, re.M))
    want = (N // 256) * (9 + 8)
    rows.append(("block_sched", "-", "warp samples in @sched", str(want), str(samples), samples == want))

    # `warpid` (decision 0039): one sample per warp at entry, keyed by the warp's hardware
    # slot — every warp counted, every slot below the 64 warps an SM holds.
    wid = "warp kernel:entry { @w[warpid] = count(); @top = max(warpid); }"
    p, _ = run([wt, "-e", wid, "--", app, f"{work}/nvcc_warpid.bin"], f"{args.out}/nvcc-warpid.log")
    keys = [(int(m.group(1)), int(m.group(2)))
            for m in re.finditer(r"^@w\[(\d+)\]: (\d+)$", p.stdout, re.M)]
    top = re.search(r"^@top: (\d+)$", p.stdout, re.M)
    warps = sum(n for _, n in keys)
    want = 2 * (N // 256) * 8
    ok = (p.returncode == 0 and warps == want and top is not None
          and all(k < 64 for k, _ in keys) and int(top.group(1)) == max(k for k, _ in keys))
    rows.append(("warpid", "-", "warps counted by hardware slot; slots < 64",
                 f"{want} warps", f"{warps} warps over {len(keys)} slots, max {top.group(1) if top else '?'}", ok))

    # Device printf: the host formats the records.
    pf = 'kernel:exit:*scale* /ctaid.x == 7 && tid.x < 3/ { printf("blk %d thr %d\\n", ctaid.x, tid.x); }'
    p, _ = run([wt, "-e", pf, "--", app, f"{work}/nvcc_printf.bin"], f"{args.out}/nvcc-printf.log")
    lines = sorted(l for l in p.stdout.splitlines() if l.startswith("blk "))
    want = [f"blk 7 thr {i}" for i in range(3)]
    rows.append(("printf", "-", "device printf records", " / ".join(want), " / ".join(lines), lines == want))

    # Launch selection as Nsight Compute's: skip block_sum's launch, probe the next one.
    sel_out = f"{work}/nvcc_select.bin"
    p, _ = run([wt, "-v", "--launch-skip", "1", "--launch-count", "1", "-e", PROBE, "--", app, sel_out],
               f"{args.out}/nvcc-select.log")
    got = parse_maps(p.stdout).get("blocks", {})
    want = {"scale_add(float const*, float*, float, int)": N // 256}
    ok = p.returncode == 0 and got == want and same_bytes(ref, sel_out) and "not selected" in p.stderr
    rows.append(("select", "-", "--launch-skip 1 --launch-count 1", f"scale_add={N // 256} only",
                 ", ".join(f"{k.split('(')[0]}={v}" for k, v in got.items()) or "none", ok))

    # A library probe by name.
    p, _ = run([wt, "-p", "blocks", "--", app, f"{work}/nvcc_lib.bin"], f"{args.out}/nvcc-lib.log")
    got = parse_maps(p.stdout).get("blocks", {})
    want = {k: v["blocks"] for k, v in NVCC_EXPECT.items()}
    rows.append(("-p blocks", "-", "library probe by name", f"{N // 256} per kernel",
                 ", ".join(str(v) for v in got.values()) or "none", p.returncode == 0 and got == want))

    # Resident map buffers (decision 0014): `-p blocks` keeps one buffer per kernel on the
    # device, read back at exit; --per-launch-buffers gives every launch its own, copied
    # back after it. The maps must be the same, and the resident read-back must have run.
    maps = {}
    for mode, extra in (("resident", []), ("per-launch", ["--per-launch-buffers"])):
        p, _ = run([wt, "-v", *extra, "-p", "blocks", "--", app, f"{work}/nvcc_{mode}.bin"],
                   f"{args.out}/nvcc-{mode}.log")
        maps[mode] = (p.returncode, parse_maps(p.stdout), p.stderr.count("resident map buffer read back"))
    (rc0, m0, n0), (rc1, m1, n1) = maps["resident"], maps["per-launch"]
    ok = rc0 == 0 and rc1 == 0 and m0 == m1 and len(m0) > 0 and n0 == 2 and n1 == 0
    rows.append(("resident", "-", "-p blocks: resident == per-launch maps; read back once per kernel",
                 "equal; 2 / 0 read-backs", f"{'equal' if m0 == m1 else 'DIFFERENT'}; {n0} / {n1} read-backs",
                 ok))

    # A cooperative launch (cudaLaunchCooperativeKernel → cuLaunchCooperativeKernel) with a
    # grid.sync(): probed, 64 blocks counted, outputs bit-identical.
    coop = os.path.join(args.bin, "coop_app")
    cref, cout = f"{work}/coop_ref.bin", f"{work}/coop_wt.bin"
    run([coop, cref], f"{args.out}/coop-plain.log")
    p, _ = run([wt, "-v", "-e", PROBE, "--", coop, cout], f"{args.out}/coop-traced.log")
    blocks = parse_maps(p.stdout).get("blocks", {})
    got = sum(blocks.values())
    ok = p.returncode == 0 and os.path.exists(cref) and same_bytes(cref, cout) and got == 64
    rows.append(("coop_app", "grid_sum", "cooperative launch probed, output identical", "64 blocks",
                 f"{got} blocks", ok))

    # A probe the PTX back end cannot place (`after` a `ret`: nothing runs after it): every
    # kernel must run unchanged, counted as "not supported yet".
    unsupported = "after ptx:ret { @r = count(); }"
    uout = f"{work}/nvcc_unsupported.bin"
    p, _ = run([wt, "-v", "-e", unsupported, "--", app, uout], f"{args.out}/nvcc-unsupported.log")
    same = p.returncode == 0 and same_bytes(ref, uout)
    rows.append(("unsupported", "-", "output bit-identical", "yes", "yes" if same else "no", same))
    counted = "not supported yet: 2" in p.stderr
    rows.append(("unsupported", "-", "kernels counted", "not supported yet: 2", "yes" if counted else "no", counted))

    # z3 travels with the binaries: the CLI and the preloaded runtime resolve libz3 from
    # the package, not from the machine (which has only the NVIDIA driver's libraries).
    for f in ("warptrace", "libwarptrace_preload.so"):
        ldd = subprocess.run(["ldd", os.path.join(args.bin, f)], capture_output=True, text=True).stdout
        z3 = [l.split("=>")[1].split("(")[0].strip() for l in ldd.splitlines() if "libz3" in l]
        ok = len(z3) == 1 and os.path.dirname(os.path.realpath(z3[0])) == os.path.realpath(args.bin)
        rows.append(("z3 shipped", f, "libz3 from the package", "yes", z3[0] if z3 else "missing", ok))
    # Verify on the GPU machine, write a certificate, and run the certified probe with
    # --require-cert; a different program is refused and nothing runs.
    probe_file, cert = f"{work}/probe.wt", f"{work}/probe.cert.json"
    with open(probe_file, "w") as fh:
        fh.write(PROBE)
    v, _ = run([wt, "verify", probe_file, "--cert", cert], f"{args.out}/verify.log")
    rows.append(("verify", "-", "verified, certificate", "exit 0",
                 f"exit {v.returncode}", v.returncode == 0 and os.path.exists(cert)))
    cout = f"{work}/nvcc_cert.bin"
    c, _ = run([wt, "--require-cert", cert, probe_file, "--", app, cout], f"{args.out}/cert-run.log")
    ok = c.returncode == 0 and same_bytes(f"{work}/nvcc_ref.bin", cout) and "@blocks" in c.stdout
    rows.append(("verify", "-", "--require-cert run", "runs, maps", f"exit {c.returncode}", ok))
    r, _ = run([wt, "--require-cert", cert, "-e", PROBE + " kernel:exit { @e = count(); }", "--", app,
                f"{work}/nvcc_refused.bin"], f"{args.out}/cert-refused.log")
    refused = r.returncode == 2 and not os.path.exists(f"{work}/nvcc_refused.bin")
    rows.append(("verify", "-", "uncertified program refused", "exit 2", f"exit {r.returncode}", refused))

    # Warp combining (one atomic per warp for a warp-uniform key) against one per lane
    # (WARPTRACE_NO_WARP_COMBINE=1): Triton vector add's kernel time, same map contents.
    timing = "tests/workloads/triton_timing.py"
    hot = "mem:global:load { @n[kernel] = count(); @b[kernel] = sum(bytes); }"
    base, _ = run([sys.executable, timing], f"{args.out}/timing-plain.log")
    comb, _ = run([wt, "-e", hot, "--", sys.executable, timing], f"{args.out}/timing-combined.log")
    lane, _ = run([wt, "-e", hot, "--", sys.executable, timing], f"{args.out}/timing-per-lane.log",
                  dict(os.environ, WARPTRACE_NO_WARP_COMBINE="1"))
    us = [re.search(r"median_us=([\d.]+)", q.stdout) for q in (base, comb, lane)]
    same = parse_maps(comb.stdout) == parse_maps(lane.stdout) and bool(parse_maps(comb.stdout))
    figures = " / ".join(m.group(1) if m else "?" for m in us)
    rows.append(("warp combine", "vector_add", "us plain / combined / per lane", "maps equal", figures,
                 all(us) and same))

    # Warp-combined map updates (one atomic per warp for warp-uniform keys): atomics per
    # site, nvcc_bench's kernel time and maps with combining on and off
    # (WARPTRACE_NO_WARP_COMBINE=1), per-lane reductions against the interpreter.
    import warp_combine
    wargs = argparse.Namespace(bin=args.bin, out=args.out, ptx="tests/corpus/ptx/nvcc_app.ptx",
                               n=1 << 24, iters=20)
    warp_combine.static(wargs, rows, warp_combine.PROBE, "bench")
    warp_combine.static(wargs, rows, warp_combine.LANES, "lanes")
    warp_combine.gpu(wargs, rows, work)

    script = "tests/workloads/triton_workload.py"
    ref, out = f"{work}/triton_ref.bin", f"{work}/triton_wt.bin"
    check_workload("triton", [sys.executable, script, ref],
                   [wt, "-v", "-e", PROBE, "--", sys.executable, script, out], ref, out,
                   None, args, rows)

    # Issue 6's remaining checks (Numba, CuPy, Nsight Compute, -o/--trace, spawn children,
    # torch.compile): scripts/gpu_e2e_more.py, each failure a row, within its time budget.
    gpu_e2e_more.run_all(args, rows, work, wt)

    # Several devices and contexts in one process: scripts/gpu_e2e_ctx.py.
    import gpu_e2e_ctx
    gpu_e2e_ctx.run_all(args, rows, work, wt)

    widths = [max(len(str(r[i])) for r in rows + [("workload", "kernel", "check", "expected", "got", "")])
              for i in range(5)]
    print()
    header = ("workload", "kernel", "check", "expected", "got")
    print(" | ".join(h.ljust(w) for h, w in zip(header, widths)) + " | ok")
    print("-+-".join("-" * w for w in widths) + "-+---")
    for r in rows:
        print(" | ".join(str(c).ljust(w) for c, w in zip(r[:5], widths)) + " | " + ("yes" if r[5] else "NO"))
    failed = sum(1 for r in rows if not r[5])
    print(f"\n{len(rows) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
