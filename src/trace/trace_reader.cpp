// Streaming reader of smemsim-trace v1 (docs/trace-format.md): a fixed 1 MiB buffer, lines parsed
// in place with from_chars; memory use does not grow with the file.
#include <charconv>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "smemsim/error.hpp"
#include "smemsim/trace.hpp"
#include "util/file.hpp"

namespace smemsim {
namespace {

constexpr std::size_t kBufSize = 1 << 20;
constexpr std::size_t kMaxLine = 1 << 16;

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r';
}

// Next whitespace-separated token of `s`, consuming it; empty at the end.
std::string_view token(std::string_view& s) {
  std::size_t i = 0;
  while (i < s.size() && is_space(s[i])) ++i;
  std::size_t j = i;
  while (j < s.size() && !is_space(s[j])) ++j;
  std::string_view t = s.substr(i, j - i);
  s.remove_prefix(j);
  return t;
}

bool parse_u64(std::string_view t, std::uint64_t& v) {
  int base = 10;
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
    t.remove_prefix(2);
    base = 16;
  }
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v, base);
  return !t.empty() && ec == std::errc() && p == t.data() + t.size();
}

}  // namespace

TraceReader::TraceReader(const std::string& path, const TraceLimits& limits)
    : path_(path), limits_(limits), buf_(new char[kBufSize]), warp_size_(limits.warp_size) {
  if (path == "-") {
    file_ = stdin;
    path_ = "<stdin>";
  } else {
    if (const std::string k = special_file_kind(path); !k.empty())
      throw InputError(
          fmt::format("{}: cannot open trace: it is {}, not a file ('-' reads "
                      "standard input)",
                      path, k));
    file_ = std::fopen(path.c_str(), "rb");
    if (!file_)
      throw InputError(fmt::format("{}: cannot open trace: {}", path, std::strerror(errno)));
    owns_file_ = true;
  }
}

TraceReader::~TraceReader() {
  if (owns_file_ && file_) std::fclose(file_);
}

void TraceReader::fail(const std::string& what) const {
  throw InputError(located(path_, line_no_, what));
}

bool TraceReader::read_line(std::string_view& line) {
  carry_.clear();
  for (;;) {
    if (buf_pos_ == buf_len_) {
      if (eof_) {
        if (carry_.empty()) return false;
        ++line_no_;
        line = carry_;
        return true;
      }
      buf_len_ = std::fread(buf_.get(), 1, kBufSize, file_);
      buf_pos_ = 0;
      if (buf_len_ < kBufSize) {
        if (std::ferror(file_)) fail("read error");
        eof_ = true;
      }
      if (buf_len_ == 0) continue;
    }
    const char* start = buf_.get() + buf_pos_;
    const char* nl = static_cast<const char*>(std::memchr(start, '\n', buf_len_ - buf_pos_));
    if (nl) {
      const std::size_t n = static_cast<std::size_t>(nl - start);
      buf_pos_ += n + 1;
      ++line_no_;
      if (carry_.empty()) {
        line = std::string_view(start, n);
      } else {
        carry_.append(start, n);
        line = carry_;
      }
      return true;
    }
    carry_.append(start, buf_len_ - buf_pos_);
    buf_pos_ = buf_len_;
    if (carry_.size() > kMaxLine) {
      ++line_no_;
      fail(fmt::format("line longer than {} bytes", kMaxLine));
    }
  }
}

void TraceReader::parse_header(std::string_view rest) {
  std::string_view version = token(rest);
  if (version != "v1")
    fail(fmt::format("unsupported trace version '{}' (expected v1)", printable(version)));
  bool seen_unit = false, seen_warp = false;  // a field given twice is an error (issue 28)
  for (std::string_view t = token(rest); !t.empty(); t = token(rest)) {
    if (t.starts_with("unit=") || t.starts_with("warp=")) {
      bool& seen = t.starts_with("unit=") ? seen_unit : seen_warp;
      if (seen)
        fail(fmt::format("header field {} is given twice",
                         t.starts_with("unit=") ? "unit" : "warp"));
      seen = true;
    }
    if (t.starts_with("unit=")) {
      const std::string_view u = t.substr(5);
      if (u == "word")
        unit_ = AddrUnit::Word;
      else if (u == "byte")
        unit_ = AddrUnit::Byte;
      else
        fail(fmt::format("header field unit: '{}' is not word or byte", printable(u)));
    } else if (t.starts_with("warp=")) {
      std::uint64_t w = 0;
      if (!parse_u64(t.substr(5), w) || w == 0 || w > kMaxLanes)
        fail(fmt::format("header field warp: '{}' is not between 1 and {}", printable(t.substr(5)),
                         kMaxLanes));
      if (w > limits_.warp_size)
        fail(fmt::format("header field warp: {} lanes exceed the arch's warp size {}", w,
                         limits_.warp_size));
      warp_size_ = static_cast<std::uint32_t>(w);
    } else {
      fail(
          fmt::format("unknown header field '{}' (expected unit=word|byte, warp=N)", printable(t)));
    }
  }
}

bool TraceReader::next(WarpAccess& out) {
  std::string_view line;
  while (read_line(line)) {
    if (line_no_ == 1 && line.starts_with("\xEF\xBB\xBF")) line.remove_prefix(3);  // UTF-8 BOM
    if (auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    std::string_view rest = line;
    const std::string_view op_tok = token(rest);
    if (op_tok.empty()) continue;
    if (op_tok == "smemsim-trace") {
      if (!header_allowed_) fail("the header must be the first line that is not a comment");
      header_allowed_ = false;
      parse_header(rest);
      continue;
    }
    header_allowed_ = false;
    const auto op = parse_op(op_tok);
    if (!op) fail(fmt::format("field op: '{}' is not ld, st or atom", printable(op_tok)));
    out.op = *op;
    out.pc = 0;
    out.warp = 0;
    out.active = 0;
    out.lanes = static_cast<std::uint8_t>(warp_size_);
    std::uint32_t lane = 0;
    // Optional fields before the lanes, each at most once.
    bool seen_pc = false, seen_warp = false;
    for (;;) {
      std::string_view probe = rest;
      const std::string_view t = token(probe);
      const bool is_pc = t.starts_with("pc="), is_warp = t.starts_with("warp=");
      if (!is_pc && !is_warp) break;
      bool& seen = is_pc ? seen_pc : seen_warp;
      if (seen) fail(fmt::format("field {} is given twice", is_pc ? "pc" : "warp"));
      seen = true;
      std::uint64_t v = 0;
      if (!parse_u64(t.substr(is_pc ? 3 : 5), v) || v > 0xffffffffu)
        fail(fmt::format("field {}: '{}' is not a 32-bit number", is_pc ? "pc" : "warp",
                         printable(t.substr(is_pc ? 3 : 5))));
      (is_pc ? out.pc : out.warp) = static_cast<std::uint32_t>(v);
      rest = probe;
    }
    // Lanes, in one pass over the characters (decimal fast path; hex and errors via the token).
    // The byte after a line is never a digit or a space ('\n' in the buffer, '\0' after carry_, or
    // the '#' of a comment), so the loops need no end checks.
    const char* p = rest.data();
    const char* const end = p + rest.size();
    for (;;) {
      while (is_space(*p)) ++p;
      if (p >= end) break;
      if (lane >= warp_size_) fail(fmt::format("more than {} lanes (the warp size)", warp_size_));
      const char* q = p;
      std::uint64_t a = 0;
      bool ok;
      if (*p == '-') {
        ++q;
        if (q >= end || is_space(*q)) {
          ++lane;
          p = q;
          continue;
        }
        ok = false;
      } else {
        while (static_cast<unsigned>(*q - '0') < 10u)
          a = a * 10 + static_cast<unsigned>(*q++ - '0');
        ok = q != p && q - p <= 12 && (q >= end || is_space(*q));
      }
      if (!ok) {
        while (q < end && !is_space(*q)) ++q;
        const std::string_view t(p, static_cast<std::size_t>(q - p));
        if (!parse_u64(t, a))
          fail(fmt::format("lane {}: '{}' is not an address or '-'", lane, printable(t)));
      }
      p = q;
      if (unit_ == AddrUnit::Byte) a /= 4;
      if (a >= limits_.memory_words)
        fail(fmt::format("lane {}: word address {} is beyond the memory ({} words)", lane, a,
                         limits_.memory_words));
      out.set(static_cast<int>(lane), static_cast<WordAddr>(a));
      ++lane;
    }
    if (lane == 0) fail(fmt::format("'{}' has no lanes", op_tok));
    ++accesses_;
    return true;
  }
  if (accesses_ == 0) throw InputError(located(path_, 0, "empty trace: no accesses"));
  return false;
}

}  // namespace smemsim
