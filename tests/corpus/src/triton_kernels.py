"""Compiles the Triton kernels of the PTX corpus on the CPU (no GPU needed).

Usage: python triton_kernels.py OUT_DIR
Each kernel is compiled with triton.compile for GPUTarget("cuda", 90, 32) (sm_90a) and
its PTX written to OUT_DIR/triton_<name>.ptx. The same kernels run on the GPU in
scripts/gpu-e2e.sh (workloads/triton_workload.py imports them from here).
"""
import sys
import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource


@triton.jit
def vector_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K,
           stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
           BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak
    b_ptrs = b_ptr + rk[:, None] * stride_bk + rn[None, :] * stride_bn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptrs)
        b = tl.load(b_ptrs)
        acc += tl.dot(a, b)
        a_ptrs += BK * stride_ak
        b_ptrs += BK * stride_bk
    c_ptrs = c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(tl.float16))


# name -> (fn, signature, constexprs, compile options)
KERNELS = {
    "vector_add": (vector_add,
                   {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"},
                   {"BLOCK": 1024}, {"num_warps": 4}),
    # num_stages=1: loads stay ld.global (no cp.async pipeline), so mem:global:load sees them.
    "matmul": (matmul,
               {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32",
                "stride_am": "i32", "stride_ak": "i32", "stride_bk": "i32", "stride_bn": "i32",
                "stride_cm": "i32", "stride_cn": "i32",
                "BM": "constexpr", "BN": "constexpr", "BK": "constexpr"},
               {"BM": 64, "BN": 64, "BK": 32}, {"num_warps": 4, "num_stages": 1}),
}


def compile_ptx(name):
    fn, sig, consts, opts = KERNELS[name]
    # As Triton specializes at run time for 16-byte-aligned pointers (and sizes/strides
    # divisible by 16): vectorized loads, as real launches get.
    attrs = {(i,): [["tt.divisibility", 16]] for i, (arg, ty) in enumerate(sig.items())
             if ty.startswith("*") or arg in ("n", "M", "N", "K", "stride_am", "stride_bk", "stride_cm")}
    src = ASTSource(fn=fn, signature=sig, constexprs=consts, attrs=attrs)
    k = triton.compile(src, target=GPUTarget("cuda", 90, 32), options=opts)
    return k.asm["ptx"]


if __name__ == "__main__":
    out = sys.argv[1]
    for name in KERNELS:
        with open(f"{out}/triton_{name}.ptx", "w") as f:
            f.write(compile_ptx(name))
