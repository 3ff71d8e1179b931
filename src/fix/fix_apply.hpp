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

#include <map>
#include <string>
#include <vector>

#include "smemsim/exec.hpp"
#include "smemsim/ptx.hpp"

namespace smemsim::fix::detail {

inline constexpr std::uint32_t kNone = ptx::kNone;

struct Applied {
  std::string refused;  // why the candidate could not be written as code ("" when it was)
  std::string form;    // "row stride 132 bytes (2 multipliers changed)", "3 instructions an access"
  ptx::Module module;  // the module with the kernel rewritten
  std::uint32_t changed = 0;  // instructions whose constant changed
  // Bytes the launch's dynamic shared memory grows by (a replicated extern array).
  std::uint32_t dynamic_growth = 0;
};

// `lines`: the PTX lines of the shared instructions that accessed the array in the baseline run.
// `offset`: the array's byte offset in the kernel's shared layout (exec::SharedLayout).
Applied apply_remap(const ptx::Module& module, const std::string& kernel,
                    const exec::SharedLayout::Array& array, const std::vector<std::uint32_t>& lines,
                    const exec::SharedRemap& remap);

// An array's R copies interleaved by lane, written into the kernel (fix_apply_atomic.cpp): word i
// of copy c at word i * R + c; each atomic updates the copy of its lane (%laneid % R); each store
// writes its value into one copy and the operation's identity into the others (the value into all
// of them for min, max and and); each load reads the R copies, lane l starting at its own copy
// (a rotated order: a warp's lanes on consecutive words read different banks), and combines them
// with the atomics' operation. Refused where that is not the same kernel: an atomic whose old
// value is used, an operation that does not combine (exch, cas, inc, dec), a wider access.
Applied apply_replication(const ptx::Module& module, const std::string& kernel,
                          const exec::SharedLayout::Array& array,
                          const std::vector<std::uint32_t>& lines, std::uint32_t copies);

// Warp aggregation written into the kernel: before each add to the array, the lanes on one address
// find each other (match.any.sync), the lowest of them (no lower peer in %lanemask_lt) adds their
// sum (popc of the peers times the value for a constant, redux.sync.add otherwise) and the
// others branch over it (as nvcc compiles the emitted `if`). Refused for other operations, a float
// add (no redux), a guarded atomic or one whose old value is used.
Applied apply_aggregation(const ptx::Module& module, const std::string& kernel,
                          const exec::SharedLayout::Array& array,
                          const std::vector<std::uint32_t>& lines);

// ---- Shared by fix_apply.cpp (the inserted form), fix_apply_stride.cpp (the stride form) and
// fix_apply_atomic.cpp.

using Insertions = std::map<std::uint32_t, std::vector<ptx::Instruction>>;
// The kernel's code with `head` first and each `before[i]` / `after[i]` around instruction i;
// a branch to i runs before[i] (one to the first instruction runs the head again: it must be
// idempotent).
void splice(ptx::Kernel& k, std::vector<ptx::Instruction> head, const Insertions& before,
            const Insertions& after);
std::uint32_t new_reg(ptx::Kernel& k, ptx::Type t);
// The array's base address per address width and space (a mov of its symbol, then cvta for a
// generic address), and that plus a lane's byte offset `c4` (a 32-bit register; kNone when
// unused), each set up once in `head` (the kernel's first instructions).
class Bases {
 public:
  Bases(ptx::Kernel& k, std::uint32_t sym, std::vector<ptx::Instruction>& head,
        std::uint32_t c4 = kNone)
      : k_(k), sym_(sym), head_(head), c4_(c4) {}
  std::uint32_t base(bool wide, bool generic);
  std::uint32_t copy_offset(bool wide);              // c4, in the address's width
  std::uint32_t lane_base(bool wide, bool generic);  // base + c4

 private:
  const ptx::Instruction& first() const { return k_.code.front(); }
  ptx::Kernel& k_;
  std::uint32_t sym_;
  std::vector<ptx::Instruction>& head_;
  std::uint32_t c4_, c64_ = kNone;
  std::uint32_t base_[2][2] = {{kNone, kNone}, {kNone, kNone}};
  std::uint32_t lane_[2][2] = {{kNone, kNone}, {kNone, kNone}};
};
ptx::Operand reg_op(std::uint32_t r);
// An instruction at `at`'s place in the source (its lines), unguarded.
ptx::Instruction make(ptx::Opcode op, ptx::Type t, std::initializer_list<ptx::Operand> ops,
                      const ptx::Instruction& at);
// The instructions on `lines` that access shared memory (ld, st, atom, red, cp.async, ldmatrix,
// stmatrix); "" or why the array's accesses cannot be rewritten.
std::string accesses(const ptx::Kernel& k, const std::vector<std::uint32_t>& lines,
                     std::vector<std::uint32_t>& out);
// The kernel `kernel` of `out.module`, or null with out.refused set (no code, a dynamic array
// unless `dynamic_ok`, a name that is no shared variable of it); `sym` gets the array's symbol.
ptx::Kernel* kernel_to_rewrite(Applied& out, const std::string& kernel,
                               const exec::SharedLayout::Array& array, std::uint32_t& sym,
                               bool dynamic_ok = false);

// Per register: its definitions (a guarded one counts twice: the old value may survive), the last
// defining instruction, and the instructions that read it (timing::reg_uses, the cycle model's
// own reading of each instruction's operands).
struct RegisterFlow {
  std::vector<std::uint32_t> ndef, def;
  std::vector<std::vector<std::uint32_t>> uses, defs;  // defs: every defining instruction
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
