#include "smemsim/error.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "util/escape.hpp"

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

std::string message_text(std::string_view text) {
  constexpr std::size_t kLongRun = 200, kKept = 80;
  std::string out;
  out.reserve(std::min<std::size_t>(text.size(), 4096));
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t end = i;
    while (end < text.size() && text[end] != ' ') ++end;
    std::size_t stop = end;
    if (end - i > kLongRun) {
      stop = i + kKept;
      while (stop > i && (static_cast<unsigned char>(text[stop]) & 0xc0) == 0x80) --stop;
    }
    for (std::size_t k = i; k < stop; ++k) append_escaped(out, text[k], true);
    if (stop != end) out += fmt::format("...({} more bytes)", end - stop);
    i = end;
    if (i < text.size()) out += text[i++];  // the space
  }
  return out;
}

std::string toml_syntax_message(std::string_view description) {
  constexpr std::string_view kPrefix = "Error while parsing ";
  std::string text = printable(description, 200);
  // toml++ names its own limits by their macros ("... depth of 256 (TOML_MAX_NESTED_VALUES)"):
  // the number is what a user needs, the macro is the library's.
  if (const auto at = text.find(" (TOML_"); at != std::string::npos) {
    const auto close = text.find(')', at);
    text.erase(at, close == std::string::npos ? std::string::npos : close - at + 1);
  }
  if (!description.starts_with(kPrefix)) return "TOML syntax error: " + text;
  text.erase(0, kPrefix.size());
  return "TOML syntax error in a " + text;
}

}  // namespace smemsim
