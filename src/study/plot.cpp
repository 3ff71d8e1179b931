// Figures as gnuplot scripts + data files, rendered to PNG and SVG (and PDF where gnuplot has
// cairo). One script draws a figure's panels (small multiples, shared axes) on a page laid out
// here: the title on top, the panels, one legend strip (only with several series), the caption.
// Without gnuplot on PATH the scripts and data are still written and a warning is logged.
#include "plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "plot_layout.hpp"
#include "util/output_file.hpp"

namespace smemsim::study {
namespace {

bool have_gnuplot() {
  static const bool have = std::system("command -v gnuplot >/dev/null 2>&1") == 0;
  return have;
}
bool have_terminal(const char* name) {
  return std::system(fmt::format("gnuplot -e 'set terminal {}' >/dev/null 2>&1", name).c_str()) ==
         0;
}
struct Terminals {
  std::string png, pdf;  // "" when missing (SVG is built into gnuplot)
};
const Terminals& terminals() {
  static const Terminals t{have_terminal("pngcairo") ? "pngcairo" : "png",
                           have_terminal("pdfcairo") ? "pdfcairo" : ""};
  return t;
}

// Okabe & Ito's colour-blind-safe palette (Color Universal Design, 2008), yellow last (weak on
// white); past eight series the dash pattern (lines) or fill pattern (bars) changes too.
constexpr const char* kPalette[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                    "#E69F00", "#56B4E9", "#000000", "#F0E442"};
constexpr std::size_t kColours = std::size(kPalette);

// Every second series is dashed (issue 47: "32 bins, all" hid "32 bins" under it): where two
// coincide the earlier one shows in the later one's gaps, and a series and its variant ("X", "X +
// pad") read as a pair. Past eight series the colours repeat with dot-dash and short dashes.
std::string line_style(std::size_t k) {
  const int dt = int(k % 2) + 1 + 2 * int((k / kColours) % 2);  // 1 2 | 3 4
  return fmt::format("lw 2 lc rgb '{}' dt {} pt {} ps 0.9", kPalette[k % kColours], dt, k % 13 + 1);
}
std::string bar_style(std::size_t k) {
  return k < kColours ? fmt::format("lc rgb '{}' fs solid 0.85 border rgb '#333333'", kPalette[k])
                      : fmt::format("lc rgb '{}' fs pattern {} border rgb '#333333'",
                                    kPalette[k % kColours], (k / kColours - 1) % 7 + 1);
}

// The data file: lines, one block per panel and series (its gnuplot index in `index`, -1 when
// empty); bars, one block per panel (category, one column per series, total, label).
std::string data_text(const Figure& f, const PlotLayout& l, std::vector<std::vector<int>>& index) {
  std::ostringstream dat;
  int next = 0;
  for (std::size_t p = 0; p < l.panels.size(); ++p) {
    const Figure& panel = *l.panels[p];
    if (f.stacked || f.clustered) {
      dat << "# panel " << p << (panel.title.empty() ? "" : ": " + panel.title) << "\n# category";
      for (const Series& s : panel.series) dat << " " << gp_quote(s.title);
      dat << " top label\n";
      for (std::size_t c = 0; c < panel.categories.size(); ++c) {
        dat << gp_quote(panel.categories[c]);
        for (const Series& s : panel.series)
          dat << fmt::format(" {:.9g}", c < s.y.size() ? s.y[c] : 0.0);
        dat << fmt::format(" {:.9g} {}\n", bar_top(f, panel, c),
                           gp_quote(c < panel.bar_labels.size() ? panel.bar_labels[c] : ""));
      }
      dat << "\n\n";
      continue;
    }
    index.emplace_back();
    for (const Series& s : panel.series) {
      std::size_t points = 0;
      dat << "# panel " << p << ": " << panel.title << " / " << s.title << "\n";
      for (std::size_t i = 0; i < std::min(s.x.size(), s.y.size()); ++i)
        if (std::isfinite(s.x[i]) && std::isfinite(s.y[i]) && (!f.logy || s.y[i] > 0) &&
            (!f.logx || s.x[i] > 0)) {
          dat << fmt::format("{:.9g} {:.9g}\n", s.x[i], s.y[i]);
          ++points;
        }
      dat << "\n\n";
      index.back().push_back(points ? next : -1);
      ++next;
    }
  }
  return dat.str();
}

std::string range(double lo, double hi) {
  return fmt::format("[{:.9g}:{:.9g}]", lo, hi);
}

void panel_axes(const Figure& f, const PlotLayout& l, std::size_t p, std::ostream& gp) {
  const Figure& panel = *l.panels[p];
  const PanelBox& b = l.boxes[p];
  gp << fmt::format("set origin {:.5f},{:.5f}\nset size {:.5f},{:.5f}\n", b.x, b.y, b.w, b.h);
  if (l.panels.size() > 1)
    gp << "set title " << gp_quote(panel.title) << " font ',10' noenhanced\n";
  gp << "set xlabel " << gp_quote(b.bottom_row ? f.xlabel : "") << " noenhanced\n";
  gp << "set ylabel " << gp_quote(b.left_column ? f.ylabel : "") << " noenhanced\n";
  gp << "set yrange " << range(l.y.lo, l.y.hi) << "\n";
  if (!l.yticks.empty()) {
    gp << "set ytics (";
    for (std::size_t i = 0; i < l.yticks.size(); ++i)
      gp << (i ? ", " : "") << gp_quote(l.yticks[i].second)
         << fmt::format(" {:.9g}", l.yticks[i].first);
    gp << ")\n";
  }
  if (std::isfinite(f.ref_y))
    gp << fmt::format(
        "set arrow 1 from graph 0, first {0:.9g} to graph 1, first {0:.9g} nohead dt 2 lw 1.5 "
        "lc rgb '#222222' front\n",
        f.ref_y);
  gp << fmt::format("set lmargin {}\nset bmargin {}\nset rmargin {}\n", l.lmargin, l.bmargin,
                    l.rmargin);
  if (f.stacked || f.clustered) {
    gp << "set xrange [-0.6:" << double(panel.categories.size()) - 0.4 << "]\n";
    gp << (l.rotate_xtics ? "set xtics rotate by -40 left\n" : "set xtics norotate\n");
  } else {
    gp << "set xrange " << range(l.x.lo, l.x.hi) << "\n";
  }
}

void panel_plot(const Figure& f, const PlotLayout& l, std::size_t p,
                const std::vector<std::vector<int>>& index, std::ostream& gp) {
  const Figure& panel = *l.panels[p];
  const std::string dat = gp_quote(f.name + ".dat");
  std::vector<std::string> parts;
  if (f.stacked || f.clustered) {
    for (std::size_t s = 0; s < panel.series.size(); ++s)
      parts.push_back(fmt::format("{} index {} using {}{} {} notitle", dat, p, s + 2,
                                  s == 0 ? ":xtic(1)" : "", bar_style(l.style_of(panel, s))));
    const bool labels = std::any_of(panel.bar_labels.begin(), panel.bar_labels.end(),
                                    [](const std::string& x) { return !x.empty(); });
    if (labels && !panel.categories.empty())
      parts.push_back(fmt::format(
          "{} index {} using 0:{}:{} with labels {} font ',8' tc rgb '#222222' notitle", dat, p,
          panel.series.size() + 2, panel.series.size() + 3,
          l.rotate_bar_labels ? "rotate by 90 left offset 0,0.4" : "center offset 0,0.8"));
  } else {
    for (std::size_t s = 0; s < panel.series.size(); ++s)
      if (index[p][s] >= 0)
        parts.push_back(fmt::format("{} index {} using 1:2 with linespoints {} notitle", dat,
                                    index[p][s], line_style(l.style_of(panel, s))));
  }
  if (parts.empty()) {  // nothing to draw: say so on an empty frame
    gp << "set label 80 'no data' at graph 0.5, graph 0.5 center\nplot NaN notitle\n"
          "unset label 80\n";
    return;
  }
  gp << "plot " << parts.front();
  for (std::size_t i = 1; i < parts.size(); ++i) gp << ", \\\n     " << parts[i];
  gp << "\n";
}

// The legend strip: an empty plot whose key lists every series once, in its style.
void legend(const Figure& f, const PlotLayout& l, std::ostream& gp) {
  gp << fmt::format(
      "set origin 0,{:.5f}\nset size 1,{:.5f}\nunset title\nunset xlabel\nunset ylabel\n"
      "unset arrow\nunset tics\nunset border\nunset grid\nunset logscale\nset margins 0,0,0,0\n"
      "set xrange [0:1]\nset yrange [0:1]\nset key center center horizontal reverse Left "
      "noenhanced "
      "samplen 3 spacing 1.2 maxcols {}\n",
      l.legend_y, l.legend_h, l.legend_columns);
  gp << "plot ";
  for (std::size_t k = 0; k < l.series_titles.size(); ++k)
    gp << (k ? ", \\\n     " : "") << "NaN "
       << (f.stacked || f.clustered ? "with boxes " + bar_style(k)
                                    : "with linespoints " + line_style(k))
       << " title " << gp_quote(l.series_titles[k]);
  gp << "\n";
}

std::string body(const Figure& f, const PlotLayout& l, const std::vector<std::vector<int>>& index) {
  std::ostringstream gp;
  gp << "reset\nset encoding utf8\nset multiplot\nunset key\n";
  gp << (f.stacked || f.clustered ? "set grid ytics lc rgb '#cccccc'\n"
                                  : "set grid lc rgb '#cccccc'\n");
  if (f.logx) gp << "set logscale x 2\n";
  if (f.logy) gp << "set logscale y\n";
  if (f.stacked || f.clustered)
    gp << "set style data histograms\nset style histogram "
       << (f.clustered ? "clustered gap 1" : "rowstacked")
       << "\nset boxwidth 0.75\nset xtics noenhanced nomirror scale 0\n";
  int tag = 90;
  for (const TextLine& t : l.text)
    gp << fmt::format("set label {} {} at screen 0.5, screen {:.5f} center font ',{}' {}\n", tag++,
                      gp_quote(t.text), t.y, t.font,
                      t.grey ? "tc rgb '#444444' noenhanced" : "noenhanced");
  for (std::size_t p = 0; p < l.panels.size(); ++p) {
    panel_axes(f, l, p, gp);
    panel_plot(f, l, p, index, gp);
    if (p == 0)
      for (int t = 90; t < tag; ++t) gp << "unset label " << t << "\n";
  }
  if (l.series_titles.size() > 1) legend(f, l, gp);
  gp << "unset multiplot\n";
  return gp.str();
}

}  // namespace

std::string render_figure(const Figure& f, const std::string& dir, std::ostream* log) {
  const std::string base = dir + "/" + f.name;
  const PlotLayout l = lay_out(f);
  std::vector<std::vector<int>> index;
  {
    write_output_file(base + ".dat", "figure data", data_text(f, l, index));
    const std::string drawing = body(f, l, index);
    OutputFile gp_file(base + ".gp", "figure script");
    std::ostream& gp = gp_file.stream();
    gp << "# " << f.title << "\n# smemsim study figure; run: gnuplot " << f.name << ".gp (writes "
       << f.name << ".png and " << f.name << ".svg"
       << (terminals().pdf.empty() ? "" : ", " + f.name + ".pdf") << ")\n";
    if (!l.condensed.empty()) gp << "# " << l.condensed << "\n";
    // One drawing, once per format: a restyle edits one place.
    const bool pdf = !terminals().pdf.empty();
    gp << fmt::format("do for [format in \"png svg{}\"] {{\n", pdf ? " pdf" : "");
    gp << fmt::format(
        "if (format eq \"png\") {{ set terminal {} size {},{} font 'Sans,11' }}\n"
        "if (format eq \"svg\") {{ set terminal svg size {},{} font 'Sans,11' background "
        "'#ffffff' }}\n",
        terminals().png, l.width, l.height, l.width, l.height);
    if (pdf)  // 72 points per inch: the PNG's proportions, in points
      gp << fmt::format(
          "if (format eq \"pdf\") {{ set terminal pdfcairo size {:.3f}in,{:.3f}in font "
          "'Sans,11' }}\n",
          l.width / 72.0, l.height / 72.0);
    gp << "set output " << gp_quote(f.name + ".") << ".format\n" << drawing << "}\nset output\n";
    gp_file.commit();
  }
  if (!have_gnuplot()) {
    if (log) *log << "smemsim: warning: gnuplot not found; wrote " << base << ".gp without a PNG\n";
    return {};
  }
  const std::string cmd =
      fmt::format("cd '{}' && gnuplot '{}.gp' > '{}.gp.log' 2>&1", dir, f.name, f.name);
  if (std::system(cmd.c_str()) != 0) {
    if (log) *log << "smemsim: warning: gnuplot failed on " << base << ".gp (see .gp.log)\n";
    return {};
  }
  std::remove((base + ".gp.log").c_str());
  return base + ".png";
}

}  // namespace smemsim::study
