// Helpers of the study tests: run every point of a study in-process, look rows up by columns.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "smemsim/arch.hpp"
#include "smemsim/study.hpp"

namespace smemsim::test {

// Every point of study `name` with its quick defaults and `sets` on its preset (StudyInfo::arch),
// as the table the report reads.
inline study::Table run_all(const std::string& name,
                            const std::map<std::string, std::string>& sets) {
  using study::Table;
  const auto& info = study::find_study(name);
  const auto cfg = study::resolve_config(info, find_preset(info.arch), true, sets);
  auto s = info.make();
  s->configure(cfg);
  Table t;
  t.columns = s->columns();
  for (std::size_t i = 0; i < s->size(); ++i)
    for (const auto& row : s->run_point(i).rows) {
      std::vector<std::string> r;
      for (const auto& v : row) r.push_back(study::format_value(v));
      t.rows.push_back(std::move(r));
    }
  return t;
}

// Row index where every (column, value) matches; -1 if none.
inline int find(const study::Table& t, const std::map<std::string, std::string>& where) {
  for (std::size_t k = 0; k < t.rows.size(); ++k) {
    bool ok = true;
    for (const auto& [c, v] : where) ok = ok && t.str(k, c) == v;
    if (ok) return static_cast<int>(k);
  }
  return -1;
}

inline double at(const study::Table& t, const std::map<std::string, std::string>& where,
                 const char* col) {
  const int k = find(t, where);
  EXPECT_GE(k, 0);
  return k < 0 ? 0.0 : t.num(static_cast<std::size_t>(k), col);
}

}  // namespace smemsim::test
