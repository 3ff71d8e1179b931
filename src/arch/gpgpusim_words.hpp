// GPGPU-Sim's configuration files as its option parser reads them: words, each with its line
// (gpgpusim_import.cpp maps the options).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace smemsim::gpgpusim {

struct Word {
  std::string text;
  int line = 0;
};
// `#` to the end of a line is a comment, words are separated by white space, and a double-quoted
// value is one word even across lines. InputError "origin:line: ..." for an unclosed quote.
std::vector<Word> config_words(std::string_view text, const std::string& origin);
// An option word: -name, not a negative number (a value such as -1).
bool is_option(const std::string& w);

}  // namespace smemsim::gpgpusim
