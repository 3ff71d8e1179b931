// GPU-LocalTM (seed 003, docs/tm.md): hardware transactional memory over shared memory.
//
// Three mechanisms, each usable on its own (the executor combines them for kernels that use
// TX_BEGIN/TX_COMMIT, kernels/smemsim_tm.cuh):
// - WarpTx: the transactional SIMT masks of one warp (003 §3.1): the transaction conflict mask
//   (TCM), the TCM of the previous attempt, and the execution mode with its two serialization
//   levels for forward progress.
// - Detector: conflict detection's first stage (003 §3.3), behind a registry: `bloom` (per-thread,
//   per-bank signatures, the paper's) and `exact` (perfect ownership tracking).
// - CtaTm: one CTA's shadow memory (eager version management per bank, 003 §3.2) and the three
//   detection stages, with the cycles each step costs (003 §4.2) and the counts of TmStats.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "smemsim/arch.hpp"
#include "smemsim/warp_access.hpp"

namespace smemsim::tm {

// Execution mode of a warp (003 §3.1; the Mode column of 003 Table 1).
enum class Mode : std::uint8_t { Normal, Tx, WavefrontSerial, WorkgroupSerial };
// "NORMAL", "TX", "WF Serial.", "WG Serial." as 003 Table 1 prints them.
std::string_view mode_name(Mode m);

// The masks of one warp (003 §3.1). Lanes are bits (lane i = bit i); EXEC is the caller's.
struct WarpTx {
  Mode mode = Mode::Normal;
  LaneMask tcm = 0;       // lanes that conflicted in this attempt (or wait in a serialization mode)
  LaneMask tcm_old = 0;   // the TCM the previous attempt ended with
  LaneMask entry = 0;     // lanes that entered the transaction at its first TX.Begin
  bool retrying = false;  // TX.Commit found TCM != 0: the next TX.Begin is a retry
  std::uint32_t depth = 0;     // nesting depth (nested transactions are flattened, 003 §3)
  std::uint32_t attempts = 0;  // TX.Begin executions of this transaction

  // TX.Begin with `exec` lanes on the path. A first begin enters Tx mode with TCM = 0. A retry
  // (exec = the TCM TX.Commit copied into EXEC) compares that TCM with tcm_old: equal twice in a
  // row escalates Tx -> wavefront serialization -> work-group serialization; a change returns to
  // Tx. Then tcm_old takes the carried TCM and TCM is cleared (Tx) or keeps all but its lowest lane
  // (a serialization mode: one lane runs). Returns the lanes that execute the attempt.
  LaneMask begin(LaneMask exec);
  // TX.Commit: true when TCM is 0 (the transaction is done: mode Normal). Otherwise the lanes of
  // TCM re-execute from TX.Begin: the caller copies TCM into EXEC.
  bool commit();
};

// Stage 1 of conflict detection (003 §3.3) for one access.
enum class Outcome : std::uint8_t {
  Conflict,   // i) another thread's signature (or record) claims the location
  NewAccess,  // ii) nobody does: back up and take ownership
  MaybeOwn,   // iii) only the thread's own signature: stage 2 reads the ownership record
};

// Ownership records of a CTA's shared words, read by detectors and written by CtaTm.
struct Ownership {
  static constexpr std::uint16_t kNone = 0xffff;
  std::vector<std::uint16_t> owner;  // per word: the owning thread or kNone
};

// A conflict detector: a signature over the locations each thread has accessed in its current
// transaction. Threads are CTA-linear thread indices.
class Detector {
 public:
  virtual ~Detector() = default;
  virtual std::string_view name() const = 0;
  virtual Outcome query(std::uint32_t thread, std::uint32_t word, const Ownership& own) const = 0;
  // The thread accessed `word` as a new access (its signature now covers it).
  virtual void insert(std::uint32_t thread, std::uint32_t word) = 0;
  // The thread committed or aborted: its signature is empty again.
  virtual void clear(std::uint32_t thread) = 0;
};

struct DetectorInfo {
  std::string_view name;
  std::string_view description;
};
const std::vector<DetectorInfo>& detectors();
// Throws InputError naming the known detectors. `threads` per CTA; the arch gives the banks and
// the tm.bloom_* keys.
std::unique_ptr<Detector> make_detector(const Arch& arch, std::uint32_t threads);
// Bank and signature bit of a word under the arch (003 §3.3: word 35 of 32 banks -> bank 3,
// position 1, bit 1 of an 8-bit signature).
std::uint32_t bloom_bank(const Arch& arch, std::uint32_t word);
std::uint32_t bloom_bit(const Arch& arch, std::uint32_t word);

// Counts of a run (docs/tm.md "Statistics").
struct TmStats {
  std::uint64_t transactions = 0;  // warp transactions: first TX.Begin executions
  std::uint64_t attempts = 0;      // warp attempts: every TX.Begin execution, retries included
  std::uint64_t wf_serial_attempts = 0;  // attempts in wavefront serialization mode
  std::uint64_t wg_serial_attempts = 0;  // attempts in work-group serialization mode
  std::uint64_t lane_attempts = 0;       // lanes that executed an attempt
  std::uint64_t lane_commits = 0;
  std::uint64_t lane_aborts = 0;  // lanes rolled back by a conflict or a work-group serialization
  std::uint64_t accesses = 0;     // transactional accesses (lane x word)
  std::uint64_t new_accesses = 0;
  std::uint64_t repeat_accesses = 0;  // stage 2 found the thread's own record
  std::uint64_t conflicts_true = 0;   // another thread owns the word
  std::uint64_t conflicts_false = 0;  // a signature false positive
  std::uint64_t restored_words = 0;   // backups written back on aborts

  // Lane commits per lane attempt (003 §5.1.4's commit ratio; 1 when nothing aborted).
  double commit_ratio() const;
  void add(const TmStats& o);
};

// Shared data plus shadow memory (003 §3.2): N words of data, N backup words, N owner entries of
// one byte (two when the CTA has more than 256 threads).
std::uint64_t shadow_bytes(std::uint64_t shared_bytes, std::uint32_t threads);

// One CTA's transactional state: ownership records, backups and the detector.
class CtaTm {
 public:
  CtaTm(const Arch& arch, std::uint32_t threads, std::uint32_t shared_bytes);
  void reset();  // a new CTA: no records, empty signatures

  struct AccessResult {
    LaneMask conflicted = 0;   // lanes aborted by this access (their backups restored)
    std::uint32_t cycles = 0;  // cycles added to the instruction (003 §4.2)
  };
  // One instruction's transactional shared accesses: lane l (thread first_thread + l) touches
  // `nwords` consecutive words from words[l]. Banks work in parallel; within a bank, lanes in
  // ascending order. Stage 1 and 2 per access, then the conflict broadcast restores and clears the
  // conflicted lanes' entries in every bank. `shared` is the CTA's shared memory.
  AccessResult access(std::uint32_t first_thread, LaneMask lanes, const std::uint32_t* words,
                      int nwords, std::uint8_t* shared);
  // TX.Commit for these lanes: their records and signatures are cleared. Returns the cycles.
  std::uint32_t commit(std::uint32_t first_thread, LaneMask lanes);
  // Rolls the lanes back (backups restored, records and signatures cleared). Returns the cycles.
  std::uint32_t abort(std::uint32_t first_thread, LaneMask lanes, std::uint8_t* shared);
  // Ownership entries in the most occupied bank (003 §4.2: what a work-group serialization clears).
  std::uint32_t busiest_bank_entries() const;
  // The owner of a word (Ownership::kNone when free) and its backup.
  std::uint16_t owner(std::uint32_t word) const { return own_.owner[word]; }
  std::uint32_t backup(std::uint32_t word) const { return backup_[word]; }
  const Detector& detector() const { return *det_; }
  // tm.timing = perfect: no transactional cycles (read once, not per access).
  bool perfect() const { return perfect_; }
  const TmStats& stats() const { return stats_; }
  TmStats& stats() { return stats_; }
  // Counts also go to `site` (a transaction site's stats; nullptr: none) until changed.
  void set_site(TmStats* site) { site_ = site; }
  void bump(std::uint64_t TmStats::*field, std::uint64_t n = 1) {
    stats_.*field += n;
    if (site_) site_->*field += n;
  }

 private:
  std::uint32_t restore(std::uint32_t thread, std::uint8_t* shared,
                        std::vector<std::uint32_t>& per_bank);
  void release(std::uint32_t thread, std::vector<std::uint32_t>& per_bank);

  const Arch arch_;
  std::uint32_t threads_;
  std::uint32_t words_;
  Ownership own_;
  std::vector<std::uint32_t> backup_;
  std::vector<std::vector<std::uint32_t>> owned_;  // per thread: the words it owns
  std::vector<std::uint32_t> bank_entries_;        // per bank: valid ownership records
  std::unique_ptr<Detector> det_;
  TmStats stats_;
  TmStats* site_ = nullptr;
  std::vector<std::uint32_t> scratch_;
  bool perfect_ = false;
};

}  // namespace smemsim::tm
