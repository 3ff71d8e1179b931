#include "smemsim/error.hpp"

#include <fmt/format.h>

namespace smemsim {

std::string located(const std::string& file, std::uint64_t line, const std::string& message) {
  if (line == 0) return fmt::format("{}: {}", file, message);
  return fmt::format("{}:{}: {}", file, line, message);
}

std::string printable(std::string_view text, std::size_t max) {
  std::string out;
  for (const char ch : text) {
    if (out.size() >= max) {
      out += "...";
      break;
    }
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c < 0x7f)
      out += ch;
    else
      out += fmt::format("\\x{:02x}", c);
  }
  return out;
}

std::string toml_syntax_message(std::string_view description) {
  constexpr std::string_view kPrefix = "Error while parsing ";
  std::string text = printable(description, 200);
  if (!description.starts_with(kPrefix)) return "TOML syntax error: " + text;
  text.erase(0, kPrefix.size());
  return "TOML syntax error in a " + text;
}

}  // namespace smemsim
