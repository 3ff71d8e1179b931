// smemsim calibrate (issue 42): the shipped TITAN V measurements are reproduced by the volta-v100
// preset running each figure's replica (the same instruction sequence, timed the same way), the
// fit moves a key only as far as its figure asks, and a malformed measurement file is one located
// line with exit code 2.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <set>

#include "calibrate/fit.hpp"
#include "calibrate/replicas.hpp"
#include "smemsim/error.hpp"
#include "test_util.hpp"

namespace smemsim::test {
namespace {

const std::string kFile = std::string(SMEMSIM_SOURCE_DIR) + "/calibration/titanv-accelsim.toml";

// Every shipped figure within 5 % on the preset as shipped (the issue's bar), but for the misses
// named below with their cause (18 of the 21 are within); those are pinned to where they stand so
// that a change that moves them is seen. The figures are the log's; the model's numbers come from
// running the replicas, never from the keys.
TEST(Calibrate, VoltaReproducesTheTitanVFigures) {
  const calibrate::Measurements m = calibrate::load_measurements(kFile);
  ASSERT_EQ(m.preset, "volta-v100");
  ASSERT_EQ(m.figures.size(), 21u);
  // id -> the error it has today, and why it misses 5 %.
  const std::map<std::string, std::pair<double, const char*>> misses = {
      // int32_mad_latency (4.35; IMAD at the FFMA's 4) was -6.3 % while a branch took 4 cycles;
      // with sm.lat_branch 5 (ptxas's BRA stall count) its replica's loop gave 4.14, -4.7 %.
      // With ptxas's 4x unroll (sm.lower's unroll, a branch a 64 IMADs) the loop no longer
      // hides it: 4.05, -6.9 % (Jia et al. measure IMAD at 5 on a V100; volta-v100 has no
      // taken-branch fetch, unmeasured, which on hopper-h100 brings the same loop to 4.14).
      {"int32_mad_latency", {-0.069, "IMAD at the FFMA's 4, unrolled loop"}},
      // Volta runs a wmma m16n16k16 as 8 HMMA.884 steps with an f16 accumulator and 16 with an
      // f32 one (the benchmark's own SASS listings); sm.tensor_step_fmas times the steps, so
      // both latencies are within 5 % (35.35 and 33.0: 5 + 32 - 2 and 5 + 32 - 4), but both
      // products hold the unit 32 cycles, where in bulk the f32 one runs 6.5 % slower on the GPU
      // (478.7 FMA/clk/SM against the f16's 509.4; no source says which resource it waits on).
      {"wmma_f32acc_throughput", {0.069, "f32 accumulator 6.5 % slower in bulk, unexplained"}},
      // L1 hits of 256-byte loads from 32 warps: 105.2 B/clk against 113.9 (103.5 before the
      // list scheduler kept to a register budget). Flat in the L1's key (no limit: 103.51 then),
      // it moved with the writeback ports (one: 93.5) and the scheduler (gto: 105.4): the issue
      // and writeback side binds, not the L1.
      {"l1_bandwidth", {-0.076, "issue/writeback-bound, not the L1's"}},
  };
  const Arch v = find_preset("volta-v100");
  const calibrate::Code code = calibrate::load_replicas();
  for (const calibrate::Figure& f : m.figures) {
    const double x = calibrate::run_replica(*calibrate::find_replica(f.benchmark), v, code);
    const double err = (x - f.value) / f.value;
    if (const auto it = misses.find(f.id); it != misses.end())
      EXPECT_NEAR(err, it->second.first, 0.01) << f.id << " (" << it->second.second << "): " << x;
    else
      EXPECT_LT(std::abs(err), 0.05) << f.id << ": " << x << " vs " << f.value;
  }
}

// The half2 throughput needs two results a cycle: HFMA2's 6 cycles beside the loop's 4-cycle ALU
// ops make both leave their units in the same cycle, and with one writeback port (seed 004's
// MEM0 latch) the younger waits and the FMA pipe idles behind it: 233.5 flop/clk, 6.3 % under
// the TITAN V's 249.3 (217, 12.8 % under, while a branch took 4 cycles and its guard none: the
// loop's tail now spaces the writebacks more). With the preset's two (Accel-Sim's EX_WB width per
// scheduler) 241.0, within 5 %.
TEST(Calibrate, Half2ThroughputNeedsTwoWritebackPorts) {
  const calibrate::Code code = calibrate::load_replicas();
  const calibrate::Replica& r = *calibrate::find_replica("hfma2_tput");
  Arch v = find_preset("volta-v100");
  ASSERT_EQ(v.sm.writeback_ports, 2u);
  EXPECT_NEAR(calibrate::run_replica(r, v, code), 249.33, 0.05 * 249.33);
  v.sm.writeback_ports = 1;
  EXPECT_LT(calibrate::run_replica(r, v, code), 0.95 * 249.33);
}

// The shared chase is the issue's first row: 27.01 measured; the PTX hop is shl + add + ld.shared,
// so the PTX as written takes lat_alu x 2 + lat_shared_ld = 35 a hop (the issue measured 35.07 on
// the preset before lowering) and the lowered code 27. The shared bandwidth row (126.5 B/clk
// measured, 74.3 before lowering: the per-hop shl and add saturated the ALU lanes) lands within
// 2 %.
TEST(Calibrate, SharedChaseAndBandwidthOnceLowered) {
  const calibrate::Code code = calibrate::load_replicas();
  const calibrate::Replica& r = *calibrate::find_replica("shared_chase");
  const calibrate::Replica& bw = *calibrate::find_replica("shared_bw32");
  Arch v = find_preset("volta-v100");
  EXPECT_NEAR(calibrate::run_replica(r, v, code), 27.0, 0.05);
  EXPECT_NEAR(calibrate::run_replica(bw, v, code), 126.48, 0.02 * 126.48);
  v.sm.lower = "none";
  EXPECT_NEAR(calibrate::run_replica(r, v, code), 2.0 * v.sm.lat_alu + v.sm.lat_shared_ld, 0.05);
  EXPECT_LT(calibrate::run_replica(bw, v, code), 100.0);
}

// Fitting from a wrong start: the key returns to where its figure puts it. Without the lowering,
// the half2 figure (6.18) cannot be reached: the unfused mul.f16x2 + add.f16x2 take two latencies
// a step, lat_fp16 stops at the pipeline's shortest (4, so 8 and more a step) and the residual
// stays large, which the table shows rather than hides.
TEST(Calibrate, FitSolvesEachKeyFromItsFigure) {
  const calibrate::Measurements m = calibrate::load_measurements(kFile);
  Arch v = find_preset("volta-v100");
  v.sm.lat_shared_ld = 40;
  v.sm.global_atomic_latency = 300;
  const calibrate::Fit f = calibrate::fit(m, v);
  EXPECT_EQ(f.arch.sm.lat_shared_ld, 27u);
  EXPECT_EQ(f.arch.sm.global_atomic_latency, find_preset("volta-v100").sm.global_atomic_latency);
  for (const calibrate::Row& r : f.rows)
    if (r.id == "shared_latency" || r.id == "global_atomic_latency")
      EXPECT_LT(std::abs(r.error()), 0.01) << r.id;
  v = find_preset("volta-v100");
  v.sm.lower = "none";
  const calibrate::Fit g = calibrate::fit(m, v);
  for (const calibrate::Row& r : g.rows)
    if (r.id == "half2_fma_latency") EXPECT_GT(r.error(), 0.25);
  const std::string toml = calibrate::fitted_toml(f, m);
  EXPECT_NE(toml.find("lat_shared_ld = 27"), std::string::npos) << toml;
  EXPECT_NE(toml.find("residual"), std::string::npos);
  // The arch file loads over the preset.
  const Arch loaded = parse_arch_toml(toml, "fitted.toml", find_preset("volta-v100"));
  EXPECT_EQ(loaded.sm.lat_shared_ld, 27u);
}

// A key volta-v100 marks calibrated (arch show, docs/sources.md) is what the fit gives from the
// shipped files: the preset is its own fit. Seven keys are the TITAN V latencies'; two are Jia et
// al. 2019's shared atomics (Table 4.2, the V100 column), fitted on the preset's shared-load
// latency (the file's own shared_latency, 19, is the chase the TITAN V's 27 contradicts:
// docs/sources.md), so with that figure left out. Three are the memory's, from the TITAN V's
// whole-GPU figures (titanv-accelsim-memory.toml), whose fit takes minutes:
// VoltaReproducesTheTitanVMemoryFigures checks them instead.
TEST(Calibrate, KeysMarkedCalibratedAreTheFit) {
  const std::set<std::string> memory = {"sm.l2_slice_bytes_per_cycle", "sm.dram_bytes_per_cycle",
                                        "sm.l2_atomic_cycles"};
  const Arch v = find_preset("volta-v100");
  const calibrate::Fit f = calibrate::fit(calibrate::load_measurements(kFile), v);
  calibrate::Measurements jia = calibrate::load_measurements(std::string(SMEMSIM_SOURCE_DIR) +
                                                             "/calibration/v100-jia2019.toml");
  std::erase_if(jia.figures, [](const calibrate::Figure& x) {
    return !x.benchmark.starts_with("shared_atomic");
  });
  ASSERT_EQ(jia.figures.size(), 6u);
  const calibrate::Fit g = calibrate::fit(jia, v);
  std::size_t marked = 0;
  for (const TimingKeySource& k : timing_sources(v)) {
    if (k.kind != SourceKind::Calibrated) continue;
    ++marked;
    if (memory.count(k.key)) continue;
    bool fitted = false;
    for (const calibrate::Fit* x : {&f, &g})
      for (const calibrate::KeyFit& kf : x->keys)
        if (kf.key == k.key) {
          fitted = true;
          EXPECT_EQ(kf.after, kf.before) << k.key;
        }
    EXPECT_TRUE(fitted) << k.key << " is marked calibrated but no figure solves it";
  }
  EXPECT_EQ(marked, 14u);
  EXPECT_NE(sources_summary(v).find("14 of them calibrated"), std::string::npos)
      << sources_summary(v);
}

// Half precision has its own latency on the FMA pipe's lanes. The half2 chain's step, lowered, is
// one fused HFMA2 on the chain: with lat_fp16 = 0 it takes the FMA pipe's latency like FFMA (4 and
// the loop's exposed 0.26: 4.26). A step can never be shorter than the HFMA2 it waits for, nor
// longer than that plus the loop's exposed part at the shorter latency (a longer shadow hides
// more of the loop). The lanes stay the FMA pipe's: with 1,024 threads the half2 rate is at
// most 16 lanes x 4 sub-cores x 4 flops = 256 a cycle, never twice that.
TEST(Calibrate, HalfPrecisionHasItsOwnLatencyOnTheFmaLanes) {
  const calibrate::Code code = calibrate::load_replicas();
  const calibrate::Replica& chain = *calibrate::find_replica("hfma2_chain");
  const calibrate::Replica& tput = *calibrate::find_replica("hfma2_tput");
  Arch v = find_preset("volta-v100");
  v.sm.lat_fp16 = 0;
  const double base = calibrate::run_replica(chain, v, code);
  v.sm.lat_fp16 = v.sm.lat_fma;
  EXPECT_DOUBLE_EQ(calibrate::run_replica(chain, v, code), base);
  const double loop = base - v.sm.lat_fma;
  EXPECT_GT(loop, 0.0);
  for (const std::uint32_t lat : {6u, 8u}) {
    v.sm.lat_fp16 = lat;
    const double x = calibrate::run_replica(chain, v, code);
    EXPECT_GE(x, double(lat)) << lat;
    EXPECT_LE(x, lat + loop + 1e-9) << lat;
  }
  for (const std::uint32_t lat : {0u, 6u, 8u}) {
    v.sm.lat_fp16 = lat;
    EXPECT_LE(calibrate::run_replica(tput, v, code), 256.0) << lat;
  }
  // The f32 chain does not see it.
  const calibrate::Replica& f32 = *calibrate::find_replica("ffma_chain");
  v.sm.lat_fp16 = 0;
  const double f = calibrate::run_replica(f32, v, code);
  v.sm.lat_fp16 = 9;
  EXPECT_DOUBLE_EQ(calibrate::run_replica(f32, v, code), f);
}

std::string error_of(const std::string& text) {
  try {
    calibrate::parse_measurements(text, "m.toml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

const char* kHead = R"(format = 1
[gpu]
name = "G"
[source]
kind = "measured"
title = "t"
citation = "c"
)";

std::string figure(const std::string& benchmark, const std::string& unit,
                   const std::string& extra = "") {
  return std::string(kHead) + "[[figure]]\nid = \"f\"\nbenchmark = \"" + benchmark +
         "\"\nvalue = 27.0\nunit = \"" + unit + "\"\nwhere = \"w\"\n" + extra +
         "[figure.method]\nstep = \"s\"\nclock = \"c\"\n";
}

TEST(Calibrate, MalformedFilesNameFileLineAndField) {
  EXPECT_EQ(error_of(figure("shared_chase", "cycles")), "no error");
  EXPECT_EQ(
      error_of(figure("shared_chsae", "cycles"))
          .rfind("m.toml:10: figure 'f': field 'benchmark': no replica is named 'shared_chsae'", 0),
      0u)
      << error_of(figure("shared_chsae", "cycles"));
  EXPECT_EQ(error_of(figure("shared_chase", "B/clk/SM")),
            "m.toml:12: figure 'f': field 'unit': 'B/clk/SM' does not match replica "
            "shared_chase's unit 'cycles'");
  EXPECT_EQ(error_of(figure("shared_chase", "cyc"))
                .rfind("m.toml:12: figure 'f': field 'unit': 'cyc' is not a unit", 0),
            0u);
  EXPECT_EQ(error_of(figure("shared_chase", "cycles", "colour = 3\n"))
                .rfind("m.toml:14: figure 'f': field 'colour': unknown field in [[figure]]", 0),
            0u)
      << error_of(figure("shared_chase", "cycles", "colour = 3\n"));
  EXPECT_EQ(error_of(std::string(kHead)),
            "m.toml:1: no [[figure]]: a measurement file has at least one");
  EXPECT_EQ(error_of("format = 2\n").rfind("m.toml:1: field 'format': 2 is not a format", 0), 0u);
  EXPECT_NE(error_of("format = [\n").find("m.toml:1: TOML syntax error"), std::string::npos)
      << error_of("format = [\n");
  std::string neg = figure("shared_chase", "cycles");
  neg.replace(neg.find("27.0"), 4, "-1");
  EXPECT_EQ(error_of(neg).rfind("m.toml:11: figure 'f': field 'value': -1 is not between", 0), 0u)
      << error_of(neg);
}

// [gpu.keys]: the measured GPU's own arch keys, dotted in quotes or as TOML's nested tables; an
// unknown key, a value of the wrong type, one out of range and one that contradicts the others
// are each one line naming the file, the key's line and the key.
TEST(Calibrate, GpuKeysAreArchKeysOfTheMeasuredGpu) {
  auto with_keys = [](const std::string& keys) {
    std::string t = figure("shared_chase", "cycles");
    t.insert(t.find("[source]"), "[gpu.keys]\n" + keys);
    return t;
  };
  const Arch v = find_preset("volta-v100");
  const calibrate::Measurements m = calibrate::parse_measurements(
      with_keys("\"sm.l2_slices\" = 48\nsm.dram_channels = 24\n\"sm.l2_hash\" = \"mod\"\n"),
      "m.toml");
  ASSERT_EQ(m.keys.size(), 3u);
  const Arch g = calibrate::measured_gpu(m, v);
  EXPECT_EQ(g.sm.l2_slices, 48u);
  EXPECT_EQ(g.sm.dram_channels, 24u);
  EXPECT_EQ(g.sm.l2_hash, "mod");
  EXPECT_EQ(g.sm.count, v.sm.count);
  EXPECT_EQ(error_of(with_keys("\"sm.l2_slcies\" = 48\n"))
                .rfind("m.toml:5: field 'sm.l2_slcies': [gpu.keys] names no arch key", 0),
            0u)
      << error_of(with_keys("\"sm.l2_slcies\" = 48\n"));
  EXPECT_EQ(error_of(with_keys("\"sm.l2_slices\" = 4.5\n"))
                .rfind("m.toml:5: field 'sm.l2_slices': [gpu.keys] takes an integer", 0),
            0u);
  auto gpu_error = [&](const std::string& keys) {
    try {
      calibrate::measured_gpu(calibrate::parse_measurements(with_keys(keys), "m.toml"), v);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(gpu_error("\"sm.l2_ways\" = 1\n\"sm.l2_slices\" = 0\n\"sm.l2_hash\" = \"rot\"\n")
                .rfind("m.toml:7: [gpu.keys] 'sm.l2_hash'", 0),
            0u)
      << gpu_error("\"sm.l2_hash\" = \"rot\"\n");
  // 64 channels behind 48 slices: validate names sm.dram_channels, whose line it is.
  EXPECT_EQ(gpu_error("\"sm.l2_slices\" = 48\n\"sm.dram_channels\" = 64\n")
                .rfind("m.toml:6: [gpu.keys] 'sm.dram_channels'", 0),
            0u)
      << gpu_error("\"sm.l2_slices\" = 48\n\"sm.dram_channels\" = 64\n");
  const std::string bad = temp_file("bad_keys.toml", with_keys("\"sm.colour\" = 3\n"));
  const CliResult r = cli("calibrate " + bad + " --check");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find(bad + ":5: field 'sm.colour'"), std::string::npos) << r.out;
}

// The TITAN V's whole-GPU memory figures (calibration/titanv-accelsim-memory.toml), each replica
// launched as the source launched it (160 CTAs of 1,024 threads over the 80 SMs) on volta-v100
// with the TITAN V's own L2 and DRAM ([gpu.keys]: 48 slices, 24 channels, 4.5 MiB, 449 B/clk):
// every figure within 5 %. And each is the limit its mechanism derives, worked out by hand:
// - the one word's atomics: every update of the word holds its L2 slice sm.l2_atomic_cycles (9)
//   in turn, and 80 SMs of 64 warps keep the slice busy, so 4 bytes each 9 cycles: 0.444 B/clk;
// - the L2 read: every load is a hit (the warm-up pass left the 1.8 MB array in the 4.5 MiB L2)
//   and the slices take the sectors at 48 x 29 = 1,392 B/clk together; thread 0's CTA is among
//   the first done, so its clock sees a little more than that (within 3 %).
TEST(Calibrate, VoltaReproducesTheTitanVMemoryFigures) {
  const calibrate::Measurements m = calibrate::load_measurements(
      std::string(SMEMSIM_SOURCE_DIR) + "/calibration/titanv-accelsim-memory.toml");
  ASSERT_EQ(m.figures.size(), 3u);
  const Arch v = calibrate::measured_gpu(m, find_preset("volta-v100"));
  ASSERT_EQ(v.sm.l2_slices, 48u);
  ASSERT_EQ(v.sm.l2_slice_bytes_per_cycle, 29u);
  ASSERT_EQ(v.sm.l2_atomic_cycles, 9u);
  const calibrate::Code code = calibrate::load_replicas();
  std::map<std::string, double> got;
  for (const calibrate::Figure& f : m.figures) {
    got[f.id] = calibrate::run_replica(*calibrate::find_replica(f.benchmark), v, code);
    EXPECT_LT(std::abs(got[f.id] - f.value) / f.value, 0.05)
        << f.id << ": " << got[f.id] << " vs " << f.value;
  }
  EXPECT_NEAR(got["atomic_conflict"], 4.0 / 9, 0.01 * 4 / 9);
  EXPECT_NEAR(got["l2_bandwidth"], 48.0 * 29, 0.03 * 48 * 29);
  // So each key is the integer its figure asks, the preset's own fit: a slice's rate is the L2
  // figure over the 48 slices (1,384.53 / 48 = 28.8), the word's turn 4 bytes over the atomic
  // figure (4 / 0.4645 = 8.6). The DRAM's rate the figure places only at about 435-460 (thread
  // 0's clock; docs/calibration.md), hence the 5 % above with the theoretical 449.
  for (const calibrate::Figure& f : m.figures) {
    if (f.id == "l2_bandwidth")
      EXPECT_EQ(std::lround(f.value / v.sm.l2_slices), v.sm.l2_slice_bytes_per_cycle);
    if (f.id == "atomic_conflict") EXPECT_EQ(std::lround(4 / f.value), v.sm.l2_atomic_cycles);
  }
}

// mem_bw sizes its arrays by the L2: an arch with none, or one whose arrays would pass 1 GiB
// (sm.l2_bytes at its largest, 256 MiB: 3 GiB), is refused before anything runs.
TEST(Calibrate, MemBwRefusesAnL2ItCannotSizeItsArraysBy) {
  const calibrate::Replica& r = *calibrate::find_replica("mem_bw");
  Arch v = find_preset("volta-v100");
  EXPECT_NO_THROW(calibrate::check_runnable(r, v));
  v.sm.l2_bytes = 256u << 20;
  EXPECT_THROW(calibrate::check_runnable(r, v), InputError);
  v.sm.l2_bytes = 0;
  EXPECT_THROW(calibrate::check_runnable(r, v), InputError);
  const std::string t = R"(format = 1
[gpu]
name = "G"
preset = "volta-v100"
[gpu.keys]
"sm.l2_bytes" = 268435456
[source]
kind = "measured"
title = "t"
citation = "c"
[[figure]]
id = "f"
benchmark = "mem_bw"
value = 400
unit = "B/clk"
where = "w"
[figure.method]
step = "s"
clock = "c"
)";
  const CliResult c = cli("calibrate " + temp_file("big_l2.toml", t) + " --check");
  EXPECT_EQ(c.exit_code, 2);
  EXPECT_NE(c.out.find("3072 MiB in all"), std::string::npos) << c.out;
}

TEST(Calibrate, CliRefusesABadFileWithExitTwo) {
  const std::string bad = temp_file("bad_meas.toml", figure("nope", "cycles"));
  const CliResult r = cli("calibrate " + bad);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find(bad + ":10: figure 'f': field 'benchmark': no replica"), std::string::npos)
      << r.out;
  EXPECT_EQ(cli("calibrate /dev/null").exit_code, 2);
  EXPECT_EQ(cli("calibrate /tmp").exit_code, 2);
  EXPECT_EQ(cli("calibrate").exit_code, 2);
  const CliResult ok = cli("calibrate " + kFile);
  EXPECT_EQ(ok.exit_code, 0) << ok.out;
  EXPECT_NE(ok.out.find("shared_latency"), std::string::npos) << ok.out;
}

// The memory replicas (kernels/memory_ubench.cu's streaming kernels on one SM) are bound by the
// path their sectors take when it is narrow enough: 16 B/clk from the L2 against one 512-byte
// warp load of about ten instructions every 32 cycles, so the 2 MiB the L2 read moves take
// 2 MiB / 16 = 131,072 cycles and the figure is 16 B/clk within the latency of the first load
// and the L1 misses' queue (under 3 %); the same for a store stream at the DRAM's 8. And the
// replica runs on the SM's share of the L2: a region that fits the share is read from it, so the
// L2 read does not move with the DRAM's rate.
TEST(Calibrate, MemoryReplicasReachTheirPathsRate) {
  Arch h = find_preset("hopper-h100");
  h.sm.l2_bytes_per_cycle = 16;
  h.sm.global_bytes_per_cycle = 8;
  const calibrate::Code code = calibrate::load_replicas();
  const double l2 = calibrate::run_replica(*calibrate::find_replica("l2_read"), h, code);
  EXPECT_NEAR(l2, 16.0, 0.03 * 16);
  const double write = calibrate::run_replica(*calibrate::find_replica("dram_write"), h, code);
  EXPECT_NEAR(write, 8.0, 0.03 * 8);
  h.sm.global_bytes_per_cycle = 4;
  EXPECT_NEAR(calibrate::run_replica(*calibrate::find_replica("l2_read"), h, code), l2, 0.01 * l2);
  // Without the warm start the first of the 16 reads comes from DRAM at 4 B/clk: 128 KiB / 4 +
  // 15 x 128 KiB / 16 = 155,648 cycles, 13.5 B/clk.
  calibrate::Replica cold = *calibrate::find_replica("l2_read");
  cold.warm_l2 = false;
  EXPECT_NEAR(calibrate::run_replica(cold, h, code), 2.0 * 1024 * 1024 / 155648, 0.03 * 13.5);
}

// A bulk copy (the TMA) reads the L2 and never the L1 (an H100's 16-byte copy takes the L2
// chase's latency and 9 cycles): after the untimed first copy, each of bulk_latency's copies finds
// its 16 bytes in the L2, so its figure moves one for one with sm.l2_latency and not at all with
// sm.l1_latency (it took 92 cycles, L1 hits, before).
TEST(Calibrate, BulkCopiesReadTheL2NotTheL1) {
  const calibrate::Code code = calibrate::load_replicas();
  const calibrate::Replica& r = *calibrate::find_replica("bulk_copy_16");
  Arch h = find_preset("hopper-h100");
  const double base = calibrate::run_replica(r, h, code);
  h.sm.l1_latency += 50;
  EXPECT_DOUBLE_EQ(calibrate::run_replica(r, h, code), base);
  h.sm.l2_latency += 40;
  EXPECT_NEAR(calibrate::run_replica(r, h, code), base + 40, 0.5);
  EXPECT_GT(base, double(h.sm.l2_latency - 40));
}

}  // namespace
}  // namespace smemsim::test
