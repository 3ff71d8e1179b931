// Hash configuration search (seed 002 §5): the reference sets of a trace, their conflicts under an
// XOR-based index function, the exhaustive bit-vector search (§5.1), the Givargis heuristic
// (§5.2.1) and the Minimum Imbalance Heuristic (§5.2.2), and a general XOR-matrix search beyond the
// paper.
//
// A reference set is what one shared-memory transaction presents to the index function (002 §3: "a
// collection of addresses whose size is equal to the number of memory banks"): for banks the
// DISTINCT bank-unit addresses (one word read by many lanes is a broadcast), for locks the word
// address of every active lane (lanes on one word serialize, seed 001 §2.1.3). Identical sets are
// stored once with a weight (DESIGN.md principle 8), so the objective equals the one over the raw
// trace:
//   conflicts = sum over transactions of (max elements on one index value - 1).
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "smemsim/arch.hpp"
#include "smemsim/hash_families.hpp"
#include "smemsim/warp_access.hpp"

namespace smemsim {
namespace detail {
struct LaneSortKernel;
}

enum class HashTarget : std::uint8_t { Bank, Lock };

// The index geometry a search works in: m from --banks (or the arch's banks / locks), n address
// bits.
IndexGeometry target_geometry(const Arch& arch, HashTarget target);

class ReferenceSets {
 public:
  // Sets of at most 32 elements are stored 16 to a block, bit-sliced: slice i of a set is the mask
  // of its elements whose address bit i is 1. Wider sets (64-lane transactions) are kept apart.
  static constexpr int kBlock = 16;

  ReferenceSets(const Arch& arch, HashTarget target, IndexGeometry g);

  // Memory budget in bytes (0: none). When the sets held in memory would pass half of it, they are
  // written to a temporary file (in TMPDIR) as one segment and the deduplication starts afresh; the
  // evaluators then stream the segments through memory one at a time. The objective is a sum over
  // sets of weight x conflicts, so a set stored in two segments counts as it would once with the
  // summed weight: the conflicts are the same for any budget (DESIGN.md principle 8).
  void set_memory_budget(std::uint64_t bytes) { budget_ = bytes; }
  std::uint64_t memory_budget() const { return budget_; }
  // Largest memory the sets have held at once (storage, table and a loaded segment), the segments
  // written to disk and their bytes.
  std::uint64_t peak_bytes() const { return peak_; }
  std::size_t spilled_segments() const { return spilled_.size(); }
  std::uint64_t spilled_bytes() const { return spill_end_; }

  // Splits `wa` into transactions (Arch::transaction_lanes) and adds one set per non-empty one.
  // Throws InputError when an address needs more than n bits.
  void add(const WarpAccess& wa);

  const IndexGeometry& geometry() const { return g_; }
  HashTarget target() const { return target_; }
  std::uint64_t accesses() const { return accesses_; }
  std::uint64_t transactions() const { return transactions_; }
  // Distinct sets; after a spill, a set seen in two segments counts twice.
  std::size_t unique_sets() const;

  // 002 §5.1 pruning facts: every access linear or strided, the k of each stride, the largest MSB.
  bool all_strided() const { return accesses_ > 0 && all_strided_; }
  std::uint32_t stride_ks() const { return ks_; }  // bit k set: some stride has that k
  int max_msb() const { return max_msb_; }

  // Storage (for the evaluators).
  struct WideSet {
    std::array<std::uint64_t, kMaxAddrBits> slice{};
    std::uint64_t all = 0;
    std::uint64_t weight = 0;
  };
  // The sets are read one segment at a time: segments() - 1 spilled ones, then the one in memory.
  // select_segment(i) makes the accessors below show segment i (reading it from the spill file);
  // it is not thread-safe, and the evaluators call it between their parallel loops.
  std::size_t segments() const { return spilled_.size() + 1; }
  void select_segment(std::size_t i) const;
  std::size_t narrow_count() const { return cur().narrow_count; }
  std::size_t blocks() const { return (narrow_count() + kBlock - 1) / kBlock; }
  std::size_t block_stride() const { return std::size_t(g_.addr_bits + 1) * kBlock; }
  // Block b: n slices of 16 lanes, then the 16 element masks ('all').
  const std::uint32_t* block(std::size_t b) const {
    return cur().pages[b / kPageBlocks].narrow.data() + (b % kPageBlocks) * block_stride();
  }
  const std::uint64_t* block_weights(std::size_t b) const {
    return cur().pages[b / kPageBlocks].weights.data() + (b % kPageBlocks) * kBlock;
  }
  std::span<const WideSet> wide() const { return cur().wide; }

 private:
  // Blocks are stored in pages of kPageBlocks, allocated whole: the storage grows without copying,
  // so the memory it takes is the memory counted against the budget.
  static constexpr std::size_t kPageBlocks = 16;
  struct Page {
    std::vector<std::uint32_t> narrow;   // kPageBlocks blocks of block_stride() words
    std::vector<std::uint64_t> weights;  // kPageBlocks x kBlock
  };
  struct Store {
    std::vector<Page> pages;
    std::vector<WideSet> wide;
    std::size_t narrow_count = 0;
  };
  std::uint64_t page_bytes() const { return kPageBlocks * (block_stride() * 4 + kBlock * 8); }
  std::uint64_t store_bytes(const Store& st) const {
    return st.pages.size() * page_bytes() + st.wide.capacity() * sizeof(WideSet);
  }
  Page new_page() const;
  std::uint32_t* live_block(std::size_t b) {
    return live_.pages[b / kPageBlocks].narrow.data() + (b % kPageBlocks) * block_stride();
  }
  struct Spilled {
    std::uint64_t offset = 0;
    std::size_t narrow_count = 0, wide_count = 0;
  };
  const Store& cur() const { return loaded_active_ ? loaded_ : live_; }
  void add_set(std::uint32_t* elems, int count);
  std::uint64_t live_bytes() const { return store_bytes(live_) + table_.capacity() * sizeof(Slot); }
  // Makes room for one more set: spills first when the growth would pass the budget.
  void reserve_one(bool narrow);
  void spill();
  void note_peak(std::uint64_t bytes) const { peak_ = std::max(peak_, bytes); }

  HashTarget target_;
  IndexGeometry g_;
  // Fixed per search: lanes per transaction, log2(words per bank unit) for bank targets, and the
  // sorting network for sets of at most 32 addresses below 2^16 (nullptr: std::sort).
  int transaction_lanes_;
  int unit_shift_;
  const detail::LaneSortKernel* network_;
  std::uint64_t accesses_ = 0, transactions_ = 0;
  bool all_strided_ = true;
  std::uint32_t ks_ = 0;
  int max_msb_ = 0;
  Store live_;
  mutable Store loaded_;
  mutable bool loaded_active_ = false;
  std::uint64_t budget_ = 0;
  mutable std::uint64_t peak_ = 0;
  std::vector<Spilled> spilled_;
  std::uint64_t spill_end_ = 0;
  std::size_t spilled_sets_ = 0;
  std::shared_ptr<std::FILE> spill_file_;
  // Open-addressing table (linear probing, power-of-two size, at most half full): slot = hash and
  // set id (wide sets: id | 1<<63); an empty slot has id kEmpty.
  struct Slot {
    std::uint64_t hash = 0;
    std::uint64_t id = ~std::uint64_t{0};
  };
  static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};
  // 16 slots to start (it doubles as it fills): `profile` keeps one table per shared-memory line,
  // and 1,024 slots took 16 KB a line (issue 48).
  static constexpr std::size_t kFirstSlots = 16;
  std::vector<Slot> table_ = std::vector<Slot>(kFirstSlots);
  std::size_t table_used_ = 0;
  void table_insert(std::uint64_t hash, std::uint64_t id);
};

// Total conflicts of every set under one XOR function, and under many at once (parallel over the
// sets with oneTBB; integer sums, so the result does not depend on the thread count). The AVX-512
// or AVX2 kernel is used where the CPU has it; `allow_simd = false` forces the portable kernel
// (they are tested to agree, so results do not depend on the machine either).
std::int64_t total_conflicts(const ReferenceSets& sets, const XorMatrix& x);
std::vector<std::int64_t> total_conflicts(const ReferenceSets& sets,
                                          std::span<const XorMatrix> candidates,
                                          bool allow_simd = true);

struct SearchOptions {
  std::string family;     // bv | bvxor | bits | bitsxor | xormask
  std::string heuristic;  // empty: the family's default (exhaustive for bv*, mih for bits*, local)
  // Only software-bijective candidates (XorMatrix::software_bijective), for code emission: the
  // exhaustive searches skip the others, xormask starts from and moves among bijective ones; the
  // heuristics build one answer and are not restricted (their `bijective` says whether it is).
  bool bijective_only = false;
};

struct SearchResult {
  std::string family, heuristic, spec;
  XorMatrix matrix;
  std::uint64_t candidates_evaluated = 0;
  std::int64_t baseline_conflicts = 0;  // under mod (the low m bits)
  std::int64_t conflicts = 0;
  double reduction = 0.0;  // (baseline - conflicts) / baseline; 0 when the baseline has none
  bool bijective = false;  // as a software hash (XorMatrix::software_bijective)
  bool pruned = false;     // bvxor: the §5.1 reduced candidate set was used
  std::vector<int> order;  // bitwise heuristics: the selected columns in selection order
};

// Throws InputError on an unknown family or heuristic, or on no sets to search on.
SearchResult search_hash(const ReferenceSets& sets, const SearchOptions& o);

// The line guard (issue 26): a search minimizes the total, so on a trace of several instructions
// it can pay for removing one line's conflicts by adding conflicts to another (a replicated
// histogram's conflict-free vote made 4,726-way worse by a swizzle for its merge loop). The input's
// reference sets per instruction (pc) let each line be checked: conflicts under mod (before) and
// under the result (after).
struct LineConflicts {
  std::uint32_t pc = 0;
  std::int64_t before = 0, after = 0;
};
struct LineCheck {
  std::vector<LineConflicts> lines;  // every line, by pc, under the result as finally given
  // A result that made a line worse and was refused: its spec ("" when none was), its total
  // conflicts and the lines it made worse.
  std::string refused_spec;
  std::int64_t refused_conflicts = 0;
  std::vector<LineConflicts> refused_worse;
  std::vector<LineConflicts> worse() const;  // lines of `lines` with after > before
};
// Checks `r` line by line. When a line gets worse and !allow_worse, `r` becomes the best candidate
// of its search that makes no line worse (bv, bvxor: among the same exhaustive candidates, by the
// same tie rule; the heuristics, which build one answer: mod, the low m bits) and the refused one
// is recorded. `all` holds every line's sets together (what `r` was searched on).
LineCheck guard_lines(const ReferenceSets& all,
                      const std::vector<std::pair<std::uint32_t, const ReferenceSets*>>& lines,
                      SearchResult& r, const SearchOptions& o, bool allow_worse);

// The individual searches (used by search_hash; exposed for tests and benchmarks).
SearchResult search_bitvector(const ReferenceSets& sets, bool with_xor,
                              bool bijective_only = false);  // 002 §5.1
// The bvxor candidates of 002 §5.1 (pruned when every access is linear or strided and
// `allow_pruning`; `pruned` says whether they were).
std::vector<XorMatrix> bvxor_candidates(const ReferenceSets& sets, bool& pruned,
                                        std::vector<std::string>* specs = nullptr,
                                        bool allow_pruning = true);
SearchResult search_givargis(const ReferenceSets& sets, bool with_xor);  // 002 §5.2.1
// 002 §5.2.2. `allow_simd = false` forces the portable scoring kernel (tested to give the same
// result as the AVX-512 one).
SearchResult search_mih(const ReferenceSets& sets, bool with_xor, bool allow_simd = true);
SearchResult search_bits_exhaustive(const ReferenceSets& sets,
                                    bool bijective_only = false);                     // C(n,m)
SearchResult search_xormask(const ReferenceSets& sets, bool bijective_only = false);  // beyond 002

// Sizes of seed 002 Table 1 for n address bits and m index bits. Values too large for 64 bits are
// only given as doubles (exact is false).
struct HashCount {
  double all_functions_log10 = 0;  // log10((2^m)^(2^n))
  double xor_based = 0;            // 2^(n m)
  double unique_xor = 0;           // Eq. 9
  double bitvector_permutation = 0, bitvector_xor = 0, bitwise_permutation = 0, bitwise_xor = 0;
};
HashCount hash_count(int addr_bits, int index_bits);  // throws InputError on m < 1, m > n, n > 32

}  // namespace smemsim
