// The context of one lane's bulk copy (bulk_copy.cpp issues it, bulk_tensor.cpp moves a tensor
// map's box): where its bytes go in shared memory (now, or deferred until it lands under a timing
// model) and the bounds-checked pointers it reads and writes through (issue 46).
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "exec/exec_internal.hpp"

namespace smemsim::exec::detail {

struct BulkContext {
  Impl& im;
  Cta& cta;
  Warp& w;
  std::uint32_t pc;
  int l;
  std::vector<std::uint64_t>& sectors;
  Impl::PendingBulk* defer;  // the landing waits (set_defer_bulk): the pieces go here

  // `smemsim fix`'s relayout (SharedRemap) moves the copy's bytes as it moves the warps'
  // accesses, grain by grain, so a relaid tile holds what its reads expect: calls f(offset after
  // the remap, bytes from `at`, count) for the pieces of [at, at + n).
  template <typename F>
  void remapped(std::uint64_t at, std::size_t n, F&& f) const {
    const SharedRemap& r = im.remap;
    if (!r.on()) return f(at, std::size_t{0}, n);
    for (std::size_t i = 0; i < n;) {
      const std::uint64_t off = at + i;
      std::size_t step = n - i;
      if (r.contains(off))
        step = std::min<std::size_t>(step, r.grain - (off - r.base) % r.grain);
      else if (off < r.base)
        step = std::min<std::size_t>(step, std::size_t(r.base - off));
      f(r.map(off), i, step);
      i += step;
    }
  }
  // Reads `n` shared bytes at `at` into `dst` (a copy to global memory).
  void get(std::uint64_t at, std::uint8_t* dst, std::size_t n) const {
    remapped(at, n, [&](std::uint64_t to, std::size_t i, std::size_t k) {
      std::memcpy(dst + i, cta.shared.data() + to, k);
    });
  }
  // Writes `n` bytes to shared offset `at` (checked by shared() before), now or when it lands.
  void put(std::uint64_t at, const std::uint8_t* src, std::size_t n) {
    if (im.remap.on()) [[unlikely]] {
      remapped(at, n,
               [&](std::uint64_t to, std::size_t i, std::size_t k) { put_at(to, src + i, k); });
      return;
    }
    put_at(at, src, n);
  }
  void put_at(std::uint64_t at, const std::uint8_t* src, std::size_t n) {
    if (!defer) {
      std::memcpy(cta.shared.data() + at, src, n);
      return;
    }
    auto& pc_ = defer->pieces;
    if (!pc_.empty() && pc_.back().first + pc_.back().second == at)
      pc_.back().second += std::uint32_t(n);  // the next bytes of a 16-byte chunk or a row
    else
      pc_.emplace_back(std::uint32_t(at), std::uint32_t(n));
    defer->bytes.insert(defer->bytes.end(), src, src + n);
  }

  // Host pointer of `bytes` global bytes at generic address `a`, bounds-checked.
  std::uint8_t* global(std::uint64_t a, std::uint64_t bytes, bool write, std::uint64_t align) {
    LaneMask none = 0;
    std::uint8_t* p =
        lane_pointer(im, cta, w, pc, l, ptx::Space::Global, a, bytes, write, none, align);
    im.gaddr[std::size_t(l)] = kNoSector;
    if (im.count_sectors)
      for (std::uint64_t s = a >> 5; s <= (a + bytes - 1) >> 5; ++s) sectors.push_back(s);
    return p;
  }
  // Host pointer of `bytes` shared bytes at shared address `a`.
  std::uint8_t* shared(std::uint64_t a, std::uint64_t bytes, std::uint64_t align) {
    if (a + bytes > cta.shared.size() || a + bytes < a)
      im.fail(cta, w, l, pc,
              fmt::format("the bulk copy's {} bytes at shared address {:#x} pass the end of the "
                          "block's shared memory ({} bytes)",
                          bytes, a, cta.shared.size()));
    if (a % align)
      im.fail(cta, w, l, pc,
              fmt::format("the bulk copy's shared address {:#x} is not {}-byte aligned", a, align));
    return cta.shared.data() + a;
  }
};

// The tensor map operand: its image read from the parameter space or global memory.
DecodedTensorMap read_map(BulkContext& bc, const ptx::Operand& o);

// Copies the box at `coord` between the tensor and shared memory at `smem` (a store with
// `reduce` != None combines each element into the tensor's instead).
void tensor_copy(BulkContext& bc, const DecodedTensorMap& d, const std::int32_t* coord,
                 std::uint64_t smem, bool load, ptx::AtomOp reduce = ptx::AtomOp::None);

// An im2col map's copy (PTX ISA "im2col mode"): pixels_per_column pixels of channels_per_pixel
// channels from `coord` (C, then the spatial dimensions W first, then N), each spatial coordinate
// read at its place plus `offs` (W first), between the tensor and the rows of the tile at `smem`.
void im2col_copy(BulkContext& bc, const DecodedTensorMap& d, const std::int32_t* coord,
                 const std::int32_t* offs, std::uint64_t smem, bool load, ptx::AtomOp reduce);

}  // namespace smemsim::exec::detail
