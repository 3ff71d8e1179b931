// Texture objects (issue 15, docs/exec.md "Textures"): what cudaCreateTextureObject describes --
// texels in a buffer, dimensions, channels, filtering, address modes, normalized coordinates and
// the read mode -- and the sampling the texture unit performs for tex and tld4, as the CUDA C++
// Programming Guide's "Texture Fetching" appendix and the PTX ISA's texture instructions define
// it. A launch spec declares textures ([textures.NAME]); a kernel receives one as a 64-bit
// cudaTextureObject_t argument.
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace smemsim::exec {

struct Buffer;

enum class TexFilter : std::uint8_t { Point, Linear };
// clamp: to the edge texel; border: outside texels read as 0; wrap: periodic; mirror: periodic
// with every second period reflected. wrap and mirror need normalized coordinates (CUDA).
enum class TexAddress : std::uint8_t { Clamp, Border, Wrap, Mirror };
// element: the texel's value (integers as integers); normalized: 8- and 16-bit integers read as
// floats in [0, 1] (unsigned) or [-1, 1] (signed), cudaReadModeNormalizedFloat.
enum class TexRead : std::uint8_t { Element, Normalized };

struct Texture {
  std::string name;
  std::uint32_t buffer = 0;  // GlobalMemory::buffers index: texels x fastest, then y, z, layer
  std::uint8_t dims = 1;     // 1, 2 or 3
  std::uint32_t width = 1, height = 1, depth = 1;
  std::uint32_t layers = 0;   // layered 1-D/2-D textures: the number of layers (0: not layered)
  std::uint8_t channels = 1;  // elements per texel: 1, 2 or 4 (float, float2, uchar4, ...)
  TexFilter filter = TexFilter::Point;
  std::array<TexAddress, 3> address{TexAddress::Clamp, TexAddress::Clamp, TexAddress::Clamp};
  bool normalized = false;  // coordinates in [0, 1) instead of [0, size)
  TexRead read = TexRead::Element;

  std::uint64_t texels() const {
    return std::uint64_t(width) * height * depth * (layers ? layers : 1);
  }
};

// The 64-bit value a kernel receives for texture i of a launch (a cudaTextureObject_t): an opaque
// handle that no buffer address can equal.
inline constexpr std::uint64_t kTextureHandleBase = std::uint64_t{0x7c0000} << 40;

// Where one lane samples: float coordinates (tex.*.f32, tld4) or texel indices (tex.*.s32, i.e.
// tex1Dfetch), and the layer of a layered texture.
struct TexCoord {
  bool integer = false;
  std::array<float, 3> f{};
  std::array<std::int32_t, 3> i{};
  std::int32_t layer = 0;
};

// The byte offsets (into the texture's buffer) of the texels a fetch read, for the timing model's
// sector count: at most 8 (trilinear filtering).
struct TexTouched {
  std::array<std::uint64_t, 8> offset{};
  int count = 0;
};

// Whether fetches return floats (.f32 results): float texels, or integers read normalized.
bool tex_returns_float(const Texture& t, const Buffer& b);
// The texture must fit its buffer and be a combination CUDA accepts (texel types of 8-32 bits,
// linear filtering only on float results, wrap/mirror only with normalized coordinates, ...).
// Throws InputError "<where>texture 'NAME': ...".
void check_texture(const Texture& t, const Buffer& b, const std::string& where);

// tex: the four components (f32 bit patterns, or 32-bit integers sign- or zero-extended from the
// texel type) at `c`, with the texture's filter and address modes; missing channels read 0.
// Float coordinates: nearest-point T[floor(x)], or linear (1-a)T[i] + aT[i+1] with x_B = x - 0.5,
// i = floor(x_B), a = frac(x_B) held in 9-bit fixed point with 8 fractional bits (the
// Programming Guide's "Texture Fetching"), per dimension. Integer coordinates: the texel at
// the index, unfiltered.
std::array<std::uint32_t, 4> tex_sample(const Texture& t, const Buffer& b, const TexCoord& c,
                                        TexTouched* touched = nullptr);
// tld4: component `comp` (0..3) of the four texels of the bilinear footprint at `c`, in the PTX
// ISA's order (counter-clockwise from the lower left): T[i, j+1], T[i+1, j+1], T[i+1, j],
// T[i, j].
std::array<std::uint32_t, 4> tex_gather(const Texture& t, const Buffer& b, const TexCoord& c,
                                        int comp, TexTouched* touched = nullptr);

}  // namespace smemsim::exec
