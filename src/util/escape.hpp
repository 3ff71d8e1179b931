// Control bytes made visible, for text from a user's files that a message or a view echoes.
#pragma once

#include <string>

#include <fmt/format.h>

namespace smemsim {

// Appends `ch`, or its "\xNN" text for a control byte (a tab kept, a line break kept when
// `keep_line_break`) and DEL. UTF-8 bytes (>= 0x80) are kept.
inline void append_escaped(std::string& out, char ch, bool keep_line_break) {
  const auto c = static_cast<unsigned char>(ch);
  if ((c < 0x20 && c != '\t' && !(keep_line_break && c == '\n')) || c == 0x7f)
    out += fmt::format("\\x{:02x}", c);
  else
    out += ch;
}

}  // namespace smemsim
