// GPGPU-Sim's configuration files as words (gpgpusim_words.hpp).
#include "arch/gpgpusim_words.hpp"

#include <cctype>

#include <fmt/format.h>

#include "smemsim/error.hpp"

namespace smemsim::gpgpusim {

// The file as GPGPU-Sim's option parser reads it: `#` to the end of a line is a comment, words are
// separated by white space, and a double-quoted value is one word even across lines (the GTX 480
// configuration's -gpgpu_dram_timing_opt continues on the next line: the line break and the
// indentation around it are dropped). Each word keeps the line it starts on.
std::vector<Word> config_words(std::string_view text, const std::string& origin) {
  std::vector<Word> out;
  int line = 1;
  std::size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '\n') {
      ++line, ++i;
    } else if (c == '#') {
      while (i < text.size() && text[i] != '\n') ++i;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else {
      Word w{"", line};
      while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i]))) {
        if (text[i] != '"') {
          w.text += text[i++];
          continue;
        }
        const int opened = line;
        for (++i; i < text.size() && text[i] != '"'; ++i) {
          if (text[i] != '\n') {
            w.text += text[i];
            continue;
          }
          ++line;  // drop the break, the white space before it and the indentation after it
          while (!w.text.empty() && std::isspace(static_cast<unsigned char>(w.text.back())))
            w.text.pop_back();
          while (i + 1 < text.size() && (text[i + 1] == ' ' || text[i + 1] == '\t')) ++i;
        }
        if (i >= text.size())
          throw InputError(fmt::format("{}:{}: a quoted value is not closed (no '\"' after it)",
                                       origin, opened));
        ++i;  // the closing quote
      }
      out.push_back(std::move(w));
    }
  }
  return out;
}

// An option word: -name, not a negative number (a value such as -1).
bool is_option(const std::string& w) {
  return w.size() > 1 && w[0] == '-' && !std::isdigit(static_cast<unsigned char>(w[1])) &&
         w[1] != '.';
}

}  // namespace smemsim::gpgpusim
