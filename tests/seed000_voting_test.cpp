// Seed 000 §V.B-§V.C (issue 14): the voting studies' inputs (photographs brought to 1,536 x 1,024,
// a generated photograph-like image), the lock hash under both readings, and 000's qualitative
// findings on generated images.
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "smemsim/error.hpp"
#include "smemsim/images.hpp"
#include "smemsim/study.hpp"
#include "study_test_util.hpp"

namespace smemsim {
namespace {

using study::Table;
using test::at;
using test::run_all;

TEST(Images, FitCropsToTheAspectAndAveragesTheArea) {
  images::Gray12 in;
  in.name = "x";
  // 6 x 2, row y: value 10 x + y. Fit to 2 x 1: the centred 2:1 crop is columns 1..4; output
  // pixel 0 averages columns 1-2 of both rows: (10 + 11 + 20 + 21) / 4 = 15.5 -> 16 (rounded);
  // pixel 1 columns 3-4: (30 + 31 + 40 + 41) / 4 = 35.5 -> 36.
  in.width = 6;
  in.height = 2;
  for (int y = 0; y < 2; ++y)
    for (int x = 0; x < 6; ++x) in.px.push_back(static_cast<std::uint16_t>(10 * x + y));
  const auto out = images::fit(in, 2, 1);
  ASSERT_EQ(out.width, 2);
  ASSERT_EQ(out.height, 1);
  EXPECT_EQ(out.px, (std::vector<std::uint16_t>{16, 36}));
  EXPECT_EQ(out.name, "x");
  // A taller image loses rows: 2 x 6 to 2 x 2 is the centred square, rows 2..3 as they are; to
  // 1 x 1 the same square averaged: (200 + 201 + 300 + 301) / 4 = 250.5 -> 251.
  images::Gray12 tall{"t", 2, 6, {}};
  for (int y = 0; y < 6; ++y)
    for (int x = 0; x < 2; ++x) tall.px.push_back(static_cast<std::uint16_t>(100 * y + x));
  EXPECT_EQ(images::fit(tall, 2, 2).px, (std::vector<std::uint16_t>{200, 201, 300, 301}));
  EXPECT_EQ(images::fit(tall, 1, 1).px, (std::vector<std::uint16_t>{251}));
  // The same size is returned as it is; an enlargement repeats pixels.
  EXPECT_EQ(images::fit(in, 6, 2).px, in.px);
  EXPECT_EQ(images::fit(images::Gray12{"s", 1, 1, {7}}, 3, 2).px,
            (std::vector<std::uint16_t>(6, 7)));
}

// Most common bin of each warp of 32 consecutive pixels, averaged over the warps (the position
// conflicts a vote at R = 1 has).
double mean_top_bin(const images::Gray12& g, int bins) {
  const int shift = 12 - std::countr_zero(static_cast<unsigned>(bins));
  double sum = 0;
  std::size_t n = 0;
  for (std::size_t b = 0; b + 32 <= g.px.size(); b += 32, ++n) {
    std::map<int, int> c;
    int top = 0;
    for (std::size_t l = 0; l < 32; ++l) top = std::max(top, ++c[g.px[b + l] >> shift]);
    sum += top;
  }
  return sum / double(n);
}

TEST(Images, GeneratedPhotoHasAPhotographsBinStatistics) {
  const auto a = images::generate("photo", 1536, 1024, 5),
             b = images::generate("photo", 1536, 1024, 5);
  EXPECT_EQ(a.px, b.px);  // seeded
  EXPECT_NE(images::generate("photo", 1536, 1024, 6).px, a.px);
  // The ranges of the eleven mate-nature photographs brought to 1,536 x 1,024 (docs/studies.md):
  // 16-27, 5-12 and 3-10 pixels on the warp's most common bin at 32, 256 and 1,024 bins.
  EXPECT_GT(mean_top_bin(a, 32), 16);
  EXPECT_LT(mean_top_bin(a, 32), 27);
  EXPECT_GT(mean_top_bin(a, 256), 5);
  EXPECT_LT(mean_top_bin(a, 256), 12);
  EXPECT_GT(mean_top_bin(a, 1024), 3);
  EXPECT_LT(mean_top_bin(a, 1024), 10);
  std::set<std::uint16_t> levels(a.px.begin(), a.px.end());
  EXPECT_GT(levels.size(), 2000u);  // 12-bit levels, not 256
}

// Seed 000 §V.B with the lock hash on the lock-within-bank bits (the Fermi presets' reading) and
// 1,536 x 1,024 inputs (a generated photograph): the hash speed-up grows with R; with padding XOR
// loses at 32 bins and not elsewhere; ADD does not lose at 32 bins.
TEST(Seed000SectionVB, FindingsHoldOnAPhotographLikeImageAt1536x1024) {
  const Table t = run_all("histogram", {{"images", "generated:photo"},
                                        {"size", "1536x1024"},
                                        {"bins", "32,64,256,1024"},
                                        {"layouts", "cyclic,cyclic-pad"}});
  const auto s = [&](const char* layout, int bins, int r, const char* col) {
    return at(t, {{"layout", layout}, {"bins", std::to_string(bins)}, {"r", std::to_string(r)}},
              col);
  };
  // Growth: 1 at R = 1 (position conflicts, which no hash removes), then every doubling of R up
  // to 32 copies (or the most that fit) adds at least 0.1.
  for (int bins : {32, 64, 256, 1024}) {
    EXPECT_NEAR(s("cyclic", bins, 1, "speedup_xor"), 1.0, 0.05) << bins;
    for (int r = 2; r <= 32 && r * bins <= 12288; r *= 2)
      EXPECT_GT(s("cyclic", bins, r, "speedup_xor"), s("cyclic", bins, r / 2, "speedup_xor") + 0.1)
          << bins << " bins, R = " << r;
  }
  // Padding: copies 33 words apart put the lanes of one bin on a diagonal that XOR folds onto few
  // banks (000 §IV, Fig. 6): below 0.6 from R = 8 at 32 bins. At 256 and 1,024 bins XOR does not
  // lose (>= 0.95 at every R), at 64 bins it stays within 10 % (at R >= 32 ADD loses as much, so
  // that is no XOR effect; docs/studies.md).
  for (int r : {8, 16, 32, 64, 128, 256})
    EXPECT_LT(s("cyclic-pad", 32, r, "speedup_xor"), 0.6) << r;
  for (int bins : {256, 1024})
    for (int r = 1; r * (bins + 1) <= 12289; r *= 2)
      EXPECT_GE(s("cyclic-pad", bins, r, "speedup_xor"), 0.95) << bins << " bins, R = " << r;
  for (int r = 1; r <= 128; r *= 2) EXPECT_GE(s("cyclic-pad", 64, r, "speedup_xor"), 0.9) << r;
  // ADD does not suffer the 32-bin slow-down (000 §V.B).
  for (int r = 1; r <= 256; r *= 2) EXPECT_GE(s("cyclic-pad", 32, r, "speedup_add"), 0.95) << r;
  // The reading matters: on all lock bits the 256-bin, R = 32 speed-up is far lower (neighbouring
  // bins in copies 1,024 words apart share locks; docs/models.md).
  EXPECT_GT(s("cyclic", 256, 32, "speedup_xor"), s("cyclic", 256, 32, "speedup_xor_all") + 1.0);
}

// Seed 000 §V.C: a power-of-two rho row (2,048 words) fits six copies in 48 KiB (Fig. 8's six
// replication factors); the hash speed-up grows with R to R = 6, and much less with the lock hash
// on all lock bits; bin-stretching (our layout) neither gains nor loses much.
TEST(Seed000SectionVC, HoughSpeedupGrowsToSixCopiesOfAPowerOfTwoRow) {
  const Table t = run_all("hough", {{"images", "generated:blocks"}, {"thetas", "45"}});
  std::set<std::string> rs;
  for (std::size_t k = 0; k < t.rows.size(); ++k) rs.insert(t.str(k, "r"));
  EXPECT_EQ(rs, (std::set<std::string>{"1", "2", "3", "4", "5", "6"}));
  const auto s = [&](const char* layout, int r, const char* col) {
    return at(t, {{"layout", layout}, {"r", std::to_string(r)}}, col);
  };
  EXPECT_NEAR(s("replication", 1, "speedup_xor"), 1.0, 0.05);
  for (int r = 2; r <= 6; ++r)
    EXPECT_GT(s("replication", r, "speedup_xor"), s("replication", r - 1, "speedup_xor")) << r;
  EXPECT_GT(s("replication", 6, "speedup_xor"), 1.5);
  EXPECT_GT(s("replication", 6, "speedup_xor"), s("replication", 6, "speedup_xor_all") + 0.3);
  for (int r = 1; r <= 6; ++r) {
    EXPECT_GT(s("stretch", r, "speedup_xor"), 0.9) << r;
    EXPECT_LT(s("stretch", r, "speedup_xor"), 1.1) << r;
  }
  // The exact row (1,601 words) fits seven copies.
  const Table e = run_all("hough", {{"images", "generated:blocks"},
                                    {"thetas", "4"},
                                    {"rho_row", "exact"},
                                    {"layouts", "replication"}});
  EXPECT_EQ(e.rows.size(), 7u);
}

TEST(StudyConfig, VotingStudyInputErrors) {
  const auto bad = [](const char* name, std::map<std::string, std::string> sets) {
    const auto& info = study::find_study(name);
    const auto cfg = study::resolve_config(info, default_arch(), true, sets);
    EXPECT_THROW(info.make()->configure(cfg), InputError) << name;
  };
  bad("histogram", {{"size", "1536"}});
  bad("histogram", {{"size", "1536x"}});
  bad("histogram", {{"size", "4x4"}});
  bad("histogram", {{"size", "1536x1024x2"}});
  bad("histogram", {{"images", "cache/no-such-folder-of-photographs"}});
  bad("hough", {{"rho_row", "100"}});  // narrower than the 1,601 bins of 640 x 480
  bad("hough", {{"rho_row", "wide"}});
}

}  // namespace
}  // namespace smemsim
