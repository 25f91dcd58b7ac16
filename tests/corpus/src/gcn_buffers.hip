// HIP kernels of the GCN corpus that access global memory through buffer resources, as
// Composable Kernel and Triton's AMD back end do: `buffer_load`/`buffer_store` with a
// descriptor built in the kernel (`__builtin_amdgcn_make_buffer_rsrc`), a VGPR offset
// (`offen`), a scalar offset and an immediate one; and (gfx940+) a global load straight
// into LDS. Compiled by tests/corpus/gen-gcn.sh
// with clang-19 for gfx942 (wave64) and gfx1100 (wave32); AMDGPU builtins stand in for
// the HIP headers, as in gcn_kernels.hip.
#define __global__ __attribute__((global))

// The descriptor's fourth word as Triton's AMD back end writes it for gfx9 (no swizzle,
// no thread id added to the index).
#define RAW_FLAGS 0x27000

// Row `row` of `x`, doubled, into row `row` of `y` shifted by four elements: the load's
// scalar offset is the row's start (a register), the store's an immediate.
extern "C" __global__ void buffer_rows(float* x, float* y, unsigned n, unsigned row) {
  unsigned i = __builtin_amdgcn_workitem_id_x();
  __amdgpu_buffer_rsrc_t rx = __builtin_amdgcn_make_buffer_rsrc(x, 0, n * 4, RAW_FLAGS);
  __amdgpu_buffer_rsrc_t ry = __builtin_amdgcn_make_buffer_rsrc(y, 0, n * 4, RAW_FLAGS);
  float v = __builtin_amdgcn_raw_buffer_load_b32(rx, i * 4, row * 1024, 0);
  __builtin_amdgcn_raw_buffer_store_b32(v * 2.0f, ry, i * 4 + 16, row * 1024, 0);
}

// Each lane's word of a strided table, the lane's index added by the hardware
// (ADD_TID_ENABLE, bit 23 of the fourth word) and scaled by the descriptor's stride: the
// access has no VGPR address (`off`).
extern "C" __global__ void lane_table(unsigned* table, unsigned* out, unsigned stride) {
  __amdgpu_buffer_rsrc_t rt =
      __builtin_amdgcn_make_buffer_rsrc(table, (short)stride, 1 << 20, RAW_FLAGS | (1 << 23));
  unsigned v = __builtin_amdgcn_raw_buffer_load_b32(rt, 0, 0, 0);
  out[__builtin_amdgcn_workitem_id_x()] = v;
}

#if defined(__gfx942__)
// A tile staged from global memory straight into LDS (`global_load_lds_dword`, gfx940+:
// the data goes to LDS at `m0`, no VGPR receives it), then read back across lanes.
extern "C" __global__ void lds_stage(float* x, float* out) {
  __attribute__((shared)) float tile[256];
  unsigned i = __builtin_amdgcn_workitem_id_x();
  __builtin_amdgcn_global_load_lds(x + i, tile, 4, 0, 0);
  __builtin_amdgcn_s_waitcnt(0);
  __builtin_amdgcn_s_barrier();
  out[i] = tile[i ^ 1];
}
#endif
