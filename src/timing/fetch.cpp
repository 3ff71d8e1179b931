// Which constant-cache line each instruction reads (fetch.hpp).
#include "timing/fetch.hpp"

#include <algorithm>

namespace smemsim::timing {

namespace {

std::uint64_t fetch_align(const ptx::Symbol& s) {
  return s.align ? s.align : std::uint64_t(ptx::type_bytes(s.type));
}

std::uint64_t fetch_align_up(std::uint64_t v, std::uint64_t a) {
  return a <= 1 ? v : (v + a - 1) / a * a;
}

}  // namespace

std::vector<std::uint32_t> constant_lines(const ptx::Kernel& k, std::uint32_t& lines) {
  // Byte offsets: line 0 holds the launch's dimensions (%ntid, %nctaid: the SASS reads them from
  // the constant bank that holds the parameters, c[0x0][0x0] on sm_75-sm_90), then the parameters
  // in order, as the launch lays them out (exec/prepare.cpp), then the .const variables in the
  // order declared, each part from a line of its own.
  std::vector<std::uint64_t> at(k.symbols.size(), ~std::uint64_t{0});
  std::uint64_t off = kConstLineBytes;
  for (const std::uint32_t p : k.params) {
    off = fetch_align_up(off, fetch_align(k.symbols[p]));
    at[p] = off;
    off += k.symbols[p].size_bytes();
  }
  // The constant bank starts on a line of its own.
  off = fetch_align_up(off, kConstLineBytes);
  for (std::size_t s = 0; s < k.symbols.size(); ++s) {
    const ptx::Symbol& sym = k.symbols[s];
    if (sym.space != ptx::Space::Const || sym.kind != ptx::SymbolKind::Variable) continue;
    off = fetch_align_up(off, fetch_align(sym));
    at[s] = off;
    off += sym.size_bytes();
  }
  lines = std::uint32_t(std::min<std::uint64_t>((off + kConstLineBytes - 1) / kConstLineBytes,
                                                std::uint64_t{1} << 24));
  std::vector<std::uint32_t> out(k.code.size(), ptx::kNone);
  for (std::size_t i = 0; i < k.code.size(); ++i) {
    const ptx::Instruction& ins = k.code[i];
    for (std::size_t o = 0; o < ins.num_ops; ++o) {
      const ptx::Operand& x = ins.ops[o];
      if (x.kind == ptx::OperandKind::Special &&
          ((x.special >= ptx::Special::NtidX && x.special <= ptx::Special::NtidZ) ||
           (x.special >= ptx::Special::NctaidX && x.special <= ptx::Special::NctaidZ)))
        out[i] = 0;
    }
    if (ins.op != ptx::Opcode::Ld || ins.num_ops < 2) continue;
    if (ins.space != ptx::Space::Param && ins.space != ptx::Space::Const) continue;
    const ptx::Operand& m = ins.ops[1];
    if (m.kind != ptx::OperandKind::Memory || m.reg != ptx::kNone || m.sym >= at.size() ||
        at[m.sym] == ~std::uint64_t{0} || m.imm() < 0)
      continue;
    const std::uint64_t line = (at[m.sym] + std::uint64_t(m.imm())) / kConstLineBytes;
    if (line < lines) out[i] = std::uint32_t(line);
  }
  return out;
}

}  // namespace smemsim::timing
