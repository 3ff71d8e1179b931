// Launch preparation of the SIMT executor (docs/exec.md): launch checks, the shared, local and
// parameter memory layout, kernel arguments, and the pre-decoded instruction table. The runtime
// (CTAs, warps, control flow) is in executor.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <stdexcept>

#include "exec/cfg.hpp"
#include "exec/exec_internal.hpp"
#include "exec/half.hpp"
#include "exec/regalloc.hpp"
#include "smemsim/error.hpp"

namespace smemsim::exec {

using namespace detail;
using ptx::Opcode;
using ptx::OperandKind;
using ptx::Space;
using ptx::Type;

namespace {

std::uint64_t align_up(std::uint64_t v, std::uint64_t a) {
  return a <= 1 ? v : (v + a - 1) / a * a;
}

std::uint64_t natural_align(const ptx::Symbol& s) {
  if (s.align) return s.align;
  return static_cast<std::uint64_t>(ptx::type_bytes(s.type));
}

// The PTX type an operand is read with.
Type operand_type(const ptx::Instruction& ins, std::size_t i) {
  switch (ins.op) {
    case Opcode::Cvt:
      return i == 1 ? ins.type2 : ins.type;
    case Opcode::Set:
      return (i == 1 || i == 2) ? ins.type2 : ins.type;
    case Opcode::Setp:
    case Opcode::Selp:
      return i == 3 || i == 4 ? Type::Pred : ins.type;
    case Opcode::Shl:
    case Opcode::Shr:
      return i == 2 ? Type::U32 : ins.type;
    case Opcode::Shf:
      return i == 3 ? Type::U32 : ins.type;
    case Opcode::Bfe:
      return i >= 2 ? Type::U32 : ins.type;
    case Opcode::Bfi:
      return i >= 3 ? Type::U32 : ins.type;
    case Opcode::Bar:
      return Type::U32;
    case Opcode::WmmaLoad:  // the stride (elements)
    case Opcode::WmmaStore:
    case Opcode::CpAsync:  // the sizes
      return Type::U32;
    case Opcode::CpBulk:  // the sizes; st.async's and red.async's value is of its type
      return i == 1 && (ptx::BulkOp(ins.comp) == ptx::BulkOp::StAsync ||
                        ptx::BulkOp(ins.comp) == ptx::BulkOp::RedAsync)
                 ? ins.type
                 : Type::U32;
    default:
      return ins.type;
  }
}

// f16/bf16/tf32 and the pairs are executed by cvt, mov, ld/st, selp and the arithmetic and
// compares of alu_half.cpp; anything else on them is refused rather than run as integers.
bool half_supported(const ptx::Instruction& ins) {
  const auto small = [](Type t) { return ptx::is_half(t) || t == Type::TF32; };
  if (!small(ins.type) && !small(ins.type2)) return true;
  switch (ins.op) {
    case Opcode::Cvt:
    case Opcode::Mov:
    case Opcode::Ld:
    case Opcode::St:
    case Opcode::Selp:
    case Opcode::Mma:
    case Opcode::WmmaLoad:
    case Opcode::WmmaStore:
    case Opcode::WmmaMma:
    case Opcode::Wgmma:
      return true;
    default:  // setp and the arithmetic of alu_half.cpp, on halves and pairs (not tf32)
      return (ins.op == Opcode::Setp || detail::half_arithmetic(ins.op)) && ptx::is_half(ins.type);
  }
}

std::uint64_t imm_bits(const ptx::Operand& o, Type t) {
  const int bits = ptx::type_bits(t);
  if (o.kind == OperandKind::ImmFloat && ptx::is_half(t)) {  // one half, or both of a pair
    const std::uint64_t h =
        detail::double_to_small(o.fimm(), detail::half_format(t), ptx::Rounding::Rn);
    return bits == 32 ? (h << 16) | h : h;
  }
  if (o.kind == OperandKind::ImmFloat) {
    if (t == Type::F32 || (t != Type::F64 && bits <= 32))
      return std::bit_cast<std::uint32_t>(static_cast<float>(o.fimm()));
    return std::bit_cast<std::uint64_t>(o.fimm());
  }
  if (t == Type::F32) return std::bit_cast<std::uint32_t>(static_cast<float>(o.imm()));
  if (t == Type::F64) return std::bit_cast<std::uint64_t>(static_cast<double>(o.imm()));
  return static_cast<std::uint64_t>(o.imm());
}

// A kernel's name for a message: demangled, and past 80 characters its first 77 and "..." (a
// CUTLASS kernel's template name runs to thousands of characters).
std::string message_name(const std::string& mangled) {
  std::string n = ptx::demangle(mangled);
  if (n.size() > 80) n = n.substr(0, 77) + "...";
  return n;
}

// " (and 79 more: bmsk ×29, prefetch ×20, ...)": what else the kernel uses that cannot run, by
// instruction (or by message for the other kinds), most frequent first.
std::string more_unsupported(const ptx::Kernel& k) {
  if (k.unsupported.size() < 2) return "";
  std::map<std::string, std::size_t> count;
  for (std::size_t i = 1; i < k.unsupported.size(); ++i) {
    const std::string& m = k.unsupported[i].message;
    constexpr std::string_view kPrefix = "unsupported PTX instruction '";
    std::string key = m.substr(0, 40) + (m.size() > 40 ? "..." : "");
    if (m.starts_with(kPrefix)) {
      const std::string ins =
          m.substr(kPrefix.size(), m.find('\'', kPrefix.size()) - kPrefix.size());
      key = ins.substr(0, ins.find('.'));
    }
    ++count[key];
  }
  std::vector<std::pair<std::string, std::size_t>> by(count.begin(), count.end());
  std::stable_sort(by.begin(), by.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string list;
  for (std::size_t i = 0; i < by.size() && i < 5; ++i)
    list += fmt::format("{}{} ×{}", i ? ", " : "", by[i].first, by[i].second);
  if (by.size() > 5) list += ", ...";
  return fmt::format(" (and {} more: {})", k.unsupported.size() - 1, list);
}

}  // namespace

Impl::Impl(const ptx::Module& m, const ptx::Kernel& k, const Arch& a, const Launch& l,
           GlobalMemory& g, const SharedRemap& r)
    : module(m), kernel(k), arch(a), launch(l), memory(g), remap(r) {
  const std::string where = located(module.filename, kernel.ptx_line, "");
  auto fail_launch = [&](const std::string& what) {
    throw InputError(fmt::format("{}kernel '{}': {}", where, message_name(kernel.name), what));
  };
  if (!kernel.unsupported.empty()) {  // the module parsed; this kernel cannot run (issue 15)
    const ptx::Kernel::Unsupported& u = kernel.unsupported.front();
    const ptx::SourceSite at{u.loc, u.inlined_at, {}};  // for its CUDA line
    const std::string cuda = cuda_location(module, at);
    throw InputError(located(module.filename, u.line,
                             fmt::format("{}{} in kernel '{}'{}", u.message,
                                         cuda.empty() ? std::string() : " (" + cuda + ")",
                                         message_name(kernel.name), more_unsupported(kernel))));
  }
  if (module.address_size != 64) fail_launch("only .address_size 64 is supported");
  if (arch.warp_size == 0 || arch.warp_size > kMaxLanes)
    fail_launch(fmt::format("warp size {} is not in 1..{}", arch.warp_size, kMaxLanes));
  lanes = arch.warp_size;
  words_per_unit = std::max(1u, arch.words_per_bank_unit());
  transaction_lanes = std::max(1u, arch.transaction_lanes);
  wide_by_words = arch.wide_access == "words";
  wide_pairs = arch.wide_access == "pairs";
  const std::uint64_t t = launch.block.count();
  if (t == 0 || t > 1024)
    fail_launch(
        fmt::format("block {} has {} threads; 1..1024 are allowed", to_string(launch.block), t));
  if (launch.grid.count() == 0) fail_launch("empty grid");
  if (t > arch.sm.max_cta_threads)
    fail_launch(
        fmt::format("block {} has {} threads, above the {} of arch '{}' "
                    "(sm.max_cta_threads)",
                    to_string(launch.block), t, arch.sm.max_cta_threads, arch.name));
  // CUDA's launch limits (compute capability 2.0 and later; the CUDA C++ Programming Guide's
  // technical specifications): block x, y <= 1024, z <= 64; grid x <= 2^31 - 1, y, z <= 65535.
  const Dim3& b = launch.block;
  const Dim3& gr = launch.grid;
  if (b.x > 1024 || b.y > 1024 || b.z > 64)
    fail_launch(fmt::format("block {} exceeds CUDA's limits x, y <= 1024, z <= 64",
                            to_string(launch.block)));
  if (gr.x > 2147483647u || gr.y > 65535 || gr.z > 65535)
    fail_launch(fmt::format("grid {} exceeds CUDA's limits x <= 2147483647, y, z <= 65535",
                            to_string(launch.grid)));
  // .reqntid and .maxntid both land in Kernel::reqntid: checked as an upper bound.
  const std::uint64_t max_threads = std::uint64_t(std::max(1u, kernel.reqntid[0])) *
                                    std::max(1u, kernel.reqntid[1]) *
                                    std::max(1u, kernel.reqntid[2]);
  if (kernel.reqntid[0] && t > max_threads)
    fail_launch(fmt::format("block {} has {} threads, above the kernel's .maxntid/.reqntid of {}",
                            to_string(launch.block), t, max_threads));
  // Clusters (__cluster_dims__, issue 46): the grid is a whole number of them (run() starts a
  // cluster's CTAs together; cluster.cpp).
  const std::uint64_t cluster = std::uint64_t(std::max(1u, kernel.cluster[0])) *
                                std::max(1u, kernel.cluster[1]) * std::max(1u, kernel.cluster[2]);
  this->cluster = {std::max(1u, kernel.cluster[0]), std::max(1u, kernel.cluster[1]),
                   std::max(1u, kernel.cluster[2])};
  if (cluster > 1) {
    const Dim3 c = this->cluster;
    if (gr.x % c.x || gr.y % c.y || gr.z % c.z)
      fail_launch(
          fmt::format("grid {} is not a whole number of the kernel's clusters of {} "
                      "(.reqnctapercluster)",
                      to_string(launch.grid), to_string(c)));
    // A GPU with clusters bounds their size (hopper-h100: 16, the CUDA Programming Guide's
    // non-portable size); presets without them (sm.max_cluster = 0) run any functionally.
    if (arch.sm.max_cluster && cluster > arch.sm.max_cluster)
      fail_launch(
          fmt::format("clusters of {} = {} CTAs (.reqnctapercluster): the arch ({}) "
                      "allows at most {} (sm.max_cluster)",
                      to_string(c), cluster, arch.name, arch.sm.max_cluster));
  }
  // The clusters' board (cluster.cpp), which the sibling executors share: with clusters, or where
  // a kernel without them (a cluster of one CTA) meets at the cluster barrier or maps addresses.
  if (cluster > 1 || std::any_of(kernel.code.begin(), kernel.code.end(), [](const auto& i) {
        return i.op == ptx::Opcode::BarCluster || i.op == ptx::Opcode::Mapa;
      }))
    board = std::make_shared<ClusterBoard>();
  threads = static_cast<std::uint32_t>(t);
  warps = (threads + lanes - 1) / lanes;
  nregs = static_cast<std::uint32_t>(kernel.regs.size());
  place_specials();
  // The register file the executor allocates per CTA (64 bits per register and lane): a PTX with a
  // million virtual registers would take gigabytes before the first instruction (issue 11).
  const std::uint64_t reg_bytes = std::uint64_t(local_rows) * 8 * warps * lanes;
  if (reg_bytes > kMaxRegisterBytes)
    fail_launch(
        fmt::format("{} registers x {} threads need {} MiB of simulated register file, "
                    "above the executor's {} MiB",
                    nregs, threads, reg_bytes >> 20, kMaxRegisterBytes >> 20));
  sym_addr.assign(kernel.symbols.size(), 0);
  for (const Buffer& b : memory.buffers)
    regions.push_back({const_cast<std::uint8_t*>(b.bytes.data()), b.bytes.size(), true, b.name});
  for (const ptx::Instruction& ins : kernel.code)
    if (ins.op == Opcode::TxBegin || ins.op == Opcode::TxCommit) has_tx = true;
  layout_memory();
  if (has_tx) {
    check_tm();
    tm_sites.resize(kernel.code.size());
  }
  setup_params();
  predecode();
  setup_calls();
  place_rows();
  if (has_tx) place_tx_rows();
  wa.lanes = static_cast<std::uint8_t>(lanes);
}

// A kernel's registers share rows (regalloc.hpp) unless a call saves a callee's registers as one
// run of rows (call.cpp); the special registers and the carry flag follow them.
void Impl::place_rows() {
  file_row.resize(local_rows);
  std::uint32_t next = 0;
  if (kernel.calls.empty()) {
    const RegisterRows shared_rows = share_register_rows(kernel);
    std::copy(shared_rows.row.begin(), shared_rows.row.end(), file_row.begin());
    next = shared_rows.rows;
  } else {
    for (std::uint32_t r = 0; r < nregs; ++r) file_row[r] = r;
    next = nregs;
  }
  for (std::uint32_t r = nregs; r < local_rows; ++r) file_row[r] = next++;
  file_rows = next;
  // predecode resolved operands to register numbers and special rows: from here on, file rows.
  const auto place = [&](std::uint32_t& r) { r = reg_row(r); };
  for (std::size_t pc = 0; pc < kernel.code.size(); ++pc) {
    XInst& x = xcode[pc];
    for (std::uint32_t& r : x.row) place(r);
    if (kernel.code[pc].op != Opcode::Bra)  // a branch's vrow is its target and reconvergence
      for (std::uint32_t& r : x.vrow) place(r);
    place(x.mem_row);
    place(x.guard);
  }
  for (std::uint32_t& r : special_at) place(r);
  place(cc_row);
}

// A retry's restore (tm.cpp) need only write the rows its attempt may have written: the code an
// attempt runs lies between the first TX.Begin and the last TX.Commit (TX.Begin and TX.Commit in
// one block; a retry goes back to TX.Begin) unless it calls out or branches out, and a row no
// instruction there names keeps its checkpoint's value. The rows named (read or written) are a
// superset of those written; restoring a row only read writes the value it has.
void Impl::place_tx_rows() {
  std::uint32_t first = ~0u, last = 0;
  for (std::uint32_t i = 0; i < kernel.code.size(); ++i) {
    if (kernel.code[i].op == Opcode::TxBegin) first = std::min(first, i);
    if (kernel.code[i].op == Opcode::TxCommit) last = std::max(last, i);
  }
  std::vector<std::uint8_t> named(file_rows, 0);
  bool every = first > last;
  const auto name = [&](std::uint32_t r) {
    if (r < file_rows) named[r] = 1;
  };
  for (std::uint32_t i = first; !every && i <= last; ++i) {
    const ptx::Instruction& ins = kernel.code[i];
    if (ins.op == Opcode::Call) every = true;
    for (const ptx::Operand& o : ins.ops)
      if (o.kind == ptx::OperandKind::Label && (o.target < first || o.target > last)) every = true;
    const XInst& x = xcode[i];
    for (const std::uint32_t r : x.row) name(r);
    if (ins.op != Opcode::Bra)
      for (const std::uint32_t r : x.vrow) name(r);
    name(x.mem_row);
    name(x.guard);
    if (x.reads_clock())  // a read of one clock writes all three rows (executor.cpp)
      for (const ptx::Special sp :
           {ptx::Special::Clock, ptx::Special::Clock64, ptx::Special::ClockHi})
        name(special_at[std::size_t(sp)]);
  }
  name(cc_row);
  tx_rows.clear();
  for (std::uint32_t r = 0; r < file_rows; ++r)
    if (every || named[r]) tx_rows.push_back(r);
}

// Device function calls (ptx/link.cpp linked the functions; their slots are .local variables laid
// out by layout_memory): the byte ranges to save and the copies of each call site.
void Impl::setup_calls() {
  calls.resize(kernel.calls.size());
  for (std::size_t c = 0; c < kernel.calls.size(); ++c) {
    const ptx::CallSite& site = kernel.calls[c];
    if (site.builtin != ptx::Builtin::None) {  // printf, assert: the caller's slots are enough
      CallInfo& ci = calls[c];
      ci.builtin = site.builtin;
      for (const std::uint32_t a : site.args)
        ci.args.push_back({sym_addr[a], 0, kernel.symbols[a].size_bytes()});
      for (const std::uint32_t r : site.rets)
        ci.rets.push_back({sym_addr[r], 0, kernel.symbols[r].size_bytes()});
      continue;
    }
    if (site.function == ptx::kNone) continue;  // unsupported: the kernel was refused above
    const ptx::LinkedFunction& f = kernel.functions[site.function];
    CallInfo& ci = calls[c];
    ci.entry = f.entry;
    ci.reg_begin = f.reg_begin;
    ci.reg_end = f.reg_end;
    ci.save = f.recursive;
    ci.local_begin = local_bytes;
    ci.local_end = 0;
    for (const std::uint32_t s : f.locals) {
      ci.local_begin = std::min(ci.local_begin, sym_addr[s]);
      ci.local_end = std::max(ci.local_end, sym_addr[s] + kernel.symbols[s].size_bytes());
    }
    if (ci.local_end < ci.local_begin) ci.local_begin = ci.local_end = 0;
    const auto copy = [&](std::uint32_t src, std::uint32_t dst) {
      return CallInfo::Copy{
          sym_addr[src], sym_addr[dst],
          std::min(kernel.symbols[src].size_bytes(), kernel.symbols[dst].size_bytes())};
    };
    for (std::size_t i = 0; i < site.args.size(); ++i)
      ci.args.push_back(copy(site.args[i], f.params[f.nret + i]));
    for (std::size_t i = 0; i < site.rets.size(); ++i)
      ci.rets.push_back(copy(f.params[i], site.rets[i]));
  }
}

void Impl::layout_memory() {
  std::uint64_t off = 0, local = 0, dyn_align = 16;
  bool has_extern = false;
  for (std::size_t i = 0; i < kernel.symbols.size(); ++i) {
    const ptx::Symbol& s = kernel.symbols[i];
    if (s.kind != ptx::SymbolKind::Variable) continue;
    if (s.space == Space::Shared) {
      if (s.is_extern) {
        has_extern = true;
        dyn_align = std::max(dyn_align, natural_align(s));
        continue;
      }
      off = align_up(off, natural_align(s));
      sym_addr[i] = off;
      shared.arrays.push_back({s.name, static_cast<std::uint32_t>(off),
                               static_cast<std::uint32_t>(s.size_bytes()), false});
      off += s.size_bytes();
    } else if (s.space == Space::Local) {
      local = align_up(local, natural_align(s));
      sym_addr[i] = local;
      local += s.size_bytes();
    } else if (s.space == Space::Global || s.space == Space::Const) {
      module_vars.emplace_back(s.size_bytes(), 0);
      std::vector<std::uint8_t>& v = module_vars.back();
      if (!s.init.empty())  // no initializer: zeros (memcpy from a null pointer is undefined)
        std::memcpy(v.data(), s.init.data(), std::min(v.size(), s.init.size()));
      regions.push_back({v.data(), v.size(), s.space == Space::Global, s.name});
      sym_addr[i] = std::uint64_t(regions.size()) << kRegionShift;
    }
  }
  shared.static_bytes = static_cast<std::uint32_t>(off);
  const std::uint64_t dyn_off =
      launch.dynamic_shared_bytes || has_extern ? align_up(off, dyn_align) : off;
  std::uint64_t total = dyn_off + launch.dynamic_shared_bytes;
  if (launch.dynamic_shared_bytes) {
    std::string name = "(dynamic)";
    for (const ptx::Symbol& s : kernel.symbols)
      if (s.kind == ptx::SymbolKind::Variable && s.space == Space::Shared && s.is_extern) {
        name = s.name;
        break;
      }
    shared.arrays.push_back(
        {name, static_cast<std::uint32_t>(dyn_off), launch.dynamic_shared_bytes, true});
  }
  if (const SharedRemap& r = remap; r.on()) {
    const std::string bad = r.check();
    if (!bad.empty()) throw InputError(fmt::format("shared-memory remap: {}", bad));
    if (std::uint64_t(r.base) + r.bytes > total)
      throw InputError(fmt::format(
          "shared-memory remap: the array (offset {}, {} bytes) is outside the kernel's {} bytes",
          r.base, r.bytes, total));
    if (total + r.added_bytes() > arch.memory_bytes)
      throw InputError(fmt::format(
          "{}kernel '{}': the remapped array needs {} more bytes of shared memory, {} in all, "
          "above the {} bytes of arch '{}'",
          located(module.filename, kernel.ptx_line, ""), kernel.name, r.added_bytes(),
          total + r.added_bytes(), arch.memory_bytes, arch.name));
    total += r.added_bytes();
  }
  // The shared memory the driver reserves per block on sm_80 and later (1 KiB: CUDA C++
  // Programming Guide, compute capability 8.x and 9.0 "Shared Memory"), which cooperative groups'
  // block_tile_memory finds through %reserved_smem_offset_1. It exists here only for a kernel that
  // reads one of the %reserved_smem_* registers, after the block's own shared memory (the GPU puts
  // it first: an address only these registers give, so the place does not change a result).
  for (const ptx::Instruction& ins : kernel.code)
    for (std::size_t i = 0; i < ins.num_ops; ++i)
      if (ins.ops[i].kind == ptx::OperandKind::Special &&
          ins.ops[i].special >= ptx::Special::ReservedSmemOffsetBegin &&
          ins.ops[i].special <= ptx::Special::ReservedSmemOffset1)
        reserved_smem = static_cast<std::uint32_t>(align_up(total, 16));
  if (reserved_smem != kNoRow) {
    shared.arrays.push_back({"(reserved)", reserved_smem, kReservedSmemBytes, false});
    total = std::uint64_t(reserved_smem) + kReservedSmemBytes;
  }
  if (total > arch.memory_bytes)
    throw InputError(fmt::format(
        "{}kernel '{}' needs {} bytes of shared memory per block ({} static + {} dynamic), above "
        "the {} bytes of arch '{}'",
        located(module.filename, kernel.ptx_line, ""), kernel.name, total, off,
        launch.dynamic_shared_bytes, arch.memory_bytes, arch.name));
  shared.dynamic_offset = static_cast<std::uint32_t>(dyn_off);
  shared.total_bytes = static_cast<std::uint32_t>(total);
  for (std::size_t i = 0; i < kernel.symbols.size(); ++i) {
    const ptx::Symbol& s = kernel.symbols[i];
    if (s.kind == ptx::SymbolKind::Variable && s.space == Space::Shared && s.is_extern)
      sym_addr[i] = dyn_off;
  }
  local_bytes = local;
  // CUDA's limit on local memory per thread (512 KiB, the CUDA C++ Programming Guide's technical
  // specifications), checked before the CTA's local memory is allocated.
  if (local_bytes > kMaxLocalBytes)
    throw InputError(fmt::format(
        "{}kernel '{}' declares {} bytes of local memory per thread, above CUDA's {} KiB",
        located(module.filename, kernel.ptx_line, ""), kernel.name, local_bytes,
        kMaxLocalBytes >> 10));
}

// GPU-LocalTM's limits (seed 003 §4.3): the shadow memory shares the LDS with the data, and the
// detector must be known.
void Impl::check_tm() {
  (void)tm::make_detector(arch, 1);
  const std::uint64_t need = shared.total_bytes + tm::shadow_bytes(shared.total_bytes, threads);
  if (need <= arch.memory_bytes) return;
  // The largest data size whose shadow still fits: words w with 4w + 4w + owner bytes x w <= size.
  const std::uint64_t per_word = 8 + (threads > 256 ? 2 : 1);
  throw InputError(fmt::format(
      "{}kernel '{}' uses transactions: its {} bytes of shared memory need {} more for the shadow "
      "memory (backups and owner records, seed 003 §3.2), {} bytes in all, {} above the {} bytes "
      "of arch '{}'; at most {} bytes of shared data fit with transactions",
      located(module.filename, kernel.ptx_line, ""), kernel.name, shared.total_bytes,
      need - shared.total_bytes, need, need - arch.memory_bytes, arch.memory_bytes, arch.name,
      arch.memory_bytes / per_word * 4));
}

void Impl::setup_params() {
  const std::string where = located(module.filename, kernel.ptx_line, "");
  if (launch.args.size() != kernel.params.size())
    throw InputError(fmt::format("{}kernel '{}' takes {} parameter{}, the launch gives {}", where,
                                 kernel.name, kernel.params.size(),
                                 kernel.params.size() == 1 ? "" : "s", launch.args.size()));
  std::uint64_t off = 0;
  for (std::size_t p = 0; p < kernel.params.size(); ++p) {
    const ptx::Symbol& s = kernel.symbols[kernel.params[p]];
    off = align_up(off, natural_align(s));
    sym_addr[kernel.params[p]] = off;
    off += s.size_bytes();
  }
  params.assign(off, 0);
  for (std::size_t p = 0; p < kernel.params.size(); ++p) {
    const ptx::Symbol& s = kernel.symbols[kernel.params[p]];
    const Arg& a = launch.args[p];
    const int bits = ptx::type_bits(s.type);
    auto fail = [&](const std::string& what) {
      throw InputError(fmt::format("{}kernel '{}' parameter {} ({}, .{}): {}", where, kernel.name,
                                   p + 1, s.name, ptx::type_name(s.type), what));
    };
    // A tensor map (issue 46): `const __grid_constant__ CUtensorMap`, a 128-byte parameter
    // aligned to 64 (CUtensorMap's declaration in cuda.h); it receives the map's image.
    if (a.kind == Arg::Kind::TensorMap) {
      if (s.size_bytes() != kTensorMapBytes || natural_align(s) < 64)
        fail(
            fmt::format("a tensor map is passed to a parameter of {} bytes aligned to {}; a "
                        "CUtensorMap is 128 bytes aligned to 64",
                        s.size_bytes(), natural_align(s)));
      if (a.buffer >= memory.tensor_maps.size()) fail("no such tensor map");
      const TensorMap& t = memory.tensor_maps[a.buffer];
      const auto image = encode_tensor_map(t, GlobalMemory::base_address(t.buffer) + t.offset);
      std::memcpy(params.data() + sym_addr[kernel.params[p]], image.data(), image.size());
      continue;
    }
    // A struct or array parameter; or one of a single element given as bytes: an empty struct
    // is `.b8 p[1]` in PTX, which reads the same as a one-byte scalar (launch init writes 0,
    // and { bytes = [0] } is the same image).
    const bool aggregate = s.elements != 1 || a.kind == Arg::Kind::Bytes;
    if (aggregate != (a.kind == Arg::Kind::Bytes))
      fail(
          fmt::format("a struct or array of {} bytes aligned to {}: give {{ fields = [...] }} or "
                      "{{ bytes = [...] }}",
                      s.size_bytes(), natural_align(s)));
    if (aggregate) {
      // The image's padding to the parameter's alignment is the struct's own trailing padding.
      const std::uint64_t size = s.size_bytes(), pal = natural_align(s);
      if (a.align > pal)
        fail(fmt::format("a field aligned to {} bytes in a parameter aligned to {}", a.align, pal));
      const std::uint64_t padded = (a.bytes.size() + pal - 1) / pal * pal;
      if (a.bytes.size() > size || padded != size)
        fail(
            fmt::format("the fields take {} bytes ({} with padding to {}), the parameter is {} "
                        "bytes",
                        a.bytes.size(), padded, pal, size));
      std::uint8_t* dst = params.data() + sym_addr[kernel.params[p]];
      std::memcpy(dst, a.bytes.data(), a.bytes.size());
      for (const Arg::Reloc& r : a.relocs) {
        std::uint64_t addr = kTextureHandleBase + r.index;
        if (!r.texture) {
          if (r.index >= memory.buffers.size()) fail("no such buffer");
          addr = GlobalMemory::base_address(r.index) + std::uint64_t(r.offset);
        } else if (r.index >= memory.textures.size()) {
          fail("no such texture");
        }
        std::memcpy(dst + r.at, &addr, 8);
      }
      continue;
    }
    std::uint64_t v = 0;
    switch (a.kind) {
      case Arg::Kind::Bytes:
      case Arg::Kind::TensorMap:
        break;  // above
      case Arg::Kind::Buffer:
        if (bits != 64 || ptx::is_float(s.type))
          fail("a buffer is passed to a non-pointer parameter");
        if (a.buffer >= memory.buffers.size()) fail("no such buffer");
        if (a.i < 0 || std::uint64_t(a.i) > memory.buffers[a.buffer].bytes.size())
          fail(fmt::format("offset {} bytes is outside buffer '{}' ({} bytes)", a.i,
                           memory.buffers[a.buffer].name, memory.buffers[a.buffer].bytes.size()));
        v = GlobalMemory::base_address(a.buffer) + std::uint64_t(a.i);
        break;
      case Arg::Kind::Int:
        // A C++ bool parameter is 8 bits wide: true/false anywhere else is a slip.
        if (a.boolean && bits != 8)
          fail(fmt::format("{} is for a bool (8-bit) parameter; give a number",
                           a.i ? "true" : "false"));
        if (s.type == Type::F32)
          v = std::bit_cast<std::uint32_t>(static_cast<float>(a.i));
        else if (s.type == Type::F64)
          v = std::bit_cast<std::uint64_t>(static_cast<double>(a.i));
        else {
          if (bits < 64) {
            const std::int64_t lo = ptx::is_signed(s.type) ? -(std::int64_t{1} << (bits - 1)) : 0;
            const std::int64_t hi = ptx::is_signed(s.type) ? (std::int64_t{1} << (bits - 1)) - 1
                                                           : (std::int64_t{1} << bits) - 1;
            // Bit types accept either reading.
            const bool bit_type = !ptx::is_signed(s.type) && s.type != Type::U8 &&
                                  s.type != Type::U16 && s.type != Type::U32;
            const std::int64_t lo2 = bit_type ? -(std::int64_t{1} << (bits - 1)) : lo;
            if (a.i < lo2 || a.i > hi) fail(fmt::format("{} does not fit", a.i));
          }
          v = static_cast<std::uint64_t>(a.i);
        }
        break;
      case Arg::Kind::Texture:
        if (bits != 64 || ptx::is_float(s.type))
          fail("a texture is passed to a parameter that is not a 64-bit cudaTextureObject_t");
        if (a.buffer >= memory.textures.size()) fail("no such texture");
        v = kTextureHandleBase + a.buffer;
        break;
      case Arg::Kind::Float:
        if (s.type == Type::F32 && std::isfinite(a.f) &&
            std::fabs(a.f) > double(std::numeric_limits<float>::max()))
          fail(fmt::format("{} does not fit (the largest .f32 is {:.7g})", a.f,
                           std::numeric_limits<float>::max()));
        if (s.type == Type::F32)
          v = std::bit_cast<std::uint32_t>(static_cast<float>(a.f));
        else if (s.type == Type::F64)
          v = std::bit_cast<std::uint64_t>(a.f);
        else
          fail(fmt::format("needs an integer, got {}", a.f));
        break;
    }
    std::memcpy(params.data() + sym_addr[kernel.params[p]], &v, s.size_bytes());
  }
}

std::uint64_t Impl::symbol_address(std::uint32_t sym) const {
  return sym_addr.at(sym);
}

// The register row of vector element k: the register, or a constant row for an immediate element
// (mov.b32 %f1, {0, %rs1}), at the element's width.
std::uint32_t Impl::vector_row(const ptx::Operand& o, int k, const ptx::Instruction& ins) {
  const std::uint32_t v = kernel.vec(o, k);
  if (!ptx::is_vec_imm(v)) return v;
  const int w = ptx::type_bits(ins.type) / std::max<int>(1, o.count);
  return const_row(static_cast<std::uint64_t>(kernel.vec_imm(o, v)) & width_mask(w));
}

std::uint32_t Impl::const_row(std::uint64_t bits) {
  const auto rows = static_cast<std::uint32_t>(consts.size() / lanes);
  const auto [it, added] = const_index.try_emplace(bits, rows);
  if (added) consts.insert(consts.end(), lanes, bits);
  return local_rows + it->second;
}

void Impl::predecode() {
  const std::vector<Reconvergence> reconv = reconvergence_points(kernel);
  xcode.resize(kernel.code.size());
  auto reg_bits = [&](std::uint32_t reg) {
    return static_cast<std::uint8_t>(std::clamp(ptx::type_bits(kernel.regs[reg].type), 1, 64));
  };
  for (std::size_t pc = 0; pc < kernel.code.size(); ++pc) {
    const ptx::Instruction& ins = kernel.code[pc];
    XInst& x = xcode[pc];
    auto unsupported = [&](const std::string& what) {
      throw InputError(located(module.filename, ins.ptx_line,
                               fmt::format("the executor does not support {} ('{}')", what,
                                           ptx::to_string(kernel, ins))));
    };
    if (!half_supported(ins))
      unsupported(fmt::format(
          "{} on .{}", ptx::opcode_name(ins.op),
          ptx::type_name(ptx::is_half(ins.type) || ins.type == Type::TF32 ? ins.type : ins.type2)));
    if (ins.op == Opcode::St && ins.space == Space::Param) unsupported("st.param");
    x.bits = static_cast<std::uint8_t>(ptx::type_bits(ins.type));
    if (ins.guard != ptx::kNone) {
      x.guard = ins.guard;
      if (ins.guard_negated) x.neg |= XInst::kGuardNeg;
    }
    if (ptx::is_warp_level(ins.op) && lanes != 32)
      unsupported(
          fmt::format("warp-level instructions on {}-lane warps (their member masks and "
                      "lane ids are 32-lane; arch '{}')",
                      lanes, arch.name));
    const std::size_t nops = ins.has(ptx::kPredOut) ? 6 : ins.has(ptx::kSetpQ) ? 5 : ins.num_ops;
    for (std::size_t i = 0; i < nops; ++i) {
      const ptx::Operand& o = ins.ops[i];
      const Type t = operand_type(ins, i);
      switch (o.kind) {
        case OperandKind::None:
          break;
        case OperandKind::Reg:
          x.row[i] = o.reg;
          if (o.negate) x.neg = static_cast<std::uint8_t>(x.neg | 1u << i);
          break;
        case OperandKind::ImmInt:
        case OperandKind::ImmFloat:
          x.row[i] = const_row(imm_bits(o, t));
          break;
        case OperandKind::Special:
          x.row[i] = special_row(o.special, ins);
          if (o.special == ptx::Special::Clock || o.special == ptx::Special::Clock64 ||
              o.special == ptx::Special::ClockHi ||
              (o.special >= ptx::Special::GlobalTimer && o.special <= ptx::Special::GlobalTimerHi))
            x.neg |= XInst::kReadsClock;
          break;
        case OperandKind::Symbol:
          x.row[i] = const_row(symbol_address(o.sym) + static_cast<std::uint64_t>(o.imm()));
          break;
        case OperandKind::Memory:
          if (o.reg != ptx::kNone) {
            x.mem_row = o.reg;
            x.mem_bits = reg_bits(o.reg);
          } else if (o.sym != ptx::kNone) {
            x.mem_row = const_row(symbol_address(o.sym));
          }
          x.mem_off = static_cast<std::int32_t>(o.imm());  // 32 bits: fits_operand_offset
          break;
        case OperandKind::Vector:  // ld/st .v2/.v4 and mov packing (wider vectors: their exec)
          for (int k = 0; k < o.count && k < int(x.vrow.size()); ++k)
            x.vrow[std::size_t(k)] = vector_row(o, k, ins);
          break;
        case OperandKind::Label:
          x.vrow[0] = o.target;  // XInst::target()
          break;
      }
    }
    if (ins.op == Opcode::Tex || ins.op == Opcode::Tld4) {
      // d in vrow, the texture object in row[1], the coordinates in row[2..5]; tex.level's lod and
      // tex.grad's gradients are not read (a texture has one level).
      const ptx::Operand& d = ins.ops[0];
      const ptx::Operand& c = ins.ops[2];
      for (int k = 0; k < 4; ++k) x.vrow[std::size_t(k)] = kernel.vec(d, k);
      for (std::size_t k = 2; k < x.row.size(); ++k) x.row[k] = kNoRow;
      for (int k = 0; k < c.count; ++k) x.row[std::size_t(2 + k)] = kernel.vec(c, k);
    }
    if (ins.op == Opcode::WmmaStore && ins.num_ops == 3) x.row[1] = kNoRow;  // the fragment: ops[1]
    if (ins.num_ops > 0 && ins.ops[0].kind == OperandKind::Reg)
      x.dst_bits = reg_bits(ins.ops[0].reg);
    if (ins.num_ops > 0 && ins.ops[0].kind == OperandKind::Vector)
      x.dst_bits = reg_bits(kernel.vec(ins.ops[0], 0));
  }
  for (const Reconvergence& r : reconv) xcode[r.pc].vrow[1] = r.rpc;  // XInst::reconv()
}

}  // namespace smemsim::exec
