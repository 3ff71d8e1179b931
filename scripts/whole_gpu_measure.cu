// scripts/whole_gpu_measure.cu: the three whole-GPU figures of Accel-Sim's GPU_Microbenchmark
// (calibration/titanv-accelsim-memory.toml) on this machine's GPU, with the replicas of
// kernels/ubench_replicas.cu that smemsim calibrate runs in the cycle model (l2_bw_64f, mem_bw,
// atomic_add_bw_conflict), launched as the source launched them: (threads an SM / 1,024) x SMs
// CTAs of 1,024 threads. Each figure is the median of five runs after a warm-up, printed as a
// [[figure]] table of a measurement file (scripts/calibrate appends them to the replicas' file).
// The steps are the source's (2,048 and 1,024; the model runs 64 and 4 of them: docs/calibration.md
// "The whole GPU's rates").
//   nvcc -O2 -arch=native -o whole_gpu_measure scripts/whole_gpu_measure.cu && ./whole_gpu_measure
#include "../kernels/ubench_replicas.cu"
#include "calibrate_common.cuh"

#include <string>
#include <vector>

#define CHECK(x) check((x), #x)

namespace {

// The clocks of the last launch: thread 0's difference, or the span over every thread (32-bit
// %clock, compared modulo 2^32 as src/calibrate/replicas.cpp does).
double cycles_of(const unsigned* clk, unsigned threads, bool span) {
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<unsigned> c(2 * std::size_t(span ? threads : 1));
  CHECK(cudaMemcpy(c.data(), clk, c.size() * 4, cudaMemcpyDeviceToHost));
  unsigned first = c[0], last = c[1];
  for (unsigned t = 1; span && t < threads; ++t) {
    if (int(c[2 * t] - first) < 0) first = c[2 * t];
    if (int(c[2 * t + 1] - last) > 0) last = c[2 * t + 1];
  }
  return double(unsigned(last - first));
}

}  // namespace

int main(int argc, char** argv) {
  check_program = "whole_gpu_measure";
  if (argc != 1) {
    std::fprintf(stderr, "whole_gpu_measure: usage: whole_gpu_measure (no arguments)\n");
    return 2;
  }
  cudaDeviceProp p{};
  CHECK(cudaGetDeviceProperties(&p, 0));
  const unsigned block = 1024, grid = p.maxThreadsPerMultiProcessor / block * p.multiProcessorCount;
  const unsigned threads = grid * block;
  unsigned *clk = nullptr, *out = nullptr, *word = nullptr;
  CHECK(cudaMalloc(&clk, 8ull * threads));
  CHECK(cudaMalloc(&out, 8ull * threads));
  CHECK(cudaMalloc(&word, 4));

  // l2_cache/l2_bw_64f: T + 32 x 2,048 doubles, thread 0's cycles.
  const int l2_steps = 2048;
  const unsigned n = threads + 32u * l2_steps;
  double* a = nullptr;
  CHECK(cudaMalloc(&a, 8ull * n));
  CHECK(cudaMemset(a, 0, 8ull * n));
  const double l2 = median_of_five([&] {
    rep_l2_bw_64f<<<grid, block>>>(clk, reinterpret_cast<double*>(out), a, n, l2_steps);
    return double(threads) * l2_steps * 8 / cycles_of(clk, threads, false);
  });
  CHECK(cudaFree(a));

  // mem/mem_bw: six arrays of twice the L2, thread 0's cycles.
  const unsigned n4 = unsigned(p.l2CacheSize / 8);
  std::vector<float4*> arr(6);
  for (float4*& x : arr) {
    CHECK(cudaMalloc(&x, 16ull * n4));
    CHECK(cudaMemset(x, 0, 16ull * n4));
  }
  const double dram = median_of_five([&] {
    rep_mem_bw<<<grid, block>>>(clk, arr[0], arr[1], arr[2], arr[3], arr[4], arr[5], n4);
    return 96.0 * n4 / cycles_of(clk, threads, false);
  });
  for (float4* x : arr) CHECK(cudaFree(x));

  // atomics/Atomic_add_bw_conflict: every thread on one word, 1,024 times, the span.
  const int atomic_steps = 1024;
  const double atomic = median_of_five([&] {
    rep_atomic_conflict<<<grid, block>>>(clk, out, word, atomic_steps);
    return double(threads) * atomic_steps * 4 / cycles_of(clk, threads, true);
  });

  const std::string where = "scripts/whole_gpu_measure.cu, kernel ";
  print_figure("l2_bw_64f", l2, "B/clk", (where + "rep_l2_bw_64f").c_str(),
               "after a grid-stride warm-up pass, ld.global.cg.f64 of a[32 i + uid] added up, "
               "2,048 steps",
               "32-bit %clock of thread 0 (CTA 0) between two bar.sync; threads x 2,048 x 8 bytes "
               "/ its cycles",
               block, grid);
  std::printf("iterations = %d\n", l2_steps);
  print_figure("mem_bw", dram, "B/clk", (where + "rep_mem_bw").c_str(),
               "a grid-stride loop over five float4 arrays of twice the L2, their sum stored to a "
               "sixth",
               "32-bit %clock of thread 0 (CTA 0) between two bar.sync; six arrays' bytes / its "
               "cycles",
               block, grid);
  print_figure("atomic_add_bw_conflict", atomic, "B/clk", (where + "rep_atomic_conflict").c_str(),
               "sum += atomicAdd(&word[0], 10) by every thread, 1,024 steps",
               "32-bit %clock per thread between two bar.sync; threads x 1,024 x 4 bytes / (the "
               "last stop - the first start)",
               block, grid);
  std::printf("iterations = %d\n", atomic_steps);
  return 0;
}
