// The page of a study figure (src/study/plot_layout.cpp): which panels are drawn and where, the
// shared axis ranges, when tick and bar labels turn, the legend strip and the wrapped title and
// caption, all in pixels of the PNG (the SVG and PDF keep its proportions).
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "smemsim/study.hpp"

namespace smemsim::study {

inline constexpr std::size_t kMaxPanels = 16;

struct AxisRange {
  double lo = 0, hi = 1;
};
struct PanelBox {
  double x = 0, y = 0, w = 1, h = 1;  // screen fractions
  bool bottom_row = true, left_column = true;
};
struct TextLine {
  std::string text;
  double y = 0;  // screen fraction of its centre
  int font = 11;
  bool grey = false;
};

struct PlotLayout {
  int width = 960, height = 600;
  std::vector<const Figure*> panels;  // the figure itself, or its panels (at most kMaxPanels)
  std::string condensed;              // how the panels were condensed, else ""
  std::vector<PanelBox> boxes;
  AxisRange x, y;  // shared by every panel (x unused for bars)
  int lmargin = 10, bmargin = 3,
      rmargin = 2;  // character units, the same in every panel (aligned frames)
  bool rotate_xtics = false, rotate_bar_labels = false;
  bool y_si_format = false;  // y ticks as 780k, 26M
  // The y ticks, where the layout sets them: an SI axis at a step its labels resolve ("1.05M",
  // not "1.1M" twice) and a log axis at 1-2-5 (more where that gives fewer than three), each
  // labelled (issue 47: a log axis within one decade had a single label). Empty: gnuplot's.
  std::vector<std::pair<double, std::string>> yticks;
  std::vector<TextLine> text;              // title lines, caption lines
  std::vector<std::string> series_titles;  // every panel's series, once each, in order
  double legend_y = 0, legend_h = 0;       // screen fractions; drawn with > 1 series
  int legend_columns = 1;
  // The style (palette entry) of `panel`'s series `s`: its title's place in series_titles.
  std::size_t style_of(const Figure& panel, std::size_t s) const;
};

PlotLayout lay_out(const Figure& f);

// A gnuplot double-quoted string.
std::string gp_quote(const std::string& s);
// The top of bar `c` of a panel (the stacked sum, or the tallest of the cluster).
double bar_top(const Figure& f, const Figure& panel, std::size_t c);
// Words of `text` on lines of at most `width` characters (a longer word stays whole).
std::vector<std::string> wrap(const std::string& text, std::size_t width);

}  // namespace smemsim::study
