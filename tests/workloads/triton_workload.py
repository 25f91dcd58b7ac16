"""Triton workload of scripts/gpu-e2e.sh: vector add (masked tail), a wgmma matmul, the fused
softmax (masked rows) and a flash-attention forward (wgmma, online softmax).

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
from triton_kernels import flash_attn_fwd, matmul, softmax, vector_add  # noqa: E402


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

    # Softmax (tutorial 02): BLOCK=1024 columns per row, n_cols=1000 < BLOCK, so every row's
    # load is masked (cols < n_cols; masked lanes take `other` and issue no load). Each of
    # the `programs` blocks walks rows pid, pid+programs, ... < n_rows: every row is loaded
    # exactly once, so the loads read n_rows * n_cols fp32 = n_rows * n_cols * 4 bytes. (With
    # n_cols = 1000, not a multiple of 16, Triton emits 4 predicated scalar ld.global.b32 per
    # thread and row: 256 threads x 4 = 1024 columns, one lane per column, none repeated.)
    n_rows, n_cols, programs = 4096, 1000, 512
    sx = torch.randn(n_rows, n_cols, device="cuda")
    sy = torch.empty_like(sx)
    softmax[(programs,)](sy, sx, sx.stride(0), sy.stride(0), n_rows, n_cols, BLOCK=1024, num_warps=8)
    expect["softmax"] = {"blocks": programs, "ldbytes": n_rows * n_cols * 4}

    # Flash-attention forward: q, k, v, o of shape (heads, seq, D) fp16, contiguous. seq is a
    # multiple of BM and BN, so every mask (offs_m < seq, cols < seq) is all-true and every
    # load is whole. Grid (seq / BM, heads). Each program loads its BM x D block of q once
    # and, for each of the seq / BN key blocks, a D x BN block of k and a BN x D block of v:
    # (BM*D + 2*seq*D) * 2 bytes a program. num_stages=1 keeps the loop's loads ld.global
    # (with 2 stages Triton turns them into cp.async, mem:global:async sites): the sm_90a PTX
    # of this launch has 8 ld.global.v4.b32 per thread for q (128 threads x 128 bytes =
    # BM*D*2) and 4 + 4 per iteration for k and v (128 x 64 = BN*D*2 each), as derived.
    heads, seq, d, bm, bn = 4, 512, 64, 128, 64
    q, k, v = (torch.randn(heads, seq, d, device="cuda", dtype=torch.float16) for _ in range(3))
    o = torch.empty_like(q)
    grid = (seq // bm, heads)
    sm_scale = d ** -0.5
    flash_attn_fwd[grid](q, k, v, o, sm_scale, seq, q.stride(0), q.stride(1), k.stride(0), k.stride(1),
                         v.stride(0), v.stride(1), o.stride(0), o.stride(1), BM=bm, BN=bn, D=d,
                         num_warps=4, num_stages=1)
    expect["flash_attn_fwd"] = {"blocks": grid[0] * grid[1],
                                "ldbytes": grid[0] * grid[1] * (bm * d + 2 * seq * d) * 2}

    torch.cuda.synchronize()
    ref = a.float() @ b.float()
    err = ((c.float() - ref).norm() / ref.norm()).item()
    assert err < 1e-2, f"matmul relative error {err}"
    assert torch.equal(z, x + y), "vector_add mismatch"
    err = (sy - torch.softmax(sx, dim=1)).abs().max().item()
    assert err < 1e-4, f"softmax max abs error {err}"
    att = torch.softmax((q.float() @ k.float().transpose(1, 2)) * sm_scale, dim=-1) @ v.float()
    err = ((o.float() - att).norm() / att.norm()).item()
    assert err < 1e-2, f"flash_attn_fwd relative error {err}"
    with open(out_file, "wb") as f:
        for t in (z, c, sy, o):
            f.write(t.cpu().numpy().tobytes())
    print(json.dumps(expect))


def triton_cdiv(a, b):
    return (a + b - 1) // b


if __name__ == "__main__":
    main(sys.argv[1])
