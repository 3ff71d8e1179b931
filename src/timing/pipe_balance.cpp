// sm.lower's balance (issue 42): ptxas runs some integer adds, moves and shifts on the FMA pipe
// as IMAD forms (IMAD.IADD, VIADD, IMAD.MOV.U32, IMAD.SHL.U32) so that the ALU pipe, with half
// the FMA pipe's lanes on Volta-Hopper, does not bound a block the FMA pipe could share. ptxas
// 13.0's sm_90 SASS shows it (calibration/runs/h200-2026-11-28/sass.tar.gz): rep_l1_bw_64v's
// loop issues 50 of its 118 integer and float ops a trip as ALU ops (IADD3, LOP3, ISETP) and 18
// integer ops on the FMA pipe (VIADD, IMAD.X, IMAD.SHL) beside its 32 FADDs; mem_read_ca's loop
// moves its index copies to IMAD.MOV.U32 and its increment to VIADD.
#include "lower/lower.hpp"
#include "smemsim/arch.hpp"
#include "timing/inst_info.hpp"

#include <algorithm>

namespace smemsim::timing {
namespace {

using ptx::Opcode;
using ptx::OperandKind;

// An op the FMA pipe can run as an IMAD form: a 32-bit integer add or sub (no carry, no
// saturation: IMAD.IADD, VIADD), a move of a register or an immediate (IMAD.MOV.U32), a shift
// left by an immediate (IMAD.SHL.U32: a multiply by a power of two).
bool imad_form(const ptx::Instruction& ins) {
  const bool int32 =
      !ptx::is_float(ins.type) && ptx::type_bits(ins.type) > 1 && ptx::type_bits(ins.type) <= 32;
  if (!int32 || ins.num_ops < 2) return false;
  switch (ins.op) {
    case Opcode::Add:
    case Opcode::Sub:
      return !ins.has(ptx::kCc) && !ins.has(ptx::kCarryIn) && !ins.has(ptx::kSat);
    case Opcode::Mov:
      return ins.ops[1].kind == OperandKind::Reg || ins.ops[1].kind == OperandKind::ImmInt;
    case Opcode::Shl:
      return ins.num_ops >= 3 && ins.ops[2].kind == OperandKind::ImmInt;
    default:
      return false;
  }
}

}  // namespace

void balance_pipes(const ptx::Kernel& kernel, std::vector<InstInfo>& info,
                   const std::vector<std::uint32_t>& absorbed, const SmConfig& sm) {
  if (!sm.lat_fma || !sm.lanes_alu || !sm.lanes_fma) return;  // no FMA pipe of its own
  const std::size_t n = std::min(info.size(), kernel.code.size());
  const auto took_in = [&] {  // instructions others issue with: LEA, IADD3, LOP3 and such
    std::vector<std::uint8_t> t(n, 0);
    for (std::size_t i = 0; i < absorbed.size() && i < n; ++i)
      if (absorbed[i] != ptx::kNone && absorbed[i] < n) t[absorbed[i]] = 1;
    return t;
  }();
  const auto issues = [&](std::size_t i) {
    return (i >= absorbed.size() || absorbed[i] == ptx::kNone) && info[i].expand == Expand::None;
  };
  // The cycles a warp op holds its pipe, sm.simd_width threads over the pipe's lanes.
  const double w = sm.simd_width;
  const double alu = w / sm.lanes_alu, fma = w / sm.lanes_fma;
  const double imad = w / (sm.lanes_imad ? sm.lanes_imad : sm.lanes_fma);
  const std::vector<std::uint32_t> block = lower::blocks(kernel);
  std::size_t first = 0;
  while (first < n) {
    std::size_t end = first + 1;
    while (end < n && block[end] == block[first]) ++end;
    double a = 0, f = 0;  // the block's ALU and FMA pipe cycles
    for (std::size_t i = first; i < end; ++i) {
      if (!issues(i) || info[i].space != Space::None) continue;  // memory ops: the MIO's
      const Unit u = info[i].unit;
      if (u == Unit::Alu) a += alu;
      if (u == Unit::Fma || u == Unit::Fp16) f += fma;
      if (u == Unit::Imad) f += info[i].int_mul ? imad : fma;
    }
    // In program order, an op moves to the FMA pipe while that lowers the busier pipe's cycles.
    for (std::size_t i = first; i < end && a > f; ++i) {
      if (!issues(i) || took_in[i] || info[i].unit != Unit::Alu || info[i].space != Space::None ||
          !imad_form(kernel.code[i]))
        continue;
      if (std::max(a - alu, f + imad) >= std::max(a, f)) break;
      info[i].unit = Unit::Imad;
      info[i].int_mul = true;
      a -= alu;
      f += imad;
    }
    first = end;
  }
}

}  // namespace smemsim::timing
