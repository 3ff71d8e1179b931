// smemsim-trace v1: a text trace of warp accesses (docs/trace-format.md).
//
//   # comment                                   (anywhere; also after a line's fields)
//   smemsim-trace v1 unit=word warp=32          (optional header; first non-comment line)
//   atom pc=12 warp=3 0 1024 2 3 - 5 ...        (OP [pc=N] [warp=N] then one address per lane)
//
// OP is ld, st or atom; `-` marks an inactive lane; lanes beyond those listed are inactive.
// Addresses are word indices unless the header says unit=byte (then they are divided by 4). The
// reader streams: memory use is constant whatever the file size.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <ostream>
#include <string>

#include "smemsim/warp_access.hpp"

namespace smemsim {

enum class AddrUnit : std::uint8_t { Word, Byte };

struct TraceLimits {
  std::uint32_t memory_words = 12288;  // an address at or beyond this is an error
  std::uint32_t warp_size = 32;        // a line with more lanes is an error (header may lower it)
};

class TraceReader {
 public:
  // path "-" reads standard input. Throws InputError if the file cannot be opened.
  TraceReader(const std::string& path, const TraceLimits& limits);
  ~TraceReader();
  TraceReader(const TraceReader&) = delete;
  TraceReader& operator=(const TraceReader&) = delete;

  // Reads the next access; false at the end. Throws InputError "file:line: ..." on a malformed
  // line, and on an end of file that came before any access ("empty trace").
  bool next(WarpAccess& out);

  std::uint64_t line() const { return line_no_; }
  std::uint64_t accesses() const { return accesses_; }
  AddrUnit unit() const { return unit_; }
  std::uint32_t warp_size() const { return warp_size_; }
  const std::string& path() const { return path_; }

 private:
  bool read_line(std::string_view& line);
  void parse_header(std::string_view line);
  [[noreturn]] void fail(const std::string& what) const;

  std::string path_;
  TraceLimits limits_;
  std::FILE* file_ = nullptr;
  bool owns_file_ = false;
  std::unique_ptr<char[]> buf_;
  std::size_t buf_len_ = 0, buf_pos_ = 0;
  std::string carry_;  // a line split across buffer refills
  bool eof_ = false;
  std::uint64_t line_no_ = 0;
  std::uint64_t accesses_ = 0;
  bool header_allowed_ = true;
  AddrUnit unit_ = AddrUnit::Word;
  std::uint32_t warp_size_;
};

class TraceWriter {
 public:
  TraceWriter(std::ostream& out, std::uint32_t warp_size, AddrUnit unit = AddrUnit::Word);
  void write(const WarpAccess& wa);
  std::uint64_t written() const { return written_; }

 private:
  std::ostream& out_;
  AddrUnit unit_;
  std::uint64_t written_ = 0;
  std::string line_;
};

}  // namespace smemsim
