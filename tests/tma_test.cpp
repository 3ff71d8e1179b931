// Hopper's Tensor Memory Accelerator (issue 46; kernels/tma.cu, its PTX shipped in kernels/ptx):
// tensor maps from the launch spec, 2-D and 3-D tensor copies into shared memory under each
// swizzle mode, out-of-bound fill, element strides, the store to global memory, contiguous bulk
// copies, mbarrier transaction counts, the swizzles as bank mappings for `analyze`, and bad input.
// Every expected layout is derived in the comments from the CUDA documentation's description of the
// modes (cuda.h: "swizzle 16B chunks within a 32B/64B/128B span"), row by row, not from the
// implementation's address formula.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "ptx_line.hpp"
#include "smemsim/arch.hpp"
#include "smemsim/error.hpp"
#include "smemsim/exec.hpp"
#include "smemsim/timing.hpp"
#include "smemsim/workloads.hpp"
#include "test_util.hpp"

namespace smemsim::exec {
namespace {

using test::cli;

Workload tma_workload(const std::string& spec) {
  Workload w;
  w.module = load_suite_ptx(suite_ptx_dir(), "tma", "tma_test");
  bool g = false, b = false;
  apply_launch_spec_text(spec, "tma.toml", w, g, b);
  return w;
}

void run(Workload& w, std::uint32_t grid = 1, std::uint32_t block = 128) {
  w.launch.grid = {grid, 1, 1};
  w.launch.block = {block, 1, 1};
  const Arch& arch = find_preset("hopper-h100");
  Executor ex(w.module, find_kernel(w.module, w.kernel), arch, w.launch, w.memory);
  ex.run();
}

std::vector<std::uint32_t> words(const Workload& w, const std::string& name) {
  const Buffer& b = *w.memory.find(name);
  std::vector<std::uint32_t> v(b.bytes.size() / 4);
  std::memcpy(v.data(), b.bytes.data(), b.bytes.size());
  return v;
}

// The spec of tma_load_2d: a 64 x 64 u32 tensor holding its own element index (y * 64 + x), the
// box `bw` x `bh` at (x, y), `swizzle` and more keys in `extra`.
std::string load_2d_spec(int x, int y, int bw, int bh, const std::string& swizzle,
                         const std::string& extra = "") {
  // nvcc passes an int as a .u32 parameter: -8 is given as its bits, 2^32 - 8.
  return "kernel = \"tma_load_2d\"\nargs = [\"map\", " + std::to_string(std::uint32_t(x)) + ", " +
         std::to_string(std::uint32_t(y)) + ", \"out\", " + std::to_string(bw * bh) +
         "]\n[buffers.t]\ntype = \"u32\"\ncount = 4096\ninit = \"iota\"\n[buffers.out]\ntype = "
         "\"u32\"\ncount = 2048\n[tensor_maps.map]\nbuffer = \"t\"\ndims = [64, 64]\nbox = [" +
         std::to_string(bw) + ", " + std::to_string(bh) + "]\nswizzle = \"" + swizzle + "\"\n" +
         extra;
}

// Where element e of box row r lies in shared memory (in words), for rows of `row_bytes` bytes
// under a swizzle of `span` bytes (0: none), the tile 1024-byte aligned. cuda.h: the 16-byte
// chunks are permuted within each span. The Programming Guide's pictures of the modes: in the
// 128B mode the chunks of the n-th 128-byte line of the tile are XORed with n mod 8 (the pattern
// repeats every 1024 bytes); 64B: the chunks of a 64-byte span with (n mod 4) of its 128-byte
// line number n... i.e. with 128-byte lines, a line holds 128 / row_bytes rows, and the chunk
// index within the span is XORed with the line number modulo span / 16.
std::size_t placed(int r, int e, int row_bytes, int span) {
  const int byte = e * 4;
  const int chunk = byte / 16, within = byte % 16;
  const int line = r * row_bytes / 128;            // the tile's 128-byte line
  const int flip = span ? line % (span / 16) : 0;  // 128B: 8 chunks; 64B: 4; 32B: 2
  return std::size_t((r * row_bytes + (chunk ^ flip) * 16 + within) / 4);
}

TEST(Tma, EachSwizzleModeLaysTheBoxOutAsDocumented) {
  struct Mode {
    const char* name;
    int span;
  };
  for (const Mode m : {Mode{"none", 0}, Mode{"32B", 32}, Mode{"64B", 64}, Mode{"128B", 128}}) {
    // A box as wide as the span (none: 128 bytes), 16 rows, at (8, 5).
    const int bw = (m.span ? m.span : 128) / 4, bh = 16, x = 8, y = 5;
    Workload w = tma_workload(load_2d_spec(x, y, bw, bh, m.name));
    run(w);
    const std::vector<std::uint32_t> out = words(w, "out");
    for (int r = 0; r < bh; ++r)
      for (int e = 0; e < bw; ++e)
        ASSERT_EQ(out[placed(r, e, bw * 4, m.span)], std::uint32_t((y + r) * 64 + x + e))
            << m.name << " row " << r << " element " << e;
  }
  // Spot checks written out by hand for 128B (rows of 128 bytes = 32 words, at (8, 5)): row 0 is
  // in order (line 0); row 1's chunk 0 holds its elements 4-7 (1 ^ 1 = 0), so word 32 is element
  // (6, 12) = 6 * 64 + 12 = 396; row 3's word 96 holds its chunk 3 (0 ^ 3): (8, 20) = 532.
  Workload w = tma_workload(load_2d_spec(8, 5, 32, 8, "128B"));
  run(w);
  const std::vector<std::uint32_t> out = words(w, "out");
  EXPECT_EQ(out[0], 328u);  // (5, 8)
  EXPECT_EQ(out[32], 396u);
  EXPECT_EQ(out[36], 392u);  // chunk 1 holds chunk 0: (6, 8)
  EXPECT_EQ(out[96], 532u);
}

TEST(Tma, ElementsOutsideTheTensorAreFilledAndNanFillIsFloatOnly) {
  // The box 32 x 8 at (-8, 60): columns -8..-1 and rows 64..67 are outside the 64 x 64 tensor.
  Workload w = tma_workload(load_2d_spec(-8, 60, 32, 8, "none"));
  run(w);
  std::vector<std::uint32_t> out = words(w, "out");
  for (int r = 0; r < 8; ++r)
    for (int e = 0; e < 32; ++e) {
      const bool inside = e >= 8 && 60 + r < 64;
      EXPECT_EQ(out[std::size_t(r * 32 + e)], inside ? std::uint32_t((60 + r) * 64 + e - 8) : 0u)
          << r << " " << e;
    }
  // f32 with oob_fill = "nan": the canonical quiet NaN 0x7fffffff outside.
  Workload f =
      tma_workload(load_2d_spec(-8, 60, 32, 8, "none", "type = \"f32\"\noob_fill = \"nan\"\n"));
  run(f);
  out = words(f, "out");
  EXPECT_EQ(out[0], 0x7fffffffu);
  EXPECT_EQ(out[8], std::uint32_t(60 * 64));  // the bits of the u32 buffer's element, as f32
  EXPECT_EQ(out[4 * 32 + 20], 0x7fffffffu);   // row 64
  try {
    tma_workload(load_2d_spec(0, 0, 32, 8, "none", "oob_fill = \"nan\"\n"));
    ADD_FAILURE() << "NaN fill of a u32 tensor accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("needs a floating-point type"), std::string::npos)
        << e.what();
  }
}

TEST(Tma, ThreeDimensionalBoxWithElementStrides) {
  // A 16 x 8 x 4 u32 tensor of its indices (z * 128 + y * 16 + x); box [16, 4, 4] with element
  // strides [1, 2, 1] at (0, 1, 0): ceil(4 / 2) = 2 rows per plane, rows y = 1 and 3; 16 x 2 x 4
  // elements = 512 bytes, densely, x fastest.
  Workload w = tma_workload(
      "kernel = \"tma_load_3d\"\nargs = [\"map\", 0, 1, 0, \"out\", 128]\n[buffers.t]\ntype = "
      "\"u32\"\ncount = 512\ninit = \"iota\"\n[buffers.out]\ntype = \"u32\"\ncount = 2048\n"
      "[tensor_maps.map]\nbuffer = \"t\"\ndims = [16, 8, 4]\nbox = [16, 4, 4]\nelement_strides = "
      "[1, 2, 1]\n");
  run(w);
  const std::vector<std::uint32_t> out = words(w, "out");
  for (int z = 0; z < 4; ++z)
    for (int j = 0; j < 2; ++j)
      for (int x = 0; x < 16; ++x)
        EXPECT_EQ(out[std::size_t(z * 32 + j * 16 + x)],
                  std::uint32_t(z * 128 + (1 + 2 * j) * 16 + x));
  EXPECT_EQ(out[128], 0u);  // nothing past the box's 512 bytes
}

TEST(Tma, StoreWritesOnlyTheBoxInsideTheTensor) {
  // tma_store_2d fills tile word i with 0x10000 + i and stores the box 32 x 8 (128B swizzle) at
  // (8, 2) of a 32 x 32 tensor: box row r, element e comes from the word `placed` gives; columns
  // 8..31 (e = 0..23) are inside, e = 24..31 fall past the row and are not written.
  Workload w = tma_workload(
      "kernel = \"tma_store_2d\"\nargs = [\"map\", 8, 2, 256]\n[buffers.t]\ntype = \"u32\"\ncount "
      "= 1024\n[tensor_maps.map]\nbuffer = \"t\"\ndims = [32, 32]\nbox = [32, 8]\nswizzle = "
      "\"128B\"\n");
  run(w);
  const std::vector<std::uint32_t> t = words(w, "t");
  for (int y = 0; y < 32; ++y)
    for (int x = 0; x < 32; ++x) {
      const int r = y - 2, e = x - 8;
      const bool in_box = r >= 0 && r < 8 && e >= 0;
      EXPECT_EQ(t[std::size_t(y * 32 + x)],
                in_box ? std::uint32_t(0x10000 + placed(r, e, 128, 128)) : 0u)
          << y << " " << x;
    }
}

TEST(Tma, ContiguousBulkCopiesRoundTripUnderRunAndSim) {
  const std::string spec =
      "kernel = \"bulk_roundtrip\"\nargs = [\"in\", \"out\"]\n[buffers.in]\ntype = \"s32\"\ncount "
      "= 4096\ninit = \"iota\"\n[buffers.out]\ntype = \"s32\"\ncount = 4096\n";
  Workload w = tma_workload(spec);
  run(w, 4);
  std::vector<std::uint32_t> out = words(w, "out");
  for (std::size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], i + 1) << i;
  // The cycle model: the same result; each block's two copies move 4 KiB each way, 128 sectors
  // of 32 bytes, 4 blocks: 1,024 sectors.
  Workload s = tma_workload(spec);
  s.launch.grid = {4, 1, 1};
  s.launch.block = {128, 1, 1};
  const Arch& arch = find_preset("hopper-h100");
  timing::GpuSim sim(s.module, find_kernel(s.module, s.kernel), arch, s.launch, s.memory, {});
  const timing::TimingStats& st = sim.run();
  EXPECT_GT(st.cycles, 0u);
  EXPECT_EQ(words(s, "out"), out);
  EXPECT_EQ(st.units.global_sectors, 1024u);
}

TEST(Tma, UnderSimTheWaitLastsAsLongAsTheCopysMemoryOperation) {
  // Under the cycle model a tensor copy lands, and completes its mbarrier's transactions, when its
  // memory operation (32 sectors of a cold tensor) completes: the kernel takes the latency's
  // growth. The kernel announces the bytes before it issues the copy: had the copy landed at its
  // issue, the phase would complete there and the cycles would not depend on the latency. The
  // waiting warps' try_wait suspends them until the phase completes (PTX ISA: "potentially
  // blocking"), so their wait loop does not turn more while the copy is out (it turned 100 more
  // times when try_wait returned at once and the loop polled).
  const auto warp_instructions = [](std::uint32_t latency) {
    Workload w = tma_workload(load_2d_spec(0, 0, 32, 8, "none"));
    w.kernel = "tma_load_2d_expect_first";
    w.launch.grid = {1, 1, 1};
    w.launch.block = {128, 1, 1};
    Arch arch = find_preset("hopper-h100");
    arch.sm.global_latency = latency;
    timing::GpuSim sim(w.module, find_kernel(w.module, w.kernel), arch, w.launch, w.memory, {});
    const std::uint64_t cycles = sim.run().cycles;
    const std::vector<std::uint32_t> out = words(w, "out");
    for (int i = 0; i < 256; ++i)
      EXPECT_EQ(out[std::size_t(i)], std::uint32_t(i / 32 * 64 + i % 32));
    return std::pair(sim.exec_stats().warp_instructions, cycles);
  };
  const auto [fast, fast_cycles] = warp_instructions(500);
  const auto [slow, slow_cycles] = warp_instructions(3000);
  EXPECT_LE(slow, fast);                            // no more turns of the wait loop
  EXPECT_GE(slow_cycles, fast_cycles + 2500 - 50);  // and the kernel took the latency's growth
}

TEST(Tma, BulkReductionsCombineIntoGlobalMemory) {
  // bulk_reduce_add: 4 blocks each add word i = b + i into acc (iota: acc[i] = i), so
  // acc[i] = i + (0 + 1 + 2 + 3) + 4 i = 5 i + 6.
  Workload w = tma_workload(
      "kernel = \"bulk_reduce_add\"\nargs = [\"acc\"]\n[buffers.acc]\ntype = \"s32\"\ncount = "
      "256\ninit = \"iota\"\n");
  run(w, 4);
  const std::vector<std::uint32_t> acc = words(w, "acc");
  for (int i = 0; i < 256; ++i) ASSERT_EQ(std::int32_t(acc[std::size_t(i)]), 5 * i + 6) << i;
  // tma_reduce_max_2d: a 32 x 32 s32 tensor t(y, x) = -500 + 3 (32 y + x); 2 blocks take the
  // maximum with their tile (word i = i + 100 b) over the box 32 x 8 at (0, 4): box row r,
  // element e ends as max(-500 + 3 (32 (4 + r) + e), 32 r + e + 100), signed (the negative
  // tensor values lose; read as unsigned they would win).
  Workload m = tma_workload(
      "kernel = \"tma_reduce_max_2d\"\nargs = [\"map\", 0, 4, 256]\n[buffers.t]\ntype = \"s32\"\n"
      "count = 1024\ninit = \"iota\"\nstart = -500\nstep = 3\n[tensor_maps.map]\nbuffer = \"t\"\n"
      "dims = [32, 32]\nbox = [32, 8]\n");
  run(m, 2);
  const std::vector<std::uint32_t> t = words(m, "t");
  for (int y = 0; y < 32; ++y)
    for (int x = 0; x < 32; ++x) {
      const int before = -500 + 3 * (32 * y + x), r = y - 4;
      const int want = r >= 0 && r < 8 ? std::max(before, 32 * r + x + 100) : before;
      ASSERT_EQ(std::int32_t(t[std::size_t(y * 32 + x)]), want) << y << " " << x;
    }
}

TEST(Tma, ReadsOfATmaTileAreWeighedUnderEverySwizzleMode) {
  // tma_rows: a 32 x 32 u32 tile copied unswizzled (128-byte rows); thread t sums row t with
  // eight ld.shared.v4 (16 bytes at 128 t + 16 j), served in four phases of eight lanes.
  // Unswizzled, a phase's 8 lanes read chunk j of 8 rows: the same 4 banks, 8 passes a phase, 32 an
  // instruction. Under 128B the chunk of row t moves to j ^ (t mod 8): a phase's 8 lanes take 8
  // different chunks, 1 pass a phase, 4 an instruction. 32B and 64B cannot hold 128-byte rows.
  Workload w = tma_workload(
      "kernel = \"tma_rows\"\nargs = [\"map\", \"sums\"]\n[buffers.t]\ntype = \"u32\"\ncount = "
      "1024\ninit = \"iota\"\n[buffers.sums]\ntype = \"u32\"\ncount = 32\n[tensor_maps.map]\n"
      "buffer = \"t\"\ndims = [32, 32]\nbox = [32, 32]\n");
  w.launch.grid = {1, 1, 1};
  w.launch.block = {32, 1, 1};
  Executor ex(w.module, find_kernel(w.module, w.kernel), find_preset("hopper-h100"), w.launch,
              w.memory);
  struct Ignore : AccessConsumer {  // the what-if is made where accesses go to a consumer
    void on_access(const WarpAccess&) override {}
  } none;
  ex.set_consumer(&none);
  ex.run();
  const std::vector<std::uint32_t> sums = words(w, "sums");
  for (std::uint32_t t = 0; t < 32; ++t) EXPECT_EQ(sums[t], 32 * 32 * t + 31 * 32 / 2) << t;
  const auto& rows = ex.stats().tma_reads;
  ASSERT_EQ(rows.size(), 8u);  // the eight loads
  for (const ExecStats::TmaReads& r : rows) {
    EXPECT_EQ(r.accesses, 4u);
    EXPECT_EQ(r.mode, 0);
    EXPECT_EQ(r.passes[0], 32u);
    EXPECT_EQ(r.passes[3], 4u);
    EXPECT_FALSE(r.possible[1]);
    EXPECT_FALSE(r.possible[2]);
    EXPECT_TRUE(r.possible[3]);
  }
  // The CLI prints them (and --json has them).
  const std::string spec = test::temp_file(
      "tma_rows.toml",
      "kernel = \"tma_rows\"\nargs = [\"map\", \"sums\"]\n[buffers.t]\ntype = \"u32\"\ncount = "
      "1024\n[buffers.sums]\ntype = \"u32\"\ncount = 32\n[tensor_maps.map]\nbuffer = \"t\"\ndims "
      "= [32, 32]\nbox = [32, 32]\n");
  const auto r =
      cli("profile " + suite_ptx_dir() + "/tma.ptx --grid 1 --block 32 --launch " + spec);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("bank passes under each swizzle mode"), std::string::npos) << r.out;
}

TEST(Tma, AFixsRelayoutMovesTheCopysBytesAsItMovesTheReads) {
  // `smemsim fix` tries layouts by remapping an array's accesses (SharedRemap): the TMA's writes
  // must move with them, or a relaid tile would not hold what its reads expect. tma_load_2d
  // writes the tile out word by word; under an XOR relayout of the tile (16-byte grains, chunk
  // c of grain row r to c ^ (r mod 8)), the output must be the plain run's, byte for byte.
  const std::string spec = load_2d_spec(8, 5, 32, 16, "none");
  Workload plain = tma_workload(spec);
  run(plain);
  Workload relaid = tma_workload(spec);
  relaid.launch.grid = {1, 1, 1};
  relaid.launch.block = {128, 1, 1};
  SharedRemap r;
  r.base = 0;  // the tile is the kernel's first shared array (align 1024)
  r.bytes = 8192;
  r.grain = 16;
  r.xor_shift = 3;
  r.xor_mask = 7;
  ASSERT_EQ(r.check(), "");
  Executor ex(relaid.module, find_kernel(relaid.module, relaid.kernel), find_preset("hopper-h100"),
              relaid.launch, relaid.memory, 1, r);
  ASSERT_EQ(ex.shared_layout().arrays.at(0).offset, 0u);
  ex.run();
  EXPECT_EQ(words(relaid, "out"), words(plain, "out"));
}

TEST(Tma, BadTensorMapsAndCopiesAreOneLineErrors) {
  const auto refused = [](const std::string& extra, const std::string& want, int bw = 32) {
    try {
      tma_workload(load_2d_spec(0, 0, bw, 8, "none", extra));
      ADD_FAILURE() << "accepted: " << extra;
    } catch (const InputError& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find(want), std::string::npos) << m;
      EXPECT_EQ(m.find('\n'), std::string::npos) << m;
      EXPECT_EQ(m.rfind("tma.toml:", 0), 0u) << m;  // names the spec and its line
    }
  };
  refused("", "at most 256 elements", 257);
  refused("strides = [200]\n", "multiple of 16");
  refused("", "multiple of 16", 2);  // 8 bytes of inner box
  refused("element_strides = [1, 9]\n", "from 1 to 8");
  refused("interleave = \"32B\"\n", "not modelled");
  refused("unknown = 1\n", "unknown key 'unknown'");
  // A 64-byte inner box under the 32B swizzle.
  try {
    tma_workload(load_2d_spec(0, 0, 16, 8, "32B"));
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("wider than the 32-byte swizzle span"), std::string::npos)
        << e.what();
  }
  // 128 zero bytes where the kernel takes the CUtensorMap: the copy names the map's address and
  // the PTX line.
  std::string zeros;
  for (int i = 0; i < 128; ++i) zeros += i ? ", 0" : "0";
  Workload w;
  w.module = load_suite_ptx(suite_ptx_dir(), "tma", "tma_test");
  bool g = false, b = false;
  apply_launch_spec_text(
      "kernel = \"tma_load_2d\"\nargs = [{ bytes = [" + zeros +
          "] }, 0, 0, \"out\", 256]\n[buffers.out]\ntype = \"u32\"\ncount = 2048\n",
      "tma.toml", w, g, b);
  try {
    run(w);
    ADD_FAILURE() << "zero bytes taken for a tensor map";
  } catch (const InputError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("not a tensor map of the launch"), std::string::npos) << m;
    EXPECT_NE(m.find("tma.ptx:"), std::string::npos) << m;
  }
}

TEST(Tma, AnExpectedByteCountNoCopyDeliversIsADeadlockNotAHang) {
  // The box is 32 x 8 words (1,024 bytes) but the kernel is told 2,048: the phase waits for bytes
  // that never come, and every warp waits on it.
  Workload w = tma_workload(load_2d_spec(0, 0, 32, 8, "none"));
  w.launch.args[4] = Arg::integer(512);
  try {
    run(w);
    ADD_FAILURE() << "finished";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("deadlock"), std::string::npos) << e.what();
  }
}

TEST(Tma, SwizzleModesAsBankMappings) {
  // A column of a row-major tile of 32-word (128-byte) rows: lane i reads word 32 i. Unswizzled
  // every lane is in bank 0 (32-way). The 128B mode moves row i's chunk by i mod 8: 8 distinct
  // chunks of 4 banks, lanes i and i + 8 share one: 4-way; 64B: i's chunk moves by (i mod 4)
  // (bits 5-6 of the word address are the row's low bits): 8-way; 32B: by i mod 2: 16-way.
  std::string pattern;
  for (int i = 0; i < 32; ++i) pattern += (i ? "," : "") + std::to_string(32 * i);
  const struct {
    const char* hash;
    const char* degree;
  } cases[] = {{"mod", "bank degree 32"},
               {"tma32", "bank degree 16"},
               {"tma64", "bank degree 8"},
               {"tma128", "bank degree 4"}};
  for (const auto& c : cases) {
    const auto r =
        cli("analyze --arch hopper-h100 --op ld --pattern " + pattern + " --bank-hash " + c.hash);
    EXPECT_EQ(r.exit_code, 0) << r.out;
    EXPECT_NE(r.out.find(c.degree), std::string::npos) << c.hash << "\n" << r.out;
  }
}

TEST(Tma, DecoderRefusesWhatIsNotModelledAndRejectsMalformedForms) {
  const auto module = test::sm90_line;
  // Valid forms smemsim does not model: the kernel is refused, naming why.
  const std::pair<const char*, const char*> refusals[] = {
      {"cp.async.bulk.tensor.3d.shared::cluster.global.im2col::w.mbarrier::complete_tx::bytes "
       "[%r1], [%rd1, {%r2, %r3, %r4}], [%r4], {%r5};",
       "im2col::w"}};
  for (const auto& [line, why] : refusals) {
    const ptx::Module m = module(line);
    ASSERT_EQ(m.kernels.size(), 1u);
    ASSERT_EQ(m.kernels[0].unsupported.size(), 1u) << line;
    EXPECT_NE(m.kernels[0].unsupported[0].message.find(why), std::string::npos)
        << m.kernels[0].unsupported[0].message;
  }
  // Malformed: one line naming the PTX line.
  const std::pair<const char*, const char*> malformed[] = {
      {"cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r1], "
       "[%rd1, {%r2}], [%r4];",
       "needs 2 coordinates, got 1"},
      {"cp.async.bulk.tensor.6d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r1], "
       "[%rd1, {%r2}], [%r4];",
       ".1d to .5d"},
      {"cp.async.bulk.shared::cluster.global.bulk_group [%r1], [%rd1], 16;",
       "completes through .mbarrier::complete_tx::bytes"},
      {"cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1], 24, "
       "[%r4];",
       "multiple of 16"},
      {"cp.async.bulk.wait_group %r1;", "non-negative integer"},
      {"cp.reduce.async.bulk.global.shared::cta.bulk_group.u32 [%rd1], [%r1], 16;",
       "needs a reduction"},
      {"cp.reduce.async.bulk.global.shared::cta.bulk_group.inc.f32 [%rd1], [%r1], 16;",
       "a float reduction is .add, .min or .max"},
      {"cp.async.bulk.global.shared::cta.bulk_group.multicast::cluster [%rd1], [%r1], 16, %r2;",
       "is a copy into shared memory's"},
      {"cp.async.bulk.shared::cta.shared::cluster.mbarrier::complete_tx::bytes [%r1], [%r2], 16, "
       "[%r4];",
       "a copy between shared memories is"},
      {"cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster "
       "[%r1], [%rd1], 16, [%r4];",
       "ctaMask"},
      // The PTX ISA's table for a reduction into .shared::cluster: no floats, min/max 32-bit.
      {"cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.add.f32 "
       "[%r1], [%r2], 16, [%r4];",
       "a reduction into .shared::cluster is .add (.u32 .s32 .u64)"},
      {"cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.max.u64 "
       "[%r1], [%r2], 16, [%r4];",
       "a reduction into .shared::cluster is"},
      {"cp.reduce.async.bulk.shared::cluster.shared::cta.bulk_group.add.u32 [%r1], [%r2], 16;",
       "a bulk reduction is .global.shared::cta.bulk_group or"}};
  for (const auto& [line, why] : malformed) {
    try {
      (void)module(line);
      ADD_FAILURE() << "accepted: " << line;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).rfind("d.ptx:8", 0), 0u) << e.what();
    }
  }
  // The proxy fences and the transaction-count forms decode (and print) as themselves.
  const ptx::Module ok = module(
      "fence.proxy.async.shared::cta;\nfence.proxy.async;\nmbarrier.expect_tx.relaxed.cta.shared::"
      "cta.b64 [%r1], 64;\nmbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%r1], 64;\ncp.async."
      "bulk.prefetch.L2.global [%rd1], 256;\ncp.async.bulk.commit_group;\ncp.async.bulk.wait_group."
      "read 0;");
  EXPECT_TRUE(ok.kernels[0].unsupported.empty());
  // A tensor copy prints as PTX writes it (messages and listings quote it).
  const char* load =
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r1], "
      "[%rd1, {%r2, %r3}], [%r4];";
  for (const char* line :
       {load,
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
        ".multicast::cluster [%r1], [%rd1, {%r2, %r3}], [%r4], %r5;",
        "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%r1], [%r2], 64, "
        "[%r4];",
        "cp.reduce.async.bulk.tensor.2d.global.shared::cta.max.tile.bulk_group [%rd1, {%r2, "
        "%r3}], [%r4];",
        "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.s32 [%rd1], [%r1], %r2;",
        "cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.xor.b32 "
        "[%r1], [%r2], 64, [%r4];"}) {
    const ptx::Module t = module(line);
    ASSERT_FALSE(t.kernels[0].code.empty());
    EXPECT_EQ(ptx::to_string(t.kernels[0], t.kernels[0].code[0]), line);
  }
}

TEST(Tma, ClusterDirectivesParseAndSetTheClusterSpecials) {
  // nvcc 13 writes __cluster_dims__(X, Y, Z) as .explicitcluster and .reqnctapercluster X, Y, Z
  // after the parameter list; before issue 46 they rejected the whole module.
  const auto kernel = [](const char* dims) {
    return std::string(
               ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n"
               ".explicitcluster\n.reqnctapercluster ") +
           dims +
           "\n{\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\nld.param.u64 %rd1, [p];\n"
           "cvta.to.global.u64 %rd2, %rd1;\nmov.u32 %r1, %is_explicit_cluster;\n"
           "mov.u32 %r2, %cluster_nctarank;\nadd.u32 %r3, %r1, %r2;\nst.global.u32 [%rd2], %r3;\n"
           "ret;\n}\n";
  };
  const auto launch = [](const ptx::Module& m, std::uint32_t grid) {
    GlobalMemory mem;
    Launch l;
    l.grid = {grid, 1, 1};
    l.block = {32, 1, 1};
    l.args.push_back(Arg::buf(mem.add({"o", ElemType::U32, std::vector<std::uint8_t>(4, 0)})));
    Executor ex(m, m.kernels[0], find_preset("hopper-h100"), l, mem);
    ex.run();
    std::uint32_t v = 0;
    std::memcpy(&v, mem.buffers[0].bytes.data(), 4);
    return v;
  };
  const ptx::Module one = ptx::parse(kernel("1, 1, 1"), "one.ptx");
  EXPECT_TRUE(one.kernels[0].explicit_cluster);
  EXPECT_EQ(launch(one, 2), 2u);  // %is_explicit_cluster 1 + %cluster_nctarank 1
  const ptx::Module two = ptx::parse(kernel("2, 1, 1"), "two.ptx");
  EXPECT_EQ(two.kernels[0].cluster[0], 2u);
  EXPECT_EQ(launch(two, 2), 3u);  // 1 + %cluster_nctarank 2 (tests/cluster_test.cpp: more)
  try {
    launch(two, 3);
    ADD_FAILURE() << "3 CTAs in clusters of 2 ran";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("not a whole number"), std::string::npos) << e.what();
  }
}

TEST(Tma, LaunchInitWritesATensorMapSkeletonThatParses) {
  const auto r = cli("launch init " + suite_ptx_dir() + "/tma.ptx --kernel tma_load_2d");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("\"map\","), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[tensor_maps.map]"), std::string::npos) << r.out;
  Workload w = tma_workload(r.out);
  ASSERT_EQ(w.memory.tensor_maps.size(), 1u);
  EXPECT_EQ(w.memory.tensor_maps[0].box_bytes(), 32u * 8 * 4);
}

}  // namespace
}  // namespace smemsim::exec
