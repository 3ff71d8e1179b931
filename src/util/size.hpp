// Byte counts as people read them: "4 GiB", "27.9 GiB", "512 bytes".
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include <fmt/format.h>

namespace smemsim {

inline std::string format_size(double bytes) {
  for (const auto& [shift, name] :
       {std::pair{50, "PiB"}, {40, "TiB"}, {30, "GiB"}, {20, "MiB"}, {10, "KiB"}}) {
    const double unit = double(std::uint64_t{1} << shift);
    if (bytes < unit) continue;
    const double v = bytes / unit;
    if (v == double(std::uint64_t(v))) return fmt::format("{} {}", std::uint64_t(v), name);
    return fmt::format("{:.1f} {}", v, name);
  }
  return fmt::format("{} bytes", std::uint64_t(bytes));
}

}  // namespace smemsim
