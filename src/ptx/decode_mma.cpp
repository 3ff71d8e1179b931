// Decoder of the tensor-core instructions (issues 16 and 27, PTX ISA "Warp Level Matrix
// Multiply-Accumulate Instructions"; ldmatrix and cp.async are decode_copy.cpp's):
//   wmma.load.{a,b,c}.sync.aligned.layout.shape{.space}.type     {d}, [a] {, stride}
//   wmma.store.d.sync.aligned.layout.shape{.space}.type          [a], {b} {, stride}
//   wmma.mma.sync.aligned.alayout.blayout.shape.dtype{.atype.btype}.ctype   {d}, {a}, {b}, {c}
//   mma.sync.aligned.shape.alayout.blayout.dtype.atype.btype.ctype{.satfinite}{.and|.xor.popc}
//   wmma.mma{.and|.xor.popc}.sync.aligned.alayout.blayout.shape{.rn}.dtype.atype.btype.ctype
// Register counts per fragment follow the PTX ISA's tables; valid forms the executor does not
// model (fp8/fp6/fp4 and block-scaled mma, sparse mma, f64 roundings other than .rn) are recorded
// as unsupported with their reason.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <vector>

#include "ptx/decoder.hpp"
#include "smemsim/error.hpp"

namespace smemsim::ptx::decoding {
namespace {

MmaShape shape_of(std::string_view s) {
  for (int i = 1; i <= int(MmaShape::M16N8K256); ++i)
    if (shape_name(MmaShape(i)) == s) return MmaShape(i);
  return MmaShape::None;
}

bool is_mma_shape_name(std::string_view s) {
  return s.size() > 4 && s[0] == 'm' && s.find('n') != std::string_view::npos &&
         s.find('k') != std::string_view::npos && std::isdigit(static_cast<unsigned char>(s[1]));
}

// A type of an mma or wmma operand: the general names and the sub-byte ones only they take.
Type mma_type_from_name(std::string_view m) {
  if (m == "s4") return Type::S4;
  if (m == "u4") return Type::U4;
  if (m == "b1") return Type::B1;
  return type_from_name(m);
}

bool is_int8(Type t) {
  return t == Type::S8 || t == Type::U8;
}
bool is_int4(Type t) {
  return t == Type::S4 || t == Type::U4;
}

// Elements of type t in one fragment register: a 32-bit register packs 32 / bits of them (f16 2,
// s8 4, s4 8, b1 32); tf32, f32, s32 and f64 (in a 64-bit register) one.
int per_register(Type t) {
  const int bits = type_bits(t);
  return bits >= 32 ? 1 : 32 / bits;
}

// Registers per mma.sync fragment (PTX ISA "Matrix Fragments for mma.mMnNkK"): an A tile holds
// E = per_register elements of a row in each register, 4 lanes (threadID_in_group) side by side
// along K and rows g and g+8 for m16; B the same down K; C/D one f32/s32/f64 or two f16 per
// register. m8n8k4 on f16 is four separate 8x8x4 products, one per quad-pair of lanes.
int mma_fragment_regs(MmaShape shape, int matrix, Type t) {
  const MmaDims d = mma_shape_dims(shape);
  if (shape == MmaShape::M8N8K4 && (t == Type::F16 || t == Type::F32))
    return matrix < 2 ? 2 : t == Type::F16 ? 4 : 8;
  if (matrix >= 2) return (d.m * d.n / 32) / per_register(t);
  const int blocks = d.k / (4 * per_register(t));
  return matrix == 0 ? blocks * d.m / 8 : blocks;
}

// Registers per wmma fragment (PTX ISA "Matrix Fragments for WMMA"): f16 A and B always 8
// (.f16x2), bf16 and the 8-bit integers by shape, tf32 4, s4/u4/b1/f64 1; f16 C/D 4, f32/s32 8,
// and the m8n8 shapes' s32/f64 2.
int wmma_fragment_regs(MmaShape shape, int matrix, Type t) {
  const MmaDims d = mma_shape_dims(shape);
  if (matrix >= 2) return t == Type::F16 ? 4 : d.m * d.n / 32 / per_register(t);
  if (t == Type::F16) return 8;
  if (t == Type::TF32) return 4;
  if (d.m == 8 && d.n == 8) return 1;    // s4, u4, b1, f64
  const int scale = is_int8(t) ? 2 : 1;  // bf16: twice the registers of s8
  if (shape == MmaShape::M16N16K16) return 4 / scale;
  const bool big = (shape == MmaShape::M32N8K16) == (matrix == 0);  // m32 A, n32 B
  return (big ? 8 : 2) / scale;
}

// Whether mma.sync takes these A/B and C/D types at this shape (PTX ISA "mma"; fp8 and the
// block-scaled kinds are refused before this).
bool mma_combination(MmaShape s, Type ab, Type b, Type d, Type c) {
  using S = MmaShape;
  const bool f32 = d == Type::F32 && c == Type::F32, s32 = d == Type::S32 && c == Type::S32;
  switch (ab) {
    case Type::F16:
      return b == ab && (s == S::M8N8K4 || s == S::M16N8K8 || s == S::M16N8K16) &&
             (d == Type::F16 || d == Type::F32) && (c == Type::F16 || c == Type::F32);
    case Type::BF16:
      return b == ab && (s == S::M16N8K8 || s == S::M16N8K16) && f32;
    case Type::TF32:
      return b == ab && (s == S::M16N8K4 || s == S::M16N8K8) && f32;
    case Type::F64:
      return b == ab &&
             (s == S::M8N8K4 || s == S::M16N8K4 || s == S::M16N8K8 || s == S::M16N8K16) &&
             d == Type::F64 && c == Type::F64;
    case Type::S8:
    case Type::U8:
      return is_int8(b) && (s == S::M8N8K16 || s == S::M16N8K16 || s == S::M16N8K32) && s32;
    case Type::S4:
    case Type::U4:
      return is_int4(b) && (s == S::M8N8K32 || s == S::M16N8K32 || s == S::M16N8K64) && s32;
    case Type::B1:
      return b == ab && (s == S::M8N8K128 || s == S::M16N8K128 || s == S::M16N8K256) && s32;
    default:
      return false;
  }
}

// The same for wmma.mma (PTX ISA "wmma.mma").
bool wmma_combination(MmaShape s, Type ab, Type b, Type d, Type c) {
  using S = MmaShape;
  const bool family = s == S::M16N16K16 || s == S::M32N8K16 || s == S::M8N32K16;
  const bool f32 = d == Type::F32 && c == Type::F32, s32 = d == Type::S32 && c == Type::S32;
  switch (ab) {
    case Type::F16:
      return b == ab && family && (d == Type::F16 || d == Type::F32) &&
             (c == Type::F16 || c == Type::F32);
    case Type::BF16:
      return b == ab && family && f32;
    case Type::TF32:
      return b == ab && s == S::M16N16K8 && f32;
    case Type::S8:
    case Type::U8:
      return is_int8(b) && family && s32;
    case Type::S4:
    case Type::U4:
      return is_int4(b) && s == S::M8N8K32 && s32;
    case Type::B1:
      return b == ab && s == S::M8N8K128 && s32;
    case Type::F64:
      return b == ab && s == S::M8N8K4 && d == Type::F64 && c == Type::F64;
    default:
      return false;
  }
}

// The shapes wmma takes (the others are mma.sync's).
bool wmma_shape(MmaShape s) {
  using S = MmaShape;
  return s == S::M16N16K16 || s == S::M32N8K16 || s == S::M8N32K16 || s == S::M16N16K8 ||
         s == S::M8N8K4 || s == S::M8N8K32 || s == S::M8N8K128;
}

// The element type a wmma.load/store fragment of this shape may have.
bool wmma_element(MmaShape s, int matrix, Type t) {
  using S = MmaShape;
  if (s == S::M8N8K4) return t == Type::F64;
  if (matrix >= 2) {
    if (s == S::M8N8K32 || s == S::M8N8K128) return t == Type::S32;
    return t == Type::F16 || t == Type::F32 || t == Type::S32;
  }
  if (s == S::M16N16K8) return t == Type::TF32;
  if (s == S::M8N8K32) return is_int4(t);
  if (s == S::M8N8K128) return t == Type::B1;
  return t == Type::F16 || t == Type::BF16 || is_int8(t);
}

}  // namespace

Instruction Decoder::tensor() {
  const std::string_view text = m_.text;
  const std::vector<std::string_view> mods = split_modifiers(text);
  const std::string_view op = mods[0];
  const bool sync = std::ranges::count(mods, "sync") > 0;
  const bool aligned = std::ranges::count(mods, "aligned") > 0;

  // The modifiers mma and wmma.mma share: layouts in order (A, then B), a shape, types in order,
  // .satfinite, the single-bit operation and a rounding (f64).
  std::vector<Type> types;
  std::vector<bool> layouts;  // true: col
  bool bit_and = false, bit_xor = false, popc = false, satfinite = false;
  auto common_modifier = [&](std::string_view m) {
    if (m == "sync" || m == "aligned") return true;
    if (m == "row" || m == "col") {
      layouts.push_back(m == "col");
    } else if (is_mma_shape_name(m)) {
      ins_.shape = shape_of(m);
      if (ins_.shape == MmaShape::None) refuse(fmt::format("shape {}", m));
    } else if (mma_type_from_name(m) != Type::None) {
      types.push_back(mma_type_from_name(m));
    } else if (m == "e4m3" || m == "e5m2" || m == "e3m2" || m == "e2m3" || m == "e2m1") {
      refuse("fp8, fp6 and fp4 elements");
    } else if (m == "sp" || m.starts_with("sp::") || m.starts_with("kind::") ||
               m.starts_with("block_scale") || m.starts_with("scale_vec")) {
      refuse("sparse and block-scaled mma");
    } else if (m == "satfinite") {
      satfinite = true;
    } else if (m == "and" || m == "xor") {
      (m == "and" ? bit_and : bit_xor) = true;
    } else if (m == "popc") {
      popc = true;
    } else if (m == "rn") {
      return true;  // f64 results round to nearest, as without it
    } else if (m == "rz" || m == "rm" || m == "rp") {
      refuse(fmt::format("f64 rounding .{}", m));
    } else {
      return false;
    }
    return true;
  };
  // The types' checks after the modifiers, for both.
  auto finish_types = [&](bool ok, const char* supported) {
    if (!ok)
      refuse(fmt::format("the type combination .{}.{}.{}.{} at {} (supported: {})",
                         type_name(types[0]), type_name(types[1]), type_name(types[2]),
                         type_name(types[3]), shape_name(ins_.shape), supported));
    ins_.type = types[0];
    ins_.type2 = types[1];
    ins_.type4 = types[2];
    ins_.type3 = types[3];
    if (satfinite && (types[1] == Type::B1 || types[1] == Type::F64))
      malformed(fmt::format("'{}': .satfinite does not apply to .b1 or .f64", text));
    if (satfinite) ins_.flags |= kSatfinite;
    if ((types[1] == Type::B1) != (popc && bit_and != bit_xor))
      malformed(
          fmt::format("'{}': .b1 takes one of .and.popc or .xor.popc, other types neither", text));
    if (bit_xor) ins_.flags |= kXorPopc;
    if (layouts[0]) ins_.flags |= kColA;
    if (layouts[1]) ins_.flags |= kColB;
  };

  if (op == "mma") {
    ins_.op = Opcode::Mma;
    for (std::size_t i = 1; i < mods.size(); ++i)
      if (!common_modifier(mods[i]))
        malformed(fmt::format("unknown modifier '.{}' in '{}'", mods[i], text));
    if (!sync || !aligned || ins_.shape == MmaShape::None || layouts.size() != 2 ||
        types.size() != 4)
      malformed(
          fmt::format("'{}' needs .sync.aligned, a shape, the layouts of A and B (.row.col) and "
                      "four types (.dtype.atype.btype.ctype)",
                      text));
    finish_types(mma_combination(ins_.shape, types[1], types[2], types[0], types[3]),
                 "f16 m8n8k4, m16n8k8 and m16n8k16 with f16 or f32 accumulators; bf16 m16n8k8 "
                 "and m16n8k16, tf32 m16n8k4 and m16n8k8 with f32; f64 m8n8k4, m16n8k4, m16n8k8 "
                 "and m16n8k16; s8/u8 m8n8k16, m16n8k16 and m16n8k32, s4/u4 m8n8k32, m16n8k32 "
                 "and m16n8k64, b1 m8n8k128, m16n8k128 and m16n8k256 with s32");
    const bool volta = ins_.shape == MmaShape::M8N8K4 && types[1] == Type::F16;
    if (!volta && (layouts[0] || !layouts[1]))
      malformed(
          fmt::format("'{}': this shape takes .row.col (only f16 m8n8k4 takes others)", text));
    read_list({});
    expect_count(4, 4);
    const char* what[4] = {"D fragment", "A fragment", "B fragment", "C fragment"};
    const Type of[4] = {ins_.type, ins_.type2, ins_.type4, ins_.type3};
    const int matrix[4] = {3, 0, 1, 2};
    for (int i = 0; i < 4; ++i) {
      // m8n8k4 f16: A and B count f16 registers whatever the accumulators.
      expect_vector(std::size_t(i), mma_fragment_regs(ins_.shape, matrix[i], of[i]), what[i]);
    }
    return ins_;
  }

  if (op == "wmma") {
    if (mods.size() < 2) unsupported();
    const std::string_view kind = mods[1];
    if (kind != "load" && kind != "store" && kind != "mma") unsupported();
    ins_.op = kind == "load"    ? Opcode::WmmaLoad
              : kind == "store" ? Opcode::WmmaStore
                                : Opcode::WmmaMma;
    for (std::size_t i = 2; i < mods.size(); ++i) {
      const std::string_view m = mods[i];
      if (ins_.op != Opcode::WmmaMma && (m == "a" || m == "b" || m == "c" || m == "d")) {
        ins_.comp = m == "a" ? 0 : m == "b" ? 1 : 2;
      } else if (ins_.op != Opcode::WmmaMma && (m == "shared" || m == "shared::cta")) {
        ins_.space = Space::Shared;
      } else if (ins_.op != Opcode::WmmaMma && m == "global") {
        ins_.space = Space::Global;
      } else if (!common_modifier(m)) {
        refuse(fmt::format("modifier .{}", m));
      }
    }
    if (!sync || !aligned || ins_.shape == MmaShape::None)
      malformed(fmt::format("'{}' needs .sync.aligned and a shape", text));
    if (ins_.space == Space::None) ins_.space = Space::Generic;
    const bool subbyte = ins_.shape == MmaShape::M8N8K32 || ins_.shape == MmaShape::M8N8K128;
    if (ins_.op == Opcode::WmmaMma) {
      if (layouts.size() != 2)
        malformed(fmt::format("'{}' needs the layouts of A and B (.row/.col)", text));
      // .dtype.ctype (f16 inputs) or .dtype.atype.btype.ctype (the others).
      if (types.size() == 2) types = {types[0], Type::F16, Type::F16, types[1]};
      if (types.size() != 4)
        malformed(fmt::format("'{}' needs .dtype.ctype or .dtype.atype.btype.ctype", text));
      finish_types(wmma_combination(ins_.shape, types[1], types[2], types[0], types[3]),
                   "f16 with f16 or f32 accumulators, bf16 with f32 and s8/u8 with s32 at "
                   "m16n16k16, m32n8k16 and m8n32k16; tf32 m16n16k8; s4/u4 m8n8k32 and b1 "
                   "m8n8k128 with s32; f64 m8n8k4");
      if (subbyte && (layouts[0] || !layouts[1]))
        malformed(fmt::format("'{}': s4, u4 and b1 take .row.col", text));
      read_list({});
      expect_count(4, 4);
      expect_vector(0, wmma_fragment_regs(ins_.shape, 3, ins_.type), "D fragment");
      expect_vector(1, wmma_fragment_regs(ins_.shape, 0, ins_.type2), "A fragment");
      expect_vector(2, wmma_fragment_regs(ins_.shape, 1, ins_.type4), "B fragment");
      expect_vector(3, wmma_fragment_regs(ins_.shape, 2, ins_.type3), "C fragment");
      return ins_;
    }
    if (layouts.size() != 1 || types.size() != 1 || popc || bit_and || bit_xor || satfinite)
      malformed(fmt::format("'{}' needs one layout (.row/.col) and one type", text));
    if (layouts[0]) ins_.flags |= kColA;
    ins_.type = types[0];
    if (ins_.op == Opcode::WmmaStore) ins_.comp = 3;
    if (!wmma_shape(ins_.shape)) refuse(fmt::format("wmma shape {}", shape_name(ins_.shape)));
    if (!wmma_element(ins_.shape, ins_.comp, ins_.type))
      refuse(fmt::format("wmma on .{} at {}", type_name(ins_.type), shape_name(ins_.shape)));
    // Sub-byte fragments: A row-major, B column-major (PTX ISA "wmma.load").
    if (subbyte && ins_.comp < 2 && layouts[0] != (ins_.comp == 1))
      malformed(fmt::format("'{}': a sub-byte {} is {}-major", text, ins_.comp ? "B" : "A",
                            ins_.comp ? "column" : "row"));
    const bool ld = ins_.op == Opcode::WmmaLoad;
    read_list({std::size_t(ld ? 1 : 0)});
    expect_count(2, 3);
    expect_vector(ld ? 0 : 1, wmma_fragment_regs(ins_.shape, ins_.comp, ins_.type), "fragment");
    if (ins_.num_ops == 3 && !is_value(2))
      malformed(fmt::format("'{}': the stride must be a register or integer", text));
    return ins_;
  }
  unsupported();
}

}  // namespace smemsim::ptx::decoding
