// Whole-file reading for the small inputs (arch TOML, launch specs, PTX, study state). Large traces
// stream through TraceReader instead.
#pragma once

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "smemsim/error.hpp"

namespace smemsim {

// What `path` names when a regular file is expected: "" for a regular file or nothing at all, else
// "a directory", "a character device" (/dev/null, /dev/zero), "a block device", "a FIFO", "a
// socket" (issue 28). It stats the path and never opens it: opening a FIFO with no writer blocks.
inline std::string special_file_kind(const std::string& path) {
  std::error_code ec;
  const auto st = std::filesystem::status(path, ec);
  using std::filesystem::file_type;
  switch (st.type()) {
    case file_type::directory:
      return "a directory";
    case file_type::character:
      return "a character device";
    case file_type::block:
      return "a block device";
    case file_type::fifo:
      return "a FIFO";
    case file_type::socket:
      return "a socket";
    default:
      return "";
  }
}

// Why an output path is refused ("" when it is not): one that exists as anything but a regular
// file, since writing would go into a device or pipe and replacing it (write, then rename) would
// remove a device node. The one message of every output option and a launch spec's `write`.
inline std::string output_path_problem(const std::string& path) {
  const std::string k = special_file_kind(path);
  return k.empty()
             ? k
             : fmt::format("'{}' is {}, not a file: smemsim writes regular files only", path, k);
}

// The file's bytes; InputError "PATH: cannot open WHAT: reason" when it cannot be opened. A
// directory, device, FIFO or socket is refused before it is opened, and a file above `max_bytes`
// (what such an input can sensibly hold) before it is read.
inline std::string read_file(const std::string& path, std::string_view what,
                             std::uint64_t max_bytes = std::uint64_t{256} << 20) {
  if (path.empty()) throw InputError(fmt::format("cannot open {}: the path is empty", what));
  if (const std::string k = special_file_kind(path); !k.empty())
    throw InputError(fmt::format("{}: cannot open {}: it is {}, not a file", path, what, k));
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (!ec && size > max_bytes)
    throw InputError(fmt::format("{}: the {} has {} bytes, above the {} MiB it may have", path,
                                 what, size, max_bytes >> 20));
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw InputError(fmt::format("{}: cannot open {}: {}", path, what, std::strerror(errno)));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace smemsim
