// Decoder of the texture instructions on texture objects (issue 15, PTX ISA "Texture
// Instructions"):
//   tex.geom{.level|.grad}.v4.dtype.ctype  d, [a, c] {, lod | , dPdx, dPdy};
//   tld4.comp.geom.v4.dtype.f32            d, [a, c];
// geom: 1d 2d 3d a1d a2d (tld4: 2d a2d); dtype: u32 s32 f32; ctype: s32 f32. `a` is the texture
// object, a 64-bit register (cudaTextureObject_t). Texture references (a .texref name), separate
// samplers (independent mode: [a, b, c]), cube maps, multisample textures, f16 results, the
// optional residency predicate (d|p), offsets and depth compares are recorded as unsupported.
#include <fmt/format.h>

#include "ptx/parse_state.hpp"

namespace smemsim::ptx {
namespace {

class TexDecoder {
 public:
  TexDecoder(Cursor& cur, KernelBuilder& kb, const Token& m) : cur_(cur), kb_(kb), m_(m) {}

  Instruction run() {
    const std::string_view text = m_.text;
    ins_.op = text.starts_with("tld4") ? Opcode::Tld4 : Opcode::Tex;
    modifiers(
        text.substr(text.find('.') == std::string_view::npos ? text.size() : text.find('.') + 1));
    operands();
    return ins_;
  }

 private:
  Cursor& cur_;
  KernelBuilder& kb_;
  const Token& m_;
  Instruction ins_;

  [[noreturn]] void unsupported(const std::string& what) {
    throw UnsupportedInstruction{
        m_.line, fmt::format("unsupported PTX instruction '{}' ({})", m_.text, what)};
  }
  [[noreturn]] void malformed(const std::string& what) { cur_.fail(m_, what); }

  void modifiers(std::string_view rest) {
    static constexpr std::string_view kGeoms[] = {"", "1d", "2d", "3d", "a1d", "a2d"};
    static constexpr std::string_view kComps[] = {"r", "g", "b", "a"};
    bool v4 = false, comp = false;
    int types = 0;
    while (!rest.empty()) {
      const std::size_t d = rest.find('.');
      const std::string_view mod = rest.substr(0, d);
      rest = d == std::string_view::npos ? std::string_view() : rest.substr(d + 1);
      bool known = false;
      for (std::size_t g = 1; g < std::size(kGeoms); ++g)
        if (mod == kGeoms[g]) {
          if (ins_.geom != TexGeom::None) malformed(fmt::format("two geometries in '{}'", m_.text));
          ins_.geom = static_cast<TexGeom>(g);
          known = true;
        }
      for (std::size_t c = 0; c < std::size(kComps) && ins_.op == Opcode::Tld4; ++c)
        if (mod == kComps[c] && !comp) {
          ins_.comp = static_cast<std::uint8_t>(c);
          comp = known = true;
        }
      if (known) continue;
      if (mod == "cube" || mod == "acube" || mod == "2dms" || mod == "a2dms")
        unsupported(fmt::format("{} textures", mod));
      if (ins_.op == Opcode::Tex && (mod == "level" || mod == "grad" || mod == "base")) {
        if (ins_.has(kTexLevel) || ins_.has(kTexGrad)) malformed("two level-of-detail modes");
        if (mod == "level") ins_.flags |= kTexLevel;
        if (mod == "grad") ins_.flags |= kTexGrad;
        continue;  // .base: level 0, the only level a texture of the launch spec has
      }
      if (mod == "v4") {
        v4 = true;
        continue;
      }
      if (mod == "v2") unsupported("f16x2 results");
      const Type t = type_from_name(mod);
      if (t == Type::None) malformed(fmt::format("unknown modifier '.{}' in '{}'", mod, m_.text));
      if (t == Type::F16 || mod == "f16x2") unsupported("f16 results");
      if (types == 0) ins_.type = t;
      if (types == 1) ins_.type2 = t;
      if (++types > 2) malformed(fmt::format("too many types in '{}'", m_.text));
    }
    const char* what = ins_.op == Opcode::Tex ? "tex" : "tld4";
    if (ins_.geom == TexGeom::None)
      malformed(fmt::format("'{}' needs a geometry (.1d, .2d, .3d, .a1d, .a2d)", m_.text));
    if (ins_.op == Opcode::Tld4 &&
        (!comp || (ins_.geom != TexGeom::D2 && ins_.geom != TexGeom::A2d)))
      malformed(fmt::format("'{}': tld4 needs a component (.r .g .b .a) and .2d or .a2d", m_.text));
    if (!v4) malformed(fmt::format("'{}': {} needs .v4", m_.text, what));
    if (types != 2) malformed(fmt::format("'{}' needs two types (.dtype.ctype)", m_.text));
    if (ins_.type != Type::U32 && ins_.type != Type::S32 && ins_.type != Type::F32)
      malformed(fmt::format("'{}': the result type must be .u32, .s32 or .f32", m_.text));
    if (ins_.type2 != Type::S32 && ins_.type2 != Type::F32)
      malformed(fmt::format("'{}': the coordinate type must be .s32 or .f32", m_.text));
    if ((ins_.op == Opcode::Tld4 || ins_.has(kTexLevel) || ins_.has(kTexGrad)) &&
        ins_.type2 != Type::F32)
      malformed(fmt::format("'{}' needs .f32 coordinates", m_.text));
  }

  std::uint32_t reg(const Token& t) {
    const std::uint32_t r = kb_.find_reg(t.text);
    if (r == kNone) cur_.fail(t, fmt::format("unknown register '{}'", t.text));
    return r;
  }

  // {%r1, ...}: registers only, `want` of them (0: any count up to 4).
  Operand vector(std::size_t want, std::string_view what) {
    Operand o;
    o.kind = OperandKind::Vector;
    cur_.expect('{', fmt::format("to open the {} of '{}'", what, m_.text));
    std::array<std::uint32_t, 4> elems{};
    std::size_t n = 0;
    do {
      const Token& r = cur_.peek();
      if (r.kind != TokKind::Word || r.text[0] != '%')
        cur_.fail(r, fmt::format("malformed vector element {}", describe(r)));
      cur_.next();
      if (n == elems.size()) cur_.fail(r, "vector operand has more than 4 elements");
      elems[n++] = reg(r);
    } while (cur_.accept(','));
    cur_.expect('}', fmt::format("to close the {} of '{}'", what, m_.text));
    if (want && n != want)
      malformed(fmt::format("'{}' needs {} {} element{}, got {}", m_.text, want, what,
                            want == 1 ? "" : "s", n));
    kb_.kernel.add_vector(o, std::span(elems.data(), n), {});
    for (std::size_t k = 0; k < n; ++k)
      if (kb_.kernel.regs[elems[k]].type == Type::Pred)
        malformed(fmt::format("'{}': a predicate in the {}", m_.text, what));
    return o;
  }

  // Coordinate elements per geometry (PTX ISA: 3-D and layered 2-D use a 4-vector; the layer of a
  // layered texture comes first).
  std::size_t coordinates() const {
    switch (ins_.geom) {
      case TexGeom::D1:
        return 1;
      case TexGeom::D2:
      case TexGeom::A1d:
        return 2;
      default:
        return 4;
    }
  }

  void operands() {
    ins_.ops[0] = vector(4, "destination vector");
    for (int k = 0; k < 4; ++k)
      if (type_bits(kb_.kernel.regs[kb_.kernel.vec(ins_.ops[0], k)].type) != 32)
        malformed(fmt::format("'{}': the destination registers must be 32-bit", m_.text));
    if (cur_.peek().is('|')) unsupported("the residency predicate d|p of sparse textures");
    cur_.expect(',', fmt::format("after the destination of '{}'", m_.text));
    cur_.expect('[', fmt::format("to open the texture operand of '{}'", m_.text));
    const Token& a = cur_.peek();
    if (a.kind != TokKind::Word) malformed(fmt::format("malformed texture {}", describe(a)));
    cur_.next();
    if (a.text[0] != '%')
      unsupported(fmt::format("texture reference '{}'; pass a texture object (cudaTextureObject_t)",
                              a.text));
    ins_.ops[1].kind = OperandKind::Reg;
    ins_.ops[1].reg = reg(a);
    if (type_bits(kb_.kernel.regs[ins_.ops[1].reg].type) != 64)
      malformed(
          fmt::format("'{}': the texture object '{}' must be a 64-bit register", m_.text, a.text));
    cur_.expect(',', fmt::format("after the texture of '{}'", m_.text));
    if (!cur_.peek().is('{')) unsupported("a separate sampler (independent texturing mode)");
    ins_.ops[2] = vector(coordinates(), "coordinate");
    cur_.expect(']', fmt::format("to close the texture operand of '{}'", m_.text));
    ins_.num_ops = 3;
    if (ins_.has(kTexLevel)) {
      cur_.expect(',', fmt::format("before the level of detail of '{}'", m_.text));
      const Token& l = cur_.peek();
      if (l.kind != TokKind::Word || l.text[0] != '%')
        malformed(fmt::format("'{}': the level of detail must be a register", m_.text));
      cur_.next();
      ins_.ops[3].kind = OperandKind::Reg;
      ins_.ops[3].reg = reg(l);
      ins_.num_ops = 4;
    } else if (ins_.has(kTexGrad)) {
      for (int k = 0; k < 2; ++k) {
        cur_.expect(',', fmt::format("before the gradients of '{}'", m_.text));
        ins_.ops[std::size_t(3 + k)] = vector(0, "gradient");
      }
      ins_.num_ops = 5;
    }
    if (cur_.peek().is(',')) unsupported("an offset or depth-compare operand");
    cur_.expect(';', fmt::format("after the operands of '{}'", m_.text));
  }
};

}  // namespace

Instruction decode_texture(Cursor& cur, KernelBuilder& kb, const Token& mnemonic) {
  return TexDecoder(cur, kb, mnemonic).run();
}

}  // namespace smemsim::ptx
