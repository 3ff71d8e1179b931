// Texture sampling (texture.hpp, docs/exec.md "Textures"): address modes, nearest-point and linear
// filtering, the read modes, and tld4's bilinear footprint. Pure functions of a texture and its
// buffer; the executor (texture_exec.cpp) calls them per lane.
#include "smemsim/texture.hpp"

#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <cstring>

#include "exec/half.hpp"
#include "smemsim/error.hpp"
#include "smemsim/exec.hpp"

namespace smemsim::exec {
namespace {

bool is_small_int(ElemType e) {
  return e == ElemType::U8 || e == ElemType::S8 || e == ElemType::U16 || e == ElemType::S16;
}

// A texel index after the address mode of its dimension; -1 when it reads the border (0).
std::int64_t address(std::int64_t i, std::uint32_t size, TexAddress mode) {
  const std::int64_t n = size;
  switch (mode) {
    case TexAddress::Clamp:
      return i < 0 ? 0 : i >= n ? n - 1 : i;
    case TexAddress::Border:
      return i < 0 || i >= n ? -1 : i;
    case TexAddress::Wrap:
      return ((i % n) + n) % n;
    case TexAddress::Mirror: {
      const std::int64_t m = ((i % (2 * n)) + 2 * n) % (2 * n);
      return m < n ? m : 2 * n - 1 - m;
    }
  }
  return 0;
}

// floor() of a coordinate as a texel index, bounded so that the conversion is defined (a
// coordinate of 1e30 is as far out as 2^40); NaN reads as 0.
std::int64_t floor_index(double x) {
  if (std::isnan(x)) return 0;
  const double lim = 1099511627776.0;  // 2^40
  return static_cast<std::int64_t>(std::floor(std::fmax(-lim, std::fmin(lim, x))));
}

class Sampler {
 public:
  Sampler(const Texture& t, const Buffer& b, TexTouched* touched)
      : t_(t), b_(b), touched_(touched), float_(tex_returns_float(t, b)) {
    size_[0] = t.width;
    size_[1] = t.height;
    size_[2] = t.depth;
  }

  // The texel's element k as a double (float results) or a 32-bit integer pattern.
  double value(std::int64_t x, std::int64_t y, std::int64_t z, std::int64_t layer, int k) {
    if (x < 0 || y < 0 || z < 0 || k >= t_.channels) return 0.0;  // border, or a missing channel
    const std::uint64_t texel =
        ((std::uint64_t(layer) * t_.depth + std::uint64_t(z)) * t_.height + std::uint64_t(y)) *
            t_.width +
        std::uint64_t(x);
    const int eb = elem_bytes(b_.type);
    const std::uint64_t at = (texel * t_.channels + std::uint64_t(k)) * std::uint64_t(eb);
    note(texel * t_.channels * std::uint64_t(eb));
    std::int64_t v = 0;
    switch (b_.type) {
      case ElemType::F32: {
        float f;
        std::memcpy(&f, b_.bytes.data() + at, 4);
        return f;
      }
      case ElemType::F16: {  // a half texture (cudaCreateChannelDescHalf) reads as float
        std::uint16_t u;
        std::memcpy(&u, b_.bytes.data() + at, 2);
        return detail::f16_value(u);
      }
      case ElemType::U8:
        v = b_.bytes[at];
        break;
      case ElemType::S8:
        v = static_cast<std::int8_t>(b_.bytes[at]);
        break;
      case ElemType::U16:
      case ElemType::S16: {
        std::uint16_t u;
        std::memcpy(&u, b_.bytes.data() + at, 2);
        v = b_.type == ElemType::U16 ? std::int64_t(u) : std::int64_t(std::int16_t(u));
        break;
      }
      default: {  // U32 / S32 (check_texture refuses the rest)
        std::uint32_t u;
        std::memcpy(&u, b_.bytes.data() + at, 4);
        v = b_.type == ElemType::U32 ? std::int64_t(u) : std::int64_t(std::int32_t(u));
        break;
      }
    }
    if (!float_) return double(v);
    // cudaReadModeNormalizedFloat: unsigned n-bit integers over 2^n - 1, signed over 2^(n-1) - 1
    // with -2^(n-1) read as -1.0.
    const bool u = b_.type == ElemType::U8 || b_.type == ElemType::U16;
    const double full = b_.type == ElemType::U8    ? 255.0
                        : b_.type == ElemType::S8  ? 127.0
                        : b_.type == ElemType::U16 ? 65535.0
                                                   : 32767.0;
    return u ? double(v) / full : std::fmax(double(v) / full, -1.0);
  }

  std::uint32_t bits(double v) const {
    if (float_) return std::bit_cast<std::uint32_t>(static_cast<float>(v));
    return static_cast<std::uint32_t>(static_cast<std::int64_t>(v));
  }

  // Texel indices along dimension d after the address mode.
  std::int64_t index(std::int64_t i, int d) const { return address(i, size_[d], t_.address[d]); }

  std::int64_t layer(std::int32_t l) const {
    if (!t_.layers) return 0;
    return l < 0 ? 0 : l >= std::int32_t(t_.layers) ? std::int64_t(t_.layers) - 1 : l;
  }

  // The coordinate of dimension d in texels (normalized coordinates scale by the size).
  double texel_coord(const TexCoord& c, int d) const {
    const double x = c.f[std::size_t(d)];
    return t_.normalized ? x * size_[d] : x;
  }

  int dims() const { return t_.dims; }

 private:
  void note(std::uint64_t off) {
    if (!touched_) return;
    for (int i = 0; i < touched_->count; ++i)
      if (touched_->offset[std::size_t(i)] == off) return;
    if (touched_->count < int(touched_->offset.size()))
      touched_->offset[std::size_t(touched_->count++)] = off;
  }

  const Texture& t_;
  const Buffer& b_;
  TexTouched* touched_;
  bool float_;
  std::uint32_t size_[3];
};

// The linear filter's weight: frac(x_B) in 9-bit fixed point with 8 fractional bits (Programming
// Guide, "Linear Filtering"); rounded to the nearest 1/256, our reading of "stored in".
double fixed_weight(double frac) {
  return std::nearbyint(frac * 256.0) / 256.0;
}

}  // namespace

bool tex_returns_float(const Texture& t, const Buffer& b) {
  return elem_is_float(b.type) || t.read == TexRead::Normalized;
}

void check_texture(const Texture& t, const Buffer& b, const std::string& where) {
  auto fail = [&](const std::string& what) {
    throw InputError(fmt::format("{}texture '{}': {}", where, t.name, what));
  };
  if (t.dims < 1 || t.dims > 3) fail("dims must be 1, 2 or 3");
  if (t.channels != 1 && t.channels != 2 && t.channels != 4)
    fail(fmt::format("channels = {}: CUDA textures have 1, 2 or 4 channels", t.channels));
  if (!t.width || !t.height || !t.depth) fail("every dimension needs at least one texel");
  if (t.layers && t.dims == 3) fail("a 3-D texture cannot be layered");
  const std::int64_t eb = elem_bytes(b.type);
  if (eb > 4 || b.type == ElemType::U64 || b.type == ElemType::S64 || b.type == ElemType::F64 ||
      b.type == ElemType::BF16)
    fail(
        fmt::format("buffer '{}' holds {} elements; textures hold 8-, 16- or 32-bit integers, "
                    "f16 or f32 (CUDA has no 64-bit texel format; bf16 texels are not modelled)",
                    b.name, elem_name(b.type)));
  const std::uint64_t need = t.texels() * t.channels;
  if (need > b.elements())
    fail(fmt::format("{} texels x {} channel{} need {} elements, buffer '{}' has {}", t.texels(),
                     int(t.channels), t.channels == 1 ? "" : "s", need, b.name, b.elements()));
  if (t.read == TexRead::Normalized && !is_small_int(b.type))
    fail(
        fmt::format("read = \"normalized\" applies to 8- and 16-bit integer texels, buffer '{}' "
                    "holds {}",
                    b.name, elem_name(b.type)));
  if (t.filter == TexFilter::Linear && !tex_returns_float(t, b))
    fail(
        fmt::format("filter = \"linear\" needs float results: f32 texels or read = "
                    "\"normalized\" (buffer '{}' holds {})",
                    b.name, elem_name(b.type)));
  for (int d = 0; d < t.dims; ++d) {
    const TexAddress a = t.address[std::size_t(d)];
    if ((a == TexAddress::Wrap || a == TexAddress::Mirror) && !t.normalized)
      fail(
          "address modes wrap and mirror need normalized = true (CUDA supports them only with "
          "normalized coordinates)");
  }
}

std::array<std::uint32_t, 4> tex_sample(const Texture& t, const Buffer& b, const TexCoord& c,
                                        TexTouched* touched) {
  Sampler s(t, b, touched);
  const int dims = s.dims();
  const std::int64_t layer = s.layer(c.layer);
  std::array<std::int64_t, 3> i0{0, 0, 0}, i1{0, 0, 0};
  std::array<double, 3> w{0, 0, 0};  // weight of the upper texel per dimension
  const bool linear = !c.integer && t.filter == TexFilter::Linear;
  for (int d = 0; d < dims; ++d) {
    const std::size_t k = std::size_t(d);
    if (c.integer) {
      i0[k] = s.index(c.i[k], d);
    } else if (!linear) {
      i0[k] = s.index(floor_index(s.texel_coord(c, d)), d);
    } else {
      const double xb = s.texel_coord(c, d) - 0.5;
      const std::int64_t i = floor_index(xb);
      w[k] = std::isnan(xb) ? 0.0 : fixed_weight(xb - std::floor(xb));
      i0[k] = s.index(i, d);
      i1[k] = s.index(i + 1, d);
    }
  }
  std::array<std::uint32_t, 4> out{};
  for (int ch = 0; ch < 4; ++ch) {
    if (!linear) {
      out[std::size_t(ch)] = s.bits(s.value(i0[0], i0[1], i0[2], layer, ch));
      continue;
    }
    // Sum over the 2^dims corners of the footprint: corner bit d picks the upper texel of d.
    double v = 0;
    for (int corner = 0; corner < (1 << dims); ++corner) {
      double weight = 1;
      std::array<std::int64_t, 3> at{0, 0, 0};
      for (int d = 0; d < dims; ++d) {
        const std::size_t k = std::size_t(d);
        const bool up = (corner >> d) & 1;
        weight *= up ? w[k] : 1.0 - w[k];
        at[k] = up ? i1[k] : i0[k];
      }
      if (weight != 0.0) v += weight * s.value(at[0], at[1], at[2], layer, ch);
    }
    out[std::size_t(ch)] = s.bits(v);
  }
  return out;
}

std::array<std::uint32_t, 4> tex_gather(const Texture& t, const Buffer& b, const TexCoord& c,
                                        int comp, TexTouched* touched) {
  Sampler s(t, b, touched);
  const std::int64_t layer = s.layer(c.layer);
  const std::int64_t i = floor_index(s.texel_coord(c, 0) - 0.5);
  const std::int64_t j = floor_index(s.texel_coord(c, 1) - 0.5);
  const std::int64_t x0 = s.index(i, 0), x1 = s.index(i + 1, 0);
  const std::int64_t y0 = s.index(j, 1), y1 = s.index(j + 1, 1);
  return {s.bits(s.value(x0, y1, 0, layer, comp)), s.bits(s.value(x1, y1, 0, layer, comp)),
          s.bits(s.value(x1, y0, 0, layer, comp)), s.bits(s.value(x0, y0, 0, layer, comp))};
}

}  // namespace smemsim::exec
