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
#include <utility>
#include <vector>

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
// A path whose folder does not exist is refused too, before any work (the write would fail only
// after a run).
inline std::string output_path_problem(const std::string& path) {
  const std::string k = special_file_kind(path);
  if (!k.empty())
    return fmt::format("'{}' is {}, not a file: smemsim writes regular files only", path, k);
  const std::filesystem::path folder = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!folder.empty() && !std::filesystem::is_directory(folder, ec))
    return fmt::format("'{}': the folder '{}' does not exist", path, folder.string());
  return "";
}

// Whether two output paths name one file (issue 28: `--csv x --emit-trace x`, two buffers with the
// same `write`, silently overwrote one with the other): the same device and inode where both exist
// (a hard link is the same file, issue 48), else compared as absolute, normalized paths, through
// symbolic links.
inline bool same_output(const std::string& a, const std::string& b) {
  if (a.empty() || b.empty()) return false;
  std::error_code ec1, ec2;
  if (std::filesystem::exists(a, ec1) && std::filesystem::exists(b, ec2)) {
    const bool same = std::filesystem::equivalent(a, b, ec1);
    if (!ec1) return same;
  }
  const auto ca = std::filesystem::weakly_canonical(std::filesystem::absolute(a, ec1), ec1);
  const auto cb = std::filesystem::weakly_canonical(std::filesystem::absolute(b, ec2), ec2);
  if (ec1 || ec2) return a == b;
  return ca == cb;
}

// An output that is one of the command's inputs (what, path): "--html 'k.ptx' is the PTX file
// this command reads: ..." (issue 48: the input was overwritten, exit 0), or "".
inline std::string output_over_input(const std::vector<std::pair<std::string, std::string>>& outs,
                                     const std::vector<std::pair<std::string, std::string>>& ins) {
  for (const auto& [what, path] : outs)
    for (const auto& [in_what, in_path] : ins)
      if (same_output(path, in_path))
        return fmt::format("{} '{}' is the {} this command reads: give the output another name",
                           what, path, in_what);
  return "";
}

// The first pair of (what, path) outputs that name one file, as "what1 and what2 both write
// 'path'", or "" (empty paths are not outputs).
inline std::string clashing_outputs(const std::vector<std::pair<std::string, std::string>>& outs) {
  for (std::size_t i = 0; i < outs.size(); ++i)
    for (std::size_t j = i + 1; j < outs.size(); ++j)
      if (same_output(outs[i].second, outs[j].second))
        return fmt::format("{} and {} both write '{}': give each output its own file",
                           outs[i].first, outs[j].first, outs[j].second);
  return "";
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
