#include "smemsim/warp_access.hpp"

namespace smemsim {

std::string_view op_name(Op op) {
  switch (op) {
    case Op::Load:
      return "ld";
    case Op::Store:
      return "st";
    case Op::Atomic:
      return "atom";
  }
  return "?";
}

std::optional<Op> parse_op(std::string_view name) {
  if (name == "ld") return Op::Load;
  if (name == "st") return Op::Store;
  if (name == "atom") return Op::Atomic;
  return std::nullopt;
}

}  // namespace smemsim
