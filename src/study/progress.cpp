#include "progress.hpp"

#include <fmt/format.h>

namespace smemsim::study {

std::string human_rate(double v) {
  if (v >= 1e9) return fmt::format("{:.2f} G", v / 1e9);
  if (v >= 1e6) return fmt::format("{:.2f} M", v / 1e6);
  if (v >= 1e3) return fmt::format("{:.1f} k", v / 1e3);
  return fmt::format("{:.1f} ", v);
}

namespace {
std::string clock_text(double s) {
  if (!(s >= 0) || s > 1e7) return "?";
  const auto t = static_cast<long>(s + 0.5);
  return t >= 3600 ? fmt::format("{}:{:02}:{:02}", t / 3600, (t / 60) % 60, t % 60)
                   : fmt::format("{}:{:02}", t / 60, t % 60);
}
}  // namespace

Progress::Progress(std::ostream* out, std::string label, std::size_t total, bool terminal)
    : out_(out),
      label_(std::move(label)),
      total_(total),
      terminal_(terminal),
      start_(std::chrono::steady_clock::now()),
      last_(start_) {}

double Progress::elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void Progress::tick(std::uint64_t accesses) {
  std::lock_guard lock(mu_);
  ++done_;
  accesses_ += accesses;
  const auto now = std::chrono::steady_clock::now();
  const double since = std::chrono::duration<double>(now - last_).count();
  if (since >= (terminal_ ? 0.1 : 5.0)) {
    last_ = now;
    draw(false);
  }
}

void Progress::finish() {
  std::lock_guard lock(mu_);
  draw(true);
}

void Progress::draw(bool final_line) {
  if (!out_) return;
  const double t = elapsed();
  const double rate = t > 0 ? double(done_) / t : 0.0;
  const double arate = t > 0 ? double(accesses_) / t : 0.0;
  const double eta = rate > 0 ? double(total_ - done_) / rate : -1.0;
  const double frac = total_ ? double(done_) / double(total_) : 1.0;
  if (terminal_) {
    constexpr int kWidth = 28;
    const int filled = static_cast<int>(frac * kWidth);
    *out_ << fmt::format("\r{} [{}{}] {}/{} points {:.1f}/s {}accesses/s ETA {}  ", label_,
                         std::string(static_cast<std::size_t>(filled), '#'),
                         std::string(static_cast<std::size_t>(kWidth - filled), '.'), done_, total_,
                         rate, human_rate(arate), final_line ? "0:00" : clock_text(eta));
    if (final_line) *out_ << "\n";
  } else {
    *out_ << fmt::format("{}: {}/{} points ({:.0f}%), {:.1f} points/s, {}accesses/s, {} {}\n",
                         label_, done_, total_, 100.0 * frac, rate, human_rate(arate),
                         final_line ? "elapsed" : "ETA",
                         final_line ? clock_text(t) : clock_text(eta));
  }
  out_->flush();
}

}  // namespace smemsim::study
