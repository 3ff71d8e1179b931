// A candidate layout applied to the kernel as code (issue 43): the PTX rewritten the way the CUDA
// that `fix --emit cuda` prints compiles, so that the candidate's cycles include its own index
// arithmetic. The remap of exec::SharedRemap (the executor relaying out addresses) only estimates
// them.
//
// Padding by a row stride: where every address of the array is base + (row terms) + (column terms)
// + constant, and each row term is a multiply (shl, mul, mad) by a constant whose coefficient is a
// multiple of the row's bytes, the constant becomes the padded row's (a declaration T a[R][W + P]
// compiles to exactly that: the same instructions, another stride), the immediate offsets move by
// whole rows and the array's declaration grows. Otherwise, and for a swizzle, the index function
// of the emitted CUDA is inserted once per address (after its definition, or before the access when
// the register is redefined): the offset from the array's base, then i + (i / row) * pad, or i ^
// ((i >> shift) & mask), on the grain index.
#pragma once

#include <string>
#include <vector>

#include "smemsim/exec.hpp"
#include "smemsim/ptx.hpp"

namespace smemsim::fix::detail {

struct Applied {
  std::string refused;  // why the candidate could not be written as code ("" when it was)
  std::string form;    // "row stride 132 bytes (2 multipliers changed)", "3 instructions an access"
  ptx::Module module;  // the module with the kernel rewritten
  std::uint32_t changed = 0;  // instructions whose constant changed
};

// `lines`: the PTX lines of the shared instructions that accessed the array in the baseline run.
// `offset`: the array's byte offset in the kernel's shared layout (exec::SharedLayout).
Applied apply_remap(const ptx::Module& module, const std::string& kernel,
                    const exec::SharedLayout::Array& array, const std::vector<std::uint32_t>& lines,
                    const exec::SharedRemap& remap);

// ---- Shared by fix_apply.cpp (the inserted form) and fix_apply_stride.cpp (the stride form).

// Per register: its definitions (a guarded one counts twice: the old value may survive), the last
// defining instruction, and the instructions that read it (timing::reg_uses, the cycle model's
// own reading of each instruction's operands).
struct RegisterFlow {
  std::vector<std::uint32_t> ndef, def;
  std::vector<std::vector<std::uint32_t>> uses;
};
RegisterFlow register_flow(const ptx::Kernel& kernel);
int memory_operand(const ptx::Instruction& in);  // the memory operand's index, -1 if none
bool wide(ptx::Type t);                          // a 64-bit integer type
ptx::Operand imm_op(std::int64_t v);
// The array's symbol resized to `bytes`; "" or why it cannot be.
std::string grow_symbol(ptx::Kernel& k, std::uint32_t sym, std::uint32_t bytes);
// The padding as a row stride; "" when written, else why not (kernel `k` is then unusable).
std::string pad_by_stride(ptx::Kernel& k, const std::vector<std::uint32_t>& acc,
                          const exec::SharedLayout::Array& a, const exec::SharedRemap& r,
                          std::uint32_t sym, Applied& out);

}  // namespace smemsim::fix::detail
