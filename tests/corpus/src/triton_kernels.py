"""Compiles the Triton kernels of the PTX corpus on the CPU (no GPU needed).

Usage: python triton_kernels.py OUT_DIR [NAME...]
Each kernel (every one, or the named ones) is compiled with triton.compile for
GPUTarget("cuda", 90, 32) (sm_90a) and its PTX written to OUT_DIR/triton_<name>.ptx. The
same kernels run on the GPU in scripts/gpu-e2e.sh (workloads/triton_workload.py imports
them from here).
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


@triton.jit
def softmax(out_ptr, in_ptr, in_row_stride, out_row_stride, n_rows, n_cols,
            BLOCK: tl.constexpr):
    # Triton tutorial 02 (fused softmax), one program per row, rows strided by the grid.
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row in range(row_start, n_rows, row_step):
        row_ptr = in_ptr + row * in_row_stride
        cols = tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(row_ptr + cols, mask=mask, other=-float("inf"))
        x = x - tl.max(x, axis=0)
        num = tl.exp(x)
        y = num / tl.sum(num, axis=0)
        tl.store(out_ptr + row * out_row_stride + cols, y, mask=mask)


@triton.jit
def layernorm_fwd(x_ptr, y_ptr, w_ptr, b_ptr, mean_ptr, rstd_ptr, stride, N, eps,
                  BLOCK: tl.constexpr):
    # Triton tutorial 05 (layer norm), forward pass: one program per row.
    row = tl.program_id(0)
    y_ptr += row * stride
    x_ptr += row * stride
    mean = 0
    _mean = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        a = tl.load(x_ptr + cols, mask=cols < N, other=0.).to(tl.float32)
        _mean += a
    mean = tl.sum(_mean, axis=0) / N
    _var = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + cols, mask=cols < N, other=0.).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.)
        _var += x * x
    var = tl.sum(_var, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        mask = cols < N
        w = tl.load(w_ptr + cols, mask=mask)
        b = tl.load(b_ptr + cols, mask=mask)
        x = tl.load(x_ptr + cols, mask=mask, other=0.).to(tl.float32)
        y = (x - mean) * rstd * w + b
        tl.store(y_ptr + cols, y.to(tl.float16), mask=mask)


@triton.jit
def flash_attn_fwd(q_ptr, k_ptr, v_ptr, o_ptr, sm_scale, seq_len,
                   stride_qh, stride_qm, stride_kh, stride_kn, stride_vh, stride_vn,
                   stride_oh, stride_om,
                   BM: tl.constexpr, BN: tl.constexpr, D: tl.constexpr):
    # Flash-attention forward in the style of Triton tutorial 06 (non-causal, online
    # softmax in base 2), one program per (query block, batch*head).
    start_m = tl.program_id(0)
    off_h = tl.program_id(1)
    offs_m = start_m * BM + tl.arange(0, BM)
    offs_n = tl.arange(0, BN)
    offs_d = tl.arange(0, D)
    q = tl.load(q_ptr + off_h * stride_qh + offs_m[:, None] * stride_qm + offs_d[None, :],
                mask=offs_m[:, None] < seq_len, other=0.)
    m_i = tl.zeros([BM], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BM], dtype=tl.float32) + 1.0
    acc = tl.zeros([BM, D], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    for start_n in range(0, seq_len, BN):
        cols = start_n + offs_n
        k = tl.load(k_ptr + off_h * stride_kh + cols[None, :] * stride_kn + offs_d[:, None],
                    mask=cols[None, :] < seq_len, other=0.)
        qk = tl.dot(q, k)
        qk = tl.where(cols[None, :] < seq_len, qk * qk_scale, -1.0e6)
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = tl.load(v_ptr + off_h * stride_vh + cols[:, None] * stride_vn + offs_d[None, :],
                    mask=cols[:, None] < seq_len, other=0.)
        acc = tl.dot(p.to(tl.float16), v, acc)
        m_i = m_ij
    acc = acc / l_i[:, None]
    tl.store(o_ptr + off_h * stride_oh + offs_m[:, None] * stride_om + offs_d[None, :],
             acc.to(tl.float16), mask=offs_m[:, None] < seq_len)


@triton.jit
def matmul_tma(a_desc, b_desc, c_desc, K,
               BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # The matmul through host-side tensor descriptors: tiles move by TMA
    # (cp.async.bulk.tensor global -> shared, waited on with mbarrier try_wait loops; the
    # result shared -> global), software-pipelined over K.
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = a_desc.load([pid_m * BM, k])
        b = b_desc.load([k, pid_n * BN])
        acc = tl.dot(a, b, acc)
    c_desc.store([pid_m * BM, pid_n * BN], acc.to(tl.float16))


@triton.jit
def flash_attn_fixed(q_ptr, k_ptr, v_ptr, o_ptr, sm_scale,
                     stride_qh, stride_qm, stride_kh, stride_kn, stride_vh, stride_vn,
                     stride_oh, stride_om,
                     SEQ: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr, D: tl.constexpr):
    # flash_attn_fwd for one fixed sequence length, its key loop unrolled by static_range:
    # a real Triton kernel of about 12k PTX lines (the host-side benchmark's 10k-line
    # kernel; not in the test corpus).
    start_m = tl.program_id(0)
    off_h = tl.program_id(1)
    offs_m = start_m * BM + tl.arange(0, BM)
    offs_n = tl.arange(0, BN)
    offs_d = tl.arange(0, D)
    q = tl.load(q_ptr + off_h * stride_qh + offs_m[:, None] * stride_qm + offs_d[None, :])
    m_i = tl.zeros([BM], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BM], dtype=tl.float32) + 1.0
    acc = tl.zeros([BM, D], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    for start_n in tl.static_range(0, SEQ, BN):
        cols = start_n + offs_n
        k = tl.load(k_ptr + off_h * stride_kh + cols[None, :] * stride_kn + offs_d[:, None])
        qk = tl.dot(q, k) * qk_scale
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = tl.load(v_ptr + off_h * stride_vh + cols[:, None] * stride_vn + offs_d[None, :])
        acc = tl.dot(p.to(tl.float16), v, acc)
        m_i = m_ij
    acc = acc / l_i[:, None]
    tl.store(o_ptr + off_h * stride_oh + offs_m[:, None] * stride_om + offs_d[None, :],
             acc.to(tl.float16))


MATMUL_SIG = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32",
              "stride_am": "i32", "stride_ak": "i32", "stride_bk": "i32", "stride_bn": "i32",
              "stride_cm": "i32", "stride_cn": "i32",
              "BM": "constexpr", "BN": "constexpr", "BK": "constexpr"}

# name -> (fn, signature, constexprs, compile options)
KERNELS = {
    "vector_add": (vector_add,
                   {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"},
                   {"BLOCK": 1024}, {"num_warps": 4}),
    # num_stages=1: loads stay ld.global (no cp.async pipeline), so mem:global:load sees them.
    "matmul": (matmul, MATMUL_SIG,
               {"BM": 64, "BN": 64, "BK": 32}, {"num_warps": 4, "num_stages": 1}),
    # The same matmul, contiguous (unit inner strides, as Triton specializes a stride of 1)
    # and software-pipelined (num_stages=3): the global->shared copies become cp.async
    # (mem:global:async sites) feeding wgmma from shared memory.
    "matmul_pipelined": (matmul,
                         {**MATMUL_SIG, "stride_ak": "constexpr", "stride_bn": "constexpr",
                          "stride_cn": "constexpr"},
                         {"BM": 128, "BN": 128, "BK": 64, "stride_ak": 1, "stride_bn": 1,
                          "stride_cn": 1},
                         {"num_warps": 4, "num_stages": 3}),
    "softmax": (softmax,
                {"out_ptr": "*fp32", "in_ptr": "*fp32", "in_row_stride": "i32",
                 "out_row_stride": "i32", "n_rows": "i32", "n_cols": "i32", "BLOCK": "constexpr"},
                {"BLOCK": 1024}, {"num_warps": 8}),
    "layernorm_fwd": (layernorm_fwd,
                      {"x_ptr": "*fp16", "y_ptr": "*fp16", "w_ptr": "*fp16", "b_ptr": "*fp16",
                       "mean_ptr": "*fp32", "rstd_ptr": "*fp32", "stride": "i32", "N": "i32",
                       "eps": "fp32", "BLOCK": "constexpr"},
                      {"BLOCK": 1024}, {"num_warps": 8}),
    "flash_attn_fwd": (flash_attn_fwd,
                       {"q_ptr": "*fp16", "k_ptr": "*fp16", "v_ptr": "*fp16", "o_ptr": "*fp16",
                        "sm_scale": "fp32", "seq_len": "i32",
                        "stride_qh": "i32", "stride_qm": "i32", "stride_kh": "i32",
                        "stride_kn": "i32", "stride_vh": "i32", "stride_vn": "i32",
                        "stride_oh": "i32", "stride_om": "i32",
                        "BM": "constexpr", "BN": "constexpr", "D": "constexpr"},
                       {"BM": 128, "BN": 64, "D": 64}, {"num_warps": 4, "num_stages": 2}),
    # Tensor descriptors (TMA): each descriptor argument is a 128-byte CUtensorMap
    # parameter plus its shape and strides.
    "matmul_tma": (matmul_tma,
                   {"a_desc": "tensordesc<fp16[128, 64]>", "b_desc": "tensordesc<fp16[64, 128]>",
                    "c_desc": "tensordesc<fp16[128, 128]>", "K": "i32",
                    "BM": "constexpr", "BN": "constexpr", "BK": "constexpr"},
                   {"BM": 128, "BN": 128, "BK": 64}, {"num_warps": 4, "num_stages": 3}),
}


# Kernels too large for the test corpus's matrix: `--large OUT_DIR` writes them.
LARGE = {
    "flash_attn_fixed1024": (flash_attn_fixed,
                             {"q_ptr": "*fp16", "k_ptr": "*fp16", "v_ptr": "*fp16", "o_ptr": "*fp16",
                              "sm_scale": "fp32", "stride_qh": "i32", "stride_qm": "i32",
                              "stride_kh": "i32", "stride_kn": "i32", "stride_vh": "i32",
                              "stride_vn": "i32", "stride_oh": "i32", "stride_om": "i32",
                              "SEQ": "constexpr", "BM": "constexpr", "BN": "constexpr",
                              "D": "constexpr"},
                             {"SEQ": 1024, "BM": 128, "BN": 64, "D": 64},
                             {"num_warps": 4, "num_stages": 1}),
}
KERNELS.update(LARGE)


# Integer arguments Triton would specialize as divisible by 16 in the launches we model.
DIVISIBLE = ("n", "M", "N", "K", "stride_am", "stride_bk", "stride_cm", "in_row_stride",
             "out_row_stride", "stride", "stride_qh", "stride_qm", "stride_kh", "stride_kn",
             "stride_vh", "stride_vn", "stride_oh", "stride_om")


def compile_ptx(name):
    fn, sig, consts, opts = KERNELS[name]
    # As Triton specializes at run time for 16-byte-aligned pointers (and sizes/strides
    # divisible by 16): vectorized loads, as real launches get.
    attrs = {(i,): [["tt.divisibility", 16]] for i, (arg, ty) in enumerate(sig.items())
             if ty.startswith("*") or arg in DIVISIBLE}
    src = ASTSource(fn=fn, signature=sig, constexprs=consts, attrs=attrs)
    k = triton.compile(src, target=GPUTarget("cuda", 90, 32), options=opts)
    return k.asm["ptx"]


if __name__ == "__main__":
    # OUT_DIR [NAME...]: every kernel, or only the named ones.
    if sys.argv[1] == "--large":
        for name in LARGE:
            with open(f"{sys.argv[2]}/triton_{name}.ptx", "w") as f:
                f.write(compile_ptx(name))
        sys.exit(0)
    out = sys.argv[1]
    for name in sys.argv[2:] or [k for k in KERNELS if k not in LARGE]:
        with open(f"{out}/triton_{name}.ptx", "w") as f:
            f.write(compile_ptx(name))
