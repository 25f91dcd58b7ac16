"""End-to-end workload of the GPU benchmark (scripts/bench-gpu.sh): a torch.compile'd stack
of pre-norm MLP blocks (LayerNorm -> Linear -> GELU -> Linear -> residual), fp16, inference.

Usage: python3 torch_compile_mlp.py [--iters 200] [--tokens 8192] [--dim 2048] [--layers 4]
                                    [--out-json FILE]
Inductor turns each block into Triton kernels (the layer norm, the bias + GELU, the bias +
residual) around cuBLAS matrix products (extern kernels, no PTX: warptrace skips them and
counts them), so a probe sees the Triton kernels a real compiled model launches. Steps:
build and compile (the first call: Dynamo, Inductor, Triton — from their on-disk caches
once a first run has filled them), 5 warm-up steps, then --iters steps timed on the host
with one synchronization at the end. Writes (and prints) one JSON object: compile_s (the
first call), loop_s, step_ms, and a digest of the last output, bit-exact, so runs with and
without warptrace can be compared (cuBLAS's workspace is fixed and torch's deterministic
algorithms are on, so that two plain runs agree; the benchmark checks that they do).
"""
import argparse
import json
import os
import time

# Bit-reproducible from run to run, so plain and traced outputs can be compared at all:
# cuBLAS with a fixed workspace, and deterministic algorithms where torch has a choice.
os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
import torch  # noqa: E402


class Block(torch.nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.norm = torch.nn.LayerNorm(dim)
        self.up = torch.nn.Linear(dim, hidden)
        self.down = torch.nn.Linear(hidden, dim)

    def forward(self, x):
        return x + self.down(torch.nn.functional.gelu(self.up(self.norm(x))))


def digest(t):
    w = t.contiguous().view(-1).view(torch.int16).to(torch.int64)
    pos = torch.arange(1, w.numel() + 1, device=w.device, dtype=torch.int64)
    return f"{int(w.sum()) & 0xffffffffffffffff:016x}:{int((w * pos).sum()) & 0xffffffffffffffff:016x}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--iters", type=int, default=200)
    ap.add_argument("--tokens", type=int, default=8192)
    ap.add_argument("--dim", type=int, default=2048)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--out-json")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        raise SystemExit("torch_compile_mlp: no CUDA device")
    t_start = time.perf_counter()
    torch.use_deterministic_algorithms(True)
    torch.manual_seed(0)
    model = torch.nn.Sequential(*[Block(args.dim, 4 * args.dim) for _ in range(args.layers)])
    model = model.cuda().half().eval()
    x = torch.randn(args.tokens, args.dim, device="cuda", dtype=torch.float16)
    compiled = torch.compile(model)
    with torch.no_grad():
        t0 = time.perf_counter()
        y = compiled(x)
        torch.cuda.synchronize()
        compile_s = time.perf_counter() - t0
        for _ in range(5):
            y = compiled(x)
        torch.cuda.synchronize()
        t1 = time.perf_counter()
        for _ in range(args.iters):
            y = compiled(x)
        torch.cuda.synchronize()
        loop_s = time.perf_counter() - t1
        ref = model(x)
        torch.cuda.synchronize()
    err = float((y.float() - ref.float()).norm() / ref.float().norm())
    res = {"compile_s": compile_s, "loop_s": loop_s, "step_ms": loop_s / args.iters * 1e3, "iters": args.iters,
           "digest": digest(y), "relerr_vs_eager": err, "in_process_s": time.perf_counter() - t_start,
           "shape": [args.tokens, args.dim, args.layers], "torch": torch.__version__, "done": True}
    if args.out_json:
        with open(args.out_json, "w") as f:
            json.dump(res, f)
    print(json.dumps(res))
    if not err < 2e-2:
        raise SystemExit(f"torch_compile_mlp: compiled output differs from eager (relative error {err})")


if __name__ == "__main__":
    main()
