// Internals of `smemsim fix` (include/smemsim/fix.hpp): which array each access lands in, the
// candidate layouts of an array, and the replication prediction for its atomics.
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "smemsim/evaluate.hpp"
#include "smemsim/fix.hpp"
#include "smemsim/hash_search.hpp"
#include "smemsim/profile.hpp"

namespace smemsim::fix::detail {

// Replication factors predicted (R = 1 is the kernel as written).
inline constexpr std::array<std::uint32_t, 6> kCopies{1, 2, 4, 8, 16, 32};

// Attributes every shared access to the array its first active lane lands in, and keeps per array
// its lines, its accesses' reference sets with addresses counted from the array's first word (the
// swizzle search's input), and its atomics evaluated under each replication factor.
class ArrayConsumer : public exec::AccessConsumer {
 public:
  explicit ArrayConsumer(const Arch& arch);
  // The kernel's arrays (SharedLayout::arrays), before its first access. Each array's reference
  // sets may take `budget` bytes before they spill to TMPDIR (ReferenceSets).
  void set_arrays(std::vector<exec::SharedLayout::Array> arrays,
                  std::uint64_t budget = std::uint64_t{64} << 20);
  void on_access(const WarpAccess& wa) override;

  struct Per {
    exec::SharedLayout::Array array;
    std::set<std::uint32_t> lines;  // PTX lines
    std::unique_ptr<ReferenceSets> sets;
    std::array<Totals, kCopies.size()> replicated;  // the array's atomics, per kCopies entry
    Totals aggregated;  // the same with the lanes on one word of a warp combined into one
    std::uint64_t atomics = 0;
  };
  std::vector<Per>& arrays() { return per_; }

 private:
  int find(std::uint64_t byte) const;
  Arch arch_;
  std::vector<Per> per_;
  AccessEvaluator eval_;
  WarpAccess tmp_;
};

// Padding candidates for an array: a (row, pad) in grains per distinct row width its conflicting
// lines read (profile's padding hint on each line's worst access).
std::vector<exec::SharedRemap> padding_candidates(const exec::SharedLayout::Array& a,
                                                  std::uint32_t grain,
                                                  const std::vector<exec::ProfileRow>& rows,
                                                  const Arch& arch);

// The `count` XOR swizzles i ^ ((i >> k2) & mask) that the array's own reference sets give the
// fewest conflicts, bijective on its grains and never splitting a grain; `predicted` gets each
// one's conflicts on those sets.
std::vector<exec::SharedRemap> swizzle_candidates(const exec::SharedLayout::Array& a,
                                                  std::uint32_t grain, const ReferenceSets& sets,
                                                  std::uint32_t count,
                                                  std::vector<std::int64_t>& predicted);

// A warp's access read as rows of a 2-D tile (fix_cause.cpp): `rows` runs of `width` lanes on
// consecutive words (the last may be shorter), each `stride` words after the one before.
struct WarpRows {
  std::uint32_t rows = 0, width = 0, stride = 0;
};
std::optional<WarpRows> warp_rows(const WarpAccess& wa);
// The smallest row distance W >= at_least whose rows fall on disjoint banks (W = width mod
// banks), 0 when the warp's rows need more banks than there are.
std::uint32_t conflict_free_width(const WarpRows& r, std::uint32_t banks, std::uint32_t at_least);
// The cause of `worst`'s conflict (bank degree `degree`) when it reads rows of a tile, and the
// row widths and block shape that would remove it; "" for another pattern.
std::string tile_cause(const WarpAccess& worst, std::int64_t degree, const Arch& arch);

// The merge of an array replicated R times, under the arch's model: consecutive lanes take
// consecutive words and sum their R copies, copy (c + i) % R of word i at step c (a rotated loop,
// so that the lanes of a step read different banks); one warp-wide load per step and 32 words,
// summed over `blocks` blocks. The adds and the merged word's store are not counted.
std::int64_t merge_cycles(const Arch& arch, std::uint32_t words, std::uint32_t copies,
                          std::uint64_t blocks);

}  // namespace smemsim::fix::detail
