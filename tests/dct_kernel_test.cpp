// builtin:dct8x8 (kernels/dct8x8.cu, seed 004 Table 4's DCT, IDCT, DCT_short, IDCT_short): every
// variant against its CPU reference, and the bank conflicts derived in the kernel's header.
#include <gtest/gtest.h>

#include "kernel_test_util.hpp"
#include "smemsim/error.hpp"
#include "smemsim/exec.hpp"
#include "smemsim/timing.hpp"
#include "smemsim/workloads.hpp"

namespace smemsim::exec {
namespace {

const char* kVariants[] = {"dct",       "idct",       "dct_short",       "idct_short",
                           "dct_nopad", "idct_nopad", "dct_short_nopad", "idct_short_nopad"};

TEST(Dct, EveryVariantMatchesTheReferenceOnTwoShapes) {
  SKIP_WITHOUT_NVCC();
  for (const char* v : kVariants)
    for (const auto& [w, h] : {std::pair{64u, 32u}, std::pair{32u, 64u}}) {
      BuiltinOptions o;
      o.variant = v;
      o.width = w;
      o.height = h;
      o.seed = w;
      Workload wl = make_builtin("dct8x8", o, SMEMSIM_PTX_DIR);
      Executor ex(wl.module, find_kernel(wl.module, wl.kernel), default_arch(), wl.launch,
                  wl.memory);
      ex.run();
      EXPECT_EQ(wl.check(wl.memory), "") << v << " " << w << "x" << h;
    }
}

// The header of kernels/dct8x8.cu derives, for cf11 (8 banks, 8-lane subwarps): float kernels 16
// row accesses of 8 passes and 32 accesses of 1 pass, (16 x 8 + 32) / 48 = 10/3 passes per subwarp
// access without padding (004 Table 4: 3.33); short kernels 8 row accesses of 8 passes and 24 of 1,
// (8 x 8 + 24) / 32 = 2.75 (Table 4: 2.75); padded, 1.
TEST(Dct, ConflictDegreesAreTable4s) {
  SKIP_WITHOUT_NVCC();
  const Arch& cf11 = find_preset("cf11");
  const std::pair<const char*, double> want[] = {{"dct", 1.0},
                                                 {"idct_short", 1.0},
                                                 {"dct_nopad", 10.0 / 3},
                                                 {"idct_nopad", 10.0 / 3},
                                                 {"dct_short_nopad", 2.75},
                                                 {"idct_short_nopad", 2.75}};
  for (const auto& [v, degree] : want) {
    BuiltinOptions o;
    o.variant = v;
    o.width = o.height = 64;
    Workload wl = make_builtin("dct8x8", o, SMEMSIM_PTX_DIR);
    timing::GpuSim sim(wl.module, find_kernel(wl.module, wl.kernel), cf11, wl.launch, wl.memory,
                       {});
    const timing::TimingStats& s = sim.run();
    EXPECT_EQ(wl.check(wl.memory), "") << v;
    EXPECT_DOUBLE_EQ(double(s.units.smem_passes) / double(s.units.smem_accesses), degree) << v;
  }
}

TEST(Dct, BadOptionsAreErrors) {
  BuiltinOptions o;
  o.variant = "fft";
  EXPECT_THROW(make_builtin("dct8x8", o, SMEMSIM_PTX_DIR), InputError);
  o.variant = "dct_short";
  o.width = 64;
  o.height = 48;  // not a multiple of the 32-row region
  EXPECT_THROW(make_builtin("dct8x8", o, SMEMSIM_PTX_DIR), InputError);
  o.height = 64;
  o.block = Dim3{8, 4, 2};  // the float kernels' block
  EXPECT_THROW(make_builtin("dct8x8", o, SMEMSIM_PTX_DIR), InputError);
}

}  // namespace
}  // namespace smemsim::exec
