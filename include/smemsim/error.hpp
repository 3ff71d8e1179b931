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

class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
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
