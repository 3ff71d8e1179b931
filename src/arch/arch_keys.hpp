// The arch key table (arch_keys.cpp): every settable key with its member, description (unit, seed
// source) and valid range. TOML input and output, --set, JSON results and validation all read it
// (arch_toml.cpp, arch.cpp), so a key added to the table is loadable, settable, printed and
// checked.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "smemsim/arch.hpp"

namespace smemsim::arch_detail {

enum class Kind { U32, I64, Str, Bool, SmU32, SmStr, TmU32, TmStr };

struct Key {
  const char* name;  // dotted: table.key
  Kind kind;
  std::uint32_t Arch::*u32 = nullptr;
  std::int64_t Timing::*i64 = nullptr;
  std::string Arch::*str = nullptr;
  bool Arch::*flag = nullptr;
  std::uint32_t SmConfig::*sm_u32 = nullptr;
  std::string SmConfig::*sm_str = nullptr;
  std::uint32_t TmConfig::*tm_u32 = nullptr;
  std::string TmConfig::*tm_str = nullptr;
  const char* doc = "";           // description, unit and seed source
  std::int64_t min = 0, max = 0;  // valid range of sm.* integers (0, 0: checked by validate())
};

// The table, in output order.
const std::vector<Key>& key_table();

}  // namespace smemsim::arch_detail
