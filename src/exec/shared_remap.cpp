// The relayout of one shared array that `smemsim fix` verifies its candidates with
// (include/smemsim/exec.hpp, SharedRemap; docs/fix.md).
#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "smemsim/exec.hpp"

namespace smemsim::exec {
namespace {

std::uint64_t swizzle(const SharedRemap& r, std::uint64_t e) {
  return e ^ ((e >> r.xor_shift) & r.xor_mask);
}

std::uint64_t padded(const SharedRemap& r, std::uint64_t e) {
  return r.row ? e + (e / r.row) * r.pad : e;
}

std::string unit(std::uint32_t grain) {
  return grain == 4 ? "word" : fmt::format("{}-byte element", grain);
}

}  // namespace

std::uint32_t SharedRemap::added_bytes() const {
  if (!on() || !row) return 0;
  // As the padded declaration `T a[rows][row + pad]` has it: the last row is padded too.
  const std::uint64_t n = bytes / grain;
  const std::uint64_t rows = (n + row - 1) / row;
  return static_cast<std::uint32_t>(rows * (row + pad) * grain - std::uint64_t(bytes));
}

std::uint64_t SharedRemap::map(std::uint64_t off) const {
  if (off < base) return off;
  if (off - base >= bytes) return off + added_bytes();
  const std::uint64_t rel = off - base;
  const std::uint64_t e = padded(*this, swizzle(*this, rel / grain));
  return base + e * grain + rel % grain;
}

std::string SharedRemap::check() const {
  if (!on()) return "";
  if (grain == 0 || (grain & (grain - 1)) || grain > 16)
    return fmt::format("grain {} is not a power of two of at most 16 bytes", grain);
  if (base % grain || bytes % grain)
    return fmt::format("the array (offset {}, {} bytes) is not made of whole {}-byte grains", base,
                       bytes, grain);
  if (xor_shift > 31) return fmt::format("swizzle shift {} is above 31", xor_shift);
  if (xor_mask) {
    const std::uint32_t n = bytes / grain;
    std::vector<bool> seen(n, false);
    for (std::uint32_t e = 0; e < n; ++e) {
      const std::uint64_t s = swizzle(*this, e);
      if (s >= n)
        return fmt::format("the swizzle sends element {} to {}, outside the array's {}", e, s, n);
      if (seen[s])
        return fmt::format("the swizzle sends two elements to {}: it is not a bijection", s);
      seen[s] = true;
    }
  }
  return "";
}

std::string SharedRemap::describe() const {
  std::vector<std::string> parts;
  if (xor_mask)
    parts.push_back(fmt::format("swizzle i ^ ((i >> {}) & {}){}", xor_shift, xor_mask,
                                grain == 4 ? "" : fmt::format(" of {}s", unit(grain))));
  if (row)
    parts.push_back(fmt::format("pad {} {}{} per {}-{} row", pad, unit(grain), pad == 1 ? "" : "s",
                                row, unit(grain)));
  if (parts.empty()) return "identity";
  std::string s = parts[0];
  for (std::size_t i = 1; i < parts.size(); ++i) s += ", then " + parts[i];
  return s;
}

std::uint32_t widest_shared_access(const ptx::Kernel& kernel) {
  std::uint32_t widest = 4;
  for (const ptx::Instruction& ins : kernel.code) {
    switch (ins.op) {
      case ptx::Opcode::Ldmatrix:
      case ptx::Opcode::Stmatrix:
      case ptx::Opcode::CpAsync:
      case ptx::Opcode::WmmaLoad:
      case ptx::Opcode::WmmaStore:
      case ptx::Opcode::Wgmma:  // its core matrices' 16-byte rows (issue 46)
        widest = 16;
        break;
      case ptx::Opcode::Ld:
      case ptx::Opcode::St:
      case ptx::Opcode::Atom:
      case ptx::Opcode::Red:
        if (ins.space == ptx::Space::Shared || ins.space == ptx::Space::Generic ||
            ins.space == ptx::Space::None)
          widest = std::max<std::uint32_t>(widest, std::uint32_t(ptx::type_bytes(ins.type)) *
                                                       std::max<std::uint32_t>(1, ins.vec));
        break;
      default:
        break;
    }
  }
  return std::min<std::uint32_t>(widest, 16);
}

}  // namespace smemsim::exec
