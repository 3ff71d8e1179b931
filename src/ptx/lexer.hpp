// Lexer of PTX text: words (identifiers, directives, mnemonics with their dotted modifiers,
// registers), numbers, strings and punctuation, each with its line. Comments are dropped.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace smemsim::ptx {

enum class TokKind : std::uint8_t { Word, Number, String, Punct, End };

// 24 bytes (the kind last: 32 with it first); a PTX file lexes to about ten per line.
struct Token {
  std::string_view text;  // view into the source text (String: without the quotes)
  std::uint32_t line = 0;
  TokKind kind = TokKind::End;

  bool is(char c) const { return kind == TokKind::Punct && text.size() == 1 && text[0] == c; }
  bool is_word(std::string_view w) const { return kind == TokKind::Word && text == w; }
};

// Splits `text` into tokens; the last token is End. Throws InputError (`filename:line:`) on a
// character that cannot start a token or an unterminated string/comment.
std::vector<Token> lex(std::string_view text, const std::string& filename);

}  // namespace smemsim::ptx
