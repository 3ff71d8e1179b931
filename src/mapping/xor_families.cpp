// The configurable XOR-based families of seed 002 §4 (bv, bvxor, bits, bitsxor) and the general XOR
// matrix (xormask). One class holds the matrix; bit-vector forms keep a shift/and fast path.
#include <charconv>

#include <fmt/format.h>

#include "smemsim/error.hpp"
#include "smemsim/hash_families.hpp"

namespace smemsim {

int XorMatrix::xor_gates() const {
  int g = 0;
  for (int j = 0; j < m; ++j)
    if (rows[j]) g += std::popcount(rows[j]) - 1;
  return g;
}

namespace {

int gf2_rank(std::array<std::uint32_t, kMaxIndexBits> r, int count) {
  int rank = 0;
  for (int col = 0; col < 32 && rank < count; ++col) {
    const std::uint32_t bit = 1u << col;
    int piv = -1;
    for (int i = rank; i < count; ++i)
      if (r[i] & bit) {
        piv = i;
        break;
      }
    if (piv < 0) continue;
    std::swap(r[rank], r[piv]);
    for (int i = 0; i < count; ++i)
      if (i != rank && (r[i] & bit)) r[i] ^= r[rank];
    ++rank;
  }
  return rank;
}

}  // namespace

int XorMatrix::rank() const {
  return gf2_rank(rows, m);
}

bool XorMatrix::software_bijective() const {
  std::array<std::uint32_t, kMaxIndexBits> low{};
  const std::uint32_t lm = (m >= 32) ? ~0u : ((1u << m) - 1);
  for (int j = 0; j < m; ++j) low[j] = rows[j] & lm;
  return gf2_rank(low, m) == m;
}

namespace {

std::uint32_t low_mask(int bits) {
  return bits >= 32 ? ~0u : ((1u << bits) - 1);
}

class XorHash final : public IndexFunction {
 public:
  // Bit-vector form (fast path): (a >> k1) ^ ((a >> k2) & mask), masked to m bits.
  XorHash(IndexGeometry g, XorMatrix x, std::string spec, int k1, int k2, std::uint32_t mask)
      : IndexFunction(g),
        x_(x),
        spec_(std::move(spec)),
        vector_(true),
        k1_(k1),
        k2_(k2),
        mask_(mask),
        out_(low_mask(g.out_bits)),
        in_(low_mask(g.addr_bits)) {}
  XorHash(IndexGeometry g, XorMatrix x, std::string spec)
      : IndexFunction(g),
        x_(x),
        spec_(std::move(spec)),
        out_(low_mask(g.out_bits)),
        in_(low_mask(g.addr_bits)) {}

  std::uint32_t index(std::uint32_t a) const override {
    if (vector_) {
      a &= in_;
      return ((a >> k1_) ^ ((a >> k2_) & mask_)) & out_;
    }
    return x_.apply(a);
  }
  void index_many(const std::uint32_t* in, std::uint32_t* out, int n) const override {
    if (vector_) {
      for (int i = 0; i < n; ++i) {
        const std::uint32_t a = in[i] & in_;
        out[i] = ((a >> k1_) ^ ((a >> k2_) & mask_)) & out_;
      }
      return;
    }
    for (int i = 0; i < n; ++i) out[i] = x_.apply(in[i]);
  }
  std::string spec() const override { return spec_; }
  const XorMatrix& matrix() const { return x_; }

 private:
  XorMatrix x_;
  std::string spec_;
  bool vector_ = false;
  int k1_ = 0, k2_ = 0;
  std::uint32_t mask_ = 0, out_, in_;
};

[[noreturn]] void bad(std::string_view family, std::string_view args, const std::string& why) {
  throw InputError(fmt::format("hash spec '{}:{}': {}", family, args, why));
}

// Parses an unsigned number (decimal, or hex with 0x).
bool parse_uint(std::string_view s, std::uint64_t& out) {
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    s.remove_prefix(2);
    base = 16;
  }
  if (s.empty()) return false;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), out, base);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  while (true) {
    const auto p = s.find(sep);
    out.push_back(s.substr(0, p));
    if (p == std::string_view::npos) break;
    s.remove_prefix(p + 1);
  }
  return out;
}

void check_geometry(std::string_view family, std::string_view args, const IndexGeometry& g) {
  if (g.addr_bits < 1 || g.addr_bits > kMaxAddrBits)
    bad(family, args,
        fmt::format("{} address bits is out of range [1, {}]", g.addr_bits, kMaxAddrBits));
  if (g.out_bits < 1 || g.out_bits > g.addr_bits)
    bad(family, args,
        fmt::format("an index of {} bits cannot be taken from {} address bits", g.out_bits,
                    g.addr_bits));
}

int parse_bit(std::string_view family, std::string_view args, std::string_view item,
              const IndexGeometry& g) {
  std::uint64_t v = 0;
  if (!parse_uint(item, v)) bad(family, args, fmt::format("'{}' is not a bit number", item));
  if (v >= std::uint64_t(g.addr_bits))
    bad(family, args,
        fmt::format("address bit {} is out of range: the address has {} bits (0..{})", v,
                    g.addr_bits, g.addr_bits - 1));
  return int(v);
}

}  // namespace

XorMatrix bvxor_matrix(int k1, int k2, std::uint32_t mask, const IndexGeometry& g) {
  XorMatrix x;
  x.m = g.out_bits;
  x.n = g.addr_bits;
  const std::uint32_t in = low_mask(g.addr_bits);
  for (int j = 0; j < x.m; ++j) {
    std::uint32_t r = 0;
    if (k1 + j < 32) r |= 1u << (k1 + j);
    if (((mask >> j) & 1u) && k2 + j < 32) r ^= 1u << (k2 + j);
    x.rows[j] = r & in;
  }
  return x;
}

std::string bv_spec(int k) {
  return fmt::format("bv:k={}", k);
}
std::string bvxor_spec(int k1, int k2, std::uint32_t mask) {
  if (mask == 0)
    k2 = k1;  // canonical: with no mask bit, k2 plays no part (002 §5.1: k1 = k, mask = 0)
  return fmt::format("bvxor:k1={},k2={},mask={}", k1, k2, mask);
}
std::string bits_spec(const std::vector<int>& bits) {
  return fmt::format("bits:{}", fmt::join(bits, ","));
}
std::string bitsxor_spec(const std::vector<std::pair<int, int>>& terms) {
  std::string s = "bitsxor:";
  for (std::size_t t = 0; t < terms.size(); ++t) {
    if (t) s += ',';
    s += terms[t].second < 0 ? fmt::format("{}", terms[t].first)
                             : fmt::format("{}^{}", terms[t].first, terms[t].second);
  }
  return s;
}
std::string xormask_spec(const XorMatrix& x) {
  std::string s = "xormask:";
  for (int j = 0; j < x.m; ++j) s += fmt::format("{}{:#x}", j ? "," : "", x.rows[j]);
  return s;
}

// bv:k=K (seed 002 §4.1): bits K..K+m-1, 0 <= K <= n-m (Table 1: n-m+1 functions).
std::unique_ptr<IndexFunction> make_bv(std::string_view args, const IndexGeometry& g) {
  check_geometry("bv", args, g);
  if (args.substr(0, 2) != "k=") bad("bv", args, "expected bv:k=K");
  std::uint64_t k = 0;
  if (!parse_uint(args.substr(2), k)) bad("bv", args, "k is not a number");
  if (k > std::uint64_t(g.addr_bits - g.out_bits))
    bad("bv", args,
        fmt::format("k={} is out of range: bits k..k+{} must lie in the {} address "
                    "bits, so 0 <= k <= {}",
                    k, g.out_bits - 1, g.addr_bits, g.addr_bits - g.out_bits));
  return std::make_unique<XorHash>(g, bvxor_matrix(int(k), 0, 0, g), bv_spec(int(k)), int(k), 0, 0);
}

// bvxor:k1=A,k2=B,mask=M (seed 002 §4.2, §5.1): k1 in [0, n-m], k2 in [0, n-1], mask < 2^m.
std::unique_ptr<IndexFunction> make_bvxor(std::string_view args, const IndexGeometry& g) {
  check_geometry("bvxor", args, g);
  std::optional<std::uint64_t> k1, k2, mask;
  for (std::string_view item : split(args, ',')) {
    const auto eq = item.find('=');
    if (eq == std::string_view::npos)
      bad("bvxor", args, fmt::format("'{}' is not key=value (expected k1=A,k2=B,mask=M)", item));
    const std::string_view key = item.substr(0, eq);
    std::uint64_t v = 0;
    if (!parse_uint(item.substr(eq + 1), v))
      bad("bvxor", args, fmt::format("'{}' is not a number", item.substr(eq + 1)));
    if (key == "k1")
      k1 = v;
    else if (key == "k2")
      k2 = v;
    else if (key == "mask")
      mask = v;
    else
      bad("bvxor", args, fmt::format("unknown key '{}' (expected k1, k2, mask)", key));
  }
  if (!k1 || !k2 || !mask) bad("bvxor", args, "expected bvxor:k1=A,k2=B,mask=M (all three)");
  if (*k1 > std::uint64_t(g.addr_bits - g.out_bits))
    bad("bvxor", args,
        fmt::format("k1={} is out of range: 0 <= k1 <= {} (n={} address bits, m={})", *k1,
                    g.addr_bits - g.out_bits, g.addr_bits, g.out_bits));
  if (*k2 >= std::uint64_t(g.addr_bits))
    bad("bvxor", args, fmt::format("k2={} is out of range: 0 <= k2 <= {}", *k2, g.addr_bits - 1));
  if (*mask > low_mask(g.out_bits))
    bad("bvxor", args,
        fmt::format("mask {:#x} is wider than the {}-bit index (max {:#x})", *mask, g.out_bits,
                    low_mask(g.out_bits)));
  const auto m = std::uint32_t(*mask);
  return std::make_unique<XorHash>(g, bvxor_matrix(int(*k1), int(*k2), m, g),
                                   bvxor_spec(int(*k1), int(*k2), m), int(*k1), int(*k2), m);
}

// bits:i0,...,i_{m-1} (seed 002 §4.3): m distinct address bits, bank bit j = address bit i_j.
std::unique_ptr<IndexFunction> make_bits(std::string_view args, const IndexGeometry& g) {
  check_geometry("bits", args, g);
  const auto items = split(args, ',');
  if (int(items.size()) != g.out_bits)
    bad("bits", args,
        fmt::format("{} bits listed, the index has {} bits", items.size(), g.out_bits));
  XorMatrix x;
  x.m = g.out_bits;
  x.n = g.addr_bits;
  std::vector<int> bits;
  std::uint32_t seen = 0;
  for (int j = 0; j < x.m; ++j) {
    const int b = parse_bit("bits", args, items[j], g);
    if (seen & (1u << b)) bad("bits", args, fmt::format("address bit {} is listed twice", b));
    seen |= 1u << b;
    x.rows[j] = 1u << b;
    bits.push_back(b);
  }
  return std::make_unique<XorHash>(g, x, bits_spec(bits));
}

// bitsxor:t0,t1,... (seed 002 §4.4, Table 3): each term is one address bit or 'i^j'.
std::unique_ptr<IndexFunction> make_bitsxor(std::string_view args, const IndexGeometry& g) {
  check_geometry("bitsxor", args, g);
  const auto items = split(args, ',');
  if (int(items.size()) != g.out_bits)
    bad("bitsxor", args,
        fmt::format("{} terms listed, the index has {} bits", items.size(), g.out_bits));
  XorMatrix x;
  x.m = g.out_bits;
  x.n = g.addr_bits;
  std::vector<std::pair<int, int>> terms;
  for (int j = 0; j < x.m; ++j) {
    const auto parts = split(items[j], '^');
    if (parts.size() > 2)
      bad("bitsxor", args,
          fmt::format("term '{}' XORs more than two bits (use xormask)", items[j]));
    const int a = parse_bit("bitsxor", args, parts[0], g);
    int b = -1;
    if (parts.size() == 2) {
      b = parse_bit("bitsxor", args, parts[1], g);
      if (a == b)
        bad("bitsxor", args, fmt::format("term '{}' XORs a bit with itself (always 0)", items[j]));
    }
    x.rows[j] = (1u << a) | (b >= 0 ? 1u << b : 0u);
    terms.emplace_back(a, b);
  }
  return std::make_unique<XorHash>(g, x, bitsxor_spec(terms));
}

// xormask:M0,M1,... : index bit j = parity(a & M_j); every XOR-based function is one of these.
std::unique_ptr<IndexFunction> make_xormask(std::string_view args, const IndexGeometry& g) {
  check_geometry("xormask", args, g);
  const auto items = split(args, ',');
  if (int(items.size()) != g.out_bits)
    bad("xormask", args,
        fmt::format("{} masks listed, the index has {} bits", items.size(), g.out_bits));
  XorMatrix x;
  x.m = g.out_bits;
  x.n = g.addr_bits;
  for (int j = 0; j < x.m; ++j) {
    std::uint64_t v = 0;
    if (!parse_uint(items[j], v)) bad("xormask", args, fmt::format("'{}' is not a mask", items[j]));
    if (v > low_mask(g.addr_bits))
      bad("xormask", args,
          fmt::format("mask {} is wider than the {} address bits (max {:#x})", items[j],
                      g.addr_bits, low_mask(g.addr_bits)));
    x.rows[j] = std::uint32_t(v);
  }
  return std::make_unique<XorHash>(g, x, xormask_spec(x));
}

std::optional<XorMatrix> xor_matrix_of(const IndexFunction& f) {
  if (const auto* x = dynamic_cast<const XorHash*>(&f)) return x->matrix();
  const IndexGeometry& g = f.geometry();
  const std::string s = f.spec();
  if (s == "mod") return bvxor_matrix(0, 0, 0, g);
  if (s == "xor") {
    XorMatrix x = bvxor_matrix(0, g.out_bits, low_mask(g.out_bits), g);
    return x;
  }
  return std::nullopt;
}

}  // namespace smemsim
