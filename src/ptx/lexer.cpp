#include "ptx/lexer.hpp"

#include <array>

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

Token Lexer::next() {
  const std::string_view text = text_;
  const std::size_t n = text.size();
  // The position in locals (kept in registers), stored back with each token.
  std::size_t i = i_;
  std::uint32_t line = line_;
  auto fail = [&](const std::string& what) { throw InputError(located(*filename_, line, what)); };
  auto token = [&](std::size_t from, std::size_t to, std::size_t resume, TokKind kind) {
    i_ = resume;
    line_ = line;
    return Token{text.substr(from, to - from), line, kind};
  };
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
      if (i + 1 >= n) throw InputError(located(*filename_, start, "unterminated /* comment"));
      i += 2;
    } else if (c == '"') {
      std::size_t j = i + 1;
      while (j < n && text[j] != '"' && text[j] != '\n') ++j;
      if (j >= n || text[j] != '"') fail("unterminated string");
      return token(i + 1, j, j + 1, TokKind::String);
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
      return token(i, j, j, TokKind::Number);
    } else if (is_word_start(c)) {
      std::size_t j = i + 1;
      // `::` belongs to a word (e.g. shared::cta); the parser rejects what it does not know.
      while (j < n &&
             (is_word_char(text[j]) || (text[j] == ':' && j + 1 < n && text[j + 1] == ':' &&
                                        j + 2 < n && is_word_char(text[j + 2])))) {
        j += text[j] == ':' ? 2 : 1;
      }
      return token(i, j, j, TokKind::Word);
    } else if (kPunct.find(c) != std::string_view::npos) {
      return token(i, i + 1, i + 1, TokKind::Punct);
    } else {
      const unsigned char u = static_cast<unsigned char>(c);
      if (u >= 0x20 && u < 0x7f) fail(fmt::format("unexpected character '{}'", c));
      fail(fmt::format("unexpected byte 0x{:02x}", u));
    }
  }
  i_ = i;
  line_ = line;
  return {{}, line, TokKind::End};
}

std::size_t Lexer::statements_ahead(int depth, std::size_t n) const {
  const std::string_view text = text_;
  const std::size_t size = text.size();
  // The characters that matter (a table: most characters of a body are none of them).
  static constexpr auto kMarks = [] {
    std::array<bool, 256> m{};
    for (const unsigned char c : std::string_view("/\"{};")) m[c] = true;
    return m;
  }();
  for (std::size_t i = i_; i < size; ++i) {
    const char c = text[i];
    if (!kMarks[static_cast<unsigned char>(c)]) continue;
    if (c == '/' && i + 1 < size && text[i + 1] == '/') {
      while (i + 1 < size && text[i + 1] != '\n') ++i;
    } else if (c == '/' && i + 1 < size && text[i + 1] == '*') {
      i += 2;
      while (i + 1 < size && !(text[i] == '*' && text[i + 1] == '/')) ++i;
      ++i;
    } else if (c == '"') {
      while (i + 1 < size && text[i + 1] != '"' && text[i + 1] != '\n') ++i;
      ++i;
    } else if (c == '{') {
      ++depth;
    } else if (c == '}') {
      if (depth-- == 0) return n;
    } else if (c == ';' && depth == 0) {
      ++n;
    }
  }
  return n;
}

}  // namespace smemsim::ptx
