"""Child processes of scripts/gpu-e2e.sh (scripts/gpu_e2e_more.py): a parent that starts two
`multiprocessing` children, each launching Triton's vector add once on its own size.

Usage: python mp_children_workload.py OUT_FILE [spawn|fork]   (default spawn)
The parent never touches CUDA (it does not even import torch), so either start method
works: `spawn` execs a fresh interpreter (the preloaded runtime starts in it from scratch;
the child leaves through sys.exit, so atexit runs), `fork` copies the parent (the child
leaves through os._exit, which skips atexit: the runtime's own _exit writes its report).
Each child runs vector_add of tests/corpus/src on n_i floats with BLOCK=1024, checks it,
writes its output to OUT_FILE.<i> and exits. The parent then concatenates the children's
outputs into OUT_FILE (so runs with and without warptrace can be compared bit for bit)
and prints, as JSON, the expected @blocks[vector_add] over both children (the sum of their
grids, ceil(n_i / 1024)) and the pids of the parent and the children, which warptrace's
summary must list.
"""
import json
import multiprocessing as mp
import os
import sys

SIZES = (300_007, 700_001)   # distinct grids (293 and 684 blocks), both with a masked tail
BLOCK = 1024


def cdiv(a, b):
    return (a + b - 1) // b


def child(i, n, out_file):
    import torch
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "corpus", "src"))
    from triton_kernels import vector_add
    g = torch.Generator(device="cuda").manual_seed(100 + i)
    x = torch.rand(n, device="cuda", generator=g)
    y = torch.rand(n, device="cuda", generator=g)
    z = torch.empty_like(x)
    vector_add[(cdiv(n, BLOCK),)](x, y, z, n, BLOCK=BLOCK, num_warps=4)
    torch.cuda.synchronize()
    assert torch.equal(z, x + y), f"child {i}: vector_add mismatch"
    with open(f"{out_file}.{i}", "wb") as f:
        f.write(z.cpu().numpy().tobytes())


def main(out_file, method):
    ctx = mp.get_context(method)
    procs = [ctx.Process(target=child, args=(i, n, out_file)) for i, n in enumerate(SIZES)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    codes = [p.exitcode for p in procs]
    if any(codes):
        raise SystemExit(f"mp_children_workload: child exit codes {codes}")
    with open(out_file, "wb") as f:
        for i in range(len(SIZES)):
            part = f"{out_file}.{i}"
            with open(part, "rb") as fh:
                f.write(fh.read())
            os.remove(part)
    grids = [cdiv(n, BLOCK) for n in SIZES]
    print(json.dumps({"vector_add": {"blocks": sum(grids), "grids": grids},
                      "pids": {"parent": os.getpid(), "children": [p.pid for p in procs]},
                      "start_method": method}))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "spawn")
