// Launch specs (TOML): buffers with their initial content, kernel arguments, dynamic shared memory,
// outputs, and optionally kernel/grid/block (docs/exec.md "Launch spec").
#include <fmt/format.h>

#include <toml++/toml.h>
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "exec/half.hpp"
#include "exec/spec_context.hpp"
#include "smemsim/error.hpp"
#include "smemsim/workloads.hpp"
#include "util/file.hpp"
#include "util/output_file.hpp"
#include "util/rng.hpp"
#include "util/size.hpp"

namespace smemsim::exec {
namespace {

Dim3 dim_from(const SpecContext& c, const toml::node& n, const std::string& key) {
  std::uint32_t v[3] = {1, 1, 1};
  if (auto i = n.value_exact<std::int64_t>()) {
    if (*i < 1 || *i > 0xffffffffll) c.fail(&n, fmt::format("'{}' must be in 1..4294967295", key));
    v[0] = static_cast<std::uint32_t>(*i);
  } else if (const toml::array* a = n.as_array()) {
    if (a->empty() || a->size() > 3) c.fail(&n, fmt::format("'{}' has 1 to 3 dimensions", key));
    for (std::size_t k = 0; k < a->size(); ++k) {
      auto e = (*a)[k].value_exact<std::int64_t>();
      if (!e || *e < 1 || *e > 0xffffffffll)
        c.fail(&n, fmt::format("'{}' needs positive integers", key));
      v[k] = static_cast<std::uint32_t>(*e);
    }
  } else {
    c.fail(&n, fmt::format("'{}' must be an integer or an array [x, y, z]", key));
  }
  return {v[0], v[1], v[2]};
}

// `total`: the bytes of the spec's buffers so far; this one must keep it within c.max_bytes.
// `kind` names the entry in messages ("buffer", "symbol"); `default_count` is the count when the
// table has none and no file gives one (-1: required).
Buffer make_buffer(const SpecContext& c, const std::string& name, const toml::table& t,
                   std::vector<Output>& outputs, std::uint64_t& total,
                   const std::string& kind = "buffer", std::int64_t default_count = -1) {
  const std::string who = kind + " '" + name + "'";
  const std::uint64_t kMaxSpecBytes = c.max_bytes;
  static const char* kKeys[] = {"type",  "count", "init",  "min",  "max",   "seed",
                                "start", "step",  "value", "file", "write", "values"};
  for (const auto& [k, v] : t) {
    bool known = false;
    for (const char* key : kKeys) known |= k.str() == key;
    if (!known)
      c.fail(&v, fmt::format("{}: unknown key '{}' (type, count, init, min, max, seed, "
                             "start, step, value, values, file, write)",
                             who, k.str()));
  }
  Buffer b;
  b.name = name;
  const toml::node* type = t.get("type");
  if (!type || !type->is_string())
    c.fail(t, fmt::format("{} needs a type (\"u32\", \"f32\", ...)", who));
  b.type = parse_elem_type(type->value<std::string>().value(),
                           located(c.origin, type->source().begin.line, who));
  const int eb = elem_bytes(b.type);
  const bool fl = elem_is_float(b.type);
  const std::string init = t["init"].value_or(std::string("zeros"));
  // Keys another init reads are errors, not silently ignored (issue 27: values = [...] without
  // init = "values" left a buffer of zeros).
  {
    struct Uses {
      const char* init;
      std::vector<const char*> keys;
    };
    static const Uses kUses[] = {{"zeros", {}},          {"iota", {"start", "step"}},
                                 {"fill", {"value"}},    {"random", {"min", "max", "seed"}},
                                 {"values", {"values"}}, {"file", {"file"}}};
    for (const Uses& u : kUses) {
      if (init != u.init) continue;
      for (const Uses& other : kUses)
        for (const char* k : other.keys) {
          const toml::node* n = t.get(k);
          if (!n || std::find_if(u.keys.begin(), u.keys.end(), [&](const char* mine) {
                      return std::string_view(mine) == k;
                    }) != u.keys.end())
            continue;
          c.fail(n, fmt::format("{}: '{}' is read by init = \"{}\", not by init = \"{}\"{}", who, k,
                                other.init, init,
                                t.get("init") ? ""
                                              : " (the default): add init = \"" +
                                                    std::string(other.init) + "\""));
        }
    }
  }
  std::int64_t count = -1;
  if (const toml::node* n = t.get("count")) {
    constexpr std::int64_t kMaxCount = std::int64_t{1} << 36;
    auto v = n->value_exact<std::int64_t>();
    if (!v && n->is_floating_point())
      c.fail(n, fmt::format("{}: 'count' must be an integer ({} is a float in TOML: write the "
                            "digits, as in count = 1000000000)",
                            who, n->value<double>().value_or(0)));
    if (!v || *v < 0) c.fail(n, fmt::format("{}: 'count' must be a non-negative integer", who));
    if (*v > kMaxCount)
      c.fail(n, fmt::format("{}: 'count' {} is above the largest count, 2^36 = {}", who, *v,
                            kMaxCount));
    count = *v;
  }
  if (init == "file") {
    const toml::node* f = t.get("file");
    if (!f || !f->is_string())
      c.fail(t, fmt::format("{}: init = \"file\" needs file = \"PATH\"", who));
    std::filesystem::path p = f->value<std::string>().value();
    if (p.is_relative()) p = c.dir / p;
    std::error_code ec;
    if (std::filesystem::is_directory(p, ec))
      c.fail(f, fmt::format("{}: '{}' is a directory, not a file", who, p.string()));
    if (!std::filesystem::is_regular_file(p, ec))  // a device or a pipe might never end
      c.fail(f, fmt::format("{}: '{}' is not a regular file", who, p.string()));
    const auto size = std::filesystem::file_size(p, ec);
    if (!ec && total + size > kMaxSpecBytes)
      c.fail(f, fmt::format("{}: '{}' has {}, above the {} a launch spec's buffers may take "
                            "together (--max-memory)",
                            who, p.string(), format_size(double(size)),
                            format_size(double(kMaxSpecBytes))));
    std::ifstream in(p, std::ios::binary);
    if (!in) c.fail(f, fmt::format("{}: cannot read '{}'", who, p.string()));
    std::vector<std::uint8_t> raw((std::istreambuf_iterator<char>(in)),
                                  std::istreambuf_iterator<char>());
    if (p.extension() == ".txt") {
      // Whitespace-separated numbers, parsed in place (no copy of the text per word): a text file
      // near the budget takes the file's bytes and the buffer's, nothing more.
      const auto is_space = [](std::uint8_t ch) { return std::isspace(ch) != 0; };
      const auto next_word = [&](std::size_t& at) {
        while (at < raw.size() && is_space(raw[at])) ++at;
        const std::size_t from = at;
        while (at < raw.size() && !is_space(raw[at])) ++at;
        return std::string_view(reinterpret_cast<const char*>(raw.data()) + from, at - from);
      };
      std::uint64_t words = 0;
      for (std::size_t at = 0; !next_word(at).empty();) ++words;
      const std::uint64_t n = count < 0 ? words : std::uint64_t(count);
      if (words < n)
        c.fail(f, fmt::format("{}: '{}' has {} values, count is {}", who, p.string(), words, n));
      b.bytes.assign(n * std::uint64_t(eb), 0);
      std::size_t at = 0;
      for (std::uint64_t i = 0; i < n; ++i) {
        const std::string word(next_word(at));
        long double fits = 0;
        try {
          std::size_t used = 0;
          const long double v =
              fl ? (long double)std::stod(word, &used) : (long double)std::stoll(word, &used, 0);
          if (used != word.size()) throw std::invalid_argument("trailing characters");
          if (fl)
            store(b, i, double(v), 0, true);
          else
            store(b, i, 0, std::stoll(word, nullptr, 0), false);
          fits = v;
        } catch (const std::exception&) {
          c.fail(f, fmt::format("{}: '{}' value {} ('{}') is not a number", who, p.string(), i + 1,
                                printable(word)));
        }
        check_fits(c, f, fmt::format("{}: '{}' value {}", who, p.string(), i + 1), b.type, fits);
      }
    } else {
      if (count < 0 && raw.size() % std::uint64_t(eb))
        c.fail(f, fmt::format("{}: '{}' has {} bytes, not a whole number of {} elements of {} "
                              "bytes",
                              who, p.string(), raw.size(), elem_name(b.type), eb));
      const std::uint64_t n = count < 0 ? raw.size() / std::uint64_t(eb) : std::uint64_t(count);
      if (raw.size() > n * std::uint64_t(eb))
        c.fail(f, fmt::format("{}: '{}' has {} bytes, more than the {} elements of {} ({} bytes): "
                              "set count to the file's, or leave it out",
                              who, p.string(), raw.size(), n, elem_name(b.type),
                              n * std::uint64_t(eb)));
      if (raw.size() < n * std::uint64_t(eb))
        c.fail(f, fmt::format("{}: '{}' has {} bytes, {} elements of {} need {}", who, p.string(),
                              raw.size(), n, elem_name(b.type), n * std::uint64_t(eb)));
      raw.resize(n * std::uint64_t(eb));
      b.bytes = std::move(raw);
    }
  } else {
    const toml::array* values = nullptr;
    if (init == "values") {
      const toml::node* vn = t.get("values");
      values = vn ? vn->as_array() : nullptr;
      if (!values) c.fail(t, fmt::format("{}: init = \"values\" needs values = [...]", who));
      if (count >= 0 && std::uint64_t(count) != values->size())
        c.fail(t.get("count"), fmt::format("{}: count is {} but values has {} elements", who, count,
                                           values->size()));
      count = std::int64_t(values->size());
    }
    if (count < 0) count = default_count;
    if (count < 0) c.fail(t, fmt::format("{} needs a count", who));
    const std::uint64_t bytes = std::uint64_t(count) * std::uint64_t(eb);
    if (total + bytes > kMaxSpecBytes)
      c.fail(t.get("count"),
             fmt::format("{}: {} elements of {} take {}, which puts the spec's buffers above "
                         "the {} they may take together (--max-memory)",
                         who, count, elem_name(b.type), format_size(double(bytes)),
                         format_size(double(kMaxSpecBytes))));
    // iota's first value and step, read once: exactly, as integers, for an integer buffer (a float
    // step of 1e300 would be undefined behaviour as an int64; the other inits have neither key).
    const double fstart = fl ? num(c, t, "start", 0) : 0, fstep = fl ? num(c, t, "step", 1) : 0;
    const std::int64_t istart = fl ? 0 : inum(c, t, "start", 0);
    const std::int64_t istep = fl ? 0 : inum(c, t, "step", 1);
    if (init == "iota" && count > 0) {  // checked before the buffer is allocated
      // long double holds every int64 exactly.
      const long double first = fl ? (long double)fstart : (long double)istart;
      const long double last =
          first + (fl ? (long double)fstep : (long double)istep) * (long double)(count - 1);
      // The numbers as the spec wrote them (1e17 stays 1e+17, 2^63 - 1 stays exact).
      const auto written = [&](const char* key, std::int64_t v) {
        const toml::node* n = t.get(key);
        return n && n->is_floating_point() ? fmt::format("{}", double(v)) : fmt::format("{}", v);
      };
      if (!fl && (last < -9223372036854775808.0L || last > 9223372036854775807.0L))
        c.fail(t.get("step") ? t.get("step") : &t,
               fmt::format("{}: iota from {} by {} over {} elements "
                           "leaves the 64-bit integer range",
                           who, written("start", istart), written("step", istep), count));
      check_fits(c, t.get("start") ? t.get("start") : &t, who + ": start", b.type, first);
      check_fits(c, t.get("step") ? t.get("step") : &t, who + ": the last iota value", b.type,
                 last);
    }
    b.bytes.assign(bytes, 0);
    if (init == "zeros") {
    } else if (init == "iota") {
      for (std::int64_t i = 0; i < count; ++i)
        store(b, std::uint64_t(i), fstart + fstep * double(i), fl ? 0 : istart + istep * i, fl);
    } else if (init == "values") {
      for (std::int64_t i = 0; i < count; ++i) {
        const toml::node& e = (*values)[std::size_t(i)];
        const auto iv = e.value_exact<std::int64_t>();
        const auto fv = iv ? std::optional<double>(double(*iv)) : e.value<double>();
        if (!fv || (!fl && !std::isfinite(*fv)) || (!fl && !iv && std::fabs(*fv) >= 9.2e18))
          c.fail(&e, fmt::format("{}: values[{}] must be a {}", who, i,
                                 fl ? "number" : "finite number (the buffer holds integers)"));
        if (!fl && !iv && *fv != std::floor(*fv))
          c.fail(&e, fmt::format("{}: values[{}] = {} is not a whole number, and the buffer "
                                 "holds integers",
                                 who, i, *fv));
        check_fits(c, &e, fmt::format("{}: values[{}]", who, i), b.type,
                   iv ? (long double)*iv : (long double)*fv);
        store(b, std::uint64_t(i), *fv, iv ? *iv : fl ? 0 : std::int64_t(*fv), fl);
      }
    } else if (init == "fill") {
      const double v = fl ? num(c, t, "value", 0, false, true) : 0;
      const std::int64_t n = fl ? 0 : inum(c, t, "value", 0);
      if (t.get("value"))
        check_fits(c, t.get("value"), who + ": value", b.type, fl ? (long double)v : n);
      for (std::int64_t i = 0; i < count; ++i) store(b, std::uint64_t(i), v, n, fl);
    } else if (init == "random") {
      const toml::node* sn = t.get("seed");
      if (sn && (!sn->is_integer() || *sn->value_exact<std::int64_t>() < 0))
        c.fail(sn, fmt::format("{}: 'seed' must be a non-negative integer", who));
      const std::uint64_t seed =
          static_cast<std::uint64_t>(sn ? *sn->value_exact<std::int64_t>() : std::int64_t{1});
      Rng rng(seed);
      const double lo = fl ? num(c, t, "min", 0) : double(inum(c, t, "min", 0));
      const double hi = fl ? num(c, t, "max", 1) : double(inum(c, t, "max", 255));
      if (hi < lo) c.fail(t, fmt::format("{}: max < min", who));
      if (t.get("min")) check_fits(c, t.get("min"), who + ": min", b.type, lo);
      if (t.get("max")) check_fits(c, t.get("max"), who + ": max", b.type, hi);
      if (!fl && (long double)hi - (long double)lo >= 9.2e18L)
        c.fail(t, fmt::format("{}: max - min leaves the 64-bit integer range", who));
      for (std::int64_t i = 0; i < count; ++i) {
        if (fl)
          store(b, std::uint64_t(i), lo + (hi - lo) * rng.uniform(), 0, true);
        else
          store(b, std::uint64_t(i), 0,
                std::int64_t(lo) +
                    std::int64_t(rng.below(std::uint64_t(std::int64_t(hi) - std::int64_t(lo)) + 1)),
                false);
      }
    } else {
      c.fail(t.get("init"),
             fmt::format("{}: unknown init '{}' (zeros, iota, fill, random, values, file)", who,
                         init));
    }
  }
  total += b.bytes.size();
  if (const toml::node* wr = t.get("write")) {
    if (!wr->is_string()) c.fail(wr, fmt::format("{}: 'write' must be a path", who));
    const std::string path = wr->value<std::string>().value();
    if (path.empty()) c.fail(wr, fmt::format("{}: 'write' is an empty path", who));
    if (const std::string why = output_path_problem(path); !why.empty())
      c.fail(wr, fmt::format("{}: write = {}", who, why));
    for (const Output& o : outputs)
      if (same_output(o.path, path))
        c.fail(wr, fmt::format("{}: write = '{}' is also buffer '{}''s output: give each its own "
                               "file",
                               who, path, o.buffer));
    outputs.push_back({name, path});
  }
  return b;
}

// [symbols.NAME]: the initial bytes of a module variable (__constant__ or __device__), found by its
// PTX name or its demangled C++ name; `count` defaults to the variable's size in elements.
void init_symbol(const SpecContext& c, const std::string& name, const toml::table& t, Workload& w) {
  ptx::Symbol* sym = nullptr;
  std::string names;
  for (ptx::Symbol& g : w.module.globals) {
    if (g.name == name || ptx::demangle(g.name) == name) sym = &g;
    names += (names.empty() ? "" : ", ") + ptx::demangle(g.name);
  }
  if (!sym)
    c.fail(t, fmt::format("symbols.{}: the module has no variable of that name (variables: {})",
                          name, names.empty() ? "none" : names));
  if (t.get("write"))
    c.fail(t.get("write"), fmt::format("symbols.{}: 'write' applies to buffers only", name));
  const toml::node* type = t.get("type");
  const ElemType et =
      type && type->is_string()
          ? parse_elem_type(type->value<std::string>().value(),
                            located(c.origin, type->source().begin.line, "symbol '" + name + "'"))
          : ElemType::U8;
  const std::uint64_t size = sym->size_bytes();
  std::vector<Output> no_outputs;
  std::uint64_t total = 0;
  const Buffer b = make_buffer(c, name, t, no_outputs, total, "symbol",
                               std::int64_t(size / std::uint64_t(elem_bytes(et))));
  if (b.bytes.size() > size)
    c.fail(t, fmt::format("symbols.{}: {} bytes do not fit in the variable's {} bytes", name,
                          b.bytes.size(), size));
  if (b.bytes.empty())  // count = 0 or values = []: the entry would set nothing, silently
    c.fail(t, fmt::format("symbols.{}: the entry gives no data (count 0 or values = [])", name));
  sym->init.assign(size, 0);
  std::copy(b.bytes.begin(), b.bytes.end(), sym->init.begin());
  for (ptx::Kernel& k : w.module.kernels)  // the kernels' copies of the module variable
    for (ptx::Symbol& s : k.symbols)
      if (s.module_level && s.name == sym->name) s.init = sym->init;
  w.symbol_inits.push_back({sym->name, located(c.origin, t.source().begin.line, "")});
}

}  // namespace

std::vector<std::string> check_symbol_inits(const Workload& w, const ptx::Kernel& kernel) {
  return check_symbol_inits(w, std::vector<const ptx::Kernel*>{&kernel});
}

std::vector<std::string> check_symbol_inits(const Workload& w,
                                            const std::vector<const ptx::Kernel*>& kernels) {
  for (const Workload::SymbolInit& s : w.symbol_inits) {
    bool used = false;
    for (const ptx::Kernel* kernel : kernels)
      for (const ptx::Symbol& k : kernel->symbols) used |= k.module_level && k.name == s.name;
    if (!used)
      throw InputError(fmt::format(
          "{}symbols.{}: kernel '{}' never uses this variable (an entry it does not read would "
          "be ignored)",
          s.where, ptx::demangle(s.name),
          kernels.size() == 1 ? ptx::demangle(kernels[0]->name) : "of the pipeline"));
  }
  std::vector<std::string> zeros;
  for (const ptx::Kernel* kernel : kernels)
    for (const ptx::Symbol& k : kernel->symbols) {
      if (!k.module_level || k.space != ptx::Space::Const || !k.init.empty()) continue;
      bool set = false;
      for (const Workload::SymbolInit& s : w.symbol_inits) set |= s.name == k.name;
      const std::string name = ptx::demangle(k.name);
      if (!set && std::find(zeros.begin(), zeros.end(), name) == zeros.end()) zeros.push_back(name);
    }
  return zeros;
}

// The launch's shared-memory keys of table `t`: dynamic_shared and carveout.
static void shared_keys(const SpecContext& c, const toml::table& t, Launch& launch) {
  if (const toml::node* n = t.get("dynamic_shared")) {
    auto v = n->value_exact<std::int64_t>();
    if (!v || *v < 0 || *v > 0xffffffffll) c.fail(n, "'dynamic_shared' must be a byte count");
    launch.dynamic_shared_bytes = static_cast<std::uint32_t>(*v);
  }
  if (const toml::node* n = t.get("carveout")) {
    auto v = n->value_exact<std::int64_t>();
    if (!v || *v < -1 || *v > 100)
      c.fail(n,
             "'carveout' must be a percent of the most shared memory, 0 to 100 (or -1: the "
             "driver's choice)");
    launch.carveout_percent = static_cast<std::int32_t>(*v);
  }
  if (const toml::node* n = t.get("printf_buffer")) {
    // cudaDeviceSetLimit(cudaLimitPrintfFifoSize, N): at least one line's worth, at most 1 GiB.
    auto v = n->value_exact<std::int64_t>();
    if (!v || *v < 256 || *v > (std::int64_t{1} << 30))
      c.fail(n,
             "'printf_buffer' must be the bytes of printf output kept, 256 to 1073741824 "
             "(cudaLimitPrintfFifoSize; default 1048576)");
    launch.printf_bytes = static_cast<std::uint64_t>(*v);
  }
}

void apply_launch_spec_text(std::string_view text, const std::string& origin, Workload& w,
                            bool& has_grid, bool& has_block, std::uint64_t max_bytes) {
  SpecContext c{origin, std::filesystem::path(origin).parent_path(), max_bytes, &w.notes};
  toml::table root;
  try {
    root = toml::parse(text, origin);
  } catch (const toml::parse_error& e) {
    throw InputError(located(origin, e.source().begin.line, toml_syntax_message(e.description())));
  }
  for (const auto& [k, v] : root) {
    const std::string key(k.str());
    if (key != "kernel" && key != "grid" && key != "block" && key != "dynamic_shared" &&
        key != "carveout" && key != "printf_buffer" && key != "args" && key != "buffers" &&
        key != "textures" && key != "tensor_maps" && key != "symbols" && key != "launch" &&
        key != "warm_l2")
      c.fail(&v, fmt::format("unknown key '{}' (kernel, grid, block, dynamic_shared, carveout, "
                             "printf_buffer, args, buffers, textures, tensor_maps, symbols, "
                             "launch, warm_l2)",
                             key));
  }
  if (const toml::node* n = root.get("warm_l2")) {
    // The cycle model's starting L2 (TimingOptions::warm_l2; sim --warm-l2 sets it for any spec).
    if (!n->is_boolean())
      c.fail(n,
             "'warm_l2' must be true or false (true: the launch's buffers start in the L2, as "
             "after the host copied them)");
    w.warm_l2 = n->value<bool>().value();
  }
  if (const toml::node* n = root.get("kernel")) {
    if (!n->is_string()) c.fail(n, "'kernel' must be a string");
    w.kernel = n->value<std::string>().value();
  }
  if (const toml::node* n = root.get("grid")) {
    w.launch.grid = dim_from(c, *n, "grid");
    has_grid = true;
  }
  if (const toml::node* n = root.get("block")) {
    w.launch.block = dim_from(c, *n, "block");
    has_block = true;
  }
  shared_keys(c, root, w.launch);
  if (const toml::node* n = root.get("buffers")) {
    const toml::table* bt = n->as_table();
    if (!bt) c.fail(n, "'buffers' must be a table of [buffers.NAME] tables");
    std::uint64_t total = 0;
    for (const auto& [k, v] : *bt) {
      const toml::table* t = v.as_table();
      if (!t) c.fail(&v, fmt::format("buffers.{} must be a table", k.str()));
      w.memory.add(make_buffer(c, std::string(k.str()), *t, w.outputs, total));
    }
  }
  if (const toml::node* n = root.get("textures")) parse_textures(c, *n, w);
  if (const toml::node* n = root.get("tensor_maps")) parse_tensor_maps(c, *n, w);
  if (const toml::node* n = root.get("symbols")) {
    const toml::table* st = n->as_table();
    if (!st) c.fail(n, "'symbols' must be a table of [symbols.NAME] tables");
    for (const auto& [k, v] : *st) {
      const toml::table* t = v.as_table();
      if (!t) c.fail(&v, fmt::format("symbols.{} must be a table", k.str()));
      init_symbol(c, std::string(k.str()), *t, w);
    }
  }
  if (const toml::node* ln = root.get("launch")) {
    // [[launch]] tables: a pipeline. The single-launch keys would be ambiguous beside them.
    for (const char* key :
         {"kernel", "grid", "block", "dynamic_shared", "carveout", "printf_buffer", "args"})
      if (const toml::node* n = root.get(key))
        c.fail(n, fmt::format("'{}' belongs inside each [[launch]] when the spec has [[launch]] "
                              "tables",
                              key));
    const toml::array* steps = ln->as_array();
    if (!steps || steps->empty() || !steps->is_array_of_tables())
      c.fail(ln, "'launch' must be [[launch]] tables, one per kernel launch, in order");
    for (const toml::node& sn : *steps) {
      const toml::table& t = *sn.as_table();
      for (const auto& [k, v] : t) {
        const std::string key(k.str());
        if (key != "kernel" && key != "grid" && key != "block" && key != "dynamic_shared" &&
            key != "carveout" && key != "printf_buffer" && key != "args")
          c.fail(&v, fmt::format("[[launch]]: unknown key '{}' (kernel, grid, block, "
                                 "dynamic_shared, carveout, printf_buffer, args)",
                                 key));
      }
      Workload::Step step;
      step.where = located(c.origin, t.source().begin.line, "");
      const toml::node* kn = t.get("kernel");
      if (!kn || !kn->is_string()) c.fail(t, "[[launch]] needs kernel = \"NAME\"");
      step.kernel = kn->value<std::string>().value();
      const toml::node* g = t.get("grid");
      const toml::node* b = t.get("block");
      if (!g || !b) c.fail(t, "[[launch]] needs grid and block");
      step.launch.grid = dim_from(c, *g, "grid");
      step.launch.block = dim_from(c, *b, "block");
      shared_keys(c, t, step.launch);
      step.launch.args = parse_args(c, t.get("args"), sn, w);
      w.pipeline.push_back(std::move(step));
    }
    w.kernel = w.pipeline.front().kernel;
    w.launch = w.pipeline.front().launch;
    has_grid = has_block = true;
    return;
  }
  w.launch.args = parse_args(c, root.get("args"), root, w);
}

void apply_launch_spec(const std::string& path, Workload& w, bool& has_grid, bool& has_block,
                       std::uint64_t max_bytes) {
  apply_launch_spec_text(read_file(path, "launch spec"), path, w, has_grid, has_block, max_bytes);
}

std::string element_string(const Buffer& b, std::uint64_t i) {
  const std::uint8_t* p = b.bytes.data() + i * std::uint64_t(elem_bytes(b.type));
  auto get = [&]<typename T>(T) {
    T v;
    std::memcpy(&v, p, sizeof(T));
    return v;
  };
  switch (b.type) {
    case ElemType::U8:
      return fmt::format("{}", get(std::uint8_t{}));
    case ElemType::S8:
      return fmt::format("{}", get(std::int8_t{}));
    case ElemType::U16:
      return fmt::format("{}", get(std::uint16_t{}));
    case ElemType::S16:
      return fmt::format("{}", get(std::int16_t{}));
    case ElemType::U32:
      return fmt::format("{}", get(std::uint32_t{}));
    case ElemType::S32:
      return fmt::format("{}", get(std::int32_t{}));
    case ElemType::U64:
      return fmt::format("{}", get(std::uint64_t{}));
    case ElemType::S64:
      return fmt::format("{}", get(std::int64_t{}));
    case ElemType::F32:
      return fmt::format("{}", get(float{}));
    case ElemType::F64:
      return fmt::format("{}", get(double{}));
    case ElemType::F16:
      return fmt::format("{}", detail::f16_value(get(std::uint16_t{})));
    case ElemType::BF16:
      return fmt::format("{}", detail::bf16_value(get(std::uint16_t{})));
  }
  return {};
}

void write_outputs(const Workload& w) {
  for (const Output& o : w.outputs) {
    const Buffer* b = w.memory.find(o.buffer);
    if (!b) throw InputError(fmt::format("output: no buffer named '{}'", o.buffer));
    OutputFile out(o.path, fmt::format("buffer '{}' (write)", o.buffer));
    if (o.path.ends_with(".bin")) {
      out.write({reinterpret_cast<const char*>(b->bytes.data()), b->bytes.size()});
    } else {
      std::ostream& text = out.stream();
      for (std::uint64_t i = 0; i < b->elements(); ++i) text << element_string(*b, i) << '\n';
    }
    out.commit();
  }
}

}  // namespace smemsim::exec
