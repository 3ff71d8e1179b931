// Texture sampling (issue 15, include/smemsim/texture.hpp) against values worked by hand from the
// CUDA C++ Programming Guide's "Texture Fetching" appendix and the PTX ISA's tld4: nearest-point
// and linear filtering with the 1/256 weights, the four address modes, read modes, channels,
// layers, 3-D, integer coordinates, the gather order, and the checks a launch spec gets.
#include <gtest/gtest.h>

#include <bit>
#include <cstring>

#include "smemsim/error.hpp"
#include "smemsim/exec.hpp"
#include "smemsim/texture.hpp"

namespace smemsim::exec {
namespace {

template <typename T>
Buffer buffer_of(const std::vector<T>& v, ElemType type) {
  Buffer b;
  b.name = "texels";
  b.type = type;
  const auto* p = reinterpret_cast<const std::uint8_t*>(v.data());
  b.bytes.assign(p, p + v.size() * sizeof(T));
  return b;
}

Texture tex1d(std::uint32_t width, TexFilter f = TexFilter::Point) {
  Texture t;
  t.name = "t";
  t.width = width;
  t.filter = f;
  return t;
}

TexCoord at(float x, float y = 0, float z = 0) {
  TexCoord c;
  c.f = {x, y, z};
  return c;
}

float f(std::uint32_t bits) {
  return std::bit_cast<float>(bits);
}

TEST(Texture, NearestPointReadsTheTexelUnderTheCoordinate) {
  const Buffer b = buffer_of<float>({10, 20, 30, 40}, ElemType::F32);
  Texture t = tex1d(4);
  // floor(x): 0.0 and 0.99 are texel 0, 2.5 texel 2; clamp: -3 reads texel 0, 7.2 texel 3.
  EXPECT_EQ(f(tex_sample(t, b, at(0.0f))[0]), 10.0f);
  EXPECT_EQ(f(tex_sample(t, b, at(0.99f))[0]), 10.0f);
  EXPECT_EQ(f(tex_sample(t, b, at(2.5f))[0]), 30.0f);
  EXPECT_EQ(f(tex_sample(t, b, at(-3.0f))[0]), 10.0f);
  EXPECT_EQ(f(tex_sample(t, b, at(7.2f))[0]), 40.0f);
  // border: outside texels read 0.
  t.address.fill(TexAddress::Border);
  EXPECT_EQ(f(tex_sample(t, b, at(-0.5f))[0]), 0.0f);
  EXPECT_EQ(f(tex_sample(t, b, at(4.0f))[0]), 0.0f);
  EXPECT_EQ(f(tex_sample(t, b, at(3.9f))[0]), 40.0f);
  // A one-channel texture's other components read 0.
  const auto all = tex_sample(t, b, at(1.0f));
  EXPECT_EQ(f(all[1]), 0.0f);
  EXPECT_EQ(f(all[3]), 0.0f);
}

TEST(Texture, LinearFilteringUsesTexelCentersAndNinthBitWeights) {
  // The guide's tex(x) = (1-a)T[i] + aT[i+1], x_B = x - 0.5: with T = {0.2, 1.5}, tex(1.0) sits
  // halfway between the two centers: 0.5 * 0.2 + 0.5 * 1.5 = 0.85.
  const Buffer b = buffer_of<float>({0.2f, 1.5f}, ElemType::F32);
  const Texture t = tex1d(2, TexFilter::Linear);
  EXPECT_NEAR(f(tex_sample(t, b, at(1.0f))[0]), 0.85f, 1e-7);
  // At a texel center the weight is 0: tex(1.5) = T[1].
  EXPECT_EQ(f(tex_sample(t, b, at(1.5f))[0]), 1.5f);
  // a is held with 8 fractional bits: x = 0.8 gives a = 0.3, stored as 77/256 (0.30078125), so
  // over T = {0, 256} the fetch returns 77, not 76.8.
  const Buffer ramp = buffer_of<float>({0.0f, 256.0f}, ElemType::F32);
  EXPECT_EQ(f(tex_sample(t, ramp, at(0.8f))[0]), 77.0f);
  // a = 0.001 rounds to 0: T[0] exactly.
  EXPECT_EQ(f(tex_sample(t, ramp, at(0.501f))[0]), 0.0f);
  // Left of the first center, clamp: both taps are T[0]; border: (1-a)*0 + a*T[0] with
  // x = 0.2: x_B = -0.3, i = -1, a = frac(-0.3) = 0.7 -> 179/256; over T[0] = 256: 179.
  EXPECT_EQ(f(tex_sample(t, ramp, at(0.2f))[0]), 0.0f);
  const Buffer flat = buffer_of<float>({256.0f, 256.0f}, ElemType::F32);
  Texture tb = t;
  tb.address.fill(TexAddress::Border);
  EXPECT_EQ(f(tex_sample(tb, flat, at(0.2f))[0]), 179.0f);
}

TEST(Texture, BilinearAndTrilinearAverageTheFootprint) {
  // 2 x 2 texture [1 2; 3 4] (x fastest): at (1, 1) every weight is 1/2, the mean 2.5; at
  // (0.75, 1.25): a = 0.25, b = 0.75: 0.75*0.25*1 + 0.25*0.25*2 + 0.75*0.75*3 + 0.25*0.75*4 = 2.75.
  const Buffer b = buffer_of<float>({1, 2, 3, 4}, ElemType::F32);
  Texture t;
  t.name = "t";
  t.dims = 2;
  t.width = t.height = 2;
  t.filter = TexFilter::Linear;
  EXPECT_EQ(f(tex_sample(t, b, at(1.0f, 1.0f))[0]), 2.5f);
  EXPECT_EQ(f(tex_sample(t, b, at(0.75f, 1.25f))[0]), 2.75f);
  // Normalized coordinates scale by the size: (0.5, 0.5) is (1, 1).
  t.normalized = true;
  EXPECT_EQ(f(tex_sample(t, b, at(0.5f, 0.5f))[0]), 2.5f);
  // 2 x 2 x 2 volume 0..7: its center is the mean 3.5.
  const Buffer v = buffer_of<float>({0, 1, 2, 3, 4, 5, 6, 7}, ElemType::F32);
  Texture t3;
  t3.name = "v";
  t3.dims = 3;
  t3.width = t3.height = t3.depth = 2;
  t3.filter = TexFilter::Linear;
  EXPECT_EQ(f(tex_sample(t3, v, at(1.0f, 1.0f, 1.0f))[0]), 3.5f);
  // Point sampling at (1.5, 0.5, 1.5): texel (1, 0, 1) = 1 + 4 = 5.
  t3.filter = TexFilter::Point;
  EXPECT_EQ(f(tex_sample(t3, v, at(1.5f, 0.5f, 1.5f))[0]), 5.0f);
}

TEST(Texture, WrapAndMirrorWithNormalizedCoordinates) {
  const Buffer b = buffer_of<float>({0, 1, 2, 3}, ElemType::F32);
  Texture t = tex1d(4);
  t.normalized = true;
  // x = 1.3 -> texel coordinate 5.2 -> index 5: wrap 5 mod 4 = 1; mirror: period 8, 5 lies in the
  // reflected half: 2*4 - 1 - 5 = 2. x = -0.1 -> -0.4 -> index -1: wrap 3, mirror 0. x = 1.1 ->
  // 4.4 -> index 4: mirror 3.
  t.address.fill(TexAddress::Wrap);
  EXPECT_EQ(f(tex_sample(t, b, at(1.3f))[0]), 1.0f);
  EXPECT_EQ(f(tex_sample(t, b, at(-0.1f))[0]), 3.0f);
  t.address.fill(TexAddress::Mirror);
  EXPECT_EQ(f(tex_sample(t, b, at(1.3f))[0]), 2.0f);
  EXPECT_EQ(f(tex_sample(t, b, at(-0.1f))[0]), 0.0f);
  EXPECT_EQ(f(tex_sample(t, b, at(1.1f))[0]), 3.0f);
  // Linear with wrap: x = 0 is the left edge, halfway between texel 3 (wrapped) and texel 0.
  t.address.fill(TexAddress::Wrap);
  t.filter = TexFilter::Linear;
  EXPECT_EQ(f(tex_sample(t, b, at(0.0f))[0]), 1.5f);
}

TEST(Texture, ReadModesChannelsAndIntegerCoordinates) {
  // uchar4 texels read normalized: 255 -> 1, 51 -> 0.2, 0 -> 0, 102 -> 0.4.
  const Buffer rgba = buffer_of<std::uint8_t>({255, 51, 0, 102}, ElemType::U8);
  Texture t = tex1d(1);
  t.channels = 4;
  t.read = TexRead::Normalized;
  const auto c = tex_sample(t, rgba, at(0.5f));
  EXPECT_EQ(f(c[0]), 1.0f);
  EXPECT_EQ(f(c[1]), 51.0f / 255.0f);
  EXPECT_EQ(f(c[2]), 0.0f);
  EXPECT_EQ(f(c[3]), 102.0f / 255.0f);
  // Signed 8-bit: 127 -> 1, -128 -> -1 (not -1.0079), -64 -> -64/127.
  const Buffer s8 = buffer_of<std::int8_t>({127, -128, -64}, ElemType::S8);
  Texture ts = tex1d(3);
  ts.read = TexRead::Normalized;
  TexCoord ic;
  ic.integer = true;
  ic.i = {1, 0, 0};
  EXPECT_EQ(f(tex_sample(ts, s8, ic)[0]), -1.0f);
  ic.i = {2, 0, 0};
  EXPECT_EQ(f(tex_sample(ts, s8, ic)[0]), -64.0f / 127.0f);
  // Element read: integers sign-extended to 32 bits, the bit pattern of -64.
  ts.read = TexRead::Element;
  EXPECT_EQ(tex_sample(ts, s8, ic)[0], 0xffffffc0u);
  // Integer coordinates ignore the filter (tex1Dfetch) and clamp: index 9 reads texel 2.
  const Buffer fl = buffer_of<float>({5, 6, 7}, ElemType::F32);
  Texture tl = tex1d(3, TexFilter::Linear);
  ic.i = {9, 0, 0};
  EXPECT_EQ(f(tex_sample(tl, fl, ic)[0]), 7.0f);
}

TEST(Texture, LayersAreClampedAndGatherFollowsThePtxOrder) {
  // Two 2 x 2 layers: layer 0 = [1 2; 3 4], layer 1 = [10 20; 30 40].
  const Buffer b = buffer_of<float>({1, 2, 3, 4, 10, 20, 30, 40}, ElemType::F32);
  Texture t;
  t.name = "stack";
  t.dims = 2;
  t.width = t.height = 2;
  t.layers = 2;
  TexCoord c = at(1.5f, 0.5f);
  c.layer = 1;
  EXPECT_EQ(f(tex_sample(t, b, c)[0]), 20.0f);
  c.layer = 7;  // clamped to the last layer
  EXPECT_EQ(f(tex_sample(t, b, c)[0]), 20.0f);
  // tld4 at (1, 1): x_B = y_B = 0.5, i = j = 0; counter-clockwise from the lower left:
  // T[0,1], T[1,1], T[1,0], T[0,0] = 3, 4, 2, 1 (T[x,y]).
  Texture flat = t;
  flat.layers = 0;
  const auto g = tex_gather(flat, b, at(1.0f, 1.0f), 0);
  EXPECT_EQ(f(g[0]), 3.0f);
  EXPECT_EQ(f(g[1]), 4.0f);
  EXPECT_EQ(f(g[2]), 2.0f);
  EXPECT_EQ(f(g[3]), 1.0f);
  // Component 1 of a one-channel texture reads 0.
  EXPECT_EQ(f(tex_gather(flat, b, at(1.0f, 1.0f), 1)[0]), 0.0f);
}

TEST(Texture, TouchedTexelsAreReportedOnce) {
  const Buffer b = buffer_of<float>({1, 2, 3, 4}, ElemType::F32);
  Texture t = tex1d(4, TexFilter::Linear);
  TexTouched touched;
  (void)tex_sample(t, b, at(2.0f), &touched);  // texels 1 and 2: byte offsets 4 and 8
  ASSERT_EQ(touched.count, 2);
  EXPECT_EQ(touched.offset[0], 4u);
  EXPECT_EQ(touched.offset[1], 8u);
}

std::string check_error(const Texture& t, const Buffer& b) {
  try {
    check_texture(t, b, "s.toml:4: ");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Texture, ImpossibleTexturesAreRefusedWithTheReason) {
  const Buffer ints = buffer_of<std::int32_t>({1, 2, 3, 4}, ElemType::S32);
  Texture t = tex1d(4, TexFilter::Linear);
  EXPECT_EQ(check_error(t, ints),
            "s.toml:4: texture 't': filter = \"linear\" needs float results: f32 texels or read = "
            "\"normalized\" (buffer 'texels' holds s32)");
  t.filter = TexFilter::Point;
  t.read = TexRead::Normalized;
  EXPECT_EQ(check_error(t, ints),
            "s.toml:4: texture 't': read = \"normalized\" applies to 8- and 16-bit integer "
            "texels, buffer 'texels' holds s32");
  t.read = TexRead::Element;
  t.address.fill(TexAddress::Wrap);
  EXPECT_NE(check_error(t, ints).find("wrap and mirror need normalized = true"), std::string::npos);
  t.address.fill(TexAddress::Clamp);
  t.width = 5;
  EXPECT_EQ(check_error(t, ints),
            "s.toml:4: texture 't': 5 texels x 1 channel need 5 elements, buffer 'texels' has 4");
  const Buffer wide = buffer_of<double>({1, 2}, ElemType::F64);
  EXPECT_NE(check_error(tex1d(2), wide).find("CUDA has no 64-bit texel format"), std::string::npos);
  EXPECT_EQ(check_error(tex1d(4), ints), "");
}

}  // namespace
}  // namespace smemsim::exec
