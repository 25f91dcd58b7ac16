"""A long-running program for the live-results check of scripts/gpu_e2e_more.py: a small
Triton kernel (vector add, 4 blocks) launched every 10 ms for SECONDS seconds, as a server
would serve requests. Each launch adds 1 to every element, so the result says whether every
launch ran as it should: prints, as JSON, how many launches it made and whether the result
is that many ones added; writes the result's bytes to OUT_FILE.

Usage: python long_loop.py SECONDS OUT_FILE
"""
import json
import os
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "corpus", "src"))
from triton_kernels import vector_add  # noqa: E402


def main(seconds, out_file):
    n, block = 4096, 1024
    x = torch.arange(n, device="cuda", dtype=torch.float32)
    y = torch.ones(n, device="cuda", dtype=torch.float32)
    z = torch.empty_like(x)
    launches = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        vector_add[(n // block,)](x, y, z, n, BLOCK=block, num_warps=4)
        x, z = z, x
        launches += 1
        torch.cuda.synchronize()
        time.sleep(0.01)
    got = x.cpu()
    want = torch.arange(n, dtype=torch.float32) + launches
    with open(out_file, "wb") as f:
        f.write(got.numpy().tobytes())
    print(json.dumps({"launches": launches, "correct": bool(torch.equal(got, want))}))


if __name__ == "__main__":
    main(float(sys.argv[1]), sys.argv[2])
