"""Kernel time of Triton's vector add, for the warp-combining measurement of
scripts/gpu-e2e.sh.

Usage: python triton_timing.py
Warms up, then times 200 launches of vector_add on 2^24 floats with CUDA events (the
read-back of a probed launch is stream-ordered, so it is inside the timed span) and
prints `median_us=<median per launch>`.
"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "corpus", "src"))
from triton_kernels import vector_add  # noqa: E402


def main():
    n, block = 1 << 24, 1024
    x = torch.rand(n, device="cuda")
    y = torch.rand(n, device="cuda")
    z = torch.empty_like(x)
    grid = ((n + block - 1) // block,)
    for _ in range(10):
        vector_add[grid](x, y, z, n, BLOCK=block, num_warps=4)
    torch.cuda.synchronize()
    times = []
    for _ in range(200):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        vector_add[grid](x, y, z, n, BLOCK=block, num_warps=4)
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1000.0)
    times.sort()
    assert torch.equal(z, x + y)
    print(f"median_us={times[len(times) // 2]:.1f}")


if __name__ == "__main__":
    main()
