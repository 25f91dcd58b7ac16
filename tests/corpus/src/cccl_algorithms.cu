// CCCL's device algorithms as programs call them: cub::DeviceReduce::Sum (the two-pass
// reduction and its single-tile kernel), cub::DeviceScan::ExclusiveSum (the single-pass
// decoupled look-back scan and its tile-state init kernel) and cub::DeviceSelect::Flagged
// (the compaction sweep), on int. Host code only instantiates them; the corpus keeps the
// PTX nvcc emits for their kernels (tests/corpus/gen.sh).
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

void instantiate(int *in, int *out, const char *flags, int *count, int n, void *tmp, size_t bytes) {
  cub::DeviceReduce::Sum(tmp, bytes, in, out, n);
  cub::DeviceScan::ExclusiveSum(tmp, bytes, in, out, n);
  cub::DeviceSelect::Flagged(tmp, bytes, in, flags, out, count, n);
}
