// Texture objects and named barriers in real kernels (tests/corpus/textures.cu,
// named_barriers.cu; issue 15 items 1 and 6): each kernel against a CPU reference written from the
// CUDA Programming Guide's texture-fetching formulas (in double, independently of
// src/exec/texture.cpp), under the executor and the cycle-level model; the launch spec's
// [textures] through the CLI, and bad input: a texture argument that is not a texture, a texture
// for a scalar parameter, a geometry or result type the texture does not have. Skips without nvcc.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <vector>

#include <gtest/gtest.h>

#include "corpus_test_util.hpp"
#include "kernel_test_util.hpp"
#include "smemsim/timing.hpp"
#include "test_util.hpp"

namespace smemsim::exec {
namespace {

using namespace corpus;
using test::cli;
using test::temp_file;

std::vector<float> random_floats(std::size_t n, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> d(-4.0f, 4.0f);
  std::vector<float> v(n);
  for (float& x : v) x = d(g);
  return v;
}

Texture shape2d(std::uint32_t w, std::uint32_t h) {
  Texture t;
  t.dims = 2;
  t.width = w;
  t.height = h;
  return t;
}

TEST(ExecTextureCorpus, LookupTableThroughTex1DfetchWithBorderAddressing) {
  SKIP_WITHOUT_NVCC();
  const Ints lut = random_ints(256, -1000, 1000, 3);
  const Ints idx = random_ints(300, -20, 275, 4);  // some outside the table
  Texture t;
  t.width = 256;
  t.address.fill(TexAddress::Border);
  Launcher l("textures");
  l.texture("lut", lut, ElemType::S32, t).buffer("idx", idx).buffer("out", Ints(300)).value(300);
  l.run("lut_fetch", 3, 128);
  const Ints out = l.get("out");
  for (std::size_t i = 0; i < 300; ++i) {
    const int k = idx[i];
    EXPECT_EQ(out[i], k < 0 || k >= 256 ? 0 : lut[std::size_t(k)]) << i;  // border reads 0
  }
}

// Bilinear sample of a w x h float image at texel coordinate (x, y), edges clamped: the guide's
// formula with weights 1/4 and 3/4 (exact in 9-bit fixed point), in double.
double bilinear(const std::vector<float>& img, int w, int h, double x, double y) {
  const double xb = x - 0.5, yb = y - 0.5;
  const int i = int(std::floor(xb)), j = int(std::floor(yb));
  const double a = xb - i, b = yb - j;
  auto T = [&](int xi, int yi) {
    xi = std::clamp(xi, 0, w - 1);
    yi = std::clamp(yi, 0, h - 1);
    return double(img[std::size_t(yi * w + xi)]);
  };
  return (1 - a) * (1 - b) * T(i, j) + a * (1 - b) * T(i + 1, j) + (1 - a) * b * T(i, j + 1) +
         a * b * T(i + 1, j + 1);
}

TEST(ExecTextureCorpus, BilinearUpscaleWithNormalizedCoordinates) {
  SKIP_WITHOUT_NVCC();
  const int w = 8, h = 6;
  const std::vector<float> img = random_floats(w * h, 5);
  Texture t = shape2d(w, h);
  t.filter = TexFilter::Linear;
  t.normalized = true;
  Launcher l("textures");
  l.texture("img", img, ElemType::F32, t)
      .raw("out", std::vector<float>(4 * w * h), ElemType::F32)
      .value(w)
      .value(h);
  l.run("upscale2x", Dim3{2, 2, 1}, Dim3{8, 8, 1});
  const std::vector<float> out = l.got<float>("out");
  // Output pixel (x, y) samples texel coordinate ((x + 0.5) / 2, (y + 0.5) / 2).
  for (int y = 0; y < 2 * h; ++y)
    for (int x = 0; x < 2 * w; ++x)
      EXPECT_NEAR(out[std::size_t(y * 2 * w + x)],
                  bilinear(img, w, h, (x + 0.5) / 2, (y + 0.5) / 2), 1e-5)
          << x << "," << y;
}

TEST(ExecTextureCorpus, BoxFilterStagesAClampedTileInSharedMemory) {
  SKIP_WITHOUT_NVCC();
  const int w = 40, h = 24;  // partial blocks at the right and bottom
  const std::vector<float> img = random_floats(w * h, 6);
  Launcher l("textures");
  l.texture("img", img, ElemType::F32, shape2d(w, h))
      .raw("out", std::vector<float>(w * h), ElemType::F32)
      .value(w)
      .value(h);
  l.run("box3x3", Dim3{3, 2, 1}, Dim3{16, 16, 1});
  const std::vector<float> out = l.got<float>("out");
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      double s = 0;
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx)
          s += img[std::size_t(std::clamp(y + dy, 0, h - 1) * w + std::clamp(x + dx, 0, w - 1))];
      EXPECT_NEAR(out[std::size_t(y * w + x)], s / 9, 1e-5) << x << "," << y;
    }
}

TEST(ExecTextureCorpus, NormalizedUchar4GatherLayersAndVolume) {
  SKIP_WITHOUT_NVCC();
  {  // uchar4 read as normalized floats: gray = 0.25 r + 0.5 g + 0.125 b + 0.125 a, over 255.
    const int w = 5, h = 3;
    const Ints bytes = random_ints(4 * w * h, 0, 255, 7);
    std::vector<std::uint8_t> rgba(bytes.begin(), bytes.end());
    Texture t = shape2d(w, h);
    t.channels = 4;
    t.read = TexRead::Normalized;
    Launcher l("textures");
    l.texture("rgba", rgba, ElemType::U8, t)
        .raw("out", std::vector<float>(w * h), ElemType::F32)
        .value(w)
        .value(h);
    l.run("rgba_to_gray", Dim3{1, 1, 1}, Dim3{8, 4, 1});
    const std::vector<float> out = l.got<float>("out");
    for (int p = 0; p < w * h; ++p) {
      const auto c = [&](int k) { return rgba[std::size_t(4 * p + k)] / 255.0; };
      EXPECT_NEAR(out[std::size_t(p)], 0.25 * c(0) + 0.5 * c(1) + 0.125 * c(2) + 0.125 * c(3), 1e-6)
          << p;
    }
  }
  {  // tld4 at (x + 1, y + 1) of a 5 x 5 texture of digits: x_B = x + 0.5, so i = x, j = y and the
     // gather is T[x, y+1], T[x+1, y+1], T[x+1, y], T[x, y].
    const Ints d = random_ints(25, 0, 9, 8);
    const std::vector<float> img(d.begin(), d.end());
    Launcher l("textures");
    l.texture("img", img, ElemType::F32, shape2d(5, 5))
        .raw("out", std::vector<float>(16), ElemType::F32)
        .value(4)
        .value(4);
    l.run("gather4", Dim3{1, 1, 1}, Dim3{4, 4, 1});
    const std::vector<float> out = l.got<float>("out");
    const auto T = [&](int x, int y) { return img[std::size_t(y * 5 + x)]; };
    for (int y = 0; y < 4; ++y)
      for (int x = 0; x < 4; ++x)
        EXPECT_EQ(out[std::size_t(y * 4 + x)],
                  T(x, y + 1) + 10 * T(x + 1, y + 1) + 100 * T(x + 1, y) + 1000 * T(x, y))
            << x << "," << y;
  }
  {  // Three 4 x 4 layers summed per pixel; a 4 x 4 x 4 volume read voxel by voxel.
    const Ints d = random_ints(48, -50, 50, 9);
    const std::vector<float> stack(d.begin(), d.end());
    Texture t = shape2d(4, 4);
    t.layers = 3;
    Launcher l("textures");
    l.texture("stack", stack, ElemType::F32, t)
        .raw("out", std::vector<float>(16), ElemType::F32)
        .value(4)
        .value(4)
        .value(3);
    l.run("layer_sum", Dim3{1, 1, 1}, Dim3{4, 4, 1});
    const std::vector<float> out = l.got<float>("out");
    for (std::size_t p = 0; p < 16; ++p)
      EXPECT_EQ(out[p], stack[p] + stack[16 + p] + stack[32 + p]) << p;
    const std::vector<float> vol = random_floats(64, 10);
    Texture v;
    v.dims = 3;
    v.width = v.height = v.depth = 4;
    Launcher lv("textures");
    lv.texture("vol", vol, ElemType::F32, v)
        .raw("out", std::vector<float>(64), ElemType::F32)
        .value(4);
    lv.run("volume_read", Dim3{4, 1, 1}, Dim3{4, 4, 1});
    EXPECT_EQ(lv.got<float>("out"), vol);
  }
}

// producer_consumer's results: out[64 b + c] = 3 in[64 b + 63 - (c ^ 32)] + 1; counts per block:
// __syncthreads_count(v > 50) over 128 threads (each value twice), _and(v >= 0), _or(v > 98).
void expect_producer_consumer(const Ints& in, const Ints& out, const Ints& counts) {
  for (int b = 0; b < 2; ++b) {
    int n = 0, any = 0;
    for (int c = 0; c < 64; ++c) {
      EXPECT_EQ(out[std::size_t(64 * b + c)], 3 * in[std::size_t(64 * b + 63 - (c ^ 32))] + 1)
          << b << " " << c;
      n += in[std::size_t(64 * b + c)] > 50 ? 2 : 0;
      any |= in[std::size_t(64 * b + c)] > 98 ? 1 : 0;
    }
    EXPECT_EQ(counts[std::size_t(3 * b)], n);
    EXPECT_EQ(counts[std::size_t(3 * b + 1)], 1);
    EXPECT_EQ(counts[std::size_t(3 * b + 2)], any);
  }
}

TEST(ExecTextureCorpus, NamedBarriersArriveSyncAndReduce) {
  SKIP_WITHOUT_NVCC();
  const Ints in = random_ints(128, 0, 99, 12);
  Launcher l("named_barriers");
  l.buffer("in", in).buffer("out", Ints(128)).buffer("counts", Ints(6));
  l.run("producer_consumer", 2, 128);
  expect_producer_consumer(in, l.get("out"), l.get("counts"));
  // The same on the cycle-level model: bar.arrive does not wait, bar.sync 1, 128 waits for the
  // producers, and bar.red's result reaches every waiting warp.
  Launcher lt("named_barriers");
  lt.buffer("in", in).buffer("out", Ints(128)).buffer("counts", Ints(6));
  lt.launch.grid = {2, 1, 1};
  lt.launch.block = {128, 1, 1};
  timing::GpuSim sim(lt.module, find_kernel(lt.module, "producer_consumer"), default_arch(),
                     lt.launch, lt.mem, {});
  EXPECT_GT(sim.run().cycles, 0u);
  expect_producer_consumer(in, lt.get("out"), lt.get("counts"));
}

const std::string kTexPtx = std::string(SMEMSIM_CORPUS_PTX_DIR) + "/textures.ptx";

// A spec running upscale2x on a 4 x 2 iota image, `extra` appended.
std::string upscale_spec(const std::string& name, const std::string& args,
                         const std::string& texture, const std::string& out) {
  return temp_file(name, "kernel = \"upscale2x\"\ngrid = [1, 1]\nblock = [8, 4]\nargs = " + args +
                             "\n[buffers.pixels]\ntype = \"f32\"\ncount = 8\ninit = \"iota\"\n"
                             "[buffers.out]\ntype = \"f32\"\ncount = 32\nwrite = \"" +
                             out + "\"\n" + texture);
}

TEST(ExecTextureCorpus, LaunchSpecTexturesThroughTheCli) {
  SKIP_WITHOUT_NVCC();
  const std::string out = ::testing::TempDir() + "smemsim_upscale.txt";
  const std::string tex =
      "[textures.img]\nbuffer = \"pixels\"\nsize = [4, 2]\nfilter = \"linear\"\n"
      "normalized = true\n";
  test::CliResult r = cli("run " + kTexPtx + " --launch " +
                          upscale_spec("tex1.toml", "[\"img\", \"out\", 4, 2]", tex, out));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  std::ifstream f(out);
  std::vector<float> img{0, 1, 2, 3, 4, 5, 6, 7};
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 8; ++x) {
      double v = 0;
      ASSERT_TRUE(f >> v);
      EXPECT_NEAR(v, bilinear(img, 4, 2, (x + 0.5) / 2, (y + 0.5) / 2), 1e-5) << x << "," << y;
    }
  // A number where the kernel expects a texture object: the tex instruction names the problem.
  r = cli("run " + kTexPtx + " --launch " +
          upscale_spec("tex2.toml", "[0, \"out\", 4, 2]", tex, out));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("texture object 0x0 in %rd1 is not a texture of the launch (declare "
                       "[textures.NAME] in the launch spec and pass NAME as the argument)"),
            std::string::npos)
      << r.out;
  // The kernel's line, not the lines of texture_indirect_functions.h that nvcc inlined it from.
  EXPECT_NE(r.out.find("(textures.cu:20)"), std::string::npos) << r.out;
  // A texture where the kernel expects an int.
  r = cli("run " + kTexPtx + " --launch " +
          upscale_spec("tex3.toml", "[\"img\", \"out\", \"img\", 2]", tex, out));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("parameter 3 (_Z9upscale2xyPfii_param_2, .u32): a texture is passed to a "
                       "parameter that is not a 64-bit cudaTextureObject_t"),
            std::string::npos)
      << r.out;
  // Linear filtering of integer texels, and an unknown buffer: the spec's line.
  r = cli("run " + kTexPtx + " --launch " +
          upscale_spec("tex4.toml", "[\"img\", \"out\", 4, 2]",
                       "[buffers.ints]\ntype = \"s32\"\ncount = 8\n[textures.img]\nbuffer = "
                       "\"ints\"\nsize = [4, 2]\nfilter = \"linear\"\n",
                       out));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("tex4.toml:16: texture 'img': filter = \"linear\" needs float results"),
            std::string::npos)
      << r.out;
  r = cli("run " + kTexPtx + " --launch " +
          upscale_spec("tex5.toml", "[\"img\", \"out\", 4, 2]",
                       "[textures.img]\nbuffer = \"nope\"\n", out));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("tex5.toml:14: texture 'img': no buffer named 'nope'"), std::string::npos)
      << r.out;
  // A 1-D texture given to tex2D: the geometry is named at the instruction.
  r = cli("run " + kTexPtx + " --launch " +
          upscale_spec("tex6.toml", "[\"img\", \"out\", 4, 2]",
                       "[textures.img]\nbuffer = \"pixels\"\n", out));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("tex.2d on texture 'img', which is 1-D"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace smemsim::exec
