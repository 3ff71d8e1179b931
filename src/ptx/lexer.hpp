// Lexer of PTX text: words (identifiers, directives, mnemonics with their dotted modifiers,
// registers), numbers, strings and punctuation, each with its line. Comments are dropped.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

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

// Tokens of `text` one at a time (issue 48: the parser holds a statement's tokens, not the file's;
// ten tokens a line took 250 bytes a line). Throws InputError (`filename:line:`) on a character
// that cannot start a token or an unterminated string/comment; after the last token, End forever.
class Lexer {
 public:
  Lexer(std::string_view text, const std::string& filename) : text_(text), filename_(&filename) {}
  Token next();
  // The ';' from here at brace depth `depth` up to the '}' that closes it (n counted before), by
  // its characters: comments and strings skipped, nothing kept, no error raised (the parser reports
  // one when it gets there).
  std::size_t statements_ahead(int depth, std::size_t n) const;

 private:
  std::string_view text_;
  const std::string* filename_;
  std::size_t i_ = 0;
  std::uint32_t line_ = 1;
};

}  // namespace smemsim::ptx
