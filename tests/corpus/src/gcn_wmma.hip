// A HIP kernel of the GCN corpus on RDNA3's matrix instructions: one 16x16x16 f16 multiply
// accumulated in f32 per wave32 (`v_wmma_f32_16x16x16_f16`, gfx11 only), each lane holding
// its 16 halves of A and B and 8 floats of C. Compiled by tests/corpus/gen-gcn.sh with
// clang-19 for gfx1100; AMDGPU builtins stand in for the HIP headers, as in
// gcn_kernels.hip.
#define __global__ __attribute__((global))

typedef _Float16 half16 __attribute__((ext_vector_type(16)));
typedef float float8 __attribute__((ext_vector_type(8)));

extern "C" __global__ void wmma_tile(const half16* a, const half16* b, float8* c) {
  unsigned lane = __builtin_amdgcn_workitem_id_x() & 31;
  float8 acc = c[lane];
  acc = __builtin_amdgcn_wmma_f32_16x16x16_f16_w32(a[lane], b[lane], acc);
  c[lane] = acc;
}
