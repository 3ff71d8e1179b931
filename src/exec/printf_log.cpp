// PrintfLog (smemsim/debug.hpp): printf records per SM, merged in issue order when taken.
#include <algorithm>

#include "smemsim/debug.hpp"

namespace smemsim::exec {

void PrintfLog::add(std::uint64_t clock, std::uint32_t sm, std::string text, std::uint64_t limit) {
  const std::lock_guard<std::mutex> lock(m_);
  limit_ = limit;
  PerSm& s = sms_[sm];
  s.bytes += text.size();
  s.records.push_back({clock, s.seq++, sm, std::move(text)});
  // Older records that no longer fit cannot be among the newest `limit` bytes of all SMs either:
  // dropping them here bounds the memory and gives the same result as dropping them at take().
  while (s.bytes > limit_ && !s.records.empty()) {
    s.bytes -= s.records.front().text.size();
    s.records.pop_front();
    ++s.dropped;
  }
}

PrintfLog::Taken PrintfLog::take() {
  const std::lock_guard<std::mutex> lock(m_);
  std::vector<Record> all;
  Taken t;
  t.limit = limit_;
  for (auto& [sm, s] : sms_) {
    t.dropped += s.dropped;
    for (Record& r : s.records) all.push_back(std::move(r));
  }
  sms_.clear();
  std::sort(all.begin(), all.end(), [](const Record& a, const Record& b) {
    if (a.clock != b.clock) return a.clock < b.clock;
    if (a.sm != b.sm) return a.sm < b.sm;
    return a.seq < b.seq;
  });
  // The newest records that fit.
  std::size_t first = all.size();
  std::uint64_t bytes = 0;
  while (first > 0 && bytes + all[first - 1].text.size() <= t.limit)
    bytes += all[--first].text.size();
  t.dropped += first;
  for (std::size_t i = first; i < all.size(); ++i) t.text += all[i].text;
  t.records = all.size() - first;
  return t;
}

bool PrintfLog::empty() const {
  const std::lock_guard<std::mutex> lock(m_);
  return sms_.empty();
}

const char* to_string(RaceHazard::Kind k) {
  switch (k) {
    case RaceHazard::Kind::ReadAfterWrite:
      return "read after write";
    case RaceHazard::Kind::WriteAfterRead:
      return "write after read";
    case RaceHazard::Kind::WriteAfterWrite:
      return "write after write";
  }
  return "?";
}

}  // namespace smemsim::exec
