// The microbenchmarks of kernels/ubench.cu in the cycle model (issue 25, item 4): every modern
// preset reproduces its own timing keys within 5 %, measured the way a GPU run measures them
// (clock() around a chain of 64 dependent operations in the kernel). The table is printed.
//
// What each chain's cycles per link must be, from the keys alone (docs/timing.md "Units and
// lanes"): a dependent operation issues when its producer's latency has passed and its unit takes
// it again, so a link costs max(latency, interval), interval = ceil(32 threads / lanes); an mma's
// latency is lat_tensor + I - 1 with I = m*n*k / tensor_fmas; a shared load whose `ways` lanes
// share a bank makes ways - 1 extra passes, each timing.t_bank cycles apart; a native shared
// atomic on one word makes 31 same-word passes, timing.native_position apart; a global load's
// link is sm.global_latency plus the LSU's path to MEM0 and the sector's transfer, about
// sm.lat_shared_ld (so volta-v100's chase takes the TITAN V's measured 313); ldmatrix.x4 makes
// four passes (its phases); the throughput chain keeps the SM's one-pass-per-cycle port busy.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>

#include <fmt/format.h>

#include "calibrate/measurements.hpp"
#include "calibrate/replicas.hpp"
#include "kernel_test_util.hpp"
#include "lower/rules.hpp"
#include "smemsim/arch.hpp"
#include "smemsim/exec.hpp"
#include "smemsim/timing.hpp"
#include "smemsim/workloads.hpp"
#include "test_util.hpp"

namespace smemsim::test {
namespace {

constexpr int kSteps = 64;  // STEPS in kernels/ubench.cu

// Cycles per link of `kernel` on `arch` (one SM, one warp).
double cycles_per_link(const ptx::Module& m, const std::string& kernel, const Arch& preset,
                       exec::Arg arg) {
  // ubench_lds_tput: 8 warps of 4 x 64 loads each, timed between two barriers.
  const bool tput = kernel == "ubench_lds_tput";
  Arch arch = preset;
  arch.sm.count = 1;
  exec::GlobalMemory mem;
  const std::uint32_t out =
      mem.add(exec::Buffer{"out", exec::ElemType::U32, std::vector<std::uint8_t>(8)});
  if (kernel == "ubench_ldg")  // its ring: 4096 64-bit words
    arg = exec::Arg::buf(
        mem.add(exec::Buffer{"ring", exec::ElemType::U64, std::vector<std::uint8_t>(4096 * 8)}));
  if (kernel == "ubench_cpasync")  // its ring: 1024 entries of 16 bytes
    arg = exec::Arg::buf(
        mem.add(exec::Buffer{"ring", exec::ElemType::U32, std::vector<std::uint8_t>(1024 * 16)}));
  exec::Launch launch;
  launch.grid = {1, 1, 1};
  launch.block = {tput ? 256u : 32u, 1, 1};
  launch.args = {exec::Arg::buf(out), arg};
  timing::GpuSim sim(m, exec::find_kernel(m, kernel), arch, launch, mem, {});
  sim.run();
  std::uint32_t cycles = 0;
  std::memcpy(&cycles, mem.find("out")->bytes.data(), 4);
  return double(cycles) / (tput ? 8 * 4 * kSteps : kSteps);
}

std::uint32_t interval(std::uint32_t lanes) {
  return (32 + lanes - 1) / lanes;
}

// Cycles of one step of an mma with an f32 accumulator: 1, or sm.tensor_step_fmas's share.
std::uint32_t tensor_step(const Arch& a) {
  const std::uint32_t f = a.sm.tensor_step_fmas, lanes = a.sm.tensor_fmas;
  return f ? (f + lanes - 1) / lanes : 1;
}

TEST(Ubench, ModernPresetsReproduceTheirKeysWithinFivePercent) {
  const ptx::Module m = exec::load_suite_ptx(exec::suite_ptx_dir(), "ubench", "ubench");
  std::string table = fmt::format("{:<24}", "chain (cycles/link)");
  const char* presets[] = {"volta-v100", "turing-t4", "ampere-a100", "hopper-h100"};
  for (const char* p : presets) table += fmt::format(" {:>19}", p);
  table += "\n";
  struct Chain {
    const char* label;
    const char* kernel;
    exec::Arg arg;
    double (*expected)(const Arch&);
    bool no_guard = false;  // timed with sm.guard_delay 0 (below)
  };
  const Chain chains[] = {
      {"shared load", "ubench_lds", exec::Arg::integer(1),
       [](const Arch& a) { return double(a.sm.lat_shared_ld); }},
      {"shared load, 4-way", "ubench_lds", exec::Arg::integer(4),
       [](const Arch& a) { return double(a.sm.lat_shared_ld + 3 * a.timing.t_bank); }},
      {"shared load, 32-way", "ubench_lds", exec::Arg::integer(32),
       [](const Arch& a) { return double(a.sm.lat_shared_ld + 31 * a.timing.t_bank); }},
      // Four phases of 8 rows (docs/timing.md "Tensor cores"), each pass t_bank after the last,
      // then the chain's integer min, whose result the next ldmatrix reads after the ALU's
      // operand delay (docs/timing.md "Operand delay"; hopper-h100: 2, the others 0).
      {"ldmatrix.x4", "ubench_ldsm", exec::Arg::integer(0),
       [](const Arch& a) {
         return double(a.sm.lat_shared_ld + 3 * a.timing.t_bank + a.sm.lat_alu +
                       a.sm.mio_delay_alu);
       }},
      // The SM's shared-memory pipe serves one bank pass per cycle (docs/timing.md "Sub-cores"):
      // 8 warps' independent loads keep it busy, so a warp access costs its `ways` passes. With
      // the guard delay (sm.guard_delay) each warp's loop of 4 loads waits 13 cycles more for its
      // branch's predicate, and two warps a sub-core no longer keep the port busy at 1 pass
      // (1.13 a load on volta-v100, 1.09 on hopper-h100); so does the taken branch's fetch
      // (sm.taken_branch_fetch, 11 cycles after each branch on hopper-h100: 1.05). The port is
      // checked without either.
      {"shared load tput, 1-way", "ubench_lds_tput", exec::Arg::integer(1),
       [](const Arch&) { return 1.0; }, true},
      {"shared load tput, 4-way", "ubench_lds_tput", exec::Arg::integer(4),
       [](const Arch&) { return 4.0; }, true},
      {"shared load tput, 32-way", "ubench_lds_tput", exec::Arg::integer(32),
       [](const Arch&) { return 32.0; }, true},
      {"shared atomic", "ubench_atom", exec::Arg::integer(0),
       [](const Arch& a) { return double(a.sm.lat_shared_atom); }},
      {"shared atomic, 1 bank", "ubench_atom", exec::Arg::integer(1),
       [](const Arch& a) { return double(a.sm.lat_shared_atom + 31 * a.timing.t_bank); }},
      {"shared atomic, 1 word", "ubench_atom", exec::Arg::integer(2),
       [](const Arch& a) { return double(a.sm.lat_shared_atom + 31 * a.timing.native_position); }},
      {"global load", "ubench_ldg", exec::Arg::integer(0),
       [](const Arch& a) { return double(a.sm.global_latency + a.sm.lat_shared_ld); }},
      // cp.async's global read (the ldg chain's link), then wait_all and the shared load of the
      // next index, then mad.wide (FMA pipe) for the next entry's address. Its .cg read finds the
      // entries the kernel wrote in the L2 where there is one (issue 44).
      {"cp.async + wait + ld", "ubench_cpasync", exec::Arg::integer(0),
       [](const Arch& a) {
         const std::uint32_t read = a.sm.l2_bytes ? a.sm.l2_latency : a.sm.global_latency;
         return double(read + 2 * a.sm.lat_shared_ld + a.sm.lat_fma);
       }},
      {"integer add", "ubench_alu", exec::Arg::integer(7),
       [](const Arch& a) { return double(std::max(a.sm.lat_alu, interval(a.sm.lanes_alu))); }},
      {"fp32 fma", "ubench_fma", exec::Arg::real(1.5),
       [](const Arch& a) { return double(std::max(a.sm.lat_fma, interval(a.sm.lanes_fma))); }},
      {"fp64 fma", "ubench_dfma", exec::Arg::real(1.5),
       [](const Arch& a) { return double(std::max(a.sm.lat_fp64, interval(a.sm.lanes_fp64))); }},
      // ubench_sfu's ex2.approx.f32 has no .ftz: where sm.lower has ex2 (hopper-h100) it is
      // ptxas's FSETP, @!P FMUL, MUFU.EX2, @!P FMUL, whose chain is an ALU latency, the FMUL's
      // late read of the FSETP's predicate (sm.guard_delay), two FMA latencies, the MUFU's late
      // read of an FMA result (sm.mio_delay_fma) and the SFU's.
      {"sfu ex2", "ubench_sfu", exec::Arg::real(0.5),
       [](const Arch& a) {
         const double mufu = double(std::max(a.sm.lat_sfu, interval(a.sm.lanes_sfu)));
         if (!lower::parse_rules(a.sm.lower).ex2) return mufu;
         return double(a.sm.lat_alu + a.sm.guard_delay + 2 * a.sm.lat_fma + a.sm.mio_delay_fma) +
                mufu;
       }},
      {"mma m16n8k16", "ubench_mma", exec::Arg::integer(1),
       [](const Arch& a) {
         // ceil(M*N*K / tensor_fmas) cycles in the unit (hopper-h100's 336 lanes: 7 for 2,048),
         // less one step (volta-v100: 256 FMAs of an f32 accumulator, 2 cycles).
         return double(a.sm.lat_tensor + (2048 + a.sm.tensor_fmas - 1) / a.sm.tensor_fmas -
                       tensor_step(a));
       }},
      {"mma m16n8k8", "ubench_mma8", exec::Arg::integer(1),
       [](const Arch& a) {
         return double(a.sm.lat_tensor + (1024 + a.sm.tensor_fmas - 1) / a.sm.tensor_fmas -
                       tensor_step(a));
       }},
  };
  for (const Chain& c : chains) {
    table += fmt::format("{:<24}", c.label);
    for (const char* p : presets) {
      SCOPED_TRACE(fmt::format("{} on {}", c.label, p));
      Arch a = find_preset(p);
      if (c.no_guard) a.sm.guard_delay = a.sm.taken_branch_fetch = 0;
      const double got = cycles_per_link(m, c.kernel, a, c.arg);
      const double want = c.expected(a);
      EXPECT_NEAR(got, want, 0.05 * want);
      table += fmt::format(" {:>8.2f} (key {:>5.1f})", got, want);
    }
    table += "\n";
  }
  std::printf("%s", table.c_str());
  // The source volta-v100's global latency was solved from: the TITAN V's chase, 313 a link.
  EXPECT_NEAR(cycles_per_link(m, "ubench_ldg", find_preset("volta-v100"), exec::Arg::integer(0)),
              313.0, 313.0 * 0.02);
}

#ifdef SMEMSIM_NVCC
// scripts/calibrate's two host programs compile for Turing and Ampere (the mma chains a GPU lacks
// are compiled out), and on a machine without a GPU each stops with one line and exit code 2. With
// a GPU, --keys prints the measured keys and the default a measurement file that smemsim
// calibrate reads: one figure per replica, each benchmark a replica's name.
TEST(Ubench, CalibrateCompilesAndReportsAMissingGpuClearly) {
  for (const char* program : {"calibrate", "calibrate_measure"}) {
    const std::string bin = ::testing::TempDir() + "/smemsim_" + program;
    for (const char* arch : {"sm_75", "sm_80"}) {
      const auto c = shell(fmt::format("{} -O2 -arch={} -o {} {}/scripts/{}.cu", SMEMSIM_NVCC, arch,
                                       bin, SMEMSIM_SOURCE_DIR, program));
      ASSERT_EQ(c.exit_code, 0) << program << " " << arch << "\n" << c.out;
    }
    const auto r = shell(bin);
    if (r.exit_code != 0) {
      EXPECT_EQ(r.exit_code, 2) << r.out;
      EXPECT_TRUE(r.out.starts_with("calibrate: ")) << r.out;
      EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
    } else if (std::string(program) == "calibrate") {
      EXPECT_NE(r.out.find("lat_shared_ld = "), std::string::npos) << r.out;
    } else {
      const std::string file = bin + ".toml";
      std::ofstream(file) << r.out;
      const calibrate::Measurements m = calibrate::load_measurements(file);
      // memory_measure.cu and hopper_measure.cu --figures give the others (scripts/calibrate).
      const auto& all = calibrate::replicas();
      EXPECT_EQ(m.figures.size(),
                std::size_t(std::count_if(all.begin(), all.end(), [](const calibrate::Replica& x) {
                  return x.in_table();
                })));
    }
  }
}
#endif

}  // namespace
}  // namespace smemsim::test
