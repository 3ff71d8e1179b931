// The GPU-LocalTM benchmarks (seed 003 §5.1, kernels/tm_*.cu): seeded inputs, launches and CPU
// references that accept every correct outcome of the transactions (their commit order is the
// simulator's to choose).
#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include <map>
#include <set>

#include "smemsim/error.hpp"
#include "util/rng.hpp"
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

// One block of 256 threads (003 §5.1: a work-group of 256 work-items) unless --block says
// otherwise.
std::uint32_t tm_block(Workload& w, const BuiltinOptions& o, const std::string& what) {
  w.launch.block = shape_or(o.block, {256, 1, 1});
  w.launch.grid = shape_or(o.grid, {1, 1, 1});
  const Dim3 b = w.launch.block;
  if (b.y != 1 || b.z != 1 || b.x == 0 || b.x > 256)
    throw InputError(
        fmt::format("builtin:{}: --block must be 1..256 threads in x (003 §5.1: 256)", what));
  if (w.launch.grid.count() != 1)
    throw InputError(
        fmt::format("builtin:{}: one block (--grid 1): the benchmark is one "
                    "work-group's transactions",
                    what));
  return b.x;
}

}  // namespace

void hashtable_driver(Workload& w, const BuiltinOptions& o) {
  w.kernel = tm_variant(o, "tm_hashtable", "ht");
  const std::uint32_t buckets = or_default(o.buckets, 32);
  w.launch.block = shape_or(o.block, {256, 1, 1});
  w.launch.grid = shape_or(o.grid, {1, 1, 1});
  const Dim3 b = w.launch.block;
  const std::uint32_t n = b.x;
  if (b.y != 1 || b.z != 1 || n == 0 || n > 256)
    throw InputError("builtin:tm_hashtable: --block must be 1..256 threads in x (003 §5.1.1: 256)");
  if (buckets < 1 || buckets > n)
    throw InputError(
        fmt::format("builtin:tm_hashtable: --buckets must be 1..{} (the threads of a block)", n));
  const std::uint32_t cap = (n + buckets - 1) / buckets, slots = cap * buckets;
  const std::uint64_t ctas = w.launch.grid.count();
  if (ctas > 4096) throw InputError("builtin:tm_hashtable: at most 4096 blocks");
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

void tm_kmeans_driver(Workload& w, const BuiltinOptions& o) {
  w.kernel = tm_variant(o, "tm_kmeans", "km");
  const std::uint32_t n = tm_block(w, o, "tm_kmeans");
  const std::uint32_t k = or_default(o.k, 32);
  if (k < 1 || k > 256) throw InputError("builtin:tm_kmeans: --k must be 1..256 centers");
  // 003 §5.1.2: "256 3-dimensional random points" and one iteration. Integer coordinates in
  // [0, 1024); the initial centers are K more random points.
  Rng rng(o.seed);
  std::vector<std::int32_t> pts(3 * std::size_t(n)), ctr(3 * std::size_t(k));
  for (auto& v : pts) v = std::int32_t(rng.below(1024));
  for (auto& v : ctr) v = std::int32_t(rng.below(1024));
  const auto pb = w.memory.add(make_buffer("points", ElemType::S32, pts));
  const auto cb = w.memory.add(make_buffer("centers", ElemType::S32, ctr));
  const auto ob = w.memory.add(
      make_buffer("out", ElemType::S32, std::vector<std::int32_t>(4 * std::size_t(k), 0)));
  w.launch.args = {Arg::buf(pb), Arg::buf(cb), Arg::integer(k), Arg::buf(ob)};
  w.description = fmt::format(
      "K-Means (seed 003 §5.1.2), {}: {} 3-D points, {} centers, one "
      "iteration",
      w.kernel == "km_tx" ? "transactions" : "TX. Serialization", n, k);
  // The serial update, from the definition: closest center (squared distance, lowest index on a
  // tie), sums and counts, new center = sum / count (the old one when empty).
  std::vector<std::int64_t> sum(3 * std::size_t(k), 0);
  std::vector<std::int32_t> cnt(k, 0);
  for (std::uint32_t p = 0; p < n; ++p) {
    std::uint32_t best = 0;
    std::int64_t best_d = INT64_MAX;
    for (std::uint32_t c = 0; c < k; ++c) {
      std::int64_t d = 0;
      for (std::uint32_t a = 0; a < 3; ++a) {
        const std::int64_t x = pts[a * n + p] - ctr[a * k + c];
        d += x * x;
      }
      if (d < best_d) best_d = d, best = c;
    }
    for (std::uint32_t a = 0; a < 3; ++a) sum[a * k + best] += pts[a * n + p];
    ++cnt[best];
  }
  std::vector<std::int32_t> want(4 * std::size_t(k));
  for (std::uint32_t c = 0; c < k; ++c) {
    for (std::uint32_t a = 0; a < 3; ++a)
      want[3 * c + a] = cnt[c] ? std::int32_t(sum[a * k + c] / cnt[c]) : ctr[a * k + c];
    want[3 * k + c] = cnt[c];
  }
  w.check = [want](const GlobalMemory& m) {
    return compare_exact("out", read_buffer<std::int32_t>(m, "out"), want);
  };
}

namespace {

// Seed 003 §5.1.3's fitness: how far the bag's weight is from the capacity (smaller is fitter).
int ga_miss(std::uint32_t s, const std::vector<std::int32_t>& weight, int capacity) {
  int w = 0;
  for (int o = 0; o < 8; ++o)
    if (s & (1u << o)) w += weight[std::size_t(o)];
  return w > capacity ? w - capacity : capacity - w;
}

// The transactions ran as if one at a time: every thread wrote the correct function of what it
// read, and per slot the (read -> written) steps chain from the initial to the final value: a
// directed multigraph with an Euler path from init to final (each value entered as often as
// left, but init and final; every step connected to init). A lost update (two threads reading the
// same value of a slot) breaks the balance.
std::string ga_check(const std::vector<std::uint32_t>& init, const std::vector<std::uint32_t>& fin,
                     const std::vector<std::uint32_t>& log, const std::vector<std::int32_t>& picks,
                     const std::vector<std::int32_t>& weight, int capacity, std::uint32_t n) {
  const std::size_t slots = init.size();
  std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> steps(slots);
  for (std::uint32_t t = 0; t < n; ++t) {
    const std::uint32_t a = log[4 * t], b = log[4 * t + 1];
    const bool a_fit = ga_miss(a, weight, capacity) <= ga_miss(b, weight, capacity);
    const std::uint32_t fit = a_fit ? a : b, weak = a_fit ? b : a;
    const std::uint32_t child = (fit & 0x0fu) | (weak & 0xf0u);
    const std::uint32_t na = a_fit ? a : child, nb = a_fit ? child : b;
    if (log[4 * t + 2] != na || log[4 * t + 3] != nb)
      return fmt::format("thread {} read ({}, {}) and wrote ({}, {}); the crossover gives ({}, {})",
                         t, a, b, log[4 * t + 2], log[4 * t + 3], na, nb);
    steps[std::size_t(picks[2 * t])].push_back({a, na});
    steps[std::size_t(picks[2 * t + 1])].push_back({b, nb});
  }
  for (std::size_t s = 0; s < slots; ++s) {
    if (fin[s] > 0xffu) return fmt::format("solution {} is {:#x}, not an 8-bit mask", s, fin[s]);
    std::map<std::uint32_t, int> balance;
    std::map<std::uint32_t, std::vector<std::uint32_t>> next;
    for (const auto& [from, to] : steps[s]) {
      ++balance[from];
      --balance[to];
      next[from].push_back(to);
    }
    balance[init[s]] -= 1;
    balance[fin[s]] += 1;
    for (const auto& [v, d] : balance)
      if (d != 0)
        return fmt::format(
            "solution {}: its reads and writes do not chain from {} to {} (value "
            "{} is read {} more time(s) than written): an update was lost",
            s, init[s], fin[s], v, d);
    std::set<std::uint32_t> seen{init[s]};
    std::vector<std::uint32_t> todo{init[s]};
    while (!todo.empty()) {
      const std::uint32_t v = todo.back();
      todo.pop_back();
      for (std::uint32_t u : next[v])
        if (seen.insert(u).second) todo.push_back(u);
    }
    for (const auto& [from, to] : steps[s])
      if (!seen.count(from))
        return fmt::format("solution {}: a thread read {}, which no chain from {} reaches", s, from,
                           init[s]);
  }
  return "";
}

}  // namespace

void tm_genetic_driver(Workload& w, const BuiltinOptions& o) {
  w.kernel = tm_variant(o, "tm_genetic", "ga");
  const std::uint32_t n = tm_block(w, o, "tm_genetic");
  const std::uint32_t size = or_default(o.size, 32);
  if (size < 2 || size > 256)
    throw InputError("builtin:tm_genetic: --size (solutions) must be 2..256");
  // 003 §5.1.3: 8 objects whose price is proportional to the weight; N random initial solutions;
  // each thread picks two different solutions at random. Weights 1..100, capacity 40% of the sum.
  Rng rng(o.seed);
  std::vector<std::int32_t> weight(8);
  int total = 0;
  for (auto& v : weight) total += v = std::int32_t(1 + rng.below(100));
  const int capacity = total * 2 / 5;
  std::vector<std::uint32_t> init(size);
  for (auto& v : init) v = std::uint32_t(rng.below(256));
  std::vector<std::int32_t> picks(2 * std::size_t(n));
  for (std::uint32_t t = 0; t < n; ++t) {
    picks[2 * t] = std::int32_t(rng.below(size));
    picks[2 * t + 1] = std::int32_t((std::uint32_t(picks[2 * t]) + 1 + rng.below(size - 1)) % size);
  }
  const auto ib = w.memory.add(make_buffer("init", ElemType::U32, init));
  const auto wb = w.memory.add(make_buffer("weight", ElemType::S32, weight));
  const auto pb = w.memory.add(make_buffer("picks", ElemType::S32, picks));
  const auto ob =
      w.memory.add(make_buffer("population", ElemType::U32, std::vector<std::uint32_t>(size, 0)));
  const auto lb = w.memory.add(
      make_buffer("log", ElemType::U32, std::vector<std::uint32_t>(4 * std::size_t(n), 0)));
  w.launch.args = {Arg::buf(ib), Arg::buf(wb),       Arg::integer(capacity),
                   Arg::buf(pb), Arg::integer(size), Arg::buf(ob),
                   Arg::buf(lb)};
  w.description = fmt::format(
      "Genetic Algorithm (seed 003 §5.1.3), {}: knapsack of 8 objects, {} solutions, {} threads "
      "each crossing two",
      w.kernel == "ga_tx" ? "transactions" : "TX. Serialization", size, n);
  w.check = [=](const GlobalMemory& m) {
    return ga_check(init, read_buffer<std::uint32_t>(m, "population"),
                    read_buffer<std::uint32_t>(m, "log"), picks, weight, capacity, n);
  };
}

}  // namespace smemsim::exec
