// Shared by the module parser (parser.cpp) and the instruction decoder (decode.cpp): the token
// cursor with its located errors, numeric literals, and the kernel builder's name lookups.
#include <charconv>
#include <cstring>

#include <fmt/format.h>

#include "ptx/parse_state.hpp"
#include "smemsim/error.hpp"

namespace smemsim::ptx {

std::string describe(const Token& t) {
  if (t.kind == TokKind::End) return "end of input";
  if (t.kind == TokKind::String) return fmt::format("\"{}\"", t.text);
  return fmt::format("'{}'", t.text);
}

const Token& Cursor::lex_to(std::size_t i) const {
  while (end_ <= i && !ended_) {
    const std::size_t k = end_ - first_;
    if (k % kChunk == 0) chunks_.push_back(std::make_unique<Token[]>(kChunk));
    Token& t = chunks_[k / kChunk][k % kChunk];
    t = lexer_.next();
    ended_ = t.kind == TokKind::End;
    ++end_;
  }
  return at(i < end_ ? i : end_ - 1);
}

void Cursor::fail(const Token& at, const std::string& message) const {
  fail(at.line, message);
}

void Cursor::fail(std::uint32_t line, const std::string& message) const {
  throw InputError(located(filename_, line, message));
}

void Cursor::expect(char c, std::string_view context) {
  if (!accept(c))
    fail(peek(), fmt::format("expected '{}' {}, found {}", c, context, describe(peek())));
}

std::string_view Cursor::expect_word(std::string_view what) {
  if (peek().kind != TokKind::Word)
    fail(peek(), fmt::format("expected {}, found {}", what, describe(peek())));
  return next().text;
}

std::uint64_t Cursor::expect_uint(std::string_view what) {
  std::uint64_t v = 0;
  if (peek().kind != TokKind::Number || !parse_int_literal(peek().text, v))
    fail(peek(), fmt::format("expected {} (an integer), found {}", what, describe(peek())));
  next();
  return v;
}

bool parse_int_literal(std::string_view t, std::uint64_t& value) {
  if (!t.empty() && (t.back() == 'U' || t.back() == 'u')) t.remove_suffix(1);
  int base = 10;
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
    base = 16;
    t.remove_prefix(2);
  } else if (t.size() > 2 && t[0] == '0' && (t[1] == 'b' || t[1] == 'B')) {
    base = 2;
    t.remove_prefix(2);
  } else if (t.size() > 1 && t[0] == '0') {
    base = 8;
    t.remove_prefix(1);
  }
  if (t.empty()) return false;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), value, base);
  return ec == std::errc() && p == t.data() + t.size();
}

bool is_float_literal(std::string_view t) {
  if (t.size() > 1 && t[0] == '0' && (t[1] == 'f' || t[1] == 'F' || t[1] == 'd' || t[1] == 'D'))
    return true;
  return t.find_first_of(".eE") != std::string_view::npos &&
         !(t.size() > 1 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X'));
}

bool parse_float_literal(std::string_view t, double& value) {
  if (t.size() > 1 && t[0] == '0' && (t[1] == 'f' || t[1] == 'F' || t[1] == 'd' || t[1] == 'D')) {
    const bool single = t[1] == 'f' || t[1] == 'F';
    std::string_view hex = t.substr(2);
    if (hex.size() != (single ? 8u : 16u)) return false;
    std::uint64_t bits = 0;
    auto [p, ec] = std::from_chars(hex.data(), hex.data() + hex.size(), bits, 16);
    if (ec != std::errc() || p != hex.data() + hex.size()) return false;
    value = single ? static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(bits)))
                   : std::bit_cast<double>(bits);
    return true;
  }
  if (!is_float_literal(t)) return false;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
  return ec == std::errc() && p == t.data() + t.size();
}

// ---- kernel builder
// -------------------------------------------------------------------------------

std::uint32_t KernelBuilder::find_reg(std::string_view name) const {
  const std::string key(name);
  for (auto it = reg_scopes.rbegin(); it != reg_scopes.rend(); ++it) {
    auto f = it->find(key);
    if (f != it->end()) return f->second;
  }
  return kNone;
}

std::uint32_t KernelBuilder::find_symbol(std::string_view name) {
  const std::string key(name);
  if (auto f = symbols.find(key); f != symbols.end()) return f->second;
  for (const Symbol& g : module.globals) {
    if (g.name == key) {
      const auto idx = static_cast<std::uint32_t>(kernel.symbols.size());
      kernel.symbols.push_back(g);
      symbols.emplace(key, idx);
      return idx;
    }
  }
  return kNone;
}

}  // namespace smemsim::ptx
