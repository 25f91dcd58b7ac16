// A CUDA graph built with the graph API, not captured (scripts/gpu_e2e_more.py, "graph
// api"): `axpy` as a kernel node of the graph and `scale` as a kernel node of a child
// graph, the executable launched, its `axpy` node given new arguments in the executable
// (cudaGraphExecKernelNodeSetParams), then in the graph with the executable updated from
// it (cudaGraphExecUpdate), and a clone's executable launched on a second stream in turn
// with the first. Writes both outputs to argv[1] (runs with and without warptrace compare
// bit for bit) and prints, as JSON, each kernel's launches and blocks.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call)                                                                    \
  do {                                                                                 \
    cudaError_t e_ = (call);                                                           \
    if (e_ != cudaSuccess) {                                                           \
      fprintf(stderr, "graph_api: %s: %s (line %d)\n", #call, cudaGetErrorString(e_), \
              __LINE__);                                                               \
      exit(1);                                                                         \
    }                                                                                  \
  } while (0)

__global__ void axpy(float *y, const float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

__global__ void scale(float *z, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = z[i] * s + 1.0f;
}

static const int N = 64 * 256;
static const int AXPY_BLOCKS = 64, SCALE_BLOCKS = 32;

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: graph_api OUT\n");
    return 2;
  }
  float *x, *y, *z;
  CHECK(cudaMalloc(&x, N * sizeof(float)));
  CHECK(cudaMalloc(&y, N * sizeof(float)));
  CHECK(cudaMalloc(&z, N * sizeof(float)));
  std::vector<float> h(N);
  for (int i = 0; i < N; i++) h[i] = (float)(i % 97) * 0.25f;
  CHECK(cudaMemcpy(x, h.data(), N * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(y, 0, N * sizeof(float)));
  CHECK(cudaMemset(z, 0, N * sizeof(float)));

  float a = 1.0f, s = 0.5f;
  int n = N;
  void *axpy_args[] = {&y, &x, &a, &n};
  void *scale_args[] = {&z, &s, &n};
  cudaKernelNodeParams ap = {};
  ap.func = (void *)axpy;
  ap.gridDim = dim3(AXPY_BLOCKS);
  ap.blockDim = dim3(256);
  ap.kernelParams = axpy_args;
  cudaKernelNodeParams sp = {};
  sp.func = (void *)scale;
  sp.gridDim = dim3(SCALE_BLOCKS);
  sp.blockDim = dim3(512);
  sp.kernelParams = scale_args;

  cudaGraph_t graph, child, clone;
  cudaGraphNode_t axpy_node, scale_node, child_node;
  CHECK(cudaGraphCreate(&graph, 0));
  CHECK(cudaGraphCreate(&child, 0));
  CHECK(cudaGraphAddKernelNode(&axpy_node, graph, nullptr, 0, &ap));
  CHECK(cudaGraphAddKernelNode(&scale_node, child, nullptr, 0, &sp));
  CHECK(cudaGraphAddChildGraphNode(&child_node, graph, &axpy_node, 1, child));
  cudaGraphExec_t exec, exec2;
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  cudaStream_t s1, s2;
  CHECK(cudaStreamCreate(&s1));
  CHECK(cudaStreamCreate(&s2));
  int launches = 0;
  for (int i = 0; i < 10; i++, launches++) CHECK(cudaGraphLaunch(exec, s1));
  a = 2.0f;
  CHECK(cudaGraphExecKernelNodeSetParams(exec, axpy_node, &ap));
  for (int i = 0; i < 5; i++, launches++) CHECK(cudaGraphLaunch(exec, s1));
  a = 3.0f;
  CHECK(cudaGraphKernelNodeSetParams(axpy_node, &ap));
  cudaGraphExecUpdateResultInfo info;
  CHECK(cudaGraphExecUpdate(exec, graph, &info));
  for (int i = 0; i < 5; i++, launches++) CHECK(cudaGraphLaunch(exec, s1));
  CHECK(cudaGraphClone(&clone, graph));
  CHECK(cudaGraphInstantiate(&exec2, clone, 0));
  // The two executables share the nodes' buffers: each launch waits for the other's.
  for (int i = 0; i < 6; i++, launches++) CHECK(cudaGraphLaunch(i % 2 ? exec2 : exec, i % 2 ? s2 : s1));
  CHECK(cudaDeviceSynchronize());

  std::vector<float> out(2 * N);
  CHECK(cudaMemcpy(out.data(), y, N * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(out.data() + N, z, N * sizeof(float), cudaMemcpyDeviceToHost));
  FILE *f = fopen(argv[1], "wb");
  if (!f || fwrite(out.data(), sizeof(float), out.size(), f) != out.size()) {
    perror(argv[1]);
    return 1;
  }
  fclose(f);
  printf("{\"launches\": %d, \"axpy_blocks\": %d, \"scale_blocks\": %d}\n", launches,
         launches * AXPY_BLOCKS, launches * SCALE_BLOCKS);
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphExecDestroy(exec2));
  CHECK(cudaGraphDestroy(clone));
  CHECK(cudaGraphDestroy(child));
  CHECK(cudaGraphDestroy(graph));
  return 0;
}
