#include "ptx/lexer.hpp"

#include <fmt/format.h>

#include "smemsim/error.hpp"

namespace smemsim::ptx {
namespace {

bool is_word_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' || c == '%' ||
         c == '.';
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_word_char(char c) {
  return is_word_start(c) || is_digit(c);
}
bool is_alnum(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

constexpr std::string_view kPunct = ",;:[]{}()<>+-@!|=*";

}  // namespace

std::vector<Token> lex(std::string_view text, const std::string& filename) {
  std::vector<Token> out;
  std::uint32_t line = 1;
  std::size_t i = 0;
  const std::size_t n = text.size();
  auto fail = [&](const std::string& what) { throw InputError(located(filename, line, what)); };
  while (i < n) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      ++i;
    } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      ++i;
    } else if (c == '/' && i + 1 < n && text[i + 1] == '/') {
      while (i < n && text[i] != '\n') ++i;
    } else if (c == '/' && i + 1 < n && text[i + 1] == '*') {
      const std::uint32_t start = line;
      i += 2;
      while (i + 1 < n && !(text[i] == '*' && text[i + 1] == '/')) {
        if (text[i] == '\n') ++line;
        ++i;
      }
      if (i + 1 >= n) throw InputError(located(filename, start, "unterminated /* comment"));
      i += 2;
    } else if (c == '"') {
      std::size_t j = i + 1;
      while (j < n && text[j] != '"' && text[j] != '\n') ++j;
      if (j >= n || text[j] != '"') fail("unterminated string");
      out.push_back({text.substr(i + 1, j - i - 1), line, TokKind::String});
      i = j + 1;
    } else if (is_digit(c)) {
      // Integer (decimal, 0x hex, 0b binary, octal, optional U suffix), hex float (0f/0d), decimal
      // float with optional exponent.
      const bool prefixed =
          c == '0' && i + 1 < n &&
          std::string_view("xXfFdDbB").find(text[i + 1]) != std::string_view::npos;
      std::size_t j = i;
      while (j < n && (is_alnum(text[j]) || text[j] == '.')) {
        const char e = text[j++];
        if (!prefixed && (e == 'e' || e == 'E') && j < n && (text[j] == '-' || text[j] == '+')) ++j;
      }
      out.push_back({text.substr(i, j - i), line, TokKind::Number});
      i = j;
    } else if (is_word_start(c)) {
      std::size_t j = i + 1;
      // `::` belongs to a word (e.g. shared::cta); the parser rejects what it does not know.
      while (j < n &&
             (is_word_char(text[j]) || (text[j] == ':' && j + 1 < n && text[j + 1] == ':' &&
                                        j + 2 < n && is_word_char(text[j + 2])))) {
        j += text[j] == ':' ? 2 : 1;
      }
      out.push_back({text.substr(i, j - i), line, TokKind::Word});
      i = j;
    } else if (kPunct.find(c) != std::string_view::npos) {
      out.push_back({text.substr(i, 1), line, TokKind::Punct});
      ++i;
    } else {
      const unsigned char u = static_cast<unsigned char>(c);
      if (u >= 0x20 && u < 0x7f) fail(fmt::format("unexpected character '{}'", c));
      fail(fmt::format("unexpected byte 0x{:02x}", u));
    }
  }
  out.push_back({{}, line, TokKind::End});
  return out;
}

}  // namespace smemsim::ptx
