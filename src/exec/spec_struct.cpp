// A struct or array argument passed by value (issue 27): args = [{ fields = [...] }] or
// [{ bytes = [...] }] in a launch spec, laid out as a C compiler lays out the struct.
//   fields = [
//     { type = "f32", value = 0.5 },                 # a scalar member
//     { type = "s32", values = [4, 4, 1] },          # an array member (int dims[3])
//     { buffer = "d", offset = 16 },                 # a pointer member (offset/offset_bytes)
//     { texture = "t" },                             # a cudaTextureObject_t member
//     { type = "u8", value = 1, at = 12 },           # at: an explicit byte offset
//   ]
// Each member goes at the next multiple of its alignment (its size; 8 for pointers and textures)
// unless `at` places it (at or after the previous member's end, aligned); the struct is padded to
// its largest alignment. Every value must fit its type. setup_params (prepare.cpp) checks the
// result against the parameter's size and alignment.
#include <fmt/format.h>

#include <toml++/toml.h>
#include <cmath>
#include <cstring>
#include <string>

#include "exec/spec_context.hpp"
#include "smemsim/error.hpp"
#include "smemsim/workloads.hpp"

namespace smemsim::exec {
namespace {

constexpr std::uint64_t kMaxStructBytes = 1 << 16;  // PTX kernel parameters: 32,764 bytes in all

struct Builder {
  const SpecContext& c;
  const Workload& w;
  std::string where;  // "argument 2"
  Arg arg;
  std::uint64_t end = 0;  // bytes placed so far

  // The member's place: `at` when given (not before `end`, aligned), else the next aligned offset.
  std::uint64_t place(const toml::table& f, std::uint64_t size, std::uint64_t align,
                      const std::string& what) {
    std::uint64_t off = (end + align - 1) / align * align;
    if (const toml::node* at = f.get("at")) {
      const auto v = at->value_exact<std::int64_t>();
      if (!v || *v < 0) c.fail(at, fmt::format("{}: 'at' must be a byte offset", what));
      if (std::uint64_t(*v) < end)
        c.fail(at, fmt::format("{}: at = {} overlaps the member before it (which ends at byte {})",
                               what, *v, end));
      if (std::uint64_t(*v) % align)
        c.fail(at,
               fmt::format("{}: at = {} is not a multiple of its alignment ({})", what, *v, align));
      off = std::uint64_t(*v);
    }
    if (off + size > kMaxStructBytes)
      c.fail(f, fmt::format("{}: the struct passes {} bytes, more than a kernel parameter can hold",
                            what, kMaxStructBytes));
    end = off + size;
    arg.bytes.resize(end, 0);
    arg.align = std::max<std::uint32_t>(arg.align, std::uint32_t(align));
    return off;
  }

  void check_keys(const toml::table& f, std::initializer_list<const char*> allowed,
                  const std::string& what) {
    for (const auto& [k, v] : f) {
      bool ok = k.str() == "at" || k.str() == "name";
      for (const char* a : allowed) ok |= k.str() == a;
      if (!ok) {
        std::string list;
        for (const char* a : allowed) list += std::string(a) + ", ";
        c.fail(&v, fmt::format("{}: unknown key '{}' ({}at, name)", what, k.str(), list));
      }
    }
  }

  // One number of type t at byte `off`.
  void number(const toml::node& n, ElemType t, std::uint64_t off, const std::string& what) {
    const bool integral = !elem_is_float(t);
    std::int64_t i = 0;
    double f = 0;
    bool is_float = false;
    if (const auto iv = n.value_exact<std::int64_t>()) {
      i = *iv;
      if (elem_bytes(t) < 8) check_fits(c, &n, what, t, (long double)i);
    } else if (const auto fv = n.value<double>()) {
      if (!std::isfinite(*fv)) c.fail(&n, fmt::format("{} must be a finite number", what));
      if (integral && *fv != std::floor(*fv))
        c.fail(&n, fmt::format("{} = {} is not a whole number, and the member is {}", what, *fv,
                               elem_name(t)));
      if (integral && std::fabs(*fv) >= 9.2e18)
        c.fail(&n, fmt::format("{} = {} is outside the 64-bit integer range", what, *fv));
      check_fits(c, &n, what, t, (long double)*fv);
      f = *fv;
      is_float = true;
    } else {
      c.fail(&n, fmt::format("{} must be a number", what));
    }
    Buffer tmp{"", t, std::vector<std::uint8_t>(std::size_t(elem_bytes(t)))};
    store(tmp, 0, f, i, is_float);
    std::memcpy(arg.bytes.data() + off, tmp.bytes.data(), tmp.bytes.size());
  }

  void member(const toml::table& f, const std::string& what) {
    if (f.contains("buffer")) {
      check_keys(f, {"buffer", "offset", "offset_bytes"}, what);
      const BufferPlace p = buffer_table(c, w, f, what);
      arg.relocs.push_back({std::uint32_t(place(f, 8, 8, what)), false, p.buffer, p.bytes});
      return;
    }
    if (const toml::node* tn = f.get("texture")) {
      check_keys(f, {"texture"}, what);
      const auto name = tn->value_exact<std::string>();
      for (std::uint32_t t = 0; name && t < w.memory.textures.size(); ++t)
        if (w.memory.textures[t].name == *name) {
          arg.relocs.push_back({std::uint32_t(place(f, 8, 8, what)), true, t, 0});
          return;
        }
      c.fail(tn, fmt::format("{}: no texture named '{}'", what, name ? *name : ""));
    }
    check_keys(f, {"type", "value", "values"}, what);
    const auto type = f["type"].value_exact<std::string>();
    if (!type)
      c.fail(f, fmt::format("{}: a member needs type = \"T\" and value or values, or buffer = "
                            "\"NAME\", or texture = \"NAME\"",
                            what));
    ElemType t{};
    try {
      t = parse_elem_type(*type, what);
    } catch (const InputError& e) {
      c.fail(f.get("type"), e.what());
    }
    const toml::node* v = f.get("value");
    const toml::node* vs = f.get("values");
    if (!v == !vs)
      c.fail(f, fmt::format("{}: give value = N or values = [...], one of them", what));
    const std::uint64_t size = std::uint64_t(elem_bytes(t));
    if (v) {
      number(*v, t, place(f, size, size, what), what);
      return;
    }
    const toml::array* a = vs->as_array();
    if (!a || a->empty()) c.fail(vs, fmt::format("{}: values must be a non-empty array", what));
    const std::uint64_t at = place(f, size * a->size(), size, what);
    for (std::size_t k = 0; k < a->size(); ++k)
      number((*a)[k], t, at + k * size, fmt::format("{} value {}", what, k + 1));
  }
};

}  // namespace

Arg struct_arg(const SpecContext& c, const toml::table& t, std::size_t index, const Workload& w) {
  const std::string arg = fmt::format("argument {}", index + 1);
  for (const auto& [k, v] : t)
    if (k.str() != "fields" && k.str() != "bytes")
      c.fail(&v,
             fmt::format("{}: unknown key '{}' (a struct takes fields or bytes)", arg, k.str()));
  const toml::node* fn = t.get("fields");
  const toml::node* bn = t.get("bytes");
  if (fn && bn) c.fail(bn, fmt::format("{}: fields or bytes, not both", arg));
  Builder b{c, w, arg, Arg{}, 0};
  b.arg.kind = Arg::Kind::Bytes;
  const toml::array* a = (fn ? fn : bn)->as_array();
  if (!a || a->empty())
    c.fail(fn ? fn : bn,
           fmt::format("{}: {} must be a non-empty array", arg, fn ? "fields" : "bytes"));
  if (bn) {
    if (a->size() > kMaxStructBytes)
      c.fail(bn, fmt::format("{}: more than {} bytes", arg, kMaxStructBytes));
    for (std::size_t k = 0; k < a->size(); ++k) {
      const auto v = (*a)[k].value_exact<std::int64_t>();
      if (!v || *v < 0 || *v > 255)
        c.fail(&(*a)[k], fmt::format("{}: byte {} must be an integer from 0 to 255", arg, k + 1));
      b.arg.bytes.push_back(std::uint8_t(*v));
    }
    return b.arg;
  }
  for (std::size_t k = 0; k < a->size(); ++k) {
    const toml::table* f = (*a)[k].as_table();
    const std::string what = fmt::format("{} field {}", arg, k + 1);
    if (!f)
      c.fail(&(*a)[k], fmt::format("{} must be a table ({{ type = \"f32\", value = 1.0 }})", what));
    b.member(*f, what);
  }
  // C pads a struct to a multiple of its largest alignment. Padding and a member the fields left
  // out look alike (issue 48: a struct missing its last member went into its tail padding):
  // say which bytes are padding.
  const std::uint64_t size = (b.end + b.arg.align - 1) / b.arg.align * b.arg.align;
  if (size > b.end && c.notes)
    c.notes->push_back(located(
        c.origin, t.source().begin.line,
        fmt::format("{}: its fields end at byte {} and C pads the struct to {} bytes: bytes {}-{} "
                    "are zero (if the kernel's struct has a member there, add it to fields)",
                    arg, b.end, size, b.end, size - 1)));
  b.arg.bytes.resize(size, 0);
  return b.arg;
}

}  // namespace smemsim::exec
