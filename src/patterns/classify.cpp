#include "smemsim/classify.hpp"

#include <bit>
#include <cstdlib>

namespace smemsim {

const char* access_class_name(AccessClass c) {
  switch (c) {
    case AccessClass::Linear:
      return "linear";
    case AccessClass::Stride:
      return "stride";
    case AccessClass::Block:
      return "block";
    case AccessClass::Random:
      return "random";
  }
  return "?";
}

namespace {

// Fits addr(lane) = o + Sx * (lane % bx) + Sy * (lane / bx) over the active lanes; bx = lanes means
// one dimension. Returns false when no integer (o, Sx, Sy) fits every active lane.
bool fit(const WarpAccess& wa, int bx, Classification& out) {
  const int lanes = wa.lanes;
  int p = -1, q = -1,
      r = -1;  // reference lane, one with another tx and same ty, one with another ty
  for (int i = 0; i < lanes; ++i) {
    if (!wa.is_active(i)) continue;
    if (p < 0)
      p = i;
    else if (q < 0 && i / bx == p / bx && i % bx != p % bx)
      q = i;
    else if (r < 0 && i / bx != p / bx)
      r = i;
  }
  const auto A = [&](int i) { return std::int64_t(wa.addr[std::size_t(i)]); };
  std::int64_t sx = 0, sy = 0;
  if (q >= 0) {
    const std::int64_t d = A(q) - A(p), dt = (q % bx) - (p % bx);
    if (d % dt) return false;
    sx = d / dt;
  }
  if (r >= 0) {
    const std::int64_t d = A(r) - A(p) - sx * ((r % bx) - (p % bx)), dt = (r / bx) - (p / bx);
    if (d % dt) return false;
    sy = d / dt;
  }
  const std::int64_t o = A(p) - sx * (p % bx) - sy * (p / bx);
  for (int i = 0; i < lanes; ++i)
    if (wa.is_active(i) && A(i) != o + sx * (i % bx) + sy * (i / bx)) return false;
  out.stride = sx;
  out.stride_y = sy;
  out.block_x = bx;
  out.offset = o;
  return true;
}

}  // namespace

Classification classify_access(const WarpAccess& wa) {
  Classification c;
  if (wa.active_count() < 2) {
    c.cls = AccessClass::Linear;
    c.stride = 1;
    return c;
  }
  // One dimension first (002 Eq. 5/6): a stride over the lane number.
  if (fit(wa, wa.lanes, c)) {
    c.block_x = 0;
    c.stride_y = 0;
    if (c.stride == 1)
      c.cls = AccessClass::Linear;
    else if (c.stride != 0)
      c.cls = AccessClass::Stride;
    else
      c.cls = AccessClass::Block;  // every lane on one word: the all-zero matrix of Eq. 7
    return c;
  }
  // Two dimensions (002 Eq. 7): rows of bx threads, bx < warp width.
  for (int bx = 2; bx < wa.lanes; ++bx) {
    Classification b;
    if (fit(wa, bx, b)) {
      b.cls = AccessClass::Block;
      return b;
    }
  }
  c = {};
  c.cls = AccessClass::Random;
  return c;
}

int stride_k(std::int64_t stride) {
  const std::uint64_t s = std::uint64_t(std::llabs(stride));
  return s == 0 ? 0 : std::countr_zero(s);
}

int stride_msb(std::int64_t stride, int threads) {
  const std::uint64_t span = std::uint64_t(threads - 1) * std::uint64_t(std::llabs(stride));
  return span == 0 ? 0 : std::bit_width(span) - 1;
}

void ClassCounts::add(const Classification& c) {
  switch (c.cls) {
    case AccessClass::Linear:
      ++linear;
      ++strides[1];
      break;
    case AccessClass::Stride:
      ++stride;
      ++strides[c.stride];
      break;
    case AccessClass::Block:
      ++block;
      ++blocks[{c.stride, c.stride_y, c.block_x}];
      break;
    case AccessClass::Random:
      ++random;
      break;
  }
}

}  // namespace smemsim
