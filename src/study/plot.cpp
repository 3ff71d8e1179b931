// Figures as gnuplot scripts + data files, rendered to PNG (pngcairo when available, else png).
// Without gnuplot on PATH the scripts and data are still written and a warning is logged.
#include "plot.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include <fmt/format.h>

namespace smemsim::study {
namespace {

std::string quote(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    o += c;
  }
  return o + "\"";
}

bool have_gnuplot() {
  static const bool have = std::system("command -v gnuplot >/dev/null 2>&1") == 0;
  return have;
}
std::string png_terminal() {
  static const std::string t =
      std::system("gnuplot -e 'set terminal pngcairo' >/dev/null 2>&1") == 0
          ? "pngcairo size 960,600 font 'Sans,11'"
          : "png size 960,600";
  return t;
}

void write_lines(const Figure& f, std::ofstream& dat, std::ofstream& gp) {
  for (std::size_t s = 0; s < f.series.size(); ++s) {
    dat << "# " << f.series[s].title << "\n";
    for (std::size_t i = 0; i < f.series[s].x.size(); ++i)
      dat << fmt::format("{:.9g} {:.9g}\n", f.series[s].x[i], f.series[s].y[i]);
    dat << "\n\n";
  }
  if (f.logx) gp << "set logscale x 2\n";
  if (f.logy) gp << "set logscale y\n";
  gp << "set key outside right top\nset grid\n";
  gp << "plot ";
  for (std::size_t s = 0; s < f.series.size(); ++s)
    gp << (s ? ", \\\n     " : "") << quote(f.name + ".dat") << " index " << s
       << " using 1:2 with linespoints lw 2 pt " << (s % 12) + 1 << " title "
       << quote(f.series[s].title);
  gp << "\n";
}

void write_stacked(const Figure& f, std::ofstream& dat, std::ofstream& gp) {
  dat << "# category";
  for (const auto& s : f.series) dat << " " << quote(s.title);
  dat << " total label\n";
  for (std::size_t c = 0; c < f.categories.size(); ++c) {
    double total = 0;
    dat << quote(f.categories[c]);
    for (const auto& s : f.series) {
      dat << fmt::format(" {:.9g}", s.y[c]);
      total += s.y[c];
    }
    dat << fmt::format(" {:.9g} {}\n", total,
                       quote(c < f.bar_labels.size() ? f.bar_labels[c] : std::string()));
  }
  gp << "set style data histograms\nset style histogram "
     << (f.clustered ? "clustered gap 1" : "rowstacked")
     << "\n"
        "set style fill solid 0.8 border -1\nset boxwidth 0.7\nset key outside right top\n"
        "set grid ytics\nset yrange [0:*]\nset xtics noenhanced\n";
  if (f.categories.size() > 8) {
    std::size_t longest = 0;
    for (const std::string& c : f.categories) longest = std::max(longest, c.size());
    gp << fmt::format("set xtics rotate by -40\nset bmargin {}\n",
                      std::clamp<std::size_t>(3 + longest * 2 / 3, 7, 16));
  }
  gp << fmt::format("set xrange [-0.6:{}]\nset offsets 0, 0, graph 0.08, 0\n",
                    double(f.categories.size()) - 0.4);
  const std::size_t n = f.series.size();
  gp << "plot ";
  for (std::size_t s = 0; s < n; ++s)
    gp << (s ? ", \\\n     " : "") << quote(f.name + ".dat") << " using " << s + 2
       << (s == 0 ? ":xtic(1)" : "") << " title " << quote(f.series[s].title);
  if (!f.bar_labels.empty())
    gp << ", \\\n     " << quote(f.name + ".dat") << " using 0:" << n + 2 << ":" << n + 3
       << " with labels offset 0,1.2 font ',8' notitle";
  gp << "\n";
}

}  // namespace

std::string render_figure(const Figure& f, const std::string& dir, std::ostream* log) {
  const std::string base = dir + "/" + f.name;
  {
    std::ofstream dat(base + ".dat");
    std::ofstream gp(base + ".gp");
    gp << "# " << f.title << " (smemsim study figure; run: gnuplot " << f.name << ".gp)\n";
    gp << "set terminal " << png_terminal() << "\n";
    gp << "set output " << quote(f.name + ".png") << "\n";
    gp << "set title " << quote(f.title) << " noenhanced\n";
    gp << "set xlabel " << quote(f.xlabel) << " noenhanced\nset ylabel " << quote(f.ylabel)
       << " noenhanced\nset key noenhanced\n";
    if (f.stacked || f.clustered)
      write_stacked(f, dat, gp);
    else
      write_lines(f, dat, gp);
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
