"""GPU workload for graph capture (scripts/gpu_e2e_more.py, check "cuda graphs"): kernels
that real stacks launch from CUDA graphs, with bit-exact digests of their outputs so runs
with and without warptrace can be compared.

Usage: python3 torch_graphs.py --out-json FILE [--replays 20]

1. A Triton kernel (scale-and-add) and torch ops captured into one `torch.cuda.CUDAGraph`
   (after an eager warm-up that compiles the kernel), replayed --replays times, each
   replay on new input copied into the graph's static buffer.
2. An MLP through `torch.compile(mode="reduce-overhead")`: Inductor's Triton kernels run
   from CUDA graph trees once warmed up; --replays steps.
Writes (and prints) one JSON object: each part's digest (a sum over the outputs' bits) and
the replay count.
"""
import argparse
import json
import os

os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402


@triton.jit
def scale_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    x = tl.load(x_ptr + i, mask=m)
    y = tl.load(y_ptr + i, mask=m)
    tl.store(out_ptr + i, 2.0 * x + y, mask=m)


def digest(t):
    w = t.contiguous().view(-1).view(torch.int32).to(torch.int64)
    pos = torch.arange(1, w.numel() + 1, device=w.device, dtype=torch.int64)
    return f"{int(w.sum()) & 0xffffffffffffffff:016x}:{int((w * pos).sum()) & 0xffffffffffffffff:016x}"


def triton_graph(replays):
    n = 1 << 20
    g = torch.Generator(device="cuda").manual_seed(1)
    x = torch.empty(n, device="cuda")
    y = torch.rand(n, device="cuda", generator=g)
    out = torch.empty(n, device="cuda")

    def step():
        scale_add[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
        out.mul_(0.5)

    x.copy_(torch.rand(n, device="cuda", generator=g))
    step()  # compiles the kernel, outside the capture
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        step()
    total = torch.zeros(n, device="cuda")
    for _ in range(replays):
        x.copy_(torch.rand(n, device="cuda", generator=g))
        graph.replay()
        total += out
    torch.cuda.synchronize()
    return digest(total)


class Block(torch.nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = torch.nn.LayerNorm(dim)
        self.up = torch.nn.Linear(dim, 4 * dim)
        self.down = torch.nn.Linear(4 * dim, dim)

    def forward(self, x):
        return x + self.down(torch.nn.functional.gelu(self.up(self.norm(x))))


def compiled_graph(replays):
    torch.manual_seed(2)
    model = torch.nn.Sequential(Block(512), Block(512)).cuda().eval()
    step = torch.compile(model, mode="reduce-overhead")
    g = torch.Generator(device="cuda").manual_seed(3)
    total = torch.zeros(256, 512, device="cuda")
    with torch.no_grad():
        for _ in range(replays + 3):  # warm-up steps, then graph replays
            x = torch.rand(256, 512, device="cuda", generator=g)
            total += step(x).clone()
    torch.cuda.synchronize()
    return digest(total)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--replays", type=int, default=20)
    ap.add_argument("--out-json", required=True)
    a = ap.parse_args()
    torch.use_deterministic_algorithms(True)
    res = {"replays": a.replays, "triton_graph": triton_graph(a.replays),
           "compiled_graph": compiled_graph(a.replays)}
    with open(a.out_json, "w") as f:
        json.dump(res, f)
    print(json.dumps(res))


if __name__ == "__main__":
    main()
