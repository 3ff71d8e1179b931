// Instruction decoder: mnemonic + dotted modifiers -> enums, operands -> registers / immediates /
// symbols / memory references / labels (the operand layouts are checked in decode_check.cpp), so
// an executor can trust an Instruction's operand layout (see ptx.hpp).
#include <fmt/format.h>

#include "ptx/decoder.hpp"
#include "smemsim/error.hpp"

namespace smemsim::ptx {
namespace decoding {
namespace {

constexpr std::uint32_t kFloatArith = aType | aRound | aFtz | aSat;
constexpr OpInfo kOps[] = {
    {"ld", Opcode::Ld, aType | aSpace | aVolatile | aNc | aVec | aCache | aSem | aScope, 1, 2, 2},
    {"st", Opcode::St, aType | aSpace | aVolatile | aVec | aCache | aSem | aScope, 1, 2, 2},
    {"cvta", Opcode::Cvta, aType | aSpace | aTo, 1, 2, 2},
    {"mov", Opcode::Mov, aType, 1, 2, 2},
    {"add", Opcode::Add, kFloatArith | aCc, 1, 3, 3},
    {"sub", Opcode::Sub, kFloatArith | aCc, 1, 3, 3},
    {"mul", Opcode::Mul, kFloatArith | aMode, 1, 3, 3},
    {"mad", Opcode::Mad, kFloatArith | aMode | aCc, 1, 4, 4},
    {"div", Opcode::Div, aType | aRound | aFtz | aApprox | aFull, 1, 3, 3},
    {"rem", Opcode::Rem, aType, 1, 3, 3},
    {"min", Opcode::Min, aType | aFtz | aHalf, 1, 3, 3},
    {"max", Opcode::Max, aType | aFtz | aHalf, 1, 3, 3},
    {"abs", Opcode::Abs, aType | aFtz, 1, 2, 2},
    {"neg", Opcode::Neg, aType | aFtz, 1, 2, 2},
    {"and", Opcode::And, aType, 1, 3, 3},
    {"or", Opcode::Or, aType, 1, 3, 3},
    {"xor", Opcode::Xor, aType, 1, 3, 3},
    {"not", Opcode::Not, aType, 1, 2, 2},
    {"shl", Opcode::Shl, aType, 1, 3, 3},
    {"shr", Opcode::Shr, aType, 1, 3, 3},
    {"shf", Opcode::Shf, aType | aShf, 1, 4, 4},
    {"popc", Opcode::Popc, aType, 1, 2, 2},
    {"clz", Opcode::Clz, aType, 1, 2, 2},
    {"brev", Opcode::Brev, aType, 1, 2, 2},
    {"bfe", Opcode::Bfe, aType, 1, 4, 4},
    {"bfi", Opcode::Bfi, aType, 1, 5, 5},
    {"prmt", Opcode::Prmt, aType | aPrmt, 1, 4, 4},
    {"setp", Opcode::Setp, aType | aCmp | aBool | aFtz, 1, 3, 4},
    {"selp", Opcode::Selp, aType, 1, 4, 4},
    {"set", Opcode::Set, aType | aCmp | aBool | aFtz, 2, 3, 4},
    {"cvt", Opcode::Cvt, aType | aRound | aFtz | aSat | aHalf, 2, 2, 3},
    {"fma", Opcode::Fma, kFloatArith, 1, 4, 4},
    {"rcp", Opcode::Rcp, aType | aRound | aFtz | aApprox, 1, 2, 2},
    {"sqrt", Opcode::Sqrt, aType | aRound | aFtz | aApprox, 1, 2, 2},
    {"rsqrt", Opcode::Rsqrt, aType | aFtz | aApprox, 1, 2, 2},
    {"sin", Opcode::Sin, aType | aFtz | aApprox, 1, 2, 2},
    {"cos", Opcode::Cos, aType | aFtz | aApprox, 1, 2, 2},
    {"ex2", Opcode::Ex2, aType | aFtz | aApprox, 1, 2, 2},
    {"lg2", Opcode::Lg2, aType | aFtz | aApprox, 1, 2, 2},
    {"bra", Opcode::Bra, aUni, 0, 1, 1},
    {"bar", Opcode::Bar, aBar, 0, 1, 2},
    {"barrier", Opcode::Bar, aBar, 0, 1, 2},
    {"membar", Opcode::Membar, aScope, 0, 0, 0},
    {"fence", Opcode::Membar, aSem | aScope, 0, 0, 0},
    {"atom", Opcode::Atom, aType | aSpace | aAtom | aSem | aScope, 1, 3, 4},
    {"red", Opcode::Red, aType | aSpace | aAtom | aSem | aScope, 1, 2, 2},
    {"ret", Opcode::Ret, aUni, 0, 0, 0},
    {"exit", Opcode::Exit, 0, 0, 0, 0},
    {"shfl", Opcode::Shfl, aType | aWarp, 1, 4, 5},
    {"vote", Opcode::Vote, aType | aWarp, 1, 2, 3},
    {"match", Opcode::Match, aType | aWarp, 1, 3, 3},
    {"redux", Opcode::Redux, aType | aWarp | aAtom, 1, 3, 3},
    {"activemask", Opcode::Activemask, aType, 1, 1, 1},
    {"addc", Opcode::Add, aType | aCc, 1, 3, 3},
    {"subc", Opcode::Sub, aType | aCc, 1, 3, 3},
    {"madc", Opcode::Mad, aType | aMode | aCc, 1, 4, 4},
    {"bfind", Opcode::Bfind, aType | aShiftamt, 1, 2, 2},
    {"bmsk", Opcode::Bmsk, aType | aShf, 1, 3, 3},
    // prefetch{.space}.level [a] (.L1, .L2, .L2::evict_last, .L2::evict_normal), prefetchu.L1:
    // a hint, no functional effect (modifiers checked in modifier()).
    {"prefetch", Opcode::Prefetch, aSpace, 0, 1, 1},
    {"prefetchu", Opcode::Prefetch, 0, 0, 1, 1},
    // createpolicy.fractional.L2::evict_*{.L2::evict_*}.b64 policy{, fraction} and the .range
    // form: an opaque cache policy for .L2::cache_hint.
    {"createpolicy", Opcode::Createpolicy, aType, 1, 2, 5},
    {"fns", Opcode::Fns, aType, 1, 4, 4},
    {"dp4a", Opcode::Dp4a, aType, 2, 4, 4},
    {"dp2a", Opcode::Dp2a, aType | aMode, 2, 4, 4},
    {"mul24", Opcode::Mul24, aType | aMode, 1, 3, 3},
    {"mad24", Opcode::Mad24, aType | aMode | aSat, 1, 4, 4},
    {"sad", Opcode::Sad, aType, 1, 4, 4},
    {"testp", Opcode::Testp, aType | aTest, 1, 2, 2},
    {"copysign", Opcode::Copysign, aType, 1, 3, 3},
};

constexpr OpInfo kTxBegin{"tx.begin", Opcode::TxBegin, 0, 0, 0, 0};
constexpr OpInfo kTxCommit{"tx.commit", Opcode::TxCommit, 0, 0, 0, 0};
constexpr OpInfo kBarWarp{"bar.warp.sync", Opcode::BarWarp, 0, 0, 1, 1};  // __syncwarp(mask)
// bar.red.{popc,and,or} d, a {, b}, {!}c: __syncthreads_count/_and/_or (a type, the operation).
constexpr OpInfo kBarRedOp{"bar.red", Opcode::Bar, aBar | aType, 1, 3, 4};
constexpr std::string_view kWarpModes[] = {"",    "up",  "down", "bfly",  "idx",
                                           "all", "any", "uni",  "ballot"};

// Decoder-only modifiers: state spaces from Generic (enum value 1) on, the cache operators (kept
// in Instruction::cache), and the semantics and scope qualifiers that are accepted and ignored.
constexpr std::string_view kSpace[] = {"",       "generic", "param", "global",
                                       "shared", "local",   "const"};
constexpr std::string_view kCache[] = {"", "ca", "cg", "cs", "lu", "cv", "wb", "wt"};  // CacheOp
constexpr std::string_view kSem[] = {"relaxed", "acquire", "release", "acq_rel", "sc", "weak"};
constexpr std::string_view kScope[] = {"cta", "gpu", "sys", "gl", "cluster"};

}  // namespace

Instruction Decoder::run() {
  std::string_view text = m_.text;
  const std::size_t dot = text.find('.');
  const std::string_view base = text.substr(0, dot);
  const OpInfo* info = nullptr;
  for (const OpInfo& o : kOps)
    if (o.name == base) info = &o;
  // GPU-LocalTM's TX.Begin / TX.Commit (seed 003 §3), written by kernels/smemsim_tm.cuh as inline
  // PTX: no modifiers, no operands.
  if (text == "tx.begin" || text == "tx.commit") info = text == "tx.begin" ? &kTxBegin : &kTxCommit;
  if (text == "bar.warp.sync") info = &kBarWarp;
  if ((base == "bar" || base == "barrier") && text.find(".red.") != std::string_view::npos)
    info = &kBarRedOp;
  if (base == "tex" || base == "tld4") return decode_texture(cur_, kb_, m_);
  if (base == "mbarrier" || base == "nanosleep" || text.starts_with("cp.async.mbarrier."))
    return mbarrier();
  if (base == "ldmatrix" || base == "stmatrix" || base == "cp") return async_copy();
  if (text.starts_with("st.async.") || text.starts_with("red.async.")) return async_store();
  if (text.starts_with("barrier.cluster.") || base == "mapa") return cluster_op();
  if (text.starts_with("fence.proxy.") || text.starts_with("fence.mbarrier_init."))
    return proxy_fence();
  if (base == "mma" || base == "wmma") return tensor();
  if (base == "wgmma") return wgmma();
  if (!info) unsupported();
  ins_.op = info->op;
  if (info == &kBarWarp) ins_.flags |= kSync;
  if (info->name == "addc" || info->name == "subc" || info->name == "madc") ins_.flags |= kCarryIn;
  int types = 0;
  std::string_view rest = dot == std::string_view::npos || info->name == text
                              ? std::string_view()
                              : text.substr(dot + 1);
  while (!rest.empty()) {
    const std::size_t d = rest.find('.');
    const std::string_view mod = rest.substr(0, d);
    rest = d == std::string_view::npos ? std::string_view() : rest.substr(d + 1);
    if (mod.empty()) malformed("empty modifier");
    modifier(*info, mod, types);
  }
  if (types != info->types) {
    if (types < info->types)
      malformed(fmt::format("'{}' needs {} type modifier{}", m_.text, info->types,
                            info->types > 1 ? "s" : ""));
    malformed(fmt::format("too many type modifiers in '{}'", m_.text));
  }
  check_modifiers();
  operands(*info);
  check_operands();
  return ins_;
}

void Decoder::modifier(const OpInfo& info, std::string_view mod, int& types) {
  const std::uint32_t a = info.allow;
  const Opcode op = info.op;
  if (Type t = type_from_name(mod); t != Type::None && (a & aType)) {
    if (types == 0)
      ins_.type = t;
    else if (types == 1)
      ins_.type2 = t;
    ++types;
    return;
  }
  Space sp;
  // .shared::cta is .shared; .shared::cluster addresses another CTA of the cluster through the
  // rank bits mapa puts in the address (issue 46), so it resolves as shared too.
  if ((a & aSpace) && (mod == "shared::cta" || mod == "shared::cluster")) mod = "shared";
  if ((a & aSpace) && lookup(mod, kSpace, sp, 1)) {
    if (seen_space_) malformed(fmt::format("two state spaces in '{}'", m_.text));
    seen_space_ = true;
    ins_.space = sp;
    return;
  }
  CmpOp c;
  if ((a & aCmp) && ins_.cmp == CmpOp::None && lookup(mod, kCmpNames, c, 1)) {
    ins_.cmp = c;
    return;
  }
  BoolOp b;
  if ((a & aBool) && ins_.cmp != CmpOp::None && ins_.bool_op == BoolOp::None &&
      lookup(mod, kBoolNames, b, 1)) {
    ins_.bool_op = b;
    return;
  }
  if (op == Opcode::Bar && ins_.has(kBarRed) && ins_.atom == AtomOp::None &&
      (mod == "popc" || mod == "and" || mod == "or")) {
    // bar.red.popc (the number of threads whose predicate is true) is kept as Add.
    ins_.atom = mod == "popc" ? AtomOp::Add : mod == "and" ? AtomOp::And : AtomOp::Or;
    return;
  }
  AtomOp at;
  if ((a & aAtom) && ins_.atom == AtomOp::None && lookup(mod, kAtomNames, at, 1)) {
    ins_.atom = at;
    return;
  }
  Rounding r;
  if ((a & aRound) && ins_.rounding == Rounding::None && lookup(mod, kRoundNames, r, 1)) {
    const bool int_round = r >= Rounding::Rni;
    if ((int_round || r == Rounding::Rna) && op != Opcode::Cvt) unsupported();
    ins_.rounding = r;
    return;
  }
  MulMode mm;
  if ((a & aMode) && ins_.mode == MulMode::None && lookup(mod, kModeNames, mm, 1)) {
    ins_.mode = mm;
    return;
  }
  if ((a & aVec) && (mod == "v2" || mod == "v4")) {
    if (ins_.vec != 1) malformed(fmt::format("two vector widths in '{}'", m_.text));
    ins_.vec = mod == "v2" ? 2 : 4;
    return;
  }
  struct FlagMod {
    std::string_view name;
    Allow allow;
    Flag flag;
  };
  static constexpr FlagMod kFlags[] = {{"ftz", aFtz, kFtz},
                                       {"sat", aSat, kSat},
                                       {"approx", aApprox, kApprox},
                                       {"full", aFull, kFull},
                                       {"uni", aUni, kUni},
                                       {"to", aTo, kTo},
                                       {"volatile", aVolatile, kVolatile},
                                       {"nc", aNc, kNc}};
  for (const FlagMod& f : kFlags) {
    if ((a & f.allow) && mod == f.name) {
      ins_.flags |= f.flag;
      return;
    }
  }
  if (cache_hint_modifier(op, mod)) return;
  if ((a & aCache) && ins_.cache == CacheOp::None && lookup(mod, kCache, ins_.cache, 1))
    return;  // recorded for the timing's caches; the functional result is the same
  std::uint8_t dummy;
  if ((a & aSem) && lookup(mod, kSem, dummy, 0)) {
    if (mod != "weak") ins_.flags |= kStrong;
    return;  // memory-order qualifiers do not change the functional result
  }
  if ((a & aScope) && lookup(mod, kScope, dummy, 0)) {
    return;  // cache, memory-order and scope qualifiers do not change the functional result
  }
  if ((a & aBar) &&
      (mod == "sync" || mod == "arrive" || mod == "red" || mod == "aligned" || mod == "cta")) {
    if (mod == "arrive") ins_.flags |= kArrive;
    if (mod == "red") ins_.flags |= kBarRed;
    if (mod != "aligned" && mod != "cta") {
      if (seen_sync_) malformed(fmt::format("malformed barrier '{}'", m_.text));
      seen_sync_ = true;
    }
    return;
  }
  if ((a & aCc) && mod == "cc" && !ins_.has(kCc)) {
    ins_.flags |= kCc;
    return;
  }
  static constexpr std::string_view kPrmtModes[] = {"", "f4e", "b4e", "rc8", "ecl", "ecr", "rc16"};
  std::uint8_t pm;
  if ((a & aPrmt) && ins_.comp == 0 && lookup(mod, kPrmtModes, pm, 1)) {
    ins_.comp = pm;
    return;
  }
  if ((a & aHalf) && (mod == "relu" || mod == "satfinite" || mod == "NaN")) {
    ins_.flags |= mod == "relu" ? kRelu : mod == "satfinite" ? kSatfinite : kNaN;
    return;
  }
  if ((a & aShiftamt) && mod == "shiftamt") {
    ins_.flags |= kShfClamp;
    return;
  }
  static constexpr std::string_view kTests[] = {"",           "finite", "infinite", "number",
                                                "notanumber", "normal", "subnormal"};
  TestOp tp;
  if ((a & aTest) && ins_.test == TestOp::None && lookup(mod, kTests, tp, 1)) {
    ins_.test = tp;
    return;
  }
  if (a & aWarp) {
    if (mod == "sync") {
      if (ins_.has(kSync)) malformed(fmt::format("malformed '{}'", m_.text));
      ins_.flags |= kSync;
      return;
    }
    if (mod == "aligned") return;
    WarpMode wm;
    if (ins_.warp == WarpMode::None && lookup(mod, kWarpModes, wm, 1)) {
      const bool ok = op == Opcode::Shfl    ? wm <= WarpMode::Idx
                      : op == Opcode::Vote  ? wm >= WarpMode::All
                      : op == Opcode::Match ? wm == WarpMode::Any || wm == WarpMode::All
                                            : false;
      if (ok) {
        ins_.warp = wm;
        return;
      }
    }
  }
  if ((a & aShf) && (mod == "l" || mod == "r" || mod == "wrap" || mod == "clamp")) {
    const bool dir = mod == "l" || mod == "r";
    if ((dir && seen_dir_) || (!dir && seen_mode_))
      malformed(fmt::format("malformed '{}'", m_.text));
    (dir ? seen_dir_ : seen_mode_) = true;
    if (mod == "l") ins_.flags |= kShfLeft;
    if (mod == "clamp") ins_.flags |= kShfClamp;
    return;
  }
  unsupported();
}

bool Decoder::cache_hint_modifier(Opcode op, std::string_view mod) {
  static constexpr std::string_view kEviction[] = {"L1::evict_normal", "L1::evict_unchanged",
                                                   "L1::evict_first",  "L1::evict_last",
                                                   "L1::no_allocate",  "L2::evict_normal",
                                                   "L2::evict_first",  "L2::evict_last",
                                                   "L2::64B",          "L2::128B",
                                                   "L2::256B"};
  const auto any_of = [&](std::initializer_list<std::string_view> names) {
    for (const std::string_view n : names)
      if (mod == n) return true;
    return false;
  };
  switch (op) {
    case Opcode::Ld:
    case Opcode::St:
    case Opcode::Atom:
    case Opcode::Red:
      if (mod == "L2::cache_hint") {
        if (cache_hint_) malformed(fmt::format("two .L2::cache_hint in '{}'", m_.text));
        cache_hint_ = true;
        return true;
      }
      if (mod == "L1::no_allocate") ins_.flags |= kL1NoAllocate;
      for (const std::string_view n : kEviction)
        if (mod == n) return true;
      return false;
    case Opcode::Prefetch:
      return any_of({"L1", "L2", "L2::evict_last", "L2::evict_normal", "tensormap"});
    case Opcode::Createpolicy:
      return any_of({"fractional", "range", "cvt", "L2", "L2::evict_last", "L2::evict_normal",
                     "L2::evict_first", "L2::evict_unchanged"});
    default:
      return false;
  }
}

Operand Decoder::operand(bool memory, bool label) {
  Operand o;
  const Token& t = cur_.peek();
  if (t.is('[')) {
    if (!memory) cur_.fail(t, "unexpected memory operand");
    cur_.next();
    o.kind = OperandKind::Memory;
    const Token& b = cur_.peek();
    if (b.kind == TokKind::Word) {
      cur_.next();
      if (b.text[0] == '%') {
        o.reg = reg(b);
      } else if (const std::uint32_t r = kb_.find_reg(b.text); r != kNone) {
        o.reg = r;  // a register declared without the % ([a] after `.reg .u64 a;` in inline asm)
      } else {
        o.sym = kb_.find_symbol(b.text);
        if (o.sym == kNone) cur_.fail(b, fmt::format("unknown symbol '{}'", b.text));
      }
      if (cur_.peek().is('+') || cur_.peek().is('-')) o.set_imm(offset(true));
    } else if (b.kind == TokKind::Number || b.is('-')) {
      o.set_imm(offset(false));
    } else {
      cur_.fail(b, fmt::format("malformed address operand {}", describe(b)));
    }
    cur_.expect(']', "to close the address operand");
    return o;
  }
  if (t.is('{')) {
    cur_.next();
    ++open_;
    o.kind = OperandKind::Vector;
    // wgmma's accumulators are up to 128 registers; every other instruction's vectors at most 8.
    std::array<std::uint32_t, 128> elems{};
    std::array<std::int64_t, 2> imms{};
    std::size_t n = 0, nimm = 0;
    const std::size_t most = m_.text.starts_with("wgmma.") ? elems.size() : 8;
    do {
      const Token& r = cur_.peek();
      if (n == most) cur_.fail(r, fmt::format("vector operand has more than {} elements", most));
      if (r.kind == TokKind::Number || r.is('-')) {  // {0, %rs1}: packing an immediate
        if (nimm == imms.size())
          cur_.fail(r, "a vector operand has at most two immediate elements");
        std::uint64_t hex = 0;  // 0f3F800000 / 0d...: the literal's bits, as the element's
        if (r.kind == TokKind::Number && r.text.size() > 2 && r.text[0] == '0' &&
            (r.text[1] == 'f' || r.text[1] == 'F' || r.text[1] == 'd' || r.text[1] == 'D') &&
            parse_int_literal(fmt::format("0x{}", r.text.substr(2)), hex)) {
          cur_.next();
          imms[nimm] = static_cast<std::int64_t>(hex);
        } else {
          imms[nimm] = signed_int(false);
        }
        elems[n++] = kVecImm + std::uint32_t(nimm++);
        continue;
      }
      // A register: %name, or a name declared without the % ({low, high} in nvcc's headers).
      if (r.kind != TokKind::Word || (r.text[0] != '%' && kb_.find_reg(r.text) == kNone))
        cur_.fail(r, fmt::format("malformed vector element {}", describe(r)));
      cur_.next();
      elems[n++] = reg(r);
    } while (cur_.accept(','));
    kb_.kernel.add_vector(o, std::span(elems.data(), n), std::span(imms.data(), nimm));
    cur_.expect('}', "to close the vector operand");
    --open_;
    return o;
  }
  if (t.is('!')) {
    cur_.next();
    const Token& r = cur_.peek();
    if (r.kind != TokKind::Word || r.text[0] != '%')
      cur_.fail(r, fmt::format("malformed operand after '!': {}", describe(r)));
    cur_.next();
    o.kind = OperandKind::Reg;
    o.reg = reg(r);
    o.negate = true;
    if (kb_.kernel.regs[o.reg].type != Type::Pred)
      cur_.fail(r, fmt::format("'!' needs a predicate, '{}' is not one", r.text));
    return o;
  }
  if (t.kind == TokKind::Number || t.is('-')) {
    const bool neg = cur_.accept('-');
    const Token& n = cur_.peek();
    if (n.kind != TokKind::Number) cur_.fail(n, fmt::format("malformed operand {}", describe(n)));
    cur_.next();
    if (is_float_literal(n.text)) {
      o.kind = OperandKind::ImmFloat;
      double v = 0.0;
      if (!parse_float_literal(n.text, v))
        cur_.fail(n, fmt::format("malformed number '{}'", n.text));
      o.set_fimm(neg ? -v : v);
    } else {
      std::uint64_t v = 0;
      if (!parse_int_literal(n.text, v)) cur_.fail(n, fmt::format("malformed number '{}'", n.text));
      o.kind = OperandKind::ImmInt;
      o.set_imm(static_cast<std::int64_t>(neg ? ~v + 1 : v));
    }
    return o;
  }
  if (t.kind == TokKind::Word && t.text[0] == '%') {
    cur_.next();
    if (special_from_name(t.text, o.special)) {
      o.kind = OperandKind::Special;
      return o;
    }
    o.kind = OperandKind::Reg;
    o.reg = reg(t);
    return o;
  }
  if (t.kind == TokKind::Word && t.text[0] != '.') {
    cur_.next();
    if (label) {
      o.kind = OperandKind::Label;
      return o;
    }
    if (const std::uint32_t r = kb_.find_reg(t.text); r != kNone && !label) {
      o.kind = OperandKind::Reg;  // a register declared without the % (temp_param_reg)
      o.reg = r;
      return o;
    }
    if (t.text == "WARP_SZ") {  // the predefined identifier warpSize compiles to (PTX ISA)
      o.kind = OperandKind::ImmInt;
      o.set_imm(32);
      return o;
    }
    o.kind = OperandKind::Symbol;
    o.sym = kb_.find_symbol(t.text);
    if (o.sym == kNone) cur_.fail(t, fmt::format("unknown symbol '{}'", t.text));
    if (cur_.peek().is('+')) o.set_imm(offset(true));
    return o;
  }
  cur_.fail(t, fmt::format("malformed operand {}", describe(t)));
}

std::int64_t Decoder::signed_int(bool needs_sign) {
  bool neg = false;
  if (needs_sign) {
    if (cur_.accept('-'))
      neg = true;
    else
      cur_.expect('+', "before the offset");
  }
  if (cur_.accept('-')) neg = !neg;
  const Token& n = cur_.peek();
  std::uint64_t v = 0;
  if (n.kind != TokKind::Number || !parse_int_literal(n.text, v))
    cur_.fail(n, fmt::format("malformed offset {}", describe(n)));
  cur_.next();
  return static_cast<std::int64_t>(neg ? ~v + 1 : v);
}

std::int64_t Decoder::offset(bool needs_sign) {
  const Token at = cur_.peek();
  const std::int64_t v = signed_int(needs_sign);
  if (!fits_operand_offset(v))
    cur_.fail(at, fmt::format("the address offset {} does not fit in 32 bits (PTX ISA: a signed "
                              "32-bit offset)",
                              v));
  return v;
}

void Decoder::operands(const OpInfo& info) {
  int n = 0;
  const int max_ops = info.max_ops + (cache_hint_ ? 1 : 0);  // the cache policy, last
  while (!cur_.peek().is(';')) {
    if (n >= max_ops) {
      if (!cur_.peek().is(',')) break;  // reported as a missing ';' below
      malformed(fmt::format("'{}' takes at most {} operand{}", m_.text, max_ops,
                            max_ops == 1 ? "" : "s"));
    }
    if (n > 0) cur_.expect(',', fmt::format("between operands of '{}'", m_.text));
    const bool memory = (ins_.op == Opcode::Ld && n == 1) || (ins_.op == Opcode::Atom && n == 1) ||
                        ((ins_.op == Opcode::St || ins_.op == Opcode::Red) && n == 0) ||
                        (ins_.op == Opcode::Prefetch && n == 0) ||
                        (ins_.op == Opcode::Createpolicy && n == 1 && cur_.peek().is('['));
    const bool label = ins_.op == Opcode::Bra;
    const std::string_view label_name = cur_.peek().text;
    ins_.ops[static_cast<std::size_t>(n)] = operand(memory, label);
    if (label) {
      kb_.fixups.push_back({static_cast<std::uint32_t>(kb_.kernel.code.size()), 0,
                            std::string(label_name), m_.line, kb_.label_scopes});
    }
    if (n == 0 && ins_.op == Opcode::Setp && cur_.accept('|')) {
      ins_.ops[4] = operand(false, false);
      ins_.flags |= kSetpQ;
    }
    if (n == 0 && (ins_.op == Opcode::Shfl || ins_.op == Opcode::Match) && cur_.accept('|')) {
      ins_.ops[5] = operand(false, false);
      ins_.flags |= kPredOut;
    }
    ++n;
    if (cur_.at_end()) break;
  }
  cur_.expect(';', fmt::format("after the operands of '{}'", m_.text));
  const int min_ops = info.min_ops + (cache_hint_ ? 1 : 0);
  if (n < min_ops)
    malformed(fmt::format("'{}' needs {} operand{}, got {}", m_.text, min_ops,
                          min_ops == 1 ? "" : "s", n));
  if (cache_hint_) {  // the cache policy: read for its checks, no functional effect
    if (!is_value(std::size_t(n - 1)))
      malformed(fmt::format("the cache policy of '{}' must be a register", m_.text));
    ins_.ops[std::size_t(n - 1)] = Operand{};
    --n;
  }
  ins_.num_ops = static_cast<std::uint8_t>(n);
}

}  // namespace decoding

Instruction decode_instruction(Cursor& cur, KernelBuilder& kb, const Token& mnemonic) {
  return decoding::Decoder(cur, kb, mnemonic).run();
}

}  // namespace smemsim::ptx
