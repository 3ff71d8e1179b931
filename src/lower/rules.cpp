// Names and parsing of the lowering rules (rules.hpp).
#include "lower/rules.hpp"

#include <fmt/format.h>

#include <array>

#include "smemsim/error.hpp"

namespace smemsim::lower {
namespace {

constexpr std::array<std::string_view, kRules> kNames = {"",       "fma", "imad", "lea",   "addr",
                                                         "scaled", "cvt", "mov",  "ifcvt", "lop3",
                                                         "vector", "imm", "iadd3"};

}  // namespace

std::string_view rule_name(Rule r) {
  return kNames[std::size_t(r)];
}

Rules parse_rules(std::string_view spec, std::string_view key) {
  Rules r;
  if (spec == "none") return r;
  if (spec.empty())
    throw InputError(fmt::format(
        "arch key '{}': empty (give none, all, or a comma list of fma, imad, lea, addr, scaled, "
        "cvt, mov, imm, ifcvt, lop3, iadd3, vector, schedule, spaces, sincos, ex2, divide, wide, "
        "bssy, aggregate, unroll, balance)",
        key));
  if (spec == "all")
    return parse_rules(
        "fma,imad,lea,addr,scaled,cvt,mov,imm,ifcvt,lop3,iadd3,vector,schedule,spaces,sincos,ex2,"
        "divide,wide,bssy,aggregate,unroll,balance",
        key);
  std::size_t pos = 0;
  while (pos <= spec.size()) {
    const std::size_t comma = spec.find(',', pos);
    const std::string_view name =
        spec.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    bool* flag = name == "fma"         ? &r.fma
                 : name == "imad"      ? &r.imad
                 : name == "lea"       ? &r.lea
                 : name == "addr"      ? &r.addr
                 : name == "scaled"    ? &r.scaled
                 : name == "cvt"       ? &r.cvt
                 : name == "mov"       ? &r.mov
                 : name == "imm"       ? &r.imm
                 : name == "ifcvt"     ? &r.ifcvt
                 : name == "lop3"      ? &r.lop3
                 : name == "iadd3"     ? &r.iadd3
                 : name == "vector"    ? &r.vector
                 : name == "schedule"  ? &r.schedule
                 : name == "spaces"    ? &r.spaces
                 : name == "sincos"    ? &r.sincos
                 : name == "ex2"       ? &r.ex2
                 : name == "divide"    ? &r.divide
                 : name == "wide"      ? &r.wide
                 : name == "bssy"      ? &r.bssy
                 : name == "aggregate" ? &r.aggregate
                 : name == "unroll"    ? &r.unroll
                 : name == "balance"   ? &r.balance
                                       : nullptr;
    if (!flag)
      throw InputError(fmt::format(
          "arch key '{}': unknown lowering rule '{}' (give a comma list of fma, imad, lea, addr, "
          "scaled, cvt, mov, imm, ifcvt, lop3, iadd3, vector, schedule, spaces, sincos, ex2, "
          "divide, wide, bssy, aggregate, unroll, balance; or all, or none)",
          key, name));
    *flag = true;
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  return r;
}

std::string to_string(const Rules& r) {
  std::string s;
  auto add = [&](bool on, std::string_view n) {
    if (!on) return;
    if (!s.empty()) s += ',';
    s += n;
  };
  add(r.fma, "fma");
  add(r.imad, "imad");
  add(r.lea, "lea");
  add(r.addr, "addr");
  add(r.scaled, "scaled");
  add(r.cvt, "cvt");
  add(r.mov, "mov");
  add(r.imm, "imm");
  add(r.ifcvt, "ifcvt");
  add(r.lop3, "lop3");
  add(r.iadd3, "iadd3");
  add(r.vector, "vector");
  add(r.schedule, "schedule");
  add(r.spaces, "spaces");
  add(r.sincos, "sincos");
  add(r.ex2, "ex2");
  add(r.divide, "divide");
  add(r.wide, "wide");
  add(r.bssy, "bssy");
  add(r.aggregate, "aggregate");
  add(r.unroll, "unroll");
  add(r.balance, "balance");
  return s.empty() ? "none" : s;
}

}  // namespace smemsim::lower
