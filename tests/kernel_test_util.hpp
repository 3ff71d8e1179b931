// Helpers of the tests that use the kernel suite's PTX (kernels/ptx, shipped) or compile CUDA.
#pragma once

#include <cstdint>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#ifndef SMEMSIM_HAVE_PTX
#define SMEMSIM_HAVE_PTX 0
#endif
#ifndef SMEMSIM_PTX_DIR
#define SMEMSIM_PTX_DIR ""
#endif

// The kernel suite's PTX ships in kernels/ptx (issue 24): its tests always run. The tests that
// compile CUDA themselves (tests/corpus, kernel variants, examples) need nvcc at configure time.
#ifdef SMEMSIM_NVCC
#define SKIP_WITHOUT_NVCC() (void)0
#else
#define SKIP_WITHOUT_NVCC() \
  GTEST_SKIP() << "nvcc not found at configure time: the tests that compile CUDA skip"
#endif

namespace smemsim::test {

// 1-based line of the n-th line (1 = first) of kernels/<file> containing `needle`; 0 if none.
inline std::uint32_t source_line(const std::string& file, const std::string& needle, int nth = 1) {
  std::ifstream in(std::string(SMEMSIM_SOURCE_DIR) + "/kernels/" + file);
  std::string line;
  for (std::uint32_t n = 1; std::getline(in, line); ++n)
    if (line.find(needle) != std::string::npos && --nth == 0) return n;
  return 0;
}

}  // namespace smemsim::test
