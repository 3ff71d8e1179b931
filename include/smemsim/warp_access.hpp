// WarpAccess: the one vocabulary type of smemsim (DESIGN.md). Every producer (trace reader, pattern
// generator, PTX executor) yields a stream of them; every consumer (conflict analysis, latency
// models, hash search, timing) takes one.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <optional>
#include <string_view>

namespace smemsim {

// A warp has at most 64 lanes (an AMD wavefront); fixed arrays and one 64-bit mask per access.
inline constexpr int kMaxLanes = 64;
using LaneMask = std::uint64_t;

// A 4-byte word index into shared memory. Byte addresses are converted once, at the input boundary.
using WordAddr = std::uint32_t;

enum class Op : std::uint8_t { Load, Store, Atomic };

std::string_view op_name(Op op);                    // "ld", "st", "atom"
std::optional<Op> parse_op(std::string_view name);  // accepts ld|st|atom

inline constexpr LaneMask lanes_mask(int n) {
  return n >= 64 ? ~LaneMask{0} : ((LaneMask{1} << n) - 1);
}

// The packing rule of a wide shared load (memory.wide_access = pairs): lanes n and n^1, or
// lanes n and n^2, read the same address wherever both are active. Returns the bit that pairs
// them (1 or 2), or 0. `same(a, b)` compares two lanes' addresses.
template <typename Same>
int lanes_pair(LaneMask active, Same&& same) {
  for (const int bit : {1, 2}) {
    bool ok = true;
    for (LaneMask m = active; m && ok; m &= m - 1) {
      const int l = std::countr_zero(m);
      if ((l & bit) || !((active >> (l ^ bit)) & 1u)) continue;
      ok = same(l, l ^ bit);
    }
    if (ok) return bit;
  }
  return 0;
}

struct WarpAccess {
  Op op = Op::Load;
  std::uint32_t pc = 0;     // instruction id (PTX line or trace `pc=`); 0 when unknown
  std::uint32_t warp = 0;   // warp id
  std::uint8_t lanes = 32;  // warp width this access was made with
  LaneMask active = 0;      // bit i set: lane i takes part
  std::array<WordAddr, kMaxLanes> addr{};  // word address per lane; meaningful where active

  int active_count() const { return std::popcount(active); }
  bool is_active(int lane) const { return (active >> lane) & 1u; }
  void set(int lane, WordAddr a) {
    addr[static_cast<std::size_t>(lane)] = a;
    active |= LaneMask{1} << lane;
  }
};

}  // namespace smemsim
