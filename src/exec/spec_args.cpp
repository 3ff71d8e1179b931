// args = [...] of a launch spec (launch_spec.cpp calls it for the spec and each [[launch]]): a
// buffer's address, a pointer into a buffer, a texture object, a number or a struct
// (spec_struct.cpp) per kernel parameter.
#include <fmt/format.h>

#include <toml++/toml.h>
#include <charconv>
#include <optional>
#include <string>
#include <vector>

#include "exec/spec_context.hpp"
#include "smemsim/error.hpp"
#include "smemsim/workloads.hpp"

namespace smemsim::exec {

// A pointer into a buffer (issue 27): "d+64" (elements of d's type) or { buffer = "d",
// offset_bytes = 256 } (or offset = 64, in elements), at most the buffer's end.
BufferPlace buffer_place(const SpecContext& c, const Workload& w, const toml::node& at,
                         const std::string& what, const std::string& name, std::int64_t offset,
                         bool in_bytes) {
  for (std::uint32_t b = 0; b < w.memory.buffers.size(); ++b) {
    const Buffer& buf = w.memory.buffers[b];
    if (buf.name != name) continue;
    const long double off = (long double)offset * (in_bytes ? 1 : elem_bytes(buf.type));
    if (off < 0 || off > (long double)buf.bytes.size())
      c.fail(&at, fmt::format("{}: offset {} {} is outside buffer '{}' ({} elements of {}, {} "
                              "bytes)",
                              what, offset, in_bytes ? "bytes" : "elements", name,
                              buf.bytes.size() / std::uint64_t(elem_bytes(buf.type)),
                              elem_name(buf.type), buf.bytes.size()));
    return {b, static_cast<std::int64_t>(off)};
  }
  c.fail(&at, fmt::format("{}: no buffer named '{}'", what, name));
}

BufferPlace buffer_table(const SpecContext& c, const Workload& w, const toml::table& t,
                         const std::string& what) {
  const auto name = t["buffer"].value_exact<std::string>();
  if (!name) c.fail(t, fmt::format("{}: a table needs buffer = \"NAME\"", what));
  const toml::node* on = t.get("offset");
  const toml::node* bn = t.get("offset_bytes");
  if (on && bn) c.fail(bn, fmt::format("{}: offset (elements) or offset_bytes, not both", what));
  const toml::node* n = on ? on : bn;
  const auto off = n ? n->value_exact<std::int64_t>() : std::optional<std::int64_t>(0);
  if (!off) c.fail(n, fmt::format("{}: the offset must be an integer", what));
  return buffer_place(c, w, n ? *n : *t.get("buffer"), what, *name, *off, bn != nullptr);
}

// args = [...] of the launch spec or of one [[launch]]: buffer names (their addresses), texture
// names (texture objects), numbers, or a struct's fields or bytes (spec_struct.cpp).
std::vector<Arg> parse_args(const SpecContext& c, const toml::node* an, const toml::node& owner,
                            const Workload& w) {
  if (!an)
    c.fail(&owner,
           "the launch spec needs args = [...] (a buffer name or a number per kernel parameter)");
  const toml::array* args = an->as_array();
  if (!args) c.fail(an, "'args' must be an array");
  std::vector<Arg> out;
  const auto pointer = [&](std::size_t i, const toml::node& at, const std::string& name,
                           std::int64_t offset, bool in_bytes) {
    const BufferPlace p =
        buffer_place(c, w, at, fmt::format("argument {}", i + 1), name, offset, in_bytes);
    return Arg::buf(p.buffer, p.bytes);
  };
  for (std::size_t i = 0; i < args->size(); ++i) {
    const toml::node& a = (*args)[i];
    if (const toml::table* t = a.as_table()) {
      if (t->contains("fields") || t->contains("bytes")) {
        out.push_back(struct_arg(c, *t, i, w));
        continue;
      }
      for (const auto& [k, v] : *t)
        if (k.str() != "buffer" && k.str() != "offset" && k.str() != "offset_bytes")
          c.fail(&v, fmt::format("argument {}: unknown key '{}' (buffer, offset, offset_bytes; a "
                                 "struct: fields or bytes)",
                                 i + 1, k.str()));
      const BufferPlace p = buffer_table(c, w, *t, fmt::format("argument {}", i + 1));
      out.push_back(Arg::buf(p.buffer, p.bytes));
      continue;
    }
    if (auto s = a.value_exact<std::string>()) {
      // "name+N" / "name + N": N elements into buffer `name`.
      if (const std::size_t plus = s->find('+'); plus != std::string::npos) {
        std::string name = s->substr(0, plus), num = s->substr(plus + 1);
        const auto trim = [](std::string& x) {
          x.erase(0, x.find_first_not_of(' '));
          x.erase(x.find_last_not_of(' ') + 1);
        };
        trim(name);
        trim(num);
        std::int64_t n = 0;
        const auto [end, ec] = std::from_chars(num.data(), num.data() + num.size(), n);
        if (ec == std::errc::result_out_of_range && end == num.data() + num.size())
          c.fail(&a, fmt::format("argument {}: offset {} elements is outside buffer '{}'", i + 1,
                                 num, name));
        if (ec != std::errc() || end != num.data() + num.size() || num.empty())
          c.fail(&a,
                 fmt::format("argument {}: '{}' is not NAME+ELEMENTS (e.g. \"d+64\")", i + 1, *s));
        out.push_back(pointer(i, a, name, n, false));
        continue;
      }
      bool found = false;
      for (std::uint32_t b = 0; b < w.memory.buffers.size(); ++b)
        if (w.memory.buffers[b].name == *s) {
          out.push_back(Arg::buf(b));
          found = true;
        }
      for (std::uint32_t t = 0; t < w.memory.textures.size(); ++t)
        if (w.memory.textures[t].name == *s) {
          out.push_back(Arg::texture(t));
          found = true;
        }
      for (std::uint32_t t = 0; t < w.memory.tensor_maps.size(); ++t)
        if (w.memory.tensor_maps[t].name == *s) {
          out.push_back(Arg::tensor_map(t));
          found = true;
        }
      if (!found)
        c.fail(&a,
               fmt::format("argument {}: no buffer, texture or tensor map named '{}'", i + 1, *s));
    } else if (auto iv = a.value_exact<std::int64_t>()) {
      out.push_back(Arg::integer(*iv));
    } else if (auto fv = a.value_exact<double>()) {
      out.push_back(Arg::real(*fv));
    } else if (auto bv = a.value_exact<bool>()) {
      out.push_back(Arg::truth(*bv));
    } else {
      c.fail(&a, fmt::format("argument {} must be a buffer name or a number", i + 1));
    }
  }
  return out;
}

}  // namespace smemsim::exec
