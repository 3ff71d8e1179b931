// Launch-spec buffers of f16 and bf16 elements (issue 16): numbers are stored rounded to nearest
// even, written out as their exact values. Expected patterns derived by hand from IEEE binary16
// (1 sign, 5 exponent bits biased by 15, 10 mantissa bits) and bfloat16 (8 exponent bits biased by
// 127, 7 mantissa bits).
#include <cstdint>
#include <cstring>
#include <string>

#include <gtest/gtest.h>

#include "smemsim/error.hpp"
#include "smemsim/workloads.hpp"

namespace smemsim::exec {
namespace {

std::uint16_t element(const Buffer& b, std::size_t i) {
  std::uint16_t v;
  std::memcpy(&v, b.bytes.data() + 2 * i, 2);
  return v;
}

TEST(HalfBuffers, ValuesAreRoundedToNearestEvenAndWrittenExactly) {
  Workload w;
  bool g = false, bl = false;
  // 1 = 0x3c00; -2 = 0xc000; 0.1 = 1.6 x 2^-4: 0.6 x 1024 = 614.4 mantissa units, rounded to 614:
  // 0x2e66 (0.0999755859375); 1 + 2^-11 is the tie between 0x3c00 and 0x3c01: even,
  // 0x3c00; 65519 is below the midpoint 65520 between the largest finite (65504, 0x7bff) and 2^16:
  // it rounds down to 0x7bff. 65520 would round to infinity: that value is refused (issue 28).
  apply_launch_spec_text(
      "args = [\"h\", \"b\"]\n[buffers.h]\ntype = \"f16\"\ninit = \"values\"\nvalues = [1, -2, "
      "0.1, 1.00048828125, "
      "65519]\n[buffers.b]\ntype = \"bf16\"\ninit = \"values\"\nvalues = [1, 0.1, 3]\n",
      "t.toml", w, g, bl);
  try {
    Workload w2;
    apply_launch_spec_text(
        "args = [\"h\"]\n[buffers.h]\ntype = \"f16\"\ninit = \"values\"\nvalues = [65520]\n",
        "u.toml", w2, g, bl);
    ADD_FAILURE() << "65520 in an f16 accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("values[0] = 65520 rounds to infinity in f16"),
              std::string::npos)
        << e.what();
  }
  const Buffer& h = *w.memory.find("h");
  ASSERT_EQ(h.bytes.size(), 10u);
  EXPECT_EQ(element(h, 0), 0x3c00);
  EXPECT_EQ(element(h, 1), 0xc000);
  EXPECT_EQ(element(h, 2), 0x2e66);
  EXPECT_EQ(element(h, 3), 0x3c00);
  EXPECT_EQ(element(h, 4), 0x7bff);
  EXPECT_EQ(element_string(h, 2), "0.0999755859375");
  EXPECT_EQ(element_string(h, 4), "65504");
  // bf16: 1 = 0x3f80; 0.1 = 1.6 x 2^-4, 0.6 x 128 = 76.8 mantissa units, rounded to 77: 0x3dcd
  // (0.10009765625; 0x3dcc, 0.099609375, is farther); 3 = 0x4040.
  const Buffer& b = *w.memory.find("b");
  EXPECT_EQ(element(b, 0), 0x3f80);
  EXPECT_EQ(element(b, 1), 0x3dcd);
  EXPECT_EQ(element(b, 2), 0x4040);
  EXPECT_EQ(element_string(b, 1), "0.10009765625");
  EXPECT_EQ(elem_bytes(parse_elem_type("half", "t")), 2);
  EXPECT_THROW(parse_elem_type("f8", "t"), InputError);
}

}  // namespace
}  // namespace smemsim::exec
