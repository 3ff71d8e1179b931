// Arch <-> TOML, and `--set key=value` overrides. One table of keys drives all three, so a key
// added here is loadable, settable, printed and listed at once.
#include <charconv>
#include <fstream>
#include <functional>
#include <sstream>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "smemsim/arch.hpp"
#include "smemsim/error.hpp"
#include "util/file.hpp"

namespace smemsim {
namespace {

enum class Kind { U32, I64, Str, Bool };

struct Key {
  const char* name;  // dotted: table.key
  Kind kind;
  std::uint32_t Arch::*u32 = nullptr;
  std::int64_t Timing::*i64 = nullptr;
  std::string Arch::*str = nullptr;
  bool Arch::*flag = nullptr;
};

const std::vector<Key>& keys() {
  static const std::vector<Key> k = {
      {"name", Kind::Str, nullptr, nullptr, &Arch::name},
      {"description", Kind::Str, nullptr, nullptr, &Arch::description},
      {"source", Kind::Str, nullptr, nullptr, &Arch::source},
      {"calibrated", Kind::Bool, nullptr, nullptr, nullptr, &Arch::calibrated},
      {"memory.size_bytes", Kind::U32, &Arch::memory_bytes},
      {"memory.banks", Kind::U32, &Arch::banks},
      {"memory.bank_width_bytes", Kind::U32, &Arch::bank_width_bytes},
      {"memory.bank_hash", Kind::Str, nullptr, nullptr, &Arch::bank_hash},
      {"warp.size", Kind::U32, &Arch::warp_size},
      {"warp.transaction_lanes", Kind::U32, &Arch::transaction_lanes},
      {"atomics.model", Kind::Str, nullptr, nullptr, &Arch::atomic_model},
      {"atomics.locks", Kind::U32, &Arch::locks},
      {"atomics.lock_hash", Kind::Str, nullptr, nullptr, &Arch::lock_hash},
      {"timing.t_base", Kind::I64, nullptr, &Timing::t_base},
      {"timing.t_position", Kind::I64, nullptr, &Timing::t_position},
      {"timing.t_bank", Kind::I64, nullptr, &Timing::t_bank},
      {"timing.fsm_read", Kind::I64, nullptr, &Timing::fsm_read},
      {"timing.fsm_update", Kind::I64, nullptr, &Timing::fsm_update},
      {"timing.fsm_write", Kind::I64, nullptr, &Timing::fsm_write},
      {"timing.fsm_branch", Kind::I64, nullptr, &Timing::fsm_branch},
      {"timing.native_base", Kind::I64, nullptr, &Timing::native_base},
      {"timing.native_position", Kind::I64, nullptr, &Timing::native_position},
      {"timing.ld_base", Kind::I64, nullptr, &Timing::ld_base},
      {"timing.st_base", Kind::I64, nullptr, &Timing::st_base},
  };
  return k;
}

const Key* find_key(std::string_view name) {
  for (const Key& k : keys())
    if (name == k.name) return &k;
  return nullptr;
}

std::string known_keys() {
  std::string s;
  for (const Key& k : keys()) s += (s.empty() ? "" : ", ") + std::string(k.name);
  return s;
}

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::U32:
      return "a non-negative integer";
    case Kind::I64:
      return "an integer";
    case Kind::Str:
      return "a string";
    case Kind::Bool:
      return "true or false";
  }
  return "?";
}

void set_int(Arch& a, const Key& k, std::int64_t v, const std::string& where) {
  if (k.kind == Kind::U32) {
    if (v < 0 || v > 0xffffffffll)
      throw InputError(fmt::format("{}key '{}': {} is out of range", where, k.name, v));
    a.*k.u32 = static_cast<std::uint32_t>(v);
  } else {
    a.timing.*k.i64 = v;
  }
}

}  // namespace

const std::vector<std::string>& arch_keys() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const Key& k : keys()) v.emplace_back(k.name);
    return v;
  }();
  return names;
}

namespace {

ArchValue value_of(const Arch& a, const Key& k) {
  switch (k.kind) {
    case Kind::U32:
      return std::int64_t{a.*k.u32};
    case Kind::I64:
      return a.timing.*k.i64;
    case Kind::Str:
      return a.*k.str;
    case Kind::Bool:
      return a.*k.flag;
  }
  return false;
}

}  // namespace

void visit_arch(const Arch& a,
                const std::function<void(std::string_view key, const ArchValue&)>& f) {
  for (const Key& k : keys()) f(k.name, value_of(a, k));
}

std::string to_toml(const Arch& a) {
  std::ostringstream out;
  std::string table;
  for (const Key& k : keys()) {
    std::string_view name = k.name;
    auto dot = name.find('.');
    std::string t = dot == std::string_view::npos ? "" : std::string(name.substr(0, dot));
    std::string leaf = std::string(dot == std::string_view::npos ? name : name.substr(dot + 1));
    if (t != table) {
      out << "\n[" << t << "]\n";
      table = t;
    }
    out << leaf << " = ";
    switch (k.kind) {
      case Kind::U32:
        out << a.*k.u32;
        break;
      case Kind::I64:
        out << a.timing.*k.i64;
        break;
      case Kind::Bool:
        out << (a.*k.flag ? "true" : "false");
        break;
      case Kind::Str: {
        toml::value<std::string> v(a.*k.str);
        out << v;
        break;
      }
    }
    out << "\n";
  }
  return out.str();
}

Arch parse_arch_toml(std::string_view text, const std::string& origin, const Arch& base) {
  toml::table tbl;
  try {
    tbl = toml::parse(text, origin);
  } catch (const toml::parse_error& e) {
    throw InputError(located(origin, e.source().begin.line, std::string(e.description())));
  }
  Arch a = base;
  std::function<void(const toml::table&, const std::string&)> visit =
      [&](const toml::table& t, const std::string& prefix) {
        for (const auto& [k, node] : t) {
          std::string name =
              prefix.empty() ? std::string(k.str()) : prefix + "." + std::string(k.str());
          const std::uint64_t line = node.source().begin.line;
          if (const toml::table* sub = node.as_table()) {
            bool is_section = false;
            for (const Key& key : keys())
              if (std::string_view(key.name).starts_with(name + ".")) is_section = true;
            if (!is_section)
              throw InputError(located(
                  origin, line, fmt::format("unknown key '{}' (known: {})", name, known_keys())));
            visit(*sub, name);
            continue;
          }
          const Key* key = find_key(name);
          if (!key)
            throw InputError(located(
                origin, line, fmt::format("unknown key '{}' (known: {})", name, known_keys())));
          const std::string where = located(origin, line, "");
          switch (key->kind) {
            case Kind::U32:
            case Kind::I64:
              if (auto v = node.value<std::int64_t>(); v && node.is_integer())
                set_int(a, *key, *v, where);
              else
                throw InputError(located(
                    origin, line, fmt::format("key '{}' must be {}", name, kind_name(key->kind))));
              break;
            case Kind::Str:
              if (auto v = node.value<std::string>())
                a.*key->str = *v;
              else
                throw InputError(
                    located(origin, line, fmt::format("key '{}' must be a string", name)));
              break;
            case Kind::Bool:
              if (auto v = node.value<bool>())
                a.*key->flag = *v;
              else
                throw InputError(
                    located(origin, line, fmt::format("key '{}' must be true or false", name)));
              break;
          }
        }
      };
  visit(tbl, "");
  try {
    validate(a);
  } catch (const InputError& e) {
    throw InputError(located(origin, 0, e.what()));
  }
  return a;
}

Arch load_arch_toml(const std::string& path, const Arch& base) {
  const std::string text = read_file(path, "arch file");
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    throw InputError(fmt::format("{}: empty arch file", path));
  return parse_arch_toml(text, path, base);
}

void apply_override(Arch& a, std::string_view assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string_view::npos || eq == 0)
    throw InputError(fmt::format("--set '{}': expected key=value", assignment));
  std::string_view name = assignment.substr(0, eq);
  std::string_view value = assignment.substr(eq + 1);
  const Key* key = find_key(name);
  if (!key)
    throw InputError(fmt::format("--set: unknown key '{}' (known: {})", name, known_keys()));
  switch (key->kind) {
    case Kind::U32:
    case Kind::I64: {
      std::int64_t v = 0;
      auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
      if (ec != std::errc() || p != value.data() + value.size())
        throw InputError(
            fmt::format("--set {}: '{}' is not {}", name, value, kind_name(key->kind)));
      set_int(a, *key, v, "--set: ");
      break;
    }
    case Kind::Str:
      a.*key->str = std::string(value);
      break;
    case Kind::Bool:
      if (value == "true" || value == "1")
        a.*key->flag = true;
      else if (value == "false" || value == "0")
        a.*key->flag = false;
      else
        throw InputError(fmt::format("--set {}: '{}' is not true or false", name, value));
      break;
  }
}

}  // namespace smemsim
