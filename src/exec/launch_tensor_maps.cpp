// [tensor_maps.NAME] in a launch spec (docs/exec.md "TMA"): what cuTensorMapEncodeTiled would have
// been given -- the tensor (a buffer, its element type, sizes and strides) and the box a copy moves
// (its sizes, element strides, swizzle, L2 promotion and out-of-bound fill); with mode = "im2col",
// what cuTensorMapEncodeIm2col would have: the bounding box's corners and the pixels and channels
// a copy moves in place of the box.
#include <fmt/format.h>

#include <tuple>
#include <utility>

#include "exec/spec_context.hpp"
#include "smemsim/tensor_map.hpp"

namespace smemsim::exec {
namespace {

// CUtensorMapDataType, by our names for it: bytes and whether it is a float type.
struct TmaType {
  std::string_view name;
  std::uint8_t bytes;
  bool is_float;
  ptx::Type type;  // how a reduction combines two elements
};
constexpr TmaType kTmaTypes[] = {
    {"u8", 1, false, ptx::Type::U8},      {"u16", 2, false, ptx::Type::U16},
    {"u32", 4, false, ptx::Type::U32},    {"s32", 4, false, ptx::Type::S32},
    {"u64", 8, false, ptx::Type::U64},    {"s64", 8, false, ptx::Type::S64},
    {"f16", 2, true, ptx::Type::F16},     {"f32", 4, true, ptx::Type::F32},
    {"f64", 8, true, ptx::Type::F64},     {"bf16", 2, true, ptx::Type::BF16},
    {"f32_ftz", 4, true, ptx::Type::F32}, {"tf32", 4, true, ptx::Type::F32},
    {"tf32_ftz", 4, true, ptx::Type::F32}};

// The list of 1..5 integers `key`, each in [lo, hi].
std::vector<std::uint64_t> tma_list(const SpecContext& c, const toml::node& n,
                                    const std::string& who, const char* key, std::uint64_t lo,
                                    std::uint64_t hi) {
  const toml::array* a = n.as_array();
  if (!a || a->empty() || a->size() > 5)
    c.fail(&n, fmt::format("{}: '{}' must be a list of 1 to 5 integers", who, key));
  std::vector<std::uint64_t> out;
  for (const toml::node& e : *a) {
    auto v = e.value_exact<std::int64_t>();
    if (!v || *v < std::int64_t(lo) || std::uint64_t(*v) > hi)
      c.fail(&e, hi >= (std::uint64_t{1} << 62)
                     ? fmt::format("{}: each entry of '{}' must be a positive integer", who, key)
                     : fmt::format("{}: each entry of '{}' must be an integer from {} to {}", who,
                                   key, lo, hi));
    out.push_back(std::uint64_t(*v));
  }
  return out;
}

std::string_view tma_word(const SpecContext& c, const toml::node& n, const std::string& who,
                          const char* key, std::initializer_list<std::string_view> names) {
  if (auto s = n.value_exact<std::string>())
    for (std::string_view name : names)
      if (name == *s) return name;
  std::string list;
  for (std::string_view name : names)
    list += fmt::format("{}\"{}\"", list.empty() ? "" : ", ", name);
  c.fail(&n, fmt::format("{}: '{}' must be one of {}", who, key, list));
}

// mode = "im2col": the corners (one signed integer per spatial dimension, W first: rank - 2), the
// channels and pixels a copy moves; no box. Ranges are check_tensor_map's.
void read_im2col(const SpecContext& c, const toml::table& t, const std::string& who, TensorMap& m) {
  if (const toml::node* n = t.get("box"))
    c.fail(n, fmt::format("{}: an im2col map has no box: a copy moves pixels_per_column pixels of "
                          "channels_per_pixel channels",
                          who));
  if (m.rank < 3)
    c.fail(t, fmt::format("{}: an im2col map has 3 to 5 dimensions (C, W, N; C, W, H, N; C, W, "
                          "H, D, N), not {}",
                          who, int(m.rank)));
  const std::size_t spatial = std::size_t(m.rank - 2);
  for (const auto& [key, to] : {std::pair{"pixel_box_lower_corner", &m.lower},
                                std::pair{"pixel_box_upper_corner", &m.upper}}) {
    const toml::node* n = t.get(key);
    if (!n)
      c.fail(t,
             fmt::format("{} needs {} = [...] ({} signed integers, W first)", who, key, spatial));
    const toml::array* a = n->as_array();
    if (!a || a->size() != spatial)
      c.fail(n, fmt::format("{}: '{}' must list {} integers (W first) for a rank-{} map", who, key,
                            spatial, int(m.rank)));
    for (std::size_t k = 0; k < spatial; ++k) {
      auto v = (*a)[k].value_exact<std::int64_t>();
      if (!v || *v < -32768 || *v > 32767)
        c.fail(&(*a)[k], fmt::format("{}: each entry of '{}' must be an integer from -32768 to "
                                     "32767",
                                     who, key));
      (*to)[k] = std::int32_t(*v);
    }
  }
  for (const auto& [key, to, most] : {std::tuple{"channels_per_pixel", &m.channels, 256},
                                      std::tuple{"pixels_per_column", &m.pixels, 1024}}) {
    const toml::node* n = t.get(key);
    if (!n) c.fail(t, fmt::format("{} needs {} = N (1 to {})", who, key, most));
    auto v = n->value_exact<std::int64_t>();
    if (!v || *v < 1 || *v > most)
      c.fail(n, fmt::format("{}: '{}' must be an integer from 1 to {}", who, key, most));
    *to = std::uint32_t(*v);
  }
}

TensorMap make_tensor_map(const SpecContext& c, const std::string& name, const toml::table& t,
                          const Workload& w) {
  const std::string who = "tensor map '" + name + "'";
  static const char* kKeys[] = {"buffer",
                                "offset_bytes",
                                "type",
                                "dims",
                                "strides",
                                "box",
                                "element_strides",
                                "interleave",
                                "swizzle",
                                "l2_promotion",
                                "oob_fill",
                                "mode",
                                "pixel_box_lower_corner",
                                "pixel_box_upper_corner",
                                "channels_per_pixel",
                                "pixels_per_column"};
  for (const auto& [k, v] : t) {
    bool known = false;
    for (const char* key : kKeys) known |= k.str() == key;
    if (!known)
      c.fail(&v, fmt::format("{}: unknown key '{}' (buffer, offset_bytes, type, dims, strides, "
                             "box, element_strides, interleave, swizzle, l2_promotion, oob_fill, "
                             "mode; for mode = \"im2col\": pixel_box_lower_corner, "
                             "pixel_box_upper_corner, channels_per_pixel, pixels_per_column)",
                             who, k.str()));
  }
  TensorMap m;
  m.name = name;
  const toml::node* bn = t.get("buffer");
  if (!bn || !bn->is_string())
    c.fail(t,
           fmt::format("{} needs buffer = \"NAME\" (the [buffers] entry holding the tensor)", who));
  const std::string bname = bn->value<std::string>().value();
  const Buffer* buf = nullptr;
  for (std::uint32_t b = 0; b < w.memory.buffers.size(); ++b)
    if (w.memory.buffers[b].name == bname) m.buffer = b, buf = &w.memory.buffers[b];
  if (!buf) c.fail(bn, fmt::format("{}: no buffer named '{}'", who, bname));
  if (const toml::node* n = t.get("offset_bytes")) {
    auto v = n->value_exact<std::int64_t>();
    if (!v || *v < 0 || std::uint64_t(*v) >= buf->bytes.size())
      c.fail(n, fmt::format("{}: offset_bytes must be an integer inside buffer '{}' ({} bytes)",
                            who, bname, buf->bytes.size()));
    m.offset = std::uint64_t(*v);
  }
  // The type: given, or the buffer's (its bytes and whether it is a float).
  m.elem_bytes = std::uint8_t(elem_bytes(buf->type));
  m.is_float = elem_is_float(buf->type);
  m.type = std::string(elem_name(buf->type));
  // The buffer's type as the map's (u8 for s8, u16 for s16: CUDA has no signed 8/16-bit map).
  static constexpr std::pair<ElemType, ptx::Type> kFromBuffer[] = {
      {ElemType::U8, ptx::Type::U8},   {ElemType::S8, ptx::Type::U8},
      {ElemType::U16, ptx::Type::U16}, {ElemType::S16, ptx::Type::U16},
      {ElemType::U32, ptx::Type::U32}, {ElemType::S32, ptx::Type::S32},
      {ElemType::U64, ptx::Type::U64}, {ElemType::S64, ptx::Type::S64},
      {ElemType::F32, ptx::Type::F32}, {ElemType::F64, ptx::Type::F64},
      {ElemType::F16, ptx::Type::F16}, {ElemType::BF16, ptx::Type::BF16}};
  for (const auto& [e, p] : kFromBuffer)
    if (e == buf->type) m.elem_type = p;
  if (const toml::node* n = t.get("type")) {
    bool found = false;
    for (const TmaType& k : kTmaTypes)
      if (n->value_exact<std::string>() == k.name)
        m.elem_bytes = k.bytes, m.is_float = k.is_float, m.type = k.name, m.elem_type = k.type,
        found = true;
    if (!found)
      c.fail(n, fmt::format("{}: 'type' must be one of u8 u16 u32 s32 u64 s64 f16 f32 f64 bf16 "
                            "f32_ftz tf32 tf32_ftz (CUtensorMapDataType; the packed 4- and 6-bit "
                            "types are not modelled)",
                            who));
  }
  m.strides[0] = m.elem_bytes;
  const toml::node* dn = t.get("dims");
  if (!dn)
    c.fail(t, fmt::format("{} needs dims = [...] (the tensor's sizes, innermost first)", who));
  const std::vector<std::uint64_t> dims = tma_list(c, *dn, who, "dims", 1, std::uint64_t{1} << 32);
  m.rank = std::uint8_t(dims.size());
  for (std::size_t d = 0; d < dims.size(); ++d) m.dims[d] = dims[d];
  if (const toml::node* n = t.get("strides")) {
    const std::vector<std::uint64_t> s =
        tma_list(c, *n, who, "strides", 1, (std::uint64_t{1} << 40) - 1);
    if (s.size() != std::size_t(m.rank - 1))
      c.fail(n, fmt::format("{}: 'strides' lists {} byte strides; a rank-{} tensor has {} (one per "
                            "dimension after the first)",
                            who, s.size(), int(m.rank), m.rank - 1));
    for (std::size_t d = 0; d < s.size(); ++d) m.strides[d + 1] = s[d];
  } else {  // packed
    for (std::size_t d = 1; d < m.rank; ++d) m.strides[d] = m.strides[d - 1] * m.dims[d - 1];
  }
  if (const toml::node* n = t.get("mode"))
    m.im2col = tma_word(c, *n, who, "mode", {"tiled", "im2col"}) == "im2col";
  const toml::node* xn = t.get("box");
  if (m.im2col) {
    read_im2col(c, t, who, m);
  } else {
    for (const char* k : {"pixel_box_lower_corner", "pixel_box_upper_corner", "channels_per_pixel",
                          "pixels_per_column"})
      if (const toml::node* n = t.get(k))
        c.fail(n, fmt::format("{}: '{}' is an im2col map's (mode = \"im2col\")", who, k));
    if (!xn)
      c.fail(t, fmt::format("{} needs box = [...] (the elements a copy moves per dimension)", who));
    const std::vector<std::uint64_t> box = tma_list(c, *xn, who, "box", 1, ~std::uint64_t{0} >> 1);
    if (box.size() != m.rank)
      c.fail(xn,
             fmt::format("{}: 'box' has {} sizes for {} dimensions", who, box.size(), int(m.rank)));
    for (std::size_t d = 0; d < box.size(); ++d) {
      if (box[d] > 256)
        c.fail(xn, fmt::format("{}: box[{}] = {}: a box is at most 256 elements in each dimension "
                               "(cuTensorMapEncodeTiled)",
                               who, d, box[d]));
      m.box[d] = std::uint32_t(box[d]);
    }
  }
  if (const toml::node* n = t.get("element_strides")) {
    const std::vector<std::uint64_t> e = tma_list(c, *n, who, "element_strides", 1, 8);
    if (e.size() != m.rank)
      c.fail(n, fmt::format("{}: 'element_strides' has {} entries for {} dimensions", who, e.size(),
                            int(m.rank)));
    for (std::size_t d = 0; d < e.size(); ++d) m.estrides[d] = std::uint32_t(e[d]);
  }
  if (const toml::node* n = t.get("interleave"))
    if (tma_word(c, *n, who, "interleave", {"none", "16B", "32B"}) != "none")
      c.fail(n, fmt::format("{}: interleaved layouts (NC/8HWC8) are not modelled; interleave = "
                            "\"none\"",
                            who));
  if (const toml::node* n = t.get("swizzle")) {
    const std::string_view s = tma_word(c, *n, who, "swizzle", {"none", "32B", "64B", "128B"});
    m.swizzle = s == "32B"    ? TmaSwizzle::B32
                : s == "64B"  ? TmaSwizzle::B64
                : s == "128B" ? TmaSwizzle::B128
                              : TmaSwizzle::None;
  }
  if (const toml::node* n = t.get("l2_promotion")) {
    const std::string_view s =
        tma_word(c, *n, who, "l2_promotion", {"none", "64B", "128B", "256B"});
    m.l2_promotion = s == "64B" ? 1 : s == "128B" ? 2 : s == "256B" ? 3 : 0;
  }
  if (const toml::node* n = t.get("oob_fill"))
    m.oob_nan = tma_word(c, *n, who, "oob_fill", {"zero", "nan"}) == "nan";
  // The requirements that involve several fields, at the table's line.
  const toml::node* at = xn ? xn : t.get("pixel_box_lower_corner");
  try {
    check_tensor_map(m, buf->bytes.size(), "");
  } catch (const InputError& e) {
    c.fail(at, e.what());
  }
  return m;
}

}  // namespace

void parse_tensor_maps(const SpecContext& c, const toml::node& n, Workload& w) {
  const toml::table* tt = n.as_table();
  if (!tt) c.fail(&n, "'tensor_maps' must be a table of [tensor_maps.NAME] tables");
  for (const auto& [k, v] : *tt) {
    const std::string name(k.str());
    const toml::table* t = v.as_table();
    if (!t) c.fail(&v, fmt::format("tensor_maps.{} must be a table", name));
    if (w.memory.find(name))
      c.fail(*t, fmt::format("tensor map '{}' has the name of a buffer; an argument would be "
                             "ambiguous",
                             name));
    w.memory.tensor_maps.push_back(make_tensor_map(c, name, *t, w));
  }
}

}  // namespace smemsim::exec
