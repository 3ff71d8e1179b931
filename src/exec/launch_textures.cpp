// [textures.NAME] in a launch spec (docs/exec.md "Textures"): what cudaCreateTextureObject would
// have been given -- a buffer of texels (cudaResourceDesc), its shape and channels
// (cudaChannelFormatDesc) and the sampling (cudaTextureDesc: filter, address modes, normalized
// coordinates, read mode).
#include <fmt/format.h>

#include "exec/spec_context.hpp"
#include "smemsim/texture.hpp"

namespace smemsim::exec {
namespace {

template <typename E, std::size_t N>
E choose(const SpecContext& c, const toml::node& n, const std::string& who, const char* key,
         const std::array<std::pair<std::string_view, E>, N>& names) {
  std::string list;
  if (auto s = n.value_exact<std::string>())
    for (const auto& [name, e] : names)
      if (name == *s) return e;
  for (const auto& [name, e] : names)
    list += fmt::format("{}\"{}\"", list.empty() ? "" : ", ", name);
  c.fail(&n, fmt::format("{}: '{}' must be one of {}", who, key, list));
}

std::uint32_t positive(const SpecContext& c, const toml::node& n, const std::string& who,
                       const char* key) {
  auto v = n.value_exact<std::int64_t>();
  if (!v || *v < 1 || *v > (std::int64_t{1} << 30))
    c.fail(&n, fmt::format("{}: '{}' must be a positive integer", who, key));
  return static_cast<std::uint32_t>(*v);
}

constexpr std::array<std::pair<std::string_view, TexAddress>, 4> kAddress{
    {{"clamp", TexAddress::Clamp},
     {"border", TexAddress::Border},
     {"wrap", TexAddress::Wrap},
     {"mirror", TexAddress::Mirror}}};

Texture make_texture(const SpecContext& c, const std::string& name, const toml::table& t,
                     Workload& w) {
  const std::string who = "texture '" + name + "'";
  static const char* kKeys[] = {"buffer", "size",    "layers",     "channels",
                                "filter", "address", "normalized", "read"};
  for (const auto& [k, v] : t) {
    bool known = false;
    for (const char* key : kKeys) known |= k.str() == key;
    if (!known)
      c.fail(&v, fmt::format("{}: unknown key '{}' (buffer, size, layers, channels, filter, "
                             "address, normalized, read)",
                             who, k.str()));
  }
  Texture tex;
  tex.name = name;
  const toml::node* bn = t.get("buffer");
  if (!bn || !bn->is_string())
    c.fail(t,
           fmt::format("{} needs buffer = \"NAME\" (the [buffers] entry holding its texels)", who));
  const std::string bname = bn->value<std::string>().value();
  bool found = false;
  for (std::uint32_t b = 0; b < w.memory.buffers.size(); ++b)
    if (w.memory.buffers[b].name == bname) tex.buffer = b, found = true;
  if (!found) c.fail(bn, fmt::format("{}: no buffer named '{}'", who, bname));
  const Buffer& buf = w.memory.buffers[tex.buffer];
  if (const toml::node* n = t.get("channels")) {
    const std::uint32_t ch = positive(c, *n, who, "channels");
    if (ch != 1 && ch != 2 && ch != 4)
      c.fail(n, fmt::format("{}: channels = {}; CUDA textures have 1, 2 or 4", who, ch));
    tex.channels = static_cast<std::uint8_t>(ch);
  }
  if (const toml::node* n = t.get("layers")) tex.layers = positive(c, *n, who, "layers");
  if (const toml::node* n = t.get("size")) {
    const toml::array* a = n->as_array();
    if (!a || a->empty() || a->size() > 3)
      c.fail(n, fmt::format("{}: 'size' must be [width], [width, height] or [width, height, "
                            "depth] in texels",
                            who));
    tex.dims = static_cast<std::uint8_t>(a->size());
    std::uint32_t* dim[3] = {&tex.width, &tex.height, &tex.depth};
    for (std::size_t k = 0; k < a->size(); ++k) *dim[k] = positive(c, (*a)[k], who, "size");
  } else {  // a 1-D texture over the whole buffer
    const std::uint64_t texels = buf.elements() / tex.channels / (tex.layers ? tex.layers : 1);
    if (texels == 0 || texels > (std::uint64_t{1} << 30))
      c.fail(t, fmt::format("{} needs size = [width, ...] (buffer '{}' has {} elements)", who,
                            bname, buf.elements()));
    tex.width = static_cast<std::uint32_t>(texels);
  }
  if (const toml::node* n = t.get("filter"))
    tex.filter = choose<TexFilter, 2>(
        c, *n, who, "filter", {{{"point", TexFilter::Point}, {"linear", TexFilter::Linear}}});
  if (const toml::node* n = t.get("address")) {
    if (const toml::array* a = n->as_array()) {
      if (a->size() != tex.dims)
        c.fail(n, fmt::format("{}: 'address' lists {} modes for {} dimension{}", who, a->size(),
                              int(tex.dims), tex.dims == 1 ? "" : "s"));
      for (std::size_t k = 0; k < a->size(); ++k)
        tex.address[k] = choose<TexAddress, 4>(c, (*a)[k], who, "address", kAddress);
    } else {
      tex.address.fill(choose<TexAddress, 4>(c, *n, who, "address", kAddress));
    }
  }
  if (const toml::node* n = t.get("normalized")) {
    auto v = n->value_exact<bool>();
    if (!v) c.fail(n, fmt::format("{}: 'normalized' must be true or false", who));
    tex.normalized = *v;
  }
  if (const toml::node* n = t.get("read"))
    tex.read = choose<TexRead, 2>(
        c, *n, who, "read", {{{"element", TexRead::Element}, {"normalized", TexRead::Normalized}}});
  // CUDA supports wrap and mirror only with normalized coordinates; with unnormalized ones a GPU
  // clamps (issue 27): so do we, and say so.
  if (!tex.normalized)
    for (int d = 0; d < tex.dims; ++d) {
      TexAddress& a = tex.address[std::size_t(d)];
      if (a != TexAddress::Wrap && a != TexAddress::Mirror) continue;
      w.notes.push_back(located(
          c.origin,
          t.get("address") ? t.get("address")->source().begin.line : t.source().begin.line,
          fmt::format("{}: address = \"{}\" with unnormalized coordinates reads as \"clamp\" in "
                      "dimension {}, as on a GPU (CUDA supports wrap and mirror with normalized = "
                      "true only)",
                      who, a == TexAddress::Wrap ? "wrap" : "mirror", d)));
      a = TexAddress::Clamp;
    }
  check_texture(tex, buf, located(c.origin, t.source().begin.line, ""));
  return tex;
}

}  // namespace

void parse_textures(const SpecContext& c, const toml::node& n, Workload& w) {
  const toml::table* tt = n.as_table();
  if (!tt) c.fail(&n, "'textures' must be a table of [textures.NAME] tables");
  for (const auto& [k, v] : *tt) {
    const std::string name(k.str());
    const toml::table* t = v.as_table();
    if (!t) c.fail(&v, fmt::format("textures.{} must be a table", name));
    if (w.memory.find(name))
      c.fail(*t, fmt::format("texture '{}' has the name of a buffer; an argument would be "
                             "ambiguous",
                             name));
    w.memory.textures.push_back(make_texture(c, name, *t, w));
  }
}

}  // namespace smemsim::exec
