// OpenCL C kernels of the GCN corpus, compiled by tests/corpus/gen-gcn.sh with clang-19
// (-target amdgcn-amd-amdhsa, no device libraries: AMDGPU builtins stand in for
// get_global_id & co.) for gfx90a and gfx942, and for gfx1100 in wave32.
#define TID __builtin_amdgcn_workitem_id_x()
#define BID __builtin_amdgcn_workgroup_id_x()
#define BDIM __builtin_amdgcn_workgroup_size_x()

// Generic (flat) accesses through a pointer that may be global or local.
static void bump(int* p, int v) { *p += v; }

__kernel void generic_bump(__global int* data, __local int* scratch, int n, int use_local) {
  int i = BID * BDIM + TID;
  int* p = use_local ? (int*)&scratch[TID] : (int*)&data[i];
  if (i < n) bump(p, 3);
  if (use_local) data[i] = scratch[TID];
}

// A per-thread array indexed at run time: private (scratch) memory.
__kernel void private_table(__global const int* idx, __global int* out, int n) {
  int t[24];
  int i = BID * BDIM + TID;
  for (int k = 0; k < 24; ++k) t[k] = k * i;
  if (i < n) out[i] = t[idx[i] % 24];
}

// A nested loop with a data-dependent trip count and a 64-bit accumulator.
__kernel void nested_loops(__global const uint* in, __global ulong* out, int rows, int cols) {
  int r = BID * BDIM + TID;
  if (r >= rows) return;
  ulong acc = 0;
  for (int c = 0; c < cols; ++c) {
    uint v = in[r * cols + c];
    for (uint b = v; b != 0; b &= b - 1) acc += c;
  }
  out[r] = acc;
}
