// Every kernel of the suite runs under its built-in driver and matches its CPU reference on two
// launch shapes (issue 5 "must show" 1), and runs are deterministic (5). Skipped without nvcc.
#include <bit>
#include <cmath>
#include <cstring>
#include <string>

#include <gtest/gtest.h>

#include "kernel_test_util.hpp"

#include "smemsim/arch.hpp"
#include "smemsim/exec.hpp"
#include "smemsim/profile.hpp"
#include "smemsim/workloads.hpp"

namespace smemsim::exec {
namespace {

// Runs a builtin; returns the reference check's verdict ("" = match).
std::string run_builtin(const std::string& name, const BuiltinOptions& o,
                        ExecStats* stats = nullptr) {
  Workload w = make_builtin(name, o, SMEMSIM_PTX_DIR);
  Executor ex(w.module, find_kernel(w.module, w.kernel), default_arch(), w.launch, w.memory);
  ex.run();
  if (stats) *stats = ex.stats();
  EXPECT_TRUE(static_cast<bool>(w.check));
  return w.check(w.memory);
}

BuiltinOptions shape(Dim3 grid, Dim3 block) {
  BuiltinOptions o;
  o.grid = grid;
  o.block = block;
  return o;
}

TEST(ExecSuite, HistogramMatchesOnTwoShapesAndMappings) {
  BuiltinOptions a = shape({8, 1, 1}, {256, 1, 1});
  a.replication = 32;
  a.padding = 1;
  a.image = "blobs";
  EXPECT_EQ(run_builtin("histogram", a), "");
  BuiltinOptions b = shape({3, 1, 1}, {96, 1, 1});  // partial warps are impossible here: 96 = 3x32
  b.bins = 64;
  b.replication = 4;
  b.mapping = "block";
  b.image = "noise";
  EXPECT_EQ(run_builtin("histogram", b), "");
  BuiltinOptions c = shape({2, 1, 1}, {50, 1, 1});  // a partial second warp
  c.bins = 100;
  c.replication = 3;
  EXPECT_EQ(run_builtin("histogram", c), "");
}

TEST(ExecSuite, TransposeNaiveAndPaddedMatchOnTwoShapes) {
  for (const std::string v : {"naive", "padded"}) {
    BuiltinOptions a;
    a.variant = v;
    a.width = 64;
    a.height = 32;
    EXPECT_EQ(run_builtin("transpose", a), "") << v;
    BuiltinOptions b;
    b.variant = v;
    b.width = 32;
    b.height = 96;
    EXPECT_EQ(run_builtin("transpose", b), "") << v;
  }
}

TEST(ExecSuite, ReductionBothVariantsMatchOnTwoShapes) {
  for (const std::string v : {"interleaved", "sequential"}) {
    BuiltinOptions a = shape({16, 1, 1}, {256, 1, 1});
    a.variant = v;
    a.size = 4000;  // the last block is partial
    EXPECT_EQ(run_builtin("reduction", a), "") << v;
    BuiltinOptions b = shape({3, 1, 1}, {1024, 1, 1});
    b.variant = v;
    b.size = 3 * 1024;
    EXPECT_EQ(run_builtin("reduction", b), "") << v;
  }
}

TEST(ExecSuite, FwtMatchesOnTwoShapes) {
  BuiltinOptions a = shape({2, 1, 1}, {256, 1, 1});
  a.log2n = 11;
  EXPECT_EQ(run_builtin("fwt", a), "");
  BuiltinOptions b = shape({3, 1, 1}, {64, 1, 1});
  b.log2n = 8;  // even: no radix-2 stage
  EXPECT_EQ(run_builtin("fwt", b), "");
}

TEST(ExecSuite, KmeansMatchesOnTwoShapes) {
  BuiltinOptions a = shape({4, 1, 1}, {256, 1, 1});
  EXPECT_EQ(run_builtin("kmeans", a), "");
  BuiltinOptions b = shape({7, 1, 1}, {160, 1, 1});
  b.k = 5;
  b.dims = 3;
  b.replication = 2;
  b.size = 1000;
  EXPECT_EQ(run_builtin("kmeans", b), "");
}

TEST(ExecSuite, HoughMatchesOnTwoShapes) {
  BuiltinOptions a = shape({16, 1, 1}, {256, 1, 1});
  EXPECT_EQ(run_builtin("hough", a), "");
  BuiltinOptions b = shape({45, 1, 1}, {128, 1, 1});
  b.width = 48;
  b.height = 40;
  b.replication = 3;
  EXPECT_EQ(run_builtin("hough", b), "");
  BuiltinOptions c = shape({32, 1, 1}, {256, 1, 1});
  c.image = "blobs";  // the discs' Sobel edges instead of random lines
  EXPECT_EQ(run_builtin("hough", c), "");
}

TEST(ExecSuite, AtomicBenchMatchesOnTwoShapes) {
  for (std::uint32_t stride : {0u, 32u, 256u}) {
    BuiltinOptions a = shape({1, 1, 1}, {32, 1, 1});
    a.conflicts = 13;
    a.stride = stride;
    EXPECT_EQ(run_builtin("atomic_bench", a), "") << stride;
    BuiltinOptions b = shape({2, 1, 1}, {64, 1, 1});
    b.conflicts = 32;
    b.stride = stride;
    b.iterations = 3;
    EXPECT_EQ(run_builtin("atomic_bench", b), "") << stride;
  }
}

TEST(ExecSuite, GenIndexMatchesOnTwoShapes) {
  BuiltinOptions a = shape({1, 1, 1}, {32, 1, 1});
  a.way = 8;
  a.stride = 32;
  EXPECT_EQ(run_builtin("genindex", a), "");
  BuiltinOptions b = shape({2, 1, 1}, {128, 1, 1});
  b.way = 32;
  b.stride = 17;
  EXPECT_EQ(run_builtin("genindex", b), "");
}

TEST(ExecSuite, RunsAreDeterministic) {
  BuiltinOptions o;
  o.replication = 4;
  o.image = "noise";
  auto run = [&]() {
    Workload w = make_builtin("kmeans", o, SMEMSIM_PTX_DIR);
    Executor ex(w.module, find_kernel(w.module, w.kernel), default_arch(), w.launch, w.memory);
    CollectConsumer c;
    ex.set_consumer(&c);
    ex.run();
    return std::make_pair(w.memory.get("sums").bytes, c.accesses.size());
  };
  const auto a = run(), b = run();
  EXPECT_EQ(a.first, b.first);  // float atomics included: the issue order is fixed
  EXPECT_EQ(a.second, b.second);
}

}  // namespace
}  // namespace smemsim::exec

namespace smemsim::exec {
namespace {

TEST(ExecSuite, ReferenceCheckReportsAMismatch) {
  BuiltinOptions o;
  o.bins = 16;
  Workload w = make_builtin("histogram", o, SMEMSIM_PTX_DIR);
  Executor ex(w.module, find_kernel(w.module, w.kernel), default_arch(), w.launch, w.memory);
  ex.run();
  EXPECT_EQ(w.check(w.memory), "");
  w.memory.get("bins").as<std::uint32_t>()[3] += 1;
  const std::string m = w.check(w.memory);
  EXPECT_NE(m.find("bins[3] = "), std::string::npos) << m;
  EXPECT_NE(m.find("1 of 16 elements differ"), std::string::npos) << m;
}

// The instruction-coverage kernel: the results that do not depend on the order of atomics,
// computed from the C source of kernels/isa_mix.cu.
TEST(ExecSuite, IsaMixCoverageKernel) {
  Workload w;
  w.module = ptx::parse_file(std::string(SMEMSIM_PTX_DIR) + "/isa_mix.ptx");
  std::vector<float> in(256 * 4);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i) * 0.37f - 20.0f;
  Buffer bin{"in", ElemType::F32, std::vector<std::uint8_t>(in.size() * 4)};
  std::memcpy(bin.bytes.data(), in.data(), bin.bytes.size());
  const auto ib = w.memory.add(std::move(bin));
  const auto ob = w.memory.add({"out", ElemType::F32, std::vector<std::uint8_t>(64 * 8 * 4)});
  const auto io = w.memory.add({"iout", ElemType::S32, std::vector<std::uint8_t>(64 * 8 * 4)});
  w.launch.grid = {1, 1, 1};
  w.launch.block = {64, 1, 1};
  w.launch.args = {Arg::buf(ib), Arg::buf(ob), Arg::buf(io)};
  Executor ex(w.module, find_kernel(w.module, "isa_mix"), default_arch(), w.launch, w.memory);
  ex.run();
  const std::int32_t* iout = w.memory.get("iout").as<std::int32_t>();
  const float* out = w.memory.get("out").as<float>();
  for (int t = 0; t < 64; ++t) {
    SCOPED_TRACE(t);
    const std::int32_t* r = iout + t * 8;
    if (t % 4 == 0) EXPECT_EQ(r[1], 64);   // 64 atomicInc below the limit
    if (t % 4 == 1) EXPECT_EQ(r[1], 937);  // atomicDec: 0 wraps to 1000, then 63 more
    if (t % 4 == 2) EXPECT_EQ(r[1], 0);    // atomicAnd clears
    EXPECT_EQ(r[2], (t - 32) / 5 + (t - 32) % 5);
    EXPECT_EQ(r[3], std::abs(t - 40) + std::min(t, 17) - std::max(t, 9));
    const std::uint32_t h = static_cast<std::uint32_t>(t) * 2654435761u;
    EXPECT_EQ(r[4], std::popcount(h) + std::countl_zero(static_cast<std::uint32_t>(t + 1)));
    const float vx = in[t * 4], vy = in[t * 4 + 1], vz = in[t * 4 + 2], vw = in[t * 4 + 3];
    EXPECT_EQ(r[5], static_cast<int>(std::trunc(vx * 3.7f)) ^ static_cast<int>(std::floor(vy)) ^
                        static_cast<int>(std::ceil(vz)));
    std::uint32_t rev = 0;
    for (int b = 0; b < 6; ++b) rev |= ((static_cast<std::uint32_t>(t) >> b) & 1u) << (5 - b);
    EXPECT_EQ(r[6], (t & 1 ? 1024 : 992) + static_cast<int>(rev));  // sum of odd / even t
    EXPECT_EQ(r[7], static_cast<int>(static_cast<long long>(t) * 3000000000LL % 1000003));
    const float local[8] = {vx / (vy + 1.0f),
                            std::sqrt(std::fabs(vz)),
                            1.0f / (vw + 2.0f),
                            std::exp2(vx * 0.125f),
                            std::log2(std::fabs(vy) + 1.0f),
                            std::sin(vz) + std::cos(vw),
                            std::fmin(vx, vy) - std::fmax(vz, vw),
                            static_cast<float>(t * 7) + static_cast<float>(t) * 0.5f};
    const int k = (t * 5) & 7;
    for (int j = 0; j < 8; ++j) {
      const float want = local[(j + k) & 7];
      EXPECT_NEAR(out[t * 8 + j], want, 2e-5f * (1.0f + std::fabs(want))) << j;
    }
  }
}

}  // namespace
}  // namespace smemsim::exec
