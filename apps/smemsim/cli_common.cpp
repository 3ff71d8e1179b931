#include "cli_common.hpp"
#include "embed.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <regex>

#include <fstream>

#include "smemsim/error.hpp"
#include "util/size.hpp"

namespace smemsim::cli {

void add_arch_options(CLI::App* cmd, ArchOptions& o, bool hashes_and_model) {
  o.name_option = cmd->add_option("--arch", o.name,
                                  "architecture preset (see `smemsim arch list`); run, profile and "
                                  "sim of a PTX file default to the preset of its .target")
                      ->capture_default_str();
  o.file_option = cmd->add_option("--arch-file", o.file,
                                  "TOML file overriding the preset (see `smemsim arch show`)");
  // One key=value per --set (a vector option would otherwise swallow the positional after it).
  cmd->add_option("--set", o.sets, "override one key, e.g. --set memory.banks=16 (repeatable)")
      ->allow_extra_args(false)
      ->take_all();
  if (!hashes_and_model) return;
  cmd->add_option("--bank-hash", o.bank_hash, "bank index function spec (mod, xor, add, ...)");
  cmd->add_option("--lock-hash", o.lock_hash, "lock index function spec (mod, xor, add, ...)");
  cmd->add_option("--model", o.model,
                  "atomic model: alg1, fsm, native or loadstore (smemsim model list)");
}

Arch resolve_arch(const ArchOptions& o) {
  Arch a = find_preset(o.name);
  if (o.file.empty() && o.file_option && o.file_option->count())
    throw InputError("--arch-file: the path is empty (give a TOML file; see `smemsim arch show`)");
  if (!o.file.empty()) a = load_arch_toml(o.file, a);
  for (const std::string& s : o.sets) apply_override(a, s);
  if (!o.bank_hash.empty()) a.bank_hash = o.bank_hash;
  if (!o.lock_hash.empty()) {
    if (a.locks == 0)
      throw InputError(
          fmt::format("--lock-hash: arch '{}' has one lock per word (native atomics); "
                      "set atomics.locks to use a lock hash",
                      a.name));
    a.lock_hash = o.lock_hash;
  }
  if (!o.model.empty()) a.atomic_model = o.model;
  validate(a);
  // Derived from the preset the arch names (an --arch-file may name another), else from --arch.
  const Arch* base = &find_preset(o.name);
  for (const Arch& p : arch_presets())
    if (p.name == a.name) base = &p;
  mark_derived(a, *base);
  return a;
}

void write_csv(const std::string& path, const std::vector<std::string>& keys,
               const std::vector<nlohmann::json>& rows, std::string_view option) {
  auto field = [](const nlohmann::json& row, const std::string& key) {
    const nlohmann::json* v = &row;
    std::string_view rest = key;
    for (auto dot = rest.find('.');; dot = rest.find('.')) {
      if (!v->is_object()) return std::string();  // a null parent: the field is empty
      v = &v->at(std::string(rest.substr(0, dot)));
      if (dot == std::string_view::npos) break;
      rest.remove_prefix(dot + 1);
    }
    if (v->is_null()) return std::string();
    std::string s = v->is_string() ? v->get<std::string>() : v->dump();
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string q = "\"";
    for (const char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
  };
  OutputFile file(path, std::string(option));
  std::ostream& f = file.stream();
  for (std::size_t i = 0; i < keys.size(); ++i) f << (i ? "," : "") << keys[i];
  f << "\n";
  for (const nlohmann::json& j : rows) {
    for (std::size_t i = 0; i < keys.size(); ++i) f << (i ? "," : "") << field(j, keys[i]);
    f << "\n";
  }
  file.commit();
}

void print_json(const nlohmann::json& doc) {
  if (Embedding* e = embedding()) {
    e->document = doc;
    return;
  }
  fmt::print("{}\n", doc.dump(2));
}

std::string arch_summary(const Arch& a) {
  // A lock hash names the lock bits it makes (atomics.lock_hash_bits; mod is the same either way).
  const std::string locks =
      a.locks == 0 ? std::string("one lock per word")
      : a.lock_hash == "mod"
          ? fmt::format("{} locks (mod)", a.locks)
          : fmt::format("{} locks ({} on {} lock bits)", a.locks, a.lock_hash, a.lock_hash_bits);
  return fmt::format(
      "{}: {} KiB, {} banks x {} B ({}), warp {} in transactions of {}, {}, atomics {}{}",
      arch_label(a), a.memory_bytes / 1024, a.banks, a.bank_width_bytes, a.bank_hash, a.warp_size,
      a.transaction_lanes, locks, a.atomic_model,
      a.derived.empty() ? " [" + sources_summary(a) + "]" : "");
}

namespace {

// "" when `s` is an integer (optionally signed) that fits the 64-bit type, else why not.
std::string integer_problem(const std::string& s, bool is_unsigned) {
  const char* b = s.data();
  const char* e = s.data() + s.size();
  if (is_unsigned && !s.empty() && s[0] == '-')
    return fmt::format("{} is negative; a non-negative integer is expected", s);
  std::from_chars_result r;
  if (is_unsigned) {
    std::uint64_t v = 0;
    r = std::from_chars(b + (s.size() && s[0] == '+'), e, v);
  } else {
    std::int64_t v = 0;
    r = std::from_chars(b + (s.size() && s[0] == '+'), e, v);
  }
  if (r.ec == std::errc::result_out_of_range)
    return fmt::format("{} is out of range (at most {})", s,
                       is_unsigned ? std::to_string(std::numeric_limits<std::uint64_t>::max())
                                   : std::to_string(std::numeric_limits<std::int64_t>::max()));
  if (r.ec != std::errc() || r.ptr != e || s.empty())
    return fmt::format("'{}' is not an integer", s);
  return "";
}

std::string float_problem(const std::string& s) {
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size()) return fmt::format("'{}' is not a number", s);
  if (errno == ERANGE || !std::isfinite(v)) return fmt::format("{} is out of range", s);
  return "";
}

void check_app(CLI::App& app) {
  for (CLI::Option* opt : app.get_options()) {
    // "UINT", or "UINT:N >= 1" with a validator's description.
    const std::string full = opt->get_type_name();
    const std::string type = full.substr(0, full.find_first_of(": "));
    if (type == "UINT" || type == "INT")
      opt->check(CLI::Validator(
          [u = type == "UINT"](std::string& s) { return integer_problem(s, u); }, ""));
    else if (type == "FLOAT")
      opt->check(CLI::Validator([](std::string& s) { return float_problem(s); }, ""));
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) check_app(*sub);
}

}  // namespace

void check_numeric_options(CLI::App& app) {
  check_app(app);
}

std::uint64_t parse_size(const std::string& text, std::string_view option) {
  const auto bad = [&] {
    return InputError(fmt::format(
        "{}: '{}' is not a memory size (bytes, or a number with K, M, G or T, e.g. 512M, 2G)",
        option, printable(text)));
  };
  std::uint64_t v = 0;
  const char* b = text.data();
  const char* e = b + text.size();
  const auto [p, ec] = std::from_chars(b, e, v);
  if (ec == std::errc::result_out_of_range)
    throw InputError(fmt::format("{}: '{}' is out of range", option, printable(text)));
  if (ec != std::errc() || p == b) throw bad();
  std::string unit(p, e);
  for (char& c : unit) c = char(std::toupper(static_cast<unsigned char>(c)));
  if (unit.ends_with("IB"))
    unit.resize(unit.size() - 2);
  else if (unit.size() > 1 && unit.ends_with("B"))
    unit.resize(unit.size() - 1);
  int shift = 0;
  if (unit.empty() || unit == "B")
    shift = 0;
  else if (unit == "K")
    shift = 10;
  else if (unit == "M")
    shift = 20;
  else if (unit == "G")
    shift = 30;
  else if (unit == "T")
    shift = 40;
  else
    throw bad();
  if (v == 0) throw InputError(fmt::format("{}: must be more than 0 bytes", option));
  if (v > (std::uint64_t{1} << (60 - shift)))
    throw InputError(fmt::format("{}: '{}' is out of range (at most 1024 PiB)", option, text));
  return v << shift;
}

namespace {
std::string g_activity;
}

void set_activity(std::string what) {
  g_activity = std::move(what);
}

const std::string& activity() {
  return g_activity;
}

std::string format_size(std::uint64_t bytes) {
  return smemsim::format_size(double(bytes));
}

namespace {

// "smemsim arch show" for the deepest command the parser entered.
std::string command_path(const CLI::App* app) {
  std::string path;
  for (const CLI::App* a = app; a; a = a->get_parent())
    path = a->get_name() + (path.empty() ? "" : " " + path);
  return path;
}

const CLI::App* deepest_command(const CLI::App& app) {
  for (const CLI::App* sub : app.get_subcommands())
    if (sub->parsed()) return deepest_command(*sub);
  return &app;
}

}  // namespace

std::string explain_parse_error(const std::string& what, const CLI::App& app) {
  const CLI::App* cmd = deepest_command(app);
  const std::string path = command_path(cmd);
  std::smatch m;
  static const std::regex kExtras("The following arguments? (?:was|were) not expected: (.*)");
  static const std::regex kAtMost("(\\S+): At Most 1 required but received (\\d+)");
  static const std::regex kRange("(\\S+): Value (\\S*) not in range (\\S+) to (\\S+)");
  static const std::regex kMissing("(\\S+): \\d+ required .* missing");
  if (what == "A subcommand is required") {
    std::string names;
    for (const CLI::App* sub : cmd->get_subcommands({}))
      names += (names.empty() ? "" : ", ") + sub->get_name();
    return fmt::format("{} needs a command: {}", path, names);
  }
  if (std::regex_match(what, m, kExtras)) {
    // CLI11 lists them last first; the first one given is the last word.
    std::string first = m[1].str();
    const std::size_t sp = first.rfind(' ');
    if (sp != std::string::npos) first = first.substr(sp + 1);
    return first.starts_with("-")
               ? fmt::format("unknown option '{}' for {}", printable(first), path)
               : fmt::format("unexpected argument '{}' for {}", printable(first), path);
  }
  if (std::regex_match(what, m, kAtMost))
    return fmt::format("{} is given {} times; it takes one value", m[1].str(), m[2].str());
  if (std::regex_match(what, m, kRange)) {
    // CLI11 says "not in range" for an empty or non-numeric value too.
    static const std::regex kNumber("[-+]?[0-9]+(\\.[0-9]*)?([eE][-+]?[0-9]+)?");
    if (!std::regex_match(m[2].str(), kNumber))
      return fmt::format("{}: '{}' is not a number (give one between {} and {})", m[1].str(),
                         printable(m[2].str()), m[3].str(), m[4].str());
    return fmt::format("{}: {} is not between {} and {}", m[1].str(), m[2].str(), m[3].str(),
                       m[4].str());
  }
  if (std::regex_match(what, m, kMissing)) return fmt::format("{} needs a value", m[1].str());
  static const std::regex kFlagValue("(\\S+) was given a disallowed flag override");
  if (std::regex_match(what, m, kFlagValue)) {  // add_commands: flags take no value
    const std::string name = m[1].str();
    const std::string flag = name.starts_with("-") ? name : (name.size() == 1 ? "-" : "--") + name;
    return fmt::format("{} is a flag and takes no value (give {} alone)", flag, flag);
  }
  return explain_parse_error(what);
}

std::string explain_parse_error(const std::string& what) {
  static const std::string kPrefix = "Could not convert: ";
  if (what.rfind(kPrefix, 0) != 0) return what;
  const std::size_t eq = what.find(" = ", kPrefix.size());
  if (eq == std::string::npos) return what;
  const std::string opt = what.substr(kPrefix.size(), eq - kPrefix.size());
  const std::string value = what.substr(eq + 3);
  if (integer_problem(value, false).empty() ||
      integer_problem(value, true).find("out of range") != std::string::npos)
    return fmt::format("{}: {} is out of range for this option", opt, value);
  return fmt::format("{}: '{}' is not a valid value", opt, value);
}

}  // namespace smemsim::cli
