#include "text_table.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace smemsim::cli {

std::size_t text_width(std::string_view s) {
  std::size_t n = 0;
  for (const char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

std::string fit(std::string_view s, std::size_t width) {
  if (width == 0 || text_width(s) <= width) return std::string(s);
  const std::size_t keep = width > 3 ? width - 3 : 0;
  std::size_t cols = 0, i = 0;
  for (; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80 && cols++ == keep) break;
  }
  return std::string(s.substr(0, i)) + std::string(std::min<std::size_t>(3, width), '.');
}

std::string wrap(std::string_view s, std::size_t width, std::size_t indent) {
  std::string out;
  std::string pad;
  while (width && text_width(s) + pad.size() > width) {
    // The last ", " or "; " that keeps the line within the width, else the last space.
    std::size_t cut = std::string_view::npos, space = std::string_view::npos;
    for (std::size_t i = 0; i + 1 < s.size(); ++i) {
      if (s[i + 1] != ' ' || text_width(s.substr(0, i + 1)) + pad.size() > width) continue;
      if (s[i] == ',' || s[i] == ';') cut = i + 1;
      space = i + 1;
    }
    if (cut == std::string_view::npos) cut = space;
    if (cut == std::string_view::npos || cut == 0) break;
    out += pad + std::string(s.substr(0, cut)) + "\n";
    s.remove_prefix(cut + 1);
    pad.assign(indent, ' ');
  }
  return out + pad + std::string(s) + "\n";
}

void TextTable::add(std::vector<std::string> cells, std::vector<std::string> notes) {
  cells.resize(columns_.size());
  rows_.push_back({std::move(cells), std::move(notes)});
}

std::string TextTable::render(std::size_t width) const {
  std::vector<std::size_t> w(columns_.size());
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    w[c] = text_width(columns_[c].header);
    for (const Row& r : rows_) w[c] = std::max(w[c], text_width(r.cells[c]));
    if (columns_[c].max)
      w[c] = std::min(w[c], std::max(columns_[c].max, text_width(columns_[c].header)));
  }
  if (width) {
    std::size_t used = 0;
    for (std::size_t c = 0; c < columns_.size(); ++c)
      if (!columns_[c].flex) used += w[c] + (c ? 1 : 0);
    for (std::size_t c = 0; c < columns_.size(); ++c)
      if (columns_[c].flex)
        w[c] = std::min(w[c], width > used + 2 + 10 ? width - used - 2 : std::size_t{10});
  }
  const auto line = [&](const std::vector<std::string>& cells) {
    std::string s;
    for (std::size_t c = 0; c < columns_.size(); ++c) {
      const std::string cell = fit(cells[c], w[c]);
      const std::string space(w[c] - text_width(cell), ' ');
      const bool last = c + 1 == columns_.size();
      if (c) s += columns_[c].flex ? "  " : " ";
      s += columns_[c].left ? cell + (last ? "" : space) : space + cell;
    }
    return s + "\n";
  };
  std::vector<std::string> header;
  for (const Column& col : columns_) header.push_back(col.header);
  std::string out = line(header);
  const std::string indent(w.empty() ? 0 : w[0] + 1, ' ');
  for (const Row& r : rows_) {
    out += line(r.cells);
    for (const std::string& n : r.notes) out += fit(indent + n, width) + "\n";
  }
  return out;
}

}  // namespace smemsim::cli
