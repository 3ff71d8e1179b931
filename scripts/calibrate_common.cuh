// What the GPU-side host programs (scripts/calibrate's calibrate.cu and calibrate_measure.cu,
// hopper_measure.cu, memory_measure.cu, operand_delay.cu) share: the error exit (one line naming
// the program, exit code 2), the median of five runs and a measurement file's [[figure]] table.
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstdlib>

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
