// Names and parsing of the lowering rules (rules.hpp).
#include "lower/rules.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "smemsim/error.hpp"
#include "util/names.hpp"

namespace smemsim::lower {
namespace {

constexpr std::array<std::string_view, kRules> kNames = {"",       "fma", "imad", "lea",   "addr",
                                                         "scaled", "cvt", "mov",  "ifcvt", "lop3",
                                                         "vector", "imm", "iadd3"};

}  // namespace

std::string_view rule_name(Rule r) {
  return kNames[std::size_t(r)];
}

namespace {

// Every rule by name, in the order `all` and to_string list them.
struct RuleByName {
  std::string_view name;
  bool Rules::*flag;
};
constexpr std::array<RuleByName, 22> kRulesByName = {
    {{"fma", &Rules::fma},           {"imad", &Rules::imad},
     {"lea", &Rules::lea},           {"addr", &Rules::addr},
     {"scaled", &Rules::scaled},     {"cvt", &Rules::cvt},
     {"mov", &Rules::mov},           {"imm", &Rules::imm},
     {"ifcvt", &Rules::ifcvt},       {"lop3", &Rules::lop3},
     {"iadd3", &Rules::iadd3},       {"vector", &Rules::vector},
     {"schedule", &Rules::schedule}, {"spaces", &Rules::spaces},
     {"sincos", &Rules::sincos},     {"ex2", &Rules::ex2},
     {"divide", &Rules::divide},     {"wide", &Rules::wide},
     {"bssy", &Rules::bssy},         {"aggregate", &Rules::aggregate},
     {"unroll", &Rules::unroll},     {"balance", &Rules::balance}}};

// A rule added to Rules is added here too.
static_assert(sizeof(Rules) == kRulesByName.size());

std::string rules_listed(std::string_view sep) {
  std::string s;
  for (const RuleByName& n : kRulesByName) {
    if (!s.empty()) s += sep;
    s += n.name;
  }
  return s;
}

}  // namespace

Rules parse_rules(std::string_view spec, std::string_view key) {
  Rules r;
  if (spec == "none") return r;
  if (spec.empty())
    throw InputError(fmt::format("arch key '{}': empty (give none, all, or a comma list of {})",
                                 key, rules_listed(", ")));
  if (spec == "all") {
    for (const RuleByName& n : kRulesByName) r.*n.flag = true;
    return r;
  }
  std::size_t pos = 0;
  while (pos <= spec.size()) {
    const std::size_t comma = spec.find(',', pos);
    const std::string_view name =
        spec.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    const auto it = std::find_if(kRulesByName.begin(), kRulesByName.end(),
                                 [&](const RuleByName& n) { return n.name == name; });
    if (it == kRulesByName.end()) {
      std::vector<std::string_view> names;
      for (const RuleByName& n : kRulesByName) names.push_back(n.name);
      const std::string near = did_you_mean(name, names);
      throw InputError(fmt::format(
          "arch key '{}': unknown lowering rule '{}'{} (give a comma list of {}; or all, or none)",
          key, name, near.empty() ? "" : ": " + near, rules_listed(", ")));
    }
    r.*it->flag = true;
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  return r;
}

std::string to_string(const Rules& r) {
  std::string s;
  for (const RuleByName& n : kRulesByName) {
    if (!(r.*n.flag)) continue;
    if (!s.empty()) s += ',';
    s += n.name;
  }
  return s.empty() ? "none" : s;
}

}  // namespace smemsim::lower
