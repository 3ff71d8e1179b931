// The GPU-LocalTM benchmarks (seed 003 §5.1, kernels/tm_*.cu): seeded inputs, launches and CPU
// references that accept every correct outcome of the transactions (their commit order is the
// simulator's to choose).
#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "smemsim/error.hpp"
#include "workloads/builtin_drivers.hpp"
#include "workloads/builtin_util.hpp"

namespace smemsim::exec {
namespace {

constexpr std::uint32_t kEmpty = 0xffffffffu;

// "tx" (transactions, the default) or "serial" (TX. Serialization, 003 §5.1.4): the kernel name.
std::string tm_variant(const BuiltinOptions& o, const std::string& what, const std::string& stem) {
  const std::string v = o.variant.empty() ? "tx" : o.variant;
  if (v != "tx" && v != "serial")
    throw InputError(fmt::format("builtin:{}: --variant must be tx or serial", what));
  return stem + "_" + v;
}

}  // namespace

void hashtable_driver(Workload& w, const BuiltinOptions& o) {
  w.kernel = tm_variant(o, "hashtable", "ht");
  const std::uint32_t buckets = or_default(o.buckets, 32);
  w.launch.block = shape_or(o.block, {256, 1, 1});
  w.launch.grid = shape_or(o.grid, {1, 1, 1});
  const Dim3 b = w.launch.block;
  const std::uint32_t n = b.x;
  if (b.y != 1 || b.z != 1 || n == 0 || n > 256)
    throw InputError("builtin:hashtable: --block must be 1..256 threads in x (003 §5.1.1: 256)");
  if (buckets < 1 || buckets > n)
    throw InputError(
        fmt::format("builtin:hashtable: --buckets must be 1..{} (the threads of a block)", n));
  const std::uint32_t cap = (n + buckets - 1) / buckets, slots = cap * buckets;
  const std::uint64_t ctas = w.launch.grid.count();
  if (ctas > 4096) throw InputError("builtin:hashtable: at most 4096 blocks");
  const auto out = w.memory.add(
      make_buffer("table", ElemType::U32, std::vector<std::uint32_t>(ctas * slots, 0)));
  w.launch.args = {Arg::buf(out), Arg::integer(buckets)};
  w.description = fmt::format(
      "Hash Table (seed 003 §5.1.1), {}: {} threads insert their ids into {} buckets of {} slots",
      w.kernel == "ht_tx" ? "transactions" : "TX. Serialization", n, buckets, cap);
  // Every block's table holds each id exactly once, in bucket id % buckets, the other slots empty.
  w.check = [=](const GlobalMemory& m) -> std::string {
    const std::vector<std::uint32_t> t = read_buffer<std::uint32_t>(m, "table");
    for (std::uint64_t c = 0; c < ctas; ++c)
      for (std::uint32_t k = 0; k < buckets; ++k) {
        std::vector<std::uint32_t> got, want;
        for (std::uint32_t s = 0; s < cap; ++s) {
          const std::uint32_t v = t[c * slots + k * cap + s];
          if (v != kEmpty) got.push_back(v);
        }
        for (std::uint32_t id = k; id < n; id += buckets) want.push_back(id);
        std::sort(got.begin(), got.end());
        if (got != want)
          return fmt::format(
              "block {} bucket {} holds {} ids, not each of the {} ids = {} mod {} "
              "exactly once",
              c, k, got.size(), want.size(), k, buckets);
      }
    return "";
  };
}

}  // namespace smemsim::exec
