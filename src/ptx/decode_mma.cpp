// Decoder of the tensor-core and asynchronous-copy instructions (issue 16, PTX ISA "Warp Level
// Matrix Multiply-Accumulate Instructions", "Data Movement and Conversion Instructions"):
//   ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}{.shared}.b16   {d}, [a]
//   stmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}{.shared}.b16   [a], {b}
//   cp.async.{ca,cg}.shared.global{.L2::128B ...}                [dst], [src], size {, src-size |
//   p} cp.async.commit_group / cp.async.wait_group n / cp.async.wait_all
//   mma.sync.aligned.{m16n8k16,m16n8k8}.row.col.dtype.atype.btype.ctype   {d}, {a}, {b}, {c}
//   wmma.load.{a,b,c}.sync.aligned.layout.shape{.space}.type     {d}, [a] {, stride}
//   wmma.store.d.sync.aligned.layout.shape{.space}.type          [a], {b} {, stride}
//   wmma.mma.sync.aligned.alayout.blayout.shape.dtype{.atype.btype}.ctype   {d}, {a}, {b}, {c}
// Register counts per fragment follow the PTX ISA's tables; valid forms the executor does not
// model (integer and fp8 mma, m8n8k4, sparse mma, wmma on sub-byte types, bulk copies) are
// recorded as unsupported with their reason.
#include <fmt/format.h>

#include <cctype>
#include <vector>

#include "ptx/decoder.hpp"
#include "smemsim/error.hpp"

namespace smemsim::ptx::decoding {
namespace {

std::vector<std::string_view> split_modifiers(std::string_view text) {
  std::vector<std::string_view> out;
  while (!text.empty()) {
    const std::size_t d = text.find('.');
    out.push_back(text.substr(0, d));
    text = d == std::string_view::npos ? std::string_view() : text.substr(d + 1);
  }
  return out;
}

MmaShape shape_of(std::string_view s) {
  if (s == "m16n8k16") return MmaShape::M16N8K16;
  if (s == "m16n8k8") return MmaShape::M16N8K8;
  if (s == "m16n16k16") return MmaShape::M16N16K16;
  if (s == "m32n8k16") return MmaShape::M32N8K16;
  if (s == "m8n32k16") return MmaShape::M8N32K16;
  if (s == "m16n16k8") return MmaShape::M16N16K8;
  return MmaShape::None;
}

bool is_mma_shape_name(std::string_view s) {
  return s.size() > 4 && s[0] == 'm' && s.find('n') != std::string_view::npos &&
         s.find('k') != std::string_view::npos && std::isdigit(static_cast<unsigned char>(s[1]));
}

// Registers per wmma fragment (PTX ISA "Matrix Fragments for WMMA"): f16 A and B always 8
// (.f16x2), bf16 by shape, tf32 4, f16 C/D 4 and f32 C/D 8.
int wmma_fragment_regs(MmaShape shape, int matrix, Type t) {
  if (matrix >= 2) return t == Type::F16 ? 4 : 8;
  if (t == Type::F16) return 8;
  if (t == Type::TF32) return 4;
  if (shape == MmaShape::M16N16K16) return 4;
  const bool big = (shape == MmaShape::M32N8K16) == (matrix == 0);  // m32 A, n32 B
  return big ? 8 : 2;
}

// Registers per mma.sync fragment (PTX ISA "Matrix Fragments for mma.m16n8k16/k8").
int mma_fragment_regs(MmaShape shape, int matrix, Type t) {
  if (matrix >= 2) return t == Type::F32 ? 4 : 2;
  if (t == Type::TF32) return matrix == 0 ? 4 : 2;  // m16n8k8.tf32
  const bool k16 = shape == MmaShape::M16N8K16;
  return matrix == 0 ? (k16 ? 4 : 2) : (k16 ? 2 : 1);
}

}  // namespace

Instruction Decoder::tensor() {
  const std::string_view text = m_.text;
  const std::vector<std::string_view> mods = split_modifiers(text);
  auto fail_unsupported = [&](const std::string& why) -> void {
    throw UnsupportedInstruction{m_.line,
                                 fmt::format("unsupported PTX instruction '{}' ({})", text, why)};
  };
  auto vector_of = [&](std::size_t i, int regs, const char* what) {
    const Operand& v = ins_.ops[i];
    if (v.kind != OperandKind::Vector || v.count != regs)
      malformed(fmt::format("'{}' needs {} registers in its {}", text, regs, what));
    for (int k = 0; k < v.count; ++k)
      if (is_vec_imm(v.vec[std::size_t(k)]))
        malformed(fmt::format("'{}': the {} holds registers only", text, what));
  };
  auto expect_ops = [&](std::size_t lo, std::size_t hi) {
    if (ins_.num_ops < lo || ins_.num_ops > hi)
      malformed(fmt::format("'{}' needs {} operands, got {}", text,
                            lo == hi ? fmt::format("{}", lo) : fmt::format("{} or {}", lo, hi),
                            ins_.num_ops));
  };
  // The operands: memory operands where an address belongs.
  auto read_operands = [&](std::initializer_list<std::size_t> memory_at) {
    std::size_t n = 0;
    while (!cur_.peek().is(';') && !cur_.at_end()) {
      if (n == ins_.ops.size()) malformed(fmt::format("'{}' has too many operands", text));
      if (n > 0) cur_.expect(',', fmt::format("between operands of '{}'", text));
      bool mem = false;
      for (std::size_t m : memory_at) mem |= m == n;
      ins_.ops[n] = operand(mem, false);
      ++n;
    }
    cur_.expect(';', fmt::format("after the operands of '{}'", text));
    ins_.num_ops = static_cast<std::uint8_t>(n);
  };
  const std::string_view op = mods[0];
  bool sync = false, aligned = false;
  for (std::string_view m : mods) {
    sync |= m == "sync";
    aligned |= m == "aligned";
  }

  if (op == "cp") {
    if (mods.size() < 2 || mods[1] != "async") unsupported();
    if (mods.size() == 3 && mods[2] == "commit_group") {
      ins_.op = Opcode::CpAsyncCommit;
      read_operands({});
      expect_ops(0, 0);
      return ins_;
    }
    if (mods.size() == 3 && (mods[2] == "wait_group" || mods[2] == "wait_all")) {
      ins_.op = Opcode::CpAsyncWait;
      read_operands({});
      if (mods[2] == "wait_all") {  // = commit_group; wait_group 0 (PTX ISA)
        expect_ops(0, 0);
        ins_.ops[0].kind = OperandKind::ImmInt;
        ins_.ops[0].imm = 0;
        ins_.flags |= kUni;
        return ins_;
      }
      expect_ops(1, 1);
      if (ins_.ops[0].kind != OperandKind::ImmInt || ins_.ops[0].imm < 0)
        malformed(fmt::format("'{}' needs a non-negative integer", text));
      return ins_;
    }
    if (mods.size() > 2 && (mods[2] == "bulk" || mods[2] == "mbarrier"))
      fail_unsupported("bulk copies and mbarrier arrivals");
    ins_.op = Opcode::CpAsync;
    bool ca = false, cg = false, dst = false, src = false, hint = false;
    for (std::size_t i = 2; i < mods.size(); ++i) {
      const std::string_view m = mods[i];
      if (m == "ca")
        ca = true;
      else if (m == "cg")
        cg = true;
      else if (m == "shared" || m == "shared::cta")
        dst = true;
      else if (m == "global" && dst)
        src = true;
      else if (m.starts_with("L2::cache_hint"))
        hint = true;
      else if (m.starts_with("L2::"))
        continue;  // a prefetch size: no functional effect
      else if (m == "shared::cluster")
        fail_unsupported("cluster shared memory");
      else
        malformed(fmt::format("unknown modifier '.{}' in '{}'", m, text));
    }
    if (ca == cg || !dst || !src)
      malformed(fmt::format("'{}' needs .ca or .cg, then .shared.global", text));
    ins_.space = Space::Shared;
    ins_.flags |= ca ? 0u : kNc;  // .cg: bypass L1 (kept for the printer)
    read_operands({0, 1});
    expect_ops(3, hint ? 5 : 4);
    if (hint) --ins_.num_ops;  // the cache policy operand: no functional effect
    if (ins_.ops[2].kind != OperandKind::ImmInt ||
        (ins_.ops[2].imm != 4 && ins_.ops[2].imm != 8 && ins_.ops[2].imm != 16))
      malformed(fmt::format("'{}': the copy size must be 4, 8 or 16 bytes", text));
    if (cg && ins_.ops[2].imm != 16) malformed(fmt::format("'{}': .cg copies 16 bytes", text));
    if (ins_.num_ops == 4 && !is_value(3))
      malformed(fmt::format("'{}': the source size must be a register or integer", text));
    return ins_;
  }

  if (op == "ldmatrix" || op == "stmatrix") {
    ins_.op = op == "ldmatrix" ? Opcode::Ldmatrix : Opcode::Stmatrix;
    bool shape = false;
    for (std::size_t i = 1; i < mods.size(); ++i) {
      const std::string_view m = mods[i];
      if (m == "sync" || m == "aligned") continue;
      if (m == "m8n8")
        shape = true;
      else if (m == "x1" || m == "x2" || m == "x4")
        ins_.vec = std::uint8_t(m[1] - '0');
      else if (m == "trans")
        ins_.flags |= kTrans;
      else if (m == "shared" || m == "shared::cta")
        ins_.space = Space::Shared;
      else if (m == "b16")
        ins_.type = Type::B16;
      else if (m == "m16n16" || m == "m8n16" || m == "b8" || m.starts_with("b8x16"))
        fail_unsupported("the sm_100 shapes and 8-bit element types");
      else
        malformed(fmt::format("unknown modifier '.{}' in '{}'", m, text));
    }
    const bool count = ins_.vec > 1 || text.find(".x1") != std::string_view::npos;
    if (!sync || !aligned || !shape || !count || ins_.type != Type::B16)
      malformed(fmt::format("'{}' needs .sync.aligned.m8n8, .x1, .x2 or .x4, and .b16", text));
    if (ins_.space == Space::None) ins_.space = Space::Generic;
    const bool ld = ins_.op == Opcode::Ldmatrix;
    read_operands({std::size_t(ld ? 1 : 0)});
    expect_ops(2, 2);
    vector_of(ld ? 0 : 1, ins_.vec, ld ? "destination" : "source");
    for (int k = 0; k < ins_.vec; ++k)
      if (type_bits(kb_.kernel.regs[ins_.ops[ld ? 0 : 1].vec[std::size_t(k)]].type) != 32)
        malformed(fmt::format("'{}': each register holds two b16 elements (32 bits)", text));
    return ins_;
  }

  if (op == "mma") {
    ins_.op = Opcode::Mma;
    std::vector<Type> types;
    bool row = false, col = false;
    for (std::size_t i = 1; i < mods.size(); ++i) {
      const std::string_view m = mods[i];
      if (m == "sync" || m == "aligned") continue;
      if (m == "row")
        row = true;
      else if (m == "col")
        col = true;
      else if (is_mma_shape_name(m)) {
        ins_.shape = shape_of(m);
        if (ins_.shape != MmaShape::M16N8K16 && ins_.shape != MmaShape::M16N8K8)
          fail_unsupported(fmt::format("shape {}", m));
      } else if (type_from_name(m) != Type::None)
        types.push_back(type_from_name(m));
      else if (m == "sp" || m.starts_with("sp::") || m == "satfinite" || m.starts_with("kind::"))
        fail_unsupported("sparse, integer and block-scaled mma");
      else
        malformed(fmt::format("unknown modifier '.{}' in '{}'", m, text));
    }
    if (!sync || !aligned || ins_.shape == MmaShape::None || !row || !col || types.size() != 4)
      malformed(
          fmt::format("'{}' needs .sync.aligned, a shape, .row.col and four types "
                      "(.dtype.atype.btype.ctype)",
                      text));
    ins_.type = types[0];
    ins_.type2 = types[1];
    ins_.type3 = types[3];
    const bool f16ab = types[1] == Type::F16 || types[1] == Type::BF16;
    const bool ok = types[1] == types[2] &&
                    ((f16ab && (ins_.shape == MmaShape::M16N8K16 || types[1] == Type::F16)) ||
                     (types[1] == Type::TF32 && ins_.shape == MmaShape::M16N8K8)) &&
                    (types[0] == Type::F32 || (types[0] == Type::F16 && types[1] == Type::F16)) &&
                    (types[3] == Type::F32 || (types[3] == Type::F16 && types[1] == Type::F16));
    if (!ok)
      fail_unsupported(fmt::format(
          "the type combination .{}.{}.{}.{} (supported: f16 or bf16 "
          "m16n8k16, f16 or tf32 m16n8k8; f32 or, with f16, f16 "
          "accumulators)",
          type_name(types[0]), type_name(types[1]), type_name(types[2]), type_name(types[3])));
    read_operands({});
    expect_ops(4, 4);
    const char* what[4] = {"D fragment", "A fragment", "B fragment", "C fragment"};
    for (int i = 0; i < 4; ++i) {
      const Type t = i == 0 ? ins_.type : i == 3 ? ins_.type3 : ins_.type2;
      vector_of(std::size_t(i),
                mma_fragment_regs(ins_.shape,
                                  i == 0   ? 3
                                  : i == 3 ? 2
                                           : i - 1,
                                  t),
                what[i]);
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
    std::vector<Type> types;
    std::vector<bool> layouts;  // true: col
    for (std::size_t i = 2; i < mods.size(); ++i) {
      const std::string_view m = mods[i];
      if (m == "sync" || m == "aligned") continue;
      if (m == "a" || m == "b" || m == "c" || m == "d") {
        ins_.comp = m == "a" ? 0 : m == "b" ? 1 : 2;
      } else if (m == "row" || m == "col") {
        layouts.push_back(m == "col");
      } else if (is_mma_shape_name(m)) {
        ins_.shape = shape_of(m);
        if (ins_.shape == MmaShape::None || ins_.shape == MmaShape::M16N8K16 ||
            ins_.shape == MmaShape::M16N8K8)
          fail_unsupported(fmt::format("wmma shape {}", m));
      } else if (m == "shared" || m == "shared::cta") {
        ins_.space = Space::Shared;
      } else if (m == "global") {
        ins_.space = Space::Global;
      } else if (type_from_name(m) != Type::None) {
        types.push_back(type_from_name(m));
      } else if (m == "satfinite") {
        continue;  // f16 results: no infinities (kept as the f16 rounding's overflow)
      } else {
        fail_unsupported(fmt::format("modifier .{}", m));
      }
    }
    if (!sync || !aligned || ins_.shape == MmaShape::None)
      malformed(fmt::format("'{}' needs .sync.aligned and a shape", text));
    if (ins_.space == Space::None) ins_.space = Space::Generic;
    const bool tf32_shape = ins_.shape == MmaShape::M16N16K8;
    if (ins_.op == Opcode::WmmaMma) {
      if (layouts.size() != 2)
        malformed(fmt::format("'{}' needs the layouts of A and B (.row/.col)", text));
      if (layouts[0]) ins_.flags |= kColA;
      if (layouts[1]) ins_.flags |= kColB;
      // .dtype.ctype (f16 inputs) or .dtype.atype.btype.ctype (bf16, tf32).
      if (types.size() == 2) types = {types[0], Type::F16, Type::F16, types[1]};
      if (types.size() != 4 || types[1] != types[2])
        malformed(fmt::format("'{}' needs .dtype.ctype or .dtype.atype.btype.ctype", text));
      ins_.type = types[0];
      ins_.type2 = types[1];
      ins_.type3 = types[3];
      const bool half_ab = types[1] == Type::F16 || types[1] == Type::BF16;
      if (!((half_ab && !tf32_shape) || (types[1] == Type::TF32 && tf32_shape)) ||
          (types[1] != Type::F16 && (types[0] != Type::F32 || types[3] != Type::F32)) ||
          (types[0] != Type::F32 && types[0] != Type::F16) ||
          (types[3] != Type::F32 && types[3] != Type::F16))
        fail_unsupported(
            "the type combination (f16 with f16 or f32 accumulators; bf16 and "
            "tf32 with f32)");
      read_operands({});
      expect_ops(4, 4);
      vector_of(0, wmma_fragment_regs(ins_.shape, 3, ins_.type), "D fragment");
      vector_of(1, wmma_fragment_regs(ins_.shape, 0, ins_.type2), "A fragment");
      vector_of(2, wmma_fragment_regs(ins_.shape, 1, ins_.type2), "B fragment");
      vector_of(3, wmma_fragment_regs(ins_.shape, 2, ins_.type3), "C fragment");
      return ins_;
    }
    if (layouts.size() != 1 || types.size() != 1)
      malformed(fmt::format("'{}' needs one layout (.row/.col) and one type", text));
    if (layouts[0]) ins_.flags |= kColA;
    ins_.type = types[0];
    if (ins_.op == Opcode::WmmaStore) ins_.comp = 3;
    const bool ab = ins_.comp < 2;
    const bool type_ok = ab ? (tf32_shape ? ins_.type == Type::TF32
                                          : ins_.type == Type::F16 || ins_.type == Type::BF16)
                            : ins_.type == Type::F16 || ins_.type == Type::F32;
    if (!type_ok) fail_unsupported(fmt::format("wmma on .{}", type_name(ins_.type)));
    const bool ld = ins_.op == Opcode::WmmaLoad;
    read_operands({std::size_t(ld ? 1 : 0)});
    expect_ops(2, 3);
    vector_of(ld ? 0 : 1, wmma_fragment_regs(ins_.shape, ins_.comp, ins_.type), "fragment");
    if (ins_.num_ops == 3 && !is_value(2))
      malformed(fmt::format("'{}': the stride must be a register or integer", text));
    return ins_;
  }
  unsupported();
}

}  // namespace smemsim::ptx::decoding
