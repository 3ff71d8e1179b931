// `smemsim arch import` (issue 10, item 7): a GPGPU-Sim configuration, written here in the format
// GPGPU-Sim reads (`-option value`, `#` comments), mapped onto the GTX 580 preset.
#include <gtest/gtest.h>

#include "smemsim/arch.hpp"
#include "smemsim/error.hpp"
#include "test_util.hpp"

namespace smemsim::test {
namespace {

const char* kConfig = R"(# a GT200-like configuration
-gpgpu_ptx_sim_mode 0
-gpgpu_n_clusters 10
-gpgpu_n_cores_per_cluster 3
-gpgpu_clock_domains 325.0:650.0:650.0:800.0
-gpgpu_shader_core_pipeline 1024:32:32
-gpgpu_shader_registers 16384
-gpgpu_shader_cta 8
-gpgpu_shmem_size 16384      # bytes per SM
-gpgpu_shmem_num_banks 16
-gpgpu_shmem_warp_parts 2
-gpgpu_smem_latency 38
-gpgpu_scheduler two_level_active:6:0:1
-ptx_opcode_latency_int 24,24,24,24,145
)";

TEST(ArchImport, MapsTheSharedMemoryAndSmOptionsAndListsTheRest) {
  const GpgpuSimImport r = import_gpgpusim(kConfig, "g.config", find_preset("fermi-gtx580"));
  const Arch& a = r.arch;
  EXPECT_EQ(a.sm.count, 30u);  // 10 clusters x 3 cores
  EXPECT_EQ(a.sm.max_threads, 1024u);
  EXPECT_EQ(a.sm.max_warps, 32u);
  EXPECT_EQ(a.warp_size, 32u);
  EXPECT_EQ(a.sm.registers, 16384u);
  EXPECT_EQ(a.sm.max_ctas, 8u);
  EXPECT_EQ(a.memory_bytes, 16384u);
  EXPECT_EQ(a.banks, 16u);
  EXPECT_EQ(a.transaction_lanes, 16u);  // 2 parts of a 32-thread warp: GT200's half-warps
  EXPECT_EQ(a.timing.ld_base, 38);
  EXPECT_EQ(a.sm.lat_shared_ld, 38u);
  EXPECT_EQ(a.sm.lat_alu, 24u);
  EXPECT_EQ(a.sm.scheduler, "gto");  // the preset's: two_level_active is not modeled
  ASSERT_EQ(r.ignored.size(), 3u);
  EXPECT_EQ(r.describe(r.ignored[0]), "g.config:2: -gpgpu_ptx_sim_mode 0");
  EXPECT_EQ(r.describe(r.ignored[1]),
            "g.config:5: -gpgpu_clock_domains 325.0:650.0:650.0:800.0 (smemsim counts SM cycles; "
            "clock domains are not modeled)");
  EXPECT_EQ(r.ignored[2].line, 13);
  EXPECT_EQ(r.ignored[2].option, "-gpgpu_scheduler");
  EXPECT_NE(r.describe(r.ignored[2]).find("two_level_active"), std::string::npos);
  ASSERT_FALSE(r.mapped.empty());
  EXPECT_EQ(r.describe(r.mapped.back(), true),
            "-gpgpu_n_clusters x -gpgpu_n_cores_per_cluster 10 x 3 -> sm.count = 30");
  EXPECT_TRUE(r.notes.empty());
  EXPECT_FALSE(a.calibrated);
  EXPECT_NE(a.derived.find("memory.banks=16"), std::string::npos);
  // The TOML loads back as the same arch.
  const Arch back = parse_arch_toml(to_toml(a, true), "imported.toml", Arch{});
  EXPECT_EQ(to_toml(back), to_toml(a));
  // Named after its file (issue 47), and results lead with that name.
  EXPECT_EQ(a.title, "g");
  EXPECT_EQ(back.title, "g");
  EXPECT_EQ(arch_label(a).rfind("g (fermi-gtx580 derived (", 0), 0u) << arch_label(a);
}

// The title of an import: the file's name without its extension; GPGPU-Sim's tested
// configurations are all called gpgpusim.config, in a folder named after the GPU, which names it
// then. A preset has none, and its label is its name.
TEST(ArchImport, TheResultIsNamedAfterTheFile) {
  const Arch fermi = find_preset("fermi-gtx580");
  EXPECT_EQ(import_gpgpusim(kConfig, "/configs/SM7_QV100/gpgpusim.config", fermi).arch.title,
            "SM7_QV100");
  EXPECT_EQ(import_gpgpusim(kConfig, "titan.config", fermi).arch.title, "titan");
  EXPECT_EQ(import_gpgpusim(kConfig, "gpgpusim.config", fermi).arch.title, "gpgpusim");
  EXPECT_EQ(fermi.title, "");
  EXPECT_EQ(arch_label(fermi), "fermi-gtx580");
  // A title that is the preset's name adds nothing.
  Arch same = fermi;
  same.title = "fermi-gtx580";
  EXPECT_EQ(arch_label(same), "fermi-gtx580");
}

TEST(ArchImport, ClampsLatenciesBelowThePipelineWithANote) {
  const GpgpuSimImport r = import_gpgpusim("-gpgpu_smem_latency 3\n", "g.config", default_arch());
  EXPECT_EQ(r.arch.timing.ld_base, 3);
  EXPECT_EQ(r.arch.sm.lat_shared_ld, r.arch.sm.min_latency());
  ASSERT_EQ(r.notes.size(), 2u);  // ld and st
  EXPECT_EQ(r.notes[0].line, 1);
  EXPECT_EQ(r.notes[0].key, "sm.lat_shared_ld");
  EXPECT_NE(r.describe(r.notes[0])
                .find("g.config:1: -gpgpu_smem_latency 3 (the shared-memory "
                      "latency 3 is below"),
            std::string::npos)
      << r.describe(r.notes[0]);
}

void expect_error(const std::string& text, const std::string& words) {
  try {
    import_gpgpusim(text, "g.config", default_arch());
    ADD_FAILURE() << "no error for: " << text;
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

TEST(ArchImport, BadValuesNameTheFileLineAndOption) {
  expect_error("# x\n-gpgpu_shmem_num_banks abc\n", "g.config:2: -gpgpu_shmem_num_banks: 'abc'");
  expect_error("-gpgpu_shmem_num_banks 5000\n", "g.config:1: -gpgpu_shmem_num_banks:");
  expect_error("-gpgpu_shmem_num_banks 5000\n", "not between 1 and 1024");
  expect_error("-gpgpu_shmem_warp_parts 3\n", "3 does not divide the warp size 32");
  expect_error("-gpgpu_shader_core_pipeline 1024\n", "not <threads>:<warp size>");
  expect_error("-gpgpu_n_clusters 4\n", "must be given together");
  expect_error("gpgpu_shmem_num_banks 16\n", "g.config:1: 'gpgpu_shmem_num_banks' is not an");
  expect_error("-gpgpu_shmem_num_banks\n", "has no value");
  expect_error("-gpgpu_shmem_num_banks 12\n", "memory.banks");  // not a power of two
}

// Issue 48, item 4: what overflowed or was dropped silently. 2^62 + 1 clusters x 4 cores wrapped
// to sm.count = 4; a negative count was neither mapped nor listed; 2^63 - 1 tensor units made
// tensor_fmas 1 and -4 made it 64; 2^63 - 1 SP units made lanes_fma 1. Each is now an error naming
// the line, and no message names the --set it goes through.
TEST(ArchImport, CountsThatOverflowOrAreNegativeAreErrorsNamingTheLine) {
  expect_error("-gpgpu_n_clusters 4611686018427387905\n-gpgpu_n_cores_per_cluster 4\n",
               "g.config:1: -gpgpu_n_clusters x -gpgpu_n_cores_per_cluster: "
               "4611686018427387905 x 4 overflows a 64-bit integer");
  expect_error("-gpgpu_n_clusters -3\n-gpgpu_n_cores_per_cluster 4\n",
               "g.config:1: -gpgpu_n_clusters: -3 is not a count (at least 1)");
  expect_error("-gpgpu_n_clusters 4\n-gpgpu_n_cores_per_cluster -1\n",
               "g.config:2: -gpgpu_n_cores_per_cluster: -1 is not a count (at least 1)");
  expect_error("-gpgpu_n_cores_per_cluster 2\n", "g.config:1: -gpgpu_n_clusters and");
  try {  // wmma's 16x16x16 shape: 4,096 multiply-adds per mma
    import_gpgpusim(
        "-gpgpu_num_tensor_core_units 9223372036854775807\n"
        "-trace_opcode_latency_initiation_tensor 64,32\n",
        "g.config", default_arch(), {16, 16, 16});
    ADD_FAILURE() << "2^63 - 1 tensor units accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("g.config:1: the mma's multiply-adds x tensor units: "
                                         "4096 x 9223372036854775807 overflows"),
              std::string::npos)
        << e.what();
  }
  expect_error("-gpgpu_num_tensor_core_units -4\n",
               "g.config:1: -gpgpu_num_tensor_core_units: -4 is not a count (at least 0)");
  expect_error(
      "-ptx_opcode_initiation_fp 2\n-gpgpu_num_sp_units 9223372036854775807\n",
      "g.config:2: -gpgpu_num_sp_units x the warp size: 32 x 9223372036854775807 overflows");
  expect_error("-gpgpu_num_sched_per_core 0\n", "-gpgpu_num_sched_per_core: 0 is not a count");
  expect_error("-gpgpu_shmem_size 99999999999999999999999\n",
               "g.config:1: -gpgpu_shmem_size: '99999999999999999999999' is out of range");
  expect_error("-gpgpu_n_clusters 1099511627776\n-gpgpu_n_cores_per_cluster 1\n",
               "g.config:1: -gpgpu_n_clusters x -gpgpu_n_cores_per_cluster: key 'sm.count': "
               "1099511627776 is not between 1 and");
}

// An option given twice: GPGPU-Sim's parser keeps the later value, and so does the import, now
// with a note naming both lines (the second won silently).
TEST(ArchImport, AnOptionGivenTwiceKeepsTheLaterValueWithANote) {
  const GpgpuSimImport r =
      import_gpgpusim("-gpgpu_shmem_num_banks 16\n# again\n-gpgpu_shmem_num_banks 32\n", "g.config",
                      find_preset("fermi-gtx580"));
  EXPECT_EQ(r.arch.banks, 32u);
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_EQ(r.describe(r.notes[0]),
            "g.config:3: -gpgpu_shmem_num_banks 32 (also given on line 1: this later value is "
            "used, as GPGPU-Sim uses it)");
}

// The forms of the field's configurations (issue 25, item 3), written here after them: GPGPU-Sim's
// GTX 480 file continues a quoted -gpgpu_dram_timing_opt on the next line; Accel-Sim's correlated
// Volta/Turing/Ampere files add the sub-core model and its unit options, comments after values and
// negative values.
const char* kFieldForms = R"(# GTX 480 style
-gpgpu_n_clusters 15   # clusters
-gpgpu_n_cores_per_cluster 1
-gpgpu_dram_timing_opt "nbk=16:CCD=2:RRD=6:RCD=12:RAS=28:RP=12:RC=40:
                        CL=12:WL=4:CDLR=5:WR=12:nbkgrp=1:CCDL=0:RTPL=0"
-gpgpu_shmem_num_banks 32
# Accel-Sim style
-gpgpu_sub_core_model 1
-gpgpu_num_sched_per_core 4
-gpgpu_max_insn -1
-ptx_opcode_latency_sfu 21
-gpgpu_shmem_size 98304
)";

TEST(ArchImport, ReadsQuotedValuesOverLinesCommentsAndTheSubCoreOptions) {
  const GpgpuSimImport r = import_gpgpusim(kFieldForms, "f.config", find_preset("volta-v100"));
  EXPECT_EQ(r.arch.sm.count, 15u);
  EXPECT_EQ(r.arch.memory_bytes, 98304u);
  EXPECT_EQ(r.arch.sm.lat_sfu, 21u);
  // The quoted value is one, joined across its line break; the options after it keep their lines.
  const auto find = [&](const std::vector<GpgpuSimImport::Entry>& v, const std::string& opt) {
    for (const auto& e : v)
      if (e.option == opt) return e;
    ADD_FAILURE() << opt << " not listed";
    return GpgpuSimImport::Entry{};
  };
  const auto dram = find(r.ignored, "-gpgpu_dram_timing_opt");
  EXPECT_EQ(dram.line, 4);
  EXPECT_EQ(dram.value,
            "nbk=16:CCD=2:RRD=6:RCD=12:RAS=28:RP=12:RC=40:CL=12:WL=4:CDLR=5:WR=12:nbkgrp=1:CCDL=0:"
            "RTPL=0");
  EXPECT_EQ(find(r.mapped, "-gpgpu_shmem_num_banks").line, 6);
  EXPECT_EQ(find(r.ignored, "-gpgpu_max_insn").value, "-1");
  // The sub-core structure's options are mapped (issue 25).
  EXPECT_EQ(find(r.mapped, "-gpgpu_num_sched_per_core").key, "sm.subcores");
  EXPECT_EQ(r.arch.sm.subcores, 4u);
  EXPECT_EQ(r.arch.sm.unit_scope, "subcore");
}

// A Volta-like and a Fermi-like unit description, in the forms of the field's configurations.
// Lanes = 32 threads x unit instances per scheduler / initiation interval (ADD's, the first):
//   Volta-like: 4 INT, 4 SP, 4 DP, 4 SFU units over 4 sub-cores (one each), intervals 2, 2, 4, 8
//   -> 16, 16, 8, 4 lanes per sub-core (the V100 whitepaper's 16 INT32, 16 FP32, 8 FP64, 4 SFU).
//   Fermi-like: no INT units (INT on the 2 SP units), both shared by 2 schedulers, interval 1
//   -> 64 lanes; 1 SFU at interval 8 -> 4 lanes.
const char* kVoltaUnits = R"(-gpgpu_num_sched_per_core 4
-gpgpu_sub_core_model 1
-gpgpu_num_int_units 4
-gpgpu_num_sp_units 4
-gpgpu_num_dp_units 4
-gpgpu_num_sfu_units 4
-ptx_opcode_initiation_int 2,2,2,2,8,4
-ptx_opcode_initiation_fp 2,2,2,2,4
-ptx_opcode_initiation_dp 4,4,4,4,130
-ptx_opcode_initiation_sfu 8
-ptx_opcode_latency_fp 4,13,4,5,39
-ptx_opcode_latency_dp 8,19,8,8,330
-ptx_opcode_latency_tesnor 64
)";
const char* kFermiUnits = R"(-gpgpu_num_sched_per_core 2
-gpgpu_num_sp_units 2
-gpgpu_num_sfu_units 1
-ptx_opcode_initiation_int 1,2,2,1,8,4
-ptx_opcode_initiation_sfu 8
)";

TEST(ArchImport, MapsSchedulersUnitsAndIntervalsOntoSubcoresAndLanes) {
  const GpgpuSimImport v = import_gpgpusim(kVoltaUnits, "v.config", find_preset("volta-v100"));
  EXPECT_EQ(v.arch.sm.subcores, 4u);
  EXPECT_EQ(v.arch.sm.unit_scope, "subcore");
  EXPECT_EQ(v.arch.sm.lanes_alu, 16u);
  EXPECT_EQ(v.arch.sm.lanes_fma, 16u);
  EXPECT_EQ(v.arch.sm.lanes_fp64, 8u);
  EXPECT_EQ(v.arch.sm.lanes_sfu, 4u);
  EXPECT_EQ(v.arch.sm.lat_fma, 4u);
  EXPECT_EQ(v.arch.sm.lat_fp64, 8u);
  // The tensor latency names no shape: listed with the reason.
  bool tensor = false;
  for (const auto& e : v.ignored)
    if (e.option == "-ptx_opcode_latency_tesnor") tensor = e.why.find("shape") != std::string::npos;
  EXPECT_TRUE(tensor);

  const GpgpuSimImport f = import_gpgpusim(kFermiUnits, "f.config", find_preset("fermi-gtx580"));
  EXPECT_EQ(f.arch.sm.subcores, 2u);
  EXPECT_EQ(f.arch.sm.unit_scope, "sm");
  EXPECT_EQ(f.arch.sm.lanes_alu, 64u);
  EXPECT_EQ(f.arch.sm.lanes_sfu, 4u);

  // Schedulers that do not divide the warp slots: the file, line and option.
  try {
    import_gpgpusim("-gpgpu_num_sched_per_core 5\n", "b.config", find_preset("fermi-gtx580"));
    ADD_FAILURE() << "5 schedulers over 48 warp slots accepted";
  } catch (const InputError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("b.config"), std::string::npos) << m;
    EXPECT_NE(m.find("sm.subcores"), std::string::npos) << m;
  }
}

TEST(ArchImport, LinesGpgpuSimWouldRejectAreErrors) {
  expect_error("-gpgpu_n_clusters 15 16\n-gpgpu_n_cores_per_cluster 1\n",
               "g.config:1: -gpgpu_n_clusters: '16' after its value '15' (an option takes one "
               "value)");
  expect_error("-gpgpu_n_clusters 15\n-gpgpu_dram_timing_opt \"nbk=16:\n  CL=12\n",
               "g.config:2: a quoted value is not closed");
  expect_error("-gpgpu_shmem_num_banks 32\n-gpgpu_n_clusters\n",
               "g.config:2: -gpgpu_n_clusters has no value");
}

TEST(ArchImport, CliWritesALoadableFileAndListsWhatItIgnored) {
  const std::string cfg = temp_file("gpgpusim.config", kConfig);
  const std::string toml = ::testing::TempDir() + "smemsim_imported.toml";
  const CliResult r = cli("arch import " + cfg + " -o " + toml);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("ignored: " + cfg + ":5: -gpgpu_clock_domains"), std::string::npos) << r.out;
  const CliResult a = cli("analyze --pattern 0..31 --arch-file " + toml);
  EXPECT_EQ(a.exit_code, 0) << a.out;
  EXPECT_NE(a.out.find("16 banks"), std::string::npos) << a.out;
  const CliResult missing = cli("arch import /nonexistent/gpgpusim.config");
  EXPECT_EQ(missing.exit_code, 2) << missing.out;
}

// Issue 47: the base is the GPU the file names by its compute capability, not Fermi's preset for
// every file: a Volta configuration (SM7_QV100's -gpgpu_ptx_force_max_capability 70) keeps the
// V100's native shared atomics; a file without the option takes the default and says so; --arch
// still chooses.
TEST(ArchImport, TheBaseIsTheGpuOfTheFilesComputeCapability) {
  const std::string volta =
      temp_file("volta.config",
                "-gpgpu_n_clusters 80\n-gpgpu_n_cores_per_cluster 1\n"
                "# the compute capability\n-gpgpu_ptx_force_max_capability 70\n");
  CliResult r = cli("arch import " + volta + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("\"preset\": \"volta-v100\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("-gpgpu_ptx_force_max_capability 70 (" + volta + ":4)"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\"model\": \"native\""), std::string::npos) << r.out;  // not the lock loop
  r = cli("arch import " + volta);
  EXPECT_NE(r.out.find("base:    volta-v100, the preset of the file's"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("-gpgpu_ptx_force_max_capability 70 -> compute_capability = 70"),
            std::string::npos)
      << r.out;
  const std::string plain = temp_file("plain.config", "-gpgpu_shmem_num_banks 16\n");
  r = cli("arch import " + plain);
  EXPECT_NE(r.out.find("base:    fermi-gtx580, the default: the file gives no "
                       "-gpgpu_ptx_force_max_capability"),
            std::string::npos)
      << r.out;
  // A typo of an option it maps is said to be one (GPGPU-Sim would refuse it), not "ignored" as
  // an option smemsim does not model.
  const std::string typo = temp_file("typo.config", "-gpgpu_shmem_num_bankz 16\n");
  r = cli("arch import " + typo);
  EXPECT_NE(r.out.find("ignored: " + typo +
                       ":1: -gpgpu_shmem_num_bankz 16 (not an option smemsim maps: did you mean "
                       "'-gpgpu_shmem_num_banks'?)"),
            std::string::npos)
      << r.out;
  r = cli("arch import " + volta + " --arch turing-t4");
  EXPECT_NE(r.out.find("base:    turing-t4, --arch"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace smemsim::test

namespace smemsim::test {
namespace {

// The tensor core's latency and interval describe one mma shape, which the file does not name:
// with --tensor-shape they map. Worked out for the QV100 form above plus an interval and 4 units
// over 4 schedulers (one per sub-core): a 16x16x16 wmma (4,096 multiply-adds) every 8 cycles is
// 512 FMAs per cycle per sub-core; latency 64 = lat_tensor + 8 - 1, so lat_tensor = 57. Accel-Sim's
// trace pair `L,I` per HMMA.16816 (2,048): 2048 x 1 / 4 = 512 FMAs and 24 - 4 + 1 = 21 (the
// hopper-h100 preset's own values, from SM90_H100). GPGPU-Sim's default 64 and 64 (not
// pipelined) leaves 1 cycle: clamped to the pipeline's 4 with a note.
TEST(ArchImport, TensorLatencyAndIntervalMapWithTheirShape) {
  const std::string wmma = std::string(kVoltaUnits) +
                           "-ptx_opcode_initiation_tensor 8\n-gpgpu_num_tensor_core_units 4\n";
  const GpgpuSimImport v =
      import_gpgpusim(wmma, "v.config", find_preset("volta-v100"), {16, 16, 16});
  EXPECT_EQ(v.arch.sm.tensor_fmas, 512u);
  EXPECT_EQ(v.arch.sm.lat_tensor, 57u);
  // GPGPU-Sim's latency is a whole mma's: volta-v100's HMMA.884 steps are cleared, with a note.
  EXPECT_EQ(v.arch.sm.tensor_step_fmas, 0u);
  ASSERT_EQ(v.notes.size(), 1u);
  EXPECT_EQ(v.notes[0].key, "sm.tensor_step_fmas");
  EXPECT_NE(v.notes[0].why.find("tensor steps (sm.tensor_step_fmas = 256) are cleared"),
            std::string::npos)
      << v.notes[0].why;
  for (const auto& e : v.ignored)
    EXPECT_TRUE(e.option.find("tensor") == std::string::npos &&
                e.option.find("tesnor") == std::string::npos)
        << e.option << " ignored: " << e.why;

  const std::string trace =
      "-gpgpu_num_sched_per_core 4\n-gpgpu_sub_core_model 1\n"
      "-gpgpu_num_tensor_core_units 4\n-trace_opcode_latency_initiation_tensor 24,4\n";
  const GpgpuSimImport h =
      import_gpgpusim(trace, "h.config", find_preset("hopper-h100"), {16, 8, 16});
  EXPECT_EQ(h.arch.sm.tensor_fmas, 512u);
  EXPECT_EQ(h.arch.sm.lat_tensor, 21u);

  const GpgpuSimImport d =
      import_gpgpusim("-ptx_opcode_latency_tesnor 64\n-ptx_opcode_initiation_tensor 64\n",
                      "d.config", find_preset("volta-v100"), {16, 16, 16});
  EXPECT_EQ(d.arch.sm.lat_tensor, d.arch.sm.min_latency());
  ASSERT_EQ(d.notes.size(), 2u);  // the clamp, then volta-v100's tensor steps cleared
  EXPECT_NE(d.notes[0].why.find("below smemsim's pipeline"), std::string::npos);
  EXPECT_EQ(d.notes[1].key, "sm.tensor_step_fmas");

  // Without the shape both stay ignored, saying what to give.
  const GpgpuSimImport n = import_gpgpusim(wmma, "v.config", find_preset("volta-v100"));
  int listed = 0;
  for (const auto& e : n.ignored)
    if (e.option.find("tensor") != std::string::npos ||
        e.option.find("tesnor") != std::string::npos) {  // GPGPU-Sim's spelling
      ++listed;
      EXPECT_NE(e.why.find("--tensor-shape"), std::string::npos) << e.why;
    }
  EXPECT_EQ(listed, 3);
  // A shape that is not MxNxK is one line, exit 2.
  const auto bad = cli("arch import /dev/null --tensor-shape 16x8");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.out.find("--tensor-shape"), std::string::npos) << bad.out;
  for (const char* shape : {"\"\"", "0x8x16", "99999999x1x1"}) {
    const auto r = cli(std::string("arch import /dev/null --tensor-shape ") + shape);
    EXPECT_EQ(r.exit_code, 2) << shape;
    EXPECT_NE(r.out.find("--tensor-shape: "), std::string::npos) << shape << ": " << r.out;
  }
}

}  // namespace
}  // namespace smemsim::test
