// What scripts/calibrate's two host programs (calibrate.cu, calibrate_measure.cu) share: the
// error exit (one line, exit code 2) and the median of five runs.
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstdlib>

inline void check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "calibrate: %s: %s\n", what, cudaGetErrorString(e));
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
