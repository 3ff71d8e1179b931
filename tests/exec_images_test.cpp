// Built-in drivers take photographs as well as generated images: any file stb reads, or a name in
// the image cache (scripts/fetch-images.sh). The test writes its own small colour PPM.
#include <gtest/gtest.h>

#include "test_util.hpp"

namespace smemsim {
namespace {

TEST(ExecImages, HistogramOfAnImageFileMatchesTheCpuReference) {
  std::string ppm = "P6\n48 32\n255\n";
  for (int y = 0; y < 32; ++y)
    for (int x = 0; x < 48; ++x) {
      ppm += static_cast<char>(x * 5);
      ppm += static_cast<char>(y * 7);
      ppm += static_cast<char>((x * y) & 255);
    }
  const std::string f = test::temp_file("image.ppm", ppm);
  const auto r = test::cli("run builtin:histogram --bins 64 --replication 4 --image " + f);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("48x32"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("matches the CPU reference"), std::string::npos) << r.out;
  const auto bad =
      test::cli("run builtin:histogram --image " + test::temp_file("no.png", "not a png"));
  EXPECT_EQ(bad.exit_code, 2) << bad.out;
}

}  // namespace
}  // namespace smemsim
