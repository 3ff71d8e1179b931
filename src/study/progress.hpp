// A small progress reporter (DESIGN.md: no progress-bar package). On a terminal (isatty(stderr)) it
// redraws one line with a bar, the rate and the ETA; otherwise it prints a plain log line at most
// every few seconds and at the end. Thread-safe: points finish on oneTBB workers.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <ostream>
#include <string>

namespace smemsim::study {

class Progress {
 public:
  Progress(std::ostream* out, std::string label, std::size_t total, bool terminal);
  // One more point done, `accesses` warp accesses evaluated for it.
  void tick(std::uint64_t accesses);
  void finish();
  double elapsed() const;
  std::uint64_t accesses() const { return accesses_; }

 private:
  void draw(bool final_line);
  std::ostream* out_;
  std::string label_;
  std::size_t total_, done_ = 0;
  std::uint64_t accesses_ = 0;
  bool terminal_;
  std::chrono::steady_clock::time_point start_, last_;
  std::mutex mu_;
};

// "1.2 M", "340 k" ...
std::string human_rate(double per_second);

}  // namespace smemsim::study
