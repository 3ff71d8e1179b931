// The CUDA (and CuTe) a kernel author pastes for a fix of `smemsim fix` (include/smemsim/fix.hpp).
#include <fmt/format.h>

#include <bit>
#include <cctype>

#include "smemsim/emit.hpp"
#include "smemsim/fix.hpp"
#include "smemsim/hash_families.hpp"

namespace smemsim::fix {
namespace {

std::string unit_of(std::uint32_t grain) {
  return grain == 4 ? "4-byte word" : fmt::format("{}-byte element", grain);
}

// The word-level XOR matrix of a swizzle remap: i ^ ((i >> k2) & (mask << lg)) over 4-byte words.
XorMatrix word_matrix(const exec::SharedRemap& r, const Arch& arch) {
  IndexGeometry g;
  g.out_bits = std::countr_zero(arch.banks);
  g.addr_bits = 32;
  const int lg = std::countr_zero(r.grain / 4);
  return bvxor_matrix(0, int(r.xor_shift), r.xor_mask << lg, g);
}

// A demangled name without its parameter lists and return type (and its template arguments unless
// `templates`), and only its last two components: "void ns::f<cute::X<1>>(float*)::smem" ->
// "f::smem", or "f<cute::X<1>>::smem".
std::string function_and_name(const std::string& demangled, bool templates) {
  std::string flat;
  int angle = 0, paren = 0;
  for (const char c : demangled) {
    angle += c == '<';
    paren += c == '(';
    if (paren == 0 && (angle == 0 || templates)) flat += c;
    angle -= c == '>' && angle > 0;
    paren -= c == ')' && paren > 0;
  }
  if (const auto sp = flat.rfind(' ', flat.find('<')); sp != std::string::npos)
    flat = flat.substr(sp + 1);
  const auto last = flat.rfind("::");
  if (last == std::string::npos || last == 0) return flat;
  int depth = 0;  // the "::" before the function's name, outside its template arguments
  for (std::size_t i = last; i-- > 1;) {
    depth += flat[i] == '>';
    depth -= flat[i] == '<';
    if (depth == 0 && flat[i] == ':' && flat[i - 1] == ':') return flat.substr(i + 1);
  }
  return flat;
}

}  // namespace

// The array's CUDA name; where two arrays share it (the same name in two functions, or in two
// instances of a template), with its function's name, then with the template's arguments, and
// where that is not enough, the whole demangled name.
std::string unique_name(const std::vector<exec::SharedLayout::Array>& all,
                        const exec::SharedLayout::Array& a) {
  const auto unique = [&](const auto& name) {
    int same = 0;
    for (const auto& b : all) same += name(b.name) == name(a.name);
    return same <= 1;
  };
  if (unique([](const std::string& n) { return short_name(n); })) return short_name(a.name);
  for (const bool templates : {false, true})
    if (unique(
            [&](const std::string& n) { return function_and_name(ptx::demangle(n), templates); }))
      return function_and_name(ptx::demangle(a.name), templates);
  return ptx::demangle(a.name);
}

std::string short_name(const std::string& array) {
  std::string d = ptx::demangle(array);
  if (const auto p = d.rfind("::"); p != std::string::npos) d = d.substr(p + 2);
  std::string id;
  for (const char c : d) id += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  return id.empty() ? "array" : id;
}

std::string identifier(const std::string& name) {
  std::string id;
  for (const char c : name) {
    const bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    if (ok)
      id += c;
    else if (!id.empty() && id.back() != '_')
      id += '_';
  }
  while (!id.empty() && id.back() == '_') id.pop_back();
  return id.empty() ? "array" : id;
}

// The array's name in the code: its name in the report as an identifier.
static std::string code_name(const ArrayFix& a) {
  return a.name.empty() ? short_name(a.array.name) : identifier(a.name);
}

std::string candidate_code(const ArrayFix& a, const Candidate& c, const Arch& arch, bool cute,
                           const std::string& suffix) {
  const std::string name = code_name(a), fn = name + suffix;
  const exec::SharedRemap& r = c.remap;
  const std::uint32_t n = a.array.bytes / r.grain;
  if (r.row) {
    const std::uint32_t rows = (n + r.row - 1) / r.row;
    return fmt::format(
        "// {}: pad every row of {} {}s by {} ({} -> {} bytes)\n"
        "// declare it as  T {}[{}][{} + {}]  (was [{}][{}]), or keep it flat and index it with:\n"
        "__device__ __forceinline__ unsigned smemsim_pad_{}(unsigned i) {{\n"
        "  return i + (i / {}u) * {}u;  // i counts {}s from the array's start\n"
        "}}\n",
        name, r.row, unit_of(r.grain), r.pad, a.array.bytes, a.array.bytes + r.added_bytes(), name,
        rows, r.row, r.pad, rows, r.row, fn, r.row, r.pad, unit_of(r.grain));
  }
  const XorMatrix x = word_matrix(r, arch);
  const std::string spec =
      bvxor_spec(0, int(r.xor_shift), r.xor_mask << std::countr_zero(r.grain / 4));
  if (cute) {
    Emission e = emit_cute(x, spec);
    // One alias per array, so that two arrays' swizzles can be pasted together.
    for (std::size_t p = 0; (p = e.code.find("SmemSwizzle", p)) != std::string::npos;) {
      e.code.insert(p + 11, "_" + fn);
      p += 12 + fn.size();
    }
    return e.ok ? fmt::format("// {}: {}\n{}", name, c.description, e.code)
                : fmt::format("// {}: {}: no CuTe Swizzle<B,M,S> form ({})\n", name, c.description,
                              e.reason);
  }
  const Emission e = emit_cuda(x, spec, "smemsim_swizzle_" + fn);
  if (!e.ok) return fmt::format("// {}: {}: {}\n", name, c.description, e.reason);
  std::string s = fmt::format(
      "// {}: {} (same {} bytes)\n{}// every index i of {} (in 4-byte words from its start) "
      "becomes smemsim_swizzle_{}(i)\n",
      name, c.description, a.array.bytes, e.code, name, fn);
  // The column-only form (issue 43): i ^ ((i >> k) & m) with m below 2^k leaves the row r = i >> k
  // and XORs the column c = i & (2^k - 1) with r & m, so on the array viewed as rows of 2^k
  // elements it is one XOR of the column index.
  const std::uint32_t width = 1u << r.xor_shift;
  if (r.xor_shift > 0 && r.xor_shift < 16 && r.xor_mask < width && n % width == 0)
    s += fmt::format(
        "// or, on {} as T {}[{}][{}] (row r, column c, in {}s): {}[r][c ^ (r & {}u)], the "
        "column alone\n",
        name, name, n / width, width, unit_of(r.grain), name, r.xor_mask);
  return s;
}

std::string replication_code(const ArrayFix& a, const Replication& rp, const std::string& suffix) {
  const std::string name = code_name(a), fn = name + suffix;
  const std::uint32_t words = a.array.bytes / 4;
  const std::uint32_t R = rp.copies;
  // The form src/fix/fix_apply_atomic.cpp writes into the kernel (what `fix` timed), as functions
  // so that the header compiles where it is included.
  return fmt::format(
      "// {0}: {1} copies interleaved by lane ({2} -> {3} bytes): word i of copy k at i * {1} + "
      "k.\n"
      "// Declare in the kernel  __shared__ unsigned {0}_r[{4} * {1}];  in place of {0}, then\n"
      "//   a store {0}[i] = v:       for (unsigned k = 0; k < {1}; ++k) {0}_r[i * {1} + k] = k == "
      "0 "
      "? v : 0;\n"
      "//   an update of {0}[i] by v: atomicAdd(&{0}_r[i * {1} + smemsim_{5}_copy()], v);\n"
      "//   a read of {0}[i]:         smemsim_{5}_sum({0}_r, i)\n"
      "// (atomicMin, atomicMax, atomicAnd: v into every copy, the copies combined by the same "
      "operation)\n"
      "__device__ __forceinline__ unsigned smemsim_{5}_copy() {{ return threadIdx.x % {1}u; }}\n"
      "__device__ __forceinline__ unsigned smemsim_{5}_sum(const unsigned* {0}_r, unsigned i) {{\n"
      "  const unsigned c = smemsim_{5}_copy();  // each lane from its own copy: other banks\n"
      "  unsigned sum = 0;\n"
      "  for (unsigned k = 0; k < {1}u; ++k) sum += {0}_r[i * {1}u + (c + k) % {1}u];\n"
      "  return sum;\n"
      "}}\n",
      name, R, a.array.bytes, rp.shared_bytes, words, fn);
}

std::string aggregation_code(const ArrayFix& a, const std::string& suffix) {
  const std::string name = code_name(a), fn = name + suffix;
  // The form src/fix/fix_apply_atomic.cpp writes into the kernel (what `fix` timed).
  return fmt::format(
      "// {0}: aggregate the lanes of a warp that add to one word (sm_70+): each\n"
      "// atomicAdd(&{0}[i], v) becomes smemsim_{1}_add({0}, i, v), or smemsim_{1}_add_any "
      "(sm_80+)\n"
      "// where v differs between lanes\n"
      "__device__ __forceinline__ unsigned smemsim_{1}_leader(unsigned peers) {{\n"
      "  unsigned lower;  // the lanes below this one\n"
      "  asm(\"mov.u32 %0, %%lanemask_lt;\" : \"=r\"(lower));\n"
      "  return (peers & lower) == 0;  // the lowest of its peers\n"
      "}}\n"
      "__device__ __forceinline__ void smemsim_{1}_add(unsigned* {0}, unsigned i, unsigned v) {{\n"
      "  const unsigned peers = __match_any_sync(__activemask(), i);  // v: the same on every "
      "lane\n"
      "  if (smemsim_{1}_leader(peers)) atomicAdd(&{0}[i], __popc(peers) * v);\n"
      "}}\n"
      "#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800\n"
      "__device__ __forceinline__ void smemsim_{1}_add_any(unsigned* {0}, unsigned i, unsigned v) "
      "{{\n"
      "  const unsigned peers = __match_any_sync(__activemask(), i);\n"
      "  const unsigned sum = __reduce_add_sync(peers, v);\n"
      "  if (smemsim_{1}_leader(peers)) atomicAdd(&{0}[i], sum);\n"
      "}}\n"
      "#endif\n",
      name, fn);
}

}  // namespace smemsim::fix
