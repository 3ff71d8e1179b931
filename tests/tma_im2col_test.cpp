// The TMA's im2col mode (issue 46; kernels/tma.cu's tma_im2col_4d, PTX shipped): a 4-D NHWC
// tensor, N = 2, H = 4, W = 4, C = 8 u32 words holding their own index, so pixel (n, h, w)'s
// channel c holds ((n 4 + h) 4 + w) 8 + c. The expected tiles are derived here from the PTX ISA's
// "im2col mode" (the bounding box from the lower corner to dims - 1 + the upper corner along W and
// H, traversed W fastest from the instruction's coordinates, wrapping to the lower corner; the
// offsets move the pixel read, not the box; elements outside the tensor read as zero), worked out
// place by place in each test's comment, not from the implementation's loop.
#include <array>
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

// The launch of tma_im2col_4d at (c, w, h, n) with offsets (ow, oh), `words` words out, and the
// map's keys after `extra`. nvcc declares the int parameters .u32: a negative coordinate is given
// as its 32-bit pattern.
Workload im2col(int c, int w, int h, int n, int ow, int oh, int words, const std::string& extra) {
  Workload wl;
  wl.module = load_suite_ptx(suite_ptx_dir(), "tma", "tma_im2col_test");
  bool g = false, b = false;
  apply_launch_spec_text(
      "kernel = \"tma_im2col_4d\"\nargs = [\"map\", " + std::to_string(c) + ", " +
          std::to_string(std::uint32_t(w)) + ", " + std::to_string(std::uint32_t(h)) + ", " +
          std::to_string(n) + ", " + std::to_string(ow) + ", " + std::to_string(oh) +
          ", \"out\", " + std::to_string(words) +
          "]\n[buffers.t]\ntype = \"u32\"\ncount = 256\ninit = \"iota\"\n[buffers.out]\ntype = "
          "\"u32\"\ncount = 2048\n[tensor_maps.map]\nbuffer = \"t\"\ndims = [8, 4, 4, 2]\nmode = "
          "\"im2col\"\n" +
          extra,
      "im2col.toml", wl, g, b);
  wl.launch.grid = {1, 1, 1};
  wl.launch.block = {128, 1, 1};
  return wl;
}

std::vector<std::uint32_t> out_words(const Workload& w) {
  const Buffer& b = *w.memory.find("out");
  std::vector<std::uint32_t> v(b.bytes.size() / 4);
  std::memcpy(v.data(), b.bytes.data(), b.bytes.size());
  return v;
}

// The tile of `places` (n, h, w) read places, 8 channels each: the pixel's words, or 0 outside.
std::vector<std::uint32_t> tile_of(const std::vector<std::array<int, 3>>& places) {
  std::vector<std::uint32_t> t;
  for (const auto& [n, h, w] : places)
    for (int c = 0; c < 8; ++c) {
      const bool in = n >= 0 && n < 2 && h >= 0 && h < 4 && w >= 0 && w < 4;
      t.push_back(in ? std::uint32_t(((n * 4 + h) * 4 + w) * 8 + c) : 0u);
    }
  return t;
}

void run_it(Workload& w) {
  Executor ex(w.module, find_kernel(w.module, w.kernel), find_preset("hopper-h100"), w.launch,
              w.memory);
  ex.run();
}

const std::string kPadded =  // a 3 x 3 filter with padding 1: the box is [-1, 2] along W and H
    "pixel_box_lower_corner = [-1, -1]\npixel_box_upper_corner = [-1, -1]\n"
    "channels_per_pixel = 8\n";

TEST(TmaIm2col, PixelsFollowTheBoxAndTheOffsetsMoveTheRead) {
  // From (c 0, w -1, h -1, n 0), 8 pixels: the places (h, w) are (-1, -1), (-1, 0), (-1, 1),
  // (-1, 2) (W reaches the box's end, 4 - 1 - 1 = 2), then (0, -1), (0, 0), (0, 1), (0, 2).
  // Offsets (0, 0): the first five are padding (zeros), then pixels (0,0,0), (0,0,1), (0,0,2).
  Workload a = im2col(0, -1, -1, 0, 0, 0, 64, kPadded + "pixels_per_column = 8\n");
  run_it(a);
  std::vector<std::uint32_t> got = out_words(a);
  got.resize(64);
  EXPECT_EQ(got, tile_of({{0, -1, -1},
                          {0, -1, 0},
                          {0, -1, 1},
                          {0, -1, 2},
                          {0, 0, -1},
                          {0, 0, 0},
                          {0, 0, 1},
                          {0, 0, 2}}));
  EXPECT_EQ(out_words(a)[64], 0u);  // 8 x 8 words, no more
  // Offsets (w 1, h 2): the same places read one pixel right and two down, all inside:
  // (1, 0) (1, 1) (1, 2) (1, 3) (2, 0) (2, 1) (2, 2) (2, 3).
  Workload b = im2col(0, -1, -1, 0, 1, 2, 64, kPadded + "pixels_per_column = 8\n");
  run_it(b);
  got = out_words(b);
  got.resize(64);
  EXPECT_EQ(got, tile_of({{0, 1, 0},
                          {0, 1, 1},
                          {0, 1, 2},
                          {0, 1, 3},
                          {0, 2, 0},
                          {0, 2, 1},
                          {0, 2, 2},
                          {0, 2, 3}}));
}

TEST(TmaIm2col, TheTraversalStridesAndWrapsIntoTheNextImage) {
  // element_strides [1, 2, 1, 1]: W steps by 2 from -1: -1, 1, then 3 passes 2 and W wraps to
  // -1 while H steps. Each image has 2 x 4 = 8 places; 12 pixels run into image 1:
  // image 0: (-1,-1) (-1,1) (0,-1) (0,1) (1,-1) (1,1) (2,-1) (2,1); image 1: (-1,-1) (-1,1)
  // (0,-1) (0,1). Inside: h and w in [0, 4).
  Workload w = im2col(0, -1, -1, 0, 0, 0, 96,
                      kPadded + "pixels_per_column = 12\nelement_strides = [1, 2, 1, 1]\n");
  run_it(w);
  std::vector<std::uint32_t> got = out_words(w);
  got.resize(96);
  std::vector<std::array<int, 3>> places;
  for (int n = 0; n < 2; ++n)
    for (int h = -1; h <= 2; ++h)
      for (int x : {-1, 1})
        if (places.size() < 12) places.push_back({n, h, x});
  EXPECT_EQ(got, tile_of(places));
  // The same under the cycle model (the copy lands when its L2 reads complete).
  Workload t = im2col(0, -1, -1, 0, 0, 0, 96,
                      kPadded + "pixels_per_column = 12\nelement_strides = [1, 2, 1, 1]\n");
  timing::GpuSim sim(t.module, find_kernel(t.module, t.kernel), find_preset("hopper-h100"),
                     t.launch, t.memory, {});
  sim.run();
  got = out_words(t);
  got.resize(96);
  EXPECT_EQ(got, tile_of(places));
}

TEST(TmaIm2col, ChannelsStartAtTheCoordinateAndPastTheEndReadZero) {
  // c = 4 with 8 channels a pixel: channels 4..7 of each pixel, then 8..11, past C = 8: zeros.
  // One pixel from (w 1, h 1): pixel (0, 1, 1), words 5 8 + 4 .. 5 8 + 7.
  Workload w = im2col(4, 1, 1, 0, 0, 0, 8, kPadded + "pixels_per_column = 1\n");
  run_it(w);
  const std::vector<std::uint32_t> got = out_words(w);
  for (int c = 0; c < 8; ++c)
    EXPECT_EQ(got[std::size_t(c)], c < 4 ? std::uint32_t(40 + 4 + c) : 0u) << c;
}

TEST(TmaIm2col, AStoreWritesTheRowsBackToTheirPixels) {
  // cp.async.bulk.tensor.3d ... .im2col_no_offs from a 64-word tile holding 1000 + its index, to
  // an NWC tensor (C 8, W 6, N 2, zeros) with the box W in [1, 6 - 1 + 0] = [1, 5], from
  // (c 0, w 1, n 0), 8 pixels: rows 0..4 are image 0's W 1..5, rows 5..7 image 1's W 1..3. So
  // element (n, w, c) = 1000 + 8 row + c for those places; W 0 and image 1's W 4, 5 stay 0.
  Workload wl;
  wl.module = ptx::parse(
      ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry st(.param .align 64 .b8 "
      "map[128])\n{\n.reg .pred %p<2>;\n.reg .b32 %r<8>;\n.reg .b64 %rd<2>;\n.shared .align 1024 "
      ".b32 tile[64];\nmov.u32 %r1, %tid.x;\nmov.u32 %r2, tile;\nshl.b32 %r3, %r1, 2;\nadd.u32 "
      "%r4, %r2, %r3;\nadd.u32 %r5, %r1, 1000;\nst.shared.u32 [%r4], %r5;\n"
      "fence.proxy.async.shared::cta;\nbar.sync 0;\nsetp.ne.u32 %p1, %r1, 0;\n@%p1 bra DONE;\n"
      "mov.b64 %rd1, map;\ncvta.param.u64 %rd1, %rd1;\nmov.u32 %r6, 1;\n"
      "cp.async.bulk.tensor.3d.global.shared::cta.im2col_no_offs.bulk_group [%rd1, {0, %r6, 0}], "
      "[%r2];\ncp.async.bulk.commit_group;\ncp.async.bulk.wait_group 0;\nDONE:\nret;\n}\n",
      "store.ptx");
  bool g = false, b = false;
  apply_launch_spec_text(
      "kernel = \"st\"\ngrid = 1\nblock = 64\nargs = [\"map\"]\n[buffers.t]\ntype = \"u32\"\n"
      "count = 96\n[tensor_maps.map]\nbuffer = \"t\"\ndims = [8, 6, 2]\nmode = \"im2col\"\n"
      "pixel_box_lower_corner = [1]\npixel_box_upper_corner = [0]\nchannels_per_pixel = 8\n"
      "pixels_per_column = 8\n",
      "store.toml", wl, g, b);
  run_it(wl);
  const Buffer& t = *wl.memory.find("t");
  std::vector<std::uint32_t> got(96);
  std::memcpy(got.data(), t.bytes.data(), 96 * 4);
  for (int n = 0; n < 2; ++n)
    for (int w = 0; w < 6; ++w) {
      const int row = w == 0 ? -1 : n == 0 ? w - 1 : w <= 3 ? 5 + w - 1 : -1;
      for (int c = 0; c < 8; ++c)
        EXPECT_EQ(got[std::size_t((n * 6 + w) * 8 + c)],
                  row < 0 ? 0u : std::uint32_t(1000 + 8 * row + c))
            << n << " " << w << " " << c;
    }
}

TEST(TmaIm2col, BadMapsAndCopiesAreOneLineErrors) {
  const auto fails = [](const std::string& extra, const std::string& want) {
    try {
      Workload w = im2col(0, 0, 0, 0, 0, 0, 8, extra);
      run_it(w);
      ADD_FAILURE() << "accepted: " << extra;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    }
  };
  fails(
      "pixel_box_lower_corner = [-1]\npixel_box_upper_corner = [-1, -1]\nchannels_per_pixel = "
      "8\npixels_per_column = 8\n",
      "'pixel_box_lower_corner' must list 2 integers (W first)");
  // A rank-4 map's corners are 8-bit: -128 to 127 (cuda.h).
  fails(
      "pixel_box_lower_corner = [-200, 0]\npixel_box_upper_corner = [0, 0]\nchannels_per_pixel "
      "= 8\npixels_per_column = 8\n",
      "a rank-4 map's corners are -128 to 127");
  fails(kPadded + "pixels_per_column = 8\nbox = [8, 1, 1, 1]\n", "an im2col map has no box");
  fails(kPadded + "pixels_per_column = 2000\n", "'pixels_per_column' must be an integer from 1");
  fails(
      "pixel_box_lower_corner = [2, 0]\npixel_box_upper_corner = [-2, 0]\nchannels_per_pixel "
      "= 8\npixels_per_column = 8\n",
      "the bounding box is empty along W");
  fails(
      "pixel_box_lower_corner = [0, 0]\npixel_box_upper_corner = [0, 0]\nchannels_per_pixel = "
      "2\npixels_per_column = 8\n",
      "a pixel's channels are 8 bytes");
  // A tiled copy (tma_load_3d's) of an im2col map is the executor's error, at the copy.
  try {
    Workload w;
    w.module = load_suite_ptx(suite_ptx_dir(), "tma", "tma_im2col_test");
    bool g = false, b = false;
    apply_launch_spec_text(
        "kernel = \"tma_load_3d\"\nargs = [\"map\", 0, 0, 0, \"out\", 8]\n[buffers.t]\ntype = "
        "\"u32\"\ncount = 64\n[buffers.out]\ntype = \"u32\"\ncount = 2048\n[tensor_maps.map]\n"
        "buffer = \"t\"\ndims = [8, 4, 2]\nmode = \"im2col\"\npixel_box_lower_corner = [0]\n"
        "pixel_box_upper_corner = [0]\nchannels_per_pixel = 8\npixels_per_column = 1\n",
        "im2col.toml", w, g, b);
    w.launch.grid = {1, 1, 1};
    w.launch.block = {128, 1, 1};
    run_it(w);
    ADD_FAILURE() << "ran";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("a .tile copy of an im2col"), std::string::npos)
        << e.what();
  }
}

TEST(TmaIm2col, LaunchInitWritesAnIm2colMapThatParses) {
  const auto r = test::cli("launch init " + suite_ptx_dir() + "/tma.ptx --kernel tma_im2col_4d");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("mode = \"im2col\""), std::string::npos) << r.out;
  Workload w;
  w.module = load_suite_ptx(suite_ptx_dir(), "tma", "tma_im2col_test");
  bool g = false, b = false;
  apply_launch_spec_text(r.out, "init.toml", w, g, b);
  ASSERT_EQ(w.memory.tensor_maps.size(), 1u);
  EXPECT_TRUE(w.memory.tensor_maps[0].im2col);
  EXPECT_EQ(w.memory.tensor_maps[0].box_bytes(), 64u * 64 * 4);  // 64 pixels of 64 f32 channels
}

TEST(TmaIm2col, DecoderReadsTheOffsetsAndRejectsMalformedForms) {
  const auto module = test::sm90_line;
  // The forms print as written (messages and listings quote them).
  for (const char* line :
       {"cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%r1], "
        "[%rd1, {%r2, %r3, %r4, %r5}], [%r6], {%rs1, %rs2};",
        "cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes"
        ".multicast::cluster [%r1], [%rd1, {%r2, %r3, %r4}], [%r6], {%rs1}, %rs3;",
        "cp.async.bulk.tensor.4d.global.shared::cta.im2col_no_offs.bulk_group [%rd1, {%r2, %r3, "
        "%r4, %r5}], [%r6];",
        "cp.async.bulk.prefetch.tensor.5d.L2.global.im2col [%rd1, {%r1, %r2, %r3, %r4, %r5}], "
        "{%rs1, %rs2, %rs3};"}) {
    const ptx::Module m = module(line);
    ASSERT_EQ(m.kernels[0].unsupported.size(), 0u) << line;
    EXPECT_EQ(ptx::to_string(m.kernels[0], m.kernels[0].code[0]), line);
  }
  const std::pair<const char*, const char*> malformed[] = {
      {"cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%r1], "
       "[%rd1, {%r2, %r3, %r4, %r5}], [%r6], {%rs1};",
       "needs 2 im2col offsets"},
      {"cp.async.bulk.tensor.2d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%r1], "
       "[%rd1, {%r2, %r3}], [%r6], {%rs1};",
       "the im2col modes are .3d to .5d"},
      {"cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%r1], "
       "[%rd1, {%r2, %r3, %r4}], [%r6], {%r1};",
       "the im2col offsets are 16-bit registers"},
      {"cp.async.bulk.tensor.3d.global.shared::cta.im2col.bulk_group [%rd1, {%r2, %r3, %r4}], "
       "[%r6];",
       "a store or reduction takes .im2col_no_offs"},
      {"cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r1], "
       "[%rd1, {%r2, %r3, %r4}], [%r6], {%rs1};",
       "more operands than its modifiers take"}};
  for (const auto& [line, why] : malformed) {
    try {
      (void)module(line);
      ADD_FAILURE() << "accepted: " << line;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace smemsim::exec
