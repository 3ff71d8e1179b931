// The list scheduler (schedule.hpp): within each run of movable instructions of a block, the
// ready instruction with the longest latency path to the run's end issues first, one a cycle.
#include "lower/schedule.hpp"

#include <algorithm>
#include <array>
#include <queue>
#include <set>

namespace smemsim::lower {
namespace {

using ptx::Opcode;

// How an instruction takes part in the order the scheduler keeps (schedule.hpp).
//   Full: kept in order with every other instruction listed here (atomics, volatile and strong
//     accesses, asynchronous copies, nanosleep, wgmma.mma_async; and with `spaces` off every
//     memory instruction).
//   Warp / Carry: kept in order among their own kind (shuffles and votes; the carry flag).
//   Load / Write: a memory access to `space` (None: generic), ordered against writes, and a write
//     against loads too, to the spaces that may alias it (the same space, or a generic address).
enum class Part : std::uint8_t { Free, Full, Warp, Carry, Load, Write };

struct Role {
  Part part = Part::Free;
  ptx::Space space = ptx::Space::Generic;
};

Role role(const ptx::Instruction& ins, bool spaces) {
  const bool strong = ins.flags & (ptx::kVolatile | ptx::kStrong);
  const ptx::Space sp = ins.space == ptx::Space::None ? ptx::Space::Generic : ins.space;
  auto mem = [&](Part p) { return spaces && !strong ? Role{p, sp} : Role{Part::Full, sp}; };
  switch (ins.op) {
    case Opcode::Ld:
    case Opcode::Ldmatrix:
    case Opcode::WmmaLoad:
      return mem(Part::Load);
    case Opcode::Tex:
    case Opcode::Tld4:  // reads memory a kernel may also write through global addresses
      return spaces ? Role{Part::Load, ptx::Space::Global} : Role{Part::Full, sp};
    case Opcode::St:
    case Opcode::Stmatrix:
    case Opcode::WmmaStore:
      return mem(Part::Write);
    case Opcode::Atom:
    case Opcode::Red:
    case Opcode::CpAsync:
    case Opcode::CpAsyncCommit:
    case Opcode::Nanosleep:
    case Opcode::Wgmma:  // an mma_async (the others end the block): its shared reads, its group
      return {Part::Full, sp};
    case Opcode::Shfl:
    case Opcode::Vote:
    case Opcode::Match:
    case Opcode::Redux:
    case Opcode::Activemask:
      return {spaces ? Part::Warp : Part::Full, sp};
    case Opcode::Cvta:  // a register's arithmetic; kept beside the memory instructions without
                        // spaces
      return {spaces ? Part::Free : Part::Full, sp};
    default:
      if (ins.has(ptx::kCc) || ins.has(ptx::kCarryIn))
        return {spaces ? Part::Carry : Part::Full, sp};
      return {};
  }
}

bool may_alias(ptx::Space a, ptx::Space b) {
  return a == b || a == ptx::Space::Generic || b == ptx::Space::Generic;
}

// A node: instructions first..last (an absorbed run and the instruction it issues with).
struct Node {
  std::uint32_t first = 0, last = 0;
  std::uint32_t height = 0, ready = 0, preds = 0;
  std::uint32_t tail = 0;  // cycles it must issue before the run's end (a guard the end reads)
  std::vector<std::pair<std::uint32_t, std::uint32_t>> succ;  // (node, latency)
};

// A register's 32-bit words (a predicate: none; ptxas keeps them apart).
std::uint32_t words_of(ptx::Type t) {
  return t == ptx::Type::Pred ? 0 : std::uint32_t(std::max(1, ptx::type_bytes(t) / 4));
}

// The values a run defines and reads (schedule_run's budget): `live` is the words of the values
// issued that a node not yet issued still reads. Each node's values written and read (each once)
// are kept flat, node after node, as the run is read in program order.
struct Pressure {
  struct Value {
    std::uint32_t words = 0, readers = 0;
  };
  std::vector<Value> values;
  std::vector<std::uint32_t> defs, uses;      // value ids
  std::vector<std::uint32_t> def_at, use_at;  // node d's: [at[d], at[d + 1])
  std::int64_t live = 0;

  void begin(std::uint32_t node) {
    def_at.resize(node + 1, std::uint32_t(defs.size()));
    use_at.resize(node + 1, std::uint32_t(uses.size()));
  }
  void end() {
    def_at.push_back(std::uint32_t(defs.size()));
    use_at.push_back(std::uint32_t(uses.size()));
  }
  std::uint32_t write(std::uint32_t words) {
    values.push_back({words, 0});
    defs.push_back(std::uint32_t(values.size() - 1));
    return defs.back();
  }
  void read(std::uint32_t node, std::uint32_t v) {
    const auto first = uses.begin() + use_at[node];
    if (std::find(first, uses.end(), v) != uses.end()) return;
    uses.push_back(v);
    ++values[v].readers;
  }
  // The words issuing `node` adds: its values that a later node reads, less those it reads last.
  std::int64_t delta(std::uint32_t node) const {
    std::int64_t d = 0;
    for (std::uint32_t j = def_at[node]; j < def_at[node + 1]; ++j)
      if (values[defs[j]].readers) d += values[defs[j]].words;
    for (std::uint32_t j = use_at[node]; j < use_at[node + 1]; ++j)
      if (values[uses[j]].readers == 1) d -= values[uses[j]].words;
    return d;
  }
  void issue(std::uint32_t node) {
    live += delta(node);
    for (std::uint32_t j = use_at[node]; j < use_at[node + 1]; ++j) --values[uses[j]].readers;
  }
};

// Schedules nodes (in program order) and appends their instructions to `order`.
// `end`: the instruction that ends the run in place (a block's branch), or kNone.
void schedule_run(std::vector<Node>& nodes, const std::vector<RegUse>& uses,
                  const std::vector<std::uint32_t>& latency,
                  const std::vector<std::uint32_t>& guard_latency, const ptx::Kernel& k,
                  bool spaces, std::uint32_t budget, std::uint32_t end,
                  std::vector<std::uint32_t>& order) {
  const std::size_t n = nodes.size();
  if (n <= 1) {
    for (const Node& d : nodes)
      for (std::uint32_t i = d.first; i <= d.last; ++i) order.push_back(i);
    return;
  }
  // Dependences: the last writer of each register and its readers since; for the order of
  // memory and warp-level instructions (role), the last Full node and the ordered nodes since,
  // the last Warp and Carry nodes, and per state space its last write and the loads since.
  std::vector<std::uint32_t> writer(k.regs.size(), ptx::kNone);
  std::vector<std::vector<std::uint32_t>> readers(k.regs.size());
  auto edge = [&](std::uint32_t from, std::uint32_t to, std::uint32_t lat) {
    if (from == ptx::kNone || from == to) return;
    nodes[from].succ.emplace_back(to, lat);
    ++nodes[to].preds;
  };
  constexpr std::size_t kSpaces = std::size_t(ptx::Space::Const) + 1;
  struct SpaceOrder {
    std::uint32_t write = ptx::kNone;
    std::vector<std::uint32_t> loads;
  };
  std::array<SpaceOrder, kSpaces> space{};
  std::uint32_t last_full = ptx::kNone, last_warp = ptx::kNone, last_carry = ptx::kNone;
  std::vector<std::uint32_t> since_full;
  std::vector<Role> roles;
  // The register pressure's values (budget > 0): each write in the run is a value of its
  // register's 32-bit words, live from its node until the last node of the run that reads it.
  Pressure pr;
  std::vector<std::uint32_t> value(budget ? k.regs.size() : 0, ptx::kNone);
  for (std::uint32_t d = 0; d < n; ++d) {
    roles.clear();
    if (budget) pr.begin(d);
    for (std::uint32_t i = nodes[d].first; i <= nodes[d].last; ++i) {
      for (std::uint32_t r : uses[i].reads)
        if (r < writer.size() && writer[r] != d) {
          if (writer[r] != ptx::kNone)
            edge(writer[r], d,
                 r == k.code[i].guard ? guard_latency[nodes[writer[r]].last]
                                      : latency[nodes[writer[r]].last]);
          readers[r].push_back(d);
          if (budget && value[r] != ptx::kNone) pr.read(d, value[r]);
        }
      for (std::uint32_t r : uses[i].writes)
        if (r < writer.size()) {
          edge(writer[r], d, 0);
          for (std::uint32_t rd : readers[r]) edge(rd, d, 0);
          readers[r].clear();
          writer[r] = d;
          if (budget) value[r] = pr.write(words_of(k.regs[r].type));
        }
      const Role ro = role(k.code[i], spaces);
      if (ro.part != Part::Free) roles.push_back(ro);
    }
    if (roles.empty()) continue;
    edge(last_full, d, 0);
    if (std::any_of(roles.begin(), roles.end(), [](Role r) { return r.part == Part::Full; })) {
      for (std::uint32_t x : since_full) edge(x, d, 0);
      since_full.clear();
      space = {};
      last_full = d;
      last_warp = last_carry = ptx::kNone;
      continue;
    }
    since_full.push_back(d);
    for (const Role& ro : roles) {
      if (ro.part == Part::Warp) {
        edge(last_warp, d, 0);
        last_warp = d;
      } else if (ro.part == Part::Carry) {
        edge(last_carry, d, 0);
        last_carry = d;
      } else {
        const bool write = ro.part == Part::Write;
        for (std::size_t t = 0; t < kSpaces; ++t) {
          if (!may_alias(ptx::Space(t), ro.space)) continue;
          edge(space[t].write, d, 0);
          if (write) {
            for (std::uint32_t x : space[t].loads) edge(x, d, 0);
            // Later accesses that may alias t are ordered after these loads through d.
            if (t == std::size_t(ro.space) || ro.space == ptx::Space::Generic)
              space[t].loads.clear();
          }
        }
        if (write)
          space[std::size_t(ro.space)].write = d;
        else
          space[std::size_t(ro.space)].loads.push_back(d);
      }
    }
  }
  if (budget) pr.end();
  // The instruction after the run reads its guard as late as the run's last node issues.
  if (end != ptx::kNone) {
    const std::uint32_t g = k.code[end].guard;
    if (g < writer.size() && writer[g] != ptx::kNone)
      nodes[writer[g]].tail = guard_latency[nodes[writer[g]].last];
  }
  // Heights: the longest latency path from a node to the run's end.
  for (std::uint32_t d = std::uint32_t(n); d-- > 0;) {
    std::uint32_t h = std::max(latency[nodes[d].last], nodes[d].tail);
    for (const auto& [s, lat] : nodes[d].succ) h = std::max(h, lat + nodes[s].height);
    nodes[d].height = h;
  }
  // Cycle by cycle: among the nodes whose operands are ready, the highest first (then program
  // order); when none is ready, time moves to the first that will be. With a budget, a node that
  // would take the live words past it gives way to the ready node that adds the fewest, the first
  // in program order on a tie: a chain is finished before another starts. The ready nodes are
  // kept twice: by height (a heap; a node taken through the other is skipped when it comes up) and
  // in program order (the budget's scan looks at the first kScan of them, so that a block of
  // thousands of ready instructions stays n log n).
  constexpr std::size_t kScan = 256;
  using Ready = std::pair<std::uint32_t, std::int64_t>;  // (height, -index): max first
  std::priority_queue<Ready> by_height;
  std::set<std::uint32_t> in_order;
  using Waiting = std::pair<std::uint32_t, std::uint32_t>;  // (ready cycle, index): min first
  std::priority_queue<Waiting, std::vector<Waiting>, std::greater<>> waiting;
  for (std::uint32_t d = 0; d < n; ++d)
    if (!nodes[d].preds) waiting.emplace(0, d);
  std::uint32_t cycle = 0;
  auto admit = [&] {  // the nodes ready by `cycle`
    while (!waiting.empty() && waiting.top().first <= cycle) {
      const std::uint32_t d = waiting.top().second;
      waiting.pop();
      by_height.emplace(nodes[d].height, -std::int64_t(d));
      in_order.insert(d);
    }
  };
  auto choose = [&] {
    while (!in_order.contains(std::uint32_t(-by_height.top().second))) by_height.pop();
    std::uint32_t pick = std::uint32_t(-by_height.top().second);
    if (std::int64_t least = budget ? pr.delta(pick) : 0; budget && pr.live + least > budget) {
      std::size_t seen = 0;
      for (auto it = in_order.begin(); it != in_order.end() && seen < kScan; ++it, ++seen)
        if (const std::int64_t x = pr.delta(*it); x < least || (x == least && *it < pick))
          pick = *it, least = x;
    }
    return pick;
  };
  for (std::size_t done = 0; done < n; ++done) {
    if (in_order.empty()) cycle = std::max(cycle, waiting.top().first);
    admit();
    std::uint32_t d = choose();
    // Past the budget with every ready node adding words: wait for the next node to be ready
    // (a stall, as ptxas accepts one rather than hold more registers) while one may come.
    while (budget && !waiting.empty() && pr.delta(d) > 0 &&
           pr.live + pr.delta(d) > std::int64_t(budget)) {
      cycle = std::max(cycle, waiting.top().first);
      admit();
      d = choose();
    }
    in_order.erase(d);
    if (budget) pr.issue(d);
    for (std::uint32_t i = nodes[d].first; i <= nodes[d].last; ++i) order.push_back(i);
    for (const auto& [s, lat] : nodes[d].succ) {
      nodes[s].ready = std::max(nodes[s].ready, cycle + lat);
      if (--nodes[s].preds == 0) waiting.emplace(nodes[s].ready, s);
    }
    ++cycle;
  }
}

}  // namespace

std::vector<std::uint32_t> schedule(const ptx::Kernel& kernel, const std::vector<RegUse>& uses,
                                    const std::vector<std::uint32_t>& latency,
                                    const std::vector<std::uint32_t>& with, bool spaces,
                                    std::uint32_t budget,
                                    const std::vector<std::uint32_t>& guard_latency) {
  const std::uint32_t n = std::uint32_t(kernel.code.size());
  if (uses.size() < n || latency.size() < n) return {};
  const std::vector<std::uint32_t>& guard = guard_latency.size() < n ? latency : guard_latency;
  const std::vector<std::uint32_t> block = blocks(kernel);
  // Fixed: a block's ending instruction, clock reads, and what is absorbed into either.
  std::vector<std::uint8_t> fixed(n, 0);
  for (std::uint32_t i = n; i-- > 0;) {
    const ptx::Instruction& ins = kernel.code[i];
    const bool absorbed = !with.empty() && with[i] != ptx::kNone;
    fixed[i] = absorbed ? (with[i] < n && fixed[with[i]]) : ends_block(ins) || reads_clock(ins);
  }
  std::vector<std::uint32_t> order;
  order.reserve(n);
  std::vector<Node> run;
  auto flush = [&](std::uint32_t end) {
    schedule_run(run, uses, latency, guard, kernel, spaces, budget, end, order);
    run.clear();
  };
  for (std::uint32_t i = 0; i < n; ++i) {
    if (i && block[i] != block[i - 1])
      flush(ptx::kNone);
    else if (fixed[i])
      flush(i);
    if (fixed[i]) {
      order.push_back(i);
      continue;
    }
    const bool absorbed = !with.empty() && with[i] != ptx::kNone;
    if (!run.empty() && run.back().last + 1 == i && run.back().last < n && !with.empty() &&
        with[run.back().last] == i)
      run.back().last = i;  // the instruction an absorbed run issues with joins its node
    else if (!run.empty() && absorbed && run.back().last + 1 == i && !with.empty() &&
             with[run.back().last] != ptx::kNone && with[run.back().last] == with[i])
      run.back().last = i;  // the next member of an absorbed run
    else {
      Node d;
      d.first = d.last = i;
      run.push_back(std::move(d));
    }
  }
  flush(ptx::kNone);
  for (std::uint32_t i = 0; i < n; ++i)
    if (order[i] != i) return order;
  return {};
}

ptx::Kernel reordered(const ptx::Kernel& kernel, const std::vector<std::uint32_t>& order) {
  ptx::Kernel k = kernel;
  for (std::size_t i = 0; i < order.size() && i < k.code.size(); ++i)
    k.code[i] = kernel.code[order[i]];
  return k;
}

}  // namespace smemsim::lower
