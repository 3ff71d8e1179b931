// Arch <-> TOML, and `--set key=value` overrides. One table of keys drives all three, so a key
// added here is loadable, settable, printed and listed at once.
#include <charconv>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "arch/arch_keys.hpp"
#include "smemsim/arch.hpp"
#include "smemsim/error.hpp"
#include "util/file.hpp"
#include "util/names.hpp"

namespace smemsim {
namespace {

using arch_detail::Key;
using arch_detail::Kind;

const std::vector<Key>& keys() {
  return arch_detail::key_table();
}

const Key* find_key(std::string_view name) {
  for (const Key& k : keys())
    if (name == k.name) return &k;
  return nullptr;
}

// What an unknown key's error adds: the keys it is a typo of, and where to see them all (the
// whole list, 80 keys on one line, was too long to read).
std::string key_hint(std::string_view name) {
  std::vector<std::string_view> names;
  for (const Key& k : keys()) names.emplace_back(k.name);
  const std::string near = did_you_mean(name, names);
  return near.empty() ? "`smemsim arch show` lists every key"
                      : near + " (`smemsim arch show` lists every key)";
}

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::U32:
      return "a non-negative integer";
    case Kind::I64:
      return "an integer";
    case Kind::Str:
    case Kind::SmStr:
    case Kind::TmStr:
      return "a string";
    case Kind::SmU32:
    case Kind::TmU32:
      return "a non-negative integer";
    case Kind::Bool:
      return "true or false";
  }
  return "?";
}

void set_int(Arch& a, const Key& k, std::int64_t v, const std::string& where) {
  if ((k.min || k.max) && (v < k.min || v > k.max))
    throw InputError(
        fmt::format("{}key '{}': {} is not between {} and {}", where, k.name, v, k.min, k.max));
  if (k.kind == Kind::SmU32) {
    a.sm.*k.sm_u32 = static_cast<std::uint32_t>(v);
  } else if (k.kind == Kind::TmU32) {
    a.tm.*k.tm_u32 = static_cast<std::uint32_t>(v);
  } else if (k.kind == Kind::U32) {
    a.*k.u32 = static_cast<std::uint32_t>(v);
  } else {
    a.timing.*k.i64 = v;
  }
}

void set_string(Arch& a, const Key& k, std::string v) {
  if (k.kind == Kind::TmStr)
    a.tm.*k.tm_str = std::move(v);
  else
    (k.kind == Kind::SmStr ? a.sm.*k.sm_str : a.*k.str) = std::move(v);
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

const std::vector<ArchKeyInfo>& arch_key_info() {
  static const std::vector<ArchKeyInfo> info = [] {
    std::vector<ArchKeyInfo> v;
    for (const Key& k : keys()) v.push_back({k.name, k.doc, k.min, k.max});
    return v;
  }();
  return info;
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
    case Kind::SmU32:
      return std::int64_t{a.sm.*k.sm_u32};
    case Kind::SmStr:
      return a.sm.*k.sm_str;
    case Kind::TmU32:
      return std::int64_t{a.tm.*k.tm_u32};
    case Kind::TmStr:
      return a.tm.*k.tm_str;
  }
  return false;
}

}  // namespace

void visit_arch(const Arch& a,
                const std::function<void(std::string_view key, const ArchValue&)>& f) {
  for (const Key& k : keys()) f(k.name, value_of(a, k));
}

std::string to_toml(const Arch& a, bool comments) {
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
    if (comments && *k.doc) {
      // The key's description (unit, seed source) and range, wrapped at 100 columns.
      std::string doc = k.doc;
      if (k.min || k.max) doc += fmt::format(" [{}..{}]", k.min, k.max);
      std::string line = "#";
      std::istringstream words(doc);
      for (std::string w; words >> w;) {
        if (line.size() + 1 + w.size() > 100) {
          out << line << "\n";
          line.assign(1, '#');
        }
        line += " " + w;
      }
      out << line << "\n";
    }
    out << leaf << " = ";
    const ArchValue v = value_of(a, k);
    if (const auto* i = std::get_if<std::int64_t>(&v))
      out << *i;
    else if (const auto* b = std::get_if<bool>(&v))
      out << (*b ? "true" : "false");
    else
      out << toml::value<std::string>(std::get<std::string>(v));
    out << "\n";
  }
  return out.str();
}

std::string arch_value_text(const ArchValue& v) {
  if (const auto* n = std::get_if<std::int64_t>(&v)) return std::to_string(*n);
  if (const auto* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
  return std::get<std::string>(v);
}

void mark_derived(Arch& a, const Arch& base) {
  std::vector<std::pair<std::string, ArchValue>> was;
  visit_arch(base, [&](std::string_view k, const ArchValue& v) { was.emplace_back(k, v); });
  std::string changes;
  std::size_t i = 0;
  visit_arch(a, [&](std::string_view k, const ArchValue& v) {
    const auto& [key, old] = was[i++];
    if (k == "name" || k == "title" || k == "description" || k == "source" || k == "calibrated" ||
        k == "derived" || v == old)
      return;
    changes += (changes.empty() ? "" : ", ") + std::string(k) + "=" + arch_value_text(v);
  });
  a.derived = changes;
  if (!changes.empty()) a.calibrated = false;
}

std::string arch_label(const Arch& a) {
  const std::string from =
      a.derived.empty() ? a.name : fmt::format("{} derived ({}), uncalibrated", a.name, a.derived);
  return a.title.empty() || a.title == a.name ? from : fmt::format("{} ({})", a.title, from);
}

Arch parse_arch_toml(std::string_view text, const std::string& origin, const Arch& base) {
  toml::table tbl;
  try {
    tbl = toml::parse(text, origin);
  } catch (const toml::parse_error& e) {
    throw InputError(located(origin, e.source().begin.line, toml_syntax_message(e.description())));
  }
  Arch a = base;
  std::map<std::string, std::uint64_t> lines;  // each key the file sets, and its line
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
              throw InputError(
                  located(origin, line, fmt::format("unknown key '{}': {}", name, key_hint(name))));
            visit(*sub, name);
            continue;
          }
          const Key* key = find_key(name);
          if (!key)
            throw InputError(
                located(origin, line, fmt::format("unknown key '{}': {}", name, key_hint(name))));
          const std::string where = located(origin, line, "");
          lines[name] = line;
          switch (key->kind) {
            case Kind::U32:
            case Kind::I64:
            case Kind::SmU32:
            case Kind::TmU32:
              if (auto v = node.value_exact<std::int64_t>())
                set_int(a, *key, *v, where);
              else
                throw InputError(located(
                    origin, line, fmt::format("key '{}' must be {}", name, kind_name(key->kind))));
              break;
            case Kind::Str:
            case Kind::SmStr:
            case Kind::TmStr:
              if (auto v = node.value<std::string>())
                set_string(a, *key, *v);
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
    // validate() names the key ("arch key 'sm.lower': ..."): the line that set it, if this file
    // did (a relation between keys may name one the base set).
    const std::string_view what = e.what(), prefix = "arch key '";
    std::uint64_t line = 0;
    if (what.starts_with(prefix)) {
      const auto end = what.find('\'', prefix.size());
      if (end != std::string_view::npos)
        if (const auto it =
                lines.find(std::string(what.substr(prefix.size(), end - prefix.size())));
            it != lines.end())
          line = it->second;
    }
    throw InputError(located(origin, line, e.what()));
  }
  return a;
}

Arch load_arch_toml(const std::string& path, const Arch& base) {
  const std::string text = read_file(path, "arch file", std::uint64_t{1} << 20);
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
  if (!key) throw InputError(fmt::format("--set: unknown key '{}': {}", name, key_hint(name)));
  switch (key->kind) {
    case Kind::U32:
    case Kind::I64:
    case Kind::SmU32:
    case Kind::TmU32: {
      std::int64_t v = 0;
      auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
      if (ec != std::errc() || p != value.data() + value.size())
        throw InputError(
            fmt::format("--set {}: '{}' is not {}", name, value, kind_name(key->kind)));
      set_int(a, *key, v, "--set: ");
      break;
    }
    case Kind::Str:
    case Kind::SmStr:
    case Kind::TmStr:
      set_string(a, *key, std::string(value));
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
