// One CTA's GPU-LocalTM state: shadow memory and the three conflict-detection stages (seed 003
// §3.2-§3.3) with the cycles each costs (003 §4.2).
#include <algorithm>
#include <bit>
#include <cstring>

#include "smemsim/tm.hpp"

namespace smemsim::tm {

double TmStats::commit_ratio() const {
  return lane_attempts ? double(lane_commits) / double(lane_attempts) : 1.0;
}

void TmStats::add(const TmStats& o) {
  transactions += o.transactions;
  attempts += o.attempts;
  wf_serial_attempts += o.wf_serial_attempts;
  wg_serial_attempts += o.wg_serial_attempts;
  lane_attempts += o.lane_attempts;
  lane_commits += o.lane_commits;
  lane_aborts += o.lane_aborts;
  accesses += o.accesses;
  new_accesses += o.new_accesses;
  repeat_accesses += o.repeat_accesses;
  conflicts_true += o.conflicts_true;
  conflicts_false += o.conflicts_false;
  restored_words += o.restored_words;
}

std::uint64_t shadow_bytes(std::uint64_t shared_bytes, std::uint32_t threads) {
  // "If there is a set of N words in local memory, a contiguous section of N words is allocated to
  // backup the values and, after this section, N additional bytes are reserved to store the owner"
  // (003 §3.2). One byte names 256 owners; a larger CTA needs two.
  const std::uint64_t words = (shared_bytes + 3) / 4;
  return words * 4 + words * (threads > 256 ? 2 : 1);
}

CtaTm::CtaTm(const Arch& arch, std::uint32_t threads, std::uint32_t shared_bytes)
    : arch_(arch),
      threads_(threads),
      words_((shared_bytes + 3) / 4),
      backup_(words_, 0),
      owned_(threads),
      bank_entries_(arch.banks, 0),
      det_(make_detector(arch, threads)),
      scratch_(arch.banks, 0),
      perfect_(arch.tm.timing == "perfect") {
  own_.owner.assign(words_, Ownership::kNone);
}

void CtaTm::reset() {
  for (std::uint32_t t = 0; t < threads_; ++t) {
    for (std::uint32_t w : owned_[t]) own_.owner[w] = Ownership::kNone;
    owned_[t].clear();
    det_->clear(t);
  }
  std::fill(bank_entries_.begin(), bank_entries_.end(), 0);
}

namespace {

std::uint32_t load_word(const std::uint8_t* shared, std::uint32_t word, std::uint32_t bytes) {
  std::uint32_t v = 0;
  const std::uint64_t at = std::uint64_t(word) * 4;
  if (at < bytes) std::memcpy(&v, shared + at, std::min<std::uint64_t>(4, bytes - at));
  return v;
}

void store_word(std::uint8_t* shared, std::uint32_t word, std::uint32_t bytes, std::uint32_t v) {
  const std::uint64_t at = std::uint64_t(word) * 4;
  if (at < bytes) std::memcpy(shared + at, &v, std::min<std::uint64_t>(4, bytes - at));
}

std::uint32_t max_of(const std::vector<std::uint32_t>& v) {
  return v.empty() ? 0 : *std::max_element(v.begin(), v.end());
}

}  // namespace

std::uint32_t CtaTm::restore(std::uint32_t thread, std::uint8_t* shared,
                             std::vector<std::uint32_t>& per_bank) {
  // Newest first, though each word has one backup: the value before the thread's first access.
  auto& words = owned_[thread];
  for (auto it = words.rbegin(); it != words.rend(); ++it) {
    const std::uint32_t w = *it;
    store_word(shared, w, words_ * 4, backup_[w]);
    own_.owner[w] = Ownership::kNone;
    const std::uint32_t bank = w % arch_.banks;
    --bank_entries_[bank];
    ++per_bank[bank];
  }
  const auto n = static_cast<std::uint32_t>(words.size());
  bump(&TmStats::restored_words, n);
  words.clear();
  det_->clear(thread);
  return n;
}

void CtaTm::release(std::uint32_t thread, std::vector<std::uint32_t>& per_bank) {
  for (std::uint32_t w : owned_[thread]) {
    own_.owner[w] = Ownership::kNone;
    const std::uint32_t bank = w % arch_.banks;
    --bank_entries_[bank];
    ++per_bank[bank];
  }
  owned_[thread].clear();
  det_->clear(thread);
}

CtaTm::AccessResult CtaTm::access(std::uint32_t first_thread, LaneMask lanes,
                                  const std::uint32_t* words, int nwords, std::uint8_t* shared) {
  AccessResult r;
  const TmConfig& c = arch_.tm;
  std::vector<std::uint32_t>& busy = scratch_;  // cycles of shadow-memory work per bank
  std::fill(busy.begin(), busy.end(), 0);
  const std::uint32_t bytes = words_ * 4;
  for (int k = 0; k < nwords; ++k) {
    for (LaneMask m = lanes & ~r.conflicted; m; m &= m - 1) {
      const int l = std::countr_zero(m);
      const std::uint32_t t = first_thread + std::uint32_t(l);
      const std::uint32_t w = words[l] + std::uint32_t(k);
      if (w >= words_) continue;  // the executor has bounds-checked the access
      bump(&TmStats::accesses);
      const std::uint32_t bank = w % arch_.banks;
      const Outcome o = det_->query(t, w, own_);
      if (o == Outcome::Conflict) {
        // Stage 1, case i). True when the ownership record names another thread; otherwise the
        // signature hit was a false positive (a Bloom alias), which aborts all the same.
        const std::uint16_t owner = own_.owner[w];
        if (owner != Ownership::kNone && owner != t)
          bump(&TmStats::conflicts_true);
        else
          bump(&TmStats::conflicts_false);
        r.conflicted |= LaneMask{1} << l;
        continue;
      }
      if (o == Outcome::MaybeOwn && own_.owner[w] == t) {  // stage 2: a repeated access
        bump(&TmStats::repeat_accesses);
        busy[bank] += c.owner_check_cycles;
        continue;
      }
      // Case ii), or case iii) whose record is not the thread's: back up and take ownership.
      bump(&TmStats::new_accesses);
      backup_[w] = load_word(shared, w, bytes);
      own_.owner[w] = static_cast<std::uint16_t>(t);
      owned_[t].push_back(w);
      ++bank_entries_[bank];
      det_->insert(t, w);
      busy[bank] += c.new_access_cycles;
    }
  }
  // The signature query takes a cycle in every bank at once; shadow-memory work serializes within
  // a bank, so the slowest bank sets the cost (003 §4.2).
  r.cycles = c.bloom_cycles + max_of(busy);
  if (r.conflicted) {
    // Stage 3, the conflict broadcast: every bank restores and clears the conflicted lanes'
    // entries, one per cycle, all banks in parallel.
    std::fill(busy.begin(), busy.end(), 0);
    for (LaneMask m = r.conflicted; m; m &= m - 1)
      restore(first_thread + std::uint32_t(std::countr_zero(m)), shared, busy);
    bump(&TmStats::lane_aborts, std::uint64_t(std::popcount(r.conflicted)));
    r.cycles += max_of(busy) * c.entry_cycles;
  }
  if (perfect_) r.cycles = 0;
  return r;
}

std::uint32_t CtaTm::commit(std::uint32_t first_thread, LaneMask lanes) {
  std::vector<std::uint32_t>& busy = scratch_;
  std::fill(busy.begin(), busy.end(), 0);
  for (LaneMask m = lanes; m; m &= m - 1)
    release(first_thread + std::uint32_t(std::countr_zero(m)), busy);
  bump(&TmStats::lane_commits, std::uint64_t(std::popcount(lanes)));
  if (perfect_) return 0;
  // One cycle clears the committing lanes' signatures, then each bank its ownership records.
  return arch_.tm.commit_cycles + max_of(busy) * arch_.tm.entry_cycles;
}

std::uint32_t CtaTm::abort(std::uint32_t first_thread, LaneMask lanes, std::uint8_t* shared) {
  std::vector<std::uint32_t>& busy = scratch_;
  std::fill(busy.begin(), busy.end(), 0);
  for (LaneMask m = lanes; m; m &= m - 1)
    restore(first_thread + std::uint32_t(std::countr_zero(m)), shared, busy);
  bump(&TmStats::lane_aborts, std::uint64_t(std::popcount(lanes)));
  if (perfect_) return 0;
  return max_of(busy) * arch_.tm.entry_cycles;
}

std::uint32_t CtaTm::busiest_bank_entries() const {
  return max_of(bank_entries_);
}

}  // namespace smemsim::tm
