#include "smemsim/error.hpp"

#include <fmt/format.h>

namespace smemsim {

std::string located(const std::string& file, std::uint64_t line, const std::string& message) {
  if (line == 0) return fmt::format("{}: {}", file, message);
  return fmt::format("{}:{}: {}", file, line, message);
}

}  // namespace smemsim
