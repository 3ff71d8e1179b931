// The published measurement files (issue 42: Jia et al. 2019, Abdelkhalik et al. 2022, Luo et al.
// 2024): each figure's replica run on the file's preset as shipped. Every figure lands within 5 %
// but the misses named here, each pinned to where it stands with its cause, so that a change that
// moves one is seen. The figures are the papers'; the model's numbers come from running the
// replicas (kernels/ubench_replicas.cu), never from the keys. docs/sources.md "Published
// measurements" gives the tables.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "calibrate/fit.hpp"
#include "calibrate/replicas.hpp"
#include "test_util.hpp"

namespace smemsim::test {
namespace {

struct Miss {
  double error;  // (model - published) / published, the preset as shipped
  const char* cause;
};

void check_file(const std::string& name, const std::map<std::string, Miss>& misses) {
  const calibrate::Measurements m =
      calibrate::load_measurements(std::string(SMEMSIM_SOURCE_DIR) + "/calibration/" + name);
  const Arch a = find_preset(m.preset);
  static const calibrate::Code code = calibrate::load_replicas();
  std::size_t seen = 0;
  for (const calibrate::Figure& f : m.figures) {
    const double x = calibrate::run_replica(*calibrate::find_replica(f.benchmark), a, code);
    const double err = (x - f.value) / f.value;
    if (const auto it = misses.find(f.id); it != misses.end()) {
      ++seen;
      EXPECT_NEAR(err, it->second.error, 0.01)
          << name << " " << f.id << " (" << it->second.cause << "): " << x;
    } else {
      EXPECT_LT(std::abs(err), 0.05) << name << " " << f.id << ": " << x << " vs " << f.value;
    }
  }
  EXPECT_EQ(seen, misses.size()) << name << ": a named miss is not in the file";
}

// Jia 2019's V100 column. Its instruction latencies are SASS stall counts; its shared latency, 19,
// is a chain of loads on their own results, which the model times as the TITAN V log's u64 chase
// (27.0 on the same SM): one LDS a hop in both once the lowering folds the address. The two
// measurements cannot both hold in the model (docs/sources.md); nor its fine-grained L1 and L2
// chases (28, 193) with the TITAN V log's (33.7, 211.1), whose L1 figure includes its first lap's
// L2 hits (the model's replica does too). IMAD measures 5 (the TITAN V's
// chain 4.35) where the model runs it at the FMA pipe's 4; MUFU 14 where the SFU key is the TITAN
// V's sin.approx chain, 21 (an FMUL before the MUFU on the GPU). Table 4.2's shared atomics under
// contention: the model serializes the lanes on one word at timing.native_position = 2 cycles
// each, which the T4's column follows within 2.6 % (below); the V100's grows by 1, 5, 12, 18 and
// 60 over the uncontended 6 at 2, 4, 8, 16 and 32 lanes, under a per-lane cost's line up to 16
// and on it at 32. The fit's 2 a lane (least squares) leaves 2-16 lanes 9-50 % high.
TEST(CalibratePublished, V100Jia2019) {
  check_file("v100-jia2019.toml", {{"shared_latency", {27.0 / 19 - 1, "TITAN V chase 27"}},
                                   {"imad_latency", {4.05 / 5 - 1, "IMAD at FFMA's latency"}},
                                   {"mufu_latency", {21.0 / 14 - 1, "SFU key from sin.approx"}},
                                   {"l1_latency", {33.73 / 28 - 1, "TITAN V chase 33.7"}},
                                   {"l2_latency", {211.0 / 193 - 1, "TITAN V chase 211"}},
                                   {"shared_atomic_2", {8.0 / 7 - 1, "2 lanes: 1 more, not 2"}},
                                   {"shared_atomic_4", {12.0 / 11 - 1, "4 lanes"}},
                                   {"shared_atomic_8", {20.0 / 18 - 1, "8 lanes"}},
                                   {"shared_atomic_16", {36.0 / 24 - 1, "16 lanes: 18 over 6"}}});
}

// The T4 column: lat_fp16, lat_fp64, lat_shared_ld (19), lat_shared_atom, native_position, the
// L1 and L2 latencies, and IMAD's and MUFU's (lat_imad 5, lat_sfu 15) are calibrated to it, so
// every figure is within 5 %. The replicas are what sm_75's SASS runs (ptxas 13.0, calibration/
// runs/h200-2026-11-28/sass.tar.gz): rep_imad a chain of IMADs alone, rep_sqrt of MUFU.SQRTs
// alone, so each step is the one latency: 5.0 and 15.0 (the loop's counter and branch, once in
// 64 steps after the 4x unroll, hide under the chain). Before: IMAD at the FMA pipe's 4 (4.05,
// -19 %), MUFU at the RTX 2060 config's 21 (+40 %).
TEST(CalibratePublished, T4Jia2019) {
  check_file("t4-jia2019.toml", {});
}

// Abdelkhalik 2022 measure the A100's shared load at 23, its L1 at 33 and its L2 at 200, where
// Luo 2024 measure 29, 37.9 and 261.5 on the same GPU; the preset follows Luo's (its shared load,
// the A100 config's 28, is within 5 % of theirs; the caches are calibrated to theirs).
TEST(CalibratePublished, A100Abdelkhalik2022) {
  check_file("a100-abdelkhalik2022.toml",
             {{"shared_latency", {28.0 / 23 - 1, "Luo 2024 measure 29"}},
              {"l1_latency", {37.22 / 33 - 1, "Luo 2024 measure 37.9"}},
              {"l2_latency", {261.0 / 200 - 1, "Luo 2024 measure 261.5"}}});
}

TEST(CalibratePublished, A100Luo2024) {
  check_file("a100-luo2024.toml", {});
}

// Luo's shared throughput, 127.9 B/clk/SM: our replica's hop is LEA then LDS on sm_90 (the
// H200's SASS); with the hops' loop adds spread over the ALU and the FMA pipe (sm.lower's
// balance, as the sm_90 SASS spreads them) the model gives 125.1 (119.2 with all on the ALU,
// -6.8 %), and 125.1 against the H200's 123.5 for our replica (CalibrateMeasured.H200).
TEST(CalibratePublished, H800Luo2024) {
  check_file("h800-luo2024.toml", {{"l1_latency", {43.91 / 40.7 - 1, "our H100 SXM's 43.6"}},
                                   {"l2_latency", {289.0 / 263.0 - 1, "our H100 SXM's 288.7"}}});
}

// Our own measurements (scripts/calibrate on an H200 and an H100 SXM, whose SM figures agree to
// four digits): hopper-h100's SM keys (latencies, lanes_imad, tensor_fmas, native_position,
// scheduler) are calibrated to both, its L1, L2, DRAM and global-atomic latencies to the H100's
// (docs/gpu-runs.md "Measured on an H200 and an H100"). With the operand delay and the sin/cos
// expansion (sm.mio_delay_*, sm.lower's sincos) every latency chain is within 5 %. With ptxas's
// 4x unroll of the counted loops (sm.lower's unroll: 64 FFMAs a branch, as the SASS) the FFMA
// throughput is too (242.99 against 239.19; 214.44 while the model issued the PTX loop's
// overhead every 16), and with the taken branch's fetch counted from the branch, 11 cycles, and
// the HFMA2 latency fitted under it (8), the half2 throughput (279.83 against 272.41; 289.86
// before). With the loops' integer adds and moves spread over the ALU and the FMA pipe as the
// sm_90 SASS spreads them (sm.lower's balance: VIADD, IMAD.MOV, IMAD.X beside IADD3), the L1
// bandwidth of 256-byte loads is too (125.70 against 121.98; 102.14, -16.3 %, with every integer
// op on the ALU, whose 16 lanes bound the loop). The misses, each with what the model lacks:
// - the uncontended shared atomic is 2.8 cycles over a load, the model's step is a whole cycle
//   (the two chases themselves, 31.8 and 29.0, are each within 0.6 %);
// - the H200's global atomics are 6 % quicker than the H100's, to which the key is calibrated.
const std::map<std::string, Miss> kHopperSmMisses = {
    {"shared_atomic_ret_1", {3.00 / 2.80 - 1, "2.8, a step of 1"}}};

// The H100's memory bandwidths (scripts/memory_measure.cu, every SM streaming, run as one SM with
// its share of the shared L2): the L2's fits sm.l2_slice_bytes_per_cycle 26 within 0.2 %; one
// DRAM rate serves a read the GPU does at 11.39 B/clk and a write at 12.67 (12 is the least
// squares: +5.4 %, -3.5 %, the write's stores now held by the slices' dirty evictions); the L1
// read of v4 loads, its index copies and increment on the FMA pipe as in its SASS (IMAD.MOV,
// VIADD: sm.lower's balance), 88.99 against 89.09 (82.2 with them on the ALU). A bulk copy from the
// L2 (scripts/hopper_measure.cu) of 4,096 and 32,768 bytes: one SM's port to the L2 alone, 99
// B/clk, fits both within 2.1 % (before the L2 was shared they missed by +21 % and +108 %: an SM
// had only its share, 32 B/clk, of the L2's path). One CTA alone on the GPU
// (scripts/memory_scaling.cu, 2026-11-27): its L2 read, bound by its warps' one load each in
// flight, 46.64 against 45.91 with no key fitted to it; its DRAM read 22.07 against 20.46 (+7.9 %:
// the GPU's round trip under one SM's stream is 803 cycles, the model's 748; 21.68 while the loop's
// adds all took the ALU); its stores leave at 32 B/clk, the port's way toward the L2
// (sm.l2_write_bytes_per_cycle, fitted: 32.04); 32 lanes on one word through a table (not
// aggregated) fit sm.l2_atomic_cycles 2 (186.3 cycles a warp's atomic against 192.8, 0.49 updates a
// cycle for a CTA against 0.49). Distributed shared memory (scripts/hopper_measure.cu's dsm_chase,
// issue 46): its sm_90 SASS runs each ld.shared::cluster as a generic LD.E through the shared
// window, a VIADD and a MOV on the chain with it (docs/timing.md "Clusters"), where the model
// times the chase through the CTA's own cluster window as a local shared load: 29.25 against
// 44.01; the partner's, 187.03 against 196.05 (-4.6 %), keeps what the network adds: 158
// against 152 (sm.lat_dsm is fitted to Luo et al.'s add, h800-luo2024).
TEST(CalibrateMeasured, H100) {
  auto misses = kHopperSmMisses;
  misses.emplace("dsm_chase_own", Miss{29.25 / 44.01 - 1, "a generic LD.E a hop on the GPU"});
  misses.emplace("dram_read", Miss{12.00 / 11.39 - 1, "one DRAM rate, read"});
  misses.emplace("dram_read_1cta", Miss{22.07 / 20.46 - 1, "one SM's DRAM round trip short"});
  // 298.61 (+4.2 %) before sm.guard_delay: its loop's setp, guarded clock read and try_wait
  // branch add 4.57 a copy, where the GPU's wait loop has guard stalls of its own (PLOP3 then
  // @P0 ELECT, 13) but a shorter path elsewhere.
  misses.emplace("bulk_copy_16", Miss{306.16 / 286.59 - 1, "the copy's fixed path long"});
  check_file("h100-measured.toml", misses);
}

// The H200's conversions between f32 and f64 (2026-11-28) are within 5 % with their own keys:
// two F2Fs take 36.48 on the GPU, 2 x sm.lat_cvt64 = 36 in the model (34 when they took the
// MUFU's 17); a DADD between them adds 10.2 on the GPU, its 8 and the F2F's wait of 2.2 for the
// FP64 pipe's result (sm.mio_delay_fp64, fitted with lat_cvt64 18: 3): 47 (42 before).
TEST(CalibrateMeasured, H200) {
  auto misses = kHopperSmMisses;
  misses.emplace("global_atomic_chase", Miss{307.72 / 290.34 - 1, "the H100's 307.6"});
  check_file("h200-measured.toml", misses);
}

// The H200's one word added to by every thread of the GPU (calibration/h200-whole-gpu.toml):
// ptxas makes each warp's atomicAdd one lane's (sm.lower's aggregate), so the word's slice does
// one update a warp every sm.l2_atomic_cycles = 2: 32 lanes x 4 bytes / 2 = 64 B/clk at the
// most, the model 63.50 against the GPU's 67.65 (one update every 1.89 cycles; the H100's table
// atomics, to which the key is fitted, take 2.07). Without the rule, one update a lane: 2.00
// (`smemsim calibrate h200-whole-gpu --check --set sm.lower=none`; 20 s, not run here).
TEST(CalibrateMeasured, H200WholeGpuAtomicsAreAWarpsOneUpdate) {
  check_file("h200-whole-gpu.toml",
             {{"atomic_add_bw_conflict", {63.50 / 67.65 - 1, "one update every 2 cycles, 1.89"}}});
}

// The same aggregation of rep_shared_atomic_contention's unused atomicAdd(&s[p], 0) (one lane's
// ATOMS in the sm_90 SASS): the H100 and the H200 measured its cost over the chase alone at 6.82
// cycles for every count of lanes on the word, 1 to 32 (calibration/runs/h100-2026-11-26/
// replicas.toml). With the rule the model's is flat too, where without it each lane more costs
// timing.native_position (2) more (the preset with its aggregate rule off). The level, 4.00, is
// short of 6.82 (how long an atomic holds its word before the next load of it reads it is not
// modelled), and the six figures stay out of the measurement files: their replicas name
// sm.lat_shared_atom and timing.native_position, which the shared_atomic_ret_N figures calibrate.
TEST(CalibrateMeasured, HopperAggregatedSharedAtomicsAreFlatInTheLanes) {
  static const calibrate::Code code = calibrate::load_replicas();
  const Arch h = find_preset("hopper-h100");
  // Only the aggregate rule off: with every rule off the loops' setp stays before their
  // branch, and the taken branch's fetch (sm.taken_branch_fetch) hides part of a lane's cost.
  Arch off = h;
  const std::size_t at = off.sm.lower.find(",aggregate");
  ASSERT_NE(at, std::string::npos) << off.sm.lower;
  off.sm.lower.erase(at, 10);
  const double one =
      calibrate::run_replica(*calibrate::find_replica("shared_atomic_none"), h, code);
  EXPECT_NEAR(one, 4.0, 0.05);
  for (const char* n : {"shared_atomic_2", "shared_atomic_8", "shared_atomic_32"}) {
    EXPECT_NEAR(calibrate::run_replica(*calibrate::find_replica(n), h, code), one, 0.05) << n;
    EXPECT_GT(calibrate::run_replica(*calibrate::find_replica(n), off, code), one + 1.5) << n;
  }
}

// The fit reaches a latency hidden behind a unit's interval: T4's DFMA chain takes the one FP64
// lane's 32 cycles while lat_fp64 is below 32 (flat: Newton's step has no slope there); from 8 it
// still lands on the published 54.
TEST(CalibratePublished, FitLeavesAFlatRegion) {
  const calibrate::Measurements m = calibrate::load_measurements(std::string(SMEMSIM_SOURCE_DIR) +
                                                                 "/calibration/t4-jia2019.toml");
  Arch t4 = find_preset("turing-t4");
  t4.sm.lat_fp64 = 8;
  const calibrate::Fit f = calibrate::fit(m, t4);
  EXPECT_EQ(f.arch.sm.lat_fp64, 54u);
}

}  // namespace
}  // namespace smemsim::test
