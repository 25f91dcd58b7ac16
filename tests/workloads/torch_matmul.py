"""cuBLAS's kernels (SASS only) for the launch-probe check of scripts/gpu_e2e_more.py:
MATMULS fp16 4096x4096 matmuls after a warm-up, timed with CUDA events around all of them.
Prints, as JSON, how many it made and the events' milliseconds.

Usage: python torch_matmul.py MATMULS
"""
import json
import sys

import torch


def main(count):
    a = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
    b = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
    for _ in range(3):
        a @ b
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(count):
        c = a @ b
    end.record()
    torch.cuda.synchronize()
    print(json.dumps({"matmuls": count, "ms": start.elapsed_time(end), "sum": float(c[0, 0])}))


if __name__ == "__main__":
    main(int(sys.argv[1]))
