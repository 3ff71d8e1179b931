// The SM's instruction and constant caches, cold at a launch's start (docs/timing.md
// "Instruction and constant caches"; sm.icache_miss_cycles, sm.const_miss_cycles): per line, the
// cycle its data is in the SM. Only misses are modelled: a launch's code and constants fit the
// caches of every modern GPU the presets model, so a line once fetched stays.
#pragma once

#include <cstdint>
#include <vector>

#include "smemsim/ptx.hpp"

namespace smemsim::timing {

// Instructions are 16 bytes on Volta and later; an instruction-cache line is 128 bytes (Jia et
// al. 2018, "Dissecting the NVIDIA Volta GPU Architecture via Microbenchmarking", §3: the L0 and
// L1 instruction caches' lines). The model places instruction i of the (lowered) PTX at byte 16i.
inline constexpr std::uint32_t kInstructionsPerLine = 8;
// A constant-cache line is 64 bytes (Jia et al. 2018, §3: the L1 constant cache).
inline constexpr std::uint32_t kConstLineBytes = 64;

class LineFetch {
 public:
  LineFetch() = default;
  LineFetch(std::size_t lines, std::uint32_t miss, std::uint32_t prefetch)
      : ready_(lines, 0), seen_(lines, 0), miss_(miss), prefetch_(prefetch) {}
  bool on() const { return miss_ != 0; }
  // The cycle `line` is in the SM, requesting it now if it was not requested before; the first
  // time a warp reaches it, the next `prefetch` lines are requested too.
  std::uint64_t at(std::uint32_t line, std::uint64_t now) {
    if (line >= ready_.size()) return now;
    if (!seen_[line]) {
      seen_[line] = 1;
      const std::size_t end =
          std::min<std::size_t>(ready_.size(), std::size_t(line) + 1 + prefetch_);
      for (std::size_t k = line; k < end; ++k)
        if (!ready_[k]) ready_[k] = now + miss_;
    }
    return ready_[line];
  }

 private:
  std::vector<std::uint64_t> ready_;  // 0: not requested
  std::vector<std::uint8_t> seen_;    // a warp has reached it (its prefetch was requested)
  std::uint32_t miss_ = 0, prefetch_ = 0;
};

// Per instruction of `k`, the constant-cache line it reads, or ptx::kNone: line 0 for the launch's
// dimensions (%ntid, %nctaid), the line of a kernel parameter (ld.param of one of the kernel's own
// parameters, at the offset the launch places it) or of a constant at a constant address (ld.const
// [symbol+imm], the module's .const variables after the parameters). `lines`: how many there are. A
// constant at a register's address is an LDC on the GPU, not an operand, and is left out.
std::vector<std::uint32_t> constant_lines(const ptx::Kernel& k, std::uint32_t& lines);

}  // namespace smemsim::timing
