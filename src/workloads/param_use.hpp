// How a kernel uses its parameters, read from its PTX by a flow-insensitive taint pass (issue 24):
// what `launch init` needs to guess sensible defaults (output buffers zero-filled, size scalars set
// from the buffers' counts). A guess, never a check: every value it sets is marked "# guessed".
#pragma once

#include <vector>

#include "smemsim/ptx.hpp"

namespace smemsim::exec {

struct ParamUse {
  bool loaded = false;  // global memory is read through it (ld, the source of cp.async)
  bool stored = false;  // global memory is written through it (st, atom, red)
  bool bound = false;   // compared (setp) with a value derived from a thread or block index
  bool stride = false;  // multiplied (mul, mad) with a value derived from a thread or block index
};

struct KernelUse {
  std::vector<ParamUse> params;  // one per parameter, in order
  bool two_dimensional = false;  // reads %tid.y or %ctaid.y
};

KernelUse param_uses(const ptx::Kernel& k);

}  // namespace smemsim::exec
