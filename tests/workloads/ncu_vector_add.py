"""Triton vector add at two sizes, for the Nsight Compute comparison of scripts/gpu-e2e.sh
(scripts/gpu_e2e_more.py: ncu's grid size, CTAs launched and L1 global-load bytes against
warptrace's @blocks and @ldbytes, launch by launch).

Usage: python ncu_vector_add.py OUT_FILE
Launches vector_add (tests/corpus/src/triton_kernels.py, BLOCK=1024, 4 warps) twice, in
this order:
  1. n = 1_000_003: not a multiple of 16, so Triton cannot prove the mask constant over 4
     elements and each thread loads its 4 contiguous floats with 4 scalar ld.global.b32
     (lanes 16 bytes apart: half of every 32-byte sector a load touches is unused);
  2. n = 2^20: Triton specializes n as divisible by 16 and emits ld.global.v4.b32 (each
     lane 16 contiguous bytes, a warp 512 contiguous bytes: every sector fully used).
Writes both outputs to OUT_FILE and prints the launches as JSON, in launch order:
{"launches": [{"kernel": "vector_add", "n": n, "blocks": ceil(n / 1024), "ldbytes": 2 * n * 4}, …]}.
"""
import json
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "corpus", "src"))
from triton_kernels import vector_add  # noqa: E402

SIZES = (1_000_003, 1 << 20)
BLOCK = 1024


def main(out_file):
    torch.manual_seed(0)
    launches, outs = [], []
    for n in SIZES:
        x = torch.rand(n, device="cuda")
        y = torch.rand(n, device="cuda")
        z = torch.empty_like(x)
        grid = ((n + BLOCK - 1) // BLOCK,)
        vector_add[grid](x, y, z, n, BLOCK=BLOCK, num_warps=4)
        torch.cuda.synchronize()
        assert torch.equal(z, x + y), f"vector_add mismatch at n={n}"
        outs.append(z.cpu().numpy().tobytes())
        launches.append({"kernel": "vector_add", "n": n, "blocks": grid[0], "ldbytes": 2 * n * 4})
    with open(out_file, "wb") as f:
        for b in outs:
            f.write(b)
    print(json.dumps({"launches": launches}))


if __name__ == "__main__":
    main(sys.argv[1])
