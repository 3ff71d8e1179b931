// One sm_90 kernel holding one instruction line, for the decoder tests of a single instruction
// (TMA, im2col, clusters): `k(.param .u64 p)` with registers %rs<4> (16-bit), %r<8> (32-bit) and
// %rd<4> (64-bit), the line on line 8 of "d.ptx", then ret.
#pragma once

#include <string>

#include "smemsim/ptx.hpp"

namespace smemsim::test {

inline ptx::Module sm90_line(const std::string& line) {
  return ptx::parse(
      ".version 8.1\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n"
      ".reg .b16 %rs<4>; .reg .b32 %r<8>;\n.reg .b64 %rd<4>;\n" +
          line + "\nret;\n}\n",
      "d.ptx");
}

}  // namespace smemsim::test
