// Laying out a study figure's page. Text sizes are estimated from the font (Sans 11 at about 7
// pixels a character; bar labels at 8 points, about 5.5), which is what decides whether tick
// labels fit flat and how wide a legend column is.
#include "plot_layout.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace smemsim::study {
namespace {

constexpr double kCharPx = 7.6;       // Sans 11
constexpr double kSmallCharPx = 5.5;  // Sans 8 (bar labels)
constexpr double kLinePx = 16.0;      // a character row (gnuplot margins count these)

bool bars(const Figure& f) {
  return f.stacked || f.clustered;
}

std::size_t longest(const std::vector<std::string>& v) {
  std::size_t n = 0;
  for (const std::string& s : v) n = std::max(n, s.size());
  return n;
}

// At most kMaxPanels panels, evenly spread over the figure's panels in order (first and last
// kept); `note` says so.
std::vector<const Figure*> chosen_panels(const Figure& f, std::string& note) {
  std::vector<const Figure*> out;
  if (f.panels.empty()) return {&f};
  const std::size_t n = f.panels.size();
  if (n <= kMaxPanels) {
    for (const Figure& p : f.panels) out.push_back(&p);
    return out;
  }
  for (std::size_t i = 0; i < kMaxPanels; ++i)
    out.push_back(&f.panels[(i * (n - 1) + (kMaxPanels - 1) / 2) / (kMaxPanels - 1)]);
  note = fmt::format(
      "{} of {} panels drawn, evenly spaced in order (the first and the last among them); "
      "points.csv and report.md have every one",
      kMaxPanels, n);
  return out;
}

AxisRange padded(double lo, double hi, double pad) {
  if (!(hi > lo)) {
    const double d = lo == 0 ? 1 : std::abs(lo) * 0.1;
    return {lo - d, hi + d};
  }
  return {lo - pad * (hi - lo), hi + pad * (hi - lo)};
}

// The y range every panel shares: bars from 0 (or near the data and the reference line), lines
// near the data (from 0 when the data comes close to it).
AxisRange y_range(const Figure& f, const std::vector<const Figure*>& panels) {
  std::vector<double> v;
  for (const Figure* p : panels) {
    if (f.stacked) {
      for (std::size_t c = 0; c < p->categories.size(); ++c) v.push_back(bar_top(f, *p, c));
      continue;
    }
    for (const Series& s : p->series)
      for (double y : s.y)
        if (std::isfinite(y) && (!f.logy || y > 0)) v.push_back(y);
  }
  const bool ref = std::isfinite(f.ref_y);
  if (v.empty()) return ref ? padded(f.ref_y, f.ref_y, 0) : AxisRange{0, 1};
  double lo = *std::min_element(v.begin(), v.end()), hi = *std::max_element(v.begin(), v.end());
  if (f.logy) return {lo / 1.4, hi * 1.4};
  const double data_lo = lo;
  if (bars(f)) {  // a bar's length is its value: the axis starts at zero (issue 47), ref or not
    if (ref) hi = std::max(hi, f.ref_y), lo = std::min(lo, f.ref_y);
    return {std::min(lo, 0.0), hi > 0 ? hi * 1.06 : 1.0};
  }
  if (ref) {
    lo = std::min(lo, f.ref_y);
    hi = std::max(hi, f.ref_y);
    AxisRange r = padded(lo, hi, 0.12);
    if (data_lo >= 0) r.lo = std::max(r.lo, 0.0);
    return r;
  }
  if (lo >= 0 && lo < 0.25 * hi) lo = 0;
  AxisRange r = padded(lo, hi, 0.06);
  if (data_lo >= 0) r.lo = std::max(r.lo, 0.0);
  return r;
}

// `v` with the SI prefix of 10^p (p a multiple of 3, 0 to 12) and `decimals` decimals, trailing
// zeros of a fraction kept (a tick column reads alike): 1.05M, 780k, 26M.
std::string si(double v, int p, int decimals) {
  static constexpr const char* kPrefix[] = {"", "k", "M", "G", "T"};
  if (v == 0) return "0";
  return fmt::format("{:.{}f}{}", v / std::pow(10.0, p), decimals, kPrefix[p / 3]);
}
int si_power(double v) {
  return v >= 1000 ? std::clamp(int(std::floor(std::log10(v) / 3)) * 3, 0, 12) : 0;
}

// Ticks of a linear SI axis: a 1-2-2.5-5 step giving about six, labelled with the prefix of the
// axis's largest value and the decimals that step needs.
std::vector<std::pair<double, std::string>> si_ticks(AxisRange r) {
  std::vector<std::pair<double, std::string>> t;
  const double raw = (r.hi - r.lo) / 6;
  if (!(raw > 0)) return t;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = 10 * mag;
  for (double m : {1.0, 2.0, 2.5, 5.0})
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  const int p = si_power(std::max(std::abs(r.lo), std::abs(r.hi)));
  int decimals = 0;
  const double unit = step / std::pow(10.0, p);
  while (decimals < 4) {
    const double scaled = unit * std::pow(10.0, decimals);
    if (std::abs(scaled - std::round(scaled)) < 1e-6 * std::max(1.0, scaled)) break;
    ++decimals;
  }
  for (double v = std::ceil(r.lo / step - 1e-9) * step; v <= r.hi + 1e-9 * step; v += step)
    t.emplace_back(v, si(std::abs(v) < 1e-9 * step ? 0 : v, p, decimals));
  return t;
}

// Ticks of a log axis: 1, 2, 5 x 10^k within the range; 1..9 x 10^k when that gives fewer than
// three. Each labelled with its own prefix (200k, 1M), decimals only where needed (1.5M).
std::vector<std::pair<double, std::string>> log_ticks(AxisRange r) {
  std::vector<std::pair<double, std::string>> t;
  if (!(r.lo > 0) || !(r.hi > r.lo)) return t;
  for (const auto& mantissas :
       {std::vector<double>{1, 2, 5}, std::vector<double>{1, 1.5, 2, 3, 4, 5, 6, 7, 8, 9}}) {
    t.clear();
    for (int k = int(std::floor(std::log10(r.lo))); k <= int(std::ceil(std::log10(r.hi))); ++k)
      for (double m : mantissas) {
        const double v = m * std::pow(10.0, k);
        if (v < r.lo || v > r.hi) continue;
        const int p = si_power(v);
        const double u = v / std::pow(10.0, p);
        t.emplace_back(v, si(v, p, std::abs(u - std::round(u)) < 1e-9 ? 0 : 1));
      }
    if (t.size() >= 3) break;
  }
  return t;
}

AxisRange x_range(const Figure& f, const std::vector<const Figure*>& panels) {
  std::vector<double> v;
  for (const Figure* p : panels)
    for (const Series& s : p->series)
      for (double x : s.x)
        if (std::isfinite(x) && (!f.logx || x > 0)) v.push_back(x);
  if (v.empty()) return {f.logx ? 1.0 : 0.0, f.logx ? 2.0 : 1.0};
  const double lo = *std::min_element(v.begin(), v.end()),
               hi = *std::max_element(v.begin(), v.end());
  if (f.logx) return {lo / 1.25, hi * 1.25};
  return padded(lo, hi, 0.03);
}

}  // namespace

std::string gp_quote(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    if (c == '\n' || c == '\r') c = ' ';
    o += c;
  }
  return o + "\"";
}

double bar_top(const Figure& f, const Figure& panel, std::size_t c) {
  double sum = 0, top = 0;
  for (const Series& s : panel.series)
    if (c < s.y.size() && std::isfinite(s.y[c])) {
      sum += std::max(s.y[c], 0.0);
      top = std::max(top, s.y[c]);
    }
  return f.stacked ? sum : top;
}

std::vector<std::string> wrap(const std::string& text, std::size_t width) {
  std::vector<std::string> lines;
  std::string line;
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t j = std::min(text.find(' ', i), text.size());
    const std::string word = text.substr(i, j - i);
    i = j + 1;
    if (word.empty()) continue;
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      lines.push_back(std::move(line));
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty()) lines.push_back(std::move(line));
  return lines;
}

std::size_t PlotLayout::style_of(const Figure& panel, std::size_t s) const {
  const auto it = std::find(series_titles.begin(), series_titles.end(), panel.series[s].title);
  return std::size_t(it - series_titles.begin());
}

PlotLayout lay_out(const Figure& f) {
  PlotLayout l;
  l.panels = chosen_panels(f, l.condensed);
  const std::size_t n = l.panels.size();
  for (const Figure* p : l.panels)
    for (const Series& s : p->series)
      if (std::find(l.series_titles.begin(), l.series_titles.end(), s.title) ==
          l.series_titles.end())
        l.series_titles.push_back(s.title);

  // The grid: up to four columns, as square as the count allows.
  const std::size_t cols = n <= 3 ? n : n == 4 ? 2 : n <= 9 ? 3 : 4;
  const std::size_t rows = (n + cols - 1) / cols;

  // Panel size: wide enough for every category's bars, tall enough for turned tick labels.
  std::size_t categories = 0, cat_chars = 0, label_chars = 0;
  for (const Figure* p : l.panels) {
    categories = std::max(categories, p->categories.size());
    cat_chars = std::max(cat_chars, longest(p->categories));
    label_chars = std::max(label_chars, longest(p->bar_labels));
  }
  const double per_bar_px =
      !bars(f)      ? 0
      : f.clustered ? 10.0 * double(std::max<std::size_t>(1, l.series_titles.size())) + 14
                    : 24;
  double panel_w = n == 1 ? 960 : 440;
  panel_w = std::max(panel_w, 100 + double(categories) * per_bar_px);
  // Wider, up to 2,400 pixels a page, before tick labels turn.
  if (bars(f) && categories > 0)
    panel_w =
        std::max(panel_w, std::min(110 + double(categories) * double(cat_chars) * kCharPx / 0.75,
                                   2400.0 / double(cols)));
  panel_w = std::min(panel_w, std::max(2400.0 / double(cols), 300.0));
  const double plot_w = panel_w - 110;
  const double per_cat = categories ? plot_w / double(categories) : plot_w;
  l.rotate_xtics = bars(f) && double(cat_chars) * kCharPx > 0.8 * per_cat;
  l.rotate_bar_labels = double(label_chars) * kSmallCharPx > 0.95 * per_cat;
  // A label turned by 40 degrees drops about 0.64 of its length (4.5 pixels a character).
  l.bmargin = l.rotate_xtics ? int(std::clamp(3.0 + double(cat_chars) * 0.3, 4.0, 14.0)) : 3;
  if (f.xlabel.empty()) --l.bmargin;  // no axis label: the tick labels need only two rows
  l.rmargin = l.rotate_xtics ? int(std::clamp(double(cat_chars) * 0.55, 2.0, 12.0)) : 2;
  double panel_h = (n == 1 ? 470 : 300) + (l.bmargin - 3) * kLinePx;
  if (n > 1) panel_h += kLinePx;  // the panel's title

  // Text: the title (13 points) and the caption (9 points, grey), wrapped to the page.
  l.width = int(std::round(panel_w * double(cols)));
  std::vector<std::string> caption_parts;
  if (!f.caption.empty()) caption_parts.push_back(f.caption);
  if (!l.condensed.empty()) caption_parts.push_back(l.condensed);
  std::string caption;
  for (const std::string& c : caption_parts) caption += (caption.empty() ? "" : "; ") + c;
  const auto title_lines = wrap(f.title, std::size_t(double(l.width) / 10.0));  // Sans 13: ~9 px
  const auto caption_lines = wrap(caption, std::size_t(double(l.width) / 6.6));
  const double title_h = 10 + 20.0 * double(title_lines.size());
  const double caption_h = caption_lines.empty() ? 6 : 8 + 14.0 * double(caption_lines.size());

  double legend_px = 0;
  if (l.series_titles.size() > 1) {
    // gnuplot sizes a key column from its own estimate of the font, wider than the glyphs.
    const double column_px = (double(longest(l.series_titles)) + 10) * 8.5;
    l.legend_columns = int(std::clamp(std::floor((double(l.width) - 40) / column_px), 1.0,
                                      double(l.series_titles.size())));
    const std::size_t legend_rows = (l.series_titles.size() + std::size_t(l.legend_columns) - 1) /
                                    std::size_t(l.legend_columns);
    legend_px = 18 + 22.0 * double(legend_rows);
  }
  const double H = title_h + double(rows) * panel_h + legend_px + caption_h;
  l.height = int(std::round(H));

  double top = H - 10;  // pixels from the bottom
  for (const std::string& t : title_lines) {
    l.text.push_back({t, (top - 10) / H, 13, false});
    top -= 20;
  }
  for (std::size_t i = 0; i < caption_lines.size(); ++i)
    l.text.push_back({caption_lines[i], (caption_h - 10 - 14.0 * double(i)) / H, 9, true});
  l.legend_y = caption_h / H;
  l.legend_h = legend_px / H;
  const double grid_bottom = caption_h + legend_px;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t r = i / cols, c = i % cols;
    PanelBox b;
    b.w = panel_w / double(l.width);
    b.h = panel_h / H;
    b.x = double(c) * b.w;
    b.y = (grid_bottom + double(rows - 1 - r) * panel_h) / H;
    b.bottom_row = r == rows - 1 || i + cols >= n;
    b.left_column = c == 0;
    l.boxes.push_back(b);
  }
  l.y = y_range(f, l.panels);
  l.x = x_range(f, l.panels);
  // Room for the y tick labels (their digits, a sign, a decimal point) and the axis label.
  const double ymag = std::max(std::abs(l.y.lo), std::abs(l.y.hi));
  const int digits = ymag >= 1 ? int(std::floor(std::log10(ymag))) + 1 : 1;
  l.y_si_format = !f.logy && ymag >= 1e5;  // 780k, 26M: short ticks instead of 2.6x10^7
  l.lmargin = l.y_si_format ? 11 : std::clamp(digits + (l.y.hi - l.y.lo < 10 ? 7 : 5), 9, 16);
  if (bars(f) && label_chars > 0) {  // headroom above the bars for their labels
    const double plot_h = panel_h - double(l.bmargin + 2) * kLinePx;
    const double label_px = l.rotate_bar_labels ? double(label_chars) * kSmallCharPx + 10 : 18;
    const double frac = std::min(0.6, label_px / std::max(plot_h, 1.0));
    l.y.hi = l.y.lo + (l.y.hi - l.y.lo) / (1 - frac);
  }
  if (f.logy)
    l.yticks = log_ticks(l.y);
  else if (l.y_si_format)
    l.yticks = si_ticks(l.y);
  return l;
}

}  // namespace smemsim::study
