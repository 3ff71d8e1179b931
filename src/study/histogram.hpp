// The histogram study (histogram.cpp: points and kernel runs; histogram_report.cpp: the report).
#pragma once

#include <string>
#include <vector>

#include "kernel_runs.hpp"
#include "smemsim/images.hpp"
#include "smemsim/study.hpp"
#include "voting.hpp"

namespace smemsim::study {

struct HistogramLayout {
  const char* name;
  Layout layout;
  Mapping mapping;
  std::uint32_t pad;
};

class Histogram : public Study {
 public:
  void configure(const StudyConfig& cfg) override;
  std::vector<std::string> columns() const override;
  std::size_t size() const override { return points_.size(); }
  PointResult run_point(std::size_t i) const override;
  Report report(const Table& t) const override;
  std::string input_digest() const override { return digest_; }

 private:
  struct Point {
    std::size_t image;
    std::uint32_t bins;
    const HistogramLayout* layout;
    std::vector<std::uint32_t> rs;
  };
  std::int64_t run_kernel(const images::Gray12& img, const Point& p, std::uint32_t r,
                          std::size_t variant) const;
  std::string header() const;

  StudyConfig cfg_;
  std::vector<images::Gray12> images_;
  std::string digest_;
  std::uint32_t tpb_ = 1024;
  bool kernel_ = false;  // backend = cycle
  ptx::Module module_;
  std::uint32_t blocks_ = 16;
  std::vector<Point> points_;
  std::vector<Arch> arch_;          // one per hash_variants() entry
  std::vector<std::size_t> alias_;  // the first variant with the same arch (computed once)
  int width_ = 0, height_ = 0;      // parameter 'size' (0: native)
};

}  // namespace smemsim::study
