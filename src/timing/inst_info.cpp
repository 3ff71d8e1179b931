// Decodes each instruction's unit, memory space and register sets for the timing model.
#include "timing/inst_info.hpp"

#include "timing/expand.hpp"

namespace smemsim::timing {
namespace {

using ptx::Opcode;
using ptx::OperandKind;

Unit unit_of(const ptx::Instruction& ins) {
  switch (ins.op) {
    case Opcode::Bra:
    case Opcode::Ret:
    case Opcode::Exit:
    case Opcode::Call:  // a device function call: the warp's next pc is the function's entry
    // TX.Begin and TX.Commit are scalar instructions (seed 003 §4.2) that may send the warp back
    // to TX.Begin or stall it there: control flow.
    case Opcode::TxBegin:
    case Opcode::TxCommit:
      return Unit::Branch;
    // Transcendentals, reciprocal, square root and division run on the special-function unit
    // (integer division and remainder are long instruction sequences on NVIDIA GPUs: SFU too).
    case Opcode::Rcp:
    case Opcode::Sqrt:
    case Opcode::Rsqrt:
    case Opcode::Sin:
    case Opcode::Cos:
    case Opcode::Ex2:
    case Opcode::Lg2:
    case Opcode::Div:
    case Opcode::Rem:
      return Unit::Sfu;
    case Opcode::Mma:
    case Opcode::WmmaMma:
      return Unit::Tensor;
    // A conversion to or from f64 (F2F.F64.F32, F2F.F32.F64, I2F.F64, F2I.F64): the CUDA C++
    // Programming Guide's throughput table gives "type conversions from and to 64-bit types" 16
    // a cycle an SM on compute capability 7.0, 8.0 and 9.0, the MUFU's rate: the SFU's lanes. An
    // H200 runs cvt.rn.f32.f64 then cvt.f64.f32 on its own result in 36.48 cycles (17 a
    // MUFU.SQRT): its own latency, sm.lat_cvt64 (calibration/runs/h200-2026-11-28).
    case Opcode::Cvt:
      if (ins.type == ptx::Type::F64 || ins.type2 == ptx::Type::F64) return Unit::Cvt64;
      break;
    default:
      break;
  }
  // The math pipes of Volta-Hopper (NVIDIA's description of GV100's pipes: FP32 and IMAD on the
  // FMA pipe; integer add, logic, compare and moves on the ALU pipe; FP64 on its own).
  switch (ins.op) {
    case Opcode::Add:
    case Opcode::Sub:
    case Opcode::Mul:
    case Opcode::Mad:
    case Opcode::Fma:
    case Opcode::Min:
    case Opcode::Max:
      if (ins.type == ptx::Type::F64) return Unit::Fp64;
      if (ins.type == ptx::Type::F16 || ins.type == ptx::Type::F16X2 ||
          ins.type == ptx::Type::BF16 || ins.type == ptx::Type::BF16X2)
        return Unit::Fp16;
      if (ptx::is_float(ins.type)) return Unit::Fma;
      // Integer multiply(-add): IMAD runs on the FMA pipe.
      return ins.op == Opcode::Mul || ins.op == Opcode::Mad ? Unit::Fma : Unit::Alu;
    default:
      return Unit::Alu;
  }
}

// Dense-FP16 multiply-adds of an mma (sm.tensor_fmas): m*n*k at the A operand's relative rate
// (NVIDIA A100 whitepaper, Table 1's dense peaks against FP16's 312 TFLOPS: TF32 1/2, FP64 1/16,
// INT8 2x, INT4 4x, binary 16x; the H100 whitepaper's FP8 2x). f16 m8n8k4 is four 8x8x4
// products, one per quad-pair.
// wgmma's m64nNkK (issue 46) takes the same type ratios; N is 8 x Instruction::vec.
std::uint32_t tensor_work_of(const ptx::Instruction& ins) {
  const ptx::MmaDims d = ptx::mma_shape_dims(ins.shape);
  std::uint32_t mnk = std::uint32_t(d.m * (ins.op == Opcode::Wgmma ? 8 * int(ins.vec) : d.n) * d.k);
  if (ins.shape == ptx::MmaShape::M8N8K4 && ins.type2 == ptx::Type::F16) mnk *= 4;
  switch (ins.type2) {
    case ptx::Type::TF32:
      return mnk * 2;
    case ptx::Type::F64:
      return mnk * 16;
    case ptx::Type::S8:
    case ptx::Type::U8:
    case ptx::Type::E4M3:  // H100 whitepaper: FP8 at twice FP16's dense rate
    case ptx::Type::E5M2:
      return mnk / 2;
    case ptx::Type::S4:
    case ptx::Type::U4:
      return mnk / 4;
    case ptx::Type::B1:
      return mnk / 16;
    default:
      return mnk;
  }
}

Space space_of(const ptx::Instruction& ins) {
  switch (ins.op) {
    case Opcode::Tex:  // a texture fetch reads global memory (texels) like a load
    case Opcode::Tld4:
      return Space::Global;
    // Tensor-core traffic (issue 16): ldmatrix/stmatrix/wmma on shared memory; cp.async is timed
    // as its global read (its shared-memory write, made as the data arrives, is off the issue
    // path and not timed; profile counts its bank conflicts).
    case Opcode::Ldmatrix:
    case Opcode::Stmatrix:
      return Space::Shared;
    case Opcode::CpAsync:
      return Space::Global;
    // A bulk copy (issue 46) is timed as its global traffic, made by the issuing warp; its
    // groups, waits and prefetches as ALU instructions.
    case Opcode::CpBulk:
      switch (ptx::BulkOp(ins.comp)) {
        case ptx::BulkOp::Load:
        case ptx::BulkOp::Store:
        case ptx::BulkOp::TensorLoad:
        case ptx::BulkOp::TensorStore:
        case ptx::BulkOp::Reduce:  // timed as a store of its sectors
        case ptx::BulkOp::TensorReduce:
          return Space::Global;
        case ptx::BulkOp::Peer:  // the SM-to-SM network (IssueResult::dsm_segments)
        case ptx::BulkOp::PeerReduce:
        case ptx::BulkOp::StAsync:
        case ptx::BulkOp::RedAsync:
          return Space::Shared;
        default:
          return Space::None;
      }
    case Opcode::WmmaLoad:
    case Opcode::WmmaStore:
      return ins.space == ptx::Space::Shared   ? Space::Shared
             : ins.space == ptx::Space::Global ? Space::Global
                                               : Space::Generic;
    case Opcode::Ld:
    case Opcode::St:
    case Opcode::Atom:
    case Opcode::Red:
      break;
    case Opcode::Mbarrier:  // the object in shared memory (pending_count reads a register)
      if (ptx::MbarOp(ins.comp) == ptx::MbarOp::PendingCount) return Space::None;
      break;
    default:
      return Space::None;
  }
  switch (ins.space) {
    case ptx::Space::Shared:
      return Space::Shared;
    case ptx::Space::Global:
    case ptx::Space::Local:
      return Space::Global;
    case ptx::Space::Param:
    case ptx::Space::Const:
      return Space::Const;
    default:
      return Space::Generic;
  }
}

struct Sets {
  InstInfo& info;
  const ptx::Kernel& kernel;
  void src(std::uint32_t r) {
    if (r != ptx::kNone && info.nsrc < info.src.size()) info.src[info.nsrc++] = r;
  }
  void dst(std::uint32_t r) {
    if (r != ptx::kNone && info.ndst < info.dst.size()) info.dst[info.ndst++] = r;
  }
  // Registers an operand reads (a memory operand's base, a vector's registers as sources).
  void read(const ptx::Operand& o) {
    switch (o.kind) {
      case OperandKind::Reg:
      case OperandKind::Memory:
        src(o.reg);
        break;
      case OperandKind::Vector:
        for (int k = 0; k < o.count; ++k)
          if (!ptx::is_vec_imm(kernel.vec(o, k))) src(kernel.vec(o, k));
        break;
      default:
        break;
    }
  }
  void write(const ptx::Operand& o) {
    if (o.kind == OperandKind::Reg) dst(o.reg);
    if (o.kind == OperandKind::Vector)
      for (int k = 0; k < o.count; ++k) dst(kernel.vec(o, k));
  }
};

// Operand 0 is the destination of every opcode except these (ptx.hpp's operand layouts).
bool writes_op0(const ptx::Instruction& ins) {
  if (ins.op == Opcode::Bar) return ins.has(ptx::kBarRed);  // bar.red's d
  switch (ins.op) {
    case Opcode::St:
    case Opcode::Red:
    case Opcode::Bra:
    case Opcode::Membar:
    case Opcode::Ret:
    case Opcode::Exit:
    case Opcode::TxBegin:
    case Opcode::TxCommit:
    case Opcode::BarWarp:
    case Opcode::Stmatrix:
    case Opcode::WmmaStore:
    case Opcode::CpAsync:
    case Opcode::CpAsyncCommit:
    case Opcode::CpAsyncWait:
    case Opcode::Nanosleep:
    case Opcode::CpBulk:
      return false;
    case Opcode::Mbarrier:  // init, inval, cp.async's arrive, expect_tx, complete_tx: an address;
                            // arrive may write `_`
      return ptx::MbarOp(ins.comp) != ptx::MbarOp::Init &&
             ptx::MbarOp(ins.comp) != ptx::MbarOp::Inval &&
             ptx::MbarOp(ins.comp) != ptx::MbarOp::CpAsyncArrive &&
             ptx::MbarOp(ins.comp) != ptx::MbarOp::ExpectTx &&
             ptx::MbarOp(ins.comp) != ptx::MbarOp::CompleteTx;
    default:
      return true;
  }
}

}  // namespace

std::vector<InstInfo> decode_kernel(const ptx::Kernel& kernel) {
  std::vector<InstInfo> out(kernel.code.size());
  for (std::size_t i = 0; i < kernel.code.size(); ++i) {
    const ptx::Instruction& ins = kernel.code[i];
    InstInfo& info = out[i];
    info.unit = unit_of(ins);
    if (info.unit == Unit::Tensor) {
      info.tensor_work = tensor_work_of(ins);
      info.tensor_acc16 = ins.type3 == ptx::Type::F16;
    }
    info.int_mul = info.unit == Unit::Fma && !ptx::is_float(ins.type);
    if (info.int_mul) info.unit = Unit::Imad;
    info.space = space_of(ins);
    // printf (issue 45): a global write of its arguments to the runtime's buffer, as the GPU's
    // vprintf makes it (the executor counts its sectors).
    const bool is_printf =
        ins.op == Opcode::Call && std::size_t(ins.ops[0].imm()) < kernel.calls.size() &&
        kernel.calls[std::size_t(ins.ops[0].imm())].builtin == ptx::Builtin::Printf;
    if (is_printf) {
      info.unit = Unit::Global;
      info.space = Space::Global;
    }
    // An mbarrier's init and arrivals update the object in place, as atomics do.
    info.atomic = ins.op == Opcode::Atom || ins.op == Opcode::Red ||
                  (ins.op == Opcode::Mbarrier && ptx::MbarOp(ins.comp) != ptx::MbarOp::TestWait &&
                   ptx::MbarOp(ins.comp) != ptx::MbarOp::TryWait &&
                   ptx::MbarOp(ins.comp) != ptx::MbarOp::PendingCount);
    info.store = ins.op == Opcode::St || ins.op == Opcode::Stmatrix ||
                 ins.op == Opcode::WmmaStore || ins.op == Opcode::CpAsync || is_printf ||
                 (ins.op == Opcode::CpBulk && ptx::BulkOp(ins.comp) != ptx::BulkOp::Load &&
                  ptx::BulkOp(ins.comp) != ptx::BulkOp::TensorLoad);
    info.async_copy = ins.op == Opcode::CpAsync;
    info.async_commit =
        ins.op == Opcode::CpAsyncCommit || (ins.op == Opcode::CpAsyncWait && ins.has(ptx::kUni));
    info.async_wait = ins.op == Opcode::CpAsyncWait;
    if (info.async_wait) info.async_keep = static_cast<std::uint32_t>(ins.ops[0].imm());
    info.barrier = ins.op == Opcode::Bar && !ins.has(ptx::kArrive);
    info.arrive = ins.op == Opcode::Bar && ins.has(ptx::kArrive);
    // A `ret` of a device function linked into the kernel returns to its caller.
    bool in_function = false;
    for (const ptx::LinkedFunction& f : kernel.functions) in_function |= i >= f.entry && i < f.end;
    info.exit = ins.op == Opcode::Exit || (ins.op == Opcode::Ret && !in_function);
    if (ins.op == Opcode::Wgmma) {
      // Issue 46: an mma_async is its shared reads (the MIO path, as a load's) and then its
      // tensor work (Sm::wgmma_done); it joins the warp's open wgmma group, which commit_group
      // closes and wait_group N waits for. Its accumulators are no scoreboard's: the PTX ISA
      // leaves them undefined until a wait covers the product. The fence issues as an ALU op.
      const auto kind = ptx::WgmmaOp(ins.comp & ptx::kWgmmaOpMask);
      info.async_kind = 1;
      info.wgmma = kind == ptx::WgmmaOp::Mma;
      info.async_commit = kind == ptx::WgmmaOp::Commit;
      info.async_wait = kind == ptx::WgmmaOp::Wait;
      info.wgmma_fence = kind == ptx::WgmmaOp::Fence;
      if (info.async_wait) info.async_keep = static_cast<std::uint32_t>(ins.ops[0].imm());
      Sets sets{info, kernel};
      if (ins.guard != ptx::kNone) sets.src(ins.guard);
      if (info.wgmma) {
        info.unit = Unit::SharedLd;
        info.space = Space::Shared;
        info.tensor_work = tensor_work_of(ins);
        for (std::size_t k = 1; k < 4; ++k) sets.read(ins.ops[k]);
      }
      continue;
    }
    Sets sets{info, kernel};
    if (ins.guard != ptx::kNone) sets.src(ins.guard);
    info.guard = ins.guard;
    const bool w0 = writes_op0(ins);
    // setp's q (ops[4]) and shfl's / match.all's p (ops[5]) follow the counted operands.
    const std::size_t nops = ins.has(ptx::kPredOut) ? 6 : ins.has(ptx::kSetpQ) ? 5 : ins.num_ops;
    for (std::size_t k = 0; k < nops; ++k) {
      const ptx::Operand& o = ins.ops[k];
      if (k >= ins.num_ops && k != 4 && k != 5) continue;
      const bool is_dst =
          (k == 0 && w0) || (k == 4 && ins.has(ptx::kSetpQ)) || (k == 5 && ins.has(ptx::kPredOut));
      if (is_dst)
        sets.write(o);
      else
        sets.read(o);
    }
    for (std::uint8_t k = 0; k < info.ndst; ++k)
      info.writes_pred |= kernel.regs[info.dst[k]].type == ptx::Type::Pred;
  }
  return out;
}

}  // namespace smemsim::timing
