// tex and tld4 in the executor (docs/exec.md "Textures"): each lane's texture object names a
// texture of the launch (GlobalMemory::textures); the sampling itself is texture.cpp's. A fetch
// reads global memory through the texture unit: no shared-memory access, and under a timing model
// the distinct 32-byte sectors of the texels it read.
#include <fmt/format.h>

#include <algorithm>
#include <bit>

#include "exec/exec_internal.hpp"
#include "smemsim/texture.hpp"

namespace smemsim::exec::detail {
namespace {

using ptx::TexGeom;

std::string_view geom_name(TexGeom g) {
  switch (g) {
    case TexGeom::D1:
      return "1d";
    case TexGeom::D2:
      return "2d";
    case TexGeom::D3:
      return "3d";
    case TexGeom::A1d:
      return "a1d";
    case TexGeom::A2d:
      return "a2d";
    default:
      return "?";
  }
}

std::string describe_shape(const Texture& t) {
  std::string s = t.layers ? fmt::format("layered {}-D ({} layers)", int(t.dims), t.layers)
                           : fmt::format("{}-D", int(t.dims));
  return s;
}

bool geometry_fits(TexGeom g, const Texture& t) {
  switch (g) {
    case TexGeom::D1:
      return t.dims == 1 && !t.layers;
    case TexGeom::D2:
      return t.dims == 2 && !t.layers;
    case TexGeom::D3:
      return t.dims == 3;
    case TexGeom::A1d:
      return t.dims == 1 && t.layers;
    case TexGeom::A2d:
      return t.dims == 2 && t.layers;
    default:
      return false;
  }
}

// The texture a lane's handle names, checked against the instruction (geometry, result type).
const Texture& lane_texture(Impl& im, Cta& cta, Warp& w, std::uint32_t pc, int lane,
                            std::uint64_t handle) {
  const ptx::Instruction& ins = im.kernel.code[pc];
  const std::uint64_t index = handle - kTextureHandleBase;
  if (handle < kTextureHandleBase || index >= im.memory.textures.size())
    im.fail(cta, w, lane, pc,
            fmt::format("texture object 0x{:x} in {} is not a texture of the launch (declare "
                        "[textures.NAME] in the launch spec and pass NAME as the argument)",
                        handle, im.kernel.regs[ins.ops[1].reg].name));
  const Texture& t = im.memory.textures[index];
  if (!geometry_fits(ins.geom, t))
    im.fail(cta, w, lane, pc,
            fmt::format("{}.{} on texture '{}', which is {}", ptx::opcode_name(ins.op),
                        geom_name(ins.geom), t.name, describe_shape(t)));
  const bool fl = tex_returns_float(t, im.memory.buffers[t.buffer]);
  if (fl != (ins.type == ptx::Type::F32))
    im.fail(cta, w, lane, pc,
            fl ? fmt::format("the instruction returns .{} but texture '{}' returns floats",
                             ptx::type_name(ins.type), t.name)
               : fmt::format("the instruction returns .f32 but texture '{}' returns its {} "
                             "elements as integers (read = \"normalized\" returns floats)",
                             t.name, elem_name(im.memory.buffers[t.buffer].type)));
  return t;
}

// The lane's coordinates from the coordinate vector (rows x.row[2..5]): the layer first for a
// layered geometry, then x, y, z as f32 bits or s32.
TexCoord lane_coord(Impl& im, Warp& w, const ptx::Instruction& ins, const XInst& x, int l) {
  TexCoord c;
  c.integer = ins.type2 == ptx::Type::S32;
  const bool layered = ins.geom == TexGeom::A1d || ins.geom == TexGeom::A2d;
  const int dims = ins.geom == TexGeom::D3                               ? 3
                   : ins.geom == TexGeom::D2 || ins.geom == TexGeom::A2d ? 2
                                                                         : 1;
  std::size_t at = 2;
  if (layered)
    c.layer = static_cast<std::int32_t>(static_cast<std::uint32_t>(im.row(w, x.row[at++])[l]));
  for (int d = 0; d < dims; ++d) {
    const std::uint32_t v = static_cast<std::uint32_t>(im.row(w, x.row[at++])[l]);
    c.f[std::size_t(d)] = std::bit_cast<float>(v);
    c.i[std::size_t(d)] = static_cast<std::int32_t>(v);
  }
  return c;
}

}  // namespace

std::uint16_t exec_texture(Impl& im, Cta& cta, Warp& w, std::uint32_t pc, LaneMask m) {
  const ptx::Instruction& ins = im.kernel.code[pc];
  const XInst& x = im.xcode[pc];
  const std::uint64_t* handles = im.row(w, x.row[1]);
  std::array<std::uint64_t, 8 * kMaxLanes> sectors;
  std::size_t nsec = 0;
  std::array<std::array<std::uint32_t, 4>, kMaxLanes> result;
  each_lane(m, [&](int l) {
    const Texture& t = lane_texture(im, cta, w, pc, l, handles[l]);
    const Buffer& b = im.memory.buffers[t.buffer];
    const TexCoord c = lane_coord(im, w, ins, x, l);
    TexTouched touched;
    result[std::size_t(l)] =
        ins.op == ptx::Opcode::Tld4
            ? tex_gather(t, b, c, ins.comp, im.count_sectors ? &touched : nullptr)
            : tex_sample(t, b, c, im.count_sectors ? &touched : nullptr);
    for (int k = 0; k < touched.count; ++k)
      sectors[nsec++] =
          (GlobalMemory::base_address(t.buffer) + touched.offset[std::size_t(k)]) >> 5;
  });
  // Registers are written after every lane has read (a destination may be a coordinate).
  each_lane(m, [&](int l) {
    for (std::size_t k = 0; k < 4; ++k) im.row(w, x.vrow[k])[l] = result[std::size_t(l)][k];
  });
  im.wide_active = false;
  if (!nsec) return 0;
  std::sort(sectors.begin(), sectors.begin() + std::ptrdiff_t(nsec));
  return static_cast<std::uint16_t>(
      std::unique(sectors.begin(), sectors.begin() + std::ptrdiff_t(nsec)) - sectors.begin());
}

}  // namespace smemsim::exec::detail
