// Whole-file reading for the small inputs (arch TOML, launch specs, PTX, study state). Large traces
// stream through TraceReader instead.
#pragma once

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "smemsim/error.hpp"

namespace smemsim {

// The file's bytes; InputError "PATH: cannot open WHAT: reason" when it cannot be opened (a
// directory opens as an empty stream on Linux: it is refused by name).
inline std::string read_file(const std::string& path, std::string_view what) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError(fmt::format("{}: cannot open {}: it is a directory", path, what));
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw InputError(fmt::format("{}: cannot open {}: {}", path, what, std::strerror(errno)));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace smemsim
