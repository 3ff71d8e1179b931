// Error types shared by the library and the CLI.
//
// InputError: bad usage or bad input (a malformed file, an unknown key, an impossible value). The
// CLI prints it as `smemsim: error: <what>` and exits 2. Its message already carries `file:line:`
// where an input file is involved.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace smemsim {

// A message as it may be shown (issue 48): control bytes other than a line break or a tab as \xNN
// (a NUL cut the message short where it was read as a C string; an escape sequence from a file
// would drive the terminal), and a run of more than 200 bytes without a space (a mutated token,
// a line of binary) cut to its first 80 with "...(N more bytes)". UTF-8 text is kept.
std::string message_text(std::string_view text);

class InputError : public std::runtime_error {
 public:
  explicit InputError(const std::string& what) : std::runtime_error(message_text(what)) {}
  explicit InputError(const char* what) : InputError(std::string(what)) {}
};

// Formats "file:line: message" (line omitted when 0).
std::string located(const std::string& file, std::uint64_t line, const std::string& message);
// Input text as an error message may echo it: control and non-ASCII bytes as \xNN (a NUL would cut
// the message, binary noise would garble the terminal), cut to `max` characters with "...".
std::string printable(std::string_view text, std::size_t max = 40);
// A TOML parser's description in smemsim's words: "TOML syntax error in a decimal integer: ..."
// for toml++'s "Error while parsing decimal integer: ...", non-printable bytes escaped.
std::string toml_syntax_message(std::string_view description);

}  // namespace smemsim
