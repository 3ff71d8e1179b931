// Names of the IR enums, small IR helpers and the instruction printer.
#include <cxxabi.h>
#include <fmt/format.h>

#include <cstdlib>
#include <unordered_map>

#include "ptx/parse_state.hpp"

namespace smemsim::ptx {
namespace {

constexpr std::string_view kOpcodeNames[] = {
    "ld", "st", "cvta", "mov", "add", "sub", "mul", "mad", "div", "rem", "min", "max", "abs", "neg",
    "and", "or", "xor", "not", "shl", "shr", "shf", "popc", "clz", "brev", "bfe", "bfi", "prmt",
    "setp", "selp", "set", "cvt", "fma", "rcp", "sqrt", "rsqrt", "sin", "cos", "ex2", "lg2", "bra",
    "bar", "membar", "atom", "red", "ret", "exit", "tx.begin", "tx.commit", "shfl", "vote", "match",
    "redux", "activemask", "bar.warp", "bfind", "fns", "dp4a", "dp2a", "mul24", "mad24", "sad",
    "testp", "copysign", "call", "tex", "tld4",
    // tensor-core kernels (tensor_text writes their full form)
    "ldmatrix", "stmatrix", "cp.async", "cp.async.commit_group", "cp.async.wait_group", "mma",
    "wmma.load", "wmma.store", "wmma.mma", "mbarrier", "nanosleep", "bmsk", "prefetch",
    "createpolicy", "cp.async.bulk", "barrier.cluster", "mapa", "wgmma"};
static_assert(std::size(kOpcodeNames) == static_cast<std::size_t>(Opcode::Wgmma) + 1);
constexpr std::string_view kMbarNames[] = {
    "init",          "arrive", "arrive_drop",      "test_wait", "try_wait",   "inval",
    "pending_count", "",       "arrive.expect_tx", "expect_tx", "complete_tx"};
constexpr std::string_view kGeomNames[] = {"", "1d", "2d", "3d", "a1d", "a2d"};
constexpr std::string_view kCompNames[] = {"r", "g", "b", "a"};
constexpr std::string_view kPrmtNames[] = {"", "f4e", "b4e", "rc8", "ecl", "ecr", "rc16"};
constexpr std::string_view kTestNames[] = {"",           "finite", "infinite", "number",
                                           "notanumber", "normal", "subnormal"};
constexpr std::string_view kWarpModeNames[] = {"",    "up",  "down", "bfly",  "idx",
                                               "all", "any", "uni",  "ballot"};

constexpr std::string_view kTypeNames[] = {"",    "pred", "b8",  "b16",  "b32",   "b64",    "u8",
                                           "u16", "u32",  "u64", "s8",   "s16",   "s32",    "s64",
                                           "f16", "f32",  "f64", "bf16", "f16x2", "bf16x2", "tf32",
                                           "s4",  "u4",   "b1",  "e4m3", "e5m2"};
constexpr std::string_view kSpaceNames[] = {"", "", "param", "global", "shared", "local", "const"};
constexpr std::string_view kSpecialNames[] = {
    "%tid.x",
    "%tid.y",
    "%tid.z",
    "%ntid.x",
    "%ntid.y",
    "%ntid.z",
    "%ctaid.x",
    "%ctaid.y",
    "%ctaid.z",
    "%nctaid.x",
    "%nctaid.y",
    "%nctaid.z",
    "%laneid",
    "%warpid",
    "%nwarpid",
    "%smid",
    "%clock",
    "%clock64",
    "%clock_hi",
    "%globaltimer",
    "%globaltimer_lo",
    "%globaltimer_hi",
    "%lanemask_eq",
    "%lanemask_le",
    "%lanemask_lt",
    "%lanemask_ge",
    "%lanemask_gt",
    "%nsmid",
    "%gridid",
    "%is_explicit_cluster",
    "%clusterid.x",
    "%clusterid.y",
    "%clusterid.z",
    "%nclusterid.x",
    "%nclusterid.y",
    "%nclusterid.z",
    "%cluster_ctaid.x",
    "%cluster_ctaid.y",
    "%cluster_ctaid.z",
    "%cluster_nctaid.x",
    "%cluster_nctaid.y",
    "%cluster_nctaid.z",
    "%cluster_ctarank",
    "%cluster_nctarank",
    "%dynamic_smem_size",
    "%total_smem_size",
    "%aggr_smem_size",
    "%current_graph_exec",
    "%reserved_smem_offset_begin",
    "%reserved_smem_offset_end",
    "%reserved_smem_offset_cap",
    "%reserved_smem_offset_0",
    "%reserved_smem_offset_1",
    "%pm0",
    "%pm1",
    "%pm2",
    "%pm3",
    "%pm4",
    "%pm5",
    "%pm6",
    "%pm7",
    "%pm0_64",
    "%pm1_64",
    "%pm2_64",
    "%pm3_64",
    "%pm4_64",
    "%pm5_64",
    "%pm6_64",
    "%pm7_64",
    "%envreg0",
    "%envreg1",
    "%envreg2",
    "%envreg3",
    "%envreg4",
    "%envreg5",
    "%envreg6",
    "%envreg7",
    "%envreg8",
    "%envreg9",
    "%envreg10",
    "%envreg11",
    "%envreg12",
    "%envreg13",
    "%envreg14",
    "%envreg15",
    "%envreg16",
    "%envreg17",
    "%envreg18",
    "%envreg19",
    "%envreg20",
    "%envreg21",
    "%envreg22",
    "%envreg23",
    "%envreg24",
    "%envreg25",
    "%envreg26",
    "%envreg27",
    "%envreg28",
    "%envreg29",
    "%envreg30",
    "%envreg31",
};
static_assert(std::size(kSpecialNames) == kSpecials);

template <std::size_t N, typename E>
std::string_view name_of(const std::string_view (&names)[N], E e) {
  const auto i = static_cast<std::size_t>(e);
  return i < N ? names[i] : std::string_view("?");
}

std::string operand_text(const Kernel& k, const Operand& o) {
  auto reg = [&](std::uint32_t r) {
    return r < k.regs.size() ? k.regs[r].name : fmt::format("%?{}", r);
  };
  auto sym = [&](std::uint32_t s) {
    return s < k.symbols.size() ? k.symbols[s].name : fmt::format("?sym{}", s);
  };
  switch (o.kind) {
    case OperandKind::None:
      return "_";
    case OperandKind::Reg: {
      std::string s(o.negate ? 1 : 0, '!');
      s += reg(o.reg);
      return s;
    }
    case OperandKind::ImmInt:
      return fmt::format("{}", o.imm());
    case OperandKind::ImmFloat:
      return fmt::format("{}", o.fimm());
    case OperandKind::Symbol:
      return o.imm() ? fmt::format("{}+{}", sym(o.sym), o.imm()) : sym(o.sym);
    case OperandKind::Special:
      return std::string(name_of(kSpecialNames, o.special));
    case OperandKind::Memory: {
      std::string base = o.reg != kNone ? reg(o.reg) : o.sym != kNone ? sym(o.sym) : "";
      if (base.empty()) return fmt::format("[{}]", o.imm());
      return o.imm() ? fmt::format("[{}+{}]", base, o.imm()) : fmt::format("[{}]", base);
    }
    case OperandKind::Vector: {
      std::string s = "{";
      for (int i = 0; i < o.count; ++i)
        s += (i ? ", " : "") + (is_vec_imm(k.vec(o, i))
                                    ? fmt::format("{}", k.vec_imm(o, k.vec(o, i)))
                                    : reg(k.vec(o, i)));
      return s + "}";
    }
    case OperandKind::Label:
      return fmt::format("@{}", o.target);
  }
  return "?";
}

}  // namespace

bool is_header_path(std::string_view path) {
  return path.ends_with(".h") || path.ends_with(".hpp") || path.ends_with(".cuh") ||
         path.find("/include/") != std::string_view::npos;
}

namespace {

constexpr std::string_view kShapeNames[] = {
    "",          "m16n8k16",  "m16n8k8", "m16n16k16", "m32n8k16", "m8n32k16", "m16n16k8",
    "m8n8k4",    "m8n8k16",   "m8n8k32", "m8n8k128",  "m16n8k4",  "m16n8k32", "m16n8k64",
    "m16n8k128", "m16n8k256", "m64nNk8", "m64nNk16",  "m64nNk32"};
static_assert(std::size(kShapeNames) == std::size_t(MmaShape::M64K32) + 1);

}  // namespace

std::string_view shape_name(MmaShape s) {
  return name_of(kShapeNames, s);
}

MmaDims mma_shape_dims(MmaShape s) {
  // wgmma's m64nNkK: N is the instruction's (Instruction::vec)
  if (s == MmaShape::M64K8 || s == MmaShape::M64K16 || s == MmaShape::M64K32)
    return {64, 0, s == MmaShape::M64K8 ? 8 : s == MmaShape::M64K16 ? 16 : 32};
  // "m16n8k16" -> {16, 8, 16}
  const std::string_view n = shape_name(s);
  MmaDims d;
  int* field = nullptr;
  for (char c : n) {
    if (c == 'm' || c == 'n' || c == 'k')
      field = c == 'm' ? &d.m : c == 'n' ? &d.n : &d.k;
    else if (field)
      *field = *field * 10 + (c - '0');
  }
  return d;
}

namespace {

// The tensor-core and async-copy instructions as PTX writes them; `guard` is "@%p " or "".
std::string tensor_text(const Kernel& k, const Instruction& ins, std::string guard) {
  std::string s = guard;
  const auto col = [&](Flag f) { return ins.has(f) ? "col" : "row"; };
  switch (ins.op) {
    case Opcode::Ldmatrix:
    case Opcode::Stmatrix:
      s +=
          fmt::format("{}.sync.aligned.m8n8.x{}{}{}.b16", opcode_name(ins.op), int(ins.vec),
                      ins.has(kTrans) ? ".trans" : "", ins.space == Space::Shared ? ".shared" : "");
      break;
    case Opcode::CpAsync:
      s += fmt::format("cp.async.{}.shared.global", ins.has(kNc) ? "cg" : "ca");
      break;
    case Opcode::CpAsyncWait:
      s += ins.has(kUni) ? "cp.async.wait_all" : "cp.async.wait_group";
      if (ins.has(kUni)) return s + ";";
      break;
    case Opcode::Mma:
    case Opcode::WmmaMma: {
      const bool b1 = ins.type2 == Type::B1;
      const std::string bitop = b1 ? (ins.has(kXorPopc) ? ".xor.popc" : ".and.popc") : "";
      // mma: shape then layouts, the bit operation last; wmma.mma: the bit operation first, then
      // layouts and shape (PTX ISA).
      const std::string_view shape = kShapeNames[std::size_t(ins.shape)];
      const std::string layouts = fmt::format("{}.{}", col(kColA), col(kColB));
      const bool mma = ins.op == Opcode::Mma;
      s += fmt::format("{}{}.sync.aligned.{}.{}.{}.{}.{}.{}{}", opcode_name(ins.op),
                       mma ? "" : bitop, mma ? shape : layouts, mma ? layouts : shape,
                       type_name(ins.type), type_name(ins.type2), type_name(ins.type4),
                       type_name(ins.type3), mma ? bitop : "");
      if (ins.has(kSatfinite)) s += ".satfinite";
      break;
    }
    case Opcode::Mbarrier: {
      const auto kind = MbarOp(ins.comp);
      const bool cp = kind == MbarOp::CpAsyncArrive;
      const bool wait = kind == MbarOp::TestWait || kind == MbarOp::TryWait;
      s += cp ? "cp.async.mbarrier.arrive" : fmt::format("mbarrier.{}", kMbarNames[ins.comp]);
      if (ins.has(kNoComplete)) s += cp ? ".noinc" : ".noComplete";
      if (wait && ins.has(kParity)) s += ".parity";
      if (ins.space == Space::Shared) s += ".shared";
      s += ".b64";
      for (std::uint8_t i = 0; i < ins.num_ops; ++i)
        s +=
            (i ? ", " : " ") +
            (ins.ops[i].kind == OperandKind::None ? std::string("_") : operand_text(k, ins.ops[i]));
      return s + ";";
    }
    case Opcode::WmmaLoad:
    case Opcode::WmmaStore:
      s += fmt::format("{}.{}.sync.aligned.{}.{}{}{}.{}", opcode_name(ins.op), "abcd"[ins.comp],
                       col(kColA), kShapeNames[std::size_t(ins.shape)],
                       ins.space == Space::Generic ? "" : ".", space_name(ins.space),
                       type_name(ins.type));
      break;
    default:
      s += opcode_name(ins.op);
      break;
  }
  for (std::uint8_t i = 0; i < ins.num_ops; ++i)
    s += (i ? ", " : " ") + operand_text(k, ins.ops[i]);
  return s + ";";
}

// A wgmma (issue 46) as PTX writes it, its immediates after the operands.
std::string wgmma_text(const Kernel& k, const Instruction& ins, std::string s) {
  switch (WgmmaOp(ins.comp & kWgmmaOpMask)) {
    case WgmmaOp::Fence:
      return s + "wgmma.fence.sync.aligned;";
    case WgmmaOp::Commit:
      return s + "wgmma.commit_group.sync.aligned;";
    case WgmmaOp::Wait:
      return s + fmt::format("wgmma.wait_group.sync.aligned {};", ins.ops[0].imm());
    case WgmmaOp::Mma:
      break;
  }
  const MmaDims d = mma_shape_dims(ins.shape);
  s += fmt::format("wgmma.mma_async.sync.aligned.m64n{}k{}.{}.{}.{}", 8 * int(ins.vec), d.k,
                   type_name(ins.type), type_name(ins.type2), type_name(ins.type4));
  if (ins.has(kSatfinite)) s += ".satfinite";
  for (std::uint8_t i = 0; i < ins.num_ops; ++i)
    s += (i ? ", " : " ") + operand_text(k, ins.ops[i]);
  const bool integer = ins.type2 == Type::S8 || ins.type2 == Type::U8;
  if (!integer) {
    s += fmt::format(", {}, {}", ins.comp & kWgmmaNegA ? -1 : 1, ins.comp & kWgmmaNegB ? -1 : 1);
    if (ins.type2 == Type::F16 || ins.type2 == Type::BF16) {
      if (ins.comp & kWgmmaADesc) s += fmt::format(", {}", ins.comp & kWgmmaTransA ? 1 : 0);
      s += fmt::format(", {}", ins.comp & kWgmmaTransB ? 1 : 0);
    }
  }
  return s + ";";
}

// A bulk copy (issue 46) as PTX writes it: the tensor map and its coordinates in one operand.
std::string bulk_text(const Kernel& k, const Instruction& ins, std::string s) {
  const auto op = BulkOp(ins.comp);
  if (op == BulkOp::StAsync || op == BulkOp::RedAsync) {
    s += op == BulkOp::StAsync
             ? "st.async.weak.shared::cluster.mbarrier::complete_tx::bytes"
             : fmt::format(
                   "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.{}",
                   name_of(kAtomNames, ins.atom));
    if (ins.vec > 1) s += fmt::format(".v{}", int(ins.vec));
    return s + fmt::format(".{} {}, {}, {};", type_name(ins.type), operand_text(k, ins.ops[0]),
                           operand_text(k, ins.ops[1]), operand_text(k, ins.ops[2]));
  }
  const bool tensor =
      op == BulkOp::TensorLoad || op == BulkOp::TensorStore || op == BulkOp::TensorReduce ||
      (op == BulkOp::Prefetch && ins.num_ops >= 2 && ins.ops[1].kind == OperandKind::Vector);
  // The tensor map's operand, printed with its coordinates inside its brackets.
  const int map_at = !tensor ? -1 : op == BulkOp::TensorLoad ? 1 : 0;
  const bool reduce =
      op == BulkOp::Reduce || op == BulkOp::TensorReduce || op == BulkOp::PeerReduce;
  s += reduce ? "cp.reduce.async.bulk" : "cp.async.bulk";
  switch (op) {
    case BulkOp::Commit:
      return s + ".commit_group;";
    case BulkOp::Wait:
      return s + fmt::format(".wait_group{} {};", ins.has(kNoComplete) ? ".read" : "",
                             ins.ops[0].imm());
    case BulkOp::Prefetch:
      s += ".prefetch";
      break;
    default:
      break;
  }
  if (tensor) s += fmt::format(".tensor.{}d", int(ins.vec));
  switch (op) {
    case BulkOp::Load:
    case BulkOp::TensorLoad:
      s += ".shared::cluster.global";
      s += ins.has(kIm2col) ? ".im2col" : tensor ? ".tile" : "";
      s += ".mbarrier::complete_tx::bytes";
      s += bulk_multicast(ins) ? ".multicast::cluster" : "";
      break;
    case BulkOp::Peer:
      s += ".shared::cluster.shared::cta.mbarrier::complete_tx::bytes";
      break;
    case BulkOp::PeerReduce:
      s += fmt::format(".shared::cluster.shared::cta.mbarrier::complete_tx::bytes.{}.{}",
                       name_of(kAtomNames, ins.atom), type_name(ins.type));
      break;
    case BulkOp::Store:
    case BulkOp::TensorStore:
      s += ".global.shared::cta";
      s += ins.has(kIm2col) ? ".im2col_no_offs" : tensor ? ".tile" : "";
      s += ".bulk_group";
      break;
    case BulkOp::Reduce:
      s += fmt::format(".global.shared::cta.bulk_group.{}.{}", name_of(kAtomNames, ins.atom),
                       type_name(ins.type));
      break;
    case BulkOp::TensorReduce:
      s += fmt::format(".global.shared::cta.{}.{}.bulk_group", name_of(kAtomNames, ins.atom),
                       ins.has(kIm2col) ? "im2col_no_offs" : "tile");
      break;
    default:
      s += ".L2.global";
      s += ins.has(kIm2col) ? ".im2col" : tensor ? ".tile" : "";
      break;
  }
  for (std::uint8_t i = 0; i < ins.num_ops; ++i) {
    s += i ? ", " : " ";
    if (int(i) == map_at && i + 1 < ins.num_ops && ins.ops[i + 1].kind == OperandKind::Vector) {
      std::string map = operand_text(k, ins.ops[i]);
      if (!map.empty() && map.back() == ']') map.pop_back();
      s += map + ", " + operand_text(k, ins.ops[i + 1]) + "]";
      ++i;
    } else {
      s += operand_text(k, ins.ops[i]);
    }
  }
  return s + ";";
}

}  // namespace

std::string_view opcode_name(Opcode op) {
  return name_of(kOpcodeNames, op);
}
std::string_view type_name(Type t) {
  return name_of(kTypeNames, t);
}
std::string_view space_name(Space s) {
  return name_of(kSpaceNames, s);
}

Type type_from_name(std::string_view name) {
  // The sub-byte types (s4, u4, b1) are the tensor-core decoder's own (mma_type_from_name).
  for (std::size_t i = 1; i <= std::size_t(Type::TF32); ++i)
    if (kTypeNames[i] == name) return static_cast<Type>(i);
  return Type::None;
}

int type_bits(Type t) {
  switch (t) {
    case Type::None:
      return 0;
    case Type::Pred:
    case Type::B1:
      return 1;
    case Type::S4:
    case Type::U4:
      return 4;
    case Type::B8:
    case Type::U8:
    case Type::S8:
    case Type::E4M3:
    case Type::E5M2:
      return 8;
    case Type::B16:
    case Type::U16:
    case Type::S16:
    case Type::F16:
    case Type::BF16:
      return 16;
    case Type::B32:
    case Type::U32:
    case Type::S32:
    case Type::F32:
    case Type::F16X2:
    case Type::BF16X2:
    case Type::TF32:
      return 32;
    case Type::B64:
    case Type::U64:
    case Type::S64:
    case Type::F64:
      return 64;
  }
  return 0;
}

bool is_float(Type t) {
  return t == Type::F16 || t == Type::F32 || t == Type::F64 || is_half(t) || t == Type::TF32;
}
bool is_half(Type t) {
  return t == Type::F16 || t == Type::BF16 || t == Type::F16X2 || t == Type::BF16X2;
}

int type_bytes(Type t) {
  return std::max(type_bits(t), 8) / 8;
}

std::uint64_t Symbol::size_bytes() const {
  return elements * static_cast<std::uint64_t>(type_bytes(type));
}

std::uint32_t Kernel::find_symbol(std::string_view n) const {
  for (std::size_t i = 0; i < symbols.size(); ++i)
    if (symbols[i].name == n) return static_cast<std::uint32_t>(i);
  return kNone;
}

void Operand::set_imm(std::int64_t v) {
  if (wide()) {
    imm_lo_ = static_cast<std::uint32_t>(static_cast<std::uint64_t>(v));
    sym = static_cast<std::uint32_t>(static_cast<std::uint64_t>(v) >> 32) ^ kNone;
    return;
  }
  if (!fits_operand_offset(v))
    throw InputError(fmt::format("an address offset of {} does not fit in 32 bits", v));
  imm_lo_ = static_cast<std::uint32_t>(static_cast<std::int32_t>(v));
}

void Kernel::add_vector(Operand& o, std::span<const std::uint32_t> elems,
                        std::span<const std::int64_t> imms) {
  o.target = static_cast<std::uint32_t>(vec_elems.size());
  o.count = static_cast<std::uint8_t>(elems.size());
  vec_elems.insert(vec_elems.end(), elems.begin(), elems.end());
  for (const std::int64_t v : imms) {
    vec_elems.push_back(static_cast<std::uint32_t>(std::uint64_t(v)));
    vec_elems.push_back(static_cast<std::uint32_t>(std::uint64_t(v) >> 32));
  }
}

const Kernel* Module::find_kernel(std::string_view n) const {
  for (const Kernel& k : kernels)
    if (k.name == n) return &k;
  return nullptr;
}

std::string demangle(std::string_view name) {
  if (!name.starts_with("_Z")) return std::string(name);
  int status = 0;
  const std::string mangled(name);
  char* text = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
  std::string out = status == 0 && text ? std::string(text) : mangled;
  std::free(text);
  return out;
}

namespace {

std::string without_spaces(std::string_view s) {
  std::string out;
  for (char c : s)
    if (c != ' ') out += c;
  return out;
}

// The names a kernel answers to, spaces removed: its signature, its name with template arguments,
// without them, and without its namespace.
std::vector<std::string> kernel_aliases(const Kernel& k) {
  const std::string sig = without_spaces(demangle(k.name));
  std::vector<std::string> out{sig};
  // The parameter list opens at the first '(' outside template arguments.
  int depth = 0;
  std::size_t open = std::string::npos;
  for (std::size_t i = 0; i < sig.size() && open == std::string::npos; ++i) {
    if (sig[i] == '<') ++depth;
    if (sig[i] == '>') --depth;
    if (sig[i] == '(' && depth == 0) open = i;
  }
  if (open == std::string::npos) return out;
  std::string name = sig.substr(0, open);
  if (name.starts_with("void")) name = name.substr(4);  // a template's return type
  out.push_back(name);
  if (!name.empty() && name.back() == '>') {  // drop the template arguments
    int d = 0;
    for (std::size_t i = name.size(); i-- > 0;) {
      if (name[i] == '>') ++d;
      if (name[i] == '<' && --d == 0) {
        name.resize(i);
        break;
      }
    }
    out.push_back(name);
  }
  if (const std::size_t colons = name.rfind("::"); colons != std::string::npos)
    out.push_back(name.substr(colons + 2));
  return out;
}

}  // namespace

std::vector<const Kernel*> match_kernels(const Module& m, std::string_view query) {
  if (const Kernel* k = m.find_kernel(query)) return {k};
  const std::string q = without_spaces(query);
  std::vector<const Kernel*> out;
  if (q.empty()) return out;
  for (const Kernel& k : m.kernels)
    for (const std::string& alias : kernel_aliases(k))
      if (alias == q) {
        out.push_back(&k);
        break;
      }
  return out;
}

std::string Module::file_name(std::uint32_t index) const {
  return index < files.size() ? files[index] : std::string();
}

std::string to_string(const Kernel& k, const Instruction& ins) {
  std::string s;
  if (ins.guard != kNone)
    s += fmt::format("@{}{} ", ins.guard_negated ? "!" : "",
                     ins.guard < k.regs.size() ? k.regs[ins.guard].name : "?");
  if (ins.op >= Opcode::Ldmatrix && ins.op <= Opcode::Mbarrier) return tensor_text(k, ins, s);
  if (ins.op == Opcode::CpBulk) return bulk_text(k, ins, s);
  if (ins.op == Opcode::BarCluster)  // comp 0 arrives, 1 waits (decode_cluster.cpp)
    return s + (ins.comp ? "barrier.cluster.wait;" : "barrier.cluster.arrive;");
  if (ins.op == Opcode::Wgmma) return wgmma_text(k, ins, s);
  s += opcode_name(ins.op);
  if (ins.has(kCarryIn)) s += "c";  // addc, subc, madc
  auto add = [&](std::string_view m) {
    if (!m.empty()) s += fmt::format(".{}", m);
  };
  if (ins.has(kSync)) add("sync");
  add(name_of(kTestNames, ins.test));
  if (ins.has(kCc)) add("cc");
  if (ins.op == Opcode::Bfind && ins.has(kShfClamp)) add("shiftamt");
  add(name_of(kWarpModeNames, ins.warp));
  if (ins.op == Opcode::Cvta && ins.has(kTo)) add("to");
  add(space_name(ins.space));
  if (ins.op != Opcode::Bar) add(name_of(kAtomNames, ins.atom));
  add(name_of(kCmpNames, ins.cmp));
  add(name_of(kBoolNames, ins.bool_op));
  add(name_of(kModeNames, ins.mode));
  add(name_of(kRoundNames, ins.rounding));
  if (ins.has(kApprox)) add("approx");
  if (ins.has(kFull)) add("full");
  if (ins.has(kFtz)) add("ftz");
  if (ins.has(kSat)) add("sat");
  if (ins.has(kUni)) add("uni");
  if (ins.op == Opcode::Shf) {
    add(ins.has(kShfLeft) ? "l" : "r");
    add(ins.has(kShfClamp) ? "clamp" : "wrap");
  }
  if (ins.op == Opcode::Bar && ins.has(kBarRed))
    add(ins.atom == AtomOp::Add ? "red.popc"
                                : fmt::format("red.{}", name_of(kAtomNames, ins.atom)));
  else if (ins.op == Opcode::Bar)
    add(ins.has(kArrive) ? "arrive" : "sync");
  if (ins.op == Opcode::Tld4) add(name_of(kCompNames, ins.comp));
  if (ins.op == Opcode::Prmt) add(name_of(kPrmtNames, ins.comp));
  add(name_of(kGeomNames, ins.geom));
  if (ins.has(kTexLevel)) add("level");
  if (ins.has(kTexGrad)) add("grad");
  if (ins.vec > 1 || ins.op == Opcode::Tex || ins.op == Opcode::Tld4)
    add(ins.vec == 2 ? "v2" : "v4");
  add(type_name(ins.type));
  add(type_name(ins.type2));
  if (ins.op == Opcode::Call) {
    const std::size_t c = std::size_t(ins.ops[0].imm());
    return s + " " + (c < k.calls.size() ? k.calls[c].callee : "?") + ";";
  }
  if (ins.op == Opcode::Tex || ins.op == Opcode::Tld4) {  // d, [a, c] {, lod | , dPdx, dPdy}
    s += fmt::format(" {}, [{}, {}]", operand_text(k, ins.ops[0]), operand_text(k, ins.ops[1]),
                     operand_text(k, ins.ops[2]));
    for (std::uint8_t i = 3; i < ins.num_ops; ++i) s += ", " + operand_text(k, ins.ops[i]);
    return s + ";";
  }
  for (std::uint8_t i = 0; i < ins.num_ops; ++i) {
    s += i ? ", " : " ";
    s += operand_text(k, ins.ops[i]);
    for (const std::uint8_t extra : {std::uint8_t{4}, std::uint8_t{5}}) {
      if (i != 0 || !ins.has(extra == 4 ? kSetpQ : kPredOut)) continue;
      s += '|';
      s += operand_text(k, ins.ops[extra]);
    }
  }
  return s + ";";
}

}  // namespace smemsim::ptx

namespace smemsim::ptx {

std::string_view special_name(Special s) {
  return name_of(kSpecialNames, s);
}

// Every %-operand of a module is looked up here: a hash map of the 101 names, not a scan.
bool special_from_name(std::string_view name, Special& out) {
  static const std::unordered_map<std::string_view, Special> by_name = [] {
    std::unordered_map<std::string_view, Special> m;
    for (std::size_t i = 0; i < std::size(kSpecialNames); ++i)
      m.emplace(kSpecialNames[i], static_cast<Special>(i));
    return m;
  }();
  const auto it = by_name.find(name);
  if (it == by_name.end()) return false;
  out = it->second;
  return true;
}

}  // namespace smemsim::ptx
