// CCCL's segmented radix sort as a program calls it: cub::DeviceSegmentedRadixSort::SortPairs
// on unsigned keys and int values. Host code only instantiates it; the corpus keeps the PTX
// nvcc emits for its kernels (tests/corpus/gen.sh). Its main kernel has 1,443 shared-memory
// accesses: the JIT budget's reproduction of a kernel whose instrumented form ptxas takes
// minutes and gigabytes to compile (tests/tests/jit_budget.rs).
#include <cub/device/device_segmented_radix_sort.cuh>

void instantiate(const unsigned *keys_in, unsigned *keys_out, const int *values_in,
                 int *values_out, int n, int segments, const int *begin, const int *end,
                 void *tmp, size_t bytes) {
  cub::DeviceSegmentedRadixSort::SortPairs(tmp, bytes, keys_in, keys_out, values_in, values_out,
                                           n, segments, begin, end);
}
