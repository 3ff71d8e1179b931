// Internal to the launch-spec reader (launch_spec.cpp, launch_textures.cpp): where the spec came
// from, its budget, and errors that name the spec's line.
#pragma once

#include <toml++/toml.h>

#include <cstdint>
#include <filesystem>
#include <string>

#include "smemsim/error.hpp"
#include "smemsim/workloads.hpp"

namespace smemsim::exec {

struct SpecContext {
  std::string origin;
  std::filesystem::path dir;                   // relative input files are resolved here
  std::uint64_t max_bytes = kLaunchSpecBytes;  // the buffers' budget

  [[noreturn]] void fail(const toml::node* n, const std::string& what) const {
    const std::uint64_t line = n ? n->source().begin.line : 0;
    throw InputError(located(origin, line, what));
  }
  [[noreturn]] void fail(const toml::table& t, const std::string& what) const {
    throw InputError(located(origin, t.source().begin.line, what));
  }
};

// [textures.NAME] tables (launch_textures.cpp): texture objects over the spec's buffers, appended
// to w.memory.textures. Throws InputError naming the spec's line.
void parse_textures(const SpecContext& c, const toml::node& n, Workload& w);

}  // namespace smemsim::exec
