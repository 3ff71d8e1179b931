// Helpers shared by the built-in drivers (builtins*.cpp): buffers from vectors and back, launch
// shape defaults, and exact comparison against a CPU reference.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "smemsim/error.hpp"
#include "smemsim/workloads.hpp"
#include "util/size.hpp"

namespace smemsim::exec {

template <typename T>
inline Buffer make_buffer(std::string name, ElemType type, const std::vector<T>& v) {
  Buffer b{std::move(name), type, {}};
  b.bytes.resize(v.size() * sizeof(T));
  if (!v.empty()) std::memcpy(b.bytes.data(), v.data(), b.bytes.size());
  return b;
}

template <typename T>
inline std::vector<T> read_buffer(const GlobalMemory& m, const std::string& name) {
  const Buffer* b = m.find(name);
  if (!b) throw std::logic_error("builtin driver reads a buffer it did not add: " + name);
  std::vector<T> v(b->bytes.size() / sizeof(T));
  std::memcpy(v.data(), b->bytes.data(), v.size() * sizeof(T));
  return v;
}

inline Dim3 shape_or(const std::optional<Dim3>& o, Dim3 d) {
  return o ? *o : d;
}
inline std::uint32_t or_default(std::uint32_t v, std::uint32_t d) {
  return v ? v : d;
}

// A driver option fed to a kernel parameter: above `max` it would wrap (an int) or make a launch no
// one means; an InputError naming the option.
inline void check_param(const char* builtin, const char* option, std::uint64_t v,
                        std::uint64_t max) {
  if (v > max)
    throw InputError(
        fmt::format("builtin:{}: {} {} is above its limit of {}", builtin, option, v, max));
}

// What a driver makes for its sizes (host inputs, their buffers, the reference), checked against
// --max-memory before any of it is allocated (issue 28). `bytes` is counted by the driver (a
// double: no overflow for any option values), `what` names the sizes that make it, `lower` the
// options that shrink it.
inline void check_budget(const BuiltinOptions& o, const char* builtin, double bytes,
                         const std::string& what, const char* lower) {
  if (bytes <= double(o.max_bytes)) return;
  throw InputError(fmt::format(
      "builtin:{}: about {} for {} (inputs, their buffers and the reference), above the {} "
      "--max-memory allows: lower {}, or raise --max-memory",
      builtin, format_size(bytes), what, format_size(double(o.max_bytes)), lower));
}

// Integer buffers: "" or the first mismatches.
template <typename T>
inline std::string compare_exact(const std::string& what, const std::vector<T>& got,
                                 const std::vector<T>& want) {
  std::string out;
  std::size_t bad = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (got[i] == want[i]) continue;
    if (++bad <= 5)
      out += fmt::format("{}[{}] = {}, the CPU reference has {}; ", what, i, got[i], want[i]);
  }
  if (bad) out += fmt::format("{} of {} elements differ", bad, want.size());
  return out;
}

// Float results against a CPU reference in double: "" or the first elements with
// |got - want| > tol(i).
template <typename G, typename Tol>
inline std::string compare_within(const std::string& what, const std::vector<G>& got,
                                  const std::vector<double>& want, Tol tol) {
  std::string out;
  std::size_t bad = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    const double g = static_cast<double>(got[i]);
    if (g - want[i] <= tol(i) && want[i] - g <= tol(i)) continue;
    if (++bad <= 5)
      out += fmt::format("{}[{}] = {}, the CPU reference has {}; ", what, i, g, want[i]);
  }
  if (bad) out += fmt::format("{} of {} elements outside the tolerance", bad, want.size());
  return out;
}

// A module variable's initial bytes (a __constant__ array the host would set with
// cudaMemcpyToSymbol), in the module and in every kernel's copy of it. Call after the PTX is
// loaded.
void set_module_variable(Workload& w, const std::string& name, const void* data, std::size_t bytes);

// A launch step of a multi-launch builtin (Workload::pipeline; the first is also w.kernel/launch).
inline void add_step(Workload& w, const std::string& kernel, const Launch& l) {
  if (w.pipeline.empty()) {
    w.kernel = kernel;
    w.launch = l;
  }
  w.pipeline.push_back({kernel, l, ""});
}

}  // namespace smemsim::exec
