"""Triton workload of scripts/gpu-e2e.sh: vector add (masked tail) and a wgmma matmul.

Usage: python triton_workload.py OUT_FILE
Runs each kernel once on fixed random inputs, writes every output's bytes to OUT_FILE
(so runs with and without warptrace can be compared bit for bit) and prints the launch
geometry and the analytic global-load bytes that the probes must report, as JSON.
"""
import json
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "corpus", "src"))
from triton_kernels import matmul, vector_add  # noqa: E402


def main(out_file):
    torch.manual_seed(0)
    expect = {}

    # Vector add: n is not a multiple of BLOCK, so the last block's loads are masked.
    n, block = 1_000_003, 1024
    x = torch.rand(n, device="cuda")
    y = torch.rand(n, device="cuda")
    z = torch.empty_like(x)
    grid = (triton_cdiv(n, block),)
    vector_add[grid](x, y, z, n, BLOCK=block, num_warps=4)
    expect["vector_add"] = {"blocks": grid[0], "ldbytes": 2 * n * 4}

    # Matmul: M, N, K multiples of the tiles, so every load is unmasked: each block
    # loads a BM x K strip of A and a K x BN strip of B, 2 bytes an element.
    m = nn = k = 512
    bm, bn, bk = 64, 64, 32
    a = torch.randn(m, k, device="cuda", dtype=torch.float16)
    b = torch.randn(k, nn, device="cuda", dtype=torch.float16)
    c = torch.empty(m, nn, device="cuda", dtype=torch.float16)
    grid = (m // bm, nn // bn)
    matmul[grid](a, b, c, m, nn, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                 c.stride(0), c.stride(1), BM=bm, BN=bn, BK=bk, num_warps=4, num_stages=1)
    expect["matmul"] = {"blocks": grid[0] * grid[1],
                        "ldbytes": grid[0] * grid[1] * (bm * k + k * bn) * 2}

    torch.cuda.synchronize()
    ref = a.float() @ b.float()
    err = ((c.float() - ref).norm() / ref.norm()).item()
    assert err < 1e-2, f"matmul relative error {err}"
    assert torch.equal(z, x + y), "vector_add mismatch"
    with open(out_file, "wb") as f:
        for t in (z, c):
            f.write(t.cpu().numpy().tobytes())
    print(json.dumps(expect))


def triton_cdiv(a, b):
    return (a + b - 1) // b


if __name__ == "__main__":
    main(sys.argv[1])
