"""Compiles the Triton kernels of the GCN corpus with Triton's AMD back end on the CPU.

Usage: python triton_amd_kernels.py OUT_DIR [NAME...]
Each kernel (every one, or the named ones) is compiled with triton.compile for
GPUTarget("hip", ARCH, 64) and its AMDGPU assembly (`.asm["amdgcn"]`) written to
OUT_DIR/triton_<name>_<arch>.s. The kernels are the PTX corpus's (triton_kernels.py), so
both back ends instrument the same programs. No GPU and no ROCm installation is needed.
"""
import sys

import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

from triton_kernels import DIVISIBLE, MATMUL_SIG, flash_attn_fwd, matmul, softmax, vector_add

# name -> (fn, signature, constexprs, compile options, architectures)
KERNELS = {
    "vector_add": (vector_add,
                   {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32",
                    "BLOCK": "constexpr"},
                   {"BLOCK": 1024}, {"num_warps": 4}, ("gfx942", "gfx90a")),
    # tl.dot → v_mfma on CDNA; num_stages=2 pipelines the K loop through LDS.
    "matmul": (matmul, MATMUL_SIG,
               {"BM": 64, "BN": 64, "BK": 32}, {"num_warps": 4, "num_stages": 2},
               ("gfx942", "gfx90a")),
    "softmax": (softmax,
                {"out_ptr": "*fp32", "in_ptr": "*fp32", "in_row_stride": "i32",
                 "out_row_stride": "i32", "n_rows": "i32", "n_cols": "i32",
                 "BLOCK": "constexpr"},
                {"BLOCK": 1024}, {"num_warps": 8}, ("gfx942", "gfx90a")),
    "flash_attn_fwd": (flash_attn_fwd,
                       {"q_ptr": "*fp16", "k_ptr": "*fp16", "v_ptr": "*fp16", "o_ptr": "*fp16",
                        "sm_scale": "fp32", "seq_len": "i32",
                        "stride_qh": "i32", "stride_qm": "i32", "stride_kh": "i32",
                        "stride_kn": "i32", "stride_vh": "i32", "stride_vn": "i32",
                        "stride_oh": "i32", "stride_om": "i32",
                        "BM": "constexpr", "BN": "constexpr", "D": "constexpr"},
                       {"BM": 128, "BN": 64, "D": 64}, {"num_warps": 4, "num_stages": 1},
                       ("gfx942", "gfx90a")),
}


def compile_gcn(name, arch):
    fn, sig, consts, opts, _ = KERNELS[name]
    # 16-byte-aligned pointers and sizes/strides divisible by 16, as Triton specializes
    # real launches (the PTX corpus does the same).
    attrs = {(i,): [["tt.divisibility", 16]] for i, (arg, ty) in enumerate(sig.items())
             if ty.startswith("*") or arg in DIVISIBLE}
    src = ASTSource(fn=fn, signature=sig, constexprs=consts, attrs=attrs)
    k = triton.compile(src, target=GPUTarget("hip", arch, 64), options=opts)
    return k.asm["amdgcn"]


if __name__ == "__main__":
    out = sys.argv[1]
    for name in sys.argv[2:] or KERNELS:
        for arch in KERNELS[name][4]:
            with open(f"{out}/triton_{name}_{arch}.s", "w") as f:
                f.write(compile_gcn(name, arch))
