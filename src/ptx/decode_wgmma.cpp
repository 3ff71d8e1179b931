// Decoder of Hopper's warpgroup matrix multiply (issue 46; PTX ISA "Asynchronous Warpgroup Level
// Matrix Multiply-Accumulate Instructions", wgmma, sm_90a):
//   wgmma.fence.sync.aligned;  wgmma.commit_group.sync.aligned;  wgmma.wait_group.sync.aligned N;
//   wgmma.mma_async.sync.aligned.m64nNkK.dtype.atype.btype{.satfinite}
//       d, a-desc | a, b-desc, scale-d {, imm-scale-a, imm-scale-b {, imm-trans-a}, imm-trans-b}
// d holds the thread's share of the 64 x N accumulator (N / 2 registers of f32/s32, N / 4 of
// f16x2), a four registers of A when A comes from registers, the descriptors 64-bit values,
// scale-d a predicate (false: D = A B, the old D ignored). The immediates: a scale of 1 or -1
// for A and B (not for integers), a transpose of 0 or 1 for 16-bit A (from shared memory) and B.
// f16 and bf16 take k16, tf32 k8, s8/u8 and fp8 (e4m3, e5m2, mixed) k32; b1 and sparse forms are
// valid ones the executor does not model: recorded as unsupported with their reason.
#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "ptx/decoder.hpp"
#include "smemsim/error.hpp"

namespace smemsim::ptx::decoding {
namespace {

bool is_int8(Type t) {
  return t == Type::S8 || t == Type::U8;
}
bool is_fp8(Type t) {
  return t == Type::E4M3 || t == Type::E5M2;
}

// The N the PTX ISA allows: every multiple of 8 to 256 for the floating-point types; for the
// integer ones 8, 16, 24 and then multiples of 16 (PTX ISA, wgmma "Matrix Shape").
bool valid_n(int n, Type a) {
  if (n < 8 || n > 256 || n % 8) return false;
  return !is_int8(a) || n <= 24 || n % 16 == 0;
}

}  // namespace

Instruction Decoder::wgmma() {
  const std::string_view text = m_.text;
  const std::vector<std::string_view> mods = split_modifiers(text);
  ins_.op = Opcode::Wgmma;
  if (mods.size() < 2) unsupported();
  const std::string_view kind = mods[1];
  const bool sync = std::ranges::count(mods, "sync") > 0;
  const bool aligned = std::ranges::count(mods, "aligned") > 0;
  if (kind == "fence" || kind == "commit_group" || kind == "wait_group") {
    ins_.comp = std::uint8_t(kind == "fence"          ? WgmmaOp::Fence
                             : kind == "commit_group" ? WgmmaOp::Commit
                                                      : WgmmaOp::Wait);
    for (std::size_t i = 2; i < mods.size(); ++i)
      if (mods[i] != "sync" && mods[i] != "aligned")
        malformed(fmt::format("unknown modifier '.{}' in '{}'", mods[i], text));
    if (!sync || !aligned) malformed(fmt::format("'{}' needs .sync.aligned", text));
    read_list({});
    const bool wait = kind == "wait_group";
    expect_count(wait ? 1 : 0, wait ? 1 : 0);
    if (wait && (ins_.ops[0].kind != OperandKind::ImmInt || ins_.ops[0].imm() < 0 ||
                 ins_.ops[0].imm() > 255))
      malformed(fmt::format("'{}': N must be an integer from 0 to 255", text));
    return ins_;
  }
  if (kind != "mma_async") unsupported();
  std::vector<Type> types;
  bool satfinite = false;
  int n = 0, k = 0;
  for (std::size_t i = 2; i < mods.size(); ++i) {
    const std::string_view m = mods[i];
    if (m == "sync" || m == "aligned") continue;
    if (m == "satfinite") {
      satfinite = true;
    } else if (m.size() > 4 && m.starts_with("m64n") && m.find('k') != std::string_view::npos) {
      const std::size_t at = m.find('k');
      const std::string_view ns = m.substr(4, at - 4), ks = m.substr(at + 1);
      std::uint64_t nv = 0, kv = 0;
      if (!parse_int_literal(ns, nv) || !parse_int_literal(ks, kv) || nv > 1024 || kv > 1024)
        malformed(fmt::format("'{}': malformed shape .{}", text, m));
      n = int(nv);
      k = int(kv);
    } else if (m == "e4m3" || m == "e5m2") {
      types.push_back(m == "e4m3" ? Type::E4M3 : Type::E5M2);
    } else if (m == "b1" || m == "and" || m == "popc") {
      refuse("wgmma on single-bit elements");
    } else if (m == "sp") {
      refuse("sparse wgmma");
    } else if (type_from_name(m) != Type::None) {
      types.push_back(type_from_name(m));
    } else {
      malformed(fmt::format("unknown modifier '.{}' in '{}'", m, text));
    }
  }
  if (!sync || !aligned || !n || types.size() != 3)
    malformed(fmt::format(
        "'{}' needs .sync.aligned, a shape (.m64nNkK) and three types (.dtype.atype.btype)", text));
  const Type d = types[0], a = types[1], b = types[2];
  const bool half = (a == Type::F16 || a == Type::BF16) && b == a;
  const bool ok = (half && (d == Type::F32 || (d == Type::F16 && a == Type::F16)) && k == 16) ||
                  (a == Type::TF32 && b == a && d == Type::F32 && k == 8) ||
                  (is_int8(a) && is_int8(b) && d == Type::S32 && k == 32) ||
                  (is_fp8(a) && is_fp8(b) && (d == Type::F32 || d == Type::F16) && k == 32);
  if (!ok)
    malformed(
        fmt::format("'{}': wgmma takes .f16 with .f16 or .f32 accumulators and .bf16 with "
                    ".f32 at k16, .tf32 with .f32 at k8, .s8/.u8 with .s32 and .e4m3/.e5m2 with "
                    ".f16 or .f32 at k32",
                    text));
  if (!valid_n(n, a))
    malformed(fmt::format("'{}': N = {} is not a shape of .{} (8 to 256 in steps of {})", text, n,
                          type_name(a), is_int8(a) ? "16, and 8, 24" : "8"));
  if (satfinite && !is_int8(a))
    malformed(fmt::format("'{}': .satfinite is for the integer types", text));
  ins_.type = d;
  ins_.type2 = a;
  ins_.type4 = b;
  ins_.type3 = d;
  ins_.shape = k == 8 ? MmaShape::M64K8 : k == 16 ? MmaShape::M64K16 : MmaShape::M64K32;
  ins_.vec = std::uint8_t(n / 8);
  if (satfinite) ins_.flags |= kSatfinite;

  // The operands: four into ops, the immediates after them into comp.
  std::vector<Operand> list;
  while (!cur_.peek().is(';') && !cur_.at_end()) {
    if (!list.empty()) cur_.expect(',', fmt::format("between operands of '{}'", text));
    if (list.size() == 8) malformed(fmt::format("'{}' has too many operands", text));
    list.push_back(operand(false, false));
  }
  cur_.expect(';', fmt::format("after the operands of '{}'", text));
  const bool a_regs = !list.empty() && list.size() > 1 && list[1].kind == OperandKind::Vector;
  const std::size_t imms = is_int8(a) ? 0 : half ? (a_regs ? 3 : 4) : 2;
  if (list.size() != 4 + imms)
    malformed(fmt::format("'{}' needs {} operands (d, {}, b-desc, scale-d{}), got {}", text,
                          4 + imms, a_regs ? "a" : "a-desc",
                          imms == 0   ? ""
                          : imms == 2 ? ", imm-scale-a, imm-scale-b"
                          : a_regs    ? ", imm-scale-a, imm-scale-b, imm-trans-b"
                                      : ", imm-scale-a, imm-scale-b, imm-trans-a, imm-trans-b",
                          list.size()));
  for (std::size_t i = 0; i < 4; ++i) ins_.ops[i] = list[i];
  ins_.num_ops = 4;
  for (std::size_t i = 4; i < list.size(); ++i) {
    const bool scale = i < 6;
    const std::int64_t v = list[i].kind == OperandKind::ImmInt ? list[i].imm() : 2;
    if (scale ? (v != 1 && v != -1) : (v != 0 && v != 1))
      malformed(fmt::format("'{}': operand {} ({}) must be the integer {}", text, i + 1,
                            scale               ? (i == 4 ? "imm-scale-a" : "imm-scale-b")
                            : i == 6 && !a_regs ? "imm-trans-a"
                                                : "imm-trans-b",
                            scale ? "1 or -1" : "0 or 1"));
    if (scale && v == -1) ins_.comp |= i == 4 ? kWgmmaNegA : kWgmmaNegB;
    if (!scale && v == 1) ins_.comp |= i == 6 && !a_regs ? kWgmmaTransA : kWgmmaTransB;
  }
  const int dregs = d == Type::F16 ? n / 4 : n / 2;
  expect_vector(0, dregs, "accumulator d");
  // Every accumulator and A register is a 32-bit one (.f32, .s32, .f16x2, .b32).
  auto words = [&](std::size_t i, const char* what) {
    const Operand& v = ins_.ops[i];
    for (int k = 0; k < v.count; ++k)
      if (type_bits(kb_.kernel.regs[kb_.kernel.vec(v, k)].type) != 32)
        malformed(fmt::format("'{}': the {} holds 32-bit registers; {} is not one", text, what,
                              kb_.kernel.regs[kb_.kernel.vec(v, k)].name));
  };
  words(0, "accumulator d");
  if (a_regs) {
    expect_vector(1, 4, "A fragment");
    words(1, "A fragment");
  } else {
    ins_.comp |= kWgmmaADesc;
    need(1, is_reg(1) && type_bits(kb_.kernel.regs[ins_.ops[1].reg].type) == 64,
         "a 64-bit register (A's matrix descriptor)");
  }
  need(2, is_reg(2) && type_bits(kb_.kernel.regs[ins_.ops[2].reg].type) == 64,
       "a 64-bit register (B's matrix descriptor)");
  const OperandKind sk = ins_.ops[3].kind;
  need(3,
       is_pred(3) ||
           (sk == OperandKind::ImmInt && (ins_.ops[3].imm() == 0 || ins_.ops[3].imm() == 1)),
       "a predicate or 0/1 (scale-d)");
  return ins_;
}

}  // namespace smemsim::ptx::decoding
