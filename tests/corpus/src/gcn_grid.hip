// A HIP kernel of the GCN corpus over a 3-D grid of 3-D blocks, compiled by
// tests/corpus/gen-gcn.sh with clang-19 for gfx942 (wave64) and gfx1100 (wave32): its
// descriptor enables all three workgroup ids and work-item ids, and its metadata lists the
// code object v5 hidden grid arguments, so `block`, `thread` and array maps can be
// lowered. AMDGPU builtins stand in for the HIP headers, as in gcn_kernels.hip.
#define __global__ __attribute__((global))

// Each thread writes its linear global index into a 3-D volume.
extern "C" __global__ void volume_index(unsigned long* out, unsigned nx, unsigned ny) {
  unsigned x = __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() +
               __builtin_amdgcn_workitem_id_x();
  unsigned y = __builtin_amdgcn_workgroup_id_y() * __builtin_amdgcn_workgroup_size_y() +
               __builtin_amdgcn_workitem_id_y();
  unsigned z = __builtin_amdgcn_workgroup_id_z() * __builtin_amdgcn_workgroup_size_z() +
               __builtin_amdgcn_workitem_id_z();
  unsigned long i = ((unsigned long)z * ny + y) * nx + x;
  out[i] = i;
}
