// printf and assert (issue 45): nvcc lowers printf(fmt, ...) to vprintf(fmt, args), where `args`
// points at a local buffer holding the arguments one after another, each at its natural alignment
// (int, unsigned and char as 4 bytes; long, long long, size_t, double and pointers as 8; float is
// promoted to double as for any variadic call), and assert(e) to __assertfail(message, file, line,
// function, char size) on the failing path. The executor formats a printf call per lane as the
// host's printf would (CUDA's runtime formats the buffer on the host: the same conversions, flags,
// widths and precisions) and appends it to the memory's PrintfLog; a failing assert stops the
// launch with the line the GPU prints.
#include <fmt/format.h>

#include <cstdio>
#include <cstring>

#include "exec/exec_internal.hpp"
#include "smemsim/error.hpp"

namespace smemsim::exec::detail {
namespace {

constexpr std::size_t kMaxString = 64 * 1024;  // bytes of a format or %s string read at most
constexpr int kMaxArgs = 32;  // "printf() will accept a maximum of 32 arguments" (CUDA guide)
// The sectors a printf call writes, for the cycle model's caches: a window of addresses no buffer
// or local memory uses (the printf buffer is the runtime's).
constexpr std::uint64_t kPrintfSectorBase = (std::uint64_t{0x7c0000} << kRegionShift) >> 5;

struct LaneIo {
  Impl& im;
  Cta& cta;
  Warp& w;
  std::uint32_t pc;
  int lane;

  const std::uint8_t* local_slot(const CallInfo::Copy& slot) const {
    const std::uint64_t t = std::uint64_t(w.index) * im.lanes + std::uint64_t(lane);
    return cta.local.data() + t * im.local_bytes + slot.src;
  }
  std::uint64_t slot_value(const CallInfo::Copy& slot) const {
    std::uint64_t v = 0;
    std::memcpy(&v, local_slot(slot), std::min<std::uint64_t>(slot.bytes, 8));
    return v;
  }
  // `bytes` bytes at the generic address `a` (bounds-checked: an InputError naming the thread).
  std::uint64_t load(std::uint64_t a, std::uint64_t bytes) const {
    LaneMask shared = 0;
    const std::uint8_t* p =
        lane_pointer(im, cta, w, pc, lane, ptx::Space::Generic, a, bytes, false, shared);
    std::uint64_t v = 0;
    std::memcpy(&v, p, bytes);
    return v;
  }
  // The NUL-terminated string at `a` ("(null)" for a null pointer, as glibc prints it).
  std::string string(std::uint64_t a, const char* what) const {
    if (a == 0) return "(null)";
    std::string s;
    for (;;) {
      const char c = static_cast<char>(load(a + s.size(), 1));
      if (c == '\0') return s;
      if (s.size() == kMaxString)
        im.fail(cta, w, lane, pc,
                fmt::format("{} longer than {} bytes (no terminating NUL?)", what, kMaxString));
      s.push_back(c);
    }
  }
};

// One printf call: the text and the number of arguments its conversions consumed (vprintf's
// return value on the GPU: "the number of arguments parsed").
struct Formatted {
  std::string text;
  int args = 0;
};

Formatted format_printf(const LaneIo& io, const std::string& fmt_text, std::uint64_t args) {
  Formatted out;
  std::uint64_t at = 0;  // byte offset into the argument buffer
  const auto next = [&](std::uint64_t bytes) -> std::uint64_t {
    at = (at + bytes - 1) / bytes * bytes;
    if (out.args >= kMaxArgs || args == 0) {
      ++out.args;
      return 0;  // past CUDA's 32 arguments or no buffer: nothing was passed
    }
    const std::uint64_t v = io.load(args + at, bytes);
    at += bytes;
    ++out.args;
    return v;
  };
  // One conversion formatted by the host's printf, whatever its length (a width or precision up
  // to 9999, a %s string up to kMaxString).
  const auto append = [&](const std::string& spec_text, auto value) {
    const int n = std::snprintf(nullptr, 0, spec_text.c_str(), value);
    if (n <= 0) return;
    const std::size_t at = out.text.size();
    out.text.resize(at + std::size_t(n) + 1);
    std::snprintf(out.text.data() + at, std::size_t(n) + 1, spec_text.c_str(), value);
    out.text.pop_back();
  };
  for (std::size_t i = 0; i < fmt_text.size();) {
    const char c = fmt_text[i];
    if (c != '%') {
      out.text.push_back(c);
      ++i;
      continue;
    }
    const std::size_t start = i++;
    if (i < fmt_text.size() && fmt_text[i] == '%') {
      out.text.push_back('%');
      ++i;
      continue;
    }
    // %[flags][width][.precision][length]conversion; `*` takes an int argument.
    std::string spec = "%";
    while (i < fmt_text.size() && std::strchr("-+ #0", fmt_text[i])) spec.push_back(fmt_text[i++]);
    // A width or precision: digits, or `*` for an int argument (a negative width left-justifies,
    // a negative precision is none, as C says). At most 9999 (bounded output; documented).
    const auto number = [&](bool precision) {
      long long v = 0;
      if (i < fmt_text.size() && fmt_text[i] == '*') {
        ++i;
        v = static_cast<std::int32_t>(next(4));
        if (v < 0 && precision) return;  // no precision
      } else {
        while (i < fmt_text.size() && fmt_text[i] >= '0' && fmt_text[i] <= '9')
          v = std::min<long long>(v * 10 + (fmt_text[i++] - '0'), 99999);
      }
      if (precision) spec.push_back('.');
      spec += std::to_string(std::max(-9999LL, std::min(9999LL, v)));
    };
    if (i < fmt_text.size() && (fmt_text[i] == '*' || (fmt_text[i] >= '1' && fmt_text[i] <= '9')))
      number(false);
    if (i < fmt_text.size() && fmt_text[i] == '.') {
      ++i;
      number(true);
    }
    int longs = 0;
    std::string length;
    while (i < fmt_text.size() && std::strchr("hlLqjzt", fmt_text[i])) {
      const char l = fmt_text[i++];
      length.push_back(l);
      if (l != 'h') ++longs;
    }
    if (i >= fmt_text.size()) {  // a lone % at the end: printed as written
      out.text.append(fmt_text, start, std::string::npos);
      break;
    }
    const char conv = fmt_text[i++];
    switch (conv) {
      case 'd':
      case 'i':
      case 'u':
      case 'o':
      case 'x':
      case 'X': {
        const bool signed_conv = conv == 'd' || conv == 'i';
        const bool wide = longs > 0;
        const std::uint64_t raw = next(wide ? 8 : 4);
        // h and hh narrow as the host's printf does; l, ll, z, j, t are 64-bit on the GPU.
        const std::string s = spec + (wide ? "ll" : length) + conv;
        if (wide && signed_conv)
          append(s, static_cast<long long>(raw));
        else if (wide)
          append(s, static_cast<unsigned long long>(raw));
        else if (signed_conv)
          append(s, static_cast<int>(static_cast<std::int32_t>(raw)));
        else
          append(s, static_cast<unsigned>(raw));
        break;
      }
      case 'c': {
        const std::string s = spec + conv;
        append(s, static_cast<int>(static_cast<std::int32_t>(next(4))));
        break;
      }
      case 'f':
      case 'F':
      case 'e':
      case 'E':
      case 'g':
      case 'G':
      case 'a':
      case 'A': {
        double d = 0;
        const std::uint64_t raw = next(8);
        std::memcpy(&d, &raw, 8);
        const std::string s = spec + conv;
        append(s, d);
        break;
      }
      case 's': {
        const std::string str = io.string(next(8), "a printf %s string");
        append(spec + conv, str.c_str());
        break;
      }
      case 'p': {
        const std::uint64_t raw = next(8);
        const std::string s = spec + conv;
        append(s, reinterpret_cast<void*>(raw));
        break;
      }
      default:  // %n and unknown conversions are printed as written, consuming nothing
        out.text.append(fmt_text, start, i - start);
        break;
    }
  }
  return out;
}

// Thread and block as the GPU's assert message writes them: "[x,y,z]".
std::string triple(std::uint32_t x, std::uint32_t y, std::uint32_t z) {
  return fmt::format("[{},{},{}]", x, y, z);
}

}  // namespace

std::uint16_t exec_builtin(Impl& im, Cta& cta, Warp& w, std::uint32_t pc, LaneMask m,
                           const CallInfo& ci) {
  if (ci.builtin == ptx::Builtin::AssertFail) {
    // Every lane here failed its assert; the GPU prints one line per thread and stops the
    // launch. The first is named, with how many others failed with it.
    const int l = std::countr_zero(m);
    const LaneIo io{im, cta, w, pc, l};
    const std::string message = io.string(io.slot_value(ci.args[0]), "assert's message");
    const std::string file = io.string(io.slot_value(ci.args[1]), "assert's file name");
    const std::uint32_t line = static_cast<std::uint32_t>(io.slot_value(ci.args[2]));
    const std::string function = io.string(io.slot_value(ci.args[3]), "assert's function name");
    const std::uint32_t t = w.index * im.lanes + static_cast<std::uint32_t>(l);
    const Dim3& b = im.launch.block;
    const int others = std::popcount(m) - 1;
    const ptx::Instruction& ins = im.kernel.code[pc];
    throw InputError(fmt::format(
        "{}:{}: {}: block: {}, thread: {} Assertion `{}` failed.{} (the launch stops here, at "
        "{}:{}; compile with -DNDEBUG to leave asserts out)",
        file, line, function, triple(cta.id.x, cta.id.y, cta.id.z),
        triple(t % b.x, (t / b.x) % b.y, t / (b.x * b.y)), message,
        others > 0 ? fmt::format(" ({} more thread{} of this warp failed it too)", others,
                                 others == 1 ? "" : "s")
                   : "",
        im.module.filename, ins.ptx_line));
  }
  // printf: each lane in order; the call is timed as a global write of each lane's argument
  // buffer (a record of the GPU's printf buffer), counted like a store's sectors.
  std::uint64_t arg_bytes = 0;
  std::uint16_t sectors = 0;
  const std::uint64_t clock = im.clock_source ? *im.clock_source : im.clock;
  each_lane(m, [&](int l) {
    const LaneIo io{im, cta, w, pc, l};
    const std::uint64_t fmt_at = io.slot_value(ci.args[0]);
    const std::uint64_t args = io.slot_value(ci.args[1]);
    std::int32_t result = -1;  // a null format: -1, as the GPU's printf returns
    if (fmt_at != 0) {
      const std::string f = io.string(fmt_at, "a printf format string");
      Formatted out = format_printf(io, f, args);
      result = out.args;
      arg_bytes = std::max<std::uint64_t>(arg_bytes, 8 + 8 * std::uint64_t(out.args));
      im.memory.printf_log.add(clock, cta.smid, std::move(out.text), im.launch.printf_bytes);
    }
    if (!ci.rets.empty()) {
      const std::uint64_t t = std::uint64_t(w.index) * im.lanes + std::uint64_t(l);
      std::memcpy(cta.local.data() + t * im.local_bytes + ci.rets[0].src, &result,
                  std::min<std::uint64_t>(4, ci.rets[0].bytes));
    }
  });
  im.wide_active = false;
  if (im.count_sectors) {
    // Each lane's record: the format pointer and 8 bytes an argument, at its own place in the
    // buffer (the lanes' records do not coalesce).
    sectors = static_cast<std::uint16_t>(std::min<std::uint64_t>(
        std::uint64_t(std::popcount(m)) * ((arg_bytes + 31) / 32), 2 * kMaxLanes));
    for (std::uint16_t s = 0; s < sectors; ++s) im.sectors[s] = kPrintfSectorBase + s;
    im.nsectors = sectors;
  }
  return sectors;
}

}  // namespace smemsim::exec::detail
