// The SIMT executor: launch checks, memory layout, pre-decoding, CTAs, warps and control flow
// (docs/exec.md). Arithmetic is in alu.cpp, memory instructions in memory.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <stdexcept>

#include "exec/cfg.hpp"
#include "exec/exec_internal.hpp"
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
    case Opcode::Bar:
      return Type::U32;
    default:
      return ins.type;
  }
}

std::uint64_t imm_bits(const ptx::Operand& o, Type t) {
  const int bits = ptx::type_bits(t);
  if (o.kind == OperandKind::ImmFloat) {
    if (t == Type::F32 || (t != Type::F64 && bits <= 32))
      return std::bit_cast<std::uint32_t>(static_cast<float>(o.fimm));
    return std::bit_cast<std::uint64_t>(o.fimm);
  }
  if (t == Type::F32) return std::bit_cast<std::uint32_t>(static_cast<float>(o.imm));
  if (t == Type::F64) return std::bit_cast<std::uint64_t>(static_cast<double>(o.imm));
  return static_cast<std::uint64_t>(o.imm);
}

}  // namespace

Impl::Impl(const ptx::Module& m, const ptx::Kernel& k, const Arch& a, const Launch& l,
           GlobalMemory& g)
    : module(m), kernel(k), arch(a), launch(l), memory(g) {
  const std::string where = located(module.filename, kernel.ptx_line, "");
  auto fail_launch = [&](const std::string& what) {
    throw InputError(fmt::format("{}kernel '{}': {}", where, kernel.name, what));
  };
  if (module.address_size != 64) fail_launch("only .address_size 64 is supported");
  if (arch.warp_size == 0 || arch.warp_size > kMaxLanes)
    fail_launch(fmt::format("warp size {} is not in 1..{}", arch.warp_size, kMaxLanes));
  lanes = arch.warp_size;
  const std::uint64_t t = launch.block.count();
  if (t == 0 || t > 1024)
    fail_launch(
        fmt::format("block {} has {} threads; 1..1024 are allowed", to_string(launch.block), t));
  if (launch.grid.count() == 0) fail_launch("empty grid");
  // .reqntid and .maxntid both land in Kernel::reqntid: checked as an upper bound.
  const std::uint64_t max_threads = std::uint64_t(std::max(1u, kernel.reqntid[0])) *
                                    std::max(1u, kernel.reqntid[1]) *
                                    std::max(1u, kernel.reqntid[2]);
  if (kernel.reqntid[0] && t > max_threads)
    fail_launch(fmt::format("block {} has {} threads, above the kernel's .maxntid/.reqntid of {}",
                            to_string(launch.block), t, max_threads));
  threads = static_cast<std::uint32_t>(t);
  warps = (threads + lanes - 1) / lanes;
  nregs = static_cast<std::uint32_t>(kernel.regs.size());
  local_rows = nregs + kSpecialRows;
  sym_addr.assign(kernel.symbols.size(), 0);
  for (const Buffer& b : memory.buffers)
    regions.push_back({const_cast<std::uint8_t*>(b.bytes.data()), b.bytes.size(), true, b.name});
  layout_memory();
  setup_params();
  predecode();
  wa.lanes = static_cast<std::uint8_t>(lanes);
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
      off += s.size_bytes();
    } else if (s.space == Space::Local) {
      local = align_up(local, natural_align(s));
      sym_addr[i] = local;
      local += s.size_bytes();
    } else if (s.space == Space::Global || s.space == Space::Const) {
      module_vars.emplace_back(s.size_bytes(), 0);
      std::vector<std::uint8_t>& v = module_vars.back();
      std::memcpy(v.data(), s.init.data(), std::min(v.size(), s.init.size()));
      regions.push_back({v.data(), v.size(), s.space == Space::Global, s.name});
      sym_addr[i] = std::uint64_t(regions.size()) << kRegionShift;
    }
  }
  shared.static_bytes = static_cast<std::uint32_t>(off);
  const std::uint64_t dyn_off =
      launch.dynamic_shared_bytes || has_extern ? align_up(off, dyn_align) : off;
  const std::uint64_t total = dyn_off + launch.dynamic_shared_bytes;
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
    if (s.elements != 1) fail("aggregate (array or struct) parameters are not supported");
    std::uint64_t v = 0;
    switch (a.kind) {
      case Arg::Kind::Buffer:
        if (bits != 64 || ptx::is_float(s.type))
          fail("a buffer is passed to a non-pointer parameter");
        if (a.buffer >= memory.buffers.size()) fail("no such buffer");
        v = GlobalMemory::base_address(a.buffer);
        break;
      case Arg::Kind::Int:
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
      case Arg::Kind::Float:
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

std::uint32_t Impl::const_row(std::uint64_t bits) {
  const std::size_t rows = consts.size() / lanes;
  for (std::size_t r = 0; r < rows; ++r)
    if (consts[r * lanes] == bits) return local_rows + static_cast<std::uint32_t>(r);
  consts.insert(consts.end(), lanes, bits);
  return local_rows + static_cast<std::uint32_t>(rows);
}

void Impl::predecode() {
  const std::vector<std::uint32_t> reconv = reconvergence_points(kernel);
  xcode.resize(kernel.code.size());
  auto reg_mask = [&](std::uint32_t reg) {
    return width_mask(std::max(ptx::type_bits(kernel.regs[reg].type), 1));
  };
  for (std::size_t pc = 0; pc < kernel.code.size(); ++pc) {
    const ptx::Instruction& ins = kernel.code[pc];
    XInst& x = xcode[pc];
    auto unsupported = [&](const std::string& what) {
      throw InputError(located(module.filename, ins.ptx_line,
                               fmt::format("the executor does not support {} ('{}')", what,
                                           ptx::to_string(kernel, ins))));
    };
    if (ins.type == Type::F16 || ins.type2 == Type::F16) unsupported("f16");
    if (ins.op == Opcode::Bar && ins.has(ptx::kArrive)) unsupported("bar.arrive");
    if (ins.op == Opcode::St && ins.space == Space::Param) unsupported("st.param");
    x.bits = static_cast<std::uint8_t>(ptx::type_bits(ins.type));
    x.bits2 = static_cast<std::uint8_t>(ptx::type_bits(ins.type2));
    x.bytes = static_cast<std::uint8_t>(ptx::type_bytes(ins.type));
    if (ins.guard != ptx::kNone) {
      x.guard = ins.guard;
      x.guard_neg = ins.guard_negated ? 1 : 0;
    }
    const std::size_t nops = ins.has(ptx::kSetpQ) ? 5 : ins.num_ops;
    for (std::size_t i = 0; i < nops; ++i) {
      const ptx::Operand& o = ins.ops[i];
      const Type t = operand_type(ins, i);
      switch (o.kind) {
        case OperandKind::None:
          break;
        case OperandKind::Reg:
          x.slot[i] = o.reg;
          x.neg[i] = o.negate ? 1 : 0;
          break;
        case OperandKind::ImmInt:
        case OperandKind::ImmFloat:
          x.slot[i] = const_row(imm_bits(o, t));
          break;
        case OperandKind::Special:
          x.slot[i] = nregs + static_cast<std::uint32_t>(o.special);
          if (o.special == ptx::Special::Clock || o.special == ptx::Special::Clock64)
            x.reads_clock = true;
          break;
        case OperandKind::Symbol:
          x.slot[i] = const_row(symbol_address(o.sym) + static_cast<std::uint64_t>(o.imm));
          break;
        case OperandKind::Memory:
          if (o.reg != ptx::kNone) {
            x.mem_slot = o.reg;
            x.mem_base_mask = reg_mask(o.reg);
            x.mem_off = o.imm;
          } else if (o.sym != ptx::kNone) {
            x.mem_off = static_cast<std::int64_t>(symbol_address(o.sym)) + o.imm;
          } else {
            x.mem_off = o.imm;
          }
          break;
        case OperandKind::Vector:
          for (int k = 0; k < o.count; ++k) x.vslot[k] = o.vec[k];
          break;
        case OperandKind::Label:
          x.target = o.target;
          break;
      }
    }
    if (ins.op == Opcode::Bra) x.reconv = reconv[pc];
    if (ins.num_ops > 0 && ins.ops[0].kind == OperandKind::Reg)
      x.dst_mask = reg_mask(ins.ops[0].reg);
    if (ins.num_ops > 0 && ins.ops[0].kind == OperandKind::Vector)
      x.dst_mask = reg_mask(ins.ops[0].vec[0]);
  }
}

std::string Impl::who(const Cta& cta, const Warp& w, int lane) const {
  const std::uint32_t t = w.index * lanes + static_cast<std::uint32_t>(lane);
  const Dim3& b = launch.block;
  return fmt::format("thread ({},{},{}) of block ({},{},{})", t % b.x, (t / b.x) % b.y,
                     t / (b.x * b.y), cta.id.x, cta.id.y, cta.id.z);
}

void Impl::fail(const Cta& cta, const Warp& w, int lane, std::uint32_t pc,
                const std::string& what) const {
  const ptx::Instruction& ins = kernel.code[pc];
  const std::string cu = cuda_location(module, ins);
  throw InputError(located(
      module.filename, ins.ptx_line,
      fmt::format("{} by {}{} in `{}`", what, who(cta, w, lane),
                  cu.empty() ? "" : fmt::format(" ({})", cu), ptx::to_string(kernel, ins))));
}

namespace {

// Pops finished entries: an empty mask, or a path that reached its reconvergence point.
inline void normalize(Warp& w) {
  while (!w.stack.empty()) {
    const StackEntry& t = w.stack.back();
    if (t.mask != 0 && t.pc != t.rpc) return;
    w.stack.pop_back();
  }
}

void release_if_complete(Cta& cta) {
  if (cta.arrived == 0 || cta.arrived < cta.live_warps) return;
  for (Warp& w : cta.warps)
    if (w.state == WarpState::AtBarrier) w.state = WarpState::Ready;
  cta.arrived = 0;
}

}  // namespace

void Impl::warp_done(Cta& cta, Warp& w) {
  w.state = WarpState::Done;
  --cta.live_warps;
  release_if_complete(cta);
}

IssueResult Impl::issue(Cta& cta, Warp& w) {
  IssueResult r;
  StackEntry& top = w.stack.back();
  const std::uint32_t pc = top.pc;
  const LaneMask active = top.mask;
  ++stats.warp_instructions;
  stats.thread_instructions += static_cast<std::uint64_t>(std::popcount(active));
  ++clock;
  r.index = pc;
  r.active = active;
  if (pc >= kernel.code.size()) {  // fell off the end (a branch to a final label): exit
    for (StackEntry& e : w.stack) e.mask &= ~active;
    w.live &= ~active;
    normalize(w);
    if (w.stack.empty()) warp_done(cta, w);
    r.op = Opcode::Exit;
    r.state = w.state;
    return r;
  }
  const ptx::Instruction& ins = kernel.code[pc];
  const XInst& x = xcode[pc];
  LaneMask exec = active;
  if (x.guard != kNoSlot) {
    const std::uint64_t* p = row(w, x.guard);
    exec = 0;
    each_lane(active, [&](int l) {
      if ((p[l] ^ x.guard_neg) & 1) exec |= LaneMask{1} << l;
    });
  }
  r.op = ins.op;
  r.executed = exec;
  if (x.reads_clock) {
    std::uint64_t* c32 = w.regs + std::size_t(nregs + std::uint32_t(ptx::Special::Clock)) * lanes;
    std::uint64_t* c64 = w.regs + std::size_t(nregs + std::uint32_t(ptx::Special::Clock64)) * lanes;
    for (std::uint32_t l = 0; l < lanes; ++l) {
      c32[l] = clock & 0xffffffffu;
      c64[l] = clock;
    }
  }
  switch (ins.op) {
    case Opcode::Bra: {
      const LaneMask not_taken = active & ~exec;
      if (!not_taken) {
        top.pc = x.target;
      } else if (!exec) {
        top.pc = pc + 1;
      } else {
        const std::uint32_t rpc = x.reconv;
        top.pc = rpc;  // `top` becomes the reconvergence entry
        w.stack.push_back({pc + 1, rpc, not_taken});
        w.stack.push_back({x.target, rpc, exec});  // the taken path runs first
      }
      normalize(w);
      break;
    }
    case Opcode::Ret:
    case Opcode::Exit: {
      for (StackEntry& e : w.stack) e.mask &= ~exec;
      w.live &= ~exec;
      if (w.stack.back().mask) ++w.stack.back().pc;
      normalize(w);
      break;
    }
    case Opcode::Bar: {
      ++top.pc;
      normalize(w);
      if (exec && !w.stack.empty()) {
        w.state = WarpState::AtBarrier;
        ++cta.arrived;
        release_if_complete(cta);
      }
      break;
    }
    case Opcode::Ld:
    case Opcode::St:
    case Opcode::Atom:
    case Opcode::Red: {
      const std::uint64_t before = stats.shared_accesses;
      if (exec) exec_memory(*this, cta, w, pc, exec);
      r.shared_accesses = static_cast<std::uint8_t>(stats.shared_accesses - before);
      ++w.stack.back().pc;
      normalize(w);
      break;
    }
    case Opcode::Membar:
      ++top.pc;
      normalize(w);
      break;
    case Opcode::Cvta:
      if (exec) exec_cvta(*this, w, ins, x, exec);
      ++top.pc;
      normalize(w);
      break;
    default:
      if (exec) exec_alu(*this, w, ins, x, exec);
      ++top.pc;
      normalize(w);
      break;
  }
  if (w.stack.empty() && w.state != WarpState::Done) warp_done(cta, w);
  r.state = w.state;
  return r;
}

// ---------------------------------------------------------------------------------------------

Executor::Executor(const ptx::Module& module, const ptx::Kernel& kernel, const Arch& arch,
                   const Launch& launch, GlobalMemory& memory, std::uint32_t slots)
    : impl_(std::make_unique<Impl>(module, kernel, arch, launch, memory)) {
  impl_->ctas.resize(std::max(1u, slots));
}

Executor::~Executor() = default;

void Executor::set_consumer(AccessConsumer* consumer) {
  impl_->consumer = consumer;
}
std::uint64_t Executor::cta_count() const {
  return impl_->launch.grid.count();
}
std::uint32_t Executor::warps_per_cta() const {
  return impl_->warps;
}
std::uint32_t Executor::slots() const {
  return static_cast<std::uint32_t>(impl_->ctas.size());
}
const SharedLayout& Executor::shared_layout() const {
  return impl_->shared;
}
const ExecStats& Executor::stats() const {
  return impl_->stats;
}

void Executor::start_cta(std::uint32_t slot, std::uint64_t linear) {
  Impl& im = *impl_;
  Cta& cta = im.ctas.at(slot);
  const Dim3& g = im.launch.grid;
  const Dim3& b = im.launch.block;
  if (linear >= g.count()) throw std::out_of_range("start_cta: no such CTA");
  cta.linear = linear;
  cta.id = {static_cast<std::uint32_t>(linear % g.x),
            static_cast<std::uint32_t>((linear / g.x) % g.y),
            static_cast<std::uint32_t>(linear / (std::uint64_t(g.x) * g.y))};
  const std::size_t per_warp = std::size_t(im.local_rows) * im.lanes;
  cta.regs.assign(per_warp * im.warps, 0);
  cta.shared.assign(im.shared.total_bytes, 0);
  cta.local.assign(im.local_bytes * im.threads, 0);
  cta.warps.resize(im.warps);
  cta.live_warps = im.warps;
  cta.arrived = 0;
  ++im.stats.ctas;
  for (std::uint32_t wi = 0; wi < im.warps; ++wi) {
    Warp& w = cta.warps[wi];
    w.index = wi;
    w.regs = cta.regs.data() + per_warp * wi;
    const std::uint32_t first = wi * im.lanes;
    const std::uint32_t n = std::min(im.lanes, im.threads - first);
    w.live = lanes_mask(static_cast<int>(n));
    w.state = WarpState::Ready;
    w.stack.clear();
    w.stack.reserve(16);
    w.stack.push_back({0, kNoSlot, w.live});
    std::uint64_t* sp = w.regs + std::size_t(im.nregs) * im.lanes;
    auto set = [&](ptx::Special s, std::uint32_t l, std::uint64_t v) {
      sp[std::size_t(s) * im.lanes + l] = v;
    };
    using S = ptx::Special;
    for (std::uint32_t l = 0; l < im.lanes; ++l) {
      const std::uint32_t t = first + l;
      set(S::TidX, l, t % b.x);
      set(S::TidY, l, (t / b.x) % b.y);
      set(S::TidZ, l, t / (b.x * b.y));
      set(S::NtidX, l, b.x);
      set(S::NtidY, l, b.y);
      set(S::NtidZ, l, b.z);
      set(S::CtaidX, l, cta.id.x);
      set(S::CtaidY, l, cta.id.y);
      set(S::CtaidZ, l, cta.id.z);
      set(S::NctaidX, l, g.x);
      set(S::NctaidY, l, g.y);
      set(S::NctaidZ, l, g.z);
      set(S::LaneId, l, l);
      set(S::WarpId, l, wi);
      set(S::NwarpId, l, im.warps);
      set(S::SmId, l, slot);
    }
  }
}

WarpState Executor::state(std::uint32_t slot, std::uint32_t warp) const {
  return impl_->ctas.at(slot).warps.at(warp).state;
}

bool Executor::cta_done(std::uint32_t slot) const {
  return impl_->ctas.at(slot).live_warps == 0;
}

std::uint32_t Executor::next_index(std::uint32_t slot, std::uint32_t warp) const {
  const Warp& w = impl_->ctas.at(slot).warps.at(warp);
  return w.stack.empty() ? static_cast<std::uint32_t>(impl_->kernel.code.size())
                         : w.stack.back().pc;
}

IssueResult Executor::issue(std::uint32_t slot, std::uint32_t warp) {
  Cta& cta = impl_->ctas.at(slot);
  Warp& w = cta.warps.at(warp);
  if (w.state != WarpState::Ready) throw std::logic_error("issue: the warp is not ready");
  return impl_->issue(cta, w);
}

void Executor::run() {
  Impl& im = *impl_;
  const std::uint64_t n = im.launch.grid.count();
  for (std::uint64_t c = 0; c < n; ++c) {
    start_cta(0, c);
    Cta& cta = im.ctas[0];
    while (cta.live_warps) {
      bool progressed = false;
      // Warps in index order, each until it arrives at a barrier or finishes: every barrier phase
      // runs its warps in index order.
      for (Warp& w : cta.warps) {
        while (w.state == WarpState::Ready) {
          progressed = true;
          if (im.issue(cta, w).op == Opcode::Bar) break;
        }
      }
      if (!progressed) throw std::logic_error("executor: no warp can progress");
    }
  }
}

}  // namespace smemsim::exec
