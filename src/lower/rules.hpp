// The lowering rules' names and the parsing of arch key sm.lower (lower.hpp describes the rules).
// Apart from the pass itself so that the arch's validation (the core library) can check the key.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace smemsim::lower {

enum class Rule : std::uint8_t {
  None,
  Fma,
  Imad,
  Lea,
  Addr,
  Scaled,
  Cvt,
  Mov,
  Ifcvt,
  Lop3,
  Vector,
  Imm,
  Iadd3
};
inline constexpr std::size_t kRules = 13;
std::string_view rule_name(Rule r);  // "fma", ... ("" for None)

struct Rules {
  bool fma = false, imad = false, lea = false, addr = false, scaled = false, cvt = false,
       mov = false;
  // A forward branch round at most sm.ifcvt_slots issue slots of one block, none guarded, becomes
  // their guard (src/lower/ifcvt.hpp): no branch, no divergence, one block for the scheduler.
  bool ifcvt = false;
  // A bitwise and/or/xor/not whose result only one and/or/xor reads: the two are one LOP3.
  bool lop3 = false;
  // Scalar shared loads of adjacent words from one aligned base are one 64- or 128-bit load
  // (vector.hpp): brought together, then all but the last absorbed into it.
  bool vector = false;
  // A mov of a constant (an immediate or a symbol's address) into a register written only by it,
  // whose readers take the constant as an operand (RZ for zero): no instruction (lower.hpp).
  bool imm = false;
  // An integer add or sub whose result only one add or sub reads: the two are one IADD3.
  bool iadd3 = false;
  bool schedule = false;  // the list scheduler (schedule.hpp), not an absorbing rule
  // The scheduler keeps the order of two memory instructions only where it matters: a write and
  // another access to state spaces that may alias (schedule.hpp); without it, every load, store
  // and atomic stays in program order among themselves.
  bool spaces = false;
  // sin/cos issue as two instructions, an FMA-pipe range reduction then the SFU op (lower.hpp);
  // it adds an issue slot rather than absorbing one.
  bool sincos = false;
  // ex2.approx.f32 without .ftz issues as FSETP, FMUL, MUFU.EX2, FMUL (the subnormal range's
  // scaling, timing/expand.hpp); it adds issue slots.
  bool ex2 = false;
  // Integer division and remainder by a register, IEEE float division and square root issue as
  // the instruction sequences ptxas emits for them (timing/expand.hpp); they add issue slots.
  bool divide = false;
  // A 64-bit integer add, sub, shift, compare, min/max or bitwise op that issues is two SASS
  // instructions (the low word, then the high word with the carry: IADD3 + IADD3.X, LEA +
  // LEA.HI.X, ISETP + ISETP.EX); an IMAD.WIDE (imad) is one. It adds an issue slot.
  bool wide = false;
  // A branch whose lanes may part issues a BSSY before it, and the instruction where they meet a
  // BSYNC (converge.hpp); they add issue slots.
  bool bssy = false;
  // An atomic ptxas turns into one lane's (an integer add of a uniform value, or an and/or/xor
  // whose result is unused, to a warp-uniform address; an add of zero whose result is unused):
  // timed as the lowest active lane's access (aggregate.hpp).
  bool aggregate = false;
  // ptxas unrolls an innermost counted loop four times (unroll.hpp): its counter, compare and
  // branch issue in one trip of four; in the others the warp goes on to the next trip's first
  // instruction with no issue slot for them.
  bool unroll = false;
  // Integer adds, moves and shifts spread between the ALU and the FMA pipe as ptxas spreads them
  // (IMAD.IADD, VIADD, IMAD.MOV.U32, IMAD.SHL.U32: timing/inst_info.hpp's balance_pipes).
  bool balance = false;
  bool any() const {
    return fma || imad || lea || addr || scaled || cvt || mov || ifcvt || lop3 || vector || imm ||
           iadd3;
  }
};
// The rules from a comma list of their names ("fma,imad,...,aggregate,unroll"), "all" or "none":
// throws InputError naming `key` (an empty spec or an empty name in the list is refused too).
Rules parse_rules(std::string_view spec, std::string_view key = "sm.lower");
std::string to_string(const Rules& r);  // the canonical comma list, "none" when empty

}  // namespace smemsim::lower
