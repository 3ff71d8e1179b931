// The swizzle hint of `smemsim profile` (issue 10, item 6): each shared-memory instruction's
// reference sets, kept apart by PTX line, and for a conflicting line the XOR swizzle that
// `smemsim hash search --pc LINE --family bvxor --emit cuda` finds on that line's accesses (seed
// 002 §5.1, software-bijective so that it can be applied to the array's index), with its effect on
// the line and on every other line of the kernel under the same swizzle.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "smemsim/arch.hpp"
#include "smemsim/hash_search.hpp"

namespace smemsim {

class LineSets {
 public:
  // Each line's sets may take `line_budget` bytes before they spill to TMPDIR (ReferenceSets).
  explicit LineSets(const Arch& arch, std::uint64_t line_budget = std::uint64_t{64} << 20);
  void add(const WarpAccess& wa);  // to the sets of wa.pc
  const ReferenceSets* find(std::uint32_t pc) const;
  const std::map<std::uint32_t, std::unique_ptr<ReferenceSets>>& lines() const { return lines_; }
  const Arch& arch() const { return arch_; }

 private:
  Arch arch_;
  std::uint64_t budget_;
  std::map<std::uint32_t, std::unique_ptr<ReferenceSets>> lines_;
};

struct SwizzleHint {
  std::string spec;    // bvxor:k1=..,k2=..,mask=.. (usable as --bank-hash)
  std::string family;  // bvxor
  XorMatrix matrix;
  std::int64_t conflicts_before = 0, conflicts_after = 0;  // the line's, mod and swizzled
  // Every line's conflicts together, mod and with the same swizzle applied to every line.
  std::int64_t kernel_before = 0, kernel_after = 0;
};

// The swizzle for line `pc`; nothing when the line has no conflict or no swizzle lowers it.
std::optional<SwizzleHint> swizzle_hint(const LineSets& lines, std::uint32_t pc);
// The hint's conflicts_before and conflicts_after summed over the instructions `pcs` (a CUDA
// line's unrolled copies), the swizzle unchanged.
void total_over(SwizzleHint& h, const LineSets& lines, const std::vector<std::uint32_t>& pcs);

}  // namespace smemsim
