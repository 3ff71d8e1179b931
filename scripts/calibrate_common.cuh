// What the GPU-side host programs (scripts/calibrate's calibrate.cu and calibrate_measure.cu,
// hopper_measure.cu, operand_delay.cu) share: the error exit (one line naming the program, exit
// code 2) and the median of five runs.
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
