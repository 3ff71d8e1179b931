// scripts/wgmma_measure.cu: Hopper's warpgroup multiply (issue 46) measured on an sm_90a GPU with
// the kernels smemsim calibrate runs as replicas (kernels/wgmma.cu's wgmma_latency_*: one
// warpgroup, 1,024 m64nNk16 into one accumulator back to back, then commit and wait; thread 0's
// 32-bit %clock around them), so that Luo et al. 2024's Table X (an H800, shipped in
// calibration/h800-luo2024.toml) can be set beside our own GPU's figures. Each figure is the
// median of five launches after a warm-up (calibrate_common.cuh), in cycles a product; printed as
// [[figure]] tables of a measurement file (benchmarks wgmma_n8 ... wgmma_rs_n32).
//   nvcc -O2 -gencode arch=compute_90a,code=sm_90a -o wgmma_measure scripts/wgmma_measure.cu &&
//     ./wgmma_measure
#include "../kernels/wgmma.cu"
#include "calibrate_common.cuh"

#include <cstdio>

int main() {
  check_program = "wgmma_measure";
  unsigned* clk = nullptr;
  check(cudaMalloc(&clk, 16), "cudaMalloc");
  constexpr int kSteps = 1024;
  struct Kernel {
    const char* benchmark;
    void (*kernel)(unsigned*, int);
    const char* what;
  };
  const Kernel kernels[] = {
      {"wgmma_n8", wgmma_latency_n8, "m64n8k16, A and B from shared memory"},
      {"wgmma_n16", wgmma_latency_n16, "m64n16k16, A and B from shared memory"},
      {"wgmma_n32", wgmma_latency_n32, "m64n32k16, A and B from shared memory"},
      {"wgmma_n64", wgmma_latency_n64, "m64n64k16, A and B from shared memory"},
      {"wgmma_n128", wgmma_latency_n128, "m64n128k16, A and B from shared memory"},
      {"wgmma_n256", wgmma_latency_n256, "m64n256k16, A and B from shared memory"},
      {"wgmma_rs_n8", wgmma_latency_rs_n8, "m64n8k16, A from registers"},
      {"wgmma_rs_n16", wgmma_latency_rs_n16, "m64n16k16, A from registers"},
      {"wgmma_rs_n32", wgmma_latency_rs_n32, "m64n32k16, A from registers"},
  };
  for (const Kernel& k : kernels) {
    const double cycles = median_of_five([&] {
      k.kernel<<<1, 128>>>(clk, kSteps);
      check(cudaGetLastError(), k.benchmark);
      check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
      unsigned h[2];
      check(cudaMemcpy(h, clk, 8, cudaMemcpyDeviceToHost), "cudaMemcpy");
      return double(h[1] - h[0]) / kSteps;
    });
    char where[160], step[200];
    std::snprintf(where, sizeof where, "scripts/wgmma_measure.cu, %s", k.benchmark);
    std::snprintf(step, sizeof step,
                  "1,024 wgmma.mma_async %s, f32 += f16 x f16 into one accumulator, then commit "
                  "and wait",
                  k.what);
    print_figure(k.benchmark, cycles, "cycles", where, step,
                 "thread 0's %clock around the products, cycles a product", 128, 1);
  }
  return 0;
}
