// `smemsim run --export-gpu DIR` (apps/smemsim/gpu_export.cpp): the package scripts/gpu-replay.cu
// runs on a real GPU. These check what the GPU will be given against what the kernel's C++ says,
// not against the exporter's own code: the parameter image is the kernel's signature laid out by
// the CUDA ABI, the buffers are the builtin's input and the executor's output, and a builtin that
// sets a __constant__ array hands its bytes over.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "test_util.hpp"

namespace smemsim {
namespace {

using test::cli;
using test::slurp;

std::vector<std::string> lines_starting(const std::string& text, const std::string& word) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);)
    if (l.rfind(word + " ", 0) == 0) out.push_back(l);
  return out;
}

template <typename T>
std::vector<T> as(const std::string& bytes) {
  std::vector<T> v(bytes.size() / sizeof(T));
  std::memcpy(v.data(), bytes.data(), v.size() * sizeof(T));
  return v;
}

// reduce_interleaved(const int* in, int* out, unsigned n) (kernels/reduction.cu) on 4,096 ints in
// 16 blocks of 256: the CUDA ABI lays the parameters out as 8 + 8 + 4 = 20 bytes, the two pointers
// at 0 and 8 (relocated to the GPU's buffers), n = 4096 = 0x1000 little endian at 16. Each block
// writes the sum of its 256 inputs, so the executor's 16 outputs add up to the inputs' sum.
TEST(GpuExport, ReductionPackageIsTheKernelsLaunch) {
  const std::string dir = ::testing::TempDir() + "smemsim_export_reduction";
  const test::CliResult r = cli("run builtin:reduction --export-gpu " + dir);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string m = slurp(dir + "/replay.txt");
  EXPECT_EQ(m.rfind("smemsim-replay 1\n", 0), 0u) << m;
  const auto launches = lines_starting(m, "launch");
  ASSERT_EQ(launches.size(), 1u) << m;
  EXPECT_EQ(launches[0],
            "launch reduce_interleaved 16 1 1 256 1 1 1024 "
            "0000000000000000000000000000000000100000");
  EXPECT_EQ(lines_starting(m, "reloc"), (std::vector<std::string>{"reloc 0 0 0", "reloc 8 1 0"}));
  const auto in = as<std::int32_t>(slurp(dir + "/buf0.in"));
  const auto out = as<std::int32_t>(slurp(dir + "/buf1.out"));
  ASSERT_EQ(in.size(), 4096u);
  ASSERT_EQ(out.size(), 16u);
  std::int64_t want = 0, got = 0;
  for (std::int32_t v : in) want += v;
  for (std::int32_t v : out) got += v;
  EXPECT_EQ(got, want);
  EXPECT_EQ(slurp(dir + "/kernel.ptx").find(".entry reduce_interleaved") != std::string::npos,
            true);
}

// conv's driver fills the __constant__ c_filter[17] with a normalized Gaussian (the PTX declares
// it without an initializer): the package carries those 68 bytes, which sum to 1.
TEST(GpuExport, ConstantMemoryTheDriverSetTravels) {
  const std::string dir = ::testing::TempDir() + "smemsim_export_conv";
  const test::CliResult r = cli("run builtin:conv --export-gpu " + dir);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const auto sym = lines_starting(slurp(dir + "/replay.txt"), "symbol");
  ASSERT_EQ(sym.size(), 1u);
  std::istringstream in(sym[0]);
  std::string word, name, hex;
  in >> word >> name >> hex;
  EXPECT_EQ(name, "c_filter");
  ASSERT_EQ(hex.size(), 2u * 68);
  std::string bytes;
  for (std::size_t i = 0; i < hex.size(); i += 2)
    bytes.push_back(static_cast<char>(std::stoul(hex.substr(i, 2), nullptr, 16)));
  double sum = 0;
  for (float f : as<float>(bytes)) sum += f;
  EXPECT_NEAR(sum, 1.0, 1e-5);
}

TEST(GpuExport, RefusesWhatNoGpuRunsWithOneLine) {
  const std::string file = test::temp_file("export_target_is_a_file", "x");
  test::CliResult r = cli("run builtin:reduction --export-gpu " + file);
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("exists and is not a directory"), std::string::npos) << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
  r = cli("run builtin:reduction --export-gpu ''");  // was taken as no export at all
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("--export-gpu: empty path"), std::string::npos) << r.out;
  // GPU-LocalTM's markers are smemsim's own instructions: nothing is written.
  const std::string dir = ::testing::TempDir() + "smemsim_export_tm";
  r = cli("run builtin:tm_hashtable --export-gpu " + dir);
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("tx.begin"), std::string::npos) << r.out;
  EXPECT_EQ(std::ifstream(dir + "/replay.txt").good(), false);
}

// kernels/wgmma.cu's wgmma_gemm(const __grid_constant__ CUtensorMap ta, tb, float* c, int n, int k)
// from docs/examples/wgmma_gemm.launch.toml: the CUDA ABI puts each 128-byte, 64-aligned
// CUtensorMap at 0 and 128, c at 256, n and k at 264 and 268. The replay encodes each map with
// cuTensorMapEncodeTiled from the spec's fields: f16 over buffer a (0) and bt (1), dims 128 x 256,
// row stride 128 x 2 = 256 bytes, box 64 x 128, element strides 1, the 128B swizzle, no L2
// promotion, zero fill.
TEST(GpuExport, TensorMapsTravelAsTheirEncodeTiledArguments) {
  const std::string dir = ::testing::TempDir() + "smemsim_export_wgmma";
  const test::CliResult r =
      cli("run " + std::string(SMEMSIM_SOURCE_DIR) + "/kernels/ptx/wgmma.ptx --launch " +
          SMEMSIM_SOURCE_DIR + "/docs/examples/wgmma_gemm.launch.toml --export-gpu " + dir);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string m = slurp(dir + "/replay.txt");
  EXPECT_EQ(lines_starting(m, "tensormap"),
            (std::vector<std::string>{"tensormap 0 0 0 f16 2 128 256 256 64 128 1 1 128 0 0",
                                      "tensormap 1 1 0 f16 2 128 256 256 64 128 1 1 128 0 0"}))
      << m;
  EXPECT_EQ(lines_starting(m, "tmap"), (std::vector<std::string>{"tmap 0 0", "tmap 128 1"}));
  EXPECT_EQ(lines_starting(m, "reloc"), (std::vector<std::string>{"reloc 256 2 0"}));
}

// docs/examples/tma_im2col.launch.toml: an im2col map travels with its corners, channels and
// pixels after the fields a tiled map has (f32 over buffer x (1, after out), dims 16 8 8 2, strides
// 64, 512 and 4,096 bytes, boxes unused (1), element strides 1, no swizzle, no promotion, zero
// fill), which the replay gives cuTensorMapEncodeIm2col. Its centre tap (offsets 1, 1) copies image
// 0 itself: `out` holds x's first 1,024 words, as the example's comment says.
TEST(GpuExport, Im2colMapsTravelAsTheirEncodeIm2colArguments) {
  const std::string dir = ::testing::TempDir() + "smemsim_export_im2col";
  const test::CliResult r =
      cli("run " + std::string(SMEMSIM_SOURCE_DIR) + "/kernels/ptx/tma.ptx --launch " +
          SMEMSIM_SOURCE_DIR + "/docs/examples/tma_im2col.launch.toml --export-gpu " + dir);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string m = slurp(dir + "/replay.txt");
  EXPECT_EQ(lines_starting(m, "tensormap"),
            (std::vector<std::string>{"tensormap 0 1 0 f32 4 16 8 8 2 64 512 4096 1 1 1 1 1 1 1 1 "
                                      "0 0 0 im2col -1 -1 -1 -1 16 64"}))
      << m;
  const std::string out = slurp(dir + "/buf0.out"), x = slurp(dir + "/buf1.in");  // name order
  ASSERT_EQ(out.size(), x.size());
  EXPECT_EQ(out.substr(0, 4096), x.substr(0, 4096));
  EXPECT_EQ(out.substr(4096), std::string(4096, '\0'));
}

// scripts/gpu-compare.py refuses what it cannot compare with one line and exit code 2 before it
// runs any launch: a missing CSV, a folder, an arch override that is no key=value, a smemsim that
// is not there (each launch's row would otherwise read nan).
TEST(GpuExport, CompareRefusesBadInputWithOneLine) {
  const std::string py =
      "/usr/bin/python3 " + std::string(SMEMSIM_SOURCE_DIR) + "/scripts/gpu-compare.py ";
  const std::string csv =
      std::string(SMEMSIM_SOURCE_DIR) + "/calibration/runs/h100-2026-11-26/ncu.csv";
  for (const std::string& args :
       {std::string("/nonexistent.csv"), std::string("/tmp"),
        csv + " --set bogus --smemsim " + SMEMSIM_CLI, csv + " --smemsim /nonexistent",
        csv + " --arch nope --smemsim " + SMEMSIM_CLI}) {
    const test::CliResult r = test::shell(py + args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << args << "\n" << r.out;
    EXPECT_EQ(r.out.rfind("gpu-compare: ", 0), 0u) << args << "\n" << r.out;
  }
}

// scripts/warp-states.py sets one launch's warp states beside Nsight's: gemm's drain on the H200
// is 985.0 cycles a warp in the CSV (stalls.csv's drain ratio x instructions / 16 warps), and the
// model's is the warp's wait past its exit (nonzero: its last stores). Bad input is one line and
// exit 2: a missing CSV, a folder, a device, no such launch, a smemsim that is not there.
TEST(GpuExport, WarpStatesSetsALaunchBesideNsight) {
  const std::string py =
      "/usr/bin/python3 " + std::string(SMEMSIM_SOURCE_DIR) + "/scripts/warp-states.py ";
  const std::string csv =
      std::string(SMEMSIM_SOURCE_DIR) + "/calibration/runs/h200-2026-11-28/stalls.csv";
  const test::CliResult ok =
      test::shell(py + csv + " --kernel gemm_bk64 --states drain --smemsim " + SMEMSIM_CLI +
                  " -- builtin:gemm");
  ASSERT_EQ(ok.exit_code, 0) << ok.out;
  const std::size_t at = ok.out.find("\ndrain ");
  ASSERT_NE(at, std::string::npos) << ok.out;
  std::istringstream row(ok.out.substr(at + 1));
  std::string name;
  double gpu = 0, model = 0;
  row >> name >> gpu >> model;
  EXPECT_NEAR(gpu, 985.0, 0.05) << ok.out;
  EXPECT_GT(model, 0.0) << ok.out;
  for (const std::string& args :
       {std::string("/nonexistent.csv --kernel x -- builtin:gemm"),
        std::string("/tmp --kernel x -- builtin:gemm"),
        std::string("/dev/zero --kernel x -- builtin:gemm"),
        csv + " --kernel no_such_kernel -- builtin:gemm",
        csv + " --kernel gemm_bk64 --smemsim /nonexistent -- builtin:gemm"}) {
    const test::CliResult r = test::shell(py + args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << args << "\n" << r.out;
    EXPECT_EQ(r.out.rfind("warp-states: ", 0), 0u) << args << "\n" << r.out;
  }
}

#ifdef SMEMSIM_NVCC
// The GPU-side programs of scripts/gpu-checks.sh compile with the configured nvcc (they run only
// where a GPU is: docs/gpu-runs.md "Measured on an H200 and an H100"). gpu-replay links the
// driver API, found in the toolkit's stub folder here; without a GPU, hopper_measure,
// operand_delay and memory_measure stop with one line and exit code 2.
TEST(GpuExport, TheGpuProgramsCompile) {
  const std::filesystem::path nvcc(SMEMSIM_NVCC);
  const std::string stubs = (nvcc.parent_path().parent_path() / "lib64" / "stubs").string();
  struct Program {
    const char* name;
    std::string flags;
  };
  for (const Program& p :
       {Program{"gpu-replay", "-L" + stubs + " -lcuda"}, Program{"hopper_measure", "-arch=sm_90"},
        Program{"operand_delay", "-arch=sm_90"}, Program{"memory_measure", "-arch=sm_80"},
        Program{"whole_gpu_measure", "-arch=sm_80"},
        Program{"wgmma_measure", "-gencode arch=compute_90a,code=sm_90a"}}) {
    const std::string bin = ::testing::TempDir() + "smemsim_" + p.name;
    const test::CliResult c =
        test::shell(std::string(SMEMSIM_NVCC) + " -O2 " + p.flags + " -o " + bin + " " +
                    SMEMSIM_SOURCE_DIR + "/scripts/" + p.name + ".cu");
    ASSERT_EQ(c.exit_code, 0) << p.name << "\n" << c.out;
    if (std::string(p.name) == "gpu-replay") continue;  // needs the driver's libcuda to start
    const test::CliResult r = test::shell(bin);
    if (r.exit_code != 0) {
      EXPECT_EQ(r.exit_code, 2) << r.out;
      EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
    }
  }
}
#endif

}  // namespace
}  // namespace smemsim
