// The fixed index functions of seed 000 Table I: mod (baseline), xor and add; Hopper's TMA
// swizzles.
#pragma once

#include <memory>
#include <string_view>

#include "smemsim/index_function.hpp"

namespace smemsim {

std::unique_ptr<IndexFunction> make_mod(std::string_view args, const IndexGeometry& g);
std::unique_ptr<IndexFunction> make_xor(std::string_view args, const IndexGeometry& g);
std::unique_ptr<IndexFunction> make_add(std::string_view args, const IndexGeometry& g);
// Hopper's TMA swizzle modes as bank mappings (span 32, 64 or 128 bytes; issue 46).
std::unique_ptr<IndexFunction> make_tma(int span, std::string_view args, const IndexGeometry& g);

}  // namespace smemsim
