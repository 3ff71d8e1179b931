// Tables and lines for people, fitted to a width (profile's 100 columns, issue 10 item 6): columns
// sized to their contents, one flexible column (the instruction) taking what is left and cut with
// "...", notes under a row cut to the width, and long lines wrapped at ", ".
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace smemsim::cli {

// The number of columns `s` takes (UTF-8 code points).
std::size_t text_width(std::string_view s);
// `s` cut to `width` columns, ending in "..." when cut; unchanged when width is 0.
std::string fit(std::string_view s, std::size_t width);
// `s` as lines of at most `width` columns, broken after ", " or "; " (else at a space;
// continuations indented by `indent`); one line when width is 0 or it fits. Each line ends in
// '\n'.
std::string wrap(std::string_view s, std::size_t width, std::size_t indent = 2);

class TextTable {
 public:
  struct Column {
    std::string header;
    bool left = false;    // left-aligned (numbers are right-aligned)
    bool flex = false;    // takes the width the others leave (at most one column)
    std::size_t max = 0;  // cut cells to this many columns (0: no limit)
  };
  explicit TextTable(std::vector<Column> columns) : columns_(std::move(columns)) {}
  // A row (one cell per column) and notes printed under it, indented past the first column.
  void add(std::vector<std::string> cells, std::vector<std::string> notes = {});
  // The header and rows; every line at most `width` columns (0: no limit).
  std::string render(std::size_t width) const;

 private:
  struct Row {
    std::vector<std::string> cells, notes;
  };
  std::vector<Column> columns_;
  std::vector<Row> rows_;
};

}  // namespace smemsim::cli
