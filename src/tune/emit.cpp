// Emission of a found configuration as code (seed 002 §6 framework, §7.2 software hash).
#include "smemsim/emit.hpp"

#include <fmt/format.h>

namespace smemsim {
namespace {

std::uint32_t low_mask(int bits) {
  return bits >= 32 ? ~0u : ((1u << bits) - 1);
}

struct VectorForm {
  int k1 = 0, k2 = 0;
  std::uint32_t mask = 0;
};

// The bit-vector XOR form (a >> k1) ^ ((a >> k2) & mask) of the matrix, if it has one (002 §4.2).
std::optional<VectorForm> vector_form(const XorMatrix& x) {
  for (int k1 = 0; k1 <= x.n - x.m; ++k1)
    for (int k2 = 0; k2 < x.n; ++k2) {
      if (k2 == k1 && k2 != 0) continue;
      std::uint32_t mask = 0;
      bool ok = true;
      for (int j = 0; j < x.m && ok; ++j) {
        const std::uint32_t base = 1u << (k1 + j), row = x.rows[std::size_t(j)];
        if (row == base) continue;
        if (k2 != k1 && k2 + j < x.n && row == (base | (1u << (k2 + j))))
          mask |= 1u << j;
        else
          ok = false;
      }
      if (ok) return VectorForm{k1, k2, mask};
    }
  return std::nullopt;
}

// A non-zero index below 2^m that the software hash sends to the same word as index 0.
std::uint32_t collision(const XorMatrix& x) {
  for (std::uint32_t v = 1; v <= low_mask(x.m) && v < (1u << 24); ++v)
    if (x.apply(v) == 0) return v;
  return 0;
}

std::string header(const XorMatrix& x, const std::string& spec) {
  const std::uint32_t groups = 1u << x.m;
  return fmt::format(
      "// smemsim: software bank hash for {spec} ({m} index bits over {n} address bits).\n"
      "// Seed 002 §6/§7.2: apply it to every index of the shared array, loads, stores and atomics "
      "alike:\n"
      "//   __shared__ float buf[N];    // N a multiple of {g}\n"
      "//   buf[smemsim_hash(i)] = v;   ...   float w = buf[smemsim_hash(j)];\n"
      "// Indices are in 4-byte words (one bank each with {g} x 4-byte banks). The hash keeps "
      "index bits\n"
      "// >= {m} and replaces bits 0..{mm} by the configured bank, permuting each aligned group of "
      "{g}\n"
      "// words: a bijection, so no data is lost and no padding is needed.\n",
      fmt::arg("spec", spec), fmt::arg("m", x.m), fmt::arg("n", x.n), fmt::arg("g", groups),
      fmt::arg("mm", x.m - 1));
}

}  // namespace

Emission emit_cuda(const XorMatrix& x, const std::string& spec, const std::string& name) {
  Emission e;
  if (!x.software_bijective()) {
    const std::uint32_t v = collision(x);
    e.reason = fmt::format(
        "{} is not a bijection as a software hash: the hash must keep index bits >= {} and derive "
        "bits 0..{} from the configured bank, and the bank bits of {} do not determine address "
        "bits "
        "0..{} (indices 0 and {} would both land on word {}), so data would be lost. Use it as a "
        "hardware hash (--bank-hash) or search a family that keeps the low bits (e.g. bvxor with "
        "k1=0, or xormask).",
        spec, x.m, x.m - 1, spec, x.m - 1, v, 0);
    return e;
  }
  const std::uint32_t M = low_mask(x.m);
  std::string body;
  if (const auto vf = vector_form(x)) {
    if (vf->k1 == 0 && vf->mask == 0)
      body = "  return i;  // the low bits already: plain mod banking\n";
    else if (vf->k1 == 0)
      body = fmt::format("  return i ^ ((i >> {}) & {}u);  // k1=0, k2={}, mask={}\n", vf->k2,
                         vf->mask, vf->k2, vf->mask);
    else
      body = fmt::format(
          "  const unsigned bank = ((i >> {}) ^ ((i >> {}) & {}u)) & {}u;\n"
          "  return (i & ~{}u) | bank;\n",
          vf->k1, vf->k2, vf->mask, M, M);
  } else {
    body = "  unsigned bank = 0;\n";
    for (int j = 0; j < x.m; ++j) {
      const std::uint32_t r = x.rows[std::size_t(j)];
      const int a = std::countr_zero(r);
      std::string term;
      if (std::popcount(r) == 1)
        term = fmt::format("((i >> {}) & 1u)", a);
      else if (std::popcount(r) == 2)
        term = fmt::format("(((i >> {}) ^ (i >> {})) & 1u)", a, 31 - std::countl_zero(r));
      else if (r == 0)
        continue;
      else
        term = fmt::format("(__popc(i & {:#x}u) & 1u)", r);
      body += fmt::format("  bank |= {}{};\n", term, j ? fmt::format(" << {}", j) : "");
    }
    body += fmt::format("  return (i & ~{}u) | bank;\n", M);
  }
  e.ok = true;
  e.code = header(x, spec) +
           fmt::format("__device__ __forceinline__ unsigned {}(unsigned i) {{\n{}}}\n", name, body);
  return e;
}

std::optional<CuteSwizzle> find_cute_swizzle(const XorMatrix& x) {
  if (!x.software_bijective()) return std::nullopt;
  // The software hash's matrix equals Swizzle<B,M,S>'s: rows M..M+B-1 are e_j ^ e_(j+S), every
  // other row of the hash is e_j (rows >= m are e_j by construction).
  for (int B = 0; B <= x.m; ++B)
    for (int M = 0; M + B <= x.m; ++M)
      for (int S = B; S < x.n; ++S) {
        if (B > 0 && M + S + B > x.n) break;
        bool ok = true;
        for (int j = 0; j < x.m && ok; ++j) {
          std::uint32_t want = 1u << j;
          if (j >= M && j < M + B) want |= 1u << (j + S);
          ok = x.rows[std::size_t(j)] == want;
        }
        if (ok) return CuteSwizzle{B, M, S};
        if (B == 0) break;
      }
  return std::nullopt;
}

Emission emit_cute(const XorMatrix& x, const std::string& spec) {
  Emission e;
  const auto sw = find_cute_swizzle(x);
  if (!sw) {
    std::string why;
    if (!x.software_bijective()) {
      why = "it is not a bijection as a software hash (see --emit cuda)";
    } else {
      for (int j = 0; j < x.m && why.empty(); ++j) {
        const std::uint32_t r = x.rows[std::size_t(j)];
        if (!(r & (1u << j)))
          why = fmt::format("bank bit {} does not keep address bit {} (the hash moves bits)", j, j);
        else if (std::popcount(r) > 2)
          why = fmt::format("bank bit {} combines {} address bits", j, std::popcount(r));
        else if (std::popcount(r) == 2 && std::countr_zero(r & ~(1u << j)) < j)
          why = fmt::format("bank bit {} XORs a lower address bit", j);
      }
      if (why.empty())
        why = "the XORed bank bits are not one contiguous run B at one distance S >= B";
    }
    e.reason = fmt::format(
        "{} has no CuTe Swizzle<B,M,S> equivalent: a swizzle XORs the B bits at M+S.. into bits "
        "M..M+B-1 and keeps every other bit, but {}.",
        spec, why);
    return e;
  }
  e.ok = true;
  e.code = fmt::format(
      "// smemsim: {spec} as a CuTe swizzle (seed 002 §6; software hash of --emit cuda).\n"
      "// Offset unit: one 4-byte word (a float/int element). For 2-byte elements use\n"
      "// cute::Swizzle<{b}, {m1}, {s}>, for 1-byte elements cute::Swizzle<{b}, {m2}, {s}>.\n"
      "// Swizzle<B,M,S>(o) = o ^ ((o >> S) & (((1 << B) - 1) << M)).\n"
      "using SmemSwizzle = cute::Swizzle<{b}, {m}, {s}>;\n"
      "// e.g. auto smem_layout = cute::composition(SmemSwizzle{{}}, cute::make_layout(shape));\n",
      fmt::arg("spec", spec), fmt::arg("b", sw->bits), fmt::arg("m", sw->base),
      fmt::arg("m1", sw->base + 1), fmt::arg("m2", sw->base + 2), fmt::arg("s", sw->shift));
  return e;
}

}  // namespace smemsim
