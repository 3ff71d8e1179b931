// What the GPU-side host programs (scripts/calibrate's calibrate.cu and calibrate_measure.cu,
// hopper_measure.cu, memory_measure.cu, memory_scaling.cu, operand_delay.cu) share: the error exit
// (one line naming the program, exit code 2), the median of five runs, the CTAs' clock spans and a
// measurement file's [[figure]] table.
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

inline const char* check_program = "calibrate";  // the program an error line names

inline void check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "%s: %s: %s\n", check_program, what, cudaGetErrorString(e));
  std::exit(2);
}

// The median of five runs of `run()` after one warm-up run.
template <typename Run>
double median_of_five(Run run) {
  double runs[5];
  run();
  for (double& r : runs) r = run();
  std::sort(runs, runs + 5);
  return runs[2];
}

// The last launch's CTA clock spans, smallest first: kernels/memory_ubench.cu's kernels write CTA
// b's clock64 before and after its work to clk[2b] and clk[2b + 1].
inline std::vector<double> cta_spans(const unsigned long long* clk, int ctas) {
  check(cudaGetLastError(), "the launch");
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  std::vector<unsigned long long> h(2 * std::size_t(ctas));
  check(cudaMemcpy(h.data(), clk, h.size() * 8, cudaMemcpyDeviceToHost), "cudaMemcpy");
  std::vector<double> s(static_cast<std::size_t>(ctas));
  for (int b = 0; b < ctas; ++b) s[std::size_t(b)] = double(h[2 * b + 1] - h[2 * b]);
  std::sort(s.begin(), s.end());
  return s;
}

// One [[figure]] table of a measurement file (docs/calibration.md "Measurement files"): its id is
// its benchmark's name (a replica of smemsim calibrate --list).
inline void print_figure(const char* benchmark, double value, const char* unit, const char* where,
                         const char* step, const char* clock, unsigned block, unsigned grid) {
  std::printf("\n[[figure]]\nid = \"%s\"\nbenchmark = \"%s\"\nvalue = %.6f\nunit = \"%s\"\n",
              benchmark, benchmark, value, unit);
  std::printf("where = \"%s\"\n[figure.method]\nstep = \"%s\"\nclock = \"%s\"\n", where, step,
              clock);
  std::printf("block = %u\ngrid = %u\n", block, grid);
}
