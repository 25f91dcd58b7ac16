"""Several devices and contexts in one process (issue 6), for scripts/gpu_e2e.py.

tests/workloads/multi_ctx.cu runs one `axpy` in the primary context and in a created
context of every device, each with a grid of its own; under the skeleton probe the
per-kernel totals must equal the sum over every launch (so no context was missed or
counted twice) and the outputs must be bit-identical. On a one-GPU machine this checks
two contexts; on a multi-GPU machine, two per device (the row says how many ran).
"""
import json
import os

from gpu_e2e import PROBE, check_workload, run

AXPY = "axpy(float const*, float*, float, int)"


def run_all(args, rows, work, wt):
    exe = os.path.join(args.bin, "multi_ctx")
    ref, out = f"{work}/multi_ctx_ref.bin", f"{work}/multi_ctx_wt.bin"
    try:
        p, _ = run([exe, f"{work}/multi_ctx_probe.bin"], f"{args.out}/multi-ctx-probe.log")
        facts = json.loads(p.stdout.strip().splitlines()[-1])
        rows.append(("multi_ctx", "-", "devices x contexts run", ">= 1 x 2",
                     f"{facts['devices']} x 2 = {facts['contexts']} launches",
                     p.returncode == 0 and facts["contexts"] == 2 * facts["devices"] >= 2))
        expect = {AXPY: facts["axpy"]}
        check_workload("multi_ctx", [exe, ref], [wt, "-v", "-e", PROBE, "--", exe, out], ref, out,
                       expect, args, rows)
    except Exception as e:  # a failed row, not an aborted run
        rows.append(("multi_ctx", "-", "ran", "yes", f"error: {e}", False))
