// The instruction decoder (decode.cpp: mnemonics, modifiers, operands; decode_check.cpp: the
// operand layouts each opcode must have; decode_mma.cpp: tensor-core instructions). Internal to
// the PTX front-end.
#pragma once

#include <fmt/format.h>

#include <string>
#include <string_view>
#include <vector>

#include "ptx/parse_state.hpp"

namespace smemsim::ptx::decoding {

// What a modifier of a given opcode may be (bit set per opcode).
enum Allow : std::uint32_t {
  aType = 1 << 0,
  aSpace = 1 << 1,
  aCmp = 1 << 2,
  aBool = 1 << 3,
  aAtom = 1 << 4,
  aRound = 1 << 5,
  aMode = 1 << 6,
  aFtz = 1 << 7,
  aSat = 1 << 8,
  aApprox = 1 << 9,
  aFull = 1 << 10,
  aUni = 1 << 11,
  aTo = 1 << 12,
  aVolatile = 1 << 13,
  aNc = 1 << 14,
  aVec = 1 << 15,
  aCache = 1 << 16,
  aSem = 1 << 17,
  aScope = 1 << 18,
  aBar = 1 << 19,
  aShf = 1 << 20,
  aWarp = 1 << 21,  // .sync, .aligned and the warp modes (shfl, vote, match, redux)
  aCc = 1 << 22,    // .cc (carry out)
  aTest = 1 << 23,  // testp's class
  aShiftamt = 1 << 24,
  aPrmt = 1 << 25,  // prmt's modes
  aHalf = 1 << 26,  // .relu, .satfinite (cvt), .NaN (min, max)
};

struct OpInfo {
  std::string_view name;
  Opcode op;
  std::uint32_t allow;
  int types;  // number of type modifiers required
  int min_ops, max_ops;
};

// Finds modifier `m` in a table indexed by enum value; `first` is the index of the first real
// name (1 in the shared tables, whose entry 0 is None).
template <typename E, std::size_t N>
bool lookup(std::string_view m, const std::string_view (&names)[N], E& out, std::size_t first) {
  for (std::size_t i = first; i < N; ++i) {
    if (names[i] == m) {
      out = static_cast<E>(i);
      return true;
    }
  }
  return false;
}

// Shared by the bulk reductions and red.async (decode_bulk.cpp): the reduction a modifier names
// (add, min, max, inc, dec, and, or, xor; None otherwise), and the PTX ISA's table of what a
// reduction into .shared::cluster takes, with the message that states it.
AtomOp reduce_op(std::string_view m);
bool cluster_reduction(AtomOp a, Type t);
extern const char* const kClusterReductions;

class Decoder {
 public:
  Decoder(Cursor& cur, KernelBuilder& kb, const Token& m) : cur_(cur), kb_(kb), m_(m) {}
  Instruction run();

  // Tensor-core instructions (decode_mma.cpp): mma.sync, wmma.load/store/mma.
  Instruction tensor();
  // ldmatrix, stmatrix, cp.async and its groups (decode_copy.cpp).
  Instruction async_copy();
  // Split barriers (decode_mbarrier.cpp): mbarrier.*, cp.async.mbarrier.arrive, nanosleep.
  Instruction mbarrier();
  // The TMA's bulk copies (decode_bulk.cpp): cp.async.bulk{.tensor}, their groups, prefetches.
  Instruction bulk_copy();
  Instruction async_store();  // st.async, red.async (decode_cluster.cpp)
  // fence.proxy.* and fence.mbarrier_init: orderings between the generic and async proxies, with
  // no effect where every access is performed in order.
  Instruction proxy_fence();
  // barrier.cluster.arrive/wait and mapa (decode_cluster.cpp, issue 46).
  Instruction cluster_op();
  Instruction wgmma();  // decode_wgmma.cpp

 private:
  Cursor& cur_;
  KernelBuilder& kb_;
  const Token& m_;
  Instruction ins_;
  bool seen_space_ = false, seen_sync_ = false, seen_dir_ = false, seen_mode_ = false;
  [[noreturn]] void unsupported() {
    throw UnsupportedInstruction{m_.line, fmt::format("unsupported PTX instruction '{}'", m_.text)};
  }
  [[noreturn]] void malformed(const std::string& what) { cur_.fail(m_, what); }
  // An undeclared register fails the kernel that uses it, not the module (issue 27): PTX has no
  // registers but declared and special ones, so the name is neither.
  std::uint32_t reg(const Token& t) {
    const std::uint32_t r = kb_.find_reg(t.text);
    if (r == kNone)
      throw UnsupportedInstruction{
          t.line,
          fmt::format("unknown register '{}' (not declared, and not a special register of the PTX "
                      "ISA)",
                      t.text),
          open_};
    return r;
  }
  int open_ = 0;  // vector operands being read (their '{' consumed)
  void need(std::size_t i, bool ok, std::string_view what) {
    if (!ok) malformed(fmt::format("operand {} of '{}' must be {}", i + 1, m_.text, what));
  }
  bool is_reg(std::size_t i) const {
    return ins_.ops[i].kind == OperandKind::Reg && !ins_.ops[i].negate;
  }
  bool is_value(std::size_t i) const {
    const OperandKind k = ins_.ops[i].kind;
    return k == OperandKind::Reg || k == OperandKind::ImmInt || k == OperandKind::ImmFloat ||
           k == OperandKind::Special || k == OperandKind::Symbol;
  }
  bool is_pred(std::size_t i) const {
    return ins_.ops[i].kind == OperandKind::Reg &&
           kb_.kernel.regs[ins_.ops[i].reg].type == Type::Pred;
  }

  // The decoders of whole mnemonics (tensor, async_copy, mbarrier; decode_check.cpp):
  // "mma.sync.aligned.m16n8k16" -> {"mma", "sync", "aligned", "m16n8k16"}.
  static std::vector<std::string_view> split_modifiers(std::string_view text);
  // A valid form smemsim does not model: the kernel that uses it fails, with `why`.
  [[noreturn]] void refuse(const std::string& why);
  // The operands up to ';': memory operands at the positions `memory_at`, the sink `_` allowed at
  // `sink_at` (its operand stays OperandKind::None).
  static constexpr std::size_t kNoSink = ~std::size_t{0};
  void read_list(std::initializer_list<std::size_t> memory_at, std::size_t sink_at = kNoSink);
  // The operand count read_list found is within [lo, hi].
  void expect_count(std::size_t lo, std::size_t hi);
  // Operand i is a vector of `regs` registers (no immediates), the instruction's `what`.
  void expect_vector(std::size_t i, int regs, const char* what);
  void modifier(const OpInfo& info, std::string_view mod, int& types);
  // The cache qualifiers with no functional effect (issue 45): eviction priorities (.L1::evict_*,
  // .L1::no_allocate, .L2::evict_*), prefetch sizes (.L2::64B/128B/256B) and .L2::cache_hint (whose
  // cache-policy operand operands() reads and drops) on ld, st, atom and red; prefetch's levels;
  // createpolicy's forms. True when `mod` is one of them for `op`.
  bool cache_hint_modifier(Opcode op, std::string_view mod);
  bool cache_hint_ = false;  // .L2::cache_hint: one more operand, the policy
  void check_modifiers();
  // One operand; memory operands only where `memory` is true, labels where `label` is true.
  Operand operand(bool memory, bool label);
  // [+|-] [-] number, as in [%r1+-4].
  std::int64_t signed_int(bool needs_sign);
  // signed_int for an address offset: refused unless it fits in 32 bits (fits_operand_offset).
  std::int64_t offset(bool needs_sign);
  void operands(const OpInfo& info);
  // Warp-level instructions: the operand count with and without .sync, the destination, the
  // predicate source of vote, the optional predicate destination of shfl and match.all.
  void warp_operands();
  // mov.b32 d, {a, b} packs (the first element lowest); mov.b32 {a, b}, d unpacks.
  void mov_vector_operands();
  void check_operands();
};

}  // namespace smemsim::ptx::decoding
