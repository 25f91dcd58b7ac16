"""The checks of scripts/gpu-e2e.sh: real workloads with and without warptrace.

For each workload: run it plainly, run it under the skeleton probe, and check that
  - the program's output files are bit-identical,
  - @blocks[kernel] equals the launch grid,
  - @ldbytes[kernel] equals the analytic global-load bytes.
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

PROBE = ("kernel:entry /tid.x == 0 && tid.y == 0 && tid.z == 0/ { @blocks[kernel] = count(); } "
         "mem:global:load { @ldbytes[kernel] = sum(bytes); }")

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
        for metric in ("blocks", "ldbytes"):
            got = maps.get(metric, {}).get(kernel)
            rows.append((name, kernel, metric, str(want[metric]), str(got), got == want[metric]))
    rows.append((name, "-", "wall s plain/warptrace", f"{t0:.2f}", f"{t1:.2f}", True))
    # The CLI's summary: its last "kernels instrumented" line and the per-kernel lines after it.
    lines = p1.stderr.splitlines()
    starts = [i for i, l in enumerate(lines) if "kernels instrumented" in l]
    print(f"[{name}]", "\n".join(lines[starts[-1]:]) if starts else "no warptrace summary line")


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

    # The interpreter is the oracle: the same programs, predicted on the CPU.
    oracle = os.path.join(args.bin, "warptrace-oracle")
    for i, program in enumerate(ORACLE_PROGRAMS):
        oout = f"{work}/nvcc_oracle_{i}.bin"
        p, _ = run([wt, "-e", program, "--", app, oout], f"{args.out}/oracle-{i}-gpu.log")
        q, _ = run([oracle, "-e", program], f"{args.out}/oracle-{i}-interp.log")
        # The program prints one line of its own before warptrace's maps.
        gpu = p.stdout.splitlines()[1:]
        sim = q.stdout.splitlines()
        ok = p.returncode == 0 and q.returncode == 0 and gpu == sim and len(gpu) > 0
        rows.append((f"oracle:{i}", "-", "GPU maps == interpreter", f"{len(sim)} lines",
                     f"{len(gpu)} lines, {'equal' if gpu == sim else 'DIFFERENT'}", ok))

    # NEUTRINO's block scheduling as LANGUAGE.md writes it: one histogram sample per warp
    # exit (block_sum's warp 0 leaves through two exits, so 9 per block; scale_add 8).
    sched = "kernel:entry { %t0 = clock64; } warp kernel:exit { @sched[smid] = hist(clock64 - %t0); }"
    p, _ = run([wt, "-e", sched, "--", app, f"{work}/nvcc_sched.bin"], f"{args.out}/nvcc-sched.log")
    samples = sum(int(m.group(1)) for m in re.finditer(r"^\[[^\]\n]*[\])]\s+(\d+) \|", p.stdout, re.M))
    want = (N // 256) * (9 + 8)
    rows.append(("block_sched", "-", "warp samples in @sched", str(want), str(samples), samples == want))

    # Device printf: the host formats the records.
    pf = 'kernel:exit:*scale* /ctaid.x == 7 && tid.x < 3/ { printf("blk %d thr %d\\n", ctaid.x, tid.x); }'
    p, _ = run([wt, "-e", pf, "--", app, f"{work}/nvcc_printf.bin"], f"{args.out}/nvcc-printf.log")
    lines = sorted(l for l in p.stdout.splitlines() if l.startswith("blk "))
    want = [f"blk 7 thr {i}" for i in range(3)]
    rows.append(("printf", "-", "device printf records", " / ".join(want), " / ".join(lines), lines == want))

    # A probe the PTX back end cannot lower yet (`launch` needs a load from the map
    # buffer): every kernel must run unchanged, counted as "not supported yet".
    unsupported = "kernel:entry { @l[launch] = count(); }"
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

    script = "tests/workloads/triton_workload.py"
    ref, out = f"{work}/triton_ref.bin", f"{work}/triton_wt.bin"
    check_workload("triton", [sys.executable, script, ref],
                   [wt, "-v", "-e", PROBE, "--", sys.executable, script, out], ref, out,
                   None, args, rows)

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
